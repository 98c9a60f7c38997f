/* The interposer end to end: test programs run under libreprise-preload.so, their rings drained by the spool reader, their events checked against what they did (capture/preload). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/preload/spool.h"
#include "capture/preload/tsc.h"
#include "tests/capture/preload/ringfile.h"

static const char *prog, *preload, *static_prog;
/* The next trace runs with REPRISE_NO_STDIO=1. */
static bool no_stdio;
/* The clock the next trace's threads read (AUTO: the TSC on most x86 machines). */
static rp_spool_clock trace_clock = RP_SPOOL_CLOCK_AUTO;

typedef struct evc {
	rp_sysev ev;
	char p[2][RP_SYSEV_PATH_MAX + 1];
} evc;

typedef struct run {
	evc *v;
	size_t n, cap;
	pid_t pid;
	int status;
	char dir[64];
	rp_spool_stats st;
	rp_spool_clock clock;
	uint64_t t_before, t_after; /* CLOCK_MONOTONIC ns before the program started and after its last event came */
} run;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int collect(void *ctx, const rp_sysev *ev)
{
	run *const r = ctx;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = realloc(r->v, r->cap * sizeof *r->v);
		assert_non_null(r->v);
	}
	evc *const e = &r->v[r->n++];
	e->ev = *ev;
	for (int i = 0; i < 2; i++) {
		e->p[i][0] = 0;
		if (ev->p[i]) {
			assert_true(ev->plen[i] <= RP_SYSEV_PATH_MAX);
			memcpy(e->p[i], ev->p[i], ev->plen[i]);
			e->p[i][ev->plen[i]] = 0;
		}
		e->ev.p[i] = ev->p[i] ? e->p[i] : NULL;
	}
	return 0;
}

/* Run prog WORKLOAD DIR [arg] traced; with kill_ready, SIGKILL it once it made DIR/go. */
static void trace(run *r, const char *workload, const char *arg, bool kill_ready)
{
	memset(r, 0, sizeof *r);
	snprintf(r->dir, sizeof r->dir, "/tmp/rp-preload-XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	rp_spool *s;
	char eb[256];
	assert_int_equal(rp_spool_create(&s, NULL, 0, trace_clock, eb), 0);
	r->clock = rp_spool_get_clock(s);
	r->t_before = mono_ns();
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		setenv("LD_PRELOAD", preload, 1);
		setenv(RP_ENV_PRELOAD, preload, 1);
		setenv(RP_ENV_SPOOL, rp_spool_dir(s), 1);
		setenv(RP_ENV_RING_KB, "64", 1); /* small rings: the writer's waits get exercised */
		if (no_stdio)
			setenv(RP_ENV_NO_STDIO, "1", 1);
		execl(prog, prog, workload, r->dir, arg, (char *)NULL);
		_exit(127);
	}
	char ready[128];
	snprintf(ready, sizeof ready, "%s/go", r->dir);
	for (;;) {
		assert_true(rp_spool_poll(s, false, collect, r) >= 0);
		const pid_t w = waitpid(r->pid, &r->status, WNOHANG);
		if (w == r->pid)
			break;
		struct stat st;
		if (kill_ready && stat(ready, &st) == 0)
			kill(r->pid, SIGKILL);
		const struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	/* Children of the workload (fork, spawn) are waited for by it; what is left in the rings comes now. */
	assert_true(rp_spool_poll(s, true, collect, r) >= 0);
	r->t_after = mono_ns();
	r->st = *rp_spool_get_stats(s);
	assert_int_equal(r->st.bad, 0);
	assert_int_equal(r->st.lost, 0);
	assert_int_equal(r->st.late, 0);
	rp_spool_destroy(s);
	if (!kill_ready && !arg) {
		assert_true(WIFEXITED(r->status));
		assert_int_equal(WEXITSTATUS(r->status), 0);
	}
}

static void run_free(run *r)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", r->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", r->dir);
	free(r->v);
}

