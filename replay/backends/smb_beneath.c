/* smb backend: the target found by its first op; no walk through a symlink the server follows (MS-SMB2 2.2.32). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/hash.h"
#include "replay/backends/smb_int.h"

/*
 * With Samba's default "follow symlinks = yes" (and "wide links = no") a
 * symlink on the share that resolves inside the share is followed, and
 * nothing the server says of it shows it: its attributes are the target's
 * (0x10, or 0x80 for a file, no FILE_ATTRIBUTE_REPARSE_POINT), so is its
 * FileId (the target's inode), in a stat as in its parent's listing; Samba
 * 4.17 speaks no SMB3 POSIX extensions to libsmbclient.  What does show it
 * is the ".." entry of a listing of the directory reached through the name:
 * the server lists the target's parent, whose FileId is not the one of the
 * directory walked from.  So every directory a trace path goes through is
 * listed once: its ".." must be the FileId of the directory before it (the
 * client's directory for the first), else the op is refused as an escape.
 * A symlink to a file, as the last component, cannot be told from the file
 * (docs/replay.md says what the server's policy then allows).
 */

/* Verdicts kept per connection; past this many the table starts again (each directory is checked once more). */
#define DIRS_MAX 65536u
#define DIRS_BUCKETS 1024u

typedef struct dir_ent {
	struct dir_ent *next;
	uint64_t id; /* the server's FileId of the directory */
	bool made;   /* made by this connection's mkdir (no symlink): its FileId not asked yet (id 0) */
	char path[]; /* relative to the connection's base; "" is the base */
} dir_ent;

struct smb_dirs {
	dir_ent *b[DIRS_BUCKETS];
	unsigned n;
};

static unsigned hash(const char *s, size_t n)
{
	return (unsigned)(rp_fnv1a64(RP_FNV64_OFFSET, s, n) % DIRS_BUCKETS);
}

static void dirs_clear(struct smb_dirs *d)
{
	for (unsigned i = 0; i < DIRS_BUCKETS; i++) {
		for (dir_ent *e = d->b[i], *next; e; e = next) {
			next = e->next;
			free(e);
		}
		d->b[i] = NULL;
	}
	d->n = 0;
}

void rp__smb_beneath_free(smb_conn *cn)
{
	if (!cn->dirs)
		return;
	dirs_clear(cn->dirs);
	free(cn->dirs);
	cn->dirs = NULL;
}

static const dir_ent *dirs_get(const struct smb_dirs *d, const char *path, size_t n)
{
	for (const dir_ent *e = d->b[hash(path, n)]; e; e = e->next)
		if (strlen(e->path) == n && memcmp(e->path, path, n) == 0)
			return e;
	return NULL;
}

static void dirs_put(struct smb_dirs *d, const char *path, size_t n, uint64_t id, bool made)
{
	if (d->n >= DIRS_MAX)
		dirs_clear(d);
	dir_ent *const e = malloc(sizeof(*e) + n + 1);
	if (!e)
		return; /* not kept: checked again next time */
	e->id = id;
	e->made = made;
	memcpy(e->path, path, n);
	e->path[n] = '\0';
	const unsigned h = hash(path, n);
	e->next = d->b[h];
	d->b[h] = e;
	d->n++;
}

void rp__smb_beneath_forget(smb_conn *cn, const char *path)
{
	if (!cn->dirs || !path)
		return;
	const size_t n = strlen(path);
	for (unsigned i = 0; i < DIRS_BUCKETS; i++) {
		for (dir_ent **pe = &cn->dirs->b[i]; *pe;) {
			dir_ent *const e = *pe;
			if (strncmp(e->path, path, n) == 0 && (e->path[n] == '\0' || e->path[n] == '/')) {
				*pe = e->next;
				free(e);
				cn->dirs->n--;
			} else {
				pe = &e->next;
			}
		}
	}
}

