/* Internal interface of the NFSv4.0/4.1/4.2 decoder: op table, per-op XDR, fattr4, per-capture state (RFC 7530, 8881, 7862, 8276). */
#ifndef REPRISE_CAPTURE_NFS4_INT_H
#define REPRISE_CAPTURE_NFS4_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/rpc/rpc.h"

/* nfs_opnum4 values (RFC 7530 §16, RFC 8881 §18, RFC 7862 §15, RFC 8276 §8.4). */
enum nfs4_opnum {
	OP4_ACCESS = 3, OP4_CLOSE = 4, OP4_COMMIT = 5, OP4_CREATE = 6, OP4_DELEGPURGE = 7,
	OP4_DELEGRETURN = 8, OP4_GETATTR = 9, OP4_GETFH = 10, OP4_LINK = 11, OP4_LOCK = 12,
	OP4_LOCKT = 13, OP4_LOCKU = 14, OP4_LOOKUP = 15, OP4_LOOKUPP = 16, OP4_NVERIFY = 17,
	OP4_OPEN = 18, OP4_OPENATTR = 19, OP4_OPEN_CONFIRM = 20, OP4_OPEN_DOWNGRADE = 21,
	OP4_PUTFH = 22, OP4_PUTPUBFH = 23, OP4_PUTROOTFH = 24, OP4_READ = 25, OP4_READDIR = 26,
	OP4_READLINK = 27, OP4_REMOVE = 28, OP4_RENAME = 29, OP4_RENEW = 30, OP4_RESTOREFH = 31,
	OP4_SAVEFH = 32, OP4_SECINFO = 33, OP4_SETATTR = 34, OP4_SETCLIENTID = 35,
	OP4_SETCLIENTID_CONFIRM = 36, OP4_VERIFY = 37, OP4_WRITE = 38, OP4_RELEASE_LOCKOWNER = 39,
	OP4_BACKCHANNEL_CTL = 40, OP4_BIND_CONN_TO_SESSION = 41, OP4_EXCHANGE_ID = 42,
	OP4_CREATE_SESSION = 43, OP4_DESTROY_SESSION = 44, OP4_FREE_STATEID = 45,
	OP4_GET_DIR_DELEGATION = 46, OP4_GETDEVICEINFO = 47, OP4_GETDEVICELIST = 48,
	OP4_LAYOUTCOMMIT = 49, OP4_LAYOUTGET = 50, OP4_LAYOUTRETURN = 51, OP4_SECINFO_NO_NAME = 52,
	OP4_SEQUENCE = 53, OP4_SET_SSV = 54, OP4_TEST_STATEID = 55, OP4_WANT_DELEGATION = 56,
	OP4_DESTROY_CLIENTID = 57, OP4_RECLAIM_COMPLETE = 58, OP4_ALLOCATE = 59, OP4_COPY = 60,
	OP4_COPY_NOTIFY = 61, OP4_DEALLOCATE = 62, OP4_IO_ADVISE = 63, OP4_LAYOUTERROR = 64,
	OP4_LAYOUTSTATS = 65, OP4_OFFLOAD_CANCEL = 66, OP4_OFFLOAD_STATUS = 67, OP4_READ_PLUS = 68,
	OP4_SEEK = 69, OP4_WRITE_SAME = 70, OP4_CLONE = 71, OP4_GETXATTR = 72, OP4_SETXATTR = 73,
	OP4_LISTXATTRS = 74, OP4_REMOVEXATTR = 75, OP4_ILLEGAL = 10044,
};
#define OP4_LAST OP4_REMOVEXATTR

/* What an op is to reprise. */
typedef enum nfs4_role {
	ROLE_NONE = 0, /* not an NFSv4 op number */
	ROLE_FILE,     /* becomes an op record */
	ROLE_PLUMB,    /* current-fh state machine, sessions, state and layout plumbing: no op */
	ROLE_UNSUP,    /* a file-level op reprise cannot replay: counted unsupported by name */
} nfs4_role;

/* "OPEN", "SEQUENCE"; NULL for an unknown number. */
const char *rp__nfs4_op_name(uint32_t opnum);
/* "NFSv4 OPEN_DOWNGRADE": the name an unsupported op is counted under. */
const char *rp__nfs4_unsup_name(uint32_t opnum);
nfs4_role rp__nfs4_op_role(uint32_t opnum);

typedef struct nfs4_stateid {
	uint32_t seqid;
	uint8_t other[12];
} nfs4_stateid;

/* Special stateids (RFC 8881 §8.2.3). */
typedef enum nfs4_sid_kind { SID_NONE = 0, SID_NORMAL, SID_ANON, SID_BYPASS, SID_CURRENT } nfs4_sid_kind;
nfs4_sid_kind rp__nfs4_sid_kind(const nfs4_stateid *s);

