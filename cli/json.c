/* `reprise stat --json` with jansson (schema: docs/stat-json.md); formats/ keeps to libc and libzstd. */
#include "cli/json.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/outfile.h"
#include "formats/op.h"

typedef struct jb {
	bool oom;
} jb;

static void jput(jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!v || !obj || json_object_set_new(obj, key, v) < 0)
		b->oom = true;
}

static json_t *ju64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* A name from a trace, at most len bytes: valid UTF-8 always, controls and stray bytes as \xNN. */
static json_t *jname(const char *s, size_t len)
{
	const size_t n = strnlen(s, len);
	const size_t need = rp_text_escape_utf8(NULL, 0, s, n) + 1;
	char *const buf = malloc(need);
	if (!buf)
		return NULL;
	rp_text_escape_utf8(buf, need, s, n);
	json_t *const v = json_string(buf);
	free(buf);
	return v;
}

/* {"name": count} for the op kinds with a non-zero count. */
static json_t *by_op(jb *b, const uint64_t *n)
{
	json_t *const o = json_object();
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		if (n[i])
			jput(b, o, rp_op_name(i), ju64(n[i]));
	return o;
}

static json_t *sizes(jb *b, const uint64_t *hist)
{
	json_t *const a = json_array();
	for (unsigned i = 0; i < RP_SIZE_BUCKETS; i++) {
		if (!hist[i])
			continue;
		json_t *const e = json_object();
		jput(b, e, "min", ju64(rp_summary_size_min(i)));
		jput(b, e, "count", ju64(hist[i]));
		if (!e || json_array_append_new(a, e) < 0)
			b->oom = true;
	}
	return a;
}

int rp__cli_stat_json(const rp_summary *s, const rp_trace_meta *meta, FILE *f)
{
	rp_summary_view v;
	rp_summary_get(s, &v);
	jb b = { .oom = false };
	json_t *const d = json_object();
	jput(&b, d, "source", json_string(rp_source_name(meta->source)));
	jput(&b, d, "input", meta->source_name[0] ? jname(meta->source_name, RP_META_NAME_MAX) : json_null());
	jput(&b, d, "host", meta->host[0] ? jname(meta->host, RP_META_HOST_MAX) : json_null());
	jput(&b, d, "anonymized", json_boolean(meta->flags & RP_META_ANONYMIZED));
	jput(&b, d, "timed", json_boolean(meta->flags & RP_META_TIMED));
	jput(&b, d, "truncated", json_boolean(meta->flags & RP_META_TRUNCATED));
	jput(&b, d, "ops", ju64(v.ops));
	jput(&b, d, "clients", ju64(v.clients));
	jput(&b, d, "duration_s", json_real(isfinite(v.duration_s) ? v.duration_s : 0));
	jput(&b, d, "files", ju64(v.files));
	jput(&b, d, "bytes_read", ju64(v.bytes_read));
	jput(&b, d, "bytes_written", ju64(v.bytes_written));
	jput(&b, d, "no_reply", ju64(v.no_reply));
	jput(&b, d, "op_counts", by_op(&b, v.count));
	jput(&b, d, "op_failures", by_op(&b, v.failed));
	jput(&b, d, "deleted_at_close", by_op(&b, v.at_close));
	jput(&b, d, "read_sizes", sizes(&b, v.read_sizes));
	jput(&b, d, "write_sizes", sizes(&b, v.write_sizes));
	int rc = 0;
	if (!d || b.oom) {
		rp__cli_err("stat", "out of memory");
		rc = 1;
	} else if ((json_dumpf(d, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 || fputc('\n', f) == EOF) &&
		   !ferror(f)) {
		rp__cli_err("stat", "writing the JSON failed");
		rc = 1;
	}
	/* A write error stays on f: main's check of standard output at exit names it (errno). */
	json_decref(d);
	return rc;
}
