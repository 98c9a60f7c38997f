/* SMB1 file commands -> op records: NT_CREATE_ANDX, OPEN_ANDX, READ/WRITE_ANDX, CLOSE, FLUSH, LOCKING_ANDX, DELETE, RENAME, directories (MS-CIFS 2.2.4). */
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb1_cmd.h"
#include "capture/smb/smb1_int.h"
#include "capture/smb/smb1_trans2.h"

#define LOCKING_ANDX_SHARED_LOCK 0x01u
#define LOCKING_ANDX_OPLOCK_RELEASE 0x02u
#define LOCKING_ANDX_CHANGE_LOCKTYPE 0x04u
#define LOCKING_ANDX_CANCEL_LOCK 0x08u
#define LOCKING_ANDX_LARGE_FILES 0x10u

static bool words_ok(smb1_x *x, const rp_cur *w)
{
	if (!w->err)
		return true;
	rp__smb1_bad(x, false); /* too few parameter words for the command */
	return false;
}

/* A name from the bytes, reporting truncation/invalidity; false when unusable. */
static bool get_name(smb1_x *x, rp_cur *c, char *out)
{
	const int n = rp__smb1_string(x, c, out, x->blk.bytes_cut);
	if (n >= 0)
		return true;
	rp__smb1_bad(x, n == -2);
	return false;
}

static uint32_t path_id(smb1_x *x, const char *path)
{
	return path ? rp__smb_intern(x->cx, path) : 0;
}

/* Remember an open at this point of a request chain: AndX commands after it use its FID. */
static void chain_open(smb1_x *x, const char *path, bool dir)
{
	x->chain_open = true;
	x->chain_dir = dir;
	strcpy(x->chain_path, path);
}

static void req_nt_create(smb1_x *x)
{
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 4 + 1); /* AndX, Reserved */
	const uint16_t name_len = rp_cur_le16(&w);
	rp_cur_skip(&w, 4); /* Flags */
	const uint32_t root = rp_cur_le32(&w);
	const uint32_t access = rp_cur_le32(&w);
	rp_cur_skip(&w, 8 + 4 + 4); /* AllocationSize, ExtFileAttributes, ShareAccess */
	const uint32_t disp = rp_cur_le32(&w);
	const uint32_t opts = rp_cur_le32(&w);
	if (!words_ok(x, &w))
		return;
	rp_cur b = x->blk.bytes;
	if (x->unicode && ((size_t)(b.p - x->hdr) & 1))
		rp_cur_skip(&b, 1);
	const uint8_t *const name = rp_cur_take(&b, name_len);
	if (!name) {
		rp__smb1_bad(x, x->blk.bytes_cut);
		return;
	}
	char rel[SMB_PATH_MAX], path[SMB_PATH_MAX];
	if (rp__smb_path(rel, name, name_len, x->unicode) < 0) {
		rp__smb1_bad(x, false);
		return;
	}
	strcpy(path, rel);
	if (root != 0) {
		/* relative to an open directory */
		const smb_key k = smb1_file_key(x->conn->id, (uint16_t)root);
		const smb_file *const d = rp__smb_file_use(x->cx, &k, "smb1");
		if (d && d->path_text && rp__smb_join(path, d->path_text, rel + 1) < 0) {
			rp__smb1_bad(x, false);
			return;
		}
	}
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	p->path = rp__smb_strdup(path);
	p->dir = (opts & FILE_DIRECTORY_FILE) != 0;
	rp_op op = rp__smb1_op(x, RP_OP_OPEN);
	op.path = path_id(x, path);
	rp_sem_nt_open(&op, RP_PROTO_SMB1, access, true, disp, opts);
	rp__smb1_reserve(x, p, &op);
	chain_open(x, path, p->dir);
}

/*
 * OPEN_ANDX speaks the older SMB_OPEN modes; they become the NT access mask and
 * create disposition so that replay has one open to perform (MS-CIFS 2.2.4.41.1).
 */
