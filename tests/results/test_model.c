/* Unit tests of results/model*.c: log2 buckets, seeded sampling, the two-pass builder, the JSON round trip and refusals, generation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "results/model.h"

static void buckets(void **state)
{
	(void)state;
	assert_int_equal(rp_mh_bucket(0), 0);
	assert_int_equal(rp_mh_bucket(1), 1);
	assert_int_equal(rp_mh_bucket(2), 2);
	assert_int_equal(rp_mh_bucket(3), 2);
	assert_int_equal(rp_mh_bucket(4096), 13);
	assert_int_equal(rp_mh_bucket(8191), 13);
	assert_int_equal(rp_mh_bucket(UINT64_MAX), 64);
	rp_mhist h = { { 0 } };
	rp_mh_add(&h, 0);
	rp_mh_add(&h, 4096);
	rp_mh_add(&h, 5000);
	assert_int_equal(rp_mh_total(&h), 3);
	assert_int_equal(h.n[13], 2);
}

/* Samples stay in their bucket and follow the counts; the same seed gives the same values. */
static void sampling(void **state)
{
	(void)state;
	rp_mhist h = { { 0 } };
	h.n[0] = 100;
	h.n[13] = 300;
	h.n[64] = 1;
	rp_rng r, r2;
	rp_rng_seed(&r, 42);
	rp_rng_seed(&r2, 42);
	unsigned in13 = 0, zero = 0;
	for (int i = 0; i < 40000; i++) {
		const uint64_t v = rp_mh_sample(&h, &r);
		assert_true(v == rp_mh_sample(&h, &r2));
		const unsigned b = rp_mh_bucket(v);
		assert_true(b == 0 || b == 13 || b == 64);
		in13 += b == 13;
		zero += b == 0;
	}
	/* 300/401 and 100/401 of 40000: 29925 and 9975, within a few standard deviations */
	assert_in_range(in13, 29400, 30400);
	assert_in_range(zero, 9500, 10450);
	rp_mhist empty = { { 0 } };
	assert_int_equal(rp_mh_sample(&empty, &r), 0);
	assert_int_equal(rp_rng_below(&r, 0), 0);
	for (int i = 0; i < 1000; i++)
		assert_true(rp_rng_below(&r, 7) < 7);
}

/* A sink of ops into both passes. */
static void feed(rp_sink *s, const rp_op *ops, size_t n)
{
	static const char *const names[] = { "/d/f", "/d/g", "/d" };
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(s->string(s, i + 1, names[i], (uint32_t)strlen(names[i])), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s->op(s, &ops[i]), 0);
}

static const rp_op trace[] = {
	{ .op = RP_OP_OPEN, .client = 1, .path = 1, .handle = 1, .disp = RP_DISP_OPEN, .t_start = 0, .t_end = 1000 },
	{ .op = RP_OP_READ, .client = 1, .handle = 1, .offset = 0, .length = 4096, .t_start = 2000, .t_end = 3000 },
	{ .op = RP_OP_READ, .client = 1, .handle = 1, .offset = 4096, .length = 4096, .t_start = 4000, .t_end = 5000 },
	{ .op = RP_OP_READ, .client = 1, .handle = 1, .offset = 65536, .length = 4096, .t_start = 6000, .t_end = 7000 },
	{ .op = RP_OP_CLOSE, .client = 1, .handle = 1, .t_start = 8000, .t_end = 9000 },
	{ .op = RP_OP_STAT, .client = 2, .path = 2, .t_start = 1500000000, .t_end = 1500001000, .status = 2 },
	{ .op = RP_OP_STAT, .client = 2, .path = 1, .t_start = 1600000000, .t_end = 1600001000 },
	{ .op = RP_OP_READDIR, .client = 2, .path = 3, .t_start = 1700000000, .t_end = 1700001000 },
};

