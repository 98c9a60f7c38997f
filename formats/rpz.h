/* .rpz trace files: writer and streaming reader (spec: docs/rpz-format.md). */
#ifndef REPRISE_FORMATS_RPZ_H
#define REPRISE_FORMATS_RPZ_H

#include <stdio.h>

#include "formats/reader.h"
#include "formats/sink.h"

typedef struct rp_rpz_writer rp_rpz_writer;

typedef struct rp_rpz_wopts {
	int level;            /* zstd level; 0 = the default */
	uint32_t frame_ops;   /* ops per frame; 0 = the default */
	/*
	 * zstd's match-finder tables (hash and chain) of 2^table_log entries each;
	 * 0 = the level's own sizes.  Small frames find their matches as well in
	 * small tables, and the level's (2^16 and more entries) cost more to touch
	 * and clear than such a frame does to compress.
	 */
	int table_log;
	/*
	 * Pattern layer (docs/rpz-format.md §4.4): frames repeat runs of ops found
	 * up to `window` ops back (0 = the default, 524,288), looked up in a table
	 * of 2^table_bits slots (0 = the default, 20; 10 to 26).  Writer memory:
	 * about 150 bytes per window op plus 8 per slot; a reader holds the window
	 * too.  no_pattern writes plain frames.
	 */
	bool no_pattern;
	uint32_t window;
	uint32_t table_bits;
} rp_rpz_wopts;

/*
 * Create a writer on path ("-" = stdout).  It is a sink: feed it through
 * rp_rpz_writer_sink().  Frames reach the file as they fill, so a writer
 * killed mid-way leaves a file readable up to its last whole frame.
 */
int rp_rpz_writer_open(rp_rpz_writer **out, const char *path, const rp_rpz_wopts *opts, char *errbuf);
/* Same on an open stream (tests: open_memstream); close flushes f but leaves it open. */
int rp_rpz_writer_open_file(rp_rpz_writer **out, FILE *f, const char *name, const rp_rpz_wopts *opts,
			    char *errbuf);
rp_sink *rp_rpz_writer_sink(rp_rpz_writer *w);
/*
 * OR flags (rp_meta_flag, e.g. RP_META_TRUNCATED once a producer learns its
 * input was cut) into the header's.  After the header is written this
 * rewrites it in place, which needs a seekable stream (RP_E_UNSUPPORTED
 * otherwise: standard output to a pipe).
 */
int rp_rpz_writer_add_flags(rp_rpz_writer *w, uint32_t flags, char *errbuf);
/* Bytes written so far (header and whole frames; the index after close). */
uint64_t rp_rpz_writer_bytes(const rp_rpz_writer *w);
/*
 * End the frame being filled now (a shorter one) and flush the stream, so
 * what was written so far reads even if this process is killed (a live
 * producer calls it now and then).  Nothing to do before the header.
 * 0, or the write error (the writer is failed then).
 */
int rp_rpz_writer_flush(rp_rpz_writer *w, char *errbuf);
/* Flush, write the index and close; returns 0 or an error.  NULL is a no-op. */
int rp_rpz_writer_close(rp_rpz_writer *w, char *errbuf);

/* Open an .rpz reader (rp_reader_open() calls this for .rpz files). */
int rp_rpz_reader_open(rp_reader **out, const char *path, const rp_read_opts *opts, char *errbuf);
/* Same, over a memory buffer that outlives the reader (fuzzers, tests). */
int rp_rpz_reader_open_mem(rp_reader **out, const void *buf, size_t len, const rp_read_opts *opts, char *errbuf);

/* What an .rpz reader knows about its file. */
typedef struct rp_rpz_info {
	uint32_t version_major, version_minor;
	uint64_t header_len;
	bool has_index;     /* a whole, valid index: the file was closed cleanly */
	uint32_t frames;    /* from the index (0 without one) */
	uint64_t ops;       /* from the index */
	uint32_t strings;   /* from the index */
	uint64_t frames_read; /* frames decoded so far on this pass */
} rp_rpz_info;

/* One index entry. */
typedef struct rp_rpz_frame_info {
	uint64_t offset;   /* of the frame's header in the file */
	uint64_t size;     /* bytes, header included */
	uint64_t first_op; /* number of ops before the frame */
	uint64_t t_first;  /* t_start of its first op (0 if it has none) */
	uint32_t n_ops;
	uint32_t strings_end; /* strings defined once the frame is read */
} rp_rpz_frame_info;

/* RP_E_INVAL if r is not an .rpz reader. */
int rp_rpz_reader_info(const rp_reader *r, rp_rpz_info *out);
/* Entry i of the index; RP_E_NOTFOUND without an index, RP_E_RANGE past the last frame. */
int rp_rpz_reader_frame(const rp_reader *r, uint32_t i, rp_rpz_frame_info *out);

/*
 * Position a reader that has read no op yet (just opened or rewound) at the
 * start of the last frame whose first op starts at or before t (ns), so a
 * time window from t need not decode what lies before it.  The frames passed
 * over are still read, checked and decompressed, and their strings defined
 * (later ops name them), but their ops are not decoded.  The next op is that
 * frame's first, which may start before t: the caller still filters by time.
 * It relies on the ops being in start order across frames, which the index
 * shows frame by frame (every producer writes them so).  0 and *skipped the
 * ops passed over; RP_E_NOTFOUND without an index (a cut or unfinished file:
 * read it from the start), RP_E_UNSUPPORTED when the frames' first times go
 * backwards, RP_E_STATE once ops were read, or a read error (the reader is
 * failed then, as rp_reader_next would be).
 */
int rp_rpz_reader_seek_time(rp_reader *r, uint64_t t, uint64_t *skipped, char *errbuf);

#endif
