/*
 * The smb backend's pure helpers (no libsmbclient): the target URL, smb:// URLs
 * of trace paths, the credentials file and the status of a libsmbclient errno.
 */
#ifndef REPRISE_REPLAY_SMB_UTIL_H
#define REPRISE_REPLAY_SMB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A host name is at most 253 characters (RFC 1035); with brackets and a v6 zone, this is ample. */
#define RP_SMB_HOST_MAX 260
/* SMB2 share names are at most 80 characters (MS-SMB2 2.2.9 / Samba); UTF-8 may take 4 bytes each. */
#define RP_SMB_SHARE_MAX 320
/* An smb:// URL (base plus a trace path, every byte of it possibly %XX-encoded) longer than this is refused. */
#define RP_SMB_URL_MAX 4096
/* A user, password or domain: Samba's own buffers are 256 bytes (libsmbclient's auth callback). */
#define RP_SMB_CRED_MAX 255
/* An auth file holds three short lines; anything bigger than this is not one. */
#define RP_SMB_AUTHFILE_MAX (64u * 1024u)

typedef struct rp_smb_target {
	char host[RP_SMB_HOST_MAX + 1];  /* as given: a name, an IPv4 address or a [v6] literal */
	unsigned port;                   /* 0: the default (445) */
	char share[RP_SMB_SHARE_MAX + 1]; /* decoded */
	char dir[RP_SMB_URL_MAX];         /* decoded, '/'-separated, no "", "." or ".." components ("" = the share) */
	char base[RP_SMB_URL_MAX];        /* smb://host[:port]/share[/dir], every component %XX-encoded */
	size_t base_len;
} rp_smb_target;

/*
 * Parse smb://host[:port]/share[/dir] (%XX escapes decoded).  Refuses, with
 * the reason: another scheme, credentials in the URL (they go in --user or an
 * auth file, never in a URL a report repeats), a query or fragment, no share,
 * a bad port, a ".." in dir (replay never reaches above its target).
 */
int rp__smb_target_parse(const char *target, rp_smb_target *t, char *errbuf);

/*
 * Append "/" and path (a replay path: '/'-separated components) to the URL of
 * len bytes in url, every byte outside RFC 3986's unreserved set and '/'
 * %XX-encoded, so a name with '%', '#', '?', ';', '@', spaces or non-ASCII
 * bytes names itself.  "" appends nothing.  Returns the new length, or
 * -ENAMETOOLONG when it does not fit cap (url keeps its old contents).
 */
int rp__smb_url_join(char *url, size_t cap, size_t len, const char *path);

/*
 * Whether a replay path holds a byte SMB reads as syntax or reserves in a
 * name (MS-FSCC 2.1.5.2: 0x01-0x1F, '"', '*', ':', '<', '>', '?', '\', '|';
 * '/' separates the components): a backslash is SMB's separator, so
 * "..\x" would climb out of the target on the server, and ':' names a
 * stream.  Legal in POSIX and NFS names; the backend refuses them (EXDEV).
 */
bool rp__smb_path_reserved(const char *path);

typedef struct rp_smb_creds {
	char user[RP_SMB_CRED_MAX + 1];
	char password[RP_SMB_CRED_MAX + 1];
	char domain[RP_SMB_CRED_MAX + 1];
	bool has_user, has_password, has_domain;
} rp_smb_creds;

/*
 * Parse an auth file in smbclient's format (smbclient(1) -A): lines
 * "username = U", "password = P", "domain = D"; blank lines and lines
 * starting with '#' or ';' are skipped; spaces around the '=' and at the
 * line's end are not part of the value.  Fills what the file gives.  Errors
 * name the file and line ("auth: 3: ..."), never a password's text.
 */
int rp__smb_authfile_parse(const char *buf, size_t len, const char *name, rp_smb_creds *c, char *errbuf);

/*
 * Parse the smb backend's "user" option, smbclient -U's form
 * [DOMAIN\]USER[%PASS] (DOMAIN/USER too): the first '%' ends USER and
 * the rest is PASS, whatever it holds (an empty one is none: the auth
 * file's or $REPRISE_SMB_PASSWORD then); in what comes before it, the first
 * '\' or '/' ends DOMAIN.  Fills user, and domain and password when given.
 * RP_E_INVAL without a user name or with an empty DOMAIN, RP_E_LIMIT for a
 * part over RP_SMB_CRED_MAX bytes; errors never quote the text.
 */
int rp__smb_user_parse(const char *text, rp_smb_creds *c, char *errbuf);

/* The canonical status of an errno libsmbclient set (it maps NTSTATUS to Linux errno values). */
int32_t rp__smb_status(int err);

/* Whether that errno means the connection to the server is gone or never came (the run cannot go on). */
bool rp__smb_conn_lost(int err);

#endif
