/* Unit tests of the SMB2/3 decoder with crafted messages (MS-SMB2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "smb_harness.h"

enum { SES = 0x1111, TREE = 5 };
#define ALL1 UINT64_MAX

/* Open name as FileId (p, v) with MessageId mid; a full CREATE round trip. */
static void open_file(env *e, uint64_t mid, const char *name, uint32_t opts, uint64_t p, uint64_t v, uint32_t attrs)
{
	mb q = { .n = 0 };
	size_t at = s2_hdr(&q, 5, 0, mid, SES, TREE, 0);
	s2_create_req(&q, at, name, 0x0012019F, 1, opts);
	env_send(e, 0, &q);
	mb r = { .n = 0 };
	s2_hdr(&r, 5, S2_RESP, mid, SES, TREE, 0);
	s2_create_resp(&r, 1, attrs, p, v);
	env_send(e, 1, &r);
}

static void round_trip(env *e, const mb *q, const mb *r)
{
	env_send(e, 0, q);
	env_send(e, 1, r);
}

static void test_create_close(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "dir\\file.txt", 0x40, 1, 2, 0x20);
	mb q = { .n = 0 }, r = { .n = 0 };
	s2_hdr(&q, 6, 0, 2, SES, TREE, 0);
	s2_handle_req(&q, 1, 2);
	s2_hdr(&r, 6, S2_RESP, 2, SES, TREE, 0);
	s2_simple_resp(&r, 60);
	round_trip(e, &q, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 2);
	CHECK_OP(e, 0, "open path=\"/dir/file.txt\" fh=1 ret=1 want=read,write,append,rattr,wattr,rsec of=notdir,nt raw=smb2:access=0x12019f,disp=1,opts=0x40", 0);
	CHECK_OP(e, 1, "close fh=1 raw=smb2", 0);
	/* request and response times: 1 ms and 2 ms after the first packet */
	CHECK(e, e->ms.ops[0].t_start == 0 && e->ms.ops[0].t_end == 1000000);
	CHECK(e, e->ms.ops[1].t_start == 2000000 && e->ms.ops[1].t_end == 3000000);
	CHECK(e, e->ms.ops[0].status_kind == RP_SK_NT && e->st.unmatched == 0 && e->st.messages == 4);
	env_free(e);
}

static void test_create_dir_and_failure(void **state)
{
	(void)state;
	env *const e = env_new();
	/* FILE_CREATE of a directory stays an open (flags create,dir): see docs/capture-mapping.md */
	mb q = { .n = 0 }, r = { .n = 0 };
	size_t at = s2_hdr(&q, 5, 0, 1, SES, TREE, 0);
	s2_create_req(&q, at, "newdir", 0x100081, 2, 1);
	s2_hdr(&r, 5, S2_RESP, 1, SES, TREE, 0);
	s2_create_resp(&r, 2, 0x10, 3, 4);
	round_trip(e, &q, &r);
	/* a failed open: STATUS_OBJECT_NAME_NOT_FOUND with an error body */
	q.n = r.n = 0;
	at = s2_hdr(&q, 5, 0, 2, SES, TREE, 0);
	s2_create_req(&q, at, "missing", 0x80, 1, 0);
	s2_hdr(&r, 5, S2_RESP, 2, SES, TREE, 0xC0000034);
	s2_error_body(&r);
	round_trip(e, &q, &r);
	/* the share root: an empty name */
	q.n = r.n = 0;
	at = s2_hdr(&q, 5, 0, 3, SES, TREE, 0);
	s2_create_req(&q, at, "", 0x80, 1, 0);
	s2_hdr(&r, 5, S2_RESP, 3, SES, TREE, 0);
	s2_create_resp(&r, 1, 0x10, 5, 6);
	round_trip(e, &q, &r);
	env_finish(e);
	CHECK_OP(e, 0, "open path=\"/newdir\" fh=1 ret=2 want=read,rattr disp=create of=dir,nt flags=dir raw=smb2:access=0x100081,disp=2,opts=0x1", 0);
	CHECK_OP(e, 1, "open path=\"/missing\" fh=0 want=rattr of=nt raw=smb2:access=0x80,disp=1", 0xC0000034);
	CHECK_OP(e, 2, "open path=\"/\" fh=2 ret=1 want=rattr of=nt flags=dir raw=smb2:access=0x80,disp=1", 0);
	/* the translation: wants from the mask, the disposition, "must be a directory" apart from "is one" */
	const rp_op *const o = &e->ms.ops[0];
	CHECK(e, o->want == (RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_READ_ATTR) && o->disp == RP_DISP_CREATE);
	CHECK(e, o->oflags == (RP_OF_DIRECTORY | RP_OF_NT) && o->result == RP_ACT_CREATED);
	CHECK(e, (o->flags & RP_OPF_DIRECTORY) && o->proto == RP_PROTO_SMB2);
	CHECK(e, e->ms.ops[1].disp == RP_DISP_OPEN && e->ms.ops[1].result == 0 && !(e->ms.ops[1].flags & RP_OPF_DIRECTORY));
	/* "/" was not asked to be a directory; the response says it is one */
	CHECK(e, e->ms.ops[2].oflags == RP_OF_NT && (e->ms.ops[2].flags & RP_OPF_DIRECTORY));
	CHECK(e, e->ms.ops[2].result == RP_ACT_OPENED);
	env_free(e);
}

