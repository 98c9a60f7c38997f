/* The smb backend's per-connection helpers below its op code (smb.c, smb_names.c, smb_beneath.c): URLs beneath the connection's base, a failed call's status and the lost server. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/statvfs.h>

#include "replay/backends/smb_int.h"

/* The URL of path beneath the connection's base, in buf; 0 or ENAMETOOLONG. */
int rp__smb_url(const smb_conn *cn, char *buf, const char *path)
{
	memcpy(buf, cn->base, cn->base_len + 1);
	return rp__smb_url_join(buf, RP_SMB_URL_MAX, cn->base_len, path ? path : "") < 0 ? ENAMETOOLONG : 0;
}

/*
 * One connection lost: the run stops (the engine stops every client on a lost
 * client state), so every other connection to the server is cut too, under
 * smbc_mu: their next request, each teardown CLOSE, TREE_DISCONNECT and
 * LOGOFF fail at once instead of each waiting out the timeout in turn (a
 * stopped smbd held an 8-client run for minutes).  Their ops fail with err.
 */
static void server_gone(smb_backend *sb, int err)
{
	int none = 0;
	if (!atomic_compare_exchange_strong(&sb->gone, &none, err))
		return;
	pthread_mutex_lock(&sb->peers_mu);
	rp__smb_peers_cut(&sb->peers);
	pthread_mutex_unlock(&sb->peers_mu);
}

/* A failed call's errno as the op's status; a connection that went marks the connection lost. */
int rp__smb_failed(smb_conn *cn)
{
	const int err = errno ? errno : EIO;
	if (rp__smb_conn_lost(err) && !cn->lost) {
		cn->lost = err;
		server_gone(cn->sb, err);
	}
	return err;
}

void rp__smb_extra(smb_conn *cn, rp_smb_fb reason)
{
	atomic_fetch_add_explicit(&cn->sb->fb[reason], 1u, memory_order_relaxed);
	cn->extra = true;
}

void rp__smb_by_handle(smb_conn *cn, smb_file *f)
{
	if (!f || !f->lazy)
		return;
	if (f->used)
		rp__smb_extra(cn, RP_SMB_FB_AGAIN);
	f->used = true;
}

/* What a failed connect or check of the target likely means. */
const char *rp__smb_conn_hint(const smb_backend *sb, int err)
{
	return (err == EACCES || err == EPERM) && sb->creds.has_user
		       ? " (wrong user or password; or a user the server does not know, for which it"
			 " offers a guest session: with a user given, a guest session is refused)"
	       : err == EACCES || err == EPERM ? " (no guest access?)"
	       : err == ENOENT || err == ENODEV ? " (no such share or directory on the server?)"
	       : err == ECONNREFUSED ? " (no SMB server on that port?)"
				     : "";
}

int rp__smb_conn_bad(smb_conn *cn, char *errbuf)
{
	const int bad = atomic_load(&cn->bad);
	return bad ? rp_fail(errbuf, RP_E_IO, "%s: %s%s", cn->base, strerror(bad), rp__smb_conn_hint(cn->sb, bad)) : 0;
}

static bool cn_has_fh(const smb_conn *cn)
{
	for (const smb_file *o = cn->files; o; o = o->next)
		if (o->fh)
			return true;
	return false;
}

/*
 * A statfs (of the handle f's file system, NULL: the client directory's):
 * libsmbclient asks the share root's size and attributes, each a CREATE,
 * QUERY_INFO and CLOSE of its own, through any file it has open; by name,
 * a stat and a listing of the path come first.  A lazy handle's statfs is
 * its first op: a file is opened for it (read-only: one it may not read
 * is confirmed at its close instead), a directory listed when the
 * connection has nothing open (the listing kept for the next statfs: 4
 * requests once where a stat at the close costs 3 each time).  Otherwise
 * the kept listing or any open file serves, a listing of the client
 * directory made once if none.  Counted: RP_SMB_FB_STATFS.
 */
