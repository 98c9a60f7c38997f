/*
 * The table of built-in replay backends (from meson options), the check of a
 * backend's vtable, the choice of a backend by the target's URL scheme, and
 * --backend-opt parsing against a backend's typed option table (its values
 * one by one: bopt_value.c).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * The backends a build may be without, by the scheme each would serve, so a
 * target naming one says what is missing rather than "unknown scheme".  A
 * built one declares its scheme itself and is found first.
 */
static const struct {
	const char *scheme, *backend, *needs;
} optional_backends[] = {
	{ "nfs", "nfs", "libnfs" },
	{ "smb", "smb", "libsmbclient" },
};

/*
 * Backends built as loadable modules: a backend whose library is costly to
 * load lives in a shared module of its own, opened when a run asks for it,
 * so that every other command starts without it (libsmbclient and its
 * hundred Samba libraries cost some 65 ms of CPU at each start here).
 */
typedef struct module_backend {
	const char *name, *scheme, *file, *symbol;
} module_backend;

static const module_backend modules[] = {
#ifdef RP_HAVE_SMB_MODULE
	{ "smb", "smb", "reprise-backend-smb.so", "rp__backend_smb" },
#endif
	{ NULL, NULL, NULL, NULL },
};
#define N_MODULES (sizeof(modules) / sizeof(modules[0]) - 1)

/*
 * The vtables of modules loaded so far: a process-wide cache, as dlopen's
 * own table is (a module, once open, stays open: its vtable may be in use).
 * Two threads loading the same module at once both get the same handle
 * from dlopen, so the race is harmless.
 */
static _Atomic(const rp_backend_ops *) loaded[N_MODULES + 1];

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int rp__backend_module_path(const char *file, char *buf, size_t cap)
{
	const char *const env = getenv("REPRISE_MODULE_DIR");
	if (env && *env)
		return (size_t)snprintf(buf, cap, "%s/%s", env, file) < cap ? 0 : -1;
	/* the build tree: cli/reprise, tests/x/y -> replay/ */
	char exe[PATH_MAX];
	const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 2; up++) {
			char *const slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = '\0';
			if ((size_t)snprintf(buf, cap, "%s/replay/%s", exe, file) < cap && is_file(buf))
				return 0;
		}
	}
	return (size_t)snprintf(buf, cap, "%s/%s", REPRISE_MODULE_DIR_DEFAULT, file) < cap ? 0 : -1;
}

int rp__backend_module_open(const char *path, const char *symbol, const rp_backend_ops **out, char *errbuf)
{
	*out = NULL;
	void *const h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "cannot load %s: %s", path, dlerror());
	const rp_backend_ops *const ops = dlsym(h, symbol);
	if (!ops) {
		const int rc = rp_fail(errbuf, RP_E_UNSUPPORTED, "%s has no %s: not a reprise backend module", path, symbol);
		dlclose(h);
		return rc;
	}
	*out = ops; /* never closed: see loaded[] */
	return 0;
}

/* Module i's vtable, loaded on first use; NULL with the reason in errbuf. */
static const rp_backend_ops *module_load(size_t i, char *errbuf)
{
	const rp_backend_ops *ops = atomic_load(&loaded[i]);
	if (ops)
		return ops;
	char path[PATH_MAX + 64];
	if (rp__backend_module_path(modules[i].file, path, sizeof(path)) < 0) {
		rp_fail(errbuf, RP_E_RANGE, "%s: module path too long", modules[i].file);
		return NULL;
	}
	if (rp__backend_module_open(path, modules[i].symbol, &ops, errbuf) < 0)
		return NULL;
	if (strcmp(ops->name, modules[i].name) != 0) {
		rp_fail(errbuf, RP_E_VERSION, "%s: backend '%s' where '%s' was expected", path, ops->name, modules[i].name);
		return NULL;
	}
	atomic_store(&loaded[i], ops);
	return ops;
}

const rp_backend_ops *rp_backend_find(const char *name)
{
	for (size_t i = 0; rp__backends[i]; i++)
		if (strcmp(rp__backends[i]->name, name) == 0)
			return rp__backends[i];
	char eb[RP_ERRBUF_SIZE];
	for (size_t i = 0; modules[i].name; i++)
		if (strcmp(modules[i].name, name) == 0)
			return module_load(i, eb);
	return NULL;
}

int rp_backend_find_module(const char *name, const rp_backend_ops **out, char *errbuf)
{
	*out = NULL;
	for (size_t i = 0; modules[i].name; i++)
		if (strcmp(modules[i].name, name) == 0)
			return (*out = module_load(i, errbuf)) ? 0 : RP_E_UNSUPPORTED;
	return rp_fail(errbuf, RP_E_UNSUPPORTED, "no backend module '%s' in this build", name);
}

