/* dbench loadfile lines -> typed ops: tokens, numbers, '*'/'+' modifiers, statuses (docs/loadfile.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/loadfile_rd.h"
#include "formats/semantics.h"
#include "formats/status.h"
#include "formats/strtab.h"

int rp__lf_fail(rp__lf_reader *r, int err, const char *fmt, ...)
{
	char msg[RP_ERRBUF_SIZE];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rp_fail(r->base.errbuf, err, "%s:%llu: %s", r->name, (unsigned long long)r->cur_line, msg);
}

uint64_t rp__lf_random(rp__lf_reader *r)
{
	uint64_t z = (r->prng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

typedef struct tok {
	const char *p;
	size_t n;
	bool quoted;
} tok;

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Printable text for messages: at most 40 bytes, control bytes as '?'. */
static const char *shown(const char *p, size_t n, char *out, size_t size)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 4 < size && i < 40; i++)
		out[k++] = ((unsigned char)p[i] < 0x20 || p[i] == 0x7f) ? '?' : p[i];
	if (n > 40 && k + 4 < size) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
	return out;
}

/* Split the rest of a line into tokens: "quoted strings" or runs of non-blanks. */
static int tokenize(rp__lf_reader *r, const char *p, const char *end, tok *toks, size_t max, size_t *count)
{
	size_t n = 0;
	for (;;) {
		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		if (n == max)
			return rp__lf_fail(r, RP_E_SYNTAX, "too many arguments");
		if (*p == '"') {
			const char *const q = memchr(p + 1, '"', (size_t)(end - p - 1));
			if (!q)
				return rp__lf_fail(r, RP_E_SYNTAX, "unterminated quoted string");
			toks[n++] = (tok){ p + 1, (size_t)(q - p - 1), true };
			p = q + 1;
			if (p < end && !is_space(*p))
				return rp__lf_fail(r, RP_E_SYNTAX, "text right after a closing quote");
			continue;
		}
		const char *const s = p;
		while (p < end && !is_space(*p))
			p++;
		toks[n++] = (tok){ s, (size_t)(p - s), false };
	}
	*count = n;
	return 0;
}

