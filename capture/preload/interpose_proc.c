/* Interposed process calls: the image's START and fd snapshot, fork and vfork, exec in every form, posix_spawn, system and popen (docs/syscall-capture.md). */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/preload/interpose_hook.h"
#include "capture/preload/secure_exec.h"
#include "capture/preload/spool.h"

#define PROC_FUNCS(X)                                                                                \
	X(fork) X(execve) X(execvpe) X(fexecve) X(execveat) X(posix_spawn) X(posix_spawnp) X(system) \
	X(popen) X(wait) X(waitpid) X(wait3) X(wait4) X(waitid) X(pthread_join) X(pthread_timedjoin_np)    \
	X(pthread_tryjoin_np)

static struct {
	PROC_FUNCS(RP__REAL_FIELD)
} real;
PROC_FUNCS(RP__REAL_GET)

void rp__proc_resolve(void)
{
	PROC_FUNCS(RP__REAL_SET)
}

/*
 * What a traced program's children need in their environment to stay traced,
 * as this image got it: read once by the constructor (a preload library has
 * no context to keep it in).  The longest value kept is a path.
 */
#define ENV_MAX 4096
static const char *const env_names[] = {RP_ENV_SPOOL, RP_ENV_RING_KB, RP_ENV_NO_STDIO, RP_ENV_PRELOAD};
#define ENV_N (sizeof env_names / sizeof env_names[0])
static char env_saved[ENV_N][ENV_MAX + 32];
static const char *preload_path; /* the value of REPRISE_PRELOAD, in env_saved */
/* The forking thread's pid, for the child's FORK note. */
static __thread uint32_t fork_parent __attribute__((tls_model("initial-exec")));

/* ---- the image's start ------------------------------------------------------------------- */

static void fd_note(int dirfd, const char *name)
{
	char *end;
	const long fd = strtol(name, &end, 10);
	if (*end || end == name || fd == dirfd)
		return;
	char link[RP_SYSEV_PATH_MAX];
	const long n = rp__sys(SYS_readlinkat, dirfd, (long)name, (long)link, sizeof link);
	struct stat st;
	const bool ok = rp__sys(SYS_fstat, fd, (long)&st, 0, 0) == 0;
	const int isfile = ok && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)); /* sysev.h's a4 */
	const long fl = rp__sys(SYS_fcntl, fd, F_GETFL, 0, 0);
	const long fdfl = rp__sys(SYS_fcntl, fd, F_GETFD, 0, 0);
	const long pos = rp__sys(SYS_lseek, fd, 0, SEEK_CUR, 0);
	rp_sysev ev = {.nr = RP_SYSEV_FD};
	A(0, fd), A(1, fl < 0 ? 0 : fl), A(2, fdfl > 0 && (fdfl & FD_CLOEXEC)), A(3, pos < 0 ? -1 : pos), A(4, isfile);
	if (n > 0) {
		ev.p[0] = link;
		ev.plen[0] = (uint32_t)n;
	}
	rp__note(&ev);
	rp__fd_set((int)fd, isfile || (ok && S_ISBLK(st.st_mode)) ? RP_FD_FILE : RP_FD_OTHER);
}

