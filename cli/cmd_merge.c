/* reprise merge A B... -o OUT: several traces into one, each input's clients kept apart (converters/merge.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/convert_opts.h"
#include "cli/input.h"
#include "cli/merge_cli.h"
#include "cli/output.h"
#include "converters/merge.h"
#include "converters/registry.h"

static struct {
	uint64_t pattern_window, pattern_table;
	bool no_patterns;
	bool quiet, lenient;
	const char *output, *align, *format;
	uint64_t level;
} o;

static const rp_opt options[] = {
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.output, .arg = "OUT", .help = "the merged trace (required)" },
	{ .name = "align", .kind = RP_OPT_STRING, .value = &o.align, .arg = "MODE",
	  .help = "start (default: every input's t=0 at the merged t=0) or wallclock (by each trace's capture start; "
	  "an error when one is unknown)" },
	RP_CLI_CONVERT_OPT_FORMAT(o.format, "rpz or loadfile"),
	RP_CLI_CONVERT_OPT_LEVEL(o.level, ""),
	RP_CLI_RPZ_PATTERN_OPTS(o.pattern_window, o.pattern_table, o.no_patterns),
	RP_CLI_CONVERT_OPT_LENIENT(o.lenient),
	RP_CLI_CONVERT_OPT_QUIET(o.quiet, "summary"),
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "merge",
	.usage = "[options] IN... -o OUT",
	.summary = "merge traces into one, in time order, each input's clients kept apart",
	.details = "Each IN is anything convert reads (.rpz, text form, loadfile, strace log, pcap, CTF trace).\n"
		   "Their ops are interleaved by start time into OUT (on equal times the earlier input's op\n"
		   "first; each input keeps its own order).  Input k's clients follow those of inputs 1..k-1:\n"
		   "its client c becomes c plus the clients (largest id + 1) of the inputs before it, and so do\n"
		   "the children its forks name; its handles are offset past the earlier inputs' handles, and\n"
		   "strings are renumbered, so nothing of two inputs collides.  The summary prints the mapping.\n"
		   "--align start lines every input's first instant up at t=0; --align wallclock places each by\n"
		   "its header's capture start (the earliest at t=0) and refuses an input whose start is unknown.\n"
		   "The inputs are read into memory first (152 bytes per op, up to twice that while growing;\n"
		   "at most 16,777,216 ops in all, from at most 4,096 inputs).\n"
		   "OUT is written as OUT.part-XXXXXX beside it and renamed once complete; OUT naming an input\n"
		   "is refused.  OUT is a trace or a loadfile (convert the merged trace for fio).",
	.opts = options,
	.min_args = 1,
	.max_args = RP_OPTS_MAX_POS,
};

static void free_inputs(rp_memsink *ms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rp_memsink_fini(&ms[i]);
	free(ms);
}

/*
 * merge (and replay --clients-from) hold their inputs in memory, 152 bytes an op: at most this many ops
 * in all (2.4 GB; up to half as much again while the last input's array grows).
 */
#define MERGE_OPS_MAX ((size_t)16 << 20)

/* Every input into memory: 0, or an exit status after printing the error; *cut when one was cut. */
static int read_inputs(const char *cmd, const char *const *paths, size_t n, bool lenient, bool quiet,
		       rp_memsink **out, bool *cut)
{
	rp_memsink *const ms = calloc(n, sizeof(*ms));
	if (!ms) {
		rp__cli_err(cmd, "out of memory");
		return 1;
	}
	size_t held = 0;
	for (size_t i = 0; i < n; i++) {
		if (rp_memsink_init(&ms[i]) < 0) {
			rp__cli_err(cmd, "out of memory");
			free_inputs(ms, i);
			return 1;
		}
		if (held == MERGE_OPS_MAX) { /* (max_ops 0 would be no limit) */
			rp__cli_err(cmd, "the inputs before input %zu hold %zu ops, which is as many as %s holds in memory: "
				    "cut them first (reprise convert --from/--to, --clients, --ops)", i + 1, MERGE_OPS_MAX, cmd);
			free_inputs(ms, i + 1);
			return 1;
		}
		ms[i].max_ops = MERGE_OPS_MAX - held;
		const rp_input_opts io = { .lenient = lenient, .quiet = quiet, .cmd = cmd, .cut = cut };
		const int rc = rp__cli_pump(paths[i], &ms[i].base, &io);
		if (rc) {
			if (ms[i].n_ops == ms[i].max_ops)
				rp__cli_err(cmd, "the inputs hold more than %zu ops in all, which is as many as %s holds in "
					    "memory: cut them first (reprise convert --from/--to, --clients, --ops)",
					    MERGE_OPS_MAX, cmd);
			free_inputs(ms, i + 1);
			return rc;
		}
		held += ms[i].n_ops;
	}
	*out = ms;
	return 0;
}

