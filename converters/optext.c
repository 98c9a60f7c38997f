/* The canonical text form of ops (docs/op-model.md "Canonical text form") -> op records. */
#include "converters/lines.h"
#include "converters/optext.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"
#include "formats/status.h"
#include "formats/strtab.h"

struct rp_optext {
	rp_sink *sink;
	rp_strtab *strings;
	const char *name;
	rp_optext_opts opts;
	rp_trace_meta meta;
	bool meta_sent;
	uint64_t line;
	uint64_t skipped;
	char *sbuf; /* an unescaped string: RP_STR_MAX bytes */
};

/* A bounded view of the rest of a line; nothing past end is ever read. */
typedef struct lcur {
	const char *p, *end;
} lcur;

static bool at(const lcur *c, char ch)
{
	return c->p < c->end && *c->p == ch;
}

static bool eat(lcur *c, char ch)
{
	if (!at(c, ch))
		return false;
	c->p++;
	return true;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Digits in base (10, 16 or 8) into *v; false on none or overflow. */
static bool get_uint(lcur *c, unsigned base, uint64_t *v)
{
	uint64_t x = 0;
	const char *const start = c->p;
	for (; c->p < c->end; c->p++) {
		const char ch = *c->p;
		unsigned d;
		if (is_digit(ch))
			d = (unsigned)(ch - '0');
		else if (base == 16 && ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (base == 16 && ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			break;
		if (d >= base || x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	*v = x;
	return c->p > start;
}

static bool get_u32(lcur *c, unsigned base, uint32_t *v)
{
	uint64_t x;
	if (!get_uint(c, base, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* "-" (unknown) or S.NNNNNNNNN (exactly nine decimals, as cat writes them) into ns. */
static bool get_time(lcur *c, uint64_t *ns)
{
	if (eat(c, '-')) {
		*ns = RP_TIME_UNKNOWN;
		return true;
	}
	uint64_t s, frac;
	if (!get_uint(c, 10, &s) || !eat(c, '.'))
		return false;
	/* cat writes 9 decimals; a hand-written trace may give fewer ("0.5 0.75 c1 ..."). */
	const char *const f = c->p;
	if (!get_uint(c, 10, &frac) || c->p - f < 1 || c->p - f > 9)
		return false;
	for (ptrdiff_t d = c->p - f; d < 9; d++)
		frac *= 10;
	if (s > (UINT64_MAX - frac) / 1000000000u)
		return false;
	*ns = s * 1000000000u + frac;
	return *ns != RP_TIME_UNKNOWN; /* that value is spelt "-" */
}

/* The end of a field's value: the next space (strings are scanned on their own). */
static const char *word_end(const lcur *c)
{
	const char *p = c->p;
	while (p < c->end && *p != ' ')
		p++;
	return p;
}

/*
 * A string as cat writes it: printable ASCII as is, \\ \" and \xNN escapes.
 * With quote, it starts and ends with '"'; without, it runs to the end.
 * Into buf (RP_STR_MAX bytes); the length in *len, or -1 with why in *why.
 */
static int get_string(lcur *c, bool quote, char *buf, uint32_t *len, const char **why)
{
	if (quote && !eat(c, '"')) {
		*why = "a string must be in double quotes";
		return -1;
	}
	uint32_t n = 0;
	for (;;) {
		if (c->p >= c->end) {
			if (!quote)
				break;
			*why = "unterminated string";
			return -1;
		}
		char ch = *c->p++;
		if (quote && ch == '"')
			break;
		if (ch == '\\') {
			if (c->p >= c->end) {
				*why = "a backslash at the end of the line";
				return -1;
			}
			const char e = *c->p++;
			if (e == '\\' || e == '"') {
				ch = e;
			} else if (e == 'x') {
				const int hi = c->end - c->p >= 2 ? rp_hex_digit(c->p[0]) : -1;
				const int lo = hi >= 0 ? rp_hex_digit(c->p[1]) : -1;
				if (lo < 0) {
					*why = "a backslash-x escape needs two hex digits";
					return -1;
				}
				ch = (char)(hi * 16 + lo);
				c->p += 2;
			} else {
				*why = "unknown escape (a backslash takes a backslash, a double quote or xNN)";
				return -1;
			}
		}
		if (n == RP_STR_MAX) {
			*why = "string longer than 64 KiB";
			return -1;
		}
		buf[n++] = ch;
	}
	*len = n;
	return 0;
}

/* "a,b,bitN" over the names of `which` (rp_op_format's) into *bits; -1 with the bad name in bad and badlen. */
static int get_bits(const char *p, const char *end, rp_value_names which, uint32_t *bits, const char **bad,
		    size_t *badlen)
{
	size_t n;
	const char *const *const names = rp_op_value_names(which, &n);
	uint32_t v = 0;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		if (!comma)
			comma = end;
		const size_t l = (size_t)(comma - p);
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			if (names[i][0] && strlen(names[i]) == l && memcmp(names[i], p, l) == 0) {
				v |= 1u << i;
				found = true;
			}
		if (!found && l > 3 && memcmp(p, "bit", 3) == 0) {
			lcur d = { p + 3, comma };
			uint64_t b;
			if (get_uint(&d, 10, &b) && d.p == comma && b < 32) {
				v |= 1u << b;
				found = true;
			}
		}
		if (!found) {
			*bad = p;
			*badlen = l;
			return -1;
		}
		p = comma < end ? comma + 1 : end;
		if (comma < end && p == end) { /* a trailing comma names nothing */
			*bad = comma;
			*badlen = 1;
			return -1;
		}
	}
	*bits = v;
	return 0;
}


static int bad_linef(rp_optext *t, char *errbuf, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad_linef(rp_optext *t, char *errbuf, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rp_fail(errbuf, RP_E_INVAL, "%s:%" PRIu64 ": %s", t->name, t->line, what);
}

/* An error quoting at most 64 bytes of the line (fmt has one %.*s). */
#define bad_line(t, errbuf, fmt, detail, dlen) \
	bad_linef(t, errbuf, fmt, (int)((size_t)(dlen) > 64 ? 64 : (size_t)(dlen)), (const char *)(detail))

/* The fields of a key=value token; a key given twice is an error (an edit that left the old value). */
enum {
	K_PATH, K_PATH2, K_FH, K_OFF, K_LEN, K_RET, K_FH2, K_OFF2, K_WANT, K_DISP, K_OF, K_SET, K_MODE,
	K_UID, K_GID, K_ATIME, K_MTIME, K_FLAGS, K_RAW, K__COUNT
};
static const char *const keys[K__COUNT] = { "path", "path2", "fh", "off", "len", "ret", "fh2", "off2", "want", "disp",
					    "of", "set", "mode", "uid", "gid", "atime", "mtime", "flags", "raw" };

static int intern(rp_optext *t, const char *s, uint32_t len, uint32_t *id, char *errbuf)
{
	const int64_t got = rp_sink_intern(t->sink, t->strings, s, len);
	if (got < 0)
		return rp_fail(errbuf, (int)got, "%s:%" PRIu64 ": %s", t->name, t->line,
			       t->sink->errbuf[0] ? t->sink->errbuf : rp_strerror((int)got));
	*id = (uint32_t)got;
	return 0;
}

/* raw=PROTO[:access=0xN,disp=N,opts=0xN,level=N] */
static int get_raw(rp_optext *t, const char *p, const char *end, rp_op *op, char *errbuf)
{
	const char *colon = memchr(p, ':', (size_t)(end - p));
	if (!colon)
		colon = end;
	const size_t plen = (size_t)(colon - p);
	bool found = false;
	for (unsigned i = 0; i < RP_PROTO__COUNT && !found; i++) {
		const char *const n = rp_proto_name(i);
		if (strlen(n) == plen && memcmp(n, p, plen) == 0) {
			op->proto = (uint8_t)i;
			found = true;
		}
	}
	if (!found && plen > 5 && memcmp(p, "proto", 5) == 0) {
		lcur d = { p + 5, colon };
		uint64_t v;
		if (get_uint(&d, 10, &v) && d.p == colon && v <= UINT8_MAX) {
			op->proto = (uint8_t)v;
			found = true;
		}
	}
	if (!found)
		return bad_line(t, errbuf, "raw: unknown protocol '%.*s'", p, plen);
	lcur c = { colon, end };
	if (!eat(&c, ':'))
		return 0;
	do {
		const char *const eq = memchr(c.p, '=', (size_t)(c.end - c.p));
		if (!eq)
			return bad_line(t, errbuf, "raw: '%.*s' is no key=value", c.p, (size_t)(c.end - c.p));
		const size_t kl = (size_t)(eq - c.p);
		const char *const k = c.p;
		c.p = eq + 1;
		uint32_t *dst;
		unsigned base = 10;
		if (kl == 6 && memcmp(k, "access", 6) == 0)
			dst = &op->raw.access, base = 16;
		else if (kl == 4 && memcmp(k, "disp", 4) == 0)
			dst = &op->raw.disposition;
		else if (kl == 4 && memcmp(k, "opts", 4) == 0)
			dst = &op->raw.options, base = 16;
		else if (kl == 5 && memcmp(k, "level", 5) == 0)
			dst = &op->raw.level;
		else
			return bad_line(t, errbuf, "raw: unknown key '%.*s'", k, kl);
		if (base == 16 && !(c.end - c.p > 2 && c.p[0] == '0' && c.p[1] == 'x'))
			return bad_line(t, errbuf, "raw: %.*s needs a 0x value", k, kl);
		if (base == 16)
			c.p += 2;
		if (!get_u32(&c, base, dst) || (c.p < c.end && *c.p != ','))
			return bad_line(t, errbuf, "raw: bad value of %.*s", k, kl);
	} while (eat(&c, ','));
	return 0;
}

/* " (NAME)" or " (nt 0x0000abcd)": the protocol status, its kind found from the name. */
static int get_proto_status(rp_optext *t, const char *p, const char *end, rp_op *op, char *errbuf)
{
	static const struct {
		const char *word;
		rp_status_kind kind;
	} kinds[] = { { "nt", RP_SK_NT }, { "nfs3", RP_SK_NFS3 }, { "nfs4", RP_SK_NFS4 }, { "errno", RP_SK_ERRNO } };
	const size_t len = (size_t)(end - p);
	const char *const sp = memchr(p, ' ', len);
	if (sp) {
		const size_t wl = (size_t)(sp - p);
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			if (strlen(kinds[i].word) != wl || memcmp(kinds[i].word, p, wl) != 0)
				continue;
			lcur c = { sp + 1, end };
			if (!eat(&c, '0') || !eat(&c, 'x') || !get_u32(&c, 16, &op->proto_status) || c.p != end)
				break;
			op->status_kind = (uint8_t)kinds[i].kind;
			return 0;
		}
		return bad_line(t, errbuf, "bad protocol status '%.*s'", p, len);
	}
	/* A name: the kind whose table spells it so (the op's protocol first, as names may repeat across kinds). */
	const rp_status_kind pref = op->proto == RP_PROTO_NFS3 || op->proto == RP_PROTO_DBENCH_NFS ? RP_SK_NFS3
				    : op->proto == RP_PROTO_NFS4				 ? RP_SK_NFS4
				    : op->proto == RP_PROTO_POSIX				 ? RP_SK_ERRNO
												 : RP_SK_NT;
	const rp_status_kind order[] = { pref, RP_SK_NT, RP_SK_NFS3, RP_SK_NFS4, RP_SK_ERRNO };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint32_t code;
		if (rp_status_proto_parse(order[i], p, len, &code) < 0)
			continue;
		const char *const back = rp_status_proto_name(order[i], code);
		if (back && strlen(back) == len && memcmp(back, p, len) == 0) {
			op->status_kind = (uint8_t)order[i];
			op->proto_status = code;
			return 0;
		}
	}
	return bad_line(t, errbuf, "unknown protocol status '%.*s'", p, len);
}

/* "-> STATUS [(PROTO)]" */
static int get_status(rp_optext *t, lcur *c, rp_op *op, char *errbuf)
{
	const char *const s = c->p;
	const char *const e = word_end(c);
	const size_t sl = (size_t)(e - s);
	int32_t canon;
	if (rp_status_from_name(s, sl, &canon) == 0) {
		op->status = canon;
	} else if (sl > 1 && s[0] == 'E') {
		lcur d = { s + 1, e };
		const bool neg = eat(&d, '-');
		uint64_t v;
		if (!get_uint(&d, 10, &v) || d.p != e || v > (neg ? (uint64_t)INT32_MAX + 1 : (uint64_t)INT32_MAX))
			return bad_line(t, errbuf, "unknown status '%.*s'", s, sl);
		op->status = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
	} else {
		return bad_line(t, errbuf, "unknown status '%.*s'", s, sl);
	}
	c->p = e;
	if (c->p == c->end)
		return 0;
	if (!eat(c, ' ') || !eat(c, '(') || c->end - c->p < 2 || c->end[-1] != ')')
		return bad_line(t, errbuf, "after the status: '%.*s' (expected \" (protocol status)\")", c->p,
				(size_t)(c->end - c->p));
	const int rc = get_proto_status(t, c->p, c->end - 1, op, errbuf);
	c->p = c->end;
	return rc;
}

static int send_meta(rp_optext *t, char *errbuf)
{
	if (t->meta_sent)
		return 0;
	t->meta_sent = true;
	const int rc = t->sink->meta(t->sink, &t->meta);
	return rc < 0 ? rp_fail(errbuf, rc, "%s", t->sink->errbuf) : 0;
}

/* cat --meta's comment lines; other comments are ignored. */
static int meta_line(rp_optext *t, lcur *c, char *errbuf)
{
	if (t->meta_sent)
		return 0; /* a comment among the ops: nothing to keep */
	static const char *const heads[] = { "# source ", "# start ", "# host ", "# input " };
	size_t h = 0;
	for (; h < 4; h++)
		if ((size_t)(c->end - c->p) >= strlen(heads[h]) && memcmp(c->p, heads[h], strlen(heads[h])) == 0)
			break;
	if (h == 4)
		return 0;
	c->p += strlen(heads[h]);
	if (h == 0) {
		const char *w = c->p, *const e0 = word_end(c);
		bool found = false;
		for (uint32_t s = 0; s < 32 && !found; s++) {
			const char *const n = rp_source_name(s);
			if (strlen(n) == (size_t)(e0 - w) && memcmp(n, w, (size_t)(e0 - w)) == 0 &&
			    (s == 0 || strcmp(n, "unknown") != 0)) {
				t->meta.source = s;
				found = true;
			}
		}
		if (!found)
			return bad_line(t, errbuf, "unknown source '%.*s'", w, (size_t)(e0 - w));
		c->p = e0;
		while (eat(c, ' ')) {
			w = c->p;
			const char *const e = word_end(c);
			const size_t l = (size_t)(e - w);
			if (l == 5 && memcmp(w, "timed", 5) == 0)
				t->meta.flags |= RP_META_TIMED;
			else if (l == 10 && memcmp(w, "anonymized", 10) == 0)
				t->meta.flags |= RP_META_ANONYMIZED;
			else if (l == 9 && memcmp(w, "truncated", 9) == 0)
				t->meta.flags |= RP_META_TRUNCATED;
			else
				return bad_line(t, errbuf, "unknown trace flag '%.*s'", w, l);
			c->p = e;
		}
		return 0;
	}
	if (h == 1) {
		uint64_t ns;
		if (!get_time(c, &ns) || ns > INT64_MAX || c->p != c->end)
			return bad_line(t, errbuf, "bad start time (seconds with nine decimals)%.*s", "", 0);
		t->meta.capture_start_ns = (int64_t)ns;
		return 0;
	}
	uint32_t len;
	const char *why = NULL;
	if (get_string(c, false, t->sbuf, &len, &why) < 0)
		return bad_line(t, errbuf, "%.*s", why, strlen(why));
	char *const dst = h == 2 ? t->meta.host : t->meta.source_name;
	const size_t cap = h == 2 ? sizeof(t->meta.host) : sizeof(t->meta.source_name);
	if (len >= cap || memchr(t->sbuf, '\0', len))
		return bad_line(t, errbuf, "%.*s too long or holds a NUL", h == 2 ? "host" : "input", 5);
	memcpy(dst, t->sbuf, len);
	dst[len] = '\0';
	return 0;
}

static int op_line(rp_optext *t, lcur *c, char *errbuf)
{
	const int mrc = send_meta(t, errbuf); /* before the first string the op defines */
	if (mrc < 0)
		return mrc;
	rp_op op;
	memset(&op, 0, sizeof(op));
	if (!get_time(c, &op.t_start) || op.t_start == RP_TIME_UNKNOWN || !eat(c, ' '))
		return bad_line(t, errbuf, "expected a start time (seconds with nine decimals) at '%.*s'", c->p,
				(size_t)(word_end(c) - c->p));
	if (!get_time(c, &op.t_end) || !eat(c, ' '))
		return bad_line(t, errbuf, "expected an end time or - at '%.*s'", c->p, (size_t)(word_end(c) - c->p));
	if (!eat(c, 'c') || !get_u32(c, 10, &op.client) || !eat(c, ' '))
		return bad_line(t, errbuf, "expected c<client> at '%.*s'", c->p, (size_t)(word_end(c) - c->p));
	const char *const name = c->p;
	c->p = word_end(c);
	const int code = rp_op_from_name(name, (size_t)(c->p - name));
	if (code >= 0) {
		op.op = (uint16_t)code;
	} else {
		lcur d = { name, c->p };
		uint64_t v;
		if (!(c->p - name > 2 && eat(&d, 'o') && eat(&d, 'p') && get_uint(&d, 10, &v) && d.p == c->p &&
		      v <= UINT16_MAX))
			return bad_line(t, errbuf, "unknown op '%.*s'", name, (size_t)(c->p - name));
		op.op = (uint16_t)v;
	}
	bool seen[K__COUNT] = { false };
	for (;;) {
		if (!eat(c, ' '))
			return bad_line(t, errbuf, "expected ' -> STATUS' at the end of the line%.*s", "", 0);
		if (c->end - c->p >= 3 && memcmp(c->p, "-> ", 3) == 0) {
			c->p += 3;
			break;
		}
		const char *const key = c->p;
		const char *const we = word_end(c);
		const char *const eq = memchr(key, '=', (size_t)(we - key));
		if (!eq)
			return bad_line(t, errbuf, "'%.*s' is no key=value field", key, (size_t)(we - key));
		const size_t kl = (size_t)(eq - key);
		unsigned k = 0;
		while (k < K__COUNT && !(strlen(keys[k]) == kl && memcmp(keys[k], key, kl) == 0))
			k++;
		if (k == K__COUNT)
			return bad_line(t, errbuf, "unknown field '%.*s'", key, kl);
		if (seen[k])
			return bad_line(t, errbuf, "field '%.*s' given twice", key, kl);
		seen[k] = true;
		c->p = eq + 1;
		if (k == K_PATH || k == K_PATH2) {
			uint32_t len;
			const char *why = NULL;
			if (at(c, '#'))
				return bad_line(t, errbuf, "%.*s names a string the trace never defined (#N): no text to convert",
						key, kl);
			if (get_string(c, true, t->sbuf, &len, &why) < 0)
				return bad_line(t, errbuf, "%.*s", why, strlen(why));
			const int rc = intern(t, t->sbuf, len, k == K_PATH ? &op.path : &op.path2, errbuf);
			if (rc < 0)
				return rc;
			if (c->p < c->end && *c->p != ' ')
				return bad_line(t, errbuf, "text after the closing quote of %.*s", key, kl);
			continue;
		}
		const char *const v = c->p, *const ve = word_end(c);
		const size_t vl = (size_t)(ve - v);
		lcur d = { v, ve };
		bool ok = true;
		uint32_t u32;
		const char *bad = NULL;
		size_t badlen = 0;
		switch (k) {
		case K_FH: ok = get_uint(&d, 10, &op.handle); break;
		case K_OFF: ok = get_uint(&d, 10, &op.offset); break;
		case K_LEN: ok = get_uint(&d, 10, &op.length); break;
		case K_RET: ok = get_uint(&d, 10, &op.result); break;
		case K_FH2: ok = get_uint(&d, 10, &op.handle2); break;
		case K_OFF2: ok = get_uint(&d, 10, &op.offset2); break;
		case K_UID: ok = get_u32(&d, 10, &op.uid); break;
		case K_GID: ok = get_u32(&d, 10, &op.gid); break;
		case K_MODE: ok = eat(&d, '0') && (d.p == ve || get_u32(&d, 8, &op.mode)); break;
		case K_ATIME: ok = get_time(&d, &op.atime); break;
		case K_MTIME: ok = get_time(&d, &op.mtime); break;
		case K_DISP: {
			ok = false;
			size_t ndisp;
			const char *const *const disp_names = rp_op_value_names(RP_NAMES_DISP, &ndisp);
			for (size_t i = 0; i < ndisp && !ok; i++)
				if (strlen(disp_names[i]) == vl && memcmp(disp_names[i], v, vl) == 0) {
					op.disp = (uint8_t)i;
					ok = true;
					d.p = ve;
				}
			if (!ok && get_u32(&d, 10, &u32) && u32 <= UINT8_MAX) {
				op.disp = (uint8_t)u32;
				ok = true;
			}
			break;
		}
		case K_WANT: {
			const char *ue = ve;
			bool unrecorded = false;
			if (vl >= 11 && memcmp(ve - 11, ",unrecorded", 11) == 0) {
				unrecorded = true;
				ue = ve - 11;
			}
			if (!unrecorded && vl == 4 && memcmp(v, "none", 4) == 0)
				op.want = RP_WANT_KNOWN;
			else if (get_bits(v, ue, RP_NAMES_WANT, &op.want, &bad, &badlen) == 0 && op.want)
				op.want |= unrecorded ? 0 : RP_WANT_KNOWN;
			else
				return bad_line(t, errbuf, "want: unknown '%.*s'", bad ? bad : v, bad ? badlen : vl);
			d.p = ve;
			break;
		}
		case K_OF:
		case K_SET:
		case K_FLAGS: {
			uint32_t bits = 0;
			const int rc = k == K_SET		  ? get_bits(v, ve, RP_NAMES_SETATTR, &bits, &bad, &badlen)
				       : k == K_FLAGS		  ? get_bits(v, ve, RP_NAMES_FLAGS, &bits, &bad, &badlen)
				       : op.op == RP_OP_RENAME	  ? get_bits(v, ve, RP_NAMES_RENAME, &bits, &bad, &badlen)
				       : op.op == RP_OP_FALLOCATE ? get_bits(v, ve, RP_NAMES_FALLOCATE, &bits, &bad, &badlen)
				       : op.op == RP_OP_FORK	  ? get_bits(v, ve, RP_NAMES_FORK, &bits, &bad, &badlen)
								  : get_bits(v, ve, RP_NAMES_OPEN, &bits, &bad, &badlen);
			if (rc < 0)
				return bad_linef(t, errbuf, "%s: unknown '%.*s'", keys[k], (int)(badlen > 64 ? 64 : badlen), bad);
			if (k == K_SET)
				op.attrs = bits;
			else if (k == K_OF)
				op.oflags = bits;
			else if (bits > UINT16_MAX)
				return bad_line(t, errbuf, "flags: '%.*s' is beyond the 16 op flags", v, vl);
			else
				op.flags = (uint16_t)bits;
			d.p = ve;
			break;
		}
		case K_RAW: {
			const int rc = get_raw(t, v, ve, &op, errbuf);
			if (rc < 0)
				return rc;
			d.p = ve;
			break;
		}
		}
		if (!ok || d.p != ve)
			return bad_line(t, errbuf, "bad value '%.*s'", key, (size_t)(ve - key));
		c->p = ve;
	}
	const int rc = get_status(t, c, &op, errbuf);
	if (rc < 0)
		return rc;
	if (t->opts.filter_client && op.client != t->opts.client)
		return 0;
	const int orc = t->sink->op(t->sink, &op);
	return orc < 0 ? rp_fail(errbuf, orc, "%s:%" PRIu64 ": %s", t->name, t->line, t->sink->errbuf) : 0;
}

int rp_optext_line(rp_optext *t, const char *line, size_t len, char *errbuf)
{
	t->line++;
	if (t->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
		line += 3; /* a UTF-8 byte-order mark, as an editor may add */
		len -= 3;
	}
	if (len && line[len - 1] == '\r')
		len--;
	lcur c = { line, line + len };
	size_t blank = 0;
	while (blank < len && (line[blank] == ' ' || line[blank] == '\t'))
		blank++;
	if (blank == len)
		return 0;
	if (line[blank] == '#') {
		c.p += blank;
		const int rc = meta_line(t, &c, errbuf);
		return rc < 0 && t->opts.lenient ? (t->skipped++, 0) : rc;
	}
	const int rc = op_line(t, &c, errbuf);
	if (rc == RP_E_INVAL && t->opts.lenient) {
		t->skipped++;
		return 0;
	}
	return rc;
}

int rp_optext_create(rp_optext **out, rp_sink *sink, const char *name, const rp_optext_opts *opts, char *errbuf)
{
	rp_optext *const t = calloc(1, sizeof(*t));
	if (!t)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	t->strings = rp_strtab_create();
	t->sbuf = malloc(RP_STR_MAX);
	if (!t->strings || !t->sbuf) {
		rp_optext_destroy(t);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	t->sink = sink;
	t->name = name;
	if (opts)
		t->opts = *opts;
	t->meta.source = RP_SRC_UNKNOWN;
	*out = t;
	return 0;
}

void rp_optext_destroy(rp_optext *t)
{
	if (!t)
		return;
	rp_strtab_destroy(t->strings);
	free(t->sbuf);
	free(t);
}

int rp_optext_finish(rp_optext *t, char *errbuf)
{
	const int rc = send_meta(t, errbuf);
	if (rc < 0)
		return rc;
	const int frc = t->sink->finish(t->sink);
	return frc < 0 ? rp_fail(errbuf, frc, "%s", t->sink->errbuf) : 0;
}

uint64_t rp_optext_skipped(const rp_optext *t)
{
	return t->skipped;
}

/* rp_optext_line as rp__mem_lines calls it. */
static int optext_line(void *t, const char *line, size_t n, char *errbuf)
{
	return rp_optext_line(t, line, n, errbuf);
}

int rp_optext_parse_mem(const void *buf, size_t len, const char *name, rp_sink *sink, const rp_optext_opts *opts,
			uint64_t *skipped, char *errbuf)
{
	rp_optext *t = NULL;
	int rc = rp_optext_create(&t, sink, name, opts, errbuf);
	if (rc < 0)
		return rc;
	rc = rp__mem_lines(buf, len, t, optext_line, errbuf);
	if (rc == 0)
		rc = rp_optext_finish(t, errbuf);
	if (skipped)
		*skipped = t->skipped;
	rp_optext_destroy(t);
	return rc;
}

/*
 * An op line begins "S.NNNNNNNNN (S.NNNNNNNNN|-) cN ": no loadfile line does
 * (a timestamped one has a command second).  cat --meta's first line
 * "# source NAME" also says so, for a trace without ops.
 */
bool rp_optext_sniff(const void *head, size_t len)
{
	const char *p = head;
	const char *const end = p + len;
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		lcur c = { p, eol };
		while (at(&c, ' ') || at(&c, '\t'))
			c.p++;
		if (p == head && (size_t)(eol - p) > 9 && memcmp(p, "# source ", 9) == 0)
			return true;
		if (c.p == eol || *c.p == '#' || *c.p == '\r') {
			p = eol < end ? eol + 1 : end;
			continue;
		}
		uint64_t ns, cl;
		return get_time(&c, &ns) && ns != RP_TIME_UNKNOWN && eat(&c, ' ') && get_time(&c, &ns) && eat(&c, ' ') &&
		       eat(&c, 'c') && get_uint(&c, 10, &cl) && eat(&c, ' ');
	}
	return false;
}
