/*
 * The .rpz pattern layer (docs/rpz-format.md §4.4): repeated passes round trip exactly and cost
 * little, repeats cross frames, seek and rewind land inside them, cut files read up to their last
 * whole frame, and a damaged repeat column is refused with RP_E_CORRUPT; copies of a pass under
 * shifted clients, handles, offsets and derived paths (§4.5) do the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/reader.h"
#include "formats/rpz_internal.h"
#include "rpz_testlib.h"

/*
 * `passes` copies of a synthetic pass of n ops (tl_make's fields) in time order: op i of pass p
 * starts at (p * n + i) * 1000 ns, plus a jitter on odd passes when `jitter` (their times are then
 * coded, not copied); handles move by p * hshift on pass p.
 */
static void make_passes(tl_trace *t, size_t n, int passes, uint64_t hshift, bool jitter)
{
	tl_trace base;
	tl_make(&base, n, 24, 77);
	*t = base;
	t->ops = calloc(n * (size_t)passes, sizeof(*t->ops));
	assert_non_null(t->ops);
	t->n_ops = n * (size_t)passes;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < n; i++) {
			rp_op *const o = &t->ops[(size_t)p * n + i];
			*o = base.ops[i];
			o->t_start = ((uint64_t)p * n + i) * 1000 + (jitter && p % 2 ? (i * 7) % 13 : 0);
			if (o->t_end != RP_TIME_UNKNOWN)
				o->t_end = o->t_start + i % 97;
			if (o->handle)
				o->handle += (uint64_t)p * hshift;
			if (o->handle2)
				o->handle2 += (uint64_t)p * hshift;
		}
	free(base.ops);
}

/* Feed t with every string defined first (tl_feed spreads them over one pass's length). */
static int feed_passes(rp_sink *s, void *arg)
{
	const tl_trace *const t = arg;
	assert_int_equal(s->meta(s, &t->meta), 0);
	for (uint32_t i = 0; i < t->n_strs; i++)
		assert_int_equal(s->string(s, i + 1, t->strs[i], t->lens[i]), 0);
	for (size_t i = 0; i < t->n_ops; i++)
		assert_int_equal(s->op(s, &t->ops[i]), 0);
	return s->finish(s);
}

static void write_passes(const tl_trace *t, const rp_rpz_wopts *o, uint8_t **buf, size_t *len)
{
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(tl_write_fn(o, feed_passes, (void *)t, buf, len, eb), 0);
}

/* Read every op of buf[0..len) and check them against t's first ones; returns how many. */
static size_t read_check(const uint8_t *buf, size_t len, const tl_trace *t, int *rc_out)
{
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	size_t n = 0;
	rp_op op;
	int rc;
	while ((rc = rp_reader_next(r, &op)) > 0) {
		assert_true(n < t->n_ops);
		assert_true(tl_op_eq(&op, &t->ops[n]));
		n++;
	}
	*rc_out = rc;
	rp_reader_close(r);
	return n;
}

static void test_passes_round_trip(void **state)
{
	(void)state;
	static const struct {
		uint32_t frame_ops;
		uint64_t hshift;
		bool jitter;
	} cases[] = { { 0, 0, false }, { 128, 0, false }, { 100, 1000, false }, { 64, 5, true } };
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		tl_trace t;
		make_passes(&t, 300, 10, cases[c].hshift, cases[c].jitter);
		uint8_t *buf = NULL, *plain = NULL;
		size_t len = 0, plain_len = 0;
		const rp_rpz_wopts o = { .frame_ops = cases[c].frame_ops };
		const rp_rpz_wopts op = { .frame_ops = cases[c].frame_ops, .no_pattern = true };
		write_passes(&t, &o, &buf, &len);
		write_passes(&t, &op, &plain, &plain_len);
		assert_int_equal(buf[8], RPZ_VERSION_MAJOR_PATTERN);
		assert_int_equal(plain[8], RPZ_VERSION_MAJOR);
		int rc;
		assert_int_equal(read_check(buf, len, &t, &rc), t.n_ops);
		assert_int_equal(rc, 0);
		assert_int_equal(read_check(plain, plain_len, &t, &rc), t.n_ops);
		assert_int_equal(rc, 0);
		/* nine of the ten passes are repeats: with copied times they cost a frame header and an
		 * instruction per frame (a single-pass file's frames are the bound); coded times cost more */
		tl_trace one = t;
		one.n_ops = 300;
		uint8_t *b1 = NULL;
		size_t l1 = 0;
		write_passes(&one, &o, &b1, &l1);
		const size_t frames = cases[c].frame_ops ? t.n_ops / cases[c].frame_ops + 1 : 1;
		print_message("# case %zu: %zu bytes, %zu plain, %zu one pass\n", c, len, plain_len, l1);
		if (cases[c].jitter)
			assert_true(len * 3 < plain_len * 2);
		else
			assert_true(len <= l1 + l1 / 10 + 64 * frames);
		free(b1);
		/* rewind: the window starts again */
		rp_reader *r = NULL;
		char eb[RP_ERRBUF_SIZE];
		assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
		rp_op x;
		for (int k = 0; k < 1234; k++)
			assert_int_equal(rp_reader_next(r, &x), 1);
		assert_int_equal(rp_reader_rewind(r), 0);
		size_t n = 0;
		while (rp_reader_next(r, &x) > 0)
			assert_true(tl_op_eq(&x, &t.ops[n++]));
		assert_int_equal(n, t.n_ops);
		rp_reader_close(r);
		free(buf);
		free(plain);
		tl_free(&t);
	}
}

