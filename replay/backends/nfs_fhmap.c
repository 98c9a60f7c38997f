/*
 * The nfs backend's exact mode: file handles by path, learned from the
 * target's own NFSv3 replies (RFC 1813), as TBBT replays NFS traces.  No
 * libnfs here (unit tests).  A node is a name in a directory; a directory's
 * children hang on its dir id, not on its node, so a rename moves what is
 * beneath it with it and a remove makes what is beneath unreachable.
 */
#include "replay/backends/nfs_int.h"

#include <stdlib.h>
#include <string.h>

#define ROOT_DIRID 1u

static uint32_t hash_name(uint32_t parent, const char *name, size_t len)
{
	uint32_t h = 2166136261u ^ parent;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

void rp__nfs_fhmap_init(rp_nfs_fhmap *m, uint32_t max)
{
	memset(m, 0, sizeof(*m));
	m->max = max ? max : RP_NFS_FHMAP_MAX;
	m->next_dirid = ROOT_DIRID + 1;
}

void rp__nfs_fhmap_fini(rp_nfs_fhmap *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		free(m->nodes[i].name);
	free(m->nodes);
	free(m->index);
	memset(m, 0, sizeof(*m));
}

void rp__nfs_fhmap_set_root(rp_nfs_fhmap *m, const void *fh, size_t len)
{
	if (len > RP_NFS_FH_MAX)
		return;
	memcpy(m->root.fh, fh, len);
	m->root.fhlen = (uint8_t)len;
	m->root.dirid = ROOT_DIRID;
	m->root.kind = RP_NFS_FK_DIR;
	m->have_root = true;
}

/* The slot of (parent, name): its node's, or the empty one where it would go; UINT32_MAX when there is no index. */
static uint32_t slot_of(const rp_nfs_fhmap *m, uint32_t parent, const char *name, size_t len)
{
	if (!m->slots)
		return UINT32_MAX;
	const uint32_t mask = m->slots - 1;
	for (uint32_t s = hash_name(parent, name, len) & mask;; s = (s + 1) & mask) {
		const uint32_t i = m->index[s];
		if (i == RP_NFS_FHMAP_NONE)
			return s;
		const rp_nfs_fhnode *const e = &m->nodes[i];
		if (e->parent == parent && e->len == len && memcmp(e->name, name, len) == 0)
			return s;
	}
}

static rp_nfs_fhnode *child(const rp_nfs_fhmap *m, uint32_t parent, const char *name, size_t len)
{
	const uint32_t s = slot_of(m, parent, name, len);
	if (s == UINT32_MAX || m->index[s] == RP_NFS_FHMAP_NONE)
		return NULL;
	rp_nfs_fhnode *const e = &m->nodes[m->index[s]];
	return e->dead ? NULL : e;
}

/* The node of path ("" the root), or NULL; *last and *last_len: its last name, *parent: the dir id it is in. */
static rp_nfs_fhnode *walk(const rp_nfs_fhmap *m, const char *path, uint32_t *parent, const char **last,
			   size_t *last_len, bool parent_only)
{
	if (!m->have_root)
		return NULL;
	const rp_nfs_fhnode *at = &m->root;
	*parent = 0;
	*last = NULL;
	*last_len = 0;
	const char *p = path;
	while (*p == '/')
		p++;
	if (!*p)
		return parent_only ? NULL : (rp_nfs_fhnode *)at;
	for (;;) {
		const size_t len = strcspn(p, "/");
		const char *next = p + len;
		while (*next == '/')
			next++;
		if (!*next) {
			*parent = at->dirid;
			*last = p;
			*last_len = len;
			return parent_only ? (rp_nfs_fhnode *)at : child(m, at->dirid, p, len);
		}
		if (!at->dirid)
			return NULL; /* not a directory as far as the replies said */
		at = child(m, at->dirid, p, len);
		if (!at)
			return NULL;
		p = next;
	}
}

static bool grow_index(rp_nfs_fhmap *m)
{
	const uint32_t slots = m->slots ? m->slots * 2 : 1024;
	uint32_t *const index = malloc((size_t)slots * sizeof(*index));
	if (!index)
		return false;
	for (uint32_t s = 0; s < slots; s++)
		index[s] = RP_NFS_FHMAP_NONE;
	free(m->index);
	m->index = index;
	m->slots = slots;
	m->used = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		const rp_nfs_fhnode *const e = &m->nodes[i];
		if (e->dead)
			continue; /* a dead node's slot goes with the rebuild */
		const uint32_t s = slot_of(m, e->parent, e->name, e->len);
		m->index[s] = i;
		m->used++;
	}
	return true;
}

