/* The prepare plan (formats/plan.h) over a replay workload's ops, and replay's prepare running that same plan. */
#include "harness.h"

#include "formats/plan.h"
#include "replay/backend.h"

#define MAX_ITEMS 16

typedef struct got {
	char path[MAX_ITEMS][64];
	bool dir[MAX_ITEMS];
	uint64_t size[MAX_ITEMS];
	size_t n;
} got;

/* The plan of t's ops, as convert --prepare and stat compute it, copied into g. */
static int plan_collect(wl *t, got *g, char *eb)
{
	rp_plan p;
	const rp_plan_opts po = { .items = true };
	const int rc = rp_plan_ops(&p, t->ms.ops, t->ms.n_ops, rp_memsink_string, &t->ms, &po, eb);
	if (rc < 0)
		return rc;
	assert_true(p.n_items <= MAX_ITEMS);
	for (size_t i = 0; i < p.n_items; i++) {
		snprintf(g->path[g->n], sizeof(g->path[0]), "%s", p.items[i].path);
		g->dir[g->n] = p.items[i].dir;
		g->size[g->n] = p.items[i].size;
		g->n++;
	}
	rp_plan_free(&p);
	return 0;
}

/* in.bin read to 100000, sub/x queried and gone.txt unlinked existed; new.txt and made/ are the trace's. */
static void tiny(wl *t)
{
	wl_init(t, RP_SRC_LOADFILE_SMB);
	rp_op *op = wl_add(t, 0, RP_OP_OPEN, "/data/in.bin", 1, 0, 0, 0);
	op->disp = RP_DISP_OPEN;
	wl_add(t, 0, RP_OP_READ, NULL, 1, 0, 65536, 0);
	op = wl_add(t, 0, RP_OP_READ, NULL, 1, 65536, 65536, 0);
	op->result = 34464;
	wl_add(t, 0, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	op = wl_add(t, 0, RP_OP_OPEN, "/data/new.txt", 2, 0, 0, 0);
	op->disp = RP_DISP_CREATE;
	wl_add(t, 0, RP_OP_WRITE, NULL, 2, 0, 10, 0);
	wl_add(t, 0, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	wl_add(t, 0, RP_OP_STAT, "/data/sub/x", 0, 0, 0, 0);
	wl_add(t, 0, RP_OP_MKDIR, "/made", 0, 0, 0, 0);
	op = wl_add(t, 0, RP_OP_OPEN, "/made/f", 3, 0, 0, 0);
	op->disp = RP_DISP_CREATE;
	wl_add(t, 0, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	wl_add(t, 0, RP_OP_UNLINK, "/gone.txt", 0, 0, 0, 0);
	wl_open(t);
}

static void plan_of_a_tiny_trace(void **state)
{
	(void)state;
	wl t;
	tiny(&t);
	got g = { .n = 0 };
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(plan_collect(&t, &g, eb), 0);
	static const char *const want[] = { "data", "data/in.bin", "data/sub", "data/sub/x", "gone.txt" };
	static const bool want_dir[] = { true, false, true, false, false };
	static const uint64_t want_size[] = { 0, 100000, 0, 0, 0 };
	assert_int_equal(g.n, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(g.path[i], want[i]);
		assert_int_equal(g.dir[i], want_dir[i]);
		assert_int_equal(g.size[i], want_size[i]);
	}
	/* The same workload planned twice gives the same plan. */
	got again = { .n = 0 };
	assert_int_equal(plan_collect(&t, &again, eb), 0);
	assert_int_equal(again.n, g.n);
	wl_fini(&t);
}

/* The plan is the one replay's prepare runs: same counts through rp_replay_create + prepare. */
static void same_plan_as_replay_prepare(void **state)
{
	(void)state;
	wl t;
	tiny(&t);
	got g = { .n = 0 };
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(plan_collect(&t, &g, eb), 0);
	uint64_t dirs = 0, files = 0, bytes = 0;
	for (size_t i = 0; i < g.n; i++) {
		dirs += g.dir[i];
		files += !g.dir[i];
		bytes += g.size[i];
	}
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "null";
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, t.w, eb), 0);
	assert_int_equal(rp_replay_prepare(r, eb), 0);
	const rp_replay_results *const res = rp_replay_get_results(r);
	assert_true(res->prepare.ran);
	assert_int_equal(res->prepare.dirs, dirs);
	assert_int_equal(res->prepare.files, files);
	assert_int_equal(res->prepare.bytes, bytes);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Sizes are not computed modulo 2^64: a read of 4096 bytes at UINT64_MAX - 10
 * planned a 4085-byte file; the end saturates at 2^63 - 1 (what off_t holds).
 */
static void sizes_near_uint64_max_saturate(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	rp_op *op = wl_add(&t, 0, RP_OP_OPEN, "/big", 1, 0, 0, 0);
	op->disp = RP_DISP_OPEN;
	wl_add(&t, 0, RP_OP_READ, NULL, 1, UINT64_MAX - 10, 4096, 0);
	wl_add(&t, 0, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	op = wl_add(&t, 0, RP_OP_OPEN, "/w", 2, 0, 0, 0);
	op->disp = RP_DISP_OPEN;
	wl_add(&t, 0, RP_OP_WRITE, NULL, 2, UINT64_MAX - 10, 4096, 0); /* the workload makes it "long"... */
	wl_add(&t, 0, RP_OP_READ, NULL, 2, 0, 100, 0);                /* ...so this read needs nothing */
	wl_add(&t, 0, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	wl_open(&t);
	got g = { .n = 0 };
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(plan_collect(&t, &g, eb), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.path[0], "big");
	assert_true(g.size[0] == (uint64_t)INT64_MAX);
	assert_string_equal(g.path[1], "w");
	assert_int_equal(g.size[1], 0);
	wl_fini(&t);
}

/* An empty trace has an empty plan; replay refuses to run it. */
static void empty_workload_is_an_error(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_open(&t);
	got g = { .n = 0 };
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(plan_collect(&t, &g, eb), 0);
	assert_int_equal(g.n, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "null";
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, t.w, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "no ops"));
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_of_a_tiny_trace),
		cmocka_unit_test(same_plan_as_replay_prepare),
		cmocka_unit_test(empty_workload_is_an_error),
		cmocka_unit_test(sizes_near_uint64_max_saturate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
