/* The op model: one protocol-neutral record per file operation (DESIGN §3). */
#ifndef REPRISE_FORMATS_OP_H
#define REPRISE_FORMATS_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Fields an op uses.  The canonical text form prints the "always" fields of
 * an op even when zero and every other field only when it is non-zero, so
 * the text is lossless and short.
 */
enum rp_field {
	RP_F_PATH = 1u << 0,
	RP_F_PATH2 = 1u << 1,
	RP_F_HANDLE = 1u << 2,
	RP_F_OFFSET = 1u << 3,
	RP_F_LENGTH = 1u << 4,
	RP_F_RESULT = 1u << 5,
	RP_F_HANDLE2 = 1u << 6,
	RP_F_OFFSET2 = 1u << 7,
};

/*
 * X(ENUM, "name", always-printed fields).  The names are part of reprise's
 * interface (cat, stat, JSON): never rename one; append new ops at the end.
 * docs/op-model.md says what every field of every op means.
 */
#define RP_OP_MAP(X)                                                           \
	X(OPEN, "open", RP_F_PATH | RP_F_HANDLE)                               \
	X(CLOSE, "close", RP_F_HANDLE)                                         \
	X(READ, "read", RP_F_HANDLE | RP_F_OFFSET | RP_F_LENGTH)               \
	X(WRITE, "write", RP_F_HANDLE | RP_F_OFFSET | RP_F_LENGTH)             \
	X(FLUSH, "flush", RP_F_HANDLE)                                         \
	X(STAT, "stat", 0)                                                     \
	X(SETATTR, "setattr", 0)                                               \
	X(UNLINK, "unlink", RP_F_PATH)                                         \
	X(MKDIR, "mkdir", RP_F_PATH)                                           \
	X(RMDIR, "rmdir", RP_F_PATH)                                           \
	X(RENAME, "rename", RP_F_PATH | RP_F_PATH2)                            \
	X(LINK, "link", RP_F_PATH | RP_F_PATH2)                                \
	X(SYMLINK, "symlink", RP_F_PATH | RP_F_PATH2)                          \
	X(READLINK, "readlink", 0)                                             \
	X(READDIR, "readdir", 0)                                               \
	X(LOCK, "lock", RP_F_HANDLE | RP_F_OFFSET | RP_F_LENGTH)               \
	X(UNLOCK, "unlock", RP_F_HANDLE | RP_F_OFFSET | RP_F_LENGTH)           \
	X(STATFS, "statfs", 0)                                                 \
	X(ACCESS, "access", 0)                                                 \
	X(GETXATTR, "getxattr", 0)                                             \
	X(SETXATTR, "setxattr", 0)                                             \
	X(DELTREE, "deltree", RP_F_PATH)                                       \
	X(SLEEP, "sleep", RP_F_LENGTH)                                         \
	X(LOOKUP, "lookup", RP_F_PATH)                                         \
	X(MKNOD, "mknod", RP_F_PATH)                                           \
	X(LISTXATTR, "listxattr", 0)                                           \
	X(REMOVEXATTR, "removexattr", 0)                                       \
	X(DUP, "dup", RP_F_HANDLE | RP_F_HANDLE2)                              \
	X(FALLOCATE, "fallocate", RP_F_HANDLE | RP_F_OFFSET | RP_F_LENGTH)     \
	X(COPY, "copy", RP_F_HANDLE | RP_F_OFFSET | RP_F_HANDLE2 | RP_F_OFFSET2 | RP_F_LENGTH) \
	X(MMAP, "mmap", RP_F_HANDLE | RP_F_OFFSET | RP_F_LENGTH)               \
	X(FORK, "fork", 0)                                                     \
	X(WAIT, "wait", 0)

#define RP__OP_ENUM(e, name, fields) RP_OP_##e,
typedef enum rp_opcode { RP_OP_MAP(RP__OP_ENUM) RP_OP__COUNT } rp_opcode;
#undef RP__OP_ENUM

/*
 * Canonical status: 0 is success, a positive value is an errno in reprise's
 * portable numbering (Linux's generic errno values, formats/status.h), mapped
 * to the host's at replay.
 */
