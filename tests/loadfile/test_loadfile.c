/* Unit tests: the dbench loadfile reader (every command and control construct, malformed lines) and writer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "converters/loadfile.h"
#include "formats/loadfile.h"
#include "formats/reader.h"
#include "formats/sink.h"
#include "formats/status.h"

/* Read text into m (strict unless lenient); returns the reader's result and leaves its errbuf in eb. */
static int load(const char *text, bool lenient, rp_memsink *m, char *eb, uint64_t *skipped)
{
	rp_reader *r = NULL;
	const rp_read_opts o = { .lenient = lenient };
	assert_int_equal(rp_memsink_init(m), 0);
	int rc = rp_loadfile_reader_open_mem(&r, text, strlen(text), "t.load", &o, eb);
	if (rc < 0)
		return rc;
	rc = rp_reader_pump(r, &m->base, eb);
	if (skipped)
		*skipped = r->skipped;
	rp_reader_close(r);
	return rc;
}

static rp_memsink ok(const char *text)
{
	rp_memsink m;
	char eb[RP_ERRBUF_SIZE] = "";
	if (load(text, false, &m, eb, NULL) < 0)
		fail_msg("unexpected error: %s", eb);
	return m;
}

static const char *str(rp_memsink *m, uint32_t id)
{
	uint32_t n;
	const char *const s = rp_memsink_string(m, id, &n);
	return s ? s : "(none)";
}

/* Strict: fails with "t.load:<line>: ...<needle>..."; lenient: the line is skipped and counted. */
static void bad(const char *text, unsigned line, const char *needle)
{
	rp_memsink m;
	char eb[RP_ERRBUF_SIZE] = "";
	if (load(text, false, &m, eb, NULL) >= 0)
		fail_msg("no error for: %.80s", text);
	char want[64];
	snprintf(want, sizeof(want), "t.load:%u: ", line);
	if (strncmp(eb, want, strlen(want)) != 0 || !strstr(eb, needle))
		fail_msg("error \"%s\" is not \"%s...%s...\"", eb, want, needle);
	rp_memsink_fini(&m);
	uint64_t skipped = 0;
	if (load(text, true, &m, eb, &skipped) < 0)
		fail_msg("lenient read failed: %s", eb);
	if (skipped != 1)
		fail_msg("lenient: %llu lines skipped for: %.80s", (unsigned long long)skipped, text);
	rp_memsink_fini(&m);
}

