/* Unit tests of the .rpz writer and reader: round trips, determinism, frames, rewind, cuts, corruption. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/reader.h"
#include "formats/rpz.h"
#include "formats/rpz_internal.h"
#include "rpz_testlib.h"

/* Read everything from an in-memory .rpz; returns the last rc (0 at a clean end). */
typedef struct readback {
	int open_rc;
	int rc;
	size_t n_ops;
	rp_op *ops;
	char note[RP_ERRBUF_SIZE];
	char err[RP_ERRBUF_SIZE];
	uint32_t n_strs;
	rp_trace_meta meta;
} readback;

static void read_all(const uint8_t *buf, size_t len, const rp_read_opts *o, readback *rb)
{
	memset(rb, 0, sizeof(*rb));
	rp_reader *r = NULL;
	rb->open_rc = rp_rpz_reader_open_mem(&r, buf, len, o, rb->err);
	if (rb->open_rc < 0) {
		rb->rc = rb->open_rc;
		return;
	}
	size_t cap = 0;
	rp_op op;
	while ((rb->rc = rp_reader_next(r, &op)) > 0) {
		if (rb->n_ops == cap) {
			cap = cap ? cap * 2 : 256;
			rb->ops = realloc(rb->ops, cap * sizeof(*rb->ops));
			assert_non_null(rb->ops);
		}
		rb->ops[rb->n_ops++] = op;
	}
	memcpy(rb->note, r->note, sizeof(rb->note));
	if (rb->rc < 0)
		memcpy(rb->err, r->errbuf, sizeof(rb->err));
	rb->n_strs = rp_strtab_count(r->strings);
	rb->meta = r->meta;
	rp_reader_close(r);
}

static void assert_same_ops(const rp_op *a, const rp_op *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!tl_op_eq(&a[i], &b[i]))
			fail_msg("op %zu differs: t_start %llu/%llu op %u/%u", i, (unsigned long long)a[i].t_start,
				 (unsigned long long)b[i].t_start, a[i].op, b[i].op);
	}
}

/* buf decodes without error to exactly t's ops. */
static void assert_reads_back(const uint8_t *buf, size_t len, const tl_trace *t)
{
	readback rb;
	read_all(buf, len, NULL, &rb);
	assert_int_equal(rb.rc, 0);
	assert_int_equal(rb.n_ops, t->n_ops);
	assert_same_ops(rb.ops, t->ops, t->n_ops);
	free(rb.ops);
}

static void test_roundtrip_extremes(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 5000, 300, 42);
	/* hand-picked extremes on top of the random ones */
	t.ops[0] = (rp_op){ .t_start = UINT64_MAX, .t_end = 0, .handle = UINT64_MAX, .offset = UINT64_MAX,
			    .length = UINT64_MAX, .result = 0, .client = UINT32_MAX, .path = 0, .want = UINT32_MAX,
			    .disp = UINT8_MAX, .oflags = UINT32_MAX, .attrs = UINT32_MAX, .mode = UINT32_MAX,
			    .uid = UINT32_MAX, .gid = UINT32_MAX, .proto = UINT8_MAX, .handle2 = 0, .offset2 = UINT64_MAX,
			    .atime = UINT64_MAX, .mtime = 1,
			    .raw = { UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX },
			    .proto_status = UINT32_MAX, .status = INT32_MIN, .op = RP_OP__COUNT - 1,
			    .flags = UINT16_MAX, .status_kind = UINT8_MAX };
	t.ops[1] = (rp_op){ .t_start = 0, .t_end = RP_TIME_UNKNOWN, .status = INT32_MAX, .result = UINT64_MAX };
	t.ops[2] = (rp_op){ .t_start = 1, .t_end = RP_TIME_UNKNOWN - 1, .status = RP_STATUS_UNKNOWN,
			    .handle = 1, .offset = 1, .length = UINT64_MAX, .result = 1 };
	t.ops[3] = (rp_op){ .t_start = 5, .t_end = 4, .status = RP_STATUS_OTHER, .handle = 1, .offset = 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 1000, .level = 3 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	readback rb;
	read_all(buf, len, NULL, &rb);
	assert_string_equal(rb.err, "");
	assert_int_equal(rb.rc, 0);
	assert_string_equal(rb.note, "");
	assert_int_equal(rb.n_ops, t.n_ops);
	assert_same_ops(rb.ops, t.ops, t.n_ops);
	assert_int_equal(rb.n_strs, t.n_strs);
	assert_memory_equal(&rb.meta, &t.meta, sizeof(rb.meta));

	/* strings, byte for byte (the empty one and ones with NULs included) */
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	rp_op op;
	while (rp_reader_next(r, &op) > 0) {
	}
	for (uint32_t i = 0; i < t.n_strs; i++) {
		uint32_t sl = 99;
		const char *const s = rp_reader_string(r, i + 1, &sl);
		assert_non_null(s);
		assert_int_equal(sl, t.lens[i]);
		assert_memory_equal(s, t.strs[i], sl);
	}
	rp_reader_close(r);
	free(rb.ops);
	free(buf);
	tl_free(&t);
}

