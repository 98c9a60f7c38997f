/* reprise bench: the summary of each target's runs and the side-by-side table (docs/bench.md, docs/bench-json.md). */
#include "results/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/op.h"
#include "results/benchtab.h"

/* s escaped as the canonical text form escapes strings (rp_text_escape): no control byte reaches the terminal. */
static const char *esc_into(char *buf, size_t size, const char *s)
{
	rp_text_escape(buf, size, s, strlen(s), false);
	return buf;
}

/* Op rows the table shows (the most frequent ops of all targets' counted runs); the JSON has every op. */
#define TABLE_OPS 6

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* {"min", "median", "max"} of n values (median of an even count: the mean of the middle two); null when n is 0. */
static json_t *spread(double *v, size_t n)
{
	if (!n)
		return json_null();
	qsort(v, n, sizeof(*v), cmp_double);
	const double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return json_pack("{s:f, s:f, s:f}", "min", v[0], "median", med, "max", v[n - 1]);
}

/* A number at a path of keys in a replay result ("latency_us", "p50"), or NAN when it is not there. */
static double num_at(const json_t *j, const char *k1, const char *k2, const char *k3)
{
	const char *const keys[] = { k1, k2, k3 };
	for (size_t i = 0; i < 3 && keys[i] && j; i++)
		j = json_object_get(j, keys[i]);
	return json_is_number(j) ? json_number_value(j) : NAN;
}

static bool counted(const rp_bench_run *r)
{
	return !r->discarded && !r->failed && r->result;
}

/* The spread of one number over the counted runs (scaled: µs to ns); null when no run has it. */
static json_t *over_runs(const rp_bench_target *t, double scale, const char *k1, const char *k2, const char *k3)
{
	double v[RP_BENCH_RUNS_MAX];
	size_t n = 0;
	for (size_t i = 0; i < t->n_runs; i++) {
		if (!counted(&t->runs[i]))
			continue;
		const double x = num_at(t->runs[i].result, k1, k2, k3);
		if (!isnan(x))
			v[n++] = x * scale;
	}
	return spread(v, n);
}

/* {"p50": spread, "p99": spread, "max": spread} of a latency object (µs in the result, ns here). */
static json_t *lat_spread(const rp_bench_target *t, const char *k1, const char *k2)
{
	json_t *const o = json_object();
	static const char *const q[] = { "p50", "p99", "max" };
	for (size_t i = 0; o && i < 3; i++) {
		double v[RP_BENCH_RUNS_MAX];
		size_t n = 0;
		for (size_t r = 0; r < t->n_runs; r++) {
			if (!counted(&t->runs[r]))
				continue;
			const json_t *l = t->runs[r].result;
			l = k2 ? json_object_get(json_object_get(json_object_get(l, k1), k2), "latency_us")
			       : json_object_get(l, k1);
			const json_t *const x = json_object_get(l, q[i]);
			/* an op a run did not do has no latency there: the spread is over the runs that did it */
			if (json_is_number(x) && json_integer_value(json_object_get(l, "count")) > 0)
				v[n++] = json_number_value(x) * 1e3;
		}
		json_object_set_new(o, q[i], spread(v, n));
	}
	return o;
}

/*
 * {"p50", "p99", "max"} of all ops but sleeps and process ops (fork, wait:
 * a parent waiting for its children is not file-system latency), as compare
 * reads a run (results/benchtab_json.c): replay's latency_us when the run has
 * no process op, else its other ops' histograms merged.
 */
