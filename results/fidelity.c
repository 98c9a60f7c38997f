/* The closed loop's measures of one trace (results/fidelity.h): core ops, each file's sequence of them, load. */
#include "results/fidelity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/doc_track.h"
#include "formats/error.h"
#include "formats/hash.h"

#define NH (RP_FID_STRIP_MAX + 1)
/* Inter-arrival buckets: exact below 8 ns, then 8 per octave (within 12.5 %) up to 2^64 ns. */
#define GAP_SUB 8
#define GAP_BUCKETS (GAP_SUB + 61 * GAP_SUB)
/* The sample of B's files the alignment is chosen on. */
#define ALIGN_SAMPLE 4096

/* A file's core-op tokens: a run of reads or of writes is one token (a split of I/O is not a new order). */
enum { T_CREATE = 'C', T_MKDIR = 'K', T_DELETE = 'D', T_FROM = 'N', T_TO = 'M', T_READ = 'R', T_WRITE = 'W',
       T_TRUNC = 'Z', T_LINK = 'L', T_SYMLINK = 'S' };
/* What the trace has shown of a file so far: nothing, that it is there, that it is gone. */
enum { S_UNKNOWN = 0, S_EXISTS = 1, S_GONE = 2 };

/* The names kept for samples: at most this many bytes of them in all (past it, files go unnamed). */
#define NAMES_ARENA_MAX (64u << 20)
#define NO_NAME UINT32_MAX

/* A path's hashes with 0..NH-1 leading components stripped (h[i] only for i < ncomp), and where its name is kept. */
typedef struct pathkey {
	uint64_t h[NH];
	uint32_t name_off; /* in the arena, or NO_NAME */
	uint16_t name_len;
	uint8_t ncomp;
} pathkey;

typedef struct file {
	pathkey k;
	uint64_t seq; /* FNV-1a over the tokens */
	uint32_t ntok;
	uint8_t last, state;
	char trail[RP_FID_TRAIL]; /* the first steps */
	uint32_t moved_to;  /* renamed away: the file it became (NO_FILE: never), for handles opened before */
	uint64_t moved_at;  /* the op count at that rename */
} file;
#define NO_FILE UINT32_MAX
/* Renames a handle's file is followed through, at most (a hostile chain ends there). */
#define MOVES_MAX 64

/* Open addressing from a 128-bit key to a 32-bit value; removed entries stay as tombstones until a rehash. */
typedef struct slot {
	uint64_t k1, k2;
	uint64_t aux; /* handles: the op count at the open (renames after it move the handle's file) */
	uint32_t v;
	uint8_t used; /* 0 empty, 1 live, 2 removed */
} slot;

typedef struct map {
	slot *e;
	size_t cap, live, taken; /* taken: live + tombstones */
} map;

struct rp_fid {
	map names;   /* string id -> index in keys */
	pathkey *keys;
	size_t nkeys, keys_cap;
	map files;   /* h[0] -> index in fl */
	file *fl;
	size_t nfiles, files_cap;
	map handles; /* (handle, client) -> index in fl */
	rp_doc_track doc; /* which of those handles delete their file at close: fed only the ops on them */
	char *arena; /* the names, for samples */
	size_t arena_len, arena_cap;
	bool capped;
	rp_fid_core core;
	uint64_t t_min, t_max;
	double busy_ns;
	bool any, started;
	uint64_t last_start;
	uint64_t nops; /* ops seen: the clock of opens and renames */
	uint64_t gap[GAP_BUCKETS], ngaps;
};

static uint64_t mix(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ull ^ (k2 + 0x632be59bd9b4e019ull);
	h ^= h >> 31;
	return h * 0xbf58476d1ce4e5b9ull;
}

static slot *map_find(const map *m, uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return NULL;
	for (size_t i = mix(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		slot *const s = &m->e[i];
		if (!s->used)
			return NULL;
		if (s->used == 1 && s->k1 == k1 && s->k2 == k2)
			return s;
	}
}

static int map_grow(map *m)
{
	size_t ncap = m->cap ? m->cap : 64;
	while (ncap * 7 / 10 <= (m->live + 1) * 2)
		ncap *= 2;
	slot *const e = calloc(ncap, sizeof(*e));
	if (!e)
		return RP_E_NOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->e[i].used != 1)
			continue;
		size_t j = mix(m->e[i].k1, m->e[i].k2) & (ncap - 1);
		while (e[j].used)
			j = (j + 1) & (ncap - 1);
		e[j] = m->e[i];
	}
	free(m->e);
	m->e = e;
	m->cap = ncap;
	m->taken = m->live;
	return RP_OK;
}

