/* The reprise subcommands. */
#ifndef REPRISE_CLI_COMMANDS_H
#define REPRISE_CLI_COMMANDS_H

#include "cli/opts.h"

typedef struct rp_command {
	const rp_cmd *spec;
	int (*run)(int argc, char **argv); /* argv[0] is the command name; returns the exit status */
} rp_command;

extern const rp_command rp__cmd_convert;
extern const rp_command rp__cmd_merge;
extern const rp_command rp__cmd_cat;
extern const rp_command rp__cmd_stat;
extern const rp_command rp__cmd_capture;
extern const rp_command rp__cmd_replay;
extern const rp_command rp__cmd_bench;
extern const rp_command rp__cmd_compare;
extern const rp_command rp__cmd_anonymize;
extern const rp_command rp__cmd_model;
extern const rp_command rp__cmd_generate;

#endif
