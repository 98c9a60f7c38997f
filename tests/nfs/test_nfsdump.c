/* Unit tests of the nfsdump text reader (capture/rpc/nfsdump*.c): lines, pairing, names, the pitfalls, gzip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "capture/nfsdump.h"
#include "capture/rpc/nfsdump_int.h"
#include "formats/sink.h"

#define DIR_FH "cfbc65840a0000000c00000003660800248000000c0000000200000001800000"
#define FILE_FH "cfbc65840a0000000c000000b84f08000f8300000c0000000200000001800000"
#define CALL_TAIL " con = XXX len = XXX"
#define REPLY_TAIL " status=XXX pl = XXX con = XXX len = XXX"
#define ATTR_FILE " ftype 1 mode 1b6 nlink 1 uid 18abf gid 18a8a size 207 used 0 rdev 0 rdev2 0 fsid 77 fileid 84fb8" \
		  " atime 1006231501.431992 mtime 1006231501.431992 ctime 1006231501.436870"
#define ATTR_DIR " ftype 2 mode 1c0 nlink 2 uid 18abf gid 18a8a size 2000 used 2000 rdev 0 rdev2 0 fsid 77 fileid 86603" \
		 " atime 997133456.000999 mtime 1006231501.427114 ctime 1006231501.427114"

typedef struct run {
	rp_memsink m;
	rp_nfsdump_stats st;
	int rc;
} run;

/* Decode text (lines separated by '\n') into r. */
static void decode(run *r, const char *text)
{
	assert_int_equal(rp_memsink_init(&r->m), 0);
	char errbuf[RP_ERRBUF_SIZE];
	r->rc = rp_nfsdump_mem(text, strlen(text), "t.txt", &r->m.base, NULL, &r->st, errbuf);
}

static void done(run *r)
{
	rp_memsink_fini(&r->m);
}

static const char *path_of(run *r, uint32_t id)
{
	static char buf[512];
	uint32_t len = 0;
	const char *const s = rp_strtab_get(r->m.strings, id, &len);
	if (!s)
		return "";
	snprintf(buf, sizeof(buf), "%.*s", (int)len, s);
	return buf;
}

static void test_times(void **state)
{
	(void)state;
	uint64_t ns = 0;
	bool v2 = false;
	assert_true(rp__nd_time("1006231501.391115", 17, false, &ns, &v2));
	assert_int_equal(ns, 1006231501391115000ull);
	assert_false(v2);
	/* NFSv2's %d.%d: .79027 is 79,027 us, only for v2 */
	assert_false(rp__nd_time("996088922.79027", 15, false, &ns, &v2));
	assert_true(rp__nd_time("996088922.79027", 15, true, &ns, &v2));
	assert_int_equal(ns, 996088922079027000ull);
	assert_true(v2);
	/* 7 fraction digits (garbage in the traces), no dot, letters, too many seconds */
	assert_false(rp__nd_time("1025711813.4075311", 18, true, &ns, &v2));
	assert_false(rp__nd_time("1006231501", 10, false, &ns, &v2));
	assert_false(rp__nd_time("10062x1501.000000", 17, false, &ns, &v2));
	assert_false(rp__nd_time("99999999999.000000", 18, false, &ns, &v2));
}

static void test_parse(void **state)
{
	(void)state;
	nd_rec r;
	const char *l = "1006231501.394289 31.03f7 30.0801 T C3 b653f2e4 3 lookup fh " DIR_FH " name \"a b\"" CALL_TAIL;
	assert_int_equal(rp__nd_parse(l, strlen(l), &r), 1);
	assert_true(r.call);
	assert_int_equal(r.vers, 3);
	assert_int_equal(r.xid, 0xb653f2e4);
	assert_int_equal(r.proc, ND_LOOKUP);
	assert_int_equal(r.src_ip, 0x31);
	assert_int_equal(r.src_port, 0x3f7);
	assert_int_equal(r.dst_port, 2049);
	assert_int_equal(r.fh_len, 32);
	assert_int_equal(r.name.len, 3); /* a quoted name may hold a blank */
	assert_memory_equal(r.name.p, "a b", 3);
	/* two attribute sets: the object's, then the directory's */
	l = "1006231501.395594 30.0801 31.03f7 T R3 b653f2e4 3 lookup OK fh " FILE_FH ATTR_FILE ATTR_DIR REPLY_TAIL;
	assert_int_equal(rp__nd_parse(l, strlen(l), &r), 1);
	assert_false(r.call);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.n_attrs, 2);
	assert_int_equal(r.attr[0].ftype, 1);
	assert_int_equal(r.attr[0].size, 0x207);
	assert_int_equal(r.attr[1].ftype, 2);
	assert_int_equal(r.attr[1].fsid, 0x77);
	/* a failed reply's status is hex */
	l = "1006231501.396920 30.0801 31.03f7 T R3 b953f2e4 3 lookup 46  status=XXX pl = XXX";
	assert_int_equal(rp__nd_parse(l, strlen(l), &r), 1);
	assert_int_equal(r.status, 0x46);
	/* cut before its tail, a name that is not its number's, a bad address, a comment */
	l = "1006231501.394289 31.03f7 30.0801 T C3 b653f2e4 3 lookup fh " DIR_FH " name";
	assert_int_equal(rp__nd_parse(l, strlen(l), &r), 0);
	l = "1006231501.394289 31.03f7 30.0801 T C3 b653f2e4 3 getattr fh " DIR_FH CALL_TAIL;
	assert_int_equal(rp__nd_parse(l, strlen(l), &r), 0);
	l = "1006231501.394289 31.0x3f7 30.0801 T C3 b653f2e4 1 getattr fh " DIR_FH CALL_TAIL;
	assert_int_equal(rp__nd_parse(l, strlen(l), &r), 0);
	assert_int_equal(rp__nd_parse("# comment", 9, &r), -1);
	/* bad hex in one value: counted, the record kept */
	l = "1006231501.394289 31.03f7 30.0801 T C3 1 6 read fh " DIR_FH " off 12g count 2000" CALL_TAIL;
	assert_int_equal(rp__nd_parse(l, strlen(l), &r), 1);
	assert_int_equal(r.bad_values, 1);
	assert_false(r.have & NR_OFF);
}

