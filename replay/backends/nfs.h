/* The nfs backend's internal state (libnfs 4.0, asynchronous API), shared by nfs.c, nfs_ops.c and nfs_util.c. */
#ifndef REPRISE_REPLAY_NFS_H
#define REPRISE_REPLAY_NFS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/backend.h"

/* libnfs 4.0's NFSv4 WRITE fails to encode past 3944 bytes (measured against ganesha 4.3): v4 writes go in pieces this big. */
#define RP_NFS4_WRITE_CHUNK 3072u
/* NFSv4 reports no read size (0); past what the server takes (ganesha: 1 MiB) the connection is dropped. */
#define RP_NFS4_READ_CHUNK (256u * 1024u)
/* Pieces of a read or write never pass this, whatever the server says (the write pattern buffer's size). */
#define RP_NFS_IO_MAX (1u << 20)
/* A directory tree deeper than this is an attack on the stack, not a workload (deltree). */
#define RP_NFS_DELTREE_DEPTH 128
/* The longest target URL taken (libnfs keeps it in fixed buffers of its own too). */
#define RP_NFS_URL_MAX 4096

/* What the URL's query says that the backend needs itself (libnfs parses the rest). */
typedef struct rp_nfs_url_info {
	int version; /* 3 (default) or 4 */
} rp_nfs_url_info;

/*
 * Check a target URL's form (nfs://host/export[/dir][?key=value&...]) and
 * read its NFS version: 0, or RP_E_INVAL naming what is wrong (no host, no
 * export path, a version other than 3 or 4, an option libnfs 4.0 does not
 * know, a value that is no number).
 */
int rp__nfs_url_check(const char *url, rp_nfs_url_info *info, char *errbuf);

/* The canonical status of a libnfs result: 0 for rc >= 0, else its errno (host numbering), OTHER past 4095. */
int32_t rp__nfs_status(int rc);

/*
 * An SMB listing pattern (path2 of a readdir: '*', '?', DOS '<' '>' '"')
 * as an fnmatch(3) pattern in out (n bytes), every other character itself
 * ('[', ']', '\\' escaped).  0, or ENAMETOOLONG when it does not fit.
 */
int rp__nfs_pattern(const char *mask, char *out, size_t n);

/* The setattr attributes the nfs backend sets, one RPC each, in this order. */
enum {
	RP_NFS_SA_SIZE = 1u << 0,
	RP_NFS_SA_MODE = 1u << 1,
	RP_NFS_SA_OWNER = 1u << 2,
	RP_NFS_SA_TIMES = 1u << 3,
};
/* The steps a setattr's attrs (rp_setattr_flag) need; 0 means none: a GETATTR stands in. */
unsigned rp__nfs_setattr_steps(uint32_t attrs);

#ifdef RP_NFS_LIBNFS
/* The rest needs libnfs: nfs.c and nfs_ops.c. */
#include <nfsc/libnfs.h>

typedef struct nfs_backend {
	char *url;             /* the target, as given */
	int version;           /* 3 or 4 */
	int timeout_ms;        /* RPC timeout (backend option timeout) */
	bool setid;            /* backend option setid: apply the trace's setuid/setgid bits */
	_Atomic unsigned contexts; /* contexts made so far: each its own NFSv4 client name */
} nfs_backend;

typedef struct nreq nreq;

/*
 * NFSv4: one libnfs open per file and client state, shared by every handle
 * on the file (by its fileid).  A second OPEN of a file by one open-owner
 * gets the same server stateid, which libnfs 4.0 keeps per open as if it
 * were its own: a close of one then breaks the other (NFS4ERR_BAD_SEQID).
 */
typedef struct nopen {
	struct nopen *next;
	struct nfsfh *fh;
	uint64_t ino;
	unsigned refs;
} nopen;

/* A backend handle: a file open through libnfs, or a directory (named by its path: listings reopen it). */
typedef struct nfile {
	struct nfsfh *fh; /* NULL for a directory */
	char *path;       /* "/"-rooted path beneath the client's mount, for by-path calls on the handle */
	nopen *share;     /* NFSv4: the open it shares (fh is its fh); NULL on NFSv3 */
	bool dir;
} nfile;

typedef struct nfs_client {
	nfs_backend *nb;
	struct nfs_context *nfs;
	char *mount;     /* the export path this state mounted (target path + client dir) */
	uint64_t rmax, wmax;
	nreq *live;      /* requests libnfs still holds a callback of (doubly linked) */
	nopen *opens;    /* NFSv4: the files open through this state */
	struct nfs_context *side; /* NFSv4: a second mount of the same directory for SETATTR by path (rp__nfs_side) */
	uint64_t completed; /* engine requests completed so far (poll counts them) */
	bool lost;       /* the connection is gone: every request fails EIO, the engine stops the client */
	char lost_msg[RP_ERRBUF_SIZE];
	char *wbuf;      /* the write pattern (0x5a), RP_NFS_IO_MAX bytes */
	char *zbuf;      /* zeros, for prepare --prepare-fill=zero */
} nfs_client;

/* nfs.c: the event loop. */
/* Wait for and run libnfs completions, up to timeout_ns; returns the engine requests completed (0 on timeout). */
int rp__nfs_wait(nfs_client *c, uint64_t timeout_ns);
/*
 * NFSv4: the context that sets attributes by path, mounted on first use
 * (NULL, and the client lost, when it cannot be).  libnfs 4.0 sets them
 * through an OPEN and CLOSE of its own that would break the open-owner of
 * the main context (nfs_ops.c); a context of its own has its own.
 */
struct nfs_context *rp__nfs_side(nfs_client *c);
/* The connection failed for good: say so once (with libnfs's error), fail what is in flight. */
void rp__nfs_lose(nfs_client *c, const char *what);

/* nfs_ops.c: one engine request through libnfs; completes it (req->cb) now or from rp__nfs_wait. */
void rp__nfs_start(nfs_client *c, rp_breq *req);
/* Requests libnfs still holds at the end: completed (EIO) without touching libnfs, freed after the context is. */
void rp__nfs_orphan_all(nfs_client *c);
void rp__nfs_free_orphans(nfs_client *c);
/* Close a backend handle without a trace op (synchronously; a lost connection just frees it). */
void rp__nfs_release(nfs_client *c, uint64_t bh);
#endif

#endif
