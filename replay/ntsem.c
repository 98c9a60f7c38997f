/* The engine's NT layer: access from wants, mandatory locks, end of file, delete-on-close, enumerations (MS-SMB2 3.3.5, MS-FSA 2.1). */
#include "replay/ntsem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hash.h"
#include "replay/client.h"
#include "replay/engine.h"

/* What the layer keeps of an open handle. */
typedef struct rp_nthandle {
	uint32_t rights;   /* rp_want the handle has */
	uint32_t path;     /* trace string id of what it opened */
	uint64_t file;     /* the object: FNV-1a of "clientdir/path", keying locks across clients (0: not yet needed) */
	bool nt;           /* opened with NT semantics: checks apply */
	bool doc;          /* delete on close */
	bool listed;       /* an enumeration on it has begun, of the pattern: */
	uint32_t pattern;  /* its trace string id (0: every entry) */
	const char *where; /* the engine-resolved path (the client's path cache keeps it, or owned) */
	char *owned;       /* where, when the rename of a directory above it gave it a path no op names (freed with it) */
	uint64_t bh;       /* the backend handle: others may reference it too (dup, fork: share.c) */
} rp_nthandle;

/* One mandatory lock: who holds it (client, trace handle), on what, where. */
typedef struct rp_ntlock {
	uint64_t file, handle, off, len;
	uint32_t client;
	bool excl;
} rp_ntlock;

#define DATA_READ (RP_WANT_READ | RP_WANT_EXEC)
#define DATA_WRITE (RP_WANT_WRITE | RP_WANT_APPEND)

void rp__ntlocks_init(rp_ntlocks *l)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->mu, NULL);
	atomic_init(&l->live, 0);
}

