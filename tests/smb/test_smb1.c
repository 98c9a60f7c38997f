/* Unit tests of the SMB1 decoder with crafted messages (MS-CIFS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "smb_harness.h"

enum { TID = 3, PID = 0xFEFF, UID = 100 };
#define U (S1_UNICODE | S1_NTSTATUS)

static void req_hdr(mb *m, uint8_t cmd, uint16_t mid)
{
	m->n = 0;
	s1_hdr(m, cmd, 0x18, U, 0, TID, PID, UID, mid);
}

static void resp_hdr(mb *m, uint8_t cmd, uint16_t mid, uint32_t status)
{
	m->n = 0;
	s1_hdr(m, cmd, S1_REPLY | 0x18, U, status, TID, PID, UID, mid);
}

/* AndX words (command 0xFF = none); returns where AndXOffset goes. */
static size_t andx(mb *m, uint8_t next)
{
	mb_u8(m, next);
	mb_u8(m, 0);
	const size_t at = m->n;
	mb_u16(m, 0);
	return at;
}

static void andx_here(mb *m, size_t off_at)
{
	rp_put_le16(m->b + off_at, (uint16_t)m->n);
}

static size_t nt_create_req(mb *m, uint8_t next, const char *name, uint32_t access, uint32_t disp, uint32_t opts)
{
	mb_u8(m, 24);
	const size_t off_at = andx(m, next);
	mb_u8(m, 0);
	const size_t len_at = m->n;
	mb_u16(m, 0);
	mb_u32(m, 0x16);
	mb_u32(m, 0);
	mb_u32(m, access);
	mb_u64(m, 0);
	mb_u32(m, 0x80);
	mb_u32(m, 3);
	mb_u32(m, disp);
	mb_u32(m, opts);
	mb_u32(m, 2);
	mb_u8(m, 0);
	const size_t bc = m->n;
	mb_u16(m, 0);
	if (m->n & 1)
		mb_u8(m, 0);
	const size_t len = mb_utf16(m, name);
	mb_u16(m, 0);
	rp_put_le16(m->b + len_at, (uint16_t)(len + 2));
	s1_bc(m, bc);
	return off_at;
}

static size_t nt_create_resp(mb *m, uint8_t next, uint16_t fid, uint32_t action, bool dir)
{
	mb_u8(m, 34);
	const size_t off_at = andx(m, next);
	mb_u8(m, 0);
	mb_u16(m, fid);
	mb_u32(m, action);
	mb_zero(m, 32);
	mb_u32(m, dir ? 0x10 : 0x20);
	mb_u64(m, 0);
	mb_u64(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u8(m, dir);
	mb_u16(m, 0);
	return off_at;
}

static void read_req(mb *m, uint16_t fid, uint32_t off, uint16_t count)
{
	mb_u8(m, 12);
	andx(m, 0xFF);
	mb_u16(m, fid);
	mb_u32(m, off);
	mb_u16(m, count);
	mb_u16(m, count);
	mb_u32(m, 0xFFFFFFFF);
	mb_u16(m, 0);
	mb_u32(m, 1); /* OffsetHigh */
	mb_u16(m, 0);
}

static void read_resp(mb *m, uint16_t count)
{
	mb_u8(m, 12);
	andx(m, 0xFF);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, count);
	mb_u16(m, (uint16_t)(m->n + 14));
	mb_zero(m, 10);
	mb_u16(m, count);
	for (uint16_t i = 0; i < count; i++)
		mb_u8(m, 'x');
}

static void write_req(mb *m, uint16_t fid, uint32_t off, uint16_t count, uint16_t mode)
{
	mb_u8(m, 14);
	andx(m, 0xFF);
	mb_u16(m, fid);
	mb_u32(m, off);
	mb_u32(m, 0);
	mb_u16(m, mode);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, count);
	mb_u16(m, (uint16_t)(m->n + 8));
	mb_u32(m, 0);
	mb_u16(m, count);
	for (uint16_t i = 0; i < count; i++)
		mb_u8(m, 'y');
}

