/* Fuzz target: the reprise event decoder and the start-time orderer (converters/ctf_events.c) over fields made from arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "converters/ctf.h"
#include "formats/cursor.h"

/*
 * The input is a run of events, each
 *   [name length: 1 byte, at most 40] [name] [field count: 1 byte]
 *   then per field [name: 1 byte, an index into the names below]
 *   [kind: 1 byte, mod 5: uint, sint, string, other, huge string] [value: 8
 *   bytes LE] and, for a string, [length: 2 bytes LE] [bytes] (4: a length over
 *   RP_SYSEV_PATH_MAX that the bytes do not back, as a huge sequence would
 *   claim: the decoder must refuse it by its length alone)
 * and every decoded event is pushed with its t_end as the emission time into
 * an orderer with small limits, so its release paths are reached.
 */
static const char *const names[] = {
	"pid", "tid", "ret", "t_start", "t_end", "flags", "a0", "a1", "a2", "a3", "a4", "a5", "p0", "p1", "x",
};

static int touch(void *ctx, const rp_sysev *ev)
{
	uint64_t *const sum = ctx;
	for (int i = 0; i < 2; i++)
		for (uint32_t j = 0; ev->p[i] && j < ev->plen[i]; j++)
			*sum += (unsigned char)ev->p[i][j]; /* reads every byte the event claims */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t sum = 0;
	rp_ctf_order *o = NULL;
	if (rp_ctf_order_create(&o, touch, &sum, 4, 64) < 0)
		return 0;
	rp_cur c = rp_cur_make(data, size);
	while (rp_cur_left(&c) > 0) {
		char name[48];
		const size_t nl = rp_cur_u8(&c) % 41;
		const uint8_t *const nb = rp_cur_take(&c, nl);
		if (!nb)
			break;
		memcpy(name, nb, nl);
		name[nl] = '\0';
		rp_ctf_field f[RP_CTF_FIELDS_MAX];
		const size_t n = rp_cur_u8(&c) % (RP_CTF_FIELDS_MAX + 1);
		size_t k = 0;
		for (; k < n && rp_cur_left(&c) > 0; k++) {
			rp_ctf_field *const x = &f[k];
			memset(x, 0, sizeof(*x));
			x->name = names[rp_cur_u8(&c) % (sizeof(names) / sizeof(names[0]))];
			const unsigned kind = rp_cur_u8(&c) % 5;
			const uint64_t v = rp_cur_le64(&c);
			x->u = v;
			x->s = (int64_t)v;
			x->kind = kind == 0 ? RP_CTF_UINT : kind == 1 ? RP_CTF_SINT : kind == 3 ? RP_CTF_OTHER : RP_CTF_STR;
			if (kind == 2 || kind == 4) {
				const size_t want = rp_cur_le16(&c);
				const size_t len = want < rp_cur_left(&c) ? want : rp_cur_left(&c);
				x->str = (const char *)rp_cur_take(&c, len);
				x->len = kind == 4 ? RP_SYSEV_PATH_MAX + 1 + (v >> 1) : len;
			}
		}
		rp_sysev ev;
		if (rp_ctf_decode(name, f, k, &ev) == RP_CTF_OK && rp_ctf_order_push(o, &ev, ev.t_end) < 0)
			break;
	}
	(void)rp_ctf_order_flush(o);
	(void)rp_ctf_order_late(o);
	rp_ctf_order_destroy(o);
	return 0;
}
