/* reprise stat TRACE: what a trace holds — provenance, decode quality, ops, clients, op mix, latency, bytes, sizes;
 * --diff A B: two of those side by side (cli/stat_diff.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/input.h"
#include "cli/output.h"
#include "results/stat_json.h"
#include "results/stat_diff.h"
#include "results/stat_sink.h"

static struct {
	bool json, lenient, verbose, diff, check, check_core;
	const char *output, *ops, *csv;
	double from, until, timeline, threshold;
} o;

static const rp_opt options[] = {
	{ .name = "json", .kind = RP_OPT_FLAG, .value = &o.json, .help = "print JSON (schema in docs/stat-json.md)" },
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.output, .arg = "FILE", .help = "write to FILE (renamed into place when complete) instead of standard output" },
	{ .name = "lenient", .kind = RP_OPT_FLAG, .value = &o.lenient, .help = "loadfile, text, strace or CSV input: skip bad lines, count and report them" },
	RP_CLI_CSV_OPT(&o.csv),
	{ .name = "verbose", .short_name = 'v', .kind = RP_OPT_FLAG, .value = &o.verbose, .help = "say how TRACE is read (which format; a stream spooled to TMPDIR)" },
	{ .name = "timeline", .kind = RP_OPT_DURATION, .value = &o.timeline, .arg = "STEP",
	  .help = "add the ops, bytes and op mix of every STEP of the trace's time (1s, 100ms): its phases", .min = 1e-6, .max = 1e9 },
	RP_CLI_WINDOW_OPTS(&o.from, &o.until),
	{ .name = "diff", .kind = RP_OPT_FLAG, .value = &o.diff, .help = "compare two inputs, A and B: both summaries side by side, differences marked (*)" },
	{ .name = "ops", .kind = RP_OPT_STRING, .value = &o.ops, .arg = "LIST",
	  .help = "--diff: compare only these op kinds (read,write,unlink,rename,mkdir,rmdir): their rows, failures, latency, shares of their sum" },
	{ .name = "diff-threshold", .kind = RP_OPT_DOUBLE, .value = &o.threshold, .arg = "PCT",
	  .help = "--diff: an op kind's share differs when A's and B's are more than PCT points apart (0-100, default 1)", .min = 0, .max = 100 },
	{ .name = "check", .kind = RP_OPT_FLAG, .value = &o.check, .help = "--diff: exit 1 when the op mix differs (after the report)" },
	{ .name = "check-core", .kind = RP_OPT_FLAG, .value = &o.check_core,
	  .help = "--diff: exit 1 when the core ops or each file's order of them differ (after the report): the closed "
	  "loop's verdict, which holds across protocols" },
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "stat",
	.usage = "[options] TRACE | --diff [options] A B",
	.summary = "summarise a trace: provenance, decode quality, op mix, clients, recorded latency, bytes, I/O sizes; --diff: two",
	.details = "TRACE may be an .rpz trace, cat's text form, a dbench loadfile, an strace log, nfsdump text\n"
		   "(plain or gzip'd), or a packet capture decoded on the fly; - is standard input.\n"
		   "It shows the input, host and start time when the trace knows them; for a packet capture the\n"
		   "decode's counters (frames, messages, truncated, invalid, unsupported, unmatched, encrypted,\n"
		   "gaps).  \"files\" counts the distinct paths the ops name; \"failed\" counts ops whose recorded\n"
		   "status is an error.  The recorded latency is each op's reply time minus its call time (service\n"
		   "response time, as tshark -z smb2,srt) per op type: replies, min, avg, max and p99 in ms.  Clients\n"
		   "are named as `reprise cat` names them (cN); read and write sizes are the requested lengths in\n"
		   "power-of-two buckets.  --from and --until summarise a part of the trace (a phase found with\n"
		   "--timeline); times are seconds since the trace began, as `reprise cat` prints them.  \"arrivals\" are\n"
		   "the gaps between successive op starts (sleeps excluded): p50, p99, max and mean.\n"
		   "\n"
		   "--diff A B reads two inputs (each any of the above) and prints A, B, B-A and the change in % for\n"
		   "the totals, the op counts with each kind's share of the ops, failures, recorded latency per op\n"
		   "(replies, avg, p99, max), the inter-arrival gaps of the whole trace and of each client (paired\n"
		   "in id order), and the read and write size buckets; * marks a row whose A and B differ (in the\n"
		   "op table: whose share differs by more than --diff-threshold points).  The last line is the op\n"
		   "mix verdict, \"op mix: same\" or \"op mix: differs\" naming the kinds; the shares are of every op\n"
		   "kind but sleep, or with --ops of the kinds listed, so a replay's capture, which holds the\n"
		   "lookups and opens its client library adds, can be compared on the ops that matter (totals,\n"
		   "inter-arrival and sizes are the whole inputs').  With --check the exit status is 1 when the mix\n"
		   "differs.\n"
		   "\n"
		   "The closed loop (B as a replay of A: a capture of the replay) follows the table: B's requests per\n"
		   "recorded one, per op kind; the core ops that succeeded, whatever the protocol called them\n"
		   "(creates, mkdirs with SMB's directory creates, deletes with delete-on-close, renames, truncates,\n"
		   "bytes read and written), each marked when B is more than --diff-threshold percent from A; each\n"
		   "file's core ops in order (a run of reads or of writes one step), compared file by file after\n"
		   "aligning the paths (up to 6 leading components stripped from either side: a replay's target); the\n"
		   "mean in flight (the ops' summed durations over the span), the span and the Kolmogorov-Smirnov\n"
		   "distance of the gaps between op starts.  Its verdict, \"core ops: same\" or \"core ops: differ\",\n"
		   "holds across protocols; --check-core makes it the exit status (docs/stat-json.md).  A cut input (a pcap ending mid-packet, an unfinished\n"
		   ".rpz) is an error: a part compared with a whole would mislead.  --from and --until apply to both.",
	.opts = options,
	.min_args = 1,
	.max_args = 2,
};

/* One input summarised: the summary, the plan, the metadata (--diff has two). */
typedef struct stat_input {
	rp_stat_sink s;
} stat_input;

