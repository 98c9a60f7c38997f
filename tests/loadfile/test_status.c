/* Unit tests: the status tables (every row round trips, names parse back, unknown codes). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/status.h"

static void test_rows_sorted_and_unique(void **state)
{
	(void)state;
	const size_t n = rp__status_row_count();
	assert_true(n > 200);
	unsigned pk = 0;
	uint32_t pc = 0;
	for (size_t i = 0; i < n; i++) {
		rp_status_kind kind;
		uint32_t code;
		int32_t canon;
		int pref;
		const char *name;
		assert_int_equal(rp__status_row(i, &kind, &code, &canon, &pref, &name), 0);
		if (i > 0)
			assert_true((unsigned)kind > pk || ((unsigned)kind == pk && code > pc));
		pk = (unsigned)kind;
		pc = code;
	}
	rp_status_kind kind;
	uint32_t code;
	int32_t canon;
	int pref;
	const char *name;
	assert_int_equal(rp__status_row(n, &kind, &code, &canon, &pref, &name), -1);
}

static void test_every_row_round_trips(void **state)
{
	(void)state;
	for (size_t i = 0; i < rp__status_row_count(); i++) {
		rp_status_kind kind;
		uint32_t code, back;
		int32_t canon;
		int pref;
		const char *name;
		rp__status_row(i, &kind, &code, &canon, &pref, &name);
		assert_int_equal(rp_status_from_proto(kind, code), canon);
		assert_string_equal(rp_status_proto_name(kind, code), name);
		assert_int_equal(rp_status_proto_parse(kind, name, strlen(name), &back), 0);
		assert_int_equal(back, code);
		/* the representative of the row's canonical status maps back to it (no reply: success) */
		if (canon != RP_STATUS_UNKNOWN)
			assert_int_equal(rp_status_from_proto(kind, rp_status_to_proto(kind, canon)), canon);
		if (pref)
			assert_int_equal(rp_status_to_proto(kind, canon), code);
		/* every canonical errno has a name */
		if (canon >= 0)
			assert_non_null(rp_status_name(canon));
		if (kind == RP_SK_ERRNO) {
			int32_t c;
			assert_int_equal(rp_status_from_name(name, strlen(name), &c), 0);
			assert_int_equal(c, canon);
			assert_string_equal(rp_status_name(canon), name);
		}
	}
}

/* Exactly one preferred row per (kind, canonical status), for every status a kind uses. */
static void test_one_preferred_per_status(void **state)
{
	(void)state;
	const size_t n = rp__status_row_count();
	for (size_t i = 0; i < n; i++) {
		rp_status_kind ki;
		uint32_t ci;
		int32_t si;
		int pi;
		const char *ni;
		rp__status_row(i, &ki, &ci, &si, &pi, &ni);
		if (si == RP_STATUS_UNKNOWN)
			continue;
		int prefs = 0;
		for (size_t j = 0; j < n; j++) {
			rp_status_kind kj;
			uint32_t cj;
			int32_t sj;
			int pj;
			const char *nj;
			rp__status_row(j, &kj, &cj, &sj, &pj, &nj);
			prefs += kj == ki && sj == si && pj;
		}
		if (prefs != 1)
			fail_msg("%s: %d preferred rows for its status", ni, prefs);
	}
}

