/* Test harness for the SMB decoders: SMB2/SMB1 message builders and a capctx over a memsink. */
#ifndef REPRISE_TESTS_SMB_HARNESS_H
#define REPRISE_TESTS_SMB_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"
#include "tests/capture_harness.h"

/* ---- a byte builder ---- */

typedef struct mb {
	uint8_t b[16384];
	size_t n;
} mb;

static inline void mb_u8(mb *m, uint8_t v) { m->b[m->n++] = v; }
static inline void mb_u16(mb *m, uint16_t v) { rp_put_le16(m->b + m->n, v); m->n += 2; }
static inline void mb_u32(mb *m, uint32_t v) { rp_put_le32(m->b + m->n, v); m->n += 4; }
static inline void mb_u64(mb *m, uint64_t v) { rp_put_le64(m->b + m->n, v); m->n += 8; }
static inline void mb_zero(mb *m, size_t n) { memset(m->b + m->n, 0, n); m->n += n; }
static inline void mb_bytes(mb *m, const void *p, size_t n) { memcpy(m->b + m->n, p, n); m->n += n; }

/* ASCII as UTF-16LE, no terminator; returns the byte length. */
static inline size_t mb_utf16(mb *m, const char *s)
{
	const size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		mb_u16(m, (uint8_t)s[i]);
	return 2 * n;
}

/* ---- SMB2 ---- */

#define S2_RESP 0x1u
#define S2_ASYNC 0x2u
#define S2_RELATED 0x4u

/* Start an SMB2 PDU (64-byte header) at the builder's end; returns its offset. */
static inline size_t s2_hdr(mb *m, uint16_t cmd, uint32_t flags, uint64_t mid, uint64_t session, uint32_t tree,
			    uint32_t status)
{
	const size_t at = m->n;
	mb_bytes(m, "\xFESMB", 4);
	mb_u16(m, 64);
	mb_u16(m, 1); /* CreditCharge */
	mb_u32(m, status);
	mb_u16(m, cmd);
	mb_u16(m, 1);
	mb_u32(m, flags);
	mb_u32(m, 0); /* NextCommand, set by s2_link */
	mb_u64(m, mid);
	if (flags & S2_ASYNC) {
		mb_u64(m, 0x77);
	} else {
		mb_u32(m, 0);
		mb_u32(m, tree);
	}
	mb_u64(m, session);
	mb_zero(m, 16);
	return at;
}

/* Pad to 8 and point the PDU at `at` to the next one. */
static inline void s2_link(mb *m, size_t at)
{
	while (m->n % 8)
		mb_u8(m, 0);
	rp_put_le32(m->b + at + 20, (uint32_t)(m->n - at));
}

static inline void s2_fid(mb *m, uint64_t p, uint64_t v)
{
	mb_u64(m, p);
	mb_u64(m, v);
}

/* CREATE request for name (ASCII; '\' separators). */
static inline void s2_create_req(mb *m, size_t at, const char *name, uint32_t access, uint32_t disp, uint32_t opts)
{
	mb_u16(m, 57);
	mb_u8(m, 0);
	mb_u8(m, 0);
	mb_u32(m, 2);
	mb_zero(m, 16);
	mb_u32(m, access);
	mb_u32(m, 0x80);
	mb_u32(m, 7);
	mb_u32(m, disp);
	mb_u32(m, opts);
	const size_t name_off_at = m->n;
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u32(m, 0);
	mb_u32(m, 0);
	rp_put_le16(m->b + name_off_at, (uint16_t)(m->n - at));
	const size_t len = mb_utf16(m, name);
	if (len == 0)
		mb_u8(m, 0);
	rp_put_le16(m->b + name_off_at + 2, (uint16_t)len);
}

static inline void s2_create_resp(mb *m, uint32_t action, uint32_t attrs, uint64_t p, uint64_t v)
{
	mb_u16(m, 89);
	mb_u8(m, 0);
	mb_u8(m, 0);
	mb_u32(m, action);
	mb_zero(m, 32 + 16);
	mb_u32(m, attrs);
	mb_u32(m, 0);
	s2_fid(m, p, v);
	mb_u32(m, 0);
	mb_u32(m, 0);
}

