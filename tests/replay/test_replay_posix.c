/* posix backend tests: NT open semantics, I/O, directories, prepare, clones, and confinement beneath the target. */
#include "posix_harness.h"

static void test_nt_sequence(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_DELTREE, "\\clients\\client1", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_MKDIR, "\\clients", 0, 0, 0, 0);
	nt_open(&t, "\\clients\\client1", RP_NT_CREATE, RP_NT_DIRECTORY_FILE, 100, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 100, 0, 0, 0);
	nt_open(&t, "\\clients\\client1\\mixfile", RP_NT_OPEN, RP_NT_NON_DIRECTORY_FILE, 101, ENOENT);
	wl_add(&t, 1, RP_OP_STAT, "\\clients\\client1\\nothere", 0, 0, 0, ENOENT);
	nt_open(&t, "\\clients\\client1\\f.txt", RP_NT_CREATE, RP_NT_NON_DIRECTORY_FILE, 102, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 102, 0, 65536, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 102, (1ull << 32), 10, 0); /* 64-bit offsets */
	wl_add(&t, 1, RP_OP_READ, NULL, 102, 4096, 4096, 0);
	wl_add(&t, 1, RP_OP_FLUSH, NULL, 102, 0, 0, 0);
	rp_op *const lk = wl_add(&t, 1, RP_OP_LOCK, NULL, 102, 100, 10, 0);
	lk->flags = RP_OPF_EXCLUSIVE;
	wl_add(&t, 1, RP_OP_UNLOCK, NULL, 102, 100, 10, 0);
	rp_sem_nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 102, 0, 0, 0), RP_PROTO_DBENCH_SMB, 1004,
			  &(rp_nt_setinfo){ .decoded = false });
	wl_add(&t, 1, RP_OP_STAT, NULL, 102, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STATFS, NULL, 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 102, 0, 0, 0);
	nt_open(&t, "\\clients\\client1\\f.txt", RP_NT_CREATE, RP_NT_NON_DIRECTORY_FILE, 103, EEXIST);
	nt_find(&t, "\\clients\\client1\\*.TXT", 1366, 0)->result = 1;
	nt_find(&t, "\\clients\\client1\\*.doc", 1366, ENOENT);
	rp_op *const rn = wl_add(&t, 1, RP_OP_RENAME, "\\clients\\client1\\f.txt", 0, 0, 0, 0);
	rn->path2 = wl_str(&t, "\\clients\\client1\\g.txt");
	nt_open(&t, "\\clients\\client1\\tmp", RP_NT_OVERWRITE_IF, RP_NT_DELETE_ON_CLOSE, 104, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 104, 0, 0, 0);
	nt_open(&t, "\\clients\\client1\\g.txt", RP_NT_OPEN, RP_NT_DIRECTORY_FILE, 105, ENOTDIR);
	wl_add(&t, 1, RP_OP_MKDIR, "\\clients\\client1\\sub", 0, 0, 0, 0);
	nt_open(&t, "\\clients\\client1\\sub\\deep", RP_NT_OVERWRITE_IF, 0, 106, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 106, 0, 0, 0);
	wl_add(&t, 1, RP_OP_RMDIR, "\\clients\\client1\\sub", 0, 0, 0, ENOTEMPTY);
	wl_add(&t, 1, RP_OP_UNLINK, "\\clients\\client1\\sub\\deep", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_RMDIR, "\\clients\\client1\\sub", 0, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, true, 0, &r);
	for (size_t i = 0; i < res->n_samples; i++)
		print_message("# mismatch: %s %s expected %d got %d\n", rp_op_name(res->samples[i].op),
			      res->samples[i].path, res->samples[i].expected, res->samples[i].actual);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->unknown_handles, 0);
	assert_true(exists("clients/client1/g.txt"));
	assert_false(exists("clients/client1/f.txt"));
	assert_false(exists("clients/client1/tmp"));
	assert_false(exists("clients/client1/sub"));
	assert_int_equal(size_of("clients/client1/g.txt"), (1ll << 32) + 10);
	assert_int_equal(res->op[RP_OP_WRITE].bytes, 65536 + 10);
	assert_int_equal(res->op[RP_OP_READ].bytes, 4096);
	rp_replay_destroy(r);
	wl_fini(&t);
	/* Deltree removes the whole tree again on the next run. */
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_DELTREE, "\\clients", 0, 0, 0, 0);
	run_posix(&t, NULL, false, 0, &r);
	assert_false(exists("clients"));
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* prepare makes what the workload reads but never creates, with the size its reads need. */
static void test_prepare(void **state)
{
	(void)state;
	for (int prep = 1; prep >= 0; prep--) {
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		nt_open(&t, "\\pre\\data.bin", RP_NT_OPEN, 0, 1, 0);
		rp_op *const rd = wl_add(&t, 1, RP_OP_READ, NULL, 1, 8192, 4096, 0);
		rd->result = 4096;
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "\\pre\\other\\dir", 0, 0, 0, 0)->flags = RP_OPF_DIRECTORY;
		/* Made by the workload itself: not prepared. */
		nt_open(&t, "\\made\\x", RP_NT_OVERWRITE_IF, 0, 2, 0);
		wl_add(&t, 1, RP_OP_MKDIR, "\\made", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "\\gone", 0, 0, 0, ENOENT);
		rm_rf(target);
		mkdir(target, 0777);
		rp_replay *r;
		const rp_replay_results *const res = run_posix(&t, NULL, prep, 2, &r);
		if (prep) {
			assert_true(res->prepare.ran);
			assert_int_equal(res->prepare.files, 2);
			assert_int_equal(res->prepare.dirs, 2 * 3);
			assert_int_equal(size_of("client1/pre/data.bin"), 12288);
			assert_int_equal(size_of("client2/pre/data.bin"), 12288);
			assert_true(exists("client2/pre/other/dir"));
			assert_false(exists("client1/gone"));
			/* made\x fails in the trace too (its directory comes later): only that mismatch is expected. */
			assert_int_equal(res->op[RP_OP_OPEN].mismatches, 2);
			assert_int_equal(res->op[RP_OP_READ].mismatches, 0);
			assert_int_equal(res->op[RP_OP_READ].bytes, 2 * 4096);
		} else {
			assert_false(res->prepare.ran);
			assert_int_equal(res->op[RP_OP_OPEN].mismatches, 0 + 2 * 2);
		}
		rp_replay_destroy(r);
		wl_fini(&t);
	}
	rm_rf(target);
	mkdir(target, 0777);
}

