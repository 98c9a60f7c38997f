/* IPv4 and IPv6 (extension headers, fragment reassembly): from an IP header to a TCP or UDP packet. */
#ifndef REPRISE_CAPTURE_IP_H
#define REPRISE_CAPTURE_IP_H

#include <stdint.h>

#include "capture/decode.h"

/* A transport-layer packet found in an IP datagram (reassembled or not). */
typedef struct rp_l4pkt {
	rp_addr src, dst;
	uint8_t proto;       /* IPPROTO_TCP or IPPROTO_UDP */
	const uint8_t *data; /* the TCP/UDP header and payload that were captured */
	uint32_t len;        /* captured bytes at data */
	uint32_t wire_len;   /* bytes the IP header says the L4 part has (>= len) */
	uint64_t ts_ns;      /* of the packet, or of the first fragment seen */
	uint64_t frame;
} rp_l4pkt;

typedef enum rp_ip_res {
	RP_IP_L4 = 0,       /* *out is a TCP or UDP packet */
	RP_IP_HELD = 1,     /* a fragment was stored; its datagram is not whole yet */
	RP_IP_OTHER = 2,    /* another protocol (ICMP, ESP, ...): not ours */
	RP_IP_TRUNCATED = 3,/* the IP header or a fragment was cut short by the snaplen */
	RP_IP_INVALID = 4,  /* breaks IP's rules (bad lengths, conflicting fragments) */
} rp_ip_res;

/*
 * Reassembly bounds.  A datagram whose fragments do not all arrive within
 * timeout_ns (capture time) is dropped; so are the oldest ones when more than
 * max_datagrams are open or their buffers pass max_bytes.
 */
typedef struct rp_ipfrag_limits {
	uint64_t timeout_ns;    /* 0 = 30 s, Linux's ipfrag_time */
	uint32_t max_datagrams; /* 0 = 1024 */
	uint32_t max_bytes;     /* 0 = 32 MiB */
} rp_ipfrag_limits;

typedef struct rp_ipfrag rp_ipfrag;

rp_ipfrag *rp__ipfrag_create(const rp_ipfrag_limits *lim);
void rp__ipfrag_destroy(rp_ipfrag *f); /* NULL is a no-op */
/* Drop datagrams older than the timeout (rp__ip_parse does this too). */
void rp__ipfrag_expire(rp_ipfrag *f, uint64_t now_ns);
/* Datagrams dropped unfinished (timeout, bounds, conflicts) since the last call. */
uint32_t rp__ipfrag_take_dropped(rp_ipfrag *f);
/* Datagrams still waiting for fragments. */
uint32_t rp__ipfrag_pending(const rp_ipfrag *f);

/*
 * Parse an IP packet of version ipver.  A fragment is stored; the one that
 * completes its datagram returns RP_IP_L4 with out->data pointing into f,
 * valid until the next call.  f may be NULL: fragments are then RP_IP_OTHER.
 * Overlapping fragments keep the bytes that came first (a passive observer
 * cannot know which copy the host kept; the first is what most stacks keep).
 */
rp_ip_res rp__ip_parse(rp_ipfrag *f, uint8_t ipver, const uint8_t *pkt, uint32_t caplen, uint64_t ts_ns,
		       uint64_t frame, rp_l4pkt *out);

#endif
