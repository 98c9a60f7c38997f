/* converters/filter.c and merge.c: list parsers, each filter, handle consistency, time scaling, merging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "converters/filter.h"
#include "converters/merge.h"

/* ---- a tiny trace builder ---- */

typedef struct tb {
	rp_sink *s;
	rp_strtab *tab;
	uint64_t t;
} tb;

static void tb_begin(tb *b, rp_sink *s)
{
	b->s = s;
	b->tab = rp_strtab_create();
	b->t = 0;
	const rp_trace_meta m = { .source = RP_SRC_SYNTHETIC, .flags = RP_META_TIMED };
	assert_int_equal(s->meta(s, &m), 0);
}

static uint32_t tb_str(tb *b, const char *p)
{
	if (!p)
		return 0;
	const int64_t id = rp_sink_intern(b->s, b->tab, p, (uint32_t)strlen(p));
	assert_true(id > 0);
	return (uint32_t)id;
}

/* An op 1 ms after the previous one. */
static int tb_op(tb *b, uint32_t client, rp_opcode op, const char *path, uint64_t handle)
{
	b->t += 1000000;
	const rp_op o = { .t_start = b->t, .t_end = b->t + 500, .client = client, .op = (uint16_t)op,
			  .path = tb_str(b, path), .handle = handle, .length = op == RP_OP_READ ? 4096 : 0 };
	return b->s->op(b->s, &o);
}

static void tb_end(tb *b)
{
	assert_int_equal(b->s->finish(b->s), 0);
	rp_strtab_destroy(b->tab);
}

/* The kept ops as "c1 open a/b" lines. */
static void dump(const rp_memsink *m, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < m->n_ops && used < cap; i++) {
		const rp_op *const o = &m->ops[i];
		uint32_t len = 0;
		const char *const p = o->path ? rp_memsink_string((void *)m, o->path, &len) : "-";
		const int k = snprintf(out + used, cap - used, "c%u %s %s h%llu\n", o->client, rp_op_name(o->op), p,
				       (unsigned long long)o->handle);
		used += k > 0 ? (size_t)k : 0;
	}
}

/* The standard trace: client 1 works in /a/b, client 2 in /a/bc; handles opened early. */
static void feed_std(rp_sink *s)
{
	tb b;
	tb_begin(&b, s);
	assert_int_equal(tb_op(&b, 1, RP_OP_OPEN, "/a/b/x", 10), 0);     /* 1 ms */
	assert_int_equal(tb_op(&b, 2, RP_OP_OPEN, "/a/bc/y", 20), 0);    /* 2 ms */
	assert_int_equal(tb_op(&b, 1, RP_OP_READ, NULL, 10), 0);         /* 3 ms */
	assert_int_equal(tb_op(&b, 2, RP_OP_READ, NULL, 20), 0);         /* 4 ms */
	assert_int_equal(tb_op(&b, 1, RP_OP_OPEN, "/a/b", 11), 0);       /* 5 ms */
	assert_int_equal(tb_op(&b, 1, RP_OP_READ, NULL, 10), 0);         /* 6 ms */
	assert_int_equal(tb_op(&b, 1, RP_OP_CLOSE, NULL, 10), 0);        /* 7 ms */
	assert_int_equal(tb_op(&b, 2, RP_OP_CLOSE, NULL, 20), 0);        /* 8 ms */
	assert_int_equal(tb_op(&b, 3, RP_OP_MKDIR, "/a/b/z", 0), 0);     /* 9 ms */
	assert_int_equal(tb_op(&b, 1, RP_OP_CLOSE, NULL, 11), 0);        /* 10 ms */
	tb_end(&b);
}

static void run_filter(const rp_filter_opts *fo, rp_memsink *m, rp_filter_stats *st)
{
	assert_int_equal(rp_memsink_init(m), 0);
	rp_filter *f = NULL;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_filter_create(&f, fo, &m->base, eb), 0);
	feed_std(rp_filter_sink(f));
	*st = *rp_filter_get_stats(f);
	rp_filter_destroy(f);
}

