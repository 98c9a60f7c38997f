/* Transport end to end: TCP reassembly and RPC/NetBIOS framing, checked on the rp_msg sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "capture/net/tcp.h"
#include "pkt.h"

enum { ACKF = RP_TCP_ACK, SYNF = RP_TCP_SYN, FINF = RP_TCP_FIN, RSTF = RP_TCP_RST };

typedef struct tconn {
	collect *c;
	uint16_t cport, sport;
	uint32_t seq[2]; /* [0] server's next, [1] client's next */
} tconn;

static void k_open(tconn *k, collect *c, uint16_t cport, uint16_t sport, bool syn)
{
	k->c = c;
	k->cport = cport;
	k->sport = sport;
	k->seq[1] = 1000;
	k->seq[0] = 5000;
	if (syn) {
		c_tcp4(c, 1, cport, sport, 999, 0, SYNF, NULL, 0);
		c_tcp4(c, 0, cport, sport, 4999, 1000, SYNF | ACKF, NULL, 0);
		c_tcp4(c, 1, cport, sport, 1000, 5000, ACKF, NULL, 0);
	}
}

/* Send bytes from the client (1) or the server (0) at the current sequence number. */
static void k_send(tconn *k, int cli, const uint8_t *p, size_t n)
{
	c_tcp4(k->c, cli, k->cport, k->sport, k->seq[cli], k->seq[!cli], ACKF, p, n);
	k->seq[cli] += (uint32_t)n;
}

/* Send at an explicit offset from the current sequence number, without advancing it. */
static void k_send_at(tconn *k, int cli, uint32_t off, const uint8_t *p, size_t n)
{
	c_tcp4(k->c, cli, k->cport, k->sport, k->seq[cli] + off, k->seq[!cli], ACKF, p, n);
}

/* A pure ACK from the other side acknowledging everything up to the sender's seq + off. */
static void k_ack(tconn *k, int cli, uint32_t upto)
{
	c_tcp4(k->c, !cli, k->cport, k->sport, k->seq[!cli], upto, ACKF, NULL, 0);
}

static buf rec, tmp, tmp2;

static void several_rpcs_in_one_segment(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	rec.n = 0;
	for (uint32_t i = 0; i < 3; i++) {
		tmp.n = 0;
		rpc_call(&tmp, 100 + i, 1, 8 * i);
		rm(&rec, tmp.b, tmp.n, 1);
	}
	k_send(&k, 1, rec.b, rec.n);
	assert_int_equal(c->n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(c->m[i].app, RP_APP_RPC);
		assert_int_equal(c->m[i].from, 0); /* the client sent the SYN: endpoint 0 */
		assert_int_equal(c->m[i].len, 40 + 8 * i);
		assert_false(c->m[i].truncated);
		assert_int_equal(c->m[i].data[3], 100 + i);
	}
	/* A reply goes the other way. */
	tmp.n = rec.n = 0;
	rpc_reply(&tmp, 100, 16);
	rm(&rec, tmp.b, tmp.n, 1);
	k_send(&k, 0, rec.b, rec.n);
	assert_int_equal(c->n, 4);
	assert_int_equal(c->m[3].from, 1);
	assert_int_equal(c->m[3].len, 40);
	c_free(c);
}

static void one_rpc_over_many_segments(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	tmp.n = rec.n = 0;
	rpc_call(&tmp, 7, 7, 20000);
	rm(&rec, tmp.b, tmp.n, 1);
	for (size_t off = 0; off < rec.n; off += 1448) {
		const size_t n = rec.n - off < 1448 ? rec.n - off : 1448;
		k_send(&k, 1, rec.b + off, n);
		if (off + n < rec.n)
			assert_int_equal(c->n, 0);
	}
	assert_int_equal(c->n, 1);
	assert_int_equal(c->m[0].len, tmp.n);
	assert_memory_equal(c->m[0].data, tmp.b, tmp.n);
	assert_int_equal(c->m[0].frame, 4); /* SYN, SYN-ACK, ACK, then the first data segment */
	c_free(c);
}

static void multi_fragment_record(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	tmp.n = rec.n = 0;
	rpc_call(&tmp, 9, 7, 3000);
	rm(&rec, tmp.b, 1000, 0);
	rm(&rec, tmp.b + 1000, 1500, 0);
	rm(&rec, tmp.b + 2500, tmp.n - 2500, 1);
	tmp2.n = 0;
	rpc_call(&tmp2, 10, 1, 0);
	rm(&rec, tmp2.b, tmp2.n, 1);
	k_send(&k, 1, rec.b, 700); /* split inside the first fragment */
	k_send(&k, 1, rec.b + 700, rec.n - 700);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->m[0].len, tmp.n);
	assert_memory_equal(c->m[0].data, tmp.b, tmp.n);
	assert_int_equal(c->m[1].len, tmp2.n);
	c_free(c);
}

