/* A program run under the syscall interposer, its rings drained into the encoder, its file ops into a .rpz. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/lttng/lttng.h"
#include "capture/preload/evq.h"
#include "capture/preload/ring.h"
#include "capture/preload/secure_exec.h"
#include "capture/preload/spool.h"
#include "capture/session.h"
#include "formats/error.h"
#include "formats/rpz.h"
#include "formats/sysev.h"

/* session.h's public names for the spool's and the ring's (what cli/ may include is session.h). */
_Static_assert(RP_SYSCAP_RING_DEFAULT_KB == RP_RING_DEFAULT_KB, "session.h's ring default is ring.h's");
_Static_assert((int)RP_SYSCAP_CLOCK_AUTO == (int)RP_SPOOL_CLOCK_AUTO &&
		       (int)RP_SYSCAP_CLOCK_MONOTONIC == (int)RP_SPOOL_CLOCK_MONOTONIC &&
		       (int)RP_SYSCAP_CLOCK_TSC == (int)RP_SPOOL_CLOCK_TSC,
	       "session.h's clocks are spool.h's");

/*
 * The writer's poll period: paced so that the fullest ring is about a
 * quarter full when it is drained (POLL_FILL_PERMILLE), within these bounds.
 * Each poll costs the writer syscalls and the machine a wake-up, so the
 * writer sleeps as long as the rings allow; a traced thread that did find
 * its ring full (it waits in 100 us steps) makes the next period the
 * shortest.  At the shortest, a 256 KiB ring (the default) is drained
 * before it fills up to some 500 MB/s of events, several times what a thread
 * making syscalls can produce.
 */
#define POLL_MIN_NS (500 * 1000)
#define POLL_MAX_NS (10 * 1000 * 1000)
#define POLL_FILL_PERMILLE 250
/*
 * zstd level of the trace capture writes while the program runs: level 3
 * costs a third of the CPU of the .rpz default (9) for a trace 2.5% larger
 * (measured on a tar extraction, docs/BENCHMARKS.md); the CPU is taken from
 * the traced program's machine while it runs.
 */
#define CAPTURE_ZSTD_LEVEL 3
/*
 * Frames of the trace capture writes: 1,024 ops, where the .rpz default is
 * 65,536.  The last frame is encoded and compressed after the program ended,
 * so its size is time the capture takes beyond the program's (a tar
 * extraction: 0.85 ms with frames of 8,192 ops, 0.17 ms with 1,024), and the
 * frame buffer (152 bytes an op) is fresh pages the writer faults in (1.2 MB
 * at 8,192).  The trace is some 3% larger (tar 108.7 -> 112.3 KB, dbench
 * 5.9 -> 6.0 bytes an op; 512 ops: +12%).  Whatever the frame has is written
 * out at least every FLUSH_NS by the encoder, so a writer killed with -9
 * loses that much of what it had encoded, and what its queue still held.
 */
#define CAPTURE_FRAME_OPS 1024
/*
 * zstd's match tables for those frames (rp_rpz_wopts.table_log): 2^12
 * entries, for frames of some 25-40 KB, where level 3 has 2^17 and 2^16.  The
 * encoder's CPU for a tar extraction went from 13.4 to 11.4 ms (medians of 9)
 * for a trace 0.5% larger.
 */
#define CAPTURE_TABLE_LOG 12
/*
 * Events the encoder may be behind by (capture/preload/evq.h), in bytes
 * (some 30 an event and its paths: 40 for a tar extraction's, 30 for
 * dbench's): several million events, the seconds of a busy program the
 * encoder at idle priority can be let to catch up on later.
 */
#define QUEUE_MAX_BYTES ((size_t)256 << 20)
#define FLUSH_NS (1000u * 1000 * 1000)
/* The command line kept in the trace's metadata (rp_trace_meta.source_name is 128 bytes). */
#define CMDLINE_MAX 512

/*
 * The next poll period from the last one and how full the fullest ring was
 * after it: rings fill about linearly in time, so period * target / fill
 * reaches the target; growth at most doubles a step (a lull is no rate).
 */
