/* smb backend: the ops by name (MS-SMB2 CREATE-wrapped calls): setattr, listings with patterns, rename, deltree. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include "formats/posixsem.h"
#include "replay/backends/smb_int.h"

/* A directory tree deeper than this (deltree) is treated as an attack on the stack, not a workload. */
#define DELTREE_MAX_DEPTH 128

/* Remove what path names (a file, else a directory): delete-on-close's act, and deltree's. */
int rp__smb_remove_path(smb_conn *cn, const char *path, bool dir)
{
	int rc = rp__smb_url(cn, cn->url, path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	/* A directory: no unlink to fail first (a failed CREATE the trace lacks). */
	if (dir)
		rc = EISDIR;
	else if (smbc_getFunctionUnlink(ctx)(ctx, cn->url) == 0)
		return 0;
	else
		rc = rp__smb_failed(cn);
	if (rc == EISDIR || rc == EPERM || rc == EACCES)
		rc = smbc_getFunctionRmdir(ctx)(ctx, cn->url) < 0 ? rp__smb_failed(cn) : 0;
	return rc == ENOENT ? 0 : rc;
}

/* After a rename of from to to: open handles beneath from follow it (SMB handles survive a rename). */
static void files_renamed(smb_conn *cn, const char *from, const char *to)
{
	const size_t fl = strlen(from), tl = strlen(to);
	for (smb_file *f = cn->files; f; f = f->next) {
		if (strncmp(f->path, from, fl) != 0 || (f->path[fl] != '\0' && f->path[fl] != '/'))
			continue;
		char *const p = malloc(tl + strlen(f->path + fl) + 1);
		if (!p)
			continue; /* no memory: the handle keeps the old name (its by-name calls fail ENOENT) */
		memcpy(p, to, tl);
		strcpy(p + tl, f->path + fl);
		free(f->path);
		f->path = p;
	}
}

/* ---- Names ------------------------------------------------------------------------------- */

/* The times a setattr sets, as utimes takes them: the current one for a time it leaves (SMB sets both or keeps). */
static int set_times(smb_conn *cn, const rp_op *op, const char *url)
{
	SMBCCTX *const ctx = cn->ctx;
	struct stat st = { 0 };
	/* Both times given: nothing to keep, nothing to read first. */
	const bool both = (op->attrs & (RP_SA_ATIME | RP_SA_ATIME_NOW)) && (op->attrs & (RP_SA_MTIME | RP_SA_MTIME_NOW));
	if (!both) {
		rp__smb_extra(cn, RP_SMB_FB_TIMES);
		if (smbc_getFunctionStat(ctx)(ctx, url, &st) < 0)
			return rp__smb_failed(cn);
	}
	struct timeval now, tv[2];
	gettimeofday(&now, NULL);
	const uint64_t t[2] = { op->atime, op->mtime };
	const struct timespec cur[2] = { st.st_atim, st.st_mtim };
	const uint32_t set[2] = { RP_SA_ATIME, RP_SA_MTIME }, setnow[2] = { RP_SA_ATIME_NOW, RP_SA_MTIME_NOW };
	for (int i = 0; i < 2; i++) {
		if (op->attrs & set[i])
			tv[i] = (struct timeval){ (time_t)(t[i] / 1000000000u), (suseconds_t)(t[i] % 1000000000u / 1000u) };
		else if (op->attrs & setnow[i])
			tv[i] = now;
		else
			tv[i] = (struct timeval){ cur[i].tv_sec, cur[i].tv_nsec / 1000 };
	}
	return smbc_getFunctionUtimes(ctx)(ctx, url, tv) < 0 ? rp__smb_failed(cn) : 0;
}

#define SA_TIMES (RP_SA_ATIME | RP_SA_MTIME | RP_SA_ATIME_NOW | RP_SA_MTIME_NOW)

/*
 * A setattr (docs/op-model.md): size and allocation through ftruncate (on the
 * handle, or an open by name), the mode through chmod (libsmbclient keeps only
 * the DOS read-only bit of it), the times through utimes.  An owner or group
 * has no libsmbclient call (they are in the security descriptor): EOPNOTSUPP.
 * Change and creation times and DOS attributes, recorded without values, are
 * a query.  Delete-on-close and its undoing are the backend's flag on the handle.
 */
int rp__smb_setattr(smb_conn *cn, rp_breq *req, smb_file *f)
{
	const rp_op *const op = req->op;
	SMBCCTX *const ctx = cn->ctx;
	const uint32_t a = op->attrs;
	const char *const path = f ? f->path : req->path;
	if (!path)
		return EBADF;
	int rc = rp__smb_url(cn, cn->url, path);
	if (rc)
		return rc;
	if (a & (RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR)) {
		if (!f)
			return EBADF;
		f->doc = (a & RP_SA_DELETE_SET) != 0;
	}
	if (a & (RP_SA_UID | RP_SA_GID))
		return EOPNOTSUPP;
	if (a & (RP_SA_SIZE | RP_SA_ALLOC)) {
		SMBCFILE *fh = f ? f->fh : NULL;
		if (f && !fh && (f->dir || !f->lazy))
			return f->dir ? EISDIR : EBADF;
		if (!fh)
			rp__smb_by_handle(cn, f);
		if (!fh && !(fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, O_WRONLY, 0)))
			return rp__smb_failed(cn);
		struct stat st;
		uint64_t size = a & RP_SA_SIZE ? op->length : 0;
		if (!(a & RP_SA_SIZE)) {
			/* An allocation below the size truncates there; at or above it, the data stays. */
			rc = smbc_getFunctionFstat(ctx)(ctx, fh, &st) < 0 ? rp__smb_failed(cn) : 0;
			size = rc == 0 && op->offset < (uint64_t)st.st_size ? op->offset : UINT64_MAX;
		}
		if (rc == 0 && size != UINT64_MAX && smbc_getFunctionFtruncate(ctx)(ctx, fh, (off_t)(size & INT64_MAX)) < 0)
			rc = rp__smb_failed(cn);
		if (!f || fh != f->fh)
			smbc_getFunctionClose(ctx)(ctx, fh);
		if (rc)
			return rc;
	}
	/* chmod and utimes go by name: a CREATE, SET_INFO and CLOSE each (on a handle, the first is its own). */
	if (a & RP_SA_MODE) {
		rp__smb_by_handle(cn, f);
		if (smbc_getFunctionChmod(ctx)(ctx, cn->url, op->mode & 0777) < 0)
			return rp__smb_failed(cn);
	}
	if (a & SA_TIMES) {
		rp__smb_by_handle(cn, f);
		return set_times(cn, op, cn->url);
	}
	if (!(a & (RP_SA_SIZE | RP_SA_ALLOC | RP_SA_MODE | RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR))) {
		struct stat st;
		if (f && f->fh)
			return smbc_getFunctionFstat(ctx)(ctx, f->fh, &st) < 0 ? rp__smb_failed(cn) : 0;
		rp__smb_by_handle(cn, f);
		return smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0 ? rp__smb_failed(cn) : 0;
	}
	return 0;
}

