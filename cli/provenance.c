/* The provenance of a replay's JSON (docs/replay.md, "provenance"). */
#include "cli/provenance.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef REPRISE_VERSION
#define REPRISE_VERSION "unknown"
#endif
#ifndef REPRISE_FEATURES
#define REPRISE_FEATURES ""
#endif

/* The build's features: meson's space-separated name=value list (cli/meson.build, built_features), as --version prints it. */
static const char features_str[] = REPRISE_FEATURES;

/* --smb-key SID:KEY[:S2C:C2S] (also --smb-key=...): the value as "SID:***" in a copy; true if av[*i] was the option. */
static bool redact_smb_key(rp_cli_prov *pv, int *i, int *k)
{
	char **const av = pv->argv;
	const bool sep = strcmp(av[*i], "--smb-key") == 0;
	if (!sep && strncmp(av[*i], "--smb-key=", 10) != 0)
		return false;
	if (sep && ++*i >= pv->p.argc)
		return true;
	const char *const a = av[*i];
	const char *const colon = strchr(a, ':');
	const size_t keep = colon ? (size_t)(colon - a) + 1 : strlen(a);
	char *const r = *k < RP_CLI_REDACT_MAX ? malloc(keep + 4) : NULL;
	if (!r) {
		av[*i] = (char *)"***"; /* never the key, even without memory */
		return true;
	}
	snprintf(r, keep + 4, "%.*s***", (int)keep, a);
	pv->redacted[(*k)++] = r;
	av[*i] = r;
	return true;
}

/* Point the copy of argv at rewritten arguments where one holds a password (after --user, in -O/--backend-opt). */
static void redact(rp_cli_prov *pv)
{
	int k = 0;
	char **const av = pv->argv;
	/* every argument is looked at: past RP_CLI_REDACT_MAX copies a secret becomes a bare "***" */
	for (int i = 1; i < pv->p.argc; i++) {
		if (redact_smb_key(pv, &i, &k))
			continue;
		const char *a = av[i];
		const bool user = strcmp(a, "--user") == 0, bopt = strcmp(a, "--backend-opt") == 0 || strcmp(a, "-O") == 0;
		if ((user || bopt) && i + 1 < pv->p.argc)
			a = av[++i];
		else if (strncmp(a, "--user=", 7) != 0 && strncmp(a, "--backend-opt=", 14) != 0 && strncmp(a, "-O", 2) != 0)
			continue;
		const bool is_user = user || strncmp(av[i], "--user=", 7) == 0;
		const char *const secret = is_user ? strchr(a, '%') : strstr(a, "password=");
		if (!secret)
			continue;
		const size_t keep = (size_t)(secret - a) + (is_user ? 1 : 9);
		const char *const rest = is_user ? "" : secret + 9 + strcspn(secret + 9, ",");
		const size_t len = keep + 3 + strlen(rest) + 1;
		char *const r = k < RP_CLI_REDACT_MAX ? malloc(len) : NULL;
		if (!r) {
			av[i] = (char *)"***"; /* never the password, even without memory */
			continue;
		}
		snprintf(r, len, "%.*s***%s", (int)keep, a, rest);
		pv->redacted[k++] = r;
		av[i] = r;
	}
}

int rp__cli_prov_init(rp_cli_prov *pv, int argc, char **argv)
{
	memset(pv, 0, sizeof(*pv));
	rp_replay_provenance *const p = &pv->p;
	p->version = REPRISE_VERSION;
	p->hash_seconds = -1;
	p->cpu_user_s = p->cpu_sys_s = -1;
	p->start_epoch_ns = -1;

	snprintf(pv->features_buf, sizeof(pv->features_buf), "%s", features_str);
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(pv->features_buf, " ", &save); t && n + 1 < sizeof(pv->features) / sizeof(pv->features[0]);
	     t = strtok_r(NULL, " ", &save))
		pv->features[n++] = t;
	pv->features[n] = NULL;
	p->features = pv->features;

	/* The program as run, then the command and its arguments as given (before getopt reorders them). */
	pv->argv = calloc((size_t)argc + 2, sizeof(*pv->argv));
	if (!pv->argv)
		return -ENOMEM;
	pv->argv[0] = program_invocation_name;
	for (int i = 0; i < argc; i++)
		pv->argv[i + 1] = argv[i];
	p->argc = argc + 1;
	p->argv = pv->argv;
	redact(pv);

	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
		p->start_epoch_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return 0;
}

