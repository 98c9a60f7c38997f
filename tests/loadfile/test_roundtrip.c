/* Round trips: loadfile -> ops -> loadfile text -> ops (dbench's client.txt, the NFS and timed test files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "converters/loadfile.h"
#include "formats/loadfile.h"
#include "formats/sink.h"

#define CLIENT_TXT "/usr/share/dbench/client.txt"

static char *data_path(const char *name)
{
	const char *const root = getenv("REPRISE_SOURCE_ROOT");
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/tests/data/loadfile/%s", root ? root : ".", name);
	return buf;
}

static void read_all(const char *path, rp_memsink *m)
{
	char eb[RP_ERRBUF_SIZE] = "";
	rp_reader *r = NULL;
	assert_int_equal(rp_memsink_init(m), 0);
	if (rp_loadfile_reader_open(&r, path, NULL, eb) < 0)
		fail_msg("%s", eb);
	if (rp_reader_pump(r, &m->base, eb) < 0)
		fail_msg("%s", eb);
	rp_reader_close(r);
}

/* Read path and write it back as a loadfile at out. */
static void convert(const char *path, const char *out, rp_loadfile_dialect dialect, bool timestamps)
{
	char eb[RP_ERRBUF_SIZE] = "";
	rp_reader *r = NULL;
	rp_conv_lf *w = NULL;
	if (rp_loadfile_reader_open(&r, path, NULL, eb) < 0)
		fail_msg("%s", eb);
	rp_conv_lf_opts wo;
	rp_conv_lf_opts_init(&wo);
	wo.dialect = dialect;
	wo.timestamps = timestamps;
	assert_int_equal(rp_conv_lf_open_path(&w, out, &wo, eb), 0);
	if (rp_reader_pump(r, rp_conv_lf_sink(w), eb) < 0)
		fail_msg("%s", eb);
	assert_int_equal(rp_conv_lf_close(w, eb), 0);
	rp_reader_close(r);
}

static bool same_string(const rp_memsink *a, uint32_t ia, const rp_memsink *b, uint32_t ib)
{
	if (!ia || !ib)
		return ia == ib;
	uint32_t la = 0, lb = 0;
	const char *const sa = rp_memsink_string((void *)a, ia, &la);
	const char *const sb = rp_memsink_string((void *)b, ib, &lb);
	return sa && sb && la == lb && memcmp(sa, sb, la) == 0;
}

static void assert_same_ops(const rp_memsink *a, const rp_memsink *b)
{
	assert_int_equal(a->n_ops, b->n_ops);
	for (size_t i = 0; i < a->n_ops; i++) {
		rp_op x = a->ops[i], y = b->ops[i];
		if (!same_string(a, x.path, b, y.path) || !same_string(a, x.path2, b, y.path2))
			fail_msg("op %zu: paths differ", i);
		x.path = y.path = x.path2 = y.path2 = 0;
		if (memcmp(&x, &y, sizeof(x)) != 0) {
			char t1[512], t2[512];
			rp_op_format(t1, sizeof(t1), &a->ops[i], rp_memsink_string, (void *)a);
			rp_op_format(t2, sizeof(t2), &b->ops[i], rp_memsink_string, (void *)b);
			fail_msg("op %zu differs:\n  %s\n  %s", i, t1, t2);
		}
	}
}

/* The next line that is not blank or a comment, with blanks collapsed; NULL at the end. */
static char *next_norm(FILE *f, char *buf, size_t size)
{
	char raw[4096];
	while (fgets(raw, sizeof(raw), f)) {
		size_t k = 0;
		bool blank = true;
		const char *p = raw;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
			continue;
		for (; *p && k + 1 < size; p++) {
			const bool sp = *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n';
			if (sp && !blank)
				buf[k++] = ' ';
			if (!sp)
				buf[k++] = *p;
			blank = sp;
		}
		while (k && buf[k - 1] == ' ')
			k--;
		buf[k] = '\0';
		return buf;
	}
	return NULL;
}

static void assert_same_text(const char *a, const char *b)
{
	FILE *const fa = fopen(a, "r"), *const fb = fopen(b, "r");
	assert_non_null(fa);
	assert_non_null(fb);
	char la[4096], lb[4096];
	for (unsigned n = 1;; n++) {
		char *const x = next_norm(fa, la, sizeof(la));
		char *const y = next_norm(fb, lb, sizeof(lb));
		if (!x || !y) {
			if (x || y)
				fail_msg("line %u: one file ends first", n);
			break;
		}
		if (strcmp(x, y) != 0)
			fail_msg("line %u differs:\n  %s\n  %s", n, x, y);
	}
	fclose(fa);
	fclose(fb);
}

static void round_trip(const char *in, rp_loadfile_dialect dialect, bool timestamps, size_t expect_ops,
		       uint32_t expect_source)
{
	char out[] = "/tmp/reprise-loadfile-rt-XXXXXX";
	const int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	rp_memsink a, b;
	read_all(in, &a);
	if (expect_ops)
		assert_int_equal(a.n_ops, expect_ops);
	assert_int_equal(a.meta.source, expect_source);
	convert(in, out, dialect, timestamps);
	read_all(out, &b);
	assert_same_ops(&a, &b);
	assert_same_text(in, out);
	/* writing the same ops twice gives the same bytes */
	char out2[] = "/tmp/reprise-loadfile-rt2-XXXXXX";
	const int fd2 = mkstemp(out2);
	assert_true(fd2 >= 0);
	close(fd2);
	convert(out, out2, dialect, timestamps);
	assert_same_text(out, out2);
	rp_memsink_fini(&a);
	rp_memsink_fini(&b);
	unlink(out);
	unlink(out2);
}

static void test_client_txt(void **state)
{
	(void)state;
	if (access(CLIENT_TXT, R_OK) != 0)
		skip(); /* Debian's dbench package is not installed */
	const clock_t t0 = clock();
	round_trip(CLIENT_TXT, RP_LOADFILE_AUTO, false, 458344, RP_SRC_LOADFILE_SMB);
	print_message("# client.txt round trip: %.2f s CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
}

static void test_nfs_small(void **state)
{
	(void)state;
	round_trip(data_path("nfs_small.load"), RP_LOADFILE_AUTO, true, 38, RP_SRC_LOADFILE_NFS);
}

static void test_smb_timed(void **state)
{
	(void)state;
	round_trip(data_path("smb_timed.load"), RP_LOADFILE_SMB, true, 24, RP_SRC_LOADFILE_SMB);
	rp_memsink m;
	read_all(data_path("smb_timed.load"), &m);
	assert_true(m.meta.flags & RP_META_TIMED);
	assert_int_equal(m.ops[2].t_start, 100000000u);
	assert_int_equal(m.ops[23].t_start, 400000000u);
	rp_memsink_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nfs_small),
		cmocka_unit_test(test_smb_timed),
		cmocka_unit_test(test_client_txt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
