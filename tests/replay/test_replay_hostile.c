/*
 * The posix backend against a hostile trace and target: every path-taking call
 * with a symlink planted where the trace's path goes (to a file and to a
 * directory outside the target), set-id bits, FIFOs (planted and made by the
 * trace), and a write cut short.  Nothing outside the target may change.
 */
#include <ftw.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "posix_harness.h"

/* A setattr of the permission bits. */
static rp_op *sa_mode(rp_op *op, uint32_t mode)
{
	op->attrs |= RP_SA_MODE;
	op->mode = mode;
	return op;
}

/* ---- The outside tree and its fingerprint ----------------------------------------------- */

static FILE *snap_out;

static int snap_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)type;
	(void)ftw;
	fprintf(snap_out, "%s %o %u:%u n%lu s%lld m%lld.%09ld c%lld.%09ld", p + strlen(outside), (unsigned)st->st_mode,
		(unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned long)st->st_nlink, (long long)st->st_size,
		(long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
		st->st_ctim.tv_nsec);
	char names[1024];
	const ssize_t n = llistxattr(p, names, sizeof(names));
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1) {
		char v[256];
		const ssize_t vn = lgetxattr(p, names + i, v, sizeof(v) - 1);
		v[vn > 0 ? vn : 0] = '\0';
		fprintf(snap_out, " %s=%s", names + i, v);
	}
	if (S_ISREG(st->st_mode)) {
		FILE *const f = fopen(p, "r");
		char data[64] = "";
		if (f) {
			data[fread(data, 1, sizeof(data) - 1, f)] = '\0';
			fclose(f);
		}
		fprintf(snap_out, " [%s]", data);
	}
	fputc('\n', snap_out);
	return 0;
}

/* Mode, owner, links, size, times (ctime too: any change to an inode moves it), xattrs, contents, existence. */
static char *snapshot(void)
{
	char *buf = NULL;
	size_t len = 0;
	snap_out = open_memstream(&buf, &len);
	assert_non_null(snap_out);
	assert_int_equal(nftw(outside, snap_one, 16, FTW_PHYS), 0);
	fclose(snap_out);
	return buf;
}

