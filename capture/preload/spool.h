/* The writer's side of the rings: find every traced thread's ring, drain them, merge events in t_start order. */
#ifndef REPRISE_CAPTURE_SPOOL_H
#define REPRISE_CAPTURE_SPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/sysev.h"

typedef struct rp_spool rp_spool;

/*
 * The clock the traced threads read for their events' times.  The TSC costs
 * a third of clock_gettime's vDSO call; it is taken only where the kernel's
 * own clocksource is the TSC (it is then the same on every CPU and steady),
 * and the writer maps its ticks to ns (docs/syscall-capture.md §clocks).
 */
typedef enum rp_spool_clock {
	RP_SPOOL_CLOCK_AUTO = -1, /* the TSC where the kernel's clocksource is "tsc", else monotonic */
	RP_SPOOL_CLOCK_MONOTONIC = 0,
	RP_SPOOL_CLOCK_TSC = 1,
} rp_spool_clock;

typedef struct rp_spool_stats {
	uint64_t rings;      /* rings seen (threads traced) */
	uint64_t rings_done; /* rings finished and removed */
	uint64_t events;     /* events delivered */
	uint64_t waits;      /* times a traced thread found its ring full and waited for the writer */
	uint64_t lost;       /* events traced threads dropped (the writer was gone) */
	uint64_t bad;        /* records that broke the ring format (counted, skipped: never trusted) */
	uint64_t late;       /* events delivered after a later t_start had been (merge bound reached) */
	uint64_t pending;    /* events held for ordering right now */
	uint64_t rings_failed; /* rings traced threads could not make (the control page's count: a user change) */
	uint32_t fill_permille; /* the fullest ring at the last poll, before it was drained (0..1000): pace the polls by it */
} rp_spool_stats;

/*
 * A spool directory, made private (0700) under tmpdir (NULL: /dev/shm if it
 * is a directory, else $TMPDIR, else /tmp).  ring_kb: each ring's data size
 * (0: the default), passed to the traced programs in the environment.  clock:
 * the traced threads' clock (RP_SPOOL_CLOCK_TSC where there is none: an error).
 */
int rp_spool_create(rp_spool **out, const char *tmpdir, uint32_t ring_kb, rp_spool_clock clock, char *errbuf);
/* The clock the spool's threads read (AUTO resolved). */
rp_spool_clock rp_spool_get_clock(const rp_spool *s);
/*
 * Remove the orphaned spools under tmpdir (NULL: as rp_spool_create): the
 * user's own spool directories whose writer is dead (a capture killed with
 * -9 never removes its own; the lock it held on the control page is gone).
 * Returns how many were removed (>= 0), or an error (tmpdir unreadable).
 */
int rp_spool_sweep(const char *tmpdir, char *errbuf);
const char *rp_spool_dir(const rp_spool *s);
/*
 * Drain what the rings hold and call fn with every event whose t_start is
 * below the merge watermark (no thread can still publish an older one), in
 * t_start order.  final: the traced processes are gone (or no longer waited
 * for): deliver everything held.  fn's non-zero return stops and is returned.
 * Returns the count of new records read (>= 0), or fn's error.
 */
int64_t rp_spool_poll(rp_spool *s, bool final, int (*fn)(void *ctx, const rp_sysev *ev), void *ctx);
/* Live processes that have rings not closed (for the end-of-capture note). */
uint32_t rp_spool_live(rp_spool *s);
const rp_spool_stats *rp_spool_get_stats(const rp_spool *s);
/* Unmap the rings, remove them and the directory; tell producers still running that the writer is gone. */
void rp_spool_destroy(rp_spool *s); /* NULL is a no-op */

/* The environment a traced program gets (besides LD_PRELOAD): names read by the interposer. */
#define RP_ENV_SPOOL "REPRISE_SPOOL"       /* the spool directory */
#define RP_ENV_RING_KB "REPRISE_RING_KB"   /* ring data size in KiB */
#define RP_ENV_NO_STDIO "REPRISE_NO_STDIO" /* "1": do not record stdio (FILE*) calls */
#define RP_ENV_PRELOAD "REPRISE_PRELOAD"   /* the interposer's own path, put back in LD_PRELOAD across exec */

#endif
