/*
 * reprise model --check TRACE: the model's accuracy, measured (issue 27 point 5, docs/model.md).  The
 * model of TRACE, a trace generated from it, both replayed on one target in turn, and how far apart
 * they are: op mix, throughput, latency, inter-arrival times and file sizes.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/input.h"
#include "cli/model_cli.h"
#include "cli/output.h"
#include "formats/rpz.h"
#include "replay/replay.h"
#include "results/model_check.h"

#define CMD "model --check"

/* What one replay measured. */
typedef struct run_res {
	double ops_s, mb_s, p50_us, p99_us;
	uint64_t ops, mismatches;
} run_res;

/* Both sides: the trace [0] and the generated one [1]. */
typedef struct check_st {
	const rp_check_opts *o;
	char tmp[4096], gen[4200], model[4200], target[4200];
	rp_model m, mg;
	rp_check_sample s[2];
	uint64_t size[2], model_bytes;
	run_res runs[2][100];
	unsigned n_runs;
} check_st;

static uint64_t file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* The model m written to path as JSON, and the trace generated from it (seed 1) to gen: 0, or 1 after saying why. */
static int write_model_and_gen(const rp_model *m, const char *model_path, const char *gen, const char *name)
{
	char eb[RP_ERRBUF_SIZE];
	FILE *f = fopen(model_path, "w");
	if (!f || rp_model_write_json(m, f, eb, sizeof(eb)) < 0 || fclose(f) != 0) {
		rp__cli_err(CMD, "%s: %s", model_path, f ? eb : strerror(errno));
		return 1;
	}
	f = fopen(gen, "wb");
	if (!f) {
		rp__cli_err(CMD, "%s: %s", gen, strerror(errno));
		return 1;
	}
	rp_rpz_writer *w = NULL;
	const rp_rpz_wopts wo = { 0 };
	const rp_gen_opts go = { .seed = 1, .name = name };
	rp_gen_stats st;
	int rc = rp_rpz_writer_open_file(&w, f, gen, &wo, eb);
	if (rc == 0)
		rc = rp_model_generate(m, &go, rp_rpz_writer_sink(w), &st, eb);
	if (w) {
		char eb2[RP_ERRBUF_SIZE];
		const int crc = rp_rpz_writer_close(w, eb2);
		if (rc == 0 && crc < 0) {
			rc = crc;
			memcpy(eb, eb2, sizeof(eb));
		}
	}
	if (fclose(f) != 0 && rc == 0) {
		rc = -1;
		snprintf(eb, sizeof(eb), "%s", strerror(errno));
	}
	if (rc < 0) {
		rp__cli_err(CMD, "%s: %s", gen, eb);
		return 1;
	}
	return 0;
}

/* One replay of trace in a fresh directory beneath target, removed afterwards: 0, or 1 after saying why. */
static int replay_once(const check_st *c, const char *trace, const char *tag, unsigned run, bool timed, run_res *out)
{
	char dir[4400], eb[RP_ERRBUF_SIZE];
	snprintf(dir, sizeof(dir), "%s/check-%ld-%s-%u", c->target, (long)getpid(), tag, run);
	if (mkdir(dir, 0755) < 0) {
		rp__cli_err(CMD, "%s: %s", dir, strerror(errno));
		return 1;
	}
	int rc = 1;
	rp_tree_snap *snap = NULL;
	rp_workload *w = NULL;
	rp_replay *r = NULL;
	if (rp_tree_snap_take(&snap, dir, eb) < 0 || rp_workload_open_file(&w, trace, c->o->lenient, eb) < 0) {
		rp__cli_err(CMD, "%s", eb);
		goto out;
	}
	rp_replay_opts ro;
	rp_replay_opts_init(&ro);
	ro.target = dir;
	ro.target_entries = 0;
	ro.timing = timed && !c->o->afap ? RP_TIMING_TRACE : RP_TIMING_AFAP;
	if (rp_replay_create(&r, &ro, w, eb) < 0 || rp_replay_run(r, eb) < 0) {
		rp__cli_err(CMD, "%s: replay %s run %u: %s", trace, tag, run, eb);
		goto out;
	}
	const rp_replay_results *const res = rp_replay_get_results(r);
	if (res->stop == RP_STOP_ERROR) {
		rp__cli_err(CMD, "%s: replay %s run %u ended in an error: %s", trace, tag, run, res->error);
		goto out;
	}
	*out = (run_res){ .ops_s = res->ops_per_sec, .mb_s = res->mb_per_sec, .p50_us = res->lat.p50_us,
			  .p99_us = res->lat.p99_us, .ops = res->ops, .mismatches = res->mismatches };
	if (!c->o->quiet)
		fprintf(stderr, "reprise %s: run %u, %s: %.0f ops/s, %.2f MB/s, p50 %.1f us, p99 %.1f us, %" PRIu64 " mismatched\n",
			CMD, run, tag, out->ops_s, out->mb_s, out->p50_us, out->p99_us, out->mismatches);
	rc = 0;
out:
	rp_replay_destroy(r);
	rp_workload_destroy(w);
	if (snap) {
		rp_tree_clean cl;
		if (rp_tree_snap_clean(snap, dir, &cl, eb) < 0)
			rp__cli_err(CMD, "%s: cleaning up: %s", dir, eb);
	}
	rp_tree_snap_free(snap);
	if (rmdir(dir) < 0)
		rp__cli_err(CMD, "%s: %s (left behind)", dir, strerror(errno));
	return rc;
}

