/*
 * Ops -> fio's I/O replay input (converters/fio.h): an iolog in fio's
 * "Trace file format v3" (fio(1)), or a job file that lays out what that
 * iolog reads and then replays it.  What fio can and cannot express, and
 * what fio 3.33 was measured to do, is in docs/fio.md.
 */
#include "converters/fio.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/path.h"
#include "formats/strtab.h"

/* A file the iolog names. */
typedef struct file {
	uint64_t refs;  /* trace handles open on it */
	uint64_t need;  /* the largest end of its reads: what the layout must hold */
	bool added;     /* its "add" line is written */
	bool open;      /* fio has it open */
	bool mapped;    /* its name had bytes fio cannot take */
} file;

/* (table owner, trace handle) -> file index + 1; 0 once closed. */
typedef struct hslot {
	uint64_t handle;
	uint32_t client;
	uint32_t file;
	int32_t bad; /* file 0: the rp_fio_skip + 1 of the path its open named, which fio cannot take (0: none) */
} hslot;

/* A client: whose handle table it uses (a thread: its parent's) and whose it inherited (a child process). */
typedef struct cslot {
	uint32_t key;    /* client + 1; 0 = free */
	uint32_t owner;  /* the client whose table it uses */
	uint32_t parent; /* the client it was forked from + 1; 0 = none */
} cslot;

/* A process tree deeper than this is no trace of ours: handle lookups stop there. */
#define FORK_DEPTH_MAX 64u

struct rp_conv_fio {
	rp_sink sink;
	FILE *f;
	rp_fio_form form;
	char *iolog;
	rp_strtab *strings;  /* the trace's strings, by id */
	int64_t *path_file;  /* string id -> file index + 1, -(skip reason + 1), or 0 when not yet resolved */
	size_t n_path_file;
	rp_strtab *names;    /* the files' fio names, id = file index + 1 */
	file *files;
	size_t cap_files;
	rp_strtab *unsafe;   /* name components that needed mapping: id = their number */
	hslot *h;
	size_t h_cap, h_used;
	cslot *c;
	size_t c_cap, c_used;
	uint64_t now;        /* the latest t_start so far */
	uint64_t t0;         /* the first line's t_start: fio's time 0 (a capture's minutes of metadata first would be a wait) */
	bool timed;          /* t0 is set */
	bool header;         /* the iolog's first line is written */
	bool counts;         /* the trace records the bytes each read and write moved (result) */
	rp_conv_fio_stats st;
	char norm[RP_STR_MAX + 1];
	char mapped[RP_STR_MAX + 1];
};

static uint64_t mix(uint64_t k)
{
	return k * 0x9e3779b97f4a7c15ull;
}

/* ---- clients and their handle tables ---- */

static cslot *client_slot(rp_conv_fio *w, uint32_t client, bool add)
{
	if (add && (w->c_used + 1) * 2 > w->c_cap) {
		const size_t cap = w->c_cap ? w->c_cap * 2 : 64;
		cslot *const n = calloc(cap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < w->c_cap; i++)
			if (w->c[i].key) {
				size_t s = (size_t)(mix(w->c[i].key) >> 20) & (cap - 1);
				while (n[s].key)
					s = (s + 1) & (cap - 1);
				n[s] = w->c[i];
			}
		free(w->c);
		w->c = n;
		w->c_cap = cap;
	}
	if (!w->c_cap)
		return NULL;
	const uint32_t key = client + 1u;
	size_t s = (size_t)(mix(key) >> 20) & (w->c_cap - 1);
	while (w->c[s].key && w->c[s].key != key)
		s = (s + 1) & (w->c_cap - 1);
	if (!w->c[s].key) {
		if (!add)
			return NULL;
		w->c[s] = (cslot){ .key = key, .owner = client, .parent = 0 };
		w->c_used++;
		w->st.clients++;
	}
	return &w->c[s];
}

