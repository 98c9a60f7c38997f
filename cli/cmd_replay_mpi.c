/* reprise replay --mpi: the trace opened, run and reported as replay does, over the run protocol of replay/mpi_run.h (docs/mpi.md). */
#include "cli/cmd_replay_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/input.h"
#include "cli/output.h"
#include "replay/merge.h"
#include "replay/mpi_run.h"

typedef struct mpi_cli {
	rp_mpi_run *run;
	const rp_cli_mpi_args *a;
	int rank, size;
	char cmd[40]; /* "replay", or "replay (rank N)": every message says which rank */
	const rp_cli_in *in; /* for messages naming the spool (rp_conv_input_rename) */
} mpi_cli;

static void on_say(void *ctx, const char *msg)
{
	rp__cli_err(((const mpi_cli *)ctx)->cmd, "%s", msg);
}

static void on_fix_msg(void *ctx, char *msg, size_t size)
{
	const mpi_cli *const m = ctx;
	if (m->in)
		rp_conv_input_rename(m->in, msg, size);
}

/* Rank 0: merge the shares, print the table, write the JSON; the run's exit status. */
static int report(const mpi_cli *m, int run_status, bool interrupted, rp_outfile *json)
{
	const rp_cli_mpi_args *const a = m->a;
	char errbuf[RP_ERRBUF_SIZE];
	rp_replay_merge *mg = NULL;
	double merge_s = 0;
	if (rp_mpi_run_merge(m->run, &mg, &merge_s, errbuf) < 0) {
		rp__cli_err("replay", "%s", errbuf);
		return 1;
	}
	const rp_mpi_rank *const rk = rp_mpi_run_ranks(m->run);
	const rp_replay_results *const res = rp_replay_merge_results(mg);
	FILE *const out = json->std ? stderr : stdout;
	rp_replay_write_table(res, out);
	rp_mpi_run_write_ranks(m->run, mg, out);
	if (a->ro->on_mismatch != RP_MISMATCH_SKIP)
		rp__cli_warn_samples("replay", res);
	for (int r = 0; r < m->size; r++) {
		const rp_replay_results *const p = rp_replay_merge_part(mg, (size_t)r);
		if (p->error[0])
			rp__cli_err("replay", "rank %d (%.*s): %s", r, (int)sizeof(rk[r].host), rk[r].host, p->error);
	}
	int status = run_status || res->stop == RP_STOP_MISMATCH || res->stop == RP_STOP_ERROR ? 1
		 : interrupted ? 130 : 0;
	if (status == 0 && a->fail_on_mismatch && res->mismatches) {
		rp__cli_err("replay", "%llu mismatch%s (--fail-on-mismatch)", (unsigned long long)res->mismatches,
			    res->mismatches == 1 ? "" : "es");
		status = 1;
	}
	if (rp__cli_warn_timing("replay", res, false) && a->strict_timing && status == 0) {
		rp__cli_err("replay", "behind the recorded timing (--strict-timing)");
		status = 1;
	}
	if (a->json) {
		const int jrc = rp_mpi_run_write_json(m->run, mg, merge_s, &a->prov->p, json->f, errbuf);
		if (jrc == RP_E_IO)
			rp__cli_err("replay", "%s", errbuf);
		if (jrc < 0) {
			rp__cli_err("replay", "%s: %s", json->std ? "standard output" : a->json, rp_strerror(jrc));
			status = 1;
		} else if (rp__cli_out_commit(json, "replay") && status == 0) {
			status = 1;
		}
	}
	rp_replay_merge_destroy(mg);
	return status;
}

/*
 * Ranks but 0, after the trace was shared: the unlinked file it came in as
 * the input, or (over RP_MPI_TRACE_MAX) the path opened here.
 */
