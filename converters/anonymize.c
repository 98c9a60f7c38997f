/* Keyed pseudonyms for a trace's names and ids: HMAC-SHA256 (RFC 2104, FIPS 180-4) via nettle (docs/anonymize.md). */
#include "converters/anonymize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/hmac.h>

#include "formats/strtab.h"

/* Growable per-id arrays of uint32_t, zero-filled. */
typedef struct idvec {
	uint32_t *v;
	size_t cap;
} idvec;

struct rp_anon {
	rp_sink sink; /* first: the producer's callbacks get it */
	rp_sink *down;
	rp_anon_opts opts;
	struct hmac_sha256_ctx hmac; /* keyed once; nettle resets it to the keyed state after each digest */
	bool have_ref;
	uint64_t time_ref; /* what becomes RP_ANON_EPOCH_NS: the capture start, else the first time set */
	rp_strtab *in;     /* the input's strings, by the input's ids */
	rp_strtab *out;    /* the mapped strings, by the ids down got */
	idvec out_id[RP_ANON__ROLES]; /* input id -> output id in each role; 0: not mapped yet */
	rp_strtab *comps;  /* original components */
	idvec comp_pseu;   /* component id -> its pseudonym's id in pseus */
	rp_strtab *pseus;  /* pseudonyms given */
	idvec pseu_owner;  /* pseudonym id -> the component id it was made for */
	rp_strtab *ids;    /* uids and gids: a kind byte ('u', 'g') and the value, little-endian */
	idvec id_val;      /* -> its pseudonymous number */
	rp_strtab *id_pseus; /* the numbers given, as the same 5-byte keys */
	char *buf;         /* rp_anon_map's result */
	size_t buf_cap, buf_len;
	rp_anon_stats st;
};

static int idvec_set(idvec *d, size_t i, uint32_t val)
{
	if (i >= d->cap) {
		size_t cap = d->cap ? d->cap : 256;
		while (cap <= i)
			cap *= 2;
		uint32_t *const v = realloc(d->v, cap * sizeof(*v));
		if (!v)
			return RP_E_NOMEM;
		memset(v + d->cap, 0, (cap - d->cap) * sizeof(*v));
		d->v = v;
		d->cap = cap;
	}
	d->v[i] = val;
	return 0;
}

static uint32_t idvec_get(const idvec *d, size_t i)
{
	return i < d->cap ? d->v[i] : 0;
}

