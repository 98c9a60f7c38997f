/* Merging traces in time order, each input's clients, handles and strings kept apart (converters/merge.h). */
#include "converters/merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/heap.h"
#include "formats/path.h"

/* The largest client id and handle input m uses (fork and wait results name clients too). */
static void extent(const rp_memsink *m, uint64_t *clients, uint64_t *max_handle)
{
	uint64_t c = 0, h = 0;
	for (size_t i = 0; i < m->n_ops; i++) {
		const rp_op *const op = &m->ops[i];
		if (op->client >= c)
			c = (uint64_t)op->client + 1;
		if ((op->op == RP_OP_FORK || op->op == RP_OP_WAIT) && op->result < UINT32_MAX && op->result >= c)
			c = op->result + 1;
		if (op->handle > h)
			h = op->handle;
		if (op->handle2 > h)
			h = op->handle2;
	}
	*clients = c;
	*max_handle = h;
}

/* What the merged trace's header says: what all inputs agree on. */
static void merged_meta(const rp_memsink *const *ins, size_t n, rp_merge_align align, int64_t base,
			rp_trace_meta *out)
{
	memset(out, 0, sizeof(*out));
	const rp_trace_meta *const m0 = &ins[0]->meta;
	out->source = m0->source;
	out->flags = m0->flags & (RP_META_ANONYMIZED | RP_META_TIMED);
	snprintf(out->host, sizeof(out->host), "%s", m0->host);
	bool all_packets = true;
	uint32_t seen = 0; /* the sources met, a bit each (rp_source is small) */
	for (size_t i = 0; i < n; i++) {
		const rp_trace_meta *const m = &ins[i]->meta;
		all_packets = all_packets && (m->source == RP_SRC_PCAP || m->source == RP_SRC_PCAP_SMB ||
					      m->source == RP_SRC_PCAP_NFS);
		if (m->source < 32)
			seen |= 1u << m->source;
		out->flags &= m->flags | RP_META_TRUNCATED | RP_META_UNTRACED; /* anonymized and timed only if every input is */
		out->flags |= m->flags & (RP_META_TRUNCATED | RP_META_UNTRACED);
		if (strcmp(m->host, out->host) != 0)
			out->host[0] = '\0';
	}
	/* Sources that differ: packets of several protocols (SMB and NFS), else mixed; the name lists them. */
	if (seen & (seen - 1))
		out->source = all_packets ? RP_SRC_PCAP : RP_SRC_MIXED;
	if (align == RP_MERGE_WALLCLOCK || n == 1)
		out->capture_start_ns = align == RP_MERGE_WALLCLOCK ? base : m0->capture_start_ns;
	int w = snprintf(out->source_name, sizeof(out->source_name), "merge of %zu traces", n);
	for (uint32_t k = 0, first = 1; (seen & (seen - 1)) && k < 32 && w > 0 && (size_t)w < sizeof(out->source_name); k++) {
		if (!(seen >> k & 1))
			continue;
		w += snprintf(out->source_name + w, sizeof(out->source_name) - (size_t)w, "%s%s", first ? ": " : ", ",
			      rp_source_name(k));
		first = 0;
	}
}

/* t through place pl's warp, if any. */
static uint64_t warped(const rp_merge_place *pl, uint64_t t)
{
	return pl && pl->warp ? pl->warp(pl->warp_ctx, t) : t;
}

/* Input i's op renumbered into the merged trace (its times warped by pl's map); false if its time overflows. */
static bool place(const rp_op *in0, const rp_merge_map *mp, const rp_merge_place *pl, rp_op *op)
{
	rp_op w = *in0;
	w.t_start = warped(pl, in0->t_start);
	if (in0->t_end != RP_TIME_UNKNOWN)
		w.t_end = warped(pl, in0->t_end);
	const rp_op *const in = &w;
	*op = *in;
	op->client = in->client + mp->client_offset;
	if (in->handle)
		op->handle = in->handle + mp->handle_offset;
	if (in->handle2)
		op->handle2 = in->handle2 + mp->handle_offset;
	/* A fork's result is its child, a wait's the child it reaped: client ids, which move with the input's */
	if ((in->op == RP_OP_FORK || in->op == RP_OP_WAIT) && in->result < UINT32_MAX)
		op->result = in->result + mp->client_offset;
	if (in->t_start > RP_TIME_UNKNOWN - 1 - mp->t_offset)
		return false;
	op->t_start = in->t_start + mp->t_offset;
	if (in->t_end != RP_TIME_UNKNOWN) {
		if (in->t_end > RP_TIME_UNKNOWN - 1 - mp->t_offset)
			return false;
		op->t_end = in->t_end + mp->t_offset;
	}
	return true;
}

