/* The built-in producers (.rpz, text, strace log and loadfile readers) and consumers (.rpz, loadfile and fio writers). */
#include "converters/registry.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "converters/ctf.h"
#include "converters/fio.h"
#include "converters/optext.h"
#include "converters/strace.h"
#include "formats/rpz.h"

/* ---- producers ---- */

static bool sniff_rpz(const void *head, size_t len, const char *path)
{
	return rp_format_sniff(head, len, path) == RP_FMT_RPZ;
}

/* Text that formats/ takes for a loadfile (any text: its reader says what is wrong), with no NUL byte. */
static bool sniff_loadfile(const void *head, size_t len, const char *path)
{
	if (memchr(head, '\0', len))
		return false; /* binary: no producer of ours, and "not a trace" says so better than a parse error */
	const rp_format f = rp_format_sniff(head, len, path);
	return f == RP_FMT_LOADFILE_SMB || f == RP_FMT_LOADFILE_NFS;
}

/* Both stored forms go through the one reader (rp_reader_open sniffs again and opens the right one). */
static int run_reader(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep,
		      char *errbuf)
{
	const rp_read_opts ropts = { .lenient = opts->lenient, .filter_client = opts->filter_client,
				     .client = opts->client };
	rp_reader *r = NULL;
	int rc = rp_reader_open(&r, path, &ropts, errbuf);
	if (rc < 0)
		return rc;
	rep->reader = r;
	if (opts->seek_ns) {
		rp_rpz_info info;
		rc = rp_rpz_reader_info(r, &info) == 0 ? rp_rpz_reader_seek_time(r, opts->seek_ns, &rep->seek_skipped, errbuf)
							: RP_E_UNSUPPORTED; /* a loadfile: no index */
		rep->seek_fallback = rc == RP_E_NOTFOUND || rc == RP_E_UNSUPPORTED;
		if (rc < 0 && !rep->seek_fallback) {
			rep->reader = NULL;
			rp_reader_close(r);
			return rc;
		}
	}
	rc = rp_reader_pump(r, sink, errbuf);
	rep->reader = NULL;
	if (r->note[0])
		memcpy(rep->note, r->note, sizeof(rep->note));
	rep->skipped = r->skipped;
	rp_reader_close(r);
	return rc;
}

static int run_rpz(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep,
		   char *errbuf)
{
	const int rc = run_reader(path, sink, opts, rep, errbuf);
	rep->cut = rep->note[0] != '\0'; /* cut, or never finished: the note says which */
	return rc;
}

static int run_loadfile(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep,
			char *errbuf)
{
	const int rc = run_reader(path, sink, opts, rep, errbuf);
	rep->cut = false; /* a loadfile has no end marker to miss */
	return rc;
}

static bool sniff_text(const void *head, size_t len, const char *path)
{
	(void)path;
	return !memchr(head, '\0', len) && rp_optext_sniff(head, len);
}

/*
 * The longest line of the text form: two paths of RP_STR_MAX bytes, each
 * byte escaped to four, and the fixed fields.  A longer line is no op cat
 * wrote, and buffering it would let one line take any amount of memory.
 */
#define TEXT_LINE_MAX (8u * RP_STR_MAX + 4096u)

typedef int (*line_fn)(void *ctx, const char *line, size_t len, char *errbuf);

/*
 * Each line of f, without its '\n' (the last one may have none), to fn, in a
 * buffer of cap bytes: no line takes more.  A line that does not fit: with
 * cut, its first cap bytes go to fn (which counts it, or fails) and the rest
 * is skipped; without, it is an error naming the line.
 */
