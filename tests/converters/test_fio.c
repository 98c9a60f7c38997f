/* converters/fio.c: the exact iolog and job file for small op lists, what is left out and why, bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "converters/fio.h"
#include "converters/registry.h"

/* A writer over an in-memory stream. */
typedef struct out {
	char *buf;
	size_t len;
	FILE *f;
	rp_conv_fio *w;
	rp_sink *s;
} out;

static void out_open(out *o, rp_fio_form form)
{
	memset(o, 0, sizeof(*o));
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
	char eb[RP_ERRBUF_SIZE];
	const rp_conv_fio_opts fo = { .form = form, .iolog = "/r/t.iolog" };
	assert_int_equal(rp_conv_fio_open(&o->w, o->f, &fo, eb), 0);
	o->s = rp_conv_fio_sink(o->w);
	const rp_trace_meta meta = { .source = RP_SRC_SYNTHETIC };
	assert_int_equal(o->s->meta(o->s, &meta), 0);
}

static void str(out *o, uint32_t id, const char *s)
{
	assert_int_equal(o->s->string(o->s, id, s, (uint32_t)strlen(s)), 0);
}

/* An op at t ms from client c. */
static rp_op mk(unsigned op, uint64_t t_ms, uint32_t c, uint64_t fh)
{
	rp_op x = { 0 };
	x.op = (uint16_t)op;
	x.t_start = t_ms * 1000000u;
	x.t_end = RP_TIME_UNKNOWN;
	x.client = c;
	x.handle = fh;
	return x;
}

static void put(out *o, rp_op x)
{
	assert_int_equal(o->s->op(o->s, &x), 0);
}

static void open_(out *o, uint64_t t, uint32_t c, uint64_t fh, uint32_t path)
{
	rp_op x = mk(RP_OP_OPEN, t, c, fh);
	x.path = path;
	put(o, x);
}

static void io(out *o, unsigned op, uint64_t t, uint32_t c, uint64_t fh, uint64_t off, uint64_t len, uint64_t ret)
{
	rp_op x = mk(op, t, c, fh);
	x.offset = off;
	x.length = len;
	x.result = ret;
	put(o, x);
}

/* Finish and close; the text written in *text (the caller frees o->buf). */
static void out_close(out *o, rp_conv_fio_stats *st)
{
	assert_int_equal(o->s->finish(o->s), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_conv_fio_close(o->w, st, eb), 0);
	fclose(o->f);
}

