/* .rpz writer: a sink that writes the header, checksummed zstd frames and the index (docs/rpz-format.md). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "formats/cursor.h"
#include "formats/rpz.h"
#include "formats/rpz_internal.h"

typedef struct index_entry {
	uint64_t offset, first_op, t_first;
	uint32_t n_ops, strings_end;
} index_entry;

struct rp_rpz_writer {
	rp_sink sink; /* first: the sink callbacks cast back to the writer */
	FILE *f;
	bool own_file;
	bool header_done, finished, failed;
	char name[256];
	int level;
	uint32_t frame_ops;
	uint32_t window; /* pattern layer: 0 = off */
	uint64_t offset; /* bytes written so far */
	uint8_t hdr[RPZ_HEADER_FIXED + 2 + RP_META_HOST_MAX + RP_META_NAME_MAX + RPZ_HEADER_V21 + 4]; /* as written */
	size_t hdr_len;
	long hdr_pos;       /* where the header starts in f; -1 if f cannot seek */
	uint32_t add_flags; /* rp_rpz_writer_add_flags before the header was written */

	rp_op *ops; /* the frame being filled */
	uint32_t n_ops;
	uint64_t ops_total; /* ops in frames already written */
	uint8_t *strs;      /* the frame's new strings: varint length + bytes each */
	size_t strs_len, strs_cap;
	uint32_t n_strs;
	uint32_t strings_defined; /* ids 1..strings_defined exist */

	rpz_enc *enc;
	rpz_derive dv;      /* derived strings (§4.5), with `shift` */
	bool shift;         /* shifted repeats and derived strings: a pattern file that can rewrite its header */
	bool shift_said;    /* the header says RPZ_FEAT_SHIFT */
	/* with it, a frame that is one repeat is held: the next frames that go on with it join it */
	struct {
		bool on;
		rpz_frame_id id;
		uint64_t t_first;
		uint32_t strings_end;
		uint8_t *strs;
		size_t strs_len, strs_cap;
		rpz_repeat rp;
		uint64_t dt;
	} held;
	ZSTD_CCtx *cctx;
	uint8_t *comp;
	size_t comp_cap;
	index_entry *index;
	size_t n_index, cap_index;
};

static int rewrite_header(rp_rpz_writer *w, char *errbuf);

static int write_bytes(rp_rpz_writer *w, const void *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, w->f) != len) {
		w->failed = true;
		return rp_fail(w->sink.errbuf, RP_E_IO, "%s: write failed: %s", w->name, strerror(errno));
	}
	w->offset += len;
	return 0;
}

static int flush_file(rp_rpz_writer *w)
{
	if (fflush(w->f) != 0) {
		w->failed = true;
		return rp_fail(w->sink.errbuf, RP_E_IO, "%s: write failed: %s", w->name, strerror(errno));
	}
	return 0;
}

static int write_header(rp_rpz_writer *w, const rp_trace_meta *m)
{
	const size_t host_len = strnlen(m->host, RP_META_HOST_MAX - 1);
	const size_t name_len = strnlen(m->source_name, RP_META_NAME_MAX - 1);
	uint8_t h[RPZ_HEADER_FIXED + 2 + RP_META_HOST_MAX + RP_META_NAME_MAX + RPZ_HEADER_V21 + 4];
	memcpy(h, rp__rpz_magic, RPZ_MAGIC_LEN);
	const size_t total = RPZ_HEADER_FIXED + 1 + host_len + 1 + name_len + RPZ_HEADER_V21 + 4;
	rp_put_le16(h + 8, w->window ? RPZ_VERSION_MAJOR_PATTERN : RPZ_VERSION_MAJOR);
	rp_put_le16(h + 10, RPZ_VERSION_MINOR);
	rp_put_le32(h + 12, (uint32_t)total);
	rp_put_le32(h + 16, m->source);
	rp_put_le32(h + 20, m->flags | w->add_flags);
	rp_put_le64(h + 24, (uint64_t)m->capture_start_ns);
	rp_put_le32(h + 32, w->frame_ops);
	rp_put_le16(h + 36, 0); /* reserved */
	size_t n = RPZ_HEADER_FIXED;
	h[n++] = (uint8_t)host_len;
	memcpy(h + n, m->host, host_len);
	n += host_len;
	h[n++] = (uint8_t)name_len;
	memcpy(h + n, m->source_name, name_len);
	n += name_len;
	rp_put_le32(h + n, w->window ? RPZ_FEAT_PATTERN : 0); /* 2.1: features a reader must know */
	rp_put_le32(h + n + 4, w->window);                    /* 2.1: pattern window in ops */
	n += RPZ_HEADER_V21;
	rp_put_le32(h + n, rp__crc32c(0, h, n));
	n += 4;
	w->header_done = true;
	memcpy(w->hdr, h, n);
	w->hdr_len = n;
	w->hdr_pos = ftell(w->f);
	/* shifted repeats need a header feature bit set when the first is written: a stream that
	 * cannot seek keeps to exact repeats */
	if (w->window && w->hdr_pos >= 0 && rp__rpz_derive_init(&w->dv) == 0) {
		w->shift = true;
		rp__rpz_enc_shift(w->enc, true, (const uint32_t *const *)&w->dv.next, &w->dv.n_next);
	}
	const int rc = write_bytes(w, h, n);
	return rc < 0 ? rc : flush_file(w);
}

