/* Every output the CLI writes: a temporary file renamed into place on success; messages escaped. */
#ifndef REPRISE_CLI_OUTFILE_H
#define REPRISE_CLI_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * An output being written.  A path that does not exist yet, or names a
 * regular file (also through a symlink: the file it points to is replaced,
 * the link stays), is written to OUT.part-XXXXXX in the same directory
 * (O_EXCL, mode 0666 less the umask, as a plain fopen would create it) and
 * renamed over OUT by rp__cli_out_commit after an fsync; until then OUT is
 * untouched.  "-" is standard output; an existing non-regular file (a
 * device, a FIFO) is written in place.
 */
typedef struct rp_outfile {
	FILE *f;
	const char *name;     /* as the user gave it, for messages */
	char final[PATH_MAX]; /* what the temporary file becomes; "" when written in place */
	char tmp[PATH_MAX];   /* the temporary file; "" when written in place */
	bool std;             /* standard output (not closed here: main checks it at exit) */
} rp_outfile;

/*
 * 0 when out (a path or "-") is not the input in, else print a usage error
 * and return 2.  The same file is found by device and inode (also through
 * symlinks and hard links, and for "-" redirected onto the input) and, for
 * an output that does not exist yet, by its resolved path.
 */
int rp__cli_out_check(const char *cmd, const char *out, const char *in);

/* Open out (see above).  0, or 1 after printing why. */
int rp__cli_out_open(rp_outfile *o, const char *cmd, const char *out);

/*
 * The same for a secret (anonymize's map): the temporary file, so OUT after
 * the rename, is mode 0600 whatever the umask and whatever OUT's mode was.
 */
int rp__cli_out_open_private(rp_outfile *o, const char *cmd, const char *out);

enum {
	RP_OUT_PRIVATE = 1u << 0, /* as rp__cli_out_open_private */
	/*
	 * From before the temporary file exists until commit, abort or keep,
	 * SIGINT, SIGTERM and SIGHUP (those at their default disposition) remove
	 * it before they end the process as before (convert, anonymize, merge: a
	 * half-written output is of no use).  Not for capture, whose partial
	 * trace is the only copy of the traffic (docs/capture.md).  Nothing to
	 * do for standard output and in-place writes.
	 */
	RP_OUT_SIGNAL_REMOVES = 1u << 1,
};

/* Open out with RP_OUT_* flags. */
int rp__cli_out_open_with(rp_outfile *o, const char *cmd, const char *out, unsigned flags);

/*
 * Flush, check for write errors, fsync, close and rename into place.  On any
 * failure print it, remove the temporary file (OUT stays as it was) and
 * return 1; else 0.
 */
int rp__cli_out_commit(rp_outfile *o, const char *cmd);

/* Give up: close and remove the temporary file; OUT stays as it was. */
void rp__cli_out_abort(rp_outfile *o);

/* Close, leaving what was written under the temporary name (capture: ops the run got before failing). */
void rp__cli_out_keep(rp_outfile *o);

/*
 * Print "reprise CMD: MESSAGE\n" on stderr with every byte of MESSAGE escaped
 * as the canonical text form escapes strings (rp_text_escape): names from
 * traces and the command line never put control bytes on the terminal.
 */
void rp__cli_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s escaped (rp_text_escape) into buf of size bytes, truncated if needed; returns buf. */
const char *rp__cli_esc(char *buf, size_t size, const char *s);

#endif