/* Set k -> v (replacing a live entry).  RP_OK or RP_E_NOMEM. */
static int map_put(map *m, uint64_t k1, uint64_t k2, uint32_t v)
{
	slot *const old = map_find(m, k1, k2);
	if (old) {
		old->v = v;
		return RP_OK;
	}
	if ((m->taken + 1) * 10 > m->cap * 7 && map_grow(m) < 0)
		return RP_E_NOMEM;
	size_t i = mix(k1, k2) & (m->cap - 1);
	while (m->e[i].used == 1)
		i = (i + 1) & (m->cap - 1);
	if (!m->e[i].used)
		m->taken++;
	m->e[i] = (slot){ .k1 = k1, .k2 = k2, .v = v, .used = 1 };
	m->live++;
	return RP_OK;
}

static void map_del(map *m, slot *s)
{
	s->used = 2;
	m->live--;
}

rp_fid *rp_fid_create(void)
{
	rp_fid *const f = calloc(1, sizeof(*f));
	if (f)
		f->t_min = UINT64_MAX;
	return f;
}

void rp_fid_destroy(rp_fid *f)
{
	if (!f)
		return;
	free(f->names.e);
	free(f->files.e);
	free(f->handles.e);
	rp_doc_track_free(&f->doc);
	free(f->keys);
	free(f->fl);
	free(f->arena);
	free(f);
}

/* Append one element to a growable array of n of cap (elements of size sz): its index, or -1 out of memory. */
static long push(void **arr, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		const size_t ncap = *cap ? *cap * 2 : 256;
		void *const a = realloc(*arr, ncap * sz);
		if (!a)
			return -1;
		*arr = a;
		*cap = ncap;
	}
	memset((char *)*arr + *n * sz, 0, sz);
	return (long)(*n)++;
}

/* Whether s[i..] starts a "." component (nothing lexically: "/a/./b" is "/a/b"). */
static bool dot_at(const char *s, uint32_t len, uint32_t i)
{
	return s[i] == '.' && (i + 1 == len || s[i + 1] == '/');
}

/* The components of s from the one at start on, each after one '/': "a//b/", "/a/./b" and "/a/b" hash alike. */
static uint64_t hash_from(const char *s, uint32_t len, uint32_t start)
{
	uint64_t h = RP_FNV64_OFFSET;
	for (uint32_t i = start; i < len;) {
		if (s[i] == '/' || dot_at(s, len, i)) {
			i++;
			continue;
		}
		h = rp_fnv1a64(h, "/", 1);
		while (i < len && s[i] != '/')
			h = rp_fnv1a64(h, &s[i++], 1);
	}
	return h;
}

static void path_key(const char *s, uint32_t len, pathkey *k)
{
	memset(k, 0, sizeof(*k));
	unsigned n = 0;
	for (uint32_t i = 0; i < len && n < NH; i++)
		if (s[i] != '/' && (i == 0 || s[i - 1] == '/') && !dot_at(s, len, i))
			k->h[n++] = hash_from(s, len, i);
	k->ncomp = (uint8_t)n;
}

/* The first RP_FID_NAME_MAX bytes of a name into the arena: its offset, or NO_NAME past the arena's limit. */
static uint32_t keep_name(rp_fid *f, const char *s, uint32_t len, uint16_t *kept)
{
	*kept = (uint16_t)(len < RP_FID_NAME_MAX ? len : RP_FID_NAME_MAX);
	if (f->arena_len + *kept > NAMES_ARENA_MAX)
		return NO_NAME;
	if (f->arena_len + *kept > f->arena_cap) {
		size_t ncap = f->arena_cap ? f->arena_cap * 2 : 64 * 1024;
		while (ncap < f->arena_len + *kept)
			ncap *= 2;
		char *const a = realloc(f->arena, ncap);
		if (!a)
			return NO_NAME; /* unnamed samples, not a failed comparison */
		f->arena = a;
		f->arena_cap = ncap;
	}
	memcpy(f->arena + f->arena_len, s, *kept);
	const uint32_t off = (uint32_t)f->arena_len;
	f->arena_len += *kept;
	return off;
}

