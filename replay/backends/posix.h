/* The posix backend's internal state, shared by posix.c (files, I/O) and posix_dir.c (directories). */
#ifndef REPRISE_REPLAY_POSIX_H
#define REPRISE_REPLAY_POSIX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "replay/backend.h"
#include "replay/backends/beneath.h"

typedef struct posix_backend {
	int target;             /* the --target directory */
	atomic_int no_openat2;  /* set once openat2 returns ENOSYS */
	bool o_sync;            /* --sync: every file opened O_SYNC */
	bool fsync_writes;      /* --fsync-writes: fsync after each write */
	bool force_walk;        /* backend-opt no-openat2 (tests) */
} posix_backend;

typedef struct posix_client {
	rp_beneath b;    /* b.root is this client's directory */
	char *buf;       /* I/O and getdents buffer */
	size_t buf_size;
} posix_client;

/* Make buf at least n bytes (n capped by the caller); 0 or -ENOMEM. */
int rp__posix_buf(posix_client *c, size_t n);

/* Directory ops: return 0 or an errno, and set *result where it applies. */
int rp__posix_readdir(posix_backend *pb, posix_client *c, const rp_breq *req, int handle_fd, uint64_t *result);
int rp__posix_deltree(posix_client *c, const char *path);

#endif
