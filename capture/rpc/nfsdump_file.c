/* nfsdump text files, plain or gzip'd (RFC 1952, streamed through zlib), as lines to the decoder. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "capture/rpc/nfsdump_int.h"

#define IN_CHUNK (256u << 10)
#define OUT_CHUNK (1u << 20)

static bool is_gzip(const uint8_t *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

bool rp_nfsdump_sniff(const void *head, size_t len)
{
	if (!is_gzip(head, len))
		return rp__nd_sniff(head, len);
	/* The first bytes of the text a gzip'd head holds (a head cuts the stream: inflate what is there). */
	char out[4096];
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return false;
	zs.next_in = (Bytef *)(uintptr_t)head;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out;
	zs.avail_out = sizeof(out);
	const int rc = inflate(&zs, Z_SYNC_FLUSH);
	const size_t n = sizeof(out) - zs.avail_out;
	inflateEnd(&zs);
	return (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR) && n > 0 && rp__nd_sniff(out, n);
}

/* Text to lines: a line split across chunks is put together in line[]; a longer one than it holds is skipped. */
typedef struct liner {
	rp_nfsdump *d;
	char *line;
	size_t have;
	bool skipping;
	int err;
} liner;

static void emit(liner *l, const char *s, size_t n)
{
	if (!l->err)
		l->err = rp_nfsdump_line(l->d, s, n);
}

static void feed(liner *l, const char *p, size_t n)
{
	while (n > 0 && !l->err) {
		const char *const nl = memchr(p, '\n', n);
		const size_t part = nl ? (size_t)(nl - p) : n;
		if (l->skipping) {
			/* counted once, when it ends */
		} else if (l->have == 0 && nl) {
			emit(l, p, part); /* whole in the chunk: no copy */
		} else if (l->have + part <= RP_NFSDUMP_LINE_MAX) {
			memcpy(l->line + l->have, p, part);
			l->have += part;
			if (nl) {
				emit(l, l->line, l->have);
				l->have = 0;
			}
		} else {
			l->skipping = true;
			l->have = 0;
		}
		if (nl && l->skipping) {
			rp_nfsdump_stats *const st = rp_nfsdump_get_stats(l->d);
			st->lines++;
			st->long_lines++;
			l->skipping = false;
		}
		if (!nl)
			break;
		p = nl + 1;
		n -= part + 1;
	}
}

/* What is left at the end: a last line without its '\n', or the start of one too long. */
static void feed_end(liner *l)
{
	if (l->skipping) {
		rp_nfsdump_stats *const st = rp_nfsdump_get_stats(l->d);
		st->lines++;
		st->long_lines++;
	} else if (l->have) {
		emit(l, l->line, l->have);
	}
	l->have = 0;
}

static int read_plain(FILE *f, const char *path, liner *l, uint8_t *buf, size_t have, char *errbuf)
{
	for (;;) {
		feed(l, (const char *)buf, have);
		if (l->err)
			return l->err;
		have = fread(buf, 1, OUT_CHUNK, f);
		if (have == 0) {
			if (ferror(f))
				return rp_fail(errbuf, RP_E_IO, "%s: read error: %s", path, strerror(errno));
			return 0;
		}
	}
}

/* Every gzip member in turn (a .txt.gz may be several concatenated); a stream cut short keeps what it held. */
static int read_gzip(FILE *f, const char *path, liner *l, uint8_t *in, size_t have, rp_nfsdump_stats *st,
		     char *errbuf)
{
	uint8_t *const out = malloc(OUT_CHUNK);
	if (!out)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(out);
		return rp_fail(errbuf, RP_E_NOMEM, "zlib: %s", zs.msg ? zs.msg : "cannot start");
	}
	int rc = 0;
	uint64_t consumed = 0; /* compressed bytes before in[] */
	bool in_member = true, eof = false;
	zs.next_in = in;
	zs.avail_in = (uInt)have;
	while (rc == 0) {
		if (zs.avail_in == 0 && !eof) {
			consumed += (uint64_t)(zs.next_in - in);
			const size_t n = fread(in, 1, IN_CHUNK, f);
			if (n == 0 && ferror(f)) {
				rc = rp_fail(errbuf, RP_E_IO, "%s: read error: %s", path, strerror(errno));
				break;
			}
			eof = n == 0;
			zs.next_in = in;
			zs.avail_in = (uInt)n;
		}
		if (zs.avail_in == 0 && eof) {
			st->cut = in_member; /* the stream stops inside a member: what it held stands */
			break;
		}
		if (!in_member) {
			/* After a member: another one, or bytes that are none (ignored, said). */
			if (zs.avail_in < 2 && !eof) {
				/* too few bytes to tell: read on (rare: a member ending at a chunk's last byte) */
				memmove(in, zs.next_in, zs.avail_in);
				consumed += (uint64_t)(zs.next_in - in);
				const size_t n = fread(in + zs.avail_in, 1, IN_CHUNK - zs.avail_in, f);
				eof = n == 0;
				zs.next_in = in;
				zs.avail_in += (uInt)n;
				continue;
			}
			if (!is_gzip(zs.next_in, zs.avail_in)) {
				st->trailing = true;
				break;
			}
			inflateReset(&zs);
			in_member = true;
		}
		zs.next_out = out;
		zs.avail_out = OUT_CHUNK;
		const int z = inflate(&zs, Z_NO_FLUSH);
		feed(l, (const char *)out, OUT_CHUNK - zs.avail_out);
		if (l->err) {
			rc = l->err;
			break;
		}
		if (z == Z_STREAM_END) {
			in_member = false;
		} else if (z == Z_DATA_ERROR || z == Z_NEED_DICT || z == Z_STREAM_ERROR) {
			rc = rp_fail(errbuf, RP_E_CORRUPT, "%s: gzip data corrupt near compressed byte %" PRIu64 " (%s), after %" PRIu64
				     " lines", path, consumed + (uint64_t)(zs.next_in - in), zs.msg ? zs.msg : "bad data",
				     st->lines);
		} else if (z == Z_MEM_ERROR) {
			rc = rp_fail(errbuf, RP_E_NOMEM, "%s: zlib: out of memory", path);
		}
	}
	inflateEnd(&zs);
	free(out);
	return rc;
}

