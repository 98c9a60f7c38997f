/*
 * The nfs backend's exact mode for NFSv4.0 (RFC 7530): an op of an NFSv4.0
 * trace sent as the COMPOUND it came in, through libnfs 4.0's raw
 * rpc_nfs4_compound_async, on a client id and an open-owner of our own,
 * with file handles from the target's own replies (nfs_fhmap.c, shared
 * with NFSv3's exact mode) and the stateids of its OPEN replies kept on the
 * handles the trace's stateids became.  A compound's leading LOOKUPs
 * (flag cont) are gathered and sent with the op they lead to.  What cannot
 * be sent so goes the semantic way (nfs_ops.c), counted by reason.  Like
 * nfs_exact.c, it reads an op's provenance (op->proto, op->raw) on purpose.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"
#include "replay/backends/nfs4_exact_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs-raw-nfs4.h>
#include <nfsc/libnfs-raw.h>

#include "formats/semantics.h"
#include "formats/status.h"

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

/* A COMPOUND being built that cannot go exactly: its buffer and the leading LOOKUPs dropped, the op counted. */
static bool abandon(nfs_client *c, const rp_breq *req, cbuild *b, unsigned reason)
{
	free(b);
	rp__nfs4x_drop_pre(c->x4);
	return fall_back(c, req, reason);
}

static bool name_refused(const char *name)
{
	return !name[0] || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/');
}

/* The ops of an owner's seqid (open-owner, lock-owner): one of them on the wire at a time. */
static bool is_seq(unsigned k)
{
	return k == K_OPEN || k == K_CLOSE || k == K_LOCK || k == K_LOCKU;
}

/* ---- sending and replies ---- */

static void x4_cb(struct rpc_context *rpc, int status, void *data, void *priv);

static void next_waiting(nfs_client *c);

/* The main op's path's new handle and kind, from the GETFH (and GETATTR of the type) after it. */
static void learn_reply(nfs_client *c, const nreq *q, const COMPOUND4res *res, int dflt_kind)
{
	const void *fh = NULL;
	size_t len = 0;
	int kind = dflt_kind;
	for (u_int i = 0; i < res->resarray.resarray_len; i++) {
		nfs_resop4 rc;
		rp__nfs4x_resop(res, i, &rc);
		const nfs_resop4 *const r = &rc;
		if (r->resop == OP_GETFH && r->nfs_resop4_u.opgetfh.status == NFS4_OK) {
			fh = r->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object.nfs_fh4_val;
			len = r->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object.nfs_fh4_len;
		} else if (r->resop == OP_GETATTR && r->nfs_resop4_u.opgetattr.status == NFS4_OK) {
			const fattr4 *const f = &r->nfs_resop4_u.opgetattr.GETATTR4res_u.resok4.obj_attributes;
			uint32_t mask0 = 0;
			if (f->attrmask.bitmap4_len >= 1)
				memcpy(&mask0, f->attrmask.bitmap4_val, sizeof(mask0));
			if ((mask0 & (1u << FATTR4_TYPE)) &&
			    f->attr_vals.attrlist4_len >= 4) {
				const unsigned char *const p = (const unsigned char *)f->attr_vals.attrlist4_val;
				const uint32_t t = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
				kind = t == NF4REG ? RP_NFS_FK_FILE : t == NF4DIR ? RP_NFS_FK_DIR : t == NF4LNK ? RP_NFS_FK_LINK
											  : RP_NFS_FK_OTHER;
			}
		}
	}
	if (fh)
		rp__nfs4x_learn(c, q->path, fh, len, kind);
}

/* OPEN's reply: a handle of ours with the server's stateid; an OPEN_CONFIRM to follow when it asks (true: sent). */
static int opened(nreq *q, const COMPOUND4res *res, bool *confirm)
{
	nfs_client *const c = q->c;
	/* The OPEN's result and the handle of the reply itself (a map that is full keeps none). */
	OPEN4resok okc;
	const OPEN4resok *ok = NULL;
	unsigned char fh[RP_NFS_FH_MAX];
	uint32_t len = 0;
	for (u_int i = 0; i < res->resarray.resarray_len; i++) {
		nfs_resop4 r;
		rp__nfs4x_resop(res, i, &r);
		if (r.resop == OP_OPEN) {
			okc = r.nfs_resop4_u.opopen.OPEN4res_u.resok4;
			ok = &okc;
		} else if (r.resop == OP_GETFH && r.nfs_resop4_u.opgetfh.status == NFS4_OK) {
			const nfs_fh4 *const got = &r.nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object;
			if (got->nfs_fh4_len && got->nfs_fh4_len <= RP_NFS_FH_MAX) {
				memcpy(fh, got->nfs_fh4_val, got->nfs_fh4_len);
				len = got->nfs_fh4_len;
			}
		}
	}
	learn_reply(c, q, res, RP_NFS_FK_FILE);
	if (!ok || !len)
		return EIO;
	nfile *const f = rp__nfs_file_new(q->path, NULL, false);
	if (!f)
		return ENOMEM;
	f->exact = true;
	memcpy(f->xfh, fh, len);
	f->xfhlen = (uint8_t)len;
	f->sid_ok = true;
	f->owner = q->xowner;
	f->gen = c->x4->own[q->xowner].gen;
	rp__nfs4x_open_ref(c->x4, fh, len, q->xowner, 1);
	f->sid_seq = ok->stateid.seqid;
	memcpy(f->sid_other, ok->stateid.other, sizeof(f->sid_other));
	q->req->bh = (uint64_t)(uintptr_t)f;
	q->req->granted = 0;
	*confirm = (ok->rflags & OPEN4_RESULT_CONFIRM) != 0;
	return 0;
}

