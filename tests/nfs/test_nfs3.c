/* Unit tests: NFSv3 and MOUNTv3 calls/replies -> ops, for every procedure, cut at every byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nfs_harness.h"

enum { NFS = 100003, MOUNT = 100005 };
/* Handles: 0x01 the export root, 0x02 "/dir", 0x03 "/dir/f"; replies hand out 0x05.. */
enum { FH_ROOT = 1, FH_DIR = 2, FH_FILE = 3, FH_NEW = 5, FH_E1 = 6, FH_E2 = 7 };

static void fattr(xb *x, uint32_t type)
{
	xb_u32(x, type);
	xb_u32(x, 0644);
	xb_u32(x, 1);
	xb_u32(x, 0);
	xb_u32(x, 0);
	xb_u64(x, 1234); /* size */
	xb_u64(x, 4096); /* used */
	xb_u64(x, 0);    /* rdev */
	xb_u64(x, 1);    /* fsid */
	xb_u64(x, 99);   /* fileid */
	xb_u64(x, 0);
	xb_u64(x, 0);
	xb_u64(x, 0);
}

static void no_attr(xb *x) { xb_u32(x, 0); }

static void wcc(xb *x)
{
	xb_u32(x, 1); /* pre_op_attr */
	xb_u64(x, 1);
	xb_u64(x, 2);
	xb_u64(x, 3);
	xb_u32(x, 1);
	fattr(x, 2);
}

/* sattr3 setting mode and (if size_set) size; times left alone. */
static void sattr(xb *x, uint32_t mode, bool size_set, uint64_t size)
{
	xb_u32(x, 1);
	xb_u32(x, mode);
	xb_u32(x, 0);
	xb_u32(x, 0);
	xb_u32(x, size_set);
	if (size_set)
		xb_u64(x, size);
	xb_u32(x, 1); /* atime SET_TO_SERVER_TIME */
	xb_u32(x, 2); /* mtime SET_TO_CLIENT_TIME */
	xb_u64(x, 77);
}

/* A sattr3 that sets everything: mode, uid 1000, gid 100, size, atime to the server's time, mtime to a client time. */
static void sattr_all(xb *x, uint32_t mode, uint64_t size)
{
	xb_u32(x, 1);
	xb_u32(x, mode);
	xb_u32(x, 1);
	xb_u32(x, 1000);
	xb_u32(x, 1);
	xb_u32(x, 100);
	xb_u32(x, 1);
	xb_u64(x, size);
	xb_u32(x, 1); /* atime SET_TO_SERVER_TIME */
	xb_u32(x, 2); /* mtime SET_TO_CLIENT_TIME: seconds, nseconds */
	xb_u32(x, 1700000000);
	xb_u32(x, 5);
}

static void dirop(xb *x, uint8_t dir, const char *name)
{
	xb_fh(x, dir, T_FH);
	xb_str(x, name);
}

