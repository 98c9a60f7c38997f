/* Unit tests: the nfs backend's pure helpers (URL form, statuses, listing patterns, setattr steps, checked names); no server. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "formats/plan.h"
#include "formats/status.h"
#include "replay/backends/nfs_int.h"

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
	url_bad("nfs://h/e?nfsport=0", "a port is 1..65535");
	url_bad("nfs://h/e?mountport=65536", "a port is 1..65535");
	rp_nfs_url_info info = { 0 };
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp__nfs_url_check("nfs://h/e?version=3&nfsport=2049&mountport=20048", &info, eb), 0);
	assert_int_equal(info.nfsport, 2049);
	assert_int_equal(info.mountport, 20048);
	assert_int_equal(rp__nfs_url_check("nfs://h/e?version=4", &info, eb), 0);
	assert_int_equal(info.nfsport, 0);
	assert_int_equal(info.mountport, 0);
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

static void why_has(const rp_nfs_mount_fail *f, const char *want)
{
	char buf[RP_ERRBUF_SIZE];
	rp__nfs_mount_why(f, buf, sizeof(buf));
	if (!strstr(buf, want))
		fail_msg("'%s' does not say '%s'", buf, want);
	if (strstr(buf, "nfs_service failed"))
		fail_msg("'%s' is libnfs's words", buf);
}

/* A failed mount in the user's terms: which port refused and what to give, the export, a refusal. */
static void test_mount_why(void **state)
{
	(void)state;
	const rp_nfs_mount_fail base = { .host = "h", .path = "/export", .lib = "nfs_service failed", .version = 3,
					 .pmap_err = -1, .mnt_err = -1, .nfs_err = -1 };
	rp_nfs_mount_fail f = base;
	f.pmap_err = ECONNREFUSED;
	why_has(&f, "no portmapper at h:111: give nfsport= and mountport= in the URL, or start rpcbind");
	f = base;
	f.mountport = 20048;
	f.nfsport = 2049;
	f.mnt_err = ECONNREFUSED;
	why_has(&f, "nothing listens at h:20048: no MOUNT service on that port (the URL's mountport=)");
	f.mnt_err = 0;
	f.nfs_err = ECONNREFUSED;
	why_has(&f, "nothing listens at h:2049: no NFS server on that port (the URL's nfsport=)");
	f.nfs_err = ETIMEDOUT;
	why_has(&f, "cannot reach h:2049: ");
	f = base;
	f.version = 4;
	f.nfs_err = ECONNREFUSED;
	why_has(&f, "h:2049: no NFS server on the usual port: start one, or give its port as nfsport= in the URL");
	f = base;
	f.lib = "mount_cb: RPC error: Mount failed with error MNT3ERR_NOENT(2) No such file or directory(2)";
	why_has(&f, "h has no export /export (MNT3ERR_NOENT)");
	f.lib = "mount_cb: RPC error: Mount failed with error MNT3ERR_ACCES(13) Permission denied(13)";
	why_has(&f, "h refused to mount /export (MNT3ERR_ACCES): no such export, or it is not exported to this client");
	f.lib = "mount_cb: NFS4: (path /export) failed with NFS4ERR_NOENT(-2)";
	why_has(&f, "h has no /export in its NFSv4 pseudo file system (NFS4ERR_NOENT)");
	f.lib = "mount_cb: NFS4: (path /export) failed with NFS4ERR_ACCESS(-13)";
	why_has(&f, "h refused this client /export (NFS4ERR_ACCESS): permission denied");
	f.lib = "mount_cb: NFS4: (path /export) failed with NFS4ERR_PERM(-1)";
	why_has(&f, "(NFS4ERR_PERM): permission denied");
	f.lib = "mount_cb: NFS4: (path /export) failed with NFS4ERR_SERVERFAULT(-5)";
	why_has(&f, "h answered NFS4ERR_SERVERFAULT");
	char code[48];
	rp__nfs_error_code("x MNT3ERR_NOTDIR(20) y", code, sizeof(code));
	assert_string_equal(code, "MNT3ERR_NOTDIR");
	rp__nfs_error_code("nfs_service failed", code, sizeof(code));
	assert_string_equal(code, "");
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

/* Add every component of path as a directory (the last as kind), as a walk of LOOKUPs would. */
static void learn(rp_nfs_names *n, const char *path, int kind)
{
	uint32_t at = RP_NFS_NAMES_ROOT;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		const size_t len = strcspn(p, "/");
		const bool last = p[len] == '\0';
		const unsigned char fh[3] = { 'f', 'h', (unsigned char)len };
		at = rp__nfs_names_add(n, n->epoch, at, p, len, last ? kind : RP_NFS_NAME_DIR, fh, last && kind != RP_NFS_NAME_DIR ? 0 : 3);
		assert_int_not_equal(at, RP_NFS_NAMES_NONE);
		p += len;
	}
}

