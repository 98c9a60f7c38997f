/* The spool reader on hand-made rings: good records, the merge watermark, and hostile files (capture/preload/spool.c). */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>

#include "capture/preload/spool.h"
#include "capture/preload/tsc.h"
#include "tests/capture/preload/ringfile.h"

#define SIZE RP_RING_MIN_SIZE

typedef struct ctx {
	rp_spool *s;
	rp_ring_hdr hdr;
	uint8_t data[SIZE];
	uint64_t head;
	unsigned got;
	rp_sysev ev[8];
	char paths[8][64];
} ctx;

static int setup(void **state)
{
	ctx *const c = calloc(1, sizeof *c);
	char eb[256];
	assert_int_equal(rp_spool_create(&c->s, "/tmp", 0, RP_SPOOL_CLOCK_MONOTONIC, eb), 0);
	c->hdr.magic = RP_RING_MAGIC;
	c->hdr.version = RP_RING_VERSION;
	c->hdr.hdr_size = RP_RING_HDR_SIZE;
	c->hdr.pid = (uint32_t)getpid();
	c->hdr.tid = (uint32_t)syscall(SYS_gettid);
	c->hdr.data_size = SIZE;
	c->hdr.serial = 7;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	ctx *const c = *state;
	rp_spool_destroy(c->s);
	free(c);
	return 0;
}

static int collect(void *p, const rp_sysev *ev)
{
	ctx *const c = p;
	assert_true(c->got < 8);
	c->ev[c->got] = *ev;
	if (ev->p[0]) {
		assert_true(ev->plen[0] < 64);
		memcpy(c->paths[c->got], ev->p[0], ev->plen[0]);
	}
	c->got++;
	return 0;
}

/* Append a record at the head (with a PAD first when it does not fit before the end). */
static rp_ring_rec *add(ctx *c, uint16_t nr, uint64_t t, const char *p0)
{
	const uint32_t l0 = p0 ? (uint32_t)strlen(p0) : 0, len = rp_ring_reclen(l0, 0);
	uint64_t pos = c->head % SIZE;
	if (SIZE - pos < len) {
		rp_ring_rec pad = {.nr = RP_RING_NR_PAD, .reclen = (uint32_t)(SIZE - pos)};
		memcpy(c->data + pos, &pad, 8);
		c->head += SIZE - pos;
		pos = 0;
	}
	rp_ring_rec *const r = (rp_ring_rec *)(c->data + pos);
	memset(r, 0, len);
	r->nr = nr;
	r->reclen = len;
	r->plen[0] = (uint16_t)l0;
	r->t_start = t;
	r->t_end = t + 1;
	r->ret = 3;
	r->a[0] = 42;
	if (l0)
		memcpy((char *)(r + 1), p0, l0);
	c->head += len;
	c->hdr.head = c->head;
	return r;
}

static void put(ctx *c, const char *name)
{
	assert_int_equal(ringfile_write(rp_spool_dir(c->s), name, &c->hdr, c->data, SIZE), 0);
}

static bool exists(ctx *c, const char *name)
{
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", rp_spool_dir(c->s), name);
	return stat(path, &st) == 0;
}

static void test_good_records(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_OPEN, 100, "/a/b");
	add(c, RP_SYSEV_CLOSE, 200, NULL);
	c->hdr.closed = 1;
	put(c, "1.2.3");
	put(c, "9.9.9.new"); /* not finished: never opened */
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 2);
	assert_int_equal(c->got, 2);
	assert_int_equal(c->ev[0].nr, RP_SYSEV_OPEN);
	assert_int_equal(c->ev[0].pid, getpid());
	assert_int_equal(c->ev[0].plen[0], 4);
	assert_memory_equal(c->paths[0], "/a/b", 4);
	assert_int_equal(c->ev[0].a[0], 42);
	assert_int_equal(c->ev[1].nr, RP_SYSEV_CLOSE);
	assert_null(c->ev[1].p[0]);
	const rp_spool_stats *const st = rp_spool_get_stats(c->s);
	assert_int_equal(st->bad, 0);
	assert_int_equal(st->rings, 1);
	assert_int_equal(st->rings_done, 1); /* closed and drained: removed */
	assert_false(exists(c, "1.2.3"));
}

