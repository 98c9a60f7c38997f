/* pcap and pcapng files through libpcap (any link type it gives) -> rp_capture. */
#include "capture/pcap/pcapfile.h"

#include <errno.h>
#include <string.h>

#include "capture/pcap/decode.h"

int rp__pcap_open_stream(pcap_t **out, FILE *f, const char *name, char *errbuf)
{
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
			rp__capture_count(cap, RP_OUT_TRUNCATED);
			return 0;
		}
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: %s", name, why);
	}
	return 0;
}

int rp_capture_file(const char *path, rp_sink *sink, const rp_capture_opts *opts, rp_capture_stats *stats,
		    char *errbuf)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	FILE *const f = fopen(path, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	/* libpcap freads each record header and body: a big buffer saves a read() per few packets. */
	(void)setvbuf(f, NULL, _IOFBF, 1 << 20);
	pcap_t *p = NULL;
	int rc = rp__pcap_open_stream(&p, f, path, errbuf);
	if (rc < 0)
		return rc;
	rp_capture *cap = NULL;
	rc = rp_capture_create(&cap, sink, opts, errbuf);
	if (rc < 0) {
		pcap_close(p);
		return rc;
	}
	/* The file's name, not where it lives here: traces are shared and must not
	 * depend on the directory they were made in. */
	const char *const slash = strrchr(path, '/');
	rp_capture_set_source(cap, slash ? slash + 1 : path, NULL);
	rc = rp__pcap_feed(p, cap, path, errbuf);
	pcap_close(p);
	const int frc = rp_capture_finish(cap);
	if (rc == 0 && frc < 0)
		rc = rp_fail(errbuf, frc, "%s", rp_capture_error(cap));
	if (stats)
		*stats = *rp_capture_get_stats(cap);
	rp_capture_destroy(cap);
	return rc;
}
