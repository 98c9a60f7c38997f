/* Helpers shared by the .rpz tests and the corpus generator: synthetic ops written to memory. */
#ifndef REPRISE_TESTS_RPZ_TESTLIB_H
#define REPRISE_TESTS_RPZ_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"
#include "formats/rpz.h"

/* xorshift64*: reproducible pseudo-random values for synthetic traces. */
static inline uint64_t tl_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* A value biased towards the edges: 0, 1, max, small, or anything. */
static inline uint64_t tl_edge(uint64_t *s, uint64_t max)
{
	const uint64_t r = tl_rand(s);
	switch (r % 6) {
	case 0: return 0;
	case 1: return max;
	case 2: return 1;
	case 3: return (r >> 8) % 4096;
	case 4: return max - (r >> 8) % 3;
	default: return (r >> 3) & max;
	}
}

typedef struct tl_trace {
	rp_trace_meta meta;
	char **strs;
	uint32_t *lens;
	uint32_t n_strs;
	rp_op *ops;
	size_t n_ops;
} tl_trace;

/* Field by field: rp_op has padding bytes that struct copies need not keep. */
static inline bool tl_op_eq(const rp_op *a, const rp_op *b)
{
	return a->t_start == b->t_start && a->t_end == b->t_end && a->handle == b->handle && a->offset == b->offset &&
	       a->length == b->length && a->result == b->result && a->client == b->client && a->path == b->path &&
	       a->path2 == b->path2 && a->handle2 == b->handle2 && a->offset2 == b->offset2 && a->atime == b->atime &&
	       a->mtime == b->mtime && a->want == b->want && a->disp == b->disp && a->oflags == b->oflags &&
	       a->attrs == b->attrs && a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->raw.access == b->raw.access && a->raw.disposition == b->raw.disposition &&
	       a->raw.options == b->raw.options && a->raw.level == b->raw.level && a->proto == b->proto &&
	       a->proto_status == b->proto_status && a->status == b->status && a->op == b->op &&
	       a->flags == b->flags && a->status_kind == b->status_kind;
}

/*
 * A synthetic trace of n ops: every field exercised, extremes included, with
 * `n_strs` strings defined over time (string i before its first use).
 */
static inline void tl_make(tl_trace *t, size_t n, uint32_t n_strs, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	uint64_t s = seed | 1;
	t->meta.source = RP_SRC_SYNTHETIC;
	t->meta.flags = RP_META_ANONYMIZED | RP_META_TIMED;
	t->meta.capture_start_ns = -1234567890123456789ll;
	snprintf(t->meta.host, sizeof(t->meta.host), "host-%llu", (unsigned long long)(seed % 1000));
	snprintf(t->meta.source_name, sizeof(t->meta.source_name), "synthetic seed %llu", (unsigned long long)seed);
	t->strs = calloc(n_strs ? n_strs : 1, sizeof(*t->strs));
	t->lens = calloc(n_strs ? n_strs : 1, sizeof(*t->lens));
	for (uint32_t i = 0; i < n_strs; i++) {
		const uint32_t len = i == 0 ? 0 : (uint32_t)(tl_rand(&s) % 40);
		t->strs[i] = malloc(len + 1);
		for (uint32_t k = 0; k < len; k++)
			t->strs[i][k] = (char)(tl_rand(&s) & 0xff); /* any byte, NUL included */
		t->strs[i][len] = '\0';
		t->lens[i] = len;
	}
	t->n_strs = n_strs;
	t->ops = calloc(n ? n : 1, sizeof(*t->ops));
	t->n_ops = n;
	uint64_t time = 0;
	for (size_t i = 0; i < n; i++) {
		rp_op *const o = &t->ops[i];
		const uint64_t r = tl_rand(&s);
		time += (r & 7) == 0 ? tl_edge(&s, UINT64_MAX) : r % 100000;
		o->t_start = time;
		o->t_end = (r & 0x30) == 0 ? RP_TIME_UNKNOWN : (r & 0x30) == 0x10 ? tl_edge(&s, UINT64_MAX)
											  : time + (r >> 40) % 5000;
		o->client = (uint32_t)((r >> 8) % 4 == 0 ? tl_edge(&s, UINT32_MAX) : (r >> 10) % 3);
		o->op = (uint16_t)(tl_rand(&s) % RP_OP__COUNT);
		o->handle = (r >> 12) % 3 == 0 ? tl_edge(&s, UINT64_MAX) : 100 + (r >> 16) % 8;
		o->offset = tl_edge(&s, UINT64_MAX);
		o->length = tl_edge(&s, UINT64_MAX);
		o->result = (r >> 20) % 2 ? o->length : tl_edge(&s, UINT64_MAX);
		/* strings become usable as time goes on: id k is defined before op k*n/n_strs */
		const uint32_t usable = n ? (uint32_t)((uint64_t)n_strs * (i + 1) / n) : 0;
		o->path = usable ? (uint32_t)(tl_rand(&s) % (usable + 1)) : 0;
		o->path2 = usable && (r >> 24) % 4 == 0 ? (uint32_t)(tl_rand(&s) % (usable + 1)) : 0;
		o->want = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->disp = (uint8_t)tl_edge(&s, UINT8_MAX);
		o->oflags = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->attrs = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->mode = (uint32_t)tl_edge(&s, 0777);
		o->uid = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->gid = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->proto = (uint8_t)tl_edge(&s, UINT8_MAX);
		o->raw.access = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->raw.disposition = (uint32_t)tl_edge(&s, 7);
		o->raw.options = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->raw.level = (uint32_t)tl_edge(&s, UINT32_MAX);
		/* the newer columns: present on some ops, extremes included */
		o->handle2 = (r >> 28) % 4 == 0 ? tl_edge(&s, UINT64_MAX) : 0;
		o->offset2 = (r >> 30) % 4 == 0 ? tl_edge(&s, UINT64_MAX) : 0;
		o->atime = (r >> 32) % 3 == 0 ? tl_edge(&s, UINT64_MAX) : 0;
		o->mtime = (r >> 34) % 3 == 0 ? tl_edge(&s, UINT64_MAX) : 0;
		o->proto_status = (uint32_t)tl_edge(&s, UINT32_MAX);
		o->status = (int32_t)(uint32_t)tl_edge(&s, UINT32_MAX);
		o->flags = (uint16_t)tl_edge(&s, UINT16_MAX);
		o->status_kind = (uint8_t)tl_edge(&s, UINT8_MAX);
	}
}

