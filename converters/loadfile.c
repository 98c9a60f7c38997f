/*
 * Ops -> dbench loadfile lines (converters/loadfile.h): the command each op
 * becomes in each dialect, and the dbench-compatibility policy, over the
 * formats/ serializer.  The choices are the policy's fields; this file says
 * where each applies.
 */
#include "converters/loadfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/semantics.h"
#include "formats/strtab.h"

/* Trace-local handles the converter remembers something of (NFS lines name paths, not handles). */
typedef struct hmap {
	uint64_t *key;
	uint32_t *path;
	size_t cap, used;
} hmap;

struct rp_conv_lf {
	rp_sink sink;
	FILE *f;
	bool own;
	bool decided;       /* the dialect is fixed (AUTO waits for the first op) */
	rp_conv_lf_opts opts;
	rp_loadfile_out *out;
	rp_trace_meta meta;
	hmap handles;       /* NFS dialect: handle -> path (nfs_handle_paths) */
	hmap doc;           /* NFS dialect: handles to delete at their close (DOC_*) */
	uint64_t next_fnum; /* for the NTCreateX/Close pairs wrap_path_ops adds */
	rp_conv_lf_stats st;
	hmap clients;       /* the distinct clients seen (keys only), for the summary */
};

void rp_conv_lf_opts_init(rp_conv_lf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dialect = RP_LOADFILE_AUTO;
	o->policy = (rp_conv_lf_policy){
		.open_if_as_create = false, /* `convert --prepare` turns it on: the loadfile is dbench's then */
		.fill_io_results = true,
		.unlink_attrs = true,
		.find_defaults = true,
		.qpath_level = true,
		.wrap_path_ops = true,
		.first_fnum = 60000,
		.nfs_delete_on_close = true,
		.nfs_handle_paths = true,
	};
}

/* ---- handle maps ---- */

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


static bool from_nfs(const rp_op *op)
{
	return op->proto == RP_PROTO_NFS3 || op->proto == RP_PROTO_NFS4 || op->proto == RP_PROTO_DBENCH_NFS;
}

static bool from_smb(const rp_op *op)
{
	return op->proto == RP_PROTO_SMB1 || op->proto == RP_PROTO_SMB2 || op->proto == RP_PROTO_DBENCH_SMB;
}

static int line_sfx(rp_conv_lf *w, rp_loadfile_cmd k, const rp_op *op, uint32_t path, const char *suffix)
{
	return rp_loadfile_out_line(w->out, k, op, path, suffix, w->sink.errbuf);
}

static int line(rp_conv_lf *w, rp_loadfile_cmd k, const rp_op *op, uint32_t path)
{
	return line_sfx(w, k, op, path, NULL);
}

/* An op no dialect command expresses: a comment with its canonical text. */
static int note(rp_conv_lf *w, const rp_op *op, const char *why)
{
	w->st.comments++;
	size_t i = 0;
	while (i < RP_CONV_LF_REASONS && w->st.reasons[i].why && strcmp(w->st.reasons[i].why, why) != 0)
		i++;
	if (i == RP_CONV_LF_REASONS) {
		w->st.other_reasons++;
	} else {
		w->st.reasons[i].why = why;
		w->st.reasons[i].n++;
	}
	return rp_loadfile_out_comment(w->out, op, why, w->sink.errbuf);
}

/* A handle-based SMB command for an op that names a path only: open it around the command. */
static int with_fnum(rp_conv_lf *w, rp_loadfile_cmd k, const rp_op *op)
{
	rp_op open = { 0 };
	open.t_start = op->t_start;
	open.handle = w->next_fnum++;
	open.raw.disposition = RP_NT_OPEN;
	open.status_kind = RP_SK_NT;
	int rc = line(w, RP_LOADFILE_NTCREATEX, &open, op->path);
	rp_op mid = *op;
	mid.handle = open.handle;
	if (rc == 0)
		rc = line(w, k, &mid, op->path);
	rp_op close = open;
	if (rc == 0)
		rc = line(w, RP_LOADFILE_CLOSE, &close, 0);
	return rc;
}

