/* Engine tests: dup, copy, fork and threads' shared handle tables, on the posix backend (and null, with the window). */
#include "posix_harness.h"

#define WRITE_BYTE 0x5a /* what posix writes (its buffer's fixed pattern) */

/* The bytes of target/rel from off, n of them; fails the test when it cannot read them all. */
static void read_back(const char *rel, long off, unsigned char *buf, size_t n)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", target, rel);
	FILE *const f = fopen(p, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fread(buf, 1, n, f), n);
	fclose(f);
}

static rp_op *posix_open(wl *t, uint32_t client, const char *path, uint64_t h)
{
	rp_op *const op = wl_add(t, client, RP_OP_OPEN, path, h, 0, 0, 0);
	rp_sem_posix_open(op, O_RDWR | O_CREAT);
	return op;
}

static rp_op *fork_op(wl *t, uint32_t parent, uint32_t child, bool share)
{
	rp_op *const op = wl_add(t, parent, RP_OP_FORK, NULL, 0, 0, 0, 0);
	op->result = child;
	op->oflags = share ? RP_FK_SHARE : 0;
	return op;
}

static const rp_replay_results *run(wl *t, uint32_t inflight, rp_replay **r)
{
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = target;
	o.no_prepare = true;
	o.max_inflight = inflight;
	char eb[RP_ERRBUF_SIZE];
	if (rp_replay_create(r, &o, wl_open(t), eb) < 0 || rp_replay_run(*r, eb) < 0)
		fail_msg("%s", eb);
	const rp_replay_results *const res = rp_replay_get_results(*r);
	print_samples(res);
	return res;
}

static void done(wl *t, rp_replay *r)
{
	rp_replay_destroy(r);
	wl_fini(t);
	rm_rf(target);
	mkdir(target, 0777);
}

/* A dup names the same open file: the original closed, a write through the dup lands (one at a time and windowed). */
static void test_dup(void **state)
{
	(void)state;
	for (uint32_t inflight = 1; inflight <= 4; inflight += 3) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		posix_open(&t, 1, "/f", 1);
		wl_add(&t, 1, RP_OP_DUP, "/f", 1, 0, 0, 0)->handle2 = 2;
		wl_add(&t, 1, RP_OP_CLOSE, "/f", 1, 0, 0, 0);
		wl_add(&t, 1, RP_OP_WRITE, "/f", 2, 0, 100, 0);
		wl_add(&t, 1, RP_OP_WRITE, "/f", 1, 0, 100, EBADF); /* the original is gone, as in the trace */
		wl_add(&t, 1, RP_OP_CLOSE, "/f", 2, 0, 0, 0);
		rp_replay *r;
		const rp_replay_results *const res = run(&t, inflight, &r);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->op[RP_OP_DUP].count, 1);
		assert_int_equal(res->op[RP_OP_DUP].unsupported, 0);
		assert_int_equal(res->op[RP_OP_WRITE].bytes, 100);
		assert_int_equal(size_of("f"), 100);
		done(&t, r);
	}
}

/* copy: copy_file_range between two handles, at the op's offsets; the bytes are there. */
static void test_copy(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	posix_open(&t, 1, "/src", 1);
	wl_add(&t, 1, RP_OP_WRITE, "/src", 1, 0, 100, 0);
	posix_open(&t, 1, "/dst", 2);
	rp_op *op = wl_add(&t, 1, RP_OP_COPY, "/src", 1, 20, 50, 0);
	op->handle2 = 2;
	op->offset2 = 10;
	op->result = 50;
	op->path2 = wl_str(&t, "/dst");
	/* past the source's end: nothing to copy, 0 bytes, OK */
	op = wl_add(&t, 1, RP_OP_COPY, "/src", 1, 4096, 50, 0);
	op->handle2 = 2;
	/* a destination never opened: unknown, EBADF as recorded */
	op = wl_add(&t, 1, RP_OP_COPY, "/src", 1, 0, 50, EBADF);
	op->handle2 = 9;
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run(&t, 1, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->op[RP_OP_COPY].count, 3);
	assert_int_equal(res->op[RP_OP_COPY].bytes, 50);
	assert_int_equal(res->op[RP_OP_COPY].unknown_handles, 1);
	assert_int_equal(size_of("dst"), 60);
	unsigned char buf[60];
	read_back("dst", 0, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], i < 10 ? 0 : WRITE_BYTE);
	done(&t, r);
}

