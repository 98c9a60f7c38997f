/*
 * The faithful defaults: --order auto (resource when the trace's clients
 * share a path one of them changes, a handle or a fork or wait op, else client; client with the
 * reason when resource's tables do not fit) and --max-inflight auto (each
 * client's recorded depth, at least 1, capped).  The decisions are asserted
 * from the results, never from timings.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* ---- A synchronous backend that completes every op as recorded ---------------------------- */

static _Atomic uint64_t next_bh = 1;

static int ok_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)a, (void)eb;
	*b = (void *)1;
	return 0;
}
static void ok_destroy(void *b)
{
	(void)b;
}
static int ok_client_init(void *b, void *c, const char *dir, char *eb)
{
	(void)b, (void)c, (void)dir, (void)eb;
	return 0;
}
static int ok_submit(void *b, void *c, rp_breq *req)
{
	(void)b, (void)c;
	const rp_op *const op = req->op;
	req->status = req->no_handle ? EBADF : op->status;
	req->result = op->op == RP_OP_READ || op->op == RP_OP_WRITE ? op->length : 0;
	if (op->op == RP_OP_OPEN && req->status == 0)
		req->bh = atomic_fetch_add(&next_bh, 1);
	return 0;
}
static void ok_release(void *b, void *c, uint64_t bh)
{
	(void)b, (void)c, (void)bh;
}

static const rp_backend_ops ok_ops = {
	.version = RP_BACKEND_VERSION, .name = "ok", .summary = "completes every op as recorded", .client_size = 8,
	.caps = RP_BCAP_MT_CLIENT, .create = ok_create, .destroy = ok_destroy, .client_init = ok_client_init,
	.submit = ok_submit, .release = ok_release,
};

/* ---- Helpers ------------------------------------------------------------------------------ */

/* An op of client at recorded time t_us, lasting len_us (0: its end unknown). */
static rp_op *at(wl *t, uint32_t client, uint64_t t_us, uint64_t len_us, unsigned opcode, const char *path)
{
	rp_op *const op = wl_add(t, client, opcode, path, 0, 0, 0, 0);
	op->t_start = t_us * 1000;
	op->t_end = len_us ? op->t_start + len_us * 1000 : RP_TIME_UNKNOWN;
	return op;
}

static void opts(rp_replay_opts *o)
{
	rp_replay_opts_init(o);
	o->target = "/nonexistent-unused";
	o->backend_ops = &ok_ops;
	o->no_prepare = true;
	o->order = RP_ORDER_AUTO;
	o->max_inflight = RP_REPLAY_INFLIGHT_AUTO;
}

static const rp_replay_results *run(wl *t, const rp_replay_opts *o, rp_replay **r)
{
	char eb[RP_ERRBUF_SIZE];
	/* A test that runs twice destroyed the first run: its workload goes too before the next is opened. */
	rp_workload_destroy(t->w);
	t->w = NULL;
	if (rp_replay_create(r, o, wl_open(t), eb) < 0 || rp_replay_run(*r, eb) < 0)
		fail_msg("%s", eb);
	return rp_replay_get_results(*r);
}

/* ---- --order auto ------------------------------------------------------------------------- */

