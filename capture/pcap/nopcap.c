/* A build without libpcap (-Dpcap=disabled): what needs libpcap fails with "built without libpcap". */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "capture/pcap/pcapfile.h"

/*
 * The decoders, the classic pcap block reader (pcapread.c) and rp_capture_packet
 * work as ever; only pcapng and the other files the block reader does not take,
 * and live capture, need libpcap.
 */
/* Whether the first bytes are those of a pcap file (any magic libpcap knows, either order) or pcapng. */
static bool capture_magic(const uint8_t *b)
{
	const uint32_t be = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	const uint32_t le = __builtin_bswap32(be);
	static const uint32_t magic[] = { 0xa1b2c3d4u, 0xa1b23c4du, 0xa1b2cd34u, 0x0a0d0d0au };
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (be == magic[i] || le == magic[i])
			return true;
	return false;
}

int rp__pcaplib_open(rp_pcaplib **out, int fd, const char *name, char *errbuf)
{
	*out = NULL;
	uint8_t b[4];
	/* A regular file can say what it is (libpcap would say it too); a pipe cannot be read twice. */
	const bool capture = pread(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b) || capture_magic(b);
	close(fd);
	if (!capture)
		return rp_fail(errbuf, RP_E_NOTTRACE, "%s: not a packet capture", name);
	return rp_fail(errbuf, RP_E_UNSUPPORTED,
		       "%s: not a classic pcap file of a link type reprise decodes itself, and reprise was built "
		       "without libpcap, which reads pcapng and the rest",
		       name);
}

int rp__pcaplib_feed(rp_pcaplib *l, rp_capture *cap, const char *name, char *errbuf)
{
	(void)l;
	(void)cap;
	return rp_fail(errbuf, RP_E_STATE, "%s: built without libpcap", name); /* never opened */
}

void rp__pcaplib_close(rp_pcaplib *l)
{
	(void)l;
}

int rp_capture_live(rp_live_opts *live, rp_sink *sink, const rp_capture_opts *opts, rp_capture_stats *stats,
		    char *errbuf)
{
	(void)sink;
	(void)opts;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: live capture needs libpcap, and reprise was built without libpcap",
		       live && live->iface ? live->iface : "live capture");
}

void rp_capture_live_break(void)
{
}
