/* strace -ff's per-pid files (prefix.PID) merged into one log in timestamp order: a k-way merge, one line held per file (strace(1), -ff). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "converters/strace.h"
#include "formats/error.h"

/* A line is kept up to one byte past the parser's limit, so the parser sees that it was longer and counts it. */
#define LINE_KEEP ((size_t)RP_STRACE_LINE_MAX + 1u)
/* A buffer grown past this for one long line goes back to nothing after it: most lines are short. */
#define BUF_KEEP (64u << 10)

typedef struct ffile {
	FILE *f;
	const char *path;
	uint32_t pid;
	char *buf;
	size_t cap, len;
	uint64_t line; /* its number in the file, from 1 */
	uint64_t ts;   /* the line's timestamp, ns (a line without one keeps the file's last) */
	bool eof;
} ffile;

typedef struct merge {
	ffile *fs;
	size_t n;
	size_t *heap; /* indices in fs, the earliest line first (ties: the lower index) */
	size_t nh;
	size_t held;  /* bytes of all line buffers */
} merge;

/* The leading -ttt timestamp "SECONDS[.FRACTION]" as ns; false when the line has none. */
static bool line_time(const char *p, size_t len, uint64_t *ns)
{
	size_t i = 0;
	while (i < len && p[i] == ' ')
		i++;
	uint64_t sec = 0, frac = 0;
	unsigned digits = 0, fdigits = 0;
	for (; i < len && p[i] >= '0' && p[i] <= '9'; i++, digits++)
		if (sec <= (UINT64_MAX / 1000000000u - 9) / 10)
			sec = sec * 10 + (uint64_t)(p[i] - '0');
	if (!digits)
		return false;
	if (i < len && p[i] == '.')
		for (i++; i < len && p[i] >= '0' && p[i] <= '9'; i++)
			if (fdigits < 9) {
				frac = frac * 10 + (uint64_t)(p[i] - '0');
				fdigits++;
			}
	for (; fdigits < 9; fdigits++)
		frac *= 10;
	*ns = sec * 1000000000u + frac; /* sec is bounded above so this does not wrap */
	return true;
}

static bool earlier(const merge *m, size_t a, size_t b)
{
	return m->fs[a].ts < m->fs[b].ts || (m->fs[a].ts == m->fs[b].ts && a < b);
}

static void heap_push(merge *m, size_t i)
{
	size_t k = m->nh++;
	m->heap[k] = i;
	while (k && earlier(m, m->heap[k], m->heap[(k - 1) / 2])) {
		const size_t p = (k - 1) / 2, t = m->heap[p];
		m->heap[p] = m->heap[k];
		m->heap[k] = t;
		k = p;
	}
}

static size_t heap_pop(merge *m)
{
	const size_t top = m->heap[0];
	m->heap[0] = m->heap[--m->nh];
	for (size_t k = 0;;) {
		const size_t l = 2 * k + 1, r = l + 1;
		size_t s = k;
		if (l < m->nh && earlier(m, m->heap[l], m->heap[s]))
			s = l;
		if (r < m->nh && earlier(m, m->heap[r], m->heap[s]))
			s = r;
		if (s == k)
			break;
		const size_t t = m->heap[s];
		m->heap[s] = m->heap[k];
		m->heap[k] = t;
		k = s;
	}
	return top;
}

static int grow(merge *m, ffile *x, char *errbuf)
{
	size_t cap = x->cap ? x->cap * 2 : 256;
	if (cap > LINE_KEEP)
		cap = LINE_KEEP;
	if (m->held - x->cap + cap > RP_STRACE_FF_HELD)
		return rp_fail(errbuf, RP_E_LIMIT, "%s:%" PRIu64 ": the -ff files' current lines take more than %u MiB together",
			       x->path, x->line, RP_STRACE_FF_HELD >> 20);
	char *const b = realloc(x->buf, cap);
	if (!b)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	m->held = m->held - x->cap + cap;
	x->buf = b;
	x->cap = cap;
	return 0;
}

