/* File syscalls as typed events, and the model that turns them into op records (docs/syscall-capture.md). */
#ifndef REPRISE_FORMATS_SYSEV_H
#define REPRISE_FORMATS_SYSEV_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Three producers record the same events: the LD_PRELOAD interposer
 * (capture/preload, through shared-memory rings), its LTTng-UST twin
 * (capture/lttng, as tracepoints) and the CTF importer (converters/ctf, which
 * reads those tracepoints back).  The model below is the one place where an
 * event becomes ops: fd tables, working directories, fork and exec.  An event
 * is what one libc call did, with its arguments as the caller gave them (a
 * dirfd is not resolved, a path is not joined): resolving is the model's.
 *
 * X(ENUM, "name", what a[0..5] hold).  Values are part of the ring and
 * tracepoint formats: append only, never renumber.  Unused arguments are 0.
 * A path argument p0/p1 is the bytes the caller passed (NUL excluded), cut at
 * RP_SYSEV_PATH_MAX with RP_SYSEV_CUT set.  ret is the call's result, or
 * -errno (Linux numbering) when it failed; below -4095, a failure whose
 * errno the tracer did not name (an op with status OTHER).
 */
#define RP_SYSEV_MAP(X)                                                                                       \
	/* a0 dirfd (AT_FDCWD for open/creat), a1 O_* flags (Linux values), a2 mode; p0 path; ret fd */      \
	X(OPEN, 1, "open")                                                                                    \
	/* a0 fd */                                                                                           \
	X(CLOSE, 2, "close")                                                                                  \
	/* a0 first fd, a1 last fd, a2 CLOSE_RANGE_* flags */                                                 \
	X(CLOSE_RANGE, 3, "close_range")                                                                      \
	/* a0 fd, a1 offset or -1 (the fd's position), a2 bytes asked, a3 1 for a vector call; ret bytes */  \
	X(READ, 4, "read")                                                                                    \
	X(WRITE, 5, "write")                                                                                  \
	/* a0 fd, a1 offset, a2 whence; ret the new position */                                              \
	X(LSEEK, 6, "lseek")                                                                                  \
	/* a0 fd, a1 1 for data only (fdatasync, sync_file_range), a2 offset, a3 length (sync_file_range) */ \
	X(FSYNC, 7, "fsync")                                                                                  \
	/* a0 fd (-1: by path p0, with a3 the dirfd), a1 new size */                                          \
	X(TRUNCATE, 8, "truncate")                                                                            \
	/* a0 fd, a1 mode (FALLOC_FL_*), a2 offset, a3 length */                                             \
	X(FALLOCATE, 9, "fallocate")                                                                          \
	/* a0 fd, a1 offset, a2 length, a3 advice: noted, no op */                                            \
	X(FADVISE, 10, "fadvise")                                                                             \
	/* a0 dirfd, a1 AT_* flags, a2 1 for statx, a3 1 when the result is known to be a directory (the \
	 * interposer reads st_mode, strace shows it); p0 (AT_EMPTY_PATH with an empty or absent p0 is the \
	 * fd a0: fstat; the rings do not tell an empty path from none) */                               \
	X(STAT, 11, "stat")                                                                                   \
	/* a0 dirfd, a1 mode asked (R_OK...), a2 AT_* flags; p0 */                                           \
	X(ACCESS, 12, "access")                                                                               \
	/* a0 dirfd, a1 AT_* flags (AT_REMOVEDIR: rmdir); p0 */                                              \
	X(UNLINK, 13, "unlink")                                                                               \
	/* a0 dirfd, a1 mode; p0 */                                                                           \
	X(MKDIR, 14, "mkdir")                                                                                 \
	/* a0 old dirfd, a1 new dirfd, a2 RENAME_* flags; p0 old, p1 new */                                  \
	X(RENAME, 15, "rename")                                                                               \
	/* a0 old dirfd, a1 new dirfd, a2 AT_* flags; p0 existing, p1 new name */                            \
	X(LINK, 16, "link")                                                                                   \
	/* a0 new dirfd; p0 the link's contents (never resolved), p1 the new link */                         \
	X(SYMLINK, 17, "symlink")                                                                             \
	/* a0 dirfd, a1 buffer size; p0 the link, p1 its contents when the tracer shows them (strace); ret the \
	 * contents' length */                                                                                \
	X(READLINK, 18, "readlink")                                                                           \
	/* a0 fd (-1: by path p0, with a1 the dirfd), a2 mode, a3 AT_* flags */                               \
	X(CHMOD, 19, "chmod")                                                                                 \
	/* a0 fd (-1: by path), a1 dirfd, a2 uid (-1 unchanged), a3 gid (-1 unchanged), a4 AT_* flags; p0 */  \
	X(CHOWN, 20, "chown")                                                                                 \
	/* a0 fd (-1: by path), a1 dirfd, a2 atime ns, a3 mtime ns (UTIME_NOW/UTIME_OMIT as in a timespec's \
	 * tv_nsec: -1 now, -2 omit), a4 AT_* flags; p0 */                                                     \
	X(UTIMENS, 21, "utimens")                                                                             \
	/* a0 fd, a1 bytes asked, a2 entries returned when a3 is 1 (strace counts them); ret bytes returned    \
	 * (getdents64) */                                                                                    \
	X(GETDENTS, 22, "getdents")                                                                           \
	/* a0 fd of the DIR, a1 entries returned by this run of readdir calls, a2 1 when the run hit the end */ \
	X(READDIR, 23, "readdir")                                                                             \
	/* a0 fd, a1 F_SETLK/F_SETLKW/F_GETLK/F_OFD_* command, a2 l_type, a3 l_whence, a4 l_start, a5 l_len */ \
	X(LOCK, 24, "lock")                                                                                   \
	/* a0 fd, a1 LOCK_* operation */                                                                      \
	X(FLOCK, 25, "flock")                                                                                 \
	/* a0 old fd, a1 wanted fd (-1: lowest free, dup; >= 0 dup2/dup3; F_DUPFD: a3 1 and a1 the minimum),  \
	 * a2 O_CLOEXEC when the new fd has it; ret the new fd */                                             \
	X(DUP, 26, "dup")                                                                                     \
	/* a0 fd, a1 1 to set close-on-exec, 0 to clear (F_SETFD) */                                          \
	X(CLOEXEC, 27, "cloexec")                                                                             \
	/* a0 in fd, a1 in offset or -1, a2 out fd, a3 out offset or -1, a4 length, a5 1 copy_file_range,      \
	 * 2 sendfile, 3 splice; ret bytes */                                                                 \
	X(COPY, 28, "copy")                                                                                   \
	/* a0 fd, a1 offset, a2 length, a3 prot, a4 flags (a file mapping; anonymous ones are not events) */  \
	X(MMAP, 29, "mmap")                                                                                   \
	/* a0 fd (-1: by path p0) */                                                                          \
	X(CHDIR, 30, "chdir")                                                                                 \
	/* a0 fd (-1: by path p0), statfs */                                                                  \
	X(STATFS, 31, "statfs")                                                                               \
	/* a0 dirfd, a1 mode (type bits and permissions), a2 dev; p0 */                                       \
	X(MKNOD, 32, "mknod")                                                                                 \
	/* a0 fd (-1: by path), a1 0 get, 1 set, 2 list, 3 remove, a2 1 for the l* form (no follow), a3 size; \
	 * p0 path, p1 attribute name */                                                                      \
	X(XATTR, 33, "xattr")                                                                                 \
	/* Process events, no libc call of the program's own.                                                 \
	 * START: a process image begins (the first process, a posix_spawn child, or the same pid after an    \
	 * exec: the model tells them apart); a0 parent pid; p0 the working directory.  Followed by one FD    \
	 * event per fd open at that moment (the snapshot is what the process really holds). */             \
	X(START, 40, "start")                                                                                 \
	/* an fd open at START: a0 fd, a1 O_* status flags, a2 FD_CLOEXEC, a3 position, a4 1 for a regular   \
	 * file or directory; p0 its /proc/self/fd name.  With a5 1, outside any START: the name a tracer      \
	 * shows for an fd a call uses (strace -y; a0 AT_FDCWD: the working directory), a4 1 for a path, 0 a  \
	 * pipe or socket (the fd becomes one, seen before or not), p0 absent when none is shown: an fd never  \
	 * seen becomes a file so named, and a file fd keeps the path its open asked for until the shown name \
	 * changes (symlinks resolved), then takes it; a2 and a3 are not used */                              \
	X(FD, 41, "fd")                                                                                       \
	/* a child process begins: a0 the parent's pid; emitted first in the child by fork/vfork.  a1 1: sent \
	 * by a tracer that sees the clone call's result (strace), t_start, t_end, ret and flags the call's:  \
	 * a0 the calling thread's tid, a2 1 when the child shares the caller's fd table (CLONE_FILES: pid is \
	 * the caller's, tid the new thread's); ret < 0 or NOEND: no child, pid and tid the caller's.  A     \
	 * child already seen (its events came first) takes the caller's fds it lacks */                     \
	X(FORK, 42, "fork")                                                                                   \
	/* exec is called: p0 the path asked, a0 dirfd (execveat); sent before the call with ret 0, and again \
	 * with ret -errno if the call returns (it failed).  a1 1: sent once at the call's end by a tracer    \
	 * that sees its result and sends no START after it (strace): ret 0 is the exec done */              \
	X(EXEC, 43, "exec")                                                                                   \
	/* the program will run without the interposer: a0 1 static, 2 secure execution (set-id, file         \
	 * capabilities), 3 no LD_PRELOAD in its environment, 4 out of the spool's reach (its user cannot     \
	 * make rings there: a user change); a1 the effective uid it runs as (the interposer's); p0 the path */\
	X(UNTRACED, 44, "untraced")                                                                           \
	/* the process ends: a0 exit status (-1: unknown, main returned rather than calling exit) */          \
	X(EXIT, 45, "exit")                                                                                   \
	/* the tracer lost events: a0 how many (a ring overflowed, a path did not fit) */                    \
	X(LOST, 46, "lost")                                                                                   \
	/* a child process was reaped (wait, waitpid, wait3, wait4, waitid): a0 and ret its pid; a note at    \
	 * the call's return (t_start = t_end), so everything the child did is before it */                   \
	X(WAIT, 47, "wait")

