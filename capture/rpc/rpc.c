/* ONC RPC messages -> program decoders, with call/reply matching by (conn, xid) (RFC 5531, RFC 2203). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/rpc/rpc.h"

enum { MSG_CALL = 0, MSG_REPLY = 1 };
enum { AUTH_NONE = 0, AUTH_SYS = 1, RPCSEC_GSS = 6 };
enum { GSS_DATA = 0 };
enum { GSS_SVC_NONE = 1, GSS_SVC_INTEGRITY = 2, GSS_SVC_PRIVACY = 3 };

/* RFC 5531 §8.2: an opaque_auth body is at most MAX_AUTH_BYTES. */
#define MAX_AUTH_BYTES 400
/* AUTH_SYS limits (RFC 5531 appendix A): machinename<255>, gids<16>. */
#define AUTH_SYS_NAME_MAX 255
#define AUTH_SYS_GIDS_MAX 16
/* Calls awaiting (or recently given) a reply.  Past this many the oldest is
 * forgotten, so a capture of calls whose replies were not captured cannot make
 * memory grow without limit; its op still goes out, as unmatched, from capctx. */
#define CALLS_MAX (1u << 16)
/*
 * Replies that arrive before their call.  TCP reassembly may finish a call
 * that lost segments (and so is delivered cut short) only after its reply has
 * gone through the other direction.  Such a reply is counted unmatched when it
 * comes, kept for a while, and still completes the call if the call turns up
 * on the same connection with an earlier time.  ORPHAN_BYTES bounds the copy:
 * every result reprise reads sits well inside it (READ data is never read).
 */
#define ORPHANS_MAX 64
#define ORPHAN_BYTES (64u * 1024u)

/*
 * A call entry lives for the match timeout (answered or not, to recognise
 * duplicates); the program's pending state only until the reply.  So that
 * state comes from a per-program pool and goes back to it at the reply, and
 * entries are recycled too: a steady stream of calls allocates nothing.
 */
typedef struct call_ent {
	struct call_ent *hnext;      /* hash chain; the free list's link once forgotten */
	struct call_ent *older, *newer; /* age list */
	uint64_t conn_id;
	uint64_t born;               /* capture ns of the call */
	const rp_rpc_prog *prog;     /* NULL: a call only matched, not decoded */
	rp_rpc_call call;
	uint8_t gss_service;         /* RPCSEC_GSS DATA calls: how the results are wrapped */
	uint8_t prog_index;          /* prog's place in decoded[] (its pending pool) */
	bool answered;               /* kept after its reply to recognise duplicates */
	void *pending;               /* prog->pending_size bytes until the reply or the drop; else NULL */
} call_ent;

/* A pending block on its pool's free list. */
typedef struct free_block {
	struct free_block *next;
} free_block;

#define N_DECODED 3

typedef struct orphan {
	uint64_t conn_id;
	uint64_t born; /* capture ns */
	rp_msg m;      /* m.data is owned (a copy of at most ORPHAN_BYTES) */
	uint32_t xid;
} orphan;

typedef struct calls {
	call_ent **buckets;
	size_t n_buckets, n;
	call_ent *oldest, *newest;
	call_ent *free_ents;                 /* recycled entries */
	free_block *free_pending[N_DECODED]; /* recycled pending blocks, per program */
	orphan orphans[ORPHANS_MAX]; /* in arrival order, n_orphans used */
	size_t n_orphans;
} calls;

static const int calls_key;

static void *calls_create(void)
{
	calls *const t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->n_buckets = 1024;
	t->buckets = calloc(t->n_buckets, sizeof(call_ent *));
	if (!t->buckets) {
		free(t);
		return NULL;
	}
	return t;
}

/* Teardown at the end of a capture: pending state of unanswered calls is released
 * through drop() with no capctx (their slots are capctx's and go out unmatched). */
