/*
 * The nfs backend's --cleanup hooks (rp_backend_ops.walk, .remove): the
 * client's directory (its mount root, the target itself for a client state
 * of dir "") listed depth first by READDIR(PLUS), and one entry removed, by
 * libnfs's synchronous calls on the client's context (the recursion is
 * treewalk.c's).  A directory is walked into only when its listing says it
 * is one (a symlink never is), so every path is made of real directories
 * beneath the root.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"
#include "replay/backends/treewalk.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nfsc/libnfs-raw-nfs.h>

/* The walk's context (treewalk.h): the client, and the path as libnfs takes it, from the mount root. */
typedef struct walk_ctx {
	nfs_client *c;
	char abs[PATH_MAX]; /* "/" then the entry's path relative to the root */
} walk_ctx;

static const char *absolute(walk_ctx *w, const char *path)
{
	snprintf(w->abs, sizeof(w->abs), "/%s", path); /* fits: the walk's path_max leaves room for the "/" */
	return w->abs;
}

/* The entries of the directory at path, read whole: 0, or an rp error. */
static int list(void *ctx, const char *path, rp__tw_list *l, char *errbuf)
{
	walk_ctx *const w = ctx;
	const char *const at = absolute(w, path);
	struct nfsdir *d = NULL;
	if (nfs_opendir(w->c->nfs, at, &d) < 0)
		return rp_fail(errbuf, RP_E_IO, "%s: cleanup: cannot list %s: %s", w->c->nb->url, at, nfs_get_error(w->c->nfs));
	/* libnfs 4.0's NFSv4 listing leaves inode (and type) unset, not 0: malloc's bytes (ASan's fill made
	 * every entry one id, all "of before").  There the entry's lstat (identify) says both. */
	const bool v4 = w->c->nb->version == 4;
	int rc = 0;
	for (struct nfsdirent *e; rc == 0 && (e = nfs_readdir(w->c->nfs, d));)
		rc = rp__tw_add(l, e->name, v4 ? 0 : e->inode, !v4 && e->type == NF3DIR);
	nfs_closedir(w->c->nfs, d);
	return rc ? rp__tw_fail(errbuf, rc, w->c->nb->url, path, l) : 0;
}

/* libnfs 4.0's NFSv4 listing has no fileid: the entry's own attributes have (an lstat: no link followed). */
static void identify(void *ctx, const char *path, rp__tw_dent *d)
{
	walk_ctx *const w = ctx;
	struct nfs_stat_64 st;
	if (nfs_lstat64(w->c->nfs, absolute(w, path), &st) == 0) {
		d->id = st.nfs_ino;
		d->dir = S_ISDIR(st.nfs_mode);
	}
}

static const rp__tw_ops walk_ops = { .list = list, .identify = identify, .path_max = PATH_MAX - 1 };

int rp__nfs_walk(nfs_client *c, int (*fn)(void *arg, const rp_backend_entry *e), void *arg, char *errbuf)
{
	walk_ctx *const w = malloc(sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	w->c = c;
	const int rc = rp__tw_walk(&walk_ops, w, fn, arg, errbuf);
	free(w);
	return rc;
}

int rp__nfs_remove(nfs_client *c, const char *path, bool dir)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "/%s", path) >= (int)sizeof(p))
		return ENAMETOOLONG;
	const int rc = dir ? nfs_rmdir(c->nfs, p) : nfs_unlink(c->nfs, p);
	return rc < 0 ? -rc : 0;
}
