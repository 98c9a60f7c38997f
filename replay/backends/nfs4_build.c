/*
 * The nfs backend's NFSv4.0 exact mode, below nfs4_exact.c: its own client
 * id (SETCLIENTID and SETCLIENTID_CONFIRM at client start, RFC 7530 §16.33,
 * §16.34), the sending of a COMPOUND, its open-owners and the opens each holds, the handle map under
 * the group's lock, and the arguments of a COMPOUND (fattr4 values, OPEN).
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"
#include "replay/backends/nfs4_exact_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs-raw.h>

#include "formats/status.h"

/*
 * libnfs 4.0 encodes a COMPOUND into a fixed 4 KiB buffer (a WRITE past
 * 3,944 bytes fails to encode).  Its exported rpc_allocate_pdu2 takes the
 * room needed beyond that, and rpc_queue_pdu sends what was encoded; the
 * encoder is the PDU's ZDR, 16 bytes in (what rpc_nfs4_compound_async
 * itself passes), looked at once per client before the first big WRITE:
 * a library laid out otherwise sends big WRITEs the semantic way, counted
 * as larger than the transfer size.
 */
struct rpc_pdu;
struct rpc_pdu *rpc_allocate_pdu2(struct rpc_context *rpc, int program, int version, int procedure, rpc_cb cb,
				  void *private_data, zdrproc_t zdr_decode_fn, int zdr_decode_bufsize, size_t alloc_hint);
int rpc_queue_pdu(struct rpc_context *rpc, struct rpc_pdu *pdu);
void rpc_free_pdu(struct rpc_context *rpc, struct rpc_pdu *pdu);
#define PDU_ZDR_OFFSET 16
#define PDU_ENCODE_MIN 4096

/* ---- sending ---- */

bool rp__nfs4x_big_ok(struct rpc_context *rpc)
{
	const size_t room = 1u << 16;
	struct rpc_pdu *const pdu = rpc_allocate_pdu2(rpc, NFS4_PROGRAM, NFS_V4, NFSPROC4_COMPOUND, NULL, NULL,
						      (zdrproc_t)zdr_COMPOUND4res, sizeof(COMPOUND4res), room);
	if (!pdu)
		return false;
	const ZDR *const z = (const ZDR *)(const void *)((const char *)pdu + PDU_ZDR_OFFSET);
	const bool ok = z->x_op == ZDR_ENCODE && z->size == (int)(PDU_ENCODE_MIN + room) && z->pos > 0 && z->pos <= 1024;
	rpc_free_pdu(rpc, pdu);
	return ok;
}

int rp__nfs4x_send(nfs_client *c, COMPOUND4args *a, rpc_cb cb, void *priv, size_t data)
{
	struct rpc_context *const rpc = nfs_get_rpc_context(c->nfs);
	if (data <= SMALL_DATA_MAX)
		return rpc_nfs4_compound_async(rpc, cb, a, priv);
	struct rpc_pdu *const pdu = rpc_allocate_pdu2(rpc, NFS4_PROGRAM, NFS_V4, NFSPROC4_COMPOUND, cb, priv,
						      (zdrproc_t)zdr_COMPOUND4res, sizeof(COMPOUND4res), data + 1024);
	if (!pdu)
		return -1;
	ZDR *const z = (ZDR *)(void *)((char *)pdu + PDU_ZDR_OFFSET);
	if (z->x_op != ZDR_ENCODE || z->size != (int)(PDU_ENCODE_MIN + data + 1024) || z->pos <= 0 || z->pos > 1024 ||
	    !zdr_COMPOUND4args(z, a)) {
		rpc_free_pdu(rpc, pdu);
		return -2;
	}
	if (rpc_queue_pdu(rpc, pdu) != 0) {
		rpc_free_pdu(rpc, pdu);
		return -1;
	}
	return 0;
}


void rp__nfs4x_resop(const COMPOUND4res *res, u_int i, nfs_resop4 *out)
{
	memcpy(out, (const char *)res->resarray.resarray_val + (size_t)i * sizeof(*out), sizeof(*out));
}

