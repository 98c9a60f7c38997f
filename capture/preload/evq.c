/* The writer's event queue (evq.h): chunks of copied events, from the drain to an encoder thread at SCHED_IDLE. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/preload/evq.h"
#include "formats/error.h"

/* A chunk holds some 25,000 events of a tar extraction: one lock taken per poll, or per chunk filled. */
#define CHUNK_BYTES ((size_t)1 << 20)
/* A dry encoder still ticks this often (the capture's tick writes a frame out once a second). */
#define IDLE_TICK_NS (250 * 1000 * 1000)
/*
 * An event in a chunk, compact: a tag byte (TAG_*), then LEB128 varints:
 * nr, flags, [pid, tid: unless the previous event's], ret, t_start less the
 * previous event's, t_end less t_start, a[0..5] (signed ones zigzag), and
 * for each path present its length and bytes.  Some 30 bytes an event
 * besides its paths, where the 96 of a fixed layout were: every byte queued
 * is a page the drain touches, and a fresh page costs a fault (3-5 us on the
 * VMs measured), which a pinned capture pays in the traced program's time.
 */
#define TAG_P0 1u        /* p0 present (a length of 0 is a path present and empty: fstatat's "") */
#define TAG_P1 2u        /* p1 present */
#define TAG_SAME_IDS 4u  /* pid and tid are the previous event's */
#define VARINT_MAX 10    /* bytes of a 64-bit LEB128 */
/* More than an event takes besides its paths' bytes: the tag, 13 varints, two lengths. */
#define ENTRY_FIXED_MAX (1 + 15 * VARINT_MAX)

/* The previous event of a stream, which the next one is written against. */
typedef struct prev {
	uint32_t pid, tid;
	uint64_t t_start;
} prev;

