/* strace's state: processes, fd tables, -y annotations, strings, paths joined to their directory (docs/strace.md). */
#include "converters/strace_int.h"

#include <stdlib.h>
#include <string.h>

/* fd numbers at or above this are not tracked (Linux's default hard limit is 2^20; real logs stay far below). */
#define FD_MAX 65536u
/* fd slots over every table together: 4 Mi slots (96 MiB), however many processes the log forks. */
#define FD_BUDGET (1u << 22)

/* The fd's slot in ft, grown if asked (within FD_MAX and the budget); NULL beyond. */
rp__st_fdent *rp__st_fd_slot(rp_strace *t, rp__st_fdtab *ft, int64_t fd, bool grow)
{
	if (!ft || fd < 0)
		return NULL;
	if (fd >= FD_MAX) {
		t->note[RP__ST_N_FD_LIMIT]++;
		return NULL;
	}
	if ((uint64_t)fd < ft->cap)
		return &ft->v[fd];
	if (!grow)
		return NULL;
	uint32_t ncap = ft->cap ? ft->cap : 16;
	while (ncap <= (uint64_t)fd)
		ncap *= 2;
	if (t->fd_slots + (ncap - ft->cap) > FD_BUDGET) {
		t->note[RP__ST_N_FD_LIMIT]++;
		return NULL;
	}
	rp__st_fdent *const nv = realloc(ft->v, (size_t)ncap * sizeof(*nv));
	if (!nv)
		return NULL;
	memset(nv + ft->cap, 0, (size_t)(ncap - ft->cap) * sizeof(*nv));
	t->fd_slots += ncap - ft->cap;
	ft->v = nv;
	ft->cap = ncap;
	return &ft->v[fd];
}

/* An annotation's path interned: 1 with *id, 0 when it names no file (pipe:, socket:), -1 bad. */
int rp__st_annot_id(rp_strace *t, rp__st_str a, uint32_t *id)
{
	uint32_t len;
	bool is_path;
	if (!rp__st_annot_path(a, t->sbuf, RP_STR_MAX, &len, &is_path))
		return st_badf(t, "bad <path> annotation");
	if (!is_path)
		return 0;
	const int64_t got = rp__st_intern(t, t->sbuf, len);
	if (got < 0)
		return -1;
	*id = (uint32_t)got;
	return 1;
}

/* A new fd in the table with a new handle (returned; 0 when the fd cannot be tracked). */
uint64_t rp__st_new_fd(rp_strace *t, rp__st_proc *pr, int64_t fd, uint32_t path, bool file, bool cloexec, uint64_t pos)
{
	const uint64_t h = ++t->next_handle;
	rp__st_fdent *const e = rp__st_fd_slot(t, pr->ft, fd, true);
	if (e)
		*e = (rp__st_fdent){ .handle = h, .pos = pos, .path = path, .file = file, .cloexec = cloexec };
	return h;
}

/*
 * The fd of argument i: 1 with its entry (made on first sight, named by the
 * -y annotation), 0 for no op (a non-file, an fd out of reach: counted), -1 bad.
 */
int rp__st_use_fd(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, unsigned i, rp__st_fdent **ent)
{
	int64_t fd;
	bool has;
	rp__st_str an;
	if (!rp__st_fd(st_arg(c, i), &fd, &has, &an))
		return st_badf(t, "bad fd argument");
	uint32_t apath = 0;
	if (has) {
		const int r = rp__st_annot_id(t, an, &apath);
		if (r < 0)
			return -1;
		if (r == 0) {
			t->note[RP__ST_N_NONFILE]++;
			rp__st_fdent *const e = rp__st_fd_slot(t, pr->ft, fd, false);
			if (e)
				e->file = false;
			return 0;
		}
	}
	rp__st_fdent *const e = rp__st_fd_slot(t, pr->ft, fd, true);
	if (!e) {
		t->note[RP__ST_N_UNNAMED_FD]++;
		return 0;
	}
	if (!e->handle || (!e->file && apath)) {
		*e = (rp__st_fdent){ .handle = ++t->next_handle, .path = apath, .seen = apath, .file = true };
		if (!apath)
			t->note[RP__ST_N_UNNAMED_FD]++;
	} else if (!e->file) {
		t->note[RP__ST_N_NONFILE]++;
		return 0;
	} else if (apath && apath != e->seen) {
		/*
		 * -y names the file with its symlinks resolved: the path the open
		 * asked for stays the fd's until that name changes (a rename), and
		 * then the fd follows the file.
		 */
		if (e->seen || !e->path)
			e->path = apath;
		e->seen = apath;
	}
	*ent = e;
	return 1;
}

/* The op's handle and path from the fd of argument i. */
int rp__st_op_fd(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, unsigned i, rp_op *op, rp__st_fdent **ent)
{
	rp__st_fdent *e = NULL;
	const int r = rp__st_use_fd(t, pr, c, i, &e);
	if (r == 1) {
		op->handle = e->handle;
		op->path = e->path;
		if (ent)
			*ent = e;
	}
	return r;
}