static void test_read_write_flush(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "a.bin", 0, 7, 8, 0x20);
	mb q = { .n = 0 }, r = { .n = 0 };
	s2_hdr(&q, 8, 0, 2, SES, TREE, 0);
	s2_read_req(&q, 4096, 100, 7, 8);
	s2_hdr(&r, 8, S2_RESP, 2, SES, TREE, 0);
	s2_rw_resp(&r, 50);
	round_trip(e, &q, &r);
	q.n = r.n = 0;
	size_t at = s2_hdr(&q, 9, 0, 3, SES, TREE, 0);
	s2_write_req(&q, at, 10, 20, 7, 8, 1);
	s2_hdr(&r, 9, S2_RESP, 3, SES, TREE, 0);
	s2_rw_resp(&r, 20);
	round_trip(e, &q, &r);
	q.n = r.n = 0;
	s2_hdr(&q, 7, 0, 4, SES, TREE, 0);
	s2_handle_req(&q, 7, 8);
	s2_hdr(&r, 7, S2_RESP, 4, SES, TREE, 0);
	s2_simple_resp(&r, 4);
	round_trip(e, &q, &r);
	/* a read past the end of the file */
	q.n = r.n = 0;
	s2_hdr(&q, 8, 0, 5, SES, TREE, 0);
	s2_read_req(&q, 1 << 20, 10, 7, 8);
	s2_hdr(&r, 8, S2_RESP, 5, SES, TREE, 0xC0000011);
	s2_error_body(&r);
	round_trip(e, &q, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 5);
	CHECK_OP(e, 1, "read fh=1 off=4096 len=100 ret=50 raw=smb2", 0);
	CHECK_OP(e, 2, "write fh=1 off=10 len=20 ret=20 flags=stable raw=smb2", 0);
	CHECK_OP(e, 3, "flush fh=1 raw=smb2", 0);
	CHECK(e, strncmp(env_op(e, 4), "read fh=1 off=1048576 len=10 raw=smb2 -> ", 41) == 0);
	CHECK(e, e->ms.ops[4].proto_status == 0xC0000011);
	env_free(e);
}

static void test_lock(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "l", 0, 1, 1, 0);
	mb q = { .n = 0 }, r = { .n = 0 };
	s2_hdr(&q, 10, 0, 2, SES, TREE, 0);
	mb_u16(&q, 48);
	mb_u16(&q, 3);
	mb_u32(&q, 0);
	s2_fid(&q, 1, 1);
	const struct { uint64_t off, len; uint32_t flags; } el[3] = {
		{ 0, 10, 0x12 }, { 100, 5, 0x01 }, { 0, 10, 0x04 },
	};
	for (int i = 0; i < 3; i++) {
		mb_u64(&q, el[i].off);
		mb_u64(&q, el[i].len);
		mb_u32(&q, el[i].flags);
		mb_u32(&q, 0);
	}
	s2_hdr(&r, 10, S2_RESP, 2, SES, TREE, 0);
	s2_simple_resp(&r, 4);
	round_trip(e, &q, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 4);
	CHECK_OP(e, 1, "lock fh=1 off=0 len=10 flags=excl,mandatory raw=smb2", 0);
	CHECK_OP(e, 2, "lock fh=1 off=100 len=5 flags=wait,mandatory raw=smb2", 0);
	CHECK_OP(e, 3, "unlock fh=1 off=0 len=10 flags=mandatory raw=smb2", 0);
	CHECK(e, e->ms.ops[1].flags == (RP_OPF_EXCLUSIVE | RP_OPF_MANDATORY));
	CHECK(e, e->ms.ops[2].flags == (RP_OPF_WAIT | RP_OPF_MANDATORY));
	env_free(e);
}

