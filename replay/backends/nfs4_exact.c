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

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs-raw-nfs4.h>
#include <nfsc/libnfs-raw.h>

#include "formats/semantics.h"
#include "formats/status.h"

/*
 * libnfs 4.0 encodes a COMPOUND into a fixed 4 KiB buffer (a WRITE past
 * 3,944 bytes fails to encode).  Its exported rpc_allocate_pdu2 takes the
 * room needed beyond that, and rpc_queue_pdu sends what was encoded; the
 * encoder is the PDU's ZDR, 16 bytes in (what rpc_nfs4_compound_async
 * itself passes), checked before use: a library laid out otherwise falls
 * back to small pieces, counted.
 */
struct rpc_pdu;
struct rpc_pdu *rpc_allocate_pdu2(struct rpc_context *rpc, int program, int version, int procedure, rpc_cb cb,
				  void *private_data, zdrproc_t zdr_decode_fn, int zdr_decode_bufsize, size_t alloc_hint);
int rpc_queue_pdu(struct rpc_context *rpc, struct rpc_pdu *pdu);
void rpc_free_pdu(struct rpc_context *rpc, struct rpc_pdu *pdu);
#define PDU_ZDR_OFFSET 16
#define PDU_ENCODE_MIN 4096
/* What the inline API encodes at most besides the header: the WRITE data above this goes the big way. */
#define SMALL_DATA_MAX 2048u

/* Leading LOOKUPs of one COMPOUND gathered (a deeper path is sent from its nearest known directory). */
#define PRE_MAX 16
/* Ops in one COMPOUND of ours: RENEW, PUTFH, PRE_MAX LOOKUPs, the op and its SAVEFH/PUTFH/GETFH/GETATTR. */
#define ARGS_MAX (PRE_MAX + 8)
/* A RENEW goes with the next COMPOUND once this long passed without one (ganesha's lease: 60 s). */
#define RENEW_NS (15ull * 1000000000ull)
/*
 * Open-owners per client.  A second OPEN of a file by one open-owner gets
 * the same open state back (upgraded), so a CLOSE of either ends both; each
 * open of a file that is open already goes by an owner of its own (its
 * first OPEN confirmed), as many at once as this.
 */
#define OWNERS_MAX 8
/* Files open at once per client (their owners' records). */
#define OPENS_MAX 4096
/* The SETCLIENTID handshake's wait per reply. */
#define SYNC_TIMEOUT_MS 30000

/* Per client. */
typedef struct wait_node {
	struct wait_node *next;
	rp_breq *req;
} wait_node;

/* An open-owner: its next seqid and its generation (a new name once the server refused a seqid). */
typedef struct owner4 {
	uint32_t seqid;
	uint32_t gen;
} owner4;

/* A file open by one of the owners (its handle), with how many handles of the trace's share that open. */
typedef struct xopen {
	unsigned char fh[RP_NFS_FH_MAX];
	uint8_t len, owner;
	unsigned refs;
} xopen;

struct nfs4x {
	uint64_t clientid;
	unsigned id;           /* this client state's number, in the owners' names */
	owner4 own[OWNERS_MAX];
	xopen *opens;
	unsigned n_opens;
	bool seq_busy;         /* an OPEN or CLOSE is in flight: the next waits (seqids go in order) */
	wait_node *wq, **wq_tail;
	uint64_t last_ns;      /* when the last COMPOUND went (renewal) */
	unsigned n_pre;        /* gathered LOOKUPs */
	char *pre[PRE_MAX];
};

enum { K_LOOKUP = 1, K_OPEN, K_CLOSE, K_READ, K_WRITE, K_COMMIT, K_GETATTR, K_SETATTR, K_REMOVE, K_RENAME, K_MKDIR,
       K_READDIR };

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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

static bool name_refused(const char *name)
{
	return !name[0] || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/');
}

static bool map_get(nfs_client *c, const char *path, unsigned char *fh, uint32_t *len)
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

