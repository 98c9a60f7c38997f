/* reprise convert IN OUT: between .rpz, dbench loadfiles and (as input) pcap/pcapng, nfsdump text, strace logs (-ff files merged). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/convert_opts.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/smbkeys.h"
#include "converters/filter.h"
#include "converters/preamble.h"
#include "converters/registry.h"
#include "converters/scale.h"
#include "converters/strace.h"
#include "formats/loadfile.h"

static struct {
	uint64_t pattern_window, pattern_table;
	bool no_patterns;
	bool lenient, strict, quiet, verbose, timestamps, prepare, lockstep;
	const char *format, *to, *client_key, *output, *clients, *ops, *path_prefix, *csv, *iolog_dir;
	unsigned dialect; /* an index into dialects */
	uint64_t level, scale_space, seed;
	double from, until, time_scale, scale_spread, scale_jitter;
} o;

/* SMB3 decryption keys (cli/smbkeys.h) */
static struct {
	rp_optlist list;
	const char *file;
} sk;

/* --dialect's choices and what each is (the first, auto, the default) */
static const char *const dialects[] = { "auto", "smb", "nfs", NULL };
static const rp_loadfile_dialect dialect_ids[] = { RP_LOADFILE_AUTO, RP_LOADFILE_SMB, RP_LOADFILE_NFS };

