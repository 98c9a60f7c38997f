/* A string table: interns byte strings to dense ids 1, 2, 3, ... */
#ifndef REPRISE_FORMATS_STRTAB_H
#define REPRISE_FORMATS_STRTAB_H

#include <stdint.h>

/* Strings longer than this are corruption in every format we read. */
#define RP_STR_MAX (64u * 1024u)

typedef struct rp_strtab rp_strtab;

rp_strtab *rp_strtab_create(void);
void rp_strtab_destroy(rp_strtab *t); /* NULL is a no-op */

/*
 * Return the id of str (>= 1), adding it if new; *added says which.
 * Returns a negative rp error on allocation failure or a string > RP_STR_MAX.
 */
int64_t rp_strtab_intern(rp_strtab *t, const char *str, uint32_t len, int *added);

/*
 * Append str under the next id without looking it up (readers, whose ids come
 * from the file).  Returns the id or a negative rp error.
 */
int64_t rp_strtab_append(rp_strtab *t, const char *str, uint32_t len);

/* The bytes of id (NUL-terminated for convenience), or NULL if no such id. */
const char *rp_strtab_get(const rp_strtab *t, uint32_t id, uint32_t *len);
uint32_t rp_strtab_count(const rp_strtab *t);
/* Forget every string; ids start at 1 again.  Keeps the memory. */
void rp_strtab_clear(rp_strtab *t);

#endif
