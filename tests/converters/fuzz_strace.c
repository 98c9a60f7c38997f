/* Fuzz target: the strace log parser (converters/strace*.c) over arbitrary bytes, strict and lenient, with and without a -ff pid. */
#include <stddef.h>
#include <stdint.h>

#include "converters/strace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)rp_strace_sniff(data, size);
	for (int mode = 0; mode < 3; mode++) {
		rp_memsink m;
		if (rp_memsink_init(&m) < 0)
			return 0;
		char eb[RP_ERRBUF_SIZE];
		char summary[512];
		const rp_strace_opts o = { .lenient = mode != 0, .pid = mode == 2 ? 77 : 0 };
		uint64_t skipped = 0;
		(void)rp_strace_parse_mem(data, size, "fuzz", &m.base, &o, &skipped, summary, sizeof(summary), eb);
		rp_memsink_fini(&m);
	}
	return 0;
}
