/* dbench loadfile writer (SMB and NFS dialects): a sink that turns ops into lines dbench runs (docs/loadfile.md). */
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

/* Trace-local handles the writer remembers the path of (NFS lines name paths, not handles). */
typedef struct hmap {
	uint64_t *key;
	uint32_t *path;
	size_t cap, used;
} hmap;

struct rp_loadfile_writer {
	rp_sink sink;
	FILE *f;
	bool own;
	rp_loadfile_wopts opts;
	uint8_t dialect; /* RP__LF_SMB / RP__LF_NFS3, 0 until decided */
	uint32_t source;
	rp_strtab *strings;
	hmap handles;
	hmap doc; /* NFS dialect: handles to delete at their close (DOC_*) */
	uint64_t next_fnum; /* for the NTCreateX/Close pairs the writer adds */
	char *line;
	size_t len, cap;
	int err;
};

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
		return rp_fail(w->sink.errbuf, RP_E_IO, "writing the loadfile: %s", strerror(errno));
	}
	w->len = 0;
	return 0;
}

static void put_time(rp_loadfile_writer *w, const rp_op *op)
{
	if (!w->opts.timestamps)
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

/* ---- handle -> path, for NFS lines from handle-based ops ---- */

static int hmap_put(hmap *m, uint64_t key, uint32_t path)
{
	if ((m->used + 1) * 2 > m->cap) {
		const size_t cap = m->cap ? m->cap * 2 : 1024;
		uint64_t *const k = calloc(cap, sizeof(*k));
		uint32_t *const p = calloc(cap, sizeof(*p));
		if (!k || !p) {
			free(k);
			free(p);
			return RP_E_NOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				size_t s = (size_t)(m->key[i] * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
				while (k[s])
					s = (s + 1) & (cap - 1);
				k[s] = m->key[i];
				p[s] = m->path[i];
			}
		free(m->key);
		free(m->path);
		m->key = k;
		m->path = p;
		m->cap = cap;
	}
	size_t s = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1);
	while (m->key[s] && m->key[s] != key)
		s = (s + 1) & (m->cap - 1);
	if (!m->key[s])
		m->used++;
	m->key[s] = key;
	m->path[s] = path;
	return 0;
}

static uint32_t hmap_get(const hmap *m, uint64_t key)
{
	if (!m->cap || !key)
		return 0;
	size_t s = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1);
	while (m->key[s]) {
		if (m->key[s] == key)
			return m->path[s];
		s = (s + 1) & (m->cap - 1);
	}
	return 0;
}

/* ---- lines ---- */

static bool from_nfs(const rp_op *op)
{
	return op->proto == RP_PROTO_NFS3 || op->proto == RP_PROTO_NFS4 || op->proto == RP_PROTO_DBENCH_NFS;
}