/* The file's next line into its buffer (without the '\n'; the rest of a line past LINE_KEEP skipped), or eof. */
static int next_line(merge *m, ffile *x, char *errbuf)
{
	if (x->cap > BUF_KEEP) {
		free(x->buf);
		m->held -= x->cap;
		x->buf = NULL;
		x->cap = 0;
	}
	x->len = 0;
	int ch = 0;
	bool any = false;
	while ((ch = getc_unlocked(x->f)) != EOF) {
		any = true;
		if (ch == '\n')
			break;
		if (x->len == LINE_KEEP)
			continue;
		if (x->len == x->cap) {
			const int rc = grow(m, x, errbuf);
			if (rc < 0)
				return rc;
		}
		x->buf[x->len++] = (char)ch;
	}
	if (ch == EOF && ferror(x->f))
		return rp_fail(errbuf, RP_E_IO, "%s: read error: %s", x->path, strerror(errno));
	if (!any) {
		x->eof = true;
		return 0;
	}
	x->line++;
	uint64_t ts;
	if (line_time(x->buf, x->len, &ts))
		x->ts = ts;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	const ffile *const x = *(const ffile *const *)a, *const y = *(const ffile *const *)b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Every name a -ff file's and every pid once: 0 or the error naming the file. */
static int check_names(merge *m, const char *const *names, char *errbuf)
{
	for (size_t i = 0; i < m->n; i++) {
		ffile *const x = &m->fs[i];
		x->path = names[i];
		if (!rp_strace_pid_from_name(names[i], &x->pid))
			return rp_fail(errbuf, RP_E_INVAL,
				       "%s: not an strace -ff file: its name must end in .PID (strace -ff -o PREFIX writes PREFIX.PID)",
				       names[i]);
	}
	ffile **const by = malloc(m->n * sizeof(*by));
	if (!by)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++)
		by[i] = &m->fs[i];
	qsort(by, m->n, sizeof(*by), cmp_pid);
	int rc = 0;
	for (size_t i = 1; i < m->n && rc == 0; i++)
		if (by[i]->pid == by[i - 1]->pid)
			rc = rp_fail(errbuf, RP_E_INVAL, "%s and %s: two files of pid %" PRIu32, by[i - 1]->path,
				     by[i]->path, by[i]->pid);
	free(by);
	return rc;
}

int rp_strace_ff_merge(FILE *const *files, const char *const *names, size_t n, const char *name, rp_sink *sink,
		       const rp_strace_opts *opts, uint64_t *skipped, char *summary, size_t summary_size, char *errbuf)
{
	if (n == 0)
		return rp_fail(errbuf, RP_E_INVAL, "%s: no strace -ff files", name);
	if (n > RP_STRACE_FF_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "%s: %zu -ff files: at most %u (one client each)", name, n,
			       RP_STRACE_FF_MAX);
	merge m = { .fs = calloc(n, sizeof(ffile)), .n = n, .heap = calloc(n, sizeof(size_t)) };
	rp_strace *t = NULL;
	int rc = 0;
	if (!m.fs || !m.heap) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = check_names(&m, names, errbuf)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		m.fs[i].f = files[i];
	rp_strace_opts so = opts ? *opts : (rp_strace_opts){ 0 };
	if ((rc = rp_strace_create(&t, sink, name, &so, errbuf)) < 0)
		goto out;
	for (size_t i = 0; i < n && rc == 0; i++)
		if ((rc = next_line(&m, &m.fs[i], errbuf)) == 0 && !m.fs[i].eof)
			heap_push(&m, i);
	while (rc == 0 && m.nh) {
		const size_t i = heap_pop(&m);
		ffile *const x = &m.fs[i];
		rc = rp_strace_line_of(t, x->path, x->line, x->pid, x->buf ? x->buf : "", x->len, errbuf); /* an empty first line has no buffer */
		if (rc == 0 && (rc = next_line(&m, x, errbuf)) == 0 && !x->eof)
			heap_push(&m, i);
	}
	if (rc == 0)
		rc = rp_strace_finish(t, errbuf);
	if (skipped)
		*skipped = rp_strace_skipped(t);
	if (summary)
		rp_strace_summary(t, summary, summary_size);
out:
	rp_strace_destroy(t);
	for (size_t i = 0; m.fs && i < n; i++)
		free(m.fs[i].buf);
	free(m.fs);
	free(m.heap);
	return rc;
}

