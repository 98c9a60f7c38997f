/* formats/plan.h: the prepare plan of small traces (items, sizes, parents, clients, loop conflicts, a reader). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "formats/loadfile.h"
#include "formats/plan.h"
#include "formats/sink.h"

typedef struct tr {
	rp_memsink ms;
	rp_strtab *tab;
} tr;

static void tr_init(tr *t)
{
	assert_int_equal(rp_memsink_init(&t->ms), 0);
	t->tab = rp_strtab_create();
	assert_non_null(t->tab);
}

static rp_op *add(tr *t, uint32_t client, unsigned opcode, const char *path, uint64_t handle, uint64_t off,
		  uint64_t len)
{
	rp_op op;
	memset(&op, 0, sizeof(op));
	op.client = client;
	op.op = (uint16_t)opcode;
	if (path) {
		const int64_t id = rp_sink_intern(&t->ms.base, t->tab, path, (uint32_t)strlen(path));
		assert_true(id > 0);
		op.path = (uint32_t)id;
	}
	op.handle = handle;
	op.offset = off;
	op.length = len;
	op.result = opcode == RP_OP_READ || opcode == RP_OP_WRITE ? len : 0;
	op.t_end = RP_TIME_UNKNOWN;
	assert_int_equal(t->ms.base.op(&t->ms.base, &op), 0);
	return &t->ms.ops[t->ms.n_ops - 1];
}

static void plan(tr *t, rp_plan *p, bool items, bool loops)
{
	char eb[RP_ERRBUF_SIZE] = "";
	const rp_plan_opts po = { .items = items, .loops = loops };
	assert_int_equal(rp_plan_ops(p, t->ms.ops, t->ms.n_ops, rp_memsink_string, &t->ms, &po, eb), 0);
}

/* The plan of t's ops with shares asked (and items too when items). */
static void plan_shares(tr *t, rp_plan *p, bool items)
{
	char eb[RP_ERRBUF_SIZE] = "";
	const rp_plan_opts po = { .items = items, .shares = true };
	assert_int_equal(rp_plan_ops(p, t->ms.ops, t->ms.n_ops, rp_memsink_string, &t->ms, &po, eb), 0);
}

static void tr_fini(tr *t)
{
	rp_memsink_fini(&t->ms);
	rp_strtab_destroy(t->tab);
}

/* Two clients: what each reads is planned with its size, what they make is not; parents are directories. */
static void items_sizes_and_clients(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_op *op = add(&t, 7, RP_OP_OPEN, "/a/b/in.bin", 1, 0, 0);
	op->disp = RP_DISP_OPEN;
	add(&t, 7, RP_OP_READ, NULL, 1, 4096, 4096);
	add(&t, 7, RP_OP_CLOSE, NULL, 1, 0, 0);
	op = add(&t, 2, RP_OP_OPEN, "/a/new", 1, 0, 0); /* client 2's handle 1 is not client 7's */
	op->disp = RP_DISP_CREATE;
	add(&t, 2, RP_OP_WRITE, NULL, 1, 0, 100);
	add(&t, 2, RP_OP_READ, NULL, 1, 0, 100);
	add(&t, 2, RP_OP_CLOSE, NULL, 1, 0, 0);
	add(&t, 2, RP_OP_LOOKUP, "/c", 0, 0, 0);
	add(&t, 2, RP_OP_STAT, "/c/d", 0, 0, 0); /* c is a directory: something is beneath it */
	rp_plan p;
	plan(&t, &p, true, false);
	static const char *const want[] = { "a", "a/b", "a/b/in.bin", "c", "c/d" };
	static const bool want_dir[] = { true, true, false, true, false };
	assert_int_equal(p.n_items, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(p.items[i].path, want[i]);
		assert_int_equal(p.items[i].dir, want_dir[i]);
		assert_int_equal(p.items[i].size, i == 2 ? 8192 : 0);
	}
	assert_int_equal(p.dirs, 3);
	assert_int_equal(p.files, 2);
	assert_int_equal(p.bytes, 8192);
	assert_int_equal(p.n_clients, 2);
	assert_int_equal(p.clients[0], 2);
	assert_int_equal(p.clients[1], 7);
	assert_int_equal(p.ops, t.ms.n_ops);
	assert_false(p.timed);
	assert_int_equal(p.n_conflicts, 0);
	rp_plan_free(&p);
	assert_null(p.items);
	/* items off: the clients, nothing else */
	plan(&t, &p, false, false);
	assert_int_equal(p.n_items, 0);
	assert_int_equal(p.n_clients, 2);
	rp_plan_free(&p);
	tr_fini(&t);
}


