/* Option tables: one table per command drives parsing, --help and the man page. */
#ifndef REPRISE_CLI_OPTS_H
#define REPRISE_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/optdesc.h"

/*
 * Positional arguments a command takes at most: merge's and --clients-from's
 * inputs (each read in turn, so no file descriptor limit applies).  The
 * commands keep them in an array on the stack, 32 KiB at this size.
 */
#define RP_OPTS_MAX_POS 4096

/* At most this many values of one repeatable option: more is a usage error. */
#define RP_OPTLIST_MAX 64

typedef struct rp_optlist {
	const char *v[RP_OPTLIST_MAX]; /* in the order given */
	size_t n;
} rp_optlist;

/*
 * One option: the shared descriptor (formats/optdesc.h), whose value points
 * at the variable it sets (bool*, const char**, uint64_t*, double* seconds
 * for a duration, unsigned* for an enum's index, rp_optlist*) and whose
 * bounds (every numeric option has them, min and max inline: a max of 0 is
 * refused as a bug) and choices are checked by its one parser: outside them is a usage error naming the option.
 */
typedef rp_optdesc rp_opt;

typedef struct rp_cmd {
	const char *name;
	const char *usage;   /* "IN OUT" */
	const char *summary; /* one line */
	const char *details; /* paragraphs for --help and the man page; may be NULL */
	/* Text made from tables at run time (replay: the backends), after details in --help and the man page; may be NULL. */
	void (*details_more)(FILE *f);
	const rp_opt *opts;  /* terminated by an entry with name NULL */
	int min_args, max_args; /* positional arguments; max -1 = any */
	/* The first positional argument ends the options: it and everything after it are a command to run
	 * (reprise capture tar xf t.tar), collected as one positional, pos[0], with *npos 1; the
	 * command's argv is argv from pos[0] on. */
	bool rest_is_command;
} rp_cmd;

/*
 * Parse argv (argv[0] is the command name) against cmd.  Positional arguments
 * are collected into pos (room for RP_OPTS_MAX_POS entries; more is an error); "--" ends options and the
 * rest are positional.  Returns 0, 1 if --help was printed, or -1 after
 * printing an error to stderr.
 */
int rp_opts_parse(const rp_cmd *cmd, int argc, char **argv, char **pos, int *npos);
void rp_opts_help(const rp_cmd *cmd, FILE *f);
/* Names longer than this are never compared (a typo's suggestion is for option and command names). */
#define RP_EDIT_MAX 63
/* Edits (insert, delete, replace, swap of neighbours) from a to b; SIZE_MAX when either is over RP_EDIT_MAX. */
size_t rp__cli_edit_distance(const char *a, const char *b);
/* The one of names[0..n) near enough to word to be what a typo meant ("did you mean"), else NULL. */
const char *rp__cli_closest(const char *word, const char *const *names, size_t n);
/* Parse a duration ("10", "1.5s", "250ms", "2m", "1h") into seconds; -1 if bad. */
double rp_parse_duration(const char *s);

#endif