static void test_query_directory(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "docs", 1, 2, 2, 0x10);
	mb q = { .n = 0 }, r = { .n = 0 };
	size_t at = s2_hdr(&q, 14, 0, 2, SES, TREE, 0);
	rp_put_le16(q.b + at + 6, 128); /* CreditCharge 128: the next MessageId is 130 */
	s2_query_dir_req(&q, at, 37, 1, 2, 2, "*");
	at = s2_hdr(&r, 14, S2_RESP, 2, SES, TREE, 0);
	s2_query_dir_resp(&r, at, 3);
	round_trip(e, &q, &r);
	q.n = r.n = 0;
	at = s2_hdr(&q, 14, 0, 130, SES, TREE, 0);
	s2_query_dir_req(&q, at, 37, 0, 2, 2, "*");
	s2_hdr(&r, 14, S2_RESP, 130, SES, TREE, 0x80000006);
	s2_error_body(&r);
	round_trip(e, &q, &r);
	env_finish(e);
	CHECK_OP(e, 0, "open path=\"/docs\" fh=1 ret=1 want=read,write,append,rattr,wattr,rsec of=dir,nt flags=dir raw=smb2:access=0x12019f,disp=1,opts=0x1", 0);
	CHECK_OP(e, 1, "readdir path=\"/docs\" path2=\"*\" fh=1 ret=3 raw=smb2:opts=0x1,level=37", 0);
	CHECK(e, strcmp(env_op(e, 2), "readdir path=\"/docs\" path2=\"*\" fh=1 raw=smb2:level=37 -> OK (NT_STATUS_NO_MORE_FILES)") == 0);
	CHECK(e, e->ms.ops[2].proto_status == 0x80000006 && e->st.unmatched == 0);
	env_free(e);
}

static void test_query_info(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "x\\y", 0, 3, 3, 0);
	mb q = { .n = 0 }, r = { .n = 0 };
	const struct { uint8_t type, cls; uint32_t addl; } qs[3] = { { 1, 5, 0 }, { 2, 7, 0 }, { 3, 0, 7 } };
	for (int i = 0; i < 3; i++) {
		q.n = r.n = 0;
		s2_hdr(&q, 16, 0, 2 + (uint64_t)i, SES, TREE, 0);
		s2_query_info_req(&q, qs[i].type, qs[i].cls, qs[i].addl, 3, 3);
		s2_hdr(&r, 16, S2_RESP, 2 + (uint64_t)i, SES, TREE, 0);
		mb_u16(&r, 9);
		mb_u16(&r, 72);
		mb_u32(&r, 8);
		mb_u64(&r, 0);
		round_trip(e, &q, &r);
	}
	/* SET_INFO SECURITY of the DACL and owner: the wants a set of those parts needs; no xattr name */
	q.n = r.n = 0;
	const size_t at = s2_hdr(&q, 17, 0, 7, SES, TREE, 0);
	const uint8_t sd[20] = { 1 };
	s2_set_info_req(&q, at, 3, 0, 3, 3, sd, sizeof sd);
	rp_put_le32(q.b + at + 64 + 12, 0x5); /* AdditionalInformation: OWNER | DACL */
	s2_hdr(&r, 17, S2_RESP, 7, SES, TREE, 0);
	s2_simple_resp(&r, 2);
	round_trip(e, &q, &r);
	/* QUOTA is counted by name */
	q.n = 0;
	s2_hdr(&q, 16, 0, 9, SES, TREE, 0);
	s2_query_info_req(&q, 4, 0, 0, 3, 3);
	env_send(e, 0, &q);
	env_finish(e);
	CHECK_OP(e, 1, "stat path=\"/x/y\" fh=1 raw=smb2:level=5", 0);
	CHECK_OP(e, 2, "statfs path=\"/x/y\" fh=1 raw=smb2:level=7", 0);
	CHECK_OP(e, 3, "getxattr path=\"/x/y\" fh=1 want=rsec raw=smb2:level=7", 0);
	CHECK_OP(e, 4, "setxattr path=\"/x/y\" fh=1 want=wsec,wowner raw=smb2:level=5", 0);
	CHECK(e, e->n_lines == 5 && env_unsupported(e, "SMB2 QUERY_INFO QUOTA") == 1);
	CHECK(e, e->ms.ops[3].path2 == 0 && e->ms.ops[3].want == (RP_WANT_KNOWN | RP_WANT_READ_SEC));
	CHECK(e, e->ms.ops[4].path2 == 0 &&
		     e->ms.ops[4].want == (RP_WANT_KNOWN | RP_WANT_WRITE_SEC | RP_WANT_WRITE_OWNER));
	env_free(e);
}

