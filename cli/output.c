/* The CLI's escaped messages, and formats/outfile.h's outputs with their errors printed. */
#include "cli/output.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/error.h"
#include "formats/op.h"

const char *rp__cli_esc(char *buf, size_t size, const char *s)
{
	rp_text_escape(buf, size, s, strlen(s), false);
	return buf;
}

void rp__cli_err(const char *cmd, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char esc[4 * sizeof(msg)]; /* each byte escapes to at most 4 */
	fprintf(stderr, "reprise %s: %s\n", cmd, rp__cli_esc(esc, sizeof(esc), msg));
}

int rp__cli_out_check(const char *cmd, const char *out, const char *in)
{
	char eb[RP_OUTFILE_ERRBUF_SIZE];
	if (rp_outfile_check(out, in, eb) == RP_OK)
		return 0;
	rp__cli_err(cmd, "%s", eb);
	return 2;
}

int rp__cli_out_open_with(rp_outfile *o, const char *cmd, const char *out, unsigned flags)
{
	char eb[RP_OUTFILE_ERRBUF_SIZE];
	if (rp_outfile_open(o, out, flags, eb) == RP_OK)
		return 0;
	rp__cli_err(cmd, "%s", eb);
	return 1;
}

int rp__cli_out_open(rp_outfile *o, const char *cmd, const char *out)
{
	return rp__cli_out_open_with(o, cmd, out, 0);
}

int rp__cli_out_commit(rp_outfile *o, const char *cmd)
{
	char eb[RP_OUTFILE_ERRBUF_SIZE];
	if (!o->f)
		return 1;
	if (rp_outfile_commit(o, eb) == RP_OK)
		return 0;
	rp__cli_err(cmd, "%s", eb);
	return 1;
}
