/* Replay results as a text table and as JSON (schema: docs/replay.md). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/json_build.h"
#include "replay/hist.h"
#include "replay/replay.h"

const char *rp_timing_name(rp_timing t)
{
	switch (t) {
	case RP_TIMING_AFAP: return "afap";
	case RP_TIMING_TRACE: return "trace";
	case RP_TIMING_THINK: return "think";
	}
	return "unknown";
}

const char *rp_replay_errno_name(int err)
{
	return err > 0 ? strerrorname_np(err) : NULL;
}

const char *rp_replay_flush_why(const rp_replay_flush *f)
{
	if (!f->asked || f->ran)
		return NULL;
	switch (f->err) {
	case EINTR:
		return "interrupted";
	case EOPNOTSUPP:
		return "the backend works in no local directory";
	default: {
		const char *const name = rp_replay_errno_name(f->err);
		return name ? name : "failed";
	}
	}
}

/* Canonical status as text: OK, UNKNOWN, OTHER, ENOENT, or the number. */
static const char *status_text(int32_t st, char *buf, size_t n)
{
	if (st == 0)
		return "OK";
	if (st == -1)
		return "UNKNOWN";
	if (st == -2)
		return "OTHER";
	const char *const name = rp_replay_errno_name(st);
	if (name)
		return name;
	snprintf(buf, n, "%d", (int)st);
	return buf;
}

const char *rp_order_name(rp_order_mode m)
{
	return m == RP_ORDER_RESOURCE ? "resource" : m == RP_ORDER_AUTO ? "auto" : "client";
}

const char *rp_prepare_fill_name(rp_prepare_fill f)
{
	switch (f) {
	case RP_FILL_DATA: return "data";
	case RP_FILL_ZERO: return "zero";
	case RP_FILL_SPARSE: return "sparse";
	}
	return "unknown";
}

/* "1.5 KB", "105.0 MB": bytes in decimal units, as the throughput line. */
static const char *human_bytes(uint64_t b, char *buf, size_t n)
{
	if (b < 1000)
		snprintf(buf, n, "%llu byte%s", (unsigned long long)b, b == 1 ? "" : "s");
	else if (b < 1000000)
		snprintf(buf, n, "%.1f KB", (double)b / 1e3);
	else if (b < 1000000000)
		snprintf(buf, n, "%.1f MB", (double)b / 1e6);
	else
		snprintf(buf, n, "%.2f GB", (double)b / 1e9);
	return buf;
}

void rp_replay_write_prepare(const rp_replay_results *res, FILE *f)
{
	char b1[32], b2[32];
	fprintf(f, "Prepare: %llu director%s, %llu file%s", (unsigned long long)res->prepare.dirs,
		res->prepare.dirs == 1 ? "y" : "ies", (unsigned long long)res->prepare.files,
		res->prepare.files == 1 ? "" : "s");
	if (res->prepare.fill == RP_FILL_SPARSE)
		fprintf(f, ", %s in size, sparse (%s written)", human_bytes(res->prepare.bytes, b1, sizeof(b1)),
			human_bytes(res->prepare.written, b2, sizeof(b2)));
	else
		fprintf(f, ", %s written (%s)", human_bytes(res->prepare.written, b1, sizeof(b1)),
			rp_prepare_fill_name(res->prepare.fill));
	if (res->prepare.kept || res->prepare.extended)
		fprintf(f, " (of them %llu there already and kept, %llu there already and extended)",
			(unsigned long long)res->prepare.kept, (unsigned long long)res->prepare.extended);
	fprintf(f, " in %.2f s", res->prepare.seconds);
	if (res->prepare.failures)
		fprintf(f, ", %llu failed", (unsigned long long)res->prepare.failures);
	if (res->prepare.caches == 1)
		fputs("; caches dropped", f);
	else if (res->prepare.caches == EPERM)
		fputs("; caches NOT dropped (--drop-caches needs root)", f);
	else if (res->prepare.caches)
		fprintf(f, "; caches NOT dropped (/proc/sys/vm/drop_caches: %s)", strerror(res->prepare.caches));
	fputc('\n', f);
	const rp_replay_image *const im = &res->prepare.image;
	if (!im->asked)
		return;
	fprintf(f, "Image: %llu director%s, %llu file%s, %s written (data) beneath %s/ (%s, scale %g, seed %llu) in %.2f s",
		(unsigned long long)im->dirs, im->dirs == 1 ? "y" : "ies", (unsigned long long)im->files,
		im->files == 1 ? "" : "s", human_bytes(im->bytes, b1, sizeof(b1)), im->root[0] ? im->root : "?",
		im->source ? im->source : "?", im->scale, (unsigned long long)im->seed, im->seconds);
	if (im->capped)
		fprintf(f, ", %llu size%s cut to --image-max-file-size", (unsigned long long)im->capped,
			im->capped == 1 ? "" : "s");
	if (im->failures)
		fprintf(f, ", %llu failed", (unsigned long long)im->failures);
	fputc('\n', f);
}

/* "Failed N (all as recorded)": a failure the trace recorded too is the workload, not a problem. */
/*
 * The order line: resource's tables and waits, and what --order auto chose
 * and why; nothing for client order given, or chosen for a trace of one
 * client (a loadfile's copies: nothing to order across).
 */
