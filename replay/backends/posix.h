/* The posix backend's internal state, shared by posix.c (files, I/O) and posix_dir.c (directories). */
#ifndef REPRISE_REPLAY_POSIX_H
#define REPRISE_REPLAY_POSIX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/backend.h"
#include "replay/backends/beneath.h"

/* A namespace generation shared by the clients that work in one directory. */
typedef struct posix_gen {
	struct posix_gen *next;
	_Atomic uint64_t gen;
	char dir[];
} posix_gen;

typedef struct posix_backend {
	int target;             /* the --target directory */
	pthread_mutex_t gens_mu; /* guards the list (client_init only) */
	posix_gen *gens;
	atomic_int no_openat2;  /* set once openat2 returns ENOSYS */
	bool o_sync;            /* --sync: every file opened O_SYNC */
	bool fsync_writes;      /* --fsync-writes: fsync after each write */
	bool force_walk;        /* backend-opt no-openat2 (tests) */
	bool setid;             /* backend-opt setid: the trace's setuid/setgid bits are applied */
} posix_backend;

/* Directories a client keeps open (small: a linear scan beats any syscall by far). */
#define POSIX_DIRCACHE 32

typedef struct posix_dirent {
	char *path; /* relative to the client's root; NULL = free */
	size_t len;
	uint64_t hash;
	uint64_t used; /* LRU stamp */
	int fd;
	bool path_only; /* O_PATH: cannot be listed */
} posix_dirent;

typedef struct posix_client {
	rp_beneath b;    /* b.root is this client's directory */
	char *buf;       /* I/O and getdents buffer */
	size_t buf_size;
	posix_dirent dirs[POSIX_DIRCACHE];
	uint64_t dirs_tick;
	_Atomic uint64_t *gen; /* shared with the clients in the same directory */
	uint64_t gen_seen;
} posix_client;

/* Make buf at least n bytes (n capped by the caller); 0 or -ENOMEM. */
int rp__posix_buf(posix_client *c, size_t n);
/* copy: length bytes from in at offset to out at offset2, result the bytes copied; 0 or the errno (posix_copy.c). */
int rp__posix_copy(posix_client *c, rp_breq *req, int in, int out);

/* posix_dircache.c: directory fds beneath the client's root, cached. */
void rp__posix_cache_init(posix_client *c);
void rp__posix_cache_flush(posix_client *c);
/*
 * Before each op: if another client in the same directory moved or removed a
 * directory since, empty the cache.  Never between the lookups of one op, so
 * an fd a caller holds stays open until it releases it.
 */
void rp__posix_begin(posix_client *c);
/* The directory dir[0..n) ("" = the root): an fd (give it back with rp__posix_release), or -errno. */
int rp__posix_dir(posix_client *c, const char *dir, size_t n);
/* The same, readable for getdents (an fd of its own when the cached one cannot be listed). */
int rp__posix_listdir(posix_client *c, const char *dir, size_t n);
/* The parent of path and *name its last component (not "", "." or ".."), or -errno; release the fd. */
int rp__posix_parent(posix_client *c, const char *path, const char **name);
/* Give back an fd from rp__posix_dir/listdir/parent: closed unless it is the root or cached. */
void rp__posix_release(posix_client *c, int fd);
/* Open path beneath the root through its cached parent (the caller closes the fd), or -errno. */
int rp__posix_open(posix_client *c, const char *path, int flags, unsigned mode);
/* path (a directory) and everything beneath it moved or went: forget them here and in the sharing clients. */
void rp__posix_forget(posix_client *c, const char *path);

/* Directory ops: return 0 or an errno, and set *result where it applies. */
int rp__posix_readdir(posix_backend *pb, posix_client *c, const rp_breq *req, int handle_fd, uint64_t *result);
int rp__posix_deltree(posix_client *c, const char *path);

#endif
