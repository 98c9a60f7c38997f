/* The replay engine: options, backend choice, client threads, start/stop/wait, progress. */
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "replay/client.h"
#include "replay/engine.h"
#include "replay/req.h"
#include "replay/stats.h"

void rp_replay_opts_init(rp_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup_s = -1;
	o->speed = 1.0;
	o->spin_us = 50;
	o->max_inflight = 1;
	o->behind_span = 1.05;
	o->behind_lag_s = 0.010;
	o->target_entries = -1;
}

/* The schemes ops declares, for an error: "file://, a directory path". */
static void served(const rp_backend_ops *ops, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = '\0';
	for (const char *const *s = ops->schemes; s && *s; s++) {
		const int w = snprintf(buf + len, cap - len, "%s%s%s", len ? ", " : "", **s ? *s : "a directory path",
				       **s ? "://" : "");
		if (w < 0 || (size_t)w >= cap - len)
			return;
		len += (size_t)w;
	}
}

/* The backend named, or the one the target's URL scheme asks for; checked before anything uses it. */
static int pick_backend(const rp_replay_opts *o, const rp_backend_ops **out, char *errbuf)
{
	*out = o->backend_ops;
	if (!*out && o->backend) {
		*out = rp_backend_find(o->backend);
		if (!*out)
			return rp_fail(errbuf, RP_E_NOTFOUND, "no backend '%s' in this build (see --list-backends)", o->backend);
	} else if (!*out) {
		const int rc = rp_backend_for_target(o->target, out, errbuf);
		if (rc < 0)
			return rc;
	}
	const int rc = rp_backend_check(*out, errbuf);
	if (rc < 0)
		return rc;
	if (!rp_backend_serves(*out, o->target)) {
		char list[256];
		served(*out, list, sizeof(list));
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: backend %s does not take this target (it takes %s)", o->target,
			       (*out)->name, list);
	}
	return 0;
}

static int check_opts(const rp_replay_opts *o, char *errbuf)
{
	if (!o->target || !*o->target)
		return rp_fail(errbuf, RP_E_INVAL, "no target (--target DIR)");
	if (!(o->speed > 0) || o->speed > 1e9)
		return rp_fail(errbuf, RP_E_RANGE, "speed must be > 0");
	if (o->duration_s < 0 || o->duration_s > 1e8 || o->clone_offset_s < 0 || o->clone_offset_s > 1e6)
		return rp_fail(errbuf, RP_E_RANGE, "durations must be >= 0");
	if ((unsigned)o->timing > RP_TIMING_THINK || (unsigned)o->on_mismatch > RP_MISMATCH_ABORT ||
	    (unsigned)o->prepare_fill > RP_FILL_SPARSE || (unsigned)o->order > RP_ORDER_AUTO)
		return rp_fail(errbuf, RP_E_INVAL, "bad timing or mismatch policy");
	if (!(o->behind_span >= 1) || o->behind_span > 1e6 || !(o->behind_lag_s >= 0) || o->behind_lag_s > 1e6)
		return rp_fail(errbuf, RP_E_RANGE, "behind-span must be 1..1e6, behind-lag 0..1e6 s");
	if (o->max_inflight > RP_REPLAY_MAX_INFLIGHT) /* 0 is RP_REPLAY_INFLIGHT_AUTO */
		return rp_fail(errbuf, RP_E_RANGE, "max-inflight must be 1..%d", RP_REPLAY_MAX_INFLIGHT);
	if (o->clones > RP_REPLAY_CLIENTS_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "%u copies: at most %u clients in one run", o->clones,
			       RP_REPLAY_CLIENTS_MAX);
	/* A share of a larger run's copies: their numbers stay within what one run could have. */
	if (o->clone_base && (!o->clones || o->clone_base > UINT32_MAX - o->clones))
		return rp_fail(errbuf, RP_E_RANGE, "copies numbered from %u need --clients", o->clone_base);
	return 0;
}

