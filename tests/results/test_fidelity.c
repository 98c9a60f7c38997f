/* Unit tests of results/fidelity.c: the closed loop's core ops, per-file order, alignment and load, across protocols. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "formats/error.h"
#include "results/fidelity.h"

#define MS 1000000ull

/* A trace under construction: its names (id = index + 1) and its ops. */
typedef struct trace {
	rp_fid *f;
	const char *const *names;
	size_t n_names;
} trace;

static void begin(trace *t, const char *const *names, size_t n)
{
	t->f = rp_fid_create();
	assert_non_null(t->f);
	t->names = names;
	t->n_names = n;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rp_fid_string(t->f, (uint32_t)(i + 1), names[i], (uint32_t)strlen(names[i])), RP_OK);
}

static void op(trace *t, rp_op o)
{
	assert_int_equal(rp_fid_op(t->f, &o), RP_OK);
}

/* A create of file 1, two writes, a rename 1 -> 2, a mkdir of 3 and a delete of 2: posix words. */
static const char *const posix_names[] = { "/d/a", "/d/b", "/d/sub" };

static void posix_run(trace *t, const char *const *names, unsigned split)
{
	begin(t, names, 3);
	op(t, (rp_op){ .op = RP_OP_OPEN, .client = 1, .path = 1, .handle = 5, .disp = RP_DISP_TRUNC_IF, .t_start = 0,
		       .t_end = 1 * MS });
	for (unsigned i = 0; i < split; i++)
		op(t, (rp_op){ .op = RP_OP_WRITE, .client = 1, .handle = 5, .offset = i * (8192 / split),
			       .length = 8192 / split, .result = 8192 / split, .t_start = 2 * MS, .t_end = 3 * MS });
	op(t, (rp_op){ .op = RP_OP_CLOSE, .client = 1, .handle = 5, .t_start = 4 * MS, .t_end = 4 * MS });
	op(t, (rp_op){ .op = RP_OP_RENAME, .client = 1, .path = 1, .path2 = 2, .t_start = 5 * MS, .t_end = 6 * MS });
	op(t, (rp_op){ .op = RP_OP_MKDIR, .client = 1, .path = 3, .t_start = 7 * MS, .t_end = 8 * MS });
	op(t, (rp_op){ .op = RP_OP_UNLINK, .client = 1, .path = 2, .t_start = 9 * MS, .t_end = 10 * MS });
}

/* The same in SMB words, beneath a replay's target: the mkdir a directory create, the delete a delete-on-close. */
static const char *const smb_names[] = { "/export/t/d/a", "/export/t/d/b", "/export/t/d/sub" };

static void smb_run(trace *t)
{
	begin(t, smb_names, 3);
	op(t, (rp_op){ .op = RP_OP_OPEN, .client = 7, .path = 1, .handle = 1, .disp = RP_DISP_SUPERSEDE,
		       .result = RP_ACT_CREATED, .t_start = 0, .t_end = 1 * MS });
	op(t, (rp_op){ .op = RP_OP_WRITE, .client = 7, .handle = 1, .length = 8192, .result = 8192, .t_start = 2 * MS,
		       .t_end = 3 * MS });
	op(t, (rp_op){ .op = RP_OP_CLOSE, .client = 7, .handle = 1, .t_start = 4 * MS, .t_end = 4 * MS });
	op(t, (rp_op){ .op = RP_OP_RENAME, .client = 7, .path = 1, .path2 = 2, .t_start = 5 * MS, .t_end = 6 * MS });
	op(t, (rp_op){ .op = RP_OP_OPEN, .client = 7, .path = 3, .handle = 2, .disp = RP_DISP_CREATE,
		       .oflags = RP_OF_DIRECTORY, .t_start = 7 * MS, .t_end = 7 * MS });
	op(t, (rp_op){ .op = RP_OP_CLOSE, .client = 7, .handle = 2, .t_start = 8 * MS, .t_end = 8 * MS });
	/* a create that fails, which the original never made, changes nothing */
	op(t, (rp_op){ .op = RP_OP_OPEN, .client = 7, .path = 2, .handle = 3, .disp = RP_DISP_CREATE, .status = 17,
		       .t_start = 8 * MS, .t_end = 8 * MS });
	op(t, (rp_op){ .op = RP_OP_OPEN, .client = 7, .path = 2, .handle = 4, .want = RP_WANT_KNOWN | RP_WANT_DELETE,
		       .disp = RP_DISP_OPEN, .t_start = 9 * MS, .t_end = 9 * MS });
	op(t, (rp_op){ .op = RP_OP_SETATTR, .client = 7, .handle = 4, .attrs = RP_SA_DELETE_SET, .t_start = 9 * MS,
		       .t_end = 9 * MS });
	op(t, (rp_op){ .op = RP_OP_CLOSE, .client = 7, .handle = 4, .t_start = 10 * MS, .t_end = 10 * MS });
}

