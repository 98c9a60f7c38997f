/* converters/anonymize.c: keyed pseudonyms per component, structure kept, ids, the sink filter, hostile names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "converters/anonymize.h"

static const char key1[] = "0123456789abcdef-key-one";
static const char key2[] = "0123456789abcdef-key-two";

static rp_anon *mk(const char *key, bool keep_ext)
{
	rp_anon *a = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	const rp_anon_opts o = { .keep_ext = keep_ext };
	if (rp_anon_create(&a, key, strlen(key), &o, NULL, eb) < 0)
		fail_msg("%s", eb);
	return a;
}

/* role-mapped s, as a malloc'd NUL-terminated copy */
static char *map(rp_anon *a, rp_anon_role role, const char *s, size_t n)
{
	const char *r = NULL;
	uint32_t rl = 0;
	char eb[RP_ERRBUF_SIZE] = "";
	if (rp_anon_map(a, role, s, (uint32_t)n, &r, &rl, eb) < 0)
		fail_msg("%s", eb);
	char *const c = malloc(rl + 1);
	assert_non_null(c);
	memcpy(c, r, rl);
	c[rl] = '\0';
	return c;
}

static char *mp(rp_anon *a, const char *s)
{
	return map(a, RP_ANON_PATH, s, strlen(s));
}

static bool is_pseudonym(const char *p, size_t n)
{
	if (n != RP_ANON_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '2' && p[i] <= '7')))
			return false;
	return true;
}

static void test_short_key(void **state)
{
	(void)state;
	rp_anon *a = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_anon_create(&a, "short", 5, NULL, NULL, eb), RP_E_INVAL);
	assert_null(a);
	assert_non_null(strstr(eb, "at least 16"));
	rp_anon_destroy(NULL);
}

static void test_keyed_and_deterministic(void **state)
{
	(void)state;
	rp_anon *const a = mk(key1, false), *const b = mk(key1, false), *const c = mk(key2, false);
	char *const pa = mp(a, "home/alice/report.doc");
	char *const pb = mp(b, "home/alice/report.doc"); /* another trace, the same key */
	char *const pc = mp(c, "home/alice/report.doc");
	assert_string_equal(pa, pb);
	assert_int_equal(strlen(pa), 3 * RP_ANON_NAME_LEN + 2);
	assert_true(is_pseudonym(pa, RP_ANON_NAME_LEN));
	/* another key: no component the same */
	for (int i = 0; i < 3; i++)
		assert_memory_not_equal(pa + 13 * i, pc + 13 * i, RP_ANON_NAME_LEN);
	assert_null(strstr(pa, "alice"));
	free(pa);
	free(pb);
	free(pc);
	rp_anon_destroy(a);
	rp_anon_destroy(b);
	rp_anon_destroy(c);
}

static void test_structure_kept(void **state)
{
	(void)state;
	rp_anon *const a = mk(key1, false);
	char *const x = mp(a, "proj/src/../src/./main.c");
	/* proj / S / .. / S / . / M: the same name twice gets one pseudonym; . and .. stay */
	assert_int_equal(strlen(x), 4 * 12 + 2 + 1 + 5);
	assert_memory_equal(x + 13, x + 13 + 13 + 3, 12);
	assert_memory_equal(x + 25, "/../", 4);
	assert_memory_equal(x + 13 + 13 + 3 + 12, "/./", 3);
	char *const y = mp(a, "proj/src/util.c"), *const z = mp(a, "proj/doc");
	assert_memory_equal(x, y, 26); /* a shared prefix stays shared */
	assert_memory_equal(x, z, 13);
	assert_memory_not_equal(y + 13, z + 13, 12);
	char *const abs = mp(a, "/proj//src/"), *const smb = mp(a, "\\proj\\src");
	assert_int_equal(strlen(abs), 1 + 12 + 2 + 12 + 1); /* leading /, empty component, trailing / */
	assert_memory_equal(abs + 1, x, 12);
	assert_memory_equal(abs + 13, "//", 2);
	assert_memory_equal(abs + 15, x + 13, 12);
	assert_int_equal(abs[27], '/');
	assert_int_equal(smb[0], '\\'); /* SMB separators stay \ */
	assert_memory_equal(smb + 1, x, 12);
	assert_int_equal(smb[13], '\\');
	char *const dots = mp(a, "../..");
	assert_string_equal(dots, "../..");
	char *const empty = mp(a, "");
	assert_string_equal(empty, "");
	char *const three = mp(a, "...");
	assert_true(is_pseudonym(three, strlen(three))); /* only . and .. are structure */
	free(x);
	free(y);
	free(z);
	free(abs);
	free(smb);
	free(dots);
	free(empty);
	free(three);
	rp_anon_destroy(a);
}

