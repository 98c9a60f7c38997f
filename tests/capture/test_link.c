/* Link layers: Ethernet (VLAN, QinQ), Linux cooked v1/v2, BSD loopback (both byte orders), raw IP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>


#include "capture/net/link.h"
#include "pkt.h"

static buf fr, ip, udp, call;

/* A UDP RPC call from CLI:800 to SRV:2049 as IPv4 (v 4) or IPv6 (v 6) in ip. */
static void make_ip(int v)
{
	call.n = udp.n = ip.n = 0;
	rpc_call(&call, 0x1234, 1, 0);
	udp_dgram(&udp, 800, 2049, call.b, call.n);
	if (v == 4)
		ipv4(&ip, CLI4, SRV4, 17, 9, 0, udp.b, udp.n);
	else
		ipv6(&ip, CLI6, SRV6, 17, NULL, 0, udp.b, udp.n);
}

/* Check the IP header is found at off, and that the transport delivers the call. */
static void expect(int dlt, size_t off, int v)
{
	uint32_t got_off = 99;
	uint8_t ver = 0;
	assert_int_equal(rp__link_ip(dlt, fr.b, (uint32_t)fr.n, &got_off, &ver), RP_LINK_IP);
	assert_int_equal(got_off, off);
	assert_int_equal(ver, v);
	collect *const c = c_new(NULL);
	c_frame(c, dlt, &fr);
	assert_int_equal(c->n, 1);
	assert_int_equal(c->m[0].app, RP_APP_RPC);
	assert_int_equal(c->m[0].len, call.n);
	assert_int_equal(c->m[0].port[0], 800);
	c_free(c);
}

static void ethernet_plain_vlan_qinq(void **state)
{
	(void)state;
	for (int v = 4; v <= 6; v += 2) {
		make_ip(v);
		const uint16_t et = v == 4 ? 0x0800 : 0x86dd;
		fr.n = 0;
		eth(&fr, et);
		putn(&fr, ip.b, ip.n);
		expect(RP_DLT_EN10MB, 14, v);
		fr.n = 0;
		eth(&fr, 0x8100);
		put16(&fr, 42);
		put16(&fr, et);
		putn(&fr, ip.b, ip.n);
		expect(RP_DLT_EN10MB, 18, v);
		fr.n = 0;
		eth(&fr, 0x88a8);
		put16(&fr, 7);
		put16(&fr, 0x8100);
		put16(&fr, 42);
		put16(&fr, et);
		putn(&fr, ip.b, ip.n);
		expect(RP_DLT_EN10MB, 22, v);
	}
}

static void ethernet_other_and_short(void **state)
{
	(void)state;
	uint32_t off;
	uint8_t ver;
	fr.n = 0;
	eth(&fr, 0x0806); /* ARP */
	putpat(&fr, 28, 1);
	assert_int_equal(rp__link_ip(RP_DLT_EN10MB, fr.b, (uint32_t)fr.n, &off, &ver), RP_LINK_OTHER);
	assert_int_equal(rp__link_ip(RP_DLT_EN10MB, fr.b, 13, &off, &ver), RP_LINK_TRUNCATED);
	assert_int_equal(rp__link_ip(147 /* DLT_USER0 */, fr.b, (uint32_t)fr.n, &off, &ver), RP_LINK_UNKNOWN_DLT);
	collect *const c = c_new(NULL);
	c_frame(c, RP_DLT_EN10MB, &fr);
	assert_int_equal(c->count[RP_OUT_IGNORED], 1);
	c_free(c);
}

static void linux_cooked(void **state)
{
	(void)state;
	make_ip(4);
	fr.n = 0;
	put16(&fr, 0); /* to us */
	put16(&fr, 772); /* ARPHRD_LOOPBACK */
	put16(&fr, 6);
	putpat(&fr, 8, 0);
	put16(&fr, 0x0800);
	putn(&fr, ip.b, ip.n);
	expect(RP_DLT_LINUX_SLL, 16, 4);
	make_ip(6);
	fr.n = 0;
	put16(&fr, 0x86dd);
	put16(&fr, 0);
	put32(&fr, 3); /* ifindex */
	put16(&fr, 1); /* ARPHRD_ETHER */
	put8(&fr, 4); /* outgoing */
	put8(&fr, 6);
	putpat(&fr, 8, 0);
	putn(&fr, ip.b, ip.n);
	expect(RP_DLT_LINUX_SLL2, 20, 6);
}

static void loopback_both_orders(void **state)
{
	(void)state;
	const uint32_t fams[] = { 10, 24, 28, 30 };
	make_ip(4);
	fr.n = 0;
	put8(&fr, 2); put8(&fr, 0); put8(&fr, 0); put8(&fr, 0); /* AF_INET, little-endian host */
	putn(&fr, ip.b, ip.n);
	expect(RP_DLT_NULL, 4, 4);
	fr.n = 0;
	put32(&fr, 2); /* big-endian host */
	putn(&fr, ip.b, ip.n);
	expect(RP_DLT_NULL, 4, 4);
	expect(RP_DLT_LOOP, 4, 4);
	make_ip(6);
	for (size_t i = 0; i < 4; i++) {
		fr.n = 0;
		put32(&fr, fams[i]);
		putn(&fr, ip.b, ip.n);
		expect(RP_DLT_LOOP, 4, 6);
		fr.n = 0;
		put8(&fr, (uint8_t)fams[i]); put8(&fr, 0); put8(&fr, 0); put8(&fr, 0);
		putn(&fr, ip.b, ip.n);
		expect(RP_DLT_NULL, 4, 6);
	}
	uint32_t off;
	uint8_t ver;
	fr.n = 0;
	put32(&fr, 7); /* not IP */
	assert_int_equal(rp__link_ip(RP_DLT_NULL, fr.b, (uint32_t)fr.n, &off, &ver), RP_LINK_OTHER);
}

static void raw_ip(void **state)
{
	(void)state;
	make_ip(4);
	fr.n = 0;
	putn(&fr, ip.b, ip.n);
	expect(RP_DLT_RAW, 0, 4);
	expect(RP_DLT_IPV4, 0, 4);
	expect(101, 0, 4); /* LINKTYPE_RAW */
	make_ip(6);
	fr.n = 0;
	putn(&fr, ip.b, ip.n);
	expect(RP_DLT_RAW, 0, 6);
	expect(RP_DLT_IPV6, 0, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ethernet_plain_vlan_qinq),
		cmocka_unit_test(ethernet_other_and_short),
		cmocka_unit_test(linux_cooked),
		cmocka_unit_test(loopback_both_orders),
		cmocka_unit_test(raw_ip),
	};
	return cmocka_run_group_tests_name("capture-link", tests, NULL, NULL);
}
