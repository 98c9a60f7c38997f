/*
 * dbench loadfile serializer (SMB and NFS dialects): one command and an op
 * carrying that command's fields -> one line (docs/loadfile.md).  Which
 * command an op becomes, and every dbench-compatibility choice, is the
 * converter's (converters/loadfile.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/loadfile.h"
#include "formats/loadfile_cmds.h"
#include "formats/semantics.h"
#include "formats/status.h"
#include "formats/strtab.h"

struct rp_loadfile_out {
	FILE *f;
	bool timestamps;
	uint8_t dialect; /* RP__LF_SMB / RP__LF_NFS3 */
	rp_strtab *strings;
	char *line;
	size_t len, cap;
	char *errbuf; /* of the call under way */
};
typedef rp_loadfile_out rp_loadfile_writer; /* the helpers below were the writer's */

#define LINE_CAP (2u * 65536u + 4096u)

/* ---- the line buffer ---- */

static void put(rp_loadfile_writer *w, const char *s, size_t n)
{
	if (w->len + n > w->cap)
		n = w->cap - w->len; /* cannot happen: a line is at most two paths and a few numbers */
	memcpy(w->line + w->len, s, n);
	w->len += n;
}

static void put_c(rp_loadfile_writer *w, char c)
{
	if (w->len < w->cap)
		w->line[w->len++] = c;
}

static void put_u64(rp_loadfile_writer *w, uint64_t v)
{
	char b[24];
	size_t i = sizeof(b);
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(w, b + i, sizeof(b) - i);
}

static void put_hex(rp_loadfile_writer *w, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char b[20];
	size_t i = sizeof(b);
	int n = 0;
	do {
		b[--i] = digits[v & 15];
		v >>= 4;
		n++;
	} while (v || n < width);
	put(w, "0x", 2);
	put(w, b + i, sizeof(b) - i);
}

static void put_path(rp_loadfile_writer *w, uint32_t id, const char *suffix)
{
	uint32_t n = 0;
	const char *const s = rp_strtab_get(w->strings, id, &n);
	put_c(w, ' ');
	put_c(w, '"');
	if (s) {
		const size_t at = w->len;
		put(w, s, n);
		if (suffix)
			put(w, suffix, strlen(suffix));
		if (w->dialect == RP__LF_SMB)
			for (size_t i = at; i < w->len; i++)
				if (w->line[i] == '/')
					w->line[i] = '\\';
	}
	put_c(w, '"');
}

static int flush_line(rp_loadfile_writer *w)
{
	put_c(w, '\n');
	if (fwrite(w->line, 1, w->len, w->f) != w->len) {
		w->len = 0;
		return rp_fail(w->errbuf, RP_E_IO, "writing the loadfile: %s", strerror(errno));
	}
	w->len = 0;
	return 0;
}

static void put_time(rp_loadfile_writer *w, const rp_op *op)
{
	if (!w->timestamps)
		return;
	const uint64_t t = op->t_start == RP_TIME_UNKNOWN ? 0 : op->t_start;
	char b[32];
	const int n = snprintf(b, sizeof(b), "%" PRIu64 ".%09" PRIu64 " ", t / 1000000000u, t % 1000000000u);
	put(w, b, (size_t)n);
}

static void put_status(rp_loadfile_writer *w, const rp_op *op, uint8_t cmd_dialect)
{
	put_c(w, ' ');
	if (w->dialect == RP__LF_SMB) {
		/*
		 * dbench 4.0 (Debian's) skips a line whose status is '*' ("Badly
		 * formed status") and so loses the op: "don't care" and "no reply
		 * seen" are written as success, which it does not check but for
		 * opens and handles.
		 */
		const uint32_t code = op->status_kind == RP_SK_NT ? op->proto_status
								 : rp_status_to_proto(RP_SK_NT, op->status);
		const char *const name = rp_status_proto_name(RP_SK_NT, code);
		if (name)
			put(w, name, strlen(name));
		else
			put_hex(w, code, 8);
		return;
	}
	if (op->status_kind == RP_SK_NONE && op->status == RP_STATUS_UNKNOWN) {
		put_c(w, '*'); /* don't care */
		return;
	}
	const rp_status_kind want = cmd_dialect == RP__LF_NFS4 ? RP_SK_NFS4 : RP_SK_NFS3;
	uint32_t code;
	if (op->status_kind == RP_SK_NFS3 || op->status_kind == RP_SK_NFS4)
		code = op->status_kind == want ? op->proto_status
					       : rp_status_to_proto(want, rp_status_from_proto(op->status_kind, op->proto_status));
	else
		code = rp_status_to_proto(want, op->status);
	put_hex(w, code, 8);
}

/* ---- lines ---- */

static bool from_nfs(const rp_op *op)
{
	return op->proto == RP_PROTO_NFS3 || op->proto == RP_PROTO_NFS4 || op->proto == RP_PROTO_DBENCH_NFS;
}

