/* reprise cat TRACE: one op per line in the canonical text form. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/input.h"
#include "cli/output.h"

/* A sink that prints ops; keeps the strings it is given to name paths. */
typedef struct print_sink {
	rp_sink base;
	rp_strtab *strings;
	FILE *out;
	bool meta;
} print_sink;

static int pr_meta(rp_sink *s, const rp_trace_meta *m)
{
	print_sink *const p = (print_sink *)s;
	if (p->meta) {
		fprintf(p->out, "# source %s%s%s%s%s\n", rp_source_name(m->source),
			m->flags & RP_META_TIMED ? " timed" : "", m->flags & RP_META_ANONYMIZED ? " anonymized" : "",
			m->flags & RP_META_TRUNCATED ? " truncated" : "", m->flags & RP_META_UNTRACED ? " untraced" : "");
		if (m->capture_start_ns)
			fprintf(p->out, "# start %" PRId64 ".%09" PRId64 "\n", m->capture_start_ns / 1000000000,
				m->capture_start_ns % 1000000000);
		char esc[4 * RP_META_NAME_MAX]; /* escaped as the op lines' strings are */
		if (m->host[0])
			fprintf(p->out, "# host %s\n", rp__cli_esc(esc, sizeof(esc), m->host));
		if (m->source_name[0])
			fprintf(p->out, "# input %s\n", rp__cli_esc(esc, sizeof(esc), m->source_name));
	}
	return 0;
}

static int pr_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	print_sink *const p = (print_sink *)s;
	const int64_t got = rp_strtab_append(p->strings, str, len);
	if (got < 0 || (uint32_t)got != id)
		return rp_fail(s->errbuf, got < 0 ? (int)got : RP_E_STATE, "string %u: %s", id,
			       got < 0 ? rp_strerror((int)got) : "out of order");
	return 0;
}

static const char *pr_lookup(void *ctx, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(ctx, id, len);
}

static int pr_op(rp_sink *s, const rp_op *op)
{
	print_sink *const p = (print_sink *)s;
	static char line[4 * RP_STR_MAX + 512]; /* a path can be RP_STR_MAX bytes, each escaped to 4 */
	size_t n = rp_op_format(line, sizeof(line), op, pr_lookup, p->strings);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	line[n++] = '\n';
	if (fwrite(line, 1, n, p->out) != n)
		return rp_fail(s->errbuf, RP_E_IO, "standard output: write error: %s", strerror(errno));
	return 0;
}

static int pr_finish(rp_sink *s)
{
	print_sink *const p = (print_sink *)s;
	return fflush(p->out) == 0 ? 0 : rp_fail(s->errbuf, RP_E_IO, "standard output: write error: %s", strerror(errno));
}

static struct {
	bool meta, lenient, verbose;
	const char *csv;
	uint64_t client;
	bool client_set;
	double from, until;
} o;
static const char *client_arg, *out_arg;

static const rp_opt options[] = {
	{ .name = "client", .short_name = 'c', .kind = RP_OPT_STRING, .value = &client_arg, .arg = "N", .help = "only the ops of client N" },
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &out_arg, .arg = "FILE", .help = "write to FILE (renamed into place when complete) instead of standard output" },
	{ .name = "meta", .short_name = 'm', .kind = RP_OPT_FLAG, .value = &o.meta, .help = "start with the trace's metadata as # comment lines" },
	RP_CLI_WINDOW_OPTS(&o.from, &o.until),
	{ .name = "lenient", .kind = RP_OPT_FLAG, .value = &o.lenient, .help = "loadfile, text, strace or CSV input: skip bad lines, count and report them" },
	RP_CLI_CSV_OPT(&o.csv),
	{ .name = "verbose", .short_name = 'v', .kind = RP_OPT_FLAG, .value = &o.verbose, .help = "say how TRACE is read (which format; a stream spooled to TMPDIR)" },
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "cat",
	.usage = "[options] TRACE",
	.summary = "print a trace one op per line in reprise's canonical text form",
	.details = "Each line: start and end time in seconds since the trace began (- if no reply was seen),\n"
		   "c<client>, the op name, its fields (path=\"...\" path2= fh= off= len= ret= fh2= off2= want=\n"
		   "disp= of= set= mode= uid= gid= atime= mtime= flags= raw=PROTO:access=,disp=,opts=,level=; an\n"
		   "op's own fields always, others when non-zero), then -> and the canonical status with the\n"
		   "original protocol status in parentheses.  The text is an input too: 'reprise convert' turns\n"
		   "it (edited or not) back into a trace with every field as it was.  TRACE may also be a\n"
		   "loadfile, an strace log, nfsdump text or a packet capture, decoded on the fly; - is standard\n"
		   "input.  See\n"
		   "docs/op-model.md.",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	client_arg = NULL;
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	rp_input_opts io = { .csv = o.csv, .lenient = o.lenient, .quiet = true, .verbose = o.verbose, .cmd = "cat" };
	const int wrc = rp__cli_window("cat", o.from, o.until, &io);
	if (wrc)
		return wrc;
	if (client_arg) {
		char *end = NULL;
		const unsigned long v = strtoul(client_arg, &end, 10);
		if (!*client_arg || *end || v > UINT32_MAX) {
			rp__cli_err("cat", "--client: bad client number '%s'", client_arg);
			return 2;
		}
		io.filter_client = true;
		io.client = (uint32_t)v;
	}
	rp_outfile of = { .f = NULL };
	if (out_arg) {
		const int same = rp__cli_out_check("cat", out_arg, pos[0]); /* 2: OUT is the input */
		if (same || rp__cli_out_open(&of, "cat", out_arg))
			return same ? same : 1;
	}
	FILE *const out = out_arg ? of.f : stdout;
	static char buf[1 << 20];
	if (!out_arg)
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	print_sink p = {
		.base = { .meta = pr_meta, .string = pr_string, .op = pr_op, .finish = pr_finish },
		.strings = rp_strtab_create(),
		.out = out,
		.meta = o.meta,
	};
	if (!p.strings) {
		fprintf(stderr, "reprise cat: out of memory\n");
		if (out_arg)
			rp_outfile_abort(&of);
		return 1;
	}
	int rc = rp__cli_pump(pos[0], &p.base, &io);
	rp_strtab_destroy(p.strings);
	if (out_arg) {
		if (rc == 0)
			rc = rp__cli_out_commit(&of, "cat");
		else
			rp_outfile_abort(&of);
	}
	return rc;
}

const rp_command rp__cmd_cat = { &spec, run };
