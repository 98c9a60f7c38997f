/*
 * The backend interface, as a run goes on a backend: per-op capabilities
 * (ops a backend cannot express counted as unsupported, never sent to it),
 * modules of older interfaces that are busy, a client state lost for good,
 * and a backend's error stopping the run (choosing a backend:
 * test_replay_backend.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec_backend.h"

/* ---- 1. Per-op capabilities ------------------------------------------------------------------ */

static const rp_replay_results *run_masked(wl *t, uint64_t mask, bool prepare, rp_replay **r)
{
	static rp_backend_ops partial;
	partial = good;
	partial.name = "partial";
	partial.op_mask = mask;
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/nonexistent";
	o.backend_ops = &partial;
	o.no_prepare = !prepare;
	char eb[RP_ERRBUF_SIZE];
	reset_seen();
	if (rp_replay_create(r, &o, wl_open(t), eb) < 0 || rp_replay_run(*r, eb) < 0)
		fail_msg("run: %s", eb);
	return rp_replay_get_results(*r);
}

static void test_unsupported_ops(void **state)
{
	(void)state;
	/* No lock, no unlink: those are counted as unsupported, and never reach the backend. */
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_OPEN, "\\f", 5, 0, 0, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 5, 0, 100, 0);
	wl_add(&t, 1, RP_OP_LOCK, NULL, 5, 0, 10, 0);
	wl_add(&t, 1, RP_OP_LOCK, NULL, 5, 20, 10, EAGAIN); /* even one that failed in the trace: not a mismatch */
	wl_add(&t, 1, RP_OP_UNLINK, "\\g", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 5, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "\\f", 0, 0, 0, 0);
	rp_replay *r = NULL;
	const uint64_t mask = RP_BACKEND_ALL_OPS & ~(UINT64_C(1) << RP_OP_LOCK) & ~(UINT64_C(1) << RP_OP_UNLINK);
	const rp_replay_results *res = run_masked(&t, mask, false, &r);
	assert_int_equal(res->op[RP_OP_LOCK].unsupported, 2);
	assert_int_equal(res->op[RP_OP_UNLINK].unsupported, 1);
	assert_int_equal(res->unsupported, 3);
	assert_int_equal(res->op[RP_OP_LOCK].count, 0);
	assert_int_equal(res->failures, 0);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->unknown_handles, 0);
	assert_int_equal(res->ops, 4); /* open, write, close, stat */
	assert_int_equal(atomic_load(&seen[RP_OP_LOCK]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_UNLINK]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_OPEN]), 1);
	assert_int_equal(atomic_load(&seen[RP_OP_CLOSE]), 1);
	/* The table gets an Unsupported column and a line; the JSON the counters, per op and in all. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	rp_replay_write_table(res, f);
	assert_int_equal(rp_replay_write_json(res, NULL, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, " Unsupported\n"));
	assert_non_null(strstr(text, "Unsupported by the partial backend (not sent to it; not failed, not mismatched): 3"));
	assert_non_null(strstr(text, "\"unsupported\": 3"));
	assert_non_null(strstr(text, "\"lock\": {"));
	assert_non_null(strstr(text, "\"unsupported\": 2"));
	free(text);
	rp_replay_destroy(r);

	/* Every op: no Unsupported column, and the counters are 0. */
	rp_workload_destroy(t.w); /* run_masked opens the ops again */
	t.w = NULL;
	res = run_masked(&t, 0, false, &r);
	assert_int_equal(res->unsupported, 0);
	assert_int_equal(atomic_load(&seen[RP_OP_LOCK]), 2);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	rp_replay_write_table(res, f);
	assert_int_equal(fclose(f), 0);
	assert_null(strstr(text, "Unsupported"));
	free(text);
	rp_replay_destroy(r);
	wl_fini(&t);

	/*
	 * No open: the ops on its handle are unsupported too (not unknown handles,
	 * not mismatches), and prepare never sends the backend an open either.
	 */
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_OPEN, "\\x", 7, 0, 0, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 7, 0, 100, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 7, 0, 0, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 7, 0, 100, EBADF); /* after the close: its own thing again */
	wl_add(&t, 1, RP_OP_STAT, "\\x", 0, 0, 0, 0);
	res = run_masked(&t, RP_BACKEND_ALL_OPS & ~(UINT64_C(1) << RP_OP_OPEN), true, &r);
	assert_int_equal(res->op[RP_OP_OPEN].unsupported, 1);
	assert_int_equal(res->op[RP_OP_READ].unsupported, 1);
	assert_int_equal(res->op[RP_OP_CLOSE].unsupported, 1);
	assert_int_equal(res->unknown_handles, 1); /* the read after the close: a handle never opened, EBADF as recorded */
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(atomic_load(&seen[RP_OP_OPEN]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_CLOSE]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_STAT]), 1);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* ---- 2. A client state lost for good (client_error, interface 6) ---------------------------------- */

