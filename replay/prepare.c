/* The scan before a run: which clients the trace has, and what it expects to exist (the prepare plan). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/engine.h"

/* What the scan knows about a path at this point of the trace. */
enum pstate {
	P_PRE = 1,     /* must exist before the run */
	P_CREATED = 2, /* exists, made by the workload (or beneath something it made) */
	P_ABSENT = 3,  /* removed, or seen missing */
};

typedef struct pent {
	char *path;
	uint64_t hash;
	uint8_t state;
	bool dir;
	uint64_t need;    /* bytes its reads need */
	uint64_t written; /* end of the workload's own writes */
} pent;

/* Path -> entry (open addressing); (client, handle) -> entry index. */
typedef struct scan {
	pent *e;
	size_t cap, n;
	uint32_t *hkeys_client; /* parallel arrays for the handle map */
	uint64_t *hkeys_handle;
	size_t *hvals;
	size_t hcap, hn;
} scan;

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h | 1;
}

static int grow_paths(scan *s)
{
	const size_t cap = s->cap ? s->cap * 2 : 1024;
	pent *const e = calloc(cap, sizeof(*e));
	if (!e)
		return RP_E_NOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->e[i].path)
			continue;
		size_t j = s->e[i].hash & (cap - 1);
		while (e[j].path)
			j = (j + 1) & (cap - 1);
		e[j] = s->e[i];
	}
	free(s->e);
	s->e = e;
	s->cap = cap;
	return 0;
}

/* The entry for path[0..n) (created untouched: state 0); NULL on allocation failure. */
static pent *lookup(scan *s, const char *path, size_t n)
{
	if ((s->n + 1) * 10 > s->cap * 7 && grow_paths(s) < 0)
		return NULL;
	const uint64_t h = hash_str(path, n);
	size_t i = h & (s->cap - 1);
	while (s->e[i].path) {
		if (s->e[i].hash == h && strncmp(s->e[i].path, path, n) == 0 && s->e[i].path[n] == '\0')
			return &s->e[i];
		i = (i + 1) & (s->cap - 1);
	}
	char *const copy = malloc(n + 1);
	if (!copy)
		return NULL;
	memcpy(copy, path, n);
	copy[n] = '\0';
	s->e[i] = (pent){ .path = copy, .hash = h };
	s->n++;
	return &s->e[i];
}

/* The workload uses path as existing.  Returns its state after the decision. */
static int expect(scan *s, const char *path, size_t n, bool dir)
{
	if (n == 0)
		return P_PRE; /* the client's directory itself */
	pent *e = lookup(s, path, n);
	if (!e)
		return -1;
	if (e->state)
		return e->state;
	/* It can only have existed from the start if its parent did. */
	size_t pn = n;
	while (pn > 0 && path[pn - 1] != '/')
		pn--;
	const int parent = expect(s, path, pn ? pn - 1 : 0, true);
	if (parent < 0)
		return -1;
	e = lookup(s, path, n); /* the table may have moved */
	if (!e)
		return -1;
	e->state = parent == P_PRE ? P_PRE : P_CREATED;
	e->dir = dir;
	return e->state;
}

static int set_state(scan *s, const char *path, uint8_t state, bool dir)
{
	if (!path[0])
		return 0;
	if (state == P_CREATED) {
		/* Creating needs the parent. */
		const char *const slash = strrchr(path, '/');
		if (slash && expect(s, path, (size_t)(slash - path), true) < 0)
			return -1;
	}
	pent *const e = lookup(s, path, strlen(path));
	if (!e)
		return -1;
	e->state = state;
	e->dir = dir;
	e->written = 0;
	return 0;
}

static size_t hslot(const scan *s, uint32_t client, uint64_t handle)
{
	size_t i = (size_t)((handle * 0x9E3779B97F4A7C15ull) ^ client) & (s->hcap - 1);
	while (s->hvals[i] && (s->hkeys_client[i] != client || s->hkeys_handle[i] != handle))
		i = (i + 1) & (s->hcap - 1);
	return i;
}