int rp__smb_dir_ids(smb_conn *cn, const char *url, uint64_t *self, uint64_t *parent)
{
	SMBCCTX *const ctx = cn->ctx;
	errno = 0;
	SMBCFILE *const d = smbc_getFunctionOpendir(ctx)(ctx, url);
	if (!d)
		return rp__smb_failed(cn);
	bool has_self = false, has_parent = false;
	struct stat st;
	for (const struct libsmb_file_info *e; !(has_self && has_parent) && (e = smbc_getFunctionReaddirPlus2(ctx)(ctx, d, &st));) {
		if (strcmp(e->name, ".") == 0) {
			*self = (uint64_t)st.st_ino;
			has_self = true;
		} else if (strcmp(e->name, "..") == 0) {
			*parent = (uint64_t)st.st_ino;
			has_parent = true;
		}
	}
	smbc_getFunctionClosedir(ctx)(ctx, d);
	/* A server that lists no "." or ".." cannot be checked this way: nothing is walked through it. */
	return has_self && has_parent ? 0 : EXDEV;
}

/* The URL of path[0..n) in cn->url2. */
static int url_of(smb_conn *cn, const char *path, size_t n)
{
	char *const rel = malloc(n + 1);
	if (!rel)
		return ENOMEM;
	memcpy(rel, path, n);
	rel[n] = '\0';
	const int rc = rp__smb_url(cn, cn->url2, rel);
	free(rel);
	return rc;
}

/*
 * The FileId of a directory this connection made (dir_ent.made), asked when
 * a directory in it is first checked: a listing of it, counted as the
 * symlink check's (what it is a listing for).  It is no symlink: the
 * server's CREATE that made it made a directory.
 */
static int made_id(smb_conn *cn, dir_ent *e)
{
	const size_t n = strlen(e->path);
	int rc = url_of(cn, e->path, n);
	if (rc)
		return rc;
	uint64_t self = 0, up = 0;
	rp__smb_extra(cn, RP_SMB_FB_SYMLINK);
	if ((rc = rp__smb_dir_ids(cn, cn->url2, &self, &up)))
		return rc;
	e->id = self;
	e->made = false;
	return 0;
}

/* The FileId of the directory path[0..n) (n == 0: the base), checked; 0, EXDEV, ENOENT/ENOTDIR (not there) or an errno. */
static int dir_check(smb_conn *cn, const char *path, size_t n, size_t parent_n, uint64_t parent_id, uint64_t *id)
{
	dir_ent *const e = (dir_ent *)dirs_get(cn->dirs, path, n);
	if (e) {
		*id = e->id;
		return 0;
	}
	dir_ent *const pe = n ? (dir_ent *)dirs_get(cn->dirs, path, parent_n) : NULL;
	if (pe && pe->made) {
		const int rc = made_id(cn, pe);
		if (rc)
			return rc;
		parent_id = pe->id;
	}
	int rc = url_of(cn, path, n);
	if (rc)
		return rc;
	uint64_t self = 0, up = 0;
	rp__smb_extra(cn, RP_SMB_FB_SYMLINK);
	if (n == 0) {
		/* The base: the user named it, its own FileId is what its children's ".." must be. */
		struct stat st;
		if (smbc_getFunctionStat(cn->ctx)(cn->ctx, cn->url2, &st) < 0)
			return rp__smb_failed(cn);
		self = (uint64_t)st.st_ino;
	} else {
		rc = rp__smb_dir_ids(cn, cn->url2, &self, &up);
		if (rc)
			return rc;
		if (up != parent_id)
			return EXDEV;
	}
	dirs_put(cn->dirs, path, n, self, false);
	*id = self;
	return 0;
}

int rp__smb_beneath(smb_conn *cn, const char *path, bool last)
{
	if (!cn->dirs && !(cn->dirs = calloc(1, sizeof(*cn->dirs))))
		return ENOMEM;
	uint64_t id = 0;
	int rc = 0;
	for (size_t i = 0, up = 0; rc == 0 && path[i];) {
		while (path[i] == '/')
			i++;
		const size_t end = i + strcspn(path + i, "/");
		if (end == i)
			break;
		if (!path[end] && !last)
			break;
		/* The base's own FileId only when a directory in it is listed: a path through none asks nothing. */
		if (up == 0 && !dirs_get(cn->dirs, path, end) && (rc = dir_check(cn, "", 0, 0, 0, &id)))
			break;
		rc = dir_check(cn, path, end, up, id, &id);
		up = i = end;
	}
	/* Nothing there (or a file) further on: nothing to walk through; the op meets the server's own status. */
	return rc == ENOENT || rc == ENOTDIR ? 0 : rc;
}

