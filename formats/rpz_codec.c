/* .rpz frame content: shapes, delta-coded varint columns and strings (docs/rpz-format.md §4). */
#include "formats/rpz_internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"
#include "formats/error.h"
#include "formats/semantics.h"

const uint8_t rp__rpz_magic[RPZ_MAGIC_LEN] = { 'R', 'P', 'Z', 0x89, '\r', '\n', 0x1a, '\n' };

/* ---- CRC-32C ---------------------------------------------------------- */

/* Built once, on first use, by whichever thread gets there first: pthread_once makes
 * the others wait for it and see the whole table (replay's clients decode frames in
 * parallel from the start). */
static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

uint32_t rp__crc32c(uint32_t crc, const void *buf, size_t len)
{
	(void)pthread_once(&crc_once, crc_init); /* after the first call, one acquire load */
	const uint8_t *p = buf;
	crc = ~crc;
	while (len >= 8) {
		const uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
					   (uint32_t)p[3] << 24);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
		      crc_table[4][lo >> 24] ^ crc_table[3][p[4]] ^ crc_table[2][p[5]] ^ crc_table[1][p[6]] ^
		      crc_table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

/* ---- helpers ------------------------------------------------------------ */

static inline uint64_t zz(uint64_t v) { return (v << 1) ^ (0u - (v >> 63)); }
static inline uint64_t unzz(uint64_t z) { return (z >> 1) ^ (0u - (z & 1)); }
static inline uint32_t zz32(uint32_t v) { return (v << 1) ^ (0u - (v >> 31)); }
static inline uint32_t unzz32(uint32_t z) { return (z >> 1) ^ (0u - (z & 1)); }

static inline uint32_t hslot(uint64_t handle)
{
	return (uint32_t)((handle * 0x9e3779b97f4a7c15ull) >> (64 - RPZ_HCACHE_BITS));
}

typedef rpz_hcache_entry hcache_entry;

/* A growable byte buffer; writers reserve first, then put without checks. */
typedef struct bbuf {
	uint8_t *p;
	size_t len, cap;
} bbuf;

static int reserve(bbuf *b, size_t more)
{
	if (b->cap - b->len >= more)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2)
			return RP_E_NOMEM;
		cap *= 2;
	}
	uint8_t *const p = realloc(b->p, cap);
	if (!p)
		return RP_E_NOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static inline void put(bbuf *b, uint64_t v) { b->len += rp_put_uvarint(b->p + b->len, v); }

/* ---- encoder ------------------------------------------------------------- */

/* The categorical fields of an op plus its column mask: one dictionary entry. */
#define KEY_WORDS 15
typedef struct shape_key {
	uint32_t w[KEY_WORDS];
} shape_key;
/* mask|flags, op|status_kind|proto, status, proto_status, then one word per field from want on */
_Static_assert(KEY_WORDS == 4 + RPZ_SF__COUNT - RPZ_SF_WANT, "a key word per shape field");

struct rpz_enc {
	bbuf col[RPZ_NCOLS];
	bbuf shapes, out, out_repeat;
	shape_key *keys;
	uint32_t n_keys;
	uint32_t *slots; /* 0 = empty, else key index + 1 */
	uint32_t slot_mask;
	hcache_entry hc[1u << RPZ_HCACHE_BITS];
	rpz_hist hist; /* pattern layer (hist.window = 0: off): the ops written so far, the repeat finder */
	rpz_match match;
	bool shifted; /* the last frame encoded used a shifted repeat (§4.5) */
	uint32_t n_repeats; /* the last frame's instructions, the first of them */
	rpz_repeat first;
	uint64_t first_dt;
};

rpz_enc *rp__rpz_enc_create(uint32_t max_ops)
{
	rpz_enc *const e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	uint32_t n = 64;
	while (n < 2 * (max_ops ? max_ops : 1))
		n *= 2;
	e->slots = calloc(n, sizeof(*e->slots));
	e->keys = malloc((size_t)(max_ops ? max_ops : 1) * sizeof(*e->keys));
	e->slot_mask = n - 1;
	if (!e->slots || !e->keys) {
		rp__rpz_enc_destroy(e);
		return NULL;
	}
	return e;
}

void rp__rpz_enc_destroy(rpz_enc *e)
{
	if (!e)
		return;
	for (int i = 0; i < RPZ_NCOLS; i++)
		free(e->col[i].p);
	free(e->shapes.p);
	free(e->out.p);
	free(e->out_repeat.p);
	free(e->keys);
	free(e->slots);
	rp__rpz_hist_fini(&e->hist);
	rp__rpz_match_fini(&e->match);
	free(e);
}

int rp__rpz_enc_pattern(rpz_enc *e, uint32_t window, uint32_t table_bits)
{
	if (window > RPZ_WINDOW_MAX)
		return RP_E_RANGE;
	rp__rpz_match_fini(&e->match);
	e->hist.window = window;
	return window ? rp__rpz_match_init(&e->match, table_bits) : 0;
}

void rp__rpz_enc_shift(rpz_enc *e, bool on, const uint32_t *const *next, const uint32_t *n_next)
{
	e->match.shift = on && e->hist.window;
	e->match.next = next;
	e->match.n_next = n_next;
}