static int write_smb(rp_conv_lf *w, const rp_op *op)
{
	rp_loadfile_cmd k = RP_LOADFILE__COUNT;
	bool by_handle = false;
	switch (op->op) {
	case RP_OP_OPEN: k = RP_LOADFILE_NTCREATEX; break;
	case RP_OP_CLOSE: k = RP_LOADFILE_CLOSE; by_handle = true; break;
	case RP_OP_READ: k = RP_LOADFILE_READX; by_handle = true; break;
	case RP_OP_WRITE: k = RP_LOADFILE_WRITEX; by_handle = true; break;
	case RP_OP_FLUSH: k = RP_LOADFILE_FLUSH; by_handle = true; break;
	case RP_OP_SETATTR: k = RP_LOADFILE_SFILEINFO; by_handle = true; break;
	case RP_OP_LOCK:
		if (op->flags & RP_OPF_TEST)
			return note(w, op, "a lock test takes no lock");
		k = RP_LOADFILE_LOCKX;
		by_handle = true;
		break;
	case RP_OP_UNLOCK: k = RP_LOADFILE_UNLOCKX; by_handle = true; break;
	case RP_OP_STAT: k = op->handle ? RP_LOADFILE_QFILEINFO : RP_LOADFILE_QPATHINFO; break;
	case RP_OP_LOOKUP:
	case RP_OP_ACCESS:
	case RP_OP_READLINK: k = RP_LOADFILE_QPATHINFO; break;
	case RP_OP_UNLINK: k = RP_LOADFILE_UNLINK; break;
	case RP_OP_MKDIR: k = RP_LOADFILE_MKDIR; break;
	case RP_OP_RMDIR: k = RP_LOADFILE_RMDIR; break;
	case RP_OP_RENAME: k = RP_LOADFILE_RENAME; break;
	case RP_OP_DELTREE: k = RP_LOADFILE_DELTREE; break;
	case RP_OP_READDIR: k = RP_LOADFILE_FINDFIRST; break;
	case RP_OP_STATFS: k = RP_LOADFILE_QFSINFO; break;
	case RP_OP_SLEEP: k = RP_LOADFILE_SLEEP; break;
	default: return note(w, op, "no SMB-dialect command");
	}
	if ((k == RP_LOADFILE_QPATHINFO || k == RP_LOADFILE_UNLINK || k == RP_LOADFILE_MKDIR || k == RP_LOADFILE_RMDIR ||
	     k == RP_LOADFILE_DELTREE || k == RP_LOADFILE_FINDFIRST || k == RP_LOADFILE_NTCREATEX || k == RP_LOADFILE_RENAME) &&
	    !op->path)
		return note(w, op, "no path");
	if (k == RP_LOADFILE_RENAME && !op->path2)
		return note(w, op, "no second path");
	rp_op o = *op;
	const rp_conv_lf_policy *const pol = &w->opts.policy;
	const bool dbench = op->proto == RP_PROTO_DBENCH_SMB;
	/* dbench checks ReadX/WriteX byte counts: when the source did not say (NFS loadfiles), all of them */
	if (pol->fill_io_results && (k == RP_LOADFILE_READX || k == RP_LOADFILE_WRITEX) && !dbench && o.result == 0 &&
	    o.status == RP_STATUS_OK)
		o.result = o.length;
	if (k == RP_LOADFILE_NTCREATEX) {
		rp_sem_to_nt(op, &o.raw.access, &o.raw.disposition, &o.raw.options);
		/* dbench 4.0 creates nothing for FILE_OPEN_IF; its FILE_CREATE is O_CREAT without O_EXCL */
		if (pol->open_if_as_create && !dbench && o.raw.disposition == RP_NT_OPEN_IF)
			o.raw.disposition = RP_NT_CREATE;
	}
	if (k == RP_LOADFILE_SFILEINFO) {
		o.raw.level = rp_sem_to_nt_level(op);
		if (!o.raw.level)
			return note(w, op, "no SMB set-info level sets these attributes");
	}
	if ((k == RP_LOADFILE_QPATHINFO || k == RP_LOADFILE_QFILEINFO || k == RP_LOADFILE_QFSINFO ||
	     k == RP_LOADFILE_FINDFIRST) && !from_smb(op))
		o.raw.level = 0;
	if (pol->wrap_path_ops && k == RP_LOADFILE_NTCREATEX && !op->handle && !dbench) {
		/* an open with no handle (NFS CREATE3, LOOKUP): open and close it again */
		o.handle = w->next_fnum++;
		int rc = line(w, k, &o, o.path);
		rp_op close = { .t_start = op->t_start, .handle = o.handle, .status_kind = RP_SK_NT };
		if (rc == 0 && o.status == RP_STATUS_OK)
			rc = line(w, RP_LOADFILE_CLOSE, &close, 0);
		return rc;
	}
	if (by_handle && !op->handle) {
		if (k == RP_LOADFILE_CLOSE || !op->path || !pol->wrap_path_ops)
			return note(w, op, "no handle");
		return with_fnum(w, k, &o);
	}
	if (pol->qpath_level && k == RP_LOADFILE_QPATHINFO && o.raw.level == 0)
		o.raw.level = 1004; /* FileBasicInformation */
	if (pol->unlink_attrs && k == RP_LOADFILE_UNLINK && !dbench && o.raw.options == 0)
		o.raw.options = 0x6; /* search hidden and system files, as dbench's own loadfile does */
	if (k == RP_LOADFILE_FINDFIRST) {
		/* FIND_FIRST takes a mask: the directory and the pattern in it (every entry when none) */
		uint32_t n = 0, pn = 0;
		const char *const s = rp_loadfile_out_get(w->out, o.path, &n);
		const char *const pat = o.path2 ? rp_loadfile_out_get(w->out, o.path2, &pn) : NULL;
		if (pol->find_defaults && o.raw.level == 0)
			o.raw.level = 260; /* FIND_FILE_BOTH_DIRECTORY_INFO */
		if (!pat && !pol->find_defaults)
			return line(w, k, &o, o.path); /* the directory alone */
		char sfx[RP_STR_MAX + 2];
		const size_t at = n && s[n - 1] == '/' ? 0 : 1;
		sfx[0] = '/';
		memcpy(sfx + at, pat ? pat : "*", pat ? pn : 1);
		sfx[at + (pat ? pn : 1)] = '\0';
		return line_sfx(w, k, &o, o.path, sfx);
	}
	return line(w, k, &o, o.path);
}

