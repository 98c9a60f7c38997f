/* dlopen by soname and dlsym of a list of names, once per process (formats/dynlib.h). */
#include <dlfcn.h>
#include <stdio.h>

#include "formats/dynlib.h"

static int open_lib(rp_dynlib *d, const char *soname, const char *const *names, size_t n,
		    void (*fill)(void *const *syms))
{
	if (n > RP_DYNLIB_NAMES_MAX) {
		snprintf(d->why, sizeof(d->why), "%s: %zu names, more than %d", soname, n, RP_DYNLIB_NAMES_MAX);
		return -1;
	}
	void *const h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(d->why, sizeof(d->why), "cannot load %s: %s", soname, dlerror());
		return -1;
	}
	void *syms[RP_DYNLIB_NAMES_MAX];
	for (size_t i = 0; i < n; i++)
		if (!(syms[i] = dlsym(h, names[i]))) {
			snprintf(d->why, sizeof(d->why), "%s has no %s (too old a version)", soname, names[i]);
			dlclose(h);
			return -1;
		}
	fill(syms);
	return 1;
}

int rp_dynlib_load(rp_dynlib *d, const char *soname, const char *const *names, size_t n,
		   void (*fill)(void *const *syms), char *errbuf)
{
	pthread_mutex_lock(&d->mu);
	if (d->state == 0)
		d->state = open_lib(d, soname, names, n, fill);
	const int state = d->state;
	pthread_mutex_unlock(&d->mu);
	return state > 0 ? 0 : rp_fail(errbuf, RP_E_UNSUPPORTED, "%s", d->why);
}
