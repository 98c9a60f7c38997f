/* Bench driver for .rpz: encode any trace or loadfile to .rpz, or decode an .rpz, timing the library alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/reader.h"
#include "formats/rpz.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int usage(const char *me)
{
	fprintf(stderr,
		"usage: %s encode IN OUT.rpz [LEVEL [FRAME_OPS [PASSES]]]  time IN -> .rpz (reading included);\n"
		"       PASSES > 1 writes IN's ops that many times over (a long trace for memory checks)\n"
		"       %s encode-mem IN OUT.rpz [PASSES [REPEAT]] time the writer alone: IN (PASSES times)\n"
		"       decoded to memory first, then only its encode timed, best of REPEAT (CPU)\n"
		"       %s decode IN.rpz [REPEAT]                  time reading every op, best of REPEAT\n",
		me, me, me);
	return 2;
}

/* Peak resident memory of this process in KiB (VmHWM), or 0 if unknown. */
static long peak_rss_kb(void)
{
	FILE *const f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	char line[256];
	long kb = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Copy every op of r into sink `passes` times, re-interning strings into the sink's numbering. */
static int copy_passes(rp_reader *r, rp_sink *sink, int passes, char *eb)
{
	rp_strtab *const tab = rp_strtab_create();
	if (!tab)
		return rp_fail(eb, RP_E_NOMEM, "out of memory");
	int rc = sink->meta(sink, &r->meta);
	uint64_t t_base = 0, t_last = 0;
	for (int p = 0; rc >= 0 && p < passes; p++) {
		if (p > 0 && (rc = rp_reader_rewind(r)) < 0)
			break;
		rp_op op;
		while (rc >= 0 && (rc = rp_reader_next(r, &op)) > 0) {
			uint32_t len = 0;
			const char *s1 = op.path ? rp_reader_string(r, op.path, &len) : NULL;
			const int64_t p1 = s1 ? rp_sink_intern(sink, tab, s1, len) : 0;
			const char *s2 = op.path2 ? rp_reader_string(r, op.path2, &len) : NULL;
			const int64_t p2 = s2 ? rp_sink_intern(sink, tab, s2, len) : 0;
			if (p1 < 0 || p2 < 0) {
				rc = (int)(p1 < 0 ? p1 : p2);
				break;
			}
			op.path = (uint32_t)p1;
			op.path2 = (uint32_t)p2;
			op.t_start += t_base; /* later passes follow the earlier ones in time */
			if (op.t_end != RP_TIME_UNKNOWN)
				op.t_end += t_base;
			t_last = op.t_start > t_last ? op.t_start : t_last;
			rc = sink->op(sink, &op);
		}
		t_base = t_last + 1;
	}
	if (rc >= 0)
		rc = sink->finish(sink);
	if (rc < 0)
		rp_fail(eb, rc, "%s", r->errbuf[0] ? r->errbuf : sink->errbuf);
	rp_strtab_destroy(tab);
	return rc;
}

static int encode(const char *in, const char *out, int level, uint32_t frame_ops, int passes)
{
	char eb[RP_ERRBUF_SIZE];
	const double t0 = now();
	rp_reader *r = NULL;
	if (rp_reader_open(&r, in, NULL, eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		return 1;
	}
	rp_rpz_writer *w = NULL;
	const rp_rpz_wopts o = { .level = level, .frame_ops = frame_ops };
	if (rp_rpz_writer_open(&w, out, &o, eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		rp_reader_close(r);
		return 1;
	}
	int rc = passes > 1 ? copy_passes(r, rp_rpz_writer_sink(w), passes, eb)
			    : rp_reader_pump(r, rp_rpz_writer_sink(w), eb);
	if (rc < 0)
		fprintf(stderr, "%s\n", eb);
	if (rp_rpz_writer_close(w, eb) < 0 && rc == 0) {
		fprintf(stderr, "%s\n", eb);
		rc = -1;
	}
	rp_reader_close(r);
	const double t1 = now();
	if (rc < 0)
		return 1;
	printf("encode_s %.3f\n", t1 - t0);
	return 0;
}

/* The writer alone: IN's ops (passes times over) held in memory, then written to OUT, best of repeat. */
static int encode_mem(const char *in, const char *out, int passes, int repeat)
{
	char eb[RP_ERRBUF_SIZE];
	rp_reader *r = NULL;
	rp_memsink m;
	if (rp_memsink_init(&m) < 0) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	if (rp_reader_open(&r, in, NULL, eb) < 0) {
		fprintf(stderr, "%s\n", eb);
		rp_memsink_fini(&m);
		return 1;
	}
	int rc = copy_passes(r, &m.base, passes > 1 ? passes : 1, eb);
	rp_reader_close(r);
	if (rc < 0) {
		fprintf(stderr, "%s\n", eb);
		rp_memsink_fini(&m);
		return 1;
	}
	const uint32_t n_str = rp_strtab_count(m.strings);
	double best = 1e30, best_cpu = 1e30;
	for (int i = 0; rc >= 0 && i < repeat; i++) {
		const double t0 = now(), c0 = cpu();
		rp_rpz_writer *w = NULL;
		const rp_rpz_wopts o = { 0 };
		if (rp_rpz_writer_open(&w, out, &o, eb) < 0) {
			fprintf(stderr, "%s\n", eb);
			rc = -1;
			break;
		}
		rp_sink *const s = rp_rpz_writer_sink(w);
		rc = s->meta(s, &m.meta);
		/* every string first (ids in order), then the ops */
		for (uint32_t id = 1; rc >= 0 && id <= n_str; id++) {
			uint32_t len = 0;
			const char *const str = rp_strtab_get(m.strings, id, &len);
			rc = s->string(s, id, str, len);
		}
		for (size_t k = 0; rc >= 0 && k < m.n_ops; k++)
			rc = s->op(s, &m.ops[k]);
		if (rc >= 0)
			rc = s->finish(s);
		if (rc < 0)
			fprintf(stderr, "%s\n", s->errbuf);
		if (rp_rpz_writer_close(w, eb) < 0 && rc >= 0) {
			fprintf(stderr, "%s\n", eb);
			rc = -1;
		}
		const double dt = now() - t0, dc = cpu() - c0;
		best = dt < best ? dt : best;
		best_cpu = dc < best_cpu ? dc : best_cpu;
	}
	const size_t n = m.n_ops;
	rp_memsink_fini(&m);
	if (rc < 0)
		return 1;
	printf("encode_s %.4f\nencode_cpu_s %.4f\nops %zu\nmops_per_s %.1f\nmops_per_cpu_s %.1f\n", best, best_cpu, n,
	       (double)n / best / 1e6, (double)n / best_cpu / 1e6);
	return 0;
}

static int decode(const char *in, int repeat)
{
	char eb[RP_ERRBUF_SIZE];
	double best = 1e30, best_cpu = 1e30;
	uint64_t n = 0, check = 0;
	for (int i = 0; i < repeat; i++) {
		const double t0 = now(), c0 = cpu();
		rp_reader *r = NULL;
		if (rp_rpz_reader_open(&r, in, NULL, eb) < 0) {
			fprintf(stderr, "%s\n", eb);
			return 1;
		}
		rp_op op;
		int rc;
		n = 0;
		check = 0;
		/* touch every op so the loop is not optimised away */
		while ((rc = rp_reader_next(r, &op)) > 0) {
			check += op.offset ^ op.handle ^ op.path;
			n++;
		}
		if (rc < 0) {
			fprintf(stderr, "%s\n", r->errbuf);
			rp_reader_close(r);
			return 1;
		}
		rp_reader_close(r);
		const double dt = now() - t0, dc = cpu() - c0;
		if (dt < best)
			best = dt;
		if (dc < best_cpu)
			best_cpu = dc;
	}
	/* CPU time too: on a shared machine wall time counts other people's work */
	printf("decode_s %.4f\ndecode_cpu_s %.4f\nops %" PRIu64 "\nmops_per_s %.1f\nmops_per_cpu_s %.1f\ncheck %" PRIu64
	       "\npeak_rss_kb %ld\n", best, best_cpu, n, (double)n / best / 1e6, (double)n / best_cpu / 1e6, check,
	       peak_rss_kb());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "encode") == 0)
		return encode(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 0,
			      argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 10) : 0, argc > 6 ? atoi(argv[6]) : 1);
	if (argc >= 4 && strcmp(argv[1], "encode-mem") == 0)
		return encode_mem(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 1, argc > 5 ? atoi(argv[5]) : 3);
	if (argc >= 3 && strcmp(argv[1], "decode") == 0)
		return decode(argv[2], argc > 3 ? atoi(argv[3]) : 5);
	return usage(argv[0]);
}