/* What a few attributes of a fattr4 said (RFC 7530 §5). */
typedef struct nfs4_attrs {
	uint32_t mask[3];     /* the first three bitmap words */
	bool has_type, has_size, has_mode, has_uid, has_gid, has_atime, has_mtime, has_fh;
	uint32_t type; /* nfs_ftype4 */
	uint64_t size;
	uint32_t mode;
	uint32_t uid, gid;             /* owner, owner_group when they are numeric ids ("1000") */
	bool uid_numeric, gid_numeric; /* else the name is not an id reprise can replay */
	uint32_t atime_how, mtime_how; /* time_access_set, time_modify_set: RP_NFS_TIME_* (time_how3 numbering) */
	uint64_t atime, mtime;         /* SET_TO_CLIENT_TIME4: ns since the Unix epoch */
	bool atime_ok, mtime_ok;       /* the client time is expressible (not before 1970) */
	const uint8_t *fh; /* FATTR4_FILEHANDLE, pointing into the message */
	size_t fh_len;
	bool complete; /* every attribute present was understood */
} nfs4_attrs;

/* Read a bitmap4 (at most limit words kept, any count stepped over). */
void rp__nfs4_bitmap(rp_cur *c, uint32_t *words, size_t limit);
/* Read a fattr4 (bitmap + attrlist4) and pick out what reprise uses. */
void rp__nfs4_fattr(rp_cur *c, nfs4_attrs *out);
bool rp__nfs4_bit(const uint32_t *mask, unsigned bit);

/*
 * One op's arguments as decoded from a COMPOUND call.  Pointers point into
 * the call message and live only as long as it.
 */
typedef struct nfs4_arg {
	uint32_t opnum;
	const uint8_t *name, *name2; /* LOOKUP/REMOVE/CREATE/OPEN/LINK/SECINFO name; RENAME new name; xattr key */
	size_t name_len, name2_len;
	const uint8_t *fh; /* PUTFH */
	size_t fh_len;
	nfs4_stateid sid; /* READ/WRITE/CLOSE/SETATTR/LOCKU/DELEGRETURN/...; LOCK: open or lock stateid */
	uint64_t offset, length;
	uint32_t count;    /* READ count, WRITE/SETXATTR data bytes, READDIR maxcount, ACCESS bits */
	uint32_t how;      /* WRITE stable_how, CREATE objtype, OPEN claim, LOCK locktype, GETATTR: statfs-ish */
	uint32_t share_access, share_deny;
	bool create;       /* OPEN: OPEN4_CREATE */
	uint32_t createmode;
	nfs4_attrs attrs;  /* SETATTR, CREATE and OPEN create attributes; GETATTR request mask */
	bool data_cut;     /* the op's trailing data is missing (snaplen): usable, but nothing after it */
} nfs4_arg;

/* Results of one op in a COMPOUND reply (pointers into the reply message). */
typedef struct nfs4_res {
	uint32_t opnum, status;
	nfs4_stateid sid, sid2; /* OPEN stateid and delegation stateid; LOCK lock stateid; CLOSE stateid */
	bool has_sid, has_sid2;
	const uint8_t *fh; /* GETFH */
	size_t fh_len;
	uint64_t result; /* bytes read/written, entries, access granted, link/xattr length */
	uint32_t committed;
	nfs4_attrs attrs; /* GETATTR */
	rp_cur dir;       /* READDIR: the entry list, for rp__nfs4_dirent */
	/* LAYOUTGET of a file layout: the data servers' handles for the file (RFC 8881 §13.3) */
	const uint8_t *ds_fh[8];
	size_t ds_len[8];
	uint32_t n_ds;
	bool data_cut;
} nfs4_res;

/* Outcome of stepping over one op. */
typedef enum nfs4_step {
	STEP_OK = 0,
	STEP_ERR,     /* the bytes ran out or a value breaks the XDR rules (truncated or invalid: the caller knows which) */
	STEP_UNKNOWN, /* an op number we do not know: nothing after it can be found */
} nfs4_step;

/* Decode the arguments of op opnum (the number already read). */
nfs4_step rp__nfs4_arg(rp_cur *c, uint32_t opnum, nfs4_arg *a);
/* Decode the result of op opnum (resop and status already read into r). */
nfs4_step rp__nfs4_res(rp_cur *c, nfs4_res *r);
/* One READDIR entry from the entries r->dir points at: false at the end of the list or on error (c->err). */
bool rp__nfs4_dirent(rp_cur *c, const uint8_t **name, size_t *len, nfs4_attrs *attrs);

/* Limits: a longer value is corruption, not data. */
#define NFS4_OPAQUE_LIMIT 1024 /* RFC 7530 NFS4_OPAQUE_LIMIT: owners, client ids */
#define NFS4_TAG_MAX 1024      /* a COMPOUND tag is a short utf8 label */
#define NFS4_NAME_MAX 4096     /* a component4 (servers cap at 255; leave room for hostile tests) */
#define NFS4_DATA_MAX (64u << 20) /* READ/WRITE data: far above any rsize/wsize in use */
#define NFS4_LIST_MAX 65536    /* array counts inside one op (secinfo, devices, stateids) */
#define NFS4_OPS_MAX 8192      /* ops in one COMPOUND: servers allow tens (RFC 8881 ca_maxoperations) */