static void test_named_examples(void **state)
{
	(void)state;
	assert_int_equal(rp_status_from_proto(RP_SK_NT, 0xC0000034), ENOENT);
	assert_int_equal(rp_status_from_proto(RP_SK_NT, 0xC000000F), ENOENT);
	assert_int_equal(rp_status_from_proto(RP_SK_NT, 0xC000003A), ENOENT);
	assert_int_equal(rp_status_to_proto(RP_SK_NT, ENOENT), 0xC0000034u);
	assert_int_equal(rp_status_to_proto(RP_SK_NFS3, ENOENT), 2);
	assert_int_equal(rp_status_to_proto(RP_SK_NFS4, EACCES), 13);
	assert_int_equal(rp_status_to_proto(RP_SK_NT, EACCES), 0xC0000022u);
	assert_int_equal(rp_status_from_proto(RP_SK_NFS3, 70), ESTALE);
	assert_int_equal(rp_status_from_proto(RP_SK_NFS4, 10008), EAGAIN);
	assert_string_equal(rp_status_proto_name(RP_SK_NT, 0), "NT_STATUS_OK");
	assert_string_equal(rp_status_proto_name(RP_SK_NFS3, 0), "NFS3_OK");
	assert_string_equal(rp_status_proto_name(RP_SK_NFS4, 0), "NFS4_OK");
	assert_string_equal(rp_status_proto_name(RP_SK_NFS3, 2), "NFS3ERR_NOENT");
	assert_string_equal(rp_status_proto_name(RP_SK_NFS4, 10052), "NFS4ERR_BADSESSION");
	assert_string_equal(rp_status_proto_name(RP_SK_ERRNO, ENOENT), "ENOENT");
	assert_string_equal(rp_status_name(0), "OK");
	assert_string_equal(rp_status_name(RP_STATUS_UNKNOWN), "UNKNOWN");
	assert_string_equal(rp_status_name(RP_STATUS_OTHER), "OTHER");
}

/* Every status in dbench's client.txt and in the sample captures' tshark decodes has a row. */
static void test_covers_samples(void **state)
{
	(void)state;
	static const char *const client_txt[] = { "NT_STATUS_OK", "NT_STATUS_NO_SUCH_FILE",
						  "NT_STATUS_OBJECT_NAME_NOT_FOUND", "NT_STATUS_OBJECT_PATH_NOT_FOUND" };
	for (size_t i = 0; i < sizeof(client_txt) / sizeof(client_txt[0]); i++) {
		uint32_t code;
		assert_int_equal(rp_status_proto_parse(RP_SK_NT, client_txt[i], strlen(client_txt[i]), &code), 0);
	}
	static const uint32_t pcap_nt[] = { 0x00000000, 0xc0000022, 0xc0000128, 0xc0000034, 0x80000006, 0xc0000016,
					    0xc000000f, 0x00000103, 0x0000010c, 0xc0000011, 0xc000006d, 0xc0000225,
					    0xc000019c, 0xc0000120, 0xc00000e5, 0xc00000ba, 0xc0000010 };
	for (size_t i = 0; i < sizeof(pcap_nt) / sizeof(pcap_nt[0]); i++)
		assert_non_null(rp_status_proto_name(RP_SK_NT, pcap_nt[i]));
	assert_non_null(rp_status_proto_name(RP_SK_NFS3, 0));
	assert_non_null(rp_status_proto_name(RP_SK_NFS3, 2));
	assert_non_null(rp_status_proto_name(RP_SK_NFS4, 0));
}

static void test_unknown_codes(void **state)
{
	(void)state;
	assert_int_equal(rp_status_from_proto(RP_SK_NT, 0xC0001234), RP_STATUS_OTHER);
	assert_int_equal(rp_status_from_proto(RP_SK_NT, 0x80001234), RP_STATUS_OTHER);
	assert_int_equal(rp_status_from_proto(RP_SK_NT, 0x00001234), RP_STATUS_OK);
	assert_int_equal(rp_status_from_proto(RP_SK_NT, 0x40001234), RP_STATUS_OK);
	assert_int_equal(rp_status_from_proto(RP_SK_NFS3, 9999), RP_STATUS_OTHER);
	assert_int_equal(rp_status_from_proto(RP_SK_NFS4, 20000), RP_STATUS_OTHER);
	assert_int_equal(rp_status_from_proto(RP_SK_ERRNO, 200), 200);
	assert_int_equal(rp_status_from_proto(RP_SK_ERRNO, 100000), RP_STATUS_OTHER);
	assert_int_equal(rp_status_from_proto(RP_SK_NONE, 0), RP_STATUS_UNKNOWN);
	assert_int_equal(rp_status_from_proto((rp_status_kind)99, 0), RP_STATUS_UNKNOWN);
	assert_null(rp_status_proto_name(RP_SK_NT, 0xC0001234));
	assert_null(rp_status_proto_name(RP_SK_NONE, 0));
	assert_null(rp_status_name(200));
	assert_null(rp_status_name(-7));
	/* statuses with no row of their own map to the generic failure */
	assert_int_equal(rp_status_to_proto(RP_SK_NT, ESTALE), 0xC0000001u);
	assert_int_equal(rp_status_to_proto(RP_SK_NT, RP_STATUS_OTHER), 0xC0000001u);
	assert_int_equal(rp_status_to_proto(RP_SK_NFS3, RP_STATUS_OTHER), 10006);
	assert_int_equal(rp_status_to_proto(RP_SK_NFS3, ECONNRESET), 10006);
	assert_int_equal(rp_status_to_proto(RP_SK_NFS4, RP_STATUS_OTHER), 10006);
	assert_int_equal(rp_status_to_proto(RP_SK_NT, RP_STATUS_UNKNOWN), 0);
	assert_int_equal(rp_status_to_proto(RP_SK_ERRNO, RP_STATUS_OTHER), EIO);
	assert_int_equal(rp_status_to_proto(RP_SK_ERRNO, 200), 200);
	assert_int_equal(rp_status_to_proto(RP_SK_NONE, ENOENT), 0);
}

