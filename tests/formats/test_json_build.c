/* The sticky JSON builder (formats/json_build.h): what marks it, what it keeps, counts saturated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/json_build.h"

static char *dumped(const json_t *d)
{
	return json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
}

/* Every step that works leaves the builder clear and the members in place. */
static void builds_clean(void **state)
{
	(void)state;
	rp_jb b = { false };
	json_t *const d = json_object(), *const a = json_array();
	rp_jb_put(&b, d, "n", json_integer(1));
	rp_jb_add(&b, a, json_string("x"));
	rp_jb_add(&b, a, json_null());
	rp_jb_put(&b, d, "a", a);
	assert_false(b.failed);
	char *const s = dumped(d);
	assert_string_equal(s, "{\"a\":[\"x\",null],\"n\":1}");
	free(s);
	json_decref(d);
}

/* A value or container that could not be made, or a key jansson refuses: marked, and it stays marked. */
static void failures_stick(void **state)
{
	(void)state;
	rp_jb b = { false };
	json_t *const d = json_object();
	rp_jb_put(&b, d, "missing", NULL);
	assert_true(b.failed);
	rp_jb_put(&b, d, "fine", json_integer(2)); /* a later good step does not clear it */
	assert_true(b.failed);
	json_decref(d);

	rp_jb c = { false };
	rp_jb_put(&c, NULL, "k", json_null());
	assert_true(c.failed);
	rp_jb e = { false };
	rp_jb_add(&e, NULL, json_null());
	assert_true(e.failed);
	rp_jb f = { false };
	json_t *const arr = json_array();
	rp_jb_add(&f, arr, NULL);
	assert_true(f.failed);
	assert_int_equal(json_array_size(arr), 0);
	json_decref(arr);

	/* a key that is not UTF-8 is refused by jansson */
	rp_jb g = { false };
	json_t *const o = json_object();
	rp_jb_put(&g, o, "\xff", json_integer(1));
	assert_true(g.failed);
	assert_int_equal(json_object_size(o), 0);
	json_decref(o);
}

/* Counts above INT64_MAX are written as INT64_MAX, never wrapped negative. */
static void u64_saturates(void **state)
{
	(void)state;
	const uint64_t in[] = { 0, 1, (uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX };
	const json_int_t want[] = { 0, 1, INT64_MAX, INT64_MAX, INT64_MAX };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		json_t *const v = rp_jb_u64(in[i]);
		assert_non_null(v);
		assert_true(json_integer_value(v) == want[i]);
		json_decref(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builds_clean),
		cmocka_unit_test(failures_stick),
		cmocka_unit_test(u64_saturates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
