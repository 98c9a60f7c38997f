/*
 * The side-by-side table of `reprise compare`, in the labels and units of
 * `reprise bench`'s: targets and their runs as plain C structs, filled from
 * replay JSON (`reprise replay --json`, docs/replay.md) or from results in
 * memory (so bench can print it too), and printed as one table
 * (docs/compare.md).
 *
 * Use: rp__bt_set_create(); per target rp__bt_target_get() (runs of the same
 * target string and fs type pool into one); per run rp__bt_run_add() and fill
 * it, from a replay result with rp__bt_run_from_json() or field by field
 * (rp__bt_op_add() for each op, rp__bt_series_alloc() for the per-second
 * series); then rp__bt_print() and rp__bt_set_destroy().  Nothing here prints
 * but rp__bt_print, to the FILE it is given.
 */
#ifndef REPRISE_RESULTS_BENCHTAB_H
#define REPRISE_RESULTS_BENCHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* Limits on what an input may make us hold; every one is an error naming the field, not a truncation. */
#define RP_BT_TARGETS_MAX 32     /* a chart or table with more columns is not readable at a glance */
#define RP_BT_RUNS_MAX 256       /* runs per target, after pooling */
#define RP_BT_OPS_MAX 128        /* op names per run, and in all runs together (reprise has fewer than 64) */
#define RP_BT_NAME_MAX 4096      /* bytes of a target, fs type, mount options or op name (PATH_MAX) */
#define RP_BT_SERIES_MAX 1000000 /* seconds of a run's per-second series (11.5 days) */
#define RP_BT_BUCKETS_MAX 4352   /* buckets of a histogram: replay's layout (S = 7, M = 40) has this many */

/* The histogram layout replay writes (docs/replay.md, "Histograms"): only this one is read. */
#define RP_BT_HIST_SUB_BITS 7
#define RP_BT_HIST_MAX_BITS 40

/* A log-linear latency histogram: the non-empty buckets as (lo_ns, count), by increasing lo_ns. */
typedef struct rp_bt_hist {
	uint64_t count, min_ns, max_ns;
	size_t n;
	uint64_t (*b)[2];
} rp_bt_hist;

typedef struct rp_bt_op {
	char *name; /* "read", as replay names ops (owned) */
	uint64_t count, bytes, failures, mismatches;
	double avg_us, p50_us, p99_us, max_us;
	rp_bt_hist hist; /* n == 0: none */
} rp_bt_op;

/* One second of a run (series[t]): ops issued in it and their bytes. */
typedef struct rp_bt_sec {
	uint64_t ops, bytes;
	bool warmup;
} rp_bt_sec;

typedef struct rp_bt_run {
	uint32_t run;    /* its number in the bench, from 1 (a replay file: 1) */
	uint32_t input;  /* the rp_bt_input it came from (an index into the set's inputs) */
	bool discarded;  /* bench --discard-first: shown, left out of every median and chart */
	bool failed;     /* bench: the run did not start or ended in an error: counted apart, left out as discarded */
	char *source;    /* the file it came from, for messages (owned; may be NULL) */
	double elapsed_s, warmup_s, mb_per_sec, ops_per_sec;
	uint64_t total_ops, bytes, failures, failures_expected, mismatches;
	double lag_p50_us, lag_p99_us, lag_max_us;
	/*
	 * latency_us over every op but sleeps; when the run has process ops
	 * (rp__bt_process_op) and every other op a histogram, over the file-system
	 * ops only (all_fs_only), from their histograms merged
	 */
	double all_p50_us, all_p99_us, all_max_us;
	bool all_fs_only;
	char timing[8];  /* "afap", "trace", "think" ("" when not known) */
	uint32_t clients; /* the replay's clients (0 when not known) */
	bool fixed_work; /* the run went through the trace and ended ("stop": "end"), not stopped by -t */
	int64_t final_sync_ns; /* bench: the flush at end, counted in elapsed_s; -1 when no sync ran */
	/* bench: Dirty + Writeback bytes (system-wide) at the end of the ops minus at their start; may be < 0 */
	int64_t dirty_bytes_at_end;
	bool dirty_known; /* dirty_bytes_at_end was measured */
	/* bench: the 1-minute load average (/proc/loadavg) at the run's start; < 0 when not known */
	double load_start;
	/* bench: the share of CPU time stolen by the hypervisor during the run (/proc/stat steal), 0..1; < 0 when not known */
	double steal_share;
	rp_bt_op *ops;
	size_t nops;
	rp_bt_sec *series;
	size_t nseries;
} rp_bt_run;

typedef struct rp_bt_target {
	char *target, *fs_type, *mount_options; /* owned; "" when not known */
	char *shared_mount; /* bench: the mount point of the file system the target is a directory of (owned); NULL: none */
	rp_bt_run *runs;
	size_t nruns;
} rp_bt_target;

