/* reprise capture: live packet capture (--iface IF) or a program's file syscalls (-- CMD ARGS) into a trace. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/lttng/lttng.h"
#include "capture/session.h"
#include "cli/commands.h"
#include "cli/convert_opts.h"
#include "cli/input.h"

#define RP__STR(x) #x
#define RP__XSTR(x) RP__STR(x)
#include "cli/output.h"
#include "cli/smbkeys.h"
#include "formats/rpz.h"

static struct {
	const char *iface, *filter, *out, *client_key;
	const char *only, *exclude, *spool_dir;
	unsigned clock; /* an index into clocks */
	double duration;
	uint64_t buffer_mib, max_flows, ring_kb;
	bool strict, quiet, no_stdio, lttng, process_clients;
	uint64_t pattern_window, pattern_table;
	bool no_patterns;
} o;

/* SMB3 decryption keys (cli/smbkeys.h) */
static struct {
	rp_optlist list;
	const char *file;
} sk;

/* --clock's choices, and what each is (the first, auto, the default) */
static const char *const clocks[] = { "auto", "tsc", "monotonic", NULL };
static const int clock_ids[] = { RP_SYSCAP_CLOCK_AUTO, RP_SYSCAP_CLOCK_TSC, RP_SYSCAP_CLOCK_MONOTONIC };

