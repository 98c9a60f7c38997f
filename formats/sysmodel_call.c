/* Typed file-syscall events -> ops, the calls: what each event kind becomes (docs/syscall-capture.md; the ops of docs/strace.md). */
#include <fcntl.h>
#include <string.h>

#include "formats/semantics.h"
#include "formats/sysmodel_int.h"

/* Linux values the events carry (the kernel's ABI, whatever libc's headers call them). */
#define L_AT_REMOVEDIR 0x200
#define L_CLOSE_RANGE_CLOEXEC 4
#define L_F_GETLK 5
#define L_F_SETLK 6
#define L_F_SETLKW 7
#define L_F_GETLK64 12 /* the 32-bit ABI's; on 64-bit hosts F_GETLK64 is F_GETLK */
#define L_F_SETLK64 13
#define L_F_SETLKW64 14
#define L_F_OFD_GETLK 36
#define L_F_OFD_SETLK 37
#define L_F_OFD_SETLKW 38
#define L_F_WRLCK 1
#define L_F_UNLCK 2
#define L_SEEK_CUR 1
#define L_SEEK_END 2
#define L_LOCK_EX 2
#define L_LOCK_NB 4
#define L_LOCK_UN 8
#define L_MAP_ANONYMOUS 0x20
#define L_UTIME_NOW (-1)
#define L_UTIME_OMIT (-2)
#define L_EBADF 9

/* The file fd a call acts on: R_OP with its entry, R_NONE (a non-file, an fd never seen: counted), R_BAD. */
static int use_fd(rp__sm_cx *c, int64_t fd, rp__sm_fd **out)
{
	if (!rp__sm_fd_ok(fd))
		return R_BAD;
	rp__sm_fd *const e = rp__sm_fd_slot(c->m, c->pr, fd, false);
	if (!e || e->state == RP__SM_FREE) {
		c->m->st.unknown_fd++;
		return R_NONE;
	}
	if (e->state == RP__SM_NONFILE) {
		c->m->st.nonfile++;
		return R_NONE;
	}
	*out = e;
	return R_OP;
}

/* The op's handle and path from fd (as use_fd). */
static int op_fd(rp__sm_cx *c, int64_t fd, rp__sm_fd **out)
{
	rp__sm_fd *e = NULL;
	const int r = use_fd(c, fd, &e);
	if (r != R_OP)
		return r;
	c->op.handle = e->handle;
	c->op.path = e->path;
	c->hidden = c->hidden || e->hidden;
	if (out)
		*out = e;
	return R_OP;
}

/*
 * Path i joined to dirfd into *id: R_OP, R_BAD (too long once joined), or a
 * negative rp error.  An absent path is the empty one: the rings do not tell
 * them apart (sysev.h).
 */
static int path_at(rp__sm_cx *c, unsigned i, int64_t dirfd, uint32_t *id)
{
	const char *const p = c->ev->p[i] ? c->ev->p[i] : "";
	const int r = rp__sm_path(c->m, c->pr, dirfd, p, c->ev->p[i] ? c->ev->plen[i] : 0, id);
	return r < 0 ? r : r ? R_OP : R_BAD;
}

/* Path i as it is (a symlink's contents, an attribute name): never joined. */
static int raw_str(rp__sm_cx *c, unsigned i, uint32_t *id)
{
	const int64_t got = rp__sm_intern(c->m, c->ev->p[i] ? c->ev->p[i] : "", c->ev->p[i] ? c->ev->plen[i] : 0);
	if (got < 0)
		return (int)got;
	*id = (uint32_t)got;
	return R_OP;
}

/* By path p0 against dirfd, or by the fd dirfd itself when the path is empty (fstat, AT_EMPTY_PATH). */
static int bypath(rp__sm_cx *c, rp_opcode code, int64_t dirfd)
{
	c->op.op = (uint16_t)code;
	const bool empty = !c->ev->p[0] || !c->ev->plen[0];
	if (empty && dirfd != RP__SM_AT_FDCWD)
		return op_fd(c, dirfd, NULL);
	return path_at(c, 0, dirfd, &c->op.path);
}

