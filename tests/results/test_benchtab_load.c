/*
 * Unit tests of compare's loader (results/benchtab_json.c): replay and bench
 * JSON into targets and runs, and every malformed input refused with the
 * file and the field named ("file: field: what"), as docs/compare.md,
 * "Errors and limits", promises.  The inputs are made here from the corpus's
 * replay result (tests/results/corpus_compare/replay_null.json) changed one
 * field at a time, so no process is spawned.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "results/benchtab.h"

/* The corpus's replay result: schema reprise-replay 2, a posix run on /tmp/a with 8 op kinds. */
static json_t *base(void)
{
	const char *const root = getenv("REPRISE_SOURCE_ROOT");
	assert_non_null(root);
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/results/corpus_compare/replay_null.json", root);
	json_error_t je;
	json_t *const d = json_load_file(path, 0, &je);
	if (!d)
		fail_msg("%s: %s", path, je.text);
	return d;
}

/* A bench file (reprise-bench/1) of ntargets targets "t0".. with nruns runs each, every result a copy of res. */
static json_t *bench_of(const json_t *res, size_t ntargets, size_t nruns)
{
	json_t *const targets = json_array();
	for (size_t i = 0; i < ntargets; i++) {
		json_t *const runs = json_array();
		for (size_t r = 0; r < nruns; r++)
			json_array_append_new(runs, json_pack("{s:I, s:b, s:b, s:n, s:n, s:n, s:o}", "run", (json_int_t)r + 1,
							      "discarded", r == 0, "failed", 0, "error",
							      "final_sync_ns", "dirty_bytes_at_end", "result",
							      json_deep_copy(res)));
		char name[16];
		snprintf(name, sizeof(name), "t%zu", i);
		json_array_append_new(targets, json_pack("{s:s, s:s, s:s, s:o, s:{}}", "target", name, "fs_type", "tmpfs",
							 "mount_options", "rw", "runs", runs, "summary"));
	}
	return json_pack("{s:s, s:{}, s:{}, s:[], s:o}", "schema", "reprise-bench/1", "trace", "options", "order",
			 "targets", targets);
}

/* Load buf (len bytes) as the file name into s: the loader's return; err holds its message. */
static int load_text(rp_bt_set *s, const char *name, const char *buf, size_t len, char *err, size_t errsize)
{
	err[0] = '\0';
	return rp__bt_load_buffer(s, name, buf, len, err, errsize);
}

/* Does err match the extended regular expression want (compare.sh's patterns)? */
static void assert_matches(const char *err, const char *want)
{
	regex_t re;
	assert_int_equal(regcomp(&re, want, REG_EXTENDED | REG_NOSUB), 0);
	const int rc = regexec(&re, err, 0, NULL, 0);
	regfree(&re);
	if (rc != 0)
		fail_msg("error \"%s\" does not match \"%s\"", err, want);
}

/* The text name (len bytes) is refused with an error matching want. */
static void refused_text(const char *name, const char *buf, size_t len, const char *want)
{
	rp_bt_set *const s = rp__bt_set_create();
	assert_non_null(s);
	char err[1024];
	if (load_text(s, name, buf, len, err, sizeof(err)) != -1)
		fail_msg("%s was accepted; wanted: %s", name, want);
	assert_matches(err, want);
	rp__bt_set_destroy(s);
}

/* d (consumed) written out as JSON, with the string "@X@" replaced by raw (a number jansson cannot hold), refused. */
static void refused_raw(const char *name, json_t *d, const char *raw, const char *want)
{
	char *const text = json_dumps(d, JSON_COMPACT);
	json_decref(d);
	assert_non_null(text);
	const char *const at = raw ? strstr(text, "\"@X@\"") : NULL;
	if (raw && !at)
		fail_msg("%s: no placeholder", name);
	char *buf = text;
	if (at) {
		const size_t pre = (size_t)(at - text), rawlen = strlen(raw), rest = strlen(at + 5);
		buf = malloc(pre + rawlen + rest + 1);
		assert_non_null(buf);
		memcpy(buf, text, pre);
		memcpy(buf + pre, raw, rawlen);
		memcpy(buf + pre + rawlen, at + 5, rest + 1);
	}
	refused_text(name, buf, strlen(buf), want);
	if (buf != text)
		free(buf);
	free(text);
}