static inline void tl_free(tl_trace *t)
{
	for (uint32_t i = 0; i < t->n_strs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->lens);
	free(t->ops);
	memset(t, 0, sizeof(*t));
}

/* Feed the tl_trace arg to a sink, defining each string just before the first op that may use it. */
static inline int tl_feed(rp_sink *s, void *arg)
{
	const tl_trace *const t = arg;
	int rc = s->meta(s, &t->meta);
	uint32_t defined = 0;
	for (size_t i = 0; rc == 0 && i <= t->n_ops; i++) {
		const uint32_t usable = t->n_ops ? (uint32_t)((uint64_t)t->n_strs * (i + 1) / t->n_ops) : t->n_strs;
		const uint32_t want = i == t->n_ops ? t->n_strs : usable;
		while (rc == 0 && defined < want) {
			rc = s->string(s, defined + 1, t->strs[defined], t->lens[defined]);
			defined++;
		}
		if (rc == 0 && i < t->n_ops)
			rc = s->op(s, &t->ops[i]);
	}
	return rc;
}

/* Gives the writer's sink its content; returns 0 or an RP_E_* code. */
typedef int tl_feed_fn(rp_sink *s, void *arg);

/* Write feed(sink, arg)'s content (none if NULL) as .rpz into a malloc'ed buffer; errors in eb. */
static inline int tl_write_fn(const rp_rpz_wopts *o, tl_feed_fn *feed, void *arg, uint8_t **buf, size_t *len,
			      char eb[RP_ERRBUF_SIZE])
{
	char *mem = NULL;
	size_t mlen = 0;
	FILE *const f = open_memstream(&mem, &mlen);
	if (!f)
		return RP_E_NOMEM;
	rp_rpz_writer *w = NULL;
	int rc = rp_rpz_writer_open_file(&w, f, "mem.rpz", o, eb);
	if (rc == 0) {
		if (feed)
			rc = feed(rp_rpz_writer_sink(w), arg);
		const int rc2 = rp_rpz_writer_close(w, eb);
		if (rc == 0)
			rc = rc2;
	}
	fclose(f);
	*buf = (uint8_t *)mem;
	*len = mlen;
	return rc;
}

/* Write t as .rpz into a malloc'ed buffer. */
static inline int tl_write(const tl_trace *t, const rp_rpz_wopts *o, uint8_t **buf, size_t *len)
{
	char eb[RP_ERRBUF_SIZE];
	return tl_write_fn(o, tl_feed, (void *)t, buf, len, eb);
}

#endif