static void build(rp_model *m)
{
	rp_model_builder *const b = rp_model_builder_create(1000000000);
	assert_non_null(b);
	char eb[RP_ERRBUF_SIZE];
	feed(rp_model_builder_pass1(b), trace, sizeof(trace) / sizeof(trace[0]));
	assert_int_equal(rp_model_builder_pass2_begin(b, eb), 0);
	feed(rp_model_builder_pass2(b), trace, sizeof(trace) / sizeof(trace[0]));
	assert_int_equal(rp_model_builder_finish(b, m, eb), 0);
	rp_model_builder_destroy(b);
}

static void builder(void **state)
{
	(void)state;
	rp_model m;
	build(&m);
	assert_int_equal(m.n_ops, 8);
	assert_int_equal(m.n_chunks, 2);
	assert_int_equal(m.n_classes, 2); /* a reader and a statter */
	assert_string_equal(m.classes[0].name, "read");
	assert_string_equal(m.classes[1].name, "stat");
	const rp_model_cell *const c0 = rp_model_cell_at(&m, 0, 0);
	assert_int_equal(c0->clients, 1);
	assert_int_equal(c0->ops[RP_OP_READ], 3);
	assert_int_equal(c0->rsize.n[13], 3);
	assert_int_equal(c0->seek.n[0], 2);  /* the first read at 0 and the sequential one */
	assert_int_equal(c0->seek.n[rp_mh_bucket(65536 - 8192)], 1);
	assert_int_equal(c0->run.n[2], 1);   /* a run of 2, then */
	assert_int_equal(c0->run.n[1], 1);   /* a run of 1 ended by the close */
	assert_int_equal(c0->gap.n[rp_mh_bucket(2000)], 4);
	assert_non_null(m.classes[0].gapfine); /* the class's gaps, finer: 2000 ns in [1024, 2048)'s last eighth */
	assert_int_equal(m.classes[0].gapfine[rp_mh_fine_index(2000)], 4);
	assert_int_equal(rp_mh_fine_index(2000), 11 * RP_MH_SUB + 7);
	assert_int_equal(m.classes[0].n_gapexact, 1); /* 2000 ns, 4 times: an exact gap */
	assert_int_equal(m.classes[0].gapexact[0].v, 2000);
	assert_int_equal(m.classes[0].gapexact[0].n, 4);
	assert_int_equal(c0->think.n[rp_mh_bucket(1000)], 4);
	assert_non_null(m.classes[0].lat[RP_OP_READ]);
	assert_int_equal(m.classes[0].lat[RP_OP_READ]->n[rp_mh_bucket(1000)], 3);
	assert_int_equal(m.classes[0].rexact.n[13], 3); /* 4096 is a power of two */
	assert_int_equal(m.fs.creates, 0);
	assert_non_null(c0->first); /* the reader began at 0 s, the statter 0.5 s into chunk 1 (bin 128 of 256) */
	assert_int_equal(c0->first[0], 1);
	const rp_model_cell *const c1 = rp_model_cell_at(&m, 1, 1);
	assert_non_null(c1->first);
	assert_int_equal(c1->first[128], 1);
	assert_null(rp_model_cell_at(&m, 1, 0)->first);
	assert_int_equal(c1->ops[RP_OP_STAT], 2);
	assert_int_equal(c1->failed[RP_OP_STAT], 1);
	assert_int_equal(m.fs.files, 1); /* /d/f (read and stat'ed); /d/g only failed a stat; /d a directory */
	assert_int_equal(m.fs.dirs, 1);
	assert_int_equal(m.fs.shared, 1);
	assert_int_equal(m.fs.size.n[rp_mh_bucket(69632)], 1);
	rp_model_free(&m);
}

static char *to_json(const rp_model *m, size_t *len)
{
	char *buf = NULL;
	FILE *const f = open_memstream(&buf, len);
	assert_non_null(f);
	char err[256];
	assert_int_equal(rp_model_write_json(m, f, err, sizeof(err)), 0);
	fclose(f);
	return buf;
}

