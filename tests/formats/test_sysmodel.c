/* formats/sysmodel*.c: typed file-syscall events -> ops: every event kind, state changes, processes, threads and fds. */
#include "tests/formats/sysmodel_harness.h"

static void open_read_write_close(void **state)
{
	(void)state;
	T *const t = mk(NULL);
	start(t, 100, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 100, .ret = 3, A(AT_CWD, O_RDWR | O_CREAT | O_TRUNC, 0644), P("f"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 100, .ret = 5, A(3, -1, 5));
	EV(t, .nr = RP_SYSEV_READ, .pid = 100, .ret = 0, A(3, -1, 10));
	EV(t, .nr = RP_SYSEV_READ, .pid = 100, .ret = 3, A(3, 2, 3)); /* pread: its offset, no move */
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 100, .ret = 1, A(3, -1, 1));
	EV(t, .nr = RP_SYSEV_LSEEK, .pid = 100, .ret = 1, A(3, 1, 0));
	EV(t, .nr = RP_SYSEV_READ, .pid = 100, .ret = 2, A(3, -1, 2, 1)); /* readv */
	EV(t, .nr = RP_SYSEV_READ, .pid = 100, .ret = 2, A(3, -1, 0, 1)); /* a vector without sizes: length = result */
	EV(t, .nr = RP_SYSEV_CLOSE, .pid = 100, .ret = 0, A(3));
	assert_int_equal(t->ms.n_ops, 8); /* lseek makes none */
	char b[512];
	assert_string_equal(op_text(t, 0, b, sizeof(b)),
			    "c1 open path=\"/w/f\" fh=1 want=read,write disp=trunc_if mode=0644 raw=posix -> OK");
	assert_string_equal(op_text(t, 1, b, sizeof(b)), "c1 write path=\"/w/f\" fh=1 off=0 len=5 ret=5 raw=posix -> OK");
	assert_string_equal(op_text(t, 2, b, sizeof(b)), "c1 read path=\"/w/f\" fh=1 off=5 len=10 raw=posix -> OK");
	assert_string_equal(op_text(t, 3, b, sizeof(b)), "c1 read path=\"/w/f\" fh=1 off=2 len=3 ret=3 raw=posix -> OK");
	assert_string_equal(op_text(t, 4, b, sizeof(b)), "c1 write path=\"/w/f\" fh=1 off=5 len=1 ret=1 raw=posix -> OK");
	assert_string_equal(op_text(t, 5, b, sizeof(b)), "c1 read path=\"/w/f\" fh=1 off=1 len=2 ret=2 raw=posix -> OK");
	assert_string_equal(op_text(t, 6, b, sizeof(b)), "c1 read path=\"/w/f\" fh=1 off=3 len=2 ret=2 raw=posix -> OK");
	assert_string_equal(op_text(t, 7, b, sizeof(b)), "c1 close path=\"/w/f\" fh=1 raw=posix -> OK");
	/* the first event is t = 0, times in ns after it */
	assert_int_equal(t->ms.ops[0].t_start, 4000);
	assert_int_equal(t->ms.ops[0].t_end, 4100);
	assert_int_equal(rp_sysmodel_finish(t->m), 0);
	assert_int_equal(t->ms.finished, 1);
	assert_int_equal(t->ms.meta.source, RP_SRC_SYSCALL);
	assert_int_equal(t->ms.meta.flags, RP_META_TIMED);
	assert_int_equal(t->ms.meta.capture_start_ns, 0);
	assert_int_equal(stats(t)->ops, 8);
	assert_int_equal(stats(t)->by_nr[RP_SYSEV_READ], 4);
	assert_int_equal(stats(t)->processes, 1);
	done(t);
}