/*
 * Where an input file's runs came from, for the report's provenance header
 * and the check that every input replayed one trace: strings owned, "" when
 * the file does not say.
 */
typedef struct rp_bt_input {
	char *file;            /* the input as named */
	char *trace_path;      /* the trace as the run named it */
	char trace_sha256[65]; /* lowercase hex; "" when not known */
	char *host, *kernel, *version, *start_time;
	char *command_line;    /* the arguments joined by spaces, each with a space or quote in '' */
	char *options;         /* bench: its options ("runs=3 discard_first=true ..."), "" for a replay file */
} rp_bt_input;

#define RP_BT_INPUTS_MAX 1024 /* input files of one comparison */

typedef struct rp_bt_set {
	rp_bt_target *targets; /* in the order first seen */
	size_t ntargets;
	rp_bt_input *inputs;   /* one per file loaded, in order */
	size_t ninputs;
	double spread_limit;   /* a target whose runs' max/min exceeds this is flagged (RP_BT_SPREAD_LIMIT) */
} rp_bt_set;

/* The spread (max over min of a target's runs) past which the table and the page say its runs disagree. */
#define RP_BT_SPREAD_LIMIT 1.5

rp_bt_set *rp__bt_set_create(void);
void rp__bt_set_destroy(rp_bt_set *s); /* NULL: nothing */

/*
 * The target named target on fs_type (either may be NULL: ""), added if new
 * (its mount options taken from this call; a later one with other options is
 * the same target).  NULL when out of memory or past RP_BT_TARGETS_MAX (err
 * says which).
 */
rp_bt_target *rp__bt_target_get(rp_bt_set *s, const char *target, const char *fs_type, const char *mount_options,
				char *err, size_t errsize);

/* The input named file added to s (every other field ""); NULL when out of memory or past RP_BT_INPUTS_MAX. */
rp_bt_input *rp__bt_input_add(rp_bt_set *s, const char *file, char *err, size_t errsize);

/*
 * Did every input replay one trace?  0, or -1 with err naming two inputs
 * whose traces' SHA-256 differ (an input whose trace's hash is not known is
 * not compared).
 */
int rp__bt_traces_check(const rp_bt_set *s, char *err, size_t errsize);

/* A new zeroed run of t (final_sync_ns -1, dirty, load and steal not known); NULL when out of memory or past RP_BT_RUNS_MAX. */
rp_bt_run *rp__bt_run_add(rp_bt_target *t, char *err, size_t errsize);
/* Free t's runs (and nothing else of t): for a target that is not in a set. */
void rp__bt_target_runs_free(rp_bt_target *t);
/* A new zeroed op of r named name; NULL when out of memory or past RP_BT_OPS_MAX. */
rp_bt_op *rp__bt_op_add(rp_bt_run *r, const char *name, char *err, size_t errsize);
/* r->series as n zeroed seconds; -1 when out of memory or past RP_BT_SERIES_MAX. */
int rp__bt_series_alloc(rp_bt_run *r, size_t n, char *err, size_t errsize);

/*
 * Fill r from one replay result object (what `reprise replay --json` writes,
 * schema "reprise-replay" version 2), every field used checked for presence,
 * type and range.  where names the object in messages ("run.json" or
 * "run.json: targets[0].runs[1].result"); an error is "WHERE.FIELD: what".
 * 0, or -1 with err set.
 */
int rp__bt_run_from_json(rp_bt_run *r, const json_t *result, const char *where, char *err, size_t errsize);

/*
 * A whole file's bytes (a bench file, schema "reprise-bench/1", or one replay
 * result) added to s: a replay file is one run of the target its provenance
 * names.  name is the file, for messages ("name: field: error").  0, or -1
 * with err set (s may then hold part of the file: destroy it).
 */
#define RP_BT_FILE_MAX (256u << 20) /* bytes of one input file: a bench of 256 runs of an hour's replay is ~100 MB */
int rp__bt_load_buffer(rp_bt_set *s, const char *name, const char *buf, size_t len, char *err, size_t errsize);

/* Is r in the numbers and charts: not discarded, not failed? */
static inline bool rp__bt_counted(const rp_bt_run *r)
{
	return !r->discarded && !r->failed;
}

/* "3 (+1 discarded, 1 failed)": the runs row's cell. */
void rp__bt_runs_text(char *buf, size_t size, const rp_bt_target *t);

/* Statistics over a target's counted runs: not discarded, not failed. */
typedef struct rp_bt_spread {
	size_t n; /* runs counted; 0: the rest is 0 */
	double min, median, max;
} rp_bt_spread;

