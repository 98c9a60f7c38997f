/*
 * Writes the in-flight window benchmark's trace (bench/inflight_bench.sh): per
 * client, one open, then BURSTS bursts of DEPTH reads of 4 KiB at different
 * offsets of that handle, each recorded as taking 2 ms, started 100 us apart
 * (so DEPTH of them are in flight at once), a burst every (DEPTH/10 + 2.5) ms,
 * then a close.  As an async client sends them: independent reads, overlapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/rpz.h"

#define US 1000ull
#define MS 1000000ull

static int by_start(const void *a, const void *b)
{
	const rp_op *const x = a, *const y = b;
	return x->t_start < y->t_start ? -1 : x->t_start > y->t_start;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s OUT.rpz CLIENTS BURSTS DEPTH\n", argv[0]);
		return 2;
	}
	const unsigned clients = (unsigned)atoi(argv[2]), bursts = (unsigned)atoi(argv[3]),
		       depth = (unsigned)atoi(argv[4]);
	if (clients < 1 || bursts < 1 || depth < 1 || depth > 1000) {
		fprintf(stderr, "bad counts\n");
		return 2;
	}
	const size_t n = (size_t)clients * ((size_t)bursts * depth + 2);
	rp_op *const ops = calloc(n, sizeof(*ops));
	if (!ops)
		return 1;
	const uint64_t period = depth * 100 * US + 2500 * US;
	size_t k = 0;
	for (unsigned c = 1; c <= clients; c++) {
		rp_op *op = &ops[k++];
		op->op = RP_OP_OPEN, op->client = c, op->handle = 1, op->path = 1, op->disp = RP_DISP_OPEN;
		op->t_start = 0, op->t_end = 100 * US;
		for (unsigned b = 0; b < bursts; b++)
			for (unsigned i = 0; i < depth; i++) {
				op = &ops[k++];
				op->op = RP_OP_READ, op->client = c, op->handle = 1;
				op->offset = 4096ull * i, op->length = op->result = 4096;
				op->t_start = MS + period * b + 100 * US * i;
				op->t_end = op->t_start + 2 * MS;
			}
		op = &ops[k++];
		op->op = RP_OP_CLOSE, op->client = c, op->handle = 1;
		op->t_start = MS + period * bursts, op->t_end = op->t_start + 100 * US;
	}
	qsort(ops, n, sizeof(*ops), by_start);
	for (size_t i = 0; i < n; i++)
		ops[i].status_kind = RP_SK_NT;

	char eb[RP_ERRBUF_SIZE];
	rp_rpz_writer *w;
	if (rp_rpz_writer_open(&w, argv[1], &(rp_rpz_wopts){ 0 }, eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		return 1;
	}
	rp_sink *const s = rp_rpz_writer_sink(w);
	rp_trace_meta meta;
	memset(&meta, 0, sizeof(meta));
	meta.source = RP_SRC_SYNTHETIC;
	meta.flags = RP_META_TIMED;
	snprintf(meta.source_name, sizeof(meta.source_name), "bench/inflight_trace.c");
	int rc = s->meta(s, &meta);
	if (rc == 0)
		rc = s->string(s, 1, "file", 4);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = s->op(s, &ops[i]);
	if (rc == 0)
		rc = s->finish(s);
	if (rc < 0)
		fprintf(stderr, "%s\n", s->errbuf);
	if (rp_rpz_writer_close(w, eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		rc = -1;
	}
	free(ops);
	return rc < 0;
}
