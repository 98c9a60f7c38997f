/* The `reprise` tracepoint provider's probes and tracepoint definitions (lttng-ust(3): one translation unit creates them). */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "capture/lttng/lttng_tp.h"