static const rp_opt options[] = {
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.output, .arg = "OUT", .help = "the output (instead of the second argument)" },
	RP_CLI_CONVERT_OPT_FORMAT(o.format, "rpz, loadfile, fio or fio-job"),
	{ .name = "dialect", .kind = RP_OPT_ENUM, .value = &o.dialect, .choices = dialects, .arg = "D", .help = "loadfile dialect: smb, nfs or auto (default auto: NFS traffic -> nfs)" },
	{ .name = "iolog-dir", .kind = RP_OPT_STRING, .value = &o.iolog_dir, .arg = "DIR",
	  .help = "fio-job: the job's read_iolog= names the iolog in DIR, as given (relative to where fio runs, or "
	  "absolute); default: its name alone, which fio opens in the directory it replays in" },
	{ .name = "timestamps", .kind = RP_OPT_FLAG, .value = &o.timestamps, .help = "loadfile: write the timestamped form (a leading time in seconds)" },
	{ .name = "prepare", .kind = RP_OPT_FLAG, .value = &o.prepare, .help = "loadfile output: first create what the trace uses but never creates (replay's prepare plan), so dbench can run it" },
	RP_CLI_CONVERT_OPT_LEVEL(o.level, "; 19 is ~7 % smaller and 5x slower to write"),
	RP_CLI_RPZ_PATTERN_OPTS(o.pattern_window, o.pattern_table, o.no_patterns),
	RP_CLI_CONVERT_OPT_LENIENT(o.lenient),
	RP_CLI_CSV_OPT(&o.csv),
	RP_CLI_CONVERT_OPT_STRICT(o.strict, " (TCP gaps)"),
	{ .name = "client-key", .kind = RP_OPT_STRING, .value = &o.client_key, .arg = "KEY", .help = "pcap input: a client is addr+principal (default), addr or conn" },
	RP_CLI_CONVERT_OPT_QUIET(o.quiet, "summary or progress"),
	RP_CLI_CONVERT_OPT_VERBOSE(o.verbose, " (which format; a stream spooled to TMPDIR)"),
	{ .name = "from", .kind = RP_OPT_DURATION, .value = &o.from, .arg = "TIME",
	  .help = "only ops that start at or after TIME of the trace (10, 1.5s, 2m); an .rpz seeks there with its index", .min = 0, .max = 1e9 },
	{ .name = "to", .kind = RP_OPT_STRING, .value = &o.to, .arg = "TIME",
	  .help = "only ops that start before TIME of the trace (--to FORMAT, a format name, is the old spelling of --format)" },
	{ .name = "until", .kind = RP_OPT_DURATION, .value = &o.until, .arg = "TIME", .help = "the same as --to TIME", .min = 0, .max = 1e9 },
	{ .name = "clients", .kind = RP_OPT_STRING, .value = &o.clients, .arg = "LIST", .help = "only these clients' ops: ids and ranges, 1,3-5" },
	{ .name = "ops", .kind = RP_OPT_STRING, .value = &o.ops, .arg = "LIST", .help = "only these ops, by name: read,write,open,close (reprise cat's names); without open, the opens and closes "
	  "of the handles kept ops use are kept too" },
	{ .name = "path-prefix", .kind = RP_OPT_STRING, .value = &o.path_prefix, .arg = "P",
	  .help = "only ops on paths under P, component-wise (/a/b keeps /a/b/c, not /a/bc), and on handles opened there" },
	{ .name = "scale-time", .kind = RP_OPT_DOUBLE, .value = &o.time_scale, .arg = "X",
	  .help = "multiply every time by X (0.5: twice as fast), after --from/--to; 1e-9 to 1e9; an op still starts after "
	  "every op that ended before it", .min = RP_FILTER_SCALE_MIN, .max = RP_FILTER_SCALE_MAX },
	{ .name = "time-scale", .kind = RP_OPT_DOUBLE, .value = &o.time_scale, .arg = "X",
	  .help = "the same as --scale-time (its old name)", .min = RP_FILTER_SCALE_MIN, .max = RP_FILTER_SCALE_MAX },
	{ .name = "scale-space", .kind = RP_OPT_UINT, .value = &o.scale_space, .arg = "N",
	  .help = "N copies of every client, copy k's paths under /client<k>, clients and handles renumbered, each copy "
	  "started at its own offset (1-1024)", .min = 1, .max = RP_SCALE_COPIES_MAX },
	{ .name = "seed", .kind = RP_OPT_UINT, .value = &o.seed, .arg = "S",
	  .help = "--scale-space: the seed the copies' offsets and clocks are drawn from (default 0): the same seed, the same output",
	  .min = 0, .max = UINT64_MAX },
	{ .name = "scale-spread", .kind = RP_OPT_DURATION, .value = &o.scale_spread, .arg = "DURATION",
	  .help = "--scale-space: draw the offsets from [0, DURATION) (default the trace's span; an untimed trace "
	  "has none)", .min = 0, .max = 1e6 },
	{ .name = "scale-jitter", .kind = RP_OPT_DOUBLE, .value = &o.scale_jitter, .arg = "F",
	  .help = "--scale-space: each copy's clock runs at a rate drawn from [1-F, 1+F] in each 32nd of the span, "
	  "its length and the order of every start and end kept (default 0.5; 0 to 0.9; 0: none)", .min = 0, .max = RP_SCALE_JITTER_MAX },
	{ .name = "lockstep", .kind = RP_OPT_FLAG, .value = &o.lockstep,
	  .help = "--scale-space: every copy starts at the trace's start and keeps its times, as dbench's clones do" },
	RP_CLI_SMB_KEY_OPTS(&sk.list, &sk.file),
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "convert",
	.usage = "[options] IN... OUT  (or: IN... -o OUT)",
	.summary = "convert a trace, dbench loadfile, strace log, CTF trace, nfsdump text or packet capture into a trace or loadfile",
	.details = "IN is sniffed: .rpz trace, reprise cat's text form, dbench loadfile (SMB or NFS dialect,\n"
		   "plain or timestamped), strace log (strace -f -ttt -T -y; docs/strace.md), pcap/pcapng\n"
		   "capture of SMB1/2/3 or NFSv3/v4 traffic, nfsdump text of NFSv2/v3 (the Harvard NFS traces),\n"
		   "plain or gzip'd (docs/nfsdump.md), a CSV block or inode I/O trace with --csv (docs/csv.md),\n"
		   "or a directory holding an LTTng session's CTF trace\n"
		   "of reprise:* events (docs/syscall-capture.md, LTTng); - is standard\n"
		   "input (a stream is spooled to TMPDIR first).  OUT's format comes from --format or\n"
		   "its extension: .rpz, or .txt/.load/.loadfile (and - for standard output) for a loadfile;\n"
		   "fio: .iolog, a fio iolog v3 of the reads, writes, syncs and trims, and fio-job: .fio, a job\n"
		   "file that lays out the files the iolog reads and replays it (cd DIR && fio JOB; docs/fio.md).\n"
		   "A slice: --from/--to (trace time; an .rpz with its index starts decoding at the frame\n"
		   "holding --from), --clients, --ops and --path-prefix keep some ops, --scale-time speeds the\n"
		   "trace up or slows it down (every time multiplied alike, so what ended before an op began still does).  Handles stay consistent: an op on a handle whose open was dropped\n"
		   "(or lies before --from) is dropped too, so the slice replays without unknown handles; an op\n"
		   "that names its path besides the handle stays (replay issues it by path).  The summary says\n"
		   "how many ops were kept and dropped (by reason), the clients and the time span kept\n"
		   "(docs/slice.md).\n"
		   "OUT is written as OUT.part-XXXXXX beside it and renamed to OUT only once complete: a failed\n"
		   "convert, or one ended by SIGINT, SIGTERM or SIGHUP (the .part- file removed), leaves OUT as it\n"
		   "was.  OUT naming IN (also through a symlink or hard link) is refused.\n"
		   "--scale-space N: N copies of the clients, copy k's paths under /client<k> (as replay --clients),\n"
		   "clients and handles renumbered (a shared file stays shared within a copy, never across), each\n"
		   "copy offset by a draw from --seed within the trace's span (--scale-spread) and its clock rate\n"
		   "jittered (--scale-jitter; --lockstep: neither), every start and end kept in order, drawn again\n"
		   "while two copies' op counts per 100 ms correlate over 0.05 (the summary says how much); an\n"
		   "untimed trace gets its offset as a first sleep in each client.  It reads the input into memory.\n"
		   "A capture prints a conversion summary on stderr: frames, ops, and how many messages were\n"
		   "truncated, invalid, unsupported (by name), unmatched or encrypted (encrypted SMB3 is decrypted\n"
		   "with the sessions' keys from --smb-key or --smb-keys; docs/capture.md); a capture that ends inside\n"
		   "a packet (\"truncated dump file\") or a cut .rpz gives a warning and an .rpz flagged truncated.\n"
		   "nfsdump text prints a line of counts: lines, calls, replies, paired, ops and the pitfalls met\n"
		   "(no reply, replies without call, clock jumps, garbage lines, bad and absurd values, ...); a gzip\n"
		   "stream cut short gives a warning and an .rpz flagged truncated.\n"
		   "An strace log prints a summary line: ops, processes, the syscalls that are no file operation\n"
		   "(by name), bad lines (by reason) and what else was counted; a CTF trace one of events, other\n"
		   "providers' events, late and bad events (by reason), events LTTng discarded, and the model's counts.\n"
		   "strace -ff -o PREFIX writes PREFIX.PID per process: several IN, or PREFIX itself when no\n"
		   "such file exists but PREFIX.PID files do, are merged into one trace in timestamp order\n"
		   "(each file's lines are its pid's; fork results link them).\n"
		   "--prepare (loadfile output) reads the whole input into memory, computes the plan that\n"
		   "'reprise replay' prepares (directories, and files with the size the trace's reads need)\n"
		   "and writes ops that create them before the trace's own: Mkdir, NTCreateX (OVERWRITE_IF),\n"
		   "WriteX in 64 KiB pieces and Close on fnum 1073741824 (SMB); MKDIR3, CREATE3, WRITE3 (NFS).\n"
		   "A loadfile output prints a summary: ops written as comments (by reason), clients merged into\n"
		   "the one script, and which dbench runs the dialect; a fio output the I/O it wrote, the ops fio\n"
		   "cannot express (metadata, by name), I/O not written (by reason) and names mapped to safe ones.",
	.opts = options,
	.min_args = 1,
	.max_args = RP_OPTS_MAX_POS,
};