static void input_free(stat_input *in)
{
	rp_stat_sink_fini(&in->s);
}

/* Read arg into in (which input_free releases whatever happened): 0, or an exit status after printing why. */
static int read_input(const char *arg, stat_input *in, const rp_input_opts *base)
{
	if (rp_stat_sink_init(&in->s, o.timeline > 0 ? (uint64_t)(o.timeline * 1e9 + 0.5) : 0) < 0 ||
	    (o.diff && rp_stat_sink_fidelity(&in->s) < 0)) {
		fprintf(stderr, "reprise stat: out of memory\n");
		return 1;
	}
	rp_capture_stats cst;
	bool pcap = false, cut = false;
	rp_input_opts io = *base;
	io.capture_stats = &cst;
	io.capture_seen = &pcap;
	if (o.diff)
		io.cut = &cut;
	int rc = rp__cli_pump(arg, &in->s.base, &io);
	if (in->s.timeline_full) /* the library says what failed; the option to change is the command's to name */
		rp__cli_err("stat", "--timeline %g: use a longer step (a timeline holds %d)", o.timeline, RP_TIMELINE_MAX);
	if (rc == 0 && cut) {
		rp__cli_err("stat", "%s: the input was cut: comparing a part of a trace with another would mislead", arg);
		rc = 1;
	}
	if (rc == 0 && pcap) {
		const rp_summary_decode d = { .frames = cst.frames, .messages = cst.messages, .truncated = cst.truncated,
					      .invalid = cst.invalid, .unsupported = cst.unsupported,
					      .unmatched = cst.unmatched, .encrypted = cst.encrypted, .gaps = cst.gaps };
		rp_summary_set_decode(in->s.sum, &d);
	}
	char eb[RP_ERRBUF_SIZE];
	if (rc == 0 && rp_stat_sink_plan(&in->s, eb) < 0) {
		rp__cli_err("stat", "%s", eb);
		rc = 1;
	}
	return rc;
}

/* --diff's options make sense with --diff only, and --timeline only without: 0, or 2 after saying why. */
static int check_usage(int npos, rp_stat_diff_opts *d)
{
	const char *const alone = !o.diff ? (o.ops ? "--ops" : o.check ? "--check" : o.check_core ? "--check-core"
					     : o.threshold >= 0 ? "--diff-threshold" : NULL)
					  : NULL;
	if (alone) {
		rp__cli_err("stat", "%s compares two inputs: it needs --diff A B", alone);
		return 2;
	}
	if (o.diff && o.timeline > 0) {
		rp__cli_err("stat", "--timeline summarises one input: it does not go with --diff");
		return 2;
	}
	if (npos != (o.diff ? 2 : 1)) {
		fprintf(stderr, "usage: reprise stat %s\n(see reprise stat --help)\n", spec.usage);
		return 2;
	}
	memset(d, 0, sizeof(*d));
	d->threshold = o.threshold >= 0 ? o.threshold : RP_STAT_DIFF_THRESHOLD;
	char eb[256];
	if (o.ops && rp__res_stat_diff_ops(o.ops, d, eb, sizeof(eb)) < 0) {
		rp__cli_err("stat", "%s", eb);
		return 2;
	}
	return 0;
}

