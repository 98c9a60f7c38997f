/* Engine tests over in-memory workloads: ordering, clones, looping and duration, mismatch policies, counts. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/loadfile.h"
#include "formats/reader.h"
#include "harness.h"
#include "replay/backend.h"
#include "replay/workload.h"

/* ---- A recording backend: checks program order per client and keeps what it saw. */

#define MAX_DIRS 64

static struct {
	pthread_mutex_t mu;
	char dirs[MAX_DIRS][32];
	uint32_t trace_client[MAX_DIRS];
	int n_dirs;
	atomic_int order_errors;
	atomic_ulong ops;
} rec = { .mu = PTHREAD_MUTEX_INITIALIZER };

typedef struct rec_client {
	uint64_t last_seq; /* offset carries a per-client sequence number */
	uint32_t trace_client;
	bool seen;
	uint64_t next_handle;
} rec_client;

static int rec_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)a, (void)eb;
	*b = &rec;
	return 0;
}
static void rec_destroy(void *b)
{
	(void)b;
}
static int rec_client_init(void *b, void *c, const char *dir, char *eb)
{
	(void)b, (void)eb;
	((rec_client *)c)->next_handle = 1;
	pthread_mutex_lock(&rec.mu);
	if (rec.n_dirs < MAX_DIRS)
		snprintf(rec.dirs[rec.n_dirs++], 32, "%s", dir);
	pthread_mutex_unlock(&rec.mu);
	return 0;
}
static void rec_client_fini(void *b, void *c)
{
	(void)b, (void)c;
}
static int rec_submit(void *b, void *cs, rp_breq *req)
{
	(void)b;
	rec_client *const c = cs;
	if (req->op->op == RP_OP_STAT) {
		if (c->seen && req->op->client != c->trace_client)
			atomic_fetch_add(&rec.order_errors, 1); /* another client's op */
		c->trace_client = req->op->client;
		c->seen = true;
		/* Sequence numbers restart at 1 on each pass. */
		if (req->op->offset != c->last_seq + 1 && req->op->offset != 1)
			atomic_fetch_add(&rec.order_errors, 1);
		c->last_seq = req->op->offset;
	}
	atomic_fetch_add(&rec.ops, 1);
	req->status = 0;
	if (req->op->op == RP_OP_OPEN)
		req->bh = c->next_handle++;
	return 0;
}
static void rec_release(void *b, void *c, uint64_t bh)
{
	(void)b, (void)c, (void)bh;
}

static const rp_backend_ops rec_ops = {
	.version = RP_BACKEND_VERSION, .name = "record", .summary = "test", .client_size = sizeof(rec_client),
	.create = rec_create, .destroy = rec_destroy, .client_init = rec_client_init,
	.client_fini = rec_client_fini, .submit = rec_submit, .release = rec_release,
};

static void rec_reset(void)
{
	rec.n_dirs = 0;
	atomic_store(&rec.order_errors, 0);
	atomic_store(&rec.ops, 0);
}

static int cmp_dir(const void *a, const void *b)
{
	return strcmp(a, b);
}

static rp_replay *make(wl *t, rp_replay_opts *o)
{
	char eb[RP_ERRBUF_SIZE];
	rp_replay *r = NULL;
	const int rc = rp_replay_create(&r, o, wl_open(t), eb);
	if (rc < 0)
		fail_msg("create: %s", eb);
	return r;
}

static const rp_replay_results *run(rp_replay *r)
{
	char eb[RP_ERRBUF_SIZE];
	if (rp_replay_run(r, eb) < 0)
		fail_msg("run: %s", eb);
	return rp_replay_get_results(r);
}

