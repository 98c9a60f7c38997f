/* TCP reassembly alone: the byte stream out equals the stream in, whatever the segments did. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture/net/tcp.h"

#define STREAM 200000

typedef struct sink {
	uint8_t out[STREAM + 1000];
	size_t n;
	uint64_t gaps, gap_bytes;
	uint64_t last_frame;
} sink;

static void on_data(void *ctx, uint8_t dir, const uint8_t *p, uint32_t n, uint64_t ts, uint64_t frame)
{
	(void)dir;
	(void)ts;
	sink *const s = ctx;
	memcpy(s->out + s->n, p, n);
	s->n += n;
	s->last_frame = frame;
}

static void on_gap(void *ctx, uint8_t dir, uint32_t n, uint64_t ts, uint64_t frame)
{
	(void)dir;
	(void)ts;
	(void)frame;
	sink *const s = ctx;
	s->gaps++;
	s->gap_bytes += n;
	memset(s->out + s->n, 0xee, n < 1000 ? n : 0);
	s->n += n;
}

static uint8_t stream[STREAM];
static sink got;

static rp_tcp_ctx ctx_for(sink *s)
{
	memset(s, 0, sizeof(*s));
	return (rp_tcp_ctx){
		.window = 1u << 20,
		.max_queued = 8u << 20,
		.hole_timeout_ns = 10ull * 1000000000ull,
		.out = { .ctx = s, .data = on_data, .gap = on_gap },
	};
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static rp_tcp_seginfo seg(uint32_t isn, uint32_t off, uint32_t len, uint8_t flags, uint64_t ts)
{
	return (rp_tcp_seginfo){ .seq = isn + 1 + off, .flags = flags, .data = stream + off, .len = len,
				 .wire_len = len, .ts_ns = ts, .frame = ts };
}

/* Random segment sizes, local shuffles, duplicates and overlapping re-sends; an ISN near the wrap. */
static void random_segments_reassemble(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < STREAM; i++)
		stream[i] = (uint8_t)rnd(256);
	const uint32_t isns[] = { 1, 0xfffff000u, 0x7fffffffu };
	for (int round = 0; round < 3; round++) {
		rp_tcp_ctx t = ctx_for(&got);
		rp_tcp_dir dirs[2];
		memset(dirs, 0, sizeof(dirs));
		const uint32_t isn = isns[round];
		rp_tcp_seginfo s = { .seq = isn, .flags = RP_TCP_SYN };
		assert_int_equal(rp__tcp_segment(&t, dirs, 0, &s), RP_TCP_OK);
		/* Cut the stream, then send it in windows of 8 segments in random order, some twice. */
		enum { MAXSEG = 4096 };
		static uint32_t offs[STREAM / 10], lens[STREAM / 10];
		uint32_t n = 0;
		for (uint32_t off = 0; off < STREAM; n++) {
			const uint32_t len = 1 + rnd(MAXSEG);
			offs[n] = off;
			lens[n] = off + len > STREAM ? STREAM - off : len;
			off += lens[n];
		}
		uint64_t ts = 1;
		for (uint32_t w = 0; w < n; w += 8) {
			uint32_t idx[8], k = 0;
			for (uint32_t i = w; i < n && i < w + 8; i++)
				idx[k++] = i;
			for (uint32_t i = k; i > 1; i--) {
				const uint32_t j = rnd(i), tmp = idx[i - 1];
				idx[i - 1] = idx[j];
				idx[j] = tmp;
			}
			for (uint32_t i = 0; i < k; i++) {
				const uint32_t x = idx[i];
				s = seg(isn, offs[x], lens[x], RP_TCP_ACK, ts++);
				rp__tcp_segment(&t, dirs, 0, &s);
				if (rnd(4) == 0)
					rp__tcp_segment(&t, dirs, 0, &s);
				if (rnd(5) == 0 && offs[x] >= 100) { /* re-send straddling old and new bytes */
					s = seg(isn, offs[x] - 100, lens[x] + 100 > STREAM - offs[x] + 100 ? lens[x] : lens[x] + 100,
						RP_TCP_ACK, ts++);
					if (offs[x] - 100 + s.len <= STREAM)
						rp__tcp_segment(&t, dirs, 0, &s);
				}
			}
		}
		assert_int_equal(got.gaps, 0);
		assert_int_equal(got.n, STREAM);
		assert_memory_equal(got.out, stream, STREAM);
		assert_null(dirs[0].ooo);
		assert_int_equal(t.queued, 0);
	}
}

