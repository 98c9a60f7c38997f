/* Test helpers for the replay engine: build in-memory workloads op by op. */
#ifndef REPRISE_TESTS_REPLAY_HARNESS_H
#define REPRISE_TESTS_REPLAY_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "formats/sink.h"
#include "formats/strtab.h"
#include "replay/replay.h"

typedef struct wl {
	rp_memsink ms;
	rp_strtab *tab; /* the producer's own table, as rp_sink_intern wants */
	rp_trace_meta meta;
	rp_workload *w;
} wl;

static inline void wl_init(wl *t, uint32_t source)
{
	assert_int_equal(rp_memsink_init(&t->ms), 0);
	t->tab = rp_strtab_create();
	assert_non_null(t->tab);
	memset(&t->meta, 0, sizeof(t->meta));
	t->meta.source = source;
	t->w = NULL;
}

/*
 * Intern a path or name as the trace's producer would: an SMB producer (capture/smb, the
 * loadfile reader's SMB dialect) writes the protocol's '\\' separators as '/', so the
 * tests may spell SMB paths as SMB does; any other source keeps '\\' as a name character.
 */
static inline uint32_t wl_str(wl *t, const char *s)
{
	if (!s)
		return 0;
	char buf[4096];
	const size_t n = strlen(s);
	assert_true(n < sizeof(buf));
	const bool smb = t->meta.source == RP_SRC_PCAP_SMB || t->meta.source == RP_SRC_LOADFILE_SMB;
	for (size_t i = 0; i <= n; i++)
		buf[i] = smb && s[i] == '\\' ? '/' : s[i];
	const int64_t id = rp_sink_intern(&t->ms.base, t->tab, buf, (uint32_t)n);
	assert_true(id > 0);
	return (uint32_t)id;
}

/* Append an op; returns it for further fields. */
static inline rp_op *wl_add(wl *t, uint32_t client, unsigned opcode, const char *path, uint64_t handle,
			    uint64_t off, uint64_t len, int32_t status)
{
	rp_op op;
	memset(&op, 0, sizeof(op));
	op.client = client;
	op.op = (uint16_t)opcode;
	op.path = path ? wl_str(t, path) : 0;
	op.handle = handle;
	op.offset = off;
	op.length = len;
	op.result = opcode == RP_OP_READ || opcode == RP_OP_WRITE ? len : 0;
	op.status = status;
	op.t_end = RP_TIME_UNKNOWN;
	assert_int_equal(t->ms.base.op(&t->ms.base, &op), 0);
	return &t->ms.ops[t->ms.n_ops - 1];
}

static inline rp_workload *wl_open(wl *t)
{
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp_workload_open_mem(&t->w, t->ms.ops, t->ms.n_ops, &t->meta, rp_memsink_string, &t->ms, eb), 0);
	return t->w;
}

static inline void wl_fini(wl *t)
{
	rp_workload_destroy(t->w);
	rp_memsink_fini(&t->ms);
	rp_strtab_destroy(t->tab);
}

#endif
