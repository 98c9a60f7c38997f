/* strace's syscalls -> typed events (formats/sysev.h): the table (docs/strace.md); fds, paths and ops are formats/sysmodel's. */
#include "converters/strace_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define AT_CWD RP__ST_AT_CWD
/* A failure strace names with an errno this table does not know: below the kernel's -4095..-1 (sysev.h). */
#define ERR_UNNAMED (-4096)

/* Flags of argument s over table; unknown names counted. */
static bool flags_of(rp_strace *t, rp__st_str s, const rp__st_flag *table, size_t n, uint64_t *v)
{
	unsigned unknown = 0;
	if (!rp__st_flags(s, table, n, v, &unknown))
		return false;
	t->note[RP__ST_N_FLAGS] += unknown;
	return true;
}

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
static bool ptr_off(rp__st_str s, int64_t *v)
{
	if (s.len < 3 || s.p[0] != '[')
		return false;
	uint32_t e = 1;
	while (e < s.len && s.p[e] >= '0' && s.p[e] <= '9')
		e++;
	int64_t x;
	if (!rp__st_int((rp__st_str){ s.p + 1, e - 1 }, &x) || x < 0)
		return false;
	*v = x;
	return true;
}

/* The sum of every "key=N" in s (readv's iov_len). */
static int64_t sum_field(rp__st_str s, const char *key)
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
		if (rp__st_int((rp__st_str){ p, (uint32_t)(e - p) }, &v) && v > 0 && sum <= INT64_MAX - (uint64_t)v)
			sum += (uint64_t)v;
		p = e;
	}
	return (int64_t)sum;
}

/* ---- the syscalls ---- */

enum io_kind { IO_PLAIN, IO_VEC, IO_P, IO_PVEC };

static int sys_open(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, unsigned pi, int fi, int mi)
{
	uint64_t fl = O_CREAT | O_WRONLY | O_TRUNC; /* creat() */
	int64_t mode = 0;
	bool have_mode = mi >= 0 && num(c, (unsigned)mi, &mode);
	if (fi >= 0 && st_eq(st_arg(c, (unsigned)fi), ""))
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
	if (fl > UINT32_MAX)
		return st_badf(t, "bad open flags");
	int64_t dirfd;
	if (rp__st_dir_arg(t, b, c, di, &dirfd) < 0)
		return -1;
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_OPEN);
	if (!e || rp__st_need_str(t, b, c, pi, 0) < 0)
		return -1;
	e->a[0] = dirfd;
	e->a[1] = (int64_t)fl;
	e->a[2] = have_mode ? mode : 0;
	/* = 3</usr/lib/...>: the name -y gives the new fd while it is not renamed (the open's path stays its own) */
	uint32_t len;
	bool is_path;
	if (st_ok(c) && c->ret >= 0 && c->has_ret_annot && rp__st_annot_path(c->ret_annot, t->sbuf, RP_STR_MAX, &len, &is_path) &&
	    is_path) {
		rp__st_fdname *const n = c->ret <= INT32_MAX ? rp__st_name_add(t, b, c->ret) : NULL;
		if (!n)
			return -1;
		const int64_t got = rp__st_buf_put(t, b, t->sbuf, len, &n->off);
		if (got < 0)
			return -1;
		n->len = (uint32_t)got;
		n->kind = RP__ST_FD_PATH;
	}
	return 1;
}

static int sys_io(rp_strace *t, rp__st_batch *b, const rp__st_call *c, bool write, enum io_kind k)
{
	int64_t len = 0, off = -1, v;
	if (k == IO_VEC || k == IO_PVEC)
		len = sum_field(st_arg(c, 1), "iov_len=");
	else if (num(c, 2, &v) && v >= 0)
		len = v;
	else if (c->res != RP__ST_RES_NONE)
		return st_badf(t, "bad count"); /* an unfinished call never resumed may end before its count */
	if (k == IO_P || k == IO_PVEC) {
		if (num(c, 3, &v))
			off = v >= 0 ? v : -1; /* preadv2's -1: the file position */
		else if (c->res != RP__ST_RES_NONE)
			return st_badf(t, "bad offset");
	}
	rp__st_ev *const e = rp__st_byfd(t, b, c, write ? RP_SYSEV_WRITE : RP_SYSEV_READ, 0);
	if (!e)
		return -1;
	e->a[1] = off;
	e->a[2] = len;
	e->a[3] = k == IO_VEC || k == IO_PVEC;
	return 1;
}

static int sys_stat(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, int pi, int fi, unsigned bufi)
{
	rp__st_ev *const e = rp__st_bypath(t, b, c, RP_SYSEV_STAT, di, pi, fi);
	if (!e)
		return -1;
	e->a[3] = st_ok(c) && rp__st_has_word(st_arg(c, bufi), "S_IFDIR");
	return 1;
}