/* The arguments of a call of proc. */
static void args_of(uint32_t proc, xb *x)
{
	switch (proc) {
	case 1: case 5: case 18: case 19: case 20:
		xb_fh(x, proc == 5 ? FH_FILE : FH_DIR, T_FH);
		if (proc == 1) { /* GETATTR of the file: a handle id */
			x->n -= T_FH + 4;
			xb_fh(x, FH_FILE, T_FH);
		}
		break;
	case 2:
		xb_fh(x, FH_FILE, T_FH);
		sattr_all(x, 0600, 0);
		xb_u32(x, 1); /* guard */
		xb_u64(x, 5);
		break;
	case 3: dirop(x, FH_DIR, "sub"); break;
	case 4: xb_fh(x, FH_FILE, T_FH); xb_u32(x, 0x3); break;
	case 6: xb_fh(x, FH_FILE, T_FH); xb_u64(x, 8192); xb_u32(x, 16); break;
	case 7:
		xb_fh(x, FH_FILE, T_FH);
		xb_u64(x, 4096);
		xb_u32(x, 16);
		xb_u32(x, 2); /* FILE_SYNC */
		xb_opaque(x, "0123456789abcdef", 16);
		break;
	case 8: dirop(x, FH_DIR, "new"); xb_u32(x, 1); sattr(x, 0640, false, 0); break;
	case 9: dirop(x, FH_DIR, "new"); sattr(x, 0755, false, 0); break;
	case 10: dirop(x, FH_DIR, "new"); sattr(x, 0777, false, 0); xb_str(x, "../target"); break;
	case 11: dirop(x, FH_DIR, "new"); xb_u32(x, 7); sattr(x, 0600, false, 0); break;
	case 12: dirop(x, FH_DIR, "f"); break;
	case 13: dirop(x, FH_ROOT, "dir"); break;
	case 14: dirop(x, FH_DIR, "f"); dirop(x, FH_ROOT, "g"); break;
	case 15: xb_fh(x, FH_FILE, T_FH); dirop(x, FH_ROOT, "hard"); break;
	case 16: xb_fh(x, FH_DIR, T_FH); xb_u64(x, 0); xb_u64(x, 0); xb_u32(x, 4096); break;
	case 17: xb_fh(x, FH_DIR, T_FH); xb_u64(x, 0); xb_u64(x, 0); xb_u32(x, 1024); xb_u32(x, 8192); break;
	case 21: xb_fh(x, FH_FILE, T_FH); xb_u64(x, 0); xb_u32(x, 65536); break;
	}
}

static void entry(xb *x, const char *name, uint64_t cookie, bool plus, uint8_t fh)
{
	xb_u32(x, 1);
	xb_u64(x, cookie + 100);
	xb_str(x, name);
	xb_u64(x, cookie);
	if (plus) {
		no_attr(x);
		xb_u32(x, 1);
		xb_fh(x, fh, T_FH);
	}
}

/* An NFS3_OK result of proc. */
static void res_of(uint32_t proc, xb *x)
{
	xb_u32(x, 0); /* NFS3_OK */
	switch (proc) {
	case 1: fattr(x, 1); break;
	case 2: wcc(x); break;
	case 3: xb_fh(x, FH_NEW, T_FH); xb_u32(x, 1); fattr(x, 2); no_attr(x); break;
	case 4: no_attr(x); xb_u32(x, 0x1); break;
	case 5: no_attr(x); xb_str(x, "/abs/target"); break;
	case 6: no_attr(x); xb_u32(x, 16); xb_u32(x, 0); xb_opaque(x, "0123456789abcdef", 16); break;
	case 7: wcc(x); xb_u32(x, 16); xb_u32(x, 2); xb_u64(x, 0xfeed); break;
	case 8: case 9: case 10: case 11:
		xb_u32(x, 1);
		xb_fh(x, FH_NEW, T_FH);
		no_attr(x);
		wcc(x);
		break;
	case 12: case 13: wcc(x); break;
	case 14: wcc(x); wcc(x); break;
	case 15: no_attr(x); wcc(x); break;
	case 16: case 17:
		no_attr(x);
		xb_u64(x, 0xabc);
		entry(x, ".", 1, proc == 17, FH_DIR);
		entry(x, "a", 2, proc == 17, FH_E1);
		entry(x, "b", 3, proc == 17, FH_E2);
		xb_u32(x, 0);
		xb_u32(x, 1); /* eof */
		break;
	case 18: no_attr(x); for (int i = 0; i < 6; i++) xb_u64(x, 1); xb_u32(x, 0); break;
	case 19: no_attr(x); for (int i = 0; i < 13; i++) xb_u32(x, 1); break;
	case 20: no_attr(x); for (int i = 0; i < 6; i++) xb_u32(x, 1); break;
	case 21: wcc(x); xb_u64(x, 0xfeed); break;
	}
}

static uint32_t next_xid = 1000;

