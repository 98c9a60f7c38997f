/* smb backend helpers: smb:// URLs (RFC 3986 percent-encoding), smbclient auth files, libsmbclient errno -> status. */
#include "replay/backends/smb_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "formats/cursor.h"
#include "formats/error.h"
#include "formats/status.h"

/* RFC 3986 2.3: the characters a URL carries as themselves. */
static bool unreserved(unsigned char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
	       ch == '.' || ch == '_' || ch == '~';
}

int rp__smb_url_join(char *url, size_t cap, size_t len, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	if (!path[0])
		return len < cap ? (int)len : -ENAMETOOLONG;
	size_t n = len;
	/* Room for the '/', three bytes per byte of path and the NUL, checked as it goes. */
	if (n + 1 >= cap)
		return -ENAMETOOLONG;
	url[n++] = '/';
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (unreserved(*p) || *p == '/') {
			if (n + 1 >= cap)
				goto toolong;
			url[n++] = (char)*p;
		} else {
			if (n + 3 >= cap)
				goto toolong;
			url[n++] = '%';
			url[n++] = hex[*p >> 4];
			url[n++] = hex[*p & 15];
		}
	}
	url[n] = '\0';
	return (int)n;
toolong:
	url[len] = '\0';
	return -ENAMETOOLONG;
}

bool rp__smb_path_reserved(const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || strchr("\"*:<>?\\|", *p))
			return true;
	return false;
}

/* Decode %XX escapes of s[0..n) into out (cap bytes with the NUL); false on a bad escape, %00, %2F or overflow. */
static bool decode(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (ch == '%') {
			if (i + 2 >= n)
				return false;
			const int h = rp_hex_digit(s[i + 1]), l = rp_hex_digit(s[i + 2]);
			if (h < 0 || l < 0)
				return false;
			ch = (char)(h * 16 + l);
			if (ch == '\0' || ch == '/')
				return false;
			i += 2;
		}
		if (o + 1 >= cap)
			return false;
		out[o++] = ch;
	}
	out[o] = '\0';
	return true;
}