static void open_flags_and_results(void **state)
{
	(void)state;
	T *const t = mk(NULL);
	start(t, 1, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 3, A(AT_CWD, O_WRONLY | O_CREAT | O_EXCL, 0600), P("/a"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 4,
	   A(AT_CWD, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_SYNC | O_NOFOLLOW, 0644), P("/b"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 5, A(AT_CWD, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0777), P("/d"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 6, A(AT_CWD, O_PATH), P("/e"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 7, A(AT_CWD, O_WRONLY | O_TRUNC), P("/t"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = -2, A(AT_CWD, O_RDONLY), P("nope"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 8, A(5, O_RDONLY), P("in")); /* relative to a dirfd */
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 9, A(AT_CWD, O_RDWR | O_TMPFILE, 0600), P("/tmp"));
	HAS(t, "c1 open path=\"/a\" fh=1 ret=2 want=write disp=create mode=0600 raw=posix -> OK");
	HAS(t, "c1 open path=\"/b\" fh=2 want=read,write disp=trunc_if of=sync,append,nofollow mode=0644 raw=posix");
	HAS(t, "c1 open path=\"/d\" fh=3 ret=1 want=read of=dir,cloexec flags=dir raw=posix"); /* no mode without O_CREAT */
	HAS(t, "c1 open path=\"/e\" fh=4 ret=1 want=none raw=posix");
	HAS(t, "c1 open path=\"/t\" fh=5 ret=3 want=write disp=trunc raw=posix");
	HAS(t, "c1 open path=\"/w/nope\" fh=0 want=read raw=posix -> ENOENT (ENOENT)");
	HAS(t, "c1 open path=\"/d/in\" fh=6 ret=1 want=read raw=posix");
	HAS(t, "c1 open path=\"/tmp\" fh=7 ret=1 want=read,write of=dir mode=0600 raw=posix"); /* no dir flag: a file */
	done(t);
}

/* One event after a common setup (fd 3 the file /w/f at 10, fd 4 the directory /w/d, fd 1 a terminal): its op. */
typedef struct row {
	const char *what;
	rp_sysev ev;
	const char *want; /* the op's text without times; NULL: no op */
} row;

static const row rows[] = {
	{ "openat", { .nr = RP_SYSEV_OPEN, .ret = 5, A(4, O_RDONLY | O_NOFOLLOW | O_DIRECT) , P("e") },
	  "c1 open path=\"/w/d/e\" fh=3 ret=1 want=read of=nofollow,direct raw=posix -> OK" },
	{ "close", { .nr = RP_SYSEV_CLOSE, A(3) }, "c1 close path=\"/w/f\" fh=1 raw=posix -> OK" },
	{ "close EBADF", { .nr = RP_SYSEV_CLOSE, .ret = -9, A(3) }, "c1 close path=\"/w/f\" fh=1 raw=posix -> EBADF (EBADF)" },
	{ "close of a terminal", { .nr = RP_SYSEV_CLOSE, A(1) }, NULL },
	{ "close_range", { .nr = RP_SYSEV_CLOSE_RANGE, A(3, 100, 0) }, NULL },
	{ "write", { .nr = RP_SYSEV_WRITE, .ret = 4, A(3, -1, 4) }, "c1 write path=\"/w/f\" fh=1 off=10 len=4 ret=4 raw=posix -> OK" },
	{ "pwrite", { .nr = RP_SYSEV_WRITE, .ret = 4, A(3, 100, 4) }, "c1 write path=\"/w/f\" fh=1 off=100 len=4 ret=4 raw=posix -> OK" },
	{ "write of a terminal", { .nr = RP_SYSEV_WRITE, .ret = 4, A(1, -1, 4) }, NULL },
	{ "read EINTR", { .nr = RP_SYSEV_READ, .ret = -4, A(3, -1, 4) }, "c1 read path=\"/w/f\" fh=1 off=10 len=4 raw=posix -> EINTR (EINTR)" },
	{ "lseek", { .nr = RP_SYSEV_LSEEK, .ret = 0, A(3, 0, 0) }, NULL },
	{ "fsync", { .nr = RP_SYSEV_FSYNC, A(3) }, "c1 flush path=\"/w/f\" fh=1 raw=posix -> OK" },
	{ "fdatasync", { .nr = RP_SYSEV_FSYNC, A(3, 1) }, "c1 flush path=\"/w/f\" fh=1 flags=datasync raw=posix -> OK" },
	{ "ftruncate", { .nr = RP_SYSEV_TRUNCATE, A(3, 7) }, "c1 setattr path=\"/w/f\" fh=1 len=7 set=size raw=posix -> OK" },
	{ "truncate", { .nr = RP_SYSEV_TRUNCATE, A(-1, 0, 0, AT_CWD), P("g") }, "c1 setattr path=\"/w/g\" set=size raw=posix -> OK" },
	{ "fallocate", { .nr = RP_SYSEV_FALLOCATE, A(3, 1 | 2, 4096, 8192) },
	  "c1 fallocate path=\"/w/f\" fh=1 off=4096 len=8192 of=keep_size,punch_hole raw=posix -> OK" },
	{ "posix_fallocate", { .nr = RP_SYSEV_FALLOCATE, A(3, 0, 0, 100) }, "c1 fallocate path=\"/w/f\" fh=1 off=0 len=100 raw=posix -> OK" },
	{ "zero range", { .nr = RP_SYSEV_FALLOCATE, A(3, 0x10, 0, 1) }, "c1 fallocate path=\"/w/f\" fh=1 off=0 len=1 of=zero_range raw=posix -> OK" },
	{ "fadvise", { .nr = RP_SYSEV_FADVISE, A(3, 0, 0, 4) }, NULL },
	{ "stat", { .nr = RP_SYSEV_STAT, A(AT_CWD), P("x") }, "c1 stat path=\"/w/x\" raw=posix -> OK" },
	{ "fstat", { .nr = RP_SYSEV_STAT, A(3, 0x1000), P("") }, "c1 stat path=\"/w/f\" fh=1 raw=posix -> OK" },
	{ "fstatat", { .nr = RP_SYSEV_STAT, A(4, 0, 1), P("e") }, "c1 stat path=\"/w/d/e\" raw=posix -> OK" },
	{ "stat of a directory", { .nr = RP_SYSEV_STAT, A(AT_CWD, 0, 0, 1), P("d") }, "c1 stat path=\"/w/d\" flags=dir raw=posix -> OK" },
	{ "access", { .nr = RP_SYSEV_ACCESS, A(AT_CWD, 4 | 2), P("/x") }, "c1 access path=\"/x\" ret=2147483651 want=read,write raw=posix -> OK" },
	{ "access F_OK fails", { .nr = RP_SYSEV_ACCESS, .ret = -2, A(AT_CWD, 0), P("/x") }, "c1 access path=\"/x\" want=none raw=posix -> ENOENT (ENOENT)" },
	{ "unlink", { .nr = RP_SYSEV_UNLINK, A(AT_CWD), P("u") }, "c1 unlink path=\"/w/u\" raw=posix -> OK" },
	{ "rmdir", { .nr = RP_SYSEV_UNLINK, A(4, 0x200), P("s") }, "c1 rmdir path=\"/w/d/s\" raw=posix -> OK" },
	{ "mkdir", { .nr = RP_SYSEV_MKDIR, A(AT_CWD, 0755), P("n") }, "c1 mkdir path=\"/w/n\" mode=0755 raw=posix -> OK" },
	{ "rename", { .nr = RP_SYSEV_RENAME, A(AT_CWD, 4, 1), P("a", "b") },
	  "c1 rename path=\"/w/a\" path2=\"/w/d/b\" of=noreplace raw=posix -> OK" },
	{ "rename exchange", { .nr = RP_SYSEV_RENAME, A(AT_CWD, AT_CWD, 2 | 4), P("a", "/b") },
	  "c1 rename path=\"/w/a\" path2=\"/b\" of=exchange,whiteout raw=posix -> OK" },
	{ "link", { .nr = RP_SYSEV_LINK, A(AT_CWD, AT_CWD), P("f", "h") }, "c1 link path=\"/w/f\" path2=\"/w/h\" raw=posix -> OK" },
	{ "symlink", { .nr = RP_SYSEV_SYMLINK, A(4), P("../f", "l") }, "c1 symlink path=\"/w/d/l\" path2=\"../f\" raw=posix -> OK" },
	{ "readlink", { .nr = RP_SYSEV_READLINK, .ret = 4, A(AT_CWD, 100), P("l") }, "c1 readlink path=\"/w/l\" ret=4 raw=posix -> OK" },
	{ "readlink shown", { .nr = RP_SYSEV_READLINK, .ret = 4, A(AT_CWD, 100), P("l", "../f") },
	  "c1 readlink path=\"/w/l\" path2=\"../f\" ret=4 raw=posix -> OK" },
	{ "readlink shown fails", { .nr = RP_SYSEV_READLINK, .ret = -22, A(AT_CWD, 100), P("l", "x") },
	  "c1 readlink path=\"/w/l\" raw=posix -> EINVAL (EINVAL)" },
	{ "chmod", { .nr = RP_SYSEV_CHMOD, A(-1, AT_CWD, 0640), P("f") }, "c1 setattr path=\"/w/f\" set=mode mode=0640 raw=posix -> OK" },
	{ "fchmod", { .nr = RP_SYSEV_CHMOD, A(3, 0, 04755) }, "c1 setattr path=\"/w/f\" fh=1 set=mode mode=04755 raw=posix -> OK" },
	{ "chown", { .nr = RP_SYSEV_CHOWN, A(-1, AT_CWD, 1000, -1), P("f") }, "c1 setattr path=\"/w/f\" set=uid uid=1000 raw=posix -> OK" },
	{ "fchown", { .nr = RP_SYSEV_CHOWN, A(3, 0, 0xffffffffll, 50) }, "c1 setattr path=\"/w/f\" fh=1 set=gid gid=50 raw=posix -> OK" },
	{ "utimens", { .nr = RP_SYSEV_UTIMENS, A(-1, AT_CWD, 1500000000123456789ll, -2), P("f") },
	  "c1 setattr path=\"/w/f\" set=atime atime=1500000000.123456789 raw=posix -> OK" },
	{ "futimens now", { .nr = RP_SYSEV_UTIMENS, A(3, 0, -1, -1) }, "c1 setattr path=\"/w/f\" fh=1 set=atime_now,mtime_now raw=posix -> OK" },
	{ "getdents", { .nr = RP_SYSEV_GETDENTS, .ret = 480, A(4, 32768) }, "c1 readdir path=\"/w/d\" fh=2 len=32768 raw=posix -> OK" },
	{ "getdents counted", { .nr = RP_SYSEV_GETDENTS, .ret = 480, A(4, 32768, 12, 1) },
	  "c1 readdir path=\"/w/d\" fh=2 len=32768 ret=12 raw=posix -> OK" },
	{ "readdir", { .nr = RP_SYSEV_READDIR, A(4, 12, 1) }, "c1 readdir path=\"/w/d\" fh=2 ret=12 raw=posix -> OK" },
	{ "F_SETLKW", { .nr = RP_SYSEV_LOCK, A(3, 7, 1, 0, 100, 50) }, "c1 lock path=\"/w/f\" fh=1 off=100 len=50 flags=excl,wait raw=posix -> OK" },
	{ "F_SETLK SEEK_CUR", { .nr = RP_SYSEV_LOCK, A(3, 6, 0, 1, 5, 0) }, "c1 lock path=\"/w/f\" fh=1 off=15 len=0 raw=posix -> OK" },
	{ "F_SETLK before", { .nr = RP_SYSEV_LOCK, A(3, 6, 0, 0, 100, -40) }, "c1 lock path=\"/w/f\" fh=1 off=60 len=40 raw=posix -> OK" },
	{ "F_UNLCK", { .nr = RP_SYSEV_LOCK, A(3, 37, 2, 0, 0, 0) }, "c1 unlock path=\"/w/f\" fh=1 off=0 len=0 raw=posix -> OK" },
	{ "F_GETLK", { .nr = RP_SYSEV_LOCK, A(3, 5, 2, 0, 0, 10) }, "c1 lock path=\"/w/f\" fh=1 off=0 len=10 flags=test raw=posix -> OK" },
	{ "F_OFD_SETLK SEEK_END", { .nr = RP_SYSEV_LOCK, A(3, 37, 1, 2, 0, 0) }, "c1 lock path=\"/w/f\" fh=1 off=0 len=0 flags=excl raw=posix -> OK" },
	{ "flock", { .nr = RP_SYSEV_FLOCK, A(3, 2) }, "c1 lock path=\"/w/f\" fh=1 off=0 len=0 flags=excl,wait raw=posix -> OK" },
	{ "flock NB", { .nr = RP_SYSEV_FLOCK, A(3, 1 | 4) }, "c1 lock path=\"/w/f\" fh=1 off=0 len=0 raw=posix -> OK" },
	{ "flock UN", { .nr = RP_SYSEV_FLOCK, A(3, 8) }, "c1 unlock path=\"/w/f\" fh=1 off=0 len=0 raw=posix -> OK" },
	{ "dup", { .nr = RP_SYSEV_DUP, .ret = 5, A(3, -1) }, "c1 dup path=\"/w/f\" fh=1 fh2=3 raw=posix -> OK" },
	{ "dup2 onto itself", { .nr = RP_SYSEV_DUP, .ret = 3, A(3, 3) }, NULL },
	{ "cloexec", { .nr = RP_SYSEV_CLOEXEC, A(3, 1) }, NULL },
	{ "copy_file_range", { .nr = RP_SYSEV_COPY, .ret = 3, A(3, -1, 4, 7, 3, 1) },
	  "c1 copy path=\"/w/f\" path2=\"/w/d\" fh=1 off=10 len=3 ret=3 fh2=2 off2=7 raw=posix -> OK" },
	{ "sendfile to a terminal", { .nr = RP_SYSEV_COPY, .ret = 3, A(3, -1, 1, -1, 3, 2) }, NULL },
	{ "mmap", { .nr = RP_SYSEV_MMAP, .ret = 0x7f0000, A(3, 4096, 8192, 1, 1) }, "c1 mmap path=\"/w/f\" fh=1 off=4096 len=8192 raw=posix -> OK" },
	{ "mmap anonymous", { .nr = RP_SYSEV_MMAP, A(3, 0, 8192, 3, 0x22) }, NULL },
	{ "chdir", { .nr = RP_SYSEV_CHDIR, A(-1), P("d") }, NULL },
	{ "statfs", { .nr = RP_SYSEV_STATFS, A(-1), P("/") }, "c1 statfs path=\"/\" raw=posix -> OK" },
	{ "fstatfs", { .nr = RP_SYSEV_STATFS, A(4) }, "c1 statfs path=\"/w/d\" fh=2 raw=posix -> OK" },
	{ "mknod", { .nr = RP_SYSEV_MKNOD, A(AT_CWD, 010644, 0), P("p") }, "c1 mknod path=\"/w/p\" mode=010644 raw=posix -> OK" },
	{ "getxattr", { .nr = RP_SYSEV_XATTR, .ret = 3, A(-1, 0, 0, 64), P("f", "user.a") },
	  "c1 getxattr path=\"/w/f\" path2=\"user.a\" len=64 ret=3 raw=posix -> OK" },
	{ "fsetxattr", { .nr = RP_SYSEV_XATTR, A(3, 1, 0, 5), P(NULL, "user.b") },
	  "c1 setxattr path=\"/w/f\" path2=\"user.b\" fh=1 len=5 raw=posix -> OK" },
	{ "llistxattr", { .nr = RP_SYSEV_XATTR, .ret = 20, A(-1, 2, 1, 100), P("f") }, "c1 listxattr path=\"/w/f\" len=100 ret=20 raw=posix -> OK" },
	{ "removexattr", { .nr = RP_SYSEV_XATTR, A(-1, 3, 0, 0), P("f", "user.c") }, "c1 removexattr path=\"/w/f\" path2=\"user.c\" raw=posix -> OK" },
	{ "exec", { .nr = RP_SYSEV_EXEC, P("/bin/true") }, NULL },
	{ "untraced", { .nr = RP_SYSEV_UNTRACED, A(1), P("/bin/static") }, NULL },
	{ "lost", { .nr = RP_SYSEV_LOST, A(7) }, NULL },
	{ "exit", { .nr = RP_SYSEV_EXIT, A(0) }, NULL },
	{ "wait for a pid never seen", { .nr = RP_SYSEV_WAIT, .ret = 4242, A(4242) }, NULL },
};

static void setup_row(T *t)
{
	start(t, 1, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 3, A(AT_CWD, O_RDWR), P("f"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 4, A(AT_CWD, O_RDONLY | O_DIRECTORY), P("d"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 10, A(3, -1, 10));
}

static void every_event_kind(void **state)
{
	(void)state;
	bool seen[RP_SYSEV__MAX] = { false };
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		T *const t = mk(NULL);
		setup_row(t);
		const size_t before = t->ms.n_ops;
		rp_sysev e = rows[i].ev;
		e.pid = 1;
		assert_int_equal(feed(t, e), 0);
		char b[512];
		if (rows[i].want) {
			if (t->ms.n_ops != before + 1 || strcmp(op_text(t, -1, b, sizeof(b)), rows[i].want) != 0)
				fail_msg("%s: got \"%s\" (%zu ops), want \"%s\"", rows[i].what, op_text(t, -1, b, sizeof(b)),
					 t->ms.n_ops - before, rows[i].want);
		} else if (t->ms.n_ops != before) {
			fail_msg("%s: an op where none belongs: %s", rows[i].what, op_text(t, -1, b, sizeof(b)));
		}
		assert_int_equal(stats(t)->bad, 0);
		seen[e.nr] = true;
		done(t);
	}
	/* every event kind of the map has a row, except START, FD and FORK (their own tests) */
	for (unsigned nr = 0; nr < RP_SYSEV__MAX; nr++)
		if (rp_sysev_name(nr) && nr != RP_SYSEV_START && nr != RP_SYSEV_FD && nr != RP_SYSEV_FORK && !seen[nr])
			fail_msg("no row for %s", rp_sysev_name(nr));
}

/* The state the no-op rows change: what the next op shows. */
static void state_changes(void **state)
{
	(void)state;
	char b[512];
	T *t = mk(NULL);
	setup_row(t);
	EV(t, .nr = RP_SYSEV_LSEEK, .pid = 1, .ret = 3, A(3, 3, 0));
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/f\" fh=1 off=3 len=1 ret=1 raw=posix -> OK");
	/* a failed lseek moves nothing */
	EV(t, .nr = RP_SYSEV_LSEEK, .pid = 1, .ret = -22, A(3, -3, 0));
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/f\" fh=1 off=4 len=1 ret=1 raw=posix -> OK");
	/* chdir by path, then by fd */
	EV(t, .nr = RP_SYSEV_CHDIR, .pid = 1, A(-1), P("sub"));
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 1, A(AT_CWD), P("x"));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 unlink path=\"/w/sub/x\" raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_CHDIR, .pid = 1, A(4));
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 1, A(AT_CWD), P("x"));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 unlink path=\"/w/d/x\" raw=posix -> OK");
	/* close_range: the fds go, and close-on-exec with CLOSE_RANGE_CLOEXEC */
	EV(t, .nr = RP_SYSEV_CLOSE_RANGE, .pid = 1, A(4, 4, 4));
	EV(t, .nr = RP_SYSEV_CLOSE_RANGE, .pid = 1, A(3, 3, 0));
	const size_t n = t->ms.n_ops;
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(3, -1, 1));
	assert_int_equal(t->ms.n_ops, n);
	assert_int_equal(stats(t)->unknown_fd, 1);
	EV(t, .nr = RP_SYSEV_START, .pid = 1, A(1), P("/w"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(4, 0, 1, 0, 1), P("/w/d"));
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(4, -1, 1));
	/* fd 4 had close-on-exec: gone at the exec; the snapshot's fd 4 is another file, a new handle */
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/d\" fh=3 off=0 len=1 ret=1 raw=posix -> OK");
	done(t);
	/* F_SETFD: close-on-exec set, then cleared */
	t = mk(NULL);
	setup_row(t);
	EV(t, .nr = RP_SYSEV_CLOEXEC, .pid = 1, A(3, 1));
	EV(t, .nr = RP_SYSEV_CLOEXEC, .pid = 1, A(4, 1));
	EV(t, .nr = RP_SYSEV_CLOEXEC, .pid = 1, A(4, 0));
	EV(t, .nr = RP_SYSEV_START, .pid = 1, A(1), P("/w"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(4, 0, 0, 0, 1), P("/w/d"));
	EV(t, .nr = RP_SYSEV_GETDENTS, .pid = 1, A(4, 100));
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, A(3, -1, 100));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 readdir path=\"/w/d\" fh=2 len=100 raw=posix -> OK");
	assert_int_equal(stats(t)->execs, 1);
	assert_int_equal(stats(t)->unknown_fd, 1);
	done(t);
}

