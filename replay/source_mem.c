/* Workloads over ops held in memory (tests, generators), and the generic workload calls. */
#include <stdlib.h>

#include "replay/workload.h"

typedef struct mem_workload {
	rp_workload base;
	const rp_op *ops;
	size_t n;
	rp_string_fn str;
	void *str_ctx;
} mem_workload;

typedef struct mem_source {
	rp_op_source base;
	const mem_workload *w;
	size_t pos;
	bool all;
	uint32_t client;
} mem_source;

static int mem_next(rp_op_source *s, rp_op *op)
{
	mem_source *const m = (mem_source *)s;
	while (m->pos < m->w->n) {
		const rp_op *const o = &m->w->ops[m->pos++];
		if (m->all || o->client == m->client) {
			*op = *o;
			return 1;
		}
	}
	return 0;
}

static int mem_rewind(rp_op_source *s)
{
	((mem_source *)s)->pos = 0;
	return 0;
}

static const char *mem_string(rp_op_source *s, uint32_t id, uint32_t *len)
{
	const mem_workload *const w = ((mem_source *)s)->w;
	return w->str ? w->str(w->str_ctx, id, len) : NULL;
}

static void mem_close(rp_op_source *s)
{
	free(s);
}

static int mem_open(rp_workload *w, bool all, uint32_t client, rp_op_source **out, char *errbuf)
{
	mem_source *const m = calloc(1, sizeof(*m));
	if (!m)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	m->base.next = mem_next;
	m->base.rewind = mem_rewind;
	m->base.string = mem_string;
	m->base.close = mem_close;
	m->w = (const mem_workload *)w;
	m->all = all;
	m->client = client;
	*out = &m->base;
	return 0;
}

static void mem_destroy(rp_workload *w)
{
	free(w);
}

int rp_workload_open_mem(rp_workload **out, const rp_op *ops, size_t n_ops, const rp_trace_meta *meta,
			 rp_string_fn str, void *str_ctx, char *errbuf)
{
	mem_workload *const w = calloc(1, sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	w->base.open = mem_open;
	w->base.destroy = mem_destroy;
	if (meta)
		w->base.meta = *meta;
	w->ops = ops;
	w->n = n_ops;
	w->str = str;
	w->str_ctx = str_ctx;
	*out = &w->base;
	return 0;
}

void rp_workload_destroy(rp_workload *w)
{
	if (w)
		w->destroy(w);
}

const rp_trace_meta *rp_workload_meta(const rp_workload *w)
{
	return &w->meta;
}