static int sys_access(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, unsigned pi)
{
	static const rp__st_flag am[] = { { "F_OK", 0 }, { "R_OK", 4 }, { "W_OK", 2 }, { "X_OK", 1 } };
	uint64_t m;
	if (!flags_of(t, st_arg(c, pi + 1), am, N(am), &m))
		return st_badf(t, "bad access mode");
	rp__st_ev *const e = rp__st_bypath(t, b, c, RP_SYSEV_ACCESS, di, (int)pi, -1);
	if (!e)
		return -1;
	e->a[1] = (int64_t)(m & 7);
	return 1;
}

/* Two paths against their dirfds (rename, link): d1/p1 -> a0/p0, d2/p2 -> a1/p1. */
static rp__st_ev *two_paths(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, int d1, unsigned p1,
			   int d2, unsigned p2)
{
	int64_t f1, f2;
	if (rp__st_dir_arg(t, b, c, d1, &f1) < 0 || rp__st_dir_arg(t, b, c, d2, &f2) < 0)
		return NULL;
	rp__st_ev *const e = rp__st_call_ev(t, b, nr);
	if (!e || rp__st_need_str(t, b, c, p1, 0) < 0 || rp__st_need_str(t, b, c, p2, 1) < 0)
		return NULL;
	e->a[0] = f1;
	e->a[1] = f2;
	return e;
}

/* rename, renameat, renameat2 (x4 its flags), link, linkat: two paths against their dirfds. */
static int sys_two(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, const int8_t *x)
{
	static const rp__st_flag rf[] = { { "RENAME_NOREPLACE", 1 }, { "RENAME_EXCHANGE", 2 }, { "RENAME_WHITEOUT", 4 } };
	rp__st_ev *const e = two_paths(t, b, c, nr, x[0], (unsigned)x[1], x[2], (unsigned)x[3]);
	if (!e)
		return -1;
	uint64_t f = 0;
	if (x[4] >= 0 && !flags_of(t, st_arg(c, (unsigned)x[4]), rf, N(rf), &f))
		return st_badf(t, "bad rename flags");
	e->a[2] = (int64_t)(f & 7);
	return 1;
}

static int sys_symlink(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, unsigned pi)
{
	int64_t dirfd;
	if (rp__st_dir_arg(t, b, c, di, &dirfd) < 0)
		return -1;
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_SYMLINK);
	if (!e)
		return -1;
	e->a[0] = dirfd;
	uint32_t len;
	bool cut;
	if (!rp__st_string(st_arg(c, 0), t->sbuf, RP_STR_MAX, &len, &cut))
		return st_badf(t, "bad symlink target");
	if (rp__st_ev_path(t, b, 0, t->sbuf, len) < 0) /* its contents: never resolved */
		return -1;
	return rp__st_need_str(t, b, c, pi, 1) < 0 ? -1 : 1;
}

static int sys_readlink(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, unsigned pi)
{
	rp__st_ev *const e = rp__st_bypath(t, b, c, RP_SYSEV_READLINK, di, (int)pi, -1);
	if (!e)
		return -1;
	int64_t size = 0;
	e->a[1] = num(c, pi + 2, &size) ? size : 0;
	uint32_t len;
	bool cut;
	if (st_ok(c) && c->ret >= 0 && rp__st_string(st_arg(c, pi + 1), t->sbuf, RP_STR_MAX, &len, &cut) &&
	    rp__st_ev_path(t, b, 1, t->sbuf, len) < 0)
		return -1;
	return 1;
}

static int sys_mode(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, int di, int pi, int fi, unsigned mi)
{
	uint64_t m;
	if (!flags_of(t, st_arg(c, mi), modes, N(modes), &m))
		return st_badf(t, "bad mode");
	if (nr == RP_SYSEV_CHMOD) { /* a0 the fd (-1: by path), a1 the dirfd */
		rp__st_ev *const e = rp__st_bypath(t, b, c, nr, di, pi, fi);
		if (!e)
			return -1;
		const bool by_path = (e->has & 1) != 0;
		e->a[1] = by_path ? e->a[0] : AT_CWD;
		e->a[0] = by_path ? -1 : e->a[0];
		e->a[2] = (int64_t)(m & 07777u);
		return 1;
	}
	rp__st_ev *const e = rp__st_bypath(t, b, c, nr, di, pi, fi);
	if (!e)
		return -1;
	e->a[1] = (int64_t)(m & 0177777u);
	return 1;
}