/* The run's client count (trace clients times copies), refused past RP_REPLAY_CLIENTS_MAX before anything is made. */
static int count_clients(const rp_replay *r, uint32_t *n, char *errbuf)
{
	const uint32_t copies = r->opts.clones ? r->opts.clones : 1;
	if (__builtin_mul_overflow(copies, r->n_trace_clients, n) || *n > RP_REPLAY_CLIENTS_MAX)
		return rp_fail(errbuf, RP_E_LIMIT,
			       "%u trace client%s x %u cop%s: more than %u clients in one run (docs/replay.md, Limits)",
			       r->n_trace_clients, r->n_trace_clients == 1 ? "" : "s", copies, copies == 1 ? "y" : "ies",
			       RP_REPLAY_CLIENTS_MAX);
	return 0;
}

/* "the trace's clients share 23 paths; 12 clients forked by another; ...": what ties the clients together. */
static void share_text(const rp_plan_share *sh, char *buf, size_t cap)
{
	const struct {
		uint64_t n;
		const char *pre, *one, *many;
	} parts[] = {
		{ sh->paths, "the trace's clients share ", "path", "paths" },
		{ sh->handles, "", "op uses a handle another client opened", "ops use a handle another client opened" },
		{ sh->forks, "", "client forked by another", "clients forked by another" },
		{ sh->waits, "", "client waited for by another", "clients waited for by another" },
	};
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && len < cap; i++)
		if (parts[i].n)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s%llu %s", len ? "; " : "", parts[i].pre,
						(unsigned long long)parts[i].n, parts[i].n == 1 ? parts[i].one : parts[i].many);
	if (!len)
		snprintf(buf, cap, "the trace's clients share no path, handle or process");
}

/*
 * --order auto, decided once from the plan's scan (rp_plan.share): resource
 * when the clients share anything, else client.  Resource's own scan failing
 * on the trace (tables past order_mem_max, contradicting fork and wait ops)
 * falls back to client order, said in the results; other errors are errors.
 */
static int order_auto(rp_replay *r, char *errbuf)
{
	const rp_plan_share *const sh = &r->plan.share;
	rp_replay_results *const res = &r->res;
	res->order_auto = true;
	if (r->n_trace_clients > 1)
		share_text(sh, res->order_why, sizeof(res->order_why));
	else
		snprintf(res->order_why, sizeof(res->order_why), "the trace has one client (copies share nothing)");
	r->opts.order = RP_ORDER_CLIENT;
	if (!sh->paths && !sh->handles && !sh->forks && !sh->waits)
		return 0;
	char eb[RP_ERRBUF_SIZE];
	r->opts.order = RP_ORDER_RESOURCE;
	const int rc = rp__order_scan(r, eb);
	if (rc == 0)
		return 0;
	if (rc != RP_E_LIMIT && rc != RP_E_INVAL)
		return rp_fail(errbuf, rc, "%s", eb);
	r->opts.order = RP_ORDER_CLIENT;
	res->order_fallback = true;
	const size_t len = strlen(res->order_why);
	snprintf(res->order_why + len, sizeof(res->order_why) - len, ", but resource order cannot be kept (%s)", eb);
	return 0;
}

/*
 * Each client's bound on its ops in flight: the option's, or (auto) the
 * depth its trace recorded, at least 1 and at most the cap (RP_REPLAY_INFLIGHT_AUTO).
 */
static uint32_t inflight_cap(const rp_replay *r)
{
	if (rp__req_async(r->bops))
		return RP_REPLAY_MAX_INFLIGHT;
	const uint32_t share = r->n_clients ? RP_REPLAY_AUTO_WORKERS_MAX / r->n_clients : RP_REPLAY_AUTO_SYNC_MAX;
	return share > RP_REPLAY_AUTO_SYNC_MAX ? RP_REPLAY_AUTO_SYNC_MAX : share ? share : 1;
}

