/*
 * The in-flight window (--max-inflight N > 1): a client issues an op while
 * earlier ones of its own are still running, when the recording shows they
 * overlapped and the op does not depend on them (rp__win_depends, the one
 * dependency rule; docs/replay.md).  The window schedules request slots (a
 * request, its dependency key, a completion and its context) and knows
 * nothing else of the client's ops: the NT layer, the handle table and
 * resource order are the completion's.  Synchronous backends run the ops on up to
 * N - 1 worker threads per client, each with backend client state of its own
 * unless the backend says one state may be shared (RP_BCAP_MT_CLIENT); the
 * client thread runs the Nth itself.  Asynchronous backends keep the requests
 * in the backend (submit with a callback, completions from poll).
 *
 * Wake-ups: a worker sleeps on a futex when it has nothing to do and the
 * client wakes it with one syscall per hand-off; the client sleeps only when
 * it must wait for a completion, and a worker wakes it only then.  An op whose
 * successor does not overlap it runs on the client thread, so the serial parts
 * of a trace cost no wake-up at all.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/client_req.h"
#include "replay/client.h"
#include "replay/engine.h"
#include "replay/req.h"

static inline rp_slot *slot_at(const rp_window *win, uint32_t i)
{
	return (rp_slot *)(win->slots + (size_t)i * win->slot_size);
}

/* ---- The dependency rule ----------------------------------------------------------------- */

/* Whether an open may create or empty what it names (its disposition; an open that only opens changes no name). */
static bool open_changes(const rp_op *op)
{
	return op->disp != RP_DISP_OPEN || (op->oflags & RP_OF_DELETE_ON_CLOSE);
}

void rp__win_key(rp_wkey *k, const rp_op *op, const char *name, const char *name2)
{
	k->t_start = op->t_start;
	k->rec_end = op->t_end != RP_TIME_UNKNOWN && op->t_end > op->t_start ? op->t_end : op->t_start;
	k->handle = op->handle;
	k->off = op->offset;
	k->end = op->length > UINT64_MAX - op->offset ? UINT64_MAX : op->offset + op->length;
	k->name[0] = name;
	k->name[1] = name2;
	switch (op->op) {
	case RP_OP_READ:
		k->kind = RP_WK_READ;
		break;
	case RP_OP_WRITE:
		k->kind = RP_WK_WRITE;
		break;
	case RP_OP_OPEN:
		k->kind = RP_WK_ORDERED | (open_changes(op) ? RP_WK_CHANGE : 0);
		break;
	case RP_OP_CLOSE:    /* delete on close */
	case RP_OP_SETATTR:  /* size, times, mode, delete pending */
	case RP_OP_SETXATTR: /* also SMB security descriptors */
	case RP_OP_REMOVEXATTR:
	case RP_OP_UNLINK:
	case RP_OP_MKDIR:
	case RP_OP_RMDIR:
	case RP_OP_RENAME:
	case RP_OP_LINK:
	case RP_OP_SYMLINK:
	case RP_OP_DELTREE:
	case RP_OP_MKNOD:
		k->kind = RP_WK_ORDERED | RP_WK_CHANGE;
		break;
	case RP_OP_SLEEP:
		k->kind = 0;
		break;
	default: /* flush, lock, unlock, stat, readdir, statfs, readlink, lookup, access, getxattr, listxattr */
		k->kind = RP_WK_ORDERED;
		break;
	}
}

