/* SMB3 session keys the user gives (--smb-key, --smb-keys) and the SMB 3.x key derivation (MS-SMB2 3.1.4.2, SP800-108). */
#include <errno.h>
#include <nettle/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb3_int.h"
#include "formats/error.h"

struct rp_smb_keys {
	smb3_key *v; /* sorted by session id */
	size_t n, cap;
};

int rp_smb_keys_create(rp_smb_keys **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : RP_E_NOMEM;
}

void rp_smb_keys_destroy(rp_smb_keys *keys)
{
	if (!keys)
		return;
	if (keys->v) {
		/* keys are secrets: do not leave them in freed memory */
		volatile unsigned char *p = (volatile unsigned char *)keys->v;
		for (size_t i = 0; i < keys->cap * sizeof(*keys->v); i++)
			p[i] = 0;
	}
	free(keys->v);
	free(keys);
}

size_t rp_smb_keys_count(const rp_smb_keys *keys)
{
	return keys ? keys->n : 0;
}

/* Hex digits s[0..n) into out; the byte count, or -1 if not hex or not a whole number of bytes. */
static int unhex(const char *s, size_t n, uint8_t *out, size_t max)
{
	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		const int hi = rp_hex_digit(s[i]), lo = rp_hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

static bool key_len_ok(int n)
{
	return n == 16 || n == 32;
}

int rp_smb_keys_add(rp_smb_keys *keys, const char *spec, char *errbuf)
{
	while (*spec == ' ' || *spec == '\t')
		spec++;
	size_t len = strlen(spec);
	while (len && (spec[len - 1] == ' ' || spec[len - 1] == '\t' || spec[len - 1] == '\r' || spec[len - 1] == '\n'))
		len--;
	if (len > RP_SMB_KEY_LINE_MAX)
		return rp_fail(errbuf, RP_E_SYNTAX, "SMB key: longer than %d characters", RP_SMB_KEY_LINE_MAX);
	/* Up to four hex fields separated by ':' */
	const char *field[4];
	size_t flen[4];
	size_t nf = 0;
	const char *p = spec;
	const char *const end = spec + len;
	for (;;) {
		const char *const colon = memchr(p, ':', (size_t)(end - p));
		const char *const fe = colon ? colon : end;
		if (nf == 4)
			return rp_fail(errbuf, RP_E_SYNTAX, "SMB key: more than 4 fields (SESSIONID:KEY[:S2C:C2S])");
		field[nf] = p;
		flen[nf] = (size_t)(fe - p);
		nf++;
		if (!colon)
			break;
		p = colon + 1;
	}
	if (nf != 2 && nf != 4)
		return rp_fail(errbuf, RP_E_SYNTAX, "SMB key: want SESSIONID:KEY or SESSIONID:KEY:S2C:C2S (hex), got %zu field%s",
			       nf, nf == 1 ? "" : "s");
	smb3_key k = { 0 };
	uint8_t sid[8];
	if (unhex(field[0], flen[0], sid, sizeof sid) != 8)
		return rp_fail(errbuf, RP_E_SYNTAX, "SMB key: the session id must be 16 hex digits (its 8 bytes as on the wire)");
	rp_cur sc = rp_cur_make(sid, sizeof sid);
	k.sid = rp_cur_le64(&sc);
	const int kl = unhex(field[1], flen[1], k.key, sizeof k.key);
	if (!key_len_ok(kl))
		return rp_fail(errbuf, RP_E_SYNTAX, "SMB key: the session key must be 32 or 64 hex digits (16 or 32 bytes)");
	k.key_len = (uint8_t)kl;
	if (nf == 4) {
		const int s = unhex(field[2], flen[2], k.s2c, sizeof k.s2c);
		const int c = unhex(field[3], flen[3], k.c2s, sizeof k.c2s);
		if (!key_len_ok(s) || s != c)
			return rp_fail(errbuf, RP_E_SYNTAX,
				       "SMB key: the S2C and C2S keys must both be 32 or both 64 hex digits (16 or 32 bytes)");
		k.dir_len = (uint8_t)s;
	}
	/* sorted insert: lookups are per encrypted message */
	size_t at = 0;
	while (at < keys->n && keys->v[at].sid < k.sid)
		at++;
	if (at < keys->n && keys->v[at].sid == k.sid)
		return rp_fail(errbuf, RP_E_EXISTS, "SMB key: session %02x%02x%02x%02x%02x%02x%02x%02x given twice", sid[0],
			       sid[1], sid[2], sid[3], sid[4], sid[5], sid[6], sid[7]);
	if (keys->n >= RP_SMB_KEYS_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "SMB key: more than %d sessions", RP_SMB_KEYS_MAX);
	if (keys->n == keys->cap) {
		const size_t nc = keys->cap ? keys->cap * 2 : 8;
		smb3_key *const nv = calloc(nc, sizeof(*nv));
		if (!nv)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		if (keys->n)
			memcpy(nv, keys->v, keys->n * sizeof(*nv));
		smb3_key *const old = keys->v;
		const size_t old_cap = keys->cap;
		keys->v = nv;
		keys->cap = nc;
		if (old) {
			volatile unsigned char *q = (volatile unsigned char *)old;
			for (size_t i = 0; i < old_cap * sizeof(*old); i++)
				q[i] = 0;
		}
		free(old);
	}
	memmove(keys->v + at + 1, keys->v + at, (keys->n - at) * sizeof(*keys->v));
	keys->v[at] = k;
	keys->n++;
	return 0;
}

/* Count the lines of b[0..n) up to and including the one that holds b[n]. */
static unsigned long line_of(const char *b, size_t n)
{
	unsigned long l = 1;
	for (size_t i = 0; i < n; i++)
		l += b[i] == '\n';
	return l;
}

int rp_smb_keys_load(rp_smb_keys *keys, const char *path, char *errbuf)
{
	FILE *const f = fopen(path, "r");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	/* One more byte than the bound tells a file at it from one past it (/dev/zero ends here too). */
	char *const buf = malloc((size_t)RP_SMB_KEYS_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	const size_t got = fread(buf, 1, (size_t)RP_SMB_KEYS_FILE_MAX + 1, f);
	char line[RP_SMB_KEY_LINE_MAX + 8];
	int rc = 0;
	if (ferror(f)) {
		rc = rp_fail(errbuf, RP_E_IO, "%s: read error", path);
		goto done;
	}
	/* A NUL would end a line early (or the whole file, read as no keys): a key file is text. */
	const char *const nul = memchr(buf, '\0', got);
	if (nul) {
		rc = rp_fail(errbuf, RP_E_SYNTAX, "%s:%lu: a NUL byte: a key file is text, one SESSIONID:KEY a line", path,
			     line_of(buf, (size_t)(nul - buf)));
		goto done;
	}
	if (got > RP_SMB_KEYS_FILE_MAX) {
		rc = rp_fail(errbuf, RP_E_LIMIT, "%s: larger than %d bytes (%d keys of %d characters fit, with comments)",
			     path, RP_SMB_KEYS_FILE_MAX, RP_SMB_KEYS_MAX, RP_SMB_KEY_LINE_MAX);
		goto done;
	}
	unsigned long lineno = 0;
	for (size_t at = 0; at < got;) {
		lineno++;
		const char *const nl = memchr(buf + at, '\n', got - at);
		const size_t end = nl ? (size_t)(nl - buf) : got;
		const size_t len = end - at;
		at = nl ? end + 1 : got;
		if (len >= sizeof line - 1) {
			rc = rp_fail(errbuf, RP_E_SYNTAX, "%s:%lu: longer than %d characters", path, lineno,
				     RP_SMB_KEY_LINE_MAX);
			goto done;
		}
		memcpy(line, buf + end - len, len);
		line[len] = '\0';
		const char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\r' || *s == '\0')
			continue;
		char eb[RP_ERRBUF_SIZE];
		rc = rp_smb_keys_add(keys, s, eb);
		if (rc < 0) {
			rp_fail(errbuf, rc, "%s:%lu: %s", path, lineno, eb);
			goto done;
		}
	}
done:
	/* the buffers held keys */
	explicit_bzero(line, sizeof line);
	explicit_bzero(buf, got);
	free(buf);
	fclose(f);
	return rc;
}

const smb3_key *rp__smb3_key_find(const rp_smb_keys *keys, uint64_t sid)
{
	if (!keys)
		return NULL;
	size_t lo = 0, hi = keys->n;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		if (keys->v[mid].sid < sid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < keys->n && keys->v[lo].sid == sid ? &keys->v[lo] : NULL;
}

void rp__smb3_kdf(const uint8_t *ki, size_t ki_len, const uint8_t *label, size_t label_len, const uint8_t *ctx,
		  size_t ctx_len, uint8_t *out, size_t out_len)
{
	/* SP800-108 counter mode, PRF HMAC-SHA256, r = 32: K(i) = PRF(Ki, [i]4 || Label || 0x00 || Context || [L]4) */
	const uint32_t bits = (uint32_t)(out_len * 8);
	const uint8_t l_be[4] = { (uint8_t)(bits >> 24), (uint8_t)(bits >> 16), (uint8_t)(bits >> 8), (uint8_t)bits };
	const uint8_t zero = 0;
	for (uint32_t i = 1, at = 0; at < out_len; i++, at += SHA256_DIGEST_SIZE) {
		struct hmac_sha256_ctx h;
		hmac_sha256_set_key(&h, ki_len, ki);
		const uint8_t i_be[4] = { (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i };
		hmac_sha256_update(&h, sizeof i_be, i_be);
		hmac_sha256_update(&h, label_len, label);
		hmac_sha256_update(&h, 1, &zero);
		hmac_sha256_update(&h, ctx_len, ctx);
		hmac_sha256_update(&h, sizeof l_be, l_be);
		uint8_t block[SHA256_DIGEST_SIZE];
		hmac_sha256_digest(&h, sizeof block, block);
		const size_t take = out_len - at < sizeof block ? out_len - at : sizeof block;
		memcpy(out + at, block, take);
		memset(&h, 0, sizeof h);
	}
}
