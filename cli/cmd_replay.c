/* reprise replay TRACE --target DIR: run a trace or dbench loadfile against a backend (docs/replay.md). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/outfile.h"
#include "cli/provenance.h"
#include "formats/rpz.h"
#include "replay/replay.h"

static struct {
	const char *target, *backend, *backend_opt, *timing, *on_mismatch, *json;
	uint64_t clients, max_inflight;
	double clone_offset, duration, warmup, speed;
	bool no_prepare, sync, fsync_writes, quiet, lenient, list_backends;
} o;

static const rp_opt options[] = {
	{ "target", 'D', RP_OPT_STRING, &o.target, "DIR", "replay beneath this directory (or URL, for network backends)" },
	{ "clients", 'c', RP_OPT_UINT, &o.clients, "N",
	  "run N copies of the workload, copy k in TARGET/clientk (default: the trace's own clients, in TARGET); "
	  "1-8192, and at most 8192 clients in all" },
	{ "clone-offset", 0, RP_OPT_DURATION, &o.clone_offset, "DURATION", "start copy k this much after copy k-1 (at most 1000000 s)" },
	{ "time", 't', RP_OPT_DURATION, &o.duration, "DURATION",
	  "measure for this long, looping the workload (default: one pass, no warm-up); 1 ms to 1e8 s" },
	{ "warmup", 0, RP_OPT_DURATION, &o.warmup, "DURATION",
	  "run this long before measuring (default: --time / 5, as dbench); at most 1e8 s" },
	{ "timing", 0, RP_OPT_STRING, &o.timing, "MODE",
	  "afap (as fast as possible, default), trace (at recorded times), think (recorded gaps)" },
	{ "speed", 0, RP_OPT_DOUBLE, &o.speed, "X", "trace/think timing: play recorded time X times faster (0.000001 to 1e9)" },
	{ "max-inflight", 0, RP_OPT_UINT, &o.max_inflight, "N",
	  "let up to N ops of one client be in flight at once where the trace has them overlap and they do not "
	  "depend on each other (default 1: one at a time; up to 1024)" },
	{ "backend", 'b', RP_OPT_STRING, &o.backend, "NAME", "posix, null or fault (default: from --target)" },
	{ "backend-opt", 'o', RP_OPT_STRING, &o.backend_opt, "LIST",
	  "backend options, comma-separated name[=value] (see --list-backends)" },
	{ "sync", 's', RP_OPT_FLAG, &o.sync, NULL, "posix: open files O_SYNC (dbench -s)" },
	{ "fsync-writes", 'F', RP_OPT_FLAG, &o.fsync_writes, NULL, "posix: fsync after every write (dbench -F)" },
	{ "no-prepare", 0, RP_OPT_FLAG, &o.no_prepare, NULL,
	  "do not create the files and directories the workload expects to exist" },
	{ "on-mismatch", 0, RP_OPT_STRING, &o.on_mismatch, "POLICY",
	  "warn (default): count and show examples; skip: count, and skip ops on handles whose open failed; "
	  "abort: stop at the first mismatch" },
	{ "json", 'j', RP_OPT_STRING, &o.json, "FILE", "write every result as JSON to FILE, created before the run and renamed into place after it (- = stdout: the JSON alone, the table on stderr)" },
	{ "quiet", 'q', RP_OPT_FLAG, &o.quiet, NULL, "no progress line on stderr" },
	{ "lenient", 0, RP_OPT_FLAG, &o.lenient, NULL, "loadfiles: skip bad lines, count them" },
	{ "list-backends", 0, RP_OPT_FLAG, &o.list_backends, NULL, "list the built-in backends and their options" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

/* The engine's own bounds (rp_replay_create checks them too), so the CLI says which option is wrong. */
static const rp_optrange ranges[] = {
	{ "clients", 1, RP_REPLAY_CLIENTS_MAX },
	{ "clone-offset", 0, 1e6 }, /* 11 days: copy k's start, k up to 8192, stays within 64-bit ns */
	{ "time", 1e-3, 1e8 },      /* a run shorter than the clock's granularity measures nothing; 3 years */
	{ "warmup", 0, 1e8 },
	{ "speed", 1e-6, 1e9 },
	{ "max-inflight", 1, RP_REPLAY_MAX_INFLIGHT },
	{ NULL, 0, 0 },
};

