/* dbench loadfiles, SMB and NFS dialects: reader and serializer. */
#ifndef REPRISE_FORMATS_LOADFILE_H
#define REPRISE_FORMATS_LOADFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "formats/loadfile_cmds.h"
#include "formats/reader.h"
#include "formats/sink.h"

/*
 * The client of every op a loadfile holds (one script, one client): 1, as
 * every capture numbers its clients from 1 (0 is "none" in the op model) and
 * replay names its copy directories client1, client2, ...  Traces written
 * before, whose loadfile ops are client 0, read and replay the same.
 */
#define RP_LOADFILE_CLIENT 1u

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

/*
 * The serializer: a command and an op holding that command's fields -> one
 * line.  The fields a command writes are its spec in formats/loadfile_cmds.h
 * (path, handle, offset, length, result, and the protocol's own level,
 * access, options and disposition from op->raw); the status token from the
 * op's status in the dialect's space; SMB paths with '\'.  It makes no
 * choice of its own: which command an op becomes, and every dbench
 * compatibility choice, are the converter's (converters/loadfile.h).
 */
#define RP_LOADFILE_CMD_ENUM(id, name, dialect, op, spec, level, flags) RP_LOADFILE_##id = RP__LF_C_##id,
typedef enum rp_loadfile_cmd { RP__LF_CMD_MAP(RP_LOADFILE_CMD_ENUM) RP_LOADFILE__COUNT } rp_loadfile_cmd;
#undef RP_LOADFILE_CMD_ENUM

/* rp_op.raw.level values naming the NFS command an op came from (NFSv3 procedure / NFSv4 op numbers). */
#define RP_LOADFILE_LEVEL_READDIR3 RP__LF_LEVEL_READDIR3
#define RP_LOADFILE_LEVEL_FSINFO3 RP__LF_LEVEL_FSINFO3
#define RP_LOADFILE_LEVEL_PATHCONF3 RP__LF_LEVEL_PATHCONF3

typedef struct rp_loadfile_out rp_loadfile_out;

/* Lines to f (never closed here) in dialect (SMB or NFS; AUTO is SMB), with a leading time when timestamps. */
int rp_loadfile_out_open(rp_loadfile_out **out, FILE *f, rp_loadfile_dialect dialect, bool timestamps, char *errbuf);
void rp_loadfile_out_set_dialect(rp_loadfile_out *w, rp_loadfile_dialect dialect); /* before the first line */
rp_loadfile_dialect rp_loadfile_out_dialect(const rp_loadfile_out *w);
/* Define string id (ids in order from 1), and look one up; paths are named by id. */
int rp_loadfile_out_string(rp_loadfile_out *w, uint32_t id, const char *str, uint32_t len, char *errbuf);
const char *rp_loadfile_out_get(const rp_loadfile_out *w, uint32_t id, uint32_t *len);
/* One line of cmd from op; path is the string id for the 'p' argument, suffix (may be NULL) appended to it. */
int rp_loadfile_out_line(rp_loadfile_out *w, rp_loadfile_cmd cmd, const rp_op *op, uint32_t path, const char *suffix,
			 char *errbuf);
/* "# reprise: WHY: <the op's canonical text>", for an op no line expresses. */
int rp_loadfile_out_comment(rp_loadfile_out *w, const rp_op *op, const char *why, char *errbuf);
const char *rp_loadfile_cmd_name(rp_loadfile_cmd cmd); /* "NTCreateX"; NULL if none */
int rp_loadfile_out_flush(rp_loadfile_out *w, char *errbuf);
void rp_loadfile_out_close(rp_loadfile_out *w); /* NULL is a no-op; f stays open */

#endif
