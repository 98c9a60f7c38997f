/* The prepare plan (formats/plan.h): over an op source, ops in memory, a reader, or as a sink; the scan is formats/plan_scan.c. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/plan_int.h"
#include "formats/strtab.h"

/*
 * One pass over every client's ops.  Each client's ops are numbered from 1 as
 * the client loop numbers them (s->counts).  track: follow paths (the plan,
 * loop conflicts), not only find the clients.
 */
static const char *src_str(void *ctx, uint32_t id, uint32_t *len)
{
	rp_op_source *const src = ctx;
	return src->string(src, id, len);
}

static int scan_pass(rp_op_source *src, scan *s, bool track, rp_plan *p, char *errbuf)
{
	const rp_op *ops = NULL;
	int n = 0, k = 0;
	for (;;) {
		if (k == n) {
			n = src->next(src, &ops);
			k = 0;
			if (n < 0)
				return rp_fail(errbuf, n, "%s", src->errbuf);
			if (n == 0) {
				/* the last client's count goes to the table; the next pass starts afresh */
				return rp__plan_pass_end(s) < 0 ? rp_fail(errbuf, RP_E_NOMEM, "out of memory") : 0;
			}
		}
		const rp_op *const op = &ops[k++];
		if (rp__plan_one_op(s, op, src_str, src, track, p) < 0)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory planning prepare");
	}
}

/* strcasecmp order: SMB targets fold case, so a name is taken whatever its case. */
static int cmp_top(const void *a, const void *b)
{
	return strcasecmp(*(char *const *)a, *(char *const *)b);
}

/* The first component of every path the trace names, sorted and distinct (rp_plan.tops).  0 or -1. */
static int collect_tops(rp_plan *p, const scan *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->cap; i++)
		n += s->e[i].path != NULL;
	p->tops = calloc(n ? n : 1, sizeof(*p->tops));
	if (!p->tops)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		const char *const path = s->e[i].path;
		if (!path)
			continue;
		const char *const slash = strchr(path, '/');
		if (!(p->tops[p->n_tops] = strndup(path, slash ? (size_t)(slash - path) : strlen(path))))
			return -1;
		p->n_tops++;
	}
	qsort(p->tops, p->n_tops, sizeof(*p->tops), cmp_top);
	size_t k = 0;
	for (size_t i = 0; i < p->n_tops; i++) {
		if (k && strcasecmp(p->tops[k - 1], p->tops[i]) == 0)
			free(p->tops[i]);
		else
			p->tops[k++] = p->tops[i];
	}
	p->n_tops = k;
	return 0;
}

bool rp_plan_uses_top(const rp_plan *p, const char *name)
{
	return p->n_tops && bsearch(&name, p->tops, p->n_tops, sizeof(*p->tops), cmp_top) != NULL;
}

int rp_plan_build(rp_plan *p, rp_op_source *src, const rp_plan_opts *opts, char *errbuf)
{
	memset(p, 0, sizeof(*p));
	scan s;
	memset(&s, 0, sizeof(s));
	s.shares = opts->shares;
	int rc = scan_pass(src, &s, opts->items || opts->loops, p, errbuf);
	if (rc < 0)
		goto fail;
	if (rp__plan_first_done(&s, p) < 0)
		goto nomem;
	if (opts->loops && p->ops) {
		/*
		 * A second pass from the state the first leaves: what it creates that
		 * is then already there (client.txt's Mkdir "\clients", which its own
		 * Deltree does not remove) fails with EEXIST in every later pass.
		 */
		s.loop = true;
		rp__plan_kfree(&s.counts);
		rc = src->rewind(src);
		if (rc < 0) {
			rc = rp_fail(errbuf, rc, "%s", src->errbuf);
			goto fail;
		}
		rc = scan_pass(src, &s, true, p, errbuf);
		if (rc < 0)
			goto fail;
		void *conflicts = NULL;
		if (rp__plan_keys_of(&s.conflicts, false, &conflicts, &p->n_conflicts) < 0)
			goto nomem;
		p->conflicts = conflicts;
	}
	if (opts->items && (rp__plan_make_items(p, &s) < 0 || collect_tops(p, &s) < 0))
		goto nomem;
	rp__plan_scan_free(&s);
	return 0;
nomem:
	rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
fail:
	rp__plan_scan_free(&s);
	rp_plan_free(p);
	return rc;
}

