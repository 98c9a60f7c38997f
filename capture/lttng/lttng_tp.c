/* The `reprise` tracepoint provider's probes and tracepoint definitions (lttng-ust(3): one translation unit creates them). */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "capture/lttng/lttng_tp.h"

#include "capture/lttng/lttng_reg.h"

/*
 * lttng-ust registers the tracepoints and probes of this file from
 * constructors of its own, and the interposer's constructor (which says
 * START and lists the fds at once) may run before them: they run in link
 * order within the library.  The emitter calls this first instead; each of
 * these is counted, so the constructors that come later do nothing.  (The
 * destructors then leave the probes registered at exit, which costs
 * nothing: the process is ending.)
 */
int rp__lttng_register(void)
{
	lttng_ust__tracepoints__init();
	lttng_ust__tracepoints__ptrs_init();
	lttng_ust__events_init__reprise();
	return lttng_ust_tracepoint_dlopen_ptr && lttng_ust_tracepoint_dlopen_ptr->liblttngust_handle ? 0 : -1;
}