static json_t *all_spread(const rp_bench_target *t)
{
	double v[3][RP_BENCH_RUNS_MAX];
	size_t n = 0;
	for (size_t r = 0; r < t->n_runs; r++) {
		if (!counted(&t->runs[r]))
			continue;
		rp_bt_target tmp = { .target = (char *)"", .fs_type = (char *)"", .mount_options = (char *)"" };
		char err[256];
		rp_bt_run *const run = rp__bt_run_add(&tmp, err, sizeof(err));
		if (run && rp__bt_run_from_json(run, t->runs[r].result, "result", err, sizeof(err)) == 0) {
			v[0][n] = run->all_p50_us * 1e3;
			v[1][n] = run->all_p99_us * 1e3;
			v[2][n] = run->all_max_us * 1e3;
			n++;
		}
		rp__bt_target_runs_free(&tmp);
	}
	json_t *const o = json_object();
	json_object_set_new(o, "p50", spread(v[0], n));
	json_object_set_new(o, "p99", spread(v[1], n));
	json_object_set_new(o, "max", spread(v[2], n));
	return o;
}

json_t *rp__bench_summary(const rp_bench_target *t)
{
	json_t *const s = json_object();
	if (!s)
		return NULL;
	size_t n = 0;
	uint64_t errors = 0, mismatches = 0;
	for (size_t i = 0; i < t->n_runs; i++) {
		if (!counted(&t->runs[i]))
			continue;
		n++;
		const json_t *const r = t->runs[i].result;
		const json_int_t f = json_integer_value(json_object_get(r, "failures"));
		const json_int_t fe = json_integer_value(json_object_get(r, "failures_expected"));
		errors += f > fe ? (uint64_t)(f - fe) : 0;
		mismatches += (uint64_t)json_integer_value(json_object_get(r, "mismatches"));
	}
	json_object_set_new(s, "runs_counted", json_integer((json_int_t)n));
	json_object_set_new(s, "mb_s", over_runs(t, 1, "mb_per_sec", NULL, NULL));
	json_object_set_new(s, "ops_s", over_runs(t, 1, "ops_per_sec", NULL, NULL));
	json_t *const lat = json_object();
	/* every op some counted run did (sleeps have no latency) */
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		const char *const name = rp_op_name(op);
		bool seen = false;
		for (size_t i = 0; name && op != RP_OP_SLEEP && !seen && i < t->n_runs; i++)
			seen = counted(&t->runs[i]) &&
			       json_integer_value(json_object_get(json_object_get(json_object_get(t->runs[i].result, "ops"), name),
								  "count")) > 0;
		if (seen)
			json_object_set_new(lat, name, lat_spread(t, "ops", name));
	}
	json_object_set_new(lat, "all", all_spread(t));
	json_object_set_new(s, "lat_ns", lat);
	json_t *const lag = json_object();
	json_object_set_new(lag, "p50", over_runs(t, 1e3, "lag_us", "p50", NULL));
	json_object_set_new(lag, "p99", over_runs(t, 1e3, "lag_us", "p99", NULL));
	json_object_set_new(s, "lag_ns", lag);
	/* over the runs whose sync ran: a run without one (--no-final-sync, the null backend) has no time to show */
	double fv[RP_BENCH_RUNS_MAX];
	size_t fn = 0;
	for (size_t i = 0; i < t->n_runs; i++) {
		const json_t *const fs = json_object_get(t->runs[i].result, "final_sync");
		if (counted(&t->runs[i]) && json_is_true(json_object_get(fs, "ran")))
			fv[fn++] = json_number_value(json_object_get(fs, "seconds")) * 1e9;
	}
	json_object_set_new(s, "final_sync_ns", spread(fv, fn));
	json_object_set_new(s, "dirty_bytes_at_end", over_runs(t, 1, "final_sync", "dirty_bytes_at_end", NULL));
	json_object_set_new(s, "errors", json_integer((json_int_t)errors));
	json_object_set_new(s, "mismatches", json_integer((json_int_t)mismatches));
	return s;
}

/* ---- The table ------------------------------------------------------------------------------- */

#define LABEL_W 22
#define COL_W 27

