/*
 * Fuzz target: compare's JSON loader (results/benchtab_json.c) over arbitrary
 * bytes, then the table, the JSON and the HTML of whatever it accepted.
 * tests/results/meson.build builds it with its corpus, tests/results/corpus_compare.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results/benchtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_bt_set *const s = rp__bt_set_create();
	if (!s)
		return 0;
	char err[1024];
	if (rp__bt_load_buffer(s, "fuzz", (const char *)data, size, err, sizeof(err)) == 0 && s->ntargets) {
		FILE *const f = fopen("/dev/null", "w");
		if (f) {
			const char *const in[] = { "fuzz" };
			(void)rp__bt_print(s, f);
			(void)rp__bt_json(s, in, 1, f);
			(void)rp__bt_html(s, in, 1, f);
			fclose(f);
		}
	}
	rp__bt_set_destroy(s);
	return 0;
}