/*
 * A listing of a directory (by path or a directory handle), of every entry
 * or, with a pattern (SMB QUERY_DIRECTORY), of those matching it as the
 * server would: case-insensitively, '*' and '?' with the DOS wildcards '<',
 * '>' and '"' (MS-FSA 2.1.4.4); "." and ".." count, as servers list them.
 * libsmbclient always lists everything: the pattern is applied here.  A
 * pattern that matches nothing is ENOENT (STATUS_NO_SUCH_FILE), except on a
 * handle whose enumeration of the same pattern has begun (it ends, OK).
 */
int rp__smb_readdir(smb_conn *cn, rp_breq *req, smb_file *f)
{
	const char *const path = f ? f->path : req->path;
	if (!path)
		return EBADF;
	int rc = rp__smb_url(cn, cn->url, path);
	if (rc)
		return rc;
	const char *const mask = req->path2 && req->path2[0] ? req->path2 : NULL;
	if (mask && strlen(mask) > NAME_MAX)
		return ENAMETOOLONG;
	/*
	 * An SMB handle's enumeration of the same pattern goes on from where
	 * it was (the next QUERY_DIRECTORY): libsmbclient listed it whole the
	 * first time, so the rest is given from that, with no request.
	 */
	if (f && f->nt && f->listed && f->pattern && mask && strcmp(f->pattern, mask) == 0) {
		uint64_t n = f->listed_n - f->listed_given;
		if (req->op->length && n > req->op->length)
			n = req->op->length;
		f->listed_given += n;
		req->result = n;
		return 0;
	}
	rp__smb_by_handle(cn, f);
	/* A lazily opened directory not yet checked is checked from this listing's "." and ".." (smb_beneath.c). */
	const bool check = f && f->lazy && f->dir && !rp__smb_beneath_known(cn, path);
	SMBCCTX *const ctx = cn->ctx;
	SMBCFILE *const d = smbc_getFunctionOpendir(ctx)(ctx, cn->url);
	if (!d)
		return rp__smb_failed(cn);
	uint64_t n = 0, all = 0, self = 0, up = 0;
	unsigned ids = 0;
	errno = 0;
	struct stat st;
	for (const struct libsmb_file_info *e; (e = smbc_getFunctionReaddirPlus2(ctx)(ctx, d, &st)); all++) {
		const bool dot = strcmp(e->name, ".") == 0, dotdot = strcmp(e->name, "..") == 0;
		if (dot && !(ids & 1u))
			self = (uint64_t)st.st_ino, ids |= 1u;
		if (dotdot && !(ids & 2u))
			up = (uint64_t)st.st_ino, ids |= 2u;
		if (mask ? rp_find_match(mask, e->name) : !(dot || dotdot))
			n++;
	}
	if (errno && errno != ENOENT)
		rc = rp__smb_failed(cn);
	/*
	 * The connection's first listing, when small, is kept for statfs: any of
	 * the connection's handles carries libsmbclient's share-root queries, and
	 * a listing (whole when made, closed on the server) holds nothing open.
	 */
	if (rc == 0 && !cn->vfs_dir && all <= SMB_VFS_KEEP_MAX)
		cn->vfs_dir = d;
	else
		smbc_getFunctionClosedir(ctx)(ctx, d);
	if (rc == 0 && check && (rc = rp__smb_beneath_listed(cn, path, ids == 3u, self, up)) == EXDEV) {
		req->escape = true;
		return rc;
	}
	if (rc == 0 && mask && n == 0)
		rc = ENOENT;
	req->result = req->op->length && n > req->op->length ? req->op->length : n;
	if (f && f->nt && rc == 0) {
		free(f->pattern);
		f->pattern = mask ? strdup(mask) : NULL;
		f->listed = mask && f->pattern;
		f->listed_n = n;
		f->listed_given = req->result;
	}
	return rc;
}