uint64_t rp__nfs4x_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool rp__nfs4x_map_get(nfs_client *c, const char *path, unsigned char *fh, uint32_t *len)
{
	if (!path)
		return false;
	pthread_mutex_lock(&c->group->lock);
	const void *p;
	size_t n;
	const bool ok = rp__nfs_fhmap_get(&c->group->fhmap, path, &p, &n);
	if (ok) {
		memcpy(fh, p, n);
		*len = (uint32_t)n;
	}
	pthread_mutex_unlock(&c->group->lock);
	return ok;
}

bool rp__nfs4x_map_parent(nfs_client *c, const char *path, unsigned char *fh, uint32_t *len, const char **name)
{
	if (!path)
		return false;
	pthread_mutex_lock(&c->group->lock);
	const void *p;
	size_t n, nlen;
	const bool ok = rp__nfs_fhmap_parent(&c->group->fhmap, path, &p, &n, name, &nlen);
	if (ok) {
		memcpy(fh, p, n);
		*len = (uint32_t)n;
	}
	pthread_mutex_unlock(&c->group->lock);
	return ok;
}

void rp__nfs4x_learn(nfs_client *c, const char *path, const void *fh, size_t len, int kind)
{
	if (!path || !fh || !len || len > RP_NFS_FH_MAX)
		return;
	pthread_mutex_lock(&c->group->lock);
	(void)rp__nfs_fhmap_set(&c->group->fhmap, path, fh, len, kind);
	pthread_mutex_unlock(&c->group->lock);
}

void rp__nfs4x_absent(nfs_client *c, const char *path)
{
	pthread_mutex_lock(&c->group->lock);
	(void)rp__nfs_fhmap_absent(&c->group->fhmap, path);
	pthread_mutex_unlock(&c->group->lock);
}

/* ---- the SETCLIENTID handshake, synchronous at client start ---- */

typedef struct sync_res {
	bool done;
	int rpc_status;
	nfsstat4 status;
	uint64_t clientid;
	char verf[NFS4_VERIFIER_SIZE];
	uint32_t lease_s; /* a GETATTR's lease_time (0: none in the reply) */
} sync_res;

/* lease_time (a uint32 of seconds, RFC 7530 §5.8.1.11) of a GETATTR's reply that asked for it alone. */
static uint32_t lease_of(const nfs_resop4 *r)
{
	if (r->resop != OP_GETATTR || r->nfs_resop4_u.opgetattr.status != NFS4_OK)
		return 0;
	const fattr4 *const f = &r->nfs_resop4_u.opgetattr.GETATTR4res_u.resok4.obj_attributes;
	uint32_t mask0 = 0;
	if (f->attrmask.bitmap4_len >= 1)
		memcpy(&mask0, f->attrmask.bitmap4_val, sizeof(mask0));
	if (!(mask0 & (1u << FATTR4_LEASE_TIME)) || f->attr_vals.attrlist4_len < 4)
		return 0;
	const unsigned char *const p = (const unsigned char *)f->attr_vals.attrlist4_val;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void sync_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	sync_res *const r = priv;
	r->done = true;
	r->rpc_status = status;
	const COMPOUND4res *const res = data;
	if (status != RPC_STATUS_SUCCESS || !res)
		return;
	r->status = res->status;
	if (res->status != NFS4_OK || res->resarray.resarray_len < 1)
		return;
	nfs_resop4 r0;
	rp__nfs4x_resop(res, res->resarray.resarray_len - 1, &r0);
	r->lease_s = lease_of(&r0);
	if (r0.resop == OP_SETCLIENTID) {
		const SETCLIENTID4resok *const ok = &r0.nfs_resop4_u.opsetclientid.SETCLIENTID4res_u.resok4;
		r->clientid = ok->clientid;
		memcpy(r->verf, ok->setclientid_confirm, sizeof(r->verf));
	}
}

