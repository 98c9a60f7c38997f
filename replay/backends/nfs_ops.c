/*
 * The nfs backend's ops: each engine request becomes a chain of libnfs
 * asynchronous calls (an nreq stepping from callback to callback) and
 * completes from the event loop (nfs.c).  The mapping: docs/replay.md, "NFS backend".
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nfsc/libnfs-raw-nfs.h>
#include <nfsc/libnfs-raw.h>

#include "formats/posixsem.h"

static void deliver(nreq *q, nfile *f);
static void start_on_file(nreq *q);
static void step_reply(nreq *q, int err, void *data);

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
	q->reply = step_reply;
	q->flags = flags;
	q->after = after;
	if (c->nb->version == 4) {
		/* Read-write, so that every handle of the file can share the open; the op's own access is what it is granted. */
		q->asked = flags & O_ACCMODE;
		if (after != S_MKNOD_FILE && !q->ro_only)
			q->flags = (flags & ~O_ACCMODE) | O_RDWR;
		q->step = S_V4CHECK;
		rp__nfs_queued(q, (flags & O_NOFOLLOW) ? nfs_lstat64_async(c->nfs, q->path, rp__nfs_reply_cb, q)
					       : nfs_stat64_async(c->nfs, q->path, rp__nfs_reply_cb, q));
		return;
	}
	q->step = after;
	rp__nfs_queued(q, nfs_open2_async(c->nfs, q->path, flags, (int)q->mode, rp__nfs_reply_cb, q));
}

static void issue_dirstat(nreq *q);
static void v4_checked(nreq *q, int err, const struct nfs_stat_64 *st);

/* NFSv4: the open-owner's turn came for q's OPEN. */
static void send_open(nreq *q)
{
	q->step = q->after;
	rp__nfs_queued(q, nfs_open2_async(q->c->nfs, q->path, q->send_flags, (int)q->mode, rp__nfs_reply_cb, q));
}

/* NFSv4: the OPEN of q's file that another request sent ended: share it now, or send q's own. */
static void v4_resume(nreq *q)
{
	v4_checked(q, 0, &q->st);
}

/* NFSv4: the name's attributes are in (err, st): answer the open, or send the OPEN that will succeed. */
static void v4_checked(nreq *q, int err, const struct nfs_stat_64 *st)
{
	nfs_client *const c = q->c;
	int fl = q->flags;
	if (err == -ENOENT) {
		if (!(fl & O_CREAT)) {
			rp__nfs_finish(q, ENOENT);
			return;
		}
		fl = (fl & ~O_TRUNC) | O_EXCL; /* a new file: nothing to empty */
	} else if (err < 0) {
		rp__nfs_finish(q, rp__nfs_status(err));
		return;
	} else if (fl & O_EXCL) {
		rp__nfs_finish(q, EEXIST);
		return;
	} else if (S_ISLNK(st->nfs_mode)) {
		rp__nfs_finish(q, ELOOP); /* O_NOFOLLOW, the only open that looks at the link itself */
		return;
	} else if (S_ISDIR(st->nfs_mode)) {
		/* As libnfs's NFSv3 open: a directory opened as a file is EISDIR (open_done makes it a directory handle). */
		q->step = q->after;
		step_reply(q, -EISDIR, NULL);
		return;
	} else {
		fl &= ~O_CREAT;
		q->st = *st;
		q->have_ino = true;
		const bool shared = q->after != S_MKNOD_FILE && !q->ro_only;
		nopen *const o = shared ? rp__nfs4_find(c, st->nfs_ino) : NULL;
		if (o && !o->fh) {
			/* Another request's OPEN of the file is in flight: this one shares what it opens (or tries again). */
			rp__nfs4_wait(q, o, v4_resume);
			return;
		}
		if (o) {
			/* Open here already: one more handle on that open (emptied first if the open truncates). */
			nfile *const f = rp__nfs_file_new(q->path, o->fh, false);
			if (!f) {
				rp__nfs_finish(q, ENOMEM);
				return;
			}
			f->share = o;
			o->refs++;
			if (fl & O_TRUNC) {
				q->f = f;
				q->step = S_V4TRUNC;
				rp__nfs_queued(q, nfs_ftruncate_async(c->nfs, o->fh, 0, rp__nfs_reply_cb, q));
				return;
			}
			q->step = q->after;
			deliver(q, f);
			return;
		}
		/* The first open of the file here: the others meanwhile wait for its OPEN (rp__nfs4_wait). */
		if (shared && !rp__nfs4_opening(q, st->nfs_ino)) {
			rp__nfs_finish(q, ENOMEM);
			return;
		}
	}
	q->send_flags = fl;
	rp__nfs_seq_send(q, send_open);
}

