/* `reprise generate`: the initial file set and the ops on names, and the helpers the others use (docs/model.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "results/model_gen_int.h"


int64_t rp__gen_intern(gen *g, const char *s)
{
	const int64_t id = rp_sink_intern(g->sink, g->tab, s, (uint32_t)strlen(s));
	if (id < 0 && !g->errbuf[0])
		rp_fail(g->errbuf, (int)id, "generate: %s", rp_strerror((int)id));
	return id;
}

int rp__gen_grow(void **p, size_t *cap, size_t need, size_t elem)
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

rp_op *rp__gen_emit(gen *g, gclient *c, unsigned opcode)
{
	if (rp__gen_grow((void **)&g->buf, &g->cap_buf, g->n_buf + 1, sizeof(rp_op)) < 0)
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

void rp__gen_fail_enoent(rp_op *op)
{
	op->status = ENOENT_;
	op->status_kind = RP_SK_ERRNO;
	op->proto_status = ENOENT_;
}

int rp__gen_add_file(gen *g, uint32_t path, int32_t owner, uint64_t size, bool created)
{
	if (rp__gen_grow((void **)&g->files, &g->cap_files, g->n_files + 1, sizeof(gfile)) < 0)
		return RP_E_NOMEM;
	const uint32_t idx = (uint32_t)g->n_files++;
	g->files[idx] = (gfile){ .path = path, .owner = owner, .size = size, .alive = true, .created = created };
	if (owner >= 0) {
		gclient *const c = &g->cl[owner];
		if (rp__gen_grow((void **)&c->own, &c->cap_own, c->n_own + 1, sizeof(uint32_t)) < 0)
			return RP_E_NOMEM;
		c->own[c->n_own++] = idx;
	} else {
		if (rp__gen_grow((void **)&g->shared, &g->cap_shared, g->n_shared + 1, sizeof(uint32_t)) < 0)
			return RP_E_NOMEM;
		g->shared[g->n_shared++] = idx;
	}
	return 0;
}

static int tree_add(gtree *t, uint32_t path, uint32_t depth, double w)
{
	if (rp__gen_grow((void **)&t->d, &t->cap, t->n + 1, sizeof(gdir)) < 0)
		return RP_E_NOMEM;
	t->d[t->n] = (gdir){ .path = path, .depth = depth, .cum = (t->n ? t->d[t->n - 1].cum : 0) + w };
	t->n++;
	return 0;
}

void rp__gen_tree_free(gtree *t)
{
	free(t->d);
}

/* A directory of t drawn in proportion to the names it holds. */
static size_t tree_pick(const gtree *t, rp_rng *r)
{
	const double u = (double)(rp_rng_next(r) >> 11) * 0x1p-53 * t->d[t->n - 1].cum;
	size_t lo = 0, hi = t->n - 1;
	while (lo < hi) {
		const size_t mid = (lo + hi) / 2;
		if (t->d[mid].cum > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * A tree of ndirs directories under root (depth 2): each one's depth from the model's file depths (a file's
 * directory has one component fewer), below a directory one level up (the deepest there is when none), and
 * weighted by a width drawn from the model's names per directory.
 */
static int make_tree(gen *g, gtree *t, const char *root, uint64_t ndirs, rp_rng *rng)
{
	const rp_model_files *const fs = &g->m->fs;
	const int64_t id = rp__gen_intern(g, root);
	char p[256];
	if (id < 0)
		return (int)id;
	for (uint64_t j = 0; j < ndirs; j++) {
		uint64_t w = rp_mh_sample(&fs->width, rng);
		if (j && t->n && w < 1)
			w = 1;
		if (!j) {
			const int r = tree_add(t, (uint32_t)id, 2, (double)(w ? w : 1));
			if (r < 0)
				return r;
			continue;
		}
		uint64_t depth = rp_mh_sample(&fs->depth, rng);
		depth = depth < 4 ? 3 : depth > 12 ? 11 : depth - 1; /* path length, not tree shape, is what deeper tests */
		size_t parent = 0, seen = 0;
		for (size_t k = 0; k < t->n; k++) {
			if (t->d[k].depth + 1u == depth && rp_rng_below(rng, ++seen) == 0)
				parent = k; /* uniform among those one level up */
			else if (!seen && t->d[k].depth < depth && t->d[k].depth > t->d[parent].depth)
				parent = k;
		}
		uint32_t plen;
		const char *const ps = rp_strtab_get(g->tab, t->d[parent].path, &plen);
		if (!ps)
			return RP_E_NOMEM;
		snprintf(p, sizeof(p), "%.*s/d%llu", (int)(plen < 200 ? plen : 200), ps, (unsigned long long)j);
		const int64_t did = rp__gen_intern(g, p);
		if (did < 0)
			return (int)did;
		const int r = tree_add(t, (uint32_t)did, t->d[parent].depth + 1u, (double)w);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The initial file set: the model's files that existed before its trace, their sizes and sharing, in trees of
 * directories as many to a file as the model's (its parents over its files that existed before), each directory
 * holding at least one file and the rest in proportion to its drawn width: a listing lists as many names as the
 * trace's did.
 */
int rp__gen_make_files(gen *g, uint32_t model_clients, rp_rng *rng)
{
	const rp_model_files *const fs = &g->m->fs;
	uint64_t want = fs->files > fs->created ? fs->files - fs->created : 0;
	const uint64_t before = want ? want : 1;
	want = want * g->n / (model_clients ? model_clients : 1);
	if (want < g->n)
		want = g->n;
	if (want > GEN_MAX_FILES)
		want = GEN_MAX_FILES;
	uint64_t parents = 0;
	for (unsigned b = 0; b < RP_MH_BUCKETS; b++)
		parents += fs->width.n[b];
	const double per_file = parents >= before ? 1 : (double)parents / (double)before;
	int32_t *const owner = malloc(want * sizeof(int32_t));
	uint64_t *const count = calloc((size_t)g->n + 1, sizeof(uint64_t)); /* files per owner, the shared last */
	uint32_t **const at = calloc((size_t)g->n + 1, sizeof(uint32_t *)); /* each owner's files' directories */
	int rc = owner && count && at ? 0 : RP_E_NOMEM;
	for (uint64_t i = 0; i < want && rc == 0; i++) {
		const bool shared = g->n > 1 && (double)rp_rng_below(rng, 1000000) < g->p_shared * 1e6;
		owner[i] = shared ? -1 : (int32_t)(i % g->n);
		count[shared ? g->n : (uint32_t)owner[i]]++;
	}
	uint64_t dirs_left = GEN_MAX_DIRS;
	char p[256];
	for (uint32_t o = 0; o <= g->n && rc == 0; o++) {
		gtree *const t = o < g->n ? &g->cl[o].tree : &g->stree;
		if (o == g->n && !count[o])
			break;
		uint64_t nd = (uint64_t)((double)count[o] * per_file + 0.5);
		nd = nd < 1 ? 1 : nd > count[o] && count[o] ? count[o] : nd;
		nd = nd > dirs_left ? (dirs_left ? dirs_left : 1) : nd;
		dirs_left -= nd < dirs_left ? nd : dirs_left;
		if (o < g->n)
			snprintf(p, sizeof(p), "/gen/c%u", o);
		else
			snprintf(p, sizeof(p), "/gen/shared");
		if ((rc = make_tree(g, t, p, nd, rng)) < 0 || !count[o])
			continue;
		if (!(at[o] = malloc(count[o] * sizeof(uint32_t)))) {
			rc = RP_E_NOMEM;
			break;
		}
		for (uint64_t k = 0; k < count[o]; k++) /* one file each first, the rest by width */
			at[o][k] = k < t->n ? (uint32_t)k : (uint32_t)tree_pick(t, rng);
	}
	uint64_t *const next = rc == 0 ? calloc((size_t)g->n + 1, sizeof(uint64_t)) : NULL;
	if (rc == 0 && !next)
		rc = RP_E_NOMEM;
	for (uint64_t i = 0; i < want && rc == 0; i++) {
		const uint32_t o = owner[i] < 0 ? g->n : (uint32_t)owner[i];
		const gtree *const t = o < g->n ? &g->cl[o].tree : &g->stree;
		uint32_t dlen;
		const char *const ds = rp_strtab_get(g->tab, t->d[at[o][next[o]++]].path, &dlen);
		if (!ds) {
			rc = RP_E_NOMEM;
			break;
		}
		snprintf(p, sizeof(p), "%.*s/f%llu", (int)(dlen < 200 ? dlen : 200), ds, (unsigned long long)i);
		const int64_t id = rp__gen_intern(g, p);
		if (id < 0) {
			rc = (int)id;
			break;
		}
		uint64_t size = rp_mh_sample(&fs->size, rng);
		if (size > GEN_MAX_FILE_SIZE)
			size = GEN_MAX_FILE_SIZE;
		rc = rp__gen_add_file(g, (uint32_t)id, owner[i], size, false);
	}
	for (uint32_t o = 0; at && o <= g->n; o++)
		free(at[o]);
	free(at);
	free(next);
	free(count);
	free(owner);
	if (rc < 0)
		return g->errbuf[0] ? rc : rp_fail(g->errbuf, RP_E_NOMEM, "generate: out of memory");
	g->st->files = want;
	return 0;
}

/* A new name in one of the client's directories (drawn by the names they hold): DIR/STEMn. */
int rp__gen_new_name(gen *g, gclient *c, const char *stem, uint32_t *id)
{
	char p[256];
	uint32_t dlen = 0;
	const char *ds = c->tree.n ? rp_strtab_get(g->tab, c->tree.d[tree_pick(&c->tree, &c->rng)].path, &dlen) : NULL;
	if (!ds)
		ds = "", dlen = 0;
	if (dlen)
		snprintf(p, sizeof(p), "%.*s/%s%llu", (int)(dlen < 200 ? dlen : 200), ds, stem, (unsigned long long)c->seq++);
	else
		snprintf(p, sizeof(p), "/gen/c%u/%s%llu", (unsigned)(c - g->cl), stem, (unsigned long long)c->seq++);
	const int64_t r = rp__gen_intern(g, p);
	*id = (uint32_t)r;
	return r < 0 ? (int)r : 0;
}

/* idx, a file the client just created, among those its unlinks take first. */
int rp__gen_made(gen *g, gclient *c, uint32_t idx)
{
	(void)g;
	if (rp__gen_grow((void **)&c->made, &c->cap_made, c->n_made + 1, sizeof(uint32_t)) < 0)
		return RP_E_NOMEM;
	c->made[c->n_made++] = idx;
	return 0;
}

/* A closed, alive file the client created, taken off its list (gone ones met on the way too); -1 when none. */
static int64_t pick_made(gen *g, gclient *c)
{
	for (int tries = 0; tries < 64 && c->n_made; tries++) {
		const size_t k = (size_t)rp_rng_below(&c->rng, c->n_made);
		const uint32_t idx = c->made[k];
		const gfile *const f = &g->files[idx];
		if (f->alive && f->opens == 0) {
			c->made[k] = c->made[--c->n_made];
			return idx;
		}
		if (!f->alive || f->owner != (int32_t)(c - g->cl))
			c->made[k] = c->made[--c->n_made]; /* gone: off the list */
	}
	return -1;
}

/* A file the client may use (its own or a shared one, alive); -1 when none. */
int64_t rp__gen_pick_file(gen *g, gclient *c, bool closed_own)
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
int rp__gen_missing_path(gen *g, gclient *c, uint32_t *id)
{
	if (c->n_dead) {
		*id = g->files[c->dead[rp_rng_below(&c->rng, c->n_dead)]].path;
		return 0;
	}
	char p[64];
	snprintf(p, sizeof(p), "/gen/c%u/missing%llu", (unsigned)(c - g->cl), (unsigned long long)c->seq++);
	const int64_t r = rp__gen_intern(g, p);
	*id = (uint32_t)r;
	return r < 0 ? (int)r : 0;
}

/* An op on a name: stat, access, lookup (failing ones on a missing name), readdir, statfs. */
int rp__gen_path_op(gen *g, gclient *c, unsigned opcode, bool fail)
{
	uint32_t path = 0;
	if (opcode == RP_OP_READDIR && fail) {
		/* a listing that found nothing (client.txt: half its readdirs): a directory that is not there */
		char p[64];
		snprintf(p, sizeof(p), "/gen/c%u/nodir", (unsigned)(c - g->cl));
		const int64_t id = rp__gen_intern(g, p);
		if (id < 0)
			return (int)id;
		path = (uint32_t)id;
	} else if (opcode == RP_OP_READDIR) {
		/* one of the directories of the initial tree: the shared ones in the model's share of shared files */
		const bool sh = g->stree.n && (!c->tree.n || (double)rp_rng_below(&c->rng, 1000000) < g->p_shared * 1e6);
		const gtree *const t = sh ? &g->stree : &c->tree;
		path = t->n ? t->d[rp_rng_below(&c->rng, t->n)].path : c->dir;
	} else if (opcode != RP_OP_STATFS) {
		const int64_t idx = fail ? -1 : rp__gen_pick_file(g, c, false);
		if (idx < 0)
			fail = true;
		if (fail && rp__gen_missing_path(g, c, &path) < 0)
			return -1;
		if (!fail)
			path = g->files[idx].path;
	}
	rp_op *const op = rp__gen_emit(g, c, opcode);
	if (!op)
		return RP_E_NOMEM;
	op->path = path;
	if (opcode == RP_OP_ACCESS)
		op->want = RP_WANT_READ | RP_WANT_KNOWN;
	if (fail && opcode != RP_OP_STATFS)
		rp__gen_fail_enoent(op);
	return 0;
}

/* unlink, rename (of a closed file the client owns), mkdir, rmdir (of one it made): false when nothing fits. */
int rp__gen_name_op(gen *g, gclient *c, unsigned opcode, bool *done)
{
	*done = false;
	char p[256];
	if (opcode == RP_OP_MKDIR) {
		snprintf(p, sizeof(p), "/gen/c%u/m%llu", (unsigned)(c - g->cl), (unsigned long long)c->seq++);
		const int64_t id = rp__gen_intern(g, p);
		if (id < 0 || rp__gen_grow((void **)&c->dirs, &c->cap_dirs, c->n_dirs + 1, sizeof(uint32_t)) < 0)
			return id < 0 ? (int)id : RP_E_NOMEM;
		c->dirs[c->n_dirs++] = (uint32_t)id;
		rp_op *const op = rp__gen_emit(g, c, opcode);
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
		rp_op *const op = rp__gen_emit(g, c, opcode);
		if (!op)
			return RP_E_NOMEM;
		op->path = c->dirs[--c->n_dirs];
		*done = true;
		return 0;
	}
	/* a file the client created first, in the share of unlinks the model's creates account for; renames always */
	int64_t idx = -1;
	if (opcode == RP_OP_RENAME || (double)rp_rng_below(&c->rng, 1000000) < g->p_unlink_made * 1e6)
		idx = pick_made(g, c);
	if (idx >= 0 && opcode == RP_OP_RENAME && rp__gen_made(g, c, (uint32_t)idx) < 0)
		return RP_E_NOMEM;
	if (idx < 0)
		idx = rp__gen_pick_file(g, c, true);
	/* a protocol without closes (NFSv3) unlinks what it opened: the file the client opened last, still open */
	if (idx < 0 && opcode == RP_OP_UNLINK && g->no_close[c->cls] && c->nh && g->files[c->h[c->nh - 1].file].alive &&
	    g->files[c->h[c->nh - 1].file].owner == (int32_t)(c - g->cl))
		idx = c->h[c->nh - 1].file;
	/* a renamed file must be one the trace created: prepare makes only the names a trace uses before it creates them */
	if (idx < 0 || (opcode == RP_OP_RENAME && !g->files[idx].created))
		return 0;
	gfile *const f = &g->files[idx];
	rp_op *const op = rp__gen_emit(g, c, opcode);
	if (!op)
		return RP_E_NOMEM;
	op->path = f->path;
	if (opcode == RP_OP_UNLINK) {
		f->alive = false;
		if (f->owner == (int32_t)(c - g->cl)) {
			if (rp__gen_grow((void **)&c->dead, &c->cap_dead, c->n_dead + 1, sizeof(uint32_t)) < 0)
				return RP_E_NOMEM;
			c->dead[c->n_dead++] = (uint32_t)idx;
		}
	} else if (c->n_dead) {
		/* onto a name the client unlinked, which then names what is gone (a trace renames among a few names:
		 * client.txt's 3,355 renames name 252 paths) */
		gfile *const d = &g->files[c->dead[rp_rng_below(&c->rng, c->n_dead)]];
		op->path2 = d->path;
		d->path = f->path;
		f->path = op->path2;
	} else {
		/* a new name beside it */
		uint32_t plen;
		const char *const ps = rp_strtab_get(g->tab, f->path, &plen);
		uint32_t cut = 0;
		for (uint32_t i = 0; ps && i < plen; i++)
			if (ps[i] == '/')
				cut = i;
		if (ps && cut)
			snprintf(p, sizeof(p), "%.*s/r%llu", (int)(cut < 200 ? cut : 200), ps, (unsigned long long)c->seq++);
		else
			snprintf(p, sizeof(p), "/gen/c%u/r%llu", (unsigned)(c - g->cl), (unsigned long long)c->seq++);
		const int64_t id = rp__gen_intern(g, p);
		if (id < 0)
			return (int)id;
		op->path2 = (uint32_t)id;
		f->path = (uint32_t)id;
	}
	*done = true;
	return 0;
}