static char *snapshot(void)
{
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -printf '%%p %%y %%s %%T@ %%m\\n' | sort && cat secret/data",
		 outside);
	FILE *const p = popen(cmd, "r");
	static char buf[8192];
	const size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	pclose(p);
	return strdup(buf);
}

/* No '..', absolute path or planted symlink lets a trace read, create or change anything outside. */
static void confinement(const char *bopts)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/secret", outside);
	mkdir(p, 0777);
	snprintf(p, sizeof(p), "%s/secret/data", outside);
	FILE *const f = fopen(p, "w");
	fputs("do not touch\n", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/link", target);
	assert_int_equal(symlink("../outside/secret", p), 0);
	snprintf(p, sizeof(p), "%s/abs", target);
	char abs_target[400];
	snprintf(abs_target, sizeof(abs_target), "%s/secret", outside);
	assert_int_equal(symlink(abs_target, p), 0);
	snprintf(p, sizeof(p), "%s/filelink", target);
	snprintf(abs_target, sizeof(abs_target), "%s/secret/data", outside);
	assert_int_equal(symlink(abs_target, p), 0);
	snprintf(p, sizeof(p), "%s/dangling", target);
	snprintf(abs_target, sizeof(abs_target), "%s/secret/newfile", outside);
	assert_int_equal(symlink(abs_target, p), 0);
	char *const before = snapshot();

	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	static const char *const paths[] = {
		"\\..\\outside\\secret\\data", "..\\..\\etc\\passwd", "/../outside/secret/data", "\\link\\data",
		"\\abs\\data", "\\filelink", "\\dangling", "\\link\\new", "\\abs\\..\\..\\x",
	};
	uint64_t h = 1;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++, h++) {
		nt_open(&t, paths[i], RP_NT_OVERWRITE_IF, 0, h, 0);
		wl_add(&t, 1, RP_OP_WRITE, NULL, h, 0, 100, 0);
		wl_add(&t, 1, RP_OP_READ, NULL, h, 0, 100, 0);
		nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, h, 0, 0, 0), 1020); /* truncate */
		wl_add(&t, 1, RP_OP_CLOSE, NULL, h, 0, 0, 0);
		wl_add(&t, 1, RP_OP_UNLINK, paths[i], 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_MKDIR, paths[i], 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_RMDIR, paths[i], 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_SETATTR, paths[i], 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_READDIR, paths[i], 0, 0, 100, 0);
		wl_add(&t, 1, RP_OP_SETXATTR, paths[i], 0, 0, 4, 0);
		rp_op *const mv = wl_add(&t, 1, RP_OP_RENAME, paths[i], 0, 0, 0, 0);
		mv->path2 = wl_str(&t, "\\stolen");
		rp_op *const ln = wl_add(&t, 1, RP_OP_LINK, paths[i], 0, 0, 0, 0);
		ln->path2 = wl_str(&t, "\\hardlink");
		/* After the link: once the victim lands on a path inside, linking it would be no escape. */
		rp_op *const mv2 = wl_add(&t, 1, RP_OP_RENAME, "\\victim", 0, 0, 0, 0);
		mv2->path2 = wl_str(&t, paths[i]);
	}
	/* A victim file to move out, and deltrees through the links. */
	nt_open(&t, "\\victim", RP_NT_OVERWRITE_IF, 0, 99, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 99, 0, 0, 0);
	wl_add(&t, 1, RP_OP_DELTREE, "\\link\\", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_DELTREE, "\\abs\\data", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_DELTREE, "\\..", 0, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, bopts, true, 0, &r);
	char *const after = snapshot();
	assert_string_equal(before, after);
	assert_false(exists("stolen"));
	assert_false(exists("hardlink"));
	/* prepare made the victim (the trace renames it first): it was really moved, to the one path inside. */
	char fl[600];
	struct stat st;
	snprintf(fl, sizeof(fl), "%s/filelink", target);
	assert_int_equal(lstat(fl, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(res->escapes > 0);
	assert_true(res->failures > 0);
	free(before);
	free(after);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	rm_rf(outside);
	mkdir(target, 0777);
	mkdir(outside, 0777);
}

static void test_confinement_openat2(void **state)
{
	(void)state;
	confinement(NULL);
}

static void test_confinement_walk(void **state)
{
	(void)state;
	confinement("no-openat2");
}

/* A target that is itself reached through a planted clientN symlink stays confined too. */
static void test_clone_dir_symlink(void **state)
{
	(void)state;
	char p[700];
	snprintf(p, sizeof(p), "%s/client1", target);
	assert_int_equal(symlink(outside, p), 0);
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	nt_open(&t, "\\x", RP_NT_OVERWRITE_IF, 0, 1, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = target;
	o.clones = 1;
	char eb[RP_ERRBUF_SIZE];
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), 0);
	assert_true(rp_replay_run(r, eb) < 0); /* the client cannot open its directory */
	snprintf(p, sizeof(p), "%s/x", outside);
	assert_int_not_equal(access(p, F_OK), 0);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/* The directory fd cache never outlives a rename, rmdir or deltree: old paths fail, new ones work. */
static void test_dircache_invalidation(void **state)
{
	(void)state;
	for (int walk = 0; walk < 2; walk++) {
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		wl_add(&t, 1, RP_OP_MKDIR, "\\a", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_MKDIR, "\\a\\b", 0, 0, 0, 0);
		nt_open(&t, "\\a\\b\\f", RP_NT_CREATE, 0, 1, 0);
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "\\a\\b\\f", 0, 0, 0, 0); /* a\b is cached now */
		rp_op *const mv = wl_add(&t, 1, RP_OP_RENAME, "\\a", 0, 0, 0, 0);
		mv->path2 = wl_str(&t, "\\c");
		wl_add(&t, 1, RP_OP_STAT, "\\a\\b\\f", 0, 0, 0, ENOENT);
		wl_add(&t, 1, RP_OP_STAT, "\\c\\b\\f", 0, 0, 0, 0);
		nt_open(&t, "\\a\\b\\g", RP_NT_CREATE, 0, 2, ENOENT);
		/* A new a\b is a new, empty directory. */
		wl_add(&t, 1, RP_OP_MKDIR, "\\a", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_MKDIR, "\\a\\b", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "\\a\\b\\f", 0, 0, 0, ENOENT);
		nt_find(&t, "\\a\\b\\f*", 100, ENOENT); /* ("*" would find "." and "..") */
		/* rmdir and deltree forget too. */
		wl_add(&t, 1, RP_OP_STAT, "\\c\\b\\f", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_DELTREE, "\\c", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "\\c\\b\\f", 0, 0, 0, ENOENT);
		wl_add(&t, 1, RP_OP_MKDIR, "\\c", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_MKDIR, "\\c\\b", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "\\c\\b\\f", 0, 0, 0, ENOENT);
		wl_add(&t, 1, RP_OP_RMDIR, "\\a\\b", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_STAT, "\\a\\b\\f", 0, 0, 0, ENOENT);
		nt_open(&t, "\\a\\b", RP_NT_CREATE, RP_NT_DIRECTORY_FILE, 3, 0);
		nt_open(&t, "\\a\\b\\h", RP_NT_CREATE, 0, 4, 0);
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 4, 0, 0, 0);
		wl_add(&t, 1, RP_OP_UNLINK, "\\a\\b\\h", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
		rp_replay *r;
		const rp_replay_results *const res = run_posix(&t, walk ? "no-openat2" : NULL, false, 0, &r);
		for (size_t i = 0; i < res->n_samples; i++)
			print_message("# mismatch: %s %s expected %d got %d\n", rp_op_name(res->samples[i].op),
				      res->samples[i].path, res->samples[i].expected, res->samples[i].actual);
		assert_int_equal(res->mismatches, 0);
		assert_true(exists("a/b"));
		assert_true(exists("c/b"));
		rp_replay_destroy(r);
		wl_fini(&t);
		rm_rf(target);
		mkdir(target, 0777);
	}
}