static void test_pad_wraps(void **state)
{
	ctx *const c = *state;
	/* Start near the end so the second record needs a PAD and wraps to 0. */
	c->hdr.tail = SIZE - 96;
	c->head = SIZE - 96;
	c->hdr.head = c->head;
	add(c, RP_SYSEV_READ, 10, NULL);
	add(c, RP_SYSEV_WRITE, 20, "x");
	c->hdr.closed = 1;
	put(c, "1.2.4");
	assert_int_equal(rp_spool_poll(c->s, true, collect, c), 2);
	assert_int_equal(c->ev[1].nr, RP_SYSEV_WRITE);
	assert_int_equal(rp_spool_get_stats(c->s)->bad, 0);
}

static void test_watermark(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 100, NULL);
	add(c, RP_SYSEV_READ, 300, NULL);
	c->hdr.busy = 200; /* a call that began at 200 is in progress: nothing after it may go out yet */
	put(c, "1.2.5");
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 2);
	assert_int_equal(c->got, 1);
	assert_int_equal(c->ev[0].t_start, 100);
	assert_int_equal(rp_spool_get_stats(c->s)->pending, 1);
	assert_int_equal(rp_spool_live(c->s), 1);
	assert_int_equal(rp_spool_poll(c->s, true, collect, c), 0);
	assert_int_equal(c->got, 2);
	assert_int_equal(c->ev[1].t_start, 300);
}

static void test_entering_holds(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 1, NULL); /* t 1: before any scan's now */
	c->hdr.busy = RP_RING_ENTERING;
	put(c, "1.2.6");
	/* ENTERING on the first sight: W is the previous scan's now (the spool's creation), after t 1 */
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 1);
	assert_int_equal(c->got, 1);
}

static void hostile(ctx *c, const char *name);

/* A new ring in c: no records, not busy, not closed. */
static void fresh(ctx *c)
{
	memset(c->data, 0, sizeof c->data);
	c->head = 0;
	c->hdr.head = c->hdr.tail = 0;
	c->hdr.busy = RP_RING_IDLE;
	c->hdr.closed = 0;
}

static void test_merge_rings(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 100, NULL);
	add(c, RP_SYSEV_READ, 300, NULL);
	add(c, RP_SYSEV_READ, 500, "/a");
	c->hdr.closed = 1;
	put(c, "1.2.10");
	fresh(c);
	c->hdr.tid++;
	add(c, RP_SYSEV_WRITE, 200, "/b");
	add(c, RP_SYSEV_WRITE, 300, NULL); /* a tie: the ring found first goes first */
	add(c, RP_SYSEV_WRITE, 400, NULL);
	c->hdr.closed = 1;
	put(c, "1.3.10");
	assert_int_equal(rp_spool_poll(c->s, true, collect, c), 6);
	assert_int_equal(c->got, 6);
	const uint64_t want[] = {100, 200, 300, 300, 400, 500};
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(c->ev[i].t_start, want[i]);
	assert_int_equal(c->ev[1].nr, RP_SYSEV_WRITE);
	assert_memory_equal(c->paths[1], "/b", 2);
	assert_int_not_equal(c->ev[2].tid, c->ev[3].tid);
	assert_memory_equal(c->paths[5], "/a", 2);
	assert_int_equal(c->ev[5].tid, c->ev[0].tid);
	assert_int_equal(rp_spool_get_stats(c->s)->late, 0);
	assert_int_equal(rp_spool_get_stats(c->s)->pending, 0);
}

/* A closed ring is let go of at once, but its records wait for the watermark another ring holds. */
static void test_closed_ring_waits(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 500, NULL);
	c->hdr.closed = 1;
	put(c, "1.2.11");
	fresh(c);
	c->hdr.tid++;
	add(c, RP_SYSEV_READ, 100, NULL);
	c->hdr.busy = 200;
	put(c, "1.3.11");
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 2);
	assert_int_equal(c->got, 1);
	assert_int_equal(c->ev[0].t_start, 100);
	assert_false(exists(c, "1.2.11")); /* its file is gone, its record is not */
	assert_int_equal(rp_spool_get_stats(c->s)->rings_done, 1);
	assert_int_equal(rp_spool_get_stats(c->s)->pending, 1);
	assert_int_equal(rp_spool_poll(c->s, true, collect, c), 0);
	assert_int_equal(c->got, 2);
	assert_int_equal(c->ev[1].t_start, 500);
}

