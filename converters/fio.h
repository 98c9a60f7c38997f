/*
 * Ops -> fio's I/O replay input (fio(1), "Trace file format v3"): an iolog
 * of the trace's reads, writes, syncs and trims, and a job file that lays
 * out the files the iolog reads and then replays it (docs/fio.md).
 */
#ifndef REPRISE_CONVERTERS_FIO_H
#define REPRISE_CONVERTERS_FIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/sink.h"

/*
 * fio 3.33 refuses an iolog line whose file name is 256 bytes or longer
 * ("failed initializing iolog"): a longer name (after the mapping of unsafe
 * bytes) leaves its ops out, counted.
 */
#define RP_FIO_NAME_MAX 255u
/*
 * An I/O that ends beyond 16 TiB (ext4's largest file) is no file a replay
 * target holds and would make fio lay out or write that much: left out,
 * counted.
 */
#define RP_FIO_END_MAX (16ull << 40)
/*
 * fio runs at most 4096 jobs of one job file; the layout jobs of the job
 * form stop short of that (the replay job is one more).
 */
#define RP_FIO_LAYOUT_JOBS_MAX 4000u

typedef enum rp_fio_form {
	RP_FIO_IOLOG, /* "fio version 3 iolog" lines, written as the ops come */
	RP_FIO_JOB,   /* a job file, written at close: layout jobs, then the replay of iolog */
} rp_fio_form;

typedef struct rp_conv_fio_opts {
	rp_fio_form form;
	const char *iolog; /* RP_FIO_JOB: the read_iolog= value (the iolog's path as fio will open it) */
} rp_conv_fio_opts;

/* Why an I/O op was not written (the counts of rp_conv_fio_stats.skipped). */
typedef enum rp_fio_skip {
	RP_FIO_SKIP_FAILED,  /* failed in the trace (its status an error) */
	RP_FIO_SKIP_HANDLE,  /* on a handle no open of the trace named, and without a path */
	RP_FIO_SKIP_PATH,    /* its path climbs out of the tree, is the top itself or has a NUL */
	RP_FIO_SKIP_LONG,    /* its name is longer than RP_FIO_NAME_MAX */
	RP_FIO_SKIP_END,     /* it ends beyond RP_FIO_END_MAX */
	RP_FIO_SKIP_FALLOC,  /* a fallocate that is no punch-hole (fio's trim is one) */
	RP_FIO_SKIP_SYNC,    /* a sync of a file fio has not read or written before (a directory's, often) */
	RP_FIO_SKIP_ZERO,    /* a read or write that moved 0 bytes (a read at the end of the file) */
	RP_FIO_SKIP__COUNT
} rp_fio_skip;

typedef struct rp_conv_fio_stats {
	uint64_t ops;                      /* ops received */
	uint64_t reads, writes, syncs, datasyncs, trims; /* I/O lines written */
	uint64_t read_bytes, write_bytes, trim_bytes;
	uint64_t files;                    /* files the iolog names */
	uint64_t mapped;                   /* of those, names with bytes fio cannot take (mapped to safe ones) */
	uint64_t unclosed;                 /* files still open at the end: closed there */
	uint64_t raised;                   /* ops whose time was earlier than the one before (written at that one's) */
	uint64_t clients;                  /* distinct clients, all in the one job */
	uint64_t layout_bytes;             /* the job form: what its layout jobs write */
	uint64_t skipped[RP_FIO_SKIP__COUNT];
	uint64_t left_out[RP_OP__COUNT];   /* ops fio cannot express, by opcode */
} rp_conv_fio_stats;

typedef struct rp_conv_fio rp_conv_fio;

/* A sink that writes form to f; close flushes f and leaves it open (the caller checks and closes it). */
int rp_conv_fio_open(rp_conv_fio **out, FILE *f, const rp_conv_fio_opts *opts, char *errbuf);
rp_sink *rp_conv_fio_sink(rp_conv_fio *w);
/* The counts so far (valid until close). */
void rp_conv_fio_get_stats(const rp_conv_fio *w, rp_conv_fio_stats *st);
/* Finish (the job form writes everything here), the final counts into st if not NULL, and free; NULL is a no-op. */
int rp_conv_fio_close(rp_conv_fio *w, rp_conv_fio_stats *st, char *errbuf);

/* What was written and what was left out, lines for the user (convert's summary), NUL-terminated in buf. */
void rp_conv_fio_summary(const rp_conv_fio_stats *st, rp_fio_form form, char *buf, size_t size);

/*
 * The iolog a job file named job (as given to open: a path, or "-" /
 * "<stdout>" for standard output) replays, as its read_iolog= says it:
 * job's base name with .iolog in place of .fio ("replay.iolog" for standard
 * output), in dir when one is given (as given: relative to where fio runs, or
 * absolute), else alone, which fio opens in the directory it runs (and
 * replays) in.  The job holds no path of the machine that wrote it unless
 * dir is one.  0, or a negative errno.
 */
int rp_conv_fio_iolog_for(const char *job, const char *dir, char *buf, size_t size);

#endif
