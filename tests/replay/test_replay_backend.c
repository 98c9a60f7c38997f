/*
 * The backend interface: vtables checked when a backend is chosen, URL
 * schemes picking the backend, typed option tables, and per-op capabilities
 * (ops a backend cannot express counted as unsupported, never sent to it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

/* ---- A backend that records what reaches it (fault-style: every op succeeds) ------------- */

static _Atomic uint64_t seen[RP_OP__COUNT];
static _Atomic uint64_t next_bh = 1;

static int rec_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)a, (void)eb;
	*b = (void *)1;
	return 0;
}
static void rec_destroy(void *b)
{
	(void)b;
}
static int rec_client_init(void *b, void *c, const char *dir, char *eb)
{
	(void)b, (void)c, (void)dir, (void)eb;
	return 0;
}
static int rec_submit(void *b, void *c, rp_breq *req)
{
	(void)b, (void)c;
	atomic_fetch_add(&seen[req->op->op], 1);
	req->status = req->no_handle ? EBADF : 0;
	req->result = req->op->op == RP_OP_READ || req->op->op == RP_OP_WRITE ? req->op->length : 0;
	if (req->op->op == RP_OP_OPEN)
		req->bh = atomic_fetch_add(&next_bh, 1);
	if (req->cb)
		req->cb(req);
	return 0;
}
static int rec_poll(void *b, void *c, uint64_t t)
{
	(void)b, (void)c, (void)t;
	return 0;
}
static void rec_release(void *b, void *c, uint64_t bh)
{
	(void)b, (void)c, (void)bh;
}
static void rec_client_fini(void *b, void *c)
{
	(void)b, (void)c;
}

/* A well-formed vtable; each broken one below is this with one thing wrong. No client_fini: it is optional. */
static const rp_backend_ops good = {
	.version = RP_BACKEND_VERSION, .name = "rec", .summary = "test", .client_size = 8,
	.create = rec_create, .destroy = rec_destroy, .client_init = rec_client_init,
	.submit = rec_submit, .release = rec_release,
};

static void reset_seen(void)
{
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		atomic_store(&seen[i], 0);
}

/* ---- 1. Hooks validated when a backend is chosen --------------------------------------------------- */

static const char *const upper_scheme[] = { "NFS", NULL };
static const char *const bad_scheme[] = { "a b", NULL };
static const rp_backend_opt enum_no_choices[] = { { .name = "m", .type = RP_BOPT_ENUM, .help = "h" }, { .name = NULL } };
static const rp_backend_opt def_out_of_range[] = {
	{ .name = "depth", .type = RP_BOPT_UINT, .def = "0", .min = 1, .max = 8, .help = "h" }, { .name = NULL } };
static const rp_backend_opt flag_default[] = { { .name = "f", .type = RP_BOPT_FLAG, .def = "1", .help = "h" }, { .name = NULL } };
static const rp_backend_opt twice[] = {
	{ .name = "f", .type = RP_BOPT_FLAG, .help = "h" }, { .name = "f", .type = RP_BOPT_FLAG, .help = "h" }, { .name = NULL } };
static const rp_backend_opt min_above_max[] = {
	{ .name = "n", .type = RP_BOPT_UINT, .min = 9, .max = 8, .help = "h" }, { .name = NULL } };
static const rp_backend_opt bounded_string[] = {
	{ .name = "s", .type = RP_BOPT_STRING, .max = 8, .help = "h" }, { .name = NULL } };
static const rp_backend_opt bad_type[] = { { .name = "t", .type = RP_BOPT__COUNT, .help = "h" }, { .name = NULL } };
static const rp_backend_opt eq_name[] = { { .name = "a=b", .type = RP_BOPT_FLAG, .help = "h" }, { .name = NULL } };

/* A walk that finds nothing (a walk hook without its remove is refused). */
static int rec_walk(void *backend, void *client, int (*fn)(void *arg, const rp_backend_entry *e), void *arg, char *errbuf)
{
	(void)backend, (void)client, (void)fn, (void)arg, (void)errbuf;
	return 0;
}

