/* Unit tests of the formats core: errors, cursor, string table, op text form, sniffing, summaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "formats/cursor.h"
#include "formats/error.h"
#include "formats/hash.h"
#include "formats/op.h"
#include "formats/reader.h"
#include "formats/sink.h"
#include "formats/status.h"
#include "formats/strtab.h"
#include "formats/summary.h"

static void errors_have_names_and_messages(void **state)
{
	(void)state;
	assert_string_equal(rp_strerror(RP_E_NOMEM), "out of memory");
	assert_string_equal(rp_err_name(RP_E_CORRUPT), "RP_E_CORRUPT");
	assert_string_equal(rp_err_name(RP_OK), "RP_OK");
	assert_string_equal(rp_strerror(-9999), "unknown error");
	assert_string_equal(rp_err_name(12), "RP_E_UNKNOWN");
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_fail(eb, RP_E_IO, "x.rpz: frame %d", 12), RP_E_IO);
	assert_string_equal(eb, "x.rpz: frame 12");
	assert_int_equal(rp_fail(NULL, RP_E_IO, "no buffer"), RP_E_IO);
}

static void fnv1a64_matches_the_spec(void **state)
{
	(void)state;
	/* Test vectors of 64-bit FNV-1a (draft-eastlake-fnv): a wrong basis or prime shows at once. */
	assert_true(RP_FNV64_OFFSET == 14695981039346656037ull);
	assert_true(RP_FNV64_PRIME == 1099511628211ull);
	assert_true(rp_fnv1a64(RP_FNV64_OFFSET, "", 0) == 0xcbf29ce484222325ull);
	assert_true(rp_fnv1a64(RP_FNV64_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(rp_fnv1a64(RP_FNV64_OFFSET, "foobar", 6) == 0x85944171f73967e8ull);
	/* Continuing a hash is hashing the concatenation. */
	assert_true(rp_fnv1a64(rp_fnv1a64(RP_FNV64_OFFSET, "foo", 3), "bar", 3) == 0x85944171f73967e8ull);
}

static void cursor_reads_and_stops_at_the_end(void **state)
{
	(void)state;
	const uint8_t b[] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01 };
	rp_cur c = rp_cur_make(b, sizeof(b));
	assert_int_equal(rp_cur_be16(&c), 0x1234);
	assert_int_equal(rp_cur_le16(&c), 0x7856);
	assert_int_equal(rp_cur_be32(&c), 0x9abcdef0u);
	assert_int_equal(rp_cur_left(&c), 1);
	assert_false(c.err);
	assert_int_equal(rp_cur_le32(&c), 0); /* only one byte left */
	assert_true(c.err);
	assert_int_equal(rp_cur_u8(&c), 0); /* sticky */
	assert_int_equal(rp_cur_left(&c), 0);

	rp_cur d = rp_cur_make(b, sizeof(b));
	assert_int_equal(rp_cur_be64(&d), 0x123456789abcdef0ull);
	rp_cur sub = rp_cur_sub(&d, 2);
	assert_true(sub.err && d.err);
}

static void cursor_varints_round_trip(void **state)
{
	(void)state;
	const uint64_t values[] = { 0, 1, 127, 128, 300, 1ull << 32, UINT64_MAX };
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint8_t buf[10];
		const size_t n = rp_put_uvarint(buf, values[i]);
		rp_cur c = rp_cur_make(buf, n);
		assert_true(rp_cur_uvarint(&c) == values[i]);
		assert_false(c.err);
		assert_int_equal(rp_cur_left(&c), 0);
		rp_cur cut = rp_cur_make(buf, n - 1);
		(void)rp_cur_uvarint(&cut);
		assert_true(n == 1 || cut.err);
	}
	const uint8_t eleven[11] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	rp_cur c = rp_cur_make(eleven, sizeof(eleven));
	(void)rp_cur_uvarint(&c);
	assert_true(c.err);
}

