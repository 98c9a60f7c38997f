/* The model as JSON (jansson), written compact and read back with every field checked (docs/model.md). */
#include <jansson.h>
#include <stdarg.h>
#include <string.h>

#include "results/model.h"

#define MODEL_FORMAT "reprise-model"
#define MODEL_VERSION 3 /* 2 added classes[].gapfine, 3 classes[].gapexact and cells' first; older files (without them) read as before */

/* A histogram as [first bucket, its count, the next bucket's count, ...] up to the last non-empty one; NULL when all are empty. */
static json_t *counts_json(const uint64_t *n, int nb, bool *oom)
{
	int lo = -1, hi = -1;
	for (int b = 0; b < nb; b++)
		if (n[b]) {
			if (lo < 0)
				lo = b;
			hi = b;
		}
	if (lo < 0)
		return NULL;
	json_t *const a = json_array();
	if (!a || json_array_append_new(a, json_integer(lo))) {
		*oom = true;
		return a;
	}
	for (int b = lo; b <= hi; b++)
		if (json_array_append_new(a, json_integer((json_int_t)n[b])))
			*oom = true;
	return a;
}

static json_t *hist_json(const rp_mhist *h, bool *oom)
{
	return counts_json(h->n, RP_MH_BUCKETS, oom);
}

/* Exact values as [[value, count], ...]; NULL when there are none. */
static json_t *exact_json(const rp_mh_exact *ex, uint32_t n, bool *oom)
{
	if (!n)
		return NULL;
	json_t *const a = json_array();
	if (!a) {
		*oom = true;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		if (json_array_append_new(a, json_pack("[I,I]", (json_int_t)ex[i].v, (json_int_t)ex[i].n)))
			*oom = true;
	return a;
}

static void put(json_t *o, const char *k, json_t *v, bool *oom)
{
	if (v && json_object_set_new(o, k, v))
		*oom = true;
}

static void put_hist(json_t *o, const char *k, const rp_mhist *h, bool *oom)
{
	put(o, k, hist_json(h, oom), oom);
}

/* The op counts of arr as {"name": count}, zero left out; NULL when all are. */
static json_t *ops_json(const uint64_t *arr, bool *oom)
{
	json_t *o = NULL;
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		if (!arr[op])
			continue;
		if (!o && !(o = json_object())) {
			*oom = true;
			return NULL;
		}
		put(o, rp_op_name(op), json_integer((json_int_t)arr[op]), oom);
	}
	return o;
}

/* Each op's latency histogram as {"name": histogram}; NULL when there is none. */
static json_t *lat_json(rp_mhist *const *lats, bool *oom)
{
	json_t *lat = NULL;
	for (unsigned op = 0; op < RP_OP__COUNT; op++) {
		json_t *const h = lats[op] ? hist_json(lats[op], oom) : NULL;
		if (!h)
			continue;
		if (!lat && !(lat = json_object())) {
			json_decref(h);
			*oom = true;
			break;
		}
		put(lat, rp_op_name(op), h, oom);
	}
	return lat;
}

static json_t *cell_json(const rp_model_cell *c, bool *oom)
{
	json_t *const o = json_object();
	if (!o) {
		*oom = true;
		return NULL;
	}
	if (!c->clients)
		return o;
	put(o, "clients", json_integer(c->clients), oom);
	put(o, "ops", ops_json(c->ops, oom), oom);
	put(o, "failed", ops_json(c->failed, oom), oom);
	put_hist(o, "rsize", &c->rsize, oom);
	put_hist(o, "wsize", &c->wsize, oom);
	put_hist(o, "seek", &c->seek, oom);
	put_hist(o, "run", &c->run, oom);
	put_hist(o, "gap", &c->gap, oom);
	put_hist(o, "think", &c->think, oom);
	put_hist(o, "depth", &c->depth, oom);
	if (c->first)
		put(o, "first", counts_json(c->first, RP_MODEL_FIRST_BINS, oom), oom);
	return o;
}