static void set_info(env *e, uint64_t mid, uint8_t cls, uint64_t p, uint64_t v, const uint8_t *info, uint32_t len,
		     uint32_t flags, uint32_t status)
{
	mb q = { .n = 0 }, r = { .n = 0 };
	const size_t at = s2_hdr(&q, 17, flags, mid, SES, TREE, 0);
	s2_set_info_req(&q, at, 1, cls, p, v, info, len);
	s2_hdr(&r, 17, S2_RESP, mid, SES, TREE, status);
	if (status)
		s2_error_body(&r);
	else
		s2_simple_resp(&r, 2);
	round_trip(e, &q, &r);
}

/* A FILE_RENAME_INFORMATION buffer (MS-FSCC 2.4.37) for name. */
static void rename_info(mb *m, uint8_t replace, const char *name)
{
	mb_u8(m, replace);
	mb_zero(m, 7 + 8);
	mb_u32(m, 0);
	const size_t nl = mb_utf16(m, name);
	rp_put_le32(m->b + 16, (uint32_t)nl);
}

static void test_set_info_rename_delete(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "old.pdf", 0, 4, 4, 0);
	uint8_t eof[8];
	rp_put_le64(eof, 12345);
	set_info(e, 2, 20, 4, 4, eof, 8, 0, 0);
	mb ren = { .n = 0 };
	rename_info(&ren, 1, "sub\\new.pdf");
	set_info(e, 3, 10, 4, 4, ren.b, (uint32_t)ren.n, 0, 0);
	/* after the rename the handle's path is the new one */
	mb q = { .n = 0 }, r = { .n = 0 };
	s2_hdr(&q, 16, 0, 4, SES, TREE, 0);
	s2_query_info_req(&q, 1, 18, 0, 4, 4);
	s2_hdr(&r, 16, S2_RESP, 4, SES, TREE, 0);
	mb_u16(&r, 9);
	mb_zero(&r, 7);
	round_trip(e, &q, &r);
	const uint8_t del = 1, keep = 0;
	set_info(e, 5, 13, 4, 4, &del, 1, 0, 0);
	set_info(e, 6, 13, 4, 4, &keep, 1, 0, 0);
	/* FileDispositionInformationEx on a directory: delete-on-close set on the handle too */
	open_file(e, 7, "d", 1, 9, 9, 0x10);
	uint8_t dex[4];
	rp_put_le32(dex, 0x3);
	set_info(e, 8, 64, 9, 9, dex, 4, 0, 0xC0000101);
	/* FileAllocationInformation: the allocation size is kept (the defect: it was not, and replay truncated) */
	uint8_t alloc[8];
	rp_put_le64(alloc, 1048576);
	set_info(e, 9, 19, 4, 4, alloc, 8, 0, 0);
	/* FileRenameInformation without ReplaceIfExists: the new name must not exist */
	mb ren2 = { .n = 0 };
	rename_info(&ren2, 0, "other.pdf");
	set_info(e, 10, 10, 4, 4, ren2.b, (uint32_t)ren2.n, 0, 0xC0000035);
	/* FileBasicInformation: creation unchanged (0), access and write times set, change time -1, attributes */
	uint8_t basic[40] = { 0 };
	rp_put_le64(basic + 8, 116444736000000000ull + 10000000ull * 1000000000ull + 5); /* 10^9 s + 500 ns */
	rp_put_le64(basic + 16, 116444736000000000ull + 10000000ull * 86400);         /* 1970-01-02 */
	rp_put_le64(basic + 24, UINT64_MAX);
	rp_put_le32(basic + 32, 0x20); /* ARCHIVE */
	set_info(e, 11, 4, 4, 4, basic, 40, 0, 0);
	/* a buffer too short for its class is invalid, no op */
	set_info(e, 12, 19, 4, 4, alloc, 4, 0, 0);
	env_finish(e);
	CHECK_OP(e, 1, "setattr path=\"/old.pdf\" fh=1 len=12345 set=size raw=smb2:level=20", 0);
	CHECK_OP(e, 2, "rename path=\"/old.pdf\" path2=\"/sub/new.pdf\" fh=1 raw=smb2:opts=0x1,level=10", 0);
	CHECK_OP(e, 3, "stat path=\"/sub/new.pdf\" fh=1 raw=smb2:level=18", 0);
	CHECK_OP(e, 4, "setattr path=\"/sub/new.pdf\" fh=1 set=delete raw=smb2:level=13", 0);
	CHECK_OP(e, 5, "setattr path=\"/sub/new.pdf\" fh=1 set=undelete raw=smb2:level=13", 0);
	CHECK_OP(e, 7, "setattr path=\"/d\" fh=2 set=delete raw=smb2:level=64", 0xC0000101);
	CHECK_OP(e, 8, "setattr path=\"/sub/new.pdf\" fh=1 off=1048576 set=alloc raw=smb2:level=19", 0);
	CHECK_OP(e, 9, "rename path=\"/sub/new.pdf\" path2=\"/other.pdf\" fh=1 of=noreplace raw=smb2:level=10", 0xC0000035);
	CHECK_OP(e, 10,
		 "setattr path=\"/sub/new.pdf\" fh=1 set=atime,mtime,dosattr atime=1000000000.000000500 "
		 "mtime=86400.000000000 raw=smb2:level=4",
		 0);
	CHECK(e, e->n_lines == 11 && e->st.invalid == 1);
	/* the semantic fields themselves, as consumers read them */
	const rp_op *const a = &e->ms.ops[8];
	CHECK(e, a->op == RP_OP_SETATTR && a->attrs == RP_SA_ALLOC && a->offset == 1048576 && a->length == 0);
	CHECK(e, e->ms.ops[4].op == RP_OP_SETATTR && e->ms.ops[4].attrs == RP_SA_DELETE_SET && e->ms.ops[4].handle == 1);
	CHECK(e, e->ms.ops[5].attrs == RP_SA_DELETE_CLEAR && e->ms.ops[5].handle == 1);
	CHECK(e, e->ms.ops[7].attrs == RP_SA_DELETE_SET && e->ms.ops[7].handle == 2);
	CHECK(e, e->ms.ops[2].oflags == 0 && e->ms.ops[9].oflags == RP_RN_NOREPLACE);
	CHECK(e, e->ms.ops[10].atime == 1000000000000000500ull && e->ms.ops[10].mtime == 86400000000000ull);
	for (size_t i = 0; i < e->n_lines; i++)
		CHECK(e, e->ms.ops[i].proto == RP_PROTO_SMB2);
	env_free(e);
}

