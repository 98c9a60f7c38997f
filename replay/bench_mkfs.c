/* reprise bench --mkfs: file-system images on loop devices (loop(4), mount(2)) and a tmpfs as targets, removed on every exit. */
#include "replay/bench_mkfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "formats/error.h"

extern char **environ;

/* A message into buf, cut to fit (why a file system was not made: the cut end loses nothing that matters). */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* The file systems --mkfs knows: how to make one quietly over an existing image (-F, -f: the file is ours). */
static const struct {
	const char *name;
	const char *force; /* mkfs.NAME's flag to write over a file without asking (after -q); NULL: -q is enough */
} known[] = {
	{ "ext2", "-F" }, { "ext3", "-F" }, { "ext4", "-F" }, { "xfs", "-f" },     { "btrfs", "-f" },
	{ "f2fs", "-f" }, { "jfs", NULL },  { "reiserfs", "-f" }, { "tmpfs", NULL },
};
#define N_KNOWN (sizeof(known) / sizeof(known[0]))

static int known_index(const char *name)
{
	for (size_t i = 0; i < N_KNOWN; i++)
		if (strcmp(known[i].name, name) == 0)
			return (int)i;
	return -1;
}

int rp_bench_mkfs_parse(rp_bench_fsset *s, const char *list, char *errbuf)
{
	memset(s, 0, sizeof(*s));
	const char *p = list;
	while (*p) {
		const char *const end = strchrnul(p, ',');
		const size_t len = (size_t)(end - p);
		char name[16];
		if (len == 0 || len >= sizeof(name))
			return rp_fail(errbuf, RP_E_INVAL, "bad file system name in '%s'", list);
		memcpy(name, p, len);
		name[len] = '\0';
		if (known_index(name) < 0) {
			char names[160] = "";
			for (size_t i = 0, used = 0; i < N_KNOWN && used < sizeof(names); i++)
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", known[i].name);
			return rp_fail(errbuf, RP_E_INVAL, "unknown file system '%s' (known: %s)", name, names);
		}
		for (size_t i = 0; i < s->n; i++)
			if (strcmp(s->fs[i].type, name) == 0)
				return rp_fail(errbuf, RP_E_INVAL, "%s named twice", name);
		if (s->n == RP_BENCH_MKFS_MAX)
			return rp_fail(errbuf, RP_E_INVAL, "more than %d file systems", RP_BENCH_MKFS_MAX);
		snprintf(s->fs[s->n++].type, sizeof(s->fs[0].type), "%s", name);
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return rp_fail(errbuf, RP_E_INVAL, "'%s' ends with a comma", list);
	}
	if (!s->n)
		return rp_fail(errbuf, RP_E_INVAL, "no file system named");
	return RP_OK;
}

int rp_bench_parse_size(const char *text, uint64_t *out)
{
	char *end = NULL;
	errno = 0;
	if (text[0] < '0' || text[0] > '9')
		return -1;
	const unsigned long long v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -1;
	unsigned shift = 0;
	if (*end) {
		static const char units[] = "kMGT";
		const char *const u = end[1] == '\0' ? strchr(units, *end) : NULL;
		if (!u)
			return -1;
		shift = 10 * (unsigned)(u - units + 1);
	}
	if (v > (RP_BENCH_MKFS_SIZE_MAX >> shift))
		return -1;
	const uint64_t bytes = (uint64_t)v << shift;
	if (bytes < RP_BENCH_MKFS_SIZE_MIN)
		return -1;
	*out = bytes;
	return 0;
}

/* Is name a file system this kernel has (/proc/filesystems: "nodev\ttmpfs", "\text4")? */
static bool kernel_has(const char *name)
{
	FILE *const f = fopen("/proc/filesystems", "re");
	if (!f)
		return false;
	char line[128];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *const tab = strchr(line, '\t');
		if (!tab)
			continue;
		tab[strcspn(tab, "\n")] = '\0';
		found = strcmp(tab + 1, name) == 0;
	}
	fclose(f);
	return found;
}