static void retransmission_reordering_overlap(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	tmp.n = rec.n = 0;
	rpc_call(&tmp, 11, 7, 5000);
	rm(&rec, tmp.b, tmp.n, 1);
	/* Pieces: [0,1000) [1000,2000) [2000,3000) [3000,end); send 0, 2, 0 again, 1 overlapping 2, 3, 3 again. */
	k_send_at(&k, 1, 0, rec.b, 1000);
	k_send_at(&k, 1, 2000, rec.b + 2000, 1000);
	k_send_at(&k, 1, 0, rec.b, 1000);
	k_send_at(&k, 1, 500, rec.b + 500, 2000); /* overlaps what came on both sides */
	k_send_at(&k, 1, 3000, rec.b + 3000, rec.n - 3000);
	k_send_at(&k, 1, 3000, rec.b + 3000, rec.n - 3000);
	assert_int_equal(c->n, 1);
	assert_int_equal(c->m[0].len, tmp.n);
	assert_memory_equal(c->m[0].data, tmp.b, tmp.n);
	assert_int_equal(c->count[RP_OUT_GAP], 0);
	c_free(c);
}

static void gap_inside_message(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	tmp.n = rec.n = 0;
	rpc_call(&tmp, 12, 7, 3000);
	rm(&rec, tmp.b, tmp.n, 1);
	tmp2.n = 0;
	rpc_call(&tmp2, 13, 1, 0);
	rm(&rec, tmp2.b, tmp2.n, 1);
	const size_t first_len = tmp.n + 4;
	k_send_at(&k, 1, 0, rec.b, 1000);
	/* [1000, 2000) is lost; the server's ACK says it got it. */
	k_send_at(&k, 1, 2000, rec.b + 2000, rec.n - 2000);
	k_ack(&k, 1, k.seq[1] + (uint32_t)rec.n);
	assert_int_equal(c->count[RP_OUT_GAP], 1);
	assert_int_equal(c->n, 2);
	assert_true(c->m[0].truncated);
	assert_int_equal(c->m[0].len, 996);
	assert_int_equal(c->m[0].wire_len, tmp.n);
	assert_memory_equal(c->m[0].data, tmp.b, 996);
	/* The loss ended inside the first message, so the second one is found without a scan. */
	assert_false(c->m[1].truncated);
	assert_int_equal(c->m[1].len, tmp2.n);
	assert_memory_equal(c->m[1].data, tmp2.b, tmp2.n);
	(void)first_len;
	c_free(c);
}

static void gap_across_boundary_resyncs(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	rec.n = 0;
	size_t ends[4];
	for (uint32_t i = 0; i < 4; i++) {
		tmp.n = 0;
		rpc_call(&tmp, 20 + i, 4, 300);
		rm(&rec, tmp.b, tmp.n, 1);
		ends[i] = rec.n;
	}
	/* Lose from the middle of message 1 to the middle of message 2. */
	const size_t lo = ends[0] + 100, hi = ends[1] + 50;
	k_send_at(&k, 1, 0, rec.b, lo);
	k_send_at(&k, 1, (uint32_t)hi, rec.b + hi, rec.n - hi);
	k_ack(&k, 1, k.seq[1] + (uint32_t)rec.n);
	assert_int_equal(c->count[RP_OUT_GAP], 1);
	/* Message 0 whole, message 1 truncated, message 2 lost, message 3 found by the resync scan. */
	assert_int_equal(c->n, 3);
	assert_false(c->m[0].truncated);
	assert_true(c->m[1].truncated);
	assert_int_equal(c->m[1].len, 96);
	assert_false(c->m[2].truncated);
	assert_int_equal(c->m[2].data[3], 23);
	c_free(c);
}