static void test_smb_commands(void **state)
{
	(void)state;
	rp_memsink m = ok("NTCreateX \"\\clients\\client1\\x\" 0x40 0x5 9935 NT_STATUS_OK\n"
			  "Close 9935 NT_STATUS_OK\n"
			  "ReadX 10003 0 4096 4096 NT_STATUS_OK\n"
			  "WriteX 9938 65534 1 1 NT_STATUS_OK\n"
			  "FIND_FIRST \"\\clients\\client1\\*.JNK\" 260 1366 0 NT_STATUS_NO_SUCH_FILE\n"
			  "QUERY_PATH_INFORMATION \"\\a\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
			  "QUERY_FS_INFORMATION 259 NT_STATUS_OK\n"
			  "QUERY_FILE_INFORMATION 9938 258 NT_STATUS_OK\n"
			  "SET_FILE_INFORMATION 10005 1004 NT_STATUS_OK\n"
			  "Rename \"\\a\" \"\\b\" NT_STATUS_OK\n"
			  "Unlink \"\\b\" 0x6 NT_STATUS_OK\n"
			  "Flush 10012 NT_STATUS_OK\n"
			  "LockX 10430 2147483538 1 NT_STATUS_OK\n"
			  "UnlockX 10430 2147483538 1 NT_STATUS_OK\n"
			  "Deltree \"\\clients\\client1\" NT_STATUS_OK\n"
			  "Mkdir \"\\clients\" NT_STATUS_OK\n"
			  "Rmdir \"\\clients\" NT_STATUS_DIRECTORY_NOT_EMPTY\n"
			  "Sleep 1500 NT_STATUS_OK\n"
			  "NTCreateX \"\\d\" 0x1 0x2 16385 0xC0000035\n");
	assert_int_equal(m.n_ops, 19);
	assert_int_equal(m.meta.source, RP_SRC_LOADFILE_SMB);
	assert_false(m.meta.flags & RP_META_TIMED);
	const rp_op *o = m.ops;
	assert_int_equal(o[0].op, RP_OP_OPEN);
	assert_string_equal(str(&m, o[0].path), "/clients/client1/x");
	assert_int_equal(o[0].raw.options, 0x40);
	assert_int_equal(o[0].raw.disposition, 5);
	assert_int_equal(o[0].proto, RP_PROTO_DBENCH_SMB);
	/* the translation: OVERWRITE_IF, NON_DIRECTORY, NT semantics, no access mask recorded */
	assert_int_equal(o[0].disp, RP_DISP_TRUNC_IF);
	assert_int_equal(o[0].oflags, RP_OF_NT | RP_OF_NOT_DIRECTORY);
	assert_int_equal(o[0].want, 0);
	assert_int_equal(o[0].handle, 9935);
	assert_int_equal(o[0].flags, 0);
	assert_int_equal(o[0].status_kind, RP_SK_NT);
	assert_int_equal(o[0].status, 0);
	assert_int_equal(o[0].t_start, 0);
	assert_int_equal(o[0].t_end, RP_TIME_UNKNOWN);
	assert_int_equal(o[1].op, RP_OP_CLOSE);
	assert_int_equal(o[1].handle, 9935);
	assert_int_equal(o[2].op, RP_OP_READ);
	assert_int_equal(o[2].handle, 10003);
	assert_int_equal(o[2].length, 4096);
	assert_int_equal(o[2].result, 4096);
	assert_int_equal(o[3].op, RP_OP_WRITE);
	assert_int_equal(o[3].offset, 65534);
	assert_int_equal(o[4].op, RP_OP_READDIR);
	/* a FIND_FIRST mask: the directory and the pattern in it */
	assert_string_equal(str(&m, o[4].path), "/clients/client1");
	assert_string_equal(str(&m, o[4].path2), "*.JNK");
	assert_int_equal(o[4].raw.level, 260);
	assert_int_equal(o[4].length, 1366);
	assert_int_equal(o[4].result, 0);
	assert_int_equal(o[4].proto_status, 0xC000000F);
	assert_int_equal(o[4].status, ENOENT);
	assert_int_equal(o[5].op, RP_OP_STAT);
	assert_int_equal(o[5].raw.level, 1004);
	assert_int_equal(o[5].handle, 0);
	assert_int_equal(o[6].op, RP_OP_STATFS);
	assert_int_equal(o[6].raw.level, 259);
	assert_int_equal(o[7].op, RP_OP_STAT);
	assert_int_equal(o[7].handle, 9938);
	assert_int_equal(o[7].raw.level, 258);
	assert_int_equal(o[8].op, RP_OP_SETATTR);
	assert_int_equal(o[9].op, RP_OP_RENAME);
	assert_int_equal(o[9].oflags, RP_RN_NOREPLACE);
	assert_string_equal(str(&m, o[9].path2), "/b");
	assert_int_equal(o[10].op, RP_OP_UNLINK);
	assert_int_equal(o[10].raw.options, 6);
	assert_int_equal(o[11].op, RP_OP_FLUSH);
	assert_int_equal(o[12].op, RP_OP_LOCK);
	assert_int_equal(o[12].offset, 2147483538u);
	assert_int_equal(o[12].length, 1);
	assert_int_equal(o[12].flags, RP_OPF_EXCLUSIVE | RP_OPF_MANDATORY);
	assert_int_equal(o[13].op, RP_OP_UNLOCK);
	assert_int_equal(o[14].op, RP_OP_DELTREE);
	assert_int_equal(o[15].op, RP_OP_MKDIR);
	assert_int_equal(o[16].op, RP_OP_RMDIR);
	assert_int_equal(o[16].status, ENOTEMPTY);
	assert_int_equal(o[17].op, RP_OP_SLEEP);
	assert_int_equal(o[17].length, 1500000);
	assert_int_equal(o[18].flags, 0);
	assert_int_equal(o[18].disp, RP_DISP_CREATE);
	assert_int_equal(o[18].oflags, RP_OF_NT | RP_OF_DIRECTORY);
	assert_int_equal(o[18].status, EEXIST);
	rp_memsink_fini(&m);
}

static void test_smb_backend_variants(void **state)
{
	(void)state;
	/* dbench's smb-backend commands: path-based, SUCCESS/ERROR/'*' statuses, and case-insensitive names */
	rp_memsink m = ok("OPEN \"/file0\" 0x1c SUCCESS\nWRITE \"/file0\" 0 32768 SUCCESS\n"
			  "READ \"/file0\" 32768 32768 ERROR\nCLOSE \"/file0\" *\nMKDIR \"\\foo\" SUCCESS\n"
			  "RMDIR \"\\foo\" *\nclose 7 NT_STATUS_OK\nntcreatex \"\\x\" 0 1 7 NT_STATUS_OK\n");
	assert_int_equal(m.n_ops, 8);
	assert_int_equal(m.ops[0].op, RP_OP_OPEN);
	assert_int_equal(m.ops[0].raw.access, 0x1c);
	assert_int_equal(m.ops[0].disp, RP_DISP_OPEN_IF); /* dbench's O_CREAT bit, 0x08 */
	assert_int_equal(m.ops[0].want, 0);
	assert_int_equal(m.ops[0].status_kind, RP_SK_NONE);
	assert_int_equal(m.ops[0].status, 0);
	assert_int_equal(m.ops[1].op, RP_OP_WRITE);
	assert_int_equal(m.ops[1].length, 32768);
	assert_int_equal(m.ops[2].status, RP_STATUS_OTHER);
	assert_int_equal(m.ops[3].op, RP_OP_CLOSE);
	assert_int_equal(m.ops[3].status, RP_STATUS_UNKNOWN);
	assert_int_equal(m.ops[4].op, RP_OP_MKDIR);
	assert_int_equal(m.ops[5].op, RP_OP_RMDIR);
	assert_int_equal(m.ops[6].op, RP_OP_CLOSE);
	assert_int_equal(m.ops[6].handle, 7);
	assert_int_equal(m.ops[7].op, RP_OP_OPEN);
	rp_memsink_fini(&m);
}