#define RP_STATUS_OK 0
#define RP_STATUS_UNKNOWN (-1) /* no reply was seen */
#define RP_STATUS_OTHER (-2)   /* failed, with no errno equivalent */

/* How proto_status is to be read. */
typedef enum rp_status_kind {
	RP_SK_NONE = 0, /* no original status */
	RP_SK_ERRNO = 1,
	RP_SK_NT = 2,   /* NTSTATUS (SMB1/2/3, dbench SMB loadfiles) */
	RP_SK_NFS3 = 3, /* nfsstat3 (also NFSv2 and dbench NFS loadfiles) */
	RP_SK_NFS4 = 4, /* nfsstat4 */
	RP_SK__COUNT
} rp_status_kind;

/*
 * Which producer made an op: provenance.  It says how to read the op's
 * `raw` fields, for exact same-protocol round trips (the loadfile writer),
 * and, on purpose, for the nfs backend's exact mode, which sends an op of
 * the NFSv3 decoder as the procedure it was (replay/backends/nfs_exact.c);
 * the engine only tells a backend which producers a trace has
 * (rp_backend_args.protos), and prepare never reads it.
 */
#define RP_PROTO_MAP(X)                                                        \
	X(NONE, "")                                                            \
	X(NFS3, "nfs3")                                                        \
	X(NFS4, "nfs4")                                                        \
	X(SMB1, "smb1")                                                        \
	X(SMB2, "smb2")                                                        \
	X(DBENCH_SMB, "dbench-smb")                                            \
	X(DBENCH_NFS, "dbench-nfs")                                            \
	X(POSIX, "posix")

#define RP__PROTO_ENUM(e, name) RP_PROTO_##e,
typedef enum rp_proto { RP_PROTO_MAP(RP__PROTO_ENUM) RP_PROTO__COUNT } rp_proto;
#undef RP__PROTO_ENUM

/* rp_op.flags: properties of the op itself, whatever its kind. */
enum rp_op_flag {
	RP_OPF_SYNTH_PATH = 1u << 0, /* path was synthesised from an unknown handle */
	RP_OPF_EXCLUSIVE = 1u << 1,  /* lock: exclusive (write) lock; without it a shared one */
	RP_OPF_STABLE = 1u << 2,     /* write: data must be stable (NFS FILE_SYNC, O_SYNC) */
	RP_OPF_NO_REPLY = 1u << 3,   /* no reply seen; t_end and status unknown */
	/* 1u << 4 was "create" in .rpz 1.0: an open's disposition says it now */
	RP_OPF_DIRECTORY = 1u << 5, /* open/stat/lookup: the object is (found to be) a directory */
	RP_OPF_TEST = 1u << 6,      /* lock: only test for a conflicting lock, take none (NFS LOCKT, F_GETLK) */
	RP_OPF_WAIT = 1u << 7,      /* lock: wait for a conflicting lock to go (F_SETLKW, SMB without FAIL_IMMEDIATELY) */
	RP_OPF_MANDATORY = 1u << 8, /* lock: mandatory (SMB): I/O of other opens conflicts with it */
	RP_OPF_DATASYNC = 1u << 9,  /* flush: data only (fdatasync), not the metadata (fsync) */
	RP_OPF_CONT = 1u << 10,     /* NFSv4: the client's next op came in the same COMPOUND (its grouping, for exact replay) */
	RP_OPF_SESSION = 1u << 11,  /* NFSv4.1+: sent in a session (SEQUENCE): no open-owner seqids to replay */
};
#define RP_OPF__NAMES                                                                                              \
	"synth", "excl", "stable", "noreply", "", "dir", "test", "wait", "mandatory", "datasync", "cont", "session"

/*
 * rp_op.want, open and access: what the caller asked to be able to do
 * (docs/op-model.md).  0 means not recorded; RP_WANT_KNOWN alone means
 * recorded as nothing (an open for no access at all).
 */
