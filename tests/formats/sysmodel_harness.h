/* The syscall model's test harness (tests/formats/test_sysmodel*.c): a model over a memory sink, events fed by hand, ops rendered as text. */
#ifndef REPRISE_TESTS_SYSMODEL_HARNESS_H
#define REPRISE_TESTS_SYSMODEL_HARNESS_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>

#include "converters/strace.h"
#include "formats/sysev.h"
#include "tests/memsink_text.h"

#define AT_CWD (-100)

typedef struct T {
	rp_memsink ms;
	rp_sysmodel *m;
	uint64_t t;
	char text[256 * 1024]; /* every op in the text form, one a line */
} T;

static inline T *mk(const rp_sysmodel_opts *o)
{
	T *const t = calloc(1, sizeof(*t));
	assert_non_null(t);
	assert_int_equal(rp_memsink_init(&t->ms), 0);
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_sysmodel_create(&t->m, &t->ms.base, o, eb), 0);
	t->t = 1000000;
	return t;
}

static inline void done(T *t)
{
	rp_sysmodel_destroy(t->m);
	rp_memsink_fini(&t->ms);
	free(t);
}

/* One event: times 1 us apart unless given, tid = pid unless given, plen = strlen unless given. */
static inline int feed(T *t, rp_sysev e)
{
	if (!e.t_start) {
		t->t += 1000;
		e.t_start = t->t;
		e.t_end = e.t_start + 100;
	}
	if (!e.tid)
		e.tid = e.pid;
	for (unsigned i = 0; i < 2; i++)
		if (e.p[i] && !e.plen[i])
			e.plen[i] = (uint32_t)strlen(e.p[i]);
	return rp_sysmodel_event(t->m, &e);
}
#define EV(t, ...) assert_int_equal(feed((t), (rp_sysev){ __VA_ARGS__ }), 0)
#define P(...) .p = { __VA_ARGS__ }
#define A(...) .a = { __VA_ARGS__ }

static inline const rp_sysmodel_stats *stats(const T *t)
{
	return rp_sysmodel_get_stats(t->m);
}

static inline const char *render(T *t)
{
	return memsink_text(&t->ms, t->text, sizeof(t->text));
}

/* The text of op i (negative: from the end), without its times. */
static inline const char *op_text(T *t, long i, char *buf, size_t size)
{
	const long n = (long)t->ms.n_ops;
	if (i < 0)
		i += n;
	if (i < 0 || i >= n)
		return "(no op)";
	rp_op op = t->ms.ops[i];
	op.t_start = 0;
	op.t_end = 0;
	rp_op_format(buf, size, &op, rp_memsink_string, &t->ms);
	const char *const c = strstr(buf, " c");
	return c ? c + 1 : buf;
}

#define HAS(t, s)                                                                                  \
	do {                                                                                       \
		if (!strstr(render(t), (s)))                                                       \
			fail_msg("missing \"%s\" in:\n%s", (s), (t)->text);                        \
	} while (0)
#define LACKS(t, s)                                                                                \
	do {                                                                                       \
		if (strstr(render(t), (s)))                                                        \
			fail_msg("unexpected \"%s\" in:\n%s", (s), (t)->text);                     \
	} while (0)

/* A first process (parent unknown) in /w with a terminal on 0..2. */
static inline void start(T *t, uint32_t pid, const char *cwd)
{
	EV(t, .nr = RP_SYSEV_START, .pid = pid, A(1), P(cwd));
	for (int fd = 0; fd < 3; fd++)
		EV(t, .nr = RP_SYSEV_FD, .pid = pid, A(fd, 2, 0, 0, 0), P("/dev/pts/0"));
}


#endif
