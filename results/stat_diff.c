/* `reprise stat --diff A B`: two summaries (formats/summary.h) side by side, differences marked, an op-mix verdict. */
#include "results/stat_diff.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "results/stat_json.h"

/* The text table pairs this many clients (in id order); --json lists every client of each side. */
#define DIFF_CLIENTS_MAX 64

int rp__res_stat_diff_ops(const char *list, rp_stat_diff_opts *o, char *eb, size_t cap)
{
	memset(o->ops, 0, sizeof(o->ops));
	o->restricted = true;
	const char *p = list;
	for (;;) {
		const char *const comma = strchr(p, ',');
		const size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const int op = len ? rp_op_from_name(p, len) : -1;
		if (op < 0 || op >= RP_OP__COUNT) {
			snprintf(eb, cap, "--ops: '%.*s' is no op name (reprise cat's names: open, read, write, unlink, ...)",
				 (int)(len > 64 ? 64 : len), p);
			return -1;
		}
		o->ops[op] = true;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

void rp__res_stat_mix(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, rp_stat_mix *m)
{
	memset(m, 0, sizeof(*m));
	rp_summary_view va, vb;
	rp_summary_get(a->sum, &va);
	rp_summary_get(b->sum, &vb);
	double ta = 0, tb = 0; /* doubles: a sum of counts cannot overflow one */
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		m->compared[i] = o->restricted ? o->ops[i] : i != RP_OP_SLEEP;
		if (m->compared[i]) {
			ta += (double)va.count[i];
			tb += (double)vb.count[i];
		}
	}
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		if (!m->compared[i])
			continue;
		m->share_a[i] = ta > 0 ? 100.0 * (double)va.count[i] / ta : 0;
		m->share_b[i] = tb > 0 ? 100.0 * (double)vb.count[i] / tb : 0;
		m->differs[i] = fabs(m->share_b[i] - m->share_a[i]) > o->threshold;
		m->n_differ += m->differs[i];
	}
}

static const char *const core_labels[] = {
#define RP__STAT_CORE_LABEL(f, label) label,
	RP_STAT_CORE_MAP(RP__STAT_CORE_LABEL)
#undef RP__STAT_CORE_LABEL
};

const char *rp__res_stat_core_label(unsigned i)
{
	return i < RP_STAT_CORE__COUNT ? core_labels[i] : NULL;
}

static void core_values(const rp_fid_core *c, uint64_t *v)
{
#define RP__STAT_CORE_VALUE(f, label) v[RP_STAT_CORE_##f] = c->f;
	RP_STAT_CORE_MAP(RP__STAT_CORE_VALUE)
#undef RP__STAT_CORE_VALUE
}

int rp__res_stat_loop(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, rp_stat_loop *l)
{
	memset(l, 0, sizeof(*l));
	if (!a->fid || !b->fid)
		return RP_OK;
	l->have = true;
	rp_fid_get(a->fid, &l->a);
	rp_fid_get(b->fid, &l->b);
	const int rc = rp_fid_compare(a->fid, b->fid, &l->cmp);
	if (rc < 0)
		return rc;
	core_values(&l->a.core, l->core_a);
	core_values(&l->b.core, l->core_b);
	for (unsigned i = 0; i < RP_STAT_CORE__COUNT; i++) {
		const double x = (double)l->core_a[i], y = (double)l->core_b[i];
		l->core_differs[i] = fabs(y - x) > o->threshold / 100.0 * x;
		l->n_differ += l->core_differs[i];
	}
	l->order_differs = l->cmp.compared && l->cmp.order_agree_pct < 100.0 - o->threshold;
	l->n_differ += l->order_differs;
	return RP_OK;
}

/* ---- text ---- */

/* (b - a) / a as "+12.50%"; "0.00%" when they are equal, "-" when only a is 0 (no ratio to give). */
static const char *pct(char *buf, size_t cap, double a, double b)
{
	if (a == b)
		snprintf(buf, cap, "0.00%%");
	else if (a == 0)
		snprintf(buf, cap, "%s", b == 0 ? "0.00%" : "-");
	else
		snprintf(buf, cap, "%+.2f%%", 100.0 * (b - a) / a);
	return buf;
}

