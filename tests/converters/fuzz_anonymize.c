/* Fuzz target: the anonymizer's mapper (converters/anonymize.c) over arbitrary names, in every role. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "converters/anonymize.h"

static size_t seps(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '/' || s[i] == '\\';
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size - 1 > RP_STR_MAX)
		return 0;
	const rp_anon_opts o = { .keep_ext = data[0] & 1 };
	rp_anon *a = NULL;
	char eb[RP_ERRBUF_SIZE];
	if (rp_anon_create(&a, "fuzz-key-0123456789", 19, &o, NULL, eb) < 0)
		return 0;
	const char *const s = (const char *)data + 1;
	const uint32_t n = (uint32_t)(size - 1);
	for (int role = 0; role < RP_ANON__ROLES; role++) {
		const char *r = NULL;
		uint32_t rl = 0;
		if (rp_anon_map(a, (rp_anon_role)role, s, n, &r, &rl, eb) < 0)
			continue;
		if (role != RP_ANON_PATH)
			continue;
		/* A path keeps its separators, and (without --keep-ext) only . of its own bytes. */
		if (seps(r, rl) != seps(s, n))
			abort();
		for (uint32_t i = 0; i < rl && !o.keep_ext; i++) {
			const char c = r[i];
			if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7') || c == '.' || c == '/' || c == '\\'))
				abort();
		}
	}
	uint32_t v = 0;
	if (size >= 5)
		(void)rp_anon_id(a, (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 |
					    (uint32_t)data[4] << 24, data[0] & 2, &v);
	rp_anon_destroy(a);
	return 0;
}