/* The chosen consumer's writer over of's stream, named by the path the user gave. */
typedef struct writer {
	const rp_conv_consumer *c;
	rp_conv_out *out;
	rp_sink *sink;
	rp_conv_lf_stats lf; /* a loadfile's: filled at close */
	char summary[2048];  /* other forms' (fio): filled at close */
} writer;

/*
 * A loadfile cannot say everything a trace can: what became comments (by
 * reason), that every client went into one script, and which dbench runs the
 * dialect (Debian's dbench 4.0 has only its file-system backend, so the SMB
 * dialect; the NFS dialect needs a dbench built with its libnfs backend).
 */
static void lf_summary(const rp_conv_lf_stats *st, const char *outp)
{
	const bool nfs = st->dialect == RP_LOADFILE_NFS;
	fprintf(stderr, "loadfile: %" PRIu64 " ops in the %s dialect; %" PRIu64 " written as comments", st->ops,
		nfs ? "NFS" : "SMB", st->comments);
	for (size_t i = 0; i < RP_CONV_LF_REASONS && st->reasons[i].why; i++)
		fprintf(stderr, "%s%s: %" PRIu64, i ? ", " : " (", st->reasons[i].why, st->reasons[i].n);
	if (st->other_reasons)
		fprintf(stderr, ", other: %" PRIu64, st->other_reasons);
	fprintf(stderr, "%s\n", st->comments ? ")" : "");
	if (st->clients > 1)
		fprintf(stderr, "loadfile: the %" PRIu64 " clients' ops merged into one script, which each dbench client runs whole\n",
			st->clients);
	char esc[1024];
	rp__cli_esc(esc, sizeof(esc), outp);
	if (nfs)
		fprintf(stderr, "loadfile: the NFS dialect runs in a dbench built with its libnfs backend (dbench -B nfs -c %s);"
				" Debian's dbench 4.0 has none: convert --dialect smb for it\n", esc);
	else
		fprintf(stderr, "loadfile: Debian's dbench 4.0 runs it: dbench -c %s -D DIR 1%s\n", esc,
			o.prepare ? "" : " (convert --prepare first creates what the trace expects to exist)");
}

