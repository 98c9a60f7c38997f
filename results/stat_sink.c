/* reprise stat's sink (results/stat_sink.h): the summary, the plan and the timeline fed each op once. */
#include "results/stat_sink.h"

#include <string.h>

#include "formats/error.h"

static int st_meta(rp_sink *s, const rp_trace_meta *m)
{
	((rp_stat_sink *)s)->meta = *m;
	return 0;
}

static int st_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	/* the summary counts distinct ids and needs no bytes; the plan follows paths */
	rp_stat_sink *const ss = (rp_stat_sink *)s;
	if (ss->fid && rp_fid_string(ss->fid, id, str, len) < 0)
		return rp_fail(s->errbuf, RP_E_NOMEM, "closed loop: out of memory");
	rp_sink *const p = rp_plan_sink_base(ss->plan_sink);
	const int rc = p->string(p, id, str, len);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", p->errbuf) : 0;
}

static int st_op(rp_sink *s, const rp_op *op)
{
	rp_stat_sink *const ss = (rp_stat_sink *)s;
	int rc = rp_summary_add(ss->sum, op);
	if (rc < 0)
		return rp_fail(s->errbuf, rc, "summary: %s", rp_strerror(rc));
	if (ss->timeline && (rc = rp_timeline_add(ss->timeline, op)) == RP_E_LIMIT) {
		ss->timeline_full = true;
		return rp_fail(s->errbuf, rc, "timeline: an op at %.3f s is past the last of its %d steps",
			       (double)op->t_start / 1e9, RP_TIMELINE_MAX);
	}
	if (rc < 0)
		return rp_fail(s->errbuf, rc, "timeline: %s", rp_strerror(rc));
	if (ss->fid && rp_fid_op(ss->fid, op) < 0)
		return rp_fail(s->errbuf, RP_E_NOMEM, "closed loop: out of memory");
	rp_sink *const p = rp_plan_sink_base(ss->plan_sink);
	rc = p->op(p, op);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", p->errbuf) : 0;
}

static int st_finish(rp_sink *s)
{
	(void)s;
	return 0;
}

int rp_stat_sink_init(rp_stat_sink *s, uint64_t timeline_step_ns)
{
	memset(s, 0, sizeof(*s));
	s->base = (rp_sink){ .meta = st_meta, .string = st_string, .op = st_op, .finish = st_finish };
	s->sum = rp_summary_create();
	s->timeline = timeline_step_ns ? rp_timeline_create(timeline_step_ns) : NULL;
	const rp_plan_opts po = { .items = true };
	if (!s->sum || (timeline_step_ns && !s->timeline) || rp_plan_sink_create(&s->plan_sink, &po) < 0)
		return RP_E_NOMEM;
	return RP_OK;
}

int rp_stat_sink_fidelity(rp_stat_sink *s)
{
	if (!s->fid)
		s->fid = rp_fid_create();
	return s->fid ? RP_OK : RP_E_NOMEM;
}

int rp_stat_sink_plan(rp_stat_sink *s, char *errbuf)
{
	return rp_plan_sink_finish(s->plan_sink, &s->plan, errbuf);
}

void rp_stat_sink_fini(rp_stat_sink *s)
{
	rp_plan_free(&s->plan);
	rp_plan_sink_destroy(s->plan_sink);
	rp_summary_destroy(s->sum);
	rp_timeline_destroy(s->timeline);
	rp_fid_destroy(s->fid);
	memset(s, 0, sizeof(*s));
}
