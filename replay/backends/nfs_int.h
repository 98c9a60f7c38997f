/*
 * The nfs backend's internal state (libnfs 4.0, asynchronous API), shared by its files, each calling
 * only those below it: nfs.c (the vtable, the event loop) -> nfs_exact.c (exact mode: an NFSv3 op as
 * its own RPC), nfs4_exact.c (an NFSv4.0 op as its own COMPOUND; below it nfs4_build.c) and nfs_ops.c (the semantic path: opens, I/O, the symlink check) -> nfs_meta.c
 * (attributes, the namespace, listings) -> nfs_conn.c (contexts, mounts) -> nfs_req.c (a request's
 * bookkeeping) -> nfs_names.c, nfs_fhmap.c, nfs_util.c (no libnfs).
 */
#ifndef REPRISE_REPLAY_NFS_INT_H
#define REPRISE_REPLAY_NFS_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/backend.h"

/* libnfs 4.0's NFSv4 WRITE fails to encode past 3944 bytes (measured against ganesha 4.3): v4 writes go in pieces this big. */
#define RP_NFS4_WRITE_CHUNK 3072u
/* NFSv4 reports no read size (0); past what the server takes (ganesha: 1 MiB) the connection is dropped. */
#define RP_NFS4_READ_CHUNK (256u * 1024u)
/* Pieces of a read or write never pass this, whatever the server says (the write pattern buffer's size). */
#define RP_NFS_IO_MAX (1u << 20)
/* A directory tree deeper than this is an attack on the stack, not a workload (deltree). */
#define RP_NFS_DELTREE_DEPTH 128
/* The longest target URL taken (libnfs keeps it in fixed buffers of its own too). */
#define RP_NFS_URL_MAX 4096

/* What the URL's query says that the backend needs itself (libnfs parses the rest). */
typedef struct rp_nfs_url_info {
	int version; /* 3 (default) or 4 */
	unsigned nfsport, mountport; /* the URL's nfsport= and mountport=; 0 when not given */
} rp_nfs_url_info;

/*
 * A mount that failed, for a message in the user's terms: what libnfs said
 * and, when that names no protocol error (its "nfs_service failed" for a
 * refused connection), what a TCP connection to each port found.
 */
typedef struct rp_nfs_mount_fail {
	const char *host, *path; /* the server as the URL names it, the path mounted */
	const char *lib;         /* libnfs's error text */
	int version;             /* 3 or 4 */
	unsigned nfsport, mountport; /* the URL's; 0 when not given (the portmapper's, or 2049 for NFSv4) */
	/* A connection to the portmapper (111), the MOUNT port, the NFS port: 0 made, an errno, -1 not tried. */
	int pmap_err, mnt_err, nfs_err;
} rp_nfs_mount_fail;

/* The protocol error libnfs's text names (MNT3ERR_..., NFS3ERR_..., NFS4ERR_...) into buf ("" if none). */
void rp__nfs_error_code(const char *lib, char *buf, size_t cap);
/* What failed and what to do, for "URL: mount HOST:PATH failed: <this>". */
void rp__nfs_mount_why(const rp_nfs_mount_fail *f, char *buf, size_t cap);

/*
 * Check a target URL's form (nfs://host/export[/dir][?key=value&...]) and
 * read its NFS version: 0, or RP_E_INVAL naming what is wrong (no host, no
 * export path, a version other than 3 or 4, an option libnfs 4.0 does not
 * know, a value that is no number).
 */
int rp__nfs_url_check(const char *url, rp_nfs_url_info *info, char *errbuf);

/* The canonical status of a libnfs result: 0 for rc >= 0, else its errno (host numbering), OTHER past 4095. */
int32_t rp__nfs_status(int rc);

/*
 * NFSv4.0 exact mode's rules (nfs4_exact.c), without libnfs.  Whether a
 * reply of status st (nfsstat4) to an OPEN, OPEN_CONFIRM or CLOSE moves the
 * open-owner's seqid: every status but those that say the server did not
 * take the request in turn (RFC 7530 §9.1.7).
 */
bool rp__nfs4_seqid_moves(uint32_t st);
/*
 * Whether a COMPOUND's gathered LOOKUPs pre[0..n) lead to at: each names a
 * child of the one before, and the last is at's directory (dir_of: an op
 * on a name in it) or at itself.  Paths with or without a leading "/".
 */
bool rp__nfs4_lookups_lead(const char *const *pre, unsigned n, const char *at, bool dir_of);

