/*
 * Fuzz target: the model reader (results/model_json.c) over arbitrary bytes, then what it accepted
 * written back and a short trace generated from it into a memory sink (at most a few thousand ops).
 * tests/results/meson.build builds it with its corpus, tests/results/corpus_model.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/sink.h"
#include "results/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_model m;
	char err[512];
	if (rp_model_read_json(&m, (const char *)data, size, err, sizeof(err)) < 0)
		return 0;
	FILE *const f = fopen("/dev/null", "w");
	if (f) {
		(void)rp_model_write_json(&m, f, err, sizeof(err));
		fclose(f);
	}
	rp_memsink ms;
	if (rp_memsink_init(&ms) == 0) {
		ms.max_ops = 20000; /* what a model asks for can be huge: the fuzzer looks at the reading, not the volume */
		const rp_gen_opts o = { .clients = 2, .seed = 1, .duration_ns = 3000000000u };
		rp_gen_stats st;
		char eb[RP_ERRBUF_SIZE];
		(void)rp_model_generate(&m, &o, &ms.base, &st, eb);
		rp_memsink_fini(&ms);
	}
	rp_model_free(&m);
	return 0;
}
