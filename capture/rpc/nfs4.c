/* NFSv4.0/4.1/4.2 COMPOUND calls -> op records, the handle state machine, the RPC program (RFC 7530, RFC 8881, RFC 7862, RFC 8276). */
#include <stdlib.h>
#include <string.h>

#include "capture/rpc/nfs4_int.h"
#include "capture/rpc/nfs4_reply.h"
#include "formats/semantics.h"

/*
 * A COMPOUND is decoded whole at call time: every op's arguments are read
 * (XDR is not self-describing, so an op we cannot step over ends the walk),
 * the current/saved filehandle state machine runs over the ops to give each
 * file op its path, and each file op reserves its slot in call order.  What
 * the reply needs (objects, names, stateids) is copied into an
 * `nfs4_compound` (nfs4_int.h) that the RPC layer's pending area points to.
 * The reply's per-op results (nfs4_reply.c) complete the slots, feed the
 * shared handle map (GETFH, REMOVE, RENAME) and map OPEN/LOCK stateids to
 * trace handles.  docs/capture-mapping.md ("## NFSv4") states every rule.
 */

/* Virtual handles stand for objects whose real handle the call does not carry;
 * they start with 0xff and never collide with server handles in practice. */
static const uint8_t vroot[] = "\xffreprise-nfs4-root";

static int32_t new_obj(nfs4_compound *c, uint8_t kind)
{
	if (c->n_objs == c->cap_objs) {
		const uint32_t cap = c->cap_objs ? c->cap_objs * 2 : 8;
		nfs4_obj *const o = realloc(c->objs, cap * sizeof(*o));
		if (!o) {
			c->oom = true;
			return NO_OBJ;
		}
		c->objs = o;
		c->cap_objs = cap;
	}
	nfs4_obj *const o = &c->objs[c->n_objs];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->parent = NO_OBJ;
	return (int32_t)c->n_objs++;
}

/* The path of name inside object dir. */
static uint32_t child_path(rp_capctx *cx, rp_fhmap *m, nfs4_compound *c, int32_t dir, uint32_t name_off,
			   uint32_t name_len, bool *synth)
{
	if (!rp__nfs4_obj_key(m, c, dir))
		return 0;
	const nfs4_obj *const d = &c->objs[dir];
	bool s = false;
	const uint32_t id = rp__fhmap_child_path(cx, m, nfs4_key_of(c, d), d->key_len, nfs4_name_of(c, name_off), name_len, &s);
	*synth = *synth || s;
	return id;
}

/* ---- call ---- */

static bool is_statfs(const uint32_t *mask)
{
	static const unsigned fs_attrs[] = { 21, 22, 23, 42, 43, 44 }; /* files_*, space_avail/free/total */
	for (size_t i = 0; i < sizeof(fs_attrs) / sizeof(fs_attrs[0]); i++)
		if (rp__nfs4_bit(mask, fs_attrs[i]))
			return true;
	return false;
}

/* A SETATTR's fattr4 as the set-attributes request semantics.c translates (the NFSv3 mask in `sent`). */
static rp_nfs_sattr setattr_of(const nfs4_attrs *at)
{
	rp_nfs_sattr sa = { .mode = at->mode, .uid = at->uid, .gid = at->gid, .size = at->size };
	sa.sent = (at->has_mode ? RP_NFS_SET_MODE : 0) | (at->has_uid ? RP_NFS_SET_UID : 0) |
		  (at->has_gid ? RP_NFS_SET_GID : 0) | (at->has_size ? RP_NFS_SET_SIZE : 0) |
		  (at->has_atime ? RP_NFS_SET_ATIME : 0) | (at->has_mtime ? RP_NFS_SET_MTIME : 0);
	/* An owner@domain name is not an id replay can set; a client time before 1970 is not expressible. */
	sa.unusable = (at->has_uid && !at->uid_numeric ? RP_NFS_SET_UID : 0) |
		      (at->has_gid && !at->gid_numeric ? RP_NFS_SET_GID : 0) |
		      (at->atime_how == RP_NFS_TIME_CLIENT && !at->atime_ok ? RP_NFS_SET_ATIME : 0) |
		      (at->mtime_how == RP_NFS_TIME_CLIENT && !at->mtime_ok ? RP_NFS_SET_MTIME : 0);
	sa.atime_how = at->atime_how;
	sa.atime = at->atime;
	sa.mtime_how = at->mtime_how;
	sa.mtime = at->mtime;
	return sa;
}