static uint8_t *put_u(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *put_s(uint8_t *p, int64_t v)
{
	return put_u(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* The queue's own bytes, written by put_u: no bound check is needed, only no reading past what a varint is. */
static const uint8_t *get_u(const uint8_t *p, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		const uint8_t b = *p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	*v = r;
	return p;
}

static const uint8_t *get_s(const uint8_t *p, int64_t *v)
{
	uint64_t u;
	p = get_u(p, &u);
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return p;
}

_Static_assert(ENTRY_FIXED_MAX + 2 * RP_SYSEV_PATH_MAX < ((size_t)1 << 20), "a chunk holds the biggest event");

typedef struct chunk {
	struct chunk *next;
	size_t wr; /* bytes published: the encoder reads up to here (under the lock) */
	size_t rd; /* bytes the encoder is done with (under the lock) */
	_Alignas(8) uint8_t data[CHUNK_BYTES];
} chunk;

struct rp_evq {
	pthread_mutex_t mu;
	pthread_cond_t more; /* published, or stop: the encoder waits for it */
	pthread_cond_t room; /* encoded, or failed: a drain with a full queue waits for it */
	/* Under mu: */
	chunk *head, *tail; /* the encoder reads from head, the drain appends to tail */
	chunk *spare;       /* one chunk done with, for the drain's next */
	size_t queued;      /* bytes published, not yet encoded */
	int err;            /* the first non-zero return of fn or tick */
	bool stop;          /* the encoder thread is to return */
	bool boosted;       /* the encoder runs at the normal priority for now (idle: the queue was full) */
	bool idle;          /* the encoder made itself idle (it decides when it starts) */
	/* The drain's (the thread that creates, pushes, publishes and finishes): */
	size_t fill; /* write position in tail, >= tail->wr */
	prev wr_prev; /* the last event pushed */
	/* The encoder's (its thread's, then after the join the finisher's): */
	prev rd_prev; /* the last event encoded */
	size_t max;
	bool started, finished;
	pthread_t thr;
	rp_evq_stats st;
	/* Set at creation: */
	int (*fn)(void *ctx, const rp_sysev *ev);
	int (*tick)(void *ctx);
	void *ctx;
	bool want_idle; /* the options' idle */
};

/* Run fn on the event at p, read against the encoder's previous one; *len: its size. */
static int run_one(rp_evq *q, const uint8_t *p, size_t *len)
{
	const uint8_t *const p0 = p;
	const uint8_t tag = *p++;
	uint64_t u;
	int64_t d;
	rp_sysev ev; /* every field set below: a zeroing `= {0}` was a `rep stos`, a quarter of this function's time */
	p = get_u(p, &u), ev.nr = (uint16_t)u;
	p = get_u(p, &u), ev.flags = (uint16_t)u;
	if (!(tag & TAG_SAME_IDS)) {
		p = get_u(p, &u), q->rd_prev.pid = (uint32_t)u;
		p = get_u(p, &u), q->rd_prev.tid = (uint32_t)u;
	}
	ev.pid = q->rd_prev.pid;
	ev.tid = q->rd_prev.tid;
	p = get_s(p, &ev.ret);
	p = get_s(p, &d), ev.t_start = q->rd_prev.t_start + (uint64_t)d;
	p = get_s(p, &d), ev.t_end = ev.t_start + (uint64_t)d;
	q->rd_prev.t_start = ev.t_start;
	for (int i = 0; i < RP_SYSEV_ARGS; i++)
		p = get_s(p, &ev.a[i]);
	for (int i = 0; i < 2; i++) {
		if (!(tag & (i ? TAG_P1 : TAG_P0))) {
			ev.p[i] = NULL;
			ev.plen[i] = 0;
			continue;
		}
		p = get_u(p, &u);
		ev.p[i] = (const char *)p;
		ev.plen[i] = (uint32_t)u;
		p += u;
	}
	*len = (size_t)(p - p0);
	return q->fn(q->ctx, &ev);
}

/* Encode at most a batch of c's events from *pos up to end, then tick: 0 or the first error. */
static int encode_batch(rp_evq *q, const chunk *c, size_t *pos, size_t end)
{
	int rc = 0;
	for (unsigned n = 0; *pos < end && n < RP_EVQ_BATCH && rc == 0; n++) {
		size_t len;
		rc = run_one(q, c->data + *pos, &len);
		*pos += len;
	}
	if (rc == 0 && q->tick)
		rc = q->tick(q->ctx);
	return rc;
}

/* Under mu: the chunks read to their end that the drain has left (not the tail) are recycled. */
static void advance(rp_evq *q)
{
	while (q->head && q->head != q->tail && q->head->rd == q->head->wr) {
		chunk *const done = q->head;
		q->head = done->next;
		if (!q->spare)
			q->spare = done;
		else
			free(done);
	}
}

/* Under mu: the encoder is done with c up to pos. */
static void consumed(rp_evq *q, chunk *c, size_t pos)
{
	q->queued -= pos - c->rd;
	c->rd = pos;
	advance(q);
	pthread_cond_signal(&q->room);
}

static void deadline_in(struct timespec *ts, long ns)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += ns;
	ts->tv_sec += ts->tv_nsec / 1000000000;
	ts->tv_nsec %= 1000000000;
}

/*
 * Whether this thread could be taken from SCHED_IDLE back to the normal
 * policy: the kernel allows it with CAP_SYS_NICE or an RLIMIT_NICE of 20
 * (sched(7)).  Tried by asking for nice -1 (the same rule, one step
 * stricter) and going back to 0, which needs nothing.  Without it an idle
 * encoder could not be hurried: at the end of a capture on a busy machine it
 * would get the CPU only when nothing else wants it, so it is not made idle.
 */
static bool can_unidle(void)
{
	const pid_t self = (pid_t)syscall(SYS_gettid);
	const int was = getpriority(PRIO_PROCESS, (id_t)self);
	if (was != 0 || setpriority(PRIO_PROCESS, (id_t)self, -1) != 0)
		return false;
	return setpriority(PRIO_PROCESS, (id_t)self, 0) == 0;
}

/* The encoder thread's policy: SCHED_IDLE, or the normal one while the drain waits for it or finishes. */
static void set_idle(pthread_t t, bool idle)
{
	const struct sched_param sp = {0};
	(void)pthread_setschedparam(t, idle ? SCHED_IDLE : SCHED_OTHER, &sp);
}

static void *encoder(void *arg)
{
	rp_evq *const q = arg;
	pthread_setname_np(pthread_self(), "reprise-encode"); /* as top and perf show it (15 bytes at most) */
	const bool idle = q->want_idle && can_unidle();
	pthread_mutex_lock(&q->mu);
	q->idle = idle && !q->stop;
	if (q->idle)
		set_idle(pthread_self(), true);
	while (!q->stop && !q->err) {
		advance(q);
		chunk *const c = q->head;
		if (!c || c->rd == c->wr) {
			struct timespec ts;
			deadline_in(&ts, IDLE_TICK_NS);
			if (pthread_cond_timedwait(&q->more, &q->mu, &ts) == ETIMEDOUT && q->tick && !q->stop) {
				pthread_mutex_unlock(&q->mu);
				const int rc = q->tick(q->ctx);
				pthread_mutex_lock(&q->mu);
				if (rc && !q->err)
					q->err = rc;
			}
			continue;
		}
		const size_t end = c->wr;
		size_t pos = c->rd;
		pthread_mutex_unlock(&q->mu);
		const int rc = encode_batch(q, c, &pos, end);
		pthread_mutex_lock(&q->mu);
		consumed(q, c, pos);
		if (rc && !q->err)
			q->err = rc;
		/* Caught up to half the bound after a full queue: back to idle (lowering needs no privilege). */
		if (q->boosted && !q->stop && q->queued < q->max / 2) {
			q->boosted = false;
			set_idle(pthread_self(), true);
		}
	}
	pthread_cond_broadcast(&q->room); /* a drain waiting for room sees the error */
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

static int fail_errno(char *errbuf, int e, const char *what)
{
	return rp_fail(errbuf, e == ENOMEM ? RP_E_NOMEM : RP_E_SYSTEM, "event queue: %s: %s", what, strerror(e));
}

int rp_evq_create(rp_evq **out, int (*fn)(void *ctx, const rp_sysev *ev), void *ctx, const rp_evq_opts *o,
		  char *errbuf)
{
	*out = NULL;
	rp_evq *const q = calloc(1, sizeof *q);
	if (!q)
		return rp_fail(errbuf, RP_E_NOMEM, "event queue: out of memory");
	q->fn = fn;
	q->ctx = ctx;
	q->tick = o ? o->tick : NULL;
	q->want_idle = o && o->idle;
	q->max = o && o->max_bytes ? o->max_bytes : RP_EVQ_DEFAULT_MAX;
	pthread_condattr_t ca;
	int e = pthread_condattr_init(&ca);
	if (e == 0) {
		e = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		if (e == 0)
			e = pthread_cond_init(&q->more, &ca);
		if (e == 0 && (e = pthread_cond_init(&q->room, NULL)) != 0)
			pthread_cond_destroy(&q->more);
		pthread_condattr_destroy(&ca);
	}
	if (e == 0 && (e = pthread_mutex_init(&q->mu, NULL)) != 0) {
		pthread_cond_destroy(&q->more);
		pthread_cond_destroy(&q->room);
	}
	if (e != 0) {
		free(q);
		return fail_errno(errbuf, e, "init");
	}
	e = pthread_create(&q->thr, NULL, encoder, q);
	if (e != 0) {
		q->finished = true;
		rp_evq_destroy(q);
		return fail_errno(errbuf, e, "thread");
	}
	q->started = true;
	*out = q;
	return RP_OK;
}

/* Under mu: what the drain wrote to tail becomes the encoder's. */
static void publish_locked(rp_evq *q)
{
	if (!q->tail || q->fill == q->tail->wr)
		return;
	q->queued += q->fill - q->tail->wr;
	q->tail->wr = q->fill;
	if (q->queued > q->st.max_queued)
		q->st.max_queued = q->queued;
	pthread_cond_signal(&q->more);
}

/* Under mu: wait while the queue is over its bound; the encoder's error, or 0. */
static int wait_room_locked(rp_evq *q)
{
	bool counted = false;
	while (!q->err && !q->stop && q->queued >= q->max) {
		if (!counted) {
			q->st.full_waits++;
			counted = true;
		}
		if (q->idle && !q->boosted) {
			q->boosted = true; /* the encoder is what everything waits for now */
			set_idle(q->thr, false);
		}
		pthread_cond_wait(&q->room, &q->mu);
	}
	return q->err;
}

int rp_evq_publish(rp_evq *q)
{
	if (q->finished)
		return RP_E_STATE;
	pthread_mutex_lock(&q->mu);
	publish_locked(q);
	const int rc = wait_room_locked(q);
	pthread_mutex_unlock(&q->mu);
	return rc;
}

/* The drain's next chunk: the current one published, room waited for, the spare or a new one appended. */
static int next_chunk(rp_evq *q)
{
	pthread_mutex_lock(&q->mu);
	publish_locked(q);
	int rc = wait_room_locked(q);
	chunk *c = NULL;
	if (rc == 0 && q->spare) {
		c = q->spare;
		q->spare = NULL;
	}
	pthread_mutex_unlock(&q->mu);
	if (rc)
		return rc;
	if (!c && !(c = malloc(sizeof *c)))
		return RP_E_NOMEM;
	c->next = NULL;
	c->wr = c->rd = 0;
	pthread_mutex_lock(&q->mu);
	if (q->tail)
		q->tail->next = c;
	else
		q->head = c;
	q->tail = c;
	pthread_mutex_unlock(&q->mu);
	q->fill = 0;
	return RP_OK;
}

int rp_evq_push(void *arg, const rp_sysev *ev)
{
	rp_evq *const q = arg;
	if (q->finished)
		return RP_E_STATE;
	uint32_t l[2];
	for (int i = 0; i < 2; i++) {
		l[i] = ev->p[i] ? ev->plen[i] : 0;
		if (l[i] > RP_SYSEV_PATH_MAX)
			return RP_E_RANGE;
	}
	const size_t most = ENTRY_FIXED_MAX + l[0] + l[1];
	if (!q->tail || CHUNK_BYTES - q->fill < most) {
		const int rc = next_chunk(q);
		if (rc)
			return rc;
	}
	uint8_t *const p0 = q->tail->data + q->fill;
	uint8_t *p = p0 + 1;
	uint8_t tag = (ev->p[0] ? TAG_P0 : 0) | (ev->p[1] ? TAG_P1 : 0);
	p = put_u(p, ev->nr);
	p = put_u(p, ev->flags);
	if (q->st.events && ev->pid == q->wr_prev.pid && ev->tid == q->wr_prev.tid) {
		tag |= TAG_SAME_IDS;
	} else {
		p = put_u(p, ev->pid);
		p = put_u(p, ev->tid);
	}
	*p0 = tag;
	p = put_s(p, ev->ret);
	p = put_s(p, (int64_t)(ev->t_start - q->wr_prev.t_start));
	p = put_s(p, (int64_t)(ev->t_end - ev->t_start));
	for (int i = 0; i < RP_SYSEV_ARGS; i++)
		p = put_s(p, ev->a[i]);
	for (int i = 0; i < 2; i++) {
		if (!ev->p[i])
			continue;
		p = put_u(p, l[i]);
		memcpy(p, ev->p[i], l[i]);
		p += l[i];
	}
	q->wr_prev = (prev){ev->pid, ev->tid, ev->t_start};
	const size_t len = (size_t)(p - p0);
	q->fill += len;
	q->st.events++;
	return RP_OK;
}

int rp_evq_finish(rp_evq *q, bool discard)
{
	if (q->finished)
		return q->err;
	pthread_mutex_lock(&q->mu);
	publish_locked(q);
	q->stop = true;
	if (q->idle && q->started && !q->boosted) {
		q->boosted = true; /* its batch in progress is finished at the normal priority */
		set_idle(q->thr, false);
	}
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->mu);
	if (q->started)
		pthread_join(q->thr, NULL);
	q->started = false;
	q->finished = true;
	/* The thread is gone: what is left is this thread's, no lock needed. */
	for (chunk *c = q->head; c && !discard && q->err == 0; c = c->next) {
		size_t pos = c->rd;
		while (pos < c->wr && q->err == 0)
			q->err = encode_batch(q, c, &pos, c->wr);
		q->queued -= pos - c->rd;
		c->rd = pos;
	}
	return q->err;
}

const rp_evq_stats *rp_evq_get_stats(const rp_evq *q)
{
	return &q->st;
}

void rp_evq_destroy(rp_evq *q)
{
	if (!q)
		return;
	if (!q->finished)
		rp_evq_finish(q, true);
	for (chunk *c = q->head; c;) {
		chunk *const next = c->next;
		free(c);
		c = next;
	}
	free(q->spare);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->room);
	free(q);
}
