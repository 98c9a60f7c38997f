/* Fuzz target: NFSv4 COMPOUND calls and replies through rp__nfs4_prog, several per input so state carries over. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/rpc/rpc.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Input: records of [flags u8][call length be16][reply length be16][call][reply].
 * flags bit 0: the call is cut short; bit 1: the reply is; bit 2: no reply;
 * bit 3: the reply is an RPC-level failure; bits 4-5: minor bump of the proc.
 * The corpus holds real COMPOUND bodies taken from the sample captures.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_memsink sink;
	if (rp_memsink_init(&sink) != 0)
		return 0;
	rp_capture_stats stats;
	memset(&stats, 0, sizeof(stats));
	rp_capctx *const cx = rp__capctx_create(&sink.base, NULL, &stats);
	if (!cx) {
		rp_memsink_fini(&sink);
		return 0;
	}
	rp_conn conn;
	memset(&conn, 0, sizeof(conn));
	uint64_t now = 1000000000ull;
	rp__capctx_frame(cx, now, 0);
	size_t at = 0;
	uint32_t xid = 0;
	while (size - at >= 5) {
		const uint8_t flags = data[at];
		size_t clen = (size_t)data[at + 1] << 8 | data[at + 2];
		size_t rlen = (size_t)data[at + 3] << 8 | data[at + 4];
		at += 5;
		clen = clen < size - at ? clen : size - at;
		/* Exact-size copies so the sanitizer sees reads past the end. */
		uint8_t *const cbuf = malloc(clen ? clen : 1);
		if (!cbuf)
			break;
		memcpy(cbuf, data + at, clen);
		at += clen;
		rlen = rlen < size - at ? rlen : size - at;
		uint8_t *const rbuf = malloc(rlen ? rlen : 1);
		if (!rbuf) {
			free(cbuf);
			break;
		}
		memcpy(rbuf, data + at, rlen);
		at += rlen;

		max_align_t pend[8];
		memset(pend, 0, sizeof(pend));
		if (rp__nfs4_prog.pending_size > sizeof(pend)) {
			free(cbuf);
			free(rbuf);
			break;
		}
		const rp_rpc_call call = { .xid = ++xid, .prog = 100003, .vers = 4, .proc = 1u + ((flags >> 4) & 3u) % 2u,
					   .auth_flavor = 1, .has_unix_cred = true, .uid = 0, .ts_ns = now, .client = 1,
					   .truncated = flags & 1 };
		rp_cur args = rp_cur_make(cbuf, clen);
		rp__nfs4_prog.call(cx, &conn, &call, &args, pend);
		now += 1000;
		rp__capctx_frame(cx, now, 0);
		if (flags & 4) {
			rp__nfs4_prog.drop(cx, pend);
		} else {
			const rp_rpc_reply rep = { .ts_ns = now, .truncated = (flags & 2) != 0,
						   .reply_stat = (flags & 8) ? 1u : 0u };
			rp_cur res = rp_cur_make(rbuf, rlen);
			rp__nfs4_prog.reply(cx, &conn, &call, &rep, (flags & 8) ? NULL : &res, pend);
		}
		free(cbuf);
		free(rbuf);
	}
	rp__capctx_finish(cx);
	rp__capctx_destroy(cx);
	rp_memsink_fini(&sink);
	return 0;
}
