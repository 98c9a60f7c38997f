/*
 * The nfs backend's exact mode: an op of an NFSv3 trace sent as the one RPC
 * it came from (RFC 1813), through libnfs 4.0's raw asynchronous API, with
 * file handles from the target's own replies (nfs_fhmap.c), as TBBT replays
 * NFS traces: no LOOKUP or GETATTR of ours per op.  What cannot be sent so
 * goes the semantic way (nfs_ops.c), counted by reason.  This is the one
 * place of the backend that reads an op's provenance (op->proto, op->raw):
 * on purpose, to send what the trace recorded.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <nfsc/libnfs-raw-nfs.h>
#include <nfsc/libnfs-raw.h>

#include "formats/posixsem.h"
#include "formats/status.h"

/* NFSv3 procedure numbers (RFC 1813 §3.3), as the decoder keeps them in raw.level. */
enum {
	X_GETATTR = 1, X_SETATTR, X_LOOKUP, X_ACCESS, X_READLINK, X_READ, X_WRITE, X_CREATE, X_MKDIR, X_SYMLINK,
	X_MKNOD, X_REMOVE, X_RMDIR, X_RENAME, X_LINK, X_READDIR, X_READDIRPLUS, X_FSSTAT, X_FSINFO, X_PATHCONF,
	X_COMMIT
};

/* A path a READDIRPLUS entry names: its directory's and the name (a longer one is not learned). */
#define RP_NFS_PATH_MAX_X 4352

static const char *const fallback_names[] = {
#define RP__NFS_FB_NAME(e, name) name,
	RP_NFS_FALLBACK_MAP(RP__NFS_FB_NAME)
#undef RP__NFS_FB_NAME
};

const char *rp__nfs_fallback_name(unsigned reason)
{
	return reason < RP_NFS_FB__COUNT ? fallback_names[reason] : NULL;
}

/* Prepare's own ops (no producer: op.proto NONE) are never counted, as sent or as fallen back. */
static bool is_prepare(const rp_breq *req)
{
	return req->op->proto == RP_PROTO_NONE;
}

static bool fall_back(nfs_client *c, const rp_breq *req, unsigned reason)
{
	if (!is_prepare(req))
		atomic_fetch_add_explicit(&c->nb->fallbacks[reason], 1u, memory_order_relaxed);
	return false;
}

/* The handle an op acts on: its backend handle's, else its path's in the map (copied into fh). */
static bool object_fh(nfs_client *c, const rp_breq *req, unsigned char *fh, uint32_t *len)
{
	const nfile *const f = req->bh ? (const nfile *)(uintptr_t)req->bh : NULL;
	if (f && f->exact && f->xfhlen) {
		memcpy(fh, f->xfh, f->xfhlen);
		*len = f->xfhlen;
		return true;
	}
	if (f && f->fh) {
		const struct nfs_fh3 *const h = (const struct nfs_fh3 *)(const void *)nfs_get_fh(f->fh);
		if (h && h->data.data_val && h->data.data_len <= RP_NFS_FH_MAX) {
			memcpy(fh, h->data.data_val, h->data.data_len);
			*len = h->data.data_len;
			return true;
		}
	}
	if (!req->path)
		return false;
	nfs_group *const g = c->group;
	pthread_mutex_lock(&g->lock);
	const void *p;
	size_t n;
	const bool ok = rp__nfs_fhmap_get(&g->fhmap, req->path, &p, &n);
	if (ok) {
		memcpy(fh, p, n);
		*len = (uint32_t)n;
	}
	pthread_mutex_unlock(&g->lock);
	return ok;
}

/* The handle of path's directory (copied) and its last name (in path): false when the directory is not known. */
static bool parent_fh(nfs_client *c, const char *path, unsigned char *fh, uint32_t *len, const char **name)
{
	if (!path)
		return false;
	nfs_group *const g = c->group;
	pthread_mutex_lock(&g->lock);
	const void *p;
	size_t n, nlen;
	const bool ok = rp__nfs_fhmap_parent(&g->fhmap, path, &p, &n, name, &nlen);
	if (ok) {
		memcpy(fh, p, n);
		*len = (uint32_t)n;
	}
	pthread_mutex_unlock(&g->lock);
	return ok;
}

/* A name the server would read as syntax ("." or ".."): never sent (the engine never gives one; checked anyway). */
static bool name_refused(const char *name)
{
	return !name[0] || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/');
}

static void learn(nfs_client *c, const char *path, const nfs_fh3 *fh, int kind)
{
	if (!path || !fh->data.data_val || fh->data.data_len > RP_NFS_FH_MAX)
		return;
	pthread_mutex_lock(&c->group->lock);
	(void)rp__nfs_fhmap_set(&c->group->fhmap, path, fh->data.data_val, fh->data.data_len, kind);
	pthread_mutex_unlock(&c->group->lock);
}

