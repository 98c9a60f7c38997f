/* strace's syscalls -> typed events (formats/sysev.h): the table (docs/strace.md); fds, paths and ops are formats/sysmodel's. */
#include "converters/strace_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* AT_FDCWD as strace prints it and the events carry it */
#define AT_CWD (-100)
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

/* ---- the batch: one call's events ---- */

/* s[0..len) into b's buffer at *off, cut at a NUL as the kernel reads a C string: its length, or -1. */
static int64_t buf_put(rp_strace *t, rp__st_batch *b, const char *s, uint32_t len, uint32_t *off)
{
	const char *const nul = memchr(s, '\0', len);
	if (nul)
		len = (uint32_t)(nul - s);
	if (len > RP_SYSEV_PATH_MAX)
		return st_badf(t, "a path longer than PATH_MAX (4096 bytes)");
	if (b->len + len > b->cap) {
		uint32_t ncap = b->cap ? b->cap : 64;
		while (ncap < b->len + len)
			ncap *= 2;
		char *const nb = realloc(b->buf, ncap);
		if (!nb) {
			t->fatal = RP_E_NOMEM;
			return st_badf(t, "out of memory");
		}
		b->buf = nb;
		b->cap = ncap;
	}
	if (len)
		memcpy(b->buf + b->len, s, len);
	*off = b->len;
	b->len += len;
	return len;
}

/* s[0..len) as path i of b's call event. */
static int ev_path(rp_strace *t, rp__st_batch *b, unsigned i, const char *s, uint32_t len)
{
	const int64_t n = buf_put(t, b, s, len, &b->ev.off[i]);
	if (n < 0)
		return -1;
	b->ev.plen[i] = (uint32_t)n;
	b->ev.has |= (uint8_t)(1u << i);
	return 0;
}

/* The name of fd for the model, before the call's event (or after it: its result's); NULL when bad. */
static rp__st_fdname *name_add(rp_strace *t, rp__st_batch *b, int64_t fd)
{
	if (b->n_names == RP__ST_NAMES) {
		st_badf(t, "too many fds in one call");
		return NULL;
	}
	rp__st_fdname *const n = &b->names[b->n_names++];
	*n = (rp__st_fdname){ .fd = (int32_t)fd, .kind = RP__ST_FD_UNNAMED };
	return n;
}

/*
 * The fd of argument i as the model needs to know it first: its name as
 * -y shows it, a pipe or socket as such, an fd without a name as a file
 * never seen (dir: a dirfd, named only when -y names it).  1 a file (or
 * unknown), 0 a pipe or socket, -1 bad; *fd the number.
 */
static int fd_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, bool dir, int64_t *fd)
{
	bool has;
	rp__st_str an;
	if (!rp__st_fd(st_arg(c, i), fd, &has, &an) || *fd < INT32_MIN || *fd > INT32_MAX)
		return st_badf(t, dir ? "bad directory fd argument" : "bad fd argument");
	if (!dir && *fd < 0)
		b->none = true; /* no fd at all: the call fails with EBADF and names nothing */
	if ((*fd < 0 && *fd != AT_CWD) || (!has && (dir || *fd < 0)))
		return 1;
	rp__st_fdname *const n = name_add(t, b, *fd);
	if (!n)
		return -1;
	if (!has)
		return 1;
	uint32_t len;
	bool is_path;
	if (!rp__st_annot_path(an, t->sbuf, RP_STR_MAX, &len, &is_path))
		return st_badf(t, "bad <path> annotation");
	if (!is_path) {
		n->kind = RP__ST_FD_NONFILE;
		return 0;
	}
	const int64_t got = buf_put(t, b, t->sbuf, len, &n->off);
	if (got < 0)
		return -1;
	n->len = (uint32_t)got;
	n->kind = RP__ST_FD_PATH;
	return 1;
}

/* The string argument i as path j of b's last event: 1, 0 when it is no string (NULL, an address), -1 bad. */
static int str_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, unsigned j)
{
	const rp__st_str a = st_arg(c, i);
	uint32_t len;
	bool cut;
	if (!a.len || a.p[0] != '"')
		return 0;
	if (!rp__st_string(a, t->sbuf, RP_STR_MAX, &len, &cut))
		return st_badf(t, "bad string argument");
	return ev_path(t, b, j, t->sbuf, len) < 0 ? -1 : 1;
}

/* As str_arg, a missing string being bad. */
static int need_str(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, unsigned j)
{
	const int r = str_arg(t, b, c, i, j);
	return r == 0 ? st_badf(t, "expected a path string") : r;
}