static void loss_seen_through_the_ack(void **state)
{
	(void)state;
	rp_tcp_ctx t = ctx_for(&got);
	rp_tcp_dir dirs[2];
	memset(dirs, 0, sizeof(dirs));
	rp_tcp_seginfo s = { .seq = 99, .flags = RP_TCP_SYN };
	rp__tcp_segment(&t, dirs, 0, &s);
	s = seg(99, 0, 1000, RP_TCP_ACK, 1);
	rp__tcp_segment(&t, dirs, 0, &s);
	s = seg(99, 2000, 1000, RP_TCP_ACK, 2); /* [1000, 2000) lost */
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_int_equal(got.n, 1000);
	/* The peer acknowledges everything: the hole will never be filled. */
	rp_tcp_seginfo a = { .seq = 5, .ack = 99 + 1 + 3000, .flags = RP_TCP_ACK, .ts_ns = 3 };
	rp__tcp_segment(&t, dirs, 1, &a);
	assert_int_equal(got.gaps, 1);
	assert_int_equal(got.gap_bytes, 1000);
	assert_int_equal(got.n, 3000);
	assert_memory_equal(got.out + 2000, stream + 2000, 1000);
	/* A late copy of the lost segment is old news now. */
	s = seg(99, 1000, 1000, RP_TCP_ACK, 4);
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_int_equal(got.n, 3000);
}

static void loss_at_the_tail_waits_for_the_ack(void **state)
{
	(void)state;
	rp_tcp_ctx t = ctx_for(&got);
	rp_tcp_dir dirs[2];
	memset(dirs, 0, sizeof(dirs));
	rp_tcp_seginfo s = seg(0, 0, 500, RP_TCP_ACK, 1); /* mid-stream: no SYN */
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_int_equal(got.n, 500);
	rp_tcp_seginfo a = { .seq = 5, .ack = 1 + 800, .flags = RP_TCP_ACK, .ts_ns = 2 };
	rp__tcp_segment(&t, dirs, 1, &a);
	assert_int_equal(got.gap_bytes, 300);
	s = seg(0, 800, 100, RP_TCP_ACK, 3);
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_int_equal(got.n, 900);
	assert_memory_equal(got.out + 800, stream + 800, 100);
}

static void hole_timeout_and_window(void **state)
{
	(void)state;
	rp_tcp_ctx t = ctx_for(&got);
	t.window = 10000;
	rp_tcp_dir dirs[2];
	memset(dirs, 0, sizeof(dirs));
	rp_tcp_seginfo s = { .seq = 0, .flags = RP_TCP_SYN };
	rp__tcp_segment(&t, dirs, 0, &s);
	s = seg(0, 100, 100, RP_TCP_ACK, 1000);
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_int_equal(got.n, 0);
	s = seg(0, 50000, 100, RP_TCP_ACK, 2000); /* beyond the window */
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_int_equal(t.dropped, 1);
	s = seg(0, 300, 100, RP_TCP_ACK, 11ull * 1000000000ull);
	rp__tcp_segment(&t, dirs, 0, &s); /* the hole at [0,100) is older than the timeout */
	assert_int_equal(got.gaps, 1);
	assert_int_equal(got.n, 200);
	/* Queue more than the window: the oldest hole gives way. */
	for (uint32_t off = 1000; off < 30000; off += 1000) {
		s = seg(0, off, 1000, RP_TCP_ACK, 11ull * 1000000000ull + off);
		rp__tcp_segment(&t, dirs, 0, &s);
	}
	assert_true(got.gaps >= 2);
	assert_true(dirs[0].ooo_bytes <= 10000);
	rp__tcp_flush(&t, &dirs[0], 0, 0, 0);
	assert_null(dirs[0].ooo);
	assert_int_equal(t.queued, 0);
	assert_int_equal(got.n, 30000);
}

/*
 * Out-of-order segments are bounded by the memory they hold, globally: 64
 * connections each queue tiny segments (1 byte, or 0 captured of 1 on the wire:
 * cut by the snaplen) behind holes that never fill.  Counted as payload bytes,
 * 25,600 such segments were "12,800 bytes" under a 64 KiB bound while holding
 * some 1.6 MB.
 */