static bool ends(const char *p, const char *suffix)
{
	const size_t a = strlen(p), b = strlen(suffix);
	return a >= b && strcmp(p + a - b, suffix) == 0;
}

/* The next event from index *i on of kind nr (and path suffix p0, when given) of process pid (0: any). */
static const evc *next(const run *r, size_t *i, unsigned nr, const char *p0, pid_t pid)
{
	for (; *i < r->n; ++*i) {
		const evc *const e = &r->v[*i];
		if (e->ev.nr == nr && (!pid || e->ev.pid == (uint32_t)pid) && (!p0 || (e->ev.p[0] && ends(e->p[0], p0)))) {
			++*i;
			return e;
		}
	}
	fail_msg("no event %u %s after the one looked at", nr, p0 ? p0 : "");
	return NULL;
}

/* The next READ/WRITE/LSEEK/CLOSE on fd. */
static const evc *next_fd(const run *r, size_t *i, unsigned nr, int64_t fd)
{
	for (; *i < r->n; ++*i)
		if (r->v[*i].ev.nr == nr && r->v[*i].ev.a[0] == fd)
			return &r->v[(*i)++];
	fail_msg("no event %u on fd %lld", nr, (long long)fd);
	return NULL;
}

static void check_order(const run *r)
{
	/* Delivered in t_start order (the merge's promise; late is 0 above). */
	for (size_t i = 1; i < r->n; i++)
		assert_true(r->v[i - 1].ev.t_start <= r->v[i].ev.t_start);
	/* In CLOCK_MONOTONIC's ns whichever clock the threads read (the TSC's ticks mapped: good to ~1 us here). */
	const uint64_t slack = 1000000;
	for (size_t i = 0; i < r->n; i++) {
		assert_true(r->v[i].ev.t_start + slack >= r->t_before);
		assert_true(r->v[i].ev.t_end <= r->t_after + slack);
		assert_true(r->v[i].ev.t_end >= r->v[i].ev.t_start);
	}
}

static void test_rw(void **state)
{
	run r;
	trace(&r, "rw", NULL, false);
	check_order(&r);
	size_t i = 0;
	const evc *e = next(&r, &i, RP_SYSEV_START, NULL, r.pid);
	assert_int_equal(e->ev.a[0], getpid());
	e = next(&r, &i, RP_SYSEV_OPEN, "/f", r.pid);
	assert_int_equal(e->ev.a[0], AT_FDCWD);
	assert_int_equal(e->ev.a[1], O_CREAT | O_WRONLY | O_TRUNC);
	assert_int_equal(e->ev.a[2], 0644);
	const int64_t fd = e->ev.ret;
	assert_true(fd >= 0);
	e = next_fd(&r, &i, RP_SYSEV_WRITE, fd);
	assert_int_equal(e->ev.a[1], -1);
	assert_int_equal(e->ev.a[2], 100);
	assert_int_equal(e->ev.ret, 100);
	e = next_fd(&r, &i, RP_SYSEV_WRITE, fd);
	assert_int_equal(e->ev.a[1], 1000);
	assert_int_equal(e->ev.ret, 50);
	e = next_fd(&r, &i, RP_SYSEV_CLOSE, fd);
	assert_int_equal(e->ev.ret, 0);
	e = next(&r, &i, RP_SYSEV_OPEN, "/f", r.pid);
	assert_int_equal(e->ev.a[1], O_RDONLY);
	const int64_t fd2 = e->ev.ret;
	e = next_fd(&r, &i, RP_SYSEV_READ, fd2);
	assert_int_equal(e->ev.a[1], -1);
	assert_int_equal(e->ev.a[2], 64);
	assert_int_equal(e->ev.ret, 64);
	e = next_fd(&r, &i, RP_SYSEV_READ, fd2);
	assert_int_equal(e->ev.a[1], 5);
	assert_int_equal(e->ev.ret, 10);
	e = next_fd(&r, &i, RP_SYSEV_LSEEK, fd2);
	assert_int_equal(e->ev.a[2], SEEK_SET);
	assert_int_equal(e->ev.ret, 0);
	e = next_fd(&r, &i, RP_SYSEV_CLOSE, fd2);
	assert_true(e->ev.t_end >= e->ev.t_start);
	next(&r, &i, RP_SYSEV_EXIT, NULL, r.pid);
	assert_int_equal(r.st.rings, r.st.rings_done);
	run_free(&r);
}

