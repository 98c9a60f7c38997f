/* A realistic initial image: files and directories drawn from Impressions' distributions (Agrawal et al., FAST'09)
 * or a model's file set, deterministic for a seed (docs/image.md). */
#include "formats/image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "formats/rng.h"

void rp_image_spec_impressions(rp_image_spec *s)
{
	memset(s, 0, sizeof(*s));
	/* The image's size is reprise's choice (docs/image.md); the shapes are Impressions' Table 2 defaults. */
	s->files = 20000;
	s->dirs = 4000;
	s->sizes = RP_IMAGE_SIZES_HYBRID;
	s->body = 0.99994;
	s->mu = 9.48;
	s->sigma = 2.46;
	s->pareto_k = 0.91;
	s->pareto_xm = 512.0 * 1024 * 1024;
	s->depths = RP_IMAGE_DEPTHS_POISSON;
	s->lambda = 6.49;
	s->width_offset = 2.36;
	/* a new directory's parent in proportion to its subdirectories + 2 (Agrawal et al., FAST'07's generative model) */
	s->subdir_offset = 2;
	s->name = "impressions";
}

void rp_image_opts_init(rp_image_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->scale = 1;
	o->seed = 1;
	o->max_files = RP_IMAGE_FILES_DEFAULT;
	o->max_bytes = RP_IMAGE_BYTES_DEFAULT;
	o->max_file_size = RP_IMAGE_FILE_SIZE_DEFAULT;
}

/* ---- Randomness: formats/rng.h ---- */

typedef rp_rng rng;

/* Uniform in (0, 1): never 0 or 1, so logs and divisions by it are finite. */
static double rng_u01(rng *r)
{
	return ((double)(rp_rng_next(r) >> 11) + 0.5) * 0x1p-53;
}

static double rng_normal(rng *r)
{
	return sqrt(-2 * log(rng_u01(r))) * cos(6.283185307179586 * rng_u01(r));
}

/* ---- The distributions ---- */

static uint64_t hist_total(const uint64_t *h)
{
	uint64_t t = 0;
	for (unsigned b = 0; b < RP_IMAGE_BUCKETS; b++)
		t += h[b];
	return t;
}

/* A value from a log2 histogram: a bucket by its count, then uniformly within [2^(b-1), 2^b). */
static uint64_t hist_draw(const uint64_t *h, uint64_t total, rng *r)
{
	uint64_t x = rp_rng_below(r, total);
	unsigned b = 0;
	for (; b < RP_IMAGE_BUCKETS - 1 && x >= h[b]; b++)
		x -= h[b];
	if (b == 0)
		return 0;
	const uint64_t lo = 1ull << (b - 1);
	return lo + rp_rng_below(r, b == 64 ? UINT64_MAX - lo : lo);
}

static double hist_cdf(const uint64_t *h, double x)
{
	const uint64_t total = hist_total(h);
	if (!total || x <= 0)
		return 0;
	double below = (double)h[0]; /* values are whole: P(v < x) for x > 0 counts the zeros */
	for (unsigned b = 1; b < RP_IMAGE_BUCKETS; b++) {
		const double lo = ldexp(1, (int)b - 1), hi = ldexp(1, (int)b);
		if (x >= hi)
			below += (double)h[b];
		else if (x > lo)
			below += (double)h[b] * (x - lo) / (hi - lo);
	}
	return below / (double)total;
}

double rp_image_size_cdf(const rp_image_spec *s, double x)
{
	if (s->sizes == RP_IMAGE_SIZES_HIST)
		return hist_cdf(s->size_hist, x);
	if (x <= 0)
		return 0;
	const double body = s->body * 0.5 * erfc(-(log(x) - s->mu) / (s->sigma * sqrt(2)));
	const double tail = x < s->pareto_xm ? 0 : 1 - pow(s->pareto_xm / x, s->pareto_k);
	return body + (1 - s->body) * tail;
}