/* Drive the posix backend directly: one request, synchronously. */
static int breq(const rp_backend_ops *b, void *bs, void *cs, unsigned opcode, const char *path, const char *path2)
{
	rp_op op;
	memset(&op, 0, sizeof(op));
	op.op = (uint16_t)opcode;
	op.mode = 0777;
	rp_breq req;
	memset(&req, 0, sizeof(req));
	req.op = &op;
	req.path = path;
	req.path2 = path2;
	assert_int_equal(b->submit(bs, cs, &req), 0);
	return req.status;
}

/* Two clients in one directory: a rename by one empties the other's cache; symlinked directories are not cached. */
static void test_dircache_shared(void **state)
{
	(void)state;
	const rp_backend_ops *const b = rp_backend_find("posix");
	assert_non_null(b);
	char eb[RP_ERRBUF_SIZE];
	rp_backend_parsed p;
	assert_int_equal(rp_backend_parse_opts(b, NULL, &p, eb), 0); /* the defaults, which create reads */
	const rp_backend_args args = { .target = target, .vals = p.vals, .n_vals = p.n_vals, .n_clients = 2 };
	void *bs;
	assert_int_equal(b->create(&bs, &args, eb), 0);
	void *const c1 = calloc(1, b->client_size), *const c2 = calloc(1, b->client_size);
	assert_int_equal(b->client_init(bs, c1, "", eb), 0);
	assert_int_equal(b->client_init(bs, c2, "", eb), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_MKDIR, "a", NULL), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_MKDIR, "a/b", NULL), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_MKDIR, "a/b/d", NULL), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_STAT, "a/b/d", NULL), 0); /* c1 caches a/b */
	assert_int_equal(breq(b, bs, c2, RP_OP_RENAME, "a", "z"), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_STAT, "a/b/d", NULL), ENOENT);
	assert_int_equal(breq(b, bs, c1, RP_OP_STAT, "z/b/d", NULL), 0);
	assert_int_equal(breq(b, bs, c2, RP_OP_RMDIR, "z/b/d", NULL), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_STAT, "z/b/d", NULL), ENOENT);
	/* A directory reached through a symlink: retargeting the link is seen at once. */
	assert_int_equal(breq(b, bs, c1, RP_OP_MKDIR, "one", NULL), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_MKDIR, "two", NULL), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_MKDIR, "one/x", NULL), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_SYMLINK, "ln", "one"), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_STAT, "ln/x", NULL), 0);
	assert_int_equal(breq(b, bs, c2, RP_OP_UNLINK, "ln", NULL), 0);
	assert_int_equal(breq(b, bs, c2, RP_OP_SYMLINK, "ln", "two"), 0);
	assert_int_equal(breq(b, bs, c1, RP_OP_STAT, "ln/x", NULL), ENOENT);
	b->client_fini(bs, c1);
	b->client_fini(bs, c2);
	b->destroy(bs);
	rp_backend_parsed_free(&p);
	free(c1);
	free(c2);
	rm_rf(target);
	mkdir(target, 0777);
}

