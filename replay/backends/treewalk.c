/* The --cleanup walk the network backends share: their listing call, this recursion (treewalk.h). */
#include "replay/backends/treewalk.h"

#include <stdlib.h>
#include <string.h>

#include "formats/error.h"

typedef struct walker {
	const rp__tw_ops *ops;
	void *ctx;
	int (*fn)(void *arg, const rp_backend_entry *e);
	void *arg;
	char *errbuf;
	rp__tw_held held;
	char path[]; /* ops->path_max bytes: the entry's path relative to the root */
} walker;

static void list_free(rp__tw_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	if (l->held) {
		l->held->entries -= l->n;
		l->held->bytes -= l->bytes;
	}
}

int rp__tw_add(rp__tw_list *l, const char *name, uint64_t id, bool dir)
{
	if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strchr(name, '/'))
		return 0;
	const size_t len = strlen(name);
	const size_t entries = l->held ? l->held->entries : l->n;
	const size_t bytes = l->held ? l->held->bytes : l->bytes;
	if (entries >= RP_TW_HELD_MAX || len > RP_TW_HELD_BYTES - bytes)
		return RP_E_LIMIT;
	if (l->n == l->cap) {
		const size_t nc = l->cap ? l->cap * 2 : 32;
		rp__tw_dent *const nv = realloc(l->v, nc * sizeof(*nv));
		if (!nv)
			return RP_E_NOMEM;
		l->v = nv;
		l->cap = nc;
	}
	char *const copy = strdup(name);
	if (!copy)
		return RP_E_NOMEM;
	l->v[l->n++] = (rp__tw_dent){ .name = copy, .id = id, .dir = dir };
	l->bytes += len;
	if (l->held) {
		l->held->entries++;
		l->held->bytes += len;
	}
	return 0;
}

int rp__tw_fail(char *errbuf, int rc, const char *target, const char *path, const rp__tw_list *l)
{
	const char *const dir = path[0] ? path : "/";
	if (rc == RP_E_LIMIT)
		return rp_fail(errbuf, rc,
			       "%s: cleanup: listing %s: more than %u entries or %u MiB of names in it and the "
			       "directories above it (the walk's limit)",
			       target, dir, RP_TW_HELD_MAX, RP_TW_HELD_BYTES >> 20);
	if (rc == RP_E_NOMEM)
		return rp_fail(errbuf, rc, "%s: cleanup: listing %s: out of memory after %zu entries", target, dir, l->n);
	return rp_fail(errbuf, rc, "%s: cleanup: listing %s: %s", target, dir, rp_strerror(rc));
}

/* Walk the directory at w->path (len bytes), whose identity is id and its parent's parent (id 0: not checked). */
static int walk_dir(walker *w, size_t len, uint64_t id, uint64_t parent, unsigned depth, bool *sound)
{
	rp__tw_list l = { .held = &w->held };
	int rc = w->ops->list(w->ctx, w->path, &l, w->errbuf);
	*sound = !w->ops->check_dots || !id || (l.self == id && l.up == parent);
	for (size_t i = 0; *sound && rc == 0 && i < l.n; i++) {
		rp__tw_dent *const d = &l.v[i];
		const size_t nlen = strlen(d->name);
		const size_t at = len ? len + 1 : 0;
		if (at + nlen >= w->ops->path_max)
			continue; /* too long to name: left alone */
		if (len)
			w->path[len] = '/';
		memcpy(w->path + at, d->name, nlen + 1);
		if (!d->id && w->ops->identify)
			w->ops->identify(w->ctx, w->path, d);
		bool ok = true;
		if (d->dir && depth + 1 < RP_BACKEND_WALK_DEPTH)
			rc = walk_dir(w, at + nlen, d->id, l.self, depth + 1, &ok);
		if (rc == 0) {
			w->path[at + nlen] = '\0';
			const rp_backend_entry e = { .path = w->path, .id = ok ? d->id : 0, .dir = d->dir };
			rc = w->fn(w->arg, &e);
		}
		w->path[len] = '\0';
	}
	list_free(&l);
	return rc;
}

int rp__tw_walk(const rp__tw_ops *ops, void *ctx, int (*fn)(void *arg, const rp_backend_entry *e), void *arg,
		char *errbuf)
{
	walker *const w = malloc(sizeof(*w) + ops->path_max);
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	*w = (walker){ .ops = ops, .ctx = ctx, .fn = fn, .arg = arg, .errbuf = errbuf };
	w->path[0] = '\0';
	bool sound;
	const int rc = walk_dir(w, 0, 0, 0, 0, &sound);
	free(w);
	return rc;
}