static void json_round_trip(void **state)
{
	(void)state;
	rp_model m, back;
	build(&m);
	size_t len;
	char *const j = to_json(&m, &len);
	char err[256];
	assert_int_equal(rp_model_read_json(&back, j, len, err, sizeof(err)), 0);
	size_t len2;
	char *const j2 = to_json(&back, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(j, j2, len);
	free(j);
	free(j2);
	rp_model_free(&m);
	rp_model_free(&back);
}

static void refuse(const char *json, const char *want)
{
	rp_model m;
	char err[256];
	assert_int_equal(rp_model_read_json(&m, json, strlen(json), err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(m.cells);
}

#define HEAD "{\"format\":\"reprise-model\",\"version\":1,\"chunk_ns\":1000000000,\"span_ns\":0,\"ops\":1,"
#define FILES "\"files\":{\"files\":1,\"dirs\":0,\"created\":0,\"shared\":0},"
#define CLASSES "\"classes\":[{\"name\":\"read\",\"clients\":1}],"

static void bad_models(void **state)
{
	(void)state;
	refuse("", "line 1");
	refuse("[1]", "not a JSON object");
	refuse("{\"format\":\"x\"}", "format");
	refuse("{\"format\":\"reprise-model\",\"version\":4}", "version: 4, this reprise reads 1 to 3");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapexact\":[[100,1]]}]," FILES "\"chunks\":[[{}]]}",
	       "classes[0].gapexact: without gapfine");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapfine\":[60,3],\"gapexact\":[[100,2],[101,2]]}]," FILES
		    "\"chunks\":[[{}]]}",
	       "classes[0].gapexact[1]: more than gapfine's 3 in its part");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapfine\":[60,3],\"gapexact\":[[101,1],[100,1]]}]," FILES
		    "\"chunks\":[[{}]]}",
	       "classes[0].gapexact[1]: values not ascending");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapfine\":[60,3],\"gapexact\":[[15,1]]}]," FILES
		    "\"chunks\":[[{}]]}",
	       "classes[0].gapexact[0]: not a [value >= 16");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapfine\":[60,3],\"gapexact\":[]}]," FILES
		    "\"chunks\":[[{}]]}",
	       "classes[0].gapexact: not an array of 1 to 32");
	refuse("{\"format\":\"reprise-model\",\"version\":0}", "version: 0");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapfine\":[520,1]}]," FILES "\"chunks\":[[{}]]}",
	       "classes[0].gapfine: first bucket");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapfine\":[8,-1]}]," FILES "\"chunks\":[[{}]]}",
	       "classes[0].gapfine: bucket 8: count");
	refuse(HEAD CLASSES FILES "\"chunks\":[]}", "chunks: not an array of 1 chunks");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"rsize\":[70,1]}]]}", "rsize: first bucket");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"rsize\":[3,1,-2,1]}]]}", "rsize: bucket 4: count");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"gap\":[3]}]]}", "gap: not a histogram");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"ops\":{\"read\":1},\"failed\":{\"read\":2}}]]}",
	       "failed.read: more than its ops");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":2}]]}", "more than its class's 1");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"first\":[3,1,1]}]]}", "first: more first ops than its 1");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"first\":[256,1]}]]}", "first: first bucket");
	refuse(HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"ops\":{\"read\":99999999999999}}]]}", "not a count");
	refuse(HEAD CLASSES "\"files\":{\"files\":1,\"dirs\":0,\"created\":5,\"shared\":0},\"chunks\":[[{}]]}", "created");
	refuse("{\"format\":\"reprise-model\",\"version\":1,\"chunk_ns\":10,\"span_ns\":0,\"ops\":1}", "under 1 µs");
	refuse("{\"format\":\"reprise-model\",\"version\":1,\"chunk_ns\":1000,\"span_ns\":5000000,\"ops\":1}", "span_ns");
	refuse(HEAD "\"classes\":[]," FILES "\"chunks\":[[{}]]}", "classes");
	refuse(HEAD "\"classes\":[{\"name\":\"read\",\"clients\":1,\"lat\":{\"read\":[64,1,1]}}]," FILES "\"chunks\":[[{}]]}",
	       "classes[0].lat.read: first bucket");
}