static int sys_chown(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, int pi, int fi, unsigned ui)
{
	int64_t u, g;
	if (!num(c, ui, &u) || !num(c, ui + 1, &g) || u < -1 || g < -1 || u > UINT32_MAX || g > UINT32_MAX)
		return st_badf(t, "bad owner or group");
	rp__st_ev *const e = rp__st_bypath(t, b, c, RP_SYSEV_CHOWN, di, pi, fi);
	if (!e)
		return -1;
	const bool by_path = (e->has & 1) != 0;
	e->a[1] = by_path ? e->a[0] : AT_CWD;
	e->a[0] = by_path ? -1 : e->a[0];
	e->a[2] = u;
	e->a[3] = g;
	return 1;
}

/* One timespec of utimensat's pair as the event's nanoseconds (-1 now, -2 omit); false when bad. */
static bool utime_one(rp__st_str s, int64_t *ns)
{
	if (rp__st_has_word(s, "UTIME_NOW")) {
		*ns = -1;
		return true;
	}
	if (rp__st_has_word(s, "UTIME_OMIT")) {
		*ns = -2;
		return true;
	}
	int64_t sec, nsec;
	if (!rp__st_field(s, "tv_sec=", &sec) || !rp__st_field(s, "tv_nsec=", &nsec) || sec < 0 || nsec < 0 ||
	    nsec >= 1000000000 || sec > INT64_MAX / 1000000000 - 1)
		return false;
	*ns = sec * 1000000000 + nsec;
	return true;
}

static int sys_utimensat(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	const rp__st_str ts = st_arg(c, 2);
	int64_t at = -1, mt = -1;
	if (!st_eq(ts, "NULL")) {
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
		if (!cut || !utime_one(a, &at) || !utime_one(m, &mt))
			return st_badf(t, "bad times");
	}
	rp__st_ev *e;
	if (st_eq(st_arg(c, 1), "NULL")) { /* futimens */
		if (!(e = rp__st_byfd(t, b, c, RP_SYSEV_UTIMENS, 0)))
			return -1;
		e->a[1] = AT_CWD;
	} else {
		if (!(e = rp__st_bypath(t, b, c, RP_SYSEV_UTIMENS, 0, 1, -1)))
			return -1;
		const bool by_path = (e->has & 1) != 0;
		e->a[1] = by_path ? e->a[0] : AT_CWD;
		e->a[0] = by_path ? -1 : e->a[0];
	}
	e->a[2] = at;
	e->a[3] = mt;
	return 1;
}

static int sys_lock(rp_strace *t, rp__st_batch *b, const rp__st_call *c, rp__st_str cmd)
{
	const rp__st_str fl = st_arg(c, 2);
	int64_t start = 0, len = 0;
	if (!rp__st_field(fl, "l_start=", &start) || !rp__st_field(fl, "l_len=", &len))
		return st_badf(t, "bad struct flock");
	static const struct {
		const char *name;
		int64_t cmd;
	} cmds[] = { { "F_GETLK", 5 }, { "F_SETLK", 6 }, { "F_SETLKW", 7 }, { "F_GETLK64", 12 }, { "F_SETLK64", 13 },
		     { "F_SETLKW64", 14 }, { "F_OFD_GETLK", 36 }, { "F_OFD_SETLK", 37 }, { "F_OFD_SETLKW", 38 } };
	int64_t nr = 6; /* another ...LK... command: a plain set */
	for (size_t i = 0; i < N(cmds); i++)
		if (st_eq(cmd, cmds[i].name))
			nr = cmds[i].cmd;
	rp__st_ev *const e = rp__st_byfd(t, b, c, RP_SYSEV_LOCK, 0);
	if (!e)
		return -1;
	e->a[1] = nr;
	e->a[2] = rp__st_has_word(fl, "F_UNLCK") ? 2 : rp__st_has_word(fl, "F_WRLCK") ? 1 : 0;
	e->a[3] = rp__st_has_word(fl, "SEEK_CUR") ? 1 : rp__st_has_word(fl, "SEEK_END") ? 2 : 0;
	e->a[4] = start;
	e->a[5] = len;
	return 1;
}

/* dup, dup2, dup3, F_DUPFD (min: the lowest fd it may take): the new fd names the same file under a new handle. */
static int dup_ev(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int64_t want, bool min, bool cloexec)
{
	rp__st_ev *const e = rp__st_byfd(t, b, c, RP_SYSEV_DUP, 0);
	if (!e)
		return -1;
	e->a[1] = want;
	e->a[2] = cloexec ? O_CLOEXEC : 0;
	e->a[3] = min;
	return 1;
}