/* Every op its own shape, every categorical field at its widest varint: the encoder's worst case. */
static void test_worst_case_shapes(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 3000, 3000, 9); /* string i+1 is defined before op i */
	for (size_t i = 0; i < t.n_ops; i++) {
		rp_op *const o = &t.ops[i];
		*o = (rp_op){ .t_start = UINT64_MAX - i, .t_end = i, .handle = UINT64_MAX - i, .offset = UINT64_MAX / 3 + i,
			      .length = UINT64_MAX - 7 * i, .result = i * 0x0101010101010101ull, .client = UINT32_MAX - (uint32_t)i,
			      .path = 1, .path2 = 1, .want = UINT32_MAX - (uint32_t)i, .disp = UINT8_MAX,
			      .oflags = UINT32_MAX, .attrs = UINT32_MAX, .mode = UINT32_MAX, .uid = UINT32_MAX,
			      .gid = UINT32_MAX, .proto = UINT8_MAX, .raw = { UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX },
			      .handle2 = i, .offset2 = UINT64_MAX - i, .atime = UINT64_MAX, .mtime = i,
			      .proto_status = UINT32_MAX,
			      .status = INT32_MIN, .op = RP_OP__COUNT - 1, .flags = UINT16_MAX, .status_kind = UINT8_MAX };
	}
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 3000, .level = 1 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	assert_reads_back(buf, len, &t);
	free(buf);
	tl_free(&t);
}

static const rp_op long_op = { .op = RP_OP_RENAME, .path = 1, .path2 = 2, .t_end = RP_TIME_UNKNOWN };

static int feed_long_strings(rp_sink *s, void *arg)
{
	const char *const big = arg;
	const rp_trace_meta m = { .source = RP_SRC_SYNTHETIC };
	assert_int_equal(s->meta(s, &m), 0);
	assert_int_equal(s->string(s, 1, big, RP_STR_MAX), 0);
	assert_int_equal(s->string(s, 2, big, 1), 0);
	assert_int_equal(s->string(s, 4, big, 1), RP_E_STATE); /* a gap */
	assert_int_equal(s->string(s, 3, big, RP_STR_MAX + 1), RP_E_LIMIT);
	assert_int_equal(s->op(s, &long_op), 0);
	const rp_op undefined = { .op = RP_OP_UNLINK, .path = 3 };
	assert_int_equal(s->op(s, &undefined), RP_E_STATE);
	const rp_op bad_code = { .op = RP_OP__COUNT };
	assert_int_equal(s->op(s, &bad_code), RP_E_INVAL);
	return s->finish(s);
}

static void test_long_strings(void **state)
{
	(void)state;
	char *big = malloc(RP_STR_MAX);
	assert_non_null(big);
	for (uint32_t i = 0; i < RP_STR_MAX; i++)
		big[i] = (char)('a' + i % 26);
	uint8_t *mem = NULL;
	size_t mlen = 0;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(tl_write_fn(NULL, feed_long_strings, big, &mem, &mlen, eb), 0);
	readback rb;
	read_all(mem, mlen, NULL, &rb);
	assert_int_equal(rb.rc, 0);
	assert_int_equal(rb.n_ops, 1);
	assert_int_equal(rb.n_strs, 2);
	assert_true(tl_op_eq(&rb.ops[0], &long_op));
	free(rb.ops);
	free(mem);
	free(big);
}

