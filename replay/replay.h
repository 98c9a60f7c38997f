/* libreprise-replay: run a trace or loadfile against a backend with timing fidelity (DESIGN §6). */
#ifndef REPRISE_REPLAY_REPLAY_H
#define REPRISE_REPLAY_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/error.h"
#include "formats/image.h"
#include "formats/op.h"
#include "formats/sink.h"
#include "formats/source.h"
#include "replay/backend.h"

/* ---- Where ops come from ---------------------------------------------------------------- */

/* rp_op_source, the batched pull source the engine and the scan read: formats/source.h. */

/*
 * A workload opens as many independent sources as the engine asks for: one
 * per client thread (so memory does not grow with the trace) and one over all
 * clients for the scan that finds the clients and plans `prepare`.
 */
typedef struct rp_workload rp_workload;

/* A trace or loadfile on disk (rp_reader_open: .rpz or loadfile, sniffed). */
int rp_workload_open_file(rp_workload **out, const char *path, bool lenient, char *errbuf);
/*
 * Ops in memory (tests, generators).  ops, the strings behind str/str_ctx and
 * meta must outlive the workload; nothing is copied.
 */
int rp_workload_open_mem(rp_workload **out, const rp_op *ops, size_t n_ops, const rp_trace_meta *meta,
			 rp_string_fn str, void *str_ctx, char *errbuf);
void rp_workload_destroy(rp_workload *w); /* NULL is a no-op */
const rp_trace_meta *rp_workload_meta(const rp_workload *w);

/* ---- Options ---------------------------------------------------------------------------- */

typedef enum rp_timing {
	RP_TIMING_AFAP = 0,  /* as fast as possible, closed loop */
	RP_TIMING_TRACE = 1, /* each op at its recorded time (open loop), scaled by speed */
	RP_TIMING_THINK = 2, /* keep each client's recorded gap between one op's end and the next's start */
} rp_timing;

typedef enum rp_on_mismatch {
	RP_MISMATCH_WARN = 0,  /* count, keep examples, go on */
	RP_MISMATCH_SKIP = 1,  /* count, go on, and skip ops on handles whose open failed (no cascade) */
	RP_MISMATCH_ABORT = 2, /* stop the run cleanly at the first mismatch */
} rp_on_mismatch;

/* What prepare writes into the files it makes (--prepare-fill). */
typedef enum rp_prepare_fill {
	RP_FILL_DATA = 0,   /* a non-zero pattern, written in large chunks: every block is allocated and holds data */
	RP_FILL_ZERO = 1,   /* zeros, written (allocated, but what compressing or deduplicating file systems fold) */
	RP_FILL_SPARSE = 2, /* one byte at the end: the size without the blocks (reads of it hit holes) */
} rp_prepare_fill;

/* Which ops keep their recorded order (--order). */
typedef enum rp_order_mode {
	RP_ORDER_CLIENT = 0,   /* each client's own program order; clients never wait for each other */
	RP_ORDER_RESOURCE = 1, /* and ops on one path (per copy) keep their recorded order across clients */
	/*
	 * resource when the trace's clients share a path one changes, a handle or a fork or
	 * wait op (formats/plan.h rp_plan_share), client otherwise; client too,
	 * with the reason in the results, when resource's tables would not fit
	 * order_mem_max or its fork and wait ops contradict each other.
	 */
	RP_ORDER_AUTO = 2,
} rp_order_mode;

/*
 * --order=resource: at most this much memory for the order tables (the scan's
 * 24 bytes per resource an op touches while it sorts, then 8 bytes per op, 4 per
 * path and copy for the run): 512 MiB, some 16 million ops.  A trace of 2
 * million ops needs some 64 MiB while it is scanned and 16 MiB for the run.
 */
#define RP_REPLAY_ORDER_MEM_MAX (512ull << 20)

/* A clock the engine reads and sleeps on; tests inject a fake one.  Times are ns, monotonic. */
typedef struct rp_replay_clock {
	uint64_t (*now)(void *ctx);
	void (*sleep_until)(void *ctx, uint64_t deadline_ns); /* may return early: the engine re-checks */
	void *ctx;
} rp_replay_clock;

