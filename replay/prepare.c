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
	bool pre, pre_dir; /* it had to exist before the run (and was a directory then): the prepare plan */
	uint64_t need;  /* bytes its reads need from prepare */
	uint64_t wmax;  /* size the workload itself gave it so far (write ends, sizes set) */
	bool truncated; /* its prepared content is gone (truncating open, size set): reads need nothing more */
} pent;

/* Path -> entry (open addressing); (client, handle) -> entry index. */
typedef struct scan {
	pent *e;
	size_t cap, n;
	bool loop;              /* the second pass: states as the first left them; only creation conflicts matter */
	rp_handles *conflicts;  /* (client, index) of creations that fail in later passes */
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
	e->wmax = 0;
	e->truncated = false;
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

/* Whether an open empties the file it opens (the trace's dialect). */
static bool open_truncates(rp_dialect d, const rp_op *op)
{
	if (d == RP_DIALECT_NT)
		return op->disposition == RP_NT_SUPERSEDE || op->disposition == RP_NT_OVERWRITE ||
		       op->disposition == RP_NT_OVERWRITE_IF;
	return (op->access & O_TRUNC) != 0;
}

/* A setattr that sets the size (to op->length): SMB end of file, NFS size in the attribute mask. */
static bool sets_size(rp_dialect d, const rp_op *op)
{
	if (d == RP_DIALECT_NT)
		return op->level == 20 || op->level == 1020; /* FileEndOfFileInformation (MS-FSCC 2.4.13), SMB1 pass-through */
	if (d == RP_DIALECT_NFS)
		return (op->level & 8) != 0; /* docs/capture-mapping.md: NFS SETATTR mask, 8 = size */
	return false;
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

/* For the in-flight window (window.c): whether an open may create or empty what it names. */
bool rp__open_changes(rp_dialect d, const rp_op *op)
{
	return open_creates(d, op) || open_truncates(d, op);
}

/*
 * A captured SMB open that may create but says it opened or overwrote what was
 * there (CreateAction FILE_OPENED 1, FILE_OVERWRITTEN 3: MS-SMB2 2.2.14): it
 * existed.  Loadfiles record no CreateAction, so only captures say so.
 */
static bool found_existing(const rp_replay *r, const rp_op *op)
{
	const uint32_t src = r->w->meta.source;
	return r->dialect == RP_DIALECT_NT && (src == RP_SRC_PCAP_SMB || src == RP_SRC_PCAP) && op->status == 0 &&
	       (op->result == 1 || op->result == 3);
}

/* Whether an op makes p1 (or p2) and fails with EEXIST when it is already there. */
static const char *creates_new(rp_dialect d, const rp_op *op, const char *p1, const char *p2)
{
	switch (op->op) {
	case RP_OP_MKDIR:
	case RP_OP_SYMLINK:
	case RP_OP_MKNOD:
		return p1;
	case RP_OP_LINK:
		return p2;
	case RP_OP_RENAME:
		return d == RP_DIALECT_NT ? p2 : NULL; /* SMB renames never replace */
	case RP_OP_OPEN:
		if (d == RP_DIALECT_NT)
			return op->disposition == RP_NT_CREATE ? p1 : NULL;
		if (d == RP_DIALECT_POSIX)
			return (op->access & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) ? p1 : NULL;
		return (op->flags & RP_OPF_CREATE) && op->disposition == RP_NT_CREATE ? p1 : NULL;
	default:
		return NULL;
	}
}

static int scan_op(rp_replay *r, scan *s, const rp_op *op, uint64_t index, const char *p1, const char *p2)
{
	const bool ok = op->status == 0 || op->status == RP_STATUS_UNKNOWN;
	const char *const made = s->loop && op->status == 0 ? creates_new(r->dialect, op, p1, p2) : NULL;
	if (made && made[0] && index < UINT32_MAX) {
		const pent *const e = lookup(s, made, strlen(made));
		if (!e)
			return -1;
		if ((e->state == P_PRE || e->state == P_CREATED) &&
		    rp__handles_put(s->conflicts, (uint64_t)op->client << 32 | index, 1) < 0)
			return -1;
	}
	const bool dirflag = (op->flags & RP_OPF_DIRECTORY) ||
			     (r->dialect == RP_DIALECT_NT && op->op == RP_OP_OPEN && (op->options & RP_NT_DIRECTORY_FILE));
	if (p1 && (ok || op->status == EEXIST)) {
		if (dirflag || op->op == RP_OP_RMDIR || op->op == RP_OP_MKDIR)
			hint_dir(s, p1, strlen(p1));
		if (op->op == RP_OP_READDIR) {
			const char *const slash = strrchr(p1, '/');
			const bool pattern = r->dialect == RP_DIALECT_NT || strpbrk(p1, "*?");
			hint_dir(s, p1, pattern ? (slash ? (size_t)(slash - p1) : 0) : strlen(p1));
		}
	}
	switch (op->op) {
	case RP_OP_OPEN: {
		if (!p1)
			return 0;
		if (op->status == EEXIST)
			return expect(s, p1, strlen(p1), dirflag) < 0 ? -1 : 0;
		if (!ok)
			return op->status == ENOENT ? set_state(s, p1, P_ABSENT, dirflag) : 0;
		if (open_creates(r->dialect, op) && !found_existing(r, op)) {
			pent *const e = lookup(s, p1, strlen(p1));
			if (!e)
				return -1;
			if (!e->state && set_state(s, p1, P_CREATED, dirflag) < 0)
				return -1;
		} else if (expect(s, p1, strlen(p1), dirflag) < 0) {
			return -1;
		}
		pent *const e = lookup(s, p1, strlen(p1));
		if (!e)
			return -1;
		if (open_truncates(r->dialect, op)) {
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
		const uint64_t end = op->offset + op->result;
		if (e && op->result && !s->loop && e->state == P_PRE && !e->truncated && end > e->wmax && end > e->need)
			e->need = end;
		return 0;
	}
	case RP_OP_WRITE: {
		pent *e = NULL;
		if (ok && file_of(s, op, p1, &e) < 0)
			return -1;
		const uint64_t end = op->offset + (op->result ? op->result : op->length);
		if (e && end > e->wmax)
			e->wmax = end;
		return 0;
	}
	case RP_OP_SETATTR:
		if (ok && sets_size(r->dialect, op)) {
			pent *e = NULL;
			if (file_of(s, op, p1, &e) < 0)
				return -1;
			if (e) {
				e->wmax = op->length;
				e->truncated = true;
			}
			return 0;
		}
		/* fall through */
	case RP_OP_STAT:
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
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
	r->prep = calloc(n ? n : 1, sizeof(*r->prep));
	if (!r->prep)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		pent *const e = &s->e[i];
		if (!e->path || !e->pre)
			continue;
		r->prep[r->n_prep++] = (rp_prep_item){ .path = e->path, .dir = e->pre_dir, .size = e->need };
		e->path = NULL; /* moved */
	}
	/* Sorted, a parent comes before everything beneath it. */
	qsort(r->prep, r->n_prep, sizeof(*r->prep), cmp_item);
	return 0;
}

/* Recorded in-flight depth by trace client, in the order they are met. */
typedef struct depthmap {
	rp_handles idx; /* client id + 1 -> index */
	uint32_t *ids;
	rp_depth *d;
	size_t n, cap;
} depthmap;

static int depth_op(depthmap *m, const rp_op *op)
{
	uint64_t i;
	if (!rp__handles_get(&m->idx, (uint64_t)op->client + 1, &i)) {
		if (m->n == m->cap) {
			const size_t cap = m->cap ? m->cap * 2 : 8;
			uint32_t *const ids = realloc(m->ids, cap * sizeof(*ids));
			if (ids)
				m->ids = ids;
			rp_depth *const d = realloc(m->d, cap * sizeof(*d));
			if (!ids || !d)
				return RP_E_NOMEM;
			m->d = d;
			m->cap = cap;
		}
		i = m->n;
		if (rp__handles_put(&m->idx, (uint64_t)op->client + 1, i) < 0)
			return RP_E_NOMEM;
		m->ids[m->n] = op->client;
		memset(&m->d[m->n++], 0, sizeof(*m->d));
	}
	return rp__depth_add(&m->d[i], op->t_start, op->t_end);
}

/*
 * One pass over every client's ops.  Each client's ops are numbered from 1 as
 * the client loop numbers them (counts: client id + 1 -> ops so far).  track:
 * follow paths (prepare, loop conflicts), not only find the clients.
 */
static int scan_pass(rp_replay *r, rp_op_source *src, scan *s, rp_handles *counts, depthmap *dm, bool track,
		     bool *timed, char *errbuf)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	const rp_op *ops = NULL;
	int n = 0, k = 0;
	for (;;) {
		if (k == n) {
			n = src->next(src, &ops);
			k = 0;
			if (n < 0)
				return rp_fail(errbuf, n, "%s", src->errbuf);
			if (n == 0)
				return 0;
		}
		const rp_op *const op = &ops[k++];
		if (op->op >= RP_OP__COUNT)
			continue;
		uint64_t index = 0;
		rp__handles_get(counts, (uint64_t)op->client + 1, &index);
		if (rp__handles_put(counts, (uint64_t)op->client + 1, ++index) < 0)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		*timed = *timed || op->t_start != 0;
		if (dm && op->op != RP_OP_SLEEP && depth_op(dm, op) < 0)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		if (!track)
			continue;
		const char *a = NULL, *b = NULL;
		uint32_t len;
		const char *raw;
		if (op->path && (raw = src->string(src, op->path, &len)) && rp__path_norm(raw, len, p1, sizeof(p1)) >= 0)
			a = p1;
		if (op->path2 && (raw = src->string(src, op->path2, &len)) &&
		    rp__path_norm(raw, len, p2, sizeof(p2)) >= 0)
			b = p2;
		if (scan_op(r, s, op, index, a, b) < 0)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory planning prepare");
	}
}

int rp__scan(rp_replay *r, char *errbuf)
{
	rp_op_source *src = NULL;
	int rc = r->w->open(r->w, true, 0, &src, errbuf);
	if (rc < 0)
		return rc;
	scan s;
	memset(&s, 0, sizeof(s));
	rp_handles seen, again; /* client id + 1 -> ops so far, in the first pass and the second */
	rp__handles_init(&seen);
	rp__handles_init(&again);
	depthmap dm;
	memset(&dm, 0, sizeof(dm));
	rp__handles_init(&dm.idx);
	bool timed = (r->w->meta.flags & RP_META_TIMED) != 0;
	const bool loops = r->opts.duration_s > 0;
	rc = scan_pass(r, src, &s, &seen, &dm, !r->opts.no_prepare || loops, &timed, errbuf);
	if (rc < 0)
		goto out;
	if (seen.live == 0) {
		rc = rp_fail(errbuf, RP_E_INVAL, "the trace has no ops");
		goto out;
	}
	if (r->opts.timing == RP_TIMING_TRACE && !timed) {
		rc = rp_fail(errbuf, RP_E_INVAL, "the trace has no timestamps: use --timing=afap (or think)");
		goto out;
	}
	if (loops) {
		/*
		 * A second pass from the state the first leaves: what it creates that
		 * is then already there (client.txt's Mkdir "\clients", which its own
		 * Deltree does not remove) fails with EEXIST in every later pass.
		 */
		s.loop = true;
		s.conflicts = &r->loop_conflicts;
		rc = src->rewind(src);
		if (rc < 0) {
			rc = rp_fail(errbuf, rc, "%s", src->errbuf);
			goto out;
		}
		rc = scan_pass(r, src, &s, &again, NULL, true, &timed, errbuf);
		if (rc < 0)
			goto out;
	}
	r->trace_clients = malloc(seen.live * sizeof(*r->trace_clients));
	if (!r->trace_clients || (!r->opts.no_prepare && make_plan(r, &s) < 0)) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	uint64_t key, val;
	while (rp__handles_pop(&seen, &key, &val))
		r->trace_clients[r->n_trace_clients++] = (uint32_t)(key - 1);
	qsort(r->trace_clients, r->n_trace_clients, sizeof(*r->trace_clients), cmp_u32);
	/* The recorded depth by trace client, in trace_clients order (a client of only sleeps has none). */
	r->rec_depth = calloc(r->n_trace_clients, sizeof(*r->rec_depth));
	if (!r->rec_depth) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < dm.n; i++) {
		const uint32_t *const t = bsearch(&dm.ids[i], r->trace_clients, r->n_trace_clients,
						  sizeof(*r->trace_clients), cmp_u32);
		if (!t)
			continue;
		rp_depth *const d = &r->rec_depth[t - r->trace_clients];
		d->ops = dm.d[i].ops;
		d->sum = dm.d[i].sum;
		d->max = dm.d[i].max; /* the sweep's heap is not kept */
	}
	rc = 0;
out:
	for (size_t i = 0; i < dm.n; i++)
		rp__depth_fini(&dm.d[i]);
	free(dm.d);
	free(dm.ids);
	rp__handles_fini(&dm.idx);
	rp__handles_fini(&seen);
	rp__handles_fini(&again);
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
	rp__handles_fini(&r->loop_conflicts);
	for (size_t i = 0; i < r->n_prep; i++)
		free(r->prep[i].path);
	free(r->prep);
	r->prep = NULL;
	r->n_prep = 0;
}