static void refused(const char *name, json_t *d, const char *want)
{
	refused_raw(name, d, NULL, want);
}

static json_t *op_open(json_t *d)
{
	return json_object_get(json_object_get(d, "ops"), "open");
}

static void a_replay_file_is_one_run_of_its_target(void **state)
{
	(void)state;
	json_t *const d = base();
	char *const text = json_dumps(d, 0);
	rp_bt_set *const s = rp__bt_set_create();
	char err[1024];
	assert_int_equal(load_text(s, "a1.json", text, strlen(text), err, sizeof(err)), 0);
	assert_int_equal(s->ntargets, 1);
	assert_string_equal(s->targets[0].target, "/tmp/a");
	assert_string_equal(s->targets[0].fs_type, "ext2/3/4");
	assert_int_equal(s->targets[0].nruns, 1);
	const rp_bt_run *const r = &s->targets[0].runs[0];
	assert_int_equal(r->total_ops, 43);
	assert_int_equal(r->nops, 8);
	assert_int_equal(r->nseries, 1);
	assert_true(rp__bt_counted(r));
	/* A second file of the same target and fs type pools into the same column. */
	assert_int_equal(load_text(s, "a2.json", text, strlen(text), err, sizeof(err)), 0);
	assert_int_equal(s->ntargets, 1);
	assert_int_equal(s->targets[0].nruns, 2);
	rp__bt_set_destroy(s);
	free(text);
	json_decref(d);
}

static void a_bench_file_keeps_discarded_runs_apart(void **state)
{
	(void)state;
	json_t *const d = base();
	json_t *const b = bench_of(d, 2, 3);
	char *const text = json_dumps(b, 0);
	rp_bt_set *const s = rp__bt_set_create();
	char err[1024];
	assert_int_equal(load_text(s, "bench.json", text, strlen(text), err, sizeof(err)), 0);
	assert_int_equal(s->ntargets, 2);
	assert_int_equal(s->targets[1].nruns, 3);
	assert_true(s->targets[1].runs[0].discarded);
	const rp_bt_spread sp = rp__bt_spread(&s->targets[1], RP_BT_OPS_S, NULL);
	assert_int_equal(sp.n, 2);
	char cell[64];
	rp__bt_runs_text(cell, sizeof(cell), &s->targets[0]);
	assert_string_equal(cell, "2 (+1 discarded)");
	rp__bt_set_destroy(s);
	free(text);
	json_decref(b);
	json_decref(d);
}

static void text_that_is_not_a_result(void **state)
{
	(void)state;
	refused_text("text.json", "hello\n", 6, "^text\\.json: not JSON: line 1");
	refused_text("empty.json", "", 0, "^empty\\.json: not JSON");
	json_t *const d = base();
	char *const text = json_dumps(d, JSON_INDENT(2));
	json_decref(d);
	assert_true(strlen(text) > 2000);
	refused_text("cut.json", text, 2000, "^cut\\.json: not JSON: line [0-9]+, column [0-9]+");
	free(text);
	refused_text("array.json", "[1, 2]", 6, "^array\\.json: expected an object");
	const char dup[] = "{\"schema\": \"reprise-replay\", \"schema\": \"reprise-replay\"}";
	refused_text("dup.json", dup, sizeof(dup) - 1, "^dup\\.json: not JSON: .*duplicate");
}

static void schemas_it_does_not_read(void **state)
{
	(void)state;
	json_t *d = base();
	json_object_set_new(d, "schema", json_string("reprise-stat"));
	refused("schema.json", d, "^schema\\.json: schema: \"reprise-stat\" is neither");
	d = base();
	json_object_set_new(d, "schema_version", json_integer(3));
	refused("version.json", d, "^version\\.json: schema_version: 3 is not 2");
	d = base();
	json_object_del(d, "schema");
	refused("noschema.json", d, "^noschema\\.json: schema: missing");
	d = base();
	json_object_set_new(json_object_get(d, "histogram_layout"), "sub_bits", json_integer(8));
	refused("layout.json", d, "^layout\\.json: histogram_layout: sub_bits 8");
}