/* The new open-owner's first OPEN asked to be confirmed: OPEN_CONFIRM, its reply ends the op (xstage 1). */
static bool confirm_open(nreq *q)
{
	nfs_client *const c = q->c;
	nfile *const f = (nfile *)(uintptr_t)q->req->bh;
	cbuild b;
	b.n = 0;
	rp__nfs4x_putfh(&b, f->xfh, f->xfhlen);
	nfs_argop4 *const a = rp__nfs4x_add(&b, OP_OPEN_CONFIRM);
	rp__nfs4x_sid_of(f, &a->nfs_argop4_u.opopen_confirm.open_stateid);
	a->nfs_argop4_u.opopen_confirm.seqid = c->x4->own[q->xowner].seqid;
	COMPOUND4args ca = { .argarray = { .argarray_len = b.n, .argarray_val = b.a } };
	q->xstage = 1;
	c->x4->last_ns = rp__nfs4x_now_ns();
	return rp__nfs4x_send(c, &ca, x4_cb, q, 0) == 0;
}

/* The same LOCK again, on the wire (its lock-owner a new one if the last, a first LOCK, was refused). */
static void poll_send(nreq *q)
{
	nfs_client *const c = q->c;
	struct nfs4x *const x = c->x4;
	nfile *const f = (nfile *)(uintptr_t)q->req->bh;
	cbuild *const b = malloc(sizeof(*b));
	if (!b) {
		rp__nfs_finish(q, ENOMEM);
		return;
	}
	b->n = 0;
	rp__nfs4x_putfh(b, f->xfh, f->xfhlen);
	const bool fresh = rp__nfs4x_lock_new(f);
	unsigned why = 0;
	if (!rp__nfs4x_lock_args(c, b, q->req->op, f, K_LOCK, &why)) {
		free(b);
		rp__nfs_finish(q, EAGAIN); /* its open-owner was given up meanwhile: denied, as the last answer said */
		return;
	}
	q->xstage = fresh ? 1 : 0;
	q->xowner = f->owner;
	COMPOUND4args ca = { .argarray = { .argarray_len = b->n, .argarray_val = b->a } };
	x->last_ns = rp__nfs4x_now_ns();
	const int rc = rp__nfs4x_send(c, &ca, x4_cb, q, 0);
	free(b);
	if (rc < 0) {
		rp__nfs_finish(q, EIO);
		return;
	}
	x->seq_busy = true;
	atomic_fetch_add_explicit(&c->nb->lock_polls, 1u, memory_order_relaxed);
}

/* The polls whose time came, while no seqid op is in flight (a LOCK is one: they go one at a time). */
static void polls_due(nfs_client *c)
{
	const uint64_t now = rp__nfs4x_now_ns();
	nreq *q;
	while (!c->x4->seq_busy && !c->lost && !c->ending && (q = rp__nfs4x_poll_take(c->x4, now)) != NULL)
		poll_send(q);
}

void rp__nfs4_exact_fini(nfs_client *c)
{
	struct nfs4x *const x = c->x4;
	if (!x)
		return;
	/* Its last RELEASE_LOCKOWNERs (after its last CLOSEs) answered before the connection goes. */
	rp__nfs4x_release_drain(c);
	rp__nfs4x_drop_pre(x);
	free(x->opens);
	for (wait_node *w = x->wq, *next; w; w = next) {
		next = w->next;
		rp__nfs_complete(c, w->req, EIO);
		free(w);
	}
	free(x);
	c->x4 = NULL;
}

void rp__nfs4_exact_idle(nfs_client *c)
{
	if (!c->x4 || c->lost)
		return;
	rp__nfs4x_renew(c);
	polls_due(c);
}

