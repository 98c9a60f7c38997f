/* The syscall model's state (docs/syscall-capture.md), shared by sysmodel.c (events -> ops) and sysmodel_fd.c (fd tables, paths). */
#ifndef REPRISE_FORMATS_SYSMODEL_INT_H
#define REPRISE_FORMATS_SYSMODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/strtab.h"
#include "formats/sysev.h"

/* fd numbers at or above this are not tracked (Linux's default hard limit is 2^20; real programs stay far below). */
#define RP__SM_FD_MAX 65536u
/* fd slots over every table together: 4 Mi slots, however many processes fork (as the strace importer). */
#define RP__SM_FD_BUDGET (1u << 22)
/* The working directory, as the kernel's AT_FDCWD. */
#define RP__SM_AT_FDCWD (-100)
/* errno values above this are no errno (the kernel's -4095..-1 error range) */
#define RP__SM_ERRNO_MAX 4095

enum rp__sm_fdstate { RP__SM_FREE = 0, RP__SM_FILE, RP__SM_NONFILE };

/* One open fd of a process. */
typedef struct rp__sm_fd {
	uint64_t handle; /* trace-wide: a reused fd number is a new handle */
	uint64_t pos;    /* the file position as the events show it (reads, writes, lseek, the FD snapshot) */
	uint32_t path;   /* local string id, 0 when never named */
	uint32_t seen;   /* the last name a tracer showed for it (FD with a5 1), 0 none: a new one means it moved */
	uint8_t state;   /* rp__sm_fdstate */
	bool cloexec;
	bool hidden; /* its open was dropped by --only/--exclude: its later ops go too */
	bool snap;   /* named by the FD snapshot being read */
} rp__sm_fd;

/* A process: its fd table and working directory, shared by its threads. */
typedef struct rp__sm_proc {
	uint32_t pid;
	uint32_t client; /* its first thread's client: the parent of its forks and threads */
	bool dead;
	bool in_snap; /* FD events of a START are being read */
	bool exec_pending; /* an EXEC about to run an image: the new image's START has not come (yet) */
	bool untraced_said; /* an UNTRACED said why its next image runs untraced */
	uint32_t cap;
	rp__sm_fd *fds;
	uint32_t cwd; /* local string id, 0 while unknown */
} rp__sm_proc;

typedef struct rp__sm_thread {
	uint32_t tid;
	uint32_t proc; /* index in procs: a thread of a process that ended is stale */
	uint32_t client;
} rp__sm_thread;

/* uint32 key -> index + 1 (0: absent); open addressing, grows at half full. */
typedef struct rp__sm_map {
	uint32_t *key, *val;
	uint32_t cap, n;
} rp__sm_map;

/* What the model knows of one local string: its sink id once sent, and the filters' verdict once asked. */
typedef struct rp__sm_str {
	uint32_t sink; /* 0: not sent yet */
	uint8_t verdict; /* RP__SM_V_* */
} rp__sm_str;
enum { RP__SM_V_KNOWN = 1, RP__SM_V_ONLY = 2, RP__SM_V_EXCL = 4 };

struct rp_sysmodel {
	rp_sink *sink;
	rp_sysmodel_opts opts;
	uint32_t max_clients;
	char *only; /* without trailing slashes; "" for "/" */
	uint32_t only_len;
	char *excl; /* the prefixes, NUL-separated */
	uint32_t n_excl;
	uint32_t excl_off[16], excl_len[16];
	rp_strtab *paths; /* the model's own ids: a path reaches the sink only with an op that is kept */
	rp_strtab *out;   /* the sink's ids */
	rp__sm_str *strs; /* by local id: so that an op's paths are not hashed again */
	uint32_t cap_strs;
	rp__sm_proc *procs;
	uint32_t n_procs, cap_procs;
	rp__sm_thread *threads;
	uint32_t n_threads, cap_threads;
	rp__sm_map pidmap, tidmap;
	uint32_t n_clients;
	uint64_t next_handle;
	uint64_t fd_slots;
	bool started, finished;
	uint64_t t0, last;
	char *jbuf; /* a path joined to its directory */
	rp_sysmodel_stats st;
	char name[RP_META_NAME_MAX]; /* the trace's source_name */
	char err[RP_ERRBUF_SIZE];
};

/* What a call made of its event: an op, nothing (counted), or a bad event; a negative rp error. */
enum { R_NONE = 0, R_OP = 1, R_BAD = 2 };

/* One event being turned into an op. */
typedef struct rp__sm_cx {
	rp_sysmodel *m;
	const rp_sysev *ev;
	rp__sm_proc *pr;
	rp_op op;
	bool ok;        /* the call returned and succeeded: ret is its result */
	bool hidden;    /* an op on a handle whose open was filtered */
	int64_t made;   /* the fd this op gave a new handle (open, dup), -1 none */
} rp__sm_cx;

/* The op (or the state change) of a call event (sysmodel_call.c). */
int rp__sm_call(rp__sm_cx *c);

/* An fd argument: a value in an int's range. */
static inline bool rp__sm_fd_ok(int64_t fd)
{
	return fd >= 0 && fd <= INT32_MAX;
}

uint32_t rp__sm_map_get(const rp__sm_map *mp, uint32_t key);
/* 0, or RP_E_NOMEM. */
int rp__sm_map_put(rp__sm_map *mp, uint32_t key, uint32_t val);
void rp__sm_map_free(rp__sm_map *mp);

/* fd's slot in p's table (grown if asked, within the limits: counted); NULL beyond or for a negative fd. */
rp__sm_fd *rp__sm_fd_slot(rp_sysmodel *m, rp__sm_proc *p, int64_t fd, bool grow);
/* A new file fd with a new handle (returned: an fd beyond the limits still gets one, untracked). */
uint64_t rp__sm_new_fd(rp_sysmodel *m, rp__sm_proc *p, int64_t fd, uint32_t path, bool cloexec, uint64_t pos);
/* dst's table becomes a copy of src's (same handles): 0, or 1 when over the fd budget (dst left empty). */
int rp__sm_copy_fds(rp_sysmodel *m, rp__sm_proc *dst, const rp__sm_proc *src);
void rp__sm_drop_fds(rp_sysmodel *m, rp__sm_proc *p);
/* exec: the close-on-exec fds go, without ops. */
void rp__sm_exec(rp__sm_proc *p);

/* s[0..len) as a local string id (> 0), or a negative rp error. */
int64_t rp__sm_intern(rp_sysmodel *m, const char *s, uint32_t len);
/*
 * The path s[0..len) as the op's: absolute as it is, relative joined to dirfd's
 * path (AT_FDCWD: the working directory) and left relative while that is
 * unknown.  1 with *id, 0 when the joined path passes RP_STR_MAX, or a negative rp error.
 */
int rp__sm_path(rp_sysmodel *m, rp__sm_proc *p, int64_t dirfd, const char *s, uint32_t len, uint32_t *id);

/*
 * A rename from -> to (local ids) done: every fd named from, or beneath it,
 * follows its file, as the strace importer's fds follow their -y names.  0 or an rp error.
 */
int rp__sm_renamed(rp_sysmodel *m, uint32_t from, uint32_t to);

#endif
