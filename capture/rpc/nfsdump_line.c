/* One nfsdump text line as a record (Ellard's format.txt: every number hex but times; docs/nfsdump.md). */
#include <stddef.h>
#include <string.h>

#include "capture/rpc/nfsdump_int.h"

/* A line of more tokens than this is no record: two attribute sets and every argument are ~90. */
#define TOKENS_MAX 256

typedef struct tok {
	const char *p;
	uint32_t n;
} tok;

static bool tok_eq(const tok *t, const char *s, size_t n)
{
	return t->n == n && memcmp(t->p, s, n) == 0;
}
/* t is the literal s */
#define tok_is(t, s) tok_eq((t), (s), sizeof(s) - 1)

/* Split on blanks; a token opening with '"' runs to a '"' before a blank or the end (a name may hold blanks). */
static size_t tokenize(const char *s, size_t len, tok *out, size_t max)
{
	size_t n = 0, i = 0;
	while (i < len && n < max) {
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i == len)
			break;
		const size_t start = i;
		if (s[i] == '"') {
			size_t j = i + 1;
			while (j < len && !(s[j] == '"' && (j + 1 == len || s[j + 1] == ' ')))
				j++;
			i = j < len ? j + 1 : len;
		} else {
			while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
				i++;
		}
		out[n++] = (tok){ s + start, (uint32_t)(i - start) };
	}
	return n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number of at most 16 digits (with room for max_bits). */
