/* The posix backend: every trace op as *at() calls strictly beneath the target directory. */
#include "replay/backends/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/* fchmodat2(2) (Linux 6.6): the one chmod that honours AT_SYMLINK_NOFOLLOW; newer syscalls share one number on every architecture. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* One read or write moves at most this much per call; larger requests loop. */
#define IO_CHUNK (16u * 1024u * 1024u)

/* SMB info levels (MS-CIFS 2.2.8, MS-FSCC 2.4) that change what setattr does. */
#define LEVEL_DISPOSITION 1013
#define LEVEL_ALLOCATION 1019
#define LEVEL_END_OF_FILE 1020
/* NFS SETATTR attribute mask bit for the size, as the NFS decoders record it (docs/capture-mapping.md). */
#define NFS_SET_SIZE 8
/* NFSv4 LOCKT (RFC 7530 op 13), as loadfile TEST4 records it in level (docs/loadfile.md). */
#define LEVEL_NFS4_LOCKT 13

/* What a backend handle points at. */
typedef struct pfile {
	int fd;
	bool delete_on_close;
	bool dir;
	/* An NT open grants only the data access it asked for: I/O beyond it is ACCESS_DENIED (EACCES). */
	bool no_read, no_write;
	uint32_t nt_access; /* NT: the access mask asked for (0: none recorded, everything) */
	/* NT: this handle's own shared locks (a shared lock blocks its holder's writes too), offset and length. */
	uint64_t (*shared)[2];
	uint32_t n_shared, cap_shared;
	char path[]; /* for delete-on-close */
} pfile;

static const rp_backend_opt posix_opts[] = {
	{ "sync", NULL, "open every file O_SYNC (dbench -s)" },
	{ "fsync-writes", NULL, "fsync after every write (dbench -F)" },
	{ "no-openat2", NULL, "resolve paths with the O_NOFOLLOW component walk even where openat2 exists" },
	{ "setid", NULL, "apply the trace's setuid and setgid bits (dropped otherwise; the sticky bit always applies)" },
	{ NULL, NULL, NULL },
};