static void x4_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	nreq *const q = priv;
	nfs_client *const c = q->c;
	const bool seq = is_seq(q->xproc);
	if (rp__nfs_reply_ends(q, status == RPC_STATUS_TIMEOUT ? -ETIMEDOUT : 0)) {
		if (seq && c->x4) {
			c->x4->seq_busy = false;
			next_waiting(c);
		}
		return;
	}
	const COMPOUND4res *const res = data;
	if (status != RPC_STATUS_SUCCESS || !res) {
		rp__nfs_finish(q, EIO);
		if (seq) {
			c->x4->seq_busy = false;
			next_waiting(c);
		}
		return;
	}
	/*
	 * The owner's seqid moves with each OPEN, OPEN_CONFIRM and CLOSE the
	 * server got to; one it refused as out of step (BAD_SEQID) is given up
	 * for a new owner of the next generation (seqid 0, confirmed anew).  A
	 * LOCK's moves are nfs4_lock.c's.
	 */
	owner4 *const ow = &c->x4->own[q->xowner < OWNERS_MAX ? q->xowner : 0];
	for (u_int i = 0; seq && i < res->resarray.resarray_len; i++) {
		nfs_resop4 rc;
		rp__nfs4x_resop(res, i, &rc);
		const nfs_resop4 *const r = &rc;
		if (r->resop != OP_OPEN && r->resop != OP_OPEN_CONFIRM && r->resop != OP_CLOSE)
			continue;
		rp__nfs4x_owner_moved(ow, (uint32_t)r->nfs_resop4_u.opopen.status);
	}
	const int st = res->status == NFS4_OK ? 0 : rp_status_from_proto(RP_SK_NFS4, (uint32_t)res->status);
	int out = st;
	bool more = false;
	if (res->status == NFS4ERR_STALE && q->path) {
		pthread_mutex_lock(&c->group->lock);
		rp__nfs_fhmap_forget(&c->group->fhmap, q->path);
		pthread_mutex_unlock(&c->group->lock);
	}
	switch (q->xproc) {
	case K_LOOKUP:
		if (!st)
			learn_reply(c, q, res, RP_NFS_FK_UNKNOWN);
		else if (st == ENOENT)
			rp__nfs4x_absent(c, q->path);
		break;
	case K_MKDIR:
		if (!st)
			learn_reply(c, q, res, RP_NFS_FK_DIR);
		break;
	case K_SYMLINK:
	case K_MKNOD:
		if (!st)
			learn_reply(c, q, res, q->xproc == K_SYMLINK ? RP_NFS_FK_LINK : RP_NFS_FK_OTHER);
		break;
	case K_LINK: {
		/* The new name is the file's: its handle as the map knows the old name. */
		unsigned char lfh[RP_NFS_FH_MAX];
		uint32_t llen = 0;
		if (!st && q->path2 && rp__nfs4x_map_get(c, q->path, lfh, &llen))
			rp__nfs4x_learn(c, q->path2, lfh, llen, RP_NFS_FK_FILE);
		break;
	}
	case K_READLINK:
		for (u_int i = 0; !st && i < res->resarray.resarray_len; i++) {
			nfs_resop4 rc;
			rp__nfs4x_resop(res, i, &rc);
			if (rc.resop == OP_READLINK && rc.nfs_resop4_u.opreadlink.status == NFS4_OK)
				q->req->result = rc.nfs_resop4_u.opreadlink.READLINK4res_u.resok4.link.utf8string_len;
		}
		break;
	case K_OPEN:
		if (q->xstage == 1) {
			nfile *const f = (nfile *)(uintptr_t)q->req->bh;
			nfs_resop4 rc;
			const nfs_resop4 *const r = res->resarray.resarray_len >= 2 ? (rp__nfs4x_resop(res, 1, &rc), &rc) : NULL;
			if (!st && r && r->resop == OP_OPEN_CONFIRM) {
				f->sid_seq = r->nfs_resop4_u.opopen_confirm.OPEN_CONFIRM4res_u.resok4.open_stateid.seqid;
			} else {
				rp__nfs_release(c, q->req->bh);
				q->req->bh = 0;
			}
			break;
		}
		if (!st && !(out = opened(q, res, &more)) && more) {
			if (confirm_open(q))
				return;
			out = EIO;
		}
		break;
	case K_CLOSE: {
		const nfile *const f = (const nfile *)(uintptr_t)q->req->bh;
		if (f)
			rp__nfs4x_open_ref(c->x4, f->xfh, f->xfhlen, f->owner, -1);
		/* The open's lock-owner is named by no request after its CLOSE: the target may forget it. */
		if (f && f->lk_ok)
			rp__nfs4x_release_owner(c, f->lk_id, f->lk_gen);
		rp__nfs_release(c, q->req->bh);
		q->req->bh = 0;
		break;
	}
	case K_LOCK:
	case K_LOCKU:
		if (rp__nfs4x_lock_reply(q, res, &out)) {
			c->x4->seq_busy = false; /* sent again later: its turn passes on meanwhile */
			next_waiting(c);
			return;
		}
		break;
	case K_READ:
	case K_WRITE:
		for (u_int i = 0; !st && i < res->resarray.resarray_len; i++) {
			nfs_resop4 rc;
		rp__nfs4x_resop(res, i, &rc);
		const nfs_resop4 *const r = &rc;
			if (r->resop == OP_READ)
				q->req->result = r->nfs_resop4_u.opread.READ4res_u.resok4.data.data_len;
			else if (r->resop == OP_WRITE)
				q->req->result = r->nfs_resop4_u.opwrite.WRITE4res_u.resok4.count;
		}
		break;
	case K_REMOVE:
		if (st == 0 || st == ENOENT)
			rp__nfs4x_absent(c, q->path);
		break;
	case K_READDIR:
		if (!st)
			rp__nfs4x_listed(q, res);
		break;
	case K_RENAME:
		if (!st) {
			pthread_mutex_lock(&c->group->lock);
			(void)rp__nfs_fhmap_rename(&c->group->fhmap, q->path, q->path2);
			(void)rp__nfs_fhmap_absent(&c->group->fhmap, q->path);
			pthread_mutex_unlock(&c->group->lock);
		}
		break;
	default:
		break;
	}
	rp__nfs_finish(q, out);
	if (seq) {
		c->x4->seq_busy = false;
		next_waiting(c);
	}
}

