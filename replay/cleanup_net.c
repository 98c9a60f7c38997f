/*
 * --cleanup on a target the backend walks (nfs://, smb://): replay/cleanup.c's
 * rule through the backend's own calls (rp_backend_ops.walk and .remove).
 * The snapshot holds the server's identity of every entry beneath the target
 * before the run (NFS fileid, SMB file index); the cleanup walks again and
 * removes each entry whose identity is not in it, a directory's entries
 * before the directory, so a directory the run made that holds something of
 * before fails to go (not empty) and stays.  The walk never goes through a
 * symlink and never leaves the target: the backend's calls are confined to
 * it as its ops are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine.h"
#include "replay/handles.h"

/* Entries one cleanup walk keeps in memory: far above any trace's tree, far below what would exhaust it. */
#define NET_CLEAN_MAX (1u << 24)

struct rp_replay_snap {
	rp_handles ids; /* id -> 1 for everything beneath the target before the run */
	uint64_t top;   /* entries directly in the target */
	int failed;     /* snap_one's own error (the walk's are said in errbuf) */
};

/* A client state of the target itself around fn, as prepare makes one. */
static int on_target(rp_replay *r, int (*fn)(rp_replay *r, void *cs, void *arg, char *errbuf), void *arg, char *errbuf)
{
	if (r->bops->version < 9 || !r->bops->walk || !r->bops->remove)
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "the %s backend cannot walk its target", r->bops->name);
	void *const cs = calloc(1, r->bops->client_size ? r->bops->client_size : 1);
	if (!cs)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = r->bops->client_init(r->bstate, cs, "", errbuf);
	if (rc == 0) {
		rc = fn(r, cs, arg, errbuf);
		if (r->bops->client_fini)
			r->bops->client_fini(r->bstate, cs);
	}
	free(cs);
	return rc;
}

static int snap_one(void *arg, const rp_backend_entry *e)
{
	rp_replay_snap *const s = arg;
	s->top += strchr(e->path, '/') == NULL;
	if (e->id == 0 || e->id == UINT64_MAX)
		return 0; /* no identity: the cleanup cannot tell it from the run's, and leaves it */
	s->failed = s->ids.live >= NET_CLEAN_MAX ? RP_E_LIMIT : rp__handles_put(&s->ids, e->id, 1);
	return s->failed;
}

/* The walk's callback failed with rc after n entries: said in errbuf. */
static int too_many(rp_replay *r, int rc, uint64_t n, char *errbuf)
{
	if (rc == RP_E_LIMIT)
		return rp_fail(errbuf, rc, "%s: cleanup: more than %u entries beneath it (the cleanup's limit)", r->target,
			       NET_CLEAN_MAX);
	return rp_fail(errbuf, rc, "%s: cleanup: out of memory after %llu entries beneath it", r->target,
		       (unsigned long long)n);
}

static int snap_walk(rp_replay *r, void *cs, void *arg, char *errbuf)
{
	rp_replay_snap *const s = arg;
	const int rc = r->bops->walk(r->bstate, cs, snap_one, s, errbuf);
	return rc && rc == s->failed ? too_many(r, rc, s->ids.live, errbuf) : rc;
}

int rp_replay_snap_take(rp_replay *r, rp_replay_snap **out, char *errbuf)
{
	*out = NULL;
	rp_replay_snap *const s = calloc(1, sizeof(*s));
	if (!s)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	rp__handles_init(&s->ids);
	const int rc = on_target(r, snap_walk, s, errbuf);
	if (rc < 0) {
		rp_replay_snap_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

uint64_t rp_replay_snap_entries(const rp_replay_snap *s)
{
	return s ? s->top : 0;
}

void rp_replay_snap_free(rp_replay_snap *s)
{
	if (!s)
		return;
	rp__handles_fini(&s->ids);
	free(s);
}

/* The entries of the walk after the run, in its order (a directory's entries before it), removed once it is over. */
typedef struct found {
	rp_backend_entry *v;
	size_t n, cap;
	int failed; /* found_one's own error (the walk's are said in errbuf) */
} found;

static int keep_found(found *f, const rp_backend_entry *e)
{
	if (f->n == NET_CLEAN_MAX)
		return RP_E_LIMIT;
	if (f->n == f->cap) {
		const size_t cap = f->cap ? f->cap * 2 : 64;
		rp_backend_entry *const v = realloc(f->v, cap * sizeof(*v));
		if (!v)
			return RP_E_NOMEM;
		f->v = v;
		f->cap = cap;
	}
	char *const path = strdup(e->path);
	if (!path)
		return RP_E_NOMEM;
	f->v[f->n++] = (rp_backend_entry){ .path = path, .id = e->id, .dir = e->dir };
	return 0;
}

static int found_one(void *arg, const rp_backend_entry *e)
{
	found *const f = arg;
	f->failed = keep_found(f, e);
	return f->failed;
}

typedef struct clean_arg {
	const rp_replay_snap *s;
	rp_tree_clean *st;
} clean_arg;

static int clean_walk(rp_replay *r, void *cs, void *arg, char *errbuf)
{
	const clean_arg *const a = arg;
	found f = { 0 };
	int rc = r->bops->walk(r->bstate, cs, found_one, &f, errbuf);
	if (rc && rc == f.failed)
		rc = too_many(r, rc, f.n, errbuf);
	for (size_t i = 0; rc == 0 && i < f.n; i++) {
		const rp_backend_entry *const e = &f.v[i];
		uint64_t one;
		if (e->id == 0 || e->id == UINT64_MAX) {
			a->st->unsure++;
		} else if (rp__handles_get(&a->s->ids, e->id, &one)) {
			a->st->kept++;
		} else {
			const int err = r->bops->remove(r->bstate, cs, e->path, e->dir);
			if (err == 0)
				a->st->removed++;
			else if (e->dir && (err == ENOTEMPTY || err == EEXIST))
				a->st->kept++; /* it holds something of before */
			else
				a->st->failed++;
		}
	}
	for (size_t i = 0; i < f.n; i++)
		free((char *)f.v[i].path);
	free(f.v);
	if (rc == 0 && a->st->failed)
		rc = rp_fail(errbuf, RP_E_IO, "%s: %llu entr%s the run made could not be removed", r->target,
			     (unsigned long long)a->st->failed, a->st->failed == 1 ? "y" : "ies");
	return rc;
}

int rp_replay_snap_clean(rp_replay *r, const rp_replay_snap *s, rp_tree_clean *st, char *errbuf)
{
	memset(st, 0, sizeof(*st));
	clean_arg a = { s, st };
	return on_target(r, clean_walk, &a, errbuf);
}