static int writer_open(writer *w, const rp_conv_consumer *c, rp_outfile *of, rp_loadfile_dialect dialect, char *errbuf)
{
	memset(w, 0, sizeof(*w));
	w->c = c;
	rp_conv_out_opts wo = { .rpz_level = (int)o.level,
				.rpz_window = (uint32_t)o.pattern_window, .rpz_table_bits = (uint32_t)o.pattern_table,
				.rpz_no_pattern = o.no_patterns, .lf_stats = &w->lf, .summary = w->summary,
				.summary_size = sizeof(w->summary), .fio_iolog_dir = o.iolog_dir };
	rp_conv_lf_opts_init(&wo.lf); /* the dbench-compatible policy (docs/loadfile.md) */
	wo.lf.dialect = dialect;
	wo.lf.timestamps = o.timestamps;
	wo.lf.policy.open_if_as_create = o.prepare; /* a loadfile for dbench 4.0 (docs/loadfile.md) */
	return c->open(&w->out, of->f, of->std ? "<stdout>" : of->name, &wo, &w->sink, errbuf);
}

/* Flag a trace made from a cut input, then finish the writer (the stream stays open for commit). */
static int writer_close(writer *w, bool cut, const char *outp, char *errbuf)
{
	char note[RP_ERRBUF_SIZE] = "";
	const int rc = w->c->close(w->out, cut, note, errbuf);
	if (note[0])
		rp__cli_err("convert", "warning: %s: %s", outp, note);
	if (rc == 0 && !o.quiet && strcmp(w->c->name, "loadfile") == 0)
		lf_summary(&w->lf, outp);
	if (rc == 0 && !o.quiet && w->summary[0])
		fputs(w->summary, stderr);
	return rc;
}

/* The slice options as a filter stage (converters/filter.h), and what it kept. */
typedef struct slice {
	bool on;
	rp_filter_opts fo;
	rp_filter_range ranges[RP_FILTER_RANGES_MAX];
	rp_filter *f;
	uint64_t seek_skipped; /* ops the .rpz index let the reader pass over */
} slice;

/* Parse the slice options into sl: 0, or 2 after a usage error. */
static int slice_parse(slice *sl, const rp_input_opts *io)
{
	memset(sl, 0, sizeof(*sl));
	char eb[RP_ERRBUF_SIZE];
	if (o.clients) {
		if (rp_filter_parse_clients(o.clients, sl->ranges, RP_FILTER_RANGES_MAX, &sl->fo.n_clients, eb) < 0) {
			rp__cli_err("convert", "%s", eb);
			return 2;
		}
		sl->fo.clients = sl->ranges;
	}
	if (o.ops && rp_filter_parse_ops(o.ops, &sl->fo.ops, eb) < 0) {
		rp__cli_err("convert", "%s", eb);
		return 2;
	}
	if (o.path_prefix && !o.path_prefix[0]) {
		rp__cli_err("convert", "--path-prefix: an empty path (/ keeps every path)");
		return 2;
	}
	sl->fo.prefix = o.path_prefix;
	sl->fo.window = io->window;
	sl->fo.from_ns = io->from_ns;
	sl->fo.to_ns = io->to_ns;
	sl->fo.scale = o.time_scale;
	sl->on = o.clients || o.ops || o.path_prefix || io->window || o.time_scale;
	return 0;
}

/* inner, or a filter over it when a slice was asked for: 0, or 1 after printing the error. */
static int slice_wrap(slice *sl, rp_sink *inner, rp_sink **out)
{
	*out = inner;
	if (!sl->on)
		return 0;
	char eb[RP_ERRBUF_SIZE];
	if (rp_filter_create(&sl->f, &sl->fo, inner, eb) < 0) {
		rp__cli_err("convert", "%s", eb);
		return 1;
	}
	*out = rp_filter_sink(sl->f);
	return 0;
}

