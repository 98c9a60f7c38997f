/* SMB2/3 command bodies -> op records: CREATE, CLOSE, READ, WRITE, LOCK, QUERY_DIRECTORY, QUERY/SET_INFO, ... (MS-SMB2 2.2.13-2.2.40). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb2_cmd.h"
#include "capture/smb/smb2_int.h"

#define SMB2_HDR_LEN 64u


/* QUERY_DIRECTORY Flags, WRITE Flags, LOCK element flags. */
#define SMB2_RETURN_SINGLE_ENTRY 0x02u
#define SMB2_WRITEFLAG_WRITE_THROUGH 0x00000001u
#define SMB2_LOCKFLAG_EXCLUSIVE 0x02u
#define SMB2_LOCKFLAG_UNLOCK 0x04u
#define SMB2_LOCKFLAG_FAIL_IMMEDIATELY 0x10u

/* InfoType (MS-SMB2 2.2.37); the file information classes are RP_NT_* (MS-FSCC 2.4). */
enum { INFO_FILE = 1, INFO_FILESYSTEM = 2, INFO_SECURITY = 3, INFO_QUOTA = 4 };

/* The fixed part of a body was cut: truncated if the PDU claims the bytes, invalid otherwise. */
static void fixed_bad(smb2_x *x, size_t fixed)
{
	x->bad = x->h->wire >= SMB2_HDR_LEN + fixed ? SMB2_BAD_TRUNCATED : SMB2_BAD_INVALID;
}

static bool struct_size(smb2_x *x, rp_cur *b, uint16_t want)
{
	const uint16_t got = rp_cur_le16(b);
	if (b->err) {
		fixed_bad(x, 2);
		return false;
	}
	if (got != want) {
		x->bad = SMB2_BAD_INVALID;
		return false;
	}
	return true;
}

static bool fixed_ok(smb2_x *x, const rp_cur *b, size_t fixed)
{
	if (!b->err)
		return true;
	fixed_bad(x, fixed);
	return false;
}

static uint32_t path_id(smb2_x *x, const char *path)
{
	return path ? rp__smb_intern(x->cx, path) : 0;
}

/* ---- requests ---- */

/*
 * The name buffer of a request (after its fixed part of `fixed` bytes) as a
 * reprise path in out (SMB_PATH_MAX bytes).  False when the buffer is not in
 * the message (rp__smb2_buf has counted it) or the name is not a path (invalid).
 */
static bool req_path(smb2_x *x, uint16_t off, uint16_t len, uint32_t fixed, char *out)
{
	const uint8_t *const name = rp__smb2_buf(x, off, len, SMB2_HDR_LEN + fixed);
	if (!name)
		return false;
	if (rp__smb_path(out, name, len, true) < 0) {
		x->bad = SMB2_BAD_INVALID;
		return false;
	}
	return true;
}

static void req_create(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 57))
		return;
	rp_cur_skip(b, 1 + 1 + 4 + 8 + 8); /* SecurityFlags, oplock, impersonation, SmbCreateFlags, Reserved */
	const uint32_t access = rp_cur_le32(b);
	rp_cur_skip(b, 4 + 4); /* FileAttributes, ShareAccess */
	const uint32_t disp = rp_cur_le32(b);
	const uint32_t opts = rp_cur_le32(b);
	const uint16_t name_off = rp_cur_le16(b);
	const uint16_t name_len = rp_cur_le16(b);
	rp_cur_skip(b, 8); /* create contexts: leases, durable handles; not replayed */
	if (!fixed_ok(x, b, 56))
		return;
	char path[SMB_PATH_MAX];
	if (!req_path(x, name_off, name_len, 56, path))
		return;
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	p->path = rp__smb_strdup(path);
	p->dir = (opts & FILE_DIRECTORY_FILE) != 0;
	rp_op op = rp__smb2_op(x, RP_OP_OPEN);
	op.path = path_id(x, path);
	p->path_id = op.path;
	rp_sem_nt_open(&op, RP_PROTO_SMB2, access, true, disp, opts);
	rp__smb2_reserve(x, p, &op);
	/* related operations after this one use the FileId its response will carry */
	smb2_chain *const ch = x->ch;
	ch->fid_mode = SMB2_FID_DEP;
	ch->dep_mid = x->h->mid;
	ch->dir = p->dir;
	ch->has_path = true;
	strcpy(ch->path, path);
}