/* Both clocks give the same events in the same order, in ns of the run's time. */
static void test_clocks(void **state)
{
	const rp_spool_clock clocks[] = {RP_SPOOL_CLOCK_MONOTONIC, RP_SPOOL_CLOCK_TSC};
	size_t n[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		run r;
		trace_clock = clocks[k];
		if (clocks[k] == RP_SPOOL_CLOCK_TSC && !RP_HAVE_TSC) {
			trace_clock = RP_SPOOL_CLOCK_AUTO;
			continue;
		}
		trace(&r, "threads", NULL, false);
		trace_clock = RP_SPOOL_CLOCK_AUTO;
		assert_int_equal(r.clock, clocks[k]);
		check_order(&r);
		n[k] = r.n;
		run_free(&r);
	}
	if (RP_HAVE_TSC)
		assert_int_equal(n[0], n[1]);
}

static void test_openat_renameat2(void **state)
{
	run r;
	trace(&r, "openat", NULL, false);
	size_t i = 0;
	const evc *e = next(&r, &i, RP_SYSEV_OPEN, r.dir, r.pid);
	const int64_t d = e->ev.ret;
	assert_true(d >= 0);
	e = next(&r, &i, RP_SYSEV_OPEN, "g", r.pid);
	assert_int_equal(e->ev.a[0], d);
	assert_string_equal(e->p[0], "g");
	e = next(&r, &i, RP_SYSEV_RENAME, "g", r.pid);
	assert_int_equal(e->ev.a[0], d);
	assert_int_equal(e->ev.a[1], d);
	assert_int_equal(e->ev.a[2], RENAME_NOREPLACE);
	assert_string_equal(e->p[1], "h");
	assert_int_equal(e->ev.ret, 0);
	run_free(&r);
}

static void test_stat_family(void **state)
{
	run r;
	trace(&r, "stat", NULL, false);
	size_t i = 0;
	const evc *e = next(&r, &i, RP_SYSEV_OPEN, "/s", r.pid);
	const int64_t fd = e->ev.ret;
	e = next(&r, &i, RP_SYSEV_STAT, "/s", r.pid);
	assert_int_equal(e->ev.a[1], 0);
	e = next(&r, &i, RP_SYSEV_STAT, "/s", r.pid);
	assert_int_equal(e->ev.a[1], AT_SYMLINK_NOFOLLOW);
	e = next(&r, &i, RP_SYSEV_STAT, NULL, r.pid); /* fstat: the fd, AT_EMPTY_PATH, no path */
	assert_int_equal(e->ev.a[0], fd);
	assert_int_equal(e->ev.a[1], AT_EMPTY_PATH);
	assert_int_equal(e->ev.plen[0], 0);
	e = next(&r, &i, RP_SYSEV_STAT, "/s", r.pid);
	assert_int_equal(e->ev.a[1], AT_SYMLINK_NOFOLLOW);
	e = next(&r, &i, RP_SYSEV_STAT, "/s", r.pid);
	assert_int_equal(e->ev.a[2], 1); /* statx */
	e = next(&r, &i, RP_SYSEV_ACCESS, "/s", r.pid);
	assert_int_equal(e->ev.a[1], R_OK);
	run_free(&r);
}

