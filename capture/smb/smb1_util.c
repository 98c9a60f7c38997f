/* Helpers of the SMB1 decoder below its dispatcher (smb1.c) and its commands (smb1_cmd.c, smb1_trans2.c): command names, pending requests, FIDs, strings, searches (MS-CIFS). */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb1_int.h"

static void pending_free(void *v)
{
	smb1_pending *const p = v;
	rp__smb_slots_free(&p->slots);
	free(p->path);
}

static void search_free(void *v)
{
	char **const s = v;
	free(*s);
}

static const struct {
	uint8_t cmd;
	const char *name;
} names[] = {
	{ 0x00, "CREATE_DIRECTORY" }, { 0x01, "DELETE_DIRECTORY" }, { 0x02, "OPEN" }, { 0x03, "CREATE" },
	{ 0x04, "CLOSE" }, { 0x05, "FLUSH" }, { 0x06, "DELETE" }, { 0x07, "RENAME" },
	{ 0x08, "QUERY_INFORMATION" }, { 0x09, "SET_INFORMATION" }, { 0x0A, "READ" }, { 0x0B, "WRITE" },
	{ 0x0C, "LOCK_BYTE_RANGE" }, { 0x0D, "UNLOCK_BYTE_RANGE" }, { 0x0E, "CREATE_TEMPORARY" },
	{ 0x0F, "CREATE_NEW" }, { 0x10, "CHECK_DIRECTORY" }, { 0x11, "PROCESS_EXIT" }, { 0x12, "SEEK" },
	{ 0x13, "LOCK_AND_READ" }, { 0x14, "WRITE_AND_UNLOCK" }, { 0x1A, "READ_RAW" }, { 0x1D, "WRITE_RAW" },
	{ 0x22, "SET_INFORMATION2" }, { 0x23, "QUERY_INFORMATION2" }, { 0x24, "LOCKING_ANDX" },
	{ 0x25, "TRANSACTION" }, { 0x26, "TRANSACTION_SECONDARY" }, { 0x27, "IOCTL" }, { 0x2B, "ECHO" },
	{ 0x2D, "OPEN_ANDX" }, { 0x2E, "READ_ANDX" }, { 0x2F, "WRITE_ANDX" }, { 0x32, "TRANSACTION2" },
	{ 0x33, "TRANSACTION2_SECONDARY" }, { 0x34, "FIND_CLOSE2" }, { 0x70, "TREE_CONNECT" },
	{ 0x71, "TREE_DISCONNECT" }, { 0x72, "NEGOTIATE" }, { 0x73, "SESSION_SETUP_ANDX" },
	{ 0x74, "LOGOFF_ANDX" }, { 0x75, "TREE_CONNECT_ANDX" }, { 0x80, "QUERY_INFORMATION_DISK" },
	{ 0x81, "SEARCH" }, { 0x82, "FIND" }, { 0x84, "FIND_CLOSE" }, { 0xA0, "NT_TRANSACT" },
	{ 0xA1, "NT_TRANSACT_SECONDARY" }, { 0xA2, "NT_CREATE_ANDX" }, { 0xA4, "NT_CANCEL" },
	{ 0xA5, "NT_RENAME" }, { 0xC0, "OPEN_PRINT_FILE" },
};

const char *rp__smb1_cmd_name(uint8_t cmd)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].cmd == cmd)
			return names[i].name;
	return NULL;
}

void rp__smb1_unsupported(smb1_x *x, const char *what)
{
	char name[48];
	snprintf(name, sizeof name, "SMB1 %s", what);
	rp__cap_count(x->cx, RP_OUT_UNSUPPORTED, name);
}

smb1_pending *rp__smb1_pending(smb1_x *x)
{
	if (!x->sc->pending1 && !(x->sc->pending1 = rp__smb_map_create(sizeof(smb1_pending), pending_free)))
		return NULL;
	const smb_key k = smb1_pending_key(x);
	bool fresh;
	smb1_pending *const p = rp__smb_map_put(x->sc->pending1, &k, &fresh);
	if (!p)
		return NULL;
	if (!fresh) {
		pending_free(p); /* a MID reused before its reply: the first call lost its reply */
		memset(p, 0, sizeof *p);
	}
	p->t_req = rp__cap_now(x->cx);
	p->cmd = x->blk.cmd;
	return p;
}