static bool from_smb(const rp_op *op)
{
	return op->proto == RP_PROTO_SMB1 || op->proto == RP_PROTO_SMB2 || op->proto == RP_PROTO_DBENCH_SMB;
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

static int emit(rp_loadfile_writer *w, int k, const rp_op *op, uint32_t path)
{
	return emit_sfx(w, k, op, path, NULL);
}

static const char *strtab_string(void *tab, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(tab, id, len);
}

/* An op no dialect command expresses: a comment with its canonical text. */
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

/* A handle-based SMB command for an op that names a path only: open it around the command. */
static int with_fnum(rp_loadfile_writer *w, int k, const rp_op *op)
{
	rp_op open = { 0 };
	open.t_start = op->t_start;
	open.handle = w->next_fnum++;
	open.raw.disposition = RP_NT_OPEN;
	open.status_kind = RP_SK_NT;
	int rc = emit(w, RP__LF_C_NTCREATEX, &open, op->path);
	rp_op mid = *op;
	mid.handle = open.handle;
	if (rc == 0)
		rc = emit(w, k, &mid, op->path);
	rp_op close = open;
	if (rc == 0)
		rc = emit(w, RP__LF_C_CLOSE, &close, 0);
	return rc;
}

static int write_smb(rp_loadfile_writer *w, const rp_op *op)
{
	int k = -1;
	bool by_handle = false;
	switch (op->op) {
	case RP_OP_OPEN: k = RP__LF_C_NTCREATEX; break;
	case RP_OP_CLOSE: k = RP__LF_C_CLOSE; by_handle = true; break;
	case RP_OP_READ: k = RP__LF_C_READX; by_handle = true; break;
	case RP_OP_WRITE: k = RP__LF_C_WRITEX; by_handle = true; break;
	case RP_OP_FLUSH: k = RP__LF_C_FLUSH; by_handle = true; break;
	case RP_OP_SETATTR: k = RP__LF_C_SFILEINFO; by_handle = true; break;
	case RP_OP_LOCK:
		if (op->flags & RP_OPF_TEST)
			return comment(w, op, "a lock test takes no lock");
		k = RP__LF_C_LOCKX;
		by_handle = true;
		break;
	case RP_OP_UNLOCK: k = RP__LF_C_UNLOCKX; by_handle = true; break;
	case RP_OP_STAT: k = op->handle ? RP__LF_C_QFILEINFO : RP__LF_C_QPATHINFO; break;
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
	case RP_OP_READLINK: k = RP__LF_C_QPATHINFO; break;
	case RP_OP_UNLINK: k = RP__LF_C_UNLINK; break;
	case RP_OP_MKDIR: k = RP__LF_C_MKDIR; break;
	case RP_OP_RMDIR: k = RP__LF_C_RMDIR; break;
	case RP_OP_RENAME: k = RP__LF_C_RENAME; break;
	case RP_OP_DELTREE: k = RP__LF_C_DELTREE; break;
	case RP_OP_READDIR: k = RP__LF_C_FINDFIRST; break;
	case RP_OP_STATFS: k = RP__LF_C_QFSINFO; break;
	case RP_OP_SLEEP: k = RP__LF_C_SLEEP; break;
	default: return comment(w, op, "no SMB-dialect command");
	}
	if ((k == RP__LF_C_QPATHINFO || k == RP__LF_C_UNLINK || k == RP__LF_C_MKDIR || k == RP__LF_C_RMDIR ||
	     k == RP__LF_C_DELTREE || k == RP__LF_C_FINDFIRST || k == RP__LF_C_NTCREATEX || k == RP__LF_C_RENAME) &&
	    !op->path)
		return comment(w, op, "no path");
	if (k == RP__LF_C_RENAME && !op->path2)
		return comment(w, op, "no second path");
	rp_op o = *op;
	const bool dbench = op->proto == RP_PROTO_DBENCH_SMB;
	/* dbench checks ReadX/WriteX byte counts: when the source did not say (NFS loadfiles), all of them */
	if ((k == RP__LF_C_READX || k == RP__LF_C_WRITEX) && !dbench && o.result == 0 && o.status == RP_STATUS_OK)
		o.result = o.length;
	if (k == RP__LF_C_NTCREATEX) {
		rp_sem_to_nt(op, &o.raw.access, &o.raw.disposition, &o.raw.options);
		/* dbench 4.0 creates nothing for FILE_OPEN_IF; its FILE_CREATE is O_CREAT without O_EXCL */
		if (w->opts.dbench_open_if && !dbench && o.raw.disposition == RP_NT_OPEN_IF)
			o.raw.disposition = RP_NT_CREATE;
	}
	if (k == RP__LF_C_SFILEINFO) {
		o.raw.level = rp_sem_to_nt_level(op);
		if (!o.raw.level)
			return comment(w, op, "no SMB set-info level sets these attributes");
	}
	if ((k == RP__LF_C_QPATHINFO || k == RP__LF_C_QFILEINFO || k == RP__LF_C_QFSINFO ||
	     k == RP__LF_C_FINDFIRST) && !from_smb(op))
		o.raw.level = 0;
	if (k == RP__LF_C_NTCREATEX && !op->handle && !dbench) {
		/* an open with no handle (NFS CREATE3, LOOKUP): open and close it again */
		o.handle = w->next_fnum++;
		int rc = emit(w, k, &o, o.path);
		rp_op close = { .t_start = op->t_start, .handle = o.handle, .status_kind = RP_SK_NT };
		if (rc == 0 && o.status == RP_STATUS_OK)
			rc = emit(w, RP__LF_C_CLOSE, &close, 0);
		return rc;
	}
	if (by_handle && !op->handle) {
		if (k == RP__LF_C_CLOSE || !op->path)
			return comment(w, op, "no handle");
		return with_fnum(w, k, &o);
	}
	if (k == RP__LF_C_QPATHINFO && o.raw.level == 0)
		o.raw.level = 1004; /* FileBasicInformation */
	if (k == RP__LF_C_UNLINK && !dbench && o.raw.options == 0)
		o.raw.options = 0x6; /* search hidden and system files, as dbench's own loadfile does */
	if (k == RP__LF_C_FINDFIRST) {
		/* FIND_FIRST takes a mask: the directory and the pattern in it (every entry when none) */
		uint32_t n = 0, pn = 0;
		const char *const s = rp_strtab_get(w->strings, o.path, &n);
		const char *const pat = o.path2 ? rp_strtab_get(w->strings, o.path2, &pn) : NULL;
		char sfx[RP_STR_MAX + 2];
		const size_t at = n && s[n - 1] == '/' ? 0 : 1;
		sfx[0] = '/';
		memcpy(sfx + at, pat ? pat : "*", pat ? pn : 1);
		sfx[at + (pat ? pn : 1)] = '\0';
		if (o.raw.level == 0)
			o.raw.level = 260; /* FIND_FILE_BOTH_DIRECTORY_INFO */
		return emit_sfx(w, k, &o, o.path, sfx);
	}
	return emit(w, k, &o, o.path);
}

/* ---- delete-on-close, for the NFS dialect (which has none: it becomes a REMOVE3/RMDIR3 at the close) ---- */

enum { DOC_DELETE = 1, DOC_DIR = 2 };

static int doc_note(rp_loadfile_writer *w, uint64_t handle, uint32_t bits)
{
	const int rc = hmap_put(&w->doc, handle, bits);
	return rc < 0 ? rp_fail(w->sink.errbuf, rc, "out of memory") : 0;
}

static int write_nfs(rp_loadfile_writer *w, const rp_op *op)
{
	uint32_t path = op->path ? op->path : hmap_get(&w->handles, op->handle);
	int k = -1;
	switch (op->op) {
	case RP_OP_OPEN:
		if (op->handle && path) {
			const int rc = hmap_put(&w->handles, op->handle, path);
			if (rc < 0)
				return rp_fail(w->sink.errbuf, rc, "out of memory");
		}
		if (op->handle && op->status == RP_STATUS_OK) {
			const uint32_t dir = (op->oflags & RP_OF_DIRECTORY) || (op->flags & RP_OPF_DIRECTORY) ? DOC_DIR : 0;
			const int rc = doc_note(w, op->handle, (op->oflags & RP_OF_DELETE_ON_CLOSE ? DOC_DELETE : 0) | dir);
			if (rc < 0)
				return rc;
		}
		/* NFS has no open that fails for being (or not being) a directory: such a failure has no line */
		if ((op->status == EISDIR && (op->oflags & RP_OF_NOT_DIRECTORY)) ||
		    (op->status == ENOTDIR && (op->oflags & RP_OF_DIRECTORY)))
			return comment(w, op, "no NFS-dialect command fails this open so");
		/* what the open did: one that found the object (the create action) made nothing */
		if (op->disp == RP_DISP_OPEN || op->disp == RP_DISP_TRUNC || op->result == RP_ACT_OPENED ||
		    (op->result == RP_ACT_TRUNCATED && (op->oflags & RP_OF_DIRECTORY)))
			k = RP__LF_C_LOOKUP3;
		else
			k = (op->oflags & RP_OF_DIRECTORY) ? RP__LF_C_MKDIR3 : RP__LF_C_CREATE3;
		break;
	case RP_OP_CLOSE: {
		/* the delete an SMB client asked for at open or by set-info happens at its close */
		const uint32_t doc = hmap_get(&w->doc, op->handle);
		if ((doc & DOC_DELETE) && path && op->status == RP_STATUS_OK) {
			rp_op del = *op;
			del.op = doc & DOC_DIR ? RP_OP_RMDIR : RP_OP_UNLINK;
			del.handle = 0;
			return emit(w, doc & DOC_DIR ? RP__LF_C_RMDIR3 : RP__LF_C_REMOVE3, &del, path);
		}
		return comment(w, op, "NFS has no close");
	}
	case RP_OP_READ: k = RP__LF_C_READ3; break;
	case RP_OP_WRITE: k = RP__LF_C_WRITE3; break;
	case RP_OP_FLUSH: k = RP__LF_C_COMMIT3; break;
	case RP_OP_STAT: k = RP__LF_C_GETATTR3; break;
	case RP_OP_SETATTR:
		if (op->attrs & (RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR)) {
			if (!op->handle || op->status != RP_STATUS_OK)
				return comment(w, op, "delete-on-close without a handle");
			const uint32_t doc = hmap_get(&w->doc, op->handle) & DOC_DIR;
			const int rc = doc_note(w, op->handle, doc | (op->attrs & RP_SA_DELETE_SET ? DOC_DELETE : 0));
			return rc < 0 ? rc : comment(w, op, "delete-on-close: a REMOVE3 at the close");
		}
		k = RP__LF_C_SETATTR3;
		break;
	case RP_OP_UNLINK: k = RP__LF_C_REMOVE3; break;
	case RP_OP_MKDIR: k = RP__LF_C_MKDIR3; break;
	case RP_OP_RMDIR: k = RP__LF_C_RMDIR3; break;
	case RP_OP_RENAME: k = RP__LF_C_RENAME3; break;
	case RP_OP_LINK: k = RP__LF_C_LINK3; break;
	case RP_OP_SYMLINK: k = RP__LF_C_SYMLINK3; break;
	case RP_OP_READLINK: k = RP__LF_C_READLINK3; break;
	case RP_OP_READDIR:
		k = from_nfs(op) && op->raw.level == RP__LF_LEVEL_READDIR3 ? RP__LF_C_READDIR3 : RP__LF_C_READDIRPLUS3;
		break;
	case RP_OP_LOCK: k = op->flags & RP_OPF_TEST ? RP__LF_C_TEST4 : RP__LF_C_LOCK4; break;
	case RP_OP_UNLOCK: k = RP__LF_C_UNLOCK4; break;
	case RP_OP_STATFS: {
		const uint32_t lvl = from_nfs(op) ? op->raw.level : 0;
		k = lvl == RP__LF_LEVEL_FSINFO3 ? RP__LF_C_FSINFO3 : lvl == RP__LF_LEVEL_PATHCONF3 ? RP__LF_C_PATHCONF3 : RP__LF_C_FSSTAT3;
		break;
	}
	case RP_OP_ACCESS: {
		rp_op o = *op;
		if (from_nfs(op)) {
			o.result = op->raw.options; /* granted bits, as the protocol sent them */
		} else {
			o.raw.access = rp_sem_to_nfs_access(op->want);
			o.result = rp_sem_to_nfs_access((uint32_t)op->result);
		}
		if (!path)
			return comment(w, op, "no path");
		return emit(w, RP__LF_C_ACCESS3, &o, path);
	}
	case RP_OP_DELTREE: k = RP__LF_C_DELTREE; break;
	case RP_OP_SLEEP: k = RP__LF_C_SLEEP; break;
	case RP_OP_LOOKUP: k = RP__LF_C_LOOKUP3; break;
	case RP_OP_MKNOD: k = RP__LF_C_MKNOD3; break;
	default: return comment(w, op, "no NFS-dialect command");
	}
	const char *const spec = rp__lf_cmds[k].spec;
	if (strchr(spec, 'p') && !path)
		return comment(w, op, "no path");
	if (strchr(spec, 'q') && !op->path2)
		return comment(w, op, "no second path");
	return emit(w, k, op, path);
}

/* ---- the sink ---- */

static int w_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_loadfile_writer *const w = (rp_loadfile_writer *)s;
	w->source = meta->source;
	if (w->opts.dialect == RP_LOADFILE_SMB)
		w->dialect = RP__LF_SMB;
	else if (w->opts.dialect == RP_LOADFILE_NFS || meta->source == RP_SRC_LOADFILE_NFS ||
		 meta->source == RP_SRC_PCAP_NFS)
		w->dialect = RP__LF_NFS3;
	return 0;
}