static void row(FILE *f, const char *label, const char *a, const char *b, const char *d, const char *p)
{
	fprintf(f, "%c %-14s %18s %18s %16s %10s\n", strcmp(a, b) ? '*' : ' ', label, a, b, d, p);
}

static void row_u64(FILE *f, const char *label, uint64_t a, uint64_t b)
{
	char sa[24], sb[24], d[24], p[24];
	snprintf(sa, sizeof(sa), "%" PRIu64, a);
	snprintf(sb, sizeof(sb), "%" PRIu64, b);
	snprintf(d, sizeof(d), "%s%" PRIu64, b > a ? "+" : b < a ? "-" : "", b >= a ? b - a : a - b);
	row(f, label, sa, sb, d, pct(p, sizeof(p), (double)a, (double)b));
}

/* Times in ms (or s) to 3 decimals; a side that is untimed says so and has no difference. */
static void row_time(FILE *f, const char *label, double a, double b, bool timed_a, bool timed_b)
{
	char sa[32], sb[32], d[32], p[24];
	if (timed_a)
		snprintf(sa, sizeof(sa), "%.3f", a);
	else
		snprintf(sa, sizeof(sa), "untimed");
	if (timed_b)
		snprintf(sb, sizeof(sb), "%.3f", b);
	else
		snprintf(sb, sizeof(sb), "untimed");
	if (timed_a && timed_b) {
		snprintf(d, sizeof(d), "%+.3f", b - a);
		pct(p, sizeof(p), a, b);
	} else {
		snprintf(d, sizeof(d), "-");
		snprintf(p, sizeof(p), "-");
	}
	row(f, label, sa, sb, d, p);
}

static const char *side_name(char *buf, size_t cap, const rp_stat_side *s)
{
	char arg[256], in[4 * RP_META_NAME_MAX];
	rp_text_escape(arg, sizeof(arg), s->arg, strlen(s->arg), false);
	if (s->meta->source_name[0]) {
		rp_text_escape(in, sizeof(in), s->meta->source_name, strnlen(s->meta->source_name, RP_META_NAME_MAX), false);
		snprintf(buf, cap, "%s (%s, input %s)", arg, rp_source_name(s->meta->source), in);
	} else {
		snprintf(buf, cap, "%s (%s)", arg, rp_source_name(s->meta->source));
	}
	return buf;
}

static void print_totals(const rp_stat_side *a, const rp_stat_side *b, FILE *f)
{
	rp_summary_view va, vb;
	rp_summary_get(a->sum, &va);
	rp_summary_get(b->sum, &vb);
	const bool ta = a->meta->flags & RP_META_TIMED, tb = b->meta->flags & RP_META_TIMED;
	fprintf(f, "  %-14s %18s %18s %16s %10s\n", "", "A", "B", "B-A", "%");
	row_u64(f, "ops", va.ops, vb.ops);
	row_u64(f, "clients", va.clients, vb.clients);
	row_time(f, "duration (s)", va.duration_s, vb.duration_s, ta, tb);
	row_u64(f, "files", va.files, vb.files);
	row_u64(f, "bytes read", va.bytes_read, vb.bytes_read);
	row_u64(f, "bytes written", va.bytes_written, vb.bytes_written);
	row_u64(f, "no reply", va.no_reply, vb.no_reply);
	row_u64(f, "prepare dirs", a->plan->dirs, b->plan->dirs);
	row_u64(f, "prepare files", a->plan->files, b->plan->files);
	row_u64(f, "prepare bytes", a->plan->bytes, b->plan->bytes);
}

