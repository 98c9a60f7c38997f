/* Helpers both SMB dialects use, below their dispatchers: the per-capture file and tree tables, paths, the op skeleton, slot lists, the pending sweep (MS-SMB2, MS-CIFS). */
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb_int.h"
#include "formats/status.h"

/* ---- per-capture state ---- */

static const int state_key; /* its address tells our capctx state apart */

static void file_free(void *v)
{
	smb_file *const f = v;
	free(f->path_text);
}

static void state_destroy(void *p)
{
	rp_smb_state *const st = p;
	if (!st)
		return;
	rp__smb_map_destroy(st->files);
	rp__smb_map_destroy(st->trees);
	free(st);
}

static void *state_create(void)
{
	rp_smb_state *const st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	st->files = rp__smb_map_create(sizeof(smb_file), file_free);
	st->trees = rp__smb_map_create(sizeof(smb_tree), NULL);
	if (!st->files || !st->trees) {
		state_destroy(st);
		return NULL;
	}
	st->next_handle = 1;
	return st;
}

rp_smb_state *rp__smb_state(rp_capctx *cx)
{
	return rp__cap_state(cx, &state_key, state_create, state_destroy);
}

smb_file *rp__smb_file_get(rp_capctx *cx, const smb_key *k)
{
	rp_smb_state *const st = rp__smb_state(cx);
	return st ? rp__smb_map_get(st->files, k) : NULL;
}

bool rp__smb_setinfo_decode(uint32_t cls, rp_cur *buf, rp_nt_setinfo *v)
{
	*v = (rp_nt_setinfo){ .decoded = true };
	switch (cls) {
	case RP_NT_FileBasicInformation:
		v->btime = rp_cur_le64(buf);
		v->atime = rp_cur_le64(buf);
		v->mtime = rp_cur_le64(buf);
		v->ctime = rp_cur_le64(buf);
		v->attributes = rp_cur_le32(buf);
		break;
	case RP_NT_FileDispositionInformation:
		v->delete_pending = rp_cur_u8(buf) != 0;
		break;
	case RP_NT_FileDispositionInformationEx:
		v->delete_pending = (rp_cur_le32(buf) & 1u) != 0; /* FILE_DISPOSITION_DELETE */
		break;
	case RP_NT_FileAllocationInformation:
	case RP_NT_FileEndOfFileInformation:
		v->value = rp_cur_le64(buf);
		break;
	default:
		break;
	}
	return !buf->err;
}