/* What the slice kept, on stderr: ops kept and dropped by reason, clients, time span. */
static void slice_report(const slice *sl, const char *in)
{
	if (!sl->f || o.quiet)
		return;
	const rp_filter_stats *const st = rp_filter_get_stats(sl->f);
	const uint64_t seen = st->seen + sl->seek_skipped;
	fprintf(stderr, "slice: kept %" PRIu64 " of %" PRIu64 " ops", st->kept, seen);
	bool any = sl->seek_skipped != 0;
	if (sl->seek_skipped)
		fprintf(stderr, " (dropped: before --from, skipped with the index: %" PRIu64, sl->seek_skipped);
	for (int i = 0; i < RP_FILTER__REASONS; i++) {
		if (!st->dropped[i])
			continue;
		fprintf(stderr, "%s%s: %" PRIu64, any ? ", " : " (dropped: ", rp_filter_reason_name((rp_filter_reason)i),
			st->dropped[i]);
		any = true;
	}
	fprintf(stderr, "%s", any ? ")" : "");
	if (st->needed_opens || st->needed_closes)
		fprintf(stderr, "; with the %" PRIu64 " opens and %" PRIu64 " closes of the handles they use (not in --ops)",
			st->needed_opens, st->needed_closes);
	fprintf(stderr, "; %" PRIu64 " client%s", st->clients, st->clients == 1 ? "" : "s");
	if (st->kept)
		fprintf(stderr, "; %.6f s to %.6f s", (double)st->t_first / 1e9, (double)st->t_last / 1e9);
	if (sl->fo.scale && sl->fo.scale != 1)
		fprintf(stderr, " (times x %g)", sl->fo.scale);
	fprintf(stderr, "; %" PRIu32 " strings\n", st->strings);
	if (st->kept == 0) {
		char esc[1024];
		rp__cli_esc(esc, sizeof(esc), in);
		rp__cli_err("convert", "warning: %s: the slice keeps no op", esc);
	}
}

/* --prepare: the whole input in memory, then the plan's preamble and the trace into a loadfile. */
static int convert_prepared(const char *in, rp_outfile *of, rp_loadfile_dialect asked, const rp_input_opts *io,
			    slice *sl)
{
	rp_memsink m;
	if (rp_memsink_init(&m) < 0) {
		rp__cli_err("convert", "out of memory");
		return 1;
	}
	rp_sink *into;
	int rc = slice_wrap(sl, &m.base, &into);
	if (!rc)
		rc = rp__cli_pump(in, into, io);
	slice_report(sl, in);
	if (rc) {
		rp_memsink_fini(&m);
		return rc;
	}
	char errbuf[RP_ERRBUF_SIZE] = "";
	writer w;
	if (writer_open(&w, rp_conv_consumer_find("loadfile"), of, rp_conv_preamble_dialect(&m, asked), errbuf) < 0) {
		rp__cli_err("convert", "%s", errbuf);
		rp_memsink_fini(&m);
		return 1;
	}
	rp_preamble_stats st;
	if (rp_conv_write_prepared(&m, w.sink, rp_conv_preamble_dialect(&m, asked), &st, errbuf) < 0) {
		rp__cli_err("convert", "%s", errbuf);
		rc = 1;
	}
	if (writer_close(&w, io->cut && *io->cut, of->name, errbuf) < 0 && !rc) {
		rp__cli_err("convert", "%s", errbuf);
		rc = 1;
	}
	if (!rc && !o.quiet)
		fprintf(stderr,
			"prepare: %" PRIu64 " directories, %" PRIu64 " files, %" PRIu64 " bytes (%" PRIu64
			" preamble ops before the trace's %zu)\n",
			st.dirs, st.files, st.bytes, st.ops, m.n_ops);
	rp_memsink_fini(&m);
	return rc;
}

/* --scale-space reads the input whole: more ops than this is a trace to cut first (152 bytes an op in memory). */
#define SCALE_OPS_MAX (1u << 24)

/* The copies' correlation (converters/scale.h), its own line: tests and users read it. */
static void scale_corr_report(const rp_scale_stats *st, uint32_t n)
{
	if (!st->corr_measured) {
		fprintf(stderr, "scale: correlation not measured (%s)\n", !st->timed ? "an untimed trace: its times are the replay's"
			: n < 2 ? "one copy" : "over 16,777,216 op starts in all copies (RP_SCALE_CORR_STARTS_MAX)");
		return;
	}
	fprintf(stderr, "scale: correlation of the copies' op starts per 100 ms: mean %.3f, worst pair %.3f, over %" PRIu32
		" pairs (%" PRIu32 " sharing under %u bins not counted), %" PRIu32 " redraws\n",
		st->corr_mean, st->corr_max, st->corr_pairs, st->corr_short, RP_SCALE_BINS_MIN, st->redraws);
}

