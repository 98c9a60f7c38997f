/* NFSv3 calls and replies -> op records (RFC 1813). */
#include <string.h>

#include "capture/rpc/rpc.h"
#include "formats/semantics.h"
#include "formats/status.h"

enum nfs3_proc {
	P_NULL = 0, P_GETATTR = 1, P_SETATTR = 2, P_LOOKUP = 3, P_ACCESS = 4, P_READLINK = 5, P_READ = 6,
	P_WRITE = 7, P_CREATE = 8, P_MKDIR = 9, P_SYMLINK = 10, P_MKNOD = 11, P_REMOVE = 12, P_RMDIR = 13,
	P_RENAME = 14, P_LINK = 15, P_READDIR = 16, P_READDIRPLUS = 17, P_FSSTAT = 18, P_FSINFO = 19,
	P_PATHCONF = 20, P_COMMIT = 21, P__COUNT
};

enum { NF3DIR = 2, NF3BLK = 3, NF3CHR = 4, NF3SOCK = 6, NF3FIFO = 7 };
enum { UNSTABLE = 0 };
enum { UNCHECKED = 0, GUARDED = 1, EXCLUSIVE = 2 };
enum { DONT_CHANGE = 0, SET_TO_SERVER_TIME = 1, SET_TO_CLIENT_TIME = 2 };

/* fattr3 is 84 bytes (RFC 1813 §2.6); wcc_attr 24. */
#define FATTR3_SIZE 84
#define WCC_ATTR_SIZE 24

/* What a reply needs from its call: the op slot, and the handles and names that
 * replies bind (LOOKUP, CREATE, ...) or change (REMOVE, RENAME) in the map. */
typedef struct nfs3_pending {
	rp_slot slot; /* RP_SLOT_NONE: no op */
	uint8_t fh_len, fh2_len;
	uint16_t name_len, name2_len; /* 0 when absent or too long to remember */
	uint8_t fh[RP_NFS3_FHSIZE], fh2[RP_NFS3_FHSIZE];
	char name[RP_NFS_NAME_MAX], name2[RP_NFS_NAME_MAX];
} nfs3_pending;

/* Arguments of any procedure, as far as reprise uses them. */
typedef struct args3 {
	const uint8_t *fh, *fh2;
	size_t fh_len, fh2_len;
	const char *name, *name2, *target;
	size_t name_len, name2_len, target_len;
	rp_nfs_sattr sa; /* CREATE, MKDIR, SYMLINK, MKNOD, SETATTR */
	uint64_t offset, cookie;
	uint32_t count, stable, how, access, ftype;
} args3;

/* ---- XDR pieces of RFC 1813 §2.5-2.6 ---- */

static const uint8_t *read_fh(rp_cur *c, size_t *len)
{
	return rp_cur_xdr_var(c, RP_NFS3_FHSIZE, len);
}

static const char *read_name(rp_cur *c, size_t *len)
{
	return (const char *)rp_cur_xdr_var(c, RP_NFS_PATH_MAX, len);
}

/* diropargs3: a directory handle and a name. */
static void read_dirop(rp_cur *c, const uint8_t **fh, size_t *fh_len, const char **name, size_t *name_len)
{
	*fh = read_fh(c, fh_len);
	*name = read_name(c, name_len);
}

/* set_atime/set_mtime: a time_how and, for SET_TO_CLIENT_TIME, an nfstime3; the RP_NFS_SET_* bit when set. */
static uint32_t read_set_time(rp_cur *c, uint32_t bit, uint32_t *how, uint64_t *ns, uint32_t *unusable)
{
	*how = rp_cur_be32(c);
	if (*how > SET_TO_CLIENT_TIME)
		c->err = true;
	if (*how == SET_TO_CLIENT_TIME) {
		const uint32_t sec = rp_cur_be32(c), nsec = rp_cur_be32(c);
		if (!rp_sem_nfs_time(sec, nsec, ns))
			*unusable |= bit;
	}
	return *how == DONT_CHANGE || c->err ? 0 : bit;
}

