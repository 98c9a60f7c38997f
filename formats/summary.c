/* Trace summaries for `reprise stat`: counts, bytes, clients, files, I/O size histograms, recorded latencies, inter-arrival gaps. */
#include "formats/summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/doc_track.h"
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
 * Inter-arrival: the gap between successive op starts, of one client or of
 * the whole trace, in the latency histogram's buckets.  Every client has one,
 * and a client's gaps fall in a few octaves, so the buckets are held sparsely:
 * an octave's LAT_SUB counters are allocated when a gap first lands in it.
 */
#define GAP_OCTAVES (LAT_BUCKETS / LAT_SUB)

typedef struct gaps {
	uint64_t n, min, max;
	uint64_t last; /* the latest start seen */
	bool started;
	double sum; /* ns; a double, as lat's */
	uint64_t **oct; /* GAP_OCTAVES pointers, each NULL or LAT_SUB counts; allocated at the first gap */
} gaps;

/* Ops and bytes per client id: open addressing, bounded by the trace's clients. */
typedef struct cent {
	uint32_t client;
	bool used;
	uint64_t ops, bytes_read, bytes_written;
	gaps arrivals; /* between this client's successive op starts */
} cent;

typedef struct ctab {
	cent *e;
	size_t cap, used;
} ctab;

static size_t cslot(const ctab *t, uint32_t client)
{
	return (size_t)(((uint64_t)client * 0x9e3779b97f4a7c15ull) >> 23) & (t->cap - 1);
}

static cent *client_entry(ctab *t, uint32_t client)
{
	if ((t->used + 1) * 2 > t->cap) {
		ctab n = { .cap = t->cap ? t->cap * 2 : 16 };
		n.e = calloc(n.cap, sizeof(*n.e));
		if (!n.e)
			return NULL;
		for (size_t i = 0; i < t->cap; i++)
			if (t->e[i].used) {
				size_t j = cslot(&n, t->e[i].client);
				while (n.e[j].used)
					j = (j + 1) & (n.cap - 1);
				n.e[j] = t->e[i];
				n.used++;
			}
		free(t->e);
		*t = n;
	}
	size_t i = cslot(t, client);
	while (t->e[i].used && t->e[i].client != client)
		i = (i + 1) & (t->cap - 1);
	if (!t->e[i].used) {
		t->e[i] = (cent){ .client = client, .used = true };
		t->used++;
	}
	return &t->e[i];
}

/*
 * Recorded latency (service response time: reply time - call time) of one
 * op type, with a log-linear histogram for the percentile: LAT_SUB buckets
 * per power of two, so a bucket's values are within 1/LAT_SUB of each other.
 */
#define LAT_SUB 16u
#define LAT_BUCKETS (61u * LAT_SUB) /* up to 2^64 ns */

typedef struct lat {
	uint64_t n, min, max;
	double sum; /* ns; a double: a hostile trace's latencies could overflow 64 bits */
	uint64_t *hist; /* LAT_BUCKETS, allocated at the first sample */
} lat;

static unsigned lat_bucket(uint64_t v)
{
	if (v < LAT_SUB)
		return (unsigned)v;
	const unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	return (msb - 3u) * LAT_SUB + (unsigned)((v >> (msb - 4u)) & (LAT_SUB - 1u));
}

/* The middle of bucket b (its lowest value for the exact ones below LAT_SUB). */
static double lat_bucket_mid(unsigned b)
{
	if (b < LAT_SUB)
		return (double)b;
	const unsigned msb = b / LAT_SUB + 3u, sub = b % LAT_SUB;
	const double width = (double)(1ull << (msb - 4u));
	return (double)(LAT_SUB + sub) * width + (width - 1.0) / 2.0;
}

static int lat_add(lat *l, uint64_t v)
{
	if (!l->hist) {
		l->hist = calloc(LAT_BUCKETS, sizeof(*l->hist));
		if (!l->hist)
			return RP_E_NOMEM;
		l->min = UINT64_MAX;
	}
	l->hist[lat_bucket(v)]++;
	l->n++;
	l->sum += (double)v;
	if (v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
	return 0;
}

/* The q-quantile (0 < q <= 1) in ns: the bucket holding it, its middle clamped to [min, max]. */
static double lat_quantile(const lat *l, double q)
{
	const double want = q * (double)l->n;
	uint64_t seen = 0;
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		seen += l->hist[b];
		if ((double)seen >= want && l->hist[b]) {
			if (b == lat_bucket(l->max))
				return (double)l->max; /* the top bucket: its largest value is known exactly */
			const double v = lat_bucket_mid(b);
			return v < (double)l->min ? (double)l->min : v > (double)l->max ? (double)l->max : v;
		}
	}
	return (double)l->max;
}

