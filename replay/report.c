/* Replay results as a text table and as JSON (schema: docs/replay.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

static void write_prepare(const rp_replay_results *res, FILE *f)
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
}

/* "Failed N (all as recorded)": a failure the trace recorded too is the workload, not a problem. */
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
		write_prepare(res, f);
	fprintf(f, "Throughput %.2f MB/sec  %.0f ops/sec  %u clients  %.2f s measured", res->mb_per_sec,
		res->ops_per_sec, res->clients, res->elapsed_s);
	if (res->warmup_s > 0)
		fprintf(f, " after %.2f s warm-up", res->warmup_s);
	fprintf(f, "  (%s timing, %s backend, stopped: %s)\n", rp_timing_name(res->timing), res->backend, res->stop);
	if (res->lag_count)
		fprintf(f, "Issue lag: p50 %.1f us  p99 %.1f us  max %.1f us\n", res->lag_p50_us, res->lag_p99_us,
			res->lag_max_us);
	if (res->max_inflight > 1 || res->depth.rec_max > 1) {
		fprintf(f, "In flight per client (max %u): max %u, mean %.2f; recorded max %u, mean %.2f\n",
			res->max_inflight, res->depth.max, res->depth.mean, res->depth.rec_max, res->depth.rec_mean);
		/* Client by client when there are a few; all of them are in the JSON. */
		for (size_t i = 0; res->n_client_depth > 1 && res->n_client_depth <= 16 && i < res->n_client_depth; i++) {
			const rp_replay_depth *const d = &res->client_depth[i];
			fprintf(f, "  client %zu: max %u, mean %.2f; recorded max %u, mean %.2f\n", i, d->max, d->mean,
				d->rec_max, d->rec_mean);
		}
	}
	write_outcome(res, f);
	if (res->unsupported)
		fprintf(f, "Unsupported by the %s backend (not sent to it; not failed, not mismatched): %llu\n",
			res->backend, (unsigned long long)res->unsupported);
	if (res->specials)
		fprintf(f, "Special files refused (FIFO, device, socket: ENXIO, counted as failed): %llu\n",
			(unsigned long long)res->specials);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		const unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f) /* as stat --json: no raw C1 control or stray byte reaches a terminal */
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* JSON has no NaN or infinity. */
static void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		v = 0;
	fprintf(f, "%.6g", v);
}

static void json_u64(FILE *f, const char *key, uint64_t v, bool comma)
{
	fprintf(f, "\"%s\": %llu%s", key, (unsigned long long)v, comma ? ", " : "");
}

static void json_dbl(FILE *f, const char *key, double v, bool comma)
{
	fprintf(f, "\"%s\": ", key);
	json_num(f, v);
	if (comma)
		fputs(", ", f);
}

