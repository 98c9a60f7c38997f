/* Internals of the SMB2/3 decoder shared by smb2.c (chains, matching) and smb2_cmd.c (command bodies), defined in smb2_util.c (MS-SMB2). */
#ifndef REPRISE_CAPTURE_SMB2_INT_H
#define REPRISE_CAPTURE_SMB2_INT_H

#include "capture/smb/smb_int.h"

enum smb2_cmd {
	SMB2_NEGOTIATE = 0x00,
	SMB2_SESSION_SETUP = 0x01,
	SMB2_LOGOFF = 0x02,
	SMB2_TREE_CONNECT = 0x03,
	SMB2_TREE_DISCONNECT = 0x04,
	SMB2_CREATE = 0x05,
	SMB2_CLOSE = 0x06,
	SMB2_FLUSH = 0x07,
	SMB2_READ = 0x08,
	SMB2_WRITE = 0x09,
	SMB2_LOCK = 0x0A,
	SMB2_IOCTL = 0x0B,
	SMB2_CANCEL = 0x0C,
	SMB2_ECHO = 0x0D,
	SMB2_QUERY_DIRECTORY = 0x0E,
	SMB2_CHANGE_NOTIFY = 0x0F,
	SMB2_QUERY_INFO = 0x10,
	SMB2_SET_INFO = 0x11,
	SMB2_OPLOCK_BREAK = 0x12,
	SMB2_SERVER_TO_CLIENT_NOTIFICATION = 0x13,
};

enum smb2_flags {
	SMB2_FLAGS_SERVER_TO_REDIR = 0x00000001,
	SMB2_FLAGS_ASYNC = 0x00000002,
	SMB2_FLAGS_RELATED = 0x00000004,
};

/* One header of a chain and where its PDU lies. */
typedef struct smb2_hdr {
	uint16_t cmd, credit_charge;
	uint32_t status, flags, next, tree;
	uint64_t mid, async_id, session;
	const uint8_t *pdu; /* this header's first byte: buffer offsets count from here */
	size_t have;        /* bytes of the PDU present */
	size_t wire;        /* bytes the PDU claims (NextCommand, or the rest of the message) */
} smb2_hdr;

enum smb2_fid_mode {
	SMB2_FID_NONE = 0,
	SMB2_FID_KNOWN = 1, /* a FileId on the wire (or inherited from one) */
	SMB2_FID_DEP = 2,   /* the FileId a CREATE earlier in the chain will return */
};

/* What a request chain has told so far, for related operations. */
typedef struct smb2_chain {
	uint64_t session;
	uint32_t tree;
	uint8_t fid_mode;
	bool dir;
	bool has_path;
	smb_key fid;
	uint64_t dep_mid;
	char path[SMB_PATH_MAX];
} smb2_chain;

/* A request waiting for its response (keyed by MessageId on its connection). */
typedef struct smb2_pending {
	uint64_t t_req;   /* capture ns, for the sweep */
	smb_slots slots;  /* ops to complete; none for plumbing and unsupported requests */
	uint16_t cmd;
	uint8_t fid_mode; /* smb2_fid_mode */
	bool dir;         /* the file is a directory */
	bool rename;      /* SET_INFO: a rename to `path` */
	bool pipe;        /* TREE_CONNECT: IPC$ */
	uint8_t info_type, info_class;
	uint64_t dep_mid;
	smb_key fid;
	uint64_t session;
	uint32_t tree;
	char *path; /* CREATE: the path opened; SET_INFO rename: the new path */
	uint32_t path_id; /* CREATE: path's string id */
} smb2_pending;

enum smb2_bad { SMB2_BAD_NONE = 0, SMB2_BAD_INVALID, SMB2_BAD_TRUNCATED };

/* Everything one PDU's decoding needs. */
typedef struct smb2_x {
	rp_capctx *cx;
	rp_conn *conn;
	smb_conn *sc;
	const rp_msg *m;
	const smb2_hdr *h;
	smb2_chain *ch;
	uint64_t session; /* after related-operation inheritance */
	uint32_t tree;
	uint8_t bad; /* smb2_bad: set by the body decoders */
} smb2_x;

const char *rp__smb2_cmd_name(uint16_t cmd);
void rp__smb2_unsupported(smb2_x *x, const char *what);
/* A buffer at off/len from the PDU's header, at or after min_off; NULL (and x->bad) if outside. */
const uint8_t *rp__smb2_buf(smb2_x *x, uint32_t off, uint32_t len, uint32_t min_off);
/* A fresh pending entry for this PDU's MessageId (NULL when out of memory). */
smb2_pending *rp__smb2_pending(smb2_x *x);
bool rp__smb2_reserve(smb2_x *x, smb2_pending *p, const rp_op *op);
rp_op rp__smb2_op(smb2_x *x, unsigned opcode);
void rp__smb2_fid(smb2_x *x, smb2_pending *p, rp_op *op, uint64_t persistent, uint64_t volatile_id);
const char *rp__smb2_fid_path(smb2_x *x, const smb2_pending *p);
const smb_file *rp__smb2_resolve(smb2_x *x, const smb2_pending *p, smb_key *key);
void rp__smb2_remember_create(smb2_x *x, const smb_key *fid);


#endif