void rp__ntlocks_fini(rp_ntlocks *l)
{
	pthread_mutex_destroy(&l->mu);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void rp__ntclient_init(rp_ntclient *n)
{
	rp__handles_init(&n->handles);
	rp__handles_init(&n->paths);
}

static inline __attribute__((always_inline)) rp_nthandle *handle_of(const rp_client *c, uint64_t handle)
{
	uint64_t v;
	return handle && rp__handles_get(&c->nt.handles, handle, &v) ? (rp_nthandle *)(uintptr_t)v : NULL;
}

/* The object's identity across clients, made the first time a lock needs it (most handles never lock). */
static uint64_t file_of(const rp_client *c, rp_nthandle *h)
{
	if (!h->file) {
		uint64_t f = rp_fnv1a64(RP_FNV64_OFFSET, c->dir, strlen(c->dir));
		f = rp_fnv1a64(f, "/", 1);
		if (h->where)
			f = rp_fnv1a64(f, h->where, strlen(h->where));
		h->file = f | 1;
	}
	return h->file;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* A read conflicts with another open's exclusive lock, a write with any other lock and the handle's own shared ones. */
static bool lock_conflict(rp_ntlocks *l, const rp_client *c, rp_nthandle *h, const rp_op *op, bool write)
{
	if (!atomic_load_explicit(&l->live, memory_order_acquire) || !op->length)
		return false;
	const uint64_t file = file_of(c, h);
	bool conflict = false;
	pthread_mutex_lock(&l->mu);
	for (size_t i = 0; i < l->n && !conflict; i++) {
		const rp_ntlock *const k = &l->v[i];
		if (k->file != file || !overlaps(op->offset, op->length, k->off, k->len))
			continue;
		const bool own = k->client == c->index && k->handle == op->handle;
		conflict = own ? write && !k->excl : write || k->excl;
	}
	pthread_mutex_unlock(&l->mu);
	return conflict;
}

static int lock_add(rp_ntlocks *l, const rp_client *c, rp_nthandle *h, const rp_op *op)
{
	const uint64_t file = file_of(c, h);
	pthread_mutex_lock(&l->mu);
	int rc = 0;
	if (l->n == l->cap) {
		const size_t cap = l->cap ? l->cap * 2 : 16;
		rp_ntlock *const v = realloc(l->v, cap * sizeof(*v));
		if (v) {
			l->v = v;
			l->cap = cap;
		} else {
			rc = ENOMEM;
		}
	}
	if (rc == 0) {
		l->v[l->n++] = (rp_ntlock){ .file = file, .handle = op->handle, .off = op->offset, .len = op->length,
					    .client = c->index, .excl = (op->flags & RP_OPF_EXCLUSIVE) != 0 };
		atomic_store_explicit(&l->live, l->n, memory_order_release);
	}
	pthread_mutex_unlock(&l->mu);
	return rc;
}

/* Drop the client's locks on a handle: one range (an unlock), or all of them (off = len = UINT64_MAX: a close). */
static void lock_drop(rp_ntlocks *l, const rp_client *c, uint64_t handle, uint64_t off, uint64_t len)
{
	if (!atomic_load_explicit(&l->live, memory_order_acquire))
		return;
	pthread_mutex_lock(&l->mu);
	for (size_t i = 0; i < l->n;) {
		const rp_ntlock *const k = &l->v[i];
		const bool all = off == UINT64_MAX && len == UINT64_MAX;
		if (k->client == c->index && k->handle == handle && (all || (k->off == off && k->len == len))) {
			l->v[i] = l->v[--l->n];
			if (!all)
				break;
			continue;
		}
		i++;
	}
	atomic_store_explicit(&l->live, l->n, memory_order_release);
	pthread_mutex_unlock(&l->mu);
}

int rp__nt_before(rp_client *c, const rp_op *op, rp_breq *req)
{
	(void)req;
	rp_nthandle *const h = handle_of(c, op->handle);
	if (!h || !h->nt)
		return 0;
	switch (op->op) {
	case RP_OP_READ:
	case RP_OP_WRITE: {
		const bool write = op->op == RP_OP_WRITE;
		if (!(h->rights & (write ? DATA_WRITE : DATA_READ)))
			return EACCES;
		return lock_conflict(&c->r->ntlocks, c, h, op, write) ? EAGAIN : 0;
	}
	case RP_OP_SETATTR:
		if ((op->attrs & (RP_SA_SIZE | RP_SA_ALLOC)) && !(h->rights & DATA_WRITE))
			return EACCES;
		if ((op->attrs & RP_SA_DELETE_SET) && !(h->rights & RP_WANT_DELETE))
			return EACCES;
		if (op->attrs & (RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR)) {
			h->doc = (op->attrs & RP_SA_DELETE_SET) != 0;
			/* Delete-on-close is the server's bookkeeping: nothing reaches the file system now. */
			if (!(op->attrs & ~(uint32_t)(RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR)))
				return RP__NT_DONE;
		}
		return 0;
	case RP_OP_GETXATTR:
	case RP_OP_SETXATTR: {
		/* A security descriptor query or set needs the rights its parts name (MS-SMB2 3.3.5.20.3, 3.3.5.21.3). */
		if (op->path2 || !op->want)
			return 0;
		const uint32_t need = op->want & RP_WANT_ALL;
		return (h->rights & need) == need ? 0 : EACCES;
	}
	default:
		return 0;
	}
}

/* Open count and delete-pending bit of a path, as kept in paths. */
static uint64_t path_state(const rp_client *c, uint32_t path)
{
	uint64_t v = 0;
	return path && rp__handles_get(&c->nt.paths, path, &v) ? v : 0;
}


/*
 * A handle went (closed or released; already out of the table): the path's
 * last one acts on delete-on-close, a delete left in fu to the lifecycle (or
 * to the last close of another reference to its backend handle: share.c).
 * 0, or ENOMEM when that could not be kept.
 */
static int handle_gone(rp_client *c, uint64_t handle, rp_nthandle *h, rp_followups *fu)
{
	uint64_t old;
	lock_drop(&c->r->ntlocks, c, handle, UINT64_MAX, UINT64_MAX);
	const uint64_t st = path_state(c, h->path);
	const uint64_t count = st >> 1 ? (st >> 1) - 1 : 0;
	const bool pending = (st & 1) || h->doc;
	int rc = 0;
	if (count == 0) {
		if (h->path)
			rp__handles_del(&c->nt.paths, h->path, &old);
		/*
		 * The object stays open while another reference to its backend
		 * handle does (a dup, a forked client's copy): the delete waits for
		 * the last close of them all (share.c).
		 */
		if (pending && h->where && rp__bh_real(h->bh) && rp__share_held(c->r, h->bh)) {
			rc = rp__share_defer(c->r, h->bh, h->where) < 0 ? ENOMEM : 0;
		} else if (pending && h->where) {
			char *const where = strdup(h->where);
			rc = !where || rp__followup_delete(fu, where) < 0 ? ENOMEM : 0;
		}
	} else if (rp__handles_put(&c->nt.paths, h->path, count << 1 | pending) < 0) {
		rc = ENOMEM;
	}
	free(h->owned);
	free(h);
	return rc;
}

static void track_open(rp_client *c, const rp_op *op, const rp_breq *req, rp_followups *fu)
{
	const bool nt = (op->oflags & RP_OF_NT) != 0, doc = (op->oflags & RP_OF_DELETE_ON_CLOSE) != 0;
	uint64_t v;
	if (rp__handles_del(&c->nt.handles, op->handle, &v)) /* the id reused: the engine released that handle */
		handle_gone(c, op->handle, (rp_nthandle *)(uintptr_t)v, fu);
	if (!nt && !doc)
		return;
	rp_nthandle *const h = malloc(sizeof(*h));
	if (!h)
		return; /* no memory: the handle goes without NT checks */
	const uint32_t w = op->want;
	uint32_t rights = w & RP_WANT_ALL;
	if (!(w & RP_WANT_KNOWN) || (w & RP_WANT_MAX))
		rights = req->granted ? req->granted & RP_WANT_ALL : RP_WANT_ALL;
	*h = (rp_nthandle){ .rights = rights, .path = op->path, .nt = nt, .doc = doc, .where = req->path, .bh = req->bh };
	if (rp__handles_put(&c->nt.handles, op->handle, (uint64_t)(uintptr_t)h) < 0) {
		free(h);
		return;
	}
	if (op->path) {
		const uint64_t st = path_state(c, op->path);
		(void)rp__handles_put(&c->nt.paths, op->path, (((st >> 1) + 1) << 1) | (st & 1));
	}
}

void rp__nt_dup(rp_client *c, uint64_t handle, uint64_t handle2, rp_followups *fu)
{
	const rp_nthandle *const h = handle_of(c, handle);
	uint64_t v;
	if (rp__handles_del(&c->nt.handles, handle2, &v)) /* a dup over an open handle: that one went */
		handle_gone(c, handle2, (rp_nthandle *)(uintptr_t)v, fu);
	if (!h || !handle2)
		return;
	rp_nthandle *const d = malloc(sizeof(*d));
	if (!d)
		return; /* no memory: the new handle goes without NT checks */
	*d = *h;
	d->file = 0;
	if (h->owned && !(d->where = d->owned = strdup(h->owned))) {
		free(d);
		return;
	}
	if (rp__handles_put(&c->nt.handles, handle2, (uint64_t)(uintptr_t)d) < 0) {
		free(d);
		return;
	}
	/* Another handle on the path: delete-on-close waits for the last of them (the path's open count). */
	if (d->path) {
		const uint64_t st = path_state(c, d->path);
		(void)rp__handles_put(&c->nt.paths, d->path, (((st >> 1) + 1) << 1) | (st & 1) | d->doc);
	}
}

static bool beneath(const char *where, const char *dir)
{
	const size_t n = dir ? strlen(dir) : 0;
	return where && n && strncmp(where, dir, n) == 0 && where[n] == '/';
}

/* h is beneath the directory old, which a rename made now: its path becomes the same beneath now. */
static void move_beneath(rp_nthandle *h, const char *old, const char *now)
{
	const char *const rest = h->where + strlen(old); /* "/..." */
	const size_t ln = strlen(now), lr = strlen(rest);
	char *const p = malloc(ln + lr + 1);
	if (!p)
		return; /* no memory: it keeps the old path */
	memcpy(p, now, ln);
	memcpy(p + ln, rest, lr + 1);
	free(h->owned);
	h->owned = p;
	h->where = p;
}

/* h's path is an op's (the path cache keeps it), or none. */
static void set_where(rp_nthandle *h, const char *where)
{
	free(h->owned);
	h->owned = NULL;
	h->where = where;
}

/*
 * A rename moved an object: the open handles follow it (MS-FSA 2.1.5.14.11,
 * FileRenameInformation: an open keeps its file, whatever its name), so their
 * delete-on-close, the path's open count and its delete-pending bit go to the
 * new name.  Handles on what the new name held before are left with no name
 * (their object left the namespace: a delete at their close deletes nothing),
 * except for an exchange, where the two sides swap.  Handles beneath a
 * renamed directory follow it too (their path rebuilt beneath the new name;
 * their open count stays with the old name's id, which no later op names).
 */
static void renamed(rp_client *c, const rp_op *op, const rp_breq *req)
{
	const rp_nthandle *const by = handle_of(c, op->handle);
	const uint32_t from = op->path ? op->path : by ? by->path : 0, to = op->path2;
	if (!from || !to || from == to || !req->path2)
		return;
	const bool swap = (op->oflags & RP_RN_EXCHANGE) != 0;
	const char *const from_where = req->path ? req->path : by ? by->where : NULL;
	const rp_handles *const t = &c->nt.handles;
	for (size_t i = 0; i < t->cap; i++) {
		if (t->keys[i] == 0 || t->keys[i] == RP__HANDLE_TOMB)
			continue;
		rp_nthandle *const h = (rp_nthandle *)(uintptr_t)t->vals[i];
		if (h->path == from) {
			h->path = to;
			set_where(h, req->path2);
		} else if (h->path == to) {
			h->path = swap ? from : 0;
			set_where(h, swap ? from_where : NULL);
		} else if (beneath(h->where, from_where)) {
			move_beneath(h, from_where, req->path2);
		} else if (swap && beneath(h->where, req->path2)) {
			move_beneath(h, req->path2, from_where);
		}
	}
	uint64_t st_from = 0, st_to = 0;
	const bool had_from = rp__handles_del(&c->nt.paths, from, &st_from) != 0;
	const bool had_to = rp__handles_del(&c->nt.paths, to, &st_to) != 0;
	if (had_from)
		(void)rp__handles_put(&c->nt.paths, to, st_from);
	if (swap && had_to)
		(void)rp__handles_put(&c->nt.paths, from, st_to);
}

void rp__nt_after(rp_client *c, const rp_op *op, rp_breq *req, rp_followups *fu)
{
	if (op->op == RP_OP_OPEN) {
		if (op->handle && req->status == 0)
			track_open(c, op, req, fu);
		return;
	}
	if (op->op == RP_OP_RENAME) {
		if (req->status == 0)
			renamed(c, op, req);
		return;
	}
	rp_nthandle *const h = handle_of(c, op->handle);
	if (!h)
		return;
	switch (op->op) {
	case RP_OP_CLOSE: {
		uint64_t v;
		rp__handles_del(&c->nt.handles, op->handle, &v);
		const int rc = handle_gone(c, op->handle, h, fu);
		if (req->status == 0 && rc)
			req->status = rc;
		return;
	}
	case RP_OP_READ:
		if (h->nt && req->status == 0 && req->result == 0 && op->length > 0)
			req->status = ENODATA; /* STATUS_END_OF_FILE */
		return;
	case RP_OP_READDIR:
		/* A query directory with the pattern of the handle's enumeration continues it: only the
		 * first query can find no match (STATUS_NO_SUCH_FILE); later ones end it with
		 * STATUS_NO_MORE_FILES, OK, even when what matched went meanwhile (smbclient's `del`:
		 * list, delete, list again; MS-SMB2 3.3.5.18, MS-FSA 2.1.5.6.3).  Another pattern
		 * starts a new enumeration, as Samba does. */
		if (!h->nt)
			return;
		if (req->status == ENOENT && h->listed && h->pattern == op->path2) {
			req->status = 0;
			req->result = 0;
		}
		if (req->status == 0) {
			h->listed = true;
			h->pattern = op->path2;
		}
		return;
	case RP_OP_LOCK:
		if (req->status == 0 && (op->flags & RP_OPF_MANDATORY) && !(op->flags & RP_OPF_TEST) &&
		    lock_add(&c->r->ntlocks, c, h, op))
			req->status = ENOMEM;
		return;
	case RP_OP_UNLOCK:
		if (req->status == 0)
			lock_drop(&c->r->ntlocks, c, op->handle, op->offset, op->length);
		return;
	default:
		return;
	}
}

void rp__ntclient_reset(rp_client *c, rp_followups *fu)
{
	uint64_t key, v;
	while (rp__handles_pop(&c->nt.handles, &key, &v))
		(void)handle_gone(c, key, (rp_nthandle *)(uintptr_t)v, fu);
	while (rp__handles_pop(&c->nt.paths, &key, &v))
		;
}

void rp__ntclient_fini(rp_client *c)
{
	uint64_t key, v;
	while (rp__handles_pop(&c->nt.handles, &key, &v)) {
		rp_nthandle *const h = (rp_nthandle *)(uintptr_t)v;
		free(h->owned);
		free(h);
	}
	rp__handles_fini(&c->nt.handles);
	rp__handles_fini(&c->nt.paths);
}
