/* One replay client: its thread, its op source, its schedule, its handle table and statistics. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "replay/engine.h"

#define NS 1000000000ull

/* The path behind string id, normalised and cached per client (ids are per source). */
static const rp_pathent *path_get(rp_client *c, uint32_t id)
{
	static const rp_pathent bad = { NULL, EINVAL };
	if (id >= c->n_paths) {
		size_t n = c->n_paths ? c->n_paths : 256;
		while (n <= id)
			n *= 2;
		rp_pathent *const p = realloc(c->paths, n * sizeof(*p));
		if (!p)
			return &bad;
		memset(p + c->n_paths, 0, (n - c->n_paths) * sizeof(*p));
		c->paths = p;
		c->n_paths = n;
	}
	rp_pathent *const e = &c->paths[id];
	if (e->s || e->err)
		return e;
	uint32_t len = 0;
	const char *const raw = c->src->string(c->src, id, &len);
	if (!raw) {
		e->err = EINVAL;
		return e;
	}
	char buf[PATH_MAX];
	const int n = rp__path_norm(raw, len, buf, sizeof(buf));
	if (n < 0) {
		e->err = -n;
		return e;
	}
	e->s = malloc((size_t)n + 1);
	if (!e->s)
		return &bad;
	memcpy(e->s, buf, (size_t)n + 1);
	return e;
}

static void async_done(rp_breq *req)
{
	*(bool *)req->data = true;
}

static void submit(rp_client *c, rp_breq *req)
{
	const rp_replay *const r = c->r;
	if (!(r->bops->caps & RP_BCAP_ASYNC) || !r->bops->poll) {
		req->cb = NULL;
		r->bops->submit(r->bstate, c->bstate, req);
		return;
	}
	bool done = false;
	req->cb = async_done;
	req->data = &done;
	const int rc = r->bops->submit(r->bstate, c->bstate, req);
	if (rc < 0) {
		req->status = RP_STATUS_OTHER;
		return;
	}
	while (!done)
		r->bops->poll(r->bstate, c->bstate, 1000000);
}

static rp_csecond *second(rp_client *c, uint64_t t)
{
	const rp_replay *const r = c->r;
	const size_t i = t > r->t0 ? (size_t)((t - r->t0) / NS) : 0;
	if (i >= c->n_series) {
		size_t n = c->n_series ? c->n_series : 64;
		while (n <= i)
			n *= 2;
		rp_csecond *const s = realloc(c->series, n * sizeof(*s));
		if (!s)
			return NULL;
		memset(s + c->n_series, 0, (n - c->n_series) * sizeof(*s));
		c->series = s;
		c->n_series = n;
	}
	return &c->series[i];
}

static bool matches(int32_t expected, int32_t actual)
{
	if (expected == RP_STATUS_UNKNOWN)
		return true;
	if (expected == RP_STATUS_OTHER)
		return actual != 0;
	return expected == actual;
}

static void sample(rp_client *c, const rp_op *op, uint64_t index, int32_t actual, const char *path)
{
	if (c->n_samples == RP_REPLAY_SAMPLES)
		return;
	rp_replay_sample *const s = &c->samples[c->n_samples++];
	s->client = c->index;
	s->index = index;
	s->op = op->op;
	s->expected = op->status;
	s->actual = actual;
	snprintf(s->path, sizeof(s->path), "%s", path ? path : "");
}