static double size_draw(const rp_image_spec *s, uint64_t total, rng *r)
{
	if (s->sizes == RP_IMAGE_SIZES_HIST)
		return (double)hist_draw(s->size_hist, total, r);
	if (rng_u01(r) < s->body)
		return exp(s->mu + s->sigma * rng_normal(r));
	return s->pareto_xm / pow(rng_u01(r), 1 / s->pareto_k);
}

/* Components below the image's directory, 1 (in it) to RP_IMAGE_DEPTH_MAX - 1. */
static unsigned clamp_depth(double k)
{
	return k < 1 ? 1 : k > RP_IMAGE_DEPTH_MAX - 1 ? RP_IMAGE_DEPTH_MAX - 1 : (unsigned)k;
}

static double poisson_pmf(double lambda, unsigned k)
{
	return exp(-lambda + k * log(lambda) - lgamma(k + 1.0));
}

double rp_image_depth_pmf(const rp_image_spec *s, unsigned d)
{
	if (d < 2 || d > RP_IMAGE_DEPTH_MAX)
		return 0;
	const unsigned k = d - 1; /* below the image's directory */
	double p = 0;
	if (s->depths == RP_IMAGE_DEPTHS_POISSON) {
		p = poisson_pmf(s->lambda, k) + (k == 1 ? poisson_pmf(s->lambda, 0) : 0);
		if (k == RP_IMAGE_DEPTH_MAX - 1) /* the clamped tail */
			for (unsigned j = k + 1; j < 400; j++)
				p += poisson_pmf(s->lambda, j);
		return p;
	}
	/* drawn values are whole and clamped to [1, RP_IMAGE_DEPTH_MAX - 1]: P(v < k + 1) - P(v < k) */
	const double below = k == 1 ? 0 : hist_cdf(s->depth_hist, k);
	const double upto = k == RP_IMAGE_DEPTH_MAX - 1 ? 1 : hist_cdf(s->depth_hist, (double)k + 1);
	return upto - below;
}

static unsigned depth_draw(const rp_image_spec *s, uint64_t total, rng *r)
{
	if (s->depths == RP_IMAGE_DEPTHS_HIST)
		return clamp_depth((double)hist_draw(s->depth_hist, total, r));
	/* inversion: lambda is at most 64, so the loop ends within a few hundred steps */
	const double u = rng_u01(r);
	double p = exp(-s->lambda), c = p;
	unsigned k = 0;
	while (u > c && k < 400) {
		k++;
		p *= s->lambda / k;
		c += p;
	}
	return clamp_depth(k);
}

/* ---- Checking a spec ---- */

static bool finite_pos(double x)
{
	return isfinite(x) && x > 0;
}

static int check_spec(const rp_image_spec *s, char *errbuf)
{
	if (s->sizes == RP_IMAGE_SIZES_HYBRID) {
		if (!(s->body >= 0 && s->body <= 1) || !isfinite(s->mu) || fabs(s->mu) > 64 || !finite_pos(s->sigma) ||
		    s->sigma > 16 || !finite_pos(s->pareto_k) || s->pareto_k < 0.05 || !finite_pos(s->pareto_xm))
			return rp_fail(errbuf, RP_E_INVAL, "image: the size distribution's parameters are out of range");
	} else if (s->files && !hist_total(s->size_hist)) {
		return rp_fail(errbuf, RP_E_INVAL, "image: the size histogram is empty");
	}
	if (s->depths == RP_IMAGE_DEPTHS_POISSON ? !(finite_pos(s->lambda) && s->lambda <= 64)
						 : s->files && !hist_total(s->depth_hist))
		return rp_fail(errbuf, RP_E_INVAL, "image: the depth distribution is empty or out of range");
	if (!finite_pos(s->width_offset) || s->width_offset > 1e6 || !finite_pos(s->subdir_offset) || s->subdir_offset > 1e6)
		return rp_fail(errbuf, RP_E_INVAL, "image: the directory shape's offsets are out of range");
	return 0;
}