/* What the copies are, on stderr: clients, namespaces, offsets. */
static void scale_report(const rp_scale_stats *st, const uint64_t *off, uint32_t n)
{
	if (o.quiet)
		return;
	fprintf(stderr, "scale: %" PRIu32 " copies, client ids + %" PRIu32 " a copy (0-%" PRIu64 " in all), paths under /client1 to /client%" PRIu32
		", handles + %" PRIu64 " a copy; %" PRIu64 " ops", n, st->clients, (uint64_t)st->clients * n - (st->clients ? 1 : 0), n,
		st->handles, st->ops);
	if (o.lockstep || !st->spread_ns) {
		fprintf(stderr, "; in lockstep (every copy at the start)\n");
		scale_corr_report(st, n);
		return;
	}
	fprintf(stderr, "; offsets %.6f s to %.6f s drawn from seed %" PRIu64 " within %.6f s%s (", (double)st->offset_min / 1e9,
		(double)st->offset_max / 1e9, o.seed, (double)st->spread_ns / 1e9,
		st->timed ? "" : " as a sleep before each copy's clients");
	for (uint32_t k = 0; k < n && k < 8; k++)
		fprintf(stderr, "%s%.3f", k ? " " : "", (double)off[k] / 1e9);
	fprintf(stderr, "%s)", n > 8 ? " ..." : "");
	if (st->jitter > 0)
		fprintf(stderr, ", clock rates jittered by %g", st->jitter);
	fprintf(stderr, "\n");
	scale_corr_report(st, n);
}

/* --scale-space: the (sliced) input in memory, then its copies into the writer. */
static int convert_scaled(const char *in, rp_outfile *of, const rp_conv_consumer *kind, rp_loadfile_dialect dialect,
			  const rp_input_opts *io, slice *sl)
{
	rp_memsink m;
	if (rp_memsink_init(&m) < 0) {
		rp__cli_err("convert", "out of memory");
		return 1;
	}
	rp_sink *into;
	int rc = slice_wrap(sl, &m.base, &into);
	if (!rc)
		rc = rp__cli_pump(in, into, io);
	slice_report(sl, in);
	if (!rc && m.n_ops > SCALE_OPS_MAX) {
		rp__cli_err("convert", "--scale-space: %zu ops, more than %u held in memory: cut the input first "
			    "(--from/--to, --clients, --ops)", m.n_ops, SCALE_OPS_MAX);
		rc = 1;
	}
	const uint32_t n = (uint32_t)o.scale_space;
	uint64_t *const off = rc ? NULL : calloc(n, sizeof(*off));
	if (!rc && !off) {
		rp__cli_err("convert", "out of memory");
		rc = 1;
	}
	char errbuf[RP_ERRBUF_SIZE] = "";
	writer w;
	if (!rc && writer_open(&w, kind, of, dialect, errbuf) < 0) {
		rp__cli_err("convert", "%s", errbuf);
		rc = 1;
	} else if (!rc) {
		const rp_scale_opts so = { .copies = n, .seed = o.seed, .lockstep = o.lockstep,
					   .spread_ns = (uint64_t)(o.scale_spread * 1e9 + 0.5),
					   .jitter = o.scale_jitter < 0 ? 0.5 : o.scale_jitter };
		rp_scale_stats st;
		if (rp_scale_space_run(&m, &so, w.sink, off, &st, errbuf) < 0) {
			rp__cli_err("convert", "%s", errbuf);
			rc = 1;
		} else {
			scale_report(&st, off, n);
			if (!st.timed && !st.spread_ns && !o.lockstep && n > 1)
				rp__cli_err("convert", "warning: the trace is untimed: its copies start together; "
					    "--scale-spread DURATION starts them apart (a sleep first in each client)");
		}
		if (writer_close(&w, io->cut && *io->cut, of->name, errbuf) < 0 && !rc) {
			rp__cli_err("convert", "%s", errbuf);
			rc = 1;
		}
	}
	free(off);
	rp_memsink_fini(&m);
	return rc;
}

static int convert_stream(const char *in, rp_outfile *of, const rp_conv_consumer *kind, rp_loadfile_dialect dialect,
			  const rp_input_opts *io, slice *sl)
{
	char errbuf[RP_ERRBUF_SIZE] = "";
	writer w;
	if (writer_open(&w, kind, of, dialect, errbuf) < 0) {
		rp__cli_err("convert", "%s", errbuf);
		return 1;
	}
	rp_sink *into;
	int rc = slice_wrap(sl, w.sink, &into);
	if (!rc)
		rc = rp__cli_pump(in, into, io);
	if (!rc)
		slice_report(sl, in);
	if (writer_close(&w, io->cut && *io->cut, of->name, errbuf) < 0 && !rc) {
		rp__cli_err("convert", "%s", errbuf);
		rc = 1;
	}
	return rc;
}

