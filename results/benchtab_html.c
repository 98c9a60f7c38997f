/* The comparison as one self-contained HTML5 page with inline SVG charts (docs/compare.md, "The HTML report"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab_htmlkit.h"

/* ---- the provenance header ---- */

/* One line of the header when the value is known: <dt>what</dt><dd>value</dd>. */
static void fact(FILE *f, const char *what, const char *value, bool code)
{
	if (!value || !value[0])
		return;
	fprintf(f, "<dt>%s</dt><dd%s>", what, code ? " class=\"code\"" : "");
	rp__bth_esc(f, value, RP_BTH_WHOLE);
	fputs("</dd>\n", f);
}

/*
 * What was compared, from where: the workload (trace, sha256, ops, clients,
 * duration, timing), the command lines and options, host, kernel, reprise
 * version and date, each input's own when they differ.
 */
static void provenance(FILE *f, const rp_bt_set *s)
{
	fputs("<section id=\"provenance\" class=\"provenance\">\n<h2>What was compared</h2>\n", f);
	/* the workload from the first counted run: every input replayed this trace (compare refuses others) */
	const rp_bt_run *r0 = NULL;
	uint64_t ops_max = 0;
	uint32_t clients = 0;
	for (size_t i = 0; i < s->ntargets; i++)
		for (size_t j = 0; j < s->targets[i].nruns; j++) {
			const rp_bt_run *const r = &s->targets[i].runs[j];
			if (!rp__bt_counted(r))
				continue;
			r0 = r0 ? r0 : r;
			ops_max = r->total_ops > ops_max ? r->total_ops : ops_max;
			clients = r->clients > clients ? r->clients : clients;
		}
	const rp_bt_input *const in0 = s->ninputs ? &s->inputs[r0 ? r0->input : 0] : NULL;
	fputs("<dl class=\"workload\">\n", f);
	if (in0) {
		fact(f, "workload", in0->trace_path[0] ? in0->trace_path : "not recorded", true);
		fact(f, "sha256", in0->trace_sha256[0] ? in0->trace_sha256 : "not recorded", true);
	}
	if (r0) {
		char b[160];
		snprintf(b, sizeof(b), "%llu per run (at most)%s", (unsigned long long)ops_max,
			 r0->fixed_work ? ", the whole trace once" : ", for the time given");
		fact(f, "ops", b, false);
		if (clients) {
			snprintf(b, sizeof(b), "%u", clients);
			fact(f, "clients", b, false);
		}
		snprintf(b, sizeof(b), "%.3g s measured%s", r0->elapsed_s, r0->warmup_s > 0 ? " after a warm-up" : "");
		fact(f, "duration (first run)", b, false);
		fact(f, "timing", r0->timing, false);
	}
	fputs("</dl>\n<table class=\"inputs\"><thead><tr><th>input</th><th>command line</th><th>options</th><th>host</th>"
	      "<th>kernel</th><th>reprise</th><th>date</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < s->ninputs; i++) {
		const rp_bt_input *const in = &s->inputs[i];
		const char *const cells[] = { in->file, in->command_line, in->options, in->host, in->kernel, in->version,
					      in->start_time };
		fputs("<tr>", f);
		for (size_t k = 0; k < sizeof(cells) / sizeof(cells[0]); k++) {
			fputs(k < 3 ? "<td class=\"code\">" : "<td>", f);
			rp__bth_esc(f, cells[k][0] ? cells[k] : "?", RP_BTH_WHOLE);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"note\">Targets by short label; the full path is in each label's tooltip and in "
	      "the footnote under the table.</p>\n</section>\n",
	      f);
}

/* ---- the verdict, the table, the page ---- */

static void verdict_line(FILE *f, const rp_bt_set *s, rp_bt_metric m, const char *what, const char *unit)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	const rp_bt_rank k = rp__bt_row(s, m, NULL, sp);
	if (!k.have || isnan(k.best))
		return;
	const size_t w = k.best_i;
	char b[32];
	rp__bth_num(b, sizeof(b), k.best);
	fprintf(f, "<li data-metric=\"%s\" data-why=\"%s\">%s: ", what, k.why == RP_BT_WIN ? "win" : rp__bt_why_text(k.why),
		what);
	if (k.why == RP_BT_WIN) {
		fputs("<b class=\"winner\">", f);
		rp__bth_label(f, s, w);
		fprintf(f, "</b> is best with %s %s (median)", b, unit);
	} else if (k.have > 1) {
		fprintf(f, "no winner (%s); the best median is ", rp__bt_why_text(k.why));
		rp__bth_label(f, s, w);
		fprintf(f, "'s %s %s", b, unit);
	} else {
		rp__bth_label(f, s, w);
		fprintf(f, ": %s %s (median)", b, unit);
	}
	for (size_t i = 0; i < s->ntargets; i++) {
		if (i == w || !sp[i].n)
			continue;
		bool is_best;
		char mark[48];
		rp__bth_num(b, sizeof(b), sp[i].median);
		rp__bt_mark(mark, sizeof(mark), &k, sp, i, &is_best);
		fputs("; ", f);
		rp__bth_label(f, s, i);
		fprintf(f, " %s%s%s%s", mark, mark[0] ? " (" : "", b, mark[0] ? ")" : "");
	}
	fputs("</li>\n", f);
}