static int w_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_loadfile_writer *const w = (rp_loadfile_writer *)s;
	if (id != rp_strtab_count(w->strings) + 1)
		return rp_fail(s->errbuf, RP_E_STATE, "string id %u out of order", id);
	const int64_t got = rp_strtab_append(w->strings, str, len);
	return got < 0 ? rp_fail(s->errbuf, (int)got, "string table: %s", rp_strerror((int)got)) : 0;
}

static int w_op(rp_sink *s, const rp_op *op)
{
	rp_loadfile_writer *const w = (rp_loadfile_writer *)s;
	if (!w->dialect) /* AUTO on a trace from elsewhere: NFS when its statuses are */
		w->dialect = (op->status_kind == RP_SK_NFS3 || op->status_kind == RP_SK_NFS4) ? RP__LF_NFS3 : RP__LF_SMB;
	return w->dialect == RP__LF_SMB ? write_smb(w, op) : write_nfs(w, op);
}

static int w_finish(rp_sink *s)
{
	rp_loadfile_writer *const w = (rp_loadfile_writer *)s;
	if (fflush(w->f) != 0)
		return rp_fail(s->errbuf, RP_E_IO, "writing the loadfile: %s", strerror(errno));
	return 0;
}

int rp_loadfile_writer_open_file(rp_loadfile_writer **out, FILE *f, const rp_loadfile_wopts *opts, char *errbuf)
{
	*out = NULL;
	rp_loadfile_writer *const w = calloc(1, sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	if (opts)
		w->opts = *opts;
	w->strings = rp_strtab_create();
	w->line = malloc(LINE_CAP);
	w->cap = LINE_CAP;
	w->next_fnum = 60000; /* above dbench's own fnums */
	if (!w->strings || !w->line) {
		rp_loadfile_writer_close(w, NULL);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	w->f = f;
	w->sink.meta = w_meta;
	w->sink.string = w_string;
	w->sink.op = w_op;
	w->sink.finish = w_finish;
	*out = w;
	return 0;
}

int rp_loadfile_writer_open(rp_loadfile_writer **out, const char *path, const rp_loadfile_wopts *opts,
			    char *errbuf)
{
	*out = NULL;
	if (strcmp(path, "-") == 0)
		return rp_loadfile_writer_open_file(out, stdout, opts, errbuf);
	FILE *const f = fopen(path, "wb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	const int rc = rp_loadfile_writer_open_file(out, f, opts, errbuf);
	if (rc < 0) {
		fclose(f);
		return rc;
	}
	(*out)->own = true;
	return 0;
}

rp_sink *rp_loadfile_writer_sink(rp_loadfile_writer *w)
{
	return &w->sink;
}

int rp_loadfile_writer_close(rp_loadfile_writer *w, char *errbuf)
{
	if (!w)
		return 0;
	int rc = 0;
	if (w->f && w->own && fclose(w->f) != 0)
		rc = rp_fail(errbuf, RP_E_IO, "closing the loadfile: %s", strerror(errno));
	else if (w->f && !w->own && fflush(w->f) != 0)
		rc = rp_fail(errbuf, RP_E_IO, "writing the loadfile: %s", strerror(errno));
	rp_strtab_destroy(w->strings);
	free(w->handles.key);
	free(w->handles.path);
	free(w->doc.key);
	free(w->doc.path);
	free(w->line);
	free(w);
	return rc;
}
