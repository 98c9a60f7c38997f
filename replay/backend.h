/*
 * The replay backend interface: a versioned vtable with capability flags,
 * per-client state size and its own option table (in the manner of fio's
 * ioengine_ops and SQLite's sqlite3_io_methods).  Backends are listed in
 * backends/registry.c, built from meson options.
 */
#ifndef REPRISE_REPLAY_BACKEND_H
#define REPRISE_REPLAY_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/error.h"
#include "formats/op.h"

/*
 * Bump when a field is added; a backend states the version it was written against.
 * 2: rp_breq.no_handle.
 * 3: rp_breq.special, rp_breq.granted.
 * 4: rp_breq.zero.
 */
#define RP_BACKEND_VERSION 4

enum rp_backend_cap {
	RP_BCAP_ASYNC = 1u << 0,    /* submit() may complete later: drive it with poll() */
	RP_BCAP_CONFINED = 1u << 1, /* no path can reach outside the target */
	RP_BCAP_DATA = 1u << 2,     /* really moves data (MB/s means something) */
	/*
	 * The backend's server has NT file semantics of its own (an SMB server):
	 * the engine's NT layer (replay/ntsem.c: access checks from an open's
	 * wants, mandatory locks, delete-on-close, end-of-file status, security
	 * checks) stays out of its way.  Every other backend gets that layer.
	 */
	RP_BCAP_NT_NATIVE = 1u << 3,
	/*
	 * submit() and release() may run on one client state from several threads
	 * at once: the in-flight window's workers of a client share its state.
	 * Without it each worker gets a state of its own (client_init with the
	 * client's dir, called on the client's thread), and a backend handle made
	 * through one of a client's states is used and released through another.
	 */
	RP_BCAP_MT_CLIENT = 1u << 4,
};

/*
 * One request, for synchronous and asynchronous backends alike (libuv's
 * uv_fs_t idea): with cb NULL submit() completes it before returning; with a
 * callback an RP_BCAP_ASYNC backend may return at once and call cb from
 * poll().  Paths are normalised by the engine: '/'-separated, relative to the
 * client's directory, no "", "." or ".." components ("" is that directory).
 */
typedef struct rp_breq rp_breq;
struct rp_breq {
	const rp_op *op;   /* the trace op: its semantic fields only (docs/op-model.md), never op->raw */
	const char *path;  /* NULL if the op has none */
	const char *path2; /* rename/link/symlink target, readdir pattern, xattr name; NULL if none */
	uint64_t bh;       /* in: backend handle for handle ops; out: the new one for open */
	/* Results. */
	int32_t status;  /* canonical: 0, errno, or RP_STATUS_OTHER */
	uint64_t result; /* bytes transferred, entries returned */
	/*
	 * (version 3) open: the wants the new handle really has (rp_want), when
	 * the backend had to choose (an open whose wants are unknown or
	 * RP_WANT_MAX); 0 when it did not say.  The NT layer checks I/O against it.
	 */
	uint32_t granted;
	void (*cb)(rp_breq *req);
	void *data; /* the submitter's */
	/*
	 * (version 2) The op needs a handle and the trace gave it none: handle 0
	 * with EBADF recorded, as SMB2 compounds record the ops after a CREATE
	 * that failed.  path and path2 are NULL and bh is 0; the backend fails it
	 * the way its protocol fails an invalid handle (EBADF) and must not
	 * resolve anything by path.  Version 1 backends never see such a request:
	 * the engine answers EBADF for them.
	 */
	bool no_handle;
	/*
	 * (version 3) Out: the op was refused because what its path names is a
	 * FIFO, device or socket where it wanted data (counted as such).  The
	 * engine clears it before each submit.
	 */
	bool special;
	/*
	 * (version 4) A write of zeros rather than the backend's own data
	 * (prepare --prepare-fill=zero); trace writes never set it.  An older
	 * backend writes what it always writes.
	 */
	bool zero;
};

/* One backend option: its table drives parsing of --backend-opt and the help text. */
typedef struct rp_backend_opt {
	const char *name;
	const char *arg; /* NULL: a flag, no value */
	const char *help;
} rp_backend_opt;

/* A parsed --backend-opt item. */
typedef struct rp_backend_kv {
	const char *key;
	const char *value; /* NULL for flags */
} rp_backend_kv;

typedef struct rp_backend_args {
	const char *target;     /* directory or URL */
	const rp_backend_kv *kv; /* validated against the backend's table */
	size_t n_kv;
	uint32_t n_clients;
} rp_backend_args;

typedef struct rp_backend_ops {
	int version; /* RP_BACKEND_VERSION */
	const char *name;
	const char *summary;
	unsigned caps;            /* rp_backend_cap */
	size_t client_size;       /* bytes of per-client state the engine allocates (zeroed) */
	const rp_backend_opt *opts; /* terminated by a NULL name; NULL if none */

	/* Whole-run state from the target and options; 0 or an rp error with detail. */
	int (*create)(void **backend, const rp_backend_args *args, char *errbuf);
	void (*destroy)(void *backend);
	/*
	 * Client state in `client` (client_size bytes) for a client that works in
	 * `dir` beneath the target ("" = the target itself; created if missing).
	 * Called from the client's own thread.
	 */
	int (*client_init)(void *backend, void *client, const char *dir, char *errbuf);
	void (*client_fini)(void *backend, void *client);
	/* Start (sync: do) one request.  Returns 0; failures of the op go in req->status. */
	int (*submit)(void *backend, void *client, rp_breq *req);
	/* Async backends: run completions, waiting up to timeout_ns; returns how many completed. */
	int (*poll)(void *backend, void *client, uint64_t timeout_ns);
	/* Release a backend handle without a trace op (end of a loop pass, cleanup). */
	void (*release)(void *backend, void *client, uint64_t bh);
} rp_backend_ops;

/* The built-in backends, NULL-terminated. */
extern const rp_backend_ops *const rp__backends[];
const rp_backend_ops *rp_backend_find(const char *name); /* NULL if not built in */
const rp_backend_ops *rp_backend_at(size_t i);           /* the i-th built-in one; NULL past the end */

/*
 * Split "a=1,b,c=x" into items checked against ops->opts (repeats allowed).
 * The strings point into *storage (freed by the caller).  0 or RP_E_INVAL with detail.
 */
int rp_backend_parse_opts(const rp_backend_ops *ops, const char *spec, rp_backend_kv **kv, size_t *n,
			  char **storage, char *errbuf);

#endif
