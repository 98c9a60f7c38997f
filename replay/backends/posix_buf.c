/* The posix client's I/O and getdents buffer: below posix.c, posix_dir.c and posix_copy.c. */
#include "replay/backends/posix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rp__posix_buf(posix_client *c, size_t n)
{
	if (c->buf_size >= n)
		return 0;
	char *const b = realloc(c->buf, n);
	if (!b)
		return -ENOMEM;
	/* Written data is a fixed pattern, not whatever was read last. */
	memset(b + c->buf_size, 0x5a, n - c->buf_size);
	c->buf = b;
	c->buf_size = n;
	return 0;
}