/* One FD note per open fd, from /proc/self/fd, with raw calls nothing records. */
static void fd_snapshot(void)
{
	const long dirfd = rp__sys(SYS_openat, AT_FDCWD, (long)"/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dirfd < 0)
		return;
	_Alignas(8) char buf[4096];
	long n;
	while ((n = rp__sys(SYS_getdents64, dirfd, (long)buf, sizeof buf, 0)) > 0) {
		for (long off = 0; off < n;) {
			const struct dirent64 *const d = (const struct dirent64 *)(buf + off);
			if (d->d_reclen == 0)
				break;
			fd_note((int)dirfd, d->d_name);
			off += d->d_reclen;
		}
	}
	rp__sys(SYS_close, dirfd, 0, 0, 0);
}

static void start_note(void)
{
	char cwd[RP_SYSEV_PATH_MAX];
	const long n = rp__sys(SYS_getcwd, (long)cwd, sizeof cwd, 0, 0);
	rp_sysev ev = {.nr = RP_SYSEV_START};
	A(0, rp__sys(SYS_getppid, 0, 0, 0, 0));
	if (n > 1) {
		ev.p[0] = cwd;
		ev.plen[0] = (uint32_t)(n - 1); /* the kernel counts the NUL */
	}
	rp__note(&ev);
	fd_snapshot();
}

static void fork_prepare(void)
{
	const int was = rp__guard;
	rp__guard = 1;
	fork_parent = (uint32_t)rp__sys(SYS_getpid, 0, 0, 0, 0);
	if (rp__pending)
		rp__flush_pending(); /* the parent's run is the parent's event */
	rp__guard = was;
}

static void fork_child(void)
{
	rp__emit_atfork_child();
	rp_sysev ev = {.nr = RP_SYSEV_FORK};
	A(0, fork_parent);
	rp__note(&ev);
}

void rp__proc_start(void)
{
	for (size_t i = 0; i < ENV_N; i++) {
		const char *const v = getenv(env_names[i]);
		if (v && strlen(v) < ENV_MAX) {
			snprintf(env_saved[i], sizeof env_saved[i], "%s=%s", env_names[i], v);
			if (i == ENV_N - 1)
				preload_path = env_saved[i] + strlen(env_names[i]) + 1;
		}
	}
	/* Without REPRISE_PRELOAD (a hand-set LD_PRELOAD), our own file is the path to keep. */
	Dl_info info;
	if (!preload_path && dladdr((void *)(uintptr_t)rp__proc_start, &info) && info.dli_fname &&
	    info.dli_fname[0] == '/' && strlen(info.dli_fname) < ENV_MAX) {
		snprintf(env_saved[ENV_N - 1], sizeof env_saved[0], "%s=%s", RP_ENV_PRELOAD, info.dli_fname);
		preload_path = env_saved[ENV_N - 1] + strlen(RP_ENV_PRELOAD) + 1;
	}
	pthread_atfork(fork_prepare, NULL, fork_child);
	start_note();
}

/*
 * vfork's child borrows the parent's memory and stack until it execs: our
 * child-side work (a new ring, the FORK note, the thread-local slots) would
 * write over the parent's.  A fork is always a correct vfork, so vfork is one.
 */
pid_t vfork(void)
{
	return REAL(fork)();
}

/* ---- exec ------------------------------------------------------------------------------------- */

/* The exec of fd's file will run in secure-execution mode (the loader then ignores LD_PRELOAD): raw calls, nothing recorded. */
static bool secure(long fd, const struct stat *st)
{
	struct statfs fs;
	const int e = errno;
	rp_exec_creds c = {
		.nosuid = rp__sys(SYS_fstatfs, fd, (long)&fs, 0, 0) == 0 && (fs.f_flags & ST_NOSUID),
		.no_new_privs = rp__sys(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0) == 1,
		.file_caps = rp__sys(SYS_fgetxattr, fd, (long)"security.capability", 0, 0) > 0,
		.ruid = getuid(), .euid = geteuid(), .rgid = getgid(), .egid = getegid(),
	};
	errno = e;
	return rp_exec_is_secure(st, &c);
}

/* A path whose image will not load the interposer: 1 static (no PT_INTERP), 2 secure execution (set-id, file capabilities), 0 traced. */
static int untraced_kind(int dirfd, const char *path)
{
	const long fd = rp__sys(SYS_openat, dirfd, (long)path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0; /* exec will fail or be refused: nothing runs untraced */
	int kind = 0;
	struct stat st;
	if (rp__sys(SYS_fstat, fd, (long)&st, 0, 0) == 0 && secure(fd, &st))
		kind = 2;
	Elf64_Ehdr eh;
	if (!kind && rp__sys(SYS_pread64, fd, (long)&eh, sizeof eh, 0) == (long)sizeof eh &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_phentsize == sizeof(Elf64_Phdr)) {
		/* A real program has a handful of program headers; more is not an image we judge. */
		kind = 1;
		for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
			Elf64_Phdr ph;
			if (rp__sys(SYS_pread64, fd, (long)&ph, sizeof ph, (long)(eh.e_phoff + i * sizeof ph)) !=
			    (long)sizeof ph) {
				kind = 0;
				break;
			}
			if (ph.p_type == PT_INTERP) {
				kind = 0;
				break;
			}
		}
	}
	rp__sys(SYS_close, fd, 0, 0, 0);
	return kind;
}

/* An image that will run untraced (sysev.h's UNTRACED: a0 the kind, a1 the effective uid it runs as). */
static void untraced_note(int kind, const char *path)
{
	rp_sysev ev = {.nr = RP_SYSEV_UNTRACED};
	A(0, kind);
	A(1, geteuid());
	rp__path(&ev, 0, path);
	rp__note(&ev);
}

/*
 * The image an exec or spawn of path starts: untraced when it cannot load
 * the interposer (static, secure execution), or when it could but cannot
 * reach the spool with this process's ids (a user changed since the capture
 * started it: runuser, su, setpriv), which is said from here, the parent's
 * side, as the new image has nowhere to say it.
 */
static void check_image(int dirfd, const char *path)
{
	int kind = path && path[0] ? untraced_kind(dirfd, path) : 0;
	if (!kind && path && path[0] && !rp__emit_reachable())
		kind = 4;
	if (kind)
		untraced_note(kind, path);
}

/* The PATH search execvp does, for the image check only (the real call searches again). */
static void check_search(const char *file)
{
	if (!file || strchr(file, '/')) {
		check_image(AT_FDCWD, file);
		return;
	}
	const char *p = getenv("PATH");
	if (!p)
		p = "/bin:/usr/bin";
	char cand[RP_SYSEV_PATH_MAX];
	while (*p) {
		const char *const colon = strchr(p, ':');
		const size_t dl = colon ? (size_t)(colon - p) : strlen(p);
		if (dl + strlen(file) + 2 < sizeof cand) {
			memcpy(cand, dl ? p : ".", dl ? dl : 1);
			const size_t l = dl ? dl : 1;
			cand[l] = '/';
			strcpy(cand + l + 1, file);
			if (rp__sys(SYS_faccessat, AT_FDCWD, (long)cand, X_OK, 0) == 0) {
				check_image(AT_FDCWD, cand);
				return;
			}
		}
		if (!colon)
			break;
		p = colon + 1;
	}
}

static bool has_token(const char *list, const char *tok)
{
	const size_t n = strlen(tok);
	for (const char *s = list; (s = strstr(s, tok)) != NULL; s += n)
		if ((s == list || s[-1] == ' ' || s[-1] == ':') && (s[n] == 0 || s[n] == ' ' || s[n] == ':'))
			return true;
	return false;
}

static const char *env_find(char *const env[], const char *name)
{
	const size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i];
	return NULL;
}