static hslot *handle_slot(rp_conv_fio *w, uint32_t owner, uint64_t handle, bool add)
{
	if (add && (w->h_used + 1) * 2 > w->h_cap) {
		const size_t cap = w->h_cap ? w->h_cap * 2 : 1024;
		hslot *const n = calloc(cap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < w->h_cap; i++)
			if (w->h[i].handle) {
				size_t s = (size_t)(mix(w->h[i].handle ^ mix(w->h[i].client)) >> 20) & (cap - 1);
				while (n[s].handle)
					s = (s + 1) & (cap - 1);
				n[s] = w->h[i];
			}
		free(w->h);
		w->h = n;
		w->h_cap = cap;
	}
	if (!w->h_cap || !handle)
		return NULL;
	size_t s = (size_t)(mix(handle ^ mix(owner)) >> 20) & (w->h_cap - 1);
	while (w->h[s].handle && !(w->h[s].handle == handle && w->h[s].client == owner))
		s = (s + 1) & (w->h_cap - 1);
	if (!w->h[s].handle) {
		if (!add)
			return NULL;
		w->h[s] = (hslot){ .handle = handle, .client = owner, .file = 0 };
		w->h_used++;
	}
	return &w->h[s];
}

/*
 * The file a client's handle is open on (index + 1, 0 if none): in its own
 * table, else in the tables it inherited from the processes it was forked
 * from.  *own says whether the client's own table holds it; *bad, when
 * the handle was opened on a path fio cannot take, why (rp_fio_skip + 1).
 */
static uint32_t handle_file(rp_conv_fio *w, uint32_t client, uint64_t handle, bool *own, int32_t *bad)
{
	*own = true;
	*bad = 0;
	const cslot *c = client_slot(w, client, false);
	for (unsigned depth = 0; c && depth < FORK_DEPTH_MAX; depth++) {
		const hslot *const h = handle_slot(w, c->owner, handle, false);
		if (h && h->file)
			return h->file;
		if (h && h->bad) {
			*bad = h->bad;
			return 0;
		}
		*own = false;
		c = c->parent ? client_slot(w, c->parent - 1u, false) : NULL;
	}
	return 0;
}

/* ---- names ---- */

/* Bytes fio takes in an iolog (split on white space) and in a job file (':' separates files, '$' expands, ';' '#' comment). */
static bool safe_byte(unsigned char b)
{
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '.' || b == '_' ||
	       b == '-' || b == '+' || b == ',';
}

/*
 * The component s[0..n) as fio will see it, appended at w->mapped + *len:
 * itself when every byte is safe, else its unsafe bytes as '_' and "~N", N
 * the component's number among the mapped ones ('~' is unsafe, so a mapped
 * name never equals a kept one, and the number keeps two mapped ones apart).
 * 1 if it was mapped, 0 if kept, or a negative rp error.
 */
static int map_component(rp_conv_fio *w, const char *s, size_t n, size_t *len)
{
	bool ok = true;
	for (size_t i = 0; i < n; i++)
		ok = ok && safe_byte((unsigned char)s[i]);
	if (*len + n + 24 > sizeof(w->mapped))
		return RP_E_LIMIT;
	for (size_t i = 0; i < n; i++)
		w->mapped[(*len)++] = safe_byte((unsigned char)s[i]) ? s[i] : '_';
	if (ok)
		return 0;
	int added = 0;
	const int64_t id = rp_strtab_intern(w->unsafe, s, (uint32_t)n, &added);
	if (id < 0)
		return (int)id;
	(void)added;
	*len += (size_t)snprintf(w->mapped + *len, sizeof(w->mapped) - *len, "~%" PRId64, id);
	return 1;
}

static int grow_files(rp_conv_fio *w, size_t want)
{
	if (want <= w->cap_files)
		return 0;
	const size_t cap = w->cap_files ? w->cap_files * 2 : 256;
	file *const n = realloc(w->files, cap * sizeof(*n));
	if (!n)
		return RP_E_NOMEM;
	memset(n + w->cap_files, 0, (cap - w->cap_files) * sizeof(*n));
	w->files = n;
	w->cap_files = cap;
	return 0;
}

