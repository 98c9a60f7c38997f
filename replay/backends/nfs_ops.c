/*
 * The nfs backend's ops: each engine request becomes a chain of libnfs
 * asynchronous calls (an nreq stepping from callback to callback) and
 * completes from the event loop (nfs.c).  The mapping: docs/replay.md, "NFS backend".
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

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
};

struct nreq {
	nreq *prev, *next; /* the client's live list: libnfs holds one callback of each */
	nfs_client *c;
	rp_breq *req; /* NULL once orphaned (completed without libnfs, which still holds its callback) */
	enum step step;
	nfile *f;       /* the handle the op works on */
	bool tmp;       /* f was opened by this request, and is closed by it */
	int flags;      /* open: open(2) flags */
	unsigned mode;
	bool fallback_ro, notdir;
	enum step after; /* S_V4CHECK: the step of the OPEN that follows */
	int asked;       /* NFSv4: the access mode the op asked for (files are opened read-write) */
	bool have_ino;   /* NFSv4: st holds the file's attributes from before the OPEN */
	uint64_t off, left, done;
	int status;     /* the op's status, kept while a closing step runs */
	unsigned sa;    /* setattr: steps left (RP_NFS_SA_*) */
	struct nfs_stat_64 st;
	char *path, *path2; /* "/"-rooted */
};

static void step_cb(int err, struct nfs_context *nfs, void *data, void *priv);
static nfile *new_file(nreq *q, struct nfsfh *fh, bool dir);
static struct nfsfh *drop_file(nfs_client *c, nfile *f);
static void deliver(nreq *q, nfile *f);
static void start_on_file(nreq *q);

/* For calls whose answer nothing waits for (a close of a handle no op owns any more). */
static void ignore_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)err, (void)nfs, (void)data, (void)priv;
}

static void live_add(nfs_client *c, nreq *q)
{
	q->prev = NULL;
	q->next = c->live;
	if (c->live)
		c->live->prev = q;
	c->live = q;
}

static void live_del(nfs_client *c, nreq *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		c->live = q->next;
	if (q->next)
		q->next->prev = q->prev;
	q->prev = q->next = NULL;
}

static void nreq_free(nreq *q)
{
	free(q->path);
	free(q->path2);
	free(q);
}

/* Complete the engine's request (once) with a positive errno or 0. */
static void complete(nfs_client *c, rp_breq *req, int status)
{
	req->status = status;
	c->completed++;
	if (req->cb)
		req->cb(req);
}

static void finish(nreq *q, int status)
{
	nfs_client *const c = q->c;
	live_del(c, q);
	rp_breq *const req = q->req;
	if (q->tmp && q->f) {
		/* A by-path op that failed before its close: the close is sent, its answer not waited for. */
		struct nfsfh *const fh = drop_file(c, q->f);
		if (fh && !c->lost && c->nfs)
			nfs_close_async(c->nfs, fh, ignore_cb, NULL);
	}
	nreq_free(q);
	if (req)
		complete(c, req, status);
}

/* After queueing a libnfs call: rc < 0 means it was not queued (no callback will come). */
static void queued(nreq *q, int rc)
{
	if (rc < 0)
		finish(q, rp__nfs_status(rc) ? rp__nfs_status(rc) : EIO);
}

/* The wants an open with these flags has (for the engine's NT checks). */
static uint32_t granted_of(int flags)
{
	const int acc = flags & O_ACCMODE;
	return RP_WANT_KNOWN | RP_WANT_READ_ATTR | RP_WANT_WRITE_ATTR | RP_WANT_DELETE |
	       (acc != O_WRONLY ? RP_WANT_READ | RP_WANT_EXEC : 0) | (acc != O_RDONLY ? RP_WANT_WRITE | RP_WANT_APPEND : 0);
}

static char *rooted(const char *p)
{
	const size_t n = strlen(p);
	char *const s = malloc(n + 2);
	if (s) {
		s[0] = '/';
		memcpy(s + 1, p, n + 1);
	}
	return s;
}

static unsigned trace_mode(const nfs_client *c, uint32_t mode)
{
	/* Set-id bits only with setid: replayed as root, a trace would otherwise plant set-id files (as posix). */
	return mode & (c->nb->setid ? 07777u : 01777u);
}

