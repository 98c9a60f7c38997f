/* The CPU's time-stamp counter, the capture's cheaper clock where the kernel trusts it (docs/syscall-capture.md §clocks). */
#ifndef REPRISE_CAPTURE_PRELOAD_TSC_H
#define REPRISE_CAPTURE_PRELOAD_TSC_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#define RP_HAVE_TSC 1
/*
 * lfence first: the counter is read after every earlier instruction is done
 * (rdtsc alone may run ahead of them), so a t_start read after the ring's
 * busy store is later than the store, as the merge's watermark needs.
 */
static inline uint64_t rp__tsc(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}
/* Without the fence, for a time nothing is ordered by (a call's t_end): the fence's wait costs as much as the read. */
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