static void mid_stream_start(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, false);
	tmp.n = rec.n = 0;
	rpc_call(&tmp, 30, 7, 2000); /* a WRITE whose head we never see */
	rm(&rec, tmp.b, tmp.n, 1);
	const size_t cut = 1234;
	for (uint32_t i = 0; i < 2; i++) {
		tmp.n = 0;
		rpc_call(&tmp, 31 + i, 1, 12);
		rm(&rec, tmp.b, tmp.n, 1);
	}
	k.seq[1] += (uint32_t)cut;
	k_send(&k, 1, rec.b + cut, 500);
	k_send(&k, 1, rec.b + cut + 500, rec.n - cut - 500);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->m[0].app, RP_APP_RPC);
	assert_int_equal(c->m[0].data[3], 31);
	assert_int_equal(c->m[1].data[3], 32);
	/* The server's side also starts mid-stream, with the tail of a reply. */
	tmp.n = rec.n = 0;
	putpat(&rec, 77, 3);
	rpc_reply(&tmp, 31, 4);
	rm(&rec, tmp.b, tmp.n, 1);
	k_send(&k, 0, rec.b, rec.n);
	assert_int_equal(c->n, 3);
	assert_int_equal(c->m[2].from, 1);
	assert_int_equal(c->m[2].len, tmp.n);
	c_free(c);
}

static void netbios_framing(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 50000, 139, true);
	rec.n = 0;
	/* Session request (two encoded names), then SMB2 messages with a keep-alive between them. */
	put8(&rec, 0x81); put8(&rec, 0); put8(&rec, 0); put8(&rec, 68);
	put8(&rec, 0x20); putpat(&rec, 32, 'A'); put8(&rec, 0);
	put8(&rec, 0x20); putpat(&rec, 32, 'B'); put8(&rec, 0);
	smb2_msg(&rec, 0, 0, 36);
	put8(&rec, 0x85); put8(&rec, 0); put8(&rec, 0); put8(&rec, 0);
	smb2_msg(&rec, 1, 1, 5000);
	k_send(&k, 1, rec.b, 300);
	k_send(&k, 1, rec.b + 300, rec.n - 300);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->m[0].app, RP_APP_SMB);
	assert_int_equal(c->m[0].len, 100);
	assert_int_equal(c->m[0].data[0], 0xfe);
	assert_int_equal(c->m[1].len, 5064);
	assert_int_equal(c->m[1].data[12], 1);
	c_free(c);
}

static void unknown_flow_is_ignored(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 40000, 80, true);
	static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	k_send(&k, 1, (const uint8_t *)http, sizeof(http) - 1);
	const uint64_t before = c->count[RP_OUT_IGNORED];
	k_send(&k, 0, (const uint8_t *)http, sizeof(http) - 1);
	k_send(&k, 1, (const uint8_t *)http, sizeof(http) - 1);
	assert_int_equal(c->n, 0);
	assert_int_equal(c->count[RP_OUT_IGNORED], before + 2);
	c_free(c);
}

static void bad_record_mark_resyncs(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	rec.n = 0;
	tmp.n = 0;
	rpc_call(&tmp, 40, 1, 0);
	rm(&rec, tmp.b, tmp.n, 1);
	put32(&rec, 0x80000000u | (20u << 20)); /* a 20 MiB record: corruption */
	putpat(&rec, 64, 9);
	tmp.n = 0;
	rpc_call(&tmp, 41, 1, 0);
	rm(&rec, tmp.b, tmp.n, 1);
	k_send(&k, 1, rec.b, rec.n);
	assert_int_equal(c->count[RP_OUT_INVALID], 1);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->m[1].data[3], 41);
	c_free(c);
}

static void snaplen_cut_segment(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	tmp.n = rec.n = 0;
	rpc_reply(&tmp, 50, 3000);
	rm(&rec, tmp.b, tmp.n, 1);
	static buf seg, ip, fr;
	seg.n = ip.n = fr.n = 0;
	tcp_seg(&seg, 2049, 700, k.seq[0], k.seq[1], ACKF, rec.b, rec.n);
	ipv4(&ip, SRV4, CLI4, 6, 1, 0, seg.b, seg.n);
	eth(&fr, 0x0800);
	putn(&fr, ip.b, ip.n);
	rp__transport_packet(c->t, 1, c->ts + 1, fr.b, 14 + 20 + 20 + 200, (uint32_t)fr.n);
	k.seq[0] += (uint32_t)rec.n;
	tmp2.n = rec.n = 0;
	rpc_reply(&tmp2, 51, 0);
	rm(&rec, tmp2.b, tmp2.n, 1);
	k_send(&k, 0, rec.b, rec.n);
	assert_int_equal(c->n, 2);
	assert_true(c->m[0].truncated);
	assert_int_equal(c->m[0].len, 196);
	assert_int_equal(c->m[0].wire_len, tmp.n);
	assert_false(c->m[1].truncated);
	assert_int_equal(c->count[RP_OUT_GAP], 1);
	c_free(c);
}

