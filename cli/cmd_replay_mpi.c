/* reprise replay --mpi: one run's copies dealt across an MPI job's ranks, started together, merged on rank 0 (docs/mpi.md). */
#include "cli/cmd_replay_mpi.h"

#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/input.h"
#include "results/stat_json.h"
#include "cli/outfile.h"
#include "replay/merge.h"
#include "replay/mpi_comm.h"
#include "replay/subset.h"

/* Ping-pong rounds per rank for the clock offsets: the least round trip of these is kept. */
#define CLOCK_ROUNDS 16
/* The common start is this far ahead of rank 0's clock when it is sent, at least (and 20 round trips). */
#define START_LEAD_NS 250000000ll

/* What each rank says after a phase: allgathered, so every rank stops alike and rank 0 names who failed. */
typedef struct status_rec {
	int32_t rc; /* 0, or an exit status */
	char host[64];
	char err[RP_ERRBUF_SIZE];
} status_rec;

typedef struct mpi_run {
	const rp_mpi_comm *comm;
	const rp_cli_mpi_args *a;
	int rank, size;
	char cmd[40]; /* "replay", or "replay (rank N)": every message says which rank */
	status_rec me;
	status_rec *all;
	int64_t *offset_ns, *rtt_ns;
	int64_t start_ns; /* the common start, rank 0's CLOCK_REALTIME */
	uint32_t copies, base; /* this rank's share of --clients */
	/* A trace's own clients: what rank 0's one prepare made, reported as the run's (the others made nothing). */
	rp_replay_results prepared; /* only its prepare record is used */
} mpi_run;

/* The module, from the build tree or the install directory (replay/backends/registry.c's rule). */
static const rp_mpi_comm *load(char *errbuf)
{
	char path[PATH_MAX + 64];
	if (rp__backend_module_path(RP_MPI_MODULE, path, sizeof(path)) < 0) {
		rp_fail(errbuf, RP_E_RANGE, "%s: module path too long", RP_MPI_MODULE);
		return NULL;
	}
	/* Global: Open MPI's own components, which it dlopens, look for libmpi's symbols. */
	void *const h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		rp_fail(errbuf, RP_E_UNSUPPORTED, "cannot load %s: %s", path, dlerror());
		return NULL;
	}
	const rp_mpi_comm *const comm = dlsym(h, RP_MPI_SYMBOL);
	if (!comm || comm->version != RP_MPI_COMM_VERSION) {
		rp_fail(errbuf, RP_E_VERSION, "%s: no %s of version %u", path, RP_MPI_SYMBOL, RP_MPI_COMM_VERSION);
		return NULL;
	}
	return comm; /* never closed: libmpi stays until the process ends */
}

/* A transport failure leaves ranks that wait for us: end the job. */
static _Noreturn void give_up(const mpi_run *m, const char *errbuf)
{
	rp__cli_err(m->cmd, "%s: aborting the MPI job", errbuf);
	fflush(stdout);
	m->comm->abort(1);
	exit(1); /* MPI_Abort does not return */
}

/*
 * Every rank's status after a phase: 0 when all are fine; else rank 0 names
 * each rank that failed, and every rank returns the worst status.
 */
static int check_all(mpi_run *m, const char *phase)
{
	char errbuf[RP_ERRBUF_SIZE];
	if (m->comm->allgather(&m->me, sizeof(m->me), m->all, m->a->timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	int worst = 0, same = 0;
	const status_rec *said = NULL; /* the last error printed: the ranks that repeat it are counted, not listed */
	for (int r = 0; r < m->size; r++) {
		const status_rec *const s = &m->all[r];
		if (!s->rc)
			continue;
		if (s->rc > worst)
			worst = s->rc;
		if (said && strncmp(said->err, s->err, sizeof(s->err)) == 0) {
			same++;
			continue;
		}
		if (m->rank == 0 && same)
			rp__cli_err("replay", "%s: and %d more rank%s the same", phase, same, same == 1 ? "" : "s");
		same = 0;
		said = s;
		if (m->rank == 0)
			rp__cli_err("replay", "%s: rank %d (%.*s): %.*s", phase, r, (int)sizeof(s->host), s->host,
				    (int)sizeof(s->err), s->err);
	}
	if (m->rank == 0 && same)
		rp__cli_err("replay", "%s: and %d more rank%s the same", phase, same, same == 1 ? "" : "s");
	return worst;
}

static void fail_me(mpi_run *m, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_me(mpi_run *m, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->me.err, sizeof(m->me.err), fmt, ap);
	va_end(ap);
	m->me.rc = rc;
}

/* FNV-1a over the arguments after the program's path (which may differ between hosts), each with its NUL. */
static uint64_t argv_hash(int argc, char *const *argv)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 1; i < argc; i++)
		for (const char *p = argv[i];; p++) {
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
			if (!*p)
				break;
		}
	return h;
}