/* By fd a[fi], or (fd -1) by path p0 against dirfd a[di]. */
static int fd_or_path(rp__sm_cx *c, rp_opcode code, unsigned fi, int64_t dirfd)
{
	c->op.op = (uint16_t)code;
	const int64_t fd = c->ev->a[fi];
	if (fd == -1)
		return bypath(c, code, dirfd);
	return op_fd(c, fd, NULL);
}

/* ---- the calls ---- */

static int ev_open(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	const int64_t fl = ev->a[1];
	if (fl < INT32_MIN || fl > UINT32_MAX)
		return R_BAD;
	const int flags = (int)(uint32_t)fl;
	const int r = path_at(c, 0, ev->a[0], &c->op.path);
	if (r != R_OP)
		return r;
	c->op.op = RP_OP_OPEN;
	rp_sem_posix_open(&c->op, flags);
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		c->op.mode = (uint32_t)ev->a[2] & 07777u;
	if (!c->ok)
		return R_OP;
	if (!rp__sm_fd_ok(ev->ret))
		return R_BAD;
	/* a path opened is a file op whatever it turned out to be (a device, a FIFO) */
	c->op.handle = rp__sm_new_fd(c->m, c->pr, ev->ret, c->op.path, (flags & O_CLOEXEC) != 0, 0);
	c->made = ev->ret;
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		c->op.result = RP_ACT_CREATED;
	else if (!(flags & O_CREAT))
		c->op.result = flags & O_TRUNC ? RP_ACT_TRUNCATED : RP_ACT_OPENED;
	if ((flags & O_DIRECTORY) && (flags & O_TMPFILE) != O_TMPFILE)
		c->op.flags |= RP_OPF_DIRECTORY;
	return R_OP;
}

static int ev_close(rp__sm_cx *c)
{
	const int64_t fd = c->ev->a[0];
	rp__sm_fd *e = NULL;
	const int r = op_fd(c, fd, &e);
	c->op.op = RP_OP_CLOSE;
	/* closed even on EINTR/EIO (Linux frees the fd); EBADF: it was not open */
	const bool closed = c->ok || c->ev->ret != -L_EBADF;
	if (r == R_OP && closed)
		*e = (rp__sm_fd){ 0 };
	if (r == R_NONE && closed) { /* a pipe or socket: forget it */
		rp__sm_fd *const s = rp__sm_fd_slot(c->m, c->pr, fd, false);
		if (s)
			*s = (rp__sm_fd){ 0 };
	}
	return r;
}

/* close_range: the fds go (or get close-on-exec), without ops, as the strace importer makes none. */
static int ev_close_range(rp__sm_cx *c)
{
	const int64_t first = c->ev->a[0], last = c->ev->a[1];
	if (first < 0 || last < first)
		return R_BAD;
	if (!c->ok)
		return R_NONE;
	rp__sm_proc *const p = c->pr;
	const uint64_t end = (uint64_t)last < p->cap ? (uint64_t)last + 1 : p->cap;
	for (uint64_t fd = (uint64_t)first; fd < end; fd++) {
		if (c->ev->a[2] & L_CLOSE_RANGE_CLOEXEC)
			p->fds[fd].cloexec = p->fds[fd].state != RP__SM_FREE;
		else
			p->fds[fd] = (rp__sm_fd){ 0 };
	}
	return R_NONE;
}

static int ev_io(rp__sm_cx *c, rp_opcode code)
{
	const rp_sysev *const ev = c->ev;
	if (ev->a[2] < 0)
		return R_BAD;
	rp__sm_fd *e = NULL;
	const int r = op_fd(c, ev->a[0], &e);
	if (r != R_OP)
		return r;
	c->op.op = (uint16_t)code;
	c->op.length = (uint64_t)ev->a[2];
	const bool positional = ev->a[1] >= 0; /* -1: the fd's position */
	c->op.offset = positional ? (uint64_t)ev->a[1] : e->pos;
	if (c->ok) {
		c->op.result = (uint64_t)ev->ret;
		if (ev->a[3] == 1 && !c->op.length)
			c->op.length = c->op.result; /* a vector whose sizes were not recorded */
		if (!positional)
			e->pos += (uint64_t)ev->ret;
	}
	return R_OP;
}