bool rp__smb1_reserve(smb1_x *x, smb1_pending *p, const rp_op *op)
{
	const rp_slot s = rp__cap_reserve(x->cx, op);
	if (rp__smb_slots_add(&p->slots, s))
		return true;
	rp__cap_cancel(x->cx, s);
	return false;
}

rp_op rp__smb1_op(smb1_x *x, unsigned opcode)
{
	return rp__smb_op(x->cx, x->conn, x->m, x->uid, RP_PROTO_SMB1, opcode);
}

/* A FID on the wire, or (after an open earlier in the same AndX chain) the FID that open returns. */
void rp__smb1_fid(smb1_x *x, smb1_pending *p, rp_op *op, uint16_t fid)
{
	if (x->chain_open) {
		p->fid_mode = SMB1_FID_DEP;
		p->dir = x->chain_dir;
		return;
	}
	p->fid_mode = SMB1_FID_KNOWN;
	p->fid = fid;
	const smb_key k = smb1_file_key(x->conn->id, fid);
	const smb_file *const f = rp__smb_file_use(x->cx, &k, "smb1");
	rp__smb_op_file(op, f);
	if (f)
		p->dir = (f->flags & SMB_FILE_DIR) != 0;
}

const char *rp__smb1_fid_path(smb1_x *x, const smb1_pending *p)
{
	if (p->fid_mode == SMB1_FID_DEP)
		return x->chain_path[0] ? x->chain_path : NULL;
	if (p->fid_mode != SMB1_FID_KNOWN)
		return NULL;
	const smb_key k = smb1_file_key(x->conn->id, p->fid);
	const smb_file *const f = rp__smb_file_get(x->cx, &k);
	return f ? f->path_text : NULL;
}

bool rp__smb1_is_pipe(smb1_x *x)
{
	const rp_smb_state *const st = rp__smb_state(x->cx);
	if (!st)
		return false;
	const smb_key k = { x->conn->id, (uint64_t)x->uid << 16 | x->tid, 3 };
	const smb_tree *const t = rp__smb_map_get(st->trees, &k);
	return t && t->pipe;
}

int rp__smb1_string(smb1_x *x, rp_cur *c, char *out, bool cut)
{
	if (x->unicode && ((size_t)(c->p - x->hdr) & 1))
		rp_cur_skip(c, 1); /* Unicode strings are 2-byte aligned from the start of the SMB header */
	if (c->err)
		return cut ? -2 : -1;
	const uint8_t *const start = c->p;
	const size_t unit = x->unicode ? 2 : 1;
	size_t n = 0;
	bool terminated = false;
	while (rp_cur_left(c) >= unit) {
		const uint16_t ch = x->unicode ? rp_cur_le16(c) : rp_cur_u8(c);
		if (ch == 0) {
			terminated = true;
			break;
		}
		n += unit;
	}
	if (!terminated) {
		if (cut)
			return -2; /* the rest of the name was not captured */
		c->p = c->end; /* a name that ends the buffer without a NUL */
	}
	return rp__smb_path(out, start, n, x->unicode);
}

static void set_search(smb1_x *x, uint16_t sid, const char *pattern)
{
	if (!x->sc->search1 && !(x->sc->search1 = rp__smb_map_create(sizeof(char *), search_free)))
		return;
	const smb_key k = { (uint64_t)x->uid << 16 | x->tid, sid, 0 };
	char **const v = rp__smb_map_put(x->sc->search1, &k, NULL);
	if (!v)
		return;
	free(*v);
	const size_t n = strlen(pattern) + 1;
	*v = malloc(n);
	if (*v)
		memcpy(*v, pattern, n);
}

const char *rp__smb1_search(smb1_x *x, uint16_t sid, const char *pattern)
{
	if (pattern) {
		set_search(x, sid, pattern);
		return pattern;
	}
	const smb_key k = { (uint64_t)x->uid << 16 | x->tid, sid, 0 };
	char *const *const v = rp__smb_map_get(x->sc->search1, &k);
	return v ? *v : NULL;
}

/* A handler reads words/bytes of the block; these report a short or bad block. */
void rp__smb1_bad(smb1_x *x, bool truncated)
{
	if (x->bad == SMB1_BAD_NONE)
		x->bad = truncated ? SMB1_BAD_TRUNCATED : SMB1_BAD_INVALID;
}
