/* Op names and the canonical text form. */
#include "formats/op.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/status.h"

static const char *const op_names[] = {
#define NAME(e, name, fields) name,
	RP_OP_MAP(NAME)
#undef NAME
};

static const unsigned op_fields[] = {
#define FIELDS(e, name, fields) (fields),
	RP_OP_MAP(FIELDS)
#undef FIELDS
};

_Static_assert(sizeof(op_names) / sizeof(op_names[0]) == RP_OP__COUNT, "op table");

const char *rp_op_name(unsigned op)
{
	return op < RP_OP__COUNT ? op_names[op] : NULL;
}

int rp_op_from_name(const char *name, size_t len)
{
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		if (strlen(op_names[i]) == len && memcmp(op_names[i], name, len) == 0)
			return (int)i;
	return -1;
}

unsigned rp_op_fields(unsigned op)
{
	return op < RP_OP__COUNT ? op_fields[op] : 0;
}

static const char *const proto_names[] = {
#define NAME(e, name) name,
	RP_PROTO_MAP(NAME)
#undef NAME
};

const char *rp_proto_name(unsigned proto)
{
	return proto < RP_PROTO__COUNT ? proto_names[proto] : NULL;
}

static const char *const flag_names[] = { RP_OPF__NAMES };
static const char *const want_names[] = { RP_WANT__NAMES };
static const char *const disp_names[] = { RP_DISP__NAMES };
static const char *const of_names[] = { RP_OF__NAMES };
static const char *const rn_names[] = { RP_RN__NAMES };
static const char *const fa_names[] = { RP_FA__NAMES };
static const char *const fk_names[] = { RP_FK__NAMES };
static const char *const sa_names[] = { RP_SA__NAMES };
_Static_assert(sizeof(disp_names) / sizeof(disp_names[0]) == RP_DISP__COUNT, "disp names");

#define NAMES(a) a, sizeof(a) / sizeof((a)[0])

const char *const *rp_op_value_names(rp_value_names which, size_t *n)
{
	static const struct {
		const char *const *names;
		size_t n;
	} tables[] = {
		[RP_NAMES_FLAGS] = { NAMES(flag_names) },  [RP_NAMES_WANT] = { NAMES(want_names) },
		[RP_NAMES_DISP] = { NAMES(disp_names) },   [RP_NAMES_OPEN] = { NAMES(of_names) },
		[RP_NAMES_RENAME] = { NAMES(rn_names) },   [RP_NAMES_FALLOCATE] = { NAMES(fa_names) },
		[RP_NAMES_SETATTR] = { NAMES(sa_names) },  [RP_NAMES_FORK] = { NAMES(fk_names) },
	};
	*n = tables[which].n;
	return tables[which].names;
}