/* The mkfs.NAME program on PATH (and the sbin directories a root shell has), into buf. */
static bool find_mkfs(const char *name, char *buf, size_t size)
{
	const char *const env = getenv("PATH");
	char path[4096];
	snprintf(path, sizeof(path), "%s:/usr/sbin:/sbin", env ? env : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(path, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		const int n = snprintf(buf, size, "%s/mkfs.%s", *d ? d : ".", name);
		if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

/* Run argv (stdin /dev/null, signals unblocked in the child) and wait: its exit status, or -1. */
static int run_prog(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none;
	sigemptyset(&none);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* its notes (mkfs.btrfs prints some despite -q) would drown the run's; its errors go to stderr */
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	pid_t pid;
	const int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Is path a mount point now (/proc/self/mountinfo's fifth field, octal escapes as the kernel writes them)? */
static bool is_mounted(const char *path)
{
	FILE *const f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *save = NULL, *t = strtok_r(line, " ", &save);
		for (int i = 0; t && i < 4; i++)
			t = strtok_r(NULL, " ", &save);
		if (!t)
			continue;
		/* unescape \040 and friends in place */
		char *w = t;
		for (const char *r = t; *r;) {
			if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
				*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
				r += 4;
			} else {
				*w++ = *r++;
			}
		}
		*w = '\0';
		found = strcmp(t, path) == 0;
	}
	free(line);
	fclose(f);
	return found;
}

/* The loop device whose backing file is img (/sys/block/loopN/loop/backing_file), into buf; false if none. */
static bool loop_of(const char *img, char *buf, size_t size)
{
	DIR *const d = opendir("/sys/block");
	if (!d)
		return false;
	bool found = false;
	for (const struct dirent *e; !found && (e = readdir(d));) {
		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		char p[300], back[PATH_MAX];
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		FILE *const f = fopen(p, "re");
		if (!f)
			continue;
		if (fgets(back, sizeof(back), f)) {
			back[strcspn(back, "\n")] = '\0';
			const int w = snprintf(buf, size, "/dev/%s", e->d_name);
			found = strcmp(back, img) == 0 && w > 0 && (size_t)w < size;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

/* Does the loop device do direct I/O (/sys/block/loopN/loop/dio: the kernel may fall back to buffered)? */
static bool loop_dio(const char *dev)
{
	char p[64], v[8] = "";
	const char *const name = strrchr(dev, '/');
	snprintf(p, sizeof(p), "/sys/block/%s/loop/dio", name ? name + 1 : dev);
	FILE *const f = fopen(p, "re");
	if (!f)
		return false;
	const bool on = fgets(v, sizeof(v), f) && v[0] == '1';
	fclose(f);
	return on;
}

/*
 * A free loop device bound to img with autoclear (it detaches itself when
 * the file system on it is unmounted, and when the last descriptor closes
 * unmounted).  The open descriptor is returned: closing it before the mount
 * detaches the device.  -1 with errno.
 */
static int loop_attach(rp_bench_fs *fs)
{
	const int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	int dev = -1;
	/* Another process may take the free device first: ask again. */
	for (int tries = 0; dev < 0 && tries < 8; tries++) {
		const int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(fs->loop, sizeof(fs->loop), "/dev/loop%d", n);
		const int fd = open(fs->loop, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		const int img = open(fs->img, O_RDWR | O_CLOEXEC);
		if (img < 0) {
			close(fd);
			break;
		}
		struct loop_config cfg;
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)img;
		/*
		 * Direct I/O: the loop device's writes go to the image's device, not into
		 * the page cache of the file system holding the image, so a sync of the
		 * file system under test reaches stable storage.  Where the file
		 * system holding the image cannot, buffered as before (said).
		 */
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
		snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", fs->img);
		int rc = ioctl(fd, LOOP_CONFIGURE, &cfg);
		if (rc < 0 && errno == EINVAL) {
			cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
			rc = ioctl(fd, LOOP_CONFIGURE, &cfg);
		}
		const int err = errno;
		close(img);
		if (rc == 0) {
			dev = fd;
			fs->direct_io = loop_dio(fs->loop);
		} else {
			close(fd);
			errno = err;
			if (err != EBUSY)
				break;
		}
	}
	const int err = errno;
	close(ctl);
	if (dev < 0)
		fs->loop[0] = '\0';
	errno = err;
	return dev;
}

static int make_one(rp_bench_fs *fs, const char *dir, uint64_t size)
{
	const int k = known_index(fs->type);
	const bool tmpfs = strcmp(fs->type, "tmpfs") == 0;
	char mkfs[PATH_MAX];
	const int ml = snprintf(fs->mnt, sizeof(fs->mnt), "%s/reprise-mkfs-%s", dir, fs->type);
	const int il = snprintf(fs->img, sizeof(fs->img), "%s/reprise-mkfs-%s.img", dir, fs->type);
	if (ml < 0 || il < 0 || (size_t)ml >= sizeof(fs->mnt) || (size_t)il >= sizeof(fs->img)) {
		fs->mnt[0] = fs->img[0] = '\0';
		say(fs->why, sizeof(fs->why), "%s/reprise-mkfs-%s.img: the path is too long", dir, fs->type);
		return -1;
	}
	if (!kernel_has(fs->type)) {
		fs->skipped = true;
		say(fs->why, sizeof(fs->why), "skipped: this kernel has no %s (not in /proc/filesystems)", fs->type);
		return 0;
	}
	if (!tmpfs && !find_mkfs(fs->type, mkfs, sizeof(mkfs))) {
		fs->skipped = true;
		say(fs->why, sizeof(fs->why), "skipped: no mkfs.%s on this machine (install its tools)", fs->type);
		return 0;
	}
	/* What a run killed with SIGKILL left: said, and not touched (it may be someone's). */
	char stale[32];
	if (is_mounted(fs->mnt)) {
		say(fs->why, sizeof(fs->why), "%s is still mounted, left by an earlier run? (umount it%s%s)", fs->mnt,
			 tmpfs ? "" : ", losetup -d its loop device, rm ", tmpfs ? "" : fs->img);
		return -1;
	}
	if (!tmpfs && loop_of(fs->img, stale, sizeof(stale))) {
		say(fs->why, sizeof(fs->why), "%s is still attached to %s, left by an earlier run? (losetup -d %s)",
			 fs->img, stale, stale);
		return -1;
	}
	if (mkdir(fs->mnt, 0755) < 0) {
		say(fs->why, sizeof(fs->why), "%s: %s%s", fs->mnt, strerror(errno),
			 errno == EEXIST ? " (left by an earlier run? remove it)" : "");
		return -1;
	}
	fs->made_mnt = true;
	if (tmpfs) {
		char data[64];
		snprintf(data, sizeof(data), "size=%llu", (unsigned long long)size);
		if (mount("reprise-bench", fs->mnt, "tmpfs", 0, data) < 0) {
			say(fs->why, sizeof(fs->why), "mount tmpfs on %s: %s", fs->mnt, strerror(errno));
			return -1;
		}
		fs->mounted = fs->ready = true;
		return 0;
	}
	const int img = open(fs->img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (img < 0) {
		say(fs->why, sizeof(fs->why), "%s: %s%s", fs->img, strerror(errno),
			 errno == EEXIST ? " (left by an earlier run? remove it)" : "");
		return -1;
	}
	fs->made_img = true;
	const int trc = ftruncate(img, (off_t)size); /* sparse: the blocks come as the file system writes them */
	const int terr = errno;
	close(img);
	if (trc < 0) {
		say(fs->why, sizeof(fs->why), "truncate %s: %s", fs->img, strerror(terr));
		return -1;
	}
	char *argv[5] = { mkfs, (char *)"-q", (char *)known[k].force, fs->img, NULL };
	if (!known[k].force) {
		argv[2] = fs->img;
		argv[3] = NULL;
	}
	const int st = run_prog(argv);
	if (st != 0) {
		say(fs->why, sizeof(fs->why), "%s %s: %s", mkfs, fs->img,
			 st < 0 ? strerror(errno) : "failed (its message is above)");
		return -1;
	}
	const int dev = loop_attach(fs);
	if (dev < 0) {
		say(fs->why, sizeof(fs->why), "a loop device for %s: %s", fs->img, strerror(errno));
		return -1;
	}
	const int mrc = mount(fs->loop, fs->mnt, fs->type, 0, NULL);
	const int merr = errno;
	close(dev); /* autoclear: the mount now holds the device, or, when the mount failed, it detaches here */
	if (mrc < 0) {
		say(fs->why, sizeof(fs->why), "mount %s (%s) on %s: %s", fs->loop, fs->type, fs->mnt, strerror(merr));
		return -1;
	}
	fs->mounted = fs->ready = true;
	return 0;
}

int rp_bench_mkfs_setup(rp_bench_fsset *s, const char *dir, uint64_t size, bool (*stop)(void),
			rp_bench_mkfs_note *note, void *ctx, char *errbuf)
{
	if (geteuid() != 0)
		return rp_fail(errbuf, RP_E_STATE, "needs root (mount, loop devices)");
	char real[PATH_MAX];
	if (!realpath(dir, real))
		return rp_fail(errbuf, RP_E_SYSTEM, "%s: %s", dir, strerror(errno));
	/* Every image's path fits, or nothing is made: the directory is the caller's to change. */
	for (size_t i = 0; i < s->n; i++)
		if (strlen(real) + sizeof("/reprise-mkfs-.img") + strlen(s->fs[i].type) > sizeof(s->fs[i].img))
			return rp_fail(errbuf, RP_E_LIMIT, "%s: the path is too long for reprise-mkfs-%s.img under it",
				       real, s->fs[i].type);
	int ready = 0;
	for (size_t i = 0; i < s->n && !stop(); i++) {
		rp_bench_fs *const fs = &s->fs[i];
		if (make_one(fs, real, size) < 0 || fs->skipped)
			note(ctx, fs, fs->why);
		else
			ready++;
		if (fs->ready) {
			char msg[PATH_MAX + 160];
			snprintf(msg, sizeof(msg), "%s mounted%s%s%s", fs->mnt, fs->loop[0] ? " from " : "", fs->loop,
				 !fs->loop[0] ? "" : fs->direct_io ? " (direct I/O)"
						   : " (buffered: the image's file system takes no direct I/O, so a sync "
						     "reaches its page cache, not the disk)");
			note(ctx, fs, msg);
		}
	}
	return ready;
}

/* umount2, again after a moment while busy (a process still leaving it), then lazily. */
static int unmount(const char *mnt)
{
	for (int i = 0; i < 20; i++) {
		if (umount2(mnt, UMOUNT_NOFOLLOW) == 0)
			return 0;
		if (errno != EBUSY)
			return -1;
		const struct timespec ts = { 0, 100000000L };
		nanosleep(&ts, NULL);
	}
	return umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW);
}

/* A note of what stayed, formatted. */
__attribute__((format(printf, 4, 5))) static void stayed(rp_bench_mkfs_note *note, void *ctx, const rp_bench_fs *fs,
							 const char *fmt, ...)
{
	char msg[2 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	note(ctx, fs, msg);
}

int rp_bench_mkfs_teardown(rp_bench_fsset *s, rp_bench_mkfs_note *note, void *ctx)
{
	int bad = RP_OK;
	for (size_t i = s->n; i-- > 0;) {
		rp_bench_fs *const fs = &s->fs[i];
		if (fs->mounted) {
			if (unmount(fs->mnt) < 0) {
				stayed(note, ctx, fs, "umount %s: %s (left mounted)", fs->mnt, strerror(errno));
				bad = RP_E_SYSTEM;
				continue; /* its image and mount point stay: they are in use */
			}
			fs->mounted = fs->ready = false;
		}
		/* Autoclear detaches the device at the unmount; should it still hold the image, detach it. */
		char dev[32];
		if (fs->made_img && loop_of(fs->img, dev, sizeof(dev))) {
			const int fd = open(dev, O_RDWR | O_CLOEXEC);
			if (fd < 0 || (ioctl(fd, LOOP_CLR_FD, 0) < 0 && errno != ENXIO)) {
				stayed(note, ctx, fs, "losetup -d %s: %s", dev, strerror(errno));
				bad = RP_E_SYSTEM;
			}
			if (fd >= 0)
				close(fd);
		}
		fs->loop[0] = '\0';
		if (fs->made_img) {
			if (unlink(fs->img) < 0 && errno != ENOENT) {
				stayed(note, ctx, fs, "rm %s: %s", fs->img, strerror(errno));
				bad = RP_E_SYSTEM;
			} else {
				fs->made_img = false;
			}
		}
		if (fs->made_mnt) {
			if (rmdir(fs->mnt) < 0 && errno != ENOENT) {
				stayed(note, ctx, fs, "rmdir %s: %s", fs->mnt, strerror(errno));
				bad = RP_E_SYSTEM;
			} else {
				fs->made_mnt = false;
			}
		}
	}
	return bad;
}
