/* Deletes done by a close: the handles whose close deletes their object (doc_track.h). */
#include "formats/doc_track.h"

#include <stdlib.h>

#include "formats/error.h"

struct rp__doc_ent {
	uint64_t handle; /* 0 = empty */
	uint32_t client;
	uint8_t bits; /* H_DELETE, H_DIR */
	uint8_t used; /* 1 live, 2 removed (a tombstone) */
};
typedef struct rp__doc_ent hent;
enum { H_DELETE = 1, H_DIR = 2 };

void rp_doc_track_free(rp_doc_track *t)
{
	free(t->e);
	*t = (rp_doc_track){ 0 };
}

static size_t hslot(const rp_doc_track *t, uint32_t client, uint64_t handle)
{
	return (size_t)(((handle ^ (uint64_t)client << 40) * 0x9e3779b97f4a7c15ull) >> 17) & (t->cap - 1);
}

static hent *hfind(const rp_doc_track *t, uint32_t client, uint64_t handle)
{
	if (!t->cap)
		return NULL;
	for (size_t i = hslot(t, client, handle);; i = (i + 1) & (t->cap - 1)) {
		hent *const e = &t->e[i];
		if (!e->used)
			return NULL;
		if (e->used == 1 && e->handle == handle && e->client == client)
			return e;
	}
}

static void forget(rp_doc_track *t, hent *e)
{
	e->used = 2;
	t->live--;
}

static int hset(rp_doc_track *t, uint32_t client, uint64_t handle, uint8_t bits)
{
	hent *const old = hfind(t, client, handle);
	if (old) {
		old->bits = bits;
		return 0;
	}
	if (t->live >= RP_DOC_TRACK_MAX)
		return RP_E_LIMIT;
	if ((t->used + 1) * 2 > t->cap) {
		/* grow when live entries fill a quarter; else rebuild at the same size, dropping tombstones,
		 * so a long trace of opens and closes keeps a table the size of what is open at once */
		rp_doc_track n = { .cap = !t->cap ? 64 : (t->live + 1) * 4 > t->cap ? t->cap * 2 : t->cap };
		n.e = calloc(n.cap, sizeof(*n.e));
		if (!n.e)
			return RP_E_NOMEM;
		for (size_t i = 0; i < t->cap; i++)
			if (t->e[i].used == 1) {
				size_t j = hslot(&n, t->e[i].client, t->e[i].handle);
				while (n.e[j].used)
					j = (j + 1) & (n.cap - 1);
				n.e[j] = t->e[i];
				n.used++;
				n.live++;
			}
		free(t->e);
		*t = n;
	}
	size_t i = hslot(t, client, handle);
	while (t->e[i].used == 1)
		i = (i + 1) & (t->cap - 1);
	if (!t->e[i].used)
		t->used++;
	t->live++;
	t->e[i] = (hent){ .handle = handle, .client = client, .bits = bits, .used = 1 };
	return 0;
}

int rp_doc_track_op(rp_doc_track *t, const rp_op *op)
{
	return op->status == RP_STATUS_OK ? rp_doc_track_apply(t, op) : RP_OP__COUNT;
}

int rp_doc_track_apply(rp_doc_track *t, const rp_op *op)
{
	if (!op->handle)
		return RP_OP__COUNT;
	hent *const e = hfind(t, op->client, op->handle);
	switch (op->op) {
	case RP_OP_OPEN: {
		const uint8_t bits = (uint8_t)((op->oflags & RP_OF_DELETE_ON_CLOSE ? H_DELETE : 0) |
					       ((op->oflags & RP_OF_DIRECTORY) || (op->flags & RP_OPF_DIRECTORY) ? H_DIR : 0));
		if (bits)
			{
			const int rc = hset(t, op->client, op->handle, bits);
			return rc < 0 ? rc : RP_OP__COUNT;
		}
		if (e)
			forget(t, e); /* a handle id used again */
		return RP_OP__COUNT;
	}
	case RP_OP_SETATTR:
		if (op->attrs & RP_SA_DELETE_SET)
		{
			const int rc = hset(t, op->client, op->handle, (uint8_t)((e ? e->bits : 0) | H_DELETE));
			return rc < 0 ? rc : RP_OP__COUNT;
		}
		if (e && (op->attrs & RP_SA_DELETE_CLEAR))
			e->bits &= (uint8_t)~H_DELETE;
		return RP_OP__COUNT;
	case RP_OP_CLOSE:
		if (!e)
			return RP_OP__COUNT;
		forget(t, e);
		if (!(e->bits & H_DELETE))
			return RP_OP__COUNT;
		return e->bits & H_DIR ? RP_OP_RMDIR : RP_OP_UNLINK;
	default:
		return RP_OP__COUNT;
	}
}