/* Each state takes LOSE_AFTER ops, then says it is lost (a server that went away). */
#define LOSE_AFTER 3
typedef struct lossy_client {
	unsigned ops;
} lossy_client;

static int lossy_submit(void *b, void *cs, rp_breq *req)
{
	lossy_client *const c = cs;
	c->ops++;
	return rec_submit(b, cs, req);
}

static int lossy_error(void *b, void *cs, char *eb)
{
	(void)b;
	const lossy_client *const c = cs;
	return c->ops >= LOSE_AFTER ? rp_fail(eb, RP_E_IO, "lossy://x: the server went away after %u ops", c->ops) : 0;
}

static const rp_replay_results *run_lossy(wl *t, const rp_backend_ops *ops, uint32_t inflight, bool prepare,
					  rp_replay **r, int *rc, char *eb)
{
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/nonexistent";
	o.backend_ops = ops;
	o.no_prepare = !prepare;
	o.max_inflight = inflight;
	reset_seen();
	if (rp_replay_create(r, &o, wl_open(t), eb) < 0)
		fail_msg("create: %s", eb);
	*rc = rp_replay_run(*r, eb);
	return rp_replay_get_results(*r);
}

/*
 * Modules built against interface 7 and 8 that are busy every other submit
 * (7: RP_E_LIMIT, 8: RP_BREQ_BUSY): each loads, and a run one at a time, in a
 * window and with prepare completes every op, none failed.
 */
static void test_module_busy(void **state)
{
	(void)state;
	const char *const root = getenv("REPRISE_BUILD_ROOT");
	assert_non_null(root);
	for (int v = 7; v <= 8; v++) {
		char path[4096], sym[64], eb[RP_ERRBUF_SIZE] = "";
		snprintf(path, sizeof(path), "%s/tests/replay/reprise-backend-modtest%d.so", root, v);
		snprintf(sym, sizeof(sym), "rp__backend_modtest%d", v);
		const rp_backend_ops *ops = NULL;
		if (rp__backend_module_open(path, sym, &ops, eb) != 0)
			fail_msg("%s", eb);
		assert_int_equal(ops->version, v);
		if (rp_backend_check(ops, eb) != 0)
			fail_msg("%s", eb);
		/* Its option table (rp_backend_opt as the module was built) read through the shared descriptor. */
		rp_backend_parsed p;
		assert_int_equal(rp_backend_parse_opts(ops, "chunk=16M,mode=fast", &p, eb), 0);
		assert_int_equal(p.vals[0].u, 16u << 20);
		assert_int_equal(p.vals[1].u, 0);
		rp_backend_parsed_free(&p);
		assert_int_equal(rp_backend_parse_opts(ops, "chunk=2G", &p, eb), RP_E_RANGE);
		assert_non_null(strstr(eb, "option 'chunk': 2G is out of range (512 to 1G)"));
		assert_int_equal(rp_backend_parse_opts(ops, "mode=slow", &p, eb), RP_E_INVAL);
		assert_non_null(strstr(eb, "option 'mode': 'slow' is not one of fast, safe"));
		char terms[128];
		rp_bopt_terms(&ops->opts[0], terms, sizeof(terms));
		assert_string_equal(terms, "size, default 64k, 512 to 1G");
		for (uint32_t inflight = 1; inflight <= 4; inflight += 3)
			for (int prepare = 0; prepare <= 1; prepare++) {
				wl t;
				wl_init(&t, RP_SRC_LOADFILE_SMB);
				for (int i = 0; i < 10; i++)
					wl_add(&t, 1, RP_OP_STAT, "\\d\\f", 0, 0, 0, 0);
				rp_replay *r = NULL;
				int rc;
				const rp_replay_results *res = run_lossy(&t, ops, inflight, prepare, &r, &rc, eb);
				if (rc != 0)
					fail_msg("version %d, inflight %u, prepare %d: %s", v, inflight, prepare, eb);
				assert_int_equal(res->stop, RP_STOP_END);
				assert_int_equal(res->op[RP_OP_STAT].count, 10);
				assert_int_equal(res->failures, 0);
				rp_replay_destroy(r);
				wl_fini(&t);
			}
	}
}

