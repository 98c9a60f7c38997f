/* The smb backend: trace ops through libsmbclient on a share of an SMB2/SMB3 server (MS-SMB2, MS-FSA). */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libsmbclient.h>

#include "replay/backend.h"
#include "replay/backends/smb_util.h"

/* One libsmbclient read or write call moves at most this much; it splits it into the server's maximum sizes. */
#define IO_CHUNK (1u << 20)
/* A directory tree deeper than this (deltree) is treated as an attack on the stack, not a workload. */
#define DELTREE_MAX_DEPTH 128

enum { S_OPT_USER, S_OPT_PASSWORD, S_OPT_DOMAIN, S_OPT_AUTHFILE, S_OPT_TIMEOUT, S_OPT__COUNT };

static const rp_backend_opt smb_opts[] = {
	[S_OPT_USER] = { .name = "user", .type = RP_BOPT_STRING, .arg = "USER",
			 .help = "log in as USER (replay --user; default: the auth file's, else guest)" },
	[S_OPT_PASSWORD] = { .name = "password", .type = RP_BOPT_STRING, .arg = "PASS",
			     .help = "USER's password (replay --user USER%PASS; else the auth file's, else $REPRISE_SMB_PASSWORD); never printed" },
	[S_OPT_DOMAIN] = { .name = "domain", .type = RP_BOPT_STRING, .arg = "DOMAIN",
			   .help = "the user's domain or workgroup (default: the auth file's, else the server's)" },
	[S_OPT_AUTHFILE] = { .name = "authfile", .type = RP_BOPT_STRING, .arg = "FILE",
			     .help = "credentials in smbclient's -A format: username =, password =, domain = lines (replay --authfile)" },
	[S_OPT_TIMEOUT] = { .name = "timeout", .type = RP_BOPT_DURATION, .def = "10s", .min = 100000000u,
			    .max = 600000000000u,
			    .help = "give up on a server that does not answer a request within this long (libsmbclient's timeout)" },
	[S_OPT__COUNT] = { .name = NULL },
};

static const char *const smb_schemes[] = { "smb", NULL };

typedef struct smb_backend {
	rp_smb_target t;
	rp_smb_creds creds; /* what the options, the auth file and the environment gave */
	int timeout_ms;
} smb_backend;

typedef struct smb_file smb_file;

/*
 * One connection: a libsmbclient context, which is one SMB session and tree
 * connect on the server.  The files a context opened (SMBCFILE) exist in it
 * alone, so a handle's calls go through its own connection whichever client
 * state submits them; files keep their connection alive (refs), since a
 * backend handle outlives the client state that made it when a forked client
 * inherits it.  Everything in it is used under smbc_mu.
 */
typedef struct smb_conn {
	_Atomic unsigned refs; /* the client state's, plus one per open file */
	SMBCCTX *ctx;
	const smb_backend *sb;
	char base[RP_SMB_URL_MAX]; /* smb://host/share[/dir]/clientdir, encoded */
	size_t base_len;
	char url[RP_SMB_URL_MAX], url2[RP_SMB_URL_MAX]; /* scratch, under smbc_mu */
	char *buf;                                      /* I/O buffer, under smbc_mu */
	size_t buf_size;
	smb_file *files; /* its open files, under smbc_mu (delete-on-close, renames) */
	int lost;        /* the errno that said the server is gone; every later op fails fast with it */
} smb_conn;

/* What a backend handle points at. */
struct smb_file {
	smb_conn *conn;
	SMBCFILE *fh;  /* NULL for a directory: libsmbclient holds no directory open (SMB2 CREATE of it is per call) */
	char *path;    /* relative to the connection's base, for the calls libsmbclient takes by name */
	bool dir;
	bool doc;      /* delete when the last of the client's handles to it closes (the server cannot be asked) */
	bool nt;       /* opened with NT semantics (rp_open_flag nt) */
	bool append;   /* O_APPEND: writes go to the end */
	bool parked;   /* closed on the server for a rename or delete of its name (park) */
	int acc;       /* the O_ACCMODE it was opened with, to open it again after a park */
	bool can_read; /* opened with read access (the server checks writes; reads of a write-only open are ours) */
	bool listed;   /* an enumeration of pattern has begun on it */
	char *pattern;
	smb_file *prev, *next;
};

typedef struct smb_client {
	smb_conn *conn;
} smb_client;

/*
 * Every libsmbclient call, on any context, holds this lock.  The library
 * keeps process-wide state beneath its contexts (its talloc stack frames,
 * its module setup, the loaded smb.conf) that is thread-local only when a
 * thread implementation is registered, and Debian's libsmbclient exports no
 * smbc_thread_posix() to register one: calls from two threads at once, even
 * on two contexts, would share that state.  It is the one mutable global of
 * the backend, forced by the library's; it also serialises positioned I/O
 * (an lseek, then a read) on a handle the window's workers share.
 */
static pthread_mutex_t smbc_mu = PTHREAD_MUTEX_INITIALIZER;

