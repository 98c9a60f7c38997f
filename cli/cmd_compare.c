/* reprise compare FILE...: saved bench or replay results side by side, as a table, JSON or an HTML report (docs/compare.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab.h"
#include "cli/commands.h"
#include "cli/output.h"

static struct {
	const char *html, *output;
	bool json;
	double spread_limit;
} o;

static const rp_opt options[] = {
	{ .name = "html", .kind = RP_OPT_STRING, .value = &o.html, .arg = "FILE",
	  .help = "also write a self-contained HTML report with SVG charts to FILE (no network fetches, no scripts; "
	  "- = stdout: the page alone, the table on stderr)" },
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.output, .arg = "FILE", .help = "write the table (or --json) to FILE instead of standard output" },
	{ .name = "json", .kind = RP_OPT_FLAG, .value = &o.json,
	  .help = "print the comparison as JSON (schema reprise-compare/1 in docs/compare.md) instead of the table" },
	{ .name = "spread-limit", .kind = RP_OPT_DOUBLE, .value = &o.spread_limit, .arg = "X",
	  .help = "flag a target whose runs' MB/s max/min is above X (default 1.5) as runs that disagree, and say how "
	  "many runs a stable median needs (1.01 to 1000)", .min = 1.01, .max = 1000 },
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "compare",
	.usage = "[options] FILE...",
	.summary = "saved bench or replay results side by side: table, JSON, HTML report with charts",
	.details = "Each FILE is what `reprise bench --json` or `reprise replay --json` wrote (- is standard input).\n"
		   "A replay file is one run of the target its provenance names; runs of the same target (the\n"
		   "same target string and file-system type) from several files are pooled.  The table has a\n"
		   "column per target and a row per measure: MB/s, ops/s, issue lag, latency of all ops, errors\n"
		   "(failures the trace did not record), mismatches, the flush at end and dirty data when bench\n"
		   "measured them, and each op's p50/p99/max latency; each cell is the median over the counted\n"
		   "runs (not discarded, not failed) with min..max, the best of a row marked * and every other\n"
		   "target's ratio to it (its difference when the best is about 0).  A best is marked only when it\n"
		   "wins: not within the runs' spread or 5% of the next, every target measured 100 ops or more,\n"
		   "and (MB/s, ops/s) not paced by --timing trace or think.  Process ops (fork, wait) have their\n"
		   "own rows and are not in \"all\".\n"
		   "\n"
		   "Every input must have replayed the same trace (the SHA-256 the files record): files of\n"
		   "different traces are refused (exit 2), naming both; compare them in reports of their own.\n"
		   "\n"
		   "--html writes one page with the table and SVG charts: throughput over time per target,\n"
		   "the latency CDF of each op type, where the time went per op, and the spread over runs, under\n"
		   "a header saying what was compared (workload, command lines, host, kernel, version, date).\n"
		   "A malformed file is an error naming the file and the field (exit 1).",
	.opts = options,
	.min_args = 1,
	.max_args = -1,
};

/* The whole of a file (or standard input) into memory, up to RP_BT_FILE_MAX bytes.  0, or 1 after printing why. */
static int slurp(const char *name, char **buf, size_t *len)
{
	FILE *const f = strcmp(name, "-") == 0 ? stdin : fopen(name, "rb");
	if (!f) {
		rp__cli_err("compare", "%s: %s", name, strerror(errno));
		return 1;
	}
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	int rc = 1;
	while (b) {
		if (n == cap) {
			if (cap > RP_BT_FILE_MAX) {
				rp__cli_err("compare", "%s: larger than %u MiB, the limit of one input", name, RP_BT_FILE_MAX >> 20);
				goto fail;
			}
			/* one byte past the limit is enough to know the file is over it */
			const size_t ncap = cap * 2 > (size_t)RP_BT_FILE_MAX + 1 ? (size_t)RP_BT_FILE_MAX + 1 : cap * 2;
			char *const nb = realloc(b, ncap);
			if (!nb)
				break;
			b = nb;
			cap = ncap;
		}
		const size_t got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				rp__cli_err("compare", "%s: %s", name, strerror(errno));
				goto fail;
			}
			rc = 0;
			break;
		}
	}
	if (!b)
		rp__cli_err("compare", "%s: out of memory", name);
fail:
	if (f != stdin)
		fclose(f);
	if (rc) {
		free(b);
		return 1;
	}
	*buf = b;
	*len = n;
	return 0;
}

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	o.spread_limit = RP_BT_SPREAD_LIMIT;
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	const bool html_stdout = o.html && strcmp(o.html, "-") == 0;
	if (html_stdout && o.output && strcmp(o.output, "-") == 0) {
		rp__cli_err("compare", "--html - and -o - would both write to standard output");
		return 2;
	}
	for (int i = 0; i < npos; i++)
		for (int k = 0; k < 2; k++) {
			const char *const out = k ? o.html : o.output;
			const int same = out ? rp__cli_out_check("compare", out, pos[i]) : 0;
			if (same)
				return same;
		}
	rp_bt_set *const set = rp__bt_set_create();
	if (!set) {
		rp__cli_err("compare", "out of memory");
		return 1;
	}
	set->spread_limit = o.spread_limit;
	int rc = 0;
	char err[1024];
	for (int i = 0; i < npos && rc == 0; i++) {
		char *buf = NULL;
		size_t len = 0;
		rc = slurp(pos[i], &buf, &len);
		if (rc == 0 && rp__bt_load_buffer(set, pos[i], buf, len, err, sizeof(err))) {
			rp__cli_err("compare", "%s", err);
			rc = 1;
		}
		free(buf);
	}
	/* runs of two workloads pooled per target would rank one trace against another: a usage error */
	if (rc == 0 && rp__bt_traces_check(set, err, sizeof(err))) {
		rp__cli_err("compare", "%s", err);
		rp__bt_set_destroy(set);
		return 2;
	}
	rp_outfile of = { .f = NULL }, hf = { .f = NULL };
	if (rc == 0 && o.output && rp__cli_out_open(&of, "compare", o.output))
		rc = 1;
	if (rc == 0 && o.html && rp__cli_out_open(&hf, "compare", o.html))
		rc = 1;
	/* with the page on stdout, the table goes to stderr (as replay --json - does with its table) */
	FILE *const out = o.output ? of.f : html_stdout ? stderr : stdout;
	if (rc == 0 && (o.json ? rp__bt_json(set, (const char *const *)pos, (size_t)npos, out)
			       : rp__bt_print(set, out))) {
		rp__cli_err("compare", "%s: %s", o.output ? o.output : "standard output", strerror(errno));
		rc = 1;
	}
	if (rc == 0 && o.html && rp__bt_html(set, (const char *const *)pos, (size_t)npos, hf.f)) {
		rp__cli_err("compare", "%s: %s", o.html, strerror(errno));
		rc = 1;
	}
	if (of.f)
		rc = rc == 0 ? rp__cli_out_commit(&of, "compare") : (rp_outfile_abort(&of), rc);
	if (hf.f)
		rc = rc == 0 ? rp__cli_out_commit(&hf, "compare") : (rp_outfile_abort(&hf), rc);
	rp__bt_set_destroy(set);
	return rc;
}

const rp_command rp__cmd_compare = { &spec, run };
