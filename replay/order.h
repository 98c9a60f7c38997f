/* Inside libreprise-replay: --order=resource, the recorded order of ops on one path kept across clients (order.c). */
#ifndef REPRISE_REPLAY_ORDER_H
#define REPRISE_REPLAY_ORDER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct rp_replay rp_replay;
typedef struct rp_client rp_client;

/* An op's place on one resource: the resource (0: none) and how many ops on it come before, in one pass. */
typedef struct rp_ordent {
	uint32_t res, seq;
} rp_ordent;

/* The second resource of an op (rename's and link's path2, copy's destination), by op index. */
typedef struct rp_ordx {
	uint32_t index, res, seq;
} rp_ordx;

/* One trace client's places, shared by its copies (--clients): read-only once the scan is done. */
typedef struct rp_ordclient {
	rp_ordent *ent; /* by op index - 1 (the index the client counts in each pass) */
	uint32_t n;
	rp_ordx *x;     /* ascending index */
	uint32_t nx;
} rp_ordclient;

typedef struct rp_order rp_order;

/*
 * What one op waits for before its issue and moves on at its completion:
 * up to two resources' done counts (futex words) and the count each must
 * have reached (modulo 2^32).
 */
typedef struct rp_ordreq {
	_Atomic uint32_t *word[2];
	uint32_t target[2];
	uint32_t n;
} rp_ordreq;

/* The scan (rp_replay_create, opts.order = resource): every op's place on its resources.  0 or an rp error. */
int rp__order_scan(rp_replay *r, char *errbuf);
void rp__order_free(rp_replay *r);
/* A client's view, when the clients are made (after the scan). */
void rp__order_client(rp_client *c);
/*
 * The waiting client's own progress while it waits on *word (still v): true
 * when it did some (its ops in flight reaped, polled, waited for a short
 * while), false when it has nothing in flight.  The window's
 * rp__win_progress; resource order calls nothing above it.
 */
typedef bool (*rp_order_progress)(rp_client *c, _Atomic uint32_t *word, uint32_t v);
/*
 * Before op index (of c's current pass) is issued: its request in q (n 0
 * when it touches no resource), and the wait until every resource of it has
 * reached its count.  True to issue the op (in order, or after a stop or a
 * release); false when the run's time is up or another client stopped at
 * it: the op is not issued.
 */
bool rp__order_before(rp_client *c, uint64_t index, rp_ordreq *q, rp_order_progress progress);
/* After the completion (whatever its outcome): the counts move on, waiters wake. */
void rp__order_done(rp_replay *r, const rp_ordreq *q);
/*
 * A client stopped before the end of its work: at the time limit (timed:
 * waiters stop too, their ops never issued out of order), else (an error,
 * a stop) nobody waits for its ops any more.
 */
void rp__order_release(rp_replay *r, bool timed);

#endif
