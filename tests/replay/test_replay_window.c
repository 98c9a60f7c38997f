/*
 * The in-flight window (--max-inflight): the dependency rule, one test per
 * rule; the recorded depth sweep; runs on a backend that logs when each op ran
 * (no op runs before one it depends on has finished), the fault backend with a
 * delay in trace timing, and the asynchronous null backend.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "replay/client.h"
#include "replay/engine.h"

#define MS 1000000ull
#define US 1000ull

/* ---- The rule ---------------------------------------------------------------------------- */

typedef struct kspec {
	unsigned op;
	const char *name, *name2;
	uint64_t handle, off, len;
	uint64_t t_start, t_end;
	uint8_t disp; /* rp_disp */
} kspec;

static rp_wkey key(kspec s)
{
	rp_op op;
	memset(&op, 0, sizeof(op));
	op.op = (uint16_t)s.op;
	op.handle = s.handle;
	op.offset = s.off;
	op.length = s.len;
	op.t_start = s.t_start;
	op.t_end = s.t_end ? s.t_end : s.t_start + 10 * MS; /* by default every op overlaps the next */
	op.disp = s.disp;
	rp_wkey k;
	rp__win_key(&k, &op, s.name, s.name2);
	return k;
}

/* Does b (later, starting 1 us after a) depend on a? */
static bool dep(kspec a, kspec b)
{
	b.t_start = a.t_start + US;
	const rp_wkey ka = key(a), kb = key(b);
	return rp__win_depends(&ka, &kb);
}

/* Rule 1: an op that started after an earlier one ended (or whose end is unknown) waits for it. */
static void test_rule_recorded_order(void **state)
{
	(void)state;
	const kspec a = { .op = RP_OP_STAT, .name = "a", .t_start = 0, .t_end = 5 * MS };
	rp_wkey ka = key(a), kb = key((kspec){ .op = RP_OP_STAT, .name = "b", .t_start = 5 * MS });
	assert_true(rp__win_depends(&ka, &kb)); /* started as a ended */
	kb = key((kspec){ .op = RP_OP_STAT, .name = "b", .t_start = 4 * MS });
	assert_false(rp__win_depends(&ka, &kb)); /* overlapped, unrelated */
	rp_op op;
	memset(&op, 0, sizeof(op));
	op.op = RP_OP_STAT;
	op.t_start = 0;
	op.t_end = RP_TIME_UNKNOWN; /* no reply recorded: not known to overlap anything */
	rp__win_key(&ka, &op, "a", NULL);
	kb = key((kspec){ .op = RP_OP_STAT, .name = "b", .t_start = 1 });
	assert_true(rp__win_depends(&ka, &kb));
}

/* Rule 2a: an open before every op on its handle. */
static void test_rule_open_before_handle_ops(void **state)
{
	(void)state;
	const kspec open = { .op = RP_OP_OPEN, .name = "f", .handle = 7, .disp = RP_DISP_OPEN };
	assert_true(dep(open, (kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .len = 10 }));
	assert_true(dep(open, (kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 7, .len = 10 }));
	assert_true(dep(open, (kspec){ .op = RP_OP_STAT, .name = "f", .handle = 7 }));
	assert_true(dep(open, (kspec){ .op = RP_OP_CLOSE, .name = "f", .handle = 7 }));
	/* Another handle of another file does not wait. */
	assert_false(dep(open, (kspec){ .op = RP_OP_READ, .name = "g", .handle = 8, .len = 10 }));
	/* A plain open of the same name by another handle changes nothing: no wait. */
	assert_false(dep(open, (kspec){ .op = RP_OP_READ, .name = "f", .handle = 8, .len = 10 }));
}

/* Rule 2b: the ops on a handle before its close. */
static void test_rule_handle_ops_before_close(void **state)
{
	(void)state;
	const kspec close = { .op = RP_OP_CLOSE, .name = "f", .handle = 7 };
	assert_true(dep((kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 7, .len = 10 }, close));
	assert_true(dep((kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .len = 10 }, close));
	assert_true(dep((kspec){ .op = RP_OP_FLUSH, .name = "f", .handle = 7 }, close));
	/* A close may delete (delete on close): it keeps its order with the ops on its name too. */
	assert_true(dep((kspec){ .op = RP_OP_STAT, .name = "f" }, close));
	assert_true(dep(close, (kspec){ .op = RP_OP_OPEN, .name = "f", .handle = 9, .disp = RP_DISP_OPEN }));
	assert_false(dep((kspec){ .op = RP_OP_STAT, .name = "g" }, close));
}

