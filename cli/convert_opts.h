/* The input and output options convert, anonymize and merge share: their table entries (cli/opts.h) and ranges. */
#ifndef REPRISE_CLI_CONVERT_OPTS_H
#define REPRISE_CLI_CONVERT_OPTS_H

#include "cli/opts.h"

/*
 * One entry per option, each naming the variable it sets.  A command that
 * writes more kinds of output, or says more on stderr, adds to the common
 * help text (a string literal, "" for none), so each option is spelt once
 * and reads the same in every command's --help.
 */
#define RP_CLI_CONVERT_OPT_FORMAT(var, formats) \
	{ "format", 0, RP_OPT_STRING, &(var), "FORMAT", "output format: " formats " (default: from OUT's extension)" }
#define RP_CLI_CONVERT_OPT_LEVEL(var, more) \
	{ "level", 0, RP_OPT_UINT, &(var), "N", "rpz: zstd compression level, 1-22 (default 9" more ")" }
#define RP_CLI_CONVERT_OPT_LENIENT(var) \
	{ "lenient", 0, RP_OPT_FLAG, &(var), NULL, "loadfile, text or strace input: skip bad lines, count and report them" }
#define RP_CLI_CONVERT_OPT_STRICT(var, more)                                                                        \
	{ "strict", 0, RP_OPT_FLAG, &(var), NULL,                                                                   \
	  "pcap input: fail when anything was truncated, invalid, unsupported, unmatched, encrypted or lost" more }
#define RP_CLI_CONVERT_OPT_QUIET(var, what) { "quiet", 'q', RP_OPT_FLAG, &(var), NULL, "no " what " on stderr" }
#define RP_CLI_CONVERT_OPT_VERBOSE(var, more) { "verbose", 'v', RP_OPT_FLAG, &(var), NULL, "say how IN is read" more }

/* zstd's levels (ZSTD_maxCLevel); its negative "fast" levels are not offered. */
#define RP_CLI_CONVERT_LEVEL_RANGE { "level", 1, 22 }

#endif
