/* `reprise model` and `reprise generate`: a trace's workload as compact histograms per time chunk and
 * client class, and synthetic traces drawn from it (docs/model.md). */
#ifndef REPRISE_RESULTS_MODEL_H
#define REPRISE_RESULTS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/op.h"
#include "formats/rng.h"
#include "formats/sink.h"

/* log2 buckets: 0 holds the value 0, bucket b >= 1 the values [2^(b-1), 2^b). */
#define RP_MH_BUCKETS 65
/* A finer histogram of gaps splits each log2 bucket b >= 1 into RP_MH_SUB equal parts: index b * RP_MH_SUB + part. */
#define RP_MH_SUB 8
#define RP_MH_FINE (RP_MH_BUCKETS * RP_MH_SUB)
/* Exact gaps a class keeps (the most frequent, each at least 1/256 of its gaps and 2 of them; values >= 16 ns). */
#define RP_MH_EXACT_MAX 32

/* Limits: a model read from a file is refused beyond them, a trace's is capped at them (and says so). */
#define RP_MODEL_MAX_CHUNKS 4096      /* the chunk widens so that a trace's span fits */
#define RP_MODEL_MAX_CLASSES RP_OP__COUNT /* a class is the clients sharing a dominant op */
#define RP_MODEL_MAX_CLIENTS 65536    /* clients tracked by the builder; more share the last slot */
#define RP_MODEL_MAX_FILES 1000000    /* paths tracked for the file set */
#define RP_MODEL_MAX_HANDLES 1000000  /* open handles tracked for offsets */
#define RP_MODEL_FIRST_BINS 256       /* equal bins of a chunk for when its clients' first ops start */
#define RP_MODEL_MAX_COUNT (UINT64_C(1) << 40) /* any count in a model file: more is absurd */

typedef struct rp_mhist {
	uint64_t n[RP_MH_BUCKETS];
} rp_mhist;

/* One exact value and how many times it was seen. */
typedef struct rp_mh_exact {
	uint64_t v, n;
} rp_mh_exact;

/* The bucket of v. */
unsigned rp_mh_bucket(uint64_t v);
void rp_mh_add(rp_mhist *h, uint64_t v);
uint64_t rp_mh_total(const rp_mhist *h);
/* The mean of the bucket midpoints (0 for an empty histogram). */
double rp_mh_mean(const rp_mhist *h);

/* rp_rng, the generator's one source of randomness (xoshiro256**): formats/rng.h. */
/* A value drawn from h: a bucket by its count, then uniformly within it; 0 for an empty histogram. */
uint64_t rp_mh_sample(const rp_mhist *h, rp_rng *r);
/* v's index in a fine histogram (RP_MH_FINE counts). */
unsigned rp_mh_fine_index(uint64_t v);
/*
 * A value of log2 bucket b drawn from fine's parts of that bucket (a part by its count, then uniformly in it);
 * ex[0..nex) (ascending values >= 16, each part's exact counts at most the part's count) are exact values inside
 * the parts: a part's count is its exact values' counts, drawn as those values, and the rest, drawn uniformly.
 * False when fine has no value in b (or b is too narrow to split: below 2^4).
 */
bool rp_mh_fine_sample(const uint64_t *fine, const rp_mh_exact *ex, uint32_t nex, unsigned b, rp_rng *r, uint64_t *v);

/* What one class of clients did in one chunk. */
typedef struct rp_model_cell {
	uint32_t clients;                /* clients of the class active in the chunk */
	uint64_t ops[RP_OP__COUNT];      /* op mix */
	uint64_t failed[RP_OP__COUNT];   /* of those, failed (recorded status an error) */
	rp_mhist rsize, wsize;           /* requested lengths */
	rp_mhist seek;                   /* |offset - end of the handle's previous I/O|: 0 is sequential */
	rp_mhist run;                    /* lengths of sequential runs (I/Os in a row at the previous end) */
	rp_mhist gap;                    /* ns between a client's successive op starts */
	rp_mhist think;                  /* ns from a client's op end to its next op's start */
	rp_mhist depth;                  /* the client's ops in flight when one starts (itself included) */
	uint64_t *first; /* clients' first ops: RP_MODEL_FIRST_BINS counts of their offset in the chunk; NULL: none */
} rp_model_cell;

typedef struct rp_model_class {
	char name[32]; /* the dominant op's name */
	uint32_t clients;
	rp_mhist *lat[RP_OP__COUNT]; /* recorded latency per op over the whole trace, ns; NULL when none */
	rp_mhist rexact, wexact;     /* requested lengths that were a power of two (their bucket's low end), whole trace */
	uint64_t *gapfine;           /* the class's gaps over the whole trace, RP_MH_FINE counts; NULL when none */
	rp_mh_exact gapexact[RP_MH_EXACT_MAX]; /* its most frequent exact gaps, ascending values (counted in gapfine too) */
	uint32_t n_gapexact;
} rp_model_class;