static int load_authfile(smb_backend *sb, const char *file, char *errbuf)
{
	FILE *const f = fopen(file, "re");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", file, strerror(errno));
	char *const buf = malloc(RP_SMB_AUTHFILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	const size_t n = fread(buf, 1, RP_SMB_AUTHFILE_MAX + 1, f);
	const int err = ferror(f) ? errno : 0;
	fclose(f);
	int rc = err ? rp_fail(errbuf, RP_E_IO, "%s: %s", file, strerror(err))
		     : rp__smb_authfile_parse(buf, n, file, &sb->creds, errbuf);
	explicit_bzero(buf, RP_SMB_AUTHFILE_MAX + 1);
	free(buf);
	return rc;
}

/* Credentials: the options given, else the auth file's, else the environment's password; guest without a user. */
static int load_creds(smb_backend *sb, const rp_backend_args *args, char *errbuf)
{
	if (args->vals[S_OPT_AUTHFILE].set) {
		const int rc = load_authfile(sb, args->vals[S_OPT_AUTHFILE].value, errbuf);
		if (rc < 0)
			return rc;
	}
	static const int opt[3] = { S_OPT_USER, S_OPT_PASSWORD, S_OPT_DOMAIN };
	char *const dst[3] = { sb->creds.user, sb->creds.password, sb->creds.domain };
	bool *const has[3] = { &sb->creds.has_user, &sb->creds.has_password, &sb->creds.has_domain };
	static const char *const what[3] = { "user name", "password", "domain" };
	for (int i = 0; i < 3; i++) {
		const rp_backend_kv *const v = &args->vals[opt[i]];
		if (!v->set)
			continue;
		if (strlen(v->value) > RP_SMB_CRED_MAX)
			return rp_fail(errbuf, RP_E_LIMIT, "smb: %s longer than %d bytes", what[i], RP_SMB_CRED_MAX);
		strcpy(dst[i], v->value);
		*has[i] = true;
	}
	const char *const env = getenv("REPRISE_SMB_PASSWORD");
	if (!sb->creds.has_password && env && sb->creds.has_user) {
		if (strlen(env) > RP_SMB_CRED_MAX)
			return rp_fail(errbuf, RP_E_LIMIT, "smb: REPRISE_SMB_PASSWORD longer than %d bytes", RP_SMB_CRED_MAX);
		strcpy(sb->creds.password, env);
		sb->creds.has_password = true;
	}
	if (sb->creds.has_password && !sb->creds.has_user)
		return rp_fail(errbuf, RP_E_INVAL, "smb: a password but no user (--user USER)");
	return 0;
}

static int smb_create(void **out, const rp_backend_args *args, char *errbuf)
{
	smb_backend *const sb = calloc(1, sizeof(*sb));
	if (!sb)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = rp__smb_target_parse(args->target, &sb->t, errbuf);
	if (rc == 0)
		rc = load_creds(sb, args, errbuf);
	if (rc < 0) {
		explicit_bzero(sb, sizeof(*sb));
		free(sb);
		return rc;
	}
	sb->timeout_ms = (int)(args->vals[S_OPT_TIMEOUT].u / 1000000u);
	*out = sb;
	return 0;
}

static void smb_destroy(void *backend)
{
	smb_backend *const sb = backend;
	if (!sb)
		return;
	explicit_bzero(&sb->creds, sizeof(sb->creds));
	free(sb);
}

static void auth_fn(SMBCCTX *ctx, const char *srv, const char *shr, char *wg, int wglen, char *un, int unlen, char *pw,
		    int pwlen)
{
	(void)srv, (void)shr;
	const smb_conn *const cn = smbc_getOptionUserData(ctx);
	const rp_smb_creds *const c = &cn->sb->creds;
	if (c->has_domain && wglen > 0)
		snprintf(wg, (size_t)wglen, "%s", c->domain);
	/* No user: guest (a server that maps unknown users to guest, or takes anonymous logins). */
	if (unlen > 0)
		snprintf(un, (size_t)unlen, "%s", c->has_user ? c->user : "guest");
	if (pwlen > 0)
		snprintf(pw, (size_t)pwlen, "%s", c->has_password ? c->password : "");
}

static void conn_put(smb_conn *cn)
{
	if (!cn || atomic_fetch_sub(&cn->refs, 1) != 1)
		return;
	if (cn->ctx) {
		pthread_mutex_lock(&smbc_mu);
		smbc_free_context(cn->ctx, 1);
		pthread_mutex_unlock(&smbc_mu);
	}
	free(cn->buf);
	free(cn);
}

/* The URL of path beneath the connection's base, in buf; 0 or ENAMETOOLONG. */
static int url_of(const smb_conn *cn, char *buf, const char *path)
{
	memcpy(buf, cn->base, cn->base_len + 1);
	return rp__smb_url_join(buf, RP_SMB_URL_MAX, cn->base_len, path ? path : "") < 0 ? ENAMETOOLONG : 0;
}

/* A failed call's errno as the op's status; a connection that went marks the connection lost. */
static int failed(smb_conn *cn)
{
	const int err = errno ? errno : EIO;
	if (rp__smb_conn_lost(err) && !cn->lost)
		cn->lost = err;
	return err;
}

static int smb_client_init(void *backend, void *client, const char *dir, char *errbuf)
{
	smb_backend *const sb = backend;
	smb_client *const c = client;
	smb_conn *const cn = calloc(1, sizeof(*cn));
	if (!cn)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	atomic_init(&cn->refs, 1);
	cn->sb = sb;
	memcpy(cn->base, sb->t.base, sb->t.base_len + 1);
	const int n = rp__smb_url_join(cn->base, sizeof(cn->base), sb->t.base_len, dir);
	if (n < 0) {
		conn_put(cn);
		return rp_fail(errbuf, RP_E_LIMIT, "%s/%s: URL too long", sb->t.base, dir);
	}
	cn->base_len = (size_t)n;
	pthread_mutex_lock(&smbc_mu);
	SMBCCTX *const ctx = smbc_new_context();
	if (ctx) {
		smbc_setOptionUserData(ctx, cn);
		smbc_setFunctionAuthDataWithContext(ctx, auth_fn);
		smbc_setOptionUseKerberos(ctx, 0);
		smbc_setOptionFallbackAfterKerberos(ctx, 1);
		/* Ours only: never the credentials of a ticket cache or the login user's. */
		smbc_setOptionUseCCache(ctx, 0);
		smbc_setOptionProtocols(ctx, "SMB2_02", "SMB3");
		smbc_setTimeout(ctx, sb->timeout_ms);
		/* A wrong password is an error, not a silent fall back to an anonymous session. */
		smbc_setOptionNoAutoAnonymousLogin(ctx, sb->creds.has_user);
		smbc_setOptionCaseSensitive(ctx, 0);
	}
	const bool ok = ctx && smbc_init_context(ctx);
	const int init_err = errno;
	if (!ok) {
		if (ctx)
			smbc_free_context(ctx, 0);
		pthread_mutex_unlock(&smbc_mu);
		conn_put(cn);
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: cannot set up libsmbclient: %s", sb->t.base, strerror(init_err));
	}
	cn->ctx = ctx;
	/*
	 * Connect now (a stat of the share), so a refused connection, a wrong
	 * password or an unknown share is the run's error, not every op's
	 * status; then make the client's directory, as every backend does.
	 */
	struct stat st;
	errno = 0;
	if (smbc_getFunctionStat(ctx)(ctx, sb->t.base, &st) < 0) {
		const int err = errno ? errno : EIO;
		pthread_mutex_unlock(&smbc_mu);
		conn_put(cn);
		const char *const hint = err == EACCES || err == EPERM ? " (wrong user or password, or no guest access?)"
					 : err == ENOENT || err == ENODEV ? " (no such share or directory on the server?)"
					 : err == ECONNREFUSED ? " (no SMB server on that port?)"
					 : "";
		return rp_fail(errbuf, RP_E_IO, "%s: %s%s", sb->t.base, strerror(err), hint);
	}
	if (dir[0] && smbc_getFunctionMkdir(ctx)(ctx, cn->base, 0777) < 0 && errno != EEXIST) {
		const int err = errno;
		pthread_mutex_unlock(&smbc_mu);
		conn_put(cn);
		return rp_fail(errbuf, RP_E_IO, "%s/%s: mkdir: %s", sb->t.base, dir, strerror(err));
	}
	pthread_mutex_unlock(&smbc_mu);
	c->conn = cn;
	return 0;
}

static int buf_room(smb_conn *cn, size_t n)
{
	if (cn->buf_size >= n)
		return 0;
	char *const b = realloc(cn->buf, n);
	if (!b)
		return ENOMEM;
	/* Written data is a fixed pattern, not whatever was read last. */
	memset(b + cn->buf_size, 0x5a, n - cn->buf_size);
	cn->buf = b;
	cn->buf_size = n;
	return 0;
}

/* ---- Files ------------------------------------------------------------------------------- */

static void file_free(smb_file *f)
{
	free(f->path);
	free(f->pattern);
	free(f);
}

/* Remove what path names (a file, else a directory): delete-on-close's act, and deltree's. */
static int remove_path(smb_conn *cn, const char *path)
{
	int rc = url_of(cn, cn->url, path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	if (smbc_getFunctionUnlink(ctx)(ctx, cn->url) == 0)
		return 0;
	rc = failed(cn);
	if (rc == EISDIR || rc == EPERM || rc == EACCES)
		rc = smbc_getFunctionRmdir(ctx)(ctx, cn->url) < 0 ? failed(cn) : 0;
	return rc == ENOENT ? 0 : rc;
}

/*
 * Close f (under its connection's lock).  Delete-on-close cannot be asked of
 * the server through libsmbclient (its open takes POSIX flags only), so the
 * backend keeps the flag and acts on it: at the last close of the
 * connection's handles to the path the object is removed by name, as the
 * server would at its last close.  Another handle still open takes the flag
 * over.
 */
static int file_close(smb_conn *cn, smb_file *f)
{
	SMBCCTX *const ctx = cn->ctx;
	int rc = cn->lost;
	/* A lost connection's files are gone with it: only the backend's record of them goes. */
	if (!cn->lost && f->fh && smbc_getFunctionClose(ctx)(ctx, f->fh) < 0)
		rc = failed(cn);
	if (f->prev)
		f->prev->next = f->next;
	else
		cn->files = f->next;
	if (f->next)
		f->next->prev = f->prev;
	if (f->doc) {
		smb_file *o = cn->files;
		while (o && strcmp(o->path, f->path) != 0)
			o = o->next;
		if (o)
			o->doc = true;
		else if (rc == 0)
			rc = remove_path(cn, f->path);
	}
	file_free(f);
	return rc;
}

/* After a rename of from to to: open handles beneath from follow it (SMB handles survive a rename). */
static void files_renamed(smb_conn *cn, const char *from, const char *to)
{
	const size_t fl = strlen(from), tl = strlen(to);
	for (smb_file *f = cn->files; f; f = f->next) {
		if (strncmp(f->path, from, fl) != 0 || (f->path[fl] != '\0' && f->path[fl] != '/'))
			continue;
		char *const p = malloc(tl + strlen(f->path + fl) + 1);
		if (!p)
			continue; /* no memory: the handle keeps the old name (its by-name calls fail ENOENT) */
		memcpy(p, to, tl);
		strcpy(p + tl, f->path + fl);
		free(f->path);
		f->path = p;
	}
}

static const int disp_flags[RP_DISP__COUNT] = {
	[RP_DISP_OPEN] = 0,
	[RP_DISP_CREATE] = O_CREAT | O_EXCL,
	[RP_DISP_OPEN_IF] = O_CREAT,
	[RP_DISP_TRUNC] = O_TRUNC,
	[RP_DISP_TRUNC_IF] = O_CREAT | O_TRUNC,
	[RP_DISP_SUPERSEDE] = O_CREAT | O_TRUNC,
};

/*
 * A directory open: made with a creating disposition, else checked to be
 * there and be a directory.  Nothing stays open on the server: libsmbclient
 * lists and queries directories by name.
 */
static int open_dir(smb_conn *cn, const rp_op *op, bool *is_dir)
{
	SMBCCTX *const ctx = cn->ctx;
	const int flags = op->disp < RP_DISP__COUNT ? disp_flags[op->disp] : 0;
	if (flags & O_CREAT) {
		if (smbc_getFunctionMkdir(ctx)(ctx, cn->url, op->mode ? op->mode & 0777 : 0777) == 0)
			return *is_dir = true, 0;
		const int err = failed(cn);
		if (err != EEXIST || (flags & O_EXCL))
			return err;
	}
	struct stat st;
	if (smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0)
		return failed(cn);
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	*is_dir = true;
	return 0;
}

static int do_open(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	int rc = url_of(cn, cn->url, req->path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	const uint32_t w = op->want;
	const bool unknown = !(w & RP_WANT_KNOWN) || (w & RP_WANT_MAX);
	const bool rd = unknown || (w & (RP_WANT_READ | RP_WANT_EXEC)), wr = unknown || (w & (RP_WANT_WRITE | RP_WANT_APPEND));
	int acc = rd && wr ? O_RDWR : wr ? O_WRONLY : O_RDONLY;
	const int flags = (op->disp < RP_DISP__COUNT ? disp_flags[op->disp] : 0);
	const bool want_dir = (op->flags & RP_OPF_DIRECTORY) || (op->oflags & RP_OF_DIRECTORY);
	const bool not_dir = (op->oflags & RP_OF_NOT_DIRECTORY) != 0;
	bool dir = false;
	SMBCFILE *fh = NULL;
	if (want_dir) {
		rc = open_dir(cn, op, &dir);
	} else {
		errno = 0;
		fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, acc | flags, op->mode ? op->mode & 0777 : 0666);
		if (!fh && errno == EACCES && unknown) {
			/* Access not recorded: read-write, else read-only (docs/op-model.md, want). */
			acc = O_RDONLY;
			fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, acc | flags, op->mode ? op->mode & 0777 : 0666);
		}
		rc = fh ? 0 : failed(cn);
		/* What it names is a directory: an open that may be of one opens it as one. */
		if (rc == EISDIR && !not_dir && !(flags & (O_EXCL | O_TRUNC)))
			rc = open_dir(cn, op, &dir);
	}
	if (rc)
		return rc;
	smb_file *const f = calloc(1, sizeof(*f));
	char *const path = strdup(req->path);
	if (!f || !path) {
		if (fh)
			smbc_getFunctionClose(ctx)(ctx, fh);
		free(f);
		free(path);
		return ENOMEM;
	}
	*f = (smb_file){ .conn = cn, .fh = fh, .path = path, .dir = dir,
			 .doc = (op->oflags & RP_OF_DELETE_ON_CLOSE) != 0, .nt = (op->oflags & RP_OF_NT) != 0,
			 .append = (op->oflags & RP_OF_APPEND) != 0, .can_read = acc != O_WRONLY, .acc = acc };
	f->next = cn->files;
	if (cn->files)
		cn->files->prev = f;
	cn->files = f;
	atomic_fetch_add(&cn->refs, 1);
	req->granted = dir ? RP_WANT_KNOWN | RP_WANT_ALL
			   : RP_WANT_KNOWN | RP_WANT_READ_ATTR | RP_WANT_WRITE_ATTR |
				     (acc != O_WRONLY ? RP_WANT_READ | RP_WANT_EXEC : 0) |
				     (acc != O_RDONLY ? RP_WANT_WRITE | RP_WANT_APPEND : 0);
	req->bh = (uint64_t)(uintptr_t)f;
	return 0;
}

/* Read or write the op's range on fh, in pieces: no 64 KiB (or any) cap on one op. */
static int do_io(smb_conn *cn, rp_breq *req, SMBCFILE *fh, bool write, bool append, bool nt)
{
	SMBCCTX *const ctx = cn->ctx;
	uint64_t left = req->op->length, off = req->op->offset, done = 0;
	if (buf_room(cn, left < IO_CHUNK ? (size_t)left : IO_CHUNK))
		return ENOMEM;
	if (write && req->zero && cn->buf_size)
		memset(cn->buf, 0, cn->buf_size);
	int rc = 0;
	const off_t at = append && write ? smbc_getFunctionLseek(ctx)(ctx, fh, 0, SEEK_END)
					 : smbc_getFunctionLseek(ctx)(ctx, fh, (off_t)(off & INT64_MAX), SEEK_SET);
	if (at < 0)
		rc = failed(cn);
	while (rc == 0 && left) {
		const size_t n = left < cn->buf_size ? (size_t)left : cn->buf_size;
		errno = 0;
		const ssize_t got = write ? smbc_getFunctionWrite(ctx)(ctx, fh, cn->buf, n)
					  : smbc_getFunctionRead(ctx)(ctx, fh, cn->buf, n);
		if (got < 0) {
			rc = failed(cn);
			break;
		}
		done += (uint64_t)got;
		left -= (uint64_t)got;
		if ((size_t)got < n) {
			/* A read: end of file.  A write that moves nothing without an error cannot finish either. */
			if (write && got == 0)
				rc = EIO;
			if (!write)
				break;
		}
	}
	if (write && req->zero && cn->buf_size)
		memset(cn->buf, 0x5a, cn->buf_size);
	req->result = done;
	/*
	 * A read at or past the end fails STATUS_END_OF_FILE on an SMB server;
	 * libsmbclient reports it as 0 bytes, so the status is given back here.
	 */
	if (rc == 0 && !write && nt && done == 0 && req->op->length > 0)
		rc = ENODATA;
	return rc;
}

/* ---- Names ------------------------------------------------------------------------------- */

/* The times a setattr sets, as utimes takes them: the current one for a time it leaves (SMB sets both or keeps). */
static int set_times(smb_conn *cn, const rp_op *op, const char *url)
{
	SMBCCTX *const ctx = cn->ctx;
	struct stat st;
	if (smbc_getFunctionStat(ctx)(ctx, url, &st) < 0)
		return failed(cn);
	struct timeval now, tv[2];
	gettimeofday(&now, NULL);
	const uint64_t t[2] = { op->atime, op->mtime };
	const struct timespec cur[2] = { st.st_atim, st.st_mtim };
	const uint32_t set[2] = { RP_SA_ATIME, RP_SA_MTIME }, setnow[2] = { RP_SA_ATIME_NOW, RP_SA_MTIME_NOW };
	for (int i = 0; i < 2; i++) {
		if (op->attrs & set[i])
			tv[i] = (struct timeval){ (time_t)(t[i] / 1000000000u), (suseconds_t)(t[i] % 1000000000u / 1000u) };
		else if (op->attrs & setnow[i])
			tv[i] = now;
		else
			tv[i] = (struct timeval){ cur[i].tv_sec, cur[i].tv_nsec / 1000 };
	}
	return smbc_getFunctionUtimes(ctx)(ctx, url, tv) < 0 ? failed(cn) : 0;
}

#define SA_TIMES (RP_SA_ATIME | RP_SA_MTIME | RP_SA_ATIME_NOW | RP_SA_MTIME_NOW)

/*
 * A setattr (docs/op-model.md): size and allocation through ftruncate (on the
 * handle, or an open by name), the mode through chmod (libsmbclient keeps only
 * the DOS read-only bit of it), the times through utimes.  An owner or group
 * has no libsmbclient call (they are in the security descriptor): EOPNOTSUPP.
 * Change and creation times and DOS attributes, recorded without values, are
 * a query.  Delete-on-close and its undoing are the backend's flag on the handle.
 */
static int do_setattr(smb_conn *cn, rp_breq *req, smb_file *f)
{
	const rp_op *const op = req->op;
	SMBCCTX *const ctx = cn->ctx;
	const uint32_t a = op->attrs;
	const char *const path = f ? f->path : req->path;
	if (!path)
		return EBADF;
	int rc = url_of(cn, cn->url, path);
	if (rc)
		return rc;
	if (a & (RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR)) {
		if (!f)
			return EBADF;
		f->doc = (a & RP_SA_DELETE_SET) != 0;
	}
	if (a & (RP_SA_UID | RP_SA_GID))
		return EOPNOTSUPP;
	if (a & (RP_SA_SIZE | RP_SA_ALLOC)) {
		SMBCFILE *fh = f ? f->fh : NULL;
		if (f && !fh)
			return f->dir ? EISDIR : EBADF;
		if (!fh && !(fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, O_WRONLY, 0)))
			return failed(cn);
		struct stat st;
		uint64_t size = a & RP_SA_SIZE ? op->length : 0;
		if (!(a & RP_SA_SIZE)) {
			/* An allocation below the size truncates there; at or above it, the data stays. */
			rc = smbc_getFunctionFstat(ctx)(ctx, fh, &st) < 0 ? failed(cn) : 0;
			size = rc == 0 && op->offset < (uint64_t)st.st_size ? op->offset : UINT64_MAX;
		}
		if (rc == 0 && size != UINT64_MAX && smbc_getFunctionFtruncate(ctx)(ctx, fh, (off_t)(size & INT64_MAX)) < 0)
			rc = failed(cn);
		if (!f || fh != f->fh)
			smbc_getFunctionClose(ctx)(ctx, fh);
		if (rc)
			return rc;
	}
	if ((a & RP_SA_MODE) && smbc_getFunctionChmod(ctx)(ctx, cn->url, op->mode & 0777) < 0)
		return failed(cn);
	if (a & SA_TIMES)
		return set_times(cn, op, cn->url);
	if (!(a & (RP_SA_SIZE | RP_SA_ALLOC | RP_SA_MODE | RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR))) {
		struct stat st;
		if (f && f->fh)
			return smbc_getFunctionFstat(ctx)(ctx, f->fh, &st) < 0 ? failed(cn) : 0;
		return smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0 ? failed(cn) : 0;
	}
	return 0;
}