/* ---- Drawing the tree ---- */

typedef struct dnode {
	uint64_t parent;
	uint32_t subdirs;
	uint8_t depth; /* components from the target's root: the image's directory is 1 */
	double w;      /* its share of the files at its depth */
	char *path;
} dnode;

/* A new directory's parent, in proportion to its subdirectories + offset, never at the deepest level. */
static uint64_t pick_parent(const dnode *d, uint64_t n, double off, rng *r)
{
	for (int tries = 0; tries < 16; tries++) {
		const double x = rng_u01(r) * ((double)(n - 1) + off * (double)n);
		uint64_t p;
		if (x < off * (double)n) {
			p = (uint64_t)(x / off);
		} else {
			const uint64_t child = 1 + (uint64_t)(x - off * (double)n); /* one vote per existing subdirectory */
			p = d[child < n ? child : n - 1].parent;
		}
		if (p >= n)
			p = n - 1;
		if (d[p].depth < RP_IMAGE_DEPTH_MAX - 1)
			return p;
	}
	return 0;
}

static double width_draw(const rp_image_spec *s, uint64_t total, rng *r)
{
	if (total)
		return (double)hist_draw(s->width_hist, total, r) + 1;
	/* P(W > w) = offset / w for w >= offset: files per directory fall as (n + offset)^-2 */
	const double w = s->width_offset / rng_u01(r);
	return w < 1e12 ? w : 1e12;
}

static char *join(const char *dir, char kind, uint64_t n)
{
	const size_t len = strlen(dir) + 24;
	char *const p = malloc(len);
	if (p)
		snprintf(p, len, "%s/%c%llu", dir, kind, (unsigned long long)n);
	return p;
}

/* Scaled count c * scale, rounded; false when over max. */
static bool scaled(uint64_t c, double scale, uint64_t max, uint64_t *out)
{
	const double x = nearbyint((double)c * scale);
	if (!(x <= (double)max))
		return false;
	*out = (uint64_t)x;
	return true;
}

