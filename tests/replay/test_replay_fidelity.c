/* posix backend tests: packet-trace fidelity — prepare's directory decision, reads at end of file per
 * dialect, SMB search/security/stat-on-handle semantics, mandatory byte-range locks, backslashes in names. */
#include "posix_harness.h"

/*
 * Prepare decides what a path is at the end of the scan: a path that is ever
 * the parent of another (NFSv4 LOOKUP /home, which says nothing of its type,
 * then /home/nst), is flagged a directory by a later op, is listed, or is
 * rmdir'd, is made a directory, even when the first op that named it did not say.
 */
static void test_prepare_dirs(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_NFS);
	wl_add(&t, 1, RP_OP_LOOKUP, "/home", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_LOOKUP, "/home/nst", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_ACCESS, "/home/nst/share", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_LOOKUP, "/home/nst/share/missing", 0, 0, 0, ENOENT);
	wl_add(&t, 1, RP_OP_ACCESS, "/home/nst/leaf", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/flagged", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/flagged", 0, 0, 0, 0)->flags = RP_OPF_DIRECTORY;
	wl_add(&t, 1, RP_OP_LOOKUP, "/listed", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_READDIR, "/listed", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_LOOKUP, "/removed", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_RMDIR, "/removed", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_MKDIR, "/there", 0, 0, 0, EEXIST); /* it existed, as a directory */
	wl_add(&t, 1, RP_OP_LOOKUP, "/file", 0, 0, 0, 0);     /* nothing says otherwise: a file */
	/* Named only as the parent of a path seen missing: still a directory (ENOENT, not ENOTDIR). */
	wl_add(&t, 1, RP_OP_LOOKUP, "/p/q", 0, 0, 0, ENOENT);
	wl_add(&t, 1, RP_OP_LOOKUP, "/p", 0, 0, 0, 0);
	/* A file that is removed and made again as a directory stays a file in prepare. */
	wl_add(&t, 1, RP_OP_LOOKUP, "/f2", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_UNLINK, "/f2", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_MKDIR, "/f2", 0, 0, 0, 0)->mode = 0777;
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, true, 0, &r);
	print_samples(res);
	assert_int_equal(res->mismatches, 0);
	assert_true(is_dir("home"));
	assert_true(is_dir("home/nst"));
	assert_true(is_dir("home/nst/share")); /* ENOENT, not ENOTDIR, beneath it */
	assert_true(exists("home/nst/leaf") && !is_dir("home/nst/leaf"));
	assert_true(is_dir("flagged"));
	assert_true(is_dir("listed"));
	assert_false(exists("removed"));
	assert_true(is_dir("there"));
	assert_true(exists("file") && !is_dir("file"));
	assert_true(is_dir("p"));
	assert_true(is_dir("f2"));
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);

	/* A captured SMB create that says FILE_OPENED (CreateAction 1) found it there: prepared. */
	wl_init(&t, RP_SRC_PCAP_SMB);
	nt_open(&t, "/td", RP_NT_OPEN_IF, RP_NT_DIRECTORY_FILE, 1, 0)->result = 1;
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	nt_open(&t, "/td/x", RP_NT_OPEN, 0, 2, 0)->result = 1;
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	nt_open(&t, "/new", RP_NT_OPEN_IF, 0, 3, 0)->result = 2; /* FILE_CREATED: not prepared */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	const rp_replay_results *const res2 = run_posix(&t, NULL, true, 0, &r);
	print_samples(res2);
	assert_int_equal(res2->mismatches, 0);
	assert_int_equal(res2->prepare.dirs, 1);
	assert_int_equal(res2->prepare.files, 1);
	assert_true(is_dir("td"));
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * A read that gets nothing at or past the end of file: STATUS_END_OF_FILE
 * (ENODATA) on a handle opened with NT semantics (MS-SMB2 3.3.5.12), success
 * with 0 bytes on NFS and POSIX ones.  A zero-length read is success everywhere.
 */