/* Rule 3: ops that change a name keep their order with the ops on that name or beneath it, both ways. */
static void test_rule_names(void **state)
{
	(void)state;
	const kspec unlink = { .op = RP_OP_UNLINK, .name = "a/b" };
	assert_true(dep(unlink, (kspec){ .op = RP_OP_STAT, .name = "a/b" }));
	assert_true(dep(unlink, (kspec){ .op = RP_OP_STAT, .name = "a/b/c" }));   /* beneath */
	assert_true(dep(unlink, (kspec){ .op = RP_OP_READDIR, .name = "a" }));    /* the directory it is in */
	assert_true(dep(unlink, (kspec){ .op = RP_OP_READDIR, .name = "" }));     /* the client's directory */
	assert_false(dep(unlink, (kspec){ .op = RP_OP_STAT, .name = "a/bc" }));   /* a sibling sharing a prefix */
	assert_false(dep(unlink, (kspec){ .op = RP_OP_STAT, .name = "x" }));
	/* And the other way: earlier ops on a name before a later op that changes it. */
	assert_true(dep((kspec){ .op = RP_OP_STAT, .name = "a/b" }, unlink));
	assert_true(dep((kspec){ .op = RP_OP_READDIR, .name = "a" }, unlink));
	/* Two ops that change nothing may overlap on one name. */
	assert_false(dep((kspec){ .op = RP_OP_STAT, .name = "a" }, (kspec){ .op = RP_OP_READDIR, .name = "a" }));
	/* Every kind of change. */
	static const unsigned changes[] = { RP_OP_MKDIR, RP_OP_RMDIR,	RP_OP_SETATTR, RP_OP_SETXATTR, RP_OP_REMOVEXATTR,
					    RP_OP_DELTREE, RP_OP_MKNOD, RP_OP_CLOSE };
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		assert_true(dep((kspec){ .op = changes[i], .name = "d" }, (kspec){ .op = RP_OP_STAT, .name = "d/x" }));
		assert_false(dep((kspec){ .op = changes[i], .name = "d" }, (kspec){ .op = RP_OP_STAT, .name = "e" }));
	}
	/* rename, link and symlink: both names. */
	static const unsigned two[] = { RP_OP_RENAME, RP_OP_LINK, RP_OP_SYMLINK };
	for (size_t i = 0; i < 3; i++) {
		const kspec mv = { .op = two[i], .name = "old", .name2 = "new" };
		assert_true(dep(mv, (kspec){ .op = RP_OP_STAT, .name = "old" }));
		assert_true(dep(mv, (kspec){ .op = RP_OP_STAT, .name = "new" }));
		assert_true(dep((kspec){ .op = RP_OP_STAT, .name = "new/x" }, mv));
		assert_false(dep(mv, (kspec){ .op = RP_OP_STAT, .name = "other" }));
	}
	/* An open that may create or truncate changes its name; a plain open does not. */
	const kspec create = { .op = RP_OP_OPEN, .name = "f", .handle = 1, .disp = RP_DISP_OPEN_IF };
	const kspec plain = { .op = RP_OP_OPEN, .name = "f", .handle = 1, .disp = RP_DISP_OPEN };
	assert_true(dep(create, (kspec){ .op = RP_OP_STAT, .name = "f" }));
	assert_true(dep((kspec){ .op = RP_OP_STAT, .name = "f" }, create));
	assert_false(dep(plain, (kspec){ .op = RP_OP_STAT, .name = "f" }));
	/* An op on a handle goes by the name its open had: a write before the unlink of that name. */
	assert_true(dep((kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 3, .len = 1 },
			(kspec){ .op = RP_OP_UNLINK, .name = "f" }));
	/* A setattr by handle (delete pending, size) before a later stat of its name. */
	assert_true(dep((kspec){ .op = RP_OP_SETATTR, .name = "f", .handle = 3 }, (kspec){ .op = RP_OP_STAT, .name = "f" }));
	/* No names (an op without a handle, statfs): nothing to keep in order with. */
	assert_false(dep((kspec){ .op = RP_OP_UNLINK, .name = "f" }, (kspec){ .op = RP_OP_STATFS }));
}