int rp_model_write_json(const rp_model *m, FILE *f, char *err, size_t errsize)
{
	bool oom = false;
	json_t *const d = json_object();
	if (!d) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	put(d, "format", json_string(MODEL_FORMAT), &oom);
	put(d, "version", json_integer(MODEL_VERSION), &oom);
	put(d, "chunk_ns", json_integer((json_int_t)m->chunk_ns), &oom);
	put(d, "span_ns", json_integer((json_int_t)m->span_ns), &oom);
	put(d, "ops", json_integer((json_int_t)m->n_ops), &oom);
	json_t *const cap = json_object();
	put(d, "capped", cap, &oom);
	if (cap) {
		put(cap, "clients", json_integer((json_int_t)m->capped_clients), &oom);
		put(cap, "files", json_integer((json_int_t)m->capped_files), &oom);
		put(cap, "handles", json_integer((json_int_t)m->capped_handles), &oom);
		put(cap, "chunk_widened", json_boolean(m->chunk_widened), &oom);
	}
	json_t *const cls = json_array();
	put(d, "classes", cls, &oom);
	for (uint32_t i = 0; cls && i < m->n_classes; i++) {
		json_t *const c = json_pack("{s:s,s:I}", "name", m->classes[i].name, "clients", (json_int_t)m->classes[i].clients);
		if (!c || json_array_append_new(cls, c))
			oom = true;
		else {
			put(c, "lat", lat_json(m->classes[i].lat, &oom), &oom);
			put_hist(c, "rexact", &m->classes[i].rexact, &oom);
			put_hist(c, "wexact", &m->classes[i].wexact, &oom);
			if (m->classes[i].gapfine)
				put(c, "gapfine", counts_json(m->classes[i].gapfine, RP_MH_FINE, &oom), &oom);
			put(c, "gapexact", exact_json(m->classes[i].gapexact, m->classes[i].n_gapexact, &oom), &oom);
		}
	}
	json_t *const fs = json_object();
	put(d, "files", fs, &oom);
	if (fs) {
		put(fs, "files", json_integer((json_int_t)m->fs.files), &oom);
		put(fs, "dirs", json_integer((json_int_t)m->fs.dirs), &oom);
		put(fs, "created", json_integer((json_int_t)m->fs.created), &oom);
		put(fs, "shared", json_integer((json_int_t)m->fs.shared), &oom);
		put(fs, "creates", json_integer((json_int_t)m->fs.creates), &oom);
		put_hist(fs, "size", &m->fs.size, &oom);
		put_hist(fs, "depth", &m->fs.depth, &oom);
		put_hist(fs, "width", &m->fs.width, &oom);
	}
	json_t *const chunks = json_array();
	put(d, "chunks", chunks, &oom);
	for (uint32_t k = 0; chunks && k < m->n_chunks && !oom; k++) {
		json_t *const row = json_array();
		if (!row || json_array_append_new(chunks, row)) {
			oom = true;
			break;
		}
		for (uint32_t i = 0; i < m->n_classes; i++) {
			json_t *const c = cell_json(rp_model_cell_at(m, k, i), &oom);
			if (!c || json_array_append_new(row, c))
				oom = true;
		}
	}
	int rc = 0;
	if (oom) {
		snprintf(err, errsize, "out of memory");
		rc = -1;
	} else if (json_dumpf(d, f, JSON_COMPACT) < 0 || fputc('\n', f) == EOF) {
		snprintf(err, errsize, "write error");
		rc = -1;
	}
	json_decref(d);
	return rc;
}

/* Reading: every error names the field, "chunks[3][0].rsize: ...". */
typedef struct rd {
	char *err;
	size_t errsize;
	bool failed;
} rd;

__attribute__((format(printf, 2, 3))) static int bad(rd *r, const char *fmt, ...)
{
	if (!r->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errsize, fmt, ap);
		va_end(ap);
	}
	r->failed = true;
	return -1;
}

