/* Per-client handle table: trace handle id -> backend handle (open addressing, grows, no fixed limit). */
#ifndef REPRISE_REPLAY_HANDLES_H
#define REPRISE_REPLAY_HANDLES_H

#include <stddef.h>
#include <stdint.h>

typedef struct rp_handles {
	uint64_t *keys; /* 0 = empty slot, RP__HANDLE_TOMB = deleted; trace id 0 means "no handle" */
	uint64_t *vals;
	size_t cap;     /* power of two */
	size_t used;    /* live + tombstones */
	size_t live;
	size_t scan;    /* where rp__handles_pop resumes */
} rp_handles;

#define RP__HANDLE_TOMB UINT64_MAX

void rp__handles_init(rp_handles *t);
void rp__handles_fini(rp_handles *t);
static inline size_t rp__handles_slot(uint64_t key, size_t cap)
{
	/* Fibonacci hashing: trace handle ids are often small and sequential. */
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

/* 1 and *val if present, else 0.  Inline: the replay loop looks a handle up for most ops. */
static inline int rp__handles_get(const rp_handles *t, uint64_t key, uint64_t *val)
{
	if (t->cap == 0 || key == 0 || key == RP__HANDLE_TOMB)
		return 0;
	for (size_t i = rp__handles_slot(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->keys[i] == key) {
			*val = t->vals[i];
			return 1;
		}
		if (t->keys[i] == 0)
			return 0;
	}
}
/* Insert or replace; 0 or RP_E_NOMEM.  Keys 0 and UINT64_MAX are not storable (RP_E_INVAL). */
int rp__handles_put(rp_handles *t, uint64_t key, uint64_t val);
/* 1 and *val if it was present (and is now removed), else 0. */
int rp__handles_del(rp_handles *t, uint64_t key, uint64_t *val);
/* Remove and return any one entry: 1, or 0 when empty (for closing everything). */
int rp__handles_pop(rp_handles *t, uint64_t *key, uint64_t *val);

#endif