static void test_dup2_write(void **state)
{
	run r;
	trace(&r, "dup2", NULL, false);
	size_t i = 0;
	const int64_t fd = next(&r, &i, RP_SYSEV_OPEN, "/d", r.pid)->ev.ret;
	const evc *e = next_fd(&r, &i, RP_SYSEV_DUP, fd);
	assert_int_equal(e->ev.a[1], 10);
	assert_int_equal(e->ev.ret, 10);
	e = next_fd(&r, &i, RP_SYSEV_WRITE, 10);
	assert_int_equal(e->ev.ret, 3);
	next_fd(&r, &i, RP_SYSEV_CLOSE, 10);
	next_fd(&r, &i, RP_SYSEV_CLOSE, fd);
	run_free(&r);
}

static void test_fork_exec(void **state)
{
	run r;
	trace(&r, "fork", NULL, false);
	size_t i = 0;
	const evc *const f = next(&r, &i, RP_SYSEV_FORK, NULL, 0);
	assert_int_equal(f->ev.a[0], r.pid);
	const pid_t child = (pid_t)f->ev.pid;
	assert_int_not_equal(child, r.pid);
	const evc *e = next(&r, &i, RP_SYSEV_EXEC, NULL, child);
	assert_string_equal(e->p[0], prog);
	assert_int_equal(e->ev.ret, 0);
	e = next(&r, &i, RP_SYSEV_START, NULL, child); /* the new image, same pid */
	assert_int_equal(e->ev.a[0], r.pid);
	e = next(&r, &i, RP_SYSEV_OPEN, "/child", child);
	assert_true(e->ev.ret >= 0);
	e = next_fd(&r, &i, RP_SYSEV_WRITE, e->ev.ret);
	assert_int_equal(e->ev.pid, child);
	assert_int_equal(e->ev.ret, 5);
	run_free(&r);
}

static void test_posix_spawn(void **state)
{
	run r;
	trace(&r, "spawn", NULL, false);
	pid_t child = 0;
	for (size_t k = 0; k < r.n && !child; k++)
		if (r.v[k].ev.nr == RP_SYSEV_START && r.v[k].ev.pid != (uint32_t)r.pid) {
			assert_int_equal(r.v[k].ev.a[0], r.pid); /* no atfork handler ran: START names the parent */
			child = (pid_t)r.v[k].ev.pid;
		}
	assert_true(child > 0);
	size_t i = 0;
	next(&r, &i, RP_SYSEV_OPEN, "/child", child);
	run_free(&r);
}

static void test_threads(void **state)
{
	enum { THREADS = 4, WRITES = 200 };
	run r;
	trace(&r, "threads", NULL, false);
	uint32_t tids[THREADS] = {0};
	int64_t fds[THREADS];
	int nt = 0;
	int64_t seen[THREADS] = {0};
	for (size_t k = 0; k < r.n; k++) {
		const rp_sysev *const ev = &r.v[k].ev;
		if (ev->nr == RP_SYSEV_OPEN && ev->p[0] && strstr(r.v[k].p[0], "/t")) {
			assert_true(nt < THREADS);
			assert_int_not_equal(ev->tid, ev->pid);
			tids[nt] = ev->tid;
			fds[nt++] = ev->ret;
		}
		if (ev->nr != RP_SYSEV_WRITE)
			continue;
		int t = 0;
		while (t < nt && tids[t] != ev->tid)
			t++;
		assert_true(t < nt);
		assert_int_equal(ev->a[0], fds[t]);
		assert_int_equal(ev->a[1], seen[t]); /* every write once, in the thread's order */
		seen[t]++;
	}
	assert_int_equal(nt, THREADS);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(seen[t], WRITES);
	run_free(&r);
}

