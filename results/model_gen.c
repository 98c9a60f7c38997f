/* `reprise generate`: a synthetic trace drawn from a model chunk by chunk, the same for the same seed (docs/model.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "results/model_gen_int.h"

static bool needs_handle(unsigned op)
{
	return op == RP_OP_READ || op == RP_OP_WRITE || op == RP_OP_FLUSH || op == RP_OP_SETATTR || op == RP_OP_LOCK ||
	       op == RP_OP_CLOSE || op == RP_OP_UNLOCK;
}

static bool generated(unsigned op)
{
	return needs_handle(op) || op == RP_OP_OPEN || op == RP_OP_STAT || op == RP_OP_ACCESS || op == RP_OP_LOOKUP ||
	       op == RP_OP_READDIR || op == RP_OP_STATFS || op == RP_OP_UNLINK || op == RP_OP_RENAME ||
	       op == RP_OP_MKDIR || op == RP_OP_RMDIR;
}

/* One op of the shuffled sequence seq[i..n): done, swapped with a later open, or replaced. */
static int step(gen *g, gclient *c, const rp_model_cell *cell, uint16_t *seq, size_t i, size_t n)
{
	const unsigned op = seq[i];
	const bool fail = cell->ops[op] && rp_rng_below(&c->rng, cell->ops[op]) < cell->failed[op];
	if (op == RP_OP_OPEN)
		return rp__gen_open(g, c, fail);
	if (op == RP_OP_UNLOCK && c->owed) {
		c->owed--; /* made already, when its handle was closed */
		return 0;
	}
	if (op == RP_OP_UNLOCK)
		for (uint32_t k = c->nh; k-- > 0;)
			if (c->h[k].locks)
				return rp__gen_unlock(g, c, &c->h[k]);
	if (op == RP_OP_UNLOCK || (op == RP_OP_RMDIR && !c->n_dirs)) {
		/* what it undoes comes first: a later lock or mkdir takes its place */
		const uint16_t pre = op == RP_OP_UNLOCK ? RP_OP_LOCK : RP_OP_MKDIR;
		for (size_t j = i + 1; j < n; j++)
			if (seq[j] == pre) {
				seq[j] = seq[i];
				seq[i] = pre;
				return step(g, c, cell, seq, i, n);
			}
		g->st->dropped++;
		return 0;
	}
	if (op == RP_OP_LOCK && c->nh && c->h[c->nh - 1].locks >= GEN_MAX_LOCKS) {
		g->st->dropped++;
		return 0;
	}
	if (needs_handle(op) && !c->nh) {
		for (size_t j = i + 1; j < n; j++)
			if (seq[j] == RP_OP_OPEN) {
				seq[j] = seq[i];
				seq[i] = RP_OP_OPEN;
				return rp__gen_open(g, c, false); /* the op itself comes later, in the open's place */
			}
		if (op == RP_OP_CLOSE || op == RP_OP_UNLOCK) {
			g->st->dropped++;
			return 0;
		}
		const int r = rp__gen_open(g, c, false);
		if (r < 0)
			return r;
		g->st->added_opens++;
	}
	if (op == RP_OP_CLOSE) /* the most recent handle; its locks are released first (rp__gen_close) */
		return rp__gen_close(g, c, c->nh - 1);
	if (needs_handle(op))
		return rp__gen_io(g, c, cell, op);
	if (op == RP_OP_UNLINK || op == RP_OP_RENAME || op == RP_OP_MKDIR || op == RP_OP_RMDIR) {
		bool done;
		const int r = rp__gen_name_op(g, c, op, &done);
		if (r == 0 && !done)
			g->st->dropped++;
		return r;
	}
	return rp__gen_path_op(g, c, op, fail);
}

/*
 * A time from h: its bucket as drawn, the value from the class's fine histogram of that bucket when it has one
 * (gaps crowd inside a bucket), else log-uniform in it (times spread over decades, not evenly in a bucket).
 */
static uint64_t time_sample(const rp_mhist *h, const rp_model_class *cls, rp_rng *r)
{
	const uint64_t v = rp_mh_sample(h, r);
	const unsigned b = rp_mh_bucket(v);
	uint64_t f;
	if (cls && rp_mh_fine_sample(cls->gapfine, cls->gapexact, cls->n_gapexact, b, r, &f))
		return f;
	if (b < 2)
		return v;
	const double u = (double)(rp_rng_next(r) >> 11) * 0x1p-53;
	const double d = ldexp(exp2(u), (int)b - 1);
	if (d >= ldexp(1.0, (int)b)) /* rounding at the top: the bucket's highest value */
		return b == 64 ? UINT64_MAX : (UINT64_C(1) << b) - 1;
	const uint64_t t = (uint64_t)d;
	return t < (UINT64_C(1) << (b - 1)) ? UINT64_C(1) << (b - 1) : t;
}

