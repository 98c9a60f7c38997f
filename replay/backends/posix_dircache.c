/* posix backend: a per-client LRU cache of directory fds resolved beneath the target (saves open+close per op). */
#include "replay/backends/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/hash.h"

/*
 * Why this is as safe as resolving every path from the root: an entry's fd
 * was opened from the client's root with openat2 RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS (or the O_NOFOLLOW walk), so it is a real directory
 * beneath the target, reached through no symlink; what is opened from it is
 * one component, resolved beneath that directory (rp__beneath_openat) or
 * acted on with *at() calls that do not follow a final symlink.  A directory
 * whose path has a symlink in it is opened as before and not cached, so
 * removing or changing a symlink never leaves a stale entry.  What can make an
 * entry wrong is a directory moving or going: this client's own rename, rmdir,
 * deltree and directory delete-on-close forget the path and everything beneath
 * it (rp__posix_forget), and bump a generation shared by the clients working in
 * the same directory, which empties their caches.
 */

/* A quick inequality test before the memcmp (the cache is searched linearly: no order depends on it). */
static uint64_t hash_path(const char *s, size_t n)
{
	return rp_fnv1a64(RP_FNV64_OFFSET, s, n);
}

static void drop(posix_dirent *e)
{
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	e->path = NULL;
	e->fd = -1;
}

void rp__posix_cache_init(posix_client *c)
{
	for (unsigned i = 0; i < POSIX_DIRCACHE; i++)
		c->dirs[i] = (posix_dirent){ .fd = -1 };
	c->dirs_tick = 0;
}

void rp__posix_cache_flush(posix_client *c)
{
	for (unsigned i = 0; i < POSIX_DIRCACHE; i++)
		drop(&c->dirs[i]);
}

void rp__posix_begin(posix_client *c)
{
	if (!c->gen)
		return;
	const uint64_t g = atomic_load_explicit(c->gen, memory_order_acquire);
	if (g != c->gen_seen) {
		rp__posix_cache_flush(c);
		c->gen_seen = g;
	}
}

int rp__posix_dir(posix_client *c, const char *dir, size_t n)
{
	if (n == 0)
		return c->b.root;
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	const uint64_t h = hash_path(dir, n);
	posix_dirent *victim = NULL; /* the first free slot, else the least recently used */
	for (unsigned i = 0; i < POSIX_DIRCACHE; i++) {
		posix_dirent *const e = &c->dirs[i];
		if (e->path && e->hash == h && e->len == n && memcmp(e->path, dir, n) == 0) {
			e->used = ++c->dirs_tick;
			return e->fd;
		}
		if (!victim || (victim->path && (!e->path || e->used < victim->used)))
			victim = e;
	}
	char buf[PATH_MAX];
	memcpy(buf, dir, n);
	buf[n] = '\0';
	/* O_RDONLY so the same fd can be listed (readdir); O_PATH where the directory is not readable. */
	bool path_only = false;
	int fd = rp__beneath_open_nosym(&c->b, buf, O_RDONLY | O_DIRECTORY, 0);
	if (fd == -EACCES) {
		path_only = true;
		fd = rp__beneath_open_nosym(&c->b, buf, O_PATH | O_DIRECTORY, 0);
	}
	if (fd == -ELOOP) /* a symlink on the way: resolve as always, but do not keep it */
		return rp__beneath_open(&c->b, buf, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	char *const copy = malloc(n + 1);
	if (!copy) {
		close(fd);
		return -ENOMEM;
	}
	memcpy(copy, buf, n + 1);
	/* The entry evicted is the least recently used, never the one a caller got just before (rename, link). */
	drop(victim);
	*victim = (posix_dirent){
		.path = copy, .len = n, .hash = h, .fd = fd, .used = ++c->dirs_tick, .path_only = path_only
	};
	return fd;
}

static const posix_dirent *cached(const posix_client *c, int fd)
{
	for (unsigned i = 0; i < POSIX_DIRCACHE; i++)
		if (c->dirs[i].path && c->dirs[i].fd == fd)
			return &c->dirs[i];
	return NULL;
}

void rp__posix_release(posix_client *c, int fd)
{
	if (fd >= 0 && fd != c->b.root && !cached(c, fd))
		close(fd);
}

int rp__posix_listdir(posix_client *c, const char *dir, size_t n)
{
	const int fd = rp__posix_dir(c, dir, n);
	if (fd < 0)
		return fd;
	const posix_dirent *const e = cached(c, fd);
	if (e && !e->path_only)
		return fd;
	/* The root (O_PATH), a path through a symlink, or an unreadable directory: open one to list. */
	rp__posix_release(c, fd);
	char buf[PATH_MAX];
	memcpy(buf, dir, n);
	buf[n] = '\0';
	return rp__beneath_open(&c->b, buf, O_RDONLY | O_DIRECTORY, 0);
}

int rp__posix_parent(posix_client *c, const char *path, const char **name)
{
	const char *const slash = strrchr(path, '/');
	const char *const last = slash ? slash + 1 : path;
	if (last[0] == '\0' || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return -EINVAL;
	*name = last;
	return rp__posix_dir(c, path, slash ? (size_t)(slash - path) : 0);
}

int rp__posix_open(posix_client *c, const char *path, int flags, unsigned mode)
{
	if (path[0] == '\0')
		return rp__beneath_open(&c->b, path, flags, mode);
	const char *name;
	const int dir = rp__posix_parent(c, path, &name);
	if (dir < 0)
		return dir;
	const int fd = rp__beneath_openat(&c->b, dir, name, flags, mode);
	/* A symlink that leaves its directory may still stay beneath the target: let the root decide. */
	if (fd == -EXDEV && dir != c->b.root)
		return rp__beneath_open(&c->b, path, flags, mode);
	return fd;
}

void rp__posix_forget(posix_client *c, const char *path)
{
	const size_t n = strlen(path);
	for (unsigned i = 0; i < POSIX_DIRCACHE; i++) {
		posix_dirent *const e = &c->dirs[i];
		if (e->path && (n == 0 || (e->len >= n && memcmp(e->path, path, n) == 0 &&
					   (e->len == n || e->path[n] == '/'))))
			drop(e);
	}
	if (!c->gen)
		return;
	/* Tell the others; if someone else moved things since our last look, our own entries go too. */
	const uint64_t before = atomic_fetch_add_explicit(c->gen, 1, memory_order_acq_rel);
	if (before != c->gen_seen)
		rp__posix_cache_flush(c);
	c->gen_seen = before + 1;
}