/*
 * Called from each client thread before its first op, and from each of its
 * in-flight window's workers (tests: pin a fake clock to the thread).
 */
typedef void (*rp_replay_thread_fn)(void *ctx, uint32_t client);

/*
 * At most this many clients in one run: the trace's own clients times the
 * copies (--clients).  Each client is a thread with its own op source (a
 * loadfile reader holds 1.5 MiB of buffers), histograms and counters: up to
 * about 0.5 MiB measured (440 KB of RSS per client replaying client.txt with
 * the null backend), so the maximum costs some 4 GiB and stays well under
 * Linux's default pid_max (32768 threads for the whole system).
 */
#define RP_REPLAY_CLIENTS_MAX 8192

typedef struct rp_replay_opts {
	const char *target;       /* directory, or a URL for network backends */
	const char *backend;      /* NULL: chosen from the target's form */
	const rp_backend_ops *backend_ops; /* overrides backend (tests, embedders) */
	/*
	 * The backend's options, each parsed once against its table: the items
	 * of backend_opts ("name=value,flag,...", a short hand for tests and
	 * embedders: split at ','), then the n_backend_items of backend_items
	 * (values taken whole: the CLI's -O items, --sync, --user...).  Not kept
	 * past rp_replay_create: it copies what it needs.
	 */
	const char *backend_opts;
	const rp_backend_item *backend_items;
	size_t n_backend_items;
	uint32_t clones;          /* 0: the trace's clients as they are; N: N copies in TARGET/client1..N (see RP_REPLAY_CLIENTS_MAX) */
	double clone_offset_s;    /* copy k starts k * this later */
	/*
	 * The copies are numbered from this one (0: from the first): copy k of
	 * this run is the whole run's copy clone_base + k, in TARGET/client<clone_base+k+1>,
	 * so processes that each run a share of one run's copies (--mpi) use disjoint directories.
	 */
	uint32_t clone_base;
	double duration_s;        /* 0: one pass through the trace; else loop it for this long */
	double warmup_s;          /* < 0: duration / 5 (dbench); ops that start in the warm-up are left out */
	rp_timing timing;
	double speed;             /* trace and think: recorded time is divided by this (2 = twice as fast) */
	bool no_prepare;
	rp_prepare_fill prepare_fill;
	/*
	 * Prepare rewrites a file that is already there, whole, as it writes a
	 * new one (--prepare-overwrite).  Without it prepare never rewrites an
	 * existing byte: it creates what is missing exclusively and extends a
	 * file that is too short beyond its end only.
	 */
	bool prepare_overwrite;
	/*
	 * Prepare also makes a realistic initial image (--image, docs/image.md):
	 * files and directories drawn from these distributions beneath one
	 * top-level directory no path of the trace names, at the target's root
	 * (beside client1..N with clones), whole data written.  NULL: none.
	 * Drawn when the run is created (limits checked then), copied.
	 */
	const rp_image_opts *image;
	/* After prepare: sync and drop the page cache (root only; the result says what happened). */
	bool drop_caches;
	/*
	 * After the last op, syncfs(2) the target's file system and count the
	 * time in the measured period, so the results hold data that reached
	 * stable storage, not data left in the page cache (backends that work in
	 * a local directory: posix; the others say why not).
	 */
	bool final_sync;
	rp_on_mismatch on_mismatch;
	double spin_us;           /* sleep until this long before a deadline, then spin (default 50) */
	/*
	 * Ops of one client in flight at once (1, rp_replay_opts_init's default:
	 * one at a time; RP_REPLAY_INFLIGHT_AUTO: each client's recorded depth,
	 * capped).  Above 1, an op goes while earlier ones still run when the
	 * trace shows them overlapping and it does not depend on them (docs/replay.md).
	 */
	uint32_t max_inflight;
	/* RP_ORDER_CLIENT (rp_replay_opts_init's default), RESOURCE or AUTO (docs/replay.md, "Order across clients") */
	rp_order_mode order;
	uint64_t order_mem_max;   /* 0: RP_REPLAY_ORDER_MEM_MAX; a limit for the order tables (tests set a small one) */
	const rp_replay_clock *clock; /* NULL: CLOCK_MONOTONIC */
	/*
	 * trace and think timing: the run fell behind its schedule when its span
	 * is over behind_span times the recorded one, or its issue lag p99 over
	 * behind_lag_s (defaults 1.05 and 10 ms; docs/replay.md, "Timing honesty").
	 */
	double behind_span;
	double behind_lag_s;
	/*
	 * Entries in the target before the run, as the caller counted them (-1:
	 * not known); a guess at why a run mismatched looks at it.
	 */
	int64_t target_entries;
	rp_replay_thread_fn on_thread;
	void *on_thread_ctx;
} rp_replay_opts;