static void missing_and_wrong_typed_fields(void **state)
{
	(void)state;
	json_t *d = base();
	json_object_del(op_open(d), "p99_us");
	refused("miss.json", d, "^miss\\.json: ops\\.open\\.p99_us: missing");
	d = base();
	json_object_set_new(d, "total_ops", json_string("12"));
	refused("type.json", d, "^type\\.json: total_ops: expected an integer, not a string");
}

static void numbers_out_of_range(void **state)
{
	(void)state;
	json_t *d = base();
	json_object_set_new(d, "mb_per_sec", json_integer(-1));
	refused("neg.json", d, "^neg\\.json: mb_per_sec: -1 is out of range");
	d = base();
	json_object_set_new(d, "mb_per_sec", json_real(1e300));
	refused("huge.json", d, "^huge\\.json: mb_per_sec: 1e\\+300 is out of range");
	d = base();
	json_object_set_new(d, "bytes", json_integer((json_int_t)1 << 62));
	refused("hugecount.json", d, "^hugecount\\.json: bytes: [0-9]+ is out of range \\(0 to 2\\^53\\)");
	d = base();
	json_object_set_new(d, "total_ops", json_string("@X@"));
	refused_raw("bigint.json", d, "123456789012345678901234567890", "^bigint\\.json: not JSON: .*(too big|overflow)");
	d = base();
	json_object_set_new(d, "elapsed_s", json_string("@X@"));
	refused_raw("bigreal.json", d, "1e999", "^bigreal\\.json: not JSON: .*overflow");
}

static void histograms_that_do_not_add_up(void **state)
{
	(void)state;
	json_t *d = base();
	json_t *h = json_object_get(op_open(d), "histogram");
	json_object_set_new(h, "count", json_integer(json_integer_value(json_object_get(h, "count")) + 1));
	refused("hist.json", d, "^hist\\.json: ops\\.open\\.histogram: the buckets hold");
	d = base();
	h = json_object_get(op_open(d), "histogram");
	json_array_set_new(json_object_get(h, "buckets"), 0, json_pack("[i, s]", 1, "x"));
	refused("bucket.json", d, "^bucket\\.json: ops\\.open\\.histogram\\.buckets\\[0\\]: expected \\[lo_ns, count\\]");
}

static json_t *second(long t)
{
	return json_pack("{s:i, s:i, s:i, s:b}", "t", t, "ops", 1, "bytes", 1, "warmup", 0);
}

static void series_out_of_order_or_too_long(void **state)
{
	(void)state;
	json_t *d = base();
	json_object_set_new(d, "series", json_pack("[o, o]", second(1), second(0)));
	refused("series.json", d, "^series\\.json: series\\[0\\]: t 1 is not 0");
	d = base();
	/* a second far ahead: 24 MB of series from 60 bytes of input */
	json_object_set_new(d, "series", json_pack("[o]", second(999999)));
	refused("gap.json", d, "^gap\\.json: series\\[0\\]: t 999999 is not 0");
	/*
	 * One second more than RP_BT_SERIES_MAX, written as text: the length is
	 * checked before any second is read, so each is a bare 0 (2 MB to parse,
	 * where a million seconds written out would be 47 MB).
	 */
	d = base();
	json_object_set_new(d, "series", json_string("@X@"));
	const size_t n = RP_BT_SERIES_MAX + 1;
	char *const raw = malloc(2 * n + 2);
	assert_non_null(raw);
	size_t len = 0;
	raw[len++] = '[';
	for (size_t i = 0; i < n; i++) {
		if (i)
			raw[len++] = ',';
		raw[len++] = '0';
	}
	raw[len++] = ']';
	raw[len] = '\0';
	refused_raw("longseries.json", d, raw, "^longseries\\.json: series: more than 1000000 seconds");
	free(raw);
}