static void issue_open(nreq *q)
{
	open_checked(q, q->flags, S_OPEN);
}

static void issue_dirstat(nreq *q)
{
	q->step = S_DIRSTAT;
	rp__nfs_queued(q, nfs_stat64_async(q->c->nfs, q->path, rp__nfs_reply_cb, q));
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
	q->req->granted = rp_granted_of(q->c->nb->version == 4 ? q->asked : q->flags);
	rp__nfs_finish(q, 0);
}

/* NFSv4: a new libnfs open (q->st.nfs_ino its file) shared from now on: q's entry's, or a new one (a file it created). */
static void share_new(nreq *q, struct nfsfh *fh)
{
	nfs_client *const c = q->c;
	nopen *const o = q->opening ? NULL : calloc(1, sizeof(*o));
	nfile *const f = q->opening || o ? rp__nfs_file_new(q->path, fh, false) : NULL;
	if (!f) {
		free(o);
		rp__nfs_close_unwaited(c, fh);
		rp__nfs_finish(q, ENOMEM); /* the opens waiting on its entry try again */
		return;
	}
	if (q->opening) {
		rp__nfs4_opened(q, fh, f);
	} else {
		*o = (nopen){ .next = c->opens, .fh = fh, .ino = q->st.nfs_ino, .refs = 1 };
		c->opens = o;
		f->share = o;
	}
	deliver(q, f);
}

/* The OPEN succeeded with fh: on NFSv4 shared (its fileid first, if it was created), else a handle of its own. */
static void opened(nreq *q, struct nfsfh *fh)
{
	nfs_client *const c = q->c;
	if (c->nb->version == 4 && !q->ro_only) {
		if (q->have_ino) {
			share_new(q, fh);
			return;
		}
		q->f = rp__nfs_file_new(q->path, fh, false); /* held here until the fileid is known */
		if (!q->f) {
			rp__nfs_close_unwaited(c, fh);
			rp__nfs_finish(q, ENOMEM);
			return;
		}
		q->step = S_V4INO;
		rp__nfs_queued(q, nfs_fstat64_async(c->nfs, fh, rp__nfs_reply_cb, q));
		return;
	}
	nfile *const f = rp__nfs_file_new(q->path, fh, false);
	if (!f) {
		rp__nfs_close_unwaited(c, fh);
		rp__nfs_finish(q, ENOMEM);
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
	/* NFSv4: the opens that waited on this one go on (the first of them opens) before it tries anything else. */
	rp__nfs4_opened(q, NULL, NULL);
	if (err == -EACCES && q->fallback_ro && !q->ro_only && (q->flags & O_ACCMODE) == O_RDWR) {
		/* Once; on NFSv4 an open of its own, read-only (not the read-write one every handle shares). */
		q->ro_only = q->c->nb->version == 4;
		q->flags = (q->flags & ~O_ACCMODE) | O_RDONLY;
		issue_open(q);
		return;
	}
	/* A directory opened as a file: a handle on the directory, unless the open had to empty or make a file. */
	if (err == -EISDIR && !q->notdir && !(q->flags & (O_EXCL | O_TRUNC))) {
		issue_dirstat(q);
		return;
	}
	rp__nfs_finish(q, rp__nfs_status(err));
}

static void start_open(nreq *q)
{
	const rp_op *const op = q->req->op;
	const rp_open_plan o = rp_open_plan_of(op);
	const int disp = rp_disp_oflags(op->disp);
	q->mode = op->mode ? rp__nfs_mode(q->c, op->mode) : o.dir ? 0777 : 0666;
	q->notdir = o.not_dir;
	if (o.dir) {
		q->flags = disp;
		if (disp & O_CREAT) {
			q->step = S_MKDIR_OPEN;
			rp__nfs_queued(q, nfs_mkdir2_async(q->c->nfs, q->path, (int)q->mode, rp__nfs_reply_cb, q));
		} else {
			issue_dirstat(q);
		}
		return;
	}
	q->flags = o.flags;
	q->fallback_ro = o.fallback_ro;
	if (o.meta_only) {
		/* Attributes only: read-write where allowed, as the NT layer expects (no O_PATH over NFS). */
		q->flags = (q->flags & ~O_ACCMODE) | O_RDWR;
		q->fallback_ro = true;
	}
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
			rp__nfs_queued(q, nfs_fsync_async(c->nfs, q->f->fh, rp__nfs_reply_cb, q));
			return;
		}
		q->status = 0;
		q->step = S_TMPCLOSE;
		step_reply(q, 0, NULL);
		return;
	}
	const uint64_t max = write ? c->wmax : c->rmax;
	const uint64_t n = q->left < max ? q->left : max;
	q->step = S_IO;
	if (write)
		rp__nfs_queued(q, nfs_pwrite_async(c->nfs, q->f->fh, q->off, n, q->req->zero ? c->zbuf : c->wbuf, rp__nfs_reply_cb, q));
	else
		rp__nfs_queued(q, nfs_pread_async(c->nfs, q->f->fh, q->off, n, rp__nfs_reply_cb, q));
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
			rp__nfs_finish(q, EISDIR);
			return;
		}
		q->off = op->offset;
		q->left = op->length;
		issue_io(q);
		return;
	case RP_OP_FLUSH:
		if (q->f->dir) {
			rp__nfs_finish(q, 0);
			return;
		}
		q->step = S_COMMIT;
		rp__nfs_queued(q, nfs_fsync_async(c->nfs, q->f->fh, rp__nfs_reply_cb, q));
		return;
	default:
		rp__nfs_finish(q, EINVAL);
	}
}

