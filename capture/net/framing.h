/* Application framing: ONC RPC record marking (RFC 5531 §11) and NetBIOS session messages (RFC 1002 §4.3). */
#ifndef REPRISE_CAPTURE_FRAMING_H
#define REPRISE_CAPTURE_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/decode.h"

/* What a connection carries, decided by content. */
typedef enum rp_app {
	RP_APP_NONE = 0,   /* not known yet */
	RP_APP_RPC = 1,    /* ONC RPC: record marking on TCP, one message per UDP datagram */
	RP_APP_SMB = 2,    /* NetBIOS session service carrying SMB1/SMB2/SMB3 */
	RP_APP_IGNORED = 3 /* neither: its bytes are dropped unseen */
} rp_app;

/* Where messages and outcome counts go (capture.c: the protocol decoders and capctx; tests: their own). */
typedef struct rp_transport_hooks {
	void *user;
	void (*message)(void *user, rp_conn *conn, rp_app app, const rp_msg *m);
	void (*count)(void *user, rp_outcome what, const char *name);
} rp_transport_hooks;

/* A record mark over 16 MiB is corruption, not data (NFS transfers are at most a few MiB). */
#define RP_FRAME_MAX_MSG (16u << 20)
/*
 * A connection that starts mid-stream is scanned for a message header; after
 * this many bytes without one (in both directions together) it is ignored.
 */
#define RP_FRAME_DETECT_BUDGET (2u << 20)
/* UDP: datagrams of an unknown flow looked at before it is ignored. */
#define RP_FRAME_UDP_TRIES 8

/* One direction of a connection's framing. */
typedef struct rp_frame_dir {
	uint8_t *buf;       /* stream bytes not consumed yet, starting at a boundary unless resync */
	size_t len, cap;
	size_t want;        /* do not parse again before len reaches this */
	uint64_t ts_ns, frame; /* of the segment that brought buf[0] */
	uint64_t skip;      /* bytes still to discard before the next boundary */
	bool resync;        /* not at a message boundary: scan for a header */
	bool skip_frags;    /* RPC: discard fragments up to and including the last one of a record */
	bool seen;          /* some byte came in this direction */
	/* RPC: progress of the record walk in buf, so a long record is not re-walked per segment. */
	size_t walk_off;    /* offset of the next fragment mark */
	size_t walk_body;   /* record body bytes in the fragments walked */
	uint32_t walk_frags;
} rp_frame_dir;

typedef struct rp_frame_conn {
	rp_conn *conn;
	uint8_t app;      /* rp_app */
	uint8_t udp_tries;
	uint32_t budget;  /* detection scan bytes left */
	rp_frame_dir dir[2];
} rp_frame_conn;

typedef struct rp_framer {
	rp_transport_hooks hooks;
	uint8_t *join;    /* scratch for multi-fragment RPC records */
	size_t join_cap;
	uint64_t buffered;     /* bytes held in every rp_frame_dir */
	uint64_t max_buffered; /* 0 = 512 MiB; beyond it new bytes are treated as lost */
} rp_framer;

/* Start a connection (both directions not at a known boundary until told). */
void rp__frame_init(rp_frame_conn *fc, rp_conn *conn);
/* Direction d begins at a message boundary (its SYN was seen before any byte). */
void rp__frame_boundary(rp_frame_conn *fc, uint8_t d);
/* In-order stream bytes of direction d. */
void rp__frame_data(rp_framer *f, rp_frame_conn *fc, uint8_t d, const uint8_t *p, size_t n, uint64_t ts_ns,
		    uint64_t frame);
/* n bytes of direction d are missing. */
void rp__frame_gap(rp_framer *f, rp_frame_conn *fc, uint8_t d, uint64_t n, uint64_t ts_ns, uint64_t frame);
/* Direction d is over: a message cut short is delivered as truncated. */
void rp__frame_end(rp_framer *f, rp_frame_conn *fc, uint8_t d);
/* One UDP datagram (wire_len > n when the snaplen cut it). */
void rp__frame_datagram(rp_framer *f, rp_frame_conn *fc, uint8_t d, const uint8_t *p, size_t n, size_t wire_len,
			uint64_t ts_ns, uint64_t frame);
/* Release buffers (not the conn). */
void rp__frame_free(rp_framer *f, rp_frame_conn *fc);
void rp__framer_fini(rp_framer *f);

/* Content tests, exposed for the tests: 1 yes, 0 no, -1 need more bytes. */
int rp__frame_looks_rpc(const uint8_t *p, size_t n, bool marked);
int rp__frame_looks_smb(const uint8_t *p, size_t n);

#endif
