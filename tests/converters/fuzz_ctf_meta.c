/* Fuzz target: the metadata packet check (converters/ctf_dir.c) that keeps files libbabeltrace2 2.0 loops on from reaching it. */
#include <stddef.h>
#include <stdint.h>

#include "converters/ctf.h"
#include "formats/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char eb[RP_ERRBUF_SIZE];
	(void)rp_ctf_check_metadata(data, size, "fuzz", eb);
	return 0;
}
