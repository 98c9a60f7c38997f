/*
 * Fuzz target: the pattern layer's repeat column (docs/rpz-format.md §4.4) through the frame
 * decoder, over several frames that share one window.  Input: a le16 window in ops (its low 15
 * bits, 0 meaning 1; bit 15: the header feature of shifted repeats and derived strings, §4.5), then frames, each a le16 length and that many bytes of frame content; the frames decode
 * in order as a reader's do (frame numbers and first ops counted on, the window kept).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_rpz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	rp_strtab *const tab = rp_strtab_create();
	if (!tab)
		return 0;
	rpz_dec d = { 0 };
	const uint32_t window = (uint32_t)data[0] | (uint32_t)data[1] << 8;
	d.hist.window = window & 0x7fff ? window & 0x7fff : 1;
	d.shift = (window & 0x8000) != 0;
	char eb[RP_ERRBUF_SIZE];
	size_t pos = 2;
	uint64_t frame = 0, ops = 0;
	while (pos + 2 <= size) {
		const size_t len = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
		pos += 2;
		if (len > size - pos)
			break;
		if (fz_decode_frame(&d, data + pos, len, frame, ops, tab, eb) < 0)
			break;
		ops += d.n_ops;
		frame++;
		pos += len;
	}
	rp__rpz_dec_fini(&d);
	rp_strtab_destroy(tab);
	return 0;
}
