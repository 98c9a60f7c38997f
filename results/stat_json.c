/* `reprise stat --json` with jansson (schema: docs/stat-json.md); formats/ keeps to libc and libzstd. */
#include "results/stat_json.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json_build.h"
#include "formats/op.h"

json_t *rp__res_json_name(const char *s, size_t len)
{
	const size_t n = strnlen(s, len);
	const size_t need = rp_text_escape_utf8(NULL, 0, s, n) + 1;
	char *const buf = malloc(need);
	if (!buf)
		return NULL;
	rp_text_escape_utf8(buf, need, s, n);
	json_t *const v = json_string(buf);
	free(buf);
	return v;
}

/* {"name": count} for the op kinds with a non-zero count. */
static json_t *by_op(rp_jb *b, const uint64_t *n)
{
	json_t *const o = json_object();
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		if (n[i])
			rp_jb_put(b, o, rp_op_name(i), rp_jb_u64(n[i]));
	return o;
}

static json_t *sizes(rp_jb *b, const uint64_t *hist)
{
	json_t *const a = json_array();
	for (unsigned i = 0; i < RP_SIZE_BUCKETS; i++) {
		if (!hist[i])
			continue;
		json_t *const e = json_object();
		rp_jb_put(b, e, "min", rp_jb_u64(rp_summary_size_min(i)));
		rp_jb_put(b, e, "count", rp_jb_u64(hist[i]));
		rp_jb_add(b, a, e);
	}
	return a;
}

/* --timeline: {"step_s": S, "bins": [{"from_s", "ops", "bytes_read", "bytes_written", "op_counts"}, ...]} */
static json_t *timeline_json(rp_jb *b, const rp_timeline *t)
{
	const rp_timeline_bin *bins;
	const uint64_t n = rp_timeline_bins(t, &bins);
	const double step = (double)rp_timeline_step(t) / 1e9;
	json_t *const o = json_object();
	json_t *const a = json_array();
	rp_jb_put(b, o, "step_s", json_real(step));
	for (uint64_t i = 0; i < n; i++) {
		json_t *const e = json_object();
		rp_jb_put(b, e, "from_s", json_real((double)i * step));
		rp_jb_put(b, e, "ops", rp_jb_u64(bins[i].ops));
		rp_jb_put(b, e, "bytes_read", rp_jb_u64(bins[i].bytes_read));
		rp_jb_put(b, e, "bytes_written", rp_jb_u64(bins[i].bytes_written));
		rp_jb_put(b, e, "op_counts", by_op(b, bins[i].count));
		rp_jb_add(b, a, e);
	}
	rp_jb_put(b, o, "bins", a);
	return o;
}

/* {"count", "mean", "p50", "p99", "max"} of inter-arrival gaps, in ms. */
static json_t *gaps_json(rp_jb *b, const rp_summary_gaps *g)
{
	json_t *const o = json_object();
	rp_jb_put(b, o, "count", rp_jb_u64(g->count));
	rp_jb_put(b, o, "mean", json_real(g->mean_ns / 1e6));
	rp_jb_put(b, o, "p50", json_real(g->p50_ns / 1e6));
	rp_jb_put(b, o, "p99", json_real(g->p99_ns / 1e6));
	rp_jb_put(b, o, "max", json_real(g->max_ns / 1e6));
	return o;
}