/* A ring made after the first poll is found by its count in the control page; one never counted, at the final poll. */
static void test_new_ring_counted(void **state)
{
	ctx *const c = *state;
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 0);
	add(c, RP_SYSEV_READ, 1, NULL);
	put(c, "1.2.12"); /* counted, as a producer does after its rename */
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 1);
	assert_int_equal(c->got, 1);
	assert_int_equal(rp_spool_get_stats(c->s)->rings, 1);
	char dir[4200];
	snprintf(dir, sizeof dir, "%s/1.3.12", rp_spool_dir(c->s));
	fresh(c);
	c->hdr.tid++;
	add(c, RP_SYSEV_READ, 2, NULL);
	c->hdr.closed = 1;
	/* written without the count: a producer that died between its rename and its count */
	const int fd = open(dir, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	static const unsigned char zero[RP_RING_HDR_SIZE];
	assert_int_equal(write(fd, &c->hdr, sizeof c->hdr), sizeof c->hdr);
	assert_int_equal(write(fd, zero, RP_RING_HDR_SIZE - sizeof c->hdr), RP_RING_HDR_SIZE - sizeof c->hdr);
	assert_int_equal(write(fd, c->data, SIZE), SIZE);
	close(fd);
	/* the final poll reads the directory whatever the count says (a poll before it may, once a second) */
	assert_true(rp_spool_poll(c->s, false, collect, c) >= 0);
	assert_true(rp_spool_poll(c->s, true, collect, c) >= 0);
	assert_int_equal(c->got, 2);
	assert_int_equal(c->ev[1].t_start, 2);
}

/* A ring whose records go back in time is delivered in its own order, the step back counted late. */
static void test_ring_out_of_order(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 300, NULL);
	add(c, RP_SYSEV_READ, 100, NULL);
	c->hdr.closed = 1;
	put(c, "1.2.13");
	assert_int_equal(rp_spool_poll(c->s, true, collect, c), 2);
	assert_int_equal(c->ev[0].t_start, 300);
	assert_int_equal(c->ev[1].t_start, 100);
	assert_int_equal(rp_spool_get_stats(c->s)->late, 1);
}

/* The good records before a broken one are delivered; the ring is dropped at the break. */
static void test_good_then_bad(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_OPEN, 10, "/ok");
	add(c, RP_SYSEV_READ, 20, NULL);
	add(c, RP_SYSEV_READ, 30, NULL)->plen[0] = 9; /* its path would run past the record */
	add(c, RP_SYSEV_READ, 40, NULL);
	put(c, "1.2.14");
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 0);
	assert_int_equal(c->got, 2);
	assert_int_equal(c->ev[1].t_start, 20);
	assert_int_equal(rp_spool_get_stats(c->s)->bad, 1);
	assert_false(exists(c, "1.2.14"));
	assert_int_equal(rp_spool_poll(c->s, true, collect, c), 0);
	assert_int_equal(c->got, 2);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A TSC spool maps its rings' ticks to CLOCK_MONOTONIC ns, keeps their order, and rejects a ring in ns. */
