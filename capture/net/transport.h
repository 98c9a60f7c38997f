/* The transport half of capture/pcap: frames -> link -> IP -> flows (TCP reassembly, UDP) -> framed messages. */
#ifndef REPRISE_CAPTURE_TRANSPORT_H
#define REPRISE_CAPTURE_TRANSPORT_H

#include <stdint.h>

#include "capture/capture.h"
#include "capture/decode.h"
#include "capture/net/framing.h"

/*
 * Bounds on live state.  Idle flows expire (capture time): a TCP flow after
 * FIN or RST once `closed_linger_ns` passed, an open one after
 * `tcp_idle_ns`, a UDP one after `udp_idle_ns`; when `max_flows` are live
 * the least recently used closed, then UDP, then open flow is evicted.
 * Zero means the default.
 */
typedef struct rp_transport_limits {
	uint32_t max_flows;        /* 65536 */
	uint64_t tcp_idle_ns;      /* 1 h: an idle mount or SMB session keeps its state */
	uint64_t udp_idle_ns;      /* 120 s */
	uint64_t closed_linger_ns; /* 2 s: late retransmissions and ACKs after FIN/RST */
	uint32_t tcp_window;       /* 4 MiB: see rp_tcp_ctx */
	uint64_t tcp_max_queued;   /* 256 MiB */
	uint64_t tcp_hole_timeout_ns; /* 10 s */
	uint64_t max_buffered;     /* 512 MiB of partial messages, all flows */
	uint64_t frag_timeout_ns;  /* 30 s */
	uint32_t frag_max_datagrams; /* 1024 */
	uint32_t frag_max_bytes;   /* 32 MiB */
} rp_transport_limits;

typedef struct rp_transport rp_transport;

/*
 * hooks receive every whole message and outcome count; stats receives the
 * counters only the transport knows (flows_evicted, segments_dropped,
 * frags_dropped); it may be NULL.
 */
int rp__transport_create(rp_transport **out, const rp_transport_hooks *hooks, const rp_transport_limits *lim,
			 rp_capture_stats *stats);
/* One captured frame of link type dlt. */
void rp__transport_packet(rp_transport *t, int dlt, uint64_t ts_ns, const uint8_t *data, uint32_t caplen,
			  uint32_t wirelen);
/* End of input: flush every flow (held segments, partial messages) and free it. */
void rp__transport_finish(rp_transport *t);
/* Flows currently held. */
uint32_t rp__transport_flows(const rp_transport *t);
void rp__transport_destroy(rp_transport *t); /* NULL is a no-op; frees flows without flushing */

#endif