typedef struct walker {
	rp_capctx *cx;
	rp_fhmap *m;
	nfs4_state *st;
	nfs4_compound *c;
	const rp_rpc_call *call;
	int32_t cur, saved;
} walker;

/* The trace handle that a stateid stands for, at call time (0 for the current stateid). */
static uint64_t sid_handle(walker *w, const nfs4_stateid *sid, uint32_t path)
{
	switch (rp__nfs4_sid_kind(sid)) {
	case SID_NORMAL: {
		uint64_t h = rp__nfs4_sid_get(w->st, sid, NULL);
		if (!h) { /* state opened before the capture began */
			h = rp__fhmap_new_handle(w->m);
			rp__nfs4_sid_put(w->st, sid, h, path);
		}
		return h;
	}
	case SID_ANON:
	case SID_BYPASS: {
		const uint64_t h = rp__nfs4_open_get(w->st, path);
		if (h || !rp__nfs4_obj_key(w->m, w->c, w->cur))
			return h;
		const nfs4_obj *const o = &w->c->objs[w->cur];
		return rp__fhmap_handle(w->m, nfs4_key_of(w->c, o), o->key_len);
	}
	default:
		return 0;
	}
}

static void file_op(walker *w, nfs4_pop *p, const nfs4_arg *a, rp_op *op)
{
	nfs4_compound *const c = w->c;
	bool synth = false;
	switch (a->opnum) {
	case OP4_ACCESS:
		op->op = RP_OP_ACCESS;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		op->want = rp_sem_nfs_access_want(a->count);
		op->raw.access = a->count;
		break;
	case OP4_CLOSE:
		op->op = RP_OP_CLOSE;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		op->handle = sid_handle(w, &a->sid, op->path);
		break;
	case OP4_COMMIT:
		op->op = RP_OP_FLUSH;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		op->offset = a->offset;
		op->length = a->count;
		op->handle = sid_handle(w, &(nfs4_stateid){ 0 }, op->path);
		break;
	case OP4_CREATE:
		op->op = a->how == 2 ? RP_OP_MKDIR : a->how == 5 ? RP_OP_SYMLINK : RP_OP_MKNOD;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, p->made, &synth);
		if (a->how == 5 && a->name2_len)
			op->path2 = rp__cap_path(w->cx, (const char *)a->name2, a->name2_len);
		op->mode = a->attrs.has_mode ? a->attrs.mode : 0;
		break;
	case OP4_GETATTR:
		op->op = is_statfs(a->attrs.mask) ? RP_OP_STATFS : RP_OP_STAT;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		break;
	case OP4_LINK:
		op->op = RP_OP_LINK;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->saved, &synth);
		op->path2 = child_path(w->cx, w->m, c, w->cur, p->name_off, p->name_len, &synth);
		break;
	case OP4_LOCK:
	case OP4_LOCKT:
	case OP4_LOCKU:
		op->op = a->opnum == OP4_LOCKU ? RP_OP_UNLOCK : RP_OP_LOCK;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		/*
		 * LOCKT names a lock owner, not a stateid, and that owner is most often
		 * another open's (a test of one's own locks always passes): a test by
		 * path, against every lock on the file.
		 */
		op->handle = a->opnum == OP4_LOCKT ? 0 : sid_handle(w, &a->sid, op->path);
		op->offset = a->offset;
		op->length = a->length;
		if (a->how == 2 || a->how == 4) /* nfs_lock_type4 WRITE_LT, WRITEW_LT */
			op->flags |= RP_OPF_EXCLUSIVE;
		/* READW_LT, WRITEW_LT: a LOCK that may block; a test never waits, whatever type it names */
		if (a->opnum == OP4_LOCK && (a->how == 3 || a->how == 4))
			op->flags |= RP_OPF_WAIT;
		if (a->opnum == OP4_LOCKT)
			op->flags |= RP_OPF_TEST;
		break;
	case OP4_LOOKUP:
	case OP4_LOOKUPP:
		op->op = RP_OP_LOOKUP;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, p->made, &synth);
		break;
	case OP4_OPEN:
		op->op = RP_OP_OPEN;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, p->made != NO_OBJ ? p->made : w->cur, &synth);
		rp_sem_nfs4_open(op, a->share_access, a->create, a->createmode,
				 a->create && a->attrs.has_size && a->attrs.size == 0, a->how /* open_claim_type4 */);
		op->mode = a->attrs.has_mode ? a->attrs.mode : 0;
		break;
	case OP4_READ:
	case OP4_READ_PLUS:
		op->op = RP_OP_READ;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		op->handle = sid_handle(w, &a->sid, op->path);
		op->offset = a->offset;
		op->length = a->count;
		break;
	case OP4_READDIR:
		op->op = RP_OP_READDIR;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		op->offset = a->offset;
		op->length = a->count;
		break;
	case OP4_READLINK:
		op->op = RP_OP_READLINK;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		break;
	case OP4_REMOVE:
		op->path = child_path(w->cx, w->m, c, w->cur, p->name_off, p->name_len, &synth);
		op->op = rp__nfs4_is_dir(w->st, op->path) ? RP_OP_RMDIR : RP_OP_UNLINK;
		break;
	case OP4_RENAME:
		op->op = RP_OP_RENAME;
		op->path = child_path(w->cx, w->m, c, w->saved, p->name_off, p->name_len, &synth);
		op->path2 = child_path(w->cx, w->m, c, w->cur, p->name2_off, p->name2_len, &synth);
		break;
	case OP4_SETATTR: {
		op->op = RP_OP_SETATTR;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		if (rp__nfs4_sid_kind(&a->sid) == SID_NORMAL || rp__nfs4_sid_kind(&a->sid) == SID_CURRENT)
			op->handle = sid_handle(w, &a->sid, op->path); /* ftruncate() on an open file */
		const rp_nfs_sattr sa = setattr_of(&a->attrs);
		rp_sem_nfs_setattr(op, RP_PROTO_NFS4, &sa);
		break;
	}
	case OP4_WRITE:
		op->op = RP_OP_WRITE;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		op->handle = sid_handle(w, &a->sid, op->path);
		op->offset = a->offset;
		op->length = a->count;
		if (a->how != 0) /* DATA_SYNC4, FILE_SYNC4 */
			op->flags |= RP_OPF_STABLE;
		break;
	case OP4_GETXATTR:
	case OP4_SETXATTR:
	case OP4_REMOVEXATTR:
		op->op = a->opnum == OP4_GETXATTR   ? RP_OP_GETXATTR
			 : a->opnum == OP4_SETXATTR ? RP_OP_SETXATTR
						    : RP_OP_REMOVEXATTR;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		if (a->name_len) /* the attribute's name */
			op->path2 = rp__cap_path(w->cx, (const char *)a->name, a->name_len);
		if (a->opnum == OP4_SETXATTR)
			op->length = a->count;
		break;
	case OP4_LISTXATTRS:
		op->op = RP_OP_LISTXATTR;
		op->path = rp__nfs4_obj_path(w->cx, w->m, c, w->cur, &synth);
		op->length = a->count;
		break;
	default:
		return;
	}
	if (synth)
		op->flags |= RP_OPF_SYNTH_PATH;
	p->path = op->path;
}

