/* reprise model TRACE -o MODEL.json and reprise generate MODEL -o TRACE.rpz (results/model.h, docs/model.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/input.h"
#include "cli/model_cli.h"
#include "cli/output.h"
#include "formats/rpz.h"
#include "results/model.h"

/* A model file is a few KiB to a few MiB: past this it is not one. */
#define MODEL_FILE_MAX (UINT64_C(256) << 20)

static struct {
	const char *output;
	const char *target;
	double chunk;
	uint64_t runs;
	bool lenient, quiet, check, json, afap;
} mo;

static const rp_opt model_options[] = {
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &mo.output, .arg = "MODEL.json", .help = "write the model here (required; renamed into place when complete)" },
	{ .name = "chunk", .kind = RP_OPT_DURATION, .value = &mo.chunk, .arg = "TIME",
	  .help = "the time chunk the histograms are kept per (default 1s; 1 ms to 1 day; widened to keep at most 4096 chunks)", .min = 1e-3, .max = 86400 },
	{ .name = "check", .kind = RP_OPT_FLAG, .value = &mo.check,
	  .help = "no model file: build the model, generate from it, replay both and report how far apart they are" },
	{ .name = "target", .kind = RP_OPT_STRING, .value = &mo.target, .arg = "DIR",
	  .help = "--check: replay in fresh directories beneath DIR (default: a temporary directory)" },
	{ .name = "runs", .kind = RP_OPT_UINT, .value = &mo.runs, .arg = "N",
	  .help = "--check: replays of each trace, alternating (default 3; 1-100)", .min = 1, .max = 100 },
	{ .name = "afap", .kind = RP_OPT_FLAG, .value = &mo.afap,
	  .help = "--check: replay as fast as possible (default: at the recorded times when the trace is timed)" },
	{ .name = "json", .kind = RP_OPT_FLAG, .value = &mo.json, .help = "--check: the report as JSON on stdout" },
	{ .name = "lenient", .kind = RP_OPT_FLAG, .value = &mo.lenient, .help = "loadfile, text or strace input: skip bad lines, count and report them" },
	{ .name = "quiet", .short_name = 'q', .kind = RP_OPT_FLAG, .value = &mo.quiet, .help = "print nothing but errors" },
	{ .name = NULL },
};

static const rp_cmd model_spec = {
	.name = "model",
	.usage = "[options] TRACE -o MODEL.json | --check [--target DIR] [--runs N] [--json] TRACE",
	.summary = "a trace's workload as histograms per time chunk and client class (JSON, docs/model.md)",
	.details = "TRACE is any input stat reads, as a file (it is read twice).  Each client is put in a class by its most\n"
		   "frequent op; per time chunk (--chunk) and class the model keeps the op mix and failures, request\n"
		   "sizes, seek distances and sequential runs, inter-arrival and think times, the in-flight depth and\n"
		   "each op's recorded latency, all as log2 histograms; and for the whole trace the file set: files,\n"
		   "directories, those created, those shared between clients, sizes, depths and directory widths.\n"
		   "`reprise generate` makes a trace from it.  What was capped (clients, files, handles, the chunk\n"
		   "widened) is printed and kept in the model's \"capped\".\n"
		   "--check measures the model's accuracy: it builds the model, generates a trace from it (seed 1),\n"
		   "replays the trace and the generated one on the same target, alternating, and reports the op mix\n"
		   "difference (percentage points per op), the throughput and p50/p99 latency ratios (medians of the\n"
		   "runs, with their spread), the inter-arrival KS statistic and the file-size KS (docs/model.md).",
	.opts = model_options,
	.min_args = 1,
	.max_args = 1,
};

int rp__cli_model_build(const char *path, double chunk_s, bool lenient, rp_model *m)
{
	rp_model_builder *const b = rp_model_builder_create(chunk_s > 0 ? (uint64_t)(chunk_s * 1e9 + 0.5) : 0);
	if (!b) {
		rp__cli_err("model", "out of memory");
		return 1;
	}
	const rp_input_opts io = { .lenient = lenient, .quiet = true, .cmd = "model" };
	char eb[RP_ERRBUF_SIZE];
	int rc = rp__cli_pump(path, rp_model_builder_pass1(b), &io);
	if (rc == 0 && rp_model_builder_pass2_begin(b, eb) < 0) {
		rp__cli_err("model", "%s", eb);
		rc = 1;
	}
	if (rc == 0)
		rc = rp__cli_pump(path, rp_model_builder_pass2(b), &io);
	if (rc == 0 && rp_model_builder_finish(b, m, eb) < 0) {
		rp__cli_err("model", "%s", eb);
		rc = 1;
	}
	rp_model_builder_destroy(b);
	return rc;
}