static int cmp_u64(const void *pa, const void *pb)
{
	const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return (a > b) - (a < b);
}

/*
 * The times of a client's ops buf[from..) in its chunk of len ns: gaps drawn from the cell, the first from the
 * client's previous op (or, for its first op ever, at an offset drawn from the cell's first).  When they add up
 * to more than the chunk, the longest are cut down to one level until they fit (a trace's long idle gap spans
 * chunks but is counted in one): the short gaps, most of them, stay as drawn.
 */
static int place(gen *g, gclient *c, const rp_model_cell *cell, size_t from, uint64_t t0, uint64_t len, bool timed)
{
	if (!timed || from == g->n_buf)
		return 0;
	const uint64_t end = t0 + len; /* no op of the chunk starts past it */
	uint64_t edge = 0;  /* the first gap's part before the chunk: the chunk's first op starts in the chunk */
	bool lead = false; /* the first op starts at the drawn offset itself, no gap before it */
	if (!c->started && cell->first) {
		/* the client's first op: when the model's clients' first ops began in the chunk, not at its start */
		uint64_t tot = 0;
		for (unsigned i = 0; i < RP_MODEL_FIRST_BINS; i++)
			tot += cell->first[i];
		if (tot) {
			uint64_t k = rp_rng_below(&c->rng, tot);
			unsigned bin = 0;
			for (; bin < RP_MODEL_FIRST_BINS - 1 && k >= cell->first[bin]; bin++)
				k -= cell->first[bin];
			const uint64_t w = g->m->chunk_ns / RP_MODEL_FIRST_BINS;
			uint64_t off = bin * w + rp_rng_below(&c->rng, w);
			off = off < len ? off : len;
			t0 += off;
			len -= off;
			lead = true;
		}
	}
	else if (c->started && c->last < t0) {
		/* the first gap runs from the client's previous op, in the chunk before: a gap that spans the chunks'
		 * edge is counted in this one (nfs3-write: 50 ms from 0.986 s to 1.035 s), not laid out from the edge */
		edge = t0 - c->last;
	}
	c->started = true;
	const size_t n = g->n_buf - from;
	uint64_t sum = 0;
	for (size_t i = from; i < g->n_buf; i++) {
		uint64_t gap = lead && i == from ? 0 : time_sample(&cell->gap, &g->m->classes[c->cls], &c->rng);
		if (i == from) /* what is left of it inside the chunk */
			gap = gap > edge ? gap - edge : 0;
		if (gap > len)
			gap = len;
		sum = sum + gap < sum ? UINT64_MAX : sum + gap;
		g->buf[i].t_start = gap; /* the gap for now */
	}
	uint64_t cap = UINT64_MAX;
	if (sum > len) {
		uint64_t *const a = malloc(n * sizeof(*a));
		if (!a)
			return RP_E_NOMEM;
		for (size_t i = 0; i < n; i++)
			a[i] = g->buf[from + i].t_start;
		qsort(a, n, sizeof(*a), cmp_u64);
		uint64_t acc = 0;
		for (size_t k = 0; k < n; k++) {
			if ((double)acc + (double)(n - k) * (double)a[k] >= (double)len) { /* acc <= len here */
				cap = (len - acc) / (uint64_t)(n - k);
				break;
			}
			acc += a[k];
		}
		free(a);
	}
	uint64_t t = t0;
	for (size_t i = from; i < g->n_buf; i++) {
		rp_op *const op = &g->buf[i];
		t += op->t_start < cap ? op->t_start : cap;
		if (t < c->t)
			t = c->t;
		if (t > end)
			t = end;
		op->t_start = c->t = c->last = t;
		const rp_mhist *const lat = g->m->classes[c->cls].lat[op->op];
		op->t_end = t + (lat ? rp_mh_sample(lat, &c->rng) : 0);
	}
	return 0;
}

