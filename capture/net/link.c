/* Link layers -> IP: Ethernet/VLAN (IEEE 802.3, 802.1Q), Linux cooked v1/v2, BSD loopback, raw IP. */
#include "capture/net/link.h"

#include "capture/capture.h"
#include "formats/cursor.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100 /* 802.1Q */
#define ETHERTYPE_QINQ 0x88a8 /* 802.1ad service tag */
#define ETHERTYPE_QINQ_OLD 0x9100 /* pre-standard QinQ */
#define LINKTYPE_RAW 101 /* the file format's number for raw IP, in case a caller passes it */

static rp_link_res by_ethertype(uint16_t type, const rp_cur *c, const uint8_t *frame, uint32_t *off, uint8_t *ipver)
{
	if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6)
		return RP_LINK_OTHER;
	*off = (uint32_t)(c->p - frame);
	*ipver = type == ETHERTYPE_IPV4 ? 4 : 6;
	return RP_LINK_IP;
}

static rp_link_res ethernet(const uint8_t *frame, uint32_t caplen, uint32_t *off, uint8_t *ipver)
{
	rp_cur c = rp_cur_make(frame, caplen);
	rp_cur_skip(&c, 12); /* destination and source MAC */
	uint16_t type = rp_cur_be16(&c);
	for (int tags = 0; type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD; tags++) {
		if (tags == RP_LINK_MAX_VLAN)
			return RP_LINK_OTHER;
		rp_cur_skip(&c, 2); /* TCI: priority, DEI, VLAN id */
		type = rp_cur_be16(&c);
	}
	if (c.err)
		return RP_LINK_TRUNCATED;
	return by_ethertype(type, &c, frame, off, ipver); /* <= 1500 is an 802.3 length: LLC, not IP */
}

/* Linux cooked v1: packet type, ARPHRD, address length, 8 address bytes, protocol. */
static rp_link_res sll(const uint8_t *frame, uint32_t caplen, uint32_t *off, uint8_t *ipver)
{
	rp_cur c = rp_cur_make(frame, caplen);
	rp_cur_skip(&c, 14);
	const uint16_t proto = rp_cur_be16(&c);
	if (c.err)
		return RP_LINK_TRUNCATED;
	return by_ethertype(proto, &c, frame, off, ipver);
}

/* Linux cooked v2: protocol first, then reserved, ifindex, ARPHRD, type, address length, address. */
static rp_link_res sll2(const uint8_t *frame, uint32_t caplen, uint32_t *off, uint8_t *ipver)
{
	rp_cur c = rp_cur_make(frame, caplen);
	const uint16_t proto = rp_cur_be16(&c);
	rp_cur_skip(&c, 18);
	if (c.err)
		return RP_LINK_TRUNCATED;
	return by_ethertype(proto, &c, frame, off, ipver);
}

/*
 * BSD loopback: a 4-byte address family, in the capturing host's byte order
 * for DLT_NULL and in network order for DLT_LOOP, though files from the
 * wrong-endian host exist for both: the family is a small number, so
 * whichever half holds it tells the order.
 */
static rp_link_res loopback(const uint8_t *frame, uint32_t caplen, uint32_t *off, uint8_t *ipver)
{
	rp_cur c = rp_cur_make(frame, caplen);
	uint32_t fam = rp_cur_le32(&c);
	if (c.err)
		return RP_LINK_TRUNCATED;
	if ((fam & 0xffff) == 0)
		fam = __builtin_bswap32(fam);
	*off = 4;
	switch (fam) {
	case 2: /* AF_INET everywhere */
		*ipver = 4;
		return RP_LINK_IP;
	case 10: /* AF_INET6: Linux */
	case 24: /* NetBSD, OpenBSD */
	case 28: /* FreeBSD, DragonFly */
	case 30: /* macOS */
		*ipver = 6;
		return RP_LINK_IP;
	default:
		return RP_LINK_OTHER;
	}
}

static rp_link_res raw(const uint8_t *frame, uint32_t caplen, uint32_t *off, uint8_t *ipver)
{
	if (caplen < 1)
		return RP_LINK_TRUNCATED;
	const uint8_t v = frame[0] >> 4;
	if (v != 4 && v != 6)
		return RP_LINK_OTHER;
	*off = 0;
	*ipver = v;
	return RP_LINK_IP;
}

rp_link_res rp__link_ip(int dlt, const uint8_t *frame, uint32_t caplen, uint32_t *off, uint8_t *ipver)
{
	switch (dlt) {
	case RP_DLT_EN10MB:
		return ethernet(frame, caplen, off, ipver);
	case RP_DLT_LINUX_SLL:
		return sll(frame, caplen, off, ipver);
	case RP_DLT_LINUX_SLL2:
		return sll2(frame, caplen, off, ipver);
	case RP_DLT_NULL:
	case RP_DLT_LOOP:
		return loopback(frame, caplen, off, ipver);
	case RP_DLT_RAW:
	case LINKTYPE_RAW:
	case RP_DLT_IPV4:
	case RP_DLT_IPV6:
		return raw(frame, caplen, off, ipver);
	default:
		return RP_LINK_UNKNOWN_DLT;
	}
}