/* The setattr attributes the nfs backend sets, one RPC each, in this order. */
enum {
	RP_NFS_SA_SIZE = 1u << 0,
	RP_NFS_SA_MODE = 1u << 1,
	RP_NFS_SA_OWNER = 1u << 2,
	RP_NFS_SA_TIMES = 1u << 3,
};
/* The steps a setattr's attrs (rp_setattr_flag) need; 0 means none: a GETATTR stands in. */
unsigned rp__nfs_setattr_steps(uint32_t attrs);

/*
 * nfs_names.c: the checked names of a client (nfs_ops.c's check of every
 * component's type, from the server's LOOKUP or GETATTR replies, before a
 * path is acted through).  An entry is a name in a directory entry (or the
 * root): a directory with its file handle, or something else that is no
 * symlink.  Forgetting a path forgets what is beneath it too; any forget
 * moves the epoch, so a LOOKUP sent before it adds nothing.  Bounded: past
 * max entries it starts again.
 */
#define RP_NFS_NAMES_MAX 4096u
#define RP_NFS_FH_MAX 64u /* NFS3_FHSIZE */
#define RP_NFS_NAMES_ROOT (UINT32_MAX - 1) /* the parent of the root's names */
#define RP_NFS_NAMES_NONE UINT32_MAX       /* not there; as a parent, nothing is beneath it */
enum { RP_NFS_NAME_DIR = 1, RP_NFS_NAME_OTHER = 2 };

typedef struct rp_nfs_name {
	char *name;
	uint32_t len, parent, hash;
	uint8_t kind, dead, fhlen;
	unsigned char fh[RP_NFS_FH_MAX];
} rp_nfs_name;

typedef struct rp_nfs_names {
	rp_nfs_name *nodes; /* n made since the last reset (dead ones too), room for cap */
	uint32_t n, cap, live, max;
	uint32_t *index; /* slots (a power of 2), open addressing, RP_NFS_NAMES_NONE empty */
	uint32_t slots, used;
	uint64_t epoch;  /* moves with every forget and reset */
	uint64_t resets; /* for tests and figures */
} rp_nfs_names;

void rp__nfs_names_init(rp_nfs_names *n, uint32_t max); /* max 0: RP_NFS_NAMES_MAX */
void rp__nfs_names_fini(rp_nfs_names *n);
/* Forget everything (a change nobody said where: another client's). */
void rp__nfs_names_reset(rp_nfs_names *n);
/* The entry of name (len bytes) in the entry parent (RP_NFS_NAMES_ROOT: the root), or RP_NFS_NAMES_NONE. */
uint32_t rp__nfs_names_find(const rp_nfs_names *n, uint32_t parent, const char *name, size_t len);
/* The entry of a "/"-separated path walked from the root (RP_NFS_NAMES_ROOT for "/"), or RP_NFS_NAMES_NONE. */
uint32_t rp__nfs_names_walk(const rp_nfs_names *n, const char *path);
/*
 * Remember name in parent as kind (fh: a directory's handle, fhlen bytes,
 * at most RP_NFS_FH_MAX), if the epoch is still the one the LOOKUP was sent
 * in: its index, or RP_NFS_NAMES_NONE when not kept.
 */
uint32_t rp__nfs_names_add(rp_nfs_names *n, uint64_t epoch, uint32_t parent, const char *name, size_t len, int kind,
			   const void *fh, size_t fhlen);
/* Forget a "/"-separated path and everything beneath it (unlink, rmdir, rename, link, symlink, deltree). */
void rp__nfs_names_forget(rp_nfs_names *n, const char *path);

/*
 * nfs_fhmap.c: exact mode's file handles by path (nfs_exact.c), learned
 * from the target's replies only: the mount's root handle, then LOOKUP,
 * CREATE, MKDIR, SYMLINK, MKNOD, LINK and READDIRPLUS results; REMOVE,
 * RMDIR and RENAME change it.  Paths are the engine's ("/"-separated,
 * relative to the client's directory, "" for it).  Shared by the clients
 * of one mount (under their group's lock).  Bounded: past max nodes the
 * dead ones are dropped, and with none dead a new handle is not kept (its
 * ops fall back, counted).
 */
#define RP_NFS_FHMAP_MAX (1u << 18)
/*
 * The names of every mount's map together (about 150 bytes each): a run of
 * many clients (--clients 100) shares this out, each mount at least
 * RP_NFS_FHMAP_MIN.
 */
#define RP_NFS_FHMAP_TOTAL (1u << 20)
#define RP_NFS_FHMAP_MIN 4096u
#define RP_NFS_FHMAP_NAME_MAX 255u /* NFSv3 servers take no longer name (ganesha: NAME_MAX) */
#define RP_NFS_FHMAP_NONE UINT32_MAX

