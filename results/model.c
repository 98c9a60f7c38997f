/* `reprise model`'s builder: two passes of a trace's ops into histograms per chunk and client class (docs/model.md). */
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "formats/hash.h"
#include "formats/strtab.h"
#include "results/model.h"

/* An open-addressing map of 64-bit keys to 64-bit values; key 0 is stored beside the table. */
typedef struct u64map {
	uint64_t *keys, *vals;
	size_t cap, n;
	bool has_zero;
	uint64_t zero_val;
} u64map;

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return k;
}

static void map_free(u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* The slot of key, or the empty slot where it would go (a table with room). */
static size_t map_slot(const u64map *m, uint64_t key)
{
	size_t i = (size_t)mix64(key) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static uint64_t *map_get(u64map *m, uint64_t key)
{
	if (key == 0)
		return m->has_zero ? &m->zero_val : NULL;
	if (!m->cap)
		return NULL;
	const size_t i = map_slot(m, key);
	return m->keys[i] ? &m->vals[i] : NULL;
}

static int map_grow(u64map *m)
{
	const size_t cap = m->cap ? m->cap * 2 : 64;
	u64map g = { .keys = calloc(cap, sizeof(uint64_t)), .vals = calloc(cap, sizeof(uint64_t)), .cap = cap };
	if (!g.keys || !g.vals) {
		map_free(&g);
		return RP_E_NOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			const size_t j = map_slot(&g, m->keys[i]);
			g.keys[j] = m->keys[i];
			g.vals[j] = m->vals[i];
		}
	g.n = m->n;
	g.has_zero = m->has_zero;
	g.zero_val = m->zero_val;
	free(m->keys);
	free(m->vals);
	*m = g;
	return 0;
}

/* The value of key, added as 0 when new (*added says so); NULL without memory. */
static uint64_t *map_put(u64map *m, uint64_t key, bool *added)
{
	*added = false;
	if (key == 0) {
		if (!m->has_zero) {
			m->has_zero = true;
			m->zero_val = 0;
			*added = true;
		}
		return &m->zero_val;
	}
	if ((m->n + 1) * 4 > m->cap * 3 && map_grow(m) < 0)
		return NULL;
	const size_t i = map_slot(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->vals[i] = 0;
		m->n++;
		*added = true;
	}
	return &m->vals[i];
}

static void map_del(u64map *m, uint64_t key)
{
	if (key == 0) {
		m->has_zero = false;
		return;
	}
	if (!m->cap)
		return;
	size_t i = map_slot(m, key);
	if (!m->keys[i])
		return;
	m->keys[i] = 0;
	m->n--;
	/* re-place the rest of the cluster so lookups do not stop at the hole */
	for (size_t j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		const uint64_t k = m->keys[j], v = m->vals[j];
		m->keys[j] = 0;
		const size_t s = map_slot(m, k);
		m->keys[s] = k;
		m->vals[s] = v;
	}
}

#define DEPTH_RING 16 /* a client's ops in flight tracked at once; deeper counts as this deep */

typedef struct client_st {
	uint64_t ops[RP_OP__COUNT]; /* pass 1 */
	uint64_t prev_start, prev_end;
	uint64_t ends[DEPTH_RING];
	uint32_t chunk_seen; /* chunk + 1 of the last op */
	uint8_t cls, has_prev, nends;
} client_st;

typedef struct handle_st {
	uint32_t path;
	uint64_t end, run;
	bool io;
} handle_st;

enum path_flag { PF_SEEN = 1, PF_DIR = 2, PF_CREATED = 4, PF_SHARED = 8, PF_FILE = 16 };

typedef struct path_st {
	uint64_t size;
	uint32_t client; /* slot + 1 of the first client */
	uint8_t flags;
} path_st;

struct rp_model_builder {
	rp_sink s1, s2;
	rp_model m;
	uint64_t chunk_req;
	u64map clients; /* client id -> slot */
	client_st *cl;
	size_t n_cl, cap_cl;
	u64map handles; /* handle -> index into hs */
	handle_st *hs;
	size_t n_hs, cap_hs;
	uint32_t *free_hs;
	size_t n_free;
	path_st *paths; /* by string id */
	size_t cap_paths;
	rp_strtab *strings;
	uint64_t max_start;
	bool timed;
	u64map gapvals[RP_MODEL_MAX_CLASSES]; /* per class: exact gap -> count, at most GAPVALS_MAX values */
};

#define GAPVALS_MAX 65536 /* distinct exact gaps counted per class: later new values are left to gapfine alone */

rp_model_builder *rp_model_builder_create(uint64_t chunk_ns)
{
	rp_model_builder *const b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->chunk_req = chunk_ns ? chunk_ns : 1000000000u;
	b->strings = rp_strtab_create();
	if (!b->strings) {
		free(b);
		return NULL;
	}
	return b;
}

void rp_model_free(rp_model *m)
{
	if (!m)
		return;
	for (uint32_t k = 0; k < RP_MODEL_MAX_CLASSES; k++)
		for (unsigned op = 0; op < RP_OP__COUNT; op++) {
			free(m->classes[k].lat[op]);
			m->classes[k].lat[op] = NULL;
		}
	for (uint32_t k = 0; k < RP_MODEL_MAX_CLASSES; k++) {
		free(m->classes[k].gapfine);
		m->classes[k].gapfine = NULL;
	}
	for (size_t i = 0; m->cells && i < (size_t)m->n_chunks * m->n_classes; i++)
		free(m->cells[i].first);
	free(m->cells);
	m->cells = NULL;
}

void rp_model_builder_destroy(rp_model_builder *b)
{
	if (!b)
		return;
	rp_model_free(&b->m);
	map_free(&b->clients);
	map_free(&b->handles);
	for (uint32_t k = 0; k < RP_MODEL_MAX_CLASSES; k++)
		map_free(&b->gapvals[k]);
	free(b->cl);
	free(b->hs);
	free(b->free_hs);
	free(b->paths);
	rp_strtab_destroy(b->strings);
	free(b);
}

static int meta_cb(rp_sink *s, const rp_trace_meta *meta)
{
	(void)s;
	(void)meta;
	return 0;
}

static int string1_cb(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	(void)s;
	(void)id;
	(void)str;
	(void)len;
	return 0;
}

static int finish_cb(rp_sink *s)
{
	(void)s;
	return 0;
}

/* The slot of a client (the last slot for every client past the cap). */
static client_st *client_of(rp_model_builder *b, uint32_t id, char *errbuf)
{
	bool added;
	uint64_t *const v = map_put(&b->clients, id, &added);
	if (!v) {
		rp_fail(errbuf, RP_E_NOMEM, "model: out of memory");
		return NULL;
	}
	if (added) {
		if (b->n_cl >= RP_MODEL_MAX_CLIENTS) {
			b->m.capped_clients++;
			*v = b->n_cl - 1;
			return &b->cl[*v];
		}
		if (b->n_cl == b->cap_cl) {
			const size_t cap = b->cap_cl ? b->cap_cl * 2 : 16;
			client_st *const n = realloc(b->cl, cap * sizeof(*n));
			if (!n) {
				rp_fail(errbuf, RP_E_NOMEM, "model: out of memory");
				return NULL;
			}
			b->cl = n;
			b->cap_cl = cap;
		}
		memset(&b->cl[b->n_cl], 0, sizeof(b->cl[0]));
		*v = b->n_cl++;
	}
	return &b->cl[*v];
}

static int op1_cb(rp_sink *s, const rp_op *op)
{
	rp_model_builder *const b = (rp_model_builder *)((char *)s - offsetof(rp_model_builder, s1));
	client_st *const c = client_of(b, op->client, s->errbuf);
	if (!c)
		return RP_E_NOMEM;
	if (op->op < RP_OP__COUNT)
		c->ops[op->op]++;
	if (op->t_start > b->max_start)
		b->max_start = op->t_start;
	if (op->t_start > 0 || (op->t_end != RP_TIME_UNKNOWN && op->t_end > 0))
		b->timed = true;
	b->m.n_ops++;
	return 0;
}

rp_sink *rp_model_builder_pass1(rp_model_builder *b)
{
	b->s1 = (rp_sink){ .meta = meta_cb, .string = string1_cb, .op = op1_cb, .finish = finish_cb };
	return &b->s1;
}

int rp_model_builder_pass2_begin(rp_model_builder *b, char *errbuf)
{
	rp_model *const m = &b->m;
	/* each client's class: its most frequent op (sleep aside), classes in order of first appearance */
	int cls_of_op[RP_OP__COUNT];
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		cls_of_op[i] = -1;
	for (size_t i = 0; i < b->n_cl; i++) {
		client_st *const c = &b->cl[i];
		unsigned best = RP_OP_OPEN;
		for (unsigned op = 0; op < RP_OP__COUNT; op++)
			if (op != RP_OP_SLEEP && c->ops[op] > c->ops[best])
				best = op;
		if (cls_of_op[best] < 0) {
			cls_of_op[best] = (int)m->n_classes;
			rp_model_class *const k = &m->classes[m->n_classes++];
			snprintf(k->name, sizeof(k->name), "%s", rp_op_name(best));
		}
		c->cls = (uint8_t)cls_of_op[best];
		m->classes[c->cls].clients++;
	}
	if (m->n_classes == 0) {
		m->n_classes = 1;
		snprintf(m->classes[0].name, sizeof(m->classes[0].name), "open");
	}
	m->chunk_ns = b->chunk_req;
	m->span_ns = b->timed ? b->max_start : 0;
	uint64_t n = m->span_ns / m->chunk_ns + 1;
	if (n > RP_MODEL_MAX_CHUNKS) {
		m->chunk_ns = m->span_ns / (RP_MODEL_MAX_CHUNKS - 1) + 1;
		m->chunk_widened = true;
		n = m->span_ns / m->chunk_ns + 1;
	}
	m->n_chunks = (uint32_t)n;
	m->cells = calloc((size_t)m->n_chunks * m->n_classes, sizeof(rp_model_cell));
	if (!m->cells)
		return rp_fail(errbuf, RP_E_NOMEM, "model: out of memory for %u chunks", m->n_chunks);
	m->n_ops = 0;
	for (size_t i = 0; i < b->n_cl; i++)
		memset(b->cl[i].ops, 0, sizeof(b->cl[i].ops));
	return 0;
}

static int string2_cb(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_model_builder *const b = (rp_model_builder *)((char *)s - offsetof(rp_model_builder, s2));
	(void)id;
	const int64_t r = rp_strtab_append(b->strings, str, len);
	return r < 0 ? rp_fail(s->errbuf, (int)r, "model: string table: %s", rp_strerror((int)r)) : 0;
}

/* The state of path id, NULL past the cap (counted) or for no path. */
static path_st *path_of(rp_model_builder *b, uint32_t id, int *err)
{
	*err = 0;
	if (id == 0)
		return NULL;
	if (id > RP_MODEL_MAX_FILES) {
		b->m.capped_files++;
		return NULL;
	}
	if (id >= b->cap_paths) {
		size_t cap = b->cap_paths ? b->cap_paths : 1024;
		while (cap <= id)
			cap *= 2;
		path_st *const n = realloc(b->paths, cap * sizeof(*n));
		if (!n) {
			*err = RP_E_NOMEM;
			return NULL;
		}
		memset(n + b->cap_paths, 0, (cap - b->cap_paths) * sizeof(*n));
		b->paths = n;
		b->cap_paths = cap;
	}
	return &b->paths[id];
}

static bool op_creates(const rp_op *op)
{
	if (op->status != RP_STATUS_OK)
		return false;
	if (op->op == RP_OP_MKDIR || op->op == RP_OP_SYMLINK || op->op == RP_OP_MKNOD)
		return true;
	if (op->op != RP_OP_OPEN)
		return false;
	if (op->result == RP_ACT_CREATED)
		return true;
	return op->result == RP_ACT_UNKNOWN && (op->disp == RP_DISP_CREATE || op->disp == RP_DISP_SUPERSEDE);
}

static bool op_is_dir(const rp_op *op)
{
	return op->op == RP_OP_MKDIR || op->op == RP_OP_RMDIR || op->op == RP_OP_READDIR || op->op == RP_OP_DELTREE ||
	       (op->op == RP_OP_OPEN && (op->oflags & RP_OF_DIRECTORY)) || (op->flags & RP_OPF_DIRECTORY);
}

/* The file set's view of one op on path id (0: none) by client slot cs. */
static int touch_path(rp_model_builder *b, uint32_t id, const rp_op *op, uint32_t cs, uint64_t extent)
{
	int err;
	path_st *const p = path_of(b, id, &err);
	if (!p)
		return err;
	if (!(p->flags & PF_SEEN)) {
		p->flags |= PF_SEEN;
		p->client = cs + 1;
		if (op_creates(op))
			p->flags |= PF_CREATED;
	} else if (p->client != cs + 1) {
		p->flags |= PF_SHARED;
	}
	if (op_is_dir(op))
		p->flags |= PF_DIR;
	else if (op->op != RP_OP_STATFS && op->op != RP_OP_UNLINK && op->op != RP_OP_STAT && op->op != RP_OP_LOOKUP &&
		 op->op != RP_OP_ACCESS)
		p->flags |= PF_FILE;
	if (extent > p->size)
		p->size = extent;
	return 0;
}

static rp_mhist *lat_of(rp_model_class *c, unsigned op)
{
	if (!c->lat[op])
		c->lat[op] = calloc(1, sizeof(rp_mhist));
	return c->lat[op];
}

/* A handle's I/O at [off, off + len): the seek from its previous end and its sequential runs. */
static void handle_io(rp_model_cell *cell, handle_st *h, uint64_t off, uint64_t len)
{
	if (h->io) {
		rp_mh_add(&cell->seek, off > h->end ? off - h->end : h->end - off);
		if (off == h->end) {
			h->run++;
		} else {
			rp_mh_add(&cell->run, h->run);
			h->run = 1;
		}
	} else {
		rp_mh_add(&cell->seek, off);
		h->run = 1;
	}
	h->io = true;
	h->end = off + len;
}

static int handle_open(rp_model_builder *b, uint64_t handle, uint32_t path)
{
	bool added;
	uint64_t *const v = map_put(&b->handles, handle, &added);
	if (!v)
		return RP_E_NOMEM;
	if (added) {
		if (b->n_free) {
			*v = b->free_hs[--b->n_free];
		} else {
			if (b->n_hs == b->cap_hs) {
				const size_t cap = b->cap_hs ? b->cap_hs * 2 : 64;
				handle_st *const n = realloc(b->hs, cap * sizeof(*n));
				uint32_t *const f = realloc(b->free_hs, cap * sizeof(*f));
				if (n)
					b->hs = n;
				if (f)
					b->free_hs = f;
				if (!n || !f)
					return RP_E_NOMEM;
				b->cap_hs = cap;
			}
			*v = b->n_hs++;
		}
	}
	b->hs[*v] = (handle_st){ .path = path };
	return 0;
}

static void handle_close(rp_model_builder *b, rp_model_cell *cell, uint64_t handle)
{
	uint64_t *const v = map_get(&b->handles, handle);
	if (!v)
		return;
	if (b->hs[*v].io)
		rp_mh_add(&cell->run, b->hs[*v].run);
	b->free_hs[b->n_free++] = (uint32_t)*v;
	map_del(&b->handles, handle);
}

static int timing(rp_model_class *cls, u64map *vals, rp_model_cell *cell, client_st *c, const rp_op *op)
{
	if (c->has_prev && op->t_start >= c->prev_start) {
		const uint64_t gap = op->t_start - c->prev_start;
		rp_mh_add(&cell->gap, gap);
		if (!cls->gapfine && !(cls->gapfine = calloc(RP_MH_FINE, sizeof(uint64_t))))
			return RP_E_NOMEM;
		cls->gapfine[rp_mh_fine_index(gap)]++;
		if (gap >= 16) { /* narrower buckets are not split: their values need no exact ones */
			uint64_t *n = map_get(vals, gap);
			bool added;
			if (!n && vals->n < GAPVALS_MAX && !(n = map_put(vals, gap, &added)))
				return RP_E_NOMEM;
			if (n)
				++*n;
		}
	}
	if (c->has_prev && c->prev_end != RP_TIME_UNKNOWN && op->t_start >= c->prev_end)
		rp_mh_add(&cell->think, op->t_start - c->prev_end);
	/* in flight: the client's ops that end after this one starts, and this one */
	uint8_t k = 0;
	for (uint8_t i = 0; i < c->nends; i++)
		if (c->ends[i] > op->t_start)
			c->ends[k++] = c->ends[i];
	c->nends = k;
	rp_mh_add(&cell->depth, (uint64_t)k + 1);
	if (op->t_end != RP_TIME_UNKNOWN && op->t_end > op->t_start) {
		if (c->nends < DEPTH_RING)
			c->ends[c->nends++] = op->t_end;
	}
	c->has_prev = 1;
	c->prev_start = op->t_start;
	c->prev_end = op->t_end;
	return 0;
}

static int op2_cb(rp_sink *s, const rp_op *op)
{
	rp_model_builder *const b = (rp_model_builder *)((char *)s - offsetof(rp_model_builder, s2));
	rp_model *const m = &b->m;
	client_st *const c = client_of(b, op->client, s->errbuf);
	if (!c)
		return RP_E_NOMEM;
	const uint32_t cs = (uint32_t)(c - b->cl);
	const uint64_t ch64 = m->span_ns ? op->t_start / m->chunk_ns : 0;
	const uint32_t chunk = ch64 >= m->n_chunks ? m->n_chunks - 1 : (uint32_t)ch64;
	rp_model_cell *const cell = rp_model_cell_at(m, chunk, c->cls);
	m->n_ops++;
	if (c->chunk_seen != chunk + 1) {
		c->chunk_seen = chunk + 1;
		cell->clients++;
	}
	if (op->op >= RP_OP__COUNT)
		return 0;
	cell->ops[op->op]++;
	if (op->status > 0 || op->status == RP_STATUS_OTHER)
		cell->failed[op->op]++;
	if (op->op == RP_OP_OPEN && !(op->oflags & RP_OF_DIRECTORY) && op_creates(op))
		m->fs.creates++;
	if (!c->has_prev && m->span_ns) { /* the client's first op: when in its chunk it began */
		if (!cell->first && !(cell->first = calloc(RP_MODEL_FIRST_BINS, sizeof(uint64_t))))
			return rp_fail(s->errbuf, RP_E_NOMEM, "model: out of memory");
		const uint64_t off = op->t_start - (uint64_t)chunk * m->chunk_ns; /* the last chunk takes what is past it */
		const uint64_t bin = off / (m->chunk_ns / RP_MODEL_FIRST_BINS);
		cell->first[bin < RP_MODEL_FIRST_BINS ? bin : RP_MODEL_FIRST_BINS - 1]++;
	}
	if (timing(&m->classes[c->cls], &b->gapvals[c->cls], cell, c, op) < 0)
		return rp_fail(s->errbuf, RP_E_NOMEM, "model: out of memory");
	if (op->t_end != RP_TIME_UNKNOWN && op->t_end >= op->t_start) {
		rp_mhist *const l = lat_of(&m->classes[c->cls], op->op);
		if (!l)
			return rp_fail(s->errbuf, RP_E_NOMEM, "model: out of memory");
		rp_mh_add(l, op->t_end - op->t_start);
	}
	const bool ok = op->status == RP_STATUS_OK;
	uint32_t path = op->path;
	uint64_t extent = 0;
	int err = 0;
	if (op->op == RP_OP_READ || op->op == RP_OP_WRITE) {
		rp_mh_add(op->op == RP_OP_READ ? &cell->rsize : &cell->wsize, op->length);
		if (op->length && !(op->length & (op->length - 1)))
			rp_mh_add(op->op == RP_OP_READ ? &m->classes[c->cls].rexact : &m->classes[c->cls].wexact, op->length);
		uint64_t *const v = map_get(&b->handles, op->handle);
		if (v) {
			handle_io(cell, &b->hs[*v], op->offset, op->length);
			if (!path)
				path = b->hs[*v].path;
		}
		if (ok)
			extent = op->offset + op->length;
	} else if (op->op == RP_OP_OPEN && ok) {
		if (b->handles.n >= RP_MODEL_MAX_HANDLES)
			m->capped_handles++;
		else
			err = handle_open(b, op->handle, op->path);
	} else if (op->op == RP_OP_CLOSE) {
		handle_close(b, cell, op->handle);
	} else if (op->op == RP_OP_SETATTR && (op->attrs & RP_SA_SIZE) && ok) {
		extent = op->length;
	} else if (op->op == RP_OP_STAT && ok) {
		extent = op->result;
	}
	if (err)
		return rp_fail(s->errbuf, err, "model: out of memory");
	if (op->op != RP_OP_STATFS && (err = touch_path(b, path, op, cs, extent)) < 0)
		return rp_fail(s->errbuf, err, "model: out of memory");
	if ((op->op == RP_OP_RENAME || op->op == RP_OP_LINK) && ok && (err = touch_path(b, op->path2, op, cs, 0)) < 0)
		return rp_fail(s->errbuf, err, "model: out of memory");
	return 0;
}

rp_sink *rp_model_builder_pass2(rp_model_builder *b)
{
	b->s2 = (rp_sink){ .meta = meta_cb, .string = string2_cb, .op = op2_cb, .finish = finish_cb };
	return &b->s2;
}

/* Components of a path ("/a/b/c" is 3) and the length of its parent's prefix. */
static unsigned path_depth(const char *s, uint32_t len, uint32_t *parent_len)
{
	unsigned d = 0;
	*parent_len = 0;
	for (uint32_t i = 0; i < len; i++)
		if (s[i] != '/' && s[i] != '\\' && (i == 0 || s[i - 1] == '/' || s[i - 1] == '\\')) {
			d++;
			*parent_len = i;
		}
	return d;
}

static int cmp_exact(const void *pa, const void *pb)
{
	const rp_mh_exact *const a = pa, *const b = pb;
	return (a->v > b->v) - (a->v < b->v);
}

/*
 * A class's exact gaps: the RP_MH_EXACT_MAX most frequent (ties: the smaller value) of at least 2 and 1/256 of
 * its gaps, ascending.  gapfine counts them too, so each part's exact counts stay within the part's.
 */
static void exact_gaps(rp_model_class *cls, const u64map *vals)
{
	uint64_t total = 0;
	for (size_t i = 0; i < vals->cap; i++)
		total += vals->keys[i] ? vals->vals[i] : 0;
	const uint64_t min = total / 256 > 2 ? total / 256 : 2;
	uint32_t n = 0;
	for (size_t i = 0; i < vals->cap; i++) {
		if (!vals->keys[i] || vals->vals[i] < min)
			continue;
		const rp_mh_exact e = { .v = vals->keys[i], .n = vals->vals[i] };
		uint32_t k = n < RP_MH_EXACT_MAX ? n++ : RP_MH_EXACT_MAX;
		/* keep the array by count descending (then value ascending): insert e, dropping the last when full */
		while (k > 0 && (cls->gapexact[k - 1].n < e.n || (cls->gapexact[k - 1].n == e.n && cls->gapexact[k - 1].v > e.v))) {
			if (k < RP_MH_EXACT_MAX)
				cls->gapexact[k] = cls->gapexact[k - 1];
			k--;
		}
		if (k < RP_MH_EXACT_MAX)
			cls->gapexact[k] = e;
	}
	cls->n_gapexact = n;
	qsort(cls->gapexact, n, sizeof(cls->gapexact[0]), cmp_exact);
}

int rp_model_builder_finish(rp_model_builder *b, rp_model *m, char *errbuf)
{
	for (uint32_t k = 0; k < b->m.n_classes; k++) {
		exact_gaps(&b->m.classes[k], &b->gapvals[k]);
		map_free(&b->gapvals[k]);
	}
	rp_model_files *const fs = &b->m.fs;
	u64map parents = { 0 };
	for (size_t id = 1; id < b->cap_paths; id++) {
		const path_st *const p = &b->paths[id];
		if (!(p->flags & PF_SEEN))
			continue;
		uint32_t len, plen;
		const char *const s = rp_strtab_get(b->strings, (uint32_t)id, &len);
		if (!s)
			continue;
		const unsigned depth = path_depth(s, len, &plen);
		bool added;
		uint64_t *const v = map_put(&parents, rp_fnv1a64(UINT64_C(14695981039346656037), s, plen) | 1, &added);
		if (!v) {
			map_free(&parents);
			return rp_fail(errbuf, RP_E_NOMEM, "model: out of memory");
		}
		++*v;
		if (p->flags & PF_DIR) {
			fs->dirs++;
			continue;
		}
		if (!(p->flags & PF_FILE))
			continue;
		fs->files++;
		fs->created += (p->flags & PF_CREATED) != 0;
		fs->shared += (p->flags & PF_SHARED) != 0;
		rp_mh_add(&fs->size, p->size);
		rp_mh_add(&fs->depth, depth);
	}
	for (size_t i = 0; i < parents.cap; i++)
		if (parents.keys[i])
			rp_mh_add(&fs->width, parents.vals[i]);
	map_free(&parents);
	*m = b->m;
	memset(&b->m, 0, sizeof(b->m));
	return 0;
}