/* Two clients on one path: resource, scanned, said so; and the order is kept (no mismatch). */
static void test_shared_path_is_resource(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	at(&t, 1, 10, 1, RP_OP_STAT, "/f");
	at(&t, 2, 20, 1, RP_OP_UNLINK, "/f");
	at(&t, 1, 30, 1, RP_OP_STAT, "/f")->status = ENOENT;
	rp_replay_opts o;
	opts(&o);
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	assert_int_equal(res->order, RP_ORDER_RESOURCE);
	assert_true(res->order_auto);
	assert_false(res->order_fallback);
	assert_int_equal(res->order_resources, 1);
	assert_non_null(strstr(res->order_why, "share 1 path"));
	assert_int_equal(res->mismatches, 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Clients that only look at what they share (stats, opens that create
 * nothing, reads): no order among them changes a result, client order (each
 * keeps its window); one write by one of them makes it resource.
 */
static void test_read_only_sharing_is_client(void **state)
{
	(void)state;
	for (int write = 0; write < 2; write++) {
		wl t;
		wl_init(&t, RP_SRC_PCAP_NFS);
		for (uint32_t c = 1; c <= 3; c++) {
			rp_op *op = at(&t, c, 10 * c, 1, RP_OP_OPEN, "/data");
			op->handle = 4;
			op->disp = RP_DISP_OPEN;
			op = at(&t, c, 10 * c + 1, 1, c == 3 && write ? RP_OP_WRITE : RP_OP_READ, NULL);
			op->handle = 4;
			op->length = op->result = 512;
			at(&t, c, 10 * c + 2, 1, RP_OP_STAT, "/data");
			at(&t, c, 10 * c + 3, 1, RP_OP_CLOSE, NULL)->handle = 4;
		}
		rp_replay_opts o;
		opts(&o);
		rp_replay *r;
		const rp_replay_results *const res = run(&t, &o, &r);
		assert_int_equal(res->order, write ? RP_ORDER_RESOURCE : RP_ORDER_CLIENT);
		assert_non_null(strstr(res->order_why, write ? "share 1 path" : "share no path"));
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* Disjoint clients: client order, nothing scanned; a given order is kept as given, not auto. */
static void test_disjoint_is_client(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	at(&t, 1, 10, 1, RP_OP_MKDIR, "/a");
	at(&t, 2, 20, 1, RP_OP_MKDIR, "/b");
	at(&t, 1, 30, 1, RP_OP_STAT, "/a/x")->status = ENOENT;
	at(&t, 2, 40, 1, RP_OP_STAT, "/b/x")->status = ENOENT;
	rp_replay_opts o;
	opts(&o);
	rp_replay *r;
	const rp_replay_results *res = run(&t, &o, &r);
	assert_int_equal(res->order, RP_ORDER_CLIENT);
	assert_true(res->order_auto);
	assert_int_equal(res->order_resources, 0);
	assert_non_null(strstr(res->order_why, "share no path"));
	rp_replay_destroy(r);
	o.order = RP_ORDER_CLIENT;
	res = run(&t, &o, &r);
	assert_false(res->order_auto);
	assert_string_equal(res->order_why, "");
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* One trace client copied (--clients 3, a loadfile's way): the copies share nothing, client order. */
static void test_copies_are_client(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	at(&t, 0, 0, 0, RP_OP_MKDIR, "\\clients");
	at(&t, 0, 0, 0, RP_OP_STAT, "\\clients");
	rp_replay_opts o;
	opts(&o);
	o.clones = 3;
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	assert_int_equal(res->order, RP_ORDER_CLIENT);
	assert_int_equal(res->order_resources, 0);
	assert_non_null(strstr(res->order_why, "one client"));
	/* No recorded ends: one at a time, the loop without the window. */
	assert_int_equal(res->max_inflight, 1);
	for (size_t i = 0; i < res->n_client_depth; i++)
		assert_int_equal(res->client_depth[i].bound, 1);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* A fork and a wait tie two clients that share no path: resource. */
static void test_fork_wait_is_resource(void **state)
{
	(void)state;
	for (int wait = 0; wait < 2; wait++) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		at(&t, 1, 10, 1, wait ? RP_OP_STAT : RP_OP_FORK, wait ? "/p" : NULL)->result = wait ? 0 : 2;
		at(&t, 2, 20, 1, RP_OP_STAT, "/c");
		if (wait)
			at(&t, 1, 30, 1, RP_OP_WAIT, NULL)->result = 2;
		rp_replay_opts o;
		opts(&o);
		rp_replay *r;
		const rp_replay_results *const res = run(&t, &o, &r);
		assert_int_equal(res->order, RP_ORDER_RESOURCE);
		assert_non_null(strstr(res->order_why, wait ? "1 client waited for by another" : "1 client forked by another"));
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* Resource's tables past order_mem_max: client order with the reason, and the run goes on. */
static void test_too_big_falls_back(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	char name[32];
	for (unsigned i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "/f%u", i / 2); /* each path twice, by both clients: client 2 makes it */
		at(&t, 1 + i % 2, i, 1, i % 2 ? RP_OP_MKDIR : RP_OP_STAT, name)->status = i % 2 ? 0 : ENOENT;
	}
	rp_replay_opts o;
	opts(&o);
	o.order_mem_max = 64 * 1024;
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	assert_int_equal(res->order, RP_ORDER_CLIENT);
	assert_true(res->order_auto && res->order_fallback);
	assert_non_null(strstr(res->order_why, "share 2500 paths"));
	assert_non_null(strstr(res->order_why, "MiB"));
	assert_int_equal(res->order_resources, 0);
	assert_int_equal(res->ops, 5000);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* ---- --max-inflight auto ------------------------------------------------------------------ */

/*
 * Client 1 recorded 3 ops overlapping (each started before the previous
 * ended), client 2 none: bounds 3 and 1, the run's 3, said to be auto.
 */
static void test_recorded_depth(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	at(&t, 1, 0, 100, RP_OP_STAT, "/a");
	at(&t, 1, 10, 100, RP_OP_STAT, "/b");
	at(&t, 1, 20, 100, RP_OP_STAT, "/c");
	at(&t, 1, 500, 10, RP_OP_STAT, "/d");
	at(&t, 2, 0, 10, RP_OP_STAT, "/e");
	at(&t, 2, 20, 10, RP_OP_STAT, "/e");
	rp_replay_opts o;
	opts(&o);
	rp_replay *r;
	const rp_replay_results *res = run(&t, &o, &r);
	assert_true(res->inflight_auto);
	assert_int_equal(res->inflight_cap, RP_REPLAY_AUTO_SYNC_MAX);
	assert_int_equal(res->max_inflight, 3);
	assert_int_equal(res->n_client_depth, 2);
	assert_int_equal(res->client_depth[0].bound, 3);
	assert_int_equal(res->client_depth[0].rec_max, 3);
	assert_int_equal(res->client_depth[1].bound, 1);
	assert_int_equal(res->client_depth[1].max, 1);
	assert_int_equal(res->depth.bound, 3);
	assert_true(res->client_depth[0].max >= 1 && res->client_depth[0].max <= 3);
	rp_replay_destroy(r);
	/* A number keeps its meaning: every client that bound, not auto. */
	o.max_inflight = 2;
	res = run(&t, &o, &r);
	assert_false(res->inflight_auto);
	assert_int_equal(res->inflight_cap, 0);
	assert_int_equal(res->max_inflight, 2);
	assert_int_equal(res->client_depth[0].bound, 2);
	assert_int_equal(res->client_depth[1].bound, 2);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Capped: 100 overlapping ops of one client are bound at 64 on a
 * synchronous backend (63 worker threads) and at 100 on an asynchronous one
 * (the null backend keeps its requests itself; its cap is the window's).
 */
static void test_capped(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	char name[32];
	for (unsigned i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "/f%u", i);
		at(&t, 1, i, 1000, RP_OP_STAT, name);
	}
	rp_replay_opts o;
	opts(&o);
	rp_replay *r;
	const rp_replay_results *res = run(&t, &o, &r);
	assert_int_equal(res->client_depth[0].rec_max, 100);
	assert_int_equal(res->client_depth[0].bound, RP_REPLAY_AUTO_SYNC_MAX);
	assert_int_equal(res->inflight_cap, RP_REPLAY_AUTO_SYNC_MAX);
	assert_int_equal(res->mismatches, 0);
	rp_replay_destroy(r);
	o.backend_ops = NULL;
	o.backend = "null";
	res = run(&t, &o, &r);
	assert_int_equal(res->inflight_cap, RP_REPLAY_MAX_INFLIGHT);
	assert_int_equal(res->client_depth[0].bound, 100);
	assert_int_equal(res->max_inflight, 100);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* A synchronous backend's worker threads stay within RP_REPLAY_AUTO_WORKERS_MAX: 100 copies get 40 each. */
static void test_worker_budget(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	at(&t, 1, 0, 100, RP_OP_STAT, "/a");
	at(&t, 1, 10, 100, RP_OP_STAT, "/b");
	rp_replay_opts o;
	opts(&o);
	o.clones = 100;
	rp_replay *r;
	const rp_replay_results *const res = run(&t, &o, &r);
	assert_int_equal(res->inflight_cap, RP_REPLAY_AUTO_WORKERS_MAX / 100);
	assert_int_equal(res->max_inflight, 2); /* below the cap: the recorded depth */
	rp_replay_destroy(r);
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_path_is_resource),
		cmocka_unit_test(test_disjoint_is_client),
		cmocka_unit_test(test_read_only_sharing_is_client),
		cmocka_unit_test(test_copies_are_client),
		cmocka_unit_test(test_fork_wait_is_resource),
		cmocka_unit_test(test_too_big_falls_back),
		cmocka_unit_test(test_recorded_depth),
		cmocka_unit_test(test_capped),
		cmocka_unit_test(test_worker_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