/* HMAC-SHA256 of a domain tag (with its NUL: "name" and "uid" inputs never meet) and bytes. */
static void mac(rp_anon *a, const char *tag, const void *p, size_t n, uint8_t out[SHA256_DIGEST_SIZE])
{
	hmac_sha256_update(&a->hmac, strlen(tag) + 1, (const uint8_t *)tag);
	hmac_sha256_update(&a->hmac, n, p);
	hmac_sha256_digest(&a->hmac, SHA256_DIGEST_SIZE, out);
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The length of c's extension with its dot (".c"), 0 if it has none --keep-ext keeps. */
static size_t ext_len(const char *c, size_t n)
{
	const char *const dot = memrchr(c, '.', n);
	if (!dot || dot == c) /* no dot, or a dot file (".bashrc"): the whole name is the name */
		return 0;
	const size_t e = n - (size_t)(dot - c) - 1;
	if (e < 1 || e > RP_ANON_EXT_MAX)
		return 0;
	for (size_t i = 0; i < e; i++)
		if (!is_alnum((unsigned char)dot[1 + i]))
			return 0;
	return e + 1;
}

static int put(rp_anon *a, const char *p, size_t n, char *errbuf)
{
	if (a->buf_len + n > RP_STR_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "anonymize: a name longer than %u bytes once mapped", RP_STR_MAX);
	if (a->buf_len + n + 1 > a->buf_cap) {
		size_t cap = a->buf_cap ? a->buf_cap : 256;
		while (cap < a->buf_len + n + 1)
			cap *= 2;
		char *const b = realloc(a->buf, cap);
		if (!b)
			return rp_fail(errbuf, RP_E_NOMEM, "anonymize: out of memory");
		a->buf = b;
		a->buf_cap = cap;
	}
	memcpy(a->buf + a->buf_len, p, n);
	a->buf_len += n;
	a->buf[a->buf_len] = '\0';
	return 0;
}

/*
 * One name component's pseudonym appended to buf: 12 base32 characters of
 * its HMAC (plus its extension with --keep-ext), made once and remembered,
 * so the same name gets the same pseudonym wherever it is, and checked
 * against every other pseudonym given (a collision would merge two files).
 */
static int comp(rp_anon *a, const char *c, size_t n, char *errbuf)
{
	int added = 0;
	const int64_t ci = rp_strtab_intern(a->comps, c, (uint32_t)n, &added);
	if (ci < 0)
		return rp_fail(errbuf, (int)ci, "anonymize: %s", rp_strerror((int)ci));
	if (added) {
		uint8_t d[SHA256_DIGEST_SIZE];
		mac(a, "name", c, n, d);
		static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";
		char p[RP_ANON_NAME_LEN + 1 + RP_ANON_EXT_MAX];
		const uint64_t v = be64(d);
		for (int i = 0; i < RP_ANON_NAME_LEN; i++)
			p[i] = b32[(v >> (59 - 5 * i)) & 31];
		const size_t e = a->opts.keep_ext ? ext_len(c, n) : 0;
		memcpy(p + RP_ANON_NAME_LEN, c + n - e, e);
		int fresh = 0;
		const int64_t pi = rp_strtab_intern(a->pseus, p, (uint32_t)(RP_ANON_NAME_LEN + e), &fresh);
		if (pi < 0)
			return rp_fail(errbuf, (int)pi, "anonymize: %s", rp_strerror((int)pi));
		if (!fresh && idvec_get(&a->pseu_owner, (size_t)pi) != (uint32_t)ci)
			return rp_fail(errbuf, RP_E_EXISTS,
				       "anonymize: two names got the pseudonym %.*s (a 2^-60 chance): use another key",
				       (int)(RP_ANON_NAME_LEN + e), p);
		if (idvec_set(&a->pseu_owner, (size_t)pi, (uint32_t)ci) < 0 ||
		    idvec_set(&a->comp_pseu, (size_t)ci, (uint32_t)pi) < 0)
			return rp_fail(errbuf, RP_E_NOMEM, "anonymize: out of memory");
		a->st.components++;
	}
	uint32_t plen = 0;
	const char *const p = rp_strtab_get(a->pseus, idvec_get(&a->comp_pseu, (size_t)ci), &plen);
	return put(a, p, plen, errbuf);
}

static bool is_wild(unsigned char c)
{
	/* POSIX globs and SMB's DOS wildcards (MS-FSA 2.1.4.4: < > " are DOS_STAR, DOS_QM, DOS_DOT) */
	return c == '*' || c == '?' || c == '<' || c == '>' || c == '"';
}

/* A pattern component: wildcards kept, literal runs mapped as names (a lone "." too is kept: "*.*"). */
static int pattern_comp(rp_anon *a, const char *c, size_t n, char *errbuf)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		if (is_wild((unsigned char)c[i])) {
			while (j < n && is_wild((unsigned char)c[j]))
				j++;
			const int rc = put(a, c + i, j - i, errbuf);
			if (rc < 0)
				return rc;
			i = j;
			continue;
		}
		while (j < n && !is_wild((unsigned char)c[j]))
			j++;
		const char *const run = c + i;
		const size_t rn = j - i;
		/* "*.c" with --keep-ext: the extension after a wildcard is kept as the names' extensions are */
		const bool ext = a->opts.keep_ext && i > 0 && j == n && run[0] == '.' && rn >= 2 &&
				 ext_len(run - 1, rn + 1) == rn;
		const int rc = (rn == 1 && run[0] == '.') || ext ? put(a, run, rn, errbuf) : comp(a, run, rn, errbuf);
		if (rc < 0)
			return rc;
		i = j;
	}
	return 0;
}

static bool is_sep(unsigned char c)
{
	return c == '/' || c == '\\'; /* POSIX and SMB separators: a \ in a POSIX name splits it, harmlessly */
}

