/* Interposed path calls: open and creat (plain, 64, fortified), truncate, access, unlink, mkdir, mknod, rename, link, symlink, readlink, chmod, chown, times, chdir, statfs, xattrs (docs/syscall-capture.md). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "capture/preload/interpose_hook.h"

/* The fortified readlinks (bits/unistd.h, under _FORTIFY_SOURCE). */
ssize_t __readlink_chk(const char *p, char *b, size_t n, size_t blen);
ssize_t __readlinkat_chk(int d, const char *p, char *b, size_t n, size_t blen);

#define PATH_FUNCS(X)                                                                                   \
	X(open) X(open64) X(openat) X(openat64) X(creat) X(creat64) X(__open_2) X(__open64_2) X(__openat_2) \
	X(__openat64_2) X(truncate) X(truncate64) X(access) X(faccessat) X(euidaccess) X(eaccess) X(unlink) \
	X(unlinkat) X(rmdir) X(mkdir) X(mkdirat) X(mknod) X(mknodat) X(rename) X(renameat) X(renameat2)    \
	X(link) X(linkat) X(symlink) X(symlinkat) X(readlink) X(readlinkat) X(chmod) X(fchmod) X(fchmodat) \
	X(chown) X(fchown) X(lchown) X(fchownat) X(utimensat) X(futimens) X(utime) X(utimes) X(lutimes)     \
	X(futimes) X(chdir) X(fchdir) X(statfs) X(statfs64) X(fstatfs) X(fstatfs64) X(statvfs) X(statvfs64) X(fstatvfs) \
	X(fstatvfs64) X(getxattr) \
	X(lgetxattr) X(fgetxattr) X(setxattr) X(lsetxattr) X(fsetxattr) X(listxattr) X(llistxattr)         \
	X(flistxattr) X(removexattr) X(lremovexattr) X(fremovexattr) X(mkfifo) X(mkfifoat) X(__readlink_chk)   \
	X(__readlinkat_chk)

static struct {
	PATH_FUNCS(RP__REAL_FIELD)
} real;
PATH_FUNCS(RP__REAL_GET)

void rp__path_resolve(void)
{
	PATH_FUNCS(RP__REAL_SET)
}

#define ALWAYS 1
#define WANT rp__fd_wanted(fd)

/* ---- open ---------------------------------------------------------------- */

/* The mode argument exists only when the flags create a file. */
#define NEEDS_MODE(f) (((f) & O_CREAT) || ((f) & __O_TMPFILE) == __O_TMPFILE)

static int opened(rp_sysev *ev, uint64_t t0, int r, int e)
{
	if (r >= 0)
		rp__fd_opened(r, ev->p[0]);
	rp__leave(ev, t0, rp__ret(r, e));
	errno = e;
	return r;
}

/* The body of open's and openat's hooks (they differ in the dirfd and the real call): the mode only when one is passed. */
#define OPEN_BODY(dirfd, call)                                                   \
	{                                                                        \
		mode_t mode = 0;                                                 \
		if (NEEDS_MODE(flags)) {                                         \
			va_list ap;                                              \
			va_start(ap, flags);                                     \
			mode = va_arg(ap, mode_t);                               \
			va_end(ap);                                              \
		}                                                                \
		if (rp__skip())                                                  \
			return call;                                             \
		rp_sysev ev = {.nr = RP_SYSEV_OPEN};                             \
		const uint64_t t0 = rp__enter();                                 \
		const int r = call;                                              \
		const int e = errno;                                             \
		A(0, dirfd), A(1, flags), A(2, mode), P(0, path);                \
		return opened(&ev, t0, r, e);                                    \
	}
#define OPEN_VA(name) int name(const char *path, int flags, ...) OPEN_BODY(AT_FDCWD, REAL(name)(path, flags, mode))
#define OPENAT_VA(name) \
	int name(int dirfd, const char *path, int flags, ...) OPEN_BODY(dirfd, REAL(name)(dirfd, path, flags, mode))
OPEN_VA(open)
OPEN_VA(open64)
OPENAT_VA(openat)
OPENAT_VA(openat64)

#define OPEN_FIXED(name, params, args, dirfd, flags, mode)                       \
	int name params                                                          \
	{                                                                        \
		if (rp__skip())                                                  \
			return REAL(name) args;                                  \
		rp_sysev ev = {.nr = RP_SYSEV_OPEN};                             \
		const uint64_t t0 = rp__enter();                                 \
		const int r = REAL(name) args;                                   \
		const int e = errno;                                             \
		A(0, dirfd), A(1, flags), A(2, mode), P(0, path);                \
		return opened(&ev, t0, r, e);                                    \
	}