/* "12.34 (11.90..13.01)": the median and the spread, each value divided by div; "-" when there is none. */
static void cell(char *buf, size_t size, const json_t *sp, double div, int prec)
{
	if (!json_is_object(sp)) {
		snprintf(buf, size, "-");
		return;
	}
	const double med = json_number_value(json_object_get(sp, "median")) / div;
	const double lo = json_number_value(json_object_get(sp, "min")) / div;
	const double hi = json_number_value(json_object_get(sp, "max")) / div;
	char b[40], c[40];
	snprintf(b, sizeof(b), "%.*f", prec, lo);
	snprintf(c, sizeof(c), "%.*f", prec, hi);
	const int w = strcmp(b, c) == 0 ? snprintf(buf, size, "%.*f", prec, med)
					: snprintf(buf, size, "%.*f (%s..%s)", prec, med, b, c);
	if (w < 0 || (size_t)w >= size)
		snprintf(buf, size, "%.*g", 6, med); /* a spread too wide for the cell: its median alone */
}

static void row_text(FILE *f, const char *label, const rp_bench_target *t, size_t n, const char *(*get)(const rp_bench_target *))
{
	fprintf(f, "%-*s", LABEL_W, label);
	for (size_t i = 0; i < n; i++) {
		char esc[4 * COL_W + 64]; /* escaped: a target named on the command line may hold control bytes */
		const char *const v = get(&t[i]) ? esc_into(esc, sizeof(esc), get(&t[i])) : NULL;
		const size_t len = v ? strlen(v) : 0;
		if (len > COL_W) /* a long path: its end tells the targets apart, its start does not */
			fprintf(f, " ...%-*s", COL_W - 3, v + len - (COL_W - 3));
		else
			fprintf(f, " %-*s", COL_W, v ? v : "-");
	}
	fputc('\n', f);
}

/* The dirty-data row: a spread below 0 (the kernel wrote back more than was dirtied meanwhile) shown as 0. */
static size_t row_dirty(FILE *f, const rp_bench_target *t, size_t n)
{
	size_t clamped = 0;
	fprintf(f, "%-*s", LABEL_W, "dirty at end (MB)");
	for (size_t i = 0; i < n; i++) {
		const json_t *const j = json_object_get(t[i].summary, "dirty_bytes_at_end");
		char buf[96];
		if (json_is_object(j)) {
			json_t *const c = json_object();
			static const char *const q[] = { "min", "median", "max" };
			for (int k = 0; k < 3; k++) {
				const double v = json_number_value(json_object_get(j, q[k]));
				json_object_set_new(c, q[k], json_real(v > 0 ? v : 0));
			}
			cell(buf, sizeof(buf), c, 1e6, 1);
			json_decref(c);
			for (size_t r = 0; r < t[i].n_runs; r++)
				clamped += counted(&t[i].runs[r]) &&
					   json_number_value(json_object_get(json_object_get(t[i].runs[r].result, "final_sync"),
									     "dirty_bytes_at_end")) < 0;
		} else
			snprintf(buf, sizeof(buf), "-");
		fprintf(f, " %-*s", COL_W, buf);
	}
	fputc('\n', f);
	return clamped;
}

/* A row of one per-run number (load, steal) as median (min..max) over the counted runs; false when no run has it. */
static void row_runs(FILE *f, const char *label, const rp_bench_target *t, size_t n, bool steal)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < t[i].n_runs; r++)
			any |= counted(&t[i].runs[r]) && (steal ? t[i].runs[r].steal_share : t[i].runs[r].load_start) >= 0;
	if (!any)
		return;
	fprintf(f, "%-*s", LABEL_W, label);
	for (size_t i = 0; i < n; i++) {
		double v[RP_BENCH_RUNS_MAX];
		size_t k = 0;
		for (size_t r = 0; r < t[i].n_runs; r++) {
			const double x = steal ? t[i].runs[r].steal_share * 100 : t[i].runs[r].load_start;
			if (counted(&t[i].runs[r]) && x >= 0)
				v[k++] = x;
		}
		json_t *const sp = spread(v, k);
		char buf[96];
		cell(buf, sizeof(buf), sp, 1, steal ? 1 : 2);
		json_decref(sp);
		fprintf(f, " %-*s", COL_W, buf);
	}
	fputc('\n', f);
}

