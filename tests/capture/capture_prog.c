/* Programs for the `reprise capture -- CMD` tests: each mode does known file operations in DIR. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* threads: THREADS threads, each writes WRITES blocks of 100 bytes to its own file t<i>, at known offsets. */
#define THREADS 4
#define WRITES 250

static const char *dir;

static void die(const char *what)
{
	fprintf(stderr, "capture_prog: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *thread_main(void *arg)
{
	const int i = (int)(long)arg;
	char path[4096], buf[100];
	snprintf(path, sizeof(path), "%s/t%d", dir, i);
	memset(buf, 'a' + i, sizeof(buf));
	const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open");
	for (int k = 0; k < WRITES; k++)
		if (pwrite(fd, buf, sizeof(buf), (off_t)k * 100) != (ssize_t)sizeof(buf))
			die("pwrite");
	if (fsync(fd) != 0 || close(fd) != 0)
		die("close");
	return NULL;
}

static int threads(void)
{
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, thread_main, (void *)i) != 0)
			die("pthread_create");
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* stdio: fprintf 1000 lines of 20 bytes into s.txt, read them back with fgets. */
static int stdio_mode(void)
{
	char path[4096], line[64];
	snprintf(path, sizeof(path), "%s/s.txt", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		die("fopen w");
	for (int i = 0; i < 1000; i++)
		fprintf(f, "line %014d\n", i); /* 20 bytes */
	if (fclose(f) != 0)
		die("fclose");
	f = fopen(path, "r");
	if (!f)
		die("fopen r");
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n == 1000 ? 0 : 1;
}

/* forkexec: the child writes c.txt then execs /bin/cat c.txt > d.txt (a redirection made by dup2). */
static int forkexec(void)
{
	char c[4096], d[4096];
	snprintf(c, sizeof(c), "%s/c.txt", dir);
	snprintf(d, sizeof(d), "%s/d.txt", dir);
	const pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		const int fd = open(c, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "child\n", 6) != 6 || close(fd) != 0)
			_exit(1);
		const int out = open(d, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || dup2(out, 1) != 1)
			_exit(1);
		close(out);
		execl("/bin/cat", "cat", c, (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	return 0;
}

/* killme: write k.txt in 10 steps of 10 bytes, fsync, announce on stdout, then wait to be killed. */
static _Noreturn void killme(void)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/k.txt", dir);
	const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open");
	for (int i = 0; i < 10; i++)
		if (write(fd, "0123456789", 10) != 10)
			die("write");
	fsync(fd);
	char ready[4096];
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	const int r = open(ready, O_WRONLY | O_CREAT, 0644);
	close(r);
	for (;;)
		pause();
}

/* errno: a failing open must leave errno ENOENT, a failing unlink ENOENT, a failing mkdir EEXIST. */
static int errno_mode(void)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/missing/x", dir);
	errno = 0;
	if (open(p, O_RDONLY) != -1 || errno != ENOENT)
		return 1;
	errno = 0;
	if (unlink(p) != -1 || errno != ENOENT)
		return 2;
	errno = 0;
	if (mkdir(dir, 0755) != -1 || errno != EEXIST)
		return 3;
	errno = 1234; /* a successful call leaves errno alone */
	const int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || errno != 1234)
		return 4;
	close(fd);
	return 0;
}

/*
 * exitflush: 318 writes of 1 byte into w.txt, then a line fprintf'd into
 * x.txt that is never flushed nor closed: exit() flushes it, after every
 * destructor (the interposer's and liblttng-ust's included).
 */
static int exitflush_mode(void)
{
	char w[4096], x[4096];
	snprintf(w, sizeof(w), "%s/w.txt", dir);
	snprintf(x, sizeof(x), "%s/x.txt", dir);
	const int fd = open(w, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		die("open w.txt");
	for (int i = 0; i < 318; i++)
		if (write(fd, "w", 1) != 1)
			die("write");
	if (close(fd) != 0)
		die("close");
	FILE *const f = fopen(x, "w");
	if (!f)
		die("fopen x.txt");
	fprintf(f, "flushed by exit\n");
	return 0; /* f still holds its line */
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: capture_prog threads|stdio|forkexec|killme|errno|exitflush DIR\n");
		return 2;
	}
	dir = argv[2];
	if (!strcmp(argv[1], "threads"))
		return threads();
	if (!strcmp(argv[1], "stdio"))
		return stdio_mode();
	if (!strcmp(argv[1], "forkexec"))
		return forkexec();
	if (!strcmp(argv[1], "killme"))
		killme();
	if (!strcmp(argv[1], "errno"))
		return errno_mode();
	if (!strcmp(argv[1], "exitflush"))
		return exitflush_mode();
	return 2;
}