int rp_fid_string(rp_fid *f, uint32_t id, const char *s, uint32_t len)
{
	if (f->capped)
		return RP_OK;
	pathkey k;
	path_key(s, len, &k);
	k.name_off = k.ncomp ? keep_name(f, s, len, &k.name_len) : NO_NAME;
	const slot *const old = map_find(&f->names, id, 0);
	if (old) { /* an id named again (a new string table): the new bytes */
		f->keys[old->v] = k;
		return RP_OK;
	}
	if (f->nkeys >= RP_FID_NAMES_MAX) {
		f->capped = true;
		return RP_OK;
	}
	const long i = push((void **)&f->keys, &f->nkeys, &f->keys_cap, sizeof(*f->keys));
	if (i < 0)
		return RP_E_NOMEM;
	f->keys[i] = k;
	return map_put(&f->names, id, 0, (uint32_t)i);
}

/* The file a string id names, made at its first core op: NULL when unknown, capped or out of memory (*rc). */
static file *file_of(rp_fid *f, uint32_t id, int *rc)
{
	if (!id || f->capped)
		return NULL;
	const slot *const n = map_find(&f->names, id, 0);
	if (!n || !f->keys[n->v].ncomp)
		return NULL;
	const pathkey *const k = &f->keys[n->v];
	const slot *const s = map_find(&f->files, k->h[0], 0);
	if (s)
		return &f->fl[s->v];
	if (f->nfiles >= RP_FID_FILES_MAX) {
		f->capped = true;
		return NULL;
	}
	const long i = push((void **)&f->fl, &f->nfiles, &f->files_cap, sizeof(*f->fl));
	if (i < 0 || map_put(&f->files, k->h[0], 0, (uint32_t)i) < 0) {
		*rc = RP_E_NOMEM;
		return NULL;
	}
	f->fl[i].k = *k;
	f->fl[i].seq = RP_FNV64_OFFSET;
	f->fl[i].moved_to = NO_FILE;
	return &f->fl[i];
}

static void token(file *fl, uint8_t t)
{
	if (!fl || ((t == T_READ || t == T_WRITE) && fl->last == t))
		return;
	fl->seq = rp_fnv1a64(fl->seq, &t, 1);
	if (fl->ntok < RP_FID_TRAIL)
		fl->trail[fl->ntok] = (char)t;
	fl->ntok++;
	fl->last = t;
	if (t == T_CREATE || t == T_MKDIR || t == T_TO || t == T_SYMLINK || t == T_LINK)
		fl->state = S_EXISTS;
	else if (t == T_DELETE || t == T_FROM)
		fl->state = S_GONE;
	else if (fl->state == S_UNKNOWN)
		fl->state = S_EXISTS; /* read, written or truncated: it was there */
}

static uint32_t file_index(const rp_fid *f, const file *fl)
{
	return (uint32_t)(fl - f->fl);
}

/* A handle's file now: the one it was opened on, through the renames of it since (a rename moves open files). */
static file *handle_file(const rp_fid *f, const slot *h)
{
	file *fl = &f->fl[h->v];
	for (int i = 0; i < MOVES_MAX && fl->moved_to != NO_FILE && fl->moved_at > h->aux; i++)
		fl = &f->fl[fl->moved_to];
	return fl;
}

/* The file an op is on: its path when it has one (the producer's current name), else its handle's. */
static file *op_file(rp_fid *f, const rp_op *op, int *rc)
{
	if (!op->path && op->handle && !f->capped) {
		const slot *const h = map_find(&f->handles, op->handle, op->client);
		if (h)
			return handle_file(f, h);
	}
	return file_of(f, op->path, rc);
}

