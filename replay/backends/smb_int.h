/* The smb backend's insides, shared by smb.c (connections, files, data) and smb_names.c (ops by name). */
#ifndef REPRISE_REPLAY_SMB_INT_H
#define REPRISE_REPLAY_SMB_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <libsmbclient.h>

#include "replay/backend.h"
#include "replay/backends/smb_util.h"
#include "replay/backends/smb_sock.h"

/*
 * What costs requests the recorded op did not make (docs/replay.md, "SMB
 * backend"): counted per reason, in the summary and the JSON's fallbacks.
 */
typedef enum rp_smb_fb {
	RP_SMB_FB_CONFIRM,     /* an open no op used: a stat (CREATE, QUERY_INFO, CLOSE) says it is there */
	RP_SMB_FB_AGAIN,       /* a second by-name call on a handle: a CREATE and CLOSE of its own */
	RP_SMB_FB_NOREPLACE,   /* a no-replace rename recorded failing: a stat asks first */
	RP_SMB_FB_SHARE,       /* a rename or delete of a name this client holds open, retried with it closed */
	RP_SMB_FB_SYMLINK,     /* a directory listed once to check it is no symlink the server follows */
	RP_SMB_FB_STATFS,      /* libsmbclient's statfs: the share root's size and attributes, each by name */
	RP_SMB_FB_TIMES,       /* a setattr of one time: the other read first (a stat) */
	RP_SMB_FB_WRONLY,      /* a query of a write-only handle, by name */
	RP_SMB_FB_DOC,         /* delete-on-close set on a handle with data: the delete by name after the close */
	RP_SMB_FB_RETRY_RO,    /* an open of unrecorded access refused read-write, then read-only */
	RP_SMB_FB_CHECK,       /* the target asked after (a stat) when the connection's first op failed */
	RP_SMB_FB__COUNT
} rp_smb_fb;

typedef struct smb_backend {
	rp_smb_target t;
	rp_smb_creds creds; /* what the options, the auth file and the environment gave */
	int timeout_ms;
	/*
	 * The server's addresses (learned under smbc_mu and peers_mu, read by
	 * the watchdog under peers_mu), and the errno that said it stopped
	 * answering (0: it answers).
	 */
	rp_smb_peers peers;
	pthread_mutex_t peers_mu;
	_Atomic int gone;
	/*
	 * The watchdog (smb.c): when the call holding smbc_mu began (monotonic
	 * ns, 0: none), so a request unanswered for timeout_ms cuts every
	 * connection to the server within about one timeout, whatever
	 * libsmbclient does next (an ECHO, a reconnect: each its own wait).
	 */
	_Atomic uint64_t call_ns;
	_Atomic bool quit;
	bool watching;
	_Atomic uint64_t fb[RP_SMB_FB__COUNT]; /* rp_smb_fb */
	_Atomic uint64_t as_recorded;          /* ops that cost none of them */
	pthread_t watchdog;
} smb_backend;

/* A listing of at most this many entries is kept for statfs when the connection keeps none (smb_names.c). */
#define SMB_VFS_KEEP_MAX 1024u

typedef struct smb_file smb_file;
struct smb_dirs; /* smb_beneath.c */

/*
 * One connection: a libsmbclient context, which is one SMB session and tree
 * connect on the server.  The files a context opened (SMBCFILE) exist in it
 * alone, so a handle's calls go through its own connection whichever client
 * state submits them; files keep their connection alive (refs), since a
 * backend handle outlives the client state that made it when a forked client
 * inherits it.  Everything in it is used under smbc_mu.
 */
typedef struct smb_conn {
	_Atomic unsigned refs; /* the client state's, plus one per open file */
	SMBCCTX *ctx;
	smb_backend *sb;
	char base[RP_SMB_URL_MAX]; /* smb://host/share[/dir]/clientdir, encoded */
	size_t base_len;
	char url[RP_SMB_URL_MAX], url2[RP_SMB_URL_MAX]; /* scratch, under smbc_mu */
	char *buf;                                      /* I/O buffer, under smbc_mu */
	size_t buf_size;
	smb_file *files; /* its open files, under smbc_mu (delete-on-close, renames) */
	int lost;        /* the errno that said the server is gone; every later op fails fast with it */
	struct smb_dirs *dirs; /* the directories checked not to be symlinks (smb_beneath.c), under smbc_mu */
	SMBCFILE *vfs_dir;     /* a listing kept for statfs (rp__smb_statfs), under smbc_mu */
	bool extra;            /* the op being done cost a request the trace lacks (under smbc_mu) */
	bool checked;          /* the target's directory is known to be there (smb.c, conn_check) */
	_Atomic int bad;       /* the errno that said the target is not there: the client cannot go on */
} smb_conn;

