/* The side-by-side table of bench and compare: targets, runs, their spread, the best per row (docs/compare.md). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab.h"
#include "formats/op.h"

static int fail(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
	return -1;
}

rp_bt_set *rp__bt_set_create(void)
{
	return calloc(1, sizeof(rp_bt_set));
}

static void run_free(rp_bt_run *r)
{
	for (size_t i = 0; i < r->nops; i++) {
		free(r->ops[i].name);
		free(r->ops[i].hist.b);
	}
	free(r->ops);
	free(r->series);
	free(r->source);
}

void rp__bt_set_destroy(rp_bt_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ntargets; i++) {
		rp_bt_target *const t = &s->targets[i];
		for (size_t j = 0; j < t->nruns; j++)
			run_free(&t->runs[j]);
		free(t->runs);
		free(t->target);
		free(t->fs_type);
		free(t->mount_options);
	}
	free(s->targets);
	free(s);
}

/* Grow *arr (of *n elements of size sz) by one zeroed element; NULL when out of memory. */
static void *grow(void *arr_p, size_t *n, size_t sz)
{
	void **const arr = arr_p;
	void *const p = realloc(*arr, (*n + 1) * sz);
	if (!p)
		return NULL;
	*arr = p;
	void *const e = (char *)p + *n * sz;
	memset(e, 0, sz);
	(*n)++;
	return e;
}

rp_bt_target *rp__bt_target_get(rp_bt_set *s, const char *target, const char *fs_type, const char *mount_options,
				char *err, size_t errsize)
{
	target = target ? target : "";
	fs_type = fs_type ? fs_type : "";
	for (size_t i = 0; i < s->ntargets; i++)
		if (strcmp(s->targets[i].target, target) == 0 && strcmp(s->targets[i].fs_type, fs_type) == 0)
			return &s->targets[i];
	if (s->ntargets >= RP_BT_TARGETS_MAX) {
		fail(err, errsize, "more than %d targets", RP_BT_TARGETS_MAX);
		return NULL;
	}
	char *const a = strdup(target), *const b = strdup(fs_type), *const c = strdup(mount_options ? mount_options : "");
	rp_bt_target *const t = a && b && c ? grow(&s->targets, &s->ntargets, sizeof(*t)) : NULL;
	if (!t) {
		free(a);
		free(b);
		free(c);
		fail(err, errsize, "out of memory");
		return NULL;
	}
	t->target = a;
	t->fs_type = b;
	t->mount_options = c;
	return t;
}

rp_bt_run *rp__bt_run_add(rp_bt_target *t, char *err, size_t errsize)
{
	if (t->nruns >= RP_BT_RUNS_MAX) {
		fail(err, errsize, "more than %d runs of one target", RP_BT_RUNS_MAX);
		return NULL;
	}
	rp_bt_run *const r = grow(&t->runs, &t->nruns, sizeof(*r));
	if (!r) {
		fail(err, errsize, "out of memory");
		return NULL;
	}
	r->run = 1;
	r->final_sync_ns = -1;
	return r;
}

rp_bt_op *rp__bt_op_add(rp_bt_run *r, const char *name, char *err, size_t errsize)
{
	if (r->nops >= RP_BT_OPS_MAX) {
		fail(err, errsize, "more than %d ops", RP_BT_OPS_MAX);
		return NULL;
	}
	char *const n = strdup(name);
	rp_bt_op *const o = n ? grow(&r->ops, &r->nops, sizeof(*o)) : NULL;
	if (!o) {
		free(n);
		fail(err, errsize, "out of memory");
		return NULL;
	}
	o->name = n;
	return o;
}

int rp__bt_series_alloc(rp_bt_run *r, size_t n, char *err, size_t errsize)
{
	if (n > RP_BT_SERIES_MAX)
		return fail(err, errsize, "a series of more than %d seconds", RP_BT_SERIES_MAX);
	free(r->series);
	r->series = NULL;
	r->nseries = 0;
	if (n == 0)
		return 0;
	r->series = calloc(n, sizeof(*r->series));
	if (!r->series)
		return fail(err, errsize, "out of memory");
	r->nseries = n;
	return 0;
}

static const rp_bt_op *find_op(const rp_bt_run *r, const char *name)
{
	for (size_t i = 0; i < r->nops; i++)
		if (strcmp(r->ops[i].name, name) == 0)
			return &r->ops[i];
	return NULL;
}

bool rp__bt_higher_is_better(rp_bt_metric m)
{
	return m == RP_BT_MB_S || m == RP_BT_OPS_S;
}

