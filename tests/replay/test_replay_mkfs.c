/* Unit tests of replay/bench_mkfs.c without mounting anything: the --mkfs list and size, setup's refusals, teardown. */
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

#include "formats/error.h"
#include "replay/bench_mkfs.h"

static void a_list_is_parsed_in_order(void **state)
{
	(void)state;
	rp_bench_fsset s;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_bench_mkfs_parse(&s, "ext4,tmpfs,xfs", eb), RP_OK);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.fs[0].type, "ext4");
	assert_string_equal(s.fs[1].type, "tmpfs");
	assert_string_equal(s.fs[2].type, "xfs");
	assert_false(s.fs[0].ready || s.fs[0].made_mnt || s.fs[0].made_img || s.fs[0].mounted);
}

static void bad_lists_are_named(void **state)
{
	(void)state;
	static const struct {
		const char *list, *msg;
	} t[] = {
		{ "", "no file system named" },
		{ ",ext4", "bad file system name in ',ext4'" },
		{ "ext4,,xfs", "bad file system name in 'ext4,,xfs'" },
		{ "averyveryverylongname", "bad file system name in 'averyveryverylongname'" },
		{ "nofs", "unknown file system 'nofs' (known: ext2, ext3, ext4, xfs, btrfs, f2fs, jfs, reiserfs, tmpfs)" },
		{ "ext4,EXT4", "unknown file system 'EXT4' (known: ext2, ext3, ext4, xfs, btrfs, f2fs, jfs, reiserfs, tmpfs)" },
		{ "ext4,tmpfs,ext4", "ext4 named twice" },
		{ "ext4,", "'ext4,' ends with a comma" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		rp_bench_fsset s;
		char eb[RP_ERRBUF_SIZE] = "";
		if (rp_bench_mkfs_parse(&s, t[i].list, eb) != RP_E_INVAL || strcmp(eb, t[i].msg) != 0)
			fail_msg("'%s': '%s', expected '%s'", t[i].list, eb, t[i].msg);
	}
}

static void sizes_are_powers_of_1024_within_bounds(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int rc;
		uint64_t bytes;
	} t[] = {
		{ "16M", 0, 16ull << 20 },     { "512M", 0, 512ull << 20 }, { "1G", 0, 1ull << 30 },
		{ "1T", 0, 1ull << 40 },       { "16777216", 0, 16ull << 20 }, { "16384k", 0, 16ull << 20 },
		{ "15M", -1, 0 },              { "1k", -1, 0 },             { "2T", -1, 0 },
		{ "1025G", -1, 0 },            { "10X", -1, 0 },            { "1Gb", -1, 0 },
		{ "", -1, 0 },                 { "-1G", -1, 0 },            { " 1G", -1, 0 },
		{ "G", -1, 0 },                { "18446744073709551616", -1, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 7;
		const int rc = rp_bench_parse_size(t[i].text, &v);
		if (rc != t[i].rc || (rc == 0 && v != t[i].bytes) || (rc != 0 && v != 7))
			fail_msg("'%s': %d %llu, expected %d %llu", t[i].text, rc, (unsigned long long)v, t[i].rc,
				 (unsigned long long)t[i].bytes);
	}
}

static int notes;
static char last_note[2 * PATH_MAX];

static void note(void *ctx, const rp_bench_fs *fs, const char *msg)
{
	(void)ctx;
	(void)fs;
	notes++;
	snprintf(last_note, sizeof(last_note), "%s", msg);
}

static bool never(void)
{
	return false;
}

static bool at_once(void)
{
	return true;
}

/* A scratch directory for teardown's files. */
#define SCRATCH_MAX 1024
static void scratch(char *dir)
{
	const char *const t = getenv("TMPDIR");
	snprintf(dir, SCRATCH_MAX, "%.900s/rp-mkfs-XXXXXX", t && t[0] ? t : "/tmp");
	assert_non_null(mkdtemp(dir));
}

static void setup_refuses_before_making_anything(void **state)
{
	(void)state;
	rp_bench_fsset s;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_bench_mkfs_parse(&s, "tmpfs", eb), RP_OK);
	notes = 0;
	if (geteuid() != 0) {
		assert_int_equal(rp_bench_mkfs_setup(&s, "/", 1ull << 30, never, note, NULL, eb), RP_E_STATE);
		assert_string_equal(eb, "needs root (mount, loop devices)");
	} else {
		assert_int_equal(rp_bench_mkfs_setup(&s, "/nonexistent-rp-mkfs", 1ull << 30, never, note, NULL, eb),
				 RP_E_SYSTEM);
		assert_string_equal(eb, "/nonexistent-rp-mkfs: No such file or directory");
		/* A directory so deep that an image's path under it would pass PATH_MAX: said of the directory. */
		char deep[PATH_MAX], want[PATH_MAX + 128];
		scratch(deep);
		const size_t top = strlen(deep);
		for (size_t l = top; PATH_MAX - 8 - l > 1; l = strlen(deep)) { /* 4087 or 4088 bytes in all */
			const size_t c = PATH_MAX - 8 - l - 1 > 200 ? 200 : PATH_MAX - 8 - l - 1;
			deep[l] = '/';
			memset(deep + l + 1, 'd', c);
			deep[l + 1 + c] = '\0';
			assert_int_equal(mkdir(deep, 0755), 0);
		}
		assert_int_equal(rp_bench_mkfs_setup(&s, deep, 1ull << 30, never, note, NULL, eb), RP_E_LIMIT);
		snprintf(want, sizeof(want), "%s: the path is too long for reprise-mkfs-tmpfs.img under it", deep);
		assert_int_equal(strncmp(eb, want, RP_ERRBUF_SIZE - 1), 0);
		while (strlen(deep) > top) {
			assert_int_equal(rmdir(deep), 0);
			*strrchr(deep, '/') = '\0';
		}
		assert_int_equal(rmdir(deep), 0);
		/* A stop already asked: nothing is tried, nothing is ready. */
		assert_int_equal(rp_bench_mkfs_setup(&s, "/", 1ull << 30, at_once, note, NULL, eb), 0);
	}
	assert_int_equal(notes, 0);
	assert_false(s.fs[0].made_mnt || s.fs[0].made_img || s.fs[0].mounted || s.fs[0].ready);
}