const rp_backend_ops *rp_backend_at(size_t i)
{
	size_t j = 0;
	for (; rp__backends[j]; j++)
		if (j == i)
			return rp__backends[j];
	/* then the modules that load (one that does not is left out of listings; choosing it says why) */
	char eb[RP_ERRBUF_SIZE];
	for (size_t m = 0; modules[m].name; m++) {
		const rp_backend_ops *const ops = module_load(m, eb);
		if (ops && j++ == i)
			return ops;
	}
	return NULL;
}

/* ---- Schemes ----------------------------------------------------------------------------- */

/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ); n characters of s. */
static bool scheme_syntax(const char *s, size_t n)
{
	if (n == 0 || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

/*
 * The scheme of target, lower-cased into buf: what comes before "://" when it
 * is a scheme; "" for a plain path ("./a://b" is a path: '/' is no scheme
 * character).  False when the scheme does not fit buf.
 */
static bool target_scheme(const char *target, char *buf, size_t cap)
{
	buf[0] = '\0';
	const char *const sep = strstr(target, "://");
	if (!sep || !scheme_syntax(target, (size_t)(sep - target)))
		return true;
	const size_t n = (size_t)(sep - target);
	if (n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)target[i]);
	buf[n] = '\0';
	return true;
}

static bool declares(const rp_backend_ops *ops, const char *scheme)
{
	for (const char *const *s = ops->schemes; s && *s; s++)
		if (strcmp(*s, scheme) == 0)
			return true;
	return false;
}

bool rp_backend_serves(const rp_backend_ops *ops, const char *target)
{
	char scheme[64];
	if (!ops->schemes)
		return true;
	return target_scheme(target, scheme, sizeof(scheme)) && declares(ops, scheme);
}

/* "file://, nfs://, a directory path": the schemes the built-in backends declare. */
static void known_schemes(char *buf, size_t cap)
{
	size_t len = 0;
	bool bare = false;
	buf[0] = '\0';
	for (size_t i = 0; rp__backends[i]; i++)
		for (const char *const *s = rp__backends[i]->schemes; s && *s; s++) {
			if (!**s) {
				bare = true;
				continue;
			}
			const int w = snprintf(buf + len, cap - len, "%s%s://", len ? ", " : "", *s);
			if (w < 0 || (size_t)w >= cap - len)
				return;
			len += (size_t)w;
		}
	for (size_t i = 0; modules[i].name; i++) {
		const int w = snprintf(buf + len, cap - len, "%s%s://", len ? ", " : "", modules[i].scheme);
		if (w < 0 || (size_t)w >= cap - len)
			return;
		len += (size_t)w;
	}
	if (bare)
		snprintf(buf + len, cap - len, "%sa directory path", len ? ", " : "");
}

int rp_backend_for_target(const char *target, const rp_backend_ops **out, char *errbuf)
{
	*out = NULL;
	char scheme[64], known[256];
	if (!target_scheme(target, scheme, sizeof(scheme)))
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: unknown URL scheme", target);
	for (size_t i = 0; rp__backends[i]; i++)
		if (declares(rp__backends[i], scheme)) {
			*out = rp__backends[i];
			return 0;
		}
	for (size_t i = 0; modules[i].name; i++)
		if (strcmp(modules[i].scheme, scheme) == 0) {
			char why[RP_ERRBUF_SIZE];
			if ((*out = module_load(i, why)) != NULL)
				return 0;
			return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: the %s backend's module did not load (%s)", target,
				       modules[i].name, why);
		}
	for (size_t i = 0; i < sizeof(optional_backends) / sizeof(optional_backends[0]); i++)
		if (strcmp(optional_backends[i].scheme, scheme) == 0)
			return rp_fail(errbuf, RP_E_UNSUPPORTED,
				       "%s: this reprise was built without the %s backend (it needs %s); replay into a "
				       "directory instead",
				       target, optional_backends[i].backend, optional_backends[i].needs);
	known_schemes(known, sizeof(known));
	if (!scheme[0])
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: no backend in this build takes a directory path (it knows %s)",
			       target, known);
	return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: unknown URL scheme '%s' (this build knows %s)", target, scheme,
		       known);
}

/* ---- Option lists ------------------------------------------------------------------------ */

static size_t count_opts(const rp_backend_ops *ops)
{
	size_t n = 0;
	while (ops->opts && ops->opts[n].name)
		n++;
	return n;
}

void rp_backend_parsed_free(rp_backend_parsed *p)
{
	free(p->kv);
	free(p->vals);
	if (p->storage)
		explicit_bzero(p->storage, p->storage_len);
	free(p->storage);
	memset(p, 0, sizeof(*p));
}

/* "sync, fsync-writes": the backend's option names, for an error naming one it lacks. */
static void option_names(const rp_backend_ops *ops, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = '\0';
	for (const rp_backend_opt *o = ops->opts; o && o->name; o++) {
		const int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", o->name);
		if (w < 0 || (size_t)w >= cap - len)
			return;
		len += (size_t)w;
	}
}