static void test_names(void **state)
{
	(void)state;
	rp_nfs_names n;
	rp__nfs_names_init(&n, 0);
	learn(&n, "/a/b/c", RP_NFS_NAME_OTHER);
	learn(&n, "/a/b/d", RP_NFS_NAME_DIR);
	learn(&n, "/a/e", RP_NFS_NAME_OTHER);
	learn(&n, "/x", RP_NFS_NAME_DIR);
	const uint32_t c = rp__nfs_names_walk(&n, "/a/b/c");
	assert_int_not_equal(c, RP_NFS_NAMES_NONE);
	assert_int_equal(n.nodes[c].kind, RP_NFS_NAME_OTHER);
	const uint32_t b = rp__nfs_names_walk(&n, "/a/b");
	assert_int_equal(n.nodes[b].kind, RP_NFS_NAME_DIR);
	assert_int_equal(n.nodes[b].fhlen, 3);
	assert_memory_equal(n.nodes[b].fh, "fh\1", 3);
	/* A name is its parent's: "c" beneath "a" is not "c" beneath "b". */
	assert_int_equal(rp__nfs_names_walk(&n, "/a/c"), RP_NFS_NAMES_NONE);
	assert_int_equal(rp__nfs_names_walk(&n, "/a/b/cc"), RP_NFS_NAMES_NONE);
	assert_int_equal(rp__nfs_names_walk(&n, "/a/b/"), b);
	/* Adding what is there gives the same entry. */
	assert_int_equal(rp__nfs_names_add(&n, n.epoch, b, "c", 1, RP_NFS_NAME_OTHER, NULL, 0), c);

	/* Forgetting a directory (an rmdir, a rename of it, a symlink made in its place) forgets all beneath it. */
	rp__nfs_names_forget(&n, "/a/b");
	assert_int_equal(rp__nfs_names_walk(&n, "/a/b"), RP_NFS_NAMES_NONE);
	assert_int_equal(rp__nfs_names_walk(&n, "/a/b/c"), RP_NFS_NAMES_NONE);
	assert_int_equal(rp__nfs_names_walk(&n, "/a/b/d"), RP_NFS_NAMES_NONE);
	assert_int_not_equal(rp__nfs_names_walk(&n, "/a/e"), RP_NFS_NAMES_NONE); /* its siblings stay */
	assert_int_not_equal(rp__nfs_names_walk(&n, "/x"), RP_NFS_NAMES_NONE);
	/* A name looked up again is a new entry: nothing of the old subtree comes back with it. */
	learn(&n, "/a/b", RP_NFS_NAME_DIR);
	assert_int_not_equal(rp__nfs_names_walk(&n, "/a/b"), b);
	assert_int_equal(rp__nfs_names_walk(&n, "/a/b/c"), RP_NFS_NAMES_NONE);
	/* Into a forgotten entry nothing is added (a LOOKUP beneath it that was in flight). */
	assert_int_equal(rp__nfs_names_add(&n, n.epoch, b, "z", 1, RP_NFS_NAME_OTHER, NULL, 0), RP_NFS_NAMES_NONE);

	/* A file forgotten (unlink, the source or target of a rename): that name only. */
	rp__nfs_names_forget(&n, "/a/e");
	assert_int_equal(rp__nfs_names_walk(&n, "/a/e"), RP_NFS_NAMES_NONE);
	assert_int_not_equal(rp__nfs_names_walk(&n, "/a"), RP_NFS_NAMES_NONE);
	learn(&n, "/a/e", RP_NFS_NAME_OTHER);
	rp__nfs_names_forget(&n, "/a/e/"); /* a trailing '/' is the same name */
	assert_int_equal(rp__nfs_names_walk(&n, "/a/e"), RP_NFS_NAMES_NONE);
	/* Forgetting what is not cached changes no entry, but still moves the epoch. */
	const uint32_t live = n.live;
	uint64_t epoch = n.epoch;
	rp__nfs_names_forget(&n, "/nope/deeper");
	assert_int_equal(n.live, live);
	assert_true(n.epoch != epoch);

	/* A LOOKUP sent before a change (its epoch) adds nothing after it: it may have seen the old name. */
	epoch = n.epoch;
	rp__nfs_names_forget(&n, "/x");
	assert_int_equal(rp__nfs_names_add(&n, epoch, RP_NFS_NAMES_ROOT, "x", 1, RP_NFS_NAME_DIR, "h", 1), RP_NFS_NAMES_NONE);
	assert_int_equal(rp__nfs_names_walk(&n, "/x"), RP_NFS_NAMES_NONE);
	/* A reset (another client's change) forgets everything. */
	rp__nfs_names_reset(&n);
	assert_int_equal(rp__nfs_names_walk(&n, "/a"), RP_NFS_NAMES_NONE);
	assert_int_equal(n.live, 0);
	rp__nfs_names_fini(&n);

	/* Bounded: 10 entries at most, then it starts again; every entry is found while it is kept. */
	rp__nfs_names_init(&n, 10);
	char name[16];
	uint64_t dropped = 0;
	for (int i = 0; i < 95; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		const uint32_t at = rp__nfs_names_add(&n, n.epoch, RP_NFS_NAMES_ROOT, name, strlen(name), RP_NFS_NAME_OTHER, NULL, 0);
		assert_true(n.n <= 10);
		if (at != RP_NFS_NAMES_NONE)
			assert_int_equal(rp__nfs_names_find(&n, RP_NFS_NAMES_ROOT, name, strlen(name)), at);
		else
			dropped++; /* the one that found it full */
	}
	assert_true(dropped > 0);
	assert_int_equal(n.resets, dropped);
	assert_true(n.slots <= 64);
	/* A file handle longer than NFSv3's is refused, not cut. */
	static const unsigned char big[RP_NFS_FH_MAX + 1];
	assert_int_equal(rp__nfs_names_add(&n, n.epoch, RP_NFS_NAMES_ROOT, "big", 3, RP_NFS_NAME_DIR, big, sizeof(big)),
			 RP_NFS_NAMES_NONE);
	rp__nfs_names_fini(&n);
}


