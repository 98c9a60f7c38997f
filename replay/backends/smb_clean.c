/*
 * The smb backend's --cleanup walk and removal (rp_backend_ops.walk, .remove)
 * beneath the connection's base, under smbc_mu (smb.c takes it).  A listing
 * gives each entry's FileId (its identity) and attributes; a directory is
 * walked into only when its own listing's "." is that FileId and its ".." the
 * FileId of the directory it is in: one the server reaches through a symlink
 * it follows is not (smb_beneath.c's check), and is left alone, no identity.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/backends/smb_int.h"

/* FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_REPARSE_POINT (MS-FSCC 2.6). */
#define ATTR_DIR 0x10u
#define ATTR_REPARSE 0x400u

typedef struct walker {
	smb_conn *cn;
	int (*fn)(void *arg, const rp_backend_entry *e);
	void *arg;
	char *errbuf;
	char path[RP_SMB_URL_MAX]; /* the entry's path relative to the base */
} walker;

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

/* The entries of the directory at w->path, read whole, and its "." and ".." FileIds: 0, an errno, or RP_E_NOMEM. */
static int list(walker *w, dent **out, size_t *n_out, uint64_t *self, uint64_t *up)
{
	*out = NULL;
	*n_out = 0;
	*self = *up = 0;
	int rc = rp__smb_url(w->cn, w->cn->url, w->path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = w->cn->ctx;
	errno = 0;
	SMBCFILE *const d = smbc_getFunctionOpendir(ctx)(ctx, w->cn->url);
	if (!d)
		return rp__smb_failed(w->cn);
	dent *v = NULL;
	size_t n = 0, cap = 0;
	struct stat st;
	for (const struct libsmb_file_info *e; rc == 0 && (e = smbc_getFunctionReaddirPlus2(ctx)(ctx, d, &st));) {
		if (strcmp(e->name, ".") == 0) {
			*self = (uint64_t)st.st_ino;
			continue;
		}
		if (strcmp(e->name, "..") == 0) {
			*up = (uint64_t)st.st_ino;
			continue;
		}
		if (!e->name[0] || strchr(e->name, '/') || strchr(e->name, '\\'))
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
		v[n].id = (uint64_t)st.st_ino;
		v[n].dir = (e->attrs & ATTR_DIR) && !(e->attrs & ATTR_REPARSE);
		n++;
	}
	smbc_getFunctionClosedir(ctx)(ctx, d);
	if (rc) {
		dents_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

/* Walk the directory at w->path (len bytes), whose FileId is id (0: the base, not checked). */
static int walk_dir(walker *w, size_t len, uint64_t id, uint64_t parent, unsigned depth, bool *sound)
{
	dent *v;
	size_t n;
	uint64_t self, up;
	int rc = list(w, &v, &n, &self, &up);
	if (rc == RP_E_NOMEM)
		return rp_fail(w->errbuf, rc, "out of memory");
	if (rc)
		return rp_fail(w->errbuf, RP_E_IO, "%s: cleanup: cannot list %s: %s", w->cn->sb->t.base, len ? w->path : "/",
			       strerror(rc));
	/* Reached through a symlink the server follows (its "." or ".." is not the walk's): nothing in it is walked. */
	*sound = !id || (self == id && up == parent);
	for (size_t i = 0; *sound && rc == 0 && i < n; i++) {
		const size_t nlen = strlen(v[i].name);
		if (len + 1 + nlen >= sizeof(w->path))
			continue; /* too long to name: left alone */
		const size_t at = len ? len + 1 : 0;
		if (len)
			w->path[len] = '/';
		memcpy(w->path + at, v[i].name, nlen + 1);
		bool ok = true;
		if (v[i].dir && depth + 1 < RP_BACKEND_WALK_DEPTH)
			rc = walk_dir(w, at + nlen, v[i].id, self, depth + 1, &ok);
		if (rc == 0) {
			w->path[at + nlen] = '\0';
			const rp_backend_entry e = { .path = w->path, .id = ok ? v[i].id : 0, .dir = v[i].dir };
			rc = w->fn(w->arg, &e);
		}
		w->path[len] = '\0';
	}
	dents_free(v, n);
	return rc;
}

int rp__smb_walk(smb_conn *cn, int (*fn)(void *arg, const rp_backend_entry *e), void *arg, char *errbuf)
{
	walker *const w = malloc(sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	*w = (walker){ .cn = cn, .fn = fn, .arg = arg, .errbuf = errbuf };
	w->path[0] = '\0';
	bool sound;
	const int rc = walk_dir(w, 0, 0, 0, 0, &sound);
	free(w);
	return rc;
}

int rp__smb_unlink_path(smb_conn *cn, const char *path, bool dir)
{
	const int rc = rp__smb_url(cn, cn->url, path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	errno = 0;
	const int r = dir ? smbc_getFunctionRmdir(ctx)(ctx, cn->url) : smbc_getFunctionUnlink(ctx)(ctx, cn->url);
	return r < 0 ? rp__smb_failed(cn) : 0;
}
