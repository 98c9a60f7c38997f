/* Fuzz target: the text replay takes from users and traces: --backend-opt lists (typed values), fault rules, trace paths. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/backend.h"
#include "replay/client.h"
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

/* A parsed value is one its option's type and bounds allow. */
static void check_value(const rp_backend_kv *v)
{
	const rp_backend_opt *const o = v->opt;
	if ((o->type == RP_BOPT_FLAG) != (v->value == NULL) && v->set)
		abort();
	if ((o->type == RP_BOPT_FLAG || o->type == RP_BOPT_BOOL) && v->u > 1)
		abort();
	if ((o->type == RP_BOPT_UINT || o->type == RP_BOPT_DURATION || o->type == RP_BOPT_SIZE) && v->set &&
	    (v->u < o->min || (o->max && v->u > o->max)))
		abort();
	if (o->type == RP_BOPT_STRING && v->set && !*v->value)
		abort();
}

/* Every item parsed is an entry of the backend's table, and every entry has its effective value. */
static void check_opts(const rp_backend_ops *b, const rp_backend_parsed *p)
{
	size_t n_opts = 0;
	while (b->opts && b->opts[n_opts].name)
		n_opts++;
	if (p->n_vals != n_opts)
		abort();
	for (size_t i = 0; i < p->n_kv; i++) {
		const rp_backend_kv *const kv = &p->kv[i];
		if (kv->opt < b->opts || kv->opt >= b->opts + n_opts || strcmp(kv->key, kv->opt->name) != 0 || !kv->set)
			abort();
		check_value(kv);
	}
	for (size_t i = 0; i < n_opts; i++) {
		if (p->vals[i].opt != &b->opts[i] || (p->vals[i].set && !p->n_kv && !b->opts[i].def))
			abort();
		check_value(&p->vals[i]);
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
		rp_backend_parsed p;
		if (rp_backend_parse_opts(b, spec, &p, errbuf) == 0) {
			check_opts(b, &p);
			/* null and fault read their options in create (fault: the rules); posix would open "/". */
			if (strcmp(b->name, "null") == 0 || strcmp(b->name, "fault") == 0) {
				const rp_backend_args args = { .target = "/", .kv = p.kv, .n_kv = p.n_kv, .vals = p.vals,
							       .n_vals = p.n_vals, .n_clients = 1 };
				void *bs = NULL;
				if (b->create(&bs, &args, errbuf) == 0)
					b->destroy(bs);
			}
			rp_backend_parsed_free(&p);
		} else if (p.kv || p.vals || p.storage) {
			abort(); /* a failed parse leaves nothing to free */
		}
	}
	free(spec);
	return 0;
}