/* CREATE + SET_INFO(disposition) + CLOSE, related, in one message and one compound response. */
static void test_compound_related(void **state)
{
	(void)state;
	env *const e = env_new();
	mb q = { .n = 0 };
	size_t a = s2_hdr(&q, 5, 0, 920, SES, TREE, 0);
	s2_create_req(&q, a, "testfile.txt", 0x110080, 1, 0x40);
	s2_link(&q, a);
	const uint8_t del = 1;
	const size_t b = s2_hdr(&q, 17, S2_RELATED, 921, ALL1, UINT32_MAX, 0);
	s2_set_info_req(&q, b, 1, 13, ALL1, ALL1, &del, 1);
	s2_link(&q, b);
	s2_hdr(&q, 6, S2_RELATED, 922, ALL1, UINT32_MAX, 0);
	s2_handle_req(&q, ALL1, ALL1);
	env_send(e, 0, &q);
	mb r = { .n = 0 };
	a = s2_hdr(&r, 5, S2_RESP, 920, SES, TREE, 0);
	s2_create_resp(&r, 1, 0x20, 0x645babb3, 0xbd96b751);
	s2_link(&r, a);
	const size_t rb = s2_hdr(&r, 17, S2_RESP | S2_RELATED, 921, SES, TREE, 0);
	s2_simple_resp(&r, 2);
	s2_link(&r, rb);
	s2_hdr(&r, 6, S2_RESP | S2_RELATED, 922, SES, TREE, 0);
	s2_simple_resp(&r, 60);
	env_send(e, 1, &r);
	/* the FileId is closed: a later use is a different, synthetic file */
	mb q2 = { .n = 0 };
	s2_hdr(&q2, 8, 0, 923, SES, TREE, 0);
	s2_read_req(&q2, 0, 1, 0x645babb3, 0xbd96b751);
	env_send(e, 0, &q2);
	env_finish(e);
	CHECK(e, e->n_lines == 4);
	CHECK_OP(e, 0, "open path=\"/testfile.txt\" fh=1 ret=1 want=delete,rattr of=notdir,nt raw=smb2:access=0x110080,disp=1,opts=0x40", 0);
	CHECK_OP(e, 1, "setattr path=\"/testfile.txt\" fh=1 set=delete raw=smb2:level=13", 0);
	CHECK_OP(e, 2, "close fh=1 raw=smb2", 0);
	CHECK(e, strncmp(env_op(e, 3), "read path=\"/.reprise/smb2/", 26) == 0);
	CHECK(e, strstr(env_op(e, 3), "fh=2 off=0 len=1 flags=synth,noreply raw=smb2 -> UNKNOWN") != NULL);
	CHECK(e, e->ms.ops[1].client == e->ms.ops[0].client && e->st.messages == 7 && e->st.unmatched == 1);
	env_free(e);
}