void rp__smb_beneath_seed(smb_conn *cn, uint64_t base_id)
{
	if (!cn->dirs && !(cn->dirs = calloc(1, sizeof(*cn->dirs))))
		return; /* not kept: checked by the first op */
	if (!dirs_get(cn->dirs, "", 0))
		dirs_put(cn->dirs, "", 0, base_id, false);
}

/*
 * The target's directory, which the connect did not check (smb_client_init):
 * the connection's first op the server answers says it is there, every path
 * being beneath it; a lazy open that sent nothing says nothing.  A failure
 * before any success is asked of the target itself (a stat, counted): one
 * that is not there, or no directory, is the client's error (rp__smb_conn_bad,
 * the backend's client_error: the run stops with it before the next op), not
 * every op's status.  The stat also gives the symlink check the target's FileId.
 */
void rp__smb_conn_check(smb_conn *cn, const rp_breq *req, int err)
{
	if (cn->checked || cn->lost)
		return;
	if (err == 0) {
		const smb_file *const f = req->op->op == RP_OP_OPEN ? (const smb_file *)(uintptr_t)req->bh : NULL;
		cn->checked = !(f && f->lazy && !f->used);
		return;
	}
	struct stat st;
	rp__smb_extra(cn, RP_SMB_FB_CHECK);
	errno = 0;
	if (smbc_getFunctionStat(cn->ctx)(cn->ctx, cn->base, &st) < 0) {
		const int bad = rp__smb_failed(cn);
		if (!cn->lost)
			atomic_store(&cn->bad, bad);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		atomic_store(&cn->bad, ENOTDIR);
		return;
	}
	cn->checked = true;
	rp__smb_beneath_seed(cn, (uint64_t)st.st_ino);
}

bool rp__smb_beneath_known(smb_conn *cn, const char *path)
{
	size_t n = strlen(path);
	while (n && path[n - 1] == '/')
		n--;
	return cn->dirs && dirs_get(cn->dirs, path, n) != NULL;
}

int rp__smb_beneath_listed(smb_conn *cn, const char *path, bool has_ids, uint64_t self, uint64_t parent)
{
	size_t n = strlen(path);
	while (n && path[n - 1] == '/')
		n--;
	size_t k = n;
	while (k && path[k - 1] != '/')
		k--;
	if (k)
		k--; /* the parent's key ends before its '/': "/a/b" -> "/a", "/a" -> "" (the base) */
	dir_ent *up = n && cn->dirs ? (dir_ent *)dirs_get(cn->dirs, path, k) : NULL;
	if (!up && n && k == 0) {
		/* A directory in the base: the base's FileId (a stat, once) is all its listing's ".." is checked against. */
		uint64_t base_id = 0;
		if (!cn->dirs && !(cn->dirs = calloc(1, sizeof(*cn->dirs))))
			return ENOMEM;
		const int rc = dir_check(cn, "", 0, 0, 0, &base_id);
		if (rc)
			return rc;
		up = (dir_ent *)dirs_get(cn->dirs, path, 0);
	}
	if (!up)
		return rp__smb_beneath(cn, path, true); /* the parent unchecked (or path is the base): a check of its own */
	if (dirs_get(cn->dirs, path, n))
		return 0;
	if (up->made) {
		const int rc = made_id(cn, up);
		if (rc)
			return rc;
	}
	/* A server that lists no "." or "..", or a ".." that is not the parent walked from: a symlink followed. */
	if (!has_ids || parent != up->id)
		return EXDEV;
	dirs_put(cn->dirs, path, n, self, false);
	return 0;
}

void rp__smb_beneath_made(smb_conn *cn, const char *path)
{
	size_t n = strlen(path);
	while (n && path[n - 1] == '/')
		n--;
	size_t k = n;
	while (k && path[k - 1] != '/')
		k--;
	if (k)
		k--;
	/*
	 * Beneath a directory checked (the mkdir's walk checked its parents), or
	 * the base itself (the user's, never checked): the new one needs no listing.
	 */
	if (!n || (k && (!cn->dirs || !dirs_get(cn->dirs, path, k))))
		return;
	if (!cn->dirs && !(cn->dirs = calloc(1, sizeof(*cn->dirs))))
		return; /* not kept: checked when a path goes through it */
	rp__smb_beneath_forget(cn, path);
	dirs_put(cn->dirs, path, n, 0, true);
}
