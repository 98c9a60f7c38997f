/*
 * A library opened when first needed rather than linked (libpcap,
 * libbabeltrace2: each loads a chain of others at every start of reprise
 * otherwise): dlopen by soname, dlsym of a list of names, once per process.
 */
#ifndef REPRISE_FORMATS_DYNLIB_H
#define REPRISE_FORMATS_DYNLIB_H

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "formats/error.h"

/* One such library's state: a static of its loader's (the library it stands for is process-wide). */
typedef struct rp_dynlib {
	pthread_mutex_t mu;
	int state; /* 0: not tried yet, 1: loaded, -1: failed (why says why) */
	char why[RP_ERRBUF_SIZE];
} rp_dynlib;
#define RP_DYNLIB_INIT { PTHREAD_MUTEX_INITIALIZER, 0, "" }

/*
 * The first call opens soname, looks up names[0..n) and hands the n
 * addresses to fill (the caller's typed table), under d's lock; later calls
 * return what the first did.  0, or RP_E_UNSUPPORTED with the reason
 * (dlerror's text, or the first name missing: the library is closed again).
 */
int rp_dynlib_load(rp_dynlib *d, const char *soname, const char *const *names, size_t n,
		   void (*fill)(void *const *syms), char *errbuf);

/* Names at most, so the addresses fit a stack array. */
#define RP_DYNLIB_NAMES_MAX 128

/*
 * The typed side.  A library's API is an X-macro list of the functions used,
 * FUNCS(X, T) expanding X(T, name) for each; its table is a struct with one
 * member per name, declared with RP_DYNLIB_FIELD (the type of each is the
 * header's own declaration, by __typeof__).  RP_DYNLIB_DEFINE, in one .c
 * file, defines the table TABLE of type TYPE and `int LOAD(char *errbuf)`,
 * which opens SONAME once and fills TABLE (each address copied into its
 * typed pointer by memcpy, which ISO C allows where a cast is not).
 */
#define RP_DYNLIB_FIELD(T, f) __typeof__(f) *f;
#define RP_DYNLIB_NAME_(T, f) #f,
#define RP_DYNLIB_SET_(T, f) memcpy(&(T).f, &syms[i++], sizeof(syms[0]));
#define RP_DYNLIB_DEFINE(TYPE, TABLE, FUNCS, SONAME, LOAD)                                                    \
	TYPE TABLE;                                                                                           \
	static const char *const TABLE##_names_[] = { FUNCS(RP_DYNLIB_NAME_, TABLE) };                        \
	static void TABLE##_fill_(void *const *syms)                                                          \
	{                                                                                                     \
		size_t i = 0;                                                                                 \
		FUNCS(RP_DYNLIB_SET_, TABLE)                                                                  \
	}                                                                                                     \
	int LOAD(char *errbuf)                                                                                \
	{                                                                                                     \
		static rp_dynlib lib = RP_DYNLIB_INIT;                                                        \
		return rp_dynlib_load(&lib, SONAME, TABLE##_names_, sizeof(TABLE##_names_) / sizeof(TABLE##_names_[0]), \
				      TABLE##_fill_, errbuf);                                                 \
	}

#endif