static void cursor_xdr_opaque_pads(void **state)
{
	(void)state;
	const uint8_t b[] = { 'a', 'b', 'c', 0, 0xff };
	rp_cur c = rp_cur_make(b, sizeof(b));
	const uint8_t *const s = rp_cur_xdr_opaque(&c, 3);
	assert_non_null(s);
	assert_memory_equal(s, "abc", 3);
	assert_int_equal(rp_cur_left(&c), 1);
	rp_cur d = rp_cur_make(b, 3);
	assert_null(rp_cur_xdr_opaque(&d, 3)); /* padding missing */
}

static void strtab_interns_and_grows(void **state)
{
	(void)state;
	rp_strtab *const t = rp_strtab_create();
	assert_non_null(t);
	int added = 0;
	assert_int_equal(rp_strtab_intern(t, "a", 1, &added), 1);
	assert_true(added);
	assert_int_equal(rp_strtab_intern(t, "b", 1, &added), 2);
	assert_int_equal(rp_strtab_intern(t, "a", 1, &added), 1);
	assert_false(added);
	assert_int_equal(rp_strtab_intern(t, "", 0, &added), 3); /* empty strings are strings */
	char buf[32];
	for (int i = 0; i < 100000; i++) {
		const int n = snprintf(buf, sizeof(buf), "/dir/file%d", i);
		assert_int_equal(rp_strtab_intern(t, buf, (uint32_t)n, NULL), 4 + i);
	}
	for (int i = 0; i < 100000; i += 997) {
		const int n = snprintf(buf, sizeof(buf), "/dir/file%d", i);
		assert_int_equal(rp_strtab_intern(t, buf, (uint32_t)n, &added), 4 + i);
		assert_false(added);
		uint32_t len = 0;
		assert_string_equal(rp_strtab_get(t, (uint32_t)(4 + i), &len), buf);
		assert_int_equal(len, n);
	}
	assert_null(rp_strtab_get(t, 0, NULL));
	assert_null(rp_strtab_get(t, rp_strtab_count(t) + 1, NULL));
	const int64_t appended = rp_strtab_append(t, "a", 1); /* append never dedups */
	assert_int_equal(appended, rp_strtab_count(t));
	assert_int_equal(rp_strtab_intern(t, "a", 1, NULL), 1);
	static char big[RP_STR_MAX + 1];
	assert_int_equal(rp_strtab_intern(t, big, sizeof(big), NULL), RP_E_LIMIT);
	rp_strtab_clear(t);
	assert_int_equal(rp_strtab_count(t), 0);
	assert_int_equal(rp_strtab_intern(t, "z", 1, NULL), 1);
	rp_strtab_destroy(t);
	rp_strtab_destroy(NULL);
}

/*
 * A reader appends a file's strings (no index) and a converter then interns
 * into the same table (convert --prepare): the first intern builds the index
 * for every string already there, 1,100 or 50,000 of them, not for 1,024
 * (a full table that the insert probed forever).
 */
static void strtab_interns_after_many_appends(void **state)
{
	(void)state;
	static const uint32_t counts[] = {1023, 1024, 1100, 50000};
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		rp_strtab *const t = rp_strtab_create();
		assert_non_null(t);
		char buf[32];
		for (uint32_t i = 0; i < counts[k]; i++) {
			const int n = snprintf(buf, sizeof(buf), "/pre/%u", i);
			assert_int_equal(rp_strtab_append(t, buf, (uint32_t)n), i + 1);
		}
		int added = 1;
		const int n0 = snprintf(buf, sizeof(buf), "/pre/%u", counts[k] / 2);
		assert_int_equal(rp_strtab_intern(t, buf, (uint32_t)n0, &added), counts[k] / 2 + 1);
		assert_false(added);
		assert_int_equal(rp_strtab_intern(t, "/new", 4, &added), counts[k] + 1);
		assert_true(added);
		for (uint32_t i = 0; i < counts[k]; i += 101) {
			const int n = snprintf(buf, sizeof(buf), "/pre/%u", i);
			assert_int_equal(rp_strtab_intern(t, buf, (uint32_t)n, &added), i + 1);
			assert_false(added);
		}
		rp_strtab_destroy(t);
	}
}

