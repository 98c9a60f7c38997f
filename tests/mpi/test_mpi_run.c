/* replay --mpi's run protocol (replay/mpi_run.h) without mpirun: two ranks as threads over an in-process transport. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "formats/error.h"
#include "replay/mpi_comm.h"
#include "replay/mpi_run.h"

#define RANKS 2
/* The largest single exchange the tests make (a status record, a small trace, a rank's packed results). */
#define SLOT_MAX (1 << 16)
/* What rank 1 keeps of a shared trace. */
#define GOT_MAX 4096

/*
 * The transport: each collective is a deposit into this rank's slot, a
 * barrier, the copies out of the slots, a barrier (so no rank deposits the
 * next call's bytes before every rank has read these).
 */
static pthread_barrier_t barrier;
static uint8_t slots[RANKS][SLOT_MAX];
static size_t slot_len[RANKS];
static _Thread_local int my_rank;

static int t_init(int *rank, int *size, char *errbuf)
{
	(void)errbuf;
	*rank = my_rank;
	*size = RANKS;
	return 0;
}

static int t_bcast(void *buf, size_t n, double timeout_s, char *errbuf)
{
	(void)timeout_s;
	if (n > SLOT_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "test transport: %zu bytes", n);
	if (my_rank == 0)
		memcpy(slots[0], buf, n);
	pthread_barrier_wait(&barrier);
	if (my_rank != 0)
		memcpy(buf, slots[0], n);
	pthread_barrier_wait(&barrier);
	return 0;
}

static int t_allgather(const void *mine, size_t n, void *all, double timeout_s, char *errbuf)
{
	(void)timeout_s;
	if (n > SLOT_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "test transport: %zu bytes", n);
	memcpy(slots[my_rank], mine, n);
	pthread_barrier_wait(&barrier);
	for (int r = 0; r < RANKS; r++)
		memcpy((uint8_t *)all + (size_t)r * n, slots[r], n);
	pthread_barrier_wait(&barrier);
	return 0;
}

static int t_gatherv(const void *mine, size_t n, uint8_t **all, size_t *sizes, size_t max_total, double timeout_s,
		     char *errbuf)
{
	(void)max_total;
	(void)timeout_s;
	if (n > SLOT_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "test transport: %zu bytes", n);
	memcpy(slots[my_rank], mine, n);
	slot_len[my_rank] = n;
	pthread_barrier_wait(&barrier);
	*all = NULL;
	if (my_rank == 0) {
		size_t total = 0;
		for (int r = 0; r < RANKS; r++)
			total += sizes[r] = slot_len[r];
		*all = malloc(total ? total : 1);
		size_t at = 0;
		for (int r = 0; r < RANKS; r++) {
			memcpy(*all + at, slots[r], slot_len[r]);
			at += slot_len[r];
		}
	}
	pthread_barrier_wait(&barrier);
	return 0;
}

static int t_clock_offsets(unsigned rounds, int64_t *offset_ns, int64_t *rtt_ns, double timeout_s, char *errbuf)
{
	(void)rounds;
	(void)timeout_s;
	(void)errbuf;
	memset(offset_ns, 0, RANKS * sizeof(*offset_ns));
	memset(rtt_ns, 0, RANKS * sizeof(*rtt_ns));
	return 0;
}

static void t_host(char *buf, size_t cap)
{
	snprintf(buf, cap, "host%d", my_rank);
}

static void t_abort(int code)
{
	fprintf(stderr, "test transport: abort(%d)\n", code);
	_exit(99);
}

static void t_finalize(void)
{
}

static const rp_mpi_comm transport = {
	.version = RP_MPI_COMM_VERSION,
	.init = t_init,
	.bcast = t_bcast,
	.allgather = t_allgather,
	.gatherv = t_gatherv,
	.clock_offsets = t_clock_offsets,
	.host = t_host,
	.abort = t_abort,
	.finalize = t_finalize,
};

/* One rank's part of a scenario, and what it saw. */
typedef struct rank_run {
	int rank;
	void (*body)(struct rank_run *rr, rp_mpi_run *m);
	int argc;
	char **argv;
	rp_replay_opts ro;
	const char *trace; /* rank 0: the file to share; NULL: it could not be opened (status 1) */
	int rc;
	char said[8][RP_ERRBUF_SIZE * 2];
	int nsaid;
	rp_mpi_trace_mode mode;
	char got[GOT_MAX]; /* rank 1: the shared trace's bytes */
	size_t got_len;
	char *json; /* rank 0 after a whole run: rp_mpi_run_write_json's document */
	size_t json_len;
} rank_run;

