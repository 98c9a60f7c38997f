/* The prepare plan's scan, shared by the pull (formats/plan.c) and push (the plan sink) entry points: internal. */
#ifndef REPRISE_FORMATS_PLAN_INT_H
#define REPRISE_FORMATS_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/plan.h"

/* What the scan knows about a path at this point of the trace. */
enum pstate {
	P_PRE = 1,     /* must exist before the run */
	P_CREATED = 2, /* exists, made by the workload (or beneath something it made) */
	P_ABSENT = 3,  /* removed, or seen missing */
	/*
	 * Opened by an open-or-create that recorded no create action (a loadfile):
	 * it may have been there.  It was if something beneath it must be, or if
	 * it is read beyond what the workload wrote: then it becomes P_PRE.
	 */
	P_MAYBE = 4,
};

typedef struct pent {
	char *path;
	uint64_t hash;
	uint8_t state;
	bool dir;
	bool pre, pre_dir; /* it had to exist before the run (and was a directory then): the prepare plan */
	uint64_t need;  /* bytes its reads need from prepare */
	uint64_t wmax;  /* size the workload itself gave it so far (write ends, sizes set) */
	bool truncated; /* its prepared content is gone (truncating open, size set): reads need nothing more */
} pent;

/*
 * (client, 64-bit key) -> nonzero value, open addressing: the handle map, the
 * per-client op counts and the loop conflicts.  Value 0 marks an empty slot,
 * KMAP_TOMB a removed one (probing goes on past it).
 */
#define KMAP_TOMB UINT64_MAX
typedef struct kmap {
	uint32_t *kc;
	uint64_t *kh;
	uint64_t *v;
	size_t cap, n;
} kmap;

/* Path -> entry (open addressing), and the maps. */
typedef struct scan {
	pent *e;
	size_t cap, n;
	bool loop;              /* the second pass: states as the first left them; only creation conflicts matter */
	kmap handles;           /* (client, handle) -> entry index + 1 */
	kmap conflicts;         /* (client, index) of creations that fail in later passes -> 1 */
	kmap counts;            /* (client, 0) -> its ops so far in this pass */
	kmap dix;               /* (client, 0) -> index in d + 1 */
	kmap forks;             /* (child client, 0) -> parent client + 1, from the first fork op making it */
	/* rp_plan_opts.shares (first pass): */
	bool shares;
	kmap hown;              /* (client, handle) -> its open's path hash, or 1: the client opened it (or dup made it) */
	kmap hfirst;            /* (0, handle) -> the first client that opened it + 1 */
	kmap waited;            /* (child client, 0) -> the first client + 1 whose wait op names it */
	uint64_t shared_paths, shared_handles;
	uint32_t seen_client;   /* the last (client, handle) an op used, found its own: runs of I/O skip the map */
	uint64_t seen_handle;
	uint32_t seen_pclient, seen_path; /* the last (client, path id) counted: runs on one path skip the hash */
	bool seen_changed, seen_hchanged; /* and whether a change of it (through the handle) was counted */
	kmap users;             /* (0, path hash) -> its first client + 1, | USERS_MANY, | USERS_CHANGED */
	/* the last op's client, its ops so far and sweep: consecutive ops mostly share a client */
	bool last_ok;
	uint32_t last_client;
	uint64_t last_count;
	size_t last_d;
	struct sweep *d;        /* the recorded-depth sweep of each client (first pass) */
	size_t dn, dcap;
} scan;

/* A client's recorded-depth sweep: a min-heap of the end times of its ops still covering "now". */
typedef struct sweep {
	uint64_t *ends;
	size_t n, cap;
	rp_plan_depth d;
} sweep;


/* One op of a pass: its client's op count, the depth sweep and (track) the paths.  0 or RP_E_NOMEM. */
int rp__plan_one_op(scan *s, const rp_op *op, rp_string_fn str, void *ctx, bool track, rp_plan *p);
/* The end of a pass: the last client's count goes to the table; the next pass starts afresh. */
int rp__plan_pass_end(scan *s);
/* After the first pass: the clients, ascending, and each one's recorded depth. */
int rp__plan_first_done(scan *s, rp_plan *p);
/* What had to exist before the run, sorted by path. */
int rp__plan_make_items(rp_plan *p, scan *s);
/* The keys of m, sorted: client ids (client_only) or client << 32 | key. */
int rp__plan_keys_of(const kmap *m, bool client_only, void **out, size_t *n);
void rp__plan_kfree(kmap *m);
void rp__plan_scan_free(scan *s);
int rp__plan_cmp_u64(const void *a, const void *b);

#endif