/* CLOSE, FLUSH: a FileId after `skip` bytes. */
static void req_handle_op(smb2_x *x, rp_cur *b, uint16_t size, size_t skip, unsigned opcode)
{
	if (!struct_size(x, b, size))
		return;
	rp_cur_skip(b, skip);
	const uint64_t fp = rp_cur_le64(b);
	const uint64_t fv = rp_cur_le64(b);
	if (!fixed_ok(x, b, 2 + skip + 16))
		return;
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb2_op(x, opcode);
	rp__smb2_fid(x, p, &op, fp, fv);
	rp__smb2_reserve(x, p, &op);
}

static void req_read(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 49))
		return;
	rp_cur_skip(b, 2); /* Padding, Flags */
	const uint32_t len = rp_cur_le32(b);
	const uint64_t off = rp_cur_le64(b);
	const uint64_t fp = rp_cur_le64(b);
	const uint64_t fv = rp_cur_le64(b);
	if (!fixed_ok(x, b, 32))
		return;
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb2_op(x, RP_OP_READ);
	op.offset = off;
	op.length = len;
	rp__smb2_fid(x, p, &op, fp, fv);
	rp__smb2_reserve(x, p, &op);
}

static void req_write(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 49))
		return;
	const uint16_t data_off = rp_cur_le16(b);
	const uint32_t len = rp_cur_le32(b);
	const uint64_t off = rp_cur_le64(b);
	const uint64_t fp = rp_cur_le64(b);
	const uint64_t fv = rp_cur_le64(b);
	const uint32_t channel = rp_cur_le32(b);
	rp_cur_skip(b, 4 + 2 + 2); /* RemainingBytes, WriteChannelInfoOffset/Length */
	const uint32_t flags = rp_cur_le32(b);
	if (!fixed_ok(x, b, 48))
		return;
	/* inline data must lie inside the PDU (it need not have been captured) */
	if (channel == 0 && len > 0 &&
	    (data_off < SMB2_HDR_LEN + 48 || (uint64_t)data_off + len > x->h->wire)) {
		x->bad = SMB2_BAD_INVALID;
		return;
	}
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb2_op(x, RP_OP_WRITE);
	op.offset = off;
	op.length = len;
	if (flags & SMB2_WRITEFLAG_WRITE_THROUGH)
		op.flags |= RP_OPF_STABLE;
	rp__smb2_fid(x, p, &op, fp, fv);
	rp__smb2_reserve(x, p, &op);
}

static void req_lock(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 48))
		return;
	const uint16_t count = rp_cur_le16(b);
	rp_cur_skip(b, 4); /* LockSequenceNumber/Index */
	const uint64_t fp = rp_cur_le64(b);
	const uint64_t fv = rp_cur_le64(b);
	if (!fixed_ok(x, b, 22))
		return;
	if (count == 0 || SMB2_HDR_LEN + 24 + (uint64_t)count * 24 > x->h->wire) {
		x->bad = SMB2_BAD_INVALID;
		return;
	}
	if (rp_cur_left(b) < (size_t)count * 24) {
		x->bad = SMB2_BAD_TRUNCATED;
		return;
	}
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	rp_op base = rp__smb2_op(x, RP_OP_LOCK);
	rp__smb2_fid(x, p, &base, fp, fv);
	for (uint16_t i = 0; i < count; i++) {
		rp_op op = base;
		op.offset = rp_cur_le64(b);
		op.length = rp_cur_le64(b);
		const uint32_t flags = rp_cur_le32(b);
		rp_cur_skip(b, 4);
		/* SMB byte-range locks are mandatory: they bind the I/O of other opens (MS-SMB2 3.3.5.14). */
		op.flags |= RP_OPF_MANDATORY;
		if (flags & SMB2_LOCKFLAG_UNLOCK) {
			op.op = RP_OP_UNLOCK;
		} else {
			if (flags & SMB2_LOCKFLAG_EXCLUSIVE)
				op.flags |= RP_OPF_EXCLUSIVE;
			if (!(flags & SMB2_LOCKFLAG_FAIL_IMMEDIATELY))
				op.flags |= RP_OPF_WAIT;
		}
		if (!rp__smb2_reserve(x, p, &op))
			return;
	}
}