static uint64_t next_period(uint64_t period, uint32_t fill_permille, bool a_thread_waited)
{
	if (a_thread_waited)
		return POLL_MIN_NS;
	uint64_t next = fill_permille ? period * POLL_FILL_PERMILLE / fill_permille : period * 2;
	if (next > period * 2)
		next = period * 2;
	return next < POLL_MIN_NS ? POLL_MIN_NS : next > POLL_MAX_NS ? POLL_MAX_NS : next;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t real_minus_mono_ns(void)
{
	struct timespec r, m;
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)r.tv_sec - (int64_t)m.tv_sec) * 1000000000ll + ((int64_t)r.tv_nsec - (int64_t)m.tv_nsec);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The program's path as execvp would find it, for the static/set-id check; "" when not found. */
static void which(const char *cmd, char *buf, size_t size)
{
	buf[0] = '\0';
	if (strchr(cmd, '/')) {
		snprintf(buf, size, "%s", cmd);
		return;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		const char *const colon = strchrnul(p, ':');
		char cand[PATH_MAX];
		const int n = snprintf(cand, sizeof(cand), "%.*s/%s", (int)(colon - p), colon == p ? "." : p, cmd);
		if (n > 0 && (size_t)n < sizeof(cand) && access(cand, X_OK) == 0 && is_file(cand)) {
			snprintf(buf, size, "%s", cand);
			return;
		}
		p = *colon ? colon + 1 : colon;
	}
}

/*
 * Why the interposer cannot see a program: "" when it can.  The dynamic
 * loader ignores LD_PRELOAD for programs the kernel runs in secure-execution
 * mode (capture/preload/secure_exec.h), and a static program has no loader
 * at all.  The path's own metadata for the first: a set-id program may be
 * execute-only.
 */
static const char *untraceable(const char *path)
{
	struct stat st;
	struct statvfs vfs;
	if (stat(path, &st) != 0)
		return "";
	const rp_exec_creds c = {
		.nosuid = statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID),
		.no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1,
		.file_caps = getxattr(path, "security.capability", NULL, 0) > 0,
		.ruid = getuid(), .euid = geteuid(), .rgid = getgid(), .egid = getegid(),
	};
	if (rp_exec_is_secure(&st, &c))
		return "it runs in secure-execution mode (set-user-ID or set-group-ID to another user or group, or "
		       "file capabilities), where the loader ignores LD_PRELOAD";
	const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return "";
	Elf64_Ehdr eh;
	const char *why = "";
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 4096) {
		bool interp = false;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) != (ssize_t)sizeof(ph))
				break;
			interp = interp || ph.p_type == PT_INTERP;
		}
		if (!interp)
			why = "it is statically linked (no dynamic loader to preload into)";
	}
	close(fd);
	return why;
}

static void cmdline(char *buf, size_t size, char **argv)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; argv[i] && n + 1 < size; i++) {
		const int w = snprintf(buf + n, size - n, "%s%s", i ? " " : "", argv[i]);
		if (w < 0)
			break;
		n += (size_t)w < size - n ? (size_t)w : size - n - 1;
	}
}

/* The program's environment: ours, with the interposer's variables (set: NAME=VALUE strings) in place of ours. */
typedef struct child_env {
	char **envp;
	char *own[8]; /* the strings made here */
	size_t nown;
} child_env;

static bool env_is(const char *entry, const char *set)
{
	const size_t n = strcspn(set, "=");
	return strncmp(entry, set, n) == 0 && entry[n] == '=';
}

static int env_add(child_env *ce, const char *name, const char *v1, const char *v2)
{
	const size_t n = strlen(name) + 1 + strlen(v1) + (v2 ? 1 + strlen(v2) : 0) + 1;
	char *const e = malloc(n);
	if (!e)
		return -1;
	snprintf(e, n, "%s=%s%s%s", name, v1, v2 ? ":" : "", v2 ? v2 : "");
	ce->own[ce->nown++] = e;
	return 0;
}

