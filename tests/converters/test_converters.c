/* converters/: the registry (sniffing picks the producer, unknown input is an error, outputs by name) and each loadfile policy choice on and off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "converters/loadfile.h"
#include "converters/registry.h"
#include "formats/semantics.h"

static bool fake_sniff(const void *head, size_t len, const char *path)
{
	return len >= 4 && memcmp(head, "FAKE", 4) == 0;
}

static const rp_conv_producer fake = { "fake", "a test producer", fake_sniff, NULL, false };

static void sniffing_picks_the_producer(void **state)
{
	(void)state;
	static const unsigned char rpz[] = { 'R', 'P', 'Z', 0x89, 2, 0, 0, 0 };
	static const char lf[] = "NTCreateX \"\\a\" 0x0 0x1 1 NT_STATUS_OK\n";
	static const char nfs[] = "GETATTR3 \"/a\" 0x00000000\n";
	static const unsigned char pcap[] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0 };
	const rp_conv_producer *const extra[] = { &fake };
	assert_string_equal(rp_conv_producer_sniff(rpz, sizeof(rpz), "x.rpz", NULL, 0)->name, "rpz");
	assert_string_equal(rp_conv_producer_sniff(lf, sizeof(lf) - 1, "x.txt", NULL, 0)->name, "loadfile");
	assert_string_equal(rp_conv_producer_sniff(nfs, sizeof(nfs) - 1, "x.txt", NULL, 0)->name, "loadfile");
	/* a capture is no built-in's: the CLI's extra entry, or nothing */
	assert_null(rp_conv_producer_sniff(pcap, sizeof(pcap), "x.pcap", NULL, 0));
	assert_string_equal(rp_conv_producer_sniff("FAKE\0data", 9, "x", extra, 1)->name, "fake");
	assert_ptr_equal(rp_conv_producer_find("loadfile"), rp_conv_producer_sniff(lf, sizeof(lf) - 1, "x", extra, 1));
	assert_null(rp_conv_producer_find("nope"));
}

static void unknown_input_is_a_clear_error(void **state)
{
	(void)state;
	static const unsigned char junk[] = { 0, 1, 2, 3, 0xff, 0xfe, 0, 0 };
	char eb[RP_ERRBUF_SIZE] = "";
	assert_null(rp_conv_producer_sniff(junk, sizeof(junk), "junk.bin", NULL, 0));
	assert_int_equal(rp_conv_unknown_input(junk, sizeof(junk), "junk.bin", eb), RP_E_NOTTRACE);
	assert_non_null(strstr(eb, "junk.bin: not a trace"));
	static const unsigned char pcap[] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0 };
	assert_int_equal(rp_conv_unknown_input(pcap, sizeof(pcap), "x.pcap", eb), RP_E_UNSUPPORTED);
	assert_non_null(strstr(eb, "packet capture"));
}

static void consumers_by_name_and_suffix(void **state)
{
	(void)state;
	assert_string_equal(rp_conv_consumer_for(NULL, "out.rpz")->name, "rpz");
	assert_string_equal(rp_conv_consumer_for(NULL, "out.load")->name, "loadfile");
	assert_string_equal(rp_conv_consumer_for(NULL, "-")->name, "loadfile");
	assert_string_equal(rp_conv_consumer_for("rpz", "-")->name, "rpz");
	assert_null(rp_conv_consumer_for(NULL, "out.bin"));
	assert_null(rp_conv_consumer_for("xml", "out.rpz"));
}

/* ---- the loadfile policy ---- */

typedef struct tr {
	rp_memsink ms;
	rp_strtab *tab;
} tr;

static uint32_t str(tr *t, const char *s)
{
	const int64_t id = rp_sink_intern(&t->ms.base, t->tab, s, (uint32_t)strlen(s));
	assert_true(id > 0);
	return (uint32_t)id;
}

static rp_op *add(tr *t, unsigned opcode, const char *path, uint64_t handle)
{
	rp_op op;
	memset(&op, 0, sizeof(op));
	op.op = (uint16_t)opcode;
	op.path = path ? str(t, path) : 0;
	op.handle = handle;
	op.t_end = RP_TIME_UNKNOWN;
	op.proto = RP_PROTO_NFS3;
	assert_int_equal(t->ms.base.op(&t->ms.base, &op), 0);
	return &t->ms.ops[t->ms.n_ops - 1];
}

