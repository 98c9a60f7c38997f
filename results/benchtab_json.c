/* Bench and replay JSON (docs/compare.md, docs/replay.md "JSON") into the benchtab structs, every field checked. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/benchtab.h"
#include "formats/op.h"

/*
 * Counts and sizes are added and charted as doubles: past 2^53 a double no
 * longer holds every integer, and no run counts that many ops or bytes (9 PB).
 */
#define COUNT_MAX (UINT64_C(1) << 53)
/* Rates and latencies: no run measures 10^15 MB/s, ops/s or µs (31 years); beyond is a broken file. */
#define VALUE_MAX 1e15
/* The replay JSON version read (replay/replay.h RP_REPLAY_JSON_SCHEMA): keys only move with a new one. */
#define REPLAY_SCHEMA_VERSION 2
#define PATH_TEXT_MAX 512

typedef struct ctx {
	const char *where; /* the file, or the file and the object ("run.json: targets[0].runs[1].result") */
	char *err;
	size_t errsize;
	rp_bt_input *in;   /* the file's provenance, filled as found */
	uint32_t input;    /* its index in the set */
} ctx;

static int bad(const ctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(const ctx *c, const char *path, const char *fmt, ...)
{
	char msg[PATH_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const int n = snprintf(c->err, c->errsize, "%s: %s%s%s", c->where, path, path[0] ? ": " : "", msg);
	(void)n; /* a message cut at errsize still says where */
	return -1;
}

/* A field's path into buf (PATH_TEXT_MAX bytes), cut when longer: it only names the field in a message. */
static void pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, PATH_TEXT_MAX, fmt, ap);
	va_end(ap);
}

