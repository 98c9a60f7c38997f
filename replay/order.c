/*
 * --order=resource (DESIGN §6, "Ordering across clients"): the ops that touch
 * one file or directory keep their recorded order across clients.
 *
 * A resource is a normalised trace path (formats/path.h) within one copy of
 * the workload (--clients: copy k's resources are its own).  An op's
 * resources are its path (an op on a handle without one: the path of that
 * handle's open), and path2 for rename and link (copy: its destination
 * handle's path).  A blocking lock that was granted goes by its t_end
 * (when it was granted), not its t_start.  The scan gives every such op its place on each resource in
 * the global recorded order, (key, client, index), where key is the op's
 * t_start raised as described at clamp() below; at run time a client waits
 * before an op until each resource's done count equals the op's place, and
 * the count goes up when the op completes, whatever its outcome.  In pass p
 * the place is p * (ops on the resource per pass) + seq, modulo 2^32.
 *
 * Why it cannot deadlock.  Order every op of the run by (pass, key, client,
 * index).  Each wait is for something earlier in that order:
 *  - a resource wait, for the ops before it on that resource;
 *  - a client's own earlier ops (program order), since keys never decrease
 *    within a client (clamp: a running maximum) and ties go by index;
 *  - a forked child's gate (share.c), for the parent's fork op: the child's
 *    keys are raised above that op's key;
 *  - a wait op (share.c), for every op of its child in that pass: the keys
 *    of the waiter's later ops are raised above the child's last key;
 *  - a worker, a deadline or an asynchronous backend's completion: these end
 *    by themselves (the order wait reaps and polls the client's own in-flight
 *    ops, so they complete while it waits).
 * So the earliest op not yet done waits for nothing and can always go.  A
 * trace whose fork and wait ops contradict each other (a cycle) cannot be
 * given such keys: the scan says so and the run does not start.  A client
 * that stops before its work is done ends the waits on its ops, which will
 * never come: at the time limit the waiting clients stop too (so nothing is
 * issued out of order), after an error or a stop they go on unordered.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "formats/hash.h"
#include "formats/strtab.h"
#include "replay/client.h"
#include "replay/engine.h"

/* Waiters are counted per stripe of resources: a completion makes a futex call only when someone may wait. */
#define STRIPES 256u
/* Fork and wait ops that contradict each other keep raising keys: after this many rounds, a cycle. */
#define CLAMP_ROUNDS 64
/* A wait looks at stops, the end and releases this often (no one signals those). */
#define WAIT_SLICE_NS 10000000L

struct rp_order {
	uint32_t n_res;          /* resources, ids 1..n_res */
	uint32_t *per_pass;      /* ops on each resource in one pass, by id */
	rp_ordclient *cl;        /* by trace client, as rp_replay.trace_clients */
	_Atomic uint32_t *done;  /* copies x (n_res + 1): ops completed on each resource */
	uint32_t copies;
	_Alignas(64) _Atomic uint32_t waiters[STRIPES];
	_Alignas(64) atomic_bool released;
	atomic_bool timed_out; /* a client stopped at the time limit */
	uint64_t bytes;          /* the tables kept for the run */
};

/* One op's place being worked out: 24 bytes, the scan's peak memory per resource an op touches. */
typedef struct ev {
	uint64_t key;
	uint32_t slot, index;
	uint32_t res;   /* 0: a fork or wait op (clamp only) */
	uint32_t other; /* EV_SECOND; or EV_FORK / EV_WAIT | the child's slot */
} ev;
_Static_assert(sizeof(ev) == 24, "an event is 24 bytes");

#define EV_SECOND (1u << 31)
#define EV_FORK (1u << 30)
#define EV_WAIT (1u << 29)
#define EV_SLOT 0x1fffffffu

typedef struct scan {
	rp_replay *r;
	rp_strtab *names;
	uint64_t name_bytes;
	rp_handles hres;  /* (slot, handle) -> resource of its open */
	ev *ev;
	size_t n_ev, cap_ev;
	uint64_t *last_key; /* running maximum of t_start, by slot */
	uint32_t *count;    /* ops, by slot */
	uint64_t limit;
	uint64_t n_x;
} scan;