/* A reply to a call of this file's steps. */
static void step_reply(nreq *q, int err, void *data)
{
	nfs_client *const c = q->c;
	switch (q->step) {
	case S_OPEN:
		open_done(q, err, data);
		return;
	case S_MKDIR_OPEN:
		if (err < 0 && (err != -EEXIST || (q->flags & O_EXCL))) {
			rp__nfs_finish(q, rp__nfs_status(err));
			return;
		}
		issue_dirstat(q);
		return;
	case S_DIRSTAT: {
		if (err < 0) {
			rp__nfs_finish(q, rp__nfs_status(err));
			return;
		}
		if (!S_ISDIR(((const struct nfs_stat_64 *)data)->nfs_mode)) {
			rp__nfs_finish(q, ENOTDIR);
			return;
		}
		nfile *const f = rp__nfs_file_new(q->path, NULL, true);
		if (!f) {
			rp__nfs_finish(q, ENOMEM);
			return;
		}
		q->req->bh = (uint64_t)(uintptr_t)f;
		q->req->granted = RP_WANT_KNOWN | RP_WANT_ALL;
		rp__nfs_finish(q, 0);
		return;
	}
	case S_TMPOPEN:
		if (err < 0) {
			rp__nfs_finish(q, rp__nfs_status(err)); /* its waiters go on (nfs_req.c) */
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
			rp__nfs_close_unwaited(c, fh);
			rp__nfs_finish(q, rp__nfs_status(err));
			return;
		}
		q->st = *(const struct nfs_stat_64 *)data;
		share_new(q, fh);
		return;
	}
	case S_V4TRUNC:
		if (err < 0) {
			struct nfsfh *const fh = rp__nfs_file_drop(c, q->f);
			q->f = NULL;
			if (fh)
				rp__nfs_close_unwaited(c, fh);
			rp__nfs_finish(q, rp__nfs_status(err));
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
			step_reply(q, 0, NULL);
			return;
		}
		if (q->req->op->op == RP_OP_WRITE && err == 0) {
			q->req->result = q->done;
			q->status = EIO; /* a write that moves nothing cannot rp__nfs_finish */
			q->step = S_TMPCLOSE;
			step_reply(q, 0, NULL);
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
		step_reply(q, 0, NULL);
		return;
	case S_TMPCLOSE:
		if (!q->tmp) {
			rp__nfs_finish(q, q->status);
			return;
		}
		{
			struct nfsfh *const fh = rp__nfs_file_drop(c, q->f);
			q->f = NULL;
			q->tmp = false;
			if (!fh)
				rp__nfs_finish(q, q->status); /* NFSv4: another handle still has the file open */
			else
				rp__nfs_close(q, fh);
		}
		return;
	case S_CLOSE:
		rp__nfs_finish(q, q->status ? q->status : rp__nfs_status(err));
		return;
	case S_MKNOD_FILE:
		if (err < 0) {
			rp__nfs_finish(q, rp__nfs_status(err));
			return;
		}
		q->status = 0;
		rp__nfs_close(q, data);
		return;
	case S_V4CHECK:
		v4_checked(q, err, data);
		return;
	case S_CHECK:
	case S_V4WAIT:
		rp__nfs_finish(q, EIO); /* check_cb's, never here; a waiting request has no call in flight */
		return;
	case S_PRESTAT:
	case S_SETATTR:
	case S_SIMPLE:
	case S_NOREPLACE:
	case S_READDIR:
	case S_LINKLEN:
		rp__nfs_finish(q, EIO); /* nfs_meta.c's, never here */
		return;
	}
}

