/* The comparison as one self-contained HTML5 page with inline SVG charts (docs/compare.md, "The HTML report"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab.h"

/*
 * Colours (Okabe and Ito's palette, told apart by the colour-blind too) and,
 * because colour alone is not enough, a dash pattern and a letter per target:
 * lines end in their target's letter, bars carry it.
 */
static const char *const colours[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000" };
static const char *const dashes[] = { "", "8 4", "2 3", "10 3 2 3", "5 5", "1 4", "12 2" };
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

/* A name as the page shows it: at most this many bytes of it (the whole one in the element's title). */
#define LABEL_BYTES 40
#define ESC_MAX (4 * RP_BT_NAME_MAX + 1)

_Static_assert(RP_BT_TARGETS_MAX <= 52, "a letter per target: A-Z, a-z");

static const char *colour(size_t i)
{
	return colours[i % NCOLOURS];
}

/* Targets past the first NCOLOURS take the next dash, so no two share both colour and dash. */
static const char *dash(size_t i)
{
	return dashes[(i + i / NCOLOURS) % NCOLOURS];
}

static void key_of(size_t i, char key[3])
{
	key[0] = (char)(i < 26 ? 'A' + i : 'a' + (i - 26));
	key[1] = '\0';
}

/* s as HTML text or an attribute value: its display form (controls as \xNN), then & < > " ' as references. */
static void esc(FILE *f, const char *s, size_t max_bytes)
{
	char buf[ESC_MAX];
	rp__bt_display(buf, sizeof(buf), s);
	size_t n = 0;
	for (const char *p = buf; *p; p++, n++) {
		/* cut only before a character, never inside one */
		if (n >= max_bytes && ((unsigned char)*p & 0xc0) != 0x80) {
			fputs("\xe2\x80\xa6", f);
			break;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*p, f);
		}
	}
}

#define WHOLE ((size_t)-1)

static void target_label(FILE *f, const rp_bt_target *t, size_t max)
{
	esc(f, t->target[0] ? t->target : "?", max);
	if (t->fs_type[0]) {
		fputs(" (", f);
		esc(f, t->fs_type, max);
		fputs(")", f);
	}
}

static void num(char *buf, size_t n, double v)
{
	const double a = fabs(v);
	if (a >= 100 || v == 0)
		snprintf(buf, n, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, n, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

/* An axis tick: 20k, 4M, 0.5 (no long runs of zeros to crowd the axis label). */
static void tick(char *buf, size_t n, double v)
{
	const double a = fabs(v);
	if (a >= 1e9)
		snprintf(buf, n, "%gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, n, "%gk", v / 1e3);
	else
		snprintf(buf, n, "%g", v);
}

/* A ratio to the best: 0.005x, 0.52x, 3.1x, 4434x. */
static void ratio(char *buf, size_t n, double r)
{
	num(buf, n > 1 ? n - 1 : n, r);
	strcat(buf, "x"); /* num wrote at most n - 2 characters */
}

/* ---- axes ---- */

typedef struct frame {
	double x0, y0, w, h; /* the plot area inside the SVG, in px */
	double xmin, xmax, ymin, ymax;
	bool xlog;
} frame;

static double px(const frame *fr, double x)
{
	if (fr->xlog)
		x = log10(x > 0 ? x : fr->xmin);
	const double span = fr->xmax - fr->xmin;
	return fr->x0 + (span > 0 ? (x - fr->xmin) / span : 0) * fr->w;
}

static double py(const frame *fr, double y)
{
	const double span = fr->ymax - fr->ymin;
	return fr->y0 + fr->h - (span > 0 ? (y - fr->ymin) / span : 0) * fr->h;
}

/* A round step (1, 2 or 5 times a power of ten) giving about n ticks over span. */
static double nice_step(double span, int n)
{
	if (!(span > 0))
		return 1;
	const double raw = span / n, mag = pow(10, floor(log10(raw))), r = raw / mag;
	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* The top of a linear axis from 0: a round number above max (1 when max is 0). */
static double nice_top(double max)
{
	if (!(max > 0))
		return 1;
	const double st = nice_step(max, 5);
	return ceil(max / st) * st;
}

/* A latency in ns as the axis labels it: ns, µs, ms or s. */
static void lat_label(char *buf, size_t n, double ns)
{
	if (ns < 1e3)
		snprintf(buf, n, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, "%.0f \xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.0f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.0f s", ns / 1e9);
}

static void axes(FILE *f, const frame *fr, const char *xlabel, const char *ylabel, bool ypercent)
{
	fprintf(f, "<g class=\"axes\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"plot\"/>\n", fr->x0,
		fr->y0, fr->w, fr->h);
	const double ys = nice_step(fr->ymax - fr->ymin, 5);
	for (double y = fr->ymin; y <= fr->ymax + ys / 1e6; y += ys) {
		char b[32];
		if (ypercent)
			snprintf(b, sizeof(b), "%.0f%%", y * 100);
		else
			tick(b, sizeof(b), y);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", fr->x0, fr->x0 + fr->w,
			py(fr, y), py(fr, y));
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", fr->x0 - 4,
			py(fr, y) + 4, b);
	}
	if (fr->xlog) {
		for (double e = ceil(fr->xmin); e <= fr->xmax + 1e-9; e++) {
			char b[32];
			lat_label(b, sizeof(b), pow(10, e));
			const double x = px(fr, pow(10, e));
			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, fr->y0,
				fr->y0 + fr->h);
			fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
				fr->y0 + fr->h + 14, b);
		}
	} else {
		const double xs = nice_step(fr->xmax - fr->xmin, 8);
		for (double x = fr->xmin; x <= fr->xmax + xs / 1e6; x += xs) {
			char b[32];
			tick(b, sizeof(b), x);
			fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", px(fr, x),
				fr->y0 + fr->h + 14, b);
		}
	}
	fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", fr->x0 + fr->w / 2,
		fr->y0 + fr->h + 32, xlabel);
	fprintf(f, "<text class=\"label\" transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		fr->x0 - 46, fr->y0 + fr->h / 2, ylabel);
	fputs("</g>\n", f);
}

