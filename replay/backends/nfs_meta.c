/*
 * The nfs backend's attribute, namespace and listing ops, below the
 * dispatch of nfs_ops.c (which has opens and I/O): setattr attribute by
 * attribute, readdir counted as posix counts, deltree, the one-call ops.
 * Each takes its request to the end through nfs_req.c, or hands it back.
 * docs/replay.md, "NFS backend".
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "formats/posixsem.h"

/* The times a setattr sets: SETATTR sets both, so the one the op does not set keeps its value (st, the pre-stat's). */
static void setattr_times(const rp_op *op, const struct nfs_stat_64 *st, struct timeval tv[2])
{
	tv[0] = (struct timeval){ .tv_sec = (time_t)st->nfs_atime, .tv_usec = (suseconds_t)(st->nfs_atime_nsec / 1000) };
	tv[1] = (struct timeval){ .tv_sec = (time_t)st->nfs_mtime, .tv_usec = (suseconds_t)(st->nfs_mtime_nsec / 1000) };
	struct timeval now;
	gettimeofday(&now, NULL);
	const uint64_t t[2] = { op->atime, op->mtime };
	const uint32_t set[2] = { RP_SA_ATIME, RP_SA_MTIME }, setnow[2] = { RP_SA_ATIME_NOW, RP_SA_MTIME_NOW };
	for (int i = 0; i < 2; i++) {
		if (op->attrs & set[i])
			tv[i] = (struct timeval){ .tv_sec = (time_t)(t[i] / 1000000000u),
						  .tv_usec = (suseconds_t)(t[i] % 1000000000u / 1000u) };
		else if (op->attrs & setnow[i])
			tv[i] = now;
	}
}

/* The next attribute of a setattr, or its end. */
static void setattr_next(nreq *q)
{
	nfs_client *const c = q->c;
	const rp_op *const op = q->req->op;
	struct nfsfh *const fh = q->f && !q->f->dir ? q->f->fh : NULL;
	const char *const path = q->f ? q->f->path : q->path;
	/*
	 * libnfs 4.0 sets NFSv4 attributes by path (lchmod, lchown, truncate,
	 * lutimes) through an OPEN and CLOSE of its own: the CLOSE ends the open
	 * state other handles of the file share, and the open-owner's seqid goes
	 * wrong (later OPENs fail NFS4ERR_BAD_SEQID, I/O NFS4ERR_BAD_STATEID;
	 * measured against ganesha).  It has no call that sets times on a handle.
	 * So on NFSv4 those go through a second context of the client's
	 * (rp__nfs_side), synchronously, one step after another.
	 */
	if (c->nb->version == 4 && (q->sa & (fh ? RP_NFS_SA_TIMES : ~0u))) {
		struct nfs_context *const side = rp__nfs_side(c);
		if (!side) {
			rp__nfs_finish(q, EIO);
			return;
		}
		int rc = 0;
		if (q->sa & RP_NFS_SA_SIZE) {
			q->sa &= ~(unsigned)RP_NFS_SA_SIZE;
			const bool trunc = (op->attrs & RP_SA_SIZE) || op->offset < q->st.nfs_size;
			if (trunc)
				rc = nfs_truncate(side, path, op->attrs & RP_SA_SIZE ? op->length : op->offset);
		} else if (q->sa & RP_NFS_SA_MODE) {
			q->sa &= ~(unsigned)RP_NFS_SA_MODE;
			rc = nfs_lchmod(side, path, (int)rp__nfs_mode(c, op->mode));
		} else if (q->sa & RP_NFS_SA_OWNER) {
			q->sa &= ~(unsigned)RP_NFS_SA_OWNER;
			rc = nfs_lchown(side, path, op->attrs & RP_SA_UID ? (int)op->uid : (int)q->st.nfs_uid,
					op->attrs & RP_SA_GID ? (int)op->gid : (int)q->st.nfs_gid);
		} else {
			q->sa &= ~(unsigned)RP_NFS_SA_TIMES;
			struct timeval tv[2];
			setattr_times(op, &q->st, tv);
			rc = nfs_lutimes(side, path, tv);
		}
		if (rc < 0)
			rp__nfs_finish(q, rp__nfs_status(rc));
		else
			setattr_next(q);
		return;
	}
	q->step = S_SETATTR;
	if (q->sa & RP_NFS_SA_SIZE) {
		q->sa &= ~(unsigned)RP_NFS_SA_SIZE;
		uint64_t size = op->length;
		if (!(op->attrs & RP_SA_SIZE)) {
			/* An allocation below the size truncates there; at or above it the data stays (MS-FSCC 2.4.4). */
			if (op->offset >= q->st.nfs_size) {
				setattr_next(q);
				return;
			}
			size = op->offset;
		}
		rp__nfs_queued(q, fh ? nfs_ftruncate_async(c->nfs, fh, size, rp__nfs_reply_cb, q)
			     : nfs_truncate_async(c->nfs, path, size, rp__nfs_reply_cb, q));
		return;
	}
	if (q->sa & RP_NFS_SA_MODE) {
		q->sa &= ~(unsigned)RP_NFS_SA_MODE;
		const int mode = (int)rp__nfs_mode(c, op->mode);
		rp__nfs_queued(q, fh ? nfs_fchmod_async(c->nfs, fh, mode, rp__nfs_reply_cb, q) : nfs_lchmod_async(c->nfs, path, mode, rp__nfs_reply_cb, q));
		return;
	}
	if (q->sa & RP_NFS_SA_OWNER) {
		q->sa &= ~(unsigned)RP_NFS_SA_OWNER;
		const int uid = op->attrs & RP_SA_UID ? (int)op->uid : (int)q->st.nfs_uid;
		const int gid = op->attrs & RP_SA_GID ? (int)op->gid : (int)q->st.nfs_gid;
		rp__nfs_queued(q, fh ? nfs_fchown_async(c->nfs, fh, uid, gid, rp__nfs_reply_cb, q)
			     : nfs_lchown_async(c->nfs, path, uid, gid, rp__nfs_reply_cb, q));
		return;
	}
	if (q->sa & RP_NFS_SA_TIMES) {
		q->sa &= ~(unsigned)RP_NFS_SA_TIMES;
		struct timeval tv[2];
		setattr_times(op, &q->st, tv);
		rp__nfs_queued(q, nfs_lutimes_async(c->nfs, path, tv, rp__nfs_reply_cb, q));
		return;
	}
	q->status = 0;
	rp__nfs_finish(q, 0);
}

