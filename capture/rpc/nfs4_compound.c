/* A COMPOUND in flight: its arena and its objects' handle-map keys and paths (nfs4_int.h), used by the call half (nfs4.c) and the reply half (nfs4_reply.c). */
#include <stdlib.h>
#include <string.h>

#include "capture/rpc/nfs4_int.h"
#include "formats/hash.h"

/* A child's virtual handle: 0xff 'R' '4' 'v' and two 64-bit hashes of its parent's key and its name. */
#define VKEY_LEN 20

void rp__nfs4_compound_free(nfs4_compound *c)
{
	if (!c)
		return;
	free(c->ops);
	free(c->objs);
	free(c->arena);
	free(c);
}

/* Copy bytes into the arena; returns their offset (the compound is marked oom on failure). */
uint32_t rp__nfs4_stash(nfs4_compound *c, const void *p, size_t n)
{
	if (c->arena_len + n > c->arena_cap) {
		size_t cap = c->arena_cap ? c->arena_cap : 512;
		while (cap < c->arena_len + n)
			cap *= 2;
		uint8_t *const a = realloc(c->arena, cap);
		if (!a) {
			c->oom = true;
			return 0;
		}
		c->arena = a;
		c->arena_cap = cap;
	}
	const uint32_t off = (uint32_t)c->arena_len;
	if (n)
		memcpy(c->arena + off, p, n);
	c->arena_len += n;
	return off;
}

/*
 * The handle-map key of object i.  A child gets a virtual handle made from
 * its parent's key and its name, registered as that name in the parent the
 * first time something needs it as a directory (LOOKUP a, LOOKUP b).
 */
bool rp__nfs4_obj_key(rp_fhmap *m, nfs4_compound *c, int32_t i)
{
	if (i == NO_OBJ || (uint32_t)i >= c->n_objs)
		return false;
	nfs4_obj *const o = &c->objs[i];
	if (o->keyed)
		return true;
	if (o->kind != OBJ_CHILD || !rp__nfs4_obj_key(m, c, o->parent))
		return false;
	const nfs4_obj *const p = &c->objs[o->parent];
	uint8_t k[VKEY_LEN] = { 0xff, 'R', '4', 'v' };
	const uint64_t h1 = rp_fnv1a64(rp_fnv1a64(RP_FNV64_OFFSET, nfs4_key_of(c, p), p->key_len),
				       nfs4_name_of(c, o->name_off), o->name_len);
	const uint64_t h2 = rp_fnv1a64(rp_fnv1a64(RP_FNV64_OFFSET_SWAPPED ^ o->name_len, nfs4_name_of(c, o->name_off),
						  o->name_len),
				       nfs4_key_of(c, p), p->key_len);
	memcpy(k + 4, &h1, 8);
	memcpy(k + 12, &h2, 8);
	const uint32_t off = rp__nfs4_stash(c, k, sizeof(k));
	if (c->oom)
		return false;
	o->key_off = off;
	o->key_len = sizeof(k);
	o->keyed = true;
	rp__fhmap_child(m, nfs4_key_of(c, p), p->key_len, nfs4_name_of(c, o->name_off), o->name_len, nfs4_key_of(c, o), o->key_len);
	return true;
}

/* The path id of object i (interned on first use). */
uint32_t rp__nfs4_obj_path(rp_capctx *cx, rp_fhmap *m, nfs4_compound *c, int32_t i, bool *synth)
{
	if (i == NO_OBJ || (uint32_t)i >= c->n_objs)
		return 0;
	nfs4_obj *const o = &c->objs[i];
	if (!o->path) {
		if (o->kind == OBJ_CHILD) {
			if (rp__nfs4_obj_key(m, c, o->parent)) {
				const nfs4_obj *const p = &c->objs[o->parent];
				o->path = rp__fhmap_child_path(cx, m, nfs4_key_of(c, p), p->key_len, nfs4_name_of(c, o->name_off),
							       o->name_len, &o->synth);
			}
		} else if (o->keyed) {
			o->path = rp__fhmap_path(cx, m, nfs4_key_of(c, o), o->key_len, &o->synth);
		}
	}
	if (synth)
		*synth = *synth || o->synth;
	return o->path;
}
