/* Internal to the nfsdump text reader: one line's record, the pending call, and the layers' entry points. */
#ifndef REPRISE_CAPTURE_RPC_NFSDUMP_INT_H
#define REPRISE_CAPTURE_RPC_NFSDUMP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/nfsdump.h"
#include "capture/rpc/rpc.h"

/*
 * The layers call down only: nfsdump_file.c (files, gunzip, lines) ->
 * nfsdump.c (the decoder: times, pairing, the pending calls) ->
 * nfsdump_ops.c (a record as an op, a reply's lessons for the handle map) and
 * nfsdump_line.c (a line as a record).
 */

/* A name (LOOKUP's, a symlink's target) longer than this is corruption. */
#define ND_NAME_MAX 4096u
/* Attribute sets a reply may print: the object's, then a directory's (LOOKUP, CREATE, LINK). */
#define ND_ATTRS 2

/* Procedures of both versions, numbered as NFSv3's (RFC 1813) where v3 has them. */
typedef enum nd_proc {
	ND_NULL = 0, ND_GETATTR = 1, ND_SETATTR = 2, ND_LOOKUP = 3, ND_ACCESS = 4, ND_READLINK = 5, ND_READ = 6,
	ND_WRITE = 7, ND_CREATE = 8, ND_MKDIR = 9, ND_SYMLINK = 10, ND_MKNOD = 11, ND_REMOVE = 12, ND_RMDIR = 13,
	ND_RENAME = 14, ND_LINK = 15, ND_READDIR = 16, ND_READDIRPLUS = 17, ND_FSSTAT = 18, ND_FSINFO = 19,
	ND_PATHCONF = 20, ND_COMMIT = 21,
	ND_ROOT, ND_WRITECACHE, /* NFSv2 only, obsolete (RFC 1094 2.2.4, 2.2.7) */
	ND_BAD,                 /* a number neither version has, or a name that is not the number's */
} nd_proc;

typedef struct nd_str {
	const char *p;
	uint32_t len;
} nd_str;

/* Attribute-set bits (nd_attr.have). */
enum {
	NA_FTYPE = 1u << 0, NA_MODE = 1u << 1, NA_UID = 1u << 2, NA_GID = 1u << 3, NA_SIZE = 1u << 4,
	NA_FSID = 1u << 5, NA_ATIME = 1u << 6, NA_MTIME = 1u << 7,
	NA_ATIME_SERVER = 1u << 8, NA_MTIME_SERVER = 1u << 9, /* "SERVER": set to the server's time */
};

/* A call's new attributes (sattr) or a reply's attributes (fattr): what the reader uses of them. */
typedef struct nd_attr {
	uint32_t have;
	uint32_t ftype, mode, uid, gid;
	uint64_t size, fsid;
	uint64_t atime, mtime; /* ns since the Unix epoch */
} nd_attr;

/* Record bits (nd_rec.have). */
enum {
	NR_FH = 1u << 0, NR_FH2 = 1u << 1, NR_NAME = 1u << 2, NR_NAME2 = 1u << 3, NR_TARGET = 1u << 4,
	NR_OFF = 1u << 5, NR_COUNT = 1u << 6, NR_MAXCNT = 1u << 7, NR_HOW = 1u << 8, NR_STABLE = 1u << 9,
	NR_COOKIE = 1u << 10, NR_ACC = 1u << 11, NR_EUID = 1u << 12,
};

/* One line, as far as the reader uses it.  Strings point into the line. */
typedef struct nd_rec {
	uint64_t ts_ns; /* the line's time, Unix ns */
	uint32_t src_ip, dst_ip;
	uint16_t src_port, dst_port;
	bool udp, call;
	uint8_t vers; /* 2 or 3 */
	uint32_t xid;
	nd_proc proc;
	uint32_t status; /* a reply's: 0 OK, else the nfsstat */
	bool short_packet; /* "SHORT PACKET": the arguments are lost */
	uint32_t have;   /* NR_* */
	uint8_t fh_len, fh2_len;
	uint8_t fh[RP_NFS3_FHSIZE], fh2[RP_NFS3_FHSIZE];
	nd_str name, name2, target;
	uint64_t off, cookie;
	uint32_t count, maxcnt, how, stable, acc, euid;
	unsigned n_attrs;
	nd_attr attr[ND_ATTRS];
	uint32_t bad_values; /* fields ignored: their value could not be read */
	uint32_t absurd;     /* values past the limits */
	bool v2_time;        /* a time printed %d.%d */
} nd_rec;

/*
 * Parse one line (no '\n', no NUL) into r: 1 a record, 0 no record (garbage),
 * -1 a comment or blank line.  Never reads past len.
 */
int rp__nd_parse(const char *line, size_t len, nd_rec *r);
/* Whether the first record line of head looks like nfsdump's (a file's first bytes, maybe cut mid-line). */
bool rp__nd_sniff(const char *head, size_t len);
/* "sec.usec" as Unix ns; with v2, 1 to 6 fraction digits (NFSv2's %d.%d, *v2 set when not 6). */
bool rp__nd_time(const char *p, size_t n, bool v2, uint64_t *ns, bool *v2_form);

/* A call waiting for its reply: what the reply needs of it. */
typedef struct nd_pending {
	rp_slot slot; /* RP_SLOT_NONE: no op (NULL, short, unsupported, skipped) */
	nd_proc proc;
	bool provisional; /* the op's path went through a handle not yet named: made again at the reply */
	uint8_t fh_len, fh2_len;
	uint16_t name_len, name2_len; /* 0 when absent or too long for the map (the op keeps them) */
	uint64_t count; /* the call's count: a reply's larger one is absurd */
	uint8_t fh[RP_NFS3_FHSIZE], fh2[RP_NFS3_FHSIZE];
	char name[RP_NFS_NAME_MAX], name2[RP_NFS_NAME_MAX];
} nd_pending;

/* Servers whose last file system id is remembered (direct-mapped: a trace has a few servers, a hostile one no more). */
#define ND_SERVERS 1024

/* What the op layer needs of the decoder. */
typedef struct nd_ctx {
	rp_capctx *cx;
	rp_fhmap *map;
	rp_nfsdump_stats *st;
	uint64_t server; /* the record's server (address << 16 | port), set by the decoder */
	/* each server's last fsid, for a handle used before its own attributes show (key 0: none) */
	uint64_t srv_key[ND_SERVERS], srv_fsid[ND_SERVERS];
} nd_ctx;

/*
 * The op a call describes into op (status unknown), and what its reply needs
 * into p.  false: no op (p->slot stays RP_SLOT_NONE; the reason counted).
 */
bool rp__nd_call_op(nd_ctx *c, const nd_rec *r, uint32_t client, uint64_t t_start, rp_op *op, nd_pending *p);
/* A reply: op (NULL when it has left) completed, and the handle map taught. */
void rp__nd_reply(nd_ctx *c, const nd_rec *r, const nd_pending *p, rp_op *op, uint64_t t_end);

#endif
