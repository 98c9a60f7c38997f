/* The block pcap reader against libpcap, record by record: every sample capture and crafted odd files. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture/pcap/pcapread.h"
#include "capture/pcap/pcaplib.h"
#include "formats/error.h"

/* ---- a growable byte buffer for crafted files ---- */

typedef struct bytes {
	uint8_t *p;
	size_t n, cap;
} bytes;

static void put(bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put32(bytes *b, uint32_t v, bool big)
{
	const uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	const uint8_t be[4] = { le[3], le[2], le[1], le[0] };
	put(b, big ? be : le, 4);
}

static void put16(bytes *b, uint16_t v, bool big)
{
	const uint8_t le[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	const uint8_t be[2] = { le[1], le[0] };
	put(b, big ? be : le, 2);
}

static void file_header(bytes *b, uint32_t magic, uint16_t major, uint16_t minor, uint32_t snaplen,
			uint32_t linktype, bool big)
{
	put32(b, magic, big);
	put16(b, major, big);
	put16(b, minor, big);
	put32(b, 0, big);
	put32(b, 0, big);
	put32(b, snaplen, big);
	put32(b, linktype, big);
}

static void record(bytes *b, uint32_t sec, uint32_t sub, uint32_t caplen, uint32_t wirelen, bool big)
{
	put32(b, sec, big);
	put32(b, sub, big);
	put32(b, caplen, big);
	put32(b, wirelen, big);
	for (uint32_t i = 0; i < caplen; i++) {
		const uint8_t v = (uint8_t)(i * 13 + caplen);
		put(b, &v, 1);
	}
}

/* ---- lockstep comparison ---- */

/* How a libpcap read loop ended, in the block reader's terms. */
static int libpcap_end(pcap_t *p, int r)
{
	if (r == PCAP_ERROR_BREAK)
		return 0;
	return strstr(pcap_geterr(p), "truncated") ? RP_E_TRUNCATED : RP_E_CORRUPT;
}

static uint64_t ts_ns(const struct pcap_pkthdr *h)
{
	return (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
}

/* Compare the two readers over the file in memory; returns the records seen. */
static size_t compare(const char *what, const uint8_t *data, size_t len)
{
	rp_pcap_reader r;
	assert_int_equal(rp__pcapr_open_mem(&r, data, len), 1);
	FILE *const f = fmemopen((void *)data, len, "rb");
	assert_non_null(f);
	char pe[PCAP_ERRBUF_SIZE];
	pcap_t *const p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, pe);
	if (!p)
		fail_msg("%s: libpcap: %s", what, pe);
	assert_int_equal(pcap_datalink(p), r.fmt.dlt);
	size_t n = 0;
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *d;
		const int lr = pcap_next_ex(p, &h, &d);
		rp_pcap_rec rec;
		const int fr = rp__pcapr_next(&r, &rec);
		if (lr != 1) {
			if (fr != libpcap_end(p, lr))
				fail_msg("%s: after %zu records libpcap ends %d (%s), the block reader %d", what, n, lr,
					 pcap_geterr(p), fr);
			break;
		}
		if (fr != 1)
			fail_msg("%s: record %zu: the block reader ends %d, libpcap has more", what, n + 1, fr);
		n++;
		if (rec.caplen != h->caplen || rec.wirelen != h->len || rec.ts_ns != ts_ns(h) ||
		    memcmp(rec.data, d, h->caplen) != 0)
			fail_msg("%s: record %zu differs (caplen %u/%u len %u/%u ts %llu/%llu)", what, n, rec.caplen,
				 h->caplen, rec.wirelen, h->len, (unsigned long long)rec.ts_ns,
				 (unsigned long long)ts_ns(h));
	}
	pcap_close(p);
	rp__pcapr_close(&r);
	return n;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *const f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	const long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *const d = malloc((size_t)n + 1);
	assert_non_null(d);
	assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return d;
}

static void every_sample_capture(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/data/pcap", getenv("REPRISE_SOURCE_ROOT"));
	DIR *const d = opendir(dir);
	assert_non_null(d);
	size_t files = 0, records = 0;
	const struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 5, ".pcap") != 0)
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t len;
		uint8_t *const data = slurp(path, &len);
		rp_pcap_fmt fmt;
		if (rp__pcap_fast_header(data, len, &fmt)) {
			records += compare(e->d_name, data, len);
			/* Cut inside the last record: both stop there with a truncation. */
			if (len > 40)
				(void)compare(e->d_name, data, len - 3);
			files++;
		}
		free(data);
	}
	closedir(d);
	assert_true(files >= 20);
	assert_true(records > 10000);
}