static const int disp_flags[RP_DISP__COUNT] = {
	[RP_DISP_OPEN] = 0,
	[RP_DISP_CREATE] = O_CREAT | O_EXCL,
	[RP_DISP_OPEN_IF] = O_CREAT,
	[RP_DISP_TRUNC] = O_TRUNC,
	[RP_DISP_TRUNC_IF] = O_CREAT | O_TRUNC,
	[RP_DISP_SUPERSEDE] = O_CREAT | O_TRUNC,
};

/*
 * nfs_open2 with flags, its callback's step `after`.  On NFSv4 only an OPEN
 * that should succeed is sent: libnfs 4.0 does not advance its open-owner's
 * seqid after an OPEN that fails (NFS4ERR_NOENT, _EXIST, ...) while the
 * server does, so the next OPEN is taken for a retransmission (answered with
 * the failed one's cached reply) and every CLOSE fails NFS4ERR_BAD_SEQID
 * (measured against ganesha).  A GETATTR of the name first (S_V4CHECK)
 * answers ENOENT, EEXIST, ELOOP and a directory itself; it also stands in
 * for O_CREAT without O_EXCL, which libnfs 4.0 sends as a create that fails
 * NFS4ERR_EXIST on a file that is there.
 */
static void open_checked(nreq *q, int flags, enum step after)
{
	nfs_client *const c = q->c;
	q->flags = flags;
	q->after = after;
	if (c->nb->version == 4) {
		/* Read-write, so that every handle of the file can share the open; the op's own access is what it is granted. */
		q->asked = flags & O_ACCMODE;
		if (after != S_MKNOD_FILE)
			q->flags = (flags & ~O_ACCMODE) | O_RDWR;
		q->step = S_V4CHECK;
		queued(q, (flags & O_NOFOLLOW) ? nfs_lstat64_async(c->nfs, q->path, step_cb, q)
					       : nfs_stat64_async(c->nfs, q->path, step_cb, q));
		return;
	}
	q->step = after;
	queued(q, nfs_open2_async(c->nfs, q->path, flags, (int)q->mode, step_cb, q));
}

static void issue_dirstat(nreq *q);

/* NFSv4: the name's attributes are in (err, st): answer the open, or send the OPEN that will succeed. */
static void v4_checked(nreq *q, int err, const struct nfs_stat_64 *st)
{
	nfs_client *const c = q->c;
	int fl = q->flags;
	if (err == -ENOENT) {
		if (!(fl & O_CREAT)) {
			finish(q, ENOENT);
			return;
		}
		fl = (fl & ~O_TRUNC) | O_EXCL; /* a new file: nothing to empty */
	} else if (err < 0) {
		finish(q, rp__nfs_status(err));
		return;
	} else if (fl & O_EXCL) {
		finish(q, EEXIST);
		return;
	} else if (S_ISLNK(st->nfs_mode)) {
		finish(q, ELOOP); /* O_NOFOLLOW, the only open that looks at the link itself */
		return;
	} else if (S_ISDIR(st->nfs_mode)) {
		/* As libnfs's NFSv3 open: a directory opened as a file is EISDIR (open_done makes it a directory handle). */
		q->step = q->after;
		step_cb(-EISDIR, c->nfs, NULL, q);
		return;
	} else {
		fl &= ~O_CREAT;
		q->st = *st;
		q->have_ino = true;
		if (q->after != S_MKNOD_FILE)
			for (nopen *o = c->opens; o; o = o->next) {
				if (o->ino != st->nfs_ino)
					continue;
				/* Open here already: one more handle on that open (emptied first if the open truncates). */
				nfile *const f = new_file(q, o->fh, false);
				if (!f) {
					finish(q, ENOMEM);
					return;
				}
				f->share = o;
				o->refs++;
				if (fl & O_TRUNC) {
					q->f = f;
					q->step = S_V4TRUNC;
					queued(q, nfs_ftruncate_async(c->nfs, o->fh, 0, step_cb, q));
					return;
				}
				q->step = q->after;
				deliver(q, f);
				return;
			}
	}
	q->step = q->after;
	queued(q, nfs_open2_async(c->nfs, q->path, fl, (int)q->mode, step_cb, q));
}

static void issue_open(nreq *q)
{
	open_checked(q, q->flags, S_OPEN);
}

