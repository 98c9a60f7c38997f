/* Internals of the SMB1 decoder shared by smb1.c (headers, AndX chains, matching), smb1_cmd.c (commands) and smb1_trans2.c, defined in smb1_util.c (MS-CIFS). */
#ifndef REPRISE_CAPTURE_SMB1_INT_H
#define REPRISE_CAPTURE_SMB1_INT_H

#include "capture/smb/smb_int.h"

enum smb1_cmd {
	SMB1_CREATE_DIRECTORY = 0x00,
	SMB1_DELETE_DIRECTORY = 0x01,
	SMB1_CLOSE = 0x04,
	SMB1_FLUSH = 0x05,
	SMB1_DELETE = 0x06,
	SMB1_RENAME = 0x07,
	SMB1_LOCKING_ANDX = 0x24,
	SMB1_TRANSACTION = 0x25,
	SMB1_ECHO = 0x2B,
	SMB1_OPEN_ANDX = 0x2D,
	SMB1_READ_ANDX = 0x2E,
	SMB1_WRITE_ANDX = 0x2F,
	SMB1_TRANSACTION2 = 0x32,
	SMB1_FIND_CLOSE2 = 0x34,
	SMB1_TREE_DISCONNECT = 0x71,
	SMB1_NEGOTIATE = 0x72,
	SMB1_SESSION_SETUP_ANDX = 0x73,
	SMB1_LOGOFF_ANDX = 0x74,
	SMB1_TREE_CONNECT_ANDX = 0x75,
	SMB1_NT_TRANSACT = 0xA0,
	SMB1_NT_CREATE_ANDX = 0xA2,
	SMB1_NT_CANCEL = 0xA4,
};

#define SMB1_FLAGS_REPLY 0x80u
#define SMB1_FLAGS2_NT_STATUS 0x4000u
#define SMB1_FLAGS2_UNICODE 0x8000u

enum smb1_fid_mode { SMB1_FID_NONE = 0, SMB1_FID_KNOWN = 1, SMB1_FID_DEP = 2 };

/* A request waiting for its response, keyed (PID, MID, UID, TID, index in the AndX chain). */
typedef struct smb1_pending {
	uint64_t t_req;
	smb_slots slots;
	uint8_t cmd;
	uint8_t fid_mode; /* smb1_fid_mode */
	bool dir;
	bool rename;      /* a rename to `path` */
	uint16_t fid;
	uint16_t sub;     /* TRANS2 subcommand */
	char *path;       /* opens: the path; FIND_FIRST2: the pattern; renames: the new path */
} smb1_pending;

/* One command block of a message. */
typedef struct smb1_block {
	uint8_t cmd;
	uint8_t wc;
	uint16_t bc;
	size_t pos;    /* offset of WordCount from the header */
	rp_cur words;  /* 2 * wc bytes */
	rp_cur bytes;  /* the bytes present of bc */
	bool bytes_cut; /* fewer than bc bytes were captured */
} smb1_block;

enum smb1_bad { SMB1_BAD_NONE = 0, SMB1_BAD_INVALID, SMB1_BAD_TRUNCATED };

typedef struct smb1_x {
	rp_capctx *cx;
	rp_conn *conn;
	smb_conn *sc;
	const rp_msg *m;
	const uint8_t *hdr; /* the SMB header: offsets count from here */
	size_t have, wire;
	uint8_t flags;
	uint16_t flags2, tid, uid, mid;
	uint32_t pid;
	uint32_t status; /* NTSTATUS (DOS errors translated) */
	bool unicode;
	unsigned idx; /* index in the AndX chain */
	smb1_block blk;
	/* request chain: an open earlier in it; its FID is used by what follows */
	bool chain_open;
	bool chain_dir;
	/* response chain: the FID that open returned */
	bool have_chain_fid;
	uint16_t chain_fid;
	uint8_t bad; /* smb1_bad */
	char chain_path[SMB_PATH_MAX];
} smb1_x;

/* The pending-map key of the block x is at: (PID, MID), (UID, TID), index in the AndX chain. */
static inline smb_key smb1_pending_key(const smb1_x *x)
{
	return (smb_key){ (uint64_t)x->pid << 16 | x->mid, (uint64_t)x->uid << 16 | x->tid, x->idx };
}

const char *rp__smb1_cmd_name(uint8_t cmd);
void rp__smb1_unsupported(smb1_x *x, const char *what);
void rp__smb1_bad(smb1_x *x, bool truncated);
smb1_pending *rp__smb1_pending(smb1_x *x);
bool rp__smb1_reserve(smb1_x *x, smb1_pending *p, const rp_op *op);
rp_op rp__smb1_op(smb1_x *x, unsigned opcode);
void rp__smb1_fid(smb1_x *x, smb1_pending *p, rp_op *op, uint16_t fid);
const char *rp__smb1_fid_path(smb1_x *x, const smb1_pending *p);
bool rp__smb1_is_pipe(smb1_x *x);
/*
 * A NUL-terminated SMB_STRING at the cursor (Unicode per FLAGS2, aligned) as a
 * reprise path in out; its length, -1 when invalid, -2 when cut short (cut:
 * the buffer holds fewer bytes than the message claims).
 */
int rp__smb1_string(smb1_x *x, rp_cur *c, char *out, bool cut);
/* Remember a search's pattern (pattern != NULL) or look it up (NULL). */
const char *rp__smb1_search(smb1_x *x, uint16_t sid, const char *pattern);


#endif