static void print_mix(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, const rp_stat_mix *m,
		      FILE *f)
{
	rp_summary_view va, vb;
	rp_summary_get(a->sum, &va);
	rp_summary_get(b->sum, &vb);
	fprintf(f, "\nop mix (share: of the ops of the kinds compared; * a share differs by more than %.2f points):\n",
		o->threshold);
	fprintf(f, "  %-12s %12s %12s %12s %10s %8s %8s %8s\n", "op", "A", "B", "B-A", "%", "A share", "B share", "points");
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		if ((o->restricted && !o->ops[i]) || (!va.count[i] && !vb.count[i] && !o->restricted))
			continue;
		char d[24], p[24], sa[16], sb[16], pts[16];
		const uint64_t x = va.count[i], y = vb.count[i];
		snprintf(d, sizeof(d), "%s%" PRIu64, y > x ? "+" : y < x ? "-" : "", y >= x ? y - x : x - y);
		if (m->compared[i]) {
			snprintf(sa, sizeof(sa), "%.2f%%", m->share_a[i]);
			snprintf(sb, sizeof(sb), "%.2f%%", m->share_b[i]);
			snprintf(pts, sizeof(pts), "%+.2f", m->share_b[i] - m->share_a[i]);
		} else { /* sleep: in the table, not in the mix */
			snprintf(sa, sizeof(sa), "-");
			snprintf(sb, sizeof(sb), "-");
			snprintf(pts, sizeof(pts), "-");
		}
		fprintf(f, "%c %-12s %12" PRIu64 " %12" PRIu64 " %12s %10s %8s %8s %8s\n", m->differs[i] ? '*' : ' ',
			rp_op_name(i), x, y, d, pct(p, sizeof(p), (double)x, (double)y), sa, sb, pts);
	}
	bool any = false;
	for (unsigned i = 0; i < RP_OP__COUNT && !any; i++)
		any = m->compared[i] && (va.failed[i] || vb.failed[i]);
	if (!any)
		return;
	fprintf(f, "\nfailed (recorded status an error):\n");
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		if (m->compared[i] && (va.failed[i] || vb.failed[i]))
			row_u64(f, rp_op_name(i), va.failed[i], vb.failed[i]);
}

/* A cell of a wide A|B table: a value in ms, or "-" when that side has none. */
static const char *ms(char *buf, size_t cap, bool have, double ns)
{
	if (have)
		snprintf(buf, cap, "%.3f", ns / 1e6);
	else
		snprintf(buf, cap, "-");
	return buf;
}

/* One row of 8 cells (A and B of four values): marked when any pair differs as printed. */
static void wide_row(FILE *f, const char *label, char cells[8][24])
{
	bool differ = false;
	for (unsigned i = 0; i < 8; i += 2)
		differ |= strcmp(cells[i], cells[i + 1]) != 0;
	fprintf(f, "%c %-14s", differ ? '*' : ' ', label);
	for (unsigned i = 0; i < 8; i++)
		fprintf(f, " %9s", cells[i]);
	fputc('\n', f);
}

static void print_latency(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_mix *m, FILE *f)
{
	bool header = false;
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		rp_summary_latency_view la, lb;
		const bool ha = m->compared[i] && rp_summary_latency(a->sum, i, &la);
		const bool hb = m->compared[i] && rp_summary_latency(b->sum, i, &lb);
		if (!ha && !hb)
			continue;
		if (!header) {
			fprintf(f, "\nrecorded latency (reply - call, ms):\n  %-14s %9s %9s %9s %9s %9s %9s %9s %9s\n", "op",
				"A replies", "B replies", "A avg", "B avg", "A p99", "B p99", "A max", "B max");
			header = true;
		}
		char c[8][24];
		snprintf(c[0], sizeof(c[0]), "%" PRIu64, ha ? la.count : 0);
		snprintf(c[1], sizeof(c[1]), "%" PRIu64, hb ? lb.count : 0);
		ms(c[2], sizeof(c[2]), ha, ha ? la.avg_ns : 0);
		ms(c[3], sizeof(c[3]), hb, hb ? lb.avg_ns : 0);
		ms(c[4], sizeof(c[4]), ha, ha ? la.p99_ns : 0);
		ms(c[5], sizeof(c[5]), hb, hb ? lb.p99_ns : 0);
		ms(c[6], sizeof(c[6]), ha, ha ? la.max_ns : 0);
		ms(c[7], sizeof(c[7]), hb, hb ? lb.max_ns : 0);
		wide_row(f, rp_op_name(i), c);
	}
}

static void print_sizes(const char *what, const uint64_t *ha, const uint64_t *hb, FILE *f)
{
	bool header = false;
	for (unsigned i = 0; i < RP_SIZE_BUCKETS; i++) {
		if (!ha[i] && !hb[i])
			continue;
		if (!header) {
			fprintf(f, "\n%s sizes (requested; a bucket holds its size up to the next's):\n", what);
			header = true;
		}
		char name[32];
		row_u64(f, rp_summary_bucket_name(name, sizeof(name), rp_summary_size_min(i)), ha[i], hb[i]);
	}
}

