/* Internal interface between the layers of capture/ (net/ -> rpc/, smb/ -> capctx). */
#ifndef REPRISE_CAPTURE_DECODE_H
#define REPRISE_CAPTURE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "formats/cursor.h"
#include "formats/op.h"
#include "formats/status.h"

/*
 * The layers:
 *   pcapfile.c/live.c -> link.c -> ip.c (v4/v6, fragments) -> tcp.c (reassembly) / udp
 *     -> framing (RPC record marks, NetBIOS session headers, resync) -> one message
 *     -> rpc.c (-> mount.c, nfs3.c, nfs4.c)  or  smb.c (-> smb2.c, smb1.c)
 *     -> capctx.c (client ids, strings, ordered emission, outcome counters) -> sink
 * Decoders take memory buffers only, read them through rp_cur, and never print.
 */

typedef struct rp_capctx rp_capctx;

/* An IPv4 (family 4, a[0..3]) or IPv6 (family 6) address. */
typedef struct rp_addr {
	uint8_t family;
	uint8_t a[16];
} rp_addr;

typedef enum rp_l4 { RP_L4_TCP = 6, RP_L4_UDP = 17 } rp_l4;

/*
 * A connection (TCP) or a UDP address/port pair.  Endpoint 0 is whichever side
 * the transport saw first; protocol decoders work out roles per message (an
 * RPC CALL comes from the client; SMB2's SERVER_TO_REDIR flag marks replies).
 */
typedef struct rp_conn {
	uint64_t id; /* unique within one capture */
	rp_addr addr[2];
	uint16_t port[2];
	uint8_t l4; /* rp_l4 */
	void *proto_state; /* owned by the decoder bound to this conn; freed through proto_free */
	void (*proto_free)(void *proto_state);
} rp_conn;

/* One whole application message: an RPC record (fragments joined), a UDP RPC
 * datagram, or one NetBIOS session message payload (SMB1, an SMB2 chain or an
 * SMB3 transform). */
typedef struct rp_msg {
	const uint8_t *data;
	size_t len;      /* bytes present in data */
	size_t wire_len; /* bytes the message claims; > len when truncated */
	uint64_t ts_ns;  /* Unix ns of the packet that began the message */
	uint64_t frame;  /* 1-based frame number of that packet */
	uint8_t from;    /* 0 or 1: the sending endpoint in conn->addr/port */
	bool truncated;  /* bytes are missing (snaplen or a TCP gap); data holds the prefix */
} rp_msg;

/* Protocol entry points called by the framing layer. */
int rp__rpc_message(rp_capctx *cx, rp_conn *conn, const rp_msg *m);
int rp__smb_message(rp_capctx *cx, rp_conn *conn, const rp_msg *m);

/* ---- capctx: what every decoder uses to emit ops ---- */

/* Lifetime (capture.c): one capctx per decode, writing into sink and stats. */
rp_capctx *rp__capctx_create(rp_sink *sink, const rp_capture_opts *opts, rp_capture_stats *stats);
/* Call before each frame's layers run: sets "now", counts the frame, emits what timed out. */
void rp__capctx_frame(rp_capctx *cx, uint64_t ts_ns, uint32_t caplen);
/* Emit everything still pending (as unmatched where unanswered) and finish the sink. */
int rp__capctx_finish(rp_capctx *cx);
/* The first sink error, if any (0 otherwise); its detail. Decoders carry on regardless. */
int rp__capctx_error(const rp_capctx *cx, const char **detail);
void rp__capctx_destroy(rp_capctx *cx); /* NULL is a no-op */
/* The conn's frame number currently being decoded (1-based). */
uint64_t rp__cap_frame(const rp_capctx *cx);

/* Outcome counters (see rp_capture_stats). */
typedef enum rp_outcome {
	RP_OUT_TRUNCATED,
	RP_OUT_INVALID,
	RP_OUT_UNSUPPORTED, /* give a name: "SMB2 IOCTL", "NFSv4 GETDEVICEINFO" */
	RP_OUT_UNMATCHED,
	RP_OUT_ENCRYPTED,
	RP_OUT_GAP,
	RP_OUT_IGNORED,
	RP_OUT_MESSAGE, /* a message decoded */
	RP_OUT_DECRYPTED,      /* an SMB3 transform message decrypted (its content is then decoded and counted) */
	RP_OUT_DECRYPT_FAILED, /* an SMB3 transform message whose key did not verify */
} rp_outcome;

void rp__cap_count(rp_capctx *cx, rp_outcome what, const char *name);

/* rp_op_set_status, remembering the last few answers: replies repeat the same few codes. */
void rp__cap_set_status(rp_capctx *cx, rp_op *op, rp_status_kind kind, uint32_t code);

/* ns since the first packet of the capture. */
uint64_t rp__cap_time(rp_capctx *cx, uint64_t ts_ns);

/*
 * The client id (>= 1) for an address plus a principal (NFS AUTH_SYS uid,
 * SMB SessionId; 0 if none) on a connection, grouped per the capture's
 * rp_client_key.
 */
uint32_t rp__cap_client(rp_capctx *cx, const rp_conn *conn, uint8_t client_end, uint64_t principal);

/* Intern a path and return its string id (>= 1), or 0 after an error (recorded in cx). */
uint32_t rp__cap_path(rp_capctx *cx, const char *s, size_t len);

/*
 * Ordered emission.  A decoder reserves a slot when it sees a call, in call
 * order, with the op as far as the call tells it (status unknown, flag
 * RP_OPF_NO_REPLY).  On the reply it looks the slot up again and completes
 * the op (status, t_end, handle, result; clearing RP_OPF_NO_REPLY).  Ops
 * reach the sink in slot order once their slot is done; a slot whose reply
 * does not come within the match timeout is emitted as it is and counted as
 * unmatched.  rp__cap_slot returns NULL once a slot has left.
 */
typedef uint64_t rp_slot;
#define RP_SLOT_NONE UINT64_MAX
rp_slot rp__cap_reserve(rp_capctx *cx, const rp_op *op);
rp_op *rp__cap_slot(rp_capctx *cx, rp_slot slot);
void rp__cap_done(rp_capctx *cx, rp_slot slot);   /* the op is complete */
void rp__cap_cancel(rp_capctx *cx, rp_slot slot); /* drop it: it must not become an op */
/* Emit an op that needs no reply matching, at its place in time order. */
void rp__cap_emit(rp_capctx *cx, const rp_op *op);

/*
 * Per-capture state of a protocol (the NFS handle map, SMB session tables),
 * created on first use with create() and freed with destroy() at the end.
 * key tells states apart (use the address of a static in your file).
 */
void *rp__cap_state(rp_capctx *cx, const void *key, void *(*create)(void), void (*destroy)(void *));

/* Capture-time "now" (ns since start) of the packet being decoded. */
uint64_t rp__cap_now(const rp_capctx *cx);
const rp_capture_opts *rp__cap_opts(const rp_capctx *cx);

/*
 * Stable synthetic path for a handle whose name was never seen, so its I/O
 * still replays: "/.reprise/<proto>/<hex of a 64-bit hash of the handle>".
 * Writes into buf (>= 64 bytes) and returns the length.
 */
size_t rp__cap_synth_path(char *buf, size_t size, const char *proto, const uint8_t *fh, size_t fh_len);

#endif