static rp_backend_ops lossy_ops(void)
{
	rp_backend_ops lossy = good;
	lossy.name = "lossy";
	lossy.submit = lossy_submit;
	lossy.client_error = lossy_error;
	lossy.client_size = sizeof(lossy_client);
	return lossy;
}

/* Prepare stops at a lost state; a backend of before client_error never has it called (the run: stop_rows). */
static void test_client_error(void **state)
{
	(void)state;
	rp_backend_ops lossy = lossy_ops();
	/* Prepare stops at the lost state too: two files to make, the state lost after the first one's 3 calls. */
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "\\b", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "\\c", 0, 0, 0, 0);
	rp_replay *r = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	int rc;
	run_lossy(&t, &lossy, 1, true, &r, &rc, eb);
	assert_int_equal(rc, RP_E_IO);
	assert_non_null(strstr(eb, "the server went away"));
	assert_int_equal(atomic_load(&seen[RP_OP_STAT]), 0); /* the run never started */
	rp_replay_destroy(r);
	/* A version 5 backend has no such hook: whatever lies in the field is not called. */
	lossy.version = 5;
	wl_fini(&t);
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	for (int i = 0; i < 10; i++)
		wl_add(&t, 1, RP_OP_MKDIR, "\\d", 0, 0, 0, 0);
	const rp_replay_results *res = run_lossy(&t, &lossy, 1, false, &r, &rc, eb);
	assert_int_equal(rc, 0);
	assert_int_equal(res->stop, RP_STOP_END);
	assert_int_equal(atomic_load(&seen[RP_OP_MKDIR]), 10);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* ---- 3. One error policy: a backend error from submit stops the run, sync or async, in prepare too ---- */

/* Each client state takes LOSE_AFTER mkdirs, then its submit fails with RP_E_IO (status EIO set first). */
static int failing_submit(void *b, void *cs, rp_breq *req)
{
	lossy_client *const c = cs;
	if (c->ops >= LOSE_AFTER) {
		req->status = EIO;
		return RP_E_IO;
	}
	c->ops++;
	return rec_submit(b, cs, req);
}

static rp_backend_ops failing_ops(bool async)
{
	rp_backend_ops failing = good;
	failing.name = "failing";
	failing.submit = failing_submit;
	failing.client_size = sizeof(lossy_client);
	failing.caps = async ? RP_BCAP_ASYNC : 0;
	failing.poll = async ? rec_poll : NULL;
	return failing;
}

/*
 * Each client state's first LOSE_AFTER mkdirs find the directory there
 * (status EEXIST); then its submit fails without saying a status, which must
 * not be the previous op's.
 */
static int forgetful_submit(void *b, void *cs, rp_breq *req)
{
	lossy_client *const c = cs;
	if (c->ops >= LOSE_AFTER)
		return RP_E_IO;
	c->ops++;
	atomic_fetch_add(&seen[req->op->op], 1);
	req->status = EEXIST;
	if (req->cb)
		req->cb(req);
	return 0;
}

enum stop_kind {
	STOP_LOST,      /* lossy_ops: client_error says the state is lost */
	STOP_FAILING,   /* failing_ops: submit fails, status EIO */
	STOP_FORGETFUL, /* forgetful_submit: submit fails, no status */
};