static bool map_parent(nfs_client *c, const char *path, unsigned char *fh, uint32_t *len, const char **name)
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

static void learn(nfs_client *c, const char *path, const void *fh, size_t len, int kind)
{
	if (!path || !fh || !len || len > RP_NFS_FH_MAX)
		return;
	pthread_mutex_lock(&c->group->lock);
	(void)rp__nfs_fhmap_set(&c->group->fhmap, path, fh, len, kind);
	pthread_mutex_unlock(&c->group->lock);
}

static void absent(nfs_client *c, const char *path)
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
} sync_res;

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
	if (res->status == NFS4_OK && res->resarray.resarray_len >= 1 &&
	    res->resarray.resarray_val[0].resop == OP_SETCLIENTID) {
		const SETCLIENTID4resok *const ok =
			&res->resarray.resarray_val[0].nfs_resop4_u.opsetclientid.SETCLIENTID4res_u.resok4;
		r->clientid = ok->clientid;
		memcpy(r->verf, ok->setclientid_confirm, sizeof(r->verf));
	}
}

static int sync_call(nfs_client *c, nfs_argop4 *op, sync_res *r)
{
	struct rpc_context *const rpc = nfs_get_rpc_context(c->nfs);
	COMPOUND4args a = { .minorversion = 0, .argarray = { .argarray_len = 1, .argarray_val = op } };
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
				  (unsigned long long)now_ns());
	x->id = id;
	nfs_argop4 op;
	memset(&op, 0, sizeof(op));
	op.argop = OP_SETCLIENTID;
	SETCLIENTID4args *const sa = &op.nfs_argop4_u.opsetclientid;
	const uint64_t v = now_ns() ^ ((uint64_t)id << 48);
	memcpy(sa->client.verifier, &v, sizeof(v));
	sa->client.id.id_len = (u_int)nlen;
	sa->client.id.id_val = name;
	/* No callback service: the server only finds it unreachable and delegates nothing. */
	sa->callback.cb_program = 0;
	sa->callback.cb_location.r_netid = (char *)"tcp";
	sa->callback.cb_location.r_addr = (char *)"127.0.0.1.0.0";
	sync_res r;
	if (sync_call(c, &op, &r) < 0) {
		free(x);
		return rp_fail(errbuf, RP_E_IO, "%s: SETCLIENTID for exact mode failed (%s)", c->nb->url,
			       r.rpc_status ? "no reply" : rp_status_proto_name(RP_SK_NFS4, r.status));
	}
	memset(&op, 0, sizeof(op));
	op.argop = OP_SETCLIENTID_CONFIRM;
	op.nfs_argop4_u.opsetclientid_confirm.clientid = r.clientid;
	memcpy(op.nfs_argop4_u.opsetclientid_confirm.setclientid_confirm, r.verf, sizeof(r.verf));
	x->clientid = r.clientid;
	if (sync_call(c, &op, &r) < 0) {
		free(x);
		return rp_fail(errbuf, RP_E_IO, "%s: SETCLIENTID_CONFIRM for exact mode failed", c->nb->url);
	}
	x->last_ns = now_ns();
	c->x4 = x;
	pthread_mutex_lock(&c->group->lock);
	if (!c->group->fhmap.have_root)
		rp__nfs_fhmap_set_root(&c->group->fhmap, rh->val, (size_t)rh->len);
	pthread_mutex_unlock(&c->group->lock);
	return 0;
}

static void drop_pre(struct nfs4x *x)
{
	for (unsigned i = 0; i < x->n_pre; i++)
		free(x->pre[i]);
	x->n_pre = 0;
}

void rp__nfs4_exact_fini(nfs_client *c)
{
	struct nfs4x *const x = c->x4;
	if (!x)
		return;
	drop_pre(x);
	free(x->opens);
	for (wait_node *w = x->wq, *next; w; w = next) {
		next = w->next;
		rp__nfs_complete(c, w->req, EIO);
		free(w);
	}
	free(x);
	c->x4 = NULL;
}

/* ---- building a COMPOUND ---- */