static void readdir_done(nreq *q, struct nfsdir *dir);

/* A reply to a call of this file's steps. */
static void meta_reply(nreq *q, int err, void *data)
{
	nfs_client *const c = q->c;
	switch (q->step) {
	case S_PRESTAT:
		if (err < 0) {
			rp__nfs_finish(q, rp__nfs_status(err));
			return;
		}
		q->st = *(const struct nfs_stat_64 *)data;
		setattr_next(q);
		return;
	case S_SETATTR:
		if (err < 0)
			rp__nfs_finish(q, rp__nfs_status(err));
		else
			setattr_next(q);
		return;
	case S_NOREPLACE:
		if (err == 0)
			rp__nfs_finish(q, EEXIST);
		else if (err != -ENOENT)
			rp__nfs_finish(q, rp__nfs_status(err));
		else {
			q->step = S_SIMPLE;
			rp__nfs_queued(q, nfs_rename_async(c->nfs, q->path, q->path2, rp__nfs_reply_cb, q));
		}
		return;
	case S_READDIR:
		if (err < 0)
			rp__nfs_finish(q, rp__nfs_status(err));
		else
			readdir_done(q, data);
		return;
	case S_SIMPLE:
		if (err >= 0 && q->req->op->op == RP_OP_READLINK && data) {
			/*
			 * NFSv3's text is a string libnfs decoded (NUL-terminated);
			 * NFSv4's points into the reply with no NUL after it (AddressSanitizer:
			 * strlen read past the receive buffer on a planted link), so there the
			 * link's size from a GETATTR is the length.
			 */
			if (c->nb->version == 4) {
				q->step = S_LINKLEN;
				rp__nfs_queued(q, nfs_lstat64_async(c->nfs, q->path, rp__nfs_reply_cb, q));
				return;
			}
			q->req->result = strlen(data);
		}
		rp__nfs_finish(q, rp__nfs_status(err));
		return;
	case S_LINKLEN:
		if (err >= 0)
			q->req->result = ((const struct nfs_stat_64 *)data)->nfs_size;
		rp__nfs_finish(q, rp__nfs_status(err));
		return;
	case S_OPEN:
	case S_MKDIR_OPEN:
	case S_DIRSTAT:
	case S_TMPOPEN:
	case S_IO:
	case S_COMMIT:
	case S_TMPCLOSE:
	case S_CLOSE:
	case S_MKNOD_FILE:
	case S_V4CHECK:
	case S_V4INO:
	case S_V4TRUNC:
	case S_CHECK:
	case S_V4WAIT:
		rp__nfs_finish(q, EIO); /* nfs_ops.c's, never here */
		return;
	}
}

