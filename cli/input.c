/* Any input into a sink, through the converters' registry of producers (and capture/ for pcaps, added here). */
#include "cli/input.h"

#include "cli/output.h"
#include "converters/ctf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Wraps the caller's sink to draw a progress bar on a terminal. */
typedef struct progress_sink {
	rp_sink base;
	rp_sink *inner;
	const rp_conv_in_report *rep; /* its reader, for the byte position, while a trace is read */
	uint64_t size;           /* input size */
	uint64_t ops;
	double next_draw;
	bool draw;               /* a progress bar (a large input, stderr a terminal) */
	bool drawn;
	const char *source_name; /* a spooled input's name for the metadata */
	const char *spool_path;  /* the spool's /dev/fd/N, NULL if the input was not spooled */
} progress_sink;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void draw(progress_sink *p)
{
	const rp_reader *const r = p->rep ? p->rep->reader : NULL;
	if (r && r->in_size) {
		const double frac = (double)r->in_bytes / (double)r->in_size;
		const int width = 30, fill = (int)(frac * width + 0.5);
		fprintf(stderr, "\r[%.*s%*s] %3.0f%%  %" PRIu64 " ops", fill > width ? width : fill,
			"##############################", fill > width ? 0 : width - fill, "", frac * 100, p->ops);
	} else {
		fprintf(stderr, "\r%" PRIu64 " ops", p->ops);
	}
	p->drawn = true;
}

