/* converters/strace*.c: strace lines -> ops per syscall family, unfinished/resumed, -ff, escapes, errors, every prefix
 * (processes: test_strace_proc.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "converters/registry.h"
#include "converters/strace.h"
#include "converters/strace_int.h"
#include "strace_harness.h"

#ifndef SRCDIR
#error "SRCDIR must name the source tree"
#endif

static void open_read_close(void **state)
{
	(void)state;
	got *const g = parse(
		"100 1700000000.000000 openat(AT_FDCWD</tmp>, \"x\", O_RDONLY|O_CLOEXEC) = 3</tmp/x> <0.000012>\n"
		"100 1700000000.000100 read(3</tmp/x>, \"abc\"..., 4096) = 3 <0.000005>\n"
		"100 1700000000.000200 read(3</tmp/x>, \"\", 4096) = 0 <0.000001>\n"
		"100 1700000000.000300 close(3</tmp/x>) = 0 <0.000002>\n"
		"100 1700000000.000400 openat(AT_FDCWD</tmp>, \"nope\", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000007>\n");
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->m.n_ops, 5);
	char b[512];
	assert_string_equal(line_of(g, 0, b, sizeof(b)),
			    "0.000000000 0.000012000 c1 open path=\"/tmp/x\" fh=1 ret=1 want=read of=cloexec raw=posix -> OK");
	assert_string_equal(line_of(g, 1, b, sizeof(b)),
			    "0.000100000 0.000105000 c1 read path=\"/tmp/x\" fh=1 off=0 len=4096 ret=3 raw=posix -> OK");
	assert_string_equal(line_of(g, 2, b, sizeof(b)),
			    "0.000200000 0.000201000 c1 read path=\"/tmp/x\" fh=1 off=3 len=4096 raw=posix -> OK");
	HAS(g, "c1 close path=\"/tmp/x\" fh=1 raw=posix -> OK");
	HAS(g, "c1 open path=\"/tmp/nope\" fh=0 want=read raw=posix -> ENOENT (ENOENT)");
	assert_int_equal(g->m.meta.source, RP_SRC_STRACE);
	assert_int_equal(g->m.meta.capture_start_ns, 1700000000000000000ll);
	done(g);
}

static void open_flags(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 open(\"/a\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3 <0.1>\n"
		"1 1.1 openat(AT_FDCWD, \"/b\", O_RDWR|O_CREAT|O_TRUNC|O_APPEND|O_SYNC|O_NOFOLLOW, 0644) = 4 <0.1>\n"
		"1 1.2 creat(\"/c\", 0640) = 5 <0.1>\n"
		"1 1.3 openat2(AT_FDCWD, \"/d\", {flags=O_RDONLY|O_DIRECTORY|O_CLOEXEC, mode=0, resolve=RESOLVE_BENEATH}, 24) = 6 <0.1>\n"
		"1 1.4 openat(AT_FDCWD, \"/e\", O_PATH) = 7 <0.1>\n"
		"1 1.5 openat(AT_FDCWD, \"/f\", O_RDONLY|0x4000000) = 8 <0.1>\n"
		"1 1.6 openat(AT_FDCWD, \"/g\", O_RDONLY|O_NEWFANGLED) = 9 <0.1>\n");
	assert_int_equal(g->rc, 0);
	HAS(g, "open path=\"/a\" fh=1 ret=2 want=write disp=create mode=0600");
	HAS(g, "open path=\"/b\" fh=2 want=read,write disp=trunc_if of=sync,append,nofollow mode=0644");
	HAS(g, "open path=\"/c\" fh=3 want=write disp=trunc_if mode=0640");
	HAS(g, "open path=\"/d\" fh=4 ret=1 want=read of=dir,cloexec flags=dir");
	HAS(g, "open path=\"/e\" fh=5 ret=1 want=none");
	HAS(g, "open path=\"/f\" fh=6 ret=1 want=read");
	assert_non_null(strstr(g->summary, "unknown flag names 1"));
	done(g);
}

static void unfinished_resumed(void **state)
{
	(void)state;
	got *const g = parse(
		"10 5.000000 openat(AT_FDCWD</w>, \"f\", O_RDONLY) = 3</w/f> <0.1>\n"
		"10 5.100000 read(3</w/f>,  <unfinished ...>\n"
		"11 5.200000 mkdir(\"/w/d\", 0755 <unfinished ...>\n"
		"12 5.300000 unlink(\"/w/u\") = 0 <0.01>\n"
		"11 5.400000 <... mkdir resumed>) = 0 <0.2>\n"
		"10 5.500000 <... read resumed>\"abc\", 4096) = 3 <0.4>\n");
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->m.n_ops, 4);
	char b[512];
	/* in the order the calls started, with the times of their start and their end */
	assert_string_equal(line_of(g, 1, b, sizeof(b)),
			    "0.100000000 0.500000000 c1 read path=\"/w/f\" fh=1 off=0 len=4096 ret=3 raw=posix -> OK");
	assert_string_equal(line_of(g, 2, b, sizeof(b)),
			    "0.200000000 0.400000000 c2 mkdir path=\"/w/d\" mode=0755 raw=posix -> OK");
	assert_string_equal(line_of(g, 3, b, sizeof(b)), "0.300000000 0.310000000 c3 unlink path=\"/w/u\" raw=posix -> OK");
	done(g);
}

static void unfinished_at_eof(void **state)
{
	(void)state;
	got *const g = parse("7 1.0 openat(AT_FDCWD</w>, \"f\", O_RDONLY) = 3</w/f> <0.1>\n"
			     "7 1.5 read(3</w/f>,  <unfinished ...>\n"
			     "7 1.6 write(3</w/f>, \"abc\", 3 <unfinished ...>\n"
			     "8 2.0 close(4</w/g>) = 0 <0.1>\n");
	assert_int_equal(g->rc, 0);
	/* strace prints an unfinished call's arguments known at entry; a second unfinished call of the
	 * same process ends the first without a reply (a process makes one call at a time) */
	HAS(g, "0.500000000 - c1 read path=\"/w/f\" fh=1 off=0 len=0 flags=noreply raw=posix -> UNKNOWN");
	HAS(g, "0.600000000 - c1 write path=\"/w/f\" fh=1 off=0 len=3 flags=noreply raw=posix -> UNKNOWN");
	HAS(g, "1.000000000 1.100000000 c2 close path=\"/w/g\" fh=2 raw=posix -> OK");
	assert_non_null(strstr(g->summary, "unfinished at the end (ops without a reply) 2"));
	done(g);
}

