/* TCP reassembly: one direction of a connection -> an ordered byte stream with explicit gaps. */
#ifndef REPRISE_CAPTURE_TCP_H
#define REPRISE_CAPTURE_TCP_H

#include <stdbool.h>
#include <stdint.h>

enum { RP_TCP_FIN = 0x01, RP_TCP_SYN = 0x02, RP_TCP_RST = 0x04, RP_TCP_ACK = 0x10 };

/* One segment as the wire had it: captured payload may be shorter than on the wire (snaplen). */
typedef struct rp_tcp_seginfo {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	const uint8_t *data;
	uint32_t len;      /* captured payload bytes */
	uint32_t wire_len; /* payload bytes on the wire (>= len) */
	uint64_t ts_ns, frame;
} rp_tcp_seginfo;

/* Parse a TCP header; 0, or -1 if the header is cut short, -2 if it is invalid. Checksums are never verified. */
int rp__tcp_header(const uint8_t *p, uint32_t len, uint32_t wire_len, uint64_t ts_ns, uint64_t frame,
		   rp_tcp_seginfo *out);

typedef struct rp_tcp_seg rp_tcp_seg;

/* One direction's reassembly state; zero-initialised means "nothing seen yet". */
typedef struct rp_tcp_dir {
	uint32_t next;    /* next byte expected (valid once synced) */
	uint32_t fin_seq; /* sequence number of the FIN (valid once fin) */
	bool synced;      /* next is known */
	bool syn;         /* the SYN was seen: the stream starts at a message boundary */
	bool fin;         /* a FIN was seen */
	bool done;        /* every byte up to the FIN was delivered */
	rp_tcp_seg *ooo;  /* out-of-order segments, sorted by sequence */
	uint32_t ooo_bytes; /* memory the queue holds, headers included (as t->queued) */
	uint64_t hole_since_ns; /* when the oldest hole opened */
	uint8_t far;      /* segments in a row that landed beyond the window */
} rp_tcp_dir;

/* Where the ordered stream goes.  A gap stands for n bytes that never came. */
typedef struct rp_tcp_out {
	void *ctx;
	void (*data)(void *ctx, uint8_t dir, const uint8_t *p, uint32_t n, uint64_t ts_ns, uint64_t frame);
	void (*gap)(void *ctx, uint8_t dir, uint32_t n, uint64_t ts_ns, uint64_t frame);
} rp_tcp_out;

/*
 * Bounds shared by every connection of one decode.  A segment starting more
 * than `window` bytes past the next expected byte is dropped and counted
 * (RP_TCP_FAR_RESYNC of them in a row mean the stream jumped: everything up
 * to the last one is declared lost and the stream goes on from there); when
 * the segments a direction holds cost more than `window` bytes of memory, or
 * all directions' together more than `max_queued` (headers and allocator
 * overhead counted, not only payload), or a hole stays open for
 * `hole_timeout_ns`, the hole is declared a gap and the stream moves on.
 */
#define RP_TCP_FAR_RESYNC 4

typedef struct rp_tcp_ctx {
	uint32_t window;          /* 0 = 4 MiB */
	uint64_t max_queued;      /* 0 = 256 MiB */
	uint64_t hole_timeout_ns; /* 0 = 10 s */
	uint64_t queued;          /* memory held by out-of-order segments, all connections (<= max_queued) */
	uint64_t dropped;         /* segments dropped beyond the window */
	uint64_t queue_full;      /* holes given up because the held segments reached window or max_queued */
	rp_tcp_out out;
} rp_tcp_ctx;

typedef enum rp_tcp_res {
	RP_TCP_OK = 0,
	RP_TCP_RESET = 1,   /* RST: the connection is over */
	RP_TCP_NEWCONN = 2, /* a SYN that starts a new connection on the same ports */
} rp_tcp_res;

/* Feed one segment travelling in direction d of a connection whose two directions are dirs. */
rp_tcp_res rp__tcp_segment(rp_tcp_ctx *t, rp_tcp_dir dirs[2], uint8_t d, const rp_tcp_seginfo *s);
/* Give up on every hole in direction d: deliver what is queued, with gaps between. */
void rp__tcp_flush(rp_tcp_ctx *t, rp_tcp_dir *dir, uint8_t d, uint64_t ts_ns, uint64_t frame);
/* Free the queue of one direction (without delivering it). */
void rp__tcp_free(rp_tcp_ctx *t, rp_tcp_dir *dir);

#endif
