/* Open-addressing hash map with 24-byte keys used by the SMB decoders' tables. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "capture/smb/smb_int.h"

struct rp_smb_map {
	uint64_t seed[2]; /* per-map hash key */
	size_t value_size;
	void (*vfree)(void *value);
	size_t cap; /* a power of two, or 0 */
	size_t count;
	smb_key *keys;
	uint8_t *used;
	uint8_t *values;
};

__extension__ typedef unsigned __int128 u128;

/*
 * MessageIds, FileIds and FIDs come from the capture, so the hash is keyed
 * per map with random bits (crafted ids cannot fill one probe run), and one
 * folded 64x64-bit multiply spreads nearby ids over the table.
 */
static inline size_t hash(const rp_smb_map *m, const smb_key *k)
{
	const u128 x = (u128)(k->a ^ m->seed[0]) * (k->b ^ (k->c * 0x9e3779b97f4a7c15ULL) ^ m->seed[1]);
	return (size_t)((uint64_t)x ^ (uint64_t)(x >> 64));
}

static bool key_eq(const smb_key *x, const smb_key *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

rp_smb_map *rp__smb_map_create(size_t value_size, void (*vfree)(void *value))
{
	rp_smb_map *const m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->value_size = value_size;
	m->vfree = vfree;
	if (getrandom(m->seed, sizeof m->seed, GRND_NONBLOCK) != (ssize_t)sizeof m->seed) {
		m->seed[0] = (uint64_t)(uintptr_t)m * 0xff51afd7ed558ccdULL; /* no entropy yet: the address varies */
		m->seed[1] = (uint64_t)(uintptr_t)&rp__smb_map_create * 0xc4ceb9fe1a85ec53ULL;
	}
	m->seed[1] |= 1;
	return m;
}

void rp__smb_map_destroy(rp_smb_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i] && m->vfree)
			m->vfree(m->values + i * m->value_size);
	free(m->keys);
	free(m->used);
	free(m->values);
	free(m);
}

static size_t find(const rp_smb_map *m, const smb_key *k, bool *found)
{
	const size_t mask = m->cap - 1;
	size_t i = hash(m, k) & mask;
	while (m->used[i]) {
		if (key_eq(&m->keys[i], k)) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
	*found = false;
	return i;
}

void *rp__smb_map_get(const rp_smb_map *m, const smb_key *k)
{
	if (!m || m->count == 0)
		return NULL;
	bool found;
	const size_t i = find(m, k, &found);
	return found ? m->values + i * m->value_size : NULL;
}

static bool grow(rp_smb_map *m)
{
	const size_t ncap = m->cap ? m->cap * 2 : 16;
	smb_key *const keys = calloc(ncap, sizeof *keys);
	uint8_t *const used = calloc(ncap, 1);
	uint8_t *const values = calloc(ncap, m->value_size);
	if (!keys || !used || !values) {
		free(keys);
		free(used);
		free(values);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = hash(m, &m->keys[i]) & (ncap - 1);
		while (used[j])
			j = (j + 1) & (ncap - 1);
		used[j] = 1;
		keys[j] = m->keys[i];
		memcpy(values + j * m->value_size, m->values + i * m->value_size, m->value_size);
	}
	free(m->keys);
	free(m->used);
	free(m->values);
	m->keys = keys;
	m->used = used;
	m->values = values;
	m->cap = ncap;
	return true;
}

void *rp__smb_map_put(rp_smb_map *m, const smb_key *k, bool *fresh)
{
	bool found = false;
	size_t i = m->cap ? find(m, k, &found) : 0;
	if (found) {
		if (fresh)
			*fresh = false;
		return m->values + i * m->value_size;
	}
	/* keep the load under 1/2 so probe runs stay short */
	if ((m->count + 1) * 2 > m->cap) {
		if (!grow(m))
			return NULL;
		i = find(m, k, &found);
	}
	m->used[i] = 1;
	m->keys[i] = *k;
	memset(m->values + i * m->value_size, 0, m->value_size);
	m->count++;
	if (fresh)
		*fresh = true;
	return m->values + i * m->value_size;
}

/* Remove slot i: backward-shift deletion, no tombstones, probe chains stay intact. */
static void remove_at(rp_smb_map *m, size_t i)
{
	if (m->vfree)
		m->vfree(m->values + i * m->value_size);
	const size_t mask = m->cap - 1;
	size_t j = i;
	for (;;) {
		m->used[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!m->used[j])
				goto done;
			const size_t home = hash(m, &m->keys[j]) & mask;
			/* j may move to i only if its home is not in (i, j] cyclically */
			const bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
			if (!between)
				break;
		}
		m->keys[i] = m->keys[j];
		memcpy(m->values + i * m->value_size, m->values + j * m->value_size, m->value_size);
		m->used[i] = 1;
		i = j;
	}
done:
	m->count--;
}

void rp__smb_map_del(rp_smb_map *m, const smb_key *k)
{
	if (!m || m->count == 0)
		return;
	bool found;
	const size_t i = find(m, k, &found);
	if (found)
		remove_at(m, i);
}

void rp__smb_map_del_value(rp_smb_map *m, void *value)
{
	const size_t i = (size_t)((uint8_t *)value - m->values) / m->value_size;
	if (i < m->cap && m->used[i])
		remove_at(m, i);
}

size_t rp__smb_map_count(const rp_smb_map *m)
{
	return m ? m->count : 0;
}

void *rp__smb_map_next(const rp_smb_map *m, size_t *pos, smb_key *key)
{
	if (!m)
		return NULL;
	for (size_t i = *pos; i < m->cap; i++) {
		if (m->used[i]) {
			*pos = i + 1;
			if (key)
				*key = m->keys[i];
			return m->values + i * m->value_size;
		}
	}
	*pos = m->cap;
	return NULL;
}
