/* `reprise generate`: handles, opens and closes, reads and writes of a generated client (docs/model.md). */
#include <stdio.h>
#include <string.h>

#include "formats/error.h"
#include "results/model_gen_int.h"


int rp__gen_close(gen *g, gclient *c, uint32_t k)
{
	/* its locks are released first: a later unlock of the chunk's (owed) is then the one already made */
	while (c->h[k].locks) {
		if (rp__gen_unlock(g, c, &c->h[k]) < 0)
			return RP_E_NOMEM;
		c->owed++;
	}
	rp_op *const op = rp__gen_emit(g, c, RP_OP_CLOSE);
	if (!op)
		return RP_E_NOMEM;
	op->handle = c->h[k].id;
	op->path = g->files[c->h[k].file].path;
	g->files[c->h[k].file].opens--;
	memmove(&c->h[k], &c->h[k + 1], (c->nh - k - 1) * sizeof(ghandle));
	c->nh--;
	return 0;
}

int rp__gen_open(gen *g, gclient *c, bool fail)
{
	if (c->nh == GEN_MAX_HANDLES) {
		const int r = rp__gen_close(g, c, 0); /* the oldest; its locks are released first */
		if (r < 0)
			return r;
		g->st->added_closes++;
	}
	uint32_t path;
	int64_t idx = -1;
	bool create = !fail && (idx = rp__gen_pick_file(g, c, false)) < 0;
	if (!fail && !create && (double)rp_rng_below(&c->rng, 1000000) < g->p_create * 1e6)
		create = true;
	if (fail) {
		if (rp__gen_missing_path(g, c, &path) < 0)
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
		if (rp__gen_made(g, c, (uint32_t)idx) < 0)
			return RP_E_NOMEM;
	} else if (create) {
		/* a new name in one of the client's directories */
		const int r = rp__gen_new_name(g, c, "n", &path);
		if (r < 0)
			return r;
		if (rp__gen_add_file(g, path, (int32_t)(c - g->cl), 0, true) < 0)
			return RP_E_NOMEM;
		idx = (int64_t)g->n_files - 1;
		if (rp__gen_made(g, c, (uint32_t)idx) < 0)
			return RP_E_NOMEM;
	} else {
		path = g->files[idx].path;
	}
	rp_op *const op = rp__gen_emit(g, c, RP_OP_OPEN);
	if (!op)
		return RP_E_NOMEM;
	op->path = path;
	op->want = RP_WANT_READ | RP_WANT_WRITE | RP_WANT_KNOWN;
	op->disp = create ? RP_DISP_CREATE : RP_DISP_OPEN;
	op->mode = 0644;
	if (fail) {
		rp__gen_fail_enoent(op);
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

int rp__gen_io(gen *g, gclient *c, const rp_model_cell *cell, unsigned opcode)
{
	ghandle *const h = &c->h[c->nh - 1];
	gfile *const f = &g->files[h->file];
	rp_op *const op = rp__gen_emit(g, c, opcode);
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
int rp__gen_unlock(gen *g, gclient *c, ghandle *h)
{
	rp_op *const op = rp__gen_emit(g, c, RP_OP_UNLOCK);
	if (!op)
		return RP_E_NOMEM;
	op->handle = h->id;
	op->path = g->files[h->file].path;
	op->offset = --h->locks;
	op->length = 1;
	return 0;
}