/* ---- delete-on-close, for the NFS dialect (which has none: it becomes a REMOVE3/RMDIR3 at the close) ---- */

enum { DOC_DELETE = 1, DOC_DIR = 2 };

static int doc_note(rp_conv_lf *w, uint64_t handle, uint32_t bits)
{
	const int rc = hmap_put(&w->doc, handle, bits);
	return rc < 0 ? rp_fail(w->sink.errbuf, rc, "out of memory") : 0;
}

static int write_nfs(rp_conv_lf *w, const rp_op *op)
{
	const rp_conv_lf_policy *const pol = &w->opts.policy;
	uint32_t path = op->path ? op->path : pol->nfs_handle_paths ? hmap_get(&w->handles, op->handle) : 0;
	rp_loadfile_cmd k = RP_LOADFILE__COUNT;
	switch (op->op) {
	case RP_OP_OPEN:
		if (pol->nfs_handle_paths && op->handle && path) {
			const int rc = hmap_put(&w->handles, op->handle, path);
			if (rc < 0)
				return rp_fail(w->sink.errbuf, rc, "out of memory");
		}
		if (pol->nfs_delete_on_close && op->handle && op->status == RP_STATUS_OK) {
			const uint32_t dir = (op->oflags & RP_OF_DIRECTORY) || (op->flags & RP_OPF_DIRECTORY) ? DOC_DIR : 0;
			const int rc = doc_note(w, op->handle, (op->oflags & RP_OF_DELETE_ON_CLOSE ? DOC_DELETE : 0) | dir);
			if (rc < 0)
				return rc;
		}
		/* NFS has no open that fails for being (or not being) a directory: such a failure has no line */
		if ((op->status == EISDIR && (op->oflags & RP_OF_NOT_DIRECTORY)) ||
		    (op->status == ENOTDIR && (op->oflags & RP_OF_DIRECTORY)))
			return note(w, op, "no NFS-dialect command fails this open so");
		/* what the open did: one that found the object (the create action) made nothing */
		if (op->disp == RP_DISP_OPEN || op->disp == RP_DISP_TRUNC || op->result == RP_ACT_OPENED ||
		    (op->result == RP_ACT_TRUNCATED && (op->oflags & RP_OF_DIRECTORY)))
			k = RP_LOADFILE_LOOKUP3;
		else
			k = (op->oflags & RP_OF_DIRECTORY) ? RP_LOADFILE_MKDIR3 : RP_LOADFILE_CREATE3;
		break;
	case RP_OP_CLOSE: {
		/* the delete an SMB client asked for at open or by set-info happens at its close */
		const uint32_t doc = hmap_get(&w->doc, op->handle);
		if (pol->nfs_delete_on_close && (doc & DOC_DELETE) && path && op->status == RP_STATUS_OK) {
			rp_op del = *op;
			del.op = doc & DOC_DIR ? RP_OP_RMDIR : RP_OP_UNLINK;
			del.handle = 0;
			return line(w, doc & DOC_DIR ? RP_LOADFILE_RMDIR3 : RP_LOADFILE_REMOVE3, &del, path);
		}
		return note(w, op, "NFS has no close");
	}
	case RP_OP_READ: k = RP_LOADFILE_READ3; break;
	case RP_OP_WRITE: k = RP_LOADFILE_WRITE3; break;
	case RP_OP_FLUSH: k = RP_LOADFILE_COMMIT3; break;
	case RP_OP_STAT: k = RP_LOADFILE_GETATTR3; break;
	case RP_OP_SETATTR:
		if (op->attrs & (RP_SA_DELETE_SET | RP_SA_DELETE_CLEAR)) {
			if (!pol->nfs_delete_on_close)
				return note(w, op, "delete-on-close: no NFS command");
			if (!op->handle || op->status != RP_STATUS_OK)
				return note(w, op, "delete-on-close without a handle");
			const uint32_t doc = hmap_get(&w->doc, op->handle) & DOC_DIR;
			const int rc = doc_note(w, op->handle, doc | (op->attrs & RP_SA_DELETE_SET ? DOC_DELETE : 0));
			return rc < 0 ? rc : note(w, op, "delete-on-close: a REMOVE3 at the close");
		}
		k = RP_LOADFILE_SETATTR3;
		break;
	case RP_OP_UNLINK: k = RP_LOADFILE_REMOVE3; break;
	case RP_OP_MKDIR: k = RP_LOADFILE_MKDIR3; break;
	case RP_OP_RMDIR: k = RP_LOADFILE_RMDIR3; break;
	case RP_OP_RENAME: k = RP_LOADFILE_RENAME3; break;
	case RP_OP_LINK: k = RP_LOADFILE_LINK3; break;
	case RP_OP_SYMLINK: k = RP_LOADFILE_SYMLINK3; break;
	case RP_OP_READLINK: k = RP_LOADFILE_READLINK3; break;
	case RP_OP_READDIR:
		k = from_nfs(op) && op->raw.level == RP_LOADFILE_LEVEL_READDIR3 ? RP_LOADFILE_READDIR3 : RP_LOADFILE_READDIRPLUS3;
		break;
	case RP_OP_LOCK: k = op->flags & RP_OPF_TEST ? RP_LOADFILE_TEST4 : RP_LOADFILE_LOCK4; break;
	case RP_OP_UNLOCK: k = RP_LOADFILE_UNLOCK4; break;
	case RP_OP_STATFS: {
		const uint32_t lvl = from_nfs(op) ? op->raw.level : 0;
		k = lvl == RP_LOADFILE_LEVEL_FSINFO3 ? RP_LOADFILE_FSINFO3 : lvl == RP_LOADFILE_LEVEL_PATHCONF3 ? RP_LOADFILE_PATHCONF3 : RP_LOADFILE_FSSTAT3;
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
			return note(w, op, "no path");
		return line(w, RP_LOADFILE_ACCESS3, &o, path);
	}
	case RP_OP_DELTREE: k = RP_LOADFILE_DELTREE; break;
	case RP_OP_SLEEP: k = RP_LOADFILE_SLEEP; break;
	case RP_OP_LOOKUP: k = RP_LOADFILE_LOOKUP3; break;
	case RP_OP_MKNOD: k = RP_LOADFILE_MKNOD3; break;
	default: return note(w, op, "no NFS-dialect command");
	}
	const char *const spec = rp__lf_cmds[k].spec;
	if (strchr(spec, 'p') && !path)
		return note(w, op, "no path");
	if (strchr(spec, 'q') && !op->path2)
		return note(w, op, "no second path");
	return line(w, k, op, path);
}

