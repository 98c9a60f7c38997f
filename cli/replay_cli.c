/* The replay options and one driven run, shared by `reprise replay` and `reprise bench` (cli/replay_cli.h). */
#include "cli/replay_cli.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/merge_cli.h"
#include "cli/output.h"

const char *const rp__cli_timings[] = { "afap", "trace", "think", NULL };
const char *const rp__cli_orders[] = { "client", "resource", "auto", NULL };
const char *const rp__cli_fills[] = { "data", "zero", "sparse", NULL };
const char *const rp__cli_policies[] = { "warn", "skip", "abort", NULL };
_Static_assert(RP_TIMING_AFAP == 0 && RP_TIMING_TRACE == 1 && RP_TIMING_THINK == 2, "rp__cli_timings' order");
_Static_assert(RP_ORDER_CLIENT == 0 && RP_ORDER_RESOURCE == 1 && RP_ORDER_AUTO == 2, "rp__cli_orders' order");
_Static_assert(RP_FILL_DATA == 0 && RP_FILL_ZERO == 1 && RP_FILL_SPARSE == 2, "rp__cli_fills' order");
_Static_assert(RP_MISMATCH_WARN == 0 && RP_MISMATCH_SKIP == 1 && RP_MISMATCH_ABORT == 2, "rp__cli_policies' order");

void rp__cli_phase_init(rp_cli_phase *p, bool quiet)
{
	p->tty = !quiet && isatty(STDERR_FILENO);
	p->shown = false;
}

void rp__cli_phase(rp_cli_phase *p, const char *cmd, const char *what)
{
	if (!p->tty)
		return;
	if (p->shown)
		fputs("\r\033[K", stderr); /* back to the line's start, and the old text erased */
	p->shown = what != NULL;
	if (what)
		fprintf(stderr, "reprise %s: %s...", cmd, what);
	fflush(stderr);
}

void rp__cli_ropts_defaults(rp_cli_ropts *r)
{
	memset(r, 0, sizeof(*r)); /* timing afap, prepare-fill data, on-mismatch warn: each the first choice */
	r->warmup = -1;
	r->speed = 1;
	r->max_inflight = RP_REPLAY_INFLIGHT_AUTO;
	r->order = RP_ORDER_AUTO;
	r->behind_span = 1.05;
	r->behind_lag = 0.010;
	r->image_scale = 1;
	r->seed = 1;
	r->image_max_files = RP_IMAGE_FILES_DEFAULT;
	r->image_max_bytes = RP_IMAGE_BYTES_DEFAULT;
	r->image_max_file_size = RP_IMAGE_FILE_SIZE_DEFAULT;
}

bool rp__cli_ropts_args_ok(const rp_cli_ropts *r, int npos)
{
	return npos == 1 || (r->clients_from && npos > 1);
}

int rp__cli_ropts_open_input(const rp_cli_ropts *r, const char *cmd, char *const *pos, int npos, rp_cli_in *in)
{
	if (r->clients_from)
		return rp__cli_merge_spool(cmd, (const char *const *)pos, (size_t)npos, r->lenient, r->quiet, in);
	int rc = rp__cli_in_open(in, cmd, pos[0]);
	if (rc)
		return rc;
	if ((rc = rp__cli_in_convert(in, cmd, r->lenient)) != 0) /* an strace log, a CTF trace, the text form: converted first */
		rp_conv_input_close(in);
	return rc;
}