/* A row of spreads: the summary value at k1 (k2, k3), divided by div. */
static void row_num(FILE *f, const char *label, const rp_bench_target *t, size_t n, double div, int prec,
		    const char *k1, const char *k2, const char *k3)
{
	fprintf(f, "%-*s", LABEL_W, label);
	for (size_t i = 0; i < n; i++) {
		const json_t *j = t[i].summary;
		const char *const keys[] = { k1, k2, k3 };
		for (size_t k = 0; k < 3 && keys[k] && j; k++)
			j = json_object_get(j, keys[k]);
		char buf[96];
		cell(buf, sizeof(buf), j, div, prec);
		fprintf(f, " %-*s", COL_W, buf);
	}
	fputc('\n', f);
}

static const char *get_name(const rp_bench_target *t)
{
	return t->mkfs ? t->mkfs : t->name;
}
static const char *get_fs(const rp_bench_target *t)
{
	return t->fs_type;
}
static const char *get_opts(const rp_bench_target *t)
{
	return t->mount_opts;
}

/* The ops with the most counted ops over every target, most first. */
static size_t main_ops(const rp_bench_target *t, size_t n, const char **names)
{
	uint64_t total[RP_OP__COUNT] = { 0 };
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < t[i].n_runs; r++) {
			if (!counted(&t[i].runs[r]))
				continue;
			for (unsigned op = 0; op < RP_OP__COUNT; op++) {
				const char *const name = rp_op_name(op);
				if (name && op != RP_OP_SLEEP)
					total[op] += (uint64_t)json_integer_value(json_object_get(
						json_object_get(json_object_get(t[i].runs[r].result, "ops"), name), "count"));
			}
		}
	size_t k = 0;
	for (; k < TABLE_OPS; k++) {
		unsigned best = RP_OP__COUNT;
		for (unsigned op = 0; op < RP_OP__COUNT; op++)
			if (total[op] && (best == RP_OP__COUNT || total[op] > total[best]))
				best = op;
		if (best == RP_OP__COUNT)
			break;
		names[k] = rp_op_name(best);
		total[best] = 0;
	}
	return k;
}

/* What the table's numbers need said: runs that disagree, a median of two, dirty data shown as 0, a shared file system. */
static void notes(FILE *f, const rp_bench_target *t, size_t n, size_t clamped, double limit)
{
	size_t even = 0;
	for (size_t i = 0; i < n; i++) {
		char name[4 * COL_W + 64];
		esc_into(name, sizeof(name), get_name(&t[i]));
		const json_t *const mb = json_object_get(t[i].summary, "mb_s");
		const double lo = json_number_value(json_object_get(mb, "min")), hi = json_number_value(json_object_get(mb, "max"));
		const double med = json_number_value(json_object_get(mb, "median"));
		const json_int_t runs = json_integer_value(json_object_get(t[i].summary, "runs_counted"));
		even += runs >= 2 && runs % 2 == 0;
		if (lo > 0 && hi / lo > limit) {
			size_t out = 0;
			for (size_t r = 0; r < t[i].n_runs; r++) {
				const double v = num_at(t[i].runs[r].result, "mb_per_sec", NULL, NULL);
				out += counted(&t[i].runs[r]) && (v > med * limit || v < med / limit);
			}
			const size_t need = rp__bt_runs_needed(out ? out : 1);
			/* a spread just past the limit is written with the digits that show it is past */
			fprintf(f, "! %s: the runs disagree, MB/s spread %.*fx (above %.3gx): ", name,
				hi / lo < limit + 0.005 ? 3 : 2, hi / lo, limit);
			if ((size_t)runs < need)
				fprintf(f, "use --runs %zu or more for a stable median\n", need + (t[i].runs[0].discarded ? 1 : 0));
			else
				fprintf(f, "the median of %lld holds against %zu outlier%s\n", (long long)runs, out, out == 1 ? "" : "s");
		}
		if (t[i].shared_mount) {
			char m[4 * COL_W + 64];
			fprintf(f, "%s: a directory of the file system mounted at %s: its flush at end is syncfs of that whole "
				   "file system, other writers' dirty data included\n",
				name, esc_into(m, sizeof(m), t[i].shared_mount));
		}
	}
	if (even)
		fprintf(f, "%zu target%s with an even number of counted runs: the median is the mean of the middle two\n", even,
			even == 1 ? "" : "s");
	if (clamped)
		fprintf(f, "dirty at end: %zu run%s measured less dirty data at the end than at the start (the kernel wrote back "
			   "prepare's or other writers' data meanwhile): shown as 0\n",
			clamped, clamped == 1 ? "" : "s");
}

