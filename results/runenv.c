/* Where a run ran: host, kernel, the target's file system and mount (statfs, /proc/self/mountinfo), SHA-256 (nettle), CPU time. */
#include "results/runenv.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

int rp_runenv_sha256_file(const char *path, char hex[65])
{
	const int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = 0;
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	enum { BUF = 1 << 20 };
	uint8_t *const buf = malloc(BUF);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		const ssize_t got = read(fd, buf, BUF);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			break;
		}
		if (got == 0)
			break;
		sha256_update(&ctx, (size_t)got, buf);
	}
	free(buf);
	close(fd);
	if (rc)
		return rc;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_digest(&ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return 0;
}

double rp__runenv_parse_loadavg(FILE *f)
{
	double one;
	return f && fscanf(f, "%lf", &one) == 1 && one >= 0 && one < 1e9 ? one : -1;
}

double rp_runenv_loadavg(void)
{
	FILE *const f = fopen("/proc/loadavg", "re");
	const double v = rp__runenv_parse_loadavg(f);
	if (f)
		fclose(f);
	return v;
}

int rp__runenv_parse_stat(FILE *f, uint64_t *total, uint64_t *steal)
{
	/* "cpu  user nice system idle iowait irq softirq steal guest guest_nice": guest is in user already */
	char line[512];
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "cpu ", 4) != 0)
		return -1;
	unsigned long long v[8] = { 0 };
	const int n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			     &v[6], &v[7]);
	if (n < 4)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*steal = n >= 8 ? v[7] : 0;
	return 0;
}

int rp_runenv_cpu_ticks(uint64_t *total, uint64_t *steal)
{
	FILE *const f = fopen("/proc/stat", "re");
	const int rc = rp__runenv_parse_stat(f, total, steal);
	if (f)
		fclose(f);
	return rc;
}

/* statfs f_type values (linux/magic.h, statfs(2)) of the file systems a target is likely on. */
static const struct {
	unsigned long magic;
	const char *name;
} fs_names[] = {
	{ 0xEF53, "ext2/3/4" },  { 0x01021994, "tmpfs" }, { 0x58465342, "xfs" },     { 0x9123683E, "btrfs" },
	{ 0x6969, "nfs" },       { 0xFE534D42, "smb2" },  { 0xFF534D42, "cifs" },    { 0x794C7630, "overlay" },
	{ 0x2FC12FC1, "zfs" },   { 0xF2F52010, "f2fs" },  { 0x65735546, "fuse" },    { 0x858458F6, "ramfs" },
	{ 0x4D44, "msdos" },     { 0x2011BAB0, "exfat" }, { 0x5346544E, "ntfs" },    { 0xCA451A4E, "bcachefs" },
	{ 0x00C36400, "ceph" },  { 0x73717368, "squashfs" }, { 0x9660, "iso9660" }, { 0x01161970, "gfs2" },
	{ 0x5346414F, "afs" },   { 0x47504653, "gpfs" },  { 0x0BD00BD0, "lustre" },
};

/* mountinfo escapes space, tab, newline and backslash in paths as \ooo. */
static void unoctal(char *s)
{
	char *w = s;
	for (const char *r = s; *r;) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Is mount point m the path p or one of its ancestors? */
static size_t covers(const char *m, const char *p)
{
	const size_t n = strlen(m);
	if (strcmp(m, "/") == 0)
		return 1;
	return strncmp(m, p, n) == 0 && (p[n] == '\0' || p[n] == '/') ? n : 0;
}

bool rp__runenv_find_mount(rp_runenv_fs *fs, FILE *f, const char *real, const dev_t *dev, char *fstype,
			   size_t fstype_size)
{
	char *line = NULL;
	size_t cap = 0;
	size_t best = 0;
	while (getline(&line, &cap, f) > 0) {
		/* id parent major:minor root mount-point options [optional...] - fstype source super-options */
		char *save = NULL;
		char *fields[6];
		int nf = 0;
		char *t;
		while (nf < 6 && (t = strtok_r(nf ? NULL : line, " \n", &save)))
			fields[nf++] = t;
		if (nf < 6)
			continue;
		unsigned maj, min;
		if (sscanf(fields[2], "%u:%u", &maj, &min) != 2 || (dev && makedev(maj, min) != *dev))
			continue;
		while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-") != 0)
			;
		char *const type = t ? strtok_r(NULL, " \n", &save) : NULL;
		char *const source = type ? strtok_r(NULL, " \n", &save) : NULL;
		char *const super = source ? strtok_r(NULL, " \n", &save) : NULL;
		unoctal(fields[4]);
		const size_t n = covers(fields[4], real);
		if (!n || n < best)
			continue;
		best = n;
		snprintf(fs->mount, sizeof(fs->mount), "%s", fields[4]);
		snprintf(fs->mount_opts, sizeof(fs->mount_opts), "%s", fields[5]);
		snprintf(fs->fs_opts, sizeof(fs->fs_opts), "%s", super ? super : "");
		snprintf(fstype, fstype_size, "%s", type ? type : "");
	}
	free(line);
	if (best)
		fs->mounted = true;
	return best > 0;
}

/* rp__runenv_find_mount over this process's mountinfo, for the directory dir. */
static bool find_mount(rp_runenv_fs *fs, const char *dir, const dev_t *dev, char *fstype, size_t fstype_size)
{
	char real[PATH_MAX];
	if (!realpath(dir, real))
		return false;
	FILE *const f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	const bool found = rp__runenv_find_mount(fs, f, real, dev, fstype, fstype_size);
	fclose(f);
	return found;
}

void rp_runenv_fs_get(rp_runenv_fs *fs, const char *target)
{
	memset(fs, 0, sizeof *fs);
	struct statfs sf;
	struct stat st;
	if (statfs(target, &sf) < 0 || stat(target, &st) < 0)
		return; /* not a local directory (a URL for a network backend) */
	const unsigned long magic = (unsigned long)sf.f_type & 0xffffffffUL;
	snprintf(fs->fs_magic, sizeof(fs->fs_magic), "0x%lx", magic);
	fs->local = true;
	char type[32] = "";
	if (!find_mount(fs, target, &st.st_dev, type, sizeof(type)))
		find_mount(fs, target, NULL, type, sizeof(type));
	/* the mount's own type names it best (ext2, ext3 and ext4 share one magic); the magic when no mount says */
	if (type[0])
		snprintf(fs->fs, sizeof(fs->fs), "%s", type);
	for (size_t i = 0; !fs->fs[0] && i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
		if (fs_names[i].magic == magic)
			snprintf(fs->fs, sizeof(fs->fs), "%s", fs_names[i].name);
	if (!fs->fs[0])
		snprintf(fs->fs, sizeof(fs->fs), "%s", fs->fs_magic);
}

void rp_runenv_host_get(rp_runenv_host *h)
{
	memset(h, 0, sizeof *h);
	h->have_host = gethostname(h->host, sizeof(h->host) - 1) == 0;
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(h->kernel, sizeof(h->kernel), "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		h->have_kernel = true;
	}
}

void rp_runenv_cpu_begin(rp_runenv_cpu *c)
{
	if (getrusage(RUSAGE_SELF, &c->ru0) < 0)
		memset(&c->ru0, 0, sizeof(c->ru0));
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int rp_runenv_cpu_end(const rp_runenv_cpu *c, double *user_s, double *sys_s)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return -1;
	*user_s = tv_s(ru.ru_utime) - tv_s(c->ru0.ru_utime);
	*sys_s = tv_s(ru.ru_stime) - tv_s(c->ru0.ru_stime);
	return 0;
}