/* Per op, who has the lowest p99 by the verdict rules: the "where" of the verdict; process ops apart. */
static void verdict_ops(FILE *f, const rp_bt_set *s, const char *const *ops, size_t nops, bool proc)
{
	if (s->ntargets < 2 || nops == 0)
		return;
	size_t ties = 0, wins = 0;
	fprintf(f, "<li>Lowest p99 latency per %s:<ul>\n", proc ? "process op (a program's life, not the file system's)" : "file-system op");
	for (size_t i = 0; i < s->ntargets; i++) {
		bool first = true;
		rp_bt_spread sp[RP_BT_TARGETS_MAX];
		for (size_t n = 0; n < nops; n++) {
			if (rp__bt_process_op(ops[n]) != proc)
				continue;
			const rp_bt_rank k = rp__bt_row(s, RP_BT_OP_P99, ops[n], sp);
			if (k.have < 2)
				continue;
			if (k.why != RP_BT_WIN) {
				ties += i == 0;
				continue;
			}
			if (k.best_i != i)
				continue;
			wins++;
			/* by how much: against the next best target */
			double second = -1;
			for (size_t j = 0; j < s->ntargets; j++)
				if (j != i && sp[j].n && (second < 0 || sp[j].median < second))
					second = sp[j].median;
			if (first) {
				fputs("<li><b>", f);
				rp__bth_label(f, s, i);
				fputs("</b>: ", f);
			} else
				fputs(", ", f);
			rp__bth_esc(f, ops[n], RP_BTH_LABEL_BYTES);
			char r[32];
			if (!k.absolute) {
				rp__bth_ratio(r, sizeof(r), second / k.best);
				fprintf(f, " (%s lower)", r);
			} else {
				rp__bth_num(r, sizeof(r), second - k.best);
				fprintf(f, " (%s ms lower)", r);
			}
			first = false;
		}
		if (!first)
			fputs("</li>\n", f);
	}
	if (ties) {
		fprintf(f, "<li class=\"ties\">%zu op%s without a winner: ", ties, ties == 1 ? "" : "s");
		bool first = true;
		for (size_t n = 0; n < nops; n++) {
			rp_bt_spread sp[RP_BT_TARGETS_MAX];
			if (rp__bt_process_op(ops[n]) != proc)
				continue;
			const rp_bt_rank k = rp__bt_row(s, RP_BT_OP_P99, ops[n], sp);
			if (k.have < 2 || k.why == RP_BT_WIN)
				continue;
			fputs(first ? "" : ", ", f);
			rp__bth_esc(f, ops[n], RP_BTH_LABEL_BYTES);
			fprintf(f, " (%s)", rp__bt_why_text(k.why));
			first = false;
		}
		fputs("</li>\n", f);
	} else if (!wins)
		fputs("<li>none</li>\n", f);
	fputs("</ul></li>\n", f);
}

typedef struct row {
	const char *label;
	rp_bt_metric m;
	const char *op;
} row;

