/* The null backend: completes every op at once without doing anything, to measure the engine itself. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/backend.h"

/* Requests an async null client may have in flight (the engine keeps one per client). */
#define NULL_QUEUE 64

typedef struct null_backend {
	bool async;
	/*
	 * Client states made so far: each numbers its handles from its own
	 * serial << 40, so a handle is unique within the run, as the engine
	 * needs it when clients share one (backend.h, version 5).
	 */
	_Atomic uint64_t states;
} null_backend;

typedef struct null_client {
	uint64_t next_handle;
	rp_breq *queue[NULL_QUEUE];
	unsigned n_queued;
} null_client;

enum { NULL_OPT_ASYNC, NULL_OPT__COUNT };

static const rp_backend_opt null_opts[] = {
	[NULL_OPT_ASYNC] = { .name = "async", .type = RP_BOPT_FLAG,
			     .help = "complete requests from poll() instead of submit() (tests the asynchronous path)" },
	[NULL_OPT__COUNT] = { .name = NULL },
};

static int null_create(void **out, const rp_backend_args *args, char *errbuf)
{
	null_backend *const nb = calloc(1, sizeof(*nb));
	if (!nb)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	nb->async = args->vals[NULL_OPT_ASYNC].u != 0;
	atomic_init(&nb->states, 0);
	*out = nb;
	return 0;
}

static void null_destroy(void *backend)
{
	free(backend);
}

static int null_client_init(void *backend, void *client, const char *dir, char *errbuf)
{
	(void)dir, (void)errbuf;
	null_backend *const nb = backend;
	((null_client *)client)->next_handle = atomic_fetch_add_explicit(&nb->states, 1, memory_order_relaxed) << 40 | 1;
	return 0;
}

static void null_client_fini(void *backend, void *client)
{
	(void)backend, (void)client;
}

/* CLOCK_MONOTONIC ns, for a request's sent_ns and done_ns (backend.h, version 11). */
static uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void complete(null_client *c, rp_breq *req)
{
	if (req->no_handle) {
		/* An op on a handle the trace never had fails as it did there. */
		req->status = EBADF;
		req->result = 0;
		return;
	}
	req->status = 0;
	req->result = req->op->op == RP_OP_READ || req->op->op == RP_OP_WRITE ? req->op->length : req->op->result;
	if (req->op->op == RP_OP_OPEN)
		req->bh = c->next_handle++;
}

static int null_submit(void *backend, void *client, rp_breq *req)
{
	null_client *const c = client;
	if (((null_backend *)backend)->async && req->cb) {
		if (c->n_queued == NULL_QUEUE)
			return RP_BREQ_BUSY;
		req->sent_ns = mono_now();
		c->queue[c->n_queued++] = req;
		return 0;
	}
	complete(c, req);
	if (req->cb) {
		req->sent_ns = req->done_ns = mono_now(); /* at its target, which answers at once */
		req->cb(req);
	}
	return 0;
}

static int null_poll(void *backend, void *client, uint64_t timeout_ns)
{
	(void)backend, (void)timeout_ns;
	null_client *const c = client;
	const unsigned n = c->n_queued;
	const uint64_t now = n ? mono_now() : 0;
	for (unsigned i = 0; i < n; i++) {
		c->queue[i]->done_ns = now;
		complete(c, c->queue[i]);
		c->queue[i]->cb(c->queue[i]);
	}
	c->n_queued = 0;
	return (int)n;
}

static void null_release(void *backend, void *client, uint64_t bh)
{
	(void)backend, (void)client, (void)bh;
}

const rp_backend_ops rp__backend_null = {
	.version = RP_BACKEND_VERSION,
	.name = "null",
	.summary = "does nothing: every op succeeds at once (measures the engine)",
	.caps = RP_BCAP_CONFINED | RP_BCAP_ASYNC,
	.client_size = sizeof(null_client),
	.opts = null_opts,
	.op_mask = RP_BACKEND_ALL_OPS,
	.create = null_create,
	.destroy = null_destroy,
	.client_init = null_client_init,
	.client_fini = null_client_fini,
	.submit = null_submit,
	.poll = null_poll,
	.release = null_release,
};
