/* Where the interposer's events go: the rings (ring_emit.c) or LTTng-UST tracepoints (capture/lttng/). */
#ifndef REPRISE_CAPTURE_EMIT_H
#define REPRISE_CAPTURE_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/sysev.h"

/*
 * The interposer's own symbols are hidden (here and in interpose.h): only the
 * hooks are the library's interface.  Calls between its files are then
 * direct, not through the PLT, and no name of ours can clash with one of the
 * traced program's.
 */
#pragma GCC visibility push(hidden)

/*
 * The interposer (interpose*.c) calls these; exactly one emitter is linked
 * into each preload library.  None allocates, locks or makes a syscall on the
 * hot path (begin/end); a thread's first event may set up its buffer.
 */

/* Once per process image, from the library constructor, before any event: 0, or -1 (tracing off). */
int rp__emit_init(void);
/* A recorded call starts: marks the thread busy and returns t_start (in the emitter's clock: rp__emit_now). */
uint64_t rp__emit_begin(void);
/* The emitter's clock, for t_end and coalesced runs: CLOCK_MONOTONIC ns, or the ring's TSC ticks (tsc.h). */
uint64_t rp__emit_now(void);
/* The call ends: ev->t_start from begin, t_end, ret, args and paths filled; publishes and clears busy.
 * ev->pid/tid are the emitter's to fill. */
void rp__emit_end(rp_sysev *ev);
/* A call that began is not recorded after all (a pipe, a filtered path): clears busy. */
void rp__emit_cancel(void);
/* An event with no call around it (START, FD, FORK, EXEC, UNTRACED, LOST): t_start = t_end = now. */
void rp__emit_note(rp_sysev *ev);
/*
 * Whether a process image with the caller's effective ids could reach where
 * the events go (the rings' spool directory, private to the capture's user):
 * false after a change of user (runuser, su, setpriv), when the image an
 * exec starts will run untraced.  Not on a hot path (exec, spawn).
 */
bool rp__emit_reachable(void);
/* In the child after fork, before anything else runs there: new pid, new buffers. */
void rp__emit_atfork_child(void);
/* The thread's last event is written (thread exit, exec about to succeed): its buffer is done. */
void rp__emit_thread_done(void);

#pragma GCC visibility pop

#endif
