/* .rpz 1.0 files still read: every op lifted to the semantic fields through formats/semantics.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/reader.h"
#include "formats/rpz.h"
#include "formats/semantics.h"

/* Every op of a 1.0 file from tests/data/rpz (made by reprise 1.0 from the bundled captures). */
static rp_op *read_v1(const char *name, size_t *n, rp_reader **out)
{
	char path[1024];
	const char *const root = getenv("REPRISE_SOURCE_ROOT");
	snprintf(path, sizeof(path), "%s/tests/data/rpz/%s", root ? root : ".", name);
	char eb[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	if (rp_reader_open(&r, path, NULL, eb) < 0)
		fail_msg("%s", eb);
	rp_rpz_info info;
	assert_int_equal(rp_rpz_reader_info(r, &info), 0);
	assert_int_equal(info.version_major, 1);
	size_t cap = 64;
	rp_op *ops = malloc(cap * sizeof(*ops));
	*n = 0;
	rp_op op;
	int rc;
	while ((rc = rp_reader_next(r, &op)) > 0) {
		if (*n == cap)
			ops = realloc(ops, (cap *= 2) * sizeof(*ops));
		ops[(*n)++] = op;
	}
	if (rc < 0)
		fail_msg("%s", r->errbuf);
	*out = r;
	return ops;
}

static const rp_op *first(const rp_op *ops, size_t n, unsigned opcode, int32_t status)
{
	for (size_t i = 0; i < n; i++)
		if (ops[i].op == opcode && ops[i].status == status)
			return &ops[i];
	fail_msg("no %s with status %d", rp_op_name(opcode), status);
	return NULL;
}

static void smb2_lifted(void **state)
{
	(void)state;
	size_t n;
	rp_reader *r;
	rp_op *const ops = read_v1("v1.0-smb2-small-files.rpz", &n, &r);
	assert_int_equal(n, 429);
	/* "open / access=0x80 disp=1 ret=1 flags=dir": FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_OPENED */
	const rp_op *const o = &ops[0];
	assert_int_equal(o->op, RP_OP_OPEN);
	assert_int_equal(o->proto, RP_PROTO_SMB2);
	assert_int_equal(o->want, RP_WANT_KNOWN | RP_WANT_READ_ATTR);
	assert_int_equal(o->disp, RP_DISP_OPEN);
	assert_true(o->oflags & RP_OF_NT);
	assert_int_equal(o->result, RP_ACT_OPENED);
	assert_int_equal(o->flags, RP_OPF_DIRECTORY);
	assert_int_equal(o->raw.access, 0x80);
	assert_int_equal(o->raw.disposition, 1);
	/* no op keeps 1.0's "create" flag bit */
	for (size_t i = 0; i < n; i++)
		assert_false(ops[i].flags & (1u << 4));
	/* every open of the SMB trace: NT semantics, an NT status, provenance SMB */
	size_t opens = 0;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].op != RP_OP_OPEN)
			continue;
		opens++;
		assert_true(ops[i].oflags & RP_OF_NT);
		assert_int_equal(ops[i].proto, RP_PROTO_SMB2);
		assert_true(ops[i].want & RP_WANT_KNOWN);
	}
	assert_true(opens > 100);
	free(ops);
	rp_reader_close(r);
}

static void nfs4_lifted(void **state)
{
	(void)state;
	size_t n;
	rp_reader *r;
	rp_op *const ops = read_v1("v1.0-nfs41-session.rpz", &n, &r);
	/* 1.0 stored an NFSv4 OPEN's share access as host O_ flags (O_RDONLY = 0): read, not "unknown" */
	const rp_op *const o = first(ops, n, RP_OP_OPEN, 0);
	assert_int_equal(o->proto, RP_PROTO_NFS4);
	assert_int_equal(o->want, RP_WANT_KNOWN | RP_WANT_READ);
	assert_int_equal(o->disp, RP_DISP_OPEN);
	assert_false(o->oflags & RP_OF_NT);
	assert_int_equal(o->raw.access, 1); /* OPEN4_SHARE_ACCESS_READ */
	assert_int_equal(o->raw.level, 4);  /* CLAIM_FH */
	free(ops);
	rp_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(smb2_lifted),
		cmocka_unit_test(nfs4_lifted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