static void calls_destroy(void *p)
{
	calls *const t = p;
	if (!t)
		return;
	for (call_ent *e = t->oldest; e;) {
		call_ent *const next = e->newer;
		if (e->pending && e->prog->drop)
			e->prog->drop(NULL, e->pending);
		free(e->pending);
		free(e);
		e = next;
	}
	while (t->free_ents) {
		call_ent *const e = t->free_ents;
		t->free_ents = e->hnext;
		free(e);
	}
	for (size_t i = 0; i < N_DECODED; i++)
		while (t->free_pending[i]) {
			free_block *const b = t->free_pending[i];
			t->free_pending[i] = b->next;
			free(b);
		}
	for (size_t i = 0; i < t->n_orphans; i++)
		free((void *)t->orphans[i].m.data);
	free(t->buckets);
	free(t);
}

static size_t bucket_of(const calls *t, uint64_t conn_id, uint32_t xid)
{
	uint64_t h = conn_id * 0x9e3779b97f4a7c15ull ^ xid;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (size_t)(h & (t->n_buckets - 1));
}

static call_ent *lookup(const calls *t, uint64_t conn_id, uint32_t xid)
{
	for (call_ent *e = t->buckets[bucket_of(t, conn_id, xid)]; e; e = e->hnext)
		if (e->conn_id == conn_id && e->call.xid == xid)
			return e;
	return NULL;
}

static void unlink_ent(calls *t, call_ent *e)
{
	for (call_ent **pp = &t->buckets[bucket_of(t, e->conn_id, e->call.xid)]; *pp; pp = &(*pp)->hnext)
		if (*pp == e) {
			*pp = e->hnext;
			break;
		}
	if (e->older)
		e->older->newer = e->newer;
	else
		t->oldest = e->newer;
	if (e->newer)
		e->newer->older = e->older;
	else
		t->newest = e->older;
	t->n--;
}

/* Give a call's pending state back to its program's pool. */
static void release_pending(calls *t, call_ent *e)
{
	if (!e->pending)
		return;
	free_block *const b = e->pending;
	b->next = t->free_pending[e->prog_index];
	t->free_pending[e->prog_index] = b;
	e->pending = NULL;
}

/* Forget a call: an unanswered one releases its pending state (its op slots stay
 * with capctx, which emits them as unmatched when they time out). */
static void forget(rp_capctx *cx, calls *t, call_ent *e)
{
	unlink_ent(t, e);
	if (e->pending && e->prog->drop)
		e->prog->drop(cx, e->pending);
	release_pending(t, e);
	e->hnext = t->free_ents;
	t->free_ents = e;
}

static void grow(calls *t)
{
	const size_t nb = t->n_buckets * 2;
	call_ent **const b = calloc(nb, sizeof(call_ent *));
	if (!b)
		return;
	t->n_buckets = nb;
	for (call_ent *e = t->oldest; e; e = e->newer) {
		const size_t i = bucket_of(t, e->conn_id, e->call.xid);
		e->hnext = b[i];
		b[i] = e;
	}
	free(t->buckets);
	t->buckets = b;
}

static call_ent *insert(rp_capctx *cx, calls *t, uint64_t conn_id, const rp_rpc_call *call,
			const rp_rpc_prog *prog, uint8_t prog_index)
{
	while (t->n >= CALLS_MAX && t->oldest)
		forget(cx, t, t->oldest);
	if (t->n >= t->n_buckets)
		grow(t);
	void *pending = NULL;
	if (prog) {
		/* the program's state starts zeroed, whether fresh or recycled */
		const size_t psize = prog->pending_size > sizeof(free_block) ? prog->pending_size : sizeof(free_block);
		free_block *const b = t->free_pending[prog_index];
		if (b) {
			t->free_pending[prog_index] = b->next;
			pending = memset(b, 0, psize);
		} else if (!(pending = calloc(1, psize))) {
			return NULL;
		}
	}
	call_ent *e = t->free_ents;
	if (e) {
		t->free_ents = e->hnext;
		memset(e, 0, sizeof(*e));
	} else if (!(e = calloc(1, sizeof(*e)))) {
		free(pending);
		return NULL;
	}
	e->pending = pending;
	e->prog_index = prog_index;
	e->conn_id = conn_id;
	e->born = rp__cap_time(cx, call->ts_ns);
	e->prog = prog;
	e->call = *call;
	const size_t i = bucket_of(t, conn_id, call->xid);
	e->hnext = t->buckets[i];
	t->buckets[i] = e;
	e->older = t->newest;
	if (t->newest)
		t->newest->newer = e;
	else
		t->oldest = e;
	t->newest = e;
	t->n++;
	return e;
}