static void put_file(const char *p, const char *data, mode_t mode)
{
	FILE *const f = fopen(p, "w");
	assert_non_null(f);
	fputs(data, f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
	setxattr(p, "user.k", "v", 1, 0); /* where the file system has user xattrs */
}

static void old_times(const char *p)
{
	const struct timespec ts[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

/*
 * outside/file (0600) and outside/dir/inner (0600) in a dir (0700), with
 * xattrs and times in 2001; in the target flink and rflink to the file
 * (absolute, relative), dlink and rdlink to the directory.
 */
static void plant(void)
{
	rm_rf(target);
	rm_rf(outside);
	assert_int_equal(mkdir(target, 0777), 0);
	assert_int_equal(mkdir(outside, 0777), 0);
	char p[700], to[700];
	snprintf(p, sizeof(p), "%s/file", outside);
	put_file(p, "secret\n", 0600);
	old_times(p);
	snprintf(p, sizeof(p), "%s/dir", outside);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/dir/inner", outside);
	put_file(p, "inner\n", 0600);
	old_times(p);
	snprintf(p, sizeof(p), "%s/dir", outside);
	old_times(p);
	static const char *const links[][2] = {
		{ "flink", "/file" }, { "rflink", "../outside/file" }, { "dlink", "/dir" }, { "rdlink", "../outside/dir" },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", target, links[i][0]);
		if (links[i][1][0] == '/')
			snprintf(to, sizeof(to), "%s%s", outside, links[i][1]);
		else
			snprintf(to, sizeof(to), "%s", links[i][1]);
		assert_int_equal(symlink(to, p), 0);
	}
}

static bool is_symlink(const char *rel)
{
	char p[600];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", target, rel);
	return lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
}

static mode_t mode_of(const char *rel)
{
	char p[600];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", target, rel);
	return lstat(p, &st) == 0 ? st.st_mode : 0;
}

/* ---- One call family per test, through openat2 and through the O_NOFOLLOW walk ---------- */

typedef void (*build_fn)(wl *t);
typedef void (*check_fn)(const rp_replay_results *res);

static void run_case(build_fn build, check_fn check)
{
	static const char *const modes[] = { NULL, "no-openat2" };
	for (size_t m = 0; m < 2; m++) {
		plant();
		char *const before = snapshot();
		wl t;
		wl_init(&t, RP_SRC_PCAP_NFS);
		build(&t);
		rp_replay *r;
		const rp_replay_results *const res = run_posix(&t, modes[m], false, 0, &r);
		char *const after = snapshot();
		if (strcmp(before, after) != 0)
			print_message("# %s: outside changed\n# before:\n%s# after:\n%s", modes[m] ? modes[m] : "openat2",
				      before, after);
		assert_string_equal(before, after);
		check(res);
		free(before);
		free(after);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

static rp_op *two(wl *t, unsigned opcode, const char *path, const char *path2)
{
	rp_op *const op = wl_add(t, 1, opcode, path, 0, 0, 0, 0);
	op->path2 = wl_str(t, path2);
	return op;
}

static rp_op *mknod_reg(wl *t, const char *path)
{
	rp_op *const op = wl_add(t, 1, RP_OP_MKNOD, path, 0, 0, 0, 0);
	op->mode = 0644;
	return op;
}

/* chmod by path: the link itself is what SETATTR names; Linux cannot chmod one (EOPNOTSUPP). */
static void build_chmod(wl *t)
{
	static const char *const paths[] = { "/flink", "/rflink", "/dlink", "/dlink/inner", "/rdlink/inner" };
	for (size_t i = 0; i < 5; i++)
		sa_mode(wl_add(t, 1, RP_OP_SETATTR, paths[i], 0, 0, 0, 0), 0777);
	mknod_reg(t, "/real");
	sa_mode(wl_add(t, 1, RP_OP_SETATTR, "/real", 0, 0, 0, 0), 0640);
}
static void check_chmod(const rp_replay_results *res)
{
	assert_int_equal(res->errnos[EOPNOTSUPP], 3);
	assert_int_equal(res->op[RP_OP_SETATTR].failures, 5);
	assert_int_equal(mode_of("real") & 07777, 0640); /* a real file is still changed */
}
static void test_chmod(void **state)
{
	(void)state;
	run_case(build_chmod, check_chmod);
}

/* utimes by path: the link's own times (AT_SYMLINK_NOFOLLOW), never its target's. */
static void build_utimes(wl *t)
{
	static const char *const paths[] = { "/flink", "/rflink", "/dlink", "/dlink/inner", "/rdlink/inner" };
	for (size_t i = 0; i < 5; i++)
		wl_add(t, 1, RP_OP_SETATTR, paths[i], 0, 0, 0, 0)->attrs = RP_SA_ATIME_NOW | RP_SA_MTIME_NOW;
}
static void check_utimes(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_SETATTR].count, 5);
	assert_int_equal(res->op[RP_OP_SETATTR].failures, 2); /* the two through a directory link */
}
static void test_utimes(void **state)
{
	(void)state;
	run_case(build_utimes, check_utimes);
}

/* truncate by path: an O_NOFOLLOW open of the last component (ELOOP on a link). */
static void build_truncate(wl *t)
{
	static const char *const paths[] = { "/flink", "/rflink", "/dlink/inner", "/rdlink/inner" };
	for (size_t i = 0; i < 4; i++)
		wl_add(t, 1, RP_OP_SETATTR, paths[i], 0, 0, 0, 0)->attrs = RP_SA_SIZE;
	mknod_reg(t, "/real");
	wl_add(t, 1, RP_OP_SETATTR, "/real", 0, 0, 100, 0)->attrs = RP_SA_SIZE;
}
static void check_truncate(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_SETATTR].failures, 4);
	assert_int_equal(res->errnos[ELOOP] >= 2, true);
	assert_int_equal(size_of("real"), 100);
}
static void test_truncate(void **state)
{
	(void)state;
	run_case(build_truncate, check_truncate);
}

/* xattrs by path: get, set, list and remove, on links to a file and through links to a directory. */
static void build_xattr(wl *t)
{
	static const char *const paths[] = { "/flink", "/rflink", "/dlink/inner", "/rdlink/inner" };
	for (size_t i = 0; i < 4; i++) {
		two(t, RP_OP_SETXATTR, paths[i], "user.new")->length = 4;
		two(t, RP_OP_GETXATTR, paths[i], "user.k");
		wl_add(t, 1, RP_OP_LISTXATTR, paths[i], 0, 0, 0, 0);
		two(t, RP_OP_REMOVEXATTR, paths[i], "user.k");
	}
}
static void check_xattr(const rp_replay_results *res)
{
	const unsigned ops[] = { RP_OP_SETXATTR, RP_OP_GETXATTR, RP_OP_LISTXATTR, RP_OP_REMOVEXATTR };
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(res->op[ops[i]].failures, 4);
}
static void test_xattr(void **state)
{
	(void)state;
	run_case(build_xattr, check_xattr);
}

/* readlink reads the link, never what it points at. */
static void build_readlink(wl *t)
{
	wl_add(t, 1, RP_OP_READLINK, "/flink", 0, 0, 0, 0);
	wl_add(t, 1, RP_OP_READLINK, "/dlink/inner", 0, 0, 0, 0);
}
static void check_readlink(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_READLINK].count, 2);
	assert_int_equal(res->op[RP_OP_READLINK].failures, 1);
}
static void test_readlink(void **state)
{
	(void)state;
	run_case(build_readlink, check_readlink);
}

