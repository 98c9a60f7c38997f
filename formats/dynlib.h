/*
 * A library opened when first needed rather than linked (libpcap,
 * libbabeltrace2: each loads a chain of others at every start of reprise
 * otherwise): dlopen by soname and dlsym of a list of names.
 */
#ifndef REPRISE_FORMATS_DYNLIB_H
#define REPRISE_FORMATS_DYNLIB_H

#include <stddef.h>

/*
 * Open soname and look up names[0..n) into syms[0..n).  0, or -1 with the
 * reason (dlerror's text, or the first name missing) in why; on failure the
 * library is closed again.  On success it stays open for the process.
 */
int rp_dynlib_open(const char *soname, const char *const *names, void **syms, size_t n, char *why, size_t why_size);

#endif
