/* reprise bench TRACE --target A --target B ...: the same workload on several targets, interleaved runs, one table (docs/bench.md). */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/bench.h"
#include "results/benchtab.h"
#include "results/runenv.h"
#include "cli/commands.h"
#include "cli/input.h"
#include "results/stat_json.h"
#include "cli/output.h"
#include "cli/provenance.h"
#include "cli/replay_cli.h"
#include "replay/bench_mkfs.h"
#include "replay/replay.h"

static struct {
	rp_cli_ropts r;
	rp_optlist targets;
	uint64_t runs;
	const char *json, *output, *mkfs, *mkfs_dir, *mkfs_size;
	bool discard_first, no_final_sync, cold;
	double spread_limit;
} o;

static const rp_opt options[] = {
	{ .name = "target", .short_name = 'D', .kind = RP_OPT_LIST, .value = &o.targets, .arg = "DIR",
	  .help = "a target (repeat for each: --target A --target B); each run works in a new directory beneath it, removed after the run" },
	{ .name = "runs", .short_name = 'n', .kind = RP_OPT_UINT, .value = &o.runs, .arg = "N", .help = "runs per target, interleaved A B A B ... (default 3; 1-100)", .min = 1, .max = RP_BENCH_RUNS_MAX },
	{ .name = "discard-first", .kind = RP_OPT_FLAG, .value = &o.discard_first,
	  .help = "leave each target's first run out of the summary (it stays in the JSON, marked discarded)" },
	{ .name = "spread-limit", .kind = RP_OPT_DOUBLE, .value = &o.spread_limit, .arg = "X",
	  .help = "flag a target whose counted runs' MB/s max/min is above X (default 1.5) as runs that disagree, and "
	  "say how many runs a stable median needs (1.01 to 1000; also in the JSON's options)", .min = 1.01, .max = 1000 },
	{ .name = "no-final-sync", .kind = RP_OPT_FLAG, .value = &o.no_final_sync,
	  .help = "end the measured time at the last op, with dirty data still in memory (dbench's number); by default a "
	  "run ends when syncfs has put its data on stable storage" },
	{ .name = "cold", .kind = RP_OPT_FLAG, .value = &o.cold,
	  .help = "after each prepare, sync and drop the page cache (root; said when it could not be done)" },
	{ .name = "mkfs", .kind = RP_OPT_STRING, .value = &o.mkfs, .arg = "LIST",
	  .help = "make these file systems as targets under --mkfs-dir (ext2,ext3,ext4,xfs,btrfs,tmpfs, also f2fs, jfs, "
	  "reiserfs where present): loop-mounted images and a tmpfs, removed again at the end (root)" },
	{ .name = "mkfs-dir", .kind = RP_OPT_STRING, .value = &o.mkfs_dir, .arg = "DIR", .help = "where --mkfs puts its images and mount points" },
	{ .name = "mkfs-size", .kind = RP_OPT_STRING, .value = &o.mkfs_size, .arg = "SIZE",
	  .help = "each --mkfs file system's size (sparse images; tmpfs's limit): 16M to 1T, k/M/G/T powers of 1024 (default 1G)" },
	RP_CLI_REPLAY_OPTS_RUN(o.r),
	RP_CLI_REPLAY_OPTS_TIMING(o.r),
	RP_CLI_REPLAY_OPTS_MISMATCH(o.r),
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.output, .arg = "FILE", .help = "every run's results and the summary, as JSON, to FILE: the same as --json FILE" },
	{ .name = "json", .short_name = 'j', .kind = RP_OPT_STRING, .value = &o.json, .arg = "FILE",
	  .help = "write every run's full replay result and each target's summary as JSON to FILE (docs/bench-json.md; - = stdout: "
	  "the JSON alone, the table on stderr)" },
	RP_CLI_REPLAY_OPTS_IO(o.r),
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "bench",
	.usage = "[options] TRACE|LOADFILE (or --clients-from TRACE...) --target A --target B ... | --mkfs LIST --mkfs-dir DIR",
	.summary = "replay one workload on several targets, runs interleaved, and compare them side by side",
	.details =
		"Runs the workload --runs times on every target, interleaved (A B A B ...) so that drift of the\n"
		"machine hits every target alike. Every run gets a freshly prepared tree: a new directory beneath the\n"
		"target (reprise-bench-PID-K), prepared, replayed and removed after the run, so the target is left as\n"
		"it was. The replay options are those of reprise replay.\n\n"
		"By default a run's measured time ends only when its data is on stable storage: after the last op,\n"
		"syncfs(2) of the target's file system is timed and counted in the run (\"flush at end\"), so a file\n"
		"system that only buffers cannot win by doing no I/O. --no-final-sync gives dbench's number. Either\n"
		"way the data still dirty when the ops ended is reported (Dirty+Writeback of /proc/meminfo, minus its\n"
		"value at the start: system-wide; 0 when the kernel wrote back more meanwhile, with a note). syncfs\n"
		"flushes the whole file system: on a directory of a shared one (/tmp on /) it times other writers'\n"
		"data too, as bench says; --mkfs file systems hold only the runs'.\n\n"
		"The table shows, per target, MB/s, ops/s, the flush, latency p50/p99/max of the main ops and of all,\n"
		"issue lag, errors and mismatches, the load average and CPU steal of each run: the median over the\n"
		"counted runs with the min-max spread (of an even count, the mean of the middle two), runs that\n"
		"disagree (max/min over 1.5) flagged with the runs a stable median needs, and the\n"
		"target's file system and mount options. --json FILE writes it all, every run's whole replay result\n"
		"included (docs/bench-json.md); reprise compare reads it.\n\n"
		"--mkfs ext4,xfs,tmpfs --mkfs-dir DIR makes those file systems under DIR (an image each, truncated to\n"
		"--mkfs-size, mkfs.TYPE, a loop device, a mount; tmpfs with that size), uses them as targets and\n"
		"removes them at the end, also after SIGINT or SIGTERM. A file system the kernel or the machine lacks\n"
		"is said and skipped; one still mounted by an earlier, killed run is reported and left alone. Root only.\n\n"
		"A target that cannot be prepared is reported and the others go on. Exit status: 0 every run done, 1 a\n"
		"run failed (or a --mkfs file system could not be made or removed), 2 bad usage, 130 interrupted.",
	.details_more = rp__cli_backends_help,
	.opts = options,
	.min_args = 0,
	.max_args = RP_OPTS_MAX_POS, /* --clients-from: several traces */
};