static void exchange(env *e, uint32_t prog, uint32_t vers, uint32_t proc, const xb *args, const xb *res)
{
	const uint32_t xid = next_xid++;
	xb c = { .n = 0 }, r = { .n = 0 };
	xb_call(&c, xid, prog, vers, proc, 500);
	memcpy(c.b + c.n, args->b, args->n);
	c.n += args->n;
	xb_reply(&r, xid);
	memcpy(r.b + r.n, res->b, res->n);
	r.n += res->n;
	env_send(e, 0, &c);
	env_send(e, 1, &r);
}

/* MNT gives the root; LOOKUPs name "/dir" and "/dir/f". */
static void prelude(env *e)
{
	xb a = { .n = 0 }, r = { .n = 0 };
	xb_str(&a, "/srv/export");
	xb_u32(&r, 0);
	xb_fh(&r, FH_ROOT, T_FH);
	xb_u32(&r, 1);
	xb_u32(&r, 1);
	exchange(e, MOUNT, 3, 1, &a, &r);
	a.n = r.n = 0;
	dirop(&a, FH_ROOT, "dir");
	xb_u32(&r, 0);
	xb_fh(&r, FH_DIR, T_FH);
	no_attr(&r);
	no_attr(&r);
	exchange(e, NFS, 3, 3, &a, &r);
	a.n = r.n = 0;
	dirop(&a, FH_DIR, "f");
	xb_u32(&r, 0);
	xb_fh(&r, FH_FILE, T_FH);
	no_attr(&r);
	no_attr(&r);
	exchange(e, NFS, 3, 3, &a, &r);
}

/* A GETATTR of handle fh: its op shows the path the map knows. */
static void getattr(env *e, uint8_t fh)
{
	xb a = { .n = 0 }, r = { .n = 0 };
	xb_fh(&a, fh, T_FH);
	res_of(1, &r);
	exchange(e, NFS, 3, 1, &a, &r);
}

typedef struct pcase {
	uint32_t proc;
	const char *want;     /* the op line of the procedure, from the op name on */
	uint8_t follow_fh;    /* then GETATTR this handle ... */
	const char *follow;   /* ... and expect this path in its op */
} pcase;