static uint32_t inflight_bound(const rp_replay *r, uint32_t trace_slot, uint32_t cap)
{
	if (r->opts.max_inflight != RP_REPLAY_INFLIGHT_AUTO)
		return r->opts.max_inflight;
	const uint32_t rec = r->rec_depth ? r->rec_depth[trace_slot].max : 1;
	return rec < 1 ? 1 : rec > cap ? cap : rec;
}

int rp_replay_create(rp_replay **out, const rp_replay_opts *opts, rp_workload *w, char *errbuf)
{
	*out = NULL;
	int rc = check_opts(opts, errbuf);
	if (rc < 0)
		return rc;
	rp_replay *const r = calloc(1, sizeof(*r));
	if (r) {
		rp__ntlocks_init(&r->ntlocks);
		rp__share_init(r);
	}
	if (!r)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	r->opts = *opts;
	r->res.final_sync.dirty_start = r->res.final_sync.dirty_end = -1; /* unknown until the run */
	r->w = w;
	r->target = strdup(opts->target);
	if (!r->target) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto fail;
	}
	r->opts.target = r->target;
	r->opts.backend = r->opts.backend_opts = NULL; /* not kept: the caller's strings */
	r->opts.backend_items = NULL;
	r->opts.n_backend_items = 0;
	rc = pick_backend(opts, &r->bops, errbuf);
	if (rc < 0)
		goto fail;
	r->nt_layer = !(r->bops->caps & RP_BCAP_NT_NATIVE);
	r->op_mask = r->bops->op_mask ? r->bops->op_mask : RP_BACKEND_ALL_OPS;
	/* dup and fork are the engine's own; copy needs rp_breq.bh2, so a backend older than version 5 cannot */
	r->op_mask |= UINT64_C(1) << RP_OP_DUP | UINT64_C(1) << RP_OP_FORK | UINT64_C(1) << RP_OP_WAIT;
	if (r->bops->version < 5)
		r->op_mask &= ~(UINT64_C(1) << RP_OP_COPY);
	r->client_error = r->bops->version >= 6 ? r->bops->client_error : NULL;
	r->fast_mask = r->op_mask & ~(UINT64_C(1) << RP_OP_DUP | UINT64_C(1) << RP_OP_FORK | UINT64_C(1) << RP_OP_COPY |
				      UINT64_C(1) << RP_OP_WAIT);
	rc = rp_backend_parse_list(r->bops, opts->backend_opts, opts->backend_items, opts->n_backend_items, &r->bopts, errbuf);
	if (rc < 0)
		goto fail;
	if (opts->clock) {
		r->clock = *opts->clock;
		r->spin_ns = 0; /* an injected clock only advances when slept on */
	} else {
		r->clock = (rp_replay_clock){ rp__clock_mono, rp__clock_mono_sleep, NULL };
		r->mono = true;
		r->spin_ns = opts->spin_us > 0 ? (uint64_t)(opts->spin_us * 1e3) : 0;
	}
	r->inv_speed = 1.0 / opts->speed;
	r->offset_ns = (uint64_t)(opts->clone_offset_s * 1e9);
	atomic_init(&r->stop, false);
	atomic_init(&r->aborted, 0);
	atomic_init(&r->stop_at, 0);
	rc = rp__scan(r, errbuf);
	if (rc < 0)
		goto fail;
	if (r->opts.order == RP_ORDER_AUTO)
		rc = order_auto(r, errbuf);
	else if (r->opts.order == RP_ORDER_RESOURCE)
		rc = rp__order_scan(r, errbuf);
	if (rc < 0)
		goto fail;
	uint32_t n_clients;
	rc = count_clients(r, &n_clients, errbuf);
	if (rc < 0)
		goto fail;
	uint64_t mask = r->op_mask;
	const rp_backend_args args = { .target = r->target,
				       .kv = r->bopts.kv,
				       .n_kv = r->bopts.n_kv,
				       .vals = r->bopts.vals,
				       .n_vals = r->bopts.n_vals,
				       .n_clients = n_clients,
				       .protos = r->plan.protos,
				       .op_mask = &mask,
				       .flags_every = r->plan.flags_every };
	rc = r->bops->create(&r->bstate, &args, errbuf);
	if (rc < 0) {
		r->bstate = NULL;
		goto fail;
	}
	/* Narrowed only (dup, fork and wait stay the engine's own). */
	r->op_mask &= mask | UINT64_C(1) << RP_OP_DUP | UINT64_C(1) << RP_OP_FORK | UINT64_C(1) << RP_OP_WAIT;
	r->fast_mask &= r->op_mask;
	*out = r;
	return 0;