/* strace -ff files merged into one trace (converters/strace_ff.c), named by their prefix. */
static int convert_ff(const char *const *ins, size_t n, const char *first, rp_outfile *of, const rp_conv_consumer *kind,
		      rp_loadfile_dialect dialect, const rp_input_opts *io, slice *sl)
{
	char errbuf[RP_ERRBUF_SIZE] = "", prefix[4096], summary[1024] = "";
	/* The trace's name: the prefix the files share (first's name without its .PID) */
	snprintf(prefix, sizeof(prefix), "%s", first);
	uint32_t pid;
	char *const dot = strrchr(prefix, '.');
	if (dot && rp_strace_pid_from_name(prefix, &pid))
		*dot = '\0';
	writer w;
	if (writer_open(&w, kind, of, dialect, errbuf) < 0) {
		rp__cli_err("convert", "%s", errbuf);
		return 1;
	}
	const rp_strace_opts so = { .lenient = io->lenient };
	uint64_t skipped = 0;
	rp_sink *into;
	if (slice_wrap(sl, w.sink, &into)) {
		writer_close(&w, false, of->name, errbuf);
		return 1;
	}
	int rc = rp_strace_ff_run(ins, n, prefix, into, &so, &skipped, summary, sizeof(summary), errbuf) < 0;
	if (!rc)
		slice_report(sl, prefix);
	if (summary[0] && !io->quiet)
		fprintf(stderr, "%s (%zu -ff files merged)\n", summary, n);
	if (skipped)
		rp__cli_err("convert", "%s: skipped %" PRIu64 " bad line%s (--lenient)", prefix, skipped, skipped == 1 ? "" : "s");
	if (rc)
		rp__cli_err("convert", "%s", errbuf);
	if (writer_close(&w, false, of->name, errbuf) < 0 && !rc) {
		rp__cli_err("convert", "%s", errbuf);
		rc = 1;
	}
	return rc;
}

static int convert(const char *in, const char *outp, int npos, char **pos, const rp_smb_keys *smb_keys);

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	memset(&sk, 0, sizeof(sk));
	o.scale_jitter = -1; /* not given: 0.5 */
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	/* Inputs then OUT, or inputs and -o OUT; several inputs are strace -ff files, merged. */
	const int n_in = o.output ? npos : npos - 1;
	if (n_in < 1) {
		rp__cli_err("convert", "no OUT: give it as the last argument or with -o");
		return 2;
	}
	const char *const in = pos[0], *const outp = o.output ? o.output : pos[npos - 1];
	rp_smb_keys *smb_keys = NULL;
	const int krc = rp__cli_smb_keys("convert", &sk.list, sk.file, &smb_keys);
	if (krc)
		return krc;
	const int rc = convert(in, outp, npos, pos, smb_keys);
	rp_smb_keys_destroy(smb_keys);
	return rc;
}