static void same_trace_agrees(void **state)
{
	(void)state;
	trace a, b;
	posix_run(&a, posix_names, 1);
	posix_run(&b, posix_names, 1);
	rp_fid_view v;
	rp_fid_get(a.f, &v);
	assert_int_equal(v.core.creates, 1);
	assert_int_equal(v.core.mkdirs, 1);
	assert_int_equal(v.core.deletes, 1);
	assert_int_equal(v.core.renames, 1);
	assert_int_equal(v.core.bytes_written, 8192);
	assert_int_equal(v.files, 3);
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(a.f, b.f, &c), RP_OK);
	assert_true(c.compared);
	assert_int_equal(c.files_same, 3);
	assert_true(c.order_agree_pct == 100.0);
	assert_true(c.ks == 0.0);
	assert_int_equal(c.strip_a, 0);
	assert_int_equal(c.strip_b, 0);
	rp_fid_destroy(a.f);
	rp_fid_destroy(b.f);
}

/* SMB's words for the same work, two components deeper, with a failed create more: the same core ops. */
static void cross_protocol_agrees(void **state)
{
	(void)state;
	trace a, b;
	posix_run(&a, posix_names, 4); /* the write split in four: one run of writes all the same */
	smb_run(&b);
	rp_fid_view va, vb;
	rp_fid_get(a.f, &va);
	rp_fid_get(b.f, &vb);
	assert_memory_equal(&va.core, &vb.core, sizeof(va.core));
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(a.f, b.f, &c), RP_OK);
	assert_int_equal(c.strip_a, 0);
	assert_int_equal(c.strip_b, 2);
	assert_int_equal(c.files_a, 3);
	assert_int_equal(c.files_b, 3);
	assert_int_equal(c.files_same, 3);
	assert_true(c.order_agree_pct == 100.0);
	/* the other way round: A stripped */
	assert_int_equal(rp_fid_compare(b.f, a.f, &c), RP_OK);
	assert_int_equal(c.strip_a, 2);
	assert_int_equal(c.strip_b, 0);
	assert_int_equal(c.files_same, 3);
	rp_fid_destroy(a.f);
	rp_fid_destroy(b.f);
}

/* A file deleted before it is renamed, not after: its order differs, the others' not. */
static void reordered_file_differs(void **state)
{
	(void)state;
	static const char *const names[] = { "/x", "/y" };
	trace a, b;
	begin(&a, names, 2);
	begin(&b, names, 2);
	op(&a, (rp_op){ .op = RP_OP_MKDIR, .path = 2 });
	op(&a, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 1, .disp = RP_DISP_CREATE });
	op(&a, (rp_op){ .op = RP_OP_WRITE, .handle = 1, .length = 10, .result = 10 });
	op(&a, (rp_op){ .op = RP_OP_CLOSE, .handle = 1 });
	op(&b, (rp_op){ .op = RP_OP_MKDIR, .path = 2 });
	op(&b, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 1, .disp = RP_DISP_CREATE });
	op(&b, (rp_op){ .op = RP_OP_CLOSE, .handle = 1 });
	op(&b, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 2, .disp = RP_DISP_OPEN });
	op(&b, (rp_op){ .op = RP_OP_READ, .handle = 2, .length = 10, .result = 10 }); /* read where A wrote */
	op(&b, (rp_op){ .op = RP_OP_CLOSE, .handle = 2 });
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(a.f, b.f, &c), RP_OK);
	assert_int_equal(c.files_matched, 2);
	assert_int_equal(c.files_same, 1);
	assert_true(c.order_agree_pct == 50.0);
	rp_fid_destroy(a.f);
	rp_fid_destroy(b.f);
}

