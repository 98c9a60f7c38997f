/* The final sync (--final-sync): a run's dirty data written back to stable storage, timed, and the dirty bytes left at its end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay/engine.h"

/*
 * A line of /proc/meminfo is "Name:   12345 kB"; a value this long is no
 * kernel's (2^63 bytes in kB has 17 digits), so a longer line is not read.
 */
#define MEMINFO_LINE_MAX 128

int64_t rp__dirty_bytes(void)
{
	FILE *const f = fopen("/proc/meminfo", "re");
	if (!f)
		return -1;
	char line[MEMINFO_LINE_MAX];
	int64_t sum = 0;
	int found = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long kb;
		/* Dirty: waiting to be written back; Writeback: being written now. Both are not yet on the device. */
		if (sscanf(line, "Dirty: %llu kB", &kb) == 1 || sscanf(line, "Writeback: %llu kB", &kb) == 1) {
			if (kb > (uint64_t)INT64_MAX / 1024)
				kb = (uint64_t)INT64_MAX / 1024;
			sum += (int64_t)kb * 1024;
			found++;
		}
	}
	fclose(f);
	return found == 2 ? sum : -1;
}

/* Does the backend work in a local directory (posix: "" among its schemes) that syncfs can reach? */
static bool local_dir_target(const rp_replay *r)
{
	if (!(r->bops->caps & RP_BCAP_DATA) || strstr(r->target, "://"))
		return false;
	for (const char *const *s = r->bops->schemes; s && *s; s++)
		if (!**s)
			return true;
	return false;
}

void rp__final_sync(rp_replay *r)
{
	rp_replay_flush *const fs = &r->res.final_sync;
	fs->dirty_end = rp__dirty_bytes();
	fs->asked = r->opts.final_sync;
	if (!fs->asked)
		return;
	/* An interrupted or aborted run stops now: it is not made to wait for the device. */
	if (atomic_load(&r->stop) || atomic_load(&r->aborted)) {
		fs->err = EINTR;
		return;
	}
	if (!local_dir_target(r)) {
		fs->err = EOPNOTSUPP; /* null, fault: nothing written; network backends: no syncfs of theirs yet */
		return;
	}
	const int fd = open(r->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fs->err = errno;
		return;
	}
	const uint64_t t = rp__mono_ns();
	/* syncfs(2): every dirty page and inode of the target's file system, waited for (not only this run's). */
	const int rc = syncfs(fd);
	const uint64_t dt = rp__mono_ns() - t;
	fs->err = rc < 0 ? errno : 0;
	close(fd);
	fs->ran = rc == 0;
	fs->ns = dt;
}