#define RP__SYSEV_ENUM(e, n, name) RP_SYSEV_##e = n,
typedef enum rp_sysev_nr { RP_SYSEV_MAP(RP__SYSEV_ENUM) RP_SYSEV__MAX = 64 } rp_sysev_nr;
#undef RP__SYSEV_ENUM

/* Longest path kept (PATH_MAX); longer ones are cut and flagged. */
#define RP_SYSEV_PATH_MAX 4096
#define RP_SYSEV_ARGS 6

/* rp_sysev.flags */
enum rp_sysev_flag {
	RP_SYSEV_CUT0 = 1u << 0,  /* p0 was cut at RP_SYSEV_PATH_MAX */
	RP_SYSEV_CUT1 = 1u << 1,  /* p1 was cut */
	RP_SYSEV_STDIO = 1u << 2, /* made by a library call whose syscalls are internal (stdio's fopen, fread...;
	                           * opendir, readdir, closedir), not by a syscall wrapper */
	RP_SYSEV_NOEND = 1u << 3, /* the call never returned (the process died in it): ret and t_end unknown */
};

typedef struct rp_sysev {
	uint16_t nr;    /* rp_sysev_nr */
	uint16_t flags; /* rp_sysev_flag */
	uint32_t pid, tid;
	int64_t ret;
	uint64_t t_start, t_end; /* ns, CLOCK_MONOTONIC of the traced host (or its TSC mapped to ns: docs/syscall-capture.md) */
	int64_t a[RP_SYSEV_ARGS];
	const char *p[2]; /* not NUL-terminated; NULL when absent */
	uint32_t plen[2];
} rp_sysev;