/*
 * The check of a path before an op acts through it.  ganesha's NFSv3
 * CREATE UNCHECKED opens the name it is given on its own file system and
 * follows a symlink there (measured: a planted link to a file outside the
 * export is written, truncated, chmodded), and libnfs follows a symlink in
 * the middle of a path beneath the root; on NFSv4 libnfs 4.0 also follows
 * one at the end (stat, open, setattr) and, doing so, takes the READLINK
 * text's length with strlen though it has no NUL: a text that ends the
 * reply (a multiple of 4 bytes, no XDR padding) is read past the receive
 * buffer (AddressSanitizer, heap-buffer-overflow in rpc_process_pdu).  So
 * every component is looked up first, NFSv3: a raw LOOKUP3 from the mount's
 * root handle, the type from the reply's own attributes; NFSv4: an lstat of
 * the path up to it (libnfs's LOOKUPs of components already found to be
 * directories, then a GETATTR of it, not followed).  A symlink in the
 * middle is EXDEV (an escape, as posix's beneath-resolution says), one as
 * the last component ELOOP for an op that would act through it or EEXIST
 * for an exclusive create, and fine for an op on the link itself (stat,
 * readlink, unlink, rename, ...).  libnfs never gets a path it would
 * resolve through a link.  Names found to be directories or other files
 * are kept (c->names), so a path's directories cost one LOOKUP each for
 * the run, until a namespace op of this client (forgotten there) or of
 * another of its directory (the group's count: everything forgotten) may
 * have changed them.
 */
enum { CHK_NONE, CHK_LINK, CHK_LOOP, CHK_EXCL };

static void dispatch(nreq *q);
static void check_next(nreq *q);

/* Another client of the directory changed its namespace since: forget every name. */
static void names_sync(nfs_client *c)
{
	const uint64_t g = atomic_load_explicit(&c->group->changes, memory_order_acquire);
	if (g != c->seen) {
		rp__nfs_names_reset(&c->names);
		c->seen = g;
	}
}

static void check_begin(nreq *q, const char *path, int last)
{
	nfs_client *const c = q->c;
	q->chk = path;
	q->chk_at = 0;
	q->chk_last = (uint8_t)last;
	q->chk_dir = RP_NFS_NAMES_ROOT;
	q->chk_epoch = c->names.epoch;
	q->chk_fhlen = 0;
	if (c->nb->version == 3) {
		const struct nfs_fh3 *const root = nfs_get_rootfh(c->nfs);
		if (!root || !root->data.data_val || root->data.data_len > RP_NFS_FH_MAX) {
			rp__nfs_finish(q, EIO);
			return;
		}
		q->chk_fhlen = root->data.data_len;
		memcpy(q->chk_fh, root->data.data_val, root->data.data_len);
	}
	check_next(q);
}

