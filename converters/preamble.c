/* convert --prepare: the prepare plan (formats/plan.h) written as loadfile ops before the trace (docs/loadfile.md "Preamble"). */
#include "converters/preamble.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "formats/plan.h"

rp_loadfile_dialect rp_conv_preamble_dialect(const rp_memsink *m, rp_loadfile_dialect asked)
{
	if (asked != RP_LOADFILE_AUTO)
		return asked;
	return rp_conv_lf_auto_dialect(&m->meta, m->n_ops ? &m->ops[0] : NULL);
}

typedef struct pctx {
	rp_memsink *m;
	rp_sink *sink;
	bool nfs;
	uint64_t fnum;
	rp_preamble_stats *st;
	char *errbuf;
	char path[PATH_MAX + 1];
} pctx;

static int put_op(pctx *c, rp_op *op)
{
	op->t_end = RP_TIME_UNKNOWN;
	op->status_kind = c->nfs ? RP_SK_NFS3 : RP_SK_NT; /* success: status and proto_status 0 */
	const int rc = c->sink->op(c->sink, op);
	if (rc < 0)
		return rp_fail(c->errbuf, rc, "%s", c->sink->errbuf);
	c->st->ops++;
	return 0;
}

/* One planned entry: a directory, or a file opened, written to its size and closed. */
static int plan_item(void *ctx, const char *path, bool dir, uint64_t size)
{
	pctx *const c = ctx;
	const size_t n = strlen(path);
	if (n + 1 >= sizeof(c->path))
		return rp_fail(c->errbuf, RP_E_RANGE, "prepare: path too long: %s", path);
	c->path[0] = '/'; /* the writer turns '/' into '\' for SMB */
	memcpy(c->path + 1, path, n + 1);
	const int64_t id = rp_sink_intern(c->sink, c->m->strings, c->path, (uint32_t)(n + 1));
	if (id < 0)
		return rp_fail(c->errbuf, (int)id, "%s", c->sink->errbuf);
	rp_op op = { .op = RP_OP_MKDIR, .path = (uint32_t)id };
	if (dir) {
		if (c->st->ops >= RP_PREAMBLE_OPS_MAX)
			return rp_fail(c->errbuf, RP_E_LIMIT, "prepare: more than %" PRIu64 " preamble ops (docs/loadfile.md, Limits)",
				       RP_PREAMBLE_OPS_MAX);
		c->st->dirs++;
		return put_op(c, &op);
	}
	/* SMB: OVERWRITE_IF creates or empties; NFS: CREATE3 UNCHECKED creates or keeps (the writes set the size). */
	op = (rp_op){ .op = RP_OP_OPEN, .path = (uint32_t)id, .handle = c->fnum,
		      .want = RP_WANT_KNOWN | RP_WANT_READ | RP_WANT_WRITE,
		      .disp = c->nfs ? RP_DISP_OPEN_IF : RP_DISP_TRUNC_IF };
	/* Its ops (open, the writes, close) must fit what is left of RP_PREAMBLE_OPS_MAX. */
	const uint64_t writes = size / RP_PREAMBLE_CHUNK + (size % RP_PREAMBLE_CHUNK != 0);
	if (c->st->ops + 2 > RP_PREAMBLE_OPS_MAX || writes > RP_PREAMBLE_OPS_MAX - 2 - c->st->ops)
		return rp_fail(c->errbuf, RP_E_LIMIT,
			       "prepare: %s needs %" PRIu64 " bytes: the preamble would pass %" PRIu64
			       " ops (docs/loadfile.md, Limits)",
			       path, size, RP_PREAMBLE_OPS_MAX);
	int rc = put_op(c, &op);
	for (uint64_t off = 0; rc == 0 && off < size; off += RP_PREAMBLE_CHUNK) {
		const uint64_t len = size - off < RP_PREAMBLE_CHUNK ? size - off : RP_PREAMBLE_CHUNK;
		op = (rp_op){ .op = RP_OP_WRITE, .path = (uint32_t)id, .handle = c->fnum, .offset = off,
			      .length = len, .result = len };
		rc = put_op(c, &op);
	}
	if (rc == 0 && !c->nfs) { /* NFS has no close */
		op = (rp_op){ .op = RP_OP_CLOSE, .handle = c->fnum };
		rc = put_op(c, &op);
	}
	c->st->files += rc == 0;
	c->st->bytes += rc == 0 ? size : 0;
	return rc;
}

int rp_conv_write_prepared(rp_memsink *m, rp_sink *sink, rp_loadfile_dialect dialect, rp_preamble_stats *st,
			   char *errbuf)
{
	memset(st, 0, sizeof(*st));
	pctx c = { .m = m, .sink = sink, .nfs = dialect == RP_LOADFILE_NFS, .fnum = RP_PREAMBLE_FNUM, .st = st,
		   .errbuf = errbuf };
	for (size_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].handle >= c.fnum)
			c.fnum = m->ops[i].handle + 1;
	if (c.fnum > INT32_MAX)
		return rp_fail(errbuf, RP_E_RANGE, "prepare: the trace's handles leave no fnum dbench can read");

	int rc = sink->meta(sink, &m->meta);
	const uint32_t n_str = rp_strtab_count(m->strings);
	for (uint32_t id = 1; rc == 0 && id <= n_str; id++) {
		uint32_t len = 0;
		const char *const s = rp_strtab_get(m->strings, id, &len);
		rc = sink->string(sink, id, s, len);
	}
	if (rc < 0)
		return rp_fail(errbuf, rc, "%s", sink->errbuf);

	if (m->n_ops) { /* an empty trace needs nothing (and the scan refuses it) */
		rp_plan p;
		const rp_plan_opts po = { .items = true };
		rc = rp_plan_ops(&p, m->ops, m->n_ops, rp_memsink_string, m, &po, errbuf);
		for (size_t i = 0; rc == 0 && i < p.n_items; i++)
			rc = plan_item(&c, p.items[i].path, p.items[i].dir, p.items[i].size);
		rp_plan_free(&p);
		if (rc < 0)
			return rc;
	}

	for (size_t i = 0; i < m->n_ops; i++) {
		rc = sink->op(sink, &m->ops[i]);
		if (rc < 0)
			return rp_fail(errbuf, rc, "%s", sink->errbuf);
	}
	rc = sink->finish(sink);
	return rc < 0 ? rp_fail(errbuf, rc, "%s", sink->errbuf) : 0;
}
