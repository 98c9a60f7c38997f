/* Where a run ran, for its provenance (docs/replay.md, "provenance"): host, kernel, the target's file system and mount, a trace's SHA-256, CPU time. */
#ifndef REPRISE_RESULTS_RUNENV_H
#define REPRISE_RESULTS_RUNENV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

/* This machine: each found or not (nothing here fails). */
typedef struct rp_runenv_host {
	bool have_host, have_kernel;
	char host[256];           /* gethostname */
	char kernel[4 * 65 + 4];  /* uname: "sysname release version machine" */
} rp_runenv_host;

void rp_runenv_host_get(rp_runenv_host *h);

/* The file system a target directory is on; all "" / false when it is not a local directory (a URL). */
typedef struct rp_runenv_fs {
	bool local;        /* statfs and stat worked: fs and fs_magic are set */
	bool mounted;      /* the mount holding it was found in /proc/self/mountinfo: mount and the options are set */
	char fs[32];       /* the mount's type (ext2, ext3 and ext4 share one magic), else the magic's name, else the magic */
	char fs_magic[24]; /* statfs f_type, "0x..." */
	char mount[PATH_MAX];
	char mount_opts[1024]; /* the mount's options (mountinfo field 6) */
	char fs_opts[1024];    /* the super block's options (after the fstype and source) */
} rp_runenv_fs;

void rp_runenv_fs_get(rp_runenv_fs *fs, const char *target);

/*
 * The mount holding the directory real (a resolved path) among mountinfo's
 * lines with device dev (NULL: any): the longest mount point above it, the
 * last such line (a later mount over the same point hides the earlier ones).
 * Sets fs->mount, the options and fs->mounted, and the mount's type into
 * fstype; false when no line holds it.  Internal: the unit tests feed it lines.
 */
bool rp__runenv_find_mount(rp_runenv_fs *fs, FILE *mountinfo, const char *real, const dev_t *dev, char *fstype,
			   size_t fstype_size);

/*
 * The machine's load while a run runs: the 1-minute load average
 * (/proc/loadavg's first field) and the "cpu" line of /proc/stat (every
 * field summed, and steal, the eighth: time the hypervisor gave another
 * guest).  Each -1 when unreadable; the parsers take the file so the unit
 * tests feed them lines.
 */
double rp_runenv_loadavg(void);
double rp__runenv_parse_loadavg(FILE *f);
int rp_runenv_cpu_ticks(uint64_t *total, uint64_t *steal);
int rp__runenv_parse_stat(FILE *f, uint64_t *total, uint64_t *steal);

/* The SHA-256 of the file at path as lowercase hex into hex[65]: 0, or -errno. */
int rp_runenv_sha256_file(const char *path, char hex[65]);

/* CPU time of the process between begin and end. */
typedef struct rp_runenv_cpu {
	struct rusage ru0;
} rp_runenv_cpu;

void rp_runenv_cpu_begin(rp_runenv_cpu *c);
/* User and system seconds since begin: 0, or -1 (getrusage failed; both left as they were). */
int rp_runenv_cpu_end(const rp_runenv_cpu *c, double *user_s, double *sys_s);

#endif
