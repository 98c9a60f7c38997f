/* Fuzz target: a CSV I/O trace under each preset and a column map (the first byte picks), into a bounded memsink. */
#include <stdint.h>
#include <stdio.h>

#include "converters/csv.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const specs[] = { "msr", "fiu", "alibaba", "tencent",
					     "time=1,inode=2,op=3,offset=4,size=5,unit=s,header=1,sep=space,latency=6" };
	if (size < 1 || size > (1u << 20))
		return 0;
	char errbuf[RP_ERRBUF_SIZE];
	rp_csv_map map;
	if (rp_csv_map_parse(specs[data[0] % 5], &map, errbuf) < 0)
		return 0;
	rp_memsink m;
	if (rp_memsink_init(&m) != 0)
		return 0;
	m.max_ops = 1u << 16;
	FILE *const f = size > 1 ? fmemopen((void *)(uintptr_t)(data + 1), size - 1, "rb") : NULL;
	if (f) {
		rp_csv_stats st;
		(void)rp_csv_read(f, "fuzz", &map, (data[0] & 8) != 0, &m.base, &st, errbuf);
		fclose(f);
	}
	rp_memsink_fini(&m);
	return 0;
}
