/* String interning: an arena of NUL-terminated strings and an open-addressing index. */
#include "formats/strtab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "formats/error.h"

struct rp_strtab {
	char *arena; /* strings back to back, each followed by a NUL */
	size_t arena_len, arena_cap;
	uint32_t *len;   /* len[id] */
	size_t *off;     /* off[id] */
	uint32_t count;  /* ids 1..count are in use */
	uint32_t cap;    /* room in off/len, index 0 unused */
	uint64_t *slots; /* hash index: 0 = empty, else id | the hash's top 32 bits << 32 */
	uint32_t n_slots; /* power of two, or 0 before the first intern */
	uint64_t key[2];  /* per-table hash key */
};

__extension__ typedef unsigned __int128 u128;

/* 64x64 -> 128-bit multiply folded to 64 bits: every input bit reaches every output bit. */
static inline uint64_t fold(uint64_t a, uint64_t b)
{
	const u128 m = (u128)a * b;
	return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/*
 * Strings come from untrusted input (captures, traces), so the hash is keyed
 * per table with random bits: nobody can pick names that all land in one
 * probe run.  Ids do not depend on the hash, so output stays deterministic.
 * Eight bytes per step; the length goes into the start state so zero-padded
 * tails of different lengths differ.
 */
static uint64_t hash_bytes(const rp_strtab *t, const char *s, uint32_t len)
{
	uint64_t h = t->key[0] ^ ((uint64_t)len * 0x9e3779b97f4a7c15ull);
	uint32_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = fold(w ^ t->key[1], h ^ 0xa0761d6478bd642full);
	}
	if (i < len) {
		uint64_t w = 0;
		memcpy(&w, s + i, len - i);
		h = fold(w ^ t->key[1], h ^ 0xe7037ed1a0b428dbull);
	}
	return fold(h ^ t->key[0], 0x8ebc6af09c88c6e3ull);
}

rp_strtab *rp_strtab_create(void)
{
	rp_strtab *const t = calloc(1, sizeof(rp_strtab));
	if (!t)
		return NULL;
	if (getrandom(t->key, sizeof(t->key), GRND_NONBLOCK) != (ssize_t)sizeof(t->key)) {
		/* No entropy yet (early boot): the addresses of this table and of the code still vary per run. */
		t->key[0] = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull;
		t->key[1] = (uint64_t)(uintptr_t)&rp_strtab_create * 0xc2b2ae3d27d4eb4full;
	}
	t->key[1] |= 1; /* never zero: a zero key would let one crafted word reset the state */
	return t;
}

void rp_strtab_destroy(rp_strtab *t)
{
	if (!t)
		return;
	free(t->arena);
	free(t->len);
	free(t->off);
	free(t->slots);
	free(t);
}

void rp_strtab_clear(rp_strtab *t)
{
	t->arena_len = 0;
	t->count = 0;
	if (t->slots)
		memset(t->slots, 0, (size_t)t->n_slots * sizeof(*t->slots));
}

uint32_t rp_strtab_count(const rp_strtab *t)
{
	return t->count;
}

const char *rp_strtab_get(const rp_strtab *t, uint32_t id, uint32_t *len)
{
	if (id == 0 || id > t->count)
		return NULL;
	if (len)
		*len = t->len[id];
	return t->arena + t->off[id];
}

static int grow_ids(rp_strtab *t)
{
	const uint32_t cap = t->cap ? t->cap * 2 : 256;
	if (cap <= t->cap)
		return RP_E_LIMIT;
	size_t *const off = realloc(t->off, (size_t)cap * sizeof(*off));
	if (!off)
		return RP_E_NOMEM;
	t->off = off;
	uint32_t *const len = realloc(t->len, (size_t)cap * sizeof(*len));
	if (!len)
		return RP_E_NOMEM;
	t->len = len;
	t->cap = cap;
	return 0;
}