/* Run the current-filehandle state machine over one op (RFC 8881 §16.2.3). */
static void step_fh(walker *w, nfs4_pop *p, const nfs4_arg *a)
{
	nfs4_compound *const c = w->c;
	switch (a->opnum) {
	case OP4_PUTFH: {
		const int32_t i = new_obj(c, OBJ_FH);
		if (i != NO_OBJ) {
			c->objs[i].key_off = rp__nfs4_stash(c, a->fh, a->fh_len);
			c->objs[i].key_len = (uint32_t)a->fh_len;
			c->objs[i].keyed = !c->oom;
			c->objs[i].path = rp__nfs4_alias_get(w->st, a->fh, a->fh_len); /* a pNFS data-server handle */
		}
		w->cur = i;
		break;
	}
	case OP4_PUTROOTFH:
	case OP4_PUTPUBFH: { /* the public handle is the root on the servers we meet */
		const int32_t i = new_obj(c, OBJ_ROOT);
		if (i != NO_OBJ) {
			c->objs[i].key_off = rp__nfs4_stash(c, vroot, sizeof(vroot) - 1);
			c->objs[i].key_len = sizeof(vroot) - 1;
			c->objs[i].keyed = !c->oom;
			rp__fhmap_set(w->m, vroot, sizeof(vroot) - 1, "/", 1);
		}
		w->cur = i;
		break;
	}
	case OP4_SAVEFH: w->saved = w->cur; break;
	case OP4_RESTOREFH: w->cur = w->saved; break;
	case OP4_LOOKUPP:
		if (w->cur != NO_OBJ && c->objs[w->cur].kind == OBJ_CHILD) {
			w->cur = c->objs[w->cur].parent;
		} else {
			const int32_t i = new_obj(c, OBJ_PATH);
			if (i != NO_OBJ) {
				bool s = false;
				static const char dotdot[] = "..";
				const uint32_t off = rp__nfs4_stash(c, dotdot, 2);
				c->objs[i].path = child_path(w->cx, w->m, c, w->cur, off, 2, &s);
				c->objs[i].synth = s;
			}
			w->cur = i;
		}
		p->made = w->cur;
		break;
	case OP4_LOOKUP:
	case OP4_CREATE:
	case OP4_OPEN: {
		if (a->opnum == OP4_OPEN && !a->name) /* claims by handle keep the current object */
			break;
		const int32_t i = new_obj(c, OBJ_CHILD);
		if (i != NO_OBJ) {
			c->objs[i].parent = w->cur;
			c->objs[i].name_off = p->name_off;
			c->objs[i].name_len = p->name_len;
		}
		w->cur = i;
		p->made = i;
		break;
	}
	case OP4_SECINFO:
	case OP4_SECINFO_NO_NAME:
	case OP4_OPENATTR:
		w->cur = NO_OBJ; /* SECINFO consumes the current handle; named-attribute directories are not followed */
		break;
	default:
		break;
	}
}