bool rp__rpz_enc_shifted(const rpz_enc *e)
{
	return e->shifted;
}

bool rp__rpz_enc_single(const rpz_enc *e, uint32_t n, rpz_repeat *rp, uint64_t *dt)
{
	if (e->n_repeats != 1 || e->first.len != n || (e->first.mode & RPZ_R_TIMES))
		return false;
	*rp = e->first;
	*dt = e->first_dt;
	return true;
}

bool rp__rpz_enc_continues(const rpz_enc *e, uint64_t a, const rpz_repeat *rp)
{
	/* op a's time step is its source's, as a copy that goes on from op a - 1 would make it */
	const rpz_hist *const h = &e->hist;
	if (a < rp->dist + 1 || a >= h->n || h->n - (a - rp->dist - 1) > h->cap)
		return false;
	const uint64_t src = a - rp->dist;
	return rp__rpz_hist_at(h, a)->t_start - rp__rpz_hist_at(h, a - 1)->t_start ==
	       rp__rpz_hist_at(h, src)->t_start - rp__rpz_hist_at(h, src - 1)->t_start;
}

int rp__rpz_encode_repeat(rpz_enc *e, const rpz_frame_id *id, const uint8_t *strings, size_t strings_len,
			  const rpz_repeat *rp, uint64_t dt, const uint8_t **out, size_t *out_len)
{
	uint8_t rep[60];
	size_t r = 0;
	r += rp_put_uvarint(rep + r, 0);
	r += rp_put_uvarint(rep + r, rp->len);
	r += rp_put_uvarint(rep + r, rp->dist);
	r += rp_put_uvarint(rep + r, rp->mode);
	r += rp_put_uvarint(rep + r, zz(dt));
	if (rp->mode & RPZ_R_HANDLE)
		r += rp_put_uvarint(rep + r, zz(rp->dh));
	if (rp->mode & RPZ_R_CLIENT)
		r += rp_put_uvarint(rep + r, zz32(rp->dc));
	if (rp->mode & RPZ_R_OFFSET)
		r += rp_put_uvarint(rep + r, zz(rp->doff));
	bbuf *const b = &e->out_repeat; /* the writer holds it while it encodes the next frame */
	b->len = 0;
	if (reserve(b, strings_len + r + 30 * 10) < 0)
		return RP_E_NOMEM;
	put(b, id->frame_no);
	put(b, id->first_op);
	put(b, id->n_ops);
	put(b, id->first_string);
	put(b, id->n_strings);
	put(b, strings_len);
	put(b, 0); /* shapes */
	put(b, 0);
	put(b, RPZ_NCOLS);
	for (int i = 0; i < RPZ_NCOLS; i++)
		put(b, i == RPZ_COL_REPEAT ? r : 0);
	if (strings_len)
		memcpy(b->p + b->len, strings, strings_len);
	b->len += strings_len;
	memcpy(b->p + b->len, rep, r);
	b->len += r;
	if (b->len > RPZ_CONTENT_MAX)
		return RP_E_LIMIT;
	*out = b->p;
	*out_len = b->len;
	return 0;
}

/*
 * The key's slot: three chains of multiplies over five words each, run side
 * by side, then mixed (one chain over all fifteen waits on fifteen multiplies
 * in a row, where perf put 15% of the frame encoder's own time).  Only where a
 * key is looked for depends on it; its index, and so the bytes, are the order
 * keys first appear in.
 */
static uint32_t key_hash(const shape_key *k)
{
	_Static_assert(KEY_WORDS % 3 == 0, "three chains of equal length");
	const uint64_t m = 0xff51afd7ed558ccdull;
	uint64_t a = 0x9e3779b97f4a7c15ull, b = 0xc2b2ae3d27d4eb4full, c = 0x165667b19e3779f9ull;
	for (int i = 0; i < KEY_WORDS; i += 3) {
		a = (a ^ k->w[i]) * m;
		b = (b ^ k->w[i + 1]) * m;
		c = (c ^ k->w[i + 2]) * m;
	}
	const uint64_t h = (a ^ (b >> 21) ^ (b << 43) ^ (c >> 42) ^ (c << 22)) * m;
	return (uint32_t)(h >> 32);
}

/* Index of k in this frame's shape dictionary, adding it (and its bytes) if new. */
static uint32_t shape_index(rpz_enc *e, const shape_key *k)
{
	uint32_t s = key_hash(k) & e->slot_mask;
	for (;;) {
		const uint32_t v = e->slots[s];
		if (v == 0)
			break;
		if (memcmp(&e->keys[v - 1], k, sizeof(*k)) == 0)
			return v - 1;
		s = (s + 1) & e->slot_mask;
	}
	const uint32_t idx = e->n_keys++;
	e->keys[idx] = *k;
	e->slots[s] = idx + 1;
	bbuf *const b = &e->shapes; /* room reserved by the caller */
	put(b, k->w[0] & 0xffff); /* mask */
	put(b, RPZ_SF__COUNT);
	put(b, k->w[1] & 0xffff);            /* op */
	put(b, k->w[0] >> 16);               /* flags */
	put(b, (k->w[1] >> 16) & 0xff);      /* status_kind */
	put(b, zz32(k->w[2]));               /* status */
	put(b, k->w[3]);                     /* proto_status */
	put(b, k->w[1] >> 24);               /* proto */
	for (int i = 4; i < KEY_WORDS; i++) /* want, disp, oflags, attrs, mode, uid, gid, raw x 4 */
		put(b, k->w[i]);
	return idx;
}

