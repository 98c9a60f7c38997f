/* Replays fuzz inputs (files, or every file in directories) through LLVMFuzzerTestOneInput. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *const f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *const bigger = realloc(buf, cap *= 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
			}
			buf = bigger;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		return 1;
	}
	/* Hand the fuzzer an exact-size copy so ASan sees overreads. */
	uint8_t *const exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return 1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int run_path(const char *path, unsigned *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*count;
		return run_file(path);
	}
	struct dirent **names = NULL;
	const int n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	int bad = 0;
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			char child[4096];
			snprintf(child, sizeof(child), "%s/%s", path, names[i]->d_name);
			bad |= run_path(child, count);
		}
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int bad = 0;
	for (int i = 1; i < argc; i++)
		bad |= run_path(argv[i], &count);
	if (count == 0) {
		fprintf(stderr, "no inputs: give files or corpus directories\n");
		return 1;
	}
	printf("replayed %u inputs\n", count);
	return bad;
}