/*
 * fork: the child holds copies of the parent's handles: it writes on an
 * inherited one and closes it, and the parent's stays open for its writes.
 */
static void test_fork_copies(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	posix_open(&t, 1, "/f", 1);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 0, 10, 0);
	fork_op(&t, 1, 2, false);
	wl_add(&t, 2, RP_OP_WRITE, NULL, 1, 10, 10, 0);
	wl_add(&t, 2, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 2, RP_OP_WRITE, NULL, 1, 0, 10, EBADF); /* its copy is closed */
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 20, 10, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 30, 10, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run(&t, 1, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->op[RP_OP_FORK].count, 1);
	assert_int_equal(res->op[RP_OP_WRITE].bytes, 40);
	assert_int_equal(size_of("f"), 40);
	unsigned char buf[40];
	read_back("f", 0, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], WRITE_BYTE);
	done(&t, r);
}

/*
 * Threads share one table: B writes on A's handle and closes it, and a
 * later use of it fails EBADF as in the trace.  The later use is by a
 * thread C that B makes after its close, so the order is the trace's
 * whatever the scheduler does (a fork op orders its child after it).
 */
static void test_thread_share(void **state)
{
	(void)state;
	for (uint32_t inflight = 1; inflight <= 4; inflight += 3) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		posix_open(&t, 1, "/f", 1);
		fork_op(&t, 1, 2, true);
		wl_add(&t, 2, RP_OP_WRITE, NULL, 1, 0, 10, 0);
		posix_open(&t, 2, "/g", 2); /* opened by B: A sees it too */
		wl_add(&t, 2, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		fork_op(&t, 2, 3, true);
		wl_add(&t, 3, RP_OP_WRITE, NULL, 1, 10, 10, EBADF);
		wl_add(&t, 3, RP_OP_WRITE, NULL, 2, 0, 5, 0);
		wl_add(&t, 3, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
		rp_replay *r;
		const rp_replay_results *const res = run(&t, inflight, &r);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->op[RP_OP_WRITE].failures_expected, 1);
		assert_int_equal(res->op[RP_OP_WRITE].unknown_handles, 1);
		assert_int_equal(size_of("f"), 10);
		assert_int_equal(size_of("g"), 5);
		done(&t, r);
	}
}

/*
 * A child's first op waits for its parent's fork op, as fast as possible and
 * with many clients: every child writes on the handle it inherits (none
 * finds it unknown), down a chain of forks and across a fan of them.
 */
static void test_fork_order(void **state)
{
	(void)state;
	enum { FAN = 48, CHAIN = 16 };
	for (int pass = 0; pass < 3; pass++) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		posix_open(&t, 1, "/f", 1);
		for (uint32_t k = 0; k < FAN; k++)
			fork_op(&t, 1, 100 + k, pass == 2 && k % 2);
		for (uint32_t k = 0; k < FAN; k++) {
			wl_add(&t, 100 + k, RP_OP_WRITE, NULL, 1, (uint64_t)k * 10, 10, 0);
			if (pass != 2 || !(k % 2))
				wl_add(&t, 100 + k, RP_OP_CLOSE, NULL, 1, 0, 0, 0); /* its copy; a thread leaves the table's */
		}
		/* a chain: each child forks the next after its write */
		for (uint32_t k = 0; k < CHAIN; k++) {
			const uint32_t me = k == 0 ? 1 : 200 + k;
			fork_op(&t, me, 200 + k + 1, pass == 1);
			wl_add(&t, 200 + k + 1, RP_OP_WRITE, NULL, 1, (uint64_t)(FAN + k) * 10, 10, 0);
		}
		wl_add(&t, 1, RP_OP_WRITE, NULL, 1, (FAN + CHAIN) * 10, 10, 0);
		rp_replay *r;
		const rp_replay_results *const res = run(&t, 1, &r);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->op[RP_OP_WRITE].unknown_handles, 0);
		assert_int_equal(res->op[RP_OP_WRITE].bytes, (FAN + CHAIN + 1) * 10);
		assert_int_equal(size_of("f"), (FAN + CHAIN + 1) * 10);
		done(&t, r);
	}
}

