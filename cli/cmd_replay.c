/* reprise replay TRACE --target DIR: run a trace or dbench loadfile against a backend (docs/replay.md). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/input.h"
#include "cli/outfile.h"
#include "cli/provenance.h"
#include "formats/rpz.h"
#include "replay/replay.h"

static struct {
	const char *target, *backend, *backend_opt, *timing, *on_mismatch, *json, *prepare_fill, *output, *user, *authfile;
	uint64_t clients, max_inflight;
	double clone_offset, duration, warmup, speed;
	bool no_prepare, sync, fsync_writes, quiet, lenient, list_backends, fail_on_mismatch, drop_caches, cleanup;
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
	{ "backend", 'b', RP_OPT_STRING, &o.backend, "NAME",
	  "posix, null, fault or smb, as built (--list-backends; default: the one that takes --target's URL scheme, posix for a directory)" },
	{ "backend-opt", 'O', RP_OPT_STRING, &o.backend_opt, "LIST",
	  "backend options, comma-separated name[=value], typed and range-checked (the backends below)" },
	{ "user", 0, RP_OPT_STRING, &o.user, "[DOMAIN\\]USER[%PASS]",
	  "smb: log in as USER (the password from PASS, else --authfile, else $REPRISE_SMB_PASSWORD; default: guest); "
	  "the password is never printed, nor kept in the JSON" },
	{ "authfile", 0, RP_OPT_STRING, &o.authfile, "FILE",
	  "smb: credentials from FILE, in smbclient's -A format (username = U, password = P, domain = D lines)" },
	{ "sync", 's', RP_OPT_FLAG, &o.sync, NULL, "posix: open files O_SYNC (dbench -s)" },
	{ "fsync-writes", 'F', RP_OPT_FLAG, &o.fsync_writes, NULL, "posix: fsync after every write (dbench -F)" },
	{ "no-prepare", 0, RP_OPT_FLAG, &o.no_prepare, NULL,
	  "do not create the files and directories the workload expects to exist" },
	{ "prepare-fill", 0, RP_OPT_STRING, &o.prepare_fill, "MODE",
	  "what prepared files hold: data (default: a non-zero pattern, every block written), zero (zeros, "
	  "written), sparse (only the size: one byte at the end, reads hit holes)" },
	{ "drop-caches", 0, RP_OPT_FLAG, &o.drop_caches, NULL,
	  "after prepare, sync and drop the page cache (root; a note says when it could not), so reads start cold" },
	{ "cleanup", 0, RP_OPT_FLAG, &o.cleanup, NULL,
	  "posix: after the run, remove what the run and prepare made beneath TARGET (never what was there before)" },
	{ "on-mismatch", 0, RP_OPT_STRING, &o.on_mismatch, "POLICY",
	  "warn (default): count and show examples; skip: count, and skip ops on handles whose open failed; "
	  "abort: stop at the first mismatch (exit 1)" },
	{ "fail-on-mismatch", 0, RP_OPT_FLAG, &o.fail_on_mismatch, NULL,
	  "run to the end, then exit 1 if any op's result differed from the recording" },
	{ "output", 'o', RP_OPT_STRING, &o.output, "FILE", "the run's results, as JSON, to FILE: the same as --json FILE" },
	{ "json", 'j', RP_OPT_STRING, &o.json, "FILE", "write every result as JSON to FILE, created before the run and renamed into place after it (- = stdout: the JSON alone, the table on stderr)" },
	{ "quiet", 'q', RP_OPT_FLAG, &o.quiet, NULL, "no progress line on stderr" },
	{ "lenient", 0, RP_OPT_FLAG, &o.lenient, NULL, "loadfiles and strace logs: skip bad lines, count them" },
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

static void backends_help(FILE *f);

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
		"Prepared files hold data (--prepare-fill), so reads of them read blocks, not holes.\n"
		"With --time the workload loops; the warm-up (default --time/5) runs first and is left out of the\n"
		"results. A progress line is printed each second; Ctrl-C stops cleanly and still reports.\n\n"
		"--max-inflight N lets a client issue an op while up to N-1 of its earlier ops still run, where\n"
		"the trace shows them overlapping (an op started before an earlier one ended) and it does not\n"
		"depend on them (an open before the ops on its handle, those before the close, ops that change a\n"
		"name in order with the ops on it or beneath it, writes in order with I/O on the same bytes, locks\n"
		"in order with I/O on their handle). Synchronous backends use N-1 worker threads per client. The\n"
		"results show the in-flight depth reached next to the depth the trace recorded.\n\n"
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
		"Exit status: 0 done, 1 the run failed, was aborted on a mismatch, or had one under\n"
		"--fail-on-mismatch, 2 bad usage, 130 interrupted.",
	.details_more = backends_help,
	.opts = options,
	.min_args = 0,
	.max_args = 1,
};

/* "uint, default 4, 1 to 64": an option's type, default and bounds, from its table entry. */
static void opt_terms(const rp_backend_opt *bo, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s", rp_bopt_type_name(bo->type));
	char lo[32], hi[32];
	if (len < n && bo->repeat)
		len += (size_t)snprintf(buf + len, n - len, ", repeatable");
	if (len < n && bo->def)
		len += (size_t)snprintf(buf + len, n - len, ", default %s", bo->def);
	if (len < n && (bo->min || bo->max)) {
		rp_bopt_format(bo, bo->min, lo, sizeof(lo));
		rp_bopt_format(bo, bo->max, hi, sizeof(hi));
		len += (size_t)snprintf(buf + len, n - len, bo->max ? ", %s to %s" : ", at least %s", lo, hi);
	}
	for (size_t i = 0; len < n && bo->type == RP_BOPT_ENUM && bo->choices && bo->choices[i]; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "|" : ": ", bo->choices[i]);
}

