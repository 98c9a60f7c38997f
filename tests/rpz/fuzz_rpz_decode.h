/* The frame decode the .rpz fuzz targets share: one frame's content through every op, as a reader does. */
#ifndef REPRISE_TESTS_RPZ_FUZZ_DECODE_H
#define REPRISE_TESTS_RPZ_FUZZ_DECODE_H

#include "formats/rpz_internal.h"

/* Decode data[0..size) as frame `frame`, its first op numbered first_op: 0 when whole, < 0 when refused. */
static inline int fz_decode_frame(rpz_dec *d, const uint8_t *data, size_t size, uint64_t frame, uint64_t first_op,
				  rp_strtab *tab, char *eb)
{
	if (rp__rpz_open(d, data, size, frame, first_op, tab, eb) < 0)
		return -1;
	rp_op op;
	int rc;
	while ((rc = rp__rpz_next(d, &op, eb)) > 0) {
	}
	return rc;
}

#endif
