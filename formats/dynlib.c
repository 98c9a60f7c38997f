/* dlopen by soname and dlsym of a list of names (formats/dynlib.h). */
#include <dlfcn.h>
#include <stdio.h>

#include "formats/dynlib.h"

int rp_dynlib_open(const char *soname, const char *const *names, void **syms, size_t n, char *why, size_t why_size)
{
	void *const h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, why_size, "cannot load %s: %s", soname, dlerror());
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		syms[i] = dlsym(h, names[i]);
		if (!syms[i]) {
			snprintf(why, why_size, "%s has no %s (too old a version)", soname, names[i]);
			dlclose(h);
			return -1;
		}
	}
	return 0;
}
