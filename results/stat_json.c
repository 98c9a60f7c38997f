/* `reprise stat --json` with jansson (schema: docs/stat-json.md); formats/ keeps to libc and libzstd. */
#include "results/stat_json.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/op.h"

typedef struct jb {
	bool oom;
} jb;

static void jput(jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!v || !obj || json_object_set_new(obj, key, v) < 0)
		b->oom = true;
}

static json_t *ju64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

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
static json_t *by_op(jb *b, const uint64_t *n)
{
	json_t *const o = json_object();
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		if (n[i])
			jput(b, o, rp_op_name(i), ju64(n[i]));
	return o;
}

static json_t *sizes(jb *b, const uint64_t *hist)
{
	json_t *const a = json_array();
	for (unsigned i = 0; i < RP_SIZE_BUCKETS; i++) {
		if (!hist[i])
			continue;
		json_t *const e = json_object();
		jput(b, e, "min", ju64(rp_summary_size_min(i)));
		jput(b, e, "count", ju64(hist[i]));
		if (!e || json_array_append_new(a, e) < 0)
			b->oom = true;
	}
	return a;
}

/* --timeline: {"step_s": S, "bins": [{"from_s", "ops", "bytes_read", "bytes_written", "op_counts"}, ...]} */
static json_t *timeline_json(jb *b, const rp_timeline *t)
{
	const rp_timeline_bin *bins;
	const uint64_t n = rp_timeline_bins(t, &bins);
	const double step = (double)rp_timeline_step(t) / 1e9;
	json_t *const o = json_object();
	json_t *const a = json_array();
	jput(b, o, "step_s", json_real(step));
	for (uint64_t i = 0; i < n; i++) {
		json_t *const e = json_object();
		jput(b, e, "from_s", json_real((double)i * step));
		jput(b, e, "ops", ju64(bins[i].ops));
		jput(b, e, "bytes_read", ju64(bins[i].bytes_read));
		jput(b, e, "bytes_written", ju64(bins[i].bytes_written));
		jput(b, e, "op_counts", by_op(b, bins[i].count));
		if (!e || !a || json_array_append_new(a, e) < 0)
			b->oom = true;
	}
	jput(b, o, "bins", a);
	return o;
}

/* {"count", "mean", "p50", "p99", "max"} of inter-arrival gaps, in ms. */
static json_t *gaps_json(jb *b, const rp_summary_gaps *g)
{
	json_t *const o = json_object();
	jput(b, o, "count", ju64(g->count));
	jput(b, o, "mean", json_real(g->mean_ns / 1e6));
	jput(b, o, "p50", json_real(g->p50_ns / 1e6));
	jput(b, o, "p99", json_real(g->p99_ns / 1e6));
	jput(b, o, "max", json_real(g->max_ns / 1e6));
	return o;
}

