/* The traced side of the preload tests: small workloads run under libreprise-preload.so, one per argv[1] (test_preload.c checks their events). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* What the multithreaded workload does: THREADS threads of WRITES pwrites each. */
#define THREADS 4
#define WRITES 200

static const char *dir;

static int fail(const char *what)
{
	fprintf(stderr, "prog: %s: %s\n", what, strerror(errno));
	return 1;
}

static char *at(const char *name)
{
	static char buf[4][4096];
	static int k;
	char *const b = buf[k++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", dir, name);
	return b;
}

static int rw(void)
{
	char buf[128] = {0};
	int fd = open(at("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, 100) != 100 || pwrite(fd, buf, 50, 1000) != 50 || close(fd) != 0)
		return fail("rw write");
	fd = open(at("f"), O_RDONLY);
	if (fd < 0 || read(fd, buf, 64) != 64 || pread(fd, buf, 10, 5) != 10 || lseek(fd, 0, SEEK_SET) != 0 ||
	    close(fd) != 0)
		return fail("rw read");
	return 0;
}

static int openat_rename(void)
{
	const int d = open(dir, O_RDONLY | O_DIRECTORY);
	const int fd = d < 0 ? -1 : openat(d, "g", O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || close(fd) != 0 || renameat2(d, "g", d, "h", RENAME_NOREPLACE) != 0 || close(d) != 0)
		return fail("openat");
	return 0;
}

static int stats(void)
{
	struct stat st;
	struct statx sx;
	const int fd = open(at("s"), O_CREAT | O_RDWR, 0644);
	if (fd < 0 || stat(at("s"), &st) || lstat(at("s"), &st) || fstat(fd, &st) ||
	    fstatat(AT_FDCWD, at("s"), &st, AT_SYMLINK_NOFOLLOW) || statx(AT_FDCWD, at("s"), 0, STATX_SIZE, &sx) ||
	    access(at("s"), R_OK) || close(fd))
		return fail("stat");
	return 0;
}

static int dup2_write(void)
{
	const int fd = open(at("d"), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || dup2(fd, 10) != 10 || write(10, "abc", 3) != 3 || close(10) || close(fd))
		return fail("dup2");
	return 0;
}

static int child_work(void)
{
	const int fd = open(at("child"), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "12345", 5) != 5 || close(fd))
		return fail("child");
	return 0;
}

static int wait_ok(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return fail("child status");
	return 0;
}

static int fork_exec(const char *self)
{
	const pid_t pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		execl(self, self, "child", dir, (char *)NULL);
		_exit(127);
	}
	return wait_ok(pid);
}

static int spawn(const char *self)
{
	pid_t pid;
	char *const argv[] = {(char *)self, "child", (char *)dir, NULL};
	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0)
		return fail("posix_spawn");
	return wait_ok(pid);
}

static void *thread_main(void *arg)
{
	const long k = (long)arg;
	char name[32];
	snprintf(name, sizeof name, "t%ld", k);
	const int fd = open(at(name), O_CREAT | O_WRONLY, 0644);
	for (int i = 0; fd >= 0 && i < WRITES; i++)
		if (pwrite(fd, "x", 1, i) != 1)
			return (void *)1;
	return fd >= 0 && close(fd) == 0 ? NULL : (void *)1;
}

static int threads(void)
{
	pthread_t t[THREADS];
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, thread_main, (void *)k))
			return fail("pthread_create");
	for (int k = 0; k < THREADS; k++) {
		void *r;
		if (pthread_join(t[k], &r) || r)
			return fail("thread");
	}
	return 0;
}

/* 1000 fprintf lines and one 10000-byte fwrite: the byte totals are known, the events are few. */
static int stdio(void)
{
	FILE *const f = fopen(at("stdio"), "w");
	if (!f)
		return fail("fopen");
	for (int i = 0; i < 1000; i++)
		fprintf(f, "line %04d\n", i); /* 10 bytes each */
	static char big[10000];
	if (fwrite(big, 1, sizeof big, f) != sizeof big || fclose(f))
		return fail("fwrite");
	return 0;
}