/* A window shorter than a pass finds no whole-pass repeats, and a window of 0 means the default. */
static void test_window_option(void **state)
{
	(void)state;
	tl_trace t;
	make_passes(&t, 300, 6, 0, false);
	uint8_t *small = NULL, *dflt = NULL;
	size_t small_len = 0, dflt_len = 0;
	const rp_rpz_wopts os = { .frame_ops = 128, .window = 200, .table_bits = 10 };
	const rp_rpz_wopts od = { .frame_ops = 128 };
	write_passes(&t, &os, &small, &small_len);
	write_passes(&t, &od, &dflt, &dflt_len);
	int rc;
	assert_int_equal(read_check(small, small_len, &t, &rc), t.n_ops);
	assert_int_equal(rc, 0);
	assert_true(dflt_len < small_len);
	/* out-of-range options are refused by name */
	rp_rpz_writer *w = NULL;
	char eb[RP_ERRBUF_SIZE];
	const rp_rpz_wopts big = { .window = RPZ_WINDOW_MAX + 1 };
	assert_int_equal(rp_rpz_writer_open(&w, "/dev/null", &big, eb), RP_E_RANGE);
	assert_non_null(strstr(eb, "window"));
	const rp_rpz_wopts bits = { .table_bits = 9 };
	assert_int_equal(rp_rpz_writer_open(&w, "/dev/null", &bits, eb), RP_E_RANGE);
	assert_non_null(strstr(eb, "table"));
	free(small);
	free(dflt);
	tl_free(&t);
}

/* Seeking by time lands in a repeated pass: the ops from there on are the trace's. */
static void test_seek_inside_repeats(void **state)
{
	(void)state;
	tl_trace t;
	make_passes(&t, 300, 8, 3, false);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 70 };
	write_passes(&t, &o, &buf, &len);
	const uint64_t times[] = { 0, 450000, 1234567, 2000000, 2399000, 9999999 };
	for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++) {
		rp_reader *r = NULL;
		char eb[RP_ERRBUF_SIZE];
		assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
		uint64_t skipped = 0;
		assert_int_equal(rp_rpz_reader_seek_time(r, times[k], &skipped, eb), 0);
		assert_true(skipped <= t.n_ops);
		assert_true(skipped == t.n_ops || t.ops[skipped].t_start <= times[k] || skipped == 0);
		size_t n = (size_t)skipped;
		rp_op x;
		while (rp_reader_next(r, &x) > 0)
			assert_true(tl_op_eq(&x, &t.ops[n++]));
		assert_int_equal(n, t.n_ops);
		if (times[k] >= 450000)
			assert_true(skipped > 0);
		rp_reader_close(r);
	}
	free(buf);
	tl_free(&t);
}

/* Cut anywhere: the ops of the whole frames before the cut, in order, then a clean end. */
static void test_cut_reads_whole_frames(void **state)
{
	(void)state;
	tl_trace t;
	make_passes(&t, 200, 5, 0, true);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 90 };
	write_passes(&t, &o, &buf, &len);
	size_t last = 0;
	for (size_t cut = 100; cut <= len; cut += cut + 37 < len ? 37 : (len - cut ? len - cut : 1)) {
		int rc;
		const size_t n = read_check(buf, cut, &t, &rc);
		assert_int_equal(rc, 0);
		assert_true(n % 90 == 0 || n == t.n_ops);
		assert_true(n >= last);
		last = n;
		if (cut == len)
			break;
	}
	assert_int_equal(last, t.n_ops);
	free(buf);
	tl_free(&t);
}

/* ---- the repeat column itself ---------------------------------------------- */

typedef struct frame_parts {
	uint64_t head[9]; /* frame_no ... n_cols */
	uint64_t col_len[RPZ_NCOLS_MAX];
	const uint8_t *body; /* strings, shapes, columns */
	size_t body_len;
} frame_parts;