void rp_replay_opts_init(rp_replay_opts *o);

/* ---- Results ---------------------------------------------------------------------------- */

/*
 * A latency distribution from a histogram (values are bucket midpoints,
 * within 0.4 %; min, max and the mean are exact; stddev is over the bucket
 * midpoints).  All 0 when count is 0.
 */
typedef struct rp_replay_lat {
	uint64_t count;
	double min_us, avg_us, stddev_us, max_us;
	double p50_us, p90_us, p95_us, p99_us, p999_us, p9999_us;
} rp_replay_lat;

/* A latency histogram (replay/hist.h), opaque here; the JSON writes its buckets (docs/replay.md). */
struct rp_hist;

typedef struct rp_replay_opstats {
	uint64_t count;     /* executed in the measured period */
	uint64_t bytes;     /* read/write bytes moved (and copied) */
	uint64_t failures;  /* the backend returned an error */
	uint64_t failures_expected; /* of those, the ones whose error is the one the trace recorded */
	uint64_t mismatches; /* status differs from the trace's (an error or a success the trace did not have) */
	uint64_t unknown_handles;
	uint64_t skipped;   /* not run: --on-mismatch=skip after a failed open */
	uint64_t escapes;   /* path tried to leave the target (not run) */
	uint64_t specials;  /* refused by the backend: the path names a FIFO, device or socket */
	/*
	 * Not run: the backend cannot express the op (rp_backend_ops.op_mask), or
	 * it is on a handle whose open it could not.  Never sent, never a failure or mismatch.
	 */
	uint64_t unsupported;
	double avg_us, p50_us, p99_us, p999_us, max_us;
	rp_replay_lat lat;         /* the whole distribution (the fields above are its parts the table shows) */
	const struct rp_hist *hist; /* NULL when no latency was recorded; owned by the results */
} rp_replay_opstats;

typedef struct rp_replay_second {
	uint64_t ops, bytes, failures;
	double lag_max_us;
	uint64_t lat_count;         /* ops issued in this second with a latency (sleeps excluded) */
	double lat_avg_us, lat_max_us;
	bool warmup;
} rp_replay_second;

/*
 * Why a client (or the run) stopped, from the least telling to the most: the
 * run's reason is the most telling of its clients' (and of its MPI shares').
 * END is 0, so zeroed results read "end".  X(ENUM, name).
 */
#define RP_STOP_MAP(X)               \
	X(END, "end")                \
	X(TIME, "time")              \
	X(INTERRUPTED, "interrupted") \
	X(MISMATCH, "mismatch")      \
	X(ERROR, "error")

#define RP__STOP_ENUM(e, name) RP_STOP_##e,
typedef enum rp_stop { RP_STOP_MAP(RP__STOP_ENUM) RP_STOP__COUNT } rp_stop;
#undef RP__STOP_ENUM

/* "end", "time", ...; NULL when s is not a reason. */
const char *rp_stop_name(rp_stop s);
/* The reason named name; -1 when it names none. */
int rp_stop_from_name(const char *name);

