/* The interposer's emitter as LTTng-UST tracepoints of the `reprise` provider (capture/preload/emit.h, lttng-ust(3)). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "capture/lttng/lttng_reg.h"
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

/*
 * lttng-ust runs threads of its own in the traced process (the session
 * daemon's listeners, named "<program>-ust"), and their libc calls go through
 * the interposer like the program's: reading /proc/self/maps and every loaded
 * library's ELF headers for its base-address statedump, opening its shared
 * memory.  They are not the program's workload: their events are dropped.
 * The name is asked once per thread, at its first event (a syscall, which the
 * first event may make); lttng-ust names a listener as it starts, before its
 * first call.
 */
enum thread_kind { KIND_UNKNOWN = 0, KIND_PROGRAM, KIND_LTTNG };
static __thread unsigned char thread_kind;

static bool lttng_thread(void)
{
	if (thread_kind == KIND_UNKNOWN) {
		char name[17] = "";
		(void)prctl(PR_GET_NAME, name, 0, 0, 0);
		const size_t n = strlen(name);
		thread_kind = n >= 4 && memcmp(name + n - 4, "-ust", 4) == 0 ? KIND_LTTNG : KIND_PROGRAM;
	}
	return thread_kind == KIND_LTTNG;
}

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

/* Before any event: the provider registered (its constructors may come after the interposer's). */
int rp__emit_init(void)
{
	if (rp__lttng_register() < 0)
		return -1;
	proc_pid = (uint32_t)getpid();
	return 0;
}

uint64_t rp__emit_now(void)
{
	return now_ns(); /* the events' fields are ns: the CTF importer takes them as they are */
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
	if (lttng_thread())
		return;
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

/* LTTng-UST's session daemon takes every user's events it is allowed to: nothing here to be out of reach. */
bool rp__emit_reachable(void)
{
	return true;
}

void rp__emit_atfork_child(void)
{
	/* liblttng-ust-fork.so (preloaded beside this library) gives the child its own LTTng state; ours is the ids. */
	proc_pid = (uint32_t)getpid();
	thread_tid = 0;
	thread_kind = KIND_UNKNOWN;
}

void rp__emit_thread_done(void)
{
	/* An event is in LTTng's buffers once its tracepoint returns: no buffer of ours to flush. */
}
