/* The NFS file handle -> path map shared by MOUNT, NFSv3 and NFSv4 (RFC 1813 §2.3.3, RFC 7530 §4). */
#include <stdlib.h>
#include <string.h>

#include "capture/rpc/rpc.h"
#include "formats/hash.h"

/*
 * Each known handle is an entry keyed by its bytes.  An entry knows its path
 * either whole (a root from MOUNT or PUTROOTFH) or as (directory handle, name),
 * so renaming a directory moves everything below it without touching the
 * children.  A second index by (directory handle, name) serves RENAME and
 * REMOVE, which name the object, not its handle.  A file with several hard
 * links also keeps its other live names as aliases (most recent first, in a
 * third index by (directory handle, name)): LINK adds one, REMOVE drops one,
 * RENAME moves one, and when the name a handle is shown by goes away the most
 * recent alias takes its place.  The map is bounded: past MAP_MAX entries and
 * aliases together the least recently used handle is forgotten with its
 * aliases, and paths through it fall back to synthetic ones.
 */

/* Handles remembered per capture.  An entry is ~100 bytes plus its handle,
 * directory handle and name, so this bounds the map to some 100 MB.  (The
 * unit tests build this file with a small bound to exercise eviction.) */
#ifndef RP_FHMAP_MAX
#define RP_FHMAP_MAX (1u << 19)
#endif
#define MAP_MAX RP_FHMAP_MAX
/* Other live names remembered per handle; a LINK past this drops the oldest. */
#define ALIAS_MAX 8
/* A parent chain deeper than this is a cycle made by a hostile capture. */
#define DEPTH_MAX 256
#define FH_MAX RP_NFS4_FHSIZE

enum kind { K_NONE, K_PATH, K_CHILD };

struct ent;

/* Another live name of a handle: directory handle then name in info. */
typedef struct alias {
	struct alias *next;      /* the owner's aliases, most recent first */
	struct alias *name_next; /* hash chain of the alias index */
	struct ent *owner;
	uint64_t name_hash;
	uint16_t info_len;
	uint8_t dir_len;
	uint8_t info[];
} alias;

typedef struct ent {
	struct ent *fh_next, *name_next; /* hash chains */
	struct ent *lru_prev, *lru_next; /* lru_prev towards most recent */
	uint64_t fh_hash, name_hash;
	uint64_t handle;   /* trace-local id, 0 until asked for */
	uint8_t *info;     /* K_PATH: the path; K_CHILD: directory handle then name */
	uint16_t info_len; /* bytes of info */
	uint8_t dir_len;   /* K_CHILD: directory handle bytes at the start of info */
	uint8_t kind;
	bool in_names; /* linked in the name index */
	uint8_t n_aliases;
	alias *aliases; /* other live names, most recent first */
	uint8_t fh_len;
	uint8_t fh[];
} ent;

struct rp_fhmap {
	ent **fh_buckets, **name_buckets;
	alias **alias_buckets;
	size_t n_buckets; /* a power of two, shared by the three indexes */
	size_t n, n_aliases;
	ent *lru_head, *lru_tail; /* head: most recent */
	uint64_t next_handle;
};

static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	h = rp_fnv1a64(h, p, n);
	return h ^ (h >> 29);
}

#define HASH_SEED RP_FNV64_OFFSET

static uint64_t name_key(const uint8_t *dir, size_t dlen, const char *name, size_t nlen)
{
	const uint8_t sep = (uint8_t)dlen;
	uint64_t h = hash_bytes(HASH_SEED, &sep, 1);
	h = hash_bytes(h, dir, dlen);
	return hash_bytes(h, (const uint8_t *)name, nlen);
}

static void *map_create(void)
{
	rp_fhmap *const m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->n_buckets = 1024;
	m->fh_buckets = calloc(m->n_buckets, sizeof(ent *));
	m->name_buckets = calloc(m->n_buckets, sizeof(ent *));
	m->alias_buckets = calloc(m->n_buckets, sizeof(alias *));
	if (!m->fh_buckets || !m->name_buckets || !m->alias_buckets) {
		free(m->fh_buckets);
		free(m->name_buckets);
		free(m->alias_buckets);
		free(m);
		return NULL;
	}
	return m;
}