/* a is b, or a directory above it ("" is the client's directory, above everything). */
static bool above_or_same(const char *a, const char *b)
{
	const size_t n = strlen(a);
	return n == 0 || (strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/'));
}

static bool related(const rp_wkey *x, const rp_wkey *y)
{
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (x->name[i] && y->name[j] &&
			    (above_or_same(x->name[i], y->name[j]) || above_or_same(y->name[j], x->name[i])))
				return true;
	return false;
}

bool rp__win_depends(const rp_wkey *e, const rp_wkey *x)
{
	/* 1. The recording did not overlap them: e had ended when x started (its answer may have caused x). */
	if (x->t_start >= e->rec_end)
		return true;
	/* 2. One handle: opens, closes, locks and the rest keep their order; reads and writes unless disjoint. */
	if (e->handle && e->handle == x->handle) {
		const unsigned both = e->kind | x->kind;
		if (both & RP_WK_ORDERED)
			return true;
		if ((both & RP_WK_WRITE) && e->off < x->end && x->off < e->end && e->off < e->end && x->off < x->end)
			return true;
	}
	/* 3. Names: an op that changes a name keeps its order with every op on that name or beneath it. */
	return ((e->kind | x->kind) & RP_WK_CHANGE) && related(e, x);
}

/* ---- Workers ----------------------------------------------------------------------------- */

struct rp_worker {
	rp_window *win;
	void *bstate;
	bool binit, started;
	pthread_t thread;
	rp_slot *job; /* written before posted is bumped */
	uint32_t seq; /* client side: jobs posted */
	bool busy;    /* client side: posted and not reaped */
	_Alignas(64) _Atomic uint32_t posted; /* futex word the worker sleeps on */
	_Atomic int sleeping;
	_Atomic bool quit;
};

static void futex_wait(_Atomic uint32_t *word, uint32_t val, long timeout_ns)
{
	const struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, timeout_ns ? &ts : NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* A short spin before sleeping: a client often hands over the next op right after a completion. */
#define WORKER_SPIN 256

static void *worker_main(void *arg)
{
	rp_worker *const w = arg;
	rp_window *const win = w->win;
	rp_client *const c = win->c;
	const rp_replay *const r = c->r;
	if (r->opts.on_thread)
		r->opts.on_thread(r->opts.on_thread_ctx, c->index);
	uint32_t seen = 0;
	for (;;) {
		uint32_t p = atomic_load_explicit(&w->posted, memory_order_acquire);
		for (int i = 0; p == seen && i < WORKER_SPIN; i++) {
			cpu_relax();
			p = atomic_load_explicit(&w->posted, memory_order_acquire);
		}
		if (p == seen) {
			/* Dekker with the client's post: sleeping is set before posted is read again (seq_cst). */
			atomic_store(&w->sleeping, 1);
			if (atomic_load(&w->posted) == seen)
				futex_wait(&w->posted, seen, 0);
			atomic_store(&w->sleeping, 0);
			continue;
		}
		seen = p;
		if (atomic_load_explicit(&w->quit, memory_order_acquire))
			return NULL;
		rp_slot *const s = w->job;
		s->issue = rp__now(r);
		const int rc = rp__req_issue(r->bops, r->bstate, w->bstate, false, &s->req, &c->tdepth);
		if (rc < 0)
			rp__client_fatal(win->c, rc, &s->req);
		s->done = rp__now(r);
		atomic_store_explicit(&s->finished, true, memory_order_release);
		atomic_fetch_add(&win->completions, 1);
		if (atomic_load(&win->waiting))
			futex_wake(&win->completions);
	}
}

static void post(rp_worker *w)
{
	atomic_store(&w->posted, ++w->seq);
	if (atomic_load(&w->sleeping))
		futex_wake(&w->posted);
}

static void worker_free(rp_worker *w, const rp_replay *r, bool shared)
{
	if (w->started) {
		atomic_store_explicit(&w->quit, true, memory_order_release);
		post(w);
		pthread_join(w->thread, NULL);
	}
	if (w->binit && r->bops->client_fini)
		r->bops->client_fini(r->bstate, w->bstate);
	if (!shared)
		free(w->bstate);
	free(w);
}

int rp__win_create(rp_client *c, uint32_t max, size_t slot_size, char *errbuf)
{
	const rp_replay *const r = c->r;
	rp_window *const win = aligned_alloc(64, (sizeof(*win) + 63) & ~(size_t)63);
	if (!win)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	memset(win, 0, sizeof(*win));
	c->win = win;
	win->c = c;
	win->max = max;
	win->async = c->async;
	win->handoff_est = 50000; /* 50 us until measured (a futex wake of a sleeping thread, here 20-300 us) */
	atomic_init(&win->completions, 0);
	atomic_init(&win->waiting, 0);
	/* Every slot as aligned as the first (calloc's): a multiple of the strictest alignment. */
	win->slot_size = (slot_size + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
	win->slots = calloc(max, win->slot_size);
	if (!win->slots)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	if (win->async)
		return 0;
	const bool shared = (r->bops->caps & RP_BCAP_MT_CLIENT) != 0;
	win->workers = calloc(max - 1, sizeof(*win->workers));
	if (!win->workers)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	for (uint32_t i = 0; i + 1 < max; i++) {
		rp_worker *const w = aligned_alloc(64, (sizeof(*w) + 63) & ~(size_t)63);
		if (!w)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		memset(w, 0, sizeof(*w));
		atomic_init(&w->posted, 0);
		atomic_init(&w->sleeping, 0);
		atomic_init(&w->quit, false);
		w->win = win;
		win->workers[win->n_workers++] = w;
		/*
		 * A worker's backend state is made and finished on the client thread
		 * and used by that worker alone in between.
		 */
		if (shared) {
			w->bstate = c->bstate;
		} else {
			w->bstate = calloc(1, r->bops->client_size ? r->bops->client_size : 1);
			if (!w->bstate)
				return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
			const int rc = r->bops->client_init(r->bstate, w->bstate, c->dir, errbuf);
			if (rc < 0)
				return rc;
			w->binit = true;
		}
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
			return rp_fail(errbuf, RP_E_SYSTEM, "client %u: cannot start worker thread: %s", c->index,
				       strerror(errno));
		w->started = true;
	}
	return 0;
}

void rp__win_destroy(rp_client *c)
{
	rp_window *const win = c->win;
	if (!win)
		return;
	rp__win_drain(c);
	const bool shared = (c->r->bops->caps & RP_BCAP_MT_CLIENT) != 0;
	for (uint32_t i = 0; i < win->n_workers; i++)
		worker_free(win->workers[i], c->r, shared);
	free(win->workers);
	free(win->slots);
	free(win);
	c->win = NULL;
}

/* ---- The window -------------------------------------------------------------------------- */

/* An exponentially weighted moving average, 1/8 for the new sample. */
static inline void ewma(uint64_t *est, uint64_t x)
{
	*est = *est - *est / 8 + x / 8;
}

void rp__win_reap(rp_client *c)
{
	rp_window *const win = c->win;
	for (uint32_t i = 0; win->n && i < win->max; i++) {
		rp_slot *const s = slot_at(win, i);
		if (!s->busy || !atomic_load_explicit(&s->finished, memory_order_acquire))
			continue;
		if (s->worker) {
			s->worker->busy = false;
			ewma(&win->handoff_est, s->issue > s->posted ? s->issue - s->posted : 0);
		}
		const unsigned kind = s->req.op->op;
		if (kind < RP_OP__COUNT)
			ewma(&win->lat_est[kind], s->done - s->issue);
		s->busy = false;
		win->n--;
		s->complete(s->ctx, s);
	}
}

bool rp__win_ready(rp_client *c, const rp_wkey *k)
{
	rp_window *const win = c->win;
	rp__win_reap(c);
	if (win->n >= win->max)
		return false;
	for (uint32_t i = 0; win->n && i < win->max; i++) {
		const rp_slot *const s = slot_at(win, i);
		if (s->busy && rp__win_depends(&s->key, k))
			return false;
	}
	return true;
}

void rp__win_block(rp_client *c)
{
	rp_window *const win = c->win;
	const rp_replay *const r = c->r;
	if (win->async) {
		/* A completion ends the poll at once; a short limit would arm a timer for nothing (req.c). */
		rp__req_poll(r->bops, r->bstate, c->bstate, 100000000);
		return;
	}
	const uint32_t seq = atomic_load(&win->completions);
	atomic_store(&win->waiting, 1);
	bool any = false;
	for (uint32_t i = 0; !any && i < win->max; i++) {
		rp_slot *const s = slot_at(win, i);
		any = s->busy && atomic_load_explicit(&s->finished, memory_order_acquire);
	}
	/* A bounded sleep: the completion count changing (or a wake) ends it at once. */
	if (!any && win->n)
		futex_wait(&win->completions, seq, 10000000L);
	atomic_store(&win->waiting, 0);
}

uint64_t rp__win_wait_until(rp_client *c, uint64_t deadline)
{
	const rp_replay *const r = c->r;
	rp_window *const win = c->win;
	/*
	 * Completions of an asynchronous backend only arrive through poll: poll until shortly before.  A
	 * wait, however short, polls once: what the backend holds back to send with the next request
	 * (the nfs backend's corked socket) goes now, at its recorded time, not with a later burst.
	 */
	const uint64_t margin = 200000;
	uint64_t now = rp__now(r);
	if (win->async && win->n && now < deadline && now + margin >= deadline) {
		rp__req_poll(r->bops, r->bstate, c->bstate, 0);
		rp__win_reap(c);
	}
	for (; win->async && win->n && now + margin < deadline; now = rp__now(r)) {
		rp__req_poll(r->bops, r->bstate, c->bstate, deadline - margin - now);
		rp__win_reap(c);
	}
	return rp__win_idle_wait(c, deadline);
}

/* An idle client's asynchronous backend is polled at least this often while it waits (its housekeeping). */
#define IDLE_POLL_NS 1000000000ull

uint64_t rp__win_idle_wait(rp_client *c, uint64_t deadline)
{
	const rp_replay *const r = c->r;
	if (!c->async)
		return rp__wait_until(r, &c->late_est, deadline);
	/*
	 * In slices of the engine's own sleep, each ended by a poll that waits
	 * for nothing: the backend renews what it holds (the nfs backend's
	 * NFSv4 lease) through a gap of the trace longer than that lasts,
	 * and the deadline is kept as precisely as by one sleep.
	 */
	for (;;) {
		const uint64_t now = rp__now(r);
		if (now + IDLE_POLL_NS >= deadline || atomic_load_explicit(&r->stop, memory_order_relaxed))
			return rp__wait_until(r, &c->late_est, deadline);
		(void)rp__wait_until(r, &c->late_est, now + IDLE_POLL_NS);
		rp__req_poll(r->bops, r->bstate, c->bstate, 0);
		if (c->win)
			rp__win_reap(c);
	}
}

static void async_cb(rp_breq *req)
{
	rp_slot *const s = req->data;
	rp__req_done(&s->win->c->tdepth, req);
	s->done = rp__now(s->win->c->r);
	atomic_store_explicit(&s->finished, true, memory_order_relaxed);
}

rp_slot *rp__win_take(rp_client *c, unsigned op, bool next_overlaps)
{
	rp_window *const win = c->win;
	rp_worker *w = NULL;
	if (!win->async) {
		/* To a worker only what would overlap the next op and takes longer than handing it over. */
		if (next_overlaps && win->lat_est[op] > win->handoff_est)
			for (uint32_t i = 0; !w && i < win->n_workers; i++)
				if (!win->workers[i]->busy)
					w = win->workers[i];
		if (!w)
			return NULL; /* nothing would overlap it, or every worker is busy: here and now */
	}
	uint32_t i = 0;
	while (slot_at(win, i)->busy)
		i++; /* n < max: there is a free one */
	rp_slot *const s = slot_at(win, i);
	s->worker = w;
	return s;
}

void rp__win_ran(rp_client *c, unsigned op, uint64_t ns)
{
	ewma(&c->win->lat_est[op], ns);
}

uint64_t rp__win_post(rp_client *c, rp_slot *s)
{
	rp_replay *const r = c->r;
	rp_window *const win = c->win;
	s->win = win;
	atomic_store_explicit(&s->finished, false, memory_order_relaxed);
	s->busy = true;
	win->n++;
	rp_worker *const w = s->worker;
	if (w) {
		w->busy = true;
		w->job = s;
		s->req.cb = NULL;
		s->posted = rp__now(r);
		post(w);
		return s->posted;
	}
	s->req.cb = async_cb;
	s->req.data = s;
	s->issue = rp__now(r);
	/* A busy backend takes it once some completed (req.c polls and retries). */
	const int rc = rp__req_issue(r->bops, r->bstate, c->bstate, true, &s->req, &c->tdepth);
	if (rc < 0) {
		/* The backend cannot go on: the run stops naming the op; the slot completes as failed. */
		rp__client_fatal(c, rc, &s->req);
		s->done = rp__now(r);
		atomic_store_explicit(&s->finished, true, memory_order_relaxed);
	}
	return s->issue;
}

bool rp__win_progress(rp_client *c, _Atomic uint32_t *word, uint32_t v)
{
	rp_window *const win = c->win;
	if (!win || !win->n)
		return false;
	const rp_replay *const r = c->r;
	rp__win_reap(c);
	if (win->async)
		rp__req_poll(r->bops, r->bstate, c->bstate, 1000000);
	else
		futex_wait(word, v, 1000000L);
	return true;
}

void rp__win_drain(rp_client *c)
{
	rp_window *const win = c->win;
	if (!win)
		return;
	for (rp__win_reap(c); win->n; rp__win_reap(c))
		rp__win_block(c);
}