/* The path passed: path2's turn, or the op. */
static void check_passed(nreq *q)
{
	if (q->chk == q->path && q->chk_last2 != CHK_NONE && q->path2) {
		const int last = q->chk_last2;
		q->chk_last2 = CHK_NONE;
		check_begin(q, q->path2, last);
		return;
	}
	q->chk = NULL;
	q->reply = step_reply; /* NFSv4's check had its own */
	dispatch(q);
}

/* The component at q->chk_at is a symlink: what the op gets, or on (an op on the link itself). */
static void check_link(nreq *q, bool last)
{
	if (!last) {
		q->req->escape = true; /* our refusal, not the server's EXDEV (a rename across file systems) */
		rp__nfs_finish(q, EXDEV);
	} else if (q->chk_last == CHK_LOOP) {
		rp__nfs_finish(q, ELOOP);
	} else if (q->chk_last == CHK_EXCL) {
		rp__nfs_finish(q, EEXIST);
	} else {
		check_passed(q);
	}
}

static void check_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	nreq *const q = priv;
	/* An orphan's reply, or none in time (the client ends, as on any RPC's timeout). */
	if (rp__nfs_reply_ends(q, status == RPC_STATUS_TIMEOUT ? -ETIMEDOUT : 0))
		return;
	nfs_client *const c = q->c;
	const LOOKUP3res *const res = data;
	if (status != RPC_STATUS_SUCCESS || !res) {
		rp__nfs_finish(q, EIO);
		return;
	}
	const char *const name = q->chk + q->chk_at;
	const size_t len = strcspn(name, "/");
	const bool last = name[len] == '\0';
	if (res->status != NFS3_OK) {
		check_passed(q); /* not there, no access, ...: the op gets the server's own answer */
		return;
	}
	const LOOKUP3resok *const ok = &res->LOOKUP3res_u.resok;
	if (!ok->obj_attributes.attributes_follow) {
		rp__nfs_finish(q, EIO); /* no type to check: refused rather than trusted */
		return;
	}
	const ftype3 type = ok->obj_attributes.post_op_attr_u.attributes.type;
	if (type == NF3LNK) {
		check_link(q, last);
		return;
	}
	if (type != NF3DIR) {
		rp__nfs_names_add(&c->names, q->chk_epoch, q->chk_dir, name, len, RP_NFS_NAME_OTHER, NULL, 0);
		check_passed(q); /* a file in the middle: libnfs answers ENOTDIR */
		return;
	}
	if (ok->object.data.data_len > RP_NFS_FH_MAX || !ok->object.data.data_val) {
		rp__nfs_finish(q, EIO);
		return;
	}
	q->chk_dir = rp__nfs_names_add(&c->names, q->chk_epoch, q->chk_dir, name, len, RP_NFS_NAME_DIR,
				       ok->object.data.data_val, ok->object.data.data_len);
	q->chk_fhlen = ok->object.data.data_len;
	memcpy(q->chk_fh, ok->object.data.data_val, q->chk_fhlen);
	q->chk_at += len;
	check_next(q);
}

/* NFSv4: the lstat of the path up to the component at q->chk_at (its directories known to be directories). */
static void check4_reply(nreq *q, int err, void *data)
{
	nfs_client *const c = q->c;
	const char *const name = q->chk + q->chk_at;
	const size_t len = strcspn(name, "/");
	const bool last = name[len] == '\0';
	if (err < 0 || !data) {
		check_passed(q); /* not there, no access, ...: the op gets the server's own answer */
		return;
	}
	const unsigned type = ((const struct nfs_stat_64 *)data)->nfs_mode & S_IFMT;
	if (type == S_IFLNK) {
		check_link(q, last);
		return;
	}
	if (type != S_IFDIR) {
		rp__nfs_names_add(&c->names, q->chk_epoch, q->chk_dir, name, len, RP_NFS_NAME_OTHER, NULL, 0);
		check_passed(q); /* a file in the middle: libnfs answers ENOTDIR */
		return;
	}
	q->chk_dir = rp__nfs_names_add(&c->names, q->chk_epoch, q->chk_dir, name, len, RP_NFS_NAME_DIR, NULL, 0);
	q->chk_at += len;
	check_next(q);
}

