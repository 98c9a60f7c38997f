/* --image's spec: Impressions' defaults by name, or a model file's file set (cli/replay_cli.h, docs/image.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/output.h"
#include "cli/replay_cli.h"
#include "results/model.h"

/* A model file over this is not one: `reprise model` writes kilobytes (the same bound as generate's). */
#define IMAGE_MODEL_FILE_MAX (256u << 20)

/* The whole of path into *buf (NUL-terminated), refused beyond IMAGE_MODEL_FILE_MAX.  0, or 1 after a message. */
static int slurp(const char *cmd, const char *path, char **buf, size_t *len)
{
	FILE *const f = fopen(path, "rb");
	if (!f) {
		rp__cli_err(cmd, "--image %s: %s (a model JSON from reprise model, or impressions)", path, strerror(errno));
		return 1;
	}
	size_t cap = 1u << 16, n = 0;
	char *b = malloc(cap + 1);
	while (b) {
		n += fread(b + n, 1, cap - n, f);
		if (n < cap || ferror(f))
			break;
		if (cap >= IMAGE_MODEL_FILE_MAX) {
			rp__cli_err(cmd, "--image %s: over %u MiB: not a model", path, IMAGE_MODEL_FILE_MAX >> 20);
			free(b);
			fclose(f);
			return 1;
		}
		char *const nb = realloc(b, cap * 2 + 1);
		if (!nb) {
			free(b);
			b = NULL;
			break;
		}
		b = nb;
		cap *= 2;
	}
	const bool bad = !b || ferror(f);
	fclose(f);
	if (bad) {
		rp__cli_err(cmd, "--image %s: %s", path, b ? "read error" : "out of memory");
		free(b);
		return 1;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int rp__cli_image_spec(const char *cmd, const char *what, rp_image_spec *s)
{
	if (strcmp(what, "impressions") == 0) {
		rp_image_spec_impressions(s);
		return 0;
	}
	char *buf = NULL;
	size_t len = 0;
	if (slurp(cmd, what, &buf, &len))
		return 2;
	char err[RP_ERRBUF_SIZE];
	const int rc = rp_model_image_read(buf, len, what, s, err, sizeof(err));
	free(buf);
	if (rc < 0) {
		rp__cli_err(cmd, "--image %s: %s", what, err);
		return 2;
	}
	return 0;
}