int rp__smb_target_parse(const char *target, rp_smb_target *t, char *errbuf)
{
	memset(t, 0, sizeof(*t));
	if (strncasecmp(target, "smb://", 6) != 0)
		return rp_fail(errbuf, RP_E_INVAL, "%s: not an smb:// URL (smb://host[:port]/share[/dir])", target);
	const char *const auth = target + 6;
	const size_t auth_len = strcspn(auth, "/");
	if (memchr(auth, '@', auth_len))
		return rp_fail(errbuf, RP_E_INVAL,
			       "%s: credentials do not go in the URL (use --user USER[%%PASS], --authfile FILE or "
			       "REPRISE_SMB_PASSWORD)",
			       target);
	if (strpbrk(target, "?#"))
		return rp_fail(errbuf, RP_E_INVAL, "%s: an smb:// target has no query or fragment ('?' and '#' in names are %%3F and %%23)",
			       target);
	for (const char *p = target; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return rp_fail(errbuf, RP_E_INVAL, "%s: a space or control character in the URL (write it as %%XX)", target);
	/* host, [v6] or host:port */
	size_t host_len = auth_len;
	const char *port = NULL;
	if (auth[0] == '[') {
		const char *const close = memchr(auth, ']', auth_len);
		if (!close)
			return rp_fail(errbuf, RP_E_INVAL, "%s: unterminated [IPv6] host", target);
		host_len = (size_t)(close - auth) + 1;
		if (host_len < auth_len) {
			if (auth[host_len] != ':')
				return rp_fail(errbuf, RP_E_INVAL, "%s: junk after the [IPv6] host", target);
			port = auth + host_len + 1;
		}
	} else {
		const char *const colon = memchr(auth, ':', auth_len);
		if (colon) {
			host_len = (size_t)(colon - auth);
			port = colon + 1;
		}
	}
	if (host_len == 0)
		return rp_fail(errbuf, RP_E_INVAL, "%s: no host", target);
	if (host_len > RP_SMB_HOST_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "%s: host name longer than %d bytes", target, RP_SMB_HOST_MAX);
	/* A host goes into the URL as it is: a DNS name or an address (RFC 3986 reg-name without escapes, or [v6]) */
	for (size_t i = 0; i < host_len; i++) {
		const unsigned char ch = (unsigned char)auth[i];
		const bool v6 = auth[0] == '[' && (ch == '[' || ch == ']' || ch == ':');
		if (!v6 && !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
			     ch == '-' || ch == '_'))
			return rp_fail(errbuf, RP_E_INVAL, "%s: the host has a character no host name has (byte 0x%02x)",
				       target, ch);
	}
	memcpy(t->host, auth, host_len);
	t->host[host_len] = '\0';
	if (port) {
		const size_t plen = (size_t)(auth + auth_len - port);
		unsigned v = 0;
		for (size_t i = 0; i < plen; i++) {
			if (port[i] < '0' || port[i] > '9' || v > 65535)
				return rp_fail(errbuf, RP_E_INVAL, "%s: bad port (1 to 65535)", target);
			v = v * 10 + (unsigned)(port[i] - '0');
		}
		if (plen == 0 || v == 0 || v > 65535)
			return rp_fail(errbuf, RP_E_INVAL, "%s: bad port (1 to 65535)", target);
		t->port = v;
	}
	/* The share, then the directory's components. */
	const char *p = auth + auth_len;
	while (*p == '/')
		p++;
	const size_t share_len = strcspn(p, "/");
	if (share_len == 0)
		return rp_fail(errbuf, RP_E_INVAL, "%s: no share (smb://host/share)", target);
	if (!decode(p, share_len, t->share, sizeof(t->share)))
		return rp_fail(errbuf, RP_E_INVAL, "%s: bad share name (a bad %%XX escape, %%00, %%2F, or longer than %d bytes)",
			       target, RP_SMB_SHARE_MAX);
	/* IPC$ holds named pipes, no files: libsmbclient's stat of it fails ECONNREFUSED, which misleads. */
	if (strcasecmp(t->share, "IPC$") == 0)
		return rp_fail(errbuf, RP_E_INVAL, "%s: IPC$ is the server's inter-process share, not a disk share", target);
	p += share_len;
	size_t dlen = 0;
	while (*p) {
		while (*p == '/')
			p++;
		const size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		char comp[RP_SMB_URL_MAX];
		if (!decode(p, n, comp, sizeof(comp)))
			return rp_fail(errbuf, RP_E_INVAL, "%s: bad directory name (a bad %%XX escape, %%00 or %%2F)", target);
		p += n;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0)
			return rp_fail(errbuf, RP_E_INVAL, "%s: '..' in the directory: replay never works above its target", target);
		if (rp__smb_path_reserved(comp))
			return rp_fail(errbuf, RP_E_INVAL,
				       "%s: a character SMB reserves in the directory (\\ : * ? \" < > | or a control byte)",
				       target);
		const size_t cn = strlen(comp);
		if (dlen + cn + 2 > sizeof(t->dir))
			return rp_fail(errbuf, RP_E_LIMIT, "%s: directory longer than %d bytes", target, RP_SMB_URL_MAX);
		if (dlen)
			t->dir[dlen++] = '/';
		memcpy(t->dir + dlen, comp, cn + 1);
		dlen += cn;
	}
	int n = t->port ? snprintf(t->base, sizeof(t->base), "smb://%s:%u", t->host, t->port)
			: snprintf(t->base, sizeof(t->base), "smb://%s", t->host);
	if (n > 0)
		n = rp__smb_url_join(t->base, sizeof(t->base), (size_t)n, t->share);
	if (n > 0)
		n = rp__smb_url_join(t->base, sizeof(t->base), (size_t)n, t->dir);
	if (n <= 0)
		return rp_fail(errbuf, RP_E_LIMIT, "%s: URL longer than %d bytes once encoded", target, RP_SMB_URL_MAX);
	t->base_len = (size_t)n;
	return 0;
}

