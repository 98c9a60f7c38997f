/* A model's file set as the distributions of an initial image (replay --image MODEL, docs/image.md). */
#include <stdio.h>
#include <string.h>

#include "formats/image.h"
#include "results/model.h"

_Static_assert(RP_IMAGE_BUCKETS == RP_MH_BUCKETS, "an image histogram is a model histogram");

int rp_model_image_spec(const rp_model *m, const char *name, rp_image_spec *s, char *err, size_t errsize)
{
	rp_image_spec_impressions(s); /* the directory shape's offsets: a model has no parent-choice data */
	const rp_model_files *const fs = &m->fs;
	if (fs->files == 0) {
		snprintf(err, errsize, "the model's file set has no files: nothing to draw an image from");
		return -1;
	}
	if (rp_mh_total(&fs->size) == 0 || rp_mh_total(&fs->depth) == 0) {
		snprintf(err, errsize, "the model's file set has no %s histogram", rp_mh_total(&fs->size) ? "depth" : "size");
		return -1;
	}
	s->files = fs->files;
	s->dirs = fs->dirs;
	s->sizes = RP_IMAGE_SIZES_HIST;
	memcpy(s->size_hist, fs->size.n, sizeof(s->size_hist));
	s->depths = RP_IMAGE_DEPTHS_HIST;
	memcpy(s->depth_hist, fs->depth.n, sizeof(s->depth_hist));
	memcpy(s->width_hist, fs->width.n, sizeof(s->width_hist)); /* empty: Impressions' inverse polynomial */
	s->name = name;
	return 0;
}

int rp_model_image_read(const char *buf, size_t len, const char *name, rp_image_spec *s, char *err, size_t errsize)
{
	rp_model m;
	if (rp_model_read_json(&m, buf, len, err, errsize) < 0)
		return -1;
	const int rc = rp_model_image_spec(&m, name, s, err, errsize);
	rp_model_free(&m);
	return rc;
}
