/* What `reprise replay` and `reprise bench` share: the replay options, their table entries, and driving one run. */
#ifndef REPRISE_CLI_REPLAY_CLI_H
#define REPRISE_CLI_REPLAY_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/input.h"
#include "cli/opts.h"
#include "replay/replay.h"

/* The options that shape a run, as parsed (rp__cli_ropts_defaults first). */
typedef struct rp_cli_ropts {
	const char *backend, *user, *authfile;
	rp_optlist backend_opts; /* every -O list, in the order given */
	unsigned timing, on_mismatch, prepare_fill, order; /* indices into rp__cli_timings ... (rp_timing ... order) */
	uint64_t clients, max_inflight; /* max_inflight 0: auto (RP_REPLAY_INFLIGHT_AUTO) */
	double clone_offset, duration, warmup, speed;
	double behind_span, behind_lag; /* --behind-span, --behind-lag (seconds) */
	bool no_prepare, prepare_overwrite, sync, fsync_writes, quiet, lenient, clients_from;
	const char *image;       /* --image MODEL|impressions (NULL: none) */
	double image_scale;
	uint64_t seed, image_max_files, image_max_bytes, image_max_file_size;
} rp_cli_ropts;

/* Table entries (cli/opts.h) for an rp_cli_ropts r, in the order --help lists them: how the workload runs ... */
#define RP_CLI_REPLAY_OPTS_RUN(r) \
	{ .name = "clients", .short_name = 'c', .kind = RP_OPT_UINT, .value = &(r).clients, .arg = "N", \
	  .help = "run N copies of the workload, copy k in TARGET/clientk (default: the trace's own clients, in TARGET); " \
	  "1-8192, and at most 8192 clients in all", .min = 1, .max = RP_REPLAY_CLIENTS_MAX }, \
	{ .name = "clients-from", .kind = RP_OPT_FLAG, .value = &(r).clients_from, \
	  .help = "the arguments are several traces (TRACE...), replayed side by side: each trace's clients after the " \
	  "previous traces' (as reprise merge numbers them), each trace timed from its own start" }, \
	{ .name = "clone-offset", .kind = RP_OPT_DURATION, .value = &(r).clone_offset, .arg = "DURATION", .help = "start copy k this much after copy k-1 (at most 1000000 s)", .min = 0, .max = 1e6 /* 11 days: copy k's start, k up to 8192, stays within 64-bit ns */ }, \
	{ .name = "time", .short_name = 't', .kind = RP_OPT_DURATION, .value = &(r).duration, .arg = "DURATION", \
	  .help = "measure for this long, looping the workload (default: one pass, no warm-up); 1 ms to 1e8 s", .min = 1e-3, .max = 1e8 /* a run shorter than the clock's granularity measures nothing; 3 years */ }, \
	{ .name = "warmup", .kind = RP_OPT_DURATION, .value = &(r).warmup, .arg = "DURATION", \
	  .help = "run this long before measuring (default: --time / 5, as dbench); at most 1e8 s", .min = 0, .max = 1e8 }, \
	{ .name = "timing", .kind = RP_OPT_ENUM, .value = &(r).timing, .choices = rp__cli_timings, .arg = "MODE", \
	  .help = "afap (as fast as possible, default), trace (at recorded times), think (recorded gaps)" }, \
	{ .name = "speed", .kind = RP_OPT_DOUBLE, .value = &(r).speed, .arg = "X", .help = "trace/think timing: play recorded time X times faster (0.000001 to 1e9)", .min = 1e-6, .max = 1e9 }, \
	{ .name = "max-inflight", .kind = RP_OPT_UINT, .value = &(r).max_inflight, .arg = "N|auto", .word = "auto", \
	  .help = "let up to N ops of one client be in flight at once where the trace has them overlap and they do not " \
	  "depend on each other (1: one at a time; up to 1024); auto (default): each client up to the depth the trace " \
	  "recorded for it, at most 1024 on an asynchronous backend (nfs), 64 on a synchronous one (posix, smb), and " \
	  "4096 worker threads in all", .min = 1, .max = RP_REPLAY_MAX_INFLIGHT }, \
	{ .name = "order", .kind = RP_OPT_ENUM, .value = &(r).order, .choices = rp__cli_orders, .arg = "MODE", \
	  .help = "client (each client keeps its own order, clients never wait for each other), resource " \
	  "(also keep the recorded order of ops on one path across clients: a client waits for the ops " \
	  "recorded before its op on that path) or auto (default: resource when the trace's clients share a path " \
	  "one of them changes, a handle or a fork or wait op, else client; client when resource's tables would not fit, with a warning)" }, \
	{ .name = "backend", .short_name = 'b', .kind = RP_OPT_STRING, .value = &(r).backend, .arg = "NAME", \
	  .help = "posix, null, fault, nfs or smb, as built (--list-backends; default: the one that takes --target's URL scheme, posix for a directory)" }, \
	{ .name = "backend-opt", .short_name = 'O', .kind = RP_OPT_LIST, .value = &(r).backend_opts, .arg = "LIST", \
	  .help = "backend options, comma-separated name[=value], typed and range-checked (the backends below); repeatable, " \
	  "each list's items after the previous one's" }, \
	{ .name = "user", .kind = RP_OPT_STRING, .value = &(r).user, .arg = "[DOMAIN\\]USER[%PASS]", \
	  .help = "smb: log in as USER (the password from PASS, else --authfile, else $REPRISE_SMB_PASSWORD; default: guest); " \
	  "the password is never printed, nor kept in the JSON" }, \
	{ .name = "authfile", .kind = RP_OPT_STRING, .value = &(r).authfile, .arg = "FILE", \
	  .help = "smb: credentials from FILE, in smbclient's -A format (username = U, password = P, domain = D lines)" }, \
	{ .name = "sync", .short_name = 's', .kind = RP_OPT_FLAG, .value = &(r).sync, .help = "posix: open files O_SYNC (dbench -s)" }, \
	{ .name = "fsync-writes", .short_name = 'F', .kind = RP_OPT_FLAG, .value = &(r).fsync_writes, .help = "posix: fsync after every write (dbench -F)" }, \
	{ .name = "no-prepare", .kind = RP_OPT_FLAG, .value = &(r).no_prepare, \
	  .help = "do not create the files and directories the workload expects to exist" }, \
	{ .name = "prepare-fill", .kind = RP_OPT_ENUM, .value = &(r).prepare_fill, .choices = rp__cli_fills, .arg = "MODE", \
	  .help = "what prepared files hold: data (default: a non-zero pattern, every block written), zero (zeros, " \
	  "written), sparse (only the size: one byte at the end, reads hit holes)" }, \
	{ .name = "prepare-overwrite", .kind = RP_OPT_FLAG, .value = &(r).prepare_overwrite, \
	  .help = "let prepare rewrite files that are already there, whole (by default it never rewrites a byte: it " \
	  "keeps a file long enough and writes only beyond the end of one too short, with a warning)" }, \
	{ .name = "image", .kind = RP_OPT_STRING, .value = &(r).image, .arg = "MODEL|impressions", \
	  .help = "prepare also makes a realistic initial image beside what the trace uses, under TARGET/rp-image " \
	  "(a name no path of the trace uses): files and directories the trace never touches, their sizes, depths " \
	  "and files per directory drawn from a reprise model's file set (MODEL.json) or Impressions' defaults " \
	  "(impressions: 20000 files in 4000 directories, lognormal body and Pareto tail of sizes), every byte " \
	  "written (docs/image.md)" }, \
	{ .name = "image-scale", .kind = RP_OPT_DOUBLE, .value = &(r).image_scale, .arg = "F", \
	  .help = "multiply the image's file and directory counts (and so its bytes) by F (default 1; up to 1e6)", \
	  .min = 1e-6, .max = 1e6 }, \
	{ .name = "seed", .kind = RP_OPT_UINT, .value = &(r).seed, .arg = "S", \
	  .help = "the image's seed: the same seed, spec and scale make the same tree, names, sizes and bytes (default 1; 0 to 2^53)", \
	  .min = 0, .max = 9007199254740992.0 }, \
	{ .name = "image-max-files", .kind = RP_OPT_UINT, .value = &(r).image_max_files, .arg = "N", \
	  .help = "refuse an image of more than N files and directories in all (default 1000000; at most 100000000)", \
	  .min = 1, .max = RP_IMAGE_FILES_HARD }, \
	{ .name = "image-max-bytes", .kind = RP_OPT_SIZE, .value = &(r).image_max_bytes, .arg = "SIZE", \
	  .help = "refuse an image whose drawn sizes add up to more than SIZE, before anything is written (default 16G; at most 1P)", \
	  .min = 0, .max = 1125899906842624.0 }, \
	{ .name = "image-max-file-size", .kind = RP_OPT_SIZE, .value = &(r).image_max_file_size, .arg = "SIZE", \
	  .help = "cut a drawn file size above SIZE to SIZE, counted in the summary (default 1G; at most 1P)", \
	  .min = 0, .max = 1125899906842624.0 }
