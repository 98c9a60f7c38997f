/* Classic pcap files read in large blocks, records handed out in place (pcap-savefile(5), the LINKTYPE_ registry). */
#include "capture/pcap/pcapread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "formats/error.h"

/*
 * The buffer holds at least one whole record of the largest size (16 +
 * 262144 bytes) and stays small enough for the block just read to be in
 * cache when the decoders get to it.
 */
#define READ_BUF (512u << 10)

#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du

static inline uint32_t rd32(const uint8_t *p, bool swapped)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swapped ? __builtin_bswap32(v) : v;
}

static inline uint16_t rd16(const uint8_t *p, bool swapped)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

/* The LINKTYPE_ values of the link layers link.c decodes, as libpcap's DLT_ values (rp_dlt). */
static int dlt_of(uint32_t linktype)
{
	switch (linktype) {
	case 0: return RP_DLT_NULL;
	case 1: return RP_DLT_EN10MB;
	case 101: return RP_DLT_RAW; /* LINKTYPE_RAW */
	case 108: return RP_DLT_LOOP;
	case 113: return RP_DLT_LINUX_SLL;
	case 228: return RP_DLT_IPV4;
	case 229: return RP_DLT_IPV6;
	case 276: return RP_DLT_LINUX_SLL2;
	default: return -1;
	}
}

bool rp__pcap_fast_header(const uint8_t *h, size_t n, rp_pcap_fmt *out)
{
	if (n < RP_PCAP_FILE_HDR)
		return false;
	uint32_t magic;
	memcpy(&magic, h, 4);
	bool swapped = false;
	if (magic != MAGIC_USEC && magic != MAGIC_NSEC) {
		magic = __builtin_bswap32(magic);
		if (magic != MAGIC_USEC && magic != MAGIC_NSEC)
			return false;
		swapped = true;
	}
	if (rd16(h + 4, swapped) != 2 || rd16(h + 6, swapped) != 4)
		return false; /* older versions may have caplen and len the other way round */
	const uint32_t snaplen = rd32(h + 16, swapped);
	const uint32_t linktype = rd32(h + 20, swapped);
	const int dlt = dlt_of(linktype);
	if (dlt < 0)
		return false;
	out->dlt = dlt;
	out->swapped = swapped;
	out->nsec = magic == MAGIC_NSEC;
	out->snapshot = snaplen == 0 || snaplen > RP_PCAP_MAX_CAPLEN ? RP_PCAP_MAX_CAPLEN : snaplen;
	return true;
}

/* Read until at least `need` bytes are unread or the file ends; false on a read error. */
static bool fill(rp_pcap_reader *r, size_t need)
{
	if (r->fd < 0)
		return true; /* memory input: all there is, and not ours to move */
	if (r->beg && (r->cap - r->beg < need || r->beg == r->end)) {
		memmove(r->buf, r->buf + r->beg, r->end - r->beg);
		r->end -= r->beg;
		r->beg = 0;
	}
	while (!r->eof && r->end - r->beg < need) {
		const ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r->read_errno = errno;
			r->eof = true;
			return false;
		}
		if (got == 0)
			r->eof = true;
		r->end += (size_t)got;
	}
	return true;
}

int rp__pcapr_open_fd(rp_pcap_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cap = READ_BUF;
	r->buf = malloc(r->cap);
	if (!r->buf)
		return RP_E_NOMEM;
	if (!fill(r, RP_PCAP_FILE_HDR)) {
		rp__pcapr_close(r);
		return RP_E_IO;
	}
	if (!rp__pcap_fast_header(r->buf, r->end, &r->fmt)) {
		rp__pcapr_close(r);
		return 0;
	}
	r->beg = RP_PCAP_FILE_HDR;
	return 1;
}

int rp__pcapr_open_mem(rp_pcap_reader *r, const uint8_t *data, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!rp__pcap_fast_header(data, len, &r->fmt))
		return 0;
	r->buf = (uint8_t *)data; /* never written: memory input reads nothing more */
	r->cap = r->end = len;
	r->beg = RP_PCAP_FILE_HDR;
	r->eof = true;
	return 1;
}

void rp__pcapr_close(rp_pcap_reader *r)
{
	if (r->fd >= 0)
		free(r->buf);
	r->buf = NULL;
	r->cap = r->beg = r->end = 0;
}

int rp__pcapr_next(rp_pcap_reader *r, rp_pcap_rec *rec)
{
	if (r->end - r->beg < RP_PCAP_REC_HDR && !fill(r, RP_PCAP_REC_HDR))
		return RP_E_IO;
	const size_t have = r->end - r->beg;
	if (have == 0)
		return 0;
	if (have < RP_PCAP_REC_HDR)
		return RP_E_TRUNCATED;
	const uint8_t *h = r->buf + r->beg;
	const bool sw = r->fmt.swapped;
	const uint32_t caplen = rd32(h + 8, sw);
	if (caplen > RP_PCAP_MAX_CAPLEN)
		return RP_E_CORRUPT; /* libpcap refuses it too: no buffer is that big */
	const size_t need = RP_PCAP_REC_HDR + (size_t)caplen;
	if (have < need) {
		if (!fill(r, need))
			return RP_E_IO;
		if (r->end - r->beg < need)
			return RP_E_TRUNCATED;
		h = r->buf + r->beg;
	}
	/* Timestamps as libpcap 1.10 widens them: the file's fields are signed 32-bit, but its
	 * byte swap gives unsigned values; this only matters past 2038 or for corrupt fields. */
	uint64_t sec = rd32(h, sw), sub = rd32(h + 4, sw);
	if (!sw) {
		sec = (uint64_t)(int64_t)(int32_t)sec;
		sub = (uint64_t)(int64_t)(int32_t)sub;
	}
	rec->ts_ns = sec * 1000000000ull + (r->fmt.nsec ? sub : sub * 1000);
	rec->caplen = caplen > r->fmt.snapshot ? r->fmt.snapshot : caplen;
	rec->wirelen = rd32(h + 12, sw);
	rec->data = h + RP_PCAP_REC_HDR;
	r->beg += need;
	return 1;
}