static void split(const uint8_t *c, size_t len, frame_parts *f)
{
	rp_cur cur = rp_cur_make(c, len);
	for (int i = 0; i < 9; i++)
		f->head[i] = rp_cur_uvarint(&cur);
	assert_true(f->head[8] == RPZ_NCOLS);
	for (uint64_t i = 0; i < f->head[8]; i++)
		f->col_len[i] = rp_cur_uvarint(&cur);
	assert_false(cur.err);
	f->body_len = rp_cur_left(&cur);
	f->body = rp_cur_take(&cur, f->body_len);
}

/* The frame again with its repeat column (the last section) replaced by rep[0..rep_len). */
static size_t join(const frame_parts *f, const uint8_t *rep, size_t rep_len, uint8_t *out)
{
	size_t n = 0;
	for (int i = 0; i < 9; i++)
		n += rp_put_uvarint(out + n, f->head[i]);
	for (uint64_t i = 0; i < f->head[8]; i++)
		n += rp_put_uvarint(out + n, i == RPZ_COL_REPEAT ? rep_len : f->col_len[i]);
	const size_t keep = f->body_len - f->col_len[RPZ_COL_REPEAT];
	memcpy(out + n, f->body, keep);
	memcpy(out + n + keep, rep, rep_len);
	return n + keep + rep_len;
}

/* Decode one frame with a pattern window: the ops decoded, or the first error. */
static int decode(const uint8_t *c, size_t len, uint32_t window, size_t *n_ops)
{
	rp_strtab *const tab = rp_strtab_create();
	assert_non_null(tab);
	rpz_dec d = { 0 };
	d.hist.window = window;
	char eb[RP_ERRBUF_SIZE];
	int rc = (int)rp__rpz_open(&d, c, len, 0, 0, tab, eb);
	*n_ops = 0;
	if (rc >= 0) {
		rp_op op;
		while ((rc = rp__rpz_next(&d, &op, eb)) > 0)
			(*n_ops)++;
	}
	rp__rpz_dec_fini(&d);
	rp_strtab_destroy(tab);
	return rc;
}

static void test_corrupt_repeat_column(void **state)
{
	(void)state;
	tl_trace t;
	make_passes(&t, 100, 4, 9, false);
	uint8_t strs[4096];
	size_t sl = 0;
	for (uint32_t i = 0; i < t.n_strs; i++) {
		sl += rp_put_uvarint(strs + sl, t.lens[i]);
		memcpy(strs + sl, t.strs[i], t.lens[i]);
		sl += t.lens[i];
	}
	rpz_enc *const e = rp__rpz_enc_create((uint32_t)t.n_ops);
	assert_non_null(e);
	assert_int_equal(rp__rpz_enc_pattern(e, 1000, 12), 0);
	const rpz_frame_id id = { .n_ops = (uint32_t)t.n_ops, .first_string = 1, .n_strings = t.n_strs };
	const uint8_t *out = NULL;
	size_t len = 0;
	assert_int_equal(rp__rpz_encode(e, &id, t.ops, strs, sl, &out, &len), 0);
	uint8_t *const good = malloc(len);
	memcpy(good, out, len);
	size_t n = 0;
	assert_int_equal(decode(good, len, 1000, &n), 0);
	assert_int_equal(n, t.n_ops);

	frame_parts f;
	split(good, len, &f);
	const size_t rl = f.col_len[RPZ_COL_REPEAT];
	const uint8_t *const rep = f.body + f.body_len - rl;
	assert_true(rl >= 4); /* three passes repeat the first */
	uint8_t *const buf = malloc(len + 64);
	/* the repeat column cut at every length: refused, never read past */
	for (size_t k = 0; k < rl; k++) {
		const size_t m = join(&f, rep, k, buf);
		assert_int_equal(decode(buf, m, 1000, &n), RP_E_CORRUPT);
	}
	/* the first instruction rewritten: literal count, length, distance, mode out of range */
	rp_cur rc = rp_cur_make(rep, rl);
	const uint64_t lits = rp_cur_uvarint(&rc), rlen = rp_cur_uvarint(&rc), dist = rp_cur_uvarint(&rc);
	const uint64_t mode = rp_cur_uvarint(&rc);
	assert_false(rc.err);
	const size_t tail = rp_cur_left(&rc);
	const uint8_t *const rest = rp_cur_take(&rc, tail);
	const uint64_t bad[][4] = {
		{ lits, 0, dist, mode },		 /* empty repeat */
		{ lits, t.n_ops + 1, dist, mode },	 /* past the frame */
		{ t.n_ops, rlen, dist, mode },		 /* literals past the frame */
		{ lits, rlen, 0, mode },		 /* distance 0 */
		{ lits, rlen, 1001, mode },		 /* beyond the window */
		{ lits, rlen, lits + 1, mode },		 /* before the first op */
		{ lits, rlen, dist, mode | 0x80 },	 /* unknown mode bit */
		{ lits, rlen, dist, (uint64_t)1 << 40 }, /* absurd mode */
	};
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		uint8_t r2[512];
		size_t m = 0;
		for (int k = 0; k < 4; k++)
			m += rp_put_uvarint(r2 + m, bad[b][k]);
		assert_true(m + tail <= sizeof(r2));
		memcpy(r2 + m, rest, tail);
		const size_t fl = join(&f, r2, m + tail, buf);
		assert_int_equal(decode(buf, fl, 1000, &n), RP_E_CORRUPT);
	}
	/* any byte of the column flipped: a clean result either way, mostly RP_E_CORRUPT */
	size_t refused = 0;
	for (size_t k = 0; k < rl; k++) {
		uint8_t r2[512];
		assert_true(rl <= sizeof(r2));
		memcpy(r2, rep, rl);
		r2[k] ^= 0x41;
		const size_t fl = join(&f, r2, rl, buf);
		const int got = decode(buf, fl, 1000, &n);
		assert_true(got == 0 || got == RP_E_CORRUPT);
		refused += got == RP_E_CORRUPT;
	}
	assert_true(refused > 0);
	/* the same frame without a window (a reader that saw no pattern feature): refused */
	assert_int_equal(decode(good, len, 0, &n), RP_E_CORRUPT);
	free(buf);
	free(good);
	rp__rpz_enc_destroy(e);
	tl_free(&t);
}