/* Statistics for one op that ran (or was refused by the engine: lat_ok false). */
static void record(rp_client *c, const rp_op *op, uint64_t index, uint64_t sched, uint64_t issue, uint64_t done,
		   bool lat_ok, int32_t status, uint64_t result, const char *path)
{
	rp_replay *const r = c->r;
	const bool warm = issue < r->warm_end;
	const bool bad = !matches(op->status, status);
	const bool io = op->op == RP_OP_READ || op->op == RP_OP_WRITE;
	const uint64_t bytes = io && status == 0 ? result : 0;
	const uint64_t lag = sched && issue > sched ? issue - sched : 0;

	rp_csecond *const s = second(c, issue);
	if (s) {
		s->ops++;
		s->bytes += bytes;
		s->failures += status != 0;
		if (lag > s->lag_max)
			s->lag_max = lag;
	}
	atomic_store_explicit(&c->prog_ops, atomic_load_explicit(&c->prog_ops, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	if (bytes)
		atomic_store_explicit(&c->prog_bytes,
				      atomic_load_explicit(&c->prog_bytes, memory_order_relaxed) + bytes,
				      memory_order_relaxed);
	if (lag > atomic_load_explicit(&c->prog_lag_max, memory_order_relaxed))
		atomic_store_explicit(&c->prog_lag_max, lag, memory_order_relaxed);

	if (bad) {
		sample(c, op, index, status, path);
		if (r->opts.on_mismatch == RP_MISMATCH_ABORT) {
			atomic_store(&r->aborted, 1);
			atomic_store(&r->stop, true);
		}
	}
	if (warm) {
		c->warmup_ops++;
		return;
	}
	rp_opacc *const a = &c->acc[op->op];
	a->count++;
	a->bytes += bytes;
	a->mismatches += bad;
	if (status != 0) {
		a->failures++;
		c->errnos[status > 0 && status < RP_REPLAY_ERRNO_MAX ? status : 0]++;
	}
	if (lat_ok) {
		if (!a->lat && (a->lat = malloc(sizeof(*a->lat))))
			rp__hist_init(a->lat);
		if (a->lat)
			rp__hist_add(a->lat, done - issue);
	}
	if (sched && c->lag)
		rp__hist_add(c->lag, lag);
}

/* Run one op now.  Returns the completion time. */
static uint64_t exec(rp_client *c, const rp_op *op, uint64_t index, uint64_t sched, uint64_t issue)
{
	rp_replay *const r = c->r;
	rp_breq req;
	memset(&req, 0, sizeof(req));
	req.op = op;
	req.dialect = r->dialect;
	int refuse = 0;
	if (op->path) {
		const rp_pathent *const p = path_get(c, op->path);
		req.path = p->s;
		refuse = p->err;
	}
	if (op->path2 && !refuse) {
		const rp_pathent *const p = path_get(c, op->path2);
		req.path2 = p->s;
		refuse = p->err;
	}
	if (refuse) {
		c->acc[op->op].escapes += refuse == EXDEV && issue >= r->warm_end;
		record(c, op, index, sched, issue, issue, false, refuse, 0, req.path);
		return issue;
	}
	if (op->op != RP_OP_OPEN && op->handle && !rp__handles_get(&c->handles, op->handle, &req.bh)) {
		if (r->opts.on_mismatch == RP_MISMATCH_SKIP) {
			c->acc[op->op].skipped += issue >= r->warm_end;
			return issue;
		}
		c->acc[op->op].unknown += issue >= r->warm_end;
		record(c, op, index, sched, issue, issue, false, EBADF, 0, req.path);
		return issue;
	}
	submit(c, &req);
	const uint64_t done = r->clock.now(r->clock.ctx);
	if (op->op == RP_OP_OPEN && req.status == 0 && op->handle) {
		uint64_t old;
		if (rp__handles_get(&c->handles, op->handle, &old))
			r->bops->release(r->bstate, c->bstate, old);
		if (rp__handles_put(&c->handles, op->handle, req.bh) < 0)
			r->bops->release(r->bstate, c->bstate, req.bh);
	} else if (op->op == RP_OP_CLOSE) {
		uint64_t old;
		rp__handles_del(&c->handles, op->handle, &old);
	}
	record(c, op, index, sched, issue, done, true, req.status, req.result, req.path);
	c->last_done = done;
	return done;
}

static void release_all(rp_client *c)
{
	const rp_replay *const r = c->r;
	uint64_t key, bh;
	while (rp__handles_pop(&c->handles, &key, &bh))
		r->bops->release(r->bstate, c->bstate, bh);
}

static inline uint64_t scale(const rp_replay *r, uint64_t t)
{
	return r->inv_speed == 1.0 ? t : (uint64_t)((double)t * r->inv_speed);
}

static bool stopping(const rp_replay *r)
{
	return atomic_load_explicit(&r->stop, memory_order_relaxed);
}

/* The client's passes through its ops until the end, the time limit or a stop. */
static void run(rp_client *c)
{
	rp_replay *const r = c->r;
	const uint64_t start = r->t0 + (uint64_t)c->clone * r->offset_ns;
	if (rp__wait_until(r, start) < start) {
		c->stop = "interrupted";
		return;
	}
	uint64_t base = start;
	for (;;) {
		uint64_t span = 0, first_start = 0, index = 0, prev_done = r->clock.now(r->clock.ctx), prev_rec_end = 0;
		for (;;) {
			if (stopping(r)) {
				c->stop = atomic_load(&r->aborted) ? "mismatch" : "interrupted";
				return;
			}
			rp_op op;
			const int rc = c->src->next(c->src, &op);
			if (rc < 0) {
				c->rc = rp_fail(c->errbuf, rc, "client %u: %s", c->index, c->src->errbuf);
				c->stop = "error";
				return;
			}
			if (rc == 0)
				break;
			if (op.op >= RP_OP__COUNT)
				continue; /* an op newer than this engine: the reader already vouched for the record */
			if (index++ == 0)
				first_start = op.t_start;
			const uint64_t rec_end = op.t_end != RP_TIME_UNKNOWN && op.t_end > op.t_start ? op.t_end : op.t_start;
			if (rec_end > span)
				span = rec_end;
			uint64_t sched = 0;
			if (r->opts.timing == RP_TIMING_TRACE) {
				sched = base + scale(r, op.t_start);
			} else if (r->opts.timing == RP_TIMING_THINK) {
				const uint64_t gap = index > 1 && op.t_start > prev_rec_end ? op.t_start - prev_rec_end : 0;
				sched = prev_done + scale(r, gap);
			}
			if (op.op == RP_OP_SLEEP) {
				/* An explicit pause; in trace timing the timestamps already hold it. */
				if (r->opts.timing != RP_TIMING_TRACE)
					prev_done = rp__wait_until(r, (sched ? sched : prev_done) + scale(r, op.length));
				prev_rec_end = rec_end;
				c->acc[RP_OP_SLEEP].count += prev_done >= r->warm_end;
				continue;
			}
			if (sched) {
				if (r->end && sched >= r->end) {
					c->stop = "time";
					return;
				}
				rp__wait_until(r, sched);
			}
			const uint64_t issue = r->clock.now(r->clock.ctx);
			if (r->end && issue >= r->end) {
				c->stop = "time";
				return;
			}
			if (stopping(r))
				continue; /* reported at the top of the loop */
			prev_done = exec(c, &op, index, sched, issue);
			prev_rec_end = rec_end;
		}
		release_all(c);
		c->passes++;
		if (index == 0 || !r->end) {
			c->stop = "end";
			return;
		}
		const int rc = c->src->rewind(c->src);
		if (rc < 0) {
			c->rc = rp_fail(c->errbuf, rc, "client %u: rewind: %s", c->index, c->src->errbuf);
			c->stop = "error";
			return;
		}
		/*
		 * The next pass starts one mean inter-op gap after the last op of this
		 * one, as if the trace went on (at least 1 us, so an untimed trace still
		 * advances).
		 */
		const uint64_t gap = index > 1 && span > first_start ? (span - first_start) / (index - 1) : 0;
		const uint64_t step = scale(r, span + gap);
		base += step > 1000 ? step : 1000;
	}
}

void *rp__client_main(void *arg)
{
	rp_client *const c = arg;
	rp_replay *const r = c->r;
	/* The default 50 us timer slack would make every sleep that late: scheduled timing wants 1 ns. */
	if (r->opts.timing != RP_TIMING_AFAP)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (r->opts.on_thread)
		r->opts.on_thread(r->opts.on_thread_ctx, c->index);
	int rc = r->bops->client_init(r->bstate, c->bstate, c->dir, c->errbuf);
	if (rc < 0) {
		c->rc = rc;
		c->stop = "error";
		goto out;
	}
	c->binit = true;
	rc = r->w->open(r->w, false, c->trace_client, &c->src, c->errbuf);
	if (rc < 0) {
		c->rc = rc;
		c->stop = "error";
		goto out;
	}
	run(c);
	release_all(c);
out:
	if (c->src)
		c->src->close(c->src);
	c->src = NULL;
	if (c->binit)
		r->bops->client_fini(r->bstate, c->bstate);
	c->binit = false;
	atomic_store_explicit(&c->running, 0, memory_order_release);
	return NULL;
}

void rp__client_free(rp_client *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		free(c->acc[i].lat);
	free(c->lag);
	for (size_t i = 0; i < c->n_paths; i++)
		free(c->paths[i].s);
	free(c->paths);
	free(c->series);
	free(c->bstate);
	rp__handles_fini(&c->handles);
	free(c);
}
