/* formats/image.h: drawn images against their distributions (KS of sizes, the depth histogram), limits, determinism. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/error.h"
#include "formats/image.h"

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The KS statistic of img's file sizes against the spec's CDF (sizes are whole: P(size <= s) = F(s + 1)). */
static double ks_sizes(const rp_image *img, const rp_image_spec *s)
{
	uint64_t *const v = calloc(img->files, sizeof(*v));
	assert_non_null(v);
	size_t n = 0;
	for (size_t i = 0; i < img->n_items; i++)
		if (!img->items[i].dir)
			v[n++] = img->items[i].size;
	assert_int_equal(n, img->files);
	qsort(v, n, sizeof(*v), cmp_u64);
	double d = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && v[i + 1] == v[i])
			continue; /* the empirical CDF's step is at the last of equal values */
		const double hi = (double)(i + 1) / (double)n - rp_image_size_cdf(s, (double)v[i] + 1);
		size_t first = i;
		while (first > 0 && v[first - 1] == v[i])
			first--;
		const double lo = rp_image_size_cdf(s, (double)v[i]) - (double)first / (double)n;
		d = fmax(d, fmax(fabs(hi), lo));
	}
	free(v);
	return d;
}

static unsigned components(const char *p)
{
	unsigned n = 1;
	for (; *p; p++)
		n += *p == '/';
	return n;
}

static rp_image_opts big_opts(const rp_image_spec *s)
{
	rp_image_opts o;
	rp_image_opts_init(&o);
	o.spec = s;
	o.max_bytes = 1ull << 50;
	o.max_file_size = 1ull << 50; /* no cut: the KS is against the uncut distribution */
	return o;
}

static void impressions_sizes_ks(void **state)
{
	(void)state;
	rp_image_spec s;
	rp_image_spec_impressions(&s);
	const rp_image_opts o = big_opts(&s);
	rp_image img;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), 0);
	assert_int_equal(img.files, 20000);
	assert_int_equal(img.dirs, 4001);
	const double d = ks_sizes(&img, &s), crit = 1.63 / sqrt((double)img.files); /* alpha 0.01 */
	print_message("# impressions sizes: KS D = %.4f (critical %.4f), %llu bytes\n", d, crit,
		      (unsigned long long)img.bytes);
	assert_true(d < crit);
	rp_image_free(&img);
}

static void impressions_depth_histogram(void **state)
{
	(void)state;
	rp_image_spec s;
	rp_image_spec_impressions(&s);
	s.files = 40000;
	s.dirs = 20000; /* a tree deep enough that every depth Poisson(6.49) draws exists */
	const rp_image_opts o = big_opts(&s);
	rp_image img;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), 0);
	uint64_t h[RP_IMAGE_DEPTH_MAX + 2] = { 0 };
	for (size_t i = 0; i < img.n_items; i++)
		if (!img.items[i].dir)
			h[components(img.items[i].path)]++;
	const double n = (double)img.files;
	print_message("# shallow %llu of %llu\n", (unsigned long long)img.shallow, (unsigned long long)img.files);
	assert_true((double)img.shallow < 0.01 * n);
	for (unsigned d = 2; d <= 14; d++) {
		const double p = rp_image_depth_pmf(&s, d), got = (double)h[d] / n;
		print_message("# depth %2u: %.4f drawn, %.4f Poisson\n", d, got, p);
		assert_true(fabs(got - p) < 0.005 + 5 * sqrt(p * (1 - p) / n));
	}
	assert_int_equal(h[0] + h[1], 0); /* never at the target's root, never the image's directory itself */
	rp_image_free(&img);
}

static void model_hist_sizes_and_depths(void **state)
{
	(void)state;
	rp_image_spec s;
	rp_image_spec_impressions(&s);
	s.sizes = RP_IMAGE_SIZES_HIST;
	s.depths = RP_IMAGE_DEPTHS_HIST;
	s.files = 10000;
	s.dirs = 3000;
	s.size_hist[0] = 100;  /* empty files */
	s.size_hist[11] = 500; /* 1 KiB .. 2 KiB */
	s.size_hist[13] = 300;
	s.size_hist[21] = 100; /* 1 MiB .. 2 MiB */
	s.depth_hist[1] = 1;   /* depth 1 */
	s.depth_hist[2] = 3;   /* 2 or 3 */
	s.width_hist[3] = 10;  /* 4 .. 7 names per directory */
	const rp_image_opts o = big_opts(&s);
	rp_image img;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_image_build(&img, &o, "img", eb), 0);
	const double d = ks_sizes(&img, &s);
	print_message("# histogram sizes: KS D = %.4f\n", d);
	assert_true(d < 1.63 / sqrt((double)img.files));
	uint64_t h[RP_IMAGE_DEPTH_MAX + 2] = { 0 };
	for (size_t i = 0; i < img.n_items; i++)
		if (!img.items[i].dir)
			h[components(img.items[i].path)]++;
	/* 1/4 at one component below the image's directory, 3/8 each at two and three */
	assert_true(fabs((double)h[2] / 10000 - 0.25) < 0.02);
	assert_true(fabs((double)h[3] / 10000 - 0.375) < 0.02);
	assert_true(fabs((double)h[4] / 10000 - 0.375) < 0.02);
	assert_true(fabs(rp_image_depth_pmf(&s, 3) - 0.375) < 1e-9);
	rp_image_free(&img);
}