static void gaps_free(gaps *g)
{
	for (unsigned i = 0; g->oct && i < GAP_OCTAVES; i++)
		free(g->oct[i]);
	free(g->oct);
}

static int gaps_add(gaps *g, uint64_t t_start)
{
	if (!g->started) {
		g->started = true;
		g->last = t_start;
		return 0;
	}
	/* Producers emit in start order; a start before the latest one (inputs merged by
	 * hand) is a gap of 0, so the gaps still add up to the span of the starts. */
	const uint64_t v = t_start > g->last ? t_start - g->last : 0;
	if (t_start > g->last)
		g->last = t_start;
	if (!g->oct && !(g->oct = calloc(GAP_OCTAVES, sizeof(*g->oct))))
		return RP_E_NOMEM;
	const unsigned b = lat_bucket(v);
	uint64_t **const o = &g->oct[b / LAT_SUB];
	if (!*o && !(*o = calloc(LAT_SUB, sizeof(**o))))
		return RP_E_NOMEM;
	(*o)[b % LAT_SUB]++;
	if (!g->n || v < g->min)
		g->min = v;
	if (v > g->max)
		g->max = v;
	g->n++;
	g->sum += (double)v;
	return 0;
}

/* The q-quantile of the gaps by lat_quantile's rule: the bucket holding it, its middle clamped to [min, max]. */
static double gaps_quantile(const gaps *g, double q)
{
	const double want = q * (double)g->n;
	const unsigned top = lat_bucket(g->max);
	uint64_t seen = 0;
	for (unsigned o = 0; g->oct && o < GAP_OCTAVES; o++) {
		if (!g->oct[o])
			continue;
		for (unsigned sub = 0; sub < LAT_SUB; sub++) {
			const uint64_t c = g->oct[o][sub];
			const unsigned b = o * LAT_SUB + sub;
			seen += c;
			if (!c || (double)seen < want)
				continue;
			if (b == top)
				return (double)g->max;
			const double v = lat_bucket_mid(b);
			return v < (double)g->min ? (double)g->min : v > (double)g->max ? (double)g->max : v;
		}
	}
	return (double)g->max;
}

static rp_summary_gaps gaps_view(const gaps *g)
{
	if (!g->n)
		return (rp_summary_gaps){ .count = 0 };
	return (rp_summary_gaps){ .count = g->n, .mean_ns = g->sum / (double)g->n, .p50_ns = gaps_quantile(g, 0.5),
				  .p99_ns = gaps_quantile(g, 0.99), .max_ns = (double)g->max };
}

struct rp_summary {
	uint64_t ops;
	ctab per_client;
	lat latency[RP_OP__COUNT];
	bool has_decode;
	rp_summary_decode decode;
	uint64_t at_close[RP_OP__COUNT]; /* unlink/rmdir done by a close (delete-on-close) */
	uint64_t dir_creates;            /* opens counted as mkdir (rp_summary_kind) */
	rp_doc_track doc;
	uint64_t count[RP_OP__COUNT];
	uint64_t failed[RP_OP__COUNT]; /* status neither OK nor unknown */
	uint64_t unknown_status;
	uint64_t bytes_read, bytes_written;
	uint64_t t_min, t_max;
	idset paths, clients;
	uint64_t read_sizes[RP_SIZE_BUCKETS], write_sizes[RP_SIZE_BUCKETS];
	gaps arrivals; /* between successive op starts of the whole trace */
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
	rp_doc_track_free(&s->doc);
	for (size_t i = 0; i < s->per_client.cap; i++)
		if (s->per_client.e[i].used)
			gaps_free(&s->per_client.e[i].arrivals);
	free(s->per_client.e);
	gaps_free(&s->arrivals);
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		free(s->latency[i].hist);
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
	const int as = rp_doc_track_op(&s->doc, op);
	if (as < 0)
		return as;
	if (as != RP_OP__COUNT) {
		s->count[as]++;
		s->at_close[as]++;
	}
	return 0;
}

