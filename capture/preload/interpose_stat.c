/* Interposed stat calls: the stat family as glibc 2.36 exports it, the old __xstat entry points, statx (docs/syscall-capture.md). */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/preload/interpose_hook.h"

#define STAT_FUNCS(X)                                                                                  \
	X(stat) X(stat64) X(lstat) X(lstat64) X(fstat) X(fstat64) X(fstatat) X(fstatat64) X(__xstat)      \
	X(__xstat64) X(__lxstat) X(__lxstat64) X(__fxstat) X(__fxstat64) X(__fxstatat) X(__fxstatat64)    \
	X(statx)

static struct {
	STAT_FUNCS(RP__REAL_FIELD)
} real;
STAT_FUNCS(RP__REAL_GET)

void rp__stat_resolve(void)
{
	STAT_FUNCS(RP__REAL_SET)
}

#define ALWAYS 1
#define WANT rp__fd_wanted(fd)
#define NOFOLLOW AT_SYMLINK_NOFOLLOW
/* The result's file type, for prepare (sysev.h's a3: 1 when a directory; s is the caller's buffer, set on success). */
#define ISDIR A(3, r == 0 && s && S_ISDIR(s->st_mode))
#define ISDIRX A(3, r == 0 && s && (s->stx_mask & STATX_TYPE) && S_ISDIR(s->stx_mode))
/* An fstat is a stat of the fd with an empty path (AT_EMPTY_PATH), as sysev.h says. */
#define BYFD (A(0, fd), A(1, AT_EMPTY_PATH), P(0, ""), ISDIR)
/* fstatat(fd, "", AT_EMPTY_PATH) is an fstat: a call on a pipe is no file operation. */
#define ATWANT (!((f) & AT_EMPTY_PATH) || !p || p[0] || rp__fd_wanted(d))

HOOK(int, stat, (const char *restrict p, struct stat *restrict s), (p, s), ALWAYS, STAT, (A(0, AT_FDCWD), P(0, p), ISDIR))
HOOK(int, stat64, (const char *restrict p, struct stat64 *restrict s), (p, s), ALWAYS, STAT,
     (A(0, AT_FDCWD), P(0, p), ISDIR))
HOOK(int, lstat, (const char *restrict p, struct stat *restrict s), (p, s), ALWAYS, STAT,
     (A(0, AT_FDCWD), A(1, NOFOLLOW), P(0, p), ISDIR))
HOOK(int, lstat64, (const char *restrict p, struct stat64 *restrict s), (p, s), ALWAYS, STAT,
     (A(0, AT_FDCWD), A(1, NOFOLLOW), P(0, p), ISDIR))
HOOK(int, fstat, (int fd, struct stat *s), (fd, s), WANT, STAT, BYFD)
HOOK(int, fstat64, (int fd, struct stat64 *s), (fd, s), WANT, STAT, BYFD)
HOOK(int, fstatat, (int d, const char *restrict p, struct stat *restrict s, int f), (d, p, s, f), ATWANT, STAT,
     (A(0, d), A(1, f), P(0, p), ISDIR))
HOOK(int, fstatat64, (int d, const char *restrict p, struct stat64 *restrict s, int f), (d, p, s, f), ATWANT, STAT,
     (A(0, d), A(1, f), P(0, p), ISDIR))
HOOK(int, statx, (int d, const char *restrict p, int f, unsigned m, struct statx *restrict s), (d, p, f, m, s),
     ATWANT, STAT, (A(0, d), A(1, f), A(2, 1), P(0, p), ISDIRX))

/* The pre-2.33 entry points old binaries still call (the version argument is passed on). */
HOOK(int, __xstat, (int v, const char *p, struct stat *s), (v, p, s), ALWAYS, STAT, (A(0, AT_FDCWD), P(0, p), ISDIR))
HOOK(int, __xstat64, (int v, const char *p, struct stat64 *s), (v, p, s), ALWAYS, STAT, (A(0, AT_FDCWD), P(0, p), ISDIR))
HOOK(int, __lxstat, (int v, const char *p, struct stat *s), (v, p, s), ALWAYS, STAT,
     (A(0, AT_FDCWD), A(1, NOFOLLOW), P(0, p), ISDIR))
HOOK(int, __lxstat64, (int v, const char *p, struct stat64 *s), (v, p, s), ALWAYS, STAT,
     (A(0, AT_FDCWD), A(1, NOFOLLOW), P(0, p), ISDIR))
HOOK(int, __fxstat, (int v, int fd, struct stat *s), (v, fd, s), WANT, STAT, BYFD)
HOOK(int, __fxstat64, (int v, int fd, struct stat64 *s), (v, fd, s), WANT, STAT, BYFD)
HOOK(int, __fxstatat, (int v, int d, const char *p, struct stat *s, int f), (v, d, p, s, f), ATWANT, STAT,
     (A(0, d), A(1, f), P(0, p), ISDIR))
HOOK(int, __fxstatat64, (int v, int d, const char *p, struct stat64 *s, int f), (v, d, p, s, f), ATWANT, STAT,
     (A(0, d), A(1, f), P(0, p), ISDIR))
