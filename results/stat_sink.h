/* reprise stat's sink: each op into the summary, the prepare plan and (given a step) the timeline; the metadata kept. */
#ifndef REPRISE_RESULTS_STAT_SINK_H
#define REPRISE_RESULTS_STAT_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/plan.h"
#include "formats/sink.h"
#include "formats/summary.h"
#include "formats/timeline.h"
#include "results/fidelity.h"

typedef struct rp_stat_sink {
	rp_sink base;            /* what a producer pumps into */
	rp_summary *sum;
	rp_plan_sink *plan_sink; /* what replay's prepare would create (formats/plan.h), fed the same ops */
	rp_timeline *timeline;   /* NULL without a step */
	bool timeline_full;      /* an op fell past its last step (the pump failed RP_E_LIMIT): the step is too short */
	rp_fid *fid;             /* the closed loop's measures (results/fidelity.h); NULL unless asked for */
	rp_trace_meta meta;
	rp_plan plan;            /* after rp_stat_sink_plan */
} rp_stat_sink;

/* Ready to be pumped into; a timeline of timeline_step_ns steps (0: none).  RP_OK or RP_E_NOMEM (fini frees). */
int rp_stat_sink_init(rp_stat_sink *s, uint64_t timeline_step_ns);
/* After init, before the pump: also collect the closed loop's measures (stat --diff).  RP_OK or RP_E_NOMEM. */
int rp_stat_sink_fidelity(rp_stat_sink *s);
/* After the pump: the plan into s->plan.  RP_OK, or an rp error with errbuf. */
int rp_stat_sink_plan(rp_stat_sink *s, char *errbuf);
void rp_stat_sink_fini(rp_stat_sink *s);

#endif