void rp__cli_ropts_warn(const rp_cli_ropts *r, const char *cmd)
{
	const bool afap = r->timing == RP_TIMING_AFAP;
	if (afap && r->speed != 1)
		rp__cli_err(cmd, "warning: --speed does nothing under afap timing (it scales recorded time: --timing trace or think)");
	if (afap && (r->behind_span != 1.05 || r->behind_lag != 0.010))
		rp__cli_err(cmd, "warning: --behind-span and --behind-lag do nothing under afap timing (it has no schedule to fall behind)");
	if (r->warmup >= 0 && r->duration <= 0)
		rp__cli_err(cmd, "warning: --warmup does nothing without -t/--time (one pass measures everything)");
	if (r->clone_offset > 0 && r->clients == 0)
		rp__cli_err(cmd, "warning: --clone-offset does nothing without --clients N (it delays copy k after copy k-1)");
	if (r->no_prepare && r->image)
		rp__cli_err(cmd, "warning: --image does nothing with --no-prepare (prepare makes the image)");
	if (!r->image && (r->image_scale != 1 || r->seed != 1))
		rp__cli_err(cmd, "warning: %s does nothing without --image", r->seed != 1 ? "--seed" : "--image-scale");
	if (r->no_prepare && (r->prepare_fill != RP_FILL_DATA || r->prepare_overwrite))
		rp__cli_err(cmd, "warning: %s does nothing with --no-prepare", r->prepare_overwrite ? "--prepare-overwrite"
												  : "--prepare-fill");
}

/* A string the uint parser takes: decimal or 0x hex digits only. */
static bool is_count(const char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int rp__cli_dbench_hint(const char *cmd, int argc, char **argv)
{
	const char *load = NULL, *count = NULL;
	bool target = false;
	for (int i = 1; i < argc; i++) {
		const char *const a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "-D") == 0 || strcmp(a, "--target") == 0 || strncmp(a, "--target=", 9) == 0)
			target = true;
		const char *v = NULL;
		if ((strcmp(a, "-c") == 0 || strcmp(a, "--clients") == 0) && i + 1 < argc)
			v = argv[i + 1];
		else if (strncmp(a, "--clients=", 10) == 0)
			v = a + 10;
		else if (strncmp(a, "-c", 2) == 0 && a[2])
			v = a + 2;
		if (v && !is_count(v))
			load = v;
		else if (a[0] != '-' && is_count(a) && argv[i - 1][0] != '-') /* not an option's value (-t 5) */
			count = a;
	}
	if (!load)
		return 0;
	char esc[512], n[64];
	rp__cli_esc(esc, sizeof(esc), load);
	rp__cli_esc(n, sizeof(n), count ? count : "N");
	rp__cli_err(cmd, "--clients: '%s' is not a number: -c is --clients, the number of copies; the loadfile is the "
		    "positional argument (dbench's 'dbench -c %s %s' is 'reprise %s %s --clients %s --target DIR')%s",
		    esc, esc, n, cmd, esc, n, target ? "" : "; --target DIR is where it runs (dbench's -D)");
	return 2;
}

/* The most items the backend gets: the -O list's (at most one per two bytes of it) and --sync, --fsync-writes,
 * --user and --authfile (6: room to spare). */
static size_t items_cap(const char *list)
{
	return (list ? strlen(list) / 2 + 1 : 0) + 6;
}

static void add(rp_cli_bopts *b, const char *key, const char *value)
{
	b->items[b->n++] = (rp_backend_item){ key, value };
}

/*
 * "sync,user=bob,password=***": the items as one line for bench's JSON, a
 * password starred out.  NULL without memory.
 */
static char *items_text(const rp_cli_bopts *b)
{
	size_t n = 1;
	for (size_t i = 0; i < b->n; i++)
		n += strlen(b->items[i].key) + (b->items[i].value ? strlen(b->items[i].value) : 0) + 5;
	char *const s = malloc(n);
	if (!s)
		return NULL;
	size_t at = 0;
	s[0] = '\0';
	for (size_t i = 0; i < b->n; i++) {
		const rp_backend_item *const it = &b->items[i];
		const bool pass = it->value && strcmp(it->key, "password") == 0;
		/* user's [DOMAIN\]USER%PASS: up to the '%' (the smb backend's grammar) */
		const char *const pct = it->value && strcmp(it->key, "user") == 0 ? strchr(it->value, '%') : NULL;
		const int keep = pass ? 0 : pct ? (int)(pct - it->value) : it->value ? (int)strlen(it->value) : 0;
		at += (size_t)snprintf(s + at, n - at, "%s%s%s%.*s%s", at ? "," : "", it->key, it->value ? "=" : "", keep,
				       it->value ? it->value : "", pass ? "***" : pct ? "%***" : "");
	}
	return s;
}