static const rp_cmd spec = {
	.name = "replay",
	.ranges = ranges,
	.usage = "[options] TRACE|LOADFILE --target DIR",
	.summary = "replay a trace or dbench loadfile against a directory (or another backend)",
	.details =
		"Each client runs in its own thread and keeps its own program order; clients never wait for each\n"
		"other. A trace with several clients replays them as they are, all in TARGET. --clients N runs N\n"
		"copies of the workload, copy k in its own directory TARGET/clientk (paths inside are not\n"
		"rewritten), so 'reprise replay client.txt --target /mnt/x --clients 4 -t 60' is dbench's\n"
		"'dbench -c client.txt -D /mnt/x -t 60 4'.\n\n"
		"Before the run, prepare creates the files and directories the workload uses as existing but\n"
		"never creates itself (a path that is the parent of another, or that an op lists or flags as one,\n"
		"is a directory); a file gets the size its reads need beyond what the workload itself writes or\n"
		"sets. --no-prepare skips it.\n"
		"With --time the workload loops; the warm-up (default --time/5) runs first and is left out of the\n"
		"results. A progress line is printed each second; Ctrl-C stops cleanly and still reports.\n\n"
		"--max-inflight N lets a client issue an op while up to N-1 of its earlier ops still run, where\n"
		"the trace shows them overlapping (an op started before an earlier one ended) and it does not\n"
		"depend on them (an open before the ops on its handle, those before the close, ops that change a\n"
		"name in order with the ops on it or beneath it, writes in order with I/O on the same bytes, locks\n"
		"in order with I/O on their handle). Synchronous backends use N-1 worker threads per client. The\n"
		"results show the in-flight depth reached next to the depth the trace recorded.\n\n"
		"The posix backend resolves every path beneath TARGET (openat2 RESOLVE_BENEATH): no '..',\n"
		"absolute path or symlink in a trace can reach outside it. nfs:// and smb:// targets need the\n"
		"network backends, which are not built yet.\n\n"
		"Exit status: 0 done, 1 the run failed or was aborted on a mismatch, 2 bad usage, 130 interrupted.",
	.opts = options,
	.min_args = 0,
	.max_args = 1,
};

static void list_backends(void)
{
	for (size_t i = 0; rp_backend_at(i); i++) {
		const rp_backend_ops *const b = rp_backend_at(i);
		printf("%-8s %s\n", b->name, b->summary);
		for (const rp_backend_opt *bo = b->opts; bo && bo->name; bo++) {
			char left[64];
			snprintf(left, sizeof(left), "%s%s%s", bo->name, bo->arg ? "=" : "", bo->arg ? bo->arg : "");
			printf("           %-24s %s\n", left, bo->help);
		}
	}
}

static int parse_enum(const char *what, const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	rp__cli_err("replay", "--%s: unknown value '%s'", what, s);
	return -1;
}

/* The backend options plus --sync and --fsync-writes, which are posix's. */
static char *backend_opts(void)
{
	const size_t n = (o.backend_opt ? strlen(o.backend_opt) : 0) + 32;
	char *const s = malloc(n);
	if (!s)
		return NULL;
	snprintf(s, n, "%s%s%s%s", o.backend_opt ? o.backend_opt : "",
		 o.sync ? (o.backend_opt && *o.backend_opt ? ",sync" : "sync") : "",
		 o.fsync_writes ? ((o.backend_opt && *o.backend_opt) || o.sync ? ",fsync-writes" : "fsync-writes") : "",
		 "");
	return s;
}

