/* Block and inode I/O traces published as CSV (MSR Cambridge, FIU, Alibaba, Tencent) -> read/write ops (docs/csv.md). */
#ifndef REPRISE_CONVERTERS_CSV_H
#define REPRISE_CONVERTERS_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/sink.h"

/* A line longer than this is no record of these formats (theirs are under 200 bytes). */
#define RP_CSV_LINE_MAX 65536u
/* Columns a map may name, and files (devices, volumes, inodes) a trace may touch. */
#define RP_CSV_COLUMNS_MAX 64u
#define RP_CSV_FILES_MAX (1u << 20)
/* An I/O ending past this many bytes into its device is corruption: prepare is not asked to make it. */
#define RP_CSV_END_MAX (1ull << 50)

/* Units of a time column. */
typedef enum rp_csv_unit {
	RP_CSV_S, RP_CSV_MS, RP_CSV_US, RP_CSV_NS, RP_CSV_100NS,
	RP_CSV_FILETIME, /* 100 ns ticks since 1601-01-01 (Windows FILETIME: MSR Cambridge) */
} rp_csv_unit;

#define RP_CSV_WORDS_MAX 64

/* Which column (1-based; 0: none) holds what, and how to read it: a preset or `time=1,op=4,...`. */
typedef struct rp_csv_map {
	char name[16];                 /* the preset's, or "columns" */
	uint8_t time, op, offset, size, latency, pid, inode;
	uint8_t device[2];             /* one column, or two joined (MSR's host and disk) */
	rp_csv_unit unit, latency_unit;
	uint32_t offset_unit, size_unit; /* bytes per unit: 1, or 512 for sectors */
	char sep;                      /* ',' or ' ' (runs of blanks) */
	bool header;                   /* the first line names the columns */
	char read[RP_CSV_WORDS_MAX], write[RP_CSV_WORDS_MAX]; /* the op column's words, ':'-separated */
} rp_csv_map;

/* spec: a preset (msr, fiu, alibaba, tencent) or a column map; 0, or RP_E_INVAL with what is wrong in errbuf. */
int rp_csv_map_parse(const char *spec, rp_csv_map *m, char *errbuf);
/* The presets' names, for help: "msr, fiu, alibaba, tencent". */
extern const char rp_csv_presets[];

typedef struct rp_csv_stats {
	uint64_t lines, records, reads, writes;
	uint64_t other;     /* records of another op (a trim, a flush): not replayable as I/O, left out */
	uint64_t bad;       /* lines that are no record of the map (lenient: skipped) */
	uint64_t absurd;    /* I/O past RP_CSV_END_MAX: left out */
	uint64_t reordered; /* a time earlier than the record before: taken as that time */
	uint64_t files;     /* devices, volumes or inodes: one file each */
	uint64_t bytes_read, bytes_written;
} rp_csv_stats;

/*
 * The records of f (named name) into sink: one file per device (or inode),
 * `/dev-KEY` (`/inode-N`), each I/O a read or write on it, one client per
 * process where the map has a pid column, else per file.  A line that is no
 * record is an error naming name:line, or with lenient counted and skipped.
 */
int rp_csv_read(FILE *f, const char *name, const rp_csv_map *m, bool lenient, rp_sink *sink, rp_csv_stats *st,
		char *errbuf);
/* What it made and what the format cannot say, one line for the user. */
void rp_csv_summary(const rp_csv_stats *st, const rp_csv_map *m, char *buf, size_t size);

#endif
