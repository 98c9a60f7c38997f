/* The replay engine alone: ops/s of the null backend over a trace held in memory (no reader cost), one at a time or in a window. */
#include <stdio.h>
#include <stdlib.h>

#include "formats/reader.h"
#include "formats/sink.h"
#include "replay/replay.h"

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s TRACE SECONDS [MAX_INFLIGHT]\n", argv[0]);
		return 2;
	}
	char eb[RP_ERRBUF_SIZE];
	rp_reader *rd;
	rp_memsink ms;
	if (rp_memsink_init(&ms) < 0 || rp_reader_open(&rd, argv[1], &(rp_read_opts){ 0 }, eb) < 0 ||
	    rp_reader_pump(rd, &ms.base, eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		return 1;
	}
	rp_workload *w;
	rp_replay *r;
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/";
	o.backend = "null";
	o.duration_s = atof(argv[2]);
	o.warmup_s = 0.5;
	o.max_inflight = argc == 4 ? (uint32_t)atoi(argv[3]) : 1; /* > 1: through the in-flight window */
	o.no_prepare = true;
	o.on_mismatch = RP_MISMATCH_SKIP;
	if (rp_workload_open_mem(&w, ms.ops, ms.n_ops, &ms.meta, rp_memsink_string, &ms, eb) < 0 ||
	    rp_replay_create(&r, &o, w, eb) < 0 || rp_replay_run(r, eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		return 1;
	}
	printf("%.0f\n", rp_replay_get_results(r)->ops_per_sec);
	rp_replay_destroy(r);
	rp_workload_destroy(w);
	rp_reader_close(rd);
	rp_memsink_fini(&ms);
	return 0;
}
