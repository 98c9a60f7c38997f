/* `reprise generate`: a synthetic trace drawn from a model chunk by chunk, the same for the same seed (docs/model.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "formats/strtab.h"
#include "results/model.h"

#define GEN_MAX_CLIENTS 4096           /* --clients' bound */
#define GEN_MAX_FILES 100000           /* files of the initial set */
#define GEN_MAX_FILE_SIZE (UINT64_C(64) << 20) /* a file of the set is at most this big: prepare writes it whole */
#define GEN_MAX_OPS (UINT64_C(50) << 20) /* ops a trace may hold */
#define GEN_MAX_HANDLES 256            /* a client's open handles: at the cap the oldest is closed */
#define GEN_MAX_LOCKS 64               /* locks on one handle */
#define ENOENT_ 2

typedef struct gfile {
	uint32_t path;
	int32_t owner;  /* generated client, -1 shared */
	uint64_t size;
	uint32_t opens;
	bool alive, created;
} gfile;

typedef struct ghandle {
	uint64_t id, pos;
	uint32_t file;
	uint32_t locks;
} ghandle;

typedef struct gclient {
	rp_rng rng;
	uint32_t cls, rank; /* its class and its place among the class's generated clients */
	uint64_t t;
	ghandle h[GEN_MAX_HANDLES];
	uint32_t nh;
	uint32_t *own; /* indexes of the files it owns (alive or not) */
	size_t n_own, cap_own;
	uint32_t *dirs; /* mkdir'ed, not yet removed */
	size_t n_dirs, cap_dirs;
	uint32_t *dead; /* indexes of its files it unlinked: names failures name and creates take again */
	size_t n_dead, cap_dead;
	uint64_t seq;
	uint32_t dir; /* its directory's path id */
} gclient;

typedef struct gen {
	const rp_model *m;
	rp_sink *sink;
	rp_strtab *tab;
	rp_gen_stats *st;
	char *errbuf;
	gclient *cl;
	uint32_t n;
	gfile *files;
	size_t n_files, cap_files;
	uint32_t *shared;
	size_t n_shared, cap_shared;
	uint32_t shared_dir;
	rp_op *buf; /* one chunk's ops */
	size_t n_buf, cap_buf;
	uint64_t next_handle;
	double p_shared, p_create;
	uint32_t ngen[RP_MODEL_MAX_CLASSES]; /* generated clients per class */
	rp_mhist rtot[RP_MODEL_MAX_CLASSES], wtot[RP_MODEL_MAX_CLASSES]; /* the class's request lengths over all chunks */
} gen;

static int64_t intern(gen *g, const char *s)
{
	const int64_t id = rp_sink_intern(g->sink, g->tab, s, (uint32_t)strlen(s));
	if (id < 0 && !g->errbuf[0])
		rp_fail(g->errbuf, (int)id, "generate: %s", rp_strerror((int)id));
	return id;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	while (c < need)
		c *= 2;
	void *const n = realloc(*p, c * elem);
	if (!n)
		return RP_E_NOMEM;
	*p = n;
	*cap = c;
	return 0;
}

static int add_file(gen *g, uint32_t path, int32_t owner, uint64_t size, bool created)
{
	if (grow((void **)&g->files, &g->cap_files, g->n_files + 1, sizeof(gfile)) < 0)
		return RP_E_NOMEM;
	const uint32_t idx = (uint32_t)g->n_files++;
	g->files[idx] = (gfile){ .path = path, .owner = owner, .size = size, .alive = true, .created = created };
	if (owner >= 0) {
		gclient *const c = &g->cl[owner];
		if (grow((void **)&c->own, &c->cap_own, c->n_own + 1, sizeof(uint32_t)) < 0)
			return RP_E_NOMEM;
		c->own[c->n_own++] = idx;
	} else {
		if (grow((void **)&g->shared, &g->cap_shared, g->n_shared + 1, sizeof(uint32_t)) < 0)
			return RP_E_NOMEM;
		g->shared[g->n_shared++] = idx;
	}
	return 0;
}

