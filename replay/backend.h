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
 * 4: rp_breq.zero; rp_backend_ops.schemes and .op_mask, typed options (rp_backend_opt.type,
 *    def, min, max; parsed values in rp_backend_args), client_fini optional.
 * 5: rp_breq.bh2 (copy's destination), rp_breq.hold (the engine's); a backend handle is unique
 *    within the run and valid through every client state of it (dup and fork share one among
 *    clients).  Copy ops reach version 5 backends only (older ones count them unsupported).
 * 6: rp_backend_ops.client_error (optional): a client state lost for good stops its client.
 * 7: rp_breq.escape: the backend refused a path that would leave the target (counted as an escape).
 * 8: submit's busy return, RP_BREQ_BUSY (before it, a full queue returned RP_E_LIMIT: the
 *    engine reads an older backend's RP_E_LIMIT from submit as busy).
 * 9: rp_backend_ops.walk and .remove (optional): --cleanup on a target that is no directory.
 * 10: rp_backend_args.protos (the producers of the trace's ops), rp_backend_ops.report (optional):
 *     how the backend replayed (its mode, ops sent as the recorded request, fallbacks by reason).
 * 11: rp_breq.sent_ns and .done_ns: an asynchronous backend says when a request reached the
 *     target and when its answer came back (the depth and latency "at the target"); a
 *     synchronous submit the engine times itself, unless the backend has RP_BCAP_TIMES.
 *     Older async backends: not measured.
 * 12: rp_backend_args.flags_every (the op flags every op of the trace carries),
 *     rp_backend_report.mode_why (why the backend chose its mode).
 * The engine drives every version from RP_BACKEND_VERSION_MIN on.
 */
#define RP_BACKEND_VERSION 12
#define RP_BACKEND_VERSION_MIN 1

/*
 * (version 8) What submit returns when it cannot take the request now (its
 * queue is full), as fio's FIO_Q_BUSY: nothing of it was started, no
 * callback will run; the engine polls (completions make room) and submits
 * the same request again.  A backend that stays busy through 1000 polls
 * fails the run (RP_E_LIMIT).  Only an RP_BCAP_ASYNC backend may return it.
 */
#define RP_BREQ_BUSY 1

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
	/*
	 * (version 11) A synchronous submit sets rp_breq.sent_ns and done_ns
	 * itself, around its own call of the server (inside a lock the
	 * engine's timing of the whole submit would count as time at the
	 * target: the smb backend's); without it the engine times the submit.
	 */
	RP_BCAP_TIMES = 1u << 5,
	RP_BCAP__KNOWN = (1u << 6) - 1, /* every bit above */
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
	/*
	 * The trace op: its semantic fields (docs/op-model.md).  op->proto and
	 * op->raw are provenance, read on purpose by one backend mode only (the
	 * nfs backend's exact mode sends an NFSv3 op as the RPC it was).
	 */
	const rp_op *op;
	const char *path;  /* NULL if the op has none */
	const char *path2; /* rename/link/symlink target, readdir pattern, xattr name; NULL if none */
	uint64_t bh;       /* in: backend handle for handle ops; out: the new one for open */
	/* Results (status, result, granted, special, escape: the engine clears them before each submit). */
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
	/*
	 * (version 5) copy: the destination's backend handle (bh is the
	 * source's); offset and offset2 of the op are absolute positions.
	 */
	uint64_t bh2;
	/* (version 5) The engine's own bookkeeping of the request (references it holds): backends ignore it. */
	unsigned hold;
	/*
	 * (version 7) Out: the op was refused (status EXDEV) because a path
	 * would leave the target in the backend's own terms (a name its
	 * protocol reads as syntax, as SMB reads a backslash); counted as an
	 * escape, as the engine's own refusals are.  The engine clears it
	 * before each submit.  Last, as every version's fields are, so the
	 * older ones keep their places.
	 */
	bool escape;
	/*
	 * (version 11) Out, for a request with a callback (an RP_BCAP_ASYNC
	 * backend's): CLOCK_MONOTONIC ns when the backend put the request's
	 * first message on the wire (or handed it to the library that writes
	 * it at once), and when its answer was read, right before cb.  The
	 * engine's depth and latency "at the target" are made of them
	 * (docs/replay.md, "Depth, reached and recorded").  A request the
	 * backend answered without the target (a refusal, a failure to
	 * queue) leaves sent_ns 0: not measured.  The engine clears both
	 * before each submit and times a synchronous submit itself (its call
	 * and return), unless the backend says it times its own
	 * (RP_BCAP_TIMES).
	 */
	uint64_t sent_ns, done_ns;
};