/* "open", ...; NULL for a number not in the map. */
const char *rp_sysev_name(unsigned nr);

/* ---- the model: events -> ops ---------------------------------------------- */

#include "formats/sink.h"

typedef struct rp_sysmodel rp_sysmodel;

typedef struct rp_sysmodel_opts {
	const char *only;    /* keep ops on paths under this directory (absolute); NULL = all */
	const char *exclude; /* comma-separated path prefixes whose ops are dropped; NULL = "/proc,/sys,/dev" */
	bool process_clients;    /* a client per process (default: a client per thread, as the strace importer) */
	uint32_t max_clients;    /* 0 = 65536 */
	int64_t clock_offset_ns; /* Unix time minus the events' clock, for the trace's start time */
	bool unix_clock;         /* the events' clock is Unix time (strace -ttt): the trace starts at the first
				  * event, and a trace without events has no clock (not timed) */
	uint32_t source;         /* rp_source for the trace's metadata (RP_SRC_SYSCALL, RP_SRC_CTF) */
	const char *source_name; /* the command line or input, for the metadata */
} rp_sysmodel_opts;

/* What the model made and what it counted instead (reported by `reprise capture` and convert). */
typedef struct rp_sysmodel_stats {
	uint64_t events, ops;
	uint64_t processes, threads, execs;
	uint64_t nonfile;    /* calls on pipes, sockets, terminals: no op */
	uint64_t filtered;   /* ops dropped by --only/--exclude */
	uint64_t unknown_fd; /* calls on an fd the model never saw opened */
	uint64_t cut_paths;  /* paths cut at RP_SYSEV_PATH_MAX */
	uint64_t lost;       /* events the tracer lost (LOST events) */
	uint64_t untraced;   /* programs that ran without the interposer (UNTRACED events) */
	uint64_t untraced_user; /* of those, the ones out of the spool's reach after a user change (kind 4) */
	uint32_t untraced_uid;  /* the effective uid of the last of those */
	uint64_t unreported; /* execs that never started a traced image (no START after the EXEC) and no UNTRACED said why */
	uint64_t noend;      /* calls that never returned */
	uint64_t late;       /* events older than ops already emitted (out of order) */
	uint64_t bad;        /* events that make no sense (unknown nr, a bad fd, a path where none belongs or with
			      * a NUL inside, a joined path over 64 KiB): no op */
	uint64_t limits;     /* clients, fds or fd slots beyond the model's limits: not tracked */
	uint64_t inexact;    /* ops whose fields are as recorded, not resolved (a lock relative to SEEK_END) */
	uint64_t by_nr[RP_SYSEV__MAX]; /* events by kind */
} rp_sysmodel_stats;

int rp_sysmodel_create(rp_sysmodel **out, rp_sink *sink, const rp_sysmodel_opts *opts, char *errbuf);
/*
 * One event.  Events come in t_start order across every process (the ring
 * writer and the CTF importer merge them so); a process's START/FORK comes
 * before its other events.  0 or a negative rp error (sink failures, limits)
 * with rp_sysmodel_error().  Bad events (unknown nr, a path where none
 * belongs) are counted, never fatal: the producer is outside our control.
 */
int rp_sysmodel_event(rp_sysmodel *m, const rp_sysev *ev);
/* Flush and finish the sink. */
int rp_sysmodel_finish(rp_sysmodel *m);
const rp_sysmodel_stats *rp_sysmodel_get_stats(const rp_sysmodel *m);
const char *rp_sysmodel_error(const rp_sysmodel *m);
void rp_sysmodel_destroy(rp_sysmodel *m); /* NULL is a no-op */

#endif