/* CLOSE or FLUSH request (both StructureSize 24). */
static inline void s2_handle_req(mb *m, uint64_t p, uint64_t v)
{
	mb_u16(m, 24);
	mb_zero(m, 6);
	s2_fid(m, p, v);
}

static inline void s2_error_body(mb *m)
{
	mb_u16(m, 9);
	mb_zero(m, 6);
	mb_u8(m, 0);
}

static inline void s2_simple_resp(mb *m, uint16_t size)
{
	mb_u16(m, size);
	mb_zero(m, size - 2u);
}

static inline void s2_read_req(mb *m, uint64_t off, uint32_t len, uint64_t p, uint64_t v)
{
	mb_u16(m, 49);
	mb_u8(m, 0x50);
	mb_u8(m, 0);
	mb_u32(m, len);
	mb_u64(m, off);
	s2_fid(m, p, v);
	mb_u32(m, 1);
	mb_u32(m, 0);
	mb_u32(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u8(m, 0);
}

static inline void s2_rw_resp(mb *m, uint32_t count)
{
	mb_u16(m, 17);
	mb_u8(m, 0x50);
	mb_u8(m, 0);
	mb_u32(m, count);
	mb_zero(m, 8);
	mb_u8(m, 0);
}

static inline void s2_write_req(mb *m, size_t at, uint64_t off, uint32_t len, uint64_t p, uint64_t v, uint32_t flags)
{
	mb_u16(m, 49);
	mb_u16(m, (uint16_t)(m->n - at + 46));
	mb_u32(m, len);
	mb_u64(m, off);
	s2_fid(m, p, v);
	mb_u32(m, 0);
	mb_u32(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u32(m, flags);
	for (uint32_t i = 0; i < len; i++)
		mb_u8(m, (uint8_t)i);
}

static inline void s2_query_dir_req(mb *m, size_t at, uint8_t cls, uint8_t flags, uint64_t p, uint64_t v,
				    const char *pattern)
{
	mb_u16(m, 33);
	mb_u8(m, cls);
	mb_u8(m, flags);
	mb_u32(m, 0);
	s2_fid(m, p, v);
	mb_u16(m, (uint16_t)(m->n + 8 - at));
	const size_t len_at = m->n;
	mb_u16(m, 0);
	mb_u32(m, 65536);
	rp_put_le16(m->b + len_at, (uint16_t)mb_utf16(m, pattern));
}

/* A QUERY_DIRECTORY response with n entries of 16 bytes each. */
static inline void s2_query_dir_resp(mb *m, size_t at, unsigned n)
{
	mb_u16(m, 9);
	mb_u16(m, (uint16_t)(m->n + 6 - at));
	mb_u32(m, 16 * n);
	for (unsigned i = 0; i < n; i++) {
		mb_u32(m, i + 1 < n ? 16 : 0);
		mb_zero(m, 12);
	}
}

static inline void s2_query_info_req(mb *m, uint8_t type, uint8_t cls, uint32_t addl, uint64_t p, uint64_t v)
{
	mb_u16(m, 41);
	mb_u8(m, type);
	mb_u8(m, cls);
	mb_u32(m, 4096);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u32(m, 0);
	mb_u32(m, addl);
	mb_u32(m, 0);
	s2_fid(m, p, v);
}

/* SET_INFO with a prepared info buffer. */
static inline void s2_set_info_req(mb *m, size_t at, uint8_t type, uint8_t cls, uint64_t p, uint64_t v,
				   const uint8_t *info, uint32_t len)
{
	mb_u16(m, 33);
	mb_u8(m, type);
	mb_u8(m, cls);
	mb_u32(m, len);
	mb_u16(m, (uint16_t)(m->n + 24 - at));
	mb_u16(m, 0);
	mb_u32(m, 0);
	s2_fid(m, p, v);
	mb_bytes(m, info, len);
}

/* ---- SMB1 ---- */

#define S1_REPLY 0x80u
#define S1_UNICODE 0x8000u
#define S1_NTSTATUS 0x4000u

static inline void s1_hdr(mb *m, uint8_t cmd, uint8_t flags, uint16_t flags2, uint32_t status, uint16_t tid,
			  uint16_t pid, uint16_t uid, uint16_t mid)
{
	mb_bytes(m, "\xFFSMB", 4);
	mb_u8(m, cmd);
	mb_u32(m, status);
	mb_u8(m, flags);
	mb_u16(m, flags2);
	mb_u16(m, 0);
	mb_zero(m, 8 + 2);
	mb_u16(m, tid);
	mb_u16(m, pid);
	mb_u16(m, uid);
	mb_u16(m, mid);
}

/* An SMB_STRING (Unicode aligned from the header, or OEM) with its terminator. */
static inline void s1_str(mb *m, const char *s, bool unicode)
{
	if (unicode) {
		if (m->n & 1)
			mb_u8(m, 0);
		mb_utf16(m, s);
		mb_u16(m, 0);
	} else {
		mb_bytes(m, s, strlen(s) + 1);
	}
}

/* Fill in a ByteCount written as 0 at bc_at, counting to the end. */
static inline void s1_bc(mb *m, size_t bc_at)
{
	rp_put_le16(m->b + bc_at, (uint16_t)(m->n - bc_at - 2));
}

/* ---- a capture context over a memory sink ---- */

/* One TCP connection, 10.0.0.1:50000 -> 10.0.0.2:445, into rp__smb_message. */
static inline env *env_new(void)
{
	return env_make(9, RP_L4_TCP, 50000, 445, rp__smb_message);
}

static inline void env_send(env *e, uint8_t from, const mb *m)
{
	env_send_cut(e, from, m->b, m->n, m->n);
}

static inline void env_dump(const env *e)
{
	for (size_t i = 0; i < e->n_lines; i++)
		fprintf(stderr, "# op %zu: %s\n", i, e->lines[i]);
	fprintf(stderr, "# counters: msgs %llu trunc %llu inval %llu unsup %llu unmatched %llu encrypted %llu\n",
		(unsigned long long)e->st.messages, (unsigned long long)e->st.truncated,
		(unsigned long long)e->st.invalid, (unsigned long long)e->st.unsupported,
		(unsigned long long)e->st.unmatched, (unsigned long long)e->st.encrypted);
}

/* Line i of the ops after the times and the client ("open ..."). */
static inline const char *env_op(const env *e, size_t i)
{
	if (i >= e->n_lines)
		return "";
	const char *s = e->lines[i];
	for (int sp = 0; sp < 3 && s; sp++) {
		s = strchr(s, ' ');
		if (s)
			s++;
	}
	return s ? s : "";
}

/* The count of unsupported messages under name. */
static inline uint64_t env_unsupported(const env *e, const char *name)
{
	for (uint32_t i = 0; i < e->st.n_unsupported; i++)
		if (strcmp(e->st.unsupported_by_name[i].name, name) == 0)
			return e->st.unsupported_by_name[i].count;
	return 0;
}

#define CHECK(e, cond)                                                         \
	do {                                                                   \
		if (!(cond))                                                   \
			env_dump(e);                                           \
		assert_true(cond);                                             \
	} while (0)

/* Op i's text before " -> " is want, and its protocol status is nt. */
static inline bool env_op_is(const env *e, size_t i, const char *want, uint32_t nt)
{
	const char *const s = env_op(e, i);
	const char *const arrow = strstr(s, " -> ");
	return arrow && (size_t)(arrow - s) == strlen(want) && strncmp(s, want, strlen(want)) == 0 &&
	       e->ms.ops[i].proto_status == nt;
}

#define CHECK_OP(e, i, want, nt) CHECK(e, env_op_is(e, i, want, nt))

#endif