static void forget(nfs_client *c, const char *path)
{
	pthread_mutex_lock(&c->group->lock);
	rp__nfs_fhmap_forget(&c->group->fhmap, path);
	pthread_mutex_unlock(&c->group->lock);
}

/* Nothing is at path now (a LOOKUP's NOENT, a REMOVE): so an unchecked CREATE of it may go exact. */
static void absent(nfs_client *c, const char *path)
{
	pthread_mutex_lock(&c->group->lock);
	(void)rp__nfs_fhmap_absent(&c->group->fhmap, path);
	pthread_mutex_unlock(&c->group->lock);
}

/* The kind a reply's attributes give (RP_NFS_FK_*), or dflt without them. */
static int kind_of(const post_op_attr *a, int dflt)
{
	if (!a->attributes_follow)
		return dflt;
	switch (a->post_op_attr_u.attributes.type) {
	case NF3REG: return RP_NFS_FK_FILE;
	case NF3DIR: return RP_NFS_FK_DIR;
	case NF3LNK: return RP_NFS_FK_LINK;
	default: return RP_NFS_FK_OTHER;
	}
}

/* The op's status from an nfsstat3: a stale handle is forgotten, so the next op on the path falls back. */
static int status_of(nreq *q, nfsstat3 st)
{
	if (st == NFS3ERR_STALE && q->path)
		forget(q->c, q->path);
	return st == NFS3_OK ? 0 : rp_status_from_proto(RP_SK_NFS3, (uint32_t)st);
}

/* A time of the trace (ns since the epoch) as nfstime3. */
static nfstime3 nfs_time(uint64_t ns)
{
	return (nfstime3){ .seconds = (u_int)(ns / 1000000000u), .nseconds = (u_int)(ns % 1000000000u) };
}

#define SATTR_OK                                                                                                   \
	(RP_SA_SIZE | RP_SA_MODE | RP_SA_UID | RP_SA_GID | RP_SA_ATIME | RP_SA_MTIME | RP_SA_ATIME_NOW |           \
	 RP_SA_MTIME_NOW)

/* A setattr's attributes as sattr3: false when it has one sattr3 cannot carry (SMB's times, DOS bits, delete). */
static bool make_sattr(const nfs_client *c, const rp_op *op, sattr3 *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (op->attrs & ~(uint32_t)SATTR_OK)
		return false;
	if (op->attrs & RP_SA_MODE) {
		sa->mode.set_it = 1;
		sa->mode.set_mode3_u.mode = rp__nfs_mode(c, op->mode);
	}
	if (op->attrs & RP_SA_UID) {
		sa->uid.set_it = 1;
		sa->uid.set_uid3_u.uid = op->uid;
	}
	if (op->attrs & RP_SA_GID) {
		sa->gid.set_it = 1;
		sa->gid.set_gid3_u.gid = op->gid;
	}
	if (op->attrs & RP_SA_SIZE) {
		sa->size.set_it = 1;
		sa->size.set_size3_u.size = op->length;
	}
	if (op->attrs & RP_SA_ATIME) {
		sa->atime.set_it = SET_TO_CLIENT_TIME;
		sa->atime.set_atime_u.atime = nfs_time(op->atime);
	} else if (op->attrs & RP_SA_ATIME_NOW) {
		sa->atime.set_it = SET_TO_SERVER_TIME;
	}
	if (op->attrs & RP_SA_MTIME) {
		sa->mtime.set_it = SET_TO_CLIENT_TIME;
		sa->mtime.set_mtime_u.mtime = nfs_time(op->mtime);
	} else if (op->attrs & RP_SA_MTIME_NOW) {
		sa->mtime.set_it = SET_TO_SERVER_TIME;
	}
	return true;
}

/* A new object's mode, when the trace gave one (sattr3 with only the mode, or nothing). */
static void mode_sattr(const nfs_client *c, uint32_t mode, sattr3 *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (mode & 07777) {
		sa->mode.set_it = 1;
		sa->mode.set_mode3_u.mode = rp__nfs_mode(c, mode);
	}
}

/* A new object's handle, when the reply has one. */
static const nfs_fh3 *post_op_fh(const post_op_fh3 *p)
{
	return p->handle_follows ? &p->post_op_fh3_u.handle : NULL;
}