static void test_nfs_commands(void **state)
{
	(void)state;
	rp_memsink m = ok("# NFS\n"
			  "0.5 GETATTR3 \"/clients/client1\" 0x00000000\n"
			  "0.6 CREATE3 \"/c/f\" 0x00000000\n"
			  "0.7 CREATE3 \"/c/g\" 2 0x00000011\n"
			  "0.8 WRITE3 \"/c/f\" 0 10240 2 0x00000000\n"
			  "0.9 READ3 \"/c/f\" 0 10240 0x00000000\n"
			  "1.0 ACCESS3 \"/c\" 31 7 0x00000000\n"
			  "1.1 FSINFO3 0x00000000\n"
			  "1.2 PATHCONF3 \"/c\" 0x00000000\n"
			  "1.3 LINK3 \"/c/h\" \"/c/f\" 0x00000000\n"
			  "1.4 READDIR3 \"/c\" 0x00000000\n"
			  "1.5 LOCK4 \"/c/f\" 5 15 0x00000000\n"
			  "1.6 TEST4 \"/c/f\" 5 15 0x0000271a\n"
			  "1.7 LOOKUP3 \"/c/x\" 0x00000002\n"
			  "1.8 Deltree \"/c\" 0x00000000\n"
			  "1.9 REMOVE3 \"/c/x\" NFS3ERR_NOENT\n");
	assert_int_equal(m.n_ops, 15);
	assert_int_equal(m.meta.source, RP_SRC_LOADFILE_NFS);
	assert_true(m.meta.flags & RP_META_TIMED);
	const rp_op *o = m.ops;
	assert_int_equal(o[0].op, RP_OP_STAT);
	assert_int_equal(o[0].t_start, 500000000u);
	assert_int_equal(o[0].status_kind, RP_SK_NFS3);
	assert_int_equal(o[1].op, RP_OP_OPEN);
	assert_int_equal(o[1].proto, RP_PROTO_DBENCH_NFS);
	assert_int_equal(o[1].disp, RP_DISP_OPEN_IF); /* UNCHECKED */
	assert_int_equal(o[1].raw.disposition, 0);
	assert_int_equal(o[2].disp, RP_DISP_CREATE); /* EXCLUSIVE */
	assert_int_equal(o[2].oflags, RP_OF_EXCL_VERIFY);
	assert_int_equal(o[2].raw.disposition, 2);
	assert_int_equal(o[2].status, EEXIST);
	assert_int_equal(o[3].op, RP_OP_WRITE);
	assert_int_equal(o[3].raw.level, 2);
	assert_int_equal(o[3].flags, RP_OPF_STABLE);
	assert_int_equal(o[4].op, RP_OP_READ);
	assert_int_equal(o[4].length, 10240);
	assert_int_equal(o[5].op, RP_OP_ACCESS);
	assert_int_equal(o[5].raw.access, 31);
	assert_int_equal(o[5].raw.options, 7);
	assert_int_equal(o[5].want, RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_EXEC | RP_WANT_WRITE | RP_WANT_APPEND |
					  RP_WANT_DELETE_CHILD);
	assert_int_equal(o[5].result, RP_WANT_READ | RP_WANT_EXEC | RP_WANT_WRITE);
	assert_int_equal(o[6].op, RP_OP_STATFS);
	assert_int_equal(o[6].raw.level, 19);
	assert_int_equal(o[7].raw.level, 20);
	assert_int_equal(o[8].op, RP_OP_LINK);
	assert_string_equal(str(&m, o[8].path2), "/c/f");
	assert_int_equal(o[9].op, RP_OP_READDIR);
	assert_int_equal(o[9].raw.level, 16);
	assert_int_equal(o[10].op, RP_OP_LOCK);
	assert_int_equal(o[10].status_kind, RP_SK_NFS4);
	assert_int_equal(o[11].flags, RP_OPF_TEST);
	assert_int_equal(o[11].status, EAGAIN);
	assert_int_equal(o[12].status, ENOENT);
	assert_int_equal(o[13].op, RP_OP_DELTREE);
	assert_int_equal(o[13].status_kind, RP_SK_NFS3);
	assert_int_equal(o[14].status, ENOENT);
	assert_int_equal(o[14].t_start, 1900000000u);
	rp_memsink_fini(&m);
}