fail:
	rp_replay_destroy(r);
	return rc;
}

/* How the backend replayed (its mode, fallbacks), into the results: once every client has stopped. */
static void backend_report(rp_replay *r)
{
	if (r->bops->version < 10 || !r->bops->report || !r->bstate)
		return;
	rp_backend_report rep;
	memset(&rep, 0, sizeof(rep));
	r->bops->report(r->bstate, &rep);
	rp_replay_results *const res = &r->res;
	res->backend_mode = rep.mode;
	res->backend_mode_why = r->bops->version >= 12 ? rep.mode_why : NULL;
	res->protocol_ops = rep.protocol_ops;
	res->own_requests = rep.own_requests;
	res->lock_polls = rep.lock_polls;
	res->lock_releases = rep.lock_releases;
	res->lock_expired = rep.lock_expired;
	res->n_fallbacks = 0;
	for (size_t i = 0; i < rep.n_fallbacks && i < RP_BACKEND_REPORT_MAX && i < RP_REPLAY_FALLBACKS; i++) {
		if (!rep.fallbacks[i].reason || !rep.fallbacks[i].count)
			continue;
		res->fallbacks[res->n_fallbacks].reason = rep.fallbacks[i].reason;
		res->fallbacks[res->n_fallbacks].count = rep.fallbacks[i].count;
		res->n_fallbacks++;
	}
}

static int make_clients(rp_replay *r, char *errbuf)
{
	const uint32_t copies = r->opts.clones ? r->opts.clones : 1;
	int rc = count_clients(r, &r->n_clients, errbuf); /* checked in create: this cannot fail */
	if (rc < 0)
		return rc;
	r->clients = calloc(r->n_clients ? r->n_clients : 1, sizeof(*r->clients));
	if (!r->clients)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const uint32_t cap = inflight_cap(r);
	if (r->opts.max_inflight == RP_REPLAY_INFLIGHT_AUTO) {
		r->res.inflight_auto = true;
		r->res.inflight_cap = cap;
	}
	for (uint32_t k = 0, i = 0; k < copies; k++) {
		for (uint32_t t = 0; t < r->n_trace_clients; t++, i++) {
			const size_t sz = (sizeof(rp_client) + 63) & ~(size_t)63;
			rp_client *const c = aligned_alloc(64, sz);
			if (!c)
				return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
			memset(c, 0, sz);
			r->clients[i] = c;
			c->r = r;
			c->index = i;
			c->stop = RP_STOP__COUNT; /* none yet */
			c->sp_first = c->sp_sched_first = UINT64_MAX; /* no measured op yet */
			c->trace_client = r->trace_clients[t];
			c->clone = k;
			c->bound = inflight_bound(r, t, cap);
			if (r->opts.clones)
				snprintf(c->dir, sizeof(c->dir), "client%u", r->opts.clone_base + k + 1);
			rp__handles_init(&c->handles);
			rp__ntclient_init(&c->nt);
			rp__order_client(c);
			c->bstate = calloc(1, r->bops->client_size ? r->bops->client_size : 1);
			if (r->opts.timing != RP_TIMING_AFAP && (c->lag = malloc(sizeof(*c->lag))))
				rp__hist_init(c->lag);
			if (!c->bstate || (r->opts.timing != RP_TIMING_AFAP && !c->lag))
				return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		}
	}
	return rp__share_gates(r, errbuf);
}