/* The directory a relative path is joined to, into t->jbuf: its length, 0 when unknown, -1 bad. */
static int64_t dir_of(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, int di)
{
	uint32_t id = 0;
	if (di >= 0) {
		int64_t fd;
		bool has;
		rp__st_str an;
		if (!rp__st_fd(st_arg(c, (unsigned)di), &fd, &has, &an))
			return st_badf(t, "bad directory fd argument");
		if (has) {
			const int r = rp__st_annot_id(t, an, &id);
			if (r < 0)
				return -1;
			if (r > 0 && fd == -100 && pr->ft)
				pr->ft->cwd = id; /* strace -y shows the working directory at AT_FDCWD */
		} else if (fd != -100) {
			rp__st_fdent *const e = rp__st_fd_slot(t, pr->ft, fd, false);
			id = e && e->handle ? e->path : 0;
		}
	}
	if (!id && (di < 0 || st_eq(st_arg(c, (unsigned)di), "AT_FDCWD")) && pr->ft)
		id = pr->ft->cwd;
	uint32_t len = 0;
	const char *const s = id ? rp_strtab_get(t->strings, id, &len) : NULL;
	if (!s)
		return 0;
	memcpy(t->jbuf, s, len);
	return len;
}

/*
 * The path of argument pi, a relative one joined to the directory of dirfd
 * argument di (-1: the working directory): 1 with *id, 0 when the argument
 * is no string (NULL, an address), -1 bad.  A relative path stays relative
 * while the working directory is unknown.
 */
int rp__st_use_path(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, int di, unsigned pi, uint32_t *id)
{
	const rp__st_str a = st_arg(c, pi);
	uint32_t len;
	bool cut;
	if (!a.len || a.p[0] != '"')
		return 0;
	if (!rp__st_string(a, t->sbuf, RP_STR_MAX, &len, &cut))
		return st_badf(t, "bad string argument");
	const char *s = t->sbuf;
	uint32_t total = len;
	if (!len || t->sbuf[0] != '/') {
		const int64_t dl = dir_of(t, pr, c, di);
		if (dl < 0)
			return -1;
		if (dl > 0) {
			/* dir_of decoded into sbuf too when it read an annotation: decode the path again after it */
			if (!rp__st_string(a, t->jbuf + dl + 1, RP_STR_MAX, &len, &cut))
				return st_badf(t, "bad string argument");
			uint32_t d = (uint32_t)dl;
			if (len == 0) {
				total = d; /* AT_EMPTY_PATH: the directory fd itself */
			} else {
				if (t->jbuf[d - 1] != '/')
					t->jbuf[d++] = '/';
				memmove(t->jbuf + d, t->jbuf + dl + 1, len);
				total = d + len;
			}
			if (total > RP_STR_MAX)
				return st_badf(t, "a path longer than 64 KiB once joined to its directory");
			s = t->jbuf;
		} else if (!rp__st_string(a, t->sbuf, RP_STR_MAX, &len, &cut)) {
			return st_badf(t, "bad string argument");
		}
	}
	const int64_t got = rp__st_intern(t, s, total);
	if (got < 0)
		return -1;
	*id = (uint32_t)got;
	return 1;
}

int rp__st_need_path(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, int di, unsigned pi, uint32_t *id)
{
	const int r = rp__st_use_path(t, pr, c, di, pi, id);
	return r == 0 ? st_badf(t, "expected a path string") : r;
}

/* The fd number of argument i (-1 when it is none). */
int64_t rp__st_fd_num(const rp__st_call *c, unsigned i)
{
	int64_t fd;
	bool has;
	rp__st_str an;
	return rp__st_fd(st_arg(c, i), &fd, &has, &an) ? fd : -1;
}

int64_t rp__st_intern(rp_strace *t, const char *s, uint32_t len)
{
	const int64_t id = rp_sink_intern(t->sink, t->strings, s, len);
	if (id < 0) {
		t->fatal = (int)id;
		t->why = "the sink refused a string";
	}
	return id;
}

rp__st_proc *rp__st_proc_get(rp_strace *t, uint32_t pid)
{
	uint32_t h = (uint32_t)((pid * 2654435761u) >> 8) & (RP__ST_PROC_BUCKETS - 1);
	for (uint32_t i = 0; i < RP__ST_PROC_BUCKETS; i++, h = (h + 1) & (RP__ST_PROC_BUCKETS - 1)) {
		rp__st_proc *const p = &t->procs[h];
		if (p->used && p->pid != pid)
			continue;
		if (p->used && !p->dead)
			return p;
		/* new, or a pid reused after its process exited: a new client */
		if (t->n_clients == RP__ST_CLIENTS_MAX)
			return NULL;
		rp__st_fdtab *const ft = calloc(1, sizeof(*ft));
		if (!ft)
			return NULL;
		ft->refs = 1;
		free(p->pend_name);
		free(p->pend_body);
		*p = (rp__st_proc){ .pid = pid, .client = ++t->n_clients, .used = true, .ft = ft };
		return p;
	}
	return NULL;
}

rp__st_proc *rp__st_proc_find(rp_strace *t, uint32_t pid)
{
	uint32_t h = (uint32_t)((pid * 2654435761u) >> 8) & (RP__ST_PROC_BUCKETS - 1);
	for (uint32_t i = 0; i < RP__ST_PROC_BUCKETS; i++, h = (h + 1) & (RP__ST_PROC_BUCKETS - 1)) {
		rp__st_proc *const p = &t->procs[h];
		if (!p->used)
			return NULL;
		if (p->pid == pid)
			return p; /* a reused pid takes its old slot: one entry per pid */
	}
	return NULL;
}