/* ---- ops ---- */

static unsigned kind_of_op(const rp_op *op)
{
	switch (op->op) {
	case RP_OP_LOOKUP: return K_LOOKUP;
	case RP_OP_OPEN: return K_OPEN;
	case RP_OP_CLOSE: return K_CLOSE;
	case RP_OP_READ: return K_READ;
	case RP_OP_WRITE: return K_WRITE;
	case RP_OP_FLUSH: return K_COMMIT;
	case RP_OP_STAT: return K_GETATTR;
	case RP_OP_SETATTR: return K_SETATTR;
	case RP_OP_UNLINK:
	case RP_OP_RMDIR: return K_REMOVE;
	case RP_OP_RENAME: return K_RENAME;
	case RP_OP_MKDIR: return K_MKDIR;
	case RP_OP_READDIR: return op->path2 ? 0 : K_READDIR; /* a pattern is SMB's, no READDIR's */
	case RP_OP_ACCESS: return K_ACCESS;
	case RP_OP_READLINK: return K_READLINK;
	case RP_OP_STATFS: return K_STATFS;
	case RP_OP_SYMLINK: return K_SYMLINK;
	case RP_OP_LINK: return K_LINK;
	case RP_OP_MKNOD: return K_MKNOD;
	case RP_OP_LOCK: return op->flags & RP_OPF_TEST ? K_LOCKT : K_LOCK;
	case RP_OP_UNLOCK: return K_LOCKU;
	default: return 0;
	}
}

static bool names_dir(unsigned k)
{
	return k == K_LOOKUP || k == K_OPEN || k == K_REMOVE || k == K_RENAME || k == K_MKDIR || k == K_SYMLINK ||
	       k == K_MKNOD;
}

static const char *last_name(const char *path)
{
	const char *const s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/*
 * Neither known: LOOKUPs from the nearest directory above that the map
 * knows, ahead of the op in its COMPOUND (a capture that began mid-session
 * names handles whose LOOKUPs it never saw), at most PRE_MAX of them.  The
 * names point into at, which lives as long as the request.
 */
static bool walk_to(nfs_client *c, cbuild *b, const char *at, bool dir_of, unsigned char *fh, uint32_t *len)
{
	size_t end = strlen(at);
	while (end && at[end - 1] == '/')
		end--;
	if (dir_of) {
		while (end && at[end - 1] != '/')
			end--;
		while (end && at[end - 1] == '/')
			end--;
	}
	char *const prefix = strndup(at, end);
	if (!prefix)
		return false;
	/* The longest known prefix at a component's end ("" the root). */
	size_t cut = end;
	unsigned steps = 0;
	bool known = false;
	for (;;) {
		prefix[cut] = '\0';
		if ((known = rp__nfs4x_map_get(c, prefix, fh, len)) || !cut || ++steps > PRE_MAX)
			break;
		while (cut && at[cut - 1] != '/')
			cut--;
		while (cut && at[cut - 1] == '/')
			cut--;
	}
	free(prefix);
	if (!known)
		return false;
	const size_t first = b->n;
	rp__nfs4x_putfh(b, fh, *len);
	for (size_t i = cut; i < end;) {
		while (i < end && at[i] == '/')
			i++;
		size_t j = i;
		while (j < end && at[j] != '/')
			j++;
		if (j == i)
			break;
		const size_t n = j - i;
		if ((n == 1 && at[i] == '.') || (n == 2 && at[i] == '.' && at[i + 1] == '.')) {
			b->n = (unsigned)first;
			return false;
		}
		nfs_argop4 *const a = rp__nfs4x_add(b, OP_LOOKUP);
		a->nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)n;
		a->nfs_argop4_u.oplookup.objname.utf8string_val = (char *)at + i;
		i = j;
	}
	return true;
}

