/* Any input into a sink over converters/pump.h, with capture/'s packet producer added, its messages and progress bar. */
#include "cli/input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/nfsdump.h"
#include "cli/output.h"
#include "converters/csv.h"

/* Terminal progress: a bar drawn at most every 0.2 s on stderr. */
typedef struct progress {
	double next_draw;
	bool drawn;
} progress;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void draw(void *ctx, uint64_t ops, const rp_reader *r)
{
	progress *const p = ctx;
	const double t = now_s();
	if (t < p->next_draw)
		return;
	p->next_draw = t + 0.2;
	if (r && r->in_size) {
		const double frac = (double)r->in_bytes / (double)r->in_size;
		const int width = 30, fill = (int)(frac * width + 0.5);
		fprintf(stderr, "\r[%.*s%*s] %3.0f%%  %" PRIu64 " ops", fill > width ? width : fill,
			"##############################", fill > width ? 0 : width - fill, "", frac * 100, ops);
	} else {
		fprintf(stderr, "\r%" PRIu64 " ops", ops);
	}
	p->drawn = true;
}

static void draw_done(void *ctx)
{
	if (((progress *)ctx)->drawn)
		fprintf(stderr, "\r%*s\r", 60, "");
}

int rp__cli_window(const char *cmd, double from_s, double to_s, rp_input_opts *io)
{
	if (from_s <= 0 && to_s <= 0)
		return 0;
	if (to_s > 0 && to_s <= from_s) {
		rp__cli_err(cmd, "--until must be after --from");
		return 2;
	}
	io->window = true;
	io->from_ns = (uint64_t)(from_s * 1e9 + 0.5);
	io->to_ns = to_s > 0 ? (uint64_t)(to_s * 1e9 + 0.5) : UINT64_MAX;
	return 0;
}

int rp__cli_client_key(const char *s, rp_client_key *out)
{
	if (!s || strcmp(s, "addr+principal") == 0)
		*out = RP_CLIENT_ADDR_PRINCIPAL;
	else if (strcmp(s, "addr") == 0)
		*out = RP_CLIENT_ADDR;
	else if (strcmp(s, "conn") == 0)
		*out = RP_CLIENT_CONN;
	else
		return -1;
	return 0;
}

/* Inputs this large get a progress bar when stderr is a terminal. */
#define PROGRESS_MIN_BYTES (16u << 20)

static bool want_progress(const char *path, const rp_input_opts *opts)
{
	struct stat st;
	return !opts->quiet && isatty(STDERR_FILENO) && stat(path, &st) == 0 &&
	       (uint64_t)st.st_size >= PROGRESS_MIN_BYTES;
}

/* The packet capture producer: the CLI's own entry in the registry (converters/ never calls capture/). */
static bool sniff_pcap(const void *head, size_t len, const char *path)
{
	return rp_format_sniff(head, len, path) == RP_FMT_PCAP;
}

static int run_pcap(const char *path, rp_sink *sink, const rp_conv_in_opts *copts, rp_conv_in_report *rep,
		    char *errbuf)
{
	const rp_input_opts *const opts = copts->extra;
	rp_capture_stats st;
	memset(&st, 0, sizeof(st));
	const int rc = rp_capture_file(path, sink, &opts->capture, &st, errbuf);
	if (opts->capture_stats) {
		*opts->capture_stats = st;
		*opts->capture_seen = true;
	}
	if (!opts->quiet || rc < 0)
		rp_capture_stats_print(&st, stderr);
	if (rc < 0)
		return rc;
	if (st.file_cut) {
		/* As tcpdump says "truncated dump file": the file stops inside a packet; what came before stands. */
		snprintf(rep->note, sizeof(rep->note), "%s: truncated dump file: it ends inside a packet record after %" PRIu64
			 " frames; ops of later packets are missing", path, st.frames);
		rep->cut = true;
	}
	if (opts->strict && rp_capture_stats_no_file_traffic(&st))
		return rp_fail(errbuf, RP_E_INVAL, "%s: --strict: no NFS or SMB message in %" PRIu64 " frames (see above)",
			       path, st.frames);
	if (opts->strict && rp_capture_stats_lossy(&st))
		return rp_fail(errbuf, RP_E_INVAL, "%s: --strict: the decode was lossy (see the summary above)", path);
	return 0;
}

static const rp_conv_producer pcap_producer = { "pcap", "pcap/pcapng capture (SMB, NFS)", sniff_pcap, run_pcap, false };

/* nfsdump text, plain or gzip'd (the Harvard NFS traces): the CLI's too, as it decodes with capture/'s handle map. */
static bool sniff_nfsdump(const void *head, size_t len, const char *path)
{
	(void)path;
	return rp_nfsdump_sniff(head, len);
}

