/* The delete-on-close tracker (formats/doc_track.h): what a close deletes, and its memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/doc_track.h"
#include "formats/error.h"
#include "formats/op.h"

static rp_op op_of(rp_opcode code, uint32_t client, uint64_t handle, uint32_t oflags)
{
	rp_op op = { .op = code, .client = client, .handle = handle, .oflags = oflags, .status = RP_STATUS_OK };
	return op;
}

static void closes_delete(void **state)
{
	(void)state;
	rp_doc_track t = { 0 };
	rp_op o = op_of(RP_OP_OPEN, 1, 7, RP_OF_DELETE_ON_CLOSE);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	o = op_of(RP_OP_OPEN, 2, 7, RP_OF_DELETE_ON_CLOSE | RP_OF_DIRECTORY); /* same handle, other client */
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	o = op_of(RP_OP_CLOSE, 2, 7, 0);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP_RMDIR);
	o = op_of(RP_OP_CLOSE, 1, 7, 0);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP_UNLINK);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT); /* closed already */
	/* set by set-info, cleared again */
	o = op_of(RP_OP_OPEN, 1, 8, 0);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	o = op_of(RP_OP_SETATTR, 1, 8, 0);
	o.attrs = RP_SA_DELETE_SET;
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	o.attrs = RP_SA_DELETE_CLEAR;
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	o = op_of(RP_OP_CLOSE, 1, 8, 0);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	/* a failed open counts for nothing with _op, for something with _apply */
	o = op_of(RP_OP_OPEN, 1, 9, RP_OF_DELETE_ON_CLOSE);
	o.status = 2; /* ENOENT */
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	o = op_of(RP_OP_CLOSE, 1, 9, 0);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	o = op_of(RP_OP_OPEN, 1, 9, RP_OF_DELETE_ON_CLOSE);
	o.status = 2; /* ENOENT */
	assert_int_equal(rp_doc_track_apply(&t, &o), RP_OP__COUNT);
	o = op_of(RP_OP_CLOSE, 1, 9, 0);
	assert_int_equal(rp_doc_track_apply(&t, &o), RP_OP_UNLINK);
	rp_doc_track_free(&t);
}

/* A long trace of opens and closes keeps a table the size of what is open at once. */
static void table_follows_open_handles(void **state)
{
	(void)state;
	rp_doc_track t = { 0 };
	for (uint64_t h = 1; h <= 2000000; h++) {
		rp_op o = op_of(RP_OP_OPEN, (uint32_t)(h % 3), h, RP_OF_DIRECTORY);
		assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
		if (h > 10) { /* ten open at once */
			o = op_of(RP_OP_CLOSE, (uint32_t)((h - 10) % 3), h - 10, 0);
			assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
		}
	}
	assert_int_equal(t.live, 10);
	assert_true(t.cap <= 64);
	rp_doc_track_free(&t);
}

/* More handles open at once than the limit: RP_E_LIMIT, and closing makes room again. */
static void limit(void **state)
{
	(void)state;
	rp_doc_track t = { 0 };
	uint64_t h = 1;
	for (; h <= RP_DOC_TRACK_MAX; h++) {
		rp_op o = op_of(RP_OP_OPEN, 0, h, RP_OF_DELETE_ON_CLOSE);
		assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	}
	rp_op o = op_of(RP_OP_OPEN, 0, h, RP_OF_DELETE_ON_CLOSE);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_E_LIMIT);
	assert_true(t.cap <= 4 * RP_DOC_TRACK_MAX);
	o = op_of(RP_OP_CLOSE, 0, 1, 0);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP_UNLINK);
	o = op_of(RP_OP_OPEN, 0, h, RP_OF_DELETE_ON_CLOSE);
	assert_int_equal(rp_doc_track_op(&t, &o), RP_OP__COUNT);
	rp_doc_track_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(closes_delete),
		cmocka_unit_test(table_follows_open_handles),
		cmocka_unit_test(limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