/* link: a link source is linked itself (no AT_SYMLINK_FOLLOW); neither name reaches through a directory link. */
static void build_link(wl *t)
{
	two(t, RP_OP_LINK, "/flink", "/hl");
	two(t, RP_OP_LINK, "/dlink/inner", "/hl2");
	mknod_reg(t, "/real");
	two(t, RP_OP_LINK, "/real", "/dlink/hl3");
	two(t, RP_OP_LINK, "/real", "/rdlink/hl4");
}
static void check_link(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_LINK].failures, 3);
	assert_true(is_symlink("hl"));
	assert_false(exists("hl2"));
}
static void test_link(void **state)
{
	(void)state;
	run_case(build_link, check_link);
}

/* rename: a link moves or is replaced itself; neither name reaches through a directory link. */
static void build_rename(wl *t)
{
	two(t, RP_OP_RENAME, "/flink", "/moved");
	mknod_reg(t, "/real");
	two(t, RP_OP_RENAME, "/real", "/rflink");
	two(t, RP_OP_RENAME, "/dlink/inner", "/stolen");
	mknod_reg(t, "/r2");
	two(t, RP_OP_RENAME, "/r2", "/dlink/r2");
	two(t, RP_OP_RENAME, "/r2", "/rdlink/inner");
}
static void check_rename(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_RENAME].failures, 3);
	assert_true(is_symlink("moved"));
	assert_true(S_ISREG(mode_of("rflink")));
	assert_false(exists("stolen"));
}
static void test_rename(void **state)
{
	(void)state;
	run_case(build_rename, check_rename);
}

/* stat, lookup, access: lstat semantics on the last component, nothing through a directory link. */
static void build_stat(wl *t)
{
	static const unsigned ops[] = { RP_OP_STAT, RP_OP_LOOKUP, RP_OP_ACCESS };
	for (size_t i = 0; i < 3; i++) {
		wl_add(t, 1, ops[i], "/flink", 0, 0, 0, 0);
		wl_add(t, 1, ops[i], "/dlink/inner", 0, 0, 0, 0);
	}
}
static void check_stat(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_STAT].failures + res->op[RP_OP_LOOKUP].failures +
				 res->op[RP_OP_ACCESS].failures,
			 3);
}
static void test_stat(void **state)
{
	(void)state;
	run_case(build_stat, check_stat);
}

