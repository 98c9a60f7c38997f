/* Resolving trace paths strictly beneath a directory fd: openat2(2) RESOLVE_BENEATH, else an O_NOFOLLOW walk. */
#include "replay/backends/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_walk(const rp_beneath *b, const char *path, int flags, unsigned mode)
{
	/* Every component is opened O_NOFOLLOW: a symlink anywhere fails with ELOOP/ENOTDIR. */
	int dir = b->root;
	const char *p = path;
	for (;;) {
		const char *const slash = strchr(p, '/');
		if (!slash)
			break;
		const size_t n = (size_t)(slash - p);
		char comp[NAME_MAX + 1];
		if (n == 0 || n > NAME_MAX) {
			if (dir != b->root)
				close(dir);
			return n == 0 ? -EINVAL : -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (strcmp(comp, "..") == 0 || strcmp(comp, ".") == 0) {
			if (dir != b->root)
				close(dir);
			return -EXDEV;
		}
		const int next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		const int err = errno;
		if (dir != b->root)
			close(dir);
		if (next < 0)
			return -err;
		dir = next;
		p = slash + 1;
	}
	int fd;
	if (*p == '\0')
		fd = openat(dir, ".", flags | O_CLOEXEC, mode);
	else if (strcmp(p, "..") == 0 || strcmp(p, ".") == 0) {
		errno = EXDEV;
		fd = -1;
	} else
		fd = openat(dir, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	const int err = errno;
	if (dir != b->root)
		close(dir);
	return fd < 0 ? -err : fd;
}

static int open_beneath(const rp_beneath *b, const char *path, int flags, unsigned mode, uint64_t resolve)
{
	if (path[0] == '/')
		return -EXDEV; /* the engine never passes one; refuse rather than trust */
	if (!b->force_walk && !atomic_load_explicit(b->no_openat2, memory_order_relaxed)) {
		struct open_how how;
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC);
		/* openat2 rejects a mode without O_CREAT/O_TMPFILE. */
		how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0;
		how.resolve = resolve;
		const long fd = syscall(SYS_openat2, b->root, path[0] ? path : ".", &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
		atomic_store_explicit(b->no_openat2, 1, memory_order_relaxed);
	}
	return open_walk(b, path, flags, mode);
}

int rp__beneath_open(const rp_beneath *b, const char *path, int flags, unsigned mode)
{
	return open_beneath(b, path, flags, mode, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
}

int rp__beneath_open_nosym(const rp_beneath *b, const char *path, int flags, unsigned mode)
{
	return open_beneath(b, path, flags, mode, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
}

int rp__beneath_openat(const rp_beneath *b, int dirfd, const char *name, int flags, unsigned mode)
{
	if (name[0] == '\0' || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL; /* one real component only: the caller split the path */
	if (!b->force_walk && !atomic_load_explicit(b->no_openat2, memory_order_relaxed)) {
		struct open_how how;
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC);
		how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		const long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
		atomic_store_explicit(b->no_openat2, 1, memory_order_relaxed);
	}
	/* As the walk's last step: a symlink is never followed. */
	const int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int rp__beneath_parent(const rp_beneath *b, const char *path, const char **name)
{
	const char *const slash = strrchr(path, '/');
	const char *const last = slash ? slash + 1 : path;
	if (last[0] == '\0' || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return -EINVAL;
	*name = last;
	if (!slash)
		return b->root;
	const size_t n = (size_t)(slash - path);
	char dir[PATH_MAX];
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return rp__beneath_open(b, dir, O_PATH | O_DIRECTORY, 0);
}

void rp__beneath_close(const rp_beneath *b, int fd)
{
	if (fd >= 0 && fd != b->root)
		close(fd);
}