static void resumed_without_unfinished(void **state)
{
	(void)state;
	got *g = parse("7 1.0 <... read resumed>\"abc\", 4096) = 3 <0.1>\n");
	assert_int_equal(g->rc, RP_E_INVAL);
	assert_non_null(strstr(g->eb, "t.strace:1: "));
	done(g);
	const rp_strace_opts len = { .lenient = true };
	g = parse_opts("7 1.0 <... read resumed>\"abc\", 4096) = 3 <0.1>\n"
		       "7 1.1 <... futex resumed>) = 0 <0.1>\n"
		       "7 1.2 unlink(\"/x\") = 0 <0.1>\n",
		       &len);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->skipped, 1);
	assert_int_equal(g->m.n_ops, 1);
	assert_non_null(strstr(g->summary, "resumed without unfinished 1"));
	assert_non_null(strstr(g->summary, "futex 1"));
	done(g);
}

static void signals_exits_pids(void **state)
{
	(void)state;
	got *const g = parse("5 1.0 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=6} ---\n"
			     "5 1.1 unlink(\"/a\") = 0 <0.1>\n"
			     "5 1.2 +++ exited with 0 +++\n"
			     "6 1.3 +++ killed by SIGKILL +++\n"
			     "5 1.4 unlink(\"/b\") = 0 <0.1>\n"
			     "5 1.5 exit_group(0) = ?\n");
	assert_int_equal(g->rc, 0);
	HAS(g, "c1 unlink path=\"/a\"");
	HAS(g, "c3 unlink path=\"/b\""); /* pid 5 again after it exited: another process */
	assert_non_null(strstr(g->summary, "signals 1"));
	assert_non_null(strstr(g->summary, "exits 1"));
	assert_non_null(strstr(g->summary, "killed 1"));
	assert_non_null(strstr(g->summary, "exit_group 1"));
	done(g);
}

static void ff_and_no_pid(void **state)
{
	(void)state;
	const rp_strace_opts o = { .pid = 4242 };
	got *const g = parse_opts("1700000000.5 unlink(\"/a\") = 0 <0.000010>\n"
				  "1700000000.6 rmdir(\"/b\") = -1 ENOTEMPTY (Directory not empty) <0.000010>\n",
				  &o);
	assert_int_equal(g->rc, 0);
	HAS(g, "0.000000000 0.000010000 c1 unlink path=\"/a\"");
	HAS(g, "0.100000000 0.100010000 c1 rmdir path=\"/b\" raw=posix -> ENOTEMPTY (ENOTEMPTY)");
	done(g);
	uint32_t pid = 0;
	assert_true(rp_strace_pid_from_name("/tmp/run.1234", &pid));
	assert_int_equal(pid, 1234);
	assert_false(rp_strace_pid_from_name("/tmp/run.strace", &pid));
	assert_false(rp_strace_pid_from_name("/tmp/run.", &pid));
	assert_false(rp_strace_pid_from_name("/tmp/run.99999999999", &pid));
	assert_false(rp_strace_pid_from_name("a.1/b", &pid));
}

static void escapes(void **state)
{
	(void)state;
	got *const g = parse("1 1.0 unlink(\"/t/a\\nb\\t\\\"q\\\\\\101\\x42\\0c\") = 0 <0.1>\n"
			     "1 1.1 openat(AT_FDCWD</t>, \"x\\76y\", O_RDONLY) = 3</t/x\\76y> <0.1>\n"
			     "1 1.2 fstat(3</t/x\\76y>, {st_mode=S_IFREG|0644, st_size=0, ...}) = 0 <0.1>\n");
	assert_int_equal(g->rc, 0);
	HAS(g, "unlink path=\"/t/a\\x0ab\\x09\\\"q\\\\AB\" raw"); /* cut at the NUL, as the kernel reads it */
	HAS(g, "open path=\"/t/x>y\" fh=1");
	HAS(g, "stat path=\"/t/x>y\" fh=1");
	done(g);
	/* bad escapes and unterminated strings are bad lines */
	got *const b = parse("1 1.0 unlink(\"/t/\\q\") = 0 <0.1>\n");
	assert_int_equal(b->rc, RP_E_INVAL);
	done(b);
	got *const c = parse("1 1.0 unlink(\"/t/abc) = 0 <0.1>\n");
	assert_int_equal(c->rc, RP_E_INVAL);
	done(c);
}

static void flags_needed(void **state)
{
	(void)state;
	got *g = parse("1 unlink(\"/a\") = 0 <0.1>\n");
	assert_int_equal(g->rc, RP_E_INVAL);
	assert_non_null(strstr(g->eb, "strace -f -ttt -T -y"));
	done(g);
	g = parse("1 1.0 unlink(\"/a\") = 0\n");
	assert_int_equal(g->rc, RP_E_INVAL);
	assert_non_null(strstr(g->eb, "strace -f -ttt -T -y"));
	done(g);
	const rp_strace_opts len = { .lenient = true };
	g = parse_opts("unlink(\"/a\") = 0\n", &len); /* even lenient: nothing could be used */
	assert_int_equal(g->rc, RP_E_INVAL);
	assert_non_null(strstr(g->eb, "-ttt"));
	done(g);
}

