/* Fuzz target: the dbench loadfile reader over arbitrary bytes, in strict and lenient modes, with a rewind. */
#include <stddef.h>
#include <stdint.h>

#include "formats/loadfile.h"

/* Enough to run through LOOPs that a fuzzer writes with huge counts, not so many that a run stalls. */
#define MAX_OPS 100000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int lenient = 0; lenient < 2; lenient++) {
		char eb[RP_ERRBUF_SIZE];
		rp_reader *r = NULL;
		const rp_read_opts o = { .lenient = lenient != 0 };
		if (rp_loadfile_reader_open_mem(&r, data, size, "fuzz", &o, eb) < 0)
			continue;
		for (int pass = 0; pass < 2; pass++) {
			rp_op op;
			for (unsigned n = 0; n < MAX_OPS && rp_reader_next(r, &op) > 0; n++) {
				uint32_t len;
				(void)rp_reader_string(r, op.path, &len);
			}
			rp_reader_rewind(r);
		}
		rp_reader_close(r);
	}
	return 0;
}