static void test_check_broken_vtables(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_backend_check(&good, eb), 0);
	for (size_t i = 0; rp_backend_at(i); i++)
		if (rp_backend_check(rp_backend_at(i), eb) < 0)
			fail_msg("built-in backend %s refused: %s", rp_backend_at(i)->name, eb);
	struct {
		rp_backend_ops ops;
		int rc;
		const char *want;
	} cases[] = {
		{ good, RP_E_VERSION, "interface version 0, this engine knows 1.." },
		{ good, RP_E_VERSION, "this engine knows 1.." }, /* the version after the newest */
		{ good, RP_E_INVAL, "RP_BCAP_ASYNC) without a poll hook" },
		{ good, RP_E_INVAL, "no create hook" },
		{ good, RP_E_INVAL, "no destroy hook" },
		{ good, RP_E_INVAL, "no client_init hook" },
		{ good, RP_E_INVAL, "no submit hook" },
		{ good, RP_E_INVAL, "no release hook" },
		{ good, RP_E_INVAL, "client_size 0 (no client state) with a client_fini hook" },
		{ good, RP_E_INVAL, "client_size 0 (no client state) with RP_BCAP_ASYNC" },
		{ good, RP_E_INVAL, "unknown capability bits 0x80" },
		{ good, RP_E_INVAL, "names ops this engine does not know" },
		{ good, RP_E_INVAL, "a backend without a name" },
		{ good, RP_E_INVAL, "'NFS' is no URL scheme" },
		{ good, RP_E_INVAL, "'a b' is no URL scheme" },
		{ good, RP_E_INVAL, "option 'm': an enum without choices" },
		{ good, RP_E_INVAL, "default of option 'depth': 0 is out of range (1 to 8)" },
		{ good, RP_E_INVAL, "option 'f' is a flag, off unless given: no default" },
		{ good, RP_E_INVAL, "option 'f' twice" },
		{ good, RP_E_INVAL, "option 'n' has min above max" },
		{ good, RP_E_INVAL, "option 's' is a string, which has no bounds" },
		{ good, RP_E_INVAL, "option 't' has unknown type" },
		{ good, RP_E_INVAL, "option name 'a=b'" },
		{ good, RP_E_INVAL, "a walk hook without remove: --cleanup needs both" },
	};
	size_t k = 0;
	cases[k++].ops.version = 0;
	cases[k++].ops.version = RP_BACKEND_VERSION + 1;
	cases[k++].ops.caps = RP_BCAP_ASYNC;
	cases[k++].ops.create = NULL;
	cases[k++].ops.destroy = NULL;
	cases[k++].ops.client_init = NULL;
	cases[k++].ops.submit = NULL;
	cases[k++].ops.release = NULL;
	cases[k].ops.client_size = 0;
	cases[k++].ops.client_fini = rec_client_fini;
	cases[k].ops.client_size = 0;
	cases[k].ops.caps = RP_BCAP_ASYNC;
	cases[k++].ops.poll = rec_poll;
	cases[k++].ops.caps = 1u << 7;
	cases[k++].ops.op_mask = UINT64_C(1) << RP_OP__COUNT;
	cases[k++].ops.name = NULL;
	cases[k++].ops.schemes = upper_scheme;
	cases[k++].ops.schemes = bad_scheme;
	cases[k++].ops.opts = enum_no_choices;
	cases[k++].ops.opts = def_out_of_range;
	cases[k++].ops.opts = flag_default;
	cases[k++].ops.opts = twice;
	cases[k++].ops.opts = min_above_max;
	cases[k++].ops.opts = bounded_string;
	cases[k++].ops.opts = bad_type;
	cases[k++].ops.opts = eq_name;
	cases[k++].ops.walk = rec_walk;
	assert_int_equal(k, sizeof(cases) / sizeof(cases[0]));
	for (size_t i = 0; i < k; i++) {
		eb[0] = '\0';
		const int rc = rp_backend_check(&cases[i].ops, eb);
		if (rc != cases[i].rc || !strstr(eb, cases[i].want))
			fail_msg("case %zu: rc %d '%s', wanted %d '%s'", i, rc, eb, cases[i].rc, cases[i].want);
	}
	assert_int_equal(rp_backend_check(NULL, eb), RP_E_INVAL);

	/* rp_replay_create refuses each of them before anything runs (async without poll: not silently synchronous). */
	for (size_t i = 0; i < k; i++) {
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		wl_add(&t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
		rp_replay_opts o;
		rp_replay_opts_init(&o);
		o.target = "/nonexistent";
		o.backend_ops = &cases[i].ops;
		rp_replay *r = NULL;
		eb[0] = '\0';
		assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), cases[i].rc);
		assert_null(r);
		if (!strstr(eb, cases[i].want))
			fail_msg("create, case %zu: '%s' lacks '%s'", i, eb, cases[i].want);
		wl_fini(&t);
	}
}

/* ---- 2. URL schemes ----------------------------------------------------------------------- */

static void test_schemes(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	const rp_backend_ops *b;
	/* No scheme is declared by two built-in backends, so the scheme names one. */
	for (size_t i = 0; rp_backend_at(i); i++)
		for (const char *const *s = rp_backend_at(i)->schemes; s && *s; s++)
			for (size_t j = i + 1; rp_backend_at(j); j++)
				for (const char *const *u = rp_backend_at(j)->schemes; u && *u; u++)
					if (strcmp(*s, *u) == 0)
						fail_msg("scheme '%s' in %s and %s", *s, rp_backend_at(i)->name, rp_backend_at(j)->name);
	static const char *const posix_targets[] = { "/tmp/x", "rel/dir", "file:///tmp", "FILE:///tmp",
						     "file://localhost/tmp", "./a://b", "/x/nfs://y" };
	for (size_t i = 0; i < sizeof(posix_targets) / sizeof(posix_targets[0]); i++) {
		assert_int_equal(rp_backend_for_target(posix_targets[i], &b, eb), 0);
		assert_string_equal(b->name, "posix");
		assert_true(rp_backend_serves(b, posix_targets[i]));
	}
	static const struct {
		const char *target, *want;
	} bad[] = {
		{ "nfs://host/export", "nfs://host/export: this reprise was built without the nfs backend (it needs libnfs)" },
		{ "NFS://host/export", "built without the nfs backend" },
		{ "smb://host/share", "built without the smb backend (it needs libsmbclient)" },
		{ "ftp://x", "ftp://x: unknown URL scheme 'ftp' (this build knows file://, " },
	};
	/* A build with the smb backend serves smb://, one with libnfs nfs:// (case-insensitively); one without says what it lacks. */
	const bool smb = rp_backend_find("smb") != NULL;
	const bool have_nfs = rp_backend_find("nfs") != NULL;
	if (smb) {
		assert_int_equal(rp_backend_for_target("smb://host/share", &b, eb), 0);
		assert_string_equal(b->name, "smb");
	}
	if (have_nfs) {
		assert_int_equal(rp_backend_for_target("NFS://host/export", &b, eb), 0);
		assert_string_equal(b->name, "nfs");
		assert_true(rp_backend_serves(b, "nfs://host/export?version=4"));
		assert_false(rp_backend_serves(b, "/tmp/x"));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if ((smb && strncmp(bad[i].target, "smb", 3) == 0) || (have_nfs && strncasecmp(bad[i].target, "nfs:", 4) == 0))
			continue;
		assert_int_equal(rp_backend_for_target(bad[i].target, &b, eb), RP_E_UNSUPPORTED);
		assert_null(b);
		if (!strstr(eb, bad[i].want))
			fail_msg("%s: '%s' lacks '%s'", bad[i].target, eb, bad[i].want);
	}
	/* The schemes it knows, as this build has them. */
	assert_int_equal(rp_backend_for_target("ftp://x", &b, eb), RP_E_UNSUPPORTED);
	char knows[128];
	snprintf(knows, sizeof(knows), "(this build knows file://, %s%sa directory path)", have_nfs ? "nfs://, " : "",
		 smb ? "smb://, " : "");
	if (!strstr(eb, knows))
		fail_msg("'%s' lacks '%s'", eb, knows);
	/* A named backend declaring schemes refuses a target it does not take; one declaring none ignores the target. */
	assert_false(rp_backend_serves(rp_backend_find("posix"), "nfs://h/e"));
	assert_true(rp_backend_serves(rp_backend_find("null"), "nfs://h/e"));
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "nfs://host/export";
	o.backend = "posix";
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), RP_E_UNSUPPORTED);
	assert_non_null(strstr(eb, "backend posix does not take this target (it takes a directory path, file://)"));
	wl_fini(&t);

	/* Without --backend, a file:// URL of a directory (with a %20 in it) replays with posix. */
	char dir[] = "/tmp/rp-scheme-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char sub[64], url[96];
	snprintf(sub, sizeof(sub), "%s/a b", dir);
	assert_int_equal(mkdir(sub, 0777), 0);
	snprintf(url, sizeof(url), "file://%s/a%%20b", dir);
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_MKDIR, "\\d", 0, 0, 0, 0);
	rp_replay_opts_init(&o);
	o.target = url;
	o.no_prepare = true;
	const int rc = rp_replay_create(&r, &o, wl_open(&t), eb);
	if (rc == 0)
		rp_replay_run(r, eb);
	char made[96];
	snprintf(made, sizeof(made), "%s/d", sub);
	struct stat st;
	const bool ok = rc == 0 && stat(made, &st) == 0 && S_ISDIR(st.st_mode) &&
			strcmp(rp_replay_get_results(r)->backend, "posix") == 0;
	rp_replay_destroy(r);
	wl_fini(&t);
	rmdir(made);
	rmdir(sub);
	rmdir(dir);
	if (!ok)
		fail_msg("file URL replay: rc %d %s", rc, rc ? eb : "");
	/* A file URL with a host is refused by posix, naming the form it takes. */
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
	rp_replay_opts_init(&o);
	o.target = "file://elsewhere/tmp";
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), RP_E_UNSUPPORTED);
	assert_non_null(strstr(eb, "file:///dir"));
	wl_fini(&t);
}