/*
 * Count the ops of a COMPOUND that cannot be decoded, `left` of them from the
 * one that stopped the walk: a cut message is one truncated message; an
 * unknown op number is unsupported by name and so is every op after it; a
 * value that breaks the XDR rules makes the message invalid and the ops
 * after it unsupported.
 */
static void count_lost(rp_capctx *cx, nfs4_step why, bool truncated, bool stop_op_kept, uint64_t left)
{
	const char *rest = "NFSv4 op after an undecodable op";
	if (why == STEP_UNKNOWN) {
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, "NFSv4 unknown op");
		rest = "NFSv4 op after an unknown op";
		left--;
	} else if (truncated) {
		rp__cap_count(cx, RP_OUT_TRUNCATED, NULL);
		return;
	} else {
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		if (!stop_op_kept && left)
			left--;
	}
	for (uint64_t i = 0; i < left; i++)
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, rest);
}

/* The compound's main op: the first file op other than GETATTR and ACCESS, else the first ACCESS. */
static int64_t main_op(const nfs4_arg *args, uint32_t n)
{
	int64_t access = -1;
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t op = args[i].opnum;
		if (rp__nfs4_op_role(op) != ROLE_FILE || op == OP4_GETATTR)
			continue;
		if (op != OP4_ACCESS)
			return i;
		if (access < 0)
			access = i;
	}
	return access;
}