static int ensure_header(rp_rpz_writer *w)
{
	if (w->header_done)
		return 0;
	const rp_trace_meta none = { 0 };
	return write_header(w, &none);
}

/* Compress and write one frame's content, and its index entry. */
static int write_frame(rp_rpz_writer *w, const rpz_frame_id *id, const uint8_t *content, size_t content_len,
		       uint64_t t_first, uint32_t strings_end)
{
	const size_t bound = ZSTD_compressBound(content_len);
	if (bound > w->comp_cap) {
		uint8_t *const p = realloc(w->comp, bound);
		if (!p)
			return rp_fail(w->sink.errbuf, RP_E_NOMEM, "%s: out of memory", w->name);
		w->comp = p;
		w->comp_cap = bound;
	}
	const size_t clen = ZSTD_compress2(w->cctx, w->comp, w->comp_cap, content, content_len);
	if (ZSTD_isError(clen))
		return rp_fail(w->sink.errbuf, RP_E_SYSTEM, "%s: frame %llu: zstd: %s", w->name,
			       (unsigned long long)id->frame_no, ZSTD_getErrorName(clen));
	if (clen > UINT32_MAX)
		return rp_fail(w->sink.errbuf, RP_E_LIMIT, "%s: frame too large", w->name);

	if (w->n_index == w->cap_index) {
		const size_t cap = w->cap_index ? w->cap_index * 2 : 64;
		index_entry *const p = realloc(w->index, cap * sizeof(*p));
		if (!p)
			return rp_fail(w->sink.errbuf, RP_E_NOMEM, "%s: out of memory", w->name);
		w->index = p;
		w->cap_index = cap;
	}
	w->index[w->n_index++] = (index_entry){
		.offset = w->offset,
		.first_op = id->first_op,
		.t_first = t_first,
		.n_ops = id->n_ops,
		.strings_end = strings_end,
	};

	uint8_t fh[RPZ_FHDR_LEN];
	rp_put_le32(fh, RPZ_SKIP_FRAME);
	rp_put_le32(fh + 4, RPZ_FHDR_LEN - 8);
	rp_put_le32(fh + 8, (uint32_t)id->frame_no);
	rp_put_le32(fh + 12, id->n_ops);
	rp_put_le32(fh + 16, (uint32_t)content_len);
	rp_put_le32(fh + 20, (uint32_t)clen);
	rp_put_le32(fh + 24, 0); /* reserved */
	rp_put_le32(fh + 28, rp__crc32c(rp__crc32c(0, fh + 8, 20), w->comp, clen));
	int rc = write_bytes(w, fh, sizeof(fh));
	if (rc == 0)
		rc = write_bytes(w, w->comp, clen);
	if (rc == 0)
		rc = flush_file(w); /* a killed writer leaves every written frame whole */
	return rc;
}

