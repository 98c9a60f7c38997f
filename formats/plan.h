/*
 * The prepare plan: trace analysis below replay.  One scan of a trace says
 * which clients it has, which directories and files it uses but never
 * creates (with the size its reads need), and, for a trace replayed in a
 * loop, which of its creations find what the previous pass left.  replay
 * runs the plan through its backend; `convert --prepare` writes it as
 * loadfile ops; `reprise stat` prints it.
 */
#ifndef REPRISE_FORMATS_PLAN_H
#define REPRISE_FORMATS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/op.h"
#include "formats/reader.h"
#include "formats/source.h"

/* A directory or file that must exist before the workload starts. */
typedef struct rp_plan_item {
	char *path;    /* relative, '/'-separated (formats/path.h) */
	bool dir;
	uint64_t size; /* files: the size the trace's reads need (at most 2^63 - 1); 0 for directories */
} rp_plan_item;

typedef struct rp_plan_opts {
	bool items; /* follow paths and plan what must exist (false: clients and timing only) */
	bool loops; /* a second pass from the state the first leaves: the loop conflicts */
	bool shares; /* find what the trace's clients share (rp_plan.share): replay's --order auto */
} rp_plan_opts;

/*
 * The recorded in-flight depth of one client's ops, from their t_start and
 * t_end: at each op's start, how many of its ops' recorded intervals cover
 * it, itself included.  An op with no recorded end covers only its start.
 */
typedef struct rp_plan_depth {
	uint64_t ops, sum; /* mean = sum / ops */
	uint32_t max;
} rp_plan_depth;

/*
 * What ties the trace's clients together (rp_plan_opts.shares; first pass):
 * replay's --order auto keeps the recorded order across clients when any of
 * these is not 0.  A path is an op's path, normalised (formats/path.h), and
 * rename's and link's second one, as replay's resource order names them; an
 * op that names no path changes its handle's open's.  A path only looked at,
 * opened and read by several clients ties nothing: no order among those ops
 * changes what any of them gets.
 */
typedef struct rp_plan_share {
	uint64_t paths;   /* paths named by ops of two or more clients, at least one op of which changes it (creates,
			   * removes, renames, writes, sets attributes, locks) */
	uint64_t handles; /* ops on a handle their client never opened and another client did */
	uint64_t forks;   /* clients made by a fork op of another client of the trace */
	uint64_t waits;   /* clients a wait op of another client waits for */
} rp_plan_share;

typedef struct rp_plan {
	rp_plan_item *items; /* sorted by path (strcmp): a parent before everything beneath it */
	size_t n_items;
	uint64_t dirs, files, bytes; /* of items */
	uint32_t *clients;   /* the trace's client ids, ascending */
	rp_plan_depth *depth; /* each client's recorded depth, as clients */
	/*
	 * Each client's parent, as clients: the client id + 1 of the first
	 * successful fork op whose result is this client (0: none).  Replay
	 * starts such a client once that op has been replayed.
	 */
	uint64_t *parent;
	size_t n_clients;
	uint64_t ops;        /* ops scanned (one pass) */
	uint32_t protos;     /* bit (1 << rp_proto) for each producer its ops name (op.proto) */
	uint32_t flags_every; /* the op flags (rp_op.flags) every op with a producer carries (0: no such op) */
	bool timed;          /* some op has a start time */
	rp_plan_share share; /* rp_plan_opts.shares: what the clients share (zero: nothing, or not asked) */
	/*
	 * Loop conflicts, ascending: client << 32 | the op's index among its
	 * client's ops (from 1, as the client numbers them in each pass), for
	 * each creation that fails with EEXIST in every pass after the first.
	 */
	uint64_t *conflicts;
	size_t n_conflicts;
	/*
	 * rp_plan_opts.items: the first component of every path the trace
	 * names, distinct, in strcasecmp order, so that what prepare adds
	 * beside the trace's paths (an image) takes a name none of them uses.
	 */
	char **tops;
	size_t n_tops;
} rp_plan;

/*
 * Scan every op of src (rewound for the loop pass) into *p.  0, or a
 * negative rp error with the detail in errbuf (p is then empty).  An empty
 * trace gives an empty plan: whether that is an error is the caller's call.
 */
int rp_plan_build(rp_plan *p, rp_op_source *src, const rp_plan_opts *opts, char *errbuf);
/* The same over ops in memory, their strings through str. */
int rp_plan_ops(rp_plan *p, const rp_op *ops, size_t n_ops, rp_string_fn str, void *str_ctx,
		const rp_plan_opts *opts, char *errbuf);
/* The same over a reader, from where it stands (rewound for the loop pass). */
int rp_plan_reader(rp_plan *p, rp_reader *r, const rp_plan_opts *opts, char *errbuf);

/*
 * The same as a sink, for ops pushed as they are read (a packet capture
 * decoded on the fly): one pass, so no loop conflicts.  Create, feed the
 * sink (metadata, strings, ops), finish into *p, destroy.
 */
typedef struct rp_plan_sink rp_plan_sink;
int rp_plan_sink_create(rp_plan_sink **out, const rp_plan_opts *opts); /* 0 or RP_E_NOMEM */
rp_sink *rp_plan_sink_base(rp_plan_sink *w);
int rp_plan_sink_finish(rp_plan_sink *w, rp_plan *p, char *errbuf);
void rp_plan_sink_destroy(rp_plan_sink *w); /* NULL is a no-op */

/* Whether the plan lists (client, index) as a loop conflict. */
bool rp_plan_conflict(const rp_plan *p, uint32_t client, uint64_t index);
/* Whether a path of the trace begins with the component name, whatever its case (rp_plan.tops). */
bool rp_plan_uses_top(const rp_plan *p, const char *name);
void rp_plan_free(rp_plan *p); /* and leave it empty; NULL is a no-op */

#endif