static void status_noend_times(void **state)
{
	(void)state;
	char b[512];
	rp_sysmodel_opts o = { .clock_offset_ns = 1700000000000000000ll, .source = RP_SRC_CTF, .source_name = "run.ctf" };
	T *const t = mk(&o);
	EV(t, .nr = RP_SYSEV_START, .pid = 5, A(1), P("/w"), .t_start = 500, .t_end = 500);
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 5, .ret = -5000, A(AT_CWD), P("a"), .t_start = 600, .t_end = 700);
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 5, .ret = 3, .flags = RP_SYSEV_NOEND, A(AT_CWD, O_RDONLY), P("b"), .t_start = 800);
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 5, .ret = 0, A(AT_CWD), P("c"), .t_start = 700, .t_end = 750);
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 5, .ret = -13, A(AT_CWD), P("d"), .t_start = 900, .t_end = 800);
	assert_string_equal(op_text(t, 0, b, sizeof(b)), "c1 unlink path=\"/w/a\" raw=posix -> OTHER");
	/* the call never returned: no reply, and no fd made */
	assert_string_equal(op_text(t, 1, b, sizeof(b)), "c1 open path=\"/w/b\" fh=0 want=read flags=noreply raw=posix -> UNKNOWN");
	assert_int_equal(t->ms.ops[1].t_end, RP_TIME_UNKNOWN);
	/* out of order: counted, kept in order at the latest time */
	assert_int_equal(t->ms.ops[2].t_start, 300);
	assert_int_equal(t->ms.ops[2].t_end, 350);
	assert_int_equal(t->ms.ops[3].t_start, 400);
	assert_int_equal(t->ms.ops[3].t_end, 400); /* an end before the start: no duration */
	assert_string_equal(op_text(t, 3, b, sizeof(b)), "c1 unlink path=\"/w/d\" raw=posix -> EACCES (EACCES)");
	assert_int_equal(t->ms.ops[3].status_kind, RP_SK_ERRNO);
	assert_int_equal(t->ms.ops[3].proto_status, 13);
	assert_int_equal(stats(t)->late, 1);
	assert_int_equal(stats(t)->noend, 1);
	assert_int_equal(t->ms.meta.source, RP_SRC_CTF);
	assert_string_equal(t->ms.meta.source_name, "run.ctf");
	assert_int_equal(t->ms.meta.capture_start_ns, 1700000000000000500ll);
	assert_int_equal(rp_sysmodel_finish(t->m), 0);
	assert_int_equal(rp_sysmodel_event(t->m, &(rp_sysev){ .nr = RP_SYSEV_CLOSE }), RP_E_STATE);
	done(t);
}

