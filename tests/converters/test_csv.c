/* converters/csv.c: CSV I/O traces, each preset on records laid out as its format documents them, and column maps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "converters/csv.h"
#include "formats/sink.h"

typedef struct run {
	rp_memsink m;
	rp_csv_stats st;
	int rc;
	char errbuf[RP_ERRBUF_SIZE];
} run;

static void decode(run *r, const char *spec, const char *text, bool lenient)
{
	rp_csv_map map;
	assert_int_equal(rp_csv_map_parse(spec, &map, r->errbuf), 0);
	assert_int_equal(rp_memsink_init(&r->m), 0);
	FILE *const f = fmemopen((void *)(uintptr_t)text, strlen(text), "rb");
	assert_non_null(f);
	r->rc = rp_csv_read(f, "t.csv", &map, lenient, &r->m.base, &r->st, r->errbuf);
	fclose(f);
}

static const char *path_of(run *r, uint32_t id)
{
	static char buf[256];
	uint32_t len = 0;
	const char *const s = rp_strtab_get(r->m.strings, id, &len);
	snprintf(buf, sizeof(buf), "%.*s", s ? (int)len : 0, s ? s : "");
	return buf;
}

/* MSR Cambridge: Timestamp (FILETIME),Hostname,DiskNumber,Type,Offset,Size,ResponseTime (100 ns). */
static void msr(void **state)
{
	(void)state;
	run r;
	decode(&r, "msr",
	       "128166372003061629,usr,0,Write,3154233344,4096,30553\n"
	       "128166372003280000,usr,0,Read,0,8192,12000\n"
	       "128166372003290000,src1,1,Read,1048576,65536,8000\n",
	       false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.meta.source, RP_SRC_CSV);
	assert_int_equal(r.m.meta.capture_start_ns, 1172163600306162900ll); /* 2007-02-22 17:00:00.3 UTC */
	assert_int_equal(r.m.n_ops, 3);
	const rp_op *const w = &r.m.ops[0], *const rd = &r.m.ops[2];
	assert_int_equal(w->op, RP_OP_WRITE);
	assert_string_equal(path_of(&r, w->path), "/dev-usr_0");
	assert_int_equal(w->offset, 3154233344ull);
	assert_int_equal(w->length, 4096);
	assert_int_equal(w->t_end - w->t_start, 3055300); /* 30553 x 100 ns */
	assert_int_equal(rd->op, RP_OP_READ);
	assert_string_equal(path_of(&r, rd->path), "/dev-src1_1");
	assert_int_equal(rd->t_start, 22837100);
	assert_int_not_equal(rd->client, w->client); /* one client per device */
	assert_int_equal(r.st.files, 2);
	assert_int_equal(r.st.bytes_read, 73728);
	rp_memsink_fini(&r.m);
}

/* FIU: "ts pid process lba size op major minor md5", blanks, ts in ns, lba and size in sectors. */
static void fiu(void **state)
{
	(void)state;
	run r;
	decode(&r, "fiu",
	       "89966527841818 4749 syslogd 1398128 8 W 8 0 b7c8ab94c43e1b2f6a2e35b0f5f4ec5c\n"
	       "89966527871246 4744 klogd 1398136 8 W 8 0 a1e5c4e4e7f8e3a9b0c1d2e3f4a5b6c7\n"
	       "89966528901111 4749 syslogd 2000 16 R 8 1 00000000000000000000000000000000\n",
	       false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.n_ops, 3);
	assert_int_equal(r.m.ops[0].offset, 1398128ull * 512);
	assert_int_equal(r.m.ops[0].length, 4096);
	assert_int_equal(r.m.ops[1].t_start, 29428);
	assert_string_equal(path_of(&r, r.m.ops[0].path), "/dev-8_0");
	assert_string_equal(path_of(&r, r.m.ops[2].path), "/dev-8_1");
	assert_int_equal(r.m.ops[0].client, r.m.ops[2].client); /* one client per process */
	assert_int_not_equal(r.m.ops[0].client, r.m.ops[1].client);
	rp_memsink_fini(&r.m);
}