/* The header: a pattern file names major 3; a 2.x header with the pattern feature is damage. */
static void test_header_versions(void **state)
{
	(void)state;
	tl_trace t;
	make_passes(&t, 50, 3, 0, false);
	uint8_t *buf = NULL;
	size_t len = 0;
	write_passes(&t, NULL, &buf, &len);
	const uint32_t hlen = (uint32_t)buf[12] | (uint32_t)buf[13] << 8;
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	buf[8] = 2;
	rp_put_le32(buf + hlen - 4, rp__crc32c(0, buf, hlen - 4));
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), RP_E_CORRUPT);
	assert_non_null(strstr(eb, "pattern"));
	buf[8] = 3;
	buf[hlen - 12] = 0x81; /* a feature bit this reader does not know */
	rp_put_le32(buf + hlen - 4, rp__crc32c(0, buf, hlen - 4));
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), RP_E_VERSION);
	assert_non_null(strstr(eb, "newer reprise"));
	buf[hlen - 12] = 1;
	rp_put_le32(buf + hlen - 8, RPZ_WINDOW_MAX + 1); /* window out of range */
	rp_put_le32(buf + hlen - 4, rp__crc32c(0, buf, hlen - 4));
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), RP_E_CORRUPT);
	assert_non_null(strstr(eb, "window"));
	free(buf);
	tl_free(&t);
}

/* ---- shifted repeats and derived strings (§4.5) ---------------------------- */

/*
 * `copies` copies of a pass of n ops, one after the other: copy k has clients k * dc and k * dc + 1, every
 * non-zero handle + k * dh, every non-zero offset + k * doff, and paths of its own ("/c<k>/d/f<i>",
 * m - 1 of them a copy, defined before its ops), but for string 1 ("FILLER.*"), which all share.
 */
typedef struct copies {
	tl_trace t;
	uint32_t m; /* strings a copy names (1 shared) */
} copies;

static void make_copies(copies *c, size_t n, int n_copies, uint32_t dc, uint64_t dh, uint64_t doff)
{
	tl_trace base;
	const uint32_t m = 24;
	tl_make(&base, n, m, 91);
	for (uint32_t i = 0; i < base.n_strs; i++)
		free(base.strs[i]);
	free(base.strs);
	free(base.lens);
	tl_trace *const t = &c->t;
	*t = base;
	c->m = m;
	t->n_strs = 1 + (m - 1) * (uint32_t)n_copies;
	t->strs = calloc(t->n_strs, sizeof(*t->strs));
	t->lens = calloc(t->n_strs, sizeof(*t->lens));
	t->ops = calloc(n * (size_t)n_copies, sizeof(*t->ops));
	assert_true(t->strs && t->lens && t->ops);
	t->n_ops = n * (size_t)n_copies;
	for (uint32_t id = 1; id <= t->n_strs; id++) {
		char b[64];
		if (id == 1)
			snprintf(b, sizeof(b), "FILLER.*");
		else
			snprintf(b, sizeof(b), "/c%u/d/f%u", (id - 2) / (m - 1), (id - 2) % (m - 1));
		t->strs[id - 1] = strdup(b);
		t->lens[id - 1] = (uint32_t)strlen(b);
	}
	uint64_t time = 0;
	for (int k = 0; k < n_copies; k++)
		for (size_t i = 0; i < n; i++) {
			rp_op *const o = &t->ops[(size_t)k * n + i];
			*o = base.ops[i];
			o->t_start = time;
			time += 1000 + (i * 7) % 13;
			o->t_end = o->t_end == RP_TIME_UNKNOWN ? RP_TIME_UNKNOWN : o->t_start + i % 97;
			o->client = o->client % 2 + (uint32_t)k * dc; /* a copy's clients are new to the trace */
			if (o->handle)
				o->handle += (uint64_t)k * dh;
			if (o->handle2)
				o->handle2 += (uint64_t)k * dh;
			if (o->offset)
				o->offset += (uint64_t)k * doff;
			o->path = o->path > 1 ? o->path + (uint32_t)k * (m - 1) : o->path;
			o->path2 = o->path2 > 1 ? o->path2 + (uint32_t)k * (m - 1) : o->path2;
		}
	free(base.ops);
}