static void test_determinism(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 20000, 500, 7);
	uint8_t *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	const rp_rpz_wopts o = { .frame_ops = 4096, .level = 5 };
	assert_int_equal(tl_write(&t, &o, &a, &la), 0);
	assert_int_equal(tl_write(&t, &o, &b, &lb), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);

	/* read back and write again: the same bytes (rpz -> rpz is stable) */
	readback rb;
	read_all(a, la, NULL, &rb);
	assert_int_equal(rb.rc, 0);
	tl_trace t2 = t;
	t2.ops = rb.ops;
	t2.n_ops = rb.n_ops;
	t2.meta = rb.meta;
	uint8_t *c = NULL;
	size_t lc = 0;
	assert_int_equal(tl_write(&t2, &o, &c, &lc), 0);
	assert_int_equal(lc, la);
	assert_memory_equal(a, c, la);
	free(rb.ops);
	free(a);
	free(b);
	free(c);
	tl_free(&t);
}

/* Small match tables (the capture's frames): the same ops come back, the trace is as deterministic; a size
 * zstd has no tables of is refused when the writer is made. */
static void test_table_log(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 5000, 400, 11);
	uint8_t *a = NULL, *b = NULL, *big = NULL;
	size_t la = 0, lb = 0, lbig = 0;
	const rp_rpz_wopts small = { .frame_ops = 1024, .level = 3, .table_log = 12 };
	const rp_rpz_wopts dflt = { .frame_ops = 1024, .level = 3 };
	assert_int_equal(tl_write(&t, &small, &a, &la), 0);
	assert_int_equal(tl_write(&t, &small, &b, &lb), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_int_equal(tl_write(&t, &dflt, &big, &lbig), 0);
	assert_true(la != lbig || memcmp(a, big, la) != 0); /* the parameter reached zstd */
	assert_reads_back(a, la, &t);

	char *mem = NULL;
	size_t mlen = 0;
	FILE *const f = open_memstream(&mem, &mlen);
	assert_non_null(f);
	rp_rpz_writer *w = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	const int bad[] = { 1, 5, 99, -3 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const rp_rpz_wopts o = { .table_log = bad[i] };
		assert_int_equal(rp_rpz_writer_open_file(&w, f, "bad", &o, eb), RP_E_RANGE);
		assert_null(w);
		assert_non_null(strstr(eb, "table log"));
	}
	fclose(f);
	free(mem);
	free(a);
	free(b);
	free(big);
	tl_free(&t);
}

static void test_multiframe_index(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 1000, 50, 3);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 97, .level = 1 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	rp_rpz_info info;
	assert_int_equal(rp_rpz_reader_info(r, &info), 0);
	assert_true(info.has_index);
	assert_int_equal(info.frames, 11); /* 10 frames of 97 and one of 30 */
	assert_int_equal(info.ops, 1000);
	assert_int_equal(info.strings, 50);
	uint64_t expect_off = info.header_len, first = 0;
	for (uint32_t i = 0; i < info.frames; i++) {
		rp_rpz_frame_info fi;
		assert_int_equal(rp_rpz_reader_frame(r, i, &fi), 0);
		assert_int_equal(fi.offset, expect_off);
		assert_int_equal(fi.first_op, first);
		assert_int_equal(fi.n_ops, i < 10 ? 97 : 30);
		assert_int_equal(fi.t_first, t.ops[first].t_start);
		expect_off += fi.size;
		first += fi.n_ops;
	}
	rp_rpz_frame_info fi;
	assert_int_equal(rp_rpz_reader_frame(r, info.frames, &fi), RP_E_RANGE);
	size_t n = 0;
	rp_op op;
	int rc;
	while ((rc = rp_reader_next(r, &op)) > 0)
		assert_true(tl_op_eq(&op, &t.ops[n++]));
	assert_int_equal(rc, 0);
	assert_int_equal(n, 1000);
	assert_int_equal(rp_reader_next(r, &op), 0); /* the end stays the end */
	rp_reader_close(r);
	free(buf);
	tl_free(&t);
}

static void test_rewind_and_filter(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 3000, 100, 11);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 500 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	for (int pass = 0; pass < 3; pass++) {
		size_t n = 0;
		rp_op op;
		int rc;
		/* the second pass stops half-way before rewinding */
		const size_t stop = pass == 1 ? 1234 : SIZE_MAX;
		while (n < stop && (rc = rp_reader_next(r, &op)) > 0)
			assert_true(tl_op_eq(&op, &t.ops[n++]));
		if (stop == SIZE_MAX) {
			assert_int_equal(rc, 0);
			assert_int_equal(n, t.n_ops);
		}
		assert_true(rp_strtab_count(r->strings) <= t.n_strs);
		assert_int_equal(rp_reader_rewind(r), 0);
	}
	assert_int_equal(rp_strtab_count(r->strings), t.n_strs); /* not appended twice */
	rp_reader_close(r);

	/* client filter through the generic reader */
	const uint32_t want = t.ops[10].client;
	const rp_read_opts ro = { .filter_client = true, .client = want };
	readback rb;
	read_all(buf, len, &ro, &rb);
	assert_int_equal(rb.rc, 0);
	size_t k = 0;
	for (size_t i = 0; i < t.n_ops; i++) {
		if (t.ops[i].client != want)
			continue;
		assert_true(k < rb.n_ops);
		assert_true(tl_op_eq(&rb.ops[k], &t.ops[i]));
		k++;
	}
	assert_int_equal(k, rb.n_ops);
	assert_true(k > 0);
	free(rb.ops);
	free(buf);
	tl_free(&t);
}

