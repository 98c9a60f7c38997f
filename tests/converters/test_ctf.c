/* converters/ctf*.c: the reprise event decoder (every verdict), the start-time orderer, the trace search, and a recorded trace through babeltrace2. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "converters/ctf.h"
#include "converters/registry.h"
#include "formats/error.h"

#ifndef SRCDIR
#error "SRCDIR must name the source tree"
#endif

/* ---- decoding ---- */

/* The fields the provider writes for an open of "data.txt" (capture/lttng/lttng_tp.h). */
static size_t open_fields(rp_ctf_field *f)
{
	size_t n = 0;
	f[n++] = (rp_ctf_field){ .name = "pid", .kind = RP_CTF_UINT, .u = 100 };
	f[n++] = (rp_ctf_field){ .name = "tid", .kind = RP_CTF_UINT, .u = 101 };
	f[n++] = (rp_ctf_field){ .name = "ret", .kind = RP_CTF_SINT, .s = 3 };
	f[n++] = (rp_ctf_field){ .name = "t_start", .kind = RP_CTF_UINT, .u = 1000 };
	f[n++] = (rp_ctf_field){ .name = "t_end", .kind = RP_CTF_UINT, .u = 1040 };
	f[n++] = (rp_ctf_field){ .name = "flags", .kind = RP_CTF_UINT, .u = RP_SYSEV_STDIO };
	f[n++] = (rp_ctf_field){ .name = "a0", .kind = RP_CTF_SINT, .s = -100 };
	f[n++] = (rp_ctf_field){ .name = "a1", .kind = RP_CTF_SINT, .s = 0101 };
	f[n++] = (rp_ctf_field){ .name = "a2", .kind = RP_CTF_SINT, .s = 0644 };
	f[n++] = (rp_ctf_field){ .name = "a3", .kind = RP_CTF_SINT, .s = 0 };
	f[n++] = (rp_ctf_field){ .name = "a4", .kind = RP_CTF_SINT, .s = 0 };
	f[n++] = (rp_ctf_field){ .name = "a5", .kind = RP_CTF_SINT, .s = -1 };
	f[n++] = (rp_ctf_field){ .name = "_p0_length", .kind = RP_CTF_UINT, .u = 8 };
	f[n++] = (rp_ctf_field){ .name = "p0", .kind = RP_CTF_STR, .str = "data.txt", .len = 8 };
	f[n++] = (rp_ctf_field){ .name = "_p1_length", .kind = RP_CTF_UINT, .u = 0 };
	f[n++] = (rp_ctf_field){ .name = "p1", .kind = RP_CTF_STR, .str = "", .len = 0 };
	return n;
}

static rp_ctf_field *named(rp_ctf_field *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	fail_msg("no field %s", name);
	return NULL;
}

static void decodes_every_field(void **state)
{
	(void)state;
	rp_ctf_field f[RP_CTF_FIELDS_MAX];
	const size_t n = open_fields(f);
	rp_sysev ev;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_OK);
	assert_int_equal(ev.nr, RP_SYSEV_OPEN);
	assert_int_equal(ev.pid, 100);
	assert_int_equal(ev.tid, 101);
	assert_int_equal(ev.ret, 3);
	assert_int_equal(ev.t_start, 1000);
	assert_int_equal(ev.t_end, 1040);
	assert_int_equal(ev.flags, RP_SYSEV_STDIO);
	assert_int_equal(ev.a[0], -100);
	assert_int_equal(ev.a[1], 0101);
	assert_int_equal(ev.a[2], 0644);
	assert_int_equal(ev.a[5], -1);
	assert_int_equal(ev.plen[0], 8);
	assert_memory_equal(ev.p[0], "data.txt", 8);
	assert_null(ev.p[1]);
	assert_int_equal(ev.plen[1], 0);
	/* every kind by its name, and the names are the map's */
#define KIND(e, nr, name) assert_int_equal(rp_ctf_kind_by_name(name, strlen(name)), nr);
	RP_SYSEV_MAP(KIND)
#undef KIND
	assert_int_equal(rp_ctf_kind_by_name("opena", 5), 0);
	assert_int_equal(rp_ctf_kind_by_name("open", 3), 0);
}

