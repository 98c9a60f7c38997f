/* Option tables: one table per command drives parsing, --help and the man page. */
#ifndef REPRISE_CLI_OPTS_H
#define REPRISE_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Positional arguments a command takes at most: merge's and --clients-from's
 * inputs (each read in turn, so no file descriptor limit applies).  The
 * commands keep them in an array on the stack, 32 KiB at this size.
 */
#define RP_OPTS_MAX_POS 4096

typedef enum rp_optkind {
	RP_OPT_FLAG,   /* bool, no argument */
	RP_OPT_STRING, /* const char * */
	RP_OPT_UINT,   /* uint64_t, decimal or 0x hex */
	RP_OPT_DOUBLE, /* double */
	RP_OPT_DURATION, /* double seconds; accepts 10, 10s, 250ms, 2m, 1h */
	RP_OPT_LIST,   /* rp_optlist: a string option given several times (bench --target A --target B) */
} rp_optkind;

/* At most this many values of one repeatable option: more is a usage error. */
#define RP_OPTLIST_MAX 64

typedef struct rp_optlist {
	const char *v[RP_OPTLIST_MAX]; /* in the order given */
	size_t n;
} rp_optlist;

typedef struct rp_opt {
	const char *name;  /* long name without "--" */
	char short_name;   /* 0 if none */
	rp_optkind kind;
	void *value;       /* bool*, const char**, uint64_t*, double*, rp_optlist* */
	const char *arg;   /* argument name for help ("N", "FILE"); NULL for flags */
	const char *help;
} rp_opt;

/*
 * The values a numeric option accepts, both ends included: outside them is a
 * usage error naming the option.  Every numeric option of a command has one
 * (parsing one without is refused as a bug); write the range into its help too.
 */
typedef struct rp_optrange {
	const char *name; /* the option's long name */
	double min, max;
} rp_optrange;

typedef struct rp_cmd {
	const char *name;
	const char *usage;   /* "IN OUT" */
	const char *summary; /* one line */
	const char *details; /* paragraphs for --help and the man page; may be NULL */
	/* Text made from tables at run time (replay: the backends), after details in --help and the man page; may be NULL. */
	void (*details_more)(FILE *f);
	const rp_opt *opts;  /* terminated by an entry with name NULL */
	const rp_optrange *ranges; /* of every numeric option in opts; terminated by an entry with name NULL */
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
/* Parse a duration ("10", "1.5s", "250ms", "2m", "1h") into seconds; -1 if bad. */
double rp_parse_duration(const char *s);

#endif