/* SIGINT or SIGTERM (blocked for the whole command) arrived since the last look. */
static bool stop_asked;

/* --mkfs's notes: of a file system made (ctx "--mkfs ": "--mkfs TYPE: ..."), or of what its removal left. */
static void mkfs_note(void *ctx, const rp_bench_fs *fs, const char *msg)
{
	if (ctx)
		rp__cli_err("bench", "%s%s: %s", (const char *)ctx, fs->type, msg);
	else
		rp__cli_err("bench", "%s", msg);
}

static bool poll_stop(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	const struct timespec zero = { 0, 0 };
	if (sigtimedwait(&set, NULL, &zero) > 0)
		stop_asked = true;
	return stop_asked;
}

/* The run's result as the JSON object `reprise replay --json` writes: written by the library, read back. */
static json_t *result_json(const rp_replay_results *res, const rp_replay_provenance *prov)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *const m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	const int rc = rp_replay_write_json(res, prov, m);
	if (fclose(m) != 0 || rc < 0) {
		free(buf);
		return NULL;
	}
	json_t *const j = json_loadb(buf, len, 0, NULL);
	free(buf);
	return j;
}

/* A message into buf, cut to fit (an error's text: the cut end loses nothing that matters). */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* A string from the command line, escaped for JSON as the replay report escapes names. */
static json_t *jname(const char *s)
{
	return s ? rp__res_json_name(s, strlen(s)) : json_null();
}

typedef struct bench_ctx {
	rp_bench_target *t;
	size_t n;
	rp_workload *w;
	rp_cli_in in;
	rp_cli_prov prov;
	rp_replay_opts ro;
	const char *backend_opts; /* the backend's items as one line, a password starred out (rp_cli_bopts.text) */
	bool dir_backend; /* the backend works in directories (posix): each run on a directory target gets its own */
	bool usage;       /* the options do not fit the workload (--timing trace of an untimed trace): exit 2, no table */
	unsigned seq;     /* runs made, for the run directories' names */
	json_t *order;
} bench_ctx;