static void write_order(const rp_replay_results *res, FILE *f)
{
	size_t trace_clients = 0;
	for (size_t i = 0; res->client && i < res->n_client_depth; i++)
		trace_clients += res->client[i].clone == 0;
	const char *const mode = rp_order_name(res->order), *const how = res->order_auto ? ", auto" : "";
	if (res->order == RP_ORDER_RESOURCE)
		fprintf(f, "Order across clients (%s%s): %u paths, %.1f MiB of tables; %llu ops waited %.1f ms in all\n", mode,
			how, res->order_resources, (double)res->order_bytes / 1048576.0, (unsigned long long)res->order_waits,
			res->order_wait_us / 1e3);
	else if (res->order_auto && (trace_clients > 1 || res->order_fallback))
		fprintf(f, "Order across clients (%s%s): %s\n", mode, how, res->order_why);
	if (res->order == RP_ORDER_RESOURCE && res->order_auto)
		fprintf(f, "  auto: %s\n", res->order_why);
}

static void write_outcome(const rp_replay_results *res, FILE *f)
{
	const uint64_t fl = res->failures, ex = res->failures_expected;
	fprintf(f, "Failed %llu", (unsigned long long)fl);
	if (fl && ex == fl)
		fputs(" (all as recorded)", f);
	else if (fl)
		fprintf(f, " (%llu as recorded, %llu not)", (unsigned long long)ex, (unsigned long long)(fl - ex));
	fprintf(f, ", mismatched %llu", (unsigned long long)res->mismatches);
	if (res->unknown_handles || res->skipped || res->escapes)
		fprintf(f, ", unknown handles %llu, skipped %llu, escaping paths %llu",
			(unsigned long long)res->unknown_handles, (unsigned long long)res->skipped,
			(unsigned long long)res->escapes);
	fputc('\n', f);
}

/* "3.0 us", "4.5 ms", "10.40 s": a time in µs in the unit that reads best. */
static const char *human_us(double us, char *buf, size_t n)
{
	if (us < 1e3)
		snprintf(buf, n, "%.1f us", us);
	else if (us < 1e6)
		snprintf(buf, n, "%.1f ms", us / 1e3);
	else
		snprintf(buf, n, "%.2f s", us / 1e6);
	return buf;
}

/*
 * In flight at the target (rp_replay_depth's tgt_*): what the server had of
 * the clients' requests, next to what the trace recorded, and the latency
 * from the backend's send to the answer.
 */
static void write_target(const rp_replay_results *res, FILE *f)
{
	const rp_replay_depth *const d = &res->depth;
	if (!d->tgt_requests) {
		if (d->tgt_unmeasured)
			fprintf(f, "In flight at the target: not measured (the %s backend does not say when it sends)\n",
				res->backend ? res->backend : "");
		return;
	}
	char b1[32], b2[32], b3[32];
	fprintf(f, "In flight at the target: mean %.2f, max %u (at each request; %.2f while busy); recorded mean %.2f; "
		   "latency p50 %s  p99 %s  max %s\n",
		d->tgt_mean, d->tgt_max, d->tgt_busy_mean, d->rec_mean, human_us(res->tgt_lat.p50_us, b1, sizeof(b1)),
		human_us(res->tgt_lat.p99_us, b2, sizeof(b2)), human_us(res->tgt_lat.max_us, b3, sizeof(b3)));
}

/* trace and think timing: the span the ops took against the recorded one, and whether the run fell behind. */
static void write_schedule(const rp_replay_results *res, FILE *f)
{
	const rp_replay_schedule *const s = &res->schedule;
	char b1[32], b2[32];
	fprintf(f, "Span: the ops took %.3f s", s->span_s);
	if (s->ratio >= 0)
		fprintf(f, " for %.3f s recorded%s: x%.2f", s->rec_span_s, res->speed != 1 ? " (scaled by --speed)" : "",
			s->ratio);
	else
		fputs(" (the trace has them all at one instant: no recorded span)", f);
	if (s->behind) {
		fputs("; BEHIND the recorded timing (", f);
		if (s->ratio >= 0 && s->ratio > s->max_ratio)
			fprintf(f, "span over x%.2f%s", s->max_ratio, res->lag_p99_us > s->max_lag_us ? ", " : "");
		if (res->lag_p99_us > s->max_lag_us)
			fprintf(f, "lag p99 %s over %s", human_us(res->lag_p99_us, b1, sizeof(b1)),
				human_us(s->max_lag_us, b2, sizeof(b2)));
		fputc(')', f);
	}
	fputc('\n', f);
}

/* The loud line: more mismatches than RP_REPLAY_MISMATCH_SHARE_MAX of the ops, and the likely cause. */
static void write_unrepresentative(const rp_replay_results *res, FILE *f)
{
	char why[512];
	rp_replay_cause_text(res, why, sizeof(why));
	fprintf(f, "\n*** NOT REPRESENTATIVE: %.1f %% of the ops mismatched (%llu of %llu, over %.0f %%): these results "
		   "are not the trace's workload\n*** likely cause: %s\n",
		res->mismatch_share * 100, (unsigned long long)res->mismatches, (unsigned long long)res->ops,
		RP_REPLAY_MISMATCH_SHARE_MAX * 100, why);
}