/* A count: an integer in [0, max]. */
static int get_uint(rd *r, const json_t *o, const char *where, const char *k, uint64_t max, bool need, uint64_t *out)
{
	const json_t *const v = json_object_get(o, k);
	*out = 0;
	if (!v)
		return need ? bad(r, "%s%s: missing", where, k) : 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
		return bad(r, "%s%s: not an integer in [0, %llu]", where, k, (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* counts of nb buckets (all 0 when v is absent) from [first, count, ...] */
static int get_counts(rd *r, const json_t *v, const char *where, const char *k, uint64_t *out, int nb)
{
	memset(out, 0, (size_t)nb * sizeof(*out));
	if (!v)
		return 0;
	if (!json_is_array(v) || json_array_size(v) < 2 || json_array_size(v) > (size_t)nb + 1)
		return bad(r, "%s%s: not a histogram ([first bucket, count, ...], at most %d buckets)", where, k, nb);
	const json_t *const first = json_array_get(v, 0);
	const size_t n = json_array_size(v) - 1;
	if (!json_is_integer(first) || json_integer_value(first) < 0 ||
	    (uint64_t)json_integer_value(first) + n > (uint64_t)nb)
		return bad(r, "%s%s: first bucket not an integer with its %zu counts in [0, %d)", where, k, n, nb);
	const size_t lo = (size_t)json_integer_value(first);
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *const c = json_array_get(v, i + 1);
		if (!json_is_integer(c) || json_integer_value(c) < 0 || (uint64_t)json_integer_value(c) > RP_MODEL_MAX_COUNT)
			return bad(r, "%s%s: bucket %zu: count not in [0, 2^40]", where, k, lo + i);
		out[lo + i] = (uint64_t)json_integer_value(c);
		total += out[lo + i];
		if (total > RP_MODEL_MAX_COUNT)
			return bad(r, "%s%s: more than 2^40 values", where, k);
	}
	return 0;
}

static int get_hist(rd *r, const json_t *v, const char *where, const char *k, rp_mhist *h)
{
	return get_counts(r, v, where, k, h->n, RP_MH_BUCKETS);
}

/* classes[i].gapfine: optional (absent in version 1); NULL when absent */
static int get_fine(rd *r, const json_t *v, const char *where, uint64_t **fine)
{
	if (!v)
		return 0;
	if (!(*fine = calloc(RP_MH_FINE, sizeof(uint64_t))))
		return bad(r, "out of memory");
	return get_counts(r, v, where, "gapfine", *fine, RP_MH_FINE);
}

/*
 * classes[i].gapexact: optional (absent before version 3): at most RP_MH_EXACT_MAX [value, count] pairs, values
 * ascending from 16, counts from 1, and within each gapfine part the exact counts at most the part's.
 */
static int get_exact(rd *r, const json_t *v, const char *where, rp_model_class *cls)
{
	cls->n_gapexact = 0;
	if (!v)
		return 0;
	if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > RP_MH_EXACT_MAX)
		return bad(r, "%sgapexact: not an array of 1 to %d [value, count] pairs", where, RP_MH_EXACT_MAX);
	if (!cls->gapfine)
		return bad(r, "%sgapexact: without gapfine", where);
	for (size_t i = 0; i < json_array_size(v); i++) {
		const json_t *const e = json_array_get(v, i), *const ev = json_array_get(e, 0), *const en = json_array_get(e, 1);
		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(ev) || !json_is_integer(en) ||
		    json_integer_value(ev) < 16 || json_integer_value(en) < 1 ||
		    (uint64_t)json_integer_value(en) > RP_MODEL_MAX_COUNT)
			return bad(r, "%sgapexact[%zu]: not a [value >= 16, count in [1, 2^40]] pair", where, i);
		const rp_mh_exact x = { .v = (uint64_t)json_integer_value(ev), .n = (uint64_t)json_integer_value(en) };
		if (i && x.v <= cls->gapexact[i - 1].v)
			return bad(r, "%sgapexact[%zu]: values not ascending", where, i);
		/* the part's exact counts so far, this one's included */
		const unsigned idx = rp_mh_fine_index(x.v);
		uint64_t sum = x.n;
		for (size_t j = i; j-- > 0 && rp_mh_fine_index(cls->gapexact[j].v) == idx;)
			sum += cls->gapexact[j].n;
		if (sum > cls->gapfine[idx])
			return bad(r, "%sgapexact[%zu]: more than gapfine's %llu in its part", where, i,
				   (unsigned long long)cls->gapfine[idx]);
		cls->gapexact[i] = x;
		cls->n_gapexact = (uint32_t)i + 1;
	}
	return 0;
}

static int get_ops(rd *r, const json_t *v, const char *where, const char *k, uint64_t *arr)
{
	if (!v)
		return 0;
	if (!json_is_object(v))
		return bad(r, "%s%s: not an object of op counts", where, k);
	const char *name;
	const json_t *n;
	json_object_foreach((json_t *)v, name, n)
	{
		const int op = rp_op_from_name(name, strlen(name));
		if (op < 0)
			return bad(r, "%s%s: unknown op \"%.32s\"", where, k, name);
		if (!json_is_integer(n) || json_integer_value(n) < 0 || (uint64_t)json_integer_value(n) > RP_MODEL_MAX_COUNT)
			return bad(r, "%s%s.%s: not a count in [0, 2^40]", where, k, name);
		arr[op] = (uint64_t)json_integer_value(n);
	}
	return 0;
}