static void test_pairing(void **state)
{
	(void)state;
	run r;
	decode(&r, "1006231501.000000 31.03f7 30.0801 T C3 10 1 getattr fh " FILE_FH CALL_TAIL "\n"
		   "1006231501.000100 32.03f7 30.0801 T C3 10 1 getattr fh " FILE_FH CALL_TAIL "\n"  /* another client */
		   "1006231501.000200 31.03f7 30.0801 T C3 10 1 getattr fh " FILE_FH CALL_TAIL "\n"  /* a retransmission */
		   "1006231501.000500 30.0801 31.03f7 T R3 10 1 getattr OK" ATTR_FILE REPLY_TAIL "\n"
		   "1006231501.000600 30.0801 31.03f7 T R3 99 1 getattr OK" ATTR_FILE REPLY_TAIL "\n"); /* no call */
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.st.calls, 3);
	assert_int_equal(r.st.dup_calls, 1);
	assert_int_equal(r.st.paired, 1);
	assert_int_equal(r.st.orphan_replies, 1);
	assert_int_equal(r.st.no_reply, 1);
	assert_int_equal(r.m.n_ops, 2);
	assert_int_equal(r.m.meta.source, RP_SRC_NFSDUMP);
	const rp_op *const a = &r.m.ops[0], *const b = &r.m.ops[1];
	assert_int_equal(a->op, RP_OP_STAT);
	assert_int_equal(a->status, 0);
	assert_int_equal(a->t_end - a->t_start, 500000);
	assert_int_equal(a->result, 0x207); /* the size its attributes show */
	assert_true(b->flags & RP_OPF_NO_REPLY);
	assert_int_not_equal(a->client, b->client);
	assert_int_equal(a->handle, b->handle);
	done(&r);
}

static void test_names(void **state)
{
	(void)state;
	run r;
	/* A LOOKUP in a never-named directory: the directory is named under its fsid, the file inside it;
	 * the GETATTR after it uses that name; a RENAME moves it. */
	decode(&r, "1006231501.000000 31.03f7 30.0801 T C3 1 3 lookup fh " DIR_FH " name \"f\"" CALL_TAIL "\n"
		   "1006231501.000100 30.0801 31.03f7 T R3 1 3 lookup OK fh " FILE_FH ATTR_FILE ATTR_DIR REPLY_TAIL "\n"
		   "1006231501.000200 31.03f7 30.0801 T C3 2 1 getattr fh " FILE_FH CALL_TAIL "\n"
		   "1006231501.000300 30.0801 31.03f7 T R3 2 1 getattr OK" ATTR_FILE REPLY_TAIL "\n"
		   "1006231501.000400 31.03f7 30.0801 T C3 3 e rename fh " DIR_FH " name \"f\" fh2 " DIR_FH
		   " name2 \"g\"" CALL_TAIL "\n"
		   "1006231501.000500 30.0801 31.03f7 T R3 3 e rename OK" REPLY_TAIL "\n"
		   "1006231501.000600 31.03f7 30.0801 T C3 4 1 getattr fh " FILE_FH CALL_TAIL "\n"
		   "1006231501.000700 30.0801 31.03f7 T R3 4 1 getattr OK" ATTR_FILE REPLY_TAIL "\n");
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.n_ops, 4);
	char dir[512];
	snprintf(dir, sizeof(dir), "%s", path_of(&r, r.m.ops[0].path));
	assert_int_equal(strncmp(dir, "/.reprise/nfs/fsid-77/", 22), 0);
	assert_string_equal(dir + strlen(dir) - 2, "/f");
	dir[strlen(dir) - 2] = '\0';
	char want[600];
	snprintf(want, sizeof(want), "%s/f", dir);
	assert_string_equal(path_of(&r, r.m.ops[1].path), want);
	snprintf(want, sizeof(want), "%s/g", dir);
	assert_string_equal(path_of(&r, r.m.ops[2].path2), want);
	assert_string_equal(path_of(&r, r.m.ops[3].path), want);
	assert_int_equal(r.st.attrs_twice, 1);
	done(&r);
}

