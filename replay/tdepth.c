/* In flight at the target: depth over time and latency from the backend's send to its answer (replay/tdepth.h). */
#include "replay/tdepth.h"

#include <stdlib.h>
#include <string.h>

#include "replay/engine.h"
#include "replay/hist.h"

void rp__tdepth_init(rp_tdepth *d, uint64_t warm_end, bool locked)
{
	memset(d, 0, sizeof(*d));
	d->warm_end = warm_end;
	d->locked = locked;
	if (locked)
		pthread_mutex_init(&d->mu, NULL);
}

void rp__tdepth_fini(rp_tdepth *d)
{
	if (d->locked)
		pthread_mutex_destroy(&d->mu);
	free(d->lat);
	d->lat = NULL;
	d->locked = false;
}

static inline void lock(rp_tdepth *d)
{
	if (d->locked)
		pthread_mutex_lock(&d->mu);
}

static inline void unlock(rp_tdepth *d)
{
	if (d->locked)
		pthread_mutex_unlock(&d->mu);
}

/*
 * The depth integrated up to t, then moved by delta.  Events arrive in time
 * order from one thread; from a window's workers one may be a little late
 * for the lock: no time goes backwards (it counts at the last event's).
 */
static void move(rp_tdepth *d, uint64_t t, int delta)
{
	if (t < d->t_last)
		t = d->t_last;
	if (d->cur) {
		const uint64_t dt = t - d->t_last;
		d->area += dt * d->cur;
		d->busy_ns += dt;
	}
	d->t_last = t;
	if (delta > 0) {
		d->cur++;
		if (d->cur > d->max)
			d->max = d->cur;
		d->requests++;
		d->at_req_sum += d->cur;
	} else if (d->cur) {
		d->cur--;
	}
}

static void latency(rp_tdepth *d, uint64_t sent, uint64_t done)
{
	if (sent < d->warm_end)
		return;
	if (!d->lat) {
		if (!(d->lat = malloc(sizeof(*d->lat))))
			return; /* no memory: the depth is still counted */
		rp__hist_init(d->lat);
	}
	rp__hist_add(d->lat, done > sent ? done - sent : 0);
}

uint64_t rp__tdepth_begin(rp_tdepth *d)
{
	lock(d);
	const uint64_t t = rp__mono_ns();
	move(d, t, 1);
	unlock(d);
	return t;
}

void rp__tdepth_end(rp_tdepth *d, uint64_t sent)
{
	lock(d);
	const uint64_t t = rp__mono_ns();
	move(d, t, -1);
	latency(d, sent, t);
	unlock(d);
}

void rp__tdepth_sent(rp_tdepth *d, uint64_t sent)
{
	lock(d);
	move(d, sent, 1);
	unlock(d);
}

void rp__tdepth_done(rp_tdepth *d, uint64_t sent, uint64_t done)
{
	lock(d);
	move(d, done, -1);
	latency(d, sent, done);
	unlock(d);
}