static int64_t remap(const rp_memsink *m, rp_sink *out, rp_strtab *tab, uint32_t id, char *errbuf)
{
	if (!id)
		return 0;
	uint32_t len = 0;
	const char *const s = rp_strtab_get(m->strings, id, &len);
	if (!s)
		return rp_fail(errbuf, RP_E_CORRUPT, "string id %u used before it was defined", id);
	const int64_t r = rp_sink_intern(out, tab, s, len);
	if (r < 0)
		rp_fail(errbuf, (int)r, "%s", out->errbuf);
	return r;
}

/* remap for a path: under prefix (normalised) when there is one; buf holds RP_STR_MAX + 1 bytes. */
static int64_t remap_path(const rp_memsink *m, rp_sink *out, rp_strtab *tab, uint32_t id, const char *prefix, char *buf,
			  char *errbuf)
{
	if (!id || !prefix || !prefix[0])
		return remap(m, out, tab, id, errbuf);
	uint32_t len = 0;
	const char *const s = rp_strtab_get(m->strings, id, &len);
	if (!s)
		return rp_fail(errbuf, RP_E_CORRUPT, "string id %u used before it was defined", id);
	const size_t pl = strlen(prefix);
	if (pl >= RP_STR_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "a path prefix of %zu bytes", pl);
	memcpy(buf, prefix, pl);
	buf[pl] = '/';
	const int n = rp_path_norm(s, len, buf + pl + 1, RP_STR_MAX - pl);
	if (n == -EXDEV)
		return remap(m, out, tab, id, errbuf); /* above the top: outside every copy, as it was outside the trace */
	if (n < 0)
		return rp_fail(errbuf, RP_E_LIMIT, "a path of %u bytes does not fit under %s", len, prefix);
	const uint32_t total = n ? (uint32_t)(pl + 1 + (size_t)n) : (uint32_t)pl; /* the top itself is the prefix */
	const int64_t r = rp_sink_intern(out, tab, buf, total);
	if (r < 0)
		rp_fail(errbuf, (int)r, "%s", out->errbuf);
	return r;
}

/* ---- a set of client ids, for the clients' first ops --------------------------- */

typedef struct cset {
	uint64_t *s; /* client + 1; 0 empty */
	size_t cap, used;
} cset;

static bool cset_has(const cset *c, uint32_t v)
{
	for (size_t i = c->cap ? ((uint64_t)v * 0x9e3779b97f4a7c15ull) >> 20 & (c->cap - 1) : 0; c->cap; i = (i + 1) & (c->cap - 1)) {
		if (c->s[i] == 0)
			return false;
		if (c->s[i] == (uint64_t)v + 1)
			return true;
	}
	return false;
}

static int cset_add(cset *c, uint32_t v)
{
	if (cset_has(c, v))
		return 0;
	if ((c->used + 1) * 2 > c->cap) {
		const size_t cap = c->cap ? 2 * c->cap : 64;
		cset n = { .s = calloc(cap, sizeof(uint64_t)), .cap = cap };
		if (!n.s)
			return RP_E_NOMEM;
		for (size_t i = 0; i < c->cap; i++)
			if (c->s[i])
				(void)cset_add(&n, (uint32_t)(c->s[i] - 1));
		free(c->s);
		*c = n;
	}
	for (size_t i = ((uint64_t)v * 0x9e3779b97f4a7c15ull) >> 20 & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
		if (c->s[i] == 0) {
			c->s[i] = (uint64_t)v + 1;
			c->used++;
			return 0;
		}
	}
}

/*
 * The indices of m's ops that are the first of a client no fork started (a
 * fork's child waits for its fork, so a delay before it would be counted
 * twice), ascending, in *out (malloc'd; NULL when there are none).
 */
