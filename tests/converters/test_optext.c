/* converters/optext.c: every field of an op survives format -> parse; malformed lines give file:line: errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "converters/optext.h"
#include "converters/registry.h"
#include "formats/status.h"

/* Format op (strings from names) and parse the line back into a memsink. */
static void round_trip(const rp_op *op, const char *path, const char *path2)
{
	rp_memsink src;
	assert_int_equal(rp_memsink_init(&src), 0);
	rp_op o = *op;
	if (path)
		o.path = (uint32_t)rp_strtab_intern(src.strings, path, (uint32_t)strlen(path), NULL);
	if (path2)
		o.path2 = (uint32_t)rp_strtab_intern(src.strings, path2, (uint32_t)strlen(path2), NULL);
	char line[4096];
	const size_t n = rp_op_format(line, sizeof(line), &o, rp_memsink_string, &src);
	assert_true(n < sizeof(line));

	rp_memsink got;
	assert_int_equal(rp_memsink_init(&got), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	const int rc = rp_optext_parse_mem(line, n, "t.txt", &got.base, NULL, NULL, eb);
	if (rc != 0)
		fail_msg("%s: %s", line, eb);
	assert_int_equal(got.n_ops, 1);
	char again[4096];
	rp_op_format(again, sizeof(again), &got.ops[0], rp_memsink_string, &got);
	assert_string_equal(again, line);
	/* The fields themselves, not only their text: ids differ only if the strings did. */
	rp_op want = o;
	uint32_t l1 = 0, l2 = 0;
	if (path) {
		const char *const s = rp_memsink_string(&got, got.ops[0].path, &l1);
		assert_int_equal(l1, strlen(path));
		assert_memory_equal(s, path, l1);
	}
	if (path2) {
		const char *const s = rp_memsink_string(&got, got.ops[0].path2, &l2);
		assert_int_equal(l2, strlen(path2));
		assert_memory_equal(s, path2, l2);
	}
	want.path = got.ops[0].path;
	want.path2 = got.ops[0].path2;
	assert_memory_equal(&got.ops[0], &want, sizeof(want));
	rp_memsink_fini(&got);
	rp_memsink_fini(&src);
}

static rp_op zero_op(void)
{
	rp_op op;
	memset(&op, 0, sizeof(op)); /* padding too: the ops are compared byte by byte */
	return op;
}

static void every_field_round_trips(void **state)
{
	(void)state;
	rp_op op = zero_op();
	op.t_start = 12345678901ull;
	op.t_end = RP_TIME_UNKNOWN;
	op.client = 4000000000u;
	op.op = RP_OP_OPEN;
	op.handle = UINT64_MAX;
	op.handle2 = 7;
	op.offset = 1;
	op.offset2 = 2;
	op.length = 3;
	op.result = RP_ACT_CREATED;
	op.want = RP_WANT_READ | RP_WANT_WRITE | RP_WANT_MAX | RP_WANT_KNOWN;
	op.disp = RP_DISP_SUPERSEDE;
	op.oflags = RP_OF_DIRECTORY | RP_OF_NT | RP_OF_CLOEXEC | (1u << 30);
	op.attrs = RP_SA_SIZE | RP_SA_DELETE_CLEAR;
	op.mode = 0104755;
	op.uid = 1000;
	op.gid = UINT32_MAX;
	op.atime = 1700000000123456789ull;
	op.mtime = 5;
	op.flags = RP_OPF_DIRECTORY | RP_OPF_DATASYNC | (1u << 4) | (1u << 15);
	op.proto = RP_PROTO_SMB2;
	op.raw.access = 0x12019f;
	op.raw.disposition = 5;
	op.raw.options = 0x200021;
	op.raw.level = 1004;
	rp_op_set_status(&op, RP_SK_NT, 0xc0000034); /* OBJECT_NAME_NOT_FOUND */
	round_trip(&op, "\\dir\\a \"quoted\" \\\\ back", "caf\xc3\xa9\x01\x7f\n");

	/* want recorded as nothing, and a want without the known bit */
	op.want = RP_WANT_KNOWN;
	round_trip(&op, "a", NULL);
	op.want = RP_WANT_READ;
	round_trip(&op, "a", NULL);

	/* a status no table names, an NT status no table names, an NFS and an errno one */
	op = zero_op();
	op.op = RP_OP_READ;
	op.t_end = 10;
	op.status = 12345;
	round_trip(&op, NULL, NULL);
	op.status = -7;
	op.status_kind = RP_SK_NT;
	op.proto_status = 0xdeadbeef;
	round_trip(&op, NULL, NULL);
	op.proto = RP_PROTO_NFS3;
	rp_op_set_status(&op, RP_SK_NFS3, 2);
	round_trip(&op, NULL, NULL);
	op.proto = RP_PROTO_POSIX;
	rp_op_set_status(&op, RP_SK_ERRNO, 2);
	round_trip(&op, NULL, NULL);
	op.proto = 200; /* a producer this build does not know */
	op.raw.level = 3;
	round_trip(&op, NULL, NULL);

	/* rename's, fallocate's and fork's own flag names, an op number with no name, a disposition beyond the table */
	op = zero_op();
	op.op = RP_OP_RENAME;
	op.oflags = RP_RN_NOREPLACE | RP_RN_WHITEOUT;
	round_trip(&op, "a", "b");
	op.op = RP_OP_FALLOCATE;
	op.oflags = RP_FA_PUNCH_HOLE;
	round_trip(&op, NULL, NULL);
	/* fork's: a thread sharing its creator's table */
	op.op = RP_OP_FORK;
	op.oflags = RP_FK_SHARE;
	op.result = 7;
	round_trip(&op, NULL, NULL);
	op.result = 0;
	op.op = 999;
	op.disp = 77;
	round_trip(&op, NULL, NULL);
	/* raw values with no protocol */
	op = zero_op();
	op.op = RP_OP_STAT;
	op.raw.options = 6;
	round_trip(&op, "", NULL);
}

/* One line into a memsink; the error text, "" if it parsed. */
static int parse1(const char *text, char *eb)
{
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	eb[0] = '\0';
	const int rc = rp_optext_parse_mem(text, strlen(text), "in.txt", &m.base, NULL, NULL, eb);
	rp_memsink_fini(&m);
	return rc;
}

static void malformed_lines_say_where_and_what(void **state)
{
	(void)state;
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "0.000000001 - c1 read fh=1 off=0 len=0 -> OK\nx", "in.txt:2: expected a start time" },
		{ "0.1234567891 - c1 read fh=1 -> OK", "in.txt:1: expected a start time" }, /* 10 decimals */
		{ "1. - c1 read fh=1 -> OK", "in.txt:1: expected a start time" },
		{ "0.000000001 0.000000002 c1 frob -> OK", "in.txt:1: unknown op 'frob'" },
		{ "0.000000001 - x1 read -> OK", "expected c<client>" },
		{ "0.000000001 - c1 read fh=x -> OK", "bad value 'fh=x'" },
		{ "0.000000001 - c1 read fh=99999999999999999999 -> OK", "bad value" },
		{ "0.000000001 - c1 read fh=1 fh=2 -> OK", "field 'fh' given twice" },
		{ "0.000000001 - c1 read bogus=1 -> OK", "unknown field 'bogus'" },
		{ "0.000000001 - c1 read fh=1", "expected ' -> STATUS'" },
		{ "0.000000001 - c1 read fh=1 -> NOPE", "unknown status 'NOPE'" },
		{ "0.000000001 - c1 read fh=1 -> OK (NT_STATUS_NOPE)", "unknown protocol status" },
		{ "0.000000001 - c1 read fh=1 -> OK junk", "after the status" },
		{ "0.000000001 - c1 open path=\"abc -> OK", "unterminated string" },
		{ "0.000000001 - c1 open path=\"a\\q\" -> OK", "unknown escape" },
		{ "0.000000001 - c1 open path=\"a\\x4\" -> OK", "backslash-x escape needs two hex digits" },
		{ "0.000000001 - c1 open path=abc -> OK", "double quotes" },
		{ "0.000000001 - c1 open path=#3 -> OK", "never defined" },
		{ "0.000000001 - c1 open want=read,fly -> OK", "want: unknown 'fly'" },
		{ "0.000000001 - c1 open of=dir, -> OK", "of: unknown" },
		{ "0.000000001 - c1 open disp=sideways -> OK", "bad value 'disp=sideways'" },
		{ "0.000000001 - c1 open mode=755 -> OK", "bad value 'mode=755'" },
		{ "0.000000001 - c1 open mode=09 -> OK", "bad value 'mode=09'" },
		{ "0.000000001 - c1 open raw=smb9 -> OK", "raw: unknown protocol 'smb9'" },
		{ "0.000000001 - c1 open raw=smb2:access=12 -> OK", "raw: access needs a 0x value" },
		{ "0.000000001 - c1 open raw=smb2:colour=1 -> OK", "raw: unknown key 'colour'" },
		{ "0.000000001 - c1 open flags=bit16 -> OK", "beyond the 16 op flags" },
		{ "# source martian\n", "in.txt:1: unknown source 'martian'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char eb[RP_ERRBUF_SIZE];
		if (parse1(cases[i].line, eb) == 0)
			fail_msg("accepted: %s", cases[i].line);
		if (!strstr(eb, cases[i].msg))
			fail_msg("%s: got '%s', wanted '%s'", cases[i].line, eb, cases[i].msg);
	}
}