/*
 * A listing of a directory (by path or a directory handle), of every entry
 * or, with a pattern (SMB QUERY_DIRECTORY), of those matching it as the
 * server would: case-insensitively, '*' and '?' with the DOS wildcards '<',
 * '>' and '"' (MS-FSA 2.1.4.4); "." and ".." count, as servers list them.
 * libsmbclient always lists everything: the pattern is applied here.  A
 * pattern that matches nothing is ENOENT (STATUS_NO_SUCH_FILE), except on a
 * handle whose enumeration of the same pattern has begun (it ends, OK).
 */
static int do_readdir(smb_conn *cn, rp_breq *req, smb_file *f)
{
	const char *const path = f ? f->path : req->path;
	if (!path)
		return EBADF;
	int rc = url_of(cn, cn->url, path);
	if (rc)
		return rc;
	const char *const mask = req->path2 && req->path2[0] ? req->path2 : NULL;
	char pat[2 * NAME_MAX + 1];
	if (mask) {
		if (strlen(mask) > NAME_MAX)
			return ENAMETOOLONG;
		size_t o = 0;
		for (size_t i = 0; mask[i]; i++) {
			const char ch = mask[i];
			if (ch == '[' || ch == ']' || ch == '\\')
				pat[o++] = '\\';
			pat[o++] = ch == '<' ? '*' : ch == '>' ? '?' : ch == '"' ? '.' : ch;
		}
		pat[o] = '\0';
	}
	SMBCCTX *const ctx = cn->ctx;
	SMBCFILE *const d = smbc_getFunctionOpendir(ctx)(ctx, cn->url);
	if (!d)
		return failed(cn);
	uint64_t n = 0;
	errno = 0;
	for (const struct smbc_dirent *e; (e = smbc_getFunctionReaddir(ctx)(ctx, d));) {
		const bool dots = strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0;
		if (mask ? fnmatch(pat, e->name, FNM_CASEFOLD) == 0 : !dots)
			n++;
	}
	if (errno && errno != ENOENT)
		rc = failed(cn);
	smbc_getFunctionClosedir(ctx)(ctx, d);
	if (rc == 0 && mask && n == 0)
		rc = ENOENT;
	if (f && f->nt) {
		const bool same = f->listed && f->pattern && mask && strcmp(f->pattern, mask) == 0;
		if (rc == ENOENT && same) {
			rc = 0;
			n = 0;
		}
		if (rc == 0 && !same) {
			free(f->pattern);
			f->pattern = mask ? strdup(mask) : NULL;
			f->listed = mask && f->pattern;
		}
	}
	req->result = req->op->length && n > req->op->length ? req->op->length : n;
	return rc;
}