static bool hex_u64(const tok *t, unsigned max_bits, uint64_t *v)
{
	if (t->n == 0 || t->n > max_bits / 4)
		return false;
	uint64_t x = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		const int d = hexval(t->p[i]);
		if (d < 0)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

static bool hex_u32(const tok *t, uint32_t *v)
{
	uint64_t x = 0;
	if (!hex_u64(t, 32, &x))
		return false;
	*v = (uint32_t)x;
	return true;
}

/* A file handle in hex: an even number of digits, at most NFS3_FHSIZE bytes. */
static bool hex_fh(const tok *t, uint8_t *out, uint8_t *len)
{
	if (t->n == 0 || t->n % 2 || t->n / 2 > RP_NFS3_FHSIZE)
		return false;
	for (uint32_t i = 0; i < t->n; i += 2) {
		const int hi = hexval(t->p[i]), lo = hexval(t->p[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = (uint8_t)(t->n / 2);
	return true;
}

/* A decimal number of 1 to max digits. */
static bool dec(const char *p, size_t n, size_t max, uint64_t *v)
{
	if (n == 0 || n > max)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	*v = x;
	return true;
}

bool rp__nd_time(const char *p, size_t n, bool v2, uint64_t *ns, bool *v2_form)
{
	const char *const dot = memchr(p, '.', n);
	if (!dot)
		return false;
	const size_t sn = (size_t)(dot - p), fn = n - sn - 1;
	uint64_t sec = 0, frac = 0;
	if (!dec(p, sn, 10, &sec) || !dec(dot + 1, fn, 6, &frac) || sec > UINT32_MAX)
		return false;
	if (fn != 6) {
		/* NFSv2 times were printed %d.%d: the microseconds without their leading zeros. */
		if (!v2)
			return false;
		*v2_form = true;
	} else {
		*v2_form = false;
	}
	*ns = sec * 1000000000ull + frac * 1000ull;
	return true;
}

/* "host.port", both hex (the anonymised address, the port in four digits). */
static bool host_port(const tok *t, uint32_t *ip, uint16_t *port)
{
	const char *const dot = memchr(t->p, '.', t->n);
	if (!dot)
		return false;
	const tok a = { t->p, (uint32_t)(dot - t->p) }, b = { dot + 1, (uint32_t)(t->n - (uint32_t)(dot - t->p) - 1) };
	uint64_t x = 0, y = 0;
	if (!hex_u64(&a, 32, &x) || !hex_u64(&b, 16, &y))
		return false;
	*ip = (uint32_t)x;
	*port = (uint16_t)y;
	return true;
}

/* The procedures of each version by number, with the names nfsdump prints. */
static const struct {
	const char *name;
	nd_proc proc;
} v3_procs[] = {
	{ "null", ND_NULL }, { "getattr", ND_GETATTR }, { "setattr", ND_SETATTR }, { "lookup", ND_LOOKUP },
	{ "access", ND_ACCESS }, { "readlink", ND_READLINK }, { "read", ND_READ }, { "write", ND_WRITE },
	{ "create", ND_CREATE }, { "mkdir", ND_MKDIR }, { "symlink", ND_SYMLINK }, { "mknod", ND_MKNOD },
	{ "remove", ND_REMOVE }, { "rmdir", ND_RMDIR }, { "rename", ND_RENAME }, { "link", ND_LINK },
	{ "readdir", ND_READDIR }, { "readdirp", ND_READDIRPLUS }, { "fsstat", ND_FSSTAT }, { "fsinfo", ND_FSINFO },
	{ "pathconf", ND_PATHCONF }, { "commit", ND_COMMIT },
}, v2_procs[] = {
	{ "null", ND_NULL }, { "getattr", ND_GETATTR }, { "setattr", ND_SETATTR }, { "root", ND_ROOT },
	{ "lookup", ND_LOOKUP }, { "readlink", ND_READLINK }, { "read", ND_READ }, { "writecache", ND_WRITECACHE },
	{ "write", ND_WRITE }, { "create", ND_CREATE }, { "remove", ND_REMOVE }, { "rename", ND_RENAME },
	{ "link", ND_LINK }, { "symlink", ND_SYMLINK }, { "mkdir", ND_MKDIR }, { "rmdir", ND_RMDIR },
	{ "readdir", ND_READDIR }, { "statfs", ND_FSSTAT },
};

static nd_proc proc_of(uint8_t vers, uint32_t num, const tok *name)
{
	const size_t n = vers == 3 ? sizeof(v3_procs) / sizeof(v3_procs[0]) : sizeof(v2_procs) / sizeof(v2_procs[0]);
	if (num >= n)
		return ND_BAD;
	const char *const want = vers == 3 ? v3_procs[num].name : v2_procs[num].name;
	/* The number and the name say the same; a line where they differ is garbled. */
	if (!tok_eq(name, want, strlen(want)))
		return ND_BAD;
	return vers == 3 ? v3_procs[num].proc : v2_procs[num].proc;
}

/* Keys of the key-value pairs the reader uses; the rest are known and skipped. */
typedef enum key {
	K_OTHER, K_UNKNOWN, K_FH, K_FH2, K_NAME, K_NAME2, K_TARGET, K_FTYPE, K_MODE, K_UID, K_GID, K_SIZE, K_FSID,
	K_ATIME, K_MTIME, K_OFF, K_COUNT, K_TCOUNT, K_MAXCNT, K_COOKIE, K_HOW, K_STABLE, K_ACC, K_EUID,
} key;

/* The key a token names: by its first letter, then the words that start with it. */
static key key_of(const tok *t)
{
#define IS(s) (t->n == sizeof(s) - 1 && memcmp(t->p, s, sizeof(s) - 1) == 0)
	if (t->n == 0)
		return K_UNKNOWN;
	switch (t->p[0]) {
	case 'a':
		return IS("atime") ? K_ATIME : IS("acc") ? K_ACC : K_UNKNOWN;
	case 'b':
		return IS("bsize") || IS("bfree") || IS("bavail") || IS("blksize") || IS("blocks") || IS("begoff")
			       ? K_OTHER : K_UNKNOWN;
	case 'c':
		return IS("ctime") ? K_OTHER : IS("count") ? K_COUNT : IS("cookie") ? K_COOKIE : K_UNKNOWN;
	case 'e':
		return IS("eof") || IS("egid") ? K_OTHER : IS("euid") ? K_EUID : K_UNKNOWN;
	case 'f':
		return IS("fh") || IS("file") ? K_FH : IS("fh2") ? K_FH2 : IS("fn") ? K_NAME : IS("fn2") ? K_NAME2
		       : IS("ftype") ? K_FTYPE : IS("fsid") ? K_FSID : IS("fileid") ? K_OTHER : K_UNKNOWN;
	case 'g':
		return IS("gid") ? K_GID : K_UNKNOWN;
	case 'h':
		return IS("how") ? K_HOW : K_UNKNOWN;
	case 'm':
		return IS("mode") ? K_MODE : IS("mtime") ? K_MTIME : IS("maxcnt") ? K_MAXCNT : K_UNKNOWN;
	case 'n':
		return IS("name") ? K_NAME : IS("name2") ? K_NAME2 : IS("nlink") || IS("nfsstat") ? K_OTHER : K_UNKNOWN;
	case 'o':
		return IS("off") || IS("offset") ? K_OFF : K_UNKNOWN;
	case 'p':
		return IS("pre-size") || IS("pre-mtime") || IS("pre-ctime") ? K_OTHER : K_UNKNOWN;
	case 'r':
		return IS("rdev") || IS("rdev2") ? K_OTHER : K_UNKNOWN;
	case 's':
		return IS("size") ? K_SIZE : IS("sdata") ? K_TARGET : IS("stable") ? K_STABLE : K_UNKNOWN;
	case 't':
		return IS("tcount") ? K_TCOUNT : IS("tsize") ? K_OTHER : K_UNKNOWN;
	case 'u':
		return IS("uid") ? K_UID : IS("used") ? K_OTHER : K_UNKNOWN;
	default:
		return K_UNKNOWN;
	}
#undef IS
}

/* A quoted name's bytes, without the quotes. */
static bool quoted(const tok *t, nd_str *out)
{
	if (t->n < 2 || t->p[0] != '"' || t->p[t->n - 1] != '"' || t->n - 2 > ND_NAME_MAX)
		return false;
	*out = (nd_str){ t->p + 1, t->n - 2 };
	return true;
}

/* The attribute set a key of bit `bit` goes to: a key the current set already has opens the next one. */
static nd_attr *attr_for(nd_rec *r, uint32_t bit)
{
	if (r->n_attrs == 0 || (r->attr[r->n_attrs - 1].have & bit)) {
		if (r->n_attrs == ND_ATTRS)
			return NULL; /* a third set: garbled */
		memset(&r->attr[r->n_attrs], 0, sizeof(r->attr[0]));
		r->n_attrs++;
	}
	return &r->attr[r->n_attrs - 1];
}

static bool attr_time(nd_rec *r, const tok *v, nd_attr *a, uint32_t bit, uint32_t server_bit, uint64_t *ns)
{
	if (tok_is(v, "SERVER")) {
		a->have |= bit | server_bit;
		return true;
	}
	bool v2form = false;
	if (!rp__nd_time(v->p, v->n, r->vers == 2, ns, &v2form))
		return false;
	r->v2_time |= v2form;
	a->have |= bit;
	return true;
}

/* One letter or a hex mask (ACCESS3 bits: READ 1, LOOKUP 2, MODIFY 4, EXTEND 8, DELETE 0x10, EXECUTE 0x20). */
static bool acc_of(const tok *v, uint32_t *acc)
{
	if (v->n == 1) {
		switch (v->p[0]) {
		case 'R': *acc = 0x01; return true;
		case 'L': *acc = 0x02; return true;
		case 'X': *acc = 0x20; return true;
		case 'U': *acc = 0x04; return true; /* update: modify */
		default: break;
		}
	}
	return hex_u32(v, acc) && *acc <= 0x3f;
}

/* U, G/D, X/F: createhow3 (UNCHECKED, GUARDED, EXCLUSIVE) or stable_how (UNSTABLE, DATA_SYNC, FILE_SYNC). */
static bool how_of(const tok *v, const char *letters, uint32_t *how)
{
	if (v->n != 1)
		return false;
	const char *const at = memchr(letters, v->p[0], 3);
	if (!at)
		return false;
	*how = (uint32_t)(at - letters);
	return true;
}

/* One key-value pair into r; false when the value cannot be read. */
static bool pair(nd_rec *r, key k, const tok *v)
{
	uint64_t x = 0;
	nd_attr *a = NULL;
	switch (k) {
	case K_OTHER:
		return true;
	case K_UNKNOWN:
		return false;
	case K_FH:
		if (r->have & NR_FH)
			return false;
		r->have |= NR_FH;
		return hex_fh(v, r->fh, &r->fh_len) || (r->have &= ~(uint32_t)NR_FH, false);
	case K_FH2:
		r->have |= NR_FH2;
		return hex_fh(v, r->fh2, &r->fh2_len) || (r->have &= ~(uint32_t)NR_FH2, false);
	case K_NAME:
		return quoted(v, &r->name) && (r->have |= NR_NAME);
	case K_NAME2:
		return quoted(v, &r->name2) && (r->have |= NR_NAME2);
	case K_TARGET:
		return quoted(v, &r->target) && (r->have |= NR_TARGET);
	case K_FTYPE:
		if (!(a = attr_for(r, NA_FTYPE)) || !hex_u32(v, &a->ftype))
			return false;
		a->have |= NA_FTYPE;
		return true;
	case K_MODE:
		if (!(a = attr_for(r, NA_MODE)) || !hex_u32(v, &a->mode))
			return false;
		a->have |= NA_MODE;
		return true;
	case K_UID:
		if (!(a = attr_for(r, NA_UID)) || !hex_u32(v, &a->uid))
			return false;
		a->have |= NA_UID;
		return true;
	case K_GID:
		if (!(a = attr_for(r, NA_GID)) || !hex_u32(v, &a->gid))
			return false;
		a->have |= NA_GID;
		return true;
	case K_SIZE:
		if (!(a = attr_for(r, NA_SIZE)) || !hex_u64(v, 64, &a->size))
			return false;
		a->have |= NA_SIZE;
		return true;
	case K_FSID:
		if (!(a = attr_for(r, NA_FSID)) || !hex_u64(v, 64, &a->fsid))
			return false;
		a->have |= NA_FSID;
		return true;
	case K_ATIME:
		return (a = attr_for(r, NA_ATIME)) && attr_time(r, v, a, NA_ATIME, NA_ATIME_SERVER, &a->atime);
	case K_MTIME:
		return (a = attr_for(r, NA_MTIME)) && attr_time(r, v, a, NA_MTIME, NA_MTIME_SERVER, &a->mtime);
	case K_OFF:
		if (!hex_u64(v, 64, &r->off))
			return false;
		r->have |= NR_OFF;
		return true;
	case K_COUNT:
	case K_TCOUNT:
		/* v2 READ prints count and tcount (the same), v2 WRITE tcount only */
		if (!hex_u64(v, 32, &x))
			return false;
		if (k == K_COUNT || !(r->have & NR_COUNT))
			r->count = (uint32_t)x;
		r->have |= NR_COUNT;
		return true;
	case K_MAXCNT:
		if (!hex_u32(v, &r->maxcnt))
			return false;
		r->have |= NR_MAXCNT;
		return true;
	case K_COOKIE:
		if (!hex_u64(v, 64, &r->cookie))
			return false;
		r->have |= NR_COOKIE;
		return true;
	case K_HOW:
		return how_of(v, "UGX", &r->how) && (r->have |= NR_HOW);
	case K_STABLE:
		return how_of(v, "UDF", &r->stable) && (r->have |= NR_STABLE);
	case K_ACC:
		return acc_of(v, &r->acc) && (r->have |= NR_ACC);
	case K_EUID:
		return hex_u32(v, &r->euid) && (r->have |= NR_EUID);
	}
	return false;
}

/* The fixed fields every record opens with; false when one cannot be read. */
static bool header(const tok *t, size_t n, nd_rec *r)
{
	if (n < 8 || !host_port(&t[1], &r->src_ip, &r->src_port) || !host_port(&t[2], &r->dst_ip, &r->dst_port))
		return false;
	if (t[3].n != 1 || (t[3].p[0] != 'T' && t[3].p[0] != 'U'))
		return false;
	r->udp = t[3].p[0] == 'U';
	if (t[4].n != 2 || (t[4].p[0] != 'C' && t[4].p[0] != 'R') || (t[4].p[1] != '2' && t[4].p[1] != '3'))
		return false;
	r->call = t[4].p[0] == 'C';
	r->vers = (uint8_t)(t[4].p[1] - '0');
	bool v2form = false;
	if (!rp__nd_time(t[0].p, t[0].n, false, &r->ts_ns, &v2form))
		return false;
	uint32_t num = 0;
	if (!hex_u32(&t[5], &r->xid) || !hex_u32(&t[6], &num))
		return false;
	r->proc = proc_of(r->vers, num, &t[7]);
	return r->proc != ND_BAD;
}

int rp__nd_parse(const char *line, size_t len, nd_rec *r)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len || line[i] == '#')
		return -1;
	tok t[TOKENS_MAX];
	const size_t n = tokenize(line + i, len - i, t, TOKENS_MAX);
	if (n == TOKENS_MAX)
		return 0;
	memset(r, 0, offsetof(nd_rec, fh));
	r->n_attrs = 0;
	r->bad_values = 0;
	r->absurd = 0;
	r->v2_time = false;
	if (!header(t, n, r))
		return 0;
	if (r->proc == ND_NULL)
		return 1; /* a ping: its lines' tails differ, and nothing in them is used */
	size_t k = 8;
	if (!r->call) {
		if (k == n)
			return 0;
		if (tok_is(&t[k], "OK"))
			r->status = 0;
		else if (!hex_u32(&t[k], &r->status))
			return 0;
		k++;
	}
	/* Pairs up to the tail ("con = N len = N", a reply's "status=N pl = N" before it), which ends every whole line. */
	while (k < n) {
		if (tok_is(&t[k], "con") || (t[k].n >= 7 && memcmp(t[k].p, "status=", 7) == 0))
			return 1;
		if (tok_is(&t[k], "SHORT")) {
			r->short_packet = true;
			return 1;
		}
		if (k + 1 == n)
			return 0; /* a key without its value: the line was cut */
		if (!pair(r, key_of(&t[k]), &t[k + 1]))
			r->bad_values++;
		k += 2;
	}
	return 0; /* no tail: the line was cut */
}

bool rp__nd_sniff(const char *head, size_t len)
{
	const char *p = head, *const end = head + len;
	if (memchr(head, '\0', len))
		return false;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end; /* the head may cut the line: its first fields must be whole */
		const char *q = p;
		while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < eol && *q != '#') {
			tok t[9];
			nd_rec r;
			const size_t n = tokenize(q, (size_t)(eol - q), t, 9);
			return header(t, n, &r) && (n > 8 || eol < end);
		}
		p = eol + 1;
	}
	return false;
}