static void lenient_counts(void **state)
{
	(void)state;
	const rp_strace_opts len = { .lenient = true };
	got *const g = parse_opts("1 1.0 unlink(\"/a\") = 0 <0.1>\n"
				  "garbage here\n"
				  "1 1.1 read(3</x>, \"a\", 1 = 1 <0.1>\n"
				  "1 1.2 unlink(\"/b\") = 0\n"
				  "1 1.3 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000 <0.1>\n"
				  "1 1.4 brk(NULL) = 0x55d000 <0.1>\n"
				  "1 1.5 unlink(\"/c\") = -1 EWEIRD (Weird) <0.1>\n"
				  "1 1.6 unlink(\"/d\") = ? ERESTARTSYS (To be restarted if SA_RESTART is set) <0.1>\n",
				  &len);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->skipped, 3);
	HAS(g, "unlink path=\"/c\" raw=posix -> OTHER");
	assert_null(strstr(g->text, "\"/d\""));
	assert_non_null(strstr(g->summary, "not strace syntax 1"));
	assert_non_null(strstr(g->summary, "bad arguments 1"));
	assert_non_null(strstr(g->summary, "no duration 1"));
	assert_non_null(strstr(g->summary, "unknown errno names 1"));
	assert_non_null(strstr(g->summary, "restarted calls 1"));
	assert_non_null(strstr(g->summary, "brk 1"));
	done(g);
	got *const s = parse("1 1.0 unlink(\"/a\") = 0 <0.1>\n1 1.1 read(3</x>, \"a\", 1 = 1 <0.1>\n");
	assert_int_equal(s->rc, RP_E_INVAL);
	assert_non_null(strstr(s->eb, "t.strace:2: "));
	done(s);
}

static void paths_and_dirs(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 openat(AT_FDCWD</w>, \"d\", O_RDONLY|O_DIRECTORY) = 3</w/d> <0.1>\n"
		"1 1.1 unlinkat(3</w/d>, \"f\", 0) = 0 <0.1>\n"
		"1 1.2 unlinkat(3</w/d>, \"sub\", AT_REMOVEDIR) = 0 <0.1>\n"
		"1 1.3 mkdirat(3</w/d>, \"n\", 0700) = 0 <0.1>\n"
		"1 1.4 unlink(\"rel\") = 0 <0.1>\n" /* the cwd from AT_FDCWD</w> */
		"1 1.5 chdir(\"/v\") = 0 <0.1>\n"
		"1 1.6 rmdir(\"r\") = 0 <0.1>\n"
		"1 1.7 fchdir(3</w/d>) = 0 <0.1>\n"
		"1 1.8 mkdir(\"m\", 0755) = 0 <0.1>\n"
		"1 1.9 newfstatat(3</w/d>, \"\", {st_mode=S_IFDIR|0755, ...}, AT_EMPTY_PATH) = 0 <0.1>\n"
		"1 2.0 newfstatat(AT_FDCWD</w/d>, \"s\", {st_mode=S_IFREG|0644, ...}, 0) = 0 <0.1>\n"
		"2 2.1 unlink(\"rel\") = 0 <0.1>\n"); /* another process, cwd never seen: kept relative */
	assert_int_equal(g->rc, 0);
	HAS(g, "c1 unlink path=\"/w/d/f\"");
	HAS(g, "c1 rmdir path=\"/w/d/sub\"");
	HAS(g, "c1 mkdir path=\"/w/d/n\" mode=0700");
	HAS(g, "c1 unlink path=\"/w/rel\"");
	HAS(g, "c1 rmdir path=\"/v/r\"");
	HAS(g, "c1 mkdir path=\"/w/d/m\" mode=0755");
	HAS(g, "c1 stat path=\"/w/d\" fh=1 flags=dir");
	HAS(g, "c1 stat path=\"/w/d/s\" raw");
	HAS(g, "c2 unlink path=\"rel\"");
	done(g);
}

static void names_and_attrs(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 rename(\"/a\", \"/b\") = 0 <0.1>\n"
		"1 1.1 renameat2(AT_FDCWD</w>, \"c\", AT_FDCWD</w>, \"d\", RENAME_NOREPLACE) = 0 <0.1>\n"
		"1 1.2 renameat2(AT_FDCWD</w>, \"c\", AT_FDCWD</w>, \"d\", RENAME_EXCHANGE) = 0 <0.1>\n"
		"1 1.3 link(\"/a\", \"/l\") = 0 <0.1>\n"
		"1 1.4 symlinkat(\"../t\", AT_FDCWD</w>, \"s\") = 0 <0.1>\n"
		"1 1.5 readlink(\"/w/s\", \"../t\", 4095) = 4 <0.1>\n"
		"1 1.6 chmod(\"/a\", 0640) = 0 <0.1>\n"
		"1 1.7 fchownat(AT_FDCWD</w>, \"a\", 1000, -1, AT_SYMLINK_NOFOLLOW) = 0 <0.1>\n"
		"1 1.8 utimensat(AT_FDCWD</w>, \"a\", [{tv_sec=1700000000, tv_nsec=5} /* 2023-11-14T22:13:20.000000005+0000 */, UTIME_OMIT], 0) = 0 <0.1>\n"
		"1 1.9 utimensat(AT_FDCWD</w>, \"a\", NULL, 0) = 0 <0.1>\n"
		"1 2.0 truncate(\"/a\", 100) = 0 <0.1>\n"
		"1 2.1 mknodat(AT_FDCWD</w>, \"p\", S_IFIFO|0644, 0) = 0 <0.1>\n"
		"1 2.2 statfs(\"/w\", {f_type=EXT2_SUPER_MAGIC, ...}) = 0 <0.1>\n"
		"1 2.3 access(\"/a\", R_OK|W_OK) = 0 <0.1>\n"
		"1 2.4 faccessat2(AT_FDCWD</w>, \"a\", X_OK, AT_EACCESS) = -1 EACCES (Permission denied) <0.1>\n"
		"1 2.5 setxattr(\"/a\", \"user.k\", \"v\", 1, 0) = 0 <0.1>\n"
		"1 2.6 getxattr(\"/a\", \"user.k\", \"v\", 64) = 1 <0.1>\n"
		"1 2.7 listxattr(\"/a\", \"user.k\\0\", 256) = 7 <0.1>\n"
		"1 2.8 removexattr(\"/a\", \"user.k\") = 0 <0.1>\n");
	assert_int_equal(g->rc, 0);
	HAS(g, "rename path=\"/a\" path2=\"/b\" raw");
	HAS(g, "rename path=\"/w/c\" path2=\"/w/d\" of=noreplace");
	HAS(g, "rename path=\"/w/c\" path2=\"/w/d\" of=exchange");
	HAS(g, "link path=\"/a\" path2=\"/l\"");
	HAS(g, "symlink path=\"/w/s\" path2=\"../t\"");
	HAS(g, "readlink path=\"/w/s\" path2=\"../t\" ret=4");
	HAS(g, "setattr path=\"/a\" set=mode mode=0640");
	HAS(g, "setattr path=\"/w/a\" set=uid uid=1000");
	HAS(g, "setattr path=\"/w/a\" set=atime atime=1700000000.000000005");
	HAS(g, "setattr path=\"/w/a\" set=atime_now,mtime_now");
	HAS(g, "setattr path=\"/a\" len=100 set=size");
	HAS(g, "mknod path=\"/w/p\" mode=010644");
	HAS(g, "statfs path=\"/w\"");
	HAS(g, "access path=\"/a\" ret=2147483651 want=read,write");
	HAS(g, "access path=\"/w/a\" want=exec raw=posix -> EACCES");
	HAS(g, "setxattr path=\"/a\" path2=\"user.k\" len=1");
	HAS(g, "getxattr path=\"/a\" path2=\"user.k\" len=64 ret=1");
	HAS(g, "listxattr path=\"/a\" len=256 ret=7");
	HAS(g, "removexattr path=\"/a\" path2=\"user.k\"");
	done(g);
}