/* ---- list parsers ---- */

static void test_parse_clients(void **state)
{
	(void)state;
	rp_filter_range r[4];
	size_t n = 0;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_filter_parse_clients("1,3-5,4294967295", r, 4, &n, eb), 0);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].lo, 1);
	assert_int_equal(r[0].hi, 1);
	assert_int_equal(r[1].lo, 3);
	assert_int_equal(r[1].hi, 5);
	assert_int_equal(r[2].lo, UINT32_MAX);
	static const char *const bad[] = { "", ",", "1,", "a", "-1", "1-", "5-3", "4294967296", "1 2", "1--2", "+1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		eb[0] = '\0';
		assert_int_not_equal(rp_filter_parse_clients(bad[i], r, 4, &n, eb), 0);
		assert_non_null(strstr(eb, "--clients"));
	}
	assert_int_equal(rp_filter_parse_clients("1,2,3,4,5", r, 4, &n, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "more than 4 ranges"));
}

static void test_parse_ops(void **state)
{
	(void)state;
	uint64_t mask = 0;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_filter_parse_ops("read,write,open,close", &mask, eb), 0);
	assert_int_equal(mask, (1ull << RP_OP_READ) | (1ull << RP_OP_WRITE) | (1ull << RP_OP_OPEN) | (1ull << RP_OP_CLOSE));
	assert_int_equal(rp_filter_parse_ops("reed", &mask, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "unknown op \"reed\""));
	assert_non_null(strstr(eb, "open,close,read,write")); /* the valid names listed */
	assert_int_equal(rp_filter_parse_ops("read,,write", &mask, eb), RP_E_INVAL);
	assert_int_equal(rp_filter_parse_ops("", &mask, eb), RP_E_INVAL);
}

/* ---- filters ---- */

static void test_clients_and_ops(void **state)
{
	(void)state;
	const rp_filter_range r[] = { { 2, 3 } };
	rp_filter_opts fo = { .clients = r, .n_clients = 1 };
	rp_memsink m;
	rp_filter_stats st;
	char txt[2048];
	run_filter(&fo, &m, &st);
	dump(&m, txt, sizeof(txt));
	assert_string_equal(txt, "c2 open /a/bc/y h20\nc2 read - h20\nc2 close - h20\nc3 mkdir /a/b/z h0\n");
	assert_int_equal(st.kept, 4);
	assert_int_equal(st.dropped[RP_FILTER_CLIENT], 6);
	assert_int_equal(st.clients, 2);
	assert_int_equal(st.strings, 2); /* only the kept ops' strings reach the output */
	rp_memsink_fini(&m);

	/*
	 * --ops read: the reads keep the opens and closes of their handles (held
	 * until a read used them, the output in start order); the open no read
	 * used (h11) goes with its close.
	 */
	fo = (rp_filter_opts){ .ops = 1ull << RP_OP_READ | 1ull << RP_OP_MKDIR };
	run_filter(&fo, &m, &st);
	dump(&m, txt, sizeof(txt));
	assert_string_equal(txt, "c1 open /a/b/x h10\nc2 open /a/bc/y h20\nc1 read - h10\nc2 read - h20\nc1 read - h10\n"
				 "c1 close - h10\nc2 close - h20\nc3 mkdir /a/b/z h0\n");
	assert_int_equal(st.kept, 8);
	assert_int_equal(st.needed_opens, 2);
	assert_int_equal(st.needed_closes, 2);
	assert_int_equal(st.dropped[RP_FILTER_OP], 2);     /* h11's open and close */
	assert_int_equal(st.dropped[RP_FILTER_HANDLE], 0);
	rp_memsink_fini(&m);

	/* --ops read with --clients 2: client 1's opens are not held (dropped for the client), its reads go */
	const rp_filter_range c2[] = { { 2, 2 } };
	fo = (rp_filter_opts){ .ops = 1ull << RP_OP_READ, .clients = c2, .n_clients = 1 };
	run_filter(&fo, &m, &st);
	dump(&m, txt, sizeof(txt));
	assert_string_equal(txt, "c2 open /a/bc/y h20\nc2 read - h20\nc2 close - h20\n");
	rp_memsink_fini(&m);
}