static void issue_dirstat(nreq *q)
{
	q->step = S_DIRSTAT;
	queued(q, nfs_stat64_async(q->c->nfs, q->path, step_cb, q));
}

static nfile *new_file(nreq *q, struct nfsfh *fh, bool dir)
{
	nfile *const f = malloc(sizeof(*f));
	char *const p = strdup(q->path);
	if (!f || !p) {
		free(f);
		free(p);
		return NULL;
	}
	*f = (nfile){ .fh = fh, .path = p, .dir = dir };
	return f;
}

/*
 * Free a handle; the libnfs open to close, if this was its last handle
 * (NULL when none: a directory, or an NFSv4 open other handles still share).
 */
static struct nfsfh *drop_file(nfs_client *c, nfile *f)
{
	struct nfsfh *fh = f->fh;
	nopen *const o = f->share;
	if (o && --o->refs > 0) {
		fh = NULL;
	} else if (o) {
		for (nopen **pp = &c->opens; *pp; pp = &(*pp)->next)
			if (*pp == o) {
				*pp = o->next;
				break;
			}
		free(o);
	}
	free(f->path);
	free(f);
	return fh;
}

/* The open's handle is there: an open op's answer, or the by-path op goes on with it. */
static void deliver(nreq *q, nfile *f)
{
	if (q->step == S_TMPOPEN || q->after == S_TMPOPEN) {
		q->f = f;
		q->tmp = true;
		start_on_file(q);
		return;
	}
	q->req->bh = (uint64_t)(uintptr_t)f;
	q->req->granted = granted_of(q->c->nb->version == 4 ? q->asked : q->flags);
	finish(q, 0);
}

/* NFSv4: a new libnfs open (q->st.nfs_ino its file) shared from now on. */
static void share_new(nreq *q, struct nfsfh *fh)
{
	nfs_client *const c = q->c;
	nopen *const o = malloc(sizeof(*o));
	nfile *const f = o ? new_file(q, fh, false) : NULL;
	if (!f) {
		free(o);
		nfs_close_async(c->nfs, fh, ignore_cb, NULL);
		finish(q, ENOMEM);
		return;
	}
	*o = (nopen){ .next = c->opens, .fh = fh, .ino = q->st.nfs_ino, .refs = 1 };
	c->opens = o;
	f->share = o;
	deliver(q, f);
}

/* The OPEN succeeded with fh: on NFSv4 shared (its fileid first, if it was created), else a handle of its own. */
static void opened(nreq *q, struct nfsfh *fh)
{
	nfs_client *const c = q->c;
	if (c->nb->version == 4) {
		if (q->have_ino) {
			share_new(q, fh);
			return;
		}
		q->f = new_file(q, fh, false); /* held here until the fileid is known */
		if (!q->f) {
			nfs_close_async(c->nfs, fh, ignore_cb, NULL);
			finish(q, ENOMEM);
			return;
		}
		q->step = S_V4INO;
		queued(q, nfs_fstat64_async(c->nfs, fh, step_cb, q));
		return;
	}
	nfile *const f = new_file(q, fh, false);
	if (!f) {
		nfs_close_async(c->nfs, fh, ignore_cb, NULL);
		finish(q, ENOMEM);
		return;
	}
	deliver(q, f);
}

static void open_done(nreq *q, int err, void *data)
{
	if (err == 0) {
		opened(q, data);
		return;
	}
	if (err == -EACCES && q->fallback_ro && (q->flags & O_ACCMODE) == O_RDWR) {
		q->flags = (q->flags & ~O_ACCMODE) | O_RDONLY;
		issue_open(q);
		return;
	}
	/* A directory opened as a file: a handle on the directory, unless the open had to empty or make a file. */
	if (err == -EISDIR && !q->notdir && !(q->flags & (O_EXCL | O_TRUNC))) {
		issue_dirstat(q);
		return;
	}
	finish(q, rp__nfs_status(err));
}