/*
 * What a name is, as the replies said: its type (LOOKUP's and READDIRPLUS's
 * attributes, the procedure that made it), or absent (a LOOKUP's NOENT, a
 * REMOVE), which has no handle.  UNKNOWN: a handle without attributes.
 */
enum { RP_NFS_FK_UNKNOWN, RP_NFS_FK_FILE, RP_NFS_FK_DIR, RP_NFS_FK_LINK, RP_NFS_FK_OTHER, RP_NFS_FK_ABSENT };

typedef struct rp_nfs_fhnode {
	char *name;
	uint32_t len;
	uint32_t parent; /* the dir id it is in */
	uint32_t dirid;  /* its own as a directory (its children's parent); 0: no directory */
	bool dead;
	uint8_t kind;  /* RP_NFS_FK_* */
	uint8_t fhlen;
	bool list_eof;        /* READDIR(PLUS): the last listing of it reached the end */
	bool list_known;      /* a listing of it was replayed: cookie and verf go on from it */
	uint64_t list_cookie; /* the last entry's cookie of that listing */
	unsigned char list_verf[8];
	unsigned char fh[RP_NFS_FH_MAX];
} rp_nfs_fhnode;

typedef struct rp_nfs_fhmap {
	rp_nfs_fhnode root; /* the mount's root: name "", dir id 1 */
	bool have_root;
	rp_nfs_fhnode *nodes;
	uint32_t n, cap, live, max;
	uint32_t *index; /* slots (a power of 2), open addressing by (parent, name), RP_NFS_FHMAP_NONE empty */
	uint32_t slots, used;
	uint32_t next_dirid;
	uint64_t compactions; /* for tests */
} rp_nfs_fhmap;

void rp__nfs_fhmap_init(rp_nfs_fhmap *m, uint32_t max); /* max 0: RP_NFS_FHMAP_MAX */
void rp__nfs_fhmap_fini(rp_nfs_fhmap *m);
void rp__nfs_fhmap_set_root(rp_nfs_fhmap *m, const void *fh, size_t len);
/* The handle of path (fh points into the map until its next change): false when not known. */
bool rp__nfs_fhmap_get(const rp_nfs_fhmap *m, const char *path, const void **fh, size_t *len);
/* The handle of path's directory and path's last name (pointing into path): false when that directory is not known. */
bool rp__nfs_fhmap_parent(const rp_nfs_fhmap *m, const char *path, const void **fh, size_t *len, const char **name,
			  size_t *name_len);
/*
 * Learn that path is fh, of kind (RP_NFS_FK_*; a DIR or UNKNOWN one may have
 * names beneath it): false when not kept (its directory unknown, full, a
 * name too long).
 */
bool rp__nfs_fhmap_set(rp_nfs_fhmap *m, const char *path, const void *fh, size_t len, int kind);
/* Learn that nothing is at path now (what was there forgotten, with what was beneath it). */
bool rp__nfs_fhmap_absent(rp_nfs_fhmap *m, const char *path);
/* What path is as far as the replies said: RP_NFS_FK_*, or -1 when they said nothing of it. */
int rp__nfs_fhmap_kind(const rp_nfs_fhmap *m, const char *path);
/* Forget path and what is beneath it (REMOVE, RMDIR). */
void rp__nfs_fhmap_forget(rp_nfs_fhmap *m, const char *path);
/* What was at from is at to now, with what is beneath it; what to named is gone.  False when from was not known. */
bool rp__nfs_fhmap_rename(rp_nfs_fhmap *m, const char *from, const char *to);
/* The node of path (NULL: not known), for its listing's state: valid until the map's next change. */
rp_nfs_fhnode *rp__nfs_fhmap_node(rp_nfs_fhmap *m, const char *path);

/*
 * mode=auto's choice for a target of version (3, 4) and a trace whose ops
 * came from the producers protos (rp_backend_args.protos) and all carry the
 * flags flags_every: exact when every op came from that version's decoder
 * and exact mode can send them (an NFSv4.1 session's cannot: no 4.0
 * seqids), else semantic.  *why: the reason when it is not the producers
 * (a static string for the report), else NULL.
 */
bool rp__nfs_auto_exact(unsigned version, uint32_t protos, uint32_t flags_every, const char **why);

#ifdef RP_NFS_LIBNFS
/* The rest needs libnfs: every file of the backend but nfs_util.c and nfs_names.c. */
#include <pthread.h>
#include <time.h>

#include <nfsc/libnfs.h>