long rp_backend_split_opts(char *s, rp_backend_item *items, size_t cap)
{
	size_t n = 0;
	for (char *tok = s, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!*tok)
			continue;
		if (n == cap)
			return -1;
		char *const eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		items[n++] = (rp_backend_item){ tok, eq ? eq + 1 : NULL };
	}
	return (long)n;
}

/* A copy of text at *at in storage (room made by the caller), NULL for NULL. */
static const char *keep(char *storage, size_t *at, const char *text)
{
	if (!text)
		return NULL;
	const size_t len = strlen(text) + 1;
	char *const dst = memcpy(storage + *at, text, len);
	*at += len;
	return dst;
}

int rp_backend_parse_items(const rp_backend_ops *ops, const rp_backend_item *items, size_t n, rp_backend_parsed *out,
			   char *errbuf)
{
	memset(out, 0, sizeof(*out));
	char detail[RP_ERRBUF_SIZE];
	int rc = 0;
	const size_t n_opts = count_opts(ops);
	size_t bytes = 1;
	for (size_t j = 0; j < n; j++)
		bytes += (items[j].value ? strlen(items[j].value) + 1 : 0);
	out->storage = malloc(bytes);
	out->storage_len = bytes;
	out->kv = calloc(n ? n : 1, sizeof(*out->kv));
	out->vals = calloc(n_opts ? n_opts : 1, sizeof(*out->vals));
	if (!out->storage || !out->kv || !out->vals) {
		rp_backend_parsed_free(out);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	size_t at = 0;
	out->n_vals = n_opts;
	for (size_t i = 0; i < n_opts; i++) {
		rp_backend_kv *const v = &out->vals[i];
		v->opt = &ops->opts[i];
		v->key = v->opt->name;
		if (v->opt->def) {
			/* rp_backend_check has vouched for it; an embedder's unchecked table still fails cleanly. */
			rc = rp_backend_parse_value(v->opt, v->opt->type == RP_BOPT_FLAG ? NULL : v->opt->def, &v->u, detail);
			if (rc < 0)
				goto fail;
			v->value = v->opt->type == RP_BOPT_FLAG ? NULL : v->opt->def;
			v->set = true;
		}
	}
	for (size_t j = 0; j < n; j++) {
		const char *const key = items[j].key ? items[j].key : "";
		size_t i = 0;
		while (i < n_opts && strcmp(ops->opts[i].name, key) != 0)
			i++;
		if (i == n_opts) {
			char names[256];
			option_names(ops, names, sizeof(names));
			rc = n_opts ? rp_fail(detail, RP_E_INVAL, "has no option '%s' (it has %s)", key, names)
				    : rp_fail(detail, RP_E_INVAL, "has no option '%s' (it takes none)", key);
			goto fail;
		}
		const rp_backend_opt *const o = &ops->opts[i];
		if (o->type != RP_BOPT_FLAG && !items[j].value) {
			rc = rp_fail(detail, RP_E_INVAL, "option '%s' needs a value (%s=%s)", key, key, rp_bopt_arg(o));
			goto fail;
		}
		rp_backend_kv *const kv = &out->kv[out->n_kv];
		rc = rp_backend_parse_value(o, items[j].value, &kv->u, detail);
		if (rc < 0)
			goto fail;
		kv->opt = o;
		kv->key = o->name;
		kv->value = keep(out->storage, &at, items[j].value);
		kv->set = true;
		out->vals[i] = *kv;
		out->n_kv++;
	}
	return 0;
fail:
	rp_backend_parsed_free(out);
	return rp_fail(errbuf, rc, "backend %s: %s", ops->name, detail);
}

int rp_backend_parse_list(const rp_backend_ops *ops, const char *spec, const rp_backend_item *more, size_t n_more,
			  rp_backend_parsed *out, char *errbuf)
{
	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		return rp_backend_parse_items(ops, more, n_more, out, errbuf);
	size_t cap = 1 + n_more;
	for (const char *p = spec; *p; p++)
		cap += *p == ',';
	char *const s = strdup(spec);
	rp_backend_item *const items = calloc(cap, sizeof(*items));
	int rc = s && items ? 0 : rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	if (rc == 0) {
		const size_t n = (size_t)rp_backend_split_opts(s, items, cap - n_more);
		if (n_more)
			memcpy(items + n, more, n_more * sizeof(*more));
		rc = rp_backend_parse_items(ops, items, n + n_more, out, errbuf);
	}
	if (s)
		explicit_bzero(s, strlen(spec));
	free(s);
	free(items);
	return rc;
}

int rp_backend_parse_opts(const rp_backend_ops *ops, const char *spec, rp_backend_parsed *out, char *errbuf)
{
	return rp_backend_parse_list(ops, spec, NULL, 0, out, errbuf);
}

/* ---- The vtable check -------------------------------------------------------------------- */

static int check_opt(const rp_backend_ops *ops, const rp_backend_opt *o, char *errbuf)
{
	char detail[RP_ERRBUF_SIZE];
	const char *const name = o->name;
	if (!*name || strpbrk(name, "=,"))
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: option name '%s' (empty, or with '=' or ',')", ops->name,
			       name);
	for (const rp_backend_opt *p = ops->opts; p < o; p++)
		if (strcmp(p->name, name) == 0)
			return rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s' twice in its table", ops->name, name);
	if ((unsigned)o->type >= RP_BOPT__COUNT)
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s' has unknown type %d", ops->name, name,
			       (int)o->type);
	if (!o->help)
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s' has no help text", ops->name, name);
	const bool bounded = o->type == RP_BOPT_UINT || o->type == RP_BOPT_DURATION || o->type == RP_BOPT_SIZE;
	if (!bounded && (o->min || o->max))
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s' is a %s, which has no bounds", ops->name, name,
			       rp_bopt_type_name(o->type));
	if (o->max && o->min > o->max) /* max 0: no upper bound */
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s' has min above max", ops->name, name);
	if ((o->type == RP_BOPT_ENUM) != (o->choices != NULL) || (o->choices && !o->choices[0]))
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s': %s", ops->name, name,
			       o->type == RP_BOPT_ENUM ? "an enum without choices" : "choices on an option that is no enum");
	if (o->type == RP_BOPT_FLAG && o->def)
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: option '%s' is a flag, off unless given: no default",
			       ops->name, name);
	uint64_t u;
	if (o->def && rp_backend_parse_value(o, o->def, &u, detail) < 0)
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: default of %s", ops->name, detail);
	return 0;
}