/* Whether an open made its object: the create action says so, else a create disposition on a file not seen. */
static bool open_created(const rp_op *op, const file *fl)
{
	if (op->disp == RP_DISP_OPEN || op->disp == RP_DISP_TRUNC)
		return false;
	if (op->result == RP_ACT_CREATED)
		return true;
	if (op->result != RP_ACT_UNKNOWN)
		return false;
	return op->disp == RP_DISP_CREATE || !fl || fl->state != S_EXISTS;
}

static int track_open(rp_fid *f, const rp_op *op)
{
	int rc = RP_OK;
	file *const fl = file_of(f, op->path, &rc);
	if (rc < 0)
		return rc;
	const bool dir = (op->oflags & RP_OF_DIRECTORY) || (op->flags & RP_OPF_DIRECTORY);
	if (open_created(op, fl)) {
		if (dir)
			f->core.mkdirs++;
		else
			f->core.creates++;
		token(fl, dir ? T_MKDIR : T_CREATE);
	} else if (!dir && (op->disp == RP_DISP_TRUNC || op->disp == RP_DISP_TRUNC_IF || op->disp == RP_DISP_SUPERSEDE)) {
		f->core.truncates++; /* emptied as it was opened: as a setattr of its size would */
		token(fl, T_TRUNC);
	} else if (fl && fl->state == S_UNKNOWN) {
		fl->state = S_EXISTS;
	}
	if (!op->handle || !fl)
		return RP_OK;
	if (f->handles.live >= RP_FID_HANDLES_MAX) {
		f->capped = true;
		return RP_OK;
	}
	const int rc2 = map_put(&f->handles, op->handle, op->client, file_index(f, fl));
	if (rc2 < 0)
		return rc2;
	map_find(&f->handles, op->handle, op->client)->aux = f->nops;
	/* Only a handle kept here is tracked, so the tracker holds no more than RP_FID_HANDLES_MAX. */
	const int rc3 = rp_doc_track_apply(&f->doc, op);
	return rc3 < 0 ? rc3 : RP_OK;
}

static int track_close(rp_fid *f, const rp_op *op)
{
	slot *const h = op->handle ? map_find(&f->handles, op->handle, op->client) : NULL;
	if (!h)
		return RP_OK;
	const int deleted = rp_doc_track_apply(&f->doc, op);
	if (deleted == RP_OP_UNLINK || deleted == RP_OP_RMDIR) {
		f->core.deletes++;
		token(handle_file(f, h), T_DELETE);
	}
	map_del(&f->handles, h);
	return deleted < 0 ? deleted : RP_OK;
}

static void gap_add(rp_fid *f, uint64_t t_start)
{
	if (!f->started) {
		f->started = true;
		f->last_start = t_start;
		return;
	}
	const uint64_t v = t_start > f->last_start ? t_start - f->last_start : 0;
	if (t_start > f->last_start)
		f->last_start = t_start;
	unsigned b;
	if (v < GAP_SUB) {
		b = (unsigned)v;
	} else {
		const unsigned o = 63u - (unsigned)__builtin_clzll(v); /* >= 3 */
		b = GAP_SUB + (o - 3) * GAP_SUB + (unsigned)((v >> (o - 3)) & (GAP_SUB - 1));
	}
	f->gap[b < GAP_BUCKETS ? b : GAP_BUCKETS - 1]++;
	f->ngaps++;
}

