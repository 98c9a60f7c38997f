/* One strace call's arguments -> its batch of events (converters/strace_int.h, rp__st_batch): paths, fd names, the call's event. */
#include "converters/strace_int.h"

#include <stdlib.h>
#include <string.h>

#define AT_CWD RP__ST_AT_CWD

/* s[0..len) into b's buffer at *off, cut at a NUL as the kernel reads a C string: its length, or -1. */
int64_t rp__st_buf_put(rp_strace *t, rp__st_batch *b, const char *s, uint32_t len, uint32_t *off)
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
int rp__st_ev_path(rp_strace *t, rp__st_batch *b, unsigned i, const char *s, uint32_t len)
{
	const int64_t n = rp__st_buf_put(t, b, s, len, &b->ev.off[i]);
	if (n < 0)
		return -1;
	b->ev.plen[i] = (uint32_t)n;
	b->ev.has |= (uint8_t)(1u << i);
	return 0;
}

/* The name of fd for the model, before the call's event (or after it: its result's); NULL when bad. */
rp__st_fdname *rp__st_name_add(rp_strace *t, rp__st_batch *b, int64_t fd)
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
int rp__st_fd_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, bool dir, int64_t *fd)
{
	bool has;
	rp__st_str an;
	if (!rp__st_fd(st_arg(c, i), fd, &has, &an) || *fd < INT32_MIN || *fd > INT32_MAX)
		return st_badf(t, dir ? "bad directory fd argument" : "bad fd argument");
	if (!dir && *fd < 0)
		b->none = true; /* no fd at all: the call fails with EBADF and names nothing */
	if ((*fd < 0 && *fd != AT_CWD) || (!has && (dir || *fd < 0)))
		return 1;
	rp__st_fdname *const n = rp__st_name_add(t, b, *fd);
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
	const int64_t got = rp__st_buf_put(t, b, t->sbuf, len, &n->off);
	if (got < 0)
		return -1;
	n->len = (uint32_t)got;
	n->kind = RP__ST_FD_PATH;
	return 1;
}

/* The string argument i as path j of b's last event: 1, 0 when it is no string (NULL, an address), -1 bad. */
int rp__st_str_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, unsigned j)
{
	const rp__st_str a = st_arg(c, i);
	uint32_t len;
	bool cut;
	if (!a.len || a.p[0] != '"')
		return 0;
	if (!rp__st_string(a, t->sbuf, RP_STR_MAX, &len, &cut))
		return st_badf(t, "bad string argument");
	return rp__st_ev_path(t, b, j, t->sbuf, len) < 0 ? -1 : 1;
}

/* As str_arg, a missing string being bad. */
int rp__st_need_str(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, unsigned j)
{
	const int r = rp__st_str_arg(t, b, c, i, j);
	return r == 0 ? st_badf(t, "expected a path string") : r;
}

/* The dirfd of argument di (-1: the working directory) named first, as *fd. */
int rp__st_dir_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, int64_t *fd)
{
	*fd = AT_CWD;
	return di < 0 ? 1 : rp__st_fd_arg(t, b, c, (unsigned)di, true, fd) < 0 ? -1 : 1;
}

/* The call's own event, after the fd names so far (the result's name comes after it). */
rp__st_ev *rp__st_call_ev(rp_strace *t, rp__st_batch *b, unsigned nr)
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
rp__st_ev *rp__st_bypath(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, int di, int pi, int fi)
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
		if (rp__st_fd_arg(t, b, c, (unsigned)fi, false, &fd) < 0)
			return NULL;
		rp__st_ev *const e = rp__st_call_ev(t, b, nr);
		if (e)
			e->a[0] = fd;
		return e;
	}
	if (rp__st_dir_arg(t, b, c, di, &fd) < 0)
		return NULL;
	rp__st_ev *const e = rp__st_call_ev(t, b, nr);
	if (!e)
		return NULL;
	e->a[0] = fd;
	return rp__st_need_str(t, b, c, (unsigned)pi, 0) < 0 ? NULL : e;
}

/* A call on the fd of argument i: its FD event, then the call's with a0 the fd; NULL when bad. */
rp__st_ev *rp__st_byfd(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, unsigned i)
{
	int64_t fd;
	if (rp__st_fd_arg(t, b, c, i, false, &fd) < 0)
		return NULL;
	rp__st_ev *const e = rp__st_call_ev(t, b, nr);
	if (e)
		e->a[0] = fd;
	return e;
}
