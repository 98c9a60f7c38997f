/* Handles held by several trace handles or clients: dup, fork (copies) and threads (one table); docs/replay.md "Forks, threads and dups". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/client.h"
#include "replay/engine.h"

/*
 * The refs and deferred maps are keyed by bh + 1: a backend handle may be 0
 * (the null backend's first), and the two values no key may take are
 * BH_FAILED and BH_UNSUPPORTED, which are never held.
 */
static inline uint64_t key_of(uint64_t bh)
{
	return bh + 1;
}

void rp__share_init(rp_replay *r)
{
	pthread_mutex_init(&r->share_mu, NULL);
	pthread_mutex_init(&r->wait_mu, NULL);
	pthread_cond_init(&r->wait_cv, NULL);
	rp__handles_init(&r->refs);
	rp__handles_init(&r->deferred);
}

void rp__share_fini(rp_replay *r)
{
	uint64_t k, v;
	while (rp__handles_pop(&r->deferred, &k, &v))
		free((char *)(uintptr_t)v);
	rp__handles_fini(&r->deferred);
	rp__handles_fini(&r->refs);
	pthread_mutex_destroy(&r->share_mu);
	pthread_cond_destroy(&r->wait_cv);
	pthread_mutex_destroy(&r->wait_mu);
}

/* Caller holds share_mu. */
static int hold_locked(rp_replay *r, uint64_t bh)
{
	uint64_t n;
	if (!rp__handles_get(&r->refs, key_of(bh), &n))
		n = 1; /* its one owner so far */
	return rp__handles_put(&r->refs, key_of(bh), n + 1);
}

/* Caller holds share_mu. */
static bool drop_locked(rp_replay *r, uint64_t bh)
{
	uint64_t n;
	if (!rp__handles_get(&r->refs, key_of(bh), &n))
		return true; /* never shared: the caller's was the only reference */
	if (n <= 1) {
		rp__handles_del(&r->refs, key_of(bh), &n);
		return true;
	}
	rp__handles_put(&r->refs, key_of(bh), n - 1); /* the key is present: no allocation, cannot fail */
	return false;
}

int rp__share_hold(rp_replay *r, uint64_t bh)
{
	pthread_mutex_lock(&r->share_mu);
	const int rc = hold_locked(r, bh);
	pthread_mutex_unlock(&r->share_mu);
	return rc;
}

bool rp__share_drop(rp_replay *r, uint64_t bh)
{
	pthread_mutex_lock(&r->share_mu);
	const bool last = drop_locked(r, bh);
	pthread_mutex_unlock(&r->share_mu);
	return last;
}

bool rp__share_held(rp_replay *r, uint64_t bh)
{
	uint64_t n;
	pthread_mutex_lock(&r->share_mu);
	const bool held = rp__handles_get(&r->refs, key_of(bh), &n);
	pthread_mutex_unlock(&r->share_mu);
	return held;
}

int rp__share_defer(rp_replay *r, uint64_t bh, const char *where)
{
	char *const s = strdup(where);
	if (!s)
		return RP_E_NOMEM;
	uint64_t old;
	pthread_mutex_lock(&r->share_mu);
	const bool had = rp__handles_get(&r->deferred, key_of(bh), &old);
	const int rc = had ? 0 : rp__handles_put(&r->deferred, key_of(bh), (uint64_t)(uintptr_t)s);
	pthread_mutex_unlock(&r->share_mu);
	if (had || rc < 0)
		free(s); /* one delete per object is enough */
	return rc;
}

void rp__share_last(rp_replay *r, uint64_t bh, rp_followups *fu)
{
	uint64_t v = 0;
	pthread_mutex_lock(&r->share_mu);
	const bool found = r->deferred.live && rp__handles_del(&r->deferred, key_of(bh), &v);
	pthread_mutex_unlock(&r->share_mu);
	if (found) /* no memory: the delete is lost, as a defer that could not be kept */
		(void)rp__followup_delete(fu, (char *)(uintptr_t)v);
}

void rp__share_release(rp_client *c, uint64_t bh, rp_followups *fu)
{
	const rp_replay *const r = c->r;
	if (!rp__bh_real(bh) || !rp__share_drop(c->r, bh))
		return;
	r->bops->release(r->bstate, c->bstate, bh);
	rp__share_last(c->r, bh, fu);
}