static const rp_opt options[] = {
	{ .name = "iface", .short_name = 'i', .kind = RP_OPT_STRING, .value = &o.iface, .arg = "IF", .help = "interface to capture on (lo for servers on 127.0.0.1)" },
	{ .name = "filter", .short_name = 'f', .kind = RP_OPT_STRING, .value = &o.filter, .arg = "BPF",
	  .help = "capture filter (default: ports 2049, 111, 20048, 635, 445, 139); decoding goes by content, not port" },
	{ .name = "duration", .short_name = 'd', .kind = RP_OPT_DURATION, .value = &o.duration, .arg = "TIME", .help = "stop after this long (10, 90s, 5m; 1 ms to 1e8 s); default: until SIGINT/SIGTERM", .min = 1e-3, .max = 1e8 },
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.out, .arg = "FILE", .help = "the trace to write (.rpz)" },
	{ .name = "buffer", .kind = RP_OPT_UINT, .value = &o.buffer_mib, .arg = "MIB", .help = "kernel capture buffer in MiB, 1-2047 (default 64)", .min = 1, .max = 2047 /* libpcap takes the buffer size as an int of bytes: 2047 MiB fits */ },
	{ .name = "max-flows", .kind = RP_OPT_UINT, .value = &o.max_flows, .arg = "N", .help = "connections tracked at once, 1-16777216 (default 65536)", .min = 1, .max = 1u << 24 /* each held flow costs its reassembly state; 16 M is far past any capture */ },
	{ .name = "client-key", .kind = RP_OPT_STRING, .value = &o.client_key, .arg = "KEY", .help = "a client is addr+principal (default), addr or conn" },
	{ .name = "only", .kind = RP_OPT_STRING, .value = &o.only, .arg = "DIR", .help = "CMD: keep only ops on paths under DIR" },
	{ .name = "exclude", .kind = RP_OPT_STRING, .value = &o.exclude, .arg = "PREFIXES",
	  .help = "CMD: drop ops on paths under these comma-separated prefixes (default /proc,/sys,/dev)" },
	{ .name = "no-stdio", .kind = RP_OPT_FLAG, .value = &o.no_stdio, .help = "CMD: do not record FILE* stdio calls (fopen, fread, fprintf...)" },
	{ .name = "process-clients", .kind = RP_OPT_FLAG, .value = &o.process_clients,
	  .help = "CMD: one client per process (default: one per thread)" },
	{ .name = "ring-kb", .kind = RP_OPT_UINT, .value = &o.ring_kb, .arg = "KIB",
	  .help = "CMD: each traced thread's event ring in KiB, 64-1048576 (default " RP__XSTR(RP_SYSCAP_RING_DEFAULT_KB) ")", .min = 64, .max = 1u << 20 /* capture/preload/ring.h: RP_RING_MIN_SIZE .. RP_RING_MAX_SIZE (spool.c checks again) */ },
	{ .name = "spool-dir", .kind = RP_OPT_STRING, .value = &o.spool_dir, .arg = "DIR",
	  .help = "CMD: make the rings' spool directory under DIR, and remove orphaned spools there (default /dev/shm, "
	  "else $TMPDIR, else /tmp)" },
	{ .name = "clock", .kind = RP_OPT_ENUM, .value = &o.clock, .choices = clocks, .arg = "CLOCK",
	  .help = "CMD: the clock events are timed by: tsc (the CPU's counter, mapped to ns), monotonic (clock_gettime) "
	  "or auto (default: tsc where the kernel keeps time by it)" },
	{ .name = "lttng", .kind = RP_OPT_FLAG, .value = &o.lttng,
	  .help = "CMD: emit the events as LTTng-UST tracepoints (provider reprise) for your own LTTng session; no -o" },
	{ .name = "strict", .kind = RP_OPT_FLAG, .value = &o.strict,
	  .help = "fail when anything was truncated, invalid, unsupported, unmatched, encrypted or dropped, or no NFS or "
	  "SMB message came (CMD: lost or untraced)" },
	{ .name = "quiet", .short_name = 'q', .kind = RP_OPT_FLAG, .value = &o.quiet, .help = "no summary on stderr" },
	RP_CLI_RPZ_PATTERN_OPTS(o.pattern_window, o.pattern_table, o.no_patterns),
	RP_CLI_SMB_KEY_OPTS(&sk.list, &sk.file),
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "capture",
	.usage = "--iface IF [options] -o OUT.rpz | [options] [-o OUT.rpz] [--] CMD [ARGS...]",
	.summary = "capture NFS and SMB traffic live, or a program's file syscalls, into a trace",
	.details = "With CMD: runs CMD with reprise's interposer preloaded (LD_PRELOAD), which records the file\n"
		   "operations of every thread and child process (fork, posix_spawn, system() and exec keep it):\n"
		   "open*, close, read/write and their p/v forms, lseek, fsync, truncate, fallocate, the stat family,\n"
		   "access, unlink, mkdir, rmdir, rename, link, symlink, readlink, chmod/chown/utimens, getdents and\n"
		   "readdir, fcntl locks and flock, dup*, copy_file_range/sendfile/splice, file mmaps, and FILE* stdio.\n"
		   "Each thread writes into a shared-memory ring that this process drains into OUT (default\n"
		   "CMD.rpz), encoding on a thread of idle priority (SCHED_IDLE where it may be raised again) that\n"
		   "catches up when CMD leaves a CPU free or ends; the summary says how long after CMD's end the\n"
		   "trace was complete.  The trace is complete even when CMD is killed.  The first argument that is not an\n"
		   "option starts CMD.  Exit status: CMD's (128+N if a signal N killed it).  Static programs, and\n"
		   "set-id ones that change the user (the kernel's secure execution), cannot be preloaded: they are\n"
		   "reported (docs/syscall-capture.md).  So are programs that cannot reach the spool after a user\n"
		   "change (runuser, su, a daemon that setuid()s) and execs whose program never reported: counted,\n"
		   "warned with the fix (runuser -u USER -- reprise capture ...), flagged in the trace's header, and\n"
		   "--strict fails.  To capture a service, start it under reprise capture.\n"
		   "\n"
		   "With --iface: captures packets with libpcap (immediate mode, a large kernel buffer) and decodes them as\n"
		   "they come: TCP reassembly, ONC RPC (NFSv3, NFSv4.x, MOUNT) and SMB1/2/3, written to\n"
		   "OUT.part-XXXXXX beside OUT and renamed to OUT when the capture ends: SIGINT or SIGTERM stop it\n"
		   "cleanly and the trace is finished either way.  After a crash (kill -9, power loss) the partial\n"
		   "trace stays under the .part name, readable up to its last whole frame; a capture that fails\n"
		   "before any op leaves OUT as it was.\n"
		   "A summary on stderr gives frames, ops, and how many messages were truncated, invalid,\n"
		   "unsupported (by name), unmatched or encrypted, plus packets the kernel dropped.\n"
		   "Encrypted SMB3 is decrypted with the sessions' keys from --smb-key or --smb-keys (the session key\n"
		   "alone is enough when the capture holds the session's setup; docs/capture.md, Encrypted SMB3).\n"
		   "Capturing needs CAP_NET_RAW (root).",
	.opts = options,
	.min_args = 0,
	.max_args = 1,
	.rest_is_command = true,
};

