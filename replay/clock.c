/* The engine's clock: CLOCK_MONOTONIC, absolute deadlines, sleep until just before then spin. */
#include <time.h>

#include "replay/engine.h"

/* Sleeps are cut into slices of at most this so a stop request is seen promptly. */
#define SLICE_NS 50000000ull
/* The adaptive spin margin never exceeds this: beyond it, sleeping that badly is not worth a core. */
#define SPIN_MAX_NS 2000000ull

uint64_t rp__clock_mono(void *ctx)
{
	(void)ctx;
	return rp__mono_ns();
}

void rp__clock_mono_sleep(void *ctx, uint64_t deadline_ns)
{
	(void)ctx;
	const struct timespec ts = { .tv_sec = (time_t)(deadline_ns / 1000000000ull),
				     .tv_nsec = (long)(deadline_ns % 1000000000ull) };
	/* EINTR (a signal) just returns early: the caller looks at the stop flag and sleeps again. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

uint64_t rp__wait_until(const rp_replay *r, uint64_t *late_est, uint64_t deadline)
{
	const rp_replay_clock *const clk = &r->clock;
	for (;;) {
		const uint64_t now = rp__now(r);
		if (now >= deadline || atomic_load_explicit(&r->stop, memory_order_relaxed))
			return now;
		const uint64_t left = deadline - now;
		/*
		 * Spin for the margin, at least spin_ns; with the real clock also a
		 * quarter more than the wake-ups have lately been late, so a timer
		 * that fires 90 us late on a busy VM does not make every op late.
		 */
		uint64_t margin = r->spin_ns;
		if (r->mono && late_est) {
			const uint64_t adaptive = *late_est + *late_est / 4;
			if (adaptive > margin)
				margin = adaptive < SPIN_MAX_NS ? adaptive : SPIN_MAX_NS;
		}
		if (left > margin) {
			uint64_t until = deadline - margin;
			if (until - now > SLICE_NS)
				until = now + SLICE_NS;
			clk->sleep_until(clk->ctx, until);
			if (r->mono && late_est) {
				/* A slowly decaying maximum of how late the sleep returned. */
				const uint64_t woke = rp__now(r), over = woke > until ? woke - until : 0;
				*late_est -= *late_est / 64;
				if (over > *late_est)
					*late_est = over;
			}
		} else {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
}