/* Empty the directory at url (a copy of it in cn->url2's stead: recursion needs its own). */
static int empty_dir(smb_conn *cn, const char *path, int depth)
{
	if (depth > DELTREE_MAX_DEPTH)
		return ELOOP;
	char *const url = malloc(RP_SMB_URL_MAX);
	if (!url)
		return ENOMEM;
	SMBCCTX *const ctx = cn->ctx;
	int rc = url_of(cn, url, path);
	SMBCFILE *const d = rc ? NULL : smbc_getFunctionOpendir(ctx)(ctx, url);
	if (!rc && !d)
		rc = failed(cn);
	/* Names first, removal after: a listing is not changed under its own enumeration. */
	char **names = NULL;
	bool *dirs = NULL;
	size_t n = 0, cap = 0;
	for (const struct smbc_dirent *e; d && rc == 0 && (e = smbc_getFunctionReaddir(ctx)(ctx, d));) {
		if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **const nn = realloc(names, cap * sizeof(*nn));
			bool *const nd = nn ? realloc(dirs, cap * sizeof(*nd)) : NULL;
			if (nn)
				names = nn;
			if (nd)
				dirs = nd;
			if (!nn || !nd) {
				rc = ENOMEM;
				break;
			}
		}
		const size_t pl = strlen(path), el = strlen(e->name);
		names[n] = malloc(pl + el + 2);
		if (!names[n]) {
			rc = ENOMEM;
			break;
		}
		snprintf(names[n], pl + el + 2, "%s%s%s", path, pl ? "/" : "", e->name);
		dirs[n++] = e->smbc_type == SMBC_DIR;
	}
	if (d)
		smbc_getFunctionClosedir(ctx)(ctx, d);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && dirs[i])
			rc = empty_dir(cn, names[i], depth + 1);
		if (rc == 0)
			rc = remove_path(cn, names[i]);
		free(names[i]);
	}
	free(names);
	free(dirs);
	free(url);
	return rc;
}