/* mkdir, mknod, symlink, unlink, rmdir: on a link they act on the link; through a directory link, not at all. */
static void build_create_remove(wl *t)
{
	wl_add(t, 1, RP_OP_MKDIR, "/dlink/m", 0, 0, 0, 0);
	mknod_reg(t, "/dlink/n");
	two(t, RP_OP_SYMLINK, "/rdlink/s", "x");
	wl_add(t, 1, RP_OP_UNLINK, "/dlink/inner", 0, 0, 0, 0);
	wl_add(t, 1, RP_OP_UNLINK, "/rdlink/inner", 0, 0, 0, 0);
	wl_add(t, 1, RP_OP_RMDIR, "/dlink", 0, 0, 0, 0);
	wl_add(t, 1, RP_OP_MKDIR, "/rdlink", 0, 0, 0, 0);
	mknod_reg(t, "/rflink");
	wl_add(t, 1, RP_OP_UNLINK, "/flink", 0, 0, 0, 0);
}
static void check_create_remove(const rp_replay_results *res)
{
	assert_int_equal(res->failures, 8);
	assert_false(exists("flink")); /* the link went, its target stayed (the snapshot) */
	assert_true(is_symlink("dlink"));
}
static void test_create_remove(void **state)
{
	(void)state;
	run_case(build_create_remove, check_create_remove);
}

/* Opens for I/O and by-path reads and writes: symlinks followed only while they stay beneath the target. */
static void build_open_io(wl *t)
{
	static const char *const paths[] = { "/flink", "/rflink", "/dlink/inner", "/rdlink/new" };
	for (size_t i = 0; i < 4; i++) {
		rp_op *const op = wl_add(t, 1, RP_OP_OPEN, paths[i], i + 1, 0, 0, 0);
		rp_sem_posix_open(op, O_RDWR | O_CREAT | O_TRUNC);
		wl_add(t, 1, RP_OP_WRITE, NULL, i + 1, 0, 100, 0);
		wl_add(t, 1, RP_OP_CLOSE, NULL, i + 1, 0, 0, 0);
		wl_add(t, 1, RP_OP_WRITE, paths[i], 0, 0, 100, 0);
		wl_add(t, 1, RP_OP_READ, paths[i], 0, 0, 100, 0);
	}
}
static void check_open_io(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_OPEN].failures, 4);
	assert_int_equal(res->op[RP_OP_READ].failures, 4);
	assert_int_equal(res->op[RP_OP_WRITE].failures, 8);
}
static void test_open_io(void **state)
{
	(void)state;
	run_case(build_open_io, check_open_io);
}

/* deltree removes a link, never what it points at; readdir lists nothing through one to outside. */
static void build_deltree_readdir(wl *t)
{
	wl_add(t, 1, RP_OP_READDIR, "/dlink", 0, 0, 100, 0);
	wl_add(t, 1, RP_OP_READDIR, "/rdlink", 0, 0, 100, 0);
	wl_add(t, 1, RP_OP_DELTREE, "/rdlink/inner", 0, 0, 0, 0);
	wl_add(t, 1, RP_OP_DELTREE, "/dlink", 0, 0, 0, 0);
	wl_add(t, 1, RP_OP_DELTREE, "/flink", 0, 0, 0, 0);
}
static void check_deltree_readdir(const rp_replay_results *res)
{
	assert_int_equal(res->op[RP_OP_READDIR].failures, 2);
	assert_int_equal(res->op[RP_OP_DELTREE].failures, 1);
	assert_false(exists("dlink"));
	assert_false(exists("flink"));
}
static void test_deltree_readdir(void **state)
{
	(void)state;
	run_case(build_deltree_readdir, check_deltree_readdir);
}

/* ---- Set-id bits ------------------------------------------------------------------------- */