unsigned rp_summary_kind(const rp_op *op)
{
	if (op->op == RP_OP_OPEN && (op->oflags & RP_OF_DIRECTORY) && op->disp == RP_DISP_CREATE)
		return RP_OP_MKDIR;
	return op->op;
}

int rp_summary_add(rp_summary *s, const rp_op *op)
{
	s->ops++;
	const unsigned kind = rp_summary_kind(op);
	s->dir_creates += kind != op->op;
	if (kind < RP_OP__COUNT) {
		s->count[kind]++;
		if (op->status == RP_STATUS_UNKNOWN)
			s->unknown_status++;
		else if (op->status != RP_STATUS_OK)
			s->failed[kind]++;
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
	cent *const c = client_entry(&s->per_client, op->client);
	if (!c)
		return RP_E_NOMEM;
	c->ops++;
	if (op->op == RP_OP_READ)
		c->bytes_read += op->result;
	else if (op->op == RP_OP_WRITE)
		c->bytes_written += op->status == RP_STATUS_UNKNOWN ? op->length : op->result;
	/* a sleep is think time, not an op sent: the gap runs from the op before it to the op after */
	if (op->op != RP_OP_SLEEP && (gaps_add(&s->arrivals, op->t_start) < 0 || gaps_add(&c->arrivals, op->t_start) < 0))
		return RP_E_NOMEM;
	/* recorded latency by the record's own kind: the protocol's reply time of a CREATE (tshark's SRT) */
	if (op->op < RP_OP__COUNT && op->op != RP_OP_SLEEP && op->t_end != RP_TIME_UNKNOWN && op->t_end >= op->t_start &&
	    lat_add(&s->latency[op->op], op->t_end - op->t_start) < 0)
		return RP_E_NOMEM;
	int rc = track_delete(s, op);
	if (op->path)
		rc |= idset_add(&s->paths, op->path);
	if (op->path2)
		rc |= idset_add(&s->paths, op->path2);
	rc |= idset_add(&s->clients, op->client);
	return rc ? RP_E_NOMEM : 0;
}

void rp_summary_set_decode(rp_summary *s, const rp_summary_decode *d)
{
	s->has_decode = true;
	s->decode = *d;
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

/* n bytes in binary units: "512 B", "4.0 KiB", "1.5 MiB" ... */
static const char *human_bytes(char *buf, size_t cap, uint64_t n)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (n < 1024) {
		snprintf(buf, cap, "%" PRIu64 " B", n);
		return buf;
	}
	double v = (double)n / 1024.0;
	unsigned u = 0;
	while (v >= 1024.0 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, cap, "%.*f %s", v < 10.0 ? 2 : v < 100.0 ? 1 : 0, v, unit[u]);
	return buf;
}

const char *rp_summary_bytes_text(char *buf, size_t cap, uint64_t n)
{
	return human_bytes(buf, cap, n);
}

/* "19 bytes", or "68.4 KiB (70019 bytes)": the exact count beside the binary unit. */
static const char *bytes_line(char *buf, size_t cap, uint64_t n)
{
	char h[32];
	if (n < 1024)
		snprintf(buf, cap, "%" PRIu64 " bytes", n);
	else
		snprintf(buf, cap, "%s (%" PRIu64 " bytes)", human_bytes(h, sizeof(h), n), n);
	return buf;
}

const char *rp_summary_bucket_name(char *buf, size_t cap, uint64_t low)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	while (low >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		low /= 1024;
		u++;
	}
	snprintf(buf, cap, "%" PRIu64 " %s", low, unit[u]);
	return buf;
}

static void print_sizes(const char *what, const uint64_t *hist, FILE *f)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < RP_SIZE_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return;
	fprintf(f, "\n%s sizes (requested; from, up to the next):\n", what);
	for (unsigned b = 0; b < RP_SIZE_BUCKETS; b++) {
		if (!hist[b])
			continue;
		char lo[32], hi[32], range[72];
		if (b <= 1)
			snprintf(range, sizeof(range), "%s", rp_summary_bucket_name(lo, sizeof(lo), bucket_low(b)));
		else if (b + 1 < RP_SIZE_BUCKETS)
			snprintf(range, sizeof(range), "%s - %s", rp_summary_bucket_name(lo, sizeof(lo), bucket_low(b)),
				 rp_summary_bucket_name(hi, sizeof(hi), bucket_low(b + 1)));
		else
			snprintf(range, sizeof(range), "%s and more", rp_summary_bucket_name(lo, sizeof(lo), bucket_low(b)));
		fprintf(f, "  %-24s %12" PRIu64 "  %5.1f%%\n", range, hist[b], 100.0 * (double)hist[b] / (double)total);
	}
}