void rp_replay_write_json(const rp_replay_results *res, FILE *f)
{
	fputs("{\n  \"backend\": ", f);
	json_str(f, res->backend ? res->backend : "");
	fprintf(f, ",\n  \"timing\": \"%s\", ", rp_timing_name(res->timing));
	json_dbl(f, "speed", res->speed, true);
	json_u64(f, "clients", res->clients, true);
	fprintf(f, "\"stop\": \"%s\",\n  ", res->stop ? res->stop : "end");
	json_dbl(f, "elapsed_s", res->elapsed_s, true);
	json_dbl(f, "warmup_s", res->warmup_s, true);
	json_u64(f, "total_ops", res->ops, true);
	json_u64(f, "bytes", res->bytes, false);
	fputs(",\n  ", f);
	json_dbl(f, "ops_per_sec", res->ops_per_sec, true);
	json_dbl(f, "mb_per_sec", res->mb_per_sec, false);
	fputs(",\n  \"lag_us\": {", f);
	json_dbl(f, "p50", res->lag_p50_us, true);
	json_dbl(f, "p99", res->lag_p99_us, true);
	json_dbl(f, "max", res->lag_max_us, true);
	json_u64(f, "count", res->lag_count, false);
	fputs("},\n  ", f);
	json_u64(f, "warmup_ops", res->warmup_ops, true);
	json_u64(f, "passes", res->passes, true);
	json_u64(f, "failures", res->failures, true);
	json_u64(f, "mismatches", res->mismatches, true);
	json_u64(f, "unknown_handles", res->unknown_handles, true);
	json_u64(f, "skipped", res->skipped, true);
	json_u64(f, "escapes", res->escapes, true);
	json_u64(f, "unsupported", res->unsupported, true);
	json_u64(f, "special_files", res->specials, false);

	fputs(",\n  \"op_counts\": {", f);
	bool first = true;
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		if (!res->op[op].count)
			continue;
		fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", rp_op_name(op), (unsigned long long)res->op[op].count);
		first = false;
	}
	fputs("},\n  \"ops\": {", f);
	first = true;
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		const rp_replay_opstats *const o = &res->op[op];
		if (!o->count && !o->skipped && !o->escapes && !o->unsupported)
			continue;
		fprintf(f, "%s\n    \"%s\": {", first ? "" : ",", rp_op_name(op));
		first = false;
		json_u64(f, "count", o->count, true);
		json_u64(f, "bytes", o->bytes, true);
		json_dbl(f, "avg_us", o->avg_us, true);
		json_dbl(f, "p50_us", o->p50_us, true);
		json_dbl(f, "p99_us", o->p99_us, true);
		json_dbl(f, "p999_us", o->p999_us, true);
		json_dbl(f, "max_us", o->max_us, true);
		json_u64(f, "failures", o->failures, true);
		json_u64(f, "mismatches", o->mismatches, true);
		json_u64(f, "unknown_handles", o->unknown_handles, true);
		json_u64(f, "skipped", o->skipped, true);
		json_u64(f, "escapes", o->escapes, true);
		json_u64(f, "unsupported", o->unsupported, true);
		json_u64(f, "special_files", o->specials, false);
		fputc('}', f);
	}
	fputs(first ? "},\n  \"errors\": {" : "\n  },\n  \"errors\": {", f);
	first = true;
	for (unsigned e = 0; e < RP_REPLAY_ERRNO_MAX; e++) {
		if (!res->errnos[e])
			continue;
		const char *const name = e ? rp_replay_errno_name((int)e) : "other";
		fprintf(f, "%s", first ? "" : ", ");
		if (name)
			json_str(f, name);
		else
			fprintf(f, "\"%u\"", e);
		fprintf(f, ": %llu", (unsigned long long)res->errnos[e]);
		first = false;
	}
	fputs("},\n  \"inflight\": {", f);
	json_u64(f, "max_inflight", res->max_inflight, true);
	json_u64(f, "max", res->depth.max, true);
	json_dbl(f, "mean", res->depth.mean, true);
	json_u64(f, "recorded_max", res->depth.rec_max, true);
	json_dbl(f, "recorded_mean", res->depth.rec_mean, true);
	fputs("\"clients\": [", f);
	for (size_t i = 0; i < res->n_client_depth; i++) {
		const rp_replay_depth *const d = &res->client_depth[i];
		fprintf(f, "%s{", i ? ", " : "");
		json_u64(f, "max", d->max, true);
		json_dbl(f, "mean", d->mean, true);
		json_u64(f, "recorded_max", d->rec_max, true);
		json_dbl(f, "recorded_mean", d->rec_mean, false);
		fputc('}', f);
	}
	fputs("]},\n  \"prepare\": {", f);
	fprintf(f, "\"ran\": %s, ", res->prepare.ran ? "true" : "false");
	json_u64(f, "dirs", res->prepare.dirs, true);
	json_u64(f, "files", res->prepare.files, true);
	json_u64(f, "bytes", res->prepare.bytes, true);
	json_u64(f, "failures", res->prepare.failures, true);
	json_dbl(f, "seconds", res->prepare.seconds, false);
	fputs("},\n  \"mismatch_samples\": [", f);
	for (size_t i = 0; i < res->n_samples; i++) {
		const rp_replay_sample *const s = &res->samples[i];
		char b1[16], b2[16];
		fprintf(f,
			"%s\n    {\"client\": %u, \"trace_client\": %u, \"copy\": %u, \"count\": %llu, \"handle\": %llu, "
			"\"index\": %llu, \"op\": \"%s\", \"path\": ",
			i ? "," : "", s->client, s->client, s->copy, (unsigned long long)s->count,
			(unsigned long long)s->handle, (unsigned long long)s->index, rp_op_name(s->op) ? rp_op_name(s->op) : "?");
		json_str(f, s->path);
		fprintf(f, ", \"expected\": \"%s\", \"actual\": \"%s\"}", status_text(s->expected, b1, sizeof(b1)),
			status_text(s->actual, b2, sizeof(b2)));
	}
	fputs(res->n_samples ? "\n  ],\n  \"series\": [" : "],\n  \"series\": [", f);
	for (size_t i = 0; i < res->n_series; i++) {
		const rp_replay_second *const s = &res->series[i];
		fprintf(f, "%s\n    {\"t\": %zu, ", i ? "," : "", i);
		json_u64(f, "ops", s->ops, true);
		json_u64(f, "bytes", s->bytes, true);
		json_u64(f, "failures", s->failures, true);
		json_dbl(f, "lag_max_us", s->lag_max_us, true);
		fprintf(f, "\"warmup\": %s}", s->warmup ? "true" : "false");
	}
	fputs(res->n_series ? "\n  ],\n  \"error\": " : "],\n  \"error\": ", f);
	if (res->error[0])
		json_str(f, res->error);
	else
		fputs("null", f);
	fputs("\n}\n", f);
}
