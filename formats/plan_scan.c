/*
 * The prepare plan's scan: each path's state as the ops go (existed before,
 * made by the workload, gone), what had to exist before the run, the loop
 * conflicts and the recorded in-flight depth.  Moved from replay/prepare.c,
 * whose decisions it keeps exactly.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hash.h"
#include "formats/heap.h"
#include "formats/path.h"
#include "formats/plan_int.h"

static inline bool end_before(const uint64_t *a, const uint64_t *b)
{
	return *a < *b;
}

RP_HEAP_DEFINE(ends, uint64_t, end_before)

/* One op of the client: the intervals ended by its start go, its own joins; the depth at its start counts. */
static int sweep_add(sweep *w, uint64_t t_start, uint64_t t_end)
{
	const uint64_t end = t_end != RP_TIME_UNKNOWN && t_end > t_start ? t_end : t_start;
	while (w->n && w->ends[0] <= t_start)
		ends_pop(w->ends, &w->n);
	if (end == t_start) {
		/* no recorded end (a loadfile): it covers its start only, so it need not wait in the heap */
		w->d.ops++;
		w->d.sum += w->n + 1;
		if (w->n + 1 > w->d.max)
			w->d.max = (uint32_t)(w->n + 1 < UINT32_MAX ? w->n + 1 : UINT32_MAX);
		return 0;
	}
	if (w->n == w->cap) {
		const size_t cap = w->cap ? w->cap * 2 : 16;
		uint64_t *const e = realloc(w->ends, cap * sizeof(*e));
		if (!e)
			return RP_E_NOMEM;
		w->ends = e;
		w->cap = cap;
	}
	ends_push(w->ends, &w->n, end);
	w->d.ops++;
	w->d.sum += w->n;
	if (w->n > w->d.max)
		w->d.max = (uint32_t)(w->n < UINT32_MAX ? w->n : UINT32_MAX);
	return 0;
}