enum rp_want {
	RP_WANT_READ = 1u << 0,       /* read data; list a directory */
	RP_WANT_WRITE = 1u << 1,      /* write data; add a file to a directory */
	RP_WANT_APPEND = 1u << 2,     /* append data; add a subdirectory */
	RP_WANT_EXEC = 1u << 3,       /* execute; traverse a directory */
	RP_WANT_DELETE = 1u << 4,     /* delete (or rename) the object */
	RP_WANT_READ_ATTR = 1u << 5,  /* read attributes and extended attributes */
	RP_WANT_WRITE_ATTR = 1u << 6, /* change attributes and extended attributes */
	RP_WANT_READ_SEC = 1u << 7,   /* read the security descriptor (READ_CONTROL) */
	RP_WANT_WRITE_SEC = 1u << 8,  /* change the discretionary ACL (WRITE_DAC) */
	RP_WANT_WRITE_OWNER = 1u << 9, /* change the owner (WRITE_OWNER) */
	RP_WANT_SYS_SEC = 1u << 10,   /* the system ACL (ACCESS_SYSTEM_SECURITY) */
	RP_WANT_DELETE_CHILD = 1u << 11, /* delete entries of a directory */
	RP_WANT_MAX = 1u << 12,       /* as much as the object allows (MAXIMUM_ALLOWED) */
};
#define RP_WANT_KNOWN 0x80000000u /* the producer recorded what was wanted */
#define RP_WANT__NAMES                                                                                       \
	"read", "write", "append", "exec", "delete", "rattr", "wattr", "rsec", "wsec", "wowner", "syssec", \
		"delchild", "max"
#define RP_WANT_ALL 0x1fffu

/* rp_op.disp, open: what to do when the object exists or does not. */
typedef enum rp_disp {
	RP_DISP_OPEN = 0,      /* open it; fail if absent */
	RP_DISP_CREATE = 1,    /* create it; fail if it exists */
	RP_DISP_OPEN_IF = 2,   /* open it, or create it if absent */
	RP_DISP_TRUNC = 3,     /* open and empty it; fail if absent */
	RP_DISP_TRUNC_IF = 4,  /* open and empty it, or create it if absent */
	RP_DISP_SUPERSEDE = 5, /* replace it with a new object, or create it */
	RP_DISP__COUNT
} rp_disp;
#define RP_DISP__NAMES "open", "create", "open_if", "trunc", "trunc_if", "supersede"

/* rp_op.oflags, open: how the object is to be opened. */
enum rp_open_flag {
	RP_OF_DIRECTORY = 1u << 0,   /* it must be a directory (create one) */
	RP_OF_NOT_DIRECTORY = 1u << 1, /* it must not be a directory */
	RP_OF_DELETE_ON_CLOSE = 1u << 2, /* delete it when the last handle to it closes */
	RP_OF_SYNC = 1u << 3,        /* writes are stable before they complete (O_SYNC, write-through) */
	RP_OF_APPEND = 1u << 4,      /* every write goes to the end of file (O_APPEND) */
	RP_OF_NOFOLLOW = 1u << 5,    /* a symbolic link is opened as itself, not followed */
	RP_OF_DIRECT = 1u << 6,      /* bypass the cache (O_DIRECT, no intermediate buffering) */
	RP_OF_EXCL_VERIFY = 1u << 7, /* create: exclusive, but a retry of the same create succeeds (NFS EXCLUSIVE) */
	RP_OF_NT = 1u << 8,          /* the opener expects NT file semantics on this handle (docs/op-model.md) */
	RP_OF_CLOEXEC = 1u << 9,     /* not inherited by exec'd programs */
};
#define RP_OF__NAMES "dir", "notdir", "delete_on_close", "sync", "append", "nofollow", "direct", "excl_verify", \
		     "nt", "cloexec"

/* rp_op.oflags, rename: how the new name may be taken. */
enum rp_rename_flag {
	RP_RN_NOREPLACE = 1u << 0, /* fail if the new name exists (SMB without ReplaceIfExists, RENAME_NOREPLACE) */
	RP_RN_EXCHANGE = 1u << 1,  /* swap the two names (RENAME_EXCHANGE) */
	RP_RN_WHITEOUT = 1u << 2,  /* leave a whiteout at the old name (RENAME_WHITEOUT) */
};
#define RP_RN__NAMES "noreplace", "exchange", "whiteout"