/* The fine gap histogram: 8 equal parts per log2 bucket, drawn inside the part a value came from. */
static void fine_gaps(void **state)
{
	(void)state;
	assert_int_equal(rp_mh_fine_index(0), 0);
	assert_int_equal(rp_mh_fine_index(1), 1 * RP_MH_SUB);
	assert_int_equal(rp_mh_fine_index(100000), 17 * RP_MH_SUB + 4); /* [65536, 131072): parts of 8192 */
	assert_int_equal(rp_mh_fine_index(131071), 17 * RP_MH_SUB + 7);
	uint64_t fine[RP_MH_FINE] = { 0 };
	fine[rp_mh_fine_index(100000)] = 3;
	rp_rng r;
	rp_rng_seed(&r, 7);
	uint64_t v;
	for (int i = 0; i < 1000; i++) {
		assert_true(rp_mh_fine_sample(fine, NULL, 0, 17, &r, &v));
		assert_true(v >= 65536 + 4 * 8192 && v < 65536 + 5 * 8192);
	}
	assert_false(rp_mh_fine_sample(fine, NULL, 0, 16, &r, &v)); /* nothing in that bucket: the caller draws as before */
	assert_false(rp_mh_fine_sample(NULL, NULL, 0, 17, &r, &v));
	/* an exact value of the part: 2 of its 3 counts, so about 2 draws in 3 are it, the rest uniform in the part */
	const rp_mh_exact ex[] = { { 1000, 5 }, { 100000, 2 } }; /* 1000 is in another bucket: never drawn here */
	unsigned exact = 0, other = 0;
	for (int i = 0; i < 3000; i++) {
		assert_true(rp_mh_fine_sample(fine, ex, 2, 17, &r, &v));
		assert_true(v >= 65536 + 4 * 8192 && v < 65536 + 5 * 8192);
		exact += v == 100000;
		other += v == 1000;
	}
	assert_int_equal(other, 0);
	assert_true(exact > 1800 && exact < 2200);
	/* a version 1 model (no gapfine) still reads */
	const char *const v1 = HEAD CLASSES FILES "\"chunks\":[[{\"clients\":1,\"ops\":{\"read\":1}}]]}";
	rp_model m;
	char err[256];
	assert_int_equal(rp_model_read_json(&m, v1, strlen(v1), err, sizeof(err)), 0);
	assert_null(m.classes[0].gapfine);
	assert_int_equal(m.classes[0].n_gapexact, 0);
	rp_model_free(&m);
	/* a version 3 model's exact gaps read back */
	const char *const v3 = "{\"format\":\"reprise-model\",\"version\":3,\"chunk_ns\":1000000000,\"span_ns\":0,\"ops\":1,"
			       "\"classes\":[{\"name\":\"read\",\"clients\":1,\"gapfine\":[60,3],\"gapexact\":[[100,2]]}]," FILES
			       "\"chunks\":[[{\"clients\":1,\"ops\":{\"read\":1}}]]}";
	assert_int_equal(rp_model_read_json(&m, v3, strlen(v3), err, sizeof(err)), 0);
	assert_int_equal(m.classes[0].n_gapexact, 1);
	assert_int_equal(m.classes[0].gapexact[0].v, 100);
	assert_int_equal(m.classes[0].gapexact[0].n, 2);
	rp_model_free(&m);
}

