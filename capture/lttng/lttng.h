/* What the CLI needs to run a program under the LTTng-UST preload library (docs/syscall-capture.md, LTTng). */
#ifndef REPRISE_CAPTURE_LTTNG_H
#define REPRISE_CAPTURE_LTTNG_H

/* RP_HAVE_LTTNG: 1 when meson found lttng-ust and built the provider (-Dlttng). */
#include "capture/lttng/lttng_config.h"

/* The preload library meson builds (shared_module('reprise-preload-lttng')), installed beside the others. */
#define RP_LTTNG_PRELOAD_NAME "libreprise-preload-lttng.so"

/*
 * lttng-ust's fork wrapper (package liblttng-ust1), by soname: the dynamic
 * linker finds it in its default path, where Debian installs it
 * (/usr/lib/<triplet>/liblttng-ust-fork.so.1).  It goes after
 * RP_LTTNG_PRELOAD_NAME in LD_PRELOAD, so that the interposer's fork calls
 * through it and the child has its LTTng state before its FORK event.
 */
#define RP_LTTNG_UST_FORK "liblttng-ust-fork.so.1"

/*
 * The environment the traced program needs besides LD_PRELOAD:
 * LTTNG_UST_ALLOW_BLOCKING lets a blocking channel (--blocking-timeout) block
 * rather than drop; LTTNG_UST_REGISTER_TIMEOUT=-1 makes the program wait for
 * the session daemon to register it before main, so its first events are
 * recorded (lttng-ust(3), ENVIRONMENT).
 */
#define RP_LTTNG_ENV_BLOCKING "LTTNG_UST_ALLOW_BLOCKING=1"
/* Besides, as for the ring library, REPRISE_PRELOAD (capture/preload/spool.h, RP_ENV_PRELOAD) = the
 * library's absolute path: the interposer puts it back into LD_PRELOAD across an exec that dropped it. */
#define RP_LTTNG_ENV_REGISTER "LTTNG_UST_REGISTER_TIMEOUT=-1"

#endif
