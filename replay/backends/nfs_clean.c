/*
 * The nfs backend's --cleanup hooks (rp_backend_ops.walk, .remove): the
 * client's directory (its mount root, the target itself for a client state
 * of dir "") listed depth first by READDIR(PLUS), and one entry removed, by
 * libnfs's synchronous calls on the client's context.  A directory is walked
 * into only when its listing says it is one (a symlink never is), so every
 * path is made of real directories beneath the root.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nfsc/libnfs-raw-nfs.h>

typedef struct walker {
	nfs_client *c;
	int (*fn)(void *arg, const rp_backend_entry *e);
	void *arg;
	char *errbuf;
	char path[PATH_MAX]; /* "/" then the entry's path relative to the root */
} walker;

/* One entry read from a listing, kept while the listing is walked. */
typedef struct dent {
	char *name;
	uint64_t id;
	bool dir;
} dent;

static void dents_free(dent *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* The entries of the directory at w->path (len bytes), read whole: 0, or an rp error. */
static int list(walker *w, size_t len, dent **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	struct nfsdir *d = NULL;
	if (nfs_opendir(w->c->nfs, len ? w->path : "/", &d) < 0)
		return rp_fail(w->errbuf, RP_E_IO, "%s: cleanup: cannot list %s: %s", w->c->nb->url, len ? w->path : "/",
			       nfs_get_error(w->c->nfs));
	dent *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (struct nfsdirent *e; rc == 0 && (e = nfs_readdir(w->c->nfs, d));) {
		if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0 || strchr(e->name, '/') || !e->name[0])
			continue;
		if (n == cap) {
			const size_t nc = cap ? cap * 2 : 32;
			dent *const nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				rc = RP_E_NOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		if (!(v[n].name = strdup(e->name))) {
			rc = RP_E_NOMEM;
			break;
		}
		/* libnfs 4.0's NFSv4 listing leaves inode (and type) unset, not 0: malloc's bytes (ASan's fill made
		 * every entry one id, all "of before").  There the entry's lstat (walk_dir) says both. */
		const bool v4 = w->c->nb->version == 4;
		v[n].id = v4 ? 0 : e->inode;
		v[n].dir = !v4 && e->type == NF3DIR;
		n++;
	}
	nfs_closedir(w->c->nfs, d);
	if (rc) {
		dents_free(v, n);
		return rp_fail(w->errbuf, rc, "out of memory");
	}
	*out = v;
	*n_out = n;
	return 0;
}

static int walk_dir(walker *w, size_t len, unsigned depth)
{
	dent *v;
	size_t n;
	int rc = list(w, len, &v, &n);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const size_t nlen = strlen(v[i].name);
		if (len + 1 + nlen >= sizeof(w->path))
			continue; /* too long to name: left alone */
		w->path[len] = '/';
		memcpy(w->path + len + 1, v[i].name, nlen + 1);
		/* libnfs 4.0's NFSv4 listing has no fileid: the entry's own attributes have (an lstat: no link followed). */
		struct nfs_stat_64 st;
		if (!v[i].id && nfs_lstat64(w->c->nfs, w->path, &st) == 0) {
			v[i].id = st.nfs_ino;
			v[i].dir = S_ISDIR(st.nfs_mode);
		}
		if (v[i].dir && depth + 1 < RP_BACKEND_WALK_DEPTH)
			rc = walk_dir(w, len + 1 + nlen, depth + 1);
		if (rc == 0) {
			w->path[len + 1 + nlen] = '\0';
			const rp_backend_entry e = { .path = w->path + 1, .id = v[i].id, .dir = v[i].dir };
			rc = w->fn(w->arg, &e);
		}
		w->path[len] = '\0';
	}
	dents_free(v, n);
	return rc;
}

int rp__nfs_walk(nfs_client *c, int (*fn)(void *arg, const rp_backend_entry *e), void *arg, char *errbuf)
{
	walker *const w = malloc(sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	*w = (walker){ .c = c, .fn = fn, .arg = arg, .errbuf = errbuf };
	w->path[0] = '\0';
	const int rc = walk_dir(w, 0, 0);
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