/* dbench's Deltree: remove path and everything under it; a missing path is not an error. */
static int do_deltree(smb_conn *cn, const char *path)
{
	int rc = url_of(cn, cn->url, path);
	struct stat st;
	SMBCCTX *const ctx = cn->ctx;
	if (rc == 0 && smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0)
		rc = failed(cn);
	if (rc)
		return rc == ENOENT ? 0 : rc;
	if (S_ISDIR(st.st_mode))
		rc = empty_dir(cn, path, 0);
	return rc ? rc : remove_path(cn, path);
}

/*
 * libsmbclient opens files sharing read and write but not delete (its share
 * modes have no FILE_SHARE_DELETE), so a rename or delete of a name this
 * connection holds open fails with a sharing violation where the recorded
 * client, which shared delete, renamed its open file (SMB2 SET_INFO on the
 * handle).  Such an op is tried again with those handles closed on the
 * server ("parked") and opened again afterwards under the new name; a handle
 * whose file went stays without one (its I/O fails EBADF until it closes).
 */
static int park(smb_conn *cn, const char *path)
{
	int n = 0;
	for (smb_file *f = cn->files; f; f = f->next) {
		if (!f->fh || strcmp(f->path, path) != 0)
			continue;
		smbc_getFunctionClose(cn->ctx)(cn->ctx, f->fh);
		f->fh = NULL;
		f->parked = true;
		n++;
	}
	return n;
}

