/* capture/lttng/lttng_events.h: every tracepoint of the provider is named as RP_SYSEV_MAP names its kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture/lttng/lttng_events.h"

static const char *map_name(unsigned nr)
{
	switch (nr) {
#define NAME(e, n, name) \
	case n:          \
		return name;
		RP_SYSEV_MAP(NAME)
#undef NAME
	default:
		return NULL;
	}
}

static void names_agree(void **state)
{
	(void)state;
	unsigned n = 0;
#define CHECK(e, name)                                              \
	assert_non_null(map_name(RP_SYSEV_##e));                    \
	assert_string_equal(map_name(RP_SYSEV_##e), #name);         \
	n++;
	RP_LTTNG_EVENTS(CHECK)
#undef CHECK
	unsigned m = 0;
#define COUNT(e, nr, name) m++;
	RP_SYSEV_MAP(COUNT)
#undef COUNT
	assert_int_equal(n, m);
	assert_true(n > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
