/*
 * Ops -> a dbench loadfile: which command each op becomes, and the choices
 * that make the result run under dbench 4.0, as explicit options
 * (docs/loadfile.md "Writing: the conversion policy").  formats/loadfile.h
 * is the serializer underneath.
 */
#ifndef REPRISE_CONVERTERS_LOADFILE_H
#define REPRISE_CONVERTERS_LOADFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/loadfile.h"
#include "formats/sink.h"

/*
 * Each choice on writes what dbench 4.0 runs as the trace ran; off writes the
 * op's fields as they are.  The defaults (rp_conv_lf_opts_init) are on, but
 * for open_if_as_create, which changes what the line means to every reader
 * but dbench (reprise reads FILE_CREATE as create-new): `convert --prepare`,
 * whose loadfile is for dbench, turns it on.  Ops read
 * from a dbench SMB loadfile (proto RP_PROTO_DBENCH_SMB) are written as read
 * whatever these say: they are dbench's already.
 */
typedef struct rp_conv_lf_policy {
	/* SMB: FILE_OPEN_IF written as FILE_CREATE (dbench 4.0 creates nothing for OPEN_IF; its FILE_CREATE is O_CREAT without O_EXCL). */
	bool open_if_as_create;
	/* SMB: a successful ReadX/WriteX with no recorded byte count gets result = length (dbench checks the count). */
	bool fill_io_results;
	/* SMB: an Unlink with no recorded search attributes gets 0x6 (hidden and system), as dbench's own loadfile. */
	bool unlink_attrs;
	/* SMB: FIND_FIRST with no level gets 260 (FIND_FILE_BOTH_DIRECTORY_INFO), with no pattern "*" (every entry). */
	bool find_defaults;
	/* SMB: QUERY_PATH_INFORMATION with no level gets 1004 (FileBasicInformation). */
	bool qpath_level;
	/*
	 * SMB: a handle command for an op that names only a path (NFSv3 READ,
	 * SETATTR...) is wrapped in an NTCreateX/Close of its own fnum, and an
	 * open with no handle (CREATE3, LOOKUP) is closed again; off, they become
	 * "# reprise: no handle" comments and handle-less opens.
	 */
	bool wrap_path_ops;
	uint64_t first_fnum; /* the wrapping fnums count up from here: 60000, above dbench's own */
	/* NFS: delete-on-close (at open, or by set-info) becomes a REMOVE3/RMDIR3 at the close; off, a comment. */
	bool nfs_delete_on_close;
	/* NFS: an op by handle names the path the handle was opened with (NFS lines name paths, not handles). */
	bool nfs_handle_paths;
} rp_conv_lf_policy;

typedef struct rp_conv_lf_opts {
	rp_loadfile_dialect dialect; /* AUTO: NFS for NFS traces (source, or the first op's statuses), else SMB */
	bool timestamps;             /* the timestamped form (a leading time in seconds) */
	rp_conv_lf_policy policy;
} rp_conv_lf_opts;

/* dialect AUTO, no timestamps, every policy choice on (dbench-compatible) but open_if_as_create. */
void rp_conv_lf_opts_init(rp_conv_lf_opts *o);

typedef struct rp_conv_lf rp_conv_lf;

/* A sink that writes a loadfile to f; close flushes f and leaves it open (the caller checks and closes it). */
int rp_conv_lf_open(rp_conv_lf **out, FILE *f, const rp_conv_lf_opts *opts, char *errbuf);
/* Same to path ("-" = stdout), which close closes. */
int rp_conv_lf_open_path(rp_conv_lf **out, const char *path, const rp_conv_lf_opts *opts, char *errbuf);
rp_sink *rp_conv_lf_sink(rp_conv_lf *w);
int rp_conv_lf_close(rp_conv_lf *w, char *errbuf); /* NULL is a no-op */

/* What a conversion wrote and what it could not say (convert's summary). */
#define RP_CONV_LF_REASONS 16
typedef struct rp_conv_lf_stats {
	rp_loadfile_dialect dialect; /* the one written (AUTO resolved; SMB if no op came) */
	uint64_t ops;                /* ops received */
	uint64_t comments;           /* ops written as "# reprise: WHY" comments, of those */
	struct {
		const char *why;     /* a static string: the comment's reason */
		uint64_t n;
	} reasons[RP_CONV_LF_REASONS]; /* by reason, in order of first use; why NULL past the last */
	uint64_t other_reasons;      /* comments whose reason did not fit the table */
	uint64_t clients;            /* distinct trace clients merged into the one script */
} rp_conv_lf_stats;

/* The counts so far (valid until close). */
void rp_conv_lf_get_stats(const rp_conv_lf *w, rp_conv_lf_stats *st);

/* The dialect AUTO resolves to for a trace with this meta and first op (NULL: none). */
rp_loadfile_dialect rp_conv_lf_auto_dialect(const rp_trace_meta *meta, const rp_op *first);

#endif