/*
 * Empty the directory at path (its URL in a buffer of its own: recursion
 * needs its own).  parent_id: the FileId its ".." must have, UINT64_MAX for
 * the top (checked by rp__smb_beneath): a directory in it that is a symlink
 * the server follows lists another parent, and is refused (EXDEV), never
 * emptied.
 */
static int empty_dir(smb_conn *cn, const char *path, int depth, uint64_t parent_id)
{
	if (depth > DELTREE_MAX_DEPTH)
		return ELOOP;
	char *const url = malloc(RP_SMB_URL_MAX);
	if (!url)
		return ENOMEM;
	SMBCCTX *const ctx = cn->ctx;
	int rc = rp__smb_url(cn, url, path);
	SMBCFILE *const d = rc ? NULL : smbc_getFunctionOpendir(ctx)(ctx, url);
	if (!rc && !d)
		rc = rp__smb_failed(cn);
	/* Names first, removal after: a listing is not changed under its own enumeration. */
	char **names = NULL;
	bool *dirs = NULL;
	size_t n = 0, cap = 0;
	uint64_t self = UINT64_MAX;
	bool parent_seen = false;
	struct stat st;
	for (const struct libsmb_file_info *e; d && rc == 0 && (e = smbc_getFunctionReaddirPlus2(ctx)(ctx, d, &st));) {
		if (strcmp(e->name, ".") == 0) {
			self = (uint64_t)st.st_ino;
			continue;
		}
		if (strcmp(e->name, "..") == 0) {
			parent_seen = true;
			if (parent_id != UINT64_MAX && (uint64_t)st.st_ino != parent_id)
				rc = EXDEV;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **const nn = realloc(names, cap * sizeof(*nn));
			bool *const nd = nn ? realloc(dirs, cap * sizeof(*nd)) : NULL;
			if (nn)
				names = nn;
			if (nd)
				dirs = nd;
			if (!nn || !nd) {
				rc = ENOMEM;
				break;
			}
		}
		const size_t pl = strlen(path), el = strlen(e->name);
		names[n] = malloc(pl + el + 2);
		if (!names[n]) {
			rc = ENOMEM;
			break;
		}
		snprintf(names[n], pl + el + 2, "%s%s%s", path, pl ? "/" : "", e->name);
		dirs[n++] = S_ISDIR(st.st_mode);
	}
	if (d)
		smbc_getFunctionClosedir(ctx)(ctx, d);
	/* A listing without "." and "..": its directories cannot be checked, so none is entered. */
	if (rc == 0 && (self == UINT64_MAX || (parent_id != UINT64_MAX && !parent_seen)))
		rc = EXDEV;
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && dirs[i])
			rc = empty_dir(cn, names[i], depth + 1, self);
		if (rc == 0)
			rc = rp__smb_remove_path(cn, names[i], dirs[i]);
		free(names[i]);
	}
	free(names);
	free(dirs);
	free(url);
	return rc;
}

