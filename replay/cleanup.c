/*
 * --cleanup: what a run (and its prepare) made beneath a directory target,
 * removed after it.  A snapshot taken before the run holds the identity
 * (inode) of everything already beneath the target; the cleanup walk removes
 * every entry whose inode is not in it.  The walk never follows a symlink
 * (O_NOFOLLOW, fstatat AT_SYMLINK_NOFOLLOW), never leaves the target's file
 * system, and reaches entries only through directory descriptors opened
 * beneath the target, as the posix backend's deltree does: nothing outside
 * the target, and nothing that was there before, is touched.  A file of
 * before that the run renamed stays under its new name; a directory the run
 * made that holds such a file stays too.
 *
 * The snapshot cannot see everything: a directory it cannot open (mode 0
 * for a user) or one deeper than WALK_MAX_DEPTH.  What was in there is not in
 * it, and the run may make it reachable (a chmod) or move it up (a rename).
 * So an entry missing from the snapshot is removed only when its birth time
 * (statx STATX_BTIME) is not before the snapshot: one born before is of
 * before and stays.  Where the file system gives no birth time, an entry
 * missing from a snapshot that saw everything is the run's; one missing from
 * a snapshot that did not is left, and counted unsure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "replay/handles.h"
#include "replay/replay.h"

/* Deeper than this the walk stops (what is below is left alone); a trace's own paths stay far above it. */
#define WALK_MAX_DEPTH 128

struct rp_tree_snap {
	dev_t dev;          /* the target's file system */
	rp_handles inodes;  /* ino -> 1 for everything beneath the target before the run */
	uint64_t top;       /* entries directly in the target */
	uint64_t total;     /* entries beneath it */
	/*
	 * When the walk ended (CLOCK_REALTIME): everything of before was born at
	 * or before it.  The take returns only once the coarse clock, which file
	 * systems may stamp births with, has passed it, so whatever the run makes
	 * is born after it.
	 */
	struct timespec start;
	bool partial;       /* some directory was not walked (unreadable, or too deep) */
};

/* A directory's entry names (".", ".." left out), read whole before anything in it is removed. */
typedef struct names {
	char **v;
	size_t n;
} names;

static void names_free(names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	nm->v = NULL;
	nm->n = 0;
}

/* Reads the directory on fd (which it keeps open); 0 or an errno. */
static int list_dir(int fd, names *nm)
{
	nm->v = NULL;
	nm->n = 0;
	const int dfd = dup(fd);
	if (dfd < 0)
		return errno;
	DIR *const d = fdopendir(dfd);
	if (!d) {
		const int err = errno;
		close(dfd);
		return err;
	}
	size_t cap = 0;
	int rc = 0;
	for (;;) {
		errno = 0;
		const struct dirent *const e = readdir(d);
		if (!e) {
			rc = errno;
			break;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (nm->n == cap) {
			const size_t nc = cap ? cap * 2 : 32;
			char **const v = realloc(nm->v, nc * sizeof(*v));
			if (!v) {
				rc = ENOMEM;
				break;
			}
			nm->v = v;
			cap = nc;
		}
		if (!(nm->v[nm->n] = strdup(e->d_name))) {
			rc = ENOMEM;
			break;
		}
		nm->n++;
	}
	closedir(d);
	if (rc)
		names_free(nm);
	return rc;
}

/* A subdirectory to walk into: a real directory on the target's file system, opened without following links. */
static int open_sub(int dirfd, const char *name, dev_t dev)
{
	const int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_dev != dev) {
		close(fd);
		return -1;
	}
	return fd;
}

