/* Who wins a row of the comparison, and when nobody does: the verdict rules of docs/compare.md ("Who wins"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab.h"

#define WHY_TEXT(e, text) text,
static const char *const why_texts[] = { RP_BT_WHYS(WHY_TEXT) };
#undef WHY_TEXT

const char *rp__bt_why_text(rp_bt_why w)
{
	return (size_t)w < sizeof(why_texts) / sizeof(why_texts[0]) ? why_texts[w] : "?";
}

bool rp__bt_process_op(const char *op)
{
	/* a program's life (replay waits for a child, starts one): seconds of it are not the file system's */
	static const char *const names[] = { "fork", "wait", "exec", "exit" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(op, names[i]) == 0)
			return true;
	return false;
}

double rp__bt_floor(rp_bt_metric m)
{
	switch (m) {
	case RP_BT_MB_S: return 0.01;            /* 10 kB/s */
	case RP_BT_OPS_S: return 1;
	case RP_BT_ELAPSED_S: return 0.001;      /* 1 ms */
	case RP_BT_FLUSH_S: return 0.001;
	case RP_BT_LAG_P50:
	case RP_BT_LAG_P99:
	case RP_BT_LAG_MAX: return 1;            /* µs: the clock's and the scheduler's grain */
	case RP_BT_ALL_P50:
	case RP_BT_ALL_P99:
	case RP_BT_ALL_MAX:
	case RP_BT_OP_P50:
	case RP_BT_OP_P99:
	case RP_BT_OP_MAX: return 0.001;         /* ms: 1 µs */
	case RP_BT_FAILURES:
	case RP_BT_MISMATCHES: return 1;         /* counts: 0 is about 0, nothing less than one */
	case RP_BT_DIRTY_MB:
	case RP_BT_LOAD:
	case RP_BT_STEAL_PCT: return 0;
	}
	return 0;
}

/* The ops a target measured for a row: the op's count, or every op, summed over the counted runs. */
static uint64_t samples(const rp_bt_target *t, const char *op)
{
	uint64_t n = 0;
	for (size_t j = 0; j < t->nruns; j++) {
		const rp_bt_run *const r = &t->runs[j];
		if (!rp__bt_counted(r))
			continue;
		if (!op) {
			n += r->total_ops;
			continue;
		}
		for (size_t k = 0; k < r->nops; k++)
			if (strcmp(r->ops[k].name, op) == 0)
				n += r->ops[k].count;
	}
	return n;
}

static bool schedule_paced(const rp_bt_set *s)
{
	for (size_t i = 0; i < s->ntargets; i++)
		for (size_t j = 0; j < s->targets[i].nruns; j++) {
			const rp_bt_run *const r = &s->targets[i].runs[j];
			if (rp__bt_counted(r) && (strcmp(r->timing, "trace") == 0 || strcmp(r->timing, "think") == 0))
				return true;
		}
	return false;
}

rp_bt_rank rp__bt_row(const rp_bt_set *s, rp_bt_metric m, const char *op, rp_bt_spread *sp)
{
	rp_bt_rank k = { .best = NAN, .why = RP_BT_ALONE, .metric = m };
	const bool higher = rp__bt_higher_is_better(m);
	for (size_t i = 0; i < s->ntargets; i++) {
		sp[i] = rp__bt_spread(&s->targets[i], m, op);
		if (!sp[i].n)
			continue;
		if (!k.have || (higher ? sp[i].median > k.best : sp[i].median < k.best)) {
			k.best = sp[i].median;
			k.best_i = i;
		}
		k.have++;
	}
	/*
	 * Dirty data is system-wide and a difference, load and steal are the
	 * machine's: shown, never ranked.
	 */
	if (m == RP_BT_DIRTY_MB || m == RP_BT_LOAD || m == RP_BT_STEAL_PCT) {
		k.best = NAN;
		k.why = RP_BT_UNRANKED;
		return k;
	}
	if (k.have == 0)
		return k;
	const double fl = rp__bt_floor(m);
	k.absolute = fabs(k.best) < fl || k.best <= 0;
	if (k.have < 2)
		return k;
	/* the runner-up: the best of the others */
	size_t next = s->ntargets;
	bool all_equal = true;
	for (size_t i = 0; i < s->ntargets; i++) {
		if (!sp[i].n || i == k.best_i)
			continue;
		all_equal &= sp[i].median == k.best;
		if (next == s->ntargets || (higher ? sp[i].median > sp[next].median : sp[i].median < sp[next].median))
			next = i;
	}
	if (all_equal) {
		k.why = RP_BT_EQUAL;
		return k;
	}
	if ((m == RP_BT_MB_S || m == RP_BT_OPS_S) && schedule_paced(s)) {
		k.why = RP_BT_SCHEDULE;
		return k;
	}
	const bool op_row = m == RP_BT_OP_P50 || m == RP_BT_OP_P99 || m == RP_BT_OP_MAX;
	if (m != RP_BT_FLUSH_S && m != RP_BT_ELAPSED_S && m != RP_BT_FAILURES && m != RP_BT_MISMATCHES)
		for (size_t i = 0; i < s->ntargets; i++)
			if (sp[i].n && samples(&s->targets[i], op_row ? op : NULL) < RP_BT_MIN_OPS) {
				k.why = RP_BT_FEW;
				return k;
			}
	const rp_bt_spread *const b = &sp[k.best_i], *const n = &sp[next];
	if (higher ? b->min <= n->max : b->max >= n->min) {
		k.why = RP_BT_SPREAD;
		return k;
	}
	/* a margin: by ratio, or when the best is about 0 by more than the row's resolution */
	const bool close = k.absolute ? fabs(n->median - b->median) < fl
				      : (higher ? b->median < n->median * RP_BT_MARGIN : n->median < b->median * RP_BT_MARGIN);
	k.why = !close ? RP_BT_WIN : k.absolute ? RP_BT_GRAIN : RP_BT_CLOSE;
	return k;
}

