/* The SVG charts of the compare report: throughput by trace progress, time to complete, spread, latency CDFs, where the time went. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab_htmlkit.h"

/* ---- axes ---- */

typedef struct frame {
	double x0, y0, w, h; /* the plot area inside the SVG, in px */
	double xmin, xmax, ymin, ymax; /* on a log axis, the decades' exponents */
	bool xlog, ylog;
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
	if (fr->ylog)
		y = log10(y > 0 ? y : pow(10, fr->ymin));
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
	const double ys = fr->ylog ? 1 : nice_step(fr->ymax - fr->ymin, 5);
	for (double e = fr->ymin; e <= fr->ymax + ys / 1e6; e += ys) {
		char b[32];
		const double y = fr->ylog ? pow(10, e) : e;
		if (ypercent)
			snprintf(b, sizeof(b), "%.0f%%", y * 100);
		else
			rp__bth_tick(b, sizeof(b), y);
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
			rp__bth_tick(b, sizeof(b), x);
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

static void svg_open(FILE *f, const char *chart, const char *extra, double w, double h, const char *title)
{
	fprintf(f, "<svg class=\"chart\" data-chart=\"%s\"%s xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>%s</title>\n",
		chart, extra, w, h, w, h, title);
}

/* ---- throughput over the trace ---- */

/* The progress bins of a fixed-work chart: each point is a fiftieth of the trace's ops. */
#define PROGRESS_BINS 50
/* Charts of timed runs have 640 px of time: past this many seconds, each point is the mean of several. */
#define POINTS_MAX 640
/* One target's top this many times another's: the y axis goes log, so the slow ones are not squashed flat. */
#define LOG_SPAN 10

/* Are all counted runs of s fixed work (through the trace once, no -t)?  Then runs line up by trace progress. */
static bool all_fixed(const rp_bt_set *s)
{
	bool any = false;
	for (size_t i = 0; i < s->ntargets; i++)
		for (size_t j = 0; j < s->targets[i].nruns; j++) {
			const rp_bt_run *const r = &s->targets[i].runs[j];
			if (!rp__bt_counted(r) || !r->nseries)
				continue;
			if (!r->fixed_work)
				return false;
			any = true;
		}
	return any;
}

/* The end of r's second k: k + 1, the last one at the run's measured end when it ended within it. */
static double sec_end(const rp_bt_run *r, size_t k)
{
	const double end = r->warmup_s + r->elapsed_s;
	if (k + 1 == r->nseries && end > (double)k && end < (double)k + 1)
		return end;
	return (double)k + 1;
}

/*
 * r's ops and bytes done by time t (linear within a second), and the time it
 * had done ops ops (the inverse): the curve every progress bin is cut from.
 */
static double time_at(const rp_bt_run *r, double ops)
{
	double cum = 0, t0 = 0;
	for (size_t k = 0; k < r->nseries; k++) {
		const double n = (double)r->series[k].ops, t1 = sec_end(r, k);
		if (cum + n >= ops && n > 0)
			return t0 + (t1 - t0) * (ops - cum) / n;
		cum += n;
		t0 = t1;
	}
	return t0;
}

static double bytes_at(const rp_bt_run *r, double t)
{
	double cum = 0, t0 = 0;
	for (size_t k = 0; k < r->nseries; k++) {
		const double t1 = sec_end(r, k), b = (double)r->series[k].bytes;
		if (t <= t1)
			return cum + (t1 > t0 ? b * (t - t0) / (t1 - t0) : b);
		cum += b;
		t0 = t1;
	}
	return cum;
}

static double run_ops(const rp_bt_run *r)
{
	double n = 0;
	for (size_t k = 0; k < r->nseries; k++)
		n += (double)r->series[k].ops;
	return n;
}

/* r's rate (MB/s or ops/s) while it did progress bin p of bins; false when it spent no time in it. */
static bool bin_rate(const rp_bt_run *r, size_t p, size_t bins, bool mb, double *out)
{
	const double total = run_ops(r);
	if (!(total > 0))
		return false;
	const double o0 = total * (double)p / (double)bins, o1 = total * (double)(p + 1) / (double)bins;
	const double t0 = time_at(r, o0), t1 = time_at(r, o1);
	if (!(t1 - t0 > 1e-9))
		return false;
	*out = mb ? (bytes_at(r, t1) - bytes_at(r, t0)) / 1e6 / (t1 - t0) : (o1 - o0) / (t1 - t0);
	return true;
}

/*
 * The seconds of r's series to draw (timed runs): the last one left out when
 * the run ended within it (less than a second of work would look like a drop
 * at the end), unless it is the only one.
 */
static size_t run_len(const rp_bt_run *r)
{
	if (r->nseries > 1 && r->warmup_s + r->elapsed_s < (double)r->nseries - 0.01)
		return r->nseries - 1;
	return r->nseries;
}

/* The mean of r's seconds [a, b) (within its run_len), false when it has none of them. */
static bool run_mean(const rp_bt_run *r, size_t a, size_t b, bool mb, double *out)
{
	const size_t len = run_len(r);
	b = b < len ? b : len;
	if (a >= b)
		return false;
	double sum = 0;
	for (size_t k = a; k < b; k++)
		sum += mb ? (double)r->series[k].bytes / 1e6 : (double)r->series[k].ops;
	*out = sum / (double)(b - a);
	return true;
}

/* Point p of run r: a progress bin (fixed work) or the mean of step seconds (timed). */
static bool point(const rp_bt_run *r, bool progress, size_t p, size_t step, bool mb, double *out)
{
	return progress ? bin_rate(r, p, PROGRESS_BINS, mb, out) : run_mean(r, p * step, (p + 1) * step, mb, out);
}

/* The median over the target's counted runs of their point p (false when no run has it). */
static bool point_median(const rp_bt_target *t, bool progress, size_t p, size_t step, bool mb, double *out)
{
	double v[RP_BT_RUNS_MAX];
	size_t n = 0;
	for (size_t i = 0; i < t->nruns; i++)
		if (rp__bt_counted(&t->runs[i]) && t->runs[i].nseries && point(&t->runs[i], progress, p, step, mb, &v[n]))
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

void rp__bth_over_time(FILE *f, const rp_bt_set *s, bool mb)
{
	const bool progress = all_fixed(s);
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
	fprintf(f, "<h3>%s %s</h3>\n", mb ? "Throughput (MB/s)" : "Operations per second",
		progress ? "through the trace" : "over time");
	if (len == 0) {
		fputs("<p class=\"none\">No per-second series in the inputs.</p>\n", f);
		return;
	}
	const size_t step = progress ? 1 : (len + POINTS_MAX - 1) / POINTS_MAX;
	const size_t npts = progress ? PROGRESS_BINS : (len + step - 1) / step;
	/* each target's top and lowest positive point: one far above another's puts the axis on a log scale */
	double top = 0, low = 0, v, tmin = 0, tmax = 0;
	for (size_t i = 0; i < s->ntargets; i++) {
		double ttop = 0;
		for (size_t j = 0; j < s->targets[i].nruns; j++)
			for (size_t p = 0; p < npts && rp__bt_counted(&s->targets[i].runs[j]); p++)
				if (s->targets[i].runs[j].nseries && point(&s->targets[i].runs[j], progress, p, step, mb, &v)) {
					ttop = v > ttop ? v : ttop;
					low = v > 0 && (low == 0 || v < low) ? v : low;
				}
		top = ttop > top ? ttop : top;
		if (ttop > 0) {
			tmin = tmin == 0 || ttop < tmin ? ttop : tmin;
			tmax = ttop > tmax ? ttop : tmax;
		}
	}
	const bool ylog = tmin > 0 && tmax / tmin > LOG_SPAN && low > 0;
	frame fr = { .x0 = 70, .y0 = 14, .w = 640, .h = 260, .xmin = 0, .xmax = progress ? 1 : (double)len,
		     .ymin = 0, .ymax = nice_top(top), .ylog = ylog };
	if (ylog) {
		fr.ymin = floor(log10(low));
		fr.ymax = ceil(log10(top));
		if (fr.ymax <= fr.ymin)
			fr.ymax = fr.ymin + 1;
	}
	char extra[64];
	snprintf(extra, sizeof(extra), " data-x=\"%s\" data-scale=\"%s\"", progress ? "progress" : "seconds",
		 ylog ? "log" : "linear");
	svg_open(f, mb ? "throughput" : "ops-over-time", extra, 820, 330,
		 mb ? "MB/s per target" : "ops/s per target");
	if (warm && !progress)
		fprintf(f, "<rect class=\"warmup\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">warm-up</text>\n",
			fr.x0, fr.y0, px(&fr, (double)warm) - fr.x0, fr.h, fr.x0 + 4, fr.y0 + 12);
	char xlabel[128], ylabel[48];
	if (progress)
		snprintf(xlabel, sizeof(xlabel), "share of the trace's ops done (each point a %dth of them)", PROGRESS_BINS);
	else if (step > 1)
		snprintf(xlabel, sizeof(xlabel), "seconds since the start of the run (each point the mean of %zu s)", step);
	else
		snprintf(xlabel, sizeof(xlabel), "seconds since the start of the run");
	snprintf(ylabel, sizeof(ylabel), "%s%s", what, ylog ? " (log scale)" : "");
	axes(f, &fr, xlabel, ylabel, false);
	for (size_t i = 0; i < s->ntargets; i++) {
		const rp_bt_target *const t = &s->targets[i];
		size_t kept = 0;
		for (size_t j = 0; j < t->nruns; j++)
			kept += rp__bt_counted(&t->runs[j]);
		/* every run thin, when there are several; their median per point bold */
		for (size_t j = 0; j < t->nruns && kept > 1; j++) {
			const rp_bt_run *const r = &t->runs[j];
			if (!rp__bt_counted(r) || run_len(r) == 0)
				continue;
			fprintf(f, "<path class=\"series run\" data-target=\"");
			rp__bth_esc(f, t->target, RP_BTH_WHOLE);
			fprintf(f, "\" data-series=\"run\" data-run=\"%u\" stroke=\"%s\" stroke-dasharray=\"%s\" d=\"", r->run,
				rp__bth_colour(i), rp__bth_dash(i));
			size_t drawn = 0;
			for (size_t p = 0; p < npts; p++) {
				if (!point(r, progress, p, step, mb, &v)) {
					if (progress)
						continue;
					break;
				}
				const double x = progress ? ((double)p + 0.5) / PROGRESS_BINS : ((double)p + 0.5) * (double)step;
				fprintf(f, "%c%.1f %.1f", drawn++ ? 'L' : 'M', px(&fr, x), py(&fr, v));
			}
			fputs("\"/>\n", f);
		}
		double lastx = 0, lasty = 0;
		size_t any = 0;
		fprintf(f, "<path class=\"series median\" data-target=\"");
		rp__bth_esc(f, t->target, RP_BTH_WHOLE);
		fprintf(f, "\" data-series=\"median\" stroke=\"%s\" stroke-dasharray=\"%s\" d=\"", rp__bth_colour(i),
			rp__bth_dash(i));
		for (size_t p = 0; p < npts; p++)
			if (point_median(t, progress, p, step, mb, &v)) {
				const double x = progress ? ((double)p + 0.5) / PROGRESS_BINS : ((double)p + 0.5) * (double)step;
				lastx = px(&fr, x);
				lasty = py(&fr, v);
				fprintf(f, "%c%.1f %.1f", any ? 'L' : 'M', lastx, lasty);
				any++;
			}
		if (any == 1)
			fputs("l0.1 0", f); /* one point only: a dot (round caps), not an invisible point */
		fputs("\"><title>", f);
		rp__bth_esc(f, t->target, RP_BTH_WHOLE);
		fputs("</title></path>\n", f);
		if (any) {
			char key[3];
			rp__bth_key(i, key);
			fprintf(f, "<text class=\"end\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", lastx + 6,
				lasty + 4 + (double)(i % 3) * 3, rp__bth_colour(i), key);
		}
	}
	fputs("</svg>\n", f);
}

/* ---- spread over runs, time to complete ---- */

void rp__bth_spread(FILE *f, const rp_bt_set *s, rp_bt_metric m, const char *key, const char *what)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	double top = 0, low = 0;
	const rp_bt_rank k = rp__bt_row(s, m, NULL, sp);
	if (!k.have)
		return;
	for (size_t i = 0; i < s->ntargets; i++) {
		top = sp[i].n && sp[i].max > top ? sp[i].max : top;
		low = sp[i].n && sp[i].min > 0 && (low == 0 || sp[i].min < low) ? sp[i].min : low;
	}
	/* one target's run far above another's (a fixed-work replay done in a blink on tmpfs): log scale */
	const bool xlog = low > 0 && top / low > LOG_SPAN;
	const double rowh = 28, h = 60 + rowh * (double)s->ntargets;
	frame fr = { .x0 = 300, .y0 = 10, .w = 420, .h = rowh * (double)s->ntargets, .xmin = 0,
		     .xmax = nice_top(top), .ymin = 0, .ymax = 1, .xlog = xlog };
	if (xlog) {
		fr.xmin = floor(log10(low));
		fr.xmax = ceil(log10(top));
	}
	char title[96], extra[96];
	snprintf(title, sizeof(title), "%s: min, median and max over the runs", what);
	snprintf(extra, sizeof(extra), " data-metric=\"%s\" data-scale=\"%s\"", key, xlog ? "log" : "linear");
	svg_open(f, m == RP_BT_ELAPSED_S ? "complete" : "spread", extra, 820, h, title);
	fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", fr.x0, fr.y0, fr.w, fr.h);
	const double xs = xlog ? 1 : nice_step(fr.xmax, 6);
	for (double e = fr.xmin; e <= fr.xmax + xs / 1e6; e += xs) {
		char b[32];
		const double x = xlog ? pow(10, e) : e;
		rp__bth_tick(b, sizeof(b), x);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			px(&fr, x), px(&fr, x), fr.y0, fr.y0 + fr.h, px(&fr, x), fr.y0 + fr.h + 14, b);
	}
	fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s%s (whiskers: min to max; bar: median)</text>\n",
		fr.x0 + fr.w / 2, fr.y0 + fr.h + 32, what, xlog ? ", log scale" : "");
	for (size_t i = 0; i < s->ntargets; i++) {
		const double y = fr.y0 + rowh * ((double)i + 0.5);
		char key2[3], b1[32], b2[32], b3[32], rt[56] = "";
		rp__bth_key(i, key2);
		fprintf(f, "<g class=\"spread\" data-target=\"");
		rp__bth_esc(f, s->targets[i].target, RP_BTH_WHOLE);
		fprintf(f, "\" data-metric=\"%s\" data-runs=\"%zu\" data-min=\"%g\" data-median=\"%g\" data-max=\"%g\">", key,
			sp[i].n, sp[i].min, sp[i].median, sp[i].max);
		fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"><tspan font-weight=\"bold\">%s</tspan> ",
			fr.x0 - 8, y + 4, key2);
		rp__bth_label_text(f, s, i);
		fputs("</text>", f);
		if (sp[i].n) {
			rp__bth_num(b1, sizeof(b1), sp[i].min);
			rp__bth_num(b2, sizeof(b2), sp[i].median);
			rp__bth_num(b3, sizeof(b3), sp[i].max);
			bool is_best;
			char mark[48];
			rp__bt_mark(mark, sizeof(mark), &k, sp, i, &is_best);
			if (is_best)
				snprintf(rt, sizeof(rt), " (best)");
			else if (mark[0])
				snprintf(rt, sizeof(rt), " %s", mark);
			fprintf(f, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
				px(&fr, sp[i].min), px(&fr, sp[i].max), y, y, rp__bth_colour(i));
			for (int e = 0; e < 2; e++) {
				const double x = px(&fr, e ? sp[i].max : sp[i].min);
				fprintf(f, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", x,
					x, y - 6, y + 6, rp__bth_colour(i));
			}
			if (m == RP_BT_ELAPSED_S) /* time to complete: a bar from 0 to the median */
				fprintf(f, "<rect class=\"bar complete\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\" opacity=\".35\"/>",
					fr.x0, y - 5, px(&fr, sp[i].median) - fr.x0, rp__bth_colour(i));
			fprintf(f, "<rect class=\"median\" x=\"%.1f\" y=\"%.1f\" width=\"4\" height=\"18\" fill=\"%s\"/>",
				px(&fr, sp[i].median) - 2, y - 9, rp__bth_colour(i));
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

void rp__bth_cdf(FILE *f, const rp_bt_set *s, const char *op)
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
		rp__bth_esc(f, op, RP_BTH_WHOLE);
		fputs("</figcaption>\n", f);
		svg_open(f, "cdf", "", 380, 240, "latency CDF");
		axes(f, &fr, "latency (log scale)", "ops at or under", true);
		for (size_t i = 0; i < s->ntargets; i++) {
			if (!h[i] || !hc[i])
				continue;
			fprintf(f, "<path class=\"series cdf\" data-target=\"");
			rp__bth_esc(f, s->targets[i].target, RP_BTH_WHOLE);
			fputs("\" data-op=\"", f);
			rp__bth_esc(f, op, RP_BTH_WHOLE);
			fprintf(f, "\" stroke=\"%s\" stroke-dasharray=\"%s\" d=\"M%.1f %.1f", rp__bth_colour(i), rp__bth_dash(i),
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
			rp__bth_esc(f, s->targets[i].target, RP_BTH_WHOLE);
			char key[3];
			rp__bth_key(i, key);
			/* the letter where the curve passes its median, staggered so two close curves' letters do not overlap */
			fprintf(f, "</title></path>\n<text class=\"end\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", mx + 4,
				my + 14 + 12 * (double)(i % 4), rp__bth_colour(i), key);
		}
		fputs("</svg></figure>\n", f);
	}
	for (size_t i = 0; i < s->ntargets; i++)
		free(h[i]);
}

/* ---- where the time went ---- */

/* The op's latency summed over t's counted runs (count x mean), in ms; every op but sleeps and process ops when op is NULL. */
static double op_time_ms(const rp_bt_target *t, const char *op)
{
	double ms = 0;
	for (size_t j = 0; j < t->nruns; j++)
		for (size_t k = 0; k < t->runs[j].nops && rp__bt_counted(&t->runs[j]); k++) {
			const rp_bt_op *const o = &t->runs[j].ops[k];
			if (op ? strcmp(o->name, op) == 0
			       : !rp__bt_process_op(o->name) && strcmp(o->name, "sleep") != 0)
				ms += (double)o->count * o->avg_us / 1e3;
		}
	return ms;
}

/*
 * Per op, a bar per target with the op's share of the time the target spent
 * in file-system ops: the same trace has the same op mix everywhere, where
 * the time goes is what differs.
 */
void rp__bth_timeshare(FILE *f, const rp_bt_set *s, const char *const *ops, size_t nops)
{
	double total[RP_BT_TARGETS_MAX];
	for (size_t i = 0; i < s->ntargets; i++)
		total[i] = op_time_ms(&s->targets[i], NULL);
	double top = 0;
	size_t shown = 0;
	for (size_t n = 0; n < nops; n++) {
		if (rp__bt_process_op(ops[n]) || strcmp(ops[n], "sleep") == 0)
			continue;
		shown++;
		for (size_t i = 0; i < s->ntargets; i++) {
			const double share = total[i] > 0 ? op_time_ms(&s->targets[i], ops[n]) / total[i] : 0;
			top = share > top ? share : top;
		}
	}
	if (!shown) {
		fputs("<p class=\"none\">No file-system ops in the inputs.</p>\n", f);
		return;
	}
	const double barh = 12, group = barh * (double)s->ntargets + 10, h = 50 + group * (double)shown;
	const frame fr = { .x0 = 160, .y0 = 6, .w = 560, .h = group * (double)shown, .xmin = 0,
			   .xmax = top > 0 ? fmin(1, ceil(top * 10) / 10) : 1, .ymin = 0, .ymax = 1 };
	svg_open(f, "timeshare", "", 820, h, "share of each target's time in file-system ops, per op");
	fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", fr.x0, fr.y0, fr.w, fr.h);
	for (int k = 0; k <= 10; k++) {
		const double x = fr.xmax * k / 10;
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f%%</text>\n",
			px(&fr, x), px(&fr, x), fr.y0, fr.y0 + fr.h, px(&fr, x), fr.y0 + fr.h + 14, x * 100);
	}
	fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">share of the target's time in "
		   "file-system ops (count \xc3\x97 mean latency)</text>\n",
		fr.x0 + fr.w / 2, fr.y0 + fr.h + 32);
	size_t g = 0;
	for (size_t n = 0; n < nops; n++) {
		if (rp__bt_process_op(ops[n]) || strcmp(ops[n], "sleep") == 0)
			continue;
		const double gy = fr.y0 + group * (double)g++ + 5;
		fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", fr.x0 - 8, gy + group / 2);
		rp__bth_esc(f, ops[n], 24);
		fputs("</text>\n", f);
		for (size_t i = 0; i < s->ntargets; i++) {
			const double ms = op_time_ms(&s->targets[i], ops[n]);
			const double share = total[i] > 0 ? ms / total[i] : 0;
			const double y = gy + barh * (double)i;
			char key[3], b[32];
			rp__bth_key(i, key);
			rp__bth_num(b, sizeof(b), ms);
			fprintf(f, "<rect class=\"bar timeshare\" data-target=\"");
			rp__bth_esc(f, s->targets[i].target, RP_BTH_WHOLE);
			fputs("\" data-op=\"", f);
			rp__bth_esc(f, ops[n], RP_BTH_WHOLE);
			fprintf(f, "\" data-share=\"%.6f\" data-ms=\"%.3f\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
				share, ms, fr.x0, y, px(&fr, share) - fr.x0, barh - 2, rp__bth_colour(i));
			fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s %.1f%% (%s ms)</text>\n", px(&fr, share) + 4,
				y + barh - 3, key, share * 100, b);
		}
	}
	fputs("</svg>\n", f);
}
