/* reprise model --check: what a trace and the trace generated from its model are compared by (docs/model.md). */
#ifndef REPRISE_RESULTS_MODEL_CHECK_H
#define REPRISE_RESULTS_MODEL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "formats/sink.h"
#include "results/model.h"

/*
 * The two-sample Kolmogorov-Smirnov statistic of a[0..na) and b[0..nb): the
 * largest difference between their empirical CDFs, in [0, 1].  Sorts both in
 * place.  0 when both are empty, 1 when only one is.
 */
double rp_ks2(double *a, size_t na, double *b, size_t nb);

/*
 * The same between two log2 histograms, at their bucket edges (what the
 * histograms know; a lower bound of the statistic of the values behind them).
 */
double rp_mh_ks(const rp_mhist *a, const rp_mhist *b);

/* Inter-arrival gaps kept per trace: past this many, a uniform sample of them (reservoir, seeded). */
#define RP_CHECK_GAPS_MAX (1u << 20)

/*
 * A sink that counts a trace's ops by kind and keeps its inter-arrival gaps:
 * ns between a client's successive op starts (sleeps aside, as in the model;
 * clients past RP_MODEL_MAX_CLIENTS share the last slot, as there).
 */
typedef struct rp_check_sample {
	rp_sink base;
	uint64_t ops[RP_OP__COUNT];
	uint64_t n_ops;   /* all but sleeps */
	double *gaps;     /* ns */
	size_t n_gaps;    /* kept */
	uint64_t seen;    /* gaps seen (n_gaps when at most RP_CHECK_GAPS_MAX) */
	uint64_t *last;   /* per client slot: the previous start + 1, 0 for none */
	rp_rng rng;
	bool timed;       /* some op had a start after 0 */
} rp_check_sample;

int rp_check_sample_init(rp_check_sample *s, uint64_t seed); /* 0 or RP_E_NOMEM */
void rp_check_sample_fini(rp_check_sample *s);

/* The largest difference of one op kind's share of a and b (sleeps aside), in percentage points; *op its kind. */
double rp_check_mix_diff(const rp_check_sample *a, const rp_check_sample *b, unsigned *op);

#endif