/* A COMPOUND of n_ops ops, waited for; its last op's result in r. */
static int sync_call(nfs_client *c, nfs_argop4 *op, u_int n_ops, sync_res *r)
{
	struct rpc_context *const rpc = nfs_get_rpc_context(c->nfs);
	COMPOUND4args a = { .minorversion = 0, .argarray = { .argarray_len = n_ops, .argarray_val = op } };
	memset(r, 0, sizeof(*r));
	if (rpc_nfs4_compound_async(rpc, sync_cb, &a, r) < 0)
		return -1;
	while (!r->done) {
		struct pollfd p = { .fd = nfs_get_fd(c->nfs), .events = (short)nfs_which_events(c->nfs) };
		const int n = poll(&p, 1, SYNC_TIMEOUT_MS);
		if (n <= 0 || nfs_service(c->nfs, p.revents) < 0)
			return -1;
	}
	return r->rpc_status == RPC_STATUS_SUCCESS && r->status == NFS4_OK ? 0 : -1;
}

int rp__nfs4_exact_init(nfs_client *c, char *errbuf)
{
	const struct nfs_fh3 *const root = nfs_get_rootfh(c->nfs);
	/* struct nfs_fh3 is {len, val}: the root handle libnfs's v4 mount looked up. */
	const struct { int len; char *val; } *const rh = (const void *)root;
	if (!rh || !rh->val || rh->len <= 0 || (unsigned)rh->len > RP_NFS_FH_MAX)
		return rp_fail(errbuf, RP_E_IO, "%s: the mount gave no root file handle (exact mode)", c->nb->url);
	struct nfs4x *const x = calloc(1, sizeof(*x));
	if (!x)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	x->wq_tail = &x->wq;
	const unsigned id = atomic_fetch_add_explicit(&c->nb->contexts, 1u, memory_order_relaxed);
	char name[96];
	const int nlen = snprintf(name, sizeof(name), "reprise-exact-%ld-%u-%llx", (long)getpid(), id,
				  (unsigned long long)rp__nfs4x_now_ns());
	x->id = id;
	nfs_argop4 op;
	memset(&op, 0, sizeof(op));
	op.argop = OP_SETCLIENTID;
	SETCLIENTID4args *const sa = &op.nfs_argop4_u.opsetclientid;
	const uint64_t v = rp__nfs4x_now_ns() ^ ((uint64_t)id << 48);
	memcpy(sa->client.verifier, &v, sizeof(v));
	sa->client.id.id_len = (u_int)nlen;
	sa->client.id.id_val = name;
	/* No callback service: the server only finds it unreachable and delegates nothing. */
	sa->callback.cb_program = 0;
	sa->callback.cb_location.r_netid = (char *)"tcp";
	sa->callback.cb_location.r_addr = (char *)"127.0.0.1.0.0";
	sync_res r;
	if (sync_call(c, &op, 1, &r) < 0) {
		free(x);
		return rp_fail(errbuf, RP_E_IO, "%s: SETCLIENTID for exact mode failed (%s)", c->nb->url,
			       r.rpc_status ? "no reply" : rp_status_proto_name(RP_SK_NFS4, r.status));
	}
	memset(&op, 0, sizeof(op));
	op.argop = OP_SETCLIENTID_CONFIRM;
	op.nfs_argop4_u.opsetclientid_confirm.clientid = r.clientid;
	memcpy(op.nfs_argop4_u.opsetclientid_confirm.setclientid_confirm, r.verf, sizeof(r.verf));
	x->clientid = r.clientid;
	if (sync_call(c, &op, 1, &r) < 0) {
		free(x);
		return rp_fail(errbuf, RP_E_IO, "%s: SETCLIENTID_CONFIRM for exact mode failed", c->nb->url);
	}
	/* The server's lease: a third of it between renewals (a GETATTR of the root's lease_time). */
	nfs_argop4 ga[2];
	memset(ga, 0, sizeof(ga));
	ga[0].argop = OP_PUTFH;
	ga[0].nfs_argop4_u.opputfh.object.nfs_fh4_len = (u_int)rh->len;
	ga[0].nfs_argop4_u.opputfh.object.nfs_fh4_val = rh->val;
	uint32_t lease_mask[1] = { 1u << FATTR4_LEASE_TIME };
	ga[1].argop = OP_GETATTR;
	ga[1].nfs_argop4_u.opgetattr.attr_request.bitmap4_len = 1;
	ga[1].nfs_argop4_u.opgetattr.attr_request.bitmap4_val = lease_mask;
	const uint32_t lease_s = sync_call(c, ga, 2, &r) == 0 && r.lease_s ? r.lease_s : LEASE_DEFAULT_S;
	x->renew_ns = (uint64_t)lease_s * 1000000000ull / 3;
	if (x->renew_ns < RENEW_MIN_NS)
		x->renew_ns = RENEW_MIN_NS;
	x->last_ns = rp__nfs4x_now_ns();
	c->x4 = x;
	pthread_mutex_lock(&c->group->lock);
	if (!c->group->fhmap.have_root)
		rp__nfs_fhmap_set_root(&c->group->fhmap, rh->val, (size_t)rh->len);
	pthread_mutex_unlock(&c->group->lock);
	return 0;
}