static void test_stdio_coalesced(void **state)
{
	run r;
	trace(&r, "stdio", NULL, false);
	size_t i = 0;
	const evc *e = next(&r, &i, RP_SYSEV_OPEN, "/stdio", r.pid);
	assert_true(e->ev.flags & RP_SYSEV_STDIO);
	assert_int_equal(e->ev.a[1], O_WRONLY | O_CREAT | O_TRUNC);
	const int64_t fd = e->ev.ret;
	int64_t bytes = 0, asked = 0, small = 0;
	unsigned events = 0;
	size_t k = i;
	for (; k < r.n && !(r.v[k].ev.nr == RP_SYSEV_CLOSE && r.v[k].ev.a[0] == fd); k++)
		if (r.v[k].ev.nr == RP_SYSEV_WRITE && r.v[k].ev.a[0] == fd) {
			assert_true(r.v[k].ev.flags & RP_SYSEV_STDIO);
			assert_int_equal(r.v[k].ev.a[1], -1);
			bytes += r.v[k].ev.ret;
			small += r.v[k].ev.ret < 4096; /* a run ends when it fills the FILE's buffer, or at fclose */
			asked += r.v[k].ev.a[2];
			events++;
		}
	assert_true(k < r.n);
	assert_true(r.v[k].ev.flags & RP_SYSEV_STDIO);
	assert_int_equal(bytes, 20000);
	assert_int_equal(asked, 20000);
	/* 10000 bytes of fprintf then 10000 of fwrite through a 4096-byte buffer: a handful, not 1001 */
	/* 1000 fprintf calls and one fwrite through a 4096-byte buffer: a few events, all full but the last */
	assert_true(events >= 2 && events <= 8);
	assert_true(small <= 1);
	run_free(&r);
}

static void test_no_stdio(void **state)
{
	run r;
	no_stdio = true;
	trace(&r, "stdio", NULL, false);
	no_stdio = false;
	for (size_t k = 0; k < r.n; k++)
		assert_false(r.v[k].ev.flags & RP_SYSEV_STDIO);
	run_free(&r);
}

static void test_readdir_run(void **state)
{
	run r;
	trace(&r, "readdir", NULL, false);
	size_t i = 0;
	const evc *e = next(&r, &i, RP_SYSEV_OPEN, r.dir, r.pid);
	assert_true(e->ev.flags & RP_SYSEV_STDIO); /* opendir */
	const int64_t fd = e->ev.ret;
	e = next_fd(&r, &i, RP_SYSEV_READDIR, fd);
	assert_int_equal(e->ev.a[1], 5); /* ".", "..", three files: one event for the run */
	assert_int_equal(e->ev.a[2], 1);
	e = next_fd(&r, &i, RP_SYSEV_CLOSE, fd);
	assert_true(e->ev.flags & RP_SYSEV_STDIO);
	unsigned runs = 0;
	for (size_t k = 0; k < r.n; k++)
		runs += r.v[k].ev.nr == RP_SYSEV_READDIR && r.v[k].ev.a[0] == fd;
	assert_int_equal(runs, 1);
	run_free(&r);
}

static void test_pipes_unrecorded_fcntl(void **state)
{
	run r;
	trace(&r, "pipes", NULL, false);
	size_t i = 0;
	const evc *e = next(&r, &i, RP_SYSEV_OPEN, "/lk", r.pid);
	const int64_t fd = e->ev.ret;
	/* before the file's open: the pipe's write, read and closes made no event */
	for (size_t k = 0; k + 1 < i; k++)
		assert_true(r.v[k].ev.nr == RP_SYSEV_START || r.v[k].ev.nr == RP_SYSEV_FD);
	e = next_fd(&r, &i, RP_SYSEV_LOCK, fd);
	assert_int_equal(e->ev.a[1], F_SETLK);
	assert_int_equal(e->ev.a[2], F_WRLCK);
	assert_int_equal(e->ev.a[4], 10);
	assert_int_equal(e->ev.a[5], 20);
	e = next_fd(&r, &i, RP_SYSEV_DUP, fd);
	assert_int_equal(e->ev.a[1], 20);
	assert_int_equal(e->ev.a[2], O_CLOEXEC);
	assert_int_equal(e->ev.a[3], 1);
	assert_int_equal(e->ev.ret, 20);
	e = next_fd(&r, &i, RP_SYSEV_CLOEXEC, fd);
	assert_int_equal(e->ev.a[1], 1);
	next_fd(&r, &i, RP_SYSEV_CLOSE, 20); /* F_GETFL made no event: the next one is the close */
	assert_int_equal(r.v[i - 2].ev.nr, RP_SYSEV_CLOEXEC);
	run_free(&r);
}

