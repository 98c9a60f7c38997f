/*
 * Any input a command names, read into a sink through the registry: a
 * stream spooled to an unlinked file first, its producer sniffed (the
 * caller's extra producers too: the CLI's packet capture), the ops kept by
 * client and time, a spool's /dev/fd/N name put back in the trace's
 * metadata and in every message, progress told to a callback.  Nothing here
 * prints: errors come back with their message (RP_ERRBUF_SIZE bytes).
 */
#ifndef REPRISE_CONVERTERS_PUMP_H
#define REPRISE_CONVERTERS_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "converters/registry.h"
#include "formats/reader.h"
#include "formats/sink.h"

/*
 * An input as named.  A regular file is read where it is.  Standard input
 * ("-"), a pipe, a FIFO or a character device cannot be read twice or
 * seeked, which the readers need (a .rpz's index is at its end; replay reads
 * its input once to plan and again per client), so it is spooled: copied to
 * a temporary file in $TMPDIR (default /tmp) that is unlinked at once, so
 * nothing is left behind however the program ends, and read as /dev/fd/N.
 * The spool takes as much space as the stream; a full TMPDIR is an error
 * naming it.
 */
typedef struct rp_conv_input {
	const char *path;  /* what to open: the path given, or fdpath */
	const char *name;  /* for messages and the trace's metadata: the path given, "<stdin>" for - */
	char fdpath[32];   /* /dev/fd/N of the spool */
	int fd;            /* the spool, -1 if none */
	uint64_t bytes;    /* spooled */
	bool dir;          /* a directory: only a directory producer (a CTF trace) reads it */
} rp_conv_input;

/* Open arg (spooling a stream): RP_OK, or a negative rp_err with the message in errbuf. */
int rp_conv_input_open(rp_conv_input *in, const char *arg, char *errbuf);
/* Close the spool, if any (the input stays named: in->name). */
void rp_conv_input_close(rp_conv_input *in);
/* In msg (size bytes), the spool's /dev/fd/N path replaced by the input's name. */
void rp_conv_input_rename(const rp_conv_input *in, char *msg, size_t size);

/*
 * An unlinked temporary file in $TMPDIR for what is made of the input named
 * name (a conversion, a merge): its descriptor, or a negative rp_err with the
 * message in errbuf.
 */
int rp_conv_tmp_file(const char *name, char *errbuf);

/*
 * The producer that reads in: a directory's (a CTF trace), else the first
 * built-in one, then the first of extra, that claims the input's first
 * bytes.  RP_OK, or a negative rp_err with the message (the input named as
 * given) in errbuf.
 */
int rp_conv_input_producer(const rp_conv_input *in, const rp_conv_producer *const *extra, size_t n_extra,
			   const rp_conv_producer **prod, char *errbuf);

typedef struct rp_conv_pump_opts {
	bool lenient;         /* loadfiles, text, strace logs: skip and count bad lines */
	bool filter_client;   /* only the ops of client (whatever the producer) */
	uint32_t client;
	bool window;          /* only the ops that start in [from_ns, to_ns) of the trace's time */
	uint64_t from_ns, to_ns;
	uint64_t seek_ns;     /* an .rpz: start at the frame the index gives for this time */
	const void *extra;    /* the options of an extra producer (rp_conv_in_opts.extra) */
	/*
	 * If not NULL: called every 65536 ops with the count so far and, while a
	 * stored form is read, its reader (in_bytes of in_size); progress_done
	 * (if not NULL) once before the sink's finish.
	 */
	void (*progress)(void *ctx, uint64_t ops, const rp_reader *r);
	void (*progress_done)(void *ctx);
	void *ctx;
} rp_conv_pump_opts;

typedef struct rp_conv_pump_report {
	rp_conv_in_report in; /* the producer's: its note and counts with the spool renamed */
	uint64_t kept;        /* with filter_client or window: the ops that passed */
} rp_conv_pump_report;

/*
 * in, read by prod, into sink (meta, strings, ops, finish).  rep is filled
 * whatever happens.  RP_OK, or the producer's negative rp_err with its
 * message (the spool renamed) in errbuf.
 */
int rp_conv_pump(const rp_conv_input *in, const rp_conv_producer *prod, rp_sink *sink, const rp_conv_pump_opts *o,
		 rp_conv_pump_report *rep, char *errbuf);

#endif