/* dbench's Deltree: remove path and everything under it; a missing path is not an error. */
static int do_deltree(smb_conn *cn, const char *path)
{
	int rc = rp__smb_url(cn, cn->url, path);
	struct stat st;
	SMBCCTX *const ctx = cn->ctx;
	if (rc == 0 && smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0)
		rc = rp__smb_failed(cn);
	if (rc)
		return rc == ENOENT ? 0 : rc;
	if (S_ISDIR(st.st_mode))
		rc = empty_dir(cn, path, 0, UINT64_MAX);
	return rc ? rc : rp__smb_remove_path(cn, path, S_ISDIR(st.st_mode));
}

/*
 * libsmbclient opens files sharing read and write but not delete (its share
 * modes have no FILE_SHARE_DELETE), so a rename or delete of a name this
 * connection holds open fails with a sharing violation where the recorded
 * client, which shared delete, renamed its open file (SMB2 SET_INFO on the
 * handle).  Such an op the trace recorded succeeding is tried again with
 * those handles closed on the server ("parked") and opened again afterwards
 * under the new name (counted: RP_SMB_FB_SHARE); a handle whose file went
 * stays without one (its I/O fails EBADF until it closes).  One it recorded
 * failing keeps its failure: no retry.
 */
static int park(smb_conn *cn, const rp_op *op, const char *path)
{
	int n = 0;
	if (op->status != RP_STATUS_OK)
		return 0;
	for (smb_file *f = cn->files; f; f = f->next) {
		if (!f->fh || strcmp(f->path, path) != 0)
			continue;
		smbc_getFunctionClose(cn->ctx)(cn->ctx, f->fh);
		f->fh = NULL;
		f->parked = true;
		n++;
	}
	if (n)
		rp__smb_extra(cn, RP_SMB_FB_SHARE);
	return n;
}

static void unpark(smb_conn *cn)
{
	for (smb_file *f = cn->files; f; f = f->next) {
		if (!f->parked || rp__smb_url(cn, cn->url2, f->path))
			continue;
		f->parked = false;
		f->fh = smbc_getFunctionOpen(cn->ctx)(cn->ctx, cn->url2, f->acc, 0);
	}
}

