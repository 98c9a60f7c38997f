/* Interposed fd calls: read/write and their vector and positional forms, seek, sync, size, copy, mmap, close, dup, fcntl, flock (docs/syscall-capture.md). */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture/preload/interpose_hook.h"

/* The fortified reads _FORTIFY_SOURCE builds call when the buffer's size is known (bits/unistd.h). */
ssize_t __read_chk(int fd, void *b, size_t n, size_t blen);
ssize_t __pread_chk(int fd, void *b, size_t n, off_t o, size_t blen);
ssize_t __pread64_chk(int fd, void *b, size_t n, off64_t o, size_t blen);

#define IO_FUNCS(X)                                                                                       \
	X(read) X(write) X(pread) X(pread64) X(pwrite) X(pwrite64) X(readv) X(writev) X(preadv) X(preadv64) \
	X(pwritev) X(pwritev64) X(preadv2) X(preadv64v2) X(pwritev2) X(pwritev64v2) X(lseek) X(lseek64)     \
	X(fsync) X(fdatasync) X(sync_file_range) X(ftruncate) X(ftruncate64) X(fallocate) X(fallocate64)    \
	X(posix_fallocate) X(posix_fallocate64) X(posix_fadvise) X(posix_fadvise64) X(copy_file_range)      \
	X(sendfile) X(sendfile64) X(splice) X(mmap) X(mmap64) X(close) X(close_range) X(dup) X(dup2) X(dup3) \
	X(fcntl) X(fcntl64) X(flock) X(__read_chk) X(__pread_chk) X(__pread64_chk)

static struct {
	IO_FUNCS(RP__REAL_FIELD)
} real;
IO_FUNCS(RP__REAL_GET)

void rp__io_resolve(void)
{
	IO_FUNCS(RP__REAL_SET)
}

static int64_t iov_bytes(const struct iovec *iov, int n)
{
	uint64_t sum = 0;
	for (int i = 0; iov && i < n; i++)
		sum += iov[i].iov_len;
	return (int64_t)sum;
}

#define WANT rp__fd_wanted(fd)

HOOK(ssize_t, read, (int fd, void *b, size_t n), (fd, b, n), WANT, READ, (A(0, fd), A(1, -1), A(2, n)))
HOOK(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n), WANT, WRITE, (A(0, fd), A(1, -1), A(2, n)))
HOOK(ssize_t, __read_chk, (int fd, void *b, size_t n, size_t bl), (fd, b, n, bl), WANT, READ,
     (A(0, fd), A(1, -1), A(2, n)))
HOOK(ssize_t, __pread_chk, (int fd, void *b, size_t n, off_t o, size_t bl), (fd, b, n, o, bl), WANT, READ,
     (A(0, fd), A(1, o), A(2, n)))
HOOK(ssize_t, __pread64_chk, (int fd, void *b, size_t n, off64_t o, size_t bl), (fd, b, n, o, bl), WANT, READ,
     (A(0, fd), A(1, o), A(2, n)))
HOOK(ssize_t, pread, (int fd, void *b, size_t n, off_t o), (fd, b, n, o), WANT, READ, (A(0, fd), A(1, o), A(2, n)))
HOOK(ssize_t, pread64, (int fd, void *b, size_t n, off64_t o), (fd, b, n, o), WANT, READ,
     (A(0, fd), A(1, o), A(2, n)))
HOOK(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o), WANT, WRITE,
     (A(0, fd), A(1, o), A(2, n)))
HOOK(ssize_t, pwrite64, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o), WANT, WRITE,
     (A(0, fd), A(1, o), A(2, n)))