static void fork_exec_spawn(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	start(t, 10, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 10, .ret = 3, A(AT_CWD, O_WRONLY | O_CREAT, 0644), P("log"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 10, .ret = 4, A(AT_CWD, O_RDONLY | O_CLOEXEC), P("conf"));
	/* fork: the child holds copies of the parent's handles */
	EV(t, .nr = RP_SYSEV_FORK, .pid = 11, A(10));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 fork ret=2 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 11, .ret = 2, A(3, -1, 2));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c2 write path=\"/w/log\" fh=1 off=0 len=2 ret=2 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_READ, .pid = 11, .ret = 2, A(4, -1, 2));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c2 read path=\"/w/conf\" fh=2 off=0 len=2 ret=2 raw=posix -> OK");
	/* its position is its own copy's in the model (the kernel shares it: the exec's snapshot says so) */
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 10, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/w/log\" fh=1 off=0 len=1 ret=1 raw=posix -> OK");
	/* exec in the child: close-on-exec fds go, the snapshot names what it holds */
	EV(t, .nr = RP_SYSEV_EXEC, .pid = 11, P("/bin/sh"));
	EV(t, .nr = RP_SYSEV_START, .pid = 11, A(10), P("/w"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 11, A(3, 1, 0, 3, 1), P("/w/log"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 11, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c2 write path=\"/w/log\" fh=1 off=3 len=1 ret=1 raw=posix -> OK");
	const size_t n = t->ms.n_ops;
	EV(t, .nr = RP_SYSEV_READ, .pid = 11, .ret = 2, A(4, -1, 2));
	assert_int_equal(t->ms.n_ops, n);
	/* posix_spawn: a START for a new pid whose parent is known: fork and exec at once */
	EV(t, .nr = RP_SYSEV_START, .pid = 12, A(10), P("/w/sub"));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 fork ret=3 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FD, .pid = 12, A(3, 1, 0, 1, 1), P("/w/log"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 12, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c3 write path=\"/w/log\" fh=1 off=1 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_READ, .pid = 12, .ret = 2, A(4, -1, 2));
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 12, A(AT_CWD), P("x"));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c3 unlink path=\"/w/sub/x\" raw=posix -> OK");
	/* the parent keeps its own */
	EV(t, .nr = RP_SYSEV_READ, .pid = 10, .ret = 2, A(4, -1, 2));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/conf\" fh=2 off=0 len=2 ret=2 raw=posix -> OK");
	/* exit: the table goes; the pid again is a new process, a new client */
	EV(t, .nr = RP_SYSEV_EXIT, .pid = 11, A(0));
	/* the parent reaps it: a wait op on the child's client, also after its exit */
	EV(t, .nr = RP_SYSEV_WAIT, .pid = 10, .ret = 11, A(11));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 wait ret=2 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FORK, .pid = 11, A(10));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 fork ret=4 raw=posix -> OK");
	assert_int_equal(stats(t)->processes, 4);
	assert_int_equal(stats(t)->execs, 1);
	assert_int_equal(stats(t)->unknown_fd, 2);
	/* a second FORK into a live process makes no sense */
	EV(t, .nr = RP_SYSEV_FORK, .pid = 11, A(10));
	assert_int_equal(stats(t)->bad, 1);
	done(t);
}

