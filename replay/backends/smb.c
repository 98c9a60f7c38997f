/* The smb backend: trace ops through libsmbclient on a share of an SMB2/SMB3 server (MS-SMB2, MS-FSA). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "formats/posixsem.h"
#include "replay/backends/smb_int.h"

/* One libsmbclient read or write call moves at most this much; it splits it into the server's maximum sizes. */
#define IO_CHUNK (1u << 20)

enum { S_OPT_USER, S_OPT_PASSWORD, S_OPT_DOMAIN, S_OPT_AUTHFILE, S_OPT_TIMEOUT, S_OPT__COUNT };

static const rp_backend_opt smb_opts[] = {
	[S_OPT_USER] = { .name = "user", .type = RP_BOPT_STRING, .arg = "[DOMAIN\\]USER[%PASS]",
			 .help = "log in as USER, smbclient -U's form, DOMAIN/USER too (replay --user; default: the auth file's, else guest)" },
	[S_OPT_PASSWORD] = { .name = "password", .type = RP_BOPT_STRING, .arg = "PASS",
			     .help = "USER's password (as user's %PASS; else the auth file's, else $REPRISE_SMB_PASSWORD); never printed" },
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

/*
 * Credentials: the options given, in the order given (user's own domain and
 * password parts as given where it is), over the auth file's; else the
 * environment's password; guest without a user.
 */
static int load_creds(smb_backend *sb, const rp_backend_args *args, char *errbuf)
{
	if (args->vals[S_OPT_AUTHFILE].set) {
		const int rc = load_authfile(sb, args->vals[S_OPT_AUTHFILE].value, errbuf);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < args->n_kv; i++) {
		const rp_backend_kv *const v = &args->kv[i];
		const ptrdiff_t k = v->opt - smb_opts;
		if (k == S_OPT_USER) {
			const int rc = rp__smb_user_parse(v->value, &sb->creds, errbuf);
			if (rc < 0)
				return rc;
			continue;
		}
		if (k != S_OPT_PASSWORD && k != S_OPT_DOMAIN)
			continue;
		char *const dst = k == S_OPT_PASSWORD ? sb->creds.password : sb->creds.domain;
		if (strlen(v->value) > RP_SMB_CRED_MAX)
			return rp_fail(errbuf, RP_E_LIMIT, "smb: %s longer than %d bytes", k == S_OPT_PASSWORD ? "password" : "domain",
				       RP_SMB_CRED_MAX);
		strcpy(dst, v->value);
		*(k == S_OPT_PASSWORD ? &sb->creds.has_password : &sb->creds.has_domain) = true;
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
	pthread_mutex_init(&sb->peers_mu, NULL);
	*out = sb;
	return 0;
}

static void smb_destroy(void *backend)
{
	smb_backend *const sb = backend;
	if (!sb)
		return;
	if (sb->watching) {
		atomic_store(&sb->quit, true);
		pthread_join(sb->watchdog, NULL);
	}
	pthread_mutex_destroy(&sb->peers_mu);
	explicit_bzero(&sb->creds, sizeof(sb->creds));
	free(sb);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The watchdog, a tenth of the timeout apart (10..100 ms): a call under
 * smbc_mu running for the timeout while a request to the server waits
 * unanswered that long marks the server gone (ETIMEDOUT) and cuts every
 * connection to it.  libsmbclient's own timeout ends only the one request:
 * it then sends an ECHO to check the server and connects again, each
 * waiting out the timeout in turn (measured: 2, 4 or 6 s for timeout=2s);
 * once the server is gone, a connection made within the call is cut too.
 */
static void *watch(void *arg)
{
	smb_backend *const sb = arg;
	const unsigned ms = (unsigned)sb->timeout_ms;
	const unsigned tick_ms = ms / 10 < 10 ? 10 : ms / 10 > 100 ? 100 : ms / 10;
	const struct timespec tick = { 0, (long)tick_ms * 1000000L };
	while (!atomic_load(&sb->quit)) {
		nanosleep(&tick, NULL);
		const uint64_t t = atomic_load(&sb->call_ns);
		if (!t)
			continue;
		pthread_mutex_lock(&sb->peers_mu);
		if (atomic_load(&sb->gone)) {
			rp__smb_peers_cut(&sb->peers);
		} else if (mono_ns() - t >= (uint64_t)ms * 1000000u && rp__smb_peers_stalled(&sb->peers, ms) > 0) {
			atomic_store(&sb->gone, ETIMEDOUT);
			rp__smb_peers_cut(&sb->peers);
		}
		pthread_mutex_unlock(&sb->peers_mu);
	}
	return NULL;
}

/* A call to libsmbclient under smbc_mu begins and ends (the watchdog's clock). */
static void call_begin(smb_backend *sb)
{
	atomic_store(&sb->call_ns, mono_ns());
}

static void call_end(smb_backend *sb)
{
	atomic_store(&sb->call_ns, 0);
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

/*
 * With a user given, a guest session is a failure, not a fall-back: a
 * server that maps unknown users to guest (Samba's "map to guest = bad
 * user") would otherwise run the replay as its guest account, exit 0.
 * libsmbclient does not expose the session's guest flag (SMB2
 * SESSION_SETUP's SMB2_SESSION_FLAG_IS_GUEST), but it refuses a guest
 * session when signing is required (a guest has no session key to sign
 * with: NT_STATUS_ACCESS_DENIED).  The one way to require it is its
 * configuration ("client signing"), loaded from a file: a memfd, so
 * nothing is left on disk.  Process-wide, as that configuration is; under
 * smbc_mu, after smbc_new_context loaded the system's, for every context
 * (loaded once, the second context of a run had the system's again and
 * took the guest session the first was refused).  0 or an errno.
 */
static int require_signing(SMBCCTX *ctx)
{
	/* Every context: smbc_new_context loads the system's configuration again, which says "client signing = default". */
	static const char conf[] = "[global]\n\tclient signing = required\n";
	const int fd = memfd_create("reprise-smb.conf", MFD_CLOEXEC);
	if (fd < 0)
		return errno;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int rc = write(fd, conf, sizeof(conf) - 1) == (ssize_t)(sizeof(conf) - 1) ? 0 : errno ? errno : EIO;
	if (rc == 0 && smbc_setConfiguration(ctx, path) != 0)
		rc = errno ? errno : EINVAL;
	close(fd);
	return rc;
}

static void conn_put(smb_conn *cn)
{
	if (!cn || atomic_fetch_sub(&cn->refs, 1) != 1)
		return;
	if (cn->ctx) {
		pthread_mutex_lock(&smbc_mu);
		/* A server that stopped answering gets no CLOSE, TREE_DISCONNECT or LOGOFF to time out on. */
		if (cn->lost) {
			pthread_mutex_lock(&cn->sb->peers_mu);
			rp__smb_peers_cut(&cn->sb->peers);
			pthread_mutex_unlock(&cn->sb->peers_mu);
		}
		if (cn->vfs_dir && !cn->lost)
			smbc_getFunctionClosedir(cn->ctx)(cn->ctx, cn->vfs_dir);
		smbc_free_context(cn->ctx, 1);
		pthread_mutex_unlock(&smbc_mu);
	}
	rp__smb_beneath_free(cn);
	free(cn->buf);
	free(cn);
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
	if (!sb->watching && sb->timeout_ms > 0)
		sb->watching = pthread_create(&sb->watchdog, NULL, watch, sb) == 0;
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
		smbc_setOptionDebugToStderr(ctx, 1);
	}
	int sign_err = ctx && sb->creds.has_user ? require_signing(ctx) : 0;
	const bool ok = ctx && !sign_err && smbc_init_context(ctx);
	const int init_err = sign_err ? sign_err : errno;
	if (!ok) {
		if (ctx)
			smbc_free_context(ctx, 0);
		pthread_mutex_unlock(&smbc_mu);
		conn_put(cn);
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: cannot set up libsmbclient: %s", sb->t.base, strerror(init_err));
	}
	cn->ctx = ctx;
	/*
	 * Connect now, so a refused connection, a wrong password or an unknown
	 * share is the run's error, not every op's status; then make the
	 * client's directory, as every backend does.  The connection is all
	 * that is asked: libsmbclient (4.17) connects for a getxattr (NEGOTIATE,
	 * SESSION_SETUP, TREE_CONNECT, the FileFsAttributeInformation query it
	 * makes of every share, and the ECHO of a connection it finds again)
	 * before it looks at the name, and refuses one it does not know with
	 * EINVAL, sending nothing for it.  The target's directory is found by
	 * the trace's own first op (rp__smb_conn_check): no stat of it here.
	 */
	char none[1];
	errno = 0;
	call_begin(sb);
	const int lrc = smbc_getFunctionGetxattr(ctx)(ctx, sb->t.base, "user.reprise.connect", none, sizeof(none));
	const int lerr = lrc < 0 ? (errno ? errno : EIO) : 0;
	call_end(sb);
	pthread_mutex_lock(&sb->peers_mu);
	const int peers = rp__smb_peers_learn(&sb->peers, sb->t.port);
	pthread_mutex_unlock(&sb->peers_mu);
	if ((lerr && lerr != EINVAL) || peers == 0) {
		const int err = atomic_load(&sb->gone) ? atomic_load(&sb->gone) : lerr && lerr != EINVAL ? lerr : EIO;
		pthread_mutex_unlock(&smbc_mu);
		conn_put(cn);
		return rp_fail(errbuf, RP_E_IO, "%s: %s%s", sb->t.base, strerror(err), rp__smb_conn_hint(sb, err));
	}
	if (dir[0] && smbc_getFunctionMkdir(ctx)(ctx, cn->base, 0777) < 0 && errno != EEXIST) {
		const int err = errno;
		pthread_mutex_unlock(&smbc_mu);
		conn_put(cn);
		return rp_fail(errbuf, RP_E_IO, "%s/%s: mkdir: %s%s", sb->t.base, dir, strerror(err), rp__smb_conn_hint(sb, err));
	}
	/* The share itself was found by the TREE_CONNECT; a client's directory by its mkdir. */
	cn->checked = dir[0] || !sb->t.dir[0];
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
		rc = rp__smb_failed(cn);
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
		if (o) {
			o->doc = true;
		} else if (rc == 0) {
			/* A handle with data had its CREATE: the delete by name is one more (a lazy one's is its own). */
			if (f->fh)
				rp__smb_extra(cn, RP_SMB_FB_DOC);
			rc = rp__smb_remove_path(cn, f->path, f->dir);
		}
	} else if (rc == 0 && f->lazy && !f->used && !f->parked) {
		/* Opened lazily and never used: a stat says it was there (the recorded CREATE and CLOSE are 2, this 3). */
		struct stat st;
		rp__smb_extra(cn, RP_SMB_FB_CONFIRM);
		if (rp__smb_url(cn, cn->url, f->path) == 0 && smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0)
			rc = rp__smb_failed(cn);
	}
	file_free(f);
	return rc;
}


/*
 * A directory open: made with a creating disposition, else checked to be
 * there and be a directory.  Nothing stays open on the server: libsmbclient
 * lists and queries directories by name.
 */
static int open_dir(smb_conn *cn, const rp_op *op, const char *path, bool *is_dir)
{
	SMBCCTX *const ctx = cn->ctx;
	const int flags = rp_disp_oflags(op->disp);
	if (flags & O_CREAT) {
		if (smbc_getFunctionMkdir(ctx)(ctx, cn->url, op->mode ? op->mode & 0777 : 0777) == 0) {
			rp__smb_beneath_made(cn, path);
			return *is_dir = true, 0;
		}
		const int err = rp__smb_failed(cn);
		if (err != EEXIST || (flags & O_EXCL))
			return err;
	}
	struct stat st;
	if (smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0)
		return rp__smb_failed(cn);
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	/* A directory there before: itself no symlink the server follows (its handle's ops go by this name). */
	const int rc = rp__smb_beneath(cn, path, true);
	if (rc)
		return rc;
	*is_dir = true;
	return 0;
}

/*
 * Whether op's open is left to its handle's first op (smb_file.lazy): the
 * trace recorded it opening what was there (OK, no create or truncate, or
 * a directory's open-or-create that found one), of a directory, or of a
 * file for no data.  The recorded CREATE and CLOSE are then the first
 * libsmbclient call's own (a listing, a stat, a rename, a delete): no
 * CREATE of ours before it, no sharing violation of our handle against it.
 */
static bool open_lazily(const rp_op *op, const rp_open_plan *o)
{
	if (op->status != RP_STATUS_OK || (op->flags & RP_OPF_NO_REPLY) || o->fallback_ro)
		return false;
	if (o->flags & O_TRUNC)
		return false;
	if (o->flags & O_CREAT) {
		if (!o->dir || (o->flags & O_EXCL) || op->result != RP_ACT_OPENED)
			return false;
	}
	return o->dir || (op->flags & RP_OPF_DIRECTORY) || (o->meta_only && !(op->oflags & RP_OF_APPEND));
}

static int do_open(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	int rc = rp__smb_url(cn, cn->url, req->path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	const rp_open_plan o = rp_open_plan_of(op);
	const bool unknown = o.fallback_ro;
	int acc = o.flags & O_ACCMODE;
	/* Append is the handle's (writes carry their offset); libsmbclient's open has no O_SYNC or O_NOFOLLOW. */
	const int flags = o.flags & (O_CREAT | O_EXCL | O_TRUNC);
	const bool want_dir = o.dir;
	const bool not_dir = o.not_dir;
	bool dir = false;
	const bool lazy = open_lazily(op, &o);
	SMBCFILE *fh = NULL;
	if (lazy) {
		/* Nothing on the wire: its listings and setattrs check it is no symlink (on_file). */
		dir = want_dir || (op->flags & RP_OPF_DIRECTORY);
	} else if (want_dir) {
		rc = open_dir(cn, op, req->path, &dir);
	} else {
		errno = 0;
		fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, acc | flags, op->mode ? op->mode & 0777 : 0666);
		if (!fh && errno == EACCES && unknown) {
			/* Access not recorded: read-write, else read-only (docs/op-model.md, want). */
			rp__smb_extra(cn, RP_SMB_FB_RETRY_RO);
			acc = O_RDONLY;
			fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, acc | flags, op->mode ? op->mode & 0777 : 0666);
		}
		rc = fh ? 0 : rp__smb_failed(cn);
		/* What it names is a directory: an open that may be of one opens it as one. */
		if (rc == EISDIR && !not_dir && !(flags & (O_EXCL | O_TRUNC)))
			rc = open_dir(cn, op, req->path, &dir);
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
			 .append = (op->oflags & RP_OF_APPEND) != 0, .can_read = acc != O_WRONLY, .acc = acc,
			 .lazy = lazy, .used = !lazy };
	f->next = cn->files;
	if (cn->files)
		cn->files->prev = f;
	cn->files = f;
	atomic_fetch_add(&cn->refs, 1);
	req->granted = dir ? RP_WANT_KNOWN | RP_WANT_ALL : rp_granted_of(acc);
	req->bh = (uint64_t)(uintptr_t)f;
	return 0;
}

/* Read or write the op's range on fh, in pieces: no 64 KiB (or any) cap on one op. */
static int do_io(smb_conn *cn, rp_breq *req, SMBCFILE *fh, bool write, bool append, bool nt)
{
	SMBCCTX *const ctx = cn->ctx;
	const rp_op *const op = req->op;
	uint64_t left = op->length, off = op->offset, done = 0;
	/*
	 * A read the trace recorded as short asks what it got: libsmbclient
	 * goes on reading a short read to the end of file, a second READ that
	 * fails (STATUS_END_OF_FILE) where the trace had one.
	 */
	if (!write && op->status == RP_STATUS_OK && !(op->flags & RP_OPF_NO_REPLY) && op->result > 0 && op->result < left)
		left = op->result;
	if (buf_room(cn, left < IO_CHUNK ? (size_t)left : IO_CHUNK))
		return ENOMEM;
	if (write && req->zero && cn->buf_size)
		memset(cn->buf, 0, cn->buf_size);
	int rc = 0;
	const off_t at = append && write ? smbc_getFunctionLseek(ctx)(ctx, fh, 0, SEEK_END)
					 : smbc_getFunctionLseek(ctx)(ctx, fh, (off_t)(off & INT64_MAX), SEEK_SET);
	if (at < 0)
		rc = rp__smb_failed(cn);
	while (rc == 0 && left) {
		const size_t n = left < cn->buf_size ? (size_t)left : cn->buf_size;
		errno = 0;
		const ssize_t got = write ? smbc_getFunctionWrite(ctx)(ctx, fh, cn->buf, n)
					  : smbc_getFunctionRead(ctx)(ctx, fh, cn->buf, n);
		if (got < 0) {
			rc = rp__smb_failed(cn);
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
	/* Reads land in the buffer writes send: the pattern goes back over what they brought, so no write sends file data. */
	if (!write && done)
		memset(cn->buf, 0x5a, done < cn->buf_size ? (size_t)done : cn->buf_size);
	req->result = done;
	/*
	 * A read at or past the end fails STATUS_END_OF_FILE on an SMB server;
	 * libsmbclient reports it as 0 bytes, so the status is given back here.
	 */
	if (rc == 0 && !write && nt && done == 0 && req->op->length > 0)
		rc = ENODATA;
	return rc;
}

/* Data ops named by path without an open (NFSv3 READ/WRITE): open, do, close. */
static int io_by_path(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (op->op == RP_OP_CLOSE)
		return 0;
	int rc = rp__smb_url(cn, cn->url, req->path);
	if (rc)
		return rc;
	SMBCCTX *const ctx = cn->ctx;
	SMBCFILE *const fh = smbc_getFunctionOpen(ctx)(ctx, cn->url, op->op == RP_OP_READ ? O_RDONLY : O_RDWR, 0);
	if (!fh)
		return rp__smb_failed(cn);
	rc = do_io(cn, req, fh, op->op == RP_OP_WRITE, false, false);
	smbc_getFunctionClose(ctx)(ctx, fh);
	return rc;
}

static int on_file(smb_conn *cn, rp_breq *req, smb_file *f)
{
	const rp_op *const op = req->op;
	SMBCCTX *const ctx = cn->ctx;
	struct stat st;
	switch (op->op) {
	case RP_OP_CLOSE:
		return file_close(cn, f);
	case RP_OP_READ:
	case RP_OP_WRITE:
		if (!f->fh)
			return f->dir ? EISDIR : f->lazy ? EACCES : EBADF; /* a lazy file's open asked no data access */
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
			return rp__smb_failed(cn);
		if (rp__smb_url(cn, cn->url, f->path))
			return ENAMETOOLONG;
		if (f->fh)
			rp__smb_extra(cn, RP_SMB_FB_WRONLY);
		else
			rp__smb_by_handle(cn, f);
		return smbc_getFunctionStat(ctx)(ctx, cn->url, &st) < 0 ? rp__smb_failed(cn) : 0;
	case RP_OP_STATFS:
		return rp__smb_statfs(cn, f);
	case RP_OP_SETATTR:
	case RP_OP_READDIR: {
		/*
		 * A lazily opened directory's listing and attributes go by its
		 * name: it is no symlink the server follows (open_dir's check, made
		 * when first needed; a delete-on-close alone removes the name).
		 */
		const bool doc_only = op->op == RP_OP_SETATTR && !(op->attrs & ~(RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR));
		if (f->lazy && f->dir && !doc_only) {
			/* A listing checks the directory itself from its own "." and ".." (rp__smb_readdir): its parents here. */
			const bool listing = op->op == RP_OP_READDIR && !rp__smb_beneath_known(cn, f->path);
			const int rc = rp__smb_beneath(cn, f->path, !listing);
			if (rc) {
				req->escape = rc == EXDEV;
				return rc;
			}
		}
		return op->op == RP_OP_SETATTR ? rp__smb_setattr(cn, req, f) : rp__smb_readdir(cn, req, f);
	}
	default:
		break;
	}
	/* A name op on a handle (SMB2 SET_INFO rename, a delete by handle): what the handle names, by name. */
	if (!req->path)
		req->path = f->path;
	rp__smb_by_handle(cn, f);
	return rp__smb_by_name(cn, req);
}

/*
 * The directories an op by name goes through are no symlinks the server
 * follows (smb_beneath.c): else EXDEV, counted as an escape.  The last
 * component is checked too where the op acts on what a directory there
 * holds or is (its attributes, its listing, its tree); a directory open
 * checks it in open_dir.  A rename's new name goes through its own.
 */
static int beneath(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (!req->path)
		return 0;
	const bool last = op->op == RP_OP_SETATTR || op->op == RP_OP_READDIR || op->op == RP_OP_DELTREE;
	int rc = rp__smb_beneath(cn, req->path, last);
	if (rc == 0 && op->op == RP_OP_RENAME && req->path2)
		rc = rp__smb_beneath(cn, req->path2, false);
	if (rc == EXDEV)
		req->escape = true;
	return rc;
}

static int smb_do(smb_conn *cn, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (req->no_handle)
		return EBADF;
	smb_file *const f = req->bh ? (smb_file *)(uintptr_t)req->bh : NULL;
	/*
	 * A name SMB reads as syntax ("..\x" climbs out of the target on the
	 * server) or reserves (':' a stream, the wildcards, control bytes) is
	 * refused as an escape.  A readdir's path2 is a pattern, matched here;
	 * a handle's own path was checked at its open, and a close always closes.
	 */
	if (!(f && op->op == RP_OP_CLOSE) &&
	    ((req->path && rp__smb_path_reserved(req->path)) ||
	     (op->op == RP_OP_RENAME && req->path2 && rp__smb_path_reserved(req->path2)))) {
		req->escape = true;
		return EXDEV;
	}
	if (f)
		return on_file(cn, req, f);
	const int rc = beneath(cn, req);
	if (rc)
		return rc;
	switch (op->op) {
	case RP_OP_OPEN: {
		/* open_dir's check of the directory itself: no server's status is EXDEV for an open. */
		const int orc = req->path ? do_open(cn, req) : EINVAL;
		req->escape = orc == EXDEV;
		return orc;
	}
	case RP_OP_READ:
	case RP_OP_WRITE:
	case RP_OP_CLOSE:
		return req->path ? io_by_path(cn, req) : EBADF;
	case RP_OP_SETATTR:
		return req->path ? rp__smb_setattr(cn, req, NULL) : EBADF;
	case RP_OP_READDIR:
		return req->path ? rp__smb_readdir(cn, req, NULL) : EBADF;
	case RP_OP_STATFS:
		/* Without a path or handle: the file system of the client's directory (posix's root). */
		return rp__smb_by_name(cn, req);
	default:
		return req->path ? rp__smb_by_name(cn, req) : EINVAL;
	}
}

/* The target not there (rp__smb_conn_check): the client stops with what it is, as a failed connect would. */
static int smb_client_error(void *backend, void *client, char *errbuf)
{
	(void)backend;
	const smb_client *const c = client;
	return c->conn ? rp__smb_conn_bad(c->conn, errbuf) : 0;
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
	req->escape = false;
	pthread_mutex_lock(&smbc_mu);
	int rc = 0;
	if (!cn->lost && cn->sb->gone)
		cn->lost = cn->sb->gone;
	if (cn->lost) {
		if (f && req->op->op == RP_OP_CLOSE)
			file_close(cn, f);
		req->status = rp__smb_status(cn->lost);
		rc = RP_E_IO;
	} else {
		errno = 0;
		cn->extra = false;
		call_begin(cn->sb);
		/* Timed here, under the lock (RP_BCAP_TIMES): the time at the server, not the wait for the lock. */
		req->sent_ns = mono_ns();
		const int err = smb_do(cn, req);
		req->done_ns = mono_ns();
		rp__smb_conn_check(cn, req, err);
		call_end(cn->sb);
		if (!cn->extra)
			atomic_fetch_add_explicit(&cn->sb->as_recorded, 1u, memory_order_relaxed);
		/* Cut by the watchdog: the op failed for the server's silence, whatever the cut made libsmbclient say. */
		const int gone = atomic_load(&cn->sb->gone);
		if (gone && !cn->lost)
			cn->lost = gone;
		req->status = rp__smb_status(err && gone == ETIMEDOUT ? gone : err);
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
	call_begin(cn->sb);
	f->used = true; /* never closed by the trace: a lazy open is not confirmed either */
	file_close(cn, f);
	call_end(cn->sb);
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

static int smb_walk(void *backend, void *client, int (*fn)(void *arg, const rp_backend_entry *e), void *arg,
		    char *errbuf)
{
	smb_client *const c = client;
	pthread_mutex_lock(&smbc_mu);
	call_begin(backend);
	const int rc = c->conn->lost ? rp_fail(errbuf, RP_E_IO, "%s: the connection is lost", c->conn->base)
				     : rp__smb_walk(c->conn, fn, arg, errbuf);
	call_end(backend);
	pthread_mutex_unlock(&smbc_mu);
	return rc;
}

static int smb_remove(void *backend, void *client, const char *path, bool dir)
{
	smb_client *const c = client;
	pthread_mutex_lock(&smbc_mu);
	call_begin(backend);
	const int err = c->conn->lost ? c->conn->lost : rp__smb_unlink_path(c->conn, path, dir);
	call_end(backend);
	pthread_mutex_unlock(&smbc_mu);
	return err;
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
	.caps = RP_BCAP_DATA | RP_BCAP_NT_NATIVE | RP_BCAP_MT_CLIENT | RP_BCAP_CONFINED | RP_BCAP_TIMES,
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
	.client_error = smb_client_error,
	.walk = smb_walk,
	.remove = smb_remove,
	.report = rp__smb_report,
};