/*
 * The type of a backend option's value.  The engine parses every value
 * against its option's entry (type, bounds, choices) before the backend
 * sees it, so a backend reads numbers, never text.  The entry's layout is
 * this ABI's own; the engine reads it through the option descriptor the
 * command line's tables are made of (formats/optdesc.h): one parser, one
 * help renderer for both (a duration: ns, us, ms, s, m or h; a number:
 * decimal or 0x hex).
 */
typedef enum rp_bopt_type {
	RP_BOPT_FLAG,     /* no value: given or not (u = 1 when given) */
	RP_BOPT_BOOL,     /* yes/no, true/false, on/off, 1/0 (u = 1 or 0) */
	RP_BOPT_UINT,     /* a decimal number within min..max */
	RP_BOPT_DURATION, /* a number with ns, us, ms or s (bare: seconds), as ns within min..max */
	RP_BOPT_SIZE,     /* a number of bytes with k, M, G or T (powers of 1024), within min..max */
	RP_BOPT_STRING,   /* text as given, non-empty (s); its grammar, if any, is the backend's */
	RP_BOPT_ENUM,     /* one of choices (u = its index) */
	RP_BOPT__COUNT
} rp_bopt_type;

/*
 * One backend option: its table drives parsing of --backend-opt, the
 * --list-backends and --help text and the man page.  rp_backend_check
 * refuses a table whose entries contradict themselves (a default outside
 * the bounds, an enum without choices).
 */
typedef struct rp_backend_opt {
	const char *name;
	rp_bopt_type type;
	const char *arg;  /* the value's name in help ("OP[@N]"); NULL: the type's ("N", "DURATION", ...) */
	const char *help;
	const char *def;  /* the default, as text parsed like a given value; NULL: none (unset) */
	uint64_t min, max; /* UINT, DURATION (ns), SIZE (bytes): inclusive bounds; max 0 = no upper bound */
	const char *const *choices; /* ENUM: the values, NULL-terminated */
	bool repeat; /* may be given more than once, each item kept in order; otherwise the last one counts */
} rp_backend_opt;

/* A parsed option value: one --backend-opt item, or an option's effective value. */
typedef struct rp_backend_kv {
	const rp_backend_opt *opt; /* its entry in the backend's table */
	const char *key;           /* opt->name */
	const char *value;         /* the text (the default's when not given); NULL for a flag and when unset */
	uint64_t u;                /* FLAG, BOOL: 0 or 1; UINT; DURATION: ns; SIZE: bytes; ENUM: index */
	bool set;                  /* given, or taken from the default */
} rp_backend_kv;

typedef struct rp_backend_args {
	const char *target;     /* directory or URL */
	const rp_backend_kv *kv; /* every item given, in order, parsed (repeatable options: each one) */
	size_t n_kv;
	/*
	 * One per entry of the backend's table, in its order: the last item
	 * given, else the default, else unset (set false, u 0).  Index it by the
	 * table's own enum (designated initialisers keep the two in step).
	 */
	const rp_backend_kv *vals;
	size_t n_vals;
	uint32_t n_clients;
	/*
	 * (version 10) Bit (1 << rp_proto) for every producer the trace's ops
	 * came from (op.proto, RP_PROTO_NONE included for ops without one): a
	 * backend that replays a protocol at its own level (the nfs backend's
	 * exact mode) picks its default from it.
	 */
	uint32_t protos;
	/*
	 * (version 11 engines) The ops the engine will send (the backend's
	 * op_mask and its own), which create may narrow: clear the bits of ops
	 * it cannot express with the options and trace given, and they are
	 * counted unsupported as if its op_mask lacked them.  NULL from an older
	 * engine: the op_mask holds.
	 */
	uint64_t *op_mask;
	/*
	 * (version 12 engines) The op flags (rp_op.flags) every op with a
	 * producer carries (0: none): a backend whose default mode cannot send
	 * what a flag marks (the nfs backend's exact mode, an NFSv4.1 session)
	 * chooses the other one up front.  0 from an older engine.
	 */
	uint32_t flags_every;
} rp_backend_args;