static void test_parse(void **state)
{
	(void)state;
	uint32_t code = 0;
	int32_t canon = 0;
#define P(kind, s) rp_status_proto_parse(kind, s, strlen(s), &code)
	assert_int_equal(P(RP_SK_NT, "0xC0000034"), 0);
	assert_int_equal(code, 0xC0000034u);
	assert_int_equal(P(RP_SK_NT, "0xc0000034"), 0);
	assert_int_equal(P(RP_SK_NT, "STATUS_ACCESS_DENIED"), 0);
	assert_int_equal(code, 0xC0000022u);
	assert_int_equal(P(RP_SK_NT, "STATUS_SUCCESS"), 0);
	assert_int_equal(code, 0);
	assert_int_equal(P(RP_SK_NFS3, "0x00000002"), 0);
	assert_int_equal(code, 2);
	assert_int_equal(P(RP_SK_ERRNO, "13"), 0);
	assert_int_equal(code, 13);
	assert_int_equal(P(RP_SK_NT, "0x"), -1);
	assert_int_equal(P(RP_SK_NT, "0xZZ"), -1);
	assert_int_equal(P(RP_SK_NT, "0x123456789"), -1);
	assert_int_equal(P(RP_SK_NT, "NT_STATUS_NO_SUCH_THING"), -1);
	assert_int_equal(P(RP_SK_NT, "NFS3ERR_NOENT"), -1);
	assert_int_equal(P(RP_SK_NFS3, "NT_STATUS_OK"), -1);
	assert_int_equal(P(RP_SK_NT, ""), -1);
	assert_int_equal(P(RP_SK_NONE, "0x0"), -1);
	/* a name is matched by its whole length, not a prefix */
	assert_int_equal(rp_status_proto_parse(RP_SK_NT, "NT_STATUS_OKAY", 12, &code), 0);
	assert_int_equal(code, 0);
#undef P
#define N(s) rp_status_from_name(s, strlen(s), &canon)
	assert_int_equal(N("OK"), 0);
	assert_int_equal(canon, 0);
	assert_int_equal(N("UNKNOWN"), 0);
	assert_int_equal(canon, RP_STATUS_UNKNOWN);
	assert_int_equal(N("OTHER"), 0);
	assert_int_equal(canon, RP_STATUS_OTHER);
	assert_int_equal(N("ENOENT"), 0);
	assert_int_equal(canon, ENOENT);
	assert_int_equal(N("E200"), 0);
	assert_int_equal(canon, 200);
	assert_int_equal(N("E0"), -1);
	assert_int_equal(N("E99999"), -1);
	assert_int_equal(N("E"), -1);
	assert_int_equal(N("NOPE"), -1);
#undef N
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_sorted_and_unique), cmocka_unit_test(test_every_row_round_trips),
		cmocka_unit_test(test_one_preferred_per_status), cmocka_unit_test(test_named_examples),
		cmocka_unit_test(test_covers_samples), cmocka_unit_test(test_unknown_codes),
		cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