/* dbench's max_latency: the slowest file op of the measured period (sleeps, forks and waits are not file ops). */
/* "; N requests of its own (lease renewals)", or by kind when some were blocking-lock polls or lock-owner releases. */
static void own_requests(FILE *f, const rp_replay_results *res)
{
	const unsigned long long n = res->own_requests, polls = res->lock_polls, rel = res->lock_releases;
	fprintf(f, "; %llu request%s of its own (", n, n == 1 ? "" : "s");
	if (!polls && !rel) {
		fputs("lease renewals)", f);
		return;
	}
	const unsigned long long renew = n > polls + rel ? n - polls - rel : 0;
	const char *sep = "";
	if (renew) {
		fprintf(f, "%llu lease renewal%s", renew, renew == 1 ? "" : "s");
		sep = ", ";
	}
	if (polls) {
		fprintf(f, "%s%llu blocking-lock poll%s", sep, polls, polls == 1 ? "" : "s");
		sep = ", ";
	}
	if (rel)
		fprintf(f, "%s%llu lock-owner release%s", sep, rel, rel == 1 ? "" : "s");
	fputc(')', f);
}

static double max_latency_ms(const rp_replay_results *res)
{
	double m = 0;
	for (unsigned op = 0; op < RP_OP__COUNT; op++)
		if (op != RP_OP_SLEEP && op != RP_OP_FORK && op != RP_OP_WAIT && res->op[op].count && res->op[op].max_us > m)
			m = res->op[op].max_us;
	return m / 1e3;
}

void rp_replay_write_table(const rp_replay_results *res, FILE *f)
{
	/* The Unsupported column only when the backend could not express some op: dbench's table otherwise. */
	const bool unsup = res->unsupported != 0;
	fprintf(f, "\n %-12s %10s %9s %9s %9s %9s %9s %8s %8s%s\n", "Operation", "Count", "AvgLat", "p50", "p99",
		"p99.9", "MaxLat", "Failed", "Mismatch", unsup ? " Unsupported" : "");
	fprintf(f, " %.*s\n", unsup ? 111 : 99,
		"---------------------------------------------------------------------------------------------------"
		"------------");
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		const rp_replay_opstats *const o = &res->op[op];
		if (!o->count && !o->skipped && !o->escapes && !o->unsupported)
			continue;
		fprintf(f, " %-12s %10llu %9.3f %9.3f %9.3f %9.3f %9.3f %8llu %8llu", rp_op_name(op),
			(unsigned long long)o->count, o->avg_us / 1e3, o->p50_us / 1e3, o->p99_us / 1e3,
			o->p999_us / 1e3, o->max_us / 1e3, (unsigned long long)o->failures,
			(unsigned long long)o->mismatches);
		if (unsup)
			fprintf(f, " %11llu", (unsigned long long)o->unsupported);
		fputc('\n', f);
	}
	fprintf(f, " (latencies in ms; Failed: the op returned an error, which the trace may have recorded too;\n"
		   "  Mismatch: its result differs from the one recorded, an error or a success)\n\n");
	if (res->prepare.ran)
		rp_replay_write_prepare(res, f);
	fprintf(f, "Throughput %.2f MB/sec  %.0f ops/sec  %u client%s  %.2f s measured", res->mb_per_sec,
		res->ops_per_sec, res->clients, res->clients == 1 ? "" : "s", res->elapsed_s);
	if (res->warmup_s > 0)
		fprintf(f, " after %.2f s warm-up", res->warmup_s);
	/* max_latency= ends the line as it ends dbench's, where scripts grep it */
	fprintf(f, "  (%s timing, %s backend, stopped: %s)  max_latency=%.3f ms\n", rp_timing_name(res->timing),
		res->backend, rp_stop_name(res->stop), max_latency_ms(res));
	if (res->backend_mode) {
		fprintf(f, "Backend mode: %s", res->backend_mode);
		if (res->protocol_ops || res->n_fallbacks)
			fprintf(f, " (%llu ops sent as the request they were recorded as", (unsigned long long)res->protocol_ops);
		for (size_t i = 0; i < res->n_fallbacks; i++)
			fprintf(f, "%s%s %llu", i ? ", " : "; not sent as recorded: ", res->fallbacks[i].reason,
				(unsigned long long)res->fallbacks[i].count);
		fputs(res->protocol_ops || res->n_fallbacks ? ")" : "", f);
		if (res->own_requests)
			own_requests(f, res);
		if (res->lock_expired)
			fprintf(f, "; %llu blocking lock%s still denied when its wait ran out (ETIMEDOUT)",
				(unsigned long long)res->lock_expired, res->lock_expired == 1 ? "" : "s");
		if (res->backend_mode_why)
			fprintf(f, "; %s", res->backend_mode_why);
		fputc('\n', f);
	}
	if (res->final_sync.asked) {
		const rp_replay_flush *const fs = &res->final_sync;
		char b1[32];
		if (fs->ran)
			fprintf(f, "Flush at end: %.3f s (syncfs, in the measured time)", (double)fs->ns / 1e9);
		else
			fprintf(f, "Flush at end: NOT done (%s)", rp_replay_flush_why(fs));
		/*
		 * Both counts are system-wide and read at different times: less at the end
		 * than at the start is the kernel writing back prepare's or other writers'
		 * data meanwhile, not negative data: 0, said so.
		 */
		if (fs->dirty_end >= 0 && fs->dirty_start >= 0 && fs->dirty_end < fs->dirty_start)
			fprintf(f, "; dirty at the end of the run: 0 (system-wide; %s fewer than at the start: written back "
				   "meanwhile)\n",
				human_bytes((uint64_t)(fs->dirty_start - fs->dirty_end), b1, sizeof(b1)));
		else if (fs->dirty_end >= 0 && fs->dirty_start >= 0)
			fprintf(f, "; dirty at the end of the run: %s (system-wide)\n",
				human_bytes((uint64_t)(fs->dirty_end - fs->dirty_start), b1, sizeof(b1)));
		else
			fputc('\n', f);
	}
	if (res->lag_count) {
		char b1[32], b2[32], b3[32];
		fprintf(f, "Issue lag: p50 %s  p99 %s  max %s\n", human_us(res->lag_p50_us, b1, sizeof(b1)),
			human_us(res->lag_p99_us, b2, sizeof(b2)), human_us(res->lag_max_us, b3, sizeof(b3)));
	}
	if (res->schedule.known)
		write_schedule(res, f);
	if (res->max_inflight > 1 || res->depth.rec_max > 1) {
		char bound[96];
		if (res->inflight_auto)
			snprintf(bound, sizeof(bound), "max %u, auto: each client's recorded depth, at most %u", res->max_inflight,
				 res->inflight_cap);
		else
			snprintf(bound, sizeof(bound), "max %u", res->max_inflight);
		fprintf(f, "In flight per client (%s): max %u, mean %.2f; recorded max %u, mean %.2f\n", bound,
			res->depth.max, res->depth.mean, res->depth.rec_max, res->depth.rec_mean);
		write_target(res, f);
		/* Client by client when there are a few; all of them are in the JSON. */
		for (size_t i = 0; res->n_client_depth > 1 && res->n_client_depth <= 16 && i < res->n_client_depth; i++) {
			const rp_replay_depth *const d = &res->client_depth[i];
			if (res->inflight_auto)
				snprintf(bound, sizeof(bound), "bound %u, ", d->bound);
			char tgt[96] = "";
			if (d->tgt_requests)
				snprintf(tgt, sizeof(tgt), "; at the target mean %.2f, max %u", d->tgt_mean, d->tgt_max);
			fprintf(f, "  client %zu: %smax %u, mean %.2f; recorded max %u, mean %.2f%s\n", i,
				res->inflight_auto ? bound : "", d->max, d->mean, d->rec_max, d->rec_mean, tgt);
		}
	}
	write_order(res, f);
	if (res->order == RP_ORDER_RESOURCE) {
		for (size_t i = 0; res->client && res->n_client_depth > 1 && res->n_client_depth <= 16 && i < res->n_client_depth; i++)
			fprintf(f, "  client %zu: %llu ops waited %.1f ms\n", i,
				(unsigned long long)res->client[i].order_waits, res->client[i].order_wait_us / 1e3);
	}
	write_outcome(res, f);
	if (res->unsupported)
		fprintf(f, "Unsupported by the %s backend (not sent to it; not failed, not mismatched): %llu\n",
			res->backend, (unsigned long long)res->unsupported);
	if (res->specials)
		fprintf(f, "Special files refused (FIFO, device, socket: ENXIO, counted as failed): %llu\n",
			(unsigned long long)res->specials);
	if (!res->representative)
		write_unrepresentative(res, f);
}