HOOK(ssize_t, readv, (int fd, const struct iovec *v, int c), (fd, v, c), WANT, READ,
     (A(0, fd), A(1, -1), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, writev, (int fd, const struct iovec *v, int c), (fd, v, c), WANT, WRITE,
     (A(0, fd), A(1, -1), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, preadv, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o), WANT, READ,
     (A(0, fd), A(1, o), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, preadv64, (int fd, const struct iovec *v, int c, off64_t o), (fd, v, c, o), WANT, READ,
     (A(0, fd), A(1, o), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, pwritev, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o), WANT, WRITE,
     (A(0, fd), A(1, o), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, pwritev64, (int fd, const struct iovec *v, int c, off64_t o), (fd, v, c, o), WANT, WRITE,
     (A(0, fd), A(1, o), A(2, iov_bytes(v, c)), A(3, 1)))
/* The *v2 forms take offset -1 for the fd's position, which is the event's convention too. */
HOOK(ssize_t, preadv2, (int fd, const struct iovec *v, int c, off_t o, int f), (fd, v, c, o, f), WANT, READ,
     (A(0, fd), A(1, o < 0 ? -1 : o), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, preadv64v2, (int fd, const struct iovec *v, int c, off64_t o, int f), (fd, v, c, o, f), WANT,
     READ, (A(0, fd), A(1, o < 0 ? -1 : o), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, pwritev2, (int fd, const struct iovec *v, int c, off_t o, int f), (fd, v, c, o, f), WANT, WRITE,
     (A(0, fd), A(1, o < 0 ? -1 : o), A(2, iov_bytes(v, c)), A(3, 1)))
HOOK(ssize_t, pwritev64v2, (int fd, const struct iovec *v, int c, off64_t o, int f), (fd, v, c, o, f), WANT,
     WRITE, (A(0, fd), A(1, o < 0 ? -1 : o), A(2, iov_bytes(v, c)), A(3, 1)))

HOOK(off_t, lseek, (int fd, off_t o, int w), (fd, o, w), WANT, LSEEK, (A(0, fd), A(1, o), A(2, w)))
HOOK(off64_t, lseek64, (int fd, off64_t o, int w), (fd, o, w), WANT, LSEEK, (A(0, fd), A(1, o), A(2, w)))

HOOK(int, fsync, (int fd), (fd), WANT, FSYNC, A(0, fd))
HOOK(int, fdatasync, (int fd), (fd), WANT, FSYNC, (A(0, fd), A(1, 1)))
HOOK(int, sync_file_range, (int fd, off64_t o, off64_t n, unsigned f), (fd, o, n, f), WANT, FSYNC,
     (A(0, fd), A(1, 1), A(2, o), A(3, n)))

HOOK(int, ftruncate, (int fd, off_t n), (fd, n), WANT, TRUNCATE, (A(0, fd), A(1, n)))
HOOK(int, ftruncate64, (int fd, off64_t n), (fd, n), WANT, TRUNCATE, (A(0, fd), A(1, n)))
HOOK(int, fallocate, (int fd, int m, off_t o, off_t n), (fd, m, o, n), WANT, FALLOCATE,
     (A(0, fd), A(1, m), A(2, o), A(3, n)))
HOOK(int, fallocate64, (int fd, int m, off64_t o, off64_t n), (fd, m, o, n), WANT, FALLOCATE,
     (A(0, fd), A(1, m), A(2, o), A(3, n)))
HOOK_ERRNUM(posix_fallocate, (int fd, off_t o, off_t n), (fd, o, n), WANT, FALLOCATE, (A(0, fd), A(2, o), A(3, n)))
HOOK_ERRNUM(posix_fallocate64, (int fd, off64_t o, off64_t n), (fd, o, n), WANT, FALLOCATE,
            (A(0, fd), A(2, o), A(3, n)))
HOOK_ERRNUM(posix_fadvise, (int fd, off_t o, off_t n, int adv), (fd, o, n, adv), WANT, FADVISE,
            (A(0, fd), A(1, o), A(2, n), A(3, adv)))
HOOK_ERRNUM(posix_fadvise64, (int fd, off64_t o, off64_t n, int adv), (fd, o, n, adv), WANT, FADVISE,
            (A(0, fd), A(1, o), A(2, n), A(3, adv)))

/* Copies: recorded when either end is a file; offsets are the caller's before the call. */
#define OFF(p) ((p) ? (int64_t)*(p) : -1)
ssize_t copy_file_range(int in, off64_t *oin, int out, off64_t *oout, size_t n, unsigned f)
{
	if (rp__skip() || !(rp__fd_wanted(in) || rp__fd_wanted(out)))
		return REAL(copy_file_range)(in, oin, out, oout, n, f);
	rp_sysev ev = {.nr = RP_SYSEV_COPY};
	A(0, in), A(1, OFF(oin)), A(2, out), A(3, OFF(oout)), A(4, n), A(5, 1);
	const uint64_t t0 = rp__enter();
	const ssize_t r = REAL(copy_file_range)(in, oin, out, oout, n, f);
	const int e = errno;
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

ssize_t splice(int in, off64_t *oin, int out, off64_t *oout, size_t n, unsigned f)
{
	if (rp__skip() || !(rp__fd_wanted(in) || rp__fd_wanted(out)))
		return REAL(splice)(in, oin, out, oout, n, f);
	rp_sysev ev = {.nr = RP_SYSEV_COPY};
	A(0, in), A(1, OFF(oin)), A(2, out), A(3, OFF(oout)), A(4, n), A(5, 3);
	const uint64_t t0 = rp__enter();
	const ssize_t r = REAL(splice)(in, oin, out, oout, n, f);
	const int e = errno;
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

#define SENDFILE(name, offt)                                                              \
	ssize_t name(int out, int in, offt *o, size_t n)                                  \
	{                                                                                 \
		if (rp__skip() || !(rp__fd_wanted(in) || rp__fd_wanted(out)))             \
			return REAL(name)(out, in, o, n);                                 \
		rp_sysev ev = {.nr = RP_SYSEV_COPY};                                      \
		A(0, in), A(1, OFF(o)), A(2, out), A(3, -1), A(4, n), A(5, 2);            \
		const uint64_t t0 = rp__enter();                                          \
		const ssize_t r = REAL(name)(out, in, o, n);                              \
		const int e = errno;                                                      \
		rp__leave(&ev, t0, rp__ret(r, e));                                        \
		errno = e;                                                                \
		return r;                                                                 \
	}
SENDFILE(sendfile, off_t)
SENDFILE(sendfile64, off64_t)

/* File mappings only: anonymous ones are memory, not file operations. */
#define MMAP(name, offt)                                                                          \
	void *name(void *addr, size_t len, int prot, int flags, int fd, offt off)                 \
	{                                                                                         \
		if (rp__skip() || (flags & MAP_ANONYMOUS) || !rp__fd_wanted(fd))                  \
			return REAL(name)(addr, len, prot, flags, fd, off);                       \
		rp_sysev ev = {.nr = RP_SYSEV_MMAP};                                              \
		A(0, fd), A(1, off), A(2, len), A(3, prot), A(4, flags);                          \
		const uint64_t t0 = rp__enter();                                                  \
		void *const r = REAL(name)(addr, len, prot, flags, fd, off);                      \
		const int e = errno;                                                              \
		rp__leave(&ev, t0, r == MAP_FAILED ? -(int64_t)e : (int64_t)(uintptr_t)r);        \
		errno = e;                                                                        \
		return r;                                                                         \
	}
MMAP(mmap, off_t)
MMAP(mmap64, off64_t)

/*
 * The tracer holds no descriptor of its own (a ring's fd is closed once it is
 * mapped), so close, dup2, dup3 and close_range need no protection: they only
 * keep the fd kinds true.
 */
int close(int fd)
{
	if (rp__skip() || !rp__fd_wanted(fd)) {
		const int r = REAL(close)(fd);
		if (r == 0 || errno != EBADF)
			rp__fd_set(fd, RP_FD_UNKNOWN); /* Linux frees the fd even when close fails (EINTR, EIO) */
		return r;
	}
	rp_sysev ev = {.nr = RP_SYSEV_CLOSE};
	A(0, fd);
	const uint64_t t0 = rp__enter();
	const int r = REAL(close)(fd);
	const int e = errno;
	if (r == 0 || e != EBADF)
		rp__fd_set(fd, RP_FD_UNKNOWN);
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

int close_range(unsigned first, unsigned last, int flags)
{
	if (rp__skip()) {
		const int r = REAL(close_range)(first, last, flags);
		if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
			rp__fd_clear_range(first, last);
		return r;
	}
	rp_sysev ev = {.nr = RP_SYSEV_CLOSE_RANGE};
	A(0, first), A(1, last), A(2, flags);
	const uint64_t t0 = rp__enter();
	const int r = REAL(close_range)(first, last, flags);
	const int e = errno;
	if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
		rp__fd_clear_range(first, last);
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

/* dup2 and dup3 over a file close it: recorded when either fd is a file (or not yet open). */
int dup(int fd)
{
	if (rp__skip() || !rp__fd_wanted(fd)) {
		const int r = REAL(dup)(fd);
		rp__fd_copy(fd, r);
		return r;
	}
	rp_sysev ev = {.nr = RP_SYSEV_DUP};
	A(0, fd), A(1, -1);
	const uint64_t t0 = rp__enter();
	const int r = REAL(dup)(fd);
	const int e = errno;
	rp__fd_copy(fd, r);
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

static int dup_to(int (*call)(int, int, int), int three, int fd, int to, int flags)
{
	if (rp__skip() || !(rp__fd_wanted(fd) || rp__fd_wanted(to))) {
		const int r = three ? call(fd, to, flags) : REAL(dup2)(fd, to);
		if (r >= 0)
			rp__fd_copy(fd, r);
		return r;
	}
	rp_sysev ev = {.nr = RP_SYSEV_DUP};
	A(0, fd), A(1, to), A(2, flags & O_CLOEXEC);
	const uint64_t t0 = rp__enter();
	const int r = three ? call(fd, to, flags) : REAL(dup2)(fd, to);
	const int e = errno;
	if (r >= 0)
		rp__fd_copy(fd, r);
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

int dup2(int fd, int to)
{
	return dup_to(NULL, 0, fd, to, 0);
}

int dup3(int fd, int to, int flags)
{
	return dup_to(REAL(dup3), 1, fd, to, flags);
}

/* fcntl: locks, dups and close-on-exec are events; every other command passes through unrecorded. */
static int fcntl_call(__typeof__(fcntl) *call, int fd, int cmd, void *arg)
{
	const int lock = cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK || cmd == F_OFD_SETLK ||
	                 cmd == F_OFD_SETLKW || cmd == F_OFD_GETLK;
	const int dupfd = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
	if (rp__skip() || !(lock || dupfd || cmd == F_SETFD) || !rp__fd_wanted(fd)) {
		const int r = call(fd, cmd, arg);
		if (dupfd && r >= 0)
			rp__fd_copy(fd, r);
		return r;
	}
	rp_sysev ev = {.nr = RP_SYSEV_LOCK};
	A(0, fd);
	if (lock) {
		A(1, cmd);
		const struct flock *const fl = arg;
		if (fl)
			A(2, fl->l_type), A(3, fl->l_whence), A(4, fl->l_start), A(5, fl->l_len);
	} else if (dupfd) {
		ev.nr = RP_SYSEV_DUP;
		A(1, (int)(intptr_t)arg), A(2, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0), A(3, 1);
	} else {
		ev.nr = RP_SYSEV_CLOEXEC;
		A(1, ((intptr_t)arg & FD_CLOEXEC) ? 1 : 0);
	}
	const uint64_t t0 = rp__enter();
	const int r = call(fd, cmd, arg);
	const int e = errno;
	if (dupfd && r >= 0)
		rp__fd_copy(fd, r);
	rp__leave(&ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

/* Every fcntl argument is an int or a pointer: passed on as a pointer-sized register either way. */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *const arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_call(REAL(fcntl), fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *const arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_call(REAL(fcntl64), fd, cmd, arg);
}

HOOK(int, flock, (int fd, int op), (fd, op), WANT, FLOCK, (A(0, fd), A(1, op)))