/*
 * A stat or lookup that saw the file's size (an NFS trace's attributes, the
 * nfsdump reader) plans the file that long, as a read's end does, unless the
 * workload made it or it is a directory; a flush by path (COMMIT) needs its file.
 */
static void stat_sizes_and_flushes(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_op *op = add(&t, 1, RP_OP_STAT, "/s/big", 0, 0, 0);
	op->result = 468256;
	op = add(&t, 1, RP_OP_LOOKUP, "/s/small", 0, 0, 0);
	op->result = 10;
	add(&t, 1, RP_OP_READ, "/s/small", 9, 0, 100); /* the read's end is further */
	op = add(&t, 1, RP_OP_STAT, "/s/dir", 0, 0, 0);
	op->result = 8192;
	op->flags = RP_OPF_DIRECTORY;
	op = add(&t, 1, RP_OP_OPEN, "/s/made", 5, 0, 0);
	op->disp = RP_DISP_CREATE;
	op = add(&t, 1, RP_OP_STAT, "/s/made", 0, 0, 0);
	op->result = 4096; /* the workload made it: its size is the workload's */
	add(&t, 1, RP_OP_FLUSH, "/s/flushed", 7, 0, 0);
	rp_plan p;
	plan(&t, &p, true, false);
	static const char *const want[] = { "s", "s/big", "s/dir", "s/flushed", "s/small" };
	static const uint64_t want_size[] = { 0, 468256, 0, 0, 100 };
	static const bool want_dir[] = { true, false, true, false, false };
	assert_int_equal(p.n_items, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(p.items[i].path, want[i]);
		assert_int_equal(p.items[i].size, want_size[i]);
		assert_int_equal(p.items[i].dir, want_dir[i]);
	}
	rp_plan_free(&p);
	tr_fini(&t);
}

/*
 * A path named by a failed op lies in a directory: a/b seen only as an open
 * that failed ENOENT (and c/d as a failed unlink, e/f as a failed rename's
 * target) makes a, c and e directories when they are only stat'ed; ENOTDIR
 * on g/h says g is no directory, so it stays a file.  A stat the capture
 * knew was of a directory (flags dir: the result's S_IFDIR) makes one too.
 */
static void failed_ops_name_directories(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, 1, RP_OP_STAT, "/a", 0, 0, 0);
	rp_op *op = add(&t, 1, RP_OP_OPEN, "/a/b", 3, 0, 0);
	op->disp = RP_DISP_OPEN;
	op->status = ENOENT;
	add(&t, 1, RP_OP_STAT, "/c", 0, 0, 0);
	add(&t, 1, RP_OP_UNLINK, "/c/d", 0, 0, 0)->status = ENOENT;
	add(&t, 1, RP_OP_STAT, "/e", 0, 0, 0);
	add(&t, 1, RP_OP_STAT, "/x", 0, 0, 0);
	op = add(&t, 1, RP_OP_RENAME, "/x", 0, 0, 0);
	op->path2 = (uint32_t)rp_sink_intern(&t.ms.base, t.tab, "/e/f", 4);
	op->status = ENOENT;
	add(&t, 1, RP_OP_STAT, "/g", 0, 0, 0);
	add(&t, 1, RP_OP_STAT, "/g/h", 0, 0, 0)->status = ENOTDIR;
	add(&t, 1, RP_OP_STAT, "/k", 0, 0, 0)->flags = RP_OPF_DIRECTORY;
	rp_plan p;
	plan(&t, &p, true, false);
	static const char *const want[] = { "a", "c", "e", "g", "k", "x" };
	static const bool want_dir[] = { true, true, true, false, true, false };
	assert_int_equal(p.n_items, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(p.items[i].path, want[i]);
		assert_int_equal(p.items[i].dir, want_dir[i]);
	}
	rp_plan_free(&p);
	tr_fini(&t);
}

/*
 * An open-or-create that records no create action (a loadfile) may have found
 * what it opened: it did if something beneath it must exist, or if it is read
 * beyond what the workload wrote; else the workload makes it.  With the
 * action recorded, "created" plans nothing and "opened" plans it.
 */