/* One line per input: where its clients went. */
static void print_mapping(FILE *f, const char *cmd, const char *const *paths, const rp_merge_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char esc[512];
		rp__cli_esc(esc, sizeof(esc), paths[i]);
		fprintf(f, "%s: input %zu %s: %" PRIu64 " ops", cmd, i + 1, esc, maps[i].ops);
		if (maps[i].clients)
			fprintf(f, ", clients 0-%" PRIu32 " -> %" PRIu32 "-%" PRIu32, maps[i].clients - 1, maps[i].client_offset,
				maps[i].client_offset + maps[i].clients - 1);
		if (maps[i].handle_offset)
			fprintf(f, ", handles + %" PRIu64, maps[i].handle_offset);
		if (maps[i].t_offset)
			fprintf(f, ", starts at %.9f s", (double)maps[i].t_offset / 1e9);
		fputc('\n', f);
	}
}

static int merge_into(const char *cmd, const rp_memsink *ms, size_t n, rp_merge_align align, rp_sink *sink,
		      rp_merge_map *maps)
{
	const rp_memsink **const ins = calloc(n, sizeof(*ins));
	if (!ins) {
		rp__cli_err(cmd, "out of memory");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		ins[i] = &ms[i];
	char errbuf[RP_ERRBUF_SIZE];
	const int rc = rp_merge_run(ins, n, align, sink, maps, errbuf);
	free(ins);
	if (rc < 0) {
		rp__cli_err(cmd, "%s", errbuf);
		return 1;
	}
	return 0;
}

int rp__cli_merge_spool(const char *cmd, const char *const *paths, size_t n, bool lenient, bool quiet,
			rp_cli_in *in)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	bool cut = false;
	rp_memsink *ms = NULL;
	int rc = read_inputs(cmd, paths, n, lenient, quiet, &ms, &cut);
	if (rc)
		return rc;
	rp_merge_map *const maps = calloc(n, sizeof(*maps));
	const int fd = maps ? rp__cli_tmp_file(cmd, paths[0]) : -1;
	const int wfd = fd >= 0 ? dup(fd) : -1;
	FILE *const f = wfd >= 0 ? fdopen(wfd, "wb") : NULL;
	if (!f) {
		if (maps && fd >= 0)
			rp__cli_err(cmd, "merging: %s", strerror(errno));
		else if (!maps)
			rp__cli_err(cmd, "out of memory");
		if (wfd >= 0)
			close(wfd);
		if (fd >= 0)
			close(fd);
		free(maps);
		free_inputs(ms, n);
		return 1;
	}
	const rp_conv_consumer *const c = rp_conv_consumer_find("rpz");
	char errbuf[RP_ERRBUF_SIZE];
	rp_conv_out *co = NULL;
	rp_sink *sink = NULL;
	rc = c->open(&co, f, "merged traces", NULL, &sink, errbuf) < 0;
	if (rc)
		rp__cli_err(cmd, "%s", errbuf);
	if (!rc)
		rc = merge_into(cmd, ms, n, RP_MERGE_START, sink, maps);
	if (co) {
		char note[RP_ERRBUF_SIZE];
		if (c->close(co, cut, note, errbuf) < 0 && !rc) {
			rp__cli_err(cmd, "%s", errbuf);
			rc = 1;
		}
	}
	if (fclose(f) != 0 && !rc) {
		rp__cli_err(cmd, "writing the merged traces: %s", strerror(errno));
		rc = 1;
	}
	if (!rc && !quiet)
		print_mapping(stderr, cmd, paths, maps, n);
	free(maps);
	free_inputs(ms, n);
	if (rc) {
		close(fd);
		return rc;
	}
	in->fd = fd;
	snprintf(in->fdpath, sizeof(in->fdpath), "/dev/fd/%d", fd);
	in->path = in->fdpath;
	in->name = "merged traces";
	return 0;
}

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	if (!o.output) {
		rp__cli_err("merge", "no OUT: give it with -o");
		return 2;
	}
	rp_merge_align align = RP_MERGE_START;
	if (o.align && strcmp(o.align, "wallclock") == 0)
		align = RP_MERGE_WALLCLOCK;
	else if (o.align && strcmp(o.align, "start") != 0) {
		rp__cli_err("merge", "--align must be start or wallclock");
		return 2;
	}
	const rp_conv_consumer *kind = rp_conv_consumer_for(o.format, o.output);
	if (kind && strcmp(kind->name, "rpz") != 0 && strcmp(kind->name, "loadfile") != 0) {
		rp__cli_err("merge", "merge writes rpz or loadfile: convert the merged trace to %s", kind->name);
		return 2;
	}
	if (!kind) {
		rp__cli_err("merge", o.format ? "--format must be rpz or loadfile"
					      : "cannot tell the output format from OUT's name: use --format rpz|loadfile");
		return 2;
	}
	for (int i = 0; i < npos; i++) {
		const int same = rp__cli_out_check("merge", o.output, pos[i]);
		if (same)
			return same;
	}
	const size_t n = (size_t)npos;
	bool cut = false;
	rp_memsink *ms = NULL;
	int rc = read_inputs("merge", (const char *const *)pos, n, o.lenient, o.quiet, &ms, &cut);
	if (rc)
		return rc;
	rp_merge_map *const maps = calloc(n, sizeof(*maps));
	rp_outfile of;
	if (!maps || rp__cli_out_open_with(&of, "merge", o.output, RP_OUT_SIGNAL_REMOVES)) {
		if (!maps)
			rp__cli_err("merge", "out of memory");
		free(maps);
		free_inputs(ms, n);
		return 1;
	}
	char errbuf[RP_ERRBUF_SIZE] = "";
	rp_conv_lf_stats lf;
	rp_conv_out_opts wo = { .rpz_level = (int)o.level,
				.rpz_window = (uint32_t)o.pattern_window, .rpz_table_bits = (uint32_t)o.pattern_table,
				.rpz_no_pattern = o.no_patterns, .lf_stats = &lf };
	rp_conv_lf_opts_init(&wo.lf);
	rp_conv_out *co = NULL;
	rp_sink *sink = NULL;
	rc = kind->open(&co, of.f, of.std ? "<stdout>" : of.name, &wo, &sink, errbuf) < 0;
	if (rc)
		rp__cli_err("merge", "%s", errbuf);
	if (!rc)
		rc = merge_into("merge", ms, n, align, sink, maps);
	if (co) {
		char note[RP_ERRBUF_SIZE] = "";
		if (kind->close(co, cut, note, errbuf) < 0 && !rc) {
			rp__cli_err("merge", "%s", errbuf);
			rc = 1;
		}
		if (note[0] && !rc)
			rp__cli_err("merge", "warning: %s", note);
	}
	if (!rc && !o.quiet)
		print_mapping(stderr, "merge", (const char *const *)pos, maps, n);
	free(maps);
	free_inputs(ms, n);
	if (rc) {
		rp_outfile_abort(&of);
		return rc;
	}
	return rp__cli_out_commit(&of, "merge");
}

const rp_command rp__cmd_merge = { &spec, run };
