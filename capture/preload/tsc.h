/* The CPU's time-stamp counter, the capture's cheaper clock where the kernel trusts it (docs/syscall-capture.md §clocks). */
#ifndef REPRISE_CAPTURE_PRELOAD_TSC_H
#define REPRISE_CAPTURE_PRELOAD_TSC_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#define RP_HAVE_TSC 1
/*
 * lfence first: the counter is read after every earlier instruction is done
 * (rdtsc alone may run ahead of them): the writer's poll reads its `now` so
 * (spool.c), and its calibration pairs.
 */
static inline uint64_t rp__tsc(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}
/* Without the fence, the traced threads' reads (t_start, t_end): the fence's wait costs as much as the read, and the
 * writer's merge allows for a read run early (ORDER_SLACK_NS, spool.c). */
static inline uint64_t rp__tsc_unordered(void)
{
	return __builtin_ia32_rdtsc();
}
#else
#define RP_HAVE_TSC 0
static inline uint64_t rp__tsc(void)
{
	return 0;
}
static inline uint64_t rp__tsc_unordered(void)
{
	return 0;
}
#endif

#endif
