/* The shared option descriptor (formats/optdesc.h): each kind's parser, bounds, errors, formatting and help terms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/error.h"
#include "formats/optdesc.h"

static const char *const modes[] = { "afap", "trace", "think", NULL };

/* Parse text against o: rc, and v and the message. */
static int parse(const rp_optdesc *o, const char *text, rp_optval *v, char *eb)
{
	eb[0] = '\0';
	return rp_optdesc_parse(o, "--x", text, v, eb);
}

static void test_numbers(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	rp_optval v;
	const rp_optdesc u = { .name = "x", .kind = RP_OPT_UINT, .min = 1, .max = 8192 };
	assert_int_equal(parse(&u, "8192", &v, eb), 0);
	assert_int_equal(v.u, 8192);
	assert_int_equal(parse(&u, "0x10", &v, eb), 0);
	assert_int_equal(v.u, 16);
	assert_int_equal(parse(&u, "010", &v, eb), 0); /* decimal, never octal */
	assert_int_equal(v.u, 10);
	assert_int_equal(parse(&u, "8193", &v, eb), RP_E_RANGE);
	assert_string_equal(eb, "--x: 8193 is out of range (1 to 8192)");
	assert_int_equal(parse(&u, "-5", &v, eb), RP_E_RANGE);
	assert_string_equal(eb, "--x: -5 is out of range (1 to 8192)");
	assert_int_equal(parse(&u, "99999999999999999999", &v, eb), RP_E_RANGE);
	assert_int_equal(parse(&u, "5x", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x: '5x' is not a whole number (decimal, or hex with 0x)");
	assert_int_equal(parse(&u, "", &v, eb), RP_E_INVAL);
	const rp_optdesc any = { .name = "x", .kind = RP_OPT_UINT, .min = 1 }; /* max 0: no upper bound */
	assert_int_equal(parse(&any, "18446744073709551615", &v, eb), 0);
	assert_true(v.u == UINT64_MAX);
	assert_int_equal(parse(&any, "0", &v, eb), RP_E_RANGE);
	assert_string_equal(eb, "--x: 0 is out of range (1 to any)");

	const rp_optdesc d = { .name = "x", .kind = RP_OPT_DOUBLE, .min = 1e-6, .max = 1e9 };
	assert_int_equal(parse(&d, "1e-6", &v, eb), 0);
	assert_true(v.d == 1e-6);
	assert_int_equal(parse(&d, "2.5", &v, eb), 0);
	assert_true(v.d == 2.5);
	assert_int_equal(parse(&d, "0", &v, eb), RP_E_RANGE);
	assert_string_equal(eb, "--x: 0 is out of range (1e-06 to 1000000000)");
	assert_int_equal(parse(&d, "-2", &v, eb), RP_E_RANGE);
	static const char *const bad[] = { "nan", "inf", "0x1p3", " 1", ".", "1e", "e5", "1,5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const int rc = parse(&d, bad[i], &v, eb);
		if (rc != RP_E_INVAL)
			fail_msg("'%s': rc %d '%s'", bad[i], rc, eb);
	}
	assert_int_equal(parse(&d, "1.", &v, eb), 0); /* as strtod reads it */
	assert_int_equal(parse(&d, "nan", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x: 'nan' is not a number");
}

/* A whole number with a word besides (--max-inflight N|auto): the word is 0, numbers keep their bounds. */
static void test_number_or_word(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	rp_optval v = { 7, 7 };
	const rp_optdesc u = { .name = "x", .kind = RP_OPT_UINT, .min = 1, .max = 1024, .word = "auto" };
	assert_int_equal(parse(&u, "auto", &v, eb), 0);
	assert_int_equal(v.u, 0);
	assert_int_equal(parse(&u, "16", &v, eb), 0);
	assert_int_equal(v.u, 16);
	assert_int_equal(parse(&u, "0", &v, eb), RP_E_RANGE); /* 0 only as the word */
	assert_int_equal(parse(&u, "Auto", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x: 'Auto' is not a whole number (decimal, or hex with 0x) or auto");
	char terms[128];
	rp_optdesc_terms(&u, terms, sizeof(terms));
	assert_string_equal(terms, "uint or auto, 1 to 1024");
}

static void test_durations(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	rp_optval v;
	const rp_optdesc t = { .name = "x", .kind = RP_OPT_DURATION, .min = 1e-3, .max = 1e8 };
	static const struct {
		const char *text;
		double s;
		uint64_t ns;
	} good[] = {
		{ "10", 10, 10000000000u }, { "1.5s", 1.5, 1500000000u }, { "250ms", 0.25, 250000000u },
		{ "2m", 120, 120000000000u }, { "1h", 3600, 3600000000000u }, { "1000us", 1e-3, 1000000u },
		{ "1e-3", 1e-3, 1000000u }, { "1000000ns", 1e-3, 1000000u }, { "100000000", 1e8, 100000000000000000u },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (parse(&t, good[i].text, &v, eb) != 0 || v.d != good[i].s || v.u != good[i].ns)
			fail_msg("'%s': '%s' %.17g s %llu ns", good[i].text, eb, v.d, (unsigned long long)v.u);
	}
	assert_int_equal(parse(&t, "0", &v, eb), RP_E_RANGE);
	assert_string_equal(eb, "--x: 0 is out of range (1ms to 100000000s)");
	assert_int_equal(parse(&t, "999us", &v, eb), RP_E_RANGE);
	assert_int_equal(parse(&t, "-5", &v, eb), RP_E_RANGE);
	assert_int_equal(parse(&t, "1e30", &v, eb), RP_E_RANGE);
	assert_int_equal(parse(&t, "5parsecs", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x: '5parsecs' is not a duration: 250ms, 1.5s, 2m, 1h (bare: seconds)");
	assert_int_equal(parse(&t, "s", &v, eb), RP_E_INVAL);
}

static void test_sizes(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	rp_optval v;
	const rp_optdesc z = { .name = "x", .kind = RP_OPT_SIZE, .min = 512, .max = (double)(UINT64_C(1) << 30) };
	static const struct {
		const char *text;
		uint64_t bytes;
	} good[] = { { "512", 512 }, { "64k", 65536 }, { "64K", 65536 }, { "16M", 16u << 20 }, { "1G", 1u << 30 }, { "0x200", 512 } };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (parse(&z, good[i].text, &v, eb) != 0 || v.u != good[i].bytes)
			fail_msg("'%s': '%s' %llu", good[i].text, eb, (unsigned long long)v.u);
	assert_int_equal(parse(&z, "511", &v, eb), RP_E_RANGE);
	assert_string_equal(eb, "--x: 511 is out of range (512 to 1G)");
	assert_int_equal(parse(&z, "2G", &v, eb), RP_E_RANGE);
	assert_int_equal(parse(&z, "99999999999T", &v, eb), RP_E_RANGE);
	assert_int_equal(parse(&z, "1kb", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x: '1kb' is not a size: 4096, 64k, 16M, 1G");
	assert_int_equal(parse(&z, "1.5M", &v, eb), RP_E_INVAL);
}

static void test_choices_and_flags(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	rp_optval v;
	const rp_optdesc e = { .name = "x", .kind = RP_OPT_ENUM, .choices = modes };
	assert_int_equal(parse(&e, "think", &v, eb), 0);
	assert_int_equal(v.u, 2);
	assert_int_equal(parse(&e, "soon", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x: 'soon' is not one of afap, trace, think");
	assert_int_equal(parse(&e, "AFAP", &v, eb), RP_E_INVAL); /* exact */
	const rp_optdesc b = { .name = "x", .kind = RP_OPT_BOOL };
	assert_int_equal(parse(&b, "Off", &v, eb), 0);
	assert_int_equal(v.u, 0);
	assert_int_equal(parse(&b, "true", &v, eb), 0);
	assert_int_equal(v.u, 1);
	assert_int_equal(parse(&b, "maybe", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x: 'maybe' is not yes/no, true/false, on/off or 1/0");
	const rp_optdesc f = { .name = "x", .kind = RP_OPT_FLAG };
	assert_int_equal(parse(&f, NULL, &v, eb), 0);
	assert_int_equal(v.u, 1);
	assert_int_equal(parse(&f, "1", &v, eb), RP_E_INVAL);
	assert_string_equal(eb, "--x takes no value");
	const rp_optdesc s = { .name = "x", .kind = RP_OPT_STRING };
	assert_int_equal(parse(&s, "", &v, eb), 0); /* any text: its grammar is its user's */
}

static void test_format_and_terms(void **state)
{
	(void)state;
	char buf[128];
	const rp_optdesc t = { .name = "x", .kind = RP_OPT_DURATION };
	rp_optdesc_format(&t, 0.0015, buf, sizeof(buf));
	assert_string_equal(buf, "1500us");
	rp_optdesc_format(&t, 0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	rp_optdesc_format(&t, 3600, buf, sizeof(buf));
	assert_string_equal(buf, "3600s");
	rp_optdesc_format(&t, 1e-10, buf, sizeof(buf));
	assert_string_equal(buf, "1e-10s");
	const rp_optdesc z = { .name = "x", .kind = RP_OPT_SIZE };
	rp_optdesc_format(&z, 65536, buf, sizeof(buf));
	assert_string_equal(buf, "64k");
	rp_optdesc_format(&z, 1000, buf, sizeof(buf));
	assert_string_equal(buf, "1000");
	const rp_optdesc u = { .name = "x", .kind = RP_OPT_UINT, .def = "4", .min = 1, .max = 64 };
	rp_optdesc_terms(&u, buf, sizeof(buf));
	assert_string_equal(buf, "uint, default 4, 1 to 64");
	const rp_optdesc e = { .name = "x", .kind = RP_OPT_ENUM, .choices = modes, .def = "afap" };
	rp_optdesc_terms(&e, buf, sizeof(buf));
	assert_string_equal(buf, "enum, default afap: afap|trace|think");
	rp_optdesc_format(&e, 1, buf, sizeof(buf));
	assert_string_equal(buf, "trace");
	const rp_optdesc l = { .name = "x", .kind = RP_OPT_STRING, .repeat = true };
	rp_optdesc_terms(&l, buf, sizeof(buf));
	assert_string_equal(buf, "string, repeatable");
	const rp_optdesc m = { .name = "x", .kind = RP_OPT_UINT, .min = 1 };
	rp_optdesc_terms(&m, buf, sizeof(buf));
	assert_string_equal(buf, "uint, at least 1");
	assert_string_equal(rp_optdesc_arg(&z), "SIZE");
	assert_string_equal(rp_optkind_name(RP_OPT_ENUM), "enum");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_number_or_word),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_choices_and_flags),
		cmocka_unit_test(test_format_and_terms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
