/* Writes the .rpz fuzz seed corpora: small valid traces, cut and damaged copies, and raw frame contents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/rpz_internal.h"
#include "rpz_testlib.h"

static int save(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *const f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "%s: cannot write\n", path);
		return 1;
	}
	return 0;
}

static int traces(const char *dir)
{
	static const struct {
		const char *name;
		size_t ops;
		uint32_t strs, frame_ops;
	} kinds[] = {
		{ "empty", 0, 0, 0 }, { "strings-only", 0, 4, 0 }, { "one-op", 1, 1, 0 },
		{ "small", 40, 8, 0 }, { "frames", 120, 16, 32 },
	};
	int bad = 0;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		tl_trace t;
		tl_make(&t, kinds[k].ops, kinds[k].strs, 1000 + k);
		uint8_t *buf = NULL;
		size_t len = 0;
		const rp_rpz_wopts o = { .frame_ops = kinds[k].frame_ops, .level = 3 };
		if (tl_write(&t, &o, &buf, &len) < 0) {
			fprintf(stderr, "%s: write failed\n", kinds[k].name);
			return 1;
		}
		char name[128];
		snprintf(name, sizeof(name), "%s.rpz", kinds[k].name);
		bad |= save(dir, name, buf, len);
		if (kinds[k].ops >= 40) { /* cut in a frame, at the index, in the header; one flipped byte */
			snprintf(name, sizeof(name), "%s-cut-mid.rpz", kinds[k].name);
			bad |= save(dir, name, buf, len * 2 / 3);
			snprintf(name, sizeof(name), "%s-cut-index.rpz", kinds[k].name);
			bad |= save(dir, name, buf, len - 10);
			snprintf(name, sizeof(name), "%s-cut-header.rpz", kinds[k].name);
			bad |= save(dir, name, buf, 20);
			buf[len / 2] ^= 0x20;
			snprintf(name, sizeof(name), "%s-flipped.rpz", kinds[k].name);
			bad |= save(dir, name, buf, len);
		}
		free(buf);
		tl_free(&t);
	}
	return bad;
}

static int contents(const char *dir)
{
	rpz_enc *const e = rp__rpz_enc_create(64);
	int bad = !e;
	for (int k = 0; !bad && k < 4; k++) {
		tl_trace t;
		tl_make(&t, (size_t)k * 20, (uint32_t)k * 3, 2000 + (uint64_t)k);
		/* the frame defines every string, varint-length prefixed */
		uint8_t strs[4096];
		size_t sl = 0;
		for (uint32_t i = 0; i < t.n_strs; i++) {
			sl += rp_put_uvarint(strs + sl, t.lens[i]);
			memcpy(strs + sl, t.strs[i], t.lens[i]);
			sl += t.lens[i];
		}
		const rpz_frame_id id = { .frame_no = 0, .first_op = 0, .n_ops = (uint32_t)t.n_ops, .first_string = 1,
					  .n_strings = t.n_strs };
		const uint8_t *out = NULL;
		size_t len = 0;
		bad |= rp__rpz_encode(e, &id, t.ops, strs, sl, &out, &len) < 0;
		char name[64];
		snprintf(name, sizeof(name), "content-%d.bin", k);
		if (!bad)
			bad |= save(dir, name, out, len);
		tl_free(&t);
	}
	rp__rpz_enc_destroy(e);
	return bad;
}

/*
 * fuzz_rpz_pattern inputs: a le16 window, then frames of repeated passes (each a le16 length and
 * the content), encoded with the pattern layer so that repeats reach into earlier frames.
 */
static int patterns(const char *dir)
{
	static const struct {
		uint32_t pass_ops, passes, frame_ops, window;
		uint64_t hshift;
	} kinds[] = { { 20, 6, 40, 100, 0 }, { 30, 5, 25, 64, 7 }, { 16, 8, 64, 1000, 1 } };
	int bad = 0;
	for (size_t k = 0; !bad && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		tl_trace t;
		tl_make(&t, kinds[k].pass_ops, 3, 3000 + k);
		const uint32_t n = kinds[k].pass_ops * kinds[k].passes;
		rp_op *const ops = calloc(n, sizeof(*ops));
		rpz_enc *const e = rp__rpz_enc_create(kinds[k].frame_ops);
		uint8_t *const file = malloc(2 + (size_t)n * 200 + 4096);
		if (!ops || !e || !file || rp__rpz_enc_pattern(e, kinds[k].window, RPZ_TABLE_BITS_MIN) < 0) {
			bad = 1;
		} else {
			for (uint32_t i = 0; i < n; i++) {
				const uint32_t p = i / kinds[k].pass_ops;
				ops[i] = t.ops[i % kinds[k].pass_ops];
				ops[i].t_start = (uint64_t)i * 1000 + (p % 2 ? i % 3 : 0);
				if (ops[i].t_end != RP_TIME_UNKNOWN)
					ops[i].t_end = ops[i].t_start + i % kinds[k].pass_ops;
				if (ops[i].handle)
					ops[i].handle += p * kinds[k].hshift;
			}
			rp_put_le16(file, (uint16_t)kinds[k].window);
			size_t fl = 2;
			for (uint32_t f = 0, first = 0; !bad && first < n; f++, first += kinds[k].frame_ops) {
				const uint32_t m = n - first < kinds[k].frame_ops ? n - first : kinds[k].frame_ops;
				uint8_t strs[256];
				size_t sl = 0;
				for (uint32_t i = 0; f == 0 && i < t.n_strs; i++) {
					sl += rp_put_uvarint(strs + sl, t.lens[i]);
					memcpy(strs + sl, t.strs[i], t.lens[i]);
					sl += t.lens[i];
				}
				const rpz_frame_id id = { .frame_no = f, .first_op = first, .n_ops = m,
							  .first_string = f == 0 ? 1 : t.n_strs + 1,
						  .n_strings = f == 0 ? t.n_strs : 0 };
				const uint8_t *out = NULL;
				size_t len = 0;
				bad |= rp__rpz_encode(e, &id, ops + first, strs, sl, &out, &len) < 0 || len > 65535;
				if (!bad) {
					rp_put_le16(file + fl, (uint16_t)len);
					memcpy(file + fl + 2, out, len);
					fl += 2 + len;
				}
			}
			char name[64];
			snprintf(name, sizeof(name), "passes-%zu.bin", k);
			if (!bad)
				bad |= save(dir, name, file, fl);
		}
		free(file);
		free(ops);
		rp__rpz_enc_destroy(e);
		tl_free(&t);
	}
	return bad;
}

