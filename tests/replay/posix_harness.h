/* Shared scaffolding of the posix backend tests: a scratch target, an outside directory, runs, NT opens. */
#ifndef REPRISE_TESTS_POSIX_HARNESS_H
#define REPRISE_TESTS_POSIX_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "formats/semantics.h"
#include "harness.h"

static char top[256], target[300], outside[300];

static __attribute__((unused)) void rm_rf(const char *p)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p);
	if (system(cmd) != 0)
		fail_msg("cannot remove %s", p);
}

static __attribute__((unused)) int setup(void **state)
{
	(void)state;
	const char *const tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(top, sizeof(top), "%s/reprise-replay-XXXXXX", tmp);
	if (!mkdtemp(top))
		return -1;
	snprintf(target, sizeof(target), "%s/target", top);
	snprintf(outside, sizeof(outside), "%s/outside", top);
	mkdir(target, 0777);
	mkdir(outside, 0777);
	return 0;
}

static __attribute__((unused)) int teardown(void **state)
{
	(void)state;
	rm_rf(top);
	return 0;
}

static __attribute__((unused)) bool exists(const char *rel)
{
	char p[600];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", target, rel);
	return lstat(p, &st) == 0;
}

static __attribute__((unused)) long long size_of(const char *rel)
{
	char p[600];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", target, rel);
	return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

static __attribute__((unused)) const rp_replay_results *run_posix(wl *t, const char *bopts, bool prepare, uint32_t clones, rp_replay **r)
{
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = target;
	o.backend_opts = bopts;
	o.no_prepare = !prepare;
	o.clones = clones;
	char eb[RP_ERRBUF_SIZE];
	if (rp_replay_create(r, &o, wl_open(t), eb) < 0 || rp_replay_run(*r, eb) < 0)
		fail_msg("%s", eb);
	return rp_replay_get_results(*r);
}

/* An SMB open as the producers record it: through the one translation (formats/semantics.h), no access mask. */
static __attribute__((unused)) rp_op *nt_open(wl *t, const char *path, uint32_t disp, uint32_t options, uint64_t h, int32_t status)
{
	rp_op *const op = wl_add(t, 1, RP_OP_OPEN, path, h, 0, 0, status);
	rp_sem_nt_open(op, RP_PROTO_SMB2, 0, false, disp, options);
	return op;
}

/* The same with the access mask the client asked for. */
static __attribute__((unused)) rp_op *nt_open_access(wl *t, const char *path, uint32_t access, uint32_t disp, uint32_t options, uint64_t h,
			     int32_t status)
{
	rp_op *const op = wl_add(t, 1, RP_OP_OPEN, path, h, 0, 0, status);
	rp_sem_nt_open(op, RP_PROTO_SMB2, access, true, disp, options);
	return op;
}

/* An SMB set-info of a level; its value (end of file, allocation) is op->length as the test wrote it. */
static __attribute__((unused)) rp_op *nt_setinfo(rp_op *op, uint32_t level)
{
	const rp_nt_setinfo v = { .decoded = true, .value = op->length };
	op->length = 0;
	rp_sem_nt_setinfo(op, RP_PROTO_SMB2, level, &v);
	return op;
}

/* An SMB security query or set of AdditionalInformation `addl` (no xattr name): the wants it needs. */
static __attribute__((unused)) rp_op *nt_security(rp_op *op, uint32_t addl)
{
	op->proto = RP_PROTO_SMB2;
	op->raw.level = addl;
	op->want = rp_sem_nt_secinfo_want(addl, op->op == RP_OP_SETXATTR);
	return op;
}

/* A FIND_FIRST mask "\\dir\\pattern": a listing of dir with the pattern in path2. */
static __attribute__((unused)) rp_op *nt_find(wl *t, const char *mask, uint64_t count, int32_t status)
{
	char dir[512];
	const char *const sep = strrchr(mask, '\\');
	const size_t n = sep ? (size_t)(sep - mask) : 0;
	memcpy(dir, mask, n);
	dir[n] = '\0';
	rp_op *const op = wl_add(t, 1, RP_OP_READDIR, n ? dir : "\\", 0, 0, count, status);
	op->path2 = wl_str(t, sep ? sep + 1 : mask);
	return op;
}

static __attribute__((unused)) bool is_dir(const char *rel)
{
	char p[600];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", target, rel);
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static __attribute__((unused)) void print_samples(const rp_replay_results *res)
{
	for (size_t i = 0; i < res->n_samples; i++)
		print_message("# mismatch: %s %s #%u expected %d got %d\n", rp_op_name(res->samples[i].op),
			      res->samples[i].path, (unsigned)res->samples[i].index, res->samples[i].expected,
			      res->samples[i].actual);
}

#endif