OPEN_FIXED(creat, (const char *path, mode_t m), (path, m), AT_FDCWD, O_CREAT | O_WRONLY | O_TRUNC, m)
OPEN_FIXED(creat64, (const char *path, mode_t m), (path, m), AT_FDCWD, O_CREAT | O_WRONLY | O_TRUNC, m)
/* The fortified forms are what _FORTIFY_SOURCE builds call when the flags need no mode. */
OPEN_FIXED(__open_2, (const char *path, int f), (path, f), AT_FDCWD, f, 0)
OPEN_FIXED(__open64_2, (const char *path, int f), (path, f), AT_FDCWD, f, 0)
OPEN_FIXED(__openat_2, (int d, const char *path, int f), (d, path, f), d, f, 0)
OPEN_FIXED(__openat64_2, (int d, const char *path, int f), (d, path, f), d, f, 0)

/* ---- names ---------------------------------------------------------------- */

HOOK(int, truncate, (const char *p, off_t n), (p, n), ALWAYS, TRUNCATE, (A(0, -1), A(1, n), A(3, AT_FDCWD), P(0, p)))
HOOK(int, truncate64, (const char *p, off64_t n), (p, n), ALWAYS, TRUNCATE,
     (A(0, -1), A(1, n), A(3, AT_FDCWD), P(0, p)))
HOOK(int, access, (const char *p, int m), (p, m), ALWAYS, ACCESS, (A(0, AT_FDCWD), A(1, m), P(0, p)))
HOOK(int, faccessat, (int d, const char *p, int m, int f), (d, p, m, f), ALWAYS, ACCESS,
     (A(0, d), A(1, m), A(2, f), P(0, p)))
HOOK(int, euidaccess, (const char *p, int m), (p, m), ALWAYS, ACCESS,
     (A(0, AT_FDCWD), A(1, m), A(2, AT_EACCESS), P(0, p)))
HOOK(int, eaccess, (const char *p, int m), (p, m), ALWAYS, ACCESS, (A(0, AT_FDCWD), A(1, m), A(2, AT_EACCESS), P(0, p)))
HOOK(int, unlink, (const char *p), (p), ALWAYS, UNLINK, (A(0, AT_FDCWD), P(0, p)))
HOOK(int, unlinkat, (int d, const char *p, int f), (d, p, f), ALWAYS, UNLINK, (A(0, d), A(1, f), P(0, p)))
HOOK(int, rmdir, (const char *p), (p), ALWAYS, UNLINK, (A(0, AT_FDCWD), A(1, AT_REMOVEDIR), P(0, p)))
HOOK(int, mkdir, (const char *p, mode_t m), (p, m), ALWAYS, MKDIR, (A(0, AT_FDCWD), A(1, m), P(0, p)))
HOOK(int, mkdirat, (int d, const char *p, mode_t m), (d, p, m), ALWAYS, MKDIR, (A(0, d), A(1, m), P(0, p)))
HOOK(int, mknod, (const char *p, mode_t m, dev_t dv), (p, m, dv), ALWAYS, MKNOD,
     (A(0, AT_FDCWD), A(1, m), A(2, dv), P(0, p)))
HOOK(int, mknodat, (int d, const char *p, mode_t m, dev_t dv), (d, p, m, dv), ALWAYS, MKNOD,
     (A(0, d), A(1, m), A(2, dv), P(0, p)))
/* A fifo is a node: MKNOD with S_IFIFO in the mode. */
HOOK(int, mkfifo, (const char *p, mode_t m), (p, m), ALWAYS, MKNOD, (A(0, AT_FDCWD), A(1, m | S_IFIFO), P(0, p)))
HOOK(int, mkfifoat, (int d, const char *p, mode_t m), (d, p, m), ALWAYS, MKNOD, (A(0, d), A(1, m | S_IFIFO), P(0, p)))
HOOK(int, rename, (const char *o, const char *n), (o, n), ALWAYS, RENAME,
     (A(0, AT_FDCWD), A(1, AT_FDCWD), P(0, o), P(1, n)))
HOOK(int, renameat, (int od, const char *o, int nd, const char *n), (od, o, nd, n), ALWAYS, RENAME,
     (A(0, od), A(1, nd), P(0, o), P(1, n)))
HOOK(int, renameat2, (int od, const char *o, int nd, const char *n, unsigned f), (od, o, nd, n, f), ALWAYS, RENAME,
     (A(0, od), A(1, nd), A(2, f), P(0, o), P(1, n)))
HOOK(int, link, (const char *o, const char *n), (o, n), ALWAYS, LINK, (A(0, AT_FDCWD), A(1, AT_FDCWD), P(0, o), P(1, n)))
HOOK(int, linkat, (int od, const char *o, int nd, const char *n, int f), (od, o, nd, n, f), ALWAYS, LINK,
     (A(0, od), A(1, nd), A(2, f), P(0, o), P(1, n)))
