/* pcap and pcapng files -> rp_capture: classic pcap by the block reader, the rest through libpcap. */
#include "capture/pcap/pcapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/pcap/decode.h"
#include "capture/pcap/pcapread.h"

/* libpcap's stdio stream: big enough to save most read(2) calls, small enough to stay in cache. */
#define STDIO_BUF (256u << 10)

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
			rp__capture_file_cut(cap);
			return 0;
		}
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: %s", name, why);
	}
	return 0;
}

int rp__pcap_feed_fast(rp_pcap_reader *r, rp_capture *cap, const char *name, char *errbuf)
{
	rp_pcap_rec rec;
	int r_;
	while ((r_ = rp__pcapr_next(r, &rec)) == 1) {
		const int rc = rp_capture_packet(cap, r->fmt.dlt, rec.ts_ns, rec.data, rec.caplen, rec.wirelen);
		if (rc < 0)
			return rp_fail(errbuf, rc, "%s: %s", name, rp_capture_error(cap));
	}
	switch (r_) {
	case 0:
		return 0;
	case RP_E_TRUNCATED:
		/* The last packet was cut off by whoever stopped the capture: what came before stands. */
		rp__capture_file_cut(cap);
		return 0;
	case RP_E_IO:
		return rp_fail(errbuf, RP_E_IO, "%s: %s", name, strerror(r->read_errno));
	default:
		return rp_fail(errbuf, r_, "%s: invalid packet capture length, bigger than the maximum of %u", name,
			       RP_PCAP_MAX_CAPLEN);
	}
}

/* An opened capture file: the block reader, or libpcap over a stdio stream. */
typedef struct source {
	rp_pcap_reader r;
	int fd;
	pcap_t *p;
	char *sbuf; /* the stream's buffer: freed after pcap_close has closed the stream */
} source;

static void source_close(source *s)
{
	if (s->p) {
		pcap_close(s->p);
	} else {
		rp__pcapr_close(&s->r);
		if (s->fd >= 0)
			close(s->fd);
	}
	free(s->sbuf);
}

/* libpcap over the file (pcapng, old or unusual pcap, not a capture at all); takes fd over. */
static int open_libpcap(source *s, const char *path, char *errbuf)
{
	FILE *const f = fdopen(s->fd, "rb");
	if (!f) {
		const int e = errno;
		close(s->fd);
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(e));
	}
	s->fd = -1;
	/* libpcap freads each record header and body: a real buffer saves a read() per few
	 * packets (glibc ignores the size when setvbuf is given no buffer). */
	s->sbuf = malloc(STDIO_BUF);
	if (s->sbuf)
		(void)setvbuf(f, s->sbuf, _IOFBF, STDIO_BUF);
	const int rc = rp__pcap_open_stream(&s->p, f, path, errbuf);
	if (rc < 0) {
		free(s->sbuf); /* the stream is closed */
		s->sbuf = NULL;
	}
	return rc;
}

static int source_open(source *s, const char *path, char *errbuf)
{
	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* A regular file can be read again from the start when the block reader does not take it. */
		const int o = rp__pcapr_open_fd(&s->r, s->fd);
		if (o == 1)
			return 0;
		if (o < 0 || lseek(s->fd, 0, SEEK_SET) != 0) {
			const int e = o == RP_E_IO ? s->r.read_errno : errno;
			close(s->fd);
			return o == RP_E_NOMEM ? rp_fail(errbuf, o, "%s: out of memory", path)
					       : rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(e));
		}
	}
	return open_libpcap(s, path, errbuf);
}

int rp_capture_file(const char *path, rp_sink *sink, const rp_capture_opts *opts, rp_capture_stats *stats,
		    char *errbuf)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	source src;
	int rc = source_open(&src, path, errbuf);
	if (rc < 0)
		return rc;
	rp_capture *cap = NULL;
	rc = rp_capture_create(&cap, sink, opts, errbuf);
	if (rc < 0) {
		source_close(&src);
		return rc;
	}
	/* The file's name, not where it lives here: traces are shared and must not
	 * depend on the directory they were made in. */
	const char *const slash = strrchr(path, '/');
	rp_capture_set_source(cap, slash ? slash + 1 : path, NULL);
	rc = src.p ? rp__pcap_feed(src.p, cap, path, errbuf) : rp__pcap_feed_fast(&src.r, cap, path, errbuf);
	source_close(&src);
	const int frc = rp_capture_finish(cap);
	if (rc == 0 && frc < 0)
		rc = rp_fail(errbuf, frc, "%s", rp_capture_error(cap));
	if (stats)
		*stats = *rp_capture_get_stats(cap);
	rp_capture_destroy(cap);
	return rc;
}
