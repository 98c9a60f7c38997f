/* The CTF trace directories (those holding a `metadata` file) at or under a path (converters/ctf.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "converters/ctf.h"
#include "formats/cursor.h"
#include "formats/error.h"

/* The fixed part of a metadata packet header: magic, uuid[16], checksum, content_size, packet_size, 5 bytes. */
#define META_HEADER 37u
#define META_MAGIC 0x75d11d57u

int rp_ctf_check_metadata(const void *buf, size_t len, const char *name, char *errbuf)
{
	if (len >= 4 && memcmp(buf, "/* CTF", 6 <= len ? 6 : len) == 0)
		return 0; /* plain text */
	const uint8_t *const b = buf;
	size_t off = 0;
	while (off < len) {
		rp_cur c = rp_cur_make(b + off, len - off);
		const uint32_t le = rp_cur_le32(&c);
		const bool big = le != META_MAGIC;
		if (big && le != __builtin_bswap32(META_MAGIC))
			return rp_fail(errbuf, RP_E_CORRUPT, "%s: byte %zu: no metadata packet magic (nor \"/* CTF\" text)", name, off);
		rp_cur_skip(&c, 16 + 4); /* uuid, checksum */
		const uint32_t content = big ? rp_cur_be32(&c) : rp_cur_le32(&c);
		const uint32_t packet = big ? rp_cur_be32(&c) : rp_cur_le32(&c);
		if (c.err || len - off < META_HEADER)
			return rp_fail(errbuf, RP_E_CORRUPT, "%s: byte %zu: metadata packet header cut short", name, off);
		if (packet % 8 || content > packet || content < META_HEADER * 8u || packet / 8u > len - off)
			return rp_fail(errbuf, RP_E_CORRUPT,
				       "%s: byte %zu: metadata packet of %" PRIu32 " bits (content %" PRIu32
				       ") does not fit the %zu bytes left",
				       name, off, packet, content, len - off);
		off += packet / 8u;
	}
	return 0;
}

/* The metadata file in dfd, read whole (bounded) and checked. */
static int check_file(int dfd, const char *path, char *errbuf)
{
	char name[4200];
	snprintf(name, sizeof(name), "%s/metadata", path);
	const int fd = openat(dfd, "metadata", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		const int e = errno;
		if (fd >= 0)
			close(fd);
		return rp_fail(errbuf, RP_E_IO, "%s: %s", name, strerror(e));
	}
	if ((uint64_t)st.st_size > RP_CTF_METADATA_MAX) {
		close(fd);
		return rp_fail(errbuf, RP_E_LIMIT, "%s: over %u MiB: no session's metadata", name, RP_CTF_METADATA_MAX >> 20);
	}
	const size_t size = (size_t)st.st_size;
	uint8_t *const buf = malloc(size ? size : 1);
	if (!buf) {
		close(fd);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	size_t got = 0;
	while (got < size) {
		const ssize_t n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	const int rc = rp_ctf_check_metadata(buf, got, name, errbuf);
	free(buf);
	return rc;
}

typedef struct walk {
	rp_ctf_dirs *out; /* NULL: stop at the first trace (sniffing) */
	bool found;
	size_t dirs_seen;
	char *errbuf; /* a bad metadata file's detail (finding, not sniffing) */
	bool detailed; /* errbuf has the error's detail */
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
		/* a trace's own subdirectories (index/) hold no other trace */
		const int rc = w->out ? check_file(dfd, path, w->errbuf) : 0;
		w->detailed = rc < 0;
		close(dfd);
		return rc < 0 ? rc : keep(w, path);
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
	walk w = { .out = out, .errbuf = errbuf };
	const int rc = start(&w, path);
	if (rc < 0 && w.detailed) {
		rp_ctf_dirs_free(out);
		return rc; /* a metadata file's: errbuf has it */
	}
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
