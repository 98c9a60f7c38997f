/* The posix backend: every trace op as *at() calls strictly beneath the target directory. */
#include "replay/backends/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "formats/cursor.h"
#include "formats/posixsem.h"

/* fchmodat2(2) (Linux 6.6): the one chmod that honours AT_SYMLINK_NOFOLLOW; newer syscalls share one number on every architecture. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* One read or write moves at most this much per call; larger requests loop. */
#define IO_CHUNK (16u * 1024u * 1024u)
/* Zero-filled writes (rp_breq.zero) go in pieces of this much, from one static block of zeros. */
#define ZERO_CHUNK (1u << 20)

/* What a backend handle points at. */
typedef struct pfile {
	int fd;
	bool dir;
} pfile;

enum { P_OPT_SYNC, P_OPT_FSYNC_WRITES, P_OPT_NO_OPENAT2, P_OPT_SETID, P_OPT__COUNT };

static const rp_backend_opt posix_opts[] = {
	[P_OPT_SYNC] = { .name = "sync", .type = RP_BOPT_FLAG, .help = "open every file O_SYNC (dbench -s)" },
	[P_OPT_FSYNC_WRITES] = { .name = "fsync-writes", .type = RP_BOPT_FLAG, .help = "fsync after every write (dbench -F)" },
	[P_OPT_NO_OPENAT2] = { .name = "no-openat2", .type = RP_BOPT_FLAG,
			       .help = "resolve paths with the O_NOFOLLOW component walk even where openat2 exists" },
	[P_OPT_SETID] = { .name = "setid", .type = RP_BOPT_FLAG,
			  .help = "apply the trace's setuid and setgid bits (dropped otherwise; the sticky bit always applies)" },
	[P_OPT__COUNT] = { .name = NULL },
};

/* A directory path, or a file URL of one (RFC 8089: file:///dir, file://localhost/dir, %XX escapes). */
static const char *const posix_schemes[] = { "", "file", NULL };

/*
 * The directory target names: a path as it is, or a file URL's path with its
 * %XX escapes decoded (%00 stays as it is); a malloc'd copy either way.
 */
static int target_dir(const char *target, char **out, char *errbuf)
{
	*out = NULL;
	const char *p = target;
	const bool url = strncasecmp(p, "file://", 7) == 0;
	if (url) {
		p += 7;
		if (strncasecmp(p, "localhost/", 10) == 0)
			p += 9;
		if (*p != '/')
			return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: a file URL names a local path (file:///dir), not a host",
				       target);
	}
	char *const d = malloc(strlen(p) + 1);
	if (!d)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	size_t n = 0;
	for (; *p; p++) {
		int hi, lo;
		if (url && *p == '%' && (hi = rp_hex_digit(p[1])) >= 0 && (lo = rp_hex_digit(p[2])) >= 0 && (hi || lo)) {
			d[n++] = (char)(hi * 16 + lo);
			p += 2;
		} else {
			d[n++] = *p;
		}
	}
	d[n] = '\0';
	*out = d;
	return 0;
}

/*
 * The permission bits a trace asks for, as applied: setuid and setgid only
 * with the setid option, since a trace replayed as root would otherwise plant
 * set-id files (or set-group-id directories, whose group everything made in
 * them inherits) for anyone to run.  The sticky bit stays: it only narrows who
 * may remove entries of a directory, and Linux ignores it on files.
 */
static unsigned trace_mode(const posix_backend *pb, uint32_t mode)
{
	return mode & (pb->setid ? 07777u : 01777u);
}

/*
 * What a data open (read, write, size: never O_PATH or O_DIRECTORY) got, kept
 * only if it is a regular file (or, with allow_dir, a directory).  The open
 * was O_NONBLOCK, so a FIFO never blocked it; a FIFO, device or socket is
 * refused with ENXIO, what open(2) itself answers for a socket or for a FIFO
 * without a reader (and the ENXIO of those opens is the same refusal), and
 * counted in req->special.  Returns fd, or -errno with fd closed.
 */
