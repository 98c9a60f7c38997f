/* An nfsdump record as an op, and what a reply teaches the handle map (RFC 1094, RFC 1813; docs/nfsdump.md). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "capture/rpc/nfsdump_int.h"
#include "formats/hash.h"
#include "formats/semantics.h"

enum { NF_REG = 1, NF_DIR = 2 }; /* ftype (the same in both versions) */

/* Remember a handle and a name for the reply (a name the map cannot learn is left out). */
static void keep(uint8_t *fh_out, uint8_t *fh_len_out, char *name_out, uint16_t *name_len_out, const uint8_t *fh,
		 uint8_t fh_len, const nd_str *name)
{
	if (fh_len) {
		memcpy(fh_out, fh, fh_len);
		*fh_len_out = fh_len;
	}
	if (name && name->len > 0 && name->len <= RP_NFS_NAME_MAX) {
		memcpy(name_out, name->p, name->len);
		*name_len_out = (uint16_t)name->len;
	}
}

static uint32_t fh_path(nd_ctx *c, const uint8_t *fh, size_t len, rp_op *op, bool *synth)
{
	bool s = false;
	const uint32_t id = rp__fhmap_path(c->cx, c->map, fh, len, &s);
	if (s) {
		op->flags |= RP_OPF_SYNTH_PATH;
		*synth = true;
	}
	return id;
}

static uint32_t child_path(nd_ctx *c, const uint8_t *dir, size_t dlen, const nd_str *name, rp_op *op, bool *synth)
{
	bool s = false;
	const uint32_t id = rp__fhmap_child_path(c->cx, c->map, dir, dlen, name->p, name->len, &s);
	if (s) {
		op->flags |= RP_OPF_SYNTH_PATH;
		*synth = true;
	}
	return id;
}

/* A call's new attributes (SETATTR, CREATE, MKDIR) as the NFS set-attributes semantics take them. */
static rp_nfs_sattr sattr_of(const nd_rec *r)
{
	rp_nfs_sattr sa = { 0 };
	if (r->n_attrs == 0)
		return sa;
	const nd_attr *const a = &r->attr[0];
	if (a->have & NA_MODE) {
		sa.sent |= RP_NFS_SET_MODE;
		sa.mode = a->mode & 07777;
	}
	if (a->have & NA_UID) {
		sa.sent |= RP_NFS_SET_UID;
		sa.uid = a->uid;
	}
	if (a->have & NA_GID) {
		sa.sent |= RP_NFS_SET_GID;
		sa.gid = a->gid;
	}
	if (a->have & NA_SIZE) {
		sa.sent |= RP_NFS_SET_SIZE;
		sa.size = a->size;
	}
	if (a->have & NA_ATIME) {
		sa.sent |= RP_NFS_SET_ATIME;
		sa.atime_how = a->have & NA_ATIME_SERVER ? RP_NFS_TIME_SERVER : RP_NFS_TIME_CLIENT;
		sa.atime = a->atime;
	}
	if (a->have & NA_MTIME) {
		sa.sent |= RP_NFS_SET_MTIME;
		sa.mtime_how = a->have & NA_MTIME_SERVER ? RP_NFS_TIME_SERVER : RP_NFS_TIME_CLIENT;
		sa.mtime = a->mtime;
	}
	return sa;
}

/* The procedures whose call names an object by directory and name. */
static bool by_name(nd_proc p)
{
	return p == ND_LOOKUP || p == ND_CREATE || p == ND_MKDIR || p == ND_SYMLINK || p == ND_MKNOD ||
	       p == ND_REMOVE || p == ND_RMDIR || p == ND_RENAME;
}

/* The op's path (and a rename's or link's second), from the call's handles and names through the map. */
static void paths(nd_ctx *c, const nd_rec *r, rp_op *op, bool *synth)
{
	*synth = false;
	if (by_name(r->proc))
		op->path = child_path(c, r->fh, r->fh_len, &r->name, op, synth);
	else
		op->path = fh_path(c, r->fh, r->fh_len, op, synth);
	if (r->proc == ND_RENAME || r->proc == ND_LINK)
		op->path2 = child_path(c, r->fh2, r->fh2_len, r->proc == ND_RENAME ? &r->name2 : &r->name, op, synth);
}

