/* Link layers: where the IP header starts in a frame of a given pcap link type. */
#ifndef REPRISE_CAPTURE_LINK_H
#define REPRISE_CAPTURE_LINK_H

#include <stdint.h>

/* What rp__link_ip found. */
typedef enum rp_link_res {
	RP_LINK_IP = 0,       /* *off is the IP header, *ipver 4 or 6 */
	RP_LINK_OTHER = 1,    /* a frame of another protocol (ARP, LLC, ...) */
	RP_LINK_TRUNCATED = 2,/* the link header itself is cut short */
	RP_LINK_UNKNOWN_DLT = 3,
} rp_link_res;

/* VLAN tags stacked deeper than this are not traffic we decode (QinQ is 2). */
#define RP_LINK_MAX_VLAN 8

/*
 * Find the IP header in a frame of link type dlt (an rp_dlt value, or
 * LINKTYPE_RAW 101): Ethernet (with 802.1Q/802.1ad/QinQ tags), Linux cooked
 * v1 and v2, BSD loopback (DLT_NULL and DLT_LOOP, family in either byte
 * order), and raw IP (DLT_RAW, DLT_IPV4, DLT_IPV6).
 */
rp_link_res rp__link_ip(int dlt, const uint8_t *frame, uint32_t caplen, uint32_t *off, uint8_t *ipver);

#endif