static void teardown_removes_what_setup_made(void **state)
{
	(void)state;
	char dir[SCRATCH_MAX], eb[RP_ERRBUF_SIZE];
	scratch(dir);
	rp_bench_fsset s;
	assert_int_equal(rp_bench_mkfs_parse(&s, "ext4,xfs", eb), RP_OK);
	rp_bench_fs *const a = &s.fs[0], *const b = &s.fs[1];
	snprintf(a->mnt, sizeof(a->mnt), "%s/reprise-mkfs-ext4", dir);
	snprintf(a->img, sizeof(a->img), "%s/reprise-mkfs-ext4.img", dir);
	assert_int_equal(mkdir(a->mnt, 0755), 0);
	FILE *const f = fopen(a->img, "w");
	assert_non_null(f);
	fclose(f);
	a->made_mnt = a->made_img = true;
	/* xfs: its image is gone already (removed by hand): not an error. */
	snprintf(b->img, sizeof(b->img), "%s/reprise-mkfs-xfs.img", dir);
	b->made_img = true;
	notes = 0;
	assert_int_equal(rp_bench_mkfs_teardown(&s, note, NULL), RP_OK);
	assert_int_equal(notes, 0);
	assert_int_equal(access(a->mnt, F_OK), -1);
	assert_int_equal(access(a->img, F_OK), -1);
	assert_false(a->made_mnt || a->made_img || b->made_img);
	assert_int_equal(rp_bench_mkfs_teardown(&s, note, NULL), RP_OK); /* again: nothing left to do */
	assert_int_equal(rmdir(dir), 0);
}

static void what_stays_is_noted(void **state)
{
	(void)state;
	char dir[SCRATCH_MAX], eb[RP_ERRBUF_SIZE], inside[PATH_MAX + 16];
	scratch(dir);
	rp_bench_fsset s;
	assert_int_equal(rp_bench_mkfs_parse(&s, "tmpfs", eb), RP_OK);
	rp_bench_fs *const fs = &s.fs[0];
	snprintf(fs->mnt, sizeof(fs->mnt), "%s/reprise-mkfs-tmpfs", dir);
	assert_int_equal(mkdir(fs->mnt, 0755), 0);
	snprintf(inside, sizeof(inside), "%s/x", fs->mnt);
	assert_int_equal(mkdir(inside, 0755), 0); /* someone's file: the mount point cannot go */
	fs->made_mnt = true;
	notes = 0;
	assert_int_equal(rp_bench_mkfs_teardown(&s, note, NULL), RP_E_SYSTEM);
	assert_int_equal(notes, 1);
	char want[2 * PATH_MAX];
	snprintf(want, sizeof(want), "rmdir %s: %s", fs->mnt, strerror(ENOTEMPTY));
	assert_string_equal(last_note, want);
	assert_true(fs->made_mnt); /* still there: a later teardown tries again */
	assert_int_equal(rmdir(inside), 0);
	assert_int_equal(rp_bench_mkfs_teardown(&s, note, NULL), RP_OK);
	assert_false(fs->made_mnt);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_list_is_parsed_in_order),
		cmocka_unit_test(bad_lists_are_named),
		cmocka_unit_test(sizes_are_powers_of_1024_within_bounds),
		cmocka_unit_test(setup_refuses_before_making_anything),
		cmocka_unit_test(teardown_removes_what_setup_made),
		cmocka_unit_test(what_stays_is_noted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