static void gap_cells(char c[8][24], bool ta, const rp_summary_gaps *a, bool tb, const rp_summary_gaps *b)
{
	const bool ha = ta && a && a->count, hb = tb && b && b->count;
	ms(c[0], 24, ha, ha ? a->p50_ns : 0);
	ms(c[1], 24, hb, hb ? b->p50_ns : 0);
	ms(c[2], 24, ha, ha ? a->p99_ns : 0);
	ms(c[3], 24, hb, hb ? b->p99_ns : 0);
	ms(c[4], 24, ha, ha ? a->max_ns : 0);
	ms(c[5], 24, hb, hb ? b->max_ns : 0);
	ms(c[6], 24, ha, ha ? a->mean_ns : 0);
	ms(c[7], 24, hb, hb ? b->mean_ns : 0);
}

static void print_gaps(const rp_stat_side *a, const rp_stat_side *b, FILE *f)
{
	const bool ta = a->meta->flags & RP_META_TIMED, tb = b->meta->flags & RP_META_TIMED;
	fprintf(f, "\ninter-arrival (gap between successive op starts, ms; \"-\": untimed or no gap; clients paired in id order):\n");
	fprintf(f, "  %-14s %9s %9s %9s %9s %9s %9s %9s %9s\n", "clients", "A p50", "B p50", "A p99", "B p99", "A max",
		"B max", "A mean", "B mean");
	rp_summary_gaps ga, gb;
	rp_summary_interarrival(a->sum, &ga);
	rp_summary_interarrival(b->sum, &gb);
	char c[8][24];
	gap_cells(c, ta, &ga, tb, &gb);
	wide_row(f, "all", c);
	rp_summary_client *ca = NULL, *cb = NULL;
	const size_t na = rp_summary_clients(a->sum, &ca), nb = rp_summary_clients(b->sum, &cb);
	const size_t n = na > nb ? na : nb;
	for (size_t i = 0; i < n && i < DIFF_CLIENTS_MAX; i++) {
		char label[32], x[16] = "-", y[16] = "-";
		if (i < na)
			snprintf(x, sizeof(x), "c%" PRIu32, ca[i].client);
		if (i < nb)
			snprintf(y, sizeof(y), "c%" PRIu32, cb[i].client);
		snprintf(label, sizeof(label), "%s|%s", x, y);
		gap_cells(c, ta, i < na ? &ca[i].arrivals : NULL, tb, i < nb ? &cb[i].arrivals : NULL);
		wide_row(f, label, c);
	}
	if (n > DIFF_CLIENTS_MAX)
		fprintf(f, "... and %zu more client pairs (--json lists every client of each side)\n", n - DIFF_CLIENTS_MAX);
	free(ca);
	free(cb);
}

/* The ratio b/a to 2 decimals, "-" without an a. */
static const char *ratio(char *buf, size_t cap, double a, double b)
{
	if (a > 0)
		snprintf(buf, cap, "%.2f", b / a);
	else
		snprintf(buf, cap, "-");
	return buf;
}