int rp__sh_get(rp_client *c, uint64_t key, uint64_t *val, bool hold)
{
	rp_replay *const r = c->r;
	pthread_mutex_lock(&r->share_mu);
	int found = rp__handles_get(&c->sh->tab, key, val);
	/* No memory for the reference: the op goes as if the handle were unknown, rather than unguarded. */
	if (found && hold && rp__bh_real(*val) && hold_locked(r, *val) < 0)
		found = 0;
	pthread_mutex_unlock(&r->share_mu);
	return found;
}

int rp__sh_put(rp_client *c, uint64_t key, uint64_t val)
{
	pthread_mutex_lock(&c->r->share_mu);
	const int rc = rp__handles_put(&c->sh->tab, key, val);
	pthread_mutex_unlock(&c->r->share_mu);
	return rc;
}

int rp__sh_del(rp_client *c, uint64_t key, uint64_t *val)
{
	pthread_mutex_lock(&c->r->share_mu);
	const int rc = rp__handles_del(&c->sh->tab, key, val);
	pthread_mutex_unlock(&c->r->share_mu);
	return rc;
}

int rp__share_close(rp_client *c, uint64_t handle, uint64_t *bh)
{
	rp_replay *const r = c->r;
	rp_handles *const t = c->sh ? &c->sh->tab : &c->handles;
	pthread_mutex_lock(&r->share_mu);
	int rc = -1;
	if (rp__handles_del(t, handle, bh))
		rc = !rp__bh_real(*bh) || drop_locked(r, *bh);
	pthread_mutex_unlock(&r->share_mu);
	return rc;
}

/* The client that is trace client `id` in c's copy of the trace; NULL if the trace has no ops of it. */
static rp_client *client_of(const rp_replay *r, uint32_t clone, uint64_t id)
{
	size_t lo = 0, hi = r->n_trace_clients;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		if (r->trace_clients[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->n_trace_clients || r->trace_clients[lo] != id)
		return NULL;
	return r->clients[(size_t)clone * r->n_trace_clients + lo];
}

/* Whether following parents from client i comes back to it (a hostile trace: A forks B, B forks A). */
static bool in_cycle(const rp_replay *r, size_t i)
{
	size_t at = i;
	for (uint32_t n = 0; n <= r->n_trace_clients; n++) {
		const uint64_t p = r->plan.parent[at];
		if (!p)
			return false;
		const rp_client *const pc = client_of(r, 0, p - 1);
		if (!pc)
			return false;
		at = pc->index;
		if (at == i)
			return true;
	}
	return true; /* longer than the clients: a cycle not through i, which i waits on forever all the same */
}

int rp__share_gates(rp_replay *r, char *errbuf)
{
	if (!r->plan.parent)
		return 0;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		rp_client *const c = r->clients[i];
		const size_t t = i % r->n_trace_clients;
		const uint64_t p = r->plan.parent[t];
		rp_client *const pc = p ? client_of(r, c->clone, p - 1) : NULL;
		if (!pc || in_cycle(r, t))
			continue; /* no parent to wait for (its fork op names a client without ops, or a cycle) */
		rp_gate *const g = calloc(1, sizeof(*g));
		if (!g)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		pthread_mutex_init(&g->mu, NULL);
		pthread_cond_init(&g->cv, NULL);
		rp__handles_init(&g->copy);
		g->parent = pc->index;
		c->gate = g;
	}
	return 0;
}

void rp__share_gate_free(rp_client *c)
{
	rp_gate *const g = c->gate;
	if (!g)
		return;
	/* rp__share_exit released what was handed over: nothing real is left */
	rp__handles_fini(&g->copy);
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	free(g);
	c->gate = NULL;
}

/* Release a hand-over (copies, or a place in a shared table) through client c's backend state. */
static void release_handover(rp_client *c, rp_handles *copy, rp_shtab *sh, rp_followups *fu)
{
	uint64_t k, bh;
	while (rp__handles_pop(copy, &k, &bh))
		rp__share_release(c, bh, fu);
	rp__handles_fini(copy);
	if (!sh)
		return;
	rp_shtab *const mine = c->sh;
	c->sh = sh;
	rp__share_leave(c, fu);
	c->sh = mine;
}