static void fds_locks_dup(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 openat(AT_FDCWD</w>, \"f\", O_RDWR|O_CREAT, 0644) = 3</w/f> <0.1>\n"
		"1 1.1 pwrite64(3</w/f>, \"abcd\", 4, 100) = 4 <0.1>\n"
		"1 1.2 writev(3</w/f>, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cde\", iov_len=3}], 2) = 5 <0.1>\n"
		"1 1.3 lseek(3</w/f>, 0, SEEK_SET) = 0 <0.1>\n"
		"1 1.4 preadv(3</w/f>, [{iov_base=\"\", iov_len=10}], 1, 7) = 0 <0.1>\n"
		"1 1.5 fcntl(3</w/f>, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=10, l_len=20}) = 0 <0.1>\n"
		"1 1.6 fcntl(3</w/f>, F_OFD_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=0}) = 0 <0.1>\n"
		"1 1.7 fcntl(3</w/f>, F_SETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=10, l_len=20}) = 0 <0.1>\n"
		"1 1.8 flock(3</w/f>, LOCK_EX|LOCK_NB) = 0 <0.1>\n"
		"1 1.9 flock(3</w/f>, LOCK_UN) = 0 <0.1>\n"
		"1 2.0 dup2(3</w/f>, 10) = 10</w/f> <0.1>\n"
		"1 2.1 fcntl(3</w/f>, F_DUPFD_CLOEXEC, 20) = 20</w/f> <0.1>\n"
		"1 2.2 fsync(10</w/f>) = 0 <0.1>\n"
		"1 2.3 fdatasync(20</w/f>) = 0 <0.1>\n"
		"1 2.4 ftruncate(3</w/f>, 0) = 0 <0.1>\n"
		"1 2.5 fallocate(3</w/f>, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE, 0, 4096) = 0 <0.1>\n"
		"1 2.6 openat(AT_FDCWD</w>, \"g\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4</w/g> <0.1>\n"
		"1 2.7 copy_file_range(3</w/f>, NULL, 4</w/g>, NULL, 65536, 0) = 9 <0.1>\n"
		"1 2.8 sendfile(4</w/g>, 3</w/f>, [0] => [9], 9) = 9 <0.1>\n"
		"1 2.9 getdents64(5</w>, 0x5555 /* 3 entries */, 32768) = 80 <0.1>\n"
		"1 3.0 mmap(NULL, 4096, PROT_READ, MAP_SHARED, 3</w/f>, 0) = 0x7f0000000000 <0.1>\n"
		"1 3.1 close(3</w/f>) = 0 <0.1>\n"
		"1 3.2 openat(AT_FDCWD</w>, \"h\", O_RDONLY) = 3</w/h> <0.1>\n"
		"1 3.3 read(0</dev/pts/0>, \"\", 1) = 0 <0.1>\n"
		"1 3.4 read(7<pipe:[1234]>, \"x\", 1) = 1 <0.1>\n"
		"1 3.5 dup2(7<pipe:[1234]>, 10) = 10 <0.1>\n" /* no -y on the result: fd 10 is the pipe now */
		"1 3.6 write(10, \"x\", 1) = 1 <0.1>\n");
	assert_int_equal(g->rc, 0);
	HAS(g, "write path=\"/w/f\" fh=1 off=100 len=4 ret=4");
	HAS(g, "write path=\"/w/f\" fh=1 off=0 len=5 ret=5");
	HAS(g, "read path=\"/w/f\" fh=1 off=7 len=10 raw");
	HAS(g, "lock path=\"/w/f\" fh=1 off=10 len=20 flags=excl,wait");
	HAS(g, "lock path=\"/w/f\" fh=1 off=0 len=0 flags=test");
	HAS(g, "unlock path=\"/w/f\" fh=1 off=10 len=20 raw");
	HAS(g, "lock path=\"/w/f\" fh=1 off=0 len=0 flags=excl raw");
	HAS(g, "unlock path=\"/w/f\" fh=1 off=0 len=0 raw");
	HAS(g, "dup path=\"/w/f\" fh=1 fh2=2");
	HAS(g, "dup path=\"/w/f\" fh=1 fh2=3");
	HAS(g, "flush path=\"/w/f\" fh=2 raw");
	HAS(g, "flush path=\"/w/f\" fh=3 flags=datasync");
	HAS(g, "setattr path=\"/w/f\" fh=1 set=size");
	HAS(g, "fallocate path=\"/w/f\" fh=1 off=0 len=4096 of=keep_size,punch_hole");
	HAS(g, "copy path=\"/w/f\" path2=\"/w/g\" fh=1 off=0 len=65536 ret=9 fh2=4 off2=0");
	HAS(g, "copy path=\"/w/f\" path2=\"/w/g\" fh=1 off=0 len=9 ret=9 fh2=4 off2=9");
	HAS(g, "readdir path=\"/w\" fh=5 len=32768 ret=3");
	HAS(g, "mmap path=\"/w/f\" fh=1 off=0 len=4096");
	HAS(g, "close path=\"/w/f\" fh=1");
	HAS(g, "open path=\"/w/h\" fh=6"); /* fd 3 again: a new handle */
	HAS(g, "read path=\"/dev/pts/0\" fh=7");
	assert_null(strstr(g->text, "pipe"));
	assert_null(strstr(g->text, "fh=2 off"));
	assert_non_null(strstr(g->summary, "calls on pipes/sockets 3"));
	done(g);
}