static void start_open(nreq *q)
{
	const rp_op *const op = q->req->op;
	const bool dir = (op->flags & RP_OPF_DIRECTORY) || (op->oflags & RP_OF_DIRECTORY);
	const int disp = op->disp < RP_DISP__COUNT ? disp_flags[op->disp] : 0;
	q->mode = op->mode ? trace_mode(q->c, op->mode) : dir ? 0777 : 0666;
	q->notdir = (op->oflags & RP_OF_NOT_DIRECTORY) != 0;
	if (dir) {
		q->flags = disp;
		if (disp & O_CREAT) {
			q->step = S_MKDIR_OPEN;
			queued(q, nfs_mkdir2_async(q->c->nfs, q->path, (int)q->mode, step_cb, q));
		} else {
			issue_dirstat(q);
		}
		return;
	}
	const uint32_t w = op->want;
	int acc;
	if (!(w & RP_WANT_KNOWN) || (w & RP_WANT_MAX)) {
		acc = O_RDWR; /* not recorded (NFSv3, loadfiles) or as much as allowed: read-write, else read-only */
		q->fallback_ro = true;
	} else {
		const bool rd = (w & (RP_WANT_READ | RP_WANT_EXEC)) != 0, wr = (w & (RP_WANT_WRITE | RP_WANT_APPEND)) != 0;
		acc = rd && wr ? O_RDWR : wr ? O_WRONLY : O_RDONLY;
		q->fallback_ro = !rd && !wr; /* attributes only: read-write where allowed, as the NT layer expects */
		if (q->fallback_ro)
			acc = O_RDWR;
	}
	q->flags = acc | disp;
	q->flags |= op->oflags & RP_OF_APPEND ? O_APPEND : 0;
	q->flags |= op->oflags & RP_OF_SYNC ? O_SYNC : 0;
	q->flags |= op->oflags & RP_OF_NOFOLLOW ? O_NOFOLLOW : 0;
	issue_open(q);
}

/* One piece of a read or write, or the end of it. */
static void issue_io(nreq *q)
{
	nfs_client *const c = q->c;
	const bool write = q->req->op->op == RP_OP_WRITE;
	if (q->left == 0) {
		q->req->result = q->done;
		/* A stable write (FILE_SYNC, O_SYNC in the trace) on a handle libnfs writes unstable: COMMIT it. */
		if (write && (q->req->op->flags & RP_OPF_STABLE)) {
			q->step = S_COMMIT;
			queued(q, nfs_fsync_async(c->nfs, q->f->fh, step_cb, q));
			return;
		}
		q->status = 0;
		q->step = S_TMPCLOSE;
		step_cb(0, c->nfs, NULL, q);
		return;
	}
	const uint64_t max = write ? c->wmax : c->rmax;
	const uint64_t n = q->left < max ? q->left : max;
	q->step = S_IO;
	if (write)
		queued(q, nfs_pwrite_async(c->nfs, q->f->fh, q->off, n, q->req->zero ? c->zbuf : c->wbuf, step_cb, q));
	else
		queued(q, nfs_pread_async(c->nfs, q->f->fh, q->off, n, step_cb, q));
}