/* One client's results (measured period; warmup_ops and passes as in the totals). */
typedef struct rp_replay_client {
	uint32_t trace_client;   /* its client id in the trace */
	uint32_t clone;          /* which copy (--clients), 0 when not cloning */
	const char *dir;         /* beneath the target: "client3", or "" */
	rp_stop stop;
	uint64_t ops, bytes, failures, mismatches, warmup_ops, passes;
	rp_replay_lat lat;       /* every op but sleeps */
	rp_replay_lat tgt_lat;   /* its requests at the target, from send to answer (rp_replay_depth's) */
	uint64_t order_waits;    /* --order=resource: ops that waited for another op on their path */
	double order_wait_us;    /* and the time they waited, in all */
} rp_replay_client;

/* Up to this many kinds of mismatch (op, expected, got) are kept, each with its first example. */
#define RP_REPLAY_SAMPLES 16

typedef struct rp_replay_sample {
	uint32_t client; /* the first example's client id, as in the trace */
	uint32_t copy;   /* its copy (--clients: 1..N), 0 when not copying */
	uint64_t index;  /* its op number within the client's pass, from 1 */
	uint16_t op;
	int32_t expected, actual;
	uint64_t count;  /* mismatches of this kind (op, expected, actual), all clients */
	uint64_t handle; /* the example's trace handle (0: none), named when it has no path */
	char path[160];
} rp_replay_sample;

/* At most this many ops of one client in flight (--max-inflight). */
#define RP_REPLAY_MAX_INFLIGHT 1024

/*
 * max_inflight auto (--max-inflight auto): each client's bound is the depth
 * its trace recorded (rp_plan_depth.max), at least 1 and at most a cap.  An
 * asynchronous backend keeps the requests itself: the cap is the window's,
 * RP_REPLAY_MAX_INFLIGHT.  A synchronous one gets a worker thread per slot
 * but the first, each with backend client state of its own (posix: up to 33
 * directory fds and an I/O buffer): at most RP_REPLAY_AUTO_SYNC_MAX a client,
 * and RP_REPLAY_AUTO_WORKERS_MAX worker threads in the run (with more than
 * 64 clients, 4096 / clients each), well under Linux's default pid_max.
 */
#define RP_REPLAY_INFLIGHT_AUTO 0
#define RP_REPLAY_AUTO_SYNC_MAX 64
#define RP_REPLAY_AUTO_WORKERS_MAX 4096

/*
 * In-flight depth, as reached by the replay and as recorded in the trace:
 * at each op's issue (recorded: its t_start), how many of its client's ops
 * were in flight, itself included; max and mean over the ops.
 */
typedef struct rp_replay_depth {
	uint32_t max, rec_max;
	double mean, rec_mean;
	uint32_t bound; /* the client's --max-inflight (auto: its own); overall: the largest */
	/*
	 * In flight at the target: the requests between the backend putting
	 * one on the wire (a synchronous backend: being called) and its answer
	 * (docs/replay.md, "Depth, reached and recorded").  tgt_mean is at each
	 * request's send, itself included (as rec_mean is at each op's start);
	 * tgt_busy_mean time-weighted while at least one was there.  Overall:
	 * every client's requests pooled (sums added, the largest max).  The
	 * sums are what merging adds up; tgt_requests 0: not measured (an
	 * asynchronous backend before version 11: tgt_unmeasured counts them).
	 */
	uint32_t tgt_max;
	double tgt_mean, tgt_busy_mean;
	uint64_t tgt_requests, tgt_unmeasured;
	uint64_t tgt_at_req_sum, tgt_area_ns, tgt_busy_ns;
} rp_replay_depth;

/*
 * The end of a run's measured window (rp_replay_opts.final_sync) and what
 * was still dirty then.  The dirty counts are /proc/meminfo's Dirty plus
 * Writeback, system-wide (every file system and process), in bytes; -1 when
 * they cannot be read.
 */
typedef struct rp_replay_flush {
	bool asked;          /* rp_replay_opts.final_sync */
	bool ran;            /* the sync ran and succeeded */
	int err;             /* 0; or why it did not run or failed: EINTR (interrupted), EOPNOTSUPP (no local directory), an errno */
	uint64_t ns;         /* what it took (counted in elapsed_s) */
	int64_t dirty_start; /* right before the clients started (after prepare and any cache drop) */
	int64_t dirty_end;   /* when every client had stopped, before the sync */
} rp_replay_flush;