/* Feed a copies trace: each copy's strings just before its first op. */
static int feed_copies(rp_sink *s, void *arg)
{
	const copies *const c = arg;
	const tl_trace *const t = &c->t;
	const size_t n = t->n_ops / ((t->n_strs - 1) / (c->m - 1));
	assert_int_equal(s->meta(s, &t->meta), 0);
	uint32_t defined = 0;
	for (size_t i = 0; i < t->n_ops; i++) {
		const uint32_t want = 1 + (c->m - 1) * (uint32_t)(i / n + 1);
		while (defined < want) {
			assert_int_equal(s->string(s, defined + 1, t->strs[defined], t->lens[defined]), 0);
			defined++;
		}
		assert_int_equal(s->op(s, &t->ops[i]), 0);
	}
	return s->finish(s);
}

static void write_copies(const copies *c, const rp_rpz_wopts *o, uint8_t **buf, size_t *len)
{
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(tl_write_fn(o, feed_copies, (void *)c, buf, len, eb), 0);
}

/* The header's required features. */
static uint32_t features(const uint8_t *buf)
{
	const uint32_t hlen = (uint32_t)buf[12] | (uint32_t)buf[13] << 8;
	return (uint32_t)buf[hlen - 12] | (uint32_t)buf[hlen - 11] << 8;
}

/* Read every string of buf and compare them with t's. */
static void strings_check(const uint8_t *buf, size_t len, const tl_trace *t)
{
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	rp_op op;
	while (rp_reader_next(r, &op) > 0) {
	}
	assert_int_equal(rp_strtab_count(r->strings), t->n_strs);
	for (uint32_t id = 1; id <= t->n_strs; id++) {
		uint32_t l = 0;
		const char *const s = rp_strtab_get(r->strings, id, &l);
		assert_int_equal(l, t->lens[id - 1]);
		assert_memory_equal(s, t->strs[id - 1], l);
	}
	rp_reader_close(r);
}

static void test_shifted_copies(void **state)
{
	(void)state;
	static const struct {
		uint32_t frame_ops, dc;
		uint64_t dh, doff;
	} cases[] = { { 0, 2, 49152, 0 }, { 128, 2, 0, 0 }, { 100, 7, 3, 4096 }, { 0, 2, 0, 65536 } };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		copies c, one;
		make_copies(&c, 400, 8, cases[k].dc, cases[k].dh, cases[k].doff);
		make_copies(&one, 400, 1, 0, 0, 0);
		uint8_t *buf = NULL, *b1 = NULL, *plain = NULL;
		size_t len = 0, l1 = 0, plain_len = 0;
		const rp_rpz_wopts o = { .frame_ops = cases[k].frame_ops };
		const rp_rpz_wopts op = { .frame_ops = cases[k].frame_ops, .no_pattern = true };
		write_copies(&c, &o, &buf, &len);
		write_copies(&one, &o, &b1, &l1);
		write_copies(&c, &op, &plain, &plain_len);
		int rc;
		assert_int_equal(read_check(buf, len, &c.t, &rc), c.t.n_ops);
		assert_int_equal(rc, 0);
		strings_check(buf, len, &c.t);
		assert_int_equal(features(buf), RPZ_FEAT_PATTERN | RPZ_FEAT_SHIFT);
		assert_int_equal(features(b1), RPZ_FEAT_PATTERN); /* nothing shifted: the old header */
		const size_t frames = cases[k].frame_ops ? c.t.n_ops / cases[k].frame_ops + 1 : 1;
		print_message("# shifted case %zu: %zu bytes, one copy %zu, plain %zu\n", k, len, l1, plain_len);
		/* seven copies cost their instructions, a derived run and a frame or so each */
		assert_true(len <= l1 + l1 / 5 + 80 * frames);
		assert_true(len < plain_len);
		/* rewind: derived strings are derived again, the same */
		rp_reader *r = NULL;
		char eb[RP_ERRBUF_SIZE];
		assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
		rp_op x;
		for (int j = 0; j < 1500; j++)
			assert_int_equal(rp_reader_next(r, &x), 1);
		assert_int_equal(rp_reader_rewind(r), 0);
		size_t n = 0;
		while (rp_reader_next(r, &x) > 0)
			assert_true(tl_op_eq(&x, &c.t.ops[n++]));
		assert_int_equal(n, c.t.n_ops);
		rp_reader_close(r);
		/* seeking by time lands inside a shifted copy */
		assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
		uint64_t skipped = 0;
		assert_int_equal(rp_rpz_reader_seek_time(r, c.t.ops[c.t.n_ops / 2].t_start, &skipped, eb), 0);
		n = (size_t)skipped;
		while (rp_reader_next(r, &x) > 0)
			assert_true(tl_op_eq(&x, &c.t.ops[n++]));
		assert_int_equal(n, c.t.n_ops);
		rp_reader_close(r);
		/* cut anywhere: whole frames, then a clean end */
		size_t last = 0;
		for (size_t cut = 100; cut < len; cut += 29) {
			const size_t got = read_check(buf, cut, &c.t, &rc);
			assert_int_equal(rc, 0);
			assert_true(got >= last);
			last = got;
		}
		free(buf);
		free(b1);
		free(plain);
		tl_free(&c.t);
		tl_free(&one.t);
	}
}