/* The handle path names in m, as a string ("" when not known). */
static const char *fh_of(const rp_nfs_fhmap *m, const char *path)
{
	static char buf[RP_NFS_FH_MAX + 1];
	const void *fh;
	size_t len;
	if (!rp__nfs_fhmap_get(m, path, &fh, &len))
		return "";
	memcpy(buf, fh, len);
	buf[len] = '\0';
	return buf;
}

static void test_fhmap(void **state)
{
	(void)state;
	rp_nfs_fhmap m;
	rp__nfs_fhmap_init(&m, 0);
	/* Nothing is known before the mount's root. */
	assert_false(rp__nfs_fhmap_set(&m, "a", "A", 1, RP_NFS_FK_DIR));
	assert_string_equal(fh_of(&m, ""), "");
	rp__nfs_fhmap_set_root(&m, "R", 1);
	assert_string_equal(fh_of(&m, ""), "R");
	assert_true(rp__nfs_fhmap_set(&m, "a", "A", 1, RP_NFS_FK_DIR));
	assert_true(rp__nfs_fhmap_set(&m, "a/b", "B", 1, RP_NFS_FK_DIR));
	assert_true(rp__nfs_fhmap_set(&m, "a/b/f", "F", 1, RP_NFS_FK_FILE));
	assert_string_equal(fh_of(&m, "a/b/f"), "F");
	/* An unknown parent: not kept, and the parent lookup says so (the op falls back). */
	assert_false(rp__nfs_fhmap_set(&m, "x/y", "Y", 1, RP_NFS_FK_FILE));
	const void *fh;
	size_t len, nlen;
	const char *name;
	assert_false(rp__nfs_fhmap_parent(&m, "x/y", &fh, &len, &name, &nlen));
	assert_true(rp__nfs_fhmap_parent(&m, "a/b/g", &fh, &len, &name, &nlen));
	assert_memory_equal(fh, "B", 1);
	assert_int_equal(nlen, 1);
	assert_memory_equal(name, "g", 1);
	/* A file is no directory: nothing is learned beneath it. */
	assert_false(rp__nfs_fhmap_set(&m, "a/b/f/z", "Z", 1, RP_NFS_FK_FILE));
	assert_false(rp__nfs_fhmap_parent(&m, "a/b/f/z", &fh, &len, &name, &nlen));
	/* Rename of a directory takes what is beneath it along; the old name is gone. */
	assert_true(rp__nfs_fhmap_rename(&m, "a/b", "c"));
	assert_string_equal(fh_of(&m, "a/b"), "");
	assert_string_equal(fh_of(&m, "a/b/f"), "");
	assert_string_equal(fh_of(&m, "c"), "B");
	assert_string_equal(fh_of(&m, "c/f"), "F");
	/* Rename over an existing name replaces it. */
	assert_true(rp__nfs_fhmap_set(&m, "c/g", "G", 1, RP_NFS_FK_FILE));
	assert_true(rp__nfs_fhmap_rename(&m, "c/g", "c/f"));
	assert_string_equal(fh_of(&m, "c/f"), "G");
	assert_string_equal(fh_of(&m, "c/g"), "");
	/* Rename of an unknown name forgets the target. */
	assert_false(rp__nfs_fhmap_rename(&m, "nothere", "c/f"));
	assert_string_equal(fh_of(&m, "c/f"), "");
	/* Remove forgets the name and what is beneath it; a new object under it starts empty. */
	assert_true(rp__nfs_fhmap_set(&m, "c/f", "H", 1, RP_NFS_FK_FILE));
	rp__nfs_fhmap_forget(&m, "c");
	assert_string_equal(fh_of(&m, "c"), "");
	assert_string_equal(fh_of(&m, "c/f"), "");
	assert_true(rp__nfs_fhmap_set(&m, "c", "C", 1, RP_NFS_FK_DIR));
	assert_string_equal(fh_of(&m, "c/f"), "");
	/* Absent: no handle, nothing beneath it, a kind of its own; a new object replaces it. */
	assert_true(rp__nfs_fhmap_absent(&m, "c/gone"));
	assert_int_equal(rp__nfs_fhmap_kind(&m, "c/gone"), RP_NFS_FK_ABSENT);
	assert_string_equal(fh_of(&m, "c/gone"), "");
	assert_false(rp__nfs_fhmap_set(&m, "c/gone/x", "X", 1, RP_NFS_FK_FILE));
	assert_true(rp__nfs_fhmap_set(&m, "c/gone", "N", 1, RP_NFS_FK_LINK));
	assert_int_equal(rp__nfs_fhmap_kind(&m, "c/gone"), RP_NFS_FK_LINK);
	assert_string_equal(fh_of(&m, "c/gone"), "N");
	assert_int_equal(rp__nfs_fhmap_kind(&m, "c/unknown"), -1);
	/* A symlink is no directory: nothing is learned or looked up beneath it. */
	assert_false(rp__nfs_fhmap_set(&m, "c/gone/y", "Y", 1, RP_NFS_FK_FILE));
	assert_false(rp__nfs_fhmap_parent(&m, "c/gone/y", &fh, &len, &name, &nlen));
	/* A removed name is absent, with what was beneath it. */
	assert_true(rp__nfs_fhmap_set(&m, "c/sub", "S", 1, RP_NFS_FK_DIR));
	assert_true(rp__nfs_fhmap_set(&m, "c/sub/f", "T", 1, RP_NFS_FK_FILE));
	assert_true(rp__nfs_fhmap_absent(&m, "c/sub"));
	assert_string_equal(fh_of(&m, "c/sub/f"), "");
	assert_true(rp__nfs_fhmap_set(&m, "c/sub", "S2", 2, RP_NFS_FK_DIR));
	assert_string_equal(fh_of(&m, "c/sub/f"), "");
	/* The root is never forgotten. */
	rp__nfs_fhmap_forget(&m, "");
	assert_string_equal(fh_of(&m, ""), "R");
	rp__nfs_fhmap_fini(&m);

	/* Bounded: past max the dead nodes go; with none dead, a new handle is not kept. */
	rp__nfs_fhmap_init(&m, 8);
	rp__nfs_fhmap_set_root(&m, "R", 1);
	char p[16];
	for (int i = 0; i < 100; i++) {
		snprintf(p, sizeof(p), "f%d", i);
		assert_true(rp__nfs_fhmap_set(&m, p, p, strlen(p), RP_NFS_FK_FILE));
		rp__nfs_fhmap_forget(&m, p);
	}
	assert_true(m.compactions > 0);
	for (int i = 0; i < 8; i++) {
		snprintf(p, sizeof(p), "g%d", i);
		assert_true(rp__nfs_fhmap_set(&m, p, p, strlen(p), RP_NFS_FK_FILE));
	}
	assert_false(rp__nfs_fhmap_set(&m, "h", "h", 1, RP_NFS_FK_FILE));
	assert_string_equal(fh_of(&m, "g3"), "g3");
	assert_string_equal(fh_of(&m, "h"), "");
	rp__nfs_fhmap_fini(&m);
}

