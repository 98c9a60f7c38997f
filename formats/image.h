/*
 * A realistic initial image (replay --image, docs/image.md): the files and
 * directories a file system would hold beside what a trace touches, drawn
 * from size, depth and directory-width distributions, either Impressions'
 * published defaults (Agrawal et al., FAST'09) or a `reprise model` file set.
 * Deterministic for a seed; every size bounded by rp_image_opts' limits.
 */
#ifndef REPRISE_FORMATS_IMAGE_H
#define REPRISE_FORMATS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/plan.h"

/* log2 buckets as the model's (results/model.h): 0 holds 0, bucket b >= 1 holds [2^(b-1), 2^b). */
#define RP_IMAGE_BUCKETS 65
/* Path components of an image file from the target's root, the image's own directory included. */
#define RP_IMAGE_DEPTH_MAX 24

/* Defaults of the limits (replay --image-max-files, --image-max-bytes, --image-max-file-size). */
#define RP_IMAGE_FILES_DEFAULT 1000000u
#define RP_IMAGE_BYTES_DEFAULT (16ull << 30)
#define RP_IMAGE_FILE_SIZE_DEFAULT (1ull << 30)
/* What the limits themselves may be raised to: past them, memory for the plan (paths) is what runs out. */
#define RP_IMAGE_FILES_HARD 100000000u
#define RP_IMAGE_DIRS_HARD 100000000u

typedef enum rp_image_sizes {
	RP_IMAGE_SIZES_HYBRID = 0, /* lognormal body, Pareto tail (Impressions) */
	RP_IMAGE_SIZES_HIST = 1,   /* a log2 histogram (a model's) */
} rp_image_sizes;

typedef enum rp_image_depths {
	RP_IMAGE_DEPTHS_POISSON = 0, /* Poisson(lambda) components below the image's directory (Impressions) */
	RP_IMAGE_DEPTHS_HIST = 1,    /* a log2 histogram of path components (a model's) */
} rp_image_depths;

/* The distributions an image is drawn from. */
typedef struct rp_image_spec {
	uint64_t files, dirs;   /* before --image-scale; dirs excludes the image's own directory */
	rp_image_sizes sizes;
	double body;            /* hybrid: the share of files in the lognormal body */
	double mu, sigma;       /* hybrid: the body's ln-size mean and deviation */
	double pareto_k, pareto_xm; /* hybrid: the tail's shape and its minimum, bytes */
	uint64_t size_hist[RP_IMAGE_BUCKETS];
	rp_image_depths depths;
	double lambda;          /* Poisson */
	uint64_t depth_hist[RP_IMAGE_BUCKETS];
	/*
	 * Files per directory: each directory draws a weight, files go to the
	 * directories of their depth in proportion.  width_hist empty: the
	 * inverse polynomial of degree 2 with this offset (Impressions), else
	 * weights drawn from the histogram (a model's names per directory).
	 */
	double width_offset;
	uint64_t width_hist[RP_IMAGE_BUCKETS];
	double subdir_offset;   /* a new directory's parent: chosen in proportion to its subdirectories + this */
	const char *name;       /* where it came from ("impressions", a model's file name) for the summary */
} rp_image_spec;

/* Impressions' defaults, for an image of 20,000 files in 4,000 directories (docs/image.md). */
void rp_image_spec_impressions(rp_image_spec *s);

typedef struct rp_image_opts {
	const rp_image_spec *spec;
	double scale;            /* files and dirs multiplied by this (--image-scale), > 0 */
	uint64_t seed;
	uint64_t max_files;      /* files + dirs after scaling over this: refused */
	uint64_t max_bytes;      /* the drawn total over this: refused, before anything is written */
	uint64_t max_file_size;  /* a drawn size above this is cut to it (and counted) */
} rp_image_opts;

/* The defaults: scale 1, seed 1, the limits' defaults above; spec NULL. */
void rp_image_opts_init(rp_image_opts *o);

/* A drawn image: directories before what they hold, paths beneath root. */
typedef struct rp_image {
	rp_plan_item *items;
	size_t n_items;
	uint64_t files, dirs, bytes; /* dirs includes root */
	uint64_t capped;             /* sizes cut to max_file_size */
	uint64_t shallow;            /* files put less deep than drawn: no directory that deep */
	char root[32];
} rp_image;

/*
 * Draw the image beneath root (one path component, made by the caller to be
 * unused) into *img.  0, or a negative rp error with why in errbuf:
 * RP_E_LIMIT for a count or total over the limits, RP_E_INVAL for a spec
 * that does not make sense (negative, NaN, an empty histogram).
 */
int rp_image_build(rp_image *img, const rp_image_opts *o, const char *root, char *errbuf);
void rp_image_free(rp_image *img); /* and leave it empty; NULL is a no-op */

/* The spec's file-size CDF at x bytes, before the cap (tests: the KS statistic). */
double rp_image_size_cdf(const rp_image_spec *s, double x);
/* The share of files drawn at depth d (components from the target's root), before directories shape it. */
double rp_image_depth_pmf(const rp_image_spec *s, unsigned d);

#endif