static void child_env_free(child_env *ce)
{
	for (size_t i = 0; i < ce->nown; i++)
		free(ce->own[i]);
	free(ce->envp);
	memset(ce, 0, sizeof *ce);
}

/* LD_PRELOAD with preload first (a value of ours kept after it), the spool and the options: 0, or -1 (ENOMEM). */
static int child_env_make(child_env *ce, const char *preload, const char *self, const char *spool,
			  const rp_syscap_opts *co)
{
	extern char **environ;
	memset(ce, 0, sizeof *ce);
	const char *const old = getenv("LD_PRELOAD");
	char kb[32];
	snprintf(kb, sizeof kb, "%u", co->ring_kb);
	if (env_add(ce, "LD_PRELOAD", preload, old && *old ? old : NULL) != 0 || env_add(ce, RP_ENV_PRELOAD, self, NULL) != 0 ||
	    (spool && env_add(ce, RP_ENV_SPOOL, spool, NULL) != 0) || (co->ring_kb && env_add(ce, RP_ENV_RING_KB, kb, NULL) != 0) ||
	    (co->no_stdio && env_add(ce, RP_ENV_NO_STDIO, "1", NULL) != 0)) {
		child_env_free(ce);
		return -1;
	}
	const char *set[10];
	size_t nset = 0;
	for (size_t i = 0; i < ce->nown; i++)
		set[nset++] = ce->own[i];
	if (!spool) {
		set[nset++] = RP_LTTNG_ENV_BLOCKING;
		set[nset++] = RP_LTTNG_ENV_REGISTER;
	}
	size_t n = 0;
	while (environ && environ[n])
		n++;
	if (!(ce->envp = calloc(n + nset + 1, sizeof *ce->envp))) {
		child_env_free(ce);
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < nset && !replaced; j++)
			replaced = env_is(environ[i], set[j]);
		if (!replaced)
			ce->envp[k++] = environ[i];
	}
	for (size_t j = 0; j < nset; j++)
		ce->envp[k++] = (char *)set[j];
	return 0;
}

/*
 * Start argv (found on PATH, execvp's way: a file of no known format is run
 * by /bin/sh) with the environment set, by posix_spawn: glibc's clones the
 * memory it shares until the exec (vfork's way), so none of this process's
 * page tables are copied for a program about to replace them.  Returns the
 * pid; or -1 with errbuf, and *exec_err the errno of an exec that failed
 * (no program runs) or 0.
 */