void rp__nfs_setattr_start(nreq *q)
{
	nfs_client *const c = q->c;
	q->reply = meta_reply;
	q->sa = rp__nfs_setattr_steps(q->req->op->attrs);
	/* The attributes first: the allocation compares with the size, a partial owner or time set keeps the rest. */
	q->step = S_PRESTAT;
	if (q->f && !q->f->dir)
		rp__nfs_queued(q, nfs_fstat64_async(c->nfs, q->f->fh, rp__nfs_reply_cb, q));
	else
		rp__nfs_queued(q, nfs_lstat64_async(c->nfs, q->f ? q->f->path : q->path, rp__nfs_reply_cb, q));
}

/* A listing's entries counted as posix counts them (for a pattern: its matches). */
static void readdir_done(nreq *q, struct nfsdir *dir)
{
	nfs_client *const c = q->c;
	const rp_breq *const req = q->req;
	const char *const mask = req->path2 && req->path2[0] ? req->path2 : NULL;
	int rc = 0;
	if (mask && strlen(mask) > NAME_MAX)
		rc = ENAMETOOLONG;
	uint64_t n = 0;
	for (struct nfsdirent *e; rc == 0 && (e = nfs_readdir(c->nfs, dir)) != NULL;) {
		if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0)
			continue;
		n += !mask || rp_find_match(mask, e->name);
	}
	nfs_closedir(c->nfs, dir);
	/* As posix lists for a pattern: "." and ".." are entries (SMB servers list them), and no match is ENOENT. */
	if (rc == 0 && mask) {
		n += rp_find_dots(mask);
		if (n == 0)
			rc = ENOENT;
	}
	q->req->result = req->op->length && n > req->op->length ? req->op->length : n;
	rp__nfs_finish(q, rc);
}

/*
 * dbench's Deltree, synchronously (libnfs's own loop): remove path and
 * everything beneath it.  What is not there is no error, anywhere in the
 * walk (as posix's): a name another client removed meanwhile, or one the
 * server's cache still had after it went (ganesha's, for a directory removed
 * behind its back: the LOOKUP finds it, the READDIR does not).
 */
static int deltree(nfs_client *c, const char *path, int depth)
{
	rp__nfs_uncork(c); /* synchronous calls: what the submits wrote goes first */
	struct nfs_stat_64 st;
	int rc = nfs_lstat64(c->nfs, path, &st);
	if (rc < 0)
		return rc == -ENOENT ? 0 : -rc;
	if (!S_ISDIR(st.nfs_mode)) { /* a symlink is removed, never entered */
		rc = nfs_unlink(c->nfs, path);
		return rc == -ENOENT ? 0 : -rc;
	}
	if (depth > RP_NFS_DELTREE_DEPTH)
		return ELOOP;
	struct nfsdir *dir;
	rc = nfs_opendir(c->nfs, path, &dir);
	if (rc < 0)
		return rc == -ENOENT ? 0 : -rc;
	const size_t plen = strlen(path);
	int err = 0;
	for (struct nfsdirent *e; err == 0 && (e = nfs_readdir(c->nfs, dir)) != NULL;) {
		if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0)
			continue;
		char *const sub = malloc(plen + strlen(e->name) + 2);
		if (!sub) {
			err = ENOMEM;
			break;
		}
		strcpy(sub, path);
		if (plen == 0 || path[plen - 1] != '/')
			strcat(sub, "/");
		strcat(sub, e->name);
		err = deltree(c, sub, depth + 1);
		free(sub);
	}
	nfs_closedir(c->nfs, dir);
	if (err == 0 && strcmp(path, "/") != 0) {
		rc = nfs_rmdir(c->nfs, path);
		err = rc == -ENOENT ? 0 : -rc;
	}
	return err;
}

/*
 * NFSv4: the directories deltree's path goes through, each an lstat of the
 * path up to it (synchronously, as the walk): 0 when none is a symlink (or
 * one is not there or no directory: deltree's lstat answers), EXDEV and an escape for one
 * that is; libnfs would follow it, and overread its text (nfs_ops.c's check).
 */