/* The dirfd of argument di (-1: the working directory) named first, as *fd. */
static int dir_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, int64_t *fd)
{
	*fd = AT_CWD;
	return di < 0 ? 1 : fd_arg(t, b, c, (unsigned)di, true, fd) < 0 ? -1 : 1;
}

/* The call's own event, after the fd names so far (the result's name comes after it). */
static rp__st_ev *call_ev(rp_strace *t, rp__st_batch *b, unsigned nr)
{
	if (b->has_ev) {
		st_badf(t, "two events in one call");
		return NULL;
	}
	b->ev = (rp__st_ev){ .nr = (uint16_t)nr };
	b->has_ev = true;
	b->before = b->n_names;
	return &b->ev;
}

/*
 * By path pi against dirfd di, or by the fd di itself when the path is
 * empty or NULL (AT_EMPTY_PATH), or by the fd fi when there is no path
 * argument: the call event with a0 the dirfd (or fd) and p0 the path.
 */
static rp__st_ev *bypath(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, int di, int pi, int fi)
{
	int64_t fd = AT_CWD;
	bool empty = pi < 0;
	if (pi >= 0) {
		const rp__st_str a = st_arg(c, (unsigned)pi);
		empty = (st_eq(a, "\"\"") || st_eq(a, "NULL")) && di >= 0 && !st_eq(st_arg(c, (unsigned)di), "AT_FDCWD");
		fi = empty ? di : -1;
	}
	if (empty) {
		if (fi < 0) {
			st_badf(t, "no path or fd");
			return NULL;
		}
		if (fd_arg(t, b, c, (unsigned)fi, false, &fd) < 0)
			return NULL;
		rp__st_ev *const e = call_ev(t, b, nr);
		if (e)
			e->a[0] = fd;
		return e;
	}
	if (dir_arg(t, b, c, di, &fd) < 0)
		return NULL;
	rp__st_ev *const e = call_ev(t, b, nr);
	if (!e)
		return NULL;
	e->a[0] = fd;
	return need_str(t, b, c, (unsigned)pi, 0) < 0 ? NULL : e;
}

/* A call on the fd of argument i: its FD event, then the call's with a0 the fd; NULL when bad. */
static rp__st_ev *byfd(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, unsigned i)
{
	int64_t fd;
	if (fd_arg(t, b, c, i, false, &fd) < 0)
		return NULL;
	rp__st_ev *const e = call_ev(t, b, nr);
	if (e)
		e->a[0] = fd;
	return e;
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
	if (dir_arg(t, b, c, di, &dirfd) < 0)
		return -1;
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_OPEN);
	if (!e || need_str(t, b, c, pi, 0) < 0)
		return -1;
	e->a[0] = dirfd;
	e->a[1] = (int64_t)fl;
	e->a[2] = have_mode ? mode : 0;
	/* = 3</usr/lib/...>: the name -y gives the new fd while it is not renamed (the open's path stays its own) */
	uint32_t len;
	bool is_path;
	if (st_ok(c) && c->ret >= 0 && c->has_ret_annot && rp__st_annot_path(c->ret_annot, t->sbuf, RP_STR_MAX, &len, &is_path) &&
	    is_path) {
		rp__st_fdname *const n = c->ret <= INT32_MAX ? name_add(t, b, c->ret) : NULL;
		if (!n)
			return -1;
		const int64_t got = buf_put(t, b, t->sbuf, len, &n->off);
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
	rp__st_ev *const e = byfd(t, b, c, write ? RP_SYSEV_WRITE : RP_SYSEV_READ, 0);
	if (!e)
		return -1;
	e->a[1] = off;
	e->a[2] = len;
	e->a[3] = k == IO_VEC || k == IO_PVEC;
	return 1;
}

static int sys_stat(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, int pi, int fi, unsigned bufi)
{
	rp__st_ev *const e = bypath(t, b, c, RP_SYSEV_STAT, di, pi, fi);
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
	rp__st_ev *const e = bypath(t, b, c, RP_SYSEV_ACCESS, di, (int)pi, -1);
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
	if (dir_arg(t, b, c, d1, &f1) < 0 || dir_arg(t, b, c, d2, &f2) < 0)
		return NULL;
	rp__st_ev *const e = call_ev(t, b, nr);
	if (!e || need_str(t, b, c, p1, 0) < 0 || need_str(t, b, c, p2, 1) < 0)
		return NULL;
	e->a[0] = f1;
	e->a[1] = f2;
	return e;
}