/* The held frame (one repeat, §4.5), written now. */
static int write_held(rp_rpz_writer *w)
{
	if (!w->held.on)
		return 0;
	w->held.on = false;
	w->held.id.frame_no = w->n_index;
	w->held.rp.len = w->held.id.n_ops;
	const uint8_t *content = NULL;
	size_t content_len = 0;
	const int rc = rp__rpz_encode_repeat(w->enc, &w->held.id, w->held.strs, w->held.strs_len, &w->held.rp,
					     w->held.dt, &content, &content_len);
	if (rc < 0)
		return rp_fail(w->sink.errbuf, rc, "%s: frame %llu: encoding: %s", w->name,
			       (unsigned long long)w->held.id.frame_no, rp_strerror(rc));
	return write_frame(w, &w->held.id, content, content_len, w->held.t_first, w->held.strings_end);
}

static bool same_repeat(const rpz_repeat *a, const rpz_repeat *b)
{
	return a->dist == b->dist && a->mode == b->mode && a->dh == b->dh && a->dc == b->dc && a->doff == b->doff;
}

/* Encode, compress and write the pending ops and strings as one frame (or hold it, or join it to the
 * held one). */
static int flush_frame(rp_rpz_writer *w)
{
	if (w->n_ops == 0 && w->n_strs == 0)
		return 0;
	const rpz_frame_id id = {
		.frame_no = w->n_index + w->held.on,
		.first_op = w->ops_total,
		.n_ops = w->n_ops,
		.first_string = w->strings_defined - w->n_strs + 1,
		.n_strings = w->n_strs,
	};
	const uint8_t *content = NULL, *strs = w->strs;
	size_t content_len = 0, strs_len = w->strs_len;
	bool derived = false;
	int rc = w->shift ? rp__rpz_derive_section(&w->dv, id.first_string, id.n_strings, &strs, &strs_len, &derived) : 0;
	if (rc == 0)
		rc = rp__rpz_encode(w->enc, &id, w->ops, strs, strs_len, &content, &content_len);
	if (rc < 0)
		return rp_fail(w->sink.errbuf, rc, "%s: frame %llu: encoding: %s", w->name,
			       (unsigned long long)id.frame_no, rp_strerror(rc));
	if ((derived || rp__rpz_enc_shifted(w->enc)) && !w->shift_said) {
		/* before the frame that needs it: a reader that does not know the bit refuses the file */
		rp_put_le32(w->hdr + w->hdr_len - 12, RPZ_FEAT_PATTERN | RPZ_FEAT_SHIFT);
		w->shift_said = true;
		if ((rc = rewrite_header(w, w->sink.errbuf)) < 0)
			return rc;
	}
	rpz_repeat rp;
	uint64_t dt = 0;
	const bool single = w->shift_said && w->n_ops && rp__rpz_enc_single(w->enc, w->n_ops, &rp, &dt);
	const uint64_t long_max = w->window < RPZ_LONG_FRAME_OPS_MAX ? w->window : RPZ_LONG_FRAME_OPS_MAX;
	const uint64_t t_first = w->n_ops ? w->ops[0].t_start : 0;
	const uint32_t n = w->n_ops;
	w->ops_total += w->n_ops;
	w->n_ops = 0;
	w->n_strs = 0;
	w->strs_len = 0;
	if (single && w->held.on && !id.n_strings && same_repeat(&w->held.rp, &rp) &&
	    (uint64_t)w->held.id.n_ops + n <= long_max && rp__rpz_enc_continues(w->enc, id.first_op, &rp)) {
		w->held.id.n_ops += n;
		return 0;
	}
	if ((rc = write_held(w)) < 0)
		return rc;
	if (!single)
		return write_frame(w, &id, content, content_len, t_first, w->strings_defined);
	if (w->held.strs_cap < strs_len) {
		uint8_t *const p = realloc(w->held.strs, strs_len);
		if (!p)
			return rp_fail(w->sink.errbuf, RP_E_NOMEM, "%s: out of memory", w->name);
		w->held.strs = p;
		w->held.strs_cap = strs_len;
	}
	if (strs_len)
		memcpy(w->held.strs, strs, strs_len);
	w->held.strs_len = strs_len;
	w->held.id = id;
	w->held.t_first = t_first;
	w->held.strings_end = w->strings_defined;
	w->held.rp = rp;
	w->held.dt = dt;
	w->held.on = true;
	return 0;
}

static rp_rpz_writer *of(rp_sink *s)
{
	return (rp_rpz_writer *)s;
}

static int sink_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_rpz_writer *const w = of(s);
	if (w->header_done)
		return rp_fail(s->errbuf, RP_E_STATE, "%s: metadata after the trace started", w->name);
	return write_header(w, meta);
}