static void test_loops(void **state)
{
	(void)state;
	/* nested loops, the line after ENDLOOP is kept, and LOOP 0 skips its body */
	rp_memsink m = ok("Close 1 NT_STATUS_OK\nLOOP 3\nClose 2 NT_STATUS_OK\nLOOP 2\nClose 3 NT_STATUS_OK\n"
			  "ENDLOOP\nENDLOOP\nClose 4 NT_STATUS_OK\nLOOP 0\nClose 5 NT_STATUS_OK\nLOOP 2\n"
			  "ENDLOOP\nENDLOOP\nClose 6 NT_STATUS_OK\n");
	static const uint64_t want[] = { 1, 2, 3, 3, 2, 3, 3, 2, 3, 3, 4, 6 };
	assert_int_equal(m.n_ops, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < m.n_ops; i++)
		assert_int_equal(m.ops[i].handle, want[i]);
	rp_memsink_fini(&m);
}

static void test_loop_time_and_repeat(void **state)
{
	(void)state;
	/* the second round's times continue from the first's end; REPEAT n runs the next line n times */
	rp_memsink m = ok("0.0 Close 1 NT_STATUS_OK\nLOOP 2\n1.0 Close 2 NT_STATUS_OK\n3.0 Close 3 NT_STATUS_OK\n"
			  "ENDLOOP\n4.0 Close 4 NT_STATUS_OK\nREPEAT 3\n5.0 WriteX 9 +4096 4096 4096 NT_STATUS_OK\n"
			  "REPEAT 0\nClose 99 NT_STATUS_OK\n6.0 Close 5 NT_STATUS_OK\n");
	static const uint64_t t[] = { 0, 1, 3, 3, 5, 6, 7, 7, 7, 8 };
	assert_int_equal(m.n_ops, 10);
	for (size_t i = 0; i < m.n_ops; i++)
		assert_int_equal(m.ops[i].t_start, t[i] * 1000000000u);
	assert_int_equal(m.ops[6].offset, 4096);
	assert_int_equal(m.ops[7].offset, 8192);
	assert_int_equal(m.ops[8].offset, 12288);
	assert_int_equal(m.ops[9].handle, 5);
	rp_memsink_fini(&m);
}

/* Both modes fail at `line` with needle, whatever --lenient says, having read at most max_ops ops. */
static void refused(const char *text, unsigned line, const char *needle, size_t max_ops)
{
	for (int lenient = 0; lenient < 2; lenient++) {
		rp_memsink m;
		char eb[RP_ERRBUF_SIZE] = "";
		if (load(text, lenient != 0, &m, eb, NULL) >= 0)
			fail_msg("no error for: %.80s", text);
		char want[64];
		snprintf(want, sizeof(want), "t.load:%u: ", line);
		if (strncmp(eb, want, strlen(want)) != 0 || !strstr(eb, needle))
			fail_msg("error \"%s\" is not \"%s...%s...\"", eb, want, needle);
		if (m.n_ops > max_ops)
			fail_msg("%zu ops before the error, expected at most %zu", m.n_ops, max_ops);
		rp_memsink_fini(&m);
	}
}

static void test_loop_expansion_bounded(void **state)
{
	(void)state;
	/* refused when the first round ends, not after a billion ops */
	refused("LOOP 1000000000\nClose 1 NT_STATUS_OK\nENDLOOP\n", 1, "expands past 16777216 lines", 1);
	refused("Close 1 NT_STATUS_OK\nREPEAT 1000000000\nClose 1 NT_STATUS_OK\n", 2, "REPEAT 1000000000 expands", 1);
	/* nesting multiplies: 4096 x 4096 rounds of two lines; the outer LOOP is named once its first round ends */
	refused("LOOP 4096\nLOOP 4096\nClose 1 NT_STATUS_OK\nENDLOOP\nENDLOOP\n", 1, "LOOP 4096 of a", 4096);
	/* a count whose product with the body wraps 64 bits */
	refused("LOOP 18446744073709551615\nClose 1 NT_STATUS_OK\nClose 2 NT_STATUS_OK\nENDLOOP\n", 1, "expands past",
		2);
	/* a RANDOMSTRING round is not empty (it draws from the PRNG): bounded by the limit */
	refused("LOOP 1000000000000\nRANDOMSTRING 0 \"[ab]\"\nENDLOOP\n", 1, "expands past", 0);
	/* under the limit, a LOOP still runs every round */
	rp_memsink m = ok("LOOP 100000\nClose 1 NT_STATUS_OK\nENDLOOP\n");
	assert_int_equal(m.n_ops, 100000);
	rp_memsink_fini(&m);
}

