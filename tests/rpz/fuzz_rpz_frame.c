/*
 * Fuzz target: decompressed frame content straight into the column decoder.
 * Checksums guard the decoder in files, so fuzzing through files rarely
 * reaches it; this target feeds it directly.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_rpz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_strtab *const tab = rp_strtab_create();
	if (!tab)
		return 0;
	rpz_dec d = { 0 };
	char eb[RP_ERRBUF_SIZE];
	/* the first pass defines strings; the second compares them as a rewind does */
	for (int pass = 0; pass < 2; pass++) {
		d.strings_end = 0;
		if (fz_decode_frame(&d, data, size, 0, 0, tab, eb) < 0)
			break;
	}
	rp__rpz_dec_fini(&d);
	rp_strtab_destroy(tab);
	return 0;
}