/*
 * --ops read: an open held at the head of the queue (h1, never read) while
 * 70,000 reads of another handle wait behind it: past the queue's bound
 * (65,536) it is kept, used or not, and the output stays in start order.
 */
static void test_held_open_bounded(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_filter *f = NULL;
	char eb[RP_ERRBUF_SIZE];
	const rp_filter_opts fo = { .ops = 1ull << RP_OP_READ };
	assert_int_equal(rp_filter_create(&f, &fo, &m.base, eb), 0);
	tb b;
	tb_begin(&b, rp_filter_sink(f));
	assert_int_equal(tb_op(&b, 1, RP_OP_OPEN, "/a", 1), 0);
	assert_int_equal(tb_op(&b, 1, RP_OP_OPEN, "/b", 2), 0);
	for (int i = 0; i < 70000; i++)
		assert_int_equal(tb_op(&b, 1, RP_OP_READ, NULL, 2), 0);
	assert_int_equal(tb_op(&b, 1, RP_OP_CLOSE, NULL, 2), 0);
	assert_int_equal(tb_op(&b, 1, RP_OP_CLOSE, NULL, 1), 0);
	tb_end(&b);
	const rp_filter_stats st = *rp_filter_get_stats(f);
	rp_filter_destroy(f);
	assert_int_equal(st.kept, 70004);
	assert_int_equal(st.needed_opens, 2);
	assert_int_equal(st.needed_closes, 2);
	assert_int_equal(m.n_ops, 70004);
	for (size_t i = 1; i < m.n_ops; i++)
		assert_true(m.ops[i].t_start > m.ops[i - 1].t_start);
	assert_int_equal(m.ops[0].handle, 1);
	assert_int_equal(m.ops[m.n_ops - 1].op, RP_OP_CLOSE);
	rp_memsink_fini(&m);
}

static void test_path_prefix_componentwise(void **state)
{
	(void)state;
	const rp_filter_opts fo = { .prefix = "/a/b/" };
	rp_memsink m;
	rp_filter_stats st;
	char txt[2048];
	run_filter(&fo, &m, &st);
	dump(&m, txt, sizeof(txt));
	/* /a/bc is not under /a/b; the ops on handle 10 and 11 follow their opens */
	assert_string_equal(txt, "c1 open /a/b/x h10\nc1 read - h10\nc1 open /a/b h11\nc1 read - h10\nc1 close - h10\n"
				 "c3 mkdir /a/b/z h0\nc1 close - h11\n");
	assert_int_equal(st.dropped[RP_FILTER_PATH], 1);
	assert_int_equal(st.dropped[RP_FILTER_HANDLE], 2);
	rp_memsink_fini(&m);
}

static void test_window_keeps_handles_consistent(void **state)
{
	(void)state;
	/* From 2.5 ms to 9.5 ms: handle 10 and 20 were opened before, 11 inside */
	const rp_filter_opts fo = { .window = true, .from_ns = 2500000, .to_ns = 9500000 };
	rp_memsink m;
	rp_filter_stats st;
	char txt[2048];
	run_filter(&fo, &m, &st);
	dump(&m, txt, sizeof(txt));
	assert_string_equal(txt, "c1 open /a/b h11\nc3 mkdir /a/b/z h0\n");
	assert_int_equal(st.dropped[RP_FILTER_TIME], 3);
	assert_int_equal(st.dropped[RP_FILTER_HANDLE], 5);
	assert_int_equal(st.t_first, 5000000);
	assert_int_equal(st.t_last, 9000500);
	rp_memsink_fini(&m);
}