/*
 * env with what keeps the new image traced put back: our path in LD_PRELOAD
 * and the REPRISE_* variables this image had.  Returns env itself when
 * nothing is missing, else an array in *own (and its LD_PRELOAD string in
 * *own_preload) the caller frees when exec fails.  exec is not a hot path: malloc is fine.
 */
static char *const *fix_env(char *const env[], char ***own, char **own_preload)
{
	*own = NULL;
	*own_preload = NULL;
	const char *const pre = env_find(env, "LD_PRELOAD");
	bool ok = !preload_path || (pre && has_token(pre + 11, preload_path));
	for (size_t i = 0; ok && i < ENV_N; i++)
		ok = !env_saved[i][0] || env_find(env, env_names[i]);
	if (ok)
		return env;
	size_t n = 0;
	while (env && env[n])
		n++;
	char **const out = malloc((n + ENV_N + 2) * sizeof *out);
	if (!out)
		return env;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (env[i] != pre)
			out[k++] = env[i];
	if (preload_path && !(pre && has_token(pre + 11, preload_path))) {
		const size_t len = strlen(preload_path) + (pre ? strlen(pre) : 0) + 16;
		char *const s = malloc(len);
		if (s) {
			snprintf(s, len, "LD_PRELOAD=%s%s%s", preload_path, pre ? " " : "", pre ? pre + 11 : "");
			out[k++] = s;
			*own_preload = s;
		}
	} else if (pre) {
		out[k++] = (char *)pre;
	}
	for (size_t i = 0; i < ENV_N; i++)
		if (env_saved[i][0] && !env_find(env, env_names[i]))
			out[k++] = env_saved[i];
	out[k] = NULL;
	*own = out;
	return out;
}

static void exec_note(int dirfd, const char *path, int64_t ret)
{
	rp_sysev ev = {.nr = RP_SYSEV_EXEC};
	A(0, dirfd);
	rp__path(&ev, 0, path);
	ev.ret = ret;
	rp__note(&ev);
}

