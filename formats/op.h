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
	RP_F_ACCESS = 1u << 6,
	RP_F_DISP = 1u << 7,
	RP_F_OPTIONS = 1u << 8,
	RP_F_MODE = 1u << 9,
	RP_F_LEVEL = 1u << 10,
};

/*
 * X(ENUM, "name", always-printed fields).  The names are part of reprise's
 * interface (cat, stat, JSON): never rename one; append new ops at the end.
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
	X(REMOVEXATTR, "removexattr", 0)

#define RP__OP_ENUM(e, name, fields) RP_OP_##e,
typedef enum rp_opcode { RP_OP_MAP(RP__OP_ENUM) RP_OP__COUNT } rp_opcode;
#undef RP__OP_ENUM

/* Canonical status: 0 is success, a positive value is an errno. */
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

/* rp_op.flags */
enum rp_op_flag {
	RP_OPF_SYNTH_PATH = 1u << 0, /* path was synthesised from an unknown handle */
	RP_OPF_EXCLUSIVE = 1u << 1,  /* lock: exclusive (write) lock */
	RP_OPF_STABLE = 1u << 2,     /* write: data must be stable (NFS FILE_SYNC, O_SYNC) */
	RP_OPF_NO_REPLY = 1u << 3,   /* no reply seen; t_end and status unknown */
	RP_OPF_CREATE = 1u << 4,     /* open: may create the file */
	RP_OPF_DIRECTORY = 1u << 5,  /* open/stat: the object is a directory */
};

#define RP_TIME_UNKNOWN UINT64_MAX

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
	uint64_t length; /* requested bytes, entries or ns */
	uint64_t result; /* bytes transferred or entries returned */
	uint32_t client;
	uint32_t path;
	uint32_t path2;
	uint32_t access;      /* open: access mask or O_ flags; access: wanted */
	uint32_t disposition; /* open: create disposition */
	uint32_t options;     /* open: create options */
	uint32_t mode;        /* permission bits */
	uint32_t level;       /* info level, query class or NFS procedure detail */
	uint32_t proto_status;
	int32_t status; /* RP_STATUS_* or errno */
	uint16_t op;    /* rp_opcode */
	uint16_t flags; /* rp_op_flag */
	uint8_t status_kind;
} rp_op;

const char *rp_op_name(unsigned op); /* NULL when out of range */
/* Look an op up by its canonical name; -1 if none. */
int rp_op_from_name(const char *name, size_t len);
unsigned rp_op_fields(unsigned op); /* always-printed rp_field mask */

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

#endif