/* CLOCK_MONOTONIC ns: the event loop's deadlines, and a request's sent_ns and done_ns (backend.h, version 11). */
static inline uint64_t rp__nfs_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The mount's root file handle: libnfs 4.0 exports it without declaring it
 * in a public header.  Its struct nfs_fh ({int len; char *val;}) has the
 * layout of nfs_fh3, which is what the raw calls take.
 */
struct nfs_fh3;
const struct nfs_fh3 *nfs_get_rootfh(struct nfs_context *nfs);

/* Clients that mount the same directory: a change one makes in the namespace, counted, resets the others' names. */
typedef struct nfs_group {
	struct nfs_group *next;
	char *mount;
	_Atomic uint64_t changes;
	pthread_mutex_t lock; /* fhmap */
	rp_nfs_fhmap fhmap;   /* exact mode: the handles its clients learned (nfs_exact.c) */
} nfs_group;

/*
 * Why an op of exact mode was not sent as the one RPC it was (nfs_exact.c):
 * it went the semantic way, or (UNCHECKED_EXISTING) took RPCs of exact
 * mode's own; counted and reported (the run's JSON, the summary).
 * X(ENUM, "words"); append only.
 */
#define RP_NFS_FALLBACK_MAP(X)                                                                                     \
	X(NOT_NFS3, "not from nfs3")                    /* the op's producer was no NFSv3 decoder */               \
	X(NO_PARENT, "unknown parent fh")               /* the directory of its name was never in a reply */       \
	X(NO_FH, "unknown fh")                          /* nor was the object it acts on */                        \
	X(COOKIE, "readdir cookie")                     /* a listing's continuation with no listing of ours */     \
	X(SIZE, "larger than the server's transfer size") /* a READ or WRITE past rtmax/wtmax */                   \
	X(ATTRS, "attributes nfs3 cannot set")          /* a setattr of SMB's times, DOS bits, delete-on-close */  \
	X(DEVICE, "device or socket node")              /* MKNOD of what the semantic path refuses itself */       \
	X(NO_PROC, "no nfs3 procedure")                 /* an op no NFSv3 call is (deltree, ...) */                \
	X(RAW, "no nfs3 arguments")                     /* its raw fields name no procedure or createhow */    \
	X(UNCHECKED, "unchecked create of a name that is no file") /* ganesha would follow a symlink there */ \
	X(UNCHECKED_EXISTING, "unchecked create of an existing file, checked first") /* GUARDED, LOOKUP, UNCHECKED */ \
	X(NOT_NFS4, "not from nfs4.0")                  /* NFSv4 exact mode: the op's producer was no NFSv4 decoder */ \
	X(SESSION, "nfs4.1 session")                    /* sent in a 4.1 session (SEQUENCE): no 4.0 seqids to map */ \
	X(NO_OP4, "no nfs4.0 exact path")               /* an op nfs4_exact.c does not send (a regular file's mknod, ...) */ \
	X(OWNERS, "more opens of one file than open-owners") /* NFSv4 exact: each open of a file has an owner of its own */ \
	X(OWNER_LOST, "open-owner out of step")         /* NFSv4 exact: a CLOSE of an owner the server refused (BAD_SEQID) */ \
	X(NO_LOCK, "lock on no open of ours")           /* NFSv4 exact: a LOCK or LOCKU with no OPEN (or LOCK) of ours to name */

#define RP__NFS_FB_ENUM(e, name) RP_NFS_FB_##e,
enum { RP_NFS_FALLBACK_MAP(RP__NFS_FB_ENUM) RP_NFS_FB__COUNT };
#undef RP__NFS_FB_ENUM

typedef struct nfs_backend {
	char *url;             /* the target, as given */
	int version;           /* 3 or 4 */
	int timeout_ms;        /* RPC timeout (backend option timeout) */
	unsigned nfsport, mountport; /* the URL's (0: not given), for the errors of a mount */
	bool setid;            /* backend option setid: apply the trace's setuid/setgid bits */
	_Atomic unsigned contexts; /* contexts made so far: each its own NFSv4 client name */
	pthread_mutex_t lock;  /* groups */
	nfs_group *groups;
	bool exact;            /* mode: trace ops as their own RPCs (NFSv3: nfs_exact.c; NFSv4.0: nfs4_exact.c) */
	const char *mode_why;  /* why mode=auto chose semantic when the producers would say exact (static); NULL: none */
	uint32_t fhmap_max;    /* names per mount's map (RP_NFS_FHMAP_TOTAL shared among the clients) */
	_Atomic uint64_t exact_ops; /* sent as their RPC */
	_Atomic uint64_t fallbacks[RP_NFS_FB__COUNT];
	_Atomic uint64_t renewals; /* NFSv4 exact: RENEWs of our own (the trace made none of them) */
	/*
	 * NFSv4 exact, blocking locks (nfs4_lock.c): LOCKs sent again after
	 * NFS4ERR_DENIED, those still denied when lock_wait_ns ran out (ETIMEDOUT),
	 * and the RELEASE_LOCKOWNERs of the lock-owners given up.
	 */
	_Atomic uint64_t lock_polls, lock_expired, lock_releases;
	uint64_t lock_wait_ns; /* backend option lock-wait: how long a blocking lock polls (0: sent once) */
	_Atomic uint64_t verf; /* exclusive CREATEs' verifiers */
} nfs_backend;