static void meta_comments_and_lenient(void **state)
{
	(void)state;
	static const char text[] = "\xEF\xBB\xBF# source pcap-smb timed truncated\r\n# start 1476605363.990103000\n"
				   "# host h\\x1b1\n# input in\\\\put.pcap\n\n  # an editor's note\n"
				   "0.000000001 - c1 close fh=1 -> OK\nbroken line\n0.000000002 - c2 close fh=2 -> OK\n";
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_not_equal(rp_optext_parse_mem(text, sizeof(text) - 1, "x", &m.base, NULL, NULL, eb), 0);
	assert_non_null(strstr(eb, "x:8: "));
	rp_memsink_fini(&m);

	assert_int_equal(rp_memsink_init(&m), 0);
	const rp_optext_opts lenient = { .lenient = true, .filter_client = true, .client = 2 };
	uint64_t skipped = 0;
	assert_int_equal(rp_optext_parse_mem(text, sizeof(text) - 1, "x", &m.base, &lenient, &skipped, eb), 0);
	assert_int_equal(skipped, 1);
	assert_int_equal(m.n_ops, 1);
	assert_int_equal(m.ops[0].client, 2);
	assert_int_equal(m.meta.source, RP_SRC_PCAP_SMB);
	assert_int_equal(m.meta.flags, RP_META_TIMED | RP_META_TRUNCATED);
	assert_int_equal(m.meta.capture_start_ns, 1476605363990103000ll);
	assert_string_equal(m.meta.host, "h\x1b" "1");
	assert_string_equal(m.meta.source_name, "in\\put.pcap");
	assert_true(m.finished);
	rp_memsink_fini(&m);
}