static uint64_t hash_str(const char *s, size_t n)
{
	return rp_fnv1a64(RP_FNV64_OFFSET, s, n) | 1;
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

/* The entry for path, or NULL when the scan has not seen it (never adds one). */
static pent *find(const scan *s, const char *path, size_t n)
{
	if (!s->cap)
		return NULL;
	const uint64_t h = hash_str(path, n);
	for (size_t i = h & (s->cap - 1); s->e[i].path; i = (i + 1) & (s->cap - 1))
		if (s->e[i].hash == h && strncmp(s->e[i].path, path, n) == 0 && s->e[i].path[n] == '\0')
			return &s->e[i];
	return NULL;
}

/*
 * The op says path is a directory (RP_OPF_DIRECTORY, a listed directory, an
 * rmdir): if it is still the thing that existed before the run, prepare makes
 * a directory, however the first op that named it saw it.
 */
static void hint_dir(scan *s, const char *path, size_t n)
{
	pent *const e = n ? find(s, path, n) : NULL;
	if (e && e->pre && e->state == P_PRE)
		e->pre_dir = true;
}

/* A P_MAYBE entry turns out to have existed before the run (its parents did: expect made sure). */
static void promote(scan *s, pent *e, bool dir)
{
	if (!e || e->state != P_MAYBE)
		return;
	e->state = P_PRE;
	if (!s->loop) {
		e->pre = true;
		e->pre_dir = e->dir || dir;
	}
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
	int parent = expect(s, path, pn ? pn - 1 : 0, true);
	if (parent < 0)
		return -1;
	if (parent == P_MAYBE) {
		promote(s, find(s, path, pn - 1), true);
		parent = P_PRE;
	}
	e = lookup(s, path, n); /* the table may have moved */
	if (!e)
		return -1;
	e->state = parent == P_PRE ? P_PRE : P_CREATED;
	e->dir = dir;
	if (e->state == P_PRE && !s->loop) {
		e->pre = true;
		e->pre_dir = dir;
	}
	return e->state;
}

/* Everything beneath dir is gone (deltree, rmdir, a directory renamed away). */
static void absent_below(scan *s, const char *dir)
{
	const size_t n = strlen(dir);
	if (n == 0)
		return;
	for (size_t i = 0; i < s->cap; i++) {
		pent *const e = &s->e[i];
		if (e->path && e->state && strncmp(e->path, dir, n) == 0 && e->path[n] == '/')
			e->state = P_ABSENT;
	}
}

static int set_state(scan *s, const char *path, uint8_t state, bool dir)
{
	if (!path[0])
		return 0;
	if (state == P_CREATED || state == P_MAYBE) {
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
	e->wmax = 0;
	e->truncated = false;
	return 0;
}

static size_t kslot(const kmap *m, uint32_t client, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) ^ client) & (m->cap - 1);
	while (m->v[i] && (m->kc[i] != client || m->kh[i] != key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Map (client, key) to val (0 removes it: a tombstone that keeps probing intact). */
static int kput(kmap *m, uint32_t client, uint64_t key, uint64_t val)
{
	if ((m->n + 1) * 10 > m->cap * 7) {
		const size_t cap = m->cap ? m->cap * 2 : 256;
		kmap t = { .kc = calloc(cap, sizeof(uint32_t)), .kh = calloc(cap, sizeof(uint64_t)),
			   .v = calloc(cap, sizeof(uint64_t)), .cap = cap };
		if (!t.kc || !t.kh || !t.v) {
			free(t.kc), free(t.kh), free(t.v);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->v[i] || m->v[i] == KMAP_TOMB)
				continue;
			const size_t j = kslot(&t, m->kc[i], m->kh[i]);
			t.kc[j] = m->kc[i], t.kh[j] = m->kh[i], t.v[j] = m->v[i];
			t.n++;
		}
		free(m->kc), free(m->kh), free(m->v);
		*m = t;
	}
	const size_t i = kslot(m, client, key);
	if (!m->v[i])
		m->n++;
	m->kc[i] = client;
	m->kh[i] = key;
	m->v[i] = val ? val : KMAP_TOMB;
	return 0;
}

/* The value of (client, key), 0 if none. */
static uint64_t kget(const kmap *m, uint32_t client, uint64_t key)
{
	if (!m->cap)
		return 0;
	const uint64_t v = m->v[kslot(m, client, key)];
	return v == KMAP_TOMB ? 0 : v;
}

void rp__plan_kfree(kmap *m)
{
	free(m->kc), free(m->kh), free(m->v);
	memset(m, 0, sizeof(*m));
}

static int hput(scan *s, uint32_t client, uint64_t handle, size_t val)
{
	return kput(&s->handles, client, handle, val);
}

static pent *hget(scan *s, uint32_t client, uint64_t handle)
{
	const uint64_t v = kget(&s->handles, client, handle);
	return v ? &s->e[v - 1] : NULL;
}

/* Whether an open empties the file it opens. */
static bool open_truncates(const rp_op *op)
{
	return op->disp == RP_DISP_TRUNC || op->disp == RP_DISP_TRUNC_IF || op->disp == RP_DISP_SUPERSEDE;
}

/*
 * The file a read, write or setattr acts on: its open handle's entry, else
 * (NFSv3, synthetic SMB handles: a path and a handle never opened) its path,
 * which must then exist.  *e NULL when unknown; -1 when out of memory.
 */
static int file_of(scan *s, const rp_op *op, const char *p1, pent **e)
{
	*e = op->handle ? hget(s, op->client, op->handle) : NULL;
	if (*e || !p1 || !p1[0])
		return 0;
	if (expect(s, p1, strlen(p1), false) < 0)
		return -1;
	*e = lookup(s, p1, strlen(p1));
	return *e ? 0 : -1;
}

/*
 * The end of [off, off + len): a file can be no larger than off_t holds
 * (2^63 - 1), so an end past it (a read or write near UINT64_MAX, which
 * would wrap modulo 2^64) saturates there; prepare then fails to make such
 * a file and counts it, instead of planning a tiny one.
 */
#define PREP_SIZE_MAX ((uint64_t)INT64_MAX)
static uint64_t end_of(uint64_t off, uint64_t len)
{
	uint64_t end;
	if (__builtin_add_overflow(off, len, &end) || end > PREP_SIZE_MAX)
		return PREP_SIZE_MAX;
	return end;
}

/* Whether an open may create what it names. */
static bool open_creates(const rp_op *op)
{
	return op->disp != RP_DISP_OPEN && op->disp != RP_DISP_TRUNC;
}

/* An open that may create but says it opened or emptied what was there (the create action): it existed. */
static bool found_existing(const rp_op *op)
{
	return op->status == 0 && (op->result == RP_ACT_OPENED || op->result == RP_ACT_TRUNCATED);
}

/* Whether an op makes p1 (or p2) and fails with EEXIST when it is already there. */
static const char *creates_new(const rp_op *op, const char *p1, const char *p2)
{
	switch (op->op) {
	case RP_OP_MKDIR:
	case RP_OP_SYMLINK:
	case RP_OP_MKNOD:
		return p1;
	case RP_OP_LINK:
		return p2;
	case RP_OP_RENAME:
		return op->oflags & RP_RN_NOREPLACE ? p2 : NULL;
	case RP_OP_OPEN:
		return op->disp == RP_DISP_CREATE ? p1 : NULL;
	default:
		return NULL;
	}
}

/*
 * Whatever an op names lies in a directory, failed ops included (ENOENT on
 * a/b says a is a directory; ENOTDIR says the opposite, so it is left out):
 * the path gets an entry, so that rp__plan_make_items makes its parent a
 * directory if prepare makes the parent at all.
 */
static int names_in_dir(scan *s, const rp_op *op, const char *p1, const char *p2)
{
	if (op->status == ENOTDIR)
		return 0;
	const bool two = op->op == RP_OP_RENAME || op->op == RP_OP_LINK || op->op == RP_OP_COPY; /* path2 a path */
	if (p1 && strchr(p1, '/') && !lookup(s, p1, strlen(p1)))
		return -1;
	if (two && p2 && strchr(p2, '/') && !lookup(s, p2, strlen(p2)))
		return -1;
	return 0;
}

static int scan_op(scan *s, const rp_op *op, uint64_t index, const char *p1, const char *p2)
{
	const bool ok = op->status == 0 || op->status == RP_STATUS_UNKNOWN;
	if (names_in_dir(s, op, p1, p2) < 0)
		return -1;
	const char *const made = s->loop && op->status == 0 ? creates_new(op, p1, p2) : NULL;
	if (made && made[0] && index < UINT32_MAX) {
		const pent *const e = lookup(s, made, strlen(made));
		if (!e)
			return -1;
		if ((e->state == P_PRE || e->state == P_CREATED || e->state == P_MAYBE) &&
		    kput(&s->conflicts, op->client, index, 1) < 0)
			return -1;
	}
	const bool dirflag = (op->flags & RP_OPF_DIRECTORY) || (op->op == RP_OP_OPEN && (op->oflags & RP_OF_DIRECTORY));
	if (p1 && (ok || op->status == EEXIST)) {
		if (dirflag || op->op == RP_OP_RMDIR || op->op == RP_OP_MKDIR || op->op == RP_OP_READDIR)
			hint_dir(s, p1, strlen(p1));
	}
	switch (op->op) {
	case RP_OP_OPEN: {
		if (!p1)
			return 0;
		if (op->status == EEXIST)
			return expect(s, p1, strlen(p1), dirflag) < 0 ? -1 : 0;
		if (!ok)
			return op->status == ENOENT ? set_state(s, p1, P_ABSENT, dirflag) : 0;
		if (open_creates(op) && !found_existing(op)) {
			pent *const e = lookup(s, p1, strlen(p1));
			if (!e)
				return -1;
			/* create-new made it; an open-or-create that does not say may have found it */
			const uint8_t st = op->disp != RP_DISP_CREATE && op->result == RP_ACT_UNKNOWN ? P_MAYBE : P_CREATED;
			if (!e->state && set_state(s, p1, st, dirflag) < 0)
				return -1;
		} else if (expect(s, p1, strlen(p1), dirflag) < 0) {
			return -1;
		}
		pent *const e = lookup(s, p1, strlen(p1));
		if (!e)
			return -1;
		if (open_truncates(op)) {
			e->truncated = true;
			e->wmax = 0;
		}
		return op->handle ? hput(s, op->client, op->handle, (size_t)(e - s->e) + 1) : 0;
	}
	case RP_OP_CLOSE:
		return op->handle ? hput(s, op->client, op->handle, 0) : 0;
	case RP_OP_READ: {
		/*
		 * A read needs the file to reach its end unless the workload itself
		 * made it that long before (any write: a hole reads as zeros).  A short
		 * read says exactly where the end was; offset + result covers both.
		 */
		pent *e = NULL;
		if (ok && file_of(s, op, p1, &e) < 0)
			return -1;
		const uint64_t end = end_of(op->offset, op->result);
		if (e && e->state == P_MAYBE && op->result && !e->truncated && end > e->wmax)
			promote(s, e, false); /* it had data the workload did not write: it was there */
		if (e && op->result && !s->loop && e->state == P_PRE && !e->truncated && end > e->wmax && end > e->need)
			e->need = end;
		return 0;
	}
	case RP_OP_WRITE: {
		pent *e = NULL;
		if (ok && file_of(s, op, p1, &e) < 0)
			return -1;
		const uint64_t end = end_of(op->offset, op->result ? op->result : op->length);
		if (e && end > e->wmax)
			e->wmax = end;
		return 0;
	}
	case RP_OP_SETATTR:
		if (ok && (op->attrs & (RP_SA_SIZE | RP_SA_ALLOC))) {
			pent *e = NULL;
			if (file_of(s, op, p1, &e) < 0)
				return -1;
			/* The size is what it sets; an allocation below the data truncates it there, above leaves it. */
			const uint64_t size = op->attrs & RP_SA_SIZE ? op->length : op->offset;
			if (e && ((op->attrs & RP_SA_SIZE) || size < e->wmax)) {
				e->wmax = end_of(size, 0);
				e->truncated = true;
			}
			return 0;
		}
		/* fall through */
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
		if (ok && op->result && !dirflag) {
			/*
			 * The size the reply showed (an NFS trace's attributes): the file
			 * was that long unless the workload made it so, as for a read's end.
			 */
			pent *e = NULL;
			if (file_of(s, op, p1, &e) < 0)
				return -1;
			const uint64_t end = end_of(op->result, 0);
			if (e && !s->loop && e->state == P_PRE && !e->truncated && end > e->wmax && end > e->need)
				e->need = end;
			return 0;
		}
		/* fall through */
	case RP_OP_ACCESS:
	case RP_OP_READLINK:
	case RP_OP_GETXATTR:
	case RP_OP_LISTXATTR:
	case RP_OP_FLUSH: /* a flush by path (NFS COMMIT) needs the file, as a stat does */
		if (!p1)
			return 0;
		if (ok)
			return expect(s, p1, strlen(p1), dirflag) < 0 ? -1 : 0;
		return op->status == ENOENT ? set_state(s, p1, P_ABSENT, false) : 0;
	case RP_OP_READDIR: {
		if (!p1 || !ok)
			return 0;
		return expect(s, p1, strlen(p1), true) < 0 ? -1 : 0; /* the directory (the pattern is path2) */
	}
	case RP_OP_UNLINK:
	case RP_OP_RMDIR:
		if (!p1 || !ok)
			return 0;
		if (expect(s, p1, strlen(p1), op->op == RP_OP_RMDIR) < 0)
			return -1;
		if (op->op == RP_OP_RMDIR)
			absent_below(s, p1);
		return set_state(s, p1, P_ABSENT, false);
	case RP_OP_DELTREE:
		if (!p1)
			return 0;
		absent_below(s, p1);
		return set_state(s, p1, P_ABSENT, true);
	case RP_OP_MKDIR:
	case RP_OP_SYMLINK:
	case RP_OP_MKNOD: {
		if (p1 && op->status == EEXIST) /* it was there already */
			return expect(s, p1, strlen(p1), op->op == RP_OP_MKDIR) < 0 ? -1 : 0;
		if (!p1 || !ok)
			return 0;
		/* Made while it seemed to exist already: the trace says it did not (a parent used before its mkdir). */
		pent *const e = lookup(s, p1, strlen(p1));
		if (!e)
			return -1;
		if (e->state == P_PRE && !s->loop)
			e->pre = false;
		return set_state(s, p1, P_CREATED, op->op == RP_OP_MKDIR);
	}
	case RP_OP_RENAME:
	case RP_OP_LINK: {
		if (!p1 || !p2 || !ok)
			return 0;
		if (expect(s, p1, strlen(p1), false) < 0)
			return -1;
		const pent *const e = lookup(s, p1, strlen(p1));
		const bool dir = e && e->dir;
		if (op->op == RP_OP_RENAME) {
			absent_below(s, p1);
			if (set_state(s, p1, P_ABSENT, dir) < 0)
				return -1;
		}
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

int rp__plan_cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const rp_plan_item *)a)->path, ((const rp_plan_item *)b)->path);
}

void rp__plan_scan_free(scan *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->e[i].path);
	free(s->e);
	rp__plan_kfree(&s->handles);
	rp__plan_kfree(&s->conflicts);
	rp__plan_kfree(&s->counts);
	rp__plan_kfree(&s->dix);
	rp__plan_kfree(&s->forks);
	rp__plan_kfree(&s->users);
	rp__plan_kfree(&s->hown);
	rp__plan_kfree(&s->hfirst);
	rp__plan_kfree(&s->waited);
	for (size_t i = 0; i < s->dn; i++)
		free(s->d[i].ends);
	free(s->d);
}

