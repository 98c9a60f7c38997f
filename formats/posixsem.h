/*
 * POSIX-side semantics of an op, shared by the backends that replay on a
 * POSIX-like interface (posix, nfs through libnfs, smb through libsmbclient):
 * the open flags an open op asks for, the wants an open with given access
 * grants, and the SMB find pattern match (MS-FSA 2.1.4.4).  Pure functions:
 * no I/O, no backend types.
 */
#ifndef REPRISE_FORMATS_POSIXSEM_H
#define REPRISE_FORMATS_POSIXSEM_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/op.h"

/* O_CREAT, O_EXCL and O_TRUNC of a create disposition (0 for one out of range). */
int rp_disp_oflags(unsigned disp);

/* What an open op asks of open(2). */
typedef struct rp_open_plan {
	int flags;        /* access mode | rp_disp_oflags | O_APPEND, O_SYNC, O_NOFOLLOW of op->oflags */
	bool dir;         /* a directory is opened (made, with O_CREAT) */
	bool not_dir;     /* what is opened must not be a directory */
	bool fallback_ro; /* the access was not recorded (or is "as much as allowed"): read-write, else read-only */
	bool meta_only;   /* recorded, without data access (attributes, delete, ...): the access mode is O_RDONLY */
} rp_open_plan;

/*
 * The open of op: read for READ or EXEC, write for WRITE or APPEND, both
 * when not recorded.  Append-only wants still open for writing where the op
 * says: SMB writes carry their offset.
 */
rp_open_plan rp_open_plan_of(const rp_op *op);

/* The wants a file opened with this access mode (flags & O_ACCMODE) has, for the engine's NT checks. */
uint32_t rp_granted_of(int flags);

/* A name longer than this never matches a pattern (255 UTF-16 units of an SMB name are at most 765 bytes). */
#define RP_FIND_NAME_MAX 1024u

/*
 * Whether name matches the find pattern, as an SMB server matches
 * (MS-FSA 2.1.4.4): ASCII case-insensitively; '*' any run of characters;
 * '?' one character; '<' (DOS_STAR) any run that does not go past the
 * name's last '.'; '>' (DOS_QM) one character, or none at a '.' or at the
 * end of the name; '"' (DOS_DOT) a '.', or nothing at the end of the name.
 * Every other character (fnmatch's '[', ']' and '\\' too) is itself:
 * smbclient's `del a[1].txt` sends the name as the pattern.
 */
bool rp_find_match(const char *pattern, const char *name);

/* How many of "." and ".." match: a listing with a pattern includes them (MS-FSCC 2.4: SMB servers list them). */
unsigned rp_find_dots(const char *pattern);

#endif