/* A writer that cannot seek (a pipe) cannot set the feature bit later: it keeps to exact repeats. */
static void test_shift_needs_seek(void **state)
{
	(void)state;
	copies c;
	make_copies(&c, 300, 4, 2, 100, 0);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	FILE *const wf = fdopen(fds[1], "wb");
	assert_non_null(wf);
	rp_rpz_writer *w = NULL;
	char eb[RP_ERRBUF_SIZE];
	/* the pipe holds the whole file (well under its 64 KiB) */
	assert_int_equal(rp_rpz_writer_open_file(&w, wf, "pipe", NULL, eb), 0);
	assert_int_equal(feed_copies(rp_rpz_writer_sink(w), &c), 0);
	assert_int_equal(rp_rpz_writer_close(w, eb), 0);
	fclose(wf);
	uint8_t *buf = malloc(65536);
	size_t len = 0;
	ssize_t got;
	while ((got = read(fds[0], buf + len, 65536 - len)) > 0)
		len += (size_t)got;
	close(fds[0]);
	assert_true(len > 0 && len < 65536);
	assert_int_equal(features(buf), RPZ_FEAT_PATTERN);
	int rc;
	assert_int_equal(read_check(buf, len, &c.t, &rc), c.t.n_ops);
	assert_int_equal(rc, 0);
	free(buf);
	tl_free(&c.t);
}

/* Decode one frame with the shift feature on or off: ops decoded, or the first error. */
static int decode_shift(const uint8_t *c, size_t len, rp_strtab *tab, bool shift, size_t *n_ops, char *eb)
{
	rpz_dec d = { 0 };
	d.hist.window = 4000;
	d.shift = shift;
	int rc = (int)rp__rpz_open(&d, c, len, 0, 0, tab, eb);
	*n_ops = 0;
	if (rc >= 0) {
		rp_op op;
		while ((rc = rp__rpz_next(&d, &op, eb)) > 0)
			(*n_ops)++;
	}
	rp__rpz_dec_fini(&d);
	return rc;
}

/* One frame of a copies trace (every string and op in it), by the writer's own pieces. */
static size_t shifted_frame(const copies *c, uint8_t **out)
{
	rpz_derive dv;
	assert_int_equal(rp__rpz_derive_init(&dv), 0);
	uint8_t *strs = malloc(65536);
	size_t sl = 0;
	for (uint32_t i = 0; i < c->t.n_strs; i++) {
		assert_int_equal(rp__rpz_derive_add(&dv, c->t.strs[i], c->t.lens[i]), 0);
		sl += rp_put_uvarint(strs + sl, c->t.lens[i]);
		memcpy(strs + sl, c->t.strs[i], c->t.lens[i]);
		sl += c->t.lens[i];
	}
	const uint8_t *sec = strs;
	size_t sec_len = sl;
	bool derived = false;
	assert_int_equal(rp__rpz_derive_section(&dv, 1, c->t.n_strs, &sec, &sec_len, &derived), 0);
	assert_true(derived);
	assert_true(sec_len < sl);
	rpz_enc *const e = rp__rpz_enc_create((uint32_t)c->t.n_ops);
	assert_non_null(e);
	assert_int_equal(rp__rpz_enc_pattern(e, 4000, 12), 0);
	rp__rpz_enc_shift(e, true, (const uint32_t *const *)&dv.next, &dv.n_next);
	const rpz_frame_id id = { .n_ops = (uint32_t)c->t.n_ops, .first_string = 1, .n_strings = c->t.n_strs };
	const uint8_t *o = NULL;
	size_t len = 0;
	assert_int_equal(rp__rpz_encode(e, &id, c->t.ops, sec, sec_len, &o, &len), 0);
	assert_true(rp__rpz_enc_shifted(e));
	*out = malloc(len);
	memcpy(*out, o, len);
	rp__rpz_enc_destroy(e);
	rp__rpz_derive_fini(&dv);
	free(strs);
	return len;
}

