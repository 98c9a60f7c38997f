/* replay --mpi's run protocol: the ranks agree, share the trace, prepare, start together and gather their results on rank 0 (docs/mpi.md). */
#include "replay/mpi_run.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/error.h"
#include "replay/backend.h"
#include "replay/mpi_comm.h"
#include "replay/procs.h"
#include "replay/subset.h"

/* The common start is this far ahead of rank 0's clock when it is sent, at least (and 20 round trips). */
#define START_LEAD_NS 250000000ll

/* What each rank says after a phase: allgathered, so every rank stops alike and rank 0 names who failed. */
typedef struct status_rec {
	int32_t rc; /* 0, or an exit status */
	char host[64];
	char err[RP_ERRBUF_SIZE];
} status_rec;

struct rp_mpi_run {
	const rp_mpi_comm *comm;
	rp_mpi_run_opts o;
	int rank, size;
	status_rec me;
	status_rec *all;
	rp_mpi_rank *ranks;
	int64_t *offset_ns, *rtt_ns;
	int64_t start_ns; /* the common start, rank 0's CLOCK_REALTIME */
	uint32_t clones;  /* --clients (0: the trace's own clients) */
	/* A trace's own clients: what rank 0's one prepare made, reported as the run's (the others made nothing). */
	rp_replay_results prepared; /* only its prepare record is used */
	uint8_t *gathered;          /* rank 0: every rank's packed results, in rank order */
	size_t *sizes;
};

static void say(const rp_mpi_run *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const rp_mpi_run *m, const char *fmt, ...)
{
	if (!m->o.say)
		return;
	char msg[2 * RP_ERRBUF_SIZE + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	m->o.say(m->o.ctx, msg);
}

static void fix_msg(const rp_mpi_run *m, char *msg, size_t size)
{
	if (m->o.fix_msg)
		m->o.fix_msg(m->o.ctx, msg, size);
}

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

/*
 * A transport failure leaves ranks that wait for us: end the job (the
 * transport's contract, mpi_comm.h).  MPI_Abort does not return; the exit
 * is for a transport that would.
 */
static _Noreturn void give_up(const rp_mpi_run *m, const char *errbuf)
{
	say(m, "%s: aborting the job", errbuf);
	fflush(stdout);
	m->comm->abort(1);
	exit(1);
}

int rp_mpi_run_create(rp_mpi_run **out, const rp_mpi_run_opts *o, char *errbuf)
{
	*out = NULL;
	const rp_mpi_comm *const comm = load(errbuf);
	if (!comm)
		return RP_E_UNSUPPORTED;
	return rp__mpi_run_create_with(out, comm, o, errbuf);
}

int rp_mpi_run_create_local(rp_mpi_run **out, unsigned nprocs, const rp_mpi_run_opts *o, char *errbuf)
{
	return rp__mpi_run_create_with(out, rp_procs_comm(nprocs), o, errbuf);
}

int rp__mpi_run_create_with(rp_mpi_run **out, const rp_mpi_comm *comm, const rp_mpi_run_opts *o, char *errbuf)
{
	*out = NULL;
	rp_mpi_run *const m = calloc(1, sizeof *m);
	if (!m)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	m->comm = comm;
	m->o = *o;
	const int rc = comm->init(&m->rank, &m->size, errbuf);
	if (rc < 0) {
		free(m);
		return rc;
	}
	comm->host(m->me.host, sizeof(m->me.host));
	const size_t n = (size_t)m->size;
	m->all = calloc(n, sizeof(*m->all));
	m->ranks = calloc(n, sizeof(*m->ranks));
	m->offset_ns = calloc(n, sizeof(*m->offset_ns));
	m->rtt_ns = calloc(n, sizeof(*m->rtt_ns));
	m->sizes = calloc(n, sizeof(*m->sizes));
	if (!m->all || !m->ranks || !m->offset_ns || !m->rtt_ns || !m->sizes)
		give_up(m, "out of memory");
	*out = m;
	return 0;
}

void rp_mpi_run_destroy(rp_mpi_run *m)
{
	if (!m)
		return;
	free(m->all);
	free(m->ranks);
	free(m->offset_ns);
	free(m->rtt_ns);
	free(m->sizes);
	free(m->gathered);
	fflush(stdout);
	m->comm->finalize();
	free(m);
}

int rp_mpi_run_rank(const rp_mpi_run *m)
{
	return m->rank;
}

int rp_mpi_run_size(const rp_mpi_run *m)
{
	return m->size;
}

const rp_mpi_rank *rp_mpi_run_ranks(const rp_mpi_run *m)
{
	return m->ranks;
}

int64_t rp_mpi_run_start_ns(const rp_mpi_run *m)
{
	return m->start_ns;
}

uint32_t rp_mpi_run_clones(const rp_mpi_run *m)
{
	return m->clones;
}

void rp_mpi_run_fail(rp_mpi_run *m, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->me.err, sizeof(m->me.err), fmt, ap);
	va_end(ap);
	m->me.rc = rc;
}