static void iolog_lines(void **state)
{
	(void)state;
	out o;
	out_open(&o, RP_FIO_IOLOG);
	str(&o, 1, "/data/a.db");
	str(&o, 2, "/data/my file");
	str(&o, 3, "/data/b");
	open_(&o, 1000, 1, 10, 1);              /* time 0 is the first line's, not this open's */
	io(&o, RP_OP_WRITE, 1001, 1, 10, 0, 8192, 8192);
	io(&o, RP_OP_READ, 1002, 1, 10, 4096, 4096, 100); /* a short read: what moved */
	rp_op fs = mk(RP_OP_FLUSH, 1003, 1, 10);
	put(&o, fs);
	fs.flags = RP_OPF_DATASYNC;
	put(&o, fs);
	open_(&o, 1004, 2, 10, 2);              /* client 2's handle 10 is another file */
	rp_op nr = mk(RP_OP_WRITE, 1005, 2, 10);
	nr.length = 10;
	nr.status = RP_STATUS_UNKNOWN; /* no reply seen: the length asked */
	put(&o, nr);
	rp_op st = mk(RP_OP_STAT, 1006, 1, 0);
	st.path = 1;
	put(&o, st);                            /* metadata: counted, not written */
	put(&o, mk(RP_OP_CLOSE, 1007, 1, 10));
	open_(&o, 1008, 1, 11, 3);              /* never closed: closed at the end */
	rp_op ph = mk(RP_OP_FALLOCATE, 1009, 1, 11);
	ph.oflags = RP_FA_PUNCH_HOLE;
	ph.offset = 4096;
	ph.length = 4096;
	put(&o, ph);
	rp_conv_fio_stats s;
	out_close(&o, &s);
	assert_string_equal(o.buf, "fio version 3 iolog\n"
				   "0 data/a.db add\n"
				   "0 data/a.db open\n"
				   "0 data/a.db write 0 8192\n"
				   "1000 data/a.db read 4096 100\n"
				   "2000 data/a.db sync 0 0\n"
				   "2000 data/a.db datasync 0 0\n"
				   "4000 data/my_file~1 add\n"
				   "4000 data/my_file~1 open\n"
				   "4000 data/my_file~1 write 0 10\n"
				   "6000 data/a.db close\n"
				   "8000 data/b add\n"
				   "8000 data/b open\n"
				   "8000 data/b trim 4096 4096\n"
				   "8000 data/my_file~1 close\n"
				   "8000 data/b close\n");
	assert_int_equal(s.reads, 1);
	assert_int_equal(s.read_bytes, 100);
	assert_int_equal(s.writes, 2);
	assert_int_equal(s.write_bytes, 8202);
	assert_int_equal(s.syncs, 1);
	assert_int_equal(s.datasyncs, 1);
	assert_int_equal(s.trims, 1);
	assert_int_equal(s.files, 3);
	assert_int_equal(s.mapped, 1);
	assert_int_equal(s.unclosed, 2);
	assert_int_equal(s.clients, 2);
	assert_int_equal(s.left_out[RP_OP_STAT], 1);
	char sum[2048];
	rp_conv_fio_summary(&s, RP_FIO_IOLOG, sum, sizeof(sum));
	assert_non_null(strstr(sum, "fio: 1 reads (100 bytes), 2 writes (8202 bytes), 1 syncs, 1 datasyncs, 1 trims on 3 files;"
				    " 1 name with bytes fio cannot take mapped to safe ones\n"));
	assert_non_null(strstr(sum, "left out, 1 ops fio cannot express: stat 1\n"));
	assert_non_null(strstr(sum, "the 2 clients' ops interleaved in time order in one job"));
	free(o.buf);
}

static void bad_inputs_are_counted(void **state)
{
	(void)state;
	out o;
	out_open(&o, RP_FIO_IOLOG);
	str(&o, 1, "/x");
	str(&o, 2, "/../../etc/passwd");
	char longname[400];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	str(&o, 3, longname);
	str(&o, 4, "/");
	io(&o, RP_OP_READ, 1, 1, 99, 0, 10, 10); /* a handle no open named, no path */
	open_(&o, 2, 1, 1, 1);
	io(&o, RP_OP_WRITE, 3, 1, 1, 1ull << 62, 10, 10); /* past 16 TiB */
	io(&o, RP_OP_WRITE, 3, 1, 1, UINT64_MAX - 5, 10, 10); /* wraps */
	rp_op fail = mk(RP_OP_WRITE, 4, 1, 1);
	fail.length = 10;
	fail.status = 28; /* ENOSPC in the trace */
	put(&o, fail);
	rp_op by_path = mk(RP_OP_READ, 5, 1, 0);
	by_path.path = 2; /* climbs out */
	by_path.length = 1;
	put(&o, by_path);
	by_path.path = 3; /* too long for fio */
	put(&o, by_path);
	open_(&o, 6, 1, 2, 4);             /* the top directory */
	put(&o, mk(RP_OP_FLUSH, 7, 1, 2)); /* counted as its path's */
	put(&o, mk(RP_OP_FLUSH, 8, 1, 1)); /* x was never read or written: a sync of nothing */
	rp_op fa = mk(RP_OP_FALLOCATE, 9, 1, 1);
	fa.length = 4096;
	put(&o, fa);
	put(&o, mk(RP_OP_CLOSE, 10, 1, 77)); /* closing what was never open: nothing */
	rp_conv_fio_stats s;
	out_close(&o, &s);
	assert_string_equal(o.buf, "fio version 3 iolog\n");
	assert_int_equal(s.skipped[RP_FIO_SKIP_HANDLE], 1);
	assert_int_equal(s.skipped[RP_FIO_SKIP_END], 2);
	assert_int_equal(s.skipped[RP_FIO_SKIP_FAILED], 1);
	assert_int_equal(s.skipped[RP_FIO_SKIP_PATH], 2);
	assert_int_equal(s.skipped[RP_FIO_SKIP_LONG], 1);
	assert_int_equal(s.skipped[RP_FIO_SKIP_SYNC], 1);
	assert_int_equal(s.skipped[RP_FIO_SKIP_FALLOC], 1);
	assert_int_equal(s.files, 0);
	char sum[2048];
	rp_conv_fio_summary(&s, RP_FIO_IOLOG, sum, sizeof(sum));
	assert_non_null(strstr(sum, "not written, 9 I/O ops: failed in the trace 1, on a handle no open named 1,"
				    " path out of the tree 2, name over 255 bytes 1, ending beyond 16 TiB 2"));
	free(o.buf);
}