/* FSCTL names (MS-FSCC 2.3, MS-SMB2 2.2.31) for the unsupported-by-name counter. */
static const char *fsctl_name(uint32_t code)
{
	switch (code) {
	case 0x00060194: return "FSCTL_DFS_GET_REFERRALS";
	case 0x000601B0: return "FSCTL_DFS_GET_REFERRALS_EX";
	case 0x0011400C: return "FSCTL_PIPE_PEEK";
	case 0x00110018: return "FSCTL_PIPE_WAIT";
	case 0x0011C017: return "FSCTL_PIPE_TRANSCEIVE";
	case 0x001440F2: return "FSCTL_SRV_COPYCHUNK";
	case 0x001480F2: return "FSCTL_SRV_COPYCHUNK_WRITE";
	case 0x00144064: return "FSCTL_SRV_ENUMERATE_SNAPSHOTS";
	case 0x00140078: return "FSCTL_SRV_REQUEST_RESUME_KEY";
	case 0x001441BB: return "FSCTL_SRV_READ_HASH";
	case 0x001401D4: return "FSCTL_LMR_REQUEST_RESILIENCY";
	case 0x001401FC: return "FSCTL_QUERY_NETWORK_INTERFACE_INFO";
	case 0x00140204: return "FSCTL_VALIDATE_NEGOTIATE_INFO";
	case 0x000900A4: return "FSCTL_SET_REPARSE_POINT";
	case 0x000900A8: return "FSCTL_GET_REPARSE_POINT";
	case 0x000900C4: return "FSCTL_SET_SPARSE";
	case 0x000980C8: return "FSCTL_SET_ZERO_DATA";
	case 0x000940CF: return "FSCTL_QUERY_ALLOCATED_RANGES";
	case 0x000900C0: return "FSCTL_CREATE_OR_GET_OBJECT_ID";
	case 0x00098344: return "FSCTL_DUPLICATE_EXTENTS_TO_FILE";
	default: return NULL;
	}
}

/*
 * IOCTLs are counted by FSCTL name, not mapped: the op model has no server-side
 * copy (FSCTL_SRV_COPYCHUNK), and the rest is DFS, pipe and negotiation plumbing.
 */
static void req_ioctl(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 57))
		return;
	rp_cur_skip(b, 2);
	const uint32_t code = rp_cur_le32(b);
	if (!fixed_ok(x, b, 8))
		return;
	char what[48];
	const char *const name = fsctl_name(code);
	if (name)
		snprintf(what, sizeof what, "IOCTL %s", name);
	else
		snprintf(what, sizeof what, "IOCTL 0x%08x", code);
	rp__smb2_unsupported(x, what);
	(void)rp__smb2_pending(x);
}

/* The path of the file an info request names, put on ops whose subject is a path. */
static void put_path(smb2_x *x, const smb2_pending *p, rp_op *op)
{
	if (!op->path)
		op->path = path_id(x, rp__smb2_fid_path(x, p));
}

static void req_query_directory(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 33))
		return;
	const uint8_t cls = rp_cur_u8(b);
	const uint8_t flags = rp_cur_u8(b);
	rp_cur_skip(b, 4); /* FileIndex */
	const uint64_t fp = rp_cur_le64(b);
	const uint64_t fv = rp_cur_le64(b);
	const uint16_t name_off = rp_cur_le16(b);
	const uint16_t name_len = rp_cur_le16(b);
	rp_cur_skip(b, 4); /* OutputBufferLength */
	if (!fixed_ok(x, b, 32))
		return;
	char pattern[SMB_PATH_MAX];
	if (!req_path(x, name_off, name_len, 32, pattern))
		return;
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	rp_op op = rp__smb2_op(x, RP_OP_READDIR);
	rp__smb2_fid(x, p, &op, fp, fv);
	/* path: the directory (the handle's); path2: the pattern as the client sent it (without the
	 * leading '/' the path conversion adds), so a writer can give it back unchanged */
	put_path(x, p, &op);
	op.path2 = pattern[1] ? path_id(x, pattern + 1) : 0;
	op.raw.level = cls;
	op.raw.options = flags;
	op.length = (flags & SMB2_RETURN_SINGLE_ENTRY) ? 1 : 0;
	rp__smb2_reserve(x, p, &op);
}

