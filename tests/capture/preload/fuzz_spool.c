/* Fuzz target: one ring file's bytes through the spool reader (capture/preload/spool.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/preload/spool.h"
#include "capture/preload/tsc.h"
#include "tests/capture/preload/ringfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(void *ctx, const rp_sysev *ev)
{
	/* Touch the paths so a bad length shows under ASan. */
	volatile unsigned sum = 0;
	for (int i = 0; i < 2; i++)
		for (uint32_t k = 0; ev->p[i] && k < ev->plen[i]; k++)
			sum += (unsigned char)ev->p[i][k];
	(void)sum;
	(void)ctx;
	return 0;
}

/*
 * The input is the header's bytes then the data's.  An even first byte keeps
 * the header's identity fields (magic, version, sizes) valid and the ring
 * closed, so most inputs reach the record parser; an odd one keeps them as given.
 * The ring's clock flag picks the spool's clock (a TSC ring's ticks go through
 * the mapping to ns); an odd input may give a ring the other spool's clock.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_ring_hdr h;
	memset(&h, 0, sizeof h);
	memcpy(&h, data, size < sizeof h ? size : sizeof h);
	const size_t off = size < sizeof h ? size : sizeof h;
	if (size == 0 || (data[0] & 1) == 0) {
		h.magic = RP_RING_MAGIC;
		h.version = RP_RING_VERSION;
		h.hdr_size = RP_RING_HDR_SIZE;
		h.data_size = RP_RING_MIN_SIZE;
		h.pid = 1;
		h.tid = 1;
		h.tail = 0;
		h.head %= RP_RING_MIN_SIZE + 64;
		h.closed = 1;
	}
	uint8_t *const ring = calloc(1, RP_RING_MIN_SIZE);
	if (!ring)
		return 0;
	memcpy(ring, data + off, size - off < RP_RING_MIN_SIZE ? size - off : RP_RING_MIN_SIZE);
	rp_spool *s;
	char eb[256];
	const bool tsc = RP_HAVE_TSC && (h.flags & RP_RING_F_TSC);
	if (rp_spool_create(&s, "/tmp", 0, tsc ? RP_SPOOL_CLOCK_TSC : RP_SPOOL_CLOCK_MONOTONIC, eb) == 0) {
		if (ringfile_write(rp_spool_dir(s), "1.1.1", &h, ring, RP_RING_MIN_SIZE) == 0)
			rp_spool_poll(s, true, sink, NULL);
		rp_spool_destroy(s);
	}
	free(ring);
	return 0;
}
