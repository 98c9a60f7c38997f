/* Test helper: a memsink's ops in the canonical text form, one a line (what the golden tests compare). */
#ifndef REPRISE_TESTS_MEMSINK_TEXT_H
#define REPRISE_TESTS_MEMSINK_TEXT_H

#include <stddef.h>

#include "formats/op.h"
#include "formats/sink.h"

/* m's ops into buf, a '\n' after each, cut at size and always NUL-terminated; returns buf. */
static inline char *memsink_text(rp_memsink *m, char *buf, size_t size)
{
	size_t at = 0;
	for (size_t i = 0; i < m->n_ops && at < size - 1; i++) {
		at += rp_op_format(buf + at, size - at, &m->ops[i], rp_memsink_string, m);
		if (at < size - 1)
			buf[at++] = '\n';
	}
	buf[at < size ? at : size - 1] = '\0';
	return buf;
}

#endif
