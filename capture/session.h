/* A program's file syscalls -> a trace: run it under the interposer, drain its rings, encode (docs/syscall-capture.md). */
#ifndef REPRISE_CAPTURE_SESSION_H
#define REPRISE_CAPTURE_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/sysev.h"

/* The ring interposer, as meson names it (capture/preload; the LTTng one: capture/lttng/lttng.h). */
#define RP_PRELOAD_NAME "libreprise-preload.so"

/* Each traced thread's ring when rp_syscap_opts.ring_kb is 0, in KiB (capture/preload/ring.h's default). */
#define RP_SYSCAP_RING_DEFAULT_KB 256

/* The clock the traced threads time their events by (capture/preload/spool.h's rp_spool_clock). */
enum rp_syscap_clock {
	RP_SYSCAP_CLOCK_AUTO = -1, /* the TSC where the kernel's clocksource is "tsc", else monotonic */
	RP_SYSCAP_CLOCK_MONOTONIC = 0,
	RP_SYSCAP_CLOCK_TSC = 1,
};

typedef struct rp_syscap_opts {
	const char *preload; /* the interposer library, an absolute path (with lttng: the LTTng-UST twin) */
	/*
	 * LTTng mode: the events become LTTng-UST tracepoints that the user's own
	 * session records; no trace is written here (rp_capture_cmd's out is NULL).
	 */
	bool lttng;
	const char *only;    /* keep only ops on paths under this directory (absolute), or NULL */
	const char *exclude; /* drop ops under these comma-separated prefixes; NULL: /proc,/sys,/dev */
	uint32_t ring_kb;    /* each traced thread's ring; 0: the default */
	const char *spool_dir; /* where the spool directory is made and orphans are swept; NULL: the default */
	int clock;           /* enum rp_syscap_clock */
	bool no_stdio, process_clients;
	/* the trace's pattern layer (rp_rpz_wopts): window and table bits, 0 = the defaults; or none */
	uint32_t pattern_window, pattern_table_bits;
	bool no_pattern;
	/*
	 * Optional, before the program starts: what the caller may want to show
	 * (the program will run untraced, orphaned spools were removed), one
	 * sentence each.
	 */
	void (*notice)(void *ctx, const char *msg);
	void *notice_ctx;
	/*
	 * Optional: the program's pid while it runs, else 0, for the caller's
	 * signal handler to pass SIGTERM and SIGHUP on (the capture goes on
	 * draining until the program is gone).
	 */
	volatile sig_atomic_t *child_pid;
} rp_syscap_opts;

/* What a syscall capture counted; rp_syscap_stats_print says it. */
typedef struct rp_syscap_stats {
	rp_sysmodel_stats model;
	uint64_t spool_lost;    /* events traced threads dropped */
	uint64_t spool_bad;     /* ring records that broke the format */
	uint64_t spool_waits;   /* times a traced thread found its ring full */
	uint64_t spool_late;    /* events delivered out of time order */
	uint64_t queue_full_waits; /* times the drain waited for the encoder: its queue was full */
	size_t queue_max;       /* the most bytes the encoder was behind by */
	uint64_t rings_failed;  /* rings traced threads could not make in the spool (a user change after they started) */
	uint32_t live;          /* traced processes still running when the program ended */
	uint32_t spool_uid;     /* the user the spool is private to (this process's effective uid) */
	bool flagged;           /* the trace's header says it is incomplete (RP_META_UNTRACED) */
	uint64_t after_ns;      /* from the program's end to the trace's */
	int exec_errno;         /* the program could not be started (no program ran): the exec's errno, else 0 */
} rp_syscap_stats;

/*
 * Run argv (argv[0] the program, found on PATH as execvp does; NULL-terminated)
 * with the interposer preloaded, and write its file ops as a .rpz to out
 * (named out_name in messages) until it and its traced children are done.
 * Returns the program's exit status (128+N when signal N killed it) once the
 * trace is complete; or -1 with errbuf, and stats->exec_errno when no program
 * ran.  The caller owns out (and what becomes of it on failure).
 */
int rp_capture_cmd(char **argv, const rp_syscap_opts *opts, FILE *out, const char *out_name, rp_syscap_stats *stats,
		   char *errbuf);

/*
 * The interposer library name (RP_PRELOAD_NAME, or the LTTng twin's) as an
 * absolute path into buf (PATH_MAX bytes at least): $REPRISE_PRELOAD_LIB if
 * set (for the ring interposer), else beside the running binary in the build
 * tree (cli/reprise -> capture/preload/, capture/lttng/), else in install_dir
 * (where meson installs them).  0, or -1 when it is not there.
 */
int rp_capture_find_lib(const char *name, const char *install_dir, char *buf, size_t size);

/* Print the summary ("events 812, ops 640, processes 1, ...") on f. */
void rp_syscap_stats_print(const rp_syscap_stats *st, FILE *f);
/* True when events were lost or programs ran untraced: the trace lacks ops the program made. */
bool rp_syscap_stats_lossy(const rp_syscap_stats *st);
/* True when processes ran untraced (set-id, static, LD_PRELOAD lost, out of the spool's reach): the trace lacks them. */
bool rp_syscap_stats_missed(const rp_syscap_stats *st);

#endif