/* The file path names (index + 1), or -(skip reason + 1); every path is resolved once. */
static int64_t path_file(rp_conv_fio *w, uint32_t path)
{
	if (path < w->n_path_file && w->path_file[path])
		return w->path_file[path];
	uint32_t len = 0;
	const char *const s = rp_strtab_get(w->strings, path, &len);
	if (!s)
		return -(int64_t)RP_FIO_SKIP_PATH - 1;
	const int n = rp_path_norm(s, len, w->norm, sizeof(w->norm));
	int64_t v;
	if (n <= 0) {
		v = -(int64_t)RP_FIO_SKIP_PATH - 1; /* out of the tree, the top itself, a NUL */
	} else {
		size_t mlen = 0;
		int rc = 0, mapped = 0;
		for (const char *p = w->norm, *end = w->norm + n; p < end && rc >= 0;) {
			const char *const slash = memchr(p, '/', (size_t)(end - p));
			const char *const ce = slash ? slash : end;
			if (mlen)
				w->mapped[mlen++] = '/';
			rc = map_component(w, p, (size_t)(ce - p), &mlen);
			mapped |= rc != 0;
			p = ce + 1;
		}
		if (rc == RP_E_NOMEM)
			return RP_E_NOMEM;
		if (rc < 0 || mlen > RP_FIO_NAME_MAX) {
			v = -(int64_t)RP_FIO_SKIP_LONG - 1;
		} else {
			int added = 0;
			const int64_t id = rp_strtab_intern(w->names, w->mapped, (uint32_t)mlen, &added);
			if (id < 0 || grow_files(w, (size_t)id) < 0)
				return RP_E_NOMEM;
			if (added)
				w->files[id - 1].mapped = mapped != 0;
			v = id;
		}
	}
	if (path < w->n_path_file)
		w->path_file[path] = v;
	return v;
}

static const char *file_name(const rp_conv_fio *w, uint32_t fi)
{
	uint32_t len;
	return rp_strtab_get(w->names, fi, &len);
}

/* ---- lines ---- */

static int put_line(rp_conv_fio *w, uint32_t fi, const char *action, bool range, uint64_t off, uint64_t len)
{
	if (!w->timed) {
		w->timed = true;
		w->t0 = w->now;
	}
	const uint64_t us = (w->now - w->t0) / 1000u;
	if (w->form != RP_FIO_IOLOG)
		return 0;
	int n;
	if (range)
		n = fprintf(w->f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", us, file_name(w, fi), action, off,
			    len);
	else
		n = fprintf(w->f, "%" PRIu64 " %s %s\n", us, file_name(w, fi), action);
	return n < 0 ? rp_fail(w->sink.errbuf, RP_E_IO, "write error: %s", strerror(errno)) : 0;
}

/* fio opens a file at an "open" after its "add": both at the file's first I/O, so files only looked at stay out. */
static int fio_open(rp_conv_fio *w, uint32_t fi)
{
	file *const f = &w->files[fi - 1];
	int rc = 0;
	if (!f->added) {
		f->added = true;
		w->st.files++;
		w->st.mapped += f->mapped;
		rc = put_line(w, fi, "add", false, 0, 0);
	}
	if (rc == 0 && !f->open) {
		f->open = true;
		rc = put_line(w, fi, "open", false, 0, 0);
	}
	return rc;
}

static int fio_close(rp_conv_fio *w, uint32_t fi)
{
	file *const f = &w->files[fi - 1];
	if (!f->open)
		return 0;
	f->open = false;
	return put_line(w, fi, "close", false, 0, 0);
}

/* ---- ops ---- */

static bool failed(const rp_op *op)
{
	return op->status != RP_STATUS_OK && op->status != RP_STATUS_UNKNOWN;
}

/* The file an I/O op is on: its handle's, else (NFSv3, a handle no open named) its path's. */
static int64_t io_file(rp_conv_fio *w, const rp_op *op)
{
	bool own;
	int32_t bad = 0;
	const uint32_t fi = op->handle ? handle_file(w, op->client, op->handle, &own, &bad) : 0;
	if (fi)
		return fi;
	if (op->path)
		return path_file(w, op->path);
	return bad ? -(int64_t)bad : -(int64_t)RP_FIO_SKIP_HANDLE - 1;
}

static int skip(rp_conv_fio *w, rp_fio_skip why)
{
	w->st.skipped[why]++;
	return 0;
}