int rp_replay_prepare(rp_replay *r, char *errbuf)
{
	if (r->prepared)
		return 0;
	r->prepared = true;
	if (r->opts.no_prepare) {
		if (r->opts.drop_caches)
			r->res.prepare.caches = rp__drop_caches();
		return 0;
	}
	return rp__prepare_run(r, errbuf);
}

/*
 * Prepare failed (its connection was refused, the server went away): the run
 * began at begin and ends now, with stop "error" and that failure as its
 * error, as a backend that cannot go on during the run ends it; no client
 * runs.  rp_replay_finish reports it like any other run.
 */
static int start_failed(rp_replay *r, uint64_t begin, int rc, const char *errbuf)
{
	r->t0 = r->warm_end = begin;
	r->end = 0;
	r->start_rc = rc;
	snprintf(r->res.error, sizeof(r->res.error), "%s", errbuf);
	atomic_store(&r->stop_at, r->clock.now(r->clock.ctx));
	atomic_store(&r->stop, true);
	r->started = true;
	return rc;
}

int rp_replay_start(rp_replay *r, char *errbuf)
{
	if (r->started)
		return rp_fail(errbuf, RP_E_STATE, "already started");
	const uint64_t begin = r->clock.now(r->clock.ctx);
	int rc = rp_replay_prepare(r, errbuf);
	if (rc < 0)
		return start_failed(r, begin, rc, errbuf);
	rc = make_clients(r, errbuf);
	if (rc < 0)
		return rc;
	r->res.final_sync.dirty_start = rp__dirty_bytes();
	/*
	 * Every client starts at one absolute time, a little ahead, so thread
	 * creation is not in it: 2 ms and 100 us a client (tens of us each here,
	 * under load too), at most 10 ms; every run's process waits that long.
	 */
	const uint64_t now = r->clock.now(r->clock.ctx);
	const uint64_t ahead = 2000000ull + 100000ull * r->n_clients;
	r->t0 = now + (ahead < 10000000ull ? ahead : 10000000ull) * (r->opts.clock == NULL);
	const double warm = r->opts.warmup_s >= 0 ? r->opts.warmup_s : r->opts.duration_s / 5;
	r->res.warmup_s = r->opts.duration_s > 0 ? warm : 0;
	r->warm_end = r->t0 + (uint64_t)(r->res.warmup_s * 1e9);
	r->end = r->opts.duration_s > 0 ? r->warm_end + (uint64_t)(r->opts.duration_s * 1e9) : 0;
	r->started = true;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		rp_client *const c = r->clients[i];
		atomic_store(&c->running, 1);
		if (pthread_create(&c->thread, NULL, rp__client_main, c) != 0) {
			atomic_store(&c->running, 0);
			rp_replay_stop(r);
			return rp_fail(errbuf, RP_E_SYSTEM, "cannot start client thread %u: %s", i, strerror(errno));
		}
		c->started = true;
	}
	return 0;
}

static uint32_t running(const rp_replay *r)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->n_clients; i++)
		n += atomic_load_explicit(&r->clients[i]->running, memory_order_acquire) != 0;
	return n;
}