/*
 * The current handle the op needs (at: its directory for a name, else its
 * object): the gathered LOOKUPs when they lead there from a known
 * directory (sent as they were), else a PUTFH of the handle known for it.
 */
static bool set_current(nfs_client *c, cbuild *b, const char *at, bool dir_of, unsigned char *fh, uint32_t *len)
{
	struct nfs4x *const x = c->x4;
	const char *name0;
	if (rp__nfs4_lookups_lead((const char *const *)x->pre, x->n_pre, at, dir_of) &&
	    rp__nfs4x_map_parent(c, x->pre[0], fh, len, &name0)) {
		rp__nfs4x_putfh(b, fh, *len);
		for (unsigned i = 0; i < x->n_pre; i++) {
			const char *const nm = last_name(x->pre[i]);
			if (name_refused(nm))
				return false;
			nfs_argop4 *const a = rp__nfs4x_add(b, OP_LOOKUP);
			a->nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)strlen(nm);
			a->nfs_argop4_u.oplookup.objname.utf8string_val = (char *)nm;
		}
		return true;
	}
	const char *nm;
	if (dir_of ? rp__nfs4x_map_parent(c, at, fh, len, &nm) : rp__nfs4x_map_get(c, at, fh, len)) {
		rp__nfs4x_putfh(b, fh, *len);
		return true;
	}
	return walk_to(c, b, at, dir_of, fh, len);
}

/*
 * LINK's and RENAME's second directory, the current handle (the file, the
 * old name's directory) saved first: a SAVEFH and a PUTFH of path2's
 * directory (its handle into fh2, its name into nm2); false when it is not
 * known or the name is refused.
 */
static bool second_dir(nfs_client *c, cbuild *b, const char *path2, unsigned char *fh2, const char **nm2)
{
	uint32_t len2 = 0;
	if (!rp__nfs4x_map_parent(c, path2, fh2, &len2, nm2) || name_refused(*nm2))
		return false;
	rp__nfs4x_add(b, OP_SAVEFH);
	rp__nfs4x_putfh(b, fh2, len2);
	return true;
}

/* renews: the COMPOUND renews the lease (RFC 7530 §9.6: an op with a clientid or a stateid not special). */
static void send_built(nfs_client *c, cbuild *b, nreq *q, size_t data, bool seq, bool renews)
{
	struct nfs4x *const x = c->x4;
	COMPOUND4args ca = { .argarray = { .argarray_len = b->n, .argarray_val = b->a } };
	const unsigned pre = x->n_pre;
	if (renews)
		x->last_ns = rp__nfs4x_now_ns();
	const int rc = rp__nfs4x_send(c, &ca, x4_cb, q, data);
	rp__nfs4x_drop_pre(x);
	if (rc < 0) {
		rp__nfs_finish(q, EIO);
		return;
	}
	if (seq)
		x->seq_busy = true;
	if (!is_prepare(q->req))
		atomic_fetch_add_explicit(&c->nb->exact_ops, 1u + pre, memory_order_relaxed);
}