static void write_resp(mb *m, uint16_t count)
{
	mb_u8(m, 6);
	andx(m, 0xFF);
	mb_u16(m, count);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
}

static void empty_resp(mb *m)
{
	mb_u8(m, 0);
	mb_u16(m, 0);
}

static void fid_req(mb *m, uint16_t fid, uint8_t wc)
{
	mb_u8(m, wc);
	mb_u16(m, fid);
	mb_zero(m, 2u * wc - 2);
	mb_u16(m, 0);
}

static void open_file(env *e, uint16_t mid, const char *name, uint16_t fid, uint32_t opts)
{
	mb q, r;
	req_hdr(&q, 0xA2, mid);
	nt_create_req(&q, 0xFF, name, 0x2019F, 1, opts);
	resp_hdr(&r, 0xA2, mid, 0);
	nt_create_resp(&r, 0xFF, fid, 1, opts & 1);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
}

static void test_create_read_write_close(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "\\dir\\file.txt", 0x4007, 0x40);
	mb q, r;
	req_hdr(&q, 0x2E, 2);
	read_req(&q, 0x4007, 100, 64);
	resp_hdr(&r, 0x2E, 2, 0);
	read_resp(&r, 10);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	req_hdr(&q, 0x2F, 3);
	write_req(&q, 0x4007, 8, 5, 1);
	resp_hdr(&r, 0x2F, 3, 0);
	write_resp(&r, 5);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	req_hdr(&q, 0x05, 4);
	fid_req(&q, 0x4007, 1);
	resp_hdr(&r, 0x05, 4, 0);
	empty_resp(&r);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	req_hdr(&q, 0x04, 5);
	fid_req(&q, 0x4007, 3);
	resp_hdr(&r, 0x04, 5, 0);
	empty_resp(&r);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 5 && e->st.unmatched == 0);
	CHECK_OP(e, 0, "open path=\"/dir/file.txt\" fh=1 ret=1 want=read,write,append,rattr,wattr,rsec of=notdir,nt raw=smb1:access=0x2019f,disp=1,opts=0x40", 0);
	CHECK_OP(e, 1, "read fh=1 off=4294967396 len=64 ret=10 raw=smb1", 0);
	CHECK_OP(e, 2, "write fh=1 off=8 len=5 ret=5 flags=stable raw=smb1", 0);
	CHECK_OP(e, 3, "flush fh=1 raw=smb1", 0);
	CHECK_OP(e, 4, "close fh=1 raw=smb1", 0);
	CHECK(e, e->ms.ops[0].t_end == 1000000 && e->ms.ops[0].status_kind == RP_SK_NT);
	env_free(e);
}

/* NT_CREATE_ANDX + READ_ANDX in one chain: the read uses the FID the open returns. */
static void test_andx_chain(void **state)
{
	(void)state;
	env *const e = env_new();
	mb q, r;
	req_hdr(&q, 0xA2, 7);
	size_t off = nt_create_req(&q, 0x2E, "\\a", 0x1, 1, 0);
	andx_here(&q, off);
	read_req(&q, 0, 0, 512);
	resp_hdr(&r, 0xA2, 7, 0);
	off = nt_create_resp(&r, 0x2E, 0x99, 1, false);
	andx_here(&r, off);
	read_resp(&r, 100);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	/* the same chain failing at the open: the server stops, both ops fail */
	req_hdr(&q, 0xA2, 8);
	off = nt_create_req(&q, 0x2E, "\\missing", 0x1, 1, 0);
	andx_here(&q, off);
	read_req(&q, 0, 0, 512);
	resp_hdr(&r, 0xA2, 8, 0xC0000034);
	empty_resp(&r);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 4 && e->st.unmatched == 0);
	CHECK_OP(e, 0, "open path=\"/a\" fh=1 ret=1 want=read of=nt raw=smb1:access=0x1,disp=1", 0);
	CHECK_OP(e, 1, "read fh=1 off=4294967296 len=512 ret=100 raw=smb1", 0);
	CHECK_OP(e, 2, "open path=\"/missing\" fh=0 want=read of=nt raw=smb1:access=0x1,disp=1", 0xC0000034);
	CHECK_OP(e, 3, "read fh=0 off=4294967296 len=512 raw=smb1", 0xC0000034);
	env_free(e);
}