/* The legend: a line sample, the letter and the name of each target, as an HTML list above a chart. */
static void legend(FILE *f, const rp_bt_set *s)
{
	fputs("<ul class=\"legend\">\n", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		char key[3];
		key_of(i, key);
		fprintf(f, "<li data-target=\"");
		esc(f, s->targets[i].target, WHOLE);
		fprintf(f, "\"><svg width=\"36\" height=\"12\" aria-hidden=\"true\"><line x1=\"0\" y1=\"6\" x2=\"36\" y2=\"6\" "
			   "stroke=\"%s\" stroke-width=\"3\" stroke-dasharray=\"%s\"/></svg> <b>%s</b> ",
			colour(i), dash(i), key);
		target_label(f, &s->targets[i], WHOLE);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void svg_open(FILE *f, const char *chart, const char *extra, double w, double h, const char *title)
{
	fprintf(f, "<svg class=\"chart\" data-chart=\"%s\"%s xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>%s</title>\n",
		chart, extra, w, h, w, h, title);
}

/* ---- throughput over time ---- */

static double sec_value(const rp_bt_sec *s, bool mb)
{
	return mb ? (double)s->bytes / 1e6 : (double)s->ops;
}

/*
 * The seconds of r's series to draw: the last one left out when the run ended
 * within it (less than a second of work would look like a drop at the end),
 * unless it is the only one.
 */
static size_t run_len(const rp_bt_run *r)
{
	if (r->nseries > 1 && r->warmup_s + r->elapsed_s < (double)r->nseries - 0.01)
		return r->nseries - 1;
	return r->nseries;
}

/* Charts have 640 px of time: past this many seconds, each point is the mean of several. */
#define POINTS_MAX 640

/* The mean of r's seconds [a, b) (within its run_len), false when it has none of them. */
static bool run_mean(const rp_bt_run *r, size_t a, size_t b, bool mb, double *out)
{
	const size_t len = run_len(r);
	b = b < len ? b : len;
	if (a >= b)
		return false;
	double sum = 0;
	for (size_t k = a; k < b; k++)
		sum += sec_value(&r->series[k], mb);
	*out = sum / (double)(b - a);
	return true;
}

/* The median over the target's kept runs of their means over [a, b) (false when no run lasted that long). */
static bool point_median(const rp_bt_target *t, size_t a, size_t b, bool mb, double *out)
{
	double v[RP_BT_RUNS_MAX];
	size_t n = 0;
	for (size_t i = 0; i < t->nruns; i++)
		if (rp__bt_counted(&t->runs[i]) && run_mean(&t->runs[i], a, b, mb, &v[n]))
			n++;
	if (!n)
		return false;
	for (size_t i = 1; i < n; i++) /* insertion sort: few runs */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			const double x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	*out = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return true;
}

static void over_time(FILE *f, const rp_bt_set *s, bool mb)
{
	size_t len = 0, warm = 0;
	for (size_t i = 0; i < s->ntargets; i++)
		for (size_t j = 0; j < s->targets[i].nruns; j++) {
			const rp_bt_run *const r = &s->targets[i].runs[j];
			if (!rp__bt_counted(r))
				continue;
			len = run_len(r) > len ? run_len(r) : len;
			for (size_t k = 0; k < run_len(r); k++)
				if (r->series[k].warmup && k + 1 > warm)
					warm = k + 1;
		}
	const char *const what = mb ? "MB/s" : "ops/s";
	fprintf(f, "<h3>%s over time</h3>\n", mb ? "Throughput (MB/s)" : "Operations per second");
	if (len == 0) {
		fputs("<p class=\"none\">No per-second series in the inputs.</p>\n", f);
		return;
	}
	const size_t step = (len + POINTS_MAX - 1) / POINTS_MAX, npts = (len + step - 1) / step;
	double top = 0, v;
	for (size_t i = 0; i < s->ntargets; i++)
		for (size_t j = 0; j < s->targets[i].nruns; j++)
			for (size_t p = 0; p < npts && rp__bt_counted(&s->targets[i].runs[j]); p++)
				if (run_mean(&s->targets[i].runs[j], p * step, (p + 1) * step, mb, &v) && v > top)
					top = v;
	const frame fr = { .x0 = 70, .y0 = 14, .w = 640, .h = 260, .xmin = 0, .xmax = (double)len,
			   .ymin = 0, .ymax = nice_top(top) };
	svg_open(f, mb ? "throughput" : "ops-over-time", "", 820, 330, mb ? "MB/s per second, per target" : "ops/s per second, per target");
	if (warm)
		fprintf(f, "<rect class=\"warmup\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">warm-up</text>\n",
			fr.x0, fr.y0, px(&fr, (double)warm) - fr.x0, fr.h, fr.x0 + 4, fr.y0 + 12);
	char xlabel[96];
	if (step > 1)
		snprintf(xlabel, sizeof(xlabel), "seconds since the start of the run (each point the mean of %zu s)", step);
	else
		snprintf(xlabel, sizeof(xlabel), "seconds since the start of the run");
	axes(f, &fr, xlabel, what, false);
	for (size_t i = 0; i < s->ntargets; i++) {
		const rp_bt_target *const t = &s->targets[i];
		size_t kept = 0;
		for (size_t j = 0; j < t->nruns; j++)
			kept += rp__bt_counted(&t->runs[j]);
		/* every run thin, when there are several; their median per second bold */
		for (size_t j = 0; j < t->nruns && kept > 1; j++) {
			const rp_bt_run *const r = &t->runs[j];
			if (!rp__bt_counted(r) || run_len(r) == 0)
				continue;
			fprintf(f, "<path class=\"series run\" data-target=\"");
			esc(f, t->target, WHOLE);
			fprintf(f, "\" data-series=\"run\" data-run=\"%u\" stroke=\"%s\" stroke-dasharray=\"%s\" d=\"", r->run,
				colour(i), dash(i));
			for (size_t p = 0; p < npts && run_mean(r, p * step, (p + 1) * step, mb, &v); p++)
				fprintf(f, "%c%.1f %.1f", p ? 'L' : 'M', px(&fr, ((double)p + 0.5) * (double)step), py(&fr, v));
			fputs("\"/>\n", f);
		}
		double lastx = 0, lasty = 0;
		size_t any = 0;
		fprintf(f, "<path class=\"series median\" data-target=\"");
		esc(f, t->target, WHOLE);
		fprintf(f, "\" data-series=\"median\" stroke=\"%s\" stroke-dasharray=\"%s\" d=\"", colour(i), dash(i));
		for (size_t p = 0; p < npts; p++)
			if (point_median(t, p * step, (p + 1) * step, mb, &v)) {
				lastx = px(&fr, ((double)p + 0.5) * (double)step);
				lasty = py(&fr, v);
				fprintf(f, "%c%.1f %.1f", any ? 'L' : 'M', lastx, lasty);
				any++;
			}
		if (any == 1)
			fputs("l0.1 0", f); /* one second only: a dot (round caps), not an invisible point */
		fputs("\"><title>", f);
		target_label(f, t, WHOLE);
		fputs("</title></path>\n", f);
		if (any) {
			char key[3];
			key_of(i, key);
			fprintf(f, "<text class=\"end\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", lastx + 6,
				lasty + 4 + (double)(i % 3) * 3, colour(i), key);
		}
	}
	fputs("</svg>\n", f);
}

/* ---- spread over runs ---- */

static void spread_chart(FILE *f, const rp_bt_set *s, rp_bt_metric m, const char *key, const char *what)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	double best = 0, top = 0;
	const size_t have = rp__bt_row(s, m, NULL, sp, &best);
	if (!have)
		return;
	for (size_t i = 0; i < s->ntargets; i++)
		top = sp[i].n && sp[i].max > top ? sp[i].max : top;
	const double rowh = 28, h = 60 + rowh * (double)s->ntargets;
	const frame fr = { .x0 = 300, .y0 = 10, .w = 420, .h = rowh * (double)s->ntargets, .xmin = 0,
			   .xmax = nice_top(top), .ymin = 0, .ymax = 1 };
	char title[64];
	snprintf(title, sizeof(title), "%s: min, median and max over the runs", what);
	svg_open(f, "spread", key[0] == 'm' ? " data-metric=\"mb_per_sec\"" : " data-metric=\"ops_per_sec\"", 820, h, title);
	fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", fr.x0, fr.y0, fr.w, fr.h);
	const double xs = nice_step(fr.xmax, 6);
	for (double x = 0; x <= fr.xmax + xs / 1e6; x += xs) {
		char b[32];
		tick(b, sizeof(b), x);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			px(&fr, x), px(&fr, x), fr.y0, fr.y0 + fr.h, px(&fr, x), fr.y0 + fr.h + 14, b);
	}
	fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s (whiskers: min to max; bar: median)</text>\n",
		fr.x0 + fr.w / 2, fr.y0 + fr.h + 32, what);
	for (size_t i = 0; i < s->ntargets; i++) {
		const double y = fr.y0 + rowh * ((double)i + 0.5);
		char key2[3], b1[32], b2[32], b3[32], rt[48] = "";
		key_of(i, key2);
		fprintf(f, "<g class=\"spread\" data-target=\"");
		esc(f, s->targets[i].target, WHOLE);
		fprintf(f, "\" data-metric=\"%s\" data-runs=\"%zu\" data-min=\"%g\" data-median=\"%g\" data-max=\"%g\">", key,
			sp[i].n, sp[i].min, sp[i].median, sp[i].max);
		fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"><tspan font-weight=\"bold\">%s</tspan> ",
			fr.x0 - 8, y + 4, key2);
		target_label(f, &s->targets[i], 24);
		fputs("</text>", f);
		if (sp[i].n) {
			num(b1, sizeof(b1), sp[i].min);
			num(b2, sizeof(b2), sp[i].median);
			num(b3, sizeof(b3), sp[i].max);
			if (have > 1 && sp[i].median == best)
				snprintf(rt, sizeof(rt), " (best)");
			else if (have > 1 && best > 0) {
				rt[0] = ' ';
				ratio(rt + 1, sizeof(rt) - 1, sp[i].median / best);
			}
			fprintf(f, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
				px(&fr, sp[i].min), px(&fr, sp[i].max), y, y, colour(i));
			for (int e = 0; e < 2; e++) {
				const double x = px(&fr, e ? sp[i].max : sp[i].min);
				fprintf(f, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", x,
					x, y - 6, y + 6, colour(i));
			}
			fprintf(f, "<rect class=\"median\" x=\"%.1f\" y=\"%.1f\" width=\"4\" height=\"18\" fill=\"%s\"/>",
				px(&fr, sp[i].median) - 2, y - 9, colour(i));
			fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s%s</text>", px(&fr, sp[i].max) + 8, y + 4, b2,
				rt);
			fprintf(f, "<title>min %s, median %s, max %s over %zu run%s</title>", b1, b2, b3, sp[i].n,
				sp[i].n == 1 ? "" : "s");
		}
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
}