static void names_and_kinds_past_their_limits(void **state)
{
	(void)state;
	json_t *d = base();
	char name[5001];
	memset(name, 'x', 5000);
	name[5000] = '\0';
	json_object_set(json_object_get(d, "ops"), name, op_open(d));
	refused("opname.json", d, "^opname\\.json: ops\\.x+: an op name must be 1 to 4096 bytes");

	/* Three runs of 60 op kinds each, all different: 180 kinds over the runs, past RP_BT_OPS_MAX. */
	d = base();
	json_t *const b = bench_of(d, 1, 3);
	json_t *const runs = json_object_get(json_array_get(json_object_get(b, "targets"), 0), "runs");
	for (size_t r = 0; r < 3; r++) {
		json_t *const ops = json_object();
		for (size_t k = 0; k < 60; k++) {
			char op[32];
			snprintf(op, sizeof(op), "op%zu_%zu", r, k);
			json_object_set(ops, op, op_open(d));
		}
		json_object_set_new(json_object_get(json_array_get(runs, r), "result"), "ops", ops);
	}
	json_decref(d);
	refused("kinds.json", b, "^kinds\\.json: more than 128 distinct op names");
}

/* A bench file of two targets of three runs, changed by what the caller does to it. */
static json_t *bench(void)
{
	json_t *const d = base();
	json_t *const b = bench_of(d, 2, 3);
	json_decref(d);
	return b;
}

static json_t *bench_run(json_t *b, size_t t, size_t r)
{
	return json_array_get(json_object_get(json_array_get(json_object_get(b, "targets"), t), "runs"), r);
}

static void bench_files_name_the_run(void **state)
{
	(void)state;
	json_t *b = bench();
	json_object_del(json_object_get(bench_run(b, 1, 2), "result"), "ops");
	refused("bnoops.json", b, "^bnoops\\.json: targets\\[1\\]\\.runs\\[2\\]\\.result: ops: missing");
	b = bench();
	json_object_set_new(bench_run(b, 0, 0), "discarded", json_string("yes"));
	refused("bdisc.json", b, "^bdisc\\.json: targets\\[0\\]\\.runs\\[0\\]\\.discarded: expected a boolean, not a string");
	json_t *const d = base();
	b = bench_of(d, 33, 1);
	json_decref(d);
	refused("bmany.json", b, "^bmany\\.json: targets: more than 32 targets");
	b = bench();
	json_object_del(bench_run(b, 0, 1), "result");
	refused("bnores.json", b, "^bnores\\.json: targets\\[0\\]\\.runs\\[1\\]\\.result: missing");
}

static void targets_over_files_past_the_limit(void **state)
{
	(void)state;
	rp_bt_set *const s = rp__bt_set_create();
	json_t *const d = base();
	json_t *const target = json_object_get(json_object_get(d, "provenance"), "target");
	char err[1024];
	for (unsigned i = 1; i <= RP_BT_TARGETS_MAX + 1; i++) {
		char path[32], name[32];
		snprintf(path, sizeof(path), "t%u", i);
		snprintf(name, sizeof(name), "many%u.json", i);
		json_object_set_new(target, "path", json_string(path));
		char *const text = json_dumps(d, JSON_COMPACT);
		const int rc = load_text(s, name, text, strlen(text), err, sizeof(err));
		free(text);
		if (i <= RP_BT_TARGETS_MAX) {
			assert_int_equal(rc, 0);
		} else {
			assert_int_equal(rc, -1);
			assert_matches(err, "^many33\\.json: more than 32 targets");
		}
	}
	assert_int_equal(s->ntargets, RP_BT_TARGETS_MAX);
	json_decref(d);
	rp__bt_set_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_replay_file_is_one_run_of_its_target),
		cmocka_unit_test(a_bench_file_keeps_discarded_runs_apart),
		cmocka_unit_test(text_that_is_not_a_result),
		cmocka_unit_test(schemas_it_does_not_read),
		cmocka_unit_test(missing_and_wrong_typed_fields),
		cmocka_unit_test(numbers_out_of_range),
		cmocka_unit_test(histograms_that_do_not_add_up),
		cmocka_unit_test(series_out_of_order_or_too_long),
		cmocka_unit_test(names_and_kinds_past_their_limits),
		cmocka_unit_test(bench_files_name_the_run),
		cmocka_unit_test(targets_over_files_past_the_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
