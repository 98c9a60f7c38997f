/* The issue-lag floor of this machine: busy-wait to each deadline of a 10,000/s schedule and do nothing else. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * No sleep at all, so no timer can be late: what remains is the CPU being
 * taken away (other tasks, the hypervisor).  Deadlines are absolute, as in
 * reprise's trace timing, so a stall makes the ops behind it late too.
 */
int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SECONDS\n", argv[0]);
		return 2;
	}
	const size_t n = (size_t)(atof(argv[1]) * 10000);
	uint64_t *const lag = malloc((n ? n : 1) * sizeof(*lag));
	if (!lag || n == 0)
		return 1;
	const uint64_t t0 = now_ns() + 1000000;
	for (size_t i = 0; i < n; i++) {
		const uint64_t deadline = t0 + (uint64_t)i * 100000;
		uint64_t t;
		while ((t = now_ns()) < deadline)
			;
		lag[i] = t - deadline;
	}
	qsort(lag, n, sizeof(*lag), cmp_u64);
	printf("p50 %.1f us  p99 %.1f us  max %.1f us\n", (double)lag[n / 2] / 1e3, (double)lag[n * 99 / 100] / 1e3,
	       (double)lag[n - 1] / 1e3);
	free(lag);
	return 0;
}