/* Forget calls older than the match timeout (answered or not). */
static void expire(rp_capctx *cx, calls *t)
{
	const uint64_t now = rp__cap_now(cx);
	const uint64_t timeout = rp__cap_opts(cx)->match_timeout_ns;
	while (t->oldest && now > t->oldest->born && now - t->oldest->born > timeout)
		forget(cx, t, t->oldest);
	size_t keep = 0;
	for (size_t i = 0; i < t->n_orphans; i++) {
		orphan *const o = &t->orphans[i];
		if (now > o->born && now - o->born > timeout)
			free((void *)o->m.data);
		else
			t->orphans[keep++] = *o;
	}
	t->n_orphans = keep;
}

/* Keep a reply that found no call, in case its call is delivered late. */
static void keep_orphan(calls *t, const rp_conn *conn, const rp_msg *m, uint32_t xid, uint64_t born)
{
	if (t->n_orphans == ORPHANS_MAX) {
		free((void *)t->orphans[0].m.data);
		memmove(&t->orphans[0], &t->orphans[1], (ORPHANS_MAX - 1) * sizeof(orphan));
		t->n_orphans--;
	}
	const size_t len = m->len < ORPHAN_BYTES ? m->len : ORPHAN_BYTES;
	uint8_t *const copy = malloc(len ? len : 1);
	if (!copy)
		return;
	memcpy(copy, m->data, len);
	orphan *const o = &t->orphans[t->n_orphans++];
	o->conn_id = conn->id;
	o->born = born;
	o->xid = xid;
	o->m = *m;
	o->m.data = copy;
	o->m.len = len;
	o->m.truncated = m->truncated || len < m->len;
}

/* Take the kept reply for (conn, xid) sent after t_call, if any; the caller frees its data. */
static bool take_orphan(calls *t, uint64_t conn_id, uint32_t xid, uint64_t ts_call, rp_msg *out)
{
	for (size_t i = 0; i < t->n_orphans; i++) {
		const orphan *const o = &t->orphans[i];
		if (o->conn_id == conn_id && o->xid == xid && o->m.ts_ns >= ts_call) {
			*out = o->m;
			memmove(&t->orphans[i], &t->orphans[i + 1], (t->n_orphans - i - 1) * sizeof(orphan));
			t->n_orphans--;
			return true;
		}
	}
	return false;
}

/* ---- programs ---- */

static const rp_rpc_prog *const decoded[] = { &rp__mount3_prog, &rp__nfs3_prog, &rp__nfs4_prog };

static const char *const nfs2_procs[] = { "NULL", "GETATTR", "SETATTR", "ROOT", "LOOKUP", "READLINK",
					  "READ", "WRITECACHE", "WRITE", "CREATE", "REMOVE", "RENAME",
					  "LINK", "SYMLINK", "MKDIR", "RMDIR", "READDIR", "STATFS" };
static const char *const mount_procs[] = { "NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT", "EXPORTALL",
					   "PATHCONF" };
static const char *const acl_procs[] = { "NULL", "GETACL", "SETACL", "GETATTR", "ACCESS", "GETXATTRDIR" };
static const char *const nlm_procs[] = { "NULL", "TEST", "LOCK", "CANCEL", "UNLOCK", "GRANTED", "TEST_MSG",
					 "LOCK_MSG", "CANCEL_MSG", "UNLOCK_MSG", "GRANTED_MSG", "TEST_RES",
					 "LOCK_RES", "CANCEL_RES", "UNLOCK_RES", "GRANTED_RES", "16", "17", "18",
					 "19", "SHARE", "UNSHARE", "NM_LOCK", "FREE_ALL" };
