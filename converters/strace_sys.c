/* strace's syscalls -> ops: the table (docs/strace.md), fd tables, paths against their directories. */
#include "converters/strace_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/semantics.h"

/* Flags of argument s over table; unknown names counted. */
static bool flags_of(rp_strace *t, rp__st_str s, const rp__st_flag *table, size_t n, uint64_t *v)
{
	unsigned unknown = 0;
	if (!rp__st_flags(s, table, n, v, &unknown))
		return false;
	t->note[RP__ST_N_FLAGS] += unknown;
	return true;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const rp__st_flag oflags[] = {
	{ "O_RDONLY", O_RDONLY },     { "O_WRONLY", O_WRONLY },   { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT },       { "O_EXCL", O_EXCL },       { "O_TRUNC", O_TRUNC },
	{ "O_APPEND", O_APPEND },     { "O_DIRECTORY", O_DIRECTORY }, { "O_NOFOLLOW", O_NOFOLLOW },
	{ "O_SYNC", O_SYNC },         { "O_DSYNC", O_DSYNC },     { "O_DIRECT", O_DIRECT },
	{ "O_CLOEXEC", O_CLOEXEC },   { "O_NONBLOCK", O_NONBLOCK }, { "O_NDELAY", O_NDELAY },
	{ "O_LARGEFILE", O_LARGEFILE }, { "O_PATH", O_PATH },     { "O_TMPFILE", O_TMPFILE },
	{ "O_NOCTTY", O_NOCTTY },     { "O_NOATIME", O_NOATIME }, { "O_ASYNC", O_ASYNC },
	{ "O_RSYNC", O_RSYNC },
};

static const rp__st_flag modes[] = {
	{ "S_IFREG", S_IFREG }, { "S_IFDIR", S_IFDIR }, { "S_IFCHR", S_IFCHR }, { "S_IFBLK", S_IFBLK },
	{ "S_IFIFO", S_IFIFO }, { "S_IFSOCK", S_IFSOCK }, { "S_IFLNK", S_IFLNK }, { "S_ISUID", S_ISUID },
	{ "S_ISGID", S_ISGID }, { "S_ISVTX", S_ISVTX },
};

static bool num(const rp__st_call *c, unsigned i, int64_t *v)
{
	return rp__st_int(st_arg(c, i), v);
}

/* "[N]" or "[N => M]" (an offset pointer strace shows before and after): N; false for NULL. */
static bool ptr_off(rp__st_str s, uint64_t *v)
{
	if (s.len < 3 || s.p[0] != '[')
		return false;
	uint32_t e = 1;
	while (e < s.len && s.p[e] >= '0' && s.p[e] <= '9')
		e++;
	int64_t x;
	if (!rp__st_int((rp__st_str){ s.p + 1, e - 1 }, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

/* The sum of every "key=N" in s (readv's iov_len). */
static uint64_t sum_field(rp__st_str s, const char *key)
{
	uint64_t sum = 0;
	const size_t kl = strlen(key);
	const char *p = s.p;
	const char *const end = s.p + s.len;
	while ((p = memmem(p, (size_t)(end - p), key, kl)) != NULL) {
		p += kl;
		const char *e = p;
		while (e < end && *e >= '0' && *e <= '9')
			e++;
		int64_t v;
		if (rp__st_int((rp__st_str){ p, (uint32_t)(e - p) }, &v) && v > 0)
			sum += (uint64_t)v;
		p = e;
	}
	return sum;
}

/* ---- the syscalls ---- */

enum io_kind { IO_PLAIN, IO_VEC, IO_P, IO_PVEC };

static int sys_open(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, int di, unsigned pi, int fi,
		    int mi)
{
	uint64_t fl = O_CREAT | O_WRONLY | O_TRUNC; /* creat() */
	int64_t mode = 0;
	bool have_mode = mi >= 0 && num(c, (unsigned)mi, &mode);
	if (fi >= 0 && st_eq(st_arg(c, (unsigned)fi), "") )
		return st_badf(t, "no open flags");
	if (fi >= 0 && st_arg(c, (unsigned)fi).len && st_arg(c, (unsigned)fi).p[0] == '{') {
		/* openat2's struct open_how: {flags=..., mode=..., resolve=...} */
		const rp__st_str how = st_arg(c, (unsigned)fi);
		const char *const f = memmem(how.p, how.len, "flags=", 6);
		if (!f)
			return st_badf(t, "open_how without flags");
		const char *e = f + 6;
		while (e < how.p + how.len && *e != ',' && *e != '}')
			e++;
		if (!flags_of(t, (rp__st_str){ f + 6, (uint32_t)(e - f - 6) }, oflags, N(oflags), &fl))
			return st_badf(t, "bad open flags");
		have_mode = rp__st_field(how, "mode=", &mode);
	} else if (fi >= 0 && !flags_of(t, st_arg(c, (unsigned)fi), oflags, N(oflags), &fl)) {
		return st_badf(t, "bad open flags");
	}
	if (rp__st_need_path(t, pr, c, di, pi, &op->path) < 0)
		return -1;
	op->op = RP_OP_OPEN;
	rp_sem_posix_open(op, (int)fl);
	if (have_mode && (fl & (O_CREAT | O_TMPFILE)))
		op->mode = (uint32_t)mode & 07777u;
	if (!st_ok(c) || c->ret < 0)
		return 1;
	/* a path opened is a file op whatever it turned out to be (a device, a FIFO) */
	op->handle = rp__st_new_fd(t, pr, c->ret, op->path, true, (fl & O_CLOEXEC) != 0, 0);
	uint32_t resolved;
	rp__st_fdent *const e = rp__st_fd_slot(t, pr->ft, c->ret, false);
	if (e && c->has_ret_annot && rp__st_annot_id(t, c->ret_annot, &resolved) == 1)
		e->seen = resolved; /* = 3</usr/lib/...>: the name later -y annotations give while it is not renamed */
	if ((fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		op->result = RP_ACT_CREATED;
	else if (!(fl & O_CREAT))
		op->result = fl & O_TRUNC ? RP_ACT_TRUNCATED : RP_ACT_OPENED;
	if ((fl & O_DIRECTORY) && !(fl & O_TMPFILE & ~O_DIRECTORY))
		op->flags |= RP_OPF_DIRECTORY;
	return 1;
}

static int sys_io(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, rp_opcode code, enum io_kind k)
{
	rp__st_fdent *e = NULL;
	const int r = rp__st_op_fd(t, pr, c, 0, op, &e);
	if (r <= 0)
		return r;
	op->op = (uint16_t)code;
	int64_t v = -1;
	if (k == IO_VEC || k == IO_PVEC)
		op->length = sum_field(st_arg(c, 1), "iov_len=");
	else if (num(c, 2, &v) && v >= 0)
		op->length = (uint64_t)v;
	else if (c->res != RP__ST_RES_NONE)
		return st_badf(t, "bad count"); /* an unfinished call never resumed may end before its count */
	bool positional = false;
	if (k == IO_P || k == IO_PVEC) {
		if (!num(c, 3, &v) && c->res != RP__ST_RES_NONE)
			return st_badf(t, "bad offset");
		positional = c->nargs > 3 && v >= 0; /* preadv2's -1: the file position */
		op->offset = positional ? (uint64_t)v : e->pos;
	} else {
		op->offset = e->pos;
	}
	if (st_ok(c) && c->ret >= 0) {
		op->result = (uint64_t)c->ret;
		if (k == IO_VEC || k == IO_PVEC)
			op->length = op->length ? op->length : op->result;
		if (!positional)
			e->pos += (uint64_t)c->ret;
	}
	return 1;
}

/* stat-like calls: by path (di/pi), or by the fd (fi) when the path is empty (AT_EMPTY_PATH) or absent. */
static int sys_bypath(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, rp_opcode code, int di,
		      int pi, int fi)
{
	op->op = (uint16_t)code;
	if (pi >= 0) {
		const rp__st_str a = st_arg(c, (unsigned)pi);
		const bool empty = st_eq(a, "\"\"") || st_eq(a, "NULL");
		if (!(empty && di >= 0 && !st_eq(st_arg(c, (unsigned)di), "AT_FDCWD")))
			return rp__st_need_path(t, pr, c, di, (unsigned)pi, &op->path);
		fi = di;
	}
	return fi >= 0 ? rp__st_op_fd(t, pr, c, (unsigned)fi, op, NULL) : st_badf(t, "no path or fd");
}

static int sys_stat(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, int di, int pi, int fi,
		    unsigned bufi)
{
	const int r = sys_bypath(t, pr, c, op, RP_OP_STAT, di, pi, fi);
	if (r == 1 && st_ok(c) && rp__st_has_word(st_arg(c, bufi), "S_IFDIR"))
		op->flags |= RP_OPF_DIRECTORY;
	return r;
}

static int sys_access(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, int di, unsigned pi)
{
	static const rp__st_flag am[] = { { "F_OK", 0 }, { "R_OK", 4 }, { "W_OK", 2 }, { "X_OK", 1 } };
	uint64_t m;
	if (!flags_of(t, st_arg(c, pi + 1), am, N(am), &m))
		return st_badf(t, "bad access mode");
	const int r = sys_bypath(t, pr, c, op, RP_OP_ACCESS, di, (int)pi, -1);
	if (r != 1)
		return r;
	op->want = RP_WANT_KNOWN | (m & 4 ? RP_WANT_READ : 0) | (m & 2 ? RP_WANT_WRITE : 0) | (m & 1 ? RP_WANT_EXEC : 0);
	op->result = st_ok(c) ? op->want : 0;
	return 1;
}

static int sys_two_paths(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, rp_opcode code, int d1,
			 unsigned p1, int d2, unsigned p2)
{
	op->op = (uint16_t)code;
	if (rp__st_need_path(t, pr, c, d1, p1, &op->path) < 0 || rp__st_need_path(t, pr, c, d2, p2, &op->path2) < 0)
		return -1;
	return 1;
}

static int sys_rename(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, bool at, int fi)
{
	static const rp__st_flag rf[] = { { "RENAME_NOREPLACE", 1 }, { "RENAME_EXCHANGE", 2 }, { "RENAME_WHITEOUT", 4 } };
	const int r = at ? sys_two_paths(t, pr, c, op, RP_OP_RENAME, 0, 1, 2, 3)
			 : sys_two_paths(t, pr, c, op, RP_OP_RENAME, -1, 0, -1, 1);
	uint64_t f = 0;
	if (r == 1 && fi >= 0 && !flags_of(t, st_arg(c, (unsigned)fi), rf, N(rf), &f))
		return st_badf(t, "bad rename flags");
	op->oflags = (f & 1 ? RP_RN_NOREPLACE : 0) | (f & 2 ? RP_RN_EXCHANGE : 0) | (f & 4 ? RP_RN_WHITEOUT : 0);
	return r;
}

static int sys_symlink(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, int di, unsigned pi)
{
	uint32_t len;
	bool cut;
	if (!rp__st_string(st_arg(c, 0), t->sbuf, RP_STR_MAX, &len, &cut))
		return st_badf(t, "bad symlink target");
	const int64_t target = rp__st_intern(t, t->sbuf, len); /* its contents: never resolved */
	if (target < 0)
		return -1;
	op->op = RP_OP_SYMLINK;
	op->path2 = (uint32_t)target;
	return rp__st_need_path(t, pr, c, di, pi, &op->path);
}

static int sys_readlink(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, int di, unsigned pi)
{
	op->op = RP_OP_READLINK;
	if (rp__st_need_path(t, pr, c, di, pi, &op->path) < 0)
		return -1;
	uint32_t len;
	bool cut;
	if (st_ok(c) && c->ret >= 0 && rp__st_string(st_arg(c, pi + 1), t->sbuf, RP_STR_MAX, &len, &cut)) {
		const int64_t id = rp__st_intern(t, t->sbuf, len);
		if (id < 0)
			return -1;
		op->path2 = (uint32_t)id;
		op->result = (uint64_t)c->ret;
	}
	return 1;
}

static int sys_mode(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, int di, int pi, int fi,
		    unsigned mi, rp_opcode code)
{
	uint64_t m;
	if (!flags_of(t, st_arg(c, mi), modes, N(modes), &m))
		return st_badf(t, "bad mode");
	const int r = sys_bypath(t, pr, c, op, code, di, pi, fi);
	op->mode = (uint32_t)m & (code == RP_OP_MKNOD ? 0177777u : 07777u);
	op->attrs = code == RP_OP_SETATTR ? RP_SA_MODE : 0;
	return r;
}

static int sys_chown(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, int di, int pi, int fi,
		     unsigned ui)
{
	int64_t u, g;
	if (!num(c, ui, &u) || !num(c, ui + 1, &g) || u < -1 || g < -1 || u > UINT32_MAX || g > UINT32_MAX)
		return st_badf(t, "bad owner or group");
	const int r = sys_bypath(t, pr, c, op, RP_OP_SETATTR, di, pi, fi);
	if (u >= 0 && u != UINT32_MAX) {
		op->attrs |= RP_SA_UID;
		op->uid = (uint32_t)u;
	}
	if (g >= 0 && g != UINT32_MAX) {
		op->attrs |= RP_SA_GID;
		op->gid = (uint32_t)g;
	}
	return r;
}

/* One timespec of utimensat's pair: its attrs bit(s) and value. */
static bool utime_one(rp__st_str s, uint32_t set, uint32_t now, uint32_t *attrs, uint64_t *ns)
{
	if (rp__st_has_word(s, "UTIME_NOW")) {
		*attrs |= now;
		return true;
	}
	if (rp__st_has_word(s, "UTIME_OMIT"))
		return true;
	int64_t sec, nsec;
	if (!rp__st_field(s, "tv_sec=", &sec) || !rp__st_field(s, "tv_nsec=", &nsec) || sec < 0 || nsec < 0 ||
	    nsec >= 1000000000 || sec > 18000000000)
		return false;
	*attrs |= set;
	*ns = (uint64_t)sec * 1000000000u + (uint64_t)nsec;
	return true;
}

static int sys_utimensat(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	const rp__st_str ts = st_arg(c, 2);
	uint32_t attrs = 0;
	if (st_eq(ts, "NULL")) {
		attrs = RP_SA_ATIME_NOW | RP_SA_MTIME_NOW;
	} else {
		/* [A, B]: split at the comma outside the braces */
		if (ts.len < 2 || ts.p[0] != '[' || ts.p[ts.len - 1] != ']')
			return st_badf(t, "bad times");
		unsigned depth = 0;
		uint32_t cut = 0;
		for (uint32_t i = 1; i + 1 < ts.len && !cut; i++) {
			depth += ts.p[i] == '{';
			depth -= ts.p[i] == '}' && depth;
			if (ts.p[i] == ',' && !depth)
				cut = i;
		}
		const rp__st_str a = { ts.p + 1, cut ? cut - 1 : 0 };
		const rp__st_str m = { ts.p + cut + 1, cut ? ts.len - cut - 2 : 0 };
		if (!cut || !utime_one(a, RP_SA_ATIME, RP_SA_ATIME_NOW, &attrs, &op->atime) ||
		    !utime_one(m, RP_SA_MTIME, RP_SA_MTIME_NOW, &attrs, &op->mtime))
			return st_badf(t, "bad times");
	}
	int r;
	if (st_eq(st_arg(c, 1), "NULL")) { /* futimens */
		op->op = RP_OP_SETATTR;
		r = rp__st_op_fd(t, pr, c, 0, op, NULL);
	} else {
		r = sys_bypath(t, pr, c, op, RP_OP_SETATTR, 0, 1, -1);
	}
	op->attrs = attrs;
	return r;
}

static int sys_lock(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, rp__st_fdent *e, rp__st_str cmd)
{
	const rp__st_str fl = st_arg(c, 2);
	const bool test = st_eq(cmd, "F_GETLK") || st_eq(cmd, "F_GETLK64") || st_eq(cmd, "F_OFD_GETLK");
	const bool wait = st_eq(cmd, "F_SETLKW") || st_eq(cmd, "F_SETLKW64") || st_eq(cmd, "F_OFD_SETLKW");
	int64_t start = 0, len = 0;
	if (!rp__st_field(fl, "l_start=", &start) || !rp__st_field(fl, "l_len=", &len))
		return st_badf(t, "bad struct flock");
	if (rp__st_has_word(fl, "SEEK_CUR") && (e->pos > INT64_MAX || __builtin_add_overflow(start, (int64_t)e->pos, &start)))
		return st_badf(t, "bad lock range"); /* SEEK_END stays as given: the size is not known */
	if (len < 0) { /* a range before l_start */
		if (len == INT64_MIN || __builtin_add_overflow(start, len, &start))
			return st_badf(t, "bad lock range");
		len = -len;
	}
	if (start < 0)
		return st_badf(t, "bad lock range");
	(void)pr;
	op->op = rp__st_has_word(fl, "F_UNLCK") && !test ? RP_OP_UNLOCK : RP_OP_LOCK;
	op->offset = (uint64_t)start;
	op->length = (uint64_t)len;
	op->flags |= (rp__st_has_word(fl, "F_WRLCK") ? RP_OPF_EXCLUSIVE : 0) | (test ? RP_OPF_TEST : 0) |
		     (wait ? RP_OPF_WAIT : 0);
	return 1;
}

/* dup, dup2, dup3, F_DUPFD: the new fd names the same file under a new handle. */
static int dup_to(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, rp__st_fdent *e, bool cloexec)
{
	op->op = RP_OP_DUP;
	if (!st_ok(c) || c->ret < 0)
		return 1;
	const rp__st_fdent old = *e; /* the table may move when it grows */
	op->handle2 = rp__st_new_fd(t, pr, c->ret, old.path, true, cloexec, old.pos);
	return 1;
}

static void dup_nonfile(rp_strace *t, rp__st_proc *pr, const rp__st_call *c);

static int sys_fcntl(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	const rp__st_str cmd = st_arg(c, 1);
	rp__st_fdent *e = NULL;
	const bool dup = st_eq(cmd, "F_DUPFD") || st_eq(cmd, "F_DUPFD_CLOEXEC");
	const bool lock = memmem(cmd.p, cmd.len, "LK", 2) != NULL;
	if (!dup && !lock) {
		if (st_eq(cmd, "F_SETFD") && st_ok(c)) {
			rp__st_fdent *const s = rp__st_fd_slot(t, pr->ft, rp__st_fd_num(c, 0), false);
			if (s)
				s->cloexec = rp__st_has_word(st_arg(c, 2), "FD_CLOEXEC");
		}
		t->note[RP__ST_N_STATE]++;
		return 0;
	}
	const int r = rp__st_op_fd(t, pr, c, 0, op, &e);
	if (r == 0 && dup)
		dup_nonfile(t, pr, c);
	if (r <= 0)
		return r;
	return dup ? dup_to(t, pr, c, op, e, st_eq(cmd, "F_DUPFD_CLOEXEC")) : sys_lock(t, pr, c, op, e, cmd);
}

/* A dup of a pipe or socket: the new fd is no file either (a dup2 over a file's fd replaces it). */
static void dup_nonfile(rp_strace *t, rp__st_proc *pr, const rp__st_call *c)
{
	rp__st_fdent *const s = st_ok(c) && c->ret >= 0 ? rp__st_fd_slot(t, pr->ft, c->ret, true) : NULL;
	if (s)
		*s = (rp__st_fdent){ .handle = ++t->next_handle, .file = false };
}

static int sys_dup(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, bool three)
{
	rp__st_fdent *e = NULL;
	const int r = rp__st_op_fd(t, pr, c, 0, op, &e);
	if (r == 0)
		dup_nonfile(t, pr, c);
	if (r <= 0)
		return r;
	return dup_to(t, pr, c, op, e, three && rp__st_has_word(st_arg(c, 2), "O_CLOEXEC"));
}

static int sys_flock(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	const int r = rp__st_op_fd(t, pr, c, 0, op, NULL);
	if (r <= 0)
		return r;
	const rp__st_str how = st_arg(c, 1);
	op->op = rp__st_has_word(how, "LOCK_UN") ? RP_OP_UNLOCK : RP_OP_LOCK;
	op->flags |= (rp__st_has_word(how, "LOCK_EX") ? RP_OPF_EXCLUSIVE : 0) |
		     (rp__st_has_word(how, "LOCK_NB") || op->op == RP_OP_UNLOCK ? 0 : RP_OPF_WAIT);
	return 1; /* the whole file: offset 0, length 0 (to the end) */
}

/* copy_file_range(in, off_in, out, off_out, len, flags) and sendfile(out, in, offset, count). */
static int sys_copy(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, bool sendfile)
{
	rp_op out;
	memset(&out, 0, sizeof(out));
	rp__st_fdent *ei = NULL, *eo = NULL;
	const unsigned in_i = sendfile ? 1 : 0, out_i = sendfile ? 0 : 2;
	int r = rp__st_op_fd(t, pr, c, in_i, op, &ei);
	if (r <= 0)
		return r;
	if ((r = rp__st_op_fd(t, pr, c, out_i, &out, &eo)) <= 0)
		return r;
	ei = rp__st_fd_slot(t, pr->ft, rp__st_fd_num(c, in_i), false); /* the table may have moved when the out fd grew it */
	if (!ei)
		return 0;
	op->op = RP_OP_COPY;
	op->handle = ei->handle;
	op->handle2 = out.handle;
	op->path2 = out.path;
	int64_t len;
	if (!num(c, sendfile ? 3 : 4, &len) || len < 0)
		return st_badf(t, "bad length");
	op->length = (uint64_t)len;
	const bool in_ptr = ptr_off(st_arg(c, sendfile ? 2 : 1), &op->offset);
	const bool out_ptr = !sendfile && ptr_off(st_arg(c, 3), &op->offset2);
	if (!in_ptr)
		op->offset = ei->pos;
	if (!out_ptr)
		op->offset2 = eo->pos;
	if (st_ok(c) && c->ret >= 0) {
		op->result = (uint64_t)c->ret;
		if (!in_ptr)
			ei->pos += op->result;
		if (!out_ptr)
			eo->pos += op->result;
	}
	return 1;
}

static int sys_fallocate(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	static const rp__st_flag ff[] = { { "FALLOC_FL_KEEP_SIZE", 1 }, { "FALLOC_FL_PUNCH_HOLE", 2 },
					  { "FALLOC_FL_ZERO_RANGE", 16 } };
	uint64_t m;
	int64_t off, len;
	if (!flags_of(t, st_arg(c, 1), ff, N(ff), &m) || !num(c, 2, &off) || !num(c, 3, &len) || off < 0 || len < 0)
		return st_badf(t, "bad fallocate arguments");
	const int r = rp__st_op_fd(t, pr, c, 0, op, NULL);
	op->op = RP_OP_FALLOCATE;
	op->oflags = (m & 1 ? RP_FA_KEEP_SIZE : 0) | (m & 2 ? RP_FA_PUNCH_HOLE : 0) | (m & 16 ? RP_FA_ZERO_RANGE : 0);
	op->offset = (uint64_t)off;
	op->length = (uint64_t)len;
	return r;
}

static int sys_truncate(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, bool byfd)
{
	int64_t len;
	if (!num(c, 1, &len) || len < 0)
		return st_badf(t, "bad length");
	const int r = byfd ? rp__st_op_fd(t, pr, c, 0, op, NULL) : rp__st_need_path(t, pr, c, -1, 0, &op->path);
	op->op = RP_OP_SETATTR;
	op->attrs = RP_SA_SIZE;
	op->length = (uint64_t)len;
	return r;
}

static int sys_xattr(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, rp_opcode code, bool byfd)
{
	const int r = byfd ? rp__st_op_fd(t, pr, c, 0, op, NULL) : rp__st_need_path(t, pr, c, -1, 0, &op->path);
	if (r <= 0)
		return r;
	op->op = (uint16_t)code;
	if (code != RP_OP_LISTXATTR) {
		uint32_t len;
		bool cut;
		if (!rp__st_string(st_arg(c, 1), t->sbuf, RP_STR_MAX, &len, &cut))
			return st_badf(t, "bad attribute name");
		const int64_t id = rp__st_intern(t, t->sbuf, len);
		if (id < 0)
			return -1;
		op->path2 = (uint32_t)id;
	}
	int64_t size;
	const unsigned si = code == RP_OP_LISTXATTR ? 2 : 3;
	if (code != RP_OP_REMOVEXATTR && num(c, si, &size) && size >= 0)
		op->length = (uint64_t)size;
	if (st_ok(c) && c->ret >= 0 && (code == RP_OP_GETXATTR || code == RP_OP_LISTXATTR))
		op->result = (uint64_t)c->ret;
	return 1;
}

static int sys_getdents(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	const int r = rp__st_op_fd(t, pr, c, 0, op, NULL);
	if (r <= 0)
		return r;
	op->op = RP_OP_READDIR;
	int64_t count;
	if (num(c, 2, &count) && count >= 0)
		op->length = (uint64_t)count;
	const rp__st_str d = st_arg(c, 1);
	const char *const cm = memmem(d.p, d.len, "/* ", 3);
	int64_t n;
	if (cm) {
		const char *e = cm + 3;
		while (e < d.p + d.len && *e >= '0' && *e <= '9')
			e++;
		if (rp__st_int((rp__st_str){ cm + 3, (uint32_t)(e - cm - 3) }, &n) && n >= 0)
			op->result = (uint64_t)n; /* strace: N entries, in a comment */
	} else if (st_ok(c) && c->ret > 0) {
		for (const char *p = d.p; (p = memmem(p, (size_t)(d.p + d.len - p), "d_ino=", 6)) != NULL; p += 6)
			op->result++;
	}
	return 1;
}

static int sys_mmap(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	int64_t fd, len, off;
	bool has;
	rp__st_str an;
	if (!rp__st_fd(st_arg(c, 4), &fd, &has, &an) || !num(c, 1, &len) || !num(c, 5, &off))
		return st_badf(t, "bad mmap arguments");
	if (fd < 0 || rp__st_has_word(st_arg(c, 3), "MAP_ANONYMOUS"))
		return 0; /* memory, not a file (counted by the caller) */
	const int r = rp__st_op_fd(t, pr, c, 4, op, NULL);
	op->op = RP_OP_MMAP;
	op->offset = off >= 0 ? (uint64_t)off : 0;
	op->length = len >= 0 ? (uint64_t)len : 0;
	return r;
}

static int sys_fork(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	op->op = RP_OP_FORK;
	if (!st_ok(c) || c->ret <= 0 || c->ret > UINT32_MAX)
		return 1;
	/* The child may have run and exited before this line resumed the fork (its lines come first): an
	 * exited process of that pid that no fork has named and that began after this call did is the child;
	 * any other exited one is an earlier process whose pid was reused, and the child a new client. */
	rp__st_proc *child = rp__st_proc_find(t, (uint32_t)c->ret);
	if (!child || (child->dead && (child->forked || child->first_time < t->t0 + op->t_start)))
		child = rp__st_proc_get(t, (uint32_t)c->ret);
	if (!child)
		return st_badf(t, "more than 8192 processes (reprise's client limit)");
	child->forked = true;
	bool share = false;
	for (unsigned i = 0; i < c->nargs; i++)
		share = share || rp__st_has_word(c->args[i], "CLONE_FILES");
	if (share)
		op->oflags |= RP_FK_SHARE; /* a thread: replay gives it its creator's table, not copies */
	rp__st_fdtab *const from = pr->ft;
	if (from && child->ft && child->ft != from) { /* an exited child (no table) used all it had */
		/* the child's own lines may have come first: what it made stays, the rest is the parent's */
		for (uint32_t fd = 0; fd < from->cap; fd++) {
			if (!from->v[fd].handle)
				continue;
			rp__st_fdent *const s = rp__st_fd_slot(t, child->ft, fd, true);
			if (s && !s->handle)
				*s = pr->ft->v[fd];
		}
		if (!child->ft->cwd)
			child->ft->cwd = from->cwd;
		if (share) {
			rp__st_fdtab *const old = child->ft;
			for (uint32_t fd = 0; fd < old->cap; fd++) {
				rp__st_fdent *const s = old->v[fd].handle ? rp__st_fd_slot(t, from, fd, true) : NULL;
				if (s && !s->handle)
					*s = old->v[fd];
			}
			if (--old->refs == 0) {
				t->fd_slots -= old->cap;
				free(old->v);
				free(old);
			}
			child->ft = from;
			from->refs++;
		}
	}
	op->result = child->client;
	return 1;
}

/* wait4 (= the pid reaped) and waitid (its siginfo's si_pid): a wait op on the child's client. */
static int sys_wait(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op, bool waitid)
{
	(void)pr;
	int64_t pid = st_ok(c) ? c->ret : 0;
	if (waitid && (!st_ok(c) || c->ret != 0 || !rp__st_field(st_arg(c, 2), "si_pid", &pid)))
		pid = 0;
	if (pid <= 0 || pid > UINT32_MAX)
		return 0; /* nothing reaped (WNOHANG, an error): no op */
	/* The child has usually exited by now ("+++ exited" came before this line): the process of that pid
	 * as it was, never a new one. */
	rp__st_proc *const child = rp__st_proc_find(t, (uint32_t)pid);
	if (!child)
		return 0; /* a child the log never showed: nothing to wait for */
	op->op = RP_OP_WAIT;
	op->result = child->client;
	return 1;
}

/* execve and chdir/fchdir change only what is tracked: the cloexec fds go, the working directory moves. */
static int sys_state(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, int kind)
{
	t->note[RP__ST_N_STATE]++;
	if (!st_ok(c) || !pr->ft)
		return 0;
	if (kind == 0) {
		for (uint32_t fd = 0; fd < pr->ft->cap; fd++)
			if (pr->ft->v[fd].cloexec)
				pr->ft->v[fd] = (rp__st_fdent){ 0 };
		return 0;
	}
	uint32_t id = 0;
	if (kind == 1) {
		if (rp__st_use_path(t, pr, c, -1, 0, &id) < 0)
			return -1;
	} else {
		rp__st_fdent *e = NULL;
		const int r = rp__st_use_fd(t, pr, c, 0, &e);
		if (r < 0)
			return -1;
		id = r ? e->path : 0;
	}
	if (id)
		pr->ft->cwd = id;
	return 0;
}

static int sys_lseek(rp_strace *t, rp__st_proc *pr, const rp__st_call *c)
{
	t->note[RP__ST_N_STATE]++;
	int64_t fd;
	bool has;
	rp__st_str an;
	if (!st_ok(c) || c->ret < 0 || !rp__st_fd(st_arg(c, 0), &fd, &has, &an))
		return 0;
	rp__st_fdent *const e = rp__st_fd_slot(t, pr->ft, fd, false);
	if (e && e->handle)
		e->pos = (uint64_t)c->ret;
	return 0;
}

static int sys_close(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, rp_op *op)
{
	rp__st_fdent *e = NULL;
	const int r = rp__st_op_fd(t, pr, c, 0, op, &e);
	op->op = RP_OP_CLOSE;
	if (r == 1 && (st_ok(c) || rp__st_errno(c->err) != 9)) /* closed even on EINTR/EIO; EBADF: it was not open */
		*e = (rp__st_fdent){ 0 };
	if (r == 0) { /* a pipe or socket: forget it so the fd's next use starts afresh */
		rp__st_fdent *const s = rp__st_fd_slot(t, pr->ft, rp__st_fd_num(c, 0), false);
		if (s)
			*s = (rp__st_fdent){ 0 };
	}
	return r;
}

typedef enum sysid {
	S_OPEN, S_OPENAT, S_OPENAT2, S_CREAT, S_CLOSE, S_READ, S_WRITE, S_PREAD, S_PWRITE, S_READV, S_WRITEV,
	S_PREADV, S_PWRITEV, S_LSEEK, S_FSYNC, S_FDATASYNC, S_FTRUNCATE, S_TRUNCATE, S_FALLOCATE, S_STAT, S_LSTAT,
	S_FSTAT, S_NEWFSTATAT, S_STATX, S_ACCESS, S_FACCESSAT, S_UNLINK, S_UNLINKAT, S_RMDIR, S_MKDIR, S_MKDIRAT,
	S_RENAME, S_RENAMEAT, S_RENAMEAT2, S_LINK, S_LINKAT, S_SYMLINK, S_SYMLINKAT, S_READLINK, S_READLINKAT,
	S_CHMOD, S_FCHMOD, S_FCHMODAT, S_CHOWN, S_FCHOWN, S_FCHOWNAT, S_UTIMENSAT, S_GETDENTS, S_FCNTL, S_FLOCK,
	S_DUP, S_DUP2, S_DUP3, S_COPY_FILE_RANGE, S_SENDFILE, S_STATFS, S_FSTATFS, S_MKNOD, S_MKNODAT, S_SETXATTR,
	S_FSETXATTR, S_GETXATTR, S_FGETXATTR, S_LISTXATTR, S_FLISTXATTR, S_REMOVEXATTR, S_FREMOVEXATTR, S_FORK,
	S_EXECVE, S_CHDIR, S_FCHDIR, S_MMAP, S_WAIT4, S_WAITID,
} sysid;

static const struct {
	const char *name;
	sysid id;
} table[] = {
	{ "open", S_OPEN }, { "openat", S_OPENAT }, { "openat2", S_OPENAT2 }, { "creat", S_CREAT },
	{ "close", S_CLOSE }, { "read", S_READ }, { "write", S_WRITE }, { "pread64", S_PREAD },
	{ "pwrite64", S_PWRITE }, { "readv", S_READV }, { "writev", S_WRITEV }, { "preadv", S_PREADV },
	{ "pwritev", S_PWRITEV }, { "preadv2", S_PREADV }, { "pwritev2", S_PWRITEV }, { "lseek", S_LSEEK },
	{ "fsync", S_FSYNC }, { "fdatasync", S_FDATASYNC }, { "ftruncate", S_FTRUNCATE }, { "truncate", S_TRUNCATE },
	{ "fallocate", S_FALLOCATE }, { "stat", S_STAT }, { "lstat", S_LSTAT }, { "fstat", S_FSTAT },
	{ "newfstatat", S_NEWFSTATAT }, { "fstatat64", S_NEWFSTATAT }, { "statx", S_STATX }, { "access", S_ACCESS },
	{ "faccessat", S_FACCESSAT }, { "faccessat2", S_FACCESSAT }, { "unlink", S_UNLINK },
	{ "unlinkat", S_UNLINKAT }, { "rmdir", S_RMDIR }, { "mkdir", S_MKDIR }, { "mkdirat", S_MKDIRAT },
	{ "rename", S_RENAME }, { "renameat", S_RENAMEAT }, { "renameat2", S_RENAMEAT2 }, { "link", S_LINK },
	{ "linkat", S_LINKAT }, { "symlink", S_SYMLINK }, { "symlinkat", S_SYMLINKAT }, { "readlink", S_READLINK },
	{ "readlinkat", S_READLINKAT }, { "chmod", S_CHMOD }, { "fchmod", S_FCHMOD }, { "fchmodat", S_FCHMODAT },
	{ "fchmodat2", S_FCHMODAT }, { "chown", S_CHOWN }, { "lchown", S_CHOWN }, { "fchown", S_FCHOWN },
	{ "fchownat", S_FCHOWNAT }, { "utimensat", S_UTIMENSAT }, { "getdents64", S_GETDENTS },
	{ "getdents", S_GETDENTS }, { "fcntl", S_FCNTL }, { "fcntl64", S_FCNTL }, { "flock", S_FLOCK },
	{ "dup", S_DUP }, { "dup2", S_DUP2 }, { "dup3", S_DUP3 }, { "copy_file_range", S_COPY_FILE_RANGE },
	{ "sendfile", S_SENDFILE }, { "sendfile64", S_SENDFILE }, { "statfs", S_STATFS }, { "fstatfs", S_FSTATFS },
	{ "mknod", S_MKNOD }, { "mknodat", S_MKNODAT }, { "setxattr", S_SETXATTR }, { "lsetxattr", S_SETXATTR },
	{ "fsetxattr", S_FSETXATTR }, { "getxattr", S_GETXATTR }, { "lgetxattr", S_GETXATTR },
	{ "fgetxattr", S_FGETXATTR }, { "listxattr", S_LISTXATTR }, { "llistxattr", S_LISTXATTR },
	{ "flistxattr", S_FLISTXATTR }, { "removexattr", S_REMOVEXATTR }, { "lremovexattr", S_REMOVEXATTR },
	{ "fremovexattr", S_FREMOVEXATTR }, { "fork", S_FORK }, { "vfork", S_FORK }, { "clone", S_FORK },
	{ "clone3", S_FORK }, { "execve", S_EXECVE }, { "execveat", S_EXECVE }, { "chdir", S_CHDIR },
	{ "fchdir", S_FCHDIR }, { "mmap", S_MMAP }, { "mmap2", S_MMAP }, { "wait4", S_WAIT4 },
	{ "waitid", S_WAITID },
};

static int lookup(rp__st_str name)
{
	for (size_t i = 0; i < N(table); i++)
		if (st_eq(name, table[i].name))
			return (int)table[i].id;
	return -1;
}

bool rp__st_io_call(rp__st_str name)
{
	switch (lookup(name)) {
	case S_READ: case S_WRITE: case S_PREAD: case S_PWRITE: case S_READV: case S_WRITEV: case S_PREADV:
	case S_PWRITEV:
		return true;
	default:
		return false;
	}
}

bool rp__st_known(rp__st_str name)
{
	return lookup(name) >= 0;
}

int rp__st_syscall(rp_strace *t, rp__st_proc *pr, rp__st_str name, const rp__st_call *c, rp_op *op)
{
	const int id = lookup(name);
	if (!pr->ft)
		return 0; /* an exited process: nothing to act on */
	switch ((sysid)id) {
	case S_OPEN: return sys_open(t, pr, c, op, -1, 0, 1, 2);
	case S_OPENAT: return sys_open(t, pr, c, op, 0, 1, 2, 3);
	case S_OPENAT2: return sys_open(t, pr, c, op, 0, 1, 2, -1);
	case S_CREAT: return sys_open(t, pr, c, op, -1, 0, -1, 1);
	case S_CLOSE: return sys_close(t, pr, c, op);
	case S_READ: return sys_io(t, pr, c, op, RP_OP_READ, IO_PLAIN);
	case S_WRITE: return sys_io(t, pr, c, op, RP_OP_WRITE, IO_PLAIN);
	case S_PREAD: return sys_io(t, pr, c, op, RP_OP_READ, IO_P);
	case S_PWRITE: return sys_io(t, pr, c, op, RP_OP_WRITE, IO_P);
	case S_READV: return sys_io(t, pr, c, op, RP_OP_READ, IO_VEC);
	case S_WRITEV: return sys_io(t, pr, c, op, RP_OP_WRITE, IO_VEC);
	case S_PREADV: return sys_io(t, pr, c, op, RP_OP_READ, IO_PVEC);
	case S_PWRITEV: return sys_io(t, pr, c, op, RP_OP_WRITE, IO_PVEC);
	case S_LSEEK: return sys_lseek(t, pr, c);
	case S_FSYNC:
	case S_FDATASYNC:
		op->op = RP_OP_FLUSH;
		op->flags |= id == S_FDATASYNC ? RP_OPF_DATASYNC : 0;
		return rp__st_op_fd(t, pr, c, 0, op, NULL);
	case S_FTRUNCATE: return sys_truncate(t, pr, c, op, true);
	case S_TRUNCATE: return sys_truncate(t, pr, c, op, false);
	case S_FALLOCATE: return sys_fallocate(t, pr, c, op);
	case S_STAT:
	case S_LSTAT: return sys_stat(t, pr, c, op, -1, 0, -1, 1);
	case S_FSTAT: return sys_stat(t, pr, c, op, -1, -1, 0, 1);
	case S_NEWFSTATAT: return sys_stat(t, pr, c, op, 0, 1, -1, 2);
	case S_STATX: return sys_stat(t, pr, c, op, 0, 1, -1, 4);
	case S_ACCESS: return sys_access(t, pr, c, op, -1, 0);
	case S_FACCESSAT: return sys_access(t, pr, c, op, 0, 1);
	case S_UNLINK: return sys_bypath(t, pr, c, op, RP_OP_UNLINK, -1, 0, -1);
	case S_UNLINKAT:
		return sys_bypath(t, pr, c, op, rp__st_has_word(st_arg(c, 2), "AT_REMOVEDIR") ? RP_OP_RMDIR : RP_OP_UNLINK,
				  0, 1, -1);
	case S_RMDIR: return sys_bypath(t, pr, c, op, RP_OP_RMDIR, -1, 0, -1);
	case S_MKDIR: return sys_mode(t, pr, c, op, -1, 0, -1, 1, RP_OP_MKDIR);
	case S_MKDIRAT: return sys_mode(t, pr, c, op, 0, 1, -1, 2, RP_OP_MKDIR);
	case S_RENAME: return sys_rename(t, pr, c, op, false, -1);
	case S_RENAMEAT: return sys_rename(t, pr, c, op, true, -1);
	case S_RENAMEAT2: return sys_rename(t, pr, c, op, true, 4);
	case S_LINK: return sys_two_paths(t, pr, c, op, RP_OP_LINK, -1, 0, -1, 1);
	case S_LINKAT: return sys_two_paths(t, pr, c, op, RP_OP_LINK, 0, 1, 2, 3);
	case S_SYMLINK: return sys_symlink(t, pr, c, op, -1, 1);
	case S_SYMLINKAT: return sys_symlink(t, pr, c, op, 1, 2);
	case S_READLINK: return sys_readlink(t, pr, c, op, -1, 0);
	case S_READLINKAT: return sys_readlink(t, pr, c, op, 0, 1);
	case S_CHMOD: return sys_mode(t, pr, c, op, -1, 0, -1, 1, RP_OP_SETATTR);
	case S_FCHMOD: return sys_mode(t, pr, c, op, -1, -1, 0, 1, RP_OP_SETATTR);
	case S_FCHMODAT: return sys_mode(t, pr, c, op, 0, 1, -1, 2, RP_OP_SETATTR);
	case S_CHOWN: return sys_chown(t, pr, c, op, -1, 0, -1, 1);
	case S_FCHOWN: return sys_chown(t, pr, c, op, -1, -1, 0, 1);
	case S_FCHOWNAT: return sys_chown(t, pr, c, op, 0, 1, -1, 2);
	case S_UTIMENSAT: return sys_utimensat(t, pr, c, op);
	case S_GETDENTS: return sys_getdents(t, pr, c, op);
	case S_FCNTL: return sys_fcntl(t, pr, c, op);
	case S_FLOCK: return sys_flock(t, pr, c, op);
	case S_DUP:
	case S_DUP2: return sys_dup(t, pr, c, op, false);
	case S_DUP3: return sys_dup(t, pr, c, op, true);
	case S_COPY_FILE_RANGE: return sys_copy(t, pr, c, op, false);
	case S_SENDFILE: return sys_copy(t, pr, c, op, true);
	case S_STATFS: return sys_bypath(t, pr, c, op, RP_OP_STATFS, -1, 0, -1);
	case S_FSTATFS: return sys_bypath(t, pr, c, op, RP_OP_STATFS, -1, -1, 0);
	case S_MKNOD: return sys_mode(t, pr, c, op, -1, 0, -1, 1, RP_OP_MKNOD);
	case S_MKNODAT: return sys_mode(t, pr, c, op, 0, 1, -1, 2, RP_OP_MKNOD);
	case S_SETXATTR: return sys_xattr(t, pr, c, op, RP_OP_SETXATTR, false);
	case S_FSETXATTR: return sys_xattr(t, pr, c, op, RP_OP_SETXATTR, true);
	case S_GETXATTR: return sys_xattr(t, pr, c, op, RP_OP_GETXATTR, false);
	case S_FGETXATTR: return sys_xattr(t, pr, c, op, RP_OP_GETXATTR, true);
	case S_LISTXATTR: return sys_xattr(t, pr, c, op, RP_OP_LISTXATTR, false);
	case S_FLISTXATTR: return sys_xattr(t, pr, c, op, RP_OP_LISTXATTR, true);
	case S_REMOVEXATTR: return sys_xattr(t, pr, c, op, RP_OP_REMOVEXATTR, false);
	case S_FREMOVEXATTR: return sys_xattr(t, pr, c, op, RP_OP_REMOVEXATTR, true);
	case S_FORK: return sys_fork(t, pr, c, op);
	case S_WAIT4: return sys_wait(t, pr, c, op, false);
	case S_WAITID: return sys_wait(t, pr, c, op, true);
	case S_EXECVE: return sys_state(t, pr, c, 0);
	case S_CHDIR: return sys_state(t, pr, c, 1);
	case S_FCHDIR: return sys_state(t, pr, c, 2);
	case S_MMAP: return sys_mmap(t, pr, c, op);
	}
	return 0;
}