static int map_path(rp_anon *a, const char *s, size_t n, bool pattern, char *errbuf)
{
	size_t i = 0;
	while (i <= n) {
		size_t j = i;
		while (j < n && !is_sep((unsigned char)s[j]))
			j++;
		const char *const c = s + i;
		const size_t cn = j - i;
		int rc = 0;
		if (cn == 0 || (cn == 1 && c[0] == '.') || (cn == 2 && c[0] == '.' && c[1] == '.'))
			rc = put(a, c, cn, errbuf); /* empty ("a//b", a leading /), . and .. stay: they are structure */
		else
			rc = pattern ? pattern_comp(a, c, cn, errbuf) : comp(a, c, cn, errbuf);
		if (rc == 0 && j < n)
			rc = put(a, s + j, 1, errbuf);
		if (rc < 0)
			return rc;
		i = j + 1;
	}
	return 0;
}

static bool has_prefix(const char *s, size_t n, const char *pre, size_t *pn)
{
	*pn = strlen(pre);
	return n >= *pn && memcmp(s, pre, *pn) == 0;
}

/*
 * An xattr name.  Linux's namespace prefix stays so the name still works
 * (user. and trusted. names are the users' own: the rest is mapped);
 * system. and security. names are the kernel's (posix_acl_access, selinux,
 * capability) and say nothing of the site, so they stay whole.  Other names
 * (SMB extended attributes) are mapped whole.
 */
static int map_xattr(rp_anon *a, const char *s, size_t n, char *errbuf)
{
	size_t pn = 0;
	if (has_prefix(s, n, "system.", &pn) || has_prefix(s, n, "security.", &pn))
		return put(a, s, n, errbuf);
	if (has_prefix(s, n, "user.", &pn) || has_prefix(s, n, "trusted.", &pn)) {
		const int rc = put(a, s, pn, errbuf);
		return rc < 0 || n == pn ? rc : comp(a, s + pn, n - pn, errbuf);
	}
	return n ? comp(a, s, n, errbuf) : 0;
}

int rp_anon_map(rp_anon *a, rp_anon_role role, const char *s, uint32_t len, const char **res, uint32_t *res_len,
		char *errbuf)
{
	a->buf_len = 0;
	int rc = put(a, "", 0, errbuf); /* a buffer even for an empty result */
	if (rc == 0)
		rc = role == RP_ANON_XATTR ? map_xattr(a, s, len, errbuf)
					   : map_path(a, s, len, role == RP_ANON_PATTERN, errbuf);
	if (rc < 0)
		return rc;
	*res = a->buf;
	*res_len = (uint32_t)a->buf_len;
	return 0;
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int rp_anon_id(rp_anon *a, uint32_t id, bool is_gid, uint32_t *res)
{
	if (id == 0 || id == 65534 || id == UINT32_MAX) { /* root and nobody keep replay's semantics; -1 is "unchanged" */
		*res = id;
		return 0;
	}
	uint8_t k[5] = { is_gid ? 'g' : 'u' };
	le32(k + 1, id);
	int added = 0;
	const int64_t i = rp_strtab_intern(a->ids, (const char *)k, sizeof(k), &added);
	if (i < 0)
		return (int)i;
	if (added) {
		uint8_t d[SHA256_DIGEST_SIZE];
		mac(a, is_gid ? "gid" : "uid", k + 1, 4, d);
		const uint32_t span = 0x80000000u - RP_ANON_ID_BASE;
		const uint32_t v = RP_ANON_ID_BASE + (uint32_t)(be64(d) % span);
		uint8_t pk[5] = { k[0] };
		le32(pk + 1, v);
		int fresh = 0;
		const int64_t pi = rp_strtab_intern(a->id_pseus, (const char *)pk, sizeof(pk), &fresh);
		if (pi < 0)
			return (int)pi;
		if (!fresh)
			a->st.id_collisions++; /* kept: two owners become one, which changes no op's outcome as root */
		if (idvec_set(&a->id_val, (size_t)i, v) < 0)
			return RP_E_NOMEM;
		a->st.ids++;
	}
	*res = idvec_get(&a->id_val, (size_t)i);
	return 0;
}

/* Setattr times: shifted so the capture start is RP_ANON_EPOCH_NS; differences between times stay. */
static uint64_t shift_time(rp_anon *a, uint64_t t)
{
	if (!a->have_ref) {
		a->have_ref = true;
		a->time_ref = t;
	}
	a->st.times++;
	if (t >= a->time_ref) {
		const uint64_t d = t - a->time_ref;
		return d >= UINT64_MAX - 1 - RP_ANON_EPOCH_NS ? UINT64_MAX - 1 : RP_ANON_EPOCH_NS + d;
	}
	const uint64_t d = a->time_ref - t;
	return d >= RP_ANON_EPOCH_NS ? 1 : RP_ANON_EPOCH_NS - d; /* before 1970 stays just after it: never 0 */
}

static int f_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_anon *const a = (rp_anon *)s;
	rp_trace_meta m = *meta;
	if (m.capture_start_ns > 0) {
		a->have_ref = true;
		a->time_ref = (uint64_t)m.capture_start_ns;
	}
	m.capture_start_ns = 0;
	memset(m.host, 0, sizeof(m.host));
	memset(m.source_name, 0, sizeof(m.source_name));
	m.flags |= RP_META_ANONYMIZED;
	const int rc = a->down->meta(a->down, &m);
	if (rc < 0)
		memcpy(s->errbuf, a->down->errbuf, sizeof(s->errbuf));
	return rc;
}