static const pcase cases[] = {
	{ 1, "stat path=\"/dir/f\" fh=1 raw=nfs3 -> OK (NFS3_OK)", 0, NULL },
	{ 2, "setattr path=\"/dir/f\" fh=1 set=size,mode,uid,gid,mtime,atime_now mode=0600 uid=1000 gid=100 mtime=1700000000.000000005 raw=nfs3:level=63 -> OK (NFS3_OK)", 0, NULL },
	{ 3, "lookup path=\"/dir/sub\" flags=dir raw=nfs3 -> OK (NFS3_OK)", FH_NEW, "\"/dir/sub\"" },
	{ 4, "access path=\"/dir/f\" ret=1 want=read,exec raw=nfs3:access=0x3,opts=0x1 -> OK (NFS3_OK)", 0, NULL },
	{ 5, "readlink path=\"/dir/f\" path2=\"/abs/target\" raw=nfs3 -> OK (NFS3_OK)", 0, NULL },
	{ 6, "read path=\"/dir/f\" fh=1 off=8192 len=16 ret=16 raw=nfs3 -> OK (NFS3_OK)", 0, NULL },
	{ 7, "write path=\"/dir/f\" fh=1 off=4096 len=16 ret=16 flags=stable raw=nfs3:level=2 -> OK (NFS3_OK)", 0, NULL },
	{ 8, "open path=\"/dir/new\" fh=1 disp=create mode=0640 raw=nfs3:disp=1 -> OK (NFS3_OK)", FH_NEW, "\"/dir/new\"" },
	{ 9, "mkdir path=\"/dir/new\" mode=0755 raw=nfs3 -> OK (NFS3_OK)", FH_NEW, "\"/dir/new\"" },
	{ 10, "symlink path=\"/dir/new\" path2=\"../target\" raw=nfs3 -> OK (NFS3_OK)", FH_NEW, "\"/dir/new\"" },
	{ 11, "mknod path=\"/dir/new\" mode=010600 raw=nfs3:level=7 -> OK (NFS3_OK)", FH_NEW, "\"/dir/new\"" },
	{ 12, "unlink path=\"/dir/f\" raw=nfs3 -> OK (NFS3_OK)", FH_FILE, "\"/dir/f\"" },
	{ 13, "rmdir path=\"/dir\" raw=nfs3 -> OK (NFS3_OK)", 0, NULL },
	{ 14, "rename path=\"/dir/f\" path2=\"/g\" raw=nfs3 -> OK (NFS3_OK)", FH_FILE, "\"/g\"" },
	{ 15, "link path=\"/dir/f\" path2=\"/hard\" raw=nfs3 -> OK (NFS3_OK)", FH_FILE, "\"/dir/f\"" },
	{ 16, "readdir path=\"/dir\" len=4096 ret=3 raw=nfs3:level=16 -> OK (NFS3_OK)", FH_E1, "\"/.reprise/nfs/" },
	{ 17, "readdir path=\"/dir\" len=8192 ret=3 raw=nfs3:level=17 -> OK (NFS3_OK)", FH_E2, "\"/dir/b\"" },
	{ 18, "statfs path=\"/dir\" raw=nfs3:level=18 -> OK (NFS3_OK)", 0, NULL },
	{ 19, "statfs path=\"/dir\" raw=nfs3:level=19 -> OK (NFS3_OK)", 0, NULL },
	{ 20, "statfs path=\"/dir\" raw=nfs3:level=20 -> OK (NFS3_OK)", 0, NULL },
	{ 21, "flush path=\"/dir/f\" fh=1 len=65536 raw=nfs3 -> OK (NFS3_OK)", 0, NULL },
};

static bool line_has(const env *e, size_t i, const char *want)
{
	return i < e->n_lines && strstr(e->lines[i], want) != NULL;
}

static void every_procedure(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const pcase *const pc = &cases[i];
		env *const e = env_new(RP_L4_TCP);
		prelude(e);
		xb a = { .n = 0 }, r = { .n = 0 };
		args_of(pc->proc, &a);
		res_of(pc->proc, &r);
		exchange(e, NFS, 3, pc->proc, &a, &r);
		if (pc->follow_fh)
			getattr(e, pc->follow_fh);
		env_finish(e);
		/* prelude: 2 lookups; then the op; then the follow-up stat */
		const size_t n_want = 3 + (pc->follow_fh ? 1 : 0);
		if (e->n_lines != n_want || !line_has(e, 2, pc->want) ||
		    (pc->follow_fh && !line_has(e, 3, pc->follow))) {
			fprintf(stderr, "# procedure %u: want \"%s\"\n", pc->proc, pc->want);
			env_dump(e);
			fail();
		}
		assert_int_equal(e->st.invalid + e->st.truncated + e->st.unmatched + e->st.unsupported, 0);
		/* t_end is the reply's time, 1 ms after the call */
		const rp_op *const op = &e->ms.ops[2];
		assert_int_equal(op->t_end - op->t_start, 1000000);
		assert_int_equal(op->client, e->ms.ops[0].client);
		env_free(e);
	}
}

/* Every prefix of every call and of every reply: no crash, and a cut call is
 * either counted truncated or still gives its op. */
