/* The hook shapes every interpose_*.c file uses (docs/syscall-capture.md). */
#ifndef REPRISE_CAPTURE_PRELOAD_INTERPOSE_HOOK_H
#define REPRISE_CAPTURE_PRELOAD_INTERPOSE_HOOK_H

#include "capture/preload/interpose.h"

/*
 * A call whose result is -1 with errno on failure.  `when` says whether it is
 * recorded (a file fd, or always for a path call); `fill` sets the event's
 * arguments from the parameters (and from r, the result).  errno is saved
 * right after the real call and restored last.
 */
#define HOOK(rtype, name, params, args, when, NR, fill)            \
	rtype name params                                          \
	{                                                          \
		if (rp__skip() || !(when))                         \
			return REAL(name) args;                    \
		rp_sysev ev = {.nr = RP_SYSEV_##NR};               \
		const uint64_t t0 = rp__enter();                   \
		const rtype r = REAL(name) args;                   \
		const int e = errno;                               \
		fill;                                              \
		rp__leave(&ev, t0, rp__ret((long)r, e));           \
		errno = e;                                         \
		return r;                                          \
	}

/* A call that returns an error number instead of setting errno (posix_fallocate, posix_fadvise). */
#define HOOK_ERRNUM(name, params, args, when, NR, fill)            \
	int name params                                            \
	{                                                          \
		if (rp__skip() || !(when))                         \
			return REAL(name) args;                    \
		rp_sysev ev = {.nr = RP_SYSEV_##NR};               \
		const uint64_t t0 = rp__enter();                   \
		const int r = REAL(name) args;                     \
		const int e = errno;                               \
		fill;                                              \
		rp__leave(&ev, t0, r ? -(int64_t)r : 0);           \
		errno = e;                                         \
		return r;                                          \
	}

#define A(i, v) (ev.a[i] = (int64_t)(v))
#define P(i, v) rp__path(&ev, i, v)

#endif