/* A related chain whose CREATE fails: the related operations fail with it without
 * reaching the file system, so they are counted ignored and make no op. */
static void test_compound_failed_create(void **state)
{
	(void)state;
	env *const e = env_new();
	mb q = { .n = 0 };
	const size_t a = s2_hdr(&q, 5, 0, 1, SES, TREE, 0);
	s2_create_req(&q, a, "gone", 0x80, 1, 0);
	s2_link(&q, a);
	s2_hdr(&q, 16, S2_RELATED, 2, ALL1, UINT32_MAX, 0);
	s2_query_info_req(&q, 1, 34, 0, ALL1, ALL1);
	env_send(e, 0, &q);
	mb r = { .n = 0 };
	const size_t ra = s2_hdr(&r, 5, S2_RESP, 1, SES, TREE, 0xC0000034);
	s2_error_body(&r);
	s2_link(&r, ra);
	s2_hdr(&r, 16, S2_RESP | S2_RELATED, 2, SES, TREE, 0xC0000034);
	s2_error_body(&r);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 1);
	CHECK_OP(e, 0, "open path=\"/gone\" fh=0 want=rattr of=nt raw=smb2:access=0x80,disp=1", 0xC0000034);
	CHECK(e, e->st.ignored == 1);
	env_free(e);
}

static void test_async_pending(void **state)
{
	(void)state;
	env *const e = env_new();
	mb q = { .n = 0 };
	const size_t at = s2_hdr(&q, 5, 0, 44, SES, TREE, 0);
	s2_create_req(&q, at, "slow.pdf", 0x80, 1, 0);
	env_send(e, 0, &q);
	mb r = { .n = 0 };
	s2_hdr(&r, 5, S2_RESP | S2_ASYNC, 44, SES, 0, 0x00000103);
	s2_error_body(&r);
	env_send(e, 1, &r);
	r.n = 0;
	s2_hdr(&r, 5, S2_RESP | S2_ASYNC, 44, SES, 0, 0);
	s2_create_resp(&r, 1, 0, 1, 2);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 1);
	CHECK_OP(e, 0, "open path=\"/slow.pdf\" fh=1 ret=1 want=rattr of=nt raw=smb2:access=0x80,disp=1", 0);
	CHECK(e, e->ms.ops[0].t_end == 2000000 && e->st.unmatched == 0);
	env_free(e);
}

static void test_unmatched_and_noreply(void **state)
{
	(void)state;
	env *const e = env_new();
	mb r = { .n = 0 };
	s2_hdr(&r, 8, S2_RESP, 99, SES, TREE, 0);
	s2_rw_resp(&r, 10);
	env_send(e, 1, &r);
	mb q = { .n = 0 };
	s2_hdr(&q, 6, 0, 100, SES, TREE, 0);
	s2_handle_req(&q, 5, 5);
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->n_lines == 1 && e->st.unmatched == 2);
	CHECK(e, strstr(env_op(e, 0), "flags=synth,noreply raw=smb2 -> UNKNOWN") != NULL);
	CHECK(e, e->ms.ops[0].t_end == RP_TIME_UNKNOWN);
	env_free(e);
}

static void test_plumbing_and_unsupported(void **state)
{
	(void)state;
	env *const e = env_new();
	const uint16_t plumbing[] = { 0, 1, 2, 4, 12, 13 };
	for (size_t i = 0; i < sizeof plumbing / sizeof plumbing[0]; i++) {
		mb q = { .n = 0 }, r = { .n = 0 };
		s2_hdr(&q, plumbing[i], 0, 10 + i, SES, TREE, 0);
		s2_simple_resp(&q, 4);
		s2_hdr(&r, plumbing[i], S2_RESP, 10 + i, SES, TREE, 0);
		s2_simple_resp(&r, 4);
		round_trip(e, &q, &r);
	}
	mb q = { .n = 0 }, r = { .n = 0 };
	s2_hdr(&q, 11, 0, 30, SES, TREE, 0);
	mb_u16(&q, 57);
	mb_u16(&q, 0);
	mb_u32(&q, 0x00060194);
	s2_fid(&q, ALL1, ALL1);
	mb_zero(&q, 33);
	s2_hdr(&r, 11, S2_RESP, 30, SES, TREE, 0xC0000225);
	s2_error_body(&r);
	round_trip(e, &q, &r);
	q.n = r.n = 0;
	s2_hdr(&q, 15, 0, 31, SES, TREE, 0);
	mb_u16(&q, 32);
	mb_zero(&q, 30);
	env_send(e, 0, &q);
	/* the server's oplock break notification */
	r.n = 0;
	s2_hdr(&r, 18, S2_RESP, ALL1, 0, 0, 0);
	s2_simple_resp(&r, 24);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 0 && e->st.unmatched == 0 && e->st.invalid == 0);
	CHECK(e, env_unsupported(e, "SMB2 IOCTL FSCTL_DFS_GET_REFERRALS") == 1);
	CHECK(e, env_unsupported(e, "SMB2 CHANGE_NOTIFY") == 1);
	CHECK(e, env_unsupported(e, "SMB2 OPLOCK_BREAK") == 1);
	env_free(e);
}