static void test_empty_loops_end_at_once(void **state)
{
	(void)state;
	/* bodies without ops (nothing, comments, sync points, empty nested loops) make nothing in any round */
	rp_memsink m = ok("LOOP 1000000000000\nENDLOOP\nLOOP 18446744073709551615\n# nothing\nSETSP 1\n"
			  "LOOP 1000000000000\nENDLOOP\nENDLOOP\nClose 7 NT_STATUS_OK\n");
	assert_int_equal(m.n_ops, 1);
	assert_int_equal(m.ops[0].handle, 7);
	rp_memsink_fini(&m);
}

static void test_loop_times_saturate(void **state)
{
	(void)state;
	/*
	 * The second round's time base is 9e18 ns, then 1e19 ns (past INT64_MAX):
	 * times saturate, they never wrap (UBSan caught the signed overflow here).
	 */
	rp_memsink m = ok("LOOP 2\n0 Close 1 NT_STATUS_OK\n9000000000 Close 1 NT_STATUS_OK\nENDLOOP\n"
			  "LOOP 2\n0 Close 1 NT_STATUS_OK\n10000000000 Close 1 NT_STATUS_OK\nENDLOOP\n");
	assert_int_equal(m.n_ops, 8);
	assert_true(m.ops[1].t_start == 9000000000000000000ull);
	assert_true(m.ops[2].t_start == 9000000000000000000ull);
	assert_true(m.ops[3].t_start == 18000000000000000000ull);
	assert_true(m.ops[5].t_start == RP_TIME_UNKNOWN - 1);
	for (size_t i = 4; i < m.n_ops; i++)
		assert_true(m.ops[i].t_start != RP_TIME_UNKNOWN);
	assert_true(m.ops[7].t_start == RP_TIME_UNKNOWN - 1);
	rp_memsink_fini(&m);
}

static void test_utf8_bom(void **state)
{
	(void)state;
	rp_memsink m = ok("\xEF\xBB\xBF" "READ3 \"/f\" 0 4096 0x00000000\n");
	assert_int_equal(m.n_ops, 1);
	assert_int_equal(m.meta.source, RP_SRC_LOADFILE_NFS);
	rp_memsink_fini(&m);
	/* only at the start: a BOM elsewhere is a bad command, on its line */
	bad("Close 1 NT_STATUS_OK\n\xEF\xBB\xBF" "Close 1 NT_STATUS_OK\n", 2, "unknown command");
	assert_int_equal(rp_format_sniff("\xEF\xBB\xBF" "READ3 \"/f\" 0 1 0x0\n", 24, NULL), RP_FMT_LOADFILE_NFS);
}

static void test_modifiers(void **state)
{
	(void)state;
	rp_memsink a = ok("LOOP 100\nREAD3 \"/f\" */0x1000%0x40000000 4096 0x00000000\nREAD3 \"/f\" *%100+25 1 0x0\n"
			  "ENDLOOP\nUNLOCK4 \"/f\" 0 0 0x0\nLOCK4 \"/f\" +child 1 0x0\nREPEAT 3\n"
			  "LOCK4 \"/f\" +num_children 1 0x0\n");
	assert_int_equal(a.n_ops, 205);
	bool differ = false;
	for (size_t i = 0; i < 200; i += 2) {
		assert_int_equal(a.ops[i].offset % 4096, 0);
		assert_true(a.ops[i].offset < 0x40000000u);
		assert_true(a.ops[i + 1].offset >= 25 && a.ops[i + 1].offset < 125);
		differ |= a.ops[i].offset != a.ops[0].offset;
	}
	assert_true(differ);
	assert_int_equal(a.ops[201].offset, 0);
	assert_int_equal(a.ops[202].offset, 1);
	assert_int_equal(a.ops[204].offset, 3);
	/* deterministic: the same text gives the same values */
	rp_memsink b = ok("LOOP 100\nREAD3 \"/f\" */0x1000%0x40000000 4096 0x00000000\nREAD3 \"/f\" *%100+25 1 0x0\n"
			  "ENDLOOP\n");
	for (size_t i = 0; i < 200; i++)
		assert_int_equal(a.ops[i].offset, b.ops[i].offset);
	rp_memsink_fini(&a);
	rp_memsink_fini(&b);
}

static void test_other_controls(void **state)
{
	(void)state;
	rp_memsink m = ok("WRITEPATTERN abcdef 0123\nSETSP 1\nWAITSP 1\nRANDOMSTRING 1 \"f[abc][xyz].txt\"\n"
			  "RANDOMSTRING 2 \"dir\"\nNTCreateX \"\\$2\\$1\" 0 1 5 NT_STATUS_OK\n");
	assert_int_equal(m.n_ops, 1);
	const char *const p = str(&m, m.ops[0].path);
	assert_int_equal(strlen(p), 12);
	assert_memory_equal(p, "/dir/f", 6);
	assert_non_null(strchr("abc", p[6]));
	assert_non_null(strchr("xyz", p[7]));
	rp_memsink_fini(&m);
}

