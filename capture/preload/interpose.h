/* What the interposer's files share: the real-symbol tables, the reentrancy guard, fd kinds, event helpers (docs/syscall-capture.md). */
#ifndef REPRISE_CAPTURE_PRELOAD_INTERPOSE_H
#define REPRISE_CAPTURE_PRELOAD_INTERPOSE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "capture/preload/emit.h"

#pragma GCC visibility push(hidden) /* as in emit.h */

/*
 * Each interpose_*.c keeps its real symbols in one static table generated
 * from an X-macro list, resolved by the constructor (rp__*_resolve) and
 * lazily by REAL() for a call that comes before it (another library's
 * constructor).  Writes are idempotent (every thread stores the same
 * pointer), so a lazy resolution racing the constructor is harmless.
 */
#define RP__REAL_FIELD(name) __typeof__(name) *name;
#define RP__REAL_SET(name) real.name = (__typeof__(name) *)rp__resolve(#name);
#define RP__REAL_GET(name)                                                              \
	static inline __typeof__(name) *real_get_##name(void)                           \
	{                                                                               \
		if (!real.name)                                                         \
			real.name = (__typeof__(name) *)rp__resolve(#name);             \
		return real.name;                                                       \
	}
#define REAL(name) (real_get_##name())

/* dlsym(RTLD_NEXT), then the versions glibc keeps compat symbols under; never NULL (aborts with a message).
 * A function pointer type, so casting it to each hook's type is ISO C. */
typedef void (*rp__fn)(void);
rp__fn rp__resolve(const char *name);

/*
 * Set while a hook runs: calls made by the interposer, the emitter or by libc
 * inside a hook reach the real functions unrecorded.  Initial-exec TLS: no
 * allocation and no lock on the first access from a new thread.
 */
extern __thread int rp__guard __attribute__((tls_model("initial-exec")));
/* The frame of the hook's rp__enter (0: none): a longjmp to a jmp_buf beyond it leaves the hook (interpose_jmp.c). */
extern __thread uintptr_t rp__hook_frame __attribute__((tls_model("initial-exec")));
/*
 * Tracing is on (a spool is set and the emitter started): written once by
 * the constructor, read by every hook.  A preload library has no context to
 * pass: process-wide state is its only choice.
 */
extern bool rp__tracing;
extern bool rp__stdio_on;

/* Leave a hook: the guard cleared, and the frame with it (a later guard set without rp__enter has none). */
static inline void rp__unguard(void)
{
	rp__hook_frame = 0;
	rp__guard = 0;
}

static inline bool rp__skip(void)
{
	return rp__guard || !rp__tracing;
}

/* fd kinds for fds below RP_FD_KINDS: whether a call on it is a file operation. */
#define RP_FD_KINDS 4096
enum { RP_FD_UNKNOWN = 0, RP_FD_FILE = 1, RP_FD_OTHER = 2 };
/* A call on fd is worth recording: a file, or beyond the table (the model decides).  An unknown fd is fstat'ed once. */
bool rp__fd_wanted(int fd);
void rp__fd_set(int fd, int kind);
void rp__fd_copy(int from, int to);
void rp__fd_clear_range(unsigned first, unsigned last);
/* The kind an fd just opened on path gets: a file, unless the path is under /dev or /proc (then its first call looks). */
void rp__fd_opened(int fd, const char *path);

/*
 * Pending coalesced events (a stdio run, a readdir run): their begin() holds
 * the ring's busy at their t_start until they are ended; any other recorded
 * call of the thread ends them first so a ring's events stay in t_start order.
 */
extern __thread int rp__pending __attribute__((tls_model("initial-exec")));
enum { RP_PENDING_STDIO = 1, RP_PENDING_DIR = 2 };
void rp__stdio_flush(void);
void rp__dir_flush(void);
/* End the pending runs: through the flushes interpose_stdio.c and interpose_dir.c set when they resolve
 * (before tracing starts), so the core (interpose_core.c) calls no hook file. */
extern void (*rp__flush_stdio_fn)(void);
extern void (*rp__flush_dir_fn)(void);
void rp__flush_pending(void);
/* The key whose destructor ends a thread's pending runs and ring at its exit; false if none could be made. */
bool rp__thread_key_init(void);

/* The thread is in a hook: end pending runs, mark the ring busy, return t_start. */
uint64_t rp__enter(void);
/* Publish ev (t_start t0, ret) and leave the hook. */
void rp__leave(rp_sysev *ev, uint64_t t0, int64_t ret);
/* A note (START, FD, FORK, EXEC, UNTRACED, EXIT) from inside or outside a hook. */
void rp__note(rp_sysev *ev);
/* Ends (t_end) are read from the emitter's clock, as t_start is: rp__emit_now (emit.h). */

/* Set p[i] to a caller's path (NULL: absent), cut at RP_SYSEV_PATH_MAX. */
static inline void rp__path(rp_sysev *ev, int i, const char *p)
{
	if (!p)
		return;
	const size_t n = strnlen(p, RP_SYSEV_PATH_MAX + 1);
	ev->p[i] = p;
	ev->plen[i] = n > RP_SYSEV_PATH_MAX ? RP_SYSEV_PATH_MAX : (uint32_t)n;
	if (n > RP_SYSEV_PATH_MAX)
		ev->flags |= (uint16_t)(i ? RP_SYSEV_CUT1 : RP_SYSEV_CUT0);
}

/* ret for a call returning -1 with errno set. */
static inline int64_t rp__ret(long r, int e)
{
	return r == -1 ? -(int64_t)e : (int64_t)r;
}

/* Each file's eager resolution, run by the constructor. */
void rp__io_resolve(void);
void rp__path_resolve(void);
void rp__stat_resolve(void);
void rp__dir_resolve(void);
void rp__stdio_resolve(void);
void rp__proc_resolve(void);
void rp__jmp_resolve(void);

/* The process side (interpose_proc.c): the START note, the fd snapshot, the fork handlers. */
void rp__proc_start(void);
/* The tid of a thread that made events, by its pthread_t, forgotten (pthread_join); 0 when unknown. */
uint32_t rp__thread_forget(uintptr_t self);
/* Raw syscalls used where a recorded or hooked call would recurse (interpose_core.c). */
long rp__sys(long nr, long a, long b, long c, long d);

#pragma GCC visibility pop

/* glibc's old stat entry points (compat symbols since 2.33, still called by old binaries). */
struct stat;
struct stat64;
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
/* glibc's fortified entry points (called by programs built with _FORTIFY_SOURCE). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

#endif