/*
 * The JSON, built with jansson through formats/json_build.h: a failed step
 * anywhere marks the builder; the document is then not written
 * (RP_E_NOMEM), never written with holes.
 */

/* JSON has no NaN or infinity. */
static json_t *jnum(double v)
{
	return json_real(isfinite(v) ? v : 0);
}

/* A name from a trace or the command line: valid UTF-8 always, control and stray bytes as \xNN. */
static json_t *jname(const char *s)
{
	if (!s)
		return json_null();
	const size_t len = strlen(s);
	char stack[256];
	char *buf = stack;
	const size_t need = rp_text_escape_utf8(NULL, 0, s, len) + 1;
	if (need > sizeof(stack) && !(buf = malloc(need)))
		return NULL;
	rp_text_escape_utf8(buf, need, s, len);
	json_t *const v = json_string(buf);
	if (buf != stack)
		free(buf);
	return v;
}

/* A latency distribution in µs: the keys docs/replay.md lists under "latency object". */
static json_t *jlat(rp_jb *b, const rp_replay_lat *l)
{
	json_t *const o = json_object();
	rp_jb_put(b, o, "count", rp_jb_u64(l->count));
	rp_jb_put(b, o, "min", jnum(l->min_us));
	rp_jb_put(b, o, "mean", jnum(l->avg_us));
	rp_jb_put(b, o, "stddev", jnum(l->stddev_us));
	rp_jb_put(b, o, "p50", jnum(l->p50_us));
	rp_jb_put(b, o, "p90", jnum(l->p90_us));
	rp_jb_put(b, o, "p95", jnum(l->p95_us));
	rp_jb_put(b, o, "p99", jnum(l->p99_us));
	rp_jb_put(b, o, "p999", jnum(l->p999_us));
	rp_jb_put(b, o, "p9999", jnum(l->p9999_us));
	rp_jb_put(b, o, "max", jnum(l->max_us));
	return o;
}

/* A histogram: its non-empty buckets as [lowest value in ns, count], by increasing value. */
static json_t *jhist(rp_jb *b, const rp_hist *h)
{
	if (!h || !h->count)
		return json_null();
	json_t *const o = json_object();
	rp_jb_put(b, o, "count", rp_jb_u64(h->count));
	rp_jb_put(b, o, "sum_ns", rp_jb_u64(h->sum));
	rp_jb_put(b, o, "min_ns", rp_jb_u64(h->min));
	rp_jb_put(b, o, "max_ns", rp_jb_u64(h->max));
	json_t *const buckets = json_array();
	for (unsigned i = 0; i < RP_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		uint64_t lo, hi;
		rp__hist_bucket_range(i, &lo, &hi);
		json_t *const pair = json_array();
		rp_jb_add(b, pair, rp_jb_u64(lo));
		rp_jb_add(b, pair, rp_jb_u64(h->bucket[i]));
		rp_jb_add(b, buckets, pair);
	}
	rp_jb_put(b, o, "buckets", buckets);
	return o;
}