int rp__rpz_encode(rpz_enc *e, const rpz_frame_id *id, const rp_op *ops, const uint8_t *strings,
		   size_t strings_len, const uint8_t **out, size_t *out_len)
{
	const uint32_t n = id->n_ops;
	for (int i = 0; i < RPZ_NCOLS; i++) {
		e->col[i].len = 0;
		if (reserve(&e->col[i], (size_t)n * 10 + 16) < 0)
			return RP_E_NOMEM;
	}
	e->shapes.len = 0;
	/* a new shape takes at most 5 bytes per field and mask and count */
	if (reserve(&e->shapes, (size_t)n * 5 * (RPZ_SF__COUNT + 2) + 16) < 0)
		return RP_E_NOMEM;
	if (e->n_keys)
		memset(e->slots, 0, ((size_t)e->slot_mask + 1) * sizeof(*e->slots));
	e->n_keys = 0;
	memset(e->hc, 0, sizeof(e->hc));

	uint64_t t_prev = 0, h_prev = 0, a_prev = 0;
	uint32_t client_prev = 0;
	bbuf *const c = e->col;
	const bool pattern = e->hist.window != 0;
	if (pattern && rp__rpz_match_frame(&e->match, &e->hist, ops, n) < 0)
		return RP_E_NOMEM;
	uint32_t lit_from = 0; /* first op after the last repeat */
	e->shifted = false;
	e->n_repeats = 0;
	e->first.len = 0;
	for (uint32_t i = 0; i < n; i++) {
		const rp_op *const o = &ops[i];
		rpz_repeat rp;
		if (pattern && rp__rpz_match_find(&e->match, &e->hist, ops, i, n, &rp)) {
			bbuf *const r = &c[RPZ_COL_REPEAT];
			put(r, i - lit_from);
			put(r, rp.len);
			put(r, rp.dist);
			put(r, rp.mode);
			if (!(rp.mode & RPZ_R_TIMES))
				put(r, zz(o->t_start - t_prev));
			if (rp.mode & RPZ_R_HANDLE)
				put(r, zz(rp.dh));
			if (rp.mode & RPZ_R_CLIENT)
				put(r, zz32(rp.dc));
			if (rp.mode & RPZ_R_OFFSET)
				put(r, zz(rp.doff));
			e->shifted |= (rp.mode & ~(uint32_t)RPZ_R_ALL) != 0;
			if (!e->n_repeats++ && i == 0) {
				e->first = rp;
				e->first_dt = o->t_start - t_prev;
			}
			for (uint32_t j = 0; j < rp.len; j++) {
				const rp_op *const q = &ops[i + j];
				if (j)
					(void)rp__rpz_match_find(&e->match, &e->hist, ops, i + j, n, NULL);
				if (rp.mode & RPZ_R_TIMES) {
					put(&c[RPZ_COL_TIME], zz(q->t_start - t_prev));
					if (q->t_end != RP_TIME_UNKNOWN)
						put(&c[RPZ_COL_DUR], zz(q->t_end - q->t_start));
				}
				/* the state a literal op would have left (rp__rpz_next's copy_op does the same) */
				t_prev = q->t_start;
				client_prev = q->client;
				if (q->handle) {
					h_prev = q->handle;
					if (q->offset || q->length)
						e->hc[hslot(q->handle)] = (hcache_entry){ q->handle, q->offset + q->length };
				}
				if (q->atime || q->mtime)
					a_prev = q->mtime ? q->mtime : q->atime;
				if (rp__rpz_hist_push(&e->hist, q) < 0)
					return RP_E_NOMEM;
			}
			i += rp.len - 1;
			lit_from = i + 1;
			continue;
		}
		uint32_t mask = 0;
		mask |= o->t_end != RP_TIME_UNKNOWN ? RPZ_M_TEND : 0;
		mask |= o->client != client_prev ? RPZ_M_CLIENT : 0;
		mask |= o->handle ? RPZ_M_HANDLE : 0;
		mask |= o->offset ? RPZ_M_OFFSET : 0;
		mask |= o->length ? RPZ_M_LENGTH : 0;
		mask |= o->result ? RPZ_M_RESULT : 0;
		mask |= o->path ? RPZ_M_PATH : 0;
		mask |= o->path2 ? RPZ_M_PATH2 : 0;
		mask |= o->handle2 ? RPZ_M_HANDLE2 : 0;
		mask |= o->offset2 ? RPZ_M_OFFSET2 : 0;
		mask |= o->atime ? RPZ_M_ATIME : 0;
		mask |= o->mtime ? RPZ_M_MTIME : 0;
		const shape_key k = { .w = {
			mask | (uint32_t)o->flags << 16,
			o->op | (uint32_t)o->status_kind << 16 | (uint32_t)o->proto << 24,
			(uint32_t)o->status,
			o->proto_status, o->want, o->disp, o->oflags, o->attrs, o->mode, o->uid, o->gid,
			o->raw.access, o->raw.disposition, o->raw.options, o->raw.level,
		} };
		put(&c[RPZ_COL_SHAPE], shape_index(e, &k));
		put(&c[RPZ_COL_TIME], zz(o->t_start - t_prev));
		t_prev = o->t_start;
		if (mask & RPZ_M_TEND)
			put(&c[RPZ_COL_DUR], zz(o->t_end - o->t_start));
		if (mask & RPZ_M_CLIENT)
			put(&c[RPZ_COL_CLIENT], o->client);
		client_prev = o->client;
		uint64_t predicted = 0;
		hcache_entry *hc = NULL;
		if (mask & RPZ_M_HANDLE) {
			put(&c[RPZ_COL_HANDLE], zz(o->handle - h_prev));
			h_prev = o->handle;
			hc = &e->hc[hslot(o->handle)];
			predicted = hc->handle == o->handle ? hc->next : 0;
		}
		if (mask & RPZ_M_OFFSET)
			put(&c[RPZ_COL_OFFSET], zz(o->offset - predicted));
		if (mask & RPZ_M_LENGTH)
			put(&c[RPZ_COL_LENGTH], o->length);
		if (mask & RPZ_M_RESULT)
			put(&c[RPZ_COL_RESULT], zz(o->result - o->length));
		if (hc && (mask & (RPZ_M_OFFSET | RPZ_M_LENGTH)))
			*hc = (hcache_entry){ o->handle, o->offset + o->length };
		if (mask & RPZ_M_PATH)
			put(&c[RPZ_COL_PATH], o->path);
		if (mask & RPZ_M_PATH2)
			put(&c[RPZ_COL_PATH2], o->path2);
		if (mask & RPZ_M_HANDLE2)
			put(&c[RPZ_COL_HANDLE2], zz(o->handle2 - o->handle));
		if (mask & RPZ_M_OFFSET2)
			put(&c[RPZ_COL_OFFSET2], zz(o->offset2 - o->offset));
		if (mask & RPZ_M_ATIME)
			put(&c[RPZ_COL_ATIME], zz(o->atime - a_prev));
		if (mask & RPZ_M_MTIME)
			put(&c[RPZ_COL_MTIME], zz(o->mtime - (mask & RPZ_M_ATIME ? o->atime : a_prev)));
		if (mask & (RPZ_M_ATIME | RPZ_M_MTIME))
			a_prev = mask & RPZ_M_MTIME ? o->mtime : o->atime;
		if (pattern && rp__rpz_hist_push(&e->hist, o) < 0)
			return RP_E_NOMEM;
	}

	size_t total = strings_len + e->shapes.len + 16 * 10;
	for (int i = 0; i < RPZ_NCOLS; i++)
		total += e->col[i].len + 10;
	bbuf *const b = &e->out;
	b->len = 0;
	if (reserve(b, total) < 0)
		return RP_E_NOMEM;
	put(b, id->frame_no);
	put(b, id->first_op);
	put(b, n);
	put(b, id->first_string);
	put(b, id->n_strings);
	put(b, strings_len);
	put(b, e->n_keys);
	put(b, e->shapes.len);
	put(b, RPZ_NCOLS);
	for (int i = 0; i < RPZ_NCOLS; i++)
		put(b, e->col[i].len);
	if (strings_len)
		memcpy(b->p + b->len, strings, strings_len);
	b->len += strings_len;
	memcpy(b->p + b->len, e->shapes.p, e->shapes.len);
	b->len += e->shapes.len;
	for (int i = 0; i < RPZ_NCOLS; i++) {
		memcpy(b->p + b->len, e->col[i].p, e->col[i].len);
		b->len += e->col[i].len;
	}
	if (b->len > RPZ_CONTENT_MAX)
		return RP_E_LIMIT;
	*out = b->p;
	*out_len = b->len;
	return 0;
}

