/* A run's verdict: whether trace or think timing fell behind, whether its results represent the trace, and why not. */
#include "replay/verdict.h"

#include <errno.h>
#include <stdio.h>

void rp__verdict_schedule(rp_replay_schedule *s, double lag_p99_us)
{
	s->behind = false;
	s->span_s = s->rec_span_s = 0;
	s->ratio = -1;
	if (!s->known)
		return;
	s->span_s = s->last_s > s->first_s ? s->last_s - s->first_s : 0;
	s->rec_span_s = s->sched_last_s > s->sched_first_s ? s->sched_last_s - s->sched_first_s : 0;
	/* A span the clock cannot resolve is no span: every op was recorded at one instant. */
	if (s->rec_span_s > 1e-9)
		s->ratio = s->span_s / s->rec_span_s;
	s->behind = (s->ratio >= 0 && s->ratio > s->max_ratio) || lag_p99_us > s->max_lag_us;
}

/* Mismatches of ops recorded as succeeding that got err, from the kinds kept (the first 16). */
static uint64_t got(const rp_replay_results *res, int32_t err)
{
	uint64_t n = 0;
	for (size_t i = 0; i < res->n_samples; i++)
		if (res->samples[i].expected == 0 && res->samples[i].actual == err)
			n += res->samples[i].count;
	return n;
}

static bool target_not_empty(const rp_replay_results *res)
{
	return res->target_entries > 0 || res->prepare.kept + res->prepare.extended > 0;
}

/*
 * The likeliest cause, from the evidence: creations that found something in
 * a target that was not empty; files missing where prepare did not (fully)
 * run; clients of one trace replayed without their order across each other;
 * files missing all the same; a target that was not empty.
 */
static rp_cause guess(const rp_replay_results *res)
{
	const uint64_t missing = got(res, ENOENT);
	const uint64_t found = got(res, EEXIST) + got(res, ENOTEMPTY);
	const bool nonempty = target_not_empty(res);
	if (nonempty && found > 0 && found >= missing)
		return RP_CAUSE_TARGET;
	if (missing > 0 && (!res->prepare.ran || res->prepare.failures))
		return RP_CAUSE_PREPARE;
	/* Client order with several clients, unless --order auto found they share nothing order could keep. */
	if (res->order == RP_ORDER_CLIENT && res->trace_clients > 1 && (!res->order_auto || res->order_fallback))
		return RP_CAUSE_ORDER;
	if (missing > 0)
		return RP_CAUSE_PREPARE;
	return nonempty ? RP_CAUSE_TARGET : RP_CAUSE_UNKNOWN;
}

void rp__verdict(rp_replay_results *res)
{
	rp__verdict_schedule(&res->schedule, res->lag_p99_us);
	res->mismatch_share = res->ops ? (double)res->mismatches / (double)res->ops : 0;
	res->representative = !(res->mismatch_share > RP_REPLAY_MISMATCH_SHARE_MAX);
	res->likely_cause = res->representative ? RP_CAUSE_NONE : guess(res);
}

const char *rp_cause_name(rp_cause c)
{
	switch (c) {
	case RP_CAUSE_NONE: return NULL;
	case RP_CAUSE_UNKNOWN: return "unknown";
	case RP_CAUSE_ORDER: return "order";
	case RP_CAUSE_PREPARE: return "prepare";
	case RP_CAUSE_TARGET: return "target";
	}
	return NULL;
}

void rp_replay_cause_text(const rp_replay_results *res, char *buf, size_t n)
{
	const unsigned long long missing = got(res, ENOENT);
	switch (res->likely_cause) {
	case RP_CAUSE_NONE:
		snprintf(buf, n, "%s", "");
		return;
	case RP_CAUSE_ORDER:
		snprintf(buf, n,
			 "the trace's %u clients were replayed each in its own order (--order=client), so their ops on "
			 "files they share can run out of their recorded order: try --order=resource",
			 res->trace_clients);
		return;
	case RP_CAUSE_PREPARE:
		if (!res->prepare.ran)
			snprintf(buf, n,
				 "%llu op%s found no file where the recording found one (ENOENT), and prepare did not run "
				 "(--no-prepare): let prepare make what the trace expects to exist",
				 missing, missing == 1 ? "" : "s");
		else if (res->prepare.failures)
			snprintf(buf, n,
				 "%llu op%s found no file where the recording found one (ENOENT), and prepare failed to make "
				 "%llu of what the trace expects to exist (the Prepare: line)",
				 missing, missing == 1 ? "" : "s", (unsigned long long)res->prepare.failures);
		else
			snprintf(buf, n,
				 "%llu op%s found no file where the recording found one (ENOENT): prepare makes what the trace "
				 "uses and never creates, so the trace may lack the ops that made the rest (cut at its start?)",
				 missing, missing == 1 ? "" : "s");
		return;
	case RP_CAUSE_TARGET:
		if (res->target_entries > 0)
			snprintf(buf, n,
				 "the target was not empty (%lld entr%s before the run), so ops found what was there: replay "
				 "into an empty directory",
				 (long long)res->target_entries, res->target_entries == 1 ? "y" : "ies");
		else
			snprintf(buf, n,
				 "prepare found %llu files already there, so ops found what was there: replay into an "
				 "empty directory",
				 (unsigned long long)(res->prepare.kept + res->prepare.extended));
		return;
	case RP_CAUSE_UNKNOWN:
		break;
	}
	snprintf(buf, n, "%s", "nothing the run knows points to a cause: see the kinds of mismatch");
}
