/*
 * A backend that records what reaches it (fault-style: every op succeeds),
 * for the backend interface's tests (test_replay_backend.c, choosing one;
 * test_replay_backend_run.c, running on one): the ops it saw by kind, and a
 * well-formed vtable the tests change one thing of.
 */
#ifndef REPRISE_TESTS_REC_BACKEND_H
#define REPRISE_TESTS_REC_BACKEND_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

#include "harness.h"

static _Atomic uint64_t seen[RP_OP__COUNT];
static _Atomic uint64_t next_bh = 1;

static inline int rec_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)a, (void)eb;
	*b = (void *)1;
	return 0;
}
static inline void rec_destroy(void *b)
{
	(void)b;
}
static inline int rec_client_init(void *b, void *c, const char *dir, char *eb)
{
	(void)b, (void)c, (void)dir, (void)eb;
	return 0;
}
static inline int rec_submit(void *b, void *c, rp_breq *req)
{
	(void)b, (void)c;
	atomic_fetch_add(&seen[req->op->op], 1);
	req->status = req->no_handle ? EBADF : 0;
	req->result = req->op->op == RP_OP_READ || req->op->op == RP_OP_WRITE ? req->op->length : 0;
	if (req->op->op == RP_OP_OPEN)
		req->bh = atomic_fetch_add(&next_bh, 1);
	if (req->cb)
		req->cb(req);
	return 0;
}
static inline int rec_poll(void *b, void *c, uint64_t t)
{
	(void)b, (void)c, (void)t;
	return 0;
}
static inline void rec_release(void *b, void *c, uint64_t bh)
{
	(void)b, (void)c, (void)bh;
}
static inline void rec_client_fini(void *b, void *c)
{
	(void)b, (void)c;
}

/* A well-formed vtable; each broken one below is this with one thing wrong. No client_fini: it is optional. */
static const rp_backend_ops good = {
	.version = RP_BACKEND_VERSION, .name = "rec", .summary = "test", .client_size = 8,
	.create = rec_create, .destroy = rec_destroy, .client_init = rec_client_init,
	.submit = rec_submit, .release = rec_release,
};

static inline void reset_seen(void)
{
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		atomic_store(&seen[i], 0);
}

#endif