static void test_keep_ext(void **state)
{
	(void)state;
	rp_anon *const a = mk(key1, true), *const n = mk(key1, false);
	static const struct {
		const char *name, *ext;
	} cases[] = {
		{ "main.c", ".c" },   { "a.tar.gz", ".gz" }, { "Report.DOCX", ".DOCX" }, { ".bashrc", "" },
		{ "x.secret", "" },   { "x.c-1", "" },       { "noext", "" },            { "trail.", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *const p = mp(a, cases[i].name), *const q = mp(n, cases[i].name);
		assert_int_equal(strlen(p), RP_ANON_NAME_LEN + strlen(cases[i].ext));
		assert_string_equal(p + RP_ANON_NAME_LEN, cases[i].ext);
		assert_int_equal(strlen(q), RP_ANON_NAME_LEN); /* off by default */
		assert_memory_equal(p, q, RP_ANON_NAME_LEN);   /* the name part does not depend on it */
		free(p);
		free(q);
	}
	rp_anon_destroy(a);
	rp_anon_destroy(n);
}

static void test_patterns(void **state)
{
	(void)state;
	rp_anon *const a = mk(key1, false), *const e = mk(key1, true);
	char *const name = mp(a, "budget");
	char *const exact = map(a, RP_ANON_PATTERN, "budget", 6);
	assert_string_equal(exact, name); /* a pattern without wildcards finds the mapped file */
	char *const star = map(a, RP_ANON_PATTERN, "*", 1), *const all = map(a, RP_ANON_PATTERN, "*.*", 3);
	assert_string_equal(star, "*");
	assert_string_equal(all, "*.*");
	char *const mixed = map(a, RP_ANON_PATTERN, "budget?<x>\"", 11);
	assert_memory_equal(mixed, name, 12);
	assert_int_equal(mixed[12], '?');
	assert_int_equal(mixed[13], '<');
	assert_int_equal(mixed[26], '>');
	assert_int_equal(mixed[27], '"');
	char *const ext = map(e, RP_ANON_PATTERN, "*.txt", 5), *const noext = map(a, RP_ANON_PATTERN, "*.txt", 5);
	assert_string_equal(ext, "*.txt");
	assert_int_equal(strlen(noext), 13);
	assert_null(strstr(noext, "txt"));
	char *const dir = map(a, RP_ANON_PATTERN, "budget\\*", 8);
	assert_memory_equal(dir, name, 12);
	assert_string_equal(dir + 12, "\\*");
	free(name);
	free(exact);
	free(star);
	free(all);
	free(mixed);
	free(ext);
	free(noext);
	free(dir);
	rp_anon_destroy(a);
	rp_anon_destroy(e);
}

static void test_xattrs(void **state)
{
	(void)state;
	rp_anon *const a = mk(key1, false);
	char *const u = map(a, RP_ANON_XATTR, "user.project_x", 14), *const t = map(a, RP_ANON_XATTR, "trusted.k", 9);
	assert_memory_equal(u, "user.", 5);
	assert_true(is_pseudonym(u + 5, strlen(u + 5)));
	assert_memory_equal(t, "trusted.", 8);
	char *const s = map(a, RP_ANON_XATTR, "security.selinux", 16), *const y = map(a, RP_ANON_XATTR, "system.posix_acl_access", 23);
	assert_string_equal(s, "security.selinux");
	assert_string_equal(y, "system.posix_acl_access");
	char *const ea = map(a, RP_ANON_XATTR, "DosStream/x", 11), *const bare = map(a, RP_ANON_XATTR, "user.", 5);
	assert_true(is_pseudonym(ea, strlen(ea))); /* no namespace: mapped whole, separators and all */
	assert_string_equal(bare, "user.");
	free(u);
	free(t);
	free(s);
	free(y);
	free(ea);
	free(bare);
	rp_anon_destroy(a);
}

static void test_ids(void **state)
{
	(void)state;
	rp_anon *const a = mk(key1, false), *const b = mk(key2, false);
	static const uint32_t kept[] = { 0, 65534, UINT32_MAX };
	for (size_t i = 0; i < 3; i++) {
		uint32_t v = 1;
		assert_int_equal(rp_anon_id(a, kept[i], false, &v), 0);
		assert_int_equal(v, kept[i]);
		assert_int_equal(rp_anon_id(a, kept[i], true, &v), 0);
		assert_int_equal(v, kept[i]);
	}
	uint32_t u1 = 0, u2 = 0, g1 = 0, o1 = 0;
	assert_int_equal(rp_anon_id(a, 1000, false, &u1), 0);
	assert_int_equal(rp_anon_id(a, 1000, false, &u2), 0);
	assert_int_equal(rp_anon_id(a, 1000, true, &g1), 0);
	assert_int_equal(rp_anon_id(b, 1000, false, &o1), 0);
	assert_int_equal(u1, u2);
	assert_true(u1 >= RP_ANON_ID_BASE && u1 < 0x80000000u);
	assert_true(g1 >= RP_ANON_ID_BASE && g1 < 0x80000000u);
	assert_int_not_equal(u1, g1); /* uid and gid spaces are separate */
	assert_int_not_equal(u1, o1);
	for (uint32_t i = 1; i < 2000; i++) {
		uint32_t v = 0;
		assert_int_equal(rp_anon_id(a, i, false, &v), 0);
		assert_true(v == 65534 || (v >= RP_ANON_ID_BASE && v < 0x80000000u));
	}
	rp_anon_destroy(a);
	rp_anon_destroy(b);
}

static void test_hostile(void **state)
{
	(void)state;
	rp_anon *const a = mk(key1, true);
	/* every byte value in one component (no separator): one pseudonym in the safe alphabet */
	char all[256];
	size_t n = 0;
	for (int c = 0; c < 256; c++)
		if (c != '/' && c != '\\')
			all[n++] = (char)c;
	char *const p = map(a, RP_ANON_PATH, all, n);
	assert_true(is_pseudonym(p, strlen(p)));
	/* a NUL inside a name is a byte like any other */
	char *const z1 = map(a, RP_ANON_PATH, "a\0b", 3), *const z2 = map(a, RP_ANON_PATH, "a\0c", 3);
	assert_true(is_pseudonym(z1, strlen(z1)));
	assert_string_not_equal(z1, z2);
	/* a 60000-byte component: one pseudonym */
	char *const big = malloc(60000);
	assert_non_null(big);
	memset(big, 'q', 60000);
	char *const pb = map(a, RP_ANON_PATH, big, 60000);
	assert_true(is_pseudonym(pb, strlen(pb)));
	/* 30000 one-byte components would be 390 KB once mapped: refused, not cut */
	for (size_t i = 0; i < 60000; i += 2) {
		big[i] = 'x';
		big[i + 1] = '/';
	}
	const char *r = NULL;
	uint32_t rl = 0;
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_anon_map(a, RP_ANON_PATH, big, 60000, &r, &rl, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "longer than"));
	/* and the mapper still works after */
	char *const after = mp(a, "x");
	assert_true(is_pseudonym(after, strlen(after)));
	free(p);
	free(z1);
	free(z2);
	free(big);
	free(pb);
	free(after);
	rp_anon_destroy(a);
}