static int f_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_anon *const a = (rp_anon *)s;
	if (id != rp_strtab_count(a->in) + 1)
		return rp_fail(s->errbuf, RP_E_STATE, "anonymize: string id %u out of order", id);
	const int64_t got = rp_strtab_append(a->in, str, len);
	if (got < 0)
		return rp_fail(s->errbuf, (int)got, "anonymize: %s", rp_strerror((int)got));
	a->st.strings_in++;
	return 0;
}

/* The output id of input string id in role: mapped and defined on down at its first use. */
static int map_id(rp_anon *a, rp_anon_role role, uint32_t id, uint32_t *res)
{
	if (id == 0) {
		*res = 0;
		return 0;
	}
	const uint32_t have = idvec_get(&a->out_id[role], id);
	if (have) {
		*res = have;
		return 0;
	}
	uint32_t len = 0;
	const char *const str = rp_strtab_get(a->in, id, &len);
	if (!str)
		return rp_fail(a->sink.errbuf, RP_E_STATE, "anonymize: op names string %u, which was not defined", id);
	const char *m = NULL;
	uint32_t mlen = 0;
	int rc = rp_anon_map(a, role, str, len, &m, &mlen, a->sink.errbuf);
	if (rc < 0)
		return rc;
	const uint32_t before = rp_strtab_count(a->out);
	const int64_t oid = rp_sink_intern(a->down, a->out, m, mlen);
	if (oid < 0) {
		memcpy(a->sink.errbuf, a->down->errbuf, sizeof(a->sink.errbuf));
		return (int)oid;
	}
	if (rp_strtab_count(a->out) != before)
		a->st.strings_out++;
	if (idvec_set(&a->out_id[role], id, (uint32_t)oid) < 0)
		return rp_fail(a->sink.errbuf, RP_E_NOMEM, "anonymize: out of memory");
	*res = (uint32_t)oid;
	return 0;
}

/* What path2 is for an op (docs/op-model.md): a target path, a pattern, or an xattr name. */
static rp_anon_role path2_role(uint16_t op)
{
	switch (op) {
	case RP_OP_READDIR: return RP_ANON_PATTERN;
	case RP_OP_GETXATTR:
	case RP_OP_SETXATTR:
	case RP_OP_LISTXATTR:
	case RP_OP_REMOVEXATTR: return RP_ANON_XATTR;
	default: return RP_ANON_PATH; /* rename and link targets, symlink and readlink contents */
	}
}

static int f_op(rp_sink *s, const rp_op *op)
{
	rp_anon *const a = (rp_anon *)s;
	rp_op o = *op;
	int rc = map_id(a, RP_ANON_PATH, op->path, &o.path);
	if (rc == 0)
		rc = map_id(a, path2_role(op->op), op->path2, &o.path2);
	if (rc == 0)
		rc = rp_anon_id(a, op->uid, false, &o.uid);
	if (rc == 0)
		rc = rp_anon_id(a, op->gid, true, &o.gid);
	if (rc < 0)
		return rc == RP_E_NOMEM ? rp_fail(s->errbuf, rc, "anonymize: out of memory") : rc;
	if ((o.attrs & RP_SA_ATIME) && o.atime)
		o.atime = shift_time(a, o.atime);
	if ((o.attrs & RP_SA_MTIME) && o.mtime)
		o.mtime = shift_time(a, o.mtime);
	a->st.ops++;
	rc = a->down->op(a->down, &o);
	if (rc < 0)
		memcpy(s->errbuf, a->down->errbuf, sizeof(s->errbuf));
	return rc;
}

