/* Workloads over a trace or loadfile on disk: one formats/ reader per client thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/reader.h"
#include "formats/rpz.h"
#include "replay/workload.h"

/*
 * A loadfile is text: every client would parse it again on every pass (the
 * parser is most of the engine's own CPU time on tmpfs).  It is converted once,
 * when opened, into .rpz bytes in memory (client.txt: 96 KiB), which every
 * client decodes 3x faster.  The reader draws its random values from a fixed
 * seed, reset by rewind, so the ops are the same.  Beyond this size (a LOOP
 * of millions of ops) the clients read the text as before, so memory stays
 * bounded whatever the loadfile.
 */
#define MEM_RPZ_MAX (64u << 20)

typedef struct file_workload {
	rp_workload base;
	bool lenient;
	char *rpz; /* the loadfile as .rpz bytes, or NULL: read the file itself */
	size_t rpz_len;
	char path[];
} file_workload;

/* Ops decoded per batch: enough to amortise the call, small enough to stay in L1/L2. */
#define FILE_BATCH 128

typedef struct file_source {
	rp_op_source base;
	rp_reader *r;
	int err; /* an error met after some ops of a batch: returned by the next call */
	rp_op batch[FILE_BATCH];
} file_source;

static int file_next(rp_op_source *s, const rp_op **ops)
{
	file_source *const f = (file_source *)s;
	if (f->err)
		return f->err;
	int n = 0;
	while (n < FILE_BATCH) {
		const int rc = rp_reader_next(f->r, &f->batch[n]);
		if (rc < 0) {
			/* The ops before the bad one still run, as they would one at a time. */
			f->err = rp_fail(s->errbuf, rc, "%s", f->r->errbuf);
			if (n == 0)
				return f->err;
			break;
		}
		if (rc == 0)
			break;
		n++;
	}
	*ops = f->batch;
	return n;
}

static int file_rewind(rp_op_source *s)
{
	file_source *const f = (file_source *)s;
	f->err = 0;
	const int rc = rp_reader_rewind(f->r);
	if (rc < 0)
		rp_fail(s->errbuf, rc, "%s", f->r->errbuf);
	return rc;
}

static const char *file_string(rp_op_source *s, uint32_t id, uint32_t *len)
{
	return rp_reader_string(((file_source *)s)->r, id, len);
}

static void file_close(rp_op_source *s)
{
	rp_reader_close(((file_source *)s)->r);
	free(s);
}

static int file_open(rp_workload *w, bool all, uint32_t client, rp_op_source **out, char *errbuf)
{
	const file_workload *const fw = (const file_workload *)w;
	file_source *const f = calloc(1, sizeof(*f));
	if (!f)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const rp_read_opts ro = { .lenient = fw->lenient, .client = client, .filter_client = !all };
	const int rc = fw->rpz ? rp_rpz_reader_open_mem(&f->r, fw->rpz, fw->rpz_len, &ro, errbuf)
			       : rp_reader_open(&f->r, fw->path, &ro, errbuf);
	if (rc < 0) {
		free(f);
		return rc;
	}
	f->base.next = file_next;
	f->base.rewind = file_rewind;
	f->base.string = file_string;
	f->base.close = file_close;
	*out = &f->base;
	return 0;
}

static void file_destroy(rp_workload *w)
{
	free(((file_workload *)w)->rpz);
	free(w);
}

/* A sink in front of the .rpz writer that gives up once the bytes pass MEM_RPZ_MAX. */
typedef struct capped_sink {
	rp_sink base;
	rp_sink *inner;
	FILE *f;
	uint64_t n;
} capped_sink;

static int capped_meta(rp_sink *s, const rp_trace_meta *meta)
{
	return ((capped_sink *)s)->inner->meta(((capped_sink *)s)->inner, meta);
}

static int capped_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	return ((capped_sink *)s)->inner->string(((capped_sink *)s)->inner, id, str, len);
}

static int capped_op(rp_sink *s, const rp_op *op)
{
	capped_sink *const c = (capped_sink *)s;
	if ((++c->n & 0xffff) == 0 && ftell(c->f) > (long)MEM_RPZ_MAX)
		return rp_fail(s->errbuf, RP_E_LIMIT, "over %u bytes", MEM_RPZ_MAX);
	return c->inner->op(c->inner, op);
}

static int capped_finish(rp_sink *s)
{
	return ((capped_sink *)s)->inner->finish(((capped_sink *)s)->inner);
}

/* Whether path holds a loadfile (text), by its first bytes as rp_reader_open decides. */
static bool is_loadfile(const char *path)
{
	unsigned char head[4096]; /* as much as rp_reader_open sniffs */
	FILE *const f = fopen(path, "rb");
	if (!f)
		return false;
	const size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	const rp_format fmt = rp_format_sniff(head, n, path);
	return fmt == RP_FMT_LOADFILE_SMB || fmt == RP_FMT_LOADFILE_NFS;
}

/* Convert what r reads (a loadfile, from its start) into .rpz bytes in w; on any failure leave w as it was. */
static void to_rpz(file_workload *w, rp_reader *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *const f = open_memstream(&buf, &len);
	if (!f)
		return;
	char eb[RP_ERRBUF_SIZE];
	rp_rpz_writer *wr;
	/* Smaller frames than on disk: the writer's buffers (a peak-RSS cost) shrink with them. */
	const rp_rpz_wopts wo = { .level = 3, .frame_ops = 8192 };
	if (rp_rpz_writer_open_file(&wr, f, w->path, &wo, eb) < 0) {
		fclose(f);
		free(buf);
		return;
	}
	capped_sink cs = { .base = { capped_meta, capped_string, capped_op, capped_finish, "" },
			   .inner = rp_rpz_writer_sink(wr), .f = f };
	const int rc = rp_reader_pump(r, &cs.base, eb);
	const int wrc = rp_rpz_writer_close(wr, eb);
	const int frc = fclose(f);
	if (rc < 0 || wrc < 0 || frc != 0 || len > MEM_RPZ_MAX) {
		free(buf);
		return;
	}
	w->rpz = buf;
	w->rpz_len = len;
}

int rp_workload_open_file(rp_workload **out, const char *path, bool lenient, char *errbuf)
{
	const size_t n = strlen(path);
	file_workload *const w = calloc(1, sizeof(*w) + n + 1);
	if (!w)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	memcpy(w->path, path, n + 1);
	w->lenient = lenient;
	w->base.open = file_open;
	w->base.destroy = file_destroy;
	/* Open once now: a bad file is reported before anything runs, and the meta is known. */
	rp_reader *r;
	const rp_read_opts ro = { .lenient = lenient };
	const int rc = rp_reader_open(&r, path, &ro, errbuf);
	if (rc < 0) {
		free(w);
		return rc;
	}
	w->base.meta = r->meta;
	if (is_loadfile(path))
		to_rpz(w, r);
	rp_reader_close(r);
	*out = &w->base;
	return 0;
}