static void sniffing(void **state)
{
	(void)state;
	const char *const yes[] = {
		"123 1700000000.1 openat(AT_FDCWD, \"x\", O_RDONLY) = 3 <0.1>\n",
		"1700000000.1 openat(AT_FDCWD, \"x\", O_RDONLY) = 3 <0.1>\n",
		"[pid 12] 1700000000.1 read(3, \"\", 1) = 0 <0.1>\n",
		"\n123 1700000000.1 --- SIGCHLD {} ---\n",
		"openat(AT_FDCWD, \"x\", O_RDONLY) = 3\n", /* recognised, to say which flags it needs */
		"123 1700000000.1 read(3, \"aaaaaaa", /* cut by the head */
	};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!rp_strace_sniff(yes[i], strlen(yes[i])))
			fail_msg("not sniffed: %s", yes[i]);
	const char *const no[] = {
		"0.000 NTCreateX \"\\\\a\" 0x0 0x1 1 NT_STATUS_OK\n",
		"OPEN \\x 0x0\n",
		"0.000000000 0.000001000 c1 open path=\"x\" fh=1 -> OK\n",
		"hello(world\n",
		"",
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (rp_strace_sniff(no[i], strlen(no[i])))
			fail_msg("sniffed: %s", no[i]);
	const char log[] = "1 1.0 unlink(\"/a\") = 0 <0.1>\n";
	const rp_conv_producer *const p = rp_conv_producer_sniff(log, strlen(log), "x.strace", NULL, 0);
	assert_non_null(p);
	assert_string_equal(p->name, "strace");
}

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/strace/%s", SRCDIR, name);
	FILE *const f = fopen(path, "rb");
	if (!f)
		fail_msg("%s: cannot open", path);
	fseek(f, 0, SEEK_END);
	const long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *const buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* A cut log parses cleanly or fails with a message: never a crash, never an op past what was there. */
static void one_prefix(const char *buf, size_t n, bool lenient)
{
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	const rp_strace_opts o = { .lenient = lenient };
	const int rc = rp_strace_parse_mem(buf, n, "p.strace", &m.base, &o, NULL, NULL, 0, eb);
	if (rc != 0 && !eb[0])
		fail_msg("prefix %zu: error %d without a message", n, rc);
	rp_memsink_fini(&m);
}

static void every_prefix(void **state)
{
	(void)state;
	size_t len;
	char *const small = slurp("ff.28312", &len);
	for (size_t n = 0; n <= len; n++)
		one_prefix(small, n, n % 2 == 0);
	free(small);
	const char *const big[] = { "shell.strace", "tar-cp.strace", "threads.strace" };
	for (size_t b = 0; b < sizeof(big) / sizeof(big[0]); b++) {
		char *const buf = slurp(big[b], &len);
		/* every line boundary and the bytes around it, and a stride through the lines */
		for (size_t n = 0; n <= len; n++) {
			const bool near_nl = (n > 0 && buf[n - 1] == '\n') || (n < len && buf[n] == '\n') ||
					     (n + 1 < len && buf[n + 1] == '\n');
			if (near_nl || n % 53 == 0)
				one_prefix(buf, n, (n / 53) % 2 == 0);
		}
		/* the whole log, strictly: every line of a real run is read without error */
		rp_memsink m;
		assert_int_equal(rp_memsink_init(&m), 0);
		char eb[RP_ERRBUF_SIZE] = "";
		if (rp_strace_parse_mem(buf, len, big[b], &m.base, NULL, NULL, NULL, 0, eb) != 0)
			fail_msg("%s: %s", big[b], eb);
		assert_true(m.n_ops > 50);
		rp_memsink_fini(&m);
		free(buf);
	}
}

/* Bytes flipped through a real log: errors or ops, never a crash (the fuzz target does this at scale). */
static void corrupt(void **state)
{
	(void)state;
	size_t len;
	char *const buf = slurp("shell.strace", &len);
	static const char junk[] = { '\0', '"', '\\', '<', '>', '(', ')', '{', '[', ',', '\n', '9', '-', 'x' };
	for (size_t i = 0; i < len; i += 7) {
		const char keep = buf[i];
		buf[i] = junk[i % sizeof(junk)];
		one_prefix(buf, len, true);
		buf[i] = keep;
	}
	free(buf);
}

