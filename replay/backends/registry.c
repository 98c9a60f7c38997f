/* The table of built-in replay backends (from meson options) and --backend-opt parsing. */
#include <stdlib.h>
#include <string.h>

#include "replay/backend.h"

extern const rp_backend_ops rp__backend_posix;
extern const rp_backend_ops rp__backend_null;
extern const rp_backend_ops rp__backend_fault;
#ifdef RP_HAVE_NFS_BACKEND
extern const rp_backend_ops rp__backend_nfs;
#endif
#ifdef RP_HAVE_SMB_BACKEND
extern const rp_backend_ops rp__backend_smb;
#endif

const rp_backend_ops *const rp__backends[] = {
	&rp__backend_posix,
	&rp__backend_null,
	&rp__backend_fault,
#ifdef RP_HAVE_NFS_BACKEND
	&rp__backend_nfs,
#endif
#ifdef RP_HAVE_SMB_BACKEND
	&rp__backend_smb,
#endif
	NULL,
};

const rp_backend_ops *rp_backend_find(const char *name)
{
	for (size_t i = 0; rp__backends[i]; i++)
		if (strcmp(rp__backends[i]->name, name) == 0)
			return rp__backends[i];
	return NULL;
}

const rp_backend_ops *rp_backend_at(size_t i)
{
	for (size_t j = 0; rp__backends[j]; j++)
		if (j == i)
			return rp__backends[j];
	return NULL;
}

int rp_backend_parse_opts(const rp_backend_ops *ops, const char *spec, rp_backend_kv **kv, size_t *n,
			  char **storage, char *errbuf)
{
	*kv = NULL;
	*n = 0;
	*storage = NULL;
	if (!spec || !*spec)
		return 0;
	char *const s = strdup(spec);
	size_t items = 1;
	for (const char *p = spec; *p; p++)
		items += *p == ',';
	rp_backend_kv *const out = calloc(items, sizeof(*out));
	if (!s || !out) {
		free(s);
		free(out);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	size_t k = 0;
	for (char *tok = s, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!*tok)
			continue;
		char *const eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		const rp_backend_opt *o = ops->opts;
		while (o && o->name && strcmp(o->name, tok) != 0)
			o++;
		if (!o || !o->name) {
			rp_fail(errbuf, RP_E_INVAL, "backend %s has no option '%s'", ops->name, tok);
			goto fail;
		}
		if (!o->arg != !eq) {
			rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s' %s", ops->name, tok,
				o->arg ? "needs a value (name=value)" : "takes no value");
			goto fail;
		}
		out[k].key = tok;
		out[k].value = eq ? eq + 1 : NULL;
		k++;
	}
	*kv = out;
	*n = k;
	*storage = s;
	return 0;
fail:
	free(s);
	free(out);
	return RP_E_INVAL;
}
