/* The CLI's messages (escaped) and its outputs over formats/outfile.h, errors printed. */
#ifndef REPRISE_CLI_OUTPUT_H
#define REPRISE_CLI_OUTPUT_H

#include <stddef.h>

#include "formats/outfile.h"

/* rp_outfile_check: 0 when out is not the input in, else 2 (a usage error) after printing it. */
int rp__cli_out_check(const char *cmd, const char *out, const char *in);

/* rp_outfile_open without flags, and with RP_OUT_* flags: 0, or 1 after printing why. */
int rp__cli_out_open(rp_outfile *o, const char *cmd, const char *out);
int rp__cli_out_open_with(rp_outfile *o, const char *cmd, const char *out, unsigned flags);

/* rp_outfile_commit: 0, or 1 after printing why (1 and nothing said for an output not open). */
int rp__cli_out_commit(rp_outfile *o, const char *cmd);

/*
 * Print "reprise CMD: MESSAGE\n" on stderr with every byte of MESSAGE escaped
 * as the canonical text form escapes strings (rp_text_escape): names from
 * traces and the command line never put control bytes on the terminal.
 */
void rp__cli_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s escaped (rp_text_escape) into buf of size bytes, truncated if needed; returns buf. */
const char *rp__cli_esc(char *buf, size_t size, const char *s);

#endif