/*
 * A handle opened before a rename reads the file under its new name (a
 * rename moves open files; NFS names the fh by its new name, SMB's handle
 * carries no name): both agree.  One opened after a create at the old name
 * is that new file's.  A file that differs is named in the samples.
 */
static void rename_moves_open_handles(void **state)
{
	(void)state;
	static const char *const names[] = { "/tmp.1", "/doc", "/other" };
	trace a, b;
	begin(&a, names, 3);
	begin(&b, names, 3);
	/* A: SMB-like, I/O by handle alone */
	op(&a, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 1, .disp = RP_DISP_CREATE });
	op(&a, (rp_op){ .op = RP_OP_RENAME, .path = 1, .path2 = 2 });
	op(&a, (rp_op){ .op = RP_OP_WRITE, .handle = 1, .length = 5, .result = 5 });
	op(&a, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 2, .disp = RP_DISP_CREATE });
	op(&a, (rp_op){ .op = RP_OP_WRITE, .handle = 2, .length = 1, .result = 1 });
	op(&a, (rp_op){ .op = RP_OP_CLOSE, .handle = 1 });
	op(&a, (rp_op){ .op = RP_OP_CLOSE, .handle = 2 });
	op(&a, (rp_op){ .op = RP_OP_MKDIR, .path = 3 });
	/* B: NFS-like, I/O by handle and the current name */
	op(&b, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 7, .disp = RP_DISP_CREATE });
	op(&b, (rp_op){ .op = RP_OP_RENAME, .path = 1, .path2 = 2 });
	op(&b, (rp_op){ .op = RP_OP_WRITE, .path = 2, .handle = 7, .length = 5, .result = 5 });
	op(&b, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 8, .disp = RP_DISP_CREATE });
	op(&b, (rp_op){ .op = RP_OP_WRITE, .path = 1, .handle = 8, .length = 1, .result = 1 });
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(a.f, b.f, &c), RP_OK);
	assert_int_equal(c.files_a, 3);
	assert_int_equal(c.files_same, 2);
	assert_int_equal(c.n_samples, 1); /* /other: only A made it */
	assert_string_equal(c.samples[0].path, "/other");
	assert_string_equal(c.samples[0].a, "K");
	assert_string_equal(c.samples[0].b, "");
	rp_fid_destroy(a.f);
	rp_fid_destroy(b.f);
}

/* Both sides with a prefix of their own (a capture that began after its mount names paths by a synthetic root). */
static void both_sides_stripped(void **state)
{
	(void)state;
	static const char *const na[] = { "/.reprise/nfs/aaaa/d/x", "/.reprise/nfs/aaaa/d" };
	static const char *const nb[] = { "/.reprise/nfs/bbbb/t/d/x", "/.reprise/nfs/bbbb/t/d" };
	trace a, b;
	begin(&a, na, 2);
	begin(&b, nb, 2);
	for (trace *t = &a; t; t = t == &a ? &b : NULL) {
		op(t, (rp_op){ .op = RP_OP_MKDIR, .path = 2 });
		op(t, (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 1, .disp = RP_DISP_CREATE });
	}
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(a.f, b.f, &c), RP_OK);
	assert_int_equal(c.strip_a, 3);
	assert_int_equal(c.strip_b, 4);
	assert_int_equal(c.files_same, 2);
	assert_true(c.order_agree_pct == 100.0);
	rp_fid_destroy(a.f);
	rp_fid_destroy(b.f);
}

/* A file only one side has counts against the agreement. */
static void missing_file_counts(void **state)
{
	(void)state;
	static const char *const names[] = { "/p", "/q" };
	trace a, b;
	begin(&a, names, 2);
	begin(&b, names, 2);
	op(&a, (rp_op){ .op = RP_OP_MKDIR, .path = 1 });
	op(&a, (rp_op){ .op = RP_OP_MKDIR, .path = 2 });
	op(&b, (rp_op){ .op = RP_OP_MKDIR, .path = 1 });
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(a.f, b.f, &c), RP_OK);
	assert_int_equal(c.files_a, 2);
	assert_int_equal(c.files_b, 1);
	assert_true(c.order_agree_pct == 50.0);
	rp_fid_destroy(a.f);
	rp_fid_destroy(b.f);
}