static int keep_data_fd(rp_breq *req, int fd, bool allow_dir, struct stat *st)
{
	if (fd == -ENXIO)
		req->special = true;
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0) {
		const int err = errno;
		close(fd);
		return -err;
	}
	if (S_ISREG(st->st_mode) || (allow_dir && S_ISDIR(st->st_mode)))
		return fd;
	close(fd);
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	req->special = true;
	return -ENXIO;
}

/* Open path for data beneath the root (symlinks followed only while they stay beneath), never blocking. */
static int open_data(posix_client *c, rp_breq *req, const char *path, int flags, unsigned mode, bool allow_dir)
{
	struct stat st;
	return keep_data_fd(req, rp__posix_open(c, path, flags | O_NONBLOCK, mode), allow_dir, &st);
}

/*
 * chmod of name in dir itself, never of what a symlink there points at (it
 * may be outside the target): EOPNOTSUPP on a symlink, as the kernel answers
 * fchmodat2(AT_SYMLINK_NOFOLLOW).  Before Linux 6.6 glibc's fchmodat gives
 * the same flag the same meaning (an O_NOFOLLOW O_PATH open, then the inode
 * through /proc; EOPNOTSUPP for every file where /proc is missing).
 */
static int chmod_nofollow(int dir, const char *name, unsigned mode)
{
	if (syscall(SYS_fchmodat2, dir, name, mode, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != ENOSYS)
		return errno;
	return fchmodat(dir, name, mode, AT_SYMLINK_NOFOLLOW) < 0 ? errno : 0;
}

static int posix_create(void **out, const rp_backend_args *args, char *errbuf)
{
	posix_backend *const pb = calloc(1, sizeof(*pb));
	if (!pb)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	pb->o_sync = args->vals[P_OPT_SYNC].u != 0;
	pb->fsync_writes = args->vals[P_OPT_FSYNC_WRITES].u != 0;
	pb->force_walk = args->vals[P_OPT_NO_OPENAT2].u != 0;
	pb->setid = args->vals[P_OPT_SETID].u != 0;
	char *dir;
	const int rc = target_dir(args->target, &dir, errbuf);
	if (rc < 0) {
		free(pb);
		return rc;
	}
	pb->target = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pb->target < 0) {
		const int err = errno;
		free(pb);
		free(dir);
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", args->target, strerror(err));
	}
	free(dir);
	pthread_mutex_init(&pb->gens_mu, NULL);
	*out = pb;
	return 0;
}

static void posix_destroy(void *backend)
{
	posix_backend *const pb = backend;
	if (!pb)
		return;
	close(pb->target);
	for (posix_gen *g = pb->gens, *next; g; g = next) {
		next = g->next;
		free(g);
	}
	pthread_mutex_destroy(&pb->gens_mu);
	free(pb);
}

/* The generation shared by every client working in dir (made on first use); NULL without memory. */
static _Atomic uint64_t *gen_for(posix_backend *pb, const char *dir)
{
	pthread_mutex_lock(&pb->gens_mu);
	posix_gen *g = pb->gens;
	while (g && strcmp(g->dir, dir) != 0)
		g = g->next;
	if (!g) {
		const size_t n = strlen(dir);
		g = malloc(sizeof(*g) + n + 1);
		if (g) {
			atomic_init(&g->gen, 0);
			memcpy(g->dir, dir, n + 1);
			g->next = pb->gens;
			pb->gens = g;
		}
	}
	pthread_mutex_unlock(&pb->gens_mu);
	return g ? &g->gen : NULL;
}

