/* Workloads over a trace or loadfile on disk: one formats/ reader per client thread. */
#include <stdlib.h>
#include <string.h>

#include "formats/reader.h"
#include "replay/workload.h"

typedef struct file_workload {
	rp_workload base;
	bool lenient;
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
	const int rc = rp_reader_open(&f->r, fw->path, &ro, errbuf);
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
	free(w);
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
	rp_reader_close(r);
	*out = &w->base;
	return 0;
}
