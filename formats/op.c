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

size_t rp_text_escape(char *buf, size_t size, const char *s, size_t len, bool quote)
{
	out o = { .buf = buf, .size = size, .len = 0 };
	if (size)
		buf[0] = '\0';
	put_escaped(&o, s, len, quote);
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
	if (SHOW(RP_F_ACCESS, op->access))
		put(&o, " access=0x%" PRIx32, op->access);
	if (SHOW(RP_F_DISP, op->disposition))
		put(&o, " disp=%" PRIu32, op->disposition);
	if (SHOW(RP_F_OPTIONS, op->options))
		put(&o, " opts=0x%" PRIx32, op->options);
	if (SHOW(RP_F_MODE, op->mode))
		put(&o, " mode=0%" PRIo32, op->mode);
	if (SHOW(RP_F_LEVEL, op->level))
		put(&o, " level=%" PRIu32, op->level);
#undef SHOW
	if (op->flags) {
		static const char *const flag_names[] = { "synth", "excl", "stable", "noreply", "create", "dir" };
		put(&o, " flags=");
		const char *sep = "";
		for (unsigned i = 0; i < 16; i++) {
			if (!(op->flags & (1u << i)))
				continue;
			if (i < sizeof(flag_names) / sizeof(flag_names[0]))
				put(&o, "%s%s", sep, flag_names[i]);
			else
				put(&o, "%sbit%u", sep, i);
			sep = ",";
		}
	}
	put_status(&o, op);
	return o.len;
}