/* A read that moved nothing is no I/O; a trace that records no counts (NFS-dialect loadfile) asks its lengths. */
static void zero_counts(void **state)
{
	(void)state;
	for (int nfs = 0; nfs < 2; nfs++) {
		out o;
		memset(&o, 0, sizeof(o));
		o.f = open_memstream(&o.buf, &o.len);
		char eb[RP_ERRBUF_SIZE];
		assert_int_equal(rp_conv_fio_open(&o.w, o.f, NULL, eb), 0);
		o.s = rp_conv_fio_sink(o.w);
		const rp_trace_meta meta = { .source = nfs ? RP_SRC_LOADFILE_NFS : RP_SRC_SYSCALL };
		assert_int_equal(o.s->meta(o.s, &meta), 0);
		str(&o, 1, "f");
		rp_op r = mk(RP_OP_READ, 0, 1, 0);
		r.path = 1; /* by path, as NFS */
		r.length = 4096;
		put(&o, r);
		rp_conv_fio_stats s;
		out_close(&o, &s);
		if (nfs) {
			assert_string_equal(o.buf, "fio version 3 iolog\n0 f add\n0 f open\n0 f read 0 4096\n0 f close\n");
		} else {
			assert_string_equal(o.buf, "fio version 3 iolog\n");
			assert_int_equal(s.skipped[RP_FIO_SKIP_ZERO], 1);
		}
		free(o.buf);
	}
}

static void dup_fork_and_time_order(void **state)
{
	(void)state;
	out o;
	out_open(&o, RP_FIO_IOLOG);
	str(&o, 1, "f");
	open_(&o, 10, 1, 3, 1);
	rp_op d = mk(RP_OP_DUP, 11, 1, 3);
	d.handle2 = 4;
	put(&o, d);
	put(&o, mk(RP_OP_CLOSE, 12, 1, 3));
	io(&o, RP_OP_WRITE, 13, 1, 4, 0, 5, 5); /* through the dup */
	rp_op fk = mk(RP_OP_FORK, 14, 1, 0);
	fk.result = 2;
	put(&o, fk);
	io(&o, RP_OP_READ, 12, 2, 4, 0, 5, 5);  /* the child, on the inherited handle, earlier than the one before */
	put(&o, mk(RP_OP_CLOSE, 15, 2, 4));     /* the child's close: the parent still has it */
	io(&o, RP_OP_WRITE, 16, 1, 4, 5, 5, 5);
	put(&o, mk(RP_OP_CLOSE, 17, 1, 4));
	rp_conv_fio_stats s;
	out_close(&o, &s);
	assert_string_equal(o.buf, "fio version 3 iolog\n"
				   "0 f add\n"
				   "0 f open\n"
				   "0 f write 0 5\n"
				   "1000 f read 0 5\n"
				   "3000 f write 5 5\n"
				   "4000 f close\n");
	assert_int_equal(s.raised, 1);
	assert_int_equal(s.unclosed, 0);
	free(o.buf);
}