/* Unix time in ns as "2026-12-01 09:10:00.123456789 UTC" (ISO 8601 with 'T' and 'Z' when iso). */
const char *rp_summary_utc_time(char *buf, size_t cap, int64_t ns, bool iso)
{
	const time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, cap, "%" PRId64 " ns", ns);
		return buf;
	}
	char day[40];
	strftime(day, sizeof(day), iso ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, cap, "%s.%09" PRId64 "%s", day, ns % 1000000000, iso ? "Z" : " UTC");
	return buf;
}

static int cmp_client(const void *a, const void *b)
{
	const uint32_t x = ((const cent *)a)->client, y = ((const cent *)b)->client;
	return x < y ? -1 : x > y;
}

/* The per-client entries sorted by client id (malloc'd; NULL with *n = 0 when there are none or no memory). */
static cent *clients_sorted(const rp_summary *s, size_t *n)
{
	*n = 0;
	cent *const v = s->per_client.used ? malloc(s->per_client.used * sizeof(*v)) : NULL;
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->per_client.cap; i++)
		if (s->per_client.e[i].used)
			v[(*n)++] = s->per_client.e[i];
	qsort(v, *n, sizeof(*v), cmp_client);
	return v;
}

/* A text table lists this many clients; --json lists them all. */
#define TEXT_CLIENTS_MAX 64

static void print_clients(const rp_summary *s, FILE *f)
{
	size_t n;
	cent *const v = clients_sorted(s, &n);
	if (!n)
		return;
	fprintf(f, "\n%-12s %12s %12s %12s\n", "client", "ops", "read", "written");
	for (size_t i = 0; i < n && i < TEXT_CLIENTS_MAX; i++) {
		char id[16], r[32], w[32];
		snprintf(id, sizeof(id), "c%" PRIu32, v[i].client); /* as `reprise cat` names them */
		fprintf(f, "%-12s %12" PRIu64 " %12s %12s\n", id, v[i].ops, human_bytes(r, sizeof(r), v[i].bytes_read),
			human_bytes(w, sizeof(w), v[i].bytes_written));
	}
	if (n > TEXT_CLIENTS_MAX)
		fprintf(f, "... and %zu more clients (--json lists every one)\n", n - TEXT_CLIENTS_MAX);
	free(v);
}

/* Service response time per op type, as tshark's -z smb2,srt / rpc,srt (and a p99). */
static void print_latency(const rp_summary *s, FILE *f)
{
	bool any = false;
	for (unsigned i = 0; i < RP_OP__COUNT && !any; i++)
		any = s->latency[i].n > 0;
	if (!any)
		return;
	fprintf(f, "\nrecorded latency (reply - call, ms):\n");
	fprintf(f, "%-12s %12s %10s %10s %10s %10s\n", "op", "replies", "min", "avg", "max", "p99");
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		const lat *const l = &s->latency[i];
		if (!l->n)
			continue;
		fprintf(f, "%-12s %12" PRIu64 " %10.3f %10.3f %10.3f %10.3f\n", rp_op_name(i), l->n, (double)l->min / 1e6,
			l->sum / (double)l->n / 1e6, (double)l->max / 1e6, lat_quantile(l, 0.99) / 1e6);
	}
}

