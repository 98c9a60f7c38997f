/*
 * reprise's canonical text form (`reprise cat`, docs/op-model.md) read back
 * into ops: cat, edit, convert round-trips every field.
 */
#ifndef REPRISE_CONVERTERS_OPTEXT_H
#define REPRISE_CONVERTERS_OPTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/sink.h"

/* Whether head[0..len) starts (past comment lines) with an op line of the text form. */
bool rp_optext_sniff(const void *head, size_t len);

typedef struct rp_optext_opts {
	bool lenient;        /* skip bad lines, count them */
	bool filter_client;  /* keep only this client's ops */
	uint32_t client;
} rp_optext_opts;

typedef struct rp_optext rp_optext;

/* A parser that feeds sink; name is the input's name in messages ("client.txt:12: ..."). */
int rp_optext_create(rp_optext **out, rp_sink *sink, const char *name, const rp_optext_opts *opts, char *errbuf);
void rp_optext_destroy(rp_optext *t); /* NULL is a no-op */
/*
 * One line (without its newline; a trailing CR is allowed): an op, a blank
 * line, a comment, or one of cat --meta's "# source/start/host/input" lines
 * (before the first op).  0, or a negative rp error with "name:line: what"
 * in errbuf (lenient: bad lines are counted, not errors).
 */
int rp_optext_line(rp_optext *t, const char *line, size_t len, char *errbuf);
/* After the last line: meta (if no op sent it) and finish. */
int rp_optext_finish(rp_optext *t, char *errbuf);
uint64_t rp_optext_skipped(const rp_optext *t);

/* Every line of buf[0..len) (the fuzz target's and the tests' entry point). */
int rp_optext_parse_mem(const void *buf, size_t len, const char *name, rp_sink *sink, const rp_optext_opts *opts,
			uint64_t *skipped, char *errbuf);

#endif