/* EXEC with a1 1 (strace: the result seen, no START after it): the close-on-exec fds go there; a failed one changes nothing. */
static void exec_seen_done(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	start(t, 10, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 10, .ret = 3, A(AT_CWD, O_WRONLY | O_CREAT, 0644), P("log"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 10, .ret = 4, A(AT_CWD, O_RDONLY | O_CLOEXEC), P("conf"));
	EV(t, .nr = RP_SYSEV_EXEC, .pid = 10, .ret = -2, A(AT_CWD, 1), P("/bin/nope"));
	EV(t, .nr = RP_SYSEV_READ, .pid = 10, .ret = 2, A(4, -1, 2));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/conf\" fh=2 off=0 len=2 ret=2 raw=posix -> OK");
	assert_int_equal(stats(t)->execs, 0);
	EV(t, .nr = RP_SYSEV_EXEC, .pid = 10, .ret = 0, A(AT_CWD, 1), P("/bin/sh"));
	assert_int_equal(stats(t)->execs, 1);
	const size_t n = t->ms.n_ops;
	EV(t, .nr = RP_SYSEV_READ, .pid = 10, .ret = 2, A(4, -1, 2));
	assert_int_equal(t->ms.n_ops, n); /* fd 4 went */
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 10, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/w/log\" fh=1 off=0 len=1 ret=1 raw=posix -> OK");
	/* without a1 the exec waits for its START (the interposer's), as before */
	EV(t, .nr = RP_SYSEV_EXEC, .pid = 10, .ret = 0, A(AT_CWD), P("/bin/sh"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 10, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/w/log\" fh=1 off=1 len=1 ret=1 raw=posix -> OK");
	assert_int_equal(stats(t)->execs, 1);
	done(t);
}