static void unpark(smb_conn *cn)
{
	for (smb_file *f = cn->files; f; f = f->next) {
		if (!f->parked || url_of(cn, cn->url2, f->path))
			continue;
		f->parked = false;
		f->fh = smbc_getFunctionOpen(cn->ctx)(cn->ctx, cn->url2, f->acc, 0);
	}
}

static int do_rename(smb_conn *cn, const rp_breq *req)
{
	const rp_op *const op = req->op;
	if (!req->path2)
		return EINVAL;
	if (op->oflags & (RP_RN_EXCHANGE | RP_RN_WHITEOUT))
		return EOPNOTSUPP; /* no SMB rename swaps two names or leaves a whiteout */
	int rc = url_of(cn, cn->url, req->path);
	if (rc == 0)
		rc = url_of(cn, cn->url2, req->path2);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	struct stat st;
	/*
	 * libsmbclient's rename replaces what the new name holds (it removes it
	 * and tries again); SMB's without ReplaceIfExists does not: asked first.
	 */
	if ((op->oflags & RP_RN_NOREPLACE) && smbc_getFunctionStat(ctx)(ctx, cn->url2, &st) == 0)
		return EEXIST;
	if (smbc_getFunctionRename(ctx)(ctx, cn->url, ctx, cn->url2) < 0) {
		rc = failed(cn);
		if (rc != EBUSY || !park(cn, req->path))
			return rc;
		rc = smbc_getFunctionRename(ctx)(ctx, cn->url, ctx, cn->url2) < 0 ? failed(cn) : 0;
	}
	if (rc == 0)
		files_renamed(cn, req->path, req->path2);
	unpark(cn);
	return rc;
}