static int convert(const char *in, const char *outp, int npos, char **pos, const rp_smb_keys *smb_keys)
{
	const int n_in = o.output ? npos : npos - 1;

	bool cut = false;
	rp_input_opts io = { .csv = o.csv, .lenient = o.lenient, .strict = o.strict, .quiet = o.quiet, .verbose = o.verbose,
			     .client_key_set = o.client_key != NULL, .cmd = "convert", .cut = &cut };
	/* --to is a time, or (the old spelling of --format) a format name. */
	const char *format = o.format;
	double until = o.until;
	if (o.to && rp_conv_consumer_find(o.to)) {
		if (o.format && strcmp(o.format, o.to) != 0) {
			rp__cli_err("convert", "--to %s and --format %s name two formats", o.to, o.format);
			return 2;
		}
		format = o.to;
	} else if (o.to) {
		const double t = rp_parse_duration(o.to);
		if (t < 0 || t > 1e9) {
			rp__cli_err("convert", "--to takes a time of the trace (10, 1.5s, 2m; at most 1e9 s), not \"%s\" "
				    "(the output format is --format rpz|loadfile|fio|fio-job)", o.to);
			return 2;
		}
		if (o.until > 0 && o.until != t) {
			rp__cli_err("convert", "--to and --until are one option: give one of them");
			return 2;
		}
		until = t;
		if (until == 0) {
			rp__cli_err("convert", "--to must be after --from");
			return 2;
		}
	}
	if (until > 0 && until <= o.from) {
		rp__cli_err("convert", "--to must be after --from");
		return 2;
	}
	const int wrc = rp__cli_window("convert", o.from, until, &io);
	if (wrc)
		return wrc;
	io.capture.smb_keys = smb_keys;
	slice sl;
	const int src = slice_parse(&sl, &io);
	if (src)
		return src;
	/* The filter applies the window (it keeps handles consistent); the reader only seeks near --from. */
	io.window = false;
	io.seek_ns = sl.fo.window ? sl.fo.from_ns : 0;
	io.seek_skipped = &sl.seek_skipped;
	if (rp__cli_client_key(o.client_key, &io.capture.client_key) < 0) {
		rp__cli_err("convert", "--client-key must be addr+principal, addr or conn");
		return 2;
	}
	const rp_loadfile_dialect dialect = dialect_ids[o.dialect];

	const rp_conv_consumer *const kind = rp_conv_consumer_for(format, outp);
	if (!kind && format) {
		rp__cli_err("convert", "--format must be rpz, loadfile, fio or fio-job");
		return 2;
	}
	if (!kind) {
		rp__cli_err("convert", "%s: cannot tell the output format: use --format rpz|loadfile|fio|fio-job", outp);
		return 2;
	}
	if (o.prepare && o.scale_space) {
		rp__cli_err("convert", "--prepare and --scale-space: convert --scale-space to .rpz first, then --prepare it");
		return 2;
	}
	if (!o.scale_space && (o.seed || o.lockstep || o.scale_spread > 0 || o.scale_jitter >= 0))
		rp__cli_err("convert", "warning: --seed, --scale-spread, --scale-jitter and --lockstep place --scale-space's copies: "
			    "they do nothing without it");
	if (o.lockstep && (o.scale_spread > 0 || o.scale_jitter > 0))
		rp__cli_err("convert", "warning: --lockstep keeps every copy at the trace's times: --scale-spread and --scale-jitter do nothing with it");
	if (o.prepare && strcmp(kind->name, "loadfile") != 0) {
		rp__cli_err("convert", "--prepare writes loadfiles only (replay prepares an .rpz itself)");
		return 2;
	}
	/* Options for the other output format do nothing: say so rather than let them look obeyed. */
	const bool lf_out = strcmp(kind->name, "loadfile") == 0, rpz_out = strcmp(kind->name, "rpz") == 0;
	const char *const what = lf_out ? "a loadfile" : rpz_out ? "an .rpz trace" : "for fio"; /* fio, fio-job */
	if (!rpz_out && o.level)
		rp__cli_err("convert", "warning: --level applies to .rpz output only; %s is %s", outp, what);
	if (!lf_out && o.timestamps)
		rp__cli_err("convert", "warning: --timestamps applies to loadfile output only; %s is %s", outp, what);
	if (!lf_out && o.dialect)
		rp__cli_err("convert", "warning: --dialect applies to loadfile output only; %s is %s", outp, what);
	if (o.iolog_dir && strcmp(kind->name, "fio-job") != 0)
		rp__cli_err("convert", "warning: --iolog-dir applies to fio job files (.fio) only; %s is %s", outp,
			    lf_out || rpz_out ? what : "an iolog");
	/* strace -ff: the files named, or PREFIX's PREFIX.PID files when PREFIX itself is none. */
	char **ff = NULL;
	size_t n_ff = 0;
	if (n_in == 1 && strcmp(in, "-") != 0 && access(in, F_OK) != 0 && errno == ENOENT) {
		char eb[RP_ERRBUF_SIZE];
		if (rp_strace_ff_find(in, &ff, &n_ff, eb) < 0) {
			rp__cli_err("convert", "%s", eb);
			return 1;
		}
	}
	const char *const *const ins = n_ff ? (const char *const *)ff : (const char *const *)pos;
	const size_t n_ins = n_ff ? n_ff : (size_t)n_in;
	if ((n_ff || n_in > 1) && o.scale_space) {
		rp__cli_err("convert", "--scale-space reads one input; convert the -ff files to .rpz first");
		rp_strace_ff_free(ff, n_ff);
		return 2;
	}
	if ((n_ff || n_in > 1) && o.prepare) {
		rp__cli_err("convert", "--prepare reads one input; convert the -ff files to .rpz first");
		rp_strace_ff_free(ff, n_ff);
		return 2;
	}
	/* Refused before anything is opened: writing X while reading X would destroy it. */
	for (size_t i = 0; i < n_ins; i++) {
		const int same = rp__cli_out_check("convert", outp, ins[i]);
		if (same) {
			rp_strace_ff_free(ff, n_ff);
			return same;
		}
	}
	rp_outfile of;
	if (rp__cli_out_open_with(&of, "convert", outp, RP_OUT_SIGNAL_REMOVES)) {
		rp_strace_ff_free(ff, n_ff);
		return 1;
	}
	int rc;
	if (n_ins > 1 || n_ff)
		rc = convert_ff(ins, n_ins, in, &of, kind, dialect, &io, &sl);
	else
		rc = o.prepare       ? convert_prepared(in, &of, dialect, &io, &sl)
		     : o.scale_space ? convert_scaled(in, &of, kind, dialect, &io, &sl)
				     : convert_stream(in, &of, kind, dialect, &io, &sl);
	rp_filter_destroy(sl.f);
	rp_strace_ff_free(ff, n_ff);
	if (rc) {
		rp_outfile_abort(&of); /* the output stays as it was: a failed convert leaves nothing behind */
		return rc;
	}
	return rp__cli_out_commit(&of, "convert");
}

const rp_command rp__cmd_convert = { &spec, run };
