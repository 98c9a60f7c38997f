/* .rpz streaming reader: header, checksummed frames one at a time, index checks, cuts (docs/rpz-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "formats/cursor.h"
#include "formats/rpz.h"
#include "formats/rpz_internal.h"

typedef struct rpz_reader {
	rp_reader base; /* first: rp_reader_* cast to it */
	char name[256];
	int fd;                 /* -1 over memory */
	const uint8_t *mem;     /* the whole file, over memory */
	uint64_t size;          /* file length, when size_known */
	bool size_known, seekable;
	uint64_t pos;           /* offset of the next byte to read */
	uint64_t body;          /* header length: where frame 0 starts */
	uint16_t version_minor;

	bool has_index;
	uint64_t index_off;     /* the index's skippable frame */
	uint32_t index_frames, index_strings;
	uint64_t index_ops;

	uint64_t frame_no;      /* frames decoded so far on this pass */
	uint64_t ops_done;      /* ops in those frames */
	bool in_frame;          /* dec holds an open frame */
	int state;              /* 0 reading, 1 at the end, < 0 a sticky error */

	rpz_dec dec;
	uint8_t *comp, *content;
	size_t comp_cap, content_cap;
	ZSTD_DCtx *dctx;
} rpz_reader;

/* Read up to n bytes at the current position; *p points at them.  Returns the count, short at the end. */
static int64_t fetch(rpz_reader *r, size_t n, const uint8_t **p)
{
	if (r->mem) {
		const uint64_t left = r->size - r->pos;
		const size_t got = left < n ? (size_t)left : n;
		*p = r->mem + r->pos;
		r->pos += got;
		return (int64_t)got;
	}
	if (n > r->comp_cap) {
		uint8_t *const b = realloc(r->comp, n);
		if (!b)
			return RP_E_NOMEM;
		r->comp = b;
		r->comp_cap = n;
	}
	size_t got = 0;
	while (got < n) {
		const ssize_t k = read(r->fd, r->comp + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return RP_E_IO;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	*p = r->comp;
	r->pos += got;
	r->base.in_bytes = r->pos; /* progress, for `reprise convert`'s bar */
	r->base.in_size = r->size_known ? r->size : 0;
	return (int64_t)got;
}

/* Read exactly n bytes at offset off without moving the stream (the index). */
static int read_at(rpz_reader *r, uint64_t off, void *buf, size_t n)
{
	if (r->mem) {
		if (off > r->size || r->size - off < n)
			return RP_E_TRUNCATED;
		memcpy(buf, r->mem + off, n);
		return 0;
	}
	size_t got = 0;
	while (got < n) {
		const ssize_t k = pread(r->fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? RP_E_IO : RP_E_TRUNCATED;
		got += (size_t)k;
	}
	return 0;
}

static int fail(rpz_reader *r, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(rpz_reader *r, int err, const char *fmt, ...)
{
	char detail[RP_ERRBUF_SIZE];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	r->state = err;
	return rp_fail(r->base.errbuf, err, "%s: %s", r->name, detail);
}

static uint32_t le32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }
static uint64_t le64(const uint8_t *b) { return le32(b) | (uint64_t)le32(b + 4) << 32; }

/* ---- header and index ---------------------------------------------------- */

static int read_header(rpz_reader *r, char *errbuf)
{
	const uint8_t *h = NULL;
	const int64_t got = fetch(r, RPZ_HEADER_FIXED, &h);
	if (got < 0)
		return rp_fail(errbuf, (int)got, "%s: read error: %s", r->name, strerror(errno));
	if (got < 4 || memcmp(h, rp__rpz_magic, 4) != 0)
		return rp_fail(errbuf, RP_E_NOTTRACE, "%s: not an .rpz trace (no RPZ magic)", r->name);
	if (got < RPZ_HEADER_FIXED)
		return rp_fail(errbuf, RP_E_TRUNCATED, "%s: cut at byte %lld, inside the header", r->name, (long long)got);
	if (memcmp(h, rp__rpz_magic, RPZ_MAGIC_LEN) != 0)
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: header magic damaged (text-mode transfer?)", r->name);
	uint8_t fixed[RPZ_HEADER_FIXED];
	memcpy(fixed, h, sizeof(fixed));
	rp_cur c = rp_cur_make(fixed + RPZ_MAGIC_LEN, sizeof(fixed) - RPZ_MAGIC_LEN);
	const uint16_t major = rp_cur_le16(&c);
	r->version_minor = rp_cur_le16(&c);
	const uint32_t hlen = rp_cur_le32(&c);
	if (major < RPZ_VERSION_MAJOR_MIN || major > RPZ_VERSION_MAJOR_READ ||
	    (major == RPZ_VERSION_MAJOR_PATTERN && r->version_minor < 1))
		return rp_fail(errbuf, RP_E_VERSION,
			       "%s: header: format version %u.%u; this reader knows 1.x, 2.x and 3.1 (2.1 with patterns): "
			       "a newer reprise can read it", r->name, major, r->version_minor);
	r->dec.major = major;
	if (hlen < RPZ_HEADER_FIXED + 2 + 4 || hlen > RPZ_HEADER_MAX)
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: header length %u", r->name, hlen);
	uint8_t whole[RPZ_HEADER_MAX];
	memcpy(whole, fixed, sizeof(fixed));
	const int64_t more = fetch(r, hlen - RPZ_HEADER_FIXED, &h);
	if (more < 0)
		return rp_fail(errbuf, (int)more, "%s: read error: %s", r->name, strerror(errno));
	if ((uint64_t)more < hlen - RPZ_HEADER_FIXED)
		return rp_fail(errbuf, RP_E_TRUNCATED, "%s: cut at byte %llu, inside the header", r->name,
			       (unsigned long long)r->pos);
	memcpy(whole + RPZ_HEADER_FIXED, h, hlen - RPZ_HEADER_FIXED);
	if (rp__crc32c(0, whole, hlen - 4) != le32(whole + hlen - 4))
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: header checksum mismatch", r->name);
	rp_trace_meta *const m = &r->base.meta;
	m->source = rp_cur_le32(&c);
	r->dec.source = m->source;
	m->flags = rp_cur_le32(&c);
	m->capture_start_ns = (int64_t)rp_cur_le64(&c);
	rp_cur rest = rp_cur_make(whole + RPZ_HEADER_FIXED, hlen - RPZ_HEADER_FIXED - 4);
	const uint8_t host_len = rp_cur_u8(&rest);
	const uint8_t *const host = rp_cur_take(&rest, host_len);
	const uint8_t name_len = rp_cur_u8(&rest);
	const uint8_t *const name = rp_cur_take(&rest, name_len);
	if (rest.err || host_len >= RP_META_HOST_MAX || name_len >= RP_META_NAME_MAX)
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: header host or source name too long", r->name);
	memcpy(m->host, host, host_len);
	memcpy(m->source_name, name, name_len);
	if (major >= 2 && r->version_minor >= 1) { /* 2.1: required features, pattern window */
		const uint32_t feat = rp_cur_le32(&rest), window = rp_cur_le32(&rest);
		if (rest.err)
			return rp_fail(errbuf, RP_E_CORRUPT, "%s: header too short for version %u.%u", r->name,
				       major, r->version_minor);
		if (feat & ~RPZ_FEAT_KNOWN)
			return rp_fail(errbuf, RP_E_VERSION,
				       "%s: header: format %u.%u needs features 0x%x this reader does not know: "
				       "a newer reprise can read it", r->name, major, r->version_minor, feat & ~RPZ_FEAT_KNOWN);
		if ((feat & RPZ_FEAT_PATTERN) && (window == 0 || window > RPZ_WINDOW_MAX))
			return rp_fail(errbuf, RP_E_CORRUPT, "%s: header: pattern window of %u ops (1 to %u)", r->name,
				       window, RPZ_WINDOW_MAX);
		if (!(feat & RPZ_FEAT_PATTERN) != (major != RPZ_VERSION_MAJOR_PATTERN))
			return rp_fail(errbuf, RP_E_CORRUPT, "%s: header: version %u.%u with features 0x%x (major 3 is "
				       "the pattern layer's)", r->name, major, r->version_minor, feat);
		if ((feat & RPZ_FEAT_SHIFT) && !(feat & RPZ_FEAT_PATTERN))
			return rp_fail(errbuf, RP_E_CORRUPT, "%s: header: feature 0x%x without the pattern layer", r->name,
				       RPZ_FEAT_SHIFT);
		r->dec.hist.window = feat & RPZ_FEAT_PATTERN ? window : 0;
		r->dec.shift = (feat & RPZ_FEAT_SHIFT) != 0;
	}
	/* Bytes after these belong to later minor versions: skipped. */
	r->body = hlen;
	return 0;
}

static int read_index(rpz_reader *r, char *errbuf)
{
	if (!r->size_known || r->size < r->body + 8 + RPZ_INDEX_FOOTER)
		return 0;
	uint8_t f[RPZ_INDEX_FOOTER];
	int rc = read_at(r, r->size - RPZ_INDEX_FOOTER, f, sizeof(f));
	if (rc < 0)
		return rp_fail(errbuf, rc, "%s: cannot read the index", r->name);
	if (le32(f + 20) != RPZ_INDEX_MAGIC)
		return 0; /* no index: a cut or unfinished file, read as far as it goes */
	const uint64_t n = le32(f + 8);
	const uint64_t payload = n * RPZ_INDEX_ENTRY + RPZ_INDEX_FOOTER;
	if (payload + 8 > r->size - r->body)
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: index: %llu frames cannot fit", r->name, (unsigned long long)n);
	const uint64_t off = r->size - 8 - payload;
	uint8_t head[8];
	rc = read_at(r, off, head, sizeof(head));
	if (rc < 0 || le32(head) != RPZ_SKIP_INDEX || le32(head + 4) != payload)
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: index: its frame header at byte %llu is damaged", r->name,
			       (unsigned long long)off);
	uint32_t crc = 0;
	for (uint64_t i = 0; i < n; i++) { /* one entry at a time: no memory per frame */
		uint8_t e[RPZ_INDEX_ENTRY];
		rc = read_at(r, off + 8 + i * RPZ_INDEX_ENTRY, e, sizeof(e));
		if (rc < 0)
			return rp_fail(errbuf, rc, "%s: cannot read the index", r->name);
		crc = rp__crc32c(crc, e, sizeof(e));
	}
	if (rp__crc32c(crc, f, 16) != le32(f + 16))
		return rp_fail(errbuf, RP_E_CORRUPT, "%s: index: checksum mismatch", r->name);
	r->has_index = true;
	r->index_off = off;
	r->index_ops = le64(f);
	r->index_frames = (uint32_t)n;
	r->index_strings = le32(f + 12);
	return 0;
}

/* ---- frames -------------------------------------------------------------- */

static int cut(rpz_reader *r, uint64_t at, const char *where)
{
	snprintf(r->base.note, sizeof(r->base.note),
		 "%s: cut at byte %llu, %s frame %llu: read %llu whole frames (%llu ops)", r->name,
		 (unsigned long long)at, where, (unsigned long long)r->frame_no, (unsigned long long)r->frame_no,
		 (unsigned long long)r->ops_done);
	r->state = 1;
	return 0;
}

/* The index frame reached while streaming: end of the trace, or a damaged or cut index. */
static int reach_index(rpz_reader *r, uint64_t start, const uint8_t *fh)
{
	if (r->has_index) {
		if (start != r->index_off)
			return fail(r, RP_E_CORRUPT, "frame %llu: an index at byte %llu, before the end",
				    (unsigned long long)r->frame_no, (unsigned long long)start);
		if (r->frame_no != r->index_frames || r->ops_done != r->index_ops ||
		    r->dec.strings_end != r->index_strings)
			return fail(r, RP_E_CORRUPT, "index: says %u frames and %llu ops, file has %llu and %llu",
				    r->index_frames, (unsigned long long)r->index_ops, (unsigned long long)r->frame_no,
				    (unsigned long long)r->ops_done);
		r->state = 1;
		return 0;
	}
	/* No valid index was found at open (or the input is a pipe): check it here. */
	const uint32_t payload = le32(fh + 4);
	if (payload < RPZ_INDEX_FOOTER || (payload - RPZ_INDEX_FOOTER) % RPZ_INDEX_ENTRY)
		return fail(r, RP_E_CORRUPT, "index: bad length %u", payload);
	uint32_t crc = 0;
	uint64_t left = payload - RPZ_INDEX_FOOTER;
	while (left) {
		const uint8_t *p = NULL;
		const size_t want = left < 65536 ? (size_t)left : 65536;
		const int64_t got = fetch(r, want, &p);
		if (got < 0)
			return fail(r, (int)got, "read error: %s", strerror(errno));
		if ((size_t)got < want)
			return cut(r, r->pos, "inside the index after");
		crc = rp__crc32c(crc, p, want);
		left -= want;
	}
	const uint8_t *f = NULL;
	const int64_t got = fetch(r, RPZ_INDEX_FOOTER, &f);
	if (got < 0)
		return fail(r, (int)got, "read error: %s", strerror(errno));
	if (got < RPZ_INDEX_FOOTER)
		return cut(r, r->pos, "inside the index after");
	if (le32(f + 20) != RPZ_INDEX_MAGIC || rp__crc32c(crc, f, 16) != le32(f + 16))
		return fail(r, RP_E_CORRUPT, "index at byte %llu: damaged", (unsigned long long)start);
	if (le32(f + 8) != r->frame_no || le64(f) != r->ops_done)
		return fail(r, RP_E_CORRUPT, "index: says %u frames, file has %llu", le32(f + 8),
			    (unsigned long long)r->frame_no);
	const uint8_t *extra = NULL;
	const int64_t more = fetch(r, 1, &extra);
	if (more != 0)
		return fail(r, RP_E_CORRUPT, "bytes after the index at byte %llu", (unsigned long long)(r->pos - 1));
	r->state = 1;
	return 0;
}

static int check_entry(rpz_reader *r, uint64_t start, int64_t n)
{
	if (!r->has_index)
		return 0;
	if (r->frame_no >= r->index_frames)
		return fail(r, RP_E_CORRUPT, "frame %llu: not in the index (%u frames)", (unsigned long long)r->frame_no,
			    r->index_frames);
	uint8_t e[RPZ_INDEX_ENTRY];
	const int rc = read_at(r, r->index_off + 8 + r->frame_no * RPZ_INDEX_ENTRY, e, sizeof(e));
	if (rc < 0)
		return fail(r, rc, "index: cannot read entry %llu", (unsigned long long)r->frame_no);
	const uint64_t t_first = r->dec.t_first;
	if (le64(e) != start || le64(e + 8) != r->ops_done || le64(e + 16) != t_first || le32(e + 24) != (uint64_t)n ||
	    le32(e + 28) != r->dec.strings_end)
		return fail(r, RP_E_CORRUPT, "frame %llu: does not match its index entry", (unsigned long long)r->frame_no);
	return 0;
}

static int next_frame(rpz_reader *r)
{
	const uint64_t start = r->pos;
	const unsigned long long k = r->frame_no;
	if (r->has_index && start > r->index_off)
		return fail(r, RP_E_CORRUPT, "frame %llu: runs into the index", k);
	const uint8_t *p = NULL;
	int64_t got = fetch(r, 8, &p);
	if (got < 0)
		return fail(r, (int)got, "frame %llu: read error: %s", k, strerror(errno));
	if (got == 0 && !r->has_index) {
		snprintf(r->base.note, sizeof(r->base.note),
			 "%s: no index: the file ends after frame %llu at byte %llu (the writer did not finish): "
			 "read %llu ops", r->name, k, (unsigned long long)start, (unsigned long long)r->ops_done);
		r->state = 1;
		return 0;
	}
	if (got < 8) {
		if (r->has_index)
			return fail(r, RP_E_CORRUPT, "frame %llu: its header runs past the end of the file", k);
		return cut(r, start + (uint64_t)got, "in the header of");
	}
	uint8_t fh[RPZ_FHDR_LEN];
	memcpy(fh, p, 8);
	if (le32(fh) == RPZ_SKIP_INDEX)
		return reach_index(r, start, fh);
	if (le32(fh) != RPZ_SKIP_FRAME || le32(fh + 4) != RPZ_FHDR_LEN - 8)
		return fail(r, RP_E_CORRUPT, "frame %llu: bad magic at byte %llu", k, (unsigned long long)start);
	got = fetch(r, RPZ_FHDR_LEN - 8, &p);
	if (got < 0)
		return fail(r, (int)got, "frame %llu: read error: %s", k, strerror(errno));
	if (got < RPZ_FHDR_LEN - 8) {
		if (r->has_index)
			return fail(r, RP_E_CORRUPT, "frame %llu: its header runs past the end of the file", k);
		return cut(r, start + 8 + (uint64_t)got, "in the header of");
	}
	memcpy(fh + 8, p, RPZ_FHDR_LEN - 8);
	const uint32_t no = le32(fh + 8), n_ops = le32(fh + 12), content_len = le32(fh + 16);
	const uint32_t comp_len = le32(fh + 20), crc = le32(fh + 28);
	if (no != (uint32_t)k || n_ops > (r->dec.shift ? RPZ_LONG_FRAME_OPS_MAX : RPZ_FRAME_OPS_MAX) || content_len > RPZ_CONTENT_MAX ||
	    comp_len > ZSTD_compressBound(RPZ_CONTENT_MAX) || comp_len < 4)
		return fail(r, RP_E_CORRUPT, "frame %llu: bad frame header (number %u, %u ops, %u -> %u bytes)", k, no,
			    n_ops, comp_len, content_len);
	if (r->has_index && start + RPZ_FHDR_LEN + comp_len > r->index_off)
		return fail(r, RP_E_CORRUPT, "frame %llu: %u bytes run into the index", k, comp_len);
	got = fetch(r, comp_len, &p);
	if (got < 0)
		return fail(r, (int)got, "frame %llu: read error: %s", k, strerror(errno));
	if (got < comp_len) {
		if (r->has_index)
			return fail(r, RP_E_CORRUPT, "frame %llu: runs past the end of the file", k);
		return cut(r, r->pos, "inside");
	}
	if (rp__crc32c(rp__crc32c(0, fh + 8, 20), p, comp_len) != crc)
		return fail(r, RP_E_CORRUPT, "frame %llu: checksum mismatch", k);
	if (ZSTD_findFrameCompressedSize(p, comp_len) != comp_len ||
	    ZSTD_getFrameContentSize(p, comp_len) != content_len)
		return fail(r, RP_E_CORRUPT, "frame %llu: zstd frame does not match its header", k);
	if (content_len > r->content_cap) {
		uint8_t *const b = realloc(r->content, content_len);
		if (!b)
			return fail(r, RP_E_NOMEM, "frame %llu: out of memory", k);
		r->content = b;
		r->content_cap = content_len;
	}
	const size_t dlen = ZSTD_decompressDCtx(r->dctx, r->content, content_len, p, comp_len);
	if (ZSTD_isError(dlen) || dlen != content_len)
		return fail(r, RP_E_CORRUPT, "frame %llu: %s", k,
			    ZSTD_isError(dlen) ? ZSTD_getErrorName(dlen) : "decompressed size differs");
	char detail[RP_ERRBUF_SIZE];
	const int64_t n = rp__rpz_open(&r->dec, r->content, content_len, k, r->ops_done, r->base.strings, detail);
	if (n < 0)
		return fail(r, (int)n, "frame %llu: %s", k, detail);
	if ((uint64_t)n != n_ops)
		return fail(r, RP_E_CORRUPT, "frame %llu: %lld ops, header says %u", k, (long long)n, n_ops);
	const int rc = check_entry(r, start, n);
	if (rc < 0)
		return rc;
	r->in_frame = true;
	return 0;
}

/* ---- rp_reader ops ------------------------------------------------------ */

static int rpz_next(rp_reader *base, rp_op *op)
{
	rpz_reader *const r = (rpz_reader *)base;
	for (;;) {
		if (r->in_frame) {
			char detail[RP_ERRBUF_SIZE];
			const int rc = rp__rpz_next(&r->dec, op, detail);
			if (rc > 0)
				return 1;
			if (rc < 0)
				return fail(r, rc, "frame %llu: %s", (unsigned long long)r->frame_no, detail);
			/* the frame is used up: count it and go on */
			r->in_frame = false;
			r->frame_no++;
			r->ops_done += r->dec.n_ops;
		}
		if (r->state != 0)
			return r->state < 0 ? r->state : 0;
		const int rc = next_frame(r);
		if (rc < 0)
			return rc;
	}
}

static int rpz_rewind(rp_reader *base)
{
	rpz_reader *const r = (rpz_reader *)base;
	if (r->state < 0)
		return rp_fail(base->errbuf, RP_E_STATE, "%s: cannot rewind after an error", r->name);
	if (!r->mem) {
		if (!r->seekable)
			return rp_fail(base->errbuf, RP_E_UNSUPPORTED, "%s: cannot rewind a pipe", r->name);
		if (lseek(r->fd, (off_t)r->body, SEEK_SET) < 0)
			return rp_fail(base->errbuf, RP_E_IO, "%s: seek failed: %s", r->name, strerror(errno));
	}
	r->pos = r->body;
	r->frame_no = 0;
	r->ops_done = 0;
	r->in_frame = false;
	r->dec.strings_end = 0;
	r->dec.hist.n = 0;
	if (r->dec.n_next) /* derived strings are derived again, in order */
		memset(r->dec.next, 0, (size_t)r->dec.n_next * sizeof(*r->dec.next));
	r->dec.n_next = 0;
	r->state = 0;
	base->note[0] = '\0';
	return 0;
}

static void rpz_close(rp_reader *base)
{
	rpz_reader *const r = (rpz_reader *)base;
	if (r->fd >= 0)
		close(r->fd);
	rp_strtab_destroy(base->strings);
	rp__rpz_dec_fini(&r->dec);
	free(r->comp);
	free(r->content);
	ZSTD_freeDCtx(r->dctx);
	free(r);
}

static const rp_reader_ops rpz_ops = { .next = rpz_next, .rewind = rpz_rewind, .close = rpz_close };

int rp_rpz_reader_seek_time(rp_reader *base, uint64_t t, uint64_t *skipped, char *errbuf)
{
	*skipped = 0;
	if (!base || base->ops != &rpz_ops)
		return rp_fail(errbuf, RP_E_INVAL, "not an .rpz reader");
	rpz_reader *const r = (rpz_reader *)base;
	if (!r->has_index)
		return rp_fail(errbuf, RP_E_NOTFOUND, "%s: no index to seek with", r->name);
	if (r->state != 0 || r->frame_no != 0 || r->in_frame)
		return rp_fail(errbuf, RP_E_STATE, "%s: seek before reading ops", r->name);
	/* The target: the last frame starting at or before t, the index checked to be in time order up to it. */
	uint32_t target = 0;
	uint64_t prev = 0;
	for (uint32_t i = 0; i < r->index_frames; i++) {
		rp_rpz_frame_info fi;
		const int rc = rp_rpz_reader_frame(base, i, &fi);
		if (rc < 0)
			return rp_fail(errbuf, rc, "%s: cannot read index entry %u", r->name, i);
		if (fi.n_ops == 0)
			continue; /* no first op: says nothing about time */
		if (fi.t_first < prev)
			return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: frame %u starts before frame %u: not in time order",
				       r->name, i, i ? i - 1 : 0);
		prev = fi.t_first;
		if (fi.t_first > t)
			break;
		target = i;
	}
	while (r->frame_no < target) {
		const int rc = next_frame(r);
		if (rc < 0 || r->state != 0)
			return rp_fail(errbuf, rc < 0 ? rc : RP_E_CORRUPT, "%s", rc < 0 ? base->errbuf : "index: frame missing");
		/* Its strings are defined; its ops are passed over undecoded, unless later
		 * frames may repeat them (the pattern layer): then they fill the window. */
		if (r->dec.hist.window) {
			rp_op op;
			char detail[RP_ERRBUF_SIZE];
			int k;
			while ((k = rp__rpz_next(&r->dec, &op, detail)) > 0) {
			}
			if (k < 0) {
				fail(r, k, "frame %llu: %s", (unsigned long long)r->frame_no, detail);
				return rp_fail(errbuf, k, "%s", base->errbuf);
			}
		}
		r->in_frame = false;
		r->frame_no++;
		r->ops_done += r->dec.n_ops;
		*skipped += r->dec.n_ops;
	}
	return 0;
}

static int open_common(rpz_reader *r, rp_reader **out, const rp_read_opts *opts, char *errbuf)
{
	r->base.ops = &rpz_ops;
	if (opts)
		r->base.opts = *opts;
	r->base.strings = rp_strtab_create();
	r->dctx = ZSTD_createDCtx();
	if (!r->base.strings || !r->dctx) {
		rpz_close(&r->base);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	int rc = read_header(r, errbuf);
	if (rc == 0)
		rc = read_index(r, errbuf);
	if (rc < 0) {
		rpz_close(&r->base);
		return rc;
	}
	*out = &r->base;
	return 0;
}

int rp_rpz_reader_open(rp_reader **out, const char *path, const rp_read_opts *opts, char *errbuf)
{
	*out = NULL;
	rpz_reader *const r = calloc(1, sizeof(*r));
	if (!r)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	snprintf(r->name, sizeof(r->name), "%s", path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		const int e = errno;
		free(r);
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(e));
	}
	struct stat st;
	if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		r->size_known = r->seekable = true;
		r->size = (uint64_t)st.st_size;
	}
	return open_common(r, out, opts, errbuf);
}