/* Each client sees its own ops in program order, even with many threads at once. */
static void test_order_multi_client(void **state)
{
	(void)state;
	rec_reset();
	wl t;
	wl_init(&t, RP_SRC_SYNTHETIC);
	enum { CLIENTS = 6, OPS = 5000 };
	uint64_t seq[CLIENTS] = { 0 };
	for (int i = 0; i < CLIENTS * OPS; i++) {
		const uint32_t c = (uint32_t)((i * 7 + i / 3) % CLIENTS);
		wl_add(&t, 10 + c, RP_OP_STAT, "\\x", 0, ++seq[c], 0, 0);
	}
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend_ops = &rec_ops;
	o.no_prepare = true; /* prepare would be one more client of the recording backend */
	rp_replay *const r = make(&t, &o);
	const rp_replay_results *const res = run(r);
	assert_int_equal(res->clients, CLIENTS);
	assert_int_equal(atomic_load(&rec.order_errors), 0);
	assert_int_equal(res->op[RP_OP_STAT].count, CLIENTS * OPS);
	assert_int_equal(res->ops, CLIENTS * OPS);
	assert_int_equal(res->passes, CLIENTS);
	assert_int_equal(res->stop, RP_STOP_END);
	/* A multi-client trace runs every client in the target itself. */
	assert_int_equal(rec.n_dirs, CLIENTS);
	for (int i = 0; i < rec.n_dirs; i++)
		assert_string_equal(rec.dirs[i], "");
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* --clients N: N copies, copy k in clientk; a two-client trace cloned twice gives four clients. */
static void test_clone_dirs(void **state)
{
	(void)state;
	for (int multi = 0; multi < 2; multi++) {
		rec_reset();
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		for (uint64_t i = 1; i <= 100; i++) {
			wl_add(&t, 1, RP_OP_STAT, "\\clients\\client1\\a", 0, i, 0, 0);
			if (multi)
				wl_add(&t, 2, RP_OP_STAT, "\\clients\\client1\\b", 0, i, 0, 0);
		}
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = "unused";
		o.backend_ops = &rec_ops;
	o.no_prepare = true; /* prepare would be one more client of the recording backend */
		o.clones = 3;
		rp_replay *const r = make(&t, &o);
		const rp_replay_results *const res = run(r);
		const int per = multi ? 2 : 1;
		assert_int_equal(res->clients, 3 * per);
		assert_int_equal(res->ops, 3 * per * 100);
		assert_int_equal(atomic_load(&rec.order_errors), 0);
		assert_int_equal(rec.n_dirs, 3 * per);
		qsort(rec.dirs, (size_t)rec.n_dirs, sizeof(rec.dirs[0]), cmp_dir);
		for (int k = 0; k < 3; k++)
			for (int j = 0; j < per; j++) {
				char want[16];
				snprintf(want, sizeof(want), "client%d", k + 1);
				assert_string_equal(rec.dirs[k * per + j], want);
			}
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* A fake clock that moves 100 us per reading, so looping and duration are deterministic enough. */
static _Atomic uint64_t fake_t = 1000000000ull;
static uint64_t step_now(void *ctx)
{
	(void)ctx;
	return atomic_fetch_add(&fake_t, 100000) + 100000;
}
static void step_sleep(void *ctx, uint64_t d)
{
	(void)ctx;
	uint64_t t = atomic_load(&fake_t);
	while (t < d && !atomic_compare_exchange_weak(&fake_t, &t, d))
		;
}

/* -t loops the trace until time is up; the warm-up is left out of the counts. */
static void test_loop_duration(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_OPEN, "\\f", 7, 0, 0, 0);
	for (int i = 0; i < 8; i++)
		wl_add(&t, 1, RP_OP_READ, NULL, 7, (uint64_t)i * 4096, 4096, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 7, 0, 0, 0);
	const rp_replay_clock clk = { step_now, step_sleep, NULL };
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "null";
	o.clock = &clk;
	o.duration_s = 1.0;
	o.warmup_s = 0.2;
	rp_replay *const r = make(&t, &o);
	const rp_replay_results *const res = run(r);
	assert_int_equal(res->stop, RP_STOP_TIME);
	assert_true(res->passes > 100);
	assert_true(res->warmup_ops > 0);
	/* Two clock readings per op at 100 us each: about 5,000 ops in the measured second. */
	assert_true(res->ops > 4000 && res->ops < 6000);
	assert_true(res->elapsed_s > 0.999 && res->elapsed_s < 1.001);
	assert_int_equal(res->op[RP_OP_READ].bytes, res->op[RP_OP_READ].count * 4096);
	const uint64_t opens = res->op[RP_OP_OPEN].count, reads = res->op[RP_OP_READ].count;
	assert_true(reads >= (opens - 1) * 8 && reads <= (opens + 1) * 8);
	assert_int_equal(res->unknown_handles, 0);
	assert_int_equal(res->mismatches, 0);
	/* The per-second series covers the warm-up and the measured second. */
	assert_true(res->n_series >= 1);
	uint64_t series_ops = 0;
	for (size_t i = 0; i < res->n_series; i++)
		series_ops += res->series[i].ops;
	assert_int_equal(series_ops, res->ops + res->warmup_ops);
	rp_replay_destroy(r);
	wl_fini(&t);
}

static wl *handle_workload(wl *t)
{
	wl_init(t, RP_SRC_LOADFILE_SMB);
	wl_add(t, 1, RP_OP_OPEN, "\\f", 5, 0, 0, 0);
	wl_add(t, 1, RP_OP_WRITE, NULL, 5, 0, 100, 0);
	wl_add(t, 1, RP_OP_WRITE, NULL, 5, 100, 100, 0);
	wl_add(t, 1, RP_OP_WRITE, NULL, 5, 200, 100, 0);
	wl_add(t, 1, RP_OP_CLOSE, NULL, 5, 0, 0, 0);
	wl_add(t, 1, RP_OP_STAT, "\\g", 0, 0, 0, ENOENT);
	wl_add(t, 1, RP_OP_STAT, "\\h", 0, 0, 0, RP_STATUS_OTHER);
	wl_add(t, 1, RP_OP_STAT, "\\i", 0, 0, 0, RP_STATUS_UNKNOWN);
	return t;
}

static const rp_replay_results *fault_run(rp_on_mismatch policy, const char *rules, rp_replay **rout, wl *t)
{
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "fault";
	o.backend_opts = rules;
	o.on_mismatch = policy;
	*rout = make(handle_workload(t), &o);
	return run(*rout);
}

/* warn: everything counted; ops on the handle whose open failed are unknown-handle failures. */
static void test_mismatch_warn(void **state)
{
	(void)state;
	wl t;
	rp_replay *r;
	const rp_replay_results *const res =
		fault_run(RP_MISMATCH_WARN, "fail=open@1:EACCES,fail=stat@1-2:ENOENT,fail=stat@3:EIO", &r, &t);
	assert_int_equal(res->stop, RP_STOP_END);
	assert_int_equal(res->op[RP_OP_OPEN].mismatches, 1);
	assert_int_equal(res->op[RP_OP_WRITE].unknown_handles, 3);
	assert_int_equal(res->op[RP_OP_WRITE].mismatches, 3);
	assert_int_equal(res->op[RP_OP_CLOSE].unknown_handles, 1);
	/* ENOENT expected and got: fine; OTHER expected, ENOENT got: fine; UNKNOWN: never checked. */
	assert_int_equal(res->op[RP_OP_STAT].mismatches, 0);
	assert_int_equal(res->op[RP_OP_STAT].failures, 3);
	assert_int_equal(res->mismatches, 5);
	/* The stat failures are the ones the trace recorded (or allowed): failed, not mismatched. */
	assert_int_equal(res->failures, 8);
	assert_int_equal(res->failures_expected, 3);
	assert_int_equal(res->op[RP_OP_STAT].failures_expected, 3);
	/* Grouped by (op, expected, got), each kind with its count and its first example, in trace client ids. */
	assert_int_equal(res->n_samples, 3);
	assert_int_equal(res->sample_others, 0);
	assert_int_equal(res->samples[0].op, RP_OP_OPEN);
	assert_int_equal(res->samples[0].expected, 0);
	assert_int_equal(res->samples[0].actual, EACCES);
	assert_int_equal(res->samples[0].count, 1);
	assert_int_equal(res->samples[0].client, 1);
	assert_int_equal(res->samples[0].copy, 0);
	assert_string_equal(res->samples[0].path, "f");
	assert_int_equal(res->samples[1].op, RP_OP_WRITE);
	assert_int_equal(res->samples[1].actual, EBADF);
	assert_int_equal(res->samples[1].count, 3);
	assert_int_equal(res->samples[1].index, 2);
	assert_int_equal(res->samples[1].handle, 5); /* no path: the handle names it */
	assert_string_equal(res->samples[1].path, "");
	assert_int_equal(res->samples[2].op, RP_OP_CLOSE);
	assert_int_equal(res->samples[2].count, 1);
	assert_int_equal(res->errnos[EACCES], 1);
	assert_int_equal(res->errnos[EBADF], 4);
	assert_int_equal(res->errnos[ENOENT], 2);
	assert_int_equal(res->errnos[EIO], 1);
	assert_int_equal(res->ops, 8);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* skip: the ops on the failed handle are skipped, not counted as failures. */
static void test_mismatch_skip(void **state)
{
	(void)state;
	wl t;
	rp_replay *r;
	const rp_replay_results *const res = fault_run(RP_MISMATCH_SKIP, "fail=open:EACCES", &r, &t);
	/* The open, stat \g (ENOENT expected, OK got) and stat \h (a failure expected, OK got). */
	assert_int_equal(res->mismatches, 3);
	assert_int_equal(res->skipped, 4);
	assert_int_equal(res->op[RP_OP_WRITE].skipped, 3);
	assert_int_equal(res->op[RP_OP_WRITE].count, 0);
	assert_int_equal(res->unknown_handles, 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* abort: the run stops at the first mismatch, cleanly, with its results. */
static void test_mismatch_abort(void **state)
{
	(void)state;
	wl t;
	rp_replay *r;
	const rp_replay_results *const res = fault_run(RP_MISMATCH_ABORT, "fail=write@2:ENOSPC", &r, &t);
	assert_int_equal(res->stop, RP_STOP_MISMATCH);
	assert_int_equal(res->op[RP_OP_WRITE].count, 2);
	assert_int_equal(res->op[RP_OP_WRITE].failures, 1);
	assert_int_equal(res->errnos[ENOSPC], 1);
	assert_int_equal(res->op[RP_OP_CLOSE].count, 0);
	assert_int_equal(res->op[RP_OP_WRITE].bytes, 100);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* The asynchronous request path (callback + poll) counts the same as the synchronous one. */
static void test_async_null(void **state)
{
	(void)state;
	for (int async = 0; async < 2; async++) {
		wl t;
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = "unused";
		o.backend = "null";
		o.backend_opts = async ? "async" : NULL;
		o.clones = 2;
		rp_replay *const r = make(handle_workload(&t), &o);
		const rp_replay_results *const res = run(r);
		assert_int_equal(res->ops, 16);
		assert_int_equal(res->op[RP_OP_WRITE].bytes, 600);
		assert_int_equal(res->unknown_handles, 0);
		assert_int_equal(res->op[RP_OP_STAT].mismatches, 4); /* per copy: g (ENOENT expected), h (OTHER) */
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* Handle 0 with EBADF recorded: null and fault answer EBADF; a version 1 backend never sees the op. */
static _Atomic int v1_submits;
static int v1_submit(void *b, void *cs, rp_breq *req)
{
	(void)b, (void)cs;
	atomic_fetch_add(&v1_submits, 1);
	req->status = 0;
	return 0;
}
static const rp_backend_ops v1_ops = {
	.version = 1, .name = "v1", .summary = "test", .client_size = sizeof(rec_client),
	.create = rec_create, .destroy = rec_destroy, .client_init = rec_client_init,
	.client_fini = rec_client_fini, .submit = v1_submit, .release = rec_release,
};

static void test_no_handle(void **state)
{
	(void)state;
	for (int b = 0; b < 4; b++) {
		rec_reset();
		atomic_store(&v1_submits, 0);
		wl t;
		wl_init(&t, RP_SRC_PCAP_SMB);
		wl_add(&t, 1, RP_OP_STAT, "/.Trash", 0, 0, 0, EBADF);
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 0, 0, 0, EBADF);
		wl_add(&t, 1, RP_OP_READ, NULL, 0, 0, 10, EBADF);
		wl_add(&t, 1, RP_OP_MKDIR, "/d", 0, 0, 0, 0); /* not a handle op: issued as usual */
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = "unused";
		o.no_prepare = true;
		if (b == 0)
			o.backend = "null";
		else if (b == 1)
			o.backend = "fault";
		else if (b == 2)
			o.backend_opts = "async", o.backend = "null";
		else
			o.backend_ops = &v1_ops;
		rp_replay *const r = make(&t, &o);
		const rp_replay_results *const res = run(r);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->errnos[EBADF], 3);
		assert_int_equal(res->op[RP_OP_READ].bytes, 0);
		if (b == 3)
			assert_int_equal(atomic_load(&v1_submits), 1);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* A loadfile workload (converted to .rpz in memory) gives each client exactly the ops the text reader gives. */
static void test_loadfile_workload(void **state)
{
	(void)state;
	char path[] = "/tmp/reprise-wl-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char text[] =
		"NTCreateX \"\\\\d\\\\f\" 0x40 0x5 1 NT_STATUS_OK\n"
		"LOOP 3\n"
		"WriteX 1 */4096%65536 4096 4096 NT_STATUS_OK\n"
		"ReadX 1 +4096 4096 4096 NT_STATUS_OK\n"
		"ENDLOOP\n"
		"QUERY_PATH_INFORMATION \"\\\\d\\\\none\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
		"Close 1 NT_STATUS_OK\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	char eb[RP_ERRBUF_SIZE];
	rp_workload *w;
	assert_int_equal(rp_workload_open_file(&w, path, false, eb), 0);
	assert_int_equal(rp_workload_meta(w)->source, RP_SRC_LOADFILE_SMB);
	rp_op_source *src;
	assert_int_equal(w->open(w, false, RP_LOADFILE_CLIENT, &src, eb), 0); /* a loadfile's one client */
	for (int pass = 0; pass < 2; pass++) {
		rp_reader *rd;
		assert_int_equal(rp_reader_open(&rd, path, &(rp_read_opts){ 0 }, eb), 0);
		size_t n_ops = 0;
		const rp_op *ops;
		int n;
		while ((n = src->next(src, &ops)) > 0) {
			for (int i = 0; i < n; i++, n_ops++) {
				rp_op want;
				assert_int_equal(rp_reader_next(rd, &want), 1);
				assert_memory_equal(&ops[i], &want, sizeof(want));
				uint32_t la, lb;
				if (want.path) {
					const char *const a = src->string(src, ops[i].path, &la);
					const char *const b = rp_reader_string(rd, want.path, &lb);
					assert_true(a && b && la == lb && memcmp(a, b, la) == 0);
				}
			}
		}
		assert_int_equal(n, 0);
		assert_int_equal(n_ops, 9);
		rp_op extra;
		assert_int_equal(rp_reader_next(rd, &extra), 0);
		rp_reader_close(rd);
		assert_int_equal(src->rewind(src), 0);
	}
	src->close(src);
	rp_workload_destroy(w);
	unlink(path);
}

/* Bad options are refused with a message before anything runs. */
static void test_bad_options(void **state)
{
	(void)state;
	static const struct {
		const char *target, *backend, *bopts;
		rp_timing timing;
		const char *want;
	} cases[] = {
		/* want NULL: what this build says (with libnfs, its check of the URL's options before connecting;
		 * with the smb backend, its refusal of credentials in a URL; without either, what it lacks). */
		{ "nfs://host/export?bogus=1", NULL, NULL, RP_TIMING_AFAP, NULL },
		{ "smb://user:pw@host/share", NULL, NULL, RP_TIMING_AFAP, NULL },
		{ "ftp://x", NULL, NULL, RP_TIMING_AFAP, "unknown URL scheme" },
		{ "/tmp", "nosuch", NULL, RP_TIMING_AFAP, "no backend 'nosuch'" },
		{ "/tmp", "null", "bogus", RP_TIMING_AFAP, "has no option 'bogus'" },
		{ "/tmp", "null", "async=1", RP_TIMING_AFAP, "takes no value" },
		{ "/tmp", "fault", "fail", RP_TIMING_AFAP, "needs a value" },
		{ "/tmp", "fault", "fail=frobnicate", RP_TIMING_AFAP, "unknown op" },
		{ "/tmp", "fault", "fail=write@0", RP_TIMING_AFAP, "counts start at 1" },
		{ "/tmp", "fault", "fail=write:ENOTANERROR", RP_TIMING_AFAP, "unknown error" },
		{ "/tmp", "null", NULL, RP_TIMING_TRACE, "no timestamps" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		wl_add(&t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = cases[i].target;
		o.backend = cases[i].backend;
		o.backend_opts = cases[i].bopts;
		o.timing = cases[i].timing;
		char eb[RP_ERRBUF_SIZE] = "";
		rp_replay *r = NULL;
		assert_true(rp_replay_create(&r, &o, wl_open(&t), eb) < 0);
		assert_null(r);
		const char *const want = cases[i].want ? cases[i].want
				       : strncmp(cases[i].target, "nfs:", 4) == 0
					       ? (rp_backend_find("nfs") ? "unknown option 'bogus'" : "built without the nfs backend")
				       : rp_backend_find("smb") ? "credentials do not go in the URL"
								: "built without the smb backend";
		if (!strstr(eb, want))
			fail_msg("case %zu: '%s' does not say '%s'", i, eb, want);
		wl_fini(&t);
	}
	rp_replay_destroy(NULL);
	rp_workload_destroy(NULL);
}

/* A trace of n clients, one stat each: create with clones copies; returns create's result and leaves eb. */
static int create_clients(uint32_t n, uint32_t clones, char *eb)
{
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	const uint32_t path = wl_str(&t, "\\a");
	for (uint32_t c = 0; c < n; c++) {
		rp_op op = { .client = c, .op = RP_OP_STAT, .path = path, .t_end = RP_TIME_UNKNOWN };
		assert_int_equal(t.ms.base.op(&t.ms.base, &op), 0);
	}
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/tmp";
	o.backend = "null";
	o.clones = clones;
	o.no_prepare = true;
	rp_replay *r = NULL;
	const int rc = rp_replay_create(&r, &o, wl_open(&t), eb);
	assert_true(rc < 0 ? r == NULL : r != NULL);
	rp_replay_destroy(r);
	wl_fini(&t);
	return rc;
}

/*
 * The client count is refused before anything is made, products included:
 * 65536 trace clients x 65536 copies wrapped to 0 in 32 bits (and overflowed
 * the client table at start); 2^19 x 8192 is exactly 2^32.
 */
static void test_client_count_bounded(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(create_clients(65536, 65536, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "at most 8192 clients"));
	assert_int_equal(create_clients(65536, 0, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "65536 trace clients x 1 copy: more than 8192 clients"));
	assert_int_equal(create_clients(1u << 19, 8192, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "524288 trace clients x 8192 copies"));
	assert_int_equal(create_clients(4097, 2, eb), RP_E_LIMIT);
	assert_int_equal(create_clients(4096, 2, eb), 0);
	assert_int_equal(create_clients(1, RP_REPLAY_CLIENTS_MAX, eb), 0);
	assert_int_equal(create_clients(1, RP_REPLAY_CLIENTS_MAX + 1, eb), RP_E_LIMIT);
}

/* An empty trace is an error, not a silent success. */
static void test_empty(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/tmp";
	o.backend = "null";
	char eb[RP_ERRBUF_SIZE];
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "no ops"));
	wl_fini(&t);
}

/* Stop from another thread (what SIGINT does) ends a long run promptly with results. */
static void test_stop(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/tmp";
	o.backend = "null";
	o.duration_s = 3600;
	o.warmup_s = 0;
	o.clones = 2;
	rp_replay *const r = make(&t, &o);
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_replay_start(r, eb), 0);
	/* Running with ops done before the stop: however long a loaded machine takes to start the threads. */
	rp_replay_progress p;
	for (int i = 0; i < 600; i++) {
		assert_int_equal(rp_replay_wait(r, 50), 0);
		rp_replay_progress_get(r, &p);
		if (p.running == 2 && p.ops > 0)
			break;
	}
	assert_int_equal(p.running, 2);
	assert_true(p.ops > 0);
	rp_replay_stop(r);
	assert_int_equal(rp_replay_wait(r, 5000), 1);
	assert_int_equal(rp_replay_finish(r, eb), 0);
	const rp_replay_results *const res = rp_replay_get_results(r);
	assert_int_equal(res->stop, RP_STOP_INTERRUPTED);
	assert_true(res->ops > 0);
	rp_replay_destroy(r);
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_multi_client),
		cmocka_unit_test(test_clone_dirs),
		cmocka_unit_test(test_loop_duration),
		cmocka_unit_test(test_mismatch_warn),
		cmocka_unit_test(test_mismatch_skip),
		cmocka_unit_test(test_mismatch_abort),
		cmocka_unit_test(test_async_null),
		cmocka_unit_test(test_no_handle),
		cmocka_unit_test(test_loadfile_workload),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_client_count_bounded),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
