/* reprise model's pieces shared by cli/cmd_model.c and cli/cmd_model_check.c. */
#ifndef REPRISE_CLI_MODEL_CLI_H
#define REPRISE_CLI_MODEL_CLI_H

#include <stdbool.h>

#include "results/model.h"

/* The model of the trace at path (two passes): 0, or an exit status after printing why. */
int rp__cli_model_build(const char *path, double chunk_s, bool lenient, rp_model *m);

typedef struct rp_check_opts {
	const char *target; /* NULL: a temporary directory */
	unsigned runs;      /* replays of each trace, alternating */
	double chunk_s;     /* the model's --chunk (0: its default) */
	bool afap;          /* replay as fast as possible (default: trace timing when timed) */
	bool json, lenient, quiet;
} rp_check_opts;

/* reprise model --check TRACE: the report on stdout; 0, or an exit status after printing why. */
int rp__cli_model_check(const char *trace, const rp_check_opts *o);

#endif