/* The parent's table entries as copies, a reference held on each real one. */
static int copy_table(rp_client *c, rp_handles *out)
{
	rp_replay *const r = c->r;
	int rc = 0;
	pthread_mutex_lock(&r->share_mu);
	const rp_handles *const t = c->sh ? &c->sh->tab : &c->handles;
	for (size_t i = 0; i < t->cap && rc == 0; i++) {
		const uint64_t k = t->keys[i], bh = t->vals[i];
		if (k == 0 || k == RP__HANDLE_TOMB)
			continue;
		rc = rp__bh_real(bh) ? hold_locked(r, bh) : 0;
		if (rc == 0 && (rc = rp__handles_put(out, k, bh)) < 0 && rp__bh_real(bh))
			drop_locked(r, bh); /* cannot be the last: the parent's entry holds it */
	}
	pthread_mutex_unlock(&r->share_mu);
	c->refd = true;
	return rc;
}

int32_t rp__share_fork(rp_client *c, const rp_op *op, rp_followups *fu)
{
	rp_replay *const r = c->r;
	if (op->status != 0 || !op->result || op->result > UINT32_MAX)
		return op->status; /* a fork that failed made nothing, here as there */
	rp_client *const child = client_of(r, c->clone, op->result);
	if (!child || !child->gate || child->gate->parent != c->index)
		return 0; /* a child without ops of its own, or not this one's: nothing waits for it */
	rp_gate *const g = child->gate;
	rp_shtab *sh = NULL;
	rp_handles copy;
	rp__handles_init(&copy);
	int32_t status = 0;
	if (op->oflags & RP_FK_SHARE) {
		if (!c->sh) {
			/* Its own table becomes the shared one; nothing else can see it yet, so no lock to move it. */
			rp_shtab *const t = malloc(sizeof(*t));
			if (!t)
				return ENOMEM;
			t->tab = c->handles;
			t->users = 1;
			rp__handles_init(&c->handles);
			pthread_mutex_lock(&r->share_mu);
			c->sh = t;
			pthread_mutex_unlock(&r->share_mu);
		}
		pthread_mutex_lock(&r->share_mu);
		c->sh->users++;
		sh = c->sh;
		pthread_mutex_unlock(&r->share_mu);
		c->refd = true;
	} else if (copy_table(c, &copy) < 0) {
		status = ENOMEM; /* the child starts all the same, with the copies made */
	}
	pthread_mutex_lock(&g->mu);
	/* A hand-over the child never took (a second fork op making it: a pid reused) goes back. */
	rp_handles old_copy = g->copy;
	rp_shtab *const old_sh = g->sh;
	rp__handles_init(&g->copy);
	g->sh = NULL;
	g->has_copy = false;
	if (!g->child_gone) {
		g->copy = copy;
		g->sh = sh;
		g->has_copy = !sh;
		rp__handles_init(&copy);
		sh = NULL;
	}
	g->opened++;
	atomic_store_explicit(&child->waiting_for, 0, memory_order_relaxed);
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	release_handover(c, &old_copy, old_sh, fu);
	release_handover(c, &copy, sh, fu); /* the child ended: nothing of this fork is used */
	return status;
}

void rp__share_gate_wait(rp_client *c)
{
	rp_gate *const g = c->gate;
	rp_replay *const r = c->r;
	pthread_mutex_lock(&g->mu);
	while (g->opened <= c->passes && !g->parent_gone && !atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		/* A wait op that follows who waits for whom sees this one blocked on its parent, set and cleared
		 * under the gate's lock (the parent's fork op clears it as it opens the gate): never stale. */
		atomic_store_explicit(&c->waiting_for, g->parent + 1, memory_order_relaxed);
		/* A stop (SIGINT, an abort) raises a flag but signals no one: look at it now and then. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
	}
	atomic_store_explicit(&c->waiting_for, 0, memory_order_relaxed);
	rp_handles copy = g->copy;
	rp_shtab *const sh = g->sh;
	const bool has_copy = g->has_copy;
	rp__handles_init(&g->copy);
	g->sh = NULL;
	g->has_copy = false;
	pthread_mutex_unlock(&g->mu);
	if (sh) {
		rp__handles_fini(&c->handles); /* empty: the pass before released it */
		pthread_mutex_lock(&r->share_mu);
		c->sh = sh;
		pthread_mutex_unlock(&r->share_mu);
		c->refd = true;
	} else if (has_copy) {
		rp__handles_fini(&c->handles);
		c->handles = copy;
		c->refd = true;
	} else {
		rp__handles_fini(&copy);
	}
}

