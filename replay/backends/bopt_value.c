/* Typed backend option values (replay/backend.h rp_backend_opt): parse one, format one, name a type. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay/backend.h"

const char *rp_bopt_type_name(rp_bopt_type t)
{
	static const char *const names[RP_BOPT__COUNT] = { "flag", "bool", "uint", "duration", "size", "string", "enum" };
	return (unsigned)t < RP_BOPT__COUNT ? names[t] : "?";
}

const char *rp_bopt_arg(const rp_backend_opt *o)
{
	static const char *const args[RP_BOPT__COUNT] = { "", "BOOL", "N", "DURATION", "SIZE", "TEXT", "CHOICE" };
	return o->arg ? o->arg : (unsigned)o->type < RP_BOPT__COUNT ? args[o->type] : "?";
}

static uint64_t upper(const rp_backend_opt *o)
{
	return o->max ? o->max : UINT64_MAX;
}

void rp_bopt_format(const rp_backend_opt *opt, uint64_t u, char *buf, size_t n)
{
	static const struct {
		uint64_t scale;
		const char *unit;
	} durations[] = { { 1000000000u, "s" }, { 1000000u, "ms" }, { 1000u, "us" } },
	  sizes[] = { { UINT64_C(1) << 40, "T" }, { UINT64_C(1) << 30, "G" }, { UINT64_C(1) << 20, "M" }, { 1024, "k" } };
	switch (opt->type) {
	case RP_BOPT_FLAG:
	case RP_BOPT_BOOL:
		snprintf(buf, n, "%s", u ? (opt->type == RP_BOPT_FLAG ? "on" : "yes") : (opt->type == RP_BOPT_FLAG ? "off" : "no"));
		return;
	case RP_BOPT_DURATION:
		for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
			if (u && u % durations[i].scale == 0) {
				snprintf(buf, n, "%" PRIu64 "%s", u / durations[i].scale, durations[i].unit);
				return;
			}
		snprintf(buf, n, "%" PRIu64 "%s", u, u ? "ns" : "");
		return;
	case RP_BOPT_SIZE:
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (u && u % sizes[i].scale == 0) {
				snprintf(buf, n, "%" PRIu64 "%s", u / sizes[i].scale, sizes[i].unit);
				return;
			}
		break;
	case RP_BOPT_ENUM: {
		size_t i = 0;
		while (opt->choices && opt->choices[i] && i < u)
			i++;
		snprintf(buf, n, "%s", opt->choices && opt->choices[i] ? opt->choices[i] : "?");
		return;
	}
	default:
		break;
	}
	snprintf(buf, n, "%" PRIu64, u);
}

/* Digits, at least one, then maybe '.' and digits (no sign, space, hex, exponent, inf or nan). */
static size_t decimal_span(const char *s, bool fraction)
{
	size_t i = 0;
	while (isdigit((unsigned char)s[i]))
		i++;
	if (fraction && s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++;
	}
	return i > 0 && (i > 1 || s[0] != '.') ? i : 0;
}

static int parse_uint(const char *s, uint64_t *u, const char **end)
{
	const size_t n = decimal_span(s, false);
	if (!n)
		return -1;
	errno = 0;
	char *e;
	*u = strtoull(s, &e, 10);
	if (errno == ERANGE || (size_t)(e - s) != n)
		return 1; /* too large */
	*end = e;
	return 0;
}

static int parse_duration(const char *s, uint64_t *u)
{
	const size_t n = decimal_span(s, true);
	if (!n)
		return -1;
	char *e;
	const double v = strtod(s, &e);
	if ((size_t)(e - s) != n)
		return -1;
	double scale = 1e9;
	if (strcmp(e, "ms") == 0)
		scale = 1e6;
	else if (strcmp(e, "us") == 0)
		scale = 1e3;
	else if (strcmp(e, "ns") == 0)
		scale = 1;
	else if (*e && strcmp(e, "s") != 0)
		return -1;
	const double ns = v * scale + 0.5;
	if (!(ns < 0x1p64))
		return 1;
	*u = (uint64_t)ns;
	return 0;
}

static int parse_size(const char *s, uint64_t *u)
{
	const char *e;
	const int rc = parse_uint(s, u, &e);
	if (rc)
		return rc;
	static const char units[] = "kmgt";
	if (!*e)
		return 0;
	const char *const p = e[1] == '\0' ? strchr(units, tolower((unsigned char)e[0])) : NULL;
	if (!p || !*p)
		return -1;
	const uint64_t scale = UINT64_C(1) << (10 * (p - units + 1));
	return __builtin_mul_overflow(*u, scale, u) ? 1 : 0;
}

int rp_backend_parse_value(const rp_backend_opt *opt, const char *text, uint64_t *u, char *errbuf)
{
	static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };
	*u = 0;
	int rc = -1;
	const char *end = NULL;
	switch (opt->type) {
	case RP_BOPT_FLAG:
		if (text)
			return rp_fail(errbuf, RP_E_INVAL, "option '%s' takes no value", opt->name);
		*u = 1;
		return 0;
	case RP_BOPT_BOOL:
		for (size_t i = 0; text && i < 4; i++)
			if (strcasecmp(text, yes[i]) == 0 || strcasecmp(text, no[i]) == 0) {
				*u = strcasecmp(text, yes[i]) == 0;
				return 0;
			}
		return rp_fail(errbuf, RP_E_INVAL, "option '%s': '%s' is not yes/no, true/false, on/off or 1/0", opt->name,
			       text ? text : "");
	case RP_BOPT_UINT:
		rc = parse_uint(text, u, &end);
		if (rc == 0 && *end)
			rc = -1;
		break;
	case RP_BOPT_DURATION:
		rc = parse_duration(text, u);
		break;
	case RP_BOPT_SIZE:
		rc = parse_size(text, u);
		break;
	case RP_BOPT_STRING:
		if (!*text)
			return rp_fail(errbuf, RP_E_INVAL, "option '%s' needs a value (%s=%s)", opt->name, opt->name,
				       rp_bopt_arg(opt));
		return 0;
	case RP_BOPT_ENUM:
		for (size_t i = 0; opt->choices && opt->choices[i]; i++)
			if (strcmp(opt->choices[i], text) == 0) {
				*u = i;
				return 0;
			}
		return rp_fail(errbuf, RP_E_INVAL, "option '%s': '%s' is not one of its choices", opt->name, text);
	default:
		return rp_fail(errbuf, RP_E_INVAL, "option '%s' has an unknown type %d", opt->name, (int)opt->type);
	}
	static const char *const forms[RP_BOPT__COUNT] = {
		[RP_BOPT_UINT] = "a decimal number",
		[RP_BOPT_DURATION] = "a duration: 2ms, 500us, 1.5s",
		[RP_BOPT_SIZE] = "a size: 4096, 64k, 16M, 1G",
	};
	if (rc < 0)
		return rp_fail(errbuf, RP_E_INVAL, "option '%s': '%s' is not %s", opt->name, text, forms[opt->type]);
	if (rc > 0 || *u < opt->min || *u > upper(opt)) {
		char lo[32], hi[32];
		rp_bopt_format(opt, opt->min, lo, sizeof(lo));
		rp_bopt_format(opt, upper(opt), hi, sizeof(hi));
		return rp_fail(errbuf, RP_E_RANGE, "option '%s': %s is out of range (%s to %s)", opt->name, text, lo,
			       opt->max ? hi : "any");
	}
	return 0;
}