/* The handle op proper, once q->f is there. */
static void start_on_file(nreq *q)
{
	nfs_client *const c = q->c;
	const rp_op *const op = q->req->op;
	switch (op->op) {
	case RP_OP_READ:
	case RP_OP_WRITE:
		if (q->f->dir) {
			finish(q, EISDIR);
			return;
		}
		q->off = op->offset;
		q->left = op->length;
		issue_io(q);
		return;
	case RP_OP_FLUSH:
		if (q->f->dir) {
			finish(q, 0);
			return;
		}
		q->step = S_COMMIT;
		queued(q, nfs_fsync_async(c->nfs, q->f->fh, step_cb, q));
		return;
	default:
		finish(q, EINVAL);
	}
}

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
static void issue_setattr(nreq *q)
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
			finish(q, EIO);
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
			rc = nfs_lchmod(side, path, (int)trace_mode(c, op->mode));
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
			finish(q, rp__nfs_status(rc));
		else
			issue_setattr(q);
		return;
	}
	q->step = S_SETATTR;
	if (q->sa & RP_NFS_SA_SIZE) {
		q->sa &= ~(unsigned)RP_NFS_SA_SIZE;
		uint64_t size = op->length;
		if (!(op->attrs & RP_SA_SIZE)) {
			/* An allocation below the size truncates there; at or above it the data stays (MS-FSCC 2.4.4). */
			if (op->offset >= q->st.nfs_size) {
				issue_setattr(q);
				return;
			}
			size = op->offset;
		}
		queued(q, fh ? nfs_ftruncate_async(c->nfs, fh, size, step_cb, q)
			     : nfs_truncate_async(c->nfs, path, size, step_cb, q));
		return;
	}
	if (q->sa & RP_NFS_SA_MODE) {
		q->sa &= ~(unsigned)RP_NFS_SA_MODE;
		const int mode = (int)trace_mode(c, op->mode);
		queued(q, fh ? nfs_fchmod_async(c->nfs, fh, mode, step_cb, q) : nfs_lchmod_async(c->nfs, path, mode, step_cb, q));
		return;
	}
	if (q->sa & RP_NFS_SA_OWNER) {
		q->sa &= ~(unsigned)RP_NFS_SA_OWNER;
		const int uid = op->attrs & RP_SA_UID ? (int)op->uid : (int)q->st.nfs_uid;
		const int gid = op->attrs & RP_SA_GID ? (int)op->gid : (int)q->st.nfs_gid;
		queued(q, fh ? nfs_fchown_async(c->nfs, fh, uid, gid, step_cb, q)
			     : nfs_lchown_async(c->nfs, path, uid, gid, step_cb, q));
		return;
	}
	if (q->sa & RP_NFS_SA_TIMES) {
		q->sa &= ~(unsigned)RP_NFS_SA_TIMES;
		struct timeval tv[2];
		setattr_times(op, &q->st, tv);
		queued(q, nfs_lutimes_async(c->nfs, path, tv, step_cb, q));
		return;
	}
	q->status = 0;
	finish(q, 0);
}

static void start_setattr(nreq *q)
{
	nfs_client *const c = q->c;
	q->sa = rp__nfs_setattr_steps(q->req->op->attrs);
	/* The attributes first: the allocation compares with the size, a partial owner or time set keeps the rest. */
	q->step = S_PRESTAT;
	if (q->f && !q->f->dir)
		queued(q, nfs_fstat64_async(c->nfs, q->f->fh, step_cb, q));
	else
		queued(q, nfs_lstat64_async(c->nfs, q->f ? q->f->path : q->path, step_cb, q));
}

static void readdir_done(nreq *q, struct nfsdir *dir)
{
	nfs_client *const c = q->c;
	const rp_breq *const req = q->req;
	char pat[2 * NAME_MAX + 1];
	const char *const mask = req->path2 && req->path2[0] ? req->path2 : NULL;
	int rc = 0;
	if (mask && (strlen(mask) > NAME_MAX || rp__nfs_pattern(mask, pat, sizeof(pat)) != 0))
		rc = ENAMETOOLONG;
	uint64_t n = 0;
	for (struct nfsdirent *e; rc == 0 && (e = nfs_readdir(c->nfs, dir)) != NULL;) {
		if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0)
			continue;
		n += !mask || fnmatch(pat, e->name, FNM_CASEFOLD) == 0;
	}
	nfs_closedir(c->nfs, dir);
	/* As posix lists for a pattern: "." and ".." are entries (SMB servers list them), and no match is ENOENT. */
	if (rc == 0 && mask) {
		n += (fnmatch(pat, ".", FNM_CASEFOLD) == 0) + (fnmatch(pat, "..", FNM_CASEFOLD) == 0);
		if (n == 0)
			rc = ENOENT;
	}
	q->req->result = req->op->length && n > req->op->length ? req->op->length : n;
	finish(q, rc);
}

/* dbench's Deltree, synchronously (libnfs's own loop): remove path and everything beneath it; none there is fine. */
static int deltree(nfs_client *c, const char *path, int depth)
{
	struct nfs_stat_64 st;
	int rc = nfs_lstat64(c->nfs, path, &st);
	if (rc < 0)
		return rc == -ENOENT ? 0 : -rc;
	if (!S_ISDIR(st.nfs_mode)) /* a symlink is removed, never entered */
		return -nfs_unlink(c->nfs, path);
	if (depth > RP_NFS_DELTREE_DEPTH)
		return ELOOP;
	struct nfsdir *dir;
	rc = nfs_opendir(c->nfs, path, &dir);
	if (rc < 0)
		return -rc;
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
	if (err == 0 && strcmp(path, "/") != 0)
		err = -nfs_rmdir(c->nfs, path);
	return err < 0 ? -err : err;
}