static void same_seed_same_tree(void **state)
{
	(void)state;
	rp_image_spec s;
	rp_image_spec_impressions(&s);
	rp_image_opts o = big_opts(&s);
	o.scale = 0.05;
	rp_image a, b, c;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_image_build(&a, &o, "rp-image", eb), 0);
	assert_int_equal(rp_image_build(&b, &o, "rp-image", eb), 0);
	o.seed = 2;
	assert_int_equal(rp_image_build(&c, &o, "rp-image", eb), 0);
	assert_int_equal(a.n_items, b.n_items);
	assert_int_equal(a.files, 1000);
	assert_int_equal(a.dirs, 201);
	bool differs = false;
	for (size_t i = 0; i < a.n_items; i++) {
		assert_string_equal(a.items[i].path, b.items[i].path);
		assert_int_equal(a.items[i].size, b.items[i].size);
		differs |= i < c.n_items && (strcmp(a.items[i].path, c.items[i].path) != 0 || a.items[i].size != c.items[i].size);
	}
	assert_true(differs);
	/* every entry beneath the root, each directory made before what it holds */
	for (size_t i = 0; i < a.n_items; i++) {
		const char *const p = a.items[i].path;
		assert_true(strncmp(p, "rp-image", 8) == 0 && (p[8] == '\0' || p[8] == '/'));
		if (i == 0)
			continue;
		const char *const slash = strrchr(p, '/');
		bool found = false;
		for (size_t j = 0; j < i && !found; j++)
			found = a.items[j].dir && strlen(a.items[j].path) == (size_t)(slash - p) &&
				strncmp(a.items[j].path, p, (size_t)(slash - p)) == 0;
		assert_true(found);
	}
	rp_image_free(&a);
	rp_image_free(&b);
	rp_image_free(&c);
}

static void limits_refused(void **state)
{
	(void)state;
	rp_image_spec s;
	rp_image_spec_impressions(&s);
	rp_image_opts o;
	rp_image_opts_init(&o);
	o.spec = &s;
	rp_image img;
	char eb[RP_ERRBUF_SIZE];
	/* a billion files: refused before any memory is taken for them */
	s.files = 1000000000;
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "--image-max-files"));
	assert_null(img.items);
	/* a petabyte: refused while drawing, before anything could be written */
	rp_image_spec_impressions(&s);
	s.sizes = RP_IMAGE_SIZES_HIST;
	s.size_hist[51] = 1; /* 1 PiB .. 2 PiB each */
	o.max_file_size = 1ull << 52;
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "--image-max-bytes"));
	assert_null(img.items);
	/* nonsense parameters */
	rp_image_spec_impressions(&s);
	s.sigma = NAN;
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), RP_E_INVAL);
	rp_image_spec_impressions(&s);
	s.lambda = 1e9;
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), RP_E_INVAL);
	rp_image_spec_impressions(&s);
	o.scale = 0;
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), RP_E_RANGE);
	o.scale = 1;
	assert_int_equal(rp_image_build(&img, &o, "a/b", eb), RP_E_INVAL);
}

static void sizes_cut_to_the_file_limit(void **state)
{
	(void)state;
	rp_image_spec s;
	rp_image_spec_impressions(&s);
	rp_image_opts o;
	rp_image_opts_init(&o);
	o.spec = &s;
	o.scale = 0.1;
	o.max_file_size = 4096;
	rp_image img;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_image_build(&img, &o, "rp-image", eb), 0);
	uint64_t at_cap = 0, total = 0;
	for (size_t i = 0; i < img.n_items; i++) {
		assert_true(img.items[i].size <= 4096);
		at_cap += !img.items[i].dir && img.items[i].size == 4096;
		total += img.items[i].size;
	}
	assert_true(img.capped > 0 && img.capped <= at_cap);
	assert_int_equal(total, img.bytes);
	rp_image_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(impressions_sizes_ks),
		cmocka_unit_test(impressions_depth_histogram),
		cmocka_unit_test(model_hist_sizes_and_depths),
		cmocka_unit_test(same_seed_same_tree),
		cmocka_unit_test(limits_refused),
		cmocka_unit_test(sizes_cut_to_the_file_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