/* An SMB listing pattern: '*', '?' and the DOS wildcards are wild (MS-FSA 2.1.4.4), fnmatch's '[' and '\\' are not. */
static void test_readdir_pattern(void **state)
{
	(void)state;
	const rp_backend_ops *const b = rp_backend_find("posix");
	assert_non_null(b);
	char eb[RP_ERRBUF_SIZE];
	rp_backend_parsed p;
	assert_int_equal(rp_backend_parse_opts(b, NULL, &p, eb), 0); /* the defaults, which create reads */
	const rp_backend_args args = { .target = target, .vals = p.vals, .n_vals = p.n_vals, .n_clients = 1 };
	void *bs;
	assert_int_equal(b->create(&bs, &args, eb), 0);
	void *const c = calloc(1, b->client_size);
	assert_int_equal(b->client_init(bs, c, "", eb), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_MKDIR, "d", NULL), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_MKDIR, "d/a[1].txt", NULL), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_MKDIR, "d/b\\c", NULL), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "a[1].txt"), 0); /* smbclient `del a[1].txt` */
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "A[1].TXT"), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "a1.txt"), ENOENT);
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "b\\c"), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "a?1?.t<"), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "a>1]\"txt"), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "nothing*"), ENOENT);
	/* The DOS wildcards as MS-FSA 2.1.4.4 has them (they were '*', '?' and '.' before, which differ). */
	assert_int_equal(breq(b, bs, c, RP_OP_MKDIR, "d/ab", NULL), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_MKDIR, "d/x.y.z", NULL), 0);
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "ab>>"), 0);   /* '>' matches nothing at the end */
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "ab\""), 0);  /* '"' matches nothing at the end */
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "x.y<"), ENOENT); /* '<' stops before the last '.' */
	assert_int_equal(breq(b, bs, c, RP_OP_READDIR, "d", "x<.z"), 0);
	b->client_fini(bs, c);
	b->destroy(bs);
	free(c);
	rp_backend_parsed_free(&p);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * SMB2 compounds: the ops after a CREATE that failed carry handle 0 and
 * EBADF (NT_STATUS_FILE_CLOSED).  They are issued without a handle and not
 * resolved by path, so they fail EBADF here too, even where the path exists.
 */
