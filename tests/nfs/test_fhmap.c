/* Unit tests: the NFS handle -> path map (built with RP_FHMAP_MAX 16 to exercise eviction). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "capture/rpc/rpc.h"
#include "nfs_harness.h"

typedef struct fx {
	env *e;
	rp_fhmap *m;
} fx;

static int setup(void **state)
{
	fx *const f = calloc(1, sizeof(*f));
	f->e = env_new(RP_L4_TCP);
	f->m = rp__fhmap(f->e->cx);
	*state = f;
	return f->m ? 0 : -1;
}

static int teardown(void **state)
{
	fx *const f = *state;
	env_free(f->e);
	free(f);
	return 0;
}

/* A 4-byte handle from a number. */
static const uint8_t *H(uint32_t n)
{
	static uint8_t buf[8][4];
	static unsigned i;
	uint8_t *const b = buf[i++ & 7];
	b[0] = (uint8_t)(n >> 24);
	b[1] = (uint8_t)(n >> 16);
	b[2] = (uint8_t)(n >> 8);
	b[3] = (uint8_t)n;
	return b;
}

/* The text of path string id: capctx defines strings to the sink with the
 * first op naming them, so emit one. */
static const char *S(fx *f, uint32_t id)
{
	const rp_op op = { .op = RP_OP_STAT, .path = id, .t_end = RP_TIME_UNKNOWN };
	rp__cap_emit(f->e->cx, &op);
	uint32_t len = 0;
	const char *const s = rp_memsink_string(&f->e->ms, id, &len);
	return s ? s : "(none)";
}

/* The path of handle n as a C string (valid until the next call). */
static const char *P(fx *f, uint32_t n, bool *synth)
{
	return S(f, rp__fhmap_path(f->e->cx, f->m, H(n), 4, synth));
}

static void child(fx *f, uint32_t dir, const char *name, uint32_t fh)
{
	rp__fhmap_child(f->m, H(dir), 4, name, strlen(name), H(fh), 4);
}

static void paths(void **state)
{
	fx *const f = *state;
	bool synth = true;
	rp__fhmap_set(f->m, H(1), 4, "/", 1);
	child(f, 1, "a", 2);
	child(f, 2, "b", 3);
	assert_string_equal(P(f, 3, &synth), "/a/b");
	assert_false(synth);
	assert_string_equal(P(f, 1, &synth), "/");
	/* names the map refuses to learn */
	child(f, 2, "..", 1);
	child(f, 2, ".", 2);
	child(f, 2, "x/y", 9);
	child(f, 2, "", 9);
	child(f, 3, "self", 3);
	assert_string_equal(P(f, 1, &synth), "/");
	assert_string_equal(P(f, 2, &synth), "/a");
	assert_string_equal(P(f, 3, &synth), "/a/b");
	P(f, 9, &synth);
	assert_true(synth);
	/* "." and ".." in op paths resolve lexically, never above the root */
	assert_string_equal(S(f, rp__fhmap_child_path(f->e->cx, f->m, H(3), 4, "..", 2, &synth)), "/a");
	assert_string_equal(S(f, rp__fhmap_child_path(f->e->cx, f->m, H(1), 4, "..", 2, &synth)), "/");
	assert_string_equal(S(f, rp__fhmap_child_path(f->e->cx, f->m, H(2), 4, ".", 1, &synth)), "/a");
}

static void synthetic(void **state)
{
	fx *const f = *state;
	bool synth = false;
	const char *const p = P(f, 42, &synth);
	assert_true(synth);
	assert_memory_equal(p, "/.reprise/nfs/", 14);
	char first[64];
	strcpy(first, p);
	assert_string_equal(P(f, 42, &synth), first); /* stable */
	/* a child of an unknown directory hangs below its synthetic path */
	child(f, 42, "c", 43);
	synth = false;
	const char *const q = P(f, 43, &synth);
	assert_true(synth);
	assert_memory_equal(q, first, strlen(first));
	assert_string_equal(q + strlen(first), "/c");
}