static void print_loop(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_loop *l, FILE *f)
{
	rp_summary_view va, vb;
	rp_summary_get(a->sum, &va);
	rp_summary_get(b->sum, &vb);
	char r[24];
	fprintf(f, "\nclosed loop (B as a replay of A):\n");
	fprintf(f, "  requests    B/A %s overall;", ratio(r, sizeof(r), (double)va.ops, (double)vb.ops));
	unsigned shown = 0;
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		if (i == RP_OP_SLEEP || (!va.count[i] && !vb.count[i]))
			continue;
		fprintf(f, "%s %s %s", shown++ ? "," : "", rp_op_name(i), ratio(r, sizeof(r), (double)va.count[i],
										  (double)vb.count[i]));
	}
	fprintf(f, "\n  %-12s %16s %16s %8s   (succeeded, whatever the protocol called them)\n", "core ops", "A", "B",
		"B/A");
	for (unsigned i = 0; i < RP_STAT_CORE__COUNT; i++)
		fprintf(f, "%c %-12s %16" PRIu64 " %16" PRIu64 " %8s\n", l->core_differs[i] ? '*' : ' ', core_labels[i],
			l->core_a[i], l->core_b[i], ratio(r, sizeof(r), (double)l->core_a[i], (double)l->core_b[i]));
	if (l->cmp.compared)
		fprintf(f, "%c files       %" PRIu64 " in A, %" PRIu64 " in B, %" PRIu64 " in both, %" PRIu64
			   " with the same core ops in the same order: %.2f%% of the files of either"
			   " (paths aligned by stripping %u leading components from A, %u from B)\n",
			l->order_differs ? '*' : ' ', l->cmp.files_a, l->cmp.files_b, l->cmp.files_matched, l->cmp.files_same,
			l->cmp.order_agree_pct, l->cmp.strip_a, l->cmp.strip_b);
	else
		fprintf(f, "  files       not compared: a side names more than %u paths or %u files\n", RP_FID_NAMES_MAX,
			RP_FID_FILES_MAX);
	for (unsigned i = 0; i < l->cmp.n_samples; i++) {
		const rp_fid_sample *const s = &l->cmp.samples[i];
		char name[4 * RP_FID_NAME_MAX + 1];
		rp_text_escape_utf8(name, sizeof(name), s->path, strlen(s->path));
		fprintf(f, "%s %-40s A %s%s  B %s%s\n", i ? "             " : "  differ     ", s->path[0] ? name : "(unnamed)",
			s->a[0] ? s->a : "-", s->a_more ? "..." : "", s->b[0] ? s->b : "-", s->b_more ? "..." : "");
	}
	if (l->cmp.n_samples)
		fprintf(f, "              (steps: C create, K mkdir, D delete, N renamed away, M renamed to, R reads, W writes,"
			   " Z truncate, L link, S symlink; - none)\n");
	fprintf(f, "  in flight   mean A %.2f, B %.2f (B/A %s): ops' summed durations over the span\n",
		l->a.in_flight_mean, l->b.in_flight_mean, ratio(r, sizeof(r), l->a.in_flight_mean, l->b.in_flight_mean));
	fprintf(f, "  span        A %.3f s, B %.3f s (B/A %s)\n", l->a.span_s, l->b.span_s,
		ratio(r, sizeof(r), l->a.span_s, l->b.span_s));
	fprintf(f, "  arrivals    Kolmogorov-Smirnov distance of the gaps between op starts: %.3f (0 same, 1 apart)\n",
		l->cmp.ks);
}

static void print_loop_verdict(const rp_stat_diff_opts *o, const rp_stat_loop *l, FILE *f)
{
	if (!l->n_differ) {
		fprintf(f, "core ops: same (each within %.2f%% of A's", o->threshold);
		if (l->cmp.compared)
			fprintf(f, "; each file's in the same order in %.2f%% of %" PRIu64 " files", l->cmp.order_agree_pct,
				l->cmp.files_a + l->cmp.files_b - l->cmp.files_matched);
		fprintf(f, ")\n");
		return;
	}
	fprintf(f, "core ops: differ by more than %.2f%% in", o->threshold);
	const char *sep = " ";
	for (unsigned i = 0; i < RP_STAT_CORE__COUNT; i++)
		if (l->core_differs[i]) {
			fprintf(f, "%s%s (%" PRIu64 " -> %" PRIu64 ")", sep, core_labels[i], l->core_a[i], l->core_b[i]);
			sep = ", ";
		}
	if (l->order_differs)
		fprintf(f, "%sfile order (%.2f%% of the files the same)", sep, l->cmp.order_agree_pct);
	fputc('\n', f);
}

static void print_verdict(const rp_stat_diff_opts *o, const rp_stat_mix *m, FILE *f)
{
	fputc('\n', f);
	if (!m->n_differ) {
		fprintf(f, "op mix: same (no share differs by more than %.2f points; ", o->threshold);
	} else {
		fprintf(f, "op mix: differs by more than %.2f points in", o->threshold);
		for (unsigned i = 0; i < RP_OP__COUNT; i++)
			if (m->differs[i])
				fprintf(f, " %s (%+.2f)", rp_op_name(i), m->share_b[i] - m->share_a[i]);
		fprintf(f, " (");
	}
	if (o->restricted) {
		fprintf(f, "ops compared:");
		const char *sep = " ";
		for (unsigned i = 0; i < RP_OP__COUNT; i++)
			if (o->ops[i]) {
				fprintf(f, "%s%s", sep, rp_op_name(i));
				sep = ",";
			}
		fprintf(f, ")\n");
	} else {
		fprintf(f, "every op kind but sleep compared)\n");
	}
}