static int sys_rename(rp_strace *t, rp__st_batch *b, const rp__st_call *c, bool at, int fi)
{
	static const rp__st_flag rf[] = { { "RENAME_NOREPLACE", 1 }, { "RENAME_EXCHANGE", 2 }, { "RENAME_WHITEOUT", 4 } };
	rp__st_ev *const e = at ? two_paths(t, b, c, RP_SYSEV_RENAME, 0, 1, 2, 3) : two_paths(t, b, c, RP_SYSEV_RENAME, -1, 0, -1, 1);
	if (!e)
		return -1;
	uint64_t f = 0;
	if (fi >= 0 && !flags_of(t, st_arg(c, (unsigned)fi), rf, N(rf), &f))
		return st_badf(t, "bad rename flags");
	e->a[2] = (int64_t)(f & 7);
	return 1;
}

static int sys_symlink(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, unsigned pi)
{
	int64_t dirfd;
	if (dir_arg(t, b, c, di, &dirfd) < 0)
		return -1;
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_SYMLINK);
	if (!e)
		return -1;
	e->a[0] = dirfd;
	uint32_t len;
	bool cut;
	if (!rp__st_string(st_arg(c, 0), t->sbuf, RP_STR_MAX, &len, &cut))
		return st_badf(t, "bad symlink target");
	if (ev_path(t, b, 0, t->sbuf, len) < 0) /* its contents: never resolved */
		return -1;
	return need_str(t, b, c, pi, 1) < 0 ? -1 : 1;
}

static int sys_readlink(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, unsigned pi)
{
	rp__st_ev *const e = bypath(t, b, c, RP_SYSEV_READLINK, di, (int)pi, -1);
	if (!e)
		return -1;
	int64_t size = 0;
	e->a[1] = num(c, pi + 2, &size) ? size : 0;
	uint32_t len;
	bool cut;
	if (st_ok(c) && c->ret >= 0 && rp__st_string(st_arg(c, pi + 1), t->sbuf, RP_STR_MAX, &len, &cut) &&
	    ev_path(t, b, 1, t->sbuf, len) < 0)
		return -1;
	return 1;
}

static int sys_mode(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, int di, int pi, int fi, unsigned mi)
{
	uint64_t m;
	if (!flags_of(t, st_arg(c, mi), modes, N(modes), &m))
		return st_badf(t, "bad mode");
	if (nr == RP_SYSEV_CHMOD) { /* a0 the fd (-1: by path), a1 the dirfd */
		rp__st_ev *const e = bypath(t, b, c, nr, di, pi, fi);
		if (!e)
			return -1;
		const bool by_path = (e->has & 1) != 0;
		e->a[1] = by_path ? e->a[0] : AT_CWD;
		e->a[0] = by_path ? -1 : e->a[0];
		e->a[2] = (int64_t)(m & 07777u);
		return 1;
	}
	rp__st_ev *const e = bypath(t, b, c, nr, di, pi, fi);
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
	rp__st_ev *const e = bypath(t, b, c, RP_SYSEV_CHOWN, di, pi, fi);
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
		if (!(e = byfd(t, b, c, RP_SYSEV_UTIMENS, 0)))
			return -1;
		e->a[1] = AT_CWD;
	} else {
		if (!(e = bypath(t, b, c, RP_SYSEV_UTIMENS, 0, 1, -1)))
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
	rp__st_ev *const e = byfd(t, b, c, RP_SYSEV_LOCK, 0);
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
	rp__st_ev *const e = byfd(t, b, c, RP_SYSEV_DUP, 0);
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
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_CLOEXEC); /* the fd as the model knows it: no name to learn */
	if (!e)
		return -1;
	e->a[0] = fd;
	e->a[1] = rp__st_has_word(st_arg(c, 2), "FD_CLOEXEC");
	return 1;
}

static int sys_flock(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	const rp__st_str how = st_arg(c, 1);
	rp__st_ev *const e = byfd(t, b, c, RP_SYSEV_FLOCK, 0);
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
	const int r = fd_arg(t, b, c, in_i, false, &in);
	/* a pipe or socket in: no op, and the out fd is not looked at (as a call on it makes none) */
	if (r < 0 || (r > 0 && fd_arg(t, b, c, out_i, false, &out) < 0))
		return -1;
	if (r == 0 && !rp__st_fd(st_arg(c, out_i), &out, &(bool){ false }, &(rp__st_str){ 0 }))
		return st_badf(t, "bad fd argument");
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_COPY);
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
	rp__st_ev *const e = byfd(t, b, c, RP_SYSEV_FALLOCATE, 0);
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
	rp__st_ev *const e = byfd_ ? byfd(t, b, c, RP_SYSEV_TRUNCATE, 0) : bypath(t, b, c, RP_SYSEV_TRUNCATE, -1, 0, -1);
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
	rp__st_ev *const e = by_fd ? byfd(t, b, c, RP_SYSEV_XATTR, 0) : bypath(t, b, c, RP_SYSEV_XATTR, -1, 0, -1);
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
		if (ev_path(t, b, 1, t->sbuf, len) < 0)
			return -1;
	}
	int64_t size;
	e->a[3] = kind != 3 && num(c, kind == 2 ? 2 : 3, &size) && size >= 0 ? size : -1;
	return 1;
}