/* What an exclusive CREATE sends as its verifier: unique per request of the run. */
static void make_verf(nfs_client *c, createverf3 verf)
{
	const uint64_t n = atomic_fetch_add_explicit(&c->nb->verf, 1u, memory_order_relaxed);
	memcpy(verf, &n, sizeof(n) < NFS3_CREATEVERFSIZE ? sizeof(n) : NFS3_CREATEVERFSIZE);
}

/* CREATE's reply: the handle learned by path, and a backend handle that keeps it. */
static int created(nreq *q, const CREATE3res *res)
{
	const int st = status_of(q, res->status);
	if (st)
		return st;
	const nfs_fh3 *const fh = post_op_fh(&res->CREATE3res_u.resok.obj);
	if (fh)
		learn(q->c, q->path, fh, kind_of(&res->CREATE3res_u.resok.obj_attributes, RP_NFS_FK_FILE));
	nfile *const f = rp__nfs_file_new(q->path ? q->path : "/", NULL, false);
	if (!f)
		return ENOMEM;
	f->exact = true;
	if (fh && fh->data.data_val && fh->data.data_len <= RP_NFS_FH_MAX) {
		memcpy(f->xfh, fh->data.data_val, fh->data.data_len);
		f->xfhlen = (uint8_t)fh->data.data_len;
	}
	q->req->bh = (uint64_t)(uintptr_t)f;
	q->req->granted = rp_granted_of(O_RDWR);
	return 0;
}

/* A listing's reply: its entries counted, READDIRPLUS's handles learned, where it ended kept for the next call. */
static int listed(nreq *q, const void *data)
{
	nfs_client *const c = q->c;
	const bool plus = q->xproc == X_READDIRPLUS;
	const nfsstat3 st0 = plus ? ((const READDIRPLUS3res *)data)->status : ((const READDIR3res *)data)->status;
	const int st = status_of(q, st0);
	if (st)
		return st;
	uint64_t n = 0, last = 0;
	bool eof;
	const unsigned char *verf;
	char child[RP_NFS_PATH_MAX_X];
	const size_t plen = q->path ? strlen(q->path) : 0;
	/*
	 * libnfs 4.0's XDR decoder packs the entries it allocates without
	 * aligning them (UBSan: a misaligned entryplus3): each is copied out
	 * before a field of it is read.
	 */
	if (plus) {
		const READDIRPLUS3resok *const ok = &((const READDIRPLUS3res *)data)->READDIRPLUS3res_u.resok;
		for (const entryplus3 *p = ok->reply.entries; p; n++) {
			entryplus3 e;
			memcpy(&e, p, sizeof(e));
			p = e.nextentry;
			last = e.cookie;
			const nfs_fh3 *const fh = post_op_fh(&e.name_handle);
			const size_t nlen = e.name ? strlen(e.name) : 0;
			if (!q->path || !fh || !nlen || name_refused(e.name) || plen + 1 + nlen >= sizeof(child))
				continue;
			/* q->path is "/"-rooted: "/dir" + "/" + name, or "/" + name for the root. */
			memcpy(child, q->path, plen);
			size_t at = plen;
			if (at > 1)
				child[at++] = '/';
			else
				at = 1;
			memcpy(child + at, e.name, nlen + 1);
			learn(c, child, fh, kind_of(&e.name_attributes, RP_NFS_FK_UNKNOWN));
		}
		eof = ok->reply.eof != 0;
		verf = (const unsigned char *)ok->cookieverf;
	} else {
		const READDIR3resok *const ok = &((const READDIR3res *)data)->READDIR3res_u.resok;
		for (const entry3 *p = ok->reply.entries; p; n++) {
			entry3 e;
			memcpy(&e, p, sizeof(e));
			p = e.nextentry;
			last = e.cookie;
		}
		eof = ok->reply.eof != 0;
		verf = (const unsigned char *)ok->cookieverf;
	}
	q->req->result = n;
	pthread_mutex_lock(&c->group->lock);
	rp_nfs_fhnode *const d = rp__nfs_fhmap_node(&c->group->fhmap, q->path);
	if (d) {
		if (n)
			d->list_cookie = last;
		d->list_eof = eof;
		d->list_known = true;
		memcpy(d->list_verf, verf, sizeof(d->list_verf));
	}
	pthread_mutex_unlock(&c->group->lock);
	return 0;
}

static void exact_cb(struct rpc_context *rpc, int status, void *data, void *priv);

/*
 * Prepare's MKDIR or CREATE found the name there (a tree made before the
 * run): a LOOKUP of it (prepare's, not counted) teaches the map its handle,
 * so the trace's ops on it go exact.  True when sent: its reply ends q with
 * EEXIST.  The directory's handle is in q->chk_fh.
 */