static int f_finish(rp_sink *s)
{
	rp_anon *const a = (rp_anon *)s;
	const int rc = a->down->finish(a->down);
	if (rc < 0)
		memcpy(s->errbuf, a->down->errbuf, sizeof(s->errbuf));
	return rc;
}

int rp_anon_create(rp_anon **out, const void *key, size_t key_len, const rp_anon_opts *opts, rp_sink *down,
		   char *errbuf)
{
	*out = NULL;
	if (key_len < RP_ANON_KEY_MIN)
		return rp_fail(errbuf, RP_E_INVAL, "anonymize: a key of %zu bytes: at least %d are needed", key_len,
			       RP_ANON_KEY_MIN);
	if (key_len > RP_ANON_KEY_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "anonymize: a key of %zu bytes: at most %d are taken", key_len,
			       RP_ANON_KEY_MAX);
	rp_anon *const a = calloc(1, sizeof(*a));
	if (!a)
		return rp_fail(errbuf, RP_E_NOMEM, "anonymize: out of memory");
	a->down = down;
	if (opts)
		a->opts = *opts;
	hmac_sha256_set_key(&a->hmac, key_len, key);
	a->in = rp_strtab_create();
	a->out = rp_strtab_create();
	a->comps = rp_strtab_create();
	a->pseus = rp_strtab_create();
	a->ids = rp_strtab_create();
	a->id_pseus = rp_strtab_create();
	if (!a->in || !a->out || !a->comps || !a->pseus || !a->ids || !a->id_pseus) {
		rp_anon_destroy(a);
		return rp_fail(errbuf, RP_E_NOMEM, "anonymize: out of memory");
	}
	a->sink.meta = f_meta;
	a->sink.string = f_string;
	a->sink.op = f_op;
	a->sink.finish = f_finish;
	*out = a;
	return 0;
}

void rp_anon_destroy(rp_anon *a)
{
	if (!a)
		return;
	/* the key schedule does not outlive the run */
	memset(&a->hmac, 0, sizeof(a->hmac));
	__asm__ __volatile__("" : : "r"(&a->hmac) : "memory");
	rp_strtab_destroy(a->in);
	rp_strtab_destroy(a->out);
	rp_strtab_destroy(a->comps);
	rp_strtab_destroy(a->pseus);
	rp_strtab_destroy(a->ids);
	rp_strtab_destroy(a->id_pseus);
	for (int r = 0; r < RP_ANON__ROLES; r++)
		free(a->out_id[r].v);
	free(a->comp_pseu.v);
	free(a->pseu_owner.v);
	free(a->id_val.v);
	free(a->buf);
	free(a);
}

rp_sink *rp_anon_sink(rp_anon *a)
{
	return &a->sink;
}

void rp_anon_get_stats(const rp_anon *a, rp_anon_stats *st)
{
	*st = a->st;
}

int rp_anon_each(const rp_anon *a, rp_anon_map_fn fn, void *ctx)
{
	const uint32_t nc = rp_strtab_count(a->comps);
	for (uint32_t i = 1; i <= nc; i++) {
		uint32_t ol = 0, pl = 0;
		const char *const o = rp_strtab_get(a->comps, i, &ol);
		const char *const p = rp_strtab_get(a->pseus, idvec_get(&a->comp_pseu, i), &pl);
		const int rc = o && p ? fn(ctx, "name", o, ol, p, pl) : 0;
		if (rc)
			return rc;
	}
	const uint32_t ni = rp_strtab_count(a->ids);
	for (uint32_t i = 1; i <= ni; i++) {
		uint32_t kl = 0;
		const uint8_t *const k = (const uint8_t *)rp_strtab_get(a->ids, i, &kl);
		if (!k || kl != 5)
			continue;
		const uint32_t v = (uint32_t)k[1] | (uint32_t)k[2] << 8 | (uint32_t)k[3] << 16 | (uint32_t)k[4] << 24;
		char os[16], ps[16];
		const int on = snprintf(os, sizeof(os), "%u", v), pn = snprintf(ps, sizeof(ps), "%u", idvec_get(&a->id_val, i));
		const int rc = fn(ctx, k[0] == 'g' ? "gid" : "uid", os, (uint32_t)on, ps, (uint32_t)pn);
		if (rc)
			return rc;
	}
	return 0;
}
