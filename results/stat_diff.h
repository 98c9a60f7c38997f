/* `reprise stat --diff A B`: two summaries side by side, the differences marked, an op-mix verdict. */
#ifndef REPRISE_RESULTS_STAT_DIFF_H
#define REPRISE_RESULTS_STAT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "formats/op.h"
#include "formats/plan.h"
#include "formats/sink.h"
#include "formats/summary.h"

/* One side: what `reprise stat` summarised of one input. */
typedef struct rp_stat_side {
	const char *arg; /* the input as the user named it */
	const rp_summary *sum;
	const rp_trace_meta *meta;
	const rp_plan *plan;
} rp_stat_side;

typedef struct rp_stat_diff_opts {
	double threshold;       /* percentage points of share beyond which an op kind's share differs */
	bool restricted;        /* --ops: only the kinds in ops[] are compared */
	bool ops[RP_OP__COUNT];
} rp_stat_diff_opts;

/* The default --diff-threshold, in percentage points (docs/stat-json.md says why). */
#define RP_STAT_DIFF_THRESHOLD 1.0

/* --ops LIST (canonical op names, comma-separated) into o: 0, or -1 with the bad name in eb. */
int rp__res_stat_diff_ops(const char *list, rp_stat_diff_opts *o, char *eb, size_t cap);

/*
 * The op mix: each compared kind's count as a share (percent) of the compared
 * kinds' counts, A's and B's.  The compared kinds are --ops's, else every kind
 * but sleep (think time, nothing a file system sees).  Deletes done by a close
 * count as unlinks and rmdirs, as stat counts them.
 */
typedef struct rp_stat_mix {
	bool compared[RP_OP__COUNT];
	double share_a[RP_OP__COUNT], share_b[RP_OP__COUNT];
	bool differs[RP_OP__COUNT]; /* |share_b - share_a| > threshold */
	unsigned n_differ;
} rp_stat_mix;
void rp__res_stat_mix(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, rp_stat_mix *m);

/* The side-by-side table and the verdict line ("op mix: same ..." or "op mix: differs ..."). */
void rp__res_stat_diff_print(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, FILE *f);

/* {"schema", "schema_version", "a", "b", "diff"} (docs/stat-json.md): 0, or -1 with why in err. */
int rp__res_stat_diff_json(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, FILE *f,
			   char *err, size_t errsize);

#endif
