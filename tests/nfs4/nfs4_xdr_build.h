/* Test helper: build NFSv4 COMPOUND calls and replies in XDR (RFC 4506, RFC 7530 §16). */
#ifndef REPRISE_TESTS_NFS4_XDR_BUILD_H
#define REPRISE_TESTS_NFS4_XDR_BUILD_H

#include <stdint.h>
#include <string.h>

#include "tests/capture_harness.h" /* xb: the XDR builder */

static inline void xb_fixed(xb *x, const void *p, size_t len)
{
	memcpy(x->b + x->n, p, len);
	x->n += len;
}

static inline void xb_stateid(xb *x, uint32_t seqid, uint8_t fill)
{
	xb_u32(x, seqid);
	for (int i = 0; i < 12; i++)
		x->b[x->n++] = fill;
}

/* COMPOUND4args head: tag, minorversion, op count. */
static inline void xb_call(xb *x, uint32_t minor, uint32_t numops)
{
	xb_str(x, "t");
	xb_u32(x, minor);
	xb_u32(x, numops);
}

/* COMPOUND4res head: status, tag, result count. */
static inline void xb_reply(xb *x, uint32_t status, uint32_t nres)
{
	xb_u32(x, status);
	xb_str(x, "t");
	xb_u32(x, nres);
}

static inline void xb_sequence_arg(xb *x)
{
	xb_u32(x, 53);
	for (int i = 0; i < 16; i++)
		x->b[x->n++] = 0x5e;
	xb_u32(x, 7); /* sequenceid */
	xb_u32(x, 0); /* slot */
	xb_u32(x, 0); /* highest slot */
	xb_u32(x, 0); /* cachethis */
}

static inline void xb_sequence_res(xb *x)
{
	xb_u32(x, 53);
	xb_u32(x, 0);
	for (int i = 0; i < 16; i++)
		x->b[x->n++] = 0x5e;
	for (int i = 0; i < 5; i++)
		xb_u32(x, 0);
}

static inline void xb_putfh(xb *x, const char *fh)
{
	xb_u32(x, 22);
	xb_str(x, fh);
}

/* An op whose result is only a status (PUTFH, LOOKUP, SAVEFH, ...). */
static inline void xb_res(xb *x, uint32_t op, uint32_t status)
{
	xb_u32(x, op);
	xb_u32(x, status);
}

/* GETATTR request for type and size. */
static inline void xb_getattr_arg(xb *x)
{
	xb_u32(x, 9);
	xb_u32(x, 1);
	xb_u32(x, (1u << 1) | (1u << 4));
}

/* GETATTR result: type and size. */
static inline void xb_getattr_res(xb *x, uint32_t type, uint64_t size)
{
	xb_res(x, 9, 0);
	xb_u32(x, 1);
	xb_u32(x, (1u << 1) | (1u << 4));
	xb_u32(x, 12);
	xb_u32(x, type);
	xb_u64(x, size);
}

static inline void xb_getfh_res(xb *x, const char *fh)
{
	xb_res(x, 10, 0);
	xb_str(x, fh);
}

static inline void xb_change_info(xb *x)
{
	xb_u32(x, 1);
	xb_u64(x, 1);
	xb_u64(x, 2);
}

#endif