static volatile sig_atomic_t stop;

/* What the capture loop reports: the first call says it started, later ones feed the status line. */
typedef struct prog {
	bool started, tty;
	double t0;
} prog;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_progress(void *ctx, const rp_capture_stats *st)
{
	prog *const p = ctx;
	if (!p->started) {
		p->started = true;
		p->t0 = now_s();
		if (!o.quiet) {
			fprintf(stderr, "reprise capture: on %s, filter '%s', buffer %llu MiB, into %s; Ctrl-C stops\n",
				o.iface, o.filter ? o.filter : RP_CAPTURE_DEFAULT_FILTER,
				(unsigned long long)(o.buffer_mib ? o.buffer_mib : 64), o.out);
		}
		return;
	}
	if (p->tty && !o.quiet)
		fprintf(stderr, "\r%6.0f s  frames %llu  ops %llu  truncated %llu  unmatched %llu  encrypted %llu ", now_s() - p->t0,
			(unsigned long long)st->frames, (unsigned long long)st->ops, (unsigned long long)st->truncated,
			(unsigned long long)st->unmatched, (unsigned long long)st->encrypted);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	rp_capture_live_break();
}

static rp_smb_keys *smb_keys; /* loaded by run_capture, destroyed by run */

static volatile sig_atomic_t child_pid; /* the traced program's, while it runs (capture/session.h) */

/* SIGTERM, SIGHUP: pass them on to the program and go on draining; SIGINT and SIGQUIT come from the
 * terminal to the whole foreground group, so the program has them already. */
static void on_cmd_signal(int sig)
{
	const pid_t pid = (pid_t)child_pid;
	if (pid > 0 && sig != SIGINT && sig != SIGQUIT)
		kill(pid, sig);
}

static void on_notice(void *ctx, const char *msg)
{
	(void)ctx;
	rp__cli_err("capture", "%s", msg);
}

/*
 * Programs the capture missed, said even with -q: what the trace lacks, and the fix when a user change put
 * them out of the spool's reach (runuser's child cannot make rings in a spool private to the capture's user).
 */
static void missed_warning(const rp_syscap_stats *st, char **argv)
{
	if (!rp_syscap_stats_missed(st))
		return;
	const rp_sysmodel_stats *const ms = &st->model;
	const unsigned long long n = (unsigned long long)(ms->untraced + ms->unreported + st->rings_failed);
	rp__cli_err("capture", "warning: %llu program%s or thread%s ran untraced: the trace lacks their ops%s", n,
		    n == 1 ? "" : "s", n == 1 ? "" : "s", st->flagged ? " (its header says so: reprise stat shows it)" : "");
	if (!ms->untraced_user && !st->rings_failed)
		return;
	/* The user they changed to, by name when it has one. */
	char who[64];
	const struct passwd *const pw = ms->untraced_user ? getpwuid((uid_t)ms->untraced_uid) : NULL;
	if (pw && pw->pw_name && strlen(pw->pw_name) < 48)
		snprintf(who, sizeof who, "%s", pw->pw_name);
	else if (ms->untraced_user)
		snprintf(who, sizeof who, "#%u", ms->untraced_uid);
	else
		snprintf(who, sizeof who, "USER");
	rp__cli_err("capture", "a traced program changed its user (to %s: runuser, su, sudo -u, setpriv) and could not "
			       "reach the spool, private to uid %u: change the user first and capture as that user, "
			       "runuser -u %s -- reprise capture [OPTIONS] -- PROGRAM [ARGS] (the program %s started)",
		    who, st->spool_uid, who[0] == '#' ? "USER" : who, argv[0]);
}

