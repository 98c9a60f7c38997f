/* Fuzz target: the syscall model (formats/sysmodel*.c) over events decoded from arbitrary bytes (layout below). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/cursor.h"
#include "formats/sysev.h"

/*
 * Input: one options byte (bit 0 a client per process, bit 1 --only /w,
 * bit 2 at most 4 clients, bit 3 --exclude /w/x), then events until the
 * bytes end: nr, flags, pid, tid, time step (one byte each), ret and
 * a0..a5 as compact numbers, then for p0 and p1 a length byte (255: no
 * path) and that many bytes.  A compact number is one byte: below 0x80 the
 * value minus 16 (-16..111: fds, flags, -1, -2), 0x80 AT_FDCWD, 0x81 eight
 * bytes little-endian, 0x82 INT64_MIN, 0x83 INT64_MAX, above 0x83 a
 * multiple of 1024 (offsets, sizes).
 */
static int64_t compact(rp_cur *c)
{
	const uint8_t b = rp_cur_u8(c);
	if (b < 0x80)
		return (int64_t)b - 16;
	switch (b) {
	case 0x80: return -100;
	case 0x81: return (int64_t)rp_cur_le64(c);
	case 0x82: return INT64_MIN;
	case 0x83: return INT64_MAX;
	default: return (int64_t)(b - 0x83) * 1024;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_cur c = rp_cur_make(data, size);
	const uint8_t o = rp_cur_u8(&c);
	const rp_sysmodel_opts opts = {
		.process_clients = o & 1,
		.only = o & 2 ? "/w" : NULL,
		.max_clients = o & 4 ? 4 : 0,
		.exclude = o & 8 ? "/w/x" : NULL,
		.clock_offset_ns = o & 16 ? 1000 : 0,
	};
	rp_memsink m;
	if (rp_memsink_init(&m) < 0)
		return 0;
	char eb[RP_ERRBUF_SIZE];
	rp_sysmodel *sm = NULL;
	if (rp_sysmodel_create(&sm, &m.base, &opts, eb) < 0) {
		rp_memsink_fini(&m);
		return 0;
	}
	uint64_t t = 0;
	while (rp_cur_left(&c)) {
		rp_sysev ev;
		memset(&ev, 0, sizeof(ev));
		ev.nr = rp_cur_u8(&c);
		ev.flags = rp_cur_u8(&c);
		ev.pid = rp_cur_u8(&c);
		ev.tid = rp_cur_u8(&c);
		t += rp_cur_u8(&c);
		ev.t_start = t;
		ev.t_end = t + 5;
		ev.ret = compact(&c);
		for (unsigned i = 0; i < RP_SYSEV_ARGS; i++)
			ev.a[i] = compact(&c);
		for (unsigned i = 0; i < 2; i++) {
			const uint8_t len = rp_cur_u8(&c);
			if (len == 255)
				continue;
			ev.p[i] = (const char *)rp_cur_take(&c, len);
			ev.plen[i] = ev.p[i] ? len : 0;
		}
		if (c.err)
			break;
		if (rp_sysmodel_event(sm, &ev) < 0)
			break;
	}
	(void)rp_sysmodel_finish(sm);
	(void)rp_sysmodel_get_stats(sm);
	rp_sysmodel_destroy(sm);
	rp_memsink_fini(&m);
	return 0;
}