int rp__posix_buf(posix_client *c, size_t n)
{
	if (c->buf_size >= n)
		return 0;
	char *const b = realloc(c->buf, n);
	if (!b)
		return -ENOMEM;
	/* Written data is a fixed pattern, not whatever was read last. */
	memset(b + c->buf_size, 0x5a, n - c->buf_size);
	c->buf = b;
	c->buf_size = n;
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
	for (size_t i = 0; i < args->n_kv; i++) {
		const char *const k = args->kv[i].key;
		if (strcmp(k, "sync") == 0)
			pb->o_sync = true;
		else if (strcmp(k, "fsync-writes") == 0)
			pb->fsync_writes = true;
		else if (strcmp(k, "no-openat2") == 0)
			pb->force_walk = true;
		else if (strcmp(k, "setid") == 0)
			pb->setid = true;
	}
	pb->target = open(args->target, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pb->target < 0) {
		const int err = errno;
		free(pb);
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", args->target, strerror(err));
	}
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

/* How to open what an open op names, in the trace's dialect. */
typedef struct oflags {
	int flags;        /* open(2) flags */
	bool dir;         /* wants a directory */
	bool file;        /* must not be one (NT FILE_NON_DIRECTORY_FILE) */
	bool doc;         /* delete on close */
	bool fallback_ro; /* no access was asked for as such: read-write, else read-only */
	bool meta_only;   /* NT: no data access asked for (attributes, DELETE, ...): O_PATH if unreadable */
	bool nt;          /* NT semantics: a directory opened read-only is found out; I/O checks the access */
	bool no_read, no_write;
} oflags;

static const uint32_t nt_read_bits = RP_NT_READ_DATA | RP_NT_EXECUTE | RP_NT_GENERIC_READ | RP_NT_GENERIC_EXECUTE |
				     RP_NT_GENERIC_ALL;
static const uint32_t nt_write_bits = RP_NT_WRITE_DATA | RP_NT_APPEND_DATA | RP_NT_GENERIC_WRITE | RP_NT_GENERIC_ALL;

static int nt_accmode(uint32_t access, oflags *o)
{
	/* No mask (dbench loadfiles) or MAXIMUM_ALLOWED: as much as the file allows. */
	if (access == 0 || (access & RP_NT_MAXIMUM_ALLOWED)) {
		o->fallback_ro = true;
		return O_RDWR;
	}
	const bool rd = (access & nt_read_bits) != 0, wr = (access & nt_write_bits) != 0;
	o->no_read = !rd;
	o->no_write = !wr;
	if (rd && wr)
		return O_RDWR;
	if (wr)
		return O_WRONLY; /* FILE_APPEND_DATA too: SMB writes carry their offset, O_APPEND would ignore it */
	o->meta_only = !rd;
	return O_RDONLY;
}

static oflags open_flags(const rp_breq *req)
{
	const rp_op *const op = req->op;
	oflags o = { .dir = (op->flags & RP_OPF_DIRECTORY) != 0 };
	switch (req->dialect) {
	case RP_DIALECT_NT: {
		o.nt = true;
		o.dir = o.dir || (op->options & RP_NT_DIRECTORY_FILE);
		o.file = (op->options & RP_NT_NON_DIRECTORY_FILE) != 0;
		o.doc = (op->options & RP_NT_DELETE_ON_CLOSE) != 0;
		static const int disp[] = {
			[RP_NT_SUPERSEDE] = O_CREAT | O_TRUNC, [RP_NT_OPEN] = 0,
			[RP_NT_CREATE] = O_CREAT | O_EXCL,     [RP_NT_OPEN_IF] = O_CREAT,
			[RP_NT_OVERWRITE] = O_TRUNC,           [RP_NT_OVERWRITE_IF] = O_CREAT | O_TRUNC,
		};
		o.flags = nt_accmode(op->access, &o) | (op->disposition <= RP_NT_OVERWRITE_IF ? disp[op->disposition] : 0);
		return o;
	}
	case RP_DIALECT_POSIX:
		o.dir = o.dir || (op->access & O_DIRECTORY);
		o.flags = (int)(op->access & (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_DIRECTORY));
		return o;
	case RP_DIALECT_NFS:
		/* NFSv4 OPEN records share_access as O_ flags; NFSv3 and loadfiles have none (0): read-write. */
		if (op->access & (O_ACCMODE | O_CREAT))
			o.flags = (int)(op->access & O_ACCMODE);
		else {
			o.flags = O_RDWR;
			o.fallback_ro = true;
		}
		/* Loadfiles record createhow as an NT disposition: GUARDED/EXCLUSIVE as CREATE (docs/loadfile.md). */
		if (op->flags & RP_OPF_CREATE)
			o.flags |= O_CREAT | (op->disposition == RP_NT_CREATE ? O_EXCL : 0);
		return o;
	}
	o.flags = O_RDWR;
	o.fallback_ro = true;
	return o;
}

static int do_open(posix_backend *pb, posix_client *c, rp_breq *req)
{
	oflags o = open_flags(req);
	int flags = o.flags;
	const unsigned mode = req->op->mode ? trace_mode(pb, req->op->mode) : o.dir ? 0777 : 0666;
	int fd;
	if (o.dir) {
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
			fd = rp__posix_open(c, req->path, (flags & ~O_ACCMODE) | O_RDONLY, mode);
			o.no_write = o.nt;
		}
		bool path_only = false;
		if (fd == -EACCES && o.meta_only) { /* attributes only: no read permission needed */
			fd = rp__posix_open(c, req->path, O_PATH | (flags & O_DIRECTORY), 0);
			path_only = true; /* no data can move through it: any type of file will do */
		}
		struct stat st = { 0 };
		if (!path_only)
			fd = keep_data_fd(req, fd, true, &st);
		if (fd == -EISDIR && !o.file && !(flags & (O_EXCL | O_TRUNC))) {
			fd = rp__posix_open(c, req->path, O_RDONLY | O_DIRECTORY, 0);
			o.dir = true;
		} else if (fd >= 0 && !path_only && o.nt && (flags & O_ACCMODE) == O_RDONLY) {
			/* Read-only opens of a directory succeed in POSIX; SMB tells them apart. */
			if (S_ISDIR(st.st_mode)) {
				if (o.file || (flags & (O_EXCL | O_TRUNC))) {
					close(fd);
					return EISDIR;
				}
				o.dir = true;
			}
		}
	}
	if (fd < 0)
		return -fd;
	const size_t plen = strlen(req->path);
	pfile *const f = malloc(sizeof(*f) + plen + 1);
	if (!f) {
		close(fd);
		return ENOMEM;
	}
	f->fd = fd;
	f->dir = o.dir;
	f->delete_on_close = o.doc;
	f->no_read = o.no_read;
	f->no_write = o.no_write;
	f->nt_access = req->dialect == RP_DIALECT_NT ? req->op->access : 0;
	f->shared = NULL;
	f->n_shared = f->cap_shared = 0;
	memcpy(f->path, req->path, plen + 1);
	req->bh = (uint64_t)(uintptr_t)f;
	return 0;
}