int rp_rpz_reader_open_mem(rp_reader **out, const void *buf, size_t len, const rp_read_opts *opts, char *errbuf)
{
	*out = NULL;
	rpz_reader *const r = calloc(1, sizeof(*r));
	if (!r)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	snprintf(r->name, sizeof(r->name), "<memory>");
	r->fd = -1;
	static const uint8_t empty[1];
	r->mem = len ? buf : empty;
	r->size = len;
	r->size_known = r->seekable = true;
	return open_common(r, out, opts, errbuf);
}

int rp_rpz_reader_info(const rp_reader *base, rp_rpz_info *out)
{
	if (!base || base->ops != &rpz_ops)
		return RP_E_INVAL;
	const rpz_reader *const r = (const rpz_reader *)base;
	*out = (rp_rpz_info){
		.version_major = r->dec.major,
		.version_minor = r->version_minor,
		.header_len = r->body,
		.has_index = r->has_index,
		.frames = r->index_frames,
		.ops = r->index_ops,
		.strings = r->index_strings,
		.frames_read = r->frame_no,
	};
	return 0;
}

int rp_rpz_reader_frame(const rp_reader *base, uint32_t i, rp_rpz_frame_info *out)
{
	if (!base || base->ops != &rpz_ops)
		return RP_E_INVAL;
	rpz_reader *const r = (rpz_reader *)(uintptr_t)base;
	if (!r->has_index)
		return RP_E_NOTFOUND;
	if (i >= r->index_frames)
		return RP_E_RANGE;
	uint8_t e[RPZ_INDEX_ENTRY];
	const int rc = read_at(r, r->index_off + 8 + (uint64_t)i * RPZ_INDEX_ENTRY, e, sizeof(e));
	if (rc < 0)
		return rc;
	uint64_t end = r->index_off;
	if (i + 1 < r->index_frames) {
		uint8_t nx[8];
		const int rc2 = read_at(r, r->index_off + 8 + (uint64_t)(i + 1) * RPZ_INDEX_ENTRY, nx, sizeof(nx));
		if (rc2 < 0)
			return rc2;
		end = le64(nx);
	}
	*out = (rp_rpz_frame_info){
		.offset = le64(e),
		.size = end - le64(e),
		.first_op = le64(e + 8),
		.t_first = le64(e + 16),
		.n_ops = le32(e + 24),
		.strings_end = le32(e + 28),
	};
	return 0;
}