/* A JSON writer's return as the command's: 0, or 1 after printing why. */
static int stat_json_said(int rc, const char *why)
{
	if (rc == 0)
		return 0;
	rp__cli_err("stat", "%s", why);
	return 1;
}

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	o.threshold = -1; /* not given */
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	rp_stat_diff_opts dopts;
	int rc = check_usage(npos, &dopts);
	if (rc)
		return rc;
	if (o.diff && !strcmp(pos[0], "-") && !strcmp(pos[1], "-")) {
		rp__cli_err("stat", "--diff - -: standard input can be read once, so only one of A and B can be -");
		return 2;
	}
	rp_input_opts io = { .csv = o.csv, .lenient = o.lenient, .quiet = o.json, .verbose = o.verbose, .cmd = "stat" };
	rc = rp__cli_window("stat", o.from, o.until, &io);
	if (rc)
		return rc;
	stat_input in[2];
	memset(in, 0, sizeof(in));
	const int n = o.diff ? 2 : 1;
	for (int i = 0; i < n && rc == 0; i++)
		rc = read_input(pos[i], &in[i], &io);
	rp_outfile of = { .f = NULL };
	for (int i = 0; i < n && rc == 0 && o.output; i++)
		rc = rp__cli_out_check("stat", o.output, pos[i]); /* 2: OUT is an input */
	if (rc == 0 && o.output && rp__cli_out_open(&of, "stat", o.output))
		rc = 1;
	FILE *const out = o.output ? of.f : stdout;
	bool differ = false;
	char eb[128];
	if (rc == 0 && o.diff) {
		const rp_stat_side a = { pos[0], in[0].s.sum, &in[0].s.meta, &in[0].s.plan, in[0].s.fid };
		const rp_stat_side b = { pos[1], in[1].s.sum, &in[1].s.meta, &in[1].s.plan, in[1].s.fid };
		rp_stat_mix m;
		rp__res_stat_mix(&a, &b, &dopts, &m);
		differ = o.check && m.n_differ > 0;
		/* The report compares the sides itself; here only for --check-core's verdict (a pass over every file). */
		rp_stat_loop l;
		if (o.check_core && rp__res_stat_loop(&a, &b, &dopts, &l) < 0) {
			rp__cli_err("stat", "out of memory");
			rc = 1;
		} else if (o.check_core) {
			differ |= l.n_differ > 0;
		}
		if (rc == 0 && o.json)
			rc = stat_json_said(rp__res_stat_diff_json(&a, &b, &dopts, out, eb, sizeof(eb)), eb);
		else if (rc == 0)
			rp__res_stat_diff_print(&a, &b, &dopts, out);
	} else if (rc == 0) {
		rp_stat_sink *const s = &in[0].s;
		if (o.json) {
			rc = stat_json_said(rp__res_stat_json(s->sum, &s->meta, &s->plan, s->timeline, out, eb, sizeof(eb)), eb);
		} else {
			rp_summary_print(s->sum, &s->meta, out);
			char pb[32];
			fprintf(out, "\nprepare     %" PRIu64 " director%s, %" PRIu64 " file%s, %s: what `reprise replay` creates "
				"before the run (what the trace uses but never creates)\n", s->plan.dirs, s->plan.dirs == 1 ? "y" : "ies",
				s->plan.files, s->plan.files == 1 ? "" : "s", rp_summary_bytes_text(pb, sizeof(pb), s->plan.bytes));
			if (s->timeline)
				rp_timeline_print(s->timeline, out);
		}
	}
	if (o.output && of.f)
		rc = rc == 0 ? rp__cli_out_commit(&of, "stat") : (rp_outfile_abort(&of), rc);
	for (int i = 0; i < n; i++)
		input_free(&in[i]);
	/* --check: the report is written whole first, then the verdict is the exit status */
	return rc == 0 && differ ? 1 : rc;
}

const rp_command rp__cmd_stat = { &spec, run };