static void test_empty(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 0, 0, 5);
	uint8_t *buf = NULL;
	size_t len = 0;
	assert_int_equal(tl_write(&t, NULL, &buf, &len), 0);
	readback rb;
	read_all(buf, len, NULL, &rb);
	assert_int_equal(rb.rc, 0);
	assert_int_equal(rb.n_ops, 0);
	assert_string_equal(rb.note, "");
	assert_memory_equal(&rb.meta, &t.meta, sizeof(rb.meta));
	free(buf);
	tl_free(&t);

	/* strings but no ops: one frame of 0 ops */
	tl_make(&t, 0, 3, 5);
	assert_int_equal(tl_write(&t, NULL, &buf, &len), 0);
	read_all(buf, len, NULL, &rb);
	assert_int_equal(rb.rc, 0);
	assert_int_equal(rb.n_ops, 0);
	assert_int_equal(rb.n_strs, 3);
	free(buf);
	tl_free(&t);

	/* a writer closed with nothing at all still writes a header and an index */
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(tl_write_fn(NULL, NULL, NULL, &buf, &len, eb), 0);
	read_all(buf, len, NULL, &rb);
	assert_int_equal(rb.rc, 0);
	assert_int_equal(rb.n_ops, 0);
	free(buf);
}

/* Cut at every byte (stride for big files): the whole frames before the cut come back, and a note says so. */
static void check_cuts(const uint8_t *buf, size_t len, const tl_trace *t, size_t stride)
{
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	rp_rpz_info info;
	assert_int_equal(rp_rpz_reader_info(r, &info), 0);
	rp_rpz_frame_info *const fi = calloc(info.frames + 1, sizeof(*fi));
	for (uint32_t i = 0; i < info.frames; i++)
		assert_int_equal(rp_rpz_reader_frame(r, i, &fi[i]), 0);
	rp_reader_close(r);

	for (size_t cut = 0; cut < len; cut += (cut < info.header_len + 64 || len - cut < 128) ? 1 : stride) {
		readback rb;
		read_all(buf, cut, NULL, &rb);
		if (cut < info.header_len) {
			assert_true(rb.open_rc == RP_E_TRUNCATED || (cut < 4 && rb.open_rc == RP_E_NOTTRACE));
			continue;
		}
		if (rb.rc != 0)
			fail_msg("cut at %zu of %zu: %s", cut, len, rb.err);
		uint64_t whole = 0;
		for (uint32_t i = 0; i < info.frames; i++)
			if (fi[i].offset + fi[i].size <= cut)
				whole += fi[i].n_ops;
		if (rb.n_ops != whole)
			fail_msg("cut at %zu: %zu ops, %llu in whole frames", cut, rb.n_ops, (unsigned long long)whole);
		assert_same_ops(rb.ops, t->ops, rb.n_ops);
		if (strstr(rb.note, "cut at byte") == NULL && strstr(rb.note, "no index") == NULL)
			fail_msg("cut at %zu: no note (\"%s\")", cut, rb.note);
		free(rb.ops);
	}
	free(fi);
}

static void test_cut_small_every_byte(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 60, 12, 99);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 20, .level = 1 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	check_cuts(buf, len, &t, 1);
	free(buf);
	tl_free(&t);
}

static void test_cut_large_stride(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 40000, 2000, 1234);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 4096, .level = 1 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	check_cuts(buf, len, &t, 4099);
	free(buf);
	tl_free(&t);
}