static int cmp_double(const void *pa, const void *pb)
{
	const double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* The spread {min, median, max} of n values (n >= 1; the median of an even count is the mean of the middle two). */
typedef struct spread {
	double min, med, max;
} spread;

static spread spread_of(const double *v, unsigned n)
{
	double s[100];
	memcpy(s, v, sizeof(*v) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	return (spread){ s[0], n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2, s[n - 1] };
}

/* The measure at field off of each run of side k, as a spread; and of the runs' ratios generated / trace. */
static spread side_spread(const check_st *c, int k, size_t off)
{
	double v[100];
	for (unsigned i = 0; i < c->n_runs; i++)
		v[i] = *(const double *)((const char *)&c->runs[k][i] + off);
	return spread_of(v, c->n_runs);
}

static spread ratio_spread(const check_st *c, size_t off)
{
	double v[100];
	for (unsigned i = 0; i < c->n_runs; i++) {
		const double a = *(const double *)((const char *)&c->runs[0][i] + off);
		const double b = *(const double *)((const char *)&c->runs[1][i] + off);
		v[i] = a > 0 ? b / a : 0;
	}
	return spread_of(v, c->n_runs);
}

static const struct {
	const char *name, *unit;
	size_t off;
} measures[] = {
	{ "ops_per_sec", "ops/s", offsetof(run_res, ops_s) },
	{ "mb_per_sec", "MB/s", offsetof(run_res, mb_s) },
	{ "p50_us", "p50 us", offsetof(run_res, p50_us) },
	{ "p99_us", "p99 us", offsetof(run_res, p99_us) },
};
#define N_MEASURES (sizeof(measures) / sizeof(measures[0]))

static json_t *spread_json(spread s)
{
	return json_pack("{s:f,s:f,s:f}", "min", s.min, "median", s.med, "max", s.max);
}

static int report_json(const check_st *c, const char *trace, bool timed, double ks_gap, double ks_size)
{
	unsigned op;
	const double mix = rp_check_mix_diff(&c->s[0], &c->s[1], &op);
	json_t *const j = json_object(), *const ops = json_object(), *const rep = json_object();
	int bad = !j || !ops || !rep;
	for (unsigned k = 0; !bad && k < RP_OP__COUNT; k++) {
		if (k == RP_OP_SLEEP || (!c->s[0].ops[k] && !c->s[1].ops[k]))
			continue;
		const double a = c->s[0].n_ops ? 100.0 * (double)c->s[0].ops[k] / (double)c->s[0].n_ops : 0;
		const double b = c->s[1].n_ops ? 100.0 * (double)c->s[1].ops[k] / (double)c->s[1].n_ops : 0;
		bad |= json_object_set_new(ops, rp_op_name(k), json_pack("{s:I,s:I,s:f,s:f,s:f}", "trace", (json_int_t)c->s[0].ops[k],
									 "generated", (json_int_t)c->s[1].ops[k], "trace_pct", a,
									 "generated_pct", b, "diff_points", b - a));
	}
	for (size_t i = 0; !bad && i < N_MEASURES; i++)
		bad |= json_object_set_new(rep, measures[i].name,
					   json_pack("{s:o,s:o,s:o}", "trace", spread_json(side_spread(c, 0, measures[i].off)),
						     "generated", spread_json(side_spread(c, 1, measures[i].off)), "ratio",
						     spread_json(ratio_spread(c, measures[i].off))));
	uint64_t mism[2] = { 0, 0 };
	for (unsigned i = 0; i < c->n_runs; i++)
		for (int k = 0; k < 2; k++)
			mism[k] += c->runs[k][i].mismatches;
	bad |= json_object_set_new(rep, "mismatches", json_pack("{s:I,s:I}", "trace", (json_int_t)mism[0], "generated", (json_int_t)mism[1]));
	if (!bad)
		bad = json_object_set_new(j, "format", json_string("reprise-model-check")) ||
		      json_object_set_new(j, "trace", json_string(trace)) ||
		      json_object_set_new(j, "ops", json_pack("{s:I,s:I}", "trace", (json_int_t)c->s[0].n_ops, "generated",
							      (json_int_t)c->s[1].n_ops)) ||
		      json_object_set_new(j, "sizes", json_pack("{s:I,s:I,s:f}", "trace_bytes", (json_int_t)c->size[0], "model_bytes",
								(json_int_t)c->model_bytes, "model_pct",
								c->size[0] ? 100.0 * (double)c->model_bytes / (double)c->size[0] : 0)) ||
		      json_object_set_new(j, "op_mix", json_pack("{s:f,s:s,s:o}", "max_diff_points", mix, "max_diff_op",
								 rp_op_name(op), "ops", ops)) ||
		      json_object_set_new(j, "replay", json_pack("{s:s,s:I,s:s,s:o}", "target", c->target, "runs",
								 (json_int_t)c->n_runs, "timing", timed && !c->o->afap ? "trace" : "afap",
								 "measures", rep)) ||
		      json_object_set_new(j, "interarrival_ks", json_pack("{s:f,s:I,s:I}", "statistic", ks_gap, "trace_gaps",
									  (json_int_t)c->s[0].seen, "generated_gaps",
									  (json_int_t)c->s[1].seen)) ||
		      json_object_set_new(j, "file_size_ks", json_pack("{s:f,s:I,s:I,s:s}", "statistic", ks_size, "trace_files",
								       (json_int_t)rp_mh_total(&c->m.fs.size), "generated_files",
								       (json_int_t)rp_mh_total(&c->mg.fs.size), "at", "log2 bucket edges"));
	else {
		json_decref(ops);
		json_decref(rep);
	}
	if (bad || json_dumpf(j, stdout, JSON_INDENT(1)) < 0 || fputc('\n', stdout) == EOF) {
		json_decref(j);
		rp__cli_err(CMD, "could not write the JSON report");
		return 1;
	}
	json_decref(j);
	return 0;
}

static void report_text(const check_st *c, const char *trace, bool timed, double ks_gap, double ks_size)
{
	unsigned op;
	const double mix = rp_check_mix_diff(&c->s[0], &c->s[1], &op);
	printf("model check of %s: %" PRIu64 " ops, generated %" PRIu64 "; model %" PRIu64 " bytes, %.2f %% of the trace's %" PRIu64 "\n",
	       trace, c->s[0].n_ops, c->s[1].n_ops, c->model_bytes,
	       c->size[0] ? 100.0 * (double)c->model_bytes / (double)c->size[0] : 0.0, c->size[0]);
	printf("\nop mix (sleeps aside): largest difference %.3f points (%s)\n", mix, rp_op_name(op));
	printf("  %-12s %10s %10s %9s %9s %8s\n", "op", "trace", "generated", "trace_%", "gen_%", "points");
	for (unsigned k = 0; k < RP_OP__COUNT; k++) {
		if (k == RP_OP_SLEEP || (!c->s[0].ops[k] && !c->s[1].ops[k]))
			continue;
		const double a = c->s[0].n_ops ? 100.0 * (double)c->s[0].ops[k] / (double)c->s[0].n_ops : 0;
		const double b = c->s[1].n_ops ? 100.0 * (double)c->s[1].ops[k] / (double)c->s[1].n_ops : 0;
		printf("  %-12s %10" PRIu64 " %10" PRIu64 " %9.3f %9.3f %+8.3f\n", rp_op_name(k), c->s[0].ops[k], c->s[1].ops[k], a, b,
		       b - a);
	}
	printf("\nreplay on %s, %s timing, %u run%s each, alternating: median [min - max]\n", c->target,
	       timed && !c->o->afap ? "trace" : "afap", c->n_runs, c->n_runs == 1 ? "" : "s");
	printf("  %-8s %30s %30s %24s\n", "", "trace", "generated", "ratio gen/trace");
	for (size_t i = 0; i < N_MEASURES; i++) {
		const spread a = side_spread(c, 0, measures[i].off), b = side_spread(c, 1, measures[i].off),
			     q = ratio_spread(c, measures[i].off);
		printf("  %-8s %10.1f [%8.1f - %8.1f] %10.1f [%8.1f - %8.1f] %6.3f [%6.3f - %6.3f]\n", measures[i].unit, a.med, a.min,
		       a.max, b.med, b.min, b.max, q.med, q.min, q.max);
	}
	printf("\ninter-arrival KS: %.4f (%" PRIu64 " and %" PRIu64 " gaps)\n", ks_gap, c->s[0].seen, c->s[1].seen);
	printf("file-size KS: %.4f (at log2 bucket edges; %" PRIu64 " and %" PRIu64 " files)\n", ks_size,
	       rp_mh_total(&c->m.fs.size), rp_mh_total(&c->mg.fs.size));
}

/* Remove what check made in its temporary directory. */
static void cleanup_tmp(const check_st *c)
{
	unlink(c->gen);
	unlink(c->model);
	if (rmdir(c->tmp) < 0)
		rp__cli_err(CMD, "%s: %s (left behind)", c->tmp, strerror(errno));
}

int rp__cli_model_check(const char *trace, const rp_check_opts *o)
{
	check_st *const c = calloc(1, sizeof(*c));
	if (!c) {
		rp__cli_err(CMD, "out of memory");
		return 1;
	}
	c->o = o;
	const char *const td = getenv("TMPDIR");
	snprintf(c->tmp, sizeof(c->tmp), "%s/reprise-check-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(c->tmp)) {
		rp__cli_err(CMD, "%s: %s", c->tmp, strerror(errno));
		free(c);
		return 1;
	}
	snprintf(c->gen, sizeof(c->gen), "%s/generated.rpz", c->tmp);
	snprintf(c->model, sizeof(c->model), "%s/model.json", c->tmp);
	snprintf(c->target, sizeof(c->target), "%s", o->target ? o->target : c->tmp);
	const char *const slash = strrchr(trace, '/');
	int rc = rp__cli_model_build(trace, o->chunk_s, o->lenient, &c->m);
	if (rc == 0)
		rc = write_model_and_gen(&c->m, c->model, c->gen, slash ? slash + 1 : trace);
	if (rc == 0)
		rc = rp__cli_model_build(c->gen, o->chunk_s, false, &c->mg);
	c->size[0] = file_size(trace);
	c->size[1] = file_size(c->gen);
	c->model_bytes = file_size(c->model);
	for (int k = 0; rc == 0 && k < 2; k++) {
		if (rp_check_sample_init(&c->s[k], 1 + (uint64_t)k) < 0) {
			rp__cli_err(CMD, "out of memory");
			rc = 1;
			break;
		}
		const rp_input_opts io = { .lenient = k == 0 && o->lenient, .quiet = true, .cmd = "model" };
		rc = rp__cli_pump(k == 0 ? trace : c->gen, &c->s[k].base, &io);
	}
	const bool timed = c->m.span_ns > 0 && c->s[0].timed;
	struct stat sb;
	if (rc == 0 && o->target && (stat(o->target, &sb) < 0 || !S_ISDIR(sb.st_mode))) {
		rp__cli_err(CMD, "--target %s: not a directory", o->target);
		rc = 2;
	}
	/* Alternating: the trace first in odd runs, the generated one first in even ones. */
	for (unsigned i = 0; rc == 0 && i < o->runs && i < 100; i++) {
		for (int j = 0; rc == 0 && j < 2; j++) {
			const int k = (int)(i % 2) ^ j;
			rc = replay_once(c, k ? c->gen : trace, k ? "generated" : "trace", i + 1, timed, &c->runs[k][i]);
		}
		if (rc == 0)
			c->n_runs = i + 1;
	}
	if (rc == 0) {
		const double ks_gap = rp_ks2(c->s[0].gaps, c->s[0].n_gaps, c->s[1].gaps, c->s[1].n_gaps);
		const double ks_size = rp_mh_ks(&c->m.fs.size, &c->mg.fs.size);
		if (o->json)
			rc = report_json(c, trace, timed, ks_gap, ks_size);
		else
			report_text(c, trace, timed, ks_gap, ks_size);
		if (rc == 0 && fflush(stdout) != 0) {
			rp__cli_err(CMD, "stdout: %s", strerror(errno));
			rc = 1;
		}
	}
	for (int k = 0; k < 2; k++)
		rp_check_sample_fini(&c->s[k]);
	rp_model_free(&c->m);
	rp_model_free(&c->mg);
	cleanup_tmp(c);
	free(c);
	return rc;
}
