/* .rpz pattern layer: the op history and the writer's repeat finder (docs/rpz-format.md §4.4). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "formats/rpz_internal.h"

/* ---- history ring ------------------------------------------------------- */

int rp__rpz_hist_grow(rpz_hist *h)
{
	/* Grows while the ring has not wrapped, so op a sits at a & (cap - 1) throughout;
	 * it stops at the first power of two above the window (a repeat reaches back at most window ops,
	 * and the op before its source, for time deltas, must still be there). */
	uint64_t full = 1;
	while (full <= h->window)
		full <<= 1;
	if (h->cap >= full)
		return 0;
	/* Small streams (most tests, short captures) grow by doubling from 1 Ki ops.  Past 64 Ki
	 * ops the whole ring comes at once, which costs address space only: pages are touched (and
	 * become memory) as ops arrive, in whole huge pages, asked for as such: a ring of 2^19 ops
	 * is 80 MiB, and faulting it in 4 KiB pages costs a reader more than decoding a pass of
	 * client.txt does. */
	const uint64_t want = !h->cap ? (full < 1024 ? full : 1024) : h->cap < 65536 ? h->cap * 2 : full;
	rp_op *p;
	if (want <= 65536) {
		p = realloc(h->ops, (size_t)want * sizeof(*p));
		if (!p)
			return RP_E_NOMEM;
	} else {
		const size_t huge = (size_t)2 << 20;
		const size_t bytes = ((size_t)want * sizeof(rp_op) + huge - 1) / huge * huge;
		p = aligned_alloc(huge, bytes);
		if (!p)
			return RP_E_NOMEM;
#ifdef MADV_HUGEPAGE
		(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
		memcpy(p, h->ops, (size_t)h->cap * sizeof(*p)); /* not wrapped yet: op a is at a */
		free(h->ops);
	}
	h->ops = p;
	h->cap = want;
	return 0;
}

void rp__rpz_hist_fini(rpz_hist *h)
{
	free(h->ops);
	h->ops = NULL;
	h->cap = h->n = 0;
}

/* ---- repeat finder -------------------------------------------------------- */

int rp__rpz_match_init(rpz_match *m, uint32_t bits)
{
	memset(m, 0, sizeof(*m));
	if (bits < RPZ_TABLE_BITS_MIN || bits > RPZ_TABLE_BITS_MAX)
		return RP_E_RANGE;
	/* The table starts small and grows with the stream (rp__rpz_match_frame): a short capture
	 * would otherwise pay for faulting in 2^bits slots touched at random. */
	const uint32_t start = bits < RPZ_TABLE_BITS_START ? bits : RPZ_TABLE_BITS_START;
	m->slots = calloc((size_t)1 << start, sizeof(*m->slots));
	if (!m->slots)
		return RP_E_NOMEM;
	m->bits = start;
	m->bits_max = bits;
	return 0;
}

void rp__rpz_match_fini(rpz_match *m)
{
	free(m->slots);
	free(m->sig);
	free(m->clients);
	memset(m, 0, sizeof(*m));
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0xff51afd7ed558ccdull;
}

/* Everything a repeat copies unchanged: not the times, and of the handles only whether they are set. */
static uint64_t signature(const rp_op *o)
{
	uint64_t a = 0x9e3779b97f4a7c15ull, b = 0xc2b2ae3d27d4eb4full;
	a = mix(a, (uint64_t)o->op | (uint64_t)o->flags << 16 | (uint64_t)o->status_kind << 32 |
			   (uint64_t)o->disp << 40 | (uint64_t)o->proto << 48 | (uint64_t)(o->t_end == RP_TIME_UNKNOWN) << 56 |
			   (uint64_t)(o->handle != 0) << 57 | (uint64_t)(o->handle2 != 0) << 58);
	b = mix(b, (uint64_t)o->client << 32 | o->path);
	a = mix(a, (uint64_t)o->path2 << 32 | (uint32_t)o->status);
	b = mix(b, o->offset);
	a = mix(a, o->length);
	b = mix(b, o->result);
	a = mix(a, o->offset2 ^ (o->atime << 1) ^ (o->mtime << 2));
	b = mix(b, (uint64_t)o->want << 32 | o->oflags);
	a = mix(a, (uint64_t)o->attrs << 32 | o->mode);
	b = mix(b, (uint64_t)o->uid << 32 | o->gid);
	a = mix(a, (uint64_t)o->proto_status << 32 | o->raw.access);
	b = mix(b, (uint64_t)o->raw.disposition << 32 | o->raw.options);
	a = mix(a, o->raw.level);
	return a ^ (b >> 29) ^ (b << 35);
}

/* The key of RPZ_MATCH_KEY consecutive ops, from their signatures. */
static uint64_t key_of(const uint64_t sig[RPZ_MATCH_KEY])
{
	uint64_t key = 0x165667b19e3779f9ull;
	for (int k = 0; k < RPZ_MATCH_KEY; k++)
		key = mix(key, sig[k]);
	return key;
}

static uint64_t key_at(const rpz_hist *h, uint64_t a);

/*
 * A slot holds op number + 1 in its low SLOT_OP_BITS and, above, the low bits of the op's key
 * (the index takes the high ones), so a slot another key hashed to is told apart without
 * touching the op in the ring (a cache miss an op on a stream with few repeats).
 */
#define SLOT_OP_BITS 40
#define SLOT_OP ((UINT64_C(1) << SLOT_OP_BITS) - 1)
static inline uint64_t slot_value(uint64_t key, uint64_t op1)
{
	return key << SLOT_OP_BITS | op1;
}

/* A table of twice the slots, its entries moved by their keys (recomputed from the ring). */
static int grow_table(rpz_match *m, const rpz_hist *h, uint32_t bits)
{
	uint64_t *const p = calloc((size_t)1 << bits, sizeof(*p));
	if (!p)
		return RP_E_NOMEM;
	const size_t old = (size_t)1 << m->bits;
	for (size_t i = 0; i < old; i++) {
		const uint64_t v = m->slots[i] & SLOT_OP;
		/* an entry whose ops have left the ring cannot be a source any more */
		if (v == 0 || v - 1 + RPZ_MATCH_KEY > h->n || h->n - (v - 1) > h->window || h->n - (v - 1) > h->cap)
			continue;
		const uint64_t key = key_at(h, v - 1);
		uint64_t *const slot = &p[key >> (64 - bits)];
		if ((*slot & SLOT_OP) < v)
			*slot = slot_value(key, v);
	}
	free(m->slots);
	m->slots = p;
	m->bits = bits;
	return 0;
}

int rp__rpz_match_frame(rpz_match *m, const rpz_hist *h, const rp_op *ops, uint32_t n)
{
	/* about two slots per op of the stream so far, up to 2^bits_max */
	uint32_t want = m->bits;
	while (want < m->bits_max && ((uint64_t)1 << want) < 2 * (h->n + n))
		want++;
	if (want > m->bits && grow_table(m, h, want) < 0)
		return RP_E_NOMEM;
	if (n > m->cap_sig) {
		uint64_t *const p = realloc(m->sig, (size_t)n * sizeof(*p));
		if (!p)
			return RP_E_NOMEM;
		m->sig = p;
		m->cap_sig = n;
	}
	for (uint32_t i = 0; i < n; i++)
		m->sig[i] = signature(&ops[i]);
	/* each position's key in place (key i reads signatures i .. i + RPZ_MATCH_KEY - 1, so writing
	 * it over signature i leaves what key i + 1 needs) */
	for (uint32_t i = 0; i + RPZ_MATCH_KEY <= n; i++)
		m->sig[i] = key_of(m->sig + i);
	return 0;
}

/* The fields a repeat copies as they are (handles and times are checked by the caller). */
static inline bool same_fields(const rp_op *a, const rp_op *b)
{
	return a->op == b->op && a->flags == b->flags && a->status_kind == b->status_kind && a->status == b->status &&
	       a->proto_status == b->proto_status && a->proto == b->proto && a->client == b->client &&
	       a->path == b->path && a->path2 == b->path2 && a->offset == b->offset && a->length == b->length &&
	       a->result == b->result && a->offset2 == b->offset2 && a->atime == b->atime && a->mtime == b->mtime &&
	       a->want == b->want && a->disp == b->disp && a->oflags == b->oflags && a->attrs == b->attrs &&
	       a->mode == b->mode && a->uid == b->uid && a->gid == b->gid && a->raw.access == b->raw.access &&
	       a->raw.disposition == b->raw.disposition && a->raw.options == b->raw.options &&
	       a->raw.level == b->raw.level && (a->t_end == RP_TIME_UNKNOWN) == (b->t_end == RP_TIME_UNKNOWN);
}

/*
 * Whether op j of a repeat (co, copying so; cp and sp the ops before them) keeps
 * its source's times: it starts as long after the op before it as so did, and
 * lasts as long.
 */
static inline bool same_times(const rp_op *sp, const rp_op *so, const rp_op *cp, const rp_op *co, uint32_t j)
{
	if (j && co->t_start - cp->t_start != so->t_start - sp->t_start)
		return false;
	return co->t_end == RP_TIME_UNKNOWN || co->t_end - co->t_start == so->t_end - so->t_start;
}

/* A handle of a copied op: 0 stays 0, others move by the repeat's shift, set by the first one seen. */
static inline bool same_handle(uint64_t src, uint64_t cur, bool *dh_set, uint64_t *dh)
{
	if (!src)
		return cur == 0;
	if (!*dh_set) {
		*dh = cur - src;
		*dh_set = true;
	}
	return cur == src + *dh;
}

/*
 * The repeat of ops[i..n) whose source starts dist ops back (cur = h->n is op number of ops[i]).
 * When none is found because a copied field differs, *differs is the op number of the first op that
 * differs from its source dist back (a later start at the same distance up to it meets the same pair
 * under RPZ_MATCH_MIN ops in, so it fails too); else 0.
 */
static uint32_t extend(const rpz_hist *h, const rp_op *ops, uint32_t i, uint32_t n, uint64_t dist,
		       rpz_repeat *out, uint64_t *differs)
{
	*differs = 0;
	const uint64_t cur = h->n, src = cur - dist;
	bool dh_set = false, times_ok = true;
	uint64_t dh = 0;
	uint32_t len = 0, len_timed = 0;
	uint64_t differs_at = 0;
	const rp_op *sp = NULL, *cp = NULL;
	for (uint32_t j = 0; i + j < n; j++) {
		const uint64_t a = src + j;
		const rp_op *const so = a < cur ? rp__rpz_hist_at(h, a) : &ops[i + (a - cur)];
		const rp_op *const co = &ops[i + j];
		if (!same_fields(so, co)) {
			differs_at = cur + j;
			break;
		}
		if (!same_handle(so->handle, co->handle, &dh_set, &dh) || !same_handle(so->handle2, co->handle2, &dh_set, &dh))
			break; /* a later start may see another shift first: not remembered */
		times_ok = times_ok && same_times(sp, so, cp, co, j);
		if (times_ok)
			len_timed = j + 1;
		len = j + 1;
		sp = so;
		cp = co;
	}
	/* copied times are worth more than a few more ops whose times are coded */
	if (len_timed >= RPZ_MATCH_MIN && len_timed * 2 >= len)
		*out = (rpz_repeat){ .len = len_timed, .mode = 0, .dist = dist, .dh = dh };
	else if (len >= RPZ_MATCH_MIN)
		*out = (rpz_repeat){ .len = len, .mode = RPZ_R_TIMES, .dist = dist, .dh = dh };
	else {
		*differs = differs_at;
		return 0;
	}
	if (dh)
		out->mode |= RPZ_R_HANDLE;
	return out->len;
}

/* ---- shifted repeats (§4.5) ------------------------------------------------ */

/* same_fields without the fields a shifted repeat may move: client, paths and offset. */
static inline bool same_unshifted(const rp_op *a, const rp_op *b)
{
	return a->op == b->op && a->flags == b->flags && a->status_kind == b->status_kind && a->status == b->status &&
	       a->proto_status == b->proto_status && a->proto == b->proto && a->length == b->length &&
	       a->result == b->result && a->offset2 == b->offset2 && a->atime == b->atime && a->mtime == b->mtime &&
	       a->want == b->want && a->disp == b->disp && a->oflags == b->oflags && a->attrs == b->attrs &&
	       a->mode == b->mode && a->uid == b->uid && a->gid == b->gid && a->raw.access == b->raw.access &&
	       a->raw.disposition == b->raw.disposition && a->raw.options == b->raw.options &&
	       a->raw.level == b->raw.level && (a->t_end == RP_TIME_UNKNOWN) == (b->t_end == RP_TIME_UNKNOWN);
}

static inline uint32_t derived_of(const rpz_match *m, uint32_t p)
{
	return p && p < *m->n_next ? (*m->next)[p] : 0;
}

/* A path of a copied op: with PATHS (*paths 1) a path with a derived string becomes it, without
 * (*paths 2) it stays; the first path that has a derived string decides. */
static inline bool same_path(const rpz_match *m, uint32_t src, uint32_t cur, int *paths)
{
	const uint32_t d = derived_of(m, src);
	if (!d)
		return cur == src;
	if (!*paths) {
		if (cur != d && cur != src)
			return false;
		*paths = cur == d ? 1 : 2;
		return true;
	}
	return cur == (*paths == 1 ? d : src);
}

/* A non-zero offset of a copied op moves by the repeat's shift, set by the first one seen. */
static inline bool same_offset(uint64_t src, uint64_t cur, bool *set, uint64_t *d)
{
	if (!src)
		return cur == 0;
	if (!*set) {
		*d = cur - src;
		*set = true;
	}
	return cur == src + *d;
}

/* extend() for a repeat whose client, strings, handles and offsets may be shifted (one shift each,
 * set by the first pair that shows it). */
static uint32_t extend_shift(const rpz_match *m, const rpz_hist *h, const rp_op *ops, uint32_t i, uint32_t n,
			     uint64_t dist, rpz_repeat *out)
{
	const uint64_t cur = h->n, src = cur - dist;
	bool dh_set = false, do_set = false, times_ok = true;
	uint64_t dh = 0, doff = 0;
	uint32_t len = 0, len_timed = 0, dc = 0;
	int paths = 0;
	const rp_op *sp = NULL, *cp = NULL;
	for (uint32_t j = 0; i + j < n; j++) {
		const uint64_t a = src + j;
		const rp_op *const so = a < cur ? rp__rpz_hist_at(h, a) : &ops[i + (a - cur)];
		const rp_op *const co = &ops[i + j];
		if (!j)
			dc = co->client - so->client;
		if (!same_unshifted(so, co) || co->client != so->client + dc || !same_path(m, so->path, co->path, &paths) ||
		    !same_path(m, so->path2, co->path2, &paths) || !same_offset(so->offset, co->offset, &do_set, &doff) ||
		    !same_handle(so->handle, co->handle, &dh_set, &dh) || !same_handle(so->handle2, co->handle2, &dh_set, &dh))
			break;
		times_ok = times_ok && same_times(sp, so, cp, co, j);
		if (times_ok)
			len_timed = j + 1;
		len = j + 1;
		sp = so;
		cp = co;
	}
	if (len_timed >= RPZ_MATCH_MIN && len_timed * 2 >= len)
		*out = (rpz_repeat){ .len = len_timed, .mode = 0, .dist = dist };
	else if (len >= RPZ_MATCH_MIN)
		*out = (rpz_repeat){ .len = len, .mode = RPZ_R_TIMES, .dist = dist };
	else
		return 0;
	/* shifts seen only past the repeat's end are not needed: the ops kept agree with 0 as well as
	 * with them only if no op before the end set them, so they are kept as found */
	out->dh = dh;
	out->doff = doff;
	out->dc = dc;
	out->mode |= (dh ? RPZ_R_HANDLE : 0) | (dc ? RPZ_R_CLIENT : 0) | (paths == 1 ? RPZ_R_PATHS : 0) |
		     (doff ? RPZ_R_OFFSET : 0);
	return out->len;
}

/* Whether client c is seen for the first time (remembered while the set is under 3/4 full). */
static bool client_new(rpz_match *m, uint32_t c)
{
	const uint32_t size = 1u << RPZ_CLIENT_SET_BITS;
	if (!m->clients) {
		m->clients = calloc(size, sizeof(*m->clients));
		if (!m->clients) {
			m->shift = false; /* out of memory: the finder goes on without shifts */
			return false;
		}
	}
	uint32_t s = (uint32_t)(((uint64_t)c * 0x9e3779b97f4a7c15ull) >> (64 - RPZ_CLIENT_SET_BITS));
	for (;; s = (s + 1) & (size - 1)) {
		if (m->clients[s] == c + 1u && c != UINT32_MAX)
			return false;
		if (!m->clients[s])
			break;
	}
	if (m->n_clients >= size / 4 * 3 || c == UINT32_MAX)
		return false;
	m->clients[s] = c + 1;
	m->n_clients++;
	return true;
}

/* The key of the RPZ_MATCH_KEY ops from op number a (all in the ring). */
static uint64_t key_at(const rpz_hist *h, uint64_t a)
{
	uint64_t sig[RPZ_MATCH_KEY];
	for (int k = 0; k < RPZ_MATCH_KEY; k++)
		sig[k] = signature(rp__rpz_hist_at(h, a + (uint64_t)k));
	return key_of(sig);
}

/* Whether distance d failed on a differing op at or after op cur (the table's or the last repeat's). */
static inline bool known_miss(const rpz_match *m, uint64_t d, uint64_t cur)
{
	return (d == m->miss_dist[0] && cur <= m->miss_until[0]) || (d == m->miss_dist[1] && cur <= m->miss_until[1]);
}

static inline void remember_miss(rpz_match *m, int which, uint64_t d, uint64_t differs)
{
	m->miss_dist[which] = d;
	m->miss_until[which] = differs;
}

uint32_t rp__rpz_match_find(rpz_match *m, const rpz_hist *h, const rp_op *ops, uint32_t i, uint32_t n,
			    rpz_repeat *out)
{
	/* a client's first appearance: the latest earlier ones are sources for a shifted repeat (the
	 * same trace again under other clients), tried below */
	uint64_t fresh_from[RPZ_NEW_CLIENTS];
	uint32_t n_fresh = 0;
	if (m->shift && ops[i].client != m->client_prev) {
		m->client_prev = ops[i].client;
		if (client_new(m, ops[i].client)) {
			n_fresh = m->n_new;
			memcpy(fresh_from, m->new_at, sizeof(fresh_from));
			memmove(m->new_at + 1, m->new_at, (RPZ_NEW_CLIENTS - 1) * sizeof(*m->new_at));
			m->new_at[0] = h->n;
			m->n_new += m->n_new < RPZ_NEW_CLIENTS;
		}
	}
	if (!m->slots || i + RPZ_MATCH_KEY > n)
		return 0;
	/* the table is touched at random, one slot an op: ask for a later position's slot now */
	if (i + RPZ_MATCH_PREFETCH + RPZ_MATCH_KEY <= n)
		__builtin_prefetch(&m->slots[m->sig[i + RPZ_MATCH_PREFETCH] >> (64 - m->bits)], 1);
	const uint64_t key = m->sig[i], cur = h->n;
	if (cur + 1 > SLOT_OP)
		return 0; /* past 2^40 ops the finder stops: the rest of the stream is literal */
	uint64_t *const slot = &m->slots[key >> (64 - m->bits)];
	const uint64_t v = *slot, cand = (v >> SLOT_OP_BITS) == (key & (~UINT64_C(0) >> SLOT_OP_BITS)) ? v & SLOT_OP : 0;
	*slot = slot_value(key, cur + 1);
	if (!out)
		return 0;
	/* Two candidates: the latest op of the same key, and the distance of the last repeat (a
	 * whole pass repeated is one distance throughout; the latest match may be a nearer loop). */
	rpz_repeat a = { 0 }, b = { 0 };
	uint32_t la = 0, lb = 0;
	uint64_t differs;
	/* a distance that failed on a differing op fails at every start up to that op: not tried again */
	if (cand != 0 && cand - 1 < cur && cur - (cand - 1) <= h->window) {
		const uint64_t d = cur - (cand - 1);
		if (!known_miss(m, d, cur) && !(la = extend(h, ops, i, n, d, &a, &differs)) && differs)
			remember_miss(m, 0, d, differs);
	}
	if (m->last_shifted) {
		if (m->last_dist && m->last_dist <= cur && m->last_dist <= h->window && m->last_dist != a.dist)
			lb = extend_shift(m, h, ops, i, n, m->last_dist, &b);
	} else if (m->last_dist && m->last_dist <= cur && m->last_dist <= h->window && m->last_dist != a.dist &&
		   !known_miss(m, m->last_dist, cur) && !(lb = extend(h, ops, i, n, m->last_dist, &b, &differs)) &&
		   differs)
		remember_miss(m, 1, m->last_dist, differs);
	if (lb >= la) {
		a = b;
		la = lb;
	}
	for (uint32_t k = 0; k < n_fresh; k++) {
		const uint64_t d = cur - fresh_from[k];
		rpz_repeat c;
		uint32_t lc;
		if (d <= h->window && d != a.dist && (lc = extend_shift(m, h, ops, i, n, d, &c)) > la) {
			a = c;
			la = lc;
		}
	}
	if (!la)
		return 0;
	*out = a;
	m->last_dist = out->dist;
	m->last_shifted = (out->mode & (RPZ_R_CLIENT | RPZ_R_PATHS | RPZ_R_OFFSET)) != 0;
	return out->len;
}