/* One entry beneath the target, as a backend's walk finds it (rp_backend_ops.walk). */
typedef struct rp_backend_entry {
	const char *path; /* relative to the target, '/'-separated: "client1/f" */
	uint64_t id;      /* the server's identity of the object (NFS fileid, SMB file index); 0: none known */
	bool dir;         /* a directory, walked into (a symlink never is) */
} rp_backend_entry;

/* A walk deeper than this stops there (what is below is left alone). */
#define RP_BACKEND_WALK_DEPTH 128

/* At most this many counts in a backend's report. */
#define RP_BACKEND_REPORT_MAX 16

/*
 * (version 10) How a backend replayed the run, for the summary and the JSON
 * (docs/replay.md): its strings are static (they outlive the backend).
 */
typedef struct rp_backend_report {
	const char *mode;       /* "exact", "semantic"; NULL: the backend has no modes */
	uint64_t protocol_ops;  /* ops sent as the request they were recorded as (exact mode) */
	struct {
		const char *reason; /* why an op went the other way ("unknown parent fh") */
		uint64_t count;
	} fallbacks[RP_BACKEND_REPORT_MAX];
	size_t n_fallbacks;     /* reasons, each with a count > 0 */
	/* Requests of the backend's own that the trace did not make (NFSv4 lease renewals): not the trace's ops. */
	uint64_t own_requests;
	/* (version 12) Why the backend chose its mode when the user left it to it ("auto: ..."); NULL: nothing to say. */
	const char *mode_why;
	/*
	 * (appended; zeroed for a backend that does not know them) Of
	 * own_requests: blocking locks sent again after the target denied them
	 * (NFSv4 LOCK polls), lock-owners released (RELEASE_LOCKOWNER); and the
	 * blocking locks still denied when the backend's bound ran out (failed).
	 */
	uint64_t lock_polls, lock_releases, lock_expired;
} rp_backend_report;

/* Every op (a backend's op_mask of 0 also means every op). */
#define RP_BACKEND_ALL_OPS ((UINT64_C(1) << RP_OP__COUNT) - 1)
_Static_assert(RP_OP__COUNT < 64, "op_mask is a uint64_t over rp_opcode");