static json_t *jlayout(rp_jb *b)
{
	json_t *const o = json_object();
	rp_jb_put(b, o, "unit", json_string("ns"));
	rp_jb_put(b, o, "sub_bits", json_integer(RP_HIST_SUB_BITS));
	rp_jb_put(b, o, "max_bits", json_integer(RP_HIST_MAX_BITS));
	rp_jb_put(b, o, "buckets", json_integer(RP_HIST_BUCKETS));
	return o;
}

/* "2026-12-01T09:08:11.123456789Z" */
static json_t *jtime(int64_t ns)
{
	if (ns < 0)
		return json_null();
	const time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return json_null();
	char buf[64];
	const size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%09lldZ", (long long)(ns % 1000000000));
	return json_string(buf);
}

static json_t *jprov(rp_jb *b, const rp_replay_provenance *p)
{
	if (!p)
		return json_null();
	json_t *const o = json_object();
	rp_jb_put(b, o, "reprise_version", jname(p->version));
	json_t *const feat = json_array();
	for (const char *const *f = p->features; f && *f; f++)
		rp_jb_add(b, feat, jname(*f));
	rp_jb_put(b, o, "build_features", feat);
	json_t *const argv = json_array();
	for (int i = 0; p->argv && i < p->argc; i++)
		rp_jb_add(b, argv, jname(p->argv[i]));
	rp_jb_put(b, o, "command_line", argv);
	rp_jb_put(b, o, "start_time", jtime(p->start_epoch_ns));
	rp_jb_put(b, o, "start_epoch_ns", p->start_epoch_ns < 0 ? json_null() : json_integer(p->start_epoch_ns));
	rp_jb_put(b, o, "host", jname(p->host));
	rp_jb_put(b, o, "kernel", jname(p->kernel));
	json_t *const trace = json_object();
	rp_jb_put(b, trace, "path", jname(p->trace_path));
	rp_jb_put(b, trace, "sha256", jname(p->trace_sha256));
	rp_jb_put(b, trace, "hash_seconds", p->hash_seconds < 0 ? json_null() : jnum(p->hash_seconds));
	rp_jb_put(b, o, "trace", trace);
	json_t *const target = json_object();
	rp_jb_put(b, target, "path", jname(p->target));
	rp_jb_put(b, target, "fs_type", jname(p->target_fs));
	rp_jb_put(b, target, "fs_magic", jname(p->target_fs_magic));
	rp_jb_put(b, target, "mount_point", jname(p->target_mount));
	rp_jb_put(b, target, "mount_options", jname(p->target_mount_opts));
	rp_jb_put(b, target, "fs_options", jname(p->target_fs_opts));
	rp_jb_put(b, o, "target", target);
	return o;
}

static json_t *jopstats(rp_jb *b, const rp_replay_opstats *o)
{
	json_t *const j = json_object();
	rp_jb_put(b, j, "count", rp_jb_u64(o->count));
	rp_jb_put(b, j, "bytes", rp_jb_u64(o->bytes));
	rp_jb_put(b, j, "avg_us", jnum(o->avg_us));
	rp_jb_put(b, j, "p50_us", jnum(o->p50_us));
	rp_jb_put(b, j, "p99_us", jnum(o->p99_us));
	rp_jb_put(b, j, "p999_us", jnum(o->p999_us));
	rp_jb_put(b, j, "max_us", jnum(o->max_us));
	rp_jb_put(b, j, "failures", rp_jb_u64(o->failures));
	rp_jb_put(b, j, "failures_expected", rp_jb_u64(o->failures_expected));
	rp_jb_put(b, j, "mismatches", rp_jb_u64(o->mismatches));
	rp_jb_put(b, j, "unknown_handles", rp_jb_u64(o->unknown_handles));
	rp_jb_put(b, j, "skipped", rp_jb_u64(o->skipped));
	rp_jb_put(b, j, "escapes", rp_jb_u64(o->escapes));
	rp_jb_put(b, j, "unsupported", rp_jb_u64(o->unsupported));
	rp_jb_put(b, j, "special_files", rp_jb_u64(o->specials));
	rp_jb_put(b, j, "latency_us", jlat(b, &o->lat));
	rp_jb_put(b, j, "histogram", jhist(b, o->hist));
	return j;
}

/*
 * d, and in d's "target" what was in flight at the target with its latency
 * (lat NULL: none); the run's (total) with its histogram too.
 */
static json_t *jdepth(rp_jb *b, const rp_replay_depth *d, json_t *j, const rp_replay_lat *lat, bool total,
		      const rp_hist *hist)
{
	rp_jb_put(b, j, "max", json_integer(d->max));
	rp_jb_put(b, j, "mean", jnum(d->mean));
	rp_jb_put(b, j, "recorded_max", json_integer(d->rec_max));
	rp_jb_put(b, j, "recorded_mean", jnum(d->rec_mean));
	rp_jb_put(b, j, "bound", json_integer(d->bound));
	/* At the target (rp_replay_depth.tgt_*): measured false when the backend does not say when it sends. */
	static const rp_replay_lat none;
	json_t *const t = json_object();
	rp_jb_put(b, t, "measured", json_boolean(d->tgt_requests != 0));
	rp_jb_put(b, t, "max", json_integer(d->tgt_max));
	rp_jb_put(b, t, "mean", jnum(d->tgt_mean));
	rp_jb_put(b, t, "busy_mean", jnum(d->tgt_busy_mean));
	rp_jb_put(b, t, "busy_s", jnum((double)d->tgt_busy_ns / 1e9));
	rp_jb_put(b, t, "requests", rp_jb_u64(d->tgt_requests));
	rp_jb_put(b, t, "unmeasured", rp_jb_u64(d->tgt_unmeasured));
	rp_jb_put(b, t, "latency_us", jlat(b, lat ? lat : &none));
	if (total)
		rp_jb_put(b, t, "histogram", jhist(b, hist));
	rp_jb_put(b, j, "target", t);
	return j;
}

