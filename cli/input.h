/* Reading any input the CLI accepts (trace, loadfile, pcap) into a sink, with progress. */
#ifndef REPRISE_CLI_INPUT_H
#define REPRISE_CLI_INPUT_H

#include <stdbool.h>

#include "capture/capture.h"
#include "converters/registry.h"
#include "formats/reader.h"
#include "formats/sink.h"

typedef struct rp_input_opts {
	bool lenient;         /* loadfiles: skip and count bad lines */
	bool strict;          /* pcaps: fail when anything was lossy */
	bool quiet;           /* no summary, no progress */
	bool filter_client;   /* only the ops of client (every producer; a warning when none) */
	uint32_t client;
	rp_capture_opts capture;
	const char *cmd;      /* "convert", for messages */
	bool *cut;            /* if not NULL: set when the input was cut (a pcap ending inside a packet,
				 a cut or unfinished .rpz): what was read stands, later ops are missing */
	rp_capture_stats *capture_stats; /* if not NULL: a packet capture's outcome counters, and */
	bool *capture_seen;              /* set when the input was one */
} rp_input_opts;

/* Parse --client-key: "addr+principal" (also NULL: the default), "addr" or "conn"; -1 if bad. */
int rp__cli_client_key(const char *s, rp_client_key *out);

/*
 * Pump the input at path into sink (meta, strings, ops, finish).  Prints the
 * conversion summary (pcaps) or the skipped-line count (lenient loadfiles)
 * and notes such as "cut at byte N" on stderr, and a progress bar when stderr
 * is a terminal.  Every name in a message is escaped (rp__cli_err).  Returns
 * 0, or a nonzero exit status after printing the error.
 */
int rp__cli_pump(const char *path, rp_sink *sink, const rp_input_opts *opts);

#endif
