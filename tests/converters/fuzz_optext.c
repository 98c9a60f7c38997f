/* Fuzz target: the canonical text form parser (converters/optext.c) over arbitrary bytes, strict and lenient. */
#include <stddef.h>
#include <stdint.h>

#include "converters/optext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)rp_optext_sniff(data, size);
	for (int lenient = 0; lenient < 2; lenient++) {
		rp_memsink m;
		if (rp_memsink_init(&m) < 0)
			return 0;
		char eb[RP_ERRBUF_SIZE];
		const rp_optext_opts o = { .lenient = lenient != 0 };
		uint64_t skipped = 0;
		(void)rp_optext_parse_mem(data, size, "fuzz", &m.base, &o, &skipped, eb);
		rp_memsink_fini(&m);
	}
	return 0;
}
