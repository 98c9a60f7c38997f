/* Where the interposer libraries are: $REPRISE_PRELOAD_LIB, beside the running binary in the build tree, or installed. */
#include "capture/session.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int rp_capture_find_lib(const char *name, const char *install_dir, char *buf, size_t size)
{
	if (size < PATH_MAX)
		return -1; /* realpath writes up to PATH_MAX bytes */
	const char *const env = getenv("REPRISE_PRELOAD_LIB");
	if (env && *env && strstr(name, "lttng") == NULL) {
		if (!is_file(env) || !realpath(env, buf))
			return -1;
		return 0;
	}
	char exe[PATH_MAX];
	const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *const slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			char cand[PATH_MAX + 64];
			snprintf(cand, sizeof(cand), "%s/../capture/preload/%s", exe, name);
			if (is_file(cand) && realpath(cand, buf))
				return 0;
			snprintf(cand, sizeof(cand), "%s/../capture/lttng/%s", exe, name);
			if (is_file(cand) && realpath(cand, buf))
				return 0;
		}
	}
	char cand[PATH_MAX];
	snprintf(cand, sizeof(cand), "%s/%s", install_dir, name);
	if (is_file(cand) && (size_t)snprintf(buf, size, "%s", cand) < size)
		return 0;
	return -1;
}
