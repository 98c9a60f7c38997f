/*
 * Scaling a trace in space (convert --scale-space N, issue 27): N copies of
 * every client, each copy's paths under its own directory (/client1 ...
 * /clientN, the directories replay --clients gives its copies), clients,
 * fork children and handles renumbered (converters/merge.h), each copy
 * shifted by an offset drawn from a seed so the copies do not run in
 * lockstep (docs/slice.md).
 */
#ifndef REPRISE_CONVERTERS_SCALE_H
#define REPRISE_CONVERTERS_SCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/sink.h"

/* --scale-jitter: the parts of a copy's span whose rates are drawn, and the largest jitter (a rate of at least 0.1). */
#define RP_SCALE_SEGMENTS 32u
#define RP_SCALE_JITTER_MAX 0.9

/*
 * The copies' correlation (issue 27: at most 0.1 between any two copies): the Pearson correlation
 * of two copies' op starts (sleeps left out) per RP_SCALE_BIN_NS bin, over the whole bins from the
 * later first start to the earlier last start; a pair of fewer than RP_SCALE_BINS_MIN bins is not
 * counted.  Each copy's offset and clock are drawn again (RP_SCALE_DRAWS draws at most) until its
 * correlation with every copy before it is at most RP_SCALE_CORR_TARGET, else the draw of the
 * smallest worst pair is kept; then, in up to RP_SCALE_ROUNDS rounds, each copy still over the
 * target with another is drawn again against all the others, the redraws visiting at most
 * RP_SCALE_CORR_WORK starts and bins (seconds).  Above RP_SCALE_CORR_STARTS_MAX starts of all
 * copies together, or when measuring every pair once would visit more than RP_SCALE_CORR_WORK,
 * nothing is measured (and nothing drawn again); a pair of over RP_SCALE_BINS_MAX bins is not
 * counted.
 */
#define RP_SCALE_BIN_NS 100000000ull
#define RP_SCALE_BINS_MIN 10u
#define RP_SCALE_CORR_TARGET 0.05
#define RP_SCALE_DRAWS 64u /* draws of one copy at a time at most */
#define RP_SCALE_ROUNDS 8u  /* rounds over every copy after the first placing at most */
#define RP_SCALE_CORR_STARTS_MAX (1ull << 24) /* 128 MiB of times */
#define RP_SCALE_BINS_MAX (1ull << 22)        /* 4.8 days at 100 ms: 32 MiB of counts */
#define RP_SCALE_CORR_WORK (1ull << 30)       /* starts and bins visited: about a second */

/* Copies of one trace at most: a client is a replay thread, and replay runs at most 8192 of them. */
#define RP_SCALE_COPIES_MAX 1024u

typedef struct rp_scale_opts {
	uint32_t copies;    /* N, 1 .. RP_SCALE_COPIES_MAX */
	uint64_t seed;      /* the offsets' seed: the same seed, the same output */
	bool lockstep;      /* every offset 0: the copies start together (dbench's clones) */
	uint64_t spread_ns; /* offsets are drawn from [0, spread); 0: the trace's span */
	/* Each copy's clock runs at a rate drawn from [1 - jitter, 1 + jitter] in each of RP_SCALE_SEGMENTS equal
	 * parts of the span (its length kept): 0 to 0.9; 0 (or lockstep): none */
	double jitter;
} rp_scale_opts;

typedef struct rp_scale_stats {
	uint64_t span_ns;     /* the input's span: earliest start to latest known end */
	uint64_t spread_ns;   /* the window the offsets were drawn from */
	bool timed;           /* offsets shift the times; else each copy's clients begin with a sleep */
	double jitter;        /* the jitter applied (0: none: lockstep or an untimed trace) */
	uint32_t clients;     /* client ids a copy uses (its largest + 1) */
	uint64_t handles;     /* handle offset between two copies */
	uint64_t ops;         /* the copies' ops (the lead sleeps not counted) */
	uint64_t offset_min, offset_max; /* of the copies' offsets (ns) */
	/* The copies' correlation (above): over corr_pairs pairs (corr_short more too short to count);
	 * corr_measured false: not measured (an untimed trace, one copy, over the limits) */
	bool corr_measured;
	double corr_mean, corr_max;
	uint32_t corr_pairs, corr_short;
	uint32_t redraws; /* draws of offset and clock past each copy's first, all copies together */
} rp_scale_stats;

/*
 * Write opts->copies copies of in (a finished memsink) into out, in start
 * order.  Copy k (1..N) gets paths under /client<k> and the offset
 * offsets[k-1] when offsets is not NULL (room for N).  A timed trace's copy
 * is shifted by its offset; an untimed one (no span) begins each of the
 * copy's clients (not fork children) with a sleep of that long, which replay
 * keeps in afap and think timing.  The smallest offset is 0.  0 or an rp
 * error (RP_E_INVAL for a copy count out of range, RP_E_LIMIT for ids or
 * times that overflow).
 */
int rp_scale_space_run(const rp_memsink *in, const rp_scale_opts *opts, rp_sink *out, uint64_t *offsets,
		       rp_scale_stats *st, char *errbuf);

#endif