static void cut_everywhere(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const uint32_t proc = cases[i].proc;
		xb a = { .n = 0 }, res = { .n = 0 }, c = { .n = 0 }, r = { .n = 0 };
		args_of(proc, &a);
		res_of(proc, &res);
		xb_call(&c, 77, NFS, 3, proc, 0);
		memcpy(c.b + c.n, a.b, a.n);
		c.n += a.n;
		xb_reply(&r, 77);
		memcpy(r.b + r.n, res.b, res.n);
		r.n += res.n;
		for (size_t cut = 0; cut < c.n; cut++) {
			env *const e = env_new(RP_L4_UDP);
			prelude(e);
			env_send_cut(e, 0, c.b, cut, c.n);
			env_send(e, 1, &r);
			env_finish(e);
			const bool op = e->n_lines == 3;
			CHECK(e, op || e->st.truncated == 1);
			env_free(e);
		}
		for (size_t cut = 0; cut < r.n; cut++) {
			env *const e = env_new(RP_L4_UDP);
			prelude(e);
			env_send(e, 0, &c);
			env_send_cut(e, 1, r.b, cut, r.n);
			env_finish(e);
			assert_int_equal(e->n_lines, 3);
			assert_int_equal(e->st.invalid, 0);
			env_free(e);
		}
	}
}

/* The semantic fields of the procedures that translate (RFC 1813 3.3.2, 3.3.4, 3.3.8, 3.3.11). */
static void semantic_fields(void **state)
{
	(void)state;
	/* CREATE: UNCHECKED with size 0 empties the file, UNCHECKED without opens or creates,
	 * GUARDED creates, EXCLUSIVE creates with a verifier (no attributes) */
	static const struct {
		uint32_t how;
		bool size0;
		uint8_t disp;
		uint32_t oflags;
	} creates[] = {
		{ 0, true, RP_DISP_TRUNC_IF, 0 },
		{ 0, false, RP_DISP_OPEN_IF, 0 },
		{ 1, false, RP_DISP_CREATE, 0 },
		{ 2, false, RP_DISP_CREATE, RP_OF_EXCL_VERIFY },
	};
	for (size_t i = 0; i < sizeof(creates) / sizeof(creates[0]); i++) {
		env *const e = env_new(RP_L4_TCP);
		prelude(e);
		xb a = { .n = 0 }, r = { .n = 0 };
		dirop(&a, FH_DIR, "new");
		xb_u32(&a, creates[i].how);
		if (creates[i].how == 2)
			xb_u64(&a, 0x1122334455667788ull); /* createverf3 */
		else
			sattr(&a, 0640, creates[i].size0, 0);
		res_of(8, &r);
		exchange(e, NFS, 3, 8, &a, &r);
		env_finish(e);
		const rp_op *const op = &e->ms.ops[2];
		CHECK(e, e->n_lines == 3 && op->op == RP_OP_OPEN && op->proto == RP_PROTO_NFS3);
		CHECK(e, op->disp == creates[i].disp && op->oflags == creates[i].oflags);
		CHECK(e, op->want == 0 && op->raw.disposition == creates[i].how); /* CREATE3 asks for no access */
		CHECK(e, op->mode == (creates[i].how == 2 ? 0u : 0640u));
		env_free(e);
	}
	/* SETATTR: every attribute with its value */
	env *const e = env_new(RP_L4_TCP);
	prelude(e);
	xb a = { .n = 0 }, r = { .n = 0 };
	args_of(2, &a);
	res_of(2, &r);
	exchange(e, NFS, 3, 2, &a, &r);
	/* ACCESS: asked READ|LOOKUP|MODIFY|DELETE, granted READ|LOOKUP */
	a.n = r.n = 0;
	xb_fh(&a, FH_FILE, T_FH);
	xb_u32(&a, 0x17);
	xb_u32(&r, 0);
	no_attr(&r);
	xb_u32(&r, 0x3);
	exchange(e, NFS, 3, 4, &a, &r);
	/* MKNOD of a character device: the type in mode */
	a.n = r.n = 0;
	dirop(&a, FH_DIR, "tty");
	xb_u32(&a, 4); /* NF3CHR */
	sattr(&a, 0620, false, 0);
	xb_u64(&a, 0x0000000400000001ull); /* specdata3 */
	res_of(11, &r);
	exchange(e, NFS, 3, 11, &a, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 5);
	const rp_op *const sa = &e->ms.ops[2];
	CHECK(e, sa->op == RP_OP_SETATTR && sa->raw.level == 63);
	CHECK(e, sa->attrs == (RP_SA_SIZE | RP_SA_MODE | RP_SA_UID | RP_SA_GID | RP_SA_ATIME_NOW | RP_SA_MTIME));
	CHECK(e, sa->mode == 0600 && sa->uid == 1000 && sa->gid == 100 && sa->length == 0);
	CHECK(e, sa->mtime == 1700000000000000005ull && sa->atime == 0);
	const rp_op *const ac = &e->ms.ops[3];
	CHECK(e, ac->op == RP_OP_ACCESS && ac->raw.access == 0x17 && ac->raw.options == 0x3);
	CHECK(e, ac->want == (RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_EXEC | RP_WANT_WRITE | RP_WANT_DELETE_CHILD));
	CHECK(e, ac->result == (RP_WANT_READ | RP_WANT_EXEC));
	const rp_op *const mk = &e->ms.ops[4];
	CHECK(e, mk->op == RP_OP_MKNOD && mk->mode == (0020000 | 0620) && mk->raw.level == 4);
	env_free(e);
}