static int do_close(posix_client *c, uint64_t bh)
{
	pfile *const f = (pfile *)(uintptr_t)bh;
	int rc = close(f->fd) < 0 ? errno : 0;
	if (f->delete_on_close) {
		const char *name;
		const int parent = rp__posix_parent(c, f->path, &name);
		if (parent >= 0) {
			const bool gone = unlinkat(parent, name, f->dir ? AT_REMOVEDIR : 0) == 0;
			if (!gone && rc == 0 && errno != ENOENT)
				rc = errno;
			rp__posix_release(c, parent);
			if (gone && f->dir)
				rp__posix_forget(c, f->path);
		}
	}
	free(f->shared);
	free(f);
	return rc;
}

static int do_io(posix_backend *pb, posix_client *c, rp_breq *req, int fd, bool write)
{
	uint64_t done = 0, left = req->op->length, off = req->op->offset;
	if (rp__posix_buf(c, left < IO_CHUNK ? (size_t)left : IO_CHUNK) < 0)
		return ENOMEM;
	while (left) {
		const size_t n = left < c->buf_size ? (size_t)left : c->buf_size;
		const ssize_t got = write ? pwrite(fd, c->buf, n, (off_t)off) : pread(fd, c->buf, n, (off_t)off);
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
	/*
	 * In the NT dialect a read that gets nothing for a non-zero length, at or
	 * past the end of file, is STATUS_END_OF_FILE (MS-SMB2 3.3.5.12), which
	 * the status tables map to ENODATA; POSIX and NFS call it success.
	 */
	if (!write && done == 0 && req->op->length > 0 && req->dialect == RP_DIALECT_NT)
		return ENODATA;
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
	if (op->level == LEVEL_NFS4_LOCKT) {
		/* Test only: a conflicting lock is reported as NFS4ERR_DENIED would be. */
		if (fcntl(fd, F_OFD_GETLK, &l) < 0)
			return errno;
		return l.l_type == F_UNLCK ? 0 : EAGAIN;
	}
	return fcntl(fd, F_OFD_SETLK, &l) < 0 ? errno : 0;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/*
 * SMB byte-range locks are mandatory (MS-FSA 2.1.4.10): a read conflicts with
 * another open's exclusive lock on the range, a write with another open's lock
 * of either kind and with a shared lock of its own; the op fails
 * FILE_LOCK_CONFLICT (EAGAIN).  OFD locks are advisory, so the backend asks
 * (F_OFD_GETLK, which sees other opens' locks) and keeps the handle's own shared
 * ones.  Only once some NT lock was taken in the run: until then it costs nothing.
 */
static int nt_lock_conflict(posix_backend *pb, const pfile *f, int fd, const rp_op *op, bool write)
{
	if (!atomic_load_explicit(&pb->nt_locks, memory_order_relaxed) || !op->length)
		return 0;
	if (write)
		for (uint32_t i = 0; i < f->n_shared; i++)
			if (overlaps(op->offset, op->length, f->shared[i][0], f->shared[i][1]))
				return EAGAIN;
	struct flock l;
	memset(&l, 0, sizeof(l));
	l.l_type = write ? F_WRLCK : F_RDLCK;
	l.l_whence = SEEK_SET;
	l.l_start = (off_t)(op->offset & INT64_MAX);
	l.l_len = (off_t)(op->length & INT64_MAX);
	if (fcntl(fd, F_OFD_GETLK, &l) < 0)
		return 0; /* cannot tell (O_PATH handle): no conflict */
	return l.l_type == F_UNLCK ? 0 : EAGAIN;
}

/* Keep an NT handle's own shared locks after a lock or unlock that succeeded. */
static int nt_track_lock(pfile *f, const rp_op *op, bool unlock)
{
	if (unlock) {
		for (uint32_t i = 0; i < f->n_shared; i++)
			if (f->shared[i][0] == op->offset && f->shared[i][1] == op->length) {
				f->shared[i][0] = f->shared[f->n_shared - 1][0];
				f->shared[i][1] = f->shared[--f->n_shared][1];
				break;
			}
		return 0;
	}
	if (op->flags & RP_OPF_EXCLUSIVE)
		return 0;
	if (f->n_shared == f->cap_shared) {
		const uint32_t cap = f->cap_shared ? f->cap_shared * 2 : 4;
		uint64_t(*const sh)[2] = realloc(f->shared, cap * sizeof(*sh));
		if (!sh)
			return ENOMEM;
		f->shared = sh;
		f->cap_shared = cap;
	}
	f->shared[f->n_shared][0] = op->offset;
	f->shared[f->n_shared++][1] = op->length;
	return 0;
}

/* The size a setattr sets, if it sets one: SMB end of file or allocation, NFS size (docs/capture-mapping.md). */
static bool setattr_size(const rp_breq *req, off_t *size)
{
	const rp_op *const op = req->op;
	bool sets = false;
	if (req->dialect == RP_DIALECT_NT)
		sets = op->level == LEVEL_END_OF_FILE || op->level == LEVEL_ALLOCATION ||
		       op->level == LEVEL_END_OF_FILE - 1000 || op->level == LEVEL_ALLOCATION - 1000;
	else if (req->dialect == RP_DIALECT_NFS)
		sets = (op->level & NFS_SET_SIZE) != 0;
	*size = (off_t)(op->length & INT64_MAX);
	return sets;
}

static int do_setattr(posix_backend *pb, posix_client *c, rp_breq *req, int fd)
{
	const rp_op *const op = req->op;
	off_t size;
	const bool sized = setattr_size(req, &size);
	if (fd >= 0) {
		pfile *const f = (pfile *)(uintptr_t)req->bh;
		if (req->dialect == RP_DIALECT_NT && op->level == LEVEL_DISPOSITION) {
			f->delete_on_close = true; /* dbench's SMB1 Sfileinfo 1013 */
			return 0;
		}
		if (req->dialect == RP_DIALECT_NT && (op->level == 13 || op->level == 64)) {
			/* SMB2 FileDisposition(Ex)Information: the decoder made the "delete" ones unlinks; this clears it. */
			f->delete_on_close = false;
			return 0;
		}
		if (sized) {
			if (f->no_write)
				return EACCES;
			if (ftruncate(fd, size) < 0)
				return errno;
			if (req->dialect == RP_DIALECT_NT)
				return 0;
		}
		if (op->mode && fchmod(fd, trace_mode(pb, op->mode)) < 0)
			return errno;
		return futimens(fd, NULL) < 0 ? errno : 0;
	}
	/*
	 * By path (NFS SETATTR on a handle never opened): the attributes of the
	 * last component itself, as a file handle names it, so a symlink there is
	 * never followed (it may point outside the target): the size through an
	 * O_NOFOLLOW open (ELOOP on a symlink), the mode with chmod_nofollow, the
	 * times with AT_SYMLINK_NOFOLLOW.
	 */
	const char *name;
	const int parent = rp__posix_parent(c, req->path, &name);
	if (parent < 0)
		return -parent;
	int rc = 0;
	if (sized) {
		struct stat st;
		const int at = openat(parent, name, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		const int wfd = keep_data_fd(req, at < 0 ? -errno : at, false, &st);
		rc = wfd < 0 ? -wfd : ftruncate(wfd, size) < 0 ? errno : 0;
		if (wfd >= 0)
			close(wfd);
	}
	if (rc == 0 && op->mode)
		rc = chmod_nofollow(parent, name, trace_mode(pb, op->mode));
	if (rc == 0 && utimensat(parent, name, NULL, AT_SYMLINK_NOFOLLOW) < 0)
		rc = errno;
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
			/* SMB renames never replace an existing target; POSIX and NFS ones do. */
			rc = renameat2(parent, name, parent2, name2,
				       req->dialect == RP_DIALECT_NT ? RENAME_NOREPLACE : 0);
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

/* ACCESS_MASK bits (MS-DTYP 2.4.3) and SECURITY_INFORMATION bits (MS-DTYP 2.4.7) the NT security ops need. */
#define NT_READ_CONTROL 0x00020000u
#define NT_WRITE_DAC 0x00040000u
#define NT_WRITE_OWNER 0x00080000u
#define NT_ACCESS_SYSTEM_SECURITY 0x01000000u
#define NT_SI_OWNER_GROUP 0x3u
#define NT_SI_DACL 0x4u
#define NT_SI_SACL 0x8u

/* What an NT access mask grants of the standard rights, generic rights mapped as for files. */
static uint32_t nt_granted(uint32_t access)
{
	if (access == 0 || (access & RP_NT_MAXIMUM_ALLOWED))
		return UINT32_MAX; /* none recorded (loadfiles), or as much as allowed */
	uint32_t g = access;
	if (access & (RP_NT_GENERIC_READ | RP_NT_GENERIC_WRITE | RP_NT_GENERIC_EXECUTE))
		g |= NT_READ_CONTROL; /* FILE_GENERIC_READ/WRITE/EXECUTE all hold READ_CONTROL */
	if (access & RP_NT_GENERIC_ALL)
		g |= NT_READ_CONTROL | NT_WRITE_DAC | NT_WRITE_OWNER;
	return g;
}

/*
 * SMB QUERY_INFO / SET_INFO SECURITY (getxattr, setxattr with no name; level =
 * AdditionalInformation).  Every file has a security descriptor, so the query
 * succeeds unless the open lacks the right the parts asked for need: READ_CONTROL
 * to read, WRITE_OWNER for owner and group, WRITE_DAC for the DACL,
 * ACCESS_SYSTEM_SECURITY for the SACL (MS-SMB2 3.3.5.20.3, 3.3.5.21.3): ACCESS_DENIED.
 * The descriptor itself is not in the trace: the call made is an fstat.
 */
static int nt_security(posix_client *c, const rp_breq *req, int hfd)
{
	const rp_op *const op = req->op;
	const bool set = op->op == RP_OP_SETXATTR;
	uint32_t need = 0;
	if (op->level & NT_SI_SACL)
		need |= NT_ACCESS_SYSTEM_SECURITY;
	if (set) {
		need |= op->level & NT_SI_OWNER_GROUP ? NT_WRITE_OWNER : 0;
		need |= op->level & NT_SI_DACL ? NT_WRITE_DAC : 0;
		need |= op->level & ~(NT_SI_OWNER_GROUP | NT_SI_DACL | NT_SI_SACL) ? NT_WRITE_OWNER : 0;
	} else if (op->level & ~NT_SI_SACL || op->level == 0) {
		need |= NT_READ_CONTROL;
	}
	struct stat st;
	if (hfd >= 0) {
		const pfile *const f = (const pfile *)(uintptr_t)req->bh;
		if ((nt_granted(f->nt_access) & need) != need)
			return EACCES;
		return fstat(hfd, &st) < 0 ? errno : 0;
	}
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
	if (req->dialect == RP_DIALECT_NT && (op->op == RP_OP_GETXATTR || op->op == RP_OP_SETXATTR) &&
	    !(req->path2 && req->path2[0]))
		return nt_security(c, req, hfd);
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
		const pfile *const f = (const pfile *)(uintptr_t)req->bh;
		if (op->op == RP_OP_WRITE ? f->no_write : f->no_read)
			return EACCES;
		if (req->dialect == RP_DIALECT_NT) {
			const int conflict = nt_lock_conflict(pb, f, fd, op, op->op == RP_OP_WRITE);
			if (conflict)
				return conflict;
		}
		return do_io(pb, c, req, fd, op->op == RP_OP_WRITE);
	}
	case RP_OP_FLUSH:
		return fd < 0 ? EBADF : fsync(fd) < 0 ? errno : 0;
	case RP_OP_LOCK:
	case RP_OP_UNLOCK: {
		if (fd < 0)
			return EBADF;
		const int rc = do_lock(fd, op, op->op == RP_OP_UNLOCK);
		if (rc || req->dialect != RP_DIALECT_NT)
			return rc;
		atomic_store_explicit(&pb->nt_locks, true, memory_order_relaxed);
		return nt_track_lock((pfile *)(uintptr_t)req->bh, op, op->op == RP_OP_UNLOCK);
	}
	case RP_OP_STATFS: {
		struct statfs sf;
		return fstatfs(fd >= 0 ? fd : c->b.root, &sf) < 0 ? errno : 0;
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
	.create = posix_create,
	.destroy = posix_destroy,
	.client_init = posix_client_init,
	.client_fini = posix_client_fini,
	.submit = posix_submit,
	.poll = NULL,
	.release = posix_release,
};