int rp_image_build(rp_image *img, const rp_image_opts *o, const char *root, char *errbuf)
{
	memset(img, 0, sizeof(*img));
	const rp_image_spec *const s = o->spec;
	if (!s || !root || !root[0] || strchr(root, '/') || strlen(root) >= sizeof(img->root))
		return rp_fail(errbuf, RP_E_INVAL, "image: no spec or a bad root name");
	if (!(o->scale > 0 && o->scale <= 1e6))
		return rp_fail(errbuf, RP_E_RANGE, "image: the scale %g is out of range (above 0, at most 1e6)", o->scale);
	int rc = check_spec(s, errbuf);
	if (rc < 0)
		return rc;
	uint64_t nf = 0, nd = 0;
	const uint64_t max = o->max_files < RP_IMAGE_FILES_HARD ? o->max_files : RP_IMAGE_FILES_HARD;
	if (!scaled(s->files, o->scale, max, &nf) || !scaled(s->dirs, o->scale, max - nf, &nd))
		return rp_fail(errbuf, RP_E_LIMIT,
			       "image: %s asks for %.0f files and %.0f directories, over the limit of %llu in all "
			       "(--image-max-files)", s->name ? s->name : "the spec", (double)s->files * o->scale,
			       (double)s->dirs * o->scale, (unsigned long long)max);
	snprintf(img->root, sizeof(img->root), "%s", root);
	rng r;
	rp_rng_seed(&r, o->seed);
	const uint64_t ndirs = nd + 1;
	dnode *const d = calloc(ndirs, sizeof(*d));
	uint64_t *const order = calloc(ndirs, sizeof(*order));
	double *const cum = calloc(ndirs, sizeof(*cum));
	img->items = calloc(ndirs + nf, sizeof(*img->items));
	if (!d || !order || !cum || !img->items)
		goto nomem;
	d[0].depth = 1;
	if (!(d[0].path = strdup(root)))
		goto nomem;
	const uint64_t wtotal = hist_total(s->width_hist);
	d[0].w = width_draw(s, wtotal, &r);
	for (uint64_t i = 1; i < ndirs; i++) {
		const uint64_t p = pick_parent(d, i, s->subdir_offset, &r);
		d[i].parent = p;
		d[i].depth = (uint8_t)(d[p].depth + 1);
		d[p].subdirs++;
		d[i].w = width_draw(s, wtotal, &r);
		if (!(d[i].path = join(d[p].path, 'd', i)))
			goto nomem;
	}
	/* The directories by depth, each depth's weights summed: a file's directory is a binary search away. */
	uint64_t first[RP_IMAGE_DEPTH_MAX + 1] = { 0 }, count[RP_IMAGE_DEPTH_MAX + 1] = { 0 };
	for (uint64_t i = 0; i < ndirs; i++)
		count[d[i].depth]++;
	for (unsigned k = 1; k <= RP_IMAGE_DEPTH_MAX; k++)
		first[k] = first[k - 1] + count[k - 1];
	uint64_t at[RP_IMAGE_DEPTH_MAX + 1];
	memcpy(at, first, sizeof(at));
	for (uint64_t i = 0; i < ndirs; i++)
		order[at[d[i].depth]++] = i;
	for (unsigned k = 1; k <= RP_IMAGE_DEPTH_MAX; k++) {
		double c = 0;
		for (uint64_t j = first[k]; j < first[k] + count[k]; j++)
			cum[j] = (c += d[order[j]].w);
	}
	for (uint64_t i = 0; i < ndirs; i++) {
		img->items[img->n_items++] = (rp_plan_item){ .path = d[i].path, .dir = true };
		d[i].path = NULL; /* the item's now */
	}
	img->dirs = ndirs;
	const uint64_t stotal = hist_total(s->size_hist), dtotal = hist_total(s->depth_hist);
	for (uint64_t f = 0; f < nf; f++) {
		const unsigned want = depth_draw(s, dtotal, &r); /* below the image's directory: its parent is at want */
		unsigned k = want;
		while (k > 1 && !count[k])
			k--;
		img->shallow += k != want;
		const double x = rng_u01(&r) * cum[first[k] + count[k] - 1];
		uint64_t lo = first[k], hi = first[k] + count[k] - 1;
		while (lo < hi) {
			const uint64_t mid = lo + (hi - lo) / 2;
			if (cum[mid] <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
		const double sz = size_draw(s, stotal, &r);
		uint64_t size = sz >= (double)o->max_file_size ? o->max_file_size : (uint64_t)sz;
		img->capped += sz > (double)o->max_file_size;
		if (size > o->max_bytes - img->bytes) {
			rc = rp_fail(errbuf, RP_E_LIMIT,
				     "image: %s draws more than %llu bytes by its file %llu of %llu (--image-max-bytes)",
				     s->name ? s->name : "the spec", (unsigned long long)o->max_bytes,
				     (unsigned long long)f + 1, (unsigned long long)nf);
			goto fail;
		}
		img->bytes += size;
		const char *const dir = img->items[order[lo]].path;
		rp_plan_item *const it = &img->items[img->n_items];
		if (!(it->path = join(dir, 'f', f + 1)))
			goto nomem;
		it->size = size;
		img->n_items++;
		img->files++;
	}
	rc = 0;
	goto done;
nomem:
	rc = rp_fail(errbuf, RP_E_NOMEM, "image: out of memory for %llu files and %llu directories",
		     (unsigned long long)nf, (unsigned long long)nd);
fail:
	rp_image_free(img);
done:
	if (d)
		for (uint64_t i = 0; i < ndirs; i++)
			free(d[i].path);
	free(d);
	free(order);
	free(cum);
	return rc;
}

void rp_image_free(rp_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->n_items; i++)
		free(img->items[i].path);
	free(img->items);
	memset(img, 0, sizeof(*img));
}
