/*
 * A backend module for the registry's loader test (replay/backends/registry.c):
 * the least vtable rp_backend_check accepts.  Built with MODTEST_VERSION=N it
 * is instead an asynchronous module of interface version N ("modtestN") whose
 * submit says it is busy every other call and when two requests wait: before
 * version 8 with RP_E_LIMIT, from 8 on with RP_BREQ_BUSY (the engine must
 * read both as "poll and submit again").
 */
#include <stddef.h>

#include "replay/backend.h"

static int create(void **backend, const rp_backend_args *args, char *errbuf)
{
	(void)args;
	(void)errbuf;
	*backend = NULL;
	return 0;
}

static void destroy(void *backend)
{
	(void)backend;
}

static int client_init(void *backend, void *client, const char *dir, char *errbuf)
{
	(void)backend;
	(void)client;
	(void)dir;
	(void)errbuf;
	return 0;
}

#ifdef MODTEST_VERSION
#if MODTEST_VERSION < 8
#define MODTEST_BUSY RP_E_LIMIT
#else
#define MODTEST_BUSY RP_BREQ_BUSY
#endif
#define MODTEST_QUEUE 2

typedef struct {
	rp_breq *queue[MODTEST_QUEUE];
	unsigned n, calls;
} modtest_client;

static int submit(void *backend, void *client, rp_breq *req)
{
	(void)backend;
	modtest_client *const c = client;
	if (c->calls++ % 2 == 0 || c->n == MODTEST_QUEUE)
		return MODTEST_BUSY; /* nothing started, no callback */
	req->status = 0;
	req->result = req->op->op == RP_OP_OPEN ? 0 : req->op->result;
	if (req->op->op == RP_OP_OPEN)
		req->bh = 1;
	if (!req->cb)
		return 0;
	c->queue[c->n++] = req;
	return 0;
}

static int poll_(void *backend, void *client, uint64_t timeout_ns)
{
	(void)backend;
	(void)timeout_ns;
	modtest_client *const c = client;
	const int n = (int)c->n;
	for (int i = 0; i < n; i++) {
		rp_breq *const req = c->queue[i];
		req->cb(req);
	}
	c->n = 0;
	return n;
}
#else
static int submit(void *backend, void *client, rp_breq *req)
{
	(void)backend;
	(void)client;
	req->status = 0;
	return 0;
}
#endif

static void release(void *backend, void *client, uint64_t bh)
{
	(void)backend;
	(void)client;
	(void)bh;
}

#define MODTEST_CAT(a, b) a##b
#define MODTEST_SYM(v) MODTEST_CAT(rp__backend_modtest, v)
#define MODTEST_STR(v) #v
#define MODTEST_NAME(v) "modtest" MODTEST_STR(v)

/* Exported: what the loader looks up by name. */
#ifdef MODTEST_VERSION
extern const rp_backend_ops MODTEST_SYM(MODTEST_VERSION);
const rp_backend_ops MODTEST_SYM(MODTEST_VERSION) = {
	.version = MODTEST_VERSION,
	.name = MODTEST_NAME(MODTEST_VERSION),
	.summary = "an asynchronous module that is often busy",
	.caps = RP_BCAP_ASYNC,
	.client_size = sizeof(modtest_client),
	.create = create,
	.destroy = destroy,
	.client_init = client_init,
	.submit = submit,
	.poll = poll_,
	.release = release,
};
#else
extern const rp_backend_ops rp__backend_modtest;
const rp_backend_ops rp__backend_modtest = {
	.version = RP_BACKEND_VERSION,
	.name = "modtest",
	.summary = "a module for the loader's test",
	.create = create,
	.destroy = destroy,
	.client_init = client_init,
	.submit = submit,
	.release = release,
};
#endif