static void test_compound_no_handle(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	nt_open(&t, "/x", RP_NT_CREATE, 0, 1, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	nt_open(&t, "/.Trash", RP_NT_OPEN, 0, 0, ENOENT);
	wl_add(&t, 1, RP_OP_STAT, "/.Trash", 0, 0, 0, EBADF)->raw.level = 18;
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 0, 0, 0, EBADF);
	nt_open(&t, "/x", RP_NT_CREATE, 0, 0, EEXIST);
	wl_add(&t, 1, RP_OP_STAT, "/x", 0, 0, 0, EBADF)->raw.level = 18; /* by path it would succeed */
	nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, "/x", 0, 0, 0, EBADF), 20);
	wl_add(&t, 1, RP_OP_READ, "/x", 0, 0, 10, EBADF);
	wl_add(&t, 1, RP_OP_WRITE, "/x", 0, 0, 10, EBADF);
	wl_add(&t, 1, RP_OP_STATFS, "/x", 0, 0, 0, EBADF);
	wl_add(&t, 1, RP_OP_GETXATTR, "/x", 0, 0, 0, EBADF);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 0, 0, 0, EBADF);
	/* A handle never opened here, with a path, that the server said was closed: not by path either. */
	wl_add(&t, 1, RP_OP_STAT, "/x", 77, 0, 0, EBADF)->raw.level = 5;
	wl_add(&t, 1, RP_OP_STAT, "/x", 78, 0, 0, 0)->raw.level = 5; /* not EBADF: by path */
	/* Not a handle op, or not EBADF: by path as always. */
	wl_add(&t, 1, RP_OP_STAT, "/x", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "/.Trash", 0, 0, 0, ENOENT);
	wl_add(&t, 1, RP_OP_UNLINK, "/x", 0, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	for (size_t i = 0; i < res->n_samples; i++)
		print_message("# mismatch: %s %s expected %d got %d\n", rp_op_name(res->samples[i].op),
			      res->samples[i].path, res->samples[i].expected, res->samples[i].actual);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->unknown_handles, 0);
	assert_int_equal(res->errnos[EBADF], 10);
	assert_int_equal(res->op[RP_OP_WRITE].bytes, 0);
	assert_int_equal(size_of("x"), -1);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* Root ignores permission bits: drop (or give back) CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the effective set. */