/* Every exec goes through here: the image check, the environment, EXEC before and (on failure) after. */
typedef int (*exec_fn)(const void *ctx, char *const env[]);

static int traced_exec(int dirfd, const char *path, bool search, char *const env[], exec_fn call, const void *ctx)
{
	rp__guard = 1;
	if (search)
		check_search(path);
	else
		check_image(dirfd, path);
	char **own;
	char *own_preload;
	char *const *const e2 = fix_env(env, &own, &own_preload);
	exec_note(dirfd, path, 0);
	rp__emit_thread_done(); /* the image ends here if exec succeeds */
	const int r = call(ctx, e2);
	const int e = errno;
	exec_note(dirfd, path, -(int64_t)e);
	free(own_preload);
	free(own);
	rp__unguard();
	errno = e;
	return r;
}

struct exec_args {
	int dirfd, flags;
	const char *path;
	char *const *argv;
};

static int do_execve(const void *ctx, char *const env[])
{
	const struct exec_args *const a = ctx;
	return REAL(execve)(a->path, a->argv, env);
}

static int do_execvpe(const void *ctx, char *const env[])
{
	const struct exec_args *const a = ctx;
	return REAL(execvpe)(a->path, a->argv, env);
}

static int do_execveat(const void *ctx, char *const env[])
{
	const struct exec_args *const a = ctx;
	return REAL(execveat)(a->dirfd, a->path, a->argv, env, a->flags);
}

static int do_fexecve(const void *ctx, char *const env[])
{
	const struct exec_args *const a = ctx;
	return REAL(fexecve)(a->dirfd, a->argv, env);
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	if (rp__skip())
		return REAL(execve)(path, argv, envp);
	const struct exec_args a = {.path = path, .argv = argv};
	return traced_exec(AT_FDCWD, path, false, envp, do_execve, &a);
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (rp__skip())
		return REAL(execvpe)(file, argv, envp);
	const struct exec_args a = {.path = file, .argv = argv};
	return traced_exec(AT_FDCWD, file, true, envp, do_execvpe, &a);
}

int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	if (rp__skip())
		return REAL(execveat)(dirfd, path, argv, envp, flags);
	const struct exec_args a = {.dirfd = dirfd, .path = path, .argv = argv, .flags = flags};
	return traced_exec(dirfd, path, false, envp, do_execveat, &a);
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (rp__skip())
		return REAL(fexecve)(fd, argv, envp);
	const struct exec_args a = {.dirfd = fd, .path = "", .argv = argv};
	char link[32];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	rp__guard = 1;
	check_image(AT_FDCWD, link);
	rp__unguard();
	return traced_exec(fd, "", false, envp, do_fexecve, &a);
}

/* The execl forms: their argument lists as an argv (and execle's envp after the NULL). */
static char **collect(const char *arg0, va_list ap, char *const **envp)
{
	va_list cp;
	va_copy(cp, ap);
	size_t n = 1;
	while (va_arg(cp, const char *))
		n++;
	va_end(cp);
	char **const argv = malloc((n + 1) * sizeof *argv);
	if (!argv)
		return NULL;
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *); /* the last one read is the NULL */
	if (envp)
		*envp = va_arg(ap, char *const *);
	return argv;
}

#define EXECL(name, call, with_env)                                                   \
	int name(const char *path, const char *arg0, ...)                             \
	{                                                                             \
		va_list ap;                                                           \
		va_start(ap, arg0);                                                   \
		char *const *envp = environ;                                          \
		char **const argv = collect(arg0, ap, with_env ? &envp : NULL);       \
		va_end(ap);                                                           \
		if (!argv) {                                                          \
			errno = ENOMEM;                                               \
			return -1;                                                    \
		}                                                                     \
		const int r = call(path, argv, envp);                                 \
		const int e = errno;                                                  \
		free(argv);                                                           \
		errno = e;                                                            \
		return r;                                                             \
	}
EXECL(execl, execve, false)
EXECL(execle, execve, true)
EXECL(execlp, execvpe, false)

/* ---- spawn, system, popen ------------------------------------------------------------------ */