/* Ops by name (no handle), and stat/statfs on a handle. */
static int by_name(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	SMBCCTX *const ctx = cn->ctx;
	int rc = url_of(cn, cn->url, req->path);
	if (rc)
		return rc;
	struct stat st;
	struct statvfs sv;
	switch (op->op) {
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		return smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0 ? failed(cn) : 0;
	case RP_OP_STATFS:
		return smbc_getFunctionStatVFS(ctx)(ctx, cn->url, &sv) < 0 ? failed(cn) : 0;
	case RP_OP_UNLINK:
		if (smbc_getFunctionUnlink(ctx)(ctx, cn->url) == 0)
			return 0;
		rc = failed(cn);
		if (rc == EBUSY && park(cn, req->path)) {
			rc = smbc_getFunctionUnlink(ctx)(ctx, cn->url) < 0 ? failed(cn) : 0;
			unpark(cn);
		}
		return rc;
	case RP_OP_MKDIR:
		return smbc_getFunctionMkdir(ctx)(ctx, cn->url, op->mode ? op->mode & 0777 : 0777) < 0 ? failed(cn) : 0;
	case RP_OP_RMDIR:
		return smbc_getFunctionRmdir(ctx)(ctx, cn->url) < 0 ? failed(cn) : 0;
	case RP_OP_RENAME:
		return do_rename(cn, req);
	case RP_OP_DELTREE:
		return do_deltree(cn, req->path);
	default:
		return EOPNOTSUPP;
	}
}

/* Data ops named by path without an open (NFSv3 READ/WRITE): open, do, close. */
static int io_by_path(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (op->op == RP_OP_CLOSE)
		return 0;
	int rc = url_of(cn, cn->url, req->path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	SMBCFILE *const fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, op->op == RP_OP_READ ? O_RDONLY : O_RDWR, 0);
	if (!fh)
		return failed(cn);
	rc = do_io(cn, req, fh, op->op == RP_OP_WRITE, false, false);
	smbc_getFunctionClose(ctx)(ctx, fh);
	return rc;
}

static int on_file(smb_conn *cn, rp_breq *req, smb_file *f)
{
	const rp_op *const op = req->op;
	SMBCCTX *const ctx = cn->ctx;
	struct stat st;
	struct statvfs sv;
	switch (op->op) {
	case RP_OP_CLOSE:
		return file_close(cn, f);
	case RP_OP_READ:
	case RP_OP_WRITE:
		if (!f->fh)
			return f->dir ? EISDIR : EBADF;
		/* libsmbclient opens write-only with GENERIC_WRITE alone, but the server may grant reads anyway. */
		if (op->op == RP_OP_READ && f->nt && !f->can_read)
			return EACCES;
		return do_io(cn, req, f->fh, op->op == RP_OP_WRITE, f->append, f->nt);
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		/*
		 * A write-only libsmbclient open asks GENERIC_WRITE, which lacks
		 * FILE_READ_ATTRIBUTES the recorded open had: a query the handle
		 * cannot make goes by name, as the same query of the same object.
		 */
		if (f->fh && smbc_getFunctionFstat(ctx)(ctx, f->fh, &st) == 0)
			return 0;
		if (f->fh && f->can_read)
			return failed(cn);
		if (url_of(cn, cn->url, f->path))
			return ENAMETOOLONG;
		return smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0 ? failed(cn) : 0;
	case RP_OP_STATFS:
		if (f->fh)
			return smbc_getFunctionFstatVFS(ctx)(ctx, f->fh, &sv) < 0 ? failed(cn) : 0;
		if (url_of(cn, cn->url, f->path))
			return ENAMETOOLONG;
		return smbc_getFunctionStatVFS(ctx)(ctx, cn->url, &sv) < 0 ? failed(cn) : 0;
	case RP_OP_SETATTR:
		return do_setattr(cn, req, f);
	case RP_OP_READDIR:
		return do_readdir(cn, req, f);
	default:
		break;
	}
	/* A name op on a handle (SMB2 SET_INFO rename, a delete by handle): what the handle names, by name. */
	if (!req->path)
		req->path = f->path;
	return by_name(cn, req);
}