/*
 * How trace or think timing kept its schedule, over the measured ops (times
 * in s after the run's start; docs/replay.md, "Timing honesty").  The
 * schedule of an op is its recorded start and end, scaled by --speed, from
 * its client's start (and its pass's, and its copy's offset): in think timing
 * the recorded gaps and durations one after the other, plus explicit sleeps.
 */
typedef struct rp_replay_schedule {
	bool known;                          /* trace or think timing, and some op measured: the fields below hold */
	double first_s, last_s;              /* replayed: the first measured op's issue, the last completion */
	double sched_first_s, sched_last_s;  /* scheduled: those ops' earliest start and latest end */
	double span_s, rec_span_s;           /* last_s - first_s; sched_last_s - sched_first_s (the recorded span, scaled) */
	double ratio;                        /* span_s / rec_span_s; -1 when rec_span_s is 0 (every op recorded at one time) */
	double max_ratio, max_lag_us;        /* the thresholds the run had (rp_replay_opts.behind_span, behind_lag_s) */
	bool behind;                         /* known, and ratio over max_ratio or the lag p99 over max_lag_us */
} rp_replay_schedule;

/* Mismatches over this share of the measured ops make a run not representative of the trace. */
#define RP_REPLAY_MISMATCH_SHARE_MAX 0.01

/* The likeliest reason a run mismatched that much, from what it knows (rp_replay_results.likely_cause). */
typedef enum rp_cause {
	RP_CAUSE_NONE = 0, /* representative: nothing to explain */
	RP_CAUSE_UNKNOWN,  /* not representative, and nothing the run knows points anywhere */
	RP_CAUSE_ORDER,    /* several trace clients replayed in per-client order: --order=resource */
	RP_CAUSE_PREPARE,  /* files the trace expects were missing (ENOENT): prepare skipped, failed or short */
	RP_CAUSE_TARGET,   /* the target held things before the run (creations found them: EEXIST) */
} rp_cause;

/* At most this many fallback reasons in the results. */
#define RP_REPLAY_FALLBACKS 16

/* What prepare's image (rp_replay_opts.image) made. */
typedef struct rp_replay_image {
	bool asked;              /* rp_replay_opts.image */
	const char *source;      /* the spec's name ("impressions", a model file) */
	uint64_t seed;           /* --seed */
	double scale;            /* --image-scale */
	char root[32];           /* its directory at the target's root */
	uint64_t files, dirs, bytes; /* made (dirs: the root included); bytes written into them */
	uint64_t failures;       /* entries that could not be made */
	uint64_t capped, shallow; /* sizes cut to --image-max-file-size; files less deep than drawn */
	double seconds;          /* making it (within prepare's seconds) */
} rp_replay_image;

/* errno values counted individually; larger ones are counted under 0 ("other"). */
#define RP_REPLAY_ERRNO_MAX 160