static int sys_fcntl(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	const rp__st_str cmd = st_arg(c, 1);
	int64_t v = 0;
	if (st_eq(cmd, "F_DUPFD") || st_eq(cmd, "F_DUPFD_CLOEXEC"))
		return dup_ev(t, b, c, num(c, 2, &v) ? v : 0, true, st_eq(cmd, "F_DUPFD_CLOEXEC"));
	if (memmem(cmd.p, cmd.len, "LK", 2) != NULL)
		return sys_lock(t, b, c, cmd);
	t->note[RP__ST_N_STATE]++;
	int64_t fd;
	bool has;
	rp__st_str an;
	if (!st_eq(cmd, "F_SETFD") || !rp__st_fd(st_arg(c, 0), &fd, &has, &an) || fd < 0)
		return 0;
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_CLOEXEC); /* the fd as the model knows it: no name to learn */
	if (!e)
		return -1;
	e->a[0] = fd;
	e->a[1] = rp__st_has_word(st_arg(c, 2), "FD_CLOEXEC");
	return 1;
}

static int sys_flock(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	const rp__st_str how = st_arg(c, 1);
	rp__st_ev *const e = rp__st_byfd(t, b, c, RP_SYSEV_FLOCK, 0);
	if (!e)
		return -1;
	e->a[1] = (rp__st_has_word(how, "LOCK_SH") ? 1 : 0) | (rp__st_has_word(how, "LOCK_EX") ? 2 : 0) |
		  (rp__st_has_word(how, "LOCK_NB") ? 4 : 0) | (rp__st_has_word(how, "LOCK_UN") ? 8 : 0);
	return 1;
}

/* copy_file_range(in, off_in, out, off_out, len, flags) and sendfile(out, in, offset, count). */
static int sys_copy(rp_strace *t, rp__st_batch *b, const rp__st_call *c, bool sendfile)
{
	int64_t len;
	if (!num(c, sendfile ? 3 : 4, &len) || len < 0)
		return st_badf(t, "bad length");
	const unsigned in_i = sendfile ? 1 : 0, out_i = sendfile ? 0 : 2;
	int64_t in, out = -1;
	const int r = rp__st_fd_arg(t, b, c, in_i, false, &in);
	/* a pipe or socket in: no op, and the out fd is not looked at (as a call on it makes none) */
	if (r < 0 || (r > 0 && rp__st_fd_arg(t, b, c, out_i, false, &out) < 0))
		return -1;
	if (r == 0 && !rp__st_fd(st_arg(c, out_i), &out, &(bool){ false }, &(rp__st_str){ 0 }))
		return st_badf(t, "bad fd argument");
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_COPY);
	if (!e)
		return -1;
	int64_t off_in = -1, off_out = -1;
	if (!ptr_off(st_arg(c, sendfile ? 2 : 1), &off_in))
		off_in = -1;
	if (sendfile || !ptr_off(st_arg(c, 3), &off_out))
		off_out = -1;
	e->a[0] = in;
	e->a[1] = off_in;
	e->a[2] = out;
	e->a[3] = off_out;
	e->a[4] = len;
	e->a[5] = sendfile ? 2 : 1;
	return 1;
}

static int sys_fallocate(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	static const rp__st_flag ff[] = { { "FALLOC_FL_KEEP_SIZE", 1 }, { "FALLOC_FL_PUNCH_HOLE", 2 },
					  { "FALLOC_FL_ZERO_RANGE", 16 } };
	uint64_t m;
	int64_t off, len;
	if (!flags_of(t, st_arg(c, 1), ff, N(ff), &m) || !num(c, 2, &off) || !num(c, 3, &len) || off < 0 || len < 0)
		return st_badf(t, "bad fallocate arguments");
	rp__st_ev *const e = rp__st_byfd(t, b, c, RP_SYSEV_FALLOCATE, 0);
	if (!e)
		return -1;
	e->a[1] = (int64_t)(m & 0x13);
	e->a[2] = off;
	e->a[3] = len;
	return 1;
}

static int sys_truncate(rp_strace *t, rp__st_batch *b, const rp__st_call *c, bool byfd_)
{
	int64_t len;
	if (!num(c, 1, &len) || len < 0)
		return st_badf(t, "bad length");
	rp__st_ev *const e = byfd_ ? rp__st_byfd(t, b, c, RP_SYSEV_TRUNCATE, 0) : rp__st_bypath(t, b, c, RP_SYSEV_TRUNCATE, -1, 0, -1);
	if (!e)
		return -1;
	if (!byfd_) {
		e->a[0] = -1;
		e->a[3] = AT_CWD;
	}
	e->a[1] = len;
	return 1;
}