static int deltree_beneath(nreq *q)
{
	nfs_client *const c = q->c;
	const char *const path = q->path;
	for (size_t at = 0;;) {
		while (path[at] == '/')
			at++;
		const size_t len = strcspn(path + at, "/");
		if (len == 0 || path[at + len] == '\0')
			return 0; /* the last component: deltree's lstat, not followed */
		char *const upto = strndup(path, at + len);
		if (!upto)
			return ENOMEM;
		struct nfs_stat_64 st;
		const int rc = nfs_lstat64(c->nfs, upto, &st);
		free(upto);
		if (rc == 0 && S_ISLNK(st.nfs_mode)) {
			q->req->escape = true;
			return EXDEV;
		}
		if (rc < 0 || !S_ISDIR(st.nfs_mode))
			return 0; /* no link on the way: deltree's own lstat gets what is there */
		at += len;
	}
}

/* Namespace ops and attribute queries: one call each (a rename without replacing asks first). */
bool rp__nfs_path_op(nreq *q)
{
	nfs_client *const c = q->c;
	const rp_op *const op = q->req->op;
	struct nfs_context *const nfs = c->nfs;
	q->reply = meta_reply;
	q->step = S_SIMPLE;
	switch (op->op) {
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		/* An open handle is what the op queries, even after its name went. */
		if (q->f && (!q->path || op->op == RP_OP_STAT)) {
			if (q->f->dir)
				rp__nfs_queued(q, nfs_stat64_async(nfs, q->f->path, rp__nfs_reply_cb, q));
			else
				rp__nfs_queued(q, nfs_fstat64_async(nfs, q->f->fh, rp__nfs_reply_cb, q));
			return true;
		}
		/* The last component itself, never what a symlink there names (as posix) */
		rp__nfs_queued(q, nfs_lstat64_async(nfs, q->path, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_MKDIR:
		rp__nfs_queued(q, nfs_mkdir2_async(nfs, q->path, (int)(op->mode ? rp__nfs_mode(c, op->mode) : 0777), rp__nfs_reply_cb, q));
		return true;
	case RP_OP_RMDIR:
		rp__nfs_queued(q, nfs_rmdir_async(nfs, q->path, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_UNLINK:
		rp__nfs_queued(q, nfs_unlink_async(nfs, q->path, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_RENAME:
		if (!q->path2) {
			rp__nfs_finish(q, EINVAL);
		} else if (op->oflags & (RP_RN_EXCHANGE | RP_RN_WHITEOUT)) {
			rp__nfs_finish(q, EINVAL); /* NFS has no exchanging rename */
		} else if (op->oflags & RP_RN_NOREPLACE) {
			q->step = S_NOREPLACE;
			rp__nfs_queued(q, nfs_lstat64_async(nfs, q->path2, rp__nfs_reply_cb, q));
		} else {
			rp__nfs_queued(q, nfs_rename_async(nfs, q->path, q->path2, rp__nfs_reply_cb, q));
		}
		return true;
	case RP_OP_LINK:
		if (!q->path2)
			rp__nfs_finish(q, EINVAL);
		else
			rp__nfs_queued(q, nfs_link_async(nfs, q->path, q->path2, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_SYMLINK:
		/* path is the new link, path2 its text: stored, never resolved by us */
		rp__nfs_queued(q, nfs_symlink_async(nfs, q->req->path2 ? q->req->path2 : "", q->path, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_READLINK:
		rp__nfs_queued(q, nfs_readlink_async(nfs, q->path, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_MKNOD: {
		/* Regular files and FIFOs only: a trace never gets to make device nodes (as posix). */
		const unsigned type = op->mode & S_IFMT;
		const unsigned perm = op->mode & 07777 ? rp__nfs_mode(c, op->mode) : 0666;
		if (type && type != S_IFREG && type != S_IFIFO) {
			rp__nfs_finish(q, EPERM);
		} else if (type == S_IFIFO) {
			rp__nfs_queued(q, nfs_mknod_async(nfs, q->path, (int)(S_IFIFO | perm), 0, rp__nfs_reply_cb, q));
		} else {
			q->mode = perm;
			return false; /* the caller's exclusive create, then its close */
		}
		return true;
	}
	case RP_OP_STATFS:
		rp__nfs_queued(q, nfs_statvfs64_async(nfs, q->f ? q->f->path : q->path, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_READDIR:
		q->step = S_READDIR;
		rp__nfs_queued(q, nfs_opendir_async(nfs, q->f ? q->f->path : q->path, rp__nfs_reply_cb, q));
		return true;
	case RP_OP_DELTREE: {
		if (strcmp(q->path, "/") == 0) {
			rp__nfs_finish(q, EINVAL);
			return true;
		}
		const int err = c->nb->version == 4 ? deltree_beneath(q) : 0;
		rp__nfs_finish(q, err ? err : deltree(c, q->path, 0));
		return true;
	}
	default:
		rp__nfs_finish(q, EINVAL);
		return true;
	}
}