int rp__plan_make_items(rp_plan *p, scan *s)
{
	/*
	 * Decided at the end, not at first sight: whatever was ever the parent of
	 * another path is a directory (NFSv4 looks up /home, which says nothing of
	 * its type, before /home/nst).
	 */
	for (size_t i = 0; i < s->cap; i++) {
		const char *const path = s->e[i].path;
		if (!path)
			continue;
		for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
			pent *const parent = find(s, path, (size_t)(slash - path));
			if (parent && parent->pre)
				parent->pre_dir = true;
		}
	}
	size_t n = 0;
	for (size_t i = 0; i < s->cap; i++)
		n += s->e[i].path && s->e[i].pre;
	p->items = calloc(n ? n : 1, sizeof(*p->items));
	if (!p->items)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		pent *const e = &s->e[i];
		if (!e->path || !e->pre)
			continue;
		rp_plan_item *const it = &p->items[p->n_items++];
		*it = (rp_plan_item){ .path = e->path, .dir = e->pre_dir, .size = e->pre_dir ? 0 : e->need };
		e->path = NULL; /* moved */
		p->dirs += it->dir;
		p->files += !it->dir;
		p->bytes += it->size;
	}
	/* Sorted, a parent comes before everything beneath it. */
	qsort(p->items, p->n_items, sizeof(*p->items), cmp_item);
	return 0;
}

