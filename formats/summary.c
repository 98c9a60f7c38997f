/* Trace summaries for `reprise stat`: counts, bytes, clients, files, I/O size histograms. */
#include "formats/summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "formats/op.h"

/* A growable bitset over dense ids (string ids, client ids). */
typedef struct idset {
	uint64_t *words;
	size_t n_words;
	uint64_t count;
} idset;

static int idset_add(idset *b, uint64_t id)
{
	const size_t w = (size_t)(id / 64);
	if (w >= b->n_words) {
		size_t n = b->n_words ? b->n_words : 16;
		while (n <= w)
			n *= 2;
		uint64_t *const words = realloc(b->words, n * sizeof(*words));
		if (!words)
			return RP_E_NOMEM;
		memset(words + b->n_words, 0, (n - b->n_words) * sizeof(*words));
		b->words = words;
		b->n_words = n;
	}
	const uint64_t bit = 1ull << (id % 64);
	if (!(b->words[w] & bit)) {
		b->words[w] |= bit;
		b->count++;
	}
	return 0;
}

/*
 * Open handles that delete their object at close (delete-on-close at open or
 * set by set-info) or that are directories: an open-addressing table of
 * (client, handle), bounded by the handles open at once.
 */
typedef struct hent {
	uint64_t handle; /* 0 = empty */
	uint32_t client;
	uint8_t bits; /* H_DELETE, H_DIR */
	uint8_t used; /* 1 live, 2 removed (a tombstone) */
} hent;
enum { H_DELETE = 1, H_DIR = 2 };

typedef struct htab {
	hent *e;
	size_t cap, used; /* used counts tombstones too */
} htab;

static size_t hslot(const htab *t, uint32_t client, uint64_t handle)
{
	return (size_t)(((handle ^ (uint64_t)client << 40) * 0x9e3779b97f4a7c15ull) >> 17) & (t->cap - 1);
}

static hent *hfind(const htab *t, uint32_t client, uint64_t handle)
{
	if (!t->cap)
		return NULL;
	for (size_t i = hslot(t, client, handle);; i = (i + 1) & (t->cap - 1)) {
		hent *const e = &t->e[i];
		if (!e->used)
			return NULL;
		if (e->used == 1 && e->handle == handle && e->client == client)
			return e;
	}
}

static int hset(htab *t, uint32_t client, uint64_t handle, uint8_t bits)
{
	hent *const old = hfind(t, client, handle);
	if (old) {
		old->bits = bits;
		return 0;
	}
	if ((t->used + 1) * 2 > t->cap) {
		htab n = { .cap = t->cap ? t->cap * 2 : 64 };
		n.e = calloc(n.cap, sizeof(*n.e));
		if (!n.e)
			return RP_E_NOMEM;
		for (size_t i = 0; i < t->cap; i++)
			if (t->e[i].used == 1) {
				size_t j = hslot(&n, t->e[i].client, t->e[i].handle);
				while (n.e[j].used)
					j = (j + 1) & (n.cap - 1);
				n.e[j] = t->e[i];
				n.used++;
			}
		free(t->e);
		*t = n;
	}
	size_t i = hslot(t, client, handle);
	while (t->e[i].used == 1)
		i = (i + 1) & (t->cap - 1);
	if (!t->e[i].used)
		t->used++;
	t->e[i] = (hent){ .handle = handle, .client = client, .bits = bits, .used = 1 };
	return 0;
}

struct rp_summary {
	uint64_t ops;
	uint64_t at_close[RP_OP__COUNT]; /* unlink/rmdir done by a close (delete-on-close) */
	htab doc;
	uint64_t count[RP_OP__COUNT];
	uint64_t failed[RP_OP__COUNT]; /* status neither OK nor unknown */
	uint64_t unknown_status;
	uint64_t bytes_read, bytes_written;
	uint64_t t_min, t_max;
	idset paths, clients;
	uint64_t read_sizes[RP_SIZE_BUCKETS], write_sizes[RP_SIZE_BUCKETS];
};

