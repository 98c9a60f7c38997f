/* reprise capture --iface IF [-o out.rpz]: live packet capture of NFS and SMB traffic into a trace. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "cli/commands.h"
#include "cli/input.h"
#include "formats/rpz.h"

static struct {
	const char *iface, *filter, *out, *client_key;
	double duration;
	uint64_t buffer_mib, max_flows;
	bool strict, quiet;
} o;

static const rp_opt options[] = {
	{ "iface", 'i', RP_OPT_STRING, &o.iface, "IF", "interface to capture on (lo for servers on 127.0.0.1)" },
	{ "filter", 'f', RP_OPT_STRING, &o.filter, "BPF",
	  "capture filter (default: ports 2049, 111, 20048, 635, 445, 139); decoding goes by content, not port" },
	{ "duration", 'd', RP_OPT_DURATION, &o.duration, "TIME", "stop after this long (10, 90s, 5m; 1 ms to 1e8 s); default: until SIGINT/SIGTERM" },
	{ "output", 'o', RP_OPT_STRING, &o.out, "FILE", "the trace to write (.rpz)" },
	{ "buffer", 0, RP_OPT_UINT, &o.buffer_mib, "MIB", "kernel capture buffer in MiB, 1-2047 (default 64)" },
	{ "max-flows", 0, RP_OPT_UINT, &o.max_flows, "N", "connections tracked at once, 1-16777216 (default 65536)" },
	{ "client-key", 0, RP_OPT_STRING, &o.client_key, "KEY", "a client is addr+principal (default), addr or conn" },
	{ "strict", 0, RP_OPT_FLAG, &o.strict, NULL,
	  "fail when anything was truncated, invalid, unsupported, unmatched, encrypted or dropped" },
	{ "quiet", 'q', RP_OPT_FLAG, &o.quiet, NULL, "no summary on stderr" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const rp_optrange ranges[] = {
	{ "duration", 1e-3, 1e8 },
	{ "buffer", 1, 2047 },          /* libpcap takes the buffer size as an int of bytes: 2047 MiB fits */
	{ "max-flows", 1, 1u << 24 },   /* each held flow costs its reassembly state; 16 M is far past any capture */
	{ NULL, 0, 0 },
};

static const rp_cmd spec = {
	.name = "capture",
	.ranges = ranges,
	.usage = "--iface IF [options] -o OUT.rpz",
	.summary = "capture NFS and SMB traffic live from an interface into a trace",
	.details = "Captures packets with libpcap (immediate mode, a large kernel buffer) and decodes them as\n"
		   "they come: TCP reassembly, ONC RPC (NFSv3, NFSv4.x, MOUNT) and SMB1/2/3, written straight to\n"
		   "OUT.  SIGINT or SIGTERM stops the capture cleanly; the trace is finished and closed either way.\n"
		   "A summary on stderr gives frames, ops, and how many messages were truncated, invalid,\n"
		   "unsupported (by name), unmatched or encrypted, plus packets the kernel dropped.\n"
		   "Capturing needs CAP_NET_RAW (root).",
	.opts = options,
	.min_args = 0,
	.max_args = 0,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	rp_capture_live_break();
}

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int pr = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (pr != 0)
		return pr > 0 ? 0 : 2;
	if (!o.iface || !o.out) {
		fprintf(stderr, "reprise capture: --iface and -o are required\n");
		return 2;
	}
	rp_capture_opts copts = { .max_flows = (uint32_t)o.max_flows };
	if (rp__cli_client_key(o.client_key, &copts.client_key) != 0) {
		fprintf(stderr, "reprise capture: --client-key: use addr+principal, addr or conn\n");
		return 2;
	}
	char errbuf[RP_ERRBUF_SIZE] = "";
	rp_rpz_writer *w = NULL;
	if (rp_rpz_writer_open(&w, o.out, NULL, errbuf) < 0) {
		fprintf(stderr, "reprise capture: %s\n", errbuf);
		return 1;
	}
	stop = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	const rp_live_opts live = {
		.iface = o.iface,
		.filter = o.filter,
		.duration_s = o.duration,
		.buffer_bytes = (int)(o.buffer_mib << 20),
		.stop = &stop,
	};
	rp_capture_stats st;
	const int rc = rp_capture_live(&live, rp_rpz_writer_sink(w), &copts, &st, errbuf);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	char cerr[RP_ERRBUF_SIZE] = "";
	const int crc = rp_rpz_writer_close(w, cerr);
	if (!o.quiet || rc < 0)
		rp_capture_stats_print(&st, stderr);
	if (rc < 0) {
		fprintf(stderr, "reprise capture: %s\n", errbuf);
		return 1;
	}
	if (crc < 0) {
		fprintf(stderr, "reprise capture: %s\n", cerr);
		return 1;
	}
	if (o.strict && rp_capture_stats_lossy(&st)) {
		fprintf(stderr, "reprise capture: --strict: the capture was lossy (see the summary above)\n");
		return 1;
	}
	return 0;
}

const rp_command rp__cmd_capture = { .spec = &spec, .run = run };
