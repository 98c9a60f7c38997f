/* Per-client handle table: linear probing with tombstones, rehash at 70 % load. */
#include "replay/handles.h"

#include <stdlib.h>

#include "formats/error.h"


void rp__handles_init(rp_handles *t)
{
	t->keys = t->vals = NULL;
	t->cap = t->used = t->live = t->scan = 0;
}

void rp__handles_fini(rp_handles *t)
{
	free(t->keys);
	free(t->vals);
	rp__handles_init(t);
}

static size_t find(const rp_handles *t, uint64_t key)
{
	size_t i = rp__handles_slot(key, t->cap);
	for (;;) {
		if (t->keys[i] == key || t->keys[i] == 0)
			return i;
		i = (i + 1) & (t->cap - 1);
	}
}

static int grow(rp_handles *t)
{
	const size_t cap = t->live * 2 >= t->cap / 2 ? (t->cap ? t->cap * 2 : 64) : t->cap;
	uint64_t *const keys = calloc(cap, sizeof(*keys));
	uint64_t *const vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return RP_E_NOMEM;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (t->keys[i] == 0 || t->keys[i] == RP__HANDLE_TOMB)
			continue;
		size_t j = rp__handles_slot(t->keys[i], cap);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = t->keys[i];
		vals[j] = t->vals[i];
	}
	free(t->keys);
	free(t->vals);
	t->keys = keys;
	t->vals = vals;
	t->cap = cap;
	t->used = t->live;
	return 0;
}

int rp__handles_put(rp_handles *t, uint64_t key, uint64_t val)
{
	if (key == 0 || key == RP__HANDLE_TOMB)
		return RP_E_INVAL;
	if ((t->used + 1) * 10 > t->cap * 7) {
		const int rc = grow(t);
		if (rc < 0)
			return rc;
	}
	/* Reuse the first tombstone on the probe path if the key is absent. */
	size_t i = rp__handles_slot(key, t->cap), tomb = SIZE_MAX;
	for (;;) {
		if (t->keys[i] == key) {
			t->vals[i] = val;
			return 0;
		}
		if (t->keys[i] == RP__HANDLE_TOMB && tomb == SIZE_MAX)
			tomb = i;
		if (t->keys[i] == 0)
			break;
		i = (i + 1) & (t->cap - 1);
	}
	if (tomb != SIZE_MAX)
		i = tomb;
	else
		t->used++;
	t->keys[i] = key;
	t->vals[i] = val;
	t->live++;
	return 0;
}

int rp__handles_del(rp_handles *t, uint64_t key, uint64_t *val)
{
	if (t->cap == 0 || key == 0 || key == RP__HANDLE_TOMB)
		return 0;
	const size_t i = find(t, key);
	if (t->keys[i] != key)
		return 0;
	*val = t->vals[i];
	t->keys[i] = RP__HANDLE_TOMB;
	t->live--;
	return 1;
}

int rp__handles_pop(rp_handles *t, uint64_t *key, uint64_t *val)
{
	/* Resume where the last pop stopped, so draining the table is linear, not quadratic. */
	for (size_t n = 0; t->live && n < t->cap; n++) {
		const size_t i = (t->scan + n) & (t->cap - 1);
		if (t->keys[i] == 0 || t->keys[i] == RP__HANDLE_TOMB)
			continue;
		t->scan = i + 1;
		*key = t->keys[i];
		*val = t->vals[i];
		t->keys[i] = RP__HANDLE_TOMB;
		t->live--;
		return 1;
	}
	return 0;
}