void rp__bt_mark(char *buf, size_t size, const rp_bt_rank *k, const rp_bt_spread *sp, size_t i, bool *is_best)
{
	*is_best = false;
	buf[0] = '\0';
	if (k->have < 2 || !sp[i].n || isnan(k->best))
		return;
	if (k->why == RP_BT_WIN && i == k->best_i) {
		*is_best = true;
		return;
	}
	if (sp[i].median == k->best)
		return; /* equal to the best: nothing to say */
	char v[32];
	if (k->absolute) {
		/* a difference under the row's resolution is no difference: nothing said */
		if (fabs(sp[i].median - k->best) < rp__bt_floor(k->metric))
			return;
		rp__bt_fmt(v, sizeof(v), sp[i].median - k->best);
		snprintf(buf, size, "%s%s", sp[i].median >= k->best ? "+" : "", v);
	} else if (sp[i].median >= 0) {
		rp__bt_fmt(v, sizeof(v), sp[i].median / k->best);
		snprintf(buf, size, "%sx", v);
	}
}

double rp__bt_run_spread(const rp_bt_target *t, double limit, size_t *outliers)
{
	*outliers = 0;
	rp_bt_metric m = RP_BT_MB_S;
	rp_bt_spread sp = rp__bt_spread(t, m, NULL);
	if (sp.n >= 2 && !(sp.min > 0)) {
		m = RP_BT_OPS_S;
		sp = rp__bt_spread(t, m, NULL);
	}
	if (sp.n < 2 || !(sp.min > 0))
		return 0;
	const rp_bt_spread one = sp;
	for (size_t j = 0; j < t->nruns; j++) {
		const rp_bt_run *const r = &t->runs[j];
		if (!rp__bt_counted(r))
			continue;
		const double v = m == RP_BT_MB_S ? r->mb_per_sec : r->ops_per_sec;
		*outliers += v > one.median * limit || v < one.median / limit;
	}
	return sp.max / sp.min;
}

size_t rp__bt_runs_needed(size_t outliers)
{
	const size_t n = 2 * (outliers + 1) + 1;
	return n < 5 ? 5 : n;
}

/* The last component of a path ("/mnt/a/" gives "a"), its length in *n. */
static const char *last_component(const char *p, size_t *n)
{
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		len--;
	size_t b = len;
	while (b > 0 && p[b - 1] != '/')
		b--;
	*n = len - b;
	return p + b;
}

