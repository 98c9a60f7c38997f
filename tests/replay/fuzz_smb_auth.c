/* Fuzz target: the smb backend's text parsers: auth files (smbclient -A format), smb:// targets, URL encoding of paths. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "replay/backends/smb_util.h"

/* A value is within its limit and on one line. */
static void check_value(const char *v, bool has)
{
	const size_t n = strlen(v);
	if (n > RP_SMB_CRED_MAX || strchr(v, '\n') || (!has && n))
		abort();
}

/* An encoded URL has only unreserved characters, '/', ':', '[', ']' and %XX escapes after its scheme. */
static void check_url(const char *u, size_t len)
{
	if (strlen(u) != len || len >= RP_SMB_URL_MAX || strncmp(u, "smb://", 6) != 0)
		abort();
	for (const char *p = u + 6; *p; p++) {
		const unsigned char ch = (unsigned char)*p;
		if (ch <= ' ' || ch >= 0x7f || strchr("#?;@ \"<>\\^`{|}", ch))
			abort();
	}
}

/* A component that is exactly ".." (a name that only begins with two dots, "..A", is a name). */
static bool has_dotdot(const char *dir)
{
	for (const char *c = dir; *c;) {
		const size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return true;
		c += n;
		c += *c == '/';
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char errbuf[RP_ERRBUF_SIZE];
	rp_smb_creds c;
	memset(&c, 0, sizeof(c));
	if (rp__smb_authfile_parse((const char *)data, size, "fuzz", &c, errbuf) == 0) {
		check_value(c.user, c.has_user);
		check_value(c.password, c.has_password);
		check_value(c.domain, c.has_domain);
	}
	char *const s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	rp_smb_target *const t = malloc(sizeof(*t));
	if (t && rp__smb_target_parse(s, t, errbuf) == 0) {
		check_url(t->base, t->base_len);
		if (!t->share[0] || has_dotdot(t->dir))
			abort();
		/* Any path joined to a parsed base stays an encoded URL (or is refused as too long). */
		const int n = rp__smb_url_join(t->base, sizeof(t->base), t->base_len, s);
		if (n >= 0)
			check_url(t->base, (size_t)n);
		else if (strlen(t->base) != t->base_len)
			abort(); /* refused: the URL is left as it was */
	}
	free(t);
	free(s);
	return 0;
}