static void test_handle_reuse_after_close(void **state)
{
	(void)state;
	/* fd 3 opened outside the prefix, closed, then opened again inside it: the second one's ops stay */
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_filter *f = NULL;
	char eb[RP_ERRBUF_SIZE];
	const rp_filter_opts fo = { .prefix = "in" };
	assert_int_equal(rp_filter_create(&f, &fo, &m.base, eb), 0);
	tb b;
	tb_begin(&b, rp_filter_sink(f));
	assert_int_equal(tb_op(&b, 0, RP_OP_OPEN, "out/f", 3), 0);
	assert_int_equal(tb_op(&b, 0, RP_OP_READ, NULL, 3), 0);
	assert_int_equal(tb_op(&b, 0, RP_OP_CLOSE, NULL, 3), 0);
	assert_int_equal(tb_op(&b, 0, RP_OP_OPEN, "in/f", 3), 0);
	assert_int_equal(tb_op(&b, 0, RP_OP_READ, NULL, 3), 0);
	assert_int_equal(tb_op(&b, 0, RP_OP_CLOSE, NULL, 3), 0);
	/* open/close churn on a few reused handles: closed entries never hide or lose live ones */
	for (uint64_t h = 0; h < 100000; h++) {
		assert_int_equal(tb_op(&b, 0, RP_OP_OPEN, "in/g", 1000 + h % 7), 0);
		assert_int_equal(tb_op(&b, 0, RP_OP_CLOSE, NULL, 1000 + h % 7), 0);
	}
	tb_end(&b);
	char txt[256];
	m.n_ops = 3; /* look at the first three kept ops */
	dump(&m, txt, sizeof(txt));
	assert_string_equal(txt, "c0 open in/f h3\nc0 read - h3\nc0 close - h3\n");
	assert_int_equal(rp_filter_get_stats(f)->kept, 3 + 200000);
	rp_filter_destroy(f);
	rp_memsink_fini(&m);
}

/* An op that names its path besides a dropped handle stays: replay issues it by path */
static void test_path_beside_handle(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_filter *f = NULL;
	char eb[RP_ERRBUF_SIZE];
	const rp_filter_opts fo = { .window = true, .from_ns = 1500000, .to_ns = UINT64_MAX };
	assert_int_equal(rp_filter_create(&f, &fo, &m.base, eb), 0);
	tb b;
	tb_begin(&b, rp_filter_sink(f));
	assert_int_equal(tb_op(&b, 0, RP_OP_OPEN, "d", 1), 0);  /* before the window */
	assert_int_equal(tb_op(&b, 0, RP_OP_STATFS, "d", 1), 0); /* path and handle: kept */
	assert_int_equal(tb_op(&b, 0, RP_OP_READDIR, NULL, 1), 0); /* the handle alone: dropped */
	assert_int_equal(tb_op(&b, 0, RP_OP_STAT, "e", 7), 0);  /* a handle never opened (NFSv3): kept */
	tb_end(&b);
	char txt[256];
	dump(&m, txt, sizeof(txt));
	assert_string_equal(txt, "c0 statfs d h1\nc0 stat e h7\n");
	assert_int_equal(rp_filter_get_stats(f)->dropped[RP_FILTER_HANDLE], 1);
	rp_filter_destroy(f);
	rp_memsink_fini(&m);
}