/* The initial file set: the model's files that existed before its trace, their sizes, depths and sharing. */
static int make_files(gen *g, uint32_t model_clients, rp_rng *rng)
{
	const rp_model_files *const fs = &g->m->fs;
	uint64_t want = fs->files > fs->created ? fs->files - fs->created : 0;
	want = want * g->n / (model_clients ? model_clients : 1);
	if (want < g->n)
		want = g->n;
	if (want > GEN_MAX_FILES)
		want = GEN_MAX_FILES;
	const double width = rp_mh_mean(&fs->width) < 1 ? 1 : rp_mh_mean(&fs->width);
	char p[256];
	for (uint64_t i = 0; i < want; i++) {
		const bool shared = g->n > 1 && (double)rp_rng_below(rng, 1000000) < g->p_shared * 1e6;
		const int32_t owner = shared ? -1 : (int32_t)(i % g->n);
		int len = shared ? snprintf(p, sizeof(p), "/gen/shared") : snprintf(p, sizeof(p), "/gen/c%d", owner);
		uint64_t depth = rp_mh_sample(&fs->depth, rng);
		if (depth > 12)
			depth = 12; /* path length, not tree shape, is what a deeper tree would test */
		for (uint64_t d = 3; d < depth; d++)
			len += snprintf(p + len, sizeof(p) - (size_t)len, "/d%llu",
					(unsigned long long)rp_rng_below(rng, (uint64_t)(width + 0.5)));
		snprintf(p + len, sizeof(p) - (size_t)len, "/f%llu", (unsigned long long)i);
		const int64_t id = intern(g, p);
		if (id < 0)
			return (int)id;
		uint64_t size = rp_mh_sample(&fs->size, rng);
		if (size > GEN_MAX_FILE_SIZE)
			size = GEN_MAX_FILE_SIZE;
		if (add_file(g, (uint32_t)id, owner, size, false) < 0)
			return rp_fail(g->errbuf, RP_E_NOMEM, "generate: out of memory");
	}
	g->st->files = want;
	return 0;
}

static rp_op *emit(gen *g, gclient *c, unsigned opcode)
{
	if (grow((void **)&g->buf, &g->cap_buf, g->n_buf + 1, sizeof(rp_op)) < 0)
		return NULL;
	rp_op *const op = &g->buf[g->n_buf++];
	memset(op, 0, sizeof(*op));
	op->op = (uint16_t)opcode;
	op->client = (uint32_t)(c - g->cl) + 1;
	op->t_start = c->t;
	op->t_end = RP_TIME_UNKNOWN;
	op->proto = RP_PROTO_NONE;
	return op;
}

static void fail_enoent(rp_op *op)
{
	op->status = ENOENT_;
	op->status_kind = RP_SK_ERRNO;
	op->proto_status = ENOENT_;
}

/* A file the client may use (its own or a shared one, alive); -1 when none. */
static int64_t pick_file(gen *g, gclient *c, bool closed_own)
{
	for (int tries = 0; tries < 8; tries++) {
		const bool sh = !closed_own && g->n_shared &&
				(!c->n_own || (double)rp_rng_below(&c->rng, 1000000) < g->p_shared * 1e6);
		const uint32_t idx = sh ? g->shared[rp_rng_below(&c->rng, g->n_shared)]
				 : c->n_own ? c->own[rp_rng_below(&c->rng, c->n_own)] : UINT32_MAX;
		if (idx == UINT32_MAX)
			return -1;
		const gfile *const f = &g->files[idx];
		if (f->alive && (!closed_own || f->opens == 0))
			return idx;
	}
	/* an unlink or rename drawn among many gone or open files: the first that fits from a random place */
	if (closed_own && c->n_own) {
		const size_t s = (size_t)rp_rng_below(&c->rng, c->n_own);
		for (size_t j = 0; j < c->n_own && j < 1024; j++) { /* bounded: a generated trace stays linear */
			const uint32_t idx = c->own[(s + j) % c->n_own];
			if (g->files[idx].alive && g->files[idx].opens == 0)
				return idx;
		}
	}
	return -1;
}

/* A name that is not there: one the client unlinked (as a trace's failures name what went), else a new one. */
static int missing_path(gen *g, gclient *c, uint32_t *id)
{
	if (c->n_dead) {
		*id = g->files[c->dead[rp_rng_below(&c->rng, c->n_dead)]].path;
		return 0;
	}
	char p[64];
	snprintf(p, sizeof(p), "/gen/c%u/missing%llu", (unsigned)(c - g->cl), (unsigned long long)c->seq++);
	const int64_t r = intern(g, p);
	*id = (uint32_t)r;
	return r < 0 ? (int)r : 0;
}

