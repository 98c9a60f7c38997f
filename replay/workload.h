/* Inside libreprise-replay: what a workload is (replay.h keeps it opaque). */
#ifndef REPRISE_REPLAY_WORKLOAD_H
#define REPRISE_REPLAY_WORKLOAD_H

#include "replay/replay.h"

struct rp_workload {
	/* A source over one client's ops, or every client's when all. */
	int (*open)(rp_workload *w, bool all, uint32_t client, rp_op_source **out, char *errbuf);
	void (*destroy)(rp_workload *w);
	rp_trace_meta meta;
};

#endif