void rp__res_stat_diff_print(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, FILE *f)
{
	char name[1024];
	fprintf(f, "A  %s\n", side_name(name, sizeof(name), a));
	fprintf(f, "B  %s\n", side_name(name, sizeof(name), b));
	fprintf(f, "(* marks a row whose A and B differ)\n\n");
	rp_stat_mix m;
	rp__res_stat_mix(a, b, o, &m);
	print_totals(a, b, f);
	print_mix(a, b, o, &m, f);
	print_latency(a, b, &m, f);
	print_gaps(a, b, f);
	rp_summary_view va, vb;
	rp_summary_get(a->sum, &va);
	rp_summary_get(b->sum, &vb);
	print_sizes("read", va.read_sizes, vb.read_sizes, f);
	print_sizes("write", va.write_sizes, vb.write_sizes, f);
	rp_stat_loop l;
	const bool loop = rp__res_stat_loop(a, b, o, &l) == RP_OK && l.have;
	if (loop)
		print_loop(a, b, &l, f);
	print_verdict(o, &m, f);
	if (loop)
		print_loop_verdict(o, &l, f);
}

/* ---- JSON ---- */

static void put(bool *oom, json_t *o, const char *key, json_t *v)
{
	if (!v || !o || json_object_set_new(o, key, v) < 0)
		*oom = true;
}

static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* (b - a) / a in percent; null when only a is 0. */
static json_t *jpct(double a, double b)
{
	return a == 0 ? (b == 0 ? json_real(0) : json_null()) : json_real(100.0 * (b - a) / a);
}

/* {"a", "b", "delta", "pct"} of two counts. */
static json_t *pair_u64(bool *oom, uint64_t a, uint64_t b)
{
	json_t *const o = json_object();
	const json_int_t x = a > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)a;
	const json_int_t y = b > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)b;
	put(oom, o, "a", json_integer(x));
	put(oom, o, "b", json_integer(y));
	put(oom, o, "delta", json_integer(y - x));
	put(oom, o, "pct", jpct((double)a, (double)b));
	return o;
}

/* The same of two reals (finite: a hostile trace's sums are doubles, never NaN, but say 0 if they were). */
static json_t *pair_real(bool *oom, double a, double b)
{
	a = isfinite(a) ? a : 0;
	b = isfinite(b) ? b : 0;
	json_t *const o = json_object();
	put(oom, o, "a", json_real(a));
	put(oom, o, "b", json_real(b));
	put(oom, o, "delta", json_real(b - a));
	put(oom, o, "pct", jpct(a, b));
	return o;
}

static json_t *sizes_json(bool *oom, const uint64_t *ha, const uint64_t *hb)
{
	json_t *const arr = json_array();
	for (unsigned i = 0; i < RP_SIZE_BUCKETS; i++) {
		if (!ha[i] && !hb[i])
			continue;
		json_t *const e = pair_u64(oom, ha[i], hb[i]);
		put(oom, e, "min", jint(rp_summary_size_min(i)));
		if (!e || !arr || json_array_append_new(arr, e) < 0)
			*oom = true;
	}
	return arr;
}

/* b / a, null without an a */
static json_t *jratio(double a, double b)
{
	return a > 0 ? json_real(b / a) : json_null();
}

