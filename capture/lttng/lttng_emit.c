/* The interposer's emitter as LTTng-UST tracepoints of the `reprise` provider (capture/preload/emit.h, lttng-ust(3)). */
#include <dlfcn.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "capture/lttng/lttng_tp.h"
#include "capture/preload/emit.h"

/*
 * The process's pid and each thread's tid, asked once (getpid/gettid are
 * syscalls, and begin/end make none).  Mutable globals because a preload
 * library has no context to pass: the interposed libc calls come with the
 * program's arguments only.  Thread-local (tid) or reset in the child after
 * fork (pid, and the forking thread's tid, which the child's only thread
 * inherits under a new number).
 */
static uint32_t proc_pid;
static __thread uint32_t thread_tid;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO: no syscall */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t self_tid(void)
{
	if (thread_tid == 0)
		thread_tid = (uint32_t)gettid();
	return thread_tid;
}

/*
 * Tracing works once liblttng-ust's tracepoint library is in the process: the
 * provider (lttng_tp.c) registers its probes from a constructor that aborts
 * if it cannot, and the tracepoints reach the session daemon through it.
 */
int rp__emit_init(void)
{
	void *const h = dlopen(LTTNG_UST_TRACEPOINT_LIB_SONAME, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return -1;
	dlclose(h); /* NOLOAD took a reference: give it back, the library stays */
	proc_pid = (uint32_t)getpid();
	return 0;
}

uint64_t rp__emit_begin(void)
{
	/* No busy mark: LTTng's ring buffers are per CPU and the session daemon drains them, nothing waits for a thread. */
	return now_ns();
}

void rp__emit_end(rp_sysev *ev)
{
	if (proc_pid == 0)
		proc_pid = (uint32_t)getpid();
	ev->pid = proc_pid;
	ev->tid = self_tid();
	const rp_sysev *const cev = ev;
	switch (ev->nr) {
#define RP__LTTNG_FIRE(e, name)                         \
	case RP_SYSEV_##e:                              \
		lttng_ust_tracepoint(reprise, name, cev); \
		break;
		RP_LTTNG_EVENTS(RP__LTTNG_FIRE)
#undef RP__LTTNG_FIRE
	default:
		break; /* a kind this build does not know: the interposer's bug, nothing to record it as */
	}
}

void rp__emit_cancel(void)
{
	/* begin marked nothing: nothing to clear */
}

void rp__emit_note(rp_sysev *ev)
{
	ev->t_start = ev->t_end = now_ns();
	rp__emit_end(ev);
}

void rp__emit_atfork_child(void)
{
	/* liblttng-ust-fork.so (preloaded beside this library) gives the child its own LTTng state; ours is the ids. */
	proc_pid = (uint32_t)getpid();
	thread_tid = 0;
}

void rp__emit_thread_done(void)
{
	/* An event is in LTTng's buffers once its tracepoint returns: no buffer of ours to flush. */
}