static int64_t add(rp_strtab *t, const char *str, uint32_t len)
{
	if (len > RP_STR_MAX)
		return RP_E_LIMIT;
	if (t->count + 1 >= t->cap) {
		const int rc = grow_ids(t);
		if (rc < 0)
			return rc;
	}
	if (t->arena_len + len + 1 > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap : 4096;
		while (cap < t->arena_len + len + 1)
			cap *= 2;
		char *const a = realloc(t->arena, cap);
		if (!a)
			return RP_E_NOMEM;
		t->arena = a;
		t->arena_cap = cap;
	}
	const uint32_t id = ++t->count;
	t->off[id] = t->arena_len;
	t->len[id] = len;
	if (len)
		memcpy(t->arena + t->arena_len, str, len);
	t->arena[t->arena_len + len] = '\0';
	t->arena_len += len + 1;
	return id;
}

static inline uint64_t slot_of(uint64_t h, uint32_t id)
{
	return (h & 0xffffffff00000000ull) | id;
}

static void index_put(uint64_t *slots, uint32_t n_slots, uint64_t h, uint32_t id)
{
	uint32_t i = (uint32_t)h & (n_slots - 1);
	while (slots[i])
		i = (i + 1) & (n_slots - 1);
	slots[i] = slot_of(h, id);
}

/* Under three quarters full with one more id: every probe run ends at an empty slot. */
static inline int roomy(uint32_t count, uint32_t n_slots)
{
	return (uint64_t)(count + 1) * 4 < (uint64_t)n_slots * 3;
}

/*
 * Sized for every id already there, not by doubling alone: a reader's
 * appends build no index, so the first intern may find thousands of strings
 * (convert --prepare after a trace's own table), and 1,024 slots for 1,100
 * ids was a full table whose insert never found an empty slot.
 */
static int rehash(rp_strtab *t)
{
	uint32_t n = t->n_slots ? t->n_slots * 2 : 1024;
	while (n > t->n_slots && !roomy(t->count, n))
		n *= 2;
	if (n <= t->n_slots)
		return RP_E_LIMIT;
	uint64_t *const slots = calloc(n, sizeof(*slots));
	if (!slots)
		return RP_E_NOMEM;
	for (uint32_t id = 1; id <= t->count; id++)
		index_put(slots, n, hash_bytes(t, t->arena + t->off[id], t->len[id]), id);
	free(t->slots);
	t->slots = slots;
	t->n_slots = n;
	return 0;
}

int64_t rp_strtab_append(rp_strtab *t, const char *str, uint32_t len)
{
	/* Keep the index true if this table is also interned into; a duplicate
	 * then has two ids and intern() finds the first. */
	if (t->n_slots && !roomy(t->count, t->n_slots)) {
		const int rc = rehash(t);
		if (rc < 0)
			return rc;
	}
	const int64_t id = add(t, str, len);
	if (id > 0 && t->n_slots)
		index_put(t->slots, t->n_slots, hash_bytes(t, str, len), (uint32_t)id);
	return id;
}

int64_t rp_strtab_intern(rp_strtab *t, const char *str, uint32_t len, int *added)
{
	if (added)
		*added = 0;
	if (len > RP_STR_MAX)
		return RP_E_LIMIT;
	if (!roomy(t->count, t->n_slots)) {
		const int rc = rehash(t);
		if (rc < 0)
			return rc;
	}
	const uint64_t h = hash_bytes(t, str, len);
	const uint64_t tag = h & 0xffffffff00000000ull;
	uint32_t i = (uint32_t)h & (t->n_slots - 1);
	for (uint64_t v; (v = t->slots[i]) != 0; i = (i + 1) & (t->n_slots - 1)) {
		const uint32_t id = (uint32_t)v;
		/* the tag spares the string compare (and its cache misses) for almost every other string */
		if ((v & 0xffffffff00000000ull) == tag && t->len[id] == len &&
		    memcmp(t->arena + t->off[id], str, len) == 0)
			return id;
	}
	const int64_t id = add(t, str, len);
	if (id < 0)
		return id;
	t->slots[i] = slot_of(h, (uint32_t)id);
	if (added)
		*added = 1;
	return id;
}
