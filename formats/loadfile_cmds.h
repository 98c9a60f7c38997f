/* dbench loadfile commands: the table shared by the loadfile reader and writer (docs/loadfile.md). */
#ifndef REPRISE_FORMATS_LOADFILE_CMDS_H
#define REPRISE_FORMATS_LOADFILE_CMDS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/op.h"

/* Which status space a command's status token is read in. */
enum {
	RP__LF_ANY = 0, /* Deltree, Sleep: the file's dialect */
	RP__LF_SMB = 1, /* NTSTATUS */
	RP__LF_NFS3 = 2,
	RP__LF_NFS4 = 3,
};

/*
 * Argument specs, one character per argument before the status token, in
 * order; a '?' makes the rest optional.
 *   p path    q path2   h handle (fnum)   o offset   l length   r result
 *   L level   O options (hex)   D disposition (hex)   A access (hex)
 *   a access (decimal)   c NFS createhow   s NFS stable_how   u microseconds
 */
#define RP__LF_CMD_MAP(X)                                                                  \
	X(NTCREATEX, "NTCreateX", RP__LF_SMB, OPEN, "pODh", 0, 0)                         \
	X(CLOSE, "Close", RP__LF_SMB, CLOSE, "h", 0, 0)                                    \
	X(RENAME, "Rename", RP__LF_SMB, RENAME, "pq", 0, 0)                                \
	X(UNLINK, "Unlink", RP__LF_SMB, UNLINK, "p?O", 0, 0)                               \
	X(DELTREE, "Deltree", RP__LF_ANY, DELTREE, "p", 0, 0)                              \
	X(RMDIR, "Rmdir", RP__LF_SMB, RMDIR, "p", 0, 0)                                    \
	X(MKDIR, "Mkdir", RP__LF_SMB, MKDIR, "p", 0, 0)                                    \
	X(QPATHINFO, "QUERY_PATH_INFORMATION", RP__LF_SMB, STAT, "pL", 0, 0)              \
	X(QFILEINFO, "QUERY_FILE_INFORMATION", RP__LF_SMB, STAT, "hL", 0, 0)              \
	X(QFSINFO, "QUERY_FS_INFORMATION", RP__LF_SMB, STATFS, "L", 0, 0)                 \
	X(SFILEINFO, "SET_FILE_INFORMATION", RP__LF_SMB, SETATTR, "hL", 0, 0)             \
	X(FINDFIRST, "FIND_FIRST", RP__LF_SMB, READDIR, "pLlr", 0, 0)                     \
	X(WRITEX, "WriteX", RP__LF_SMB, WRITE, "holr", 0, 0)                               \
	X(READX, "ReadX", RP__LF_SMB, READ, "holr", 0, 0)                                  \
	X(LOCKX, "LockX", RP__LF_SMB, LOCK, "hol", 0, RP_OPF_EXCLUSIVE | RP_OPF_MANDATORY) \
	X(UNLOCKX, "UnlockX", RP__LF_SMB, UNLOCK, "hol", 0, RP_OPF_MANDATORY)              \
	X(FLUSH, "Flush", RP__LF_SMB, FLUSH, "h", 0, 0)                                    \
	X(SLEEP, "Sleep", RP__LF_ANY, SLEEP, "u", 0, 0)                                    \
	X(SMB_OPEN, "OPEN", RP__LF_SMB, OPEN, "pA", 0, 0)                                  \
	X(SMB_READ, "READ", RP__LF_SMB, READ, "pol", 0, 0)                                 \
	X(SMB_WRITE, "WRITE", RP__LF_SMB, WRITE, "pol", 0, 0)                              \
	X(SMB_CLOSE, "CLOSE", RP__LF_SMB, CLOSE, "p", 0, 0)                                \
	X(SMB_MKDIR, "MKDIR", RP__LF_SMB, MKDIR, "p", 0, 0)                                \
	X(SMB_RMDIR, "RMDIR", RP__LF_SMB, RMDIR, "p", 0, 0)                                \
	X(GETATTR3, "GETATTR3", RP__LF_NFS3, STAT, "p", 0, 0)                              \
	X(SETATTR3, "SETATTR3", RP__LF_NFS3, SETATTR, "p", 0, 0)                           \
	X(LOOKUP3, "LOOKUP3", RP__LF_NFS3, LOOKUP, "p", 0, 0)                              \
	X(ACCESS3, "ACCESS3", RP__LF_NFS3, ACCESS, "par", 0, 0)                            \
	X(READLINK3, "READLINK3", RP__LF_NFS3, READLINK, "p", 0, 0)                        \
	X(READ3, "READ3", RP__LF_NFS3, READ, "pol", 0, 0)                                  \
	X(WRITE3, "WRITE3", RP__LF_NFS3, WRITE, "pols", 0, 0)                              \
	X(CREATE3, "CREATE3", RP__LF_NFS3, OPEN, "p?c", 0, 0)                              \
	X(MKDIR3, "MKDIR3", RP__LF_NFS3, MKDIR, "p", 0, 0)                                 \
	X(SYMLINK3, "SYMLINK3", RP__LF_NFS3, SYMLINK, "pq", 0, 0)                          \
	X(MKNOD3, "MKNOD3", RP__LF_NFS3, MKNOD, "p", 0, 0)                                 \
	X(REMOVE3, "REMOVE3", RP__LF_NFS3, UNLINK, "p", 0, 0)                              \
	X(RMDIR3, "RMDIR3", RP__LF_NFS3, RMDIR, "p", 0, 0)                                 \
	X(RENAME3, "RENAME3", RP__LF_NFS3, RENAME, "pq", 0, 0)                             \
	X(LINK3, "LINK3", RP__LF_NFS3, LINK, "pq", 0, 0)                                   \
	X(READDIR3, "READDIR3", RP__LF_NFS3, READDIR, "p", RP__LF_LEVEL_READDIR3, 0)       \
	X(READDIRPLUS3, "READDIRPLUS3", RP__LF_NFS3, READDIR, "p", 0, 0)                   \
	X(FSSTAT3, "FSSTAT3", RP__LF_NFS3, STATFS, "", 0, 0)                               \
	X(FSINFO3, "FSINFO3", RP__LF_NFS3, STATFS, "", RP__LF_LEVEL_FSINFO3, 0)            \
	X(PATHCONF3, "PATHCONF3", RP__LF_NFS3, STATFS, "p", RP__LF_LEVEL_PATHCONF3, 0)     \
	X(COMMIT3, "COMMIT3", RP__LF_NFS3, FLUSH, "p", 0, 0)                               \
	X(LOCK4, "LOCK4", RP__LF_NFS4, LOCK, "pol", 0, 0)                                  \
	X(UNLOCK4, "UNLOCK4", RP__LF_NFS4, UNLOCK, "pol", 0, 0)                            \
	X(TEST4, "TEST4", RP__LF_NFS4, LOCK, "pol", RP__LF_LEVEL_TEST4, RP_OPF_TEST)

