/* `reprise stat`'s JSON (jansson): the summary of a trace as a document, and the names in it. */
#ifndef REPRISE_RESULTS_STAT_JSON_H
#define REPRISE_RESULTS_STAT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "formats/sink.h"
#include "formats/plan.h"
#include "formats/summary.h"
#include "formats/timeline.h"

/*
 * The summary as JSON (docs/stat-json.md), valid UTF-8 always; plan, what
 * replay's prepare would create, may be NULL; timeline: --timeline's
 * intervals, NULL without.  0 (a write error stays on f, for the caller to
 * report), or -1 with why in err.
 */
int rp__res_stat_json(const rp_summary *s, const rp_trace_meta *meta, const rp_plan *plan, const rp_timeline *timeline,
		      FILE *f, char *err, size_t errsize);
/* The same document as an object (the caller owns it; `stat --diff --json` holds two); *oom when incomplete. */
json_t *rp__res_stat_object(const rp_summary *s, const rp_trace_meta *meta, const rp_plan *plan,
			    const rp_timeline *timeline, bool *oom);
/* A name from a trace or the command line, at most len bytes, as a JSON string: valid UTF-8 always, controls and stray bytes as \xNN (as replay's report writes names); NULL without memory. */
json_t *rp__res_json_name(const char *s, size_t len);
/* Write d indented and decref it; returns as rp__res_stat_json does (oom: d is incomplete, nothing is written). */
int rp__res_json_dump(json_t *d, bool oom, FILE *f, char *err, size_t errsize);

#endif