static void test_corrupt_shifts(void **state)
{
	(void)state;
	copies c;
	make_copies(&c, 150, 3, 3, 70, 512);
	uint8_t *good = NULL;
	const size_t len = shifted_frame(&c, &good);
	char eb[RP_ERRBUF_SIZE];
	size_t n = 0;
	rp_strtab *tab = rp_strtab_create();
	assert_int_equal(decode_shift(good, len, tab, true, &n, eb), 0);
	assert_int_equal(n, c.t.n_ops);
	rp_strtab_destroy(tab);
	/* without the header feature, derived strings and the new mode bits are damage */
	tab = rp_strtab_create();
	assert_int_equal(decode_shift(good, len, tab, false, &n, eb), RP_E_CORRUPT);
	rp_strtab_destroy(tab);

	frame_parts f;
	split(good, len, &f);
	const size_t rl = f.col_len[RPZ_COL_REPEAT];
	const uint8_t *const rep = f.body + f.body_len - rl;
	uint8_t *const buf = malloc(len + 4096);
	/* the repeat column cut inside any instruction's fields */
	for (size_t k = 0; k < rl; k++) {
		const size_t m = join(&f, rep, k, buf);
		tab = rp_strtab_create();
		assert_int_equal(decode_shift(buf, m, tab, true, &n, eb), RP_E_CORRUPT);
		rp_strtab_destroy(tab);
	}
	/* an instruction with every new bit, its shifts: wrong values read back as other ops, never
	 * past a bound; an unknown bit is refused */
	rp_cur rc = rp_cur_make(rep, rl);
	uint64_t lits = 0, rlen = 0, dist = 0, mode = 0;
	size_t before = 0; /* where it starts */
	for (;;) { /* the first shifted instruction */
		before = (size_t)(rc.p - rep);
		lits = rp_cur_uvarint(&rc);
		rlen = rp_cur_uvarint(&rc);
		dist = rp_cur_uvarint(&rc);
		mode = rp_cur_uvarint(&rc);
		assert_false(rc.err);
		if (!(mode & RPZ_R_TIMES))
			(void)rp_cur_uvarint(&rc);
		if (mode & RPZ_R_HANDLE)
			(void)rp_cur_uvarint(&rc);
		if (mode & RPZ_R_CLIENT)
			(void)rp_cur_uvarint(&rc);
		if (mode & RPZ_R_OFFSET)
			(void)rp_cur_uvarint(&rc);
		if (mode & (RPZ_R_CLIENT | RPZ_R_PATHS | RPZ_R_OFFSET))
			break;
	}
	assert_true(mode & RPZ_R_CLIENT);
	assert_true(mode & RPZ_R_PATHS);
	assert_true(mode & RPZ_R_OFFSET);
	const uint64_t bad_modes[] = { mode | 0x20, mode | ((uint64_t)1 << 33), mode & ~(uint64_t)RPZ_R_OFFSET };
	for (size_t b = 0; b < sizeof(bad_modes) / sizeof(bad_modes[0]); b++) {
		uint8_t r2[4096];
		assert_true(rl + 20 <= sizeof(r2));
		/* the instructions before it as they are, then it with the bad mode */
		size_t m = 0;
		memcpy(r2, rep, before);
		m = before;
		m += rp_put_uvarint(r2 + m, lits);
		m += rp_put_uvarint(r2 + m, rlen);
		m += rp_put_uvarint(r2 + m, dist);
		m += rp_put_uvarint(r2 + m, bad_modes[b]);
		/* the fields after the mode as they were */
		rp_cur q = rp_cur_make(rep + before, rl - before);
		for (int k = 0; k < 4; k++)
			(void)rp_cur_uvarint(&q);
		memcpy(r2 + m, q.p, rl - (size_t)(q.p - rep));
		m += rl - (size_t)(q.p - rep);
		const size_t fl = join(&f, r2, m, buf);
		tab = rp_strtab_create();
		const int got = decode_shift(buf, fl, tab, true, &n, eb);
		rp_strtab_destroy(tab);
		/* unknown bits: refused; OFFSET dropped: its shift is read as the next instruction */
		assert_int_equal(got, RP_E_CORRUPT);
	}
	/* any byte of the strings section or the repeat column flipped: a clean result either way */
	size_t refused = 0;
	for (size_t k = 0; k < f.body_len; k++) {
		memcpy(buf, good, len);
		buf[len - f.body_len + k] ^= 0x5a;
		tab = rp_strtab_create();
		const int got = decode_shift(buf, len, tab, true, &n, eb);
		rp_strtab_destroy(tab);
		assert_true(got == 0 || got == RP_E_CORRUPT || got == RP_E_UNSUPPORTED);
		refused += got != 0;
	}
	assert_true(refused > 0);
	free(buf);
	free(good);
	tl_free(&c.t);
}

