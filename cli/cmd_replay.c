/* reprise replay TRACE --target DIR: run a trace or dbench loadfile against a backend (docs/replay.md). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/provenance.h"
#include "cli/replay_cli.h"
#include "formats/rpz.h"
#include "replay/mpi_run.h"
#include "replay/replay.h"
#include "cli/cmd_replay_mpi.h"

#define RP__STR(x) #x
#define RP__XSTR(x) RP__STR(x)

static struct {
	rp_cli_ropts r; /* what bench takes too */
	const char *target, *json, *output;
	bool list_backends, fail_on_mismatch, strict_timing, drop_caches, cleanup, final_sync, mpi, prepare_only;
	double mpi_timeout;
	uint64_t processes; /* 0: not given (smb:// with --clients N: one process a copy) */
} o;

static const rp_opt options[] = {
	{ .name = "target", .short_name = 'D', .kind = RP_OPT_STRING, .value = &o.target, .arg = "DIR", .help = "replay beneath this directory (or URL, for network backends)" },
	RP_CLI_REPLAY_OPTS_RUN(o.r),
	RP_CLI_REPLAY_OPTS_TIMING(o.r),
	{ .name = "prepare-only", .kind = RP_OPT_FLAG, .value = &o.prepare_only,
	  .help = "run prepare alone, print its line and stop: then start a capture of the target's traffic and replay "
	  "with --no-prepare, so the capture holds the workload's requests only (the closed loop: stat --diff)" },
	{ .name = "drop-caches", .kind = RP_OPT_FLAG, .value = &o.drop_caches,
	  .help = "after prepare, sync and drop the page cache (root; a note says when it could not), so reads start cold" },
	{ .name = "final-sync", .kind = RP_OPT_FLAG, .value = &o.final_sync,
	  .help = "after the last op, syncfs the target's file system and count that time in the run (\"Flush at end\"), "
	  "so the results hold data on stable storage (reprise bench does it by default)" },
	{ .name = "cleanup", .kind = RP_OPT_FLAG, .value = &o.cleanup,
	  .help = "after the run, remove what the run and prepare made beneath TARGET (never what was there before): "
		  "a directory, nfs:// and smb://, through the backend's own calls" },
	RP_CLI_REPLAY_OPTS_MISMATCH(o.r),
	{ .name = "fail-on-mismatch", .kind = RP_OPT_FLAG, .value = &o.fail_on_mismatch,
	  .help = "run to the end, then exit 1 if any op's result differed from the recording" },
	{ .name = "strict-timing", .kind = RP_OPT_FLAG, .value = &o.strict_timing,
	  .help = "trace/think timing: run to the end, then exit 1 if the run fell behind its schedule (--behind-span, "
	  "--behind-lag)" },
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.output, .arg = "FILE", .help = "the run's results, as JSON, to FILE: the same as --json FILE" },
	{ .name = "json", .short_name = 'j', .kind = RP_OPT_STRING, .value = &o.json, .arg = "FILE", .help = "write every result as JSON to FILE, created before the run and renamed into place after it (- = stdout: the JSON alone, the table on stderr)" },
	RP_CLI_REPLAY_OPTS_IO(o.r),
	{ .name = "list-backends", .kind = RP_OPT_FLAG, .value = &o.list_backends, .help = "list the built-in backends and their options" },
	{ .name = "mpi", .kind = RP_OPT_FLAG, .value = &o.mpi,
	  .help = "run under mpirun: the --clients copies (else the trace's own clients) are dealt across the ranks, "
	  "which start together; rank 0 broadcasts the trace, prints the merged table and writes the JSON (docs/mpi.md)" },
	{ .name = "processes", .short_name = 'P', .kind = RP_OPT_UINT, .value = &o.processes, .arg = "N",
	  .help = "run the clients in N processes of this host (1-" RP__XSTR(RP_PROCS_MAX) "; 1: threads of this one), dealt and "
	  "merged as --mpi deals and merges ranks; default: for smb:// with --clients N, one process per copy up to "
	  RP__XSTR(RP_PROCS_AUTO) " (libsmbclient runs one request of a process at a time), else 1",
	  .min = 1, .max = RP_PROCS_MAX },
	{ .name = "mpi-timeout", .kind = RP_OPT_DURATION, .value = &o.mpi_timeout, .arg = "DURATION",
	  .help = "--mpi: give up and end the job when a rank waits this long for the others in a phase or after its run "
	  "(default 300 s)", .min = 1, .max = 1e6 },
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "replay",
	.usage = "[options] TRACE|LOADFILE --target DIR  (or: --clients-from TRACE... --target DIR)",
	.summary = "replay a trace or dbench loadfile against a directory (or another backend)",
	.details =
		"Each client runs in its own thread and keeps its own program order; --order resource also keeps\n"
		"the recorded order of ops on one path across clients, and auto (the default) picks it when the\n"
		"clients share a changed path, a handle, a fork or a wait.\n"
		"--clients-from A B... replays several traces side by side, all in TARGET: trace k's clients come\n"
		"after those of traces 1..k-1 (reprise merge's numbering, printed first) and every trace's time\n"
		"starts at the run's start (at most 4,096 traces).\n"
		"A trace with several clients replays them as they are, all in TARGET. --clients N runs N\n"
		"copies of the workload, copy k in its own directory TARGET/clientk (paths inside are not\n"
		"rewritten), so 'reprise replay client.txt --target /mnt/x --clients 4 -t 60' is dbench's\n"
		"'dbench -c client.txt -D /mnt/x -t 60 4'.  --processes N: the clients in N processes, merged\n"
		"as --mpi merges ranks (smb:// with --clients N: a process per copy).\n\n"
		"Before the run, prepare creates the files and directories the workload uses as existing but\n"
		"never creates itself (a path that is the parent of another, or that an op lists or flags as one,\n"
		"is a directory); a file gets the size its reads need beyond what the workload itself writes or\n"
		"sets. --no-prepare skips it.\n"
		"Prepared files hold data (--prepare-fill), so reads of them read blocks, not holes.\n"
		"Prepare never rewrites what is there: it creates missing files exclusively, keeps a file long\n"
		"enough as it is and writes only beyond the end of one too short, with a warning saying how many\n"
		"(--prepare-overwrite rewrites them whole, as before).\n"
		"With --time the workload loops; the warm-up (default --time/5) runs first and is left out of the\n"
		"results. A progress line is printed each second; Ctrl-C stops cleanly and still reports.\n\n"
		"--max-inflight N lets a client issue an op while up to N-1 of its earlier ops still run, where\n"
		"the trace shows them overlapping (an op started before an earlier one ended) and it does not\n"
		"depend on them (an open before the ops on its handle, those before the close, ops that change a\n"
		"name in order with the ops on it or beneath it, writes in order with I/O on the same bytes, locks\n"
		"in order with I/O on their handle). Synchronous backends use N-1 worker threads per client. The\n"
		"default, auto, is each client's recorded depth, capped; the results show it beside the depth\n"
		"reached and the depth recorded.\n\n"
		"The posix backend resolves every path beneath TARGET (openat2 RESOLVE_BENEATH): no '..',\n"
		"absolute path or symlink in a trace can reach outside it. Without --backend, the target's URL\n"
		"scheme picks the backend that declares it (a directory path or file:///dir: posix); nfs:// and\n"
		"smb:// targets need the network backends, which this build may be without (it says so). An op a\n"
		"backend cannot express is not sent to it and is counted as unsupported, apart from failures\n"
		"and mismatches.\n\n"
		"Failed counts the ops that returned an error; most workloads have some on purpose (dbench's\n"
		"client.txt opens and stats names that do not exist), and the line under the table says how many\n"
		"were as the trace recorded. Mismatch counts the ops whose result differs from the recording (an\n"
		"error it did not have, another error, or a success where it failed): those, grouped by op,\n"
		"expected and actual result, are what to look at. Replay into an empty directory: a warning says\n"
		"when TARGET is not, and --cleanup removes afterwards what the run made.\n\n"
		"In trace and think timing the results say how long the ops took against the span they had in\n"
		"the recording (scaled by --speed), with the issue lag; when the run fell behind (its span over\n"
		"--behind-span times the recorded one, or a lag p99 over --behind-lag) a warning says so at the end,\n"
		"as the JSON's schedule.behind does. More than 1 % of the ops mismatched makes the results not\n"
		"representative of the trace: a loud line after the table says so, with the likely cause (the\n"
		"order across clients, prepare, a target that was not empty).\n\n"
		"Exit status: 0 done, 1 the run failed, was aborted on a mismatch, had one under\n"
		"--fail-on-mismatch or fell behind under --strict-timing, 2 bad usage, 130 interrupted.",
	.details_more = rp__cli_backends_help,
	.opts = options,
	.min_args = 0,
	.max_args = RP_OPTS_MAX_POS,
};