static void open_if_without_action(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_op *op = add(&t, 1, RP_OP_OPEN, "/d", 1, 0, 0); /* the directory: a file in it is opened, not created */
	op->disp = RP_DISP_OPEN_IF;
	op->oflags = RP_OF_DIRECTORY;
	add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0);
	op = add(&t, 1, RP_OP_OPEN, "/d/f", 2, 0, 0);
	op->disp = RP_DISP_OPEN;
	add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0);
	op = add(&t, 1, RP_OP_OPEN, "/g", 3, 0, 0); /* read beyond what the workload wrote: it had data */
	op->disp = RP_DISP_OPEN_IF;
	add(&t, 1, RP_OP_READ, NULL, 3, 0, 500);
	add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0);
	op = add(&t, 1, RP_OP_OPEN, "/h", 4, 0, 0); /* written, then read: the workload's own */
	op->disp = RP_DISP_OPEN_IF;
	add(&t, 1, RP_OP_WRITE, NULL, 4, 0, 500);
	add(&t, 1, RP_OP_READ, NULL, 4, 0, 500);
	add(&t, 1, RP_OP_CLOSE, NULL, 4, 0, 0);
	op = add(&t, 1, RP_OP_OPEN, "/k", 5, 0, 0); /* "created": nothing to plan, whatever follows */
	op->disp = RP_DISP_OPEN_IF;
	op->oflags = RP_OF_DIRECTORY;
	op->result = RP_ACT_CREATED;
	add(&t, 1, RP_OP_STAT, "/k/x", 0, 0, 0);
	rp_plan p;
	plan(&t, &p, true, false);
	static const char *const want[] = { "d", "d/f", "g" };
	static const bool want_dir[] = { true, false, false };
	assert_int_equal(p.n_items, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(p.items[i].path, want[i]);
		assert_int_equal(p.items[i].dir, want_dir[i]);
		assert_int_equal(p.items[i].size, i == 2 ? 500 : 0);
	}
	rp_plan_free(&p);
	tr_fini(&t);
}

/*
 * In a loop, a creation that finds what the previous pass left is a
 * conflict: Mkdir \clients (its Deltree removes only what is beneath), and a
 * create-new open of a file the pass does not remove; not the mkdir of a
 * directory the pass removes again.
 */
static void loop_conflicts(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, 0, RP_OP_MKDIR, "/clients", 0, 0, 0);         /* index 1: conflicts */
	add(&t, 0, RP_OP_MKDIR, "/clients/client0", 0, 0, 0); /* 2: removed by the deltree below */
	add(&t, 0, RP_OP_DELTREE, "/clients/client0", 0, 0, 0);
	rp_op *op = add(&t, 0, RP_OP_OPEN, "/keep", 5, 0, 0); /* 4: conflicts */
	op->disp = RP_DISP_CREATE;
	add(&t, 0, RP_OP_CLOSE, NULL, 5, 0, 0);
	op = add(&t, 1, RP_OP_MKDIR, "/other", 0, 0, 0); /* client 1's index 1: conflicts */
	op->t_start = 5;
	rp_plan p;
	plan(&t, &p, false, true);
	assert_int_equal(p.n_conflicts, 3);
	assert_true(rp_plan_conflict(&p, 0, 1));
	assert_false(rp_plan_conflict(&p, 0, 2));
	assert_true(rp_plan_conflict(&p, 0, 4));
	assert_true(rp_plan_conflict(&p, 1, 1));
	assert_false(rp_plan_conflict(&p, 1, 4));
	assert_true(p.timed);
	assert_int_equal(p.ops, 6); /* one pass */
	rp_plan_free(&p);
	/* No loops: no second pass, no conflicts */
	plan(&t, &p, true, false);
	assert_int_equal(p.n_conflicts, 0);
	assert_false(rp_plan_conflict(&p, 0, 1));
	rp_plan_free(&p);
	tr_fini(&t);
}

/* Over a reader: a loadfile in memory, planned twice (the loop pass rewinds it). */
static void over_a_reader(void **state)
{
	(void)state;
	static const char text[] = "NTCreateX \"\\dir\\f\" 0x0 0x1 1 NT_STATUS_OK\n"
				   "ReadX 1 0 1000 1000 NT_STATUS_OK\n"
				   "Close 1 NT_STATUS_OK\n"
				   "Mkdir \"\\made\" NT_STATUS_OK\n";
	char eb[RP_ERRBUF_SIZE] = "";
	rp_reader *r = NULL;
	assert_int_equal(rp_loadfile_reader_open_mem(&r, text, sizeof(text) - 1, "mem", NULL, eb), 0);
	rp_plan p;
	const rp_plan_opts po = { .items = true, .loops = true };
	assert_int_equal(rp_plan_reader(&p, r, &po, eb), 0);
	assert_int_equal(p.n_items, 2);
	assert_string_equal(p.items[0].path, "dir");
	assert_true(p.items[0].dir);
	assert_string_equal(p.items[1].path, "dir/f");
	assert_int_equal(p.items[1].size, 1000);
	assert_int_equal(p.n_conflicts, 1);
	assert_true(rp_plan_conflict(&p, RP_LOADFILE_CLIENT, 4));
	rp_plan_free(&p);
	rp_reader_close(r);
}