/* ---- the sink ---- */

rp_loadfile_dialect rp_conv_lf_auto_dialect(const rp_trace_meta *meta, const rp_op *first)
{
	if (meta && (meta->source == RP_SRC_LOADFILE_NFS || meta->source == RP_SRC_PCAP_NFS))
		return RP_LOADFILE_NFS;
	if (first && (first->status_kind == RP_SK_NFS3 || first->status_kind == RP_SK_NFS4))
		return RP_LOADFILE_NFS;
	return RP_LOADFILE_SMB;
}

static int w_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_conv_lf *const w = (rp_conv_lf *)s;
	w->meta = *meta;
	if (w->opts.dialect != RP_LOADFILE_AUTO || rp_conv_lf_auto_dialect(meta, NULL) == RP_LOADFILE_NFS) {
		rp_loadfile_out_set_dialect(w->out, w->opts.dialect != RP_LOADFILE_AUTO ? w->opts.dialect : RP_LOADFILE_NFS);
		w->decided = true;
	}
	return 0;
}

static int w_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_conv_lf *const w = (rp_conv_lf *)s;
	return rp_loadfile_out_string(w->out, id, str, len, s->errbuf);
}

static int w_op(rp_sink *s, const rp_op *op)
{
	rp_conv_lf *const w = (rp_conv_lf *)s;
	w->st.ops++;
	/* Clients are keyed + 1 (0 is the maps' empty slot); every one of them goes into the one script. */
	if (!hmap_get(&w->clients, (uint64_t)op->client + 1)) {
		const int rc = hmap_put(&w->clients, (uint64_t)op->client + 1, 1);
		if (rc < 0)
			return rp_fail(s->errbuf, rc, "out of memory");
		w->st.clients++;
	}
	if (!w->decided) { /* AUTO on a trace from elsewhere: NFS when its statuses are */
		rp_loadfile_out_set_dialect(w->out, rp_conv_lf_auto_dialect(&w->meta, op));
		w->decided = true;
	}
	return rp_loadfile_out_dialect(w->out) == RP_LOADFILE_SMB ? write_smb(w, op) : write_nfs(w, op);
}

