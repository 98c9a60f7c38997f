/* Fuzz target: the --clients and --ops list parsers (converters/filter.c) over arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "converters/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parsers take C strings: the input up to its first NUL, as a command line would give it. */
	char *const s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	rp_filter_range r[RP_FILTER_RANGES_MAX];
	size_t n = 0;
	char eb[RP_ERRBUF_SIZE];
	if (rp_filter_parse_clients(s, r, RP_FILTER_RANGES_MAX, &n, eb) == 0)
		for (size_t i = 0; i < n; i++)
			if (r[i].lo > r[i].hi || n > RP_FILTER_RANGES_MAX)
				abort(); /* a parsed range is ordered, and no more than asked for */
	uint64_t mask = 0;
	if (rp_filter_parse_ops(s, &mask, eb) == 0 && (mask == 0 || mask >> RP_OP__COUNT))
		abort(); /* a parsed list names at least one op, and only known ones */
	free(s);
	return 0;
}
