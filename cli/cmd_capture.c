/* reprise capture --iface IF [-o out.rpz]: live packet capture of NFS and SMB traffic into a trace. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "cli/commands.h"
#include "cli/input.h"
#include "cli/outfile.h"
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
		   "they come: TCP reassembly, ONC RPC (NFSv3, NFSv4.x, MOUNT) and SMB1/2/3, written to\n"
		   "OUT.part-XXXXXX beside OUT and renamed to OUT when the capture ends: SIGINT or SIGTERM stop it\n"
		   "cleanly and the trace is finished either way.  After a crash (kill -9, power loss) the partial\n"
		   "trace stays under the .part name, readable up to its last whole frame; a capture that fails\n"
		   "before any op leaves OUT as it was.\n"
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
		rp__cli_err("capture", "--iface and -o are required");
		return 2;
	}
	rp_capture_opts copts = { .max_flows = (uint32_t)o.max_flows };
	if (rp__cli_client_key(o.client_key, &copts.client_key) != 0) {
		fprintf(stderr, "reprise capture: --client-key: use addr+principal, addr or conn\n");
		return 2;
	}
	char errbuf[RP_ERRBUF_SIZE] = "";
	/* The trace grows under OUT.part-XXXXXX and becomes OUT when the capture ends (docs/capture.md). */
	rp_outfile of;
	if (rp__cli_out_open(&of, "capture", o.out))
		return 1;
	rp_rpz_writer *w = NULL;
	if (rp_rpz_writer_open_file(&w, of.f, of.std ? "<stdout>" : o.out, NULL, errbuf) < 0) {
		rp__cli_err("capture", "%s", errbuf);
		rp__cli_out_abort(&of);
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
	memset(&st, 0, sizeof(st));
	const int rc = rp_capture_live(&live, rp_rpz_writer_sink(w), &copts, &st, errbuf);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	char cerr[RP_ERRBUF_SIZE] = "";
	const int crc = rp_rpz_writer_close(w, cerr);
	if (!o.quiet || rc < 0)
		rp_capture_stats_print(&st, stderr);
	if (rc < 0 || crc < 0) {
		rp__cli_err("capture", "%s", rc < 0 ? errbuf : cerr);
		if (st.ops && of.tmp[0]) {
			/* Ops were captured before the failure: keep them (readable up to the last whole frame), but
			 * not as OUT, which a failed capture must not replace. */
			rp__cli_err("capture", "the %llu ops captured before the error are in %s", (unsigned long long)st.ops,
				    of.tmp);
			rp__cli_out_keep(&of);
		} else {
			rp__cli_out_abort(&of);
		}
		return 1;
	}
	if (rp__cli_out_commit(&of, "capture"))
		return 1;
	if (o.strict && rp_capture_stats_lossy(&st)) {
		rp__cli_err("capture", "--strict: the capture was lossy (see the summary above)");
		return 1;
	}
	return 0;
}

const rp_command rp__cmd_capture = { .spec = &spec, .run = run };