static void empty_paths_are_absent(void **state)
{
	(void)state;
	rp_ctf_field f[RP_CTF_FIELDS_MAX];
	size_t n = open_fields(f);
	rp_sysev ev;
	/* fstatat(fd, "", AT_EMPTY_PATH): as in the rings, an empty path is none */
	named(f, n, "p0")->str = "";
	named(f, n, "p0")->len = 0;
	assert_int_equal(rp_ctf_decode("reprise:stat", f, n, &ev), RP_CTF_OK);
	assert_null(ev.p[0]);
	assert_int_equal(ev.plen[0], 0);
	assert_null(ev.p[1]);
	/* a rename: both */
	n = open_fields(f);
	named(f, n, "p1")->str = "moved.txt";
	named(f, n, "p1")->len = 9;
	assert_int_equal(rp_ctf_decode("reprise:rename", f, n, &ev), RP_CTF_OK);
	assert_int_equal(ev.nr, RP_SYSEV_RENAME);
	assert_memory_equal(ev.p[0], "data.txt", 8);
	assert_memory_equal(ev.p[1], "moved.txt", 9);
	/* fields the provider does not write are ignored */
	f[n++] = (rp_ctf_field){ .name = "extra", .kind = RP_CTF_OTHER };
	assert_int_equal(rp_ctf_decode("reprise:rename", f, n, &ev), RP_CTF_OK);
}

static void bad_events_say_why(void **state)
{
	(void)state;
	rp_ctf_field f[RP_CTF_FIELDS_MAX];
	size_t n = open_fields(f);
	rp_sysev ev;
	assert_int_equal(rp_ctf_decode("lttng_ust_statedump:start", f, n, &ev), RP_CTF_NOT_OURS);
	assert_int_equal(rp_ctf_decode(NULL, f, n, &ev), RP_CTF_NOT_OURS);
	assert_int_equal(rp_ctf_decode("reprise:", f, n, &ev), RP_CTF_UNKNOWN);
	assert_int_equal(rp_ctf_decode("reprise:frobnicate", f, n, &ev), RP_CTF_UNKNOWN);
	assert_int_equal(rp_ctf_decode("reprise:open", f, 0, &ev), RP_CTF_MISSING);
	/* each field missing in turn */
	for (size_t i = 0; i < n; i++) {
		if (f[i].name[0] == '_')
			continue; /* the sequences' lengths are not read: the strings carry theirs */
		rp_ctf_field g[RP_CTF_FIELDS_MAX];
		memcpy(g, f, n * sizeof(*f));
		g[i].name = "renamed";
		assert_int_equal(rp_ctf_decode("reprise:open", g, n, &ev), RP_CTF_MISSING);
	}
	/* wrong types */
	named(f, n, "pid")->kind = RP_CTF_STR;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_WRONG_TYPE);
	n = open_fields(f);
	named(f, n, "p0")->kind = RP_CTF_UINT;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_WRONG_TYPE);
	n = open_fields(f);
	named(f, n, "a3")->kind = RP_CTF_OTHER;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_WRONG_TYPE);
	n = open_fields(f);
	named(f, n, "p0")->str = NULL; /* a length without bytes */
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_WRONG_TYPE);
	/* out of range */
	n = open_fields(f);
	named(f, n, "tid")->u = (uint64_t)UINT32_MAX + 1;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_RANGE);
	n = open_fields(f);
	*named(f, n, "pid") = (rp_ctf_field){ .name = "pid", .kind = RP_CTF_SINT, .s = -1 };
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_RANGE);
	n = open_fields(f);
	named(f, n, "flags")->u = 0x10000;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_RANGE);
	n = open_fields(f);
	*named(f, n, "ret") = (rp_ctf_field){ .name = "ret", .kind = RP_CTF_UINT, .u = (uint64_t)INT64_MAX + 1 };
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_RANGE);
	/* a huge path: refused by its length, its bytes never read */
	n = open_fields(f);
	named(f, n, "p0")->len = RP_SYSEV_PATH_MAX + 1;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_TOO_LONG);
	named(f, n, "p0")->len = UINT64_MAX;
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_TOO_LONG);
	/* a signed value where unsigned is written is taken when it fits */
	n = open_fields(f);
	*named(f, n, "pid") = (rp_ctf_field){ .name = "pid", .kind = RP_CTF_SINT, .s = 7 };
	assert_int_equal(rp_ctf_decode("reprise:open", f, n, &ev), RP_CTF_OK);
	assert_int_equal(ev.pid, 7);
	for (int v = 0; v < RP_CTF_VERDICTS; v++)
		assert_string_not_equal(rp_ctf_verdict_name((rp_ctf_verdict)v), "?");
	assert_string_equal(rp_ctf_verdict_name(RP_CTF_VERDICTS), "?");
}

