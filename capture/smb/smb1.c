/* SMB1 (CIFS) messages and AndX chains -> op records for the common file commands (MS-CIFS 2.2.3, 2.2.4, 2.2.6). */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb1_int.h"

#define SMB1_HDR_LEN 32u
/* AndX chains longer than this are not something a client sends: treat as corrupt */
#define SMB1_CHAIN_MAX 16u

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

static smb_key pending_key(const smb1_x *x)
{
	return (smb_key){ (uint64_t)x->pid << 16 | x->mid, (uint64_t)x->uid << 16 | x->tid, x->idx };
}

smb1_pending *rp__smb1_pending(smb1_x *x)
{
	if (!x->sc->pending1 && !(x->sc->pending1 = rp__smb_map_create(sizeof(smb1_pending), pending_free)))
		return NULL;
	const smb_key k = pending_key(x);
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

/* MS-CIFS 2.2.2.4: the common DOS error classes/codes as NTSTATUS. */
static uint32_t dos_to_nt(uint8_t cls, uint16_t code)
{
	if (cls == 0)
		return NT_STATUS_OK;
	if (cls == 0x01) {
		switch (code) {
		case 1: return 0xC0000002;  /* ERRbadfunc: STATUS_NOT_IMPLEMENTED */
		case 2: return 0xC0000034;  /* ERRbadfile: STATUS_OBJECT_NAME_NOT_FOUND */
		case 3: return 0xC000003A;  /* ERRbadpath: STATUS_OBJECT_PATH_NOT_FOUND */
		case 4: return 0xC000011F;  /* ERRnofids: STATUS_TOO_MANY_OPENED_FILES */
		case 5: return 0xC0000022;  /* ERRnoaccess: STATUS_ACCESS_DENIED */
		case 6: return 0xC0000008;  /* ERRbadfid: STATUS_INVALID_HANDLE */
		case 8: return 0xC0000017;  /* ERRnomem: STATUS_NO_MEMORY */
		case 18: return NT_STATUS_NO_MORE_FILES; /* ERRnofiles */
		case 32: return 0xC0000043; /* ERRbadshare: STATUS_SHARING_VIOLATION */
		case 33: return 0xC0000054; /* ERRlock: STATUS_FILE_LOCK_CONFLICT */
		case 80: return 0xC0000035; /* ERRfilexists: STATUS_OBJECT_NAME_COLLISION */
		case 145: return 0xC0000101; /* ERRdirnotempty: STATUS_DIRECTORY_NOT_EMPTY */
		case 158: return 0xC000007E; /* ERRnotlocked: STATUS_RANGE_NOT_LOCKED */
		default: break;
		}
	}
	return NT_STATUS_UNSUCCESSFUL;
}

/* Read one command block (WordCount, words, ByteCount, bytes) at pos. */
static bool parse_block(smb1_x *x, size_t pos, uint8_t cmd)
{
	smb1_block *const b = &x->blk;
	memset(b, 0, sizeof *b);
	b->cmd = cmd;
	b->pos = pos;
	rp_cur c = rp_cur_make(x->hdr + pos, x->have > pos ? x->have - pos : 0);
	b->wc = rp_cur_u8(&c);
	b->words = rp_cur_sub(&c, 2u * b->wc);
	b->bc = rp_cur_le16(&c);
	if (c.err) {
		x->bad = pos + 3u + 2u * b->wc <= x->wire ? SMB1_BAD_TRUNCATED : SMB1_BAD_INVALID;
		return false;
	}
	const size_t left = rp_cur_left(&c);
	b->bytes = rp_cur_make(c.p, left < b->bc ? left : b->bc);
	b->bytes_cut = left < b->bc;
	return true;
}

/* A handler reads words/bytes of the block; these report a short or bad block. */
void rp__smb1_bad(smb1_x *x, bool truncated)
{
	if (x->bad == SMB1_BAD_NONE)
		x->bad = truncated ? SMB1_BAD_TRUNCATED : SMB1_BAD_INVALID;
}

static void count_bad(smb1_x *x)
{
	if (x->bad != SMB1_BAD_NONE)
		rp__cap_count(x->cx, x->bad == SMB1_BAD_INVALID ? RP_OUT_INVALID : RP_OUT_TRUNCATED, NULL);
}

static bool is_andx(uint8_t cmd)
{
	switch (cmd) {
	case SMB1_LOCKING_ANDX:
	case SMB1_OPEN_ANDX:
	case SMB1_READ_ANDX:
	case SMB1_WRITE_ANDX:
	case SMB1_SESSION_SETUP_ANDX:
	case SMB1_LOGOFF_ANDX:
	case SMB1_TREE_CONNECT_ANDX:
	case SMB1_NT_CREATE_ANDX:
		return true;
	default:
		return false;
	}
}

/* The next AndX block, or false at the end of the chain. */
static bool next_andx(smb1_x *x, uint8_t *cmd, size_t *pos)
{
	if (!is_andx(x->blk.cmd) || x->blk.wc < 2)
		return false;
	rp_cur w = x->blk.words;
	const uint8_t next = rp_cur_u8(&w);
	rp_cur_skip(&w, 1);
	const uint16_t off = rp_cur_le16(&w);
	if (next == 0xFF)
		return false;
	/* the next block must start after this one's words and inside the message */
	if (off < x->blk.pos + 3u + 2u * x->blk.wc || off >= x->wire) {
		rp__smb1_bad(x, false);
		return false;
	}
	if (off >= x->have) {
		rp__smb1_bad(x, true);
		return false;
	}
	*cmd = next;
	*pos = off;
	return true;
}

/* Complete the ops of chain entries the response did not reach: the server stopped at an error. */
static void complete_rest(smb1_x *x, unsigned from)
{
	for (unsigned i = from; i < SMB1_CHAIN_MAX && x->sc->pending1; i++) {
		x->idx = i;
		const smb_key k = pending_key(x);
		smb1_pending *const p = rp__smb_map_get(x->sc->pending1, &k);
		if (!p)
			break;
		for (uint32_t j = 0; j < p->slots.n; j++) {
			const rp_slot s = rp__smb_slots_at(&p->slots, j);
			rp_op *const op = rp__cap_slot(x->cx, s);
			if (!op)
				continue;
			rp__smb_complete(x->cx, op, x->m, x->status != NT_STATUS_OK ? x->status : NT_STATUS_UNSUCCESSFUL);
			rp__cap_done(x->cx, s);
		}
		rp__smb_map_del(x->sc->pending1, &k);
	}
}


void rp__smb1_message(rp_capctx *cx, rp_conn *conn, smb_conn *sc, const rp_msg *m)
{
	smb1_x *const x = calloc(1, sizeof *x);
	if (!x)
		return;
	x->cx = cx;
	x->conn = conn;
	x->sc = sc;
	x->m = m;
	x->hdr = m->data;
	x->have = m->len;
	x->wire = m->wire_len > m->len ? m->wire_len : m->len;
	rp_cur c = rp_cur_make(m->data, m->len);
	rp_cur_skip(&c, 4);
	uint8_t cmd = rp_cur_u8(&c);
	const uint32_t raw_status = rp_cur_le32(&c);
	x->flags = rp_cur_u8(&c);
	x->flags2 = rp_cur_le16(&c);
	const uint16_t pid_high = rp_cur_le16(&c);
	rp_cur_skip(&c, 8 + 2); /* SecurityFeatures, Reserved */
	x->tid = rp_cur_le16(&c);
	const uint16_t pid_low = rp_cur_le16(&c);
	x->uid = rp_cur_le16(&c);
	x->mid = rp_cur_le16(&c);
	if (c.err) {
		rp__cap_count(cx, x->wire >= SMB1_HDR_LEN ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		free(x);
		return;
	}
	x->pid = (uint32_t)pid_high << 16 | pid_low;
	x->unicode = (x->flags2 & SMB1_FLAGS2_UNICODE) != 0;
	x->status = (x->flags2 & SMB1_FLAGS2_NT_STATUS) ? raw_status
							: dos_to_nt((uint8_t)raw_status, (uint16_t)(raw_status >> 16));
	const bool reply = (x->flags & SMB1_FLAGS_REPLY) != 0;
	rp__cap_count(cx, RP_OUT_MESSAGE, NULL);

	size_t pos = SMB1_HDR_LEN;
	unsigned i = 0;
	for (; i < SMB1_CHAIN_MAX; i++) {
		x->idx = i;
		if (!parse_block(x, pos, cmd))
			break;
		if (reply)
			rp__smb1_response(x);
		else
			rp__smb1_request(x);
		if (!next_andx(x, &cmd, &pos)) {
			i++;
			break;
		}
	}
	if (i == SMB1_CHAIN_MAX)
		rp__smb1_bad(x, false);
	count_bad(x);
	if (reply && x->status != NT_STATUS_OK)
		complete_rest(x, i);
	free(x);
	rp__smb_sweep(cx, sc->pending1, offsetof(smb1_pending, t_req), &sc->sweep_at);
}