/* Send the op as its COMPOUND: true when it went (or was answered), false to go the semantic way. */
static bool send_op(nfs_client *c, rp_breq *req, unsigned k)
{
	const rp_op *const op = req->op;
	struct nfs4x *const x = c->x4;
	nfile *const f = req->bh ? (nfile *)(uintptr_t)req->bh : NULL;
	if ((k == K_READ || k == K_WRITE) && op->length > RP_NFS_IO_MAX)
		return fall_back(c, req, RP_NFS_FB_SIZE);
	if (k == K_WRITE && op->length > SMALL_DATA_MAX) {
		if (!x->big)
			x->big = rp__nfs4x_big_ok(nfs_get_rpc_context(c->nfs)) ? 1 : -1;
		if (x->big < 0)
			return fall_back(c, req, RP_NFS_FB_SIZE);
	}
	if ((k == K_CLOSE || k == K_READ || k == K_WRITE || k == K_COMMIT) && !(f && f->exact))
		return fall_back(c, req, RP_NFS_FB_NO_FH); /* an open the semantic path made: its own state */
	if ((k == K_RENAME && (op->oflags || !req->path2)) || ((k == K_SYMLINK || k == K_LINK) && !req->path2))
		return fall_back(c, req, RP_NFS_FB_RAW);
	/* mknod: a FIFO is a CREATE; a regular file is the semantic path's exclusive OPEN; devices are refused there. */
	if (k == K_MKNOD && (op->mode & S_IFMT) != S_IFIFO)
		return fall_back(c, req, (op->mode & S_IFMT) && (op->mode & S_IFMT) != S_IFREG ? RP_NFS_FB_DEVICE
											 : RP_NFS_FB_NO_OP4);
	if (k == K_CLOSE && (f->owner >= OWNERS_MAX || f->gen != x->own[f->owner].gen)) {
		/* Its owner was given up (BAD_SEQID): no seqid of it is right now; the open is let go unclosed. */
		(void)fall_back(c, req, RP_NFS_FB_OWNER_LOST);
		rp__nfs4x_open_ref(x, f->xfh, f->xfhlen, f->owner, -1);
		rp__nfs_release(c, req->bh);
		req->bh = 0;
		rp__nfs_complete(c, req, 0);
		return true;
	}
	const bool seq = is_seq(k);
	cbuild *const b = malloc(sizeof(*b));
	if (!b) {
		rp__nfs_complete(c, req, ENOMEM);
		return true;
	}
	b->n = 0;
	unsigned char fh[RP_NFS_FH_MAX], fh2[RP_NFS_FH_MAX];
	uint32_t len = 0;
	const char *const at = req->path ? req->path : "";
	/* A LOOKUP of the root itself ("." or ".." in it, made "" by the engine): its handle, no name. */
	const bool self = k == K_LOOKUP && !at[strspn(at, "/")];
	const bool in_dir = names_dir(k) && !self;
	bool ok;
	if (f && f->exact && !in_dir) {
		memcpy(fh, f->xfh, f->xfhlen);
		len = f->xfhlen;
		rp__nfs4x_putfh(b, fh, len);
		ok = true;
	} else {
		ok = set_current(c, b, at, in_dir, fh, &len);
	}
	if (!ok) {
		return abandon(c, req, b, in_dir ? RP_NFS_FB_NO_PARENT : RP_NFS_FB_NO_FH);
	}
	const char *const name = last_name(at);
	if (in_dir && name_refused(name)) {
		free(b);
		rp__nfs4x_drop_pre(x);
		req->escape = true;
		rp__nfs_complete(c, req, EXDEV);
		return true;
	}
	size_t data = 0;
	unsigned owner = 0;
	bool fresh = false; /* a LOCK naming its lock-owner for the first time */
	nfs_argop4 *a;
	switch (k) {
	case K_LOOKUP:
		if (!self)
			rp__nfs4x_component(&rp__nfs4x_add(b, OP_LOOKUP)->nfs_argop4_u.oplookup.objname, name);
		rp__nfs4x_add(b, OP_GETFH);
		rp__nfs4x_getattr_type(b);
		break;
	case K_MKDIR:
		a = rp__nfs4x_add(b, OP_CREATE);
		a->nfs_argop4_u.opcreate.objtype.type = NF4DIR;
		rp__nfs4x_component(&a->nfs_argop4_u.opcreate.objname, name);
		(void)rp__nfs4x_make_fattr(c, b, &a->nfs_argop4_u.opcreate.createattrs, op->mode & 07777 ? RP_SA_MODE : 0, 0,
				 op->mode, NULL);
		rp__nfs4x_add(b, OP_GETFH);
		break;
	case K_OPEN: {
		/* The owner: the first with no open of the file (as the map knows it). */
		unsigned char ofh[RP_NFS_FH_MAX];
		uint32_t olen = 0;
		const bool known = rp__nfs4x_map_get(c, at, ofh, &olen);
		const int ko = rp__nfs4x_pick_owner(x, known ? ofh : NULL, olen);
		if (ko < 0) {
			return abandon(c, req, b, RP_NFS_FB_OWNERS);
		}
		owner = (unsigned)ko;
		a = rp__nfs4x_add(b, OP_OPEN);
		ok = rp__nfs4x_open_args(c, b, op, &a->nfs_argop4_u.opopen, name, owner);
		rp__nfs4x_add(b, OP_GETFH);
		break;
	}
	case K_CLOSE:
		owner = f->owner;
		a = rp__nfs4x_add(b, OP_CLOSE);
		a->nfs_argop4_u.opclose.seqid = x->own[owner].seqid;
		rp__nfs4x_sid_of(f, &a->nfs_argop4_u.opclose.open_stateid);
		break;
	case K_READ:
		a = rp__nfs4x_add(b, OP_READ);
		rp__nfs4x_sid_of(f, &a->nfs_argop4_u.opread.stateid);
		a->nfs_argop4_u.opread.offset = op->offset;
		a->nfs_argop4_u.opread.count = (count4)op->length;
		break;
	case K_WRITE:
		a = rp__nfs4x_add(b, OP_WRITE);
		rp__nfs4x_sid_of(f, &a->nfs_argop4_u.opwrite.stateid);
		a->nfs_argop4_u.opwrite.offset = op->offset;
		a->nfs_argop4_u.opwrite.stable = op->flags & RP_OPF_STABLE ? FILE_SYNC4 : UNSTABLE4;
		a->nfs_argop4_u.opwrite.data.data_len = (u_int)op->length;
		a->nfs_argop4_u.opwrite.data.data_val = req->zero ? c->zbuf : c->wbuf;
		data = op->length;
		break;
	case K_COMMIT:
		a = rp__nfs4x_add(b, OP_COMMIT);
		a->nfs_argop4_u.opcommit.offset = op->offset;
		a->nfs_argop4_u.opcommit.count = op->length > UINT32_MAX ? 0 : (count4)op->length;
		break;
	case K_GETATTR: {
		static uint32_t stat_mask[2] = { 1u << FATTR4_TYPE | 1u << FATTR4_CHANGE | 1u << FATTR4_SIZE |
						 1u << FATTR4_FILEID,
						 1u << (FATTR4_MODE - 32) | 1u << (FATTR4_NUMLINKS - 32) |
						 1u << (FATTR4_TIME_MODIFY - 32) };
		a = rp__nfs4x_add(b, OP_GETATTR);
		a->nfs_argop4_u.opgetattr.attr_request.bitmap4_len = 2;
		a->nfs_argop4_u.opgetattr.attr_request.bitmap4_val = stat_mask;
		break;
	}
	case K_SETATTR:
		a = rp__nfs4x_add(b, OP_SETATTR);
		rp__nfs4x_sid_of(f, &a->nfs_argop4_u.opsetattr.stateid);
		ok = rp__nfs4x_make_fattr(c, b, &a->nfs_argop4_u.opsetattr.obj_attributes, op->attrs, op->length, op->mode, op);
		if (!ok) {
			return abandon(c, req, b, RP_NFS_FB_ATTRS);
		}
		break;
	case K_REMOVE:
		rp__nfs4x_component(&rp__nfs4x_add(b, OP_REMOVE)->nfs_argop4_u.opremove.target, name);
		break;
	case K_ACCESS:
		/* The bits the trace asked (raw access; all six when it kept none). */
		rp__nfs4x_add(b, OP_ACCESS)->nfs_argop4_u.opaccess.access = op->raw.access ? op->raw.access : 0x3fu;
		break;
	case K_READLINK:
		rp__nfs4x_add(b, OP_READLINK);
		break;
	case K_STATFS: {
		static uint32_t fs_mask[2] = { 1u << FATTR4_FILES_AVAIL | 1u << FATTR4_FILES_FREE | 1u << FATTR4_FILES_TOTAL,
					       1u << (FATTR4_SPACE_AVAIL - 32) | 1u << (FATTR4_SPACE_FREE - 32) |
					       1u << (FATTR4_SPACE_TOTAL - 32) };
		a = rp__nfs4x_add(b, OP_GETATTR);
		a->nfs_argop4_u.opgetattr.attr_request.bitmap4_len = 2;
		a->nfs_argop4_u.opgetattr.attr_request.bitmap4_val = fs_mask;
		break;
	}
	case K_SYMLINK:
	case K_MKNOD:
		/* A symlink's path2 is its text: stored by the server, never resolved by us. */
		a = rp__nfs4x_add(b, OP_CREATE);
		if (k == K_SYMLINK) {
			a->nfs_argop4_u.opcreate.objtype.type = NF4LNK;
			rp__nfs4x_component(&a->nfs_argop4_u.opcreate.objtype.createtype4_u.linkdata, req->path2);
		} else {
			a->nfs_argop4_u.opcreate.objtype.type = NF4FIFO;
		}
		rp__nfs4x_component(&a->nfs_argop4_u.opcreate.objname, name);
		(void)rp__nfs4x_make_fattr(c, b, &a->nfs_argop4_u.opcreate.createattrs,
					   k == K_MKNOD || op->mode & 07777 ? RP_SA_MODE : 0, 0,
					   k == K_MKNOD && !(op->mode & 07777) ? 0666u : op->mode, NULL);
		rp__nfs4x_add(b, OP_GETFH);
		break;
	case K_LINK: {
		/* The file is the current handle; the new name's directory after a SAVEFH of it. */
		const char *nm2;
		if (!second_dir(c, b, req->path2, fh2, &nm2))
			return abandon(c, req, b, RP_NFS_FB_NO_PARENT);
		rp__nfs4x_component(&rp__nfs4x_add(b, OP_LINK)->nfs_argop4_u.oplink.newname, nm2);
		break;
	}
	case K_READDIR: {
		/* The recorded cookie is the original server's: a listing that goes on, goes on from our own. */
		static uint32_t list_mask[2] = { 1u << FATTR4_TYPE | 1u << FATTR4_FILEID, 0 };
		a = rp__nfs4x_add(b, OP_READDIR);
		READDIR4args *const r = &a->nfs_argop4_u.opreaddir;
		if (op->offset) {
			bool known = false;
			pthread_mutex_lock(&c->group->lock);
			const rp_nfs_fhnode *const d = rp__nfs_fhmap_node(&c->group->fhmap, at);
			if (d && d->list_known) {
				known = true;
				r->cookie = d->list_cookie;
				memcpy(r->cookieverf, d->list_verf, sizeof(r->cookieverf));
			}
			pthread_mutex_unlock(&c->group->lock);
			if (!known) {
				return abandon(c, req, b, RP_NFS_FB_COOKIE);
			}
		}
		const uint32_t count = op->length > 1048576u ? 1048576u : op->length < 1024u ? 8192u : (uint32_t)op->length;
		r->dircount = count;
		r->maxcount = count;
		r->attr_request.bitmap4_len = 1;
		r->attr_request.bitmap4_val = list_mask;
		break;
	}
	case K_RENAME: {
		const char *nm2;
		if (!second_dir(c, b, req->path2, fh2, &nm2))
			return abandon(c, req, b, RP_NFS_FB_NO_PARENT);
		a = rp__nfs4x_add(b, OP_RENAME);
		rp__nfs4x_component(&a->nfs_argop4_u.oprename.oldname, name);
		rp__nfs4x_component(&a->nfs_argop4_u.oprename.newname, nm2);
		break;
	}
	case K_LOCK:
	case K_LOCKT:
	case K_LOCKU: {
		unsigned why = RP_NFS_FB_NO_LOCK;
		fresh = k == K_LOCK && f && rp__nfs4x_lock_new(f);
		if (!rp__nfs4x_lock_args(c, b, op, f, k, &why))
			return abandon(c, req, b, why);
		owner = f ? f->owner : 0;
		break;
	}
	default:
		ok = false;
		break;
	}
	if (!ok) {
		return abandon(c, req, b, RP_NFS_FB_RAW);
	}
	nreq *const q = rp__nfs_req_new(c, req);
	if (!q) {
		free(b);
		rp__nfs4x_drop_pre(x);
		return true;
	}
	q->step = S_SIMPLE;
	q->reply = NULL;
	q->xproc = k;
	q->xstage = fresh ? 1 : 0;
	q->xowner = (uint8_t)owner;
	if (rp__nfs_changes_names(op->op))
		rp__nfs_names_changed(c, q->path, q->path2);
	/* An op on the stateid of an OPEN of ours (or LOCKT's clientid) renews the lease; the anonymous one does not. */
	const bool renews = seq || k == K_LOCKT ||
			    ((k == K_READ || k == K_WRITE || k == K_SETATTR) && f && f->exact && f->sid_ok);
	send_built(c, b, q, data, seq, renews);
	free(b);
	return true;
}