/* The keys of a map, (client << 32 | key) or the client alone, ascending. */
int rp__plan_keys_of(const kmap *m, bool client_only, void **out, size_t *n)
{
	size_t live = 0;
	for (size_t i = 0; i < m->cap; i++)
		live += m->v[i] && m->v[i] != KMAP_TOMB;
	const size_t width = client_only ? sizeof(uint32_t) : sizeof(uint64_t);
	void *const a = calloc(live ? live : 1, width);
	if (!a)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->v[i] || m->v[i] == KMAP_TOMB)
			continue;
		if (client_only)
			((uint32_t *)a)[k++] = m->kc[i];
		else
			((uint64_t *)a)[k++] = (uint64_t)m->kc[i] << 32 | m->kh[i];
	}
	qsort(a, k, width, client_only ? cmp_u32 : rp__plan_cmp_u64);
	*out = a;
	*n = k;
	return 0;
}

/* The recorded depth: op into its client's sweep (made on the client's first op). */
static int depth_op(scan *s, const rp_op *op)
{
	if (s->last_d)
		return sweep_add(&s->d[s->last_d - 1], op->t_start, op->t_end);
	uint64_t i = kget(&s->dix, op->client, 0);
	if (!i) {
		if (s->dn == s->dcap) {
			const size_t cap = s->dcap ? s->dcap * 2 : 8;
			sweep *const d = realloc(s->d, cap * sizeof(*d));
			if (!d)
				return RP_E_NOMEM;
			s->d = d;
			s->dcap = cap;
		}
		memset(&s->d[s->dn], 0, sizeof(s->d[s->dn]));
		i = ++s->dn;
		if (kput(&s->dix, op->client, 0, i) < 0)
			return RP_E_NOMEM;
	}
	s->last_d = (size_t)i;
	return sweep_add(&s->d[i - 1], op->t_start, op->t_end);
}