/* Generation into a memory sink: deterministic, every I/O on an open handle, opens failing on missing names only. */
static void generate(void **state)
{
	(void)state;
	rp_model m;
	build(&m);
	rp_memsink a, b;
	assert_int_equal(rp_memsink_init(&a), 0);
	assert_int_equal(rp_memsink_init(&b), 0);
	const rp_gen_opts o = { .clients = 3, .seed = 9 };
	rp_gen_stats st;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_model_generate(&m, &o, &a.base, &st, eb), 0);
	assert_int_equal(rp_model_generate(&m, &o, &b.base, &st, eb), 0);
	assert_int_equal(a.n_ops, b.n_ops);
	assert_true(a.n_ops > 0);
	assert_memory_equal(a.ops, b.ops, a.n_ops * sizeof(rp_op));
	uint64_t open_h[16] = { 0 };
	size_t n_open = 0;
	for (size_t i = 0; i < a.n_ops; i++) {
		const rp_op *const op = &a.ops[i];
		if (i)
			assert_true(op->t_start >= a.ops[i - 1].t_start);
		if (op->op == RP_OP_OPEN && op->status == 0 && n_open < 16)
			open_h[n_open++] = op->handle;
		/* the model's span is 1.7 s: its last chunk is only what is left of it */
		assert_true(op->t_start <= m.span_ns);
		if (op->op == RP_OP_READ) {
			assert_int_equal(op->length, 4096); /* every read of the trace was exactly 4096: rexact */
			bool found = false;
			for (size_t k = 0; k < n_open; k++)
				found |= open_h[k] == op->handle;
			assert_true(found);
		}
		if (op->status) {
			uint32_t len;
			const char *const p = rp_memsink_string(&a, op->path, &len);
			assert_non_null(strstr(p, "missing"));
		}
	}
	rp_memsink_fini(&a);
	rp_memsink_fini(&b);
	/* the model's clients: the statter's first op 0.5 s into chunk 1 (its first bin), the trace's last op at the span */
	const rp_gen_opts o0 = { .seed = 9 };
	assert_int_equal(rp_memsink_init(&a), 0);
	assert_int_equal(rp_model_generate(&m, &o0, &a.base, &st, eb), 0);
	size_t k1 = 0;
	while (k1 < a.n_ops && a.ops[k1].t_start < 1000000000)
		k1++;
	assert_true(k1 < a.n_ops);
	assert_in_range(a.ops[k1].t_start, 1500000000, 1500000000 + 1000000000 / RP_MODEL_FIRST_BINS);
	assert_int_equal(a.ops[a.n_ops - 1].t_start, m.span_ns);
	rp_memsink_fini(&a);
	/* failed readdirs stay failed: a listing of a directory that is never there, ENOENT recorded */
	rp_model_cell_at(&m, 0, 0)->ops[RP_OP_READDIR] += 4;
	uint64_t want = 0;
	for (uint32_t ch = 0; ch < m.n_chunks; ch++)
		for (uint32_t k = 0; k < m.n_classes; k++) {
			rp_model_cell *const cell = rp_model_cell_at(&m, ch, k);
			want += cell->failed[RP_OP_READDIR] = cell->ops[RP_OP_READDIR];
		}
	const rp_gen_opts o1 = { .seed = 9 };
	assert_int_equal(rp_memsink_init(&a), 0);
	assert_int_equal(rp_model_generate(&m, &o1, &a.base, &st, eb), 0);
	unsigned readdirs = 0;
	for (size_t i = 0; i < a.n_ops; i++)
		if (a.ops[i].op == RP_OP_READDIR) {
			uint32_t len;
			assert_int_equal(a.ops[i].status, 2);
			assert_non_null(strstr(rp_memsink_string(&a, a.ops[i].path, &len), "/nodir"));
			readdirs++;
		}
	assert_int_equal(readdirs, want);
	rp_memsink_fini(&a);
	rp_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets),	 cmocka_unit_test(sampling),   cmocka_unit_test(builder),
		cmocka_unit_test(json_round_trip), cmocka_unit_test(bad_models), cmocka_unit_test(fine_gaps), cmocka_unit_test(generate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
