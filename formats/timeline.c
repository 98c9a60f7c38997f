/* A trace's ops by time interval: counts, bytes, op mix per step (`reprise stat --timeline`). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/doc_track.h"
#include "formats/error.h"
#include "formats/summary.h"
#include "formats/timeline.h"

struct rp_timeline {
	uint64_t step;
	rp_timeline_bin *bins;
	uint64_t n, cap;
	rp_doc_track doc; /* deletes done by a close count as unlink or rmdir, as the summary counts them */
};

rp_timeline *rp_timeline_create(uint64_t step_ns)
{
	rp_timeline *const t = calloc(1, sizeof(*t));
	if (t)
		t->step = step_ns ? step_ns : 1;
	return t;
}

void rp_timeline_destroy(rp_timeline *t)
{
	if (!t)
		return;
	free(t->bins);
	rp_doc_track_free(&t->doc);
	free(t);
}

int rp_timeline_add(rp_timeline *t, const rp_op *op)
{
	const uint64_t i = op->t_start / t->step;
	if (i >= RP_TIMELINE_MAX)
		return RP_E_LIMIT;
	if (i >= t->cap) {
		uint64_t cap = t->cap ? t->cap : 64;
		while (cap <= i)
			cap *= 2;
		if (cap > RP_TIMELINE_MAX)
			cap = RP_TIMELINE_MAX;
		rp_timeline_bin *const nb = realloc(t->bins, cap * sizeof(*nb));
		if (!nb)
			return RP_E_NOMEM;
		memset(nb + t->cap, 0, (cap - t->cap) * sizeof(*nb));
		t->bins = nb;
		t->cap = cap;
	}
	if (i >= t->n)
		t->n = i + 1;
	rp_timeline_bin *const b = &t->bins[i];
	b->ops++;
	const unsigned kind = rp_summary_kind(op); /* as the summary's op mix counts it: SMB's directory creates are mkdirs */
	if (kind < RP_OP__COUNT)
		b->count[kind]++;
	const int deleted = rp_doc_track_op(&t->doc, op);
	if (deleted < 0)
		return deleted;
	if (deleted != RP_OP__COUNT)
		b->count[deleted]++;
	/* bytes as `reprise stat` counts them: moved when the reply was seen, asked when it was not */
	const uint64_t moved = op->status == RP_STATUS_UNKNOWN ? op->length : op->status == RP_STATUS_OK ? op->result : 0;
	if (op->op == RP_OP_READ)
		b->bytes_read += moved;
	else if (op->op == RP_OP_WRITE)
		b->bytes_written += moved;
	return 0;
}

uint64_t rp_timeline_bins(const rp_timeline *t, const rp_timeline_bin **bins)
{
	*bins = t->bins;
	return t->n;
}

uint64_t rp_timeline_step(const rp_timeline *t)
{
	return t->step;
}

static void top_ops(const rp_timeline_bin *b, char *buf, size_t cap)
{
	bool used[RP_OP__COUNT] = { false };
	size_t n = 0;
	buf[0] = '\0';
	for (int k = 0; k < 4; k++) {
		unsigned best = RP_OP__COUNT;
		for (unsigned op = 0; op < RP_OP__COUNT; op++)
			if (!used[op] && b->count[op] && (best == RP_OP__COUNT || b->count[op] > b->count[best]))
				best = op;
		if (best == RP_OP__COUNT)
			break;
		used[best] = true;
		const int w = snprintf(buf + n, cap - n, "%s%s %" PRIu64, n ? ", " : "", rp_op_name(best), b->count[best]);
		if (w < 0 || (size_t)w >= cap - n)
			break;
		n += (size_t)w;
	}
}

void rp_timeline_print(const rp_timeline *t, FILE *f)
{
	const double step = (double)t->step / 1e9;
	fprintf(f, "\ntimeline    %.6g s steps (a run of empty steps is one idle line)\n", step);
	fprintf(f, "%-21s %10s %11s %11s  %s\n", "  from - to (s)", "ops", "read MB", "written MB", "most frequent ops");
	for (uint64_t i = 0; i < t->n;) {
		const rp_timeline_bin *const b = &t->bins[i];
		if (b->ops == 0) {
			uint64_t j = i;
			while (j < t->n && t->bins[j].ops == 0)
				j++;
			fprintf(f, "  %8.3f - %8.3f %10s\n", (double)i * step, (double)j * step, "idle");
			i = j;
			continue;
		}
		char top[160];
		top_ops(b, top, sizeof(top));
		fprintf(f, "  %8.3f - %8.3f %10" PRIu64 " %11.3f %11.3f  %s\n", (double)i * step, (double)(i + 1) * step,
			b->ops, (double)b->bytes_read / 1e6, (double)b->bytes_written / 1e6, top);
		i++;
	}
}