/*
 * What the clients share (rp_plan_opts.shares): a path two clients use and
 * one of them changes, a handle one client opened and another used, a wait
 * op naming another client.  A path only looked at, opened and read by
 * several clients is not shared: no order among such ops changes what any
 * of them gets, and resource order would serialise them (reads of one file
 * by many clients, each with its window).  Paths are kept by hash: a
 * collision can only say two clients share when they may not, which costs
 * replay the resource order's scan, never an order it lacks.
 */
#define USERS_CLIENT 0xffffffffffull      /* the first client + 1 */
#define USERS_MANY (UINT64_C(1) << 40)    /* a second client used it */
#define USERS_CHANGED (UINT64_C(1) << 41) /* some client changed it */

/* Whether op may change what its paths name (create, remove, rename, write, set, lock): the window's rule 3, and writes and locks. */
static bool op_changes(const rp_op *op)
{
	switch (op->op) {
	case RP_OP_OPEN:
		return op->disp != RP_DISP_OPEN || (op->oflags & RP_OF_DELETE_ON_CLOSE);
	case RP_OP_WRITE:
	case RP_OP_SETATTR: /* sizes, times, modes, delete pending (a delete on close is its open's, above) */
	case RP_OP_SETXATTR:
	case RP_OP_REMOVEXATTR:
	case RP_OP_UNLINK:
	case RP_OP_MKDIR:
	case RP_OP_RMDIR:
	case RP_OP_RENAME:
	case RP_OP_LINK:
	case RP_OP_SYMLINK:
	case RP_OP_DELTREE:
	case RP_OP_MKNOD:
	case RP_OP_LOCK:
	case RP_OP_UNLOCK:
	case RP_OP_COPY:
		return true;
	default:
		return false;
	}
}