/* NFSv4: send the lstat of q->chk up to the component of len bytes at q->chk_at. */
static void check4_send(nreq *q, size_t len)
{
	nfs_client *const c = q->c;
	char *const upto = strndup(q->chk, q->chk_at + len);
	if (!upto) {
		rp__nfs_finish(q, ENOMEM);
		return;
	}
	q->step = S_CHECK;
	q->reply = check4_reply;
	c->lookups++;
	/* libnfs copies the path before it returns. */
	rp__nfs_queued(q, nfs_lstat64_async(c->nfs, upto, rp__nfs_reply_cb, q));
	free(upto);
}

/* From the component at q->chk_at on: what the names know, then a LOOKUP of the first they do not. */
static void check_next(nreq *q)
{
	nfs_client *const c = q->c;
	names_sync(c);
	for (;;) {
		/* An entry of before a change may be gone (or its index another's): from here on, nothing cached. */
		if (q->chk_dir != RP_NFS_NAMES_ROOT && q->chk_epoch != c->names.epoch)
			q->chk_dir = RP_NFS_NAMES_NONE;
		q->chk_epoch = c->names.epoch;
		while (q->chk[q->chk_at] == '/')
			q->chk_at++;
		const char *const name = q->chk + q->chk_at;
		const size_t len = strcspn(name, "/");
		if (len == 0) {
			check_passed(q);
			return;
		}
		/* Too long: libnfs refuses it (ENAMETOOLONG).  The last of an op on the link itself needs no look. */
		if (len > NAME_MAX || (name[len] == '\0' && q->chk_last == CHK_LINK)) {
			check_passed(q);
			return;
		}
		const uint32_t e = rp__nfs_names_find(&c->names, q->chk_dir, name, len);
		if (e == RP_NFS_NAMES_NONE && c->nb->version == 4) {
			check4_send(q, len);
			return;
		}
		if (e == RP_NFS_NAMES_NONE) {
			char comp[NAME_MAX + 1];
			memcpy(comp, name, len);
			comp[len] = '\0';
			LOOKUP3args args;
			memset(&args, 0, sizeof(args));
			args.what.dir.data.data_len = q->chk_fhlen;
			args.what.dir.data.data_val = (char *)q->chk_fh;
			args.what.name = comp;
			q->step = S_CHECK;
			c->lookups++;
			/* libnfs encodes the call before it returns: comp and the handle may go. */
			if (rpc_nfs3_lookup_async(nfs_get_rpc_context(c->nfs), check_cb, &args, q) < 0)
				rp__nfs_finish(q, EIO);
			return;
		}
		const rp_nfs_name *const n = &c->names.nodes[e];
		if (n->kind != RP_NFS_NAME_DIR) {
			check_passed(q); /* no symlink; in the middle libnfs answers ENOTDIR */
			return;
		}
		q->chk_dir = e;
		q->chk_fhlen = n->fhlen;
		memcpy(q->chk_fh, n->fh, n->fhlen);
		q->chk_at += len;
	}
}

/* How the op's path (and path2) are checked, CHK_NONE for not at all. */
static int check_of(const nreq *q, const rp_op *op, int *last2)
{
	*last2 = CHK_NONE;
	if (!q->path)
		return CHK_NONE;
	const bool v4 = q->c->nb->version == 4;
	switch (op->op) {
	case RP_OP_OPEN: {
		return rp_disp_oflags(op->disp) & O_EXCL ? CHK_EXCL : CHK_LOOP;
	}
	case RP_OP_READ:
	case RP_OP_WRITE:
	case RP_OP_FLUSH:
	case RP_OP_SETATTR:
		return q->f ? CHK_NONE : CHK_LOOP; /* a handle was checked when it was opened */
	case RP_OP_MKNOD:
	case RP_OP_MKDIR:
		return CHK_EXCL;
	case RP_OP_RENAME:
	case RP_OP_LINK:
		*last2 = CHK_LINK;
		return CHK_LINK;
	case RP_OP_CLOSE:
		return CHK_NONE;
	case RP_OP_DELTREE:
		/*
		 * Its walk is libnfs's synchronous calls, which must not run inside
		 * a callback (check_cb's); it enters no symlink (a link is removed),
		 * and libnfs refuses one in the path that leads out of the root
		 * (NFSv4: nfs_meta.c checks the path's directories itself).
		 */
		return CHK_NONE;
	case RP_OP_READDIR:
	case RP_OP_STATFS:
		/* NFSv4: libnfs would follow a link at the end (and overread its text): refused. */
		return q->f ? CHK_NONE : v4 ? CHK_LOOP : CHK_LINK;
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		return q->f ? CHK_NONE : CHK_LINK;
	default:
		return CHK_LINK; /* unlink, rmdir, readlink, symlink: the link itself, what is before it checked */
	}
}

