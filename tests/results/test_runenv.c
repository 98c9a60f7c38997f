/* Where a run ran (results/runenv.h): SHA-256 of files, the mount holding a directory from mountinfo lines, statfs, uname. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "results/runenv.h"

static void write_file(const char *path, const char *s)
{
	FILE *const f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, strlen(s), f), strlen(s));
	assert_int_equal(fclose(f), 0);
}

/* FIPS 180-2's "abc" and the empty message; a missing file is -ENOENT. */
static void test_sha256(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-runenv-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char hex[65];
	write_file(path, "abc");
	assert_int_equal(rp_runenv_sha256_file(path, hex), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	write_file(path, "");
	assert_int_equal(rp_runenv_sha256_file(path, hex), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	unlink(path);
	assert_int_equal(rp_runenv_sha256_file(path, hex), -ENOENT);
}

/* mountinfo(5) lines: id parent maj:min root mount-point options [optional...] - fstype source super-options */
static const char mountinfo[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	"30 22 0:40 / /mnt/a\\040b rw,nosuid - tmpfs tmpfs rw,size=1024k\n"
	"31 22 0:41 / /mnt/a\\040bc rw - xfs /dev/sdb1 rw,attr2\n"
	"32 30 0:42 / /mnt/a\\040b/deep ro master:3 - nfs4 srv:/x rw,vers=4.2\n"
	"33 30 0:43 / /mnt/a\\040b/deep rw - overlay overlay rw,lowerdir=/l\n"
	"bad line\n";

static bool find(const char *real, const dev_t *dev, rp_runenv_fs *fs, char *type)
{
	memset(fs, 0, sizeof *fs);
	type[0] = '\0';
	FILE *const f = fmemopen((void *)mountinfo, sizeof mountinfo - 1, "r");
	assert_non_null(f);
	const bool found = rp__runenv_find_mount(fs, f, real, dev, type, 32);
	fclose(f);
	return found;
}

/* The longest mount point above the path wins, by whole components; the later of two on one point; escapes undone. */
static void test_find_mount(void **state)
{
	(void)state;
	rp_runenv_fs fs;
	char type[32];
	assert_true(find("/mnt/a b/file", NULL, &fs, type));
	assert_true(fs.mounted);
	assert_string_equal(fs.mount, "/mnt/a b");
	assert_string_equal(type, "tmpfs");
	assert_string_equal(fs.mount_opts, "rw,nosuid");
	assert_string_equal(fs.fs_opts, "rw,size=1024k");
	/* "/mnt/a bc" is not under "/mnt/a b" */
	assert_true(find("/mnt/a bc", NULL, &fs, type));
	assert_string_equal(type, "xfs");
	/* over-mounted: the last line on the point */
	assert_true(find("/mnt/a b/deep/x", NULL, &fs, type));
	assert_string_equal(fs.mount, "/mnt/a b/deep");
	assert_string_equal(type, "overlay");
	assert_string_equal(fs.fs_opts, "rw,lowerdir=/l");
	/* by device: only that device's lines */
	const dev_t nfs = makedev(0, 42);
	assert_true(find("/mnt/a b/deep/x", &nfs, &fs, type));
	assert_string_equal(type, "nfs4");
	assert_string_equal(fs.mount_opts, "ro");
	const dev_t root = makedev(8, 1);
	assert_true(find("/usr/bin", &root, &fs, type));
	assert_string_equal(fs.mount, "/");
	assert_string_equal(type, "ext4");
	const dev_t none = makedev(9, 9);
	assert_false(find("/usr/bin", &none, &fs, type));
	assert_false(fs.mounted);
}

/* A local directory has a file system and a magic; a URL has neither. */
static void test_fs_get(void **state)
{
	(void)state;
	rp_runenv_fs fs;
	rp_runenv_fs_get(&fs, "/");
	assert_true(fs.local);
	assert_true(fs.fs[0] != '\0');
	assert_memory_equal(fs.fs_magic, "0x", 2);
	assert_true(fs.mounted);
	assert_string_equal(fs.mount, "/");
	rp_runenv_fs_get(&fs, "nfs://127.0.0.1/export");
	assert_false(fs.local);
	assert_false(fs.mounted);
	assert_string_equal(fs.fs, "");
}

static void test_host_and_cpu(void **state)
{
	(void)state;
	rp_runenv_host h;
	rp_runenv_host_get(&h);
	assert_true(h.have_kernel);
	assert_memory_equal(h.kernel, "Linux ", 6);
	assert_true(h.have_host);
	rp_runenv_cpu c;
	rp_runenv_cpu_begin(&c);
	double u = -1, s = -1;
	assert_int_equal(rp_runenv_cpu_end(&c, &u, &s), 0);
	assert_true(u >= 0 && s >= 0);
}

/* /proc/loadavg's first field; /proc/stat's cpu line summed, its eighth field steal; bad lines refused. */
static void test_load_and_steal(void **state)
{
	(void)state;
	char a[] = "12.34 10.00 8.50 3/900 4242\n";
	FILE *f = fmemopen(a, strlen(a), "r");
	assert_true(fabs(rp__runenv_parse_loadavg(f) - 12.34) < 1e-9);
	fclose(f);
	char b[] = "x y\n";
	f = fmemopen(b, strlen(b), "r");
	assert_true(rp__runenv_parse_loadavg(f) < 0);
	fclose(f);
	char c[] = "cpu  100 5 50 800 10 1 2 32 0 0\ncpu0 1 2 3 4\n";
	uint64_t total = 0, steal = 0;
	f = fmemopen(c, strlen(c), "r");
	assert_int_equal(rp__runenv_parse_stat(f, &total, &steal), 0);
	fclose(f);
	assert_int_equal(total, 1000);
	assert_int_equal(steal, 32);
	char d[] = "intr 1 2 3\n";
	f = fmemopen(d, strlen(d), "r");
	assert_int_equal(rp__runenv_parse_stat(f, &total, &steal), -1);
	fclose(f);
	/* this machine's */
	assert_true(rp_runenv_loadavg() >= 0);
	assert_int_equal(rp_runenv_cpu_ticks(&total, &steal), 0);
	assert_true(total > 0 && steal <= total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_find_mount),
		cmocka_unit_test(test_fs_get),
		cmocka_unit_test(test_host_and_cpu),
		cmocka_unit_test(test_load_and_steal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