/* sattr3 (RFC 1813 2.5.4), with its values: shared by SETATTR, CREATE, MKDIR, SYMLINK and MKNOD. */
static rp_nfs_sattr read_sattr(rp_cur *c)
{
	rp_nfs_sattr sa = { 0 };
	if (rp_cur_xdr_bool(c)) {
		sa.sent |= RP_NFS_SET_MODE;
		sa.mode = rp_cur_be32(c) & 07777;
	}
	if (rp_cur_xdr_bool(c)) {
		sa.sent |= RP_NFS_SET_UID;
		sa.uid = rp_cur_be32(c);
	}
	if (rp_cur_xdr_bool(c)) {
		sa.sent |= RP_NFS_SET_GID;
		sa.gid = rp_cur_be32(c);
	}
	if (rp_cur_xdr_bool(c)) {
		sa.sent |= RP_NFS_SET_SIZE;
		sa.size = rp_cur_be64(c);
	}
	sa.sent |= read_set_time(c, RP_NFS_SET_ATIME, &sa.atime_how, &sa.atime, &sa.unusable);
	sa.sent |= read_set_time(c, RP_NFS_SET_MTIME, &sa.mtime_how, &sa.mtime, &sa.unusable);
	return sa;
}

/* post_op_attr: returns the ftype3 when attributes follow, else 0. */
static uint32_t skip_post_op_attr(rp_cur *c)
{
	if (!rp_cur_xdr_bool(c))
		return 0;
	const uint8_t *const a = rp_cur_take(c, FATTR3_SIZE);
	return a ? (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3] : 0;
}

static void skip_wcc_data(rp_cur *c)
{
	if (rp_cur_xdr_bool(c))
		rp_cur_skip(c, WCC_ATTR_SIZE);
	(void)skip_post_op_attr(c);
}

/* post_op_fh3: the handle, or NULL when none follows. */
static const uint8_t *read_post_op_fh(rp_cur *c, size_t *len)
{
	*len = 0;
	return rp_cur_xdr_bool(c) ? read_fh(c, len) : NULL;
}

/* ---- calls ---- */

static void parse_args(uint32_t proc, rp_cur *c, args3 *a)
{
	switch (proc) {
	case P_GETATTR:
	case P_READLINK:
	case P_FSSTAT:
	case P_FSINFO:
	case P_PATHCONF:
		a->fh = read_fh(c, &a->fh_len);
		break;
	case P_SETATTR:
		a->fh = read_fh(c, &a->fh_len);
		a->sa = read_sattr(c);
		if (rp_cur_xdr_bool(c)) /* sattrguard3 */
			rp_cur_skip(c, 8);
		break;
	case P_LOOKUP:
	case P_REMOVE:
	case P_RMDIR:
		read_dirop(c, &a->fh, &a->fh_len, &a->name, &a->name_len);
		break;
	case P_ACCESS:
		a->fh = read_fh(c, &a->fh_len);
		a->access = rp_cur_be32(c);
		break;
	case P_READ:
	case P_COMMIT:
		a->fh = read_fh(c, &a->fh_len);
		a->offset = rp_cur_be64(c);
		a->count = rp_cur_be32(c);
		break;
	case P_WRITE:
		/* The data that follows is not needed (and may be cut by the snaplen). */
		a->fh = read_fh(c, &a->fh_len);
		a->offset = rp_cur_be64(c);
		a->count = rp_cur_be32(c);
		a->stable = rp_cur_be32(c);
		if (a->stable > 2)
			c->err = true;
		break;
	case P_CREATE:
		read_dirop(c, &a->fh, &a->fh_len, &a->name, &a->name_len);
		a->how = rp_cur_be32(c);
		if (a->how == EXCLUSIVE)
			rp_cur_skip(c, 8); /* createverf3 */
		else if (a->how == UNCHECKED || a->how == GUARDED)
			a->sa = read_sattr(c);
		else
			c->err = true;
		break;
	case P_MKDIR:
		read_dirop(c, &a->fh, &a->fh_len, &a->name, &a->name_len);
		a->sa = read_sattr(c);
		break;
	case P_SYMLINK:
		read_dirop(c, &a->fh, &a->fh_len, &a->name, &a->name_len);
		a->sa = read_sattr(c);
		a->target = read_name(c, &a->target_len);
		break;
	case P_MKNOD:
		read_dirop(c, &a->fh, &a->fh_len, &a->name, &a->name_len);
		a->ftype = rp_cur_be32(c);
		if (a->ftype == NF3CHR || a->ftype == NF3BLK) {
			a->sa = read_sattr(c);
			rp_cur_skip(c, 8); /* specdata3 */
		} else if (a->ftype == NF3SOCK || a->ftype == NF3FIFO) {
			a->sa = read_sattr(c);
		}
		break;
	case P_RENAME:
		read_dirop(c, &a->fh, &a->fh_len, &a->name, &a->name_len);
		read_dirop(c, &a->fh2, &a->fh2_len, &a->name2, &a->name2_len);
		break;
	case P_LINK:
		a->fh = read_fh(c, &a->fh_len);
		read_dirop(c, &a->fh2, &a->fh2_len, &a->name2, &a->name2_len);
		break;
	case P_READDIR:
		a->fh = read_fh(c, &a->fh_len);
		a->cookie = rp_cur_be64(c);
		rp_cur_skip(c, 8); /* cookieverf3 */
		a->count = rp_cur_be32(c);
		break;
	case P_READDIRPLUS:
		a->fh = read_fh(c, &a->fh_len);
		a->cookie = rp_cur_be64(c);
		rp_cur_skip(c, 8);
		rp_cur_skip(c, 4); /* dircount: the maxcount that follows bounds the reply */
		a->count = rp_cur_be32(c);
		break;
	}
}