static void rename_and_remove(void **state)
{
	fx *const f = *state;
	bool synth;
	rp__fhmap_set(f->m, H(1), 4, "/", 1);
	child(f, 1, "d", 2);
	child(f, 2, "f", 3);
	child(f, 1, "other", 4);
	rp__fhmap_rename(f->m, H(1), 4, "d", 1, H(4), 4, "e", 1);
	assert_string_equal(P(f, 3, &synth), "/other/e/f");
	/* rename onto an existing name: the old object loses its name binding */
	child(f, 1, "g", 5);
	rp__fhmap_rename(f->m, H(4), 4, "e", 1, H(1), 4, "g", 1);
	assert_string_equal(P(f, 2, &synth), "/g");
	rp__fhmap_rename(f->m, H(1), 4, "g", 1, H(1), 4, "h", 1);
	assert_string_equal(P(f, 2, &synth), "/h");
	assert_string_equal(P(f, 5, &synth), "/g"); /* kept its last path */
	/* remove: the name is gone, the handle keeps its path */
	rp__fhmap_unlink_name(f->m, H(2), 4, "f", 1);
	rp__fhmap_rename(f->m, H(2), 4, "f", 1, H(1), 4, "z", 1); /* no longer found */
	assert_string_equal(P(f, 3, &synth), "/h/f");
	rp__fhmap_forget(f->m, H(3), 4);
	P(f, 3, &synth);
	assert_true(synth);
}

static void handles(void **state)
{
	fx *const f = *state;
	assert_int_equal(rp__fhmap_handle(f->m, H(7), 4), 1);
	assert_int_equal(rp__fhmap_handle(f->m, H(8), 4), 2);
	assert_int_equal(rp__fhmap_handle(f->m, H(7), 4), 1);
	assert_int_equal(rp__fhmap_new_handle(f->m), 3);
	assert_int_equal(rp__fhmap_handle(f->m, H(9), 4), 4);
	assert_int_equal(rp__fhmap_handle(f->m, NULL, 0), 0);
	uint8_t big[RP_NFS4_FHSIZE + 1] = { 0 };
	assert_int_equal(rp__fhmap_handle(f->m, big, sizeof(big)), 0);
}

/* A cycle made by a hostile capture ends in a synthetic path, not a hang. */
static void cycles(void **state)
{
	fx *const f = *state;
	bool synth = false;
	child(f, 1, "a", 2);
	child(f, 2, "b", 1);
	P(f, 1, &synth);
	assert_true(synth);
}

static void add_link(fx *f, uint32_t fh, uint32_t dir, const char *name)
{
	rp__fhmap_link(f->m, H(fh), 4, H(dir), 4, name, strlen(name));
}

static void unlink_name(fx *f, uint32_t dir, const char *name)
{
	rp__fhmap_unlink_name(f->m, H(dir), 4, name, strlen(name));
}