static int get_cell(rd *r, const json_t *o, const char *where, rp_model_cell *c)
{
	if (!json_is_object(o))
		return bad(r, "%s: not an object", where);
	uint64_t v;
	char w2[48];
	snprintf(w2, sizeof(w2), "%s.", where);
	if (get_uint(r, o, w2, "clients", RP_MODEL_MAX_CLIENTS, false, &v) < 0)
		return -1;
	c->clients = (uint32_t)v;
	if (get_ops(r, json_object_get(o, "ops"), where, ".ops", c->ops) < 0 ||
	    get_ops(r, json_object_get(o, "failed"), where, ".failed", c->failed) < 0)
		return -1;
	for (unsigned op = 0; op < RP_OP__COUNT; op++)
		if (c->failed[op] > c->ops[op])
			return bad(r, "%s.failed.%s: more than its ops", where, rp_op_name(op));
	static const char *const names[] = { "rsize", "wsize", "seek", "run", "gap", "think", "depth" };
	rp_mhist *const hs[] = { &c->rsize, &c->wsize, &c->seek, &c->run, &c->gap, &c->think, &c->depth };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char k[16];
		snprintf(k, sizeof(k), ".%s", names[i]);
		if (get_hist(r, json_object_get(o, names[i]), where, k, hs[i]) < 0)
			return -1;
	}
	/* first (version 3): when its clients' first ops start, at most one a client */
	const json_t *const first = json_object_get(o, "first");
	if (first) {
		if (!(c->first = calloc(RP_MODEL_FIRST_BINS, sizeof(uint64_t))))
			return bad(r, "out of memory");
		if (get_counts(r, first, where, ".first", c->first, RP_MODEL_FIRST_BINS) < 0)
			return -1;
		uint64_t t = 0;
		for (unsigned i = 0; i < RP_MODEL_FIRST_BINS; i++)
			t += c->first[i];
		if (t > c->clients)
			return bad(r, "%s.first: more first ops than its %u clients", where, c->clients);
	}
	return 0;
}

static int get_lat(rd *r, const json_t *lat, const char *where, rp_mhist **lats)
{
	if (!lat)
		return 0;
	if (!json_is_object(lat))
		return bad(r, "%slat: not an object of histograms", where);
	const char *name;
	const json_t *h;
	json_object_foreach((json_t *)lat, name, h)
	{
		const int op = rp_op_from_name(name, strlen(name));
		if (op < 0)
			return bad(r, "%slat: unknown op \"%.32s\"", where, name);
		if (!lats[op] && !(lats[op] = calloc(1, sizeof(rp_mhist))))
			return bad(r, "out of memory");
		char k[48];
		snprintf(k, sizeof(k), "lat.%s", name);
		if (get_hist(r, h, where, k, lats[op]) < 0)
			return -1;
	}
	return 0;
}

static int get_header(rd *r, const json_t *d, rp_model *m)
{
	const json_t *const fmt = json_object_get(d, "format");
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), MODEL_FORMAT))
		return bad(r, "format: not \"" MODEL_FORMAT "\"");
	uint64_t v;
	if (get_uint(r, d, "", "version", 1000, true, &v) < 0)
		return -1;
	if (v < 1 || v > MODEL_VERSION)
		return bad(r, "version: %llu, this reprise reads 1 to %d", (unsigned long long)v, MODEL_VERSION);
	/* a chunk from 1 µs to a day; the span at most as many chunks as a model holds */
	if (get_uint(r, d, "", "chunk_ns", UINT64_C(86400000000000), true, &m->chunk_ns) < 0)
		return -1;
	if (m->chunk_ns < 1000)
		return bad(r, "chunk_ns: under 1 µs");
	if (get_uint(r, d, "", "span_ns", m->chunk_ns * (RP_MODEL_MAX_CHUNKS - 1) + m->chunk_ns - 1, true, &m->span_ns) < 0 ||
	    get_uint(r, d, "", "ops", RP_MODEL_MAX_COUNT, true, &m->n_ops) < 0)
		return -1;
	m->n_chunks = (uint32_t)(m->span_ns / m->chunk_ns + 1);
	const json_t *const cls = json_object_get(d, "classes");
	if (!json_is_array(cls) || json_array_size(cls) < 1 || json_array_size(cls) > RP_MODEL_MAX_CLASSES)
		return bad(r, "classes: not an array of 1 to %d classes", RP_MODEL_MAX_CLASSES);
	m->n_classes = (uint32_t)json_array_size(cls);
	for (uint32_t i = 0; i < m->n_classes; i++) {
		const json_t *const c = json_array_get(cls, i);
		char where[32];
		snprintf(where, sizeof(where), "classes[%u].", i);
		const json_t *const name = json_object_get(c, "name");
		if (!json_is_string(name))
			return bad(r, "%sname: not a string", where);
		snprintf(m->classes[i].name, sizeof(m->classes[i].name), "%s", json_string_value(name));
		if (get_uint(r, c, where, "clients", RP_MODEL_MAX_CLIENTS, true, &v) < 0)
			return -1;
		m->classes[i].clients = (uint32_t)v;
		if (get_lat(r, json_object_get(c, "lat"), where, m->classes[i].lat) < 0 ||
		    get_hist(r, json_object_get(c, "rexact"), where, "rexact", &m->classes[i].rexact) < 0 ||
		    get_hist(r, json_object_get(c, "wexact"), where, "wexact", &m->classes[i].wexact) < 0 ||
		    get_fine(r, json_object_get(c, "gapfine"), where, &m->classes[i].gapfine) < 0 ||
		    get_exact(r, json_object_get(c, "gapexact"), where, &m->classes[i]) < 0)
			return -1;
	}
	return 0;
}

