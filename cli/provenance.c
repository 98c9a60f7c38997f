/* The provenance of a replay's JSON (docs/replay.md, "provenance"): the command line (passwords redacted), the build; the rest from results/runenv.h. */
#include "cli/provenance.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

/*
 * The -O list a (its first skip bytes the option itself, "-O" or
 * "--backend-opt="), each item's secret starred: password=*** and the smb
 * backend's user=[DOMAIN\\]USER%*** (--user's grammar), in a copy (*secret
 * set).  NULL when it has none (*secret false) and without memory.
 */
static char *redact_list(const char *a, size_t skip, bool *secret)
{
	bool any = false;
	size_t items = 1;
	for (const char *p = a + skip; *p; p++)
		items += *p == ',';
	for (const char *p = a + skip; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		any |= strncmp(p, "password=", 9) == 0 || (strncmp(p, "user=", 5) == 0 && memchr(p, '%', strcspn(p, ",")));
	*secret = any;
	if (!any)
		return NULL;
	const size_t cap = strlen(a) + 3 * items + 1;
	char *const r = malloc(cap);
	if (!r)
		return NULL;
	size_t at = (size_t)snprintf(r, cap, "%.*s", (int)skip, a);
	for (const char *p = a + skip; p;) {
		const size_t n = strcspn(p, ",");
		const char *const pct = strncmp(p, "user=", 5) == 0 ? memchr(p, '%', n) : NULL;
		const size_t keep = strncmp(p, "password=", 9) == 0 ? 9 : pct ? (size_t)(pct - p) + 1 : n;
		at += (size_t)snprintf(r + at, cap - at, "%.*s%s%s", (int)keep, p, keep < n ? "***" : "", p[n] ? "," : "");
		p = p[n] ? p + n + 1 : NULL;
	}
	return r;
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
		size_t skip = 0;
		if ((user || bopt) && i + 1 < pv->p.argc)
			a = av[++i];
		else if (strncmp(a, "--backend-opt=", 14) == 0)
			skip = 14;
		else if (strncmp(a, "-O", 2) == 0)
			skip = 2;
		else if (strncmp(a, "--user=", 7) != 0)
			continue;
		const bool is_user = user || strncmp(av[i], "--user=", 7) == 0;
		if (!is_user) {
			bool secret;
			char *const r = redact_list(a, skip, &secret);
			if (r && k < RP_CLI_REDACT_MAX)
				av[i] = pv->redacted[k++] = r;
			else if (secret)
				av[i] = (char *)"***"; /* never the password, even without memory */
			if (r && av[i] != r)
				free(r);
			continue;
		}
		const char *const secret = strchr(a, '%');
		if (!secret)
			continue;
		const size_t keep = (size_t)(secret - a) + 1;
		const size_t len = keep + 4;
		char *const r = k < RP_CLI_REDACT_MAX ? malloc(len) : NULL;
		if (!r) {
			av[i] = (char *)"***"; /* never the password, even without memory */
			continue;
		}
		snprintf(r, len, "%.*s***", (int)keep, a);
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

/* The target's part of the provenance: its file system and mount, each left null when not found. */
static void target_fs(rp_cli_prov *pv, const char *target)
{
	rp_replay_provenance *const p = &pv->p;
	rp_runenv_fs_get(&pv->tfs, target);
	if (pv->tfs.local) {
		p->target_fs = pv->tfs.fs;
		p->target_fs_magic = pv->tfs.fs_magic;
	}
	if (pv->tfs.mounted) {
		p->target_mount = pv->tfs.mount;
		p->target_mount_opts = pv->tfs.mount_opts;
		p->target_fs_opts = pv->tfs.fs_opts;
	}
}

void rp__cli_prov_target(rp_cli_prov *pv, const char *target)
{
	rp_replay_provenance *const p = &pv->p;
	p->target = target;
	p->target_fs = p->target_fs_magic = p->target_mount = p->target_mount_opts = p->target_fs_opts = NULL;
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
	rp_runenv_host_get(&pv->hostinfo);
	if (pv->hostinfo.have_host)
		p->host = pv->hostinfo.host;
	if (pv->hostinfo.have_kernel)
		p->kernel = pv->hostinfo.kernel;
	p->trace_path = trace;
	p->target = target;
	target_fs(pv, target);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		const double t0 = now_s(CLOCK_MONOTONIC);
		if (rp_runenv_sha256_file(path, pv->sha256) == 0) {
			p->trace_sha256 = pv->sha256;
			p->hash_seconds = now_s(CLOCK_MONOTONIC) - t0;
		}
	}
}

void rp__cli_prov_cpu_begin(rp_cli_prov *pv)
{
	rp_runenv_cpu_begin(&pv->cpu);
}

void rp__cli_prov_cpu_end(rp_cli_prov *pv)
{
	rp_runenv_cpu_end(&pv->cpu, &pv->p.cpu_user_s, &pv->p.cpu_sys_s);
}