/* LINK adds a name; removing either name leaves the file named by the other. */
static void links(void **state)
{
	fx *const f = *state;
	bool synth;
	rp__fhmap_set(f->m, H(1), 4, "/", 1);
	child(f, 1, "a", 2);
	child(f, 1, "f", 3);
	add_link(f, 3, 2, "g");
	assert_string_equal(P(f, 3, &synth), "/f"); /* the name it is shown by stays */
	/* remove the link: nothing changes */
	unlink_name(f, 2, "g");
	assert_string_equal(P(f, 3, &synth), "/f");
	unlink_name(f, 1, "f"); /* that was its last name we know: it keeps the path */
	assert_string_equal(P(f, 3, &synth), "/f");
	/* link again, remove the first name: the link takes over */
	child(f, 1, "f", 3);
	add_link(f, 3, 2, "g");
	unlink_name(f, 1, "f");
	assert_string_equal(P(f, 3, &synth), "/a/g");
	assert_false(synth);
	/* a lookup under another name shows it by that name and keeps the old one */
	add_link(f, 3, 1, "x");
	child(f, 1, "x", 3);
	assert_string_equal(P(f, 3, &synth), "/x");
	unlink_name(f, 1, "x");
	assert_string_equal(P(f, 3, &synth), "/a/g");
	/* several links: the most recent live one takes over */
	add_link(f, 3, 1, "p");
	add_link(f, 3, 1, "q");
	add_link(f, 3, 1, "r");
	unlink_name(f, 1, "r");
	unlink_name(f, 2, "g");
	assert_string_equal(P(f, 3, &synth), "/q");
	unlink_name(f, 1, "q");
	assert_string_equal(P(f, 3, &synth), "/p");
	/* LINK of a handle with no name yet names it */
	add_link(f, 9, 2, "nine");
	assert_string_equal(P(f, 9, &synth), "/a/nine");
	assert_false(synth);
	/* a new object under an alias's name takes the name from the alias */
	add_link(f, 3, 1, "s");
	child(f, 1, "s", 4);
	unlink_name(f, 1, "p");
	assert_string_equal(P(f, 3, &synth), "/p");
	assert_string_equal(P(f, 4, &synth), "/s");
	/* refused names */
	add_link(f, 3, 1, "..");
	add_link(f, 3, 1, "a/b");
	add_link(f, 2, 2, "self");
	unlink_name(f, 1, "..");
	assert_string_equal(P(f, 3, &synth), "/p");
	assert_string_equal(P(f, 2, &synth), "/a");
}

/* RENAME moves an alias; renaming one link of a file onto another changes nothing. */
static void rename_alias(void **state)
{
	fx *const f = *state;
	bool synth;
	rp__fhmap_set(f->m, H(1), 4, "/", 1);
	child(f, 1, "a", 2);
	child(f, 1, "f", 3);
	add_link(f, 3, 2, "g");
	rp__fhmap_rename(f->m, H(2), 4, "g", 1, H(1), 4, "h", 1);
	assert_string_equal(P(f, 3, &synth), "/f");
	unlink_name(f, 2, "g"); /* no longer a name of it */
	assert_string_equal(P(f, 3, &synth), "/f");
	unlink_name(f, 1, "f");
	assert_string_equal(P(f, 3, &synth), "/h");
	/* the shown name renamed onto its own alias: both stay */
	child(f, 1, "f", 3);
	rp__fhmap_rename(f->m, H(1), 4, "f", 1, H(1), 4, "h", 1);
	assert_string_equal(P(f, 3, &synth), "/f");
	unlink_name(f, 1, "f");
	assert_string_equal(P(f, 3, &synth), "/h");
	/* another file renamed onto an alias takes the name from it */
	child(f, 1, "f", 3);
	child(f, 1, "k", 4);
	rp__fhmap_rename(f->m, H(1), 4, "k", 1, H(1), 4, "h", 1);
	assert_string_equal(P(f, 4, &synth), "/h");
	unlink_name(f, 1, "f");
	assert_string_equal(P(f, 3, &synth), "/f"); /* no live name left */
	/* the shown name renamed away to a name the map refuses: the alias takes over */
	child(f, 2, "m", 5);
	add_link(f, 5, 1, "n");
	rp__fhmap_rename(f->m, H(2), 4, "m", 1, H(1), 4, "..", 2);
	assert_string_equal(P(f, 5, &synth), "/n");
	/* an alias renamed to a refused name is dropped */
	add_link(f, 5, 2, "o");
	rp__fhmap_rename(f->m, H(2), 4, "o", 1, H(1), 4, "x/y", 3);
	unlink_name(f, 1, "n");
	assert_string_equal(P(f, 5, &synth), "/n");
}