static void test_tsc_clock(void **state)
{
	ctx *const c = *state;
	if (!RP_HAVE_TSC)
		skip();
	rp_spool_destroy(c->s);
	char eb[256];
	assert_int_equal(rp_spool_create(&c->s, "/tmp", 0, RP_SPOOL_CLOCK_TSC, eb), 0);
	assert_int_equal(rp_spool_get_clock(c->s), RP_SPOOL_CLOCK_TSC);
	const uint64_t m0 = mono_ns(), t0 = rp__tsc();
	const struct timespec pause = {0, 2000000};
	nanosleep(&pause, NULL);
	const uint64_t t1 = rp__tsc(), m1 = mono_ns();
	c->hdr.flags = RP_RING_F_TSC;
	add(c, RP_SYSEV_READ, t0, NULL);
	add(c, RP_SYSEV_READ, t1, NULL);
	c->hdr.closed = 1;
	put(c, "1.2.20");
	fresh(c);
	c->hdr.tid++;
	c->hdr.flags = 0; /* ns in a TSC spool: not merged */
	add(c, RP_SYSEV_READ, m0, NULL);
	put(c, "1.3.20");
	assert_int_equal(rp_spool_poll(c->s, true, collect, c), 2);
	assert_int_equal(c->got, 2);
	assert_int_equal(rp_spool_get_stats(c->s)->bad, 1);
	/* within 0.5 ms of the clock around them: the rate is measured over this short run only */
	assert_true(c->ev[0].t_start + 500000 >= m0 && c->ev[0].t_start <= m0 + 500000);
	assert_true(c->ev[1].t_start + 500000 >= m1 && c->ev[1].t_start <= m1 + 500000);
	assert_true(c->ev[1].t_start - c->ev[0].t_start >= 1500000); /* the 2 ms pause, less the slack */
	assert_true(c->ev[1].t_end >= c->ev[1].t_start); /* add() made t_end one tick later: under a ns */
}

/* A monotonic spool rejects a ring in TSC ticks. */
static void test_clock_mismatch(void **state)
{
	ctx *const c = *state;
	c->hdr.flags = RP_RING_F_TSC;
	add(c, RP_SYSEV_READ, 1, NULL);
	hostile(c, "2.2.20");
}

static void hostile(ctx *c, const char *name)
{
	put(c, name);
	assert_true(rp_spool_poll(c->s, true, collect, c) >= 0);
	assert_int_equal(c->got, 0);
	assert_int_equal(rp_spool_get_stats(c->s)->bad, 1);
	assert_false(exists(c, name)); /* never trusted further: removed */
}

static void test_bad_magic(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 1, NULL);
	c->hdr.magic ^= 1;
	hostile(c, "2.2.2");
}

static void test_head_beyond_size(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 1, NULL);
	c->hdr.head = SIZE + 8;
	hostile(c, "2.2.3");
}

static void test_reclen_zero(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_READ, 1, NULL)->reclen = 0;
	hostile(c, "2.2.4");
}

static void test_reclen_past_end(void **state)
{
	ctx *const c = *state;
	c->hdr.tail = SIZE - 88;
	c->head = SIZE - 88;
	add(c, RP_SYSEV_READ, 1, NULL)->reclen = 96; /* runs past the data's end */
	c->hdr.head = c->head + 8;
	hostile(c, "2.2.5");
}

static void test_path_past_record(void **state)
{
	ctx *const c = *state;
	add(c, RP_SYSEV_OPEN, 1, "abc")->plen[0] = 200;
	hostile(c, "2.2.6");
}

static void test_bad_sizes(void **state)
{
	ctx *const c = *state;
	c->hdr.data_size = SIZE + 8; /* not a power of two */
	hostile(c, "2.2.7");
}

static void test_writer_gone(void **state)
{
	ctx *const c = *state;
	put(c, "1.2.8");
	assert_int_equal(rp_spool_poll(c->s, false, collect, c), 0);
	/* The producer keeps its mapping: destroy must leave writer_gone set in the shared page. */
	char path[4200];
	snprintf(path, sizeof path, "%s/1.2.8", rp_spool_dir(c->s));
	const int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	rp_spool_destroy(c->s);
	rp_ring_hdr h;
	assert_int_equal(pread(fd, &h, sizeof h, 0), sizeof h);
	assert_int_equal(h.writer_gone, 1);
	close(fd);
	char eb[256];
	assert_int_equal(rp_spool_create(&c->s, "/tmp", 0, RP_SPOOL_CLOCK_MONOTONIC, eb), 0);
}