json_t *rp__res_stat_object(const rp_summary *s, const rp_trace_meta *meta, const rp_plan *plan,
			    const rp_timeline *timeline, bool *oom)
{
	rp_summary_view v;
	rp_summary_get(s, &v);
	rp_jb b = { .failed = false };
	json_t *const d = json_object();
	rp_jb_put(&b, d, "source", json_string(rp_source_name(meta->source)));
	rp_jb_put(&b, d, "input", meta->source_name[0] ? rp__res_json_name(meta->source_name, RP_META_NAME_MAX) : json_null());
	rp_jb_put(&b, d, "host", meta->host[0] ? rp__res_json_name(meta->host, RP_META_HOST_MAX) : json_null());
	rp_jb_put(&b, d, "anonymized", json_boolean(meta->flags & RP_META_ANONYMIZED));
	rp_jb_put(&b, d, "timed", json_boolean(meta->flags & RP_META_TIMED));
	rp_jb_put(&b, d, "truncated", json_boolean(meta->flags & RP_META_TRUNCATED));
	rp_jb_put(&b, d, "untraced", json_boolean(meta->flags & RP_META_UNTRACED));
	rp_jb_put(&b, d, "ops", rp_jb_u64(v.ops));
	rp_jb_put(&b, d, "clients", rp_jb_u64(v.clients));
	rp_jb_put(&b, d, "duration_s", json_real(isfinite(v.duration_s) ? v.duration_s : 0));
	rp_jb_put(&b, d, "files", rp_jb_u64(v.files));
	rp_jb_put(&b, d, "bytes_read", rp_jb_u64(v.bytes_read));
	rp_jb_put(&b, d, "bytes_written", rp_jb_u64(v.bytes_written));
	rp_jb_put(&b, d, "no_reply", rp_jb_u64(v.no_reply));
	rp_jb_put(&b, d, "op_counts", by_op(&b, v.count));
	rp_jb_put(&b, d, "op_failures", by_op(&b, v.failed));
	rp_jb_put(&b, d, "deleted_at_close", by_op(&b, v.at_close));
	rp_jb_put(&b, d, "read_sizes", sizes(&b, v.read_sizes));
	rp_jb_put(&b, d, "write_sizes", sizes(&b, v.write_sizes));
	/* provenance, the capture's decode counters, per-client counts, recorded latency (docs/stat-json.md) */
	char t[64];
	rp_jb_put(&b, d, "start", meta->capture_start_ns ? json_string(rp_summary_utc_time(t, sizeof(t), meta->capture_start_ns, true))
							: json_null());
	rp_jb_put(&b, d, "start_ns", json_integer(meta->capture_start_ns));
	json_t *dec = json_null();
	if (v.decode) {
		const rp_summary_decode *const x = v.decode;
		dec = json_object();
		rp_jb_put(&b, dec, "frames", rp_jb_u64(x->frames));
		rp_jb_put(&b, dec, "messages", rp_jb_u64(x->messages));
		rp_jb_put(&b, dec, "truncated", rp_jb_u64(x->truncated));
		rp_jb_put(&b, dec, "invalid", rp_jb_u64(x->invalid));
		rp_jb_put(&b, dec, "unsupported", rp_jb_u64(x->unsupported));
		rp_jb_put(&b, dec, "unmatched", rp_jb_u64(x->unmatched));
		rp_jb_put(&b, dec, "encrypted", rp_jb_u64(x->encrypted));
		rp_jb_put(&b, dec, "gaps", rp_jb_u64(x->gaps));
	}
	rp_jb_put(&b, d, "decode", dec);
	rp_summary_client *cl = NULL;
	const size_t ncl = rp_summary_clients(s, &cl);
	json_t *const pc = json_array();
	for (size_t i = 0; i < ncl; i++) {
		json_t *const e = json_object();
		rp_jb_put(&b, e, "client", json_integer(cl[i].client));
		rp_jb_put(&b, e, "ops", rp_jb_u64(cl[i].ops));
		rp_jb_put(&b, e, "bytes_read", rp_jb_u64(cl[i].bytes_read));
		rp_jb_put(&b, e, "bytes_written", rp_jb_u64(cl[i].bytes_written));
		rp_jb_add(&b, pc, e);
	}
	rp_jb_put(&b, d, "per_client", pc);
	/* inter-arrival: the gaps between successive op starts, of the whole trace and per client */
	rp_summary_gaps all;
	rp_summary_interarrival(s, &all);
	json_t *const ia = json_object();
	json_t *const iac = json_array();
	rp_jb_put(&b, ia, "all", gaps_json(&b, &all));
	for (size_t i = 0; i < ncl; i++) {
		json_t *const e = gaps_json(&b, &cl[i].arrivals);
		rp_jb_put(&b, e, "client", json_integer(cl[i].client));
		rp_jb_add(&b, iac, e);
	}
	rp_jb_put(&b, ia, "per_client", iac);
	rp_jb_put(&b, d, "inter_arrival_ms", ia);
	free(cl);
	json_t *const lat = json_object();
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		rp_summary_latency_view l;
		if (!rp_summary_latency(s, op, &l))
			continue;
		json_t *const e = json_object();
		rp_jb_put(&b, e, "count", rp_jb_u64(l.count));
		rp_jb_put(&b, e, "min", json_real(l.min_ns / 1e6));
		rp_jb_put(&b, e, "avg", json_real(l.avg_ns / 1e6));
		rp_jb_put(&b, e, "max", json_real(l.max_ns / 1e6));
		rp_jb_put(&b, e, "p99", json_real(l.p99_ns / 1e6));
		rp_jb_put(&b, lat, rp_op_name(op), e);
	}
	rp_jb_put(&b, d, "latency_ms", lat);
	json_t *pr = json_null();
	if (plan) {
		pr = json_object();
		rp_jb_put(&b, pr, "dirs", rp_jb_u64(plan->dirs));
		rp_jb_put(&b, pr, "files", rp_jb_u64(plan->files));
		rp_jb_put(&b, pr, "bytes", rp_jb_u64(plan->bytes));
	}
	rp_jb_put(&b, d, "prepare", pr);
	if (timeline)
		rp_jb_put(&b, d, "timeline", timeline_json(&b, timeline));
	*oom = !d || b.failed;
	return d;
}

int rp__res_json_dump(json_t *d, bool oom, FILE *f, char *err, size_t errsize)
{
	int rc = 0;
	if (!d || oom) {
		snprintf(err, errsize, "out of memory");
		rc = -1;
	} else if ((json_dumpf(d, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 || fputc('\n', f) == EOF) &&
		   !ferror(f)) {
		snprintf(err, errsize, "writing the JSON failed");
		rc = -1;
	}
	/* A write error stays on f: main's check of standard output at exit names it (errno). */
	json_decref(d);
	return rc;
}

int rp__res_stat_json(const rp_summary *s, const rp_trace_meta *meta, const rp_plan *plan, const rp_timeline *timeline,
		      FILE *f, char *err, size_t errsize)
{
	bool oom;
	json_t *const d = rp__res_stat_object(s, meta, plan, timeline, &oom);
	return rp__res_json_dump(d, oom, f, err, errsize);
}