/* Remember a handle and a name for the reply. */
static void keep(uint8_t *fh_out, uint8_t *fh_len_out, char *name_out, uint16_t *name_len_out, const uint8_t *fh,
		 size_t fh_len, const char *name, size_t name_len)
{
	if (fh && fh_len <= RP_NFS3_FHSIZE) {
		memcpy(fh_out, fh, fh_len);
		*fh_len_out = (uint8_t)fh_len;
	}
	if (name && name_len > 0 && name_len <= RP_NFS_NAME_MAX) {
		memcpy(name_out, name, name_len);
		*name_len_out = (uint16_t)name_len;
	}
}

static uint32_t fh_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *fh, size_t len, rp_op *op)
{
	bool synth = false;
	const uint32_t id = rp__fhmap_path(cx, m, fh, len, &synth);
	if (synth)
		op->flags |= RP_OPF_SYNTH_PATH;
	return id;
}

static uint32_t child_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *dir, size_t dlen, const char *name,
			   size_t nlen, rp_op *op)
{
	bool synth = false;
	const uint32_t id = rp__fhmap_child_path(cx, m, dir, dlen, name, nlen, &synth);
	if (synth)
		op->flags |= RP_OPF_SYNTH_PATH;
	return id;
}

/* The file type bits of mode (the traditional S_IF* values, as stat(2) documents them) for an ftype3. */
static uint32_t mknod_type_bits(uint32_t ftype)
{
	switch (ftype) {
	case NF3BLK: return 0060000;
	case NF3CHR: return 0020000;
	case NF3SOCK: return 0140000;
	case NF3FIFO: return 0010000;
	default: return 0;
	}
}

/* The op a call describes (status still unknown). */
static void build_op(rp_capctx *cx, rp_fhmap *m, uint32_t proc, const args3 *a, rp_op *op)
{
	op->proto = RP_PROTO_NFS3;
	switch (proc) {
	case P_GETATTR:
		op->op = RP_OP_STAT;
		break;
	case P_SETATTR:
		op->op = RP_OP_SETATTR;
		rp_sem_nfs_setattr(op, RP_PROTO_NFS3, &a->sa);
		break;
	case P_LOOKUP:
		op->op = RP_OP_LOOKUP;
		break;
	case P_ACCESS:
		op->op = RP_OP_ACCESS;
		op->want = rp_sem_nfs_access_want(a->access);
		op->raw.access = a->access;
		break;
	case P_READLINK:
		op->op = RP_OP_READLINK;
		break;
	case P_READ:
		op->op = RP_OP_READ;
		break;
	case P_WRITE:
		op->op = RP_OP_WRITE;
		op->raw.level = a->stable; /* stable_how */
		if (a->stable != UNSTABLE)
			op->flags |= RP_OPF_STABLE;
		break;
	case P_CREATE:
		op->op = RP_OP_OPEN;
		/* EXCLUSIVE carries a verifier, no attributes: a->sa is empty then. */
		rp_sem_nfs3_create(op, RP_PROTO_NFS3, a->how,
				   (a->sa.sent & RP_NFS_SET_SIZE) && a->sa.size == 0);
		op->mode = a->sa.sent & RP_NFS_SET_MODE ? a->sa.mode : 0;
		break;
	case P_MKDIR:
		op->op = RP_OP_MKDIR;
		op->mode = a->sa.mode;
		break;
	case P_SYMLINK:
		op->op = RP_OP_SYMLINK;
		op->path2 = rp__cap_path(cx, a->target, a->target_len);
		break;
	case P_MKNOD:
		op->op = RP_OP_MKNOD;
		op->mode = a->sa.mode | mknod_type_bits(a->ftype);
		op->raw.level = a->ftype;
		break;
	case P_REMOVE:
		op->op = RP_OP_UNLINK;
		break;
	case P_RMDIR:
		op->op = RP_OP_RMDIR;
		break;
	case P_RENAME:
		op->op = RP_OP_RENAME;
		op->path2 = child_path(cx, m, a->fh2, a->fh2_len, a->name2, a->name2_len, op);
		break;
	case P_LINK:
		op->op = RP_OP_LINK;
		op->path2 = child_path(cx, m, a->fh2, a->fh2_len, a->name2, a->name2_len, op);
		break;
	case P_READDIR:
	case P_READDIRPLUS:
		op->op = RP_OP_READDIR;
		op->raw.level = proc;
		op->offset = a->cookie;
		op->length = a->count;
		break;
	case P_FSSTAT:
	case P_FSINFO:
	case P_PATHCONF:
		op->op = RP_OP_STATFS;
		op->raw.level = proc;
		break;
	case P_COMMIT:
		op->op = RP_OP_FLUSH;
		break;
	}
	if (proc == P_READ || proc == P_WRITE || proc == P_COMMIT) {
		op->offset = a->offset;
		op->length = a->count;
	}
	/* Path: the object for handle-based procedures, dir + name for the rest. */
	if (a->name)
		op->path = child_path(cx, m, a->fh, a->fh_len, a->name, a->name_len, op);
	else
		op->path = fh_path(cx, m, a->fh, a->fh_len, op);
	if (proc == P_GETATTR || proc == P_SETATTR || proc == P_READ || proc == P_WRITE || proc == P_COMMIT)
		op->handle = rp__fhmap_handle(m, a->fh, a->fh_len);
}