/*
 * The backend's items: the -O lists' (split here, once), then --sync and
 * --fsync-writes, which are posix's, and --user and --authfile, which are
 * smb's user and authfile, taken whole (a ',' in a password or a file name
 * is one; the smb backend reads user's [DOMAIN\]USER[%PASS]).  0, 2 after a usage error, 1 out of memory.
 */
static int backend_items(const rp_cli_ropts *r, const char *cmd, rp_cli_bopts *b)
{
	size_t len = 0;
	for (size_t i = 0; i < r->backend_opts.n; i++)
		len += strlen(r->backend_opts.v[i]) + 1;
	b->list = malloc(len + 1);
	if (!b->list)
		goto nomem;
	b->list[0] = '\0';
	for (size_t i = 0, at = 0; i < r->backend_opts.n; i++) /* the lists as one: "a=1" "b" -> "a=1,b" */
		at += (size_t)snprintf(b->list + at, len + 1 - at, "%s%s", i ? "," : "", r->backend_opts.v[i]);
	b->list_len = strlen(b->list);
	b->items = calloc(items_cap(b->list), sizeof(*b->items));
	if (!b->items)
		goto nomem;
	const long n = rp_backend_split_opts(b->list, b->items, items_cap(b->list) - 6);
	b->n = n < 0 ? 0 : (size_t)n; /* the cap holds every item a list of that length can have */
	if (r->sync)
		add(b, "sync", NULL);
	if (r->fsync_writes)
		add(b, "fsync-writes", NULL);
	if (r->user)
		add(b, "user", r->user); /* [DOMAIN\]USER[%PASS]: the smb backend's grammar */
	if (r->authfile)
		add(b, "authfile", r->authfile);
	if (!(b->text = items_text(b)))
		goto nomem;
	return 0;
nomem:
	rp__cli_err(cmd, "out of memory");
	return 1;
}

void rp__cli_bopts_free(rp_cli_bopts *b)
{
	if (b->list)
		explicit_bzero(b->list, b->list_len); /* -O password=P is in it */
	free(b->list);
	free(b->items);
	free(b->text);
	memset(b, 0, sizeof(*b));
}

int rp__cli_ropts_apply(const rp_cli_ropts *r, const char *cmd, rp_replay_opts *ro, rp_cli_bopts *bopts)
{
	memset(bopts, 0, sizeof(*bopts));
	if ((r->user || r->authfile) && (!r->backend || strcmp(r->backend, "smb") != 0) && ro->target &&
	    strncasecmp(ro->target, "smb://", 6) != 0) {
		rp__cli_err(cmd, "--user and --authfile are the smb backend's (--target smb://host/share)");
		return 2;
	}
	const int brc = backend_items(r, cmd, bopts);
	if (brc) {
		rp__cli_bopts_free(bopts);
		return brc;
	}
	ro->backend = r->backend;
	ro->backend_opts = NULL;
	ro->backend_items = bopts->items;
	ro->n_backend_items = bopts->n;
	ro->clones = (uint32_t)r->clients;
	ro->clone_offset_s = r->clone_offset;
	ro->duration_s = r->duration;
	ro->warmup_s = r->warmup;
	ro->timing = (rp_timing)r->timing;
	ro->speed = r->speed;
	ro->max_inflight = (uint32_t)r->max_inflight;
	ro->no_prepare = r->no_prepare;
	ro->prepare_fill = (rp_prepare_fill)r->prepare_fill;
	ro->prepare_overwrite = r->prepare_overwrite;
	ro->on_mismatch = (rp_on_mismatch)r->on_mismatch;
	ro->order = (rp_order_mode)r->order;
	ro->behind_span = r->behind_span;
	ro->behind_lag_s = r->behind_lag;
	if (r->image && !r->no_prepare) {
		const int irc = rp__cli_image_spec(cmd, r->image, &bopts->image_spec);
		if (irc) {
			rp__cli_bopts_free(bopts);
			return irc;
		}
		rp_image_opts_init(&bopts->image);
		bopts->image.spec = &bopts->image_spec;
		bopts->image.scale = r->image_scale;
		bopts->image.seed = r->seed;
		bopts->image.max_files = r->image_max_files;
		bopts->image.max_bytes = r->image_max_bytes;
		bopts->image.max_file_size = r->image_max_file_size;
		ro->image = &bopts->image;
	}
	return 0;
}