/* The loadfile t's ops make under opts (a malloc'd string). */
static char *write_lf(tr *t, const rp_conv_lf_opts *opts)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *const f = open_memstream(&buf, &n);
	assert_non_null(f);
	char eb[RP_ERRBUF_SIZE] = "";
	rp_conv_lf *w = NULL;
	assert_int_equal(rp_conv_lf_open(&w, f, opts, eb), 0);
	rp_sink *const s = rp_conv_lf_sink(w);
	assert_int_equal(s->meta(s, &t->ms.meta), 0);
	for (uint32_t id = 1; id <= rp_strtab_count(t->ms.strings); id++) {
		uint32_t len;
		const char *const p = rp_memsink_string(&t->ms, id, &len);
		assert_int_equal(s->string(s, id, p, len), 0);
	}
	for (size_t i = 0; i < t->ms.n_ops; i++)
		assert_int_equal(s->op(s, &t->ms.ops[i]), 0);
	assert_int_equal(s->finish(s), 0);
	assert_int_equal(rp_conv_lf_close(w, eb), 0);
	fclose(f);
	return buf;
}

static void tr_init(tr *t)
{
	assert_int_equal(rp_memsink_init(&t->ms), 0);
	t->tab = rp_strtab_create();
	t->ms.meta.source = RP_SRC_PCAP_SMB;
}

static void tr_fini(tr *t)
{
	rp_memsink_fini(&t->ms);
	rp_strtab_destroy(t->tab);
}

/* Write t both ways: with every default, and with the one choice *flag off; check each contains its needle. */
static void both(tr *t, rp_loadfile_dialect d, size_t off, const char *on_has, const char *off_has, const char *off_lacks)
{
	rp_conv_lf_opts o;
	rp_conv_lf_opts_init(&o);
	o.policy.open_if_as_create = true; /* the one choice off by default (convert --prepare turns it on) */
	o.dialect = d;
	char *const a = write_lf(t, &o);
	*(bool *)((char *)&o.policy + off) = false;
	char *const b = write_lf(t, &o);
	if (!strstr(a, on_has))
		fail_msg("on: no \"%s\" in:\n%s", on_has, a);
	if (!strstr(b, off_has))
		fail_msg("off: no \"%s\" in:\n%s", off_has, b);
	if (off_lacks && strstr(b, off_lacks))
		fail_msg("off: \"%s\" in:\n%s", off_lacks, b);
	free(a);
	free(b);
}

#define OFF(field) offsetof(rp_conv_lf_policy, field)

static void policy_open_if_as_create(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_op *const op = add(&t, RP_OP_OPEN, "/f", 1);
	op->disp = RP_DISP_OPEN_IF;
	op->want = RP_WANT_KNOWN | RP_WANT_READ;
	both(&t, RP_LOADFILE_SMB, OFF(open_if_as_create), "NTCreateX \"\\f\" 0x0 0x2 1", "NTCreateX \"\\f\" 0x0 0x3 1", NULL);
	tr_fini(&t);
}

static void policy_fill_io_results(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, RP_OP_READ, NULL, 1)->length = 4096;
	both(&t, RP_LOADFILE_SMB, OFF(fill_io_results), "ReadX 1 0 4096 4096 ", "ReadX 1 0 4096 0 ", NULL);
	tr_fini(&t);
}

static void policy_unlink_attrs(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, RP_OP_UNLINK, "/gone", 0);
	both(&t, RP_LOADFILE_SMB, OFF(unlink_attrs), "Unlink \"\\gone\" 0x6 ", "Unlink \"\\gone\" 0x0 ", NULL);
	tr_fini(&t);
}

static void policy_find_defaults(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, RP_OP_READDIR, "/d", 0);
	both(&t, RP_LOADFILE_SMB, OFF(find_defaults), "FIND_FIRST \"\\d\\*\" 260 ", "FIND_FIRST \"\\d\" 0 ", NULL);
	tr_fini(&t);
}

static void policy_qpath_level(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, RP_OP_STAT, "/s", 0);
	both(&t, RP_LOADFILE_SMB, OFF(qpath_level), "QUERY_PATH_INFORMATION \"\\s\" 1004 ",
	     "QUERY_PATH_INFORMATION \"\\s\" 0 ", NULL);
	tr_fini(&t);
}

