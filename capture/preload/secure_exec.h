/* Whether an exec runs in the kernel's secure-execution mode (AT_SECURE), where the loader ignores LD_PRELOAD (execve(2), ld.so(8)). */
#ifndef REPRISE_CAPTURE_PRELOAD_SECURE_EXEC_H
#define REPRISE_CAPTURE_PRELOAD_SECURE_EXEC_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * What the caller knows of the exec: the file's stat, its mount's nosuid,
 * the process's no_new_privs, whether the file has capabilities
 * (security.capability), and the process's real and effective ids now.
 */
typedef struct rp_exec_creds {
	bool nosuid, no_new_privs, file_caps;
	uid_t ruid, euid;
	gid_t rgid, egid;
} rp_exec_creds;

/*
 * The kernel's rule (fs/exec.c bprm_fill_uid, security/commoncap.c): the
 * set-user-ID bit makes the file's owner the new effective uid, the
 * set-group-ID bit (with group execute: without it the bit means mandatory
 * locking) its group the new effective gid, unless the mount is nosuid or the
 * process has no_new_privs.  The exec is secure when the new effective uid is
 * not the real uid or the new effective gid not the real gid, or when file
 * capabilities apply to a process whose real uid is not root.  So root
 * running a set-user-ID root program is not secure, and is traced.
 */
static inline bool rp_exec_is_secure(const struct stat *st, const rp_exec_creds *c)
{
	const bool bits = !c->nosuid && !c->no_new_privs;
	const uid_t euid = bits && (st->st_mode & S_ISUID) ? st->st_uid : c->euid;
	const gid_t egid = bits && (st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) ? st->st_gid : c->egid;
	if (euid != c->ruid || egid != c->rgid)
		return true;
	return c->file_caps && !c->nosuid && c->ruid != 0;
}

#endif
