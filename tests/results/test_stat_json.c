/*
 * Unit tests of results/stat_json.c and stat_diff.c's parts that need no
 * trace: the one JSON writer reports an incomplete document or a failed write
 * as an error with its message (it prints nothing itself), names become valid
 * UTF-8, and --ops's list is parsed with the bad name said.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "results/stat_diff.h"
#include "results/stat_json.h"

static void the_writer_indents_and_ends_with_a_newline(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *const f = open_memstream(&buf, &len);
	assert_non_null(f);
	char err[128] = "";
	assert_int_equal(rp__res_json_dump(json_pack("{s:i}", "a", 1), false, f, err, sizeof(err)), 0);
	fclose(f);
	assert_string_equal(buf, "{\n  \"a\": 1\n}\n");
	assert_string_equal(err, "");
	free(buf);
}

static void an_incomplete_document_is_an_error_not_output(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *const f = open_memstream(&buf, &len);
	assert_non_null(f);
	char err[128] = "";
	assert_int_equal(rp__res_json_dump(json_pack("{s:i}", "a", 1), true, f, err, sizeof(err)), -1);
	assert_string_equal(err, "out of memory");
	assert_int_equal(rp__res_json_dump(NULL, false, f, err, sizeof(err)), -1);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
}

static void names_are_valid_utf8(void **state)
{
	(void)state;
	json_t *const v = rp__res_json_name("a\x1b[2J\xff", 6);
	assert_non_null(v);
	const char *const s = json_string_value(v);
	assert_null(strchr(s, '\x1b'));
	assert_non_null(strstr(s, "\\x1b"));
	assert_non_null(strstr(s, "\\xff"));
	json_decref(v);
}

static void ops_lists_name_the_bad_op(void **state)
{
	(void)state;
	rp_stat_diff_opts o;
	memset(&o, 0, sizeof(o));
	char eb[256];
	assert_int_equal(rp__res_stat_diff_ops("read,write", &o, eb, sizeof(eb)), 0);
	assert_true(o.restricted);
	assert_true(o.ops[RP_OP_READ] && o.ops[RP_OP_WRITE] && !o.ops[RP_OP_OPEN]);
	memset(&o, 0, sizeof(o));
	assert_int_equal(rp__res_stat_diff_ops("read,bogus", &o, eb, sizeof(eb)), -1);
	assert_non_null(strstr(eb, "'bogus' is no op name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_writer_indents_and_ends_with_a_newline),
		cmocka_unit_test(an_incomplete_document_is_an_error_not_output),
		cmocka_unit_test(names_are_valid_utf8),
		cmocka_unit_test(ops_lists_name_the_bad_op),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