/* client used the path of hash h (changing it or not); a path becomes shared once used by two and changed. */
static int share_use(scan *s, uint32_t client, uint64_t h, bool changes)
{
	const uint64_t v = kget(&s->users, 0, h), me = (uint64_t)client + 1;
	uint64_t nv = v ? v : me;
	if ((v & USERS_CLIENT) && (v & USERS_CLIENT) != me)
		nv |= USERS_MANY;
	if (changes)
		nv |= USERS_CHANGED;
	if (nv == v)
		return 0;
	const uint64_t both = USERS_MANY | USERS_CHANGED;
	s->shared_paths += (nv & both) == both && (v & both) != both;
	return kput(&s->users, 0, h, nv);
}

static int share_op(scan *s, const rp_op *op, const char *p1, const char *p2)
{
	const uint64_t me = (uint64_t)op->client + 1;
	if (op->op == RP_OP_WAIT) {
		const bool other = op->result && op->result <= UINT32_MAX && op->result != op->client;
		return other && !kget(&s->waited, (uint32_t)op->result, 0) ? kput(&s->waited, (uint32_t)op->result, 0, me)
									   : 0;
	}
	const bool changes = op_changes(op);
	uint64_t h1 = 0;
	/* A run of one client's ops on one path id says nothing new (unless the first change of it comes). */
	const bool same_path = op->path == s->seen_path && op->client == s->seen_pclient;
	if (p1 && (!same_path || (changes && !s->seen_changed))) {
		h1 = hash_str(p1, strlen(p1));
		if (share_use(s, op->client, h1, changes) < 0)
			return -1;
		s->seen_changed = changes || (same_path && s->seen_changed);
		s->seen_pclient = op->client;
		s->seen_path = op->path;
	}
	if (p2 && (op->op == RP_OP_RENAME || op->op == RP_OP_LINK) && share_use(s, op->client, hash_str(p2, strlen(p2)), true) < 0)
		return -1;
	if (!op->handle)
		return 0;
	if (op->op == RP_OP_OPEN) {
		if (op->status != 0)
			return 0;
		s->seen_handle = 0; /* a reopened handle number may be another's now */
		/* its path's hash, for changes made through the handle by ops that name no path */
		if (kput(&s->hown, op->client, op->handle, p1 ? (h1 ? h1 : hash_str(p1, strlen(p1))) : 1) < 0)
			return -1;
		return kget(&s->hfirst, 0, op->handle) ? 0 : kput(&s->hfirst, 0, op->handle, me);
	}
	/* A change through the handle, naming no path, is its open's path's. */
	const bool through = !p1 && changes;
	const bool same_handle = op->handle == s->seen_handle && op->client == s->seen_client;
	const bool seen = same_handle && (!through || s->seen_hchanged);
	const uint64_t own = seen ? 0 : kget(&s->hown, op->client, op->handle);
	if (!seen && !own) {
		const uint64_t first = kget(&s->hfirst, 0, op->handle);
		s->shared_handles += first && first != me; /* inherited (a fork), or passed some other way */
	} else if (!seen) {
		if (through && own > 1 && share_use(s, op->client, own, true) < 0)
			return -1;
		s->seen_hchanged = through || (same_handle && s->seen_hchanged);
		s->seen_client = op->client;
		s->seen_handle = op->handle;
	}
	if (op->op == RP_OP_DUP && op->handle2)
		return kput(&s->hown, op->client, op->handle2, own ? own : 1);
	return 0;
}

