/* The reprise LTTng-UST provider's events: one per rp_sysev kind, named as rp_sysev_name names it (formats/sysev.h). */
#ifndef REPRISE_CAPTURE_LTTNG_EVENTS_H
#define REPRISE_CAPTURE_LTTNG_EVENTS_H

#include "formats/sysev.h"

/*
 * X(ENUM, name): the tracepoint reprise:name carries an RP_SYSEV_ENUM event.
 * A tracepoint's name must be a C identifier and RP_SYSEV_MAP gives it as a
 * string, so the list is spelled out; the count below and the unit test
 * (tests/capture/test_lttng.c: every name equals RP_SYSEV_MAP's) keep the two
 * lists in step, and each ENUM must exist in the map or this does not compile.
 */
#define RP_LTTNG_EVENTS(X)                                                                                 \
	X(OPEN, open) X(CLOSE, close) X(CLOSE_RANGE, close_range) X(READ, read) X(WRITE, write)          \
	X(LSEEK, lseek) X(FSYNC, fsync) X(TRUNCATE, truncate) X(FALLOCATE, fallocate)                     \
	X(FADVISE, fadvise) X(STAT, stat) X(ACCESS, access) X(UNLINK, unlink) X(MKDIR, mkdir)             \
	X(RENAME, rename) X(LINK, link) X(SYMLINK, symlink) X(READLINK, readlink) X(CHMOD, chmod)         \
	X(CHOWN, chown) X(UTIMENS, utimens) X(GETDENTS, getdents) X(READDIR, readdir) X(LOCK, lock)       \
	X(FLOCK, flock) X(DUP, dup) X(CLOEXEC, cloexec) X(COPY, copy) X(MMAP, mmap) X(CHDIR, chdir)      \
	X(STATFS, statfs) X(MKNOD, mknod) X(XATTR, xattr) X(START, start) X(FD, fd) X(FORK, fork)         \
	X(EXEC, exec) X(UNTRACED, untraced) X(EXIT, exit) X(LOST, lost) X(WAIT, wait)

#define RP__LTTNG_ONE(e, name) +1
#define RP__SYSEV_ONE(e, n, name) +1
/* Every kind of the map has its tracepoint, and nothing else has one. */
_Static_assert(0 RP_LTTNG_EVENTS(RP__LTTNG_ONE) == 0 RP_SYSEV_MAP(RP__SYSEV_ONE),
	       "RP_LTTNG_EVENTS and RP_SYSEV_MAP list different kinds");
#define RP__LTTNG_EXISTS(e, name) _Static_assert(RP_SYSEV_##e > 0, "kind " #e " of the map");
RP_LTTNG_EVENTS(RP__LTTNG_EXISTS)
#undef RP__LTTNG_EXISTS
#undef RP__SYSEV_ONE
#undef RP__LTTNG_ONE

#endif