/* A bounded appender: keeps counting past the end so the caller learns the size. */
typedef struct out {
	char *buf;
	size_t size, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const size_t room = o->len < o->size ? o->size - o->len : 0;
	const int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_time(out *o, uint64_t ns)
{
	if (ns == RP_TIME_UNKNOWN)
		put(o, "-");
	else
		put(o, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

/* Printable ASCII as is; backslash (and with quote, '"') and every other byte escaped. */
static void put_escaped(out *o, const char *s, size_t len, bool quote)
{
	for (size_t i = 0; i < len; i++) {
		const unsigned char c = (unsigned char)s[i];
		if (c == '\\' || (quote && c == '"'))
			put(o, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			put(o, "%c", c);
		else
			put(o, "\\x%02x", c);
	}
}

/*
 * The length of the UTF-8 sequence at s[0..len) when it is valid (shortest
 * form, no surrogate, at most U+10FFFF) and not a C1 control, else 0.
 * ASCII is the caller's.
 */
static size_t utf8_printable(const unsigned char *s, size_t len)
{
	size_t n;
	uint32_t cp, min;
	if (s[0] < 0xc2)
		return 0; /* a continuation byte, or the start of an overlong ASCII form */
	if (s[0] < 0xe0) {
		n = 2, cp = s[0] & 0x1fu, min = 0x80;
	} else if (s[0] < 0xf0) {
		n = 3, cp = s[0] & 0x0fu, min = 0x800;
	} else if (s[0] < 0xf5) {
		n = 4, cp = s[0] & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
		return 0;
	return n;
}

/* As put_escaped without quote, but whole printable UTF-8 characters as they are. */
static void put_escaped_utf8(out *o, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		const unsigned char c = (unsigned char)s[i];
		size_t n;
		if (c == '\\') {
			put(o, "\\\\");
			i++;
		} else if (c >= 0x20 && c < 0x7f) {
			put(o, "%c", c);
			i++;
		} else if ((n = utf8_printable((const unsigned char *)s + i, len - i)) > 0) {
			put(o, "%.*s", (int)n, s + i);
			i += n;
		} else {
			put(o, "\\x%02x", c);
			i++;
		}
	}
}

/* A string as a double-quoted C-style literal: printable ASCII as is, the rest escaped. */
static void put_string(out *o, rp_string_fn str, void *ctx, uint32_t id)
{
	uint32_t len = 0;
	const char *const s = str ? str(ctx, id, &len) : NULL;
	if (!s) {
		put(o, "#%" PRIu32, id);
		return;
	}
	put(o, "\"");
	put_escaped(o, s, len, true);
	put(o, "\"");
}

/* A bit set as comma-separated names; bits without a name as bitN. */
static void put_bits(out *o, const char *key, uint32_t bits, const char *const *names, size_t n)
{
	put(o, " %s=", key);
	const char *sep = "";
	for (unsigned i = 0; i < 32; i++) {
		if (!(bits & (1u << i)))
			continue;
		if (i < n && names[i][0])
			put(o, "%s%s", sep, names[i]);
		else
			put(o, "%sbit%u", sep, i);
		sep = ",";
	}
}


/* Wants by name; "none" for a recorded empty set; a set without RP_WANT_KNOWN (never written by reprise) says so. */
static void put_want(out *o, uint32_t want)
{
	const uint32_t bits = want & ~(uint32_t)RP_WANT_KNOWN;
	if (!bits) {
		put(o, " want=none");
		return;
	}
	put_bits(o, "want", bits, NAMES(want_names));
	if (!(want & RP_WANT_KNOWN))
		put(o, ",unrecorded");
}

/* The protocol's own values, as provenance: raw=PROTO[:access=..,disp=..,opts=..,level=..]. */
static void put_raw(out *o, const rp_op *op)
{
	const rp_raw *const r = &op->raw;
	if (!op->proto && !r->access && !r->disposition && !r->options && !r->level)
		return;
	const char *const name = rp_proto_name(op->proto);
	if (name)
		put(o, " raw=%s", name);
	else
		put(o, " raw=proto%u", (unsigned)op->proto);
	char sep = ':';
	if (r->access) {
		put(o, "%caccess=0x%" PRIx32, sep, r->access);
		sep = ',';
	}
	if (r->disposition) {
		put(o, "%cdisp=%" PRIu32, sep, r->disposition);
		sep = ',';
	}
	if (r->options) {
		put(o, "%copts=0x%" PRIx32, sep, r->options);
		sep = ',';
	}
	if (r->level)
		put(o, "%clevel=%" PRIu32, sep, r->level);
}

size_t rp_text_escape(char *buf, size_t size, const char *s, size_t len, bool quote)
{
	out o = { .buf = buf, .size = size, .len = 0 };
	if (size)
		buf[0] = '\0';
	put_escaped(&o, s, len, quote);
	return o.len;
}

size_t rp_text_escape_utf8(char *buf, size_t size, const char *s, size_t len)
{
	out o = { .buf = buf, .size = size, .len = 0 };
	if (size)
		buf[0] = '\0';
	put_escaped_utf8(&o, s, len);
	return o.len;
}

static void put_status(out *o, const rp_op *op)
{
	const char *const canon = rp_status_name(op->status);
	if (canon)
		put(o, " -> %s", canon);
	else
		put(o, " -> E%" PRId32, op->status);
	if (op->status_kind == RP_SK_NONE)
		return;
	const char *const proto = rp_status_proto_name((rp_status_kind)op->status_kind, op->proto_status);
	if (proto)
		put(o, " (%s)", proto);
	else
		put(o, " (%s 0x%08" PRIx32 ")",
		    op->status_kind == RP_SK_NT     ? "nt"
		    : op->status_kind == RP_SK_NFS3 ? "nfs3"
		    : op->status_kind == RP_SK_NFS4 ? "nfs4"
						    : "errno",
		    op->proto_status);
}

size_t rp_op_format(char *buf, size_t size, const rp_op *op, rp_string_fn str, void *ctx)
{
	out o = { .buf = buf, .size = size, .len = 0 };
	if (size)
		buf[0] = '\0';
	const unsigned always = rp_op_fields(op->op);
	const char *const name = rp_op_name(op->op);

	put_time(&o, op->t_start);
	put(&o, " ");
	put_time(&o, op->t_end);
	put(&o, " c%" PRIu32 " ", op->client);
	if (name)
		put(&o, "%s", name);
	else
		put(&o, "op%u", (unsigned)op->op);

#define SHOW(f, v) ((always & (f)) || (v) != 0)
	if (SHOW(RP_F_PATH, op->path)) {
		put(&o, " path=");
		put_string(&o, str, ctx, op->path);
	}
	if (SHOW(RP_F_PATH2, op->path2)) {
		put(&o, " path2=");
		put_string(&o, str, ctx, op->path2);
	}
	if (SHOW(RP_F_HANDLE, op->handle))
		put(&o, " fh=%" PRIu64, op->handle);
	if (SHOW(RP_F_OFFSET, op->offset))
		put(&o, " off=%" PRIu64, op->offset);
	if (SHOW(RP_F_LENGTH, op->length))
		put(&o, " len=%" PRIu64, op->length);
	if (SHOW(RP_F_RESULT, op->result))
		put(&o, " ret=%" PRIu64, op->result);
	if (SHOW(RP_F_HANDLE2, op->handle2))
		put(&o, " fh2=%" PRIu64, op->handle2);
	if (SHOW(RP_F_OFFSET2, op->offset2))
		put(&o, " off2=%" PRIu64, op->offset2);
#undef SHOW
	if (op->want)
		put_want(&o, op->want);
	if (op->disp) {
		if (op->disp < RP_DISP__COUNT)
			put(&o, " disp=%s", disp_names[op->disp]);
		else
			put(&o, " disp=%u", (unsigned)op->disp);
	}
	if (op->oflags) {
		if (op->op == RP_OP_RENAME)
			put_bits(&o, "of", op->oflags, NAMES(rn_names));
		else if (op->op == RP_OP_FALLOCATE)
			put_bits(&o, "of", op->oflags, NAMES(fa_names));
		else if (op->op == RP_OP_FORK)
			put_bits(&o, "of", op->oflags, NAMES(fk_names));
		else
			put_bits(&o, "of", op->oflags, NAMES(of_names));
	}
	if (op->attrs)
		put_bits(&o, "set", op->attrs, NAMES(sa_names));
	if (op->mode)
		put(&o, " mode=0%" PRIo32, op->mode);
	if (op->uid)
		put(&o, " uid=%" PRIu32, op->uid);
	if (op->gid)
		put(&o, " gid=%" PRIu32, op->gid);
	if (op->atime) {
		put(&o, " atime=");
		put_time(&o, op->atime);
	}
	if (op->mtime) {
		put(&o, " mtime=");
		put_time(&o, op->mtime);
	}
	if (op->flags)
		put_bits(&o, "flags", op->flags, NAMES(flag_names));
	put_raw(&o, op);
	put_status(&o, op);
	return o.len;
}
