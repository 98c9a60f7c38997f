/* The writer's event queue: the drain hands merged events to an encoder thread of idle priority (docs/syscall-capture.md §writer). */
#ifndef REPRISE_CAPTURE_EVQ_H
#define REPRISE_CAPTURE_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/sysev.h"

/*
 * `reprise capture`'s writer has two halves.  The drain (the main thread)
 * empties the traced threads' rings and merges their events in time order
 * (spool.h): little work an event, and it must keep up, or traced threads
 * wait for room.  The encoder (the model, the .rpz encoder, zstd: most of the
 * writer's CPU) runs on a thread of its own at SCHED_IDLE, so that it only
 * takes a CPU no one else wants: on a machine with a spare core it keeps up,
 * and where the traced program has every CPU busy it falls behind and
 * catches up when the program waits or ends, not in its time slices.
 *
 * Between them, this queue: a list of chunks the drain appends copies of the
 * events to and publishes after each poll, bounded by max_bytes.  A full
 * queue makes the drain wait for the encoder (and the rings then fill, and
 * the traced threads wait: the CPU they leave is the encoder's).  At the end
 * rp_evq_finish stops the thread and encodes what is left in the caller's
 * thread, at the caller's priority.  fn and tick run on one thread at a time
 * (the encoder's, then the caller's after the join), never concurrently.
 */
typedef struct rp_evq rp_evq;

typedef struct rp_evq_opts {
	size_t max_bytes; /* queued bytes at most (0: RP_EVQ_DEFAULT_MAX); one event over is let in */
	/* The encoder thread runs at SCHED_IDLE, raised to the normal policy while the queue is full and to
	 * finish; only where the process may raise it (root, CAP_SYS_NICE, RLIMIT_NICE 20), else it stays normal. */
	bool idle;
	/* Called by the encoder between batches (at least every RP_EVQ_BATCH events, and when the queue runs
	 * dry): non-zero stops it as fn's error does.  NULL: none. */
	int (*tick)(void *ctx);
} rp_evq_opts;

#define RP_EVQ_DEFAULT_MAX ((size_t)256 << 20)
#define RP_EVQ_BATCH 256

typedef struct rp_evq_stats {
	uint64_t events;     /* events pushed */
	uint64_t full_waits; /* times the drain found the queue full and waited for the encoder */
	size_t max_queued;   /* the most bytes the queue held at once */
} rp_evq_stats;

/* Start the encoder thread: fn(ctx, ev) for every event pushed, in push order.  0, or an RP_E_* with errbuf. */
int rp_evq_create(rp_evq **out, int (*fn)(void *ctx, const rp_sysev *ev), void *ctx, const rp_evq_opts *o,
		  char *errbuf);
/* Copy ev to the queue (the drain's callback for rp_spool_poll).  0; or, once the encoder failed, its error. */
int rp_evq_push(void *q, const rp_sysev *ev);
/* Let the encoder see what was pushed (after each poll).  Waits while the queue is full.  0 or the encoder's error. */
int rp_evq_publish(rp_evq *q);
/*
 * Stop the encoder thread and join it; then, unless discard, run fn on every
 * event still queued in this thread.  Returns 0, or the first non-zero return
 * of fn or tick (from either thread).  The queue takes no push afterwards.
 */
int rp_evq_finish(rp_evq *q, bool discard);
const rp_evq_stats *rp_evq_get_stats(const rp_evq *q);
/* Finishes (discarding) if that was not done, frees everything.  NULL is a no-op. */
void rp_evq_destroy(rp_evq *q);

#endif