/* TRANSACTION2 with parameters and data at 4-byte aligned offsets. */
static void trans2_req(mb *m, uint16_t sub, const mb *prm, const mb *dat)
{
	mb_u8(m, 15);
	mb_u16(m, (uint16_t)prm->n);
	mb_u16(m, (uint16_t)dat->n);
	mb_u16(m, 10);
	mb_u16(m, 4096);
	mb_u8(m, 0);
	mb_u8(m, 0);
	mb_u16(m, 0);
	mb_u32(m, 0);
	mb_u16(m, 0);
	mb_u16(m, (uint16_t)prm->n);
	const size_t poff_at = m->n;
	mb_u16(m, 0);
	mb_u16(m, (uint16_t)dat->n);
	const size_t doff_at = m->n;
	mb_u16(m, 0);
	mb_u8(m, 1);
	mb_u8(m, 0);
	mb_u16(m, sub);
	const size_t bc = m->n;
	mb_u16(m, 0);
	while (m->n % 4)
		mb_u8(m, 0);
	rp_put_le16(m->b + poff_at, (uint16_t)m->n);
	mb_bytes(m, prm->b, prm->n);
	while (m->n % 4)
		mb_u8(m, 0);
	rp_put_le16(m->b + doff_at, (uint16_t)m->n);
	mb_bytes(m, dat->b, dat->n);
	s1_bc(m, bc);
}

static void trans2_resp(mb *m, const mb *prm)
{
	mb_u8(m, 10);
	mb_u16(m, (uint16_t)prm->n);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, (uint16_t)prm->n);
	const size_t poff_at = m->n;
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	mb_u8(m, 0);
	mb_u8(m, 0);
	const size_t bc = m->n;
	mb_u16(m, 0);
	while (m->n % 4)
		mb_u8(m, 0);
	rp_put_le16(m->b + poff_at, (uint16_t)m->n);
	mb_bytes(m, prm->b, prm->n);
	s1_bc(m, bc);
}

static void trans2(env *e, uint16_t mid, uint16_t sub, const mb *prm, const mb *dat, const mb *rprm, uint32_t st)
{
	mb q, r;
	req_hdr(&q, 0x32, mid);
	trans2_req(&q, sub, prm, dat);
	resp_hdr(&r, 0x32, mid, st);
	if (st)
		empty_resp(&r);
	else
		trans2_resp(&r, rprm);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
}

