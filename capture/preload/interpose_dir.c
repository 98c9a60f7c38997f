/* Interposed directory calls: getdents64, and opendir/readdir/closedir as events of their own, a run of readdir calls coalesced into one (docs/syscall-capture.md). */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "capture/preload/interpose_hook.h"

#define DIR_FUNCS(X) X(getdents64) X(opendir) X(fdopendir) X(readdir) X(readdir64) X(closedir) X(dirfd) X(rewinddir)

static struct {
	DIR_FUNCS(RP__REAL_FIELD)
} real;
DIR_FUNCS(RP__REAL_GET)

void rp__dir_resolve(void)
{
	DIR_FUNCS(RP__REAL_SET)
	rp__flush_dir_fn = rp__dir_flush;
}

/*
 * The thread's readdir run: glibc reads a directory with internal getdents64
 * calls interposition cannot see, so the run is the event.  One slot per
 * thread, no allocation; its begin() holds the ring's busy at t0 until the run
 * ends (another DIR, any other recorded call, closedir, the end of the
 * directory).
 */
static __thread struct {
	DIR *d;
	int fd;
	uint64_t t0, t_end;
	int64_t entries;
} run __attribute__((tls_model("initial-exec")));

static void publish(int eof)
{
	rp_sysev ev = {.nr = RP_SYSEV_READDIR, .flags = RP_SYSEV_STDIO};
	A(0, run.fd), A(1, run.entries), A(2, eof);
	ev.t_start = run.t0;
	ev.t_end = run.t_end;
	ev.ret = run.entries;
	run.d = NULL;
	rp__pending &= ~RP_PENDING_DIR;
	rp__emit_end(&ev);
}

void rp__dir_flush(void)
{
	publish(0);
}

#define READDIR(name, type)                                                          \
	struct type *name(DIR *d)                                                    \
	{                                                                            \
		if (rp__skip() || !d)                                                \
			return REAL(name)(d);                                        \
		if (run.d != d || !(rp__pending & RP_PENDING_DIR)) {                 \
			const uint64_t t0 = rp__enter(); /* ends any other run */    \
			run.d = d;                                                   \
			run.fd = REAL(dirfd)(d);                                     \
			run.t0 = t0;                                                 \
			run.entries = 0;                                             \
			rp__pending |= RP_PENDING_DIR;                               \
		}                                                                    \
		rp__guard = 1;                                                       \
		const int before = errno;                                            \
		errno = 0;                                                           \
		struct type *const r = REAL(name)(d);                                \
		const int e = errno;                                                 \
		run.t_end = rp__emit_now();                                          \
		if (r)                                                               \
			run.entries++;                                               \
		else                                                                 \
			publish(e == 0); /* the end (errno untouched) or an error */ \
		rp__unguard();                                                       \
		errno = r || e ? e : before;                                         \
		return r;                                                            \
	}
READDIR(readdir, dirent)
READDIR(readdir64, dirent64)

DIR *opendir(const char *path)
{
	if (rp__skip())
		return REAL(opendir)(path);
	rp_sysev ev = {.nr = RP_SYSEV_OPEN, .flags = RP_SYSEV_STDIO};
	const uint64_t t0 = rp__enter();
	DIR *const r = REAL(opendir)(path);
	const int e = errno;
	const int fd = r ? REAL(dirfd)(r) : -1;
	rp__fd_set(fd, RP_FD_FILE);
	/* The flags glibc's opendir opens with. */
	A(0, AT_FDCWD), A(1, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC), P(0, path);
	rp__leave(&ev, t0, r ? fd : -(int64_t)e);
	errno = e;
	return r;
}

/* fdopendir opens nothing (the fd's open was an event): it only says the fd is a directory. */
DIR *fdopendir(int fd)
{
	DIR *const r = REAL(fdopendir)(fd);
	if (r)
		rp__fd_set(fd, RP_FD_FILE);
	return r;
}

int closedir(DIR *d)
{
	if (rp__skip() || !d)
		return REAL(closedir)(d);
	const int fd = REAL(dirfd)(d);
	rp_sysev ev = {.nr = RP_SYSEV_CLOSE, .flags = RP_SYSEV_STDIO};
	const uint64_t t0 = rp__enter(); /* ends this DIR's run first */
	const int r = REAL(closedir)(d);
	const int e = errno;
	rp__fd_set(fd, RP_FD_UNKNOWN);
	A(0, fd);
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

/* rewinddir starts the directory over: the run so far is an event, the next readdir begins another. */
void rewinddir(DIR *d)
{
	if (!rp__skip() && run.d == d && (rp__pending & RP_PENDING_DIR)) {
		const int e = errno;
		rp__guard = 1;
		publish(0);
		rp__unguard();
		errno = e;
	}
	REAL(rewinddir)(d);
}

HOOK(ssize_t, getdents64, (int fd, void *b, size_t n), (fd, b, n), rp__fd_wanted(fd), GETDENTS, (A(0, fd), A(1, n)))

/* dirfd is resolved for the hooks' own use, never interposed. */
