/* posix backend: copy between two open files (copy_file_range(2), or pread/pwrite where the kernel cannot). */
#include "replay/backends/posix.h"

#include <errno.h>
#include <unistd.h>

/* One call copies at most this much, so a huge recorded length never asks for one huge buffer. */
#define COPY_CHUNK (1u << 20)

/* Through the client's buffer, when copy_file_range cannot (another file system, an old kernel, special files). */
static ssize_t copy_rw(posix_client *c, int in, off_t *oin, int out, off_t *oout, size_t n)
{
	if (rp__posix_buf(c, n) < 0) {
		errno = ENOMEM;
		return -1;
	}
	if (n > c->buf_size)
		n = c->buf_size;
	const ssize_t got = pread(in, c->buf, n, *oin);
	if (got <= 0)
		return got;
	size_t put = 0;
	while (put < (size_t)got) {
		const ssize_t w = pwrite(out, c->buf + put, (size_t)got - put, *oout);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO; /* no room and no reason: the op cannot finish */
			if (put == 0)
				return -1;
			break; /* what was written counts; the next call gives the reason */
		}
		put += (size_t)w;
		*oout += w;
	}
	*oin += (off_t)put;
	return (ssize_t)put;
}

int rp__posix_copy(posix_client *c, rp_breq *req, int in, int out)
{
	const rp_op *const op = req->op;
	/* The op's offsets are absolute (docs/op-model.md, copy); beyond off_t they fail as the kernel would. */
	if (op->offset > INT64_MAX || op->offset2 > INT64_MAX)
		return EINVAL;
	off_t oin = (off_t)op->offset, oout = (off_t)op->offset2;
	uint64_t left = op->length, done = 0;
	bool rw = false;
	int rc = 0;
	while (left) {
		const size_t n = left < COPY_CHUNK ? (size_t)left : COPY_CHUNK;
		ssize_t got;
		if (!rw) {
			got = copy_file_range(in, &oin, out, &oout, n, 0);
			if (got < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
				rw = true; /* the same bytes by hand; a real error shows again there */
				continue;
			}
		} else {
			got = copy_rw(c, in, &oin, out, &oout, n);
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = errno;
			break;
		}
		if (got == 0)
			break; /* the end of the source */
		done += (uint64_t)got;
		left -= (uint64_t)got;
	}
	req->result = done;
	/* A copy that moved some bytes and then failed returns what it moved, as copy_file_range does. */
	return done ? 0 : rc;
}