static void progress(rp_replay *r, double *last_t, uint64_t *last_ops, uint64_t *last_bytes)
{
	rp_replay_progress p;
	rp_replay_progress_get(r, &p);
	const double dt = p.elapsed_s - *last_t;
	if (dt <= 0)
		return;
	fprintf(stderr, "%4u clients  %8.2f MB/s  %9.0f ops/s  lag max %8.1f us  %6.1f s%s\n", p.running,
		(double)(p.bytes - *last_bytes) / 1e6 / dt, (double)(p.ops - *last_ops) / dt, p.lag_max_us,
		p.elapsed_s, p.warmup ? "  (warm-up)" : "");
	*last_t = p.elapsed_s;
	*last_ops = p.ops;
	*last_bytes = p.bytes;
}

/* Run with SIGINT/SIGTERM blocked in every thread; this thread collects them with sigtimedwait. */
static int drive(rp_replay *r, bool *interrupted)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	char errbuf[RP_ERRBUF_SIZE];
	int rc = rp_replay_start(r, errbuf);
	if (rc < 0) {
		rp__cli_err("replay", "%s", errbuf);
		rp_replay_stop(r);
	}
	double last_t = 0;
	uint64_t last_ops = 0, last_bytes = 0;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!rp_replay_wait(r, 0)) {
		const struct timespec tick = { 0, 100000000L };
		if (sigtimedwait(&set, NULL, &tick) > 0) {
			*interrupted = true;
			rp_replay_stop(r);
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec)) {
			if (!o.quiet)
				progress(r, &last_t, &last_ops, &last_bytes);
			next.tv_sec++;
		}
	}
	const int frc = rp_replay_finish(r, errbuf);
	if (frc < 0 && rc == 0) {
		rp__cli_err("replay", "%s", errbuf);
		rc = frc;
	}
	return rc;
}

static void warn_samples(const rp_replay_results *res)
{
	for (size_t i = 0; i < res->n_samples; i++) {
		const rp_replay_sample *const s = &res->samples[i];
		const char *const e = rp_replay_errno_name(s->expected), *const a = rp_replay_errno_name(s->actual);
		rp__cli_err("replay", "mismatch: client %u op %llu %s %s: expected %s, got %s", s->client,
			    (unsigned long long)s->index, rp_op_name(s->op), s->path,
			    s->expected == 0 ? "OK" : e ? e : s->expected == -2 ? "an error" : "?",
			    s->actual == 0 ? "OK" : a ? a : "an error");
	}
	if (res->mismatches > res->n_samples)
		fprintf(stderr, "reprise replay: ... %llu mismatches in all\n", (unsigned long long)res->mismatches);
}

/*
 * A trace without its index was cut or never finished: replay runs the whole
 * frames it holds.  Say so before the run, with the note cat and stat print
 * (docs/rpz-format.md §6), which takes one pass over the frames.
 */
static void warn_cut(const char *path)
{
	char errbuf[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	const rp_read_opts ro = { .lenient = o.lenient };
	if (rp_reader_open(&r, path, &ro, errbuf) < 0)
		return; /* rp_workload_open_file has reported it */
	rp_rpz_info info;
	if (rp_rpz_reader_info(r, &info) == 0 && !info.has_index) {
		rp_op op;
		while (rp_reader_next(r, &op) > 0)
			;
		rp__cli_err("replay", "warning: %s", r->note[0] ? r->note : "the trace has no index (cut or unfinished)");
	} else if (r->meta.flags & RP_META_TRUNCATED) {
		rp__cli_err("replay", "warning: %s: flagged truncated: its input was cut or its producer stopped early",
			    path);
	}
	rp_reader_close(r);
}

static int replay_main(int argc, char **argv, rp_cli_prov *prov);

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	o.warmup = -1;
	o.speed = 1;
	o.max_inflight = 1;
	o.timing = "afap";
	o.on_mismatch = "warn";
	/* The command line and start time for the JSON, before option parsing reorders argv. */
	rp_cli_prov prov;
	if (rp__cli_prov_init(&prov, argc, argv) < 0) {
		rp__cli_err("replay", "out of memory");
		return 1;
	}
	const int st = replay_main(argc, argv, &prov);
	rp__cli_prov_free(&prov);
	return st;
}

