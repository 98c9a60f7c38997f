/* NFSv4 COMPOUND replies: per-op results complete the call's slots and feed the handle map and stateid tables (RFC 7530 §16, RFC 8881 §18). */
#include <string.h>

#include "capture/rpc/nfs4_int.h"
#include "capture/rpc/nfs4_reply.h"
#include "formats/semantics.h"
#include "formats/status.h"

typedef struct replier {
	rp_capctx *cx;
	rp_fhmap *m;
	nfs4_state *st;
	nfs4_compound *c;
	uint64_t t_end;
	uint64_t cur_handle; /* the handle of the stateid the last OPEN/LOCK made (the 4.1 current stateid) */
	bool mount;          /* the compound is a client's mount (mount_shape) */
} replier;

/*
 * A client's mount of an export: [SEQUENCE] PUTROOTFH, one LOOKUP or more
 * down the pseudo path, GETFH (GETATTRs anywhere after PUTROOTFH), as Linux
 * and libnfs mount.  Its GETFH gives the client's root: paths are made
 * relative to it, as NFSv3's are to the MOUNT reply's handle, so a capture of
 * a client that mounted /export replays in the target, not in TARGET/export.
 * Its LOOKUPs are the mount's plumbing, not the workload's: no ops.
 */
static bool mount_shape(const nfs4_compound *c)
{
	uint32_t i = 0;
	if (i < c->n && c->ops[i].opnum == OP4_SEQUENCE)
		i++;
	if (i == c->n || c->ops[i].opnum != OP4_PUTROOTFH)
		return false;
	bool lookup = false, fh = false;
	for (i++; i < c->n; i++) {
		switch (c->ops[i].opnum) {
		case OP4_LOOKUP:
			if (fh)
				return false; /* a LOOKUP below the handle it got: a walk, not a mount */
			lookup = true;
			break;
		case OP4_GETFH:
			fh = lookup;
			break;
		case OP4_GETATTR:
			break;
		default:
			return false;
		}
	}
	return fh;
}

/* GETFH: the real handle of the object its compound named by a path. */
static void learn_fh(replier *r, nfs4_pop *p, const uint8_t *fh, size_t len)
{
	nfs4_compound *const c = r->c;
	if (p->cur == NO_OBJ)
		return;
	nfs4_obj *const o = &c->objs[p->cur];
	switch (o->kind) {
	case OBJ_CHILD:
		if (r->mount) {
			rp__fhmap_set(r->m, fh, len, "/", 1); /* the client's root */
		} else if (rp__nfs4_obj_key(r->m, c, o->parent)) {
			const nfs4_obj *const d = &c->objs[o->parent];
			rp__fhmap_child(r->m, nfs4_key_of(c, d), d->key_len, nfs4_name_of(c, o->name_off), o->name_len, fh, len);
		}
		break;
	case OBJ_ROOT:
		rp__fhmap_set(r->m, fh, len, "/", 1);
		break;
	default:
		return;
	}
	/* Later ops of this reply (a GETFH of a child of this object) name it by its real handle. */
	const uint32_t off = rp__nfs4_stash(c, fh, len);
	if (!c->oom) {
		o->key_off = off;
		o->key_len = (uint32_t)len;
		o->keyed = true;
	}
}

static void learn_dirents(replier *r, nfs4_pop *p, rp_cur dir)
{
	nfs4_compound *const c = r->c;
	if (!rp__nfs4_obj_key(r->m, c, p->cur))
		return;
	const nfs4_obj *const d = &c->objs[p->cur];
	const uint8_t *name;
	size_t len;
	nfs4_attrs attrs;
	while (rp__nfs4_dirent(&dir, &name, &len, &attrs))
		if (attrs.has_fh)
			rp__fhmap_child(r->m, nfs4_key_of(c, d), d->key_len, (const char *)name, len, attrs.fh, attrs.fh_len);
}

static void open_result(replier *r, nfs4_pop *p, const nfs4_res *res, rp_op *op)
{
	if (res->status != 0 || !res->has_sid)
		return;
	const uint64_t known = rp__nfs4_sid_get(r->st, &res->sid, NULL);
	if (known) {
		/* Same open-owner, same file: the server merged this open into the
		 * one it had (an upgrade); the client will CLOSE once. */
		r->cur_handle = known;
		if (op) {
			rp__cap_cancel(r->cx, p->slot);
			p->slot = RP_SLOT_NONE;
			rp__cap_count(r->cx, RP_OUT_IGNORED, NULL);
		}
		return;
	}
	const uint64_t h = rp__fhmap_new_handle(r->m);
	rp__nfs4_sid_put(r->st, &res->sid, h, p->path);
	if (res->has_sid2) /* a delegation: I/O under it belongs to this open */
		rp__nfs4_sid_put(r->st, &res->sid2, h, p->path);
	rp__nfs4_open_put(r->st, p->path, h);
	r->cur_handle = h;
	if (op)
		op->handle = h;
}