static void on_say(void *ctx, const char *msg)
{
	rank_run *const rr = ctx;
	if (rr->nsaid < 8)
		snprintf(rr->said[rr->nsaid++], sizeof(rr->said[0]), "%s", msg);
}

static void *rank_main(void *arg)
{
	rank_run *const rr = arg;
	my_rank = rr->rank;
	const rp_mpi_run_opts o = { .timeout_s = 10, .say = on_say, .ctx = rr };
	rp_mpi_run *m = NULL;
	char errbuf[RP_ERRBUF_SIZE];
	/* no cmocka assertion off the main thread (its failure jumps to the main thread's stack): results are kept */
	if (rp__mpi_run_create_with(&m, &transport, &o, errbuf) < 0 || rp_mpi_run_rank(m) != rr->rank ||
	    rp_mpi_run_size(m) != RANKS) {
		fprintf(stderr, "rank %d: %s\n", rr->rank, errbuf);
		_exit(98);
	}
	rr->body(rr, m);
	rp_mpi_run_destroy(m);
	return NULL;
}

static void run_ranks(rank_run rr[RANKS])
{
	pthread_barrier_init(&barrier, NULL, RANKS);
	pthread_t th[RANKS];
	for (int r = 0; r < RANKS; r++) {
		rr[r].rank = r;
		assert_int_equal(pthread_create(&th[r], NULL, rank_main, &rr[r]), 0);
	}
	for (int r = 0; r < RANKS; r++)
		pthread_join(th[r], NULL);
	pthread_barrier_destroy(&barrier);
}

static void check_options(rank_run *rr, rp_mpi_run *m)
{
	rr->rc = rp_mpi_run_check_options(m, rr->argc, rr->argv, &rr->ro);
}

static char *same_args[] = { "/usr/bin/reprise", "replay", "t.rpz", "--target", "/x", NULL };
static char *other_args[] = { "/opt/bin/reprise", "replay", "t.rpz", "--target", "/y", NULL };
static char *moved_args[] = { "/opt/bin/reprise", "replay", "t.rpz", "--target", "/x", NULL };

/* The same arguments (the program's path aside) on every rank: no failure, nothing said. */
static void test_options_agree(void **state)
{
	(void)state;
	rank_run rr[RANKS] = { { .body = check_options, .argc = 5, .argv = same_args },
			       { .body = check_options, .argc = 5, .argv = moved_args } };
	run_ranks(rr);
	assert_int_equal(rr[0].rc, 0);
	assert_int_equal(rr[1].rc, 0);
	assert_int_equal(rr[0].nsaid, 0);
}

/* Rank 1 started with another target: both ranks stop with 2, and rank 0 names rank 1 and its host. */
static void test_options_differ(void **state)
{
	(void)state;
	rank_run rr[RANKS] = { { .body = check_options, .argc = 5, .argv = same_args },
			       { .body = check_options, .argc = 5, .argv = other_args } };
	run_ranks(rr);
	assert_int_equal(rr[0].rc, 2);
	assert_int_equal(rr[1].rc, 2);
	assert_int_equal(rr[0].nsaid, 1);
	assert_string_equal(rr[0].said[0], "options: rank 1 (host1): started with other arguments than rank 0: every "
					   "rank runs the same command line");
	assert_int_equal(rr[1].nsaid, 0); /* only rank 0 reports */
}

/* --clients 1 over two ranks fails on both alike: rank 0 says it once and counts the other. */
static void test_options_too_few_copies(void **state)
{
	(void)state;
	rank_run rr[RANKS] = { { .body = check_options, .argc = 5, .argv = same_args, .ro = { .clones = 1 } },
			       { .body = check_options, .argc = 5, .argv = same_args, .ro = { .clones = 1 } } };
	run_ranks(rr);
	assert_int_equal(rr[0].rc, 2);
	assert_int_equal(rr[1].rc, 2);
	assert_int_equal(rr[0].nsaid, 2);
	assert_string_equal(rr[0].said[0], "options: rank 0 (host0): --clients 1 is fewer than the 2 ranks: each rank "
					   "runs at least one copy");
	assert_string_equal(rr[0].said[1], "options: and 1 more rank the same");
}