/* Entries directly in dir (-1: it cannot be listed, which the backend will say). */
static long count_entries(const char *dir)
{
	DIR *const d = opendir(dir);
	if (!d)
		return -1;
	long n = 0;
	for (const struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/*
 * A trace without its index was cut or never finished: replay runs the whole
 * frames it holds.  Say so before the run, with the note cat and stat print
 * (docs/rpz-format.md §6), which takes one pass over the frames.
 */
static void warn_cut(const rp_cli_in *in)
{
	const char *const path = in->path;
	char errbuf[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	const rp_read_opts ro = { .lenient = o.r.lenient };
	if (rp_reader_open(&r, path, &ro, errbuf) < 0)
		return; /* rp_workload_open_file has reported it */
	rp_rpz_info info;
	if (rp_rpz_reader_info(r, &info) == 0 && !info.has_index) {
		rp_op op;
		while (rp_reader_next(r, &op) > 0)
			;
		rp_conv_input_rename(in, r->note, sizeof(r->note));
		rp__cli_err("replay", "warning: %s", r->note[0] ? r->note : "the trace has no index (cut or unfinished)");
	} else if (r->meta.flags & RP_META_TRUNCATED) {
		rp__cli_err("replay", "warning: %s: flagged truncated: its input was cut or its producer stopped early",
			    in->name);
	}
	rp_reader_close(r);
}

/* The "Cleanup:" line, and the error of a cleanup that could not remove everything. */
static void say_cleanup(FILE *f, const rp_tree_clean *cl, int rc, const char *errbuf, const char *unsure_why)
{
	fprintf(f, "Cleanup: %llu entr%s the run made removed, %llu of before left", (unsigned long long)cl->removed,
		cl->removed == 1 ? "y" : "ies", (unsigned long long)cl->kept);
	if (cl->unsure)
		fprintf(f, ", %llu left unsure (%s)", (unsigned long long)cl->unsure, unsure_why);
	fputc('\n', f);
	if (rc < 0)
		rp__cli_err("replay", "--cleanup: %s", errbuf);
}

static int replay_main(int argc, char **argv, rp_cli_prov *prov);

/* --mpi (when this build has it) and --processes N: the run is cmd_replay_mpi.c's. */
static int run_mpi(rp_replay_opts *ro, const char *trace, rp_cli_prov *prov, unsigned processes)
{
#ifndef RP_HAVE_MPI
	if (!processes) {
		rp__cli_err("replay", "--mpi: this reprise was built without MPI (meson setup -Dmpi=enabled, with libopenmpi-dev)");
		return 2;
	}
#endif
	if (o.cleanup) {
		rp__cli_err("replay", processes ? "--cleanup does not go with --processes (each process prepares its own share)"
						: "--cleanup does not go with --mpi: the ranks' copies may be on other hosts");
		return 2;
	}
	const rp_cli_mpi_args a = { .trace = trace, .ro = ro, .r = &o.r, .json = o.json,
				    .fail_on_mismatch = o.fail_on_mismatch, .strict_timing = o.strict_timing,
				    .timeout_s = o.mpi_timeout, .processes = processes,
				    .argc = prov->p.argc, .argv = prov->p.argv, .prov = prov };
	return rp__cli_replay_mpi(&a);
}

/* How many processes the run takes: --processes, else one per copy for smb:// (its library serialises a process). */
static unsigned processes_of(const rp_replay_opts *ro)
{
	if (o.processes)
		return o.processes > 1 ? (unsigned)o.processes : 0;
	const bool smb = o.r.backend ? strcmp(o.r.backend, "smb") == 0 : strncmp(o.target, "smb://", 6) == 0;
	if (!smb || o.mpi || o.r.clients_from || ro->clones < 2)
		return 0;
	if (o.cleanup) {
		rp__cli_err("replay", "note: --cleanup keeps the %u copies in this process (it does not go with --processes), "
			    "where libsmbclient runs one request at a time", ro->clones);
		return 0;
	}
	return ro->clones < RP_PROCS_AUTO ? ro->clones : RP_PROCS_AUTO;
}

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	rp__cli_ropts_defaults(&o.r);
	o.mpi_timeout = 300;
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
	if (rp__cli_dbench_hint("replay", argc, argv))
		return 2;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	if (o.list_backends) {
		rp__cli_backends_help(stdout);
		return 0;
	}
	if (!rp__cli_ropts_args_ok(&o.r, npos) || !o.target) {
		/* What is missing first, then the usage. */
		if (npos == 0)
			rp__cli_err("replay", "no TRACE or LOADFILE given: what to replay");
		else if (!o.r.clients_from && npos == 2 && pos[1][0] && strspn(pos[1], "0123456789") == strlen(pos[1]))
			rp__cli_err("replay", "'%s' after the trace: dbench's client count is --clients %s here", pos[1], pos[1]);
		else if (!o.r.clients_from && npos > 1)
			rp__cli_err("replay", "%d inputs given: replay takes one (--clients-from for several side by side)", npos);
		if (!o.target)
			rp__cli_err("replay", "no --target given: where to replay (a directory, nfs://host/export or smb://host/share)");
		fprintf(stderr, "usage: reprise replay %s\n(see reprise replay --help)\n", spec.usage);
		return 2;
	}
	rp__cli_ropts_warn(&o.r, "replay");
	if (o.strict_timing && o.r.timing == 0)
		rp__cli_err("replay", "warning: --strict-timing does nothing under afap timing (it has no schedule to fall behind)");
	if (o.mpi_timeout != 300 && !o.mpi && o.processes < 2)
		rp__cli_err("replay", "warning: --mpi-timeout does nothing without --mpi or --processes N");
	rp_replay_opts ro;
	rp_replay_opts_init(&ro);
	rp_cli_bopts bopts = { 0 };
	ro.target = o.target;
	const int arc = rp__cli_ropts_apply(&o.r, "replay", &ro, &bopts);
	if (arc)
		return arc;
	ro.drop_caches = o.drop_caches;
	ro.final_sync = o.final_sync;
	const rp_on_mismatch policy = ro.on_mismatch;
	/* The posix backend works in a directory; the others (null, fault, network) leave nothing in one. */
	const bool dir_target = !strstr(o.target, "://") && (!o.r.backend || strcmp(o.r.backend, "posix") == 0);
	if (o.output) {
		/* -o/--output is every command's output: replay's is its results */
		if (o.json && strcmp(o.json, o.output) != 0) {
			rp__cli_err("replay", "--output and --json name two different files");
			rp__cli_bopts_free(&bopts);
			return 2;
		}
		o.json = o.output;
	}
	if (o.json) {
		for (int i = 0; i < npos; i++) {
			const int same = rp__cli_out_check("replay", o.json, pos[i]);
			if (same) {
				rp__cli_bopts_free(&bopts);
				return same;
			}
		}
	}

	if (o.prepare_only) {
		const char *const no = o.r.no_prepare ? "--no-prepare" : o.mpi ? "--mpi" : o.processes > 1 ? "--processes"
				      : o.json ? "--json" : o.cleanup ? "--cleanup" : o.fail_on_mismatch ? "--fail-on-mismatch"
				      : NULL;
		if (no) {
			rp__cli_err("replay", "--prepare-only runs prepare alone: %s does not go with it", no);
			rp__cli_bopts_free(&bopts);
			return 2;
		}
	}
	const unsigned processes = o.prepare_only ? 0 : processes_of(&ro);
	if ((o.mpi || processes) && o.r.clients_from) {
		rp__cli_err("replay", "--clients-from does not go with %s: merge the traces first (reprise merge) and replay that",
			    o.mpi ? "--mpi" : "--processes");
		rp__cli_bopts_free(&bopts);
		return 2;
	}
	if (o.mpi && o.processes > 1) {
		rp__cli_err("replay", "--processes does not go with --mpi: mpirun -np N starts the processes");
		rp__cli_bopts_free(&bopts);
		return 2;
	}
	/* What is in the target before the run, for the warning below and the guess at why a run mismatched. */
	const long before = dir_target ? count_entries(o.target) : -1;
	ro.target_entries = before;
	if (o.mpi || processes) {
		const int mst = run_mpi(&ro, pos[0], prov, o.mpi ? 0 : processes);
		rp__cli_bopts_free(&bopts);
		return mst;
	}
	char errbuf[RP_ERRBUF_SIZE];
	rp_workload *w = NULL;
	rp_cli_in in; /* a pipe is spooled: the plan and every client read the trace again */
	/* --clients-from: the traces merged into one spooled .rpz, each trace's clients after the previous ones' */
	const int irc = rp__cli_ropts_open_input(&o.r, "replay", pos, npos, &in);
	if (irc) {
		rp__cli_bopts_free(&bopts);
		return irc;
	}
	rp_cli_phase ph; /* a line on a terminal saying what the long steps before the run are doing */
	rp__cli_phase_init(&ph, o.r.quiet);
	rp__cli_phase(&ph, "replay", "reading the trace");
	if (rp_workload_open_file(&w, in.path, o.r.lenient, errbuf) < 0) {
		rp__cli_phase(&ph, "replay", NULL);
		rp_conv_input_rename(&in, errbuf, sizeof(errbuf));
		rp__cli_err("replay", "%s", errbuf);
		rp_conv_input_close(&in);
		rp__cli_bopts_free(&bopts);
		return 1;
	}
	rp__cli_phase(&ph, "replay", NULL);
	warn_cut(&in);
	/* Created now, so a JSON path that cannot be written fails before a long run rather than after it. */
	rp_outfile json = { .f = NULL };
	if (o.json && rp__cli_out_open(&json, "replay", o.json)) {
		rp_workload_destroy(w);
		rp_conv_input_close(&in);
		rp__cli_bopts_free(&bopts);
		return 1;
	}
	rp_replay *r = NULL;
	rp_tree_snap *snap = NULL;
	rp_replay_snap *nsnap = NULL;
	int status = 1;
	rp__cli_phase(&ph, "replay", "scanning the trace: its clients, what prepare makes, the order across clients");
	const int cr = rp_replay_create(&r, &ro, w, errbuf);
	rp__cli_phase(&ph, "replay", NULL);
	if (cr < 0) {
		rp_conv_input_rename(&in, errbuf, sizeof(errbuf));
		rp__cli_err("replay", "%s", errbuf);
		if (cr == RP_E_RANGE) /* the options do not fit the workload (--timing trace of an untimed loadfile) */
			status = 2;
		goto out;
	}
	/* Before prepare: what prepare makes is the run's, what is there already is not. */
	if (dir_target && o.cleanup && rp_tree_snap_take(&snap, o.target, errbuf) < 0) {
		rp__cli_err("replay", "--cleanup: %s", errbuf);
		goto out;
	}
	/* A target the backend walks (nfs://, smb://): the same, through the backend's own calls. */
	if (!dir_target && o.cleanup) {
		const int src = rp_replay_snap_take(r, &nsnap, errbuf);
		if (src == RP_E_UNSUPPORTED) {
			rp__cli_err("replay", "warning: --cleanup does nothing here: %s", errbuf);
		} else if (src < 0) {
			rp__cli_err("replay", "--cleanup: %s", errbuf);
			goto out;
		}
	}
	long shown = before;
	if (nsnap) {
		const uint64_t n = rp_replay_snap_entries(nsnap);
		shown = n > LONG_MAX ? LONG_MAX : (long)n;
	} else if (!dir_target && !ro.no_prepare) {
		/*
		 * A network target lists its root through the backend: a connection, a login and the share's directory
		 * probed before anything is printed, so one that cannot be reached fails here, as a missing directory
		 * does, not with an empty table after prepare.  Not with --no-prepare: no warning is given then, and a
		 * capture of the run has only its requests (one unreachable fails at the clients' connect).
		 */
		uint64_t n = 0;
		rp__cli_phase(&ph, "replay", "connecting to the target");
		const int lrc = rp_replay_target_entries(r, &n, errbuf);
		rp__cli_phase(&ph, "replay", NULL);
		if (lrc == 0) {
			shown = n > LONG_MAX ? LONG_MAX : (long)n;
		} else if (lrc != RP_E_UNSUPPORTED && strncmp(o.target, "file://", 7) != 0) {
			/* (file://DIR is posix's: a directory checked when the backend was made, its root not listed) */
			rp__cli_err("replay", "%s", errbuf);
			rp__cli_err("replay", "the target cannot be reached: nothing ran, no result written");
			goto out;
		}
	}
	if (shown > 0 && !ro.no_prepare) /* --no-prepare: the tree is the one the user made ready (--prepare-only) */
		rp__cli_err("replay",
			    "warning: %s is not empty (%ld entr%s before the run): what is there can change what the "
			    "trace's ops find, and mismatches with it; replay into an empty directory%s",
			    o.target, shown, shown == 1 ? "y" : "ies",
			    o.cleanup ? " (--cleanup leaves what was there)" : "");
	if (o.prepare_only) {
		if (rp_replay_prepare(r, errbuf) < 0) {
			rp_conv_input_rename(&in, errbuf, sizeof(errbuf));
			rp__cli_err("replay", "%s", errbuf);
			goto clean;
		}
		const rp_replay_results *const pres = rp_replay_get_results(r);
		rp_replay_write_prepare(pres, stdout);
		status = pres->prepare.failures ? 1 : 0;
		goto clean;
	}
	if (o.json) /* hashes the trace: after the scan has read it, before the CPU time is counted */
		rp__cli_prov_collect(prov, in.name, in.path, o.target);
	bool interrupted = false;
	rp__cli_prov_cpu_begin(prov);
	bool started = false;
	const int rc = rp__cli_drive(r, "replay", o.r.quiet, &interrupted, &started, &in, &ro);
	rp__cli_prov_cpu_end(prov);
	if (!started) {
		/* Nothing ran (the backend could not connect, ...): no table, no JSON that compare would take for a
		 * 0 MB/s run.  The error was printed. */
		rp__cli_err("replay", "the run did not start: no result written");
		goto clean;
	}
	const rp_replay_results *const res = rp_replay_get_results(r);
	/* --json -: standard output holds the JSON alone, and the table goes to stderr. */
	rp_replay_write_table(res, json.std ? stderr : stdout);
	if (policy != RP_MISMATCH_SKIP)
		rp__cli_warn_samples("replay", res);
	status = rc < 0 || res->stop == RP_STOP_MISMATCH || res->stop == RP_STOP_ERROR ? 1
		 : interrupted ? 130 : 0;
	if (status == 0 && o.fail_on_mismatch && res->mismatches) {
		rp__cli_err("replay", "%llu mismatch%s (--fail-on-mismatch)", (unsigned long long)res->mismatches,
			    res->mismatches == 1 ? "" : "es");
		status = 1;
	}
	if (rp__cli_warn_timing("replay", res, false) && o.strict_timing && status == 0) {
		rp__cli_err("replay", "behind the recorded timing (--strict-timing)");
		status = 1;
	}
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
clean:
	if (snap) {
		/* The backend's descriptors and the run's handles are closed before anything is removed. */
		rp_replay_destroy(r);
		r = NULL;
		if (o.json && !json.std)
			rp_tree_snap_keep(snap, o.json); /* the report may be beneath the target: it is not the run's */
		rp_tree_clean cl;
		const int crc = rp_tree_snap_clean(snap, o.target, &cl, errbuf);
		say_cleanup(json.std ? stderr : stdout, &cl, crc, errbuf, "the snapshot could not see them and they have no birth time");
		if (crc < 0 && status == 0)
			status = 1;
	}
	if (nsnap && started) {
		/* Through the backend: before it is destroyed; the run's client states are closed already. */
		rp_tree_clean cl;
		const int crc = rp_replay_snap_clean(r, nsnap, &cl, errbuf);
		say_cleanup(json.std ? stderr : stdout, &cl, crc, errbuf, "the server gave them no identity");
		if (crc < 0 && status == 0)
			status = 1;
	}
out:
	if (o.json)
		rp_outfile_abort(&json); /* no-op after a commit; a run that never started leaves no JSON */
	rp_replay_destroy(r);
	rp_tree_snap_free(snap);
	rp_replay_snap_free(nsnap);
	rp_workload_destroy(w);
	rp_conv_input_close(&in);
	rp__cli_bopts_free(&bopts);
	return status;
}

const rp_command rp__cmd_replay = { &spec, run };