static int do_io(rp_conv_fio *w, const rp_op *op)
{
	if (failed(op))
		return skip(w, RP_FIO_SKIP_FAILED);
	const int64_t v = io_file(w, op);
	if (v == RP_E_NOMEM)
		return rp_fail(w->sink.errbuf, RP_E_NOMEM, "out of memory");
	if (v < 0)
		return skip(w, (rp_fio_skip)(-v - 1));
	const uint32_t fi = (uint32_t)v;
	const char *action;
	uint64_t off = op->offset, len = op->length;
	switch (op->op) {
	case RP_OP_READ:
	case RP_OP_WRITE:
		/*
		 * What moved.  No reply seen, or a trace that records no counts (a
		 * dbench NFS-dialect loadfile): the length asked.  Nothing moved (a
		 * read at the end of the file): no I/O fio can issue.
		 */
		if (op->status == RP_STATUS_OK && w->counts && op->result < len)
			len = op->result;
		if (len == 0)
			return skip(w, RP_FIO_SKIP_ZERO);
		action = op->op == RP_OP_READ ? "read" : "write";
		break;
	case RP_OP_FLUSH:
		action = op->flags & RP_OPF_DATASYNC ? "datasync" : "sync";
		off = len = 0; /* fio syncs the whole file; an NFS COMMIT's range is not kept */
		break;
	default: /* RP_OP_FALLOCATE with RP_FA_PUNCH_HOLE */
		action = "trim";
		break;
	}
	if (off > RP_FIO_END_MAX || len > RP_FIO_END_MAX - off)
		return skip(w, RP_FIO_SKIP_END);
	/*
	 * A sync of what fio never read or wrote syncs nothing fio made, and is
	 * most often a directory's (a database's fsync of its directory, which
	 * fio would lay out and open as a file).
	 */
	if (op->op == RP_OP_FLUSH && !w->files[fi - 1].added)
		return skip(w, RP_FIO_SKIP_SYNC);
	int rc = fio_open(w, fi);
	if (rc == 0)
		rc = put_line(w, fi, action, true, off, len);
	if (rc < 0)
		return rc;
	file *const f = &w->files[fi - 1];
	switch (op->op) {
	case RP_OP_READ:
		w->st.reads++;
		w->st.read_bytes += len;
		if (off + len > f->need)
			f->need = off + len;
		break;
	case RP_OP_WRITE:
		w->st.writes++;
		w->st.write_bytes += len;
		break;
	case RP_OP_FLUSH:
		if (op->flags & RP_OPF_DATASYNC)
			w->st.datasyncs++;
		else
			w->st.syncs++;
		break;
	default:
		w->st.trims++;
		w->st.trim_bytes += len;
		break;
	}
	return 0;
}

/*
 * A handle of client's table now names file fi (0: none; bad, why its path
 * could not be taken); the file it named before loses a reference.
 */
static int set_handle(rp_conv_fio *w, uint32_t client, uint64_t handle, uint32_t fi, int32_t bad)
{
	const cslot *const c = client_slot(w, client, true);
	hslot *const h = c ? handle_slot(w, c->owner, handle, fi != 0 || bad != 0) : NULL;
	if (!c || (!h && (fi || bad)))
		return rp_fail(w->sink.errbuf, RP_E_NOMEM, "out of memory");
	if (!h)
		return 0;
	int rc = 0;
	if (h->file) {
		file *const old = &w->files[h->file - 1];
		if (old->refs && --old->refs == 0)
			rc = fio_close(w, h->file);
	}
	h->file = fi;
	h->bad = fi ? 0 : bad;
	if (fi)
		w->files[fi - 1].refs++;
	return rc;
}

static int do_open(rp_conv_fio *w, const rp_op *op)
{
	if (failed(op) || !op->handle || !op->path)
		return 0; /* no handle to follow: I/O on it, if any, is counted there */
	const int64_t v = path_file(w, op->path);
	if (v == RP_E_NOMEM)
		return rp_fail(w->sink.errbuf, RP_E_NOMEM, "out of memory");
	/* a path fio cannot name (the top directory itself, often): I/O on the handle is counted for it */
	if (v < 0)
		return set_handle(w, op->client, op->handle, 0, (int32_t)-v);
	return set_handle(w, op->client, op->handle, (uint32_t)v, 0);
}

static int do_close(rp_conv_fio *w, const rp_op *op)
{
	bool own;
	int32_t bad;
	if (!op->handle || (!handle_file(w, op->client, op->handle, &own, &bad) && !bad) || !own)
		return 0; /* an inherited handle: the parent still holds its own reference */
	return set_handle(w, op->client, op->handle, 0, 0);
}