/* One command line from its spec; the op's fields in spec order. */
static int emit_sfx(rp_loadfile_writer *w, int k, const rp_op *op, uint32_t path, const char *suffix)
{
	const rp__lf_cmd_info *const c = &rp__lf_cmds[k];
	put_time(w, op);
	put(w, c->name, c->name_len);
	for (const char *sp = c->spec; *sp; sp++) {
		switch (*sp) {
		case '?': continue;
		case 'p': put_path(w, path, suffix); continue;
		case 'q': put_path(w, op->path2, NULL); continue;
		default: break;
		}
		put_c(w, ' ');
		switch (*sp) {
		case 'h': put_u64(w, op->handle); break;
		case 'o': put_u64(w, op->offset); break;
		case 'l': put_u64(w, op->length); break;
		case 'r': put_u64(w, op->result); break;
		/* the protocol's own values: set from the semantic fields by the callers below */
		case 'L': put_u64(w, op->raw.level); break;
		case 'a': put_u64(w, op->raw.access); break;
		case 'u': put_u64(w, (op->length + 500u) / 1000u); break;
		case 'O': put_hex(w, op->raw.options, 0); break;
		case 'D': put_hex(w, op->raw.disposition, 0); break;
		case 'A': put_hex(w, op->raw.access, 0); break;
		case 'c': put_u64(w, rp_sem_to_nfs3_createhow(op)); break;
		case 's': put_u64(w, from_nfs(op) && op->raw.level <= 2 ? op->raw.level : (op->flags & RP_OPF_STABLE) ? 2u : 0u); break;
		default: break;
		}
	}
	put_status(w, op, c->dialect);
	return flush_line(w);
}

static const char *strtab_string(void *tab, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(tab, id, len);
}

static int comment(rp_loadfile_writer *w, const rp_op *op, const char *why)
{
	char text[1024];
	rp_op tmp = *op;
	rp_op_format(text, sizeof(text), &tmp, strtab_string, w->strings);
	put(w, "# reprise: ", 11);
	put(w, why, strlen(why));
	put(w, ": ", 2);
	put(w, text, strlen(text));
	return flush_line(w);
}


/* ---- the public calls ---- */

int rp_loadfile_out_open(rp_loadfile_out **out, FILE *f, rp_loadfile_dialect dialect, bool timestamps, char *errbuf)
{
	*out = NULL;
	rp_loadfile_out *const w = calloc(1, sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	w->f = f;
	w->timestamps = timestamps;
	w->dialect = dialect == RP_LOADFILE_NFS ? RP__LF_NFS3 : RP__LF_SMB;
	w->strings = rp_strtab_create();
	w->line = malloc(LINE_CAP);
	w->cap = LINE_CAP;
	if (!w->strings || !w->line) {
		rp_loadfile_out_close(w);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	*out = w;
	return 0;
}

void rp_loadfile_out_set_dialect(rp_loadfile_out *w, rp_loadfile_dialect dialect)
{
	w->dialect = dialect == RP_LOADFILE_NFS ? RP__LF_NFS3 : RP__LF_SMB;
}

rp_loadfile_dialect rp_loadfile_out_dialect(const rp_loadfile_out *w)
{
	return w->dialect == RP__LF_SMB ? RP_LOADFILE_SMB : RP_LOADFILE_NFS;
}

int rp_loadfile_out_string(rp_loadfile_out *w, uint32_t id, const char *str, uint32_t len, char *errbuf)
{
	if (id != rp_strtab_count(w->strings) + 1)
		return rp_fail(errbuf, RP_E_STATE, "string id %u out of order", id);
	const int64_t got = rp_strtab_append(w->strings, str, len);
	return got < 0 ? rp_fail(errbuf, (int)got, "string table: %s", rp_strerror((int)got)) : 0;
}

const char *rp_loadfile_out_get(const rp_loadfile_out *w, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(w->strings, id, len);
}

int rp_loadfile_out_line(rp_loadfile_out *w, rp_loadfile_cmd cmd, const rp_op *op, uint32_t path, const char *suffix,
			 char *errbuf)
{
	if ((unsigned)cmd >= RP__LF_C__COUNT)
		return rp_fail(errbuf, RP_E_INVAL, "no loadfile command %d", (int)cmd);
	w->errbuf = errbuf;
	return emit_sfx(w, (int)cmd, op, path, suffix);
}

int rp_loadfile_out_comment(rp_loadfile_out *w, const rp_op *op, const char *why, char *errbuf)
{
	w->errbuf = errbuf;
	return comment(w, op, why);
}

const char *rp_loadfile_cmd_name(rp_loadfile_cmd cmd)
{
	return (unsigned)cmd < RP__LF_C__COUNT ? rp__lf_cmds[cmd].name : NULL;
}

int rp_loadfile_out_flush(rp_loadfile_out *w, char *errbuf)
{
	if (fflush(w->f) != 0)
		return rp_fail(errbuf, RP_E_IO, "writing the loadfile: %s", strerror(errno));
	return 0;
}

void rp_loadfile_out_close(rp_loadfile_out *w)
{
	if (!w)
		return;
	rp_strtab_destroy(w->strings);
	free(w->line);
	free(w);
}