static void table_row(FILE *f, const rp_bt_set *s, const row *rw)
{
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	const rp_bt_rank k = rp__bt_row(s, rw->m, rw->op, sp);
	if (!k.have)
		return;
	const bool say = k.have > 1 && k.why != RP_BT_WIN && k.why != RP_BT_UNRANKED && k.why != RP_BT_ALONE;
	fprintf(f, "<tr data-why=\"%s\"><td>", k.why == RP_BT_WIN ? "win" : rp__bt_why_text(k.why));
	if (rw->op) {
		rp__bth_esc(f, rw->op, RP_BTH_LABEL_BYTES);
		fputc(' ', f);
	}
	fputs(rw->label, f);
	if (say)
		fprintf(f, " <small class=\"why\">(%s)</small>", rp__bt_why_text(k.why));
	fputs("</td>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		if (!sp[i].n) {
			fputs("<td>-</td>", f);
			continue;
		}
		char b1[32], b2[32], b3[32], mark[48];
		bool is_best;
		rp__bth_num(b1, sizeof(b1), sp[i].median);
		rp__bth_num(b2, sizeof(b2), sp[i].min);
		rp__bth_num(b3, sizeof(b3), sp[i].max);
		rp__bt_mark(mark, sizeof(mark), &k, sp, i, &is_best);
		fprintf(f, "<td%s>%s", is_best ? " class=\"best\"" : "", b1);
		if (sp[i].n > 1 && strcmp(b2, b3) != 0)
			fprintf(f, " <small>(%s..%s)</small>", b2, b3);
		if (is_best)
			fputs(" \xe2\x98\x85", f);
		else if (mark[0])
			fprintf(f, " <small class=\"%s\">%s</small>", k.absolute ? "diff" : "ratio", mark);
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

static void html_table(FILE *f, const rp_bt_set *s, const char *const *ops, size_t nops)
{
	fputs("<table class=\"compare\">\n<thead><tr><th>measure</th>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		char key[3];
		rp__bth_key(i, key);
		fprintf(f, "<th><span class=\"key\" style=\"color:%s\">%s</span> ", rp__bth_colour(i), key);
		rp__bth_label(f, s, i);
		fprintf(f, "<sup>%zu</sup></th>", i + 1);
	}
	fputs("</tr></thead>\n<tbody>\n<tr><td>file system</td>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		fputs("<td class=\"text\">", f);
		rp__bth_esc(f, s->targets[i].fs_type[0] ? s->targets[i].fs_type : "?", RP_BTH_WHOLE);
		fputs("</td>", f);
	}
	fputs("</tr>\n<tr><td>mount options</td>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		fputs("<td class=\"text\">", f);
		rp__bth_esc(f, s->targets[i].mount_options[0] ? s->targets[i].mount_options : "?", RP_BTH_WHOLE);
		fputs("</td>", f);
	}
	fputs("</tr>\n<tr><td>runs</td>", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		char runs[96];
		size_t out;
		rp__bt_runs_text(runs, sizeof(runs), &s->targets[i]);
		const double spr = rp__bt_run_spread(&s->targets[i], s->spread_limit, &out);
		if (spr > s->spread_limit)
			fprintf(f, "<td class=\"disagree\" data-spread=\"%.3f\">%s <b class=\"flag\">! %.1fx</b></td>", spr, runs, spr);
		else
			fprintf(f, "<td>%s</td>", runs);
	}
	fputs("</tr>\n", f);
#define ROW(M_, L_, K_) { L_, M_, NULL },
	static const row rows[] = { RP_BT_ROWS(ROW) };
#undef ROW
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		table_row(f, s, &rows[r]);
	for (int proc = 0; proc < 2; proc++) {
		bool head = false;
		for (size_t n = 0; n < nops; n++) {
			if (rp__bt_process_op(ops[n]) != (proc == 1))
				continue;
			if (proc && !head) {
				fprintf(f, "<tr class=\"section\"><th colspan=\"%zu\">process ops: a program's life (a parent "
					   "waiting for its child), not file-system latency, and not in \"all\"</th></tr>\n",
					s->ntargets + 1);
				head = true;
			}
			for (int q = 0; q < 3; q++) {
				const row rw = { q == 0 ? "p50 (ms)" : q == 1 ? "p99 (ms)" : "max (ms)",
						 q == 0 ? RP_BT_OP_P50 : q == 1 ? RP_BT_OP_P99 : RP_BT_OP_MAX, ops[n] };
				table_row(f, s, &rw);
			}
		}
	}
	fprintf(f, "</tbody></table>\n<p class=\"note\">Median over the counted runs (not discarded, not failed), (min..max) "
		   "when they differ; latencies in ms, issue lag in \xc2\xb5s; all: every op but sleeps and process ops; errors: "
		   "failures the trace did not record. \xe2\x98\x85 the best of a row, only when it wins: no star where the "
		   "medians are equal, a target measured fewer than %d ops, the best is within the runs' spread or 5%% of "
		   "the next, or (MB/s, ops/s) --timing trace or think set the pace. Nx a target's value over the best's "
		   "(below 1: less throughput, above 1: more latency); +N its difference when the best is about 0.</p>\n",
		RP_BT_MIN_OPS);
	fputs("<ol class=\"targets\">\n", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		fprintf(f, "<li id=\"target-%zu\">", i + 1);
		rp__bth_label_text(f, s, i);
		fputs(": <code>", f);
		rp__bth_esc(f, s->targets[i].target[0] ? s->targets[i].target : "?", RP_BTH_WHOLE);
		fputs("</code></li>\n", f);
	}
	fputs("</ol>\n<ul class=\"notes\">\n", f);
	rp__bt_notes(s, f, true);
	fputs("</ul>\n", f);
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
	".note,.none{color:#555}.flag{color:#b00}td.disagree{background:#fdecea}"
	"dl.workload{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dt{font-weight:bold}dd{margin:0}"
	".code{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}"
	"table.inputs{border-collapse:collapse;font-size:12px}table.inputs td,table.inputs th{border:1px solid #ddd;"
	"padding:2px 6px;text-align:left;vertical-align:top}tr.section th{text-align:left;background:#f4f4f4}"
	".tlabel{text-decoration:underline dotted}";

