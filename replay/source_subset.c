/* A workload showing some of another's clients, dealt by client id (replay/subset.h). */
#include "replay/subset.h"

#include <stdlib.h>
#include <string.h>

#include "replay/workload.h"

typedef struct subset_workload {
	rp_workload base;
	rp_workload *inner;
	uint32_t *keep; /* the kept client ids, increasing */
	size_t n_keep;
} subset_workload;

typedef struct subset_source {
	rp_op_source base;
	rp_op_source *in;
	const subset_workload *w;
	rp_op *batch; /* as large as the largest inner batch seen */
	size_t cap;
} subset_source;

static bool has(const uint32_t *ids, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		if (ids[mid] == id)
			return true;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The kept clients' ops of the next inner batch that has any (at most as many as that batch: copied to batch). */
static int subset_next(rp_op_source *s, const rp_op **ops)
{
	subset_source *const f = (subset_source *)s;
	for (;;) {
		const rp_op *in = NULL;
		const int n = f->in->next(f->in, &in);
		if (n < 0) {
			memcpy(s->errbuf, f->in->errbuf, sizeof(s->errbuf));
			return n;
		}
		if (n == 0)
			return 0;
		if ((size_t)n > f->cap) {
			rp_op *const nb = realloc(f->batch, (size_t)n * sizeof(*nb));
			if (!nb)
				return rp_fail(s->errbuf, RP_E_NOMEM, "out of memory");
			f->batch = nb;
			f->cap = (size_t)n;
		}
		int k = 0;
		for (int i = 0; i < n; i++)
			if (has(f->w->keep, f->w->n_keep, in[i].client))
				f->batch[k++] = in[i];
		if (k) {
			*ops = f->batch;
			return k;
		}
	}
}

static int subset_rewind(rp_op_source *s)
{
	subset_source *const f = (subset_source *)s;
	const int rc = f->in->rewind(f->in);
	if (rc < 0)
		memcpy(s->errbuf, f->in->errbuf, sizeof(s->errbuf));
	return rc;
}

static const char *subset_string(rp_op_source *s, uint32_t id, uint32_t *len)
{
	subset_source *const f = (subset_source *)s;
	return f->in->string(f->in, id, len);
}

static void subset_close(rp_op_source *s)
{
	subset_source *const f = (subset_source *)s;
	f->in->close(f->in);
	free(f->batch);
	free(f);
}

static int subset_open(rp_workload *w, bool all, uint32_t client, rp_op_source **out, char *errbuf)
{
	subset_workload *const sw = (subset_workload *)w;
	/* One client's ops: the engine asks only for the clients its scan found, which are kept ones. */
	if (!all)
		return sw->inner->open(sw->inner, false, client, out, errbuf);
	subset_source *const f = calloc(1, sizeof(*f));
	if (!f)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const int rc = sw->inner->open(sw->inner, true, 0, &f->in, errbuf);
	if (rc < 0) {
		free(f);
		return rc;
	}
	f->w = sw;
	f->base.next = subset_next;
	f->base.rewind = subset_rewind;
	f->base.string = subset_string;
	f->base.close = subset_close;
	*out = &f->base;
	return 0;
}

static void subset_destroy(rp_workload *w)
{
	subset_workload *const sw = (subset_workload *)w;
	free(sw->keep);
	free(sw);
}

/* The trace's distinct client ids, increasing, in *ids (malloc'd); fork and wait ops refused. */
static int scan_ids(rp_workload *inner, uint32_t **ids, size_t *n_ids, char *errbuf)
{
	rp_op_source *src = NULL;
	int rc = inner->open(inner, true, 0, &src, errbuf);
	if (rc < 0)
		return rc;
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;
	uint32_t last = 0;
	bool any = false;
	for (;;) {
		const rp_op *ops = NULL;
		const int k = src->next(src, &ops);
		if (k < 0) {
			rc = rp_fail(errbuf, k, "%s", src->errbuf);
			goto fail;
		}
		if (k == 0)
			break;
		for (int i = 0; i < k; i++) {
			if (ops[i].op == RP_OP_FORK || ops[i].op == RP_OP_WAIT) {
				rc = rp_fail(errbuf, RP_E_UNSUPPORTED,
					     "the trace's clients fork or wait for each other: they cannot be dealt "
					     "across processes (copies with --clients N can)");
				goto fail;
			}
			const uint32_t id = ops[i].client;
			if ((any && id == last) || has(v, n, id))
				continue;
			if (n == RP_REPLAY_CLIENTS_MAX) {
				rc = rp_fail(errbuf, RP_E_LIMIT, "more than %u clients in the trace", RP_REPLAY_CLIENTS_MAX);
				goto fail;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				uint32_t *const nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
					goto fail;
				}
				v = nv;
			}
			/* Kept sorted as it grows: clients are few, ops many, and most ops repeat the last id. */
			size_t at = n;
			while (at > 0 && v[at - 1] > id)
				at--;
			memmove(v + at + 1, v + at, (n - at) * sizeof(*v));
			v[at] = id;
			n++;
			last = id;
			any = true;
		}
	}
	src->close(src);
	*ids = v;
	*n_ids = n;
	return 0;
fail:
	src->close(src);
	free(v);
	return rc;
}

int rp_workload_open_subset(rp_workload **out, rp_workload *inner, uint32_t part, uint32_t parts,
			    uint32_t *n_clients, char *errbuf)
{
	*out = NULL;
	if (parts == 0 || part >= parts)
		return rp_fail(errbuf, RP_E_RANGE, "share %u of %u", part, parts);
	uint32_t *ids = NULL;
	size_t n = 0;
	int rc = scan_ids(inner, &ids, &n, errbuf);
	if (rc < 0)
		return rc;
	if (n_clients)
		*n_clients = (uint32_t)n;
	if (n < parts) {
		free(ids);
		return rp_fail(errbuf, RP_E_RANGE, "the trace has %zu client%s for %u shares: each needs one", n,
			       n == 1 ? "" : "s", parts);
	}
	subset_workload *const sw = calloc(1, sizeof(*sw));
	if (!sw) {
		free(ids);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	/* Dealt: the i-th id to share i % parts; ids stays sorted, so keep does too. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (i % parts == part)
			ids[k++] = ids[i];
	sw->keep = ids;
	sw->n_keep = k;
	sw->inner = inner;
	sw->base.open = subset_open;
	sw->base.destroy = subset_destroy;
	sw->base.meta = inner->meta;
	*out = &sw->base;
	return 0;
}