typedef struct nreq nreq;

/*
 * NFSv4: one libnfs open per file and client state, shared by every handle
 * on the file (by its fileid).  A second OPEN of a file by one open-owner
 * gets the same server stateid, which libnfs 4.0 keeps per open as if it
 * were its own: a close of one then breaks the other (NFS4ERR_BAD_SEQID).
 * So an entry is made when its OPEN is sent (fh NULL: opening), and an open
 * of the same file meanwhile waits on it and then shares it; the CLOSE goes
 * with its last handle.
 */
typedef struct nopen {
	struct nopen *next;
	struct nfsfh *fh; /* NULL while its OPEN is in flight */
	uint64_t ino;
	unsigned refs;    /* handles on it */
	nreq *waiters;    /* opens of the file waiting for that OPEN (linked by wnext), resumed when it ends */
} nopen;

/* A backend handle: a file open through libnfs, or a directory (named by its path: listings reopen it). */
typedef struct nfile {
	struct nfsfh *fh; /* NULL for a directory */
	char *path;       /* "/"-rooted path beneath the client's mount, for by-path calls on the handle */
	nopen *share;     /* NFSv4: the open it shares (fh is its fh); NULL on NFSv3 */
	bool dir;
	bool exact;       /* made by an exact CREATE: no libnfs open (fh NULL), the server's handle in xfh */
	uint8_t xfhlen;   /* 0: the reply had none */
	unsigned char xfh[RP_NFS_FH_MAX];
	bool sid_ok;      /* NFSv4 exact: opened by an OPEN of ours, whose stateid this is */
	uint8_t owner;    /* NFSv4 exact: the open-owner of that OPEN, of generation gen */
	uint32_t gen;
	uint32_t sid_seq;
	unsigned char sid_other[12];
	/*
	 * NFSv4 exact: the lock-owner of this open (nfs4_lock.c), named by lk_id
	 * and lk_gen; lk_ok once a LOCK of it was granted (its stateid lk_seq,
	 * lk_other; its next seqid lk_seqid), until then its first LOCK carries
	 * open_to_lock_owner4.
	 */
	bool lk_ok;
	uint32_t lk_id, lk_gen, lk_seqid, lk_seq;
	unsigned char lk_other[12];
} nfile;

typedef struct nfs_client {
	nfs_backend *nb;
	struct nfs_context *nfs;
	char *mount;     /* the export path this state mounted (target path + client dir) */
	uint64_t rmax, wmax;
	nreq *live;      /* requests libnfs still holds a callback of (doubly linked) */
	nopen *opens;    /* NFSv4: the files open through this state */
	struct nfs_context *side; /* NFSv4: a second mount of the same directory for SETATTR by path (rp__nfs_side) */
	uint64_t completed; /* engine requests completed so far (poll counts them) */
	bool corked;        /* its socket holds what the submits wrote until the next poll (TCP_CORK; nfs.c) */
	bool held;          /* a lone request queued by a submit, written at the next wait (nfs.c's flush) */
	bool lost;       /* the connection is gone: every request fails EIO, the engine stops the client */
	char lost_msg[RP_ERRBUF_SIZE];
	char *wbuf;      /* the write pattern (0x5a), RP_NFS_IO_MAX bytes */
	char *zbuf;      /* zeros, for prepare --prepare-fill=zero */
	/* The names checked (nfs_ops.c, check_*); the group's changes as last seen (its own included). */
	rp_nfs_names names;
	nfs_group *group;
	uint64_t seen;
	uint64_t lookups; /* LOOKUPs (NFSv4: lstats) the check sent */
	/*
	 * NFSv4: the open-owner's seqid calls (OPEN, CLOSE) go one at a time
	 * (RFC 7530, 9.1.7): libnfs 4.0 numbers an OPEN from the replies it has
	 * had, so two in flight carry one seqid and the server refuses the second
	 * NFS4ERR_BAD_SEQID, then every OPEN after it.  seq_busy: one is in flight;
	 * the requests waiting to send theirs, in order (nfs_req.c).
	 */
	bool seq_busy, seq_running;
	nreq *seq_head, *seq_tail;
	bool ending;     /* client_fini began: nothing more is sent, what waits is let go */
	struct nfs4x *x4; /* NFSv4 exact mode: the client id, open-owner and seqid of our own (nfs4_exact.c) */
} nfs_client;