/* Little's law: two 10 ms ops side by side over 10 ms are 2 in flight; gaps far apart are a KS of 1. */
static void load_measures(void **state)
{
	(void)state;
	static const char *const names[] = { "/f" };
	trace a, b;
	begin(&a, names, 1);
	begin(&b, names, 1);
	op(&a, (rp_op){ .op = RP_OP_STAT, .path = 1, .t_start = 0, .t_end = 10 * MS });
	op(&a, (rp_op){ .op = RP_OP_STAT, .path = 1, .t_start = 0, .t_end = 10 * MS });
	op(&a, (rp_op){ .op = RP_OP_SLEEP, .length = 5 * MS, .t_start = 10 * MS, .t_end = 15 * MS });
	for (uint64_t i = 0; i < 3; i++)
		op(&b, (rp_op){ .op = RP_OP_STAT, .path = 1, .t_start = i * 1000 * MS, .t_end = i * 1000 * MS + MS });
	rp_fid_view v;
	rp_fid_get(a.f, &v);
	assert_true(v.in_flight_mean > 1.99 && v.in_flight_mean < 2.01);
	assert_true(v.span_s > 0.0099 && v.span_s < 0.0101);
	assert_int_equal(v.gaps, 1);
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(a.f, b.f, &c), RP_OK);
	assert_true(c.ks == 1.0); /* A's one gap is 0, B's two are 1 s */
	assert_int_equal(c.files_a, 0); /* stats are no core op */
	assert_true(c.order_agree_pct == 100.0);
	rp_fid_destroy(a.f);
	rp_fid_destroy(b.f);
}

/* Hostile ids and names: an op naming an unknown id, an empty or slash-only name, an id named twice. */
static void hostile_names(void **state)
{
	(void)state;
	rp_fid *const f = rp_fid_create();
	assert_non_null(f);
	assert_int_equal(rp_fid_string(f, 1, "", 0), RP_OK);
	assert_int_equal(rp_fid_string(f, 2, "///", 3), RP_OK);
	assert_int_equal(rp_fid_string(f, 3, "/a", 2), RP_OK);
	assert_int_equal(rp_fid_string(f, 3, "/b/c", 4), RP_OK);
	assert_int_equal(rp_fid_string(f, 4, "b/./c/", 6), RP_OK); /* the same file, lexically */
	const rp_op ops[] = {
		{ .op = RP_OP_MKDIR, .path = 1 }, { .op = RP_OP_MKDIR, .path = 2 }, { .op = RP_OP_MKDIR, .path = 99 },
		{ .op = RP_OP_READ, .handle = 12345, .result = 7 }, { .op = RP_OP_CLOSE, .handle = 12345 },
		{ .op = RP_OP_MKDIR, .path = 3 }, { .op = RP_OP_RMDIR, .path = 4 }, { .op = 999 },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		assert_int_equal(rp_fid_op(f, &ops[i]), RP_OK);
	rp_fid_view v;
	rp_fid_get(f, &v);
	assert_int_equal(v.core.mkdirs, 4);
	assert_int_equal(v.core.deletes, 1);
	assert_int_equal(v.core.bytes_read, 7);
	assert_int_equal(v.files, 1); /* only /b/c names a file, also as b/./c/ */
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(f, f, &c), RP_OK);
	assert_int_equal(c.files_same, 1);
	rp_fid_destroy(f);
	rp_fid_destroy(NULL);
}

/*
 * Which closes delete (SMB's delete-on-close): set at the open, even one whose
 * reply was lost, or by set-info; cleared by set-info; not by a failed open
 * or close, nor by a handle id opened again without it.
 */