/* Map a handle to an entry index + 1 (0 removes it: a tombstone that keeps probing intact). */
static int hput(scan *s, uint32_t client, uint64_t handle, size_t val)
{
	if ((s->hn + 1) * 10 > s->hcap * 7) {
		const size_t cap = s->hcap ? s->hcap * 2 : 256;
		uint32_t *const kc = calloc(cap, sizeof(*kc));
		uint64_t *const kh = calloc(cap, sizeof(*kh));
		size_t *const v = calloc(cap, sizeof(*v));
		if (!kc || !kh || !v) {
			free(kc), free(kh), free(v);
			return -1;
		}
		scan t = { .hkeys_client = kc, .hkeys_handle = kh, .hvals = v, .hcap = cap };
		for (size_t i = 0; i < s->hcap; i++) {
			if (!s->hvals[i] || s->hvals[i] == SIZE_MAX)
				continue;
			const size_t j = hslot(&t, s->hkeys_client[i], s->hkeys_handle[i]);
			kc[j] = s->hkeys_client[i], kh[j] = s->hkeys_handle[i], v[j] = s->hvals[i];
			t.hn++;
		}
		free(s->hkeys_client), free(s->hkeys_handle), free(s->hvals);
		s->hkeys_client = kc, s->hkeys_handle = kh, s->hvals = v, s->hcap = cap, s->hn = t.hn;
	}
	const size_t i = hslot(s, client, handle);
	if (!s->hvals[i])
		s->hn++;
	s->hkeys_client[i] = client;
	s->hkeys_handle[i] = handle;
	s->hvals[i] = val ? val : SIZE_MAX;
	return 0;
}

static pent *hget(scan *s, uint32_t client, uint64_t handle)
{
	if (!s->hcap)
		return NULL;
	const size_t i = hslot(s, client, handle);
	const size_t v = s->hvals[i];
	return v && v != SIZE_MAX ? &s->e[v - 1] : NULL;
}

/* Whether an open may create what it names (the trace's dialect). */
static bool open_creates(rp_dialect d, const rp_op *op)
{
	if (op->flags & RP_OPF_CREATE)
		return true;
	if (d == RP_DIALECT_NT)
		return op->disposition != RP_NT_OPEN && op->disposition != RP_NT_OVERWRITE;
	if (d == RP_DIALECT_POSIX)
		return (op->access & O_CREAT) != 0;
	return false;
}

static int scan_op(rp_replay *r, scan *s, const rp_op *op, const char *p1, const char *p2)
{
	const bool ok = op->status == 0 || op->status == RP_STATUS_UNKNOWN;
	const bool dirflag = (op->flags & RP_OPF_DIRECTORY) ||
			     (r->dialect == RP_DIALECT_NT && op->op == RP_OP_OPEN && (op->options & RP_NT_DIRECTORY_FILE));
	switch (op->op) {
	case RP_OP_OPEN: {
		if (!p1)
			return 0;
		if (op->status == EEXIST)
			return expect(s, p1, strlen(p1), dirflag) < 0 ? -1 : 0;
		if (!ok)
			return op->status == ENOENT ? set_state(s, p1, P_ABSENT, dirflag) : 0;
		if (open_creates(r->dialect, op)) {
			pent *const e = lookup(s, p1, strlen(p1));
			if (!e)
				return -1;
			if (!e->state && set_state(s, p1, P_CREATED, dirflag) < 0)
				return -1;
		} else if (expect(s, p1, strlen(p1), dirflag) < 0) {
			return -1;
		}
		pent *const e = lookup(s, p1, strlen(p1));
		return e && op->handle ? hput(s, op->client, op->handle, (size_t)(e - s->e) + 1) : e ? 0 : -1;
	}
	case RP_OP_CLOSE:
		return op->handle ? hput(s, op->client, op->handle, 0) : 0;
	case RP_OP_READ: {
		pent *const e = ok && op->result ? hget(s, op->client, op->handle) : NULL;
		const uint64_t end = op->offset + op->result;
		if (e && e->state == P_PRE && end > e->written && end > e->need)
			e->need = end;
		return 0;
	}
	case RP_OP_WRITE: {
		pent *const e = ok ? hget(s, op->client, op->handle) : NULL;
		if (e && op->offset <= e->written && op->offset + op->length > e->written)
			e->written = op->offset + op->length;
		return 0;
	}
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
	case RP_OP_SETATTR:
	case RP_OP_READLINK:
	case RP_OP_GETXATTR:
	case RP_OP_LISTXATTR:
		if (!p1)
			return 0;
		if (ok)
			return expect(s, p1, strlen(p1), dirflag) < 0 ? -1 : 0;
		return op->status == ENOENT ? set_state(s, p1, P_ABSENT, false) : 0;
	case RP_OP_READDIR: {
		if (!p1 || !ok)
			return 0;
		const char *const slash = strrchr(p1, '/');
		if (r->dialect == RP_DIALECT_NT || strpbrk(p1, "*?"))
			return expect(s, p1, slash ? (size_t)(slash - p1) : 0, true) < 0 ? -1 : 0;
		return expect(s, p1, strlen(p1), true) < 0 ? -1 : 0;
	}
	case RP_OP_UNLINK:
	case RP_OP_RMDIR:
		if (!p1 || !ok)
			return 0;
		if (expect(s, p1, strlen(p1), op->op == RP_OP_RMDIR) < 0)
			return -1;
		return set_state(s, p1, P_ABSENT, false);
	case RP_OP_DELTREE:
		return p1 ? set_state(s, p1, P_ABSENT, true) : 0;
	case RP_OP_MKDIR:
	case RP_OP_SYMLINK:
	case RP_OP_MKNOD:
		return p1 && ok ? set_state(s, p1, P_CREATED, op->op == RP_OP_MKDIR) : 0;
	case RP_OP_RENAME:
	case RP_OP_LINK: {
		if (!p1 || !p2 || !ok)
			return 0;
		if (expect(s, p1, strlen(p1), false) < 0)
			return -1;
		const pent *const e = lookup(s, p1, strlen(p1));
		const bool dir = e && e->dir;
		if (op->op == RP_OP_RENAME && set_state(s, p1, P_ABSENT, dir) < 0)
			return -1;
		return set_state(s, p2, P_CREATED, dir);
	}
	default:
		return 0;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const rp_prep_item *)a)->path, ((const rp_prep_item *)b)->path);
}