/* path + "." + key into buf (path "" gives key). */
static const char *sub(char *buf, const char *path, const char *key)
{
	pathf(buf, "%s%s%s", path, path[0] ? "." : "", key);
	return buf;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* obj.key of type type (JSON_TRUE: a boolean); NULL after an error (missing, or another type). */
static const json_t *need(const ctx *c, const json_t *obj, const char *path, const char *key, json_type type)
{
	char p[PATH_TEXT_MAX];
	const json_t *const v = json_object_get(obj, key);
	if (!v) {
		bad(c, sub(p, path, key), "missing");
		return NULL;
	}
	const bool ok = type == JSON_TRUE ? json_is_boolean(v) : json_typeof(v) == type;
	if (!ok) {
		static const char *const want[] = { [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
						    [JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
						    [JSON_TRUE] = "a boolean" };
		bad(c, sub(p, path, key), "expected %s, not %s", want[type], type_name(v));
		return NULL;
	}
	return v;
}

static int get_u64(const ctx *c, const json_t *obj, const char *path, const char *key, uint64_t *out)
{
	char p[PATH_TEXT_MAX];
	*out = 0; /* defined on every path: -O3 cannot see that bad() returns -1 */
	const json_t *const v = need(c, obj, path, key, JSON_INTEGER);
	if (!v)
		return -1;
	const json_int_t x = json_integer_value(v);
	if (x < 0 || (uint64_t)x > COUNT_MAX)
		return bad(c, sub(p, path, key), "%" JSON_INTEGER_FORMAT " is out of range (0 to 2^53)", x);
	*out = (uint64_t)x;
	return 0;
}

/* An integer within +-2^53 (min 0 with nonneg), or null (*known false), as bench writes what it could not measure. */
static int get_i64_or_null(const ctx *c, const json_t *obj, const char *path, const char *key, bool nonneg, int64_t *out,
			   bool *known)
{
	char p[PATH_TEXT_MAX];
	const json_t *const v = json_object_get(obj, key);
	if (!v)
		return bad(c, sub(p, path, key), "missing");
	*known = false;
	if (json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return bad(c, sub(p, path, key), "expected an integer or null, not %s", type_name(v));
	const json_int_t x = json_integer_value(v);
	if (x < (nonneg ? 0 : -(json_int_t)COUNT_MAX) || x > (json_int_t)COUNT_MAX)
		return bad(c, sub(p, path, key), "%" JSON_INTEGER_FORMAT " is out of range (%s to 2^53)", x,
			   nonneg ? "0" : "-2^53");
	*out = (int64_t)x;
	*known = true;
	return 0;
}

static int get_num(const ctx *c, const json_t *obj, const char *path, const char *key, double *out)
{
	char p[PATH_TEXT_MAX];
	const json_t *const v = json_object_get(obj, key);
	if (!v)
		return bad(c, sub(p, path, key), "missing");
	if (!json_is_number(v))
		return bad(c, sub(p, path, key), "expected a number, not %s", type_name(v));
	const double x = json_number_value(v);
	if (!(x >= 0 && x <= VALUE_MAX))
		return bad(c, sub(p, path, key), "%g is out of range (0 to 1e15)", x);
	*out = x;
	return 0;
}

/* A string (or, with nullable, null: "") of at most RP_BT_NAME_MAX bytes; the pointer stays valid with the document. */
static int get_str(const ctx *c, const json_t *obj, const char *path, const char *key, bool nullable, const char **out)
{
	char p[PATH_TEXT_MAX];
	const json_t *const v = json_object_get(obj, key);
	if (!v)
		return bad(c, sub(p, path, key), "missing");
	if (nullable && json_is_null(v)) {
		*out = "";
		return 0;
	}
	if (!json_is_string(v))
		return bad(c, sub(p, path, key), "expected a string%s, not %s", nullable ? " or null" : "", type_name(v));
	if (json_string_length(v) > RP_BT_NAME_MAX)
		return bad(c, sub(p, path, key), "longer than %d bytes", RP_BT_NAME_MAX);
	*out = json_string_value(v);
	return 0;
}

/* Is lo the low end of a bucket in replay's layout (docs/replay.md, "Histograms")? */
static bool bucket_low(uint64_t lo)
{
	const unsigned s = RP_BT_HIST_SUB_BITS, m = RP_BT_HIST_MAX_BITS;
	if (lo < (UINT64_C(1) << s))
		return true;
	if (lo >= (UINT64_C(1) << m))
		return false;
	const unsigned e = 63 - (unsigned)__builtin_clzll(lo);
	return (lo & ((UINT64_C(1) << (e - s)) - 1)) == 0;
}

static int get_hist(const ctx *c, const json_t *obj, const char *path, rp_bt_hist *h)
{
	char p[PATH_TEXT_MAX], q[PATH_TEXT_MAX];
	const json_t *const v = json_object_get(obj, "histogram");
	sub(p, path, "histogram");
	if (!v)
		return bad(c, p, "missing");
	if (json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(c, p, "expected an object or null, not %s", type_name(v));
	if (get_u64(c, v, p, "count", &h->count) || get_u64(c, v, p, "min_ns", &h->min_ns) ||
	    get_u64(c, v, p, "max_ns", &h->max_ns))
		return -1;
	const json_t *const b = need(c, v, p, "buckets", JSON_ARRAY);
	if (!b)
		return -1;
	const size_t n = json_array_size(b);
	if (n > RP_BT_BUCKETS_MAX)
		return bad(c, sub(q, p, "buckets"), "more than %d buckets", RP_BT_BUCKETS_MAX);
	if (n == 0)
		return 0;
	h->b = calloc(n, sizeof(*h->b));
	if (!h->b)
		return bad(c, p, "out of memory");
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *const pair = json_array_get(b, i);
		pathf(q, "%s.buckets[%zu]", p, i);
		if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(json_array_get(pair, 0)) ||
		    !json_is_integer(json_array_get(pair, 1)))
			return bad(c, q, "expected [lo_ns, count], two integers");
		const json_int_t lo = json_integer_value(json_array_get(pair, 0));
		const json_int_t cnt = json_integer_value(json_array_get(pair, 1));
		if (lo < 0 || !bucket_low((uint64_t)lo))
			return bad(c, q, "%" JSON_INTEGER_FORMAT " is not a bucket's low end in the layout", lo);
		if (i > 0 && (uint64_t)lo <= h->b[i - 1][0])
			return bad(c, q, "buckets are not in increasing order");
		if (cnt <= 0 || (uint64_t)cnt > COUNT_MAX - sum)
			return bad(c, q, "count %" JSON_INTEGER_FORMAT " is out of range", cnt);
		h->b[i][0] = (uint64_t)lo;
		h->b[i][1] = (uint64_t)cnt;
		sum += (uint64_t)cnt;
		h->n = i + 1;
	}
	if (sum != h->count)
		return bad(c, p, "the buckets hold %" PRIu64 " values, count says %" PRIu64, sum, h->count);
	if (h->min_ns > h->max_ns)
		return bad(c, p, "min_ns is above max_ns");
	return 0;
}

static int get_op(const ctx *c, const json_t *v, const char *path, rp_bt_op *o)
{
	if (!json_is_object(v))
		return bad(c, path, "expected an object, not %s", type_name(v));
	return get_u64(c, v, path, "count", &o->count) || get_u64(c, v, path, "bytes", &o->bytes) ||
			       get_u64(c, v, path, "failures", &o->failures) ||
			       get_u64(c, v, path, "mismatches", &o->mismatches) ||
			       get_num(c, v, path, "avg_us", &o->avg_us) || get_num(c, v, path, "p50_us", &o->p50_us) ||
			       get_num(c, v, path, "p99_us", &o->p99_us) || get_num(c, v, path, "max_us", &o->max_us) ||
			       get_hist(c, v, path, &o->hist)
		       ? -1
		       : 0;
}

static int get_series(const ctx *c, const json_t *res, rp_bt_run *r)
{
	char p[PATH_TEXT_MAX];
	const json_t *const a = need(c, res, "", "series", JSON_ARRAY);
	if (!a)
		return -1;
	const size_t n = json_array_size(a);
	if (n > RP_BT_SERIES_MAX)
		return bad(c, "series", "more than %d seconds", RP_BT_SERIES_MAX);
	if (n == 0)
		return 0;
	/*
	 * replay writes one object per second, t = 0, 1, ... with none left out:
	 * t must be its index, so what a series holds is bounded by the file's
	 * bytes (a lone t = 999999 would otherwise cost 24 MB per run)
	 */
	char err[PATH_TEXT_MAX];
	if (rp__bt_series_alloc(r, n, err, sizeof(err)))
		return bad(c, "series", "%s", err);
	for (size_t i = 0; i < n; i++) {
		const json_t *const e = json_array_get(a, i);
		pathf(p, "series[%zu]", i);
		if (!json_is_object(e))
			return bad(c, p, "expected an object, not %s", type_name(e));
		uint64_t t;
		if (get_u64(c, e, p, "t", &t))
			return -1;
		if (t != i)
			return bad(c, p, "t %" PRIu64 " is not %zu: the series has a second per element, in order", t, i);
		rp_bt_sec *const s = &r->series[i];
		const json_t *const w = need(c, e, p, "warmup", JSON_TRUE);
		if (get_u64(c, e, p, "ops", &s->ops) || get_u64(c, e, p, "bytes", &s->bytes) || !w)
			return -1;
		s->warmup = json_is_true(w);
	}
	return 0;
}

static int get_ops(const ctx *c, const json_t *res, rp_bt_run *r)
{
	char p[PATH_TEXT_MAX], err[PATH_TEXT_MAX];
	const json_t *const ops = need(c, res, "", "ops", JSON_OBJECT);
	if (!ops)
		return -1;
	const char *key;
	const json_t *v;
	json_object_foreach ((json_t *)ops, key, v) {
		pathf(p, "ops.%.*s", 64, key);
		if (strlen(key) > RP_BT_NAME_MAX || key[0] == '\0')
			return bad(c, p, "an op name must be 1 to %d bytes", RP_BT_NAME_MAX);
		rp_bt_op *const o = rp__bt_op_add(r, key, err, sizeof(err));
		if (!o)
			return bad(c, "ops", "%s", err);
		if (get_op(c, v, p, o))
			return -1;
	}
	return 0;
}

/* The bucket's value as replay reports a quantile: its midpoint (the last bucket: the max). */
static double bucket_mid(uint64_t lo, uint64_t max_ns)
{
	const unsigned sb = RP_BT_HIST_SUB_BITS, mb = RP_BT_HIST_MAX_BITS;
	if (lo < (UINT64_C(1) << sb))
		return (double)lo;
	if (lo >= (UINT64_C(1) << mb) - (UINT64_C(1) << (mb - 1 - sb)))
		return (double)max_ns;
	const unsigned e = 63 - (unsigned)__builtin_clzll(lo);
	return (double)lo + (double)((UINT64_C(1) << (e - sb)) - 1) / 2;
}

/* The value at quantile q of the merged buckets b[n] (count values, min..max), as replay's rp__hist_quantile. */
static double quantile(const uint64_t (*b)[2], size_t n, uint64_t count, double q, uint64_t min_ns, uint64_t max_ns)
{
	uint64_t rank = (uint64_t)(q * (double)count + 0.999999999), seen = 0;
	rank = rank ? rank : 1;
	for (size_t i = 0; i < n; i++) {
		seen += b[i][1];
		if (seen >= rank) {
			const double v = bucket_mid(b[i][0], max_ns);
			return v < (double)min_ns ? (double)min_ns : v > (double)max_ns ? (double)max_ns : v;
		}
	}
	return (double)max_ns;
}

static int cmp_lo(const void *a, const void *b)
{
	const uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
	return x < y ? -1 : x > y;
}

/*
 * A run with process ops (a wait is the parent waiting for its child): "all"
 * over the other ops only, from their histograms merged, so a postmaster's
 * 47 s wait is not the file system's max.  Left as replay wrote it when the
 * run has no process op or an op without a histogram (or memory runs out).
 */
static void fs_latency(rp_bt_run *r)
{
	size_t total = 0;
	bool proc = false;
	for (size_t k = 0; k < r->nops; k++) {
		const rp_bt_op *const o = &r->ops[k];
		if (rp__bt_process_op(o->name)) {
			proc |= o->count > 0;
			continue;
		}
		if (strcmp(o->name, "sleep") == 0 || o->count == 0)
			continue;
		if (o->hist.count != o->count)
			return;
		total += o->hist.n;
	}
	if (!proc)
		return;
	uint64_t(*const b)[2] = total ? malloc(total * sizeof(*b)) : NULL;
	if (total && !b)
		return;
	size_t m = 0;
	uint64_t count = 0, min_ns = UINT64_MAX, max_ns = 0;
	for (size_t k = 0; k < r->nops; k++) {
		const rp_bt_op *const o = &r->ops[k];
		if (rp__bt_process_op(o->name) || strcmp(o->name, "sleep") == 0 || o->count == 0)
			continue;
		memcpy(b + m, o->hist.b, o->hist.n * sizeof(*b));
		m += o->hist.n;
		count += o->hist.count;
		min_ns = o->hist.min_ns < min_ns ? o->hist.min_ns : min_ns;
		max_ns = o->hist.max_ns > max_ns ? o->hist.max_ns : max_ns;
	}
	r->all_fs_only = true;
	if (count == 0) {
		r->all_p50_us = r->all_p99_us = r->all_max_us = 0;
		free(b);
		return;
	}
	qsort(b, m, sizeof(*b), cmp_lo);
	size_t w = 0;
	for (size_t i = 0; i < m; i++)
		if (w && b[w - 1][0] == b[i][0])
			b[w - 1][1] += b[i][1];
		else {
			b[w][0] = b[i][0];
			b[w][1] = b[i][1];
			w++;
		}
	r->all_p50_us = quantile((const uint64_t(*)[2])b, w, count, 0.5, min_ns, max_ns) / 1e3;
	r->all_p99_us = quantile((const uint64_t(*)[2])b, w, count, 0.99, min_ns, max_ns) / 1e3;
	r->all_max_us = (double)max_ns / 1e3;
	free(b);
}

static int run_from_json(const ctx *c, rp_bt_run *r, const json_t *res)
{
	if (!json_is_object(res))
		return bad(c, "", "expected a replay result object, not %s", type_name(res));
	const char *schema;
	if (get_str(c, res, "", "schema", false, &schema))
		return -1;
	if (strcmp(schema, "reprise-replay") != 0)
		return bad(c, "schema", "\"%.64s\" is not a replay result (\"reprise-replay\")", schema);
	const json_t *const ver = need(c, res, "", "schema_version", JSON_INTEGER);
	if (!ver)
		return -1;
	if (json_integer_value(ver) != REPLAY_SCHEMA_VERSION)
		return bad(c, "schema_version", "%" JSON_INTEGER_FORMAT " is not %d, the version this reprise reads",
			   json_integer_value(ver), REPLAY_SCHEMA_VERSION);
	const json_t *const lay = need(c, res, "", "histogram_layout", JSON_OBJECT);
	if (!lay)
		return -1;
	uint64_t sb, mb;
	if (get_u64(c, lay, "histogram_layout", "sub_bits", &sb) || get_u64(c, lay, "histogram_layout", "max_bits", &mb))
		return -1;
	if (sb != RP_BT_HIST_SUB_BITS || mb != RP_BT_HIST_MAX_BITS)
		return bad(c, "histogram_layout", "sub_bits %" PRIu64 ", max_bits %" PRIu64 " is not the layout read (%d, %d)",
			   sb, mb, RP_BT_HIST_SUB_BITS, RP_BT_HIST_MAX_BITS);
	const json_t *const lag = need(c, res, "", "lag_us", JSON_OBJECT);
	if (!lag || get_num(c, lag, "lag_us", "p50", &r->lag_p50_us) || get_num(c, lag, "lag_us", "p99", &r->lag_p99_us) ||
	    get_num(c, lag, "lag_us", "max", &r->lag_max_us))
		return -1;
	const json_t *const all = need(c, res, "", "latency_us", JSON_OBJECT);
	if (!all || get_num(c, all, "latency_us", "p50", &r->all_p50_us) ||
	    get_num(c, all, "latency_us", "p99", &r->all_p99_us) || get_num(c, all, "latency_us", "max", &r->all_max_us))
		return -1;
	if (get_num(c, res, "", "elapsed_s", &r->elapsed_s) || get_num(c, res, "", "warmup_s", &r->warmup_s) || get_num(c, res, "", "mb_per_sec", &r->mb_per_sec) ||
	    get_num(c, res, "", "ops_per_sec", &r->ops_per_sec) || get_u64(c, res, "", "total_ops", &r->total_ops) ||
	    get_u64(c, res, "", "bytes", &r->bytes) || get_u64(c, res, "", "failures", &r->failures) ||
	    get_u64(c, res, "", "failures_expected", &r->failures_expected) ||
	    get_u64(c, res, "", "mismatches", &r->mismatches))
		return -1;
	/* optional here (a hand-made file may lack them): what paced the run, and whether it was fixed work */
	const json_t *const timing = json_object_get(res, "timing");
	if (json_is_string(timing) && json_string_length(timing) < sizeof(r->timing))
		snprintf(r->timing, sizeof(r->timing), "%s", json_string_value(timing));
	const json_t *const clients = json_object_get(res, "clients");
	if (json_is_integer(clients) && json_integer_value(clients) > 0 && json_integer_value(clients) <= UINT32_MAX)
		r->clients = (uint32_t)json_integer_value(clients);
	const json_t *const stop = json_object_get(res, "stop");
	r->fixed_work = json_is_string(stop) && strcmp(json_string_value(stop), "end") == 0;
	if (get_ops(c, res, r) || get_series(c, res, r))
		return -1;
	fs_latency(r);
	return 0;
}

int rp__bt_run_from_json(rp_bt_run *r, const json_t *result, const char *where, char *err, size_t errsize)
{
	const ctx c = { .where = where, .err = err, .errsize = errsize };
	return run_from_json(&c, r, result);
}

/* *dst (owned, "" or a copy) replaced by src cut to RP_BT_NAME_MAX bytes; -1 when out of memory. */
static int set_text(char **dst, const char *src, size_t len)
{
	len = len > RP_BT_NAME_MAX ? RP_BT_NAME_MAX : len;
	char *const d = strndup(src, len);
	if (!d)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

/* obj.key into *dst when it is a string (provenance is shown, not checked: an old file may lack a key). */
static int opt_text(const json_t *obj, const char *key, char **dst)
{
	const json_t *const v = json_object_get(obj, key);
	if (!json_is_string(v) || (*dst)[0])
		return 0;
	return set_text(dst, json_string_value(v), json_string_length(v));
}

/* The trace an input replayed: {path, sha256}; a sha256 must be 64 hex digits or null, as replay writes it. */
static int get_trace(const ctx *c, const json_t *tr, const char *path)
{
	char p[PATH_TEXT_MAX];
	if (!json_is_object(tr))
		return 0;
	if (opt_text(tr, "path", &c->in->trace_path))
		return bad(c, path, "out of memory");
	const json_t *const sha = json_object_get(tr, "sha256");
	if (!sha || json_is_null(sha) || c->in->trace_sha256[0])
		return 0;
	const char *const h = json_is_string(sha) ? json_string_value(sha) : "";
	bool hex = json_is_string(sha) && json_string_length(sha) == 64;
	for (size_t i = 0; hex && i < 64; i++)
		hex = (h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f');
	if (!hex)
		return bad(c, sub(p, path, "sha256"), "expected 64 lowercase hex digits or null");
	memcpy(c->in->trace_sha256, h, 65);
	return 0;
}

/* A replay result's provenance into the input (what is not there yet): host, kernel, version, date, command line, trace. */
static int get_prov(const ctx *c, const json_t *prov, const char *path)
{
	char p[PATH_TEXT_MAX];
	if (!json_is_object(prov))
		return 0;
	rp_bt_input *const in = c->in;
	if (opt_text(prov, "host", &in->host) || opt_text(prov, "kernel", &in->kernel) ||
	    opt_text(prov, "reprise_version", &in->version) || opt_text(prov, "start_time", &in->start_time))
		return bad(c, path, "out of memory");
	const json_t *const cl = json_object_get(prov, "command_line");
	if (json_is_array(cl) && !in->command_line[0]) {
		char line[RP_BT_NAME_MAX + 1];
		size_t n = 0;
		for (size_t i = 0; i < json_array_size(cl) && n < sizeof(line) - 1; i++) {
			const char *const a = json_string_value(json_array_get(cl, i));
			if (!a)
				continue;
			const bool quote = !a[0] || strpbrk(a, " \t'\"\\$") != NULL;
			const int w = snprintf(line + n, sizeof(line) - n, "%s%s%s%s", n ? " " : "", quote ? "'" : "", a,
					       quote ? "'" : "");
			n = w < 0 ? n : n + (size_t)w < sizeof(line) ? n + (size_t)w : sizeof(line) - 1;
		}
		line[n] = '\0';
		if (set_text(&in->command_line, line, n))
			return bad(c, path, "out of memory");
	}
	return get_trace(c, json_object_get(prov, "trace"), sub(p, path, "trace"));
}

/* A bench's options as "key=value ..." (strings bare, null as -), for the header. */
static int get_options(const ctx *c, const json_t *opts)
{
	char line[RP_BT_NAME_MAX + 1];
	size_t n = 0;
	const char *key;
	const json_t *v;
	json_object_foreach ((json_t *)opts, key, v) {
		char val[256];
		if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_boolean(v))
			snprintf(val, sizeof(val), "%s", json_is_true(v) ? "true" : "false");
		else if (json_is_integer(v))
			snprintf(val, sizeof(val), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		else if (json_is_real(v))
			snprintf(val, sizeof(val), "%g", json_real_value(v));
		else if (json_is_null(v))
			continue; /* not set: the default */
		else
			snprintf(val, sizeof(val), "...");
		const int w = snprintf(line + n, sizeof(line) - n, "%s%.64s=%s", n ? " " : "", key, val);
		if (w < 0 || n + (size_t)w >= sizeof(line))
			break;
		n += (size_t)w;
	}
	line[n] = '\0';
	return set_text(&c->in->options, line, n) ? bad(c, "options", "out of memory") : 0;
}

/* A replay file: one run of the target its provenance names (the file's name when it has none). */
static int load_replay(rp_bt_set *s, const ctx *c, const json_t *doc)
{
	const char *target = c->where, *fs = "", *mopts = "";
	const json_t *const prov = json_object_get(doc, "provenance");
	if (prov && !json_is_null(prov)) {
		if (!json_is_object(prov))
			return bad(c, "provenance", "expected an object or null, not %s", type_name(prov));
		const json_t *const t = json_object_get(prov, "target");
		if (!t)
			return bad(c, "provenance.target", "missing");
		if (!json_is_null(t)) {
			if (!json_is_object(t))
				return bad(c, "provenance.target", "expected an object or null, not %s", type_name(t));
			if (get_str(c, t, "provenance.target", "path", true, &target) ||
			    get_str(c, t, "provenance.target", "fs_type", true, &fs) ||
			    get_str(c, t, "provenance.target", "mount_options", true, &mopts))
				return -1;
		}
	}
	char err[PATH_TEXT_MAX];
	rp_bt_target *const t = rp__bt_target_get(s, target, fs, mopts, err, sizeof(err));
	rp_bt_run *const r = t ? rp__bt_run_add(t, err, sizeof(err)) : NULL;
	if (!r)
		return bad(c, "", "%s", err);
	r->source = strdup(c->where);
	if (!r->source)
		return bad(c, "", "out of memory");
	r->input = c->input;
	if (get_prov(c, prov, "provenance"))
		return -1;
	/* A run that ended in an error (its backend could not go on, or prepare could not connect) is a failed run, as in bench. */
	const json_t *const stop = json_object_get(doc, "stop");
	r->failed = json_is_string(stop) && strcmp(json_string_value(stop), "error") == 0;
	return run_from_json(c, r, doc);
}

static int load_bench_run(rp_bt_target *t, const ctx *c, const json_t *e, const char *path)
{
	char p[PATH_TEXT_MAX], err[PATH_TEXT_MAX], where[PATH_TEXT_MAX * 2];
	if (!json_is_object(e))
		return bad(c, path, "expected an object, not %s", type_name(e));
	uint64_t num;
	const json_t *const disc = need(c, e, path, "discarded", JSON_TRUE);
	if (get_u64(c, e, path, "run", &num) || !disc)
		return -1;
	if (num < 1 || num > UINT32_MAX)
		return bad(c, sub(p, path, "run"), "%" PRIu64 " is out of range (1 to 2^32-1)", num);
	rp_bt_run *const r = rp__bt_run_add(t, err, sizeof(err));
	if (!r)
		return bad(c, path, "%s", err);
	r->run = (uint32_t)num;
	r->input = c->input;
	r->discarded = json_is_true(disc);
	/* the machine while it ran (bench since it records them; optional): load average and CPU steal */
	const json_t *const load = json_object_get(e, "load_avg_start"), *const steal = json_object_get(e, "cpu_steal_share");
	if (load && !json_is_null(load) && get_num(c, e, path, "load_avg_start", &r->load_start))
		return -1;
	if (steal && !json_is_null(steal)) {
		if (get_num(c, e, path, "cpu_steal_share", &r->steal_share))
			return -1;
		if (r->steal_share > 1)
			return bad(c, sub(p, path, "cpu_steal_share"), "%g is out of range (0 to 1)", r->steal_share);
	}
	r->source = strdup(c->where);
	if (!r->source)
		return bad(c, path, "out of memory");
	bool sync_known;
	if (get_i64_or_null(c, e, path, "final_sync_ns", true, &r->final_sync_ns, &sync_known) ||
	    get_i64_or_null(c, e, path, "dirty_bytes_at_end", false, &r->dirty_bytes_at_end, &r->dirty_known))
		return -1;
	if (!sync_known)
		r->final_sync_ns = -1;
	/* failed (a run that could not start or ended in an error): optional, as files before it had none */
	const json_t *const failed = json_object_get(e, "failed");
	if (failed && !json_is_boolean(failed))
		return bad(c, sub(p, path, "failed"), "expected a boolean, not %s", type_name(failed));
	r->failed = failed && json_is_true(failed);
	const json_t *const res = json_object_get(e, "result");
	if (!res)
		return bad(c, sub(p, path, "result"), "missing");
	if (r->failed && json_is_null(res))
		return 0; /* it never ran: shown in the runs row, in no number */
	const int n = snprintf(where, sizeof(where), "%s: %s.result", c->where, path);
	(void)n; /* cut, it still names the file */
	const ctx rc = { .where = where, .err = c->err, .errsize = c->errsize, .in = c->in, .input = c->input };
	if (json_is_object(res) && get_prov(&rc, json_object_get(res, "provenance"), "provenance"))
		return -1;
	return run_from_json(&rc, r, res);
}

static int load_bench(rp_bt_set *s, const ctx *c, const json_t *doc)
{
	char p[PATH_TEXT_MAX], q[PATH_TEXT_MAX], err[PATH_TEXT_MAX];
	/* Not read here, but part of the format: a file without them is not a whole bench file. */
	const json_t *const trace = need(c, doc, "", "trace", JSON_OBJECT), *const opts = need(c, doc, "", "options", JSON_OBJECT);
	if (!trace || !opts || !need(c, doc, "", "order", JSON_ARRAY))
		return -1;
	/* the bench's own trace first: its runs' provenance fills only what it leaves out */
	if (get_trace(c, trace, "trace") || get_options(c, opts))
		return -1;
	const json_t *const targets = need(c, doc, "", "targets", JSON_ARRAY);
	if (!targets)
		return -1;
	if (json_array_size(targets) > RP_BT_TARGETS_MAX)
		return bad(c, "targets", "more than %d targets", RP_BT_TARGETS_MAX);
	for (size_t i = 0; i < json_array_size(targets); i++) {
		const json_t *const e = json_array_get(targets, i);
		pathf(p, "targets[%zu]", i);
		if (!json_is_object(e))
			return bad(c, p, "expected an object, not %s", type_name(e));
		const char *name, *fs, *mopts;
		if (get_str(c, e, p, "target", false, &name) || get_str(c, e, p, "fs_type", true, &fs) ||
		    get_str(c, e, p, "mount_options", true, &mopts))
			return -1;
		const json_t *const runs = need(c, e, p, "runs", JSON_ARRAY);
		if (!runs)
			return -1;
		rp_bt_target *const t = rp__bt_target_get(s, name, fs, mopts, err, sizeof(err));
		if (!t)
			return bad(c, p, "%s", err);
		/* bench since it says so (optional): the target is a directory of a file system others may write to */
		const json_t *const shared = json_object_get(e, "shared_mount");
		if (json_is_string(shared) && !t->shared_mount && set_text(&t->shared_mount, json_string_value(shared),
									   json_string_length(shared)))
			return bad(c, p, "out of memory");
		if (json_array_size(runs) > RP_BT_RUNS_MAX)
			return bad(c, sub(q, p, "runs"), "more than %d runs", RP_BT_RUNS_MAX);
		for (size_t j = 0; j < json_array_size(runs); j++) {
			pathf(q, "%s.runs[%zu]", p, j);
			if (load_bench_run(t, c, json_array_get(runs, j), q))
				return -1;
		}
	}
	return 0;
}

int rp__bt_load_buffer(rp_bt_set *s, const char *name, const char *buf, size_t len, char *err, size_t errsize)
{
	ctx c = { .where = name, .err = err, .errsize = errsize };
	if (len > RP_BT_FILE_MAX)
		return bad(&c, "", "larger than %u MiB", RP_BT_FILE_MAX >> 20);
	char ierr[PATH_TEXT_MAX];
	c.in = rp__bt_input_add(s, name, ierr, sizeof(ierr));
	if (!c.in)
		return bad(&c, "", "%s", ierr);
	c.input = (uint32_t)(s->ninputs - 1);
	json_error_t je;
	/* duplicate keys are refused: which of two "mb_per_sec" would be the run's? */
	json_t *const doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return bad(&c, "", "not JSON: line %d, column %d: %s", je.line, je.column, je.text);
	int rc = -1;
	const char *schema;
	if (!json_is_object(doc))
		bad(&c, "", "expected an object (a bench or replay result), not %s", type_name(doc));
	else if (get_str(&c, doc, "", "schema", false, &schema) == 0) {
		if (strcmp(schema, "reprise-bench/1") == 0)
			rc = load_bench(s, &c, doc);
		else if (strcmp(schema, "reprise-replay") == 0)
			rc = load_replay(s, &c, doc);
		else
			bad(&c, "schema", "\"%.64s\" is neither \"reprise-bench/1\" nor \"reprise-replay\"", schema);
	}
	if (rc == 0 && rp__bt_op_kinds(s) > RP_BT_OPS_MAX)
		rc = bad(&c, "", "more than %d distinct op names in the inputs so far", RP_BT_OPS_MAX);
	json_decref(doc);
	return rc;
}