/* One run on target t: a new directory, prepare, the replay, its result kept, the directory removed. 1 interrupted. */
static int one_run(bench_ctx *c, rp_bench_target *t)
{
	rp_bench_run *const run = &t->runs[t->n_runs];
	memset(run, 0, sizeof(*run));
	run->load_start = run->steal_share = -1;
	run->run = (unsigned)++t->n_runs;
	run->discarded = o.discard_first && run->run == 1;
	json_array_append_new(c->order, jname(t->name));
	char dir[PATH_MAX + 64];
	char errbuf[RP_ERRBUF_SIZE];
	rp_tree_snap *snap = NULL;
	rp_replay *r = NULL;
	bool interrupted = false;
	bool made = false;
	rp__cli_err("bench", "run %u of %llu on %s%s%s", run->run, (unsigned long long)o.runs, t->name,
		t->mkfs ? " " : "", t->mkfs ? t->mkfs : "");
	/* A URL (a network backend's) is the backend's namespace: no directory of ours is made in it. */
	if (c->dir_backend && !strstr(t->name, "://")) {
		const int dl = snprintf(dir, sizeof(dir), "%s/reprise-bench-%ld-%u", t->name, (long)getpid(), ++c->seq);
		if (dl < 0 || (size_t)dl >= sizeof(dir)) {
			say(run->error, sizeof(run->error), "the target's path is too long");
			goto fail;
		}
		if (mkdir(dir, 0755) < 0) {
			say(run->error, sizeof(run->error), "%s: cannot make the run's directory: %s", dir, strerror(errno));
			goto fail;
		}
		made = true;
		/* Empty now: the clean afterwards removes everything the run made in it, never following a link out. */
		if (rp_tree_snap_take(&snap, dir, errbuf) < 0) {
			say(run->error, sizeof(run->error), "%s", errbuf);
			goto fail;
		}
	} else {
		snprintf(dir, sizeof(dir), "%s", t->name);
	}
	rp_replay_opts ro = c->ro;
	ro.target = dir;
	ro.target_entries = made ? 0 : -1; /* a directory of its own, empty; a target of the backend's: not known */
	const int crc = rp_replay_create(&r, &ro, c->w, errbuf);
	if (crc < 0) {
		rp_conv_input_rename(&c->in, errbuf, sizeof(errbuf));
		say(run->error, sizeof(run->error), "%s", errbuf);
		c->usage |= crc == RP_E_RANGE;
		goto fail;
	}
	if (!made) {
		/* A network target probed (connected, logged in to, its root listed) as replay does: one that cannot be
		 * reached is a run that never started, as a missing directory is, not a result of 0 MB/s. */
		uint64_t n = 0;
		const int lrc = rp_replay_target_entries(r, &n, errbuf);
		if (lrc < 0 && lrc != RP_E_UNSUPPORTED && strncmp(dir, "file://", 7) != 0) {
			say(run->error, sizeof(run->error), "%s", errbuf);
			goto fail;
		}
	}
	rp__cli_prov_target(&c->prov, dir);
	rp__cli_prov_cpu_begin(&c->prov);
	/* the machine's load around the run: a slow run on a busy host is not a slow target */
	run->load_start = rp_runenv_loadavg();
	uint64_t tot0 = 0, st0 = 0, tot1 = 0, st1 = 0;
	const bool ticks = rp_runenv_cpu_ticks(&tot0, &st0) == 0;
	bool started = false;
	const int rc = rp__cli_drive(r, "bench", o.r.quiet, &interrupted, &started, &c->in, NULL);
	rp__cli_prov_cpu_end(&c->prov);
	/* A run shorter than one clock tick saw no tick at all, stolen or not: 0, not "unreadable". */
	if (ticks && rp_runenv_cpu_ticks(&tot1, &st1) == 0 && tot1 >= tot0 && st1 >= st0)
		run->steal_share = tot1 > tot0 ? (double)(st1 - st0) / (double)(tot1 - tot0) : 0.0;
	else
		run->steal_share = -1;
	if (!started) {
		/* No result (its times would be the machine's uptime): a failed run, its error said, the target dropped. */
		say(run->error, sizeof(run->error), "the run did not start (the error above)");
		goto fail;
	}
	const rp_replay_results *const res = rp_replay_get_results(r);
	if (ro.on_mismatch != RP_MISMATCH_SKIP)
		rp__cli_warn_samples("bench", res);
	run->result = result_json(res, &c->prov.p);
	if (!run->result)
		say(run->error, sizeof(run->error), "out of memory keeping the result");
	else if (rc < 0 || res->stop == RP_STOP_ERROR || res->stop == RP_STOP_MISMATCH)
		say(run->error, sizeof(run->error), "the run %s", rc < 0 ? "failed" : res->stop == RP_STOP_ERROR
										  ? "ended in an error" : "stopped at a mismatch");
	else if (res->prepare.failures)
		say(run->error, sizeof(run->error), "prepare: %llu of its items failed",
			 (unsigned long long)res->prepare.failures);
	run->failed = run->error[0] != '\0';
	char fl[64] = "";
	if (res->final_sync.ran)
		snprintf(fl, sizeof(fl), ", flush %.3f s", (double)res->final_sync.ns / 1e9);
	else if (rp_replay_flush_why(&res->final_sync))
		snprintf(fl, sizeof(fl), ", flush NOT done (%s)", rp_replay_flush_why(&res->final_sync));
	rp__cli_err("bench", "run %u on %s: %.2f MB/s, %.0f ops/s%s, %llu failed (%llu as recorded), %llu mismatched%s%s%s",
		run->run, t->name, res->mb_per_sec, res->ops_per_sec, fl, (unsigned long long)res->failures,
		(unsigned long long)res->failures_expected, (unsigned long long)res->mismatches,
		o.cold && res->prepare.caches != 1 ? "; caches NOT dropped" : "",
		o.cold && res->prepare.caches == EPERM ? " (--cold needs root)" : "", run->discarded ? " (discarded)" : "");
	rp__cli_warn_timing("bench", res, true);
	rp_replay_destroy(r); /* its descriptors closed before anything is removed */
	r = NULL;
fail:
	if (run->error[0]) {
		run->failed = true;
		rp__cli_err("bench", "%s: run %u: %s", t->name, run->run, run->error);
		if (!run->result)
			t->dead = true; /* it could not even start: the target is not tried again */
	}
	rp_replay_destroy(r);
	if (snap) {
		rp_tree_clean cl;
		if (rp_tree_snap_clean(snap, dir, &cl, errbuf) < 0)
			rp__cli_err("bench", "%s: cleaning up: %s", dir, errbuf);
	}
	if (made && rmdir(dir) < 0)
		rp__cli_err("bench", "%s: %s (left behind)", dir, strerror(errno));
	rp_tree_snap_free(snap);
	return interrupted;
}