static void req_open_andx(smb1_x *x)
{
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 4 + 2); /* AndX, Flags */
	const uint16_t mode = rp_cur_le16(&w);
	rp_cur_skip(&w, 2 + 2 + 4); /* SearchAttrs, FileAttrs, CreationTime */
	const uint16_t open_fn = rp_cur_le16(&w);
	if (!words_ok(x, &w))
		return;
	rp_cur b = x->blk.bytes;
	char path[SMB_PATH_MAX];
	if (!get_name(x, &b, path))
		return;
	static const uint32_t access_of[4] = {
		0x00120089, /* read: FILE_GENERIC_READ */
		0x00120116, /* write: FILE_GENERIC_WRITE */
		0x0012019F, /* read/write */
		0x001200A0, /* execute: FILE_GENERIC_EXECUTE */
	};
	const bool create = (open_fn & 0x10) != 0;
	uint32_t disp;
	switch (open_fn & 0x03) {
	case 0: disp = create ? FILE_CREATE : FILE_OPEN; break; /* fail if exists */
	case 1: disp = create ? FILE_OPEN_IF : FILE_OPEN; break; /* open */
	default: disp = create ? FILE_OVERWRITE_IF : FILE_OVERWRITE; break; /* truncate */
	}
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	p->path = rp__smb_strdup(path);
	rp_op op = rp__smb1_op(x, RP_OP_OPEN);
	op.path = path_id(x, path);
	rp_sem_nt_open(&op, RP_PROTO_SMB1, access_of[mode & 0x3], true, disp, 0);
	rp__smb1_reserve(x, p, &op);
	chain_open(x, path, false);
}

static void req_read_andx(smb1_x *x)
{
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 4);
	const uint16_t fid = rp_cur_le16(&w);
	const uint32_t off_lo = rp_cur_le32(&w);
	const uint16_t max_lo = rp_cur_le16(&w);
	rp_cur_skip(&w, 2); /* MinCount */
	const uint32_t timeout_or_high = rp_cur_le32(&w);
	rp_cur_skip(&w, 2); /* Remaining */
	const uint32_t off_hi = x->blk.wc >= 12 ? rp_cur_le32(&w) : 0;
	if (!words_ok(x, &w))
		return;
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb1_op(x, RP_OP_READ);
	op.offset = (uint64_t)off_hi << 32 | off_lo;
	/* MS-SMB 2.2.4.2.1: with large reads the Timeout field carries MaxCountHigh */
	const uint32_t high = timeout_or_high != UINT32_MAX && timeout_or_high <= 0xFFFF ? timeout_or_high : 0;
	op.length = (uint64_t)high << 16 | max_lo;
	rp__smb1_fid(x, p, &op, fid);
	rp__smb1_reserve(x, p, &op);
}

static void req_write_andx(smb1_x *x)
{
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 4);
	const uint16_t fid = rp_cur_le16(&w);
	const uint32_t off_lo = rp_cur_le32(&w);
	rp_cur_skip(&w, 4); /* Timeout */
	const uint16_t mode = rp_cur_le16(&w);
	rp_cur_skip(&w, 2); /* Remaining */
	const uint16_t len_hi = rp_cur_le16(&w);
	const uint16_t len_lo = rp_cur_le16(&w);
	const uint16_t data_off = rp_cur_le16(&w);
	const uint32_t off_hi = x->blk.wc >= 14 ? rp_cur_le32(&w) : 0;
	if (!words_ok(x, &w))
		return;
	const uint32_t len = (uint32_t)len_hi << 16 | len_lo;
	if (len > 0 && (data_off < x->blk.pos + 3u || (uint64_t)data_off + len > x->wire)) {
		rp__smb1_bad(x, false); /* the data must lie inside the message */
		return;
	}
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb1_op(x, RP_OP_WRITE);
	op.offset = (uint64_t)off_hi << 32 | off_lo;
	op.length = len;
	if (mode & 0x0001) /* WritethroughMode */
		op.flags |= RP_OPF_STABLE;
	rp__smb1_fid(x, p, &op, fid);
	rp__smb1_reserve(x, p, &op);
}

static void req_fid_op(smb1_x *x, unsigned opcode)
{
	rp_cur w = x->blk.words;
	const uint16_t fid = rp_cur_le16(&w);
	if (!words_ok(x, &w))
		return;
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb1_op(x, opcode);
	if (opcode == RP_OP_FLUSH && fid == 0xFFFF)
		p->fid_mode = SMB1_FID_NONE; /* flush every file of the process */
	else
		rp__smb1_fid(x, p, &op, fid);
	rp__smb1_reserve(x, p, &op);
}