char *rp__smb_strdup(const char *s)
{
	const size_t n = strlen(s) + 1;
	char *const d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

smb_file *rp__smb_file_open_taking(rp_capctx *cx, const smb_key *k, char **text, const char *path,
				   uint32_t path_id, uint32_t flags)
{
	rp_smb_state *const st = rp__smb_state(cx);
	if (!st)
		return NULL;
	bool fresh;
	smb_file *const f = rp__smb_map_put(st->files, k, &fresh);
	if (!f)
		return NULL;
	if (!fresh)
		free(f->path_text);
	*f = (smb_file){ .handle = st->next_handle++, .flags = flags };
	if (path) {
		if (text && *text) {
			f->path_text = *text;
			*text = NULL;
		} else {
			f->path_text = rp__smb_strdup(path);
		}
		f->path = path_id ? path_id : rp__smb_intern(cx, path);
	}
	return f;
}

smb_file *rp__smb_file_open(rp_capctx *cx, const smb_key *k, const char *path, uint32_t flags)
{
	return rp__smb_file_open_taking(cx, k, NULL, path, 0, flags);
}

smb_file *rp__smb_file_use(rp_capctx *cx, const smb_key *k, const char *proto)
{
	smb_file *const f = rp__smb_file_get(cx, k);
	if (f)
		return f;
	uint8_t raw[24];
	rp_put_le64(raw, k->a);
	rp_put_le64(raw + 8, k->b);
	rp_put_le64(raw + 16, k->c);
	char buf[96];
	/* SMB2 FileIds are 16 bytes; SMB1 FIDs are (connection, FID) */
	const size_t n = rp__cap_synth_path(buf, sizeof buf, proto, raw, k->c == 0 ? 16 : 24);
	buf[n < sizeof buf ? n : sizeof buf - 1] = '\0';
	return rp__smb_file_open(cx, k, buf, SMB_FILE_SYNTH);
}

void rp__smb_file_close(rp_capctx *cx, const smb_key *k)
{
	rp_smb_state *const st = rp__smb_state(cx);
	if (st)
		rp__smb_map_del(st->files, k);
}

void rp__smb_file_rename(rp_capctx *cx, smb_file *f, const char *path)
{
	char *const d = rp__smb_strdup(path);
	if (!d)
		return;
	free(f->path_text);
	f->path_text = d;
	f->path = rp__smb_intern(cx, path);
	f->flags &= ~(uint32_t)SMB_FILE_SYNTH;
}

void rp__smb_op_file(rp_op *op, const smb_file *f)
{
	if (!f)
		return;
	op->handle = f->handle;
	if (f->flags & SMB_FILE_SYNTH) {
		op->path = f->path;
		op->flags |= RP_OPF_SYNTH_PATH;
	}
}

/* ---- strings ---- */

static size_t put_utf8(char *out, size_t at, uint32_t cp)
{
	if (cp < 0x80) {
		out[at] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[at] = (char)(0xC0 | cp >> 6);
		out[at + 1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[at] = (char)(0xE0 | cp >> 12);
		out[at + 1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[at + 2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[at] = (char)(0xF0 | cp >> 18);
	out[at + 1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[at + 2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[at + 3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

int rp__smb_path(char *out, const uint8_t *s, size_t n, bool utf16)
{
	size_t at = 0;
	out[at++] = '/';
	const size_t unit = utf16 ? 2 : 1;
	const size_t end = utf16 ? n & ~(size_t)1 : n;
	/* ASCII, the common case, without the general decoder; it takes over at the first other character. */
	size_t i = 0;
	for (; i < end; i += unit) {
		const uint8_t ch = s[i];
		if (ch >= 0x80 || (utf16 && s[i + 1]))
			break;
		if (ch == 0)
			goto done; /* SMB1 strings are NUL-terminated; SMB2 names may carry one too */
		const char o = ch == '\\' ? '/' : (char)ch;
		if (o == '/' && out[at - 1] == '/')
			continue;
		if (at + 5 > SMB_PATH_MAX)
			return -1;
		out[at++] = o;
	}
	rp_cur c = rp_cur_make(s + i, end - i);
	while (rp_cur_left(&c) > 0) {
		uint32_t cp;
		if (utf16) {
			cp = rp_cur_le16(&c);
			if (cp >= 0xD800 && cp < 0xDC00 && rp_cur_left(&c) >= 2) {
				rp_cur peek = c;
				const uint32_t lo = rp_cur_le16(&peek);
				if (lo >= 0xDC00 && lo < 0xE000) {
					c = peek;
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				} else {
					cp = 0xFFFD;
				}
			} else if (cp >= 0xD800 && cp < 0xE000) {
				cp = 0xFFFD; /* a lone surrogate */
			}
		} else {
			cp = rp_cur_u8(&c); /* OEM code page unknown: read as Latin-1 */
		}
		if (cp == 0)
			break; /* SMB1 strings are NUL-terminated; SMB2 names may carry one too */
		if (cp == '\\')
			cp = '/';
		if (cp == '/' && out[at - 1] == '/')
			continue; /* "\\a" or a leading separator: one '/' */
		if (at + 5 > SMB_PATH_MAX)
			return -1;
		at += put_utf8(out, at, cp);
	}
done:
	if (at > 1 && out[at - 1] == '/')
		at--;
	out[at] = '\0';
	return (int)at;
}

int rp__smb_join(char *out, const char *dir, const char *name)
{
	const size_t dl = strlen(dir);
	const size_t nl = strlen(name);
	const bool root = dl == 1 && dir[0] == '/';
	if (dl + nl + 2 > SMB_PATH_MAX)
		return -1;
	memcpy(out, dir, dl);
	size_t at = dl;
	if (!root)
		out[at++] = '/';
	memcpy(out + at, name, nl);
	at += nl;
	out[at] = '\0';
	return (int)at;
}

uint32_t rp__smb_intern(rp_capctx *cx, const char *path)
{
	return rp__cap_path(cx, path, strlen(path));
}

/* ---- op skeleton ---- */

rp_op rp__smb_op(rp_capctx *cx, const rp_conn *conn, const rp_msg *m, uint64_t principal, rp_proto proto,
		 unsigned opcode)
{
	rp_op op = { 0 };
	op.op = (uint16_t)opcode;
	op.proto = (uint8_t)proto;
	op.t_start = rp__cap_time(cx, m->ts_ns);
	op.t_end = RP_TIME_UNKNOWN;
	op.client = rp__cap_client(cx, conn, m->from, principal);
	op.status = RP_STATUS_UNKNOWN;
	op.flags = RP_OPF_NO_REPLY;
	return op;
}

void rp__smb_complete(rp_capctx *cx, rp_op *op, const rp_msg *m, uint32_t ntstatus)
{
	op->t_end = rp__cap_time(cx, m->ts_ns);
	op->flags &= (uint16_t)~RP_OPF_NO_REPLY;
	rp__cap_set_status(cx, op, RP_SK_NT, ntstatus);
}

bool rp__smb_slots_add(smb_slots *s, rp_slot slot)
{
	if (s->n == 0) {
		s->one = slot;
		s->n = 1;
		return true;
	}
	rp_slot *const more = realloc(s->more, s->n * sizeof *more);
	if (!more)
		return false;
	more[s->n - 1] = slot;
	s->more = more;
	s->n++;
	return true;
}

rp_slot rp__smb_slots_at(const smb_slots *s, uint32_t i)
{
	if (i >= s->n)
		return RP_SLOT_NONE;
	return i == 0 ? s->one : s->more[i - 1];
}

void rp__smb_slots_free(smb_slots *s)
{
	free(s->more);
	s->more = NULL;
	s->n = 0;
}

/* ---- per-connection state ---- */

void rp__smb_sweep(rp_capctx *cx, rp_smb_map *pending, size_t t_req_off, uint64_t *sweep_at)
{
	if (rp__smb_map_count(pending) < *sweep_at)
		return;
	const uint64_t now = rp__cap_now(cx);
	const uint64_t limit = rp__cap_opts(cx)->match_timeout_ns;
	size_t pos = 0;
	smb_key k;
	const unsigned char *p;
	while ((p = rp__smb_map_next(pending, &pos, &k)) != NULL) {
		uint64_t t_req;
		memcpy(&t_req, p + t_req_off, sizeof t_req);
		if (now - t_req > limit) {
			rp__smb_map_del(pending, &k);
			pos--;
		}
	}
	const size_t n = rp__smb_map_count(pending);
	*sweep_at = n * 2 > 64 ? n * 2 : 64;
}