static void test_read_eof(void **state)
{
	(void)state;
	static const uint32_t sources[] = { RP_SRC_PCAP_SMB, RP_SRC_PCAP_NFS, RP_SRC_SYSCALL };
	for (size_t k = 0; k < sizeof(sources) / sizeof(sources[0]); k++) {
		const bool nt = sources[k] == RP_SRC_PCAP_SMB;
		wl t;
		wl_init(&t, sources[k]);
		rp_op *op = wl_add(&t, 1, RP_OP_OPEN, "/f", 1, 0, 0, 0);
		if (nt)
			rp_sem_nt_open(op, RP_PROTO_SMB2, 0, false, RP_NT_CREATE, 0);
		else
			rp_sem_posix_open(op, O_RDWR | O_CREAT);
		wl_add(&t, 1, RP_OP_WRITE, nt ? NULL : "/f", 1, 0, 100, 0);
		op = wl_add(&t, 1, RP_OP_READ, nt ? NULL : "/f", 1, 50, 100, 0); /* short: 50 bytes, OK */
		op->result = 50;
		op = wl_add(&t, 1, RP_OP_READ, nt ? NULL : "/f", 1, 100, 987, nt ? ENODATA : 0);
		op->result = 0;
		op = wl_add(&t, 1, RP_OP_READ, nt ? NULL : "/f", 1, 5000, 10, nt ? ENODATA : 0);
		op->result = 0;
		op = wl_add(&t, 1, RP_OP_READ, nt ? NULL : "/f", 1, 100, 0, 0);
		op->result = 0;
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		rp_replay *r;
		const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
		print_samples(res);
		assert_int_equal(res->mismatches, 0);
		assert_int_equal(res->errnos[ENODATA], nt ? 2 : 0);
		assert_int_equal(res->op[RP_OP_READ].bytes, 50);
		rp_replay_destroy(r);
		wl_fini(&t);
		rm_rf(target);
		mkdir(target, 0777);
	}
}

/*
 * SMB semantics a local file system needs help with: "*" lists "." and ".."
 * even in an empty directory; a security query needs READ_CONTROL, and the SACL
 * ACCESS_SYSTEM_SECURITY (MS-SMB2 3.3.5.20.3), a set WRITE_DAC / WRITE_OWNER
 * (3.3.5.21.3); a handle is still queried after its name is deleted.
 */
static void test_nt_fidelity(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	nt_open(&t, "/d", RP_NT_CREATE, RP_NT_DIRECTORY_FILE, 1, 0);
	nt_find(&t, "\\d\\*", 0, 0)->handle = 1;
	nt_find(&t, "\\d\\x*", 0, ENOENT)->handle = 1;
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	nt_open_access(&t, "/f", 0x120089, RP_NT_CREATE, 0, 2, 0); /* READ_CONTROL, no ACCESS_SYSTEM_SECURITY */
	nt_security(wl_add(&t, 1, RP_OP_GETXATTR, "/f", 2, 0, 0, 0), 7);           /* owner, group, DACL */
	nt_security(wl_add(&t, 1, RP_OP_GETXATTR, "/f", 2, 0, 0, EACCES), 15);     /* and the SACL */
	nt_security(wl_add(&t, 1, RP_OP_SETXATTR, "/f", 2, 0, 0, EACCES), 4);      /* no WRITE_DAC */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	nt_open_access(&t, "/f", 0xe0000, RP_NT_OPEN, 0, 3, 0); /* READ_CONTROL | WRITE_DAC | WRITE_OWNER */
	nt_security(wl_add(&t, 1, RP_OP_GETXATTR, "/f", 3, 0, 0, 0), 5);
	nt_security(wl_add(&t, 1, RP_OP_SETXATTR, "/f", 3, 0, 0, 0), 5);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	nt_open_access(&t, "/f", 0x80, RP_NT_OPEN, 0, 4, 0); /* attributes only */
	nt_security(wl_add(&t, 1, RP_OP_GETXATTR, "/f", 4, 0, 0, EACCES), 4);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 4, 0, 0, 0);
	nt_open_access(&t, "/f", RP_NT_GENERIC_READ, RP_NT_OPEN, 0, 5, 0);
	nt_security(wl_add(&t, 1, RP_OP_GETXATTR, "/f", 5, 0, 0, 0), 4);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 5, 0, 0, 0);
	nt_open_access(&t, "/f", 0x10080, RP_NT_OPEN, 0, 6, 0); /* DELETE */
	wl_add(&t, 1, RP_OP_UNLINK, "/f", 6, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/f", 6, 0, 0, 0)->raw.level = 48; /* by the handle: still there */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 6, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/f", 0, 0, 0, ENOENT);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	print_samples(res);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->unknown_handles, 0);
	assert_int_equal(res->errnos[EACCES], 3);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/* SMB byte-range locks are mandatory (MS-FSA 2.1.4.10): conflicting I/O fails FILE_LOCK_CONFLICT (EAGAIN). */
