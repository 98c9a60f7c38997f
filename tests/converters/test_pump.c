/* Unit tests of converters/pump.c: inputs opened and spooled, the producer sniffed, the pump's filters, names and progress. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "converters/pump.h"
#include "formats/error.h"

/* A scratch directory per test (its files removed by the test). */
static char dir[512];

static int dir_setup(void **state)
{
	(void)state;
	const char *const t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%.400s/rp-pump-XXXXXX", t && t[0] ? t : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

static void put(const char *path, const void *bytes, size_t n)
{
	FILE *const f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Standard input replaced by a pipe holding bytes (closed after them); the old one's descriptor. */
static int stdin_from(const void *bytes, size_t n)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], bytes, n), (ssize_t)n);
	close(p[1]);
	const int saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	close(p[0]);
	return saved;
}

static void stdin_back(int saved)
{
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

static void files_are_read_in_place_and_streams_spooled(void **state)
{
	(void)state;
	char path[600], eb[RP_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/in.txt", dir);
	put(path, "abc", 3);
	rp_conv_input in;
	assert_int_equal(rp_conv_input_open(&in, path, eb), RP_OK);
	assert_ptr_equal(in.path, path);
	assert_ptr_equal(in.name, path);
	assert_int_equal(in.fd, -1);
	assert_false(in.dir);
	rp_conv_input_close(&in);
	unlink(path);

	assert_int_equal(rp_conv_input_open(&in, dir, eb), RP_OK);
	assert_true(in.dir);

	assert_int_equal(rp_conv_input_open(&in, path, eb), RP_E_SYSTEM);
	char want[700];
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	assert_string_equal(eb, want);

	static const char bytes[] = "streamed bytes\n";
	const int saved = stdin_from(bytes, sizeof(bytes) - 1);
	const int rc = rp_conv_input_open(&in, "-", eb);
	stdin_back(saved);
	assert_int_equal(rc, RP_OK);
	assert_string_equal(in.name, "<stdin>");
	assert_true(in.fd >= 0);
	assert_int_equal(in.bytes, sizeof(bytes) - 1);
	snprintf(want, sizeof(want), "/dev/fd/%d", in.fd);
	assert_string_equal(in.path, want);
	assert_string_equal(in.fdpath, want);
	struct stat st;
	assert_int_equal(fstat(in.fd, &st), 0);
	assert_int_equal(st.st_nlink, 0); /* unlinked at once */
	char back[64] = "";
	assert_int_equal(pread(in.fd, back, sizeof(back), 0), (ssize_t)(sizeof(bytes) - 1));
	assert_string_equal(back, bytes);
	rp_conv_input_close(&in);
	assert_int_equal(in.fd, -1);
}

static void a_spool_that_cannot_be_made_is_named(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE], eb_tmp[RP_ERRBUF_SIZE];
	char *const old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", "/nonexistent-rp-pump", 1);
	const int saved = stdin_from("x", 1);
	rp_conv_input in;
	const int rc = rp_conv_input_open(&in, "-", eb);
	stdin_back(saved);
	const int tfd = rp_conv_tmp_file("t.strace", eb_tmp);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	assert_int_equal(rc, RP_E_SYSTEM);
	assert_string_equal(eb, "<stdin>: cannot spool it: /nonexistent-rp-pump: No such file or directory (set TMPDIR)");
	assert_int_equal(tfd, RP_E_SYSTEM);
	assert_string_equal(eb_tmp, "t.strace: cannot convert it: /nonexistent-rp-pump: No such file or directory (set TMPDIR)");

	/* With TMPDIR back: an unlinked file. */
	const int fd = rp_conv_tmp_file("t.strace", eb);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_nlink, 0);
	close(fd);
}

static void a_spool_is_renamed_in_messages(void **state)
{
	(void)state;
	rp_conv_input in = { .name = "<stdin>", .fd = 7 };
	snprintf(in.fdpath, sizeof(in.fdpath), "/dev/fd/7");
	char msg[64] = "/dev/fd/7: bad; again /dev/fd/7";
	rp_conv_input_rename(&in, msg, sizeof(msg));
	assert_string_equal(msg, "<stdin>: bad; again <stdin>");
	char small[16] = "/dev/fd/7: x";
	rp_conv_input_rename(&in, small, 14); /* "<stdin>: x" fits 14 */
	assert_string_equal(small, "<stdin>: x");
	const rp_conv_input file = { .name = "a", .fd = -1, .fdpath = "/dev/fd/7" };
	char kept[32] = "/dev/fd/7: as it was";
	rp_conv_input_rename(&file, kept, sizeof(kept)); /* not spooled: nothing to rename */
	assert_string_equal(kept, "/dev/fd/7: as it was");
}

/* A producer of the test's own: claims "FAKE", emits ops of clients 1 and 2 at 0, 1, 2... s, n_fake of them. */
static size_t n_fake;
static int fake_rc;

static bool fake_sniff(const void *head, size_t len, const char *path)
{
	(void)path;
	return len >= 4 && memcmp(head, "FAKE", 4) == 0;
}

static int fake_run(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep, char *errbuf)
{
	(void)opts;
	rp_trace_meta m;
	memset(&m, 0, sizeof(m));
	const char *const base = strrchr(path, '/');
	snprintf(m.source_name, sizeof(m.source_name), "%s", base ? base + 1 : path); /* as a producer naming the trace after its file */
	int rc = sink->meta(sink, &m);
	for (size_t i = 0; rc == 0 && i < n_fake; i++) {
		const rp_op op = { .op = RP_OP_STAT, .client = 1 + (uint32_t)(i % 2), .t_start = i * 1000000000ull };
		rc = sink->op(sink, &op);
	}
	snprintf(rep->note, sizeof(rep->note), "%s: a note", path);
	if (rc == 0 && fake_rc)
		return rp_fail(errbuf, fake_rc, "%s: failed on purpose", path);
	return rc ? rc : sink->finish(sink);
}