void rp_summary_print(const rp_summary *s, const rp_trace_meta *meta, FILE *f)
{
	fprintf(f, "source      %s%s%s%s\n", rp_source_name(meta->source),
		meta->flags & RP_META_ANONYMIZED ? " (anonymized)" : "",
		meta->flags & RP_META_TRUNCATED ? " (truncated: its input was cut or its producer stopped early)" : "",
		meta->flags & RP_META_UNTRACED ? " (incomplete: programs ran untraced, their ops are missing)" : "");
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
	char buf[64], buf2[64];
	if (meta->capture_start_ns)
		fprintf(f, "start       %s\n", rp_summary_utc_time(buf, sizeof(buf), meta->capture_start_ns, false));
	fprintf(f, "ops         %" PRIu64 "\n", s->ops);
	fprintf(f, "clients     %" PRIu64 "\n", s->clients.count);
	if (!(meta->flags & RP_META_TIMED))
		fprintf(f, "duration    untimed\n");
	else if (duration_s(s) < 1.0)
		fprintf(f, "duration    %.3f ms\n", duration_s(s) * 1e3);
	else
		fprintf(f, "duration    %.3f s\n", duration_s(s));
	if (meta->flags & RP_META_TIMED && s->arrivals.n) {
		const rp_summary_gaps g = gaps_view(&s->arrivals);
		fprintf(f, "arrivals    gap between op starts: p50 %.3f ms, p99 %.3f ms, max %.3f ms, mean %.3f ms\n",
			g.p50_ns / 1e6, g.p99_ns / 1e6, g.max_ns / 1e6, g.mean_ns / 1e6);
	}
	fprintf(f, "files       %" PRIu64 "\n", s->paths.count);
	fprintf(f, "read        %s\n", bytes_line(buf, sizeof(buf), s->bytes_read));
	fprintf(f, "written     %s\n", bytes_line(buf2, sizeof(buf2), s->bytes_written));
	if (s->unknown_status)
		fprintf(f, "no reply    %" PRIu64 "\n", s->unknown_status);
	if (s->has_decode) {
		const rp_summary_decode *const d = &s->decode;
		fprintf(f, "decode      frames %" PRIu64 ", messages %" PRIu64 ", truncated %" PRIu64 ", invalid %" PRIu64
			", unsupported %" PRIu64 ", unmatched %" PRIu64 ", encrypted %" PRIu64 ", gaps %" PRIu64 "\n",
			d->frames, d->messages, d->truncated, d->invalid, d->unsupported, d->unmatched, d->encrypted, d->gaps);
	}
	fprintf(f, "\n%-12s %12s %7s %10s\n", "op", "count", "share", "failed");
	/* The shares are of every op counted: the records and the deletes their closes did (delete-on-close, no
	 * record of their own), so they add up to 100 % and a row of such deletes is not a count at 0.00 %. */
	uint64_t all = 0;
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		all += s->count[i];
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		if (!s->count[i])
			continue;
		fprintf(f, "%-12s %12" PRIu64 " %6.2f%% %10" PRIu64, rp_op_name(i), s->count[i],
			100.0 * (double)s->count[i] / (double)all, s->failed[i]);
		if (s->at_close[i] == s->count[i])
			fputs("   (all done by a close: delete-on-close)", f);
		else if (s->at_close[i])
			fprintf(f, "   (%" PRIu64 " done by a close: delete-on-close)", s->at_close[i]);
		if (i == RP_OP_MKDIR && s->dir_creates == s->count[i])
			fputs("   (all opens that create a directory: SMB)", f);
		else if (i == RP_OP_MKDIR && s->dir_creates)
			fprintf(f, "   (%" PRIu64 " opens that create a directory: SMB)", s->dir_creates);
		fputc('\n', f);
	}
	print_latency(s, f);
	print_clients(s, f);
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
		.decode = s->has_decode ? &s->decode : NULL,
	};
}

size_t rp_summary_clients(const rp_summary *s, rp_summary_client **out)
{
	size_t n;
	cent *const v = clients_sorted(s, &n);
	rp_summary_client *const c = n ? malloc(n * sizeof(*c)) : NULL;
	for (size_t i = 0; c && i < n; i++)
		c[i] = (rp_summary_client){ .client = v[i].client, .ops = v[i].ops, .bytes_read = v[i].bytes_read,
					    .bytes_written = v[i].bytes_written, .arrivals = gaps_view(&v[i].arrivals) };
	free(v);
	*out = c;
	return c ? n : 0;
}

bool rp_summary_latency(const rp_summary *s, unsigned op, rp_summary_latency_view *l)
{
	if (op >= RP_OP__COUNT || !s->latency[op].n)
		return false;
	const lat *const x = &s->latency[op];
	*l = (rp_summary_latency_view){ .count = x->n, .min_ns = (double)x->min, .avg_ns = x->sum / (double)x->n,
					.max_ns = (double)x->max, .p99_ns = lat_quantile(x, 0.99) };
	return true;
}

void rp_summary_interarrival(const rp_summary *s, rp_summary_gaps *g)
{
	*g = gaps_view(&s->arrivals);
}

uint64_t rp_summary_size_min(unsigned b)
{
	return b < RP_SIZE_BUCKETS ? bucket_low(b) : 0;
}