static int do_close(gen *g, gclient *c, uint32_t k)
{
	rp_op *const op = emit(g, c, RP_OP_CLOSE);
	if (!op)
		return RP_E_NOMEM;
	op->handle = c->h[k].id;
	op->path = g->files[c->h[k].file].path;
	g->files[c->h[k].file].opens--;
	memmove(&c->h[k], &c->h[k + 1], (c->nh - k - 1) * sizeof(ghandle));
	c->nh--;
	return 0;
}

static int do_open(gen *g, gclient *c, bool fail)
{
	if (c->nh == GEN_MAX_HANDLES) {
		const int r = do_close(g, c, 0);
		if (r < 0)
			return r;
		g->st->added_closes++;
	}
	uint32_t path;
	int64_t idx = -1;
	bool create = !fail && (idx = pick_file(g, c, false)) < 0;
	if (!fail && !create && (double)rp_rng_below(&c->rng, 1000000) < g->p_create * 1e6)
		create = true;
	char p[64];
	if (fail) {
		if (missing_path(g, c, &path) < 0)
			return -1;
	} else if (create && c->n_dead) {
		/* a name the client unlinked is created again (a trace's files come and go under their names) */
		const size_t k = (size_t)rp_rng_below(&c->rng, c->n_dead);
		idx = c->dead[k];
		c->dead[k] = c->dead[--c->n_dead];
		gfile *const f = &g->files[idx];
		f->alive = f->created = true;
		f->size = 0;
		path = f->path;
	} else if (create) {
		snprintf(p, sizeof(p), "/gen/c%u/n%llu", (unsigned)(c - g->cl), (unsigned long long)c->seq++);
		const int64_t id = intern(g, p);
		if (id < 0)
			return (int)id;
		path = (uint32_t)id;
		if (add_file(g, path, (int32_t)(c - g->cl), 0, true) < 0)
			return RP_E_NOMEM;
		idx = (int64_t)g->n_files - 1;
	} else {
		path = g->files[idx].path;
	}
	rp_op *const op = emit(g, c, RP_OP_OPEN);
	if (!op)
		return RP_E_NOMEM;
	op->path = path;
	op->want = RP_WANT_READ | RP_WANT_WRITE | RP_WANT_KNOWN;
	op->disp = create ? RP_DISP_CREATE : RP_DISP_OPEN;
	op->mode = 0644;
	if (fail) {
		fail_enoent(op);
		return 0;
	}
	op->handle = ++g->next_handle;
	op->result = create ? RP_ACT_CREATED : RP_ACT_OPENED;
	g->files[idx].opens++;
	c->h[c->nh++] = (ghandle){ .id = op->handle, .file = (uint32_t)idx };
	return 0;
}

/*
 * A request length from the cell's histogram: the bucket's low end (a power of two) in the share of the
 * class's lengths in that bucket that were exactly that, uniform in the bucket otherwise.
 */
static uint64_t io_length(gen *g, gclient *c, const rp_model_cell *cell, bool rd)
{
	const uint64_t len = rp_mh_sample(rd ? &cell->rsize : &cell->wsize, &c->rng);
	const unsigned b = rp_mh_bucket(len);
	const rp_model_class *const k = &g->m->classes[c->cls];
	const uint64_t exact = (rd ? &k->rexact : &k->wexact)->n[b], all = (rd ? &g->rtot[c->cls] : &g->wtot[c->cls])->n[b];
	if (b == 0 || !exact || !all)
		return len;
	return rp_rng_below(&c->rng, all) < exact ? UINT64_C(1) << (b - 1) : len;
}

/* The offset of the next I/O of len bytes on h: sequential or a seek drawn from the cell, within the file for a read. */
static uint64_t io_offset(gen *g, gclient *c, const rp_model_cell *cell, const ghandle *h, uint64_t len, bool rd)
{
	const uint64_t d = rp_mh_sample(&cell->seek, &c->rng);
	uint64_t off = h->pos;
	if (d) {
		const bool back = (rp_rng_next(&c->rng) & 1) && d <= off;
		off = back ? off - d : off + d;
	}
	const uint64_t size = g->files[h->file].size;
	if (rd)
		off = size > len ? off % (size - len + 1) : 0;
	else if (off > size)
		off = size; /* no holes: a write starts at most at the end */
	return off;
}

