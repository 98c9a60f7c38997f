/* The one bounds-checked cursor every decoder reads untrusted bytes through. */
#ifndef REPRISE_FORMATS_CURSOR_H
#define REPRISE_FORMATS_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A read that would pass the end sets `err` and returns zero; once set, the
 * flag stays and every later read returns zero too, so a decoder reads a
 * whole structure and checks `c.err` once.
 */
typedef struct rp_cur {
	const uint8_t *p;
	const uint8_t *end;
	bool err;
} rp_cur;

/* The value of a hexadecimal digit (either case), -1 for any other byte: text decoders' escapes. */
static inline int rp_hex_digit(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/*
 * A cursor over no bytes may be made from NULL (an absent column, an empty
 * field): it points at a static empty array instead, so no read ever does
 * arithmetic on a null pointer (NULL + 0 is undefined in C).
 */
static inline rp_cur rp_cur_make(const void *buf, size_t len)
{
	static const uint8_t none[1];
	const uint8_t *const b = buf ? (const uint8_t *)buf : none;
	return (rp_cur){ .p = b, .end = buf ? b + len : b, .err = false };
}

static inline size_t rp_cur_left(const rp_cur *c)
{
	return c->err ? 0 : (size_t)(c->end - c->p);
}

/* Return a pointer to the next n bytes and step over them, or NULL. */
static inline const uint8_t *rp_cur_take(rp_cur *c, size_t n)
{
	if (c->err || (size_t)(c->end - c->p) < n) {
		c->err = true;
		return NULL;
	}
	const uint8_t *const at = c->p;
	c->p += n;
	return at;
}

static inline void rp_cur_skip(rp_cur *c, size_t n) { (void)rp_cur_take(c, n); }

/* A sub-cursor over the next n bytes; the parent steps over them. */
static inline rp_cur rp_cur_sub(rp_cur *c, size_t n)
{
	const uint8_t *const at = rp_cur_take(c, n);
	if (!at)
		return (rp_cur){ .p = NULL, .end = NULL, .err = true };
	return rp_cur_make(at, n);
}

static inline uint8_t rp_cur_u8(rp_cur *c)
{
	const uint8_t *const b = rp_cur_take(c, 1);
	return b ? b[0] : 0;
}

static inline uint16_t rp_cur_be16(rp_cur *c)
{
	const uint8_t *const b = rp_cur_take(c, 2);
	return b ? (uint16_t)(b[0] << 8 | b[1]) : 0;
}

static inline uint16_t rp_cur_le16(rp_cur *c)
{
	const uint8_t *const b = rp_cur_take(c, 2);
	return b ? (uint16_t)(b[1] << 8 | b[0]) : 0;
}

static inline uint32_t rp_cur_be32(rp_cur *c)
{
	const uint8_t *const b = rp_cur_take(c, 4);
	return b ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3] : 0;
}

static inline uint32_t rp_cur_le32(rp_cur *c)
{
	const uint8_t *const b = rp_cur_take(c, 4);
	return b ? (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0] : 0;
}

static inline uint64_t rp_cur_be64(rp_cur *c)
{
	const uint64_t hi = rp_cur_be32(c);
	return hi << 32 | rp_cur_be32(c);
}

static inline uint64_t rp_cur_le64(rp_cur *c)
{
	const uint64_t lo = rp_cur_le32(c);
	return lo | (uint64_t)rp_cur_le32(c) << 32;
}

/* LEB128 unsigned varint of at most 10 bytes. */
static inline uint64_t rp_cur_uvarint(rp_cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		const uint8_t b = rp_cur_u8(c);
		if (c->err)
			return 0;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->err = true; /* an eleventh byte: not a varint we wrote */
	return 0;
}

/* XDR opaque/string body: n bytes plus padding to a multiple of 4. */
static inline const uint8_t *rp_cur_xdr_opaque(rp_cur *c, size_t n)
{
	const uint8_t *const at = rp_cur_take(c, n);
	rp_cur_skip(c, (4 - (n & 3)) & 3);
	return c->err ? NULL : at;
}

static inline void rp_put_le16(uint8_t *b, uint16_t v) { b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); }
static inline void rp_put_le32(uint8_t *b, uint32_t v) { for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i)); }
static inline void rp_put_le64(uint8_t *b, uint64_t v) { for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i)); }

/* Write v as LEB128 into b (room for 10 bytes); returns bytes written. */
static inline size_t rp_put_uvarint(uint8_t *b, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

#endif
