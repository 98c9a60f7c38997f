/* Classic pcap files read in large blocks, records handed out in place (pcap-savefile(5); libpcap for the rest). */
#ifndef REPRISE_CAPTURE_PCAPREAD_H
#define REPRISE_CAPTURE_PCAPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file header of a classic pcap file as the fast reader uses it. */
typedef struct rp_pcap_fmt {
	int dlt;           /* libpcap's DLT_* for the file's LINKTYPE_* */
	bool swapped;      /* written in the other byte order */
	bool nsec;         /* nanosecond timestamps (magic 0xa1b23c4d) */
	uint32_t snapshot; /* snaplen, adjusted as libpcap does: 0 or too big means the maximum */
} rp_pcap_fmt;

#define RP_PCAP_FILE_HDR 24u
#define RP_PCAP_REC_HDR 16u
/* The biggest captured length libpcap accepts for the link types the fast reader takes. */
#define RP_PCAP_MAX_CAPLEN 262144u

/*
 * Whether the 24-byte file header at h is one the fast reader takes: a
 * standard-magic (microsecond or nanosecond, either byte order) version 2.4
 * file of a link type the decoder knows, with no extra link-type bits.
 * Anything else (pcapng, older versions, modified formats) goes through
 * libpcap, which also gives the error for what is no capture at all.
 */
bool rp__pcap_fast_header(const uint8_t *h, size_t n, rp_pcap_fmt *out);

/* One record, its bytes in the reader's buffer until the next call. */
typedef struct rp_pcap_rec {
	uint64_t ts_ns;
	uint32_t caplen, wirelen;
	const uint8_t *data;
} rp_pcap_rec;

typedef struct rp_pcap_reader {
	rp_pcap_fmt fmt;
	int fd;           /* -1: the records are all in buf (memory input) */
	uint8_t *buf;     /* owned when fd >= 0 */
	size_t cap;
	size_t beg, end;  /* unread bytes are buf[beg, end) */
	bool eof;
	int read_errno;   /* the read(2) error that ended the input, if any */
} rp_pcap_reader;

/*
 * Over a file descriptor positioned at the start of the file (not taken over:
 * the caller closes it); reads the header.  1 when the fast reader takes the
 * file, 0 when it does not (the descriptor's offset is then unknown), negative
 * rp error when out of memory or read(2) fails.
 */
int rp__pcapr_open_fd(rp_pcap_reader *r, int fd);
/* Over a whole file in memory (fuzzers, tests): 1 taken, 0 not. */
int rp__pcapr_open_mem(rp_pcap_reader *r, const uint8_t *data, size_t len);
void rp__pcapr_close(rp_pcap_reader *r);

/*
 * The next record: 1 and *rec, or 0 at a clean end of file.  Negative rp
 * errors: RP_E_TRUNCATED when the file stops inside a record (what came
 * before stands), RP_E_CORRUPT for a captured length no file can have,
 * RP_E_IO when reading failed.  Like libpcap, a record longer than the
 * file's snapshot length is cut to it.
 */
int rp__pcapr_next(rp_pcap_reader *r, rp_pcap_rec *rec);

#endif
