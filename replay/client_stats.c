/* A client's statistics, the slow paths (replay/client_stats.h). */
#include "replay/client_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine.h"

/* The series entry for time t, when t is past the cached second. */
rp_csecond *rp__cstats_second_slow(rp_client *c, uint64_t t)
{
	const rp_replay *const r = c->r;
	const size_t i = t > r->t0 ? (size_t)((t - r->t0) / RP__CSTATS_NS) : 0;
	if (i >= c->n_series) {
		size_t n = c->n_series ? c->n_series : 64;
		while (n <= i)
			n *= 2;
		rp_csecond *const s = realloc(c->series, n * sizeof(*s));
		if (!s)
			return c->sec = NULL;
		memset(s + c->n_series, 0, (n - c->n_series) * sizeof(*s));
		c->series = s;
		c->n_series = n;
	}
	c->sec_end = r->t0 + (uint64_t)(i + 1) * RP__CSTATS_NS;
	return c->sec = &c->series[i];
}

/*
 * A mismatch: count it under its kind (op, expected, got), keeping the kind's
 * first example, and stop everything under --on-mismatch=abort.
 */
void rp__cstats_mismatch(rp_client *c, const rp_op *op, uint64_t index, int32_t expected, int32_t actual,
		     const char *path, bool measured)
{
	rp_replay *const r = c->r;
	size_t k = measured ? 0 : RP_REPLAY_SAMPLES + 1; /* a warm-up one aborts, but is not counted (as a->mismatches) */
	while (k < c->n_samples &&
	       !(c->samples[k].op == op->op && c->samples[k].expected == expected && c->samples[k].actual == actual))
		k++;
	if (k < c->n_samples) {
		c->samples[k].count++;
	} else if (k < RP_REPLAY_SAMPLES) {
		rp_replay_sample *const s = &c->samples[c->n_samples++];
		s->client = c->trace_client;
		s->copy = r->opts.clones ? r->opts.clone_base + c->clone + 1 : 0;
		s->index = index;
		s->op = op->op;
		s->expected = expected;
		s->actual = actual;
		s->count = 1;
		s->handle = op->handle;
		snprintf(s->path, sizeof(s->path), "%s", path ? path : "");
	} else if (measured) {
		c->sample_others++;
	}
	if (r->opts.on_mismatch == RP_MISMATCH_ABORT) {
		atomic_store(&r->aborted, 1);
		atomic_store(&r->stop, true);
	}
}

rp_hist *rp__cstats_new_hist(void)
{
	rp_hist *const h = malloc(sizeof(*h));
	if (h)
		rp__hist_init(h);
	return h;
}