static void limits(void **state)
{
	(void)state;
	/* a line over 1 MiB */
	const size_t big = RP_STRACE_LINE_MAX + 100;
	char *const l = malloc(big + 64);
	assert_non_null(l);
	const int h = snprintf(l, 64, "1 1.0 unlink(\"");
	memset(l + h, 'a', big);
	strcpy(l + h + big, "\") = 0 <0.1>\n");
	got *g = parse(l);
	assert_int_equal(g->rc, RP_E_INVAL);
	assert_non_null(strstr(g->eb, "1 MiB"));
	done(g);
	free(l);
	/* more processes than clients */
	const size_t per = 48, n = 8200;
	char *const log = malloc(per * n + 1);
	assert_non_null(log);
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(log + at, per, "%zu 1.0 unlink(\"/a\") = 0 <0.1>\n", i + 1);
	const rp_strace_opts len = { .lenient = true };
	g = parse_opts(log, &len);
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->m.n_ops, 8192);
	assert_int_equal(g->skipped, 8);
	assert_non_null(strstr(g->summary, "beyond 8192 processes 8"));
	done(g);
	free(log);
	/* an fd far beyond the table */
	g = parse("1 1.0 read(99999999</x>, \"\", 1) = 0 <0.1>\n1 1.1 dup2(3</x>, 1048576) = 1048576</x> <0.1>\n");
	assert_int_equal(g->rc, 0);
	assert_non_null(strstr(g->summary, "fds beyond the table limit"));
	done(g);
}


static void yy_and_prefixes(void **state)
{
	(void)state;
	got *const g = parse("[pid  9] 1700000000.123456789 openat(AT_FDCWD</w>, \"/dev/null\", O_WRONLY) = 3</dev/null<char 1:3>> <0.000000100>\n"
			     "[pid  9] 1700000000.2 write(3</dev/null<char 1:3>>, \"x\", 1) = 1 <0.1>\n"
			     "9 1700000000.3 read(4<TCP:[127.0.0.1:1->127.0.0.1:2]>, \"\", 1) = 0 <0.1>\n"
			     "9 1700000000.4 <... read resumed> \"\", 1) = 0 <0.1>\n");
	assert_int_equal(g->rc, RP_E_INVAL); /* the last: resumed without unfinished (read is a file syscall) */
	assert_non_null(strstr(g->eb, "t.strace:4: "));
	HAS(g, "0.000000000 0.000000100 c1 open path=\"/dev/null\" fh=1");
	HAS(g, "c1 write path=\"/dev/null\" fh=1 off=0 len=1 ret=1");
	assert_int_equal(g->m.meta.capture_start_ns, 1700000000123456789ll);
	done(g);
}

/* The registry's producer over a file: a line over 1 MiB is cut, counted (lenient) or the error; a -ff name gives the pid. */
static void producer_file(void **state)
{
	(void)state;
	char path[] = "/tmp/reprise-strace-test-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *const f = fdopen(fd, "wb");
	assert_non_null(f);
	fputs("1.0 unlink(\"/a\") = 0 <0.1>\n1.1 unlink(\"", f);
	for (size_t i = 0; i < RP_STRACE_LINE_MAX + 4096; i++)
		fputc('b', f);
	fputs("\") = 0 <0.1>\n1.2 unlink(\"/c\") = 0 <0.1>", f); /* no newline at the end */
	fclose(f);
	const rp_conv_producer *const p = rp_conv_producer_find("strace");
	assert_non_null(p);
	for (int lenient = 0; lenient < 2; lenient++) {
		rp_memsink m;
		assert_int_equal(rp_memsink_init(&m), 0);
		rp_conv_in_report rep;
		memset(&rep, 0, sizeof(rep));
		const rp_conv_in_opts o = { .lenient = lenient != 0 };
		char eb[RP_ERRBUF_SIZE] = "";
		const int rc = p->run(path, &m.base, &o, &rep, eb);
		if (lenient) {
			assert_int_equal(rc, 0);
			assert_int_equal(m.n_ops, 2);
			assert_int_equal(rep.skipped, 1);
			assert_non_null(strstr(rep.counts, "too long 1"));
		} else {
			assert_int_equal(rc, RP_E_INVAL);
			assert_non_null(strstr(eb, ":2: line longer than 1 MiB"));
		}
		rp_memsink_fini(&m);
	}
	unlink(path);
	char ff[] = "/tmp/reprise-strace-ff-XXXXXX";
	assert_non_null(mkdtemp(ff));
	char name[64];
	snprintf(name, sizeof(name), "%s/run.4242", ff);
	FILE *const g = fopen(name, "wb");
	assert_non_null(g);
	fputs("1.0 clone(child_stack=NULL, flags=SIGCHLD) = 4243 <0.1>\n", g);
	fclose(g);
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_conv_in_report rep;
	memset(&rep, 0, sizeof(rep));
	const rp_conv_in_opts o = { .lenient = false };
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(p->run(name, &m.base, &o, &rep, eb), 0);
	assert_int_equal(m.n_ops, 1);
	assert_int_equal(m.ops[0].client, 1);
	assert_int_equal(m.ops[0].result, 2); /* 4243 is the second process: the file's own pid 4242 was the first */
	assert_non_null(strstr(rep.counts, "2 processes"));
	rp_memsink_fini(&m);
	unlink(name);
	rmdir(ff);
}

static void blocking_pipe_read(void **state)
{
	(void)state;
	/* a read of a pipe left unfinished holds no op back, and its resumption is no bad line */
	got *const g = parse("1 1.0 read(0<pipe:[5]>,  <unfinished ...>\n"
			     "2 1.1 unlink(\"/a\") = 0 <0.1>\n"
			     "1 1.5 <... read resumed>\"x\", 1) = 1 <0.5>\n"
			     "1 1.6 read(0<pipe:[5]>, \"\", 1) = 0 <0.1>\n");
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->m.n_ops, 1);
	HAS(g, "c2 unlink path=\"/a\"");
	assert_non_null(strstr(g->summary, "calls on pipes/sockets 2"));
	done(g);
}

/*
 * An fd keeps the path its open asked for while -y names the file as the
 * open's result did (symlinks resolved: /lib -> /usr/lib), and follows the
 * -y name once it changes (a rename by another process).
 */