/* strtol(s, NULL, 0)'s grammar without its silent overflow: 0x hex, 0 octal, decimal. */
static bool parse_num(const char *s, size_t n, uint64_t *out)
{
	/* the common case: a short decimal without a leading zero */
	if (n > 0 && n < 20 && s[0] > '0' && s[0] <= '9') {
		uint64_t v = 0;
		size_t i = 0;
		while (i < n && (unsigned)(s[i] - '0') < 10)
			v = v * 10 + (uint64_t)(s[i++] - '0');
		if (i == n) {
			*out = v;
			return true;
		}
	}
	unsigned base = 10;
	size_t i = 0;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (n > 1 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	if (i == n)
		return false;
	uint64_t v = 0;
	for (; i < n; i++) {
		const char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* The length of a number at s in the grammar above (for '*' qualifiers). */
static size_t num_len(const char *s, size_t n)
{
	size_t i = 0;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
		i++;
	return i;
}

/* '*' then qualifiers: '/y' align down to y, '%y' modulo y, '+y' add y, applied left to right. */
static int random_value(rp__lf_reader *r, const tok *t, uint64_t *out)
{
	char b[64];
	uint64_t v = rp__lf_random(r);
	size_t i = 1;
	while (i < t->n) {
		const char q = t->p[i++];
		const size_t len = num_len(t->p + i, t->n - i);
		uint64_t y;
		if (len == 0 || !parse_num(t->p + i, len, &y))
			return rp__lf_fail(r, RP_E_SYNTAX, "bad random value '%s'", shown(t->p, t->n, b, sizeof(b)));
		i += len;
		if (y == 0 && q != '+')
			return rp__lf_fail(r, RP_E_RANGE, "'%c0' in random value '%s'", q, shown(t->p, t->n, b, sizeof(b)));
		switch (q) {
		case '/': v = v / y * y; break;
		case '%': v %= y; break;
		case '+': v += y; break;
		default:
			return rp__lf_fail(r, RP_E_SYNTAX, "unknown qualifier '%c' in random value '%s'", q,
					   shown(t->p, t->n, b, sizeof(b)));
		}
	}
	*out = v;
	return 0;
}

/* A number argument, with dbench's '*' (random) and '+' (previous line's value plus) forms. */
static int number(rp__lf_reader *r, const tok *t, unsigned idx, uint64_t max, uint64_t *out)
{
	char b[64];
	uint64_t v = 0;
	if (t->quoted)
		return rp__lf_fail(r, RP_E_SYNTAX, "expected a number, got a quoted string");
	if (t->n >= 1 && t->p[0] == '*') {
		const int rc = random_value(r, t, &v);
		if (rc < 0)
			return rc;
	} else if (t->n >= 2 && t->p[0] == '+') {
		uint64_t add;
		/* Reading one client's script: the first child (0) of one. */
		if (t->n == 6 && memcmp(t->p + 1, "child", 5) == 0)
			add = 0;
		else if (t->n == 13 && memcmp(t->p + 1, "num_children", 12) == 0)
			add = 1;
		else if (!parse_num(t->p + 1, t->n - 1, &add))
			return rp__lf_fail(r, RP_E_SYNTAX, "bad number '%s'", shown(t->p, t->n, b, sizeof(b)));
		if (add > UINT64_MAX - r->prev[idx])
			return rp__lf_fail(r, RP_E_RANGE, "'%s' overflows", shown(t->p, t->n, b, sizeof(b)));
		v = r->prev[idx] + add;
	} else if (!parse_num(t->p, t->n, &v)) {
		const bool looks_numeric = t->n && ((t->p[0] >= '0' && t->p[0] <= '9') || t->p[0] == '-');
		return rp__lf_fail(r, looks_numeric ? RP_E_RANGE : RP_E_SYNTAX, "%s '%s'",
				   looks_numeric ? "number out of range or malformed" : "expected a number, got",
				   shown(t->p, t->n, b, sizeof(b)));
	}
	if (v > max)
		return rp__lf_fail(r, RP_E_RANGE, "number %s is out of range (at most %llu)", shown(t->p, t->n, b, sizeof(b)),
				   (unsigned long long)max);
	r->prev[idx] = v;
	*out = v;
	return 0;
}

/* A path argument: quoted, or a bare word starting with a separator; '\' becomes '/'. */
/* Intern n bytes of an already normalised path. */
static int intern(rp__lf_reader *r, const char *s, size_t n, uint32_t *id)
{
	int added = 0;
	const int64_t got = rp_strtab_intern(r->base.strings, s, (uint32_t)n, &added);
	if (got < 0)
		return rp__lf_fail(r, (int)got, "string table: %s", rp_strerror((int)got));
	*id = (uint32_t)got;
	return 0;
}

/*
 * A path token; in the SMB dialect its '\' separators made '/' (the op model's
 * separator), in the NFS one '\' is part of a name.  With `pattern` (FIND_FIRST's mask
 * "\dir\pattern"), the directory goes to *id and the pattern in it to
 * *pattern; a mask ending in a separator names the directory alone.
 */
static int path_of(rp__lf_reader *r, const tok *t, bool smb, uint32_t *id, uint32_t *pattern)
{
	if (!t->quoted && (t->n == 0 || (t->p[0] != '/' && t->p[0] != '\\')))
		return rp__lf_fail(r, RP_E_SYNTAX, "expected a path");
	if (t->n == 0)
		return rp__lf_fail(r, RP_E_SYNTAX, "empty path");
	if (t->n > RP_STR_MAX)
		return rp__lf_fail(r, RP_E_LIMIT, "path longer than %u bytes", RP_STR_MAX);
	const char *s = t->p;
	if (smb && memchr(s, '\\', t->n)) {
		for (size_t i = 0; i < t->n; i++)
			r->scratch[i] = s[i] == '\\' ? '/' : s[i];
		s = r->scratch;
	}
	const char *const slash = pattern ? memrchr(s, '/', t->n) : NULL;
	if (!slash || (size_t)(slash - s) + 1 == t->n)
		return intern(r, s, t->n, id);
	const size_t dlen = (size_t)(slash - s);
	const int rc = intern(r, s, dlen ? dlen : 1, id); /* the root is "/" */
	return rc < 0 ? rc : intern(r, slash + 1, t->n - dlen - 1, pattern);
}

static int path(rp__lf_reader *r, const tok *t, bool smb, uint32_t *id)
{
	return path_of(r, t, smb, id, NULL);
}

static int status(rp__lf_reader *r, const tok *t, uint8_t dialect, rp_op *op)
{
	char b[64];
	if (t->quoted)
		return rp__lf_fail(r, RP_E_SYNTAX, "bad status: a quoted string");
	if (dialect == RP__LF_SMB && t->n == 12 && memcmp(t->p, "NT_STATUS_OK", 12) == 0) {
		op->status_kind = RP_SK_NT; /* proto_status and status stay 0 */
		return 0;
	}
	if (t->n == 1 && t->p[0] == '*') { /* don't care */
		op->status_kind = RP_SK_NONE;
		op->status = RP_STATUS_UNKNOWN;
		return 0;
	}
	if ((t->n == 7 && memcmp(t->p, "SUCCESS", 7) == 0) || (t->n == 5 && memcmp(t->p, "ERROR", 5) == 0)) {
		op->status_kind = RP_SK_NONE;
		op->status = t->n == 7 ? RP_STATUS_OK : RP_STATUS_OTHER;
		return 0;
	}
	const rp_status_kind kind = dialect == RP__LF_SMB ? RP_SK_NT : dialect == RP__LF_NFS4 ? RP_SK_NFS4 : RP_SK_NFS3;
	/* the last few distinct status words, looked up once each */
	for (unsigned i = 0; i < RP__LF_STATUS_CACHE; i++) {
		const rp__lf_scache *const c = &r->scache[i];
		if (c->n == t->n && c->kind == kind && memcmp(c->word, t->p, t->n) == 0) {
			op->status_kind = (uint8_t)kind;
			op->proto_status = c->code;
			op->status = c->canon;
			return 0;
		}
	}
	uint32_t code;
	if (rp_status_proto_parse(kind, t->p, t->n, &code) < 0) {
		const bool hex = t->n > 2 && t->p[0] == '0' && (t->p[1] == 'x' || t->p[1] == 'X');
		return rp__lf_fail(r, RP_E_SYNTAX, "%s status '%s'", hex ? "bad" : "unknown",
				   shown(t->p, t->n, b, sizeof(b)));
	}
	rp_op_set_status(op, kind, code);
	if (t->n <= sizeof(r->scache[0].word)) {
		rp__lf_scache *const c = &r->scache[r->scache_next++ % RP__LF_STATUS_CACHE];
		memcpy(c->word, t->p, t->n);
		c->n = (uint8_t)t->n;
		c->kind = (uint8_t)kind;
		c->code = code;
		c->canon = op->status;
	}
	return 0;
}

static int op_line(rp__lf_reader *r, int k, const tok *toks, size_t ntok, rp_op *op)
{
	const rp__lf_cmd_info *const c = &rp__lf_cmds[k];
	if (ntok == 0)
		return rp__lf_fail(r, RP_E_SYNTAX, "%s: missing status", c->name);
	const size_t nargs = ntok - 1;
	const unsigned req = r->dict.n_req[k], max = r->dict.n_max[k];
	if (nargs < req || nargs > max) {
		if (req == max)
			return rp__lf_fail(r, RP_E_SYNTAX, "%s: expected %u argument%s and a status, got %zu token%s",
					   c->name, req, req == 1 ? "" : "s", ntok, ntok == 1 ? "" : "s");
		return rp__lf_fail(r, RP_E_SYNTAX, "%s: expected %u to %u arguments and a status, got %zu tokens",
				   c->name, req, max, ntok);
	}
	memset(op, 0, sizeof(*op));
	op->op = c->op;
	op->flags = c->flags;
	op->raw.level = c->level;
	op->t_end = RP_TIME_UNKNOWN;
	const uint8_t dialect = c->dialect == RP__LF_ANY ? r->dialect : c->dialect;
	const rp_proto proto = dialect == RP__LF_SMB ? RP_PROTO_DBENCH_SMB : RP_PROTO_DBENCH_NFS;
	op->proto = (uint8_t)proto;
	unsigned nidx = 0;
	const char *sp = c->spec;
	for (size_t i = 0; i < nargs; i++, sp++) {
		if (*sp == '?')
			sp++;
		const tok *const t = &toks[i];
		uint64_t v = 0;
		int rc = 0;
		switch (*sp) {
		case 'p': rc = path_of(r, t, dialect == RP__LF_SMB, &op->path, k == RP__LF_C_FINDFIRST ? &op->path2 : NULL); break;
		case 'q': rc = path(r, t, dialect == RP__LF_SMB, &op->path2); break;
		case 'h': rc = number(r, t, nidx++, UINT64_MAX, &op->handle); break;
		case 'o': rc = number(r, t, nidx++, UINT64_MAX, &op->offset); break;
		case 'l': rc = number(r, t, nidx++, UINT64_MAX, &op->length); break;
		case 'r': rc = number(r, t, nidx++, UINT64_MAX, &op->result); break;
		case 'u':
			rc = number(r, t, nidx++, UINT64_MAX / 1000u, &v);
			op->length = v * 1000u;
			break;
		case 's':
			rc = number(r, t, nidx++, 2, &v);
			op->raw.level = (uint32_t)v;
			if (v)
				op->flags |= RP_OPF_STABLE;
			break;
		default: /* 32-bit fields */
			rc = number(r, t, nidx++, *sp == 'c' ? 2 : UINT32_MAX, &v);
			switch (*sp) {
			case 'L': op->raw.level = (uint32_t)v; break;
			case 'O': op->raw.options = (uint32_t)v; break;
			case 'D': op->raw.disposition = (uint32_t)v; break;
			case 'c': op->raw.disposition = (uint32_t)v; break; /* createhow3 */
			default: op->raw.access = (uint32_t)v; break; /* 'a', 'A' */
			}
			break;
		}
		if (rc < 0)
			return rc;
	}
	/* What the dbench command means, through the one translation (formats/semantics.h). */
	switch (k) {
	case RP__LF_C_NTCREATEX:
		rp_sem_nt_open(op, proto, 0, false, op->raw.disposition, op->raw.options);
		break;
	case RP__LF_C_SMB_OPEN:
		rp_sem_dbench_open(op, op->raw.access);
		break;
	case RP__LF_C_CREATE3:
		rp_sem_nfs3_create(op, proto, op->raw.disposition, false);
		break;
	case RP__LF_C_SFILEINFO:
		rp_sem_nt_setinfo(op, proto, op->raw.level, &(rp_nt_setinfo){ .decoded = false });
		break;
	case RP__LF_C_RENAME:
		op->oflags = RP_RN_NOREPLACE; /* an SMB rename never replaces: dbench's loadfiles have no flag */
		break;
	case RP__LF_C_ACCESS3:
		op->raw.options = (uint32_t)op->result; /* the granted bits, as the protocol sent them */
		op->want = rp_sem_nfs_access_want(op->raw.access);
		op->result = rp_sem_nfs_access_want((uint32_t)op->result) & ~(uint32_t)RP_WANT_KNOWN;
		break;
	default:
		break;
	}
	return status(r, &toks[ntok - 1], dialect, op);
}

/* "RANDOMSTRING idx string": each [set] in string becomes one random character of the set. */
static int randomstring(rp__lf_reader *r, const tok *toks, size_t ntok)
{
	uint64_t idx;
	if (ntok != 2)
		return rp__lf_fail(r, RP_E_SYNTAX, "RANDOMSTRING: expected an index and a string");
	if (toks[0].quoted || !parse_num(toks[0].p, toks[0].n, &idx) || idx >= RP__LF_RND_SLOTS)
		return rp__lf_fail(r, RP_E_RANGE, "RANDOMSTRING: index must be 0 to %d", RP__LF_RND_SLOTS - 1);
	const tok *const t = &toks[1];
	char *const out = r->rnd[idx];
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		char ch = t->p[i];
		if (ch == '[') {
			const char *const close = memchr(t->p + i + 1, ']', t->n - i - 1);
			if (!close)
				return rp__lf_fail(r, RP_E_SYNTAX, "RANDOMSTRING: unbalanced '['");
			const size_t set = (size_t)(close - (t->p + i + 1));
			if (set == 0)
				return rp__lf_fail(r, RP_E_SYNTAX, "RANDOMSTRING: empty []");
			ch = t->p[i + 1 + rp__lf_random(r) % set];
			i += set + 1;
		}
		if (n == RP__LF_RND_MAX)
			return rp__lf_fail(r, RP_E_LIMIT, "RANDOMSTRING: longer than %d bytes", RP__LF_RND_MAX);
		out[n++] = ch;
	}
	out[n] = '\0';
	r->rnd_len[idx] = (uint16_t)n;
	r->have_rnd = true;
	return 0;
}

/* Replace $0..$9 by the RANDOMSTRING values, into r->subst. */
static int substitute(rp__lf_reader *r, const char **s, size_t *n)
{
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		const char ch = (*s)[i];
		if (ch == '$' && i + 1 < *n && (*s)[i + 1] >= '0' && (*s)[i + 1] <= '9') {
			const unsigned idx = (unsigned)((*s)[++i] - '0');
			if (k + r->rnd_len[idx] > RP__LF_LINE_MAX)
				return rp__lf_fail(r, RP_E_LIMIT, "line longer than %u bytes after $%u", RP__LF_LINE_MAX, idx);
			memcpy(r->subst + k, r->rnd[idx], r->rnd_len[idx]);
			k += r->rnd_len[idx];
			continue;
		}
		if (k == RP__LF_LINE_MAX)
			return rp__lf_fail(r, RP_E_LIMIT, "line longer than %u bytes", RP__LF_LINE_MAX);
		r->subst[k++] = ch;
	}
	*s = r->subst;
	*n = k;
	return 0;
}

/* Seconds with up to nine decimals -> ns. */
static int timestamp(rp__lf_reader *r, const char *p, size_t n, uint64_t *ns)
{
	char b[64];
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		if (sec > (UINT64_MAX / 1000000000u - 9) / 10)
			return rp__lf_fail(r, RP_E_RANGE, "time '%s' is out of range", shown(p, n, b, sizeof(b)));
		sec = sec * 10 + (uint64_t)(p[i] - '0');
	}
	if (i < n && p[i] == '.') {
		for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(p[i] - '0');
				digits++;
			}
	}
	if (i != n)
		return rp__lf_fail(r, RP_E_SYNTAX, "bad time '%s'", shown(p, n, b, sizeof(b)));
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return 0;
}

