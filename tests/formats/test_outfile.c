/* Unit tests of formats/outfile.c: the temporary file and its rename, abort, keep, modes, the same-file check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/error.h"
#include "formats/outfile.h"

/* A scratch directory per test, removed with what is in it. */
static int dir_setup(void **state)
{
	const char *const t = getenv("TMPDIR");
	char *const d = malloc(PATH_MAX);
	if (!d)
		return -1;
	snprintf(d, PATH_MAX, "%s/rp-outfile-XXXXXX", t && t[0] ? t : "/tmp");
	if (!mkdtemp(d)) {
		free(d);
		return -1;
	}
	*state = d;
	return 0;
}

static int dir_teardown(void **state)
{
	char *const d = *state;
	DIR *const dh = opendir(d);
	if (dh) {
		const struct dirent *e;
		while ((e = readdir(dh)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				char p[PATH_MAX];
				snprintf(p, sizeof(p), "%s/%s", d, e->d_name);
				unlink(p);
			}
		closedir(dh);
	}
	rmdir(d);
	free(d);
	return 0;
}

static void path_in(char *p, const char *dir, const char *name)
{
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *const f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's whole text (at most 255 bytes), "" when it cannot be read. */
static const char *get(const char *path)
{
	static char buf[256];
	buf[0] = '\0';
	FILE *const f = fopen(path, "r");
	if (f) {
		const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

/* How many NAME.part-* files the directory holds. */
static int parts(const char *dir, const char *name)
{
	char prefix[NAME_MAX + 8];
	snprintf(prefix, sizeof(prefix), "%s.part-", name);
	int n = 0;
	DIR *const dh = opendir(dir);
	assert_non_null(dh);
	const struct dirent *e;
	while ((e = readdir(dh)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(dh);
	return n;
}

static void commit_renames_over_the_output(void **state)
{
	const char *const d = *state;
	char out[PATH_MAX], eb[RP_OUTFILE_ERRBUF_SIZE];
	path_in(out, d, "o.txt");
	put(out, "old");
	rp_outfile o;
	assert_int_equal(rp_outfile_open(&o, out, 0, eb), RP_OK);
	assert_false(o.std);
	assert_int_equal(strncmp(o.tmp, out, strlen(out)), 0);
	assert_int_equal(strncmp(o.tmp + strlen(out), ".part-", 6), 0);
	assert_int_equal(strlen(o.tmp), strlen(out) + 6 + 6);
	fputs("new", o.f);
	assert_int_equal(parts(d, "o.txt"), 1);
	assert_string_equal(get(out), "old"); /* untouched until the commit */
	assert_int_equal(rp_outfile_commit(&o, eb), RP_OK);
	assert_string_equal(get(out), "new");
	assert_int_equal(parts(d, "o.txt"), 0);
	rp_outfile_abort(&o); /* a no-op after a commit */
	assert_string_equal(get(out), "new");
	assert_int_equal(rp_outfile_commit(&o, eb), RP_E_STATE); /* committed once */
}

static void abort_and_keep_leave_the_output(void **state)
{
	const char *const d = *state;
	char out[PATH_MAX], fresh[PATH_MAX], eb[RP_OUTFILE_ERRBUF_SIZE];
	path_in(out, d, "a.txt");
	put(out, "old");
	rp_outfile o;
	assert_int_equal(rp_outfile_open(&o, out, 0, eb), RP_OK);
	fputs("new", o.f);
	rp_outfile_abort(&o);
	assert_string_equal(get(out), "old");
	assert_int_equal(parts(d, "a.txt"), 0);

	path_in(fresh, d, "k.rpz");
	assert_int_equal(rp_outfile_open(&o, fresh, 0, eb), RP_OK);
	fputs("partial", o.f);
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", o.tmp);
	rp_outfile_keep(&o);
	assert_int_equal(access(fresh, F_OK), -1); /* never renamed */
	assert_string_equal(get(tmp), "partial");
}

static void a_symlink_stays_and_its_file_is_replaced(void **state)
{
	const char *const d = *state;
	char target[PATH_MAX], link[PATH_MAX], eb[RP_OUTFILE_ERRBUF_SIZE];
	path_in(target, d, "target.txt");
	path_in(link, d, "link.txt");
	put(target, "old");
	assert_int_equal(symlink("target.txt", link), 0);
	rp_outfile o;
	assert_int_equal(rp_outfile_open(&o, link, 0, eb), RP_OK);
	assert_int_equal(parts(d, "target.txt"), 1);
	fputs("new", o.f);
	assert_int_equal(rp_outfile_commit(&o, eb), RP_OK);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(get(target), "new");
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

static void the_umask_applies_and_private_is_0600(void **state)
{
	const char *const d = *state;
	char out[PATH_MAX], secret[PATH_MAX], eb[RP_OUTFILE_ERRBUF_SIZE];
	path_in(out, d, "plain.txt");
	path_in(secret, d, "map.tsv");
	put(secret, "old");
	assert_int_equal(chmod(secret, 0644), 0);
	const mode_t old = umask(022);
	rp_outfile o;
	assert_int_equal(rp_outfile_open(&o, out, 0, eb), RP_OK);
	assert_int_equal(rp_outfile_commit(&o, eb), RP_OK);
	assert_int_equal(mode_of(out), 0644);
	umask(0);
	assert_int_equal(rp_outfile_open(&o, secret, RP_OUT_PRIVATE, eb), RP_OK);
	assert_int_equal(rp_outfile_commit(&o, eb), RP_OK);
	umask(old);
	assert_int_equal(mode_of(secret), 0600);
}

static void devices_are_written_in_place(void **state)
{
	(void)state;
	char eb[RP_OUTFILE_ERRBUF_SIZE];
	rp_outfile o;
	assert_int_equal(rp_outfile_open(&o, "/dev/null", 0, eb), RP_OK);
	assert_string_equal(o.tmp, "");
	fputs("gone", o.f);
	assert_int_equal(rp_outfile_commit(&o, eb), RP_OK);

	/* /dev/full: the write error is the commit's, named. */
	assert_int_equal(rp_outfile_open(&o, "/dev/full", 0, eb), RP_OK);
	fputs("full", o.f);
	assert_int_equal(rp_outfile_commit(&o, eb), RP_E_IO);
	assert_string_equal(eb, "/dev/full: write error: No space left on device");

	assert_int_equal(rp_outfile_open(&o, "-", 0, eb), RP_OK);
	assert_true(o.std);
	assert_ptr_equal(o.f, stdout);
	assert_int_equal(rp_outfile_commit(&o, eb), RP_OK);
	assert_int_equal(fflush(stdout), 0); /* not closed */
}

static void what_cannot_be_opened_is_named(void **state)
{
	const char *const d = *state;
	char out[PATH_MAX], eb[RP_OUTFILE_ERRBUF_SIZE];
	rp_outfile o;
	assert_int_equal(rp_outfile_open(&o, d, 0, eb), RP_E_INVAL);
	char want[2 * PATH_MAX + 64];
	snprintf(want, sizeof(want), "%s: is a directory", d);
	assert_string_equal(eb, want);

	path_in(out, d, "no/such/dir.rpz");
	assert_int_equal(rp_outfile_open(&o, out, 0, eb), RP_E_SYSTEM);
	snprintf(want, sizeof(want), "%s: cannot create its temporary file %s", out, out);
	assert_int_equal(strncmp(eb, want, strlen(want)), 0);
	assert_non_null(strstr(eb, ": No such file or directory"));

	/* Under PATH_MAX, but with room for no ".part-XXXXXX" after it ("/" repeated: no component too long). */
	char longp[PATH_MAX];
	memset(longp, '/', sizeof(longp) - 8);
	strcpy(longp + sizeof(longp) - 8, "nofile");
	assert_int_equal(rp_outfile_open(&o, longp, 0, eb), RP_E_LIMIT);
	assert_int_equal(strncmp(eb, "////", 4), 0); /* the message is cut, as the path is longer than it */
}

static void the_output_must_not_be_the_input(void **state)
{
	const char *const d = *state;
	char in[PATH_MAX], other[PATH_MAX], hard[PATH_MAX], soft[PATH_MAX], eb[RP_OUTFILE_ERRBUF_SIZE];
	path_in(in, d, "in.rpz");
	path_in(other, d, "other.rpz");
	path_in(hard, d, "hard.rpz");
	path_in(soft, d, "soft.rpz");
	put(in, "trace");
	assert_int_equal(link(in, hard), 0);
	assert_int_equal(symlink("in.rpz", soft), 0);
	assert_int_equal(rp_outfile_check(other, in, eb), RP_OK); /* not there yet */
	assert_int_equal(rp_outfile_check(in, NULL, eb), RP_OK);
	assert_int_equal(rp_outfile_check(in, "-", eb), RP_OK);
	assert_int_equal(rp_outfile_check(in, other, eb), RP_OK); /* an input that is not there: its own error */
	put(other, "x");
	assert_int_equal(rp_outfile_check(other, in, eb), RP_OK);
	assert_int_equal(rp_outfile_check(in, in, eb), RP_E_INVAL);
	char want[2 * PATH_MAX + 80];
	snprintf(want, sizeof(want), "%s: the output is the input %s (the same file): refusing to overwrite it", hard, in);
	assert_int_equal(rp_outfile_check(hard, in, eb), RP_E_INVAL);
	assert_string_equal(eb, want);
	assert_int_equal(rp_outfile_check(soft, in, eb), RP_E_INVAL);

	/* "-" redirected onto the input. */
	const int fd = open(in, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	fflush(stdout);
	const int saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	const int rc = rp_outfile_check("-", in, eb);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	close(fd);
	assert_int_equal(rc, RP_E_INVAL);
	assert_int_equal(strncmp(eb, "standard output: the output is the input ", 41), 0);
}

/* In a child: open out (flags), write, and die of SIGTERM before a commit; the child's end as waitpid says. */
static int die_while_writing(const char *out, unsigned flags)
{
	const pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		char eb[RP_OUTFILE_ERRBUF_SIZE];
		rp_outfile o;
		if (rp_outfile_open(&o, out, flags, eb) != RP_OK)
			_exit(3);
		fputs("half", o.f);
		fflush(o.f);
		raise(SIGTERM);
		_exit(4); /* not reached: SIGTERM ends the child */
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void a_signal_removes_the_temporary_file(void **state)
{
	const char *const d = *state;
	char out[PATH_MAX];
	path_in(out, d, "sig.rpz");
	put(out, "old");
	int st = die_while_writing(out, RP_OUT_SIGNAL_REMOVES);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	assert_int_equal(parts(d, "sig.rpz"), 0);
	assert_string_equal(get(out), "old");

	/* Without the flag (capture's partial trace) the temporary file stays. */
	st = die_while_writing(out, 0);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(parts(d, "sig.rpz"), 1);
	assert_string_equal(get(out), "old");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(commit_renames_over_the_output, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(abort_and_keep_leave_the_output, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(a_symlink_stays_and_its_file_is_replaced, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(the_umask_applies_and_private_is_0600, dir_setup, dir_teardown),
		cmocka_unit_test(devices_are_written_in_place),
		cmocka_unit_test_setup_teardown(what_cannot_be_opened_is_named, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(the_output_must_not_be_the_input, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(a_signal_removes_the_temporary_file, dir_setup, dir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
