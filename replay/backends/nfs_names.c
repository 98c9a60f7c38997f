/*
 * The nfs backend's cache of checked names (NFSv3, nfs_ops.c's check): what
 * a LOOKUP of each component answered, a directory (with its file handle)
 * or something else that is no symlink, kept as a tree of entries keyed by
 * (parent entry, name).  No libnfs here: the unit tests run it alone.
 */
#include "replay/backends/nfs_int.h"

#include "formats/hash.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a (formats/hash.h) of the parent's index, little-endian, and the name, folded to 32 bits. */
static uint32_t name_hash(uint32_t parent, const char *name, size_t len)
{
	const uint8_t p[4] = { (uint8_t)parent, (uint8_t)(parent >> 8), (uint8_t)(parent >> 16), (uint8_t)(parent >> 24) };
	const uint64_t h = rp_fnv1a64(rp_fnv1a64(RP_FNV64_OFFSET, p, sizeof(p)), name, len);
	return (uint32_t)(h ^ (h >> 32));
}

void rp__nfs_names_init(rp_nfs_names *n, uint32_t max)
{
	memset(n, 0, sizeof(*n));
	n->max = max ? max : RP_NFS_NAMES_MAX;
}

void rp__nfs_names_reset(rp_nfs_names *n)
{
	for (uint32_t i = 0; i < n->n; i++)
		free(n->nodes[i].name);
	n->n = 0;
	if (n->index)
		memset(n->index, 0xff, (size_t)n->slots * sizeof(*n->index));
	n->used = n->live = 0;
	n->epoch++;
	n->resets++;
}

void rp__nfs_names_fini(rp_nfs_names *n)
{
	rp__nfs_names_reset(n);
	free(n->nodes);
	free(n->index);
	memset(n, 0, sizeof(*n));
}

uint32_t rp__nfs_names_find(const rp_nfs_names *n, uint32_t parent, const char *name, size_t len)
{
	if (!n->slots)
		return RP_NFS_NAMES_NONE;
	const uint32_t h = name_hash(parent, name, len), mask = n->slots - 1;
	for (uint32_t s = h & mask;; s = (s + 1) & mask) {
		const uint32_t i = n->index[s];
		if (i == RP_NFS_NAMES_NONE)
			return RP_NFS_NAMES_NONE;
		const rp_nfs_name *const e = &n->nodes[i];
		if (!e->dead && e->hash == h && e->parent == parent && e->len == len && memcmp(e->name, name, len) == 0)
			return i;
	}
}

/* Room for one more entry in the index (at most half full): 0, or -1 without memory. */
static int index_room(rp_nfs_names *n)
{
	if ((uint64_t)(n->used + 1) * 2 <= n->slots)
		return 0;
	/* Dead entries are dropped below, so the live ones decide the size: a quarter full at most. */
	uint32_t slots = 64;
	while ((uint64_t)(n->live + 1) * 4 > slots)
		slots *= 2;
	uint32_t *const index = malloc((size_t)slots * sizeof(*index));
	if (!index)
		return -1;
	memset(index, 0xff, (size_t)slots * sizeof(*index));
	uint32_t used = 0;
	for (uint32_t i = 0; i < n->n; i++) {
		if (n->nodes[i].dead)
			continue;
		uint32_t s = n->nodes[i].hash & (slots - 1);
		while (index[s] != RP_NFS_NAMES_NONE)
			s = (s + 1) & (slots - 1);
		index[s] = i;
		used++;
	}
	free(n->index);
	n->index = index;
	n->slots = slots;
	n->used = used;
	return (uint64_t)(n->used + 1) * 2 <= n->slots ? 0 : -1;
}

uint32_t rp__nfs_names_add(rp_nfs_names *n, uint64_t epoch, uint32_t parent, const char *name, size_t len, int kind,
			   const void *fh, size_t fhlen)
{
	if (epoch != n->epoch || len == 0 || fhlen > RP_NFS_FH_MAX ||
	    (parent != RP_NFS_NAMES_ROOT && (parent >= n->n || n->nodes[parent].dead)))
		return RP_NFS_NAMES_NONE; /* the namespace changed since the LOOKUP was sent, or a parent is gone */
	const uint32_t old = rp__nfs_names_find(n, parent, name, len);
	if (old != RP_NFS_NAMES_NONE)
		return old;
	if (n->n >= n->max) {
		/* Full: start again (a bounded cache; what it forgot is looked up again), this name not kept. */
		rp__nfs_names_reset(n);
		return RP_NFS_NAMES_NONE;
	}
	if (n->n == n->cap) {
		const uint32_t cap = n->cap ? 2 * n->cap : 64;
		rp_nfs_name *const nodes = realloc(n->nodes, (size_t)(cap < n->max ? cap : n->max) * sizeof(*nodes));
		if (!nodes)
			return RP_NFS_NAMES_NONE;
		n->nodes = nodes;
		n->cap = cap < n->max ? cap : n->max;
	}
	if (index_room(n) < 0)
		return RP_NFS_NAMES_NONE;
	char *const copy = malloc(len + 1);
	if (!copy)
		return RP_NFS_NAMES_NONE;
	memcpy(copy, name, len);
	copy[len] = '\0';
	const uint32_t i = n->n++;
	rp_nfs_name *const e = &n->nodes[i];
	*e = (rp_nfs_name){ .name = copy, .len = (uint32_t)len, .parent = parent, .hash = name_hash(parent, name, len),
			    .kind = (uint8_t)kind, .fhlen = (uint8_t)fhlen };
	if (fhlen)
		memcpy(e->fh, fh, fhlen);
	uint32_t s = e->hash & (n->slots - 1);
	while (n->index[s] != RP_NFS_NAMES_NONE)
		s = (s + 1) & (n->slots - 1);
	n->index[s] = i;
	n->used++;
	n->live++;
	return i;
}

uint32_t rp__nfs_names_walk(const rp_nfs_names *n, const char *path)
{
	uint32_t at = RP_NFS_NAMES_ROOT;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		const size_t len = strcspn(p, "/");
		if (len == 0)
			break; /* a trailing '/' */
		at = rp__nfs_names_find(n, at, p, len);
		if (at == RP_NFS_NAMES_NONE)
			return at;
		p += len;
	}
	return at;
}

void rp__nfs_names_forget(rp_nfs_names *n, const char *path)
{
	/* Any change invalidates the LOOKUPs in flight: they may have seen the old name. */
	n->epoch++;
	const uint32_t at = rp__nfs_names_walk(n, path);
	/* Not cached: nothing beneath it is reachable either. */
	if (at == RP_NFS_NAMES_NONE || at == RP_NFS_NAMES_ROOT)
		return;
	/*
	 * Dead: what is beneath it names it as parent by index, and a new entry
	 * for the name gets a new index, so the subtree is unreachable now.
	 */
	n->nodes[at].dead = 1;
	n->live--;
}