static void share(rank_run *rr, rp_mpi_run *m)
{
	rp_mpi_trace t;
	const int st = rr->rank == 0 && !rr->trace ? 1 : 0;
	rr->rc = rp_mpi_run_share_trace(m, st, rr->rank == 0 ? rr->trace : NULL, "t.rpz", &t);
	rr->mode = t.mode;
	if (rr->rc)
		return;
	if (rr->rank != 0 && t.fd >= 0) {
		const ssize_t n = pread(t.fd, rr->got, sizeof(rr->got), 0);
		rr->got_len = n > 0 ? (size_t)n : 0;
		close(t.fd);
	}
	rr->rc = rp_mpi_run_check(m, "trace");
}

/* Rank 0's file reaches rank 1 as an unlinked file with the same bytes. */
static void test_share_trace(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-mpi-run-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char bytes[] = "not really a trace, but bytes all the same\n";
	assert_int_equal(write(fd, bytes, sizeof bytes - 1), (ssize_t)(sizeof bytes - 1));
	close(fd);
	rank_run rr[RANKS] = { { .body = share, .trace = path }, { .body = share } };
	run_ranks(rr);
	unlink(path);
	assert_int_equal(rr[0].rc, 0);
	assert_int_equal(rr[1].rc, 0);
	assert_int_equal(rr[0].mode, RP_MPI_TRACE_BYTES);
	assert_int_equal(rr[1].mode, RP_MPI_TRACE_BYTES);
	assert_int_equal(rr[1].got_len, sizeof bytes - 1);
	assert_memory_equal(rr[1].got, bytes, sizeof bytes - 1);
}

/* Rank 0 could not open the trace: every rank stops with its status, without a check. */
static void test_share_trace_failed(void **state)
{
	(void)state;
	rank_run rr[RANKS] = { { .body = share, .trace = NULL }, { .body = share } };
	run_ranks(rr);
	assert_int_equal(rr[0].rc, 1);
	assert_int_equal(rr[1].rc, 1);
	assert_int_equal(rr[1].mode, RP_MPI_TRACE_NONE);
}

/* Not a regular file: rank 0 says so, and every rank stops. */
static void test_share_trace_not_a_file(void **state)
{
	(void)state;
	rank_run rr[RANKS] = { { .body = share, .trace = "/tmp" }, { .body = share } };
	run_ranks(rr);
	assert_int_equal(rr[0].rc, 1);
	assert_int_equal(rr[1].rc, 1);
	assert_int_equal(rr[0].nsaid, 1);
	assert_string_equal(rr[0].said[0], "t.rpz: cannot broadcast what is not a regular file");
}

/* A whole run on the null backend: share, setup, start, run, gather; rank 0 merges and writes the JSON. */
static void run_all(rank_run *rr, rp_mpi_run *m)
{
	if ((rr->rc = rp_mpi_run_check_options(m, rr->argc, rr->argv, &rr->ro)) != 0)
		return;
	rp_mpi_trace t;
	if ((rr->rc = rp_mpi_run_share_trace(m, 0, rr->rank == 0 ? rr->trace : NULL, "small.load", &t)) != 0)
		return;
	char fdpath[32];
	const char *path = rr->trace;
	if (rr->rank != 0) {
		snprintf(fdpath, sizeof(fdpath), "/dev/fd/%d", t.fd);
		path = fdpath;
	}
	rp_workload *full = NULL, *w = NULL;
	rp_replay *r = NULL;
	char eb[RP_ERRBUF_SIZE];
	rr->rc = rp_mpi_run_setup(m, path, &rr->ro, false, &full, &w, &r);
	if (!rr->rc) {
		rp_mpi_run_start_together(m);
		rr->rc = rp_mpi_run_gather(m, r, rp_replay_run(r, eb));
	}
	if (!rr->rc && rr->rank == 0) {
		rp_replay_merge *mg = NULL;
		double merge_s = 0;
		FILE *const f = open_memstream(&rr->json, &rr->json_len);
		static const char *const features[] = { "test=yes", NULL };
		const rp_replay_provenance prov = { .version = "test", .features = features, .argc = rr->argc,
						    .argv = rr->argv, .start_epoch_ns = -1, .target = "/unused" };
		rr->rc = f && rp_mpi_run_merge(m, &mg, &merge_s, eb) == 0 ? rp_mpi_run_write_json(m, mg, merge_s, &prov, f, eb)
									   : -1;
		if (f)
			fclose(f);
		rp_replay_merge_destroy(mg);
	}
	rp_replay_destroy(r);
	rp_workload_destroy(w);
	rp_workload_destroy(full);
	if (rr->rank != 0 && t.fd >= 0)
		close(t.fd);
}