static int posix_client_init(void *backend, void *client, const char *dir, char *errbuf)
{
	posix_backend *const pb = backend;
	posix_client *const c = client;
	const rp_beneath top = { .root = pb->target, .no_openat2 = &pb->no_openat2, .force_walk = pb->force_walk };
	if (dir[0]) {
		const char *name;
		const int parent = rp__beneath_parent(&top, dir, &name);
		if (parent < 0)
			return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", dir, strerror(-parent));
		const int rc = mkdirat(parent, name, 0777) < 0 && errno != EEXIST ? errno : 0;
		rp__beneath_close(&top, parent);
		if (rc)
			return rp_fail(errbuf, RP_E_SYSTEM, "mkdir %s: %s", dir, strerror(rc));
	}
	const int root = rp__beneath_open(&top, dir, O_PATH | O_DIRECTORY, 0);
	if (root < 0)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", dir[0] ? dir : ".", strerror(-root));
	c->b = top;
	c->b.root = root;
	rp__posix_cache_init(c);
	c->gen = gen_for(pb, dir);
	if (!c->gen) {
		close(root);
		c->b.root = -1;
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	c->gen_seen = atomic_load(c->gen);
	return 0;
}

static void posix_client_fini(void *backend, void *client)
{
	posix_client *const c = client;
	rp__posix_cache_flush(c);
	if (c->b.root >= 0)
		close(c->b.root);
	free(c->buf);
	c->buf = NULL;
}

static int do_open(posix_backend *pb, posix_client *c, rp_breq *req)
{
	const rp_open_plan o = rp_open_plan_of(req->op);
	int flags = o.flags;
	bool dir = o.dir;
	const unsigned mode = req->op->mode ? trace_mode(pb, req->op->mode) : dir ? 0777 : 0666;
	int fd;
	if (dir) {
		if (flags & O_CREAT) {
			const char *name;
			const int parent = rp__posix_parent(c, req->path, &name);
			if (parent < 0)
				return -parent;
			const int rc = mkdirat(parent, name, mode) < 0 ? errno : 0;
			rp__posix_release(c, parent);
			if (rc && (rc != EEXIST || (flags & O_EXCL)))
				return rc;
		}
		fd = rp__posix_open(c, req->path, O_RDONLY | O_DIRECTORY, 0);
	} else {
		if (pb->o_sync)
			flags |= O_SYNC;
		/* O_NONBLOCK: a FIFO must not hang the client (it changes nothing for regular files and directories). */
		flags |= O_NONBLOCK;
		fd = rp__posix_open(c, req->path, flags, mode);
		if (fd == -EACCES && o.fallback_ro && (flags & O_ACCMODE) == O_RDWR) {
			flags = (flags & ~O_ACCMODE) | O_RDONLY;
			fd = rp__posix_open(c, req->path, flags, mode);
		}
		bool path_only = false;
		if (fd == -EACCES && o.meta_only) { /* attributes only: no read permission needed */
			fd = rp__posix_open(c, req->path, O_PATH | (flags & O_DIRECTORY), 0);
			path_only = true; /* no data can move through it: any type of file will do */
		}
		struct stat st = { 0 };
		if (!path_only)
			fd = keep_data_fd(req, fd, true, &st);
		if (fd == -EISDIR && !o.not_dir && !(flags & (O_EXCL | O_TRUNC))) {
			fd = rp__posix_open(c, req->path, O_RDONLY | O_DIRECTORY, 0);
			dir = true;
		} else if (fd >= 0 && !path_only && (flags & O_ACCMODE) == O_RDONLY) {
			/* Read-only opens of a directory succeed in POSIX; one that must not be a directory, or empties it, fails. */
			if (S_ISDIR(st.st_mode)) {
				if (o.not_dir || (flags & (O_EXCL | O_TRUNC))) {
					close(fd);
					return EISDIR;
				}
				dir = true;
			}
		}
	}
	if (fd < 0)
		return -fd;
	pfile *const f = malloc(sizeof(*f));
	if (!f) {
		close(fd);
		return ENOMEM;
	}
	f->fd = fd;
	f->dir = dir;
	req->granted = dir ? RP_WANT_KNOWN | RP_WANT_ALL : rp_granted_of(flags);
	req->bh = (uint64_t)(uintptr_t)f;
	return 0;
}

static int do_close(posix_client *c, uint64_t bh)
{
	(void)c;
	pfile *const f = (pfile *)(uintptr_t)bh;
	const int rc = close(f->fd) < 0 ? errno : 0;
	free(f);
	return rc;
}

static int do_io(posix_backend *pb, posix_client *c, rp_breq *req, int fd, bool write)
{
	/* rp_breq.zero: prepare's zero fill; never read into, so one shared block serves every client. */
	static const char zeros[ZERO_CHUNK];
	uint64_t done = 0, left = req->op->length, off = req->op->offset;
	if (rp__posix_buf(c, left < IO_CHUNK ? (size_t)left : IO_CHUNK) < 0)
		return ENOMEM;
	const size_t chunk = write && req->zero ? ZERO_CHUNK : c->buf_size;
	while (left) {
		const size_t n = left < chunk ? (size_t)left : chunk;
		const ssize_t got = write ? pwrite(fd, req->zero ? zeros : c->buf, n, (off_t)off)
					  : pread(fd, c->buf, n, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			req->result = done;
			return errno;
		}
		done += (uint64_t)got;
		off += (uint64_t)got;
		left -= (uint64_t)got;
		if (!write && (size_t)got < n)
			break; /* end of file */
		/*
		 * A short write is continued: the file system took what it had room
		 * for, and the next call fails with the reason (ENOSPC, EFBIG,
		 * EDQUOT), which is the op's.  One that moves nothing without an
		 * error cannot finish either.
		 */
		if (write && got == 0) {
			req->result = done;
			return EIO;
		}
	}
	req->result = done;
	if (write && pb->fsync_writes && fsync(fd) < 0)
		return errno;
	/* A stable write (NFS FILE_SYNC, O_SYNC in the trace) reaches the disk before it completes. */
	if (write && (req->op->flags & RP_OPF_STABLE) && !pb->fsync_writes && fdatasync(fd) < 0)
		return errno;
	return 0;
}

static int do_lock(int fd, const rp_op *op, bool unlock)
{
	/* Open file description locks conflict between clients even though they share a process. */
	struct flock l;
	memset(&l, 0, sizeof(l));
	l.l_type = unlock ? F_UNLCK : (op->flags & RP_OPF_EXCLUSIVE) ? F_WRLCK : F_RDLCK;
	l.l_whence = SEEK_SET;
	l.l_start = (off_t)(op->offset & INT64_MAX);
	l.l_len = (off_t)(op->length & INT64_MAX);
	/* A waiting lock (F_SETLKW) is tried without waiting: replay never blocks on another client. */
	if (op->flags & RP_OPF_TEST) {
		/* Test only: a conflicting lock is reported as NFS4ERR_DENIED would be. */
		if (fcntl(fd, F_OFD_GETLK, &l) < 0)
			return errno;
		return l.l_type == F_UNLCK ? 0 : EAGAIN;
	}
	return fcntl(fd, F_OFD_SETLK, &l) < 0 ? errno : 0;
}

/* The times a setattr sets, for futimens/utimensat: UTIME_OMIT where it sets none. */
static void setattr_times(const rp_op *op, struct timespec ts[2])
{
	const uint64_t t[2] = { op->atime, op->mtime };
	const uint32_t set[2] = { RP_SA_ATIME, RP_SA_MTIME }, now[2] = { RP_SA_ATIME_NOW, RP_SA_MTIME_NOW };
	for (int i = 0; i < 2; i++) {
		if (op->attrs & set[i])
			ts[i] = (struct timespec){ .tv_sec = (time_t)(t[i] / 1000000000u), .tv_nsec = (long)(t[i] % 1000000000u) };
		else
			ts[i] = (struct timespec){ .tv_nsec = op->attrs & now[i] ? UTIME_NOW : UTIME_OMIT };
	}
}

#define SA_TIMES (RP_SA_ATIME | RP_SA_MTIME | RP_SA_ATIME_NOW | RP_SA_MTIME_NOW)
#define SA_ANY (RP_SA_SIZE | RP_SA_ALLOC | RP_SA_MODE | RP_SA_UID | RP_SA_GID | SA_TIMES)

/* Size and allocation on a descriptor open for writing: an allocation below the size truncates, above it keeps the data. */
static int set_size(int fd, const rp_op *op)
{
	if ((op->attrs & RP_SA_SIZE) && ftruncate(fd, (off_t)(op->length & INT64_MAX)) < 0)
		return errno;
	if (!(op->attrs & RP_SA_ALLOC))
		return 0;
	const off_t alloc = (off_t)(op->offset & INT64_MAX);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return errno;
	if (alloc < st.st_size)
		return ftruncate(fd, alloc) < 0 ? errno : 0;
	if (alloc > st.st_size && fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, alloc) < 0 && errno != EOPNOTSUPP)
		return errno;
	return 0;
}