/* What a row measures: the field of a run it reads, and which way is better. */
typedef enum rp_bt_metric {
	RP_BT_MB_S,
	RP_BT_OPS_S,
	RP_BT_LAG_P50,
	RP_BT_LAG_P99,
	RP_BT_LAG_MAX,
	RP_BT_ALL_P50,     /* latency_us of every op */
	RP_BT_ALL_P99,
	RP_BT_ALL_MAX,
	RP_BT_FAILURES,    /* failures the trace did not record (failures - failures_expected), as bench counts errors */
	RP_BT_MISMATCHES,
	RP_BT_FLUSH_S,     /* final_sync_ns in s; runs with -1 left out */
	RP_BT_DIRTY_MB,    /* dirty_bytes_at_end in MB, 0 when below (the note says so); runs without it left out */
	RP_BT_ELAPSED_S,   /* the measured time of a fixed-work run (fixed_work): time to complete; timed runs left out */
	RP_BT_LOAD,        /* load_start; runs without it left out; not ranked */
	RP_BT_STEAL_PCT,   /* steal_share in %; runs without it left out; not ranked */
	RP_BT_OP_P50,      /* an op's (rp__bt_spread's op argument) p50, in ms as all latencies; lags in µs */
	RP_BT_OP_P99,
	RP_BT_OP_MAX,
} rp_bt_metric;

/*
 * The rows of the table, in order, labelled and in the units `reprise bench`
 * prints (latency ms, lag µs): X(metric, label, JSON key).  Op rows follow.
 */
#define RP_BT_ROWS(X)                                            \
	X(RP_BT_MB_S, "MB/s", "mb_per_sec")                      \
	X(RP_BT_OPS_S, "ops/s", "ops_per_sec")                   \
	X(RP_BT_ELAPSED_S, "time to complete (s)", "time_to_complete_s") \
	X(RP_BT_FLUSH_S, "flush at end (s)", "flush_at_end_s")   \
	X(RP_BT_DIRTY_MB, "dirty at end (MB)", "dirty_at_end_mb") \
	X(RP_BT_ALL_P50, "all p50 (ms)", "all_p50_ms")           \
	X(RP_BT_ALL_P99, "all p99 (ms)", "all_p99_ms")           \
	X(RP_BT_ALL_MAX, "all max (ms)", "all_max_ms")           \
	X(RP_BT_LAG_P50, "issue lag p50 (us)", "lag_p50_us")     \
	X(RP_BT_LAG_P99, "issue lag p99 (us)", "lag_p99_us")     \
	X(RP_BT_LAG_MAX, "issue lag max (us)", "lag_max_us")     \
	X(RP_BT_FAILURES, "errors", "errors")                    \
	X(RP_BT_MISMATCHES, "mismatches", "mismatches")          \
	X(RP_BT_LOAD, "load avg at start", "load_at_start")      \
	X(RP_BT_STEAL_PCT, "CPU steal (%)", "cpu_steal_pct")

rp_bt_spread rp__bt_spread(const rp_bt_target *t, rp_bt_metric m, const char *op);
bool rp__bt_higher_is_better(rp_bt_metric m);

/* Why a row two targets have marks no best: RP_BT_WIN marks one. */
#define RP_BT_WHYS(X)                                                                       \
	X(RP_BT_WIN, "")                                                                     \
	X(RP_BT_ALONE, "one target")                                                          \
	X(RP_BT_UNRANKED, "not ranked")                                                       \
	X(RP_BT_EQUAL, "equal for every target")                                              \
	X(RP_BT_FEW, "too few ops to tell")                                                   \
	X(RP_BT_SPREAD, "within the runs' spread")                                            \
	X(RP_BT_CLOSE, "within 5%")                                                          \
	X(RP_BT_GRAIN, "all about 0: within the row's resolution")                            \
	X(RP_BT_SCHEDULE, "the trace's schedule sets it (--timing trace or think)")
#define RP_BT_WHY_ENUM(e, text) e,
typedef enum rp_bt_why { RP_BT_WHYS(RP_BT_WHY_ENUM) } rp_bt_why;
#undef RP_BT_WHY_ENUM
const char *rp__bt_why_text(rp_bt_why w);

/*
 * The verdict rules (docs/compare.md, "Who wins"): a row's best is marked only
 * when two or more targets have it, their medians differ, every target
 * measured at least RP_BT_MIN_OPS ops for it, the best's min..max does not
 * overlap the next best's, the next best is at least RP_BT_MARGIN from it,
 * and (throughput rows) the runs were not paced by the trace's schedule.
 */
#define RP_BT_MIN_OPS 100  /* below, a p99 is one op's latency and a rate a few ops' */
#define RP_BT_MARGIN 1.05  /* a best less than 5 % better than the next is a tie, whatever the spread */