/* What the op needs of the call; false (counted) when it is missing or absurd. */
static bool call_ok(nd_ctx *c, const nd_rec *r)
{
	if (!(r->have & NR_FH))
		return false;
	if (by_name(r->proc) && !(r->have & NR_NAME))
		return false;
	if ((r->proc == ND_RENAME && !((r->have & NR_FH2) && (r->have & NR_NAME2))) ||
	    (r->proc == ND_LINK && !((r->have & NR_FH2) && (r->have & NR_NAME))))
		return false;
	if (r->proc == ND_READ || r->proc == ND_WRITE || r->proc == ND_COMMIT) {
		const uint64_t off = r->have & NR_OFF ? r->off : 0, count = r->have & NR_COUNT ? r->count : 0;
		if (off > RP_NFSDUMP_OFFSET_MAX || count > RP_NFSDUMP_COUNT_MAX) {
			c->st->absurd++;
			return false;
		}
	}
	return true;
}

static void learn_from_server(nd_ctx *c, const uint8_t *fh, size_t len);

bool rp__nd_call_op(nd_ctx *c, const nd_rec *r, uint32_t client, uint64_t t_start, rp_op *op, nd_pending *p)
{
	memset(p, 0, offsetof(nd_pending, fh));
	p->slot = RP_SLOT_NONE;
	p->proc = r->proc;
	p->count = r->have & NR_COUNT ? r->count : 0;
	keep(p->fh, &p->fh_len, p->name, &p->name_len, r->fh, r->have & NR_FH ? r->fh_len : 0,
	     r->have & NR_NAME ? &r->name : NULL);
	keep(p->fh2, &p->fh2_len, p->name2, &p->name2_len, r->fh2, r->have & NR_FH2 ? r->fh2_len : 0,
	     r->have & NR_NAME2 ? &r->name2 : NULL);
	switch (r->proc) {
	case ND_NULL:
		c->st->null_calls++;
		return false;
	case ND_ROOT:
	case ND_WRITECACHE:
	case ND_BAD:
		c->st->unsupported++;
		return false;
	default:
		break;
	}
	if (r->short_packet) {
		c->st->short_packets++;
		return false;
	}
	if (!call_ok(c, r)) {
		c->st->garbage++;
		return false;
	}
	memset(op, 0, sizeof(*op));
	op->t_start = t_start;
	op->t_end = RP_TIME_UNKNOWN;
	op->client = client;
	op->status = RP_STATUS_UNKNOWN;
	op->flags = RP_OPF_NO_REPLY;
	op->proto = RP_PROTO_NFS3;
	const rp_nfs_sattr sa = sattr_of(r);
	switch (r->proc) {
	case ND_GETATTR: op->op = RP_OP_STAT; break;
	case ND_SETATTR:
		op->op = RP_OP_SETATTR;
		rp_sem_nfs_setattr(op, RP_PROTO_NFS3, &sa);
		break;
	case ND_LOOKUP: op->op = RP_OP_LOOKUP; break;
	case ND_ACCESS:
		op->op = RP_OP_ACCESS;
		op->want = rp_sem_nfs_access_want(r->acc);
		op->raw.access = r->acc;
		break;
	case ND_READLINK: op->op = RP_OP_READLINK; break;
	case ND_READ: op->op = RP_OP_READ; break;
	case ND_WRITE:
		op->op = RP_OP_WRITE;
		op->raw.level = r->have & NR_STABLE ? r->stable : 2; /* NFSv2 writes are FILE_SYNC */
		if (op->raw.level != 0)
			op->flags |= RP_OPF_STABLE;
		break;
	case ND_CREATE:
		op->op = RP_OP_OPEN;
		/* NFSv2 has no createhow: its CREATE is UNCHECKED, a size of 0 emptying an existing file. */
		rp_sem_nfs3_create(op, RP_PROTO_NFS3, r->have & NR_HOW ? r->how : RP_NFS_UNCHECKED,
				   (sa.sent & RP_NFS_SET_SIZE) && sa.size == 0);
		op->mode = sa.sent & RP_NFS_SET_MODE ? sa.mode : 0;
		break;
	case ND_MKDIR:
		op->op = RP_OP_MKDIR;
		op->mode = sa.mode;
		break;
	case ND_SYMLINK:
		op->op = RP_OP_SYMLINK;
		/* v3 prints the target as sdata, v2 as the second name */
		if (r->have & NR_TARGET)
			op->path2 = rp__cap_path(c->cx, r->target.p, r->target.len);
		else if (r->have & NR_NAME2)
			op->path2 = rp__cap_path(c->cx, r->name2.p, r->name2.len);
		break;
	case ND_MKNOD:
		op->op = RP_OP_MKNOD;
		op->mode = sa.mode;
		break;
	case ND_REMOVE: op->op = RP_OP_UNLINK; break;
	case ND_RMDIR: op->op = RP_OP_RMDIR; break;
	case ND_RENAME: op->op = RP_OP_RENAME; break;
	case ND_LINK: op->op = RP_OP_LINK; break;
	case ND_READDIR:
	case ND_READDIRPLUS:
		op->op = RP_OP_READDIR;
		op->raw.level = r->proc;
		op->offset = r->have & NR_COOKIE ? r->cookie : 0;
		op->length = r->have & NR_MAXCNT ? r->maxcnt : r->have & NR_COUNT ? r->count : 0;
		break;
	case ND_FSSTAT:
	case ND_FSINFO:
	case ND_PATHCONF:
		op->op = RP_OP_STATFS;
		op->raw.level = r->proc;
		break;
	case ND_COMMIT: op->op = RP_OP_FLUSH; break;
	default: return false;
	}
	if (r->proc == ND_READ || r->proc == ND_WRITE || r->proc == ND_COMMIT) {
		op->offset = r->have & NR_OFF ? r->off : 0;
		op->length = r->have & NR_COUNT ? r->count : 0;
	}
	/* A handle first seen here keeps the name it gets now: one name per handle. */
	learn_from_server(c, r->fh, r->fh_len);
	if (r->have & NR_FH2)
		learn_from_server(c, r->fh2, r->fh2_len);
	bool synth = false;
	paths(c, r, op, &synth);
	p->provisional = synth;
	if (r->proc == ND_GETATTR || r->proc == ND_SETATTR || r->proc == ND_READ || r->proc == ND_WRITE ||
	    r->proc == ND_COMMIT)
		op->handle = rp__fhmap_handle(c->map, r->fh, r->fh_len);
	return true;
}

