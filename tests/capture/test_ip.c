/* IPv4 and IPv6: extension headers, fragment reassembly in order, out of order, overlapping, missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "capture/net/ip.h"
#include "pkt.h"

static buf payload, pk, ext;

/* A UDP datagram of n bytes (header included) with a recognisable pattern. */
static void make_payload(size_t n)
{
	payload.n = 0;
	put16(&payload, 800);
	put16(&payload, 2049);
	put16(&payload, (uint16_t)n);
	put16(&payload, 0);
	putpat(&payload, n - 8, 5);
}

/* Fragment [off, off+len) of payload as IPv4. */
static rp_ip_res frag4(rp_ipfrag *f, uint32_t off, uint32_t len, bool more, uint64_t ts, rp_l4pkt *out)
{
	pk.n = 0;
	ipv4(&pk, CLI4, SRV4, 17, 77, (uint16_t)((more ? 0x2000 : 0) | off / 8), payload.b + off, len);
	return rp__ip_parse(f, 4, pk.b, (uint32_t)pk.n, ts, ts, out);
}

/* Fragment as IPv6, with a destination-options header before the fragment header. */
static rp_ip_res frag6(rp_ipfrag *f, uint32_t off, uint32_t len, bool more, uint64_t ts, rp_l4pkt *out)
{
	ext.n = 0;
	put8(&ext, 44); put8(&ext, 0); putpat(&ext, 6, 0); /* dest opts, 8 bytes, then fragment */
	put8(&ext, 17); put8(&ext, 0);
	put16(&ext, (uint16_t)(off | (more ? 1 : 0)));
	put32(&ext, 0xabcdef);
	pk.n = 0;
	ipv6(&pk, CLI6, SRV6, 60, ext.b, ext.n, payload.b + off, len);
	return rp__ip_parse(f, 6, pk.b, (uint32_t)pk.n, ts, ts, out);
}

typedef rp_ip_res (*fragfn)(rp_ipfrag *, uint32_t, uint32_t, bool, uint64_t, rp_l4pkt *);

static void check_whole(const rp_l4pkt *out, uint64_t first_ts)
{
	assert_int_equal(out->proto, 17);
	assert_int_equal(out->len, payload.n);
	assert_memory_equal(out->data, payload.b, payload.n);
	assert_int_equal(out->ts_ns, first_ts);
}

/* Fragments of 1480 bytes delivered in the order given by idx. */
static void run_order(fragfn fn, const int *idx, int n, bool overlap)
{
	rp_ipfrag *const f = rp__ipfrag_create(NULL);
	make_payload(5000);
	rp_l4pkt out;
	for (int i = 0; i < n; i++) {
		const uint32_t off = (uint32_t)idx[i] * 1480;
		uint32_t len = payload.n - off < 1480 ? (uint32_t)payload.n - off : 1480;
		const bool more = off + len < payload.n;
		if (overlap && more)
			len += 8; /* overlaps the next fragment's first bytes */
		const rp_ip_res r = fn(f, off, len, more, 100 + (uint64_t)i, &out);
		if (i < n - 1)
			assert_int_equal(r, RP_IP_HELD);
		else {
			assert_int_equal(r, RP_IP_L4);
			check_whole(&out, 100);
		}
	}
	assert_int_equal(rp__ipfrag_pending(f), 0);
	assert_int_equal(rp__ipfrag_take_dropped(f), 0);
	rp__ipfrag_destroy(f);
}

static void v4_fragments(void **state)
{
	(void)state;
	const int in_order[] = { 0, 1, 2, 3 }, reversed[] = { 3, 2, 1, 0 }, mixed[] = { 2, 0, 3, 1 };
	run_order(frag4, in_order, 4, false);
	run_order(frag4, reversed, 4, false);
	run_order(frag4, mixed, 4, true);
	const int dup[] = { 0, 0, 2, 1, 2, 3 };
	run_order(frag4, dup, 6, false);
}