/* Rule 4: reads and writes on one handle overlap unless their bytes do and one of them writes. */
static void test_rule_io_ranges(void **state)
{
	(void)state;
	const kspec w0 = { .op = RP_OP_WRITE, .name = "f", .handle = 7, .off = 0, .len = 100 };
	assert_false(dep(w0, (kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 7, .off = 100, .len = 100 }));
	assert_false(dep(w0, (kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .off = 200, .len = 100 }));
	assert_true(dep(w0, (kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 7, .off = 99, .len = 2 }));
	assert_true(dep(w0, (kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .off = 50, .len = 100 }));
	assert_true(dep((kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .off = 50, .len = 100 }, w0));
	/* Reads never conflict with reads. */
	assert_false(dep((kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .off = 0, .len = 100 },
			 (kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .off = 0, .len = 100 }));
	/* An empty range overlaps nothing; the end does not wrap. */
	assert_false(dep(w0, (kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 7, .off = 50, .len = 0 }));
	assert_true(dep((kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 7, .off = UINT64_MAX - 1, .len = 10 },
			(kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .off = UINT64_MAX - 1, .len = 1 }));
	/* Writes through two handles of one file: the recording overlapped them, so may the replay. */
	assert_false(dep(w0, (kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 8, .off = 0, .len = 100 }));
}

/* Rule 5: locks keep their order with every op on their handle. */
static void test_rule_locks(void **state)
{
	(void)state;
	const kspec lock = { .op = RP_OP_LOCK, .name = "f", .handle = 7, .off = 0, .len = 10 };
	const kspec unlock = { .op = RP_OP_UNLOCK, .name = "f", .handle = 7, .off = 0, .len = 10 };
	assert_true(dep(lock, (kspec){ .op = RP_OP_READ, .name = "f", .handle = 7, .off = 500, .len = 10 }));
	assert_true(dep((kspec){ .op = RP_OP_WRITE, .name = "f", .handle = 7, .off = 500, .len = 10 }, unlock));
	assert_true(dep(lock, unlock));
	/* A lock on another handle is another open's business (the backend answers a conflict). */
	assert_false(dep(lock, (kspec){ .op = RP_OP_READ, .name = "f", .handle = 8, .off = 0, .len = 10 }));
}

/* The recorded depth (the plan's, formats/plan.h): at each start, how many recorded intervals cover it. */
static void test_recorded_depth(void **state)
{
	(void)state;
	/* [0,10) [1,3) [2,20) [3,4) [10,11) [25,?), then 100 at once: the heap grows */
	static const uint64_t iv[][2] = { { 0, 10 }, { 1, 3 }, { 2, 20 }, { 3, 4 }, { 10, 11 }, { 25, RP_TIME_UNKNOWN } };
	rp_op ops[106];
	memset(ops, 0, sizeof(ops));
	for (int i = 0; i < 106; i++) {
		ops[i].op = RP_OP_STAT;
		ops[i].client = 3;
		ops[i].t_start = i < 6 ? iv[i][0] : 100 + (uint64_t)(i - 6);
		ops[i].t_end = i < 6 ? iv[i][1] : 1000;
	}
	char eb[RP_ERRBUF_SIZE];
	rp_plan p;
	const rp_plan_opts po = { .items = false };
	assert_int_equal(rp_plan_ops(&p, ops, 6, NULL, NULL, &po, eb), 0);
	assert_int_equal(p.n_clients, 1);
	assert_int_equal(p.depth[0].max, 3);
	assert_int_equal(p.depth[0].ops, 6);
	assert_int_equal(p.depth[0].sum, 1 + 2 + 3 + 3 + 2 + 1); /* 1, 2, 3, [1,3) ended: 3, two ended: 2, 1 */
	rp_plan_free(&p);
	assert_int_equal(rp_plan_ops(&p, ops, 106, NULL, NULL, &po, eb), 0);
	assert_int_equal(p.depth[0].max, 100);
	rp_plan_free(&p);
}