static int ev_lseek(rp__sm_cx *c)
{
	if (!rp__sm_fd_ok(c->ev->a[0]))
		return R_BAD;
	rp__sm_fd *const e = rp__sm_fd_slot(c->m, c->pr, c->ev->a[0], false);
	if (c->ok && e && e->state != RP__SM_FREE)
		e->pos = (uint64_t)c->ev->ret;
	return R_NONE;
}

static int ev_fallocate(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	if (ev->a[2] < 0 || ev->a[3] < 0)
		return R_BAD;
	const int r = op_fd(c, ev->a[0], NULL);
	const int64_t mode = ev->a[1];
	c->op.op = RP_OP_FALLOCATE;
	/* FALLOC_FL_KEEP_SIZE 1, PUNCH_HOLE 2, ZERO_RANGE 0x10; the others are not in the op model */
	c->op.oflags = (mode & 1 ? RP_FA_KEEP_SIZE : 0) | (mode & 2 ? RP_FA_PUNCH_HOLE : 0) |
		       (mode & 0x10 ? RP_FA_ZERO_RANGE : 0);
	c->op.offset = (uint64_t)ev->a[2];
	c->op.length = (uint64_t)ev->a[3];
	return r;
}

static int ev_access(rp__sm_cx *c)
{
	const int64_t am = c->ev->a[1];
	const int r = bypath(c, RP_OP_ACCESS, c->ev->a[0]);
	if (r != R_OP)
		return r;
	c->op.want = RP_WANT_KNOWN | (am & 4 ? RP_WANT_READ : 0) | (am & 2 ? RP_WANT_WRITE : 0) |
		     (am & 1 ? RP_WANT_EXEC : 0);
	c->op.result = c->ok ? c->op.want : 0;
	return R_OP;
}

static int ev_two_paths(rp__sm_cx *c, rp_opcode code)
{
	c->op.op = (uint16_t)code;
	const int r = path_at(c, 0, c->ev->a[0], &c->op.path);
	return r != R_OP ? r : path_at(c, 1, c->ev->a[1], &c->op.path2);
}

static int ev_rename(rp__sm_cx *c)
{
	const int64_t f = c->ev->a[2];
	c->op.oflags = (f & 1 ? RP_RN_NOREPLACE : 0) | (f & 2 ? RP_RN_EXCHANGE : 0) | (f & 4 ? RP_RN_WHITEOUT : 0);
	const int r = ev_two_paths(c, RP_OP_RENAME);
	if (r != R_OP || !c->ok || (f & 2)) /* an exchange: both names stay, the files swap (not followed) */
		return r;
	const int rc = rp__sm_renamed(c->m, c->op.path, c->op.path2);
	return rc < 0 ? rc : R_OP;
}

static int ev_symlink(rp__sm_cx *c)
{
	c->op.op = RP_OP_SYMLINK;
	const int r = raw_str(c, 0, &c->op.path2); /* its contents: never resolved */
	return r != R_OP ? r : path_at(c, 1, c->ev->a[0], &c->op.path);
}

static int ev_chown(rp__sm_cx *c)
{
	const int64_t u = c->ev->a[2], g = c->ev->a[3];
	if (u < -1 || g < -1 || u > UINT32_MAX || g > UINT32_MAX)
		return R_BAD;
	const int r = fd_or_path(c, RP_OP_SETATTR, 0, c->ev->a[1]);
	if (u >= 0 && u != UINT32_MAX) { /* -1 (also as a uid_t) leaves it unchanged */
		c->op.attrs |= RP_SA_UID;
		c->op.uid = (uint32_t)u;
	}
	if (g >= 0 && g != UINT32_MAX) {
		c->op.attrs |= RP_SA_GID;
		c->op.gid = (uint32_t)g;
	}
	return r;
}

/* One time of utimens: its attrs bits and value; false for a negative value other than NOW and OMIT. */
static bool utime_one(int64_t v, uint32_t set, uint32_t now, uint32_t *attrs, uint64_t *ns)
{
	if (v == L_UTIME_NOW)
		*attrs |= now;
	else if (v >= 0) {
		*attrs |= set;
		*ns = (uint64_t)v;
	} else if (v != L_UTIME_OMIT)
		return false;
	return true;
}