/* ---- latency CDF per op ---- */

/* The top of the bucket whose low end is lo (docs/replay.md "Histograms"); the last bucket's is max_ns. */
static double bucket_top(uint64_t lo, uint64_t max_ns)
{
	const unsigned sb = RP_BT_HIST_SUB_BITS, mb = RP_BT_HIST_MAX_BITS;
	if (lo < (UINT64_C(1) << sb))
		return (double)lo + 1;
	if (lo >= (UINT64_C(1) << mb) - (UINT64_C(1) << (mb - 1 - sb)))
		return (double)max_ns;
	const unsigned e = 63 - (unsigned)__builtin_clzll(lo);
	return (double)(lo + (UINT64_C(1) << (e - sb)));
}

static int cmp_bucket(const void *a, const void *b)
{
	const uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
	return x < y ? -1 : x > y;
}

/* The op's histograms of the target's kept runs merged (equal lo_ns added); NULL with *n 0 when none. */
static uint64_t (*merged(const rp_bt_target *t, const char *op, size_t *n, uint64_t *count, uint64_t *max_ns))[2]
{
	*n = 0;
	*count = 0;
	*max_ns = 0;
	size_t total = 0;
	for (size_t j = 0; j < t->nruns; j++)
		for (size_t k = 0; k < t->runs[j].nops && rp__bt_counted(&t->runs[j]); k++)
			if (strcmp(t->runs[j].ops[k].name, op) == 0)
				total += t->runs[j].ops[k].hist.n;
	if (total == 0)
		return NULL;
	uint64_t(*b)[2] = malloc(total * sizeof(*b));
	if (!b)
		return NULL;
	size_t m = 0;
	for (size_t j = 0; j < t->nruns; j++)
		for (size_t k = 0; k < t->runs[j].nops && rp__bt_counted(&t->runs[j]); k++) {
			const rp_bt_op *const o = &t->runs[j].ops[k];
			if (strcmp(o->name, op) != 0)
				continue;
			memcpy(b + m, o->hist.b, o->hist.n * sizeof(*b));
			m += o->hist.n;
			*count += o->hist.count;
			*max_ns = o->hist.max_ns > *max_ns ? o->hist.max_ns : *max_ns;
		}
	qsort(b, m, sizeof(*b), cmp_bucket);
	size_t w = 0;
	for (size_t i = 0; i < m; i++) {
		if (w && b[w - 1][0] == b[i][0])
			b[w - 1][1] += b[i][1];
		else {
			b[w][0] = b[i][0];
			b[w][1] = b[i][1];
			w++;
		}
	}
	*n = w;
	return b;
}