/* A stream named path (for messages and the trace's metadata) into sink. */
static int read_stream(FILE *f, const char *path, rp_sink *sink, const rp_capture_opts *opts, rp_nfsdump_stats *stats,
		       char *errbuf)
{
	uint8_t *const buf = malloc(OUT_CHUNK);
	char *const line = malloc(RP_NFSDUMP_LINE_MAX);
	rp_nfsdump *d = NULL;
	int rc = buf && line ? rp_nfsdump_create(&d, sink, opts, path, errbuf) : rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	if (rc == 0) {
		const size_t have = fread(buf, 1, IN_CHUNK, f);
		rp_nfsdump_stats *const st = rp_nfsdump_get_stats(d);
		liner l = { .d = d, .line = line };
		if (have == 0 && ferror(f))
			rc = rp_fail(errbuf, RP_E_IO, "%s: read error: %s", path, strerror(errno));
		else if ((st->gzip = is_gzip(buf, have)))
			rc = read_gzip(f, path, &l, buf, have, st, errbuf);
		else
			rc = read_plain(f, path, &l, buf, have, errbuf);
		if (rc == 0 && !l.err)
			feed_end(&l);
		if (rc == 0 && l.err)
			rc = l.err;
		if (rc == 0)
			rc = rp_nfsdump_finish(d);
		if (rc < 0 && l.err)
			rp_fail(errbuf, rc, "%s: %s", path, rp_nfsdump_error(d));
		*stats = *rp_nfsdump_get_stats(d);
	}
	rp_nfsdump_destroy(d);
	free(line);
	free(buf);
	return rc;
}

int rp_nfsdump_file(const char *path, rp_sink *sink, const rp_capture_opts *opts, rp_nfsdump_stats *stats,
		    char *errbuf)
{
	memset(stats, 0, sizeof(*stats));
	FILE *const f = fopen(path, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	const int rc = read_stream(f, path, sink, opts, stats, errbuf);
	fclose(f);
	return rc;
}

int rp_nfsdump_mem(const void *data, size_t len, const char *name, rp_sink *sink, const rp_capture_opts *opts,
		   rp_nfsdump_stats *stats, char *errbuf)
{
	memset(stats, 0, sizeof(*stats));
	if (len == 0) {
		/* no bytes: no lines, an empty trace (fmemopen takes no empty buffer) */
		rp_nfsdump *d = NULL;
		int rc = rp_nfsdump_create(&d, sink, opts, name, errbuf);
		if (rc == 0 && (rc = rp_nfsdump_finish(d)) < 0)
			rp_fail(errbuf, rc, "%s: %s", name, rp_nfsdump_error(d));
		if (d)
			*stats = *rp_nfsdump_get_stats(d);
		rp_nfsdump_destroy(d);
		return rc;
	}
	FILE *const f = fmemopen((void *)(uintptr_t)data, len, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_NOMEM, "%s: %s", name, strerror(errno));
	const int rc = read_stream(f, name, sink, opts, stats, errbuf);
	fclose(f);
	return rc;
}

/* One count into the summary, when it is not zero (or always). */
static void put(char *buf, size_t size, size_t *at, const char *what, uint64_t n, bool always)
{
	if ((!n && !always) || *at >= size)
		return;
	const int w = snprintf(buf + *at, size - *at, "%s%s %" PRIu64, *at ? ", " : "", what, n);
	if (w > 0)
		*at += (size_t)w < size - *at ? (size_t)w : size - *at - 1;
}

void rp_nfsdump_stats_format(const rp_nfsdump_stats *st, char *buf, size_t size)
{
	size_t at = 0;
	if (!size)
		return;
	buf[0] = '\0';
	put(buf, size, &at, "nfsdump: lines", st->lines, true);
	put(buf, size, &at, "calls", st->calls, true);
	put(buf, size, &at, "replies", st->replies, true);
	put(buf, size, &at, "paired", st->paired, true);
	put(buf, size, &at, "ops", st->ops, true);
	put(buf, size, &at, "no reply", st->no_reply, false);
	put(buf, size, &at, "replies without call", st->orphan_replies, false);
	put(buf, size, &at, "late replies", st->late_replies, false);
	put(buf, size, &at, "retransmitted calls", st->dup_calls, false);
	put(buf, size, &at, "null", st->null_calls, false);
	put(buf, size, &at, "short packets", st->short_packets, false);
	put(buf, size, &at, "unsupported", st->unsupported, false);
	put(buf, size, &at, "comments", st->comments, false);
	put(buf, size, &at, "garbage lines", st->garbage, false);
	put(buf, size, &at, "lines with NUL bytes", st->nul_lines, false);
	put(buf, size, &at, "long lines", st->long_lines, false);
	put(buf, size, &at, "bad values", st->bad_values, false);
	put(buf, size, &at, "absurd values", st->absurd, false);
	put(buf, size, &at, "clock jumps back", st->clock_back, false);
	put(buf, size, &at, "reordered times", st->reordered, false);
	put(buf, size, &at, "v2 %d.%d times", st->v2_times, false);
	put(buf, size, &at, "attributes twice", st->attrs_twice, false);
	put(buf, size, &at, "never-named handles", st->synth_named, false);
}
