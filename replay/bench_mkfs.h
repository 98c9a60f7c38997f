/*
 * File systems made as bench targets (reprise bench --mkfs, docs/bench.md):
 * loop-mounted images (truncate, mkfs.TYPE, loop(4), mount(2)) and a tmpfs,
 * and removed again.  Nothing here prints: what happens is told through a
 * note callback, failures return a negative rp_err with the message.
 */
#ifndef REPRISE_REPLAY_BENCH_MKFS_H
#define REPRISE_REPLAY_BENCH_MKFS_H

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

/*
 * "ext4,tmpfs" into s (names checked, nothing made yet).  RP_OK, or
 * RP_E_INVAL with the message in errbuf (RP_ERRBUF_SIZE bytes).
 */
int rp_bench_mkfs_parse(rp_bench_fsset *s, const char *list, char *errbuf);

/* "512M", "1G", "1048576" (bytes; k, M, G, T are powers of 1024).  0, or -1 when bad or out of range. */
int rp_bench_parse_size(const char *text, uint64_t *out);

/* What setup and teardown say as they go: of fs (made, skipped, failed, or what stayed), msg. */
typedef void rp_bench_mkfs_note(void *ctx, const rp_bench_fs *fs, const char *msg);

/*
 * Make every file system of s under dir, size bytes each: an image
 * (truncate, mkfs.TYPE, whose errors go to stderr), a loop device
 * (autoclear), a mount; tmpfs mounted with that size.  One that the kernel or
 * the machine lacks is skipped; one left mounted by an earlier run is not
 * touched.  Each file system tried is noted: fs->why when it failed or was
 * skipped, then, when it is ready, where it is mounted from.  stop is polled
 * between file systems (SIGINT or SIGTERM arrived: make no more).  Returns
 * how many are ready (0: none could be made), or before any is tried
 * RP_E_STATE when not root ("needs root (mount, loop devices)") or
 * RP_E_SYSTEM when dir cannot be resolved ("DIR: why") or RP_E_LIMIT when
 * an image's path under it would pass PATH_MAX ("DIR: the path is too long
 * for reprise-mkfs-TYPE.img under it"), the message in
 * errbuf (RP_ERRBUF_SIZE bytes).  Whatever was made is recorded in s for
 * rp_bench_mkfs_teardown, on every path.
 */
int rp_bench_mkfs_setup(rp_bench_fsset *s, const char *dir, uint64_t size, bool (*stop)(void),
			rp_bench_mkfs_note *note, void *ctx, char *errbuf);

/*
 * Unmount, detach and remove everything setup made, in reverse.  RP_OK, or
 * RP_E_SYSTEM when something stayed, each thing that stayed noted ("umount
 * MNT: why (left mounted)", "losetup -d DEV: why", "rm IMG: why", "rmdir MNT: why").
 */
int rp_bench_mkfs_teardown(rp_bench_fsset *s, rp_bench_mkfs_note *note, void *ctx);

#endif