/* Cuts through the file reader (a real fd, not memory): same outcome. */
static void test_cut_file(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 300, 30, 17);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 64 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	char path[] = "/tmp/rpz-test-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	const size_t cuts[] = { len, len - 1, len - 30, len / 2, len / 3, 200 };
	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		FILE *const f = fopen(path, "wb");
		assert_int_equal(fwrite(buf, 1, cuts[c], f), cuts[c]);
		fclose(f);
		readback mem;
		read_all(buf, cuts[c], NULL, &mem);
		rp_reader *r = NULL;
		char eb[RP_ERRBUF_SIZE];
		assert_int_equal(rp_reader_open(&r, path, NULL, eb), 0); /* sniffed as .rpz */
		size_t n = 0;
		rp_op op;
		int rc;
		while ((rc = rp_reader_next(r, &op)) > 0)
			assert_true(tl_op_eq(&op, &t.ops[n++]));
		assert_int_equal(rc, 0);
		assert_int_equal(n, mem.n_ops);
		if (cuts[c] == len)
			assert_string_equal(r->note, "");
		else
			assert_non_null(strstr(r->note, path));
		/* the note names the file and the cut; rewind works on files too */
		assert_int_equal(rp_reader_rewind(r), 0);
		size_t n2 = 0;
		while (rp_reader_next(r, &op) > 0)
			n2++;
		assert_int_equal(n2, n);
		rp_reader_close(r);
		free(mem.ops);
	}
	unlink(path);
	free(buf);
	tl_free(&t);
}

/* Flip bytes everywhere: always an error (never silent, never a crash), naming the part that broke. */
static void test_flips(void **state)
{
	(void)state;
	tl_trace t;
	tl_make(&t, 80, 10, 31);
	uint8_t *buf = NULL;
	size_t len = 0;
	const rp_rpz_wopts o = { .frame_ops = 30, .level = 3 };
	assert_int_equal(tl_write(&t, &o, &buf, &len), 0);
	rp_reader *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_rpz_reader_open_mem(&r, buf, len, NULL, eb), 0);
	rp_rpz_info info;
	assert_int_equal(rp_rpz_reader_info(r, &info), 0);
	rp_rpz_frame_info fi[3];
	assert_int_equal(info.frames, 3);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(rp_rpz_reader_frame(r, i, &fi[i]), 0);
	rp_reader_close(r);

	uint8_t *const copy = malloc(len);
	static const uint8_t masks[] = { 0x01, 0x10, 0x80, 0xff };
	for (size_t pos = 0; pos < len; pos++) {
		for (size_t m = 0; m < sizeof(masks); m++) {
			memcpy(copy, buf, len);
			copy[pos] ^= masks[m];
			readback rb;
			read_all(copy, len, NULL, &rb);
			if (rb.rc >= 0)
				fail_msg("flip 0x%02x at byte %zu of %zu went unnoticed (%zu ops, note \"%s\")", masks[m],
					 pos, len, rb.n_ops, rb.note);
			char want[64];
			if (pos < info.header_len)
				snprintf(want, sizeof(want), "%s", pos < 4 ? "not an .rpz" : "header");
			else if (pos >= fi[2].offset + fi[2].size)
				snprintf(want, sizeof(want), "index");
			else
				snprintf(want, sizeof(want), "frame %d", pos >= fi[2].offset ? 2 : pos >= fi[1].offset ? 1 : 0);
			if (!strstr(rb.err, want))
				fail_msg("flip at byte %zu: \"%s\" does not say \"%s\"", pos, rb.err, want);
			/* whatever was handed out before the error is genuine */
			assert_same_ops(rb.ops, t.ops, rb.n_ops);
			free(rb.ops);
		}
	}
	free(copy);
	free(buf);
	tl_free(&t);
}

static void test_not_a_trace(void **state)
{
	(void)state;
	static const char text[] = "NTCreateX \"\\x\" 0x1 0x2 1 NT_STATUS_OK\n";
	readback rb;
	read_all((const uint8_t *)text, sizeof(text) - 1, NULL, &rb);
	assert_int_equal(rb.open_rc, RP_E_NOTTRACE);
	assert_non_null(strstr(rb.err, "not an .rpz"));
	read_all((const uint8_t *)"", 0, NULL, &rb);
	assert_int_equal(rb.open_rc, RP_E_NOTTRACE);
	read_all((const uint8_t *)"RPZ\x89", 4, NULL, &rb);
	assert_int_equal(rb.open_rc, RP_E_TRUNCATED);

	/* a newer major version is refused by name */
	tl_trace t;
	tl_make(&t, 10, 2, 1);
	uint8_t *buf = NULL;
	size_t len = 0;
	assert_int_equal(tl_write(&t, NULL, &buf, &len), 0);
	buf[8] = 4;
	const uint32_t hlen = (uint32_t)buf[12] | (uint32_t)buf[13] << 8;
	rp_put_le32(buf + hlen - 4, rp__crc32c(0, buf, hlen - 4));
	read_all(buf, len, NULL, &rb);
	assert_int_equal(rb.open_rc, RP_E_VERSION);
	free(buf);
	tl_free(&t);
}