static void cdf_chart(FILE *f, const rp_bt_set *s, const char *op)
{
	uint64_t(*h[RP_BT_TARGETS_MAX])[2] = { NULL };
	size_t hn[RP_BT_TARGETS_MAX] = { 0 };
	uint64_t hc[RP_BT_TARGETS_MAX] = { 0 }, hmax[RP_BT_TARGETS_MAX] = { 0 };
	double lo = 0, hi = 0;
	bool any = false;
	for (size_t i = 0; i < s->ntargets; i++) {
		h[i] = merged(&s->targets[i], op, &hn[i], &hc[i], &hmax[i]);
		if (!h[i] || !hc[i])
			continue;
		const double a = h[i][0][0] > 0 ? (double)h[i][0][0] : 1, z = bucket_top(h[i][hn[i] - 1][0], hmax[i]);
		lo = !any || a < lo ? a : lo;
		hi = !any || z > hi ? z : hi;
		any = true;
	}
	if (any) {
		frame fr = { .x0 = 56, .y0 = 10, .w = 300, .h = 180, .xlog = true, .ymin = 0, .ymax = 1 };
		fr.xmin = floor(log10(lo));
		fr.xmax = ceil(log10(hi));
		if (fr.xmax <= fr.xmin)
			fr.xmax = fr.xmin + 1;
		fputs("<figure class=\"cdf\"><figcaption>", f);
		esc(f, op, WHOLE);
		fputs("</figcaption>\n", f);
		svg_open(f, "cdf", "", 380, 240, "latency CDF");
		axes(f, &fr, "latency (log scale)", "ops at or under", true);
		for (size_t i = 0; i < s->ntargets; i++) {
			if (!h[i] || !hc[i])
				continue;
			fprintf(f, "<path class=\"series cdf\" data-target=\"");
			esc(f, s->targets[i].target, WHOLE);
			fputs("\" data-op=\"", f);
			esc(f, op, WHOLE);
			fprintf(f, "\" stroke=\"%s\" stroke-dasharray=\"%s\" d=\"M%.1f %.1f", colour(i), dash(i),
				px(&fr, h[i][0][0] > 0 ? (double)h[i][0][0] : 1), py(&fr, 0));
			uint64_t cum = 0;
			double mx = 0, my = 0;
			for (size_t k = 0; k < hn[i]; k++) {
				cum += h[i][k][1];
				const double x = px(&fr, bucket_top(h[i][k][0], hmax[i])), y = (double)cum / (double)hc[i];
				fprintf(f, "L%.1f %.1f", x, py(&fr, y));
				if (mx == 0 && y >= 0.5) {
					mx = x;
					my = py(&fr, y);
				}
			}
			fputs("\"><title>", f);
			target_label(f, &s->targets[i], WHOLE);
			char key[3];
			key_of(i, key);
			/* the letter where the curve passes its median, staggered so two close curves' letters do not overlap */
			fprintf(f, "</title></path>\n<text class=\"end\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", mx + 4,
				my + 14 + 12 * (double)(i % 4), colour(i), key);
		}
		fputs("</svg></figure>\n", f);
	}
	for (size_t i = 0; i < s->ntargets; i++)
		free(h[i]);
}

