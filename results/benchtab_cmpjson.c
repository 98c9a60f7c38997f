/* The comparison as JSON (reprise-compare/1, docs/compare.md): the set, its ranks and spreads, written with jansson. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/benchtab.h"
#include "formats/json_build.h"
#include "formats/op.h"

/* An input's file name is escaped from at most this many bytes (as benchtab_json.c names fields). */
#define PATH_TEXT_MAX 512

static json_t *spread_json(rp_jb *b, const rp_bt_spread *sp, const rp_bt_rank *k, size_t i)
{
	if (!sp[i].n)
		return json_null();
	json_t *const o = json_object();
	bool is_best;
	char mark[48];
	rp__bt_mark(mark, sizeof(mark), k, sp, i, &is_best);
	const bool cmp = k->have > 1 && !isnan(k->best);
	rp_jb_put(b, o, "runs", json_integer((json_int_t)sp[i].n));
	rp_jb_put(b, o, "min", json_real(sp[i].min));
	rp_jb_put(b, o, "median", json_real(sp[i].median));
	rp_jb_put(b, o, "max", json_real(sp[i].max));
	rp_jb_put(b, o, "best", json_boolean(is_best));
	rp_jb_put(b, o, "ratio", cmp && !k->absolute && sp[i].median >= 0 ? json_real(sp[i].median / k->best) : json_null());
	rp_jb_put(b, o, "difference", cmp && k->absolute ? json_real(sp[i].median - k->best) : json_null());
	/* why no target is marked best in this row (null: one is) */
	rp_jb_put(b, o, "unranked", k->why == RP_BT_WIN ? json_null() : json_string(rp__bt_why_text(k->why)));
	return o;
}

#define ROW(m, label, key) { key, m },
static const struct {
	const char *key;
	rp_bt_metric m;
} json_metrics[] = { RP_BT_ROWS(ROW) };
#undef ROW

static json_t *build_compare(rp_jb *b, const rp_bt_set *s, const char *const *inputs, size_t ninputs)
{
	json_t *const d = json_object(), *const in = json_array(), *const targets = json_array();
	rp_jb_put(b, d, "schema", json_string("reprise-compare/1"));
	for (size_t i = 0; i < ninputs; i++) {
		/* a file name is any bytes: escaped as replay's JSON escapes names, so the document is UTF-8 */
		char esc[4 * PATH_TEXT_MAX + 1];
		rp_text_escape_utf8(esc, sizeof(esc), inputs[i], strlen(inputs[i]));
		rp_jb_add(b, in, json_string(esc));
	}
	rp_jb_put(b, d, "inputs", in);
	rp_jb_put(b, d, "spread_limit", json_real(s->spread_limit));
	json_t *tj[RP_BT_TARGETS_MAX];
	for (size_t i = 0; i < s->ntargets; i++) {
		const rp_bt_target *const t = &s->targets[i];
		size_t disc = 0, failed = 0;
		for (size_t j = 0; j < t->nruns; j++) {
			failed += t->runs[j].failed;
			disc += t->runs[j].discarded && !t->runs[j].failed;
		}
		tj[i] = json_object();
		rp_jb_put(b, tj[i], "target", json_string(t->target));
		rp_jb_put(b, tj[i], "fs_type", json_string(t->fs_type));
		rp_jb_put(b, tj[i], "mount_options", json_string(t->mount_options));
		char label[RP_BT_LABEL_MAX];
		rp__bt_label(label, sizeof(label), s, i);
		rp_jb_put(b, tj[i], "label", json_string(label));
		size_t out;
		const double spr = rp__bt_run_spread(t, s->spread_limit, &out);
		rp_jb_put(b, tj[i], "run_spread", spr > 0 ? json_real(spr) : json_null());
		rp_jb_put(b, tj[i], "runs_disagree", json_boolean(spr > s->spread_limit));
		rp_jb_put(b, tj[i], "runs", json_integer((json_int_t)(t->nruns - disc - failed)));
		rp_jb_put(b, tj[i], "discarded", json_integer((json_int_t)disc));
		rp_jb_put(b, tj[i], "failed", json_integer((json_int_t)failed));
		rp_jb_put(b, tj[i], "metrics", json_object());
		rp_jb_put(b, tj[i], "ops", json_object());
		if (json_array_append(targets, tj[i]) < 0)
			b->failed = true;
		json_decref(tj[i]);
	}
	rp_jb_put(b, d, "targets", targets);
	rp_bt_spread sp[RP_BT_TARGETS_MAX];
	for (size_t k = 0; k < sizeof(json_metrics) / sizeof(json_metrics[0]); k++) {
		const rp_bt_rank rk = rp__bt_row(s, json_metrics[k].m, NULL, sp);
		for (size_t i = 0; i < s->ntargets; i++)
			rp_jb_put(b, json_object_get(tj[i], "metrics"), json_metrics[k].key,
				  rk.have ? spread_json(b, sp, &rk, i) : json_null());
	}
	size_t nops = 0;
	const char **const names = rp__bt_op_names(s, &nops);
	static const char *const qk[] = { "p50_ms", "p99_ms", "max_ms" };
	static const rp_bt_metric qm[] = { RP_BT_OP_P50, RP_BT_OP_P99, RP_BT_OP_MAX };
	for (size_t n = 0; n < nops; n++)
		for (size_t i = 0; i < s->ntargets; i++) {
			json_t *const oj = json_object();
			uint64_t count = 0;
			for (size_t j = 0; j < s->targets[i].nruns; j++) {
				const rp_bt_run *const r = &s->targets[i].runs[j];
				for (size_t x = 0; x < r->nops && rp__bt_counted(r); x++)
					if (strcmp(r->ops[x].name, names[n]) == 0)
						count += r->ops[x].count;
			}
			rp_jb_put(b, oj, "count", json_integer((json_int_t)count));
			rp_jb_put(b, json_object_get(tj[i], "ops"), names[n], oj);
		}
	for (size_t n = 0; n < nops; n++)
		for (int q = 0; q < 3; q++) {
			const rp_bt_rank rk = rp__bt_row(s, qm[q], names[n], sp);
			for (size_t i = 0; i < s->ntargets; i++)
				rp_jb_put(b, json_object_get(json_object_get(tj[i], "ops"), names[n]), qk[q],
					  rk.have ? spread_json(b, sp, &rk, i) : json_null());
		}
	free(names);
	return d;
}

int rp__bt_json(const rp_bt_set *s, const char *const *inputs, size_t ninputs, FILE *f)
{
	rp_jb b = { false };
	json_t *const d = build_compare(&b, s, inputs, ninputs);
	int rc = 0;
	if (b.failed || !d) {
		errno = ENOMEM;
		rc = -1;
	} else if (json_dumpf(d, f, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) < 0 || fputc('\n', f) == EOF || ferror(f)) {
		rc = -1;
	}
	json_decref(d);
	return rc;
}