static void test_writer_file(void **state)
{
	(void)state;
	char path[] = "/tmp/rpz-test-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	tl_trace t;
	tl_make(&t, 700, 20, 8);
	rp_rpz_writer *w = NULL;
	char eb[RP_ERRBUF_SIZE];
	const rp_rpz_wopts o = { .frame_ops = 256 };
	assert_int_equal(rp_rpz_writer_open(&w, path, &o, eb), 0);
	assert_int_equal(tl_feed(rp_rpz_writer_sink(w), &t), 0);
	/* frames reach the file as they fill: a reader sees them before close */
	rp_reader *r = NULL;
	assert_int_equal(rp_rpz_reader_open(&r, path, NULL, eb), 0);
	size_t n = 0;
	rp_op op;
	while (rp_reader_next(r, &op) > 0)
		n++;
	assert_int_equal(n, 512);
	assert_non_null(strstr(r->note, "no index"));
	rp_reader_close(r);
	assert_int_equal(rp_rpz_writer_close(w, eb), 0);
	assert_int_equal(rp_rpz_writer_close(NULL, eb), 0);
	assert_int_equal(rp_rpz_reader_open(&r, path, NULL, eb), 0);
	n = 0;
	while (rp_reader_next(r, &op) > 0)
		assert_true(tl_op_eq(&op, &t.ops[n++]));
	assert_int_equal(n, 700);
	assert_string_equal(r->note, "");
	rp_reader_close(r);
	/* A flag learnt after frames were written (a cut input) rewrites the header in place. */
	assert_int_equal(rp_rpz_writer_open(&w, path, &o, eb), 0);
	assert_int_equal(tl_feed(rp_rpz_writer_sink(w), &t), 0);
	assert_int_equal(rp_rpz_writer_add_flags(w, RP_META_TRUNCATED, eb), 0);
	assert_int_equal(rp_rpz_writer_close(w, eb), 0);
	assert_int_equal(rp_rpz_reader_open(&r, path, NULL, eb), 0);
	assert_true(r->meta.flags & RP_META_TRUNCATED);
	assert_int_equal(r->meta.flags & ~(uint32_t)RP_META_TRUNCATED, t.meta.flags);
	n = 0;
	while (rp_reader_next(r, &op) > 0)
		assert_true(tl_op_eq(&op, &t.ops[n++]));
	assert_int_equal(n, 700);
	assert_string_equal(r->note, "");
	rp_reader_close(r);
	/* A stream that cannot seek cannot be flagged once its header is out. */
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	FILE *const pw = fdopen(pfd[1], "wb");
	assert_non_null(pw);
	assert_int_equal(rp_rpz_writer_open_file(&w, pw, "pipe", &o, eb), 0);
	const rp_trace_meta pm = { .source = RP_SRC_SYNTHETIC };
	assert_int_equal(rp_rpz_writer_sink(w)->meta(rp_rpz_writer_sink(w), &pm), 0);
	assert_int_equal(rp_rpz_writer_add_flags(w, RP_META_TRUNCATED, eb), RP_E_UNSUPPORTED);
	rp_rpz_writer_close(w, eb);
	fclose(pw);
	close(pfd[0]);
	assert_int_equal(rp_rpz_writer_open(&w, "/nonexistent-dir/x.rpz", NULL, eb), RP_E_IO);
	const rp_rpz_wopts bad = { .frame_ops = 10u << 20 };
	assert_int_equal(rp_rpz_writer_open(&w, path, &bad, eb), RP_E_RANGE);
	unlink(path);
	tl_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_extremes),
		cmocka_unit_test(test_worst_case_shapes),
		cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_table_log),
		cmocka_unit_test(test_multiframe_index),
		cmocka_unit_test(test_rewind_and_filter),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_cut_small_every_byte),
		cmocka_unit_test(test_cut_large_stride),
		cmocka_unit_test(test_cut_file),
		cmocka_unit_test(test_flips),
		cmocka_unit_test(test_not_a_trace),
		cmocka_unit_test(test_writer_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
