/* Fuzz target: a pcap/pcapng file in memory -> the block reader or libpcap -> every capture layer and decoder -> a memsink. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capture/pcap/pcaplib.h"
#include "capture/pcap/pcapread.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	char errbuf[RP_ERRBUF_SIZE];
	const rp_capture_opts opts = { .max_flows = 64 };
	rp_pcap_reader r;
	if (rp__pcapr_open_mem(&r, data, size) == 1) {
		/* Classic pcap: the reader rp_capture_file uses for it. */
		rp_memsink m;
		rp_capture *cap = NULL;
		if (rp_memsink_init(&m) == 0) {
			if (rp_capture_create(&cap, &m.base, &opts, errbuf) == 0) {
				(void)rp__pcap_feed_fast(&r, cap, "fuzz", errbuf);
				(void)rp_capture_finish(cap);
				rp_capture_destroy(cap);
			}
			rp_memsink_fini(&m);
		}
		rp__pcapr_close(&r);
		return 0;
	}
	/* libpcap reads FILE streams only; fmemopen gives it one over the input. */
	FILE *const f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	pcap_t *p = NULL;
	if (rp__pcap_open_stream(&p, f, "fuzz", errbuf) < 0)
		return 0;
	rp_memsink m;
	if (rp_memsink_init(&m) != 0) {
		pcap_close(p);
		return 0;
	}
	rp_capture *cap = NULL;
	if (rp_capture_create(&cap, &m.base, &opts, errbuf) == 0) {
		(void)rp__pcap_feed(p, cap, "fuzz", errbuf);
		(void)rp_capture_finish(cap);
		rp_capture_destroy(cap);
	}
	pcap_close(p);
	rp_memsink_fini(&m);
	return 0;
}