/* Namespace ops and attribute queries: one call each (a rename without replacing asks first). */
static void start_path_op(nreq *q)
{
	nfs_client *const c = q->c;
	const rp_op *const op = q->req->op;
	struct nfs_context *const nfs = c->nfs;
	q->step = S_SIMPLE;
	switch (op->op) {
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		/* The last component itself, never what a symlink there names (as posix) */
		queued(q, nfs_lstat64_async(nfs, q->path, step_cb, q));
		return;
	case RP_OP_MKDIR:
		queued(q, nfs_mkdir2_async(nfs, q->path, (int)(op->mode ? trace_mode(c, op->mode) : 0777), step_cb, q));
		return;
	case RP_OP_RMDIR:
		queued(q, nfs_rmdir_async(nfs, q->path, step_cb, q));
		return;
	case RP_OP_UNLINK:
		queued(q, nfs_unlink_async(nfs, q->path, step_cb, q));
		return;
	case RP_OP_RENAME:
		if (!q->path2) {
			finish(q, EINVAL);
		} else if (op->oflags & (RP_RN_EXCHANGE | RP_RN_WHITEOUT)) {
			finish(q, EINVAL); /* NFS has no exchanging rename */
		} else if (op->oflags & RP_RN_NOREPLACE) {
			q->step = S_NOREPLACE;
			queued(q, nfs_lstat64_async(nfs, q->path2, step_cb, q));
		} else {
			queued(q, nfs_rename_async(nfs, q->path, q->path2, step_cb, q));
		}
		return;
	case RP_OP_LINK:
		if (!q->path2)
			finish(q, EINVAL);
		else
			queued(q, nfs_link_async(nfs, q->path, q->path2, step_cb, q));
		return;
	case RP_OP_SYMLINK:
		/* path is the new link, path2 its text: stored, never resolved by us */
		queued(q, nfs_symlink_async(nfs, q->req->path2 ? q->req->path2 : "", q->path, step_cb, q));
		return;
	case RP_OP_READLINK:
		queued(q, nfs_readlink_async(nfs, q->path, step_cb, q));
		return;
	case RP_OP_MKNOD: {
		/* Regular files and FIFOs only: a trace never gets to make device nodes (as posix). */
		const unsigned type = op->mode & S_IFMT;
		const unsigned perm = op->mode & 07777 ? trace_mode(c, op->mode) : 0666;
		if (type && type != S_IFREG && type != S_IFIFO) {
			finish(q, EPERM);
		} else if (type == S_IFIFO) {
			queued(q, nfs_mknod_async(nfs, q->path, (int)(S_IFIFO | perm), 0, step_cb, q));
		} else {
			q->mode = perm;
			open_checked(q, O_WRONLY | O_CREAT | O_EXCL, S_MKNOD_FILE);
		}
		return;
	}
	case RP_OP_STATFS:
		queued(q, nfs_statvfs64_async(nfs, q->f ? q->f->path : q->path, step_cb, q));
		return;
	case RP_OP_READDIR:
		q->step = S_READDIR;
		queued(q, nfs_opendir_async(nfs, q->f ? q->f->path : q->path, step_cb, q));
		return;
	case RP_OP_DELTREE:
		finish(q, strcmp(q->path, "/") == 0 ? EINVAL : deltree(c, q->path, 0));
		return;
	default:
		finish(q, EINVAL);
	}
}

