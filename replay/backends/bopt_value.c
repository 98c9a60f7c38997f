/*
 * Typed backend option values (replay/backend.h rp_backend_opt): an entry,
 * whose layout is the module ABI's, read through the shared option
 * descriptor (formats/optdesc.h), so a backend's value is parsed, formatted
 * and named by the command line's own parser.
 */
#include <stdio.h>
#include <string.h>

#include "formats/optdesc.h"
#include "replay/backend.h"

static const rp_optkind kinds[RP_BOPT__COUNT] = {
	[RP_BOPT_FLAG] = RP_OPT_FLAG,       [RP_BOPT_BOOL] = RP_OPT_BOOL, [RP_BOPT_UINT] = RP_OPT_UINT,
	[RP_BOPT_DURATION] = RP_OPT_DURATION, [RP_BOPT_SIZE] = RP_OPT_SIZE, [RP_BOPT_STRING] = RP_OPT_STRING,
	[RP_BOPT_ENUM] = RP_OPT_ENUM,
};

/* A duration's bounds and values are ns in the entry, seconds in the descriptor. */
static double unit(const rp_backend_opt *o)
{
	return o->type == RP_BOPT_DURATION ? 1e9 : 1;
}

/* The entry as a descriptor (its bounds in the descriptor's units; max 0 is no bound in both). */
static rp_optdesc describe(const rp_backend_opt *o)
{
	return (rp_optdesc){
		.name = o->name,
		.kind = (unsigned)o->type < RP_BOPT__COUNT ? kinds[o->type] : RP_OPT__COUNT,
		.arg = o->arg,
		.help = o->help,
		.min = (double)o->min / unit(o),
		.max = (double)o->max / unit(o),
		.choices = o->choices,
		.def = o->def,
		.repeat = o->repeat,
	};
}

const char *rp_bopt_type_name(rp_bopt_type t)
{
	return (unsigned)t < RP_BOPT__COUNT ? rp_optkind_name(kinds[t]) : "?";
}

const char *rp_bopt_arg(const rp_backend_opt *o)
{
	const rp_optdesc d = describe(o);
	return rp_optdesc_arg(&d);
}

void rp_bopt_format(const rp_backend_opt *opt, uint64_t u, char *buf, size_t n)
{
	const rp_optdesc d = describe(opt);
	rp_optdesc_format(&d, (double)u / unit(opt), buf, n);
}

void rp_bopt_terms(const rp_backend_opt *opt, char *buf, size_t n)
{
	const rp_optdesc d = describe(opt);
	rp_optdesc_terms(&d, buf, n);
}

int rp_backend_parse_value(const rp_backend_opt *opt, const char *text, uint64_t *u, char *errbuf)
{
	*u = 0;
	if ((unsigned)opt->type >= RP_BOPT__COUNT)
		return rp_fail(errbuf, RP_E_INVAL, "option '%s' has an unknown type %d", opt->name, (int)opt->type);
	/* A string's text is its value: not empty (its grammar, if any, is the backend's). */
	if (opt->type == RP_BOPT_STRING && (!text || !*text))
		return rp_fail(errbuf, RP_E_INVAL, "option '%s' needs a value (%s=%s)", opt->name, opt->name, rp_bopt_arg(opt));
	const rp_optdesc d = describe(opt);
	char label[96];
	snprintf(label, sizeof(label), "option '%s'", opt->name);
	rp_optval v;
	const int rc = rp_optdesc_parse(&d, label, text, &v, errbuf);
	if (rc == 0)
		*u = v.u;
	return rc;
}