static inline int64_t slot_of(const rp_replay *r, uint32_t client)
{
	size_t lo = 0, hi = r->n_trace_clients;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		if (r->trace_clients[mid] < client)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n_trace_clients && r->trace_clients[lo] == client ? (int64_t)lo : -1;
}

/* The memory the scan (with cap_ev places) and the run's tables need so far, against the limit. */
static uint64_t need(const scan *s, size_t cap_ev, uint64_t n_ops)
{
	const uint64_t copies = s->r->opts.clones ? s->r->opts.clones : 1;
	const uint64_t res = rp_strtab_count(s->names) + 1u;
	return (uint64_t)cap_ev * sizeof(ev) + s->name_bytes + n_ops * sizeof(rp_ordent) +
	       s->n_x * sizeof(rp_ordx) + res * (copies + 1) * sizeof(uint32_t);
}

static int too_big(const scan *s, uint64_t n_ops, char *errbuf)
{
	return rp_fail(errbuf, RP_E_LIMIT,
		       "--order=resource: the order tables need more than %.2f MiB (%llu ops, %u paths, %u copies; "
		       "docs/replay.md, Limits)",
		       (double)s->limit / 1048576.0, (unsigned long long)n_ops, rp_strtab_count(s->names),
		       s->r->opts.clones ? s->r->opts.clones : 1);
}

static int push(scan *s, const ev *e, uint64_t n_ops, char *errbuf)
{
	if (s->n_ev == s->cap_ev) {
		const size_t cap = s->cap_ev ? s->cap_ev * 2 : 1024;
		if (need(s, cap, n_ops) > s->limit)
			return too_big(s, n_ops, errbuf);
		ev *const p = realloc(s->ev, cap * sizeof(*p));
		if (!p)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		s->ev = p;
		s->cap_ev = cap;
	}
	s->ev[s->n_ev++] = *e;
	return 0;
}

/* The resource of a trace path (0: none, or one the engine refuses anyway), interned. */
static int64_t res_of(scan *s, rp_op_source *src, uint32_t id)
{
	if (!id)
		return 0;
	uint32_t len = 0;
	const char *const raw = src->string(src, id, &len);
	char buf[PATH_MAX];
	const int n = raw ? rp_path_norm(raw, len, buf, sizeof(buf)) : -EINVAL;
	if (n < 0)
		return 0;
	int added = 0;
	const int64_t res = rp_strtab_intern(s->names, buf, (uint32_t)n, &added);
	if (res > 0 && added)
		s->name_bytes += (uint64_t)n + 16;
	return res > UINT32_MAX ? RP_E_LIMIT : res;
}

static uint64_t hkey(uint32_t slot, uint64_t handle)
{
	const uint64_t pair[2] = { slot, handle };
	const uint64_t h = rp_fnv1a64(UINT64_C(0xcbf29ce484222325), pair, sizeof(pair));
	/* A collision only orders two ops that need not be: harmless, and every order it adds is the recorded one. */
	return h == 0 || h == RP__HANDLE_TOMB ? 1 : h;
}

/* The resource of handle in slot: its open's, or (a forked child's inherited handle) its parent's. */
static uint32_t handle_res(const scan *s, uint32_t slot, uint64_t handle)
{
	uint64_t v;
	if (!handle)
		return 0;
	if (rp__handles_get(&s->hres, hkey(slot, handle), &v))
		return (uint32_t)v;
	const uint64_t parent = s->r->plan.parent ? s->r->plan.parent[slot] : 0;
	const int64_t ps = parent ? slot_of(s->r, (uint32_t)(parent - 1)) : -1;
	return ps >= 0 && rp__handles_get(&s->hres, hkey((uint32_t)ps, handle), &v) ? (uint32_t)v : 0;
}

