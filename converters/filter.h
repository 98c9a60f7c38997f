/*
 * Slicing a trace: a sink stage that keeps the ops of some clients, some op
 * kinds, a subtree and a time window, scales time, and keeps handles
 * consistent (an op on a handle whose open was dropped is dropped too; with
 * --ops that leaves out open, the opens and closes of the handles kept ops
 * use are kept), so the slice replays without unknown handles (docs/slice.md).
 */
#ifndef REPRISE_CONVERTERS_FILTER_H
#define REPRISE_CONVERTERS_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/sink.h"

/* A client list holds at most this many ranges, and a list argument at most this many bytes: more is a typo. */
#define RP_FILTER_RANGES_MAX 256
#define RP_FILTER_LIST_MAX 4096
/* --scale-time: beyond these a trace's times are either all zero or overflow in a second's worth of ns. */
#define RP_FILTER_SCALE_MIN 1e-9
#define RP_FILTER_SCALE_MAX 1e9

typedef struct rp_filter_range {
	uint32_t lo, hi; /* both included */
} rp_filter_range;

typedef struct rp_filter_opts {
	const rp_filter_range *clients; /* keep only these clients' ops; NULL: every client */
	size_t n_clients;
	uint64_t ops;        /* bit i: keep op code i; 0: every op */
	const char *prefix;  /* keep only ops under this path (component-wise); NULL: any path */
	bool window;         /* keep only ops that start in [from_ns, to_ns) (times before scaling) */
	uint64_t from_ns, to_ns;
	double scale;        /* multiply every time by this; 0 or 1: leave times alone */
} rp_filter_opts;

/* Why an op was dropped. */
typedef enum rp_filter_reason {
	RP_FILTER_CLIENT, /* --clients */
	RP_FILTER_TIME,   /* --from/--to */
	RP_FILTER_OP,     /* --ops */
	RP_FILTER_PATH,   /* --path-prefix */
	RP_FILTER_HANDLE, /* on a handle whose open was dropped, or lies before the window */
	RP_FILTER__REASONS
} rp_filter_reason;

typedef struct rp_filter_stats {
	uint64_t seen, kept;
	uint64_t dropped[RP_FILTER__REASONS];
	uint64_t clients;         /* distinct clients among the kept ops */
	uint64_t t_first, t_last; /* earliest start and latest known end of the kept ops (after scaling) */
	uint32_t strings;         /* strings the output defines (only those kept ops name) */
	/* --ops without open: opens (and dups) kept because a kept op used their handle, and those handles' closes */
	uint64_t needed_opens, needed_closes;
} rp_filter_stats;

/* "clients", "time", ... for the summary. */
const char *rp_filter_reason_name(rp_filter_reason r);

/*
 * "1,3-5" into at most cap ranges: client ids (decimal, up to 2^32-1),
 * ranges lo-hi with lo <= hi, comma-separated, no spaces.  0 or RP_E_INVAL
 * naming the bad item in errbuf.
 */
int rp_filter_parse_clients(const char *s, rp_filter_range *out, size_t cap, size_t *n, char *errbuf);
/* "read,write,open" into a mask of op codes; an unknown name is RP_E_INVAL listing the valid ones. */
int rp_filter_parse_ops(const char *s, uint64_t *mask, char *errbuf);

typedef struct rp_filter rp_filter;

/*
 * A filter writing to inner (which it does not own): meta, strings and ops
 * go through rp_filter_sink(f), what is kept reaches inner with its strings
 * renumbered (only the strings a kept op names are defined).  0 or an rp
 * error (RP_E_INVAL for a scale out of range).
 */
int rp_filter_create(rp_filter **out, const rp_filter_opts *opts, rp_sink *inner, char *errbuf);
rp_sink *rp_filter_sink(rp_filter *f);
const rp_filter_stats *rp_filter_get_stats(const rp_filter *f);
void rp_filter_destroy(rp_filter *f); /* NULL is a no-op */

#endif