/* capture -- CMD: run argv traced into o.out (capture/session.h); CMD's exit status, or 1/126/127. */
static int capture_cmd(char **argv, rp_syscap_opts *so)
{
	char lib[PATH_MAX];
	if (so->lttng && !RP_HAVE_LTTNG) {
		rp__cli_err("capture", "--lttng: this reprise was built without lttng-ust (meson -Dlttng)");
		return 1;
	}
	if (so->lttng && rp_capture_find_lib(RP_LTTNG_PRELOAD_NAME, REPRISE_PRELOAD_DIR, lib, sizeof(lib)) != 0) {
		rp__cli_err("capture", "--lttng: %s not found beside reprise or in %s", RP_LTTNG_PRELOAD_NAME,
			    REPRISE_PRELOAD_DIR);
		return 1;
	}
	if (!so->lttng && rp_capture_find_lib(RP_PRELOAD_NAME, REPRISE_PRELOAD_DIR, lib, sizeof(lib)) != 0) {
		rp__cli_err("capture", "the interposer %s was not found (set REPRISE_PRELOAD_LIB to its path)",
			    RP_PRELOAD_NAME);
		return 1;
	}
	so->preload = lib;
	so->child_pid = &child_pid;
	so->notice = o.quiet ? NULL : on_notice;
	rp_outfile of;
	memset(&of, 0, sizeof(of));
	if (!so->lttng && rp__cli_out_open(&of, "capture", o.out))
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cmd_signal;
	sigemptyset(&sa.sa_mask);
	child_pid = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rp_syscap_stats st;
	char errbuf[RP_ERRBUF_SIZE] = "";
	int rc = rp_capture_cmd(argv, so, of.f, of.std ? "<stdout>" : o.out, &st, errbuf);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (rc < 0) {
		rp__cli_err("capture", "%s", errbuf);
		if (of.f)
			rp_outfile_abort(&of); /* OUT stays as it was */
		return st.exec_errno == 0 ? 1 : st.exec_errno == ENOENT ? 127 : 126;
	}
	if (so->lttng)
		return rc;
	if (!o.quiet)
		rp_syscap_stats_print(&st, stderr);
	missed_warning(&st, argv);
	if (rp__cli_out_commit(&of, "capture"))
		return 1;
	if (rc == 0 && o.strict && rp_syscap_stats_missed(&st)) {
		rp__cli_err("capture", "--strict: programs ran untraced: the trace lacks their ops (see above)");
		return 1;
	}
	if (rc == 0 && o.strict && rp_syscap_stats_lossy(&st)) {
		rp__cli_err("capture", "--strict: events were lost or programs ran untraced (see above)");
		return 1;
	}
	return rc;
}