static void map_destroy(void *p)
{
	rp_fhmap *const m = p;
	if (!m)
		return;
	for (ent *e = m->lru_head; e;) {
		ent *const next = e->lru_next;
		for (alias *a = e->aliases; a;) {
			alias *const an = a->next;
			free(a);
			a = an;
		}
		free(e->info);
		free(e);
		e = next;
	}
	free(m->fh_buckets);
	free(m->name_buckets);
	free(m->alias_buckets);
	free(m);
}

static const int map_key;

rp_fhmap *rp__fhmap(rp_capctx *cx)
{
	return rp__cap_state(cx, &map_key, map_create, map_destroy);
}

/* ---- the three indexes and the LRU list ---- */

static void lru_unlink(rp_fhmap *m, ent *e)
{
	if (e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else
		m->lru_head = e->lru_next;
	if (e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else
		m->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

static void lru_push(rp_fhmap *m, ent *e)
{
	e->lru_prev = NULL;
	e->lru_next = m->lru_head;
	if (m->lru_head)
		m->lru_head->lru_prev = e;
	m->lru_head = e;
	if (!m->lru_tail)
		m->lru_tail = e;
}

static void touch(rp_fhmap *m, ent *e)
{
	if (m->lru_head != e) {
		lru_unlink(m, e);
		lru_push(m, e);
	}
}

static void names_unlink(rp_fhmap *m, ent *e)
{
	if (!e->in_names)
		return;
	for (ent **pp = &m->name_buckets[e->name_hash & (m->n_buckets - 1)]; *pp; pp = &(*pp)->name_next)
		if (*pp == e) {
			*pp = e->name_next;
			break;
		}
	e->name_next = NULL;
	e->in_names = false;
}

static ent *find(const rp_fhmap *m, const uint8_t *fh, size_t len)
{
	if (len == 0 || len > FH_MAX)
		return NULL;
	const uint64_t h = hash_bytes(HASH_SEED, fh, len);
	for (ent *e = m->fh_buckets[h & (m->n_buckets - 1)]; e; e = e->fh_next)
		if (e->fh_hash == h && e->fh_len == len && memcmp(e->fh, fh, len) == 0)
			return e;
	return NULL;
}

static ent *find_name(const rp_fhmap *m, const uint8_t *dir, size_t dlen, const char *name, size_t nlen)
{
	const uint64_t h = name_key(dir, dlen, name, nlen);
	for (ent *e = m->name_buckets[h & (m->n_buckets - 1)]; e; e = e->name_next)
		if (e->name_hash == h && e->dir_len == dlen && e->info_len == dlen + nlen &&
		    memcmp(e->info, dir, dlen) == 0 && memcmp(e->info + dlen, name, nlen) == 0)
			return e;
	return NULL;
}

static alias *find_alias(const rp_fhmap *m, const uint8_t *dir, size_t dlen, const char *name, size_t nlen)
{
	const uint64_t h = name_key(dir, dlen, name, nlen);
	for (alias *a = m->alias_buckets[h & (m->n_buckets - 1)]; a; a = a->name_next)
		if (a->name_hash == h && a->dir_len == dlen && a->info_len == dlen + nlen &&
		    memcmp(a->info, dir, dlen) == 0 && memcmp(a->info + dlen, name, nlen) == 0)
			return a;
	return NULL;
}

/* Take a out of the alias index and its owner's list, and free it. */
static void alias_drop(rp_fhmap *m, alias *a)
{
	for (alias **pp = &m->alias_buckets[a->name_hash & (m->n_buckets - 1)]; *pp; pp = &(*pp)->name_next)
		if (*pp == a) {
			*pp = a->name_next;
			break;
		}
	for (alias **pp = &a->owner->aliases; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	a->owner->n_aliases--;
	m->n_aliases--;
	free(a);
}

/* Nothing is called (dir, name) any more: neither a handle's shown name nor an alias. */
static void name_clear(rp_fhmap *m, const uint8_t *dir, size_t dlen, const char *name, size_t nlen)
{
	ent *const old = find_name(m, dir, dlen, name, nlen);
	if (old)
		names_unlink(m, old);
	alias *const a = find_alias(m, dir, dlen, name, nlen);
	if (a)
		alias_drop(m, a);
}

static void evict(rp_fhmap *m, ent *e)
{
	for (ent **pp = &m->fh_buckets[e->fh_hash & (m->n_buckets - 1)]; *pp; pp = &(*pp)->fh_next)
		if (*pp == e) {
			*pp = e->fh_next;
			break;
		}
	names_unlink(m, e);
	while (e->aliases)
		alias_drop(m, e->aliases);
	lru_unlink(m, e);
	free(e->info);
	free(e);
	m->n--;
}

/* Double the indexes when they fill up (until MAP_MAX bounds the count). */
static void grow(rp_fhmap *m)
{
	const size_t nb = m->n_buckets * 2;
	ent **const fb = calloc(nb, sizeof(ent *));
	ent **const nmb = calloc(nb, sizeof(ent *));
	alias **const ab = calloc(nb, sizeof(alias *));
	if (!fb || !nmb || !ab) {
		free(fb);
		free(nmb);
		free(ab);
		return; /* longer chains, still correct */
	}
	for (ent *e = m->lru_head; e; e = e->lru_next) {
		ent **const fp = &fb[e->fh_hash & (nb - 1)];
		e->fh_next = *fp;
		*fp = e;
		if (e->in_names) {
			ent **const np = &nmb[e->name_hash & (nb - 1)];
			e->name_next = *np;
			*np = e;
		}
		for (alias *a = e->aliases; a; a = a->next) {
			alias **const ap = &ab[a->name_hash & (nb - 1)];
			a->name_next = *ap;
			*ap = a;
		}
	}
	free(m->fh_buckets);
	free(m->name_buckets);
	free(m->alias_buckets);
	m->fh_buckets = fb;
	m->name_buckets = nmb;
	m->alias_buckets = ab;
	m->n_buckets = nb;
}

/* The entry for fh, created (as K_NONE) if new; NULL for a bad length or no memory. */
static ent *get(rp_fhmap *m, const uint8_t *fh, size_t len)
{
	ent *e = find(m, fh, len);
	if (e) {
		touch(m, e);
		return e;
	}
	if (len == 0 || len > FH_MAX)
		return NULL;
	while (m->n + m->n_aliases >= MAP_MAX && m->lru_tail)
		evict(m, m->lru_tail);
	if (m->n + m->n_aliases >= m->n_buckets)
		grow(m);
	e = calloc(1, sizeof(*e) + len);
	if (!e)
		return NULL;
	memcpy(e->fh, fh, len);
	e->fh_len = (uint8_t)len;
	e->fh_hash = hash_bytes(HASH_SEED, fh, len);
	ent **const fp = &m->fh_buckets[e->fh_hash & (m->n_buckets - 1)];
	e->fh_next = *fp;
	*fp = e;
	lru_push(m, e);
	m->n++;
	return e;
}

static void alias_add(rp_fhmap *m, ent *e, const uint8_t *dir, size_t dlen, const char *name, size_t nlen);

/* Give e a new path: whole (dir NULL) or as a name inside dir.  With keep_old,
 * a live name e was shown by stays as an alias (the object was found under
 * another name: a hard link). */
static void set_info(rp_fhmap *m, ent *e, const uint8_t *dir, size_t dlen, const char *name, size_t nlen,
		     bool keep_old)
{
	if (dlen + nlen > UINT16_MAX)
		return;
	uint8_t *const info = malloc(dlen + nlen + 1);
	if (!info)
		return;
	if (dlen)
		memcpy(info, dir, dlen);
	memcpy(info + dlen, name, nlen);
	info[dlen + nlen] = 0;
	if (keep_old && dir && e->kind == K_CHILD && e->in_names &&
	    !(e->info_len == dlen + nlen && e->dir_len == dlen && memcmp(e->info, info, dlen + nlen) == 0)) {
		names_unlink(m, e);
		alias_add(m, e, e->info, e->dir_len, (const char *)e->info + e->dir_len,
			  (size_t)(e->info_len - e->dir_len));
	}
	names_unlink(m, e);
	free(e->info);
	e->info = info;
	e->info_len = (uint16_t)(dlen + nlen);
	e->dir_len = (uint8_t)dlen;
	e->kind = dir ? K_CHILD : K_PATH;
	if (!dir)
		return;
	/* The newest binding of (dir, name) wins: an older object of that name
	 * keeps its path but is no longer reachable by name (nor is an alias). */
	name_clear(m, dir, dlen, name, nlen);
	e->name_hash = name_key(dir, dlen, name, nlen);
	ent **const np = &m->name_buckets[e->name_hash & (m->n_buckets - 1)];
	e->name_next = *np;
	*np = e;
	e->in_names = true;
}

/* Add (dir, name) as another live name of e (the most recent), unless it is
 * the name e is shown by.  Called with e just touched, so it is not evicted. */
static void alias_add(rp_fhmap *m, ent *e, const uint8_t *dir, size_t dlen, const char *name, size_t nlen)
{
	if (e->kind == K_CHILD && e->in_names && e->info_len == dlen + nlen && e->dir_len == dlen &&
	    memcmp(e->info, dir, dlen) == 0 && memcmp(e->info + dlen, name, nlen) == 0)
		return;
	name_clear(m, dir, dlen, name, nlen);
	if (e->n_aliases >= ALIAS_MAX) {
		alias *oldest = e->aliases;
		while (oldest->next)
			oldest = oldest->next;
		alias_drop(m, oldest);
	}
	while (m->n + m->n_aliases >= MAP_MAX && m->lru_tail && m->lru_tail != e)
		evict(m, m->lru_tail);
	if (m->n + m->n_aliases >= m->n_buckets)
		grow(m);
	alias *const a = malloc(sizeof(*a) + dlen + nlen);
	if (!a)
		return;
	memcpy(a->info, dir, dlen);
	memcpy(a->info + dlen, name, nlen);
	a->info_len = (uint16_t)(dlen + nlen);
	a->dir_len = (uint8_t)dlen;
	a->owner = e;
	a->name_hash = name_key(dir, dlen, name, nlen);
	alias **const ap = &m->alias_buckets[a->name_hash & (m->n_buckets - 1)];
	a->name_next = *ap;
	*ap = a;
	a->next = e->aliases;
	e->aliases = a;
	e->n_aliases++;
	m->n_aliases++;
}

/* e's shown name is gone: it is shown by its most recent alias, if any. */
static void promote(rp_fhmap *m, ent *e)
{
	alias *const a = e->aliases;
	if (!a)
		return;
	uint8_t buf[FH_MAX + RP_NFS_NAME_MAX];
	const size_t dlen = a->dir_len, nlen = (size_t)(a->info_len - a->dir_len);
	memcpy(buf, a->info, a->info_len);
	alias_drop(m, a);
	set_info(m, e, buf, dlen, (const char *)buf + dlen, nlen, false);
}

/* Names the map may learn: not empty, not "." or "..", no '/' or NUL. */
static bool plain_name(const char *name, size_t nlen)
{
	if (nlen == 0 || nlen > RP_NFS_NAME_MAX)
		return false;
	if (name[0] == '.' && (nlen == 1 || (nlen == 2 && name[1] == '.')))
		return false;
	return !memchr(name, '/', nlen) && !memchr(name, '\0', nlen);
}

void rp__fhmap_set(rp_fhmap *m, const uint8_t *fh, size_t len, const char *path, size_t plen)
{
	if (!m || plen == 0 || plen > RP_NFS_PATH_MAX)
		return;
	ent *const e = get(m, fh, len);
	if (e)
		set_info(m, e, NULL, 0, path, plen, false);
}

void rp__fhmap_child(rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name, size_t nlen,
		     const uint8_t *fh, size_t len)
{
	if (!m || !plain_name(name, nlen) || dlen == 0 || dlen > FH_MAX)
		return;
	if (dlen == len && memcmp(dir_fh, fh, len) == 0)
		return; /* an object inside itself: a hostile or broken reply */
	ent *const e = get(m, fh, len);
	if (e)
		set_info(m, e, dir_fh, dlen, name, nlen, true);
}

void rp__fhmap_link(rp_fhmap *m, const uint8_t *fh, size_t len, const uint8_t *dir_fh, size_t dlen,
		    const char *name, size_t nlen)
{
	if (!m || !plain_name(name, nlen) || dlen == 0 || dlen > FH_MAX)
		return;
	if (dlen == len && memcmp(dir_fh, fh, len) == 0)
		return;
	ent *const e = get(m, fh, len);
	if (!e)
		return;
	if (e->kind == K_CHILD && e->in_names)
		alias_add(m, e, dir_fh, dlen, name, nlen);
	else if (e->kind != K_PATH)
		set_info(m, e, dir_fh, dlen, name, nlen, false); /* its only live name we know */
}

void rp__fhmap_child_listed(rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name, size_t nlen,
			    const uint8_t *fh, size_t len)
{
	const ent *const e = m ? find(m, fh, len) : NULL;
	if (e && e->kind != K_NONE && (e->kind == K_PATH || e->in_names))
		return;
	rp__fhmap_child(m, dir_fh, dlen, name, nlen, fh, len);
}

bool rp__fhmap_known(rp_fhmap *m, const uint8_t *fh, size_t len)
{
	const ent *const e = m ? find(m, fh, len) : NULL;
	return e && e->kind != K_NONE;
}

void rp__fhmap_forget(rp_fhmap *m, const uint8_t *fh, size_t len)
{
	ent *const e = m ? find(m, fh, len) : NULL;
	if (e)
		evict(m, e);
}

void rp__fhmap_unlink_name(rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name, size_t nlen)
{
	if (!m || dlen > FH_MAX)
		return;
	ent *const e = find_name(m, dir_fh, dlen, name, nlen);
	if (e) {
		names_unlink(m, e);
		promote(m, e);
		return;
	}
	alias *const a = find_alias(m, dir_fh, dlen, name, nlen);
	if (a)
		alias_drop(m, a);
}

/* RENAME of an alias: the owner's other name moves (renaming one hard link of
 * a file onto another leaves both, POSIX rename()). */
static void rename_alias(rp_fhmap *m, alias *a, const uint8_t *to_dir, size_t tlen, const char *to_name, size_t tnlen)
{
	ent *const e = a->owner;
	if (!plain_name(to_name, tnlen) || tlen == 0 || tlen > FH_MAX ||
	    (tlen == e->fh_len && memcmp(to_dir, e->fh, tlen) == 0)) {
		alias_drop(m, a);
		return;
	}
	const ent *const holder = find_name(m, to_dir, tlen, to_name, tnlen);
	const alias *const other = find_alias(m, to_dir, tlen, to_name, tnlen);
	if (holder == e || (other && other->owner == e))
		return;
	alias_drop(m, a);
	touch(m, e);
	alias_add(m, e, to_dir, tlen, to_name, tnlen);
}

void rp__fhmap_rename(rp_fhmap *m, const uint8_t *from_dir, size_t flen, const char *from_name, size_t fnlen,
		      const uint8_t *to_dir, size_t tlen, const char *to_name, size_t tnlen)
{
	if (!m || flen > FH_MAX)
		return;
	ent *const e = find_name(m, from_dir, flen, from_name, fnlen);
	if (!e) {
		alias *const a = find_alias(m, from_dir, flen, from_name, fnlen);
		if (a)
			rename_alias(m, a, to_dir, tlen, to_name, tnlen);
		return;
	}
	if (plain_name(to_name, tnlen) && tlen > 0 && tlen <= FH_MAX &&
	    !(tlen == e->fh_len && memcmp(to_dir, e->fh, tlen) == 0)) {
		const alias *const same = find_alias(m, to_dir, tlen, to_name, tnlen);
		if (same && same->owner == e)
			return; /* both names are links to the same file: nothing changes */
		/* Whatever the target name held is replaced (RFC 1813 §3.3.14). */
		set_info(m, e, to_dir, tlen, to_name, tnlen, false);
	} else {
		names_unlink(m, e);
		promote(m, e);
	}
}

uint64_t rp__fhmap_handle(rp_fhmap *m, const uint8_t *fh, size_t len)
{
	ent *const e = m ? get(m, fh, len) : NULL;
	if (!e)
		return 0;
	if (!e->handle)
		e->handle = ++m->next_handle;
	return e->handle;
}

uint64_t rp__fhmap_new_handle(rp_fhmap *m)
{
	return m ? ++m->next_handle : 0;
}

/* ---- building paths ---- */

typedef struct pathbuf {
	char s[RP_NFS_PATH_MAX + 1];
	size_t len;
	bool overflow;
} pathbuf;

static void pb_put(pathbuf *b, const char *s, size_t n)
{
	if (b->len + n > RP_NFS_PATH_MAX) {
		b->overflow = true;
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
}

static void pb_synth(pathbuf *b, const uint8_t *fh, size_t len)
{
	char tmp[96];
	const size_t n = rp__cap_synth_path(tmp, sizeof(tmp), "nfs", fh, len);
	b->len = 0;
	b->overflow = false;
	pb_put(b, tmp, n);
}

/* Append one component, with "." and ".." resolved lexically (never above "/"). */
static void pb_component(pathbuf *b, const char *name, size_t nlen)
{
	if (nlen == 1 && name[0] == '.')
		return;
	if (nlen == 2 && name[0] == '.' && name[1] == '.') {
		while (b->len > 1 && b->s[b->len - 1] != '/')
			b->len--;
		if (b->len > 1)
			b->len--; /* the slash before the last component */
		return;
	}
	if (!(b->len > 0 && b->s[b->len - 1] == '/'))
		pb_put(b, "/", 1);
	pb_put(b, name, nlen);
}

/* The path of fh into b; *synth set when any part of it had to be made up. */
static void resolve(rp_fhmap *m, const uint8_t *fh, size_t len, pathbuf *b, bool *synth)
{
	const ent *chain[DEPTH_MAX];
	size_t depth = 0;
	const uint8_t *cur = fh;
	size_t cur_len = len;
	b->len = 0;
	b->overflow = false;
	for (;;) {
		ent *const e = m ? find(m, cur, cur_len) : NULL;
		if (e)
			touch(m, e);
		if (!e || e->kind == K_NONE) {
			pb_synth(b, cur, cur_len);
			*synth = true;
			break;
		}
		if (e->kind == K_PATH) {
			pb_put(b, (const char *)e->info, e->info_len);
			break;
		}
		if (depth == DEPTH_MAX) {
			pb_synth(b, fh, len);
			*synth = true;
			return;
		}
		chain[depth++] = e;
		cur = e->info;
		cur_len = e->dir_len;
	}
	while (depth > 0) {
		const ent *const e = chain[--depth];
		pb_component(b, (const char *)e->info + e->dir_len, (size_t)(e->info_len - e->dir_len));
	}
	if (b->overflow) {
		pb_synth(b, fh, len);
		*synth = true;
	}
}

uint32_t rp__fhmap_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *fh, size_t len, bool *synth)
{
	bool made = false;
	pathbuf b;
	resolve(m, fh, len, &b, &made);
	if (synth)
		*synth = made;
	return rp__cap_path(cx, b.s, b.len);
}

uint32_t rp__fhmap_child_path(rp_capctx *cx, rp_fhmap *m, const uint8_t *dir_fh, size_t dlen, const char *name,
			      size_t nlen, bool *synth)
{
	bool made = false;
	pathbuf b;
	resolve(m, dir_fh, dlen, &b, &made);
	pb_component(&b, name, nlen);
	if (b.overflow) {
		/* Too long to spell out: a stable stand-in named after the directory. */
		pb_synth(&b, dir_fh, dlen);
		made = true;
	}
	if (synth)
		*synth = made;
	return rp__cap_path(cx, b.s, b.len);
}