/* ---- 3. Typed options ---------------------------------------------------------------------- */

enum { T_FLAG, T_BOOL, T_UINT, T_DUR, T_SIZE, T_STR, T_ENUM, T__COUNT };
static const char *const modes[] = { "fast", "safe", NULL };
static const rp_backend_opt typed[] = {
	[T_FLAG] = { .name = "flag", .type = RP_BOPT_FLAG, .help = "f" },
	[T_BOOL] = { .name = "on", .type = RP_BOPT_BOOL, .def = "yes", .help = "b" },
	[T_UINT] = { .name = "depth", .type = RP_BOPT_UINT, .def = "4", .min = 1, .max = 64, .help = "u" },
	[T_DUR] = { .name = "wait", .type = RP_BOPT_DURATION, .def = "10ms", .max = 1000000000u, .help = "d" },
	[T_SIZE] = { .name = "chunk", .type = RP_BOPT_SIZE, .def = "64k", .min = 512, .max = UINT64_C(1) << 30, .help = "s" },
	[T_STR] = { .name = "tag", .type = RP_BOPT_STRING, .repeat = true, .help = "t" },
	[T_ENUM] = { .name = "mode", .type = RP_BOPT_ENUM, .choices = modes, .def = "safe", .help = "e" },
	[T__COUNT] = { .name = NULL },
};

