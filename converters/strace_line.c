/* The strace log's line syntax: prefixes, arguments, results, C strings, flag lists (strace(1) output format). */
#include "converters/strace_int.h"

#include <errno.h>
#include <string.h>

#include "formats/cursor.h"

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_ident(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

/* Decimal digits at *p (before end) into *v; false on none or more than 19 (no overflow). */
static bool get_dec(const char **p, const char *end, uint64_t *v, unsigned *ndigits)
{
	uint64_t x = 0;
	unsigned n = 0;
	while (*p < end && is_digit(**p)) {
		if (n == 19)
			return false;
		x = x * 10 + (uint64_t)(**p - '0');
		(*p)++;
		n++;
	}
	*v = x;
	if (ndigits)
		*ndigits = n;
	return n > 0;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

/* seconds.fraction (1 to 9 decimals) as ns; seconds below 10^10 (year 2286), so the sum never overflows. */
static bool get_time(const char **p, const char *end, uint64_t *ns)
{
	uint64_t s, frac;
	unsigned nd;
	if (!get_dec(p, end, &s, &nd) || s >= 10000000000ull || *p >= end || **p != '.')
		return false;
	(*p)++;
	if (!get_dec(p, end, &frac, &nd) || nd > 9)
		return false;
	for (; nd < 9; nd++)
		frac *= 10;
	*ns = s * 1000000000ull + frac;
	return true;
}

static bool starts(const char *p, const char *end, const char *lit)
{
	const size_t n = strlen(lit);
	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

static bool ends(const char *p, const char *end, const char *lit)
{
	const size_t n = strlen(lit);
	return (size_t)(end - p) >= n && memcmp(end - n, lit, n) == 0;
}

int rp__st_line_parse(const char *line, size_t len, rp__st_line *out, const char **why)
{
	memset(out, 0, sizeof(*out));
	const char *p = line;
	const char *end = line + len;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	skip_spaces(&p, end);
	if (p == end) {
		out->kind = RP__ST_BLANK;
		return 0;
	}
	uint64_t v;
	if (starts(p, end, "[pid ")) { /* strace -f writing to a terminal */
		p += 5;
		skip_spaces(&p, end);
		if (!get_dec(&p, end, &v, NULL) || v > UINT32_MAX || p >= end || *p != ']') {
			*why = "bad [pid N] prefix";
			return -1;
		}
		p++;
		out->has_pid = true;
		out->pid = (uint32_t)v;
		skip_spaces(&p, end);
	} else if (p < end && is_digit(*p)) {
		/* "PID TIME", "TIME" or "PID name(": the first word has no '.' only when it is a pid. */
		const char *q = p;
		while (q < end && is_digit(*q))
			q++;
		if (q < end && (*q == ' ' || *q == '\t')) {
			if (!get_dec(&p, end, &v, NULL) || v > UINT32_MAX) {
				*why = "bad pid";
				return -1;
			}
			out->has_pid = true;
			out->pid = (uint32_t)v;
			skip_spaces(&p, end);
		}
	}
	if (p < end && is_digit(*p)) {
		if (!get_time(&p, end, &out->time_ns) || p >= end || (*p != ' ' && *p != '\t')) {
			*why = "bad timestamp (seconds.micro, strace -ttt)";
			return -1;
		}
		out->has_time = true;
		skip_spaces(&p, end);
	}
	if (starts(p, end, "--- ")) {
		out->kind = RP__ST_SIGNAL;
		return 0;
	}
	if (starts(p, end, "+++ ")) {
		out->kind = starts(p, end, "+++ killed by ") ? RP__ST_KILLED : RP__ST_EXITED;
		return 0;
	}
	if (starts(p, end, "<... ")) {
		p += 5;
		const char *const n = p;
		while (p < end && is_ident(*p))
			p++;
		if (p == n || !starts(p, end, " resumed>")) {
			*why = "bad <... name resumed> marker";
			return -1;
		}
		out->kind = RP__ST_RESUMED;
		out->name = (rp__st_str){ n, (uint32_t)(p - n) };
		p += 9;
		out->body = (rp__st_str){ p, (uint32_t)(end - p) };
		return 0;
	}
	const char *const n = p;
	while (p < end && is_ident(*p))
		p++;
	if (p == n || p >= end || *p != '(' || p - n > 64) {
		*why = "expected a syscall, a signal (---), an exit (+++) or a resumed call";
		return -1;
	}
	out->name = (rp__st_str){ n, (uint32_t)(p - n) };
	p++;
	if (ends(p, end, "<unfinished ...>")) {
		const char *e = end - 16;
		while (e > p && e[-1] == ' ')
			e--;
		out->kind = RP__ST_UNFINISHED;
		out->body = (rp__st_str){ p, (uint32_t)(e - p) };
		return 0;
	}
	out->kind = RP__ST_CALL;
	out->body = (rp__st_str){ p, (uint32_t)(end - p) };
	return 0;
}

/*
 * Past an fd annotation at p ('<' already taken): nested <> (-yy), backslash
 * escapes; NULL if it never closes.  A path escapes its '>' (\76); a socket's
 * -yy detail does not (TCP:[1.2.3.4:5->6.7.8.9:10]), so outside a path a '>'
 * inside [] does not close it.
 */
static const char *skip_annot(const char *p, const char *end)
{
	unsigned depth = 1, brackets = 0;
	const bool path = p < end && *p == '/';
	while (p < end) {
		const char ch = *p++;
		if (ch == '\\') {
			if (p < end)
				p++;
		} else if (ch == '<') {
			depth++;
		} else if (!path && ch == '[') {
			brackets++;
		} else if (!path && ch == ']' && brackets) {
			brackets--;
		} else if (ch == '>' && !brackets && --depth == 0) {
			return p;
		}
	}
	return NULL;
}

static rp__st_str trim(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return (rp__st_str){ p, (uint32_t)(e - p) };
}

/* The arguments up to the ')' that closes the call; *closed false when the text ends first. */
static const char *split_args(const char *p, const char *end, rp__st_call *c, bool *closed)
{
	unsigned depth = 0;
	const char *arg = p;
	bool cut = false; /* inside a string, annotation or comment when the text ended */
	*closed = false;
	while (p < end) {
		const char ch = *p;
		if (ch == '"') {
			p++;
			while (p < end && *p != '"')
				p += *p == '\\' && p + 1 < end ? 2 : 1;
			if (p >= end) {
				cut = true;
				break;
			}
			p++;
			continue;
		}
		if (ch == '/' && p + 1 < end && p[1] == '*') {
			const char *const e = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
			if (!e) {
				cut = true;
				break;
			}
			p = e + 2;
			continue;
		}
		if (ch == '<' && p > arg && (is_ident(p[-1]) || p[-1] == ']')) {
			const char *const e = skip_annot(p + 1, end);
			if (!e) {
				cut = true;
				break;
			}
			p = e;
			continue;
		}
		if (ch == '(' || ch == '[' || ch == '{') {
			depth++;
		} else if (ch == ')' || ch == ']' || ch == '}') {
			if (depth == 0) {
				if (ch != ')')
					return NULL;
				const rp__st_str a = trim(arg, p);
				if ((a.len || c->nargs) && c->nargs < RP__ST_ARGS_MAX)
					c->args[c->nargs++] = a;
				*closed = true;
				return p + 1;
			}
			depth--;
		} else if (ch == ',' && depth == 0) {
			if (c->nargs < RP__ST_ARGS_MAX)
				c->args[c->nargs++] = trim(arg, p);
			arg = p + 1;
		}
		p++;
	}
	/* the text ended outside any string or bracket: its last argument is whole (strace prints an unfinished call's arguments whole) */
	if (!cut && depth == 0) {
		const rp__st_str a = trim(arg, end);
		if (a.len && c->nargs < RP__ST_ARGS_MAX)
			c->args[c->nargs++] = a;
	}
	return end;
}

int rp__st_call_parse(const char *body, size_t len, bool partial, rp__st_call *c, const char **why)
{
	memset(c, 0, sizeof(*c));
	const char *p = body;
	const char *end = body + len;
	bool closed;
	p = split_args(p, end, c, &closed);
	if (!p) {
		*why = "unbalanced brackets in the arguments";
		return -1;
	}
	if (!closed) {
		if (partial)
			return 0; /* what was whole stands; the cut argument is not among them */
		*why = "no closing parenthesis (a cut line?)";
		return -1;
	}
	/* " <0.000012>" at the end: the duration (strace -T). */
	if (end > p && end[-1] == '>') {
		const char *lt = end - 1;
		while (lt > p && lt[-1] != '<')
			lt--;
		const char *q = lt;
		uint64_t d;
		if (lt > p && get_time(&q, end - 1, &d) && q == end - 1) {
			c->has_dur = true;
			c->dur_ns = d;
			end = lt - 1;
		}
	}
	skip_spaces(&p, end);
	if (p >= end || *p != '=') {
		*why = "no '= result' after the arguments";
		return -1;
	}
	p++;
	skip_spaces(&p, end);
	if (p < end && *p == '?') {
		c->res = RP__ST_RES_UNKNOWN;
		p++;
	} else {
		const char *const n = p;
		if (p < end && *p == '-')
			p++;
		while (p < end && (is_digit(*p) || *p == 'x' || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
			p++;
		if (!rp__st_int((rp__st_str){ n, (uint32_t)(p - n) }, &c->ret)) {
			*why = "bad result value";
			return -1;
		}
		c->res = RP__ST_RES_OK;
		if (p < end && *p == '<') {
			const char *const e = skip_annot(p + 1, end);
			if (!e) {
				*why = "unterminated <path> after the result";
				return -1;
			}
			c->has_ret_annot = true;
			c->ret_annot = (rp__st_str){ p + 1, (uint32_t)(e - 1 - (p + 1)) };
			p = e;
		}
	}
	skip_spaces(&p, end);
	if (p < end && *p == 'E') {
		const char *const n = p;
		while (p < end && is_ident(*p))
			p++;
		c->err = (rp__st_str){ n, (uint32_t)(p - n) };
		if (c->res == RP__ST_RES_OK)
			c->res = RP__ST_RES_ERR;
	}
	return 0;
}

bool rp__st_int(rp__st_str s, int64_t *v)
{
	const char *p = s.p;
	const char *const end = s.p + s.len;
	bool neg = false;
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p >= end)
		return false;
	unsigned base = 10;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (end - p > 1 && p[0] == '0') {
		base = 8;
		p++;
	}
	uint64_t x = 0;
	for (; p < end; p++) {
		unsigned d;
		if (is_digit(*p))
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			return false;
		if (d >= base || x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	/* Hex results (mmap's addresses) may use all 64 bits: kept as their two's complement. */
	if (neg ? x > (uint64_t)INT64_MAX + 1 : (base != 16 && x > (uint64_t)INT64_MAX))
		return false;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return true;
}

bool rp__st_fd(rp__st_str s, int64_t *fd, bool *has_annot, rp__st_str *annot)
{
	const char *p = s.p;
	const char *end = s.p + s.len;
	const char *n = p;
	*has_annot = false;
	/* strace 6 marks the fd of a file since removed as 6</d/f>(deleted): the name is still the one it had */
	static const char deleted[] = "(deleted)";
	if (s.len > sizeof(deleted) && end[-1] == ')' && memcmp(end - (sizeof(deleted) - 1), deleted, sizeof(deleted) - 1) == 0 &&
	    end[-(int)sizeof(deleted)] == '>')
		end -= sizeof(deleted) - 1;
	if (starts(p, end, "AT_FDCWD")) {
		*fd = -100;
		p += 8;
	} else {
		if (p < end && *p == '-')
			p++;
		while (p < end && is_digit(*p))
			p++;
		if (!rp__st_int((rp__st_str){ n, (uint32_t)(p - n) }, fd))
			return false;
	}
	if (p == end)
		return true;
	if (*p != '<' || end[-1] != '>')
		return false;
	const char *const e = skip_annot(p + 1, end);
	if (e != end)
		return false;
	*has_annot = true;
	*annot = (rp__st_str){ p + 1, (uint32_t)(end - 1 - (p + 1)) };
	return true;
}

bool rp__st_has_word(rp__st_str s, const char *word)
{
	const size_t n = strlen(word);
	const char *p = s.p;
	const char *const end = s.p + s.len;
	while ((size_t)(end - p) >= n) {
		const char *const hit = memmem(p, (size_t)(end - p), word, n);
		if (!hit)
			return false;
		const bool left = hit == s.p || !is_ident(hit[-1]);
		const bool right = hit + n == end || !is_ident(hit[n]);
		if (left && right)
			return true;
		p = hit + 1;
	}
	return false;
}

bool rp__st_field(rp__st_str s, const char *key, int64_t *v)
{
	const size_t n = strlen(key);
	const char *p = s.p;
	const char *const end = s.p + s.len;
	while ((size_t)(end - p) > n) {
		const char *const hit = memmem(p, (size_t)(end - p), key, n);
		if (!hit)
			return false;
		if (hit == s.p || !is_ident(hit[-1])) {
			const char *const vs = hit + n;
			const char *e = vs;
			if (e < end && *e == '-')
				e++;
			while (e < end && (is_ident(*e)))
				e++;
			return rp__st_int((rp__st_str){ vs, (uint32_t)(e - vs) }, v);
		}
		p = hit + 1;
	}
	return false;
}

/* One escape after a backslash at *p: its byte, or -1 for one strace never writes. */
static int unescape(const char **p, const char *end)
{
	if (*p >= end)
		return -1;
	const char e = *(*p)++;
	switch (e) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'v': return '\v';
	case 'f': return '\f';
	case 'a': return '\a';
	case 'b': return '\b';
	case '\\': return '\\';
	case '"': return '"';
	case '\'': return '\'';
	case 'x': {
		const int hi = *p < end ? rp_hex_digit(**p) : -1;
		const int lo = hi >= 0 && *p + 1 < end ? rp_hex_digit((*p)[1]) : -1;
		if (lo < 0)
			return -1;
		*p += 2;
		return hi * 16 + lo;
	}
	default:
		break;
	}
	if (e < '0' || e > '7')
		return -1;
	int v = e - '0';
	for (int i = 0; i < 2 && *p < end && **p >= '0' && **p <= '7'; i++)
		v = v * 8 + (*(*p)++ - '0');
	return v > 255 ? -1 : v;
}

bool rp__st_string(rp__st_str s, char *buf, uint32_t cap, uint32_t *len, bool *cut)
{
	const char *p = s.p;
	const char *const end = s.p + s.len;
	*cut = false;
	if (p >= end || *p != '"')
		return false;
	p++;
	uint32_t n = 0;
	for (;;) {
		if (p >= end)
			return false;
		int ch = (unsigned char)*p++;
		if (ch == '"')
			break;
		if (ch == '\\' && (ch = unescape(&p, end)) < 0)
			return false;
		if (n == cap)
			return false;
		buf[n++] = (char)ch;
	}
	if (starts(p, end, "...")) {
		*cut = true;
		p += 3;
	}
	*len = n;
	return p == end;
}

bool rp__st_annot_path(rp__st_str a, char *buf, uint32_t cap, uint32_t *len, bool *is_path)
{
	const char *p = a.p;
	const char *const end = a.p + a.len;
	uint32_t n = 0;
	while (p < end && *p != '<') {
		int ch = (unsigned char)*p++;
		if (ch == '\\' && (ch = unescape(&p, end)) < 0)
			return false;
		if (n == cap)
			return false;
		buf[n++] = (char)ch;
	}
	*len = n;
	/* A file is named by its absolute path; pipe:[N], socket:[N], anon_inode:..., TCP:[...] are not files. */
	*is_path = n > 0 && buf[0] == '/';
	return true;
}

bool rp__st_flags(rp__st_str s, const rp__st_flag *table, size_t n, uint64_t *v, unsigned *unknown)
{
	const char *p = s.p;
	const char *const end = s.p + s.len;
	uint64_t x = 0;
	if (p == end)
		return false;
	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		if (!bar)
			bar = end;
		const rp__st_str w = trim(p, bar);
		int64_t num;
		bool found = false;
		if (w.len && is_digit(w.p[0])) {
			if (!rp__st_int(w, &num))
				return false;
			x |= (uint64_t)num;
			found = true;
		}
		for (size_t i = 0; i < n && !found; i++)
			if (strlen(table[i].name) == w.len && memcmp(table[i].name, w.p, w.len) == 0) {
				x |= table[i].value;
				found = true;
			}
		if (!found) {
			if (!w.len)
				return false;
			for (uint32_t i = 0; i < w.len; i++)
				if (!is_ident(w.p[i]))
					return false;
			(*unknown)++;
		}
		p = bar < end ? bar + 1 : end;
		if (bar < end && p == end)
			return false;
	}
	*v = x;
	return true;
}

/* Linux's errno names: the host's values, which are reprise's portable numbering (rp_errno_from_host). */
#define ST_ERRNO_MAP(X)                                                                                            \
	X(EPERM) X(ENOENT) X(ESRCH) X(EINTR) X(EIO) X(ENXIO) X(E2BIG) X(ENOEXEC) X(EBADF) X(ECHILD) X(EAGAIN)       \
	X(ENOMEM) X(EACCES) X(EFAULT) X(ENOTBLK) X(EBUSY) X(EEXIST) X(EXDEV) X(ENODEV) X(ENOTDIR) X(EISDIR)         \
	X(EINVAL) X(ENFILE) X(EMFILE) X(ENOTTY) X(ETXTBSY) X(EFBIG) X(ENOSPC) X(ESPIPE) X(EROFS) X(EMLINK)          \
	X(EPIPE) X(EDOM) X(ERANGE) X(EDEADLK) X(ENAMETOOLONG) X(ENOLCK) X(ENOSYS) X(ENOTEMPTY) X(ELOOP)            \
	X(ENOMSG) X(EIDRM) X(ENOSTR) X(ENODATA) X(ETIME) X(ENOSR) X(EREMOTE) X(ENOLINK) X(EPROTO) X(EBADMSG)      \
	X(EOVERFLOW) X(EILSEQ) X(EUSERS) X(ENOTSOCK) X(EDESTADDRREQ) X(EMSGSIZE) X(EPROTOTYPE) X(ENOPROTOOPT)     \
	X(EPROTONOSUPPORT) X(EOPNOTSUPP) X(EAFNOSUPPORT) X(EADDRINUSE) X(EADDRNOTAVAIL) X(ENETDOWN)               \
	X(ENETUNREACH) X(ECONNABORTED) X(ECONNRESET) X(ENOBUFS) X(EISCONN) X(ENOTCONN) X(ETIMEDOUT)               \
	X(ECONNREFUSED) X(EHOSTUNREACH) X(EALREADY) X(EINPROGRESS) X(ESTALE) X(EDQUOT) X(ECANCELED)                \
	X(EOWNERDEAD) X(ENOTRECOVERABLE) X(ENOMEDIUM) X(EMEDIUMTYPE) X(ENOKEY) X(EKEYEXPIRED) X(EKEYREVOKED)     \
	X(EKEYREJECTED) X(ERFKILL) X(EHWPOISON) X(EUCLEAN) X(EREMOTEIO) X(ENOTUNIQ) X(EBADFD) X(ESTRPIPE)

static const rp__st_flag errnos[] = {
#define ST_ERRNO_ROW(e) { #e, e },
	ST_ERRNO_MAP(ST_ERRNO_ROW)
#undef ST_ERRNO_ROW
	{ "ENOTSUP", EOPNOTSUPP },
	{ "EWOULDBLOCK", EAGAIN },
	{ "EDEADLOCK", EDEADLK },
};

int rp__st_errno(rp__st_str name)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (strlen(errnos[i].name) == name.len && memcmp(errnos[i].name, name.p, name.len) == 0)
			return (int)errnos[i].value;
	return 0;
}
