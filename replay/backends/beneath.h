/* Resolving trace paths strictly beneath a directory fd (openat2 RESOLVE_BENEATH, or an O_NOFOLLOW walk). */
#ifndef REPRISE_REPLAY_BENEATH_H
#define REPRISE_REPLAY_BENEATH_H

#include <stdatomic.h>
#include <stdbool.h>

typedef struct rp_beneath {
	int root;           /* directory fd every path is resolved under */
	atomic_int *no_openat2; /* shared: set once openat2 is seen to be missing (ENOSYS) */
	bool force_walk;    /* tests: always use the component walk */
} rp_beneath;

/*
 * Open `path` (normalised, relative; "" is the root itself) beneath b->root
 * with open(2) flags and mode.  Symlinks are followed only while they stay
 * beneath the root (openat2); the fallback walk follows none.  Returns an fd
 * or -errno (EXDEV or ELOOP when a path would escape).
 */
int rp__beneath_open(const rp_beneath *b, const char *path, int flags, unsigned mode);

/* The same, but no symlink is followed anywhere on the path (ELOOP if there is one). */
int rp__beneath_open_nosym(const rp_beneath *b, const char *path, int flags, unsigned mode);

/*
 * Open one component `name` (no '/', not "", "." or "..") of a directory fd
 * that was itself resolved beneath the root: openat2 RESOLVE_BENEATH of that
 * directory (a symlink is followed only while it stays beneath it: EXDEV
 * otherwise, and the caller may retry from the root with the whole path), or,
 * without openat2, O_NOFOLLOW.  Returns an fd or -errno.
 */
int rp__beneath_openat(const rp_beneath *b, int dirfd, const char *name, int flags, unsigned mode);

/*
 * Open the parent directory of `path` beneath the root and point *name at the
 * last component.  Returns a directory fd (O_PATH; b->root itself for a
 * one-component path: release it with rp__beneath_close) or -errno; rejects an
 * empty last component, ".", ".." and the root itself with -EINVAL.
 */
int rp__beneath_parent(const rp_beneath *b, const char *path, const char **name);
void rp__beneath_close(const rp_beneath *b, int fd);

#endif
