/* Internals shared by the SMB decoders: tables, per-connection state, string helpers (MS-SMB2, MS-CIFS). */
#ifndef REPRISE_CAPTURE_SMB_INT_H
#define REPRISE_CAPTURE_SMB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/decode.h"
#include "formats/semantics.h"

/* ---- a small open-addressing hash map: 24-byte keys -> fixed-size values ---- */

typedef struct smb_key {
	uint64_t a, b, c;
} smb_key;

typedef struct rp_smb_map rp_smb_map;

/* vfree (may be NULL) releases what a value points to, on delete and destroy. */
rp_smb_map *rp__smb_map_create(size_t value_size, void (*vfree)(void *value));
void rp__smb_map_destroy(rp_smb_map *m); /* NULL is a no-op */
void *rp__smb_map_get(const rp_smb_map *m, const smb_key *k);
/* The value for k, zeroed when new (*fresh = true); NULL when out of memory. */
void *rp__smb_map_put(rp_smb_map *m, const smb_key *k, bool *fresh);
void rp__smb_map_del(rp_smb_map *m, const smb_key *k);
/* Delete the entry whose value rp__smb_map_get/put returned (no change to m since). */
void rp__smb_map_del_value(rp_smb_map *m, void *value);
size_t rp__smb_map_count(const rp_smb_map *m);
/* Iterate: *pos starts at 0; returns the next value (and its key) or NULL at the end.
 * Deleting the entry just returned is allowed when the caller then restarts at *pos - 1. */
void *rp__smb_map_next(const rp_smb_map *m, size_t *pos, smb_key *key);

/* ---- per-capture state shared by SMB1 and SMB2 ---- */

/* What reprise knows of an open file: SMB2 FileId or SMB1 (conn, FID). */
enum smb_file_flag {
	SMB_FILE_DIR = 1u << 0,   /* opened as a directory */
	SMB_FILE_SYNTH = 1u << 1, /* never seen opened: synthetic path, opened lazily at replay */
	SMB_FILE_PIPE = 1u << 2,  /* a named pipe on an IPC$ tree (DCE/RPC plumbing, not file I/O) */
};

typedef struct smb_file {
	uint64_t handle; /* trace-local id */
	uint32_t path;   /* string id */
	uint32_t flags;  /* smb_file_flag */
	char *path_text; /* NUL-terminated, owned */
} smb_file;

typedef struct smb_tree {
	bool pipe; /* IPC$ (share type PIPE) */
} smb_tree;

typedef struct rp_smb_state {
	rp_smb_map *files; /* smb_key -> smb_file */
	rp_smb_map *trees; /* (kind, session/uid, tree id) -> smb_tree */
	uint64_t trees_gen; /* bumped on every change to trees: connections cache answers from it */
	uint64_t next_handle;
} rp_smb_state;

rp_smb_state *rp__smb_state(rp_capctx *cx);

static inline smb_key smb2_file_key(uint64_t persistent, uint64_t volatile_id)
{
	return (smb_key){ persistent, volatile_id, 0 };
}

static inline smb_key smb1_file_key(uint64_t conn_id, uint16_t fid)
{
	return (smb_key){ conn_id, fid, 1 };
}

/* The file for key, or NULL when it was never opened in the capture. */
smb_file *rp__smb_file_get(rp_capctx *cx, const smb_key *k);
/* A fresh file (new handle id) for key, replacing any older one; path may be NULL. */
smb_file *rp__smb_file_open(rp_capctx *cx, const smb_key *k, const char *path, uint32_t flags);
/* The same for a path already interned as path_id (0: intern it) whose owned copy *text the file
 * takes over (*text becomes NULL; with a NULL *text the path is copied). */
smb_file *rp__smb_file_open_taking(rp_capctx *cx, const smb_key *k, char **text, const char *path,
				   uint32_t path_id, uint32_t flags);
/* The file for key, synthesising a path (RP_OPF_SYNTH_PATH) when it was never opened. */
smb_file *rp__smb_file_use(rp_capctx *cx, const smb_key *k, const char *proto);
void rp__smb_file_close(rp_capctx *cx, const smb_key *k);
/* Give a file a new path (after a rename). */
void rp__smb_file_rename(rp_capctx *cx, smb_file *f, const char *path);
/* Put a file's handle (and its path, when the file was never opened) on an op. */
void rp__smb_op_file(rp_op *op, const smb_file *f);

/* ---- strings ---- */

/* Longest path kept; a longer one is counted invalid (NTFS names stop at 32767 UTF-16 units). */
#define SMB_PATH_MAX 4096

/*
 * Convert a wire name to a reprise path in out (SMB_PATH_MAX bytes): UTF-16LE
 * (utf16) or OEM bytes (read as Latin-1), '\' -> '/', one leading '/', no
 * trailing '/' except for the root.  Returns the length or -1 when too long.
 */
int rp__smb_path(char *out, const uint8_t *s, size_t n, bool utf16);
/* Join a directory and a name: "/" and "x" give "/x", "/a" and "b" give "/a/b"; -1 when too long. */
int rp__smb_join(char *out, const char *dir, const char *name);