static void req_locking(smb1_x *x)
{
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 4);
	const uint16_t fid = rp_cur_le16(&w);
	const uint8_t type = rp_cur_u8(&w);
	rp_cur_skip(&w, 1); /* NewOpLockLevel */
	const uint32_t timeout = rp_cur_le32(&w); /* 0: fail at once on a conflict; else wait (ms, or forever) */
	const uint16_t n_unlock = rp_cur_le16(&w);
	const uint16_t n_lock = rp_cur_le16(&w);
	if (!words_ok(x, &w))
		return;
	if ((type & LOCKING_ANDX_OPLOCK_RELEASE) && n_unlock == 0 && n_lock == 0) {
		/* an oplock break (from the server) or its acknowledgement: cache protocol, no reply */
		rp__smb1_unsupported(x, "LOCKING_ANDX oplock break");
		return;
	}
	if (type & (LOCKING_ANDX_CANCEL_LOCK | LOCKING_ANDX_CHANGE_LOCKTYPE)) {
		rp__smb1_unsupported(x, "LOCKING_ANDX cancel/change");
		(void)rp__smb1_pending(x);
		return;
	}
	const bool large = (type & LOCKING_ANDX_LARGE_FILES) != 0;
	const size_t each = large ? 20 : 10;
	rp_cur b = x->blk.bytes;
	if (rp_cur_left(&b) < each * ((size_t)n_unlock + n_lock)) {
		rp__smb1_bad(x, x->blk.bytes_cut);
		return;
	}
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	rp_op base = rp__smb1_op(x, RP_OP_LOCK);
	rp__smb1_fid(x, p, &base, fid);
	for (uint32_t i = 0; i < (uint32_t)n_unlock + n_lock; i++) {
		rp_op op = base;
		rp_cur_skip(&b, 2); /* PID */
		if (large) {
			rp_cur_skip(&b, 2);
			const uint64_t off_hi = rp_cur_le32(&b);
			op.offset = off_hi << 32 | rp_cur_le32(&b);
			const uint64_t len_hi = rp_cur_le32(&b);
			op.length = len_hi << 32 | rp_cur_le32(&b);
		} else {
			op.offset = rp_cur_le32(&b);
			op.length = rp_cur_le32(&b);
		}
		/* SMB byte-range locks are mandatory: they bind the I/O of other opens (MS-CIFS 3.3.5.28). */
		op.flags |= RP_OPF_MANDATORY;
		if (i < n_unlock) {
			op.op = RP_OP_UNLOCK;
		} else {
			if (!(type & LOCKING_ANDX_SHARED_LOCK))
				op.flags |= RP_OPF_EXCLUSIVE;
			if (timeout != 0)
				op.flags |= RP_OPF_WAIT;
		}
		if (!rp__smb1_reserve(x, p, &op))
			return;
	}
}

/* DELETE, CREATE_DIRECTORY, DELETE_DIRECTORY: BufferFormat 0x04 then a name. */
static void req_path_op(smb1_x *x, unsigned opcode)
{
	rp_cur b = x->blk.bytes;
	const uint8_t fmt = rp_cur_u8(&b);
	if (b.err || fmt != 0x04) {
		rp__smb1_bad(x, b.err && x->blk.bytes_cut);
		return;
	}
	char path[SMB_PATH_MAX];
	if (!get_name(x, &b, path))
		return;
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb1_op(x, opcode);
	op.path = path_id(x, path);
	rp__smb1_reserve(x, p, &op);
}

static void req_rename(smb1_x *x)
{
	rp_cur b = x->blk.bytes;
	char from[SMB_PATH_MAX], to[SMB_PATH_MAX];
	if (rp_cur_u8(&b) != 0x04 || b.err) {
		rp__smb1_bad(x, b.err && x->blk.bytes_cut);
		return;
	}
	if (!get_name(x, &b, from))
		return;
	if (rp_cur_u8(&b) != 0x04 || b.err) {
		rp__smb1_bad(x, b.err && x->blk.bytes_cut);
		return;
	}
	if (!get_name(x, &b, to))
		return;
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb1_op(x, RP_OP_RENAME);
	op.path = path_id(x, from);
	op.path2 = path_id(x, to);
	rp_sem_nt_rename(&op, RP_PROTO_SMB1, 0, false); /* SMB_COM_RENAME never replaces (MS-CIFS 2.2.4.8) */
	rp__smb1_reserve(x, p, &op);
}

static bool plumbing(uint8_t cmd)
{
	switch (cmd) {
	case SMB1_NEGOTIATE:
	case SMB1_SESSION_SETUP_ANDX:
	case SMB1_LOGOFF_ANDX:
	case SMB1_TREE_CONNECT_ANDX:
	case SMB1_TREE_DISCONNECT:
	case SMB1_ECHO:
	case SMB1_NT_CANCEL:
	case SMB1_FIND_CLOSE2: /* ends a search: nothing to replay */
		return true;
	default:
		return false;
	}
}