static int errno_kept(void)
{
	errno = 0;
	if (open(at("missing"), O_RDONLY) != -1 || errno != ENOENT) {
		fprintf(stderr, "prog: errno %d after a failing open, not ENOENT\n", errno);
		return 1;
	}
	errno = 1234; /* a successful call leaves errno as it was */
	const int fd = open(at("present"), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || errno != 1234 || close(fd) || errno != 1234) {
		fprintf(stderr, "prog: errno changed by a successful call\n");
		return 1;
	}
	return 0;
}

/*
 * 50 writes, open and close "ready", then the mark the test waits for, then
 * sleep until killed.  The mark is a rename done after ready's calls
 * returned: a file the test saw made by an open may be there before the
 * open's event is (a call the process dies in is not recorded).
 */
static int killed(void)
{
	const int fd = open(at("k"), O_CREAT | O_WRONLY, 0644);
	for (int i = 0; fd >= 0 && i < 50; i++)
		if (write(fd, "k", 1) != 1)
			return fail("write");
	const int m = open(at("ready"), O_CREAT | O_WRONLY, 0644);
	if (m < 0 || close(m))
		return fail("ready");
	if (rename(at("ready"), at("go")) != 0)
		return fail("go");
	for (;;)
		pause();
}

/* The program closes every fd but stdio (close_range): the tracer holds none, so tracing goes on. */
static int closeall(void)
{
	if (close_range(3, ~0u, 0) != 0)
		return fail("close_range");
	for (int fd = 3; fd < 64; fd++)
		dup2(1, fd), close(fd);
	const int fd = open(at("after"), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "z", 1) != 1 || close(fd))
		return fail("after close_range");
	return 0;
}

/* Three files, then a whole readdir of the directory: one READDIR event for the run. */
static int listdir(void)
{
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "e%d", i);
		const int fd = open(at(name), O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || close(fd))
			return fail("create");
	}
	DIR *const d = opendir(dir);
	if (!d)
		return fail("opendir");
	int n = 0;
	while (readdir(d))
		n++;
	if (n != 5 || closedir(d))
		return fail("readdir");
	return 0;
}

/* Calls on a pipe are no file operations: none is recorded; then fcntl's recorded commands on a file. */
static int pipes_fcntl(void)
{
	int p[2];
	char c;
	if (pipe(p) || write(p[1], "p", 1) != 1 || read(p[0], &c, 1) != 1 || close(p[0]) || close(p[1]))
		return fail("pipe");
	const int fd = open(at("lk"), O_CREAT | O_RDWR, 0644);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 10, .l_len = 20};
	if (fd < 0 || fcntl(fd, F_SETLK, &fl) || fcntl(fd, F_DUPFD_CLOEXEC, 20) != 20 || fcntl(fd, F_SETFD, FD_CLOEXEC) ||
	    fcntl(fd, F_GETFL) < 0 || close(20) || close(fd))
		return fail("fcntl");
	return 0;
}

/* The program drops what keeps it traced from its environment, then execs: the interposer puts it back. */
static int lost_env(const char *self)
{
	unsetenv("LD_PRELOAD");
	unsetenv("REPRISE_SPOOL");
	const pid_t pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		char *const argv[] = {(char *)self, "child", (char *)dir, NULL};
		execv(self, argv);
		_exit(127);
	}
	return wait_ok(pid);
}

/* 5000 pwrites through a 64 KiB ring: it wraps (PAD records) and the thread may wait for the writer. */
static int many(void)
{
	const int fd = open(at("many"), O_CREAT | O_WRONLY, 0644);
	for (int i = 0; fd >= 0 && i < 5000; i++)
		if (pwrite(fd, "m", 1, i) != 1)
			return fail("pwrite");
	return fd >= 0 && close(fd) == 0 ? 0 : fail("many");
}

/*
 * An alarm around a blocking open of a FIFO nobody writes: the handler
 * siglongjmps out of the open (which never returns), then the program goes on
 * with calls of its own, which must be recorded.
 */
static sigjmp_buf jumped;

