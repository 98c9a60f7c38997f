/*
 * strace logs (`strace -f -ttt -T -y`, also -yy, without -f, and -ff's
 * per-pid files) -> op records (docs/strace.md: the syscall -> op table,
 * what is counted, the limits).
 */
#ifndef REPRISE_CONVERTERS_STRACE_H
#define REPRISE_CONVERTERS_STRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/sink.h"

/* Whether head[0..len) starts (past blank lines) with a line strace writes: [pid] [time] name( / --- / +++. */
bool rp_strace_sniff(const void *head, size_t len);

/* The pid a -ff file's name gives (`prefix.PID`): true and *pid, or false when the name does not end so. */
bool rp_strace_pid_from_name(const char *path, uint32_t *pid);

typedef struct rp_strace_opts {
	bool lenient;       /* skip bad lines, count them by reason */
	bool filter_client; /* keep only this client's ops */
	uint32_t client;
	uint32_t pid;       /* lines without a pid column are this process's (-ff files; 0 without -f) */
} rp_strace_opts;

typedef struct rp_strace rp_strace;

/* A parser that feeds sink; name is the input's name in messages ("run.strace:12: ..."). */
int rp_strace_create(rp_strace **out, rp_sink *sink, const char *name, const rp_strace_opts *opts, char *errbuf);
void rp_strace_destroy(rp_strace *t); /* NULL is a no-op */
/*
 * One line without its newline (a trailing CR is allowed).  0, or a negative
 * rp error with "name:line: what" in errbuf (lenient: bad lines are counted,
 * except a log without the timestamps or durations reprise needs, which is
 * always an error naming the strace flags).
 */
int rp_strace_line(rp_strace *t, const char *line, size_t len, char *errbuf);
/* The same for line `line` of the -ff file `name` (kept: messages name it), whose process is pid. */
int rp_strace_line_of(rp_strace *t, const char *name, uint64_t line, uint32_t pid, const char *text, size_t len,
		      char *errbuf);
/* After the last line: calls left unfinished become ops without a reply; meta (if no op sent it) and finish. */
int rp_strace_finish(rp_strace *t, char *errbuf);
uint64_t rp_strace_skipped(const rp_strace *t);
/* What the parser counted, one line for the user ("" when nothing was): bad lines by reason, syscalls that are no file operation by name, ... */
void rp_strace_summary(const rp_strace *t, char *buf, size_t size);
uint64_t rp_strace_ops(const rp_strace *t);

/* Every line of buf[0..len) (the fuzz target's and the tests' entry point); summary may be NULL. */
int rp_strace_parse_mem(const void *buf, size_t len, const char *name, rp_sink *sink, const rp_strace_opts *opts,
			uint64_t *skipped, char *summary, size_t summary_size, char *errbuf);

/* The longest line read: strace cuts strings at -s bytes, so a longer line is no log of a real run. */
#define RP_STRACE_LINE_MAX (1u << 20)

/*
 * strace -ff's files (prefix.PID each, lines without a pid column) merged
 * into one log: each file's lines are its pid's, all of them in timestamp
 * order (a k-way merge holding one line per file), so fork results link the
 * processes as in one -f log.  Limits: RP_STRACE_FF_MAX files, and the lines
 * held at once (one per file) RP_STRACE_FF_HELD bytes together.
 */
#define RP_STRACE_FF_MAX 8192u           /* reprise's client limit: a file is a process */
#define RP_STRACE_FF_HELD (256u << 20)   /* 256 one-MiB lines at once is no real run's */
/*
 * The files in paths[0..n) into sink: 0 or a negative rp error naming the
 * file (one that is missing, a name without a numeric .PID, two for one pid).
 * name is the trace's (the prefix); summary and skipped as rp_strace_parse_mem.
 */
int rp_strace_ff_run(const char *const *paths, size_t n, const char *name, rp_sink *sink, const rp_strace_opts *opts,
		     uint64_t *skipped, char *summary, size_t summary_size, char *errbuf);
/* The same over open streams (the fuzz target's entry: fmemopen), names[i] files[i]'s name. */
int rp_strace_ff_merge(FILE *const *files, const char *const *names, size_t n, const char *name, rp_sink *sink,
		       const rp_strace_opts *opts, uint64_t *skipped, char *summary, size_t summary_size, char *errbuf);
/*
 * The -ff files of prefix: prefix.PID for every numeric PID in prefix's
 * directory, ascending by pid, into *paths (malloc'd, each too; free with
 * rp_strace_ff_free).  0 (n 0: none), or a negative rp error.
 */
int rp_strace_ff_find(const char *prefix, char ***paths, size_t *n, char *errbuf);
void rp_strace_ff_free(char **paths, size_t n);

#endif