/* rp_op.oflags, fallocate: what the call does with [offset, offset + length). */
enum rp_fallocate_flag {
	RP_FA_KEEP_SIZE = 1u << 0,  /* allocate without changing the size */
	RP_FA_PUNCH_HOLE = 1u << 1, /* deallocate the range (reads as zeros) */
	RP_FA_ZERO_RANGE = 1u << 2, /* zero the range */
};
#define RP_FA__NAMES "keep_size", "punch_hole", "zero_range"

/* rp_op.oflags, fork: how the child holds the parent's handles. */
enum rp_fork_flag {
	RP_FK_SHARE = 1u << 0, /* one table for both (a thread, CLONE_FILES): a close by either closes it for both;
				* without it the child holds copies (fork): its close leaves the parent's open */
};
#define RP_FK__NAMES "share"

/* rp_op.attrs, setattr: which attributes are set, with the value's field. */
enum rp_setattr_flag {
	RP_SA_SIZE = 1u << 0,       /* the size (end of file) to `length` */
	RP_SA_ALLOC = 1u << 1,      /* the allocation to `offset`: below the size truncates, above leaves data */
	RP_SA_MODE = 1u << 2,       /* permission bits to `mode` */
	RP_SA_UID = 1u << 3,        /* owner to `uid` */
	RP_SA_GID = 1u << 4,        /* group to `gid` */
	RP_SA_ATIME = 1u << 5,      /* access time to `atime` */
	RP_SA_MTIME = 1u << 6,      /* modification time to `mtime` */
	RP_SA_ATIME_NOW = 1u << 7,  /* access time to the server's current time */
	RP_SA_MTIME_NOW = 1u << 8,  /* modification time to the server's current time */
	RP_SA_CTIME = 1u << 9,      /* change time (SMB; not settable in POSIX) */
	RP_SA_BTIME = 1u << 10,     /* creation time (SMB; not settable in POSIX) */
	RP_SA_DOSATTR = 1u << 11,   /* DOS attributes (read-only, hidden, system, archive) */
	RP_SA_DELETE_SET = 1u << 12,   /* delete the object when its last handle closes */
	RP_SA_DELETE_CLEAR = 1u << 13, /* do not (undoes an earlier delete-on-close) */
};
#define RP_SA__NAMES "size", "alloc", "mode", "uid", "gid", "atime", "mtime", "atime_now", "mtime_now", "ctime", \
		     "btime", "dosattr", "delete", "undelete"

/* rp_op.result of an open: what the open did (the create action returned), when recorded. */
typedef enum rp_action {
	RP_ACT_UNKNOWN = 0,
	RP_ACT_OPENED = 1,
	RP_ACT_CREATED = 2,
	RP_ACT_TRUNCATED = 3,
	RP_ACT_SUPERSEDED = 4,
} rp_action;

#define RP_TIME_UNKNOWN UINT64_MAX

/*
 * What the producing protocol sent, as it sent it: provenance only (see
 * rp_proto).  For SMB an open's access mask, create disposition and create
 * options and an info request's class; for NFS the createhow, share access
 * and claim; docs/op-model.md lists each.  Never read to replay an op.
 */
typedef struct rp_raw {
	uint32_t access;
	uint32_t disposition;
	uint32_t options;
	uint32_t level;
} rp_raw;

/*
 * One operation.  Strings are ids in the trace's string table (0 = none);
 * handles are trace-local ids (0 = none) mapped to real ones at replay.
 * Which fields an op uses is documented per op in docs/op-model.md; unused
 * fields are zero.  sleep keeps its duration in ns in `length`.
 */