static void nfs3_call(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, rp_cur *args, void *pending)
{
	(void)conn;
	nfs3_pending *const p = pending;
	p->slot = RP_SLOT_NONE;
	if (call->proc == P_NULL) {
		rp__cap_count(cx, RP_OUT_IGNORED, "NFSv3 NULL"); /* a ping */
		return;
	}
	if (call->proc >= P__COUNT) {
		rp__cap_count(cx, RP_OUT_INVALID, NULL); /* the server answers PROC_UNAVAIL */
		return;
	}
	args3 a = { 0 };
	parse_args(call->proc, args, &a);
	if (args->err) {
		rp__cap_count(cx, call->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return;
	}
	rp_fhmap *const m = rp__fhmap(cx);
	rp_op op = {
		.t_start = rp__cap_time(cx, call->ts_ns),
		.t_end = RP_TIME_UNKNOWN,
		.client = call->client,
		.status = RP_STATUS_UNKNOWN,
		.flags = RP_OPF_NO_REPLY,
	};
	build_op(cx, m, call->proc, &a, &op);
	keep(p->fh, &p->fh_len, p->name, &p->name_len, a.fh, a.fh_len, a.name, a.name_len);
	keep(p->fh2, &p->fh2_len, p->name2, &p->name2_len, a.fh2, a.fh2_len, a.name2, a.name2_len);
	p->slot = rp__cap_reserve(cx, &op);
}

/* ---- replies ---- */

/* READDIR/READDIRPLUS entries: counts them and, with handles, teaches the map. */
static uint64_t read_entries(rp_cur *c, bool plus, rp_fhmap *m, const nfs3_pending *p)
{
	uint64_t n = 0;
	while (rp_cur_xdr_bool(c)) {
		rp_cur_skip(c, 8); /* fileid */
		size_t nlen = 0;
		const char *const name = read_name(c, &nlen);
		rp_cur_skip(c, 8); /* cookie */
		if (plus) {
			(void)skip_post_op_attr(c);
			size_t fh_len = 0;
			const uint8_t *const fh = read_post_op_fh(c, &fh_len);
			if (fh && !c->err && p->fh_len)
				rp__fhmap_child_listed(m, p->fh, p->fh_len, name, nlen, fh, fh_len);
		}
		if (c->err)
			break;
		n++;
	}
	if (!c->err)
		(void)rp_cur_xdr_bool(c); /* eof */
	return n;
}

/* Learn the name of a new or looked-up object from its handle. */
static void bind_child(rp_fhmap *m, const nfs3_pending *p, const uint8_t *fh, size_t fh_len)
{
	if (fh && p->fh_len && p->name_len)
		rp__fhmap_child(m, p->fh, p->fh_len, p->name, p->name_len, fh, fh_len);
}

/* The rest of an NFS3_OK (or, for a few procedures, failed) result. */
static void read_result(rp_capctx *cx, rp_fhmap *m, uint32_t proc, uint32_t status, rp_cur *c,
			const nfs3_pending *p, rp_op *op)
{
	const bool ok = status == 0;
	size_t len = 0;
	switch (proc) {
	case P_GETATTR:
		if (ok && op && rp_cur_be32(c) == NF3DIR && !c->err)
			op->flags |= RP_OPF_DIRECTORY;
		break;
	case P_LOOKUP:
		if (ok) {
			const uint8_t *const fh = read_fh(c, &len);
			const uint32_t type = skip_post_op_attr(c);
			if (!c->err) {
				bind_child(m, p, fh, len);
				if (op && type == NF3DIR)
					op->flags |= RP_OPF_DIRECTORY;
			}
		}
		break;
	case P_ACCESS:
		(void)skip_post_op_attr(c);
		if (ok && op) {
			const uint32_t granted = rp_cur_be32(c);
			op->raw.options = granted;
			op->result = rp_sem_nfs_access_want(granted) & ~(uint32_t)RP_WANT_KNOWN;
		}
		break;
	case P_READLINK:
		(void)skip_post_op_attr(c);
		if (ok) {
			const char *const target = read_name(c, &len);
			if (target && op)
				op->path2 = rp__cap_path(cx, target, len);
		}
		break;
	case P_READ:
		(void)skip_post_op_attr(c);
		if (ok && op)
			op->result = rp_cur_be32(c);
		break;
	case P_WRITE:
		skip_wcc_data(c);
		if (ok && op)
			op->result = rp_cur_be32(c);
		break;
	case P_CREATE:
	case P_MKDIR:
	case P_SYMLINK:
	case P_MKNOD:
		if (ok) {
			const uint8_t *const fh = read_post_op_fh(c, &len);
			if (!c->err) {
				bind_child(m, p, fh, len);
				if (fh && op && proc == P_CREATE)
					op->handle = rp__fhmap_handle(m, fh, len);
			}
		}
		break;
	case P_REMOVE:
	case P_RMDIR:
		if (ok && p->fh_len && p->name_len)
			rp__fhmap_unlink_name(m, p->fh, p->fh_len, p->name, p->name_len);
		break;
	case P_LINK:
		if (ok && p->fh_len && p->fh2_len && p->name2_len)
			rp__fhmap_link(m, p->fh, p->fh_len, p->fh2, p->fh2_len, p->name2, p->name2_len);
		break;
	case P_RENAME:
		if (ok && p->fh_len && p->name_len)
			rp__fhmap_rename(m, p->fh, p->fh_len, p->name, p->name_len, p->fh2, p->fh2_len, p->name2,
					 p->name2_len);
		break;
	case P_READDIR:
	case P_READDIRPLUS:
		(void)skip_post_op_attr(c);
		if (ok) {
			rp_cur_skip(c, 8); /* cookieverf3 */
			const uint64_t n = read_entries(c, proc == P_READDIRPLUS, m, p);
			if (op)
				op->result = n;
		}
		break;
	}
}

static void nfs3_reply(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, const rp_rpc_reply *rep, rp_cur *res,
		       void *pending)
{
	(void)conn;
	const nfs3_pending *const p = pending;
	if (call->proc == P_NULL || call->proc >= P__COUNT)
		return;
	/* The map learns from replies even when the op has already gone out. */
	rp_op *const op = rp__cap_slot(cx, p->slot);
	if (op) {
		op->t_end = rp__cap_time(cx, rep->ts_ns);
		op->flags &= (uint16_t)~RP_OPF_NO_REPLY;
	}
	if (!res) {
		/* Denied, or not accepted (PROG_MISMATCH, GARBAGE_ARGS, ...). */
		if (op) {
			op->status = RP_STATUS_OTHER;
			op->status_kind = RP_SK_NONE;
		}
		rp__cap_done(cx, p->slot);
		return;
	}
	const uint32_t status = rp_cur_be32(res);
	if (!res->err) {
		if (op)
			rp__cap_set_status(cx, op, RP_SK_NFS3, status);
		read_result(cx, rp__fhmap(cx), call->proc, status, res, p, op);
	}
	if (res->err)
		rp__cap_count(cx, rep->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
	rp__cap_done(cx, p->slot);
}

const rp_rpc_prog rp__nfs3_prog = {
	.name = "NFSv3",
	.prog = 100003,
	.vers = 3,
	.pending_size = sizeof(nfs3_pending),
	.call = nfs3_call,
	.reply = nfs3_reply,
	.drop = NULL,
};