/* Apply one op's result: complete its slot and learn what it teaches. */
static void apply(replier *r, nfs4_pop *p, const nfs4_res *res, bool body)
{
	nfs4_compound *const c = r->c;
	rp_op *op = rp__cap_slot(r->cx, p->slot);
	if (op && r->mount && p->opnum == OP4_LOOKUP) {
		rp__cap_cancel(r->cx, p->slot);
		p->slot = RP_SLOT_NONE;
		rp__cap_count(r->cx, RP_OUT_IGNORED, NULL);
		op = NULL;
	}
	if (op) {
		rp__cap_set_status(r->cx, op, RP_SK_NFS4, res->status);
		op->t_end = r->t_end;
		op->flags &= (uint16_t)~RP_OPF_NO_REPLY;
		if (p->sid_kind == SID_CURRENT && !op->handle)
			op->handle = r->cur_handle;
	}
	const bool ok = res->status == 0 && body;
	switch (p->opnum) {
	case OP4_GETFH:
		if (ok)
			learn_fh(r, p, res->fh, res->fh_len);
		break;
	case OP4_OPEN:
		if (body)
			open_result(r, p, res, op);
		if (!rp__cap_slot(r->cx, p->slot))
			op = NULL;
		break;
	case OP4_CLOSE:
		if (ok && op) {
			rp__nfs4_sid_forget(r->st, &p->sid);
			rp__nfs4_open_forget(r->st, p->path, op->handle);
		}
		break;
	case OP4_LOCK:
		if (ok && res->has_sid && op && op->handle) {
			rp__nfs4_sid_put(r->st, &res->sid, op->handle, p->path);
			r->cur_handle = op->handle;
		}
		break;
	case OP4_DELEGRETURN:
		if (ok)
			rp__nfs4_sid_forget(r->st, &p->sid);
		break;
	case OP4_GETATTR:
		if (ok && res->attrs.has_type && p->cur != NO_OBJ) {
			const bool dir = res->attrs.type == 2; /* NF4DIR */
			if (dir || c->objs[p->cur].path)
				rp__nfs4_set_dir(r->st, rp__nfs4_obj_path(r->cx, r->m, c, p->cur, NULL), dir);
			if (op && dir)
				op->flags |= RP_OPF_DIRECTORY;
		}
		break;
	case OP4_READDIR:
		if (ok)
			learn_dirents(r, p, res->dir);
		break;
	case OP4_LAYOUTGET:
		for (uint32_t k = 0; ok && k < res->n_ds; k++)
			rp__nfs4_alias_put(r->st, res->ds_fh[k], res->ds_len[k], rp__nfs4_obj_path(r->cx, r->m, c, p->cur, NULL));
		break;
	case OP4_CREATE:
		if (ok && p->how == 2)
			rp__nfs4_set_dir(r->st, p->path, true);
		break;
	case OP4_REMOVE:
		if (ok && rp__nfs4_obj_key(r->m, c, p->cur)) {
			const nfs4_obj *const d = &c->objs[p->cur];
			rp__fhmap_unlink_name(r->m, nfs4_key_of(c, d), d->key_len, nfs4_name_of(c, p->name_off), p->name_len);
			rp__nfs4_set_dir(r->st, p->path, false);
		}
		break;
	case OP4_LINK:
		if (ok && rp__nfs4_obj_key(r->m, c, p->saved) && rp__nfs4_obj_key(r->m, c, p->cur)) {
			const nfs4_obj *const src = &c->objs[p->saved], *const d = &c->objs[p->cur];
			rp__fhmap_link(r->m, nfs4_key_of(c, src), src->key_len, nfs4_key_of(c, d), d->key_len,
				       nfs4_name_of(c, p->name_off), p->name_len);
		}
		break;
	case OP4_RENAME:
		if (ok && rp__nfs4_obj_key(r->m, c, p->saved) && rp__nfs4_obj_key(r->m, c, p->cur)) {
			const nfs4_obj *const from = &c->objs[p->saved], *const to = &c->objs[p->cur];
			rp__fhmap_rename(r->m, nfs4_key_of(c, from), from->key_len, nfs4_name_of(c, p->name_off), p->name_len,
					 nfs4_key_of(c, to), to->key_len, nfs4_name_of(c, p->name2_off), p->name2_len);
		}
		break;
	default:
		break;
	}
	if (op && body)
		op->result = res->result;
	if (op && body && p->opnum == OP4_ACCESS) {
		/* Granted ACCESS4 bits as wants; the bits themselves stay as provenance. */
		op->raw.options = (uint32_t)res->result;
		op->result = rp_sem_nfs_access_want((uint32_t)res->result) & ~(uint32_t)RP_WANT_KNOWN;
	}
	rp__cap_done(r->cx, p->slot);
}