static int do_dup(rp_conv_fio *w, const rp_op *op)
{
	bool own;
	int32_t bad = 0;
	const uint32_t fi = op->handle ? handle_file(w, op->client, op->handle, &own, &bad) : 0;
	if (!op->handle2 || failed(op))
		return 0;
	return set_handle(w, op->client, op->handle2, fi, bad); /* dup2 onto an open handle closes that one */
}

static int do_fork(rp_conv_fio *w, const rp_op *op)
{
	if (failed(op) || op->result > UINT32_MAX || op->result == op->client)
		return 0;
	cslot *const p = client_slot(w, op->client, true);
	const uint32_t owner = p ? p->owner : 0;
	cslot *const c = p ? client_slot(w, (uint32_t)op->result, true) : NULL;
	if (!c)
		return rp_fail(w->sink.errbuf, RP_E_NOMEM, "out of memory");
	if (op->oflags & RP_FK_SHARE)
		c->owner = owner; /* a thread: one table */
	else
		c->parent = op->client + 1u;
	return 0;
}

static int sink_op(rp_sink *s, const rp_op *op)
{
	rp_conv_fio *const w = (rp_conv_fio *)s;
	w->st.ops++;
	if (!client_slot(w, op->client, true))
		return rp_fail(s->errbuf, RP_E_NOMEM, "out of memory");
	/* fio's times never go back: an op earlier than the one before (another client's) is written at that time */
	if (op->t_start != RP_TIME_UNKNOWN && op->t_start < w->now)
		w->st.raised++;
	else if (op->t_start != RP_TIME_UNKNOWN)
		w->now = op->t_start;
	switch (op->op) {
	case RP_OP_OPEN: return do_open(w, op);
	case RP_OP_CLOSE: return do_close(w, op);
	case RP_OP_DUP: return do_dup(w, op);
	case RP_OP_FORK: return do_fork(w, op);
	case RP_OP_READ:
	case RP_OP_WRITE:
	case RP_OP_FLUSH: return do_io(w, op);
	case RP_OP_FALLOCATE:
		return op->oflags & RP_FA_PUNCH_HOLE ? do_io(w, op) : skip(w, RP_FIO_SKIP_FALLOC);
	default:
		if (op->op < RP_OP__COUNT)
			w->st.left_out[op->op]++;
		return 0;
	}
}

static int sink_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_conv_fio *const w = (rp_conv_fio *)s;
	if (meta)
		w->counts = meta->source != RP_SRC_LOADFILE_NFS; /* its READ3/WRITE3 lines have no count moved */
	if (w->form != RP_FIO_IOLOG || w->header)
		return 0;
	w->header = true;
	if (fputs("fio version 3 iolog\n", w->f) < 0)
		return rp_fail(s->errbuf, RP_E_IO, "write error: %s", strerror(errno));
	return 0;
}