static int p_meta(rp_sink *s, const rp_trace_meta *m)
{
	progress_sink *const p = (progress_sink *)s;
	rp_trace_meta named = *m;
	/* A producer that names the trace after its file would say "5" (from /dev/fd/5); a .rpz keeps its own. */
	const char *const spool = p->spool_path ? strrchr(p->spool_path, '/') + 1 : NULL;
	if (spool && (strcmp(m->source_name, spool) == 0 || strcmp(m->source_name, p->spool_path) == 0))
		snprintf(named.source_name, sizeof(named.source_name), "%s", p->source_name);
	const int rc = p->inner->meta(p->inner, &named);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

static int p_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	progress_sink *const p = (progress_sink *)s;
	const int rc = p->inner->string(p->inner, id, str, len);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

static int p_op(rp_sink *s, const rp_op *op)
{
	progress_sink *const p = (progress_sink *)s;
	if ((++p->ops & 0xffff) == 0 && p->draw) {
		const double t = now_s();
		if (t >= p->next_draw) {
			draw(p);
			p->next_draw = t + 0.2;
		}
	}
	const int rc = p->inner->op(p->inner, op);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

static int p_finish(rp_sink *s)
{
	progress_sink *const p = (progress_sink *)s;
	if (p->drawn)
		fprintf(stderr, "\r%*s\r", 60, "");
	const int rc = p->inner->finish(p->inner);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

/*
 * Keeps one client's ops (`cat -c N`) whatever the producer: readers of traces
 * and loadfiles filter themselves, a packet capture does not.  Counts what it
 * passed so the command can say when nothing matched.
 */
typedef struct filter_sink {
	rp_sink base;
	rp_sink *inner;
	bool by_client, by_time;
	uint32_t client;
	uint64_t from, to;
	uint64_t seen, kept;
} filter_sink;

static int f_meta(rp_sink *s, const rp_trace_meta *m)
{
	filter_sink *const p = (filter_sink *)s;
	const int rc = p->inner->meta(p->inner, m);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

static int f_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	filter_sink *const p = (filter_sink *)s;
	const int rc = p->inner->string(p->inner, id, str, len);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

static int f_op(rp_sink *s, const rp_op *op)
{
	filter_sink *const p = (filter_sink *)s;
	p->seen++;
	if (p->by_client && op->client != p->client)
		return 0;
	if (p->by_time && (op->t_start < p->from || op->t_start >= p->to))
		return 0;
	p->kept++;
	const int rc = p->inner->op(p->inner, op);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

static int f_finish(rp_sink *s)
{
	filter_sink *const p = (filter_sink *)s;
	const int rc = p->inner->finish(p->inner);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
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
	if (opts->strict && rp_capture_stats_lossy(&st))
		return rp_fail(errbuf, RP_E_INVAL, "%s: --strict: the decode was lossy (see the summary above)", path);
	return 0;
}

static const rp_conv_producer pcap_producer = { "pcap", "pcap/pcapng capture (SMB, NFS)", sniff_pcap, run_pcap, false };

void rp__cli_in_rename(const rp_cli_in *in, char *msg, size_t size)
{
	if (in->fd < 0)
		return;
	const size_t fl = strlen(in->fdpath), nl = strlen(in->name);
	char *p;
	while ((p = strstr(msg, in->fdpath)) != NULL) {
		const size_t tail = strlen(p + fl);
		if ((size_t)(p - msg) + nl + tail + 1 > size)
			break;
		memmove(p + nl, p + fl, tail + 1);
		memcpy(p, in->name, nl);
	}
}

void rp__cli_in_close(rp_cli_in *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}

/* Copy the stream src into a new unlinked file in $TMPDIR. */
static int spool(rp_cli_in *in, const char *cmd, int src)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	char tmpl[4096];
	if (snprintf(tmpl, sizeof(tmpl), "%s/reprise-spool-XXXXXX", dir) >= (int)sizeof(tmpl)) {
		rp__cli_err(cmd, "TMPDIR is too long");
		return 1;
	}
	const int fd = mkstemp(tmpl);
	if (fd < 0) {
		rp__cli_err(cmd, "%s: cannot spool it: %s: %s (set TMPDIR)", in->name, dir, strerror(errno));
		return 1;
	}
	unlink(tmpl); /* gone when the command ends, however it ends */
	static char buf[1 << 16];
	for (;;) {
		const ssize_t n = read(src, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rp__cli_err(cmd, "%s: read error: %s", in->name, strerror(errno));
			close(fd);
			return 1;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			const ssize_t w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				rp__cli_err(cmd, "%s: spooling it to %s after %" PRIu64 " bytes: %s (set TMPDIR)", in->name,
					    dir, in->bytes, strerror(errno));
				close(fd);
				return 1;
			}
			off += w;
			in->bytes += (uint64_t)w;
		}
	}
	in->fd = fd;
	snprintf(in->fdpath, sizeof(in->fdpath), "/dev/fd/%d", fd);
	in->path = in->fdpath;
	return 0;
}

int rp__cli_in_open(rp_cli_in *in, const char *cmd, const char *arg)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = arg;
	in->name = arg;
	if (strcmp(arg, "-") == 0) {
		in->name = "<stdin>";
		return spool(in, cmd, STDIN_FILENO);
	}
	struct stat st;
	if (stat(arg, &st) != 0) {
		rp__cli_err(cmd, "%s: %s", arg, strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		in->dir = true; /* a CTF trace, or nothing reprise reads: rp__cli_pump says which */
		return 0;
	}
	if (S_ISREG(st.st_mode))
		return 0; /* read in place */
	/* A FIFO, a pipe (/dev/stdin, <(process substitution)), a device: opened as cat would, waiting for a FIFO's writer. */
	const int src = open(arg, O_RDONLY | O_CLOEXEC);
	if (src < 0) {
		rp__cli_err(cmd, "%s: %s", arg, strerror(errno));
		return 1;
	}
	const int rc = spool(in, cmd, src);
	close(src);
	return rc;
}

/* An unlinked temporary file in $TMPDIR for a conversion: its fd, or -1 after printing why. */
int rp__cli_tmp_file(const char *cmd, const char *name)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	char tmpl[4096];
	if (snprintf(tmpl, sizeof(tmpl), "%s/reprise-conv-XXXXXX", dir) >= (int)sizeof(tmpl)) {
		rp__cli_err(cmd, "TMPDIR is too long");
		return -1;
	}
	const int fd = mkstemp(tmpl);
	if (fd < 0) {
		rp__cli_err(cmd, "%s: cannot convert it: %s: %s (set TMPDIR)", name, dir, strerror(errno));
		return -1;
	}
	unlink(tmpl); /* gone when the command ends, however it ends */
	return fd;
}

/* The producer of a directory input, or (on *none) the error that none claims it. */
static const rp_conv_producer *dir_producer(const rp_cli_in *in, const char *cmd)
{
	const rp_conv_producer *const prod = rp_conv_producer_sniff_dir(in->path);
	if (!prod)
		rp__cli_err(cmd, "%s: %s, and no CTF trace (a directory with a metadata file) within %u levels", in->name,
			    strerror(EISDIR), RP_CTF_DEPTH_MAX);
	return prod;
}

int rp__cli_in_convert(rp_cli_in *in, const char *cmd, bool lenient)
{
	const rp_conv_producer *prod = NULL;
	if (in->dir) {
		if (!(prod = dir_producer(in, cmd)))
			return 1;
	} else {
		FILE *const f = fopen(in->path, "rb");
		if (!f)
			return 0; /* the reader says why */
		unsigned char head[4096];
		const size_t n = fread(head, 1, sizeof(head), f);
		fclose(f);
		prod = rp_conv_producer_sniff(head, n, in->path, NULL, 0);
	}
	if (!prod || (strcmp(prod->name, "strace") != 0 && strcmp(prod->name, "ctf") != 0 &&
		      strcmp(prod->name, "text") != 0))
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
	char errbuf[RP_ERRBUF_SIZE];
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
	rp__cli_in_close(in);
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
	const char *const path = in.path;
	char errbuf[RP_ERRBUF_SIZE] = "";
	const rp_conv_producer *prod = NULL;
	if (in.dir) {
		if (!(prod = dir_producer(&in, opts->cmd)))
			return 1;
	} else {
		FILE *const f = fopen(path, "rb");
		if (!f) {
			rp__cli_err(opts->cmd, "%s: %s", in.name, strerror(errno));
			rp__cli_in_close(&in);
			return 1;
		}
		unsigned char head[4096];
		const size_t n = fread(head, 1, sizeof(head), f);
		fclose(f);
		const rp_conv_producer *const extra[] = { &pcap_producer };
		prod = rp_conv_producer_sniff(head, n, path, extra, 1);
		if (!prod) {
			rp_conv_unknown_input(head, n, path, errbuf);
			rp__cli_in_rename(&in, errbuf, sizeof(errbuf));
			rp__cli_err(opts->cmd, "%s", errbuf);
			rp__cli_in_close(&in);
			return 1;
		}
	}
	if (opts->verbose && in.fd >= 0)
		rp__cli_err(opts->cmd, "%s: read as %s (%s), spooled first: %" PRIu64 " bytes in TMPDIR", in.name,
			    prod->name, prod->what, in.bytes);
	else if (opts->verbose)
		rp__cli_err(opts->cmd, "%s: read as %s (%s)", in.name, prod->name, prod->what);
	/* Options for another kind of input do nothing here: say so rather than let them look obeyed. */
	const bool pcap_in = prod == &pcap_producer;
	const bool lines_in = strcmp(prod->name, "loadfile") == 0 || strcmp(prod->name, "text") == 0 ||
			      strcmp(prod->name, "strace") == 0;
	if (opts->lenient && !lines_in)
		rp__cli_err(opts->cmd, "warning: --lenient applies to loadfile, text and strace input only; %s is read as %s", in.name,
			    prod->what);
	if ((opts->strict || opts->client_key_set) && !pcap_in)
		rp__cli_err(opts->cmd, "warning: %s applies to packet captures only; %s is read as %s",
			    opts->strict ? "--strict" : "--client-key", in.name, prod->what);
	rp_conv_in_report rep;
	memset(&rep, 0, sizeof(rep));
	progress_sink prog = {
		.base = { .meta = p_meta, .string = p_string, .op = p_op, .finish = p_finish },
		.inner = sink,
		.rep = &rep,
		.draw = want_progress(path, opts),
		.source_name = in.name,
		.spool_path = in.fd >= 0 ? in.fdpath : NULL,
	};
	filter_sink filt = {
		.base = { .meta = f_meta, .string = f_string, .op = f_op, .finish = f_finish },
		.inner = sink,
		.by_client = opts->filter_client,
		.by_time = opts->window,
		.client = opts->client,
		.from = opts->from_ns,
		.to = opts->to_ns,
	};
	rp_sink *const filtered = opts->filter_client || opts->window ? &filt.base : sink;
	prog.inner = filtered;
	rp_sink *const out = prog.draw || prog.spool_path ? &prog.base : filtered;
	const rp_conv_in_opts copts = { .lenient = opts->lenient, .filter_client = opts->filter_client,
					.client = opts->client, .seek_ns = opts->seek_ns, .extra = opts };
	const int rc = prod->run(path, out, &copts, &rep, errbuf);
	rp__cli_in_rename(&in, errbuf, sizeof(errbuf));
	rp__cli_in_rename(&in, rep.note, sizeof(rep.note));
	rp__cli_in_rename(&in, rep.counts, sizeof(rep.counts));
	rp__cli_in_close(&in);
	if (rep.note[0])
		rp__cli_err(opts->cmd, "warning: %s", rep.note);
	if (rep.counts[0] && !opts->quiet)
		fprintf(stderr, "%s\n", rep.counts);
	if (rep.cut && opts->cut)
		*opts->cut = true;
	if (opts->seek_skipped)
		*opts->seek_skipped = rep.seek_skipped;
	if (rep.skipped)
		rp__cli_err(opts->cmd, "%s: skipped %" PRIu64 " bad line%s (--lenient)", in.name, rep.skipped,
			    rep.skipped == 1 ? "" : "s");
	if (rc < 0) {
		rp__cli_err(opts->cmd, "%s", errbuf);
		return 1;
	}
	/* The readers of traces and loadfiles drop other clients' ops before the filter sees them. */
	if (opts->window && filt.kept == 0 && !opts->quiet)
		rp__cli_err(opts->cmd, "warning: %s: no op starts in the time window given (--from/--until)", path);
	if (opts->filter_client && filt.kept == 0)
		rp__cli_err(opts->cmd, "warning: %s: no op of client %" PRIu32 " (`reprise stat` lists the clients)", path,
			    opts->client);
	return 0;
}