/* Aliases are bounded per handle, count towards the map's bound, and go with their handle. */
static void alias_eviction(void **state)
{
	fx *const f = *state;
	bool synth;
	rp__fhmap_set(f->m, H(1), 4, "/", 1);
	child(f, 1, "f", 3);
	for (int i = 0; i < 10; i++) {
		char name[8];
		snprintf(name, sizeof(name), "n%d", i);
		add_link(f, 3, 1, name);
	}
	/* 8 aliases kept (n2..n9): removing the name and each alias walks back to n2 */
	unlink_name(f, 1, "f");
	for (int i = 9; i > 2; i--) {
		char name[8], want[8];
		snprintf(name, sizeof(name), "n%d", i);
		snprintf(want, sizeof(want), "/n%d", i);
		assert_string_equal(P(f, 3, &synth), want);
		unlink_name(f, 1, name);
	}
	assert_string_equal(P(f, 3, &synth), "/n2");
	unlink_name(f, 1, "n2");
	assert_string_equal(P(f, 3, &synth), "/n2"); /* n0, n1 were dropped: no live name left */
	/* handle 4 with 8 aliases uses 9 of the 16 places: 7 more handles evict 3, then 4 */
	child(f, 1, "g", 4);
	for (int i = 0; i < 8; i++) {
		char name[8];
		snprintf(name, sizeof(name), "m%d", i);
		add_link(f, 4, 1, name);
	}
	for (uint32_t i = 100; i < 107; i++) {
		char name[8];
		snprintf(name, sizeof(name), "c%u", i);
		child(f, 1, name, i);
		P(f, 1, &synth); /* keep the root in use */
	}
	P(f, 3, &synth);
	assert_true(synth);
	P(f, 4, &synth);
	assert_true(synth); /* evicted with its aliases */
	/* its alias names are forgotten too: a new handle can take one */
	unlink_name(f, 1, "m3");
	child(f, 1, "m3", 200);
	assert_string_equal(P(f, 200, &synth), "/m3");
	assert_false(synth);
	assert_string_equal(P(f, 105, &synth), "/c105");
	/* many handles with aliases under a small bound stay consistent */
	for (uint32_t i = 300; i < 340; i++) {
		char name[8], al[8];
		snprintf(name, sizeof(name), "h%u", i);
		snprintf(al, sizeof(al), "l%u", i);
		child(f, 1, name, i);
		add_link(f, i, 1, al);
		P(f, 1, &synth);
	}
	unlink_name(f, 1, "h339");
	assert_string_equal(P(f, 339, &synth), "/l339");
	assert_false(synth);
}

/* Past RP_FHMAP_MAX the least recently used handle is forgotten. */
static void eviction(void **state)
{
	fx *const f = *state;
	bool synth;
	rp__fhmap_set(f->m, H(1), 4, "/", 1);
	for (uint32_t i = 100; i < 140; i++) {
		char name[16];
		snprintf(name, sizeof(name), "n%u", i);
		child(f, 1, name, i);
		P(f, 1, &synth); /* keep the root in use */
	}
	assert_string_equal(P(f, 139, &synth), "/n139");
	assert_false(synth);
	P(f, 100, &synth);
	assert_true(synth);
}

/* Paths longer than RP_NFS_PATH_MAX fall back to a synthetic path. */
static void long_paths(void **state)
{
	fx *const f = *state;
	bool synth = false;
	char name[RP_NFS_NAME_MAX];
	memset(name, 'x', sizeof(name));
	char root[RP_NFS_PATH_MAX - 100];
	memset(root, 'r', sizeof(root));
	root[0] = '/';
	rp__fhmap_set(f->m, H(1), 4, root, sizeof(root));
	rp__fhmap_child(f->m, H(1), 4, name, sizeof(name), H(2), 4);
	P(f, 1, &synth);
	assert_false(synth);
	const char *const p = P(f, 2, &synth);
	assert_true(synth);
	assert_memory_equal(p, "/.reprise/nfs/", 14);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(paths, setup, teardown),
		cmocka_unit_test_setup_teardown(synthetic, setup, teardown),
		cmocka_unit_test_setup_teardown(rename_and_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(handles, setup, teardown),
		cmocka_unit_test_setup_teardown(cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(long_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(links, setup, teardown),
		cmocka_unit_test_setup_teardown(rename_alias, setup, teardown),
		cmocka_unit_test_setup_teardown(alias_eviction, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
