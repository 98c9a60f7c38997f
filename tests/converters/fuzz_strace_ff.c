/* Fuzz target: strace -ff files merged (converters/strace_ff.c): the input split at 0xff bytes into up to four files, merged strict and lenient. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "converters/strace.h"

/* Files per input: enough to interleave and to link a fork, few enough to stay fast. */
#define FILES 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[FILES] = { "run.1", "run.2", "run.3", "run.40000" };
	static const char empty[] = "\n";
	const uint8_t *part[FILES];
	size_t len[FILES], n = 0, at = 0;
	while (n < FILES) {
		const uint8_t *const sep = at < size ? memchr(data + at, 0xff, size - at) : NULL;
		const size_t end = sep && n + 1 < FILES ? (size_t)(sep - data) : size;
		part[n] = data + at;
		len[n++] = end - at;
		if (end == size)
			break;
		at = end + 1;
	}
	for (int mode = 0; mode < 2; mode++) {
		FILE *fs[FILES];
		size_t k = 0;
		for (; k < n; k++) {
			/* fmemopen of nothing is refused: an empty file is one blank line */
			fs[k] = len[k] ? fmemopen((void *)part[k], len[k], "r") : fmemopen((void *)empty, 1, "r");
			if (!fs[k])
				break;
		}
		if (k == n) {
			rp_memsink m;
			if (rp_memsink_init(&m) == 0) {
				char eb[RP_ERRBUF_SIZE], summary[512];
				const rp_strace_opts o = { .lenient = mode != 0 };
				uint64_t skipped = 0;
				(void)rp_strace_ff_merge(fs, names, n, "fuzz", &m.base, &o, &skipped, summary, sizeof(summary), eb);
				rp_memsink_fini(&m);
			}
		}
		for (size_t i = 0; i < k; i++)
			fclose(fs[i]);
	}
	return 0;
}