static void step_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)nfs;
	nreq *const q = priv;
	if (!q->req) {
		/* Orphaned: the engine has its answer already; libnfs let go of the request now. */
		live_del(q->c, q);
		nreq_free(q);
		return;
	}
	nfs_client *const c = q->c;
	switch (q->step) {
	case S_OPEN:
		open_done(q, err, data);
		return;
	case S_MKDIR_OPEN:
		if (err < 0 && (err != -EEXIST || (q->flags & O_EXCL))) {
			finish(q, rp__nfs_status(err));
			return;
		}
		issue_dirstat(q);
		return;
	case S_DIRSTAT: {
		if (err < 0) {
			finish(q, rp__nfs_status(err));
			return;
		}
		if (!S_ISDIR(((const struct nfs_stat_64 *)data)->nfs_mode)) {
			finish(q, ENOTDIR);
			return;
		}
		nfile *const f = new_file(q, NULL, true);
		if (!f) {
			finish(q, ENOMEM);
			return;
		}
		q->req->bh = (uint64_t)(uintptr_t)f;
		q->req->granted = RP_WANT_KNOWN | RP_WANT_ALL;
		finish(q, 0);
		return;
	}
	case S_TMPOPEN:
		if (err < 0) {
			finish(q, rp__nfs_status(err));
			return;
		}
		opened(q, data);
		return;
	case S_V4INO: {
		nfile *const held = q->f;
		struct nfsfh *const fh = held->fh;
		q->f = NULL;
		free(held->path);
		free(held);
		if (err < 0) {
			nfs_close_async(c->nfs, fh, ignore_cb, NULL);
			finish(q, rp__nfs_status(err));
			return;
		}
		q->st = *(const struct nfs_stat_64 *)data;
		share_new(q, fh);
		return;
	}
	case S_V4TRUNC:
		if (err < 0) {
			struct nfsfh *const fh = drop_file(c, q->f);
			q->f = NULL;
			if (fh)
				nfs_close_async(c->nfs, fh, ignore_cb, NULL);
			finish(q, rp__nfs_status(err));
			return;
		}
		{
			nfile *const f = q->f;
			q->f = NULL;
			deliver(q, f);
		}
		return;
	case S_IO:
		if (err < 0) {
			q->req->result = q->done;
			q->status = rp__nfs_status(err);
			q->step = S_TMPCLOSE;
			step_cb(0, nfs, NULL, q);
			return;
		}
		if (q->req->op->op == RP_OP_WRITE && err == 0) {
			q->req->result = q->done;
			q->status = EIO; /* a write that moves nothing cannot finish */
			q->step = S_TMPCLOSE;
			step_cb(0, nfs, NULL, q);
			return;
		}
		q->done += (uint64_t)err;
		q->off += (uint64_t)err;
		const uint64_t asked = q->left < (q->req->op->op == RP_OP_WRITE ? c->wmax : c->rmax)
					       ? q->left
					       : (q->req->op->op == RP_OP_WRITE ? c->wmax : c->rmax);
		q->left -= (uint64_t)err;
		if (q->req->op->op == RP_OP_READ && (uint64_t)err < asked)
			q->left = 0; /* the end of the file */
		issue_io(q);
		return;
	case S_COMMIT:
		q->status = rp__nfs_status(err);
		q->step = S_TMPCLOSE;
		step_cb(0, nfs, NULL, q);
		return;
	case S_TMPCLOSE:
		if (!q->tmp) {
			finish(q, q->status);
			return;
		}
		{
			struct nfsfh *const fh = drop_file(c, q->f);
			q->f = NULL;
			q->tmp = false;
			q->step = S_CLOSE;
			if (!fh || nfs_close_async(c->nfs, fh, step_cb, q) < 0)
				finish(q, q->status);
		}
		return;
	case S_CLOSE:
		finish(q, q->status ? q->status : rp__nfs_status(err));
		return;
	case S_PRESTAT:
		if (err < 0) {
			finish(q, rp__nfs_status(err));
			return;
		}
		q->st = *(const struct nfs_stat_64 *)data;
		issue_setattr(q);
		return;
	case S_SETATTR:
		if (err < 0)
			finish(q, rp__nfs_status(err));
		else
			issue_setattr(q);
		return;
	case S_NOREPLACE:
		if (err == 0)
			finish(q, EEXIST);
		else if (err != -ENOENT)
			finish(q, rp__nfs_status(err));
		else {
			q->step = S_SIMPLE;
			queued(q, nfs_rename_async(c->nfs, q->path, q->path2, step_cb, q));
		}
		return;
	case S_MKNOD_FILE:
		if (err < 0) {
			finish(q, rp__nfs_status(err));
			return;
		}
		q->status = 0;
		q->step = S_CLOSE;
		queued(q, nfs_close_async(c->nfs, data, step_cb, q));
		return;
	case S_READDIR:
		if (err < 0)
			finish(q, rp__nfs_status(err));
		else
			readdir_done(q, data);
		return;
	case S_V4CHECK:
		v4_checked(q, err, data);
		return;
	case S_SIMPLE:
		if (err >= 0 && q->req->op->op == RP_OP_READLINK && data)
			q->req->result = strlen(data);
		finish(q, rp__nfs_status(err));
		return;
	}
}