/* mode=auto's choice: exact for a trace of the target's version that exact mode can send, the why when not. */
static void test_auto_mode(void **state)
{
	(void)state;
	const uint32_t none = 1u << RP_PROTO_NONE, v3 = 1u << RP_PROTO_NFS3, v4 = 1u << RP_PROTO_NFS4;
	const char *why = "x";
	assert_true(rp__nfs_auto_exact(3, v3 | none, 0, &why));
	assert_null(why);
	assert_true(rp__nfs_auto_exact(4, v4, RP_OPF_CONT, &why));
	assert_null(why);
	/* Another version's ops, a loadfile's, a mix, none with a producer: semantic, said why. */
	assert_false(rp__nfs_auto_exact(4, v3, 0, &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "recorded from NFSv3"));
	assert_false(rp__nfs_auto_exact(3, v4, 0, &why));
	assert_non_null(strstr(why, "recorded from NFSv4,"));
	assert_false(rp__nfs_auto_exact(3, 1u << RP_PROTO_DBENCH_NFS, 0, &why));
	assert_non_null(strstr(why, "not every op of the trace was recorded from NFSv3"));
	assert_false(rp__nfs_auto_exact(4, v3 | v4, 0, &why));
	assert_non_null(strstr(why, "not every op of the trace was recorded from NFSv4.0"));
	assert_false(rp__nfs_auto_exact(4, none, 0, &why));
	assert_non_null(strstr(why, "mode=auto"));
	/* An NFSv4.1 trace (every op in a session): semantic up front, said. */
	assert_false(rp__nfs_auto_exact(4, v4 | none, RP_OPF_SESSION | RP_OPF_CONT, &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "NFSv4.1 session"));
	assert_non_null(strstr(why, "mode=auto"));
	/* Some ops outside a session (a 4.0 client beside a 4.1 one): exact, the sessions' ops fall back, counted. */
	assert_true(rp__nfs_auto_exact(4, v4, 0, &why));
	assert_null(why);
	/* The flag means nothing to NFSv3. */
	assert_true(rp__nfs_auto_exact(3, v3, RP_OPF_SESSION, &why));
}