typedef struct rp_backend_ops {
	int version; /* RP_BACKEND_VERSION */
	const char *name;
	const char *summary;
	unsigned caps;            /* rp_backend_cap; bits outside RP_BCAP__KNOWN are refused */
	/*
	 * Bytes of per-client state the engine allocates (zeroed).  0: the
	 * backend keeps none, so it has no client_fini and is not RP_BCAP_ASYNC
	 * (completions are queued per client).
	 */
	size_t client_size;
	const rp_backend_opt *opts; /* terminated by a NULL name; NULL if none */
	/*
	 * (version 4) The URL schemes of targets it serves ("nfs" for nfs://...),
	 * NULL-terminated; "" stands for a target that is no URL (a directory
	 * path).  Without --backend the target's scheme picks the backend.  NULL:
	 * none, the backend is only chosen by name and ignores the target's form.
	 */
	const char *const *schemes;
	/*
	 * (version 4) The ops it can express (dup and fork are the engine's own:
	 * they never reach a backend, whatever its mask says), bit (1 << rp_opcode) each; 0 means
	 * every op.  The engine never sends it another one: such an op is counted
	 * as unsupported (rp_replay_opstats.unsupported), as are the ops on a
	 * handle whose open was.
	 */
	uint64_t op_mask;

	/* Whole-run state from the target and options; 0 or an rp error with detail. */
	int (*create)(void **backend, const rp_backend_args *args, char *errbuf);
	void (*destroy)(void *backend);
	/*
	 * Client state in `client` (client_size bytes) for a client that works in
	 * `dir` beneath the target ("" = the target itself; created if missing).
	 * Called from the client's own thread.
	 */
	int (*client_init)(void *backend, void *client, const char *dir, char *errbuf);
	void (*client_fini)(void *backend, void *client); /* NULL: nothing to undo */
	/*
	 * Start (sync: do) one request.  Returns 0; failures of the op go in
	 * req->status.  (version 8) An async backend whose queue is full returns
	 * RP_BREQ_BUSY.  A backend that cannot go on (its server went away or
	 * refuses it) returns an rp error (RP_E_IO) after setting the status:
	 * the engine stops the run with an error naming the target, the op and
	 * that status, whatever the backend's version and caps.
	 */
	int (*submit)(void *backend, void *client, rp_breq *req);
	/*
	 * Async backends (required with RP_BCAP_ASYNC): run completions, waiting up to timeout_ns; returns how many
	 * completed.  A client waiting for a recorded time with nothing in flight polls it (timeout 0) once a
	 * second of the wait: what it keeps up by requests of its own (a lease) it renews then.
	 */
	int (*poll)(void *backend, void *client, uint64_t timeout_ns);
	/* Release a backend handle without a trace op (end of a loop pass, cleanup). */
	void (*release)(void *backend, void *client, uint64_t bh);
	/*
	 * (version 6; NULL: never) Whether the client state can go on: 0, or an
	 * rp error with what happened in errbuf when it is lost for good (a
	 * network backend's connection is gone: every request would fail).  The
	 * engine asks before each op and each prepare item; a lost client stops
	 * with stop "error" (the run reports what it completed and fails) instead
	 * of replaying the rest of its trace into failures.
	 */
	int (*client_error)(void *backend, void *client, char *errbuf);
	/*
	 * (version 9; NULL: cannot) --cleanup on a target that is no directory
	 * (replay/cleanup_net.c), both on a client state of the target itself
	 * (client_init with dir ""), through the backend's own confined calls.
	 * walk calls fn for every entry beneath the target, the entries of a
	 * directory before the directory, never through a symlink, at most
	 * RP_BACKEND_WALK_DEPTH deep; fn's non-zero return stops it with that
	 * return.  0 or an rp error.  remove removes the entry at path (a file,
	 * a symlink, or a directory, which must be empty): 0 or an errno.
	 */
	int (*walk)(void *backend, void *client, int (*fn)(void *arg, const rp_backend_entry *e), void *arg,
		    char *errbuf);
	int (*remove)(void *backend, void *client, const char *path, bool dir);
	/*
	 * (version 10; NULL: nothing to say) Fill out (zeroed by the engine) with
	 * how the run was replayed; called once every client has stopped.
	 */
	void (*report)(void *backend, rp_backend_report *out);
} rp_backend_ops;

/*
 * Whether ops is a vtable this engine can drive (fio's check_engine_ops):
 * its version in RP_BACKEND_VERSION_MIN..RP_BACKEND_VERSION, a name, the
 * hooks it must have (create, destroy, client_init, submit, release; poll
 * with RP_BCAP_ASYNC), no hook that needs client state it says it has none
 * of, no unknown caps or op bits, well-formed schemes and an option table
 * whose types, bounds, choices and defaults agree.  0 or RP_E_VERSION /
 * RP_E_INVAL with what is wrong.  rp_replay_create calls it on the chosen backend.
 */
int rp_backend_check(const rp_backend_ops *ops, char *errbuf);

/*
 * The built-in backends, NULL-terminated: the ones linked in.  A backend
 * whose library is costly to load (libsmbclient) is built as a module,
 * "reprise-backend-NAME.so", opened on first use from $REPRISE_MODULE_DIR,
 * else replay/ of the build tree the program runs from, else the install
 * directory (libdir/reprise); it exports its vtable as rp__backend_NAME.
 */
