/* pcap and pcapng files -> rp_capture: classic pcap by the block reader, the rest through libpcap (pcaplib.c). */
#include "capture/pcap/pcapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/decode.h"
#include "capture/pcap/pcapread.h"

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

/* An opened capture file: the block reader, or libpcap (pcaplib.c). */
typedef struct source {
	rp_pcap_reader r;
	int fd;
	rp_pcaplib *lib;
} source;

static void source_close(source *s)
{
	if (s->lib) {
		rp__pcaplib_close(s->lib);
	} else {
		rp__pcapr_close(&s->r);
		if (s->fd >= 0)
			close(s->fd);
	}
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
	/* pcapng, old or unusual pcap, a pipe, or not a capture at all: libpcap takes the descriptor over. */
	const int fd = s->fd;
	s->fd = -1;
	return rp__pcaplib_open(&s->lib, fd, path, errbuf);
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
	rc = src.lib ? rp__pcaplib_feed(src.lib, cap, path, errbuf) : rp__pcap_feed_fast(&src.r, cap, path, errbuf);
	source_close(&src);
	const int frc = rp_capture_finish(cap);
	if (rc == 0 && frc < 0)
		rc = rp_fail(errbuf, frc, "%s", rp_capture_error(cap));
	if (stats)
		*stats = *rp_capture_get_stats(cap);
	rp_capture_destroy(cap);
	return rc;
}
