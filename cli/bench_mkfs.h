/* reprise bench --mkfs: loop-mounted file-system images and a tmpfs made as targets, and removed again (docs/bench.md). */
#ifndef REPRISE_CLI_BENCH_MKFS_H
#define REPRISE_CLI_BENCH_MKFS_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* File systems in one --mkfs list; more is a usage error. */
#define RP_BENCH_MKFS_MAX 16

/* The smallest and largest --mkfs-size: xfs refuses images under 300 MB; a sparse image beyond 1 TiB is a typo. */
#define RP_BENCH_MKFS_SIZE_MIN (16ull << 20)
#define RP_BENCH_MKFS_SIZE_MAX (1ull << 40)

typedef struct rp_bench_fs {
	char type[16];       /* as named in --mkfs: "ext4", "tmpfs" */
	char mnt[PATH_MAX];  /* DIR/reprise-mkfs-TYPE: the mount point, and the target */
	char img[PATH_MAX];  /* DIR/reprise-mkfs-TYPE.img (not for tmpfs) */
	char loop[32];       /* "/dev/loopN" while attached, else "" */
	bool made_mnt, made_img, mounted;
	bool direct_io;      /* the loop device writes the image with direct I/O */
	bool ready;          /* mounted: a target */
	char why[512];       /* why it is not (skipped or failed) */
	bool skipped;        /* the kernel or the machine lacks it: said, not a failure */
} rp_bench_fs;

typedef struct rp_bench_fsset {
	rp_bench_fs fs[RP_BENCH_MKFS_MAX];
	size_t n;
} rp_bench_fsset;

/* "ext4,tmpfs" into s (names checked, nothing made yet).  0, or 2 after a usage error was printed. */
int rp__bench_mkfs_parse(rp_bench_fsset *s, const char *list);

/* "512M", "1G", "1048576" (bytes; k, M, G, T are powers of 1024).  0, or -1 when bad or out of range. */
int rp__bench_parse_size(const char *text, uint64_t *out);

/*
 * Make every file system of s under dir, size bytes each: an image
 * (truncate, mkfs.TYPE), a loop device (autoclear), a mount; tmpfs mounted
 * with that size.  One that the kernel or the machine lacks is skipped with
 * a message; one left mounted by an earlier run is reported and not
 * touched.  *stop is polled between steps (SIGINT or SIGTERM arrived: stop
 * making more).  Needs root.  0, or 1 when nothing could be made at all
 * (printed).  Whatever was made is recorded in s for rp__bench_mkfs_teardown,
 * on every path.
 */
int rp__bench_mkfs_setup(rp_bench_fsset *s, const char *dir, uint64_t size, bool (*stop)(void));

/* Unmount, detach and remove everything setup made, in reverse.  0, or 1 when something stayed (printed). */
int rp__bench_mkfs_teardown(rp_bench_fsset *s);

#endif
