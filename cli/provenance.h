/* Where and how a replay ran, for its JSON (rp_replay_provenance): host, kernel, target, trace hash, CPU time. */
#ifndef REPRISE_CLI_PROVENANCE_H
#define REPRISE_CLI_PROVENANCE_H

#include "replay/replay.h"
#include "results/runenv.h"

/* Arguments with a password in them (--user U%P, --backend-opt password=P) at most, rewritten for the JSON. */
#define RP_CLI_REDACT_MAX 16

typedef struct rp_cli_prov {
	rp_replay_provenance p;
	char **argv; /* a copy made before option parsing reorders the original, passwords as "***" */
	char *redacted[RP_CLI_REDACT_MAX]; /* the arguments rewritten so (freed with it) */
	char features_buf[1024]; /* REPRISE_FEATURES, cut into features */
	const char *features[32];
	rp_runenv_host hostinfo;
	rp_runenv_fs tfs; /* the target's */
	char sha256[65];
	rp_runenv_cpu cpu;
} rp_cli_prov;

/*
 * The version, build features and command line (argv as main gave it to the
 * command, a password given with --user USER%PASS or --backend-opt
 * password=PASS written "***"), and the start time.
 */
int rp__cli_prov_init(rp_cli_prov *pv, int argc, char **argv);
/*
 * The host, the kernel, the target's file system and mount, and the SHA-256
 * of the trace named trace and read from path (its spool when it came
 * through a pipe; a regular file only: a FIFO would lose its data to the
 * hash).  Each is left null when it cannot be found; nothing here fails the run.
 */
void rp__cli_prov_collect(rp_cli_prov *pv, const char *trace, const char *path, const char *target);
/* Only the target's part of the above, for another target (bench: each run's directory). */
void rp__cli_prov_target(rp_cli_prov *pv, const char *target);
/* CPU time of the process from here ... */
void rp__cli_prov_cpu_begin(rp_cli_prov *pv);
/* ... to here, into pv->p.cpu_user_s and cpu_sys_s. */
void rp__cli_prov_cpu_end(rp_cli_prov *pv);
void rp__cli_prov_free(rp_cli_prov *pv);

#endif