/* The value of m in r; false when r does not have it (an op it did not run, a flush not known). */
static bool metric_value(const rp_bt_run *r, rp_bt_metric m, const char *op, double *v)
{
	const rp_bt_op *o = NULL;
	switch (m) {
	case RP_BT_MB_S: *v = r->mb_per_sec; return true;
	case RP_BT_OPS_S: *v = r->ops_per_sec; return true;
	case RP_BT_LAG_P50: *v = r->lag_p50_us; return true;
	case RP_BT_LAG_P99: *v = r->lag_p99_us; return true;
	case RP_BT_LAG_MAX: *v = r->lag_max_us; return true;
	case RP_BT_ALL_P50: *v = r->all_p50_us / 1e3; return true;
	case RP_BT_ALL_P99: *v = r->all_p99_us / 1e3; return true;
	case RP_BT_ALL_MAX: *v = r->all_max_us / 1e3; return true;
	case RP_BT_FAILURES:
		*v = (double)(r->failures - (r->failures_expected < r->failures ? r->failures_expected : r->failures));
		return true;
	case RP_BT_MISMATCHES: *v = (double)r->mismatches; return true;
	case RP_BT_FLUSH_S:
		*v = (double)r->final_sync_ns / 1e9;
		return r->final_sync_ns >= 0;
	case RP_BT_DIRTY_MB:
		*v = (double)r->dirty_bytes_at_end / 1e6;
		return r->dirty_known;
	case RP_BT_OP_P50:
	case RP_BT_OP_P99:
	case RP_BT_OP_MAX:
		o = op ? find_op(r, op) : NULL;
		if (!o || o->count == 0)
			return false;
		*v = (m == RP_BT_OP_P50 ? o->p50_us : m == RP_BT_OP_P99 ? o->p99_us : o->max_us) / 1e3;
		return true;
	}
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

rp_bt_spread rp__bt_spread(const rp_bt_target *t, rp_bt_metric m, const char *op)
{
	rp_bt_spread sp = { 0 };
	double v[RP_BT_RUNS_MAX];
	for (size_t i = 0; i < t->nruns && sp.n < RP_BT_RUNS_MAX; i++)
		if (!t->runs[i].discarded && !t->runs[i].failed && metric_value(&t->runs[i], m, op, &v[sp.n]))
			sp.n++;
	if (sp.n == 0)
		return sp;
	qsort(v, sp.n, sizeof(v[0]), cmp_double);
	sp.min = v[0];
	sp.max = v[sp.n - 1];
	/* of an even number of runs, the mean of the middle two (what `sort | median` tools give) */
	sp.median = sp.n % 2 ? v[sp.n / 2] : (v[sp.n / 2 - 1] + v[sp.n / 2]) / 2;
	return sp;
}

size_t rp__bt_op_kinds(const rp_bt_set *s)
{
	const char *seen[RP_BT_OPS_MAX + 1];
	size_t n = 0;
	for (size_t i = 0; i < s->ntargets; i++)
		for (size_t j = 0; j < s->targets[i].nruns; j++)
			for (size_t k = 0; k < s->targets[i].runs[j].nops; k++) {
				const char *const name = s->targets[i].runs[j].ops[k].name;
				size_t x = 0;
				while (x < n && strcmp(seen[x], name) != 0)
					x++;
				if (x < n)
					continue;
				if (n == RP_BT_OPS_MAX)
					return n + 1;
				seen[n++] = name;
			}
	return n;
}

typedef struct opname {
	const char *name;
	uint64_t count;
} opname;

static int cmp_opname(const void *a, const void *b)
{
	const opname *const x = a, *const y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

const char **rp__bt_op_names(const rp_bt_set *s, size_t *n)
{
	*n = 0;
	opname *names = NULL;
	size_t nn = 0;
	for (size_t i = 0; i < s->ntargets; i++)
		for (size_t j = 0; j < s->targets[i].nruns; j++) {
			const rp_bt_run *const r = &s->targets[i].runs[j];
			if (r->discarded || r->failed)
				continue;
			for (size_t k = 0; k < r->nops; k++) {
				size_t x = 0;
				while (x < nn && strcmp(names[x].name, r->ops[k].name) != 0)
					x++;
				if (x == nn) {
					opname *const p = grow(&names, &nn, sizeof(*names));
					if (!p) {
						free(names);
						return NULL;
					}
					p->name = r->ops[k].name;
				}
				names[x].count += r->ops[k].count;
			}
		}
	if (nn == 0) {
		free(names);
		return NULL;
	}
	qsort(names, nn, sizeof(*names), cmp_opname);
	const char **const out = malloc(nn * sizeof(*out));
	if (out) {
		for (size_t i = 0; i < nn; i++)
			out[i] = names[i].name;
		*n = nn;
	}
	free(names);
	return out;
}

/* ---- the text table ---- */

/* rp_text_escape_utf8, with its backslashes single again: the names in replay's JSON are escaped so already. */
void rp__bt_display(char *buf, size_t size, const char *s)
{
	rp_text_escape_utf8(buf, size, s, strlen(s));
	char *w = buf;
	for (const char *p = buf; *p; p++) {
		*w++ = *p;
		if (p[0] == '\\' && p[1] == '\\')
			p++;
	}
	*w = '\0';
}

/* Columns a UTF-8 string takes: one per character (every name here is escaped to valid UTF-8). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

#define CELL_MAX 256

typedef struct table {
	size_t ncols; /* 1 + targets */
	size_t nrows, cap;
	char (*cells)[CELL_MAX]; /* nrows x ncols */
} table;

static char *row_add(table *t)
{
	if (t->nrows == t->cap) {
		const size_t cap = t->cap ? t->cap * 2 : 32;
		void *const p = realloc(t->cells, cap * t->ncols * CELL_MAX);
		if (!p)
			return NULL;
		t->cells = p;
		t->cap = cap;
	}
	char *const row = t->cells[t->nrows * t->ncols];
	memset(row, 0, t->ncols * CELL_MAX);
	t->nrows++;
	return row;
}

static char *cell(table *t, size_t row, size_t col)
{
	return t->cells[row * t->ncols + col];
}

/* A number in a table cell: 3 significant digits at least, no exponent for the sizes a run has. */
static void fmt_num(char *buf, size_t n, double v)
{
	const double a = fabs(v);
	if (v == 0)
		snprintf(buf, n, "0");
	else if (a >= 100)
		snprintf(buf, n, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, n, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, n, "%.2f", v);
	else if (a >= 0.001)
		snprintf(buf, n, "%.3f", v);
	else
		snprintf(buf, n, "%.2g", v);
}

/* The best value of a row over the targets that have it; false when none has. */
static bool best_of(const rp_bt_spread *sp, size_t n, bool higher, double *best)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		if (sp[i].n && (!any || (higher ? sp[i].median > *best : sp[i].median < *best))) {
			*best = sp[i].median;
			any = true;
		}
	return any;
}

