/* converters/strace*.c: processes: fork, vfork, clone and threads, exec, wait, a child exiting before its parent's lines. */
#include "strace_harness.h"

static void fork_exec(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 openat(AT_FDCWD</w>, \"a\", O_RDONLY|O_CLOEXEC) = 3</w/a> <0.1>\n"
		"1 1.1 openat(AT_FDCWD</w>, \"b\", O_RDONLY) = 4</w/b> <0.1>\n"
		"1 1.2 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 2 <0.1>\n"
		"2 1.3 read(4, \"\", 10) = 0 <0.1>\n"
		"2 1.4 execve(\"/bin/true\", [\"true\"], 0x7ffd /* 3 vars */) = 0 <0.1>\n"
		"2 1.5 close(3) = -1 EBADF (Bad file descriptor) <0.1>\n"
		"2 1.6 close(4) = 0 <0.1>\n"
		"1 1.7 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x7f, stack_size=0x7fff00}, 88) = 3 <0.1>\n"
		"3 1.8 openat(AT_FDCWD</w>, \"c\", O_RDONLY) = 5</w/c> <0.1>\n"
		"1 1.9 read(5, \"\", 10) = 0 <0.1>\n"
		"1 2.0 vfork( <unfinished ...>\n"
		"4 2.1 unlink(\"/x\") = 0 <0.1>\n"
		"1 2.2 <... vfork resumed>) = 4 <0.2>\n");
	assert_int_equal(g->rc, 0);
	HAS(g, "c1 fork ret=2 raw");
	HAS(g, "c2 read path=\"/w/b\" fh=2"); /* the child's fd 4 is the parent's */
	HAS(g, "c2 close fh=3 raw=posix -> EBADF"); /* fd 3 had O_CLOEXEC: gone at execve, unknown after */
	HAS(g, "c2 close path=\"/w/b\" fh=2");
	HAS(g, "c1 fork ret=3 of=share raw"); /* CLONE_FILES: a thread, one table */
	HAS(g, "c1 read path=\"/w/c\" fh=4"); /* a thread shares the table */
	HAS(g, "1.000000000 1.200000000 c1 fork ret=4");
	assert_null(strstr(g->text, "ret=2 of=share")); /* a process fork copies */
	assert_non_null(strstr(g->summary, "fds without a path 1"));
	done(g);
}

/*
 * A child usually exits before its parent's wait returns ("+++ exited" comes first), and one that
 * ran and exited before its fork's line resumed comes first altogether: both must name that child's
 * client, not a new one (a wait on a client without ops let a replayed parent run on at once).  A pid
 * reused after its process exited is still a new client.
 */
static void fork_wait_after_exit(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 vfork( <unfinished ...>\n"
		"2 1.1 unlink(\"/a\") = 0 <0.1>\n"
		"1 1.2 <... vfork resumed>) = 2 <0.2>\n"
		"1 1.3 wait4(-1,  <unfinished ...>\n"
		"2 1.4 unlink(\"/b\") = 0 <0.1>\n"
		"2 1.5 +++ exited with 0 +++\n"
		"1 1.6 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 2 <0.3>\n"
		"1 2.0 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>\n"
		"3 2.1 unlink(\"/c\") = 0 <0.1>\n"
		"3 2.2 +++ exited with 0 +++\n"
		"1 2.3 <... clone resumed>) = 3 <0.3>\n"
		"1 2.4 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 3 <0.1>\n"
		"1 3.0 clone(child_stack=NULL, flags=SIGCHLD) = 2 <0.1>\n"
		"2 3.2 unlink(\"/d\") = 0 <0.1>\n"
		"1 3.4 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 2 <0.1>\n"
		"1 3.6 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 77 <0.1>\n");
	assert_int_equal(g->rc, 0);
	HAS(g, "c1 fork ret=2 raw");
	HAS(g, "c1 wait ret=2 raw"); /* the exited child, not a new client */
	HAS(g, "c2 unlink path=\"/b\"");
	HAS(g, "c1 fork ret=3 raw"); /* its lines came before the fork resumed, and it had exited */
	HAS(g, "c1 wait ret=3 raw");
	HAS(g, "c3 unlink path=\"/c\"");
	HAS(g, "c1 fork ret=4 raw"); /* pid 2 again, long after its process exited: a new client */
	HAS(g, "c4 unlink path=\"/d\"");
	HAS(g, "c1 wait ret=4 raw");
	assert_null(strstr(g->text, "ret=5")); /* pid 77 was never seen: no wait op, no client */
	assert_null(strstr(g->text, "c5 "));
	done(g);
}

/*
 * A thread whose lines come before its clone resumed (and that exited by
 * then) ran on its creator's fd table all along: what it opened is the
 * creator's, what the creator had it used, and its end is not the table's.
 */
static void thread_before_its_clone(void **state)
{
	(void)state;
	got *const g = parse(
		"1 1.0 openat(AT_FDCWD</w>, \"a\", O_RDONLY) = 3</w/a> <0.1>\n"
		"1 1.1 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, exit_signal=0}, 88 <unfinished ...>\n"
		"2 1.2 openat(AT_FDCWD</w>, \"b\", O_RDONLY) = 4</w/b> <0.1>\n"
		"2 1.3 read(3, \"\", 1) = 0 <0.1>\n"
		"2 1.4 +++ exited with 0 +++\n"
		"1 1.5 <... clone3 resumed>) = 2 <0.4>\n"
		"1 1.6 read(4, \"\", 1) = 0 <0.1>\n"
		"1 1.7 read(3, \"\", 1) = 0 <0.1>\n");
	assert_int_equal(g->rc, 0);
	char b[512];
	assert_string_equal(line_of(g, 1, b, sizeof(b)), "0.100000000 0.500000000 c1 fork ret=2 of=share raw=posix -> OK");
	HAS(g, "c2 open path=\"/w/b\" fh=2");
	HAS(g, "c2 read path=\"/w/a\" fh=1 off=0 len=1 raw");
	HAS(g, "c1 read path=\"/w/b\" fh=2 off=0 len=1 raw");
	HAS(g, "c1 read path=\"/w/a\" fh=1 off=0 len=1 raw");
	assert_null(strstr(g->summary, "fds without a path"));
	done(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fork_exec),
		cmocka_unit_test(fork_wait_after_exit),
		cmocka_unit_test(thread_before_its_clone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
