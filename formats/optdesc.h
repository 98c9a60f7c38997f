/*
 * One option descriptor (in the manner of fio's struct fio_option): the
 * command line's tables (cli/opts.h) are made of it and the backends'
 * (replay/backend.h rp_backend_opt, a module ABI of its own) are read
 * through it, so one value parser and one help renderer serve both.
 */
#ifndef REPRISE_FORMATS_OPTDESC_H
#define REPRISE_FORMATS_OPTDESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rp_optkind {
	RP_OPT_FLAG,     /* no value: given or not (bool *) */
	RP_OPT_STRING,   /* text as given (const char **) */
	RP_OPT_UINT,     /* a whole number, decimal or 0x hex (uint64_t *) */
	RP_OPT_DOUBLE,   /* a decimal number, maybe with an exponent (double *) */
	RP_OPT_DURATION, /* a number with ns, us, ms, s, m or h, bare: seconds (double * seconds) */
	RP_OPT_LIST,     /* a string option given several times (rp_optlist *, cli/opts.h) */
	RP_OPT_BOOL,     /* yes/no, true/false, on/off, 1/0 (bool *) */
	RP_OPT_SIZE,     /* a whole number of bytes with k, M, G or T, powers of 1024 (uint64_t *) */
	RP_OPT_ENUM,     /* one of choices (unsigned *: its index) */
	RP_OPT__COUNT
} rp_optkind;

typedef struct rp_optdesc {
	const char *name;  /* the long name, without "--" */
	char short_name;   /* 0 if none (the command line's only) */
	rp_optkind kind;
	void *value;       /* where the command line stores the value (the types above); NULL for a backend's */
	const char *arg;   /* the value's name in help ("N", "FILE"); NULL: the kind's (rp_optdesc_arg) */
	const char *help;
	/*
	 * UINT, SIZE, DOUBLE, DURATION (in seconds): the values accepted, both
	 * ends included (exact up to 2^53); max 0 is no upper bound.  Outside
	 * them is an error naming the option and the range.
	 */
	double min, max;
	const char *const *choices; /* ENUM: the values, NULL-terminated */
	const char *def;   /* the default as text, parsed like a given value (help shows it); NULL: none */
	bool repeat;       /* may be given more than once, each kept (help says so) */
	const char *word;  /* UINT: a word taken besides a number, as the value 0 ("auto"); NULL: none */
} rp_optdesc;

/* A parsed value: UINT, SIZE: u (and d; UINT's word: 0); DOUBLE: d; DURATION: d seconds, u ns (rounded); FLAG, BOOL: u 0 or 1; ENUM: u the index. */
typedef struct rp_optval {
	uint64_t u;
	double d;
} rp_optval;

/*
 * text parsed against o's kind, choices and bounds into *v; label names the
 * option in the error ("--clients", "option 'depth'").  STRING and LIST take
 * any text (v unset); FLAG takes none (text NULL).  0, or RP_E_INVAL (not of
 * the kind: "LABEL: 'x' is not a number") or RP_E_RANGE ("LABEL: 0 is out of
 * range (1 to 64)") with the message in errbuf (RP_ERRBUF_SIZE).
 */
int rp_optdesc_parse(const rp_optdesc *o, const char *label, const char *text, rp_optval *v, char *errbuf);

/* A value of o's kind as help shows it ("2ms", "16M", "1.5", an enum's choice); x in the bounds' unit (DURATION: seconds). */
void rp_optdesc_format(const rp_optdesc *o, double x, char *buf, size_t n);

/* The kind's name ("duration") and the value's name in help: o->arg, else the kind's ("N", "DURATION", "SIZE"). */
const char *rp_optkind_name(rp_optkind k);
const char *rp_optdesc_arg(const rp_optdesc *o);

/* What help says of o beyond its text: "uint, default 4, 1 to 64", "uint or auto, 1 to 1024", "enum, default safe: fast|safe", "string, repeatable". */
void rp_optdesc_terms(const rp_optdesc *o, char *buf, size_t n);

#endif
