/* A backend module for the registry's loader test (replay/backends/registry.c): the least vtable rp_backend_check accepts. */
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

static int submit(void *backend, void *client, rp_breq *req)
{
	(void)backend;
	(void)client;
	req->status = 0;
	return 0;
}

static void release(void *backend, void *client, uint64_t bh)
{
	(void)backend;
	(void)client;
	(void)bh;
}

/* Exported: what the loader looks up by name. */
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