/* ---- op mix ---- */

static uint64_t op_count(const rp_bt_target *t, const char *op)
{
	uint64_t n = 0;
	for (size_t j = 0; j < t->nruns; j++)
		for (size_t k = 0; k < t->runs[j].nops && rp__bt_counted(&t->runs[j]); k++)
			if (!op || strcmp(t->runs[j].ops[k].name, op) == 0)
				n += t->runs[j].ops[k].count;
	return n;
}

static void opmix_chart(FILE *f, const rp_bt_set *s, const char *const *ops, size_t nops)
{
	uint64_t total[RP_BT_TARGETS_MAX];
	for (size_t i = 0; i < s->ntargets; i++)
		total[i] = op_count(&s->targets[i], NULL);
	double top = 0;
	for (size_t n = 0; n < nops; n++)
		for (size_t i = 0; i < s->ntargets; i++) {
			const double share = total[i] ? (double)op_count(&s->targets[i], ops[n]) / (double)total[i] : 0;
			top = share > top ? share : top;
		}
	const double barh = 12, group = barh * (double)s->ntargets + 10, h = 50 + group * (double)nops;
	const frame fr = { .x0 = 160, .y0 = 6, .w = 560, .h = group * (double)nops, .xmin = 0,
			   .xmax = top > 0 ? fmin(1, ceil(top * 10) / 10) : 1, .ymin = 0, .ymax = 1 };
	svg_open(f, "opmix", "", 820, h, "share of each op in the measured ops, per target");
	fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", fr.x0, fr.y0, fr.w, fr.h);
	for (int k = 0; k <= 10; k++) {
		const double x = fr.xmax * k / 10;
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f%%</text>\n",
			px(&fr, x), px(&fr, x), fr.y0, fr.y0 + fr.h, px(&fr, x), fr.y0 + fr.h + 14, x * 100);
	}
	fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">share of the target's measured ops</text>\n",
		fr.x0 + fr.w / 2, fr.y0 + fr.h + 32);
	for (size_t n = 0; n < nops; n++) {
		const double gy = fr.y0 + group * (double)n + 5;
		fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", fr.x0 - 8, gy + group / 2);
		esc(f, ops[n], 24);
		fputs("</text>\n", f);
		for (size_t i = 0; i < s->ntargets; i++) {
			const uint64_t c = op_count(&s->targets[i], ops[n]);
			const double share = total[i] ? (double)c / (double)total[i] : 0;
			const double y = gy + barh * (double)i;
			char key[3];
			key_of(i, key);
			fprintf(f, "<rect class=\"bar opmix\" data-target=\"");
			esc(f, s->targets[i].target, WHOLE);
			fputs("\" data-op=\"", f);
			esc(f, ops[n], WHOLE);
			fprintf(f, "\" data-share=\"%.6f\" data-count=\"%llu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
				share, (unsigned long long)c, fr.x0, y, px(&fr, share) - fr.x0, barh - 2, colour(i));
			fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s %.1f%%</text>\n", px(&fr, share) + 4,
				y + barh - 3, key, share * 100);
		}
	}
	fputs("</svg>\n", f);
}