/* "  lag max    3.0 us", "  lag max  4.52 s": the largest issue lag of the last second, in a unit that reads well. */
static void lag_text(double us, char *buf, size_t n)
{
	if (us < 1e3)
		snprintf(buf, n, "  lag max %6.1f us", us);
	else if (us < 1e6)
		snprintf(buf, n, "  lag max %6.1f ms", us / 1e3);
	else
		snprintf(buf, n, "  lag max %6.2f s ", us / 1e6);
}

static void progress(rp_replay *r, double *last_t, uint64_t *last_ops, uint64_t *last_bytes)
{
	rp_replay_progress p;
	rp_replay_progress_get(r, &p);
	const double dt = p.elapsed_s - *last_t;
	/* No client running: before the first starts (prepare) and after the last ends, nothing to show. */
	if (dt <= 0 || !p.running)
		return;
	char lag[40] = ""; /* afap has no schedule, so no lag */
	if (p.timing != RP_TIMING_AFAP)
		lag_text(p.lag_max_us, lag, sizeof(lag));
	fprintf(stderr, "%4u client%s  %8.2f MB/s  %9.0f ops/s%s  %6.1f s%s\n", p.running, p.running == 1 ? " " : "s",
		(double)(p.bytes - *last_bytes) / 1e6 / dt, (double)(p.ops - *last_ops) / dt, lag, p.elapsed_s,
		p.warmup ? "  (warm-up)" : "");
	*last_t = p.elapsed_s;
	*last_ops = p.ops;
	*last_bytes = p.bytes;
}

/* dbench's start line: "Running for 5.0 s with load 'client.txt' and warm-up 1.0 s: 4 clients started (...)". */
static void say_start(rp_replay *r, const rp_replay_opts *ro, const rp_cli_in *in)
{
	rp_replay_progress p;
	rp_replay_progress_get(r, &p);
	char esc[512];
	rp__cli_esc(esc, sizeof(esc), in->name);
	if (ro->duration_s > 0)
		fprintf(stderr, "Running for %.1f s with load '%s' and warm-up %.1f s: ", ro->duration_s, esc,
			ro->warmup_s >= 0 ? ro->warmup_s : ro->duration_s / 5);
	else
		fprintf(stderr, "Running one pass of load '%s': ", esc);
	fprintf(stderr, "%u client%s started (%s timing", p.clients, p.clients == 1 ? "" : "s", rp_timing_name(ro->timing));
	if (ro->timing != RP_TIMING_AFAP && ro->speed != 1)
		fprintf(stderr, " x%g", ro->speed);
	rp__cli_esc(esc, sizeof(esc), ro->target);
	fprintf(stderr, ", target %s)\n", esc);
}