static void take_trace(mpi_cli *m, const rp_mpi_trace *t, rp_cli_in *in)
{
	const rp_cli_mpi_args *const a = m->a;
	if (t->mode == RP_MPI_TRACE_PATH) {
		int st = rp__cli_in_open(in, m->cmd, a->trace);
		if (!st && (st = rp__cli_in_convert(in, m->cmd, a->r->lenient)) != 0)
			rp_conv_input_close(in);
		if (st)
			rp_mpi_run_fail(m->run, st, "cannot open %s here (over %llu MiB, every rank opens it)", a->trace,
					RP_MPI_TRACE_MAX >> 20);
	} else if (t->fd >= 0) {
		memset(in, 0, sizeof(*in));
		in->fd = t->fd;
		snprintf(in->fdpath, sizeof(in->fdpath), "/dev/fd/%d", t->fd);
		in->path = in->fdpath;
		in->name = a->trace;
		in->bytes = t->size;
	}
}

/* The trace to every rank: rank 0 opens it (spooling or converting as replay does); the run protocol shares it. */
static int share_trace(mpi_cli *m, rp_cli_in *in)
{
	const rp_cli_mpi_args *const a = m->a;
	int st = 0;
	if (m->rank == 0) {
		st = rp__cli_in_open(in, "replay", a->trace);
		if (!st && (st = rp__cli_in_convert(in, "replay", a->r->lenient)) != 0)
			rp_conv_input_close(in);
	}
	rp_mpi_trace t;
	st = rp_mpi_run_share_trace(m->run, st, m->rank == 0 && !st ? in->path : NULL, m->rank == 0 ? in->name : a->trace, &t);
	if (st)
		return st;
	if (m->rank != 0)
		take_trace(m, &t, in);
	return rp_mpi_run_check(m->run, "trace");
}

int rp__cli_replay_mpi(const rp_cli_mpi_args *a)
{
	char errbuf[RP_ERRBUF_SIZE];
	rp_cli_in in = { .fd = -1 };
	mpi_cli m = { .a = a, .in = &in };
	snprintf(m.cmd, sizeof(m.cmd), "replay");
	const rp_mpi_run_opts mo = { .timeout_s = a->timeout_s, .say = on_say, .fix_msg = on_fix_msg, .ctx = &m };
	if ((a->processes ? rp_mpi_run_create_local(&m.run, a->processes, &mo, errbuf)
			  : rp_mpi_run_create(&m.run, &mo, errbuf)) < 0) {
		rp__cli_err("replay", "%s: %s", a->processes ? "--processes" : "--mpi", errbuf);
		return 1;
	}
	m.rank = rp_mpi_run_rank(m.run);
	m.size = rp_mpi_run_size(m.run);
	if (m.rank)
		snprintf(m.cmd, sizeof(m.cmd), "replay (%s %d)", a->processes ? "process" : "rank", m.rank);
	rp_workload *full = NULL, *w = NULL;
	rp_replay *r = NULL;
	rp_outfile json = { .f = NULL };
	int status = rp_mpi_run_check_options(m.run, a->argc, a->argv, a->ro);
	if (status)
		goto out;
	if ((status = share_trace(&m, &in)) != 0)
		goto out;
	/* Rank 0 writes the JSON: created now, so a path that cannot be written fails before the run. */
	if (m.rank == 0 && a->json && rp__cli_out_open(&json, "replay", a->json))
		rp_mpi_run_fail(m.run, 1, "cannot create %s", a->json);
	if ((status = rp_mpi_run_setup(m.run, in.path, a->ro, a->r->lenient, &full, &w, &r)) != 0)
		goto out;
	if (m.rank == 0 && a->json)
		rp__cli_prov_collect(a->prov, in.name, in.path, a->ro->target);
	rp_mpi_run_start_together(m.run);
	bool interrupted = false;
	rp__cli_prov_cpu_begin(a->prov);
	const int rc = rp__cli_drive(r, m.cmd, a->r->quiet || m.rank != 0, &interrupted, NULL, &in, NULL);
	rp__cli_prov_cpu_end(a->prov);
	const int run_status = rp_mpi_run_gather(m.run, r, rc);
	if (m.rank == 0)
		status = report(&m, run_status, interrupted, &json);
	else
		status = rc < 0 ? 1 : interrupted ? 130 : 0;
out:
	if (m.rank == 0 && a->json)
		rp_outfile_abort(&json); /* no-op after a commit */
	rp_replay_destroy(r);
	rp_workload_destroy(w);
	rp_workload_destroy(full); /* after the subset over it */
	rp_conv_input_close(&in);
	rp_mpi_run_destroy(m.run);
	return status;
}
