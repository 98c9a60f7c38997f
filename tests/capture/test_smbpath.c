/* SMB wire names -> reprise paths: the ASCII fast path and the general decoder agree where they meet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "capture/smb/smb_int.h"

/* UTF-16LE of an ASCII-or-\uXXXX string given as code units. */
static size_t u16(uint8_t *out, const uint16_t *units, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = (uint8_t)units[i];
		out[2 * i + 1] = (uint8_t)(units[i] >> 8);
	}
	return 2 * n;
}

static void check16(const uint16_t *units, size_t n, const char *want)
{
	uint8_t wire[256];
	char out[SMB_PATH_MAX];
	const size_t len = u16(wire, units, n);
	assert_int_equal(rp__smb_path(out, wire, len, true), (int)strlen(want));
	assert_string_equal(out, want);
}

static void utf16_names(void **state)
{
	(void)state;
	const uint16_t a[] = { 'd', 'i', 'r', '\\', 'f', '.', 't', 'x', 't' };
	check16(a, 9, "/dir/f.txt");
	const uint16_t b[] = { '\\', '\\', 'a', '\\', '\\', 'b', '\\' };
	check16(b, 7, "/a/b");
	/* non-ASCII in the middle, separators on both sides of it */
	const uint16_t c[] = { 'a', '\\', 0x00e9, '\\', '\\', 'z', 0x20ac, '\\', 'q' };
	check16(c, 9, "/a/\xc3\xa9/z\xe2\x82\xac/q");
	/* a surrogate pair, a lone surrogate, then a NUL that ends the name */
	const uint16_t d[] = { 'x', 0xd83d, 0xde00, 0xdc00, 'y', 0, 'n' };
	check16(d, 7, "/x\xf0\x9f\x98\x80\xef\xbf\xbdy");
	const uint16_t e[] = { 0 };
	check16(e, 1, "/");
	check16(e, 0, "/");
	/* an odd byte count: the last byte is ignored */
	uint8_t odd[3] = { 'k', 0, 'j' };
	char out[SMB_PATH_MAX];
	assert_int_equal(rp__smb_path(out, odd, 3, true), 2);
	assert_string_equal(out, "/k");
}

static void oem_names_and_limits(void **state)
{
	(void)state;
	char out[SMB_PATH_MAX];
	const uint8_t a[] = { 'a', '\\', 0xe9, '\\', 'b', 0, 'c' };
	assert_int_equal(rp__smb_path(out, a, sizeof a, false), 7);
	assert_string_equal(out, "/a/\xc3\xa9/b");
	static uint8_t longname[2 * SMB_PATH_MAX];
	memset(longname, 'x', sizeof longname);
	assert_int_equal(rp__smb_path(out, longname, SMB_PATH_MAX, false), -1);
	assert_int_equal(rp__smb_path(out, longname, SMB_PATH_MAX - 10, false), SMB_PATH_MAX - 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(utf16_names),
		cmocka_unit_test(oem_names_and_limits),
	};
	return cmocka_run_group_tests_name("capture-smbpath", tests, NULL, NULL);
}