/* xattr calls: a1 0 get, 1 set, 2 list, 3 remove (sysev.h). */
static int sys_xattr(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int kind, bool by_fd)
{
	rp__st_ev *const e = by_fd ? rp__st_byfd(t, b, c, RP_SYSEV_XATTR, 0) : rp__st_bypath(t, b, c, RP_SYSEV_XATTR, -1, 0, -1);
	if (!e)
		return -1;
	if (!by_fd)
		e->a[0] = -1;
	e->a[1] = kind;
	if (kind != 2) {
		uint32_t len;
		bool cut;
		if (!rp__st_string(st_arg(c, 1), t->sbuf, RP_STR_MAX, &len, &cut))
			return st_badf(t, "bad attribute name");
		if (rp__st_ev_path(t, b, 1, t->sbuf, len) < 0)
			return -1;
	}
	int64_t size;
	e->a[3] = kind != 3 && num(c, kind == 2 ? 2 : 3, &size) && size >= 0 ? size : -1;
	return 1;
}

static int sys_getdents(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	rp__st_ev *const e = rp__st_byfd(t, b, c, RP_SYSEV_GETDENTS, 0);
	if (!e)
		return -1;
	int64_t count;
	e->a[1] = num(c, 2, &count) && count >= 0 ? count : 0;
	const rp__st_str d = st_arg(c, 1);
	const char *const cm = memmem(d.p, d.len, "/* ", 3);
	int64_t n;
	if (cm) {
		const char *x = cm + 3;
		while (x < d.p + d.len && *x >= '0' && *x <= '9')
			x++;
		if (rp__st_int((rp__st_str){ cm + 3, (uint32_t)(x - cm - 3) }, &n) && n >= 0) {
			e->a[2] = n; /* strace: N entries, in a comment */
			e->a[3] = 1;
		}
	} else if (st_ok(c) && c->ret > 0) {
		for (const char *p = d.p; (p = memmem(p, (size_t)(d.p + d.len - p), "d_ino=", 6)) != NULL; p += 6)
			e->a[2]++;
		e->a[3] = 1;
	}
	return 1;
}

static int sys_mmap(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	int64_t fd, len, off;
	bool has;
	rp__st_str an;
	if (!rp__st_fd(st_arg(c, 4), &fd, &has, &an) || !num(c, 1, &len) || !num(c, 5, &off))
		return st_badf(t, "bad mmap arguments");
	if (fd < 0 || rp__st_has_word(st_arg(c, 3), "MAP_ANONYMOUS"))
		return 0; /* memory, not a file */
	rp__st_ev *const e = rp__st_byfd(t, b, c, RP_SYSEV_MMAP, 4);
	if (!e)
		return -1;
	e->a[1] = off;
	e->a[2] = len;
	e->a[4] = rp__st_has_word(st_arg(c, 3), "MAP_SHARED") ? 1 : 2;
	return 1;
}

/* fork, vfork, clone, clone3: the child's pid in ret, a2 1 when it shares the fd table (strace.c names them). */
static int sys_fork(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_FORK);
	if (!e)
		return -1;
	e->a[1] = 1;
	for (unsigned i = 0; i < c->nargs; i++)
		e->a[2] = e->a[2] || rp__st_has_word(c->args[i], "CLONE_FILES");
	return 1;
}

/* wait4 (= the pid reaped) and waitid (its siginfo's si_pid): a wait on the child's client. */
static int sys_wait(rp_strace *t, rp__st_batch *b, const rp__st_call *c, bool waitid)
{
	int64_t pid = st_ok(c) ? c->ret : 0;
	if (waitid && (!st_ok(c) || c->ret != 0 || !rp__st_field(st_arg(c, 2), "si_pid", &pid)))
		pid = 0;
	if (pid <= 0 || pid > UINT32_MAX)
		return 0; /* nothing reaped (WNOHANG, an error): no op */
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_WAIT);
	if (!e)
		return -1;
	e->a[0] = pid;
	return 1;
}

static int sys_execve(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	t->note[RP__ST_N_STATE]++;
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_EXEC); /* seen done: the close-on-exec fds go */
	if (!e)
		return -1;
	e->a[0] = AT_CWD;
	e->a[1] = 1;
	return 1;
}

static int sys_chdir(rp_strace *t, rp__st_batch *b, const rp__st_call *c, bool by_fd)
{
	t->note[RP__ST_N_STATE]++;
	if (!st_ok(c))
		return 0;
	if (by_fd) {
		rp__st_ev *const e = rp__st_byfd(t, b, c, RP_SYSEV_CHDIR, 0);
		return e ? 1 : -1;
	}
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_CHDIR);
	if (!e)
		return -1;
	e->a[0] = -1;
	const int r = rp__st_str_arg(t, b, c, 0, 0);
	return r < 0 ? -1 : r == 0 ? 0 : 1;
}