/* ---- decoder ------------------------------------------------------------- */

typedef struct dshape {
	rp_op tmpl; /* categorical fields filled, the rest zero */
	uint32_t mask;
} dshape;

/* LEB128 through the cursor, with an unchecked fast path when 10 bytes remain. */
static inline uint64_t rdv(rp_cur *c)
{
	if (c->end - c->p >= 10) {
		const uint8_t *p = c->p;
		uint64_t b = *p++;
		if (b < 0x80) {
			c->p = p;
			return b;
		}
		uint64_t v = b & 0x7f;
		for (unsigned shift = 7; shift < 70; shift += 7) {
			b = *p++;
			v |= (b & 0x7f) << (shift & 63);
			if (b < 0x80) {
				c->p = p;
				return v;
			}
		}
		c->err = true;
		return 0;
	}
	return rp_cur_uvarint(c);
}

static inline uint32_t rd32(rp_cur *c)
{
	const uint64_t v = rdv(c);
	if (v > UINT32_MAX)
		c->err = true;
	return (uint32_t)v;
}

static inline uint16_t rd16(rp_cur *c)
{
	const uint64_t v = rdv(c);
	if (v > UINT16_MAX)
		c->err = true;
	return (uint16_t)v;
}

static const char *const col_names[RPZ_NCOLS] = {
	"shape", "time", "duration", "client", "handle", "offset", "length", "result", "path", "path2",
	"handle2", "offset2", "atime", "mtime", "repeat",
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return 0;
	void *const q = realloc(*p, n * size);
	if (!q)
		return RP_E_NOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* A 1.0 shape: mask, op, flags, status_kind (a byte), status, proto_status, then the protocol's fields. */
static void shape_v1(dshape *s, rp_cur *hc)
{
	s->mask = rd16(hc);
	s->tmpl.op = rd16(hc);
	s->tmpl.flags = rd16(hc);
	s->tmpl.status_kind = rp_cur_u8(hc);
	s->tmpl.status = (int32_t)unzz32(rd32(hc));
	s->tmpl.proto_status = rd32(hc);
	s->tmpl.raw.access = rd32(hc);
	s->tmpl.raw.disposition = rd32(hc);
	s->tmpl.raw.options = rd32(hc);
	s->tmpl.mode = rd32(hc);
	s->tmpl.raw.level = rd32(hc);
}

static inline uint8_t rd8(rp_cur *c)
{
	const uint64_t v = rdv(c);
	if (v > UINT8_MAX)
		c->err = true;
	return (uint8_t)v;
}

/* A 2.0 shape: mask, a field count, the fields of rpz_shape_field (fields of later minor versions skipped). */
static bool shape_v2(dshape *s, rp_cur *hc)
{
	s->mask = rd16(hc);
	const uint64_t n = rdv(hc);
	if (n > RPZ_SHAPE_FIELDS_MAX)
		return false;
	rp_op *const t = &s->tmpl;
	for (uint64_t f = 0; f < n && !hc->err; f++) {
		switch (f) {
		case RPZ_SF_OP: t->op = rd16(hc); break;
		case RPZ_SF_FLAGS: t->flags = rd16(hc); break;
		case RPZ_SF_STATUS_KIND: t->status_kind = rd8(hc); break;
		case RPZ_SF_STATUS: t->status = (int32_t)unzz32(rd32(hc)); break;
		case RPZ_SF_PROTO_STATUS: t->proto_status = rd32(hc); break;
		case RPZ_SF_PROTO: t->proto = rd8(hc); break;
		case RPZ_SF_WANT: t->want = rd32(hc); break;
		case RPZ_SF_DISP: t->disp = rd8(hc); break;
		case RPZ_SF_OFLAGS: t->oflags = rd32(hc); break;
		case RPZ_SF_ATTRS: t->attrs = rd32(hc); break;
		case RPZ_SF_MODE: t->mode = rd32(hc); break;
		case RPZ_SF_UID: t->uid = rd32(hc); break;
		case RPZ_SF_GID: t->gid = rd32(hc); break;
		case RPZ_SF_RAW_ACCESS: t->raw.access = rd32(hc); break;
		case RPZ_SF_RAW_DISP: t->raw.disposition = rd32(hc); break;
		case RPZ_SF_RAW_OPTIONS: t->raw.options = rd32(hc); break;
		case RPZ_SF_RAW_LEVEL: t->raw.level = rd32(hc); break;
		default: (void)rdv(hc); break;
		}
	}
	return true;
}

static int decode_shapes(rpz_dec *d, rp_cur *hc, uint32_t n, char *errbuf)
{
	if (grow(&d->shapes, &d->cap_shapes, n ? n : 1, sizeof(dshape)) < 0)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory for %u shapes", n);
	dshape *const sh = d->shapes;
	const uint32_t known_mask = d->major == 1 ? RPZ_M_ALL_V1 : RPZ_M_ALL;
	for (uint32_t i = 0; i < n; i++) {
		dshape *const s = &sh[i];
		memset(s, 0, sizeof(*s));
		if (d->major == 1)
			shape_v1(s, hc);
		else if (!shape_v2(s, hc))
			return rp_fail(errbuf, RP_E_CORRUPT, "shape %u has more than %u fields", i, RPZ_SHAPE_FIELDS_MAX);
		s->tmpl.t_end = RP_TIME_UNKNOWN;
		if (hc->err)
			return rp_fail(errbuf, RP_E_CORRUPT, "shape %u is cut or out of range", i);
		if (s->mask & ~known_mask)
			return rp_fail(errbuf, RP_E_CORRUPT, "shape %u: unknown column bits 0x%x", i, s->mask);
		if (s->tmpl.op >= RP_OP__COUNT)
			return rp_fail(errbuf, RP_E_UNSUPPORTED, "shape %u: op code %u unknown (a newer writer?)", i,
				       s->tmpl.op);
	}
	if (rp_cur_left(hc))
		return rp_fail(errbuf, RP_E_CORRUPT, "%zu stray bytes after the shapes", rp_cur_left(hc));
	return 0;
}

int64_t rp__rpz_open(rpz_dec *d, const uint8_t *content, size_t len, uint64_t expect_no, uint64_t expect_first,
		     rp_strtab *tab, char *errbuf)
{
	d->n_ops = d->done = 0;
	rp_cur c = rp_cur_make(content, len);
	const uint64_t frame_no = rdv(&c), first_op = rdv(&c);
	const uint64_t n_ops = rdv(&c), first_string = rdv(&c), n_strings = rdv(&c);
	const uint64_t strings_len = rdv(&c), n_shapes = rdv(&c), shapes_len = rdv(&c), n_cols = rdv(&c);
	if (c.err)
		return rp_fail(errbuf, RP_E_CORRUPT, "content header is cut");
	if (frame_no != expect_no)
		return rp_fail(errbuf, RP_E_CORRUPT, "content says it is frame %llu", (unsigned long long)frame_no);
	if (first_op != expect_first)
		return rp_fail(errbuf, RP_E_CORRUPT, "first op is %llu, expected %llu", (unsigned long long)first_op,
			       (unsigned long long)expect_first);
	/* every literal op takes at least two bytes (shape and time), every string one; with the
	 * pattern layer see below */
	const uint64_t ops_max = d->shift ? RPZ_LONG_FRAME_OPS_MAX : RPZ_FRAME_OPS_MAX;
	if (n_ops > ops_max || (!d->hist.window && n_ops > len / 2))
		return rp_fail(errbuf, RP_E_CORRUPT, "%llu ops cannot fit in %zu bytes", (unsigned long long)n_ops, len);
	if (n_strings > len + (d->shift ? RPZ_DERIVE_STRINGS_MAX : 0) || first_string != (uint64_t)d->strings_end + 1 ||
	    first_string + n_strings > (uint64_t)UINT32_MAX)
		return rp_fail(errbuf, RP_E_CORRUPT, "bad string range %llu+%llu", (unsigned long long)first_string,
			       (unsigned long long)n_strings);
	const unsigned want_cols = d->major == 1 ? RPZ_NCOLS_V1 : RPZ_NCOLS_V20;
	const unsigned keep_cols = d->major == 1 ? RPZ_NCOLS_V1 : RPZ_NCOLS;
	if (n_shapes > n_ops || n_cols < want_cols || n_cols > RPZ_NCOLS_MAX)
		return rp_fail(errbuf, RP_E_CORRUPT, "bad counts: %llu shapes, %llu columns",
			       (unsigned long long)n_shapes, (unsigned long long)n_cols);
	uint64_t col_len[RPZ_NCOLS_MAX];
	for (uint64_t i = 0; i < n_cols; i++)
		col_len[i] = rdv(&c);
	if (c.err)
		return rp_fail(errbuf, RP_E_CORRUPT, "column table is cut");
	if (d->hist.window) {
		/* a literal op takes two bytes or more outside the repeat column, a repeat four or more
		 * in it (literal count, length, distance, mode) and copies at most a window of ops */
		const uint64_t rep = n_cols > RPZ_COL_REPEAT ? col_len[RPZ_COL_REPEAT] : 0;
		const uint64_t span = d->hist.window < ops_max ? d->hist.window : ops_max;
		if (rep > len || n_ops > (len - rep) / 2 + rep / 4 * span)
			return rp_fail(errbuf, RP_E_CORRUPT, "%llu ops cannot fit in %zu bytes with %llu of repeats",
				       (unsigned long long)n_ops, len, (unsigned long long)rep);
	}

	rp_cur sc = rp_cur_sub(&c, strings_len > len ? len + 1 : (size_t)strings_len);
	rp_cur hcur = rp_cur_sub(&c, shapes_len > len ? len + 1 : (size_t)shapes_len);
	for (uint64_t i = 0; i < n_cols; i++) {
		const rp_cur sub = rp_cur_sub(&c, col_len[i] > len ? len + 1 : (size_t)col_len[i]);
		if (i < keep_cols)
			d->col[i] = sub; /* columns of later minor versions are skipped */
	}
	if (c.err)
		return rp_fail(errbuf, RP_E_CORRUPT, "sections run past the end of the content");
	if (rp_cur_left(&c))
		return rp_fail(errbuf, RP_E_CORRUPT, "%zu stray bytes after the columns", rp_cur_left(&c));

	int rc = rp__rpz_strings_decode(d, &sc, (uint32_t)first_string, (uint32_t)n_strings, tab, errbuf);
	if (rc < 0)
		return rc;
	d->strings_end += (uint32_t)n_strings;
	rc = decode_shapes(d, &hcur, (uint32_t)n_shapes, errbuf);
	if (rc < 0)
		return rc;
	d->n_shapes = n_shapes;
	d->n_ops = (uint32_t)n_ops;
	for (unsigned i = n_cols < keep_cols ? (unsigned)n_cols : keep_cols; i < RPZ_NCOLS; i++)
		d->col[i] = rp_cur_make(NULL, 0); /* 1.0, 2.0: no ops use them (the mask bits are refused) */
	d->t = d->h_prev = d->a_prev = 0;
	d->client = 0;
	d->lit_left = d->copy_left = 0;
	memset(d->hc, 0, sizeof(d->hc));
	/* the first op's time: in the repeat column when the frame opens with a repeat of copied times */
	rp_cur peek = d->col[RPZ_COL_TIME], rpeek = d->col[RPZ_COL_REPEAT];
	if (n_ops && rp_cur_left(&rpeek) && rdv(&rpeek) == 0) {
		(void)rdv(&rpeek); /* length */
		(void)rdv(&rpeek); /* distance */
		if (!(rdv(&rpeek) & RPZ_R_TIMES))
			peek = rpeek;
	}
	d->t_first = n_ops ? unzz(rdv(&peek)) : 0;
	return (int64_t)n_ops;
}

static int bad_op(const rpz_dec *d, char *errbuf)
{
	for (int i = 0; i < RPZ_NCOLS; i++)
		if (d->col[i].err)
			return rp_fail(errbuf, RP_E_CORRUPT, "op %u: %s column is short or holds a bad value", d->done,
				       col_names[i]);
	return rp_fail(errbuf, RP_E_CORRUPT, "op %u is bad", d->done);
}

/* The next repeat instruction, or, with none left, the rest of the frame as literal ops. */
static int load_repeat(rpz_dec *d, char *errbuf)
{
	rp_cur *const r = &d->col[RPZ_COL_REPEAT];
	const uint32_t remaining = d->n_ops - d->done;
	if (!rp_cur_left(r)) {
		d->lit_left = remaining;
		return 0;
	}
	const uint64_t lits = rdv(r), len = rdv(r), dist = rdv(r), mode = rdv(r);
	d->copy_dt = mode & RPZ_R_TIMES ? 0 : unzz(rdv(r));
	d->copy_dh = mode & RPZ_R_HANDLE ? unzz(rdv(r)) : 0;
	d->copy_dc = mode & RPZ_R_CLIENT ? unzz32(rd32(r)) : 0;
	d->copy_do = mode & RPZ_R_OFFSET ? unzz(rdv(r)) : 0;
	if (r->err || mode & ~(uint64_t)RPZ_R_ALL_SHIFT)
		return rp_fail(errbuf, RP_E_CORRUPT, "op %u: repeat column is short or holds a bad mode", d->done);
	if (!d->shift && (mode & ~(uint64_t)RPZ_R_ALL))
		return rp_fail(errbuf, RP_E_CORRUPT, "op %u: repeat mode 0x%llx needs header feature 0x%x", d->done,
			       (unsigned long long)mode, RPZ_FEAT_SHIFT);
	if (len == 0 || lits > remaining || len > remaining - lits)
		return rp_fail(errbuf, RP_E_CORRUPT, "op %u: a repeat of %llu ops after %llu literal ops overruns the frame",
			       d->done, (unsigned long long)len, (unsigned long long)lits);
	if (dist == 0 || dist > d->hist.window || dist > d->hist.n + lits)
		return rp_fail(errbuf, RP_E_CORRUPT, "op %u: a repeat reaches %llu ops back (window %llu, %llu ops read)",
			       d->done + (uint32_t)lits, (unsigned long long)dist, (unsigned long long)d->hist.window,
			       (unsigned long long)(d->hist.n + lits));
	d->lit_left = (uint32_t)lits;
	d->copy_left = (uint32_t)len;
	d->copy_dist = dist;
	d->copy_mode = (uint32_t)mode;
	d->copy_first = true;
	return 0;
}

/* One op of the current repeat: the op dist back, shifted, its times copied or coded. */
static int copy_op(rpz_dec *d, rp_op *o, char *errbuf)
{
	const uint64_t abs = d->hist.n;
	const rp_op *const s = rp__rpz_hist_at(&d->hist, abs - d->copy_dist);
	*o = *s;
	rp_cur *const col = d->col;
	if (d->copy_mode & RPZ_R_TIMES) {
		d->t += unzz(rdv(&col[RPZ_COL_TIME]));
		o->t_start = d->t;
		if (s->t_end != RP_TIME_UNKNOWN)
			o->t_end = d->t + unzz(rdv(&col[RPZ_COL_DUR]));
		if (col[RPZ_COL_TIME].err | col[RPZ_COL_DUR].err)
			return bad_op(d, errbuf);
	} else {
		d->t += d->copy_first ? d->copy_dt : s->t_start - rp__rpz_hist_at(&d->hist, abs - d->copy_dist - 1)->t_start;
		o->t_start = d->t;
		if (s->t_end != RP_TIME_UNKNOWN)
			o->t_end = d->t + (s->t_end - s->t_start);
	}
	if (s->handle)
		o->handle = s->handle + d->copy_dh;
	if (s->handle2)
		o->handle2 = s->handle2 + d->copy_dh;
	if (d->copy_mode & ~(uint32_t)(RPZ_R_TIMES | RPZ_R_HANDLE)) { /* shifted (§4.5) */
		o->client += d->copy_dc;
		if (s->offset)
			o->offset = s->offset + d->copy_do;
		if (d->copy_mode & RPZ_R_PATHS) {
			if (s->path && s->path < d->n_next && d->next[s->path])
				o->path = d->next[s->path];
			if (s->path2 && s->path2 < d->n_next && d->next[s->path2])
				o->path2 = d->next[s->path2];
		}
	}
	/* the state a literal op leaves (rp__rpz_encode does the same) */
	d->client = o->client;
	if (o->handle) {
		d->h_prev = o->handle;
		if (o->offset || o->length)
			d->hc[hslot(o->handle)] = (hcache_entry){ o->handle, o->offset + o->length };
	}
	if (o->atime || o->mtime)
		d->a_prev = o->mtime ? o->mtime : o->atime;
	if (rp__rpz_hist_push(&d->hist, o) < 0)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory for the pattern window");
	d->copy_first = false;
	d->copy_left--;
	d->done++;
	return 1;
}

int rp__rpz_next(rpz_dec *d, rp_op *o, char *errbuf)
{
	if (d->done == d->n_ops) {
		for (int i = 0; i < RPZ_NCOLS; i++)
			if (rp_cur_left(&d->col[i]))
				return rp_fail(errbuf, RP_E_CORRUPT, "%s column has %zu stray bytes", col_names[i],
					       rp_cur_left(&d->col[i]));
		return 0;
	}
	if (d->lit_left == 0) {
		if (d->copy_left == 0) {
			const int rc = load_repeat(d, errbuf);
			if (rc < 0)
				return rc;
		}
		if (d->lit_left == 0)
			return copy_op(d, o, errbuf);
	}
	d->lit_left--;
	rp_cur *const col = d->col;
	const uint64_t s = rdv(&col[RPZ_COL_SHAPE]);
	if (s >= d->n_shapes)
		return rp_fail(errbuf, RP_E_CORRUPT, "op %u: shape %llu of %llu", d->done, (unsigned long long)s,
			       (unsigned long long)d->n_shapes);
	const dshape *const sh = (const dshape *)d->shapes + s;
	*o = sh->tmpl;
	const uint32_t m = sh->mask;
	d->t += unzz(rdv(&col[RPZ_COL_TIME]));
	o->t_start = d->t;
	if (m & RPZ_M_TEND)
		o->t_end = d->t + unzz(rdv(&col[RPZ_COL_DUR]));
	if (m & RPZ_M_CLIENT)
		d->client = rd32(&col[RPZ_COL_CLIENT]);
	o->client = d->client;
	uint64_t predicted = 0;
	hcache_entry *hc = NULL;
	if (m & RPZ_M_HANDLE) {
		d->h_prev += unzz(rdv(&col[RPZ_COL_HANDLE]));
		o->handle = d->h_prev;
		hc = &d->hc[hslot(d->h_prev)];
		predicted = hc->handle == d->h_prev ? hc->next : 0;
	}
	if (m & RPZ_M_OFFSET)
		o->offset = predicted + unzz(rdv(&col[RPZ_COL_OFFSET]));
	if (m & RPZ_M_LENGTH)
		o->length = rdv(&col[RPZ_COL_LENGTH]);
	if (m & RPZ_M_RESULT)
		o->result = o->length + unzz(rdv(&col[RPZ_COL_RESULT]));
	if (hc && (m & (RPZ_M_OFFSET | RPZ_M_LENGTH)))
		*hc = (hcache_entry){ d->h_prev, o->offset + o->length };
	if (m & RPZ_M_PATH)
		o->path = rd32(&col[RPZ_COL_PATH]);
	if (m & RPZ_M_PATH2)
		o->path2 = rd32(&col[RPZ_COL_PATH2]);
	if (m & (RPZ_M_HANDLE2 | RPZ_M_OFFSET2 | RPZ_M_ATIME | RPZ_M_MTIME)) {
		if (m & RPZ_M_HANDLE2)
			o->handle2 = o->handle + unzz(rdv(&col[RPZ_COL_HANDLE2]));
		if (m & RPZ_M_OFFSET2)
			o->offset2 = o->offset + unzz(rdv(&col[RPZ_COL_OFFSET2]));
		if (m & RPZ_M_ATIME)
			o->atime = d->a_prev + unzz(rdv(&col[RPZ_COL_ATIME]));
		if (m & RPZ_M_MTIME)
			o->mtime = (m & RPZ_M_ATIME ? o->atime : d->a_prev) + unzz(rdv(&col[RPZ_COL_MTIME]));
		d->a_prev = m & RPZ_M_MTIME ? o->mtime : m & RPZ_M_ATIME ? o->atime : d->a_prev;
		if (col[RPZ_COL_HANDLE2].err | col[RPZ_COL_OFFSET2].err | col[RPZ_COL_ATIME].err | col[RPZ_COL_MTIME].err)
			return bad_op(d, errbuf);
	}
	/* one check per op for every sticky cursor error and undefined string */
	if ((col[RPZ_COL_SHAPE].err | col[RPZ_COL_TIME].err | col[RPZ_COL_DUR].err | col[RPZ_COL_CLIENT].err |
	     col[RPZ_COL_HANDLE].err | col[RPZ_COL_OFFSET].err | col[RPZ_COL_LENGTH].err | col[RPZ_COL_RESULT].err |
	     col[RPZ_COL_PATH].err | col[RPZ_COL_PATH2].err))
		return bad_op(d, errbuf);
	if (o->path > d->strings_end || o->path2 > d->strings_end)
		return rp_fail(errbuf, RP_E_CORRUPT, "op %u: string %u is not defined", d->done,
			       o->path > d->strings_end ? o->path : o->path2);
	if (d->major == 1)
		rp_sem_lift_v1(o, d->source, o->flags);
	if (d->hist.window && rp__rpz_hist_push(&d->hist, o) < 0)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory for the pattern window");
	d->done++;
	return 1;
}

void rp__rpz_dec_fini(rpz_dec *d)
{
	free(d->shapes);
	free(d->next);
	free(d->sbuf);
	rp__rpz_hist_fini(&d->hist);
	memset(d, 0, sizeof(*d));
}
