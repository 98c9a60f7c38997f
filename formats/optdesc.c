/* Option values against their descriptor (formats/optdesc.h): one parser, one formatter, one help line for every option table. */
#include "formats/optdesc.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/error.h"

const char *rp_optkind_name(rp_optkind k)
{
	static const char *const names[RP_OPT__COUNT] = {
		[RP_OPT_FLAG] = "flag",     [RP_OPT_STRING] = "string", [RP_OPT_UINT] = "uint",
		[RP_OPT_DOUBLE] = "double", [RP_OPT_DURATION] = "duration", [RP_OPT_LIST] = "list",
		[RP_OPT_BOOL] = "bool",     [RP_OPT_SIZE] = "size",     [RP_OPT_ENUM] = "enum",
	};
	return (unsigned)k < RP_OPT__COUNT ? names[k] : "?";
}

const char *rp_optdesc_arg(const rp_optdesc *o)
{
	static const char *const args[RP_OPT__COUNT] = {
		[RP_OPT_FLAG] = "",         [RP_OPT_STRING] = "TEXT", [RP_OPT_UINT] = "N",
		[RP_OPT_DOUBLE] = "X",      [RP_OPT_DURATION] = "DURATION", [RP_OPT_LIST] = "TEXT",
		[RP_OPT_BOOL] = "BOOL",     [RP_OPT_SIZE] = "SIZE",   [RP_OPT_ENUM] = "CHOICE",
	};
	return o->arg ? o->arg : (unsigned)o->kind < RP_OPT__COUNT ? args[o->kind] : "?";
}

/* A whole number of ns, if x seconds is one (within a part in 1e9), else -1. */
static double whole_ns(double x)
{
	const double ns = x * 1e9, r = nearbyint(ns);
	return x >= 0 && ns < 0x1p63 && fabs(ns - r) <= 1e-9 * (r > 1 ? r : 1) ? r : -1;
}

void rp_optdesc_format(const rp_optdesc *o, double x, char *buf, size_t n)
{
	static const struct {
		uint64_t scale;
		const char *unit;
	} durations[] = { { 1000000000u, "s" }, { 1000000u, "ms" }, { 1000u, "us" } },
	  sizes[] = { { UINT64_C(1) << 40, "T" }, { UINT64_C(1) << 30, "G" }, { UINT64_C(1) << 20, "M" }, { 1024, "k" } };
	switch (o->kind) {
	case RP_OPT_FLAG:
		snprintf(buf, n, "%s", x != 0 ? "on" : "off");
		return;
	case RP_OPT_BOOL:
		snprintf(buf, n, "%s", x != 0 ? "yes" : "no");
		return;
	case RP_OPT_DURATION: {
		const double ns = whole_ns(x);
		if (ns < 0) {
			snprintf(buf, n, "%.15gs", x);
			return;
		}
		const uint64_t u = (uint64_t)ns;
		for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
			if (u && u % durations[i].scale == 0) {
				snprintf(buf, n, "%" PRIu64 "%s", u / durations[i].scale, durations[i].unit);
				return;
			}
		snprintf(buf, n, "%" PRIu64 "%s", u, u ? "ns" : "");
		return;
	}
	case RP_OPT_SIZE: {
		const uint64_t u = x >= 0x1p64 ? UINT64_MAX : (uint64_t)x;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (u && u % sizes[i].scale == 0) {
				snprintf(buf, n, "%" PRIu64 "%s", u / sizes[i].scale, sizes[i].unit);
				return;
			}
		snprintf(buf, n, "%" PRIu64, u);
		return;
	}
	case RP_OPT_UINT:
		snprintf(buf, n, "%" PRIu64, x >= 0x1p64 ? UINT64_MAX : (uint64_t)x);
		return;
	case RP_OPT_ENUM: {
		size_t i = 0;
		while (o->choices && o->choices[i] && (double)i < x)
			i++;
		snprintf(buf, n, "%s", o->choices && o->choices[i] ? o->choices[i] : "?");
		return;
	}
	default:
		snprintf(buf, n, "%.15g", x);
		return;
	}
}