#define SPAWN(name, search)                                                                                 \
	int name(pid_t *restrict pid, const char *restrict path, const posix_spawn_file_actions_t *fa,      \
	         const posix_spawnattr_t *restrict at, char *const argv[restrict], char *const envp[restrict]) \
	{                                                                                                   \
		if (rp__skip())                                                                             \
			return REAL(name)(pid, path, fa, at, argv, envp);                                   \
		rp__guard = 1;                                                                              \
		if (search)                                                                                 \
			check_search(path);                                                                 \
		else                                                                                        \
			check_image(AT_FDCWD, path);                                                        \
		char **own;                                                                                 \
		char *own_preload;                                                                          \
		char *const *const e2 = fix_env(envp ? envp : environ, &own, &own_preload);                 \
		/* The child runs no atfork handler: its image's constructor says START. */                 \
		const int r = REAL(name)(pid, path, fa, at, argv, e2);                                      \
		const int e = errno;                                                                        \
		free(own_preload);                                                                          \
		free(own);                                                                                  \
		rp__unguard();                                                                              \
		errno = e;                                                                                  \
		return r;                                                                                   \
	}
SPAWN(posix_spawn, false)
SPAWN(posix_spawnp, true)

/* system and popen run /bin/sh with environ: if it lost what keeps the shell traced, say so. */
static void check_environ(void)
{
	char **own;
	char *own_preload;
	if (fix_env(environ, &own, &own_preload) != environ)
		untraced_note(3, "/bin/sh");
	free(own_preload);
	free(own);
}

int system(const char *cmd)
{
	if (!rp__skip() && cmd) {
		rp__guard = 1;
		check_environ();
		rp__unguard();
	}
	return REAL(system)(cmd);
}

FILE *popen(const char *cmd, const char *mode)
{
	if (!rp__skip()) {
		rp__guard = 1;
		check_environ();
		rp__unguard();
	}
	return REAL(popen)(cmd, mode);
}

/*
 * A child reaped: a WAIT note once the call returns, never a busy call around
 * it (a parent blocks in wait for as long as its children run, and a busy mark
 * would hold the writer's merge back all that time).  What the child did is
 * over by then, so the note's time orders the parent's later calls after it.
 */
static void reaped(pid_t pid)
{
	if (pid <= 0 || rp__skip())
		return;
	rp__guard = 1;
	rp_sysev ev = {.nr = RP_SYSEV_WAIT, .ret = pid};
	ev.a[0] = pid;
	rp__note(&ev);
	rp__unguard();
}

pid_t wait(int *status)
{
	const pid_t r = REAL(wait)(status);
	const int e = errno;
	reaped(r);
	errno = e;
	return r;
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	const pid_t r = REAL(waitpid)(pid, status, options);
	const int e = errno;
	/* WNOWAIT leaves the child waitable: it is not reaped yet */
	if (!(options & WNOWAIT))
		reaped(r);
	errno = e;
	return r;
}

pid_t wait3(int *status, int options, struct rusage *ru)
{
	const pid_t r = REAL(wait3)(status, options, ru);
	const int e = errno;
	reaped(r);
	errno = e;
	return r;
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	const pid_t r = REAL(wait4)(pid, status, options, ru);
	const int e = errno;
	if (!(options & WNOWAIT))
		reaped(r);
	errno = e;
	return r;
}

int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	const int r = REAL(waitid)(idtype, id, info, options);
	const int e = errno;
	if (r == 0 && info && (options & WEXITED) && !(options & WNOWAIT))
		reaped(info->si_pid);
	errno = e;
	return r;
}

/* A thread joined is a child reaped: its ops come before the joiner's next ones (a WAIT on its tid). */
static void joined(pthread_t th)
{
	if (rp__skip())
		return;
	const uint32_t tid = rp__thread_forget((uintptr_t)th);
	if (tid)
		reaped((pid_t)tid);
}

int pthread_join(pthread_t th, void **ret)
{
	const int r = REAL(pthread_join)(th, ret);
	const int e = errno;
	if (r == 0)
		joined(th);
	errno = e;
	return r;
}

int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
	const int r = REAL(pthread_timedjoin_np)(th, ret, abstime);
	const int e = errno;
	if (r == 0)
		joined(th);
	errno = e;
	return r;
}

int pthread_tryjoin_np(pthread_t th, void **ret)
{
	const int r = REAL(pthread_tryjoin_np)(th, ret);
	const int e = errno;
	if (r == 0)
		joined(th);
	errno = e;
	return r;
}