static void dac_caps(bool on)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) != 0)
		return;
	const uint32_t bits = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);
	d[0].effective = on ? d[0].effective | (d[0].permitted & bits) : d[0].effective & ~bits;
	if (syscall(SYS_capset, &h, d) != 0)
		fail_msg("capset: %s", strerror(errno));
}

/* NT opens get the data access their mask asks for: a write mask on a read-only file is ACCESS_DENIED. */
static void test_nt_access(void **state)
{
	(void)state;
	char p[700];
	snprintf(p, sizeof(p), "%s/ro", target);
	FILE *const f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite("0123456789", 1, 10, f), 10);
	fclose(f);
	assert_int_equal(chmod(p, 0444), 0);
	snprintf(p, sizeof(p), "%s/d", target);
	assert_int_equal(mkdir(p, 0777), 0);
	wl t;
	wl_init(&t, RP_SRC_PCAP_SMB);
	nt_open_access(&t, "/ro", RP_NT_GENERIC_READ | RP_NT_GENERIC_WRITE, RP_NT_OPEN, 0, 1, EACCES);
	nt_open_access(&t, "/ro", RP_NT_WRITE_DATA, RP_NT_OPEN, 0, 1, EACCES);
	nt_open_access(&t, "/ro", RP_NT_APPEND_DATA, RP_NT_OPEN, 0, 1, EACCES);
	nt_open_access(&t, "/ro", RP_NT_READ_DATA, RP_NT_OPEN, 0, 2, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 2, 0, 10, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 0, 10, EACCES);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	/* No mask recorded (dbench loadfiles) and MAXIMUM_ALLOWED: what the file allows, here reading. */
	nt_open(&t, "/ro", RP_NT_OPEN, 0, 3, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 3, 0, 10, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 3, 0, 10, EACCES);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	/* An empty mask recorded is not "unknown" (the defect of access = 0): the handle may do nothing with the data. */
	nt_open_access(&t, "/ro", 0, RP_NT_OPEN, 0, 10, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 10, 0, 10, EACCES);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 10, 0, 0, 0);
	nt_open_access(&t, "/ro", RP_NT_MAXIMUM_ALLOWED, RP_NT_OPEN, 0, 4, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 4, 0, 0, 0);
	/* Attributes only (FILE_READ_ATTRIBUTES | SYNCHRONIZE): stat works, data does not. */
	nt_open_access(&t, "/ro", 0x100080, RP_NT_OPEN, 0, 5, 0);
	wl_add(&t, 1, RP_OP_STAT, NULL, 5, 0, 0, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 5, 0, 10, EACCES);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 5, 0, 0, 0);
	/* Write-only: writes and truncation work, reads do not. */
	nt_open_access(&t, "/w", RP_NT_WRITE_DATA, RP_NT_CREATE, 0, 6, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 6, 0, 100, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 6, 0, 100, EACCES);
	nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 6, 0, 50, 0), 1020);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 6, 0, 0, 0);
	nt_open_access(&t, "/w", RP_NT_READ_DATA, RP_NT_OPEN, 0, 7, 0);
	nt_setinfo(wl_add(&t, 1, RP_OP_SETATTR, NULL, 7, 0, 10, EACCES), 1020);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 7, 0, 0, 0);
	/* A read-only open of a directory is still found to be one. */
	nt_open_access(&t, "/d", RP_NT_READ_DATA, RP_NT_OPEN, RP_NT_NON_DIRECTORY_FILE, 8, EISDIR);
	nt_open_access(&t, "/d", RP_NT_READ_DATA, RP_NT_OPEN, 0, 9, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 9, 0, 0, 0);
	dac_caps(false);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, NULL, false, 0, &r);
	dac_caps(true);
	for (size_t i = 0; i < res->n_samples; i++)
		print_message("# mismatch: %s %s expected %d got %d\n", rp_op_name(res->samples[i].op),
			      res->samples[i].path, res->samples[i].expected, res->samples[i].actual);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->unknown_handles, 0);
	assert_int_equal(size_of("w"), 50);
	assert_int_equal(res->op[RP_OP_READ].bytes, 20);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * prepare sizes files from what reads need beyond what the workload itself
 * wrote or set (any write end, a size set), reads by path (NFS) too, and
 * makes pre-existing files the workload later removes.
 */
