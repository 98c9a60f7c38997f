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
} rp_rpz_wopts;

/*
 * Create a writer on path ("-" = stdout).  It is a sink: feed it through
 * rp_rpz_writer_sink().  Frames reach the file as they fill, so a writer
 * killed mid-way leaves a file readable up to its last whole frame.
 */
int rp_rpz_writer_open(rp_rpz_writer **out, const char *path, const rp_rpz_wopts *opts, char *errbuf);
rp_sink *rp_rpz_writer_sink(rp_rpz_writer *w);
/* Flush, write the index and close; returns 0 or an error.  NULL is a no-op. */
int rp_rpz_writer_close(rp_rpz_writer *w, char *errbuf);

/* Open an .rpz reader (rp_reader_open() calls this for .rpz files). */
int rp_rpz_reader_open(rp_reader **out, const char *path, const rp_read_opts *opts, char *errbuf);
/* Same, over a memory buffer that outlives the reader (fuzzers, tests). */
int rp_rpz_reader_open_mem(rp_reader **out, const void *buf, size_t len, const rp_read_opts *opts, char *errbuf);

#endif