static json_t *options_json(const rp_replay_opts *ro, const char *backend_opts, uint64_t mkfs_size)
{
	json_t *const j = json_object();
	json_object_set_new(j, "runs", json_integer((json_int_t)o.runs));
	json_object_set_new(j, "discard_first", json_boolean(o.discard_first));
	json_object_set_new(j, "final_sync", json_boolean(!o.no_final_sync));
	json_object_set_new(j, "cold", json_boolean(o.cold));
	json_object_set_new(j, "spread_limit", json_real(o.spread_limit));
	json_object_set_new(j, "backend", jname(o.r.backend));
	json_object_set_new(j, "backend_opts", jname(backend_opts));
	json_object_set_new(j, "clients", json_integer((json_int_t)o.r.clients));
	json_object_set_new(j, "time_s", json_real(o.r.duration));
	json_object_set_new(j, "warmup_s", o.r.warmup < 0 ? json_null() : json_real(o.r.warmup));
	json_object_set_new(j, "timing", json_string(rp_timing_name(ro->timing)));
	json_object_set_new(j, "speed", json_real(o.r.speed));
	json_object_set_new(j, "max_inflight", o.r.max_inflight == RP_REPLAY_INFLIGHT_AUTO ? json_string("auto")
											  : json_integer((json_int_t)o.r.max_inflight));
	json_object_set_new(j, "no_prepare", json_boolean(o.r.no_prepare));
	json_object_set_new(j, "prepare_fill", json_string(rp_prepare_fill_name(ro->prepare_fill)));
	json_object_set_new(j, "on_mismatch", jname(rp__cli_policies[o.r.on_mismatch]));
	json_object_set_new(j, "mkfs", jname(o.mkfs));
	json_object_set_new(j, "mkfs_dir", jname(o.mkfs_dir));
	json_object_set_new(j, "mkfs_size", o.mkfs ? json_integer((json_int_t)mkfs_size) : json_null());
	return j;
}