bool rp_mpi_run_failed(const rp_mpi_run *m)
{
	return m->me.rc != 0;
}

int rp_mpi_run_check(rp_mpi_run *m, const char *phase)
{
	char errbuf[RP_ERRBUF_SIZE];
	if (m->comm->allgather(&m->me, sizeof(m->me), m->all, m->o.timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	for (int r = 0; r < m->size; r++)
		memcpy(m->ranks[r].host, m->all[r].host, sizeof(m->ranks[r].host));
	int worst = 0, same = 0;
	const status_rec *said = NULL; /* the last error said: the ranks that repeat it are counted, not listed */
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
			say(m, "%s: and %d more rank%s the same", phase, same, same == 1 ? "" : "s");
		same = 0;
		said = s;
		if (m->rank == 0)
			say(m, "%s: rank %d (%.*s): %.*s", phase, r, (int)sizeof(s->host), s->host, (int)sizeof(s->err),
			    s->err);
	}
	if (m->rank == 0 && same)
		say(m, "%s: and %d more rank%s the same", phase, same, same == 1 ? "" : "s");
	return worst;
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

int rp_mpi_run_check_options(rp_mpi_run *m, int argc, char *const *argv, const rp_replay_opts *ro)
{
	char errbuf[RP_ERRBUF_SIZE];
	uint64_t *const hashes = calloc((size_t)m->size, sizeof(*hashes));
	if (!hashes)
		give_up(m, "out of memory");
	const uint64_t mine = argv_hash(argc, argv);
	if (m->comm->allgather(&mine, sizeof(mine), hashes, m->o.timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	if (hashes[m->rank] != hashes[0])
		rp_mpi_run_fail(m, 2, "started with other arguments than rank 0: every rank runs the same command line");
	free(hashes);
	if (!m->me.rc && ro->clones && ro->clones < (uint32_t)m->size)
		rp_mpi_run_fail(m, 2, "--clients %u is fewer than the %d ranks: each rank runs at least one copy",
				ro->clones, m->size);
	else if (!m->me.rc && ro->order == RP_ORDER_RESOURCE)
		rp_mpi_run_fail(m, 2, "--order=resource does not hold across ranks (each copy is in its own directory: "
				      "its clients keep their own order; docs/mpi.md)");
	return rp_mpi_run_check(m, "options");
}

/* Rank 0: the trace's header and, when it is broadcast, its bytes (*bytes malloc'd). */
static int read_trace(const rp_mpi_run *m, int st, const char *path, const char *name, rp_mpi_trace *t,
		      uint8_t **bytes)
{
	struct stat sb;
	if (!st && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
		t->size = (uint64_t)sb.st_size;
		t->mode = t->size <= RP_MPI_TRACE_MAX ? RP_MPI_TRACE_BYTES : RP_MPI_TRACE_PATH;
	} else if (!st) {
		say(m, "%s: cannot broadcast what is not a regular file", name);
		st = 1;
	}
	if (t->mode == RP_MPI_TRACE_PATH)
		say(m, "note: %s is over %llu MiB: not broadcast, every rank opens it (a shared file system)", name,
		    RP_MPI_TRACE_MAX >> 20);
	if (t->mode == RP_MPI_TRACE_BYTES) {
		FILE *const f = fopen(path, "rb");
		*bytes = malloc(t->size ? t->size : 1);
		if (!f || !*bytes || fread(*bytes, 1, t->size, f) != t->size) {
			say(m, "%s: cannot read it: %s", name, strerror(errno ? errno : EIO));
			t->mode = RP_MPI_TRACE_NONE;
			st = 1;
		}
		if (f)
			fclose(f);
	}
	return st;
}

/* Ranks but 0: the broadcast bytes into an unlinked file in $TMPDIR (t->fd), or a failure for the check. */
static void keep_trace(rp_mpi_run *m, const uint8_t *bytes, rp_mpi_trace *t)
{
	const char *const tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char tpl[PATH_MAX];
	snprintf(tpl, sizeof(tpl), "%s/reprise-mpi-XXXXXX", tmp);
	const int fd = mkstemp(tpl);
	if (fd >= 0)
		unlink(tpl); /* nothing is left however the rank ends */
	size_t done = 0;
	while (fd >= 0 && done < t->size) {
		const ssize_t w = write(fd, bytes + done, t->size - done);
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (fd < 0 || done < t->size) {
		rp_mpi_run_fail(m, 1, "%s: cannot keep the trace's %llu bytes: %s", tmp, (unsigned long long)t->size,
				strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	t->fd = fd;
}

int rp_mpi_run_share_trace(rp_mpi_run *m, int status, const char *path, const char *name, rp_mpi_trace *t)
{
	char errbuf[RP_ERRBUF_SIZE];
	struct {
		uint64_t size;
		uint32_t mode; /* rp_mpi_trace_mode */
	} hdr = { 0, 0 };
	memset(t, 0, sizeof *t);
	t->fd = -1;
	uint8_t *bytes = NULL;
	int st = 0;
	if (m->rank == 0) {
		st = read_trace(m, status, path, name, t, &bytes);
		hdr.size = t->size;
		hdr.mode = (uint32_t)t->mode;
	}
	if (m->comm->bcast(&hdr, sizeof(hdr), m->o.timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	t->size = hdr.size;
	t->mode = (rp_mpi_trace_mode)hdr.mode;
	if (t->mode == RP_MPI_TRACE_NONE) {
		free(bytes);
		return st ? st : 1;
	}
	if (t->mode == RP_MPI_TRACE_BYTES && m->rank != 0 && !(bytes = malloc(t->size ? t->size : 1)))
		give_up(m, "out of memory for the trace");
	if (t->mode == RP_MPI_TRACE_BYTES && m->comm->bcast(bytes, t->size, m->o.timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	if (t->mode == RP_MPI_TRACE_BYTES && m->rank != 0)
		keep_trace(m, bytes, t);
	free(bytes);
	return 0;
}

/* Open and prepare as rp_replay does for one process, a failure recorded for the check. */
static void open_and_prepare(rp_mpi_run *m, rp_replay **rr, const rp_replay_opts *ro, rp_workload *w)
{
	char errbuf[RP_ERRBUF_SIZE];
	if (!m->me.rc && rp_replay_create(rr, ro, w, errbuf) < 0) {
		fix_msg(m, errbuf, sizeof(errbuf));
		rp_mpi_run_fail(m, 1, "%s", errbuf);
	}
	if (!m->me.rc && rp_replay_prepare(*rr, errbuf) < 0) {
		fix_msg(m, errbuf, sizeof(errbuf));
		rp_mpi_run_fail(m, 1, "prepare: %s", errbuf);
	}
}

int rp_mpi_run_setup(rp_mpi_run *m, const char *path, const rp_replay_opts *given, bool lenient, rp_workload **full,
		     rp_workload **w, rp_replay **rr)
{
	rp_replay_opts ro = *given;
	/* --order auto is client across ranks: resource order would only hold within one (docs/mpi.md). */
	if (ro.order == RP_ORDER_AUTO)
		ro.order = RP_ORDER_CLIENT;
	m->clones = given->clones;
	/* Copies [base, base + copies) of --clients: shares differ by at most one. */
	ro.clone_base = (uint32_t)((uint64_t)given->clones * (uint32_t)m->rank / (uint32_t)m->size);
	ro.clones = (uint32_t)((uint64_t)given->clones * (uint32_t)(m->rank + 1) / (uint32_t)m->size) - ro.clone_base;
	char errbuf[RP_ERRBUF_SIZE];
	if (!m->me.rc && rp_workload_open_file(full, path, lenient, errbuf) < 0) {
		fix_msg(m, errbuf, sizeof(errbuf));
		rp_mpi_run_fail(m, 1, "%s", errbuf);
	}
	if (!given->clones) {
		uint32_t n = 0;
		if (!m->me.rc && rp_workload_open_subset(w, *full, (uint32_t)m->rank, (uint32_t)m->size, &n, errbuf) < 0)
			rp_mpi_run_fail(m, 2, "%s", errbuf);
		if (m->rank == 0 && !m->me.rc && !ro.no_prepare) {
			rp_replay *all = NULL;
			if (rp_replay_create(&all, &ro, *full, errbuf) < 0 || rp_replay_prepare(all, errbuf) < 0) {
				fix_msg(m, errbuf, sizeof(errbuf));
				rp_mpi_run_fail(m, 1, "prepare: %s", errbuf);
			} else {
				m->prepared.prepare = rp_replay_get_results(all)->prepare;
			}
			rp_replay_destroy(all);
		}
		const int st = rp_mpi_run_check(m, "prepare");
		if (st)
			return st;
		ro.no_prepare = true;
		ro.drop_caches = false; /* rank 0's prepare did it, on its host */
	} else {
		*w = *full;
		*full = NULL;
	}
	open_and_prepare(m, rr, &ro, *w);
	return rp_mpi_run_check(m, "setup");
}

void rp_mpi_run_start_together(rp_mpi_run *m)
{
	char errbuf[RP_ERRBUF_SIZE];
	if (m->comm->clock_offsets(RP_MPI_CLOCK_ROUNDS, m->offset_ns, m->rtt_ns, m->o.timeout_s, errbuf) < 0)
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
	if (m->comm->bcast(msg, ((size_t)m->size + 1) * sizeof(*msg), m->o.timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	m->start_ns = msg[0];
	for (int r = 0; r < m->size; r++) {
		m->offset_ns[r] = msg[r + 1];
		m->ranks[r].offset_ns = m->offset_ns[r];
		m->ranks[r].rtt_ns = m->rtt_ns[r];
	}
	/* Rank 0's instant on this rank's clock. */
	const int64_t here = m->start_ns + m->offset_ns[m->rank];
	free(msg);
	const struct timespec at = { (time_t)(here / 1000000000), (long)(here % 1000000000) };
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) == EINTR)
		;
}

int rp_mpi_run_gather(rp_mpi_run *m, const rp_replay *r, int run_rc)
{
	char errbuf[RP_ERRBUF_SIZE];
	uint8_t *packed = NULL;
	size_t n_packed = 0;
	rp_replay_results mine = *rp_replay_get_results(r); /* a shallow copy: packing only reads it */
	if (!m->clones && m->rank == 0)
		mine.prepare = m->prepared.prepare;
	if (rp_replay_results_pack(&mine, &packed, &n_packed) < 0)
		give_up(m, "out of memory packing the results");
	if (m->comm->gatherv(packed, n_packed, &m->gathered, m->sizes, RP_MPI_GATHER_MAX, m->o.timeout_s, errbuf) < 0)
		give_up(m, errbuf);
	free(packed);
	for (int i = 0; i < m->size; i++)
		m->ranks[i].result_bytes = m->sizes[i];
	/* Whether every rank's run started and finished (its error was said where it ran, and is in its results). */
	m->me.rc = run_rc < 0;
	if (run_rc < 0)
		snprintf(m->me.err, sizeof(m->me.err), "the run failed");
	return rp_mpi_run_check(m, "run");
}

int rp_mpi_run_merge(rp_mpi_run *m, rp_replay_merge **out, double *merge_s, char *errbuf)
{
	*out = NULL;
	rp_replay_merge *mg = NULL;
	if (rp_replay_merge_create(&mg, (size_t)m->size) < 0)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t at = 0;
	char eb[RP_ERRBUF_SIZE];
	for (int r = 0; r < m->size; r++) {
		const int rc = rp_replay_merge_add(mg, (size_t)r, m->gathered + at, m->sizes[r], eb);
		if (rc < 0) {
			rp_replay_merge_destroy(mg);
			return rp_fail(errbuf, rc, "rank %d's results: %s", r, eb);
		}
		at += m->sizes[r];
	}
	const int rc = rp_replay_merge_run(mg, eb);
	if (rc < 0) {
		rp_replay_merge_destroy(mg);
		return rp_fail(errbuf, rc, "merging the ranks' results: %s", eb);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*merge_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	*out = mg;
	return 0;
}

void rp_mpi_run_write_ranks(const rp_mpi_run *m, const rp_replay_merge *mg, FILE *f)
{
	int64_t off_max = 0, rtt_max = 0;
	for (int r = 0; r < m->size; r++) {
		const int64_t off = m->offset_ns[r] < 0 ? -m->offset_ns[r] : m->offset_ns[r];
		off_max = off > off_max ? off : off_max;
		rtt_max = m->rtt_ns[r] > rtt_max ? m->rtt_ns[r] : rtt_max;
	}
	fprintf(f, "\nRanks: %d; clocks against rank 0's (least of %d round trips): |offset| <= %.1f us, round trip <= %.1f us\n",
		m->size, RP_MPI_CLOCK_ROUNDS, (double)off_max / 1e3, (double)rtt_max / 1e3);
	fprintf(f, "  %4s %-20s %8s %12s %12s %-12s %12s %10s\n", "rank", "host", "clients", "ops", "ops/s", "stop",
		"offset_us", "rtt_us");
	for (int r = 0; r < m->size; r++) {
		const rp_replay_results *const p = rp_replay_merge_part(mg, (size_t)r);
		fprintf(f, "  %4d %-20.*s %8u %12llu %12.1f %-12s %12.1f %10.1f\n", r, 20, m->all[r].host, p->clients,
			(unsigned long long)p->ops, p->ops_per_sec, rp_stop_name(p->stop), (double)m->offset_ns[r] / 1e3,
			(double)m->rtt_ns[r] / 1e3);
	}
}