json_t *rp__res_stat_object(const rp_summary *s, const rp_trace_meta *meta, const rp_plan *plan,
			    const rp_timeline *timeline, bool *oom)
{
	rp_summary_view v;
	rp_summary_get(s, &v);
	jb b = { .oom = false };
	json_t *const d = json_object();
	jput(&b, d, "source", json_string(rp_source_name(meta->source)));
	jput(&b, d, "input", meta->source_name[0] ? rp__res_json_name(meta->source_name, RP_META_NAME_MAX) : json_null());
	jput(&b, d, "host", meta->host[0] ? rp__res_json_name(meta->host, RP_META_HOST_MAX) : json_null());
	jput(&b, d, "anonymized", json_boolean(meta->flags & RP_META_ANONYMIZED));
	jput(&b, d, "timed", json_boolean(meta->flags & RP_META_TIMED));
	jput(&b, d, "truncated", json_boolean(meta->flags & RP_META_TRUNCATED));
	jput(&b, d, "untraced", json_boolean(meta->flags & RP_META_UNTRACED));
	jput(&b, d, "ops", ju64(v.ops));
	jput(&b, d, "clients", ju64(v.clients));
	jput(&b, d, "duration_s", json_real(isfinite(v.duration_s) ? v.duration_s : 0));
	jput(&b, d, "files", ju64(v.files));
	jput(&b, d, "bytes_read", ju64(v.bytes_read));
	jput(&b, d, "bytes_written", ju64(v.bytes_written));
	jput(&b, d, "no_reply", ju64(v.no_reply));
	jput(&b, d, "op_counts", by_op(&b, v.count));
	jput(&b, d, "op_failures", by_op(&b, v.failed));
	jput(&b, d, "deleted_at_close", by_op(&b, v.at_close));
	jput(&b, d, "read_sizes", sizes(&b, v.read_sizes));
	jput(&b, d, "write_sizes", sizes(&b, v.write_sizes));
	/* provenance, the capture's decode counters, per-client counts, recorded latency (docs/stat-json.md) */
	char t[64];
	jput(&b, d, "start", meta->capture_start_ns ? json_string(rp_summary_utc_time(t, sizeof(t), meta->capture_start_ns, true))
						   : json_null());
	jput(&b, d, "start_ns", json_integer(meta->capture_start_ns));
	json_t *dec = json_null();
	if (v.decode) {
		const rp_summary_decode *const x = v.decode;
		dec = json_object();
		jput(&b, dec, "frames", ju64(x->frames));
		jput(&b, dec, "messages", ju64(x->messages));
		jput(&b, dec, "truncated", ju64(x->truncated));
		jput(&b, dec, "invalid", ju64(x->invalid));
		jput(&b, dec, "unsupported", ju64(x->unsupported));
		jput(&b, dec, "unmatched", ju64(x->unmatched));
		jput(&b, dec, "encrypted", ju64(x->encrypted));
		jput(&b, dec, "gaps", ju64(x->gaps));
	}
	jput(&b, d, "decode", dec);
	rp_summary_client *cl = NULL;
	const size_t ncl = rp_summary_clients(s, &cl);
	json_t *const pc = json_array();
	for (size_t i = 0; i < ncl; i++) {
		json_t *const e = json_object();
		jput(&b, e, "client", json_integer(cl[i].client));
		jput(&b, e, "ops", ju64(cl[i].ops));
		jput(&b, e, "bytes_read", ju64(cl[i].bytes_read));
		jput(&b, e, "bytes_written", ju64(cl[i].bytes_written));
		if (!e || json_array_append_new(pc, e) < 0)
			b.oom = true;
	}
	jput(&b, d, "per_client", pc);
	/* inter-arrival: the gaps between successive op starts, of the whole trace and per client */
	rp_summary_gaps all;
	rp_summary_interarrival(s, &all);
	json_t *const ia = json_object();
	json_t *const iac = json_array();
	jput(&b, ia, "all", gaps_json(&b, &all));
	for (size_t i = 0; i < ncl; i++) {
		json_t *const e = gaps_json(&b, &cl[i].arrivals);
		jput(&b, e, "client", json_integer(cl[i].client));
		if (!e || !iac || json_array_append_new(iac, e) < 0)
			b.oom = true;
	}
	jput(&b, ia, "per_client", iac);
	jput(&b, d, "inter_arrival_ms", ia);
	free(cl);
	json_t *const lat = json_object();
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		rp_summary_latency_view l;
		if (!rp_summary_latency(s, op, &l))
			continue;
		json_t *const e = json_object();
		jput(&b, e, "count", ju64(l.count));
		jput(&b, e, "min", json_real(l.min_ns / 1e6));
		jput(&b, e, "avg", json_real(l.avg_ns / 1e6));
		jput(&b, e, "max", json_real(l.max_ns / 1e6));
		jput(&b, e, "p99", json_real(l.p99_ns / 1e6));
		jput(&b, lat, rp_op_name(op), e);
	}
	jput(&b, d, "latency_ms", lat);
	json_t *pr = json_null();
	if (plan) {
		pr = json_object();
		jput(&b, pr, "dirs", ju64(plan->dirs));
		jput(&b, pr, "files", ju64(plan->files));
		jput(&b, pr, "bytes", ju64(plan->bytes));
	}
	jput(&b, d, "prepare", pr);
	if (timeline)
		jput(&b, d, "timeline", timeline_json(&b, timeline));
	*oom = !d || b.oom;
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
