/* A trace's summary: op mix, clients, duration, bytes, files, I/O sizes, recorded latencies (`reprise stat`). */
#ifndef REPRISE_FORMATS_SUMMARY_H
#define REPRISE_FORMATS_SUMMARY_H

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
 * How a packet capture decoded (its outcome counters: capture/'s
 * rp_capture_stats, copied by the caller, since formats/ sees no capture/),
 * shown by `reprise stat` for pcap input.
 */
typedef struct rp_summary_decode {
	uint64_t frames, messages, truncated, invalid, unsupported, unmatched, encrypted, gaps;
} rp_summary_decode;
void rp_summary_set_decode(rp_summary *s, const rp_summary_decode *d);

/* Print as a table, or as JSON (schema in docs/stat-json.md). */
void rp_summary_print(const rp_summary *s, const rp_trace_meta *meta, FILE *f);
void rp_summary_print_json(const rp_summary *s, const rp_trace_meta *meta, FILE *f);

uint64_t rp_summary_ops(const rp_summary *s);
uint64_t rp_summary_count(const rp_summary *s, unsigned op);

#endif