static void on_alarm(int sig)
{
	(void)sig;
	siglongjmp(jumped, 1);
}

/* A handler that jumps within itself and returns: it leaves no hook, the open fails with EINTR. */
static void on_alarm_local(int sig)
{
	(void)sig;
	jmp_buf local;
	if (setjmp(local) == 0)
		longjmp(local, 1);
}

static int jump_local(void)
{
	if (mkfifo(at("fifo"), 0600) != 0)
		return fail("mkfifo");
	struct sigaction sa = {.sa_handler = on_alarm_local}; /* no SA_RESTART: the open returns */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		return fail("sigaction");
	alarm(1);
	if (open(at("fifo"), O_RDONLY) != -1 || errno != EINTR)
		return fail("fifo open did not fail with EINTR");
	const int fd = open(at("after"), O_CREAT | O_WRONLY, 0644);
	return fd >= 0 && close(fd) == 0 ? 0 : fail("after");
}

static int jump(void)
{
	if (mkfifo(at("fifo"), 0600) != 0)
		return fail("mkfifo");
	struct sigaction sa = {.sa_handler = on_alarm};
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		return fail("sigaction");
	if (sigsetjmp(jumped, 1) == 0) {
		alarm(1);
		open(at("fifo"), O_RDONLY); /* blocks until the alarm */
		return fail("fifo open returned");
	}
	const int fd = open(at("after"), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "abc", 3) != 3 || close(fd) != 0)
		return fail("after");
	return 0;
}

/* The per-event cost: n preads of 1 byte on a file (tmpfs in the benchmark). */
static int bench(long n)
{
	const int fd = open(at("bench"), O_CREAT | O_RDWR, 0644);
	if (fd < 0 || write(fd, "b", 1) != 1)
		return fail("bench");
	char c;
	struct timespec a, b, ca, cb;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	for (long i = 0; i < n; i++)
		if (pread(fd, &c, 1, 0) != 1)
			return fail("pread");
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	const double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	const double cpu = (double)(cb.tv_sec - ca.tv_sec) * 1e9 + (double)(cb.tv_nsec - ca.tv_nsec);
	/* CPU time too: on a loaded machine the wall clock counts other processes' turns */
	printf("%.1f ns per pread (%.1f ns of CPU)\n", ns / (double)n, cpu / (double)n);
	return close(fd) ? fail("close") : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: prog WORKLOAD DIR [ARG]\n");
		return 2;
	}
	dir = argv[2];
	const char *const w = argv[1];
	if (!strcmp(w, "rw"))
		return rw();
	if (!strcmp(w, "openat"))
		return openat_rename();
	if (!strcmp(w, "stat"))
		return stats();
	if (!strcmp(w, "dup2"))
		return dup2_write();
	if (!strcmp(w, "child"))
		return child_work();
	if (!strcmp(w, "fork"))
		return fork_exec(argv[0]);
	if (!strcmp(w, "spawn"))
		return spawn(argv[0]);
	if (!strcmp(w, "threads"))
		return threads();
	if (!strcmp(w, "stdio"))
		return stdio();
	if (!strcmp(w, "errno"))
		return errno_kept();
	if (!strcmp(w, "pipes"))
		return pipes_fcntl();
	if (!strcmp(w, "lostenv"))
		return lost_env(argv[0]);
	if (!strcmp(w, "many"))
		return many();
	if (!strcmp(w, "readdir"))
		return listdir();
	if (!strcmp(w, "closeall"))
		return closeall();
	if (!strcmp(w, "jump"))
		return jump();
	if (!strcmp(w, "jumplocal"))
		return jump_local();
	if (!strcmp(w, "kill"))
		return killed();
	if (!strcmp(w, "exec") && argc > 3) { /* exec argv[3] (a static or set-user-id program) */
		execl(argv[3], argv[3], (char *)NULL);
		return fail("exec");
	}
	if (!strcmp(w, "bench") && argc > 3)
		return bench(atol(argv[3]));
	fprintf(stderr, "prog: unknown workload %s\n", w);
	return 2;
}
