/* Hand-made ring files for the spool reader's tests and fuzz target (capture/preload/ring.h). */
#ifndef REPRISE_TESTS_RINGFILE_H
#define REPRISE_TESTS_RINGFILE_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/preload/ring.h"

/* Write hdr (its page) and data (data_size bytes) as dir/name; 0 or -1. */
static inline int ringfile_write(const char *dir, const char *name, const rp_ring_hdr *hdr, const void *data,
                                 size_t data_len)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	const int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	static const unsigned char zero[RP_RING_HDR_SIZE];
	int rc = write(fd, hdr, sizeof *hdr) == (ssize_t)sizeof *hdr &&
	                 write(fd, zero, RP_RING_HDR_SIZE - sizeof *hdr) == (ssize_t)(RP_RING_HDR_SIZE - sizeof *hdr) &&
	                 (data_len == 0 || write(fd, data, data_len) == (ssize_t)data_len)
	             ? 0
	             : -1;
	close(fd);
	return rc;
}

#endif