/*
 * fuzz_rpz_pattern inputs with shifted repeats (§4.5): copies of a pass under other clients,
 * handles, offsets and paths ("/c<k>/f<i>", derived from the first copy's), window bit 15 set.
 */
static int shifted(const char *dir)
{
	static const struct {
		uint32_t pass_ops, copies, frame_ops, window;
		uint64_t dh, doff;
	} kinds[] = { { 24, 5, 40, 200, 0, 0 }, { 30, 4, 64, 1000, 9, 4096 } };
	int bad = 0;
	for (size_t k = 0; !bad && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		tl_trace t;
		tl_make(&t, kinds[k].pass_ops, 3, 5000 + k);
		const uint32_t n = kinds[k].pass_ops * kinds[k].copies, per = 6;
		rp_op *const ops = calloc(n, sizeof(*ops));
		rpz_enc *const e = rp__rpz_enc_create(kinds[k].frame_ops);
		uint8_t *const file = malloc(2 + (size_t)n * 200 + 4096);
		rpz_derive dv;
		if (rp__rpz_derive_init(&dv) < 0)
			bad = 1;
		uint8_t strs[2048];
		size_t sl = 0;
		for (uint32_t c = 0; !bad && c < kinds[k].copies; c++)
			for (uint32_t i = 0; i < per; i++) {
				char b[32];
				const int l = snprintf(b, sizeof(b), "/c%u/f%u", c, i);
				bad |= rp__rpz_derive_add(&dv, b, (uint32_t)l) < 0;
				sl += rp_put_uvarint(strs + sl, (uint64_t)l);
				memcpy(strs + sl, b, (size_t)l);
				sl += (size_t)l;
			}
		const uint8_t *sec = strs;
		size_t sec_len = sl;
		bool derived = false;
		if (!bad)
			bad |= rp__rpz_derive_section(&dv, 1, per * kinds[k].copies, &sec, &sec_len, &derived) < 0;
		if (bad || !ops || !e || !file || rp__rpz_enc_pattern(e, kinds[k].window, RPZ_TABLE_BITS_MIN) < 0) {
			bad = 1;
		} else {
			rp__rpz_enc_shift(e, true, (const uint32_t *const *)&dv.next, &dv.n_next);
			for (uint32_t i = 0; i < n; i++) {
				const uint32_t c = i / kinds[k].pass_ops;
				ops[i] = t.ops[i % kinds[k].pass_ops];
				ops[i].t_start = (uint64_t)i * 1000;
				if (ops[i].t_end != RP_TIME_UNKNOWN)
					ops[i].t_end = ops[i].t_start + i % kinds[k].pass_ops;
				ops[i].client = ops[i].client % 2 + 2 * c;
				if (ops[i].handle)
					ops[i].handle += c * kinds[k].dh;
				if (ops[i].offset)
					ops[i].offset += c * kinds[k].doff;
				ops[i].path = ops[i].path ? 1 + c * per + ops[i].path % per : 0;
				ops[i].path2 = ops[i].path2 ? 1 + c * per + ops[i].path2 % per : 0;
			}
			rp_put_le16(file, (uint16_t)(kinds[k].window | 0x8000));
			size_t fl = 2;
			for (uint32_t f = 0, first = 0; !bad && first < n; f++, first += kinds[k].frame_ops) {
				const uint32_t m = n - first < kinds[k].frame_ops ? n - first : kinds[k].frame_ops;
				const rpz_frame_id id = { .frame_no = f, .first_op = first, .n_ops = m,
							  .first_string = f == 0 ? 1 : per * kinds[k].copies + 1,
							  .n_strings = f == 0 ? per * kinds[k].copies : 0 };
				const uint8_t *out = NULL;
				size_t len = 0;
				bad |= rp__rpz_encode(e, &id, ops + first, f == 0 ? sec : NULL, f == 0 ? sec_len : 0, &out,
						      &len) < 0 ||
				       len > 65535;
				if (!bad) {
					rp_put_le16(file + fl, (uint16_t)len);
					memcpy(file + fl + 2, out, len);
					fl += 2 + len;
				}
			}
			char name[64];
			snprintf(name, sizeof(name), "shifted-%zu.bin", k);
			if (!bad)
				bad |= save(dir, name, file, fl);
		}
		rp__rpz_derive_fini(&dv);
		free(file);
		free(ops);
		rp__rpz_enc_destroy(e);
		tl_free(&t);
	}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s CORPUS_RPZ_DIR CORPUS_FRAME_DIR CORPUS_PATTERN_DIR\n", argv[0]);
		return 2;
	}
	return traces(argv[1]) | contents(argv[2]) | patterns(argv[3]) | shifted(argv[3]);
}