static void test_trans2(void **state)
{
	(void)state;
	env *const e = env_new();
	const mb none = { .n = 0 };
	mb p = { .n = 0 }, rp = { .n = 0 }, d = { .n = 0 };
	/* FIND_FIRST2 the way dbench's loadfile says it: pattern, level, max count */
	mb_u16(&p, 0x16);
	mb_u16(&p, 1366);
	mb_u16(&p, 6);
	mb_u16(&p, 260);
	mb_u32(&p, 0);
	mb_utf16(&p, "\\dir\\*");
	mb_u16(&p, 0);
	mb_u16(&rp, 7);
	mb_u16(&rp, 5);
	mb_u16(&rp, 0);
	mb_zero(&rp, 4);
	trans2(e, 1, 1, &p, &none, &rp, 0);
	p.n = rp.n = 0;
	mb_u16(&p, 7);
	mb_u16(&p, 100);
	mb_u16(&p, 260);
	mb_u32(&p, 0);
	mb_u16(&p, 6);
	mb_utf16(&p, "last");
	mb_u16(&p, 0);
	mb_u16(&rp, 2);
	mb_u16(&rp, 1);
	mb_zero(&rp, 4);
	trans2(e, 2, 2, &p, &none, &rp, 0);
	/* QUERY_PATH_INFORMATION of a missing file */
	p.n = 0;
	mb_u16(&p, 1004);
	mb_u32(&p, 0);
	mb_utf16(&p, "\\dir\\nothere");
	mb_u16(&p, 0);
	trans2(e, 3, 5, &p, &none, &none, 0xC0000034);
	/* QUERY_FS_INFORMATION */
	p.n = 0;
	mb_u16(&p, 259);
	trans2(e, 4, 3, &p, &none, &none, 0);
	/* on an open file: QUERY_FILE_INFORMATION, SET_FILE_INFORMATION EOF, rename, delete */
	open_file(e, 5, "\\dir\\f.txt", 0x10, 0);
	p.n = 0;
	mb_u16(&p, 0x10);
	mb_u16(&p, 1005);
	trans2(e, 6, 7, &p, &none, &none, 0);
	p.n = 0;
	mb_u16(&p, 0x10);
	mb_u16(&p, 1020);
	mb_u16(&p, 0);
	mb_u64(&d, 777);
	trans2(e, 7, 8, &p, &d, &none, 0);
	p.n = d.n = 0;
	mb_u16(&p, 0x10);
	mb_u16(&p, 1010);
	mb_u16(&p, 0);
	mb_u8(&d, 0);
	mb_zero(&d, 7);
	mb_u32(&d, 14);
	mb_utf16(&d, "g.txt\\");
	d.n -= 2;
	mb_u16(&d, 0);
	rp_put_le32(d.b + 8, 10);
	trans2(e, 8, 8, &p, &d, &none, 0);
	p.n = d.n = 0;
	mb_u16(&p, 0x10);
	mb_u16(&p, 0x102);
	mb_u16(&p, 0);
	mb_u8(&d, 1);
	trans2(e, 9, 8, &p, &d, &none, 0);
	/* delete-on-close cleared again: a setattr on the handle, not an unlink */
	d.n = 0;
	mb_u8(&d, 0);
	trans2(e, 11, 8, &p, &d, &none, 0);
	/* FileAllocationInformation, pass-through 1019 and SMB_SET_FILE_ALLOCATION_INFO 0x103 */
	p.n = d.n = 0;
	mb_u16(&p, 0x10);
	mb_u16(&p, 1019);
	mb_u16(&p, 0);
	mb_u64(&d, 4096);
	trans2(e, 12, 8, &p, &d, &none, 0);
	rp_put_le16(p.b + 2, 0x103);
	rp_put_le64(d.b, 0);
	trans2(e, 13, 8, &p, &d, &none, 0);
	/* rename with ReplaceIfExists: may replace */
	p.n = d.n = 0;
	mb_u16(&p, 0x10);
	mb_u16(&p, 1010);
	mb_u16(&p, 0);
	mb_u8(&d, 1);
	mb_zero(&d, 7);
	mb_u32(&d, 10);
	mb_utf16(&d, "h.txt");
	trans2(e, 14, 8, &p, &d, &none, 0);
	/* SMB_SET_FILE_BASIC_INFO: only the write time set */
	p.n = d.n = 0;
	mb_u16(&p, 0x10);
	mb_u16(&p, 0x101);
	mb_u16(&p, 0);
	mb_u64(&d, 0);
	mb_u64(&d, 0);
	mb_u64(&d, 116444736000000000ull + 10000000ull * 60);
	mb_u64(&d, 0);
	mb_u32(&d, 0);
	mb_u32(&d, 0);
	trans2(e, 15, 8, &p, &d, &none, 0);
	/* an unmapped subcommand is counted by name */
	p.n = 0;
	mb_u16(&p, 3);
	mb_utf16(&p, "\\x");
	mb_u16(&p, 0);
	trans2(e, 10, 0x10, &p, &none, &none, 0);
	env_finish(e);
	CHECK(e, e->n_lines == 14 && e->st.unmatched == 0);
	CHECK_OP(e, 0, "readdir path=\"/dir\" path2=\"*\" len=1366 ret=5 raw=smb1:opts=0x6,level=260", 0);
	CHECK_OP(e, 1, "readdir path=\"/dir\" path2=\"*\" len=100 ret=2 raw=smb1:opts=0x6,level=260", 0);
	CHECK_OP(e, 2, "stat path=\"/dir/nothere\" raw=smb1:level=1004", 0xC0000034);
	CHECK_OP(e, 3, "statfs raw=smb1:level=259", 0);
	CHECK_OP(e, 5, "stat path=\"/dir/f.txt\" fh=1 raw=smb1:level=1005", 0);
	CHECK_OP(e, 6, "setattr path=\"/dir/f.txt\" fh=1 len=777 set=size raw=smb1:level=1020", 0);
	CHECK_OP(e, 7, "rename path=\"/dir/f.txt\" path2=\"/dir/g.txt\" fh=1 of=noreplace raw=smb1:level=1010", 0);
	CHECK_OP(e, 8, "setattr path=\"/dir/g.txt\" fh=1 set=delete raw=smb1:level=258", 0);
	CHECK_OP(e, 9, "setattr path=\"/dir/g.txt\" fh=1 set=undelete raw=smb1:level=258", 0);
	CHECK_OP(e, 10, "setattr path=\"/dir/g.txt\" fh=1 off=4096 set=alloc raw=smb1:level=1019", 0);
	CHECK_OP(e, 11, "setattr path=\"/dir/g.txt\" fh=1 set=alloc raw=smb1:level=259", 0);
	CHECK_OP(e, 12, "rename path=\"/dir/g.txt\" path2=\"/dir/h.txt\" fh=1 raw=smb1:opts=0x1,level=1010", 0);
	CHECK_OP(e, 13, "setattr path=\"/dir/h.txt\" fh=1 set=mtime mtime=60.000000000 raw=smb1:level=257", 0);
	/* the semantic fields: the search's directory and pattern apart; delete-on-close on the handle */
	const rp_op *const o = e->ms.ops;
	CHECK(e, o[0].op == RP_OP_READDIR && o[0].path == o[1].path && o[0].path2 == o[1].path2 && o[0].path2 != 0);
	CHECK(e, o[8].attrs == RP_SA_DELETE_SET && o[9].attrs == RP_SA_DELETE_CLEAR && o[9].handle == 1);
	CHECK(e, o[10].attrs == RP_SA_ALLOC && o[10].offset == 4096 && o[11].attrs == RP_SA_ALLOC && o[11].offset == 0);
	CHECK(e, o[7].oflags == RP_RN_NOREPLACE && o[12].oflags == 0);
	CHECK(e, o[13].attrs == RP_SA_MTIME && o[13].mtime == 60000000000ull);
	for (size_t i = 0; i < e->n_lines; i++)
		CHECK(e, o[i].proto == RP_PROTO_SMB1);
	CHECK(e, env_unsupported(e, "SMB1 TRANS2 GET_DFS_REFERRAL") == 1);
	env_free(e);
}