static int get_files(rd *r, const json_t *fs, rp_model_files *f)
{
	if (!json_is_object(fs))
		return bad(r, "files: not an object");
	if (get_uint(r, fs, "files.", "files", RP_MODEL_MAX_FILES, true, &f->files) < 0 ||
	    get_uint(r, fs, "files.", "dirs", RP_MODEL_MAX_FILES, true, &f->dirs) < 0 ||
	    get_uint(r, fs, "files.", "created", f->files, true, &f->created) < 0 ||
	    get_uint(r, fs, "files.", "shared", f->files, true, &f->shared) < 0 ||
	    get_uint(r, fs, "files.", "creates", RP_MODEL_MAX_COUNT, false, &f->creates) < 0 ||
	    get_hist(r, json_object_get(fs, "size"), "files.", "size", &f->size) < 0 ||
	    get_hist(r, json_object_get(fs, "depth"), "files.", "depth", &f->depth) < 0 ||
	    get_hist(r, json_object_get(fs, "width"), "files.", "width", &f->width) < 0)
		return -1;
	return 0;
}

int rp_model_read_json(rp_model *m, const char *buf, size_t len, char *err, size_t errsize)
{
	memset(m, 0, sizeof(*m));
	rd r = { .err = err, .errsize = errsize };
	json_error_t je;
	json_t *const d = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!d) {
		snprintf(err, errsize, "line %d, column %d: %s", je.line, je.column, je.text);
		return -1;
	}
	if (!json_is_object(d)) {
		bad(&r, "not a JSON object");
		goto out;
	}
	if (get_header(&r, d, m) < 0 || get_files(&r, json_object_get(d, "files"), &m->fs) < 0)
		goto out;
	const json_t *const chunks = json_object_get(d, "chunks");
	if (!json_is_array(chunks) || json_array_size(chunks) != m->n_chunks) {
		bad(&r, "chunks: not an array of %u chunks (span_ns / chunk_ns + 1)", m->n_chunks);
		goto out;
	}
	m->cells = calloc((size_t)m->n_chunks * m->n_classes, sizeof(rp_model_cell));
	if (!m->cells) {
		bad(&r, "out of memory");
		goto out;
	}
	uint64_t total = 0;
	for (uint32_t k = 0; k < m->n_chunks && !r.failed; k++) {
		const json_t *const row = json_array_get(chunks, k);
		if (!json_is_array(row) || json_array_size(row) != m->n_classes) {
			bad(&r, "chunks[%u]: not an array of %u cells (one per class)", k, m->n_classes);
			break;
		}
		for (uint32_t i = 0; i < m->n_classes && !r.failed; i++) {
			char where[40];
			snprintf(where, sizeof(where), "chunks[%u][%u]", k, i);
			rp_model_cell *const c = rp_model_cell_at(m, k, i);
			if (get_cell(&r, json_array_get(row, i), where, c) < 0)
				break;
			if (c->clients > m->classes[i].clients)
				bad(&r, "%s.clients: more than its class's %u", where, m->classes[i].clients);
			for (unsigned op = 0; op < RP_OP__COUNT; op++)
				total += c->ops[op];
			if (total > RP_MODEL_MAX_COUNT)
				bad(&r, "%s: more than 2^40 ops in all", where);
		}
	}
out:
	json_decref(d);
	if (r.failed) {
		rp_model_free(m);
		return -1;
	}
	return 0;
}