void rp__bt_label(char *buf, size_t size, const rp_bt_set *s, size_t i)
{
	const rp_bt_target *const t = &s->targets[i];
	bool fs_unique = t->fs_type[0] != '\0', last_unique = true;
	size_t ln;
	const char *const last = last_component(t->target, &ln);
	for (size_t j = 0; j < s->ntargets; j++) {
		if (j == i)
			continue;
		fs_unique &= strcmp(s->targets[j].fs_type, t->fs_type) != 0;
		size_t on;
		const char *const other = last_component(s->targets[j].target, &on);
		last_unique &= !(on == ln && memcmp(other, last, ln) == 0);
	}
	char raw[RP_BT_LABEL_MAX * 4];
	if (fs_unique)
		snprintf(raw, sizeof(raw), "%s", t->fs_type);
	else if (last_unique && ln > 0 && !strstr(t->target, "://"))
		snprintf(raw, sizeof(raw), "%.*s", (int)ln, last);
	else
		snprintf(raw, sizeof(raw), "%s", t->target[0] ? t->target : "?");
	char disp[RP_BT_LABEL_MAX * 4];
	rp__bt_display(disp, sizeof(disp), raw);
	/* cut before a character, never inside one */
	size_t n = strlen(disp), lim = size < RP_BT_LABEL_MAX ? size : RP_BT_LABEL_MAX;
	if (n >= lim) {
		n = lim - 4;
		while (n > 0 && ((unsigned char)disp[n] & 0xc0) == 0x80)
			n--;
		snprintf(buf, size, "%.*s\xe2\x80\xa6", (int)n, disp);
	} else
		snprintf(buf, size, "%s", disp);
}

/* Counted runs of t, and how many had their dirty data clamped at 0. */
static size_t counted(const rp_bt_target *t, size_t *clamped)
{
	size_t n = 0;
	for (size_t j = 0; j < t->nruns; j++)
		if (rp__bt_counted(&t->runs[j])) {
			n++;
			*clamped += t->runs[j].dirty_known && t->runs[j].dirty_bytes_at_end < 0;
		}
	return n;
}

/* t's short label (rp__bt_label), as text or HTML-escaped. */
static void name_out(FILE *f, const rp_bt_set *s, size_t i, bool html)
{
	char name[RP_BT_LABEL_MAX];
	rp__bt_label(name, sizeof(name), s, i);
	for (const char *p = name; *p; p++)
		if (html && strchr("&<>\"'", *p))
			fprintf(f, "&#%d;", *p);
		else
			fputc(*p, f);
}

void rp__bt_notes(const rp_bt_set *s, FILE *f, bool html)
{
	const char *const li = html ? "<li>" : "", *const end = html ? "</li>\n" : "\n";
	size_t clamped = 0, even = 0;
	for (size_t i = 0; i < s->ntargets; i++) {
		const rp_bt_target *const t = &s->targets[i];
		const size_t n = counted(t, &clamped);
		even += n >= 2 && n % 2 == 0;
		size_t out = 0;
		const double sp = rp__bt_run_spread(t, s->spread_limit, &out);
		if (sp <= s->spread_limit)
			continue;
		const size_t need = rp__bt_runs_needed(out ? out : 1);
		fprintf(f, "%s%s ", li, html ? "<b class=\"flag\">!</b>" : "!");
		name_out(f, s, i, html);
		/* a spread just past the limit is written with the digits that show it is past */
		fprintf(f, ": the runs disagree, spread %.*fx (max/min of MB/s over %zu runs, above %.3gx): ",
			sp < s->spread_limit + 0.005 ? 3 : 2, sp, n, s->spread_limit);
		size_t disc = 0; /* bench's --discard-first runs: asked for on top of the counted ones */
		for (size_t j = 0; j < t->nruns; j++)
			disc += t->runs[j].discarded && !t->runs[j].failed;
		if (n < need)
			fprintf(f, "use --runs %zu or more for a stable median%s", need + (disc ? 1 : 0), end);
		else
			fprintf(f, "the median of %zu holds against %zu outlier%s%s", n, out, out == 1 ? "" : "s", end);
	}
	for (size_t i = 0; i < s->ntargets; i++)
		if (s->targets[i].shared_mount && s->targets[i].shared_mount[0]) {
			fprintf(f, "%s", li);
			name_out(f, s, i, html);
			fputs(": a directory of the file system mounted at ", f);
			char m[RP_BT_NAME_MAX + 1];
			rp__bt_display(m, sizeof(m), s->targets[i].shared_mount);
			for (const char *p = m; *p; p++)
				if (html && strchr("&<>\"'", *p))
					fprintf(f, "&#%d;", *p);
				else
					fputc(*p, f);
			fprintf(f, ": its flush at end is syncfs(2) of that whole file system, other writers' dirty data "
				   "included%s", end);
		}
	if (even)
		fprintf(f, "%s%zu target%s with an even number of counted runs: %s median is the mean of the middle two "
			   "(with --discard-first, an odd --runs minus one; --runs 4 gives three counted)%s",
			li, even, even == 1 ? "" : "s", even == 1 ? "its" : "their", end);
	if (clamped)
		fprintf(f, "%sdirty at end: %zu run%s measured less dirty data at the end than at the start (the kernel wrote "
			   "back prepare's or other writers' data meanwhile): shown as 0%s",
			li, clamped, clamped == 1 ? "" : "s", end);
}