typedef struct rp_replay_results {
	const char *backend;
	rp_timing timing;
	double speed;
	uint32_t clients;
	rp_stop stop;     /* the most telling of the clients' */
	double elapsed_s; /* the measured period */
	double warmup_s;
	uint64_t ops, bytes; /* measured period, all clients */
	double ops_per_sec, mb_per_sec; /* MB = 10^6 bytes */
	double lag_p50_us, lag_p99_us, lag_max_us; /* trace and think timing; 0 for afap */
	uint64_t lag_count;
	uint64_t warmup_ops;
	uint64_t passes; /* whole passes through the trace, all clients */
	uint64_t failures, mismatches, unknown_handles, skipped, escapes;
	uint64_t failures_expected; /* failures whose error the trace recorded */
	uint64_t specials; /* special files refused (also counted in failures) */
	uint64_t unsupported; /* ops the backend cannot express (rp_replay_opstats.unsupported) */
	rp_replay_opstats op[RP_OP__COUNT];
	uint64_t errnos[RP_REPLAY_ERRNO_MAX]; /* failures by errno; [0] = others */
	rp_replay_second *series; /* one per second since the start */
	size_t n_series;
	rp_replay_sample samples[RP_REPLAY_SAMPLES];
	size_t n_samples;
	uint64_t sample_others; /* mismatches of kinds beyond the RP_REPLAY_SAMPLES kept */
	struct {
		bool ran;
		uint64_t dirs, files, bytes, failures; /* bytes: the files' sizes */
		/* Of files: already there and long enough, left as they were; already there and too short, extended. */
		uint64_t kept, extended;
		uint64_t written;      /* bytes written into them (sparse: one a file) */
		rp_prepare_fill fill;
		double seconds;        /* making them, and dropping the caches */
		/* 0: not asked; 1: synced and dropped; else the errno that prevented it (EPERM: not root) */
		int caches;
		rp_replay_image image; /* --image's part of prepare */
	} prepare;
	rp_replay_flush final_sync; /* the sync at the end, when asked, and the dirty bytes (always) */
	char error[RP_ERRBUF_SIZE]; /* a client that failed (reader error): what and where */
	uint32_t max_inflight;   /* the bound the run had (auto: the largest of its clients') */
	bool inflight_auto;      /* max_inflight auto: each client's bound its recorded depth, capped */
	uint32_t inflight_cap;   /* auto: the cap (RP_REPLAY_MAX_INFLIGHT, or a synchronous backend's); else 0 */
	rp_replay_depth depth;   /* all clients: the largest max, the mean of the means */
	rp_replay_depth *client_depth; /* one per client */
	size_t n_client_depth;
	rp_replay_lat lat;             /* every op but sleeps, all clients */
	const struct rp_hist *hist;    /* the same as a histogram (NULL: none) */
	rp_replay_lat tgt_lat;         /* at the target: each request from the backend's send to its answer, all clients */
	const struct rp_hist *tgt_hist; /* the same as a histogram (NULL: none measured) */
	const struct rp_hist *lag_hist; /* the issue lag (trace, think timing) as a histogram (NULL: none), for merging runs */
	rp_replay_client *client;      /* one per client, n_client_depth of them */
	rp_order_mode order;           /* --order, as it ran: client or resource (auto says which) */
	bool order_auto;               /* --order auto chose it */
	bool order_fallback;           /* auto: resource was called for, but its scan failed (order_why says why) */
	char order_why[RP_ERRBUF_SIZE]; /* auto: why ("clients share 3 paths; 1 forked by another"), else "" */
	uint32_t order_resources;      /* resource: paths ordered (per copy) */
	uint64_t order_bytes;          /* resource: the tables' memory during the run */
	uint64_t order_waits;          /* resource: ops that waited, all clients */
	double order_wait_us;          /* resource: their waits, in all */
	rp_replay_schedule schedule;   /* trace and think timing: the span and whether the run fell behind */
	uint32_t trace_clients;        /* the trace's own clients (clients counts their copies) */
	int64_t target_entries;        /* rp_replay_opts.target_entries (-1: not known) */
	double mismatch_share;         /* mismatches / ops (0 without ops) */
	bool representative;           /* mismatch_share at most RP_REPLAY_MISMATCH_SHARE_MAX */
	rp_cause likely_cause;         /* RP_CAUSE_NONE when representative */

	/*
	 * How the backend replayed, when it says (the nfs backend's mode): NULL
	 * when it has no modes.  protocol_ops: ops sent as the request they were
	 * recorded as; fallbacks: the ops that went the semantic way, by reason
	 * (static words), warm-up and every pass included, prepare's excluded.
	 */
	const char *backend_mode;
	const char *backend_mode_why; /* why the backend chose that mode itself ("auto: ..."); NULL: nothing to say */
	uint64_t protocol_ops;
	struct {
		const char *reason;
		uint64_t count;
	} fallbacks[RP_REPLAY_FALLBACKS];
	size_t n_fallbacks;
	uint64_t own_requests; /* the backend's requests of its own, no op's (NFSv4 lease renewals, lock polls, releases) */
	/* Of those: blocking locks sent again while denied, lock-owners released; blocking locks that gave up. */
	uint64_t lock_polls, lock_releases, lock_expired;
} rp_replay_results;

/* ---- Running ---------------------------------------------------------------------------- */

typedef struct rp_replay rp_replay;

