/* reprise replay --mpi: the trace opened, run and reported as replay does, over the run protocol of replay/mpi_run.h (docs/mpi.md). */
#include "cli/cmd_replay_mpi.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/input.h"
#include "cli/output.h"
#include "replay/merge.h"
#include "replay/mpi_run.h"
#include "results/stat_json.h"

typedef struct mpi_cli {
	rp_mpi_run *run;
	const rp_cli_mpi_args *a;
	int rank, size;
	char cmd[40]; /* "replay", or "replay (rank N)": every message says which rank */
	const rp_cli_in *in; /* for messages naming the spool (rp__cli_in_rename) */
} mpi_cli;

static void on_say(void *ctx, const char *msg)
{
	rp__cli_err(((const mpi_cli *)ctx)->cmd, "%s", msg);
}

static void on_fix_msg(void *ctx, char *msg, size_t size)
{
	const mpi_cli *const m = ctx;
	if (m->in)
		rp__cli_in_rename(m->in, msg, size);
}

/* The merged results as replay --json writes them, with the ranks added. */
static int write_json(const mpi_cli *m, const rp_replay_merge *mg, double merge_s, FILE *f)
{
	const rp_replay_results *const res = rp_replay_merge_results(mg);
	char *buf = NULL;
	size_t len = 0;
	FILE *const ms = open_memstream(&buf, &len);
	if (!ms)
		return RP_E_NOMEM;
	int rc = rp_replay_write_json(res, &m->a->prov->p, ms);
	fclose(ms);
	json_error_t jerr;
	json_t *const d = rc == 0 ? json_loadb(buf, len, 0, &jerr) : NULL;
	free(buf);
	if (!d)
		return rc < 0 ? rc : RP_E_NOMEM;
	bool oom = json_object_set_new(d, "ranks", json_integer(m->size)) < 0;
	json_t *const mpi = json_object(), *const ranks = json_array();
	const rp_mpi_rank *const rk = rp_mpi_run_ranks(m->run);
	uint64_t total = 0;
	for (int r = 0; r < m->size; r++) {
		const rp_replay_results *const p = rp_replay_merge_part(mg, (size_t)r);
		const uint32_t base = (uint32_t)((uint64_t)m->a->ro->clones * (uint32_t)r / (uint32_t)m->size);
		json_t *const j = json_object(), *const ops = json_object();
		total += rk[r].result_bytes;
		for (unsigned op = 0; op < RP_OP__COUNT; op++)
			if (p->op[op].count)
				oom |= json_object_set_new(ops, rp_op_name((uint16_t)op), json_integer((json_int_t)p->op[op].count)) < 0;
		oom |= !j || !ops;
		oom |= json_object_set_new(j, "rank", json_integer(r)) < 0;
		oom |= json_object_set_new(j, "host", json_stringn(rk[r].host, strnlen(rk[r].host, sizeof(rk[r].host)))) < 0;
		oom |= json_object_set_new(j, "first_copy", m->a->ro->clones ? json_integer(base + 1) : json_null()) < 0;
		oom |= json_object_set_new(j, "clients", json_integer(p->clients)) < 0;
		oom |= json_object_set_new(j, "stop", json_string(rp_stop_name(p->stop))) < 0;
		oom |= json_object_set_new(j, "error", p->error[0] ? json_string(p->error) : json_null()) < 0;
		oom |= json_object_set_new(j, "elapsed_s", json_real(p->elapsed_s)) < 0;
		oom |= json_object_set_new(j, "ops", json_integer((json_int_t)p->ops)) < 0;
		oom |= json_object_set_new(j, "bytes", json_integer((json_int_t)p->bytes)) < 0;
		oom |= json_object_set_new(j, "ops_per_sec", json_real(p->ops_per_sec)) < 0;
		oom |= json_object_set_new(j, "warmup_ops", json_integer((json_int_t)p->warmup_ops)) < 0;
		oom |= json_object_set_new(j, "clock_offset_us", json_real((double)rk[r].offset_ns / 1e3)) < 0;
		oom |= json_object_set_new(j, "clock_rtt_us", json_real((double)rk[r].rtt_ns / 1e3)) < 0;
		oom |= json_object_set_new(j, "result_bytes", json_integer((json_int_t)rk[r].result_bytes)) < 0;
		oom |= json_object_set_new(j, "op", ops) < 0;
		oom |= json_array_append_new(ranks, j) < 0;
	}
	oom |= !mpi || !ranks;
	oom |= json_object_set_new(mpi, "ranks", json_integer(m->size)) < 0;
	oom |= json_object_set_new(mpi, "start_epoch_ns", json_integer(rp_mpi_run_start_ns(m->run))) < 0;
	oom |= json_object_set_new(mpi, "clock_rounds", json_integer(RP_MPI_CLOCK_ROUNDS)) < 0;
	oom |= json_object_set_new(mpi, "gather_bytes", json_integer((json_int_t)total)) < 0;
	oom |= json_object_set_new(mpi, "merge_seconds", json_real(merge_s)) < 0;
	oom |= json_object_set_new(mpi, "per_rank", ranks) < 0;
	oom |= json_object_set_new(d, "mpi", mpi) < 0;
	char eb[128];
	if (rp__res_json_dump(d, oom, f, eb, sizeof(eb))) {
		rp__cli_err("replay", "%s", eb);
		return RP_E_IO;
	}
	return 0;
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
	if (a->json) {
		const int jrc = write_json(m, mg, merge_s, json->f);
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
			rp__cli_in_close(in);
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
			rp__cli_in_close(in);
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
	if (rp_mpi_run_create(&m.run, &mo, errbuf) < 0) {
		rp__cli_err("replay", "--mpi: %s", errbuf);
		return 1;
	}
	m.rank = rp_mpi_run_rank(m.run);
	m.size = rp_mpi_run_size(m.run);
	if (m.rank)
		snprintf(m.cmd, sizeof(m.cmd), "replay (rank %d)", m.rank);
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
	const int rc = rp__cli_drive(r, m.cmd, a->r->quiet || m.rank != 0, &interrupted, NULL, &in);
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
	rp__cli_in_close(&in);
	rp_mpi_run_destroy(m.run);
	return status;
}