/* Failed procedures keep their nfsstat3; LOOKUP of a missing name binds nothing. */
static void error_status(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	prelude(e);
	xb a = { .n = 0 }, r = { .n = 0 };
	dirop(&a, FH_DIR, "missing");
	xb_u32(&r, 2); /* NFS3ERR_NOENT */
	no_attr(&r);
	exchange(e, NFS, 3, 3, &a, &r);
	env_finish(e);
	CHECK(e, line_has(e, 2, "lookup path=\"/dir/missing\" raw=nfs3 -> "));
	CHECK(e, line_has(e, 2, "(NFS3ERR_NOENT)"));
	env_free(e);
}

/* Corrupt lengths and discriminants are invalid, never read past the message. */
static void corrupt(void **state)
{
	(void)state;
	static const struct {
		uint32_t proc;
		uint32_t words[8];
		size_t n;
	} bad[] = {
		{ 1, { 65 }, 1 },                       /* handle longer than NFS3_FHSIZE */
		{ 3, { 4, 0, 0xffffffff }, 3 },         /* name longer than the message */
		{ 7, { 4, 0, 0, 0, 16, 9 }, 6 },        /* stable_how 9 */
		{ 8, { 4, 0, 1, 0x61000000, 7 }, 5 },   /* createmode 7 */
		{ 2, { 4, 0, 0, 0, 0, 0, 0x42424242 }, 7 }, /* set_atime discriminant (zeek's bad set_it) */
		{ 2, { 4, 0, 5 }, 3 },                  /* a bool that is 5 */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		env *const e = env_new(RP_L4_TCP);
		xb c = { .n = 0 };
		xb_call(&c, 5, NFS, 3, bad[i].proc, 0);
		for (size_t w = 0; w < bad[i].n; w++)
			xb_u32(&c, bad[i].words[w]);
		env_send(e, 0, &c);
		env_finish(e);
		if (e->st.invalid != 1 || e->n_lines != 0) {
			fprintf(stderr, "# case %zu\n", i);
			env_dump(e);
			fail();
		}
		env_free(e);
	}
}