/* ---- replies ---- */

/*
 * A handle the trace never names, first seen with its attributes, is given a
 * stable name under its file system's directory, "/.reprise/nfs/fsid-F/H"
 * (H the handle's hash, as the packet decoder names the unknown), so that
 * every op on it, and every name learnt inside it, has one place prepare can
 * build and replay can use.  A name the trace shows later takes over.
 */
static void learn(nd_ctx *c, const uint8_t *fh, size_t len, const nd_attr *a)
{
	if (!len || !(a->have & NA_FSID) || rp__fhmap_known(c->map, fh, len))
		return;
	const uint64_t h = rp_fnv1a64(RP_FNV64_OFFSET, fh, len);
	char path[96];
	const int n = snprintf(path, sizeof(path), "/.reprise/nfs/fsid-%llx/%016llx", (unsigned long long)a->fsid,
			       (unsigned long long)h);
	if (n > 0 && (size_t)n < sizeof(path)) {
		rp__fhmap_set(c->map, fh, len, path, (size_t)n);
		c->st->synth_named++;
	}
}

static size_t srv_slot(uint64_t server)
{
	const uint64_t h = server * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 54) & (ND_SERVERS - 1);
}

/* A handle first used by a call, before any attributes of its own: named under its server's last file system. */
static void learn_from_server(nd_ctx *c, const uint8_t *fh, size_t len)
{
	const size_t i = srv_slot(c->server);
	if (c->srv_key[i] != c->server + 1)
		return; /* not known yet: the op's path is made again at the reply */
	const nd_attr a = { .have = NA_FSID, .fsid = c->srv_fsid[i] };
	learn(c, fh, len, &a);
}

static void note_fsid(nd_ctx *c, const nd_attr *a)
{
	if (!(a->have & NA_FSID))
		return;
	const size_t i = srv_slot(c->server);
	c->srv_key[i] = c->server + 1;
	c->srv_fsid[i] = a->fsid;
}

/* The call's path(s) made again, now that the handles it went through may have names. */
static void repath(nd_ctx *c, const nd_pending *p, rp_op *op)
{
	const nd_str name = { p->name, p->name_len }, name2 = { p->name2, p->name2_len };
	bool synth = false;
	if (by_name(p->proc)) {
		if (p->name_len)
			op->path = child_path(c, p->fh, p->fh_len, &name, op, &synth);
	} else {
		op->path = fh_path(c, p->fh, p->fh_len, op, &synth);
	}
	if (p->proc == ND_RENAME && p->name2_len)
		op->path2 = child_path(c, p->fh2, p->fh2_len, &name2, op, &synth);
	else if (p->proc == ND_LINK && p->name_len)
		op->path2 = child_path(c, p->fh2, p->fh2_len, &name, op, &synth);
}

