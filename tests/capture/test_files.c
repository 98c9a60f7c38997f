/* Real captures (tests/data/pcap) through rp_capture_file: the transport's view of each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture/capture.h"
#include "formats/sink.h"

static rp_capture_stats decode(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/pcap/%s", getenv("REPRISE_SOURCE_ROOT"), name);
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_capture_stats st;
	char errbuf[RP_ERRBUF_SIZE] = "";
	const int rc = rp_capture_file(path, &m.base, NULL, &st, errbuf);
	if (rc != 0)
		fail_msg("%s: %s", name, errbuf);
	assert_true(m.finished);
	assert_int_equal(m.n_ops, st.ops);
	rp_memsink_fini(&m);
	return st;
}

#ifdef RP_TEST_NO_LIBPCAP
static void needs_libpcap(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/pcap/%s", getenv("REPRISE_SOURCE_ROOT"), name);
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	char errbuf[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_capture_file(path, &m.base, NULL, NULL, errbuf), RP_E_UNSUPPORTED);
	if (!strstr(errbuf, "built without libpcap"))
		fail_msg("%s: %s", name, errbuf);
	assert_int_equal(m.n_ops, 0);
	rp_memsink_fini(&m);
}
#endif

static void clean_tcp_has_no_gaps(void **state)
{
	(void)state;
	const rp_capture_stats a = decode("suricata-verify__smb2-01__smb2-peter.pcap");
	assert_int_equal(a.frames, 792);
	assert_int_equal(a.gaps, 0);
	assert_int_equal(a.truncated, 0);
	assert_int_equal(a.messages, 464); /* every SMB2 message tshark sees */
	/* The same capture without frame 191: one gap, and only that. */
	const rp_capture_stats b = decode("suricata-verify__smb2-frames-gap-payload-logging__smb2-peter-minus-p191.pcap");
	assert_int_equal(b.frames, 791);
	assert_int_equal(b.gaps, 1);
	assert_true(b.messages >= a.messages - 2);
}

static void lost_segments_are_gaps(void **state)
{
	(void)state;
	/* tshark: "ACKed segment that wasn't captured" in stream 0, and more in the others. */
	const rp_capture_stats st = decode("zeek__smb_smb3_multichannel.pcap");
	assert_true(st.gaps > 0);
	assert_true(st.messages > 800);
}

static void snaplen_cut_frame(void **state)
{
	(void)state;
	const rp_capture_stats st = decode("zeek__krb_smb2_krb.pcap"); /* frame 43 cut at 9999 bytes */
	assert_int_equal(st.frames, 100);
	assert_int_equal(st.gaps, 1);
	assert_true(st.truncated >= 1);
}

static void udp_fragments(void **state)
{
	(void)state;
	/* 16 KiB WRITEs in 12 fragments each; the last datagram's tail is past the capture's end. */
	const rp_capture_stats st = decode("nfstrace__eth-ipv4-udp-nfsv3-dup-retransm.pcap");
	assert_int_equal(st.frames, 206);
	assert_int_equal(st.frags_dropped, 1);
	assert_true(st.messages >= 30);
}

static void link_types_and_ipv6(void **state)
{
	(void)state;
	const rp_capture_stats null = decode("suricata-verify__smb-length-5770__input.pcap"); /* DLT_NULL */
	assert_true(null.messages > 3000);
#ifdef RP_TEST_NO_LIBPCAP
	/* Built without libpcap: what only libpcap reads (a pcap with link-type bits the block reader
	 * does not take, pcapng) fails with an error that says so. */
	needs_libpcap("nfstrace__eth-ipv6-tcp-nfsv3__pkts1-1500.pcap");
	needs_libpcap("tcpdump__nfs-write-verf-cookie.pcapng");
#else
	const rp_capture_stats v6 = decode("nfstrace__eth-ipv6-tcp-nfsv3__pkts1-1500.pcap");
	assert_int_equal(v6.ignored, 0);
	assert_true(v6.messages > 40);
	const rp_capture_stats ng = decode("tcpdump__nfs-write-verf-cookie.pcapng"); /* NFS on port 993 */
	assert_int_equal(ng.messages, 2);
	assert_int_equal(ng.ops, 1);
#endif
}

static void mid_stream_captures(void **state)
{
	(void)state;
	/* Both start mid-connection (no SYN): resync finds the first SMB2 header. */
	const rp_capture_stats a = decode("nfstrace__eth-ipv4-tcp-smb2-putty.pcap");
	assert_true(a.messages >= 71);
	const rp_capture_stats b = decode("zeek__smb_smb2readwrite.pcap");
	assert_true(b.messages >= 48);
	assert_int_equal(b.gaps, 0);
}

static void missing_file_is_an_error(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	char errbuf[RP_ERRBUF_SIZE] = "";
	rp_capture_stats st;
	assert_int_equal(rp_capture_file("/nonexistent.pcap", &m.base, NULL, &st, errbuf), RP_E_IO);
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/README.md", getenv("REPRISE_SOURCE_ROOT"));
	assert_int_equal(rp_capture_file(path, &m.base, NULL, &st, errbuf), RP_E_NOTTRACE);
	rp_memsink_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean_tcp_has_no_gaps),
		cmocka_unit_test(lost_segments_are_gaps),
		cmocka_unit_test(snaplen_cut_frame),
		cmocka_unit_test(udp_fragments),
		cmocka_unit_test(link_types_and_ipv6),
		cmocka_unit_test(mid_stream_captures),
		cmocka_unit_test(missing_file_is_an_error),
	};
	return cmocka_run_group_tests_name("capture-files", tests, NULL, NULL);
}