static void test_time_scale(void **state)
{
	(void)state;
	const rp_filter_opts fo = { .scale = 0.5 };
	rp_memsink m;
	rp_filter_stats st;
	run_filter(&fo, &m, &st);
	assert_int_equal(m.n_ops, 10);
	assert_int_equal(m.ops[0].t_start, 500000);
	assert_int_equal(m.ops[0].t_end, 500250);
	assert_int_equal(m.ops[9].t_start, 5000000);
	rp_memsink_fini(&m);

	char eb[RP_ERRBUF_SIZE];
	rp_filter *f = NULL;
	const rp_filter_opts bad[] = { { .scale = -1 }, { .scale = 1e-12 }, { .scale = 1e10 } };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(rp_filter_create(&f, &bad[i], &m.base, eb), RP_E_INVAL);
		assert_non_null(strstr(eb, "--scale-time"));
	}
	/* A time that overflows once scaled is an error naming the op, not a wrapped time */
	assert_int_equal(rp_memsink_init(&m), 0);
	const rp_filter_opts big = { .scale = 1e9 };
	assert_int_equal(rp_filter_create(&f, &big, &m.base, eb), 0);
	rp_sink *const s = rp_filter_sink(f);
	const rp_trace_meta meta = { 0 };
	assert_int_equal(s->meta(s, &meta), 0);
	const rp_op ok = { .t_start = 1000, .t_end = RP_TIME_UNKNOWN, .op = RP_OP_STAT };
	assert_int_equal(s->op(s, &ok), 0);
	assert_int_equal(m.ops[0].t_end, RP_TIME_UNKNOWN); /* unknown stays unknown */
	const rp_op huge = { .t_start = 1000000000000ull, .t_end = RP_TIME_UNKNOWN, .op = RP_OP_STAT };
	assert_int_equal(s->op(s, &huge), RP_E_RANGE);
	assert_non_null(strstr(s->errbuf, "overflows"));
	rp_filter_destroy(f);
	rp_memsink_fini(&m);
}

static void test_window_bad(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_filter *f = NULL;
	char eb[RP_ERRBUF_SIZE];
	const rp_filter_opts fo = { .window = true, .from_ns = 5, .to_ns = 5 };
	assert_int_equal(rp_filter_create(&f, &fo, &m.base, eb), RP_E_INVAL);
	const rp_filter_opts up = { .prefix = "../x" };
	assert_int_equal(rp_filter_create(&f, &up, &m.base, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "above the top"));
	rp_memsink_fini(&m);
}

/* ---- merge ---- */

static void test_merge(void **state)
{
	(void)state;
	rp_memsink a, b, out;
	assert_int_equal(rp_memsink_init(&a), 0);
	assert_int_equal(rp_memsink_init(&b), 0);
	assert_int_equal(rp_memsink_init(&out), 0);
	feed_std(&a.base);
	a.meta.capture_start_ns = 1000000000;
	tb t;
	tb_begin(&t, &b.base);
	t.t = 1500000; /* b's ops at 2.5, 3.5 and 4.5 ms */
	assert_int_equal(tb_op(&t, 0, RP_OP_OPEN, "/a/b/x", 10), 0); /* the same path and handle as a's */
	assert_int_equal(tb_op(&t, 1, RP_OP_READ, NULL, 10), 0);
	assert_int_equal(tb_op(&t, 0, RP_OP_CLOSE, NULL, 10), 0);
	tb_end(&t);
	b.meta.capture_start_ns = 1000000000 - 2000000; /* b began 2 ms before a */
	const rp_memsink *ins[] = { &a, &b };
	rp_merge_map maps[2];
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_merge_run(ins, 2, RP_MERGE_START, &out.base, maps, eb), 0);
	assert_int_equal(maps[0].client_offset, 0);
	assert_int_equal(maps[0].clients, 4);
	assert_int_equal(maps[1].client_offset, 4);
	assert_int_equal(maps[1].handle_offset, 20);
	char txt[2048];
	dump(&out, txt, sizeof(txt));
	assert_string_equal(txt, "c1 open /a/b/x h10\nc2 open /a/bc/y h20\nc4 open /a/b/x h30\nc1 read - h10\n"
				 "c5 read - h30\nc2 read - h20\nc4 close - h30\nc1 open /a/b h11\nc1 read - h10\n"
				 "c1 close - h10\nc2 close - h20\nc3 mkdir /a/b/z h0\nc1 close - h11\n");
	assert_int_equal(out.ops[0].path, out.ops[2].path); /* one string for one path */
	rp_memsink_fini(&out);

	/* wallclock: b is 2 ms earlier, so a moves 2 ms later */
	assert_int_equal(rp_memsink_init(&out), 0);
	assert_int_equal(rp_merge_run(ins, 2, RP_MERGE_WALLCLOCK, &out.base, maps, eb), 0);
	assert_int_equal(maps[0].t_offset, 2000000);
	assert_int_equal(maps[1].t_offset, 0);
	assert_int_equal(out.meta.capture_start_ns, 1000000000 - 2000000);
	assert_int_equal(out.ops[0].client, 4);
	assert_int_equal(out.ops[0].t_start, 2500000);
	rp_memsink_fini(&out);

	b.meta.capture_start_ns = 0;
	assert_int_equal(rp_memsink_init(&out), 0);
	assert_int_equal(rp_merge_run(ins, 2, RP_MERGE_WALLCLOCK, &out.base, maps, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "input 2: its capture start is unknown"));
	rp_memsink_fini(&out);
	rp_memsink_fini(&a);
	rp_memsink_fini(&b);
}