static json_t *document(const bench_ctx *c, uint64_t mkfs_size)
{
	json_t *const d = json_object();
	json_object_set_new(d, "schema", json_string("reprise-bench/1"));
	json_t *const tr = json_object();
	json_object_set_new(tr, "path", jname(c->prov.p.trace_path));
	json_object_set_new(tr, "sha256", c->prov.p.trace_sha256 ? json_string(c->prov.p.trace_sha256) : json_null());
	json_object_set_new(tr, "hash_seconds", c->prov.p.hash_seconds < 0 ? json_null() : json_real(c->prov.p.hash_seconds));
	json_object_set_new(d, "trace", tr);
	json_object_set_new(d, "options", options_json(&c->ro, c->backend_opts, mkfs_size));
	json_object_set_new(d, "order", json_incref(c->order));
	json_t *const ts = json_array();
	for (size_t i = 0; i < c->n; i++) {
		const rp_bench_target *const t = &c->t[i];
		json_t *const tj = json_object();
		json_object_set_new(tj, "target", jname(t->name));
		json_object_set_new(tj, "mkfs", jname(t->mkfs));
		json_object_set_new(tj, "fs_type", jname(t->fs_type));
		json_object_set_new(tj, "mount_options", jname(t->mount_opts));
		json_object_set_new(tj, "shared_mount", jname(t->shared_mount));
		json_t *const runs = json_array();
		for (size_t k = 0; k < t->n_runs; k++) {
			const rp_bench_run *const r = &t->runs[k];
			const json_t *const fs = json_object_get(r->result, "final_sync");
			const json_t *const dirty = json_object_get(fs, "dirty_bytes_at_end");
			json_t *const rj = json_object();
			json_object_set_new(rj, "run", json_integer(r->run));
			json_object_set_new(rj, "discarded", json_boolean(r->discarded));
			json_object_set_new(rj, "failed", json_boolean(r->failed));
			json_object_set_new(rj, "error", r->error[0] ? jname(r->error) : json_null());
			json_object_set_new(rj, "final_sync_ns",
					    json_is_true(json_object_get(fs, "ran"))
						    ? json_integer((json_int_t)(json_number_value(json_object_get(fs, "seconds")) * 1e9 + 0.5))
						    : json_null());
			json_object_set_new(rj, "dirty_bytes_at_end", dirty ? json_incref((json_t *)dirty) : json_null());
			json_object_set_new(rj, "load_avg_start", r->load_start >= 0 ? json_real(r->load_start) : json_null());
			json_object_set_new(rj, "cpu_steal_share", r->steal_share >= 0 ? json_real(r->steal_share) : json_null());
			json_object_set_new(rj, "result", r->result ? json_incref(r->result) : json_null());
			json_array_append_new(runs, rj);
		}
		json_object_set_new(tj, "runs", runs);
		json_object_set_new(tj, "summary", t->summary ? json_incref(t->summary) : json_null());
		json_array_append_new(ts, tj);
	}
	json_object_set_new(d, "targets", ts);
	return d;
}

