/*
 * The --cleanup walk's recursion (replay/backends/treewalk.c) on a listing
 * call of the test's own: what one walk holds at once is bounded, and going
 * past the bound is RP_E_LIMIT with a message naming it, not memory run out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/error.h"
#include "replay/backends/treewalk.h"

enum { HALF = RP_TW_HELD_MAX / 2, LONG_NAME = 4000 };

/* A fake server's tree: the entries each directory lists, by the test's rule. */
typedef struct fake {
	size_t (*files)(const char *path);      /* plain files the directory lists */
	const char *const *(*dirs)(const char *path); /* its directories, NULL-terminated (NULL: none) */
	size_t name_len;                        /* of each file's name; 0: short names */
	size_t seen;                            /* entries fn was called for */
} fake;

static int list(void *ctx, const char *path, rp__tw_list *l, char *errbuf)
{
	const fake *const f = ctx;
	char name[LONG_NAME + 32];
	int rc = 0;
	const char *const *const dirs = f->dirs(path);
	for (size_t i = 0; rc == 0 && dirs && dirs[i]; i++)
		rc = rp__tw_add(l, dirs[i], i + 1, true);
	const size_t n = f->files(path);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const int k = snprintf(name, sizeof(name), "f%zu", i);
		if (f->name_len > (size_t)k) {
			memset(name + k, 'x', f->name_len - (size_t)k);
			name[f->name_len] = '\0';
		}
		rc = rp__tw_add(l, name, 1000 + i, false);
	}
	return rc ? rp__tw_fail(errbuf, rc, "fake://server/t", path, l) : 0;
}

static int count(void *arg, const rp_backend_entry *e)
{
	(void)e;
	((fake *)arg)->seen++;
	return 0;
}

static const rp__tw_ops ops = { .list = list, .path_max = 4096 };

static const char *const *no_dirs(const char *path)
{
	(void)path;
	return NULL;
}

static size_t over_limit(const char *path)
{
	(void)path;
	return RP_TW_HELD_MAX + 1;
}

/* One directory listing more than the limit: RP_E_LIMIT, the message naming the directory and the limit. */
static void test_one_huge_directory(void **state)
{
	(void)state;
	fake f = { .files = over_limit, .dirs = no_dirs };
	char eb[512] = "";
	assert_int_equal(rp__tw_walk(&ops, &f, count, &f, eb), RP_E_LIMIT);
	assert_int_equal(f.seen, 0);
	assert_non_null(strstr(eb, "fake://server/t: cleanup: listing /: more than 1048576 entries"));
	assert_non_null(strstr(eb, "the walk's limit"));
	assert_null(strstr(eb, "out of memory"));
}

static const char *const *root_d(const char *path)
{
	static const char *const d[] = { "d", NULL };
	return path[0] ? NULL : d;
}

static size_t half(const char *path)
{
	(void)path;
	return HALF;
}

/* No directory is past the limit, but one held beneath another is: what the walk holds at once counts. */
static void test_nested_directories_add_up(void **state)
{
	(void)state;
	fake f = { .files = half, .dirs = root_d };
	char eb[512] = "";
	assert_int_equal(rp__tw_walk(&ops, &f, count, &f, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "listing d: more than 1048576 entries"));
}

static const char *const *root_ab(const char *path)
{
	static const char *const d[] = { "a", "b", NULL };
	return path[0] ? NULL : d;
}

static size_t half_beneath(const char *path)
{
	return path[0] ? HALF : 0;
}

/* Siblings are not held at once: two directories of half the limit each are walked whole, more than the limit in all. */
static void test_siblings_are_walked(void **state)
{
	(void)state;
	fake f = { .files = half_beneath, .dirs = root_ab };
	char eb[512] = "";
	assert_int_equal(rp__tw_walk(&ops, &f, count, &f, eb), 0);
	assert_int_equal(f.seen, 2 + 2 * (size_t)HALF);
}

static size_t bytes_over(const char *path)
{
	(void)path;
	return RP_TW_HELD_BYTES / LONG_NAME + 1;
}

/* Few entries with long names: the bytes of their names are bounded too. */
static void test_long_names_are_bounded(void **state)
{
	(void)state;
	fake f = { .files = bytes_over, .dirs = no_dirs, .name_len = LONG_NAME };
	char eb[512] = "";
	assert_int_equal(rp__tw_walk(&ops, &f, count, &f, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "64 MiB of names"));
	f.files = half;
	f.name_len = 0;
	assert_int_equal(rp__tw_walk(&ops, &f, count, &f, eb), 0);
	assert_int_equal(f.seen, HALF);
}

/* A listing of its own (no walk): the limit is its own entries'; ".", ".." and names with '/' are not kept. */
static void test_add_alone(void **state)
{
	(void)state;
	rp__tw_list l = { 0 };
	assert_int_equal(rp__tw_add(&l, ".", 1, true), 0);
	assert_int_equal(rp__tw_add(&l, "..", 1, true), 0);
	assert_int_equal(rp__tw_add(&l, "a/b", 1, false), 0);
	assert_int_equal(rp__tw_add(&l, "", 1, false), 0);
	assert_int_equal(l.n, 0);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i <= RP_TW_HELD_MAX; i++)
		rc = rp__tw_add(&l, "n", i, false);
	assert_int_equal(rc, RP_E_LIMIT);
	assert_int_equal(l.n, RP_TW_HELD_MAX);
	char eb[512] = "";
	assert_int_equal(rp__tw_fail(eb, RP_E_NOMEM, "nfs://h/e", "x/y", &l), RP_E_NOMEM);
	assert_string_equal(eb, "nfs://h/e: cleanup: listing x/y: out of memory after 1048576 entries");
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_huge_directory),
		cmocka_unit_test(test_nested_directories_add_up),
		cmocka_unit_test(test_siblings_are_walked),
		cmocka_unit_test(test_long_names_are_bounded),
		cmocka_unit_test(test_add_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