static void test_pipe_tree(void **state)
{
	(void)state;
	env *const e = env_new();
	mb q = { .n = 0 }, r = { .n = 0 };
	size_t at = s2_hdr(&q, 3, 0, 1, SES, 0, 0);
	mb_u16(&q, 9);
	mb_u16(&q, 0);
	mb_u16(&q, 72);
	mb_u16(&q, (uint16_t)mb_utf16(&q, "\\\\srv\\IPC$"));
	s2_hdr(&r, 3, S2_RESP, 1, SES, 9, 0);
	mb_u16(&r, 16);
	mb_u8(&r, 2);
	mb_zero(&r, 13);
	round_trip(e, &q, &r);
	q.n = r.n = 0;
	at = s2_hdr(&q, 5, 0, 2, SES, 9, 0);
	s2_create_req(&q, at, "srvsvc", 0x12019F, 1, 0);
	s2_hdr(&r, 5, S2_RESP, 2, SES, 9, 0);
	s2_create_resp(&r, 1, 0, 1, 1);
	round_trip(e, &q, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 0 && e->st.unmatched == 0);
	CHECK(e, env_unsupported(e, "SMB2 CREATE on a named pipe") == 1);
	env_free(e);
}

static void test_transforms_and_sessions(void **state)
{
	(void)state;
	env *const e = env_new();
	mb t = { .n = 0 };
	mb_bytes(&t, "\xFDSMB", 4);
	mb_zero(&t, 60);
	env_send(e, 0, &t);
	t.n = 0;
	mb_bytes(&t, "\xFCSMB", 4);
	mb_zero(&t, 12);
	env_send(e, 0, &t);
	t.n = 0;
	mb_bytes(&t, "\xABSMB", 4);
	env_send(e, 0, &t);
	/* two sessions on one connection are two clients */
	mb q = { .n = 0 };
	size_t at = s2_hdr(&q, 5, 0, 1, 1, TREE, 0);
	s2_create_req(&q, at, "a", 0x80, 1, 0);
	env_send(e, 0, &q);
	q.n = 0;
	at = s2_hdr(&q, 5, 0, 2, 2, TREE, 0);
	s2_create_req(&q, at, "a", 0x80, 1, 0);
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->st.encrypted == 1 && env_unsupported(e, "SMB2 COMPRESSION_TRANSFORM") == 1 && e->st.invalid == 1);
	CHECK(e, e->n_lines == 2 && e->ms.ops[0].client != e->ms.ops[1].client);
	env_free(e);
}

/* A compound with names, data and a LOCK: the message every robustness test below mangles. */
static void build_compound(mb *q)
{
	q->n = 0;
	size_t a = s2_hdr(q, 5, 0, 1, SES, TREE, 0);
	s2_create_req(q, a, "dir\\f", 0x12019F, 3, 0);
	s2_link(q, a);
	a = s2_hdr(q, 9, S2_RELATED, 2, ALL1, UINT32_MAX, 0);
	s2_write_req(q, a, 0, 9, ALL1, ALL1, 0);
	s2_link(q, a);
	a = s2_hdr(q, 14, S2_RELATED, 3, ALL1, UINT32_MAX, 0);
	s2_query_dir_req(q, a, 3, 0, ALL1, ALL1, "*.txt");
	s2_link(q, a);
	s2_hdr(q, 6, S2_RELATED, 4, ALL1, UINT32_MAX, 0);
	s2_handle_req(q, ALL1, ALL1);
}