static void scan_free(scan *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->e[i].path);
	free(s->e);
	free(s->hkeys_client), free(s->hkeys_handle), free(s->hvals);
}

static int make_plan(rp_replay *r, scan *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->cap; i++)
		n += s->e[i].path && s->e[i].state == P_PRE;
	r->prep = calloc(n ? n : 1, sizeof(*r->prep));
	if (!r->prep)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		pent *const e = &s->e[i];
		if (!e->path || e->state != P_PRE)
			continue;
		r->prep[r->n_prep++] = (rp_prep_item){ .path = e->path, .dir = e->dir, .size = e->need };
		e->path = NULL; /* moved */
	}
	/* Sorted, a parent comes before everything beneath it. */
	qsort(r->prep, r->n_prep, sizeof(*r->prep), cmp_item);
	return 0;
}

/* One pass over every client's ops. */
int rp__scan(rp_replay *r, char *errbuf)
{
	rp_op_source *src = NULL;
	int rc = r->w->open(r->w, true, 0, &src, errbuf);
	if (rc < 0)
		return rc;
	scan s;
	memset(&s, 0, sizeof(s));
	rp_handles seen; /* client id + 1 -> 1 */
	rp__handles_init(&seen);
	bool timed = (r->w->meta.flags & RP_META_TIMED) != 0;
	char p1[PATH_MAX], p2[PATH_MAX];
	const rp_op *ops = NULL;
	int n = 0, k = 0;
	for (;;) {
		if (k == n) {
			n = src->next(src, &ops);
			k = 0;
			if (n < 0) {
				rc = rp_fail(errbuf, n, "%s", src->errbuf);
				goto out;
			}
			if (n == 0)
				break;
		}
		const rp_op *const op = &ops[k++];
		if (op->op >= RP_OP__COUNT)
			continue;
		uint64_t one;
		if (!rp__handles_get(&seen, (uint64_t)op->client + 1, &one) &&
		    rp__handles_put(&seen, (uint64_t)op->client + 1, 1) < 0) {
			rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
			goto out;
		}
		timed = timed || op->t_start != 0;
		if (r->opts.no_prepare)
			continue;
		const char *a = NULL, *b = NULL;
		uint32_t len;
		const char *raw;
		if (op->path && (raw = src->string(src, op->path, &len)) && rp__path_norm(raw, len, p1, sizeof(p1)) >= 0)
			a = p1;
		if (op->path2 && (raw = src->string(src, op->path2, &len)) &&
		    rp__path_norm(raw, len, p2, sizeof(p2)) >= 0)
			b = p2;
		if (scan_op(r, &s, op, a, b) < 0) {
			rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory planning prepare");
			goto out;
		}
	}
	if (seen.live == 0) {
		rc = rp_fail(errbuf, RP_E_INVAL, "the trace has no ops");
		goto out;
	}
	if (r->opts.timing == RP_TIMING_TRACE && !timed) {
		rc = rp_fail(errbuf, RP_E_INVAL, "the trace has no timestamps: use --timing=afap (or think)");
		goto out;
	}
	r->trace_clients = malloc(seen.live * sizeof(*r->trace_clients));
	if (!r->trace_clients || make_plan(r, &s) < 0) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	uint64_t key, val;
	while (rp__handles_pop(&seen, &key, &val))
		r->trace_clients[r->n_trace_clients++] = (uint32_t)(key - 1);
	qsort(r->trace_clients, r->n_trace_clients, sizeof(*r->trace_clients), cmp_u32);
	rc = 0;
out:
	rp__handles_fini(&seen);
	scan_free(&s);
	src->close(src);
	return rc;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run one synthetic op through the backend (synchronously, or by polling an async one). */
static void prep_done(rp_breq *req)
{
	*(bool *)req->data = true;
}

static int prep_submit(rp_replay *r, void *cs, rp_breq *req)
{
	bool done = false;
	const bool async = (r->bops->caps & RP_BCAP_ASYNC) && r->bops->poll;
	req->cb = async ? prep_done : NULL;
	req->data = &done;
	if (r->bops->submit(r->bstate, cs, req) < 0)
		return RP_STATUS_OTHER;
	while (async && !done)
		r->bops->poll(r->bstate, cs, 1000000);
	return req->status;
}

static void prepare_dir(rp_replay *r, void *cs)
{
	for (size_t i = 0; i < r->n_prep; i++) {
		const rp_prep_item *const it = &r->prep[i];
		rp_op op;
		memset(&op, 0, sizeof(op));
		rp_breq req;
		memset(&req, 0, sizeof(req));
		req.op = &op;
		req.path = it->path;
		req.dialect = RP_DIALECT_POSIX;
		if (it->dir) {
			op.op = RP_OP_MKDIR;
			op.mode = 0777;
			const int st = prep_submit(r, cs, &req);
			r->res.prepare.dirs += st == 0;
			r->res.prepare.failures += st != 0 && st != EEXIST;
			continue;
		}
		op.op = RP_OP_OPEN;
		op.access = O_RDWR | O_CREAT;
		op.mode = 0666;
		if (prep_submit(r, cs, &req) != 0) {
			r->res.prepare.failures++;
			continue;
		}
		const uint64_t bh = req.bh;
		int st = 0;
		if (it->size) {
			/* One byte at the end: the file has its size without writing all of it. */
			op = (rp_op){ .op = RP_OP_WRITE, .offset = it->size - 1, .length = 1 };
			req = (rp_breq){ .op = &op, .bh = bh, .dialect = RP_DIALECT_POSIX };
			st = prep_submit(r, cs, &req);
		}
		op = (rp_op){ .op = RP_OP_CLOSE };
		req = (rp_breq){ .op = &op, .bh = bh, .dialect = RP_DIALECT_POSIX };
		prep_submit(r, cs, &req);
		r->res.prepare.files += st == 0;
		r->res.prepare.bytes += st == 0 ? it->size : 0;
		r->res.prepare.failures += st != 0;
	}
}

int rp__prepare_run(rp_replay *r, char *errbuf)
{
	const uint64_t t = mono_ns();
	r->res.prepare.ran = true;
	if (r->n_prep == 0)
		return 0;
	const uint32_t copies = r->opts.clones ? r->opts.clones : 1;
	void *const cs = calloc(1, r->bops->client_size ? r->bops->client_size : 1);
	if (!cs)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = 0;
	for (uint32_t k = 0; k < copies && rc == 0; k++) {
		char dir[24] = "";
		if (r->opts.clones)
			snprintf(dir, sizeof(dir), "client%u", k + 1);
		rc = r->bops->client_init(r->bstate, cs, dir, errbuf);
		if (rc < 0)
			break;
		prepare_dir(r, cs);
		r->bops->client_fini(r->bstate, cs);
		memset(cs, 0, r->bops->client_size ? r->bops->client_size : 1);
	}
	free(cs);
	r->res.prepare.seconds = (double)(mono_ns() - t) / 1e9;
	return rc;
}

void rp__prepare_free(rp_replay *r)
{
	for (size_t i = 0; i < r->n_prep; i++)
		free(r->prep[i].path);
	free(r->prep);
	r->prep = NULL;
	r->n_prep = 0;
}