int rp_backend_check(const rp_backend_ops *ops, char *errbuf)
{
	if (!ops)
		return rp_fail(errbuf, RP_E_INVAL, "no backend");
	if (!ops->name || !*ops->name)
		return rp_fail(errbuf, RP_E_INVAL, "a backend without a name");
	const char *const name = ops->name;
	if (ops->version < RP_BACKEND_VERSION_MIN || ops->version > RP_BACKEND_VERSION)
		return rp_fail(errbuf, RP_E_VERSION, "backend %s: interface version %d, this engine knows %d..%d", name,
			       ops->version, RP_BACKEND_VERSION_MIN, RP_BACKEND_VERSION);
	const struct {
		const char *hook;
		bool have;
	} hooks[] = {
		{ "create", ops->create != NULL },   { "destroy", ops->destroy != NULL },
		{ "client_init", ops->client_init != NULL }, { "submit", ops->submit != NULL },
		{ "release", ops->release != NULL },
	};
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (!hooks[i].have)
			return rp_fail(errbuf, RP_E_INVAL, "backend %s: no %s hook", name, hooks[i].hook);
	if (ops->caps & ~(unsigned)RP_BCAP__KNOWN)
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: unknown capability bits 0x%x (this engine knows 0x%x)", name,
			       ops->caps & ~(unsigned)RP_BCAP__KNOWN, (unsigned)RP_BCAP__KNOWN);
	if ((ops->caps & RP_BCAP_ASYNC) && !ops->poll)
		return rp_fail(errbuf, RP_E_INVAL,
			       "backend %s: asynchronous (RP_BCAP_ASYNC) without a poll hook: its completions would never run",
			       name);
	if (ops->client_size == 0 && (ops->client_fini || (ops->caps & RP_BCAP_ASYNC)))
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: client_size 0 (no client state) with %s, which needs it", name,
			       ops->client_fini ? "a client_fini hook" : "RP_BCAP_ASYNC (completions queue per client)");
	if (ops->version >= 9 && !ops->walk != !ops->remove)
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: a %s hook without %s: --cleanup needs both", name,
			       ops->walk ? "walk" : "remove", ops->walk ? "remove" : "walk");
	if (ops->op_mask & ~RP_BACKEND_ALL_OPS)
		return rp_fail(errbuf, RP_E_INVAL, "backend %s: op_mask 0x%" PRIx64 " names ops this engine does not know",
			       name, ops->op_mask);
	for (const char *const *s = ops->schemes; s && *s; s++) {
		if (**s && (!scheme_syntax(*s, strlen(*s)) || strpbrk(*s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")))
			return rp_fail(errbuf, RP_E_INVAL, "backend %s: '%s' is no URL scheme (lower case, RFC 3986)", name, *s);
	}
	for (const rp_backend_opt *o = ops->opts; o && o->name; o++) {
		const int rc = check_opt(ops, o, errbuf);
		if (rc < 0)
			return rc;
	}
	return 0;
}
