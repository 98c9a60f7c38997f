/* nfsdump text traces (Ellard's format: the Harvard SOS NFS traces), plain or gzip'd -> op records. */
#ifndef REPRISE_CAPTURE_NFSDUMP_H
#define REPRISE_CAPTURE_NFSDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "formats/sink.h"

/*
 * One line per NFSv2/v3 call or reply (docs/nfsdump.md): time, source and
 * destination host.port, T/U, C3/R3/C2/R2, xid, procedure number and name,
 * then key-value pairs; every number in hex but times.  Calls are paired with
 * their replies by client, server and xid through the packet decoder's
 * context (capture/decode.h: ordered emission, the match timeout) and its
 * file handle -> path map (capture/rpc/nfs_fh.c).
 */

/* A line longer than this is no nfsdump record (the longest real ones, two attribute sets, are ~600 bytes). */
#define RP_NFSDUMP_LINE_MAX 65536u
/* File sizes in attributes above this are taken as corruption, not files: prepare is not asked to make them. */
#define RP_NFSDUMP_SIZE_MAX (1ull << 40)
/* A read or write past this offset, or of more than RP_NFSDUMP_COUNT_MAX bytes, is corruption: skipped, counted. */
#define RP_NFSDUMP_OFFSET_MAX (1ull << 40)
#define RP_NFSDUMP_COUNT_MAX (64u << 20)

/* What a decode counted: the pitfalls of the public traces are counted, never fatal. */
typedef struct rp_nfsdump_stats {
	uint64_t lines;          /* lines read */
	uint64_t bytes;          /* text bytes (after gunzip) */
	uint64_t calls, replies; /* call and reply lines decoded */
	uint64_t paired;         /* replies matched with their call */
	uint64_t no_reply;       /* calls never answered: kept as "no reply" ops */
	uint64_t orphan_replies; /* replies without a call (the trace began after it, or it was lost) */
	uint64_t late_replies;   /* replies after their call's op had left as "no reply" (the map still learns) */
	uint64_t dup_calls;      /* a call again with an xid still waiting (retransmission): the first is kept */
	uint64_t null_calls;     /* NULL pings: no op */
	uint64_t short_packets;  /* "SHORT PACKET" calls: arguments lost, no op (their replies still pair) */
	uint64_t unsupported;    /* procedures without an op (NFSv2 ROOT and WRITECACHE, unknown numbers) */
	uint64_t comments;       /* lines starting with '#' */
	uint64_t garbage;        /* lines that are no record (a field missing or unreadable, "XX" lines) */
	uint64_t nul_lines;      /* lines holding NUL bytes (the NUL blocks of a few trace files) */
	uint64_t long_lines;     /* lines over RP_NFSDUMP_LINE_MAX, skipped */
	uint64_t bad_values;     /* fields of a record whose value could not be read (bad hex, times, words): ignored */
	uint64_t absurd;         /* sizes, offsets and counts past the limits above: ignored, or the op skipped */
	uint64_t clock_back;     /* times that jumped back by a second or more: later times shifted to keep order */
	uint64_t reordered;      /* times a little earlier than the line before: taken as that time */
	uint64_t v2_times;       /* NFSv2 times printed %d.%d (microseconds without their leading zeros) */
	uint64_t attrs_twice;    /* replies with a second attribute set (a directory's, after the object's) */
	uint64_t synth_named;    /* handles never named, given a synthetic name under their file system's directory */
	uint64_t ops;            /* op records emitted */
	bool gzip;               /* the input was gzip'd */
	bool cut;                /* the gzip stream ends inside a member: what came before stands */
	bool trailing;           /* bytes after the last gzip member that are no gzip member: ignored */
} rp_nfsdump_stats;

typedef struct rp_nfsdump rp_nfsdump;

/* A decoder over lines you feed it (fuzzers, tests, the file path).  opts: the client key and match timeout. */
int rp_nfsdump_create(rp_nfsdump **out, rp_sink *sink, const rp_capture_opts *opts, const char *source_name,
		      char *errbuf);
/* One line, without its '\n'.  0, or the sink's negative error (detail in rp_nfsdump_error); bad lines are counted. */
int rp_nfsdump_line(rp_nfsdump *d, const char *line, size_t len);
/* Every call still waiting goes out as "no reply"; the sink is finished.  0 or the sink's error. */
int rp_nfsdump_finish(rp_nfsdump *d);
rp_nfsdump_stats *rp_nfsdump_get_stats(rp_nfsdump *d);
const char *rp_nfsdump_error(const rp_nfsdump *d);
void rp_nfsdump_destroy(rp_nfsdump *d); /* NULL is a no-op */

/* Whether head (a file's first bytes) is nfsdump text, or a gzip stream whose first bytes are. */
bool rp_nfsdump_sniff(const void *head, size_t len);

/* Decode a .txt or .txt.gz file (or any stream of either) into sink; stats filled whatever happens. */
int rp_nfsdump_file(const char *path, rp_sink *sink, const rp_capture_opts *opts, rp_nfsdump_stats *stats,
		    char *errbuf);

/* The same over bytes in memory (fuzzers, tests); name for messages and the metadata. */
int rp_nfsdump_mem(const void *data, size_t len, const char *name, rp_sink *sink, const rp_capture_opts *opts,
		   rp_nfsdump_stats *stats, char *errbuf);

/* What was counted, as lines for the user (the zero counts left out). */
void rp_nfsdump_stats_format(const rp_nfsdump_stats *st, char *buf, size_t size);

#endif
