/*
 * The backend interface, as a backend is chosen: vtables checked, URL
 * schemes picking the backend, typed option tables, and modules loaded
 * (running on a backend: test_replay_backend_run.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec_backend.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_broken_vtables),
		cmocka_unit_test(test_schemes),
		cmocka_unit_test(test_typed_options),
		cmocka_unit_test(test_option_items),
		cmocka_unit_test(test_module_loader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