int rp__smb_statfs(smb_conn *cn, smb_file *f)
{
	SMBCCTX *const ctx = cn->ctx;
	struct statvfs sv;
	rp__smb_extra(cn, RP_SMB_FB_STATFS);
	const bool kept = cn->vfs_dir || (f && f->fh) || cn_has_fh(cn);
	/* The base itself: the connection's check found it, and fstatvfs's own CREATEs are of the share root. */
	if (f && f->lazy && !f->used && f->path[strspn(f->path, "/")] == '\0' && kept)
		f->used = true;
	SMBCFILE *fh = NULL;
	if (f && f->lazy && !f->used && !f->fh && (!f->dir || !kept)) {
		/*
		 * The handle's first op, which says it is there (no stat at its
		 * close): a file's open (CREATE and CLOSE, the recorded ones), else
		 * a directory's listing (libsmbclient opens no directory otherwise:
		 * two requests more), kept for the connection's next statfs.
		 */
		const int rc = rp__smb_url(cn, cn->url, f->path);
		if (rc)
			return rc;
		errno = 0;
		fh = f->dir ? smbc_getFunctionOpendir(ctx)(ctx, cn->url)
		       : smbc_getFunctionOpen(ctx)(ctx, cn->url, O_RDONLY, 0);
		if (!fh && (f->dir || errno != EACCES))
			return rp__smb_failed(cn);
	}
	if (fh) {
		f->used = true;
		int rc = smbc_getFunctionFstatVFS(ctx)(ctx, fh, &sv) < 0 ? rp__smb_failed(cn) : 0;
		if (f->dir)
			cn->vfs_dir = fh;
		else if (smbc_getFunctionClose(ctx)(ctx, fh) < 0 && rc == 0)
			rc = rp__smb_failed(cn);
		return rc;
	}
	const smb_file *any = f && f->fh ? f : cn->files;
	while (any && !any->fh)
		any = any->next;
	fh = any ? any->fh : cn->vfs_dir;
	if (!fh) {
		errno = 0;
		if (!(fh = cn->vfs_dir = smbc_getFunctionOpendir(ctx)(ctx, cn->base)))
			return rp__smb_failed(cn);
	}
	return smbc_getFunctionFstatVFS(ctx)(ctx, fh, &sv) < 0 ? rp__smb_failed(cn) : 0;
}

static const char *const fb_names[RP_SMB_FB__COUNT] = {
	[RP_SMB_FB_CONFIRM] = "open no op used, confirmed by a stat",
	[RP_SMB_FB_AGAIN] = "handle op by name again (a CREATE and CLOSE)",
	[RP_SMB_FB_NOREPLACE] = "no-replace rename recorded failing, asked first",
	[RP_SMB_FB_SHARE] = "rename or delete of a name held open, retried",
	[RP_SMB_FB_SYMLINK] = "directory listed for the symlink check",
	[RP_SMB_FB_STATFS] = "statfs as libsmbclient's share-root queries",
	[RP_SMB_FB_TIMES] = "setattr of one time, the other read first",
	[RP_SMB_FB_WRONLY] = "query of a write-only handle, by name",
	[RP_SMB_FB_DOC] = "delete-on-close of a handle with data, by name",
	[RP_SMB_FB_RETRY_RO] = "open of unrecorded access retried read-only",
	[RP_SMB_FB_CHECK] = "target checked after a first op failed",
};

/* What went in the recorded requests, and what cost more, by reason (docs/replay.md, "SMB backend"). */
void rp__smb_report(void *backend, rp_backend_report *out)
{
	smb_backend *const sb = backend;
	out->mode = "libsmbclient";
	out->protocol_ops = atomic_load(&sb->as_recorded);
	for (unsigned i = 0; i < RP_SMB_FB__COUNT && out->n_fallbacks < RP_BACKEND_REPORT_MAX; i++) {
		const uint64_t n = atomic_load(&sb->fb[i]);
		if (!n)
			continue;
		out->fallbacks[out->n_fallbacks].reason = fb_names[i];
		out->fallbacks[out->n_fallbacks].count = n;
		out->n_fallbacks++;
	}
}

