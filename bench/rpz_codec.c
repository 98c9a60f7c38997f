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
		"usage: %s encode IN OUT.rpz [LEVEL [FRAME_OPS]]   time IN -> .rpz (reading included)\n"
		"       %s decode IN.rpz [REPEAT]                  time reading every op, best of REPEAT\n",
		me, me);
	return 2;
}

static int encode(const char *in, const char *out, int level, uint32_t frame_ops)
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
	int rc = rp_reader_pump(r, rp_rpz_writer_sink(w), eb);
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
	       "\n", best, best_cpu, n, (double)n / best / 1e6, (double)n / best_cpu / 1e6, check);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "encode") == 0)
		return encode(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 0,
			      argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 10) : 0);
	if (argc >= 3 && strcmp(argv[1], "decode") == 0)
		return decode(argv[2], argc > 3 ? atoi(argv[3]) : 5);
	return usage(argv[0]);
}