static int sys_lseek(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	t->note[RP__ST_N_STATE]++;
	int64_t fd, off = 0;
	bool has;
	rp__st_str an;
	if (!st_ok(c) || c->ret < 0 || !rp__st_fd(st_arg(c, 0), &fd, &has, &an) || fd < 0)
		return 0;
	/* the fd as the model knows it: a seek names no file for it */
	rp__st_ev *const e = rp__st_call_ev(t, b, RP_SYSEV_LSEEK);
	if (!e)
		return -1;
	e->a[0] = fd;
	e->a[1] = num(c, 1, &off) ? off : 0;
	return 1;
}

/* ---- the table: a call's family (its handler), event kind and where its arguments are ---- */

/* Calls of one family differ only in their event kind (nr) and the positions x[] of their arguments (-1: none). */
typedef enum fam {
	F_OPEN,      /* x: dirfd, path, flags (or open_how), mode */
	F_BYFD,      /* nr on the fd of argument 0, a1 x0 (fdatasync's 1) */
	F_IO,        /* x0 1 for a write, x1 its io_kind */
	F_TRUNCATE,  /* x0 1 by fd */
	F_STAT,      /* x: dirfd, path, fd, the struct stat */
	F_ACCESS,    /* x: dirfd, path (the mode after it) */
	F_UNLINK,    /* x: dirfd, path, the AT_REMOVEDIR flags (-1: none), 1 for rmdir */
	F_MODE,      /* nr; x: dirfd, path, fd, mode */
	F_TWO,       /* nr; x: dirfd, path, new dirfd, new path, rename flags */
	F_SYMLINK,   /* x: dirfd, path (the target is argument 0) */
	F_READLINK,  /* x: dirfd, path (the buffer and size after it) */
	F_CHOWN,     /* x: dirfd, path, fd, owner (the group after it) */
	F_DUP,       /* x: the new fd (-1: dup), the flags (dup3) */
	F_COPY,      /* x0 1 for sendfile */
	F_XATTR,     /* x0 0 get, 1 set, 2 list, 3 remove; x1 1 by fd */
	F_WAIT,      /* x0 1 for waitid */
	F_CHDIR,     /* x0 1 by fd */
	F_LSEEK, F_FALLOCATE, F_STATFS, F_UTIMENS, F_GETDENTS, F_FCNTL, F_FLOCK, F_FORK, F_EXEC, F_MMAP,
} fam;

struct rp__st_sys {
	const char *name;
	uint8_t len, fam, nr;
	int8_t x[5];
};