static void test_nt_mandatory_locks(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	nt_open_access(&t, "/l", 0x1f01ff, RP_NT_OPEN_IF, 0, 1, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 0, 400, 0);
	wl_add(&t, 1, RP_OP_LOCK, NULL, 1, 0, 100, 0)->flags = RP_OPF_MANDATORY;
	wl_add(&t, 1, RP_OP_LOCK, NULL, 1, 100, 100, 0)->flags = RP_OPF_MANDATORY;
	nt_open_access(&t, "/l", 0x1f01ff, RP_NT_OPEN_IF, 0, 2, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 100, 100, EAGAIN); /* its own shared lock */
	wl_add(&t, 1, RP_OP_READ, NULL, 1, 100, 100, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 100, 100, EAGAIN);
	wl_add(&t, 1, RP_OP_READ, NULL, 2, 100, 100, 0);
	wl_add(&t, 1, RP_OP_UNLOCK, NULL, 1, 100, 100, 0)->flags = RP_OPF_MANDATORY;
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 100, 100, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 150, 10, 0);
	wl_add(&t, 1, RP_OP_LOCK, NULL, 1, 300, 10, 0)->flags = RP_OPF_EXCLUSIVE | RP_OPF_MANDATORY;
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 300, 10, 0); /* its own exclusive lock: fine */
	wl_add(&t, 1, RP_OP_READ, NULL, 2, 305, 10, EAGAIN);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 305, 10, EAGAIN);
	wl_add(&t, 1, RP_OP_READ, NULL, 2, 310, 10, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 0, 400, 0); /* closing released them */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	print_samples(res);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->errnos[EAGAIN], 4);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * FileAllocationInformation (MS-FSCC 2.4.4): an allocation at or above the end
 * of file leaves the data; below it truncates there.  (Replay used to set the
 * size to the value, which the producers did not even record: 0.)
 */
static void test_allocation(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	nt_open_access(&t, "/a", 0x12019f, RP_NT_CREATE, 0, 1, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 0, 1000, 0);
	nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 1, 0, 4096, 0), RP_NT_FileAllocationInformation);
	nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 1, 0, 1000, 0), RP_NT_FileAllocationInformation);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	nt_open_access(&t, "/b", 0x12019f, RP_NT_CREATE, 0, 2, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 0, 1000, 0);
	nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 2, 0, 300, 0), RP_NT_PASSTHROUGH + RP_NT_FileAllocationInformation);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	/* a dbench loadfile's level alone (no value): nothing to set */
	nt_open(&t, "/c", RP_NT_CREATE, 0, 3, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 3, 0, 1000, 0);
	rp_sem_nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 3, 0, 0, 0), RP_PROTO_DBENCH_SMB, 1019,
			  &(rp_nt_setinfo){ .decoded = false });
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	print_samples(res);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(size_of("a"), 1000);
	assert_int_equal(size_of("b"), 300);
	assert_int_equal(size_of("c"), 1000);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * fallocate from a syscall trace: a plain one extends the file, keep_size
 * allocates without it, a punched hole keeps the size.  mmap is counted
 * unsupported by posix, never run as something else; a dup is the engine's.
 */
static void test_fallocate_and_unsupported(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_SYSCALL);
	rp_sem_posix_open(wl_add(&t, 1, RP_OP_OPEN, "/f", 1, 0, 0, 0), O_RDWR | O_CREAT | O_EXCL);
	wl_add(&t, 1, RP_OP_FALLOCATE, NULL, 1, 0, 8192, 0);
	wl_add(&t, 1, RP_OP_FALLOCATE, NULL, 1, 8192, 8192, 0)->oflags = RP_FA_KEEP_SIZE;
	wl_add(&t, 1, RP_OP_FALLOCATE, NULL, 1, 0, 4096, 0)->oflags = RP_FA_PUNCH_HOLE;
	wl_add(&t, 1, RP_OP_DUP, NULL, 1, 0, 0, 0)->handle2 = 2;
	wl_add(&t, 1, RP_OP_MMAP, NULL, 1, 0, 4096, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	print_samples(res);
	/* a file system without fallocate (EOPNOTSUPP) is a mismatch, not a crash: tmpfs and ext4 have it */
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->op[RP_OP_FALLOCATE].unsupported, 0);
	assert_int_equal(res->op[RP_OP_DUP].unsupported, 0);
	assert_int_equal(res->op[RP_OP_DUP].count, 1);
	assert_int_equal(res->op[RP_OP_MMAP].unsupported, 1);
	assert_int_equal(res->unsupported, 1);
	assert_int_equal(size_of("f"), 8192);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * Delete-on-close is one property of a handle, set at open or by set-info and
 * cleared by set-info, acted on at the last close of the client's handles to
 * the object (MS-FSA 2.1.5.4, 2.1.5.14.3).  (Set-info used to unlink at once,
 * and a later "do not delete" could not bring the file back.)
 */
