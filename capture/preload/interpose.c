/* The LD_PRELOAD interposer's process image: the constructor that resolves every hook file's real symbols and starts tracing, the destructor, exit and _exit (docs/syscall-capture.md). */
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture/preload/interpose.h"
#include "capture/preload/spool.h"

/* exit()'s status for the EXIT note the destructor writes (-1: main returned, status unknown). */
static _Atomic int exit_status = -1;

/* ---- the process image ----------------------------------------------------- */

__attribute__((constructor)) static void start(void)
{
	rp__guard = 1;
	rp__io_resolve();
	rp__path_resolve();
	rp__stat_resolve();
	rp__dir_resolve();
	rp__stdio_resolve();
	rp__proc_resolve();
	rp__jmp_resolve();
	if (rp__emit_init() != 0) {
		rp__unguard();
		return; /* no spool: the program runs untouched */
	}
	const char *const ns = getenv(RP_ENV_NO_STDIO);
	rp__stdio_on = !(ns && ns[0] == '1');
	if (!rp__thread_key_init()) {
		rp__unguard();
		return;
	}
	rp__proc_start(); /* START, the FD snapshot, the fork handlers */
	rp__tracing = true;
	rp__unguard();
}

__attribute__((destructor)) static void finish(void)
{
	if (!rp__tracing)
		return;
	rp__guard = 1;
	if (rp__pending)
		rp__flush_pending();
	rp_sysev ev = {.nr = RP_SYSEV_EXIT};
	ev.a[0] = atomic_load(&exit_status);
	rp__emit_note(&ev);
	rp__emit_thread_done();
	rp__tracing = false;
}

/* exit() only notes its status: atexit handlers run after it and may still do file calls. */
void exit(int status)
{
	static __typeof__(exit) *real_exit;
	if (!real_exit)
		real_exit = (__typeof__(exit) *)rp__resolve("exit");
	atomic_store(&exit_status, status);
	real_exit(status);
	__builtin_unreachable();
}

/* _exit() runs no destructor: its note is the last event. */
void _exit(int status)
{
	static __typeof__(_exit) *real__exit;
	if (!real__exit)
		real__exit = (__typeof__(_exit) *)rp__resolve("_exit");
	if (rp__tracing && !rp__guard) {
		rp__guard = 1;
		if (rp__pending)
			rp__flush_pending();
		rp_sysev ev = {.nr = RP_SYSEV_EXIT};
		ev.a[0] = status;
		rp__emit_note(&ev);
		rp__emit_thread_done();
	}
	real__exit(status);
	__builtin_unreachable();
}