/*
 * Check options, create the backend, scan the workload (clients, prepare plan).
 * RP_E_RANGE: the options are out of range or do not fit the workload (trace
 * timing of a trace without timestamps), a usage error.
 */
int rp_replay_create(rp_replay **out, const rp_replay_opts *opts, rp_workload *w, char *errbuf);
void rp_replay_destroy(rp_replay *r); /* NULL is a no-op */

/* The prepare plan without a run: formats/plan.h (rp_plan_build), which the scan above uses. */

/* The prepare phase (skipped with no_prepare); rp_replay_start runs it if not called. */
int rp_replay_prepare(rp_replay *r, char *errbuf);
/*
 * How many entries the target's root holds now, listed through the backend
 * (one READDIR by a client state of the target itself), for the warning on
 * a target that is not empty; call it before prepare.  0, or an rp error
 * (RP_E_UNSUPPORTED: the backend cannot list; a connection that failed).
 */
int rp_replay_target_entries(rp_replay *r, uint64_t *n, char *errbuf);
/* Start one thread per client; returns at once. */
int rp_replay_start(rp_replay *r, char *errbuf);
/* Wait up to timeout_ms for every client to finish: 1 done, 0 still running. */
int rp_replay_wait(rp_replay *r, unsigned timeout_ms);
/* Ask every client to stop after its current op.  Async-signal-safe. */
void rp_replay_stop(rp_replay *r);

typedef struct rp_replay_progress {
	double elapsed_s;     /* since the start */
	uint32_t running;     /* clients still running */
	uint32_t clients;     /* clients started (0 before the start) */
	uint64_t ops, bytes;  /* totals so far, warm-up included */
	double lag_max_us;    /* largest issue lag since the previous call (trace and think timing) */
	bool warmup;
	rp_timing timing;     /* the run's (afap: no schedule, no lag) */
} rp_replay_progress;
/* A snapshot from relaxed per-client counters (call from one thread, about once a second). */
void rp_replay_progress_get(rp_replay *r, rp_replay_progress *p);

/* Join the clients and merge their statistics.  Returns 0, or the first client error. */
int rp_replay_finish(rp_replay *r, char *errbuf);
/* prepare + start + wait + finish. */
int rp_replay_run(rp_replay *r, char *errbuf);
const rp_replay_results *rp_replay_get_results(const rp_replay *r);
/*
 * Whether the run began, so its results say what happened: true once
 * rp_replay_start ran prepare, also when prepare then failed (stop "error",
 * the failure in results.error); false when it was never started.
 */
bool rp_replay_began(const rp_replay *r);

/* ---- Cleanup (--cleanup) ---------------------------------------------------------------- */

/*
 * What is beneath a directory target before a run, so that what the run and
 * its prepare made can be removed after it, and nothing else (replay/cleanup.c).
 */
typedef struct rp_tree_snap rp_tree_snap;
typedef struct rp_tree_clean {
	uint64_t removed; /* entries the run made, removed */
	uint64_t kept;    /* entries of before left alone (and new directories that hold one) */
	uint64_t failed;  /* entries the run made that could not be removed */
	/* entries left because nothing tells whether the run made them (no birth time where the snapshot could not see) */
	uint64_t unsure;
} rp_tree_clean;

int rp_tree_snap_take(rp_tree_snap **out, const char *dir, char *errbuf);
/* Entries directly in the directory when the snapshot was taken. */
uint64_t rp_tree_snap_entries(const rp_tree_snap *s);
/* Count path (a report written beneath the target) as there before: the cleanup leaves it.  0 or RP_E_NOMEM. */
int rp_tree_snap_keep(rp_tree_snap *s, const char *path);
/* Remove what is beneath dir now and was not when s was taken; 0, or an error when some could not be. */
int rp_tree_snap_clean(const rp_tree_snap *s, const char *dir, rp_tree_clean *st, char *errbuf);
void rp_tree_snap_free(rp_tree_snap *s); /* NULL is a no-op */