size_t rp__bt_row(const rp_bt_set *s, rp_bt_metric m, const char *op, rp_bt_spread *sp, double *best)
{
	size_t have = 0;
	for (size_t i = 0; i < s->ntargets; i++) {
		sp[i] = rp__bt_spread(&s->targets[i], m, op);
		have += sp[i].n > 0;
	}
	*best = 0;
	best_of(sp, s->ntargets, rp__bt_higher_is_better(m), best);
	/*
	 * Dirty data at the end is system-wide and a difference (often < 0: the
	 * kernel wrote back more than the run dirtied): shown, not ranked.
	 */
	if (m == RP_BT_DIRTY_MB)
		*best = NAN;
	return have;
}

/*
 * A row of medians with min-max, the best marked `*` and the others' ratio to
 * it (their value over the best's: 0.50x is half the throughput, 2.0x twice
 * the latency).  A row nobody has is left out.
 */
static int metric_row(table *t, const rp_bt_set *s, const char *label, rp_bt_metric m, const char *op)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	double best = 0;
	const size_t have = rp__bt_row(s, m, op, sp, &best);
	if (!have)
		return 0;
	char *const row = row_add(t);
	if (!row)
		return -1;
	const size_t r = t->nrows - 1;
	snprintf(cell(t, r, 0), CELL_MAX, "%s", label);
	for (size_t i = 0; i < s->ntargets; i++) {
		char *const c = cell(t, r, i + 1);
		if (!sp[i].n) {
			snprintf(c, CELL_MAX, "-");
			continue;
		}
		char med[32], lo[32], hi[32], mark[48] = "";
		fmt_num(med, sizeof(med), sp[i].median);
		fmt_num(lo, sizeof(lo), sp[i].min);
		fmt_num(hi, sizeof(hi), sp[i].max);
		if (have > 1) {
			if (sp[i].median == best)
				snprintf(mark, sizeof(mark), " *");
			else if (best > 0 && sp[i].median >= 0) {
				char ratio[32];
				fmt_num(ratio, sizeof(ratio), sp[i].median / best);
				snprintf(mark, sizeof(mark), " %sx", ratio);
			}
		}
		/* a spread that prints as one number is not shown (as bench does) */
		if (sp[i].n > 1 && strcmp(lo, hi) != 0)
			snprintf(c, CELL_MAX, "%s (%s..%s)%s", med, lo, hi, mark);
		else
			snprintf(c, CELL_MAX, "%s%s", med, mark);
	}
	return 0;
}