static rp_backend_ops stop_ops(enum stop_kind kind, bool async)
{
	if (kind == STOP_LOST)
		return lossy_ops();
	rp_backend_ops ops = failing_ops(async);
	if (kind == STOP_FORGETFUL) {
		ops.name = "forgetful";
		ops.submit = forgetful_submit;
	}
	return ops;
}

/*
 * A run of 10 mkdirs whose backend cannot go on after LOSE_AFTER of them:
 * a client state lost (client_error) or a submit that fails, one at a time
 * or in a window, sync or async.  The client stops there: the run fails with
 * the words expected, its results are there.
 */
#define FORGOT "the forgetful backend cannot go on (mkdir: input/output error)"
static const struct stop_row {
	enum stop_kind kind;
	bool async;
	uint32_t inflight;
	const char *says;
	uint64_t count, failures; /* mkdirs counted in the results, and failed (the one the backend could not do) */
} stop_rows[] = {
	{ STOP_LOST, false, 1, "lossy://x: the server went away after 3 ops", LOSE_AFTER, 0 },
	{ STOP_LOST, false, 4, "lossy://x: the server went away after 3 ops", LOSE_AFTER, 0 },
	/* Before, an async backend's error was one more failed op and the run went on to the end. */
	{ STOP_FAILING, false, 1, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	{ STOP_FAILING, false, 4, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	{ STOP_FAILING, true, 1, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	{ STOP_FAILING, true, 4, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	/* Before, the failed op showed what the one before it had left (or whatever the stack held): EEXIST. */
	{ STOP_FORGETFUL, false, 1, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
	{ STOP_FORGETFUL, false, 4, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
	{ STOP_FORGETFUL, true, 1, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
	{ STOP_FORGETFUL, true, 4, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
};

static void test_backend_stops(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(stop_rows) / sizeof(stop_rows[0]); i++) {
		const struct stop_row *const row = &stop_rows[i];
		const rp_backend_ops ops = stop_ops(row->kind, row->async);
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		for (int k = 0; k < 10; k++)
			wl_add(&t, 1, RP_OP_MKDIR, "\\d", 0, 0, 0, 0);
		rp_replay *r = NULL;
		char eb[RP_ERRBUF_SIZE] = "";
		int rc;
		const rp_replay_results *res = run_lossy(&t, &ops, row->inflight, false, &r, &rc, eb);
		if (rc != RP_E_IO || !strstr(eb, row->says))
			fail_msg("row %zu: rc %d: %s", i, rc, eb);
		if (res->stop != RP_STOP_ERROR || atomic_load(&seen[RP_OP_MKDIR]) != LOSE_AFTER ||
		    res->op[RP_OP_MKDIR].count != row->count || res->failures != row->failures)
			fail_msg("row %zu: stop %d, %u mkdirs seen, %" PRIu64 " counted, %" PRIu64 " failed", i, (int)res->stop,
				 (unsigned)atomic_load(&seen[RP_OP_MKDIR]), res->op[RP_OP_MKDIR].count, res->failures);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* Prepare: a submit's error fails it naming the op, the item and the status; the run never starts. */
static void test_submit_error_stops(void **state)
{
	(void)state;
	const rp_backend_ops failing = failing_ops(false);
	/* Prepare: mkdir p, mkdir p/a, open p/a/x, then its close fails: the run fails naming it and never starts. */
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	const char *const dirs[] = { "\\p\\a\\x", "\\p\\b\\x", "\\p\\c\\x", "\\p\\d\\x" };
	for (int i = 0; i < 4; i++)
		wl_add(&t, 1, RP_OP_STAT, dirs[i], 0, 0, 0, 0);
	rp_replay *r = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	int rc;
	run_lossy(&t, &failing, 1, true, &r, &rc, eb);
	assert_int_equal(rc, RP_E_IO);
	assert_non_null(strstr(eb, "prepare: /nonexistent: the failing backend cannot go on (close of p/a/x: Input/output error [EIO])"));
	assert_int_equal(atomic_load(&seen[RP_OP_STAT]), 0); /* the run never started */
	rp_replay_destroy(r);
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_submit_error_stops),
		cmocka_unit_test(test_backend_stops),
		cmocka_unit_test(test_unsupported_ops),
		cmocka_unit_test(test_client_error),
		cmocka_unit_test(test_module_busy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