/* rp_op.raw.level values that say which NFS command an op came from (NFSv3 procedure and NFSv4 op numbers). */
#define RP__LF_LEVEL_READDIR3 16u
#define RP__LF_LEVEL_FSINFO3 19u
#define RP__LF_LEVEL_PATHCONF3 20u
#define RP__LF_LEVEL_TEST4 13u /* LOCKT: test for a conflicting lock, take none */

#define RP__LF_CMD_ENUM(id, name, dialect, op, spec, level, flags) RP__LF_C_##id,
enum rp__lf_cmd { RP__LF_CMD_MAP(RP__LF_CMD_ENUM) RP__LF_C__COUNT };
#undef RP__LF_CMD_ENUM

typedef struct rp__lf_cmd_info {
	const char *name;
	const char *spec;
	uint32_t level;
	uint16_t op;
	uint16_t flags;
	uint8_t dialect;
	uint8_t name_len;
} rp__lf_cmd_info;

extern const rp__lf_cmd_info rp__lf_cmds[RP__LF_C__COUNT];

/* Arguments a command line can have at most (before the status). */
#define RP__LF_ARGS_MAX 8

/* Control words, which are not operations. */
enum rp__lf_ctl {
	RP__LF_K_LOOP = RP__LF_C__COUNT,
	RP__LF_K_ENDLOOP,
	RP__LF_K_REPEAT,
	RP__LF_K_SETSP,
	RP__LF_K_WAITSP,
	RP__LF_K_WRITEPATTERN,
	RP__LF_K_RANDOMSTRING,
	RP__LF_K__END
};

/* A case-insensitive lookup table over commands and control words (built per reader, no globals). */
#define RP__LF_HASH_SLOTS 256
typedef struct rp__lf_dict {
	uint8_t slot[RP__LF_HASH_SLOTS]; /* index + 1; 0 = empty */
	uint8_t len[RP__LF_K__END];      /* each word's length */
	uint8_t n_req[RP__LF_C__COUNT];  /* arguments before any '?' in the spec */
	uint8_t n_max[RP__LF_C__COUNT];  /* all arguments */
} rp__lf_dict;

void rp__lf_dict_init(rp__lf_dict *d);
/*
 * Look a command word up: an exact-case match first, otherwise a
 * case-insensitive one (dbench compares names case-insensitively), preferring
 * the variant whose first argument is a path when `path_first` says so.
 * Returns an rp__lf_cmd / rp__lf_ctl value, or -1.
 */
int rp__lf_dict_find(const rp__lf_dict *d, const char *w, size_t n, int path_first);
const char *rp__lf_word_name(int k);

#endif