static int do_rename(smb_conn *cn, const rp_breq *req)
{
	const rp_op *const op = req->op;
	if (!req->path2)
		return EINVAL;
	if (op->oflags & (RP_RN_EXCHANGE | RP_RN_WHITEOUT))
		return EOPNOTSUPP; /* no SMB rename swaps two names or leaves a whiteout */
	int rc = rp__smb_url(cn, cn->url, req->path);
	if (rc == 0)
		rc = rp__smb_url(cn, cn->url2, req->path2);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	struct stat st;
	/*
	 * libsmbclient's rename replaces what the new name holds (it removes it
	 * and tries again); SMB's without ReplaceIfExists does not.  A rename
	 * the trace recorded succeeding found no such name: none is asked for
	 * (were one there, the replay's tree differs and it goes, as in
	 * libsmbclient's).  One recorded failing is asked first, counted.
	 */
	if ((op->oflags & RP_RN_NOREPLACE) && op->status != RP_STATUS_OK) {
		rp__smb_extra(cn, RP_SMB_FB_NOREPLACE);
		if (smbc_getFunctionStat(ctx)(ctx, cn->url2, &st) == 0)
			return EEXIST;
	}
	if (smbc_getFunctionRename(ctx)(ctx, cn->url, ctx, cn->url2) < 0) {
		rc = rp__smb_failed(cn);
		if (rc != EBUSY || !park(cn, op, req->path))
			return rc;
		rc = smbc_getFunctionRename(ctx)(ctx, cn->url, ctx, cn->url2) < 0 ? rp__smb_failed(cn) : 0;
	}
	if (rc == 0)
		files_renamed(cn, req->path, req->path2);
	unpark(cn);
	return rc;
}

/* Ops by name (no handle), and stat/statfs on a handle. */
static int by_name(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	SMBCCTX *const ctx = cn->ctx;
	int rc = rp__smb_url(cn, cn->url, req->path);
	if (rc)
		return rc;
	struct stat st;
	switch (op->op) {
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		return smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0 ? rp__smb_failed(cn) : 0;
	case RP_OP_STATFS:
		return rp__smb_statfs(cn, NULL);
	case RP_OP_UNLINK:
		if (smbc_getFunctionUnlink(ctx)(ctx, cn->url) == 0)
			return 0;
		rc = rp__smb_failed(cn);
		if (rc == EBUSY && park(cn, op, req->path)) {
			rc = smbc_getFunctionUnlink(ctx)(ctx, cn->url) < 0 ? rp__smb_failed(cn) : 0;
			unpark(cn);
		}
		return rc;
	case RP_OP_MKDIR:
		if (smbc_getFunctionMkdir(ctx)(ctx, cn->url, op->mode ? op->mode & 0777 : 0777) < 0)
			return rp__smb_failed(cn);
		rp__smb_beneath_made(cn, req->path);
		return 0;
	case RP_OP_RMDIR:
		return smbc_getFunctionRmdir(ctx)(ctx, cn->url) < 0 ? rp__smb_failed(cn) : 0;
	case RP_OP_RENAME:
		return do_rename(cn, req);
	case RP_OP_DELTREE:
		rc = do_deltree(cn, req->path);
		req->escape = rc == EXDEV; /* a symlinked directory inside: no server's status for a delete */
		return rc;
	default:
		return EOPNOTSUPP;
	}
}

/* Ops by name; what they removed or renamed loses its verdict (smb_beneath.c), whatever their status. */
int rp__smb_by_name(smb_conn *cn, rp_breq *req)
{
	const int rc = by_name(cn, req);
	const int op = req->op->op;
	if (op == RP_OP_UNLINK || op == RP_OP_RMDIR || op == RP_OP_RENAME || op == RP_OP_DELTREE) {
		rp__smb_beneath_forget(cn, req->path);
		if (op == RP_OP_RENAME)
			rp__smb_beneath_forget(cn, req->path2);
	}
	return rc;
}