/* One generated client's ops of one chunk into g->buf. */
static int client_chunk(gen *g, gclient *c, const rp_model_cell *cell, uint64_t ch, uint64_t t0, uint64_t chunk_ns,
			bool timed)
{
	const uint64_t per = g->m->classes[c->cls].clients ? g->m->classes[c->cls].clients : 1;
	const uint64_t ng = g->ngen[c->cls];
	size_t n = 0;
	uint64_t counts[RP_OP__COUNT];
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		/* the class's generated clients do the model's clients' ops scaled by their number, rounded, and share
		 * them out whole, the remainder going round the clients chunk by chunk: the mix stays the model's.  Every
		 * kind's remainder starts at the same client, so a chunk's single open, write and unlink (nfs3-write)
		 * stay together rather than a write on a client with nothing open */
		const uint64_t total = (cell->ops[op] * ng + per / 2) / per;
		counts[op] = total / ng + ((c->rank + ch) % ng < total % ng);
		if (!generated(op)) {
			g->st->unsupported += counts[op];
			counts[op] = 0;
		}
		n += counts[op];
	}
	if (g->st->ops + g->n_buf + n > GEN_MAX_OPS)
		return rp_fail(g->errbuf, RP_E_LIMIT, "generate: more than %llu ops: fewer --clients or a shorter --duration",
			       (unsigned long long)GEN_MAX_OPS);
	uint16_t *const seq = malloc((n ? n : 1) * sizeof(uint16_t));
	if (!seq)
		return rp_fail(g->errbuf, RP_E_NOMEM, "generate: out of memory");
	size_t k = 0;
	for (unsigned op = 0; op < RP_OP__COUNT; op++)
		for (uint64_t j = 0; j < counts[op]; j++)
			seq[k++] = (uint16_t)op;
	for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
		const size_t j = (size_t)rp_rng_below(&c->rng, i);
		const uint16_t t = seq[i - 1];
		seq[i - 1] = seq[j];
		seq[j] = t;
	}
	const size_t from = g->n_buf;
	int rc = 0;
	for (size_t i = 0; i < n && rc >= 0; i++)
		rc = step(g, c, cell, seq, i, n);
	free(seq);
	if (rc < 0)
		return g->errbuf[0] ? rc : rp_fail(g->errbuf, RP_E_NOMEM, "generate: out of memory");
	if (place(g, c, cell, from, t0, chunk_ns, timed) < 0)
		return rp_fail(g->errbuf, RP_E_NOMEM, "generate: out of memory");
	return 0;
}

typedef struct okey {
	uint64_t t;
	uint32_t client;
	size_t i;
} okey;

