/* Any input into a sink through the registry: spooled streams, the producer sniffed, client and time filters, progress. */
#include "converters/pump.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "converters/ctf.h"
#include "formats/error.h"

/* Counts ops for the progress callback and puts a spooled input's name in the metadata. */
typedef struct progress_sink {
	rp_sink base;
	rp_sink *inner;
	const rp_conv_in_report *rep; /* its reader, for the byte position, while a trace is read */
	const rp_conv_pump_opts *o;
	uint64_t ops;
	const char *source_name; /* a spooled input's name for the metadata */
	const char *spool_path;  /* the spool's /dev/fd/N, NULL if the input was not spooled */
} progress_sink;

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
	if ((++p->ops & 0xffff) == 0 && p->o->progress)
		p->o->progress(p->o->ctx, p->ops, p->rep->reader);
	const int rc = p->inner->op(p->inner, op);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

static int p_finish(rp_sink *s)
{
	progress_sink *const p = (progress_sink *)s;
	if (p->o->progress && p->o->progress_done)
		p->o->progress_done(p->o->ctx);
	const int rc = p->inner->finish(p->inner);
	if (rc < 0)
		memcpy(s->errbuf, p->inner->errbuf, sizeof(s->errbuf));
	return rc;
}

/*
 * Keeps one client's ops (`cat -c N`) and a time window whatever the
 * producer: readers of traces and loadfiles filter clients themselves, a
 * packet capture does not.  Counts what it passed so the caller can say when
 * nothing matched.
 */
typedef struct filter_sink {
	rp_sink base;
	rp_sink *inner;
	bool by_client, by_time;
	uint32_t client;
	uint64_t from, to;
	uint64_t kept;
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

void rp_conv_input_rename(const rp_conv_input *in, char *msg, size_t size)
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

void rp_conv_input_close(rp_conv_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}

static const char *tmp_dir(void)
{
	const char *const dir = getenv("TMPDIR");
	return dir && *dir ? dir : "/tmp";
}

/* Copy the stream src into a new unlinked file in $TMPDIR. */
static int spool(rp_conv_input *in, int src, char *errbuf)
{
	const char *const dir = tmp_dir();
	char tmpl[4096];
	if (snprintf(tmpl, sizeof(tmpl), "%s/reprise-spool-XXXXXX", dir) >= (int)sizeof(tmpl))
		return rp_fail(errbuf, RP_E_LIMIT, "TMPDIR is too long");
	const int fd = mkstemp(tmpl);
	if (fd < 0)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: cannot spool it: %s: %s (set TMPDIR)", in->name, dir, strerror(errno));
	unlink(tmpl); /* gone when the program ends, however it ends */
	char buf[1 << 16];
	for (;;) {
		const ssize_t n = read(src, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			const int e = errno;
			close(fd);
			return rp_fail(errbuf, RP_E_IO, "%s: read error: %s", in->name, strerror(e));
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			const ssize_t w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				const int e = errno;
				close(fd);
				return rp_fail(errbuf, RP_E_IO, "%s: spooling it to %s after %" PRIu64 " bytes: %s (set TMPDIR)",
					       in->name, dir, in->bytes, strerror(e));
			}
			off += w;
			in->bytes += (uint64_t)w;
		}
	}
	in->fd = fd;
	snprintf(in->fdpath, sizeof(in->fdpath), "/dev/fd/%d", fd);
	in->path = in->fdpath;
	return RP_OK;
}

int rp_conv_input_open(rp_conv_input *in, const char *arg, char *errbuf)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = arg;
	in->name = arg;
	if (strcmp(arg, "-") == 0) {
		in->name = "<stdin>";
		return spool(in, STDIN_FILENO, errbuf);
	}
	struct stat st;
	if (stat(arg, &st) != 0)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		in->dir = true; /* a CTF trace, or nothing reprise reads: rp_conv_input_producer says which */
		return RP_OK;
	}
	if (S_ISREG(st.st_mode))
		return RP_OK; /* read in place */
	/* A FIFO, a pipe (/dev/stdin, <(process substitution)), a device: opened as cat would, waiting for a FIFO's writer. */
	const int src = open(arg, O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", arg, strerror(errno));
	const int rc = spool(in, src, errbuf);
	close(src);
	return rc;
}

int rp_conv_tmp_file(const char *name, char *errbuf)
{
	const char *const dir = tmp_dir();
	char tmpl[4096];
	if (snprintf(tmpl, sizeof(tmpl), "%s/reprise-conv-XXXXXX", dir) >= (int)sizeof(tmpl))
		return rp_fail(errbuf, RP_E_LIMIT, "TMPDIR is too long");
	const int fd = mkstemp(tmpl);
	if (fd < 0)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: cannot convert it: %s: %s (set TMPDIR)", name, dir, strerror(errno));
	unlink(tmpl); /* gone when the program ends, however it ends */
	return fd;
}

int rp_conv_input_producer(const rp_conv_input *in, const rp_conv_producer *const *extra, size_t n_extra,
			   const rp_conv_producer **prod, char *errbuf)
{
	*prod = NULL;
	if (in->dir) {
		if (!(*prod = rp_conv_producer_sniff_dir(in->path)))
			return rp_fail(errbuf, RP_E_NOTTRACE, "%s: %s, and no CTF trace (a directory with a metadata file) within %u levels",
				       in->name, strerror(EISDIR), RP_CTF_DEPTH_MAX);
		return RP_OK;
	}
	FILE *const f = fopen(in->path, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", in->name, strerror(errno));
	unsigned char head[4096];
	const size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if ((*prod = rp_conv_producer_sniff(head, n, in->path, extra, n_extra)))
		return RP_OK;
	const int rc = rp_conv_unknown_input(head, n, in->path, errbuf);
	rp_conv_input_rename(in, errbuf, RP_ERRBUF_SIZE);
	return rc;
}

int rp_conv_pump(const rp_conv_input *in, const rp_conv_producer *prod, rp_sink *sink, const rp_conv_pump_opts *o,
		 rp_conv_pump_report *rep, char *errbuf)
{
	memset(rep, 0, sizeof(*rep));
	errbuf[0] = '\0';
	progress_sink prog = {
		.base = { .meta = p_meta, .string = p_string, .op = p_op, .finish = p_finish },
		.rep = &rep->in,
		.o = o,
		.source_name = in->name,
		.spool_path = in->fd >= 0 ? in->fdpath : NULL,
	};
	filter_sink filt = {
		.base = { .meta = f_meta, .string = f_string, .op = f_op, .finish = f_finish },
		.inner = sink,
		.by_client = o->filter_client,
		.by_time = o->window,
		.client = o->client,
		.from = o->from_ns,
		.to = o->to_ns,
	};
	rp_sink *const filtered = o->filter_client || o->window ? &filt.base : sink;
	prog.inner = filtered;
	rp_sink *const out = o->progress || prog.spool_path ? &prog.base : filtered;
	const rp_conv_in_opts copts = { .lenient = o->lenient, .filter_client = o->filter_client,
					.client = o->client, .seek_ns = o->seek_ns, .extra = o->extra };
	const int rc = prod->run(in->path, out, &copts, &rep->in, errbuf);
	rep->in.reader = NULL; /* the producer's, gone */
	rp_conv_input_rename(in, errbuf, RP_ERRBUF_SIZE);
	rp_conv_input_rename(in, rep->in.note, sizeof(rep->in.note));
	rp_conv_input_rename(in, rep->in.counts, sizeof(rep->in.counts));
	rep->kept = filt.kept;
	return rc;
}
