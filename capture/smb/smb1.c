/* SMB1 (CIFS) messages and AndX chains -> op records, dispatched to the commands (smb1_cmd.c) (MS-CIFS 2.2.3, 2.2.4, 2.2.6). */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb1_cmd.h"
#include "capture/smb/smb1_int.h"
#include "capture/smb/smb_dialect.h"

#define SMB1_HDR_LEN 32u
/* AndX chains longer than this are not something a client sends: treat as corrupt */
#define SMB1_CHAIN_MAX 16u

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
		const smb_key k = smb1_pending_key(x);
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