static void test_locking(void **state)
{
	(void)state;
	env *const e = env_new();
	open_file(e, 1, "\\l", 5, 0);
	mb q, r;
	req_hdr(&q, 0x24, 2);
	mb_u8(&q, 8);
	andx(&q, 0xFF);
	mb_u16(&q, 5);
	mb_u8(&q, 0x10 | 0x01); /* large files, shared */
	mb_u8(&q, 0);
	mb_u32(&q, 0);
	mb_u16(&q, 1);
	mb_u16(&q, 1);
	mb_u16(&q, 20 * 2);
	const uint32_t v[2][4] = { { 0, 0, 0, 10 }, { 1, 0, 0, 4096 } };
	for (int i = 0; i < 2; i++) {
		mb_u16(&q, PID);
		mb_u16(&q, 0);
		for (int k = 0; k < 4; k++)
			mb_u32(&q, v[i][k]);
	}
	resp_hdr(&r, 0x24, 2, 0);
	mb_u8(&r, 2);
	andx(&r, 0xFF);
	mb_u16(&r, 0);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	/* an exclusive lock in the 32-bit form */
	req_hdr(&q, 0x24, 3);
	mb_u8(&q, 8);
	andx(&q, 0xFF);
	mb_u16(&q, 5);
	mb_u8(&q, 0);
	mb_u8(&q, 0);
	mb_u32(&q, 1000); /* Timeout: wait up to a second for a conflicting lock */
	mb_u16(&q, 0);
	mb_u16(&q, 1);
	mb_u16(&q, 10);
	mb_u16(&q, PID);
	mb_u32(&q, 200);
	mb_u32(&q, 2);
	resp_hdr(&r, 0x24, 3, 0xC0000054);
	empty_resp(&r);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	/* an oplock break from the server: counted, no op */
	q.n = 0;
	s1_hdr(&q, 0x24, 0, U, 0, TID, 0xFFFF, 0, 0xFFFF);
	mb_u8(&q, 8);
	andx(&q, 0xFF);
	mb_u16(&q, 5);
	mb_u8(&q, 0x02);
	mb_u8(&q, 0);
	mb_u32(&q, 0);
	mb_u32(&q, 0);
	mb_u16(&q, 0);
	env_send(e, 1, &q);
	env_finish(e);
	CHECK(e, e->n_lines == 4);
	CHECK_OP(e, 1, "unlock fh=1 off=0 len=10 flags=mandatory raw=smb1", 0);
	CHECK_OP(e, 2, "lock fh=1 off=4294967296 len=4096 flags=mandatory raw=smb1", 0);
	CHECK_OP(e, 3, "lock fh=1 off=200 len=2 flags=excl,wait,mandatory raw=smb1", 0xC0000054);
	CHECK(e, e->ms.ops[2].flags == RP_OPF_MANDATORY); /* shared, Timeout 0: fails at once */
	CHECK(e, env_unsupported(e, "SMB1 LOCKING_ANDX oplock break") == 1);
	env_free(e);
}