/* The file set: the paths the ops named. */
typedef struct rp_model_files {
	uint64_t files, dirs;   /* regular-file paths, directories */
	uint64_t created;       /* files the trace created (the rest existed before it) */
	uint64_t shared;        /* files more than one client touched */
	uint64_t creates;       /* successful opens of a file (not a directory) that created it, every time */
	rp_mhist size;          /* largest extent seen (I/O end, size set or shown) per file */
	rp_mhist depth;         /* path components per file */
	rp_mhist width;         /* entries per parent directory */
} rp_model_files;

typedef struct rp_model {
	uint64_t chunk_ns;
	uint64_t span_ns; /* the last op start; 0: untimed */
	uint64_t n_ops;
	uint32_t n_chunks, n_classes;
	rp_model_class classes[RP_MODEL_MAX_CLASSES];
	rp_model_cell *cells; /* n_chunks * n_classes, chunk-major */
	rp_model_files fs;
	/* what the builder capped (0 when nothing was) */
	uint64_t capped_clients, capped_files, capped_handles;
	bool chunk_widened;
} rp_model;

static inline rp_model_cell *rp_model_cell_at(const rp_model *m, uint32_t chunk, uint32_t cls)
{
	return &m->cells[(size_t)chunk * m->n_classes + cls];
}

void rp_model_free(rp_model *m); /* the cells and histograms; NULL is a no-op */

/*
 * Building a model takes two passes over a trace: the first (a sink from
 * rp_model_builder_pass1) counts each client's ops to classify it and finds
 * the span; the second (rp_model_builder_pass2) fills the cells.  chunk_ns is
 * the chunk asked for (widened to keep at most RP_MODEL_MAX_CHUNKS).
 */
typedef struct rp_model_builder rp_model_builder;
rp_model_builder *rp_model_builder_create(uint64_t chunk_ns);
void rp_model_builder_destroy(rp_model_builder *b); /* NULL is a no-op */
rp_sink *rp_model_builder_pass1(rp_model_builder *b);
/* After pass 1: classes and chunks fixed.  0 or a negative rp error with why in errbuf. */
int rp_model_builder_pass2_begin(rp_model_builder *b, char *errbuf);
rp_sink *rp_model_builder_pass2(rp_model_builder *b);
/* After pass 2: the model (moved into *m, the builder emptied). */
int rp_model_builder_finish(rp_model_builder *b, rp_model *m, char *errbuf);

/* The model as compact JSON (docs/model.md).  0, or -1 with why in err. */
int rp_model_write_json(const rp_model *m, FILE *f, char *err, size_t errsize);
/* A model from JSON bytes, every field checked against the limits above.  0, or -1 with why in err. */
int rp_model_read_json(rp_model *m, const char *buf, size_t len, char *err, size_t errsize);

typedef struct rp_gen_opts {
	uint32_t clients;     /* 0: the model's */
	uint64_t duration_ns; /* 0: the model's span (its chunks once) */
	uint64_t seed;
	const char *name;     /* the trace's source name */
} rp_gen_opts;

/* What generation did besides following the model. */
typedef struct rp_gen_stats {
	uint64_t ops;
	uint64_t added_opens, added_closes; /* opens an I/O needed, closes at the end or at the handle cap */
	uint64_t dropped;                   /* ops with nothing to act on (an rmdir with no dir made) */
	uint64_t unsupported;               /* ops of kinds the generator does not make (docs/model.md) */
	uint32_t clients, chunks;
	uint64_t files;                     /* files of the initial set */
} rp_gen_stats;

/* Generate a trace from m into sink (meta, strings, ops, finish).  0 or a negative rp error with why in errbuf. */
int rp_model_generate(const rp_model *m, const rp_gen_opts *o, rp_sink *sink, rp_gen_stats *st, char *errbuf);

/*
 * The model's file set as an image's distributions (formats/image.h): its
 * files and directories counted, sizes, depths and names per directory as
 * its histograms; name (the model's file, kept by pointer) for the summary.
 * 0, or -1 with why in err (no files, an empty histogram).
 */
struct rp_image_spec;
int rp_model_image_spec(const rp_model *m, const char *name, struct rp_image_spec *s, char *err, size_t errsize);
/* The same from a model's JSON bytes (rp_model_read_json's checks first). */
int rp_model_image_read(const char *buf, size_t len, const char *name, struct rp_image_spec *s, char *err, size_t errsize);

#endif