/* ---- The plan as a sink: ops pushed as they are read (one pass; no loop conflicts) ---- */

struct rp_plan_sink {
	rp_sink base;
	scan s;
	rp_plan p;
	rp_strtab *tab;
	bool items;
};

static const char *ps_str(void *ctx, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(ctx, id, len);
}

static int ps_meta(rp_sink *k, const rp_trace_meta *m)
{
	(void)k;
	(void)m;
	return 0;
}

static int ps_string(rp_sink *k, uint32_t id, const char *str, uint32_t len)
{
	rp_plan_sink *const w = (rp_plan_sink *)k;
	if (id != rp_strtab_count(w->tab) + 1)
		return rp_fail(k->errbuf, RP_E_STATE, "plan: string id %u out of order", id);
	const int64_t got = rp_strtab_append(w->tab, str, len);
	return got < 0 ? rp_fail(k->errbuf, (int)got, "plan: %s", rp_strerror((int)got)) : 0;
}

static int ps_op(rp_sink *k, const rp_op *op)
{
	rp_plan_sink *const w = (rp_plan_sink *)k;
	return rp__plan_one_op(&w->s, op, ps_str, w->tab, w->items, &w->p) < 0 ? rp_fail(k->errbuf, RP_E_NOMEM, "out of memory planning prepare")
									 : 0;
}

static int ps_finish(rp_sink *k)
{
	(void)k;
	return 0;
}

int rp_plan_sink_create(rp_plan_sink **out, const rp_plan_opts *opts)
{
	rp_plan_sink *const w = calloc(1, sizeof(*w));
	if (!w || !(w->tab = rp_strtab_create())) {
		free(w);
		return RP_E_NOMEM;
	}
	w->base = (rp_sink){ .meta = ps_meta, .string = ps_string, .op = ps_op, .finish = ps_finish };
	w->items = opts->items;
	w->s.shares = opts->shares;
	*out = w;
	return 0;
}

rp_sink *rp_plan_sink_base(rp_plan_sink *w)
{
	return &w->base;
}

int rp_plan_sink_finish(rp_plan_sink *w, rp_plan *p, char *errbuf)
{
	if (rp__plan_pass_end(&w->s) < 0 || rp__plan_first_done(&w->s, &w->p) < 0 || (w->items && (rp__plan_make_items(&w->p, &w->s) < 0 || collect_tops(&w->p, &w->s) < 0))) {
		rp_plan_free(&w->p);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	*p = w->p;
	memset(&w->p, 0, sizeof(w->p));
	return 0;
}

void rp_plan_sink_destroy(rp_plan_sink *w)
{
	if (!w)
		return;
	rp__plan_scan_free(&w->s);
	rp_plan_free(&w->p);
	rp_strtab_destroy(w->tab);
	free(w);
}

bool rp_plan_conflict(const rp_plan *p, uint32_t client, uint64_t index)
{
	if (!p->n_conflicts || index >= UINT32_MAX)
		return false;
	const uint64_t key = (uint64_t)client << 32 | index;
	return bsearch(&key, p->conflicts, p->n_conflicts, sizeof(key), rp__plan_cmp_u64) != NULL;
}

void rp_plan_free(rp_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_items; i++)
		free(p->items[i].path);
	free(p->items);
	free(p->clients);
	free(p->depth);
	free(p->parent);
	free(p->conflicts);
	for (size_t i = 0; i < p->n_tops; i++)
		free(p->tops[i]);
	free(p->tops);
	memset(p, 0, sizeof(*p));
}