static void test_typed_options(void **state)
{
	(void)state;
	rp_backend_ops ops = good;
	ops.opts = typed;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_backend_check(&ops, eb), 0);
	rp_backend_parsed p;
	/* Nothing given: the defaults, parsed. */
	assert_int_equal(rp_backend_parse_opts(&ops, NULL, &p, eb), 0);
	assert_int_equal(p.n_kv, 0);
	assert_int_equal(p.n_vals, T__COUNT);
	assert_false(p.vals[T_FLAG].set);
	assert_int_equal(p.vals[T_FLAG].u, 0);
	assert_int_equal(p.vals[T_BOOL].u, 1);
	assert_int_equal(p.vals[T_UINT].u, 4);
	assert_int_equal(p.vals[T_DUR].u, 10000000u);
	assert_int_equal(p.vals[T_SIZE].u, 65536);
	assert_false(p.vals[T_STR].set);
	assert_int_equal(p.vals[T_ENUM].u, 1);
	assert_string_equal(p.vals[T_ENUM].value, "safe");
	rp_backend_parsed_free(&p);
	/* Every type given; a repeatable option keeps each item, the value is the last. */
	assert_int_equal(rp_backend_parse_opts(&ops, "flag,on=off,depth=64,wait=1.5ms,chunk=1M,tag=a,,tag=b,mode=fast,depth=3",
					       &p, eb),
			 0);
	assert_int_equal(p.n_kv, 9);
	assert_int_equal(p.vals[T_FLAG].u, 1);
	assert_int_equal(p.vals[T_BOOL].u, 0);
	assert_int_equal(p.vals[T_UINT].u, 3); /* the last one given */
	assert_int_equal(p.vals[T_DUR].u, 1500000u);
	assert_int_equal(p.vals[T_SIZE].u, 1u << 20);
	assert_string_equal(p.vals[T_STR].value, "b");
	assert_string_equal(p.kv[5].value, "a");
	assert_ptr_equal(p.kv[5].opt, &typed[T_STR]);
	assert_int_equal(p.vals[T_ENUM].u, 0);
	rp_backend_parsed_free(&p);
	/* Bad values: each names the option; out of range says the range. */
	static const struct {
		const char *spec;
		int rc;
		const char *want;
	} bad[] = {
		{ "depth=0", RP_E_RANGE, "backend rec: option 'depth': 0 is out of range (1 to 64)" },
		{ "depth=65", RP_E_RANGE, "option 'depth': 65 is out of range (1 to 64)" },
		{ "depth=99999999999999999999999", RP_E_RANGE, "option 'depth'" },
		{ "depth=-1", RP_E_RANGE, "option 'depth': -1 is out of range (1 to 64)" },
		{ "depth=0x41", RP_E_RANGE, "option 'depth': 0x41 is out of range (1 to 64)" },
		{ "depth=0x", RP_E_INVAL, "option 'depth': '0x' is not a whole number (decimal, or hex with 0x)" },
		{ "depth= 4", RP_E_INVAL, "is not a whole number" },
		{ "depth=+4", RP_E_INVAL, "is not a whole number" },
		{ "depth=4k", RP_E_INVAL, "is not a whole number" },
		{ "depth=4.0", RP_E_INVAL, "is not a whole number" },
		{ "depth", RP_E_INVAL, "option 'depth' needs a value (depth=N)" },
		{ "wait=2s", RP_E_RANGE, "option 'wait': 2s is out of range (0 to 1s)" },
		{ "wait=5parsecs", RP_E_INVAL, "option 'wait': '5parsecs' is not a duration" },
		{ "wait=1m", RP_E_RANGE, "option 'wait': 1m is out of range (0 to 1s)" },
		{ "wait=-1ms", RP_E_RANGE, "option 'wait': -1ms is out of range (0 to 1s)" },
		{ "wait=inf", RP_E_INVAL, "is not a duration" },
		{ "wait=nan", RP_E_INVAL, "is not a duration" },
		{ "wait=.", RP_E_INVAL, "is not a duration" },
		{ "chunk=511", RP_E_RANGE, "option 'chunk': 511 is out of range (512 to 1G)" },
		{ "chunk=2G", RP_E_RANGE, "out of range" },
		{ "chunk=99999999999T", RP_E_RANGE, "out of range" },
		{ "chunk=1X", RP_E_INVAL, "is not a size" },
		{ "on=maybe", RP_E_INVAL, "option 'on': 'maybe' is not yes/no" },
		{ "mode=slow", RP_E_INVAL, "option 'mode': 'slow' is not one of fast, safe" },
		{ "tag=", RP_E_INVAL, "option 'tag' needs a value" },
		{ "flag=1", RP_E_INVAL, "option 'flag' takes no value" },
		{ "nosuch", RP_E_INVAL, "has no option 'nosuch' (it has flag, on, depth, wait, chunk, tag, mode)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		eb[0] = '\0';
		const int rc = rp_backend_parse_opts(&ops, bad[i].spec, &p, eb);
		if (rc != bad[i].rc || !strstr(eb, bad[i].want))
			fail_msg("'%s': rc %d '%s', wanted %d '%s'", bad[i].spec, rc, eb, bad[i].rc, bad[i].want);
		assert_null(p.kv);
		assert_null(p.vals);
	}
	/* Values as --list-backends shows them. */
	char buf[32];
	rp_bopt_format(&typed[T_DUR], 1500000, buf, sizeof(buf));
	assert_string_equal(buf, "1500us");
	rp_bopt_format(&typed[T_DUR], 0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	rp_bopt_format(&typed[T_SIZE], 65536, buf, sizeof(buf));
	assert_string_equal(buf, "64k");
	rp_bopt_format(&typed[T_SIZE], 1000, buf, sizeof(buf));
	assert_string_equal(buf, "1000");
	rp_bopt_format(&typed[T_ENUM], 1, buf, sizeof(buf));
	assert_string_equal(buf, "safe");
	assert_string_equal(rp_bopt_type_name(RP_BOPT_DURATION), "duration");

	/* The converted tables: fault's delay is a duration, bounded, reaching create already parsed. */
	assert_int_equal(rp_backend_parse_opts(rp_backend_find("fault"), "delay=2d", &p, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "backend fault: option 'delay': '2d' is not a duration"));
	assert_int_equal(rp_backend_parse_opts(rp_backend_find("fault"), "delay=2h", &p, eb), RP_E_RANGE);
	assert_non_null(strstr(eb, "option 'delay': 2h is out of range (0 to 3600s)"));
	assert_int_equal(rp_backend_parse_opts(rp_backend_find("fault"), "delay=1h", &p, eb), 0); /* the bound itself */
	rp_backend_parsed_free(&p);
	assert_int_equal(rp_backend_parse_opts(rp_backend_find("fault"), "delay=3601s", &p, eb), RP_E_RANGE);
	assert_non_null(strstr(eb, "option 'delay': 3601s is out of range (0 to 3600s)"));
	assert_int_equal(rp_backend_parse_opts(rp_backend_find("null"), "async=1", &p, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "option 'async' takes no value"));
	assert_int_equal(rp_backend_parse_opts(rp_backend_find("posix"), "sync,setid", &p, eb), 0);
	assert_int_equal(p.n_vals, 4);
	rp_backend_parsed_free(&p);
}

/* What the items test's backend was created with: the tag items' values, as it saw them. */
static char items_seen[4][32];
static size_t n_items_seen;
static int items_create(void **b, const rp_backend_args *a, char *eb)
{
	(void)eb;
	n_items_seen = 0;
	for (size_t i = 0; i < a->n_kv && n_items_seen < 4; i++)
		if (a->kv[i].opt == &typed[T_STR])
			snprintf(items_seen[n_items_seen++], sizeof(items_seen[0]), "%s", a->kv[i].value);
	*b = (void *)1;
	return 0;
}

static void test_option_items(void **state)
{
	(void)state;
	rp_backend_ops ops = good;
	ops.opts = typed;
	char eb[RP_ERRBUF_SIZE];
	rp_backend_parsed p;
	/* Items are taken whole: a ',' (or a '=') in a value is part of it, and the values are copied. */
	char pass[] = "a,b=c";
	const rp_backend_item items[] = { { "tag", pass }, { "flag", NULL }, { "depth", "9" } };
	assert_int_equal(rp_backend_parse_items(&ops, items, 3, &p, eb), 0);
	memset(pass, 'x', sizeof(pass) - 1);
	assert_int_equal(p.n_kv, 3);
	assert_string_equal(p.vals[T_STR].value, "a,b=c");
	assert_int_equal(p.vals[T_FLAG].u, 1);
	assert_null(p.vals[T_FLAG].value);
	assert_int_equal(p.vals[T_UINT].u, 9);
	rp_backend_parsed_free(&p);
	/* A list's items first, then the others; the last one given counts. */
	const rp_backend_item more[] = { { "depth", "5" }, { "tag", "x,y" } };
	assert_int_equal(rp_backend_parse_list(&ops, "depth=2,tag=w", more, 2, &p, eb), 0);
	assert_int_equal(p.n_kv, 4);
	assert_int_equal(p.vals[T_UINT].u, 5);
	assert_string_equal(p.kv[1].value, "w");
	assert_string_equal(p.vals[T_STR].value, "x,y");
	rp_backend_parsed_free(&p);
	/* Errors name the option as for a list; an item needs a value unless a flag, and a key. */
	const rp_backend_item bad1[] = { { "depth", "65" } }, bad2[] = { { "tag", NULL } }, bad3[] = { { NULL, "1" } };
	assert_int_equal(rp_backend_parse_items(&ops, bad1, 1, &p, eb), RP_E_RANGE);
	assert_non_null(strstr(eb, "backend rec: option 'depth': 65 is out of range (1 to 64)"));
	assert_int_equal(rp_backend_parse_items(&ops, bad2, 1, &p, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "option 'tag' needs a value (tag=TEXT)"));
	assert_int_equal(rp_backend_parse_items(&ops, bad3, 1, &p, eb), RP_E_INVAL);
	assert_non_null(strstr(eb, "has no option ''"));
	assert_null(p.kv);
	/* The split: in place, empty items skipped, at most cap of them. */
	char list[] = "a=1,,b,c=x=y";
	rp_backend_item split[3];
	assert_int_equal(rp_backend_split_opts(list, split, 3), 3);
	assert_string_equal(split[0].key, "a");
	assert_string_equal(split[0].value, "1");
	assert_string_equal(split[1].key, "b");
	assert_null(split[1].value);
	assert_string_equal(split[2].value, "x=y");
	char list2[] = "a,b,c";
	assert_int_equal(rp_backend_split_opts(list2, split, 2), -1);
	/* Through the engine: rp_replay_opts.backend_items reach create as given, after backend_opts's. */
	ops.create = items_create;
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_STAT, "\\f", 0, 0, 0, 0);
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/nonexistent";
	o.backend_ops = &ops;
	o.no_prepare = true;
	o.backend_opts = "tag=first";
	const rp_backend_item run_items[] = { { "tag", "p,w%x" }, { "tag", "f,ile" } };
	o.backend_items = run_items;
	o.n_backend_items = 2;
	rp_replay *r = NULL;
	assert_int_equal(rp_replay_create(&r, &o, wl_open(&t), eb), 0);
	assert_int_equal(n_items_seen, 3);
	assert_string_equal(items_seen[0], "first");
	assert_string_equal(items_seen[1], "p,w%x");
	assert_string_equal(items_seen[2], "f,ile");
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* ---- 4. Per-op capabilities ------------------------------------------------------------------ */

static const rp_replay_results *run_masked(wl *t, uint64_t mask, bool prepare, rp_replay **r)
{
	static rp_backend_ops partial;
	partial = good;
	partial.name = "partial";
	partial.op_mask = mask;
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/nonexistent";
	o.backend_ops = &partial;
	o.no_prepare = !prepare;
	char eb[RP_ERRBUF_SIZE];
	reset_seen();
	if (rp_replay_create(r, &o, wl_open(t), eb) < 0 || rp_replay_run(*r, eb) < 0)
		fail_msg("run: %s", eb);
	return rp_replay_get_results(*r);
}

static void test_unsupported_ops(void **state)
{
	(void)state;
	/* No lock, no unlink: those are counted as unsupported, and never reach the backend. */
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_OPEN, "\\f", 5, 0, 0, 0);
	wl_add(&t, 1, RP_OP_WRITE, NULL, 5, 0, 100, 0);
	wl_add(&t, 1, RP_OP_LOCK, NULL, 5, 0, 10, 0);
	wl_add(&t, 1, RP_OP_LOCK, NULL, 5, 20, 10, EAGAIN); /* even one that failed in the trace: not a mismatch */
	wl_add(&t, 1, RP_OP_UNLINK, "\\g", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 5, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "\\f", 0, 0, 0, 0);
	rp_replay *r = NULL;
	const uint64_t mask = RP_BACKEND_ALL_OPS & ~(UINT64_C(1) << RP_OP_LOCK) & ~(UINT64_C(1) << RP_OP_UNLINK);
	const rp_replay_results *res = run_masked(&t, mask, false, &r);
	assert_int_equal(res->op[RP_OP_LOCK].unsupported, 2);
	assert_int_equal(res->op[RP_OP_UNLINK].unsupported, 1);
	assert_int_equal(res->unsupported, 3);
	assert_int_equal(res->op[RP_OP_LOCK].count, 0);
	assert_int_equal(res->failures, 0);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->unknown_handles, 0);
	assert_int_equal(res->ops, 4); /* open, write, close, stat */
	assert_int_equal(atomic_load(&seen[RP_OP_LOCK]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_UNLINK]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_OPEN]), 1);
	assert_int_equal(atomic_load(&seen[RP_OP_CLOSE]), 1);
	/* The table gets an Unsupported column and a line; the JSON the counters, per op and in all. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	rp_replay_write_table(res, f);
	assert_int_equal(rp_replay_write_json(res, NULL, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, " Unsupported\n"));
	assert_non_null(strstr(text, "Unsupported by the partial backend (not sent to it; not failed, not mismatched): 3"));
	assert_non_null(strstr(text, "\"unsupported\": 3"));
	assert_non_null(strstr(text, "\"lock\": {"));
	assert_non_null(strstr(text, "\"unsupported\": 2"));
	free(text);
	rp_replay_destroy(r);

	/* Every op: no Unsupported column, and the counters are 0. */
	rp_workload_destroy(t.w); /* run_masked opens the ops again */
	t.w = NULL;
	res = run_masked(&t, 0, false, &r);
	assert_int_equal(res->unsupported, 0);
	assert_int_equal(atomic_load(&seen[RP_OP_LOCK]), 2);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	rp_replay_write_table(res, f);
	assert_int_equal(fclose(f), 0);
	assert_null(strstr(text, "Unsupported"));
	free(text);
	rp_replay_destroy(r);
	wl_fini(&t);

	/*
	 * No open: the ops on its handle are unsupported too (not unknown handles,
	 * not mismatches), and prepare never sends the backend an open either.
	 */
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_OPEN, "\\x", 7, 0, 0, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 7, 0, 100, 0);
	wl_add(&t, 1, RP_OP_CLOSE, NULL, 7, 0, 0, 0);
	wl_add(&t, 1, RP_OP_READ, NULL, 7, 0, 100, EBADF); /* after the close: its own thing again */
	wl_add(&t, 1, RP_OP_STAT, "\\x", 0, 0, 0, 0);
	res = run_masked(&t, RP_BACKEND_ALL_OPS & ~(UINT64_C(1) << RP_OP_OPEN), true, &r);
	assert_int_equal(res->op[RP_OP_OPEN].unsupported, 1);
	assert_int_equal(res->op[RP_OP_READ].unsupported, 1);
	assert_int_equal(res->op[RP_OP_CLOSE].unsupported, 1);
	assert_int_equal(res->unknown_handles, 1); /* the read after the close: a handle never opened, EBADF as recorded */
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(atomic_load(&seen[RP_OP_OPEN]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_CLOSE]), 0);
	assert_int_equal(atomic_load(&seen[RP_OP_STAT]), 1);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* A backend module: loaded and checked; a missing file, a wrong symbol and a path too long say so. */