/* One op of a pass: its client's op count, the depth sweep and (track) the paths.  0 or RP_E_NOMEM. */
int rp__plan_one_op(scan *s, const rp_op *op, rp_string_fn str, void *ctx, bool track, rp_plan *p)
{
	if (op->op >= RP_OP__COUNT)
		return 0;
	if (!s->last_ok || s->last_client != op->client) {
		if (s->last_ok && kput(&s->counts, s->last_client, 0, s->last_count) < 0)
			return RP_E_NOMEM;
		s->last_client = op->client;
		s->last_count = kget(&s->counts, op->client, 0);
		s->last_d = 0;
		s->last_ok = true;
	}
	const uint64_t index = ++s->last_count;
	p->timed = p->timed || op->t_start != 0;
	p->ops += !s->loop;
	if (op->proto != RP_PROTO_NONE) /* the first op with a producer sets it (protos has no such bit yet) */
		p->flags_every = p->protos & ~(1u << RP_PROTO_NONE) ? p->flags_every & op->flags : op->flags;
	if (op->proto < 32)
		p->protos |= 1u << op->proto;
	if (!s->loop && depth_op(s, op) < 0)
		return RP_E_NOMEM;
	/* A fork op names its child: the first one that made it (a pid reused later makes no second parent). */
	if (!s->loop && op->op == RP_OP_FORK && op->status == 0 && op->result && op->result <= UINT32_MAX &&
	    op->result != op->client && !kget(&s->forks, (uint32_t)op->result, 0) &&
	    kput(&s->forks, (uint32_t)op->result, 0, (uint64_t)op->client + 1) < 0)
		return RP_E_NOMEM;
	const bool share = s->shares && !s->loop;
	if (!track && !share)
		return 0;
	char p1[PATH_MAX], p2[PATH_MAX];
	const char *a = NULL, *b = NULL;
	uint32_t len;
	const char *raw;
	if (op->path && (raw = str(ctx, op->path, &len)) && rp_path_norm(raw, len, p1, sizeof(p1)) >= 0)
		a = p1;
	if (op->path2 && (raw = str(ctx, op->path2, &len)) && rp_path_norm(raw, len, p2, sizeof(p2)) >= 0)
		b = p2;
	if (share && share_op(s, op, a, b) < 0)
		return RP_E_NOMEM;
	if (!track)
		return 0;
	return scan_op(s, op, index, a, b) < 0 ? RP_E_NOMEM : 0;
}

/* The end of a pass: the last client's count goes to the table; the next pass starts afresh. */
int rp__plan_pass_end(scan *s)
{
	const bool flush = s->last_ok;
	s->last_ok = false;
	return flush && kput(&s->counts, s->last_client, 0, s->last_count) < 0 ? RP_E_NOMEM : 0;
}

static bool is_client(const rp_plan *p, uint64_t client)
{
	const uint32_t c = (uint32_t)client;
	return client <= UINT32_MAX && bsearch(&c, p->clients, p->n_clients, sizeof(c), cmp_u32) != NULL;
}

/* After the first pass: the clients, ascending, and each one's recorded depth. */
int rp__plan_first_done(scan *s, rp_plan *p)
{
	void *clients = NULL;
	if (rp__plan_keys_of(&s->counts, true, &clients, &p->n_clients) < 0)
		return RP_E_NOMEM;
	p->clients = clients;
	p->depth = calloc(p->n_clients ? p->n_clients : 1, sizeof(*p->depth));
	p->parent = calloc(p->n_clients ? p->n_clients : 1, sizeof(*p->parent));
	if (!p->depth || !p->parent)
		return RP_E_NOMEM;
	for (size_t i = 0; i < p->n_clients; i++) {
		const uint64_t k = kget(&s->dix, p->clients[i], 0);
		if (k)
			p->depth[i] = s->d[k - 1].d;
		p->parent[i] = kget(&s->forks, p->clients[i], 0);
	}
	if (!s->shares)
		return 0;
	p->share.paths = s->shared_paths;
	p->share.handles = s->shared_handles;
	/* A fork or wait op ties two clients when it names one of the trace's (not a process that did nothing). */
	for (size_t i = 0; i < p->n_clients; i++) {
		const uint64_t parent = p->parent[i], waiter = kget(&s->waited, p->clients[i], 0);
		p->share.forks += parent && is_client(p, parent - 1);
		p->share.waits += waiter && is_client(p, waiter - 1);
	}
	return 0;
}