static const char *const pmap_procs[] = { "NULL", "SET", "UNSET", "GETPORT", "DUMP", "CALLIT", "GETTIME",
					  "UADDR2TADDR", "TADDR2UADDR", "GETVERSADDR", "INDIRECT",
					  "GETADDRLIST", "GETSTAT" };
static const char *const nsm_procs[] = { "NULL", "STAT", "MON", "UNMON", "UNMON_ALL", "SIMU_CRASH", "NOTIFY" };

/* RPC programs met beside NFS that reprise recognises but does not map to ops. */
typedef struct other_prog {
	uint32_t prog;
	const char *name;
	const char *sep;  /* between name and version: "NFSv2" but "NLM v4" */
	bool ignore;      /* no file operations at all: ignored, not unsupported */
	const char *const *procs;
	size_t n_procs;
} other_prog;

#define PROCS(a) a, sizeof(a) / sizeof(a[0])
static const other_prog others[] = {
	{ 100000, "PORTMAP", " ", true, PROCS(pmap_procs) },
	{ 100003, "NFS", "", false, PROCS(nfs2_procs) },  /* NFSv2: not decoded */
	{ 100005, "MOUNT", "", false, PROCS(mount_procs) }, /* MOUNT v1/v2 (for NFSv2) */
	{ 100011, "RQUOTA", " ", true, NULL, 0 },
	{ 100021, "NLM", " ", false, PROCS(nlm_procs) },
	{ 100024, "NSM", " ", true, PROCS(nsm_procs) },
	{ 100227, "NFS_ACL", " ", false, PROCS(acl_procs) },
	{ 0x40000000, "NFSv4 callback", " ", false, NULL, 0 },
};

/* Count a call to a program that is not decoded, by name: "NFS_ACL v3 GETACL". */
static void count_other(rp_capctx *cx, const rp_rpc_call *call)
{
	const other_prog *o = NULL;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (others[i].prog == call->prog)
			o = &others[i];
	char name[48];
	if (!o) {
		snprintf(name, sizeof(name), "RPC program %u v%u", call->prog, call->vers);
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, name);
		return;
	}
	char num[16];
	const char *proc = num;
	if (call->proc < o->n_procs)
		proc = o->procs[call->proc];
	else
		snprintf(num, sizeof(num), "%u", call->proc);
	snprintf(name, sizeof(name), "%s%sv%u %s", o->name, o->sep, call->vers, proc);
	/* Proc 0 of every program is a ping (RFC 5531 §12.1). */
	const bool mount_aux = call->prog == 100005 && call->proc != 1;
	rp__cap_count(cx, o->ignore || call->proc == 0 || mount_aux ? RP_OUT_IGNORED : RP_OUT_UNSUPPORTED, name);
}

_Static_assert(sizeof(decoded) / sizeof(decoded[0]) == N_DECODED, "one pending pool per decoded program");

static const rp_rpc_prog *find_prog(uint32_t prog, uint32_t vers, uint8_t *index)
{
	for (size_t i = 0; i < N_DECODED; i++)
		if (decoded[i]->prog == prog && decoded[i]->vers == vers) {
			*index = (uint8_t)i;
			return decoded[i];
		}
	return NULL;
}

/* ---- messages ---- */

static bool is_truncated(const rp_msg *m)
{
	return m->truncated || m->len < m->wire_len;
}