static void op_names_round_trip(void **state)
{
	(void)state;
	static const char *const canonical[] = { "open", "close", "read", "write", "flush", "stat", "setattr",
						 "unlink", "mkdir", "rmdir", "rename", "link", "symlink", "readlink",
						 "readdir", "lock", "unlock", "statfs", "access", "getxattr",
						 "setxattr", "deltree", "sleep" };
	for (size_t i = 0; i < sizeof(canonical) / sizeof(canonical[0]); i++) {
		const int op = rp_op_from_name(canonical[i], strlen(canonical[i]));
		assert_true(op >= 0);
		assert_string_equal(rp_op_name((unsigned)op), canonical[i]);
	}
	assert_int_equal(rp_op_from_name("frobnicate", 10), -1);
	assert_null(rp_op_name(RP_OP__COUNT));
}

static const char *lookup(void *ctx, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(ctx, id, len);
}

static void op_text_form_is_canonical(void **state)
{
	(void)state;
	rp_strtab *const t = rp_strtab_create();
	const uint32_t p = (uint32_t)rp_strtab_intern(t, "/a \"b\"\\\x01", 8, NULL);
	rp_op op = { .t_start = 1500000000, .t_end = 1500001000, .client = 3, .op = RP_OP_WRITE, .handle = 7,
		     .offset = 0, .length = 65536, .result = 65536, .path = p };
	rp_op_set_status(&op, RP_SK_NT, 0);
	char line[512];
	const size_t n = rp_op_format(line, sizeof(line), &op, lookup, t);
	assert_int_equal(n, strlen(line));
	assert_string_equal(line, "1.500000000 1.500001000 c3 write path=\"/a \\\"b\\\"\\\\\\x01\" fh=7 off=0 len=65536 "
				  "ret=65536 -> OK (NT_STATUS_OK)");
	/* Too small a buffer: truncated, NUL-terminated, and the needed size returned. */
	char small[10];
	assert_int_equal(rp_op_format(small, sizeof(small), &op, lookup, t), n);
	assert_int_equal(strlen(small), 9);

	rp_op none = { .t_start = 0, .t_end = RP_TIME_UNKNOWN, .op = RP_OP_STAT, .status = RP_STATUS_UNKNOWN,
		       .flags = RP_OPF_NO_REPLY };
	rp_op_format(line, sizeof(line), &none, lookup, t);
	assert_string_equal(line, "0.000000000 - c0 stat flags=noreply -> UNKNOWN");
	rp_strtab_destroy(t);
}

/* The escaper messages use is the text form's own: ESC and newline come out as \xNN, never raw. */
static void text_escape_matches_the_text_form(void **state)
{
	(void)state;
	char buf[64];
	static const char s[] = "a\033[2J\nb\\\"\xc3\xa9\x7f";
	const size_t n = rp_text_escape(buf, sizeof(buf), s, sizeof(s) - 1, false);
	assert_string_equal(buf, "a\\x1b[2J\\x0ab\\\\\"\\xc3\\xa9\\x7f");
	assert_int_equal(n, strlen(buf));
	rp_text_escape(buf, sizeof(buf), "\"", 1, true);
	assert_string_equal(buf, "\\\"");
	/* Too small: truncated, NUL-terminated, the needed size returned. */
	char small[4];
	assert_int_equal(rp_text_escape(small, sizeof(small), "\033\033", 2, false), 8);
	assert_string_equal(small, "\\x1");
	/* The same bytes in an op's path print the same way. */
	rp_strtab *const t = rp_strtab_create();
	const uint32_t p = (uint32_t)rp_strtab_intern(t, s, sizeof(s) - 1, NULL);
	const rp_op op = { .t_end = RP_TIME_UNKNOWN, .op = RP_OP_STAT, .path = p };
	char line[256], esc[64];
	rp_op_format(line, sizeof(line), &op, lookup, t);
	rp_text_escape(esc, sizeof(esc), s, sizeof(s) - 1, true);
	char want[128];
	snprintf(want, sizeof(want), "path=\"%s\"", esc);
	assert_non_null(strstr(line, want));
	rp_strtab_destroy(t);
}

