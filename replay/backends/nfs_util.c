/* The nfs backend's pure helpers: the target URL's form (libnfs 4.0's nfs:// URLs), statuses, listing patterns. */
#include "replay/backends/nfs_int.h"

#include <errno.h>
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
