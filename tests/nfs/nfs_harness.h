/* Test harness for the RPC/NFS decoders: an XDR message builder and a capctx over a memsink. */
#ifndef REPRISE_TESTS_NFS_HARNESS_H
#define REPRISE_TESTS_NFS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capture_harness.h"

/* ---- building RPC messages (capture_harness.h: XDR) ---- */

/* A file handle of len bytes, all `tag`. */
static inline void xb_fh(xb *x, uint8_t tag, size_t len)
{
	uint8_t fh[128];
	memset(fh, tag, sizeof(fh));
	xb_opaque(x, fh, len);
}

enum { T_FH = 32 }; /* handle length the tests use */

/* An RPC CALL header with AUTH_SYS (uid, gid) and an AUTH_NONE verifier. */
static inline void xb_call(xb *x, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc, uint32_t uid)
{
	xb_u32(x, xid);
	xb_u32(x, 0); /* CALL */
	xb_u32(x, 2);
	xb_u32(x, prog);
	xb_u32(x, vers);
	xb_u32(x, proc);
	xb cred = { .n = 0 };
	xb_u32(&cred, 12345); /* stamp */
	xb_str(&cred, "client");
	xb_u32(&cred, uid);
	xb_u32(&cred, 100);
	xb_u32(&cred, 1);
	xb_u32(&cred, 100);
	xb_u32(x, 1); /* AUTH_SYS */
	xb_opaque(x, cred.b, cred.n);
	xb_u32(x, 0);
	xb_u32(x, 0);
}

/* An accepted REPLY header with accept_stat SUCCESS. */
static inline void xb_reply(xb *x, uint32_t xid)
{
	xb_u32(x, xid);
	xb_u32(x, 1); /* REPLY */
	xb_u32(x, 0); /* MSG_ACCEPTED */
	xb_u32(x, 0);
	xb_u32(x, 0); /* verifier AUTH_NONE, empty */
	xb_u32(x, 0); /* SUCCESS */
}

/* ---- a capture context over a memory sink ---- */

/* One TCP or UDP connection, 10.0.0.1:800 -> 10.0.0.2:2049, into rp__rpc_message. */
static inline env *env_new(uint8_t l4)
{
	return env_make(7, l4, 800, 2049, rp__rpc_message);
}

static inline void env_send(env *e, uint8_t from, const xb *x)
{
	env_send_cut(e, from, x->b, x->n, x->n);
}

/* Print the ops (for failing tests). */
static inline void env_dump(const env *e)
{
	for (size_t i = 0; i < e->n_lines; i++)
		fprintf(stderr, "# op %zu: %s\n", i, e->lines[i]);
}

/* assert_true that prints the ops when it fails. */
#define CHECK(e, cond)                                                         \
	do {                                                                   \
		if (!(cond)) {                                                 \
			env_dump(e);                                           \
			fprintf(stderr, "# counters: trunc %llu inval %llu unsup %llu unmatched %llu ignored %llu\n", \
				(unsigned long long)(e)->st.truncated, (unsigned long long)(e)->st.invalid, \
				(unsigned long long)(e)->st.unsupported, (unsigned long long)(e)->st.unmatched, \
				(unsigned long long)(e)->st.ignored);          \
		}                                                              \
		assert_true(cond);                                             \
	} while (0)

#endif