static int replay_main(int argc, char **argv, rp_cli_prov *prov)
{
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	if (o.list_backends) {
		list_backends();
		return 0;
	}
	if (npos != 1 || !o.target) {
		fprintf(stderr, "usage: reprise replay %s\n(see reprise replay --help)\n", spec.usage);
		return 2;
	}
	static const char *const timings[] = { "afap", "trace", "think" };
	static const char *const policies[] = { "warn", "skip", "abort" };
	const int timing = parse_enum("timing", o.timing, timings, 3);
	const int policy = parse_enum("on-mismatch", o.on_mismatch, policies, 3);
	if (timing < 0 || policy < 0)
		return 2;
	if (o.json) {
		const int same = rp__cli_out_check("replay", o.json, pos[0]);
		if (same)
			return same;
	}

	char errbuf[RP_ERRBUF_SIZE];
	rp_workload *w = NULL;
	if (rp_workload_open_file(&w, pos[0], o.lenient, errbuf) < 0) {
		rp__cli_err("replay", "%s", errbuf);
		return 1;
	}
	warn_cut(pos[0]);
	/* Created now, so a JSON path that cannot be written fails before a long run rather than after it. */
	rp_outfile json = { .f = NULL };
	if (o.json && rp__cli_out_open(&json, "replay", o.json)) {
		rp_workload_destroy(w);
		return 1;
	}
	char *const bopts = backend_opts();
	rp_replay_opts ro;
	rp_replay_opts_init(&ro);
	ro.target = o.target;
	ro.backend = o.backend;
	ro.backend_opts = bopts;
	ro.clones = (uint32_t)o.clients;
	ro.clone_offset_s = o.clone_offset;
	ro.duration_s = o.duration;
	ro.warmup_s = o.warmup;
	ro.timing = (rp_timing)timing;
	ro.speed = o.speed;
	ro.max_inflight = (uint32_t)o.max_inflight;
	ro.no_prepare = o.no_prepare;
	ro.on_mismatch = (rp_on_mismatch)policy;
	rp_replay *r = NULL;
	int status = 1;
	if (!bopts || rp_replay_create(&r, &ro, w, errbuf) < 0) {
		rp__cli_err("replay", "%s", bopts ? errbuf : "out of memory");
		goto out;
	}
	if (o.json) /* hashes the trace: after the scan has read it, before the CPU time is counted */
		rp__cli_prov_collect(prov, pos[0], o.target);
	bool interrupted = false;
	rp__cli_prov_cpu_begin(prov);
	const int rc = drive(r, &interrupted);
	rp__cli_prov_cpu_end(prov);
	const rp_replay_results *const res = rp_replay_get_results(r);
	/* --json -: standard output holds the JSON alone, and the table goes to stderr. */
	rp_replay_write_table(res, json.std ? stderr : stdout);
	if (policy != RP_MISMATCH_SKIP)
		warn_samples(res);
	status = rc < 0 || strcmp(res->stop, "mismatch") == 0 || strcmp(res->stop, "error") == 0 ? 1
		 : interrupted ? 130 : 0;
	if (o.json) {
		const int jrc = rp_replay_write_json(res, &prov->p, json.f);
		if (jrc < 0) {
			/* out: below removes the partial JSON (a file; standard output keeps what went out) */
			rp__cli_err("replay", "%s: %s%s", json.std ? "standard output" : o.json,
				    jrc == RP_E_IO ? "write error: " : "", jrc == RP_E_IO ? strerror(errno) : rp_strerror(jrc));
			if (json.std)
				clearerr(stdout); /* said: main's check at exit need not say it again */
			status = 1;
		} else if (rp__cli_out_commit(&json, "replay") && status == 0) {
			status = 1;
		}
	}
out:
	if (o.json)
		rp__cli_out_abort(&json); /* no-op after a commit; a run that never started leaves no JSON */
	rp_replay_destroy(r);
	rp_workload_destroy(w);
	free(bopts);
	return status;
}

const rp_command rp__cmd_replay = { &spec, run };
