/* Reading any input the CLI accepts (trace, loadfile, pcap) into a sink, with progress. */
#ifndef REPRISE_CLI_INPUT_H
#define REPRISE_CLI_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/capture.h"
#include "converters/pump.h"
#include "converters/registry.h"
#include "formats/reader.h"
#include "formats/sink.h"

typedef struct rp_input_opts {
	bool lenient;         /* loadfiles: skip and count bad lines */
	bool strict;          /* pcaps: fail when anything was lossy */
	bool quiet;           /* no summary, no progress */
	bool verbose;         /* say which producer reads the input, and what a stream spooled */
	bool client_key_set;  /* --client-key was given: warn if the input is no capture */
	bool filter_client;   /* only the ops of client (every producer; a warning when none) */
	uint32_t client;
	bool window;          /* only the ops that start in [from_ns, to_ns) of the trace's time */
	uint64_t from_ns, to_ns;
	uint64_t seek_ns;     /* an .rpz: start at the frame the index gives for this time (the caller filters by time) */
	uint64_t *seek_skipped; /* if not NULL: the ops the index let it pass over */
	rp_capture_opts capture;
	const char *csv;      /* --csv: a CSV block or inode trace with this preset or column map (converters/csv.h) */
	const char *cmd;      /* "convert", for messages */
	bool *cut;            /* if not NULL: set when the input was cut (a pcap ending inside a packet,
				 a cut or unfinished .rpz): what was read stands, later ops are missing */
	rp_capture_stats *capture_stats; /* if not NULL: a packet capture's outcome counters, and */
	bool *capture_seen;              /* set when the input was one */
} rp_input_opts;

/* An input the user named (converters/pump.h: a stream is spooled to an unlinked file first). */
typedef rp_conv_input rp_cli_in;

/* Open arg (spooling a stream): 0, or an exit status after printing the error. */
int rp__cli_in_open(rp_cli_in *in, const char *cmd, const char *arg);
/*
 * An input that only a converter reads (an strace log, a CTF trace, reprise cat's text form) converted into an
 * unlinked .rpz in $TMPDIR that takes its place (in->path /dev/fd/N), so
 * what reads stored forms (replay) reads it too; other inputs are left as
 * they are.  Prints the conversion's summary.  0, or an exit status after
 * printing the error.
 */
int rp__cli_in_convert(rp_cli_in *in, const char *cmd, bool lenient);
/* An unlinked temporary file in $TMPDIR (a conversion, a merge): its fd, or -1 after printing why (name: the input's). */
int rp__cli_tmp_file(const char *cmd, const char *name);

/* Parse --client-key: "addr+principal" (also NULL: the default), "addr" or "conn"; -1 if bad. */
int rp__cli_client_key(const char *s, rp_client_key *out);

/*
 * --from/--until in seconds of trace time (0: not given) into io's window:
 * 0, or 2 after printing a usage error (--until not after --from).
 */
int rp__cli_window(const char *cmd, double from_s, double to_s, rp_input_opts *io);
/* The option table entries of --from and --until (bounds inline), shared by stat, cat and convert. */
#define RP_CLI_WINDOW_OPTS(from, until)                                                                              \
	{ .name = "from", .kind = RP_OPT_DURATION, .value = (from), .arg = "TIME", .help = "only ops that start at or after TIME of the trace (10, 1.5s, 2m)", .min = 0, .max = 1e9 }, \
	{ .name = "until", .kind = RP_OPT_DURATION, .value = (until), .arg = "TIME", .help = "only ops that start before TIME of the trace", .min = 0, .max = 1e9 }

/* --csv SPEC, the same in every command that reads an input. */
#define RP_CLI_CSV_OPT(var)                                                                                      \
	{ .name = "csv", .kind = RP_OPT_STRING, .value = (var), .arg = "SPEC",                                     \
	  .help = "the input is a CSV I/O trace: a preset (msr, fiu, alibaba, tencent) or a column map such as time=1,op=4,offset=5,size=6,device=2 (docs/csv.md)" }

/*
 * Pump the input at path into sink (meta, strings, ops, finish).  Prints the
 * conversion summary (pcaps) or the skipped-line count (lenient loadfiles)
 * and notes such as "cut at byte N" on stderr, and a progress bar when stderr
 * is a terminal.  Every name in a message is escaped (rp__cli_err).  Returns
 * 0, or a nonzero exit status after printing the error.
 */
int rp__cli_pump(const char *path, rp_sink *sink, const rp_input_opts *opts);

#endif