static void req_query_info(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 41))
		return;
	const uint8_t type = rp_cur_u8(b);
	const uint8_t cls = rp_cur_u8(b);
	rp_cur_skip(b, 4 + 2 + 2 + 4); /* OutputBufferLength, InputBufferOffset, Reserved, InputBufferLength */
	const uint32_t addl = rp_cur_le32(b);
	rp_cur_skip(b, 4); /* Flags */
	const uint64_t fp = rp_cur_le64(b);
	const uint64_t fv = rp_cur_le64(b);
	if (!fixed_ok(x, b, 40))
		return;
	unsigned opcode;
	uint32_t level = cls; /* the class; for a security descriptor the parts asked for */
	switch (type) {
	case INFO_FILE: opcode = RP_OP_STAT; break;
	case INFO_FILESYSTEM: opcode = RP_OP_STATFS; break;
	case INFO_SECURITY: opcode = RP_OP_GETXATTR; level = addl; break;
	case INFO_QUOTA:
		rp__smb2_unsupported(x, "QUERY_INFO QUOTA");
		(void)rp__smb2_pending(x);
		return;
	default: x->bad = SMB2_BAD_INVALID; return;
	}
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	p->info_type = type;
	p->info_class = cls;
	rp_op op = rp__smb2_op(x, opcode);
	rp__smb2_fid(x, p, &op, fp, fv);
	put_path(x, p, &op);
	op.raw.level = level;
	if (type == INFO_SECURITY)
		op.want = rp_sem_nt_secinfo_want(addl, false); /* no name: the security descriptor */
	if (type == INFO_FILE && p->dir)
		op.flags |= RP_OPF_DIRECTORY;
	rp__smb2_reserve(x, p, &op);
}

static void req_set_info(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 33))
		return;
	const uint8_t type = rp_cur_u8(b);
	const uint8_t cls = rp_cur_u8(b);
	const uint32_t buf_len = rp_cur_le32(b);
	const uint16_t buf_off = rp_cur_le16(b);
	rp_cur_skip(b, 2);
	const uint32_t addl = rp_cur_le32(b);
	const uint64_t fp = rp_cur_le64(b);
	const uint64_t fv = rp_cur_le64(b);
	if (!fixed_ok(x, b, 32))
		return;
	if (type == INFO_FILESYSTEM || type == INFO_QUOTA || (type != INFO_FILE && type != INFO_SECURITY)) {
		if (type != INFO_FILESYSTEM && type != INFO_QUOTA) {
			x->bad = SMB2_BAD_INVALID;
			return;
		}
		rp__smb2_unsupported(x, type == INFO_QUOTA ? "SET_INFO QUOTA" : "SET_INFO FILESYSTEM");
		(void)rp__smb2_pending(x);
		return;
	}
	const uint8_t *const buf = rp__smb2_buf(x, buf_off, buf_len, SMB2_HDR_LEN + 32);
	if (!buf)
		return;
	rp_cur info = rp_cur_make(buf, buf_len);
	rp_op op = rp__smb2_op(x, RP_OP_SETATTR);
	char newpath[SMB_PATH_MAX];
	bool rename = false;
	if (type == INFO_SECURITY) {
		op.op = RP_OP_SETXATTR;
		op.want = rp_sem_nt_secinfo_want(addl, true); /* no name: the security descriptor */
		op.raw.level = addl;
	} else if (cls == RP_NT_FileRenameInformation || cls == RP_NT_FileRenameInformationEx) {
		/* ReplaceIfExists (FILE_RENAME_REPLACE_IF_EXISTS, bit 0 of Flags in the Ex form), Reserved,
		 * RootDirectory, FileNameLength, FileName (MS-FSCC 2.4.37, 2.4.37.2) */
		const uint8_t replace = rp_cur_u8(&info);
		rp_cur_skip(&info, 7 + 8);
		const uint32_t nlen = rp_cur_le32(&info);
		const uint8_t *const name = rp_cur_take(&info, nlen);
		if (!name || rp__smb_path(newpath, name, nlen, true) < 0) {
			x->bad = SMB2_BAD_INVALID;
			return;
		}
		op.op = RP_OP_RENAME;
		rp_sem_nt_rename(&op, RP_PROTO_SMB2, cls, (replace & 1u) != 0);
		rename = true;
	} else {
		/* Disposition (delete-on-close set or clear), end of file, allocation, basic times... */
		rp_nt_setinfo v;
		if (!rp__smb_setinfo_decode(cls, &info, &v)) {
			x->bad = SMB2_BAD_INVALID;
			return;
		}
		rp_sem_nt_setinfo(&op, RP_PROTO_SMB2, cls, &v);
	}
	smb2_pending *const p = rp__smb2_pending(x);
	if (!p)
		return;
	p->info_type = type;
	p->info_class = cls;
	rp__smb2_fid(x, p, &op, fp, fv);
	put_path(x, p, &op);
	if (rename) {
		p->rename = true;
		p->path = rp__smb_strdup(newpath);
		op.path2 = path_id(x, newpath);
	}
	rp__smb2_reserve(x, p, &op);
}