/* Seqid ops wait their turn: one OPEN, CLOSE, LOCK or LOCKU on the wire at a time. */
static void next_waiting(nfs_client *c)
{
	struct nfs4x *const x = c->x4;
	if (x && x->polls)
		polls_due(c);
	while (x && !x->seq_busy && x->wq) {
		wait_node *const w = x->wq;
		x->wq = w->next;
		if (!x->wq)
			x->wq_tail = &x->wq;
		rp_breq *const req = w->req;
		free(w);
		if (!send_op(c, req, kind_of_op(req->op)))
			rp__nfs_start(c, req);
	}
}

bool rp__nfs4_exact_start(nfs_client *c, rp_breq *req)
{
	const rp_op *const op = req->op;
	struct nfs4x *const x = c->x4;
	if (!x || c->lost || req->no_handle)
		return false;
	if (is_prepare(req)) {
		/* Prepare's tree is made the semantic way; its handles are learned by the trace's own LOOKUPs. */
		return false;
	}
	if (op->proto != RP_PROTO_NFS4) {
		rp__nfs4x_drop_pre(x);
		return fall_back(c, req, RP_NFS_FB_NOT_NFS4);
	}
	if (op->flags & RP_OPF_SESSION) {
		rp__nfs4x_drop_pre(x);
		return fall_back(c, req, RP_NFS_FB_SESSION);
	}
	const unsigned k = kind_of_op(op);
	if (!k) {
		rp__nfs4x_drop_pre(x);
		return fall_back(c, req, RP_NFS_FB_NO_OP4);
	}
	/* A LOOKUP its COMPOUND goes on from: kept to go with the op it leads to, answered from the map. */
	if (k == K_LOOKUP && (op->flags & RP_OPF_CONT) && req->path && x->n_pre < PRE_MAX) {
		pthread_mutex_lock(&c->group->lock);
		const int kind = rp__nfs_fhmap_kind(&c->group->fhmap, req->path);
		pthread_mutex_unlock(&c->group->lock);
		char *const p = kind >= 0 && kind != RP_NFS_FK_ABSENT ? strdup(req->path) : NULL;
		if (p) {
			x->pre[x->n_pre++] = p;
			rp__nfs_complete(c, req, 0);
			return true;
		}
	}
	if (is_seq(k) && x->seq_busy) {
		wait_node *const w = malloc(sizeof(*w));
		if (!w) {
			rp__nfs_complete(c, req, ENOMEM);
			return true;
		}
		w->next = NULL;
		w->req = req;
		*x->wq_tail = w;
		x->wq_tail = &w->next;
		return true;
	}
	return send_op(c, req, k);
}