/* Derived runs that do not fit: a source past the strings defined, a cut past a source, a prefix
 * that makes a string too long, a run past the section's count. */
static void test_corrupt_derived(void **state)
{
	(void)state;
	/* a frame of no ops whose strings section is ours */
	const struct {
		uint64_t n, back, cut, plen;
	} bad[] = {
		{ 1, 3, 0, 1 },	 /* source id 0 */
		{ 1, 0, 0, 1 },	 /* back 0 */
		{ 1, 1, 40, 1 }, /* cut past the source */
		{ 3, 1, 0, 1 },	 /* past the count */
		{ 1, 1, 0, RP_STR_MAX + 1 },
	};
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]) + 2; b++) {
		uint8_t sec[128];
		size_t sl = 0;
		sl += rp_put_uvarint(sec + sl, 3);
		memcpy(sec + sl, "/a/", 3);
		sl += 3;
		sl += rp_put_uvarint(sec + sl, 3);
		memcpy(sec + sl, "/b/", 3);
		sl += 3;
		if (b < sizeof(bad) / sizeof(bad[0])) {
			sl += rp_put_uvarint(sec + sl, RP_STR_MAX + bad[b].n);
			sl += rp_put_uvarint(sec + sl, bad[b].back);
			sl += rp_put_uvarint(sec + sl, bad[b].cut);
			sl += rp_put_uvarint(sec + sl, bad[b].plen);
			sec[sl++] = 'x';
		} else if (b == sizeof(bad) / sizeof(bad[0])) {
			sl += rp_put_uvarint(sec + sl, RP_STR_MAX + 1); /* cut inside the run's fields */
			sl += rp_put_uvarint(sec + sl, 1);
		} else { /* a good one: "/x" + "/b/"[1..] */
			sl += rp_put_uvarint(sec + sl, RP_STR_MAX + 1);
			sl += rp_put_uvarint(sec + sl, 1);
			sl += rp_put_uvarint(sec + sl, 1);
			sl += rp_put_uvarint(sec + sl, 2);
			memcpy(sec + sl, "/x", 2);
			sl += 2;
		}
		uint8_t fr[256];
		size_t m = 0;
		const uint64_t head[] = { 0, 0, 0, 1, 3, sl, 0, 0, RPZ_NCOLS };
		for (int i = 0; i < 9; i++)
			m += rp_put_uvarint(fr + m, head[i]);
		for (int i = 0; i < RPZ_NCOLS; i++)
			m += rp_put_uvarint(fr + m, 0);
		memcpy(fr + m, sec, sl);
		m += sl;
		rp_strtab *const tab = rp_strtab_create();
		char eb[RP_ERRBUF_SIZE];
		size_t n = 0;
		const int got = decode_shift(fr, m, tab, true, &n, eb);
		if (b == sizeof(bad) / sizeof(bad[0]) + 1) {
			assert_int_equal(got, 0);
			uint32_t l = 0;
			const char *const s = rp_strtab_get(tab, 3, &l);
			assert_int_equal(l, 4);
			assert_memory_equal(s, "/xb/", 4);
		} else {
			assert_int_equal(got, RP_E_CORRUPT);
			assert_true(strlen(eb) > 0);
		}
		rp_strtab_destroy(tab);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passes_round_trip),    cmocka_unit_test(test_window_option),
		cmocka_unit_test(test_seek_inside_repeats),  cmocka_unit_test(test_cut_reads_whole_frames),
		cmocka_unit_test(test_corrupt_repeat_column), cmocka_unit_test(test_header_versions),
		cmocka_unit_test(test_shifted_copies),        cmocka_unit_test(test_shift_needs_seek),
		cmocka_unit_test(test_corrupt_shifts),        cmocka_unit_test(test_corrupt_derived),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