void rp__smb2_request_body(smb2_x *x, rp_cur *b)
{
	switch (x->h->cmd) {
	case SMB2_TREE_CONNECT: (void)rp__smb2_pending(x); break; /* the share type comes back in the response */
	case SMB2_CREATE: req_create(x, b); break;
	case SMB2_CLOSE: req_handle_op(x, b, 24, 6, RP_OP_CLOSE); break;
	case SMB2_FLUSH: req_handle_op(x, b, 24, 6, RP_OP_FLUSH); break;
	case SMB2_READ: req_read(x, b); break;
	case SMB2_WRITE: req_write(x, b); break;
	case SMB2_LOCK: req_lock(x, b); break;
	case SMB2_IOCTL: req_ioctl(x, b); break;
	case SMB2_QUERY_DIRECTORY: req_query_directory(x, b); break;
	case SMB2_QUERY_INFO: req_query_info(x, b); break;
	case SMB2_SET_INFO: req_set_info(x, b); break;
	default: x->bad = SMB2_BAD_INVALID; break;
	}
}

/* ---- responses ---- */

/* Entries in a QUERY_DIRECTORY output buffer: a NextEntryOffset chain (MS-FSCC 2.4). */
static uint64_t count_entries(smb2_x *x, rp_cur *b)
{
	const uint16_t off = rp_cur_le16(b);
	const uint32_t len = rp_cur_le32(b);
	if (b->err) {
		fixed_bad(x, 8);
		return 0;
	}
	if (len == 0)
		return 0;
	if (off < SMB2_HDR_LEN + 8 || (uint64_t)off + len > x->h->wire) {
		x->bad = SMB2_BAD_INVALID;
		return 0;
	}
	const size_t have = off < x->h->have ? x->h->have - off : 0;
	rp_cur e = rp_cur_make(x->h->pdu + off, have < len ? have : len);
	uint64_t n = 0;
	size_t at = 0;
	for (;;) {
		rp_cur probe = e;
		rp_cur_skip(&probe, at);
		const uint32_t next = rp_cur_le32(&probe);
		if (probe.err) {
			if (have < len)
				x->bad = SMB2_BAD_TRUNCATED; /* snaplen: the rest of the listing is missing */
			else if (n == 0 || at < len)
				x->bad = SMB2_BAD_INVALID;
			return n;
		}
		n++;
		if (next == 0)
			return n;
		if (next < 4 || at + next >= len) {
			x->bad = SMB2_BAD_INVALID;
			return n;
		}
		at += next;
	}
}

static void record_tree(smb2_x *x, rp_cur *b)
{
	if (!struct_size(x, b, 16))
		return;
	const uint8_t type = rp_cur_u8(b);
	if (!fixed_ok(x, b, 3))
		return;
	rp_smb_state *const st = rp__smb_state(x->cx);
	if (!st)
		return;
	const smb_key k = { x->h->session, x->h->tree, 2 };
	smb_tree *const t = rp__smb_map_put(st->trees, &k, NULL);
	st->trees_gen++;
	if (t)
		t->pipe = type == 0x02; /* SMB2_SHARE_TYPE_PIPE */
}

