/* The nfs backend's pure helpers: the target URL's form (libnfs 4.0's nfs:// URLs), statuses, listing patterns. */
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "formats/status.h"

/* The URL options libnfs 4.0 reads (libnfs.h), and whether each takes a number. */
static const struct {
	const char *key;
	bool number;
} url_keys[] = {
	{ "version", true },  { "nfsport", true },	{ "mountport", true },		  { "uid", true },
	{ "gid", true },      { "tcp-syncnt", true }, { "readahead", true },	  { "dircache", true },
	{ "auto-traverse-mounts", true }, { "debug", true }, { "if", false },
};

static bool all_digits(const char *s, size_t n)
{
	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int rp__nfs_url_check(const char *url, rp_nfs_url_info *info, char *errbuf)
{
	info->version = 3;
	info->nfsport = info->mountport = 0;
	const size_t len = strlen(url);
	if (len > RP_NFS_URL_MAX)
		return rp_fail(errbuf, RP_E_INVAL, "nfs target: longer than %u bytes", RP_NFS_URL_MAX);
	if (strncasecmp(url, "nfs://", 6) != 0)
		return rp_fail(errbuf, RP_E_INVAL, "%s: not an nfs:// URL", url);
	const char *const host = url + 6;
	const char *const q = strchr(host, '?');
	const char *const slash = strchr(host, '/');
	if (!slash || (q && slash > q) || slash == host)
		return rp_fail(errbuf, RP_E_INVAL, "%s: the URL is nfs://HOST/EXPORT[/DIR][?OPTIONS]", url);
	const char *const path_end = q ? q : url + len;
	if (path_end - slash < 2)
		return rp_fail(errbuf, RP_E_INVAL, "%s: no export path (nfs://HOST/EXPORT)", url);
	if (!q)
		return 0;
	for (const char *p = q + 1; *p;) {
		const char *const amp = strchr(p, '&');
		const size_t item = amp ? (size_t)(amp - p) : strlen(p);
		const char *const eq = memchr(p, '=', item);
		const size_t klen = eq ? (size_t)(eq - p) : item;
		const char *const val = eq ? eq + 1 : NULL;
		const size_t vlen = eq ? item - klen - 1 : 0;
		size_t k = 0;
		while (k < sizeof(url_keys) / sizeof(url_keys[0]) &&
		       (strlen(url_keys[k].key) != klen || strncmp(url_keys[k].key, p, klen) != 0))
			k++;
		if (klen == 13 && strncmp(p, "autoreconnect", 13) == 0)
			return rp_fail(errbuf, RP_E_INVAL,
				       "%s: autoreconnect is the backend's own (0: a server that goes away ends the run)", url);
		if (k == sizeof(url_keys) / sizeof(url_keys[0]))
			return rp_fail(errbuf, RP_E_INVAL, "%s: unknown option '%.*s' (libnfs takes version, nfsport, mountport, "
							   "uid, gid, tcp-syncnt, readahead, dircache, auto-traverse-mounts, debug, if)",
				       url, (int)(klen < 64 ? klen : 64), p);
		if (!val || vlen == 0 || (url_keys[k].number && !all_digits(val, vlen)))
			return rp_fail(errbuf, RP_E_INVAL, "%s: option %s needs %s", url, url_keys[k].key,
				       url_keys[k].number ? "a decimal number" : "a value");
		if (k == 0) {
			if (vlen != 1 || (val[0] != '3' && val[0] != '4'))
				return rp_fail(errbuf, RP_E_INVAL, "%s: version=%.*s: libnfs speaks NFS version 3 or 4", url,
					       (int)(vlen < 16 ? vlen : 16), val);
			info->version = val[0] - '0';
		} else if (k == 1 || k == 2) {
			unsigned long port = 0;
			for (size_t i = 0; i < vlen; i++)
				port = port * 10 + (unsigned long)(val[i] - '0');
			if (port == 0 || port > 65535)
				return rp_fail(errbuf, RP_E_INVAL, "%s: %s=%.*s: a port is 1..65535", url, url_keys[k].key,
					       (int)(vlen < 16 ? vlen : 16), val);
			*(k == 1 ? &info->nfsport : &info->mountport) = (unsigned)port;
		}
		p += item + (amp != NULL);
	}
	return 0;
}

int32_t rp__nfs_status(int rc)
{
	if (rc >= 0)
		return 0;
	/* libnfs returns -errno; anything past the errno range is no errno at all. */
	return rc < -4095 ? RP_STATUS_OTHER : -rc;
}

unsigned rp__nfs_setattr_steps(uint32_t a)
{
	unsigned s = 0;
	s |= a & (RP_SA_SIZE | RP_SA_ALLOC) ? RP_NFS_SA_SIZE : 0;
	s |= a & RP_SA_MODE ? RP_NFS_SA_MODE : 0;
	s |= a & (RP_SA_UID | RP_SA_GID) ? RP_NFS_SA_OWNER : 0;
	s |= a & (RP_SA_ATIME | RP_SA_MTIME | RP_SA_ATIME_NOW | RP_SA_MTIME_NOW) ? RP_NFS_SA_TIMES : 0;
	return s;
}

void rp__nfs_error_code(const char *lib, char *buf, size_t cap)
{
	static const char *const prefixes[] = { "MNT3ERR_", "NFS3ERR_", "NFS4ERR_" };
	buf[0] = '\0';
	for (size_t i = 0; lib && i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		const char *const at = strstr(lib, prefixes[i]);
		if (!at)
			continue;
		const size_t n = strspn(at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		snprintf(buf, cap, "%.*s", (int)(n < 40 ? n : 40), at);
		return;
	}
}

/* A connection that failed, in words: "nothing listens" for a refusal, else the errno's text. */
static void port_why(char *buf, size_t cap, const char *host, unsigned port, int err, const char *what)
{
	if (err == ECONNREFUSED)
		snprintf(buf, cap, "nothing listens at %s:%u: %s", host, port, what);
	else
		snprintf(buf, cap, "cannot reach %s:%u: %s (%s)", host, port, strerror(err), what);
}

void rp__nfs_mount_why(const rp_nfs_mount_fail *f, char *buf, size_t cap)
{
	char code[48];
	rp__nfs_error_code(f->lib, code, sizeof(code));
	if (strcmp(code, "MNT3ERR_NOENT") == 0) {
		snprintf(buf, cap, "%s has no export %s (%s): check the URL's path (showmount -e %s lists the exports)",
			 f->host, f->path, code, f->host);
	} else if (strcmp(code, "MNT3ERR_ACCES") == 0) {
		/* ganesha answers an export it does not have so too */
		snprintf(buf, cap, "%s refused to mount %s (%s): no such export, or it is not exported to this client "
			 "(showmount -e %s lists the exports)", f->host, f->path, code, f->host);
	} else if (strcmp(code, "NFS4ERR_NOENT") == 0) {
		snprintf(buf, cap, "%s has no %s in its NFSv4 pseudo file system (%s): the URL's path must be an "
			 "export's pseudo path", f->host, f->path, code);
	} else if (strcmp(code, "MNT3ERR_PERM") == 0 || strcmp(code, "NFS3ERR_PERM") == 0 ||
		   strcmp(code, "NFS3ERR_ACCES") == 0 || strcmp(code, "NFS4ERR_PERM") == 0 ||
		   strcmp(code, "NFS4ERR_ACCESS") == 0 || strcmp(code, "NFS4ERR_WRONGSEC") == 0) {
		snprintf(buf, cap, "%s refused this client %s (%s): permission denied; check the export's client list, "
			 "squash and security flavour (AUTH_SYS), or give uid= and gid= in the URL", f->host, f->path, code);
	} else if (code[0]) {
		snprintf(buf, cap, "%s answered %s (%s)", f->host, code, f->lib);
	} else if (f->pmap_err > 0) {
		if (f->pmap_err == ECONNREFUSED)
			snprintf(buf, cap, "no portmapper at %s:111: give nfsport= and mountport= in the URL, or start rpcbind",
				 f->host);
		else
			port_why(buf, cap, f->host, 111, f->pmap_err, "the portmapper: give nfsport= and mountport= in the URL");
	} else if (f->mnt_err > 0) {
		port_why(buf, cap, f->host, f->mountport, f->mnt_err, "no MOUNT service on that port (the URL's mountport=)");
	} else if (f->nfs_err > 0) {
		const unsigned port = f->nfsport ? f->nfsport : 2049;
		port_why(buf, cap, f->host, port, f->nfs_err,
			 f->nfsport ? "no NFS server on that port (the URL's nfsport=)"
				    : "no NFS server on the usual port: start one, or give its port as nfsport= in the URL");
	} else {
		snprintf(buf, cap, "%s", f->lib && f->lib[0] ? f->lib : "libnfs gave no reason");
	}
}

bool rp__nfs_auto_exact(unsigned version, uint32_t protos, uint32_t flags_every, const char **why)
{
	*why = NULL;
	/* prepare's ops have no producer; NFSv4.0 and 4.1 ops look alike (op.proto NFS4) but for the session flag */
	const uint32_t others = protos & ~(1u << RP_PROTO_NONE);
	const uint32_t same = version == 3 ? 1u << RP_PROTO_NFS3 : 1u << RP_PROTO_NFS4;
	if (others != same) {
		const uint32_t other_version = version == 3 ? 1u << RP_PROTO_NFS4 : 1u << RP_PROTO_NFS3;
		if (others == other_version)
			*why = version == 3 ? "chosen by mode=auto: the trace was recorded from NFSv4, and exact mode sends "
					      "an NFSv3 target only what an NFSv3 client sent"
					    : "chosen by mode=auto: the trace was recorded from NFSv3, and exact mode sends "
					      "an NFSv4 target only what an NFSv4.0 client sent";
		else
			*why = version == 3 ? "chosen by mode=auto: not every op of the trace was recorded from NFSv3 "
					      "(a loadfile, SMB or syscalls), and exact mode sends only those"
					    : "chosen by mode=auto: not every op of the trace was recorded from NFSv4.0 "
					      "(a loadfile, SMB or syscalls), and exact mode sends only those";
		return false;
	}
	if (version == 4 && (flags_every & RP_OPF_SESSION)) {
		*why = "chosen by mode=auto: every op of the trace was sent in an NFSv4.1 session, which exact mode "
		       "(NFSv4.0) cannot send";
		return false;
	}
	return true;
}

bool rp__nfs4_seqid_moves(uint32_t st)
{
	switch (st) {
	case 10018: /* NFS4ERR_RESOURCE */
	case 10019: /* NFS4ERR_MOVED */
	case 10020: /* NFS4ERR_NOFILEHANDLE */
	case 10022: /* NFS4ERR_STALE_CLIENTID */
	case 10023: /* NFS4ERR_STALE_STATEID */
	case 10025: /* NFS4ERR_BAD_STATEID */
	case 10026: /* NFS4ERR_BAD_SEQID */
	case 10036: /* NFS4ERR_BADXDR */
		return false;
	default:
		return true;
	}
}

/* Paths compared without their leading slashes. */
static const char *unrooted(const char *p)
{
	while (*p == '/')
		p++;
	return p;
}

/* dir is path's directory ("a/b" is in "a", "a" in ""). */
static bool in_dir(const char *dir, const char *path)
{
	dir = unrooted(dir);
	path = unrooted(path);
	const char *const slash = strrchr(path, '/');
	const size_t n = slash ? (size_t)(slash - path) : 0;
	return strlen(dir) == n && !strncmp(dir, path, n);
}

bool rp__nfs4_lookups_lead(const char *const *pre, unsigned n, const char *at, bool dir_of)
{
	if (!n || !at)
		return false;
	for (unsigned i = 1; i < n; i++)
		if (!in_dir(pre[i - 1], pre[i]))
			return false;
	return dir_of ? in_dir(pre[n - 1], at) : !strcmp(unrooted(pre[n - 1]), unrooted(at));
}