static int sink_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_conv_fio *const w = (rp_conv_fio *)s;
	const int64_t got = rp_strtab_append(w->strings, str, len);
	if (got < 0)
		return rp_fail(s->errbuf, (int)got, "string %" PRIu32 ": cannot keep it", id);
	if (got != (int64_t)id)
		return rp_fail(s->errbuf, RP_E_INVAL, "string %" PRIu32 " defined out of order", id);
	if ((size_t)id >= w->n_path_file) {
		const size_t n = w->n_path_file ? w->n_path_file * 2 : 1024;
		int64_t *const p = realloc(w->path_file, n * sizeof(*p));
		if (!p)
			return rp_fail(s->errbuf, RP_E_NOMEM, "out of memory");
		memset(p + w->n_path_file, 0, (n - w->n_path_file) * sizeof(*p));
		w->path_file = p;
		w->n_path_file = n;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A name the iolog uses both as a file and as a directory of another (the
 * trace removed or renamed one in between) is no tree fio can lay out or
 * open: an error naming it.
 */
static int check_tree(rp_conv_fio *w)
{
	const char **const v = calloc(w->st.files ? w->st.files : 1, sizeof(*v));
	if (!v)
		return rp_fail(w->sink.errbuf, RP_E_NOMEM, "out of memory");
	size_t n = 0;
	for (uint32_t fi = 1; fi <= rp_strtab_count(w->names); fi++)
		if (w->files[fi - 1].added)
			v[n++] = file_name(w, fi);
	qsort(v, n, sizeof(*v), name_cmp);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		/* the first name at or after "NAME/": beneath NAME if it starts so */
		char key[RP_FIO_NAME_MAX + 2];
		const size_t len = strlen(v[i]);
		memcpy(key, v[i], len);
		key[len] = '/';
		key[len + 1] = '\0';
		size_t lo = i + 1, hi = n;
		while (lo < hi) {
			const size_t mid = lo + (hi - lo) / 2;
			if (strcmp(v[mid], key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && strncmp(v[lo], key, len + 1) == 0)
			rc = rp_fail(w->sink.errbuf, RP_E_UNSUPPORTED,
				     "%s is both a file and the directory of %s in the iolog (the trace removed or renamed"
				     " it in between): fio cannot lay out or replay that", v[i], v[lo]);
	}
	free(v);
	return rc;
}

static int sink_finish(rp_sink *s)
{
	rp_conv_fio *const w = (rp_conv_fio *)s;
	if (sink_meta(s, NULL) < 0)
		return RP_E_IO;
	const int crc = check_tree(w);
	if (crc < 0)
		return crc;
	/* handles never closed, files read or written by path: closed at the last time */
	for (uint32_t fi = 1; fi <= rp_strtab_count(w->names); fi++)
		if (w->files[fi - 1].open) {
			w->st.unclosed++;
			const int rc = fio_close(w, fi);
			if (rc < 0)
				return rc;
		}
	return 0;
}

/* ---- the job file ---- */

/* A layout job's filename= line stays well inside the lines fio reads from a job file. */
#define LAYOUT_LINE_MAX 3500u

/* Layout sizes: what the reads need, up to the next quarter of its power of two (4 KiB at least), so files group. */
static uint64_t layout_size(uint64_t need)
{
	if (need <= 4096u)
		return 4096u;
	uint64_t p = 4096u;
	while (p <= need / 2u)
		p *= 2u;
	const uint64_t step = p / 4u;
	return (need + step - 1u) / step * step;
}

typedef struct lay {
	const char *name;
	size_t dir; /* length of the directory part, '/' excluded (0: the top) */
	uint64_t size;
} lay;

static int lay_cmp(const void *a, const void *b)
{
	const lay *const x = a, *const y = b;
	const size_t n = x->dir < y->dir ? x->dir : y->dir;
	const int c = memcmp(x->name, y->name, n);
	if (c || x->dir != y->dir)
		return c ? c : (x->dir < y->dir ? -1 : 1);
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool same_job(const lay *a, const lay *b)
{
	return a->dir == b->dir && a->size == b->size && memcmp(a->name, b->name, a->dir) == 0;
}

/*
 * Every file the iolog names, laid out by fio before the replay (fio fails a
 * read past the end of a file, and opens no file in a directory that is not
 * there): one create_only job per directory and size, which makes the
 * directory (fio 3.33 makes the first file's directories only) and its files.
 */
static int write_job(rp_conv_fio *w, char *errbuf)
{
	for (const char *p = w->iolog; *p; p++)
		if (!safe_byte((unsigned char)*p) && *p != '/')
			return rp_fail(errbuf, RP_E_INVAL,
				       "the iolog's path %s has a byte a fio job file cannot hold (white space, ':', '$', ';', '#'...)",
				       w->iolog);
	size_t n = 0;
	lay *const l = calloc(w->st.files ? w->st.files : 1, sizeof(*l));
	if (!l)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	for (uint32_t fi = 1; fi <= rp_strtab_count(w->names); fi++) {
		if (!w->files[fi - 1].added)
			continue; /* opened, never read or written: not in the iolog */
		const char *const name = file_name(w, fi);
		const char *const slash = strrchr(name, '/');
		l[n++] = (lay){ name, slash ? (size_t)(slash - name) : 0, layout_size(w->files[fi - 1].need) };
	}
	qsort(l, n, sizeof(*l), lay_cmp);
	uint64_t jobs = 0;
	w->st.layout_bytes = 0;
	for (size_t i = 0; i < n; i++)
		w->st.layout_bytes += l[i].size;
	int rc = 0;
	if (fprintf(w->f,
		    "; fio job file made by reprise convert (docs/fio.md): lays out the %zu files the iolog\n"
		    "; names (%" PRIu64 " bytes), then replays it as one job.  Run it in the directory to replay in:\n"
		    ";   cd DIR && fio THIS-FILE  (a relative read_iolog= is opened there too)\n"
		    "[global]\nioengine=psync\nstonewall\n",
		    n, w->st.layout_bytes) < 0)
		rc = RP_E_IO;
	for (size_t i = 0; i < n && rc == 0;) {
		if (++jobs > RP_FIO_LAYOUT_JOBS_MAX) {
			free(l);
			return rp_fail(errbuf, RP_E_LIMIT,
				       "the files need more than %u layout jobs (fio runs at most 4096 jobs of a job file)",
				       RP_FIO_LAYOUT_JOBS_MAX);
		}
		size_t j = i, line = 0;
		while (j < n && same_job(&l[i], &l[j]) && (j == i || line + strlen(l[j].name) + 1 <= LAYOUT_LINE_MAX))
			line += strlen(l[j++].name) + 1;
		if (fprintf(w->f, "\n[layout-%" PRIu64 "]\ncreate_only=1\nfilesize=%" PRIu64 "\nnrfiles=%zu\nfilename=", jobs,
			    l[i].size, j - i) < 0)
			rc = RP_E_IO;
		for (size_t k = i; k < j && rc == 0; k++)
			if (fprintf(w->f, "%s%s", k > i ? ":" : "", l[k].name) < 0)
				rc = RP_E_IO;
		if (rc == 0 && fputc('\n', w->f) == EOF)
			rc = RP_E_IO;
		i = j;
	}
	if (rc == 0 && fprintf(w->f, "\n[replay]\nread_iolog=%s\n", w->iolog) < 0)
		rc = RP_E_IO;
	free(l);
	return rc < 0 ? rp_fail(errbuf, RP_E_IO, "write error: %s", strerror(errno)) : 0;
}

int rp_conv_fio_open(rp_conv_fio **out, FILE *f, const rp_conv_fio_opts *opts, char *errbuf)
{
	rp_conv_fio *const w = calloc(1, sizeof(*w));
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	w->f = f;
	w->counts = true;
	w->form = opts ? opts->form : RP_FIO_IOLOG;
	w->strings = rp_strtab_create();
	w->names = rp_strtab_create();
	w->unsafe = rp_strtab_create();
	const char *const iolog = opts && opts->iolog ? opts->iolog : "replay.iolog";
	w->iolog = strdup(iolog);
	if (!w->strings || !w->names || !w->unsafe || !w->iolog) {
		rp_conv_fio_close(w, NULL, NULL);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	w->sink = (rp_sink){ .meta = sink_meta, .string = sink_string, .op = sink_op, .finish = sink_finish };
	*out = w;
	return 0;
}

rp_sink *rp_conv_fio_sink(rp_conv_fio *w)
{
	return &w->sink;
}

void rp_conv_fio_get_stats(const rp_conv_fio *w, rp_conv_fio_stats *st)
{
	*st = w->st;
}

int rp_conv_fio_close(rp_conv_fio *w, rp_conv_fio_stats *st, char *errbuf)
{
	if (!w)
		return 0;
	int rc = 0;
	if (errbuf && w->form == RP_FIO_JOB)
		rc = write_job(w, errbuf);
	if (errbuf && rc == 0 && fflush(w->f) != 0)
		rc = rp_fail(errbuf, RP_E_IO, "write error: %s", strerror(errno));
	if (st)
		*st = w->st;
	rp_strtab_destroy(w->strings);
	rp_strtab_destroy(w->names);
	rp_strtab_destroy(w->unsafe);
	free(w->path_file);
	free(w->files);
	free(w->h);
	free(w->c);
	free(w->iolog);
	free(w);
	return rc;
}

/* ---- the summary ---- */

static const char *const skip_why[RP_FIO_SKIP__COUNT] = {
	[RP_FIO_SKIP_FAILED] = "failed in the trace",
	[RP_FIO_SKIP_HANDLE] = "on a handle no open named",
	[RP_FIO_SKIP_PATH] = "path out of the tree",
	[RP_FIO_SKIP_LONG] = "name over 255 bytes",
	[RP_FIO_SKIP_END] = "ending beyond 16 TiB",
	[RP_FIO_SKIP_FALLOC] = "fallocate that is no punch-hole",
	[RP_FIO_SKIP_SYNC] = "sync of a file not read or written before (a directory's, often)",
	[RP_FIO_SKIP_ZERO] = "read or write of 0 bytes",
};

typedef struct sbuf {
	char *p;
	size_t size, len;
} sbuf;

static void add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(sbuf *b, const char *fmt, ...)
{
	if (b->len + 1 >= b->size)
		return;
	va_list ap;
	va_start(ap, fmt);
	const int n = vsnprintf(b->p + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len = (size_t)n < b->size - b->len ? b->len + (size_t)n : b->size - 1;
}

void rp_conv_fio_summary(const rp_conv_fio_stats *st, rp_fio_form form, char *buf, size_t size)
{
	sbuf b = { buf, size, 0 };
	if (!size)
		return;
	buf[0] = '\0';
	if (form == RP_FIO_JOB) {
		add(&b, "fio: a job file that lays out the %" PRIu64 " files the iolog names (%" PRIu64
			" bytes) and then replays it: cd DIR && fio JOB (its read_iolog=, unless absolute, is opened"
			" in DIR too: --iolog-dir names another)\n", st->files, st->layout_bytes);
		return;
	}
	add(&b, "fio: %" PRIu64 " reads (%" PRIu64 " bytes), %" PRIu64 " writes (%" PRIu64 " bytes), %" PRIu64
		" syncs, %" PRIu64 " datasyncs, %" PRIu64 " trims on %" PRIu64 " files",
	    st->reads, st->read_bytes, st->writes, st->write_bytes, st->syncs, st->datasyncs, st->trims, st->files);
	if (st->mapped)
		add(&b, "; %" PRIu64 " name%s with bytes fio cannot take mapped to safe ones", st->mapped,
		    st->mapped == 1 ? "" : "s");
	add(&b, "\n");
	uint64_t left = 0;
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		left += st->left_out[i];
	if (left) {
		add(&b, "fio: left out, %" PRIu64 " ops fio cannot express:", left);
		const char *sep = " ";
		for (unsigned i = 0; i < RP_OP__COUNT; i++)
			if (st->left_out[i]) {
				add(&b, "%s%s %" PRIu64, sep, rp_op_name(i), st->left_out[i]);
				sep = ", ";
			}
		add(&b, "\n");
	}
	uint64_t skipped = 0;
	for (unsigned i = 0; i < RP_FIO_SKIP__COUNT; i++)
		skipped += st->skipped[i];
	if (skipped) {
		add(&b, "fio: not written, %" PRIu64 " I/O ops:", skipped);
		const char *sep = " ";
		for (unsigned i = 0; i < RP_FIO_SKIP__COUNT; i++)
			if (st->skipped[i]) {
				add(&b, "%s%s %" PRIu64, sep, skip_why[i], st->skipped[i]);
				sep = ", ";
			}
		add(&b, "\n");
	}
	if (st->clients > 1)
		add(&b, "fio: the %" PRIu64 " clients' ops interleaved in time order in one job (an iolog is one job)\n",
		    st->clients);
	if (st->raised)
		add(&b, "fio: %" PRIu64 " ops earlier than the one before (another client's) written at its time\n",
		    st->raised);
	if (st->unclosed)
		add(&b, "fio: %" PRIu64 " file%s still open at the end (a handle never closed, I/O by path) closed there\n",
		    st->unclosed, st->unclosed == 1 ? "" : "s");
	add(&b, "fio: fio fails reads past the end of a file and opens nothing in a missing directory:"
		" run it with the job file from `reprise convert IN JOB.fio` in the directory to replay in (docs/fio.md)\n");
}

/* The iolog a job file named job replays, as read_iolog= names it (converters/fio.h). */
int rp_conv_fio_iolog_for(const char *job, const char *dir, char *buf, size_t size)
{
	const bool std = strcmp(job, "<stdout>") == 0 || strcmp(job, "-") == 0;
	const char *const slash = strrchr(job, '/');
	const char *const base = std ? "replay.iolog" : slash ? slash + 1 : job;
	size_t blen = strlen(base);
	if (!std && blen > 4 && strcmp(base + blen - 4, ".fio") == 0)
		blen -= 4;
	else if (std)
		blen -= 6; /* "replay" */
	size_t dlen = dir ? strlen(dir) : 0;
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	const int n = snprintf(buf, size, "%.*s%s%.*s.iolog", (int)dlen, dlen ? dir : "",
			       dlen && !(dlen == 1 && dir[0] == '/') ? "/" : "", (int)blen, base);
	return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}