static int cmp_key(const void *a, const void *b)
{
	const okey *const x = a, *const y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The trace's span ends at its last op: the last generated chunk's last op is moved to end (the span's end or
 * --duration's), lengthening its client's longest gap of the chunk (the idle time drawn gaps fell short of:
 * nfs3-write's 0.43 s last chunk drew 0.24 s) and moving that client's later ops of the chunk with it.
 */
static void reach_end(gen *g, uint64_t end)
{
	size_t last = SIZE_MAX;
	for (size_t i = 0; i < g->n_buf; i++)
		if (last == SIZE_MAX || g->buf[i].t_start > g->buf[last].t_start)
			last = i;
	if (last == SIZE_MAX || g->buf[last].t_start >= end)
		return;
	const uint32_t client = g->buf[last].client;
	const uint64_t d = end - g->buf[last].t_start;
	size_t at = SIZE_MAX; /* the client's op after its longest gap of the chunk */
	uint64_t longest = 0, prev = UINT64_MAX;
	for (size_t i = 0; i < g->n_buf; i++) { /* a client's ops are in buf in its own order */
		if (g->buf[i].client != client)
			continue;
		if (prev != UINT64_MAX && g->buf[i].t_start - prev >= longest) {
			longest = g->buf[i].t_start - prev;
			at = i;
		}
		prev = g->buf[i].t_start;
	}
	if (at == SIZE_MAX) /* one op: it moves alone */
		at = last;
	for (size_t i = at; i < g->n_buf; i++)
		if (g->buf[i].client == client) {
			g->buf[i].t_start += d;
			g->buf[i].t_end += d;
		}
}

/* The chunk's ops into the sink by start time, then client, each client's own order kept. */
static int flush_chunk(gen *g)
{
	okey *const k = malloc((g->n_buf ? g->n_buf : 1) * sizeof(okey));
	if (!k)
		return rp_fail(g->errbuf, RP_E_NOMEM, "generate: out of memory");
	for (size_t i = 0; i < g->n_buf; i++)
		k[i] = (okey){ g->buf[i].t_start, g->buf[i].client, i };
	qsort(k, g->n_buf, sizeof(okey), cmp_key);
	int rc = 0;
	for (size_t i = 0; i < g->n_buf && rc == 0; i++)
		rc = g->sink->op(g->sink, &g->buf[k[i].i]);
	free(k);
	if (rc < 0 && !g->errbuf[0])
		rp_fail(g->errbuf, rc, "generate: %s", g->sink->errbuf);
	g->st->ops += g->n_buf;
	g->n_buf = 0;
	return rc;
}

/* Which class each generated client follows: the model's classes in proportion to their clients. */
static void assign_classes(gen *g)
{
	uint64_t given[RP_MODEL_MAX_CLASSES] = { 0 };
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t best = 0;
		double best_r = 1e300;
		for (uint32_t k = 0; k < g->m->n_classes; k++) {
			const double w = g->m->classes[k].clients ? g->m->classes[k].clients : 1;
			const double r = (double)(given[k] + 1) / w;
			if (r < best_r) {
				best_r = r;
				best = k;
			}
		}
		g->cl[i].cls = best;
		g->cl[i].rank = (uint32_t)given[best]++;
		g->ngen[best]++;
	}
}

static int setup(gen *g, const rp_gen_opts *o, uint32_t model_clients)
{
	rp_trace_meta meta = { .source = RP_SRC_SYNTHETIC, .flags = g->m->span_ns ? RP_META_TIMED : 0 };
	snprintf(meta.source_name, sizeof(meta.source_name), "%s", o->name ? o->name : "model");
	int rc = g->sink->meta(g->sink, &meta);
	if (rc < 0)
		return rp_fail(g->errbuf, rc, "generate: %s", g->sink->errbuf);
	const rp_model_files *const fs = &g->m->fs;
	g->p_shared = fs->files ? (double)fs->shared / (double)fs->files : 0;
	/* the share of successful opens that created a file; a model without "creates" (older) has files created / files */
	uint64_t opens = 0;
	for (uint32_t ch = 0; ch < g->m->n_chunks; ch++)
		for (uint32_t k = 0; k < g->m->n_classes; k++) {
			const rp_model_cell *const cell = rp_model_cell_at(g->m, ch, k);
			opens += cell->ops[RP_OP_OPEN] > cell->failed[RP_OP_OPEN] ? cell->ops[RP_OP_OPEN] - cell->failed[RP_OP_OPEN] : 0;
		}
	for (uint32_t ch = 0; ch < g->m->n_chunks; ch++)
		for (uint32_t k = 0; k < g->m->n_classes; k++) {
			const rp_model_cell *const cell = rp_model_cell_at(g->m, ch, k);
			for (unsigned b = 0; b < RP_MH_BUCKETS; b++) {
				g->rtot[k].n[b] += cell->rsize.n[b];
				g->wtot[k].n[b] += cell->wsize.n[b];
			}
		}
	/* the share of unlinks that take a file the trace created (client.txt, bonnie++: all, creates >= unlinks) */
	uint64_t unlinks = 0;
	for (uint32_t ch = 0; ch < g->m->n_chunks; ch++)
		for (uint32_t k = 0; k < g->m->n_classes; k++) {
			const rp_model_cell *const cell = rp_model_cell_at(g->m, ch, k);
			unlinks += cell->ops[RP_OP_UNLINK] - (cell->failed[RP_OP_UNLINK] < cell->ops[RP_OP_UNLINK] ? cell->failed[RP_OP_UNLINK] : cell->ops[RP_OP_UNLINK]);
		}
	for (uint32_t k = 0; k < g->m->n_classes; k++) {
		uint64_t closes = 0;
		for (uint32_t ch = 0; ch < g->m->n_chunks; ch++)
			closes += rp_model_cell_at(g->m, ch, k)->ops[RP_OP_CLOSE];
		g->no_close[k] = closes == 0;
	}
	g->p_unlink_made = unlinks ? (fs->creates >= unlinks ? 1 : (double)fs->creates / (double)unlinks) : 0;
	if (fs->creates)
		g->p_create = opens ? (double)(fs->creates < opens ? fs->creates : opens) / (double)opens : 0;
	else
		g->p_create = fs->files ? (double)fs->created / (double)fs->files : 0;
	assign_classes(g);
	char p[64];
	for (uint32_t i = 0; i < g->n; i++) {
		rp_rng_seed(&g->cl[i].rng, o->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (i + 1)));
		snprintf(p, sizeof(p), "/gen/c%u", i);
		const int64_t id = rp__gen_intern(g, p);
		if (id < 0)
			return (int)id;
		g->cl[i].dir = (uint32_t)id;
	}
	const int64_t id = rp__gen_intern(g, "/gen/shared");
	if (id < 0)
		return (int)id;
	g->shared_dir = (uint32_t)id;
	rp_rng rng;
	rp_rng_seed(&rng, o->seed);
	return rp__gen_make_files(g, model_clients, &rng);
}

int rp_model_generate(const rp_model *m, const rp_gen_opts *o, rp_sink *sink, rp_gen_stats *st, char *errbuf)
{
	memset(st, 0, sizeof(*st));
	errbuf[0] = 0;
	uint32_t model_clients = 0;
	for (uint32_t k = 0; k < m->n_classes; k++)
		model_clients += m->classes[k].clients;
	const uint32_t n = o->clients ? o->clients : model_clients ? model_clients : 1;
	if (n > GEN_MAX_CLIENTS)
		return rp_fail(errbuf, RP_E_LIMIT, "generate: at most %d clients", GEN_MAX_CLIENTS);
	const bool timed = m->span_ns > 0;
	uint64_t chunks = m->n_chunks;
	if (timed && o->duration_ns)
		chunks = (o->duration_ns + m->chunk_ns - 1) / m->chunk_ns;
	if (chunks > (uint64_t)RP_MODEL_MAX_CHUNKS * 16)
		return rp_fail(errbuf, RP_E_LIMIT, "generate: more than %d chunks: a shorter --duration", RP_MODEL_MAX_CHUNKS * 16);
	gen g = { .m = m, .sink = sink, .st = st, .errbuf = errbuf, .n = n };
	g.tab = rp_strtab_create();
	g.cl = calloc(n, sizeof(gclient));
	int rc = !g.tab || !g.cl ? rp_fail(errbuf, RP_E_NOMEM, "generate: out of memory") : setup(&g, o, model_clients);
	for (uint64_t ch = 0; ch < chunks && rc == 0; ch++) {
		const rp_model_cell *const row = rp_model_cell_at(m, (uint32_t)(ch % m->n_chunks), 0);
		const uint64_t t0 = timed ? ch * m->chunk_ns : 0;
		/* the model's last chunk is as long as what is left of its span, the last generated one of --duration */
		uint64_t len = m->chunk_ns;
		const uint64_t last0 = (uint64_t)(m->n_chunks - 1) * m->chunk_ns;
		if (timed && ch % m->n_chunks == m->n_chunks - 1 && m->span_ns > last0 && m->span_ns - last0 < len)
			len = m->span_ns - last0;
		if (timed && o->duration_ns && o->duration_ns > t0 && o->duration_ns - t0 < len)
			len = o->duration_ns - t0;
		for (uint32_t i = 0; i < n && rc == 0; i++) {
			gclient *const c = &g.cl[i];
			if (c->t < t0)
				c->t = t0;
			if (row[c->cls].clients)
				rc = client_chunk(&g, c, &row[c->cls], ch, t0, len, timed);
		}
		if (rc == 0 && timed && ch == chunks - 1)
			reach_end(&g, t0 + len);
		if (rc == 0)
			rc = flush_chunk(&g);
	}
	/* what is still open stays open, as in a trace whose clients exit with files open: replay closes them */
	if (rc == 0)
		rc = flush_chunk(&g);
	if (rc == 0 && (rc = sink->finish(sink)) < 0)
		rp_fail(errbuf, rc, "generate: %s", sink->errbuf);
	if (rc < 0 && !errbuf[0])
		rp_fail(errbuf, rc, "generate: out of memory");
	st->clients = n;
	st->chunks = (uint32_t)chunks;
	for (uint32_t i = 0; g.cl && i < n; i++) {
		free(g.cl[i].own);
		free(g.cl[i].dead);
		free(g.cl[i].dirs);
		free(g.cl[i].made);
		rp__gen_tree_free(&g.cl[i].tree);
	}
	rp__gen_tree_free(&g.stree);
	free(g.cl);
	free(g.files);
	free(g.shared);
	free(g.buf);
	rp_strtab_destroy(g.tab);
	return rc < 0 ? rc : 0;
}
