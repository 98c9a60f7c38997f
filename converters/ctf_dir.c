/* The CTF trace directories (those holding a `metadata` file) at or under a path (converters/ctf.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "converters/ctf.h"
#include "formats/error.h"

typedef struct walk {
	rp_ctf_dirs *out; /* NULL: stop at the first trace (sniffing) */
	bool found;
	size_t dirs_seen;
	int err;
} walk;

static bool has_metadata(int dfd)
{
	struct stat st;
	return fstatat(dfd, "metadata", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

static int keep(walk *w, const char *path)
{
	w->found = true;
	if (!w->out)
		return 0;
	if (w->out->n >= RP_CTF_TRACES_MAX)
		return RP_E_LIMIT;
	char **const d = realloc(w->out->dir, (w->out->n + 1) * sizeof(*d));
	if (!d)
		return RP_E_NOMEM;
	w->out->dir = d;
	if (!(d[w->out->n] = strdup(path)))
		return RP_E_NOMEM;
	w->out->n++;
	return 0;
}

/* dfd (owned: closed here) is path, depth below the start. */
static int visit(walk *w, int dfd, const char *path, unsigned depth)
{
	if (++w->dirs_seen > RP_CTF_DIRS_MAX) {
		close(dfd);
		return RP_E_LIMIT;
	}
	if (has_metadata(dfd)) {
		close(dfd); /* a trace's own subdirectories (index/) hold no other trace */
		return keep(w, path);
	}
	if (depth >= RP_CTF_DEPTH_MAX) {
		close(dfd);
		return 0;
	}
	DIR *const d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0; /* unreadable: no trace of ours there */
	}
	int rc = 0;
	const struct dirent *de;
	while (rc == 0 && (w->out || !w->found) && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		const int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue; /* not a directory, a symlink, or unreadable */
		const size_t pl = strlen(path), nl = strlen(de->d_name);
		char *const child = malloc(pl + nl + 2);
		if (!child) {
			close(sub);
			rc = RP_E_NOMEM;
			break;
		}
		memcpy(child, path, pl);
		child[pl] = '/';
		memcpy(child + pl + 1, de->d_name, nl + 1);
		rc = visit(w, sub, child, depth + 1);
		free(child);
	}
	closedir(d);
	return rc;
}

static int start(walk *w, const char *path)
{
	const int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return RP_E_IO;
	return visit(w, dfd, path, 0);
}

bool rp_ctf_sniff_dir(const char *path)
{
	walk w = { 0 };
	return start(&w, path) == 0 && w.found;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rp_ctf_dirs_free(rp_ctf_dirs *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->dir[i]);
	free(d->dir);
	d->dir = NULL;
	d->n = 0;
}

int rp_ctf_find_traces(const char *path, rp_ctf_dirs *out, char *errbuf)
{
	memset(out, 0, sizeof(*out));
	walk w = { .out = out };
	const int rc = start(&w, path);
	if (rc == RP_E_IO) {
		rp_ctf_dirs_free(out);
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	}
	if (rc == RP_E_LIMIT) {
		rp_ctf_dirs_free(out);
		return rp_fail(errbuf, RP_E_LIMIT, "%s: more than %u trace directories or %u directories: not one session's output",
			       path, RP_CTF_TRACES_MAX, RP_CTF_DIRS_MAX);
	}
	if (rc < 0) {
		rp_ctf_dirs_free(out);
		return rp_fail(errbuf, rc, "%s: out of memory", path);
	}
	if (out->n == 0)
		return rp_fail(errbuf, RP_E_NOTTRACE, "%s: no CTF trace (a directory with a metadata file) within %u levels",
			       path, RP_CTF_DEPTH_MAX);
	qsort(out->dir, out->n, sizeof(*out->dir), by_name);
	return 0;
}