static int ev_utimens(rp__sm_cx *c)
{
	uint32_t attrs = 0;
	if (!utime_one(c->ev->a[2], RP_SA_ATIME, RP_SA_ATIME_NOW, &attrs, &c->op.atime) ||
	    !utime_one(c->ev->a[3], RP_SA_MTIME, RP_SA_MTIME_NOW, &attrs, &c->op.mtime))
		return R_BAD;
	const int r = fd_or_path(c, RP_OP_SETATTR, 0, c->ev->a[1]);
	c->op.attrs = attrs;
	return r;
}

static int ev_lock(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	const int64_t cmd = ev->a[1];
	const bool test = cmd == L_F_GETLK || cmd == L_F_GETLK64 || cmd == L_F_OFD_GETLK;
	const bool wait = cmd == L_F_SETLKW || cmd == L_F_SETLKW64 || cmd == L_F_OFD_SETLKW;
	if (!test && !wait && cmd != L_F_SETLK && cmd != L_F_SETLK64 && cmd != L_F_OFD_SETLK)
		return R_BAD;
	rp__sm_fd *e = NULL;
	const int r = op_fd(c, ev->a[0], &e);
	if (r != R_OP)
		return r;
	int64_t start = ev->a[4], len = ev->a[5];
	if (ev->a[3] == L_SEEK_CUR && (e->pos > INT64_MAX || __builtin_add_overflow(start, (int64_t)e->pos, &start)))
		return R_BAD;
	if (ev->a[3] == L_SEEK_END)
		c->m->st.inexact++; /* relative to a size the model does not know: as recorded */
	if (len < 0) { /* the range before l_start */
		if (len == INT64_MIN || __builtin_add_overflow(start, len, &start))
			return R_BAD;
		len = -len;
	}
	if (start < 0)
		return R_BAD;
	c->op.op = ev->a[2] == L_F_UNLCK && !test ? RP_OP_UNLOCK : RP_OP_LOCK;
	c->op.offset = (uint64_t)start;
	c->op.length = (uint64_t)len;
	c->op.flags |= (ev->a[2] == L_F_WRLCK ? RP_OPF_EXCLUSIVE : 0) | (test ? RP_OPF_TEST : 0) |
		       (wait ? RP_OPF_WAIT : 0);
	return R_OP;
}

static int ev_flock(rp__sm_cx *c)
{
	const int r = op_fd(c, c->ev->a[0], NULL);
	if (r != R_OP)
		return r;
	const int64_t how = c->ev->a[1];
	c->op.op = how & L_LOCK_UN ? RP_OP_UNLOCK : RP_OP_LOCK;
	c->op.flags |= (how & L_LOCK_EX ? RP_OPF_EXCLUSIVE : 0) |
		       (how & L_LOCK_NB || c->op.op == RP_OP_UNLOCK ? 0 : RP_OPF_WAIT);
	return R_OP; /* the whole file: offset 0, length 0 (to the end) */
}

static int ev_dup(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	if (!rp__sm_fd_ok(ev->a[0]))
		return R_BAD;
	if (c->ok && !rp__sm_fd_ok(ev->ret))
		return R_BAD;
	if (c->ok && ev->ret == ev->a[0])
		return R_NONE; /* dup2(fd, fd): nothing changes */
	rp__sm_fd *e = NULL;
	const int r = op_fd(c, ev->a[0], &e);
	c->op.op = RP_OP_DUP;
	if (!c->ok || r == R_BAD)
		return r;
	if (r == R_NONE) {
		/* the new fd is what the old one is: a non-file, or unknown (a dup2 over a file replaces it) */
		const rp__sm_fd *const o = rp__sm_fd_slot(c->m, c->pr, ev->a[0], false);
		const bool nonfile = o && o->state == RP__SM_NONFILE;
		rp__sm_fd *const s = rp__sm_fd_slot(c->m, c->pr, ev->ret, nonfile);
		if (s)
			*s = (rp__sm_fd){ .state = nonfile ? RP__SM_NONFILE : RP__SM_FREE };
		return r;
	}
	const rp__sm_fd old = *e; /* the table may move when it grows */
	c->op.handle2 = rp__sm_new_fd(c->m, c->pr, ev->ret, old.path, (ev->a[2] & O_CLOEXEC) != 0, old.pos);
	c->made = ev->ret;
	return R_OP;
}