static void nfs4_call(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, rp_cur *args, void *pend)
{
	(void)conn;
	nfs4_pending *const pd = pend;
	if (call->proc == 0) {
		rp__cap_count(cx, RP_OUT_IGNORED, NULL); /* NULL: a ping */
		return;
	}
	if (call->proc != 1) {
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return;
	}
	size_t tag_len;
	(void)rp_cur_xdr_var(args, NFS4_TAG_MAX, &tag_len);
	const uint32_t minor = rp_cur_be32(args);
	const uint32_t numops = rp_cur_be32(args);
	if (args->err) {
		rp__cap_count(cx, call->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return;
	}
	if (minor > 2) {
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, "NFSv4 minor version > 2");
		return;
	}
	if (numops > NFS4_OPS_MAX) {
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return;
	}
	/* Every op takes at least its 4-byte number: a count beyond that is a lie, not an allocation. */
	const size_t room = rp_cur_left(args) / 4;
	const uint32_t cap = numops < room ? numops : (uint32_t)room;
	nfs4_arg *const a = calloc(cap ? cap : 1, sizeof(*a));
	nfs4_compound *const c = calloc(1, sizeof(*c));
	nfs4_pop *const ops = calloc(cap ? cap : 1, sizeof(*ops));
	uint8_t *const arena = malloc(512);
	if (!a || !c || !ops || !arena) {
		free(a);
		free(ops);
		free(arena);
		rp__nfs4_compound_free(c);
		return;
	}
	c->ops = ops;
	c->arena = arena;
	c->arena_cap = 512;

	/* Decode the arguments of every op we can step over. */
	uint32_t n = 0;
	nfs4_step stop = STEP_OK;
	while (n < numops) {
		const uint32_t opnum = n < cap ? rp_cur_be32(args) : 0;
		if (n == cap || args->err) {
			stop = STEP_ERR;
			break;
		}
		stop = rp__nfs4_arg(args, opnum, &a[n]);
		if (stop != STEP_OK)
			break;
		if (a[n++].data_cut) {
			stop = STEP_ERR;
			break;
		}
	}
	if (stop != STEP_OK)
		count_lost(cx, stop, call->truncated, n > 0 && a[n - 1].data_cut, numops - n);

	walker w = { .cx = cx, .m = rp__fhmap(cx), .st = rp__nfs4_state(cx), .c = c, .call = call,
		     .cur = NO_OBJ, .saved = NO_OBJ };
	const int64_t main = main_op(a, n);
	/* The last op that becomes an op record: those before it are marked as going on in the same COMPOUND. */
	int64_t last = -1;
	for (uint32_t i = 0; i < n; i++)
		if (rp__nfs4_op_role(a[i].opnum) == ROLE_FILE &&
		    !((a[i].opnum == OP4_GETATTR || a[i].opnum == OP4_ACCESS) && main >= 0 && main != i))
			last = i;
	const uint64_t t = rp__cap_time(cx, call->ts_ns);
	for (uint32_t i = 0; i < n; i++) {
		nfs4_pop *const p = &c->ops[i];
		p->opnum = a[i].opnum;
		p->role = (uint8_t)rp__nfs4_op_role(p->opnum);
		p->slot = RP_SLOT_NONE;
		p->made = NO_OBJ;
		p->sid = a[i].sid;
		p->sid_kind = (uint8_t)rp__nfs4_sid_kind(&a[i].sid);
		p->how = a[i].how;
		p->name_off = rp__nfs4_stash(c, a[i].name, a[i].name_len);
		p->name_len = (uint32_t)a[i].name_len;
		p->name2_off = rp__nfs4_stash(c, a[i].name2, a[i].name2_len);
		p->name2_len = (uint32_t)a[i].name2_len;
		p->folded = (p->opnum == OP4_GETATTR || p->opnum == OP4_ACCESS) && main >= 0 && main != i;
		const int32_t before = w.cur;
		step_fh(&w, p, &a[i]);
		p->cur = before;
		p->saved = w.saved;
		if (p->role == ROLE_UNSUP)
			rp__cap_count(cx, RP_OUT_UNSUPPORTED, rp__nfs4_unsup_name(p->opnum));
		if (p->role != ROLE_FILE || p->folded || c->oom)
			continue;
		rp_op op;
		memset(&op, 0, sizeof(op));
		op.t_start = t;
		op.t_end = RP_TIME_UNKNOWN;
		op.client = call->client;
		op.status = RP_STATUS_UNKNOWN;
		op.proto = RP_PROTO_NFS4;
		const int32_t made_cur = w.cur;
		w.cur = before; /* the op's own target is named relative to the handle it started with */
		file_op(&w, p, &a[i], &op);
		w.cur = made_cur;
		if ((int64_t)i < last)
			op.flags |= RP_OPF_CONT;
		if (minor)
			op.flags |= RP_OPF_SESSION;
		p->slot = rp__cap_reserve(cx, &op);
	}
	c->n = n;
	free(a);
	if (c->oom) {
		for (uint32_t i = 0; i < n; i++)
			rp__cap_cancel(cx, c->ops[i].slot);
		rp__nfs4_compound_free(c);
		return;
	}
	pd->c = c;
}

const rp_rpc_prog rp__nfs4_prog = {
	.name = "NFSv4",
	.prog = 100003,
	.vers = 4,
	.pending_size = sizeof(nfs4_pending),
	.call = nfs4_call,
	.reply = rp__nfs4_reply,
	.drop = rp__nfs4_drop,
};