static int do_io(gen *g, gclient *c, const rp_model_cell *cell, unsigned opcode)
{
	ghandle *const h = &c->h[c->nh - 1];
	gfile *const f = &g->files[h->file];
	rp_op *const op = emit(g, c, opcode);
	if (!op)
		return RP_E_NOMEM;
	op->handle = h->id;
	op->path = f->path;
	if (opcode == RP_OP_READ || opcode == RP_OP_WRITE) {
		uint64_t len = io_length(g, c, cell, opcode == RP_OP_READ);
		if (len > (UINT64_C(16) << 20))
			len = UINT64_C(16) << 20;
		op->length = len;
		op->offset = io_offset(g, c, cell, h, len, opcode == RP_OP_READ);
		if (opcode == RP_OP_READ) {
			op->result = f->size > op->offset ? (f->size - op->offset < len ? f->size - op->offset : len) : 0;
		} else {
			op->result = len;
			if (op->offset + len > f->size)
				f->size = op->offset + len;
		}
		h->pos = op->offset + len;
	} else if (opcode == RP_OP_SETATTR) {
		op->attrs = RP_SA_MTIME_NOW;
	} else if (opcode == RP_OP_LOCK) {
		op->offset = h->locks++;
		op->length = 1;
	}
	return 0;
}

/* The last lock taken on h, released. */
static int do_unlock(gen *g, gclient *c, ghandle *h)
{
	rp_op *const op = emit(g, c, RP_OP_UNLOCK);
	if (!op)
		return RP_E_NOMEM;
	op->handle = h->id;
	op->path = g->files[h->file].path;
	op->offset = --h->locks;
	op->length = 1;
	return 0;
}

/* An op on a name: stat, access, lookup (failing ones on a missing name), readdir, statfs. */
static int do_path_op(gen *g, gclient *c, unsigned opcode, bool fail)
{
	uint32_t path = 0;
	if (opcode == RP_OP_READDIR && fail) {
		/* a listing that found nothing (client.txt: half its readdirs): a directory that is not there */
		char p[64];
		snprintf(p, sizeof(p), "/gen/c%u/nodir", (unsigned)(c - g->cl));
		const int64_t id = intern(g, p);
		if (id < 0)
			return (int)id;
		path = (uint32_t)id;
	} else if (opcode == RP_OP_READDIR) {
		path = g->n_shared && (rp_rng_next(&c->rng) & 1) ? g->shared_dir : c->dir;
	} else if (opcode != RP_OP_STATFS) {
		const int64_t idx = fail ? -1 : pick_file(g, c, false);
		if (idx < 0)
			fail = true;
		if (fail && missing_path(g, c, &path) < 0)
			return -1;
		if (!fail)
			path = g->files[idx].path;
	}
	rp_op *const op = emit(g, c, opcode);
	if (!op)
		return RP_E_NOMEM;
	op->path = path;
	if (opcode == RP_OP_ACCESS)
		op->want = RP_WANT_READ | RP_WANT_KNOWN;
	if (fail && opcode != RP_OP_STATFS)
		fail_enoent(op);
	return 0;
}