/* The plan says which flags every op with a producer carries: what auto's choice reads. */
static void test_plan_flags_every(void **state)
{
	(void)state;
	rp_op ops[3];
	memset(ops, 0, sizeof(ops));
	for (int i = 0; i < 3; i++) {
		ops[i].op = RP_OP_STAT;
		ops[i].client = 1;
		ops[i].proto = RP_PROTO_NFS4;
		ops[i].flags = RP_OPF_SESSION | (i ? RP_OPF_CONT : 0);
	}
	ops[0].proto = RP_PROTO_NONE; /* prepare's kind: no producer, not counted */
	ops[0].flags = 0;
	rp_plan p;
	char eb[RP_ERRBUF_SIZE] = "";
	const rp_plan_opts po = { 0 };
	assert_int_equal(rp_plan_ops(&p, ops, 3, NULL, NULL, &po, eb), 0);
	assert_int_equal(p.flags_every, RP_OPF_SESSION | RP_OPF_CONT);
	rp_plan_free(&p);
	ops[2].flags = RP_OPF_CONT; /* one op outside a session */
	assert_int_equal(rp_plan_ops(&p, ops, 3, NULL, NULL, &po, eb), 0);
	assert_int_equal(p.flags_every, RP_OPF_CONT);
	rp_plan_free(&p);
}

