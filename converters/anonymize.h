/*
 * Keyed pseudonymisation of a trace (docs/anonymize.md): a sink filter that
 * takes meta, strings and ops and passes them on with every name component,
 * symlink target, listing pattern and xattr name replaced by an
 * HMAC-SHA256 pseudonym, uid/gid by keyed numbers, setattr times and the
 * capture start made relative, and the header's host and input name removed.
 * Sizes, offsets, times, clients, handles and statuses pass unchanged.
 */
#ifndef REPRISE_CONVERTERS_ANONYMIZE_H
#define REPRISE_CONVERTERS_ANONYMIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/sink.h"

/* Key material: fewer bytes than this is too weak to key HMAC-SHA256 with. */
#define RP_ANON_KEY_MIN 16
/* A key file longer than this is not a key (a wrong file named by mistake). */
#define RP_ANON_KEY_MAX 4096
/* A pseudonym: 12 base32 characters (60 bits of the HMAC). */
#define RP_ANON_NAME_LEN 12
/* --keep-ext keeps an extension of 1 to this many ASCII letters and digits. */
#define RP_ANON_EXT_MAX 5
/* uid and gid pseudonyms lie in [RP_ANON_ID_BASE, 2^31): clear of system and usual user ids. */
#define RP_ANON_ID_BASE 100000u
/* Setattr times are moved so that the capture start lands here (2000-01-01T00:00:00Z, in ns). */
#define RP_ANON_EPOCH_NS (946684800ull * 1000000000ull)

typedef struct rp_anon_opts {
	bool keep_ext; /* keep a file name's extension (".c") after its pseudonym */
} rp_anon_opts;

/* What a run mapped (for the summary). */
typedef struct rp_anon_stats {
	uint64_t ops;
	uint64_t strings_in;   /* strings the input defined */
	uint64_t strings_out;  /* distinct mapped strings the output defines (unused ones are dropped) */
	uint64_t components;   /* distinct name components mapped */
	uint64_t ids;          /* distinct uids and gids mapped */
	uint64_t id_collisions; /* two ids that got the same pseudonymous number (kept; rare) */
	uint64_t times;        /* setattr times moved */
} rp_anon_stats;

typedef struct rp_anon rp_anon;

/*
 * A filter passing into down (not owned).  key: key_len bytes, at least
 * RP_ANON_KEY_MIN.  0 or a negative rp error (detail in errbuf).
 */
int rp_anon_create(rp_anon **out, const void *key, size_t key_len, const rp_anon_opts *opts, rp_sink *down,
		   char *errbuf);
void rp_anon_destroy(rp_anon *a); /* NULL is a no-op */
/* The filter's sink: give it to the producer.  Its finish() finishes down. */
rp_sink *rp_anon_sink(rp_anon *a);
void rp_anon_get_stats(const rp_anon *a, rp_anon_stats *st);

/* What a string of an op is, which says how it is mapped. */
typedef enum rp_anon_role {
	RP_ANON_PATH = 0,    /* a path or symlink target: components between / and \ mapped, . and .. kept */
	RP_ANON_PATTERN = 1, /* a listing pattern: a path whose wildcards * ? < > " are kept */
	RP_ANON_XATTR = 2,   /* an xattr name: user./trusted. prefix kept, system./security. names kept whole */
	RP_ANON__ROLES
} rp_anon_role;

/*
 * s[0..len) mapped in its role into *res (valid until the next call or
 * destroy), *res_len bytes.  The same input gives the same output for one
 * key.  0 or a negative rp error: RP_E_LIMIT when the result would pass
 * RP_STR_MAX, RP_E_EXISTS when two names got one pseudonym (use another key).
 */
int rp_anon_map(rp_anon *a, rp_anon_role role, const char *s, uint32_t len, const char **res, uint32_t *res_len,
		char *errbuf);
/*
 * A uid (gid: is_gid) mapped into *res: 0 (root), 65534 (nobody) and
 * 0xffffffff (no change) are kept.  0 or RP_E_NOMEM.
 */
int rp_anon_id(rp_anon *a, uint32_t id, bool is_gid, uint32_t *res);

/*
 * The mapping so far, for the key's owner (never written into a trace):
 * fn(ctx, kind, original, original_len, pseudonym, pseudonym_len) per
 * name component ("name"), uid ("uid") and gid ("gid"), in order of first
 * use; ids are written in decimal.  Stops at fn's first nonzero return and
 * returns it; 0 when all were given.
 */
typedef int (*rp_anon_map_fn)(void *ctx, const char *kind, const char *orig, uint32_t orig_len, const char *pseu,
			      uint32_t pseu_len);
int rp_anon_each(const rp_anon *a, rp_anon_map_fn fn, void *ctx);

#endif