static int snap_walk(rp_tree_snap *s, int dirfd, int depth)
{
	names nm;
	int rc = list_dir(dirfd, &nm);
	if (rc)
		return rc;
	for (size_t i = 0; i < nm.n && rc == 0; i++) {
		struct stat st;
		if (fstatat(dirfd, nm.v[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone meanwhile */
		s->total++;
		s->top += depth == 0;
		if (st.st_ino != 0 && rp__handles_put(&s->inodes, (uint64_t)st.st_ino, 1) < 0) {
			rc = ENOMEM;
			break;
		}
		if (!S_ISDIR(st.st_mode) || st.st_dev != s->dev)
			continue;
		if (depth >= WALK_MAX_DEPTH) {
			s->partial = true;
			continue;
		}
		const int sub = open_sub(dirfd, nm.v[i], s->dev);
		if (sub < 0) {
			s->partial = true; /* unreadable now: what is in it may become reachable (see made_by_run) */
			continue;
		}
		rc = snap_walk(s, sub, depth + 1);
		close(sub);
	}
	names_free(&nm);
	return rc;
}

static bool ts_after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* Wait until CLOCK_REALTIME_COARSE is past t: one tick of the kernel, 10 ms at most (HZ=100). */
static void wait_coarse_past(const struct timespec *t)
{
	for (int i = 0; i < 100; i++) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		if (ts_after(&now, t))
			return;
		const struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
}

int rp_tree_snap_take(rp_tree_snap **out, const char *dir, char *errbuf)
{
	*out = NULL;
	rp_tree_snap *const s = calloc(1, sizeof(*s));
	if (!s)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	rp__handles_init(&s->inodes);
	const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		const int err = errno;
		if (fd >= 0)
			close(fd);
		rp_tree_snap_free(s);
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", dir, strerror(err));
	}
	s->dev = st.st_dev;
	const int err = snap_walk(s, fd, 0);
	clock_gettime(CLOCK_REALTIME, &s->start);
	wait_coarse_past(&s->start);
	close(fd);
	if (err) {
		rp_tree_snap_free(s);
		return rp_fail(errbuf, err == ENOMEM ? RP_E_NOMEM : RP_E_SYSTEM, "%s: listing what is there: %s", dir,
			       strerror(err));
	}
	*out = s;
	return 0;
}

uint64_t rp_tree_snap_entries(const rp_tree_snap *s)
{
	return s ? s->top : 0;
}

int rp_tree_snap_keep(rp_tree_snap *s, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || st.st_dev != s->dev || st.st_ino == 0)
		return 0; /* not on the target's file system: the walk cannot reach it anyway */
	return rp__handles_put(&s->inodes, (uint64_t)st.st_ino, 1) < 0 ? RP_E_NOMEM : 0;
}

static bool was_there(const rp_tree_snap *s, const struct stat *st)
{
	uint64_t one;
	return rp__handles_get(&s->inodes, (uint64_t)st->st_ino, &one) != 0;
}

typedef enum origin { RUN_MADE, BEFORE, UNSURE } origin;

/* Whether the run made an entry the snapshot does not hold (see the top of the file). */
static origin made_by_run(const rp_tree_snap *s, int dirfd, const char *name)
{
	struct statx sx;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BTIME, &sx) == 0 &&
	    (sx.stx_mask & STATX_BTIME)) {
		const struct timespec born = { .tv_sec = sx.stx_btime.tv_sec, .tv_nsec = sx.stx_btime.tv_nsec };
		return ts_after(&born, &s->start) ? RUN_MADE : BEFORE;
	}
	return s->partial ? UNSURE : RUN_MADE;
}

/* Post-order: a directory's new entries go before the directory itself. */
static void clean_walk(const rp_tree_snap *s, int dirfd, int depth, rp_tree_clean *st, int *first_err)
{
	names nm;
	const int lrc = list_dir(dirfd, &nm);
	if (lrc) {
		st->failed++;
		if (!*first_err)
			*first_err = lrc;
		return;
	}
	for (size_t i = 0; i < nm.n; i++) {
		struct stat e;
		if (fstatat(dirfd, nm.v[i], &e, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		const bool old = was_there(s, &e);
		const bool dir = S_ISDIR(e.st_mode);
		if (dir && e.st_dev == s->dev && depth < WALK_MAX_DEPTH) {
			const int sub = open_sub(dirfd, nm.v[i], s->dev);
			if (sub >= 0) {
				clean_walk(s, sub, depth + 1, st, first_err);
				close(sub);
			}
		}
		if (old) {
			st->kept++;
			continue;
		}
		if (e.st_dev != s->dev) { /* something mounted beneath the target during the run: not ours to empty */
			st->kept++;
			continue;
		}
		const origin from = made_by_run(s, dirfd, nm.v[i]);
		if (from != RUN_MADE) {
			st->kept += from == BEFORE;
			st->unsure += from == UNSURE;
			continue;
		}
		if (unlinkat(dirfd, nm.v[i], dir ? AT_REMOVEDIR : 0) == 0) {
			st->removed++;
		} else if (dir && (errno == ENOTEMPTY || errno == EEXIST)) {
			st->kept++; /* it holds something of before (moved there), or what the walk could not reach */
		} else if (errno != ENOENT) {
			st->failed++;
			if (!*first_err)
				*first_err = errno;
		}
	}
	names_free(&nm);
}

int rp_tree_snap_clean(const rp_tree_snap *s, const char *dir, rp_tree_clean *st, char *errbuf)
{
	memset(st, 0, sizeof(*st));
	const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat tst;
	if (fd < 0 || fstat(fd, &tst) < 0 || tst.st_dev != s->dev) {
		const int err = fd < 0 ? errno : EXDEV;
		if (fd >= 0)
			close(fd);
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", dir, strerror(err));
	}
	int first_err = 0;
	clean_walk(s, fd, 0, st, &first_err);
	close(fd);
	if (st->failed)
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %llu entr%s the run made could not be removed (first: %s)", dir,
			       (unsigned long long)st->failed, st->failed == 1 ? "y" : "ies", strerror(first_err));
	return 0;
}

void rp_tree_snap_free(rp_tree_snap *s)
{
	if (!s)
		return;
	rp__handles_fini(&s->inodes);
	free(s);
}