/* The closed loop (rp_stat_loop): null when a side has no measures. */
static json_t *loop_json(bool *oom, const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o)
{
	rp_stat_loop l;
	if (rp__res_stat_loop(a, b, o, &l) < 0) {
		*oom = true;
		return json_null();
	}
	if (!l.have)
		return json_null();
	rp_summary_view va, vb;
	rp_summary_get(a->sum, &va);
	rp_summary_get(b->sum, &vb);
	json_t *const j = json_object(), *req = json_object(), *core = json_object(), *differ = json_array();
	put(oom, req, "all", jratio((double)va.ops, (double)vb.ops));
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		if (i != RP_OP_SLEEP && (va.count[i] || vb.count[i]))
			put(oom, req, rp_op_name(i), jratio((double)va.count[i], (double)vb.count[i]));
	put(oom, j, "request_ratio", req);
	for (unsigned i = 0; i < RP_STAT_CORE__COUNT; i++) {
		json_t *const e = pair_u64(oom, l.core_a[i], l.core_b[i]);
		put(oom, e, "ratio", jratio((double)l.core_a[i], (double)l.core_b[i]));
		put(oom, e, "differs", json_boolean(l.core_differs[i]));
		char key[32];
		snprintf(key, sizeof(key), "%s", core_labels[i]);
		for (char *c = key; *c; c++)
			if (*c == ' ')
				*c = '_';
		put(oom, core, key, e);
		if (l.core_differs[i] && (!differ || json_array_append_new(differ, json_string(key)) < 0))
			*oom = true;
	}
	put(oom, j, "core", core);
	json_t *files = json_null();
	if (l.cmp.compared) {
		files = json_object();
		put(oom, files, "a", jint(l.cmp.files_a));
		put(oom, files, "b", jint(l.cmp.files_b));
		put(oom, files, "both", jint(l.cmp.files_matched));
		put(oom, files, "same_order", jint(l.cmp.files_same));
		put(oom, files, "agree_pct", json_real(l.cmp.order_agree_pct));
		put(oom, files, "strip_a", jint(l.cmp.strip_a));
		put(oom, files, "strip_b", jint(l.cmp.strip_b));
		json_t *const samples = json_array();
		for (unsigned i = 0; i < l.cmp.n_samples && samples; i++) {
			const rp_fid_sample *const sm = &l.cmp.samples[i];
			char name[4 * RP_FID_NAME_MAX + 1];
			rp_text_escape_utf8(name, sizeof(name), sm->path, strlen(sm->path));
			json_t *const e = json_object();
			put(oom, e, "path", sm->path[0] ? json_string(name) : json_null());
			put(oom, e, "a", json_string(sm->a));
			put(oom, e, "b", json_string(sm->b));
			put(oom, e, "more", json_boolean(sm->a_more || sm->b_more));
			if (!e || json_array_append_new(samples, e) < 0)
				*oom = true;
		}
		put(oom, files, "differ", samples);
		if (l.order_differs && (!differ || json_array_append_new(differ, json_string("file_order")) < 0))
			*oom = true;
	}
	put(oom, j, "files", files);
	put(oom, j, "in_flight_mean", pair_real(oom, l.a.in_flight_mean, l.b.in_flight_mean));
	put(oom, j, "span_s", pair_real(oom, l.a.span_s, l.b.span_s));
	put(oom, j, "span_ratio", jratio(l.a.span_s, l.b.span_s));
	put(oom, j, "interarrival_ks", json_real(l.cmp.ks));
	put(oom, j, "core_same", json_boolean(l.n_differ == 0));
	put(oom, j, "core_differs", differ);
	return j;
}