void rp__share_leave(rp_client *c, rp_followups *fu)
{
	rp_shtab *const sh = c->sh;
	if (!sh)
		return;
	rp_replay *const r = c->r;
	pthread_mutex_lock(&r->share_mu);
	const bool last = --sh->users == 0;
	c->sh = NULL;
	pthread_mutex_unlock(&r->share_mu);
	if (!last)
		return; /* the other threads keep the table: a thread's end closes nothing of its process */
	uint64_t k, bh;
	while (rp__handles_pop(&sh->tab, &k, &bh))
		rp__share_release(c, bh, fu);
	rp__handles_fini(&sh->tab);
	free(sh);
}

void rp__share_exit(rp_client *c, bool can_release, rp_followups *fu)
{
	rp_replay *const r = c->r;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		rp_gate *const g = r->clients[i]->gate;
		if (!g || g->parent != c->index)
			continue;
		pthread_mutex_lock(&g->mu);
		g->parent_gone = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	rp_gate *const g = c->gate;
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->child_gone = true;
	rp_handles copy = g->copy;
	rp_shtab *const sh = g->sh;
	rp__handles_init(&g->copy);
	g->sh = NULL;
	g->has_copy = false;
	pthread_mutex_unlock(&g->mu);
	/* Without a backend state (its client_init failed: the run fails) the hand-over's references stay. */
	if (can_release)
		release_handover(c, &copy, sh, fu);
	else
		rp__handles_fini(&copy);
}

/* Whether the chain of clients blocked on one another from `from` comes back to c (a hostile trace). */
static bool waits_on(const rp_replay *r, const rp_client *from, const rp_client *c)
{
	for (uint32_t steps = 0; from && steps <= r->n_clients; steps++) {
		if (from == c)
			return true;
		const uint32_t w = atomic_load_explicit(&from->waiting_for, memory_order_relaxed);
		from = w && w <= r->n_clients ? r->clients[w - 1] : NULL;
	}
	return false;
}

int32_t rp__share_wait(rp_client *c, const rp_op *op)
{
	rp_replay *const r = c->r;
	if (!op->result || op->result > UINT32_MAX)
		return 0;
	rp_client *const child = client_of(r, c->clone, op->result);
	if (!child || child == c)
		return 0; /* a child without ops in the trace: nothing to wait for */
	atomic_store_explicit(&c->waiting_for, child->index + 1, memory_order_relaxed);
	pthread_mutex_lock(&r->wait_mu);
	/* Until the child has finished the pass this one is in (its last op done), or it ended, or a stop.  A
	 * cycle (A waits for B, which waits for A, or for A's fork op) cannot finish: both go on instead. */
	while (atomic_load_explicit(&child->passes_done, memory_order_acquire) <= c->passes &&
	       !atomic_load_explicit(&r->stop, memory_order_relaxed) && !waits_on(r, child, c)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10000000; /* a stop and a cycle signal no one: look again now and then */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&r->wait_cv, &r->wait_mu, &ts);
	}
	pthread_mutex_unlock(&r->wait_mu);
	atomic_store_explicit(&c->waiting_for, 0, memory_order_relaxed);
	return 0;
}

void rp__share_pass_done(rp_client *c, uint64_t passes)
{
	rp_replay *const r = c->r;
	pthread_mutex_lock(&r->wait_mu);
	atomic_store_explicit(&c->passes_done, passes, memory_order_release);
	pthread_cond_broadcast(&r->wait_cv);
	pthread_mutex_unlock(&r->wait_mu);
}