/* OEM strings and DOS error codes (no FLAGS2 Unicode / NT status). */
static void test_path_commands_oem(void **state)
{
	(void)state;
	env *const e = env_new();
	const struct { uint8_t cmd; const char *a, *b; uint32_t dos; } cases[] = {
		{ 0x06, "\\old\\x.txt", NULL, 0x00020001 }, /* ERRDOS/ERRbadfile */
		{ 0x07, "\\a.txt", "\\b.txt", 0 },
		{ 0x00, "\\newdir", NULL, 0 },
		{ 0x01, "\\newdir", NULL, 0x00050001 }, /* ERRDOS/ERRnoaccess */
	};
	for (uint16_t i = 0; i < 4; i++) {
		mb q = { .n = 0 }, r = { .n = 0 };
		s1_hdr(&q, cases[i].cmd, 0x18, 0, 0, TID, PID, UID, (uint16_t)(10 + i));
		mb_u8(&q, cases[i].cmd >= 6 ? 1 : 0);
		if (cases[i].cmd >= 6)
			mb_u16(&q, 0x16);
		const size_t bc = q.n;
		mb_u16(&q, 0);
		mb_u8(&q, 4);
		s1_str(&q, cases[i].a, false);
		if (cases[i].b) {
			mb_u8(&q, 4);
			s1_str(&q, cases[i].b, false);
		}
		s1_bc(&q, bc);
		s1_hdr(&r, cases[i].cmd, S1_REPLY | 0x18, 0, cases[i].dos, TID, PID, UID, (uint16_t)(10 + i));
		empty_resp(&r);
		env_send(e, 0, &q);
		env_send(e, 1, &r);
	}
	env_finish(e);
	CHECK(e, e->n_lines == 4);
	CHECK_OP(e, 0, "unlink path=\"/old/x.txt\" raw=smb1", 0xC0000034);
	CHECK_OP(e, 1, "rename path=\"/a.txt\" path2=\"/b.txt\" of=noreplace raw=smb1", 0);
	CHECK_OP(e, 2, "mkdir path=\"/newdir\" raw=smb1", 0);
	CHECK_OP(e, 3, "rmdir path=\"/newdir\" raw=smb1", 0xC0000022);
	env_free(e);
}