static void delete_on_close_rules(void **state)
{
	(void)state;
	static const char *const names[] = { "/a", "/b", "/c", "/d", "/e" };
	trace t;
	begin(&t, names, 5);
	const rp_op ops[] = {
		{ .op = RP_OP_OPEN, .client = 1, .path = 1, .handle = 1, .oflags = RP_OF_DELETE_ON_CLOSE,
		  .status = RP_STATUS_UNKNOWN },
		{ .op = RP_OP_CLOSE, .client = 1, .handle = 1 }, /* deletes /a */
		{ .op = RP_OP_OPEN, .client = 1, .path = 2, .handle = 2, .oflags = RP_OF_DELETE_ON_CLOSE },
		{ .op = RP_OP_SETATTR, .client = 1, .handle = 2, .attrs = RP_SA_DELETE_CLEAR },
		{ .op = RP_OP_CLOSE, .client = 1, .handle = 2 },
		{ .op = RP_OP_OPEN, .client = 1, .path = 3, .handle = 3, .oflags = RP_OF_DIRECTORY },
		{ .op = RP_OP_SETATTR, .client = 1, .handle = 3, .attrs = RP_SA_DELETE_SET },
		{ .op = RP_OP_CLOSE, .client = 2, .handle = 3 }, /* another client's handle 3: nothing */
		{ .op = RP_OP_CLOSE, .client = 1, .handle = 3 }, /* deletes /c */
		{ .op = RP_OP_OPEN, .client = 1, .path = 4, .handle = 4, .oflags = RP_OF_DELETE_ON_CLOSE },
		{ .op = RP_OP_CLOSE, .client = 1, .handle = 4, .status = 5 }, /* failed: the handle stays open */
		{ .op = RP_OP_OPEN, .client = 1, .path = 4, .handle = 4 },   /* its id again, no delete-on-close */
		{ .op = RP_OP_CLOSE, .client = 1, .handle = 4 },
		{ .op = RP_OP_OPEN, .client = 1, .path = 5, .handle = 5, .oflags = RP_OF_DELETE_ON_CLOSE, .status = 2 },
		{ .op = RP_OP_CLOSE, .client = 1, .handle = 5 }, /* its open failed: no handle, nothing */
		{ .op = RP_OP_CLOSE, .client = 1, .handle = 1 }, /* closed already */
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		op(&t, ops[i]);
	rp_fid_view v;
	rp_fid_get(t.f, &v);
	assert_int_equal(v.core.deletes, 2);
	/* The deletes are /a's and /c's steps: a trace deleting them by name has the same files' order. */
	trace n;
	begin(&n, names, 5);
	const rp_op by_name[] = {
		{ .op = RP_OP_OPEN, .client = 1, .path = 1, .handle = 1, .status = RP_STATUS_UNKNOWN },
		{ .op = RP_OP_UNLINK, .client = 1, .path = 1 },
		{ .op = RP_OP_OPEN, .client = 1, .path = 2, .handle = 2 },
		{ .op = RP_OP_OPEN, .client = 1, .path = 3, .handle = 3, .oflags = RP_OF_DIRECTORY },
		{ .op = RP_OP_RMDIR, .client = 1, .path = 3 },
		{ .op = RP_OP_OPEN, .client = 1, .path = 4, .handle = 4 },
		{ .op = RP_OP_OPEN, .client = 1, .path = 4, .handle = 4 },
	};
	for (size_t i = 0; i < sizeof(by_name) / sizeof(by_name[0]); i++)
		op(&n, by_name[i]);
	rp_fid_cmp c;
	assert_int_equal(rp_fid_compare(t.f, n.f, &c), RP_OK);
	assert_true(c.compared);
	assert_int_equal(c.files_same, c.files_a);
	assert_int_equal(c.files_a, c.files_b);
	assert_true(c.order_agree_pct == 100.0);
	rp_fid_destroy(t.f);
	rp_fid_destroy(n.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_trace_agrees),     cmocka_unit_test(cross_protocol_agrees),
		cmocka_unit_test(reordered_file_differs), cmocka_unit_test(missing_file_counts),
		cmocka_unit_test(load_measures),         cmocka_unit_test(hostile_names),
		cmocka_unit_test(rename_moves_open_handles), cmocka_unit_test(both_sides_stripped),
		cmocka_unit_test(delete_on_close_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
