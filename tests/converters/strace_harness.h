/* The strace importer's unit tests' harness: a log parsed into a memsink and its ops as text. */
#ifndef REPRISE_TESTS_CONVERTERS_STRACE_HARNESS_H
#define REPRISE_TESTS_CONVERTERS_STRACE_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "converters/strace.h"
#include "tests/memsink_text.h"

typedef struct got {
	rp_memsink m;
	int rc;
	uint64_t skipped;
	char eb[RP_ERRBUF_SIZE];
	char summary[1024];
	char text[64 * 1024]; /* every op in the text form, one a line */
} got;

/* g's ops as text, one per line, in g->text (cut at its size); returns g. */
static inline got *got_format(got *g)
{
	memsink_text(&g->m, g->text, sizeof(g->text));
	return g;
}

static inline got *parse_opts(const char *log, const rp_strace_opts *o)
{
	got *const g = calloc(1, sizeof(*g));
	assert_non_null(g);
	assert_int_equal(rp_memsink_init(&g->m), 0);
	g->rc = rp_strace_parse_mem(log, strlen(log), "t.strace", &g->m.base, o, &g->skipped, g->summary,
				    sizeof(g->summary), g->eb);
	return got_format(g);
}

static inline got *parse(const char *log)
{
	return parse_opts(log, NULL);
}

static inline void done(got *g)
{
	rp_memsink_fini(&g->m);
	free(g);
}

/* Line i of the text (0-based), for exact comparisons. */
static inline const char *line_of(const got *g, unsigned i, char *buf, size_t size)
{
	const char *p = g->text;
	for (unsigned k = 0; k < i && p; k++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p || !*p)
		return "";
	const char *const e = strchr(p, '\n');
	const size_t n = e ? (size_t)(e - p) : strlen(p);
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), p);
	return buf;
}

#define HAS(g, s)                                                                                  \
	do {                                                                                       \
		if (!strstr((g)->text, (s)))                                                       \
			fail_msg("missing \"%s\" in:\n%s\n(rc %d: %s)", (s), (g)->text, (g)->rc, (g)->eb); \
	} while (0)

#endif