static void test_prepare_sizes(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	nt_open(&t, "\\s\\a", RP_NT_OPEN, 0, 1, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 4096, 100, 0); /* not from 0: the file is 4196 bytes after it */
	wl_add(&t, 1, RP_OP_READ, NULL, 1, 0, 4096, 0);    /* needs nothing from prepare */
	wl_add(&t, 1, RP_OP_READ, NULL, 1, 8192, 100, 0);  /* needs 8292 */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	nt_open(&t, "\\s\\b", RP_NT_OVERWRITE, 0, 2, 0); /* emptied: what was prepared does not matter */
	wl_add(&t, 1, RP_OP_WRITE, NULL, 2, 0, 100, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 2, 0, 100, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
	nt_open(&t, "\\s\\gone", RP_NT_OPEN, 0, 3, 0); /* existed, then removed: still prepared */
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 3, 0, 0, 0);
	wl_add(&t, 1, RP_OP_UNLINK, "\\s\\gone", 0, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *res = run_posix(&t, NULL, true, 0, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->prepare.files, 3);
	assert_int_equal(res->prepare.bytes, 8292);
	assert_int_equal(size_of("s/a"), 8292);
	assert_int_equal(size_of("s/b"), 100);
	assert_false(exists("s/gone"));
	assert_int_equal(res->op[RP_OP_READ].bytes, 4096 + 100 + 100);
	rp_replay_destroy(r);
	wl_fini(&t);

	/* NFS: reads and size-setting setattrs by path, on handles never opened (replayed by path). */
	wl_init(&t, RP_SRC_LOADFILE_NFS);
	rp_op *rd = wl_add(&t, 1, RP_OP_READ, "/n/data", 7, 0, 8192, 0);
	rd->result = 8192;
	rp_op *const sa = wl_add(&t, 1, RP_OP_SETATTR, "/n/t", 8, 0, 100, 0);
	sa->attrs = RP_SA_SIZE;
	rd = wl_add(&t, 1, RP_OP_READ, "/n/t", 8, 0, 100, 0);
	rd->result = 100;
	rm_rf(target);
	mkdir(target, 0777);
	res = run_posix(&t, NULL, true, 0, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->unknown_handles, 0);
	assert_int_equal(size_of("n/data"), 8192);
	assert_int_equal(size_of("n/t"), 100);
	assert_int_equal(res->prepare.bytes, 8192);
	assert_int_equal(res->op[RP_OP_READ].bytes, 8192 + 100);
	rp_replay_destroy(r);
	wl_fini(&t);
	rm_rf(target);
	mkdir(target, 0777);
}

/*
 * Looping: what a pass creates and leaves (client.txt's Mkdir "\clients") is
 * there when the next pass creates it again; that EEXIST is the loop's, not a
 * mismatch.  The same EEXIST in the first pass still is one.
 */
static void test_loop_leftovers(void **state)
{
	(void)state;
	for (int planted = 0; planted < 2; planted++) {
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		wl_add(&t, 1, RP_OP_DELTREE, "\\top\\sub", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_MKDIR, "\\top", 0, 0, 0, 0);
		wl_add(&t, 1, RP_OP_MKDIR, "\\top\\sub", 0, 0, 0, 0); /* removed by the deltree first: no conflict */
		nt_open(&t, "\\top\\sub\\f", RP_NT_CREATE, 0, 1, 0);
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
		nt_open(&t, "\\top\\keep", RP_NT_CREATE, 0, 2, 0); /* left behind: conflicts in later passes */
		wl_add(&t, 1, RP_OP_CLOSE, NULL, 2, 0, 0, 0);
		if (planted) {
			char p[600];
			snprintf(p, sizeof(p), "%s/top", target);
			assert_int_equal(mkdir(p, 0777), 0);
		}
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = target;
		o.duration_s = 0.6;
		o.warmup_s = 0;
		char eb[RP_ERRBUF_SIZE];
		rp_replay *r;
		if (rp_replay_create(&r, &o, wl_open(&t), eb) < 0 || rp_replay_run(r, eb) < 0)
			fail_msg("%s", eb);
		const rp_replay_results *const res = rp_replay_get_results(r);
		assert_true(res->passes > 2);
		/* Each later pass: the mkdir fails EEXIST (counted as a failure); the create reopens the file. */
		assert_true(res->errnos[EEXIST] >= res->passes - 1);
		assert_int_equal(res->unknown_handles, 0);
		for (size_t i = 0; i < res->n_samples; i++)
			print_message("# mismatch: %s %s #%u expected %d got %d\n", rp_op_name(res->samples[i].op),
				      res->samples[i].path, (unsigned)res->samples[i].index, res->samples[i].expected,
				      res->samples[i].actual);
		assert_int_equal(res->mismatches, planted ? 1 : 0);
		if (planted)
			assert_int_equal(res->samples[0].index, 2);
		rp_replay_destroy(r);
		wl_fini(&t);
		rm_rf(target);
		mkdir(target, 0777);
	}
}

/* posix options: sync and fsync-writes still run everything; a missing target is an error. */
static void test_options(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	nt_open(&t, "\\s", RP_NT_OVERWRITE_IF, 0, 1, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 0, 1000, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	rp_replay *r;
	const rp_replay_results *const res = run_posix(&t, "sync,fsync-writes", false, 0, &r);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(size_of("s"), 1000);
	rp_replay_destroy(r);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/nonexistent/reprise";
	char eb[RP_ERRBUF_SIZE];
	assert_true(rp_replay_create(&r, &o, t.w, eb) < 0);
	assert_non_null(strstr(eb, "/nonexistent/reprise"));
	wl_fini(&t);
}

/* --final-sync: syncfs of the target after the last op, counted in the measured period; why not, when not. */
static void test_final_sync(void **state)
{
	(void)state;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	nt_open(&t, "\\s", RP_NT_OVERWRITE_IF, 0, 1, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 1, 0, 65536, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 1, 0, 0, 0);
	char eb[RP_ERRBUF_SIZE];
	rp_workload *const w = wl_open(&t); /* one workload for every run, as bench uses it */
	for (int mode = 0; mode < 4; mode++) { /* posix synced, posix not asked, null asked, posix interrupted */
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = target;
		o.no_prepare = true;
		o.final_sync = mode != 1;
		o.backend = mode == 2 ? "null" : NULL;
		rp_replay *r;
		assert_int_equal(rp_replay_create(&r, &o, w, eb), 0);
		if (mode == 3) {
			assert_int_equal(rp_replay_start(r, eb), 0);
			rp_replay_stop(r);
			while (!rp_replay_wait(r, 1000))
				;
			assert_int_equal(rp_replay_finish(r, eb), 0);
		} else {
			assert_int_equal(rp_replay_run(r, eb), 0);
		}
		const rp_replay_results *const res = rp_replay_get_results(r);
		const rp_replay_flush *const fs = &res->final_sync;
		assert_int_equal(fs->asked, mode != 1);
		/* measured either way: /proc/meminfo is there on Linux */
		assert_true(fs->dirty_start >= 0 && fs->dirty_end >= 0);
		switch (mode) {
		case 0:
			assert_true(fs->ran);
			assert_int_equal(fs->err, 0);
			assert_true(fs->ns > 0);
			assert_true(res->elapsed_s >= (double)fs->ns / 1e9); /* inside the measured period */
			assert_null(rp_replay_flush_why(fs));
			break;
		case 1:
			assert_false(fs->ran);
			assert_int_equal(fs->ns, 0);
			assert_null(rp_replay_flush_why(fs));
			break;
		case 2:
			assert_false(fs->ran);
			assert_int_equal(fs->err, EOPNOTSUPP);
			assert_string_equal(rp_replay_flush_why(fs), "the backend works in no local directory");
			break;
		default:
			assert_false(fs->ran);
			assert_int_equal(fs->err, EINTR);
			assert_string_equal(rp_replay_flush_why(fs), "interrupted");
		}
		rp_replay_destroy(r);
		rm_rf(target);
		mkdir(target, 0755);
	}
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nt_sequence),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_confinement_openat2),
		cmocka_unit_test(test_confinement_walk),
		cmocka_unit_test(test_clone_dir_symlink),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_dircache_invalidation),
		cmocka_unit_test(test_dircache_shared),
		cmocka_unit_test(test_compound_no_handle),
		cmocka_unit_test(test_readdir_pattern),
		cmocka_unit_test(test_nt_access),
		cmocka_unit_test(test_prepare_sizes),
		cmocka_unit_test(test_loop_leftovers),
		cmocka_unit_test(test_final_sync),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