rp_summary *rp_summary_create(void)
{
	rp_summary *const s = calloc(1, sizeof(*s));
	if (s)
		s->t_min = UINT64_MAX;
	return s;
}

void rp_summary_destroy(rp_summary *s)
{
	if (!s)
		return;
	free(s->paths.words);
	free(s->clients.words);
	free(s->doc.e);
	free(s);
}

static unsigned size_bucket(uint64_t n)
{
	unsigned b = 0;
	while (n && b < RP_SIZE_BUCKETS - 1) {
		n >>= 1;
		b++;
	}
	return b;
}

/* Delete-on-close: an object deleted by the close of a handle that was to delete it counts as an unlink or rmdir. */
static int track_delete(rp_summary *s, const rp_op *op)
{
	if (!op->handle || op->status != RP_STATUS_OK)
		return 0;
	hent *const e = hfind(&s->doc, op->client, op->handle);
	switch (op->op) {
	case RP_OP_OPEN: {
		const uint8_t bits = (uint8_t)((op->oflags & RP_OF_DELETE_ON_CLOSE ? H_DELETE : 0) |
					       ((op->oflags & RP_OF_DIRECTORY) || (op->flags & RP_OPF_DIRECTORY) ? H_DIR : 0));
		if (bits)
			return hset(&s->doc, op->client, op->handle, bits);
		if (e)
			e->used = 2; /* a handle id used again */
		return 0;
	}
	case RP_OP_SETATTR:
		if (op->attrs & RP_SA_DELETE_SET)
			return hset(&s->doc, op->client, op->handle, (uint8_t)((e ? e->bits : 0) | H_DELETE));
		if (e && (op->attrs & RP_SA_DELETE_CLEAR))
			e->bits &= (uint8_t)~H_DELETE;
		return 0;
	case RP_OP_CLOSE:
		if (e) {
			if (e->bits & H_DELETE) {
				const unsigned as = e->bits & H_DIR ? RP_OP_RMDIR : RP_OP_UNLINK;
				s->count[as]++;
				s->at_close[as]++;
			}
			e->used = 2;
		}
		return 0;
	default:
		return 0;
	}
}

int rp_summary_add(rp_summary *s, const rp_op *op)
{
	s->ops++;
	if (op->op < RP_OP__COUNT) {
		s->count[op->op]++;
		if (op->status == RP_STATUS_UNKNOWN)
			s->unknown_status++;
		else if (op->status != RP_STATUS_OK)
			s->failed[op->op]++;
	}
	if (op->op != RP_OP_SLEEP) {
		if (op->t_start < s->t_min)
			s->t_min = op->t_start;
		const uint64_t end = op->t_end != RP_TIME_UNKNOWN && op->t_end > op->t_start ? op->t_end : op->t_start;
		if (end > s->t_max)
			s->t_max = end;
	}
	/* Bytes moved are the returned counts; a write whose reply was never
	 * seen still carried its data, so it counts what was sent. */
	if (op->op == RP_OP_READ) {
		s->bytes_read += op->result;
		s->read_sizes[size_bucket(op->length)]++;
	} else if (op->op == RP_OP_WRITE) {
		s->bytes_written += op->status == RP_STATUS_UNKNOWN ? op->length : op->result;
		s->write_sizes[size_bucket(op->length)]++;
	}
	int rc = track_delete(s, op);
	if (op->path)
		rc |= idset_add(&s->paths, op->path);
	if (op->path2)
		rc |= idset_add(&s->paths, op->path2);
	rc |= idset_add(&s->clients, op->client);
	return rc ? RP_E_NOMEM : 0;
}

uint64_t rp_summary_ops(const rp_summary *s)
{
	return s->ops;
}

uint64_t rp_summary_count(const rp_summary *s, unsigned op)
{
	return op < RP_OP__COUNT ? s->count[op] : 0;
}

static double duration_s(const rp_summary *s)
{
	return s->t_min == UINT64_MAX || s->t_max < s->t_min ? 0.0 : (double)(s->t_max - s->t_min) / 1e9;
}