/*
 * A setattr does what its attrs say (docs/op-model.md): size, allocation
 * (below the size it truncates, at or above it leaves the data), mode,
 * owner, times.  Change and creation times and DOS attributes have no POSIX
 * call: they are metadata updates, an fstat here.  Delete-on-close is the
 * engine's (replay/ntsem.c).
 */
static int do_setattr(posix_backend *pb, posix_client *c, rp_breq *req, int fd)
{
	const rp_op *const op = req->op;
	const uint32_t a = op->attrs;
	struct timespec ts[2];
	setattr_times(op, ts);
	const uid_t uid = a & RP_SA_UID ? (uid_t)op->uid : (uid_t)-1;
	const gid_t gid = a & RP_SA_GID ? (gid_t)op->gid : (gid_t)-1;
	struct stat st;
	int rc = 0;
	if (fd >= 0) {
		rc = set_size(fd, op);
		if (rc == 0 && (a & RP_SA_MODE) && fchmod(fd, trace_mode(pb, op->mode)) < 0)
			rc = errno;
		if (rc == 0 && (a & (RP_SA_UID | RP_SA_GID)) && fchown(fd, uid, gid) < 0)
			rc = errno;
		if (rc == 0 && (a & SA_TIMES) && futimens(fd, ts) < 0)
			rc = errno;
		if (rc == 0 && !(a & SA_ANY))
			rc = fstat(fd, &st) < 0 ? errno : 0;
		return rc;
	}
	/*
	 * By path (NFS SETATTR on a handle never opened): the attributes of the
	 * last component itself, as a file handle names it, so a symlink there is
	 * never followed (it may point outside the target): the size through an
	 * O_NOFOLLOW open (ELOOP on a symlink), the mode with chmod_nofollow, the
	 * owner and times with AT_SYMLINK_NOFOLLOW.
	 */
	const char *name;
	const int parent = rp__posix_parent(c, req->path, &name);
	if (parent < 0)
		return -parent;
	if (a & (RP_SA_SIZE | RP_SA_ALLOC)) {
		const int at = openat(parent, name, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		const int wfd = keep_data_fd(req, at < 0 ? -errno : at, false, &st);
		rc = wfd < 0 ? -wfd : set_size(wfd, op);
		if (wfd >= 0)
			close(wfd);
	}
	if (rc == 0 && (a & RP_SA_MODE))
		rc = chmod_nofollow(parent, name, trace_mode(pb, op->mode));
	if (rc == 0 && (a & (RP_SA_UID | RP_SA_GID)) && fchownat(parent, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
		rc = errno;
	if (rc == 0 && (a & SA_TIMES) && utimensat(parent, name, ts, AT_SYMLINK_NOFOLLOW) < 0)
		rc = errno;
	if (rc == 0 && !(a & SA_ANY))
		rc = fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? errno : 0;
	rp__posix_release(c, parent);
	return rc;
}

/* Ops on a parent directory and a last component; the root itself has no parent. */
static int do_at(posix_backend *pb, posix_client *c, const rp_breq *req)
{
	const rp_op *const op = req->op;
	struct stat st;
	if (req->path[0] == '\0' && (op->op == RP_OP_STAT || op->op == RP_OP_LOOKUP || op->op == RP_OP_ACCESS))
		return fstatat(c->b.root, "", &st, AT_EMPTY_PATH) < 0 ? errno : 0;
	const char *name;
	const int parent = rp__posix_parent(c, req->path, &name);
	if (parent < 0)
		return -parent;
	int rc = 0;
	bool moved = false; /* a directory may have moved or gone: cached fds beneath it are stale */
	switch (op->op) {
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		rc = fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW);
		break;
	case RP_OP_UNLINK:
		rc = unlinkat(parent, name, 0);
		break;
	case RP_OP_MKDIR:
		rc = mkdirat(parent, name, op->mode ? trace_mode(pb, op->mode) : 0777);
		break;
	case RP_OP_RMDIR:
		rc = unlinkat(parent, name, AT_REMOVEDIR);
		moved = rc == 0;
		break;
	case RP_OP_MKNOD: {
		/* Regular files and FIFOs only: a trace never gets to make device nodes. */
		const mode_t type = op->mode & S_IFMT;
		if (type && type != S_IFREG && type != S_IFIFO) {
			errno = EPERM;
			rc = -1;
			break;
		}
		rc = mknodat(parent, name, (type ? type : S_IFREG) | (op->mode & 07777 ? trace_mode(pb, op->mode) : 0666), 0);
		break;
	}
	case RP_OP_READLINK: {
		char buf[4096];
		const ssize_t n = readlinkat(parent, name, buf, sizeof(buf));
		rc = n < 0 ? -1 : 0;
		break;
	}
	case RP_OP_SYMLINK:
		/* path is the new link, path2 its contents: contents are never resolved by us. */
		rc = symlinkat(req->path2 ? req->path2 : "", parent, name);
		break;
	case RP_OP_RENAME:
	case RP_OP_LINK: {
		const char *name2;
		const int parent2 = req->path2 ? rp__posix_parent(c, req->path2, &name2) : -EINVAL;
		if (parent2 < 0) {
			rp__posix_release(c, parent);
			return -parent2;
		}
		if (op->op == RP_OP_LINK)
			rc = linkat(parent, name, parent2, name2, 0);
		else
			rc = renameat2(parent, name, parent2, name2,
				       (op->oflags & RP_RN_NOREPLACE ? RENAME_NOREPLACE : 0) |
					       (op->oflags & RP_RN_EXCHANGE ? RENAME_EXCHANGE : 0) |
					       (op->oflags & RP_RN_WHITEOUT ? RENAME_WHITEOUT : 0));
		const int err = errno;
		rp__posix_release(c, parent2);
		errno = err;
		moved = rc == 0 && op->op == RP_OP_RENAME;
		break;
	}
	default:
		errno = ENOSYS;
		rc = -1;
	}
	const int err = rc < 0 ? errno : 0;
	rp__posix_release(c, parent);
	if (moved) {
		rp__posix_forget(c, req->path);
		if (op->op == RP_OP_RENAME)
			rp__posix_forget(c, req->path2); /* a directory it replaced */
	}
	return err;
}

/*
 * A security descriptor query or set (getxattr/setxattr with wants and no
 * name: docs/op-model.md).  POSIX files have none beyond their attributes,
 * and the descriptor is not in the trace: the call made is an fstat.  The
 * engine's NT layer checked the handle's rights first.
 */
static int security_op(posix_client *c, const rp_breq *req, int hfd)
{
	struct stat st;
	if (hfd >= 0)
		return fstat(hfd, &st) < 0 ? errno : 0;
	const int fd = rp__posix_open(c, req->path ? req->path : "", O_PATH, 0);
	if (fd < 0)
		return -fd;
	const int rc = fstat(fd, &st) < 0 ? errno : 0;
	close(fd);
	return rc;
}

static int do_xattr(posix_client *c, rp_breq *req, int hfd)
{
	const rp_op *const op = req->op;
	if ((op->op == RP_OP_GETXATTR || op->op == RP_OP_SETXATTR) && op->want && !(req->path2 && req->path2[0]))
		return security_op(c, req, hfd);
	int fd = hfd;
	if (fd < 0) {
		fd = open_data(c, req, req->path ? req->path : "", O_RDONLY, 0, true);
		if (fd < 0)
			return -fd;
	}
	const char *const name = req->path2 && req->path2[0] ? req->path2 : "user.reprise";
	const size_t len = op->length < 65536 ? (size_t)op->length : 65536;
	int rc = rp__posix_buf(c, 65536) < 0 ? ENOMEM : 0;
	ssize_t n = 0;
	if (rc == 0) {
		switch (op->op) {
		case RP_OP_GETXATTR: n = fgetxattr(fd, name, c->buf, len ? len : c->buf_size); break;
		case RP_OP_SETXATTR: n = fsetxattr(fd, name, c->buf, len, 0); break;
		case RP_OP_LISTXATTR: n = flistxattr(fd, c->buf, c->buf_size); break;
		default: n = fremovexattr(fd, name); break;
		}
		rc = n < 0 ? errno : 0;
	}
	if (fd != hfd)
		close(fd);
	return rc;
}

/* Handle ops named by path (NFS READ3/WRITE3/COMMIT3, SMB1 READ/WRITE): open, do, close. */
static int by_path(posix_backend *pb, posix_client *c, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (op->op == RP_OP_CLOSE)
		return 0; /* nothing of ours is open under a path */
	const int flags = (op->op == RP_OP_READ ? O_RDONLY : O_RDWR) | (pb->o_sync ? O_SYNC : 0);
	const int fd = open_data(c, req, req->path, flags, 0, false);
	if (fd < 0)
		return -fd;
	int rc;
	switch (op->op) {
	case RP_OP_READ:
	case RP_OP_WRITE:
		rc = do_io(pb, c, req, fd, op->op == RP_OP_WRITE);
		break;
	case RP_OP_FLUSH:
		rc = fsync(fd) < 0 ? errno : 0;
		break;
	default:
		rc = do_lock(fd, op, op->op == RP_OP_UNLOCK);
		break;
	}
	close(fd);
	return rc;
}

static int posix_do(posix_backend *pb, posix_client *c, rp_breq *req)
{
	const rp_op *const op = req->op;
	if (req->no_handle)
		return EBADF; /* no fd: what the by-handle call would return, without resolving any path */
	const int fd = req->bh ? ((pfile *)(uintptr_t)req->bh)->fd : -1;
	if (fd < 0 && req->path &&
	    (op->op == RP_OP_READ || op->op == RP_OP_WRITE || op->op == RP_OP_FLUSH || op->op == RP_OP_LOCK ||
	     op->op == RP_OP_UNLOCK || op->op == RP_OP_CLOSE))
		return by_path(pb, c, req);
	switch (op->op) {
	case RP_OP_OPEN:
		return req->path ? do_open(pb, c, req) : EINVAL;
	case RP_OP_CLOSE:
		return req->bh ? do_close(c, req->bh) : EBADF;
	case RP_OP_READ:
	case RP_OP_WRITE: {
		if (fd < 0)
			return EBADF;
		return do_io(pb, c, req, fd, op->op == RP_OP_WRITE);
	}
	case RP_OP_FLUSH:
		return fd < 0 ? EBADF : (op->flags & RP_OPF_DATASYNC ? fdatasync(fd) : fsync(fd)) < 0 ? errno : 0;
	case RP_OP_LOCK:
	case RP_OP_UNLOCK:
		return fd < 0 ? EBADF : do_lock(fd, op, op->op == RP_OP_UNLOCK);
	case RP_OP_STATFS: {
		struct statfs sf;
		if (fd >= 0 || !req->path || !req->path[0])
			return fstatfs(fd >= 0 ? fd : c->b.root, &sf) < 0 ? errno : 0;
		/* By path: what it names, beneath the target (a probe of a path that is not there fails ENOENT) */
		const int pfd = rp__posix_open(c, req->path, O_PATH, 0);
		if (pfd < 0)
			return -pfd;
		const int rc = fstatfs(pfd, &sf) < 0 ? errno : 0;
		close(pfd);
		return rc;
	}
	case RP_OP_FALLOCATE: {
		if (fd < 0)
			return EBADF;
		/* punching a hole keeps the size, as Linux requires it to be asked */
		const int mode = (op->oflags & RP_FA_KEEP_SIZE ? FALLOC_FL_KEEP_SIZE : 0) |
				 (op->oflags & RP_FA_PUNCH_HOLE ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE : 0) |
				 (op->oflags & RP_FA_ZERO_RANGE ? FALLOC_FL_ZERO_RANGE : 0);
		return fallocate(fd, mode, (off_t)(op->offset & INT64_MAX), (off_t)(op->length & INT64_MAX)) < 0 ? errno : 0;
	}
	case RP_OP_COPY: {
		const int fd2 = req->bh2 ? ((pfile *)(uintptr_t)req->bh2)->fd : -1;
		return fd < 0 || fd2 < 0 ? EBADF : rp__posix_copy(c, req, fd, fd2);
	}
	case RP_OP_SETATTR:
		return fd >= 0 || req->path ? do_setattr(pb, c, req, fd) : EBADF;
	case RP_OP_READDIR:
		return rp__posix_readdir(pb, c, req, fd, &req->result);
	case RP_OP_DELTREE:
		return req->path ? rp__posix_deltree(c, req->path) : EINVAL;
	case RP_OP_GETXATTR:
	case RP_OP_SETXATTR:
	case RP_OP_LISTXATTR:
	case RP_OP_REMOVEXATTR:
		return do_xattr(c, req, fd);
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
		/* An open handle is what the op queries (SMB QUERY_INFO), even after its name went (delete pending). */
		if (!req->path || (fd >= 0 && op->op == RP_OP_STAT)) {
			struct stat st;
			return fd < 0 ? EBADF : fstat(fd, &st) < 0 ? errno : 0;
		}
		return do_at(pb, c, req);
	default:
		return req->path ? do_at(pb, c, req) : EINVAL;
	}
}

static int posix_submit(void *backend, void *client, rp_breq *req)
{
	req->result = 0;
	req->special = false;
	rp__posix_begin(client);
	req->status = posix_do(backend, client, req);
	if (req->cb)
		req->cb(req);
	return 0;
}

static void posix_release(void *backend, void *client, uint64_t bh)
{
	(void)backend;
	rp__posix_begin(client);
	do_close(client, bh);
}

const rp_backend_ops rp__backend_posix = {
	.version = RP_BACKEND_VERSION,
	.name = "posix",
	.summary = "local directory: *at() calls beneath the target (openat2 RESOLVE_BENEATH)",
	.caps = RP_BCAP_CONFINED | RP_BCAP_DATA,
	.client_size = sizeof(posix_client),
	.opts = posix_opts,
	.schemes = posix_schemes,
	/*
	 * Every op but mmap: a mapping's loads and stores are no calls to replay,
	 * so it is counted unsupported, never guessed.  (dup and fork are the
	 * engine's: the backend never sees them.)
	 */
	.op_mask = RP_BACKEND_ALL_OPS & ~(1ull << RP_OP_MMAP),
	.create = posix_create,
	.destroy = posix_destroy,
	.client_init = posix_client_init,
	.client_fini = posix_client_fini,
	.submit = posix_submit,
	.poll = NULL,
	.release = posix_release,
};