static int text_row(table *t, const rp_bt_set *s, const char *label, int which)
{
	if (!row_add(t))
		return -1;
	const size_t r = t->nrows - 1;
	snprintf(cell(t, r, 0), CELL_MAX, "%s", label);
	for (size_t i = 0; i < s->ntargets; i++) {
		const rp_bt_target *const tg = &s->targets[i];
		char *const c = cell(t, r, i + 1);
		if (which == 0)
			rp__bt_display(c, CELL_MAX, tg->target[0] ? tg->target : "?");
		else if (which == 1)
			rp__bt_display(c, CELL_MAX, tg->fs_type[0] ? tg->fs_type : "?");
		else if (which == 2)
			rp__bt_display(c, CELL_MAX, tg->mount_options[0] ? tg->mount_options : "?");
		else
			rp__bt_runs_text(c, CELL_MAX, tg);
	}
	return 0;
}

void rp__bt_runs_text(char *buf, size_t size, const rp_bt_target *t)
{
	size_t d = 0, x = 0;
	for (size_t j = 0; j < t->nruns; j++) {
		x += t->runs[j].failed;
		d += t->runs[j].discarded && !t->runs[j].failed;
	}
	const size_t counted = t->nruns - d - x;
	if (d && x)
		snprintf(buf, size, "%zu (+%zu discarded, %zu failed)", counted, d, x);
	else if (d || x)
		snprintf(buf, size, "%zu (+%zu %s)", counted, d + x, d ? "discarded" : "failed");
	else
		snprintf(buf, size, "%zu", counted);
}

static int build(table *t, const rp_bt_set *s)
{
	if (text_row(t, s, "target", 0) || text_row(t, s, "file system", 1) || text_row(t, s, "mount options", 2) ||
	    text_row(t, s, "runs counted", 3))
		return -1;
#define ROW(m, label, key) { label, m },
	static const struct {
		const char *label;
		rp_bt_metric m;
	} rows[] = { RP_BT_ROWS(ROW) };
#undef ROW
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (metric_row(t, s, rows[i].label, rows[i].m, NULL))
			return -1;
	size_t nops = 0;
	const char **const ops = rp__bt_op_names(s, &nops);
	int rc = 0;
	for (size_t i = 0; i < nops && rc == 0; i++) {
		char name[64], label[CELL_MAX];
		rp__bt_display(name, sizeof(name), ops[i]);
		static const char *const q[] = { "p50", "p99", "max" };
		for (int k = 0; k < 3 && rc == 0; k++) {
			snprintf(label, sizeof(label), "%s %s (ms)", name, q[k]);
			rc = metric_row(t, s, label, k == 0 ? RP_BT_OP_P50 : k == 1 ? RP_BT_OP_P99 : RP_BT_OP_MAX, ops[i]);
		}
	}
	free(ops);
	return rc;
}

int rp__bt_print(const rp_bt_set *s, FILE *f)
{
	table t = { .ncols = s->ntargets + 1 };
	int rc = -1;
	size_t w[RP_BT_TARGETS_MAX + 1] = { 0 };
	if (s->ntargets == 0) {
		errno = EINVAL;
		return -1;
	}
	if (build(&t, s)) {
		errno = ENOMEM;
		goto fail;
	}
	for (size_t r = 0; r < t.nrows; r++)
		for (size_t c = 0; c < t.ncols; c++) {
			const size_t cw = width(cell(&t, r, c));
			w[c] = cw > w[c] ? cw : w[c];
		}
	for (size_t r = 0; r < t.nrows; r++) {
		for (size_t c = 0; c < t.ncols; c++) {
			const char *const x = cell(&t, r, c);
			/* labels left, values right: numbers line up by their last digit */
			const size_t pad = w[c] - width(x);
			if (c == 0)
				fprintf(f, "%s%*s", x, (int)pad, "");
			else
				fprintf(f, "  %*s%s", (int)pad, "", x);
		}
		fputc('\n', f);
	}
	fprintf(f, "median (min..max) over the counted runs (not discarded, not failed); * the best of a row, Nx a "
		   "target's value over the best's.\nlatency rows: each run's p50, p99 and max, in ms (issue lag in us); "
		   "errors: failures the trace did not record.\n");
	rc = ferror(f) ? -1 : 0;
fail:
	free(t.cells);
	return rc;
}