static int sink_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_rpz_writer *const w = of(s);
	if (w->failed || w->finished)
		return rp_fail(s->errbuf, RP_E_STATE, "%s: writer is closed or failed", w->name);
	if (id != w->strings_defined + 1)
		return rp_fail(s->errbuf, RP_E_STATE, "%s: string id %u out of order (expected %u)", w->name, id,
			       w->strings_defined + 1);
	if (len > RP_STR_MAX)
		return rp_fail(s->errbuf, RP_E_LIMIT, "%s: string %u is %u bytes long", w->name, id, len);
	int rc = ensure_header(w);
	if (rc < 0)
		return rc;
	if (w->strs_len + len + 10 > RPZ_STRINGS_FLUSH && (rc = flush_frame(w)) < 0)
		return rc;
	if (w->strs_cap - w->strs_len < (size_t)len + 10) {
		size_t cap = w->strs_cap ? w->strs_cap : 65536;
		while (cap - w->strs_len < (size_t)len + 10)
			cap *= 2;
		uint8_t *const p = realloc(w->strs, cap);
		if (!p)
			return rp_fail(s->errbuf, RP_E_NOMEM, "%s: out of memory", w->name);
		w->strs = p;
		w->strs_cap = cap;
	}
	w->strs_len += rp_put_uvarint(w->strs + w->strs_len, len);
	if (len)
		memcpy(w->strs + w->strs_len, str, len);
	w->strs_len += len;
	w->n_strs++;
	if (w->shift)
		(void)rp__rpz_derive_add(&w->dv, str, len);
	w->strings_defined = id;
	return 0;
}

static int sink_op(rp_sink *s, const rp_op *op)
{
	rp_rpz_writer *const w = of(s);
	if (w->failed || w->finished)
		return rp_fail(s->errbuf, RP_E_STATE, "%s: writer is closed or failed", w->name);
	if (op->op >= RP_OP__COUNT)
		return rp_fail(s->errbuf, RP_E_INVAL, "%s: op code %u is not an op", w->name, op->op);
	if (op->path > w->strings_defined || op->path2 > w->strings_defined)
		return rp_fail(s->errbuf, RP_E_STATE, "%s: op %llu uses string %u before it was defined", w->name,
			       (unsigned long long)(w->ops_total + w->n_ops),
			       op->path > w->strings_defined ? op->path : op->path2);
	int rc = ensure_header(w);
	if (rc < 0)
		return rc;
	if (w->n_ops == w->frame_ops && (rc = flush_frame(w)) < 0)
		return rc;
	w->ops[w->n_ops++] = *op;
	return 0;
}

int rp_rpz_writer_flush(rp_rpz_writer *w, char *errbuf)
{
	if (w->failed || w->finished)
		return rp_fail(errbuf, RP_E_STATE, "%s: writer is closed or failed", w->name);
	if (!w->header_done)
		return 0;
	int rc = flush_frame(w);
	if (rc == 0)
		rc = write_held(w);
	if (rc == 0)
		rc = flush_file(w);
	return rc < 0 ? rp_fail(errbuf, rc, "%s", w->sink.errbuf) : 0;
}

static int write_index(rp_rpz_writer *w)
{
	const size_t payload = w->n_index * RPZ_INDEX_ENTRY + RPZ_INDEX_FOOTER;
	if (payload > UINT32_MAX)
		return rp_fail(w->sink.errbuf, RP_E_LIMIT, "%s: index too large", w->name);
	uint8_t head[8];
	rp_put_le32(head, RPZ_SKIP_INDEX);
	rp_put_le32(head + 4, (uint32_t)payload);
	int rc = write_bytes(w, head, sizeof(head));
	uint32_t crc = 0;
	for (size_t i = 0; rc == 0 && i < w->n_index; i++) {
		const index_entry *const e = &w->index[i];
		uint8_t b[RPZ_INDEX_ENTRY];
		rp_put_le64(b, e->offset);
		rp_put_le64(b + 8, e->first_op);
		rp_put_le64(b + 16, e->t_first);
		rp_put_le32(b + 24, e->n_ops);
		rp_put_le32(b + 28, e->strings_end);
		crc = rp__crc32c(crc, b, sizeof(b));
		rc = write_bytes(w, b, sizeof(b));
	}
	if (rc < 0)
		return rc;
	uint8_t f[RPZ_INDEX_FOOTER];
	rp_put_le64(f, w->ops_total);
	rp_put_le32(f + 8, (uint32_t)w->n_index);
	rp_put_le32(f + 12, w->strings_defined);
	rp_put_le32(f + 16, rp__crc32c(crc, f, 16));
	rp_put_le32(f + 20, RPZ_INDEX_MAGIC);
	rc = write_bytes(w, f, sizeof(f));
	return rc < 0 ? rc : flush_file(w);
}