int rp_fid_op(rp_fid *f, const rp_op *op)
{
	if (op->op == RP_OP_SLEEP)
		return RP_OK;
	f->nops++;
	f->any = true;
	if (op->t_start < f->t_min)
		f->t_min = op->t_start;
	const bool replied = op->t_end != RP_TIME_UNKNOWN && op->t_end >= op->t_start;
	const uint64_t end = replied ? op->t_end : op->t_start;
	if (end > f->t_max)
		f->t_max = end;
	if (replied)
		f->busy_ns += (double)(op->t_end - op->t_start);
	gap_add(f, op->t_start);
	/* a failed op changed nothing; one whose reply was lost may have */
	if (op->status != RP_STATUS_OK && op->status != RP_STATUS_UNKNOWN)
		return RP_OK;
	int rc = RP_OK;
	switch (op->op) {
	case RP_OP_OPEN:
		return track_open(f, op);
	case RP_OP_CLOSE:
		return track_close(f, op);
	case RP_OP_MKDIR:
		f->core.mkdirs++;
		token(file_of(f, op->path, &rc), T_MKDIR);
		break;
	case RP_OP_UNLINK:
	case RP_OP_RMDIR:
		f->core.deletes++;
		token(file_of(f, op->path, &rc), T_DELETE);
		break;
	case RP_OP_RENAME: {
		f->core.renames++;
		file *const from = file_of(f, op->path, &rc);
		file *const to = rc == RP_OK ? file_of(f, op->path2, &rc) : NULL;
		token(from, T_FROM);
		token(to, T_TO);
		if (from && to && from != to) { /* handles open on it follow it to its new name */
			from->moved_to = file_index(f, to);
			from->moved_at = f->nops;
		}
		break;
	}
	case RP_OP_LINK:
		token(file_of(f, op->path2, &rc), T_LINK);
		break;
	case RP_OP_SYMLINK:
		token(file_of(f, op->path, &rc), T_SYMLINK);
		break;
	case RP_OP_READ:
		f->core.bytes_read += op->result;
		token(op_file(f, op, &rc), T_READ);
		break;
	case RP_OP_WRITE:
		f->core.bytes_written += op->status == RP_STATUS_UNKNOWN ? op->length : op->result;
		token(op_file(f, op, &rc), T_WRITE);
		break;
	case RP_OP_SETATTR:
		if (op->attrs & RP_SA_SIZE) {
			f->core.truncates++;
			token(op_file(f, op, &rc), T_TRUNC);
		}
		if ((op->attrs & (RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR)) && op->handle &&
		    map_find(&f->handles, op->handle, op->client)) {
			const int dc = rp_doc_track_apply(&f->doc, op);
			if (dc < 0)
				rc = dc;
		}
		break;
	default:
		break;
	}
	return rc;
}

void rp_fid_get(const rp_fid *f, rp_fid_view *v)
{
	memset(v, 0, sizeof(*v));
	v->core = f->core;
	v->files = f->nfiles;
	v->files_capped = f->capped;
	v->gaps = f->ngaps;
	if (!f->any)
		return;
	const uint64_t span = f->t_max - f->t_min;
	v->span_s = (double)span / 1e9;
	v->in_flight_mean = span ? f->busy_ns / (double)span : 0;
}

/* Files of f with a core op and at least strip+1 components: how many. */
static uint64_t count_at(const rp_fid *f, unsigned strip)
{
	uint64_t n = 0;
	for (size_t i = 0; i < f->nfiles; i++)
		n += f->fl[i].ntok && f->fl[i].k.ncomp > strip;
	return n;
}

/* a's files at strip sa, keyed by their hash there (a hash seen twice keeps the first file). */
static int index_at(const rp_fid *a, unsigned sa, map *m)
{
	for (size_t i = 0; i < a->nfiles; i++) {
		const file *const fl = &a->fl[i];
		if (!fl->ntok || fl->k.ncomp <= sa || map_find(m, fl->k.h[sa], 0))
			continue;
		if (map_put(m, fl->k.h[sa], 0, (uint32_t)i) < 0)
			return RP_E_NOMEM;
	}
	return RP_OK;
}

/* Of b's first ALIGN_SAMPLE files with core ops, how many are in m at strip sb. */
static uint64_t sample_hits(const rp_fid *b, unsigned sb, const map *m)
{
	uint64_t hits = 0, seen = 0;
	for (size_t i = 0; i < b->nfiles && seen < ALIGN_SAMPLE; i++) {
		const file *const fl = &b->fl[i];
		if (!fl->ntok || fl->k.ncomp <= sb)
			continue;
		seen++;
		hits += map_find(m, fl->k.h[sb], 0) != NULL;
	}
	return hits;
}

static double ks_distance(const rp_fid *a, const rp_fid *b)
{
	if (!a->ngaps || !b->ngaps)
		return 0;
	double ca = 0, cb = 0, d = 0;
	for (unsigned i = 0; i < GAP_BUCKETS; i++) {
		ca += (double)a->gap[i];
		cb += (double)b->gap[i];
		const double x = fabs(ca / (double)a->ngaps - cb / (double)b->ngaps);
		if (x > d)
			d = x;
	}
	return d;
}

