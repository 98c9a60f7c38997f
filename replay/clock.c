/* The engine's clock: CLOCK_MONOTONIC, absolute deadlines, sleep until just before then spin. */
#include <time.h>

#include "replay/engine.h"

/* Sleeps are cut into slices of at most this so a stop request is seen promptly. */
#define SLICE_NS 50000000ull

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

uint64_t rp__wait_until(const rp_replay *r, uint64_t deadline)
{
	const rp_replay_clock *const clk = &r->clock;
	for (;;) {
		const uint64_t now = rp__now(r);
		if (now >= deadline || atomic_load_explicit(&r->stop, memory_order_relaxed))
			return now;
		const uint64_t left = deadline - now;
		if (left > r->spin_ns) {
			uint64_t until = deadline - r->spin_ns;
			if (until - now > SLICE_NS)
				until = now + SLICE_NS;
			clk->sleep_until(clk->ctx, until);
		} else {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
}