/* ... when trace and think timing fell behind their schedule ... */
#define RP_CLI_REPLAY_OPTS_TIMING(r) \
	{ .name = "behind-span", .kind = RP_OPT_DOUBLE, .value = &(r).behind_span, .arg = "X", \
	  .help = "trace/think timing: warn at the end that the run fell behind its schedule when its ops took more than X " \
	  "times the span they had in the recording, first start to last end, scaled by --speed (default 1.05; 1 to 1e6)", \
	  .min = 1, .max = 1e6 }, \
	{ .name = "behind-lag", .kind = RP_OPT_DURATION, .value = &(r).behind_lag, .arg = "DURATION", \
	  .help = "trace/think timing: warn the same when the issue lag's p99 is over DURATION (default 10ms; up to 1e6 s)", \
	  .min = 0, .max = 1e6 }
/* ... what a mismatch does ... */
#define RP_CLI_REPLAY_OPTS_MISMATCH(r) \
	{ .name = "on-mismatch", .kind = RP_OPT_ENUM, .value = &(r).on_mismatch, .choices = rp__cli_policies, .arg = "POLICY", \
	  .help = "warn (default): count and show examples; skip: count, and skip ops on handles whose open failed; " \
	  "abort: stop at the first mismatch (exit 1)" }
/* ... and the progress line and the input. */
#define RP_CLI_REPLAY_OPTS_IO(r) \
	{ .name = "quiet", .short_name = 'q', .kind = RP_OPT_FLAG, .value = &(r).quiet, .help = "no progress line on stderr" }, \
	{ .name = "lenient", .kind = RP_OPT_FLAG, .value = &(r).lenient, .help = "loadfiles and strace logs: skip bad lines, count them" }