/* The same options on every rank, and what --mpi cannot do: 0, or 2 on every rank (rank 0 says why). */
static int check_options(mpi_run *m)
{
	const rp_cli_mpi_args *const a = m->a;
	char errbuf[RP_ERRBUF_SIZE];
	uint64_t *const hashes = calloc((size_t)m->size, sizeof(*hashes));
	if (!hashes)
		give_up(m, "out of memory");
	const uint64_t mine = argv_hash(a->argc, a->argv);
	if (m->comm->allgather(&mine, sizeof(mine), hashes, a->timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	if (hashes[m->rank] != hashes[0])
		fail_me(m, 2, "started with other arguments than rank 0: every rank runs the same command line");
	free(hashes);
	if (!m->me.rc && a->ro->clones && a->ro->clones < (uint32_t)m->size)
		fail_me(m, 2, "--clients %u is fewer than the %d ranks: each rank runs at least one copy", a->ro->clones,
			m->size);
	else if (!m->me.rc && a->ro->order == RP_ORDER_RESOURCE)
		fail_me(m, 2, "--order=resource does not hold across ranks (each copy is in its own directory: "
			      "its clients keep their own order; docs/mpi.md)");
	return check_all(m, "options");
}

/*
 * The trace to every rank: rank 0 opens it (spooling or converting as
 * replay does) and broadcasts its bytes, which the others keep in an
 * unlinked file in $TMPDIR; over RP_MPI_TRACE_MAX every rank opens the path
 * itself, which must then be on a shared file system.
 */
static int share_trace(mpi_run *m, rp_cli_in *in)
{
	const rp_cli_mpi_args *const a = m->a;
	char errbuf[RP_ERRBUF_SIZE];
	struct {
		uint64_t size;
		uint32_t mode; /* 0: rank 0 could not open it; 1: bytes follow; 2: every rank opens the path */
	} hdr = { 0, 0 };
	uint8_t *bytes = NULL;
	int st = 0;
	if (m->rank == 0) {
		st = rp__cli_in_open(in, "replay", a->trace);
		if (!st && (st = rp__cli_in_convert(in, "replay", a->r->lenient)) != 0)
			rp__cli_in_close(in);
		struct stat sb;
		if (!st && stat(in->path, &sb) == 0 && S_ISREG(sb.st_mode)) {
			hdr.size = (uint64_t)sb.st_size;
			hdr.mode = hdr.size <= RP_MPI_TRACE_MAX ? 1 : 2;
		} else if (!st) {
			rp__cli_err("replay", "%s: cannot broadcast what is not a regular file", in->name);
			st = 1;
		}
		if (hdr.mode == 2)
			rp__cli_err("replay", "note: %s is over %llu MiB: not broadcast, every rank opens it (a shared file system)",
				    in->name, RP_MPI_TRACE_MAX >> 20);
		if (hdr.mode == 1) {
			FILE *const f = fopen(in->path, "rb");
			bytes = malloc(hdr.size ? hdr.size : 1);
			if (!f || !bytes || fread(bytes, 1, hdr.size, f) != hdr.size) {
				rp__cli_err("replay", "%s: cannot read it: %s", in->name, strerror(errno ? errno : EIO));
				hdr.mode = 0;
				st = 1;
			}
			if (f)
				fclose(f);
		}
	}
	if (m->comm->bcast(&hdr, sizeof(hdr), a->timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	if (hdr.mode == 0) {
		free(bytes);
		return st ? st : 1;
	}
	if (hdr.mode == 1 && m->rank != 0 && !(bytes = malloc(hdr.size ? hdr.size : 1)))
		give_up(m, "out of memory for the trace");
	if (hdr.mode == 1 && m->comm->bcast(bytes, hdr.size, a->timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	if (m->rank != 0 && hdr.mode == 2) {
		st = rp__cli_in_open(in, m->cmd, a->trace);
		if (!st && (st = rp__cli_in_convert(in, m->cmd, a->r->lenient)) != 0)
			rp__cli_in_close(in);
		if (st)
			fail_me(m, st, "cannot open %s here (over %llu MiB, every rank opens it)", a->trace, RP_MPI_TRACE_MAX >> 20);
	} else if (m->rank != 0) {
		const char *const tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		char tpl[PATH_MAX];
		snprintf(tpl, sizeof(tpl), "%s/reprise-mpi-XXXXXX", tmp);
		const int fd = mkstemp(tpl);
		if (fd >= 0)
			unlink(tpl); /* nothing is left however the rank ends */
		size_t done = 0;
		while (fd >= 0 && done < hdr.size) {
			const ssize_t w = write(fd, bytes + done, hdr.size - done);
			if (w <= 0)
				break;
			done += (size_t)w;
		}
		if (fd < 0 || done < hdr.size) {
			fail_me(m, 1, "%s: cannot keep the trace's %llu bytes: %s", tmp, (unsigned long long)hdr.size,
				strerror(errno));
			if (fd >= 0)
				close(fd);
		} else {
			memset(in, 0, sizeof(*in));
			in->fd = fd;
			snprintf(in->fdpath, sizeof(in->fdpath), "/dev/fd/%d", fd);
			in->path = in->fdpath;
			in->name = a->trace;
			in->bytes = hdr.size;
		}
	}
	free(bytes);
	return check_all(m, "trace");
}

/* Rank 0 measures the clocks, picks a start ahead of them all, and tells every rank; each waits for it. */
static void start_together(mpi_run *m)
{
	char errbuf[RP_ERRBUF_SIZE];
	if (m->comm->clock_offsets(CLOCK_ROUNDS, m->offset_ns, m->rtt_ns, m->a->timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	int64_t *const msg = calloc((size_t)m->size + 1, sizeof(*msg));
	if (!msg)
		give_up(m, "out of memory");
	if (m->rank == 0) {
		int64_t rtt_max = 0;
		for (int r = 0; r < m->size; r++)
			if (m->rtt_ns[r] > rtt_max)
				rtt_max = m->rtt_ns[r];
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		const int64_t lead = 20 * rtt_max > START_LEAD_NS ? 20 * rtt_max : START_LEAD_NS;
		msg[0] = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + lead;
		for (int r = 0; r < m->size; r++)
			msg[r + 1] = m->offset_ns[r];
	}
	if (m->comm->bcast(msg, ((size_t)m->size + 1) * sizeof(*msg), m->a->timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	m->start_ns = msg[0];
	for (int r = 0; r < m->size; r++)
		m->offset_ns[r] = msg[r + 1];
	/* Rank 0's instant on this rank's clock. */
	const int64_t here = m->start_ns + m->offset_ns[m->rank];
	free(msg);
	const struct timespec at = { (time_t)(here / 1000000000), (long)(here % 1000000000) };
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) == EINTR)
		;
}

/* The merged results as replay --json writes them, with the ranks added. */
static int write_json(const mpi_run *m, const rp_replay_merge *mg, const size_t *sizes, double merge_s, FILE *f)
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
	uint64_t total = 0;
	for (int r = 0; r < m->size; r++) {
		const rp_replay_results *const p = rp_replay_merge_part(mg, (size_t)r);
		const uint32_t base = (uint32_t)((uint64_t)m->a->ro->clones * (uint32_t)r / (uint32_t)m->size);
		json_t *const j = json_object(), *const ops = json_object();
		total += sizes[r];
		for (unsigned op = 0; op < RP_OP__COUNT; op++)
			if (p->op[op].count)
				oom |= json_object_set_new(ops, rp_op_name((uint16_t)op), json_integer((json_int_t)p->op[op].count)) < 0;
		oom |= !j || !ops;
		oom |= json_object_set_new(j, "rank", json_integer(r)) < 0;
		oom |= json_object_set_new(j, "host", json_stringn(m->all[r].host, strnlen(m->all[r].host, sizeof(m->all[r].host)))) < 0;
		oom |= json_object_set_new(j, "first_copy", m->a->ro->clones ? json_integer(base + 1) : json_null()) < 0;
		oom |= json_object_set_new(j, "clients", json_integer(p->clients)) < 0;
		oom |= json_object_set_new(j, "stop", json_string(p->stop)) < 0;
		oom |= json_object_set_new(j, "error", p->error[0] ? json_string(p->error) : json_null()) < 0;
		oom |= json_object_set_new(j, "elapsed_s", json_real(p->elapsed_s)) < 0;
		oom |= json_object_set_new(j, "ops", json_integer((json_int_t)p->ops)) < 0;
		oom |= json_object_set_new(j, "bytes", json_integer((json_int_t)p->bytes)) < 0;
		oom |= json_object_set_new(j, "ops_per_sec", json_real(p->ops_per_sec)) < 0;
		oom |= json_object_set_new(j, "warmup_ops", json_integer((json_int_t)p->warmup_ops)) < 0;
		oom |= json_object_set_new(j, "clock_offset_us", json_real((double)m->offset_ns[r] / 1e3)) < 0;
		oom |= json_object_set_new(j, "clock_rtt_us", json_real((double)m->rtt_ns[r] / 1e3)) < 0;
		oom |= json_object_set_new(j, "result_bytes", json_integer((json_int_t)sizes[r])) < 0;
		oom |= json_object_set_new(j, "op", ops) < 0;
		oom |= json_array_append_new(ranks, j) < 0;
	}
	oom |= !mpi || !ranks;
	oom |= json_object_set_new(mpi, "ranks", json_integer(m->size)) < 0;
	oom |= json_object_set_new(mpi, "start_epoch_ns", json_integer(m->start_ns)) < 0;
	oom |= json_object_set_new(mpi, "clock_rounds", json_integer(CLOCK_ROUNDS)) < 0;
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

/* After the table: one line per rank, with its clock against rank 0's. */
static void write_ranks(const mpi_run *m, const rp_replay_merge *mg, FILE *f)
{
	int64_t off_max = 0, rtt_max = 0;
	for (int r = 0; r < m->size; r++) {
		const int64_t off = m->offset_ns[r] < 0 ? -m->offset_ns[r] : m->offset_ns[r];
		off_max = off > off_max ? off : off_max;
		rtt_max = m->rtt_ns[r] > rtt_max ? m->rtt_ns[r] : rtt_max;
	}
	fprintf(f, "\nRanks: %d; clocks against rank 0's (least of %d round trips): |offset| <= %.1f us, round trip <= %.1f us\n",
		m->size, CLOCK_ROUNDS, (double)off_max / 1e3, (double)rtt_max / 1e3);
	fprintf(f, "  %4s %-20s %8s %12s %12s %-12s %12s %10s\n", "rank", "host", "clients", "ops", "ops/s", "stop",
		"offset_us", "rtt_us");
	for (int r = 0; r < m->size; r++) {
		const rp_replay_results *const p = rp_replay_merge_part(mg, (size_t)r);
		fprintf(f, "  %4d %-20.*s %8u %12llu %12.1f %-12s %12.1f %10.1f\n", r, 20, m->all[r].host, p->clients,
			(unsigned long long)p->ops, p->ops_per_sec, p->stop, (double)m->offset_ns[r] / 1e3,
			(double)m->rtt_ns[r] / 1e3);
	}
}

/* Rank 0: merge the shares, print the table, write the JSON; the run's exit status. */
static int report(mpi_run *m, const uint8_t *all, const size_t *sizes, int run_status, bool interrupted,
		  rp_outfile *json)
{
	const rp_cli_mpi_args *const a = m->a;
	char errbuf[RP_ERRBUF_SIZE];
	rp_replay_merge *mg = NULL;
	int status = 1;
	if (rp_replay_merge_create(&mg, (size_t)m->size) < 0) {
		rp__cli_err("replay", "out of memory");
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t at = 0;
	for (int r = 0; r < m->size; r++) {
		if (rp_replay_merge_add(mg, (size_t)r, all + at, sizes[r], errbuf) < 0) {
			rp__cli_err("replay", "rank %d's results: %s", r, errbuf);
			goto out;
		}
		at += sizes[r];
	}
	if (rp_replay_merge_run(mg, errbuf) < 0) {
		rp__cli_err("replay", "merging the ranks' results: %s", errbuf);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	const double merge_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	const rp_replay_results *const res = rp_replay_merge_results(mg);
	FILE *const out = json->std ? stderr : stdout;
	rp_replay_write_table(res, out);
	write_ranks(m, mg, out);
	if (a->ro->on_mismatch != RP_MISMATCH_SKIP)
		rp__cli_warn_samples("replay", res);
	for (int r = 0; r < m->size; r++) {
		const rp_replay_results *const p = rp_replay_merge_part(mg, (size_t)r);
		if (p->error[0])
			rp__cli_err("replay", "rank %d (%.*s): %s", r, (int)sizeof(m->all[r].host), m->all[r].host, p->error);
	}
	status = run_status || strcmp(res->stop, "mismatch") == 0 || strcmp(res->stop, "error") == 0 ? 1
		 : interrupted ? 130 : 0;
	if (status == 0 && a->fail_on_mismatch && res->mismatches) {
		rp__cli_err("replay", "%llu mismatch%s (--fail-on-mismatch)", (unsigned long long)res->mismatches,
			    res->mismatches == 1 ? "" : "es");
		status = 1;
	}
	if (a->json) {
		const int jrc = write_json(m, mg, sizes, merge_s, json->f);
		if (jrc < 0) {
			rp__cli_err("replay", "%s: %s", json->std ? "standard output" : a->json, rp_strerror(jrc));
			status = 1;
		} else if (rp__cli_out_commit(json, "replay") && status == 0) {
			status = 1;
		}
	}
out:
	rp_replay_merge_destroy(mg);
	return status;
}

/*
 * Create and prepare, and check that every rank could.  Copies (--clients):
 * each rank prepares its own copies' directories, which are disjoint.  A
 * trace's own clients share TARGET: rank 0 prepares it once for all of them
 * (a scan of the whole trace), the others wait, then each rank runs its
 * clients, dealt by client id (replay/subset.h), without a prepare.
 */
static int setup(mpi_run *m, rp_cli_in *in, rp_workload **full, rp_workload **w, rp_replay **rr)
{
	rp_replay_opts ro = *m->a->ro;
	ro.clones = m->copies;
	ro.clone_base = m->base;
	char errbuf[RP_ERRBUF_SIZE];
	if (!m->me.rc && rp_workload_open_file(full, in->path, m->a->r->lenient, errbuf) < 0) {
		rp__cli_in_rename(in, errbuf, sizeof(errbuf));
		fail_me(m, 1, "%s", errbuf);
	}
	if (!m->a->ro->clones) {
		uint32_t n = 0;
		if (!m->me.rc && rp_workload_open_subset(w, *full, (uint32_t)m->rank, (uint32_t)m->size, &n, errbuf) < 0)
			fail_me(m, 2, "%s", errbuf);
		if (m->rank == 0 && !m->me.rc && !ro.no_prepare) {
			rp_replay *all = NULL;
			if (rp_replay_create(&all, &ro, *full, errbuf) < 0 || rp_replay_prepare(all, errbuf) < 0) {
				rp__cli_in_rename(in, errbuf, sizeof(errbuf));
				fail_me(m, 1, "prepare: %s", errbuf);
			} else {
				m->prepared.prepare = rp_replay_get_results(all)->prepare;
			}
			rp_replay_destroy(all);
		}
		const int st = check_all(m, "prepare");
		if (st)
			return st;
		ro.no_prepare = true;
		ro.drop_caches = false; /* rank 0's prepare did it, on its host */
	} else {
		*w = *full;
		*full = NULL;
	}
	if (!m->me.rc && rp_replay_create(rr, &ro, *w, errbuf) < 0) {
		rp__cli_in_rename(in, errbuf, sizeof(errbuf));
		fail_me(m, 1, "%s", errbuf);
	}
	if (!m->me.rc && rp_replay_prepare(*rr, errbuf) < 0) {
		rp__cli_in_rename(in, errbuf, sizeof(errbuf));
		fail_me(m, 1, "prepare: %s", errbuf);
	}
	return check_all(m, "setup");
}

int rp__cli_replay_mpi(const rp_cli_mpi_args *a)
{
	char errbuf[RP_ERRBUF_SIZE];
	mpi_run m = { .a = a };
	snprintf(m.cmd, sizeof(m.cmd), "replay");
	m.comm = load(errbuf);
	if (!m.comm) {
		rp__cli_err("replay", "--mpi: %s", errbuf);
		return 1;
	}
	if (m.comm->init(&m.rank, &m.size, errbuf) < 0) {
		rp__cli_err("replay", "--mpi: %s", errbuf);
		return 1;
	}
	if (m.rank)
		snprintf(m.cmd, sizeof(m.cmd), "replay (rank %d)", m.rank);
	m.comm->host(m.me.host, sizeof(m.me.host));
	m.all = calloc((size_t)m.size, sizeof(*m.all));
	m.offset_ns = calloc((size_t)m.size, sizeof(*m.offset_ns));
	m.rtt_ns = calloc((size_t)m.size, sizeof(*m.rtt_ns));
	if (!m.all || !m.offset_ns || !m.rtt_ns)
		give_up(&m, "out of memory");
	rp_cli_in in = { .fd = -1 };
	rp_workload *full = NULL, *w = NULL;
	rp_replay *r = NULL;
	rp_outfile json = { .f = NULL };
	uint8_t *packed = NULL, *gathered = NULL;
	size_t *sizes = calloc((size_t)m.size, sizeof(*sizes));
	int status = sizes ? check_options(&m) : 1;
	if (status)
		goto out;
	/* Copies [base, base + copies) of --clients: shares differ by at most one. */
	m.base = (uint32_t)((uint64_t)a->ro->clones * (uint32_t)m.rank / (uint32_t)m.size);
	m.copies = (uint32_t)((uint64_t)a->ro->clones * (uint32_t)(m.rank + 1) / (uint32_t)m.size) - m.base;
	if ((status = share_trace(&m, &in)) != 0)
		goto out;
	/* Rank 0 writes the JSON: created now, so a path that cannot be written fails before the run. */
	if (m.rank == 0 && a->json && rp__cli_out_open(&json, "replay", a->json))
		fail_me(&m, 1, "cannot create %s", a->json);
	if ((status = setup(&m, &in, &full, &w, &r)) != 0)
		goto out;
	if (m.rank == 0 && a->json)
		rp__cli_prov_collect(a->prov, in.name, in.path, a->ro->target);
	start_together(&m);
	bool interrupted = false;
	rp__cli_prov_cpu_begin(a->prov);
	const int rc = rp__cli_drive(r, m.cmd, a->r->quiet || m.rank != 0, &interrupted, NULL, &in);
	rp__cli_prov_cpu_end(a->prov);
	size_t n_packed = 0;
	rp_replay_results mine = *rp_replay_get_results(r); /* a shallow copy: packing only reads it */
	if (!a->ro->clones && m.rank == 0)
		mine.prepare = m.prepared.prepare;
	if (rp_replay_results_pack(&mine, &packed, &n_packed) < 0)
		give_up(&m, "out of memory packing the results");
	if (m.comm->gatherv(packed, n_packed, &gathered, sizes, RP_MPI_GATHER_MAX, a->timeout_s, errbuf) < 0)
		give_up(&m, errbuf);
	/* Whether every rank's run started and finished (its error was printed where it ran, and is in its results). */
	m.me.rc = rc < 0;
	if (rc < 0)
		snprintf(m.me.err, sizeof(m.me.err), "the run failed");
	const int run_status = check_all(&m, "run");
	if (m.rank == 0)
		status = report(&m, gathered, sizes, run_status, interrupted, &json);
	else
		status = rc < 0 ? 1 : interrupted ? 130 : 0;
out:
	if (m.rank == 0 && a->json)
		rp__cli_out_abort(&json); /* no-op after a commit */
	rp_replay_destroy(r);
	rp_workload_destroy(w);
	rp_workload_destroy(full); /* after the subset over it */
	rp__cli_in_close(&in);
	free(packed);
	free(gathered);
	free(sizes);
	free(m.all);
	free(m.offset_ns);
	free(m.rtt_ns);
	fflush(stdout);
	m.comm->finalize();
	return status;
}
