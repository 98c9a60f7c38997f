/* reprise bench: the runs it keeps and the report made from them (cli/cmd_bench.c runs, results/bench_report.c reports). */
#ifndef REPRISE_RESULTS_BENCH_H
#define REPRISE_RESULTS_BENCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "formats/error.h"

/* At most this many runs of each target (--runs): every run's whole replay result is kept for the JSON. */
#define RP_BENCH_RUNS_MAX 100

typedef struct rp_bench_run {
	unsigned run;       /* 1.. within its target */
	bool discarded;     /* --discard-first: kept in the JSON, left out of the summary */
	bool failed;        /* did not run, or ended in an error */
	char error[RP_ERRBUF_SIZE]; /* why, when failed */
	json_t *result;     /* the object `reprise replay --json` writes for the run; NULL when it did not run */
	double load_start;  /* the 1-minute load average when it started; < 0 unknown */
	double steal_share; /* CPU time stolen by the hypervisor over all CPU time during the run, 0..1; < 0 unknown */
} rp_bench_run;

typedef struct rp_bench_target {
	const char *name;   /* as given (--mkfs: the mount point) */
	const char *mkfs;   /* --mkfs: the file system made for it, else NULL */
	const char *fs_type, *mount_opts; /* cli/provenance.c's; NULL when unknown */
	char fs_buf[32], opts_buf[1024];
	bool dead;          /* could not prepare: reported, no more runs */
	/*
	 * A directory within a file system others may write to (not a --mkfs
	 * one, not its mount point): that mount point, for the note that syncfs
	 * flushes the whole file system; NULL otherwise.
	 */
	const char *shared_mount;
	char mount_buf[4096];
	rp_bench_run runs[RP_BENCH_RUNS_MAX];
	size_t n_runs;
	json_t *summary;    /* rp__bench_summary */
} rp_bench_target;

/*
 * The summary of a target's counted runs (not discarded, not failed): the
 * spread {min, median, max} of MB/s, ops/s, latencies and issue lag, the
 * final sync and dirty bytes, and errors and mismatches summed (docs/bench-json.md).
 * NULL when out of memory.
 */
json_t *rp__bench_summary(const rp_bench_target *t);

/*
 * The side-by-side table, made from the targets' summaries (so it says what
 * the JSON says); a target whose MB/s max/min is above spread_limit is
 * flagged, with the runs a stable median needs.
 */
void rp__bench_table(FILE *f, const rp_bench_target *t, size_t n, double spread_limit);

#endif