void rp__bench_table(FILE *f, const rp_bench_target *t, size_t n, double limit)
{
	fputc('\n', f);
	row_text(f, "target", t, n, get_name);
	fprintf(f, "%.*s\n", (int)(LABEL_W + n * (COL_W + 1)),
		"--------------------------------------------------------------------------------------------------------"
		"--------------------------------------------------------------------------------------------------------"
		"--------------------------------------------------------------------------------------------------------");
	row_text(f, "file system", t, n, get_fs);
	row_text(f, "mount options", t, n, get_opts);
	fprintf(f, "%-*s", LABEL_W, "runs counted");
	for (size_t i = 0; i < n; i++) {
		char buf[64];
		const json_t *const mb = json_object_get(t[i].summary, "mb_s");
		const double lo = json_number_value(json_object_get(mb, "min")), hi = json_number_value(json_object_get(mb, "max"));
		snprintf(buf, sizeof(buf), "%lld of %zu%s%s", (long long)json_integer_value(json_object_get(t[i].summary, "runs_counted")),
			 t[i].n_runs, t[i].dead ? " (FAILED)" : "", lo > 0 && hi / lo > limit ? " !" : "");
		fprintf(f, " %-*s", COL_W, buf);
	}
	fputc('\n', f);
	row_num(f, "MB/s", t, n, 1, 2, "mb_s", NULL, NULL);
	row_num(f, "ops/s", t, n, 1, 0, "ops_s", NULL, NULL);
	row_num(f, "flush at end (s)", t, n, 1e9, 3, "final_sync_ns", NULL, NULL);
	const size_t clamped = row_dirty(f, t, n);
	const char *ops[TABLE_OPS + 1];
	const size_t nops = main_ops(t, n, ops);
	ops[nops] = "all";
	for (size_t k = 0; k <= nops; k++) {
		static const char *const q[] = { "p50", "p99", "max" };
		for (size_t i = 0; i < 3; i++) {
			char label[48];
			snprintf(label, sizeof(label), "%s %s (ms)", ops[k], q[i]);
			row_num(f, label, t, n, 1e6, 3, "lat_ns", ops[k], q[i]);
		}
	}
	row_num(f, "issue lag p50 (us)", t, n, 1e3, 1, "lag_ns", "p50", NULL);
	row_num(f, "issue lag p99 (us)", t, n, 1e3, 1, "lag_ns", "p99", NULL);
	fprintf(f, "%-*s", LABEL_W, "errors, mismatches");
	for (size_t i = 0; i < n; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%lld, %lld", (long long)json_integer_value(json_object_get(t[i].summary, "errors")),
			 (long long)json_integer_value(json_object_get(t[i].summary, "mismatches")));
		fprintf(f, " %-*s", COL_W, buf);
	}
	fputc('\n', f);
	row_runs(f, "load avg at start", t, n, false);
	row_runs(f, "CPU steal (%)", t, n, true);
	fprintf(f, "(median (min..max) over the counted runs; flush at end: the final syncfs, inside the measured time;\n"
		   " dirty at end: Dirty+Writeback of /proc/meminfo, system-wide, at the end of the ops, minus its value at\n"
		   " the start; errors: failures the trace did not record, summed over the counted runs)\n");
	notes(f, t, n, clamped, limit);
}