static int scan_op(scan *s, rp_op_source *src, const rp_op *op, uint64_t *n_ops, char *errbuf)
{
	if (op->op >= RP_OP__COUNT)
		return 0; /* the client skips it without counting it (client.c) */
	const int64_t sl = slot_of(s->r, op->client);
	if (sl < 0)
		return 0;
	const uint32_t slot = (uint32_t)sl;
	if (s->count[slot] == UINT32_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "--order=resource: client %u has more than %u ops", op->client,
			       UINT32_MAX - 1);
	const uint32_t index = ++s->count[slot];
	(*n_ops)++;
	/*
	 * A blocking lock granted in the recording (F_SETLKW, NFSv4 READW_LT)
	 * took its place on the file when it was granted, after the unlock
	 * that let it go: keyed by its t_start it would come before that
	 * unlock, which would then wait for it while it waited for the unlock.
	 */
	const bool granted_wait = op->op == RP_OP_LOCK && (op->flags & RP_OPF_WAIT) && !(op->flags & RP_OPF_TEST) &&
				  op->status == 0 && !(op->flags & RP_OPF_NO_REPLY) && op->t_end > op->t_start;
	const uint64_t at = granted_wait ? op->t_end : op->t_start;
	if (at > s->last_key[slot])
		s->last_key[slot] = at;
	const uint64_t key = s->last_key[slot];
	ev e = { .key = key, .slot = slot, .index = index };
	if (op->op == RP_OP_FORK || op->op == RP_OP_WAIT) {
		const int64_t child = op->result && op->result <= UINT32_MAX ? slot_of(s->r, (uint32_t)op->result) : -1;
		if (child < 0 || (uint32_t)child == slot || (op->op == RP_OP_FORK && op->status != 0))
			return 0;
		e.other = (op->op == RP_OP_FORK ? EV_FORK : EV_WAIT) | (uint32_t)child;
		return push(s, &e, *n_ops, errbuf);
	}
	if (op->op == RP_OP_SLEEP || op->op == RP_OP_DUP) {
		const uint32_t res = op->op == RP_OP_DUP ? handle_res(s, slot, op->handle) : 0;
		if (res && op->handle2 && rp__handles_put(&s->hres, hkey(slot, op->handle2), res) < 0)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		return 0;
	}
	int64_t res = res_of(s, src, op->path);
	if (res < 0)
		return rp_fail(errbuf, (int)res, "--order=resource: more than %u resources", UINT32_MAX);
	if (!res)
		res = handle_res(s, slot, op->handle);
	if (op->op == RP_OP_OPEN && op->handle && op->status == 0 && res &&
	    rp__handles_put(&s->hres, hkey(slot, op->handle), (uint64_t)res) < 0)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	if (res) {
		e.res = (uint32_t)res;
		const int rc = push(s, &e, *n_ops, errbuf);
		if (rc < 0)
			return rc;
	}
	int64_t res2 = 0;
	if (op->op == RP_OP_RENAME || op->op == RP_OP_LINK)
		res2 = res_of(s, src, op->path2);
	else if (op->op == RP_OP_COPY)
		res2 = handle_res(s, slot, op->handle2);
	if (res2 < 0)
		return rp_fail(errbuf, (int)res2, "--order=resource: more than %u resources", UINT32_MAX);
	if (res2 && res2 != res) {
		e.res = (uint32_t)res2;
		e.other = EV_SECOND;
		s->n_x++;
		return push(s, &e, *n_ops, errbuf);
	}
	return 0;
}

static int by_client(const void *a, const void *b)
{
	const ev *const x = a, *const y = b;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return (x->other & EV_SECOND) < (y->other & EV_SECOND) ? -1 : (x->other & EV_SECOND) > (y->other & EV_SECOND);
}