/* The key of an auth file line, or -1. */
static int auth_key(const char *k, size_t n)
{
	static const char *const keys[] = { "username", "password", "domain" };
	for (int i = 0; i < 3; i++)
		if (strlen(keys[i]) == n && strncasecmp(keys[i], k, n) == 0)
			return i;
	return -1;
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

int rp__smb_authfile_parse(const char *buf, size_t len, const char *name, rp_smb_creds *c, char *errbuf)
{
	if (len > RP_SMB_AUTHFILE_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "%s: larger than %u bytes: not an auth file", name, RP_SMB_AUTHFILE_MAX);
	size_t line = 0;
	for (size_t pos = 0; pos < len;) {
		line++;
		const char *const s = buf + pos;
		const char *const nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl != NULL);
		if (memchr(s, '\0', n))
			return rp_fail(errbuf, RP_E_INVAL, "%s:%zu: a NUL byte: not a text file", name, line);
		while (n && blank(s[n - 1]))
			n--;
		size_t i = 0;
		while (i < n && blank(s[i]))
			i++;
		if (i == n || s[i] == '#' || s[i] == ';')
			continue;
		const char *const eq = memchr(s + i, '=', n - i);
		if (!eq)
			return rp_fail(errbuf, RP_E_INVAL, "%s:%zu: expected 'username = U', 'password = P' or 'domain = D'", name,
				       line);
		size_t klen = (size_t)(eq - (s + i));
		while (klen && blank(s[i + klen - 1]))
			klen--;
		const int key = auth_key(s + i, klen);
		if (key < 0)
			return rp_fail(errbuf, RP_E_INVAL, "%s:%zu: unknown key '%.*s' (username, password, domain)", name, line,
				       (int)(klen > 32 ? 32 : klen), s + i);
		size_t v = (size_t)(eq + 1 - s);
		while (v < n && blank(s[v]))
			v++;
		const size_t vlen = n - v;
		static const char *const what[] = { "user name", "password", "domain" };
		if (vlen > RP_SMB_CRED_MAX)
			return rp_fail(errbuf, RP_E_LIMIT, "%s:%zu: %s longer than %d bytes", name, line, what[key], RP_SMB_CRED_MAX);
		char *const dst = key == 0 ? c->user : key == 1 ? c->password : c->domain;
		memcpy(dst, s + v, vlen);
		dst[vlen] = '\0';
		*(key == 0 ? &c->has_user : key == 1 ? &c->has_password : &c->has_domain) = true;
	}
	return 0;
}

/* Copy len bytes of src into dst (RP_SMB_CRED_MAX + 1 bytes) and set *has: 0, or RP_E_LIMIT naming what. */
static int cred_set(char *dst, bool *has, const char *src, size_t len, const char *what, char *errbuf)
{
	if (len > RP_SMB_CRED_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "smb: option 'user': %s longer than %d bytes", what, RP_SMB_CRED_MAX);
	memcpy(dst, src, len);
	dst[len] = '\0';
	*has = true;
	return 0;
}

int rp__smb_user_parse(const char *text, rp_smb_creds *c, char *errbuf)
{
	const char *const pct = strchr(text, '%');
	const size_t head = pct ? (size_t)(pct - text) : strlen(text); /* [DOMAIN\]USER */
	const size_t dl = strcspn(text, "\\/");
	const bool has_domain = dl < head;
	const char *const user = has_domain ? text + dl + 1 : text;
	const size_t ul = head - (size_t)(user - text);
	if (has_domain && dl == 0)
		return rp_fail(errbuf, RP_E_INVAL, "smb: option 'user': no domain before the '%c' ([DOMAIN\\]USER[%%PASS])",
			       text[dl]);
	if (ul == 0)
		return rp_fail(errbuf, RP_E_INVAL, "smb: option 'user': no user name ([DOMAIN\\]USER[%%PASS])");
	rp_smb_creds parts = *c;
	int rc = cred_set(parts.user, &parts.has_user, user, ul, "user name", errbuf);
	if (rc == 0 && has_domain)
		rc = cred_set(parts.domain, &parts.has_domain, text, dl, "domain", errbuf);
	if (rc == 0 && pct && pct[1])
		rc = cred_set(parts.password, &parts.has_password, pct + 1, strlen(pct + 1), "password", errbuf);
	if (rc == 0)
		*c = parts;
	explicit_bzero(&parts, sizeof(parts));
	return rc;
}

int32_t rp__smb_status(int err)
{
	if (err == 0)
		return 0;
	/* ENOTSUP and EOPNOTSUPP are one value on Linux; EWOULDBLOCK is EAGAIN. */
	return rp_status_from_proto(RP_SK_ERRNO, (uint32_t)rp_errno_from_host(err));
}

bool rp__smb_conn_lost(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case ENOTCONN:
	case EPIPE:
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
		return true;
	default:
		return false;
	}
}
