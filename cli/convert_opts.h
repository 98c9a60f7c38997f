/* The input and output options convert, anonymize and merge share: their table entries (cli/opts.h), bounds inline. */
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
	{ .name = "format", .kind = RP_OPT_STRING, .value = &(var), .arg = "FORMAT", .help = "output format: " formats " (default: from OUT's extension)" }
#define RP_CLI_CONVERT_OPT_LEVEL(var, more) \
	{ .name = "level", .kind = RP_OPT_UINT, .value = &(var), .arg = "N", .help = "rpz: zstd compression level, 1-22 (default 9" more ")", .min = 1, .max = 22 /* zstd's levels (ZSTD_maxCLevel); its negative "fast" levels are not offered */ }
/* The .rpz pattern layer (docs/rpz-format.md §4.4): window, repeat-finder table, off. */
#define RP_CLI_RPZ_PATTERN_OPTS(window, table, off)                                                                   \
	{ .name = "pattern-window", .kind = RP_OPT_UINT, .value = &(window), .arg = "OPS",                              \
	  .help = "rpz: repeat runs of ops found up to OPS back, 16-4194304 (default 524288); the writer and every "     \
	  "reader hold that many ops (about 150 bytes each)", .min = 16, .max = 4194304 /* RPZ_WINDOW_MAX */ },        \
	{ .name = "pattern-table", .kind = RP_OPT_UINT, .value = &(table), .arg = "BITS",                               \
	  .help = "rpz: the writer finds repeats in a table of 2^BITS slots, 10-26 (default 20: 8 MiB)", .min = 10,     \
	  .max = 26 },                                                                                                   \
	{ .name = "no-patterns", .kind = RP_OPT_FLAG, .value = &(off),                                                  \
	  .help = "rpz: no pattern layer: a 2.1 file that 2.0 readers read too (repeats cost as much as the first time)" }
#define RP_CLI_CONVERT_OPT_LENIENT(var) \
	{ .name = "lenient", .kind = RP_OPT_FLAG, .value = &(var), .help = "loadfile, text, strace or CSV input: skip bad lines, count and report them" }
#define RP_CLI_CONVERT_OPT_STRICT(var, more)                                                                        \
	{ .name = "strict", .kind = RP_OPT_FLAG, .value = &(var),                                                                   \
	  .help = "pcap input: fail when anything was truncated, invalid, unsupported, unmatched, encrypted or lost, or no NFS or SMB message came" more }
#define RP_CLI_CONVERT_OPT_QUIET(var, what) { .name = "quiet", .short_name = 'q', .kind = RP_OPT_FLAG, .value = &(var), .help = "no " what " on stderr" }
#define RP_CLI_CONVERT_OPT_VERBOSE(var, more) { .name = "verbose", .short_name = 'v', .kind = RP_OPT_FLAG, .value = &(var), .help = "say how IN is read" more }

#endif