/* ---- the verdict, the table, the page ---- */

static void verdict_line(FILE *f, const rp_bt_set *s, rp_bt_metric m, const char *what, const char *unit)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	double best = 0;
	if (!rp__bt_row(s, m, NULL, sp, &best))
		return;
	size_t w = 0;
	while (w < s->ntargets && !(sp[w].n && sp[w].median == best))
		w++;
	char b[32];
	num(b, sizeof(b), best);
	fprintf(f, "<li data-metric=\"%s\">%s: <b class=\"winner\">", what, what);
	target_label(f, &s->targets[w], WHOLE);
	fprintf(f, "</b> is best with %s %s (median)", b, unit);
	/* by how much: the best over the next best, as a factor above 1 */
	double next = -1;
	for (size_t i = 0; i < s->ntargets; i++)
		if (i != w && sp[i].n && (next < 0 || sp[i].median > next))
			next = sp[i].median;
	if (next > 0) {
		char r[32];
		ratio(r, sizeof(r), best / next);
		fprintf(f, ", <b>%s</b> the next best", r);
	}
	for (size_t i = 0; i < s->ntargets; i++) {
		if (i == w || !sp[i].n)
			continue;
		num(b, sizeof(b), sp[i].median);
		fputs("; ", f);
		target_label(f, &s->targets[i], LABEL_BYTES);
		if (best > 0) {
			char r[32];
			ratio(r, sizeof(r), sp[i].median / best);
			fprintf(f, " %s (%s)", r, b);
		} else
			fprintf(f, " %s", b);
	}
	fputs("</li>\n", f);
}