/* A fork's child and a wait's reaped child are client ids: they move with their input's clients. */
static void test_merge_fork_wait(void **state)
{
	(void)state;
	rp_memsink a, out;
	assert_int_equal(rp_memsink_init(&a), 0);
	assert_int_equal(rp_memsink_init(&out), 0);
	const rp_trace_meta meta = { .source = RP_SRC_SYSCALL };
	assert_int_equal(a.base.meta(&a.base, &meta), 0);
	const rp_op ops[] = {
		{ .t_start = 1, .t_end = 1, .client = 0, .op = RP_OP_FORK, .result = 1 },
		{ .t_start = 2, .t_end = 3, .client = 1, .op = RP_OP_STAT },
		{ .t_start = 4, .t_end = 4, .client = 0, .op = RP_OP_WAIT, .result = 1 },
	};
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(a.base.op(&a.base, &ops[i]), 0);
	assert_int_equal(a.base.finish(&a.base), 0);
	const rp_memsink *ins[] = { &a, &a };
	rp_merge_map maps[2];
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_merge_run(ins, 2, RP_MERGE_START, &out.base, maps, eb), 0);
	assert_int_equal(maps[1].client_offset, 2);
	assert_int_equal(out.n_ops, 6);
	for (size_t i = 0; i < 6; i++) {
		const rp_op *const op = &out.ops[i];
		if (op->op == RP_OP_FORK || op->op == RP_OP_WAIT)
			assert_int_equal(op->result, op->client + 1); /* each copy's parent forks and reaps its own child */
	}
	rp_memsink_fini(&out);

	/* placed: paths under a prefix, a shift, a lead sleep before the parent only (the child waits for its fork) */
	assert_int_equal(rp_memsink_init(&out), 0);
	const rp_merge_place pl[] = { { .prefix = "/client1", .lead_sleep_ns = 7 }, { .prefix = "/client2", .t_offset = 10 } };
	assert_int_equal(rp_merge_run_placed(ins, 2, RP_MERGE_START, pl, &out.base, maps, eb), 0);
	assert_int_equal(out.n_ops, 7);
	assert_int_equal(out.ops[0].op, RP_OP_SLEEP);
	assert_int_equal(out.ops[0].length, 7);
	assert_int_equal(out.ops[0].client, 0);
	assert_int_equal(out.ops[6].op, RP_OP_WAIT);
	assert_int_equal(out.ops[6].t_start, 14);
	rp_memsink_fini(&out);
	rp_memsink_fini(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_clients),
		cmocka_unit_test(test_parse_ops),
		cmocka_unit_test(test_clients_and_ops),
		cmocka_unit_test(test_held_open_bounded),
		cmocka_unit_test(test_path_prefix_componentwise),
		cmocka_unit_test(test_window_keeps_handles_consistent),
		cmocka_unit_test(test_handle_reuse_after_close),
		cmocka_unit_test(test_path_beside_handle),
		cmocka_unit_test(test_time_scale),
		cmocka_unit_test(test_window_bad),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_fork_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
