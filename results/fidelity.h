/*
 * The closed loop's measures of one trace (`reprise stat --diff ORIGINAL REPLAYED`): what a
 * file system was made to do, in terms that hold across protocols.  Fed each op once, as the
 * summary is; two of them compared say whether a replay did to each file what the original did,
 * in the same order, with the same load (docs/stat-json.md, "closed loop").
 */
#ifndef REPRISE_RESULTS_FIDELITY_H
#define REPRISE_RESULTS_FIDELITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/op.h"

/* Leading path components a side may be stripped of to align the two (a replay's target directory). */
#define RP_FID_STRIP_MAX 6
/* Names (string ids), files and open handles held: past any of these the per-file order is not compared. */
#define RP_FID_NAMES_MAX (1u << 21)
#define RP_FID_FILES_MAX (1u << 20)
#define RP_FID_HANDLES_MAX (1u << 20)

typedef struct rp_fid rp_fid;

rp_fid *rp_fid_create(void);
void rp_fid_destroy(rp_fid *f); /* NULL is a no-op */
/* A string of the trace (its id as the ops name it).  RP_OK or RP_E_NOMEM. */
int rp_fid_string(rp_fid *f, uint32_t id, const char *s, uint32_t len);
/* One op, in the trace's order.  RP_OK or RP_E_NOMEM. */
int rp_fid_op(rp_fid *f, const rp_op *op);

/*
 * The core ops: what changes or moves a file's data or names, counted when it
 * succeeded, whatever the protocol called it (an SMB create of a directory is
 * a mkdir, a delete-on-close a delete, an NFS CREATE or an open with O_CREAT
 * that made the file a create).
 */
typedef struct rp_fid_core {
	uint64_t creates, mkdirs, deletes, renames, truncates;
	uint64_t bytes_read, bytes_written;
} rp_fid_core;

typedef struct rp_fid_view {
	rp_fid_core core;
	uint64_t files;         /* files (paths) a core op touched */
	bool files_capped;      /* a limit above was reached: the per-file order is not compared */
	double span_s;          /* first op start to last op end, sleeps excluded */
	double in_flight_mean;  /* the ops' summed durations over the span (Little's law); 0 without replies */
	uint64_t gaps;          /* inter-arrival gaps counted */
} rp_fid_view;
void rp_fid_get(const rp_fid *f, rp_fid_view *v);

/* Files whose core ops differ, named (the first found): their path and each side's steps. */
#define RP_FID_SAMPLES 8
/* A path named in a sample: at most this many bytes of it (the rest cut). */
#define RP_FID_NAME_MAX 200
/* Steps kept per file for a sample: the first ones. */
#define RP_FID_TRAIL 15
typedef struct rp_fid_sample {
	char path[RP_FID_NAME_MAX + 1]; /* A's name when A has the file, else B's ("" when it was not kept) */
	/* Each side's first steps, one letter a step (C create, K mkdir, D delete, N renamed away, M renamed
	 * to, R reads, W writes, Z truncate, L link, S symlink); "" where that side has no such file. */
	char a[RP_FID_TRAIL + 1], b[RP_FID_TRAIL + 1];
	bool a_more, b_more; /* a side has more steps than shown */
} rp_fid_sample;

/* A and B compared (B as a replay of A). */
typedef struct rp_fid_cmp {
	unsigned strip_a, strip_b;   /* leading components stripped from each side's paths to align them */
	uint64_t files_a, files_b;   /* files with a core op, after the strip */
	uint64_t files_matched;      /* in both */
	uint64_t files_same;         /* in both, with the same sequence of core ops */
	bool compared;               /* false: a side was capped (files_* then 0) */
	double order_agree_pct;      /* files_same over the files of either side, percent (100 when none) */
	double ks;                   /* Kolmogorov-Smirnov distance of the inter-arrival gaps, 0..1 (log buckets) */
	rp_fid_sample samples[RP_FID_SAMPLES]; /* files that differ: first A's that B lacks or has otherwise, then B's alone */
	unsigned n_samples;
} rp_fid_cmp;
/* Compare (no side is changed).  RP_OK, or RP_E_NOMEM. */
int rp_fid_compare(const rp_fid *a, const rp_fid *b, rp_fid_cmp *c);

#endif