void rp__cli_prov_free(rp_cli_prov *pv)
{
	for (int i = 0; i < RP_CLI_REDACT_MAX; i++) {
		free(pv->redacted[i]);
		pv->redacted[i] = NULL;
	}
	free(pv->argv);
	pv->argv = NULL;
}

int rp__cli_sha256_file(const char *path, char hex[65])
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

/*
 * The mount holding dir: among the lines of /proc/self/mountinfo with its
 * device, the one with the longest mount point above it (the last such line:
 * a later mount over the same point hides the earlier ones).  dev NULL:
 * any device (a file system whose st_dev mountinfo does not show).
 */
static bool find_mount(rp_cli_prov *pv, const char *dir, const dev_t *dev, char *fstype, size_t fstype_size)
{
	char real[PATH_MAX];
	if (!realpath(dir, real))
		return false;
	FILE *const f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
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
		snprintf(pv->mount, sizeof(pv->mount), "%s", fields[4]);
		snprintf(pv->mount_opts, sizeof(pv->mount_opts), "%s", fields[5]);
		snprintf(pv->fs_opts, sizeof(pv->fs_opts), "%s", super ? super : "");
		snprintf(fstype, fstype_size, "%s", type ? type : "");
	}
	free(line);
	fclose(f);
	if (best) {
		pv->p.target_mount = pv->mount;
		pv->p.target_mount_opts = pv->mount_opts;
		pv->p.target_fs_opts = pv->fs_opts;
	}
	return best > 0;
}

static void target_fs(rp_cli_prov *pv, const char *target)
{
	struct statfs sf;
	struct stat st;
	if (statfs(target, &sf) < 0 || stat(target, &st) < 0)
		return; /* not a local directory (a URL for a network backend) */
	const unsigned long magic = (unsigned long)sf.f_type & 0xffffffffUL;
	snprintf(pv->fs_magic, sizeof(pv->fs_magic), "0x%lx", magic);
	pv->p.target_fs_magic = pv->fs_magic;
	char type[32] = "";
	if (!find_mount(pv, target, &st.st_dev, type, sizeof(type)))
		find_mount(pv, target, NULL, type, sizeof(type));
	/* the mount's own type names it best (ext2, ext3 and ext4 share one magic); the magic when no mount says */
	if (type[0])
		snprintf(pv->fs, sizeof(pv->fs), "%s", type);
	for (size_t i = 0; !pv->fs[0] && i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
		if (fs_names[i].magic == magic)
			snprintf(pv->fs, sizeof(pv->fs), "%s", fs_names[i].name);
	if (!pv->fs[0])
		snprintf(pv->fs, sizeof(pv->fs), "%s", pv->fs_magic);
	pv->p.target_fs = pv->fs;
}

void rp__cli_prov_target(rp_cli_prov *pv, const char *target)
{
	rp_replay_provenance *const p = &pv->p;
	p->target = target;
	p->target_fs = p->target_fs_magic = p->target_mount = p->target_mount_opts = p->target_fs_opts = NULL;
	pv->fs[0] = pv->fs_magic[0] = pv->mount[0] = pv->mount_opts[0] = pv->fs_opts[0] = '\0';
	target_fs(pv, target);
}

static double now_s(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void rp__cli_prov_collect(rp_cli_prov *pv, const char *trace, const char *path, const char *target)
{
	rp_replay_provenance *const p = &pv->p;
	if (gethostname(pv->host, sizeof(pv->host) - 1) == 0)
		p->host = pv->host;
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(pv->kernel, sizeof(pv->kernel), "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		p->kernel = pv->kernel;
	}
	p->trace_path = trace;
	p->target = target;
	target_fs(pv, target);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		const double t0 = now_s(CLOCK_MONOTONIC);
		if (rp__cli_sha256_file(path, pv->sha256) == 0) {
			p->trace_sha256 = pv->sha256;
			p->hash_seconds = now_s(CLOCK_MONOTONIC) - t0;
		}
	}
}

void rp__cli_prov_cpu_begin(rp_cli_prov *pv)
{
	if (getrusage(RUSAGE_SELF, &pv->ru0) < 0)
		memset(&pv->ru0, 0, sizeof(pv->ru0));
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void rp__cli_prov_cpu_end(rp_cli_prov *pv)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	pv->p.cpu_user_s = tv_s(ru.ru_utime) - tv_s(pv->ru0.ru_utime);
	pv->p.cpu_sys_s = tv_s(ru.ru_stime) - tv_s(pv->ru0.ru_stime);
}