/* ---- Runs -------------------------------------------------------------------------------- */

static rp_replay *make(rp_workload *w, const rp_replay_opts *o)
{
	char eb[RP_ERRBUF_SIZE];
	rp_replay *r = NULL;
	const int rc = rp_replay_create(&r, o, w, eb);
	if (rc < 0)
		print_error("create: %s\n", eb);
	assert_int_equal(rc, 0);
	return r;
}

static const rp_replay_results *run(rp_replay *r)
{
	char eb[RP_ERRBUF_SIZE];
	const int rc = rp_replay_run(r, eb);
	if (rc < 0)
		print_error("run: %s\n", eb);
	assert_int_equal(rc, 0);
	return rp_replay_get_results(r);
}

/* A backend that sleeps in each op and logs when it ran, by the op's recorded start (its number). */
enum { LOG_MAX = 64 };
static struct {
	pthread_mutex_t mu;
	uint64_t start[LOG_MAX], end[LOG_MAX];
	unsigned running, max_running, inits;
} blog = { .mu = PTHREAD_MUTEX_INITIALIZER };

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int log_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)a, (void)eb;
	*b = &blog;
	return 0;
}
static void log_destroy(void *b)
{
	(void)b;
}
static int log_init(void *b, void *c, const char *dir, char *eb)
{
	(void)b, (void)dir, (void)eb;
	*(uint64_t *)c = 1;
	pthread_mutex_lock(&blog.mu);
	blog.inits++;
	pthread_mutex_unlock(&blog.mu);
	return 0;
}
static void log_fini(void *b, void *c)
{
	(void)b, (void)c;
}
static int log_submit(void *b, void *c, rp_breq *req)
{
	(void)b;
	const unsigned i = (unsigned)(req->op->t_start / (10 * US));
	pthread_mutex_lock(&blog.mu);
	blog.start[i] = mono();
	if (++blog.running > blog.max_running)
		blog.max_running = blog.running;
	pthread_mutex_unlock(&blog.mu);
	const struct timespec ts = { 0, 3000000 }; /* 3 ms */
	nanosleep(&ts, NULL);
	req->status = 0;
	req->result = req->op->op == RP_OP_READ || req->op->op == RP_OP_WRITE ? req->op->length : 0;
	if (req->op->op == RP_OP_OPEN)
		req->bh = (*(uint64_t *)c)++ | (uint64_t)i << 32; /* unique across the workers' states */
	pthread_mutex_lock(&blog.mu);
	blog.running--;
	blog.end[i] = mono();
	pthread_mutex_unlock(&blog.mu);
	return 0;
}
static void log_release(void *b, void *c, uint64_t bh)
{
	(void)b, (void)c, (void)bh;
}
static const rp_backend_ops log_ops = {
	.version = RP_BACKEND_VERSION,
	.name = "log",
	.summary = "test",
	.caps = RP_BCAP_CONFINED,
	.client_size = sizeof(uint64_t),
	.create = log_create,
	.destroy = log_destroy,
	.client_init = log_init,
	.client_fini = log_fini,
	.submit = log_submit,
	.release = log_release,
};

/*
 * Every op of the trace overlaps every other in the recording, so only the
 * rule keeps order: no op may start before one it depends on ended, and the
 * independent writes do run together.
 */