/* ---- the lease, renewed by a RENEW of our own through a gap of the trace ---- */

static void renew_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	(void)status;
	(void)data;
	nfs_client *const c = priv;
	/* Its status is not the trace's: a lease lost shows in the next op of the trace that needs it. */
	if (c->x4)
		c->x4->renewing = false;
}

void rp__nfs4x_renew(nfs_client *c)
{
	struct nfs4x *const x = c->x4;
	if (!x || x->renewing || c->lost)
		return;
	const uint64_t now = rp__nfs4x_now_ns();
	if (now - x->last_ns < x->renew_ns)
		return;
	nfs_argop4 op;
	memset(&op, 0, sizeof(op));
	op.argop = OP_RENEW;
	op.nfs_argop4_u.oprenew.clientid = x->clientid;
	COMPOUND4args a = { .minorversion = 0, .argarray = { .argarray_len = 1, .argarray_val = &op } };
	/* Tried again a period later when it cannot be queued. */
	x->last_ns = now;
	if (rpc_nfs4_compound_async(nfs_get_rpc_context(c->nfs), renew_cb, &a, c) < 0)
		return;
	x->renewing = true;
	atomic_fetch_add_explicit(&c->nb->renewals, 1u, memory_order_relaxed);
}

void rp__nfs4x_listed(nreq *q, const COMPOUND4res *res)
{
	nfs_resop4 rc;
	const READDIR4resok *ok = NULL;
	for (u_int i = 0; i < res->resarray.resarray_len && !ok; i++) {
		rp__nfs4x_resop(res, i, &rc);
		if (rc.resop == OP_READDIR)
			ok = &rc.nfs_resop4_u.opreaddir.READDIR4res_u.resok4;
	}
	if (!ok)
		return;
	uint64_t n = 0, last = 0;
	for (const entry4 *p = ok->reply.entries; p && n < UINT32_MAX; n++) {
		entry4 e;
		memcpy(&e, p, sizeof(e)); /* unaligned, as every struct the decoder packs */
		last = e.cookie;
		p = e.nextentry;
	}
	q->req->result = n;
	nfs_group *const g = q->c->group;
	pthread_mutex_lock(&g->lock);
	rp_nfs_fhnode *const d = rp__nfs_fhmap_node(&g->fhmap, q->path);
	if (d) {
		if (n)
			d->list_cookie = last;
		d->list_eof = ok->reply.eof != 0;
		d->list_known = true;
		memcpy(d->list_verf, ok->cookieverf, sizeof(d->list_verf));
	}
	pthread_mutex_unlock(&g->lock);
}

void rp__nfs4x_drop_pre(struct nfs4x *x)
{
	for (unsigned i = 0; i < x->n_pre; i++)
		free(x->pre[i]);
	x->n_pre = 0;
}



/* ---- open-owners ---- */

static xopen *open_of(struct nfs4x *x, const void *fh, size_t len, unsigned owner)
{
	for (unsigned i = 0; i < x->n_opens; i++)
		if (x->opens[i].owner == owner && x->opens[i].len == len && !memcmp(x->opens[i].fh, fh, len))
			return &x->opens[i];
	return NULL;
}