static int sink_finish(rp_sink *s)
{
	rp_rpz_writer *const w = of(s);
	if (w->finished)
		return 0;
	if (w->failed)
		return rp_fail(s->errbuf, RP_E_STATE, "%s: writer failed earlier", w->name);
	int rc = ensure_header(w);
	if (rc == 0)
		rc = flush_frame(w);
	if (rc == 0)
		rc = write_held(w);
	if (rc == 0)
		rc = write_index(w);
	if (rc < 0) {
		w->failed = true;
		return rc;
	}
	w->finished = true;
	return 0;
}

/* zstd's match tables (hash and chain) of 2^log entries each, in place of the level's sizes. */
static int set_tables(rp_rpz_writer *w, int log, char *errbuf)
{
	const ZSTD_bounds hb = ZSTD_cParam_getBounds(ZSTD_c_hashLog), cb = ZSTD_cParam_getBounds(ZSTD_c_chainLog);
	if (ZSTD_isError(hb.error) || ZSTD_isError(cb.error) || log < hb.lowerBound || log < cb.lowerBound ||
	    log > hb.upperBound || log > cb.upperBound)
		return rp_fail(errbuf, RP_E_RANGE, "%s: zstd table log %d out of range", w->name, log);
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_hashLog, log)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_chainLog, log)))
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: zstd refused table log %d", w->name, log);
	return 0;
}

static int setup(rp_rpz_writer *w, const rp_rpz_wopts *opts, char *errbuf)
{
	w->sink.meta = sink_meta;
	w->sink.string = sink_string;
	w->sink.op = sink_op;
	w->sink.finish = sink_finish;
	w->level = opts && opts->level ? opts->level : RPZ_LEVEL_DEFAULT;
	w->frame_ops = opts && opts->frame_ops ? opts->frame_ops : RPZ_FRAME_OPS_DEFAULT;
	if (w->frame_ops > RPZ_FRAME_OPS_MAX)
		return rp_fail(errbuf, RP_E_RANGE, "%s: at most %u ops per frame", w->name, RPZ_FRAME_OPS_MAX);
	if (w->level < ZSTD_minCLevel() || w->level > ZSTD_maxCLevel())
		return rp_fail(errbuf, RP_E_RANGE, "%s: zstd level %d out of range", w->name, w->level);
	w->window = opts && opts->no_pattern ? 0 : opts && opts->window ? opts->window : RPZ_WINDOW_DEFAULT;
	const uint32_t bits = opts && opts->table_bits ? opts->table_bits : RPZ_TABLE_BITS_DEFAULT;
	if (w->window > RPZ_WINDOW_MAX)
		return rp_fail(errbuf, RP_E_RANGE, "%s: pattern window of %u ops: at most %u", w->name, w->window,
			       RPZ_WINDOW_MAX);
	if (bits < RPZ_TABLE_BITS_MIN || bits > RPZ_TABLE_BITS_MAX)
		return rp_fail(errbuf, RP_E_RANGE, "%s: pattern table of 2^%u slots: %u to %u bits", w->name, bits,
			       RPZ_TABLE_BITS_MIN, RPZ_TABLE_BITS_MAX);
	w->ops = malloc((size_t)w->frame_ops * sizeof(*w->ops));
	w->enc = rp__rpz_enc_create(w->frame_ops);
	w->cctx = ZSTD_createCCtx();
	if (!w->ops || !w->enc || !w->cctx || rp__rpz_enc_pattern(w->enc, w->window, bits) < 0)
		return rp_fail(errbuf, RP_E_NOMEM, "%s: out of memory", w->name);
	/* One thread and fixed parameters: the same ops give the same bytes. */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1)))
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: zstd refused the parameters", w->name);
	return opts && opts->table_log ? set_tables(w, opts->table_log, errbuf) : 0;
}