static int first_ops(const rp_memsink *m, size_t **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	cset seen = { 0 }, children = { 0 };
	size_t *firsts = NULL, n = 0, cap = 0;
	int rc = 0;
	for (size_t i = 0; i < m->n_ops && rc == 0; i++) {
		const rp_op *const op = &m->ops[i];
		if (op->op == RP_OP_FORK && op->result < UINT32_MAX)
			rc = cset_add(&children, (uint32_t)op->result);
		if (rc || cset_has(&seen, op->client))
			continue;
		rc = cset_add(&seen, op->client);
		if (rc || cset_has(&children, op->client))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			size_t *const nf = realloc(firsts, cap * sizeof(*nf));
			if (!nf) {
				rc = RP_E_NOMEM;
				break;
			}
			firsts = nf;
		}
		firsts[n++] = i;
	}
	free(seen.s);
	free(children.s);
	if (rc) {
		free(firsts);
		return rc;
	}
	*out = firsts;
	*n_out = n;
	return 0;
}

static int plan(const rp_memsink *const *ins, size_t n, rp_merge_align align, const rp_merge_place *places,
		rp_merge_map *maps, int64_t *base, char *errbuf)
{
	*base = 0;
	if (align == RP_MERGE_WALLCLOCK) {
		for (size_t i = 0; i < n; i++) {
			const int64_t cs = ins[i]->meta.capture_start_ns;
			if (cs == 0)
				return rp_fail(errbuf, RP_E_INVAL,
					       "input %zu: its capture start is unknown, so it cannot be placed by wall clock "
					       "(--align start lines the inputs up at their starts)", i + 1);
			if (i == 0 || cs < *base)
				*base = cs;
		}
	}
	uint64_t clients = 0, handles = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t c, h;
		extent(ins[i], &c, &h);
		if (clients + c > UINT32_MAX)
			return rp_fail(errbuf, RP_E_LIMIT, "input %zu: more than 2^32-1 clients in all", i + 1);
		if (h > UINT64_MAX - 1 - handles)
			return rp_fail(errbuf, RP_E_LIMIT, "input %zu: the handle ids overflow 64 bits", i + 1);
		maps[i] = (rp_merge_map){ .client_offset = (uint32_t)clients, .clients = (uint32_t)c,
					  .handle_offset = handles, .ops = ins[i]->n_ops,
					  .t_offset = (uint64_t)(ins[i]->meta.capture_start_ns - *base) };
		if (align != RP_MERGE_WALLCLOCK)
			maps[i].t_offset = 0;
		if (places && places[i].t_offset > UINT64_MAX - maps[i].t_offset)
			return rp_fail(errbuf, RP_E_LIMIT, "input %zu: its time offset overflows 64 bits", i + 1);
		if (places)
			maps[i].t_offset += places[i].t_offset;
		clients += c;
		handles += h;
	}
	return 0;
}

int rp_merge_run(const rp_memsink *const *ins, size_t n, rp_merge_align align, rp_sink *out, rp_merge_map *maps,
		 char *errbuf)
{
	return rp_merge_run_placed(ins, n, align, NULL, out, maps, errbuf);
}

/* The lead sleep before op (input i's first of a client): a sleep op of that client, at its time. */
static int lead_sleep(rp_sink *out, const rp_op *op, uint64_t ns, char *errbuf)
{
	const rp_op sl = { .t_start = op->t_start, .t_end = RP_TIME_UNKNOWN, .length = ns, .client = op->client,
			   .op = RP_OP_SLEEP };
	const int rc = out->op(out, &sl);
	return rc < 0 ? rp_fail(errbuf, rc, "%s", out->errbuf) : 0;
}

/* An input's next op in the merge: its placed start and the input's index, ordered by both (a min-heap). */
typedef struct head {
	uint64_t t;
	size_t i;
} head;

static bool head_before(const head *a, const head *b)
{
	return a->t < b->t || (a->t == b->t && a->i < b->i);
}

RP_HEAP_DEFINE(heads, head, head_before)

/* Where input in's op at places in the merged trace (saturated, as the order compares it). */
static uint64_t head_time(const rp_memsink *in, size_t at, const rp_merge_place *pl, const rp_merge_map *map)
{
	const uint64_t t = warped(pl, in->ops[at].t_start);
	return t > UINT64_MAX - map->t_offset ? UINT64_MAX : t + map->t_offset;
}