static rp_op *wait_op(wl *t, uint32_t waiter, uint32_t child)
{
	rp_op *const op = wl_add(t, waiter, RP_OP_WAIT, NULL, 0, 0, 0, 0);
	op->result = child;
	return op;
}

/*
 * A wait orders the waiter after its child: the children write a file each
 * (many ops, so a waiter that ran ahead would find it short) and the parent,
 * after waiting, renames each one and unlinks it (which fails ENOENT if the
 * child's create had not happened).  Also with the window, and looped (-t).
 */
static void test_wait_order(void **state)
{
	(void)state;
	enum { KIDS = 8, WRITES = 100 };
	for (int pass = 0; pass < 2; pass++) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		char p[32], q[32];
		for (uint32_t k = 0; k < KIDS; k++) {
			fork_op(&t, 1, 10 + k, false);
			snprintf(p, sizeof(p), "/k%u", k);
			posix_open(&t, 10 + k, p, 100 + k);
			for (uint32_t i = 0; i < WRITES; i++)
				wl_add(&t, 10 + k, RP_OP_WRITE, NULL, 100 + k, (uint64_t)i * 10, 10, 0);
			wl_add(&t, 10 + k, RP_OP_CLOSE, NULL, 100 + k, 0, 0, 0);
		}
		for (uint32_t k = 0; k < KIDS; k++) {
			wait_op(&t, 1, 10 + k);
			snprintf(p, sizeof(p), "/k%u", k);
			snprintf(q, sizeof(q), "/done%u", k);
			wl_add(&t, 1, RP_OP_RENAME, p, 0, 0, 0, 0)->path2 = wl_str(&t, q);
		}
		wl_add(&t, 1, RP_OP_WAIT, NULL, 0, 0, 0, 0)->result = 1; /* a wait on itself: nothing */
		wait_op(&t, 1, 999);                                     /* a child without ops: nothing */
		rp_replay *r;
		const rp_replay_results *const res = run(&t, pass ? 4 : 1, &r);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->op[RP_OP_WAIT].count, KIDS + 2);
		for (uint32_t k = 0; k < KIDS; k++) {
			snprintf(q, sizeof(q), "done%u", k);
			assert_int_equal(size_of(q), WRITES * 10);
		}
		done(&t, r);
	}
}

/* Hostile: two clients that wait for each other (or for a fork op the other waits on) go on, never hang. */
static void test_wait_cycle(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	posix_open(&t, 1, "/a", 1);
	posix_open(&t, 2, "/b", 2);
	wait_op(&t, 1, 2);
	wait_op(&t, 2, 1);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 2, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	/* 3 waits for its child 4, which waits for 3's fork op that comes after the wait */
	wait_op(&t, 3, 4);
	fork_op(&t, 3, 4, false);
	posix_open(&t, 4, "/c", 3);
	rp_replay *r;
	const rp_replay_results *const res = run(&t, 1, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->op[RP_OP_WAIT].count, 3);
	assert_true(exists("a") && exists("b") && exists("c"));
	done(&t, r);
}

/* A hostile trace: two clients that fork each other wait for no one (no hang); a fork of a client without ops is nothing. */
static void test_fork_cycle(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	posix_open(&t, 1, "/a", 1);
	fork_op(&t, 1, 2, false);
	posix_open(&t, 2, "/b", 2);
	fork_op(&t, 2, 1, true);
	fork_op(&t, 2, 77, true); /* 77 has no ops */
	wl_add(&t, 1, RP_OP_FORK, NULL, 0, 0, 0, EAGAIN)->result = 0; /* failed as recorded: nothing made */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 2, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run(&t, 1, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->op[RP_OP_FORK].count, 4);
	assert_int_equal(res->op[RP_OP_FORK].failures_expected, 1);
	assert_true(exists("a") && exists("b"));
	done(&t, r);
}