int rp_strace_ff_run(const char *const *paths, size_t n, const char *name, rp_sink *sink, const rp_strace_opts *opts,
		     uint64_t *skipped, char *summary, size_t summary_size, char *errbuf)
{
	if (n > RP_STRACE_FF_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "%s: %zu -ff files: at most %u (one client each)", name, n,
			       RP_STRACE_FF_MAX);
	/* Names first: a file that is no -ff file is refused before any is opened. */
	for (size_t i = 0; i < n; i++) {
		uint32_t pid;
		if (!rp_strace_pid_from_name(paths[i], &pid))
			return rp_fail(errbuf, RP_E_INVAL,
				       "%s: not an strace -ff file: its name must end in .PID (strace -ff -o PREFIX writes PREFIX.PID)",
				       paths[i]);
	}
	FILE **const fs = calloc(n ? n : 1, sizeof(*fs));
	if (!fs)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (!(fs[i] = fopen(paths[i], "rb")))
			rc = rp_fail(errbuf, RP_E_IO, "%s: %s%s", paths[i], strerror(errno),
				     errno == EMFILE ? " (one open file per process of the run: raise ulimit -n)" : "");
	if (rc == 0)
		rc = rp_strace_ff_merge(fs, paths, n, name, sink, opts, skipped, summary, summary_size, errbuf);
	for (size_t i = 0; i < n; i++)
		if (fs[i])
			fclose(fs[i]);
	free(fs);
	return rc;
}

void rp_strace_ff_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

typedef struct found {
	char *path;
	uint32_t pid;
} found;

static int cmp_found(const void *a, const void *b)
{
	const found *const x = a, *const y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int rp_strace_ff_find(const char *prefix, char ***paths, size_t *n, char *errbuf)
{
	*paths = NULL;
	*n = 0;
	const char *const slash = strrchr(prefix, '/');
	const char *const base = slash ? slash + 1 : prefix;
	const size_t blen = strlen(base), dlen = slash ? (size_t)(slash - prefix) : 0;
	char *const dir = slash ? strndup(prefix, dlen ? dlen : 1) : strdup(".");
	if (!dir)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	DIR *const d = blen ? opendir(dir) : NULL;
	found *v = NULL;
	size_t k = 0, cap = 0;
	int rc = 0;
	if (!d)
		goto out; /* no directory, or a prefix ending in '/': no -ff files */
	for (const struct dirent *e; rc == 0 && (e = readdir(d));) {
		const char *const nm = e->d_name;
		uint32_t pid;
		if (strncmp(nm, base, blen) != 0 || nm[blen] != '.' || strchr(nm + blen + 1, '.') ||
		    !rp_strace_pid_from_name(nm, &pid))
			continue;
		if (k == RP_STRACE_FF_MAX) {
			rc = rp_fail(errbuf, RP_E_LIMIT, "%s: more than %u -ff files (one client each)", prefix, RP_STRACE_FF_MAX);
			break;
		}
		if (k == cap) {
			cap = cap ? cap * 2 : 16;
			found *const nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
				break;
			}
			v = nv;
		}
		const size_t len = strlen(prefix) + strlen(nm + blen) + 1;
		if (!(v[k].path = malloc(len))) {
			rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
			break;
		}
		snprintf(v[k].path, len, "%s%s", prefix, nm + blen);
		v[k++].pid = pid;
	}
	closedir(d);
	if (rc < 0)
		goto out;
	if (k)
		qsort(v, k, sizeof(*v), cmp_found);
	if (k && !(*paths = malloc(k * sizeof(**paths)))) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < k; i++)
		(*paths)[i] = v[i].path;
	*n = k;
	k = 0; /* the paths are the caller's now */
out:
	for (size_t i = 0; i < k; i++)
		free(v[i].path);
	free(v);
	free(dir);
	return rc;
}
