/* replay --mpi's JSON: the merged results as replay --json writes them, with the ranks added (docs/mpi.md). */
#include "replay/mpi_run.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"

/* Dumped as every document of the CLI is: two-space indent, 15 significant digits, a final newline. */
static int dump(json_t *d, bool oom, FILE *f, char *errbuf)
{
	int rc = RP_OK;
	if (!d || oom)
		rc = rp_fail(errbuf, RP_E_IO, "out of memory");
	else if ((json_dumpf(d, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 || fputc('\n', f) == EOF) && !ferror(f))
		rc = rp_fail(errbuf, RP_E_IO, "writing the JSON failed");
	/* A write error stays on f: the caller's check of f (standard output's at exit) names it (errno). */
	json_decref(d);
	return rc;
}

/* Replay's document for res, read back to add to. */
static int replay_doc(const rp_replay_results *res, const rp_replay_provenance *prov, json_t **out, char *errbuf)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *const ms = open_memstream(&buf, &len);
	if (!ms)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const int rc = rp_replay_write_json(res, prov, ms); /* RP_E_NOMEM, or RP_E_IO: the memory stream's */
	const bool closed = fclose(ms) == 0;
	json_error_t jerr;
	*out = rc == 0 && closed ? json_loadb(buf, len, 0, &jerr) : NULL;
	free(buf);
	return *out ? RP_OK : rp_fail(errbuf, RP_E_NOMEM, "out of memory");
}

int rp_mpi_run_write_json(const rp_mpi_run *m, const rp_replay_merge *mg, double merge_s,
			  const rp_replay_provenance *prov, FILE *f, char *errbuf)
{
	json_t *d = NULL;
	const int rc = replay_doc(rp_replay_merge_results(mg), prov, &d, errbuf);
	if (rc < 0)
		return rc;
	const int size = rp_mpi_run_size(m);
	const uint32_t clones = rp_mpi_run_clones(m);
	bool oom = json_object_set_new(d, "ranks", json_integer(size)) < 0;
	json_t *const mpi = json_object(), *const ranks = json_array();
	const rp_mpi_rank *const rk = rp_mpi_run_ranks(m);
	uint64_t total = 0;
	for (int r = 0; r < size; r++) {
		const rp_replay_results *const p = rp_replay_merge_part(mg, (size_t)r);
		const uint32_t base = (uint32_t)((uint64_t)clones * (uint32_t)r / (uint32_t)size);
		json_t *const j = json_object(), *const ops = json_object();
		total += rk[r].result_bytes;
		for (unsigned op = 0; op < RP_OP__COUNT; op++)
			if (p->op[op].count)
				oom |= json_object_set_new(ops, rp_op_name((uint16_t)op), json_integer((json_int_t)p->op[op].count)) < 0;
		oom |= !j || !ops;
		oom |= json_object_set_new(j, "rank", json_integer(r)) < 0;
		oom |= json_object_set_new(j, "host", json_stringn(rk[r].host, strnlen(rk[r].host, sizeof(rk[r].host)))) < 0;
		oom |= json_object_set_new(j, "first_copy", clones ? json_integer(base + 1) : json_null()) < 0;
		oom |= json_object_set_new(j, "clients", json_integer(p->clients)) < 0;
		oom |= json_object_set_new(j, "stop", json_string(rp_stop_name(p->stop))) < 0;
		oom |= json_object_set_new(j, "error", p->error[0] ? json_string(p->error) : json_null()) < 0;
		oom |= json_object_set_new(j, "elapsed_s", json_real(p->elapsed_s)) < 0;
		oom |= json_object_set_new(j, "ops", json_integer((json_int_t)p->ops)) < 0;
		oom |= json_object_set_new(j, "bytes", json_integer((json_int_t)p->bytes)) < 0;
		oom |= json_object_set_new(j, "ops_per_sec", json_real(p->ops_per_sec)) < 0;
		oom |= json_object_set_new(j, "warmup_ops", json_integer((json_int_t)p->warmup_ops)) < 0;
		/* Its own schedule kept or not (a straggling host shows here): null in afap timing. */
		const rp_replay_schedule *const sc = &p->schedule;
		oom |= json_object_set_new(j, "span_ratio", sc->known && sc->ratio >= 0 ? json_real(sc->ratio) : json_null()) < 0;
		oom |= json_object_set_new(j, "lag_p99_us", sc->known ? json_real(p->lag_p99_us) : json_null()) < 0;
		oom |= json_object_set_new(j, "behind", sc->known ? json_boolean(sc->behind) : json_null()) < 0;
		oom |= json_object_set_new(j, "clock_offset_us", json_real((double)rk[r].offset_ns / 1e3)) < 0;
		oom |= json_object_set_new(j, "clock_rtt_us", json_real((double)rk[r].rtt_ns / 1e3)) < 0;
		oom |= json_object_set_new(j, "result_bytes", json_integer((json_int_t)rk[r].result_bytes)) < 0;
		oom |= json_object_set_new(j, "op", ops) < 0;
		oom |= json_array_append_new(ranks, j) < 0;
	}
	oom |= !mpi || !ranks;
	oom |= json_object_set_new(mpi, "ranks", json_integer(size)) < 0;
	oom |= json_object_set_new(mpi, "start_epoch_ns", json_integer(rp_mpi_run_start_ns(m))) < 0;
	oom |= json_object_set_new(mpi, "clock_rounds", json_integer(RP_MPI_CLOCK_ROUNDS)) < 0;
	oom |= json_object_set_new(mpi, "gather_bytes", json_integer((json_int_t)total)) < 0;
	oom |= json_object_set_new(mpi, "merge_seconds", json_real(merge_s)) < 0;
	oom |= json_object_set_new(mpi, "per_rank", ranks) < 0;
	oom |= json_object_set_new(d, "mpi", mpi) < 0;
	return dump(d, oom, f, errbuf);
}