typedef struct rp_op {
	uint64_t t_start; /* ns since trace start */
	uint64_t t_end;   /* ns since trace start, or RP_TIME_UNKNOWN */
	uint64_t handle;
	uint64_t offset;
	uint64_t length;  /* requested bytes, entries or ns */
	uint64_t result;  /* bytes transferred, entries returned, granted wants, rp_action */
	uint64_t handle2; /* dup: the new handle; copy: the destination */
	uint64_t offset2; /* copy: the destination offset */
	uint64_t atime;   /* setattr: ns since the Unix epoch (RP_SA_ATIME) */
	uint64_t mtime;   /* setattr: ns since the Unix epoch (RP_SA_MTIME) */
	uint32_t client;
	uint32_t path;
	uint32_t path2;  /* rename/link/symlink target, readdir pattern, xattr name */
	uint32_t want;   /* open, access, get/setxattr of a security descriptor: rp_want */
	uint32_t oflags; /* open: rp_open_flag; rename: rp_rename_flag; fallocate: rp_fallocate_flag; fork: rp_fork_flag */
	uint32_t attrs;  /* setattr: rp_setattr_flag */
	uint32_t mode;   /* permission bits (open/mkdir/mknod/setattr), file type (mknod) */
	uint32_t uid;    /* setattr: RP_SA_UID */
	uint32_t gid;    /* setattr: RP_SA_GID */
	uint32_t proto_status;
	rp_raw raw;
	int32_t status; /* RP_STATUS_* or errno */
	uint16_t op;    /* rp_opcode */
	uint16_t flags; /* rp_op_flag */
	uint8_t status_kind;
	uint8_t disp;  /* open: rp_disp */
	uint8_t proto; /* rp_proto: provenance of `raw` */
} rp_op;

const char *rp_op_name(unsigned op); /* NULL when out of range */
/* Look an op up by its canonical name; -1 if none. */
int rp_op_from_name(const char *name, size_t len);
unsigned rp_op_fields(unsigned op); /* always-printed rp_field mask */
const char *rp_proto_name(unsigned proto); /* "" for NONE, NULL when out of range */

/* Which field's names rp_op_value_names gives: the text form's words for its values or bits. */
typedef enum rp_value_names {
	RP_NAMES_FLAGS,     /* rp_op_flag */
	RP_NAMES_WANT,      /* rp_want */
	RP_NAMES_DISP,      /* rp_disp (values, not bits) */
	RP_NAMES_OPEN,      /* rp_open_flag */
	RP_NAMES_RENAME,    /* rp_rename_flag */
	RP_NAMES_FALLOCATE, /* rp_fallocate_flag */
	RP_NAMES_SETATTR,   /* rp_setattr */
	RP_NAMES_FORK,      /* rp_fork_flag */
} rp_value_names;

/* The names, bit (or value) i at [i], "" for an unnamed one; *n their count.  One table for writer and reader. */
const char *const *rp_op_value_names(rp_value_names which, size_t *n);

/* Resolve a string id to bytes; returns NULL for an unknown id. */
typedef const char *(*rp_string_fn)(void *ctx, uint32_t id, uint32_t *len);

/*
 * The canonical one-line text form used by `reprise cat` and the golden
 * tests.  Writes at most `size` bytes including the NUL; returns the length
 * it needed (like snprintf).
 */
size_t rp_op_format(char *buf, size_t size, const rp_op *op, rp_string_fn str, void *ctx);

/*
 * s[0..len) escaped as the canonical text form escapes a string's bytes:
 * printable ASCII as is, '\\' (and, with quote, '"') backslashed, every other
 * byte (controls, DEL, anything not ASCII) as \xNN.  Anything that prints an
 * untrusted name to a terminal goes through this, so no escape sequence from
 * a trace reaches it.  Same contract as rp_op_format.
 */
size_t rp_text_escape(char *buf, size_t size, const char *s, size_t len, bool quote);

/*
 * As rp_text_escape without quote, but a valid UTF-8 character that is not a
 * control (C0, DEL, C1) stays as it is: the result is always valid UTF-8 with
 * no control byte, and reversible (\\ is a backslash, \xNN the byte NN).
 * Names in JSON output go through this.
 */
size_t rp_text_escape_utf8(char *buf, size_t size, const char *s, size_t len);

#endif