static void policy_wrap_path_ops(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, RP_OP_READ, "/p", 0)->length = 10; /* NFSv3: a path, no handle */
	both(&t, RP_LOADFILE_SMB, OFF(wrap_path_ops), "NTCreateX \"\\p\" 0x0 0x1 60000 NT_STATUS_OK\nReadX 60000 0 10 10",
	     "# reprise: no handle", "60000");
	/* another first fnum */
	rp_conv_lf_opts o;
	rp_conv_lf_opts_init(&o);
	o.dialect = RP_LOADFILE_SMB;
	o.policy.first_fnum = 70000;
	char *const s = write_lf(&t, &o);
	assert_non_null(strstr(s, "ReadX 70000 "));
	free(s);
	tr_fini(&t);
}

static void policy_nfs_delete_on_close(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_op *const op = add(&t, RP_OP_OPEN, "/tmp1", 3);
	op->disp = RP_DISP_OPEN;
	op->oflags = RP_OF_DELETE_ON_CLOSE;
	add(&t, RP_OP_CLOSE, NULL, 3);
	both(&t, RP_LOADFILE_NFS, OFF(nfs_delete_on_close), "REMOVE3 \"/tmp1\"", "# reprise: NFS has no close", "REMOVE3");
	tr_fini(&t);
}

static void policy_nfs_handle_paths(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	rp_op *const op = add(&t, RP_OP_OPEN, "/h", 4);
	op->disp = RP_DISP_OPEN;
	add(&t, RP_OP_READ, NULL, 4)->length = 8;
	both(&t, RP_LOADFILE_NFS, OFF(nfs_handle_paths), "READ3 \"/h\" 0 8", "# reprise: no path", "READ3");
	tr_fini(&t);
}

/* NFS's root handle from MOUNT, which no op opened: dbench knows no such handle, so by its path. */
static void policy_unopened_by_path(void **state)
{
	(void)state;
	tr t;
	tr_init(&t);
	add(&t, RP_OP_STAT, "/", 1)->flags = RP_OPF_DIRECTORY;
	rp_op *const op = add(&t, RP_OP_OPEN, "/f", 2); /* NFS CREATE3: an open that is never closed */
	op->disp = RP_DISP_CREATE;
	add(&t, RP_OP_WRITE, "/f", 2)->length = 5;
	add(&t, RP_OP_READ, "/g", 3)->length = 7; /* NFSv3 READ of a file looked up before the capture */
	add(&t, RP_OP_CLOSE, NULL, 9);
	add(&t, RP_OP_READ, NULL, 4)->length = 1; /* no path: it keeps its handle */
	both(&t, RP_LOADFILE_SMB, OFF(unopened_by_path), "QUERY_PATH_INFORMATION \"\\\" 1004 NT_STATUS_OK\n",
	     "QUERY_FILE_INFORMATION 1 ", "QUERY_PATH_INFORMATION");
	both(&t, RP_LOADFILE_SMB, OFF(unopened_by_path), "WriteX 2 0 5 5 NT_STATUS_OK\n", "WriteX 2 0 5 5 ", NULL);
	both(&t, RP_LOADFILE_SMB, OFF(unopened_by_path),
	     "NTCreateX \"\\g\" 0x0 0x1 60000 NT_STATUS_OK\nReadX 60000 0 7 7 NT_STATUS_OK\nClose 60000 ",
	     "ReadX 3 0 7 7 ", "ReadX 60000");
	both(&t, RP_LOADFILE_SMB, OFF(unopened_by_path), "# reprise: a close of a handle no op opened", "Close 9 ",
	     "no op opened");
	both(&t, RP_LOADFILE_SMB, OFF(unopened_by_path), "ReadX 4 0 1 1 ", "ReadX 4 0 1 1 ", NULL);
	/* what the trace left open is closed at its end: dbench loops the file */
	both(&t, RP_LOADFILE_SMB, OFF(unopened_by_path), "ReadX 4 0 1 1 NT_STATUS_OK\nClose 2 NT_STATUS_OK\n",
	     "ReadX 4 0 1 1 NT_STATUS_OK\n", "Close 2 ");
	tr_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sniffing_picks_the_producer),
		cmocka_unit_test(unknown_input_is_a_clear_error),
		cmocka_unit_test(consumers_by_name_and_suffix),
		cmocka_unit_test(policy_open_if_as_create),
		cmocka_unit_test(policy_fill_io_results),
		cmocka_unit_test(policy_unlink_attrs),
		cmocka_unit_test(policy_find_defaults),
		cmocka_unit_test(policy_qpath_level),
		cmocka_unit_test(policy_wrap_path_ops),
		cmocka_unit_test(policy_nfs_delete_on_close),
		cmocka_unit_test(policy_nfs_handle_paths),
		cmocka_unit_test(policy_unopened_by_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
