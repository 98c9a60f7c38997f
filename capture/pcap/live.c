/* Live capture from an interface through libpcap (pcap_create, immediate mode, BPF) -> rp_capture. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/pcap/pcaplib.h"

#define DEFAULT_BUFFER (64 << 20)
#define SNAPLEN 262144
/* Poll this often so *stop and the duration are seen without a packet. */
#define POLL_MS 200

/*
 * The handle rp_capture_live_break() stops.  A global because a signal
 * handler can reach nothing else; it is set only while rp_capture_live runs.
 */
static pcap_t *volatile live_handle;

void rp_capture_live_break(void)
{
	pcap_t *const p = live_handle;
	if (p)
		pcap_breakloop(p);
}

typedef struct live_ctx {
	rp_capture *cap;
	pcap_t *p;
	int dlt;
	int precision;
	int err;
} live_ctx;

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	live_ctx *const lc = (live_ctx *)user;
	const uint64_t sub = (uint64_t)h->ts.tv_usec * (lc->precision == PCAP_TSTAMP_PRECISION_NANO ? 1u : 1000u);
	const int rc = rp_capture_packet(lc->cap, lc->dlt, (uint64_t)h->ts.tv_sec * 1000000000ull + sub, data,
					 h->caplen, h->len);
	if (rc < 0 && !lc->err) {
		lc->err = rc;
		pcap_breakloop(lc->p);
	}
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_live(pcap_t **out, rp_live_opts *live, char *errbuf)
{
	char pe[PCAP_ERRBUF_SIZE] = "";
	pcap_t *const p = pcap_create(live->iface, pe);
	if (!p)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", live->iface, pe);
	pcap_set_snaplen(p, SNAPLEN);
	pcap_set_promisc(p, 0);
	/* Without immediate mode short captures on lo came out empty (DESIGN §8). */
	pcap_set_immediate_mode(p, 1);
	pcap_set_buffer_size(p, live->buffer_bytes > 0 ? live->buffer_bytes : DEFAULT_BUFFER);
	pcap_set_timeout(p, POLL_MS);
	(void)pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO); /* micro if the kernel cannot */
	const int act = pcap_activate(p);
	if (act < 0) {
		const char *const why = act == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(act);
		rp_fail(errbuf, act == PCAP_ERROR_PERM_DENIED ? RP_E_SYSTEM : RP_E_INVAL, "%s: %s", live->iface, why);
		live->denied = act == PCAP_ERROR_PERM_DENIED;
		pcap_close(p);
		return act == PCAP_ERROR_PERM_DENIED ? RP_E_SYSTEM : RP_E_INVAL;
	}
	struct bpf_program prog;
	const char *const filter = live->filter ? live->filter : RP_CAPTURE_DEFAULT_FILTER;
	if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		rp_fail(errbuf, RP_E_SYNTAX, "filter '%s': %s", filter, pcap_geterr(p));
		pcap_close(p);
		return RP_E_SYNTAX;
	}
	const int sf = pcap_setfilter(p, &prog);
	pcap_freecode(&prog);
	if (sf != 0 || pcap_setnonblock(p, 1, pe) != 0) {
		rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", live->iface, sf != 0 ? pcap_geterr(p) : pe);
		pcap_close(p);
		return RP_E_SYSTEM;
	}
	*out = p;
	return 0;
}

/* Read until the duration passes, *stop is set, the handle is broken or an error. */
static int run(live_ctx *lc, rp_live_opts *live, char *errbuf)
{
	const int fd = pcap_get_selectable_fd(lc->p);
	const double end = live->duration_s > 0 ? mono_now() + live->duration_s : 0;
	double next_progress = mono_now() + 1;
	for (;;) {
		if (live->stop && *live->stop)
			return 0;
		if (live->progress && mono_now() >= next_progress) {
			live->progress(live->progress_ctx, rp_capture_get_stats(lc->cap));
			next_progress += 1;
		}
		int wait_ms = POLL_MS;
		if (end > 0) {
			const double left = end - mono_now();
			if (left <= 0)
				return 0;
			if (left * 1000 < wait_ms)
				wait_ms = (int)(left * 1000) + 1;
		}
		if (fd >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			if (poll(&pfd, 1, wait_ms) < 0 && errno != EINTR)
				return rp_fail(errbuf, RP_E_SYSTEM, "%s: poll: %s", live->iface, strerror(errno));
		}
		const int n = pcap_dispatch(lc->p, -1, on_packet, (u_char *)lc);
		if (lc->err)
			return rp_fail(errbuf, lc->err, "%s: %s", live->iface, rp_capture_error(lc->cap));
		if (n == PCAP_ERROR_BREAK)
			return 0;
		if (n == PCAP_ERROR)
			return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", live->iface, pcap_geterr(lc->p));
	}
}

int rp_capture_live(rp_live_opts *live, rp_sink *sink, const rp_capture_opts *opts, rp_capture_stats *stats,
		    char *errbuf)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!live || !live->iface)
		return rp_fail(errbuf, RP_E_INVAL, "live capture: no interface");
	live_ctx lc = { .err = 0 };
	int rc = rp__pcap_load(errbuf);
	if (rc < 0)
		return rc;
	rc = open_live(&lc.p, live, errbuf);
	if (rc < 0)
		return rc;
	lc.dlt = pcap_datalink(lc.p);
	lc.precision = pcap_get_tstamp_precision(lc.p);
	rc = rp_capture_create(&lc.cap, sink, opts, errbuf);
	if (rc < 0) {
		pcap_close(lc.p);
		return rc;
	}
	char host[RP_META_HOST_MAX] = "";
	gethostname(host, sizeof(host) - 1);
	rp_capture_set_source(lc.cap, live->iface, host);
	if (live->progress)
		live->progress(live->progress_ctx, rp_capture_get_stats(lc.cap));
	live_handle = lc.p;
	rc = run(&lc, live, errbuf);
	live_handle = NULL;
	/* What the kernel has buffered already is part of the capture. */
	if (rc == 0)
		(void)pcap_dispatch(lc.p, -1, on_packet, (u_char *)&lc);
	struct pcap_stat ps;
	uint64_t drops = 0;
	if (pcap_stats(lc.p, &ps) == 0)
		drops = (uint64_t)ps.ps_drop + ps.ps_ifdrop;
	pcap_close(lc.p);
	const int frc = rp_capture_finish(lc.cap);
	if (rc == 0 && frc < 0)
		rc = rp_fail(errbuf, frc, "%s", rp_capture_error(lc.cap));
	if (stats) {
		*stats = *rp_capture_get_stats(lc.cap);
		stats->kernel_drops = drops;
		stats->live = true;
	}
	rp_capture_destroy(lc.cap);
	return rc;
}
