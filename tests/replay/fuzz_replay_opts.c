/* Fuzz target: the text replay takes from users and traces: --backend-opt lists, fault rules, trace paths. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/backend.h"
#include "replay/engine.h"

/* A normalised path is relative, '/'-separated ('\\' is a name character), without empty, "." or ".." components, and fits. */
static void check_path(const char *out, int n, size_t cap)
{
	if ((size_t)n >= cap || strlen(out) != (size_t)n || out[0] == '/')
		abort();
	for (const char *p = out; *p;) {
		const char *const slash = strchr(p, '/');
		const size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			abort();
		p += len + (slash != NULL);
		if (slash && !*p)
			abort(); /* a trailing '/' */
	}
}

/* Every item parsed is an option of the backend's table, with a value exactly when it takes one. */
static void check_opts(const rp_backend_ops *b, const rp_backend_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rp_backend_opt *o = b->opts;
		while (o && o->name && strcmp(o->name, kv[i].key) != 0)
			o++;
		if (!o || !o->name || !o->arg != !kv[i].value)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > UINT32_MAX)
		return 0;
	char out[256];
	const int n = rp_path_norm((const char *)data, (uint32_t)size, out, sizeof(out));
	if (n >= 0)
		check_path(out, n, sizeof(out));
	else if (n != -EXDEV && n != -ENAMETOOLONG && n != -EINVAL)
		abort();

	char *const spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	char errbuf[RP_ERRBUF_SIZE];
	for (size_t i = 0; rp_backend_at(i); i++) {
		const rp_backend_ops *const b = rp_backend_at(i);
		rp_backend_kv *kv;
		size_t nkv;
		char *storage;
		if (rp_backend_parse_opts(b, spec, &kv, &nkv, &storage, errbuf) == 0) {
			check_opts(b, kv, nkv);
			/* null and fault parse their options in create (fault: the rules); posix would open "/". */
			if (strcmp(b->name, "null") == 0 || strcmp(b->name, "fault") == 0) {
				const rp_backend_args args = { .target = "/", .kv = kv, .n_kv = nkv, .n_clients = 1 };
				void *bs = NULL;
				if (b->create(&bs, &args, errbuf) == 0)
					b->destroy(bs);
			}
			free(kv);
			free(storage);
		}
	}
	free(spec);
	return 0;
}
