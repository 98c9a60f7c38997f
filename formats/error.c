/* Error names and messages, generated from RP_ERR_MAP. */
#include "formats/error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const messages[] = {
#define MSG(name, msg) msg,
	RP_ERR_MAP(MSG)
#undef MSG
};

static const char *const names[] = {
#define NAME(name, msg) "RP_E_" #name,
	RP_ERR_MAP(NAME)
#undef NAME
};

static int index_of(int err)
{
	const int i = -err - 1;
	return (err < 0 && i < RP__ERR_COUNT) ? i : -1;
}

const char *rp_strerror(int err)
{
	if (err == RP_OK)
		return "success";
	const int i = index_of(err);
	return i < 0 ? "unknown error" : messages[i];
}

const char *rp_err_name(int err)
{
	if (err == RP_OK)
		return "RP_OK";
	const int i = index_of(err);
	return i < 0 ? "RP_E_UNKNOWN" : names[i];
}

int rp_fail(char *errbuf, int err, const char *fmt, ...)
{
	if (errbuf) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(errbuf, RP_ERRBUF_SIZE, fmt, ap);
		va_end(ap);
	}
	return err;
}
