/* Unit tests of formats/posixsem.c: open flags of every disposition and want, granted wants, find patterns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <string.h>

#include "formats/posixsem.h"

static void every_disposition_has_its_flags(void **state)
{
	(void)state;
	static const struct {
		unsigned disp;
		int flags;
	} t[] = {
		{ RP_DISP_OPEN, 0 },
		{ RP_DISP_CREATE, O_CREAT | O_EXCL },
		{ RP_DISP_OPEN_IF, O_CREAT },
		{ RP_DISP_TRUNC, O_TRUNC },
		{ RP_DISP_TRUNC_IF, O_CREAT | O_TRUNC },
		{ RP_DISP_SUPERSEDE, O_CREAT | O_TRUNC },
		{ RP_DISP__COUNT, 0 },
		{ 200, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(rp_disp_oflags(t[i].disp), t[i].flags);
		const rp_op op = { .op = RP_OP_OPEN, .disp = (uint8_t)t[i].disp, .want = RP_WANT_KNOWN | RP_WANT_READ };
		assert_int_equal(rp_open_plan_of(&op).flags, O_RDONLY | t[i].flags);
	}
}

static void the_access_mode_follows_the_wants(void **state)
{
	(void)state;
	static const struct {
		uint32_t want;
		int acc;
		bool fallback_ro, meta_only;
	} t[] = {
		{ 0, O_RDWR, true, false }, /* not recorded */
		{ RP_WANT_READ | RP_WANT_WRITE, O_RDWR, true, false }, /* bits without KNOWN are not a record */
		{ RP_WANT_KNOWN | RP_WANT_MAX, O_RDWR, true, false },
		{ RP_WANT_KNOWN | RP_WANT_MAX | RP_WANT_READ, O_RDWR, true, false },
		{ RP_WANT_KNOWN | RP_WANT_READ, O_RDONLY, false, false },
		{ RP_WANT_KNOWN | RP_WANT_EXEC, O_RDONLY, false, false },
		{ RP_WANT_KNOWN | RP_WANT_WRITE, O_WRONLY, false, false },
		{ RP_WANT_KNOWN | RP_WANT_APPEND, O_WRONLY, false, false },
		{ RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_APPEND, O_RDWR, false, false },
		{ RP_WANT_KNOWN | RP_WANT_EXEC | RP_WANT_WRITE, O_RDWR, false, false },
		{ RP_WANT_KNOWN, O_RDONLY, false, true },
		{ RP_WANT_KNOWN | RP_WANT_READ_ATTR | RP_WANT_DELETE, O_RDONLY, false, true },
		{ RP_WANT_KNOWN | RP_WANT_WRITE_ATTR | RP_WANT_WRITE_SEC, O_RDONLY, false, true },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const rp_op op = { .op = RP_OP_OPEN, .disp = RP_DISP_OPEN_IF, .want = t[i].want };
		const rp_open_plan p = rp_open_plan_of(&op);
		assert_int_equal(p.flags, t[i].acc | O_CREAT);
		assert_int_equal(p.fallback_ro, t[i].fallback_ro);
		assert_int_equal(p.meta_only, t[i].meta_only);
		assert_false(p.dir);
		assert_false(p.not_dir);
	}
}

static void open_flags_and_directories(void **state)
{
	(void)state;
	static const struct {
		uint32_t oflags, opflags;
		int extra;
		bool dir, not_dir;
	} t[] = {
		{ RP_OF_APPEND, 0, O_APPEND, false, false },
		{ RP_OF_SYNC, 0, O_SYNC, false, false },
		{ RP_OF_NOFOLLOW, 0, O_NOFOLLOW, false, false },
		{ RP_OF_APPEND | RP_OF_SYNC | RP_OF_NOFOLLOW, 0, O_APPEND | O_SYNC | O_NOFOLLOW, false, false },
		/* Kept as provenance or for other layers: no open(2) flag. */
		{ RP_OF_DELETE_ON_CLOSE | RP_OF_NT | RP_OF_CLOEXEC | RP_OF_DIRECT | RP_OF_EXCL_VERIFY, 0, 0, false, false },
		{ RP_OF_DIRECTORY, 0, 0, true, false },
		{ 0, RP_OPF_DIRECTORY, 0, true, false },
		{ RP_OF_NOT_DIRECTORY, 0, 0, false, true },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const rp_op op = { .op = RP_OP_OPEN, .disp = RP_DISP_OPEN, .want = RP_WANT_KNOWN | RP_WANT_WRITE,
				   .oflags = t[i].oflags, .flags = t[i].opflags };
		const rp_open_plan p = rp_open_plan_of(&op);
		assert_int_equal(p.flags, O_WRONLY | t[i].extra);
		assert_int_equal(p.dir, t[i].dir);
		assert_int_equal(p.not_dir, t[i].not_dir);
	}
}

static void granted_wants_follow_the_access_mode(void **state)
{
	(void)state;
	const uint32_t base = RP_WANT_KNOWN | RP_WANT_READ_ATTR | RP_WANT_WRITE_ATTR | RP_WANT_DELETE;
	assert_int_equal(rp_granted_of(O_RDONLY), base | RP_WANT_READ | RP_WANT_EXEC);
	assert_int_equal(rp_granted_of(O_WRONLY), base | RP_WANT_WRITE | RP_WANT_APPEND);
	assert_int_equal(rp_granted_of(O_RDWR), base | RP_WANT_READ | RP_WANT_EXEC | RP_WANT_WRITE | RP_WANT_APPEND);
	/* Only the access mode counts. */
	assert_int_equal(rp_granted_of(O_WRONLY | O_CREAT | O_TRUNC | O_APPEND), rp_granted_of(O_WRONLY));
	assert_int_equal(rp_granted_of(O_RDONLY | O_EXCL | O_NOFOLLOW), rp_granted_of(O_RDONLY));
}

