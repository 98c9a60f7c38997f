/* reprise replay --mpi and --processes: one run's clients dealt across the ranks of an MPI job or the processes of this host (docs/mpi.md). */
#ifndef REPRISE_CLI_CMD_REPLAY_MPI_H
#define REPRISE_CLI_CMD_REPLAY_MPI_H

#include <stdbool.h>

#include "cli/provenance.h"
#include "cli/replay_cli.h"
#include "replay/replay.h"

/* What cmd_replay.c parsed and checked, for the MPI run. */
typedef struct rp_cli_mpi_args {
	const char *trace;      /* as given */
	rp_replay_opts *ro;     /* from rp__cli_ropts_apply; clones and clone_base are set here per rank */
	const rp_cli_ropts *r;  /* lenient, quiet */
	const char *json;       /* NULL, a file or - */
	bool fail_on_mismatch;
	bool strict_timing;     /* exit 1 when the merged run fell behind its schedule */
	double timeout_s;       /* --mpi-timeout */
	unsigned processes;     /* --processes: this many processes of this host (0: the ranks of an MPI job) */
	int argc;
	char *const *argv;      /* as run: every rank must have the same */
	rp_cli_prov *prov;
} rp_cli_mpi_args;

/* The whole run on this rank: an exit status (rank 0's says how the run went; the others' only their share). */
int rp__cli_replay_mpi(const rp_cli_mpi_args *a);

#endif