static void window_drops_far_segments(void **state)
{
	(void)state;
	const rp_transport_limits lim = { .tcp_window = 4096 };
	collect *const c = c_new(&lim);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	static const uint8_t junk[100];
	k_send_at(&k, 1, 100000, junk, sizeof(junk));
	assert_int_equal(c->stats.segments_dropped, 1);
	c_free(c);
}

static unsigned frees;
static void count_free(void *p)
{
	(void)p;
	frees++;
}

static void on_msg_attach(void *user, rp_conn *conn, rp_app app, const rp_msg *m)
{
	if (!conn->proto_state) {
		conn->proto_state = &frees;
		conn->proto_free = count_free;
	}
	c_message(user, conn, app, m);
}

static void flows_expire_and_are_bounded(void **state)
{
	(void)state;
	const rp_transport_limits lim = { .max_flows = 2 };
	collect *const c = c_new(&lim);
	rp__transport_destroy(c->t);
	const rp_transport_hooks h = { .user = c, .message = on_msg_attach, .count = c_count };
	assert_int_equal(rp__transport_create(&c->t, &h, &lim, &c->stats), 0);
	frees = 0;
	tmp.n = rec.n = 0;
	rpc_call(&tmp, 60, 1, 0);
	rm(&rec, tmp.b, tmp.n, 1);
	tconn k[3];
	for (int i = 0; i < 3; i++) {
		k_open(&k[i], c, (uint16_t)(800 + i), 2049, true);
		k_send(&k[i], 1, rec.b, rec.n);
	}
	assert_int_equal(c->n, 3);
	assert_int_equal(rp__transport_flows(c->t), 2);
	assert_int_equal(c->stats.flows_evicted, 1);
	assert_int_equal(frees, 1);
	/* Close one with FIN both ways: it goes after the linger time passes. */
	c_tcp4(c, 1, 802, 2049, k[2].seq[1], k[2].seq[0], FINF | ACKF, NULL, 0);
	c_tcp4(c, 0, 802, 2049, k[2].seq[0], k[2].seq[1] + 1, FINF | ACKF, NULL, 0);
	assert_int_equal(rp__transport_flows(c->t), 2);
	c->ts += 3ull * 1000000000ull;
	k_send(&k[1], 1, rec.b, rec.n);
	assert_int_equal(rp__transport_flows(c->t), 1);
	assert_int_equal(frees, 2);
	/* RST: also gone after the linger. */
	c_tcp4(c, 1, 801, 2049, k[1].seq[1], k[1].seq[0], RSTF, NULL, 0);
	c->ts += 3ull * 1000000000ull;
	k_open(&k[0], c, 900, 2049, true);
	assert_int_equal(rp__transport_flows(c->t), 1);
	assert_int_equal(frees, 3);
	rp__transport_finish(c->t);
	assert_int_equal(rp__transport_flows(c->t), 0);
	c_free(c);
}

static void partial_message_at_end_is_truncated(void **state)
{
	(void)state;
	collect *const c = c_new(NULL);
	tconn k;
	k_open(&k, c, 700, 2049, true);
	tmp.n = rec.n = 0;
	rpc_call(&tmp, 70, 7, 4000);
	rm(&rec, tmp.b, tmp.n, 1);
	k_send(&k, 1, rec.b, 2000);
	assert_int_equal(c->n, 0);
	rp__transport_finish(c->t);
	assert_int_equal(c->n, 1);
	assert_true(c->m[0].truncated);
	assert_int_equal(c->m[0].len, 1996);
	c_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(several_rpcs_in_one_segment),
		cmocka_unit_test(one_rpc_over_many_segments),
		cmocka_unit_test(multi_fragment_record),
		cmocka_unit_test(retransmission_reordering_overlap),
		cmocka_unit_test(gap_inside_message),
		cmocka_unit_test(gap_across_boundary_resyncs),
		cmocka_unit_test(mid_stream_start),
		cmocka_unit_test(netbios_framing),
		cmocka_unit_test(unknown_flow_is_ignored),
		cmocka_unit_test(bad_record_mark_resyncs),
		cmocka_unit_test(snaplen_cut_segment),
		cmocka_unit_test(window_drops_far_segments),
		cmocka_unit_test(flows_expire_and_are_bounded),
		cmocka_unit_test(partial_message_at_end_is_truncated),
	};
	return cmocka_run_group_tests_name("capture-framing", tests, NULL, NULL);
}
