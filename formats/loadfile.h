/* dbench loadfiles, SMB and NFS dialects: reader and writer. */
#ifndef REPRISE_FORMATS_LOADFILE_H
#define REPRISE_FORMATS_LOADFILE_H

#include <stdio.h>

#include "formats/reader.h"
#include "formats/sink.h"

/* Open a loadfile reader (rp_reader_open() calls this for loadfiles). */
int rp_loadfile_reader_open(rp_reader **out, const char *path, const rp_read_opts *opts, char *errbuf);
/* Same over a memory buffer that outlives the reader; `name` is used in messages. */
int rp_loadfile_reader_open_mem(rp_reader **out, const void *buf, size_t len, const char *name,
				const rp_read_opts *opts, char *errbuf);

typedef enum rp_loadfile_dialect {
	RP_LOADFILE_AUTO = 0, /* from the trace's source: NFS traces as NFS, the rest as SMB */
	RP_LOADFILE_SMB,
	RP_LOADFILE_NFS,
} rp_loadfile_dialect;

typedef struct rp_loadfile_wopts {
	rp_loadfile_dialect dialect;
	bool timestamps; /* write the timestamped form (a leading time in seconds) */
	/*
	 * For Debian's dbench 4.0, which creates nothing for FILE_OPEN_IF and makes
	 * FILE_CREATE an O_CREAT without O_EXCL: write an open-or-create as
	 * FILE_CREATE.  It changes what the line means to everything else (reprise
	 * reads FILE_CREATE as create-new), so only `convert --prepare`, whose
	 * loadfile is for dbench, sets it.
	 */
	bool dbench_open_if;
} rp_loadfile_wopts;

typedef struct rp_loadfile_writer rp_loadfile_writer;

/* A sink that writes a loadfile to path ("-" = stdout). */
int rp_loadfile_writer_open(rp_loadfile_writer **out, const char *path, const rp_loadfile_wopts *opts,
			    char *errbuf);
/* Same on an open stream; close flushes f and leaves it open (the caller checks and closes it). */
int rp_loadfile_writer_open_file(rp_loadfile_writer **out, FILE *f, const rp_loadfile_wopts *opts, char *errbuf);
rp_sink *rp_loadfile_writer_sink(rp_loadfile_writer *w);
int rp_loadfile_writer_close(rp_loadfile_writer *w, char *errbuf); /* NULL is a no-op */

#endif
