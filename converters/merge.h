/*
 * Merging traces: the ops of several traces interleaved in time order into
 * one, each input's clients, handles and strings renumbered so that nothing
 * of one input collides with another's (docs/slice.md).
 */
#ifndef REPRISE_CONVERTERS_MERGE_H
#define REPRISE_CONVERTERS_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/sink.h"

/* How the inputs' clocks line up. */
typedef enum rp_merge_align {
	RP_MERGE_START,     /* every input's t = 0 at the merged trace's t = 0 */
	RP_MERGE_WALLCLOCK, /* by each header's capture_start_ns: the earliest starts at 0 */
} rp_merge_align;

/* Where input i went in the merged trace. */
typedef struct rp_merge_map {
	uint32_t client_offset; /* its client c is client_offset + c */
	uint32_t clients;       /* client ids it uses: 0 .. clients-1 before the offset (its largest + 1) */
	uint64_t handle_offset; /* its handle h (not 0) is handle_offset + h */
	uint64_t t_offset;      /* ns added to its times (wallclock alignment) */
	uint64_t ops;
} rp_merge_map;

/*
 * Write the ops of ins[0..n) (each a finished memsink: its strings, ops in
 * its order) into out: meta once (the inputs' common source, host and flags;
 * capture start with wallclock alignment), strings as first used, ops
 * ordered by t_start (an input's own order kept; on equal times the earlier
 * input first), then finish.  maps[i] says where input i went.  0 or an rp
 * error: RP_E_INVAL for wallclock alignment with an input whose capture
 * start is unknown (errbuf names it by index), RP_E_LIMIT when the client or
 * handle ids or the times overflow.
 */
int rp_merge_run(const rp_memsink *const *ins, size_t n, rp_merge_align align, rp_sink *out, rp_merge_map *maps,
		 char *errbuf);

/*
 * Where an input goes besides its renumbering (convert --scale-space: one
 * input given n times, each copy on its own namespace and clock).
 */
typedef struct rp_merge_place {
	/* Its paths (and rename's and link's second paths) normalised and put under this directory, "/client2";
	 * NULL or "": left as they are.  A path that climbs above the top (..) is left as it is: replay refuses it. */
	const char *prefix;
	uint64_t t_offset;   /* ns added to its times, after the alignment's */
	/* Its times through this map first (NULL: none); it must never reverse two times (t <= u: warp(t) <= warp(u)),
	 * so the input's order, and every op's place among the others' starts and ends, stay as they were */
	uint64_t (*warp)(const void *ctx, uint64_t t);
	const void *warp_ctx;
	/* A sleep op of this many ns before the first op of each of its clients that no fork of it starts
	 * (an untimed trace's delay: replay pauses a client on an explicit sleep in every timing); 0: none */
	uint64_t lead_sleep_ns;
} rp_merge_place;

/* rp_merge_run with places[i] for input i (places NULL: rp_merge_run).  RP_E_LIMIT also for a prefixed path over RP_STR_MAX. */
int rp_merge_run_placed(const rp_memsink *const *ins, size_t n, rp_merge_align align, const rp_merge_place *places,
			rp_sink *out, rp_merge_map *maps, char *errbuf);

#endif
