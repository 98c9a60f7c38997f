/* String interning: an arena of NUL-terminated strings and an open-addressing index. */
#include "formats/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "formats/error.h"

struct rp_strtab {
	char *arena; /* strings back to back, each followed by a NUL */
	size_t arena_len, arena_cap;
	uint32_t *len;   /* len[id] */
	size_t *off;     /* off[id] */
	uint32_t count;  /* ids 1..count are in use */
	uint32_t cap;    /* room in off/len, index 0 unused */
	uint32_t *slots; /* hash index: 0 = empty, else id */
	uint32_t n_slots; /* power of two, or 0 before the first intern */
};

static uint64_t hash_bytes(const char *s, uint32_t len)
{
	/* FNV-1a, 64-bit: paths are short and this is not adversarial-critical
	 * because the table grows and probes linearly with no worst-case cliff
	 * beyond what the input itself costs to read. */
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

rp_strtab *rp_strtab_create(void)
{
	return calloc(1, sizeof(rp_strtab));
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

static void index_put(uint32_t *slots, uint32_t n_slots, uint64_t h, uint32_t id)
{
	uint32_t i = (uint32_t)h & (n_slots - 1);
	while (slots[i])
		i = (i + 1) & (n_slots - 1);
	slots[i] = id;
}

static int rehash(rp_strtab *t)
{
	const uint32_t n = t->n_slots ? t->n_slots * 2 : 1024;
	if (n <= t->n_slots)
		return RP_E_LIMIT;
	uint32_t *const slots = calloc(n, sizeof(*slots));
	if (!slots)
		return RP_E_NOMEM;
	for (uint32_t id = 1; id <= t->count; id++)
		index_put(slots, n, hash_bytes(t->arena + t->off[id], t->len[id]), id);
	free(t->slots);
	t->slots = slots;
	t->n_slots = n;
	return 0;
}

int64_t rp_strtab_append(rp_strtab *t, const char *str, uint32_t len)
{
	/* Keep the index true if this table is also interned into; a duplicate
	 * then has two ids and intern() finds the first. */
	if (t->n_slots && (uint64_t)(t->count + 1) * 4 >= (uint64_t)t->n_slots * 3) {
		const int rc = rehash(t);
		if (rc < 0)
			return rc;
	}
	const int64_t id = add(t, str, len);
	if (id > 0 && t->n_slots)
		index_put(t->slots, t->n_slots, hash_bytes(str, len), (uint32_t)id);
	return id;
}

int64_t rp_strtab_intern(rp_strtab *t, const char *str, uint32_t len, int *added)
{
	if (added)
		*added = 0;
	if (len > RP_STR_MAX)
		return RP_E_LIMIT;
	if ((uint64_t)(t->count + 1) * 4 >= (uint64_t)t->n_slots * 3) {
		const int rc = rehash(t);
		if (rc < 0)
			return rc;
	}
	const uint64_t h = hash_bytes(str, len);
	uint32_t i = (uint32_t)h & (t->n_slots - 1);
	for (; t->slots[i]; i = (i + 1) & (t->n_slots - 1)) {
		const uint32_t id = t->slots[i];
		if (t->len[id] == len && memcmp(t->arena + t->off[id], str, len) == 0)
			return id;
	}
	const int64_t id = add(t, str, len);
	if (id < 0)
		return id;
	t->slots[i] = (uint32_t)id;
	if (added)
		*added = 1;
	return id;
}