/* Alibaba: device_id,opcode,offset,length,timestamp (us). */
static void alibaba(void **state)
{
	(void)state;
	run r;
	decode(&r, "alibaba", "419,W,8792731648,16384,1577808000000047\n419,R,8792731648,4096,1577808000000200\n"
	       "3,R,0,512,1577808000000300\n", false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.n_ops, 3);
	assert_string_equal(path_of(&r, r.m.ops[0].path), "/dev-419");
	assert_int_equal(r.m.ops[1].t_start, 153000);
	assert_int_equal(r.m.ops[1].op, RP_OP_READ);
	assert_int_equal(r.st.files, 2);
	rp_memsink_fini(&r.m);
}

/* Tencent CBS: Timestamp (s),Offset,Size (sectors),IOType (0 read, 1 write),VolumeID. */
static void tencent(void **state)
{
	(void)state;
	run r;
	decode(&r, "tencent", "1538323200,12345,8,1,1063\n1538323201,0,16,0,1063\n1538323201,99,1,0,7\n", false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.n_ops, 3);
	assert_int_equal(r.m.ops[0].op, RP_OP_WRITE);
	assert_int_equal(r.m.ops[0].offset, 12345ull * 512);
	assert_int_equal(r.m.ops[1].length, 8192);
	assert_int_equal(r.m.ops[1].t_start, 1000000000ull);
	assert_string_equal(path_of(&r, r.m.ops[2].path), "/dev-7");
	rp_memsink_fini(&r.m);
}

/* A column map: inodes, a header, other ops, reordered times, an absurd offset, bad lines strict and lenient. */
static void column_map(void **state)
{
	(void)state;
	run r;
	static const char text[] = "time,ino,op,off,len\n"
				   "0.5,12,read,0,100\n"
				   "0.25,12,write,100,100\n"            /* earlier: taken as 0.5 */
				   "0.75,13,trim,0,4096\n"              /* another op */
				   "1,13,write,1125899906842624,1\n"     /* past 2^50 */
				   "1.5,13,write,10,x\n";               /* not a record */
	decode(&r, "time=1,inode=2,op=3,offset=4,size=5,unit=s,header=1,read=read,write=write", text, true);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.n_ops, 2);
	assert_string_equal(path_of(&r, r.m.ops[0].path), "/inode-12");
	assert_int_equal(r.m.ops[1].t_start, 0);
	assert_int_equal(r.st.reordered, 1);
	assert_int_equal(r.st.other, 1);
	assert_int_equal(r.st.absurd, 1);
	assert_int_equal(r.st.bad, 1);
	char sum[512];
	rp_csv_map map;
	assert_int_equal(rp_csv_map_parse("time=1,inode=2,op=3,offset=4,size=5", &map, r.errbuf), 0);
	rp_csv_summary(&r.st, &map, sum, sizeof(sum));
	assert_non_null(strstr(sum, "one per inode"));
	assert_non_null(strstr(sum, "names no paths"));
	rp_memsink_fini(&r.m);
	/* without --lenient the bad line is an error naming it */
	decode(&r, "time=1,inode=2,op=3,offset=4,size=5,unit=s,header=1,read=read,write=write", text, false);
	assert_int_equal(r.rc, RP_E_SYNTAX);
	assert_non_null(strstr(r.errbuf, "t.csv:6:"));
	rp_memsink_fini(&r.m);
}

static void bad_maps(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	rp_csv_map m;
	static const char *const bad[] = { "", "nonesuch", "time=1,op=2,offset=3", "time=0,op=1,offset=2,size=3,device=4",
					   "time=65,op=1,offset=2,size=3,device=4", "time=1,op=2,offset=3,size=4,device=5,unit=h",
					   "time=1,op=2,offset=3,size=4,device=5,sep=;", "time=1,op=2,offset=3,size=4,device=5+",
					   "time=1,,op=2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rp_csv_map_parse(bad[i], &m, eb), RP_E_INVAL);
	assert_int_equal(rp_csv_map_parse("time=1,op=2,offset=3,size=4,device=5", &m, eb), 0);
	assert_string_equal(m.name, "columns");
	/* a long line is a bad line, not a crash; NUL bytes too */
	static char big[RP_CSV_LINE_MAX * 2];
	memset(big, 'a', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	run r;
	decode(&r, "alibaba", big, true);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.st.bad, 1);
	assert_int_equal(r.m.n_ops, 0);
	rp_memsink_fini(&r.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(msr),        cmocka_unit_test(fiu),      cmocka_unit_test(alibaba),
		cmocka_unit_test(tencent),    cmocka_unit_test(column_map), cmocka_unit_test(bad_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
