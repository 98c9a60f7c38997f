/* A CTF trace of the `reprise` provider through the syscall model into op records (converters/ctf.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "converters/ctf.h"
#include "formats/error.h"

typedef struct conv {
	rp_sink *sink;
	const char *path;
	rp_sysmodel *model; /* made once the clock's offset is known (the first event) */
	bool model_failed;  /* the error is the model's: create's in err, or rp_sysmodel_error */
	char err[RP_ERRBUF_SIZE];
} conv;

/* The model wants the trace's start time (clock_offset_ns) for its meta, which comes with the first event's clock. */
static int on_clock(void *ctx, int64_t offset_ns)
{
	conv *const c = ctx;
	const rp_sysmodel_opts mo = { .clock_offset_ns = offset_ns, .source = RP_SRC_CTF, .source_name = c->path };
	const int rc = rp_sysmodel_create(&c->model, c->sink, &mo, c->err);
	c->model_failed = rc < 0;
	return rc < 0 ? rc : 0;
}

static int on_event(void *ctx, const rp_sysev *ev)
{
	conv *const c = ctx;
	const int rc = rp_sysmodel_event(c->model, ev);
	c->model_failed = rc < 0;
	return rc;
}

int rp_ctf_convert(const char *path, rp_sink *sink, char *summary, size_t summary_size, char *note, size_t note_size,
		   char *errbuf)
{
	conv c = { .sink = sink, .path = path };
	rp_ctf_stats st;
	int rc = rp_ctf_read(path, on_event, on_clock, &c, &st, errbuf);
	if (rc < 0 && c.model_failed)
		rp_fail(errbuf, rc, "%s: %s", path, c.model ? rp_sysmodel_error(c.model) : c.err);
	if (rc == 0 && (rc = rp_sysmodel_finish(c.model)) < 0)
		rp_fail(errbuf, rc, "%s: %s", path, rp_sysmodel_error(c.model));
	if (summary && (rc == 0 || st.events))
		rp_ctf_summary(&st, c.model ? rp_sysmodel_get_stats(c.model) : NULL, summary, summary_size);
	if (note && note_size && rc == 0 && (st.discarded || st.discarded_packets))
		snprintf(note, note_size,
			 "%s: LTTng discarded %" PRIu64 " events and %" PRIu64
			 " packets (a channel that does not block when full): their ops are missing; record with"
			 " lttng enable-channel --blocking-timeout=inf and LTTNG_UST_ALLOW_BLOCKING=1",
			 path, st.discarded, st.discarded_packets);
	rp_sysmodel_destroy(c.model);
	return rc;
}