static void test_rewind(void **state)
{
	(void)state;
	static const char text[] = "LOOP 2\nREAD3 \"/f\" * 1 0x0\nENDLOOP\nREPEAT 2\nREAD3 \"/g\" +1 1 0x0\n";
	char eb[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	assert_int_equal(rp_loadfile_reader_open_mem(&r, text, strlen(text), "t.load", NULL, eb), 0);
	rp_op first[8], second[8];
	for (int pass = 0; pass < 2; pass++) {
		rp_op *const ops = pass ? second : first;
		int n = 0;
		while (n < 8 && rp_reader_next(r, &ops[n]) == 1)
			n++;
		assert_int_equal(n, 4);
		assert_int_equal(rp_reader_rewind(r), 0);
	}
	assert_memory_equal(first, second, 4 * sizeof(rp_op));
	rp_reader_close(r);
}

static void test_malformed(void **state)
{
	(void)state;
	bad("Close 1 NT_STATUS_OK\nClose NT_STATUS_OK\n", 2, "expected 1 argument");
	bad("NTCreateX \"\\a\" 0x1 0x2 NT_STATUS_OK\n", 1, "NTCreateX");
	bad("Close 1\n", 1, "status");
	bad("Close x1 NT_STATUS_OK\n", 1, "expected a number");
	bad("Close 0x NT_STATUS_OK\n", 1, "number");
	bad("Close 08 NT_STATUS_OK\n", 1, "number");
	bad("ReadX 1 99999999999999999999 1 1 NT_STATUS_OK\n", 1, "out of range");
	bad("QUERY_FS_INFORMATION 4294967296 NT_STATUS_OK\n", 1, "out of range");
	bad("Sleep 18446744073709552 NT_STATUS_OK\n", 1, "out of range");
	bad("Mkdir \"\\a NT_STATUS_OK\n", 1, "unterminated");
	bad("Mkdir \"\\a\"x NT_STATUS_OK\n", 1, "quote");
	bad("Mkdir \"\" NT_STATUS_OK\n", 1, "empty path");
	bad("Mkdir a NT_STATUS_OK\n", 1, "expected a path");
	bad("Mkdir \"\\a\" NT_STATUS_NOT_A_REAL_ONE\n", 1, "unknown status");
	bad("Mkdir \"\\a\" 0xZZ\n", 1, "bad status");
	bad("Mkdir \"\\a\" 0x123456789\n", 1, "bad status");
	bad("Mkdir \"\\a\" NT_STATUS_\n", 1, "status");
	bad("Mkdir \"\\a\" \"NT_STATUS_OK\"\n", 1, "status");
	bad("GETATTR3 \"/a\" NT_STATUS_OK\n", 1, "status");
	bad("Frobnicate 1 NT_STATUS_OK\n", 1, "unknown command");
	bad("SMBopenX 1 NT_STATUS_OK\n", 1, "unknown command");
	bad("Close 1 NT_STATUS_OK\nENDLOOP\n", 2, "ENDLOOP without LOOP");
	bad("Close 1 NT_STATUS_OK\nLOOP 2\nClose 1 NT_STATUS_OK\n", 2, "LOOP without ENDLOOP");
	bad("LOOP 0\nClose 1 NT_STATUS_OK\n", 1, "LOOP without ENDLOOP");
	bad("LOOP\nClose 1 NT_STATUS_OK\n", 1, "LOOP");
	bad("LOOP x\nClose 1 NT_STATUS_OK\n", 1, "bad number");
	bad("REPEAT 2\nREPEAT 3\nClose 1 NT_STATUS_OK\n", 2, "REPEAT must be followed");
	bad("Close 1 NT_STATUS_OK\nClose 1 NT\x01_STATUS_OK\n", 2, "binary data");
	bad("Close 1 NT_STATUS_OK\n\x7f\x45LF\x02\x01\n", 2, "binary data");
	bad("Close 1 NT_STATUS_OK\nClose 1 NT_STATUS_OK 2 3 4 5 6 7 8 9 10\n", 2, "too many arguments");
	bad("1.5x Close 1 NT_STATUS_OK\n", 1, "bad time");
	bad("99999999999999999999 Close 1 NT_STATUS_OK\n", 1, "out of range");
	bad("1.5\n", 1, "no command");
	bad("READ3 \"/f\" */0 1 0x0\n", 1, "'/0'");
	bad("READ3 \"/f\" *^5 1 0x0\n", 1, "unknown qualifier");
	bad("READ3 \"/f\" */ 1 0x0\n", 1, "bad random value");
	bad("READ3 \"/f\" +zz 1 0x0\n", 1, "bad number");
	bad("CREATE3 \"/f\" 3 0x0\n", 1, "out of range");
	bad("RANDOMSTRING 10 \"x\"\n", 1, "index");
	bad("RANDOMSTRING 1 \"[ab\"\n", 1, "unbalanced");
	bad("WRITE 0 4096 0x00000000\n", 1, "WRITE: expected 3 arguments");
	bad("WRITE 0 4096 1 0x00000000\n", 1, "expected a path");
	/* a very long line */
	const size_t n = 300u * 1024u;
	char *const big = malloc(n + 128);
	assert_non_null(big);
	strcpy(big, "Close 1 NT_STATUS_OK\nMkdir \"");
	memset(big + strlen(big), 'a', n);
	strcpy(big + 28 + n, "\" NT_STATUS_OK\nClose 1 NT_STATUS_OK\n");
	bad(big, 2, "line longer");
	free(big);
}

static void test_lenient_counts_every_bad_line(void **state)
{
	(void)state;
	rp_memsink m;
	char eb[RP_ERRBUF_SIZE] = "";
	uint64_t skipped = 0;
	assert_int_equal(load("Close 1 NT_STATUS_OK\nbogus\nClose x NT_STATUS_OK\nENDLOOP\nClose 2 NT_STATUS_OK\n"
			      "LOOP 2\nClose 3 NT_STATUS_OK\n",
			      true, &m, eb, &skipped),
			 0);
	assert_int_equal(skipped, 4);
	assert_int_equal(m.n_ops, 3);
	rp_memsink_fini(&m);
}

static void test_empty_and_comments(void **state)
{
	(void)state;
	rp_memsink m = ok("");
	assert_int_equal(m.n_ops, 0);
	rp_memsink_fini(&m);
	m = ok("# only\n\n   \t\n# comments\r\n");
	assert_int_equal(m.n_ops, 0);
	rp_memsink_fini(&m);
	m = ok("Close 1 NT_STATUS_OK\r\n  Close 2   NT_STATUS_OK  \nClose 3 NT_STATUS_OK");
	assert_int_equal(m.n_ops, 3);
	rp_memsink_fini(&m);
}

/* Write ops with the writer; return the text. */
static char *write_text(const rp_memsink *m, rp_loadfile_dialect dialect, bool timestamps)
{
	char path[] = "/tmp/reprise-loadfile-w-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char eb[RP_ERRBUF_SIZE];
	rp_conv_lf *w = NULL;
	rp_conv_lf_opts wo;
	rp_conv_lf_opts_init(&wo);
	wo.dialect = dialect;
	wo.timestamps = timestamps;
	assert_int_equal(rp_conv_lf_open_path(&w, path, &wo, eb), 0);
	rp_sink *const s = rp_conv_lf_sink(w);
	assert_int_equal(s->meta(s, &m->meta), 0);
	for (uint32_t id = 1; id <= rp_strtab_count(m->strings); id++) {
		uint32_t n;
		const char *const p = rp_memsink_string((void *)m, id, &n);
		assert_int_equal(s->string(s, id, p, n), 0);
	}
	for (size_t i = 0; i < m->n_ops; i++)
		assert_int_equal(s->op(s, &m->ops[i]), 0);
	assert_int_equal(s->finish(s), 0);
	assert_int_equal(rp_conv_lf_close(w, eb), 0);
	FILE *const f = fopen(path, "r");
	static char buf[8192];
	const size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	buf[got] = '\0';
	fclose(f);
	unlink(path);
	return buf;
}

static void test_writer_cross_dialect(void **state)
{
	(void)state;
	/* NFS ops written as SMB: path-only I/O gets an NTCreateX/Close pair, readdir a pattern */
	rp_memsink m = ok("READ3 \"/d/f\" 0 4096 0x00000000\nREADDIRPLUS3 \"/d\" 0x00000000\nLINK3 \"/d/h\" \"/d/f\" 0x0\n"
			  "GETATTR3 \"/d/f\" 0x00000046\n");
	const char *const smb = write_text(&m, RP_LOADFILE_SMB, false);
	assert_string_equal(smb, "NTCreateX \"\\d\\f\" 0x0 0x1 60000 NT_STATUS_OK\n"
				 "ReadX 60000 0 4096 4096 NT_STATUS_OK\n"
				 "Close 60000 NT_STATUS_OK\n"
				 "FIND_FIRST \"\\d\\*\" 260 0 0 NT_STATUS_OK\n"
				 "# reprise: no SMB-dialect command: 0.000000000 - c1 link path=\"/d/h\" path2=\"/d/f\" "
				 "raw=dbench-nfs -> OK (NFS3_OK)\n"
				 "QUERY_PATH_INFORMATION \"\\d\\f\" 1004 NT_STATUS_UNSUCCESSFUL\n");
	rp_memsink_fini(&m);
	/* SMB ops written as NFS: handles become the paths their opens named */
	m = ok("NTCreateX \"\\d\\f\" 0x40 0x5 7 NT_STATUS_OK\nWriteX 7 0 10 10 NT_STATUS_OK\n"
	       "Close 7 NT_STATUS_OK\nMkdir \"\\d\" NT_STATUS_OBJECT_NAME_COLLISION\nClose 8 *\n");
	const char *const nfs = write_text(&m, RP_LOADFILE_NFS, true);
	assert_string_equal(nfs, "0.000000000 CREATE3 \"/d/f\" 0 0x00000000\n"
				 "0.000000000 WRITE3 \"/d/f\" 0 10 0 0x00000000\n"
				 "# reprise: NFS has no close: 0.000000000 - c1 close fh=7 raw=dbench-smb -> OK (NT_STATUS_OK)\n"
				 "0.000000000 MKDIR3 \"/d\" 0x00000011\n"
				 "# reprise: NFS has no close: 0.000000000 - c1 close fh=8 raw=dbench-smb -> UNKNOWN\n");
	rp_memsink_fini(&m);
	/* SMB deletes by delete-on-close (at open, by set-info) are NFS removes at the close */
	m = ok("NTCreateX \"\\d\\g\" 0x1040 0x5 9 NT_STATUS_OK\nClose 9 NT_STATUS_OK\n"
	       "NTCreateX \"\\d\\e\" 0x1 0x1 10 NT_STATUS_OK\nSET_FILE_INFORMATION 10 1013 NT_STATUS_OK\n"
	       "Close 10 NT_STATUS_OK\n");
	const char *const del = write_text(&m, RP_LOADFILE_NFS, false);
	assert_string_equal(del, "CREATE3 \"/d/g\" 0 0x00000000\n"
				 "REMOVE3 \"/d/g\" 0x00000000\n"
				 "LOOKUP3 \"/d/e\" 0x00000000\n"
				 "# reprise: delete-on-close: a REMOVE3 at the close: 0.000000000 - c1 setattr fh=10 "
				 "set=delete raw=dbench-smb:level=1013 -> OK (NT_STATUS_OK)\n"
				 "RMDIR3 \"/d/e\" 0x00000000\n");
	rp_memsink_fini(&m);
}

static void test_writer_auto_dialect(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	m.meta.source = RP_SRC_SYSCALL;
	assert_true(rp_strtab_append(m.strings, "/x", 2) == 1);
	rp_op op = { .op = RP_OP_STAT, .path = 1, .t_end = RP_TIME_UNKNOWN };
	rp_op_set_status(&op, RP_SK_NFS3, 2);
	m.ops = &op;
	m.n_ops = 1;
	assert_string_equal(write_text(&m, RP_LOADFILE_AUTO, false), "GETATTR3 \"/x\" 0x00000002\n");
	rp_op_set_status(&op, RP_SK_ERRNO, ENOENT);
	assert_string_equal(write_text(&m, RP_LOADFILE_AUTO, false),
			    "QUERY_PATH_INFORMATION \"\\x\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n");
	m.meta.source = RP_SRC_PCAP_NFS;
	assert_string_equal(write_text(&m, RP_LOADFILE_AUTO, false), "GETATTR3 \"/x\" 0x00000002\n");
	m.ops = NULL;
	m.n_ops = 0;
	rp_memsink_fini(&m);
}

static void test_open_errors(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	assert_int_equal(rp_loadfile_reader_open(&r, "/nonexistent/x.load", NULL, eb), RP_E_IO);
	assert_non_null(strstr(eb, "/nonexistent/x.load"));
	assert_null(r);
	assert_int_equal(rp_loadfile_reader_open(&r, "/tmp", NULL, eb), RP_E_UNSUPPORTED);
	rp_conv_lf *w = NULL;
	rp_conv_lf_opts wo;
	rp_conv_lf_opts_init(&wo);
	assert_int_equal(rp_conv_lf_open_path(&w, "/nonexistent/out.load", &wo, eb), RP_E_IO);
	assert_int_equal(rp_conv_lf_close(NULL, eb), 0);
	rp_reader_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smb_commands),	     cmocka_unit_test(test_smb_backend_variants),
		cmocka_unit_test(test_nfs_commands),	     cmocka_unit_test(test_loops),
		cmocka_unit_test(test_loop_time_and_repeat), cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_other_controls),	     cmocka_unit_test(test_rewind),
		cmocka_unit_test(test_malformed),	     cmocka_unit_test(test_lenient_counts_every_bad_line),
		cmocka_unit_test(test_empty_and_comments),   cmocka_unit_test(test_writer_cross_dialect),
		cmocka_unit_test(test_writer_auto_dialect),  cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_loop_expansion_bounded), cmocka_unit_test(test_empty_loops_end_at_once),
		cmocka_unit_test(test_loop_times_saturate),    cmocka_unit_test(test_utf8_bom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