/* The first owner with no open of the file (fh NULL: a file not known yet, owner 0), or -1. */
int rp__nfs4x_pick_owner(struct nfs4x *x, const void *fh, size_t len)
{
	for (unsigned k = 0; k < OWNERS_MAX; k++) {
		const xopen *const o = fh ? open_of(x, fh, len, k) : NULL;
		if (!o || !o->refs)
			return (int)k;
	}
	return -1;
}

/* One handle more (d 1) or less (d -1) on owner's open of the file. */
void rp__nfs4x_open_ref(struct nfs4x *x, const void *fh, size_t len, unsigned owner, int d)
{
	xopen *o = open_of(x, fh, len, owner);
	if (!o && d > 0) {
		/* A free record, or a new one (bounded: past it opens are not told apart, the owner stays 0's). */
		for (unsigned i = 0; i < x->n_opens && !o; i++)
			if (!x->opens[i].refs)
				o = &x->opens[i];
		if (!o && x->n_opens < OPENS_MAX) {
			xopen *const a = realloc(x->opens, (x->n_opens + 1) * sizeof(*a));
			if (!a)
				return;
			x->opens = a;
			o = &x->opens[x->n_opens++];
		}
		if (!o)
			return;
		memcpy(o->fh, fh, len);
		o->len = (uint8_t)len;
		o->owner = (uint8_t)owner;
		o->refs = 0;
	}
	if (o && d > 0)
		o->refs++;
	else if (o && o->refs)
		o->refs--;
}

static u_int owner_name(const struct nfs4x *x, unsigned k, char *buf, size_t cap)
{
	return (u_int)snprintf(buf, cap, "reprise-owner-%u-%u-%u", x->id, k, x->own[k].gen);
}

nfs_argop4 *rp__nfs4x_add(cbuild *b, nfs_opnum4 op)
{
	nfs_argop4 *const a = &b->a[b->n++];
	memset(a, 0, sizeof(*a));
	a->argop = op;
	return a;
}

void rp__nfs4x_putfh(cbuild *b, unsigned char *fh, uint32_t len)
{
	nfs_argop4 *const a = rp__nfs4x_add(b, OP_PUTFH);
	a->nfs_argop4_u.opputfh.object.nfs_fh4_len = len;
	a->nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)fh;
}

void rp__nfs4x_getattr_type(cbuild *b)
{
	static uint32_t type_mask[1] = { 1u << FATTR4_TYPE };
	nfs_argop4 *const a = rp__nfs4x_add(b, OP_GETATTR);
	a->nfs_argop4_u.opgetattr.attr_request.bitmap4_len = 1;
	a->nfs_argop4_u.opgetattr.attr_request.bitmap4_val = type_mask;
}

static void put_be32(char *p, uint32_t v)
{
	p[0] = (char)(v >> 24);
	p[1] = (char)(v >> 16);
	p[2] = (char)(v >> 8);
	p[3] = (char)v;
}