/* A message that could not be read: cut short, or breaking the rules. */
static void bad(rp_capctx *cx, const rp_msg *m)
{
	rp__cap_count(cx, is_truncated(m) ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
}

/* An opaque_auth (flavor + body<MAX_AUTH_BYTES>); returns the body as a sub-cursor.
 * *too_big says the length broke the limit (invalid, whether or not the message is cut). */
static rp_cur read_auth(rp_cur *c, uint32_t *flavor, bool *too_big)
{
	*flavor = rp_cur_be32(c);
	const uint32_t len = rp_cur_be32(c);
	if (!c->err && len > MAX_AUTH_BYTES) {
		*too_big = true;
		c->err = true;
	}
	if (c->err)
		return (rp_cur){ .err = true };
	rp_cur body = rp_cur_sub(c, len);
	rp_cur_skip(c, (4 - (len & 3)) & 3);
	return body;
}

static bool read_auth_sys(rp_cur body, rp_rpc_call *call)
{
	size_t n = 0;
	rp_cur_skip(&body, 4); /* stamp */
	(void)rp_cur_xdr_var(&body, AUTH_SYS_NAME_MAX, &n);
	call->uid = rp_cur_be32(&body);
	call->gid = rp_cur_be32(&body);
	const uint32_t ngids = rp_cur_be32(&body);
	if (ngids > AUTH_SYS_GIDS_MAX)
		return false;
	rp_cur_skip(&body, 4u * ngids);
	call->has_unix_cred = !body.err;
	return !body.err;
}

/* Unwrap an RPCSEC_GSS integrity body (RFC 2203 §5.3.2.2): opaque { seq_num; args } + checksum. */
static rp_cur gss_integ_body(rp_cur *c)
{
	const uint32_t len = rp_cur_be32(c);
	rp_cur body = rp_cur_sub(c, rp_cur_left(c) < len ? rp_cur_left(c) : len);
	rp_cur_skip(&body, 4); /* seq_num */
	return body;
}

static void on_reply(rp_capctx *cx, calls *t, rp_conn *conn, const rp_msg *m, rp_cur *c, uint32_t xid, bool again);

static void on_call(rp_capctx *cx, calls *t, rp_conn *conn, const rp_msg *m, rp_cur *c, uint32_t xid)
{
	rp_rpc_call call = { .xid = xid, .ts_ns = m->ts_ns, .frame = m->frame, .client_end = m->from,
			     .truncated = is_truncated(m) };
	const uint32_t rpcvers = rp_cur_be32(c);
	call.prog = rp_cur_be32(c);
	call.vers = rp_cur_be32(c);
	call.proc = rp_cur_be32(c);
	bool too_big = false;
	rp_cur cred = read_auth(c, &call.auth_flavor, &too_big);
	uint32_t verf_flavor = 0;
	(void)read_auth(c, &verf_flavor, &too_big);
	if (c->err && !too_big) {
		bad(cx, m);
		return;
	}
	if (too_big || rpcvers != 2) {
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return;
	}
	uint8_t gss_service = 0;
	bool gss_control = false;
	if (call.auth_flavor == AUTH_SYS && !read_auth_sys(cred, &call)) {
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return;
	}
	if (call.auth_flavor == RPCSEC_GSS) {
		rp_cur_skip(&cred, 4); /* version */
		const uint32_t gss_proc = rp_cur_be32(&cred);
		rp_cur_skip(&cred, 4); /* seq_num */
		const uint32_t service = rp_cur_be32(&cred);
		if (cred.err || service < GSS_SVC_NONE || service > GSS_SVC_PRIVACY) {
			rp__cap_count(cx, RP_OUT_INVALID, NULL);
			return;
		}
		gss_service = (uint8_t)service;
		gss_control = gss_proc != GSS_DATA;
	}
	rp__cap_count(cx, RP_OUT_MESSAGE, NULL);
	call.client = rp__cap_client(cx, conn, m->from, call.has_unix_cred ? call.uid : 0);

	call_ent *const prev = lookup(t, conn->id, xid);
	if (prev) {
		if (prev->call.prog == call.prog && prev->call.vers == call.vers && prev->call.proc == call.proc) {
			/* A retransmission (UDP timeout, or a resend after reconnect on
			 * the same flow): the first call keeps the op. */
			rp__cap_count(cx, RP_OUT_IGNORED, "RPC retransmission");
			return;
		}
		forget(cx, t, prev); /* the xid was reused for another call */
	}

	uint8_t prog_index = 0;
	const rp_rpc_prog *prog = find_prog(call.prog, call.vers, &prog_index);
	if (prog && gss_control) {
		rp__cap_count(cx, RP_OUT_IGNORED, "RPCSEC_GSS control");
		prog = NULL;
	} else if (prog && gss_service == GSS_SVC_PRIVACY) {
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, "RPCSEC_GSS privacy");
		prog = NULL;
	} else if (!prog) {
		count_other(cx, &call);
	}
	call_ent *const e = insert(cx, t, conn->id, &call, prog, prog_index);
	if (!e)
		return;
	if (prog) {
		e->gss_service = gss_service;
		rp_cur args = gss_service == GSS_SVC_INTEGRITY ? gss_integ_body(c) : *c;
		prog->call(cx, conn, &e->call, &args, e->pending);
	}
	rp_msg late;
	if (take_orphan(t, conn->id, xid, m->ts_ns, &late)) {
		rp_cur rc = rp_cur_make(late.data, late.len);
		rp_cur_skip(&rc, 8); /* xid, msg_type: read when it was kept */
		on_reply(cx, t, conn, &late, &rc, xid, true);
		free((void *)late.data);
	}
}