int rp_merge_run_placed(const rp_memsink *const *ins, size_t n, rp_merge_align align, const rp_merge_place *places,
			rp_sink *out, rp_merge_map *maps, char *errbuf)
{
	if (n == 0)
		return rp_fail(errbuf, RP_E_INVAL, "no input to merge");
	int64_t base;
	int rc = plan(ins, n, align, places, maps, &base, errbuf);
	if (rc < 0)
		return rc;
	size_t *const pos = calloc(n, sizeof(*pos));
	size_t **const firsts = calloc(n, sizeof(*firsts));
	size_t *const n_firsts = calloc(n, sizeof(*n_firsts)), *const fpos = calloc(n, sizeof(*fpos));
	char *const pbuf = places ? malloc(RP_STR_MAX + 1) : NULL;
	rp_strtab *const tab = rp_strtab_create();
	head *const heap = malloc(n * sizeof(*heap));
	size_t n_heap = 0;
	if (!pos || !firsts || !n_firsts || !fpos || (places && !pbuf) || !tab || !heap) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; places && i < n; i++) {
		if (places[i].lead_sleep_ns && (rc = first_ops(ins[i], &firsts[i], &n_firsts[i])) < 0) {
			rp_fail(errbuf, rc, "input %zu: out of memory", i + 1);
			goto out;
		}
	}
	rp_trace_meta meta;
	merged_meta(ins, n, align, base, &meta);
	if ((rc = out->meta(out, &meta)) < 0) {
		rp_fail(errbuf, rc, "%s", out->errbuf);
		goto out;
	}
	/* The inputs with ops left, by their next op's placed start, then index (the lowest first on a tie). */
	for (size_t i = 0; i < n; i++) {
		if (pos[i] < ins[i]->n_ops)
			heads_push(heap, &n_heap, (head){ head_time(ins[i], pos[i], places ? &places[i] : NULL, &maps[i]), i });
	}
	while (n_heap) {
		const size_t best = heap[0].i;
		const rp_memsink *const m = ins[best];
		const size_t at = pos[best]++;
		const rp_op *const in = &m->ops[at];
		if (pos[best] < m->n_ops) {
			heap[0].t = head_time(m, pos[best], places ? &places[best] : NULL, &maps[best]);
			heads_down(heap, n_heap, 0);
		} else {
			heads_pop(heap, &n_heap);
		}
		rp_op op;
		if (!place(in, &maps[best], places ? &places[best] : NULL, &op)) {
			rc = rp_fail(errbuf, RP_E_LIMIT, "input %zu: op %zu: its time overflows once aligned", best + 1,
				     pos[best]);
			goto out;
		}
		if (fpos[best] < n_firsts[best] && firsts[best][fpos[best]] == at) {
			fpos[best]++;
			if ((rc = lead_sleep(out, &op, places[best].lead_sleep_ns, errbuf)) < 0)
				goto out;
		}
		const char *const prefix = places ? places[best].prefix : NULL;
		const bool path2_is_path = in->op == RP_OP_RENAME || in->op == RP_OP_LINK;
		const int64_t p1 = remap_path(m, out, tab, in->path, prefix, pbuf, errbuf);
		const int64_t p2 = p1 < 0 ? p1 : remap_path(m, out, tab, in->path2, path2_is_path ? prefix : NULL, pbuf, errbuf);
		if (p2 < 0) {
			rc = (int)p2;
			goto out;
		}
		op.path = (uint32_t)p1;
		op.path2 = (uint32_t)p2;
		if ((rc = out->op(out, &op)) < 0) {
			rp_fail(errbuf, rc, "%s", out->errbuf);
			goto out;
		}
	}
	if ((rc = out->finish(out)) < 0)
		rp_fail(errbuf, rc, "%s", out->errbuf);
out:
	for (size_t i = 0; firsts && i < n; i++)
		free(firsts[i]);
	free(firsts);
	free(n_firsts);
	free(fpos);
	free(pbuf);
	free(pos);
	free(heap);
	rp_strtab_destroy(tab);
	return rc;
}