#define S(n, f, nr, ...) { n, sizeof(n) - 1, f, nr, { __VA_ARGS__ } }
/* Sorted by length, then bytes: one binary search a line (tests/converters checks the order). */
static const rp__st_sys table[] = {
	S("dup", F_DUP, 0, -1, -1), S("dup2", F_DUP, 0, 1, -1),
	S("dup3", F_DUP, 0, 1, 2), S("fork", F_FORK, 0, 0),
	S("link", F_TWO, RP_SYSEV_LINK, -1, 0, -1, 1, -1), S("mmap", F_MMAP, 0, 0),
	S("open", F_OPEN, 0, -1, 0, 1, 2), S("read", F_IO, 0, 0, IO_PLAIN),
	S("stat", F_STAT, 0, -1, 0, -1, 1), S("chdir", F_CHDIR, 0, 0),
	S("chmod", F_MODE, RP_SYSEV_CHMOD, -1, 0, -1, 1), S("chown", F_CHOWN, 0, -1, 0, -1, 1),
	S("clone", F_FORK, 0, 0), S("close", F_BYFD, RP_SYSEV_CLOSE, 0),
	S("creat", F_OPEN, 0, -1, 0, -1, 1), S("fcntl", F_FCNTL, 0, 0),
	S("flock", F_FLOCK, 0, 0), S("fstat", F_STAT, 0, -1, -1, 0, 1),
	S("fsync", F_BYFD, RP_SYSEV_FSYNC, 0), S("lseek", F_LSEEK, 0, 0),
	S("lstat", F_STAT, 0, -1, 0, -1, 1), S("mkdir", F_MODE, RP_SYSEV_MKDIR, -1, 0, -1, 1),
	S("mknod", F_MODE, RP_SYSEV_MKNOD, -1, 0, -1, 1), S("mmap2", F_MMAP, 0, 0),
	S("readv", F_IO, 0, 0, IO_VEC), S("rmdir", F_UNLINK, 0, -1, 0, -1, 1),
	S("statx", F_STAT, 0, 0, 1, -1, 4), S("vfork", F_FORK, 0, 0),
	S("wait4", F_WAIT, 0, 0), S("write", F_IO, 0, 1, IO_PLAIN),
	S("access", F_ACCESS, 0, -1, 0), S("clone3", F_FORK, 0, 0),
	S("execve", F_EXEC, 0, 0), S("fchdir", F_CHDIR, 0, 1),
	S("fchmod", F_MODE, RP_SYSEV_CHMOD, -1, -1, 0, 1), S("fchown", F_CHOWN, 0, -1, -1, 0, 1),
	S("lchown", F_CHOWN, 0, -1, 0, -1, 1), S("linkat", F_TWO, RP_SYSEV_LINK, 0, 1, 2, 3, -1),
	S("openat", F_OPEN, 0, 0, 1, 2, 3), S("preadv", F_IO, 0, 0, IO_PVEC),
	S("rename", F_TWO, RP_SYSEV_RENAME, -1, 0, -1, 1, -1), S("statfs", F_STATFS, 0, 0),
	S("unlink", F_UNLINK, 0, -1, 0, -1, 0), S("waitid", F_WAIT, 0, 1),
	S("writev", F_IO, 0, 1, IO_VEC), S("fcntl64", F_FCNTL, 0, 0),
	S("fstatfs", F_BYFD, RP_SYSEV_STATFS, 0), S("mkdirat", F_MODE, RP_SYSEV_MKDIR, 0, 1, -1, 2),
	S("mknodat", F_MODE, RP_SYSEV_MKNOD, 0, 1, -1, 2), S("openat2", F_OPEN, 0, 0, 1, 2, -1),
	S("pread64", F_IO, 0, 0, IO_P), S("preadv2", F_IO, 0, 0, IO_PVEC),
	S("pwritev", F_IO, 0, 1, IO_PVEC), S("symlink", F_SYMLINK, 0, -1, 1),
	S("execveat", F_EXEC, 0, 0), S("fchmodat", F_MODE, RP_SYSEV_CHMOD, 0, 1, -1, 2),
	S("fchownat", F_CHOWN, 0, 0, 1, -1, 2), S("getdents", F_GETDENTS, 0, 0),
	S("getxattr", F_XATTR, 0, 0, 0), S("pwrite64", F_IO, 0, 1, IO_P),
	S("pwritev2", F_IO, 0, 1, IO_PVEC), S("readlink", F_READLINK, 0, -1, 0),
	S("renameat", F_TWO, RP_SYSEV_RENAME, 0, 1, 2, 3, -1), S("sendfile", F_COPY, 0, 1),
	S("setxattr", F_XATTR, 0, 1, 0), S("truncate", F_TRUNCATE, 0, 0),
	S("unlinkat", F_UNLINK, 0, 0, 1, 2, 0), S("faccessat", F_ACCESS, 0, 0, 1),
	S("fallocate", F_FALLOCATE, 0, 0), S("fchmodat2", F_MODE, RP_SYSEV_CHMOD, 0, 1, -1, 2),
	S("fdatasync", F_BYFD, RP_SYSEV_FSYNC, 1), S("fgetxattr", F_XATTR, 0, 0, 1),
	S("fsetxattr", F_XATTR, 0, 1, 1), S("fstatat64", F_STAT, 0, 0, 1, -1, 2),
	S("ftruncate", F_TRUNCATE, 0, 1), S("lgetxattr", F_XATTR, 0, 0, 0),
	S("listxattr", F_XATTR, 0, 2, 0), S("lsetxattr", F_XATTR, 0, 1, 0),
	S("renameat2", F_TWO, RP_SYSEV_RENAME, 0, 1, 2, 3, 4), S("symlinkat", F_SYMLINK, 0, 1, 2),
	S("utimensat", F_UTIMENS, 0, 0), S("faccessat2", F_ACCESS, 0, 0, 1),
	S("flistxattr", F_XATTR, 0, 2, 1), S("getdents64", F_GETDENTS, 0, 0),
	S("llistxattr", F_XATTR, 0, 2, 0), S("newfstatat", F_STAT, 0, 0, 1, -1, 2),
	S("readlinkat", F_READLINK, 0, 0, 1), S("sendfile64", F_COPY, 0, 1),
	S("removexattr", F_XATTR, 0, 3, 0), S("fremovexattr", F_XATTR, 0, 3, 1),
	S("lremovexattr", F_XATTR, 0, 3, 0), S("copy_file_range", F_COPY, 0, 0),
};
#undef S
#define NAME_MAX_LEN 15 /* copy_file_range */

static int sys_cmp(const void *key, const void *elem)
{
	const rp__st_str *const n = key;
	const rp__st_sys *const s = elem;
	return n->len != s->len ? (int)n->len - (int)s->len : memcmp(n->p, s->name, n->len);
}

const rp__st_sys *rp__st_sys_find(rp__st_str name)
{
	if (!name.len || name.len > NAME_MAX_LEN)
		return NULL;
	return bsearch(&name, table, N(table), sizeof(table[0]), sys_cmp);
}