/*
 * nfs4_exact.c, nfs4_build.c: NFSv4.0 exact mode.  init (after the mount): SETCLIENTID
 * and its CONFIRM of our own, the map's root handle; 0 or an error.  start:
 * true when it took the request (sent, queued or answered), false to go the
 * semantic way.  fini: requests still waiting end EIO.
 */
int rp__nfs4_exact_init(nfs_client *c, char *errbuf);
bool rp__nfs4_exact_start(nfs_client *c, rp_breq *req);
void rp__nfs4_exact_fini(nfs_client *c);
/* From the event loop (rp__nfs_wait): a RENEW of our own once a third of the server's lease passed without one, and the blocking LOCKs due to be sent again. */
void rp__nfs4_exact_idle(nfs_client *c);
/* The earliest time a denied blocking LOCK is sent again (CLOCK_MONOTONIC ns; 0: none waits): the loop wakes for it. */
uint64_t rp__nfs4_exact_due(const nfs_client *c);

/* nfs.c: the event loop. */
/* Wait for and run libnfs completions, up to timeout_ns; returns the engine requests completed (0 on timeout). */
int rp__nfs_wait(nfs_client *c, uint64_t timeout_ns);

/* nfs_clean.c: --cleanup (rp_backend_ops.walk, .remove) on the client's directory, by synchronous calls. */
int rp__nfs_walk(nfs_client *c, int (*fn)(void *arg, const rp_backend_entry *e), void *arg, char *errbuf);
int rp__nfs_remove(nfs_client *c, const char *path, bool dir); /* 0 or an errno */

/* nfs_conn.c: connections. */
/*
 * A context for the backend's URL with its settings (no reconnecting, the
 * RPC timeout, no directory cache, NFSv4: a client name of its own); *url_out:
 * the parsed URL.  0, or an error in errbuf.
 */
int rp__nfs_context(nfs_backend *nb, struct nfs_context **out, struct nfs_url **url_out, char *errbuf);
/* Mount server:export[/dir]: 0, or an error naming the URL and what libnfs said. */
int rp__nfs_mount(const nfs_backend *nb, struct nfs_context *nfs, const char *server, const char *path, char *errbuf);
/*
 * NFSv4: the context that sets attributes by path, mounted on first use
 * (NULL, and the client lost, when it cannot be).  libnfs 4.0 sets them
 * through an OPEN and CLOSE of its own that would break the open-owner of
 * the main context (nfs_ops.c); a context of its own has its own.
 */
struct nfs_context *rp__nfs_side(nfs_client *c);

/* Where an nreq is in its chain. */
enum step {
	S_OPEN,     /* nfs_open2 */
	S_MKDIR_OPEN, /* open of a directory that may create it */
	S_DIRSTAT,  /* the directory an open names */
	S_TMPOPEN,  /* a by-path op's own open (NFSv3 READ/WRITE/COMMIT name a path, no open) */
	S_IO,       /* one piece of a read or write */
	S_COMMIT,   /* after a stable write on an unstable handle, or a flush */
	S_TMPCLOSE, /* the by-path op's close */
	S_CLOSE,
	S_PRESTAT,  /* a setattr's current attributes (what it keeps of them) */
	S_SETATTR,  /* one attribute after another */
	S_SIMPLE,   /* one call, its status is the op's (stat, mkdir, unlink, ...) */
	S_NOREPLACE, /* rename without replacing: is the target there? */
	S_MKNOD_FILE, /* mknod of a regular file: an exclusive create, then close */
	S_READDIR,
	S_V4CHECK,  /* NFSv4: what an open names, before the OPEN (open_checked) */
	S_V4INO,    /* NFSv4: the fileid of a file the OPEN created */
	S_V4TRUNC,  /* NFSv4: an open that empties a file already open here */
	S_CHECK,    /* a LOOKUP (NFSv3) or lstat (NFSv4) of one component of the path the op acts through (check_*) */
	S_LINKLEN,  /* NFSv4: a readlink's length, the link's size (libnfs's text has no NUL) */
	S_V4WAIT,   /* NFSv4: waiting for another request's OPEN of the same file (nopen.waiters) or for its turn to send */
};