static int model_run(int argc, char **argv)
{
	memset(&mo, 0, sizeof(mo));
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&model_spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	if (mo.check && mo.output) {
		rp__cli_err("model", "--check writes no model: leave out -o");
		return 2;
	}
	if (!mo.check && (mo.target || mo.runs || mo.afap || mo.json)) {
		rp__cli_err("model", "--target, --runs, --afap and --json go with --check");
		return 2;
	}
	if (!mo.check && !mo.output) {
		rp__cli_err("model", "-o MODEL.json is required");
		return 2;
	}
	struct stat sb;
	if (!strcmp(pos[0], "-") || (stat(pos[0], &sb) == 0 && !S_ISREG(sb.st_mode))) {
		rp__cli_err("model", "%s: not a regular file: the model reads its input twice (save a stream to a file first)", pos[0]);
		return 2;
	}
	if (mo.check) {
		const rp_check_opts co = { .target = mo.target, .runs = mo.runs ? (unsigned)mo.runs : 3, .chunk_s = mo.chunk,
					   .afap = mo.afap, .json = mo.json, .lenient = mo.lenient, .quiet = mo.quiet };
		return rp__cli_model_check(pos[0], &co);
	}
	int rc = rp__cli_out_check("model", mo.output, pos[0]);
	if (rc)
		return rc;
	rp_model m = { 0 };
	rc = rp__cli_model_build(pos[0], mo.chunk, mo.lenient, &m);
	char eb[RP_ERRBUF_SIZE];
	rp_outfile of = { .f = NULL };
	if (rc == 0 && rp__cli_out_open(&of, "model", mo.output))
		rc = 1;
	if (rc == 0 && rp_model_write_json(&m, of.f, eb, sizeof(eb)) < 0) {
		rp__cli_err("model", "%s: %s", mo.output, eb);
		rp_outfile_abort(&of);
		rc = 1;
	} else if (rc == 0) {
		rc = rp__cli_out_commit(&of, "model");
	}
	if (rc == 0 && !mo.quiet) {
		fprintf(stderr, "reprise model: %" PRIu64 " ops, %u chunk%s of %.3f s, %u class%s, %" PRIu64 " files, %" PRIu64
			" directories\n", m.n_ops, m.n_chunks, m.n_chunks == 1 ? "" : "s", (double)m.chunk_ns / 1e9, m.n_classes,
			m.n_classes == 1 ? "" : "es", m.fs.files, m.fs.dirs);
		if (m.chunk_widened)
			fprintf(stderr, "reprise model: the chunk was widened to %.3f s (at most %d chunks)\n",
				(double)m.chunk_ns / 1e9, RP_MODEL_MAX_CHUNKS);
		if (m.capped_clients || m.capped_files || m.capped_handles)
			fprintf(stderr, "reprise model: capped: %" PRIu64 " clients past %d share one slot, %" PRIu64
				" ops on paths past %d and %" PRIu64 " opens past %d handles not tracked\n", m.capped_clients,
				RP_MODEL_MAX_CLIENTS, m.capped_files, RP_MODEL_MAX_FILES, m.capped_handles, RP_MODEL_MAX_HANDLES);
	}
	rp_model_free(&m);
	return rc;
}

const rp_command rp__cmd_model = { &model_spec, model_run };

static struct {
	const char *output;
	uint64_t clients, seed;
	double duration;
	bool quiet;
} go;

static const rp_opt gen_options[] = {
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &go.output, .arg = "TRACE.rpz", .help = "write the trace here (required; renamed into place when complete)" },
	{ .name = "clients", .short_name = 'c', .kind = RP_OPT_UINT, .value = &go.clients, .arg = "N",
	  .help = "clients to generate, shared among the classes as the model's are (default: the model's; 1-4096)", .min = 1, .max = 4096 },
	{ .name = "duration", .short_name = 't', .kind = RP_OPT_DURATION, .value = &go.duration, .arg = "TIME",
	  .help = "the trace's length: the model's chunks in turn, again from the first (default: the model's span; a timed model only)", .min = 1e-3, .max = 1e7 },
	{ .name = "seed", .kind = RP_OPT_UINT, .value = &go.seed, .arg = "S", .help = "the random seed: the same seed gives the same trace, byte for byte (default 1)", .min = 0, .max = UINT64_MAX },
	{ .name = "quiet", .short_name = 'q', .kind = RP_OPT_FLAG, .value = &go.quiet, .help = "print nothing but errors" },
	{ .name = NULL },
};