bool rp__st_sys_io(const rp__st_sys *s)
{
	return s->fam == F_IO;
}

const char *rp__st_sys_name(size_t i)
{
	return i < N(table) ? table[i].name : NULL;
}

static int sys_dup(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int wi, int fi)
{
	int64_t want = -1;
	if (wi >= 0 && (!rp__st_fd(st_arg(c, (unsigned)wi), &want, &(bool){ false }, &(rp__st_str){ 0 }) || want < 0))
		return st_badf(t, "bad fd argument");
	return dup_ev(t, b, c, want, false, fi >= 0 && rp__st_has_word(st_arg(c, (unsigned)fi), "O_CLOEXEC"));
}

/* The call's events, without the result (rp__st_syscall adds it). */
static int events(rp_strace *t, const rp__st_sys *s, const rp__st_call *c, rp__st_batch *b)
{
	const int8_t *const x = s->x;
	rp__st_ev *e;
	switch ((fam)s->fam) {
	case F_OPEN: return sys_open(t, b, c, x[0], (unsigned)x[1], x[2], x[3]);
	case F_BYFD:
		if (!(e = rp__st_byfd(t, b, c, s->nr, 0)))
			return -1;
		e->a[1] = x[0];
		return 1;
	case F_IO: return sys_io(t, b, c, x[0], (enum io_kind)x[1]);
	case F_TRUNCATE: return sys_truncate(t, b, c, x[0]);
	case F_STAT: return sys_stat(t, b, c, x[0], x[1], x[2], (unsigned)x[3]);
	case F_ACCESS: return sys_access(t, b, c, x[0], (unsigned)x[1]);
	case F_UNLINK:
		if (!(e = rp__st_bypath(t, b, c, RP_SYSEV_UNLINK, x[0], x[1], -1)))
			return -1;
		e->a[1] = x[3] || (x[2] >= 0 && rp__st_has_word(st_arg(c, (unsigned)x[2]), "AT_REMOVEDIR")) ? 0x200 : 0;
		return 1;
	case F_MODE: return sys_mode(t, b, c, s->nr, x[0], x[1], x[2], (unsigned)x[3]);
	case F_TWO: return sys_two(t, b, c, s->nr, x);
	case F_SYMLINK: return sys_symlink(t, b, c, x[0], (unsigned)x[1]);
	case F_READLINK: return sys_readlink(t, b, c, x[0], (unsigned)x[1]);
	case F_CHOWN: return sys_chown(t, b, c, x[0], x[1], x[2], (unsigned)x[3]);
	case F_DUP: return sys_dup(t, b, c, x[0], x[1]);
	case F_COPY: return sys_copy(t, b, c, x[0]);
	case F_XATTR: return sys_xattr(t, b, c, x[0], x[1]);
	case F_WAIT: return sys_wait(t, b, c, x[0]);
	case F_CHDIR: return sys_chdir(t, b, c, x[0]);
	case F_LSEEK: return sys_lseek(t, b, c);
	case F_FALLOCATE: return sys_fallocate(t, b, c);
	case F_STATFS:
		if (!(e = rp__st_bypath(t, b, c, RP_SYSEV_STATFS, -1, 0, -1)))
			return -1;
		e->a[0] = -1;
		return 1;
	case F_UTIMENS: return sys_utimensat(t, b, c);
	case F_GETDENTS: return sys_getdents(t, b, c);
	case F_FCNTL: return sys_fcntl(t, b, c);
	case F_FLOCK: return sys_flock(t, b, c);
	case F_FORK: return sys_fork(t, b, c);
	case F_EXEC: return sys_execve(t, b, c);
	case F_MMAP: return sys_mmap(t, b, c);
	}
	return 0;
}

int rp__st_syscall(rp_strace *t, const rp__st_sys *s, const rp__st_call *c, rp__st_batch *b)
{
	b->n_names = b->before = 0;
	b->has_ev = b->none = false;
	b->len = 0;
	const int r = events(t, s, c, b);
	if (r <= 0)
		return r;
	if (b->none) {
		t->note[RP__ST_N_NOFD]++;
		return 0;
	}
	if (!b->has_ev)
		return st_badf(t, "no event for the call");
	/* the result on the call's event (the fd names around it only name fds) */
	int64_t ret = 0;
	uint16_t flags = 0;
	switch (c->res) {
	case RP__ST_RES_OK: ret = c->ret; break;
	case RP__ST_RES_ERR: {
		const int e = rp__st_errno(c->err);
		ret = e ? -(int64_t)e : ERR_UNNAMED;
		break;
	}
	default: flags = RP_SYSEV_NOEND; break;
	}
	b->ev.ret = ret;
	b->ev.flags = flags;
	return 1;
}
