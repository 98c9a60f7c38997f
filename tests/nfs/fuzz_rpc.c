/* Fuzz target: a sequence of whole RPC messages, both directions, TCP or UDP, through rp__rpc_message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/pcap/decode.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Input: byte 0 bit 0 selects UDP; then records of
 *   [flags: bit 0 = from server, bit 1 = cut short, bits 2-7 = ms to wait]
 *   [length: 2 bytes big-endian] [message bytes]
 * A last record longer than what remains takes what remains.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
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
	rp_conn conn = { .id = 1, .l4 = (data[0] & 1) ? RP_L4_UDP : RP_L4_TCP };
	conn.addr[0] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 1 } };
	conn.addr[1] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 2 } };
	uint64_t ts = 1000000000ull;
	size_t at = 1;
	while (at + 3 <= size) {
		const uint8_t flags = data[at];
		size_t len = (size_t)data[at + 1] << 8 | data[at + 2];
		at += 3;
		if (len > size - at)
			len = size - at;
		ts += (uint64_t)(flags >> 2) * 1000000ull;
		rp__capctx_frame(cx, ts, (uint32_t)len);
		const rp_msg m = { .data = data + at, .len = len, .wire_len = (flags & 2) ? len + 100 : len,
				   .ts_ns = ts, .frame = 1, .from = flags & 1, .truncated = (flags & 2) != 0 };
		rp__rpc_message(cx, &conn, &m);
		at += len;
	}
	rp__capctx_finish(cx);
	rp__capctx_destroy(cx);
	rp_memsink_fini(&ms);
	return 0;
}