#define FLOWS 64
static void out_of_order_memory_is_bounded(void **state)
{
	(void)state;
	for (int snapped = 0; snapped < 2; snapped++) {
		rp_tcp_ctx t = ctx_for(&got);
		t.max_queued = 64u << 10;
		static rp_tcp_dir dirs[FLOWS][2];
		memset(dirs, 0, sizeof(dirs));
		const struct mallinfo2 before = mallinfo2();
		size_t peak = 0;
		for (uint32_t k = 0; k < 400; k++) {
			for (int f = 0; f < FLOWS; f++) {
				if (k == 0) {
					rp_tcp_seginfo syn = { .seq = 0, .flags = RP_TCP_SYN };
					rp__tcp_segment(&t, dirs[f], 0, &syn);
				}
				/* byte 2k+1 of the stream, always with the hole at 2k before it */
				rp_tcp_seginfo s = seg(0, 2 * k + 1, 1, RP_TCP_ACK, 1000 + k);
				s.len = snapped ? 0 : 1;
				rp__tcp_segment(&t, dirs[f], 0, &s);
				assert_true(t.queued <= t.max_queued);
			}
			const struct mallinfo2 now = mallinfo2();
			if (now.uordblks > before.uordblks && now.uordblks - before.uordblks > peak)
				peak = now.uordblks - before.uordblks;
		}
		/* the holes were given up (as gaps, counted), and the heap never held much more than the bound */
		assert_true(t.queue_full > 0);
		assert_true(got.gaps > 0);
		assert_true(peak <= t.max_queued + (16u << 10));
		for (int f = 0; f < FLOWS; f++)
			rp__tcp_free(&t, &dirs[f][0]);
		assert_int_equal(t.queued, 0);
	}
}

static void snaplen_and_fin_and_new_syn(void **state)
{
	(void)state;
	rp_tcp_ctx t = ctx_for(&got);
	rp_tcp_dir dirs[2];
	memset(dirs, 0, sizeof(dirs));
	rp_tcp_seginfo s = { .seq = 10, .flags = RP_TCP_SYN };
	rp__tcp_segment(&t, dirs, 0, &s);
	s = seg(10, 0, 1000, RP_TCP_ACK, 1);
	s.len = 300; /* only 300 of 1000 bytes captured */
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_int_equal(got.gaps, 1);
	assert_int_equal(got.gap_bytes, 700);
	s = seg(10, 1000, 0, RP_TCP_ACK | RP_TCP_FIN, 2);
	rp__tcp_segment(&t, dirs, 0, &s);
	assert_true(dirs[0].fin);
	assert_true(dirs[0].done);
	s = (rp_tcp_seginfo){ .seq = 777777, .flags = RP_TCP_SYN };
	assert_int_equal(rp__tcp_segment(&t, dirs, 0, &s), RP_TCP_NEWCONN);
	s = (rp_tcp_seginfo){ .seq = 10, .flags = RP_TCP_RST };
	assert_int_equal(rp__tcp_segment(&t, dirs, 0, &s), RP_TCP_RESET);
}

static void header_parse(void **state)
{
	(void)state;
	uint8_t h[24] = { 0x02, 0xbd, 0x08, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0,
			  'a', 'b', 'c', 'd' };
	rp_tcp_seginfo s;
	assert_int_equal(rp__tcp_header(h, 24, 30, 5, 6, &s), 0);
	assert_int_equal(s.sport, 701);
	assert_int_equal(s.dport, 2049);
	assert_int_equal(s.seq, 1);
	assert_int_equal(s.ack, 2);
	assert_int_equal(s.flags, 0x18);
	assert_int_equal(s.len, 4);
	assert_int_equal(s.wire_len, 10);
	assert_int_equal(rp__tcp_header(h, 19, 30, 5, 6, &s), -1);
	h[12] = 0x40; /* data offset 16 */
	assert_int_equal(rp__tcp_header(h, 24, 30, 5, 6, &s), -2);
	h[12] = 0xf0; /* 60 bytes of header, 24 captured */
	assert_int_equal(rp__tcp_header(h, 24, 80, 5, 6, &s), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_segments_reassemble),
		cmocka_unit_test(loss_seen_through_the_ack),
		cmocka_unit_test(loss_at_the_tail_waits_for_the_ack),
		cmocka_unit_test(hole_timeout_and_window),
		cmocka_unit_test(snaplen_and_fin_and_new_syn),
		cmocka_unit_test(out_of_order_memory_is_bounded),
		cmocka_unit_test(header_parse),
	};
	return cmocka_run_group_tests_name("capture-tcp", tests, NULL, NULL);
}
