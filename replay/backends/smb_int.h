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
	pthread_t watchdog;
} smb_backend;

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
/* Remove what path names (a file, else a directory): delete-on-close's act, and deltree's; ENOENT is 0. */
int rp__smb_remove_path(smb_conn *cn, const char *path);

/*
 * smb_beneath.c.  Whether path's directories (and its last component too,
 * with last, when it is a directory) are the directories their names say, not
 * symlinks the server follows: 0, EXDEV (an escape) or the errno of a call
 * that failed.  A directory is listed once per connection, until forgotten.
 */
int rp__smb_beneath(smb_conn *cn, const char *path, bool last);
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
