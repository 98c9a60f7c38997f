/* Fuzz target: NFSv3 arguments and results (RFC 1813) behind well-formed RPC headers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/decode.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_BODY = 65536 };

static size_t put32(uint8_t *b, size_t n, uint32_t v)
{
	b[n] = (uint8_t)(v >> 24);
	b[n + 1] = (uint8_t)(v >> 16);
	b[n + 2] = (uint8_t)(v >> 8);
	b[n + 3] = (uint8_t)v;
	return n + 4;
}

static void send(rp_capctx *cx, rp_conn *conn, const uint8_t *b, size_t len, uint8_t from, uint64_t *ts)
{
	*ts += 1000000;
	rp__capctx_frame(cx, *ts, (uint32_t)len);
	const rp_msg m = { .data = b, .len = len, .wire_len = len, .ts_ns = *ts, .frame = 1, .from = from };
	rp__rpc_message(cx, conn, &m);
}

/*
 * Input: [program: 0 NFSv3, 1 MOUNTv3][procedure][split: 2 bytes] then the
 * body: the first `split` bytes are the call's arguments, the rest the reply's
 * results.  Calls go in pairs so replies can teach the handle map something
 * the next call uses: the body is split in two halves by a second pair of
 * [procedure][split] bytes when present.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4 || size > MAX_BODY)
		return 0;
	rp_memsink ms;
	if (rp_memsink_init(&ms) != 0)
		return 0;
	rp_capture_stats st;
	memset(&st, 0, sizeof(st));
	rp_capctx *const cx = rp__capctx_create(&ms.base, NULL, &st);
	uint8_t *const buf = malloc(size + 64);
	if (!cx || !buf)
		goto out;
	rp_conn conn = { .id = 1, .l4 = RP_L4_TCP };
	uint64_t ts = 1000000000ull;
	size_t at = 0;
	uint32_t xid = 1;
	while (at + 4 <= size) {
		const uint32_t prog = data[at] & 1 ? 100005 : 100003;
		const uint32_t proc = data[at + 1];
		size_t split = (size_t)data[at + 2] << 8 | data[at + 3];
		at += 4;
		/* this exchange's body: up to the next 0xff 0xfe marker, or the end */
		size_t end = at;
		while (end + 1 < size && !(data[end] == 0xff && data[end + 1] == 0xfe))
			end++;
		if (end + 1 >= size)
			end = size;
		const size_t body = end - at;
		if (split > body)
			split = body;
		size_t n = 0;
		n = put32(buf, n, xid);
		n = put32(buf, n, 0);
		n = put32(buf, n, 2);
		n = put32(buf, n, prog);
		n = put32(buf, n, 3);
		n = put32(buf, n, proc);
		for (int i = 0; i < 4; i++)
			n = put32(buf, n, 0); /* AUTH_NONE cred and verifier */
		memcpy(buf + n, data + at, split);
		send(cx, &conn, buf, n + split, 0, &ts);
		n = 0;
		n = put32(buf, n, xid);
		n = put32(buf, n, 1);
		for (int i = 0; i < 4; i++)
			n = put32(buf, n, 0); /* MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS */
		memcpy(buf + n, data + at + split, body - split);
		send(cx, &conn, buf, n + body - split, 1, &ts);
		xid++;
		at = end + 2;
	}
	rp__capctx_finish(cx);
out:
	free(buf);
	rp__capctx_destroy(cx);
	rp_memsink_fini(&ms);
	return 0;
}
