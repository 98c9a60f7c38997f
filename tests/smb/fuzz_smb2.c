/* Fuzz target: a sequence of SMB2 messages, both directions, through rp__smb_message (MS-SMB2). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/pcap/decode.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Input: records of
 *   [flags: bit 0 = from server, bit 1 = cut short, bits 2-7 = ms to wait]
 *   [length: 2 bytes big-endian] [message bytes]
 * A last record longer than what remains takes what remains.  Messages not
 * starting with the protocol's magic get it prepended, so the fuzzer spends
 * its time inside the SMB2 decoder.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t magic[4] = { 0xFE, 'S', 'M', 'B' };
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
	rp_conn conn = { .id = 1, .l4 = RP_L4_TCP };
	conn.addr[0] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 1 } };
	conn.addr[1] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 2 } };
	uint8_t *const buf = malloc(size + 4);
	uint64_t ts = 1000000000ull;
	size_t at = 0;
	while (buf && at + 3 <= size) {
		const uint8_t flags = data[at];
		size_t len = (size_t)data[at + 1] << 8 | data[at + 2];
		at += 3;
		if (len > size - at)
			len = size - at;
		size_t n = 0;
		if (len < 4 || memcmp(data + at, magic, 4) != 0) {
			memcpy(buf, magic, 4);
			n = 4;
		}
		if (len)
			memcpy(buf + n, data + at, len);
		n += len;
		ts += (uint64_t)(flags >> 2) * 1000000ull;
		rp__capctx_frame(cx, ts, (uint32_t)n);
		const rp_msg m = { .data = buf, .len = n, .wire_len = (flags & 2) ? n + 100 : n,
				   .ts_ns = ts, .frame = 1, .from = flags & 1, .truncated = (flags & 2) != 0 };
		rp__smb_message(cx, &conn, &m);
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