/* Drop the dead nodes (their dir ids stay unused): the live ones keep their ids. */
static bool compact(rp_nfs_fhmap *m)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		if (m->nodes[i].dead) {
			free(m->nodes[i].name);
			continue;
		}
		m->nodes[k++] = m->nodes[i];
	}
	m->n = k;
	m->live = k;
	m->compactions++;
	const uint32_t slots = m->slots;
	m->slots /= 2; /* grow_index doubles it back: the same size, rebuilt */
	if (!grow_index(m)) {
		m->slots = slots;
		return false;
	}
	return true;
}

/* A node for (parent, name), replacing any there; NULL when it cannot be kept (full, out of memory). */
static rp_nfs_fhnode *put(rp_nfs_fhmap *m, uint32_t parent, const char *name, size_t len)
{
	if (m->n == m->max && (m->live == m->max || !compact(m)))
		return NULL;
	if (m->n == m->cap) {
		const uint32_t cap = m->cap ? m->cap * 2 : 256;
		rp_nfs_fhnode *const nodes = realloc(m->nodes, (size_t)cap * sizeof(*nodes));
		if (!nodes)
			return NULL;
		m->nodes = nodes;
		m->cap = cap;
	}
	if ((m->used + 1) * 2 > m->slots && !grow_index(m))
		return NULL;
	char *const copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, name, len);
	copy[len] = '\0';
	const uint32_t s = slot_of(m, parent, name, len);
	if (m->index[s] != RP_NFS_FHMAP_NONE) {
		rp_nfs_fhnode *const old = &m->nodes[m->index[s]];
		if (!old->dead) {
			old->dead = true;
			m->live--;
		}
	} else {
		m->used++;
	}
	const uint32_t i = m->n++;
	m->index[s] = i;
	m->live++;
	rp_nfs_fhnode *const e = &m->nodes[i];
	memset(e, 0, sizeof(*e));
	e->name = copy;
	e->len = (uint32_t)len;
	e->parent = parent;
	return e;
}

bool rp__nfs_fhmap_get(const rp_nfs_fhmap *m, const char *path, const void **fh, size_t *len)
{
	uint32_t parent;
	const char *last;
	size_t last_len;
	const rp_nfs_fhnode *const e = walk(m, path, &parent, &last, &last_len, false);
	if (!e || e->kind == RP_NFS_FK_ABSENT)
		return false;
	*fh = e->fh;
	*len = e->fhlen;
	return true;
}

bool rp__nfs_fhmap_parent(const rp_nfs_fhmap *m, const char *path, const void **fh, size_t *len, const char **name,
			  size_t *name_len)
{
	uint32_t parent;
	const rp_nfs_fhnode *const e = walk(m, path, &parent, name, name_len, true);
	if (!e || !e->dirid)
		return false;
	*fh = e->fh;
	*len = e->fhlen;
	return true;
}