int rp_replay_wait(rp_replay *r, unsigned timeout_ms)
{
	/*
	 * Woken by each client's end (r->ended, client_thread.c), which is off
	 * every hot path: the clients wake no one while they run.
	 */
	const uint64_t until = rp__mono_ns() + (uint64_t)timeout_ms * 1000000u;
	for (;;) {
		const uint32_t seen = atomic_load_explicit(&r->ended, memory_order_acquire);
		if (!r->started || running(r) == 0)
			return 1;
		const uint64_t now = rp__mono_ns();
		if (now >= until)
			return 0;
		const uint64_t left = until - now;
		const struct timespec ts = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
		syscall(SYS_futex, (uint32_t *)&r->ended, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
	}
}

void rp_replay_stop(rp_replay *r)
{
	/*
	 * The interrupted run's measured period ends here, not at its last
	 * completion: a client may have been waiting for an op's recorded time.
	 * clock_gettime is async-signal-safe; an injected clock may not be, and
	 * is read in rp_replay_finish instead.
	 */
	uint64_t none = 0;
	if (r->mono)
		atomic_compare_exchange_strong(&r->stop_at, &none, rp__mono_ns());
	atomic_store_explicit(&r->stop, true, memory_order_relaxed);
}

void rp_replay_progress_get(rp_replay *r, rp_replay_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->timing = r->opts.timing;
	if (!r->started)
		return;
	const uint64_t now = r->clock.now(r->clock.ctx);
	p->elapsed_s = now > r->t0 ? (double)(now - r->t0) / 1e9 : 0;
	p->warmup = now < r->warm_end;
	p->clients = r->n_clients;
	uint64_t lag = 0;
	for (uint32_t i = 0; i < r->n_clients; i++) {
		rp_client *const c = r->clients[i];
		p->running += atomic_load_explicit(&c->running, memory_order_relaxed) != 0;
		p->ops += atomic_load_explicit(&c->prog_ops, memory_order_relaxed);
		p->bytes += atomic_load_explicit(&c->prog_bytes, memory_order_relaxed);
		const uint64_t l = atomic_exchange_explicit(&c->prog_lag_max, 0, memory_order_relaxed);
		if (l > lag)
			lag = l;
	}
	p->lag_max_us = (double)lag / 1e3;
}

int rp_replay_finish(rp_replay *r, char *errbuf)
{
	if (r->finished)
		return 0;
	r->finished = true;
	if (atomic_load(&r->stop) && !r->mono) {
		uint64_t none = 0;
		atomic_compare_exchange_strong(&r->stop_at, &none, r->clock.now(r->clock.ctx));
	}
	for (uint32_t i = 0; i < r->n_clients; i++)
		if (r->clients[i]->started)
			pthread_join(r->clients[i]->thread, NULL);
	if (r->started && !r->start_rc)
		rp__final_sync(r); /* before the merge: the sync's time is part of the measured period */
	const int rc = rp__stats_merge(r);
	if (rc < 0)
		return rp_fail(errbuf, rc, "out of memory merging statistics");
	backend_report(r);
	for (uint32_t i = 0; i < r->n_clients; i++)
		if (r->clients[i]->rc < 0)
			return rp_fail(errbuf, r->clients[i]->rc, "%s", r->clients[i]->errbuf);
	return 0;
}

int rp_replay_run(rp_replay *r, char *errbuf)
{
	int rc = rp_replay_start(r, errbuf);
	if (rc == 0)
		while (!rp_replay_wait(r, 1000))
			;
	const int frc = r->started ? rp_replay_finish(r, rc < 0 ? NULL : errbuf) : 0;
	return rc < 0 ? rc : frc;
}

bool rp_replay_began(const rp_replay *r)
{
	return r->started;
}

const rp_replay_results *rp_replay_get_results(const rp_replay *r)
{
	return &r->res;
}

void rp_replay_destroy(rp_replay *r)
{
	if (!r)
		return;
	if (r->started && !r->finished) {
		rp_replay_stop(r);
		rp_replay_finish(r, NULL);
	}
	for (uint32_t i = 0; r->clients && i < r->n_clients; i++)
		rp__client_free(r->clients[i]);
	free(r->clients);
	if (r->bstate)
		r->bops->destroy(r->bstate);
	rp__order_free(r); /* before the plan: its tables are by trace client */
	rp__prepare_free(r); /* trace_clients with the plan */
	free(r->res.series);
	free(r->res.client_depth);
	free(r->res.client);
	rp__stats_free(&r->res);
	rp_backend_parsed_free(&r->bopts);
	free(r->target);
	rp__ntlocks_fini(&r->ntlocks);
	rp__share_fini(r);
	free(r);
}