/* ---- per-capture NFSv4 state (nfs4_state.c) ---- */

typedef struct nfs4_state nfs4_state;
nfs4_state *rp__nfs4_state(rp_capctx *cx); /* created on first use; NULL when out of memory */

/* The handle an open/lock/delegation stateid stands for, 0 if unknown. */
uint64_t rp__nfs4_sid_get(nfs4_state *st, const nfs4_stateid *sid, uint32_t *path);
void rp__nfs4_sid_put(nfs4_state *st, const nfs4_stateid *sid, uint64_t handle, uint32_t path);
void rp__nfs4_sid_forget(nfs4_state *st, const nfs4_stateid *sid);
/* The handle of the newest open of the file at path id, 0 if none is open. */
uint64_t rp__nfs4_open_get(nfs4_state *st, uint32_t path);
void rp__nfs4_open_put(nfs4_state *st, uint32_t path, uint64_t handle);
void rp__nfs4_open_forget(nfs4_state *st, uint32_t path, uint64_t handle);
/* pNFS: a data-server handle that stands for the file at path id (from LAYOUTGET). */
uint32_t rp__nfs4_alias_get(nfs4_state *st, const uint8_t *fh, size_t len);
void rp__nfs4_alias_put(nfs4_state *st, const uint8_t *fh, size_t len, uint32_t path);
/* Is the object at path id known to be a directory (CREATE, GETATTR, READDIR)? */
bool rp__nfs4_is_dir(nfs4_state *st, uint32_t path);
void rp__nfs4_set_dir(nfs4_state *st, uint32_t path, bool dir);

/*
 * ---- a COMPOUND in flight (nfs4_compound.c): built by the call half (nfs4.c),
 * completed by the reply half (nfs4_reply.c) ----
 */

enum nfs4_obj_kind {
	OBJ_FH,    /* a handle from PUTFH */
	OBJ_ROOT,  /* PUTROOTFH / PUTPUBFH */
	OBJ_CHILD, /* name inside another object (LOOKUP, OPEN by name, CREATE) */
	OBJ_PATH,  /* known by path only (LOOKUPP of a handle) */
};

typedef struct nfs4_obj {
	uint8_t kind;
	bool keyed;     /* key is set (and, for a child, registered in the handle map) */
	bool synth;
	int32_t parent; /* OBJ_CHILD */
	uint32_t key_off, key_len;   /* arena: handle bytes, real or virtual */
	uint32_t name_off, name_len; /* arena: OBJ_CHILD name */
	uint32_t path;  /* string id, 0 until asked for */
} nfs4_obj;

typedef struct nfs4_pop {
	uint32_t opnum;
	uint8_t role;
	uint8_t sid_kind;
	bool folded; /* a GETATTR/ACCESS that rides along with the compound's main op */
	rp_slot slot;
	int32_t cur, saved; /* objects current and saved when the op runs; -1 none */
	int32_t made;       /* the object the op makes current (LOOKUP, OPEN by name, CREATE) */
	uint32_t name_off, name_len, name2_off, name2_len;
	nfs4_stateid sid;
	uint32_t how;
	uint32_t path;
} nfs4_pop;

typedef struct nfs4_compound {
	nfs4_pop *ops;
	uint32_t n;
	nfs4_obj *objs;
	uint32_t n_objs, cap_objs;
	uint8_t *arena;
	size_t arena_len, arena_cap;
	bool oom;
} nfs4_compound;

typedef struct nfs4_pending {
	nfs4_compound *c;
} nfs4_pending;

#define NO_OBJ (-1)

/* Bytes an object or op keeps (handles, names) live in the compound's arena. */
static inline const uint8_t *nfs4_key_of(const nfs4_compound *c, const nfs4_obj *o) { return c->arena + o->key_off; }
static inline const char *nfs4_name_of(const nfs4_compound *c, uint32_t off) { return (const char *)c->arena + off; }

void rp__nfs4_compound_free(nfs4_compound *c); /* NULL is a no-op */
/* Copy bytes into the arena; returns their offset (the compound is marked oom on failure). */
uint32_t rp__nfs4_stash(nfs4_compound *c, const void *p, size_t n);
/* Give object i its handle-map key (a child: a virtual handle from its parent's key and name); false if it has none. */
bool rp__nfs4_obj_key(rp_fhmap *m, nfs4_compound *c, int32_t i);
/* The path id of object i (interned on first use); *synth (when given) is set if the path is synthetic. */
uint32_t rp__nfs4_obj_path(rp_capctx *cx, rp_fhmap *m, nfs4_compound *c, int32_t i, bool *synth);

#endif