/*
 * NT semantics: a dup is one open, so delete-on-close acts at the last close
 * of both; a forked child's copy keeps the object until it closes it too.
 */
static void test_nt_delete_on_close(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	nt_open_access(&t, "/doc", 0x13019f, RP_NT_CREATE, RP_NT_DELETE_ON_CLOSE, 1, 0);
	wl_add(&t, 1, RP_OP_DUP, NULL, 1, 0, 0, 0)->handle2 = 2;
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/doc", 0, 0, 0, 0); /* still open through the dup */
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 0, 10, 0); /* the dup has the open's rights */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/doc", 0, 0, 0, ENOENT);
	/* fork: the parent's close leaves the object to the child's copy; the child's close, after its stat, deletes it */
	nt_open_access(&t, "/doc2", 0x13019f, RP_NT_CREATE, RP_NT_DELETE_ON_CLOSE, 3, 0);
	fork_op(&t, 1, 2, false);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	wl_add(&t, 2, RP_OP_STAT, "/doc2", 0, 0, 0, 0);
	wl_add(&t, 2, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run(&t, 1, &r);
	assert_int_equal(res->mismatches, 0);
	assert_false(exists("doc"));
	assert_false(exists("doc2"));
	done(&t, r);
}

/* The null and fault backends take the new ops: dup and fork are the engine's, copy succeeds (null) or fails as told (fault). */
static void test_other_backends(void **state)
{
	(void)state;
	static const char *const backends[] = { "null", "fault" };
	for (size_t b = 0; b < 2; b++) {
		wl t;
		wl_init(&t, RP_SRC_SYSCALL);
		posix_open(&t, 1, "/f", 1);
		wl_add(&t, 1, RP_OP_DUP, NULL, 1, 0, 0, 0)->handle2 = 2;
		rp_op *const op = wl_add(&t, 1, RP_OP_COPY, NULL, 1, 0, 10, b ? EIO : 0);
		op->handle2 = 2;
		op->result = b ? 0 : 10;
		fork_op(&t, 1, 2, false);
		wl_add(&t, 2, RP_OP_WRITE, NULL, 2, 0, 10, 0);
		wl_add(&t, 2, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
		wl_add(&t, 1, RP_OP_MMAP, NULL, 1, 0, 10, 0);
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = "/nonexistent";
		o.backend = backends[b];
		o.backend_opts = b ? "fail=copy:EIO" : NULL;
		o.no_prepare = true;
		char eb[RP_ERRBUF_SIZE];
		rp_replay *r;
		if (rp_replay_create(&r, &o, wl_open(&t), eb) < 0 || rp_replay_run(r, eb) < 0)
			fail_msg("%s", eb);
		const rp_replay_results *const res = rp_replay_get_results(r);
		print_samples(res);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->unsupported, 0);
		assert_int_equal(res->op[RP_OP_COPY].count, 1);
		assert_int_equal(res->op[RP_OP_WRITE].unknown_handles, 0);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* statfs by path resolves it beneath the target: a missing path fails ENOENT, a symlink out of the target is refused. */
static void test_statfs_beneath(void **state)
{
	(void)state;
	char link[700];
	snprintf(link, sizeof(link), "%s/out", target);
	assert_int_equal(symlink(outside, link), 0);
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	wl_add(&t, 1, RP_OP_STATFS, "/", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STATFS, "/sys/fs/selinux", 0, 0, 0, ENOENT);
	wl_add(&t, 1, RP_OP_STATFS, "/out", 0, 0, 0, RP_STATUS_OTHER); /* any failure: never the outside's */
	rp_replay *r;
	const rp_replay_results *const res = run(&t, 1, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->op[RP_OP_STATFS].failures, 2);
	done(&t, r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dup),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_fork_copies),
		cmocka_unit_test(test_thread_share),
		cmocka_unit_test(test_fork_order),
		cmocka_unit_test(test_fork_cycle),
		cmocka_unit_test(test_wait_order),
		cmocka_unit_test(test_wait_cycle),
		cmocka_unit_test(test_nt_delete_on_close),
		cmocka_unit_test(test_other_backends),
		cmocka_unit_test(test_statfs_beneath),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