static int ev_copy(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	if (ev->a[4] < 0)
		return R_BAD;
	rp__sm_fd *ei = NULL, *eo = NULL;
	int r = op_fd(c, ev->a[0], &ei);
	if (r != R_OP)
		return r;
	const uint64_t hin = c->op.handle;
	const uint32_t pin = c->op.path;
	if ((r = op_fd(c, ev->a[2], &eo)) != R_OP)
		return r;
	c->op.op = RP_OP_COPY;
	c->op.handle2 = c->op.handle;
	c->op.path2 = c->op.path;
	c->op.handle = hin;
	c->op.path = pin;
	c->op.length = (uint64_t)ev->a[4];
	const bool in_pos = ev->a[1] >= 0, out_pos = ev->a[3] >= 0;
	c->op.offset = in_pos ? (uint64_t)ev->a[1] : ei->pos;
	c->op.offset2 = out_pos ? (uint64_t)ev->a[3] : eo->pos;
	if (c->ok) {
		c->op.result = (uint64_t)ev->ret;
		if (!in_pos)
			ei->pos += c->op.result;
		if (!out_pos)
			eo->pos += c->op.result;
	}
	return R_OP;
}

static int ev_mmap(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	if (ev->a[4] & L_MAP_ANONYMOUS) {
		c->m->st.nonfile++; /* memory, not a file */
		return R_NONE;
	}
	const int r = op_fd(c, ev->a[0], NULL);
	c->op.op = RP_OP_MMAP;
	c->op.offset = ev->a[1] >= 0 ? (uint64_t)ev->a[1] : 0;
	c->op.length = ev->a[2] >= 0 ? (uint64_t)ev->a[2] : 0;
	return r;
}

static int ev_chdir(rp__sm_cx *c)
{
	if (!c->ok)
		return R_NONE;
	uint32_t id = 0;
	if (c->ev->a[0] == -1) {
		const int r = path_at(c, 0, RP__SM_AT_FDCWD, &id);
		if (r != R_OP)
			return r;
	} else {
		rp__sm_fd *e = NULL;
		const int r = use_fd(c, c->ev->a[0], &e);
		if (r != R_OP)
			return r;
		id = e->path;
	}
	if (id)
		c->pr->cwd = id;
	return R_NONE;
}

static int ev_xattr(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	static const rp_opcode codes[4] = { RP_OP_GETXATTR, RP_OP_SETXATTR, RP_OP_LISTXATTR, RP_OP_REMOVEXATTR };
	if (ev->a[1] < 0 || ev->a[1] > 3)
		return R_BAD;
	const rp_opcode code = codes[ev->a[1]];
	int r = fd_or_path(c, code, 0, RP__SM_AT_FDCWD);
	if (r != R_OP)
		return r;
	if (code != RP_OP_LISTXATTR && (r = raw_str(c, 1, &c->op.path2)) != R_OP)
		return r;
	if (code != RP_OP_REMOVEXATTR && ev->a[3] >= 0)
		c->op.length = (uint64_t)ev->a[3];
	if (c->ok && (code == RP_OP_GETXATTR || code == RP_OP_LISTXATTR))
		c->op.result = (uint64_t)ev->ret;
	return R_OP;
}