void rp__nfs_start(nfs_client *c, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (c->lost) {
		complete(c, req, EIO); /* the connection is gone: the engine stops this client before its next op */
		return;
	}
	if (req->no_handle) {
		complete(c, req, EBADF); /* what an invalid handle gets, without resolving any path */
		return;
	}
	nreq *const q = calloc(1, sizeof(*q));
	if (!q) {
		complete(c, req, ENOMEM);
		return;
	}
	q->c = c;
	q->req = req;
	q->f = req->bh ? (nfile *)(uintptr_t)req->bh : NULL;
	if ((req->path && !(q->path = rooted(req->path))) || (req->path2 && !(q->path2 = rooted(req->path2)))) {
		nreq_free(q);
		complete(c, req, ENOMEM);
		return;
	}
	live_add(c, q);
	switch (op->op) {
	case RP_OP_OPEN:
		if (!q->path)
			finish(q, EINVAL);
		else
			start_open(q);
		return;
	case RP_OP_CLOSE:
		if (!q->f) {
			finish(q, q->path ? 0 : EBADF); /* by path (NFSv3): nothing of ours is open under it */
			return;
		}
		req->bh = 0;
		if (q->f->dir) {
			free(q->f->path);
			free(q->f);
			q->f = NULL;
			finish(q, 0);
			return;
		}
		{
			struct nfsfh *const fh = drop_file(c, q->f);
			q->f = NULL;
			q->status = 0;
			q->step = S_CLOSE;
			if (!fh)
				finish(q, 0); /* NFSv4: another handle still has the file open */
			else
				queued(q, nfs_close_async(c->nfs, fh, step_cb, q));
		}
		return;
	case RP_OP_READ:
	case RP_OP_WRITE:
	case RP_OP_FLUSH:
		if (q->f) {
			start_on_file(q);
		} else if (q->path) {
			/* NFSv3 READ/WRITE/COMMIT on a handle never opened: open the path, do it, close. */
			open_checked(q, op->op == RP_OP_READ ? O_RDONLY : O_RDWR, S_TMPOPEN);
		} else {
			finish(q, EBADF);
		}
		return;
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		/* An open handle is what the op queries, even after its name went. */
		if (q->f && (!q->path || op->op == RP_OP_STAT)) {
			q->step = S_SIMPLE;
			if (q->f->dir)
				queued(q, nfs_stat64_async(c->nfs, q->f->path, step_cb, q));
			else
				queued(q, nfs_fstat64_async(c->nfs, q->f->fh, step_cb, q));
			return;
		}
		if (!q->path) {
			finish(q, EBADF);
			return;
		}
		start_path_op(q);
		return;
	case RP_OP_SETATTR:
		if (!q->f && !q->path)
			finish(q, EBADF);
		else
			start_setattr(q);
		return;
	case RP_OP_STATFS:
		if (!q->f && !q->path && !(q->path = rooted("")))
			finish(q, ENOMEM);
		else
			start_path_op(q);
		return;
	case RP_OP_READDIR:
		if (!q->f && !q->path)
			finish(q, EBADF);
		else
			start_path_op(q);
		return;
	default:
		if (!q->path)
			finish(q, EINVAL);
		else
			start_path_op(q);
		return;
	}
}

void rp__nfs_orphan_all(nfs_client *c)
{
	for (nreq *q = c->live; q; q = q->next) {
		rp_breq *const req = q->req;
		if (!req)
			continue;
		q->req = NULL;
		complete(c, req, EIO);
	}
}

void rp__nfs_free_orphans(nfs_client *c)
{
	while (c->live) {
		nreq *const q = c->live;
		live_del(c, q);
		nreq_free(q);
	}
}

void rp__nfs_release(nfs_client *c, uint64_t bh)
{
	nfile *const f = (nfile *)(uintptr_t)bh;
	if (!f)
		return;
	/* The close is sent and its answer not waited for: nothing waits on a handle the trace left open. */
	struct nfsfh *const fh = drop_file(c, f);
	if (fh && !c->lost && c->nfs)
		nfs_close_async(c->nfs, fh, ignore_cb, NULL);
}
