/* Fuzz target: any bytes through the .rpz reader (open, read every op, rewind, read again, seek by time). */
#include <stddef.h>
#include <stdint.h>

#include "formats/rpz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	if (rp_rpz_reader_open_mem(&r, data, size, NULL, eb) < 0)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		rp_op op;
		uint64_t sum = 0;
		int rc;
		while ((rc = rp_reader_next(r, &op)) > 0) {
			uint32_t len = 0;
			const char *const s = rp_reader_string(r, op.path, &len);
			sum += op.t_start + (s && len ? (uint8_t)s[len - 1] : 0);
		}
		(void)sum;
		if (rc < 0 || rp_reader_rewind(r) < 0)
			break;
	}
	rp_rpz_info info;
	if (rp_rpz_reader_info(r, &info) == 0 && info.has_index) {
		rp_rpz_frame_info fi;
		uint64_t t = 0;
		for (uint32_t i = 0; i < info.frames && i < 64; i++)
			if (rp_rpz_reader_frame(r, i, &fi) == 0 && fi.n_ops)
				t = fi.t_first;
		/* A seek to the last frame's time passes over the others' ops; what follows still reads */
		uint64_t skipped = 0;
		if (rp_reader_rewind(r) == 0 && rp_rpz_reader_seek_time(r, t, &skipped, eb) == 0) {
			rp_op op;
			while (rp_reader_next(r, &op) > 0)
				(void)rp_reader_string(r, op.path, NULL);
		}
	}
	rp_reader_close(r);
	return 0;
}