static void test_delete_on_close(void **state)
{
	(void)state;
	static const rp_nt_setinfo del = { .decoded = true, .delete_pending = true }, keep = { .decoded = true };
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	/* at open, with a second handle open: it goes at the second close */
	nt_open_access(&t, "/doc", 0x13019f, RP_NT_CREATE, RP_NT_DELETE_ON_CLOSE, 1, 0);
	nt_open_access(&t, "/doc", 0x120089, RP_NT_OPEN, 0, 2, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/doc", 0, 0, 0, 0); /* still there */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/doc", 0, 0, 0, ENOENT);
	/* by set-info, then cleared: it stays */
	nt_open_access(&t, "/kept", 0x13019f, RP_NT_CREATE, 0, 3, 0);
	rp_sem_nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 3, 0, 0, 0), RP_PROTO_SMB2, 13, &del);
	wl_add(&t, 1, RP_OP_STAT, "/kept", 0, 0, 0, 0);
	rp_sem_nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 3, 0, 0, 0), RP_PROTO_SMB2, 13, &keep);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/kept", 0, 0, 0, 0);
	/* by set-info on a directory: rmdir at the close */
	nt_open_access(&t, "/dir", 0x130081, RP_NT_CREATE, RP_NT_DIRECTORY_FILE, 4, 0);
	rp_sem_nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 4, 0, 0, 0), RP_PROTO_SMB2, 64, &del);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 4, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/dir", 0, 0, 0, ENOENT);
	/* without DELETE access a delete-on-close set-info is ACCESS_DENIED, and nothing goes */
	nt_open_access(&t, "/kept", 0x120089, RP_NT_OPEN, 0, 5, 0);
	rp_sem_nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 5, 0, 0, EACCES), RP_PROTO_SMB2, 13, &del);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 5, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	print_samples(res);
	assert_int_equal(res->mismatches, 0);
	assert_false(exists("doc"));
	assert_true(exists("kept"));
	assert_false(exists("dir"));
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * A trace path is '/'-separated whatever produced it: an NFS (or POSIX) name holding '\\' is one
 * name, created, written, renamed and listed as such, and its parent keeps no "a" directory.
 */
static void test_backslash_name(void **state)
{
	(void)state;
	static const uint32_t sources[] = { RP_SRC_PCAP_NFS, RP_SRC_SYSCALL };
	for (size_t k = 0; k < sizeof(sources) / sizeof(sources[0]); k++) {
		wl t;
		wl_init(&t, sources[k]);
		wl_add(&t, 1, RP_OP_MKDIR, "/d", 0, 0, 0, 0);
		rp_op *const op = wl_add(&t, 1, RP_OP_OPEN, "/d/a\\b", 1, 0, 0, 0);
		rp_sem_posix_open(op, O_RDWR | O_CREAT | O_EXCL);
		wl_add(&t, 1, RP_OP_WRITE, "/d/a\\b", 1, 0, 10, 0)->result = 10;
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "/d/a", 0, 0, 0, ENOENT);
		rp_op *const mv = wl_add(&t, 1, RP_OP_RENAME, "/d/a\\b", 0, 0, 0, 0);
		mv->path2 = wl_str(&t, "/d/c\\");
		wl_add(&t, 1, RP_OP_STAT, "/d/c\\", 0, 0, 0, 0);
		rp_replay *r;
		const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
		print_samples(res);
		assert_int_equal(res->mismatches, 0);
		assert_true(exists("d/c\\"));
		assert_false(exists("d/a"));
		assert_false(exists("d/c"));
		rp_replay_destroy(r);
		wl_fini(&t);
		rm_rf(target);
		mkdir(target, 0777);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prepare_dirs),
		cmocka_unit_test(test_read_eof),
		cmocka_unit_test(test_nt_fidelity),
		cmocka_unit_test(test_nt_mandatory_locks),
		cmocka_unit_test(test_allocation),
		cmocka_unit_test(test_delete_on_close),
		cmocka_unit_test(test_fallocate_and_unsupported),
		cmocka_unit_test(test_backslash_name),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