void rp__nfs_start(nfs_client *c, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (c->lost) {
		rp__nfs_complete(c, req, EIO); /* the connection is gone: the engine stops this client before its next op */
		return;
	}
	if (req->no_handle) {
		rp__nfs_complete(c, req, EBADF); /* what an invalid handle gets, without resolving any path */
		return;
	}
	if (op->op == RP_OP_LOCK || op->op == RP_OP_UNLOCK) {
		/*
		 * Only NFSv4.0 exact mode takes locks (nfs.c's op mask; the engine
		 * counts them unsupported otherwise): one it could not send on a lock
		 * state of its own is not sent (its fallback counted by reason).
		 */
		rp__nfs_complete(c, req, EOPNOTSUPP);
		return;
	}
	nreq *const q = rp__nfs_req_new(c, req);
	if (!q)
		return;
	q->reply = step_reply;
	int last2;
	const int last = check_of(q, op, &last2);
	if (rp__nfs_changes_names(op->op))
		rp__nfs_names_changed(c, q->path, q->path2);
	if (last != CHK_NONE) {
		q->chk_last2 = (uint8_t)last2;
		check_begin(q, q->path, last);
		return;
	}
	dispatch(q);
}

/* nfs_meta.c's ops; the one it hands back, a mknod of a regular file, is an exclusive create and close. */
static void path_op(nreq *q)
{
	if (!rp__nfs_path_op(q))
		open_checked(q, O_WRONLY | O_CREAT | O_EXCL, S_MKNOD_FILE);
}

/* The op proper, its paths checked. */
static void dispatch(nreq *q)
{
	nfs_client *const c = q->c;
	rp_breq *const req = q->req;
	const rp_op *const op = req->op;
	switch (op->op) {
	case RP_OP_OPEN:
		if (!q->path)
			rp__nfs_finish(q, EINVAL);
		else
			start_open(q);
		return;
	case RP_OP_CLOSE:
		if (!q->f) {
			rp__nfs_finish(q, q->path ? 0 : EBADF); /* by path (NFSv3): nothing of ours is open under it */
			return;
		}
		req->bh = 0;
		if (q->f->dir) {
			free(q->f->path);
			free(q->f);
			q->f = NULL;
			rp__nfs_finish(q, 0);
			return;
		}
		{
			struct nfsfh *const fh = rp__nfs_file_drop(c, q->f);
			q->f = NULL;
			q->status = 0;
			if (!fh)
				rp__nfs_finish(q, 0); /* NFSv4: another handle still has the file open */
			else
				rp__nfs_close(q, fh);
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
			rp__nfs_finish(q, EBADF);
		}
		return;
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		if (!q->f && !q->path)
			rp__nfs_finish(q, EBADF);
		else
			path_op(q);
		return;
	case RP_OP_SETATTR:
		if (!q->f && !q->path)
			rp__nfs_finish(q, EBADF);
		else
			rp__nfs_setattr_start(q);
		return;
	case RP_OP_STATFS:
		if (!q->f && !q->path && !(q->path = rp__nfs_rooted("")))
			rp__nfs_finish(q, ENOMEM);
		else
			path_op(q);
		return;
	case RP_OP_READDIR:
		if (!q->f && !q->path)
			rp__nfs_finish(q, EBADF);
		else
			path_op(q);
		return;
	default:
		if (!q->path)
			rp__nfs_finish(q, EINVAL);
		else
			path_op(q);
		return;
	}
}