/* Per op, who has the lowest p99: the "where" of the verdict. */
static void verdict_ops(FILE *f, const rp_bt_set *s, const char *const *ops, size_t nops)
{
	if (s->ntargets < 2 || nops == 0)
		return;
	fputs("<li>Lowest p99 latency per op:<ul>\n", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		bool first = true;
		rp_bt_spread sp[RP_BT_TARGETS_MAX];
		double best;
		for (size_t n = 0; n < nops; n++) {
			/* an op only one target ran has nobody to be compared with */
			if (rp__bt_row(s, RP_BT_OP_P99, ops[n], sp, &best) < 2 || !sp[i].n || sp[i].median != best)
				continue;
			/* by how much: against the next best target */
			double second = -1;
			for (size_t j = 0; j < s->ntargets; j++)
				if (j != i && sp[j].n && (second < 0 || sp[j].median < second))
					second = sp[j].median;
			if (first) {
				fputs("<li><b>", f);
				target_label(f, &s->targets[i], LABEL_BYTES);
				fputs("</b>: ", f);
			} else
				fputs(", ", f);
			esc(f, ops[n], LABEL_BYTES);
			if (best > 0 && second > 0) {
				char r[32];
				ratio(r, sizeof(r), second / best);
				fprintf(f, " (%s lower)", r);
			}
			first = false;
		}
		if (!first)
			fputs("</li>\n", f);
	}
	fputs("</ul></li>\n", f);
}