/* The reply's results into the op. */
static void results(nd_ctx *c, const nd_rec *r, const nd_pending *p, rp_op *op)
{
	const nd_attr *const a0 = r->n_attrs ? &r->attr[0] : NULL;
	const bool ok = r->status == 0;
	/* The first attribute set is the op's object for every procedure but those naming a directory's entry. */
	const bool obj = !(p->proc == ND_REMOVE || p->proc == ND_RMDIR || p->proc == ND_RENAME);
	if (ok && a0 && obj && (a0->have & NA_FTYPE) && a0->ftype == NF_DIR)
		op->flags |= RP_OPF_DIRECTORY;
	switch (p->proc) {
	case ND_GETATTR:
	case ND_LOOKUP:
		/* The size the attributes show, so prepare makes the file that long (docs/op-model.md). */
		if (ok && a0 && (a0->have & NA_SIZE) && (a0->have & NA_FTYPE) && a0->ftype == NF_REG) {
			if (a0->size <= RP_NFSDUMP_SIZE_MAX)
				op->result = a0->size;
			else
				c->st->absurd++;
		}
		break;
	case ND_READ:
	case ND_WRITE:
		if (ok && (r->have & NR_COUNT)) {
			op->result = r->count;
			if (op->result > p->count) {
				c->st->absurd++; /* more than was asked: garbled */
				op->result = p->count;
			}
		}
		break;
	case ND_READLINK:
		if (ok && (r->have & NR_NAME))
			op->path2 = rp__cap_path(c->cx, r->name.p, r->name.len);
		break;
	case ND_ACCESS:
		if (ok && (r->have & NR_ACC)) {
			op->raw.options = r->acc;
			op->result = rp_sem_nfs_access_want(r->acc) & ~(uint32_t)RP_WANT_KNOWN;
		}
		break;
	case ND_CREATE:
		if (ok && (r->have & NR_FH))
			op->handle = rp__fhmap_handle(c->map, r->fh, r->fh_len);
		break;
	default:
		break;
	}
}

/* The names a successful reply makes, moves or ends. */
static void teach(nd_ctx *c, const nd_rec *r, const nd_pending *p)
{
	rp_fhmap *const m = c->map;
	switch (p->proc) {
	case ND_LOOKUP:
	case ND_CREATE:
	case ND_MKDIR:
	case ND_SYMLINK:
	case ND_MKNOD:
		if ((r->have & NR_FH) && p->fh_len && p->name_len)
			rp__fhmap_child(m, p->fh, p->fh_len, p->name, p->name_len, r->fh, r->fh_len);
		break;
	case ND_REMOVE:
	case ND_RMDIR:
		if (p->fh_len && p->name_len)
			rp__fhmap_unlink_name(m, p->fh, p->fh_len, p->name, p->name_len);
		break;
	case ND_LINK:
		if (p->fh_len && p->fh2_len && p->name_len)
			rp__fhmap_link(m, p->fh, p->fh_len, p->fh2, p->fh2_len, p->name, p->name_len);
		break;
	case ND_RENAME:
		if (p->fh_len && p->name_len)
			rp__fhmap_rename(m, p->fh, p->fh_len, p->name, p->name_len, p->fh2, p->fh2_len, p->name2,
					 p->name2_len);
		break;
	default:
		break;
	}
}

void rp__nd_reply(nd_ctx *c, const nd_rec *r, const nd_pending *p, rp_op *op, uint64_t t_end)
{
	const bool ok = r->status == 0;
	if (r->n_attrs > 1)
		c->st->attrs_twice++;
	for (unsigned i = 0; i < r->n_attrs; i++)
		note_fsid(c, &r->attr[i]);
	/* Which handle each attribute set describes: the object, then (LOOKUP, CREATE, LINK, RENAME) a directory. */
	const bool names_obj = p->proc == ND_LOOKUP || p->proc == ND_CREATE || p->proc == ND_MKDIR ||
			       p->proc == ND_SYMLINK || p->proc == ND_MKNOD;
	if (r->n_attrs > 0 && !names_obj)
		learn(c, p->fh, p->fh_len, &r->attr[0]);
	if (r->n_attrs > 1)
		learn(c, names_obj ? p->fh : p->fh2, names_obj ? p->fh_len : p->fh2_len, &r->attr[1]);
	if (names_obj && r->n_attrs > 0 && (r->have & NR_FH) && !(ok && p->name_len))
		learn(c, r->fh, r->fh_len, &r->attr[0]); /* found but not named by this reply */
	if (op) {
		op->t_end = t_end > op->t_start ? t_end : op->t_start;
		op->flags &= (uint16_t)~RP_OPF_NO_REPLY;
		rp__cap_set_status(c->cx, op, RP_SK_NFS3, r->status);
		if (p->provisional)
			repath(c, p, op);
		results(c, r, p, op);
	}
	if (ok)
		teach(c, r, p);
}