static bool learn_existing(nreq *q)
{
	const char *const slash = q->path ? strrchr(q->path, '/') : NULL;
	if (!slash || !slash[1] || !q->chk_fhlen)
		return false;
	LOOKUP3args a;
	memset(&a, 0, sizeof(a));
	a.what.dir.data.data_len = q->chk_fhlen;
	a.what.dir.data.data_val = (char *)q->chk_fh;
	a.what.name = (char *)(slash + 1);
	q->xproc = X_LOOKUP;
	if (!q->xstage)
		q->status = EEXIST;
	if (rpc_nfs3_lookup_async(nfs_get_rpc_context(q->c->nfs), exact_cb, &a, q) < 0)
		rp__nfs_finish(q, q->xstage ? EIO : EEXIST);
	return true;
}

static bool create_how(nfs_client *c, const rp_op *op, createhow3 *how);

/*
 * An UNCHECKED CREATE sent GUARDED (send_in_dir) found the name there; its
 * LOOKUP (xstage 2) said what it is (kind, or -1 when the LOOKUP failed).
 * A regular file gets the recorded UNCHECKED CREATE after all (2 RPCs
 * more, counted); anything else goes the semantic way, whose check answers
 * for a link (counted).
 */
static void unchecked_again(nreq *q, int kind)
{
	nfs_client *const c = q->c;
	rp_breq *const req = q->req;
	const char *const slash = q->path ? strrchr(q->path, '/') : NULL;
	createhow3 how;
	/* Counted by its reason instead of as sent as recorded. */
	if (!is_prepare(req))
		atomic_fetch_sub_explicit(&c->nb->exact_ops, 1u, memory_order_relaxed);
	if (kind == RP_NFS_FK_FILE && slash && slash[1] && create_how(c, req->op, &how) && how.mode == UNCHECKED) {
		(void)fall_back(c, req, RP_NFS_FB_UNCHECKED_EXISTING);
		CREATE3args a;
		memset(&a, 0, sizeof(a));
		a.where.dir.data.data_len = q->chk_fhlen;
		a.where.dir.data.data_val = (char *)q->chk_fh;
		a.where.name = (char *)(slash + 1);
		a.how = how;
		q->xproc = X_CREATE;
		q->xstage = 3;
		if (rpc_nfs3_create_async(nfs_get_rpc_context(c->nfs), exact_cb, &a, q) < 0)
			rp__nfs_finish(q, EIO);
		return;
	}
	(void)fall_back(c, req, RP_NFS_FB_UNCHECKED);
	q->req = NULL; /* let go of it without an answer: the semantic path answers it */
	rp__nfs_finish(q, 0);
	rp__nfs_start(c, req);
}

/* Every reply of an exact request. */
static void exact_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	nreq *const q = priv;
	/* An orphan's reply, or none in time (the client ends, as on any RPC's timeout). */
	if (rp__nfs_reply_ends(q, status == RPC_STATUS_TIMEOUT ? -ETIMEDOUT : 0))
		return;
	if (status != RPC_STATUS_SUCCESS || !data) {
		rp__nfs_finish(q, EIO);
		return;
	}
	nfs_client *const c = q->c;
	int st;
	switch (q->xproc) {
	case X_LOOKUP: {
		const LOOKUP3res *const res = data;
		/* q->status: prepare's create that found the name there, which this LOOKUP learns (its status is the op's). */
		int kind = -1;
		if (!(st = status_of(q, res->status))) {
			const LOOKUP3resok *const ok = &res->LOOKUP3res_u.resok;
			kind = kind_of(&ok->obj_attributes, RP_NFS_FK_UNKNOWN);
			learn(c, q->path, &ok->object, kind);
		} else if (st == ENOENT) {
			absent(c, q->path);
		}
		if (q->xstage == 2) {
			unchecked_again(q, kind);
			return;
		}
		if (q->status)
			st = q->status;
		break;
	}
	case X_READ: {
		const READ3res *const res = data;
		if (!(st = status_of(q, res->status)))
			q->req->result = res->READ3res_u.resok.count;
		break;
	}
	case X_WRITE: {
		const WRITE3res *const res = data;
		if (!(st = status_of(q, res->status)))
			q->req->result = res->WRITE3res_u.resok.count;
		break;
	}
	case X_CREATE:
		st = created(q, data);
		if (st == EEXIST && q->xstage == 1) {
			q->xstage = 2;
			if (learn_existing(q))
				return;
		}
		if (st == EEXIST && is_prepare(q->req) && learn_existing(q))
			return;
		break;
	case X_MKDIR: {
		const MKDIR3res *const res = data;
		const nfs_fh3 *fh;
		if (!(st = status_of(q, res->status)) && (fh = post_op_fh(&res->MKDIR3res_u.resok.obj)))
			learn(c, q->path, fh, RP_NFS_FK_DIR);
		if (st == EEXIST && is_prepare(q->req) && learn_existing(q))
			return;
		break;
	}
	case X_SYMLINK: {
		const SYMLINK3res *const res = data;
		const nfs_fh3 *fh;
		if (!(st = status_of(q, res->status)) && (fh = post_op_fh(&res->SYMLINK3res_u.resok.obj)))
			learn(c, q->path, fh, RP_NFS_FK_LINK);
		break;
	}
	case X_MKNOD: {
		const MKNOD3res *const res = data;
		const nfs_fh3 *fh;
		if (!(st = status_of(q, res->status)) && (fh = post_op_fh(&res->MKNOD3res_u.resok.obj)))
			learn(c, q->path, fh, RP_NFS_FK_OTHER);
		break;
	}
	case X_REMOVE:
	case X_RMDIR:
		st = status_of(q, *(const nfsstat3 *)data);
		if (st == 0 || st == ENOENT)
			absent(c, q->path);
		break;
	case X_RENAME:
		if (!(st = status_of(q, *(const nfsstat3 *)data))) {
			pthread_mutex_lock(&c->group->lock);
			(void)rp__nfs_fhmap_rename(&c->group->fhmap, q->path, q->path2);
			(void)rp__nfs_fhmap_absent(&c->group->fhmap, q->path);
			pthread_mutex_unlock(&c->group->lock);
		}
		break;
	case X_LINK:
		if (!(st = status_of(q, *(const nfsstat3 *)data))) {
			const nfs_fh3 fh = { .data = { .data_len = q->chk_fhlen, .data_val = (char *)q->chk_fh } };
			learn(c, q->path2, &fh, RP_NFS_FK_FILE); /* NFSv3 links no directories */
		}
		break;
	case X_READDIR:
	case X_READDIRPLUS:
		st = listed(q, data);
		break;
	default:
		/* Every result struct begins with its nfsstat3. */
		st = status_of(q, *(const nfsstat3 *)data);
		break;
	}
	rp__nfs_finish(q, st);
}

