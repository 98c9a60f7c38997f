/*
 * The smb backend's --cleanup walk and removal (rp_backend_ops.walk, .remove)
 * beneath the connection's base, under smbc_mu (smb.c takes it).  A listing
 * gives each entry's FileId (its identity) and attributes; a directory is
 * walked into only when its own listing's "." is that FileId and its ".." the
 * FileId of the directory it is in: one the server reaches through a symlink
 * it follows is not (smb_beneath.c's check), and is left alone, no identity
 * (treewalk.c's check_dots; the recursion is treewalk.c's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/backends/smb_int.h"
#include "replay/backends/treewalk.h"

/* FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_REPARSE_POINT (MS-FSCC 2.6). */
#define ATTR_DIR 0x10u
#define ATTR_REPARSE 0x400u

/* The entries of the directory at path, read whole, and its "." and ".." FileIds: 0, an errno, or rp__tw_add's error. */
static int read_dir(smb_conn *cn, const char *path, rp__tw_list *l)
{
	int rc = rp__smb_url(cn, cn->url, path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	errno = 0;
	SMBCFILE *const d = smbc_getFunctionOpendir(ctx)(ctx, cn->url);
	if (!d)
		return rp__smb_failed(cn);
	struct stat st;
	for (const struct libsmb_file_info *e; rc == 0 && (e = smbc_getFunctionReaddirPlus2(ctx)(ctx, d, &st));) {
		if (strcmp(e->name, ".") == 0)
			l->self = (uint64_t)st.st_ino;
		else if (strcmp(e->name, "..") == 0)
			l->up = (uint64_t)st.st_ino;
		else if (!strchr(e->name, '\\'))
			rc = rp__tw_add(l, e->name, (uint64_t)st.st_ino, (e->attrs & ATTR_DIR) && !(e->attrs & ATTR_REPARSE));
	}
	smbc_getFunctionClosedir(ctx)(ctx, d);
	return rc;
}

static int list(void *ctx, const char *path, rp__tw_list *l, char *errbuf)
{
	smb_conn *const cn = ctx;
	const int rc = read_dir(cn, path, l);
	if (rc < 0)
		return rp__tw_fail(errbuf, rc, cn->sb->t.base, path, l);
	if (rc)
		return rp_fail(errbuf, RP_E_IO, "%s: cleanup: cannot list %s: %s", cn->sb->t.base, path[0] ? path : "/",
			       strerror(rc));
	return 0;
}

/* Reached through a symlink the server follows (its "." or ".." is not the walk's): nothing in it is walked. */
static const rp__tw_ops walk_ops = { .list = list, .check_dots = true, .path_max = RP_SMB_URL_MAX };

int rp__smb_walk(smb_conn *cn, int (*fn)(void *arg, const rp_backend_entry *e), void *arg, char *errbuf)
{
	return rp__tw_walk(&walk_ops, cn, fn, arg, errbuf);
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
