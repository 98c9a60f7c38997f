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
#include "results/fidelity.h"

/* One side: what `reprise stat` summarised of one input. */
typedef struct rp_stat_side {
	const char *arg; /* the input as the user named it */
	const rp_summary *sum;
	const rp_trace_meta *meta;
	const rp_plan *plan;
	const rp_fid *fid; /* the closed loop's measures (results/fidelity.h), or NULL */
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

/* The core ops compared, each A's and B's (rp_fid_core's fields): X(field, "label"). */
#define RP_STAT_CORE_MAP(X)                                                                          \
	X(creates, "creates") X(mkdirs, "mkdirs") X(deletes, "deletes") X(renames, "renames")        \
	X(truncates, "truncates") X(bytes_read, "bytes read") X(bytes_written, "bytes written")
#define RP__STAT_CORE_ENUM(f, label) RP_STAT_CORE_##f,
enum { RP_STAT_CORE_MAP(RP__STAT_CORE_ENUM) RP_STAT_CORE__COUNT };
#undef RP__STAT_CORE_ENUM

/*
 * The closed loop (B as a replay of A, both with measures): the core ops,
 * each differing when B is more than the threshold (in percent of A's) away
 * from A; each file's core ops in order, differing when fewer than 100 -
 * threshold percent of the files agree; and the load beside them.
 */
typedef struct rp_stat_loop {
	bool have; /* both sides have measures */
	rp_fid_view a, b;
	rp_fid_cmp cmp;
	uint64_t core_a[RP_STAT_CORE__COUNT], core_b[RP_STAT_CORE__COUNT];
	bool core_differs[RP_STAT_CORE__COUNT];
	bool order_differs;
	unsigned n_differ; /* core counters that differ, and the order */
} rp_stat_loop;
/* RP_OK, or RP_E_NOMEM. */
int rp__res_stat_loop(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, rp_stat_loop *l);
const char *rp__res_stat_core_label(unsigned i);

/* The side-by-side table and the verdict line ("op mix: same ..." or "op mix: differs ..."). */
void rp__res_stat_diff_print(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, FILE *f);

/* {"schema", "schema_version", "a", "b", "diff"} (docs/stat-json.md): 0, or -1 with why in err. */
int rp__res_stat_diff_json(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, FILE *f,
			   char *err, size_t errsize);

#endif