int rp__bt_html(const rp_bt_set *s, const char *const *inputs, size_t ninputs, FILE *f)
{
	(void)inputs; /* s->inputs has them, with their provenance */
	(void)ninputs;
	size_t nops = 0;
	const char **const ops = rp__bt_op_names(s, &nops);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<title>reprise compare: %zu target%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		s->ntargets, s->ntargets == 1 ? "" : "s", style);
	fputs("<h1>reprise compare</h1>\n", f);
	provenance(f, s);
	fputs("<h2 id=\"verdict\">Verdict</h2>\n<ul class=\"verdict\">\n", f);
	verdict_line(f, s, RP_BT_MB_S, "Throughput", "MB/s");
	verdict_line(f, s, RP_BT_OPS_S, "Operations", "ops/s");
	verdict_line(f, s, RP_BT_ELAPSED_S, "Time to complete", "s");
	verdict_line(f, s, RP_BT_LAG_P99, "Issue lag p99", "\xc2\xb5s");
	verdict_line(f, s, RP_BT_ALL_P99, "Latency p99 (all file-system ops)", "ms");
	verdict_ops(f, s, ops, nops, false);
	bool procs = false;
	for (size_t n = 0; n < nops; n++)
		procs |= rp__bt_process_op(ops[n]);
	if (procs)
		verdict_ops(f, s, ops, nops, true);
	fputs("</ul>\n<h2 id=\"table\">Side by side</h2>\n", f);
	html_table(f, s, ops, nops);
	fputs("<h2 id=\"time\">Through the run</h2>\n", f);
	rp__bth_legend(f, s);
	rp__bth_over_time(f, s, true);
	rp__bth_over_time(f, s, false);
	fputs("<p class=\"note\">Bold: the median over the runs of each point; thin: each run. Runs that went through the "
	      "whole trace line up by the share of its ops done (so the same phase of every run is compared), timed runs "
	      "by seconds. A log scale when one target's top is more than 10\xc3\x97 another's. The letter at a line's "
	      "end names its target.</p>\n<h2 id=\"spread\">Spread over runs</h2>\n",
	      f);
	rp__bth_spread(f, s, RP_BT_ELAPSED_S, "time_to_complete_s", "time to complete (s)");
	rp__bth_spread(f, s, RP_BT_MB_S, "mb_per_sec", "MB/s");
	rp__bth_spread(f, s, RP_BT_OPS_S, "ops_per_sec", "ops/s");
	fputs("<h2 id=\"cdf\">Latency CDF per op</h2>\n", f);
	rp__bth_legend(f, s);
	fputs("<p class=\"note\">From the runs' latency histograms merged per target: a curve further left is faster; "
	      "where it meets 99%, p99.</p>\n<div class=\"cdfs\">\n",
	      f);
	for (size_t n = 0; n < nops; n++)
		rp__bth_cdf(f, s, ops[n]);
	fputs("</div>\n<h2 id=\"timeshare\">Where the time went</h2>\n", f);
	if (nops)
		rp__bth_timeshare(f, s, ops, nops);
	else
		fputs("<p class=\"none\">No ops in the inputs.</p>\n", f);
	fputs("</body>\n</html>\n", f);
	free(ops);
	return ferror(f) ? -1 : 0;
}