static int by_resource(const void *a, const void *b)
{
	const ev *const x = a, *const y = b;
	if (x->res != y->res)
		return x->res < y->res ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static inline uint64_t above(uint64_t k)
{
	return k == UINT64_MAX ? k : k + 1;
}

/*
 * Raise keys until every blocking relation points backwards in (key, client,
 * index): within a client keys never decrease; a forked child's keys are
 * above its gating fork op's (the first successful one naming it, as the
 * plan's parent); the ops after a wait op are above every key of its child.
 * Recorded times already satisfy this (a child runs after its fork, a parent
 * goes on after its child ended) but for ties and hostile traces, so a round
 * or two settles it.  ev is sorted by client; 0 or RP_E_INVAL (a cycle).
 */
static int clamp(scan *s, char *errbuf)
{
	rp_replay *const r = s->r;
	const uint32_t n = r->n_trace_clients;
	uint64_t *const base = calloc(n ? n : 1, sizeof(*base)); /* a child's lowest key: its fork's key + 1 */
	uint64_t *const last = calloc(n ? n : 1, sizeof(*last)); /* a client's largest key */
	bool *const gated = calloc(n ? n : 1, sizeof(*gated));   /* this round met the child's gating fork */
	int rc = 0;
	if (!base || !last || !gated) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	bool changed = true;
	for (int round = 0; changed && round < CLAMP_ROUNDS; round++) {
		changed = false;
		memset(gated, 0, n * sizeof(*gated));
		for (size_t i = 0; i < s->n_ev;) {
			const uint32_t slot = s->ev[i].slot;
			const uint64_t me = (uint64_t)r->trace_clients[slot] + 1;
			uint64_t run = base[slot];
			for (; i < s->n_ev && s->ev[i].slot == slot; i++) {
				ev *const e = &s->ev[i];
				uint64_t k = e->key > run ? e->key : run;
				const uint32_t child = e->other & EV_SLOT;
				if ((e->other & EV_WAIT) && above(last[child]) > k)
					k = above(last[child]);
				changed |= k != e->key;
				e->key = run = k;
				/* The gating fork: the first of this client's that made the child (the plan's parent). */
				if ((e->other & EV_FORK) && !gated[child] && r->plan.parent && r->plan.parent[child] == me) {
					gated[child] = true;
					if (base[child] < above(k)) {
						base[child] = above(k);
						changed = true;
					}
				}
			}
			last[slot] = run;
		}
	}
	if (changed)
		rc = rp_fail(errbuf, RP_E_INVAL,
			     "--order=resource: the trace's fork and wait ops contradict each other (a cycle): no order "
			     "keeps them all; use --order=client");
out:
	free(base);
	free(last);
	free(gated);
	return rc;
}

/* The places: seq by resource in the global order, then each client's table by op index. */
static int place(scan *s, rp_order *o, uint64_t n_ops, char *errbuf)
{
	rp_replay *const r = s->r;
	const uint32_t n = r->n_trace_clients;
	o->n_res = rp_strtab_count(s->names);
	o->per_pass = calloc((size_t)o->n_res + 1, sizeof(*o->per_pass));
	o->cl = calloc(n ? n : 1, sizeof(*o->cl));
	if (!o->per_pass || !o->cl)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	/* Fork and wait events only raised keys: drop them, then number each resource's ops. */
	size_t m = 0;
	for (size_t i = 0; i < s->n_ev; i++)
		if (s->ev[i].res)
			s->ev[m++] = s->ev[i];
	s->n_ev = m;
	qsort(s->ev, s->n_ev, sizeof(*s->ev), by_resource);
	for (size_t i = 0; i < s->n_ev; i++) {
		ev *const e = &s->ev[i];
		if (o->per_pass[e->res] == UINT32_MAX)
			return rp_fail(errbuf, RP_E_LIMIT, "--order=resource: more than %u ops on one path", UINT32_MAX - 1);
		e->key = o->per_pass[e->res]++; /* the key is spent: it holds the seq from here */
	}
	for (uint32_t c = 0; c < n; c++) {
		o->cl[c].n = s->count[c];
		o->cl[c].ent = calloc(s->count[c] ? s->count[c] : 1, sizeof(*o->cl[c].ent));
		if (!o->cl[c].ent)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < s->n_ev; i++)
		if (s->ev[i].other & EV_SECOND)
			o->cl[s->ev[i].slot].nx++;
	for (uint32_t c = 0; c < n; c++) {
		if (o->cl[c].nx && !(o->cl[c].x = malloc(o->cl[c].nx * sizeof(*o->cl[c].x))))
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		o->cl[c].nx = 0;
	}
	qsort(s->ev, s->n_ev, sizeof(*s->ev), by_client); /* so each client's second places come in index order */
	for (size_t i = 0; i < s->n_ev; i++) {
		const ev *const e = &s->ev[i];
		rp_ordclient *const oc = &o->cl[e->slot];
		if (e->other & EV_SECOND)
			oc->x[oc->nx++] = (rp_ordx){ .index = e->index, .res = e->res, .seq = (uint32_t)e->key };
		else
			oc->ent[e->index - 1] = (rp_ordent){ .res = e->res, .seq = (uint32_t)e->key };
	}
	o->copies = r->opts.clones ? r->opts.clones : 1;
	o->done = calloc((size_t)o->copies * ((size_t)o->n_res + 1), sizeof(*o->done));
	if (!o->done)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	o->bytes = n_ops * sizeof(rp_ordent) + s->n_x * sizeof(rp_ordx) +
		   ((uint64_t)o->n_res + 1) * (o->copies + 1) * sizeof(uint32_t) + sizeof(*o);
	return 0;
}

int rp__order_scan(rp_replay *r, char *errbuf)
{
	scan s = { .r = r, .limit = r->opts.order_mem_max ? r->opts.order_mem_max : RP_REPLAY_ORDER_MEM_MAX };
	rp_op_source *src = NULL;
	rp_order *o = NULL;
	uint64_t n_ops = 0;
	rp__handles_init(&s.hres);
	int rc = RP_E_NOMEM;
	s.names = rp_strtab_create();
	s.last_key = calloc(r->n_trace_clients ? r->n_trace_clients : 1, sizeof(*s.last_key));
	s.count = calloc(r->n_trace_clients ? r->n_trace_clients : 1, sizeof(*s.count));
	o = aligned_alloc(64, (sizeof(*o) + 63) & ~(size_t)63);
	if (!s.names || !s.last_key || !s.count || !o) {
		free(o);
		o = NULL;
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto fail;
	}
	memset(o, 0, sizeof(*o));
	for (unsigned i = 0; i < STRIPES; i++)
		atomic_init(&o->waiters[i], 0);
	atomic_init(&o->released, false);
	atomic_init(&o->timed_out, false);
	rc = r->w->open(r->w, true, 0, &src, errbuf);
	if (rc < 0)
		goto fail;
	for (;;) {
		const rp_op *ops;
		const int n = src->next(src, &ops);
		if (n < 0) {
			rc = rp_fail(errbuf, n, "%s", src->errbuf);
			goto fail;
		}
		if (n == 0)
			break;
		for (int i = 0; i < n; i++)
			if ((rc = scan_op(&s, src, &ops[i], &n_ops, errbuf)) < 0)
				goto fail;
		if (need(&s, s.cap_ev, n_ops) > s.limit) {
			rc = too_big(&s, n_ops, errbuf);
			goto fail;
		}
	}
	qsort(s.ev, s.n_ev, sizeof(*s.ev), by_client);
	if ((rc = clamp(&s, errbuf)) < 0 || (rc = place(&s, o, n_ops, errbuf)) < 0)
		goto fail;
	r->order = o;
	r->res.order_resources = o->n_res;
	r->res.order_bytes = o->bytes;
	o = NULL;
	rc = 0;
fail:
	if (src)
		src->close(src);
	if (o) {
		r->order = o;
		rp__order_free(r);
	}
	rp__handles_fini(&s.hres);
	rp_strtab_destroy(s.names);
	free(s.ev);
	free(s.last_key);
	free(s.count);
	return rc;
}

void rp__order_free(rp_replay *r)
{
	rp_order *const o = r->order;
	if (!o)
		return;
	for (uint32_t c = 0; o->cl && c < r->n_trace_clients; c++) {
		free(o->cl[c].ent);
		free(o->cl[c].x);
	}
	free(o->cl);
	free(o->per_pass);
	free(o->done);
	free(o);
	r->order = NULL;
}

void rp__order_client(rp_client *c)
{
	rp_order *const o = c->r->order;
	if (!o)
		return;
	const int64_t slot = slot_of(c->r, c->trace_client);
	c->ord = slot >= 0 ? &o->cl[slot] : NULL;
	c->ord_done = &o->done[(size_t)c->clone * ((size_t)o->n_res + 1)];
	c->ord_x = 0;
}

/* Op index of c in its current pass: its request (n 0 when it touches no resource). */
static void order_get(rp_client *c, uint64_t index, rp_ordreq *q)
{
	const rp_order *const o = c->r->order;
	const rp_ordclient *const oc = c->ord;
	q->n = 0;
	if (!oc || index == 0 || index > oc->n)
		return;
	/* Places in pass p come after every op of the passes before (modulo 2^32, as the counts). */
	const uint32_t pass = (uint32_t)c->passes;
	const rp_ordent *const e = &oc->ent[index - 1];
	if (e->res) {
		q->word[q->n] = &c->ord_done[e->res];
		q->target[q->n++] = pass * o->per_pass[e->res] + e->seq;
	}
	if (index == 1)
		c->ord_x = 0; /* a new pass */
	while (c->ord_x < oc->nx && oc->x[c->ord_x].index < index)
		c->ord_x++;
	if (c->ord_x < oc->nx && oc->x[c->ord_x].index == index) {
		const rp_ordx *const x = &oc->x[c->ord_x];
		q->word[q->n] = &c->ord_done[x->res];
		q->target[q->n++] = pass * o->per_pass[x->res] + x->seq;
	}
}

static inline unsigned stripe(const rp_client *c, const _Atomic uint32_t *word)
{
	return (unsigned)((size_t)(word - c->r->order->done) % STRIPES);
}

static void futex_wait(_Atomic uint32_t *word, uint32_t val, long timeout_ns)
{
	const struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

/* Not there yet: fewer than target ops done (the counts only grow, and never pass a target still waited for). */
static inline bool behind(uint32_t done, uint32_t target)
{
	return (int32_t)(target - done) > 0;
}

bool rp__order_before(rp_client *c, uint64_t index, rp_ordreq *q, rp_order_progress progress)
{
	rp_replay *const r = c->r;
	rp_order *const o = r->order;
	order_get(c, index, q);
	for (uint32_t i = 0; i < q->n; i++) {
		_Atomic uint32_t *const w = q->word[i];
		if (!behind(atomic_load_explicit(w, memory_order_acquire), q->target[i]))
			continue;
		const uint64_t t0 = rp__mono_ns();
		_Atomic uint32_t *const nw = &o->waiters[stripe(c, w)];
		/* Dekker with rp__order_done: the waiter is counted before the count is read again (seq_cst). */
		atomic_fetch_add(nw, 1);
		bool go = true;
		for (;;) {
			const uint32_t v = atomic_load(w);
			if (!behind(v, q->target[i]) || atomic_load_explicit(&o->released, memory_order_relaxed) ||
			    atomic_load_explicit(&r->stop, memory_order_relaxed))
				break;
			/* What it waits for may never come now: it stops at the time limit too, rather than go out of order. */
			if (atomic_load_explicit(&o->timed_out, memory_order_relaxed) || (r->end && rp__now(r) >= r->end)) {
				go = false;
				break;
			}
			/* Its own ops in flight complete only if reaped (and polled): they may be what is waited for. */
			if (progress && progress(c, w, v))
				continue;
			futex_wait(w, v, WAIT_SLICE_NS);
		}
		atomic_fetch_sub(nw, 1);
		c->ord_wait_ns += rp__mono_ns() - t0;
		c->ord_waits++;
		if (!go)
			return false;
	}
	return true;
}

void rp__order_done(rp_replay *r, const rp_ordreq *q)
{
	rp_order *const o = r->order;
	for (uint32_t i = 0; i < q->n; i++) {
		_Atomic uint32_t *const w = q->word[i];
		atomic_fetch_add(w, 1);
		if (atomic_load(&o->waiters[(size_t)(w - o->done) % STRIPES]))
			syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
}

void rp__order_release(rp_replay *r, bool timed)
{
	if (r->order)
		atomic_store(timed ? &r->order->timed_out : &r->order->released, true);
}