static const rp_conv_producer fake = { "fake", "the test's", fake_sniff, fake_run, false };

static void producers_are_sniffed(void **state)
{
	(void)state;
	char path[600], eb[RP_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/x.bin", dir);
	put(path, "FAKE\x00\x01\x02\xff", 8); /* binary: no built-in producer claims it */
	rp_conv_input in;
	assert_int_equal(rp_conv_input_open(&in, path, eb), RP_OK);
	const rp_conv_producer *prod = NULL;
	const rp_conv_producer *const extra[] = { &fake };
	assert_int_equal(rp_conv_input_producer(&in, extra, 1, &prod, eb), RP_OK);
	assert_ptr_equal(prod, &fake);
	/* Without the extra producer no one claims it. */
	assert_true(rp_conv_input_producer(&in, NULL, 0, &prod, eb) < 0);
	assert_null(prod);
	assert_non_null(strstr(eb, path));
	unlink(path);

	/* A spooled input's message names it, not /dev/fd/N. */
	const int saved = stdin_from("\x00\x01\x02\x03\xfe\xff\x00\x7f", 8);
	const int rc = rp_conv_input_open(&in, "-", eb);
	stdin_back(saved);
	assert_int_equal(rc, RP_OK);
	assert_true(rp_conv_input_producer(&in, NULL, 0, &prod, eb) < 0);
	assert_non_null(strstr(eb, "<stdin>"));
	assert_null(strstr(eb, "/dev/fd/"));
	rp_conv_input_close(&in);

	/* A directory without a CTF trace. */
	assert_int_equal(rp_conv_input_open(&in, dir, eb), RP_OK);
	assert_int_equal(rp_conv_input_producer(&in, extra, 1, &prod, eb), RP_E_NOTTRACE);
	char want[700];
	snprintf(want, sizeof(want), "%s: %s, and no CTF trace (a directory with a metadata file) within 6 levels", dir,
		 strerror(EISDIR));
	assert_string_equal(eb, want);
}

static uint64_t ticks, last_tick;
static int dones;

static void tick(void *ctx, uint64_t ops, const rp_reader *r)
{
	(void)r;
	assert_ptr_equal(ctx, &ticks);
	ticks++;
	last_tick = ops;
}

static void done(void *ctx)
{
	(void)ctx;
	dones++;
}

static void the_pump_filters_names_and_counts(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	n_fake = 3 * 65536 + 5;
	fake_rc = 0;
	const int saved = stdin_from("FAKE", 4);
	rp_conv_input in;
	const int orc = rp_conv_input_open(&in, "-", eb);
	stdin_back(saved);
	assert_int_equal(orc, RP_OK);
	rp_memsink ms;
	assert_int_equal(rp_memsink_init(&ms), 0);
	const rp_conv_pump_opts o = { .filter_client = true, .client = 2, .window = true, .from_ns = 10000000000ull,
				      .to_ns = 20000000000ull, .progress = tick, .progress_done = done, .ctx = &ticks };
	rp_conv_pump_report rep;
	ticks = 0;
	dones = 0;
	assert_int_equal(rp_conv_pump(&in, &fake, &ms.base, &o, &rep, eb), RP_OK);
	/* Client 2's ops at 11, 13, ..., 19 s: 5 of them, the spool's name replaced in the metadata and the note. */
	assert_int_equal(ms.n_ops, 5);
	assert_int_equal(rep.kept, 5);
	for (size_t i = 0; i < ms.n_ops; i++) {
		assert_int_equal(ms.ops[i].client, 2);
		assert_int_equal(ms.ops[i].t_start, (11 + 2 * i) * 1000000000ull);
	}
	assert_string_equal(ms.meta.source_name, "<stdin>");
	assert_string_equal(rep.in.note, "<stdin>: a note");
	assert_int_equal(ticks, 3); /* every 65536 ops the producer made, before the filter */
	assert_int_equal(last_tick, 3 * 65536);
	assert_int_equal(dones, 1);
	assert_true(ms.finished);
	rp_memsink_fini(&ms);

	/* The producer's error comes back renamed; no filter asked: everything passes, kept is not counted. */
	n_fake = 4;
	fake_rc = RP_E_CORRUPT;
	assert_int_equal(rp_memsink_init(&ms), 0);
	const rp_conv_pump_opts plain = { .lenient = false };
	assert_int_equal(rp_conv_pump(&in, &fake, &ms.base, &plain, &rep, eb), RP_E_CORRUPT);
	assert_string_equal(eb, "<stdin>: failed on purpose");
	assert_int_equal(ms.n_ops, 4);
	assert_int_equal(rep.kept, 0);
	rp_memsink_fini(&ms);
	rp_conv_input_close(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(files_are_read_in_place_and_streams_spooled, dir_setup, dir_teardown),
		cmocka_unit_test(a_spool_that_cannot_be_made_is_named),
		cmocka_unit_test(a_spool_is_renamed_in_messages),
		cmocka_unit_test_setup_teardown(producers_are_sniffed, dir_setup, dir_teardown),
		cmocka_unit_test(the_pump_filters_names_and_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