int rp__sm_call(rp__sm_cx *c)
{
	const rp_sysev *const ev = c->ev;
	switch ((rp_sysev_nr)ev->nr) {
	case RP_SYSEV_OPEN: return ev_open(c);
	case RP_SYSEV_CLOSE: return ev_close(c);
	case RP_SYSEV_CLOSE_RANGE: return ev_close_range(c);
	case RP_SYSEV_READ: return ev_io(c, RP_OP_READ);
	case RP_SYSEV_WRITE: return ev_io(c, RP_OP_WRITE);
	case RP_SYSEV_LSEEK: return ev_lseek(c);
	case RP_SYSEV_FSYNC:
		c->op.op = RP_OP_FLUSH;
		c->op.flags |= ev->a[1] == 1 ? RP_OPF_DATASYNC : 0;
		return op_fd(c, ev->a[0], NULL);
	case RP_SYSEV_TRUNCATE: {
		if (ev->a[1] < 0)
			return R_BAD;
		const int r = fd_or_path(c, RP_OP_SETATTR, 0, ev->a[3]);
		c->op.attrs = RP_SA_SIZE;
		c->op.length = (uint64_t)ev->a[1];
		return r;
	}
	case RP_SYSEV_FALLOCATE: return ev_fallocate(c);
	case RP_SYSEV_FADVISE: return R_NONE; /* advice: counted in by_nr, no op */
	case RP_SYSEV_STAT: {
		const int r = bypath(c, RP_OP_STAT, ev->a[0]);
		if (r == R_OP && c->ok && ev->a[3] == 1)
			c->op.flags |= RP_OPF_DIRECTORY;
		return r;
	}
	case RP_SYSEV_ACCESS: return ev_access(c);
	case RP_SYSEV_UNLINK: return bypath(c, ev->a[1] & L_AT_REMOVEDIR ? RP_OP_RMDIR : RP_OP_UNLINK, ev->a[0]);
	case RP_SYSEV_MKDIR: {
		const int r = bypath(c, RP_OP_MKDIR, ev->a[0]);
		c->op.mode = (uint32_t)ev->a[1] & 07777u;
		return r;
	}
	case RP_SYSEV_RENAME: return ev_rename(c);
	case RP_SYSEV_LINK: return ev_two_paths(c, RP_OP_LINK);
	case RP_SYSEV_SYMLINK: return ev_symlink(c);
	case RP_SYSEV_READLINK: {
		const int r = bypath(c, RP_OP_READLINK, ev->a[0]);
		if (r != R_OP || !c->ok)
			return r;
		c->op.result = (uint64_t)ev->ret;
		return ev->p[1] ? raw_str(c, 1, &c->op.path2) : R_OP; /* the contents, when the tracer shows them */
	}
	case RP_SYSEV_CHMOD: {
		const int r = fd_or_path(c, RP_OP_SETATTR, 0, ev->a[1]);
		c->op.attrs = RP_SA_MODE;
		c->op.mode = (uint32_t)ev->a[2] & 07777u;
		return r;
	}
	case RP_SYSEV_CHOWN: return ev_chown(c);
	case RP_SYSEV_UTIMENS: return ev_utimens(c);
	case RP_SYSEV_GETDENTS: {
		if (ev->a[1] < 0 || (ev->a[3] == 1 && ev->a[2] < 0))
			return R_BAD;
		const int r = op_fd(c, ev->a[0], NULL);
		c->op.op = RP_OP_READDIR;
		c->op.length = (uint64_t)ev->a[1];
		if (ev->a[3] == 1)
			c->op.result = (uint64_t)ev->a[2]; /* the entries, when the tracer counted them */
		return r;
	}
	case RP_SYSEV_READDIR: {
		if (ev->a[1] < 0)
			return R_BAD;
		const int r = op_fd(c, ev->a[0], NULL);
		c->op.op = RP_OP_READDIR;
		c->op.result = (uint64_t)ev->a[1];
		return r;
	}
	case RP_SYSEV_LOCK: return ev_lock(c);
	case RP_SYSEV_FLOCK: return ev_flock(c);
	case RP_SYSEV_DUP: return ev_dup(c);
	case RP_SYSEV_CLOEXEC: {
		if (!rp__sm_fd_ok(ev->a[0]))
			return R_BAD;
		rp__sm_fd *const e = rp__sm_fd_slot(c->m, c->pr, ev->a[0], false);
		if (c->ok && e && e->state != RP__SM_FREE)
			e->cloexec = ev->a[1] != 0;
		return R_NONE;
	}
	case RP_SYSEV_COPY: return ev_copy(c);
	case RP_SYSEV_MMAP: return ev_mmap(c);
	case RP_SYSEV_CHDIR: return ev_chdir(c);
	case RP_SYSEV_STATFS: return fd_or_path(c, RP_OP_STATFS, 0, RP__SM_AT_FDCWD);
	case RP_SYSEV_MKNOD: {
		const int r = bypath(c, RP_OP_MKNOD, ev->a[0]);
		c->op.mode = (uint32_t)ev->a[1] & 0177777u;
		return r;
	}
	case RP_SYSEV_XATTR: return ev_xattr(c);
	default: return R_BAD;
	}
}