/* A spool directory under parent as a killed capture leaves it: a control page naming pid, unlocked, and rings. */
static void make_orphan(const char *parent, const char *name, pid_t pid, int rings)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", parent, name);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/%s/" RP_SPOOL_CTL_FILE, parent, name);
	const int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	const rp_spool_ctl ctl = { .magic = RP_SPOOL_CTL_MAGIC, .writer_pid = pid };
	assert_int_equal(pwrite(fd, &ctl, sizeof ctl, 0), sizeof ctl);
	assert_int_equal(ftruncate(fd, RP_SPOOL_CTL_SIZE), 0);
	close(fd);
	for (int i = 0; i < rings; i++) {
		snprintf(path, sizeof path, "%s/%s/1.%d.7", parent, name, i);
		const int r = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(r >= 0);
		close(r);
	}
}

static bool in_dir(const char *parent, const char *name)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", parent, name);
	struct stat st;
	return lstat(path, &st) == 0;
}

/* A traced thread asking whether its writer is gone: a shared lock on the control page for a moment. */
typedef struct brief_lock {
	int fd;
	pthread_barrier_t held;
} brief_lock;

static void *hold_shared(void *p)
{
	brief_lock *const b = p;
	assert_int_equal(flock(b->fd, LOCK_SH), 0);
	pthread_barrier_wait(&b->held);
	const struct timespec t = {0, 5 * 1000 * 1000};
	nanosleep(&t, NULL);
	flock(b->fd, LOCK_UN);
	return NULL;
}

/*
 * The sweep removes an orphan (writer dead, page unlocked) even while a traced
 * thread holds its brief shared lock, and a half-removed ".gone" one; it keeps
 * a live spool, one whose writer pid runs, and what is not a spool.
 */
static void test_sweep(void **state)
{
	(void)state;
	char parent[] = "/tmp/rp-sweep-XXXXXX";
	assert_non_null(mkdtemp(parent));
	const pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	assert_true(dead > 0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);

	make_orphan(parent, "reprise-spool-orphan", dead, 3);
	make_orphan(parent, "reprise-spool-locked", dead, 1);
	make_orphan(parent, "reprise-spool-oldgon.gone", dead, 2);
	make_orphan(parent, "reprise-spool-alive", getpid(), 1);
	make_orphan(parent, "not-a-spool", dead, 1);
	rp_spool *live = NULL;
	char eb[256];
	assert_int_equal(rp_spool_create(&live, parent, 0, RP_SPOOL_CLOCK_MONOTONIC, eb), 0);
	char live_name[256];
	snprintf(live_name, sizeof live_name, "%s", strrchr(rp_spool_dir(live), '/') + 1);

	char path[4200];
	snprintf(path, sizeof path, "%s/reprise-spool-locked/" RP_SPOOL_CTL_FILE, parent);
	brief_lock b = { .fd = open(path, O_RDONLY) };
	assert_true(b.fd >= 0);
	pthread_barrier_init(&b.held, NULL, 2);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, hold_shared, &b), 0);
	pthread_barrier_wait(&b.held);

	assert_int_equal(rp_spool_sweep(parent, eb), 2);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&b.held);
	close(b.fd);
	assert_false(in_dir(parent, "reprise-spool-orphan"));
	assert_false(in_dir(parent, "reprise-spool-orphan.gone"));
	assert_false(in_dir(parent, "reprise-spool-locked"));
	assert_false(in_dir(parent, "reprise-spool-oldgon.gone"));
	assert_true(in_dir(parent, "reprise-spool-alive"));
	assert_true(in_dir(parent, "not-a-spool"));
	assert_true(in_dir(parent, live_name));

	/* The writer's own end leaves nothing, no ".gone" either. */
	char live_gone[300];
	snprintf(live_gone, sizeof live_gone, "%s.gone", live_name);
	rp_spool_destroy(live);
	assert_false(in_dir(parent, live_name));
	assert_false(in_dir(parent, live_gone));
	assert_int_equal(rp_spool_sweep(parent, eb), 0);
	assert_true(in_dir(parent, "reprise-spool-alive"));

	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", parent);
	assert_int_equal(system(cmd), 0);
	assert_true(rp_spool_sweep(parent, eb) < 0); /* a parent that cannot be read is an error */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pad_wraps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watermark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_entering_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_rings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_ring_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_ring_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_good_then_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tsc_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_head_beyond_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclen_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclen_past_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_past_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_gone, setup, teardown),
		cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