static void v6_fragments(void **state)
{
	(void)state;
	const int in_order[] = { 0, 1, 2, 3 }, reversed[] = { 3, 2, 1, 0 }, mixed[] = { 1, 3, 0, 2 };
	run_order(frag6, in_order, 4, false);
	run_order(frag6, reversed, 4, false);
	run_order(frag6, mixed, 4, true);
}

static void missing_fragment_times_out(void **state)
{
	(void)state;
	const rp_ipfrag_limits lim = { .timeout_ns = 1000 };
	rp_ipfrag *const f = rp__ipfrag_create(&lim);
	make_payload(5000);
	rp_l4pkt out;
	assert_int_equal(frag4(f, 0, 1480, true, 10, &out), RP_IP_HELD);
	assert_int_equal(frag4(f, 2960, 1480, true, 20, &out), RP_IP_HELD);
	assert_int_equal(rp__ipfrag_pending(f), 1);
	rp__ipfrag_expire(f, 5000);
	assert_int_equal(rp__ipfrag_pending(f), 0);
	assert_int_equal(rp__ipfrag_take_dropped(f), 1);
	assert_int_equal(rp__ipfrag_take_dropped(f), 0);
	rp__ipfrag_destroy(f);
}

static void conflicting_ends_are_invalid(void **state)
{
	(void)state;
	rp_ipfrag *const f = rp__ipfrag_create(NULL);
	make_payload(5000);
	rp_l4pkt out;
	assert_int_equal(frag4(f, 1480, 1480, false, 1, &out), RP_IP_HELD);
	assert_int_equal(frag4(f, 2960, 1480, false, 2, &out), RP_IP_INVALID);
	assert_int_equal(rp__ipfrag_take_dropped(f), 1);
	rp__ipfrag_destroy(f);
}

static void bounded_datagrams(void **state)
{
	(void)state;
	const rp_ipfrag_limits lim = { .max_datagrams = 4 };
	rp_ipfrag *const f = rp__ipfrag_create(&lim);
	make_payload(3000);
	rp_l4pkt out;
	for (uint16_t id = 0; id < 10; id++) {
		pk.n = 0;
		ipv4(&pk, CLI4, SRV4, 17, id, 0x2000, payload.b, 1480);
		assert_int_equal(rp__ip_parse(f, 4, pk.b, (uint32_t)pk.n, id, id, &out), RP_IP_HELD);
	}
	assert_int_equal(rp__ipfrag_pending(f), 4);
	assert_int_equal(rp__ipfrag_take_dropped(f), 6);
	rp__ipfrag_destroy(f);
}

static void v6_extension_headers(void **state)
{
	(void)state;
	static buf seg;
	seg.n = 0;
	tcp_seg(&seg, 700, 2049, 1, 1, 0x10, (const uint8_t *)"abcd", 4);
	ext.n = 0;
	put8(&ext, 60); put8(&ext, 0); putpat(&ext, 6, 0); /* hop-by-hop -> dest opts */
	put8(&ext, 43); put8(&ext, 1); putpat(&ext, 14, 0); /* dest opts (16 bytes) -> routing */
	put8(&ext, 6); put8(&ext, 0); putpat(&ext, 6, 0); /* routing -> TCP */
	pk.n = 0;
	ipv6(&pk, CLI6, SRV6, 0, ext.b, ext.n, seg.b, seg.n);
	rp_l4pkt out;
	assert_int_equal(rp__ip_parse(NULL, 6, pk.b, (uint32_t)pk.n, 1, 1, &out), RP_IP_L4);
	assert_int_equal(out.proto, 6);
	assert_int_equal(out.len, seg.n);
	assert_memory_equal(out.src.a, CLI6, 16);
	assert_int_equal(out.src.family, 6);
	/* ESP hides the rest: not ours. */
	pk.n = 0;
	ipv6(&pk, CLI6, SRV6, 50, NULL, 0, seg.b, seg.n);
	assert_int_equal(rp__ip_parse(NULL, 6, pk.b, (uint32_t)pk.n, 1, 1, &out), RP_IP_OTHER);
	/* Cut inside the extension headers. */
	pk.n = 0;
	ipv6(&pk, CLI6, SRV6, 0, ext.b, ext.n, seg.b, seg.n);
	assert_int_equal(rp__ip_parse(NULL, 6, pk.b, 40 + 12, 1, 1, &out), RP_IP_TRUNCATED);
}