static int read_lines(FILE *f, const char *path, size_t cap, bool cut, line_fn fn, void *ctx, char *errbuf)
{
	char *const buf = malloc(cap);
	if (!buf)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = 0;
	size_t have = 0;
	uint64_t line = 0;
	bool skipping = false; /* inside the rest of a line too long to keep */
	while (rc == 0) {
		const size_t n = fread(buf + have, 1, cap - have, f);
		if (n == 0 && ferror(f)) {
			rc = rp_fail(errbuf, RP_E_IO, "%s: read error: %s", path, strerror(errno));
			break;
		}
		have += n;
		size_t used = 0;
		while (rc == 0 && used < have) {
			const char *const nl = memchr(buf + used, '\n', have - used);
			const bool full = !nl && used == 0 && have == cap;
			if (!nl && n != 0 && !full)
				break; /* read on for the rest of the line */
			if (full && !cut) {
				rc = rp_fail(errbuf, RP_E_LIMIT, "%s:%" PRIu64 ": line longer than %zu bytes", path, line + 1,
					     cap);
				break;
			}
			const size_t end = nl ? (size_t)(nl - buf) : have;
			if (!skipping) {
				line++;
				rc = fn(ctx, buf + used, end - used, errbuf);
			}
			skipping = full;
			used = nl ? end + 1 : have;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
		if (n == 0)
			break;
	}
	free(buf);
	return rc;
}

static int text_line(void *t, const char *line, size_t len, char *errbuf)
{
	return rp_optext_line(t, line, len, errbuf);
}

static int run_text(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep,
		    char *errbuf)
{
	rep->cut = false;
	FILE *const f = fopen(path, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	const rp_optext_opts to = { .lenient = opts->lenient, .filter_client = opts->filter_client,
				    .client = opts->client };
	rp_optext *t = NULL;
	int rc = rp_optext_create(&t, sink, path, &to, errbuf);
	if (rc == 0)
		rc = read_lines(f, path, TEXT_LINE_MAX, false, text_line, t, errbuf);
	if (rc == 0)
		rc = rp_optext_finish(t, errbuf);
	if (t)
		rep->skipped = rp_optext_skipped(t);
	rp_optext_destroy(t);
	fclose(f);
	return rc;
}

static bool sniff_strace(const void *head, size_t len, const char *path)
{
	return !memchr(head, '\0', len) && rp_format_sniff(head, len, path) != RP_FMT_NFSDUMP && rp_strace_sniff(head, len);
}

static int strace_line(void *t, const char *line, size_t len, char *errbuf)
{
	return rp_strace_line(t, line, len, errbuf);
}

/*
 * An strace log line by line.  A line longer than RP_STRACE_LINE_MAX goes to
 * the parser cut (it counts it, or fails without --lenient) and the rest of
 * it is skipped, so no line takes more than the buffer.
 */
static int run_strace(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep,
		      char *errbuf)
{
	rep->cut = false;
	FILE *const f = fopen(path, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	rp_strace_opts so = { .lenient = opts->lenient, .filter_client = opts->filter_client, .client = opts->client };
	(void)rp_strace_pid_from_name(path, &so.pid); /* a -ff file: prefix.PID */
	rp_strace *t = NULL;
	int rc = rp_strace_create(&t, sink, path, &so, errbuf);
	if (rc == 0)
		rc = read_lines(f, path, RP_STRACE_LINE_MAX + 1u, true, strace_line, t, errbuf);
	if (rc == 0)
		rc = rp_strace_finish(t, errbuf);
	if (t) {
		rep->skipped = rp_strace_skipped(t);
		rp_strace_summary(t, rep->counts, sizeof(rep->counts));
	}
	rp_strace_destroy(t);
	fclose(f);
	return rc;
}

static bool sniff_ctf(const void *head, size_t len, const char *path)
{
	(void)head;
	(void)len;
	return rp_ctf_sniff_dir(path);
}

/* A CTF trace (LTTng session output) of the `reprise` provider, through babeltrace2 and the syscall model. */
static int run_ctf(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep,
		   char *errbuf)
{
	(void)opts;
	rep->cut = false;
#if RP_HAVE_CTF
	return rp_ctf_convert(path, sink, rep->counts, sizeof(rep->counts), rep->note, sizeof(rep->note), errbuf);
#else
	(void)sink;
	return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: a CTF trace, and this reprise was %s", path, RP_CTF_WHY_NOT);
#endif
}

static const rp_conv_producer producers[] = {
	{ "rpz", ".rpz trace", sniff_rpz, run_rpz, false },
	{ "text", "reprise cat's canonical text form", sniff_text, run_text, false },
	{ "strace", "strace log (strace -f -ttt -T -y)", sniff_strace, run_strace, false },
	{ "loadfile", "dbench loadfile (SMB or NFS dialect)", sniff_loadfile, run_loadfile, false },
	{ "ctf", "CTF trace of LTTng's reprise:* events (a directory)", sniff_ctf, run_ctf, true },
};

const rp_conv_producer *rp_conv_producer_sniff(const void *head, size_t len, const char *path,
					       const rp_conv_producer *const *extra, size_t n_extra)
{
	for (size_t i = 0; i < sizeof(producers) / sizeof(producers[0]); i++)
		if (!producers[i].dir && producers[i].sniff(head, len, path))
			return &producers[i];
	for (size_t i = 0; i < n_extra; i++)
		if (extra[i] && extra[i]->sniff(head, len, path))
			return extra[i];
	return NULL;
}

const rp_conv_producer *rp_conv_producer_sniff_dir(const char *path)
{
	for (size_t i = 0; i < sizeof(producers) / sizeof(producers[0]); i++)
		if (producers[i].dir && producers[i].sniff(NULL, 0, path))
			return &producers[i];
	return NULL;
}

const rp_conv_producer *rp_conv_producer_find(const char *name)
{
	for (size_t i = 0; i < sizeof(producers) / sizeof(producers[0]); i++)
		if (strcmp(producers[i].name, name) == 0)
			return &producers[i];
	return NULL;
}

int rp_conv_unknown_input(const void *head, size_t len, const char *path, char *errbuf)
{
	switch (rp_format_sniff(head, len, path)) {
	case RP_FMT_PCAP:
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: a packet capture, and this program has no packet decoder", path);
	case RP_FMT_NFSDUMP:
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: nfsdump text, and this program has no nfsdump reader", path);
	case RP_FMT_GZIP:
		return rp_fail(errbuf, RP_E_NOTTRACE, "%s: gzip'd, but not nfsdump text (reprise reads gzip'd nfsdump traces only)",
			       path);
	case RP_FMT_STRACE:
		return rp_fail(errbuf, RP_E_UNSUPPORTED,
			       "%s: looks like an strace log, but not one reprise reads: record with strace -f -ttt -T -y", path);
	default:
		return rp_fail(errbuf, RP_E_NOTTRACE, "%s: not a trace (.rpz), dbench loadfile or packet capture", path);
	}
}

/* ---- consumers ---- */

struct rp_conv_out {
	rp_rpz_writer *rpz;
	rp_conv_lf *lf;
	rp_conv_lf_stats *lf_stats;
	rp_conv_fio *fio;
	rp_fio_form fio_form;
	char *summary;
	size_t summary_size;
};

static int open_rpz(rp_conv_out **out, FILE *f, const char *name, const rp_conv_out_opts *opts, rp_sink **sink,
		    char *errbuf)
{
	rp_conv_out *const o = calloc(1, sizeof(*o));
	if (!o)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const rp_rpz_wopts wo = { .level = opts ? opts->rpz_level : 0,
				  .window = opts ? opts->rpz_window : 0,
				  .table_bits = opts ? opts->rpz_table_bits : 0,
				  .no_pattern = opts && opts->rpz_no_pattern };
	const int rc = rp_rpz_writer_open_file(&o->rpz, f, name, &wo, errbuf);
	if (rc < 0) {
		free(o);
		return rc;
	}
	*sink = rp_rpz_writer_sink(o->rpz);
	*out = o;
	return 0;
}

static int close_rpz(rp_conv_out *o, bool cut, char *note, char *errbuf)
{
	note[0] = '\0';
	if (cut && rp_rpz_writer_add_flags(o->rpz, RP_META_TRUNCATED, errbuf) < 0)
		snprintf(note, RP_ERRBUF_SIZE, "could not flag the trace as truncated: %s", errbuf);
	const int rc = rp_rpz_writer_close(o->rpz, errbuf);
	free(o);
	return rc;
}

static int open_lf(rp_conv_out **out, FILE *f, const char *name, const rp_conv_out_opts *opts, rp_sink **sink,
		   char *errbuf)
{
	rp_conv_out *const o = calloc(1, sizeof(*o));
	if (!o)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const int rc = rp_conv_lf_open(&o->lf, f, opts ? &opts->lf : NULL, errbuf);
	if (rc < 0) {
		free(o);
		return rc;
	}
	o->lf_stats = opts ? opts->lf_stats : NULL;
	*sink = rp_conv_lf_sink(o->lf);
	*out = o;
	return 0;
}

static int close_lf(rp_conv_out *o, bool cut, char *note, char *errbuf)
{
	note[0] = '\0';
	if (cut)
		snprintf(note, RP_ERRBUF_SIZE, "a loadfile has no header to record that its input was cut");
	if (o->lf_stats)
		rp_conv_lf_get_stats(o->lf, o->lf_stats);
	const int rc = rp_conv_lf_close(o->lf, errbuf);
	free(o);
	return rc;
}

/* fio: an iolog (fio --read_iolog), or a job file that lays out what the iolog reads and replays it (docs/fio.md). */
static int open_fio_form(rp_conv_out **out, FILE *f, const char *name, const rp_conv_out_opts *opts, rp_sink **sink,
			 rp_fio_form form, char *errbuf)
{
	char iolog[4096];
	if (form == RP_FIO_JOB) {
		const int e = rp_conv_fio_iolog_for(name, opts ? opts->fio_iolog_dir : NULL, iolog, sizeof(iolog));
		if (e < 0)
			return rp_fail(errbuf, RP_E_IO, "%s: cannot name its iolog: %s", name, strerror(-e));
	}
	rp_conv_out *const o = calloc(1, sizeof(*o));
	if (!o)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	const rp_conv_fio_opts fo = { .form = form, .iolog = form == RP_FIO_JOB ? iolog : NULL };
	const int rc = rp_conv_fio_open(&o->fio, f, &fo, errbuf);
	if (rc < 0) {
		free(o);
		return rc;
	}
	o->fio_form = form;
	o->summary = opts ? opts->summary : NULL;
	o->summary_size = opts ? opts->summary_size : 0;
	*sink = rp_conv_fio_sink(o->fio);
	*out = o;
	return 0;
}

static int open_fio(rp_conv_out **out, FILE *f, const char *name, const rp_conv_out_opts *opts, rp_sink **sink,
		    char *errbuf)
{
	return open_fio_form(out, f, name, opts, sink, RP_FIO_IOLOG, errbuf);
}

static int open_fio_job(rp_conv_out **out, FILE *f, const char *name, const rp_conv_out_opts *opts, rp_sink **sink,
			char *errbuf)
{
	return open_fio_form(out, f, name, opts, sink, RP_FIO_JOB, errbuf);
}

static int close_fio(rp_conv_out *o, bool cut, char *note, char *errbuf)
{
	note[0] = '\0';
	if (cut)
		snprintf(note, RP_ERRBUF_SIZE, "a fio iolog has no header to record that its input was cut");
	rp_conv_fio_stats st;
	const int rc = rp_conv_fio_close(o->fio, &st, errbuf);
	if (rc == 0 && o->summary && o->summary_size)
		rp_conv_fio_summary(&st, o->fio_form, o->summary, o->summary_size);
	free(o);
	return rc;
}

static const char *const rpz_suffixes[] = { ".rpz", NULL };
static const char *const lf_suffixes[] = { ".txt", ".load", ".loadfile", "-", NULL };
static const char *const fio_suffixes[] = { ".iolog", NULL };
static const char *const fio_job_suffixes[] = { ".fio", NULL };

static const rp_conv_consumer consumers[] = {
	{ "rpz", rpz_suffixes, open_rpz, close_rpz },
	{ "loadfile", lf_suffixes, open_lf, close_lf },
	{ "fio", fio_suffixes, open_fio, close_fio },
	{ "fio-job", fio_job_suffixes, open_fio_job, close_fio },
};

const rp_conv_consumer *rp_conv_consumer_find(const char *name)
{
	for (size_t i = 0; i < sizeof(consumers) / sizeof(consumers[0]); i++)
		if (strcmp(consumers[i].name, name) == 0)
			return &consumers[i];
	return NULL;
}

static bool has_suffix(const char *s, const char *suffix)
{
	const size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

const rp_conv_consumer *rp_conv_consumer_for(const char *to, const char *path)
{
	if (to)
		return rp_conv_consumer_find(to);
	for (size_t i = 0; i < sizeof(consumers) / sizeof(consumers[0]); i++)
		for (const char *const *s = consumers[i].suffixes; *s; s++)
			if (strcmp(*s, "-") == 0 ? strcmp(path, "-") == 0 : has_suffix(path, *s))
				return &consumers[i];
	return NULL;
}