static void setid_run(const char *bopts, mode_t want_file, mode_t want_dir)
{
	rm_rf(target);
	assert_int_equal(mkdir(target, 0777), 0);
	const mode_t old = umask(0);
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	rp_op *op = wl_add(&t, 1, RP_OP_OPEN, "/created", 1, 0, 0, 0);
	rp_sem_posix_open(op, O_WRONLY | O_CREAT);
	op->mode = 06755;
	sa_mode(wl_add(&t, 1, RP_OP_SETATTR, NULL, 1, 0, 0, 0), 06755); /* by handle */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 1, RP_OP_MKNOD, "/made", 0, 0, 0, 0)->mode = 06755;
	mknod_reg(&t, "/chmodded");
	sa_mode(wl_add(&t, 1, RP_OP_SETATTR, "/chmodded", 0, 0, 0, 0), 06755); /* by path */
	wl_add(&t, 1, RP_OP_MKDIR, "/gdir", 0, 0, 0, 0)->mode = 02775;
	sa_mode(wl_add(&t, 1, RP_OP_SETATTR, "/gdir", 0, 0, 0, 0), 02775);
	wl_add(&t, 1, RP_OP_MKDIR, "/sticky", 0, 0, 0, 0)->mode = 01777;
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, bopts, false, 0, &r);
	umask(old);
	assert_int_equal(res->failures, 0);
	assert_int_equal(mode_of("created") & 07777, want_file);
	assert_int_equal(mode_of("made") & 07777, want_file);
	assert_int_equal(mode_of("chmodded") & 07777, want_file);
	assert_int_equal(mode_of("gdir") & 07777, want_dir);
	assert_int_equal(mode_of("sticky") & 07777, 01777); /* kept: it grants nothing */
	rp_replay_destroy(r);
	wl_fini(&t);
}

static void test_setid(void **state)
{
	(void)state;
	setid_run(NULL, 0755, 0775);
	setid_run("no-openat2", 0755, 0775);
	/* Asked for: applied (as root, so that the kernel keeps setgid whatever the group). */
	if (geteuid() == 0)
		setid_run("setid", 06755, 02775);
}

/* ---- FIFOs ------------------------------------------------------------------------------- */

/* A regression would block a client thread for ever: end the process instead (SIGALRM's default). */
#define HANG_GUARD_S 60

static void mkfifo_in_target(const char *name)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", target, name);
	assert_int_equal(mkfifo(p, 0666), 0);
}

/* A FIFO planted in the target: NT opens for reading and writing, NFS by-path I/O, size and xattrs. */
static void test_fifo_planted(void **state)
{
	(void)state;
	alarm(HANG_GUARD_S);
	for (int walk = 0; walk < 2; walk++) {
		rm_rf(target);
		assert_int_equal(mkdir(target, 0777), 0);
		mkfifo_in_target("ff");
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		nt_open_access(&t, "\\ff", RP_NT_READ_DATA, RP_NT_OPEN, 0, 1, 0);
		wl_add(&t, 1, RP_OP_READ, NULL, 1, 0, 10, 0);
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		nt_open_access(&t, "\\ff", RP_NT_WRITE_DATA, RP_NT_OPEN, 0, 2, 0);
		nt_open_access(&t, "\\ff", RP_NT_READ_DATA | RP_NT_WRITE_DATA, RP_NT_OPEN_IF, 0, 3, 0);
		rp_replay *r;
		const rp_replay_results *res = run_posix(&t, walk ? "no-openat2" : NULL, false, 0, &r);
		assert_int_equal(res->op[RP_OP_OPEN].failures, 3);
		assert_int_equal(res->specials, 3);
		assert_int_equal(res->op[RP_OP_OPEN].specials, 3);
		assert_int_equal(res->errnos[ENXIO], 3);
		rp_replay_destroy(r);
		wl_fini(&t);

		wl_init(&t, RP_SRC_PCAP_NFS);
		wl_add(&t, 1, RP_OP_READ, "/ff", 0, 0, 10, 0);
		wl_add(&t, 1, RP_OP_WRITE, "/ff", 0, 0, 10, 0);
		wl_add(&t, 1, RP_OP_SETATTR, "/ff", 0, 0, 0, 0)->attrs = RP_SA_SIZE;
		two(&t, RP_OP_GETXATTR, "/ff", "user.k");
		rp_op *const op = wl_add(&t, 1, RP_OP_OPEN, "/ff", 4, 0, 0, 0);
		rp_sem_posix_open(op, O_WRONLY);
		res = run_posix(&t, walk ? "no-openat2" : NULL, false, 0, &r);
		assert_int_equal(res->specials, 5);
		assert_int_equal(res->errnos[ENXIO], 5);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
	alarm(0);
}

/* A FIFO the trace makes itself (MKNOD), then opens and reads by path. */
static void test_fifo_mknod(void **state)
{
	(void)state;
	alarm(HANG_GUARD_S);
	rm_rf(target);
	assert_int_equal(mkdir(target, 0777), 0);
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	wl_add(&t, 1, RP_OP_MKNOD, "/p", 0, 0, 0, 0)->mode = S_IFIFO | 0644;
	rp_op *op = wl_add(&t, 1, RP_OP_OPEN, "/p", 1, 0, 0, 0);
	rp_sem_posix_open(op, O_WRONLY);
	op = wl_add(&t, 1, RP_OP_OPEN, "/p", 2, 0, 0, 0);
	rp_sem_posix_open(op, O_RDONLY | O_CREAT);
	wl_add(&t, 1, RP_OP_READ, "/p", 0, 0, 10, 0);
	wl_add(&t, 1, RP_OP_MKNOD, "/c", 0, 0, 0, 0)->mode = S_IFCHR | 0666; /* never a device */
	wl_add(&t, 1, RP_OP_MKNOD, "/b", 0, 0, 0, 0)->mode = S_IFBLK | 0666;
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	assert_true(S_ISFIFO(mode_of("p")));
	assert_int_equal(res->op[RP_OP_MKNOD].failures, 2);
	assert_int_equal(res->errnos[EPERM], 2);
	assert_false(exists("c"));
	assert_false(exists("b"));
	assert_int_equal(res->specials, 3);
	assert_int_equal(res->op[RP_OP_OPEN].specials, 2);
	assert_int_equal(res->op[RP_OP_READ].specials, 1);
	rp_replay_destroy(r);
	wl_fini(&t);
	alarm(0);
}

/* A device node planted in the target (root: CAP_MKNOD): a data open of it is refused like a FIFO. */
static void test_device_planted(void **state)
{
	(void)state;
	rm_rf(target);
	assert_int_equal(mkdir(target, 0777), 0);
	char p[600];
	snprintf(p, sizeof(p), "%s/null", target);
	if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) < 0)
		skip(); /* not root, or no CAP_MKNOD here */
	alarm(HANG_GUARD_S);
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	rp_op *const op = wl_add(&t, 1, RP_OP_OPEN, "/null", 1, 0, 0, 0);
	rp_sem_posix_open(op, O_RDWR);
	wl_add(&t, 1, RP_OP_WRITE, "/null", 0, 0, 10, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	assert_int_equal(res->specials, 2);
	assert_int_equal(res->errnos[ENXIO], 2);
	rp_replay_destroy(r);
	wl_fini(&t);
	alarm(0);
}

