/* Per-capture NFSv4 state: stateid -> trace handle, open handles per file, known directories (RFC 8881 §8.2). */
#include <stdlib.h>
#include <string.h>

#include "capture/rpc/nfs4_int.h"
#include "formats/hash.h"

/*
 * One open-addressing table with 16-byte keys serves three maps, told apart
 * by the key's first byte: 'S' + stateid.other (a stateid's seqid changes
 * with every use; `other` names the state), 'O' + path id (the newest open
 * handle of a file, for COMMIT and special stateids), 'D' + path id (a
 * directory), 'L' + a 120-bit hash of a pNFS data-server handle (the file it
 * stands for).  Stateids whose CLOSE we never see would make it grow without
 * end, so past MAX_ENTRIES it starts again empty: later I/O on a forgotten
 * stateid gets a fresh handle, which replay opens lazily.
 */
#define MAX_ENTRIES (1u << 20)

typedef struct entry {
	uint8_t key[16];
	uint8_t used; /* 0 empty, 1 live, 2 deleted */
	uint32_t path;
	uint64_t handle;
} entry;

struct nfs4_state {
	entry *tab;
	size_t cap; /* a power of two */
	size_t live, used; /* live entries; live + deleted */
};

static const int state_key;

static void *state_create(void)
{
	nfs4_state *const st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->cap = 256;
	st->tab = calloc(st->cap, sizeof(entry));
	if (!st->tab) {
		free(st);
		return NULL;
	}
	return st;
}

static void state_destroy(void *p)
{
	nfs4_state *const st = p;
	if (st)
		free(st->tab);
	free(st);
}

nfs4_state *rp__nfs4_state(rp_capctx *cx)
{
	return rp__cap_state(cx, &state_key, state_create, state_destroy);
}

static uint64_t hash(const uint8_t *k)
{
	const uint64_t h = rp_fnv1a64(RP_FNV64_OFFSET, k, 16);
	return h ^ (h >> 31);
}

static entry *find(const nfs4_state *st, const uint8_t *key)
{
	const size_t mask = st->cap - 1;
	for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
		entry *const e = &st->tab[i];
		if (e->used == 0)
			return NULL;
		if (e->used == 1 && memcmp(e->key, key, 16) == 0)
			return e;
	}
}

static void insert_raw(entry *tab, size_t cap, const entry *src)
{
	const size_t mask = cap - 1;
	size_t i = hash(src->key) & mask;
	while (tab[i].used)
		i = (i + 1) & mask;
	tab[i] = *src;
}

/* Make room for one more entry: rehash (dropping deleted ones), growing when needed. */
static bool reserve(nfs4_state *st)
{
	if ((st->used + 1) * 4 < st->cap * 3)
		return true;
	size_t cap = st->cap;
	if (st->live >= MAX_ENTRIES) {
		memset(st->tab, 0, st->cap * sizeof(entry));
		st->live = st->used = 0;
		return true;
	}
	if ((st->live + 1) * 2 >= cap)
		cap *= 2;
	entry *const tab = calloc(cap, sizeof(entry));
	if (!tab)
		return false;
	for (size_t i = 0; i < st->cap; i++)
		if (st->tab[i].used == 1)
			insert_raw(tab, cap, &st->tab[i]);
	free(st->tab);
	st->tab = tab;
	st->cap = cap;
	st->used = st->live;
	return true;
}

static void put(nfs4_state *st, const uint8_t *key, uint64_t handle, uint32_t path)
{
	if (!st)
		return;
	entry *e = find(st, key);
	if (!e) {
		if (!reserve(st))
			return;
		entry fresh;
		memset(&fresh, 0, sizeof(fresh));
		memcpy(fresh.key, key, 16);
		fresh.used = 1;
		insert_raw(st->tab, st->cap, &fresh);
		st->live++;
		st->used++;
		e = find(st, key);
	}
	e->handle = handle;
	e->path = path;
}

static void del(nfs4_state *st, const uint8_t *key)
{
	entry *const e = st ? find(st, key) : NULL;
	if (e) {
		e->used = 2;
		st->live--;
	}
}

static void sid_key(uint8_t *k, const nfs4_stateid *sid)
{
	memset(k, 0, 16);
	k[0] = 'S';
	memcpy(k + 1, sid->other, sizeof(sid->other));
}

static void path_key(uint8_t *k, char kind, uint32_t path)
{
	memset(k, 0, 16);
	k[0] = (uint8_t)kind;
	memcpy(k + 1, &path, sizeof(path));
}

uint64_t rp__nfs4_sid_get(nfs4_state *st, const nfs4_stateid *sid, uint32_t *path)
{
	uint8_t k[16];
	sid_key(k, sid);
	const entry *const e = st ? find(st, k) : NULL;
	if (path)
		*path = e ? e->path : 0;
	return e ? e->handle : 0;
}

void rp__nfs4_sid_put(nfs4_state *st, const nfs4_stateid *sid, uint64_t handle, uint32_t path)
{
	uint8_t k[16];
	sid_key(k, sid);
	put(st, k, handle, path);
}

void rp__nfs4_sid_forget(nfs4_state *st, const nfs4_stateid *sid)
{
	uint8_t k[16];
	sid_key(k, sid);
	del(st, k);
}

uint64_t rp__nfs4_open_get(nfs4_state *st, uint32_t path)
{
	uint8_t k[16];
	path_key(k, 'O', path);
	const entry *const e = st && path ? find(st, k) : NULL;
	return e ? e->handle : 0;
}

void rp__nfs4_open_put(nfs4_state *st, uint32_t path, uint64_t handle)
{
	uint8_t k[16];
	path_key(k, 'O', path);
	if (path)
		put(st, k, handle, path);
}

void rp__nfs4_open_forget(nfs4_state *st, uint32_t path, uint64_t handle)
{
	if (rp__nfs4_open_get(st, path) == handle) {
		uint8_t k[16];
		path_key(k, 'O', path);
		del(st, k);
	}
}

bool rp__nfs4_is_dir(nfs4_state *st, uint32_t path)
{
	uint8_t k[16];
	path_key(k, 'D', path);
	return st && path && find(st, k);
}

void rp__nfs4_set_dir(nfs4_state *st, uint32_t path, bool dir)
{
	uint8_t k[16];
	path_key(k, 'D', path);
	if (!path)
		return;
	if (dir)
		put(st, k, 0, path);
	else
		del(st, k);
}

static void alias_key(uint8_t *k, const uint8_t *fh, size_t len)
{
	const uint64_t h1 = rp_fnv1a64(RP_FNV64_OFFSET, fh, len);
	uint64_t h2 = RP_FNV64_OFFSET_SWAPPED ^ len; /* FNV-1a again, over the bytes backwards */
	for (size_t i = 0; i < len; i++)
		h2 = (h2 ^ fh[len - 1 - i]) * RP_FNV64_PRIME;
	k[0] = 'L';
	memcpy(k + 1, &h1, 8);
	memcpy(k + 9, &h2, 7);
}

uint32_t rp__nfs4_alias_get(nfs4_state *st, const uint8_t *fh, size_t len)
{
	uint8_t k[16];
	alias_key(k, fh, len);
	const entry *const e = st ? find(st, k) : NULL;
	return e ? e->path : 0;
}

void rp__nfs4_alias_put(nfs4_state *st, const uint8_t *fh, size_t len, uint32_t path)
{
	uint8_t k[16];
	alias_key(k, fh, len);
	if (path)
		put(st, k, 0, path);
}