static int run_capture(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	memset(&sk, 0, sizeof(sk));
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int pr = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (pr != 0)
		return pr > 0 ? 0 : 2;
	if (npos == 1) {
		if (sk.list.n || sk.file) {
			rp__cli_err("capture", "--smb-key and --smb-keys decrypt packet captures (--iface), not a command's syscalls");
			return 2;
		}
		if (o.iface) {
			rp__cli_err("capture", "give --iface IF or a command to run, not both");
			return 2;
		}
		/* The packet capture's options mean nothing to a command's syscalls: named, not ignored. */
		const char *const iface_only = o.filter ? "--filter" : o.buffer_mib ? "--buffer" : o.max_flows ? "--max-flows"
			: o.duration > 0 ? "--duration" : o.client_key ? "--client-key" : NULL;
		if (iface_only) {
			rp__cli_err("capture", "%s is for a packet capture (--iface), not a command's syscalls (the capture ends "
				    "with the command%s)", iface_only, o.client_key ? "; --process-clients makes a client of each process" : "");
			return 2;
		}
		if (o.lttng && o.out) {
			rp__cli_err("capture", "--lttng writes no trace of its own (your LTTng session records it): no -o");
			return 2;
		}
		char defout[256];
		if (!o.out && !o.lttng) {
			const char *const slash = strrchr(pos[0], '/');
			snprintf(defout, sizeof(defout), "%.240s.rpz", slash ? slash + 1 : pos[0]);
			o.out = defout;
		}
		char onlybuf[4096];
		if (o.only && o.only[0] != '/') {
			/* the program's paths are joined lexically (docs/syscall-capture.md): so is DIR */
			char cwd[2048];
			if (!getcwd(cwd, sizeof(cwd))) {
				rp__cli_err("capture", "--only: the working directory: %s", strerror(errno));
				return 1;
			}
			snprintf(onlybuf, sizeof(onlybuf), "%s/%s", cwd, o.only);
			o.only = onlybuf;
		}
		char spoolbuf[PATH_MAX];
		if (o.spool_dir) {
			if (o.lttng) {
				rp__cli_err("capture", "--lttng has no spool (LTTng's session buffers the events): no --spool-dir");
				return 2;
			}
			struct stat sst;
			const char *why = NULL;
			if (!realpath(o.spool_dir, spoolbuf) || stat(spoolbuf, &sst) != 0)
				why = strerror(errno);
			else if (!S_ISDIR(sst.st_mode))
				why = "not a directory";
			if (why) {
				rp__cli_err("capture", "--spool-dir %s: %s", o.spool_dir, why);
				return 1;
			}
			o.spool_dir = spoolbuf;
		}
		int ci = 1;
		while (ci < argc && argv[ci] != pos[0])
			ci++;
		const int clock = clock_ids[o.clock];
		rp_syscap_opts so = {
			.clock = clock,
			.only = o.only,
			.exclude = o.exclude,
			.ring_kb = (uint32_t)o.ring_kb,
			.spool_dir = o.spool_dir,
			.no_stdio = o.no_stdio,
			.lttng = o.lttng,
			.process_clients = o.process_clients,
			.pattern_window = (uint32_t)o.pattern_window,
			.pattern_table_bits = (uint32_t)o.pattern_table,
			.no_pattern = o.no_patterns,
		};
		return capture_cmd(argv + ci, &so);
	}
	if (!o.iface || !o.out) {
		rp__cli_err("capture", "--iface and -o are required (or a command to run: reprise capture -- CMD)");
		return 2;
	}
	/* The CMD: options mean nothing to a packet capture: named, not ignored. */
	const char *const cmd_only = o.only ? "--only" : o.exclude ? "--exclude" : o.no_stdio ? "--no-stdio"
		: o.process_clients ? "--process-clients" : o.ring_kb ? "--ring-kb" : o.clock ? "--clock"
		: o.lttng ? "--lttng" : o.spool_dir ? "--spool-dir" : NULL;
	if (cmd_only) {
		rp__cli_err("capture", "%s is for a command's syscalls (reprise capture -- CMD), not --iface", cmd_only);
		return 2;
	}
	rp_capture_opts copts = { .max_flows = (uint32_t)o.max_flows };
	const int krc = rp__cli_smb_keys("capture", &sk.list, sk.file, &smb_keys);
	if (krc)
		return krc;
	copts.smb_keys = smb_keys;
	if (rp__cli_client_key(o.client_key, &copts.client_key) != 0) {
		fprintf(stderr, "reprise capture: --client-key: use addr+principal, addr or conn\n");
		return 2;
	}
	char errbuf[RP_ERRBUF_SIZE] = "";
	/* The trace grows under OUT.part-XXXXXX and becomes OUT when the capture ends (docs/capture.md). */
	rp_outfile of;
	if (rp__cli_out_open(&of, "capture", o.out))
		return 1;
	rp_rpz_writer *w = NULL;
	const rp_rpz_wopts wo = { .window = (uint32_t)o.pattern_window, .table_bits = (uint32_t)o.pattern_table,
				  .no_pattern = o.no_patterns };
	if (rp_rpz_writer_open_file(&w, of.f, of.std ? "<stdout>" : o.out, &wo, errbuf) < 0) {
		rp__cli_err("capture", "%s", errbuf);
		rp_outfile_abort(&of);
		return 1;
	}
	stop = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	prog pg = { .tty = isatty(STDERR_FILENO) != 0 };
	rp_live_opts live = {
		.iface = o.iface,
		.filter = o.filter,
		.duration_s = o.duration,
		.buffer_bytes = (int)(o.buffer_mib << 20),
		.stop = &stop,
		.progress = on_progress,
		.progress_ctx = &pg,
	};
	rp_capture_stats st;
	memset(&st, 0, sizeof(st));
	const int rc = rp_capture_live(&live, rp_rpz_writer_sink(w), &copts, &st, errbuf);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	char cerr[RP_ERRBUF_SIZE] = "";
	const int crc = rp_rpz_writer_close(w, cerr);
	if (pg.tty && pg.started && !o.quiet)
		fputc('\n', stderr); /* end the status line */
	/* A summary of what was captured, never of a capture that did not start. */
	if (pg.started && (!o.quiet || rc < 0))
		rp_capture_stats_print(&st, stderr);
	if (pg.started && rc >= 0 && !o.quiet) {
		if (st.frames == 0)
			rp__cli_err("capture", "nothing matched the filter '%s' on %s", o.filter ? o.filter : RP_CAPTURE_DEFAULT_FILTER,
				    o.iface);
		if (st.encrypted)
			rp__cli_err("capture",
				    "%llu SMB3 messages were encrypted and could not be decoded (the server or client "
				    "requires encryption): give the sessions' keys with --smb-key SID:KEY or --smb-keys FILE, "
				    "or run a test server with 'server smb encrypt = off'",
				    (unsigned long long)st.encrypted);
	}
	if (rc < 0 || crc < 0) {
		rp__cli_err("capture", "%s", rc < 0 ? errbuf : cerr);
		if (live.denied)
			rp__cli_err("capture", "capturing needs the CAP_NET_RAW and CAP_NET_ADMIN capabilities: run it as "
					       "root, or give the binary them (setcap cap_net_raw,cap_net_admin=eip reprise)");
		if (st.ops && of.tmp[0]) {
			/* Ops were captured before the failure: keep them (readable up to the last whole frame), but
			 * not as OUT, which a failed capture must not replace. */
			rp__cli_err("capture", "the %llu ops captured before the error are in %s", (unsigned long long)st.ops,
				    of.tmp);
			rp_outfile_keep(&of);
		} else {
			rp_outfile_abort(&of);
		}
		return 1;
	}
	if (rp__cli_out_commit(&of, "capture"))
		return 1;
	if (o.strict && rp_capture_stats_no_file_traffic(&st)) {
		rp__cli_err("capture", "--strict: no NFS or SMB message in %llu frames (see the summary above)",
			    (unsigned long long)st.frames);
		return 1;
	}
	if (o.strict && rp_capture_stats_lossy(&st)) {
		rp__cli_err("capture", "--strict: the capture was lossy (see the summary above)");
		return 1;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	smb_keys = NULL;
	const int rc = run_capture(argc, argv);
	rp_smb_keys_destroy(smb_keys);
	smb_keys = NULL;
	return rc;
}

const rp_command rp__cmd_capture = { .spec = &spec, .run = run };
