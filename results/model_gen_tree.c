/* `reprise generate`: the initial file set and the ops on names (docs/model.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "results/model_gen_int.h"


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

/* The initial file set: the model's files that existed before its trace, their sizes, depths and sharing. */
int rp__gen_make_files(gen *g, uint32_t model_clients, rp_rng *rng)
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
		const int64_t id = rp__gen_intern(g, p);
		if (id < 0)
			return (int)id;
		uint64_t size = rp_mh_sample(&fs->size, rng);
		if (size > GEN_MAX_FILE_SIZE)
			size = GEN_MAX_FILE_SIZE;
		if (rp__gen_add_file(g, (uint32_t)id, owner, size, false) < 0)
			return rp_fail(g->errbuf, RP_E_NOMEM, "generate: out of memory");
	}
	g->st->files = want;
	return 0;
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
		path = g->n_shared && (rp_rng_next(&c->rng) & 1) ? g->shared_dir : c->dir;
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
	char p[64];
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
	const int64_t idx = rp__gen_pick_file(g, c, true);
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
	} else {
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