static void test_truncated_every_byte(void **state)
{
	(void)state;
	mb q;
	build_compound(&q);
	for (size_t n = 0; n <= q.n; n++) {
		for (int cut = 0; cut < 2; cut++) {
			env *const e = env_new();
			env_send_cut(e, 0, q.b, n, cut ? q.n : n);
			mb r = { .n = 0 };
			const size_t a = s2_hdr(&r, 5, S2_RESP, 1, SES, TREE, 0);
			s2_create_resp(&r, 2, 0, 1, 1);
			s2_link(&r, a);
			s2_hdr(&r, 9, S2_RESP | S2_RELATED, 2, SES, TREE, 0);
			s2_rw_resp(&r, 9);
			for (size_t k = 0; k <= r.n; k += 7)
				env_send_cut(e, 1, r.b, k, cut ? r.n : k);
			env_finish(e);
			/* a prefix is either decoded, or counted truncated (cut) / invalid (not cut) */
			if (n < q.n)
				CHECK(e, cut ? e->st.truncated > 0 : e->st.invalid > 0);
			env_free(e);
		}
	}
	env *const e = env_new();
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->n_lines == 4 && e->st.invalid == 0 && e->st.truncated == 0);
	CHECK_OP(e, 2, "readdir path=\"/dir/f\" path2=\"*.txt\" flags=noreply raw=smb2:level=3", 0);
	env_free(e);
}

static void expect_invalid(mb *q, const char *what)
{
	env *const e = env_new();
	env_send(e, 0, q);
	env_finish(e);
	if (e->st.invalid == 0)
		fprintf(stderr, "# not invalid: %s\n", what);
	CHECK(e, e->st.invalid > 0);
	env_free(e);
}

static void test_bad_offsets(void **state)
{
	(void)state;
	mb q;
	build_compound(&q);
	/* NextCommand: unaligned, inside the header, past the end, zero-progress loops are impossible */
	const uint32_t bad_next[] = { 9, 8, 4096, 0x7FFFFFF8 };
	for (size_t i = 0; i < sizeof bad_next / sizeof bad_next[0]; i++) {
		build_compound(&q);
		rp_put_le32(q.b + 20, bad_next[i]);
		expect_invalid(&q, "NextCommand");
	}
	/* CREATE name offset inside the fixed part, and past the PDU */
	build_compound(&q);
	rp_put_le16(q.b + 64 + 44, 64);
	expect_invalid(&q, "name offset low");
	build_compound(&q);
	rp_put_le16(q.b + 64 + 46, 0x4000);
	expect_invalid(&q, "name length");
	/* StructureSize wrong */
	build_compound(&q);
	rp_put_le16(q.b + 64, 56);
	expect_invalid(&q, "structure size");
	/* header StructureSize wrong */
	build_compound(&q);
	rp_put_le16(q.b + 4, 63);
	expect_invalid(&q, "header size");
	/* WRITE data longer than its PDU (the smb-length-5770 proxy case) */
	mb w = { .n = 0 };
	const size_t a = s2_hdr(&w, 9, 0, 1, SES, TREE, 0);
	s2_write_req(&w, a, 0, 16, 1, 1, 0);
	rp_put_le32(w.b + 64 + 4, 5000);
	expect_invalid(&w, "write length");
	/* QUERY_DIRECTORY response whose entries point outside the buffer */
	env *const e = env_new();
	mb r = { .n = 0 };
	mb qd = { .n = 0 };
	size_t at = s2_hdr(&qd, 14, 0, 1, SES, TREE, 0);
	s2_query_dir_req(&qd, at, 37, 0, 1, 1, "*");
	env_send(e, 0, &qd);
	at = s2_hdr(&r, 14, S2_RESP, 1, SES, TREE, 0);
	s2_query_dir_resp(&r, at, 2);
	rp_put_le32(r.b + 72, 0xFFFFFFF0);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK(e, e->st.invalid == 1 && e->n_lines == 1);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_close),
		cmocka_unit_test(test_create_dir_and_failure),
		cmocka_unit_test(test_read_write_flush),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_query_directory),
		cmocka_unit_test(test_query_info),
		cmocka_unit_test(test_set_info_rename_delete),
		cmocka_unit_test(test_compound_related),
		cmocka_unit_test(test_compound_failed_create),
		cmocka_unit_test(test_async_pending),
		cmocka_unit_test(test_unmatched_and_noreply),
		cmocka_unit_test(test_plumbing_and_unsupported),
		cmocka_unit_test(test_pipe_tree),
		cmocka_unit_test(test_transforms_and_sessions),
		cmocka_unit_test(test_truncated_every_byte),
		cmocka_unit_test(test_bad_offsets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