static char *run_args[] = { "reprise", "replay", "small.load", "--target", "/unused", "-b", "null", "--clients", "4",
			    "--mpi", NULL };

/* Four copies over two ranks: the JSON is replay's with the ranks added, each rank's share and first copy. */
static void test_json_of_a_run(void **state)
{
	(void)state;
	const char *const root = getenv("REPRISE_SOURCE_ROOT");
	char trace[4096];
	snprintf(trace, sizeof(trace), "%s/tests/data/replay/small.load", root ? root : ".");
	rank_run rr[RANKS];
	memset(rr, 0, sizeof(rr));
	for (int r = 0; r < RANKS; r++) {
		rr[r].body = run_all;
		rr[r].argc = 10;
		rr[r].argv = run_args;
		rr[r].trace = trace;
		rp_replay_opts_init(&rr[r].ro);
		rr[r].ro.target = "/unused";
		rr[r].ro.backend = "null";
		rr[r].ro.clones = 4;
	}
	run_ranks(rr);
	assert_int_equal(rr[1].rc, 0);
	assert_int_equal(rr[0].rc, 0);
	assert_null(rr[1].json);
	json_error_t jerr;
	json_t *const d = json_loadb(rr[0].json, rr[0].json_len, 0, &jerr);
	if (!d)
		fail_msg("not JSON: %s: %.200s", jerr.text, rr[0].json);
	assert_int_equal(rr[0].json[rr[0].json_len - 1], '\n');
	free(rr[0].json);
	assert_int_equal(json_integer_value(json_object_get(d, "ranks")), RANKS);
	assert_string_equal(json_string_value(json_object_get(d, "schema")), "reprise-replay");
	assert_int_equal(json_integer_value(json_object_get(d, "schema_version")), RP_REPLAY_JSON_SCHEMA);
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "provenance"), "reprise_version")), "test");
	const json_t *const mpi = json_object_get(d, "mpi");
	assert_int_equal(json_integer_value(json_object_get(mpi, "ranks")), RANKS);
	assert_int_equal(json_integer_value(json_object_get(mpi, "clock_rounds")), RP_MPI_CLOCK_ROUNDS);
	assert_true(json_integer_value(json_object_get(mpi, "start_epoch_ns")) > 0);
	assert_true(json_is_real(json_object_get(mpi, "merge_seconds")));
	const json_t *const per = json_object_get(mpi, "per_rank");
	assert_int_equal(json_array_size(per), RANKS);
	json_int_t ops = 0, gathered = 0;
	for (int r = 0; r < RANKS; r++) {
		const json_t *const j = json_array_get(per, (size_t)r);
		char host[16];
		snprintf(host, sizeof(host), "host%d", r);
		assert_int_equal(json_integer_value(json_object_get(j, "rank")), r);
		assert_string_equal(json_string_value(json_object_get(j, "host")), host);
		assert_int_equal(json_integer_value(json_object_get(j, "first_copy")), 1 + 2 * r); /* copies 1-2, 3-4 */
		assert_string_equal(json_string_value(json_object_get(j, "stop")), "end");
		assert_true(json_is_null(json_object_get(j, "error")));
		assert_true(json_integer_value(json_object_get(j, "result_bytes")) > 0);
		assert_true(json_object_size(json_object_get(j, "op")) > 0);
		ops += json_integer_value(json_object_get(j, "ops"));
		gathered += json_integer_value(json_object_get(j, "result_bytes"));
	}
	/* The merged counts are the ranks' sum, and the bytes gathered their shares'. */
	assert_int_equal(json_integer_value(json_object_get(d, "total_ops")), ops);
	assert_int_equal(json_integer_value(json_object_get(mpi, "gather_bytes")), gathered);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_agree),
		cmocka_unit_test(test_options_differ),
		cmocka_unit_test(test_options_too_few_copies),
		cmocka_unit_test(test_share_trace),
		cmocka_unit_test(test_share_trace_failed),
		cmocka_unit_test(test_share_trace_not_a_file),
		cmocka_unit_test(test_json_of_a_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