static void empty_trace_empty_plan(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_plan p;
	plan(&t, &p, true, true);
	assert_int_equal(p.n_items, 0);
	assert_int_equal(p.n_clients, 0);
	assert_int_equal(p.ops, 0);
	rp_plan_free(&p);
	rp_plan_free(NULL);
	tr_fini(&t);
}

/* rp_plan_opts.shares: two clients naming one path (however spelled) share it; disjoint ones share nothing. */
static void shares_paths(void **state)
{
	(void)state;
	for (int shared = 0; shared < 2; shared++) {
		for (int items = 0; items < 2; items++) {
			tr t;
			tr_init(&t);
			add(&t, 1, RP_OP_MKDIR, "/d1", 0, 0, 0);
			rp_op *op = add(&t, 1, RP_OP_OPEN, "/d1/f", 5, 0, 0);
			op->disp = RP_DISP_CREATE;
			add(&t, 1, RP_OP_WRITE, NULL, 5, 0, 10);
			add(&t, 1, RP_OP_CLOSE, NULL, 5, 0, 0);
			add(&t, 2, RP_OP_MKDIR, "/d2", 0, 0, 0);
			add(&t, 2, RP_OP_STAT, shared ? "d1//./f" : "/d2/f", 0, 0, 0);
			add(&t, 2, RP_OP_STAT, shared ? "d1/../d1/f" : "/d2/g", 0, 0, 0); /* once more: still one shared path */
			rp_plan p;
			plan_shares(&t, &p, items);
			assert_int_equal(p.n_clients, 2);
			assert_int_equal(p.share.paths, (uint64_t)shared);
			assert_int_equal(p.share.handles, 0);
			assert_int_equal(p.share.forks, 0);
			assert_int_equal(p.share.waits, 0);
			rp_plan_free(&p);
			/* Not asked: nothing said. */
			plan(&t, &p, true, false);
			assert_int_equal(p.share.paths, 0);
			rp_plan_free(&p);
			tr_fini(&t);
		}
	}
}

/* Rename's second path counts; a handle of another client's open, a fork and a wait op tie clients too. */
static void shares_handles_forks_waits(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_op *op = add(&t, 1, RP_OP_OPEN, "/a", 9, 0, 0);
	op->disp = RP_DISP_OPEN_IF;
	op = add(&t, 1, RP_OP_FORK, NULL, 0, 0, 0);
	op->result = 2; /* client 2 is its child: it inherits handle 9 */
	op = add(&t, 1, RP_OP_FORK, NULL, 0, 0, 0);
	op->result = 77; /* a child with no ops of its own: no client of the trace */
	add(&t, 2, RP_OP_READ, NULL, 9, 0, 1);
	op = add(&t, 2, RP_OP_OPEN, "/own", 3, 0, 0);
	op->disp = RP_DISP_OPEN_IF;
	add(&t, 2, RP_OP_READ, NULL, 3, 0, 1); /* its own */
	op = add(&t, 2, RP_OP_DUP, NULL, 3, 0, 0);
	op->handle2 = 4;
	add(&t, 2, RP_OP_READ, NULL, 4, 0, 1); /* its own dup */
	op = add(&t, 3, RP_OP_RENAME, "/x", 0, 0, 0);
	const int64_t id = rp_sink_intern(&t.ms.base, t.tab, "/own", 4);
	assert_true(id > 0);
	t.ms.ops[t.ms.n_ops - 1].path2 = (uint32_t)id; /* client 3 renames x over client 2's /own */
	op = add(&t, 1, RP_OP_WAIT, NULL, 0, 0, 0);
	op->result = 2;
	op = add(&t, 3, RP_OP_WAIT, NULL, 0, 0, 0);
	op->result = 3; /* itself: nothing */
	rp_plan p;
	plan_shares(&t, &p, false);
	assert_int_equal(p.n_clients, 3);
	assert_int_equal(p.share.paths, 1);
	assert_int_equal(p.share.handles, 1);
	assert_int_equal(p.share.forks, 1);
	assert_int_equal(p.share.waits, 1);
	rp_plan_free(&p);
	tr_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(items_sizes_and_clients),
		cmocka_unit_test(stat_sizes_and_flushes),
		cmocka_unit_test(open_if_without_action),
		cmocka_unit_test(failed_ops_name_directories),
		cmocka_unit_test(loop_conflicts),
		cmocka_unit_test(over_a_reader),
		cmocka_unit_test(empty_trace_empty_plan),
		cmocka_unit_test(shares_paths),
		cmocka_unit_test(shares_handles_forks_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
