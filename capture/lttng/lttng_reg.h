/* The provider's registration, called by the emitter before its first event (capture/lttng/lttng_tp.c). */
#ifndef REPRISE_CAPTURE_LTTNG_REG_H
#define REPRISE_CAPTURE_LTTNG_REG_H

/* Register the `reprise` tracepoints and probes now: 0, or -1 when liblttng-ust cannot be loaded. */
/* hidden, as the interposer's own symbols are (capture/preload/emit.h) */
__attribute__((visibility("hidden"))) int rp__lttng_register(void);

#endif