/* ---- A write cut short ------------------------------------------------------------------ */

/*
 * RLIMIT_FSIZE cuts a write at the limit (a short write) and fails the next
 * one with EFBIG, as a full disk does with ENOSPC: the op fails with that
 * errno instead of counting as done.  No root needed.
 */
static void test_short_write(void **state)
{
	(void)state;
	rm_rf(target);
	assert_int_equal(mkdir(target, 0777), 0);
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	rp_op *const op = wl_add(&t, 1, RP_OP_OPEN, "/big", 1, 0, 0, 0);
	rp_sem_posix_open(op, O_WRONLY | O_CREAT);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 0, 65536, 0);
	wl_add(&t, 1, RP_OP_WRITE, "/big", 0, 4096, 4096, 0); /* by path, within the limit */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 10000;
	void (*const prev)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, prev);
	assert_int_equal(size_of("big"), 10000);
	assert_int_equal(res->op[RP_OP_WRITE].failures, 1);
	assert_int_equal(res->errnos[EFBIG], 1);
	assert_int_equal(res->op[RP_OP_WRITE].bytes, 4096); /* the engine counts the bytes of ops that succeeded */
	rp_replay_destroy(r);
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chmod),
		cmocka_unit_test(test_utimes),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_xattr),
		cmocka_unit_test(test_readlink),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_rename),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_create_remove),
		cmocka_unit_test(test_open_io),
		cmocka_unit_test(test_deltree_readdir),
		cmocka_unit_test(test_setid),
		cmocka_unit_test(test_fifo_planted),
		cmocka_unit_test(test_fifo_mknod),
		cmocka_unit_test(test_device_planted),
		cmocka_unit_test(test_short_write),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