static pid_t spawn(char **argv, const char *path, const char *preload, const char *self, const char *spool,
		   const rp_syscap_opts *co, int *exec_err, char *errbuf)
{
	*exec_err = 0;
	child_env ce;
	if (child_env_make(&ce, preload, self, spool, co) != 0) {
		snprintf(errbuf, RP_ERRBUF_SIZE, "environment: %s", strerror(ENOMEM));
		return -1;
	}
	posix_spawnattr_t at;
	if (posix_spawnattr_init(&at) != 0) {
		child_env_free(&ce);
		snprintf(errbuf, RP_ERRBUF_SIZE, "posix_spawnattr_init: %s", strerror(ENOMEM));
		return -1;
	}
	/* The program starts with no signal blocked (the writer waits for SIGCHLD with it blocked) and the
	 * signals the writer handles at their defaults. */
	sigset_t none, dfl;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGQUIT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	pid_t pid = -1;
	int e = posix_spawnp(&pid, argv[0], NULL, &at, argv, ce.envp);
	if (e == ENOEXEC && path[0]) {
		size_t n = 0;
		while (argv[n])
			n++;
		char **const sh = calloc(n + 2, sizeof *sh);
		if (sh) {
			sh[0] = (char *)"/bin/sh";
			sh[1] = (char *)path;
			for (size_t i = 1; i < n; i++)
				sh[i + 1] = argv[i];
			e = posix_spawn(&pid, "/bin/sh", NULL, &at, sh, ce.envp);
			free(sh);
		}
	}
	posix_spawnattr_destroy(&at);
	child_env_free(&ce);
	if (e != 0) {
		*exec_err = e;
		snprintf(errbuf, RP_ERRBUF_SIZE, "%s: %s", argv[0], strerror(e));
		return -1;
	}
	return pid;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* The encoder's side (capture/preload/evq.h): the model, its sink the .rpz writer, and the flush once a second. */
typedef struct encoder {
	rp_sysmodel *m;
	rp_rpz_writer *w;
	uint64_t flushed; /* mono_ns of the last flush */
	char err[RP_ERRBUF_SIZE]; /* the flush's error ("" : the model's, if any) */
} encoder;

static int encode(void *ctx, const rp_sysev *ev)
{
	return rp_sysmodel_event(((encoder *)ctx)->m, ev);
}

static int encoder_tick(void *ctx)
{
	encoder *const en = ctx;
	const uint64_t t = mono_ns();
	if (t - en->flushed < FLUSH_NS)
		return 0;
	en->flushed = t;
	return rp_rpz_writer_flush(en->w, en->err);
}

void rp_syscap_stats_print(const rp_syscap_stats *st, FILE *f)
{
	const rp_sysmodel_stats *const ms = &st->model;
	fprintf(f,
		"events %llu, ops %llu, processes %llu, threads %llu, execs %llu; no op: on pipes/sockets/ttys %llu, "
		"filtered %llu, fds never opened %llu\n",
		(unsigned long long)ms->events, (unsigned long long)ms->ops, (unsigned long long)ms->processes,
		(unsigned long long)ms->threads, (unsigned long long)ms->execs, (unsigned long long)ms->nonfile,
		(unsigned long long)ms->filtered, (unsigned long long)ms->unknown_fd);
	if (ms->untraced)
		fprintf(f, "programs run without the interposer: %llu (static or set-id, or out of the spool's reach after a "
			   "user change: %llu)\n", (unsigned long long)ms->untraced, (unsigned long long)ms->untraced_user);
	if (ms->unreported)
		fprintf(f, "programs exec'd that never reported: %llu (they ran untraced: LD_PRELOAD dropped from their "
			   "environment, or a loader that ignored it)\n", (unsigned long long)ms->unreported);
	if (st->rings_failed)
		fprintf(f, "threads that could not make their ring in the spool: %llu (their process changed its user)\n",
			(unsigned long long)st->rings_failed);
	if (ms->lost || st->spool_lost || st->spool_bad)
		fprintf(f, "events lost: %llu (bad ring records %llu)\n", (unsigned long long)(ms->lost + st->spool_lost),
			(unsigned long long)st->spool_bad);
	if (st->spool_waits)
		fprintf(f, "traced threads waited for the writer %llu times (a larger --ring-kb avoids it)\n",
			(unsigned long long)st->spool_waits);
	if (st->spool_late || ms->late)
		fprintf(f, "events out of time order: %llu\n", (unsigned long long)(st->spool_late + ms->late));
	if (ms->cut_paths || ms->noend)
		fprintf(f, "paths cut at %d bytes: %llu; calls that never returned: %llu\n", RP_SYSEV_PATH_MAX,
			(unsigned long long)ms->cut_paths, (unsigned long long)ms->noend);
	fprintf(f, "the trace was complete %.1f ms after the command ended (the encoder was at most %.1f MiB behind%s)\n",
		(double)st->after_ns / 1e6, (double)st->queue_max / (1 << 20),
		st->queue_full_waits ? "; the drain waited for it: the queue was full" : "");
	if (st->live)
		fprintf(f, "%u traced processes were still running when the command ended: their later calls are not in "
			   "the trace\n", st->live);
}

bool rp_syscap_stats_missed(const rp_syscap_stats *st)
{
	return st->model.untraced || st->model.unreported || st->rings_failed;
}

bool rp_syscap_stats_lossy(const rp_syscap_stats *st)
{
	return st->model.lost || st->spool_lost || rp_syscap_stats_missed(st);
}

static void notice(const rp_syscap_opts *co, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notice(const rp_syscap_opts *co, const char *fmt, ...)
{
	if (!co->notice)
		return;
	char msg[RP_ERRBUF_SIZE + PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	co->notice(co->notice_ctx, msg);
}

static void set_child(const rp_syscap_opts *co, pid_t pid)
{
	if (co->child_pid)
		*co->child_pid = (sig_atomic_t)pid;
}

/* LTTng mode: the same events as tracepoints; the user's own session records them. */
static int run_lttng(char **argv, const char *path, const rp_syscap_opts *co, rp_syscap_stats *st, char *errbuf)
{
	if (!RP_HAVE_LTTNG) {
		snprintf(errbuf, RP_ERRBUF_SIZE, "--lttng: this reprise was built without lttng-ust (meson -Dlttng)");
		return -1;
	}
	/* lttng-ust's fork wrapper keeps a forked child's tracepoints working (lttng-ust(3)); after ours, so
	 * that the interposer's fork calls through it (capture/lttng/lttng.h). */
	char both[PATH_MAX + 64];
	snprintf(both, sizeof(both), "%s:%s", co->preload, RP_LTTNG_UST_FORK);
	const pid_t pid = spawn(argv, path, both, co->preload, NULL, co, &st->exec_errno, errbuf);
	if (pid < 0)
		return -1;
	set_child(co, pid);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	set_child(co, 0);
	return exit_code(status);
}

/* The counters a run ends with, into the caller's stats. */
static void take_stats(rp_syscap_stats *st, const rp_sysmodel *m, const rp_spool *sp, const rp_evq *q)
{
	st->model = *rp_sysmodel_get_stats(m);
	const rp_spool_stats *const ss = rp_spool_get_stats(sp);
	st->spool_lost = ss->lost;
	st->spool_bad = ss->bad;
	st->spool_waits = ss->waits;
	st->spool_late = ss->late;
	st->rings_failed = ss->rings_failed;
	const rp_evq_stats *const qs = rp_evq_get_stats(q);
	st->queue_full_waits = qs->full_waits;
	st->queue_max = qs->max_queued;
}

int rp_capture_cmd(char **argv, const rp_syscap_opts *co, FILE *out, const char *out_name, rp_syscap_stats *st,
		   char *errbuf)
{
	memset(st, 0, sizeof *st);
	errbuf[0] = '\0';
	char path[PATH_MAX];
	which(argv[0], path, sizeof(path));
	const char *const why = path[0] ? untraceable(path) : "";
	if (*why)
		notice(co, "warning: %s will run untraced: %s; its children are traced if they are not so "
			   "(strace -f sees every program)", path, why);
	if (co->lttng)
		return run_lttng(argv, path, co, st, errbuf);

	int rc = -1, status = 0;
	bool exited = false;
	rp_spool *sp = NULL;
	rp_rpz_writer *w = NULL;
	rp_sysmodel *m = NULL;
	rp_evq *q = NULL;
	encoder en = {0};
	char cl[CMDLINE_MAX];
	cmdline(cl, sizeof(cl), argv);

	/* A capture killed with -9 leaves its spool behind: the next one removes it, and says so. */
	const int swept = rp_spool_sweep(co->spool_dir, errbuf);
	errbuf[0] = '\0';
	if (swept > 0)
		notice(co, "removed %d orphaned spool director%s (left by a capture that was killed)", swept,
		       swept == 1 ? "y" : "ies");
	if (rp_spool_create(&sp, co->spool_dir, co->ring_kb, (rp_spool_clock)co->clock, errbuf) < 0)
		goto out;
	const rp_rpz_wopts wo = {
		.level = CAPTURE_ZSTD_LEVEL, .frame_ops = CAPTURE_FRAME_OPS, .table_log = CAPTURE_TABLE_LOG,
		.window = co->pattern_window, .table_bits = co->pattern_table_bits, .no_pattern = co->no_pattern,
	};
	if (rp_rpz_writer_open_file(&w, out, out_name, &wo, errbuf) < 0)
		goto out;
	const rp_sysmodel_opts mo = {
		.only = co->only,
		.exclude = co->exclude,
		.process_clients = co->process_clients,
		.clock_offset_ns = real_minus_mono_ns(),
		.source = RP_SRC_SYSCALL,
		.source_name = cl,
	};
	if (rp_sysmodel_create(&m, rp_rpz_writer_sink(w), &mo, errbuf) < 0)
		goto out;
	en.m = m;
	en.w = w;
	en.flushed = mono_ns();
	const rp_evq_opts qo = { .max_bytes = QUEUE_MAX_BYTES, .idle = true, .tick = encoder_tick };
	if (rp_evq_create(&q, encode, &en, &qo, errbuf) < 0)
		goto out;

	/*
	 * SIGCHLD blocked before the spawn, so that the drain loop's sigtimedwait
	 * wakes the moment the program ends (a blocked signal stays pending,
	 * however its default is to be ignored) rather than after a sleep.
	 */
	sigset_t chld, oldmask;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &oldmask);
	const pid_t pid = spawn(argv, path, co->preload, co->preload, rp_spool_dir(sp), co, &st->exec_errno, errbuf);
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		goto out; /* no program ran: the caller's output holds nothing of it */
	}
	set_child(co, pid);

	/* Drain while the program runs, paced by how full the rings were (POLL_FILL_PERMILLE); the encoder
	 * thread takes the events from the queue. */
	uint64_t period = POLL_MIN_NS, waits = 0, ended = 0;
	int64_t got = 0;
	while (!exited) {
		const pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid) {
			exited = true;
			ended = mono_ns();
		}
		got = rp_spool_poll(sp, false, rp_evq_push, q);
		if (got >= 0)
			got = rp_evq_publish(q);
		if (got < 0 || exited)
			break;
		const rp_spool_stats *const ss = rp_spool_get_stats(sp);
		period = next_period(period, ss->fill_permille, ss->waits > waits);
		waits = ss->waits;
		const struct timespec ts = { (time_t)(period / 1000000000u), (long)(period % 1000000000u) };
		sigtimedwait(&chld, NULL, &ts);
	}
	set_child(co, 0);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (got < 0) {
		rp_evq_finish(q, true);
		snprintf(errbuf, RP_ERRBUF_SIZE, "%s", en.err[0] ? en.err : rp_sysmodel_error(m));
		if (!exited) {
			kill(pid, SIGTERM);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
		}
		goto out;
	}
	st->live = rp_spool_live(sp);
	/* The rest at this thread's priority: the program is gone, the encoder's work is all that is left. */
	if (rp_spool_poll(sp, true, rp_evq_push, q) < 0 || rp_evq_finish(q, false) < 0 || rp_sysmodel_finish(m) < 0) {
		rp_evq_finish(q, true);
		snprintf(errbuf, RP_ERRBUF_SIZE, "%s", en.err[0] ? en.err : rp_sysmodel_error(m));
		goto out;
	}
	take_stats(st, m, sp, q);
	st->spool_uid = (uint32_t)geteuid();
	/* The trace says it is incomplete in its header (a pipe cannot be rewritten: the summary says it anyway). */
	if (rp_syscap_stats_missed(st)) {
		char ferr[RP_ERRBUF_SIZE];
		st->flagged = rp_rpz_writer_add_flags(w, RP_META_UNTRACED, ferr) == 0;
	}
	const int crc = rp_rpz_writer_close(w, errbuf);
	w = NULL;
	if (crc < 0)
		goto out;
	st->after_ns = mono_ns() - ended;
	rc = exit_code(status);
out:
	rp_evq_destroy(q); /* the encoder thread stopped before the model and writer it uses go */
	rp_sysmodel_destroy(m);
	if (w) {
		char werr[RP_ERRBUF_SIZE];
		rp_rpz_writer_close(w, werr);
	}
	rp_spool_destroy(sp);
	return rc;
}