/* The namespace ops also forget what the semantic path's checked names hold (as nfs_ops.c does). */
static nreq *begin(nfs_client *c, rp_breq *req, uint32_t proc)
{
	nreq *const q = rp__nfs_req_new(c, req);
	if (!q)
		return NULL;
	q->step = S_SIMPLE; /* its reply goes to exact_cb, never to the semantic steps */
	q->reply = NULL;
	q->xproc = proc;
	if (rp__nfs_changes_names(req->op->op))
		rp__nfs_names_changed(c, q->path, q->path2);
	return q;
}

/* After the raw call: counted as sent, or the request ended (not queued: no callback will come). */
static void sent(nreq *q, int rc)
{
	if (rc < 0) {
		rp__nfs_finish(q, EIO);
		return;
	}
	if (!is_prepare(q->req))
		atomic_fetch_add_explicit(&q->c->nb->exact_ops, 1u, memory_order_relaxed);
}

#define FH3(buf, n) ((nfs_fh3){ .data = { .data_len = (n), .data_val = (char *)(buf) } })

/* The procedure an op came from, as far as the op says; 0 when none it can be sent as. */
static uint32_t proc_of(const rp_op *op)
{
	switch (op->op) {
	case RP_OP_STAT: return X_GETATTR;
	case RP_OP_SETATTR: return X_SETATTR;
	case RP_OP_LOOKUP: return X_LOOKUP;
	case RP_OP_ACCESS: return X_ACCESS;
	case RP_OP_READLINK: return X_READLINK;
	case RP_OP_READ: return X_READ;
	case RP_OP_WRITE: return X_WRITE;
	case RP_OP_OPEN: return X_CREATE;
	case RP_OP_MKDIR: return X_MKDIR;
	case RP_OP_SYMLINK: return X_SYMLINK;
	case RP_OP_MKNOD: return X_MKNOD;
	case RP_OP_UNLINK: return X_REMOVE;
	case RP_OP_RMDIR: return X_RMDIR;
	case RP_OP_RENAME: return X_RENAME;
	case RP_OP_LINK: return X_LINK;
	case RP_OP_READDIR:
		return op->raw.level == X_READDIR || op->raw.level == X_READDIRPLUS ? op->raw.level : 0;
	case RP_OP_STATFS:
		return op->raw.level >= X_FSSTAT && op->raw.level <= X_PATHCONF ? op->raw.level : 0;
	case RP_OP_FLUSH: return X_COMMIT;
	default: return 0;
	}
}

