/* Fuzz target: nfsdump text, plain or gzip'd (the first bytes decide), through the reader into a bounded memsink. */
#include <stdint.h>
#include <stdlib.h>

#include "capture/nfsdump.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	rp_memsink m;
	if (rp_memsink_init(&m) != 0)
		return 0;
	m.max_ops = 1u << 16; /* a gzip bomb's ops stop at this, as an error */
	char errbuf[RP_ERRBUF_SIZE];
	/* A short timeout: no-reply ops leave early, so the emission ring is exercised too. */
	const rp_capture_opts opts = { .match_timeout_ns = 1000000000ull };
	rp_nfsdump_stats st;
	(void)rp_nfsdump_mem(data, size, "fuzz", &m.base, &opts, &st, errbuf);
	(void)rp_nfsdump_sniff(data, size < 4096 ? size : 4096);
	rp_memsink_fini(&m);
	return 0;
}
