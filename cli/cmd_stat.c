/* reprise stat TRACE: what a trace holds — provenance, decode quality, ops, clients, op mix, latency, bytes, sizes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/input.h"
#include "cli/outfile.h"
#include "cli/json.h"
#include "formats/plan.h"
#include "formats/summary.h"
#include "formats/timeline.h"

typedef struct stat_sink {
	rp_sink base;
	rp_summary *sum;
	rp_plan_sink *plan; /* what replay's prepare would create (formats/plan.h), fed the same ops */
	rp_timeline *timeline; /* --timeline; NULL without */
	rp_trace_meta meta;
} stat_sink;

static int st_meta(rp_sink *s, const rp_trace_meta *m)
{
	((stat_sink *)s)->meta = *m;
	return 0;
}

static int st_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	/* the summary counts distinct ids and needs no bytes; the plan follows paths */
	rp_sink *const p = rp_plan_sink_base(((stat_sink *)s)->plan);
	const int rc = p->string(p, id, str, len);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", p->errbuf) : 0;
}

static int st_op(rp_sink *s, const rp_op *op)
{
	stat_sink *const ss = (stat_sink *)s;
	int rc = rp_summary_add(ss->sum, op);
	if (rc < 0)
		return rp_fail(s->errbuf, rc, "summary: %s", rp_strerror(rc));
	if (ss->timeline && (rc = rp_timeline_add(ss->timeline, op)) < 0)
		return rc == RP_E_LIMIT ? rp_fail(s->errbuf, rc, "--timeline: an op at %.3f s is past %d steps: use a longer step",
						  (double)op->t_start / 1e9, RP_TIMELINE_MAX)
					: rp_fail(s->errbuf, rc, "timeline: %s", rp_strerror(rc));
	rp_sink *const p = rp_plan_sink_base(((stat_sink *)s)->plan);
	rc = p->op(p, op);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", p->errbuf) : 0;
}

static int st_finish(rp_sink *s)
{
	return 0;
}

static struct {
	bool json, lenient, verbose;
	const char *output;
	double from, until, timeline;
} o;

static const rp_opt options[] = {
	{ "json", 0, RP_OPT_FLAG, &o.json, NULL, "print JSON (schema in docs/stat-json.md)" },
	{ "output", 'o', RP_OPT_STRING, &o.output, "FILE", "write to FILE (renamed into place when complete) instead of standard output" },
	{ "lenient", 0, RP_OPT_FLAG, &o.lenient, NULL, "loadfile, text or strace input: skip bad lines, count and report them" },
	{ "verbose", 'v', RP_OPT_FLAG, &o.verbose, NULL, "say how TRACE is read (which format; a stream spooled to TMPDIR)" },
	{ "timeline", 0, RP_OPT_DURATION, &o.timeline, "STEP",
	  "add the ops, bytes and op mix of every STEP of the trace's time (1s, 100ms): its phases" },
	RP_CLI_WINDOW_OPTS(&o.from, &o.until),
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const rp_optrange ranges[] = {
	{ "timeline", 1e-6, 1e9 },
	RP_CLI_WINDOW_RANGES,
	{ NULL, 0, 0 },
};

static const rp_cmd spec = {
	.name = "stat",
	.usage = "[options] TRACE",
	.summary = "summarise a trace: provenance, decode quality, op mix, clients, recorded latency, bytes, I/O sizes",
	.details = "TRACE may be an .rpz trace, cat's text form, a dbench loadfile, an strace log, or a packet\n"
		   "capture decoded on the fly; - is standard input.\n"
		   "It shows the input, host and start time when the trace knows them; for a packet capture the\n"
		   "decode's counters (frames, messages, truncated, invalid, unsupported, unmatched, encrypted,\n"
		   "gaps).  \"files\" counts the distinct paths the ops name; \"failed\" counts ops whose recorded\n"
		   "status is an error.  The recorded latency is each op's reply time minus its call time (service\n"
		   "response time, as tshark -z smb2,srt) per op type: replies, min, avg, max and p99 in ms.  Clients\n"
		   "are named as `reprise cat` names them (cN); read and write sizes are the requested lengths in\n"
		   "power-of-two buckets.  --from and --until summarise a part of the trace (a phase found with\n"
		   "--timeline); times are seconds since the trace began, as `reprise cat` prints them.",
	.opts = options,
	.ranges = ranges,
	.min_args = 1,
	.max_args = 1,
};

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	stat_sink s = {
		.base = { .meta = st_meta, .string = st_string, .op = st_op, .finish = st_finish },
		.sum = rp_summary_create(),
		.timeline = o.timeline > 0 ? rp_timeline_create((uint64_t)(o.timeline * 1e9 + 0.5)) : NULL,
	};
	const rp_plan_opts po = { .items = true };
	if (!s.sum || (o.timeline > 0 && !s.timeline) || rp_plan_sink_create(&s.plan, &po) < 0) {
		fprintf(stderr, "reprise stat: out of memory\n");
		return 1;
	}
	rp_capture_stats cst;
	bool pcap = false;
	rp_input_opts io = { .lenient = o.lenient, .quiet = o.json, .verbose = o.verbose, .cmd = "stat", .capture_stats = &cst,
			     .capture_seen = &pcap };
	int rc = rp__cli_window("stat", o.from, o.until, &io);
	if (rc) {
		rp_timeline_destroy(s.timeline);
		rp_plan_sink_destroy(s.plan);
		rp_summary_destroy(s.sum);
		return rc;
	}
	rc = rp__cli_pump(pos[0], &s.base, &io);
	if (rc == 0 && pcap) {
		const rp_summary_decode d = { .frames = cst.frames, .messages = cst.messages, .truncated = cst.truncated,
					      .invalid = cst.invalid, .unsupported = cst.unsupported,
					      .unmatched = cst.unmatched, .encrypted = cst.encrypted, .gaps = cst.gaps };
		rp_summary_set_decode(s.sum, &d);
	}
	rp_plan plan;
	memset(&plan, 0, sizeof(plan));
	char eb[RP_ERRBUF_SIZE];
	if (rc == 0 && rp_plan_sink_finish(s.plan, &plan, eb) < 0) {
		rp__cli_err("stat", "%s", eb);
		rc = 1;
	}
	rp_outfile of = { .f = NULL };
	if (rc == 0 && o.output) {
		const int same = rp__cli_out_check("stat", o.output, pos[0]); /* 2: OUT is the input */
		if (same || rp__cli_out_open(&of, "stat", o.output))
			rc = same ? same : 1;
	}
	FILE *const out = o.output ? of.f : stdout;
	if (rc == 0) {
		if (o.json) {
			rc = rp__cli_stat_json(s.sum, &s.meta, &plan, s.timeline, out);
		} else {
			rp_summary_print(s.sum, &s.meta, out);
			fprintf(out, "\nprepare     %" PRIu64 " directories, %" PRIu64 " files, %" PRIu64
			       " bytes: what `reprise replay` creates before the run (what the trace uses but never creates)\n",
			       plan.dirs, plan.files, plan.bytes);
			if (s.timeline)
				rp_timeline_print(s.timeline, out);
		}
	}
	if (o.output && of.f)
		rc = rc == 0 ? rp__cli_out_commit(&of, "stat") : (rp__cli_out_abort(&of), rc);
	rp_plan_free(&plan);
	rp_plan_sink_destroy(s.plan);
	rp_summary_destroy(s.sum);
	rp_timeline_destroy(s.timeline);
	return rc;
}

const rp_command rp__cmd_stat = { &spec, run };