/*
 * How many leading bytes are certainly free of control bytes and DEL, eight
 * at a time (the word tests flag any byte below 0x20 or equal to 0x7f; a
 * flagged word is left to the byte loop, which also allows tab and CR).
 */
static size_t clean_prefix(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		const uint64_t d = x ^ (0x7f * ones);
		if (((x - 0x20 * ones) & ~x & highs) | ((d - ones) & ~d & highs))
			break;
	}
	return i;
}

int rp__lf_parse_line(rp__lf_reader *r, const char *s, size_t n, rp__lf_line *out)
{
	out->kind = RP__LF_L_BLANK;
	out->has_time = false;
	/* Bytes a text line never holds are binary garbage, not a loadfile. */
	for (size_t i = clean_prefix(s, n); i < n; i++) {
		const unsigned char ch = (unsigned char)s[i];
		if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f)
			return rp__lf_fail(r, RP_E_SYNTAX, "binary data (byte 0x%02x at column %zu)", ch, i + 1);
	}
	while (n && (is_space(s[n - 1]) || s[n - 1] == '\r'))
		n--;
	const char *p = s, *end = s + n;
	while (p < end && is_space(*p))
		p++;
	if (p == end || *p == '#')
		return 0;
	if (r->have_rnd && memchr(p, '$', (size_t)(end - p))) {
		size_t m = (size_t)(end - p);
		const int rc = substitute(r, &p, &m);
		if (rc < 0)
			return rc;
		end = p + m;
	}
	/* A leading number is the time in seconds. */
	if ((*p >= '0' && *p <= '9') || *p == '.') {
		const char *const t0 = p;
		while (p < end && !is_space(*p))
			p++;
		const int rc = timestamp(r, t0, (size_t)(p - t0), &out->time);
		if (rc < 0)
			return rc;
		out->has_time = true;
		while (p < end && is_space(*p))
			p++;
		if (p == end)
			return rp__lf_fail(r, RP_E_SYNTAX, "a time and no command");
	}
	const char *const w = p;
	while (p < end && !is_space(*p))
		p++;
	const size_t wn = (size_t)(p - w);
	const char *q = p;
	while (q < end && is_space(*q))
		q++;
	const int path_first = q < end && (*q == '"' || *q == '/' || *q == '\\');
	const int k = rp__lf_dict_find(&r->dict, w, wn, path_first);
	char b[64];
	if (k < 0)
		return rp__lf_fail(r, RP_E_SYNTAX, "unknown command '%s'", shown(w, wn, b, sizeof(b)));
	if (k == RP__LF_K_WRITEPATTERN) { /* the rest of the line is write data: no op carries data */
		out->kind = RP__LF_L_CTL;
		out->word = k;
		return 0;
	}
	tok toks[RP__LF_ARGS_MAX + 1];
	size_t ntok = 0;
	int rc = tokenize(r, p, end, toks, RP__LF_ARGS_MAX + 1, &ntok);
	if (rc < 0)
		return rc;
	if (k < RP__LF_C__COUNT) {
		out->kind = RP__LF_L_OP;
		return op_line(r, k, toks, ntok, &out->op);
	}
	out->kind = RP__LF_L_CTL;
	out->word = k;
	switch (k) {
	case RP__LF_K_RANDOMSTRING:
		return randomstring(r, toks, ntok);
	case RP__LF_K_ENDLOOP:
		if (ntok != 0)
			return rp__lf_fail(r, RP_E_SYNTAX, "ENDLOOP takes no arguments");
		return 0;
	default: /* LOOP n, REPEAT n, SETSP n, WAITSP n */
		if (ntok != 1)
			return rp__lf_fail(r, RP_E_SYNTAX, "%s: expected one number", rp__lf_word_name(k));
		if (toks[0].quoted || !parse_num(toks[0].p, toks[0].n, &out->num))
			return rp__lf_fail(r, RP_E_SYNTAX, "%s: bad number '%s'", rp__lf_word_name(k),
					   shown(toks[0].p, toks[0].n, b, sizeof(b)));
		return 0;
	}
}
