/* libpcap's side of reading captures (pcaplib.c): streams libpcap opens and the packets it hands out. */
#ifndef REPRISE_CAPTURE_PCAPLIB_H
#define REPRISE_CAPTURE_PCAPLIB_H

#include <stdio.h>

#include "capture/pcap/pcapdl.h"

#include "capture/pcap/pcapfile.h"

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

#endif
