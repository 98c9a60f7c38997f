/* Merging traces in time order, each input's clients, handles and strings kept apart (converters/merge.h). */
#include "converters/merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Input i's op renumbered into the merged trace; false if its time overflows. */
static bool place(const rp_op *in, const rp_merge_map *mp, rp_op *op)
{
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

static int plan(const rp_memsink *const *ins, size_t n, rp_merge_align align, rp_merge_map *maps, int64_t *base,
		char *errbuf)
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
		clients += c;
		handles += h;
	}
	return 0;
}

int rp_merge_run(const rp_memsink *const *ins, size_t n, rp_merge_align align, rp_sink *out, rp_merge_map *maps,
		 char *errbuf)
{
	if (n == 0)
		return rp_fail(errbuf, RP_E_INVAL, "no input to merge");
	int64_t base;
	int rc = plan(ins, n, align, maps, &base, errbuf);
	if (rc < 0)
		return rc;
	size_t *const pos = calloc(n, sizeof(*pos));
	rp_strtab *const tab = rp_strtab_create();
	if (!pos || !tab) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	rp_trace_meta meta;
	merged_meta(ins, n, align, base, &meta);
	if ((rc = out->meta(out, &meta)) < 0) {
		rp_fail(errbuf, rc, "%s", out->errbuf);
		goto out;
	}
	for (;;) {
		/* The input whose next op starts first; a linear scan, as n is at most a few hundred */
		size_t best = n;
		uint64_t bt = 0;
		for (size_t i = 0; i < n; i++) {
			if (pos[i] == ins[i]->n_ops)
				continue;
			const uint64_t t = ins[i]->ops[pos[i]].t_start;
			const uint64_t placed = t > UINT64_MAX - maps[i].t_offset ? UINT64_MAX : t + maps[i].t_offset;
			if (best == n || placed < bt) {
				best = i;
				bt = placed;
			}
		}
		if (best == n)
			break;
		const rp_memsink *const m = ins[best];
		const rp_op *const in = &m->ops[pos[best]++];
		rp_op op;
		if (!place(in, &maps[best], &op)) {
			rc = rp_fail(errbuf, RP_E_LIMIT, "input %zu: op %zu: its time overflows once aligned", best + 1,
				     pos[best]);
			goto out;
		}
		const int64_t p1 = remap(m, out, tab, in->path, errbuf);
		const int64_t p2 = p1 < 0 ? p1 : remap(m, out, tab, in->path2, errbuf);
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
	free(pos);
	rp_strtab_destroy(tab);
	return rc;
}