static void fd_path_follows_renames(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 openat(AT_FDCWD, \"/lib/l.so\", O_RDONLY|O_CLOEXEC) = 3</usr/lib/l.so> <0.1>\n"
		"1 1.1 read(3</usr/lib/l.so>, \"x\", 1) = 1 <0.1>\n"
		"2 1.2 rename(\"/usr/lib/l.so\", \"/usr/lib/m.so\") = 0 <0.1>\n"
		"1 1.3 read(3</usr/lib/m.so>, \"\", 1) = 0 <0.1>\n");
	assert_int_equal(g->rc, 0);
	char b[512];
	assert_string_equal(line_of(g, 1, b, sizeof(b)),
			    "0.100000000 0.200000000 c1 read path=\"/lib/l.so\" fh=1 off=0 len=1 ret=1 raw=posix -> OK");
	HAS(g, "c1 read path=\"/usr/lib/m.so\" fh=1 off=1 len=1 raw=posix -> OK");
	done(g);
}

/* strace 6 marks the fd of a file removed while open "(deleted)" after its name: the call is the file's. */
static void fd_of_deleted_file(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 openat(AT_FDCWD</w>, \"d\", O_RDONLY|O_DIRECTORY) = 3</w/d> <0.1>\n"
		"1 1.1 unlinkat(AT_FDCWD</w>, \"d\", AT_REMOVEDIR) = 0 <0.1>\n"
		"1 1.2 close(3</w/d>(deleted)) = 0 <0.1>\n"
		"1 1.3 close(4</w/x>deleted)) = 0 <0.1>\n");
	assert_int_equal(g->rc, RP_E_INVAL); /* the last line is no fd strace writes */
	HAS(g, "c1 close path=\"/w/d\" fh=1 raw=posix -> OK");
	done(g);
}

/*
 * What the syscall model (formats/sysmodel) decides since the importer feeds
 * it: an fd -y showed as a pipe stays one when a later call shows no name; a
 * dup2 onto itself changes nothing; a lock range that is invalid only once
 * resolved against the fd's position is a bad call counted, not a bad line;
 * a call on a negative fd names no fd at all.
 */
static void model_decides(void **state)
{
	(void)state;
	got *const g = parse("1 1.0 read(7<pipe:[5]>, \"x\", 1) = 1 <0.1>\n"
			     "1 1.1 write(7, \"y\", 1) = 1 <0.1>\n"
			     "1 1.2 openat(AT_FDCWD</w>, \"f\", O_RDWR) = 3</w/f> <0.1>\n"
			     "1 1.3 dup2(3</w/f>, 3) = 3</w/f> <0.1>\n"
			     "1 1.4 fcntl(3</w/f>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_CUR, l_start=-5, l_len=1}) = 0 <0.1>\n"
			     "1 1.5 read(3</w/f>, \"\", 1) = 0 <0.1>\n"
			     "1 1.6 close(-1) = -1 EBADF (Bad file descriptor) <0.1>\n");
	assert_int_equal(g->rc, 0);
	assert_int_equal(g->m.n_ops, 2);
	assert_non_null(strstr(g->summary, "fds without a path 1")); /* close(-1): no fd, no op, no bad call */
	HAS(g, "c1 open path=\"/w/f\" fh=1");
	HAS(g, "c1 read path=\"/w/f\" fh=1 off=0 len=1 raw");
	assert_non_null(strstr(g->summary, "calls on pipes/sockets 2"));
	assert_non_null(strstr(g->summary, "calls the model found bad (no op) 1"));
	done(g);
}

/* -ff files as memory streams merged: the text of the ops, as parse_opts makes it. */
static got *merge_files(const char *const *texts, const char *const *names, size_t n)
{
	got *const g = calloc(1, sizeof(*g));
	assert_non_null(g);
	assert_int_equal(rp_memsink_init(&g->m), 0);
	FILE *fs[8];
	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++) {
		fs[i] = fmemopen((void *)texts[i], strlen(texts[i]), "r");
		assert_non_null(fs[i]);
	}
	g->rc = rp_strace_ff_merge(fs, names, n, "run", &g->m.base, NULL, &g->skipped, g->summary, sizeof(g->summary),
				   g->eb);
	for (size_t i = 0; i < n; i++)
		fclose(fs[i]);
	return got_format(g);
}

/*
 * strace -ff: each file's lines are its pid's, merged in timestamp order
 * across files (interleaved times), the parent's clone result links the
 * child's file, which inherits its fds; a line without a time keeps its
 * file's place.
 */
static void ff_merge(void **state)
{
	(void)state;
	const char *const parent = "1.0 openat(AT_FDCWD</w>, \"a\", O_WRONLY|O_CREAT, 0644) = 3</w/a> <0.1>\n"
				   "1.2 clone(child_stack=NULL, flags=SIGCHLD) = 20 <0.1>\n"
				   "1.5 write(3</w/a>, \"xx\", 2) = 2 <0.1>\n"
				   "1.9 unlink(\"/w/p\") = 0 <0.1>\n";
	const char *const child = "1.3 write(3</w/a>, \"y\", 1) = 1 <0.1>\n"
				  "1.7 close(3</w/a>) = 0 <0.1>\n"
				  "1.8 unlink(\"/w/c\") = 0 <0.1>\n";
	const char *const texts[] = { child, parent };
	const char *const names[] = { "d/run.20", "d/run.10" };
	got *const g = merge_files(texts, names, 2);
	assert_int_equal(g->rc, 0);
	char b[256];
	assert_string_equal(line_of(g, 0, b, sizeof(b)),
			    "0.000000000 0.100000000 c1 open path=\"/w/a\" fh=1 want=write disp=open_if mode=0644 raw=posix -> OK");
	HAS(g, "c1 fork ret=2 raw");
	HAS(g, "0.300000000 0.400000000 c2 write path=\"/w/a\" fh=1 off=0 len=1 ret=1"); /* the parent's fd, inherited */
	HAS(g, "0.500000000 0.600000000 c1 write path=\"/w/a\" fh=1 off=0 len=2 ret=2");
	/* in time order across the files: the child's unlink at 1.8 before the parent's at 1.9 */
	const char *const c = strstr(g->text, "/w/c"), *const p = strstr(g->text, "/w/p");
	assert_true(c && p && c < p);
	assert_non_null(strstr(g->summary, "2 processes"));
	assert_non_null(strstr(g->summary, "7 lines"));
	done(g);

	/* a bad line names its own file and line */
	const char *const bad[] = { "1.0 close(3) = 0 <0.1>\n", "1.1 close(3) = 0 <0.1>\n1.2 nonsense\n" };
	const char *const bnames[] = { "run.1", "run.2" };
	got *const g2 = merge_files(bad, bnames, 2);
	assert_int_not_equal(g2->rc, 0);
	assert_non_null(strstr(g2->eb, "run.2:2:"));
	done(g2);

	/* a name without a numeric pid, two files of one pid */
	const char *const two[] = { "", "" };
	const char *const nopid[] = { "run.1", "run.first" };
	got *const g3 = merge_files(two, nopid, 2);
	assert_int_equal(g3->rc, RP_E_INVAL);
	assert_non_null(strstr(g3->eb, "run.first: not an strace -ff file"));
	done(g3);
	const char *const dup[] = { "a/run.7", "b/run.7" };
	got *const g4 = merge_files(two, dup, 2);
	assert_int_equal(g4->rc, RP_E_INVAL);
	assert_non_null(strstr(g4->eb, "two files of pid 7"));
	done(g4);
}