static void snapshot_reconciles(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	start(t, 1, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 3, A(AT_CWD, O_RDONLY), P("a"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 4, A(AT_CWD, O_RDONLY), P("b"));
	EV(t, .nr = RP_SYSEV_START, .pid = 1, A(1), P("/w"));
	/* the process holds 4 (kept, at the snapshot's position) and 5 (never seen: a handle named by it); not 3 */
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(4, 0, 0, 7, 1), P("/w/b"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(5, 0, 0, 100, 1), P("/w/new"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(6, 0, 0, 0, 0), P("pipe:[12]"));
	const size_t n = t->ms.n_ops;
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(3, -1, 1));
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(6, -1, 1));
	assert_int_equal(t->ms.n_ops, n);
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(4, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/b\" fh=2 off=7 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(5, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/new\" fh=3 off=100 len=1 ret=1 raw=posix -> OK");
	assert_int_equal(stats(t)->unknown_fd, 1);
	assert_int_equal(stats(t)->nonfile, 1);
	done(t);
}

/* `cmd > out.txt`: the first process's stdout is the file. */
static void first_process_redirect(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	EV(t, .nr = RP_SYSEV_START, .pid = 7, A(3), P("/home/u"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 7, A(0, 0, 0, 0, 0), P("/dev/pts/1"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 7, A(1, O_WRONLY, 0, 0, 1), P("/home/u/out.txt"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 7, .ret = 6, A(1, -1, 6));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 7, .ret = 6, A(1, -1, 6));
	EV(t, .nr = RP_SYSEV_READ, .pid = 7, .ret = 6, A(0, -1, 6));
	assert_int_equal(t->ms.n_ops, 2);
	assert_string_equal(op_text(t, 1, b, sizeof(b)),
			    "c1 write path=\"/home/u/out.txt\" fh=1 off=6 len=6 ret=6 raw=posix -> OK");
	assert_int_equal(stats(t)->nonfile, 1);
	done(t);
}

static void threads_share(void **state)
{
	(void)state;
	char b[512];
	T *t = mk(NULL);
	start(t, 20, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 20, .ret = 3, A(AT_CWD, O_RDWR), P("f"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 20, .tid = 21, .ret = 4, A(3, -1, 4));
	/* the text form prints fork's oflags with the open flags' names: the field itself is checked */
	assert_int_equal(t->ms.ops[t->ms.n_ops - 2].op, RP_OP_FORK);
	assert_int_equal(t->ms.ops[t->ms.n_ops - 2].client, 1);
	assert_int_equal(t->ms.ops[t->ms.n_ops - 2].result, 2);
	assert_int_equal(t->ms.ops[t->ms.n_ops - 2].oflags, RP_FK_SHARE);
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c2 write path=\"/w/f\" fh=1 off=0 len=4 ret=4 raw=posix -> OK");
	/* one table: the thread's close closes it for the process */
	EV(t, .nr = RP_SYSEV_CLOSE, .pid = 20, .tid = 21, A(3));
	EV(t, .nr = RP_SYSEV_CHDIR, .pid = 20, .tid = 21, A(-1), P("/x"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 20, .ret = 4, A(3, -1, 4));
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 20, A(AT_CWD), P("u"));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 unlink path=\"/x/u\" raw=posix -> OK");
	assert_int_equal(stats(t)->threads, 2);
	assert_int_equal(stats(t)->unknown_fd, 1);
	done(t);
	/* a client per process: no fork op for a thread, one client */
	const rp_sysmodel_opts o = { .process_clients = true };
	t = mk(&o);
	start(t, 20, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 20, .ret = 3, A(AT_CWD, O_RDWR), P("f"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 20, .tid = 21, .ret = 4, A(3, -1, 4));
	EV(t, .nr = RP_SYSEV_FORK, .pid = 30, .tid = 30, A(20));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 30, .tid = 31, .ret = 4, A(3, -1, 4));
	assert_int_equal(t->ms.n_ops, 4);
	assert_string_equal(op_text(t, 1, b, sizeof(b)), "c1 write path=\"/w/f\" fh=1 off=0 len=4 ret=4 raw=posix -> OK");
	assert_string_equal(op_text(t, 2, b, sizeof(b)), "c1 fork ret=2 raw=posix -> OK");
	assert_string_equal(op_text(t, 3, b, sizeof(b)), "c2 write path=\"/w/f\" fh=1 off=4 len=4 ret=4 raw=posix -> OK");
	assert_int_equal(stats(t)->threads, 4);
	done(t);
}

static void dup_close_write(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	start(t, 1, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 3, A(AT_CWD, O_WRONLY), P("f"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 8, A(3, -1, 8));
	EV(t, .nr = RP_SYSEV_DUP, .pid = 1, .ret = 5, A(3, -1));
	EV(t, .nr = RP_SYSEV_CLOSE, .pid = 1, A(3));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 2, A(5, -1, 2));
	assert_string_equal(op_text(t, 2, b, sizeof(b)), "c1 dup path=\"/w/f\" fh=1 fh2=2 raw=posix -> OK");
	assert_string_equal(op_text(t, 4, b, sizeof(b)), "c1 write path=\"/w/f\" fh=2 off=8 len=2 ret=2 raw=posix -> OK");
	/* dup2 over an open fd replaces it without a close op; dup3's O_CLOEXEC goes at exec */
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 6, A(AT_CWD, O_RDONLY), P("g"));
	EV(t, .nr = RP_SYSEV_DUP, .pid = 1, .ret = 6, A(5, 6, O_CLOEXEC));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 dup path=\"/w/f\" fh=2 fh2=4 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(6, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/w/f\" fh=4 off=10 len=1 ret=1 raw=posix -> OK");
	/* a dup of a terminal is no file; a dup of an unknown fd over a file leaves it unknown */
	EV(t, .nr = RP_SYSEV_DUP, .pid = 1, .ret = 7, A(1, -1));
	EV(t, .nr = RP_SYSEV_DUP, .pid = 1, .ret = 5, A(40, 5));
	const size_t n = t->ms.n_ops;
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(7, -1, 1));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(5, -1, 1));
	assert_int_equal(t->ms.n_ops, n);
	assert_int_equal(stats(t)->nonfile, 2);
	assert_int_equal(stats(t)->unknown_fd, 2);
	EV(t, .nr = RP_SYSEV_START, .pid = 1, A(1), P("/w"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(6, 0, 0, 0, 1), P("/w/f"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(6, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/w/f\" fh=5 off=0 len=1 ret=1 raw=posix -> OK");
	done(t);
}

static void rename_moves_fds(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	start(t, 1, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 3, A(AT_CWD, O_WRONLY), P("d/f"));
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 4, A(AT_CWD, O_WRONLY), P("g"));
	EV(t, .nr = RP_SYSEV_RENAME, .pid = 1, A(AT_CWD, AT_CWD), P("d", "e"));
	EV(t, .nr = RP_SYSEV_RENAME, .pid = 1, A(AT_CWD, AT_CWD), P("g", "h"));
	EV(t, .nr = RP_SYSEV_RENAME, .pid = 1, .ret = -2, A(AT_CWD, AT_CWD), P("h", "i"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/w/e/f\" fh=1 off=0 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(4, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/w/h\" fh=2 off=0 len=1 ret=1 raw=posix -> OK");
	done(t);
}


/* FD with a5 1: the names a tracer shows for the fds a call uses (strace -y), outside any START. */
static void tracer_fd_names(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	start(t, 1, "/w");
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(AT_CWD, 0, 0, 0, 1, 1), P("/x")); /* the working directory */
	EV(t, .nr = RP_SYSEV_STAT, .pid = 1, A(AT_CWD), P("s"));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 stat path=\"/x/s\" raw=posix -> OK");
	/* an fd never seen: a file so named, or unnamed */
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(5, 0, 0, 0, 1, 1), P("/x/f"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(5, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/x/f\" fh=1 off=0 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(6, 0, 0, 0, 1, 1));
	EV(t, .nr = RP_SYSEV_READ, .pid = 1, .ret = 1, A(6, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read fh=2 off=0 len=1 ret=1 raw=posix -> OK");
	/* a terminal, and a pipe on an fd never seen: no op */
	const size_t n = t->ms.n_ops;
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(1, 0, 0, 0, 0, 1), P("/dev/pts/0"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(1, -1, 1));
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(8, 0, 0, 0, 0, 1), P("pipe:[7]"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(8, -1, 1));
	/* ... and it stays a pipe when a later call shows no name for it */
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(8, 0, 0, 0, 1, 1));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(8, -1, 1));
	assert_int_equal(t->ms.n_ops, n);
	assert_int_equal(stats(t)->nonfile, 3);
	assert_int_equal(stats(t)->unknown_fd, 1); /* fd 6, unnamed */
	/* the path the open asked for stays while the name is the first shown (symlinks resolved); a new one is followed */
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 1, .ret = 7, A(AT_CWD, O_RDWR), P("lnk"));
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(7, 0, 0, 0, 1, 1), P("/x/target"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(7, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/x/lnk\" fh=3 off=0 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(7, 0, 0, 0, 1, 1), P("/x/target"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(7, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/x/lnk\" fh=3 off=1 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(7, 0, 0, 0, 1, 1), P("/y/target"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(7, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/y/target\" fh=3 off=2 len=1 ret=1 raw=posix -> OK");
	/* a file fd shown as a pipe makes no op; named again, it is a new file */
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(5, 0, 0, 0, 0, 1), P("pipe:[8]"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(5, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/y/target\" fh=3 off=2 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(5, 0, 0, 0, 1, 1), P("/x/g"));
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 1, .ret = 1, A(5, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 write path=\"/x/g\" fh=4 off=0 len=1 ret=1 raw=posix -> OK");
	assert_int_equal(stats(t)->bad, 0);
	EV(t, .nr = RP_SYSEV_FD, .pid = 1, A(-5, 0, 0, 0, 1, 1), P("/x/h"));
	assert_int_equal(stats(t)->bad, 1);
	done(t);
}

/*
 * FORK with a1 1 (strace: the clone call's result seen): the op is the
 * call's, from the calling thread's client; a process child gets a copy of
 * the table, a thread (a2 1) shares it; a failed clone is the op alone; a
 * child whose events came first keeps what it made and takes what it lacks.
 */
static void fork_seen_by_tracer(void **state)
{
	(void)state;
	char b[512];
	T *const t = mk(NULL);
	start(t, 10, "/w");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 10, .ret = 3, A(AT_CWD, O_RDWR), P("f"));
	EV(t, .nr = RP_SYSEV_FORK, .pid = 11, .ret = 11, A(10, 1, 0));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 fork ret=2 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_WRITE, .pid = 11, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c2 write path=\"/w/f\" fh=1 off=0 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FORK, .pid = 10, .tid = 12, .ret = 12, A(10, 1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 fork ret=3 of=share raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 10, .tid = 12, .ret = 4, A(AT_CWD, O_RDONLY), P("g"));
	EV(t, .nr = RP_SYSEV_READ, .pid = 10, .ret = 1, A(4, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 read path=\"/w/g\" fh=2 off=0 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FORK, .pid = 13, .ret = 13, A(12, 1, 0)); /* the thread forks: the op is its own */
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c3 fork ret=4 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_FORK, .pid = 10, .ret = -11, A(10, 1, 0));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 fork raw=posix -> EAGAIN (EAGAIN)");
	EV(t, .nr = RP_SYSEV_FORK, .pid = 10, .flags = RP_SYSEV_NOEND, A(10, 1, 0));
	HAS(t, "c1 fork flags=noreply raw=posix -> UNKNOWN");
	start(t, 14, "/v");
	EV(t, .nr = RP_SYSEV_OPEN, .pid = 14, .ret = 3, A(AT_CWD, O_RDONLY), P("own"));
	EV(t, .nr = RP_SYSEV_FORK, .pid = 14, .ret = 14, A(10, 1, 0));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 fork ret=5 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_READ, .pid = 14, .ret = 1, A(3, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c5 read path=\"/v/own\" fh=3 off=0 len=1 ret=1 raw=posix -> OK");
	EV(t, .nr = RP_SYSEV_READ, .pid = 14, .ret = 1, A(4, -1, 1));
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c5 read path=\"/w/g\" fh=2 off=1 len=1 ret=1 raw=posix -> OK");
	assert_int_equal(stats(t)->bad, 0);
	EV(t, .nr = RP_SYSEV_FORK, .pid = 20, .ret = 20, A(99, 1, 0)); /* from a thread never seen */
	assert_int_equal(stats(t)->bad, 1);
	done(t);
}

/* A Unix clock (strace -ttt): the trace starts at the first event, a trace without one is not timed; an errno the tracer did not name. */
static void unix_clock_unnamed_errno(void **state)
{
	(void)state;
	char b[512];
	const rp_sysmodel_opts o = { .unix_clock = true, .exclude = "" };
	T *t = mk(&o);
	EV(t, .nr = RP_SYSEV_START, .pid = 1, .t_start = 1700000000000000500ll, .t_end = 1700000000000000500ll);
	EV(t, .nr = RP_SYSEV_UNLINK, .pid = 1, .ret = -4096, A(AT_CWD), P("/dev/x"));
	assert_int_equal(rp_sysmodel_finish(t->m), 0);
	assert_int_equal(t->ms.meta.capture_start_ns, 1700000000000000500ll);
	assert_int_equal(t->ms.meta.flags, RP_META_TIMED);
	assert_string_equal(op_text(t, -1, b, sizeof(b)), "c1 unlink path=\"/dev/x\" raw=posix -> OTHER");
	done(t);
	t = mk(&o);
	assert_int_equal(rp_sysmodel_finish(t->m), 0);
	assert_int_equal(t->ms.meta.flags, 0);
	assert_int_equal(t->ms.meta.capture_start_ns, 0);
	done(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_read_write_close),
		cmocka_unit_test(open_flags_and_results),
		cmocka_unit_test(every_event_kind),
		cmocka_unit_test(state_changes),
		cmocka_unit_test(status_noend_times),
		cmocka_unit_test(fork_exec_spawn),
		cmocka_unit_test(exec_seen_done),
		cmocka_unit_test(snapshot_reconciles),
		cmocka_unit_test(first_process_redirect),
		cmocka_unit_test(threads_share),
		cmocka_unit_test(dup_close_write),
		cmocka_unit_test(rename_moves_fds),
		cmocka_unit_test(tracer_fd_names),
		cmocka_unit_test(fork_seen_by_tracer),
		cmocka_unit_test(unix_clock_unnamed_errno),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