typedef struct rp_bt_rank {
	size_t have;   /* targets that have the row: 0, it is left out */
	double best;   /* the best median (NAN for a row never ranked: dirty data, load, steal) */
	size_t best_i; /* its target (valid when have > 0 and best is not NAN) */
	rp_bt_why why; /* RP_BT_WIN: best_i is the winner, marked */
	/*
	 * The best is about 0 (under the row's resolution, rp__bt_floor): the
	 * others are shown as differences (+3.2), not as ratios to it (14734x).
	 */
	bool absolute;
	rp_bt_metric metric; /* the row's */
} rp_bt_rank;

/* sp[i] the spread of m over target i's runs (sp has room for s->ntargets), and how the row ranks. */
rp_bt_rank rp__bt_row(const rp_bt_set *s, rp_bt_metric m, const char *op, rp_bt_spread *sp);

/* The value under which a row's numbers are "about 0": a resolution, in the row's unit. */
double rp__bt_floor(rp_bt_metric m);

/* Is op a process op (fork, wait, exec, exit): a program's life, not file-system latency? */
bool rp__bt_process_op(const char *op);

/*
 * The spread of target t over its counted runs as max/min of MB/s (of ops/s
 * when MB/s is 0), 0 when fewer than two runs or a minimum of 0; *outliers
 * the runs outside median/limit..median*limit.  Past s->spread_limit the runs
 * disagree: the table and page flag it and say how many runs a stable median
 * needs (rp__bt_runs_needed).
 */
double rp__bt_run_spread(const rp_bt_target *t, double limit, size_t *outliers);
/* Runs whose median holds against one more outlier than seen: 2 (outliers + 1) + 1, at least 5. */
size_t rp__bt_runs_needed(size_t outliers);

/* A cell's mark after its number: "" (the best, *is_best set; or equal to it), "0.52x", "+3.2" (the best about 0). */
void rp__bt_mark(char *buf, size_t size, const rp_bt_rank *k, const rp_bt_spread *sp, size_t i, bool *is_best);
/* A number in a table cell: 3 significant digits at least, no exponent for the sizes a run has. */
void rp__bt_fmt(char *buf, size_t n, double v);

/*
 * Target i's short label, in display form: its file-system type when no other
 * target has that type ("ext4"), else the last component of its path when no
 * other's is the same ("pgdata"), else the whole target; cut to
 * RP_BT_LABEL_MAX - 1 bytes (the full path goes in a tooltip or footnote).
 */
#define RP_BT_LABEL_MAX 64
void rp__bt_label(char *buf, size_t size, const rp_bt_set *s, size_t i);

/* The note under a table or page: every flagged target's spread, even run counts, clamped dirty data. */
void rp__bt_notes(const rp_bt_set *s, FILE *f, bool html);

/*
 * s for a terminal or a page: valid UTF-8 that is not a control as is, every
 * other byte \xNN, into buf (truncated to size).  Replay's JSON names are
 * already escaped so (rp_text_escape_utf8): a backslash stays one.
 */
void rp__bt_display(char *buf, size_t size, const char *s);

/*
 * The op names of every counted run in s, each once, by
 * decreasing total count (ties by name); *n their number.  A NULL-free array
 * of pointers into s (free() the array only); NULL with *n 0 when none or out
 * of memory.
 */
const char **rp__bt_op_names(const rp_bt_set *s, size_t *n);

/*
 * How many distinct op names the runs of s have (every run, counted or not),
 * counting no further than RP_BT_OPS_MAX + 1: more kinds than one run may
 * have is a broken or hostile input (the loader refuses it), and keeps every
 * per-op loop small.
 */
size_t rp__bt_op_kinds(const rp_bt_set *s);

/*
 * The table: a row per measure (fs type, mount options, runs, MB/s, ops/s,
 * issue lag, all ops' latency, errors, mismatches, flush at end and dirty data
 * when known, then each op's p50/p99/max latency), a column per target; each
 * cell the median over the counted runs with min..max, the best of a row marked
 * `*` and every other one's ratio to it.  Names are printed escaped (no
 * control byte reaches the terminal).  0, or -1 on a write error or when out
 * of memory (errno set).
 */
int rp__bt_print(const rp_bt_set *s, FILE *f);

/*
 * The table's numbers as JSON (schema "reprise-compare/1", docs/compare.md):
 * inputs names the files they came from.  0, or -1 with errno set.
 */
int rp__bt_json(const rp_bt_set *s, const char *const *inputs, size_t ninputs, FILE *f);

/*
 * One self-contained HTML page (no network fetch, script, font or image from
 * elsewhere): the table, then SVG charts of throughput over time, latency CDFs
 * per op, the op mix and the spread over runs (docs/compare.md).  Every name
 * is HTML-escaped.  0, or -1 with errno set.
 */
int rp__bt_html(const rp_bt_set *s, const char *const *inputs, size_t ninputs, FILE *f);

#endif