static void test_open_andx(void **state)
{
	(void)state;
	env *const e = env_new();
	mb q, r;
	req_hdr(&q, 0x2D, 1);
	mb_u8(&q, 15);
	andx(&q, 0xFF);
	mb_u16(&q, 0);
	mb_u16(&q, 0x42); /* read/write, deny none */
	mb_u16(&q, 0x16);
	mb_u16(&q, 0);
	mb_u32(&q, 0);
	mb_u16(&q, 0x12); /* create, truncate if it exists */
	mb_zero(&q, 12);
	const size_t bc = q.n;
	mb_u16(&q, 0);
	s1_str(&q, "\\o.dat", true);
	s1_bc(&q, bc);
	resp_hdr(&r, 0x2D, 1, 0);
	mb_u8(&r, 15);
	andx(&r, 0xFF);
	mb_u16(&r, 0x33);
	mb_u16(&r, 0x20);
	mb_zero(&r, 4 + 4 + 2 + 2 + 2);
	mb_u16(&r, 2);
	mb_zero(&r, 6);
	mb_u16(&r, 0);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK_OP(e, 0, "open path=\"/o.dat\" fh=1 ret=2 want=read,write,append,rattr,wattr,rsec disp=trunc_if of=nt raw=smb1:access=0x12019f,disp=5", 0);
	/* OPEN_ANDX's modes go through the same NT translation: read/write, truncate-or-create, created */
	const rp_op *const o = e->ms.ops;
	CHECK(e, (o->want & (RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_WRITE)) == (RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_WRITE));
	CHECK(e, o->disp == RP_DISP_TRUNC_IF && o->oflags == RP_OF_NT && o->result == RP_ACT_CREATED);
	CHECK(e, o->proto == RP_PROTO_SMB1);
	env_free(e);
}

static void test_pipe_and_plumbing(void **state)
{
	(void)state;
	env *const e = env_new();
	mb q, r;
	/* NEGOTIATE and ECHO: no ops, nothing unmatched */
	const uint8_t plumbing[] = { 0x72, 0x2B, 0x71 };
	for (uint16_t i = 0; i < 3; i++) {
		req_hdr(&q, plumbing[i], i);
		empty_resp(&q);
		resp_hdr(&r, plumbing[i], i, 0);
		empty_resp(&r);
		env_send(e, 0, &q);
		env_send(e, 1, &r);
	}
	/* TREE_CONNECT_ANDX reply with Service "IPC": opens on that tree are pipe plumbing */
	resp_hdr(&r, 0x75, 5, 0);
	r.b[24] = 9; /* TID */
	mb_u8(&r, 3);
	andx(&r, 0xFF);
	mb_u16(&r, 1);
	mb_u16(&r, 4);
	mb_bytes(&r, "IPC\0", 4);
	env_send(e, 1, &r);
	req_hdr(&q, 0xA2, 6);
	q.b[24] = 9;
	nt_create_req(&q, 0xFF, "\\srvsvc", 0x2019F, 1, 0);
	resp_hdr(&r, 0xA2, 6, 0);
	r.b[24] = 9;
	nt_create_resp(&r, 0xFF, 1, 1, false);
	env_send(e, 0, &q);
	env_send(e, 1, &r);
	/* a command reprise does not map */
	req_hdr(&q, 0x25, 7);
	empty_resp(&q);
	env_send(e, 0, &q);
	/* a reply nobody asked for */
	resp_hdr(&r, 0x04, 8, 0);
	empty_resp(&r);
	env_send(e, 1, &r);
	env_finish(e);
	CHECK(e, e->n_lines == 0 && e->st.unmatched == 1);
	CHECK(e, env_unsupported(e, "SMB1 NT_CREATE_ANDX on a named pipe") == 1);
	CHECK(e, env_unsupported(e, "SMB1 TRANSACTION") == 1);
	env_free(e);
}

