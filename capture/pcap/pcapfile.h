/* Reading pcap and pcapng files into an rp_capture (classic pcap by the block reader, the rest by libpcap). */
#ifndef REPRISE_CAPTURE_PCAPFILE_H
#define REPRISE_CAPTURE_PCAPFILE_H

#include <pcap/pcap.h>
#include <stdio.h>

#include "capture/capture.h"
#include "capture/pcap/decode.h"

/*
 * Open a pcap or pcapng stream (a file, or fmemopen() over memory for the
 * fuzzers) with nanosecond timestamps.  Takes f over (closed by pcap_close).
 * `name` is for messages.
 */
int rp__pcap_open_stream(pcap_t **out, FILE *f, const char *name, char *errbuf);
/*
 * Feed every packet of p to cap (not finished).  A file cut short mid-packet
 * (a killed tcpdump) ends the input quietly and counts one truncated message.
 */
int rp__pcap_feed(pcap_t *p, rp_capture *cap, const char *name, char *errbuf);

/* The same from the block reader (capture/pcap/pcapread.h) over a classic pcap file. */
struct rp_pcap_reader;
int rp__pcap_feed_fast(struct rp_pcap_reader *r, rp_capture *cap, const char *name, char *errbuf);

/* Count an outcome on cap's summary (capture.c). */
void rp__capture_count(rp_capture *cap, rp_outcome what);
/* The file ends inside a packet record: count the cut packet as truncated and flag the stats. */
void rp__capture_file_cut(rp_capture *cap);

#endif
