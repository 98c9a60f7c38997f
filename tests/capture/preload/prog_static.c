/* A program linked -static: the interposer cannot load into it, so exec reports it UNTRACED (test_preload.c). */
int main(void)
{
	return 0;
}