/* The files of a prefix are found in its directory, by pid; a missing file is named; none found is no error. */
static void ff_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/reprise-ff-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char p[256];
	const char *const files[] = { "run.30", "run.4", "run.x", "run.4.5", "other.9", "run" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) - 1; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		FILE *const f = fopen(p, "w");
		assert_non_null(f);
		fprintf(f, "1.%zu close(9) = -1 EBADF (Bad file descriptor) <0.1>\n", i);
		fclose(f);
	}
	char eb[RP_ERRBUF_SIZE], prefix[256];
	char **paths = NULL;
	size_t n = 0;
	snprintf(prefix, sizeof(prefix), "%s/run", dir);
	assert_int_equal(rp_strace_ff_find(prefix, &paths, &n, eb), 0);
	assert_int_equal(n, 2);
	snprintf(p, sizeof(p), "%s/run.4", dir);
	assert_string_equal(paths[0], p);
	snprintf(p, sizeof(p), "%s/run.30", dir);
	assert_string_equal(paths[1], p);
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	assert_int_equal(rp_strace_ff_run((const char *const *)paths, n, prefix, &m.base, NULL, NULL, NULL, 0, eb), 0);
	assert_int_equal(m.n_ops, 2);
	rp_memsink_fini(&m);
	rp_strace_ff_free(paths, n);
	/* a missing file */
	snprintf(p, sizeof(p), "%s/run.77", dir);
	const char *const missing[] = { p };
	assert_int_equal(rp_memsink_init(&m), 0);
	assert_int_equal(rp_strace_ff_run(missing, 1, prefix, &m.base, NULL, NULL, NULL, 0, eb), RP_E_IO);
	assert_non_null(strstr(eb, "run.77: No such file"));
	rp_memsink_fini(&m);
	snprintf(prefix, sizeof(prefix), "%s/none", dir);
	assert_int_equal(rp_strace_ff_find(prefix, &paths, &n, eb), 0);
	assert_int_equal(n, 0);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The syscall table is searched by halves: sorted by length, then bytes, every name found, others not. */
static void syscall_table(void **state)
{
	(void)state;
	size_t n = 0;
	const char *prev = NULL;
	for (const char *name; (name = rp__st_sys_name(n)) != NULL; n++) {
		const size_t len = strlen(name);
		if (prev)
			assert_true(strlen(prev) < len || (strlen(prev) == len && memcmp(prev, name, len) < 0));
		assert_non_null(rp__st_sys_find((rp__st_str){ name, (uint32_t)len }));
		prev = name;
	}
	assert_int_equal(n, 92);
	static const char *const others[] = { "", "ope", "openat3", "mprotect", "copy_file_rangex", "READ" };
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		assert_null(rp__st_sys_find((rp__st_str){ others[i], (uint32_t)strlen(others[i]) }));
	/* a slice, not a C string: "readv" cut to "read" */
	const rp__st_sys *const rd = rp__st_sys_find((rp__st_str){ "readv", 4 });
	assert_non_null(rd);
	assert_true(rp__st_sys_io(rd));
	assert_true(rp__st_sys_io(rp__st_sys_find((rp__st_str){ "pwritev2", 8 })));
	assert_false(rp__st_sys_io(rp__st_sys_find((rp__st_str){ "close", 5 })));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_read_close),
		cmocka_unit_test(open_flags),
		cmocka_unit_test(unfinished_resumed),
		cmocka_unit_test(unfinished_at_eof),
		cmocka_unit_test(resumed_without_unfinished),
		cmocka_unit_test(signals_exits_pids),
		cmocka_unit_test(ff_and_no_pid),
		cmocka_unit_test(escapes),
		cmocka_unit_test(flags_needed),
		cmocka_unit_test(lenient_counts),
		cmocka_unit_test(paths_and_dirs),
		cmocka_unit_test(names_and_attrs),
		cmocka_unit_test(fds_locks_dup),
		cmocka_unit_test(sniffing),
		cmocka_unit_test(every_prefix),
		cmocka_unit_test(corrupt),
		cmocka_unit_test(limits),
		cmocka_unit_test(yy_and_prefixes),
		cmocka_unit_test(producer_file),
		cmocka_unit_test(blocking_pipe_read),
		cmocka_unit_test(fd_path_follows_renames),
		cmocka_unit_test(fd_of_deleted_file),
		cmocka_unit_test(model_decides),
		cmocka_unit_test(ff_merge),
		cmocka_unit_test(ff_files),
		cmocka_unit_test(syscall_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