/* What a reply to a call of q's chain goes to (the file that sent the call steps it on): libnfs's err and data. */
typedef void nreq_reply_fn(nreq *q, int err, void *data);
/* What a request does when its wait ends (nfs_req.c: its turn to send, another's OPEN of its file done). */
typedef void nreq_fn(nreq *q);

struct nreq {
	nreq *prev, *next; /* the client's live list: libnfs holds one callback of each */
	nreq_reply_fn *reply; /* through rp__nfs_reply_cb */
	nfs_client *c;
	rp_breq *req; /* NULL once orphaned (completed without libnfs, which still holds its callback) */
	enum step step;
	nfile *f;       /* the handle the op works on */
	bool tmp;       /* f was opened by this request, and is closed by it */
	int flags;      /* open: open(2) flags */
	unsigned mode;
	bool fallback_ro, notdir;
	bool ro_only;    /* NFSv4: the read-write OPEN was refused (EACCES): read-only, an open of its own */
	enum step after; /* S_V4CHECK: the step of the OPEN that follows */
	int asked;       /* NFSv4: the access mode the op asked for (files are opened read-write) */
	bool have_ino;   /* NFSv4: st holds the file's attributes from before the OPEN */
	uint64_t off, left, done;
	int status;     /* the op's status, kept while a closing step runs */
	unsigned sa;    /* setattr: steps left (RP_NFS_SA_*) */
	struct nfs_stat_64 st;
	char *path, *path2; /* "/"-rooted */
	/* The check: the path, the next component's offset in it, the directory it is in (entry, handle). */
	const char *chk;
	size_t chk_at;
	uint8_t chk_last;   /* what a symlink as the last component is (enum in nfs_ops.c) */
	uint8_t chk_last2;  /* the same for path2, checked after path */
	uint32_t chk_dir;
	uint64_t chk_epoch;
	uint32_t chk_fhlen;
	unsigned char chk_fh[RP_NFS_FH_MAX]; /* exact LINK: the file's handle */
	uint32_t xproc;     /* exact mode: the NFSv3 procedure sent */
	uint8_t xowner;     /* NFSv4 exact mode: the open-owner of an OPEN, CLOSE or LOCK */
	uint8_t xstage;     /* exact mode, an UNCHECKED CREATE sent GUARDED first: 1 sent so, 2 its LOOKUP (nfs_exact.c);
	                       NFSv4: an OPEN's OPEN_CONFIRM 1, a LOCK with open_to_lock_owner4 1 */
	/* NFSv4 (nfs_req.c): the open-owner's one seqid call, the opens of one file. */
	int send_flags;     /* the flags of the OPEN it sends when its turn comes */
	bool seq;           /* its OPEN or CLOSE is the open-owner's call in flight */
	bool seq_queued;    /* waiting in the open-owner's line (c->seq_head) */
	nopen *opening;     /* the entry whose OPEN it sends: the opens waiting on it go on when that ends */
	nopen *waits;       /* S_V4WAIT: the entry it waits on */
	nreq *wnext;        /* in that entry's waiters, or in the open-owner's line */
	nreq_fn *resume;    /* what it does when its wait ends */
	/*
	 * NFSv4 exact: a blocking LOCK (READW_LT, WRITEW_LT) denied and polled
	 * (nfs4_lock.c): first sent at poll_first_ns, sent again at poll_due_ns
	 * (0: on the wire), the back-off before the next; in the client's list of
	 * such requests (struct nfs4x.polls) by poll_next.
	 */
	uint64_t poll_first_ns, poll_due_ns, poll_backoff_ns;
	nreq *poll_next;
	struct nfsfh *close_fh; /* a close that no engine request waits for (req NULL): its handle, until sent */
};

/* nfs_req.c: a request's bookkeeping, below the ops that step it. */
/* A request for req, its paths "/"-rooted, on the live list; NULL when out of memory (req completed ENOMEM). */
nreq *rp__nfs_req_new(nfs_client *c, rp_breq *req);
/* Complete the engine's request (once) with a positive errno or 0, without an nreq. */
void rp__nfs_complete(nfs_client *c, rp_breq *req, int status);
/* What the client's submits wrote into its corked socket (nfs.c) leaves now: before anything waits for the server. */
void rp__nfs_uncork(nfs_client *c);
/* Complete the request with status (0 or a positive errno) and free it. */
void rp__nfs_finish(nreq *q, int status);
/* After queueing a libnfs call: rc < 0 means it was not queued (no callback will come), and ends the request. */
void rp__nfs_queued(nreq *q, int rc);
/* The libnfs callback of every call of a chain (priv: the nreq): what rp__nfs_reply_ends leaves goes to q->reply. */
void rp__nfs_reply_cb(int err, struct nfs_context *nfs, void *data, void *priv);
/*
 * A reply for q came (err: libnfs's): true when q went with it, freed: an
 * orphan's (the engine has its answer), or an RPC that timed out (the client
 * is lost, every request in flight completed EIO).
 */