void rp__smb2_response_body(smb2_x *x, smb2_pending *p, rp_cur *b)
{
	const smb2_hdr *const h = x->h;
	const uint32_t st = h->status;
	const bool body = nt_success(st) ||
			  (st == NT_STATUS_BUFFER_OVERFLOW && (h->cmd == SMB2_READ || h->cmd == SMB2_QUERY_INFO));
	if (h->cmd == SMB2_TREE_CONNECT) {
		if (body)
			record_tree(x, b);
		return;
	}
	uint64_t result = 0;
	bool has_result = false;
	smb_key key = { 0 };
	const smb_file *f = NULL;
	uint32_t open_attrs = 0;
	if (body) {
		switch (h->cmd) {
		case SMB2_CREATE: {
			if (!struct_size(x, b, 89))
				break;
			rp_cur_skip(b, 2);
			const uint32_t action = rp_cur_le32(b);
			rp_cur_skip(b, 32 + 16);
			open_attrs = rp_cur_le32(b);
			rp_cur_skip(b, 4);
			const uint64_t fp = rp_cur_le64(b);
			const uint64_t fv = rp_cur_le64(b);
			if (!fixed_ok(x, b, 80))
				break;
			key = smb2_file_key(fp, fv);
			const bool dir = p->dir || (open_attrs & FILE_ATTRIBUTE_DIRECTORY);
			/* the file takes the pending entry's copy of the path, and its string id */
			f = rp__smb_file_open_taking(x->cx, &key, &p->path, p->path, p->path_id, dir ? SMB_FILE_DIR : 0);
			rp__smb2_remember_create(x, &key);
			result = rp_sem_nt_action(action);
			has_result = true;
			break;
		}
		case SMB2_READ:  /* DataOffset, Reserved, then DataLength (MS-SMB2 2.2.20) */
		case SMB2_WRITE: /* Reserved, then Count (2.2.22): both at the same place of a 17-byte structure */
			if (!struct_size(x, b, 17))
				break;
			rp_cur_skip(b, 2);
			result = rp_cur_le32(b);
			has_result = fixed_ok(x, b, 8);
			break;
		case SMB2_QUERY_DIRECTORY:
			if (!struct_size(x, b, 9))
				break;
			result = count_entries(x, b);
			has_result = true;
			break;
		default:
			break; /* the status is all the op needs */
		}
	}
	if (h->cmd != SMB2_CREATE)
		f = rp__smb2_resolve(x, p, &key);
	if (p->fid_mode == SMB2_FID_DEP && !f && st != NT_STATUS_OK) {
		/* A related operation on the FileId of a CREATE earlier in the chain
		 * that failed: the server fails it with a cascaded status without
		 * touching the file system (MS-SMB2 3.3.5.2.7.2), so it is no
		 * operation of the workload and replaying it would only mismatch. */
		for (uint32_t i = 0; i < p->slots.n; i++)
			rp__cap_cancel(x->cx, rp__smb_slots_at(&p->slots, i));
		rp__cap_count(x->cx, RP_OUT_IGNORED, NULL);
		return;
	}
	for (uint32_t i = 0; i < p->slots.n; i++) {
		const rp_slot s = rp__smb_slots_at(&p->slots, i);
		rp_op *const op = rp__cap_slot(x->cx, s);
		if (!op)
			continue; /* timed out and already emitted as unmatched */
		rp__smb_complete(x->cx, op, x->m, st);
		if (h->cmd == SMB2_CREATE) {
			if (f)
				op->handle = f->handle;
			if (open_attrs & FILE_ATTRIBUTE_DIRECTORY)
				op->flags |= RP_OPF_DIRECTORY;
		} else if (p->fid_mode == SMB2_FID_DEP && f) {
			rp__smb_op_file(op, f);
		}
		if (has_result)
			op->result = result;
		rp__cap_done(x->cx, s);
	}
	if (st != NT_STATUS_OK || !f)
		return;
	if (h->cmd == SMB2_CLOSE)
		rp__smb_file_close(x->cx, &key);
	else if (h->cmd == SMB2_SET_INFO && p->rename && p->path)
		rp__smb_file_rename(x->cx, (smb_file *)f, p->path);
}
