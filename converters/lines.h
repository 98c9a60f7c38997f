/* The lines of a buffer in memory, each handed to a parser's line function (the *_parse_mem entry points). */
#ifndef REPRISE_CONVERTERS_LINES_H
#define REPRISE_CONVERTERS_LINES_H

#include <stddef.h>
#include <string.h>

/*
 * fn(parser, line, its length without the '\n', errbuf) for each line of
 * buf[0..len) (the last one may lack its '\n'), until one returns non-zero:
 * that value, else 0.
 */
static inline int rp__mem_lines(const void *buf, size_t len, void *parser,
				int (*fn)(void *parser, const char *line, size_t n, char *errbuf), char *errbuf)
{
	const char *p = buf;
	const char *const end = p + len;
	int rc = 0;
	while (p < end && rc == 0) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		rc = fn(parser, p, (size_t)(eol - p), errbuf);
		p = eol < end ? eol + 1 : end;
	}
	return rc;
}

#endif