int rp__cli_drive(rp_replay *r, const char *cmd, bool quiet, bool *interrupted, bool *started, const rp_cli_in *in,
		  const rp_replay_opts *start_line)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	char errbuf[RP_ERRBUF_SIZE];
	rp_cli_phase ph;
	rp__cli_phase_init(&ph, quiet);
	rp__cli_phase(&ph, cmd, "prepare: making what the trace expects to exist, then starting the clients");
	int rc = rp_replay_start(r, errbuf);
	rp__cli_phase(&ph, cmd, NULL);
	rp_conv_input_rename(in, errbuf, sizeof(errbuf));
	if (rc < 0) {
		rp__cli_err(cmd, "%s", errbuf);
		rp_replay_stop(r);
	}
	if (started)
		*started = rp_replay_began(r);
	if (rc == 0 && start_line && !quiet)
		say_start(r, start_line, in);
	const rp_replay_results *const res = rp_replay_get_results(r);
	/* --order auto wanted resource order and could not have it: the run goes on in client order. */
	if (res->order_fallback)
		rp__cli_err(cmd, "warning: --order auto: %s; replaying in client order, where a client that falls behind "
			    "may reorder the ops its trace shares with others", res->order_why);
	/* Files that were there before: prepare left their bytes as they were (extended ones grew past their end). */
	if (res->prepare.kept || res->prepare.extended)
		rp__cli_err(cmd, "warning: prepare found %llu file%s already there: %llu kept as %s, %llu too short and "
			    "extended beyond %s end (--prepare-overwrite rewrites them)",
			    (unsigned long long)(res->prepare.kept + res->prepare.extended),
			    res->prepare.kept + res->prepare.extended == 1 ? "" : "s", (unsigned long long)res->prepare.kept,
			    res->prepare.kept == 1 ? "it was" : "they were", (unsigned long long)res->prepare.extended,
			    res->prepare.extended == 1 ? "its" : "their");
	double last_t = 0;
	uint64_t last_ops = 0, last_bytes = 0;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	/*
	 * The wait ends at once with the run (the clients' end wakes it); SIGINT
	 * and SIGTERM, blocked here, are taken between waits, within 100 ms.
	 */
	while (!rp_replay_wait(r, 100)) {
		const struct timespec zero = { 0, 0 };
		if (sigtimedwait(&set, NULL, &zero) > 0) {
			*interrupted = true;
			rp_replay_stop(r);
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec)) {
			if (!quiet)
				progress(r, &last_t, &last_ops, &last_bytes);
			next.tv_sec++;
		}
	}
	const int frc = rp_replay_finish(r, errbuf);
	rp_conv_input_rename(in, errbuf, sizeof(errbuf));
	if (frc < 0 && rc == 0) {
		rp__cli_err(cmd, "%s", errbuf);
		rc = frc;
	}
	return rc;
}

bool rp__cli_warn_timing(const char *cmd, const rp_replay_results *res, bool unrepresentative)
{
	const rp_replay_schedule *const s = &res->schedule;
	if (unrepresentative && !res->representative) {
		char why[512];
		rp_replay_cause_text(res, why, sizeof(why));
		rp__cli_err(cmd, "NOT REPRESENTATIVE: %.1f %% of the ops mismatched (%llu of %llu); likely cause: %s",
			    res->mismatch_share * 100, (unsigned long long)res->mismatches, (unsigned long long)res->ops, why);
	}
	if (!s->behind)
		return false;
	char span[96] = "", lag[96] = "";
	if (s->ratio >= 0)
		snprintf(span, sizeof(span), "the ops took %.3f s for %.3f s recorded (x%.2f, over x%.2f: --behind-span)",
			 s->span_s, s->rec_span_s, s->ratio, s->max_ratio);
	if (res->lag_p99_us > s->max_lag_us)
		snprintf(lag, sizeof(lag), "issue lag p99 %.3f ms, over %.3f ms (--behind-lag)", res->lag_p99_us / 1e3,
			 s->max_lag_us / 1e3);
	if (!(s->ratio >= 0 && s->ratio > s->max_ratio))
		span[0] = '\0';
	rp__cli_err(cmd, "warning: the replay fell behind the recorded timing: %s%s%s; the target did not get the "
		    "recorded load (a slower target, or too few ops in flight: --max-inflight)",
		    span, span[0] && lag[0] ? "; " : "", lag);
	return true;
}

void rp__cli_warn_samples(const char *cmd, const rp_replay_results *res)
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
		rp__cli_err(cmd, "mismatch: %llu x %s, expected %s, got %s; first: client c%u%s op %llu %s",
			    (unsigned long long)s->count, rp_op_name(s->op),
			    s->expected == 0 ? "OK" : e ? e : s->expected == -2 ? "an error" : "?",
			    s->actual == 0 ? "OK" : a ? a : "an error", s->client, copy, (unsigned long long)s->index, what);
		shown += s->count;
	}
	if (res->mismatches > shown)
		fprintf(stderr, "reprise %s: ... and %llu more of other kinds (%llu mismatches in all)\n", cmd,
			(unsigned long long)(res->mismatches - shown), (unsigned long long)res->mismatches);
}

void rp__cli_backends_help(FILE *f)
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
			rp_bopt_terms(bo, terms, sizeof(terms));
			fprintf(f, "           %-24s [%s] %s\n", left, terms, bo->help);
		}
	}
}