static void job_file_lays_out_reads(void **state)
{
	(void)state;
	out o;
	out_open(&o, RP_FIO_JOB);
	str(&o, 1, "d/a");
	str(&o, 2, "d/b");
	str(&o, 3, "e/c");
	open_(&o, 1, 1, 1, 1);
	io(&o, RP_OP_READ, 2, 1, 1, 0, 10000, 10000); /* needs 10000: laid out as 10240 */
	open_(&o, 3, 1, 2, 2);
	io(&o, RP_OP_WRITE, 4, 1, 2, 0, 10, 10); /* written only: 4 KiB, so its directory exists */
	open_(&o, 5, 1, 3, 3);
	io(&o, RP_OP_READ, 6, 1, 3, 0, 1, 1);
	rp_conv_fio_stats s;
	out_close(&o, &s);
	assert_string_equal(o.buf, "; fio job file made by reprise convert (docs/fio.md): lays out the 3 files the iolog\n"
				   "; names (18432 bytes), then replays it as one job.  Run it in the directory to replay in:\n"
				   ";   cd DIR && fio THIS-FILE  (a relative read_iolog= is opened there too)\n"
				   "[global]\nioengine=psync\nstonewall\n"
				   "\n[layout-1]\ncreate_only=1\nfilesize=4096\nnrfiles=1\nfilename=d/b\n"
				   "\n[layout-2]\ncreate_only=1\nfilesize=10240\nnrfiles=1\nfilename=d/a\n"
				   "\n[layout-3]\ncreate_only=1\nfilesize=4096\nnrfiles=1\nfilename=e/c\n"
				   "\n[replay]\nread_iolog=/r/t.iolog\n");
	assert_int_equal(s.layout_bytes, 18432);
	free(o.buf);
}

static void file_and_directory_is_an_error(void **state)
{
	(void)state;
	out o;
	out_open(&o, RP_FIO_IOLOG);
	str(&o, 1, "a");
	str(&o, 2, "a/b");
	open_(&o, 1, 1, 1, 1);
	io(&o, RP_OP_WRITE, 2, 1, 1, 0, 1, 1);
	open_(&o, 3, 1, 2, 2);
	io(&o, RP_OP_WRITE, 4, 1, 2, 0, 1, 1);
	assert_int_equal(o.s->finish(o.s), RP_E_UNSUPPORTED);
	assert_non_null(strstr(o.s->errbuf, "a is both a file and the directory of a/b"));
	char eb[RP_ERRBUF_SIZE];
	rp_conv_fio_close(o.w, NULL, eb);
	fclose(o.f);
	free(o.buf);
}

static void registry_and_iolog_names(void **state)
{
	(void)state;
	assert_string_equal(rp_conv_consumer_for(NULL, "x.iolog")->name, "fio");
	assert_string_equal(rp_conv_consumer_for(NULL, "x.fio")->name, "fio-job");
	assert_string_equal(rp_conv_consumer_for("fio", "-")->name, "fio");
	char buf[4096];
	/* no path of the machine that wrote the job: the name alone, or in the directory given, as given */
	assert_int_equal(rp_conv_fio_iolog_for("/tmp/w.fio", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "w.iolog");
	assert_int_equal(rp_conv_fio_iolog_for("/w", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "w.iolog");
	assert_int_equal(rp_conv_fio_iolog_for("/no/such/dir/w.fio", "logs/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "logs/w.iolog");
	assert_int_equal(rp_conv_fio_iolog_for("w.fio", "/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/w.iolog");
	assert_int_equal(rp_conv_fio_iolog_for("<stdout>", "/srv", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/srv/replay.iolog");
	char small[7]; /* "w.iolog" and its NUL do not fit */
	assert_true(rp_conv_fio_iolog_for("/tmp/w.fio", NULL, small, sizeof(small)) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(iolog_lines),
		cmocka_unit_test(bad_inputs_are_counted),
		cmocka_unit_test(zero_counts),
		cmocka_unit_test(dup_fork_and_time_order),
		cmocka_unit_test(job_file_lays_out_reads),
		cmocka_unit_test(file_and_directory_is_an_error),
		cmocka_unit_test(registry_and_iolog_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