/* A malloc'd copy of a NUL-terminated string (NULL when out of memory): pending paths, file tables. */
char *rp__smb_strdup(const char *s);

/* Interned path id (0 on error) for a NUL-terminated path. */
uint32_t rp__smb_intern(rp_capctx *cx, const char *path);

/* ---- the common op skeleton ---- */

/* An op as a request tells it: times, client, unknown status, RP_OPF_NO_REPLY. */
rp_op rp__smb_op(rp_capctx *cx, const rp_conn *conn, const rp_msg *m, uint64_t principal, rp_proto proto,
		 unsigned opcode);
/* Complete a reserved op with the reply's status and time. */
void rp__smb_complete(rp_capctx *cx, rp_op *op, const rp_msg *m, uint32_t ntstatus);

/* A slot list: one request may become several ops (LOCK elements). */
typedef struct smb_slots {
	rp_slot one;
	rp_slot *more; /* owned */
	uint32_t n;    /* slots in all: one, then more[0..n-2] */
} smb_slots;

bool rp__smb_slots_add(smb_slots *s, rp_slot slot);
rp_slot rp__smb_slots_at(const smb_slots *s, uint32_t i);
void rp__smb_slots_free(smb_slots *s);

/* ---- the two dialect decoders ---- */

/*
 * SMB2: the FileIds the latest CREATE responses carried, by MessageId, for
 * related operations whose response comes after their CREATE's (MS-SMB2
 * 3.2.4.1.4).  That is within one compound's round trip, so a small ring
 * indexed by MessageId is enough, and its size bounds the memory per connection.
 */
#define SMB2_RECENT 256
typedef struct smb2_recent {
	uint64_t mid_plus1; /* 0: empty */
	smb_key fid;
} smb2_recent;

struct smb3_conn;

/* Per-connection SMB state (conn->proto_state); each dialect creates its maps on first use. */
typedef struct smb_conn {
	rp_smb_map *pending2; /* SMB2: MessageId -> smb2_pending */
	smb2_recent *recent2; /* SMB2: SMB2_RECENT entries, or NULL before the first CREATE response */
	rp_smb_map *pending1; /* SMB1: (MID, PID, UID, TID, chain index) -> smb1_pending */
	rp_smb_map *search1;  /* SMB1: (UID, TID, SID) -> search pattern */
	uint64_t sweep_at;    /* pending entries at which to look for timed-out ones next */
	rp_smb_state *st;     /* the capture's SMB state, once looked up (it outlives connections) */
	/* The last tree asked about: is it IPC$?  Valid while st->trees_gen is tree_gen. */
	uint64_t tree_session, tree_gen;
	uint32_t tree_id;
	bool tree_known, tree_pipe;
	struct smb3_conn *crypt; /* SMB3 decryption state (smb3_crypt.c), only when keys were given */
} smb_conn;

smb_conn *rp__smb_conn(rp_conn *conn);
/*
 * Drop pending requests older than the match timeout (capctx has emitted
 * their ops as unmatched).  The map's values hold their request's capture
 * time as a uint64_t at t_req_off.  Looks only once the map has grown to
 * *sweep_at entries, then sets *sweep_at to twice what is left (at least 64).
 */
void rp__smb_sweep(rp_capctx *cx, rp_smb_map *pending, size_t t_req_off, uint64_t *sweep_at);


/* NT create values, the same in SMB2 CREATE and SMB1 NT_CREATE_ANDX (MS-SMB2 2.2.13, MS-CIFS 2.2.4.64.1). */
#define FILE_SUPERSEDE 0u    /* CreateDisposition */
#define FILE_OPEN 1u
#define FILE_CREATE 2u
#define FILE_OPEN_IF 3u
#define FILE_OVERWRITE 4u
#define FILE_OVERWRITE_IF 5u
#define FILE_DIRECTORY_FILE 0x00000001u      /* CreateOptions */
#define FILE_ATTRIBUTE_DIRECTORY 0x00000010u /* FileAttributes */

/*
 * The values of a set-info buffer of MS-FSCC class `cls` (rp_sem_nt_class of
 * the SMB1 level), for rp_sem_nt_setinfo: FileBasicInformation (2.4.7),
 * FileEndOfFileInformation (2.4.13), FileAllocationInformation (2.4.4),
 * FileDisposition(Ex)Information (2.4.11, 2.4.11.2); SMB1's SMB_SET_FILE_*
 * levels have the same layouts.  False when the buffer is too short for its
 * class; other classes read nothing.
 */
bool rp__smb_setinfo_decode(uint32_t cls, rp_cur *buf, rp_nt_setinfo *v);

/* NTSTATUS values the decoders look at. */
#define NT_STATUS_OK 0x00000000u
#define NT_STATUS_PENDING 0x00000103u
#define NT_STATUS_BUFFER_OVERFLOW 0x80000005u
#define NT_STATUS_NO_MORE_FILES 0x80000006u
#define NT_STATUS_UNSUCCESSFUL 0xC0000001u
#define NT_STATUS_MORE_PROCESSING_REQUIRED 0xC0000016u

/* Success and informational severities: the reply body is the command's own. */
static inline bool nt_success(uint32_t st) { return (st >> 30) <= 1; }

#endif
