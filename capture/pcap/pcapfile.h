/* Reading pcap and pcapng files into an rp_capture (classic pcap by the block reader, the rest by libpcap). */
#ifndef REPRISE_CAPTURE_PCAPFILE_H
#define REPRISE_CAPTURE_PCAPFILE_H

#include "capture/capture.h"
#include "capture/decode.h"

/*
 * libpcap's side of a file, for what the block reader does not take
 * (pcapng, other pcap versions and link types, pipes): pcaplib.c.  In a build
 * without libpcap (nopcap.c) opening fails with "built without libpcap".
 */
typedef struct rp_pcaplib rp_pcaplib;
int rp__pcaplib_open(rp_pcaplib **out, int fd, const char *name, char *errbuf); /* takes fd over */
int rp__pcaplib_feed(rp_pcaplib *l, rp_capture *cap, const char *name, char *errbuf);
void rp__pcaplib_close(rp_pcaplib *l); /* NULL is a no-op */

/* Feed every packet from the block reader (capture/pcap/pcapread.h) over a classic pcap file to cap
 * (not finished); a file cut short mid-packet counts one truncated message. */
struct rp_pcap_reader;
int rp__pcap_feed_fast(struct rp_pcap_reader *r, rp_capture *cap, const char *name, char *errbuf);

/* Count an outcome on cap's summary (capture.c). */
void rp__capture_count(rp_capture *cap, rp_outcome what);
/* The file ends inside a packet record: count the cut packet as truncated and flag the stats. */
void rp__capture_file_cut(rp_capture *cap);

#endif