static int count_map(void *ctx, const char *kind, const char *orig, uint32_t olen, const char *pseu, uint32_t plen)
{
	char *const seen = ctx;
	char line[256];
	snprintf(line, sizeof(line), "%s %.*s %.*s;", kind, (int)olen, orig, (int)plen, pseu);
	strncat(seen, line, 4095 - strlen(seen));
	return 0;
}

static const char *str_of(rp_memsink *m, uint32_t id)
{
	uint32_t l = 0;
	const char *const s = rp_memsink_string(m, id, &l);
	assert_non_null(s);
	return s;
}

/* The filter over a memsink: the header cleared, only used strings out, every other field as it was. */
static void test_sink_filter(void **state)
{
	(void)state;
	rp_memsink m;
	assert_int_equal(rp_memsink_init(&m), 0);
	rp_anon *a = NULL;
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_anon_create(&a, key1, strlen(key1), NULL, &m.base, eb), 0);
	rp_sink *const s = rp_anon_sink(a);
	rp_trace_meta meta = { .source = RP_SRC_PCAP_SMB, .flags = RP_META_TIMED, .capture_start_ns = 1700000000000000000 };
	strcpy(meta.host, "fileserver.corp");
	strcpy(meta.source_name, "eth0 port 445 and host alice-pc");
	assert_int_equal(s->meta(s, &meta), 0);
	static const char *const strs[] = { "alice/secret.txt", "alice/old.txt", "never-used-secret", "user.tag", "*.txt",
					    "../alice/target" };
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(s->string(s, i + 1, strs[i], (uint32_t)strlen(strs[i])), 0);
	assert_int_equal(s->string(s, 9, "x", 1), RP_E_STATE); /* ids must be dense */
	rp_op ops[6];
	memset(ops, 0, sizeof(ops));
	ops[0] = (rp_op){ .op = RP_OP_OPEN, .path = 1, .handle = 7, .t_start = 10, .t_end = 20, .client = 3, .want = 3 };
	ops[1] = (rp_op){ .op = RP_OP_RENAME, .path = 2, .path2 = 1, .t_start = 30, .status = 2 };
	ops[2] = (rp_op){ .op = RP_OP_SETXATTR, .path = 1, .path2 = 4, .length = 5 };
	ops[3] = (rp_op){ .op = RP_OP_READDIR, .path = 2, .path2 = 5, .result = 4 };
	ops[4] = (rp_op){ .op = RP_OP_SYMLINK, .path = 2, .path2 = 6 };
	ops[5] = (rp_op){ .op = RP_OP_SETATTR, .handle = 7, .attrs = RP_SA_UID | RP_SA_GID | RP_SA_ATIME | RP_SA_MTIME,
			  .uid = 1000, .gid = 100, .atime = 1700000000000000000 - 5, .mtime = 1700000000000000000 + 7 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(s->op(s, &ops[i]), 0);
	rp_op bad = { .op = RP_OP_STAT, .path = 42 };
	assert_int_equal(s->op(s, &bad), RP_E_STATE);
	assert_int_equal(s->finish(s), 0);

	assert_int_equal(m.meta.capture_start_ns, 0);
	assert_string_equal(m.meta.host, "");
	assert_string_equal(m.meta.source_name, "");
	assert_int_equal(m.meta.flags, RP_META_TIMED | RP_META_ANONYMIZED);
	assert_int_equal(m.meta.source, RP_SRC_PCAP_SMB);
	assert_int_equal(m.n_ops, 6);
	/* 5 strings used (one twice, in one role), the unused one dropped */
	assert_int_equal(rp_strtab_count(m.strings), 5);
	for (uint32_t i = 1; i <= 5; i++) {
		const char *const t = str_of(&m, i);
		assert_null(strstr(t, "alice"));
		assert_null(strstr(t, "secret"));
		assert_null(strstr(t, "old"));
		assert_null(strstr(t, "tag"));
		assert_null(strstr(t, "target"));
	}
	assert_int_equal(m.ops[1].path2, m.ops[0].path); /* a rename target is the same path as the open's */
	assert_memory_equal(str_of(&m, m.ops[0].path), str_of(&m, m.ops[1].path), 13); /* alice/ shared */
	assert_memory_equal(str_of(&m, m.ops[2].path2), "user.", 5);
	assert_int_equal(strlen(str_of(&m, m.ops[3].path2)), 13); /* "*" and a pseudonym of ".txt" */
	assert_memory_equal(str_of(&m, m.ops[4].path2), "../", 3);
	assert_memory_equal(str_of(&m, m.ops[4].path2) + 3, str_of(&m, m.ops[0].path), 13);
	/* everything but names, ids and set times as it was */
	for (int i = 0; i < 6; i++) {
		rp_op w = ops[i], g = m.ops[i];
		w.path = w.path2 = g.path = g.path2 = 0;
		w.uid = w.gid = g.uid = g.gid = 0;
		w.atime = w.mtime = g.atime = g.mtime = 0;
		assert_memory_equal(&w, &g, sizeof(w));
	}
	assert_true(m.ops[5].uid >= RP_ANON_ID_BASE);
	assert_true(m.ops[5].gid >= RP_ANON_ID_BASE);
	assert_int_equal(m.ops[5].atime, RP_ANON_EPOCH_NS - 5); /* relative to the capture start */
	assert_int_equal(m.ops[5].mtime, RP_ANON_EPOCH_NS + 7);

	rp_anon_stats st;
	rp_anon_get_stats(a, &st);
	assert_int_equal(st.ops, 6);
	assert_int_equal(st.strings_in, 6);
	assert_int_equal(st.strings_out, 5);
	assert_int_equal(st.ids, 2);
	assert_int_equal(st.times, 2);
	char seen[4096] = "";
	assert_int_equal(rp_anon_each(a, count_map, seen), 0);
	assert_non_null(strstr(seen, "name alice "));
	assert_non_null(strstr(seen, "name secret.txt "));
	assert_non_null(strstr(seen, "name tag "));
	assert_null(strstr(seen, "never-used")); /* the map holds what the trace used */
	char want[64];
	snprintf(want, sizeof(want), "uid 1000 %u;", m.ops[5].uid);
	assert_non_null(strstr(seen, want));
	snprintf(want, sizeof(want), "gid 100 %u;", m.ops[5].gid);
	assert_non_null(strstr(seen, want));
	rp_anon_destroy(a);
	rp_memsink_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_key),      cmocka_unit_test(test_keyed_and_deterministic),
		cmocka_unit_test(test_structure_kept), cmocka_unit_test(test_keep_ext),
		cmocka_unit_test(test_patterns),       cmocka_unit_test(test_xattrs),
		cmocka_unit_test(test_ids),            cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_sink_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