static int smb_do(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (req->no_handle)
		return EBADF;
	smb_file *const f = req->bh ? (smb_file *)(uintptr_t)req->bh : NULL;
	if (f)
		return on_file(cn, req, f);
	switch (op->op) {
	case RP_OP_OPEN:
		return req->path ? do_open(cn, req) : EINVAL;
	case RP_OP_READ:
	case RP_OP_WRITE:
	case RP_OP_CLOSE:
		return req->path ? io_by_path(cn, req) : EBADF;
	case RP_OP_SETATTR:
		return req->path ? do_setattr(cn, req, NULL) : EBADF;
	case RP_OP_READDIR:
		return req->path ? do_readdir(cn, req, NULL) : EBADF;
	case RP_OP_STATFS:
		/* Without a path or handle: the file system of the client's directory (posix's root). */
		return by_name(cn, req);
	default:
		return req->path ? by_name(cn, req) : EINVAL;
	}
}

/*
 * A connection that went (server gone, connection refused on a reconnect)
 * fails the op with its errno and returns RP_E_IO: the engine stops the run
 * with an error naming the target, rather than letting every later op time
 * out or fail one by one.
 */
static int smb_submit(void *backend, void *client, rp_breq *req)
{
	(void)backend;
	smb_client *const c = client;
	smb_file *const f = req->bh && !req->no_handle ? (smb_file *)(uintptr_t)req->bh : NULL;
	/* A handle's calls go through the connection that opened it (a forked client's may be another's). */
	smb_conn *const cn = f ? f->conn : c->conn;
	req->result = 0;
	req->special = false;
	pthread_mutex_lock(&smbc_mu);
	int rc = 0;
	if (cn->lost) {
		if (f && req->op->op == RP_OP_CLOSE)
			file_close(cn, f);
		req->status = rp__smb_status(cn->lost);
		rc = RP_E_IO;
	} else {
		errno = 0;
		req->status = rp__smb_status(smb_do(cn, req));
		rc = cn->lost ? RP_E_IO : 0;
	}
	pthread_mutex_unlock(&smbc_mu);
	if (f && req->op->op == RP_OP_CLOSE)
		conn_put(cn); /* the file's reference: closed (and freed) whatever the status */
	if (req->cb)
		req->cb(req);
	return rc;
}

static void smb_release(void *backend, void *client, uint64_t bh)
{
	(void)backend, (void)client;
	smb_file *const f = (smb_file *)(uintptr_t)bh;
	smb_conn *const cn = f->conn;
	pthread_mutex_lock(&smbc_mu);
	file_close(cn, f);
	pthread_mutex_unlock(&smbc_mu);
	conn_put(cn);
}

static void smb_client_fini(void *backend, void *client)
{
	(void)backend;
	smb_client *const c = client;
	conn_put(c->conn);
	c->conn = NULL;
}

const rp_backend_ops rp__backend_smb = {
	.version = RP_BACKEND_VERSION,
	.name = "smb",
	.summary = "an SMB2/SMB3 share through libsmbclient: smb://host[:port]/share[/dir]",
	/*
	 * RP_BCAP_MT_CLIENT: a context and the files it opened work only through
	 * that context, so a client's window workers share its one connection
	 * (one SMB session, as the recorded client had) rather than each opening
	 * a session whose handles the others could not use; smbc_mu serialises
	 * their calls, as libsmbclient requires.
	 * The server's own NT semantics apply (RP_BCAP_NT_NATIVE); what
	 * libsmbclient cannot ask of it (delete-on-close, end of file) is
	 * restored here.  Confined: paths reach it normalised, it creates no
	 * symbolic links, and the server's "wide links" policy decides whether
	 * one already on the share leads out of it (docs/replay.md).
	 */
	.caps = RP_BCAP_DATA | RP_BCAP_NT_NATIVE | RP_BCAP_MT_CLIENT | RP_BCAP_CONFINED,
	.client_size = sizeof(smb_client),
	.opts = smb_opts,
	.schemes = smb_schemes,
	/*
	 * What libsmbclient can express.  It has no hard or symbolic links, no
	 * flush, locks, fallocate, copy, mknod or user xattrs (its xattrs are
	 * the security descriptor and DOS attributes by its own names): those
	 * ops are counted unsupported, never mismatched.
	 */
	.op_mask = (1ull << RP_OP_OPEN) | (1ull << RP_OP_CLOSE) | (1ull << RP_OP_READ) | (1ull << RP_OP_WRITE) |
		   (1ull << RP_OP_STAT) | (1ull << RP_OP_LOOKUP) | (1ull << RP_OP_ACCESS) | (1ull << RP_OP_SETATTR) |
		   (1ull << RP_OP_UNLINK) | (1ull << RP_OP_MKDIR) | (1ull << RP_OP_RMDIR) | (1ull << RP_OP_RENAME) |
		   (1ull << RP_OP_READDIR) | (1ull << RP_OP_STATFS) | (1ull << RP_OP_DELTREE),
	.create = smb_create,
	.destroy = smb_destroy,
	.client_init = smb_client_init,
	.client_fini = smb_client_fini,
	.submit = smb_submit,
	.poll = NULL,
	.release = smb_release,
};