HOOK(int, symlink, (const char *t, const char *n), (t, n), ALWAYS, SYMLINK, (A(0, AT_FDCWD), P(0, t), P(1, n)))
HOOK(int, symlinkat, (const char *t, int d, const char *n), (t, d, n), ALWAYS, SYMLINK, (A(0, d), P(0, t), P(1, n)))
HOOK(ssize_t, readlink, (const char *restrict p, char *restrict b, size_t n), (p, b, n), ALWAYS, READLINK,
     (A(0, AT_FDCWD), A(1, n), P(0, p)))
HOOK(ssize_t, readlinkat, (int d, const char *restrict p, char *restrict b, size_t n), (d, p, b, n), ALWAYS,
     READLINK, (A(0, d), A(1, n), P(0, p)))

HOOK(ssize_t, __readlink_chk, (const char *p, char *b, size_t n, size_t bl), (p, b, n, bl), ALWAYS, READLINK,
     (A(0, AT_FDCWD), A(1, n), P(0, p)))
HOOK(ssize_t, __readlinkat_chk, (int d, const char *p, char *b, size_t n, size_t bl), (d, p, b, n, bl), ALWAYS,
     READLINK, (A(0, d), A(1, n), P(0, p)))

/* ---- attributes ----------------------------------------------------------- */

/* uid_t -1 ("unchanged") stays -1 in the event, not 4294967295. */
#define ID(v) ((v) == (__typeof__(v))-1 ? -1 : (int64_t)(v))

HOOK(int, chmod, (const char *p, mode_t m), (p, m), ALWAYS, CHMOD, (A(0, -1), A(1, AT_FDCWD), A(2, m), P(0, p)))
HOOK(int, fchmod, (int fd, mode_t m), (fd, m), WANT, CHMOD, (A(0, fd), A(2, m)))
HOOK(int, fchmodat, (int d, const char *p, mode_t m, int f), (d, p, m, f), ALWAYS, CHMOD,
     (A(0, -1), A(1, d), A(2, m), A(3, f), P(0, p)))
HOOK(int, chown, (const char *p, uid_t u, gid_t g), (p, u, g), ALWAYS, CHOWN,
     (A(0, -1), A(1, AT_FDCWD), A(2, ID(u)), A(3, ID(g)), P(0, p)))
HOOK(int, lchown, (const char *p, uid_t u, gid_t g), (p, u, g), ALWAYS, CHOWN,
     (A(0, -1), A(1, AT_FDCWD), A(2, ID(u)), A(3, ID(g)), A(4, AT_SYMLINK_NOFOLLOW), P(0, p)))
HOOK(int, fchown, (int fd, uid_t u, gid_t g), (fd, u, g), WANT, CHOWN, (A(0, fd), A(2, ID(u)), A(3, ID(g))))
HOOK(int, fchownat, (int d, const char *p, uid_t u, gid_t g, int f), (d, p, u, g, f), ALWAYS, CHOWN,
     (A(0, -1), A(1, d), A(2, ID(u)), A(3, ID(g)), A(4, f), P(0, p)))

/* A time as the event holds it: ns, or -1 now, -2 omit (a timespec's UTIME_NOW, UTIME_OMIT). */
static int64_t ts_ns(const struct timespec *ts, int i)
{
	if (!ts || ts[i].tv_nsec == UTIME_NOW)
		return -1;
	if (ts[i].tv_nsec == UTIME_OMIT)
		return -2;
	return (int64_t)ts[i].tv_sec * 1000000000 + ts[i].tv_nsec;
}

static int64_t tv_ns(const struct timeval *tv, int i)
{
	return tv ? (int64_t)tv[i].tv_sec * 1000000000 + (int64_t)tv[i].tv_usec * 1000 : -1;
}

/* utimensat with a NULL path (Linux) sets the times of the dirfd itself. */
HOOK(int, utimensat, (int d, const char *p, const struct timespec t[2], int f), (d, p, t, f), ALWAYS, UTIMENS,
     (A(0, p ? -1 : d), A(1, d), A(2, ts_ns(t, 0)), A(3, ts_ns(t, 1)), A(4, f), P(0, p)))
HOOK(int, futimens, (int fd, const struct timespec t[2]), (fd, t), WANT, UTIMENS,
     (A(0, fd), A(2, ts_ns(t, 0)), A(3, ts_ns(t, 1))))
HOOK(int, utime, (const char *p, const struct utimbuf *u), (p, u), ALWAYS, UTIMENS,
     (A(0, -1), A(1, AT_FDCWD), A(2, u ? (int64_t)u->actime * 1000000000 : -1),
      A(3, u ? (int64_t)u->modtime * 1000000000 : -1), P(0, p)))
HOOK(int, utimes, (const char *p, const struct timeval t[2]), (p, t), ALWAYS, UTIMENS,
     (A(0, -1), A(1, AT_FDCWD), A(2, tv_ns(t, 0)), A(3, tv_ns(t, 1)), P(0, p)))