static const rp_cmd gen_spec = {
	.name = "generate",
	.usage = "[options] MODEL.json -o TRACE.rpz",
	.summary = "a synthetic trace that follows a model chunk by chunk (replayable, prepare included)",
	.details = "Each chunk's op mix is drawn per client (the model's per-client share of its class), shuffled,\n"
		   "and laid out with gaps and latencies drawn from the chunk's histograms; sizes and seeks from its\n"
		   "size and seek histograms.  The files of the model's set that existed before its trace become the\n"
		   "trace's initial set (under /gen/cN, each client's, and /gen/shared), which `replay`'s prepare\n"
		   "creates; an I/O goes to a handle opened before it, closed after; an unlink or rename names a\n"
		   "closed file of the client's own; failed opens and stats name a missing file and expect ENOENT, so\n"
		   "a replay has no mismatches.  What was added or dropped to keep those rules is printed.",
	.opts = gen_options,
	.min_args = 1,
	.max_args = 1,
};

/* MODEL read whole into *buf: 0, or 1 after printing why. */
static int read_file(const char *path, char **buf, size_t *len)
{
	FILE *const f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		rp__cli_err("generate", "%s: %s", path, strerror(errno));
		return 1;
	}
	size_t cap = 65536, n = 0;
	char *b = malloc(cap);
	int rc = b ? 0 : 1;
	while (rc == 0) {
		if (n == cap) {
			char *const nb = cap < MODEL_FILE_MAX ? realloc(b, cap * 2) : NULL;
			if (!nb) {
				rp__cli_err("generate", "%s: over %" PRIu64 " MiB: not a model", path, MODEL_FILE_MAX >> 20);
				rc = 1;
				break;
			}
			b = nb;
			cap *= 2;
		}
		const size_t r = fread(b + n, 1, cap - n, f);
		n += r;
		if (r == 0) {
			if (ferror(f)) {
				rp__cli_err("generate", "%s: read error", path);
				rc = 1;
			}
			break;
		}
	}
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

static int gen_run(int argc, char **argv)
{
	memset(&go, 0, sizeof(go));
	go.seed = 1;
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&gen_spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	if (!go.output) {
		rp__cli_err("generate", "-o TRACE.rpz is required");
		return 2;
	}
	int rc = rp__cli_out_check("generate", go.output, pos[0]);
	if (rc)
		return rc;
	char *buf;
	size_t len;
	if (read_file(pos[0], &buf, &len))
		return 1;
	rp_model m;
	char eb[RP_ERRBUF_SIZE];
	rc = rp_model_read_json(&m, buf, len, eb, sizeof(eb));
	free(buf);
	if (rc < 0) {
		rp__cli_err("generate", "%s: %s", pos[0], eb);
		return 1;
	}
	if (go.duration > 0 && m.span_ns == 0 && !go.quiet)
		fprintf(stderr, "reprise generate: the model is untimed (one chunk): --duration does nothing\n");
	rp_outfile of;
	if (rp__cli_out_open_with(&of, "generate", go.output, RP_OUT_SIGNAL_REMOVES)) {
		rp_model_free(&m);
		return 1;
	}
	rp_rpz_writer *w = NULL;
	const rp_rpz_wopts wo = { 0 };
	const char *const slash = strrchr(pos[0], '/');
	const rp_gen_opts gopts = { .clients = (uint32_t)go.clients, .duration_ns = (uint64_t)(go.duration * 1e9 + 0.5),
				    .seed = go.seed, .name = slash ? slash + 1 : pos[0] };
	rp_gen_stats st;
	rc = rp_rpz_writer_open_file(&w, of.f, go.output, &wo, eb);
	if (rc == 0)
		rc = rp_model_generate(&m, &gopts, rp_rpz_writer_sink(w), &st, eb);
	if (w) {
		char eb2[RP_ERRBUF_SIZE];
		const int crc = rp_rpz_writer_close(w, eb2);
		if (rc == 0 && crc < 0) {
			rc = crc;
			memcpy(eb, eb2, sizeof(eb));
		}
	}
	rp_model_free(&m);
	if (rc < 0) {
		rp__cli_err("generate", "%s: %s", go.output, eb);
		rp_outfile_abort(&of);
		return 1;
	}
	rc = rp__cli_out_commit(&of, "generate");
	if (rc == 0 && !go.quiet)
		fprintf(stderr, "reprise generate: %" PRIu64 " ops, %u clients, %u chunk%s, %" PRIu64 " initial files; added %" PRIu64
			" opens and %" PRIu64 " closes, dropped %" PRIu64 " ops with nothing to act on, %" PRIu64
			" of kinds not generated\n", st.ops, st.clients, st.chunks, st.chunks == 1 ? "" : "s", st.files,
			st.added_opens, st.added_closes, st.dropped, st.unsupported);
	return rc;
}

const rp_command rp__cmd_generate = { &gen_spec, gen_run };