/* again: a kept reply, already counted, now meeting its late call. */
static void on_reply(rp_capctx *cx, calls *t, rp_conn *conn, const rp_msg *m, rp_cur *c, uint32_t xid, bool again)
{
	rp_rpc_reply rep = { .ts_ns = m->ts_ns, .frame = m->frame, .truncated = is_truncated(m) };
	rep.reply_stat = rp_cur_be32(c);
	if (rep.reply_stat == 0) {
		uint32_t verf_flavor = 0;
		bool too_big = false;
		(void)read_auth(c, &verf_flavor, &too_big);
		rep.accept_stat = rp_cur_be32(c);
	} else if (rep.reply_stat == 1) {
		rp_cur_skip(c, 4); /* reject_stat; what follows does not matter here */
	} else {
		c->err = true;
	}
	if (c->err) {
		bad(cx, m);
		return;
	}
	if (!again)
		rp__cap_count(cx, RP_OUT_MESSAGE, NULL);
	call_ent *const e = lookup(t, conn->id, xid);
	if (!e) {
		rp__cap_count(cx, RP_OUT_UNMATCHED, "RPC reply without call");
		keep_orphan(t, conn, m, xid, rp__cap_time(cx, m->ts_ns));
		return;
	}
	if (e->answered) {
		rp__cap_count(cx, RP_OUT_IGNORED, "RPC duplicate reply");
		return;
	}
	e->answered = true;
	if (!e->prog)
		return;
	const bool success = rep.reply_stat == 0 && rep.accept_stat == 0;
	rp_cur res = success && e->gss_service == GSS_SVC_INTEGRITY ? gss_integ_body(c) : *c;
	e->prog->reply(cx, conn, &e->call, &rep, success ? &res : NULL, e->pending);
	release_pending(t, e); /* reply() consumed it; the entry stays to recognise duplicates */
}

int rp__rpc_message(rp_capctx *cx, rp_conn *conn, const rp_msg *m)
{
	calls *const t = rp__cap_state(cx, &calls_key, calls_create, calls_destroy);
	if (!t)
		return RP_E_NOMEM;
	expire(cx, t);
	rp_cur c = rp_cur_make(m->data, m->len);
	const uint32_t xid = rp_cur_be32(&c);
	const uint32_t type = rp_cur_be32(&c);
	if (c.err) {
		bad(cx, m);
		return 0;
	}
	if (type == MSG_CALL)
		on_call(cx, t, conn, m, &c, xid);
	else if (type == MSG_REPLY)
		on_reply(cx, t, conn, m, &c, xid, false);
	else
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
	return 0;
}