bool rp__nfs_fhmap_set(rp_nfs_fhmap *m, const char *path, const void *fh, size_t len, int kind)
{
	const bool dir = kind == RP_NFS_FK_DIR || kind == RP_NFS_FK_UNKNOWN;
	if (len == 0 || len > RP_NFS_FH_MAX || kind == RP_NFS_FK_ABSENT)
		return false;
	uint32_t parent;
	const char *last;
	size_t last_len;
	const rp_nfs_fhnode *const at = walk(m, path, &parent, &last, &last_len, true);
	if (!at || !at->dirid || !last || last_len == 0 || last_len > RP_NFS_FHMAP_NAME_MAX)
		return false;
	/* The same object under the same name again (a LOOKUP repeated): it keeps its children and listing. */
	rp_nfs_fhnode *e = child(m, parent, last, last_len);
	if (e && e->fhlen == len && memcmp(e->fh, fh, len) == 0) {
		if (dir && !e->dirid)
			e->dirid = m->next_dirid++;
		if (kind != RP_NFS_FK_UNKNOWN)
			e->kind = (uint8_t)kind;
		return true;
	}
	if (!(e = put(m, parent, last, last_len)))
		return false;
	memcpy(e->fh, fh, len);
	e->fhlen = (uint8_t)len;
	e->kind = (uint8_t)kind;
	e->dirid = dir ? m->next_dirid++ : 0;
	return true;
}

bool rp__nfs_fhmap_absent(rp_nfs_fhmap *m, const char *path)
{
	uint32_t parent;
	const char *last;
	size_t last_len;
	const rp_nfs_fhnode *const at = walk(m, path, &parent, &last, &last_len, true);
	if (!at || !at->dirid || !last || last_len == 0 || last_len > RP_NFS_FHMAP_NAME_MAX) {
		rp__nfs_fhmap_forget(m, path);
		return false;
	}
	rp_nfs_fhnode *const e = put(m, parent, last, last_len);
	if (!e) {
		rp__nfs_fhmap_forget(m, path);
		return false;
	}
	e->kind = RP_NFS_FK_ABSENT; /* no handle, no dir id: nothing beneath it is reached */
	return true;
}

int rp__nfs_fhmap_kind(const rp_nfs_fhmap *m, const char *path)
{
	uint32_t parent;
	const char *last;
	size_t last_len;
	const rp_nfs_fhnode *const e = walk(m, path, &parent, &last, &last_len, false);
	return e ? e->kind : -1;
}

void rp__nfs_fhmap_forget(rp_nfs_fhmap *m, const char *path)
{
	uint32_t parent;
	const char *last;
	size_t last_len;
	rp_nfs_fhnode *const e = walk(m, path, &parent, &last, &last_len, false);
	if (e && e != &m->root) {
		e->dead = true; /* what is beneath it hangs on its dir id, which nothing reaches now */
		m->live--;
	}
}

bool rp__nfs_fhmap_rename(rp_nfs_fhmap *m, const char *from, const char *to)
{
	uint32_t parent;
	const char *last;
	size_t last_len;
	rp_nfs_fhnode *const e = walk(m, from, &parent, &last, &last_len, false);
	if (!e || e == &m->root) {
		rp__nfs_fhmap_forget(m, to); /* whatever `to` named is gone, replaced by what we never knew */
		return false;
	}
	const rp_nfs_fhnode moved = *e;
	e->dead = true;
	m->live--;
	const rp_nfs_fhnode *const at = walk(m, to, &parent, &last, &last_len, true);
	rp_nfs_fhnode *n = NULL;
	if (!at || !at->dirid || !last || last_len == 0 || last_len > RP_NFS_FHMAP_NAME_MAX ||
	    !(n = put(m, parent, last, last_len))) {
		rp__nfs_fhmap_forget(m, to);
		return false;
	}
	/* put may have moved the nodes (e is stale); the moved one keeps its handle, dir id and listing. */
	char *const name = n->name;
	const uint32_t len = n->len, par = n->parent;
	*n = moved;
	n->name = name;
	n->len = len;
	n->parent = par;
	n->dead = false;
	return true;
}

rp_nfs_fhnode *rp__nfs_fhmap_node(rp_nfs_fhmap *m, const char *path)
{
	uint32_t parent;
	const char *last;
	size_t last_len;
	return walk(m, path, &parent, &last, &last_len, false);
}