HOOK(int, lutimes, (const char *p, const struct timeval t[2]), (p, t), ALWAYS, UTIMENS,
     (A(0, -1), A(1, AT_FDCWD), A(2, tv_ns(t, 0)), A(3, tv_ns(t, 1)), A(4, AT_SYMLINK_NOFOLLOW), P(0, p)))
HOOK(int, futimes, (int fd, const struct timeval t[2]), (fd, t), WANT, UTIMENS,
     (A(0, fd), A(2, tv_ns(t, 0)), A(3, tv_ns(t, 1))))

HOOK(int, chdir, (const char *p), (p), ALWAYS, CHDIR, (A(0, -1), P(0, p)))
HOOK(int, fchdir, (int fd), (fd), WANT, CHDIR, A(0, fd))
HOOK(int, statfs, (const char *p, struct statfs *b), (p, b), ALWAYS, STATFS, (A(0, -1), P(0, p)))
HOOK(int, statfs64, (const char *p, struct statfs64 *b), (p, b), ALWAYS, STATFS, (A(0, -1), P(0, p)))
HOOK(int, fstatfs, (int fd, struct statfs *b), (fd, b), WANT, STATFS, A(0, fd))
HOOK(int, fstatfs64, (int fd, struct statfs64 *b), (fd, b), WANT, STATFS, A(0, fd))
/* statvfs is glibc's own call over statfs, which it makes internally (dbench's QUERY_FS_INFORMATION) */
HOOK(int, statvfs, (const char *restrict p, struct statvfs *restrict b), (p, b), ALWAYS, STATFS, (A(0, -1), P(0, p)))
HOOK(int, statvfs64, (const char *restrict p, struct statvfs64 *restrict b), (p, b), ALWAYS, STATFS,
     (A(0, -1), P(0, p)))
HOOK(int, fstatvfs, (int fd, struct statvfs *b), (fd, b), WANT, STATFS, A(0, fd))
HOOK(int, fstatvfs64, (int fd, struct statvfs64 *b), (fd, b), WANT, STATFS, A(0, fd))

/* ---- extended attributes: a1 0 get, 1 set, 2 list, 3 remove; a2 1 no-follow ---------- */

HOOK(ssize_t, getxattr, (const char *p, const char *n, void *v, size_t s), (p, n, v, s), ALWAYS, XATTR,
     (A(0, -1), A(3, s), P(0, p), P(1, n)))
HOOK(ssize_t, lgetxattr, (const char *p, const char *n, void *v, size_t s), (p, n, v, s), ALWAYS, XATTR,
     (A(0, -1), A(2, 1), A(3, s), P(0, p), P(1, n)))
HOOK(ssize_t, fgetxattr, (int fd, const char *n, void *v, size_t s), (fd, n, v, s), WANT, XATTR,
     (A(0, fd), A(3, s), P(1, n)))
HOOK(int, setxattr, (const char *p, const char *n, const void *v, size_t s, int f), (p, n, v, s, f), ALWAYS, XATTR,
     (A(0, -1), A(1, 1), A(3, s), P(0, p), P(1, n)))
HOOK(int, lsetxattr, (const char *p, const char *n, const void *v, size_t s, int f), (p, n, v, s, f), ALWAYS, XATTR,
     (A(0, -1), A(1, 1), A(2, 1), A(3, s), P(0, p), P(1, n)))
HOOK(int, fsetxattr, (int fd, const char *n, const void *v, size_t s, int f), (fd, n, v, s, f), WANT, XATTR,
     (A(0, fd), A(1, 1), A(3, s), P(1, n)))
HOOK(ssize_t, listxattr, (const char *p, char *l, size_t s), (p, l, s), ALWAYS, XATTR,
     (A(0, -1), A(1, 2), A(3, s), P(0, p)))
HOOK(ssize_t, llistxattr, (const char *p, char *l, size_t s), (p, l, s), ALWAYS, XATTR,
     (A(0, -1), A(1, 2), A(2, 1), A(3, s), P(0, p)))
HOOK(ssize_t, flistxattr, (int fd, char *l, size_t s), (fd, l, s), WANT, XATTR, (A(0, fd), A(1, 2), A(3, s)))
HOOK(int, removexattr, (const char *p, const char *n), (p, n), ALWAYS, XATTR, (A(0, -1), A(1, 3), P(0, p), P(1, n)))
HOOK(int, lremovexattr, (const char *p, const char *n), (p, n), ALWAYS, XATTR,
     (A(0, -1), A(1, 3), A(2, 1), P(0, p), P(1, n)))
HOOK(int, fremovexattr, (int fd, const char *n), (fd, n), WANT, XATTR, (A(0, fd), A(1, 3), P(1, n)))
