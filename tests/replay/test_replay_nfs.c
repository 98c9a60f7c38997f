/* Unit tests: the nfs backend's pure helpers (URL form, statuses, listing patterns, setattr steps); no server. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "formats/status.h"
#include "replay/backends/nfs.h"

static void url_ok(const char *url, int version)
{
	char eb[RP_ERRBUF_SIZE] = "";
	rp_nfs_url_info info = { 0 };
	if (rp__nfs_url_check(url, &info, eb) != 0)
		fail_msg("%s: %s", url, eb);
	assert_int_equal(info.version, version);
}

static void url_bad(const char *url, const char *why)
{
	char eb[RP_ERRBUF_SIZE] = "";
	rp_nfs_url_info info = { 0 };
	assert_int_equal(rp__nfs_url_check(url, &info, eb), RP_E_INVAL);
	if (!strstr(eb, why))
		fail_msg("%s: '%s' does not say '%s'", url, eb, why);
}

static void test_url(void **state)
{
	(void)state;
	url_ok("nfs://127.0.0.1/export", 3);
	url_ok("NFS://host/export/dir/sub", 3);
	url_ok("nfs://127.0.0.1/export?version=3&nfsport=2049&mountport=20048", 3);
	url_ok("nfs://127.0.0.1/export?version=4&nfsport=2049&uid=1000&gid=100", 4);
	url_ok("nfs://h/e?if=lo&dircache=1&tcp-syncnt=2&readahead=0&auto-traverse-mounts=0&debug=0", 3);
	url_bad("smb://h/share", "not an nfs:// URL");
	url_bad("nfs://", "nfs://HOST/EXPORT");
	url_bad("nfs://host", "nfs://HOST/EXPORT");
	url_bad("nfs:///export", "nfs://HOST/EXPORT");
	url_bad("nfs://host/", "no export path");
	url_bad("nfs://host?version=3/x", "nfs://HOST/EXPORT");
	url_bad("nfs://h/e?version=2", "version 3 or 4");
	url_bad("nfs://h/e?version=41", "version 3 or 4");
	url_bad("nfs://h/e?version=", "needs a decimal number");
	url_bad("nfs://h/e?nfsport=20x9", "needs a decimal number");
	url_bad("nfs://h/e?uid=-1", "needs a decimal number");
	url_bad("nfs://h/e?uid=12345678901", "needs a decimal number");
	url_bad("nfs://h/e?nfsport", "needs a decimal number");
	url_bad("nfs://h/e?if=", "needs a value");
	url_bad("nfs://h/e?vers=3", "unknown option 'vers'");
	url_bad("nfs://h/e?version=3&&x", "unknown option ''");
	/* A server that goes away must end the run: reconnecting for ever is not the user's to choose. */
	url_bad("nfs://h/e?autoreconnect=-1", "autoreconnect is the backend's own");
	/* The length bound, named. */
	const size_t n = RP_NFS_URL_MAX + 16;
	char *const long_url = malloc(n + 1);
	assert_non_null(long_url);
	memcpy(long_url, "nfs://h/", 8);
	memset(long_url + 8, 'a', n - 8);
	long_url[n] = '\0';
	url_bad(long_url, "longer than");
	free(long_url);
}

static void test_status(void **state)
{
	(void)state;
	assert_int_equal(rp__nfs_status(0), 0);
	assert_int_equal(rp__nfs_status(4096), 0); /* bytes moved */
	assert_int_equal(rp__nfs_status(-ENOENT), ENOENT);
	assert_int_equal(rp__nfs_status(-EEXIST), EEXIST);
	assert_int_equal(rp__nfs_status(-4095), 4095);
	assert_int_equal(rp__nfs_status(-4096), RP_STATUS_OTHER);
	assert_int_equal(rp__nfs_status(-2147483647 - 1), RP_STATUS_OTHER);
}

static void pat_is(const char *mask, const char *want)
{
	char out[64];
	assert_int_equal(rp__nfs_pattern(mask, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_pattern(void **state)
{
	(void)state;
	pat_is("*", "*");
	pat_is("<.JNK", "*.JNK");
	pat_is("a>\"txt", "a?.txt");
	pat_is("a[1].txt", "a\\[1\\].txt");
	pat_is("x\\y", "x\\\\y");
	char out[64];
	assert_int_equal(rp__nfs_pattern("a[1].txt", out, sizeof(out)), 0);
	assert_int_equal(fnmatch(out, "a[1].txt", FNM_CASEFOLD), 0); /* smbclient's `del a[1].txt` */
	assert_int_not_equal(fnmatch(out, "a1.txt", FNM_CASEFOLD), 0);
	/* Bounded: what does not fit is refused, never cut. */
	char small[4];
	assert_int_equal(rp__nfs_pattern("abc", small, sizeof(small)), 0);
	assert_int_equal(rp__nfs_pattern("abcd", small, sizeof(small)), ENAMETOOLONG);
	assert_int_equal(rp__nfs_pattern("ab[", small, sizeof(small)), ENAMETOOLONG);
}

static void test_setattr_steps(void **state)
{
	(void)state;
	assert_int_equal(rp__nfs_setattr_steps(0), 0);
	assert_int_equal(rp__nfs_setattr_steps(RP_SA_CTIME | RP_SA_BTIME | RP_SA_DOSATTR), 0); /* a GETATTR stands in */
	assert_int_equal(rp__nfs_setattr_steps(RP_SA_SIZE), RP_NFS_SA_SIZE);
	assert_int_equal(rp__nfs_setattr_steps(RP_SA_ALLOC), RP_NFS_SA_SIZE);
	assert_int_equal(rp__nfs_setattr_steps(RP_SA_UID), RP_NFS_SA_OWNER);
	assert_int_equal(rp__nfs_setattr_steps(RP_SA_ATIME_NOW | RP_SA_MTIME_NOW), RP_NFS_SA_TIMES);
	assert_int_equal(rp__nfs_setattr_steps(RP_SA_MODE | RP_SA_GID | RP_SA_MTIME),
			 RP_NFS_SA_MODE | RP_NFS_SA_OWNER | RP_NFS_SA_TIMES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_setattr_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