/* unlink, rename (of a closed file the client owns), mkdir, rmdir (of one it made): false when nothing fits. */
static int do_name_op(gen *g, gclient *c, unsigned opcode, bool *done)
{
	*done = false;
	char p[64];
	if (opcode == RP_OP_MKDIR) {
		snprintf(p, sizeof(p), "/gen/c%u/m%llu", (unsigned)(c - g->cl), (unsigned long long)c->seq++);
		const int64_t id = intern(g, p);
		if (id < 0 || grow((void **)&c->dirs, &c->cap_dirs, c->n_dirs + 1, sizeof(uint32_t)) < 0)
			return id < 0 ? (int)id : RP_E_NOMEM;
		c->dirs[c->n_dirs++] = (uint32_t)id;
		rp_op *const op = emit(g, c, opcode);
		if (!op)
			return RP_E_NOMEM;
		op->path = (uint32_t)id;
		op->mode = 0755;
		*done = true;
		return 0;
	}
	if (opcode == RP_OP_RMDIR) {
		if (!c->n_dirs)
			return 0;
		rp_op *const op = emit(g, c, opcode);
		if (!op)
			return RP_E_NOMEM;
		op->path = c->dirs[--c->n_dirs];
		*done = true;
		return 0;
	}
	const int64_t idx = pick_file(g, c, true);
	/* a renamed file must be one the trace created: prepare makes only the names a trace uses before it creates them */
	if (idx < 0 || (opcode == RP_OP_RENAME && !g->files[idx].created))
		return 0;
	gfile *const f = &g->files[idx];
	rp_op *const op = emit(g, c, opcode);
	if (!op)
		return RP_E_NOMEM;
	op->path = f->path;
	if (opcode == RP_OP_UNLINK) {
		f->alive = false;
		if (f->owner == (int32_t)(c - g->cl)) {
			if (grow((void **)&c->dead, &c->cap_dead, c->n_dead + 1, sizeof(uint32_t)) < 0)
				return RP_E_NOMEM;
			c->dead[c->n_dead++] = (uint32_t)idx;
		}
	} else {
		snprintf(p, sizeof(p), "/gen/c%u/r%llu", (unsigned)(c - g->cl), (unsigned long long)c->seq++);
		const int64_t id = intern(g, p);
		if (id < 0)
			return (int)id;
		op->path2 = (uint32_t)id;
		f->path = (uint32_t)id;
	}
	*done = true;
	return 0;
}

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
		return do_open(g, c, fail);
	if (op == RP_OP_UNLOCK)
		for (uint32_t k = c->nh; k-- > 0;)
			if (c->h[k].locks)
				return do_unlock(g, c, &c->h[k]);
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
				return do_open(g, c, false); /* the op itself comes later, in the open's place */
			}
		if (op == RP_OP_CLOSE || op == RP_OP_UNLOCK) {
			g->st->dropped++;
			return 0;
		}
		const int r = do_open(g, c, false);
		if (r < 0)
			return r;
		g->st->added_opens++;
	}
	if (op == RP_OP_CLOSE)
		return do_close(g, c, c->nh - 1);
	if (needs_handle(op))
		return do_io(g, c, cell, op);
	if (op == RP_OP_UNLINK || op == RP_OP_RENAME || op == RP_OP_MKDIR || op == RP_OP_RMDIR) {
		bool done;
		const int r = do_name_op(g, c, op, &done);
		if (r == 0 && !done)
			g->st->dropped++;
		return r;
	}
	return do_path_op(g, c, op, fail);
}

/*
 * A time from h: its bucket as drawn, the value from the class's fine histogram of that bucket when it has one
 * (gaps crowd inside a bucket), else log-uniform in it (times spread over decades, not evenly in a bucket).
 */
static uint64_t time_sample(const rp_mhist *h, const uint64_t *fine, rp_rng *r)
{
	const uint64_t v = rp_mh_sample(h, r);
	const unsigned b = rp_mh_bucket(v);
	uint64_t f;
	if (rp_mh_fine_sample(fine, b, r, &f))
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
 * The times of a client's ops buf[from..) in its chunk of len ns: gaps drawn from the cell.  When they add up
 * to more than the chunk, the longest are cut down to one level until they fit (a trace's long idle gap spans
 * chunks but is counted in one): the short gaps, most of them, stay as drawn.
 */
static int place(gen *g, gclient *c, const rp_model_cell *cell, size_t from, uint64_t t0, uint64_t len, bool timed)
{
	if (!timed || from == g->n_buf)
		return 0;
	const size_t n = g->n_buf - from;
	uint64_t sum = 0;
	for (size_t i = from; i < g->n_buf; i++) {
		uint64_t gap = time_sample(&cell->gap, g->m->classes[c->cls].gapfine, &c->rng);
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
		op->t_start = c->t = t;
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
		 * them out whole, the remainder going round the clients chunk by chunk: the mix stays the model's */
		const uint64_t total = (cell->ops[op] * ng + per / 2) / per;
		counts[op] = total / ng + ((c->rank + ch + op) % ng < total % ng);
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
	if (fs->creates)
		g->p_create = opens ? (double)(fs->creates < opens ? fs->creates : opens) / (double)opens : 0;
	else
		g->p_create = fs->files ? (double)fs->created / (double)fs->files : 0;
	assign_classes(g);
	char p[64];
	for (uint32_t i = 0; i < g->n; i++) {
		rp_rng_seed(&g->cl[i].rng, o->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (i + 1)));
		snprintf(p, sizeof(p), "/gen/c%u", i);
		const int64_t id = intern(g, p);
		if (id < 0)
			return (int)id;
		g->cl[i].dir = (uint32_t)id;
	}
	const int64_t id = intern(g, "/gen/shared");
	if (id < 0)
		return (int)id;
	g->shared_dir = (uint32_t)id;
	rp_rng rng;
	rp_rng_seed(&rng, o->seed);
	return make_files(g, model_clients, &rng);
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
	}
	free(g.cl);
	free(g.files);
	free(g.shared);
	free(g.buf);
	rp_strtab_destroy(g.tab);
	return rc < 0 ? rc : 0;
}
