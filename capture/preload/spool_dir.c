/* A spool directory's life outside its rings (capture/preload/spool_dir.h): where, retirement, the sweep of orphans. */
#include "capture/preload/spool_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/preload/ring.h"
#include "capture/preload/spool.h"
#include "formats/error.h"

/* Where spools are made when the caller names no directory: /dev/shm if it is one, else $TMPDIR, else /tmp. */
const char *rp__spool_default_dir(void)
{
	struct stat st;
	const char *d = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : getenv("TMPDIR");
	return d && d[0] ? d : "/tmp";
}

/* What a spool directory is renamed to before it is emptied: no traced program can make a ring in it then. */
#define GONE_SUFFIX ".gone"
/* Rounds of emptying a retired spool: a ring made just before the rename is found by the second. */
#define REMOVE_ROUNDS 4
/* How long a sweep waits for the control page's lock, in 1 ms steps: a traced thread asking whether its
 * writer is gone holds a shared lock for a few microseconds (ring_emit.c, writer_gone). */
#define SWEEP_LOCK_TRIES 50

/* Unlink what directory fd holds; fd stays open.  Whether anything was there. */
bool rp__spool_empty(int fd)
{
	const int dup_fd = dup(fd);
	DIR *const d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	bool any = false;
	const struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			unlinkat(dirfd(d), de->d_name, 0);
			any = true;
		}
	closedir(d);
	return any;
}

/*
 * Remove spool directory fd, named name in parent (both may be AT_FDCWD and a
 * path).  It is renamed to name.gone first: a traced program makes its rings
 * by the spool's path (ring_emit.c), so none can appear in it after that, and
 * the ones made before are found and unlinked.  0, or -1 (someone else
 * retired it first, or it could not be removed).  fd stays open.
 */
int rp__spool_retire(int parent, const char *name, int fd)
{
	char gone[PATH_MAX];
	if ((size_t)snprintf(gone, sizeof gone, "%s" GONE_SUFFIX, name) >= sizeof gone ||
	    renameat(parent, name, parent, gone) != 0)
		return -1;
	for (int i = 0; i < REMOVE_ROUNDS; i++) {
		rp__spool_empty(fd);
		if (unlinkat(parent, gone, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
			return 0;
	}
	return -1;
}

/*
 * Whether the spool directory dfd is an orphan: its control page is there and
 * unlocked (its writer died: the kernel released the lock), and the pid it
 * names is gone (a spool of a writer that took no lock, still running, is not
 * one).  On true the caller holds the lock (in *lock_fd) while it removes it.
 */
static bool spool_orphaned(int dfd, int *lock_fd)
{
	const int fd = openat(dfd, RP_SPOOL_CTL_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false; /* being made (the page is renamed in last), or not a spool of ours */
	rp_spool_ctl c;
	struct stat st;
	const bool page = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pread(fd, &c, sizeof c, 0) == (ssize_t)sizeof c &&
	                  c.magic == RP_SPOOL_CTL_MAGIC;
	if (!page || (c.writer_pid > 0 && !(kill(c.writer_pid, 0) == -1 && errno == ESRCH))) {
		close(fd);
		return false;
	}
	/* The writer is gone, or named none: a lock held now is its (it took one) or a traced thread's brief one. */
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; i++) {
		if (errno != EWOULDBLOCK || i + 1 >= SWEEP_LOCK_TRIES || c.writer_pid <= 0) {
			close(fd);
			return false;
		}
		const struct timespec step = {0, 1000 * 1000};
		nanosleep(&step, NULL);
	}
	*lock_fd = fd;
	return true;
}

/* Whether name ends in GONE_SUFFIX (a spool a sweep or a writer began to remove and did not finish). */
static bool is_retired(const char *name)
{
	const size_t n = strlen(name), k = sizeof GONE_SUFFIX - 1;
	return n > k && strcmp(name + n - k, GONE_SUFFIX) == 0;
}

int rp_spool_sweep(const char *tmpdir, char *errbuf)
{
	if (!tmpdir)
		tmpdir = rp__spool_default_dir();
	DIR *const d = opendir(tmpdir);
	if (!d)
		return rp_fail(errbuf, RP_E_SYSTEM, "spool: cannot read %s: %s", tmpdir, strerror(errno));
	int removed = 0;
	const struct dirent *de;
	const uid_t me = geteuid();
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, RP__SPOOL_PREFIX, sizeof RP__SPOOL_PREFIX - 1) != 0)
			continue;
		const int dfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			continue;
		struct stat st;
		int lock_fd = -1;
		/* Only the user's own: a spool directory is private (0700) to the user who made it. */
		if (fstat(dfd, &st) != 0 || st.st_uid != me) {
			close(dfd);
			continue;
		}
		if (is_retired(de->d_name)) { /* no writer and no traced thread uses a retired name */
			rp__spool_empty(dfd);
			unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		} else if (spool_orphaned(dfd, &lock_fd)) {
			removed += rp__spool_retire(dirfd(d), de->d_name, dfd) == 0;
			close(lock_fd);
		}
		close(dfd);
	}
	closedir(d);
	return removed;
}