static bool is_fh_op(uint32_t opnum)
{
	return opnum == OP4_PUTFH || opnum == OP4_PUTROOTFH || opnum == OP4_PUTPUBFH || opnum == OP4_RESTOREFH ||
	       opnum == OP4_SAVEFH;
}

/*
 * The ops after the last result: the server stopped at a failing op (they
 * never ran: cancelled, except that the op a failed PUTFH/RESTOREFH was
 * setting up fails with its status), or the reply is cut short (their
 * results are unknown).
 */
static void finish_rest(replier *r, uint32_t from, const nfs4_pop *failed, uint32_t fail_status, bool cut)
{
	nfs4_compound *const c = r->c;
	bool blame = failed && is_fh_op(failed->opnum);
	for (uint32_t i = from; i < c->n; i++) {
		nfs4_pop *const p = &c->ops[i];
		rp_op *const op = rp__cap_slot(r->cx, p->slot);
		if (!op)
			continue;
		if (cut) {
			op->t_end = r->t_end;
			rp__cap_done(r->cx, p->slot);
		} else if (blame) {
			blame = false;
			const nfs4_res res = { .opnum = p->opnum, .status = fail_status };
			apply(r, p, &res, false);
		} else {
			rp__cap_cancel(r->cx, p->slot);
		}
	}
}

void rp__nfs4_reply(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, const rp_rpc_reply *rep, rp_cur *res,
		       void *pend)
{
	(void)conn;
	(void)call;
	nfs4_pending *const pd = pend;
	nfs4_compound *const c = pd->c;
	pd->c = NULL;
	if (!c)
		return;
	if (!res) { /* rejected or not executed at the RPC level: no op ran */
		for (uint32_t i = 0; i < c->n; i++)
			rp__cap_cancel(cx, c->ops[i].slot);
		rp__nfs4_compound_free(c);
		return;
	}
	replier r = { .cx = cx, .m = rp__fhmap(cx), .st = rp__nfs4_state(cx), .c = c,
		      .t_end = rp__cap_time(cx, rep->ts_ns), .mount = mount_shape(c) };
	(void)rp_cur_be32(res); /* the COMPOUND status is the last op's */
	size_t tag_len;
	(void)rp_cur_xdr_var(res, NFS4_TAG_MAX, &tag_len);
	const uint32_t nres = rp_cur_be32(res);
	uint32_t i = 0;
	bool cut = res->err;
	const nfs4_pop *failed = NULL;
	uint32_t fail_status = 0;
	for (; !cut && i < c->n && i < nres; i++) {
		nfs4_pop *const p = &c->ops[i];
		nfs4_res rr;
		memset(&rr, 0, sizeof(rr));
		rr.opnum = rp_cur_be32(res);
		rr.status = rp_cur_be32(res);
		if (res->err || rr.opnum != p->opnum) { /* cut, or results out of step with the call */
			cut = true;
			break;
		}
		const bool body = rp__nfs4_res(res, &rr) == STEP_OK;
		apply(&r, p, &rr, body);
		if (!body || rr.data_cut) {
			cut = true;
			i++;
			break;
		}
		if (rr.status != 0) {
			failed = p;
			fail_status = rr.status;
			i++;
			break;
		}
	}
	if (!failed && i < c->n)
		cut = true; /* fewer results than ops without a failure: we cannot know the rest */
	if (cut)
		rp__cap_count(cx, rep->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
	finish_rest(&r, i, failed, fail_status, cut);
	rp__nfs4_compound_free(c);
}

void rp__nfs4_drop(rp_capctx *cx, void *pend)
{
	(void)cx;
	nfs4_pending *const pd = pend;
	rp__nfs4_compound_free(pd->c);
	pd->c = NULL;
}