static json_t *build(rp_jb *b, const rp_replay_results *res, const rp_replay_provenance *prov)
{
	json_t *const d = json_object();
	rp_jb_put(b, d, "schema", json_string("reprise-replay"));
	rp_jb_put(b, d, "schema_version", json_integer(RP_REPLAY_JSON_SCHEMA));
	rp_jb_put(b, d, "provenance", jprov(b, prov));
	rp_jb_put(b, d, "backend", jname(res->backend ? res->backend : ""));
	rp_jb_put(b, d, "timing", json_string(rp_timing_name(res->timing)));
	rp_jb_put(b, d, "speed", jnum(res->speed));
	rp_jb_put(b, d, "order", json_string(rp_order_name(res->order)));
	rp_jb_put(b, d, "order_auto", json_boolean(res->order_auto));
	rp_jb_put(b, d, "order_why", res->order_auto ? jname(res->order_why) : json_null());
	rp_jb_put(b, d, "order_fallback", json_boolean(res->order_fallback));
	rp_jb_put(b, d, "order_resources", rp_jb_u64(res->order_resources));
	rp_jb_put(b, d, "order_bytes", rp_jb_u64(res->order_bytes));
	rp_jb_put(b, d, "order_waits", rp_jb_u64(res->order_waits));
	rp_jb_put(b, d, "order_wait_us", jnum(res->order_wait_us));
	rp_jb_put(b, d, "clients", rp_jb_u64(res->clients));
	rp_jb_put(b, d, "stop", json_string(rp_stop_name(res->stop)));
	rp_jb_put(b, d, "elapsed_s", jnum(res->elapsed_s));
	rp_jb_put(b, d, "warmup_s", jnum(res->warmup_s));
	rp_jb_put(b, d, "total_ops", rp_jb_u64(res->ops));
	rp_jb_put(b, d, "bytes", rp_jb_u64(res->bytes));
	rp_jb_put(b, d, "ops_per_sec", jnum(res->ops_per_sec));
	rp_jb_put(b, d, "mb_per_sec", jnum(res->mb_per_sec));
	json_t *cpu = json_object();
	rp_jb_put(b, cpu, "user_s", !prov || prov->cpu_user_s < 0 ? json_null() : jnum(prov->cpu_user_s));
	rp_jb_put(b, cpu, "sys_s", !prov || prov->cpu_sys_s < 0 ? json_null() : jnum(prov->cpu_sys_s));
	rp_jb_put(b, d, "cpu", cpu);
	json_t *const lag = json_object();
	rp_jb_put(b, lag, "p50", jnum(res->lag_p50_us));
	rp_jb_put(b, lag, "p99", jnum(res->lag_p99_us));
	rp_jb_put(b, lag, "max", jnum(res->lag_max_us));
	rp_jb_put(b, lag, "count", rp_jb_u64(res->lag_count));
	rp_jb_put(b, d, "lag_us", lag);
	/* afap has no schedule: null, the thresholds only */
	const rp_replay_schedule *const sc = &res->schedule;
	json_t *const sched = json_object();
	rp_jb_put(b, sched, "span_s", sc->known ? jnum(sc->span_s) : json_null());
	rp_jb_put(b, sched, "recorded_span_s", sc->known ? jnum(sc->rec_span_s) : json_null());
	rp_jb_put(b, sched, "span_ratio", sc->known && sc->ratio >= 0 ? jnum(sc->ratio) : json_null());
	rp_jb_put(b, sched, "behind", sc->known ? json_boolean(sc->behind) : json_null());
	rp_jb_put(b, sched, "behind_span", jnum(sc->max_ratio));
	rp_jb_put(b, sched, "behind_lag_us", jnum(sc->max_lag_us));
	rp_jb_put(b, d, "schedule", sched);
	char why[512];
	rp_replay_cause_text(res, why, sizeof(why));
	rp_jb_put(b, d, "mismatch_share", jnum(res->mismatch_share));
	rp_jb_put(b, d, "representative", json_boolean(res->representative));
	rp_jb_put(b, d, "likely_cause",
		  rp_cause_name(res->likely_cause) ? json_string(rp_cause_name(res->likely_cause)) : json_null());
	rp_jb_put(b, d, "likely_cause_text", why[0] ? json_string(why) : json_null());
	rp_jb_put(b, d, "latency_us", jlat(b, &res->lat));
	rp_jb_put(b, d, "histogram_layout", jlayout(b));
	rp_jb_put(b, d, "histogram", jhist(b, res->hist));
	rp_jb_put(b, d, "warmup_ops", rp_jb_u64(res->warmup_ops));
	rp_jb_put(b, d, "passes", rp_jb_u64(res->passes));
	rp_jb_put(b, d, "failures", rp_jb_u64(res->failures));
	rp_jb_put(b, d, "failures_expected", rp_jb_u64(res->failures_expected));
	rp_jb_put(b, d, "mismatches", rp_jb_u64(res->mismatches));
	rp_jb_put(b, d, "unknown_handles", rp_jb_u64(res->unknown_handles));
	rp_jb_put(b, d, "skipped", rp_jb_u64(res->skipped));
	rp_jb_put(b, d, "escapes", rp_jb_u64(res->escapes));
	rp_jb_put(b, d, "unsupported", rp_jb_u64(res->unsupported));
	rp_jb_put(b, d, "special_files", rp_jb_u64(res->specials));
	/* The backend's mode (null when it has none), what went as recorded, what fell back by reason. */
	rp_jb_put(b, d, "backend_mode", res->backend_mode ? json_string(res->backend_mode) : json_null());
	rp_jb_put(b, d, "backend_mode_why", res->backend_mode_why ? json_string(res->backend_mode_why) : json_null());
	rp_jb_put(b, d, "protocol_ops", rp_jb_u64(res->protocol_ops));
	json_t *const fb = json_object();
	for (size_t i = 0; i < res->n_fallbacks; i++)
		rp_jb_put(b, fb, res->fallbacks[i].reason, rp_jb_u64(res->fallbacks[i].count));
	rp_jb_put(b, d, "fallbacks", fb);
	rp_jb_put(b, d, "backend_own_requests", rp_jb_u64(res->own_requests));
	rp_jb_put(b, d, "backend_lock_polls", rp_jb_u64(res->lock_polls));
	rp_jb_put(b, d, "backend_lockowner_releases", rp_jb_u64(res->lock_releases));
	rp_jb_put(b, d, "backend_lock_wait_expired", rp_jb_u64(res->lock_expired));

	json_t *const counts = json_object(), *const ops = json_object();
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		const rp_replay_opstats *const o = &res->op[op];
		if (o->count)
			rp_jb_put(b, counts, rp_op_name(op), rp_jb_u64(o->count));
		if (o->count || o->skipped || o->escapes || o->unsupported)
			rp_jb_put(b, ops, rp_op_name(op), jopstats(b, o));
	}
	rp_jb_put(b, d, "op_counts", counts);
	rp_jb_put(b, d, "ops", ops);

	json_t *const errs = json_object();
	for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++) {
		if (!res->errnos[e])
			continue;
		const char *const name = e ? rp_replay_errno_name((int)e) : "other";
		char num[16];
		snprintf(num, sizeof(num), "%u", e);
		rp_jb_put(b, errs, name ? name : num, rp_jb_u64(res->errnos[e]));
	}
	rp_jb_put(b, d, "errors", errs);

	json_t *const inflight = json_object();
	rp_jb_put(b, inflight, "max_inflight", json_integer(res->max_inflight));
	rp_jb_put(b, inflight, "auto", json_boolean(res->inflight_auto));
	rp_jb_put(b, inflight, "cap", res->inflight_auto ? json_integer(res->inflight_cap) : json_null());
	jdepth(b, &res->depth, inflight, &res->tgt_lat, true, res->tgt_hist);
	json_t *const dclients = json_array();
	for (size_t i = 0; i < res->n_client_depth; i++)
		rp_jb_add(b, dclients, jdepth(b, &res->client_depth[i], json_object(), res->client ? &res->client[i].tgt_lat : NULL,
					      false, NULL));
	rp_jb_put(b, inflight, "clients", dclients);
	rp_jb_put(b, d, "inflight", inflight);

	json_t *const cres = json_array();
	for (size_t i = 0; res->client && i < res->n_client_depth; i++) {
		const rp_replay_client *const c = &res->client[i];
		json_t *const j = json_object();
		rp_jb_put(b, j, "client", rp_jb_u64(i));
		rp_jb_put(b, j, "trace_client", json_integer(c->trace_client));
		rp_jb_put(b, j, "clone", json_integer(c->clone));
		rp_jb_put(b, j, "dir", jname(c->dir ? c->dir : ""));
		rp_jb_put(b, j, "stop", jname(rp_stop_name(c->stop)));
		rp_jb_put(b, j, "ops", rp_jb_u64(c->ops));
		rp_jb_put(b, j, "bytes", rp_jb_u64(c->bytes));
		rp_jb_put(b, j, "failures", rp_jb_u64(c->failures));
		rp_jb_put(b, j, "mismatches", rp_jb_u64(c->mismatches));
		rp_jb_put(b, j, "warmup_ops", rp_jb_u64(c->warmup_ops));
		rp_jb_put(b, j, "passes", rp_jb_u64(c->passes));
		rp_jb_put(b, j, "order_waits", rp_jb_u64(c->order_waits));
		rp_jb_put(b, j, "order_wait_us", jnum(c->order_wait_us));
		rp_jb_put(b, j, "latency_us", jlat(b, &c->lat));
		rp_jb_add(b, cres, j);
	}
	rp_jb_put(b, d, "client_results", cres);

	json_t *const prep = json_object();
	rp_jb_put(b, prep, "ran", json_boolean(res->prepare.ran));
	rp_jb_put(b, prep, "dirs", rp_jb_u64(res->prepare.dirs));
	rp_jb_put(b, prep, "files", rp_jb_u64(res->prepare.files));
	rp_jb_put(b, prep, "bytes", rp_jb_u64(res->prepare.bytes));
	rp_jb_put(b, prep, "failures", rp_jb_u64(res->prepare.failures));
	rp_jb_put(b, prep, "seconds", jnum(res->prepare.seconds));
	rp_jb_put(b, prep, "fill", json_string(rp_prepare_fill_name(res->prepare.fill)));
	rp_jb_put(b, prep, "written", rp_jb_u64(res->prepare.written));
	rp_jb_put(b, prep, "kept", rp_jb_u64(res->prepare.kept));
	rp_jb_put(b, prep, "extended", rp_jb_u64(res->prepare.extended));
	rp_jb_put(b, prep, "caches_dropped", res->prepare.caches == 0 ? json_null() : json_boolean(res->prepare.caches == 1));
	const rp_replay_image *const im = &res->prepare.image;
	json_t *imj = json_null();
	if (im->asked) {
		imj = json_object();
		rp_jb_put(b, imj, "source", im->source ? jname(im->source) : json_null());
		rp_jb_put(b, imj, "root", jname(im->root));
		rp_jb_put(b, imj, "seed", rp_jb_u64(im->seed));
		rp_jb_put(b, imj, "scale", jnum(im->scale));
		rp_jb_put(b, imj, "dirs", rp_jb_u64(im->dirs));
		rp_jb_put(b, imj, "files", rp_jb_u64(im->files));
		rp_jb_put(b, imj, "bytes", rp_jb_u64(im->bytes));
		rp_jb_put(b, imj, "failures", rp_jb_u64(im->failures));
		rp_jb_put(b, imj, "capped", rp_jb_u64(im->capped));
		rp_jb_put(b, imj, "shallow", rp_jb_u64(im->shallow));
		rp_jb_put(b, imj, "seconds", jnum(im->seconds));
	}
	rp_jb_put(b, prep, "image", imj);
	rp_jb_put(b, d, "prepare", prep);

	const rp_replay_flush *const fs = &res->final_sync;
	json_t *const fsj = json_object();
	rp_jb_put(b, fsj, "asked", json_boolean(fs->asked));
	rp_jb_put(b, fsj, "ran", json_boolean(fs->ran));
	rp_jb_put(b, fsj, "seconds", jnum((double)fs->ns / 1e9));
	rp_jb_put(b, fsj, "error", rp_replay_flush_why(fs) ? json_string(rp_replay_flush_why(fs)) : json_null());
	rp_jb_put(b, fsj, "dirty_bytes_at_end", fs->dirty_start >= 0 && fs->dirty_end >= 0
							? json_integer(fs->dirty_end - fs->dirty_start) : json_null());
	rp_jb_put(b, d, "final_sync", fsj);

	json_t *const samples = json_array();
	for (size_t i = 0; i < res->n_samples; i++) {
		const rp_replay_sample *const s = &res->samples[i];
		char b1[16], b2[16];
		json_t *const j = json_object();
		rp_jb_put(b, j, "client", json_integer(s->client));
		rp_jb_put(b, j, "trace_client", json_integer(s->client)); /* the same: named as cat and stat name clients */
		rp_jb_put(b, j, "copy", json_integer(s->copy));
		rp_jb_put(b, j, "index", rp_jb_u64(s->index));
		rp_jb_put(b, j, "op", json_string(rp_op_name(s->op) ? rp_op_name(s->op) : "?"));
		rp_jb_put(b, j, "path", jname(s->path));
		rp_jb_put(b, j, "handle", rp_jb_u64(s->handle));
		rp_jb_put(b, j, "count", rp_jb_u64(s->count));
		rp_jb_put(b, j, "expected", json_string(status_text(s->expected, b1, sizeof(b1))));
		rp_jb_put(b, j, "actual", json_string(status_text(s->actual, b2, sizeof(b2))));
		rp_jb_add(b, samples, j);
	}
	rp_jb_put(b, d, "mismatch_samples", samples);
	rp_jb_put(b, d, "mismatch_other_kinds", rp_jb_u64(res->sample_others));

	json_t *const series = json_array();
	for (size_t i = 0; i < res->n_series; i++) {
		const rp_replay_second *const s = &res->series[i];
		json_t *const j = json_object();
		rp_jb_put(b, j, "t", rp_jb_u64(i));
		rp_jb_put(b, j, "ops", rp_jb_u64(s->ops));
		rp_jb_put(b, j, "bytes", rp_jb_u64(s->bytes));
		rp_jb_put(b, j, "failures", rp_jb_u64(s->failures));
		rp_jb_put(b, j, "lag_max_us", jnum(s->lag_max_us));
		rp_jb_put(b, j, "lat_count", rp_jb_u64(s->lat_count));
		rp_jb_put(b, j, "lat_avg_us", jnum(s->lat_avg_us));
		rp_jb_put(b, j, "lat_max_us", jnum(s->lat_max_us));
		rp_jb_put(b, j, "warmup", json_boolean(s->warmup));
		rp_jb_add(b, series, j);
	}
	rp_jb_put(b, d, "series", series);
	rp_jb_put(b, d, "error", res->error[0] ? jname(res->error) : json_null());
	return d;
}

int rp_replay_write_json(const rp_replay_results *res, const rp_replay_provenance *prov, FILE *f)
{
	rp_jb b = { .failed = false };
	json_t *const d = build(&b, res, prov);
	int rc = 0;
	if (!d || b.failed)
		rc = RP_E_NOMEM;
	else if (json_dumpf(d, f, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) < 0 || fputc('\n', f) == EOF)
		rc = RP_E_IO;
	const int e = errno; /* why the write failed, for the caller's message */
	json_decref(d);
	errno = e;
	return rc;
}