static void test_env_restored(void **state)
{
	run r;
	trace(&r, "lostenv", NULL, false);
	const evc *e = NULL;
	for (size_t k = 0; k < r.n && !e; k++)
		if (r.v[k].ev.nr == RP_SYSEV_OPEN && r.v[k].ev.pid != (uint32_t)r.pid && ends(r.v[k].p[0], "/child"))
			e = &r.v[k];
	assert_non_null(e); /* the child exec'd without LD_PRELOAD in environ, and was traced */
	run_free(&r);
}

static void test_ring_wraps(void **state)
{
	run r;
	trace(&r, "many", NULL, false);
	size_t i = 0;
	const int64_t fd = next(&r, &i, RP_SYSEV_OPEN, "/many", r.pid)->ev.ret;
	for (int k = 0; k < 5000; k++)
		assert_int_equal(next_fd(&r, &i, RP_SYSEV_WRITE, fd)->ev.a[1], k);
	run_free(&r);
}

/* The ring files in a spool directory (every name but the control page's). */
static int spool_rings(const char *spool)
{
	DIR *const d = opendir(spool);
	assert_non_null(d);
	int n = 0;
	const struct dirent *de;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.' && strcmp(de->d_name, RP_SPOOL_CTL_FILE) != 0;
	closedir(d);
	return n;
}

