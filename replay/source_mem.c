/* Workloads over ops held in memory (tests, generators), and the generic workload calls. */
#include <stdlib.h>

#include "replay/workload.h"

typedef struct mem_workload {
	rp_workload base;
	const rp_op *ops;
	size_t n;
	rp_string_fn str;
	void *str_ctx;
	bool one_client; /* every op has the same client: a filtered source need not look */
} mem_workload;

typedef struct mem_source {
	rp_op_source base;
	const mem_workload *w;
	size_t pos;
	bool all;
	uint32_t client;
} mem_source;

/* Longest run handed out at once (a bound, so a stop request is never far away). */
#define MEM_RUN 4096

static int mem_next(rp_op_source *s, const rp_op **out)
{
	/* Zero copy: a run of consecutive ops of the wanted client, straight from the array. */
	mem_source *const m = (mem_source *)s;
	const rp_op *const ops = m->w->ops;
	const size_t n = m->w->n;
	const bool all = m->all || (m->w->one_client && n && ops[0].client == m->client);
	size_t i = m->pos;
	if (!all)
		while (i < n && ops[i].client != m->client)
			i++;
	if (i == n) {
		m->pos = n;
		return 0;
	}
	size_t j = i + 1;
	const size_t lim = n - i > MEM_RUN ? i + MEM_RUN : n;
	if (all)
		j = lim;
	else
		while (j < lim && ops[j].client == m->client)
			j++;
	m->pos = j;
	*out = &ops[i];
	return (int)(j - i);
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
	w->one_client = true;
	for (size_t i = 1; i < n_ops && w->one_client; i++)
		w->one_client = ops[i].client == ops[0].client;
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
