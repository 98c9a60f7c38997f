/*
 * The --cleanup walk the network backends share (nfs_clean.c, smb_clean.c):
 * a target's tree, depth first, a directory's entries before the directory,
 * through the backend's own listing call.
 */
#ifndef REPRISE_REPLAY_TREEWALK_H
#define REPRISE_REPLAY_TREEWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/backend.h"

/* One entry of a listing, kept while the listing is walked. */
typedef struct rp__tw_dent {
	char *name;
	uint64_t id; /* the server's identity of it; 0: none known */
	bool dir;    /* walked into */
} rp__tw_dent;

/*
 * What one walk holds at once: the listing it reads and those of the
 * directories above it, which wait while it walks beneath.  A directory a
 * hostile (or huge) server lists is read whole, so it is bounded here: far
 * above any replay target's directory, far below what would exhaust memory
 * (at the limits about 100 MiB).  cleanup_net.c bounds the whole walk.
 */
#define RP_TW_HELD_MAX (1u << 20)       /* entries */
#define RP_TW_HELD_BYTES (64u << 20)    /* bytes of their names */

/* The entries and name bytes the open listings of one walk hold. */
typedef struct rp__tw_held {
	size_t entries, bytes;
} rp__tw_held;

/* One directory's listing, read whole, and the identities its "." and ".." gave (0: none). */
typedef struct rp__tw_list {
	rp__tw_dent *v;
	size_t n, cap;
	size_t bytes;       /* of the names kept */
	rp__tw_held *held;  /* the walk's (rp__tw_walk sets it); NULL: this listing alone counts */
	uint64_t self, up;
} rp__tw_list;

/*
 * Keep one entry of a listing (name copied): 0, RP_E_LIMIT (the walk would
 * hold more than RP_TW_HELD_MAX entries or RP_TW_HELD_BYTES of names), or
 * RP_E_NOMEM.  "", "." and "..", and a name with a '/' (it would be a path),
 * are not kept.
 */
int rp__tw_add(rp__tw_list *l, const char *name, uint64_t id, bool dir);

/*
 * A listing's call that rp__tw_add failed with rc, said in errbuf: what
 * lists (the target's URL) and the directory (relative to the root, "" the
 * root), the limit it went past or the entries read when memory ran out.
 * Returns rc.
 */
int rp__tw_fail(char *errbuf, int rc, const char *target, const char *path, const rp__tw_list *l);

/* A backend's part of the walk. */
typedef struct rp__tw_ops {
	/* The entries of the directory at path (relative to the root, "" the root) into l: 0, or an rp error said in errbuf. */
	int (*list)(void *ctx, const char *path, rp__tw_list *l, char *errbuf);
	/* (NULL: none) An entry its listing gave no identity: its own attributes may set d's id and dir. */
	void (*identify)(void *ctx, const char *path, rp__tw_dent *d);
	/*
	 * Walk into a directory only when its listing's "." is its identity and
	 * its ".." its parent's (not one the server reached through a symlink it
	 * follows); one that fails is reported with no identity.
	 */
	bool check_dots;
	size_t path_max; /* a path and its NUL fit in this many bytes; an entry whose path would not is left alone */
} rp__tw_ops;

/*
 * rp_backend_ops.walk through ops: fn for every entry beneath the root, at
 * most RP_BACKEND_WALK_DEPTH deep; fn's non-zero return stops it with that
 * return.  0 or an rp error.
 */
int rp__tw_walk(const rp__tw_ops *ops, void *ctx, int (*fn)(void *arg, const rp_backend_entry *e), void *arg,
		char *errbuf);

#endif