static int bench_main(int argc, char **argv, bench_ctx *c);

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	rp__cli_ropts_defaults(&o.r);
	o.runs = 3;
	o.spread_limit = RP_BT_SPREAD_LIMIT;
	stop_asked = false;
	/* Blocked for the whole command, so an interrupt at any step (mkfs, a run, the cleanup) is seen and every path cleans up. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	bench_ctx c;
	memset(&c, 0, sizeof(c));
	if (rp__cli_prov_init(&c.prov, argc, argv) < 0) {
		rp__cli_err("bench", "out of memory");
		return 1;
	}
	const int st = bench_main(argc, argv, &c);
	rp__cli_prov_free(&c.prov);
	return st;
}

static int bench_main(int argc, char **argv, bench_ctx *c)
{
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	if (rp__cli_dbench_hint("bench", argc, argv))
		return 2;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	if (!rp__cli_ropts_args_ok(&o.r, npos) || (!o.targets.n && !o.mkfs)) {
		if (npos == 0)
			rp__cli_err("bench", "no TRACE or LOADFILE given: what to run");
		if (!o.targets.n && !o.mkfs)
			rp__cli_err("bench", "no --target (or --mkfs) given: where to run it");
		fprintf(stderr, "usage: reprise bench %s\n(see reprise bench --help)\n", spec.usage);
		return 2;
	}
	rp__cli_ropts_warn(&o.r, "bench");
	if (o.discard_first && o.runs < 2) {
		rp__cli_err("bench", "--discard-first needs --runs 2 or more (nothing would be counted)");
		return 2;
	}
	uint64_t mkfs_size = 1ull << 30;
	rp_bench_fsset fss;
	memset(&fss, 0, sizeof(fss));
	if (o.mkfs) {
		if (!o.mkfs_dir) {
			rp__cli_err("bench", "--mkfs needs --mkfs-dir DIR (where the images and mount points go)");
			return 2;
		}
		if (o.mkfs_size && rp_bench_parse_size(o.mkfs_size, &mkfs_size) < 0) {
			rp__cli_err("bench", "--mkfs-size: bad size '%s' (16M to 1T; k, M, G, T are powers of 1024)", o.mkfs_size);
			return 2;
		}
		char eb[RP_ERRBUF_SIZE];
		if (rp_bench_mkfs_parse(&fss, o.mkfs, eb) < 0) {
			rp__cli_err("bench", "--mkfs: %s", eb);
			return 2;
		}
	} else if (o.mkfs_dir || o.mkfs_size) {
		rp__cli_err("bench", "--mkfs-dir and --mkfs-size go with --mkfs");
		return 2;
	}
	if (o.output) {
		if (o.json && strcmp(o.json, o.output) != 0) {
			rp__cli_err("bench", "--output and --json name two different files");
			return 2;
		}
		o.json = o.output;
	}
	rp_replay_opts_init(&c->ro);
	rp_cli_bopts bopts = { 0 };
	const int arc = rp__cli_ropts_apply(&o.r, "bench", &c->ro, &bopts);
	if (arc)
		return arc;
	c->backend_opts = bopts.text;
	c->ro.final_sync = !o.no_final_sync;
	c->ro.drop_caches = o.cold;
	c->dir_backend = !o.r.backend || strcmp(o.r.backend, "posix") == 0;
	int status = 1;
	rp_outfile json = { .f = NULL };
	bool have_in = false, mkfs_made = false;
	if (o.json) {
		for (int i = 0; i < npos; i++) {
			const int same = rp__cli_out_check("bench", o.json, pos[i]);
			if (same) {
				rp__cli_bopts_free(&bopts);
				return same;
			}
		}
	}
	char errbuf[RP_ERRBUF_SIZE];
	const int irc = rp__cli_ropts_open_input(&o.r, "bench", pos, npos, &c->in);
	if (irc) {
		rp__cli_bopts_free(&bopts);
		return irc;
	}
	have_in = true;
	if (rp_workload_open_file(&c->w, c->in.path, o.r.lenient, errbuf) < 0) {
		rp_conv_input_rename(&c->in, errbuf, sizeof(errbuf));
		rp__cli_err("bench", "%s", errbuf);
		goto out;
	}
	if (o.json && rp__cli_out_open(&json, "bench", o.json))
		goto out;
	/* The host, the kernel and the trace's hash once; each run's target in its turn. */
	rp__cli_prov_collect(&c->prov, c->in.name, c->in.path, ".");
	c->t = calloc(o.targets.n + fss.n, sizeof(*c->t));
	c->order = json_array();
	if (!c->t || !c->order) {
		rp__cli_err("bench", "out of memory");
		goto out;
	}
	bool mkfs_bad = false;
	if (o.mkfs) {
		char eb[RP_ERRBUF_SIZE];
		const int made = rp_bench_mkfs_setup(&fss, o.mkfs_dir, mkfs_size, poll_stop, mkfs_note, "--mkfs ", eb);
		for (size_t i = 0; i < fss.n; i++)
			mkfs_made |= fss.fs[i].made_mnt || fss.fs[i].made_img || fss.fs[i].mounted || fss.fs[i].loop[0];
		if (made < 0) {
			/* Not root, or no --mkfs-dir: nothing was made, so no run and no table. */
			rp__cli_err("bench", made == RP_E_STATE ? "--mkfs %s: run bench as root, or give --target DIRs"
							   : "--mkfs-dir %s", eb);
			goto out;
		}
		mkfs_bad = made == 0;
		for (size_t i = 0; i < fss.n; i++) {
			mkfs_bad |= !fss.fs[i].ready && !fss.fs[i].skipped;
			if (fss.fs[i].ready) {
				c->t[c->n].name = fss.fs[i].mnt;
				c->t[c->n++].mkfs = fss.fs[i].type;
			}
		}
	}
	for (size_t i = 0; i < o.targets.n; i++)
		c->t[c->n++].name = o.targets.v[i];
	for (size_t i = 0; i < c->n; i++) {
		rp_bench_target *const t = &c->t[i];
		rp__cli_prov_target(&c->prov, t->name);
		if (c->prov.p.target_fs)
			t->fs_type = strcpy(t->fs_buf, c->prov.tfs.fs);
		if (c->prov.p.target_mount_opts)
			t->mount_opts = strcpy(t->opts_buf, c->prov.tfs.mount_opts);
		/* a directory inside a file system (not its own mount, not --mkfs's): syncfs flushes all of it */
		char real[PATH_MAX];
		if (!t->mkfs && c->prov.tfs.mounted && realpath(t->name, real) && strcmp(real, c->prov.tfs.mount) != 0) {
			t->shared_mount = strcpy(t->mount_buf, c->prov.tfs.mount);
			if (!o.no_final_sync && c->dir_backend)
				rp__cli_err("bench", "%s is a directory of the file system mounted at %s: the flush at end is "
					    "syncfs(2) of that whole file system, other writers' dirty data included "
					    "(a --mkfs file system or a mount of its own times only the run's)",
					    t->name, t->shared_mount);
		}
	}
	const unsigned counted_runs = o.runs - (o.discard_first ? 1u : 0u);
	if (counted_runs >= 2 && counted_runs % 2 == 0)
		rp__cli_err("bench", "%u counted runs: each median is the mean of the middle two%s", counted_runs,
			    o.discard_first ? " (an even --runs with --discard-first gives an odd count, a true median)"
					    : " (an odd --runs gives a true median)");
	bool any_failed = false;
	for (unsigned k = 0; k < o.runs && !poll_stop() && !c->usage; k++)
		for (size_t i = 0; i < c->n && !poll_stop() && !c->usage; i++) {
			if (c->t[i].dead)
				continue;
			if (one_run(c, &c->t[i]))
				stop_asked = true;
			any_failed |= c->t[i].runs[c->t[i].n_runs - 1].failed;
		}
	if (c->usage) { /* said by the run; every target would say it again */
		status = 2;
		goto out;
	}
	/* No target gave a single result (unreachable, refused, ...): the errors said why; a table would be empty. */
	bool any_result = false;
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->t[i].n_runs; k++)
			any_result |= c->t[i].runs[k].result != NULL;
	if (!any_result && !stop_asked) {
		rp__cli_err("bench", "no run on any target started: no table, no result written");
		goto out;
	}
	for (size_t i = 0; i < c->n; i++)
		if (!(c->t[i].summary = rp__bench_summary(&c->t[i]))) {
			rp__cli_err("bench", "out of memory");
			goto out;
		}
	rp__bench_table(json.std ? stderr : stdout, c->t, c->n, o.spread_limit);
	status = stop_asked ? 130 : any_failed || mkfs_bad ? 1 : 0;
	if (o.json) {
		json_t *const d = document(c, mkfs_size);
		const int jrc = d ? json_dumpf(d, json.f, JSON_INDENT(2)) : -1;
		json_decref(d);
		if (jrc < 0 || fputc('\n', json.f) == EOF) {
			rp__cli_err("bench", "%s: %s", json.std ? "standard output" : o.json,
				    d ? "write error" : "out of memory");
			if (json.std)
				clearerr(stdout);
			status = 1;
		} else if (rp__cli_out_commit(&json, "bench") && status != 130) {
			status = 1;
		}
	}
out:
	if (o.json)
		rp_outfile_abort(&json);
	if (o.mkfs && rp_bench_mkfs_teardown(&fss, mkfs_note, NULL) < 0 && status == 0)
		status = 1;
	if (mkfs_made) /* said only of file systems it made */
		rp__cli_err("bench", "--mkfs: the file systems made under %s are removed", o.mkfs_dir);
	for (size_t i = 0; c->t && i < c->n; i++) {
		for (size_t k = 0; k < c->t[i].n_runs; k++)
			json_decref(c->t[i].runs[k].result);
		json_decref(c->t[i].summary);
	}
	free(c->t);
	json_decref(c->order);
	rp_workload_destroy(c->w);
	if (have_in)
		rp_conv_input_close(&c->in);
	rp__cli_bopts_free(&bopts);
	return status;
}

const rp_command rp__cmd_bench = { &spec, run };