/* What a backend handle points at. */
struct smb_file {
	smb_conn *conn;
	SMBCFILE *fh;  /* NULL for a directory: libsmbclient holds no directory open (SMB2 CREATE of it is per call) */
	char *path;    /* relative to the connection's base, for the calls libsmbclient takes by name */
	bool dir;
	bool doc;      /* delete when the last of the client's handles to it closes (the server cannot be asked) */
	bool nt;       /* opened with NT semantics (rp_open_flag nt) */
	bool append;   /* O_APPEND: writes go to the end */
	bool parked;   /* closed on the server for a rename or delete of its name (park) */
	/*
	 * Opened on the server by its first op, not at its open: a directory
	 * (libsmbclient holds none open) or a file opened for no data (to
	 * delete, rename or query it), which the trace recorded as opening.
	 * used: an op has gone by its name since (the next one is a CREATE
	 * the trace lacks).
	 */
	bool lazy;
	bool used;
	uint64_t listed_n, listed_given; /* the enumeration begun: entries the listing had, and given so far */
	int acc;       /* the O_ACCMODE it was opened with, to open it again after a park */
	bool can_read; /* opened with read access (the server checks writes; reads of a write-only open are ours) */
	bool listed;   /* an enumeration of pattern has begun on it */
	char *pattern;
	smb_file *prev, *next;
};

typedef struct smb_client {
	smb_conn *conn;
} smb_client;


/* The URL of path beneath the connection's base, in buf (RP_SMB_URL_MAX bytes); 0 or ENAMETOOLONG. */
int rp__smb_url(const smb_conn *cn, char *buf, const char *path);
/* A failed call's errno as the op's status; a connection that went marks the connection lost. */
int rp__smb_failed(smb_conn *cn);
/* The op costs a request the trace lacks, for reason. */
void rp__smb_extra(smb_conn *cn, rp_smb_fb reason);
/* A statfs (f: the op's handle, NULL for one by path): 0 or an errno. */
int rp__smb_statfs(smb_conn *cn, smb_file *f);
/* The backend's report hook (rp_backend_ops.report). */
void rp__smb_report(void *backend, rp_backend_report *out);
/* The hint after a failed connect's or target check's errno text ("" when none fits). */
const char *rp__smb_conn_hint(const smb_backend *sb, int err);
/* After an op (err its errno): whether it showed the target there, else asks (smb_beneath.c). */
void rp__smb_conn_check(smb_conn *cn, const rp_breq *req, int err);
/* 0, or the rp error of a target found missing by rp__smb_conn_check (what the client stops with). */
int rp__smb_conn_bad(smb_conn *cn, char *errbuf);

/* A by-name call for handle f (NULL: none): its second and later are counted (RP_SMB_FB_AGAIN). */
void rp__smb_by_handle(smb_conn *cn, smb_file *f);
/* Remove what path names (a file, else a directory; dir: a directory): delete-on-close's act, and deltree's; ENOENT is 0. */
int rp__smb_remove_path(smb_conn *cn, const char *path, bool dir);

/*
 * smb_beneath.c.  Whether path's directories (and its last component too,
 * with last, when it is a directory) are the directories their names say, not
 * symlinks the server follows: 0, EXDEV (an escape) or the errno of a call
 * that failed.  A directory is listed once per connection, until forgotten.
 */
int rp__smb_beneath(smb_conn *cn, const char *path, bool last);
/* Whether the directory path has its verdict (checked, not forgotten since). */
bool rp__smb_beneath_known(smb_conn *cn, const char *path);
/*
 * The check of the directory path itself from a listing of it the op made
 * anyway (its "." and ".." FileIds, has_ids: both listed), its parents
 * checked before (rp__smb_beneath without last): 0 or EXDEV; without the
 * parent's verdict, rp__smb_beneath's own check (a listing of its own).
 */
int rp__smb_beneath_listed(smb_conn *cn, const char *path, bool has_ids, uint64_t self, uint64_t parent);
/* The base's FileId, from the connection's own stat of it: no stat again for the first check. */
void rp__smb_beneath_seed(smb_conn *cn, uint64_t base_id);
/*
 * The connection's mkdir made the directory path (FILE_CREATE succeeded: a
 * new directory, no symlink), its parent checked: no listing of it for the
 * check; its FileId is asked only when a directory in it is checked.
 */
void rp__smb_beneath_made(smb_conn *cn, const char *path);
/* The trace removed or renamed path: its verdict and those of everything beneath it go. */
void rp__smb_beneath_forget(smb_conn *cn, const char *path);
void rp__smb_beneath_free(smb_conn *cn);
/* The FileIds of the "." and ".." entries of a listing of the directory at url: 0, EXDEV without them, or an errno. */
int rp__smb_dir_ids(smb_conn *cn, const char *url, uint64_t *self, uint64_t *parent);

/* smb_clean.c, under smbc_mu: --cleanup's walk beneath the base and one entry's removal (0 or an errno). */
int rp__smb_walk(smb_conn *cn, int (*fn)(void *arg, const rp_backend_entry *e), void *arg, char *errbuf);
int rp__smb_unlink_path(smb_conn *cn, const char *path, bool dir);

/* smb_names.c.  f: the op's handle, NULL for one by path. */
int rp__smb_setattr(smb_conn *cn, rp_breq *req, smb_file *f);
int rp__smb_readdir(smb_conn *cn, rp_breq *req, smb_file *f);
/* stat, lookup, access, statfs, unlink, mkdir, rmdir, rename, deltree of req->path. */
int rp__smb_by_name(smb_conn *cn, rp_breq *req);

#endif