typedef struct cbuild {
	nfs_argop4 a[ARGS_MAX];
	unsigned n;
	uint32_t mask[2];
	char attrs[64]; /* fattr4 values of a SETATTR, OPEN or CREATE */
	char owner[64]; /* an OPEN's open-owner name */
} cbuild;

/* ---- open-owners ---- */

static xopen *open_of(struct nfs4x *x, const void *fh, size_t len, unsigned owner)
{
	for (unsigned i = 0; i < x->n_opens; i++)
		if (x->opens[i].owner == owner && x->opens[i].len == len && !memcmp(x->opens[i].fh, fh, len))
			return &x->opens[i];
	return NULL;
}

/* The first owner with no open of the file (fh NULL: a file not known yet, owner 0), or -1. */
static int pick_owner(struct nfs4x *x, const void *fh, size_t len)
{
	for (unsigned k = 0; k < OWNERS_MAX; k++) {
		const xopen *const o = fh ? open_of(x, fh, len, k) : NULL;
		if (!o || !o->refs)
			return (int)k;
	}
	return -1;
}

/* One handle more (d 1) or less (d -1) on owner's open of the file. */
static void open_ref(struct nfs4x *x, const void *fh, size_t len, unsigned owner, int d)
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

static nfs_argop4 *add(cbuild *b, nfs_opnum4 op)
{
	nfs_argop4 *const a = &b->a[b->n++];
	memset(a, 0, sizeof(*a));
	a->argop = op;
	return a;
}

static void putfh(cbuild *b, unsigned char *fh, uint32_t len)
{
	nfs_argop4 *const a = add(b, OP_PUTFH);
	a->nfs_argop4_u.opputfh.object.nfs_fh4_len = len;
	a->nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)fh;
}