static void html_table(FILE *f, const rp_bt_set *s, const char *const *ops, size_t nops)
{
	fputs("<table class=\"compare\">\n<thead><tr><th>measure</th>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		char key[3];
		key_of(i, key);
		fprintf(f, "<th><span class=\"key\" style=\"color:%s\">%s</span> ", colour(i), key);
		target_label(f, &s->targets[i], WHOLE);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n<tr><td>mount options</td>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		fputs("<td class=\"text\">", f);
		esc(f, s->targets[i].mount_options[0] ? s->targets[i].mount_options : "?", WHOLE);
		fputs("</td>", f);
	}
	fputs("</tr>\n<tr><td>runs</td>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		char runs[96];
		rp__bt_runs_text(runs, sizeof(runs), &s->targets[i]);
		fprintf(f, "<td>%s</td>", runs);
	}
	fputs("</tr>\n", f);
	struct {
		const char *label;
		rp_bt_metric m;
		const char *op;
	} rows[16 + 3 * RP_BT_OPS_MAX];
	size_t nr = 0;
#define ROW(M_, L_, K_) rows[nr].label = L_, rows[nr].m = M_, rows[nr].op = NULL, nr++;
	RP_BT_ROWS(ROW)
#undef ROW
	for (size_t n = 0; n < nops && n < RP_BT_OPS_MAX; n++)
		for (int q = 0; q < 3; q++) {
			rows[nr].label = q == 0 ? "p50 (ms)" : q == 1 ? "p99 (ms)" : "max (ms)";
			rows[nr].m = q == 0 ? RP_BT_OP_P50 : q == 1 ? RP_BT_OP_P99 : RP_BT_OP_MAX;
			rows[nr++].op = ops[n];
		}
	for (size_t r = 0; r < nr; r++) {
		rp_bt_spread sp[RP_BT_TARGETS_MAX];
		double best;
		const size_t have = rp__bt_row(s, rows[r].m, rows[r].op, sp, &best);
		if (!have)
			continue;
		fputs("<tr><td>", f);
		if (rows[r].op) {
			esc(f, rows[r].op, LABEL_BYTES);
			fputc(' ', f);
		}
		fprintf(f, "%s</td>", rows[r].label);
		for (size_t i = 0; i < s->ntargets; i++) {
			if (!sp[i].n) {
				fputs("<td>-</td>", f);
				continue;
			}
			char b1[32], b2[32], b3[32];
			num(b1, sizeof(b1), sp[i].median);
			num(b2, sizeof(b2), sp[i].min);
			num(b3, sizeof(b3), sp[i].max);
			const bool is_best = have > 1 && sp[i].median == best;
			fprintf(f, "<td%s>%s", is_best ? " class=\"best\"" : "", b1);
			if (sp[i].n > 1 && strcmp(b2, b3) != 0)
				fprintf(f, " <small>(%s..%s)</small>", b2, b3);
			if (is_best)
				fputs(" \xe2\x98\x85", f);
			else if (have > 1 && best > 0 && sp[i].median >= 0) {
				char rt[32];
				ratio(rt, sizeof(rt), sp[i].median / best);
				fprintf(f, " <small class=\"ratio\">%s</small>", rt);
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"note\">Median over the counted runs (not discarded, not failed), (min..max) when "
	      "they differ; latencies in ms, issue lag in \xc2\xb5s; errors: failures the trace did not record; \xe2\x98\x85 the best of a row; Nx a target's value over the best's (below 1: less throughput, above "
	      "1: more latency).</p>\n",
	      f);
}

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#111;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}h3{font-size:1em}"
	"table.compare{border-collapse:collapse;font-variant-numeric:tabular-nums}"
	"table.compare td,table.compare th{border:1px solid #ddd;padding:2px 8px;text-align:right;vertical-align:top}"
	"table.compare td:first-child,table.compare th:first-child,td.text{text-align:left}"
	"td.best{background:#e6f4ea;font-weight:bold}small{color:#555}.key{font-weight:bold}"
	"ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 18px}"
	"svg.chart{font-size:11px;display:block;max-width:100%;height:auto}"
	"svg .plot{fill:none;stroke:#888}svg .grid{stroke:#eee}svg .tick{fill:#444}svg .label{fill:#111;font-size:12px}"
	"svg .series{fill:none;stroke-width:2.5;stroke-linejoin:round;stroke-linecap:round}svg .series.run{stroke-width:1;opacity:.45}"
	"svg .warmup{fill:#f3f3f3}svg .end{font-weight:bold;font-size:12px}svg .whisker{stroke-width:2}"
	"figure.cdf{display:inline-block;margin:0 8px 8px 0}figcaption{font-weight:bold}"
	".note,.none,.inputs{color:#555}";

int rp__bt_html(const rp_bt_set *s, const char *const *inputs, size_t ninputs, FILE *f)
{
	size_t nops = 0;
	const char **const ops = rp__bt_op_names(s, &nops);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<title>reprise compare: %zu target%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		s->ntargets, s->ntargets == 1 ? "" : "s", style);
	fputs("<h1>reprise compare</h1>\n<p class=\"inputs\">From ", f);
	for (size_t i = 0; i < ninputs; i++) {
		fputs(i ? ", <code>" : "<code>", f);
		esc(f, inputs[i], WHOLE);
		fputs("</code>", f);
	}
	fputs(".</p>\n<h2 id=\"verdict\">Verdict</h2>\n<ul class=\"verdict\">\n", f);
	verdict_line(f, s, RP_BT_MB_S, "Throughput", "MB/s");
	verdict_line(f, s, RP_BT_OPS_S, "Operations", "ops/s");
	verdict_ops(f, s, ops, nops);
	fputs("</ul>\n<h2 id=\"table\">Side by side</h2>\n", f);
	html_table(f, s, ops, nops);
	fputs("<h2 id=\"time\">Over time</h2>\n", f);
	legend(f, s);
	over_time(f, s, true);
	over_time(f, s, false);
	fputs("<p class=\"note\">Bold: the median over the runs of each second; thin: each run. The letter at a line's "
	      "end names its target.</p>\n<h2 id=\"spread\">Spread over runs</h2>\n",
	      f);
	spread_chart(f, s, RP_BT_MB_S, "mb_per_sec", "MB/s");
	spread_chart(f, s, RP_BT_OPS_S, "ops_per_sec", "ops/s");
	fputs("<h2 id=\"cdf\">Latency CDF per op</h2>\n", f);
	legend(f, s);
	fputs("<p class=\"note\">From the runs' latency histograms merged per target: a curve further left is faster; "
	      "where it meets 99%, p99.</p>\n<div class=\"cdfs\">\n",
	      f);
	for (size_t n = 0; n < nops; n++)
		cdf_chart(f, s, ops[n]);
	fputs("</div>\n<h2 id=\"opmix\">Op mix</h2>\n", f);
	if (nops)
		opmix_chart(f, s, ops, nops);
	else
		fputs("<p class=\"none\">No ops in the inputs.</p>\n", f);
	fputs("</body>\n</html>\n", f);
	free(ops);
	return ferror(f) ? -1 : 0;
}