/* ---- ordering ---- */

typedef struct got {
	rp_sysev ev[64];
	char paths[64][16];
	size_t n;
	int fail_at; /* return an error at this event (0: never) */
} got;

static int collect(void *ctx, const rp_sysev *ev)
{
	got *const g = ctx;
	assert_true(g->n < 64);
	if (g->fail_at && (int)g->n + 1 == g->fail_at)
		return RP_E_IO;
	g->ev[g->n] = *ev;
	/* the path must stay readable until fn returns: copy it now */
	if (ev->p[0]) {
		assert_true(ev->plen[0] < 16);
		memcpy(g->paths[g->n], ev->p[0], ev->plen[0]);
		g->paths[g->n][ev->plen[0]] = '\0';
	}
	g->n++;
	return 0;
}

static rp_sysev at(uint64_t start, uint64_t end, int64_t tag)
{
	return (rp_sysev){ .nr = RP_SYSEV_READ, .t_start = start, .t_end = end, .a = { tag } };
}

static void orders_by_start_time(void **state)
{
	(void)state;
	got g = { .n = 0 };
	rp_ctf_order *o = NULL;
	assert_int_equal(rp_ctf_order_create(&o, collect, &g, 0, 0), 0);
	/* emission (end) order: a short call that began after a long one is recorded first */
	rp_sysev e = at(120, 130, 2);
	assert_int_equal(rp_ctf_order_push(o, &e, 130), 0);
	e = at(100, 150, 1); /* 50 ns long: begun first, ends last */
	assert_int_equal(rp_ctf_order_push(o, &e, 150), 0);
	e = at(140, 160, 3);
	assert_int_equal(rp_ctf_order_push(o, &e, 160), 0);
	/* with the longest lag 50 at 160, what began before 110 is out; 120 and 140 wait */
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ev[0].a[0], 1);
	e = at(300, 310, 4);
	assert_int_equal(rp_ctf_order_push(o, &e, 310), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(rp_ctf_order_flush(o), 0);
	assert_int_equal(g.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(g.ev[i].a[0], (int64_t)i + 1);
	assert_int_equal(rp_ctf_order_late(o), 0);
	/* equal starts keep the trace's order */
	e = at(500, 500, 5);
	assert_int_equal(rp_ctf_order_push(o, &e, 500), 0);
	e = at(500, 500, 6);
	assert_int_equal(rp_ctf_order_push(o, &e, 500), 0);
	assert_int_equal(rp_ctf_order_flush(o), 0);
	assert_int_equal(g.ev[4].a[0], 5);
	assert_int_equal(g.ev[5].a[0], 6);
	rp_ctf_order_destroy(o);
	rp_ctf_order_destroy(NULL);
}

static void a_call_longer_than_any_before_is_late(void **state)
{
	(void)state;
	got g = { .n = 0 };
	rp_ctf_order *o = NULL;
	assert_int_equal(rp_ctf_order_create(&o, collect, &g, 0, 0), 0);
	rp_sysev e = at(100, 101, 1);
	assert_int_equal(rp_ctf_order_push(o, &e, 101), 0);
	e = at(200, 201, 2);
	assert_int_equal(rp_ctf_order_push(o, &e, 201), 0); /* releases 1 */
	e = at(300, 301, 3);
	assert_int_equal(rp_ctf_order_push(o, &e, 301), 0); /* releases 2 */
	assert_int_equal(g.n, 2);
	e = at(150, 302, 4); /* began before 2, which is out already */
	assert_int_equal(rp_ctf_order_push(o, &e, 302), 0);
	assert_int_equal(rp_ctf_order_flush(o), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(rp_ctf_order_late(o), 1);
	rp_ctf_order_destroy(o);
}

static void holds_at_most_its_limits(void **state)
{
	(void)state;
	got g = { .n = 0 };
	rp_ctf_order *o = NULL;
	/* 3 events, 10 path bytes */
	assert_int_equal(rp_ctf_order_create(&o, collect, &g, 3, 10), 0);
	/* every event emitted at 1000 with a lag of 1000 seen: the horizon stays at 0, only the limits release */
	rp_sysev e = at(0, 1000, 0);
	assert_int_equal(rp_ctf_order_push(o, &e, 1000), 0);
	for (int i = 1; i <= 3; i++) {
		e = at((uint64_t)i, 1000, i);
		assert_int_equal(rp_ctf_order_push(o, &e, 1000), 0);
	}
	assert_int_equal(g.n, 1); /* the fourth made room by releasing the earliest */
	e = at(4, 1000, 4);
	e.p[0] = "abcdefgh";
	e.plen[0] = 8;
	assert_int_equal(rp_ctf_order_push(o, &e, 1000), 0);
	assert_int_equal(g.n, 2);
	e = at(5, 1000, 5);
	e.p[0] = "ijkl";
	e.plen[0] = 4;
	/* one out for the count, then 8 + 4 bytes are over 10: out until they fit */
	assert_int_equal(rp_ctf_order_push(o, &e, 1000), 0);
	assert_int_equal(g.n, 5);
	assert_int_equal(rp_ctf_order_flush(o), 0);
	assert_int_equal(g.n, 6);
	assert_string_equal(g.paths[4], "abcdefgh");
	assert_string_equal(g.paths[5], "ijkl");
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(g.ev[i].a[0], (int64_t)i);
	assert_int_equal(rp_ctf_order_late(o), 0);
	rp_ctf_order_destroy(o);
}

static void paths_are_copied_and_errors_stop(void **state)
{
	(void)state;
	got g = { .fail_at = 2 };
	rp_ctf_order *o = NULL;
	assert_int_equal(rp_ctf_order_create(&o, collect, &g, 0, 0), 0);
	char buf[8] = "one";
	rp_sysev e = at(10, 20, 1);
	e.p[0] = buf;
	e.plen[0] = 3;
	assert_int_equal(rp_ctf_order_push(o, &e, 20), 0);
	memcpy(buf, "XXX", 3); /* the caller's buffer is reused for the next event */
	e = at(30, 40, 2);
	e.p[0] = "";
	e.plen[0] = 0; /* empty: the orderer keeps what it is given */
	assert_int_equal(rp_ctf_order_push(o, &e, 40), 0);
	e = at(100, 100, 3);
	assert_int_equal(rp_ctf_order_push(o, &e, 100), RP_E_IO); /* releasing 2 fails */
	assert_int_equal(g.n, 1);
	assert_string_equal(g.paths[0], "one");
	rp_ctf_order_destroy(o); /* what is held is freed */
}

/* ---- summary ---- */

static void summary_names_the_counts(void **state)
{
	(void)state;
	rp_ctf_stats st = { .events = 12, .traces = 1, .other = 3, .late = 1, .bad = 2 };
	st.by_verdict[RP_CTF_MISSING] = 1;
	st.by_verdict[RP_CTF_TOO_LONG] = 1;
	char buf[512];
	rp_ctf_summary(&st, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "ctf: 12 events from 1 trace; other events 3, late 1; bad events 2 (missing field 1, path too long 1)");
	rp_sysmodel_stats ms = { .ops = 9, .processes = 2, .threads = 3, .nonfile = 4 };
	rp_ctf_summary(&st, &ms, buf, sizeof(buf));
	assert_string_equal(buf, "ctf: 12 events from 1 trace -> 9 ops, 2 processes, 3 threads; other events 3, late 1; bad events 2 "
				 "(missing field 1, path too long 1); not files 4");
	char small[16];
	rp_ctf_summary(&st, &ms, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_string_equal(small + sizeof(small) - 4, "...");
}

/* ---- trace directories ---- */

static void mkpath(const char *base, const char *rel)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	for (char *s = p + strlen(base) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			(void)mkdir(p, 0700);
			*s = '/';
		}
	FILE *const f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
}

static void finds_trace_directories(void **state)
{
	(void)state;
	char base[] = "/tmp/reprise-ctf-test-XXXXXX";
	assert_non_null(mkdtemp(base));
	char eb[RP_ERRBUF_SIZE];
	rp_ctf_dirs d;
	assert_false(rp_ctf_sniff_dir(base));
	assert_int_equal(rp_ctf_find_traces(base, &d, eb), RP_E_NOTTRACE);
	assert_non_null(strstr(eb, "no CTF trace"));
	mkpath(base, "ust/uid/0/64-bit/metadata");
	mkpath(base, "ust/uid/0/64-bit/index/metadata"); /* inside a trace: not another one */
	mkpath(base, "ust/uid/0/32-bit/metadata");
	mkpath(base, "a/b/c/d/e/f/g/metadata"); /* deeper than RP_CTF_DEPTH_MAX */
	mkpath(base, "ust/uid/1/64-bit/notmetadata");
	char p[4096];
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit", base);
	char l[4096];
	snprintf(l, sizeof(l), "%s/link", base);
	assert_int_equal(symlink(p, l), 0); /* not followed: the trace is not found twice */
	assert_true(rp_ctf_sniff_dir(base));
	assert_int_equal(rp_ctf_find_traces(base, &d, eb), 0);
	assert_int_equal(d.n, 2);
	snprintf(p, sizeof(p), "%s/ust/uid/0/32-bit", base);
	assert_string_equal(d.dir[0], p);
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit", base);
	assert_string_equal(d.dir[1], p);
	rp_ctf_dirs_free(&d);
	/* the trace directory itself */
	assert_int_equal(rp_ctf_find_traces(p, &d, eb), 0);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.dir[0], p);
	rp_ctf_dirs_free(&d);
	/* a file, or nothing */
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/metadata", base);
	assert_false(rp_ctf_sniff_dir(p));
	assert_int_equal(rp_ctf_find_traces("/nonexistent/reprise", &d, eb), RP_E_IO);
	/* the registry: a directory producer, never one for bytes */
	assert_non_null(rp_conv_producer_sniff_dir(base));
	assert_string_equal(rp_conv_producer_sniff_dir(base)->name, "ctf");
	assert_null(rp_conv_producer_sniff_dir("/nonexistent/reprise"));
	const rp_conv_producer *const byte_prod = rp_conv_producer_sniff("metadata", 8, base, NULL, 0);
	assert_true(!byte_prod || strcmp(byte_prod->name, "ctf") != 0);
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

static void checks_metadata_packets(void **state)
{
	(void)state;
	char eb[RP_ERRBUF_SIZE];
	/* plain text passes; packets must each fit and hold their header */
	assert_int_equal(rp_ctf_check_metadata("/* CTF 1.8 */ trace {}", 22, "m", eb), 0);
	assert_int_equal(rp_ctf_check_metadata("", 0, "m", eb), 0);
	uint8_t p[2 * 64];
	memset(p, 0, sizeof(p));
	for (int i = 0; i < 2; i++) {
		uint8_t *const h = p + 64 * i;
		h[0] = 0x57, h[1] = 0x1d, h[2] = 0xd1, h[3] = 0x75; /* 0x75d11d57 little-endian */
		h[24] = 0xf8, h[25] = 0x01;                         /* content 0x1f8 = 504 bits */
		h[28] = 0x00, h[29] = 0x02;                        /* packet 512 bits = 64 bytes */
	}
	assert_int_equal(rp_ctf_check_metadata(p, sizeof(p), "m", eb), 0);
	assert_int_equal(rp_ctf_check_metadata(p, sizeof(p) - 1, "m", eb), RP_E_CORRUPT);
	assert_string_equal(eb, "m: byte 64: metadata packet of 512 bits (content 504) does not fit the 63 bytes left");
	assert_int_equal(rp_ctf_check_metadata(p, 64 + 36, "m", eb), RP_E_CORRUPT);
	assert_string_equal(eb, "m: byte 64: metadata packet header cut short");
	p[64 + 29] = 0; /* a packet of 0 bytes would never advance */
	assert_int_equal(rp_ctf_check_metadata(p, sizeof(p), "m", eb), RP_E_CORRUPT);
	p[64 + 29] = 2;
	p[64 + 25] = 0x03; /* content over the packet */
	assert_int_equal(rp_ctf_check_metadata(p, sizeof(p), "m", eb), RP_E_CORRUPT);
	p[64 + 25] = 0x01;
	p[64] = 0;
	assert_int_equal(rp_ctf_check_metadata(p, sizeof(p), "m", eb), RP_E_CORRUPT);
	assert_string_equal(eb, "m: byte 64: no metadata packet magic (nor \"/* CTF\" text)");
	/* big-endian packets */
	uint8_t b[64] = { 0x75, 0xd1, 0x1d, 0x57 };
	b[26] = 0x01, b[27] = 0xf8, b[30] = 0x02, b[31] = 0x00;
	assert_int_equal(rp_ctf_check_metadata(b, sizeof(b), "m", eb), 0);
}

#if RP_HAVE_BABELTRACE2
/* ---- a recorded trace through babeltrace2 ---- */

typedef struct rec {
	got g; /* first: collect takes the context as a got */
	int64_t offset;
} rec;

static int clock_seen(void *ctx, int64_t offset_ns)
{
	((rec *)ctx)->offset = offset_ns;
	return 0;
}

static void reads_a_recorded_trace(void **state)
{
	(void)state;
	rec x = { .g = { .n = 0 } };
	rp_ctf_stats st;
	char eb[RP_ERRBUF_SIZE] = "";
	const int rc = rp_ctf_read(SRCDIR "/tests/data/ctf/direct", collect, clock_seen, &x, &st, eb);
	if (rc < 0)
		fail_msg("%s", eb);
	assert_int_equal(st.events, 15);
	assert_int_equal(st.other, 0);
	assert_int_equal(st.bad, 0);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.traces, 1);
	assert_true(st.have_clock);
	assert_true(x.offset > 1000000000ll * 1500000000ll); /* LTTng's clock counts from boot, its offset from 1970 */
	assert_int_equal(x.offset, st.clock_offset_ns);
	assert_int_equal(x.g.n, 15);
	for (size_t i = 1; i < x.g.n; i++)
		assert_true(x.g.ev[i].t_start >= x.g.ev[i - 1].t_start);
	assert_int_equal(x.g.ev[0].nr, RP_SYSEV_START);
	assert_string_equal(x.g.paths[0], "/tmp");
	/* the read of stdin, stored after the other thread's seek, comes out before it */
	assert_int_equal(x.g.ev[9].nr, RP_SYSEV_READ);
	assert_int_equal(x.g.ev[10].nr, RP_SYSEV_LSEEK);
	assert_int_not_equal(x.g.ev[9].tid, x.g.ev[10].tid);
	assert_int_equal(x.g.ev[7].nr, RP_SYSEV_RENAME);
	assert_string_equal(x.g.paths[7], "data.txt");
}

/* A copy of the recorded trace with one file changed, read: an error naming the trace, or events counted. */
static int read_damaged(const char *file, long keep, got *g, rp_ctf_stats *st, char *eb)
{
	char dir[] = "/tmp/reprise-ctf-bad-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "cp -r '%s/tests/data/ctf/direct/ust' '%s/' && truncate -s %ld '%s/ust/uid/0/64-bit/%s'",
		 SRCDIR, dir, keep, dir, file);
	assert_int_equal(system(cmd), 0);
	const int rc = rp_ctf_read(dir, collect, NULL, g, st, eb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return rc;
}

static void damaged_traces_are_errors(void **state)
{
	(void)state;
	got g = { .n = 0 };
	rp_ctf_stats st;
	char eb[RP_ERRBUF_SIZE] = "";
	/* a metadata packet cut short: refused before babeltrace2 2.0 sees it (it loops forever on one) */
	assert_int_equal(read_damaged("metadata", 100, &g, &st, eb), RP_E_CORRUPT);
	assert_non_null(strstr(eb, "/metadata: byte 0: metadata packet of 32768 bits"));
	assert_int_equal(read_damaged("metadata", 4096 + 20, &g, &st, eb), RP_E_CORRUPT);
	assert_non_null(strstr(eb, "byte 4096: metadata packet header cut short"));
	g.n = 0;
	eb[0] = '\0';
	/* a stream cut inside its packet: babeltrace2 refuses it or reads what is whole */
	const int rc = read_damaged("chan_0", 700, &g, &st, eb);
	assert_true(rc < 0 ? strstr(eb, "reprise-ctf-bad-") != NULL : st.events <= 15);
	g.n = 0;
	assert_true(read_damaged("metadata", 0, &g, &st, eb) < 0);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decodes_every_field),
		cmocka_unit_test(empty_paths_are_absent),
		cmocka_unit_test(bad_events_say_why),
		cmocka_unit_test(orders_by_start_time),
		cmocka_unit_test(a_call_longer_than_any_before_is_late),
		cmocka_unit_test(holds_at_most_its_limits),
		cmocka_unit_test(paths_are_copied_and_errors_stop),
		cmocka_unit_test(summary_names_the_counts),
		cmocka_unit_test(finds_trace_directories),
		cmocka_unit_test(checks_metadata_packets),
#if RP_HAVE_BABELTRACE2
		cmocka_unit_test(reads_a_recorded_trace),
		cmocka_unit_test(damaged_traces_are_errors),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