/* NFSv4.0 exact mode: the open-owner's seqid rule and the gathered LOOKUPs of a COMPOUND. */
static void test_nfs4_exact_rules(void **state)
{
	(void)state;
	/* The seqid moves on success and on most errors (RFC 7530 §9.1.7)... */
	assert_true(rp__nfs4_seqid_moves(0));
	assert_true(rp__nfs4_seqid_moves(2));     /* NFS4ERR_NOENT: an OPEN of a name not there */
	assert_true(rp__nfs4_seqid_moves(17));    /* NFS4ERR_EXIST: a GUARDED4 create */
	assert_true(rp__nfs4_seqid_moves(10040)); /* NFS4ERR_LOCKED */
	/* ... but not on those that say the request was not taken in turn. */
	static const uint32_t keep[] = { 10018, 10019, 10020, 10022, 10023, 10025, 10026, 10036 };
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		assert_false(rp__nfs4_seqid_moves(keep[i]));

	/* PUTFH LOOKUP d LOOKUP e OPEN f: the lookups lead to the open's directory. */
	const char *const de[] = { "/d", "/d/e" };
	assert_true(rp__nfs4_lookups_lead(de, 2, "/d/e/f", true));
	assert_true(rp__nfs4_lookups_lead(de, 2, "d/e/f", true));
	assert_false(rp__nfs4_lookups_lead(de, 2, "/d/f", true));
	/* ... or to the object itself (PUTFH LOOKUP d LOOKUP e GETATTR). */
	assert_true(rp__nfs4_lookups_lead(de, 2, "/d/e", false));
	assert_false(rp__nfs4_lookups_lead(de, 2, "/d/e/f", false));
	/* A gap in the chain, a name that only shares a prefix, none gathered: sent without them. */
	const char *const gap[] = { "/d", "/d/e/g" };
	assert_false(rp__nfs4_lookups_lead(gap, 2, "/d/e/g/h", true));
	const char *const pfx[] = { "/d" };
	assert_false(rp__nfs4_lookups_lead(pfx, 1, "/dd/f", true));
	assert_true(rp__nfs4_lookups_lead(pfx, 1, "/d/f", true));
	assert_false(rp__nfs4_lookups_lead(pfx, 0, "/d/f", true));
	/* A name in the root: a lookup of the root's child leads to its own child. */
	const char *const top[] = { "a" };
	assert_true(rp__nfs4_lookups_lead(top, 1, "a/b", true));
	assert_false(rp__nfs4_lookups_lead(top, 1, "b", true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_mount_why),
		cmocka_unit_test(test_setattr_steps),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fhmap),
		cmocka_unit_test(test_nfs4_exact_rules),
		cmocka_unit_test(test_auto_mode),
		cmocka_unit_test(test_plan_flags_every),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