/* Digits, at least one, maybe '.' and digits, maybe an exponent: the length, or 0 (no sign, space, hex, inf or nan). */
static size_t number_span(const char *s, bool real)
{
	size_t i = 0;
	while (isdigit((unsigned char)s[i]))
		i++;
	const size_t whole = i;
	if (real && s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++;
	}
	if (i == 0 || (whole == 0 && i == 1))
		return 0; /* nothing, or a lone '.' */
	if (real && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (isdigit((unsigned char)s[j])) {
			while (isdigit((unsigned char)s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* A whole number, decimal or 0x hex: 0 and *end after it, -1 not one, 1 too large. */
static int parse_whole(const char *s, uint64_t *u, const char **end)
{
	const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]);
	const char *const digits = hex ? s + 2 : s;
	size_t n = 0;
	while (hex ? isxdigit((unsigned char)digits[n]) : isdigit((unsigned char)digits[n]))
		n++;
	if (n == 0)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned d = isdigit((unsigned char)digits[i]) ? (unsigned)(digits[i] - '0')
								    : (unsigned)(tolower((unsigned char)digits[i]) - 'a' + 10);
		if (__builtin_mul_overflow(v, hex ? 16u : 10u, &v) || __builtin_add_overflow(v, d, &v))
			return 1;
	}
	*u = v;
	*end = digits + n;
	return 0;
}

/* A decimal number: 0 and *end after it, -1 not one. */
static int parse_real(const char *s, double *d, const char **end)
{
	const size_t n = number_span(s, true);
	if (!n)
		return -1;
	char *e;
	*d = strtod(s, &e);
	if ((size_t)(e - s) != n)
		return -1;
	*end = e;
	return 0;
}

/* "1.5ms": d seconds and u ns; -1 not a duration, 1 too large for ns. */
static int parse_duration(const char *s, double *d, uint64_t *u)
{
	static const struct {
		const char *unit;
		double ns; /* ns in one of it */
	} units[] = { { "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 }, { "m", 60e9 }, { "h", 3600e9 } };
	const char *e;
	double v;
	if (parse_real(s, &v, &e) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(e, units[i].unit) != 0)
			continue;
		/* seconds computed as the unit says (250ms: 250 / 1e3), so a bound written in it compares exactly */
		*d = units[i].ns >= 1e9 ? v * (units[i].ns / 1e9) : v / (1e9 / units[i].ns);
		const double ns = v * units[i].ns + 0.5;
		if (!(ns < 0x1p64))
			return 1;
		*u = (uint64_t)ns;
		return 0;
	}
	return -1;
}

/* "64k": bytes; -1 not a size, 1 too large. */
static int parse_size(const char *s, uint64_t *u)
{
	const char *e;
	const int rc = parse_whole(s, u, &e);
	if (rc)
		return rc;
	if (!*e)
		return 0;
	static const char units[] = "kmgt";
	const char *const p = e[1] == '\0' ? strchr(units, tolower((unsigned char)e[0])) : NULL;
	if (!p || !*p)
		return -1;
	return __builtin_mul_overflow(*u, UINT64_C(1) << (10 * (p - units + 1)), u) ? 1 : 0;
}

static int not_of_kind(const rp_optdesc *o, const char *label, const char *text, char *errbuf)
{
	static const char *const forms[RP_OPT__COUNT] = {
		[RP_OPT_UINT] = "a whole number (decimal, or hex with 0x)",
		[RP_OPT_DOUBLE] = "a number",
		[RP_OPT_DURATION] = "a duration: 250ms, 1.5s, 2m, 1h (bare: seconds)",
		[RP_OPT_SIZE] = "a size: 4096, 64k, 16M, 1G",
	};
	return rp_fail(errbuf, RP_E_INVAL, "%s: '%s' is not %s%s%s", label, text, forms[o->kind],
		       o->kind == RP_OPT_UINT && o->word ? " or " : "", o->kind == RP_OPT_UINT && o->word ? o->word : "");
}

static int out_of_range(const rp_optdesc *o, const char *label, const char *text, char *errbuf)
{
	char lo[48], hi[48];
	rp_optdesc_format(o, o->min, lo, sizeof(lo));
	rp_optdesc_format(o, o->max, hi, sizeof(hi));
	return rp_fail(errbuf, RP_E_RANGE, "%s: %s is out of range (%s to %s)", label, text, lo, o->max != 0 ? hi : "any");
}

/* Whether u is within o's bounds, compared as whole numbers (the bounds times scale, rounded: a bound is meant exact). */
static bool whole_in(const rp_optdesc *o, uint64_t u, double scale)
{
	const double lo = nearbyint(o->min * scale), hi = nearbyint(o->max * scale);
	if (lo > 0 && (lo >= 0x1p64 || u < (uint64_t)lo))
		return false;
	return o->max == 0 || hi >= 0x1p64 || u <= (uint64_t)hi;
}

/* The choices, "a, b, c", for an error. */
static void choice_list(const rp_optdesc *o, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; o->choices && o->choices[i] && at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", o->choices[i]);
}

int rp_optdesc_parse(const rp_optdesc *o, const char *label, const char *text, rp_optval *v, char *errbuf)
{
	static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };
	v->u = 0;
	v->d = 0;
	const char *end = NULL;
	int rc;
	switch (o->kind) {
	case RP_OPT_FLAG:
		if (text)
			return rp_fail(errbuf, RP_E_INVAL, "%s takes no value", label);
		v->u = 1;
		v->d = 1;
		return 0;
	case RP_OPT_STRING:
	case RP_OPT_LIST:
		return 0;
	case RP_OPT_BOOL:
		for (size_t i = 0; text && i < 4; i++)
			if (strcasecmp(text, yes[i]) == 0 || strcasecmp(text, no[i]) == 0) {
				v->u = strcasecmp(text, yes[i]) == 0;
				v->d = (double)v->u;
				return 0;
			}
		return rp_fail(errbuf, RP_E_INVAL, "%s: '%s' is not yes/no, true/false, on/off or 1/0", label, text ? text : "");
	case RP_OPT_ENUM:
		for (size_t i = 0; text && o->choices && o->choices[i]; i++)
			if (strcmp(o->choices[i], text) == 0) {
				v->u = i;
				v->d = (double)i;
				return 0;
			}
		{
			char list[256];
			choice_list(o, list, sizeof(list));
			return rp_fail(errbuf, RP_E_INVAL, "%s: '%s' is not one of %s", label, text ? text : "", list);
		}
	case RP_OPT_UINT:
		if (o->word && text && strcmp(text, o->word) == 0)
			return 0; /* the word's value: 0 */
		break;
	case RP_OPT_SIZE:
	case RP_OPT_DOUBLE:
	case RP_OPT_DURATION:
		break;
	default:
		return rp_fail(errbuf, RP_E_INVAL, "%s has an unknown kind %d", label, (int)o->kind);
	}
	if (!text)
		return not_of_kind(o, label, "", errbuf);
	/* A negative number of a kind that has none, or below a bound: out of range, said with the range. */
	const bool negative = text[0] == '-' && text[1] != '-' && text[1] != '\0';
	const char *const t = negative ? text + 1 : text;
	switch (o->kind) {
	case RP_OPT_UINT:
		rc = parse_whole(t, &v->u, &end);
		if (rc == 0 && *end)
			rc = -1;
		v->d = (double)v->u;
		break;
	case RP_OPT_SIZE:
		rc = parse_size(t, &v->u);
		v->d = (double)v->u;
		break;
	case RP_OPT_DOUBLE:
		rc = parse_real(t, &v->d, &end);
		if (rc == 0 && *end)
			rc = -1;
		break;
	default: /* RP_OPT_DURATION */
		rc = parse_duration(t, &v->d, &v->u);
		break;
	}
	if (rc < 0)
		return not_of_kind(o, label, text, errbuf);
	if (negative && (o->kind == RP_OPT_UINT || o->kind == RP_OPT_SIZE || o->kind == RP_OPT_DURATION || o->min >= 0))
		return out_of_range(o, label, text, errbuf); /* (a DOUBLE below 0 with a bound below 0 is checked below) */
	if (negative)
		v->d = -v->d;
	if (rc > 0)
		return out_of_range(o, label, text, errbuf);
	bool in;
	if (o->kind == RP_OPT_DOUBLE)
		in = v->d >= o->min && (o->max == 0 || v->d <= o->max);
	else if (o->kind == RP_OPT_DURATION)
		in = whole_in(o, v->u, 1e9); /* compared in ns: what a backend reads */
	else
		in = whole_in(o, v->u, 1);
	if (!in)
		return out_of_range(o, label, text, errbuf);
	return 0;
}

void rp_optdesc_terms(const rp_optdesc *o, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s%s%s", rp_optkind_name(o->kind), o->kind == RP_OPT_UINT && o->word ? " or " : "",
				      o->kind == RP_OPT_UINT && o->word ? o->word : "");
	char lo[48], hi[48];
	if (len < n && o->repeat)
		len += (size_t)snprintf(buf + len, n - len, ", repeatable");
	if (len < n && o->def)
		len += (size_t)snprintf(buf + len, n - len, ", default %s", o->def);
	if (len < n && (o->min != 0 || o->max != 0)) {
		rp_optdesc_format(o, o->min, lo, sizeof(lo));
		rp_optdesc_format(o, o->max, hi, sizeof(hi));
		len += (size_t)snprintf(buf + len, n - len, o->max != 0 ? ", %s to %s" : ", at least %s", lo, hi);
	}
	for (size_t i = 0; len < n && o->kind == RP_OPT_ENUM && o->choices && o->choices[i]; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "|" : ": ", o->choices[i]);
}