/* Lower bound of a size bucket: 0, 1, 2, 4, ... */
static uint64_t bucket_low(unsigned b)
{
	return b == 0 ? 0 : 1ull << (b - 1);
}

static void print_sizes(const char *what, const uint64_t *hist, FILE *f)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < RP_SIZE_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return;
	fprintf(f, "\n%s sizes:\n", what);
	for (unsigned b = 0; b < RP_SIZE_BUCKETS; b++) {
		if (!hist[b])
			continue;
		char range[48];
		if (b <= 1)
			snprintf(range, sizeof(range), "%" PRIu64, bucket_low(b));
		else
			snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, bucket_low(b), bucket_low(b + 1) - 1);
		fprintf(f, "  %-24s %12" PRIu64 "  %5.1f%%\n", range, hist[b], 100.0 * (double)hist[b] / (double)total);
	}
}

void rp_summary_print(const rp_summary *s, const rp_trace_meta *meta, FILE *f)
{
	fprintf(f, "source      %s%s%s\n", rp_source_name(meta->source),
		meta->flags & RP_META_ANONYMIZED ? " (anonymized)" : "",
		meta->flags & RP_META_TRUNCATED ? " (truncated: its input was cut or its producer stopped early)" : "");
	/* Names from the trace, escaped as the text form does: they never reach a terminal raw. */
	char esc[4 * RP_META_NAME_MAX];
	if (meta->source_name[0]) {
		rp_text_escape(esc, sizeof(esc), meta->source_name, strnlen(meta->source_name, RP_META_NAME_MAX), false);
		fprintf(f, "input       %s\n", esc);
	}
	if (meta->host[0]) {
		rp_text_escape(esc, sizeof(esc), meta->host, strnlen(meta->host, RP_META_HOST_MAX), false);
		fprintf(f, "host        %s\n", esc);
	}
	fprintf(f, "ops         %" PRIu64 "\n", s->ops);
	fprintf(f, "clients     %" PRIu64 "\n", s->clients.count);
	if (meta->flags & RP_META_TIMED)
		fprintf(f, "duration    %.6f s\n", duration_s(s));
	else
		fprintf(f, "duration    untimed\n");
	fprintf(f, "files       %" PRIu64 "\n", s->paths.count);
	fprintf(f, "read        %" PRIu64 " bytes\n", s->bytes_read);
	fprintf(f, "written     %" PRIu64 " bytes\n", s->bytes_written);
	if (s->unknown_status)
		fprintf(f, "no reply    %" PRIu64 "\n", s->unknown_status);
	fprintf(f, "\n%-12s %12s %7s %10s\n", "op", "count", "share", "failed");
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		if (!s->count[i])
			continue;
		/* share of the records; deletes done by a close are counted here too, and said */
		fprintf(f, "%-12s %12" PRIu64 " %6.2f%% %10" PRIu64, rp_op_name(i), s->count[i],
			100.0 * (double)(s->count[i] - s->at_close[i]) / (double)s->ops, s->failed[i]);
		if (s->at_close[i])
			fprintf(f, "   (%" PRIu64 " by delete-on-close)", s->at_close[i]);
		fputc('\n', f);
	}
	print_sizes("read", s->read_sizes, f);
	print_sizes("write", s->write_sizes, f);
}

void rp_summary_get(const rp_summary *s, rp_summary_view *v)
{
	*v = (rp_summary_view){
		.ops = s->ops,
		.clients = s->clients.count,
		.files = s->paths.count,
		.bytes_read = s->bytes_read,
		.bytes_written = s->bytes_written,
		.no_reply = s->unknown_status,
		.duration_s = duration_s(s),
		.count = s->count,
		.failed = s->failed,
		.at_close = s->at_close,
		.read_sizes = s->read_sizes,
		.write_sizes = s->write_sizes,
	};
}

uint64_t rp_summary_size_min(unsigned b)
{
	return b < RP_SIZE_BUCKETS ? bucket_low(b) : 0;
}