static void getattr_type(cbuild *b)
{
	static uint32_t type_mask[1] = { 1u << FATTR4_TYPE };
	nfs_argop4 *const a = add(b, OP_GETATTR);
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
static bool make_fattr(const nfs_client *c, cbuild *b, fattr4 *f, uint32_t attrs, uint64_t size, uint32_t mode,
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

static void sid_of(const nfile *f, stateid4 *s)
{
	memset(s, 0, sizeof(*s)); /* the anonymous stateid, for I/O on no open of ours */
	if (f && f->exact && f->sid_ok) {
		s->seqid = f->sid_seq;
		memcpy(s->other, f->sid_other, sizeof(s->other));
	}
}

/* ---- sending and replies ---- */

static void x4_cb(struct rpc_context *rpc, int status, void *data, void *priv);

/* Queue the COMPOUND (data: the bytes a WRITE carries): 0, or < 0 when it was not queued. */
static int send_compound(nfs_client *c, COMPOUND4args *a, nreq *q, size_t data)
{
	struct rpc_context *const rpc = nfs_get_rpc_context(c->nfs);
	c->x4->last_ns = now_ns();
	if (data <= SMALL_DATA_MAX)
		return rpc_nfs4_compound_async(rpc, x4_cb, a, q);
	struct rpc_pdu *const pdu = rpc_allocate_pdu2(rpc, NFS4_PROGRAM, NFS_V4, NFSPROC4_COMPOUND, x4_cb, q,
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

static void next_waiting(nfs_client *c);

/* The main op's path's new handle and kind, from the GETFH (and GETATTR of the type) after it. */
static void learn_reply(nfs_client *c, const nreq *q, const COMPOUND4res *res, int dflt_kind)
{
	const void *fh = NULL;
	size_t len = 0;
	int kind = dflt_kind;
	for (u_int i = 0; i < res->resarray.resarray_len; i++) {
		const nfs_resop4 *const r = &res->resarray.resarray_val[i];
		if (r->resop == OP_GETFH && r->nfs_resop4_u.opgetfh.status == NFS4_OK) {
			fh = r->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object.nfs_fh4_val;
			len = r->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object.nfs_fh4_len;
		} else if (r->resop == OP_GETATTR && r->nfs_resop4_u.opgetattr.status == NFS4_OK) {
			const fattr4 *const f = &r->nfs_resop4_u.opgetattr.GETATTR4res_u.resok4.obj_attributes;
			if (f->attrmask.bitmap4_len >= 1 && (f->attrmask.bitmap4_val[0] & (1u << FATTR4_TYPE)) &&
			    f->attr_vals.attrlist4_len >= 4) {
				const unsigned char *const p = (const unsigned char *)f->attr_vals.attrlist4_val;
				const uint32_t t = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
				kind = t == NF4REG ? RP_NFS_FK_FILE : t == NF4DIR ? RP_NFS_FK_DIR : t == NF4LNK ? RP_NFS_FK_LINK
											  : RP_NFS_FK_OTHER;
			}
		}
	}
	if (fh)
		learn(c, q->path, fh, len, kind);
}

/* OPEN's reply: a handle of ours with the server's stateid; an OPEN_CONFIRM to follow when it asks (true: sent). */
static int opened(nreq *q, const COMPOUND4res *res, bool *confirm)
{
	nfs_client *const c = q->c;
	const OPEN4resok *ok = NULL;
	for (u_int i = 0; i < res->resarray.resarray_len; i++)
		if (res->resarray.resarray_val[i].resop == OP_OPEN)
			ok = &res->resarray.resarray_val[i].nfs_resop4_u.opopen.OPEN4res_u.resok4;
	learn_reply(c, q, res, RP_NFS_FK_FILE);
	unsigned char fh[RP_NFS_FH_MAX];
	uint32_t len = 0;
	if (!ok || !map_get(c, q->path, fh, &len))
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
	open_ref(c->x4, fh, len, q->xowner, 1);
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
	putfh(&b, f->xfh, f->xfhlen);
	nfs_argop4 *const a = add(&b, OP_OPEN_CONFIRM);
	sid_of(f, &a->nfs_argop4_u.opopen_confirm.open_stateid);
	a->nfs_argop4_u.opopen_confirm.seqid = c->x4->own[q->xowner].seqid;
	COMPOUND4args ca = { .argarray = { .argarray_len = b.n, .argarray_val = b.a } };
	q->xstage = 1;
	return send_compound(c, &ca, q, 0) == 0;
}

/* A listing's reply: its entries counted, where it ended kept for the next READDIR of the directory. */
static void listed(nreq *q, const COMPOUND4res *res)
{
	const READDIR4resok *ok = NULL;
	for (u_int i = 0; i < res->resarray.resarray_len; i++)
		if (res->resarray.resarray_val[i].resop == OP_READDIR)
			ok = &res->resarray.resarray_val[i].nfs_resop4_u.opreaddir.READDIR4res_u.resok4;
	if (!ok)
		return;
	uint64_t n = 0, last = 0;
	for (const entry4 *e = ok->reply.entries; e && n < UINT32_MAX; e = e->nextentry, n++)
		last = e->cookie;
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

static void x4_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	nreq *const q = priv;
	nfs_client *const c = q->c;
	const bool seq = q->xproc == K_OPEN || q->xproc == K_CLOSE;
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
	 * for a new owner of the next generation (seqid 0, confirmed anew).
	 */
	owner4 *const ow = &c->x4->own[q->xowner < OWNERS_MAX ? q->xowner : 0];
	for (u_int i = 0; seq && i < res->resarray.resarray_len; i++) {
		const nfs_resop4 *const r = &res->resarray.resarray_val[i];
		if (r->resop != OP_OPEN && r->resop != OP_OPEN_CONFIRM && r->resop != OP_CLOSE)
			continue;
		const nfsstat4 s4 = r->nfs_resop4_u.opopen.status;
		if (s4 == NFS4ERR_BAD_SEQID) {
			ow->gen++;
			ow->seqid = 0;
		} else if (rp__nfs4_seqid_moves((uint32_t)s4)) {
			ow->seqid++;
		}
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
			absent(c, q->path);
		break;
	case K_MKDIR:
		if (!st)
			learn_reply(c, q, res, RP_NFS_FK_DIR);
		break;
	case K_OPEN:
		if (q->xstage == 1) {
			nfile *const f = (nfile *)(uintptr_t)q->req->bh;
			const nfs_resop4 *const r = res->resarray.resarray_len >= 2 ? &res->resarray.resarray_val[1] : NULL;
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
			open_ref(c->x4, f->xfh, f->xfhlen, f->owner, -1);
		rp__nfs_release(c, q->req->bh);
		q->req->bh = 0;
		break;
	}
	case K_READ:
	case K_WRITE:
		for (u_int i = 0; !st && i < res->resarray.resarray_len; i++) {
			const nfs_resop4 *const r = &res->resarray.resarray_val[i];
			if (r->resop == OP_READ)
				q->req->result = r->nfs_resop4_u.opread.READ4res_u.resok4.data.data_len;
			else if (r->resop == OP_WRITE)
				q->req->result = r->nfs_resop4_u.opwrite.WRITE4res_u.resok4.count;
		}
		break;
	case K_REMOVE:
		if (st == 0 || st == ENOENT)
			absent(c, q->path);
		break;
	case K_READDIR:
		if (!st)
			listed(q, res);
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
	default: return 0;
	}
}

static bool names_dir(unsigned k)
{
	return k == K_LOOKUP || k == K_OPEN || k == K_REMOVE || k == K_RENAME || k == K_MKDIR;
}

static const char *last_name(const char *path)
{
	const char *const s = strrchr(path, '/');
	return s ? s + 1 : path;
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
	    map_parent(c, x->pre[0], fh, len, &name0)) {
		putfh(b, fh, *len);
		for (unsigned i = 0; i < x->n_pre; i++) {
			const char *const nm = last_name(x->pre[i]);
			if (name_refused(nm))
				return false;
			nfs_argop4 *const a = add(b, OP_LOOKUP);
			a->nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)strlen(nm);
			a->nfs_argop4_u.oplookup.objname.utf8string_val = (char *)nm;
		}
		return true;
	}
	const char *nm;
	if (dir_of ? !map_parent(c, at, fh, len, &nm) : !map_get(c, at, fh, len))
		return false;
	putfh(b, fh, *len);
	return true;
}

static void component(component4 *s, const char *name)
{
	s->utf8string_len = (u_int)strlen(name);
	s->utf8string_val = (char *)name;
}

/* OPEN's arguments from the op's semantics: false for what an OPEN of NFSv4.0 with CLAIM_NULL is not. */
static bool open_args(nfs_client *c, cbuild *b, const rp_op *op, OPEN4args *o, const char *name, unsigned k)
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
	component(&o->claim.open_claim4_u.file, name);
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
		return make_fattr(c, b, &how->createhow4_u.createattrs,
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
		return make_fattr(c, b, &how->createhow4_u.createattrs, mode_attr, 0, op->mode, NULL);
	default:
		return false; /* TRUNCATE, SUPERSEDE: no one OPEN */
	}
}

static void send_built(nfs_client *c, cbuild *b, nreq *q, size_t data, bool seq)
{
	struct nfs4x *const x = c->x4;
	COMPOUND4args ca = { .argarray = { .argarray_len = b->n, .argarray_val = b->a } };
	const unsigned pre = x->n_pre;
	const int rc = send_compound(c, &ca, q, data);
	drop_pre(x);
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
	if ((k == K_CLOSE || k == K_READ || k == K_WRITE || k == K_COMMIT) && !(f && f->exact))
		return fall_back(c, req, RP_NFS_FB_NO_FH); /* an open the semantic path made: its own state */
	if (k == K_RENAME && (op->oflags || !req->path2))
		return fall_back(c, req, RP_NFS_FB_RAW);
	if (k == K_CLOSE && (f->owner >= OWNERS_MAX || f->gen != x->own[f->owner].gen)) {
		/* Its owner was given up (BAD_SEQID): no seqid of it is right now; the open is let go unclosed. */
		(void)fall_back(c, req, RP_NFS_FB_OWNER_LOST);
		open_ref(x, f->xfh, f->xfhlen, f->owner, -1);
		rp__nfs_release(c, req->bh);
		req->bh = 0;
		rp__nfs_complete(c, req, 0);
		return true;
	}
	const bool seq = k == K_OPEN || k == K_CLOSE;
	cbuild *const b = malloc(sizeof(*b));
	if (!b) {
		rp__nfs_complete(c, req, ENOMEM);
		return true;
	}
	b->n = 0;
	if (now_ns() - x->last_ns > RENEW_NS)
		add(b, OP_RENEW)->nfs_argop4_u.oprenew.clientid = x->clientid;
	unsigned char fh[RP_NFS_FH_MAX], fh2[RP_NFS_FH_MAX];
	uint32_t len = 0, len2 = 0;
	const char *const at = req->path ? req->path : "";
	bool ok;
	if (f && f->exact && !names_dir(k)) {
		memcpy(fh, f->xfh, f->xfhlen);
		len = f->xfhlen;
		putfh(b, fh, len);
		ok = true;
	} else {
		ok = set_current(c, b, at, names_dir(k), fh, &len);
	}
	if (!ok) {
		free(b);
		drop_pre(x);
		return fall_back(c, req, names_dir(k) ? RP_NFS_FB_NO_PARENT : RP_NFS_FB_NO_FH);
	}
	const char *const name = last_name(at);
	if (names_dir(k) && name_refused(name)) {
		free(b);
		drop_pre(x);
		req->escape = true;
		rp__nfs_complete(c, req, EXDEV);
		return true;
	}
	size_t data = 0;
	unsigned owner = 0;
	nfs_argop4 *a;
	switch (k) {
	case K_LOOKUP:
		component(&add(b, OP_LOOKUP)->nfs_argop4_u.oplookup.objname, name);
		add(b, OP_GETFH);
		getattr_type(b);
		break;
	case K_MKDIR:
		a = add(b, OP_CREATE);
		a->nfs_argop4_u.opcreate.objtype.type = NF4DIR;
		component(&a->nfs_argop4_u.opcreate.objname, name);
		(void)make_fattr(c, b, &a->nfs_argop4_u.opcreate.createattrs, op->mode & 07777 ? RP_SA_MODE : 0, 0,
				 op->mode, NULL);
		add(b, OP_GETFH);
		break;
	case K_OPEN: {
		/* The owner: the first with no open of the file (as the map knows it). */
		unsigned char ofh[RP_NFS_FH_MAX];
		uint32_t olen = 0;
		const bool known = map_get(c, at, ofh, &olen);
		const int ko = pick_owner(x, known ? ofh : NULL, olen);
		if (ko < 0) {
			free(b);
			drop_pre(x);
			return fall_back(c, req, RP_NFS_FB_OWNERS);
		}
		owner = (unsigned)ko;
		a = add(b, OP_OPEN);
		ok = open_args(c, b, op, &a->nfs_argop4_u.opopen, name, owner);
		add(b, OP_GETFH);
		break;
	}
	case K_CLOSE:
		owner = f->owner;
		a = add(b, OP_CLOSE);
		a->nfs_argop4_u.opclose.seqid = x->own[owner].seqid;
		sid_of(f, &a->nfs_argop4_u.opclose.open_stateid);
		break;
	case K_READ:
		a = add(b, OP_READ);
		sid_of(f, &a->nfs_argop4_u.opread.stateid);
		a->nfs_argop4_u.opread.offset = op->offset;
		a->nfs_argop4_u.opread.count = (count4)op->length;
		break;
	case K_WRITE:
		a = add(b, OP_WRITE);
		sid_of(f, &a->nfs_argop4_u.opwrite.stateid);
		a->nfs_argop4_u.opwrite.offset = op->offset;
		a->nfs_argop4_u.opwrite.stable = op->flags & RP_OPF_STABLE ? FILE_SYNC4 : UNSTABLE4;
		a->nfs_argop4_u.opwrite.data.data_len = (u_int)op->length;
		a->nfs_argop4_u.opwrite.data.data_val = req->zero ? c->zbuf : c->wbuf;
		data = op->length;
		break;
	case K_COMMIT:
		a = add(b, OP_COMMIT);
		a->nfs_argop4_u.opcommit.offset = op->offset;
		a->nfs_argop4_u.opcommit.count = op->length > UINT32_MAX ? 0 : (count4)op->length;
		break;
	case K_GETATTR: {
		static uint32_t stat_mask[2] = { 1u << FATTR4_TYPE | 1u << FATTR4_CHANGE | 1u << FATTR4_SIZE |
						 1u << FATTR4_FILEID,
						 1u << (FATTR4_MODE - 32) | 1u << (FATTR4_NUMLINKS - 32) |
						 1u << (FATTR4_TIME_MODIFY - 32) };
		a = add(b, OP_GETATTR);
		a->nfs_argop4_u.opgetattr.attr_request.bitmap4_len = 2;
		a->nfs_argop4_u.opgetattr.attr_request.bitmap4_val = stat_mask;
		break;
	}
	case K_SETATTR:
		a = add(b, OP_SETATTR);
		sid_of(f, &a->nfs_argop4_u.opsetattr.stateid);
		ok = make_fattr(c, b, &a->nfs_argop4_u.opsetattr.obj_attributes, op->attrs, op->length, op->mode, op);
		if (!ok) {
			free(b);
			drop_pre(x);
			return fall_back(c, req, RP_NFS_FB_ATTRS);
		}
		break;
	case K_REMOVE:
		component(&add(b, OP_REMOVE)->nfs_argop4_u.opremove.target, name);
		break;
	case K_READDIR: {
		/* The recorded cookie is the original server's: a listing that goes on, goes on from our own. */
		static uint32_t list_mask[2] = { 1u << FATTR4_TYPE | 1u << FATTR4_FILEID, 0 };
		a = add(b, OP_READDIR);
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
				free(b);
				drop_pre(x);
				return fall_back(c, req, RP_NFS_FB_COOKIE);
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
		if (!map_parent(c, req->path2, fh2, &len2, &nm2) || name_refused(nm2)) {
			free(b);
			drop_pre(x);
			return fall_back(c, req, RP_NFS_FB_NO_PARENT);
		}
		add(b, OP_SAVEFH);
		putfh(b, fh2, len2);
		a = add(b, OP_RENAME);
		component(&a->nfs_argop4_u.oprename.oldname, name);
		component(&a->nfs_argop4_u.oprename.newname, nm2);
		break;
	}
	default:
		ok = false;
		break;
	}
	if (!ok) {
		free(b);
		drop_pre(x);
		return fall_back(c, req, RP_NFS_FB_RAW);
	}
	nreq *const q = rp__nfs_req_new(c, req);
	if (!q) {
		free(b);
		drop_pre(x);
		return true;
	}
	q->step = S_SIMPLE;
	q->reply = NULL;
	q->xproc = k;
	q->xstage = 0;
	q->xowner = (uint8_t)owner;
	if (rp__nfs_changes_names(op->op))
		rp__nfs_names_changed(c, q->path, q->path2);
	send_built(c, b, q, data, seq);
	free(b);
	return true;
}

/* Seqid ops wait their turn: one OPEN or CLOSE of the open-owner on the wire at a time. */
static void next_waiting(nfs_client *c)
{
	struct nfs4x *const x = c->x4;
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
		drop_pre(x);
		return fall_back(c, req, RP_NFS_FB_NOT_NFS4);
	}
	if (op->flags & RP_OPF_SESSION) {
		drop_pre(x);
		return fall_back(c, req, RP_NFS_FB_SESSION);
	}
	const unsigned k = kind_of_op(op);
	if (!k) {
		drop_pre(x);
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
	if ((k == K_OPEN || k == K_CLOSE) && x->seq_busy) {
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