/*
 * Names in JSON: valid UTF-8 characters stay, everything a terminal or a JSON
 * parser could trip on is \xNN, as the text form writes it.
 */
static void text_escape_utf8_keeps_only_valid_printable_utf8(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain/name.txt", "plain/name.txt" },
		{ "a\\b\"c", "a\\\\b\"c" },                              /* backslash doubled: the escape reads back */
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" }, /* 2, 3, 4 bytes */
		{ "\033[2J\n\x7f", "\\x1b[2J\\x0a\\x7f" },              /* C0 controls and DEL */
		{ "\xc2\x85\xc2\x9b", "\\xc2\\x85\\xc2\\x9b" },         /* C1 controls (NEL, CSI) as UTF-8 */
		{ "\xc2\xa0", "\xc2\xa0" },                              /* U+00A0, the first that is not C1 */
		{ "\x9b\xff\xfe", "\\x9b\\xff\\xfe" },                  /* stray bytes */
		{ "\xc0\xaf\xe0\x80\xaf", "\\xc0\\xaf\\xe0\\x80\\xaf" }, /* overlong forms */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },                  /* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },         /* past U+10FFFF */
		{ "x\xe2\x82", "x\\xe2\\x82" },                         /* cut at the end */
		{ "\xe2\x82" "A", "\\xe2\\x82A" },                      /* cut by an ASCII byte */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];
		const size_t n = rp_text_escape_utf8(buf, sizeof(buf), cases[i].in, strlen(cases[i].in));
		assert_string_equal(buf, cases[i].out);
		assert_int_equal(n, strlen(cases[i].out));
	}
	/* The needed size with no buffer, as rp_text_escape. */
	assert_int_equal(rp_text_escape_utf8(NULL, 0, "\033\xc3\xa9", 3), 6);
}

static void sniffing_tells_formats_apart(void **state)
{
	(void)state;
	const uint8_t rpz[] = { 'R', 'P', 'Z', 0x89, 1 };
	const uint8_t pcap[] = { 0xd4, 0xc3, 0xb2, 0xa1 };
	const uint8_t pcapng[] = { 0x0a, 0x0d, 0x0d, 0x0a };
	assert_int_equal(rp_format_sniff(rpz, sizeof(rpz), NULL), RP_FMT_RPZ);
	assert_int_equal(rp_format_sniff(pcap, sizeof(pcap), NULL), RP_FMT_PCAP);
	assert_int_equal(rp_format_sniff(pcapng, sizeof(pcapng), NULL), RP_FMT_PCAP);
	const char smb[] = "# comment\n\nNTCreateX \"\\a\" 0x1 0x2 1 NT_STATUS_OK\n";
	assert_int_equal(rp_format_sniff(smb, strlen(smb), NULL), RP_FMT_LOADFILE_SMB);
	const char smb_ts[] = "0.001 NTCreateX \"\\a\" 0x1 0x2 1 NT_STATUS_OK\n";
	assert_int_equal(rp_format_sniff(smb_ts, strlen(smb_ts), NULL), RP_FMT_LOADFILE_SMB);
	const char nfs[] = "GETATTR3 \"/x\" 0x00000000\n";
	assert_int_equal(rp_format_sniff(nfs, strlen(nfs), NULL), RP_FMT_LOADFILE_NFS);
	const char nfs_ts[] = "1.5 WRITE3 \"/x\" 0 4096 2 0x00000000\n";
	assert_int_equal(rp_format_sniff(nfs_ts, strlen(nfs_ts), NULL), RP_FMT_LOADFILE_NFS);
	const char strace[] = "1234  1700000000.123456 openat(AT_FDCWD, \"x\", O_RDONLY) = 3 <0.000010>\n";
	assert_int_equal(rp_format_sniff(strace, strlen(strace), NULL), RP_FMT_STRACE);
	/* reprise cat's output was taken for an strace log (two numbers first) */
	const char text[] = "0.004738000 0.005262000 c1 open path=\"/\" fh=1 ret=1 -> OK\n";
	assert_int_equal(rp_format_sniff(text, strlen(text), NULL), RP_FMT_TEXT);
	const char text_untimed[] = "# c\n0.000000000 - c12 stat path=\"/a\" -> OK\n";
	assert_int_equal(rp_format_sniff(text_untimed, strlen(text_untimed), NULL), RP_FMT_TEXT);
}