static void destroy(rp_rpz_writer *w)
{
	free(w->ops);
	free(w->strs);
	free(w->held.strs);
	free(w->comp);
	free(w->index);
	rp__rpz_enc_destroy(w->enc);
	rp__rpz_derive_fini(&w->dv);
	ZSTD_freeCCtx(w->cctx);
	free(w);
}

int rp_rpz_writer_open_file(rp_rpz_writer **out, FILE *f, const char *name, const rp_rpz_wopts *opts,
			    char *errbuf)
{
	*out = NULL;
	rp_rpz_writer *const w = calloc(1, sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	snprintf(w->name, sizeof(w->name), "%s", name ? name : "<stream>");
	w->f = f;
	const int rc = setup(w, opts, errbuf);
	if (rc < 0) {
		destroy(w);
		return rc;
	}
	*out = w;
	return 0;
}

int rp_rpz_writer_open(rp_rpz_writer **out, const char *path, const rp_rpz_wopts *opts, char *errbuf)
{
	*out = NULL;
	const bool std = strcmp(path, "-") == 0;
	FILE *const f = std ? stdout : fopen(path, "wb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	const int rc = rp_rpz_writer_open_file(out, f, std ? "<stdout>" : path, opts, errbuf);
	if (rc < 0) {
		if (!std)
			fclose(f);
		return rc;
	}
	(*out)->own_file = !std;
	return 0;
}

rp_sink *rp_rpz_writer_sink(rp_rpz_writer *w)
{
	return &w->sink;
}

int rp_rpz_writer_close(rp_rpz_writer *w, char *errbuf)
{
	if (!w)
		return 0;
	int rc = 0;
	if (!w->finished && !w->failed) {
		rc = sink_finish(&w->sink);
		if (rc < 0)
			rp_fail(errbuf, rc, "%s", w->sink.errbuf);
	} else if (w->failed) {
		rc = rp_fail(errbuf, RP_E_IO, "%s: not closed cleanly: %s", w->name, w->sink.errbuf);
	}
	if (w->own_file && fclose(w->f) != 0 && rc == 0)
		rc = rp_fail(errbuf, RP_E_IO, "%s: close failed: %s", w->name, strerror(errno));
	else if (!w->own_file && fflush(w->f) != 0 && rc == 0)
		rc = rp_fail(errbuf, RP_E_IO, "%s: write failed: %s", w->name, strerror(errno));
	destroy(w);
	return rc;
}

/* The header written again in place (its length does not change), from w->hdr. */
static int rewrite_header(rp_rpz_writer *w, char *errbuf)
{
	rp_put_le32(w->hdr + w->hdr_len - 4, rp__crc32c(0, w->hdr, w->hdr_len - 4));
	long end;
	if (fflush(w->f) != 0 || (end = ftell(w->f)) < 0 || fseek(w->f, w->hdr_pos, SEEK_SET) != 0 ||
	    fwrite(w->hdr, 1, w->hdr_len, w->f) != w->hdr_len || fflush(w->f) != 0 ||
	    fseek(w->f, end, SEEK_SET) != 0) {
		w->failed = true;
		return rp_fail(errbuf, RP_E_IO, "%s: rewriting the header: %s", w->name, strerror(errno));
	}
	return 0;
}

int rp_rpz_writer_add_flags(rp_rpz_writer *w, uint32_t flags, char *errbuf)
{
	w->add_flags |= flags;
	if (!w->header_done)
		return 0;
	if (w->failed)
		return rp_fail(errbuf, RP_E_STATE, "%s: %s", w->name, w->sink.errbuf);
	if (w->hdr_pos < 0)
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: the header cannot be rewritten (not seekable)", w->name);
	/* Flags sit at a fixed offset and the header's length does not change: rewrite it in place. */
	rp_put_le32(w->hdr + 20, ((uint32_t)w->hdr[20] | (uint32_t)w->hdr[21] << 8 | (uint32_t)w->hdr[22] << 16 |
				  (uint32_t)w->hdr[23] << 24) | flags);
	return rewrite_header(w, errbuf);
}

uint64_t rp_rpz_writer_bytes(const rp_rpz_writer *w)
{
	return w->offset;
}