static void build_chain(mb *q)
{
	req_hdr(q, 0xA2, 7);
	const size_t off = nt_create_req(q, 0x2E, "\\dir\\name", 0x1, 1, 0);
	andx_here(q, off);
	read_req(q, 0, 0, 512);
}

static void test_truncated_every_byte(void **state)
{
	(void)state;
	mb q;
	build_chain(&q);
	for (size_t n = 0; n <= q.n; n++) {
		for (int cut = 0; cut < 2; cut++) {
			env *const e = env_new();
			env_send_cut(e, 0, q.b, n, cut ? q.n : n);
			mb r;
			resp_hdr(&r, 0xA2, 7, 0);
			const size_t off = nt_create_resp(&r, 0x2E, 0x99, 1, false);
			andx_here(&r, off);
			read_resp(&r, 100);
			for (size_t k = 0; k <= r.n; k += 5)
				env_send_cut(e, 1, r.b, k, cut ? r.n : k);
			env_finish(e);
			if (n < q.n && n >= 4)
				CHECK(e, cut ? e->st.truncated > 0 : e->st.invalid + e->st.truncated > 0);
			env_free(e);
		}
	}
}

static void test_bad_andx(void **state)
{
	(void)state;
	mb q;
	/* AndXOffset pointing back at the first block: a loop */
	build_chain(&q);
	rp_put_le16(q.b + 32 + 3, 32);
	env *e = env_new();
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->st.invalid == 1 && e->n_lines == 1);
	env_free(e);
	/* AndXOffset past the end */
	build_chain(&q);
	rp_put_le16(q.b + 32 + 3, 60000);
	e = env_new();
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->st.invalid == 1);
	env_free(e);
	/* NameLength larger than the bytes */
	build_chain(&q);
	rp_put_le16(q.b + 32 + 6, 4000);
	e = env_new();
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->st.invalid >= 1);
	env_free(e);
	/* TRANS2 parameters outside the message */
	const mb none = { .n = 0 };
	mb p = { .n = 0 };
	mb_u16(&p, 259);
	req_hdr(&q, 0x32, 1);
	trans2_req(&q, 3, &p, &none);
	rp_put_le16(q.b + 32 + 1 + 20, 9000);
	e = env_new();
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->st.invalid == 1 && e->n_lines == 0);
	env_free(e);
	/* a WRITE_ANDX whose data runs past the message */
	req_hdr(&q, 0x2F, 1);
	write_req(&q, 1, 0, 4, 0);
	rp_put_le16(q.b + 32 + 1 + 20, 5000);
	e = env_new();
	env_send(e, 0, &q);
	env_finish(e);
	CHECK(e, e->st.invalid == 1 && e->n_lines == 0);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_read_write_close),
		cmocka_unit_test(test_andx_chain),
		cmocka_unit_test(test_trans2),
		cmocka_unit_test(test_locking),
		cmocka_unit_test(test_path_commands_oem),
		cmocka_unit_test(test_open_andx),
		cmocka_unit_test(test_pipe_and_plumbing),
		cmocka_unit_test(test_truncated_every_byte),
		cmocka_unit_test(test_bad_andx),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
