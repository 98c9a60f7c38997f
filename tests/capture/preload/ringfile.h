/* Hand-made ring files for the spool reader's tests and fuzz target (capture/preload/ring.h). */
#ifndef REPRISE_TESTS_RINGFILE_H
#define REPRISE_TESTS_RINGFILE_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/preload/ring.h"

/* Add one to the rings made in dir's control page, as a producer does after its rename (no page: nothing). */
static inline void ringfile_count(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, RP_SPOOL_CTL_FILE);
	const int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	void *const map = mmap(NULL, RP_SPOOL_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	atomic_fetch_add(&((rp_spool_ctl *)map)->rings_made, 1);
	munmap(map, RP_SPOOL_CTL_SIZE);
}

/* Write a control page naming writer_pid as dir's writer (a spool no rp_spool made); 0 or -1. */
static inline int ringfile_ctl_write(const char *dir, int writer_pid)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, RP_SPOOL_CTL_FILE);
	const int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	static unsigned char page[RP_SPOOL_CTL_SIZE];
	rp_spool_ctl c;
	memset(&c, 0, sizeof c);
	c.magic = RP_SPOOL_CTL_MAGIC;
	c.writer_pid = writer_pid;
	memcpy(page, &c, sizeof c);
	const int rc = write(fd, page, sizeof page) == (ssize_t)sizeof page ? 0 : -1;
	close(fd);
	return rc;
}

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
	if (rc == 0)
		ringfile_count(dir);
	return rc;
}

#endif
