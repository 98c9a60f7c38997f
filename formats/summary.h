/* A trace's summary: op mix, clients, duration, bytes, files, I/O sizes, recorded latencies (`reprise stat`). */
#ifndef REPRISE_FORMATS_SUMMARY_H
#define REPRISE_FORMATS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/op.h"
#include "formats/sink.h"

#define RP_SIZE_BUCKETS 41 /* 0, 1, 2-3, 4-7, ..., up to 2^39 and above */

typedef struct rp_summary rp_summary;

rp_summary *rp_summary_create(void);
void rp_summary_destroy(rp_summary *s); /* NULL is a no-op */
/* Account one op (string ids as in the trace being read). */
int rp_summary_add(rp_summary *s, const rp_op *op);
/*
 * The kind an op counts as in an op mix (the summary's, the timeline's, stat
 * --diff's): its own, except that an open that must create a directory
 * (SMB's CREATE with FILE_DIRECTORY_FILE and FILE_CREATE, how SMB clients
 * make one) is a mkdir, as NFS's MKDIR and mkdir(2) are.  The record stays
 * an open, and its recorded latency is an open's (the CREATE's).
 */
unsigned rp_summary_kind(const rp_op *op);
/*
 * How a packet capture decoded (its outcome counters: capture/'s
 * rp_capture_stats, copied by the caller, since formats/ sees no capture/),
 * shown by `reprise stat` for pcap input.
 */
typedef struct rp_summary_decode {
	uint64_t frames, messages, truncated, invalid, unsupported, unmatched, encrypted, gaps;
} rp_summary_decode;
void rp_summary_set_decode(rp_summary *s, const rp_summary_decode *d);

/* A size bucket's lower bound: exact below 1 KiB, else in binary units ("4 KiB"; buckets start at powers of two). */
const char *rp_summary_bucket_name(char *buf, size_t cap, uint64_t low);

/* Print as a table.  The JSON (docs/stat-json.md) is written by results/stat_json.c from the view below. */
void rp_summary_print(const rp_summary *s, const rp_trace_meta *meta, FILE *f);
/* n bytes as the summary writes them: "512 B", "4.00 KiB", "1.5 MiB" ...; returns buf. */
const char *rp_summary_bytes_text(char *buf, size_t cap, uint64_t n);

/* What the summary counted, for writers outside formats/; the arrays live as long as s. */
typedef struct rp_summary_view {
	uint64_t ops, clients, files, bytes_read, bytes_written, no_reply;
	double duration_s;          /* first op start to last op end (sleeps excluded); 0 when empty */
	const uint64_t *count;      /* [RP_OP__COUNT]: ops by kind, deletes done by a close included */
	const uint64_t *failed;     /* [RP_OP__COUNT]: recorded status an error */
	const uint64_t *at_close;   /* [RP_OP__COUNT]: unlink/rmdir done by a close (delete-on-close) */
	const uint64_t *read_sizes, *write_sizes; /* [RP_SIZE_BUCKETS]: requested lengths */
	const rp_summary_decode *decode; /* a packet capture's decode counters; NULL for other input */
} rp_summary_view;

/*
 * Inter-arrival: the gaps between successive op starts (sleeps excluded), of
 * one client or of the whole trace; an op starting before the latest start
 * seen is a gap of 0.  Quantiles as the latency's (within 1/16, the maximum
 * exact); all zero with count 0 when there were fewer than two ops.
 */
typedef struct rp_summary_gaps {
	uint64_t count; /* gaps: the ops after the first */
	double mean_ns, p50_ns, p99_ns, max_ns;
} rp_summary_gaps;
void rp_summary_interarrival(const rp_summary *s, rp_summary_gaps *g);

/* One client's ops and bytes, and the gaps between its op starts. */
typedef struct rp_summary_client {
	uint32_t client;
	uint64_t ops, bytes_read, bytes_written;
	rp_summary_gaps arrivals;
} rp_summary_client;
/* Every client, by id (*out malloc'd, the caller frees it); 0 and NULL when none or out of memory. */
size_t rp_summary_clients(const rp_summary *s, rp_summary_client **out);

/* The recorded latency (reply minus call) of one op type, when any reply was seen. */
typedef struct rp_summary_latency_view {
	uint64_t count;
	double min_ns, avg_ns, max_ns, p99_ns;
} rp_summary_latency_view;
bool rp_summary_latency(const rp_summary *s, unsigned op, rp_summary_latency_view *l);

/* Unix time in ns as "2026-12-01 09:10:00.123456789 UTC" (ISO 8601 with 'T' and 'Z' when iso). */
const char *rp_summary_utc_time(char *buf, size_t cap, int64_t ns, bool iso);
void rp_summary_get(const rp_summary *s, rp_summary_view *v);
/* The smallest length size bucket b holds: 0, 1, 2, 4, ... */
uint64_t rp_summary_size_min(unsigned b);

uint64_t rp_summary_ops(const rp_summary *s);
uint64_t rp_summary_count(const rp_summary *s, unsigned op);

#endif