static void test_pitfalls(void **state)
{
	(void)state;
	run r;
	/* the clock jumps back five minutes, then comes back; a v2 reply's %d.%d times; garbage and NUL lines */
	decode(&r, "1006231501.000000 31.03f7 30.0801 T C3 1 1 getattr fh " FILE_FH CALL_TAIL "\n"
		   "1006231201.000100 31.03f7 30.0801 T C3 2 1 getattr fh " FILE_FH CALL_TAIL "\n"
		   "1006231501.000300 31.03f7 30.0801 T C3 3 1 getattr fh " FILE_FH CALL_TAIL "\n"
		   "1043914191.505850 30.0801 88.03fe U R2 232c 1 getattr OK ftype 2 mode 47ff nlink 5 uid 0 gid 0 size b000"
		   " blksize 2000 rdev 0 blocks 58 fsid 8664 fileid 2f1201 atime 1043880643.104144 mtime 911397415.0"
		   " ctime 996088922.79027" REPLY_TAIL "\n"
		   "XX funny line\n"
		   "# a comment\n");
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.st.clock_back, 1);
	assert_int_equal(r.st.v2_times, 1);
	assert_int_equal(r.st.garbage, 1);
	assert_int_equal(r.st.comments, 1);
	assert_int_equal(r.st.orphan_replies, 1);
	assert_int_equal(r.m.n_ops, 3);
	for (size_t i = 1; i < r.m.n_ops; i++)
		assert_true(r.m.ops[i].t_start >= r.m.ops[i - 1].t_start);
	/* the jump is shifted out: the third call is 300 us after the first, not five minutes */
	assert_int_equal(r.m.ops[2].t_start, 300000);
	done(&r);
	/* absurd offsets and counts: the op skipped, counted */
	decode(&r, "1006231501.000000 31.03f7 30.0801 T C3 1 6 read fh " FILE_FH " off ffffffffffff count 2000" CALL_TAIL
		   "\n1006231501.000100 31.03f7 30.0801 T C3 2 6 read fh " FILE_FH " off 0 count 7fffffff" CALL_TAIL "\n");
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.st.absurd, 2);
	assert_int_equal(r.m.n_ops, 0);
	done(&r);
}

/* gzip of text (RFC 1952), as gzip(1) writes it. */
static size_t gz(const char *text, uint8_t *out, size_t cap)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)text;
	zs.avail_in = (uInt)strlen(text);
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	const size_t n = cap - zs.avail_out;
	deflateEnd(&zs);
	return n;
}

static void test_gzip(void **state)
{
	(void)state;
	static const char text[] = "1006231501.000000 31.03f7 30.0801 T C3 1 1 getattr fh " FILE_FH CALL_TAIL "\n"
				   "1006231501.000100 30.0801 31.03f7 T R3 1 1 getattr OK" ATTR_FILE REPLY_TAIL "\n";
	uint8_t buf[4096];
	const size_t n = gz(text, buf, sizeof(buf));
	assert_true(rp_nfsdump_sniff(buf, n));
	assert_true(rp_nfsdump_sniff(text, sizeof(text) - 1));
	assert_false(rp_nfsdump_sniff("open /a 1 2\n", 12));
	char errbuf[RP_ERRBUF_SIZE];
	rp_memsink m;
	rp_nfsdump_stats st;
	/* two members, then one cut short */
	uint8_t two[8192];
	memcpy(two, buf, n);
	memcpy(two + n, buf, n);
	assert_int_equal(rp_memsink_init(&m), 0);
	assert_int_equal(rp_nfsdump_mem(two, 2 * n, "t.gz", &m.base, NULL, &st, errbuf), 0);
	assert_true(st.gzip);
	assert_int_equal(st.lines, 4);
	assert_false(st.cut);
	rp_memsink_fini(&m);
	assert_int_equal(rp_memsink_init(&m), 0);
	assert_int_equal(rp_nfsdump_mem(two, n + n / 2, "t.gz", &m.base, NULL, &st, errbuf), 0);
	assert_true(st.cut);
	assert_true(st.lines >= 2);
	rp_memsink_fini(&m);
	/* corrupt: an error naming the input */
	buf[n / 2] ^= 0xff;
	buf[n / 2 + 1] ^= 0xff;
	assert_int_equal(rp_memsink_init(&m), 0);
	const int rc = rp_nfsdump_mem(buf, n, "t.gz", &m.base, NULL, &st, errbuf);
	if (rc < 0)
		assert_non_null(strstr(errbuf, "t.gz: gzip data corrupt"));
	rp_memsink_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times),   cmocka_unit_test(test_parse), cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_names),   cmocka_unit_test(test_pitfalls), cmocka_unit_test(test_gzip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