extern const rp_backend_ops *const rp__backends[];
/* Linked in or a module that loads; NULL otherwise (rp_backend_find_module says why). */
const rp_backend_ops *rp_backend_find(const char *name);
/* A module backend by name: 0, or RP_E_UNSUPPORTED with why it is not there (no such module, dlerror). */
int rp_backend_find_module(const char *name, const rp_backend_ops **out, char *errbuf);
/* The i-th backend: the linked-in ones, then the modules that load; NULL past the end. */
const rp_backend_ops *rp_backend_at(size_t i);
/* Where module file would be looked for (the rule above): 0, or -1 when the path is too long. */
int rp__backend_module_path(const char *file, char *buf, size_t cap);
/* dlopen path and take its vtable symbol (tests: any module): 0 or RP_E_UNSUPPORTED with dlerror's text. */
int rp__backend_module_open(const char *path, const char *symbol, const rp_backend_ops **out, char *errbuf);

/*
 * The backend a target asks for when none is named: the one declaring its
 * URL scheme ("" for a plain path).  RP_E_UNSUPPORTED naming the known
 * schemes when none does, or naming the backend this build lacks.
 */
int rp_backend_for_target(const char *target, const rp_backend_ops **out, char *errbuf);
/* Whether ops declares the scheme of target; true for a backend that declares none (it ignores the target). */
bool rp_backend_serves(const rp_backend_ops *ops, const char *target);

/* Options parsed against a backend's table (rp_backend_parse_opts). */
typedef struct rp_backend_parsed {
	rp_backend_kv *kv; /* every item given, in order */
	size_t n_kv;
	rp_backend_kv *vals; /* one per table entry (rp_backend_args.vals) */
	size_t n_vals;
	char *storage; /* the strings kv and vals point into */
	size_t storage_len; /* its bytes, zeroed when freed */
} rp_backend_parsed;

/*
 * One backend option as given, before parsing: a --backend-opt item, or one
 * of the CLI's own options routed to the backend (--sync, --user).  The
 * value is NULL for a flag; it is taken whole (a ',' in it is a ','), so a
 * password or a file name goes through as written.
 */
typedef struct rp_backend_item {
	const char *key;
	const char *value;
} rp_backend_item;

/*
 * Split the list s ("a=1,b,,c=x", as --backend-opt takes it) in place into
 * items (empty ones skipped), pointing into s: at most cap of them.  The
 * number of items, or -1 when there are more than cap.
 */
long rp_backend_split_opts(char *s, rp_backend_item *items, size_t cap);

/*
 * Parse n items, each against its entry in ops->opts (its type and bounds),
 * and fill in the defaults; the values are copied (out->storage, zeroed when
 * freed: a password may be among them).  0, or RP_E_INVAL / RP_E_RANGE
 * naming the option; *out is empty on failure.
 */
int rp_backend_parse_items(const rp_backend_ops *ops, const rp_backend_item *items, size_t n, rp_backend_parsed *out,
			   char *errbuf);
/* The same for a list "a=1,b,c=x", split first (rp_backend_split_opts). */
int rp_backend_parse_opts(const rp_backend_ops *ops, const char *spec, rp_backend_parsed *out, char *errbuf);
/* The same for the items of the list spec (NULL: none), then the n_more items of more. */
int rp_backend_parse_list(const rp_backend_ops *ops, const char *spec, const rp_backend_item *more, size_t n_more,
			  rp_backend_parsed *out, char *errbuf);
void rp_backend_parsed_free(rp_backend_parsed *p);

/* One value parsed against opt's type and bounds: 0, or RP_E_INVAL / RP_E_RANGE with detail. */
int rp_backend_parse_value(const rp_backend_opt *opt, const char *text, uint64_t *u, char *errbuf);
/* The type's name ("duration") and a value of it as text ("2ms", "16M", an enum choice). */
const char *rp_bopt_type_name(rp_bopt_type t);
/* The value's name in help and errors: opt->arg, else the type's ("N", "DURATION", "SIZE"). */
const char *rp_bopt_arg(const rp_backend_opt *opt);
void rp_bopt_format(const rp_backend_opt *opt, uint64_t u, char *buf, size_t n);
/* What help says of opt beyond its text: "uint, default 4, 1 to 64" (the shared renderer, formats/optdesc.h). */
void rp_bopt_terms(const rp_backend_opt *opt, char *buf, size_t n);

#endif