/*
 * An SMB session that deletes through delete-on-close (at open, or by
 * set-info on an open handle) shows those deletes as unlink and rmdir; a
 * cleared one, a failed close and a handle never opened do not count.
 */
static void summary_counts_deletes_at_close(void **state)
{
	(void)state;
	rp_summary *const s = rp_summary_create();
	const rp_op ops[] = {
		{ .op = RP_OP_OPEN, .handle = 1, .path = 1, .oflags = RP_OF_NT | RP_OF_DELETE_ON_CLOSE },
		{ .op = RP_OP_CLOSE, .handle = 1 },
		{ .op = RP_OP_OPEN, .handle = 2, .path = 2, .oflags = RP_OF_NT | RP_OF_DIRECTORY },
		{ .op = RP_OP_SETATTR, .handle = 2, .attrs = RP_SA_DELETE_SET },
		{ .op = RP_OP_CLOSE, .handle = 2 },
		{ .op = RP_OP_OPEN, .handle = 3, .path = 3, .oflags = RP_OF_NT },
		{ .op = RP_OP_SETATTR, .handle = 3, .attrs = RP_SA_DELETE_SET },
		{ .op = RP_OP_SETATTR, .handle = 3, .attrs = RP_SA_DELETE_CLEAR },
		{ .op = RP_OP_CLOSE, .handle = 3 },
		{ .op = RP_OP_OPEN, .handle = 4, .path = 4, .oflags = RP_OF_DELETE_ON_CLOSE },
		{ .op = RP_OP_CLOSE, .handle = 4, .status = EBADF },
		{ .op = RP_OP_CLOSE, .handle = 9 },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		assert_int_equal(rp_summary_add(s, &ops[i]), 0);
	assert_int_equal(rp_summary_count(s, RP_OP_UNLINK), 1);
	assert_int_equal(rp_summary_count(s, RP_OP_RMDIR), 1);
	rp_summary_view v;
	rp_summary_get(s, &v);
	assert_int_equal(v.at_close[RP_OP_UNLINK], 1);
	assert_int_equal(v.at_close[RP_OP_RMDIR], 1);
	for (unsigned op = 0; op < RP_OP__COUNT; op++)
		if (op != RP_OP_UNLINK && op != RP_OP_RMDIR)
			assert_int_equal(v.at_close[op], 0);
	rp_summary_destroy(s);
}

static void summary_counts_what_matters(void **state)
{
	(void)state;
	rp_summary *const s = rp_summary_create();
	const rp_op ops[] = {
		{ .op = RP_OP_OPEN, .path = 1, .client = 1, .t_start = 0, .t_end = 10 },
		{ .op = RP_OP_WRITE, .client = 1, .length = 4096, .result = 4096, .t_start = 20, .t_end = 30 },
		{ .op = RP_OP_READ, .client = 2, .length = 100, .result = 50, .t_start = 40, .t_end = 2000000040 },
		{ .op = RP_OP_RENAME, .path = 1, .path2 = 2, .client = 2, .status = 2, .t_start = 50,
		  .t_end = RP_TIME_UNKNOWN },
		{ .op = RP_OP_WRITE, .client = 1, .length = 10, .status = RP_STATUS_UNKNOWN, .t_start = 60,
		  .t_end = RP_TIME_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		assert_int_equal(rp_summary_add(s, &ops[i]), 0);
	assert_int_equal(rp_summary_ops(s), 5);
	assert_int_equal(rp_summary_count(s, RP_OP_WRITE), 2);
	rp_summary_view v;
	rp_summary_get(s, &v);
	assert_int_equal(v.ops, 5);
	assert_int_equal(v.clients, 2);
	assert_int_equal(v.files, 2);
	assert_int_equal(v.bytes_read, 50);
	assert_int_equal(v.bytes_written, 4106); /* the unanswered write carried its data */
	assert_int_equal(v.no_reply, 1);
	assert_true(v.duration_s > 2.000000039 && v.duration_s < 2.000000041);
	assert_int_equal(v.count[RP_OP_OPEN], 1);
	assert_int_equal(v.count[RP_OP_READ], 1);
	assert_int_equal(v.count[RP_OP_WRITE], 2);
	assert_int_equal(v.count[RP_OP_RENAME], 1);
	assert_int_equal(v.failed[RP_OP_RENAME], 1);
	assert_int_equal(v.failed[RP_OP_OPEN], 0);
	assert_int_equal(v.write_sizes[13], 1); /* 4096 is in [4096, 8192) */
	assert_int_equal(rp_summary_size_min(13), 4096);
	rp_summary_destroy(s);
}

/*
 * Inter-arrival by hand: the gaps between successive op starts of the whole
 * trace and of each client, sleeps left out, a start before the latest one a
 * gap of 0; quantiles from the latency buckets (exact below 16 ns, the top
 * bucket's value the maximum, else the bucket's middle: 1000 ns is in
 * [992, 1023], middle 1007.5).
 */
static void summary_interarrival_by_hand(void **state)
{
	(void)state;
	rp_summary *const s = rp_summary_create();
	rp_summary_gaps g;
	rp_summary_interarrival(s, &g);
	assert_int_equal(g.count, 0);
	assert_true(g.mean_ns == 0 && g.p50_ns == 0 && g.p99_ns == 0 && g.max_ns == 0);
	const rp_op ops[] = {
		{ .op = RP_OP_STAT, .client = 1, .t_start = 0 },
		{ .op = RP_OP_STAT, .client = 2, .t_start = 5 },
		{ .op = RP_OP_STAT, .client = 1, .t_start = 1000 },
		{ .op = RP_OP_SLEEP, .client = 1, .t_start = 1500, .length = 100 },
		{ .op = RP_OP_STAT, .client = 2, .t_start = 1005 },
		{ .op = RP_OP_STAT, .client = 3, .t_start = 1005 },
		{ .op = RP_OP_STAT, .client = 1, .t_start = 3000 },
		{ .op = RP_OP_STAT, .client = 1, .t_start = 2990 },
		{ .op = RP_OP_STAT, .client = 2, .t_start = 101005 },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		assert_int_equal(rp_summary_add(s, &ops[i]), 0);
	/* all: 5, 995, 5, 0, 1995, 0, 98005 (sorted 0 0 5 5 995 1995 98005): they add up to the span */
	rp_summary_interarrival(s, &g);
	assert_int_equal(g.count, 7);
	assert_true(g.mean_ns == 101005.0 / 7.0);
	assert_true(g.p50_ns == 5.0); /* the 4th of 7 */
	assert_true(g.p99_ns == 98005.0);
	assert_true(g.max_ns == 98005.0);
	rp_summary_client *c = NULL;
	assert_int_equal(rp_summary_clients(s, &c), 3);
	/* c1: 1000, 2000, 0 (the sleep is no start; 2990 came after 3000) */
	assert_int_equal(c[0].client, 1);
	assert_int_equal(c[0].arrivals.count, 3);
	assert_true(c[0].arrivals.mean_ns == 1000.0);
	assert_true(c[0].arrivals.p50_ns == 1007.5);
	assert_true(c[0].arrivals.p99_ns == 2000.0);
	assert_true(c[0].arrivals.max_ns == 2000.0);
	/* c2: 1000, 100000 */
	assert_int_equal(c[1].arrivals.count, 2);
	assert_true(c[1].arrivals.mean_ns == 50500.0);
	assert_true(c[1].arrivals.p50_ns == 1007.5);
	assert_true(c[1].arrivals.p99_ns == 100000.0);
	assert_true(c[1].arrivals.max_ns == 100000.0);
	/* c3: one op, no gap */
	assert_int_equal(c[2].client, 3);
	assert_int_equal(c[2].arrivals.count, 0);
	assert_true(c[2].arrivals.max_ns == 0);
	free(c);
	rp_summary_destroy(s);
}

/* max_ops bounds what an input can make a memsink hold: the op past it fails, named, and nothing grows. */
static void memsink_max_ops(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	m.max_ops = 3;
	const rp_op op = { .op = RP_OP_STAT };
	for (int k = 0; k < 3; k++)
		assert_int_equal(m.base.op(&m.base, &op), 0);
	assert_int_equal(m.base.op(&m.base, &op), RP_E_LIMIT);
	assert_non_null(strstr(m.base.errbuf, "more than 3 ops"));
	assert_int_equal(m.n_ops, 3);
	assert_true(m.cap_ops <= 3);
	rp_memsink_fini(&m);
}

static void memsink_keeps_everything(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_strtab *const tab = rp_strtab_create();
	assert_int_equal(m.base.meta(&m.base, &(rp_trace_meta){ .source = RP_SRC_SYNTHETIC }), 0);
	assert_int_equal(rp_sink_intern(&m.base, tab, "/x", 2), 1);
	assert_int_equal(rp_sink_intern(&m.base, tab, "/x", 2), 1);
	assert_int_equal(rp_sink_intern(&m.base, tab, "/y", 2), 2);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(m.base.op(&m.base, &(rp_op){ .op = RP_OP_STAT, .path = 1 + (i & 1) }), 0);
	assert_int_equal(m.base.finish(&m.base), 0);
	assert_int_equal(m.n_ops, 5000);
	assert_string_equal(rp_memsink_string(&m, 2, NULL), "/y");
	/* Out-of-order string ids are a producer bug and are refused. */
	assert_int_equal(m.base.string(&m.base, 9, "z", 1), RP_E_STATE);
	rp_strtab_destroy(tab);
	rp_memsink_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errors_have_names_and_messages),
		cmocka_unit_test(cursor_reads_and_stops_at_the_end),
		cmocka_unit_test(cursor_varints_round_trip),
		cmocka_unit_test(cursor_xdr_opaque_pads),
		cmocka_unit_test(strtab_interns_and_grows),
		cmocka_unit_test(strtab_interns_after_many_appends),
		cmocka_unit_test(op_names_round_trip),
		cmocka_unit_test(op_text_form_is_canonical),
		cmocka_unit_test(text_escape_matches_the_text_form),
		cmocka_unit_test(text_escape_utf8_keeps_only_valid_printable_utf8),
		cmocka_unit_test(sniffing_tells_formats_apart),
		cmocka_unit_test(summary_counts_what_matters),
		cmocka_unit_test(summary_counts_deletes_at_close),
		cmocka_unit_test(summary_interarrival_by_hand),
		cmocka_unit_test(memsink_keeps_everything),
		cmocka_unit_test(memsink_max_ops),
		cmocka_unit_test(fnv1a64_matches_the_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