/* Procedures on one object's handle. */
static bool send_on_object(nfs_client *c, rp_breq *req, uint32_t proc)
{
	const rp_op *const op = req->op;
	unsigned char fh[RP_NFS_FH_MAX];
	uint32_t len = 0;
	sattr3 sa;
	if (proc == X_SETATTR && !make_sattr(c, op, &sa))
		return fall_back(c, req, RP_NFS_FB_ATTRS);
	if (proc == X_READ && op->length > c->rmax)
		return fall_back(c, req, RP_NFS_FB_SIZE);
	if (proc == X_WRITE && (op->length > c->wmax || op->raw.level > FILE_SYNC))
		return fall_back(c, req, op->length > c->wmax ? RP_NFS_FB_SIZE : RP_NFS_FB_RAW);
	nfs_group *const g = c->group;
	uint64_t cookie = 0;
	unsigned char verf[NFS3_COOKIEVERFSIZE] = { 0 };
	if ((proc == X_READDIR || proc == X_READDIRPLUS) && op->offset != 0) {
		/* The recorded cookie is the original server's: ours goes on from where our own listing ended. */
		bool known = false;
		pthread_mutex_lock(&g->lock);
		const rp_nfs_fhnode *const d = req->path ? rp__nfs_fhmap_node(&g->fhmap, req->path) : NULL;
		if (d && d->list_known) {
			known = true;
			cookie = d->list_cookie;
			memcpy(verf, d->list_verf, sizeof(verf));
		}
		pthread_mutex_unlock(&g->lock);
		if (!known)
			return fall_back(c, req, RP_NFS_FB_COOKIE);
	}
	if (!object_fh(c, req, fh, &len))
		return fall_back(c, req, RP_NFS_FB_NO_FH);
	nreq *const q = begin(c, req, proc);
	if (!q)
		return true;
	struct rpc_context *const rpc = nfs_get_rpc_context(c->nfs);
	const nfs_fh3 obj = FH3(fh, len);
	const uint32_t count = op->length > UINT32_MAX ? UINT32_MAX : (uint32_t)op->length;
	/* libnfs encodes the call before it returns (the write's data it sends from c->wbuf, which stays). */
	switch (proc) {
	case X_GETATTR: {
		GETATTR3args a = { .object = obj };
		sent(q, rpc_nfs3_getattr_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_SETATTR: {
		SETATTR3args a = { .object = obj, .new_attributes = sa };
		sent(q, rpc_nfs3_setattr_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_ACCESS: {
		ACCESS3args a = { .object = obj, .access = op->raw.access };
		sent(q, rpc_nfs3_access_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_READLINK: {
		READLINK3args a = { .symlink = obj };
		sent(q, rpc_nfs3_readlink_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_READ: {
		READ3args a = { .file = obj, .offset = op->offset, .count = count };
		sent(q, rpc_nfs3_read_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_WRITE: {
		WRITE3args a = { .file = obj, .offset = op->offset, .count = count, .stable = (stable_how)op->raw.level };
		a.data.data_len = count;
		a.data.data_val = req->zero ? c->zbuf : c->wbuf;
		sent(q, rpc_nfs3_write_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_COMMIT: {
		COMMIT3args a = { .file = obj, .offset = op->offset, .count = count };
		sent(q, rpc_nfs3_commit_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_READDIR: {
		READDIR3args a = { .dir = obj, .cookie = cookie, .count = count };
		memcpy(a.cookieverf, verf, sizeof(verf));
		sent(q, rpc_nfs3_readdir_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_READDIRPLUS: {
		/* The decoder keeps maxcount; dircount, a hint of the client's, goes as the same. */
		READDIRPLUS3args a = { .dir = obj, .cookie = cookie, .dircount = count, .maxcount = count };
		memcpy(a.cookieverf, verf, sizeof(verf));
		sent(q, rpc_nfs3_readdirplus_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_FSSTAT: {
		FSSTAT3args a = { .fsroot = obj };
		sent(q, rpc_nfs3_fsstat_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_FSINFO: {
		FSINFO3args a = { .fsroot = obj };
		sent(q, rpc_nfs3_fsinfo_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_PATHCONF: {
		PATHCONF3args a = { .object = obj };
		sent(q, rpc_nfs3_pathconf_async(rpc, exact_cb, &a, q));
		break;
	}
	default:
		rp__nfs_finish(q, EINVAL);
		break;
	}
	return true;
}

/* CREATE's how from the op's semantics (what the engine may have changed for a later pass: loop_open). */
static bool create_how(nfs_client *c, const rp_op *op, createhow3 *how)
{
	memset(how, 0, sizeof(*how));
	switch (op->disp) {
	case RP_DISP_OPEN_IF:
	case RP_DISP_TRUNC_IF:
		how->mode = UNCHECKED;
		mode_sattr(c, op->mode, &how->createhow3_u.obj_attributes);
		if (op->disp == RP_DISP_TRUNC_IF) {
			how->createhow3_u.obj_attributes.size.set_it = 1;
			how->createhow3_u.obj_attributes.size.set_size3_u.size = 0;
		}
		return true;
	case RP_DISP_CREATE:
		if (op->oflags & RP_OF_EXCL_VERIFY) {
			how->mode = EXCLUSIVE;
			make_verf(c, how->createhow3_u.verf);
		} else {
			how->mode = GUARDED;
			mode_sattr(c, op->mode, &how->createhow3_u.g_obj_attributes);
		}
		return true;
	default:
		return false; /* an open of what is there: no CREATE (not from NFSv3) */
	}
}

/*
 * How an UNCHECKED CREATE of path may go: ganesha opens the name on its own
 * file system and follows a symlink there (docs/replay.md, "Safety"), so
 * only a name the replies said is a regular file or absent (a LOOKUP's
 * NOENT, a REMOVE: the trace's client looked before it created) is sent as
 * it is (1); one they said nothing of is sent GUARDED first (0); anything
 * else (a link, a directory) goes the semantic way, whose check answers it
 * (-1).  The window left is the semantic check's own.
 */
static int unchecked_ok(nfs_client *c, const char *path)
{
	if (!path)
		return -1;
	pthread_mutex_lock(&c->group->lock);
	const int kind = rp__nfs_fhmap_kind(&c->group->fhmap, path);
	pthread_mutex_unlock(&c->group->lock);
	return kind == RP_NFS_FK_FILE || kind == RP_NFS_FK_ABSENT ? 1 : kind < 0 ? 0 : -1;
}

/* Procedures on a directory's handle and a name. */
static bool send_in_dir(nfs_client *c, rp_breq *req, uint32_t proc)
{
	const rp_op *const op = req->op;
	createhow3 how;
	if (proc == X_CREATE && (!create_how(c, op, &how) || (op->oflags & ~(uint32_t)RP_OF_EXCL_VERIFY)))
		return fall_back(c, req, RP_NFS_FB_RAW);
	/*
	 * An UNCHECKED CREATE of a name the replies never called a file or
	 * absent goes GUARDED: on a name that is not there (a client that did
	 * not look first) it is the same one CREATE; on one that is, nothing is
	 * followed and the reply says so (exact_cb: unchecked_again).
	 */
	bool guarded_first = false;
	const int unchecked = proc == X_CREATE && how.mode == UNCHECKED ? unchecked_ok(c, req->path) : 1;
	if (unchecked < 0)
		return fall_back(c, req, RP_NFS_FB_UNCHECKED);
	if (unchecked == 0) {
		how.mode = GUARDED; /* obj_attributes and g_obj_attributes are the same sattr3 of the union */
		guarded_first = true;
	}
	if (proc == X_MKNOD && op->raw.level != NF3FIFO)
		return fall_back(c, req, RP_NFS_FB_DEVICE); /* the semantic path makes FIFOs and regular files only */
	if (proc == X_RENAME && op->oflags)
		return fall_back(c, req, RP_NFS_FB_RAW); /* no-replace, exchange: no NFSv3 RENAME */
	unsigned char dfh[RP_NFS_FH_MAX], dfh2[RP_NFS_FH_MAX], ofh[RP_NFS_FH_MAX];
	uint32_t dlen = 0, dlen2 = 0, olen = 0;
	const char *name = NULL, *name2 = NULL;
	/* LINK: path is the file, path2 the new name; the others: path is the name (RENAME's old one). */
	const char *const where = proc == X_LINK ? req->path2 : req->path;
	if (!where || (proc == X_RENAME && !req->path2) || (proc == X_SYMLINK && !req->path2))
		return fall_back(c, req, RP_NFS_FB_RAW);
	bool self = false;
	if (proc == X_LOOKUP && !where[0]) {
		/* A LOOKUP that names the root itself ("." or ".." in it, made "" by the engine): "." in the root. */
		if (!object_fh(c, req, dfh, &dlen))
			return fall_back(c, req, RP_NFS_FB_NO_FH);
		name = ".";
		self = true;
	} else if (!parent_fh(c, where, dfh, &dlen, &name)) {
		return fall_back(c, req, RP_NFS_FB_NO_PARENT);
	}
	if (proc == X_RENAME && !parent_fh(c, req->path2, dfh2, &dlen2, &name2))
		return fall_back(c, req, RP_NFS_FB_NO_PARENT);
	if (proc == X_LINK && !object_fh(c, req, ofh, &olen))
		return fall_back(c, req, RP_NFS_FB_NO_FH);
	if ((!self && name_refused(name)) || (name2 && name_refused(name2))) {
		req->escape = true;
		rp__nfs_complete(c, req, EXDEV);
		return true;
	}
	nreq *const q = begin(c, req, proc);
	if (!q)
		return true;
	struct rpc_context *const rpc = nfs_get_rpc_context(c->nfs);
	const diropargs3 d = { .dir = FH3(dfh, dlen), .name = (char *)name };
	switch (proc) {
	case X_LOOKUP: {
		LOOKUP3args a = { .what = d };
		sent(q, rpc_nfs3_lookup_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_CREATE: {
		memcpy(q->chk_fh, dfh, dlen); /* for prepare's EEXIST (learn_existing) and unchecked_again */
		q->chk_fhlen = dlen;
		q->xstage = guarded_first ? 1 : 0;
		CREATE3args a = { .where = d, .how = how };
		sent(q, rpc_nfs3_create_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_MKDIR: {
		memcpy(q->chk_fh, dfh, dlen);
		q->chk_fhlen = dlen;
		MKDIR3args a = { .where = d };
		mode_sattr(c, op->mode, &a.attributes);
		sent(q, rpc_nfs3_mkdir_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_SYMLINK: {
		/* path2 is the link's text: stored by the server, never resolved by us. */
		SYMLINK3args a = { .where = d };
		a.symlink.symlink_data = (char *)req->path2;
		sent(q, rpc_nfs3_symlink_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_MKNOD: {
		MKNOD3args a = { .where = d };
		a.what.type = NF3FIFO;
		mode_sattr(c, op->mode & 07777 ? op->mode : 0666, &a.what.mknoddata3_u.pipe_attributes);
		sent(q, rpc_nfs3_mknod_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_REMOVE: {
		REMOVE3args a = { .object = d };
		sent(q, rpc_nfs3_remove_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_RMDIR: {
		RMDIR3args a = { .object = d };
		sent(q, rpc_nfs3_rmdir_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_RENAME: {
		RENAME3args a = { .from = d, .to = { .dir = FH3(dfh2, dlen2), .name = (char *)name2 } };
		sent(q, rpc_nfs3_rename_async(rpc, exact_cb, &a, q));
		break;
	}
	case X_LINK: {
		/* The file's handle is kept for the reply, which learns the new name as it. */
		memcpy(q->chk_fh, ofh, olen);
		q->chk_fhlen = olen;
		LINK3args a = { .file = FH3(ofh, olen), .link = d };
		sent(q, rpc_nfs3_link_async(rpc, exact_cb, &a, q));
		break;
	}
	default:
		rp__nfs_finish(q, EINVAL);
		break;
	}
	return true;
}

bool rp__nfs_exact_start(nfs_client *c, rp_breq *req)
{
	const rp_op *const op = req->op;
	const nfile *const f = req->bh ? (const nfile *)(uintptr_t)req->bh : NULL;
	if (op->op == RP_OP_CLOSE && f && f->exact) {
		/* NFSv3 has no CLOSE: the handle an exact CREATE gave goes, with no RPC. */
		rp__nfs_release(c, req->bh);
		req->bh = 0;
		rp__nfs_complete(c, req, 0);
		return true;
	}
	if (c->lost || req->no_handle)
		return false; /* the semantic path answers those without the server */
	if (is_prepare(req)) {
		/*
		 * Prepare's own: its directories and files are made by MKDIR and
		 * CREATE, and filled by WRITEs on their handles, so the map knows
		 * what the trace expects to be there; the rest goes the semantic way.
		 */
		if (op->op == RP_OP_MKDIR || op->op == RP_OP_OPEN)
			return send_in_dir(c, req, proc_of(op));
		if (op->op == RP_OP_WRITE && f && f->exact)
			return send_on_object(c, req, X_WRITE);
		return false;
	}
	if (op->proto != RP_PROTO_NFS3)
		return fall_back(c, req, RP_NFS_FB_NOT_NFS3);
	const uint32_t proc = proc_of(op);
	switch (proc) {
	case 0:
		return fall_back(c, req, op->op == RP_OP_READDIR || op->op == RP_OP_STATFS ? RP_NFS_FB_RAW : RP_NFS_FB_NO_PROC);
	case X_LOOKUP:
	case X_CREATE:
	case X_MKDIR:
	case X_SYMLINK:
	case X_MKNOD:
	case X_REMOVE:
	case X_RMDIR:
	case X_RENAME:
	case X_LINK:
		return send_in_dir(c, req, proc);
	default:
		return send_on_object(c, req, proc);
	}
}