static void v4_padding_and_truncation(void **state)
{
	(void)state;
	static buf seg;
	seg.n = 0;
	udp_dgram(&seg, 1, 2, (const uint8_t *)"xy", 2);
	pk.n = 0;
	ipv4(&pk, CLI4, SRV4, 17, 1, 0, seg.b, seg.n);
	putpat(&pk, 16, 0); /* Ethernet minimum-size padding */
	rp_l4pkt out;
	assert_int_equal(rp__ip_parse(NULL, 4, pk.b, (uint32_t)pk.n, 1, 1, &out), RP_IP_L4);
	assert_int_equal(out.len, 10);
	assert_int_equal(out.wire_len, 10);
	assert_int_equal(rp__ip_parse(NULL, 4, pk.b, 25, 1, 1, &out), RP_IP_L4);
	assert_int_equal(out.len, 5);
	assert_int_equal(out.wire_len, 10);
	assert_int_equal(rp__ip_parse(NULL, 4, pk.b, 19, 1, 1, &out), RP_IP_TRUNCATED);
	pk.b[0] = 0x44; /* IHL 16 bytes */
	assert_int_equal(rp__ip_parse(NULL, 4, pk.b, (uint32_t)pk.n, 1, 1, &out), RP_IP_INVALID);
	pk.b[0] = 0x45;
	pk.b[9] = 1; /* ICMP */
	assert_int_equal(rp__ip_parse(NULL, 4, pk.b, (uint32_t)pk.n, 1, 1, &out), RP_IP_OTHER);
}

/* Through the transport: a fragmented UDP RPC becomes one message; a lost fragment is counted at the end. */
static void udp_rpc_over_fragments(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	static buf call, dg, fr;
	call.n = dg.n = 0;
	rpc_call(&call, 0x55, 7, 4000);
	udp_dgram(&dg, 800, 2049, call.b, call.n);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t off = 0; off < dg.n; off += 1480) {
			if (pass == 1 && off == 1480)
				continue; /* lose one */
			const uint32_t len = dg.n - off < 1480 ? (uint32_t)dg.n - off : 1480;
			pk.n = fr.n = 0;
			ipv4(&pk, CLI4, SRV4, 17, (uint16_t)(100 + pass), (uint16_t)((off + len < dg.n ? 0x2000 : 0) | off / 8),
			     dg.b + off, len);
			eth(&fr, 0x0800);
			putn(&fr, pk.b, pk.n);
			c_frame(c, 1, &fr);
		}
	}
	assert_int_equal(c->n, 1);
	assert_int_equal(c->m[0].len, call.n);
	assert_memory_equal(c->m[0].data, call.b, call.n);
	rp__transport_finish(c->t);
	assert_int_equal(c->stats.frags_dropped, 1);
	assert_int_equal(c->count[RP_OUT_TRUNCATED], 1);
	c_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v4_fragments),
		cmocka_unit_test(v6_fragments),
		cmocka_unit_test(missing_fragment_times_out),
		cmocka_unit_test(conflicting_ends_are_invalid),
		cmocka_unit_test(bounded_datagrams),
		cmocka_unit_test(v6_extension_headers),
		cmocka_unit_test(v4_padding_and_truncation),
		cmocka_unit_test(udp_rpc_over_fragments),
	};
	return cmocka_run_group_tests_name("capture-ip", tests, NULL, NULL);
}
