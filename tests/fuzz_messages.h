/* Shared body of the capture fuzz targets that feed whole messages, both directions, to one decoder entry point. */
#ifndef RP_TESTS_FUZZ_MESSAGES_H
#define RP_TESTS_FUZZ_MESSAGES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/decode.h"
#include "formats/sink.h"

typedef int (*fuzz_deliver_fn)(rp_capctx *cx, rp_conn *conn, const rp_msg *m);

/*
 * From data[at] on, records of
 *   [flags: bit 0 = from server, bit 1 = cut short, bits 2-7 = ms to wait]
 *   [length: 2 bytes big-endian] [message bytes]
 * each delivered as one message on a connection between 10.0.0.1 and
 * 10.0.0.2 over l4.  A last record longer than what remains takes what
 * remains.  With magic (4 bytes), messages not starting with it get it
 * prepended (in a copy), so the fuzzer spends its time inside the decoder
 * that the magic selects; without, messages are passed in place.
 */
static inline int fuzz_messages(const uint8_t *data, size_t size, size_t at, uint8_t l4, const uint8_t *magic,
				fuzz_deliver_fn deliver)
{
	rp_memsink ms;
	if (rp_memsink_init(&ms) != 0)
		return 0;
	rp_capture_stats st;
	memset(&st, 0, sizeof(st));
	rp_capctx *const cx = rp__capctx_create(&ms.base, NULL, &st);
	if (!cx) {
		rp_memsink_fini(&ms);
		return 0;
	}
	rp_conn conn = { .id = 1, .l4 = l4 };
	conn.addr[0] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 1 } };
	conn.addr[1] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 2 } };
	uint8_t *const buf = magic ? malloc(size + 4) : NULL;
	uint64_t ts = 1000000000ull;
	while ((buf || !magic) && at + 3 <= size) {
		const uint8_t flags = data[at];
		size_t len = (size_t)data[at + 1] << 8 | data[at + 2];
		at += 3;
		if (len > size - at)
			len = size - at;
		const uint8_t *msg = data + at;
		size_t n = len;
		if (magic) {
			n = 0;
			if (len < 4 || memcmp(data + at, magic, 4) != 0) {
				memcpy(buf, magic, 4);
				n = 4;
			}
			if (len)
				memcpy(buf + n, data + at, len);
			n += len;
			msg = buf;
		}
		ts += (uint64_t)(flags >> 2) * 1000000ull;
		rp__capctx_frame(cx, ts, (uint32_t)n);
		const rp_msg m = { .data = msg, .len = n, .wire_len = (flags & 2) ? n + 100 : n,
				   .ts_ns = ts, .frame = 1, .from = flags & 1, .truncated = (flags & 2) != 0 };
		deliver(cx, &conn, &m);
		at += len;
	}
	free(buf);
	rp__capctx_finish(cx);
	if (conn.proto_free)
		conn.proto_free(conn.proto_state);
	rp__capctx_destroy(cx);
	rp_memsink_fini(&ms);
	return 0;
}

#endif