static void odd_files(void **state)
{
	(void)state;
	const bool orders[] = { false, true };
	for (int o = 0; o < 2; o++) {
		const bool big = orders[o];
		bytes b = { 0 };
		/* nanosecond magic, small snaplen, records longer than it, a high-bit timestamp */
		file_header(&b, 0xa1b23c4d, 2, 4, 100, 1, big);
		record(&b, 1700000000, 999999999, 60, 60, big);
		record(&b, 1700000001, 5, 150, 1500, big);   /* cut to the snapshot length */
		record(&b, 0x90000000u, 0x80000001u, 0, 0, big); /* top bits set */
		record(&b, 3, 4, 100, 40, big);              /* caplen > len: passed through */
		assert_int_equal(compare("nsec", b.p, b.n), 4);
		for (size_t cut = b.n - 1; cut > RP_PCAP_FILE_HDR; cut -= 7)
			(void)compare("nsec cut", b.p, cut);
		(void)compare("header only", b.p, RP_PCAP_FILE_HDR);

		/* microseconds, snaplen 0 (the maximum), a record no file can have */
		b.n = 0;
		file_header(&b, 0xa1b2c3d4, 2, 4, 0, 113, big);
		record(&b, 10, 20, 300, 300, big);
		record(&b, 11, 21, RP_PCAP_MAX_CAPLEN, RP_PCAP_MAX_CAPLEN, big);
		const size_t at = b.n;
		put32(&b, 12, big);
		put32(&b, 0, big);
		put32(&b, RP_PCAP_MAX_CAPLEN + 1, big);
		put32(&b, RP_PCAP_MAX_CAPLEN + 1, big);
		assert_int_equal(compare("too long", b.p, b.n), 2);
		(void)compare("too long, cut", b.p, at + 5);
		free(b.p);
	}
}

static void files_it_leaves_to_libpcap(void **state)
{
	(void)state;
	bytes b = { 0 };
	rp_pcap_fmt fmt;
	file_header(&b, 0xa1b2c3d4, 2, 3, 65535, 1, false); /* 2.3: caplen and len may be swapped */
	assert_false(rp__pcap_fast_header(b.p, b.n, &fmt));
	b.n = 0;
	file_header(&b, 0xa1b2cd34, 2, 4, 65535, 1, false); /* Kuznetzov's longer record headers */
	assert_false(rp__pcap_fast_header(b.p, b.n, &fmt));
	b.n = 0;
	file_header(&b, 0xa1b2c3d4, 2, 4, 65535, 147, false); /* a link type the decoder does not know */
	assert_false(rp__pcap_fast_header(b.p, b.n, &fmt));
	b.n = 0;
	file_header(&b, 0xa1b2c3d4, 2, 4, 65535, 1u | 0x04000000u, false); /* FCS length bits */
	assert_false(rp__pcap_fast_header(b.p, b.n, &fmt));
	b.n = 0;
	file_header(&b, 0x0a0d0d0a, 2, 4, 65535, 1, false); /* pcapng */
	assert_false(rp__pcap_fast_header(b.p, b.n, &fmt));
	assert_false(rp__pcap_fast_header(b.p, 23, &fmt));
	free(b.p);
}

/* Through a file descriptor, in blocks: the same records as from memory. */
static void blocks_from_a_file(void **state)
{
	(void)state;
	bytes b = { 0 };
	file_header(&b, 0xa1b2c3d4, 2, 4, 262144, 1, false);
	/* Enough records of every size that several straddle the reader's block boundary. */
	for (uint32_t i = 0; i < 400; i++)
		record(&b, i, i, (i * 7919u) % 9000u + (i % 37 == 0 ? 200000u : 0u), 9000, false);
	char path[] = "/tmp/reprise-pcapread-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.p, b.n), (ssize_t)b.n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	rp_pcap_reader fr, mr;
	assert_int_equal(rp__pcapr_open_fd(&fr, fd), 1);
	assert_int_equal(rp__pcapr_open_mem(&mr, b.p, b.n), 1);
	size_t n = 0;
	for (;;) {
		rp_pcap_rec a, c;
		const int x = rp__pcapr_next(&fr, &a);
		const int y = rp__pcapr_next(&mr, &c);
		assert_int_equal(x, y);
		if (x != 1)
			break;
		n++;
		assert_int_equal(a.caplen, c.caplen);
		assert_int_equal(a.ts_ns, c.ts_ns);
		assert_memory_equal(a.data, c.data, a.caplen);
	}
	assert_int_equal(n, 400);
	rp__pcapr_close(&fr);
	rp__pcapr_close(&mr);
	close(fd);
	unlink(path);
	free(b.p);
}

int main(void)
{
	/* libpcap is opened on first use (capture/pcap/pcapdl.h): these tests call it directly too */
	char eb[RP_ERRBUF_SIZE];
	if (rp__pcap_load(eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_capture),
		cmocka_unit_test(odd_files),
		cmocka_unit_test(files_it_leaves_to_libpcap),
		cmocka_unit_test(blocks_from_a_file),
	};
	return cmocka_run_group_tests_name("capture-pcapread", tests, NULL, NULL);
}