static json_t *diff_json(bool *oom, const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o)
{
	rp_summary_view va, vb;
	rp_summary_get(a->sum, &va);
	rp_summary_get(b->sum, &vb);
	rp_stat_mix m;
	rp__res_stat_mix(a, b, o, &m);
	json_t *const d = json_object();
	put(oom, d, "threshold_points", json_real(o->threshold));
	json_t *ops = json_null(), *differ = json_array();
	if (o->restricted) {
		ops = json_array();
		for (unsigned i = 0; i < RP_OP__COUNT; i++)
			if (o->ops[i] && (!ops || json_array_append_new(ops, json_string(rp_op_name(i))) < 0))
				*oom = true;
	}
	put(oom, d, "ops_compared", ops);
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		if (m.differs[i] && (!differ || json_array_append_new(differ, json_string(rp_op_name(i))) < 0))
			*oom = true;
	put(oom, d, "mix_same", json_boolean(m.n_differ == 0));
	put(oom, d, "mix_differs", differ);
	json_t *const t = json_object();
	put(oom, t, "ops", pair_u64(oom, va.ops, vb.ops));
	put(oom, t, "clients", pair_u64(oom, va.clients, vb.clients));
	put(oom, t, "duration_s", pair_real(oom, va.duration_s, vb.duration_s));
	put(oom, t, "files", pair_u64(oom, va.files, vb.files));
	put(oom, t, "bytes_read", pair_u64(oom, va.bytes_read, vb.bytes_read));
	put(oom, t, "bytes_written", pair_u64(oom, va.bytes_written, vb.bytes_written));
	put(oom, t, "no_reply", pair_u64(oom, va.no_reply, vb.no_reply));
	put(oom, d, "totals", t);
	json_t *const oc = json_object(), *lat = json_object();
	for (unsigned i = 0; i < RP_OP__COUNT; i++) {
		if ((o->restricted && !o->ops[i]) || (!va.count[i] && !vb.count[i] && !o->restricted))
			continue;
		json_t *const e = pair_u64(oom, va.count[i], vb.count[i]);
		put(oom, e, "share_a", m.compared[i] ? json_real(m.share_a[i]) : json_null());
		put(oom, e, "share_b", m.compared[i] ? json_real(m.share_b[i]) : json_null());
		put(oom, e, "share_points", m.compared[i] ? json_real(m.share_b[i] - m.share_a[i]) : json_null());
		put(oom, e, "failed_a", jint(va.failed[i]));
		put(oom, e, "failed_b", jint(vb.failed[i]));
		put(oom, oc, rp_op_name(i), e);
		rp_summary_latency_view la = { 0 }, lb = { 0 };
		const bool ha = rp_summary_latency(a->sum, i, &la), hb = rp_summary_latency(b->sum, i, &lb);
		if (!ha && !hb)
			continue;
		json_t *const l = json_object();
		put(oom, l, "count", pair_u64(oom, la.count, lb.count));
		put(oom, l, "avg", pair_real(oom, la.avg_ns / 1e6, lb.avg_ns / 1e6));
		put(oom, l, "p99", pair_real(oom, la.p99_ns / 1e6, lb.p99_ns / 1e6));
		put(oom, l, "max", pair_real(oom, la.max_ns / 1e6, lb.max_ns / 1e6));
		put(oom, lat, rp_op_name(i), l);
	}
	put(oom, d, "op_counts", oc);
	put(oom, d, "latency_ms", lat);
	rp_summary_gaps ga, gb;
	rp_summary_interarrival(a->sum, &ga);
	rp_summary_interarrival(b->sum, &gb);
	json_t *const g = json_object();
	put(oom, g, "count", pair_u64(oom, ga.count, gb.count));
	put(oom, g, "mean", pair_real(oom, ga.mean_ns / 1e6, gb.mean_ns / 1e6));
	put(oom, g, "p50", pair_real(oom, ga.p50_ns / 1e6, gb.p50_ns / 1e6));
	put(oom, g, "p99", pair_real(oom, ga.p99_ns / 1e6, gb.p99_ns / 1e6));
	put(oom, g, "max", pair_real(oom, ga.max_ns / 1e6, gb.max_ns / 1e6));
	put(oom, d, "inter_arrival_ms", g);
	put(oom, d, "read_sizes", sizes_json(oom, va.read_sizes, vb.read_sizes));
	put(oom, d, "write_sizes", sizes_json(oom, va.write_sizes, vb.write_sizes));
	put(oom, d, "closed_loop", loop_json(oom, a, b, o));
	return d;
}

int rp__res_stat_diff_json(const rp_stat_side *a, const rp_stat_side *b, const rp_stat_diff_opts *o, FILE *f,
			   char *err, size_t errsize)
{
	bool oom = false, oom_a = false, oom_b = false;
	json_t *const d = json_object();
	put(&oom, d, "schema", json_string("reprise-stat-diff"));
	put(&oom, d, "schema_version", json_integer(1));
	put(&oom, d, "a", rp__res_stat_object(a->sum, a->meta, a->plan, NULL, &oom_a));
	put(&oom, d, "b", rp__res_stat_object(b->sum, b->meta, b->plan, NULL, &oom_b));
	put(&oom, d, "diff", diff_json(&oom, a, b, o));
	return rp__res_json_dump(d, oom || oom_a || oom_b, f, err, errsize);
}
