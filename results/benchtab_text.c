/* compare's and bench's side-by-side table as text: a column per target, a row per measure, the notes (docs/compare.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab.h"

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

static int metric_row(table *t, const rp_bt_set *s, const char *label, rp_bt_metric m, const char *op)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	const rp_bt_rank k = rp__bt_row(s, m, op, sp);
	if (!k.have)
		return 0;
	char *const row = row_add(t);
	if (!row)
		return -1;
	const size_t r = t->nrows - 1;
	/* a row two targets have and nobody wins says why, when the reason is not plain */
	const bool say = k.have > 1 && (k.why == RP_BT_SPREAD || k.why == RP_BT_FEW || k.why == RP_BT_SCHEDULE);
	snprintf(cell(t, r, 0), CELL_MAX, "%s%s", label, say ? " ~" : "");
	for (size_t i = 0; i < s->ntargets; i++) {
		char *const c = cell(t, r, i + 1);
		if (!sp[i].n) {
			snprintf(c, CELL_MAX, "-");
			continue;
		}
		char med[32], lo[32], hi[32], mark[48], txt[52] = "";
		bool is_best;
		rp__bt_fmt(med, sizeof(med), sp[i].median);
		rp__bt_fmt(lo, sizeof(lo), sp[i].min);
		rp__bt_fmt(hi, sizeof(hi), sp[i].max);
		rp__bt_mark(mark, sizeof(mark), &k, sp, i, &is_best);
		if (is_best)
			snprintf(txt, sizeof(txt), " *");
		else if (mark[0])
			snprintf(txt, sizeof(txt), " %s", mark);
		/* a spread that prints as one number is not shown (as bench does) */
		if (sp[i].n > 1 && strcmp(lo, hi) != 0)
			snprintf(c, CELL_MAX, "%s (%s..%s)%s", med, lo, hi, txt);
		else
			snprintf(c, CELL_MAX, "%s%s", med, txt);
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
		else {
			rp__bt_runs_text(c, CELL_MAX, tg);
			size_t out;
			if (rp__bt_run_spread(tg, s->spread_limit, &out) > s->spread_limit)
				strcat(c, " !"); /* rp__bt_runs_text's longest text is far under CELL_MAX */
		}
	}
	return 0;
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
	/* the file system's ops, then the process ops in a section of their own (not in "all") */
	for (int proc = 0; proc < 2 && rc == 0; proc++) {
		bool head = false;
		for (size_t i = 0; i < nops && rc == 0; i++) {
			if (rp__bt_process_op(ops[i]) != (proc == 1))
				continue;
			if (proc && !head) {
				if (!row_add(t)) {
					rc = -1;
					break;
				}
				snprintf(cell(t, t->nrows - 1, 0), CELL_MAX, "process ops (not in all):");
				head = true;
			}
			char name[64], label[CELL_MAX];
			rp__bt_display(name, sizeof(name), ops[i]);
			static const char *const q[] = { "p50", "p99", "max" };
			for (int k = 0; k < 3 && rc == 0; k++) {
				snprintf(label, sizeof(label), "%s %s (ms)", name, q[k]);
				rc = metric_row(t, s, label, k == 0 ? RP_BT_OP_P50 : k == 1 ? RP_BT_OP_P99 : RP_BT_OP_MAX,
						ops[i]);
			}
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
		   "target's value over the best's\n(+N: its difference, when the best is about 0).  No * where the medians "
		   "are equal, a target measured\nfewer than %d ops, the best is within the runs' spread or 5%% of the next, "
		   "or (MB/s, ops/s) --timing trace or\nthink set the pace; ~ marks a row so left unranked.  latency rows: each "
		   "run's p50, p99 and max, in ms\n(issue lag in us); all: every op but sleeps and process ops; errors: "
		   "failures the trace did not record.\n",
		RP_BT_MIN_OPS);
	rp__bt_notes(s, f, false);
	rc = ferror(f) ? -1 : 0;
fail:
	free(t.cells);
	return rc;
}
