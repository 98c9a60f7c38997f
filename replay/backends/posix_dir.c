/* posix backend: directory listings (SMB FIND_FIRST patterns, readdir) and dbench's deltree. */
#include "replay/backends/posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "formats/posixsem.h"

/* A tree deeper than this is treated as an attack on the stack, not a workload. */
#define DELTREE_MAX_DEPTH 128

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define DENTS_BUF (64u * 1024u)

/* Count entries of dirfd (not . and ..) matching pattern (NULL = all). */
static int count_entries(posix_client *c, int dirfd, const char *pattern, uint64_t *count)
{
	if (rp__posix_buf(c, DENTS_BUF) < 0)
		return ENOMEM;
	*count = 0;
	if (lseek(dirfd, 0, SEEK_SET) < 0)
		return errno;
	for (;;) {
		const long n = syscall(SYS_getdents64, dirfd, c->buf, DENTS_BUF);
		if (n < 0)
			return errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			const struct linux_dirent64 *const d = (const void *)(c->buf + off);
			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			if (!pattern || rp_find_match(pattern, d->d_name))
				(*count)++;
		}
	}
}

/*
 * A listing of the directory named by the path (or the handle), of every
 * entry or, with a pattern (path2: SMB FIND_FIRST/QUERY_DIRECTORY), of the
 * entries matching it as an SMB server would (rp_find_match).  A directory's entries include "."
 * and ".." for a pattern (MS-FSCC 2.4: SMB servers list them), so "*" finds
 * something even in an empty directory; a pattern that matches nothing at
 * all is ENOENT (NT_STATUS_NO_SUCH_FILE).
 */
int rp__posix_readdir(posix_backend *pb, posix_client *c, const rp_breq *req, int handle_fd, uint64_t *result)
{
	(void)pb;
	int dirfd = -1, rc;
	uint64_t n = 0;
	const char *const mask = req->path2;
	if (!req->path) {
		if (handle_fd < 0)
			return EBADF;
		dirfd = handle_fd;
	} else {
		dirfd = rp__posix_listdir(c, req->path, strlen(req->path));
		if (dirfd < 0)
			return -dirfd;
	}
	if (mask && mask[0]) {
		if (strlen(mask) > NAME_MAX) {
			rc = ENAMETOOLONG;
			goto out;
		}
		rc = count_entries(c, dirfd, mask, &n);
		if (rc == 0) {
			n += rp_find_dots(mask);
			if (n == 0)
				rc = ENOENT;
		}
	} else {
		rc = count_entries(c, dirfd, NULL, &n);
	}
out:
	if (dirfd != handle_fd)
		rp__posix_release(c, dirfd);
	/* A listing returns at most the requested number of entries. */
	*result = req->op->length && n > req->op->length ? req->op->length : n;
	return rc;
}

static int empty_dir(posix_client *c, int dirfd, int depth)
{
	if (depth > DELTREE_MAX_DEPTH)
		return ELOOP;
	/* Deleting while listing: restart the listing until a pass removes nothing. */
	char *const buf = malloc(DENTS_BUF);
	if (!buf)
		return ENOMEM;
	int rc = 0;
	for (bool again = true; again && rc == 0;) {
		again = false;
		if (lseek(dirfd, 0, SEEK_SET) < 0) {
			rc = errno;
			break;
		}
		long n;
		while (rc == 0 && (n = syscall(SYS_getdents64, dirfd, buf, DENTS_BUF)) > 0) {
			for (long off = 0; off < n && rc == 0;) {
				const struct linux_dirent64 *const d = (const void *)(buf + off);
				off += d->d_reclen;
				if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
					continue;
				if (unlinkat(dirfd, d->d_name, 0) == 0) {
					again = true;
					continue;
				}
				if (errno != EISDIR && errno != EPERM) {
					rc = errno == ENOENT ? 0 : errno;
					continue;
				}
				/* A directory: O_NOFOLLOW so a symlink swapped in cannot lead outside. */
				const int sub = openat(dirfd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0) {
					rc = errno;
					continue;
				}
				rc = empty_dir(c, sub, depth + 1);
				close(sub);
				if (rc == 0 && unlinkat(dirfd, d->d_name, AT_REMOVEDIR) < 0)
					rc = errno;
				again = true;
			}
		}
		if (rc == 0 && n < 0)
			rc = errno;
	}
	free(buf);
	return rc;
}

/* Remove path and everything under it; a missing path is not an error (dbench's Deltree). */
int rp__posix_deltree(posix_client *c, const char *path)
{
	const char *name;
	const int parent = rp__posix_parent(c, path, &name);
	if (parent < 0)
		return parent == -ENOENT ? 0 : -parent;
	int rc = 0;
	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		goto out;
	if (errno != EISDIR && errno != EPERM) {
		rc = errno;
		goto out;
	}
	const int dirfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0) {
		rc = errno;
		goto out;
	}
	rc = empty_dir(c, dirfd, 0);
	close(dirfd);
	if (rc == 0 && unlinkat(parent, name, AT_REMOVEDIR) < 0)
		rc = errno;
out:
	rp__posix_release(c, parent);
	rp__posix_forget(c, path); /* whatever of it is gone, no cached fd may outlive it */
	return rc;
}
