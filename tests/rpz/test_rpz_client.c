/* The rpz leg of dbench's client.txt round trip: loadfile -> rpz -> loadfile -> rpz, identical ops and bytes. */
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
#include "formats/rpz.h"
#include "rpz_testlib.h"

#define CLIENT_TXT "/usr/share/dbench/client.txt"
#define CLIENT_OPS 458344

/*
 * A sink that forwards to the .rpz writer with a fixed source name, so that
 * two passes through different temporary files give comparable bytes.
 */
typedef struct rename_sink {
	rp_sink base;
	rp_sink *to;
} rename_sink;

static int fwd_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_trace_meta m = *meta;
	memset(m.source_name, 0, sizeof(m.source_name));
	snprintf(m.source_name, sizeof(m.source_name), "client.txt");
	rp_sink *const to = ((rename_sink *)s)->to;
	const int rc = to->meta(to, &m);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", to->errbuf) : 0;
}

static int fwd_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_sink *const to = ((rename_sink *)s)->to;
	const int rc = to->string(to, id, str, len);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", to->errbuf) : 0;
}

static int fwd_op(rp_sink *s, const rp_op *op)
{
	rp_sink *const to = ((rename_sink *)s)->to;
	const int rc = to->op(to, op);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", to->errbuf) : 0;
}

static int fwd_finish(rp_sink *s)
{
	rp_sink *const to = ((rename_sink *)s)->to;
	const int rc = to->finish(to);
	return rc < 0 ? rp_fail(s->errbuf, rc, "%s", to->errbuf) : 0;
}

/* Pump reader r into a new in-memory .rpz's sink s. */
static int feed_pump(rp_sink *s, void *r)
{
	char eb[RP_ERRBUF_SIZE];
	rename_sink fwd = { .base = { .meta = fwd_meta, .string = fwd_string, .op = fwd_op, .finish = fwd_finish },
			    .to = s };
	if (rp_reader_pump(r, &fwd.base, eb) < 0)
		fail_msg("pump: %s", eb);
	return 0;
}

static void test_client_txt(void **state)
{
	(void)state;
	if (access(CLIENT_TXT, R_OK) != 0) {
		print_message("# " CLIENT_TXT " is absent (apt-get install dbench): skipped\n");
		skip();
	}
	char eb[RP_ERRBUF_SIZE];
	rp_reader *lf = NULL;
	if (rp_loadfile_reader_open(&lf, CLIENT_TXT, NULL, eb) < 0)
		fail_msg("%s", eb);
	uint8_t *rpz1 = NULL;
	size_t len1 = 0;
	assert_int_equal(tl_write_fn(NULL, feed_pump, lf, &rpz1, &len1, eb), 0);
	rp_reader_close(lf);

	/* rpz -> loadfile */
	char path[] = "/tmp/rpz-client-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	rp_reader *r1 = NULL;
	assert_int_equal(rp_rpz_reader_open_mem(&r1, rpz1, len1, NULL, eb), 0);
	rp_rpz_info info;
	assert_int_equal(rp_rpz_reader_info(r1, &info), 0);
	assert_int_equal(info.ops, CLIENT_OPS);
	rp_conv_lf *lw = NULL;
	rp_conv_lf_opts lo;
	rp_conv_lf_opts_init(&lo);
	lo.dialect = RP_LOADFILE_AUTO;
	assert_int_equal(rp_conv_lf_open_path(&lw, path, &lo, eb), 0);
	if (rp_reader_pump(r1, rp_conv_lf_sink(lw), eb) < 0)
		fail_msg("rpz -> loadfile: %s", eb);
	assert_int_equal(rp_conv_lf_close(lw, eb), 0);
	assert_string_equal(r1->note, "");

	/* loadfile -> rpz again: the same bytes */
	if (rp_loadfile_reader_open(&lf, path, NULL, eb) < 0)
		fail_msg("%s", eb);
	uint8_t *rpz2 = NULL;
	size_t len2 = 0;
	assert_int_equal(tl_write_fn(NULL, feed_pump, lf, &rpz2, &len2, eb), 0);
	rp_reader_close(lf);
	assert_int_equal(len2, len1);
	assert_memory_equal(rpz1, rpz2, len1);

	/* and the same ops, one by one, as the loadfile reader gives them */
	assert_int_equal(rp_reader_rewind(r1), 0);
	if (rp_loadfile_reader_open(&lf, CLIENT_TXT, NULL, eb) < 0)
		fail_msg("%s", eb);
	size_t n = 0;
	rp_op a, b;
	int ra, rb;
	while ((ra = rp_reader_next(r1, &a)) > 0) {
		rb = rp_reader_next(lf, &b);
		assert_int_equal(rb, 1);
		if (!tl_op_eq(&a, &b))
			fail_msg("op %zu differs", n);
		n++;
	}
	assert_int_equal(ra, 0);
	assert_int_equal(rp_reader_next(lf, &b), 0);
	assert_int_equal(n, CLIENT_OPS);
	print_message("# client.txt: %d ops, .rpz %zu bytes\n", CLIENT_OPS, len1);
	rp_reader_close(lf);
	rp_reader_close(r1);
	unlink(path);
	free(rpz1);
	free(rpz2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_txt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
