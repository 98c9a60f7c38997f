/* pcapng and the pcap files the block reader does not take -> rp_capture, through libpcap. */
#include "capture/pcap/pcaplib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* rp_dlt spells libpcap's numbers so that the decoders need no libpcap header: they must agree. */
_Static_assert(RP_DLT_NULL == DLT_NULL && RP_DLT_EN10MB == DLT_EN10MB && RP_DLT_RAW == DLT_RAW &&
		       RP_DLT_LOOP == DLT_LOOP && RP_DLT_LINUX_SLL == DLT_LINUX_SLL && RP_DLT_IPV4 == DLT_IPV4 &&
		       RP_DLT_IPV6 == DLT_IPV6 && RP_DLT_LINUX_SLL2 == DLT_LINUX_SLL2,
	       "rp_dlt differs from libpcap's DLT_ values");

/* libpcap's stdio stream: big enough to save most read(2) calls, small enough to stay in cache. */
#define STDIO_BUF (256u << 10)

int rp__pcap_open_stream(pcap_t **out, FILE *f, const char *name, char *errbuf)
{
	*out = NULL;
	const int lrc = rp__pcap_load(errbuf);
	if (lrc < 0) {
		fclose(f);
		return lrc;
	}
	char pe[PCAP_ERRBUF_SIZE] = "";
	*out = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, pe);
	if (!*out) {
		fclose(f);
		return rp_fail(errbuf, strstr(pe, "truncated") ? RP_E_TRUNCATED : RP_E_NOTTRACE, "%s: %s", name, pe);
	}
	return 0;
}

static uint64_t ts_ns(const struct pcap_pkthdr *h, int precision)
{
	const uint64_t sub = (uint64_t)h->ts.tv_usec * (precision == PCAP_TSTAMP_PRECISION_NANO ? 1u : 1000u);
	return (uint64_t)h->ts.tv_sec * 1000000000ull + sub;
}

int rp__pcap_feed(pcap_t *p, rp_capture *cap, const char *name, char *errbuf)
{
	const int dlt = pcap_datalink(p);
	const int precision = pcap_get_tstamp_precision(p);
	struct pcap_pkthdr *h;
	const u_char *data;
	int r;
	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		const int rc = rp_capture_packet(cap, dlt, ts_ns(h, precision), data, h->caplen, h->len);
		if (rc < 0)
			return rp_fail(errbuf, rc, "%s: %s", name, rp_capture_error(cap));
	}
	if (r == PCAP_ERROR) {
		const char *const why = pcap_geterr(p);
		if (strstr(why, "truncated")) {
			/* The last packet was cut off by whoever stopped the capture: what came before stands. */
			rp__capture_file_cut(cap);
			return 0;
		}
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: %s", name, why);
	}
	return 0;
}

/* libpcap over a stdio stream. */
struct rp_pcaplib {
	pcap_t *p;
	char *sbuf; /* the stream's buffer: freed after pcap_close has closed the stream */
};

int rp__pcaplib_open(rp_pcaplib **out, int fd, const char *name, char *errbuf)
{
	*out = NULL;
	rp_pcaplib *const l = calloc(1, sizeof(*l));
	if (!l) {
		close(fd);
		return rp_fail(errbuf, RP_E_NOMEM, "%s: out of memory", name);
	}
	FILE *const f = fdopen(fd, "rb");
	if (!f) {
		const int e = errno;
		close(fd);
		free(l);
		return rp_fail(errbuf, RP_E_IO, "%s: %s", name, strerror(e));
	}
	/* libpcap freads each record header and body: a real buffer saves a read() per few
	 * packets (glibc ignores the size when setvbuf is given no buffer). */
	l->sbuf = malloc(STDIO_BUF);
	if (l->sbuf)
		(void)setvbuf(f, l->sbuf, _IOFBF, STDIO_BUF);
	const int rc = rp__pcap_open_stream(&l->p, f, name, errbuf);
	if (rc < 0) {
		free(l->sbuf); /* the stream is closed */
		free(l);
		return rc;
	}
	*out = l;
	return 0;
}

int rp__pcaplib_feed(rp_pcaplib *l, rp_capture *cap, const char *name, char *errbuf)
{
	return rp__pcap_feed(l->p, cap, name, errbuf);
}

void rp__pcaplib_close(rp_pcaplib *l)
{
	if (!l)
		return;
	pcap_close(l->p);
	free(l->sbuf);
	free(l);
}