static int w_finish(rp_sink *s)
{
	rp_conv_lf *const w = (rp_conv_lf *)s;
	return rp_loadfile_out_flush(w->out, s->errbuf);
}

int rp_conv_lf_open(rp_conv_lf **out, FILE *f, const rp_conv_lf_opts *opts, char *errbuf)
{
	*out = NULL;
	rp_conv_lf *const w = calloc(1, sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	if (opts)
		w->opts = *opts;
	else
		rp_conv_lf_opts_init(&w->opts);
	const int rc = rp_loadfile_out_open(&w->out, f, w->opts.dialect, w->opts.timestamps, errbuf);
	if (rc < 0) {
		free(w);
		return rc;
	}
	w->next_fnum = w->opts.policy.first_fnum;
	w->f = f;
	w->sink.meta = w_meta;
	w->sink.string = w_string;
	w->sink.op = w_op;
	w->sink.finish = w_finish;
	*out = w;
	return 0;
}

int rp_conv_lf_open_path(rp_conv_lf **out, const char *path, const rp_conv_lf_opts *opts, char *errbuf)
{
	*out = NULL;
	if (strcmp(path, "-") == 0)
		return rp_conv_lf_open(out, stdout, opts, errbuf);
	FILE *const f = fopen(path, "wb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	const int rc = rp_conv_lf_open(out, f, opts, errbuf);
	if (rc < 0) {
		fclose(f);
		return rc;
	}
	(*out)->own = true;
	return 0;
}

rp_sink *rp_conv_lf_sink(rp_conv_lf *w)
{
	return &w->sink;
}

void rp_conv_lf_get_stats(const rp_conv_lf *w, rp_conv_lf_stats *st)
{
	*st = w->st;
	st->dialect = rp_loadfile_out_dialect(w->out);
}

int rp_conv_lf_close(rp_conv_lf *w, char *errbuf)
{
	if (!w)
		return 0;
	int rc = 0;
	if (w->f && w->own && fclose(w->f) != 0)
		rc = rp_fail(errbuf, RP_E_IO, "closing the loadfile: %s", strerror(errno));
	else if (w->f && !w->own && fflush(w->f) != 0)
		rc = rp_fail(errbuf, RP_E_IO, "writing the loadfile: %s", strerror(errno));
	rp_loadfile_out_close(w->out);
	free(w->handles.key);
	free(w->handles.path);
	free(w->clients.key);
	free(w->clients.path);
	free(w->doc.key);
	free(w->doc.path);
	free(w);
	return rc;
}