/* Every built-in backend from its vtable: targets, the ops it cannot express, its typed options. */
static void backends_help(FILE *f)
{
	fprintf(f, "backends (--backend NAME, --backend-opt name[=value],...):\n");
	for (size_t i = 0; rp_backend_at(i); i++) {
		const rp_backend_ops *const b = rp_backend_at(i);
		fprintf(f, "  %-8s %s\n", b->name, b->summary);
		if (b->schemes) {
			fprintf(f, "           targets:");
			for (const char *const *s = b->schemes; *s; s++)
				fprintf(f, "%s %s%s", s == b->schemes ? "" : ",", **s ? *s : "a directory path", **s ? "://" : "");
			fputc('\n', f);
		} else {
			fprintf(f, "           targets: any (not looked at); chosen by --backend only\n");
		}
		const uint64_t mask = b->op_mask ? b->op_mask : RP_BACKEND_ALL_OPS;
		if (mask != RP_BACKEND_ALL_OPS) {
			fprintf(f, "           cannot express (counted as unsupported):");
			for (unsigned op = 0; op < RP_OP__COUNT; op++)
				if (!(mask >> op & 1u) && op != RP_OP_SLEEP)
					fprintf(f, " %s", rp_op_name(op));
			fputc('\n', f);
		}
		for (const rp_backend_opt *bo = b->opts; bo && bo->name; bo++) {
			char left[64], terms[160];
			snprintf(left, sizeof(left), "%s%s%s", bo->name, bo->type == RP_BOPT_FLAG ? "" : "=",
				 bo->type == RP_BOPT_FLAG ? "" : rp_bopt_arg(bo));
			opt_terms(bo, terms, sizeof(terms));
			fprintf(f, "           %-24s [%s] %s\n", left, terms, bo->help);
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

/* Append ",name=value" (or "name=value" first) to the option list s of n bytes. */
static void opt_add(char *s, size_t n, const char *name, const char *value, size_t len)
{
	const size_t at = strlen(s);
	snprintf(s + at, n - at, "%s%s=%.*s", at ? "," : "", name, (int)len, value);
}

/*
 * The backend options plus --sync and --fsync-writes, which are posix's, and
 * --user and --authfile, which are smb's: user, password, domain and authfile
 * options.  NULL without memory; NULL with *bad set when a value cannot go
 * through the comma-separated list (said, without the value).
 */
static char *backend_opts(bool *bad)
{
	*bad = false;
	const size_t n = (o.backend_opt ? strlen(o.backend_opt) : 0) + (o.user ? strlen(o.user) : 0) +
			 (o.authfile ? strlen(o.authfile) : 0) + 96;
	char *const s = malloc(n);
	if (!s)
		return NULL;
	snprintf(s, n, "%s", o.backend_opt ? o.backend_opt : "");
	if (o.sync)
		snprintf(s + strlen(s), n - strlen(s), "%ssync", s[0] ? "," : "");
	if (o.fsync_writes)
		snprintf(s + strlen(s), n - strlen(s), "%sfsync-writes", s[0] ? "," : "");
	if (o.user) {
		/* [DOMAIN\]USER[%PASS], as smbclient -U takes it (DOMAIN/USER too). */
		const char *u = o.user;
		const size_t dl = strcspn(u, "\\/");
		if (u[dl]) {
			opt_add(s, n, "domain", u, dl);
			u += dl + 1;
		}
		const char *const pct = strchr(u, '%');
		const size_t ul = pct ? (size_t)(pct - u) : strlen(u);
		if (ul == 0 || memchr(u, ',', ul) || (pct && strchr(pct + 1, ',')) || (o.user != u && memchr(o.user, ',', dl))) {
			rp__cli_err("replay", ul == 0 ? "--user: no user name" :
				    "--user: a ',' cannot be passed on to the backend: put the credentials in --authfile FILE "
				    "(or the password in REPRISE_SMB_PASSWORD)");
			*bad = true;
		}
		opt_add(s, n, "user", u, ul);
		if (pct && pct[1])
			opt_add(s, n, "password", pct + 1, strlen(pct + 1));
	}
	if (o.authfile) {
		if (strchr(o.authfile, ',')) {
			rp__cli_err("replay", "--authfile %s: a ',' in the file name cannot be passed on to the backend", o.authfile);
			*bad = true;
		}
		opt_add(s, n, "authfile", o.authfile, strlen(o.authfile));
	}
	if (*bad) {
		explicit_bzero(s, n);
		free(s);
		return NULL;
	}
	return s;
}

/*
 * The command line as the JSON keeps it: a password given with --user
 * USER%PASS or --backend-opt password=PASS is written as "***".  The copies
 * are kept in store (freed with the provenance's life).
 */
#define REDACT_MAX 16
static void redact_argv(rp_cli_prov *prov, char **store)
{
	int k = 0;
	char **const av = prov->argv;
	for (int i = 1; i < prov->p.argc && k < REDACT_MAX; i++) {
		const char *a = av[i];
		const bool user = strcmp(a, "--user") == 0, bopt = strcmp(a, "--backend-opt") == 0 || strcmp(a, "-O") == 0;
		if ((user || bopt) && i + 1 < prov->p.argc) {
			i++;
			a = av[i];
		} else if (strncmp(a, "--user=", 7) != 0 && strncmp(a, "--backend-opt=", 14) != 0 && strncmp(a, "-O", 2) != 0) {
			continue;
		}
		const bool is_user = user || strncmp(av[i], "--user=", 7) == 0;
		const char *const secret = is_user ? strchr(a, '%') : strstr(a, "password=");
		if (!secret)
			continue;
		const size_t keep = (size_t)(secret - a) + (is_user ? 1 : 9);
		const char *const rest = is_user ? "" : secret + 9 + strcspn(secret + 9, ",");
		const size_t len = keep + 3 + strlen(rest) + 1;
		char *const r = malloc(len);
		if (!r)
			continue;
		snprintf(r, len, "%.*s***%s", (int)keep, a, rest);
		store[k++] = r;
		av[i] = r;
	}
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
static int drive(rp_replay *r, bool *interrupted, const rp_cli_in *in)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	char errbuf[RP_ERRBUF_SIZE];
	int rc = rp_replay_start(r, errbuf);
	rp__cli_in_rename(in, errbuf, sizeof(errbuf));
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
	rp__cli_in_rename(in, errbuf, sizeof(errbuf));
	if (frc < 0 && rc == 0) {
		rp__cli_err("replay", "%s", errbuf);
		rc = frc;
	}
	return rc;
}

/* One line per kind of mismatch (op, expected, got), with its count and first example. */
static void warn_samples(const rp_replay_results *res)
{
	uint64_t shown = 0;
	for (size_t i = 0; i < res->n_samples; i++) {
		const rp_replay_sample *const s = &res->samples[i];
		const char *const e = rp_replay_errno_name(s->expected), *const a = rp_replay_errno_name(s->actual);
		char what[200], copy[24] = "";
		if (s->path[0])
			snprintf(what, sizeof(what), "%s", s->path);
		else if (s->handle)
			snprintf(what, sizeof(what), "fh=%llu", (unsigned long long)s->handle);
		else
			snprintf(what, sizeof(what), "(no path or handle)");
		if (s->copy)
			snprintf(copy, sizeof(copy), " copy %u", s->copy);
		rp__cli_err("replay", "mismatch: %llu x %s, expected %s, got %s; first: client c%u%s op %llu %s",
			    (unsigned long long)s->count, rp_op_name(s->op),
			    s->expected == 0 ? "OK" : e ? e : s->expected == -2 ? "an error" : "?",
			    s->actual == 0 ? "OK" : a ? a : "an error", s->client, copy, (unsigned long long)s->index, what);
		shown += s->count;
	}
	if (res->mismatches > shown)
		fprintf(stderr, "reprise replay: ... and %llu more of other kinds (%llu mismatches in all)\n",
			(unsigned long long)(res->mismatches - shown), (unsigned long long)res->mismatches);
}

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
	const rp_read_opts ro = { .lenient = o.lenient };
	if (rp_reader_open(&r, path, &ro, errbuf) < 0)
		return; /* rp_workload_open_file has reported it */
	rp_rpz_info info;
	if (rp_rpz_reader_info(r, &info) == 0 && !info.has_index) {
		rp_op op;
		while (rp_reader_next(r, &op) > 0)
			;
		rp__cli_in_rename(in, r->note, sizeof(r->note));
		rp__cli_err("replay", "warning: %s", r->note[0] ? r->note : "the trace has no index (cut or unfinished)");
	} else if (r->meta.flags & RP_META_TRUNCATED) {
		rp__cli_err("replay", "warning: %s: flagged truncated: its input was cut or its producer stopped early",
			    in->name);
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
	o.prepare_fill = "data";
	/* The command line and start time for the JSON, before option parsing reorders argv. */
	rp_cli_prov prov;
	if (rp__cli_prov_init(&prov, argc, argv) < 0) {
		rp__cli_err("replay", "out of memory");
		return 1;
	}
	char *redacted[REDACT_MAX] = { NULL };
	redact_argv(&prov, redacted);
	const int st = replay_main(argc, argv, &prov);
	rp__cli_prov_free(&prov);
	for (int i = 0; i < REDACT_MAX; i++)
		free(redacted[i]);
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
		backends_help(stdout);
		return 0;
	}
	if (npos != 1 || !o.target) {
		fprintf(stderr, "usage: reprise replay %s\n(see reprise replay --help)\n", spec.usage);
		return 2;
	}
	static const char *const timings[] = { "afap", "trace", "think" };
	static const char *const policies[] = { "warn", "skip", "abort" };
	static const char *const fills[] = { "data", "zero", "sparse" }; /* rp_prepare_fill order */
	const int timing = parse_enum("timing", o.timing, timings, 3);
	const int policy = parse_enum("on-mismatch", o.on_mismatch, policies, 3);
	const int fill = parse_enum("prepare-fill", o.prepare_fill, fills, 3);
	if (timing < 0 || policy < 0 || fill < 0)
		return 2;
	/* The posix backend works in a directory; the others (null, fault, network) leave nothing in one. */
	const bool dir_target = !strstr(o.target, "://") && (!o.backend || strcmp(o.backend, "posix") == 0);
	if (o.cleanup && !dir_target)
		rp__cli_err("replay", "warning: --cleanup does nothing with the %s backend: it makes nothing in a directory",
			    o.backend ? o.backend : "network");
	if (o.output) {
		/* -o/--output is every command's output: replay's is its results */
		if (o.json && strcmp(o.json, o.output) != 0) {
			rp__cli_err("replay", "--output and --json name two different files");
			return 2;
		}
		o.json = o.output;
	}
	if (o.json) {
		const int same = rp__cli_out_check("replay", o.json, pos[0]);
		if (same)
			return same;
	}

	char errbuf[RP_ERRBUF_SIZE];
	rp_workload *w = NULL;
	rp_cli_in in; /* a pipe is spooled: the plan and every client read the trace again */
	int irc = rp__cli_in_open(&in, "replay", pos[0]);
	if (irc)
		return irc;
	if ((irc = rp__cli_in_convert(&in, "replay", o.lenient)) != 0) { /* an strace log: converted first */
		rp__cli_in_close(&in);
		return irc;
	}
	if (rp_workload_open_file(&w, in.path, o.lenient, errbuf) < 0) {
		rp__cli_in_rename(&in, errbuf, sizeof(errbuf));
		rp__cli_err("replay", "%s", errbuf);
		rp__cli_in_close(&in);
		return 1;
	}
	warn_cut(&in);
	/* Created now, so a JSON path that cannot be written fails before a long run rather than after it. */
	rp_outfile json = { .f = NULL };
	if (o.json && rp__cli_out_open(&json, "replay", o.json)) {
		rp_workload_destroy(w);
		return 1;
	}
	if ((o.user || o.authfile) && strncasecmp(o.target, "smb://", 6) != 0 && (!o.backend || strcmp(o.backend, "smb") != 0)) {
		rp__cli_err("replay", "--user and --authfile are the smb backend's (--target smb://host/share)");
		if (o.json)
			rp__cli_out_abort(&json);
		rp_workload_destroy(w);
		rp__cli_in_close(&in);
		return 2;
	}
	bool bad_opts;
	char *const bopts = backend_opts(&bad_opts);
	if (bad_opts) {
		if (o.json)
			rp__cli_out_abort(&json);
		rp_workload_destroy(w);
		rp__cli_in_close(&in);
		return 2;
	}
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
	ro.prepare_fill = (rp_prepare_fill)fill;
	ro.drop_caches = o.drop_caches;
	ro.on_mismatch = (rp_on_mismatch)policy;
	rp_replay *r = NULL;
	rp_tree_snap *snap = NULL;
	int status = 1;
	if (!bopts || rp_replay_create(&r, &ro, w, errbuf) < 0) {
		rp__cli_in_rename(&in, errbuf, sizeof(errbuf));
		rp__cli_err("replay", "%s", bopts ? errbuf : "out of memory");
		goto out;
	}
	/* Before prepare: what prepare makes is the run's, what is there already is not. */
	if (dir_target && o.cleanup && rp_tree_snap_take(&snap, o.target, errbuf) < 0) {
		rp__cli_err("replay", "--cleanup: %s", errbuf);
		goto out;
	}
	const long before = snap ? (long)rp_tree_snap_entries(snap) : dir_target ? count_entries(o.target) : 0;
	if (before > 0)
		rp__cli_err("replay",
			    "warning: %s is not empty (%ld entr%s before the run): what is there can change what the "
			    "trace's ops find, and mismatches with it; replay into an empty directory%s",
			    o.target, before, before == 1 ? "y" : "ies",
			    o.cleanup ? " (--cleanup leaves what was there)" : "");
	if (o.json) /* hashes the trace: after the scan has read it, before the CPU time is counted */
		rp__cli_prov_collect(prov, in.name, in.path, o.target);
	bool interrupted = false;
	rp__cli_prov_cpu_begin(prov);
	const int rc = drive(r, &interrupted, &in);
	rp__cli_prov_cpu_end(prov);
	const rp_replay_results *const res = rp_replay_get_results(r);
	/* --json -: standard output holds the JSON alone, and the table goes to stderr. */
	rp_replay_write_table(res, json.std ? stderr : stdout);
	if (policy != RP_MISMATCH_SKIP)
		warn_samples(res);
	status = rc < 0 || strcmp(res->stop, "mismatch") == 0 || strcmp(res->stop, "error") == 0 ? 1
		 : interrupted ? 130 : 0;
	if (status == 0 && o.fail_on_mismatch && res->mismatches) {
		rp__cli_err("replay", "%llu mismatch%s (--fail-on-mismatch)", (unsigned long long)res->mismatches,
			    res->mismatches == 1 ? "" : "es");
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
	if (snap) {
		/* The backend's descriptors and the run's handles are closed before anything is removed. */
		rp_replay_destroy(r);
		r = NULL;
		if (o.json && !json.std)
			rp_tree_snap_keep(snap, o.json); /* the report may be beneath the target: it is not the run's */
		rp_tree_clean cl;
		const int crc = rp_tree_snap_clean(snap, o.target, &cl, errbuf);
		fprintf(json.std ? stderr : stdout, "Cleanup: %llu entr%s the run made removed, %llu of before left\n",
			(unsigned long long)cl.removed, cl.removed == 1 ? "y" : "ies", (unsigned long long)cl.kept);
		if (crc < 0) {
			rp__cli_err("replay", "--cleanup: %s", errbuf);
			if (status == 0)
				status = 1;
		}
	}
out:
	if (o.json)
		rp__cli_out_abort(&json); /* no-op after a commit; a run that never started leaves no JSON */
	rp_replay_destroy(r);
	rp_tree_snap_free(snap);
	rp_workload_destroy(w);
	rp__cli_in_close(&in);
	if (bopts)
		explicit_bzero(bopts, strlen(bopts)); /* it may hold a password */
	free(bopts);
	return status;
}

const rp_command rp__cmd_replay = { &spec, run };