/* The writer was killed (no destroy, no writer_gone): a thread with a full ring must not wait forever. */
static void test_writer_killed(void **state)
{
	char spool[64];
	snprintf(spool, sizeof spool, "/tmp/rp-deadwriter-XXXXXX");
	assert_non_null(mkdtemp(spool));
	const pid_t dead = fork(); /* a pid that existed and is gone: the "writer" */
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	assert_int_equal(ringfile_ctl_write(spool, (int)dead), 0);
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/rp-preload-XXXXXX");
	assert_non_null(mkdtemp(dir));
	const pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", preload, 1);
		setenv(RP_ENV_SPOOL, spool, 1);
		setenv(RP_ENV_RING_KB, "64", 1);
		execl(prog, prog, "many", dir, (char *)NULL); /* 5000 events: more than 64 KiB, nobody reads */
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* Nobody holds the control page's lock: the program made no ring in a spool nobody drains. */
	assert_int_equal(spool_rings(spool), 0);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s", spool, dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The writer (a process holding the control page's flock, naming no pid) dies
 * while a thread waits on its full ring: the kernel's release of the lock
 * tells the thread, which stops waiting (before the lock it waited forever).
 */
static void test_writer_lock_released(void **state)
{
	char spool[64], dir[64];
	snprintf(spool, sizeof spool, "/tmp/rp-lockwriter-XXXXXX");
	assert_non_null(mkdtemp(spool));
	snprintf(dir, sizeof dir, "/tmp/rp-preload-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ringfile_ctl_write(spool, 0), 0);
	int sync[2];
	assert_int_equal(pipe(sync), 0);
	const pid_t writer = fork();
	if (writer == 0) {
		char ctl[128];
		snprintf(ctl, sizeof ctl, "%s/%s", spool, RP_SPOOL_CTL_FILE);
		const int fd = open(ctl, O_RDONLY);
		if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(sync[1], "l", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	char c;
	assert_int_equal(read(sync[0], &c, 1), 1);
	const pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", preload, 1);
		setenv(RP_ENV_SPOOL, spool, 1);
		setenv(RP_ENV_RING_KB, "64", 1);
		execl(prog, prog, "many", dir, (char *)NULL); /* 5000 events: more than 64 KiB, nobody reads */
		_exit(127);
	}
	/* The ring is made while the lock is held; then the writer goes. */
	for (int k = 0; k < 5000 && spool_rings(spool) == 0; k++)
		usleep(1000);
	assert_int_equal(spool_rings(spool), 1);
	kill(writer, SIGKILL);
	assert_int_equal(waitpid(writer, NULL, 0), writer);
	int st = 0;
	pid_t w = 0;
	for (int k = 0; k < 1000 && (w = waitpid(pid, &st, WNOHANG)) == 0; k++)
		usleep(10000);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("the traced program still waits for a dead writer after 10 s");
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(sync[0]);
	close(sync[1]);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s", spool, dir);
	assert_int_equal(system(cmd), 0);
}

static void test_errno_kept(void **state)
{
	run r;
	trace(&r, "errno", NULL, false); /* the program checks errno itself (exit 0) */
	size_t i = 0;
	assert_int_equal(next(&r, &i, RP_SYSEV_OPEN, "/missing", r.pid)->ev.ret, -ENOENT);
	assert_true(next(&r, &i, RP_SYSEV_OPEN, "/present", r.pid)->ev.ret >= 0);
	run_free(&r);
}

static void test_no_tracer_fd(void **state)
{
	run r;
	trace(&r, "closeall", NULL, false);
	size_t i = 0;
	const evc *e = next(&r, &i, RP_SYSEV_CLOSE_RANGE, NULL, r.pid);
	assert_int_equal(e->ev.a[0], 3);
	assert_int_equal(e->ev.ret, 0);
	e = next(&r, &i, RP_SYSEV_OPEN, "/after", r.pid);
	next_fd(&r, &i, RP_SYSEV_WRITE, e->ev.ret);
	run_free(&r);
}

static void test_killed(void **state)
{
	run r;
	trace(&r, "kill", NULL, true);
	assert_true(WIFSIGNALED(r.status));
	size_t i = 0;
	const int64_t fd = next(&r, &i, RP_SYSEV_OPEN, "/k", r.pid)->ev.ret;
	for (int k = 0; k < 50; k++)
		assert_int_equal(next_fd(&r, &i, RP_SYSEV_WRITE, fd)->ev.ret, 1);
	const int64_t m = next(&r, &i, RP_SYSEV_OPEN, "/ready", r.pid)->ev.ret;
	next_fd(&r, &i, RP_SYSEV_CLOSE, m); /* both returned before the mark was made */
	assert_int_equal(r.st.rings, r.st.rings_done); /* the dead process's ring was drained and removed */
	run_free(&r);
}

/*
 * A signal handler siglongjmps out of a blocked open: the open is counted
 * lost, and the thread's later calls are recorded (the guard was left set,
 * and the ring busy, before the longjmp family was interposed).
 */
static void test_longjmp_out_of_call(void **state)
{
	run r;
	trace(&r, "jump", NULL, false);
	check_order(&r);
	size_t i = 0;
	next(&r, &i, RP_SYSEV_MKNOD, "/fifo", r.pid);
	const size_t at_fifo = i;
	const evc *const lost = next(&r, &i, RP_SYSEV_LOST, NULL, r.pid);
	assert_int_equal(lost->ev.a[0], 1);
	for (size_t k = at_fifo; k < r.n; k++) /* the open that never returned makes no OPEN event */
		assert_false(r.v[k].ev.nr == RP_SYSEV_OPEN && ends(r.v[k].p[0], "/fifo"));
	const evc *const e = next(&r, &i, RP_SYSEV_OPEN, "/after", r.pid);
	assert_true(e->ev.ret >= 0);
	assert_int_equal(next_fd(&r, &i, RP_SYSEV_WRITE, e->ev.ret)->ev.ret, 3);
	assert_int_equal(next_fd(&r, &i, RP_SYSEV_CLOSE, e->ev.ret)->ev.ret, 0);
	run_free(&r);
}

/*
 * A handler that interrupts a blocked open, jumps within itself and returns
 * leaves the hook alone: the open ends in its hook (EINTR), nothing is lost
 * and the events stay in order (trace() checks late and bad are 0).
 */
static void test_longjmp_within_handler(void **state)
{
	run r;
	trace(&r, "jumplocal", NULL, false);
	check_order(&r);
	for (size_t k = 0; k < r.n; k++)
		assert_int_not_equal(r.v[k].ev.nr, RP_SYSEV_LOST);
	size_t i = 0;
	assert_int_equal(next(&r, &i, RP_SYSEV_OPEN, "/fifo", r.pid)->ev.ret, -EINTR);
	assert_true(next(&r, &i, RP_SYSEV_OPEN, "/after", r.pid)->ev.ret >= 0);
	run_free(&r);
}

static void test_static_untraced(void **state)
{
	if (!static_prog || !static_prog[0])
		skip(); /* no libc.a: no static program to run (see meson.build) */
	run r;
	trace(&r, "exec", static_prog, false);
	size_t i = 0;
	const evc *const e = next(&r, &i, RP_SYSEV_UNTRACED, NULL, r.pid);
	assert_int_equal(e->ev.a[0], 1);
	assert_string_equal(e->p[0], static_prog);
	next(&r, &i, RP_SYSEV_EXEC, NULL, r.pid);
	run_free(&r);
}

static void test_setuid_untraced(void **state)
{
	if (geteuid() != 0)
		skip(); /* a set-user-id file of another user needs root to make */
	run r;
	char copy[128], cmd[512];
	snprintf(copy, sizeof copy, "/tmp/rp-setuid-%d", (int)getpid());
	snprintf(cmd, sizeof cmd, "cp /bin/true %s && chown 65534 %s && chmod 4755 %s", copy, copy, copy);
	assert_int_equal(system(cmd), 0);
	trace(&r, "exec", copy, false);
	size_t i = 0;
	const evc *const e = next(&r, &i, RP_SYSEV_UNTRACED, NULL, r.pid);
	assert_int_equal(e->ev.a[0], 2);
	assert_string_equal(e->p[0], copy);
	unlink(copy);
	run_free(&r);
}

int main(int argc, char **argv)
{
	if (getenv("RP_TEST_NO_PRELOAD")) {
		/* A sanitized or fuzzing-instrumented .so cannot be preloaded into plain programs. */
		printf("1..0 # SKIP the build has a sanitizer: the interposer cannot be preloaded\n");
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: test-preload PROG LIBREPRISE-PRELOAD.SO [STATIC-PROG]\n");
		return 2;
	}
	/* meson passes build-relative paths; the traced programs run elsewhere and need them whole */
	prog = realpath(argv[1], NULL);
	preload = realpath(argv[2], NULL);
	static_prog = argc > 3 ? realpath(argv[3], NULL) : NULL;
	if (!prog || !preload) {
		fprintf(stderr, "test-preload: %s or %s not found\n", argv[1], argv[2]);
		return 2;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rw),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_openat_renameat2),
		cmocka_unit_test(test_stat_family),
		cmocka_unit_test(test_dup2_write),
		cmocka_unit_test(test_fork_exec),
		cmocka_unit_test(test_posix_spawn),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_stdio_coalesced),
		cmocka_unit_test(test_no_stdio),
		cmocka_unit_test(test_readdir_run),
		cmocka_unit_test(test_pipes_unrecorded_fcntl),
		cmocka_unit_test(test_env_restored),
		cmocka_unit_test(test_ring_wraps),
		cmocka_unit_test(test_writer_killed),
		cmocka_unit_test(test_writer_lock_released),
		cmocka_unit_test(test_errno_kept),
		cmocka_unit_test(test_no_tracer_fd),
		cmocka_unit_test(test_killed),
		cmocka_unit_test(test_longjmp_out_of_call),
		cmocka_unit_test(test_longjmp_within_handler),
		cmocka_unit_test(test_static_untraced),
		cmocka_unit_test(test_setuid_untraced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
