/*
 * Fuzz target: a share of an MPI run's results as another rank sends it (replay/merge.c), never
 * trusted.  The input is either the share itself (first byte 0) or edits of a real packed share
 * (first byte 1: a length in the next two bytes, cut to the share's, then (offset, value) pairs of three bytes),
 * so the fuzzer reaches the parser's depths without a corpus of binary blobs.  Whatever is accepted
 * must merge with a real share and survive a second pack and unpack with its counts intact.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/hist.h"
#include "replay/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *real;
static size_t real_n;

/* A real share: one op kind's latencies over several decades, as a run would pack them. */
static void make_real(void)
{
	static rp_hist h;
	rp_replay_results res;
	memset(&res, 0, sizeof(res));
	res.backend = "null";
	res.stop = RP_STOP_END;
	res.speed = 1;
	rp__hist_init(&h);
	for (uint64_t v = 1; v < 20000; v += 7)
		rp__hist_add(&h, v * v / 13 + 1);
	res.op[RP_OP_READ].count = h.count;
	res.op[RP_OP_READ].hist = &h;
	res.ops = h.count;
	res.bytes = 4096 * h.count;
	res.hist = &h;
	if (rp_replay_results_pack(&res, &real, &real_n) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!real)
		make_real();
	if (size == 0)
		return 0;
	uint8_t *buf;
	size_t n;
	if (data[0] == 0 || size < 3) {
		n = size - 1;
		buf = malloc(n ? n : 1); /* exactly n bytes: ASan sees any read past them */
		if (!buf)
			return 0;
		memcpy(buf, data + 1, n);
	} else {
		n = (size_t)data[1] << 8 | data[2];
		if (n > real_n)
			n = real_n; /* 0xffff: all of it */
		buf = malloc(n ? n : 1);
		if (!buf)
			return 0;
		memcpy(buf, real, n);
		for (size_t i = 3; n && i + 3 <= size; i += 3)
			buf[((size_t)data[i] << 8 | data[i + 1]) % n] = data[i + 2];
	}
	char eb[RP_ERRBUF_SIZE];
	rp_replay_merge *m = NULL;
	if (rp_replay_merge_create(&m, 2) != 0)
		abort();
	if (rp_replay_merge_add(m, 0, buf, n, eb) == 0 && rp_replay_merge_add(m, 1, real, real_n, eb) == 0 &&
	    rp_replay_merge_run(m, eb) == 0) {
		const rp_replay_results *const a = rp_replay_merge_part(m, 0);
		const rp_replay_results *const g = rp_replay_merge_results(m);
		if (!a || !g)
			abort();
		/* The merged results pack and unpack again, to the same counts. */
		uint8_t *p = NULL;
		size_t pn = 0;
		rp_replay_merge *m2 = NULL;
		if (rp_replay_results_pack(g, &p, &pn) != 0 || rp_replay_merge_create(&m2, 1) != 0)
			abort();
		if (rp_replay_merge_add(m2, 0, p, pn, eb) != 0 || rp_replay_merge_run(m2, eb) != 0)
			abort();
		const rp_replay_results *const g2 = rp_replay_merge_results(m2);
		if (g2->ops != g->ops || g2->bytes != g->bytes || g2->clients != g->clients ||
		    g2->mismatches != g->mismatches)
			abort();
		rp_replay_merge_destroy(m2);
		free(p);
	}
	rp_replay_merge_destroy(m);
	free(buf);
	return 0;
}