static void sniffed_before_loadfiles(void **state)
{
	(void)state;
	static const char op[] = "\n# c\n0.000000000 0.000000100 c3 close fh=1 -> OK\n";
	static const char meta[] = "# source loadfile-smb\n";
	static const char ts_lf[] = "0.004 NTCreateX \"\\a\" 0x0 0x1 1 NT_STATUS_OK\n";
	assert_string_equal(rp_conv_producer_sniff(op, sizeof(op) - 1, "x", NULL, 0)->name, "text");
	assert_string_equal(rp_conv_producer_sniff(meta, sizeof(meta) - 1, "x", NULL, 0)->name, "text");
	assert_string_equal(rp_conv_producer_sniff(ts_lf, sizeof(ts_lf) - 1, "x", NULL, 0)->name, "loadfile");
	assert_false(rp_optext_sniff("0.000000000 0.000000100 c3", 26)); /* cut before the op: not claimed */

	/* A hand-written trace with fewer decimals is the text form too (not an strace log), read exactly. */
	static const char short_times[] = "0.5 0.75 c1 mkdir path=\"/d\" -> OK\n2.000001 - c1 rmdir path=\"/d\" -> OK\n";
	assert_string_equal(rp_conv_producer_sniff(short_times, sizeof(short_times) - 1, "x", NULL, 0)->name, "text");
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_optext_parse_mem(short_times, sizeof(short_times) - 1, "x", &m.base, NULL, NULL, eb), 0);
	assert_int_equal(m.n_ops, 2);
	assert_int_equal(m.ops[0].t_start, 500000000u);
	assert_int_equal(m.ops[0].t_end, 750000000u);
	assert_int_equal(m.ops[1].t_start, 2000001000u);
	assert_int_equal(m.ops[1].t_end, RP_TIME_UNKNOWN);
	rp_memsink_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_field_round_trips),
		cmocka_unit_test(malformed_lines_say_where_and_what),
		cmocka_unit_test(meta_comments_and_lenient),
		cmocka_unit_test(sniffed_before_loadfiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
