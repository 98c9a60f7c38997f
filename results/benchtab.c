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
	rp_bt_set *const s = calloc(1, sizeof(rp_bt_set));
	if (s)
		s->spread_limit = RP_BT_SPREAD_LIMIT;
	return s;
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

void rp__bt_target_runs_free(rp_bt_target *t)
{
	for (size_t j = 0; j < t->nruns; j++)
		run_free(&t->runs[j]);
	free(t->runs);
	t->runs = NULL;
	t->nruns = 0;
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
		free(t->shared_mount);
	}
	free(s->targets);
	for (size_t i = 0; i < s->ninputs; i++) {
		rp_bt_input *const in = &s->inputs[i];
		free(in->file);
		free(in->trace_path);
		free(in->host);
		free(in->kernel);
		free(in->version);
		free(in->start_time);
		free(in->command_line);
		free(in->options);
	}
	free(s->inputs);
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

rp_bt_input *rp__bt_input_add(rp_bt_set *s, const char *file, char *err, size_t errsize)
{
	if (s->ninputs >= RP_BT_INPUTS_MAX) {
		fail(err, errsize, "more than %d inputs", RP_BT_INPUTS_MAX);
		return NULL;
	}
	enum { NTEXT = 8 };
	char *e[NTEXT] = { strdup(file) };
	bool ok = e[0] != NULL;
	for (size_t i = 1; i < NTEXT; i++)
		ok &= (e[i] = strdup("")) != NULL;
	rp_bt_input *const in = ok ? grow(&s->inputs, &s->ninputs, sizeof(*in)) : NULL;
	if (!in) {
		for (size_t i = 0; i < NTEXT; i++)
			free(e[i]);
		fail(err, errsize, "out of memory");
		return NULL;
	}
	in->file = e[0];
	in->trace_path = e[1];
	in->host = e[2];
	in->kernel = e[3];
	in->version = e[4];
	in->start_time = e[5];
	in->command_line = e[6];
	in->options = e[7];
	return in;
}

int rp__bt_traces_check(const rp_bt_set *s, char *err, size_t errsize)
{
	const rp_bt_input *first = NULL;
	for (size_t i = 0; i < s->ninputs; i++) {
		const rp_bt_input *const in = &s->inputs[i];
		if (!in->trace_sha256[0])
			continue;
		if (!first) {
			first = in;
			continue;
		}
		if (strcmp(first->trace_sha256, in->trace_sha256) == 0)
			continue;
		char a[256], b[256], fa[256], fb[256];
		rp__bt_display(a, sizeof(a), first->trace_path[0] ? first->trace_path : "?");
		rp__bt_display(b, sizeof(b), in->trace_path[0] ? in->trace_path : "?");
		rp__bt_display(fa, sizeof(fa), first->file);
		rp__bt_display(fb, sizeof(fb), in->file);
		return fail(err, errsize,
			    "%s replayed %s (sha256 %.12s...), %s replayed %s (sha256 %.12s...): runs of different "
			    "traces are not compared (one report per trace)",
			    fa, a, first->trace_sha256, fb, b, in->trace_sha256);
	}
	return 0;
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
	r->load_start = -1;
	r->steal_share = -1;
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
	/* the rest (latency, lag, errors, time to complete) lower; dirty, load and steal are not ranked */
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
		/* below 0 the kernel wrote back more than was dirtied meanwhile (prepare's data, other writers): 0, with a note */
		*v = r->dirty_bytes_at_end > 0 ? (double)r->dirty_bytes_at_end / 1e6 : 0;
		return r->dirty_known;
	case RP_BT_ELAPSED_S:
		*v = r->elapsed_s;
		return r->fixed_work;
	case RP_BT_LOAD:
		*v = r->load_start;
		return r->load_start >= 0;
	case RP_BT_STEAL_PCT:
		*v = r->steal_share * 100;
		return r->steal_share >= 0;
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

/* A number in a table cell: 3 significant digits at least, no exponent for the sizes a run has. */
void rp__bt_fmt(char *buf, size_t n, double v)
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

/*
 * A row of medians with min-max, the best marked `*` and the others' ratio to
 * it (their value over the best's: 0.50x is half the throughput, 2.0x twice
 * the latency).  A row nobody has is left out.
 */
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
