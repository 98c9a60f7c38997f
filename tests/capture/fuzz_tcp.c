/* Fuzz target: a sequence of TCP segments (encoded in the input) -> reassembly -> framing -> messages. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/net/tcp.h"
#include "capture/net/transport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Input: records of
 *   u8 ctl: bit 0 direction (server->client), bits 1-5 SYN FIN RST ACK "snaplen cut", bit 6 UDP
 *   u8 conn: which of 4 client ports
 *   u32 seq offset (big-endian) from a per-direction base, u32 ack offset, u16 payload length,
 *   then the payload (as much as is left).
 */
static uint64_t sum;

static void on_message(void *user, rp_conn *conn, rp_app app, const rp_msg *m)
{
	(void)user;
	(void)app;
	for (size_t i = 0; i < m->len; i++) /* touch every byte: ASan sees overreads */
		sum += m->data[i];
	sum += conn->id + m->wire_len;
}

static void on_count(void *user, rp_outcome what, const char *name)
{
	(void)user;
	(void)name;
	sum += (uint64_t)what;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const rp_transport_hooks hooks = { .message = on_message, .count = on_count };
	const rp_transport_limits lim = { .max_flows = 3, .tcp_window = 1 << 16, .max_buffered = 1 << 22 };
	rp_transport *t = NULL;
	if (rp__transport_create(&t, &hooks, &lim, NULL) != 0)
		return 0;
	static uint8_t pkt[20 + 20 + 65536];
	const uint32_t base[2] = { 0x10000000u, 0xfffff000u }; /* one direction wraps */
	uint64_t ts = 1;
	size_t at = 0;
	while (size - at >= 12) {
		const uint8_t ctl = data[at], conn = data[at + 1] & 3;
		const uint32_t seq = base[ctl & 1] + be32(data + at + 2);
		const uint32_t ack = base[!(ctl & 1)] + be32(data + at + 6);
		size_t len = (size_t)data[at + 10] << 8 | data[at + 11];
		at += 12;
		if (len > size - at)
			len = size - at;
		const bool udp = ctl & 0x40;
		const uint8_t cli[4] = { 10, 0, 0, 1 }, srv[4] = { 10, 0, 0, 2 };
		const uint8_t *const src = ctl & 1 ? srv : cli, *const dst = ctl & 1 ? cli : srv;
		const uint16_t cport = (uint16_t)(700 + conn), sport = 2049;
		const uint16_t sp = ctl & 1 ? sport : cport, dp = ctl & 1 ? cport : sport;
		const size_t l4h = udp ? 8 : 20, total = 20 + l4h + len;
		memset(pkt, 0, 40);
		pkt[0] = 0x45;
		pkt[2] = (uint8_t)(total >> 8);
		pkt[3] = (uint8_t)total;
		pkt[9] = udp ? 17 : 6;
		memcpy(pkt + 12, src, 4);
		memcpy(pkt + 16, dst, 4);
		uint8_t *const l4 = pkt + 20;
		l4[0] = (uint8_t)(sp >> 8);
		l4[1] = (uint8_t)sp;
		l4[2] = (uint8_t)(dp >> 8);
		l4[3] = (uint8_t)dp;
		if (udp) {
			l4[4] = (uint8_t)((8 + len) >> 8);
			l4[5] = (uint8_t)(8 + len);
		} else {
			for (int i = 0; i < 4; i++) {
				l4[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
				l4[8 + i] = (uint8_t)(ack >> (24 - 8 * i));
			}
			l4[12] = 5 << 4;
			l4[13] = (uint8_t)(((ctl >> 1) & 1 ? RP_TCP_SYN : 0) | ((ctl >> 2) & 1 ? RP_TCP_FIN : 0) |
					   ((ctl >> 3) & 1 ? RP_TCP_RST : 0) | ((ctl >> 4) & 1 ? RP_TCP_ACK : 0));
		}
		memcpy(l4 + l4h, data + at, len);
		at += len;
		/* "Snaplen cut": capture only part of the payload. */
		const uint32_t caplen = (ctl & 0x20) ? (uint32_t)(20 + l4h + len / 2) : (uint32_t)total;
		ts += (uint64_t)(ctl & 0x80 ? 20 : 0) * 1000000000ull + 1000;
		rp__transport_packet(t, 12 /* DLT_RAW */, ts, pkt, caplen, (uint32_t)total);
	}
	rp__transport_finish(t);
	rp__transport_destroy(t);
	return 0;
}