static int run_nfsdump(const char *path, rp_sink *sink, const rp_conv_in_opts *copts, rp_conv_in_report *rep,
		       char *errbuf)
{
	const rp_input_opts *const opts = copts->extra;
	rp_nfsdump_stats st;
	const int rc = rp_nfsdump_file(path, sink, opts ? &opts->capture : NULL, &st, errbuf);
	rp_nfsdump_stats_format(&st, rep->counts, sizeof(rep->counts));
	if (rc < 0)
		return rc;
	if (st.cut) {
		snprintf(rep->note, sizeof(rep->note), "%s: the gzip stream ends inside a member after %" PRIu64
			 " lines: ops of later lines are missing", path, st.lines);
		rep->cut = true;
	} else if (st.trailing) {
		snprintf(rep->note, sizeof(rep->note), "%s: bytes after the last gzip member are no gzip member: ignored", path);
	}
	return 0;
}

/* A CSV block or inode trace: never sniffed (any text is CSV), read when --csv says so. */
static bool sniff_none(const void *head, size_t len, const char *path)
{
	(void)head;
	(void)len;
	(void)path;
	return false;
}

static int run_csv(const char *path, rp_sink *sink, const rp_conv_in_opts *copts, rp_conv_in_report *rep, char *errbuf)
{
	const rp_input_opts *const opts = copts->extra;
	rp_csv_map m;
	int rc = rp_csv_map_parse(opts->csv, &m, errbuf);
	if (rc < 0)
		return rc;
	FILE *const f = fopen(path, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	rp_csv_stats st;
	rc = rp_csv_read(f, path, &m, copts->lenient, sink, &st, errbuf);
	fclose(f);
	rp_csv_summary(&st, &m, rep->counts, sizeof(rep->counts));
	if (copts->lenient)
		rep->skipped = st.bad;
	return rc;
}

static const rp_conv_producer csv_producer = { "csv", "CSV I/O trace (--csv)", sniff_none, run_csv, false };

static const rp_conv_producer nfsdump_producer = { "nfsdump", "nfsdump text, plain or gzip'd (NFSv2/v3)", sniff_nfsdump,
						   run_nfsdump, false };

int rp__cli_in_open(rp_cli_in *in, const char *cmd, const char *arg)
{
	char errbuf[RP_ERRBUF_SIZE];
	if (rp_conv_input_open(in, arg, errbuf) == RP_OK)
		return 0;
	rp__cli_err(cmd, "%s", errbuf);
	return 1;
}

int rp__cli_tmp_file(const char *cmd, const char *name)
{
	char errbuf[RP_ERRBUF_SIZE];
	const int fd = rp_conv_tmp_file(name, errbuf);
	if (fd < 0)
		rp__cli_err(cmd, "%s", errbuf);
	return fd < 0 ? -1 : fd;
}

int rp__cli_in_convert(rp_cli_in *in, const char *cmd, bool lenient)
{
	const rp_conv_producer *prod = NULL;
	char errbuf[RP_ERRBUF_SIZE];
	const rp_conv_producer *const extra[] = { &nfsdump_producer };
	if (rp_conv_input_producer(in, extra, 1, &prod, errbuf) < 0 && in->dir) {
		rp__cli_err(cmd, "%s", errbuf);
		return 1;
	}
	/* A file no converter claims, or that cannot be read: the reader says why. */
	if (!prod || (strcmp(prod->name, "strace") != 0 && strcmp(prod->name, "ctf") != 0 &&
		      strcmp(prod->name, "text") != 0 && prod != &nfsdump_producer))
		return 0;
	const int fd = rp__cli_tmp_file(cmd, in->name);
	if (fd < 0)
		return 1;
	const int wfd = dup(fd);
	FILE *const out = wfd >= 0 ? fdopen(wfd, "wb") : NULL;
	if (!out) {
		rp__cli_err(cmd, "%s: %s", in->name, strerror(errno));
		if (wfd >= 0)
			close(wfd);
		close(fd);
		return 1;
	}
	const rp_conv_consumer *const c = rp_conv_consumer_find("rpz");
	rp_conv_out *o = NULL;
	rp_sink *sink = NULL;
	int rc = c->open(&o, out, in->name, NULL, &sink, errbuf) < 0 ? 1 : 0;
	if (rc)
		rp__cli_err(cmd, "%s", errbuf);
	if (!rc) {
		const rp_input_opts io = { .lenient = lenient, .cmd = cmd };
		rc = rp__cli_pump(in->path, sink, &io);
		char note[RP_ERRBUF_SIZE];
		if (c->close(o, false, note, errbuf) < 0 && !rc) {
			rp__cli_err(cmd, "%s", errbuf);
			rc = 1;
		}
	}
	if (fclose(out) != 0 && !rc) {
		rp__cli_err(cmd, "%s: writing its conversion: %s", in->name, strerror(errno));
		rc = 1;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	rp_conv_input_close(in);
	in->fd = fd;
	in->dir = false;
	snprintf(in->fdpath, sizeof(in->fdpath), "/dev/fd/%d", fd);
	in->path = in->fdpath;
	return 0;
}

int rp__cli_pump(const char *arg, rp_sink *sink, const rp_input_opts *opts)
{
	rp_cli_in in;
	const int orc = rp__cli_in_open(&in, opts->cmd, arg);
	if (orc)
		return orc;
	char errbuf[RP_ERRBUF_SIZE] = "";
	const rp_conv_producer *prod = NULL;
	const rp_conv_producer *const extra[] = { &pcap_producer, &nfsdump_producer };
	if (opts->csv) {
		rp_csv_map m;
		if (rp_csv_map_parse(opts->csv, &m, errbuf) < 0) {
			rp__cli_err(opts->cmd, "%s", errbuf);
			rp_conv_input_close(&in);
			return 2;
		}
		prod = &csv_producer;
	} else if (rp_conv_input_producer(&in, extra, 2, &prod, errbuf) < 0) {
		rp__cli_err(opts->cmd, "%s", errbuf);
		rp_conv_input_close(&in);
		return 1;
	}
	if (opts->verbose && in.fd >= 0)
		rp__cli_err(opts->cmd, "%s: read as %s (%s), spooled first: %" PRIu64 " bytes in TMPDIR", in.name,
			    prod->name, prod->what, in.bytes);
	else if (opts->verbose)
		rp__cli_err(opts->cmd, "%s: read as %s (%s)", in.name, prod->name, prod->what);
	/* Options for another kind of input do nothing here: say so rather than let them look obeyed. */
	const bool pcap_in = prod == &pcap_producer;
	const bool lines_in = strcmp(prod->name, "loadfile") == 0 || strcmp(prod->name, "text") == 0 ||
			      strcmp(prod->name, "strace") == 0 || prod == &csv_producer;
	if (opts->lenient && !lines_in)
		rp__cli_err(opts->cmd, "warning: --lenient applies to loadfile, text, strace and CSV input only; %s is read as %s", in.name,
			    prod->what);
	if ((opts->strict && !pcap_in) || (opts->client_key_set && !pcap_in && prod != &nfsdump_producer))
		rp__cli_err(opts->cmd, "warning: %s applies to packet captures only; %s is read as %s",
			    opts->strict ? "--strict" : "--client-key", in.name, prod->what);
	progress bar = { .next_draw = 0 };
	const bool draw_it = want_progress(in.path, opts);
	const rp_conv_pump_opts po = {
		.lenient = opts->lenient, .filter_client = opts->filter_client, .client = opts->client,
		.window = opts->window, .from_ns = opts->from_ns, .to_ns = opts->to_ns, .seek_ns = opts->seek_ns,
		.extra = opts, .progress = draw_it ? draw : NULL, .progress_done = draw_done, .ctx = &bar,
	};
	rp_conv_pump_report rep;
	const int rc = rp_conv_pump(&in, prod, sink, &po, &rep, errbuf);
	rp_conv_input_close(&in);
	if (rep.in.note[0])
		rp__cli_err(opts->cmd, "warning: %s", rep.in.note);
	if (rep.in.counts[0] && !opts->quiet)
		fprintf(stderr, "%s\n", rep.in.counts);
	if (rep.in.cut && opts->cut)
		*opts->cut = true;
	if (opts->seek_skipped)
		*opts->seek_skipped = rep.in.seek_skipped;
	if (rep.in.skipped)
		rp__cli_err(opts->cmd, "%s: skipped %" PRIu64 " bad line%s (--lenient)", in.name, rep.in.skipped,
			    rep.in.skipped == 1 ? "" : "s");
	if (rc < 0) {
		rp__cli_err(opts->cmd, "%s", errbuf);
		return 1;
	}
	/* The readers of traces and loadfiles drop other clients' ops before the filter sees them. */
	if (opts->window && rep.kept == 0 && !opts->quiet)
		rp__cli_err(opts->cmd, "warning: %s: no op starts in the time window given (--from/--until)", in.path);
	if (opts->filter_client && rep.kept == 0)
		rp__cli_err(opts->cmd, "warning: %s: no op of client %" PRIu32 " (`reprise stat` lists the clients)", in.path,
			    opts->client);
	return 0;
}