static int sys_getdents(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	rp__st_ev *const e = byfd(t, b, c, RP_SYSEV_GETDENTS, 0);
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
	rp__st_ev *const e = byfd(t, b, c, RP_SYSEV_MMAP, 4);
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
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_FORK);
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
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_WAIT);
	if (!e)
		return -1;
	e->a[0] = pid;
	return 1;
}

static int sys_execve(rp_strace *t, rp__st_batch *b, const rp__st_call *c)
{
	t->note[RP__ST_N_STATE]++;
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_EXEC); /* seen done: the close-on-exec fds go */
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
		rp__st_ev *const e = byfd(t, b, c, RP_SYSEV_CHDIR, 0);
		return e ? 1 : -1;
	}
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_CHDIR);
	if (!e)
		return -1;
	e->a[0] = -1;
	const int r = str_arg(t, b, c, 0, 0);
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
	rp__st_ev *const e = call_ev(t, b, RP_SYSEV_LSEEK);
	if (!e)
		return -1;
	e->a[0] = fd;
	e->a[1] = num(c, 1, &off) ? off : 0;
	return 1;
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

/* The call's events, without the result (rp__st_syscall adds it). */
static int events(rp_strace *t, sysid id, const rp__st_call *c, rp__st_batch *b)
{
	rp__st_ev *e;
	switch (id) {
	case S_OPEN: return sys_open(t, b, c, -1, 0, 1, 2);
	case S_OPENAT: return sys_open(t, b, c, 0, 1, 2, 3);
	case S_OPENAT2: return sys_open(t, b, c, 0, 1, 2, -1);
	case S_CREAT: return sys_open(t, b, c, -1, 0, -1, 1);
	case S_CLOSE: return byfd(t, b, c, RP_SYSEV_CLOSE, 0) ? 1 : -1;
	case S_READ: return sys_io(t, b, c, false, IO_PLAIN);
	case S_WRITE: return sys_io(t, b, c, true, IO_PLAIN);
	case S_PREAD: return sys_io(t, b, c, false, IO_P);
	case S_PWRITE: return sys_io(t, b, c, true, IO_P);
	case S_READV: return sys_io(t, b, c, false, IO_VEC);
	case S_WRITEV: return sys_io(t, b, c, true, IO_VEC);
	case S_PREADV: return sys_io(t, b, c, false, IO_PVEC);
	case S_PWRITEV: return sys_io(t, b, c, true, IO_PVEC);
	case S_LSEEK: return sys_lseek(t, b, c);
	case S_FSYNC:
	case S_FDATASYNC:
		if (!(e = byfd(t, b, c, RP_SYSEV_FSYNC, 0)))
			return -1;
		e->a[1] = id == S_FDATASYNC;
		return 1;
	case S_FTRUNCATE: return sys_truncate(t, b, c, true);
	case S_TRUNCATE: return sys_truncate(t, b, c, false);
	case S_FALLOCATE: return sys_fallocate(t, b, c);
	case S_STAT:
	case S_LSTAT: return sys_stat(t, b, c, -1, 0, -1, 1);
	case S_FSTAT: return sys_stat(t, b, c, -1, -1, 0, 1);
	case S_NEWFSTATAT: return sys_stat(t, b, c, 0, 1, -1, 2);
	case S_STATX: return sys_stat(t, b, c, 0, 1, -1, 4);
	case S_ACCESS: return sys_access(t, b, c, -1, 0);
	case S_FACCESSAT: return sys_access(t, b, c, 0, 1);
	case S_UNLINK:
	case S_RMDIR:
	case S_UNLINKAT:
		if (!(e = id == S_UNLINKAT ? bypath(t, b, c, RP_SYSEV_UNLINK, 0, 1, -1) : bypath(t, b, c, RP_SYSEV_UNLINK, -1, 0, -1)))
			return -1;
		e->a[1] = id == S_RMDIR || (id == S_UNLINKAT && rp__st_has_word(st_arg(c, 2), "AT_REMOVEDIR")) ? 0x200 : 0;
		return 1;
	case S_MKDIR: return sys_mode(t, b, c, RP_SYSEV_MKDIR, -1, 0, -1, 1);
	case S_MKDIRAT: return sys_mode(t, b, c, RP_SYSEV_MKDIR, 0, 1, -1, 2);
	case S_RENAME: return sys_rename(t, b, c, false, -1);
	case S_RENAMEAT: return sys_rename(t, b, c, true, -1);
	case S_RENAMEAT2: return sys_rename(t, b, c, true, 4);
	case S_LINK: return two_paths(t, b, c, RP_SYSEV_LINK, -1, 0, -1, 1) ? 1 : -1;
	case S_LINKAT: return two_paths(t, b, c, RP_SYSEV_LINK, 0, 1, 2, 3) ? 1 : -1;
	case S_SYMLINK: return sys_symlink(t, b, c, -1, 1);
	case S_SYMLINKAT: return sys_symlink(t, b, c, 1, 2);
	case S_READLINK: return sys_readlink(t, b, c, -1, 0);
	case S_READLINKAT: return sys_readlink(t, b, c, 0, 1);
	case S_CHMOD: return sys_mode(t, b, c, RP_SYSEV_CHMOD, -1, 0, -1, 1);
	case S_FCHMOD: return sys_mode(t, b, c, RP_SYSEV_CHMOD, -1, -1, 0, 1);
	case S_FCHMODAT: return sys_mode(t, b, c, RP_SYSEV_CHMOD, 0, 1, -1, 2);
	case S_CHOWN: return sys_chown(t, b, c, -1, 0, -1, 1);
	case S_FCHOWN: return sys_chown(t, b, c, -1, -1, 0, 1);
	case S_FCHOWNAT: return sys_chown(t, b, c, 0, 1, -1, 2);
	case S_UTIMENSAT: return sys_utimensat(t, b, c);
	case S_GETDENTS: return sys_getdents(t, b, c);
	case S_FCNTL: return sys_fcntl(t, b, c);
	case S_FLOCK: return sys_flock(t, b, c);
	case S_DUP: return dup_ev(t, b, c, -1, false, false);
	case S_DUP2:
	case S_DUP3: {
		int64_t want;
		if (!rp__st_fd(st_arg(c, 1), &want, &(bool){ false }, &(rp__st_str){ 0 }) || want < 0)
			return st_badf(t, "bad fd argument");
		return dup_ev(t, b, c, want, false, id == S_DUP3 && rp__st_has_word(st_arg(c, 2), "O_CLOEXEC"));
	}
	case S_COPY_FILE_RANGE: return sys_copy(t, b, c, false);
	case S_SENDFILE: return sys_copy(t, b, c, true);
	case S_STATFS:
		if (!(e = bypath(t, b, c, RP_SYSEV_STATFS, -1, 0, -1)))
			return -1;
		e->a[0] = -1;
		return 1;
	case S_FSTATFS: return byfd(t, b, c, RP_SYSEV_STATFS, 0) ? 1 : -1;
	case S_MKNOD: return sys_mode(t, b, c, RP_SYSEV_MKNOD, -1, 0, -1, 1);
	case S_MKNODAT: return sys_mode(t, b, c, RP_SYSEV_MKNOD, 0, 1, -1, 2);
	case S_SETXATTR: return sys_xattr(t, b, c, 1, false);
	case S_FSETXATTR: return sys_xattr(t, b, c, 1, true);
	case S_GETXATTR: return sys_xattr(t, b, c, 0, false);
	case S_FGETXATTR: return sys_xattr(t, b, c, 0, true);
	case S_LISTXATTR: return sys_xattr(t, b, c, 2, false);
	case S_FLISTXATTR: return sys_xattr(t, b, c, 2, true);
	case S_REMOVEXATTR: return sys_xattr(t, b, c, 3, false);
	case S_FREMOVEXATTR: return sys_xattr(t, b, c, 3, true);
	case S_FORK: return sys_fork(t, b, c);
	case S_WAIT4: return sys_wait(t, b, c, false);
	case S_WAITID: return sys_wait(t, b, c, true);
	case S_EXECVE: return sys_execve(t, b, c);
	case S_CHDIR: return sys_chdir(t, b, c, false);
	case S_FCHDIR: return sys_chdir(t, b, c, true);
	case S_MMAP: return sys_mmap(t, b, c);
	}
	return 0;
}

int rp__st_syscall(rp_strace *t, rp__st_str name, const rp__st_call *c, rp__st_batch *b)
{
	b->n_names = b->before = 0;
	b->has_ev = b->none = false;
	b->len = 0;
	const int id = lookup(name);
	const int r = id < 0 ? 0 : events(t, (sysid)id, c, b);
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