/* MOUNT: MNT teaches the root ("/", the dirpath not prefixed); the rest is ignored. */
static void mount_procs(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_UDP);
	xb a = { .n = 0 }, r = { .n = 0 };
	exchange(e, MOUNT, 3, 0, &a, &r); /* NULL */
	xb_str(&a, "/srv/export");
	xb_u32(&r, 0);
	xb_fh(&r, 9, 16);
	xb_u32(&r, 0);
	exchange(e, MOUNT, 3, 1, &a, &r);
	a.n = r.n = 0;
	xb_str(&a, "/srv/export");
	exchange(e, MOUNT, 3, 3, &a, &r); /* UMNT */
	a.n = 0;
	exchange(e, MOUNT, 3, 5, &a, &r); /* EXPORT */
	a.n = r.n = 0;
	xb_fh(&a, 9, 16);
	res_of(1, &r);
	exchange(e, NFS, 3, 1, &a, &r);
	env_finish(e);
	assert_int_equal(e->n_lines, 1);
	CHECK(e, line_has(e, 0, "stat path=\"/\" fh=1 raw=nfs3 -> OK"));
	assert_int_equal(e->st.ignored, 3);
	assert_int_equal(e->st.unsupported + e->st.invalid + e->st.unmatched, 0);
	env_free(e);
}

/* A handle first seen mid-stream: a stable synthetic path, flagged. */
static void unknown_handle(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	xb a = { .n = 0 }, r = { .n = 0 };
	xb_fh(&a, 0x44, T_FH);
	xb_u64(&a, 0);
	xb_u32(&a, 10);
	xb_u32(&a, 0); /* UNSTABLE */
	xb_opaque(&a, "0123456789", 10);
	xb_u32(&r, 0);
	wcc(&r);
	xb_u32(&r, 10);
	xb_u32(&r, 0);
	xb_u64(&r, 1);
	exchange(e, NFS, 3, 7, &a, &r);
	exchange(e, NFS, 3, 7, &a, &r);
	env_finish(e);
	assert_int_equal(e->n_lines, 2);
	CHECK(e, line_has(e, 0, "write path=\"/.reprise/nfs/"));
	CHECK(e, line_has(e, 0, "flags=synth raw=nfs3 -> OK"));
	CHECK(e, strstr(e->lines[0], "fh=1 ") != NULL);
	CHECK(e, strstr(e->lines[1], "fh=1 ") != NULL);
	assert_true(e->ms.ops[0].path == e->ms.ops[1].path);
	env_free(e);
}

/* RENAME of a directory moves what lies below it. */
static void rename_dir(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	prelude(e);
	xb a = { .n = 0 }, r = { .n = 0 };
	dirop(&a, FH_ROOT, "dir");
	dirop(&a, FH_ROOT, "moved");
	res_of(14, &r);
	exchange(e, NFS, 3, 14, &a, &r);
	getattr(e, FH_FILE);
	env_finish(e);
	CHECK(e, line_has(e, 2, "rename path=\"/dir\" path2=\"/moved\""));
	CHECK(e, line_has(e, 3, "stat path=\"/moved/f\""));
	env_free(e);
}

/* LINK gives the file a second name; once REMOVE takes the first, the file is named by the link. */
static void link_then_remove(void **state)
{
	(void)state;
	env *const e = env_new(RP_L4_TCP);
	prelude(e);
	xb a = { .n = 0 }, r = { .n = 0 };
	args_of(15, &a);
	res_of(15, &r);
	exchange(e, NFS, 3, 15, &a, &r);
	getattr(e, FH_FILE);
	a.n = r.n = 0;
	args_of(12, &a);
	res_of(12, &r);
	exchange(e, NFS, 3, 12, &a, &r);
	getattr(e, FH_FILE);
	env_finish(e);
	CHECK(e, line_has(e, 2, "link path=\"/dir/f\" path2=\"/hard\""));
	CHECK(e, line_has(e, 3, "stat path=\"/dir/f\"")); /* LINK keeps the name it is shown by */
	CHECK(e, line_has(e, 4, "unlink path=\"/dir/f\""));
	CHECK(e, line_has(e, 5, "stat path=\"/hard\""));
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_procedure), cmocka_unit_test(cut_everywhere),
		cmocka_unit_test(semantic_fields),
		cmocka_unit_test(error_status),    cmocka_unit_test(corrupt),
		cmocka_unit_test(mount_procs),     cmocka_unit_test(unknown_handle),
		cmocka_unit_test(rename_dir),      cmocka_unit_test(link_then_remove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
