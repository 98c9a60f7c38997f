/*
 * Output files written atomically: a temporary OUT.part-XXXXXX beside OUT,
 * fsync'ed and renamed over OUT on commit, removed on abort (and, on request,
 * by SIGINT, SIGTERM and SIGHUP); the check that an output is not an input.
 * Nothing here prints: a failure returns a negative rp_err and its message.
 */
#ifndef REPRISE_FORMATS_OUTFILE_H
#define REPRISE_FORMATS_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/* Room for a message of this file's functions: it may name two paths (the output and its temporary file). */
#define RP_OUTFILE_ERRBUF_SIZE 2048

/*
 * An output being written.  A path that does not exist yet, or names a
 * regular file (also through a symlink: the file it points to is replaced,
 * the link stays), is written to OUT.part-XXXXXX in the same directory
 * (O_EXCL, mode 0666 less the umask, as a plain fopen would create it) and
 * renamed over OUT by rp_outfile_commit after an fsync; until then OUT is
 * untouched.  "-" is standard output; an existing non-regular file (a
 * device, a FIFO) is written in place.
 */
typedef struct rp_outfile {
	FILE *f;
	const char *name;     /* as the caller gave it, for messages */
	char final[PATH_MAX]; /* what the temporary file becomes; "" when written in place */
	char tmp[PATH_MAX];   /* the temporary file; "" when written in place */
	bool std;             /* standard output (never closed here: the program checks it at exit) */
} rp_outfile;

enum {
	/* For a secret: the temporary file, so OUT after the rename, is mode 0600 whatever the umask and OUT's mode. */
	RP_OUT_PRIVATE = 1u << 0,
	/*
	 * From before the temporary file exists until commit, abort or keep,
	 * SIGINT, SIGTERM and SIGHUP (those at their default disposition) remove
	 * it before they end the process as before (a half-written conversion is
	 * of no use; not for a capture, whose partial trace is the only copy of
	 * the traffic).  Nothing to do for standard output and in-place writes.
	 * At most 8 such outputs are open at once.
	 */
	RP_OUT_SIGNAL_REMOVES = 1u << 1,
};

/*
 * RP_OK when out (a path or "-") is not the input in (NULL or "-": none),
 * else RP_E_INVAL with the message in errbuf (RP_OUTFILE_ERRBUF_SIZE bytes).
 * The same file is found by device and inode (also through symlinks and hard
 * links, and for "-" redirected onto the input) and, for an output that does
 * not exist yet, by its resolved path.
 */
int rp_outfile_check(const char *out, const char *in, char *errbuf);

/* Open out (see above) with RP_OUT_* flags: RP_OK, or a negative rp_err with the message in errbuf. */
int rp_outfile_open(rp_outfile *o, const char *out, unsigned flags, char *errbuf);

/*
 * Flush, check for write errors, fsync, close and rename into place.  On any
 * failure remove the temporary file (OUT stays as it was) and return a
 * negative rp_err with the message in errbuf; else RP_OK.  Standard output
 * is flushed, not closed; its error, once returned, is cleared.
 */
int rp_outfile_commit(rp_outfile *o, char *errbuf);

/* Give up: close and remove the temporary file; OUT stays as it was.  A no-op after commit. */
void rp_outfile_abort(rp_outfile *o);

/* Close, leaving what was written under the temporary name (a capture's ops before it failed). */
void rp_outfile_keep(rp_outfile *o);

#endif