static void test_module_loader(void **state)
{
	(void)state;
	const char *const root = getenv("REPRISE_BUILD_ROOT");
	assert_non_null(root);
	char path[4096], eb[RP_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/tests/replay/reprise-backend-modtest.so", root);
	const rp_backend_ops *ops = NULL;
	assert_int_equal(rp__backend_module_open(path, "rp__backend_modtest", &ops, eb), 0);
	assert_non_null(ops);
	assert_string_equal(ops->name, "modtest");
	if (rp_backend_check(ops, eb) != 0)
		fail_msg("%s", eb);
	assert_int_equal(rp__backend_module_open(path, "rp__backend_other", &ops, eb), RP_E_UNSUPPORTED);
	assert_null(ops);
	assert_non_null(strstr(eb, "not a reprise backend module"));
	snprintf(path, sizeof(path), "%s/tests/replay/no-such-module.so", root);
	assert_int_equal(rp__backend_module_open(path, "rp__backend_modtest", &ops, eb), RP_E_UNSUPPORTED);
	assert_non_null(strstr(eb, "cannot load"));
	/* $REPRISE_MODULE_DIR first; a path that does not fit is refused, not cut */
	setenv("REPRISE_MODULE_DIR", "/some/dir", 1);
	assert_int_equal(rp__backend_module_path("m.so", path, sizeof(path)), 0);
	assert_string_equal(path, "/some/dir/m.so");
	assert_int_equal(rp__backend_module_path("m.so", path, 8), -1);
	unsetenv("REPRISE_MODULE_DIR");
	/* a name no backend and no module has */
	assert_null(rp_backend_find("no-such-backend"));
	assert_int_equal(rp_backend_find_module("no-such-backend", &ops, eb), RP_E_UNSUPPORTED);
}

/* ---- 5. A client state lost for good (client_error, interface 6) ---------------------------------- */

/* Each state takes LOSE_AFTER ops, then says it is lost (a server that went away). */
#define LOSE_AFTER 3
typedef struct lossy_client {
	unsigned ops;
} lossy_client;

static int lossy_submit(void *b, void *cs, rp_breq *req)
{
	lossy_client *const c = cs;
	c->ops++;
	return rec_submit(b, cs, req);
}

static int lossy_error(void *b, void *cs, char *eb)
{
	(void)b;
	const lossy_client *const c = cs;
	return c->ops >= LOSE_AFTER ? rp_fail(eb, RP_E_IO, "lossy://x: the server went away after %u ops", c->ops) : 0;
}

static const rp_replay_results *run_lossy(wl *t, const rp_backend_ops *ops, uint32_t inflight, bool prepare,
					  rp_replay **r, int *rc, char *eb)
{
	rp_replay_opts o;
	rp_replay_opts_init(&o);
	o.target = "/nonexistent";
	o.backend_ops = ops;
	o.no_prepare = !prepare;
	o.max_inflight = inflight;
	reset_seen();
	if (rp_replay_create(r, &o, wl_open(t), eb) < 0)
		fail_msg("create: %s", eb);
	*rc = rp_replay_run(*r, eb);
	return rp_replay_get_results(*r);
}

/*
 * Modules built against interface 7 and 8 that are busy every other submit
 * (7: RP_E_LIMIT, 8: RP_BREQ_BUSY): each loads, and a run one at a time, in a
 * window and with prepare completes every op, none failed.
 */
static void test_module_busy(void **state)
{
	(void)state;
	const char *const root = getenv("REPRISE_BUILD_ROOT");
	assert_non_null(root);
	for (int v = 7; v <= 8; v++) {
		char path[4096], sym[64], eb[RP_ERRBUF_SIZE] = "";
		snprintf(path, sizeof(path), "%s/tests/replay/reprise-backend-modtest%d.so", root, v);
		snprintf(sym, sizeof(sym), "rp__backend_modtest%d", v);
		const rp_backend_ops *ops = NULL;
		if (rp__backend_module_open(path, sym, &ops, eb) != 0)
			fail_msg("%s", eb);
		assert_int_equal(ops->version, v);
		if (rp_backend_check(ops, eb) != 0)
			fail_msg("%s", eb);
		/* Its option table (rp_backend_opt as the module was built) read through the shared descriptor. */
		rp_backend_parsed p;
		assert_int_equal(rp_backend_parse_opts(ops, "chunk=16M,mode=fast", &p, eb), 0);
		assert_int_equal(p.vals[0].u, 16u << 20);
		assert_int_equal(p.vals[1].u, 0);
		rp_backend_parsed_free(&p);
		assert_int_equal(rp_backend_parse_opts(ops, "chunk=2G", &p, eb), RP_E_RANGE);
		assert_non_null(strstr(eb, "option 'chunk': 2G is out of range (512 to 1G)"));
		assert_int_equal(rp_backend_parse_opts(ops, "mode=slow", &p, eb), RP_E_INVAL);
		assert_non_null(strstr(eb, "option 'mode': 'slow' is not one of fast, safe"));
		char terms[128];
		rp_bopt_terms(&ops->opts[0], terms, sizeof(terms));
		assert_string_equal(terms, "size, default 64k, 512 to 1G");
		for (uint32_t inflight = 1; inflight <= 4; inflight += 3)
			for (int prepare = 0; prepare <= 1; prepare++) {
				wl t;
				wl_init(&t, RP_SRC_LOADFILE_SMB);
				for (int i = 0; i < 10; i++)
					wl_add(&t, 1, RP_OP_STAT, "\\d\\f", 0, 0, 0, 0);
				rp_replay *r = NULL;
				int rc;
				const rp_replay_results *res = run_lossy(&t, ops, inflight, prepare, &r, &rc, eb);
				if (rc != 0)
					fail_msg("version %d, inflight %u, prepare %d: %s", v, inflight, prepare, eb);
				assert_int_equal(res->stop, RP_STOP_END);
				assert_int_equal(res->op[RP_OP_STAT].count, 10);
				assert_int_equal(res->failures, 0);
				rp_replay_destroy(r);
				wl_fini(&t);
			}
	}
}

static rp_backend_ops lossy_ops(void)
{
	rp_backend_ops lossy = good;
	lossy.name = "lossy";
	lossy.submit = lossy_submit;
	lossy.client_error = lossy_error;
	lossy.client_size = sizeof(lossy_client);
	return lossy;
}

/* Prepare stops at a lost state; a backend of before client_error never has it called (the run: stop_rows). */
static void test_client_error(void **state)
{
	(void)state;
	rp_backend_ops lossy = lossy_ops();
	/* Prepare stops at the lost state too: two files to make, the state lost after the first one's 3 calls. */
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	wl_add(&t, 1, RP_OP_STAT, "\\a", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "\\b", 0, 0, 0, 0);
	wl_add(&t, 1, RP_OP_STAT, "\\c", 0, 0, 0, 0);
	rp_replay *r = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	int rc;
	run_lossy(&t, &lossy, 1, true, &r, &rc, eb);
	assert_int_equal(rc, RP_E_IO);
	assert_non_null(strstr(eb, "the server went away"));
	assert_int_equal(atomic_load(&seen[RP_OP_STAT]), 0); /* the run never started */
	rp_replay_destroy(r);
	/* A version 5 backend has no such hook: whatever lies in the field is not called. */
	lossy.version = 5;
	wl_fini(&t);
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	for (int i = 0; i < 10; i++)
		wl_add(&t, 1, RP_OP_MKDIR, "\\d", 0, 0, 0, 0);
	const rp_replay_results *res = run_lossy(&t, &lossy, 1, false, &r, &rc, eb);
	assert_int_equal(rc, 0);
	assert_int_equal(res->stop, RP_STOP_END);
	assert_int_equal(atomic_load(&seen[RP_OP_MKDIR]), 10);
	rp_replay_destroy(r);
	wl_fini(&t);
}

/* ---- 6. One error policy: a backend error from submit stops the run, sync or async, in prepare too ---- */

/* Each client state takes LOSE_AFTER mkdirs, then its submit fails with RP_E_IO (status EIO set first). */
static int failing_submit(void *b, void *cs, rp_breq *req)
{
	lossy_client *const c = cs;
	if (c->ops >= LOSE_AFTER) {
		req->status = EIO;
		return RP_E_IO;
	}
	c->ops++;
	return rec_submit(b, cs, req);
}

static rp_backend_ops failing_ops(bool async)
{
	rp_backend_ops failing = good;
	failing.name = "failing";
	failing.submit = failing_submit;
	failing.client_size = sizeof(lossy_client);
	failing.caps = async ? RP_BCAP_ASYNC : 0;
	failing.poll = async ? rec_poll : NULL;
	return failing;
}

/*
 * A run of 10 mkdirs whose backend cannot go on after LOSE_AFTER of them:
 * a client state lost (client_error) or a submit that fails, one at a time
 * or in a window, sync or async.  The client stops there: the run fails with
 * the words expected, its results are there.
 */
/*
 * Each client state's first LOSE_AFTER mkdirs find the directory there
 * (status EEXIST); then its submit fails without saying a status, which must
 * not be the previous op's.
 */
static int forgetful_submit(void *b, void *cs, rp_breq *req)
{
	lossy_client *const c = cs;
	if (c->ops >= LOSE_AFTER)
		return RP_E_IO;
	c->ops++;
	atomic_fetch_add(&seen[req->op->op], 1);
	req->status = EEXIST;
	if (req->cb)
		req->cb(req);
	return 0;
}

enum stop_kind {
	STOP_LOST,      /* lossy_ops: client_error says the state is lost */
	STOP_FAILING,   /* failing_ops: submit fails, status EIO */
	STOP_FORGETFUL, /* forgetful_submit: submit fails, no status */
};

static rp_backend_ops stop_ops(enum stop_kind kind, bool async)
{
	if (kind == STOP_LOST)
		return lossy_ops();
	rp_backend_ops ops = failing_ops(async);
	if (kind == STOP_FORGETFUL) {
		ops.name = "forgetful";
		ops.submit = forgetful_submit;
	}
	return ops;
}

/*
 * A run of 10 mkdirs whose backend cannot go on after LOSE_AFTER of them:
 * a client state lost (client_error) or a submit that fails, one at a time
 * or in a window, sync or async.  The client stops there: the run fails with
 * the words expected, its results are there.
 */
#define FORGOT "the forgetful backend cannot go on (mkdir: input/output error)"
static const struct stop_row {
	enum stop_kind kind;
	bool async;
	uint32_t inflight;
	const char *says;
	uint64_t count, failures; /* mkdirs counted in the results, and failed (the one the backend could not do) */
} stop_rows[] = {
	{ STOP_LOST, false, 1, "lossy://x: the server went away after 3 ops", LOSE_AFTER, 0 },
	{ STOP_LOST, false, 4, "lossy://x: the server went away after 3 ops", LOSE_AFTER, 0 },
	/* Before, an async backend's error was one more failed op and the run went on to the end. */
	{ STOP_FAILING, false, 1, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	{ STOP_FAILING, false, 4, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	{ STOP_FAILING, true, 1, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	{ STOP_FAILING, true, 4, "the failing backend cannot go on (mkdir: Input/output error [EIO])", LOSE_AFTER + 1, 1 },
	/* Before, the failed op showed what the one before it had left (or whatever the stack held): EEXIST. */
	{ STOP_FORGETFUL, false, 1, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
	{ STOP_FORGETFUL, false, 4, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
	{ STOP_FORGETFUL, true, 1, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
	{ STOP_FORGETFUL, true, 4, FORGOT, LOSE_AFTER + 1, LOSE_AFTER + 1 },
};

static void test_backend_stops(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(stop_rows) / sizeof(stop_rows[0]); i++) {
		const struct stop_row *const row = &stop_rows[i];
		const rp_backend_ops ops = stop_ops(row->kind, row->async);
		wl t;
		wl_init(&t, RP_SRC_LOADFILE_SMB);
		for (int k = 0; k < 10; k++)
			wl_add(&t, 1, RP_OP_MKDIR, "\\d", 0, 0, 0, 0);
		rp_replay *r = NULL;
		char eb[RP_ERRBUF_SIZE] = "";
		int rc;
		const rp_replay_results *res = run_lossy(&t, &ops, row->inflight, false, &r, &rc, eb);
		if (rc != RP_E_IO || !strstr(eb, row->says))
			fail_msg("row %zu: rc %d: %s", i, rc, eb);
		if (res->stop != RP_STOP_ERROR || atomic_load(&seen[RP_OP_MKDIR]) != LOSE_AFTER ||
		    res->op[RP_OP_MKDIR].count != row->count || res->failures != row->failures)
			fail_msg("row %zu: stop %d, %u mkdirs seen, %" PRIu64 " counted, %" PRIu64 " failed", i, (int)res->stop,
				 (unsigned)atomic_load(&seen[RP_OP_MKDIR]), res->op[RP_OP_MKDIR].count, res->failures);
		rp_replay_destroy(r);
		wl_fini(&t);
	}
}

/* Prepare: a submit's error fails it naming the op, the item and the status; the run never starts. */
static void test_submit_error_stops(void **state)
{
	(void)state;
	const rp_backend_ops failing = failing_ops(false);
	/* Prepare: mkdir p, mkdir p/a, open p/a/x, then its close fails: the run fails naming it and never starts. */
	wl t;
	wl_init(&t, RP_SRC_LOADFILE_SMB);
	const char *const dirs[] = { "\\p\\a\\x", "\\p\\b\\x", "\\p\\c\\x", "\\p\\d\\x" };
	for (int i = 0; i < 4; i++)
		wl_add(&t, 1, RP_OP_STAT, dirs[i], 0, 0, 0, 0);
	rp_replay *r = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	int rc;
	run_lossy(&t, &failing, 1, true, &r, &rc, eb);
	assert_int_equal(rc, RP_E_IO);
	assert_non_null(strstr(eb, "prepare: /nonexistent: the failing backend cannot go on (close of p/a/x: Input/output error [EIO])"));
	assert_int_equal(atomic_load(&seen[RP_OP_STAT]), 0); /* the run never started */
	rp_replay_destroy(r);
	wl_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_broken_vtables),
		cmocka_unit_test(test_submit_error_stops),
		cmocka_unit_test(test_backend_stops),
		cmocka_unit_test(test_schemes),
		cmocka_unit_test(test_typed_options),
		cmocka_unit_test(test_option_items),
		cmocka_unit_test(test_unsupported_ops),
		cmocka_unit_test(test_module_loader),
		cmocka_unit_test(test_client_error),
		cmocka_unit_test(test_module_busy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