bool rp__nfs_reply_ends(nreq *q, int err);
/* The permission bits a trace asks for, as applied (set-id bits only with the setid option). */
unsigned rp__nfs_mode(const nfs_client *c, uint32_t mode);
/* "/" and p, allocated (NULL when out of memory). */
char *rp__nfs_rooted(const char *p);
/* A handle on path (copied); NULL when out of memory. */
nfile *rp__nfs_file_new(const char *path, struct nfsfh *fh, bool dir);
/*
 * Free a handle; the libnfs open to close, if this was its last handle
 * (NULL when none: a directory, or an NFSv4 open other handles still share).
 */
struct nfsfh *rp__nfs_file_drop(nfs_client *c, nfile *f);
/* Send the close of fh, its answer not waited for (a handle no op owns any more); a lost connection's is freed. */
void rp__nfs_close_unwaited(nfs_client *c, struct nfsfh *fh);
/* Close a backend handle without a trace op (its answer not waited for; a lost connection just frees it). */
void rp__nfs_release(nfs_client *c, uint64_t bh);
/*
 * NFSv4: send q's OPEN or CLOSE (the open-owner's seqid calls) through send,
 * now if none of the client's is in flight, else when its turn comes (q
 * waits in line, S_V4WAIT); the turn passes on at the call's reply (or at
 * q's end).  NFSv3, whose opens carry no seqid: now.
 */
void rp__nfs_seq_send(nreq *q, nreq_fn *send);
/* Close fh for q (its reply to q, S_CLOSE), in the open-owner's turn; a close that cannot be sent ends q. */
void rp__nfs_close(nreq *q, struct nfsfh *fh);
/* NFSv4: the client's entry of file ino (NULL: none; fh NULL: its OPEN is in flight). */
nopen *rp__nfs4_find(nfs_client *c, uint64_t ino);
/* NFSv4: a new entry of file ino whose OPEN q sends (q->opening); false when out of memory. */
bool rp__nfs4_opening(nreq *q, uint64_t ino);
/* NFSv4: q waits for o's OPEN (o->fh NULL) to end; then resume runs (q->st and q's flags as they were). */
void rp__nfs4_wait(nreq *q, nopen *o, nreq_fn *resume);
/*
 * NFSv4: q's OPEN ended with fh (the entry is open, one reference: q's
 * handle f, which shares it) or without (fh and f NULL: the entry goes);
 * the opens that waited on it go on either way.
 */
void rp__nfs4_opened(nreq *q, struct nfsfh *fh, nfile *f);
/* Does op change what a name is (the NFSv3 checked names forget it, before it is sent and when it completes)? */
bool rp__nfs_changes_names(int op);
/* Forget path and path2 (either NULL) in the checked names, and count a change for the client's group. */
void rp__nfs_names_changed(nfs_client *c, const char *path, const char *path2);
/* The connection failed for good: say so once (with libnfs's error), fail what is in flight. */
void rp__nfs_lose(nfs_client *c, const char *what);
/* Requests libnfs still holds at the end: completed (EIO) without touching libnfs, freed after the context is. */
void rp__nfs_orphan_all(nfs_client *c);
void rp__nfs_free_orphans(nfs_client *c);

/* nfs_meta.c: attributes, the namespace, listings; each request taken to its end, or handed back. */
/* A setattr, attribute by attribute after a GETATTR (on NFSv4 by path through rp__nfs_side). */
void rp__nfs_setattr_start(nreq *q);
/*
 * Namespace ops, attribute queries (of a path or of an open handle), statfs,
 * readdir, deltree: one call each, mostly, to the request's end (true); false
 * for a mknod of a regular file, which is the caller's exclusive create and
 * close (q->mode set to its mode).
 */
bool rp__nfs_path_op(nreq *q);

/*
 * nfs_exact.c: one engine request as the NFSv3 RPC its op came from (exact
 * mode): true when taken (sent, or completed), false when it goes the
 * semantic way (rp__nfs_start), the reason counted unless it is prepare's.
 */
bool rp__nfs_exact_start(nfs_client *c, rp_breq *req);
/* The words of a fallback reason (RP_NFS_FB_*); NULL past the end. */
const char *rp__nfs_fallback_name(unsigned reason);

/* nfs_ops.c: one engine request through libnfs; completes it (req->cb) now or from rp__nfs_wait. */
void rp__nfs_start(nfs_client *c, rp_breq *req);
#endif

#endif