static bool mapped(uint8_t cmd)
{
	switch (cmd) {
	case SMB1_NT_CREATE_ANDX:
	case SMB1_OPEN_ANDX:
	case SMB1_READ_ANDX:
	case SMB1_WRITE_ANDX:
	case SMB1_CLOSE:
	case SMB1_FLUSH:
	case SMB1_LOCKING_ANDX:
	case SMB1_DELETE:
	case SMB1_RENAME:
	case SMB1_CREATE_DIRECTORY:
	case SMB1_DELETE_DIRECTORY:
	case SMB1_TRANSACTION2:
		return true;
	default:
		return false;
	}
}

static void unsupported_cmd(smb1_x *x, const char *suffix)
{
	const char *const name = rp__smb1_cmd_name(x->blk.cmd);
	char what[40];
	if (name)
		snprintf(what, sizeof what, "%s%s", name, suffix);
	else
		snprintf(what, sizeof what, "command 0x%02x%s", x->blk.cmd, suffix);
	rp__smb1_unsupported(x, what);
}

void rp__smb1_request(smb1_x *x)
{
	const uint8_t cmd = x->blk.cmd;
	if (plumbing(cmd))
		return;
	if (!mapped(cmd)) {
		unsupported_cmd(x, "");
		return;
	}
	if (rp__smb1_is_pipe(x)) {
		unsupported_cmd(x, " on a named pipe"); /* DCE/RPC plumbing, not file I/O */
		(void)rp__smb1_pending(x);
		return;
	}
	switch (cmd) {
	case SMB1_NT_CREATE_ANDX: req_nt_create(x); break;
	case SMB1_OPEN_ANDX: req_open_andx(x); break;
	case SMB1_READ_ANDX: req_read_andx(x); break;
	case SMB1_WRITE_ANDX: req_write_andx(x); break;
	case SMB1_CLOSE: req_fid_op(x, RP_OP_CLOSE); break;
	case SMB1_FLUSH: req_fid_op(x, RP_OP_FLUSH); break;
	case SMB1_LOCKING_ANDX: req_locking(x); break;
	case SMB1_DELETE: req_path_op(x, RP_OP_UNLINK); break;
	case SMB1_CREATE_DIRECTORY: req_path_op(x, RP_OP_MKDIR); break;
	case SMB1_DELETE_DIRECTORY: req_path_op(x, RP_OP_RMDIR); break;
	case SMB1_RENAME: req_rename(x); break;
	case SMB1_TRANSACTION2: rp__smb1_trans2_request(x); break;
	default: break;
	}
	if (x->bad != SMB1_BAD_NONE && x->sc->pending1) {
		/* keep the response from counting as unmatched */
		const smb_key k = { (uint64_t)x->pid << 16 | x->mid, (uint64_t)x->uid << 16 | x->tid, x->idx };
		if (!rp__smb_map_get(x->sc->pending1, &k))
			(void)rp__smb1_pending(x);
	} else if (x->bad != SMB1_BAD_NONE) {
		(void)rp__smb1_pending(x);
	}
}

/* ---- responses ---- */

static void record_tree(smb1_x *x)
{
	/* the Service string in the bytes: "IPC" for a named-pipe tree (MS-CIFS 2.2.4.55.2) */
	rp_cur b = x->blk.bytes;
	const uint8_t *const s = rp_cur_take(&b, 4);
	rp_smb_state *const st = rp__smb_state(x->cx);
	if (!st)
		return;
	const smb_key k = { x->conn->id, (uint64_t)x->uid << 16 | x->tid, 3 };
	smb_tree *const t = rp__smb_map_put(st->trees, &k, NULL);
	st->trees_gen++;
	if (t)
		t->pipe = s && memcmp(s, "IPC\0", 4) == 0;
}

/* The open a response reports: FID, action and whether it is a directory. */
static bool open_result(smb1_x *x, uint16_t *fid, uint32_t *action, bool *dir)
{
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 4);
	if (x->blk.cmd == SMB1_NT_CREATE_ANDX) {
		rp_cur_skip(&w, 1);
		*fid = rp_cur_le16(&w);
		*action = rp_cur_le32(&w);
		rp_cur_skip(&w, 32);
		*dir = (rp_cur_le32(&w) & FILE_ATTRIBUTE_DIRECTORY) != 0;
		rp_cur_skip(&w, 8 + 8 + 2 + 2);
		*dir = (rp_cur_u8(&w) != 0) || *dir;
	} else {
		*fid = rp_cur_le16(&w);
		*dir = (rp_cur_le16(&w) & FILE_ATTRIBUTE_DIRECTORY) != 0;
		rp_cur_skip(&w, 4 + 4 + 2 + 2 + 2);
		*action = rp_cur_le16(&w) & 0x3; /* 1 opened, 2 created, 3 truncated */
	}
	return words_ok(x, &w);
}