static void put_be64(char *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static void put_time(char *p, size_t *at, bool client, uint64_t ns)
{
	put_be32(p + *at, client ? SET_TO_CLIENT_TIME4 : SET_TO_SERVER_TIME4);
	*at += 4;
	if (client) {
		put_be64(p + *at, ns / 1000000000u);
		put_be32(p + *at + 8, (uint32_t)(ns % 1000000000u));
		*at += 12;
	}
}

/* A fattr4 of size, mode and the times (values in attribute order); false for what it cannot carry (owners). */
bool rp__nfs4x_make_fattr(const nfs_client *c, cbuild *b, fattr4 *f, uint32_t attrs, uint64_t size, uint32_t mode,
		       const rp_op *op)
{
	const uint32_t ok = RP_SA_SIZE | RP_SA_MODE | RP_SA_ATIME | RP_SA_MTIME | RP_SA_ATIME_NOW | RP_SA_MTIME_NOW;
	if (attrs & ~ok)
		return false;
	size_t at = 0;
	b->mask[0] = b->mask[1] = 0;
	if (attrs & RP_SA_SIZE) {
		b->mask[0] |= 1u << FATTR4_SIZE;
		put_be64(b->attrs + at, size);
		at += 8;
	}
	if (attrs & RP_SA_MODE) {
		b->mask[1] |= 1u << (FATTR4_MODE - 32);
		put_be32(b->attrs + at, rp__nfs_mode(c, mode));
		at += 4;
	}
	if (attrs & (RP_SA_ATIME | RP_SA_ATIME_NOW)) {
		b->mask[1] |= 1u << (FATTR4_TIME_ACCESS_SET - 32);
		put_time(b->attrs, &at, (attrs & RP_SA_ATIME) != 0, op ? op->atime : 0);
	}
	if (attrs & (RP_SA_MTIME | RP_SA_MTIME_NOW)) {
		b->mask[1] |= 1u << (FATTR4_TIME_MODIFY_SET - 32);
		put_time(b->attrs, &at, (attrs & RP_SA_MTIME) != 0, op ? op->mtime : 0);
	}
	f->attrmask.bitmap4_len = b->mask[1] ? 2 : b->mask[0] ? 1 : 0;
	f->attrmask.bitmap4_val = b->mask;
	f->attr_vals.attrlist4_len = (u_int)at;
	f->attr_vals.attrlist4_val = b->attrs;
	return true;
}

void rp__nfs4x_sid_of(const nfile *f, stateid4 *s)
{
	memset(s, 0, sizeof(*s)); /* the anonymous stateid, for I/O on no open of ours */
	if (f && f->exact && f->sid_ok) {
		s->seqid = f->sid_seq;
		memcpy(s->other, f->sid_other, sizeof(s->other));
	}
}

void rp__nfs4x_component(component4 *s, const char *name)
{
	s->utf8string_len = (u_int)strlen(name);
	s->utf8string_val = (char *)name;
}

/* OPEN's arguments from the op's semantics: false for what an OPEN of NFSv4.0 with CLAIM_NULL is not. */
bool rp__nfs4x_open_args(nfs_client *c, cbuild *b, const rp_op *op, OPEN4args *o, const char *name, unsigned k)
{
	if (op->flags & RP_OPF_DIRECTORY)
		return false;
	uint32_t acc = op->proto == RP_PROTO_NFS4 ? op->raw.access & 3u : 0;
	if (!acc)
		acc = (op->want & (RP_WANT_WRITE | RP_WANT_APPEND)) ? (op->want & RP_WANT_READ ? 3u : 2u) : 1u;
	o->seqid = c->x4->own[k].seqid;
	o->share_access = acc;
	o->share_deny = OPEN4_SHARE_DENY_NONE;
	o->owner.clientid = c->x4->clientid;
	o->owner.owner.owner_len = owner_name(c->x4, k, b->owner, sizeof(b->owner));
	o->owner.owner.owner_val = b->owner;
	o->claim.claim = CLAIM_NULL;
	rp__nfs4x_component(&o->claim.open_claim4_u.file, name);
	createhow4 *const how = &o->openhow.openflag4_u.how;
	const uint32_t mode_attr = op->mode & 07777 ? RP_SA_MODE : 0;
	switch (op->disp) {
	case RP_DISP_OPEN:
		o->openhow.opentype = OPEN4_NOCREATE;
		return true;
	case RP_DISP_OPEN_IF:
	case RP_DISP_TRUNC_IF:
		o->openhow.opentype = OPEN4_CREATE;
		how->mode = UNCHECKED4;
		return rp__nfs4x_make_fattr(c, b, &how->createhow4_u.createattrs,
				  mode_attr | (op->disp == RP_DISP_TRUNC_IF ? RP_SA_SIZE : 0), 0, op->mode, NULL);
	case RP_DISP_CREATE:
		o->openhow.opentype = OPEN4_CREATE;
		if (op->oflags & RP_OF_EXCL_VERIFY) {
			how->mode = EXCLUSIVE4;
			const uint64_t v = atomic_fetch_add_explicit(&c->nb->verf, 1u, memory_order_relaxed) ^ c->x4->clientid;
			memcpy(how->createhow4_u.createverf, &v, sizeof(v));
			return true;
		}
		how->mode = GUARDED4;
		return rp__nfs4x_make_fattr(c, b, &how->createhow4_u.createattrs, mode_attr, 0, op->mode, NULL);
	default:
		return false; /* TRUNCATE, SUPERSEDE: no one OPEN */
	}
}