static void trail_of(const file *fl, char *out, bool *more)
{
	const uint32_t n = fl ? (fl->ntok < RP_FID_TRAIL ? fl->ntok : RP_FID_TRAIL) : 0;
	memcpy(out, fl ? fl->trail : "", n);
	out[n] = '\0';
	*more = fl && fl->ntok > RP_FID_TRAIL;
}

/* A file that differs, into c's samples while there is room: named by fa's side when A has it (na: its fid). */
static void sample(rp_fid_cmp *c, const rp_fid *na, const file *fa, const rp_fid *nb, const file *fb)
{
	if (c->n_samples == RP_FID_SAMPLES)
		return;
	rp_fid_sample *const s = &c->samples[c->n_samples++];
	const rp_fid *const owner = fa ? na : nb;
	const file *const named = fa ? fa : fb;
	s->path[0] = '\0';
	if (named->k.name_off != NO_NAME) {
		memcpy(s->path, owner->arena + named->k.name_off, named->k.name_len);
		s->path[named->k.name_len] = '\0';
	}
	trail_of(fa, s->a, &s->a_more);
	trail_of(fb, s->b, &s->b_more);
}

int rp_fid_compare(const rp_fid *a, const rp_fid *b, rp_fid_cmp *c)
{
	memset(c, 0, sizeof(*c));
	c->ks = ks_distance(a, b);
	c->order_agree_pct = 100;
	if (a->capped || b->capped)
		return RP_OK;
	c->compared = true;
	/* The alignment: strip leading components (the replay's target beneath its mount, a pseudo path the
	 * original kept, the synthetic prefix of a capture that began after its mount: on either side or
	 * both) so that most of B's files are A's; the fewest stripped wins a tie. */
	unsigned best_a = 0, best_b = 0;
	uint64_t best = 0;
	for (unsigned sa = 0; sa <= RP_FID_STRIP_MAX; sa++) {
		map m = { 0 };
		if (index_at(a, sa, &m) < 0) {
			free(m.e);
			return RP_E_NOMEM;
		}
		for (unsigned sb = 0; sb <= RP_FID_STRIP_MAX; sb++) {
			const uint64_t hits = sample_hits(b, sb, &m);
			if (hits > best || (hits == best && hits && sa + sb < best_a + best_b)) {
				best = hits;
				best_a = sa;
				best_b = sb;
			}
		}
		free(m.e);
	}
	c->strip_a = best_a;
	c->strip_b = best_b;
	c->files_a = count_at(a, best_a);
	c->files_b = count_at(b, best_b);
	map m = { 0 };
	if (index_at(a, best_a, &m) < 0) {
		free(m.e);
		return RP_E_NOMEM;
	}
	map mb = { 0 };
	if (index_at(b, best_b, &mb) < 0) {
		free(m.e);
		free(mb.e);
		return RP_E_NOMEM;
	}
	/* A's files in order: in B with the same steps, in B otherwise, or not in B (the last two sampled). */
	for (size_t i = 0; i < a->nfiles; i++) {
		const file *const fa = &a->fl[i];
		if (!fa->ntok || fa->k.ncomp <= best_a)
			continue;
		const slot *const s = map_find(&mb, fa->k.h[best_a], 0);
		const file *const fb = s ? &b->fl[s->v] : NULL;
		if (fb)
			c->files_matched++;
		if (fb && fa->seq == fb->seq && fa->ntok == fb->ntok)
			c->files_same++;
		else
			sample(c, a, fa, b, fb);
	}
	for (size_t i = 0; i < b->nfiles && c->n_samples < RP_FID_SAMPLES; i++) {
		const file *const fb = &b->fl[i];
		if (fb->ntok && fb->k.ncomp > best_b && !map_find(&m, fb->k.h[best_b], 0))
			sample(c, b, NULL, b, fb);
	}
	free(m.e);
	free(mb.e);
	const uint64_t either = c->files_a + c->files_b - c->files_matched;
	c->order_agree_pct = either ? 100.0 * (double)c->files_same / (double)either : 100;
	return RP_OK;
}