void rp__smb1_response(smb1_x *x)
{
	const uint8_t cmd = x->blk.cmd;
	if (cmd == SMB1_TREE_CONNECT_ANDX) {
		if (x->status == NT_STATUS_OK)
			record_tree(x);
		return;
	}
	if (plumbing(cmd) || !mapped(cmd))
		return; /* counted at the request, or nothing to match */
	if (cmd == SMB1_TRANSACTION2 && rp__smb1_trans2_continued(x))
		return; /* a later part of a multi-part reply: the first one completed the op */
	const smb_key k = { (uint64_t)x->pid << 16 | x->mid, (uint64_t)x->uid << 16 | x->tid, x->idx };
	smb1_pending *const p = x->sc->pending1 ? rp__smb_map_get(x->sc->pending1, &k) : NULL;
	if (!p || p->cmd != cmd) {
		rp__cap_count(x->cx, RP_OUT_UNMATCHED, NULL);
		return;
	}
	const bool ok = x->status == NT_STATUS_OK;
	uint64_t result = 0;
	bool has_result = false;
	const smb_file *f = NULL;
	smb_key fk = { 0 };
	bool dir = false;
	if (p->slots.n > 0 && (cmd == SMB1_NT_CREATE_ANDX || cmd == SMB1_OPEN_ANDX) && ok && x->blk.wc > 0) {
		uint16_t fid;
		uint32_t action;
		if (open_result(x, &fid, &action, &dir)) {
			fk = smb1_file_key(x->conn->id, fid);
			f = rp__smb_file_open(x->cx, &fk, p->path, (dir || p->dir) ? SMB_FILE_DIR : 0);
			x->have_chain_fid = true;
			x->chain_fid = fid;
			result = rp_sem_nt_action(action);
			has_result = true;
		}
	} else if (p->slots.n > 0) {
		if (p->fid_mode == SMB1_FID_KNOWN || (p->fid_mode == SMB1_FID_DEP && x->have_chain_fid)) {
			fk = smb1_file_key(x->conn->id, p->fid_mode == SMB1_FID_KNOWN ? p->fid : x->chain_fid);
			f = rp__smb_file_get(x->cx, &fk);
		}
		rp_cur w = x->blk.words;
		if (ok && cmd == SMB1_READ_ANDX && x->blk.wc >= 12) {
			rp_cur_skip(&w, 4 + 2 + 2 + 2);
			const uint16_t lo = rp_cur_le16(&w);
			rp_cur_skip(&w, 2);
			const uint16_t hi = rp_cur_le16(&w);
			result = (uint32_t)hi << 16 | lo;
			has_result = words_ok(x, &w);
		} else if (ok && cmd == SMB1_WRITE_ANDX && x->blk.wc >= 6) {
			rp_cur_skip(&w, 4);
			const uint16_t lo = rp_cur_le16(&w);
			rp_cur_skip(&w, 2);
			const uint16_t hi = rp_cur_le16(&w);
			result = (uint32_t)hi << 16 | lo;
			has_result = words_ok(x, &w);
		} else if (cmd == SMB1_TRANSACTION2) {
			has_result = rp__smb1_trans2_response(x, p, &result);
		}
	}
	for (uint32_t i = 0; i < p->slots.n; i++) {
		const rp_slot s = rp__smb_slots_at(&p->slots, i);
		rp_op *const op = rp__cap_slot(x->cx, s);
		if (!op)
			continue;
		rp__smb_complete(x->cx, op, x->m, x->status);
		if (cmd == SMB1_NT_CREATE_ANDX || cmd == SMB1_OPEN_ANDX) {
			if (f)
				op->handle = f->handle;
			if (dir)
				op->flags |= RP_OPF_DIRECTORY;
		} else if (p->fid_mode == SMB1_FID_DEP && f) {
			rp__smb_op_file(op, f);
		}
		if (has_result)
			op->result = result;
		rp__cap_done(x->cx, s);
	}
	if (ok && f && cmd == SMB1_CLOSE)
		rp__smb_file_close(x->cx, &fk);
	else if (ok && f && p->rename && p->path)
		rp__smb_file_rename(x->cx, (smb_file *)f, p->path);
	rp__smb_map_del(x->sc->pending1, &k);
}