static void test_run_keeps_dependencies(void **state)
{
	(void)state;
	static const kspec trace[] = {
		{ .op = RP_OP_MKDIR, .name = "d" },
		{ .op = RP_OP_OPEN, .name = "d/f", .handle = 5, .disp = RP_DISP_CREATE },
		{ .op = RP_OP_WRITE, .name = "d/f", .handle = 5, .off = 0, .len = 4096 },
		{ .op = RP_OP_WRITE, .name = "d/f", .handle = 5, .off = 4096, .len = 4096 },
		{ .op = RP_OP_WRITE, .name = "d/f", .handle = 5, .off = 8192, .len = 4096 },
		{ .op = RP_OP_WRITE, .name = "d/f", .handle = 5, .off = 12288, .len = 4096 },
		{ .op = RP_OP_READ, .name = "d/f", .handle = 5, .off = 4000, .len = 200 },
		{ .op = RP_OP_STAT, .name = "elsewhere" },
		{ .op = RP_OP_STAT, .name = "elsewhere/too" },
		{ .op = RP_OP_LOCK, .name = "d/f", .handle = 5, .off = 0, .len = 1 },
		{ .op = RP_OP_READ, .name = "d/f", .handle = 5, .off = 0, .len = 100 },
		{ .op = RP_OP_CLOSE, .name = "d/f", .handle = 5 },
		{ .op = RP_OP_RENAME, .name = "d/f", .name2 = "d/g" },
		{ .op = RP_OP_STAT, .name = "d/g" },
		{ .op = RP_OP_UNLINK, .name = "d/g" },
		{ .op = RP_OP_RMDIR, .name = "d" },
	};
	enum { N = sizeof(trace) / sizeof(trace[0]) };
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	t.meta.flags = RP_META_TIMED;
	for (unsigned i = 0; i < N; i++) {
		const kspec *const s = &trace[i];
		/* Handle ops name no path in a capture: their names come from the open. */
		const bool by_handle = s->handle && s->op != RP_OP_OPEN;
		rp_op *const op = wl_add(&t, 1, s->op, by_handle ? NULL : s->name, s->handle, s->off, s->len, 0);
		op->path2 = wl_str(&t, s->name2);
		op->disp = s->disp;
		op->t_start = 10 * US * i;
		op->t_end = op->t_start + 100 * MS;
	}
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend_ops = &log_ops;
	o.no_prepare = true;
	o.max_inflight = 8;
	memset(blog.start, 0, sizeof(blog.start));
	blog.max_running = blog.inits = 0;
	rp_replay *const r = make(wl_open(&t), &o);
	const rp_replay_results *const res = run(r);
	assert_int_equal(res->ops, N);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(blog.inits, 8); /* the client and its 7 workers, each a state of its own */
	for (unsigned j = 0; j < N; j++) {
		assert_true(blog.start[j] != 0);
		for (unsigned i = 0; i < j; i++) {
			kspec a = trace[i], b = trace[j];
			a.t_start = 10 * US * i, a.t_end = a.t_start + 100 * MS;
			b.t_start = 10 * US * j, b.t_end = b.t_start + 100 * MS;
			const rp_wkey ka = key(a), kb = key(b);
			if (rp__win_depends(&ka, &kb) && blog.start[j] < blog.end[i])
				fail_msg("op %u started before op %u, which it depends on, had ended", j, i);
		}
	}
	/* The four writes (and the stats) are free to run together; at 3 ms each some did. */
	assert_true(blog.max_running >= 2);
	assert_true(res->depth.max >= 2);
	assert_int_equal(res->depth.rec_max, N); /* every op overlaps every other in the recording */
	assert_int_equal(res->max_inflight, 8);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/*
 * Bursts of 16 reads recorded within 3 ms, 2 ms each, on the fault backend
 * with delay=2ms in trace timing: the replay has them in flight together.
 */
static wl *bursts(wl *t, unsigned clients, unsigned n_bursts)
{
	wl_init(t, RP_SRC_PCAP_SMB);
	t->meta.flags = RP_META_TIMED;
	for (unsigned c = 1; c <= clients; c++) {
		rp_op *op = wl_add(t, c, RP_OP_OPEN, "f", 1, 0, 0, 0);
		op->disp = RP_DISP_OPEN;
		op->t_start = 0, op->t_end = 100 * US;
		for (unsigned b = 0; b < n_bursts; b++)
			for (unsigned i = 0; i < 16; i++) {
				op = wl_add(t, c, RP_OP_READ, NULL, 1, 4096ull * i, 4096, 0);
				op->t_start = MS + 4 * MS * b + 100 * US * i;
				op->t_end = op->t_start + 2 * MS;
			}
		op = wl_add(t, c, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		op->t_start = op->t_end = 4 * MS * (n_bursts + 1);
	}
	return t;
}

static void test_fault_delay_trace_timing(void **state)
{
	(void)state;
	for (int window = 0; window < 2; window++) {
		wl t;
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = "unused";
		o.backend = "fault";
		o.backend_opts = "delay=2ms,fail=read@20:EIO";
		o.timing = RP_TIMING_TRACE;
		o.no_prepare = true;
		o.max_inflight = window ? 16 : 1;
		rp_replay *const r = make(wl_open(bursts(&t, 2, 5)), &o);
		const rp_replay_results *const res = run(r);
		assert_int_equal(res->stop, RP_STOP_END);
		assert_int_equal(res->ops, 2 * (2 + 16 * 5));
		/* Counted per client, whichever thread ran it: one 20th read each. */
		assert_int_equal(res->op[RP_OP_READ].failures, 2);
		assert_int_equal(res->depth.rec_max, 16);
		assert_int_equal(res->n_client_depth, 2);
		assert_int_equal(res->client_depth[1].rec_max, 16);
		if (window) {
			/* A 2 ms op is still running 100 us later, when the next is due. */
			assert_true(res->depth.max >= 2);
			assert_true(res->depth.max <= 16);
			assert_true(res->depth.mean > 1);
		} else {
			assert_int_equal(res->depth.max, 1);
			assert_true(res->depth.mean == 1.0);
		}
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* The asynchronous path: null with async completes only from poll, so a burst is all in flight at once. */
static void test_async_window(void **state)
{
	(void)state;
	wl t;
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "null";
	o.backend_opts = "async";
	o.no_prepare = true;
	o.max_inflight = 16;
	rp_replay *const r = make(wl_open(bursts(&t, 1, 3)), &o);
	const rp_replay_results *const res = run(r);
	assert_int_equal(res->ops, 2 + 16 * 3);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->depth.max, 16);
	assert_int_equal(res->depth.rec_max, 16);
	rp_replay_destroy(r);
	wl_fini(&t);

	/* A window smaller than the burst: never more than it. */
	o.max_inflight = 4;
	rp_replay *const r2 = make(wl_open(bursts(&t, 1, 3)), &o);
	const rp_replay_results *const res2 = run(r2);
	assert_int_equal(res2->ops, 2 + 16 * 3);
	assert_int_equal(res2->depth.max, 4);
	rp_replay_destroy(r2);
	wl_fini(&t);
}

/* Ops the recording did not overlap run one at a time whatever the window. */
static void test_no_overlap_no_window(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	t.meta.flags = RP_META_TIMED;
	for (unsigned i = 0; i < 20; i++) {
		rp_op *const op = wl_add(&t, 1, RP_OP_STAT, i % 2 ? "a" : "b", 0, 0, 0, 0);
		op->t_start = MS * i;
		op->t_end = op->t_start + MS / 2;
	}
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "null";
	o.backend_opts = "async";
	o.no_prepare = true;
	o.max_inflight = 16;
	rp_replay *const r = make(wl_open(&t), &o);
	const rp_replay_results *const res = run(r);
	assert_int_equal(res->ops, 20);
	assert_int_equal(res->depth.max, 1);
	assert_int_equal(res->depth.rec_max, 1);
	rp_replay_destroy(r);
	wl_fini(&t);
}

static void test_bad_max_inflight(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	wl_add(&t, 1, RP_OP_STAT, "a", 0, 0, 0, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "unused";
	o.backend = "null";
	o.max_inflight = RP_REPLAY_MAX_INFLIGHT + 1;
	char eb[RP_ERRBUF_SIZE];
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), RP_E_RANGE);
	assert_non_null(strstr(eb, "max-inflight"));
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_recorded_order),
		cmocka_unit_test(test_rule_open_before_handle_ops),
		cmocka_unit_test(test_rule_handle_ops_before_close),
		cmocka_unit_test(test_rule_names),
		cmocka_unit_test(test_rule_io_ranges),
		cmocka_unit_test(test_rule_locks),
		cmocka_unit_test(test_recorded_depth),
		cmocka_unit_test(test_run_keeps_dependencies),
		cmocka_unit_test(test_fault_delay_trace_timing),
		cmocka_unit_test(test_async_window),
		cmocka_unit_test(test_no_overlap_no_window),
		cmocka_unit_test(test_bad_max_inflight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
