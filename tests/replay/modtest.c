/*
 * A backend module for the registry's loader test (replay/backends/registry.c):
 * the least vtable rp_backend_check accepts.  Built with MODTEST_VERSION=N it
 * is instead an asynchronous module of interface version N ("modtestN") whose
 * submit says it is busy every other call and when two requests wait: before
 * version 8 with RP_E_LIMIT, from 8 on with RP_BREQ_BUSY (the engine must
 * read both as "poll and submit again"), with an option table of a size
 * and an enum (rp_backend_opt's layout, read through formats/optdesc.h),
 * whose parsed values its create checks.
 */
#include <stddef.h>
#include <stdio.h>

#include "replay/backend.h"

#ifdef MODTEST_VERSION
enum { M_OPT_CHUNK, M_OPT_MODE, M_OPT__COUNT };
static const char *const modes[] = { "fast", "safe", NULL };
static const rp_backend_opt modtest_opts[] = {
	[M_OPT_CHUNK] = { .name = "chunk", .type = RP_BOPT_SIZE, .def = "64k", .min = 512, .max = UINT64_C(1) << 30,
			  .help = "a size, for the option tests" },
	[M_OPT_MODE] = { .name = "mode", .type = RP_BOPT_ENUM, .choices = modes, .def = "safe", .help = "an enum, for the option tests" },
	[M_OPT__COUNT] = { .name = NULL },
};
#endif

static int create(void **backend, const rp_backend_args *args, char *errbuf)
{
#ifdef MODTEST_VERSION
	/* The values arrive parsed: a size in bytes, an enum as its index (within the table's bounds and choices). */
	const uint64_t chunk = args->vals[M_OPT_CHUNK].u, mode = args->vals[M_OPT_MODE].u;
	if (args->n_vals != M_OPT__COUNT || chunk < 512 || chunk > UINT64_C(1) << 30 || mode > 1)
	{
		snprintf(errbuf, RP_ERRBUF_SIZE, "modtest: options not parsed as the table says"); /* no host symbol */
		return RP_E_INVAL;
	}
#else
	(void)args;
	(void)errbuf;
#endif
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
	.opts = modtest_opts,
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
