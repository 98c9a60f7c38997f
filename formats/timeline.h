/* A trace's ops by time interval (`reprise stat --timeline STEP`): where its phases are. */
#ifndef REPRISE_FORMATS_TIMELINE_H
#define REPRISE_FORMATS_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "formats/op.h"

/* More intervals than this is a step too small for the trace (an error naming both). */
#define RP_TIMELINE_MAX 100000

typedef struct rp_timeline rp_timeline;

typedef struct rp_timeline_bin {
	uint64_t ops, bytes_read, bytes_written;
	uint64_t count[RP_OP__COUNT]; /* by rp_summary_kind, deletes done by a close too: as the summary's op mix counts */
} rp_timeline_bin;

/* step_ns >= 1. */
rp_timeline *rp_timeline_create(uint64_t step_ns);
void rp_timeline_destroy(rp_timeline *t); /* NULL is a no-op */
/* Account one op by its t_start: 0, RP_E_NOMEM, or RP_E_LIMIT past RP_TIMELINE_MAX intervals. */
int rp_timeline_add(rp_timeline *t, const rp_op *op);
/* Intervals from t = 0 to the last op's (some may be empty); bin i covers [i * step, (i + 1) * step). */
uint64_t rp_timeline_bins(const rp_timeline *t, const rp_timeline_bin **bins);
uint64_t rp_timeline_step(const rp_timeline *t);
/* A table: one line per interval that has ops (a run of empty ones is one "idle" line), the top op kinds. */
void rp_timeline_print(const rp_timeline *t, FILE *f);

#endif
