/* rp_plan over ops in memory and over a reader: small rp_op_source adapters for rp_plan_build. */
#include <stdlib.h>
#include <string.h>

#include "formats/plan.h"

typedef struct mem_src {
	rp_op_source base;
	const rp_op *ops;
	size_t n, pos;
	rp_string_fn str;
	void *ctx;
} mem_src;

/* A bound on one batch, so an int count never overflows. */
#define BATCH 4096

static int mem_next(rp_op_source *s, const rp_op **ops)
{
	mem_src *const m = (mem_src *)s;
	const size_t k = m->n - m->pos > BATCH ? BATCH : m->n - m->pos;
	*ops = m->ops + m->pos;
	m->pos += k;
	return (int)k;
}

static int mem_rewind(rp_op_source *s)
{
	((mem_src *)s)->pos = 0;
	return 0;
}

static const char *mem_string(rp_op_source *s, uint32_t id, uint32_t *len)
{
	mem_src *const m = (mem_src *)s;
	return m->str ? m->str(m->ctx, id, len) : NULL;
}

int rp_plan_ops(rp_plan *p, const rp_op *ops, size_t n_ops, rp_string_fn str, void *str_ctx,
		const rp_plan_opts *opts, char *errbuf)
{
	mem_src m = { .base = { .next = mem_next, .rewind = mem_rewind, .string = mem_string },
		      .ops = ops, .n = n_ops, .str = str, .ctx = str_ctx };
	return rp_plan_build(p, &m.base, opts, errbuf);
}

typedef struct rd_src {
	rp_op_source base;
	rp_reader *r;
	rp_op buf[256];
} rd_src;

static int rd_next(rp_op_source *s, const rp_op **ops)
{
	rd_src *const d = (rd_src *)s;
	int k = 0;
	while (k < (int)(sizeof(d->buf) / sizeof(d->buf[0]))) {
		const int rc = rp_reader_next(d->r, &d->buf[k]);
		if (rc < 0) {
			memcpy(s->errbuf, d->r->errbuf, sizeof(s->errbuf));
			return rc;
		}
		if (rc == 0)
			break;
		k++;
	}
	*ops = d->buf;
	return k;
}

static int rd_rewind(rp_op_source *s)
{
	rd_src *const d = (rd_src *)s;
	const int rc = rp_reader_rewind(d->r);
	if (rc < 0)
		memcpy(s->errbuf, d->r->errbuf, sizeof(s->errbuf));
	return rc;
}

static const char *rd_string(rp_op_source *s, uint32_t id, uint32_t *len)
{
	return rp_reader_string(((rd_src *)s)->r, id, len);
}

int rp_plan_reader(rp_plan *p, rp_reader *r, const rp_plan_opts *opts, char *errbuf)
{
	/* A batch's strings are all defined once its ops are read: the table only grows. */
	static const rd_src proto = { .base = { .next = rd_next, .rewind = rd_rewind, .string = rd_string } };
	rd_src *const d = malloc(sizeof(*d));
	if (!d)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	*d = proto;
	d->r = r;
	const int rc = rp_plan_build(p, &d->base, opts, errbuf);
	free(d);
	return rc;
}