/* The choices of --timing, --order, --prepare-fill and --on-mismatch, NULL-terminated, in the order of
 * rp_timing, rp_order_mode, rp_prepare_fill and rp_on_mismatch (replay/replay.h). */
extern const char *const rp__cli_timings[], *const rp__cli_orders[], *const rp__cli_fills[], *const rp__cli_policies[];

/*
 * What a long silent step is doing (reading a trace, its scan, prepare), as
 * one line on stderr that the next step overwrites and the run's first
 * output clears: only when stderr is a terminal and not quiet, so pipes,
 * logs and tests see nothing of it.
 */
typedef struct rp_cli_phase {
	bool tty;   /* stderr is a terminal and not quiet */
	bool shown; /* a line is on the terminal */
} rp_cli_phase;
void rp__cli_phase_init(rp_cli_phase *p, bool quiet);
/* "reprise CMD: WHAT..." in place of the previous one; what NULL: the line cleared. */
void rp__cli_phase(rp_cli_phase *p, const char *cmd, const char *what);

void rp__cli_ropts_defaults(rp_cli_ropts *r);
/* On stderr, a warning for each option given that does nothing with the others (--speed under afap, ...). */
void rp__cli_ropts_warn(const rp_cli_ropts *r, const char *cmd);
/*
 * dbench's habit 'dbench -c client.txt -t 5 4' (the loadfile after -c, the
 * client count positional): before parsing, 2 after saying how reprise spells
 * it (the loadfile positional, --clients N, --target DIR), else 0.
 */