static void find_patterns_match_as_smb_servers_do(void **state)
{
	(void)state;
	static const struct {
		const char *pattern, *name;
		bool match;
	} t[] = {
		/* Plain characters: themselves, ASCII case-insensitively. */
		{ "a.txt", "a.txt", true },
		{ "A.TXT", "a.txt", true },
		{ "a.txt", "a.txt2", false },
		{ "a.txt", "a.tx", false },
		{ "", "", true },
		{ "", "a", false },
		{ "\xc3\x89", "\xc3\xa9", false }, /* no folding beyond ASCII */
		/* fnmatch's own specials are plain: `del a[1].txt` sends the name. */
		{ "a[1].txt", "a[1].txt", true },
		{ "a[1].txt", "a1.txt", false },
		{ "a\\b", "a\\b", true },
		{ "a\\*", "a\\x", true },
		{ "a\\*", "a*", false },
		/* '*': any run, dots and a leading '.' too. */
		{ "*", "", true },
		{ "*", ".hidden", true },
		{ "*", ".", true },
		{ "*.txt", "a.b.txt", true },
		{ "*.txt", "a.txt.bak", false },
		{ "*.*", "noext", false },
		{ "a*b*c", "aXbYbZc", true },
		{ "a*b*c", "aXbYbZ", false },
		{ "**", "x", true },
		/* '?': exactly one character. */
		{ "?", "a", true },
		{ "?", "", false },
		{ "a?c", "abc", true },
		{ "a?c", "a.c", true },
		{ "a??", "ab", false },
		/* '<' (DOS_STAR): up to the last '.' or through it, not past it; with no '.', the whole name. */
		{ "<b", "a.b", true },
		{ "<c", "a.b.c", true },
		{ "<b", "a.b.c", false },
		{ "<bc", "a.bc", true },
		{ "<", "abc", true },
		{ "<", "a.b", false },
		{ "<.txt", "a.b.txt", true },
		{ "<.txt", "a.txt", true },
		{ "<.txt", ".txt", true },
		{ "<.b", "a.b.c", false },
		{ "<.c", "a.b.c", true },
		{ "<\"<", "a.b", true },
		{ "a.<", "a.bc", true },
		/* '>' (DOS_QM): one character, or none at a '.' or the end. */
		{ ">", "a", true },
		{ ">", "", true },
		{ ">", "ab", false },
		{ "a>>>", "a", true },
		{ "a>>>", "abc", true },
		{ "a>>>", "abcd", true },
		{ "a>>>", "abcde", false },
		{ ">>>.txt", "ab.txt", true },
		{ ">.txt", "ab.txt", false },
		{ ">", ".", false },
		/* '"' (DOS_DOT): a '.', or nothing at the end of the name. */
		{ "a\"txt", "a.txt", true },
		{ "a\"txt", "aXtxt", false },
		{ "foo\"", "foo", true },
		{ "foo\"", "foo.", true },
		{ "foo\"*", "foo", true },
		{ "foo\"*", "foobar", false },
		{ "foo\"*", "foo.bar", true },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (rp_find_match(t[i].pattern, t[i].name) != t[i].match)
			fail_msg("pattern '%s' name '%s': expected %s", t[i].pattern, t[i].name,
				 t[i].match ? "a match" : "none");
	}
}

static void long_names_and_patterns(void **state)
{
	(void)state;
	char name[RP_FIND_NAME_MAX + 2], pat[300];
	memset(name, 'a', RP_FIND_NAME_MAX);
	name[RP_FIND_NAME_MAX] = '\0';
	assert_true(rp_find_match("*", name));
	assert_true(rp_find_match("a*a<>", name));
	name[RP_FIND_NAME_MAX] = 'a';
	name[RP_FIND_NAME_MAX + 1] = '\0';
	assert_false(rp_find_match("*", name)); /* longer than any file system's name */
	/* Many stars against a name that misses at the end: no backtracking blow-up. */
	for (size_t i = 0; i < sizeof(pat) - 2; i++)
		pat[i] = i % 2 ? '*' : 'a';
	pat[sizeof(pat) - 2] = 'b';
	pat[sizeof(pat) - 1] = '\0';
	name[RP_FIND_NAME_MAX] = '\0';
	assert_false(rp_find_match(pat, name));
}

static void dots_of_a_listing(void **state)
{
	(void)state;
	static const struct {
		const char *pattern;
		unsigned dots;
	} t[] = {
		{ "*", 2 }, { "?", 1 }, { "??", 1 }, { ".", 1 }, { "..", 1 }, { "*.", 2 },
		{ "a*", 0 }, { ">>", 0 }, { "\"", 1 }, { "x", 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (rp_find_dots(t[i].pattern) != t[i].dots)
			fail_msg("pattern '%s': %u dots, expected %u", t[i].pattern, rp_find_dots(t[i].pattern), t[i].dots);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_disposition_has_its_flags),
		cmocka_unit_test(the_access_mode_follows_the_wants),
		cmocka_unit_test(open_flags_and_directories),
		cmocka_unit_test(granted_wants_follow_the_access_mode),
		cmocka_unit_test(find_patterns_match_as_smb_servers_do),
		cmocka_unit_test(long_names_and_patterns),
		cmocka_unit_test(dots_of_a_listing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
