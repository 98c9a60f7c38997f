/* The syscall-capture session (capture/session.h): a test program run traced into a .rpz, its ops read back. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/session.h"
#include "formats/error.h"
#include "formats/reader.h"

static const char *prog, *preload;

/* What a capture's trace holds, by opcode, for paths under the run's directory. */
typedef struct traced {
	int rc;
	rp_syscap_stats st;
	uint64_t ops, opens, writes, written, closes;
	char dir[64], trace[96], source[RP_META_NAME_MAX];
} traced;

static void read_back(traced *t)
{
	rp_reader *r = NULL;
	char errbuf[RP_ERRBUF_SIZE];
	assert_int_equal(rp_reader_open(&r, t->trace, NULL, errbuf), 0);
	snprintf(t->source, sizeof t->source, "%s", r->meta.source_name);
	rp_op op;
	int n;
	while ((n = rp_reader_next(r, &op)) == 1) {
		t->ops++;
		t->opens += op.op == RP_OP_OPEN;
		t->closes += op.op == RP_OP_CLOSE;
		if (op.op == RP_OP_WRITE) {
			t->writes++;
			t->written += op.result;
		}
	}
	assert_int_equal(n, 0);
	rp_reader_close(r);
}

/* capture-prog MODE DIR, traced with --only DIR into DIR.rpz. */
static void capture(traced *t, const char *mode, bool process_clients)
{
	memset(t, 0, sizeof *t);
	snprintf(t->dir, sizeof t->dir, "/tmp/rp-session-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->trace, sizeof t->trace, "%s.rpz", t->dir);
	FILE *const f = fopen(t->trace, "wb");
	assert_non_null(f);
	char *argv[] = { (char *)prog, (char *)mode, t->dir, NULL };
	const rp_syscap_opts so = { .preload = preload, .only = t->dir, .process_clients = process_clients };
	char errbuf[RP_ERRBUF_SIZE] = "";
	t->rc = rp_capture_cmd(argv, &so, f, t->trace, &t->st, errbuf);
	assert_int_equal(fclose(f), 0);
	if (t->rc < 0)
		fail_msg("rp_capture_cmd: %s", errbuf);
	read_back(t);
}

static void cleanup(traced *t)
{
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", t->dir, t->trace);
	assert_int_equal(system(cmd), 0);
}

/* threads: 4 threads, each opens its own file and writes 250 blocks of 100 bytes. */
static void test_threads_ops(void **state)
{
	(void)state;
	traced t;
	capture(&t, "threads", false);
	assert_int_equal(t.rc, 0);
	assert_int_equal(t.opens, 4);
	assert_int_equal(t.writes, 4 * 250);
	assert_int_equal(t.written, 4 * 250 * 100);
	assert_int_equal(t.closes, 4);
	/* the stats are of the same trace: every op the model made is in it, none lost */
	assert_int_equal(t.st.model.ops, t.ops);
	assert_true(t.st.model.threads >= 5); /* main and its four */
	assert_false(rp_syscap_stats_lossy(&t.st));
	/* the trace names the command line it came from */
	assert_non_null(strstr(t.source, "threads"));
	cleanup(&t);
}

/* The program's exit status is the call's: capture-prog with an unknown mode exits 2, having done nothing. */
static void test_exit_status(void **state)
{
	(void)state;
	traced t;
	capture(&t, "nosuchmode", false);
	assert_int_equal(t.rc, 2);
	assert_int_equal(t.ops, 0);
	cleanup(&t);
}

static void on_notice(void *ctx, const char *msg)
{
	(*(int *)ctx)++;
	(void)msg;
}

/* A program that does not exist: no program ran, -1 with the exec's errno, and nothing was written. */
static void test_no_program(void **state)
{
	(void)state;
	char trace[] = "/tmp/rp-session-XXXXXX";
	const int fd = mkstemp(trace);
	assert_true(fd >= 0);
	FILE *const f = fdopen(fd, "wb");
	assert_non_null(f);
	char *argv[] = { (char *)"/nonexistent/rp-session-prog", NULL };
	int notices = 0;
	const rp_syscap_opts so = { .preload = preload, .notice = on_notice, .notice_ctx = &notices };
	rp_syscap_stats st;
	char errbuf[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_capture_cmd(argv, &so, f, trace, &st, errbuf), -1);
	assert_int_equal(st.exec_errno, ENOENT);
	assert_non_null(strstr(errbuf, "/nonexistent/rp-session-prog"));
	assert_int_equal(notices, 0); /* not untraceable: absent */
	assert_int_equal(fclose(f), 0);
	unlink(trace);
}

/* The interposer found: $REPRISE_PRELOAD_LIB, else (not beside this test binary) the install directory. */
static void test_find_lib(void **state)
{
	(void)state;
	char *const old = getenv("REPRISE_PRELOAD_LIB") ? strdup(getenv("REPRISE_PRELOAD_LIB")) : NULL;
	char buf[PATH_MAX], dir[] = "/tmp/rp-findlib-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char lib[sizeof(dir) + 32];
	snprintf(lib, sizeof(lib), "%s/" RP_PRELOAD_NAME, dir);

	setenv("REPRISE_PRELOAD_LIB", preload, 1);
	const int by_env = rp_capture_find_lib(RP_PRELOAD_NAME, dir, buf, sizeof(buf));
	const bool env_path = by_env == 0 && strcmp(buf, preload) == 0;
	setenv("REPRISE_PRELOAD_LIB", "/nonexistent/" RP_PRELOAD_NAME, 1);
	const int env_missing = rp_capture_find_lib(RP_PRELOAD_NAME, dir, buf, sizeof(buf));
	unsetenv("REPRISE_PRELOAD_LIB");
	const int none = rp_capture_find_lib(RP_PRELOAD_NAME, dir, buf, sizeof(buf));
	FILE *const f = fopen(lib, "w");
	if (f)
		fclose(f);
	const int installed = rp_capture_find_lib(RP_PRELOAD_NAME, dir, buf, sizeof(buf));
	const bool installed_path = installed == 0 && strcmp(buf, lib) == 0;
	char small[16];
	const int too_small = rp_capture_find_lib(RP_PRELOAD_NAME, dir, small, sizeof(small));
	unlink(lib);
	rmdir(dir);
	if (old)
		setenv("REPRISE_PRELOAD_LIB", old, 1);
	free(old);
	assert_non_null(f);
	assert_int_equal(by_env, 0);
	assert_true(env_path);
	assert_int_equal(env_missing, -1);
	assert_int_equal(none, -1);
	assert_int_equal(installed, 0);
	assert_true(installed_path);
	assert_int_equal(too_small, -1);
}

int main(int argc, char **argv)
{
	if (getenv("RP_TEST_NO_PRELOAD")) {
		/* A sanitized or fuzzing-instrumented .so cannot be preloaded into plain programs. */
		printf("1..0 # SKIP the build has a sanitizer: the interposer cannot be preloaded\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: test-capture-session CAPTURE-PROG LIBREPRISE-PRELOAD.SO\n");
		return 2;
	}
	static char abs_preload[4096];
	if (!realpath(argv[2], abs_preload)) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	prog = argv[1];
	preload = abs_preload;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_ops),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_no_program),
		cmocka_unit_test(test_find_lib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