/*
 * The same for a target the backend walks (nfs://, smb://; rp_backend_ops.walk,
 * replay/cleanup_net.c), through the backend's own calls: before prepare, the
 * identity (NFS fileid, SMB file index) of every entry beneath the target;
 * after rp_replay_finish, every entry whose identity was not among them is
 * removed, a directory's entries before it.  What was there before stays,
 * also when the run renamed it, and so does a directory the run made that
 * holds some; an entry the server gives no identity is left, counted unsure.
 * RP_E_UNSUPPORTED when the backend cannot walk.
 */
typedef struct rp_replay_snap rp_replay_snap;
int rp_replay_snap_take(rp_replay *r, rp_replay_snap **out, char *errbuf);
uint64_t rp_replay_snap_entries(const rp_replay_snap *s); /* entries directly in the target */
int rp_replay_snap_clean(rp_replay *r, const rp_replay_snap *s, rp_tree_clean *st, char *errbuf);
void rp_replay_snap_free(rp_replay_snap *s); /* NULL is a no-op */

/* ---- Reports ---------------------------------------------------------------------------- */

/* The final table (text), as the CLI prints it. */
void rp_replay_write_table(const rp_replay_results *res, FILE *f);
/* Its "Prepare: ..." line alone (replay --prepare-only). */
void rp_replay_write_prepare(const rp_replay_results *res, FILE *f);
/*
 * Where and how a run happened, for the JSON: what the library cannot know
 * (the command line, the trace file, the build) or does not measure (host,
 * target file system, CPU time).  The caller fills it; NULL strings and
 * negative numbers are written as null.
 */
typedef struct rp_replay_provenance {
	const char *version;        /* reprise's */
	const char *const *features; /* the build's "name=value" pairs, NULL-terminated */
	int argc;
	char *const *argv;          /* the command line as run */
	int64_t start_epoch_ns;     /* wall clock at the start, ns since 1970 (UTC); < 0 unknown */
	const char *host;           /* gethostname */
	const char *kernel;         /* uname: sysname release version machine */
	const char *trace_path;
	const char *trace_sha256;   /* lowercase hex; NULL: not hashed (standard input) */
	double hash_seconds;        /* what hashing the trace took (< 0: not hashed) */
	const char *target;
	const char *target_fs;      /* statfs f_type by name ("ext2/3/4", "tmpfs"; else mountinfo's type) */
	const char *target_fs_magic; /* statfs f_type in hex ("0xef53") */
	const char *target_mount;   /* the mount point holding the target (/proc/self/mountinfo) */
	const char *target_mount_opts; /* its per-mount options ("rw,relatime") */
	const char *target_fs_opts;    /* its super-block options ("rw,size=...") */
	double cpu_user_s, cpu_sys_s; /* getrusage over the run (< 0: unknown) */
} rp_replay_provenance;

/* The JSON schema version rp_replay_write_json writes (docs/replay.md). */
#define RP_REPLAY_JSON_SCHEMA 2

/*
 * Everything as one JSON object (schema: docs/replay.md), always valid UTF-8
 * (names through rp_text_escape_utf8).  prov may be NULL (written as null).
 * Returns 0, RP_E_NOMEM, or RP_E_IO when f could not take it (errno says why).
 */
int rp_replay_write_json(const rp_replay_results *res, const rp_replay_provenance *prov, FILE *f);
const char *rp_timing_name(rp_timing t);
/* Why a final sync that was asked for did not run, in words ("interrupted", "no local directory"); NULL when it ran or was not asked. */
const char *rp_replay_flush_why(const rp_replay_flush *f);
const char *rp_prepare_fill_name(rp_prepare_fill f); /* "data", "zero", "sparse" */
const char *rp_order_name(rp_order_mode m);         /* "client", "resource", "auto" */
/* "EIO" etc., or NULL. */
const char *rp_replay_errno_name(int err);
/* "order", "prepare", "target", "unknown"; NULL for RP_CAUSE_NONE (replay/verdict.c). */
const char *rp_cause_name(rp_cause c);
/*
 * What to do about res's likely cause, in words, into buf ("try
 * --order=resource: ..."); "" when it is representative.
 */
void rp_replay_cause_text(const rp_replay_results *res, char *buf, size_t n);

#endif