int rp__cli_dbench_hint(const char *cmd, int argc, char **argv);

/* The positional arguments a run takes: one trace, or (--clients-from) one or more. */
bool rp__cli_ropts_args_ok(const rp_cli_ropts *r, int npos);
/*
 * The run's input into *in: pos[0] (spooled if a stream, converted if only a
 * converter reads it), or with --clients-from pos[0..npos) merged into one
 * spooled trace (cli/merge_cli.h).  0, or an exit status after printing the
 * error (*in is closed then).
 */
int rp__cli_ropts_open_input(const rp_cli_ropts *r, const char *cmd, char *const *pos, int npos, rp_cli_in *in);

/* The backend's options as rp__cli_ropts_apply made them: items, each taken whole, pointing into list and argv. */
typedef struct rp_cli_bopts {
	rp_backend_item *items; /* the -O items, then --sync, --fsync-writes, --user, --authfile */
	size_t n;
	char *list;             /* -O's list split in place */
	size_t list_len;
	char *text;             /* the items as one "a=1,sync,user=U%***" line (bench's JSON); never a password */
	rp_image_spec image_spec; /* --image's, read once; ro->image points to image */
	rp_image_opts image;
} rp_cli_bopts;

/*
 * The parsed options into ro (rp_replay_opts_init first; the target is the
 * caller's).  *bopts gets the backend's items: the -O list's, split once,
 * then --sync and --fsync-writes (posix's) and --user and --authfile (smb's
 * user and authfile, as given); ro->backend_items points to them, until
 * rp__cli_bopts_free.  0, 2 after a usage error was printed, 1 out of memory.
 */
int rp__cli_ropts_apply(const rp_cli_ropts *r, const char *cmd, rp_replay_opts *ro, rp_cli_bopts *bopts);
/* Free what rp__cli_ropts_apply put in *bopts, zeroed first: it may hold a password.  Zeroed *bopts: nothing. */
void rp__cli_bopts_free(rp_cli_bopts *bopts);
/*
 * --image's argument into *s: "impressions" (Impressions' defaults) or a
 * model file (cli/image_cli.c), its name kept by pointer.  0, or 2 after a
 * message (a file that cannot be read, is not a model, or has no file set).
 */
int rp__cli_image_spec(const char *cmd, const char *what, rp_image_spec *s);

/*
 * Start r and wait for it with a progress line each second (unless quiet),
 * SIGINT and SIGTERM blocked in every thread and collected here: either
 * stops the run cleanly and sets *interrupted.  Then finish it.  0, or the
 * error (printed).  *started (if not NULL) says whether the run began
 * (rp_replay_began): a prepare that failed (the backend could not connect)
 * began, and its results say stop "error" with the failure; a run that
 * could not start its clients has no result.  With start_line (the run's
 * options) and not quiet, dbench's start line once the clients started.
 */
int rp__cli_drive(rp_replay *r, const char *cmd, bool quiet, bool *interrupted, bool *started, const rp_cli_in *in,
		  const rp_replay_opts *start_line);

/*
 * At the end of a run, on stderr: a warning when trace or think timing fell
 * behind its schedule (rp_replay_schedule.behind), and with unrepresentative
 * the line the table ends with when the run mismatched too much (bench,
 * which prints no table per run).  Whether it fell behind.
 */
bool rp__cli_warn_timing(const char *cmd, const rp_replay_results *res, bool unrepresentative);

/* One line per kind of mismatch (op, expected, got), with its count and first example, on stderr. */
void rp__cli_warn_samples(const char *cmd, const rp_replay_results *res);

/* Every built-in backend from its vtable: targets, the ops it cannot express, its typed options. */
void rp__cli_backends_help(FILE *f);

#endif
