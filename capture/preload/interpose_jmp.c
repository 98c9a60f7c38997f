/* Interposed longjmp family: a jump out of a hook (a signal handler's siglongjmp around a blocking call) ends the thread's call (docs/syscall-capture.md). */
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>

#include "capture/preload/interpose.h"

/* glibc's fortified longjmp (_FORTIFY_SOURCE builds call it for longjmp and siglongjmp); no header declares it. */
void __longjmp_chk(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));

#define JMP_FUNCS(X) X(longjmp) X(_longjmp) X(siglongjmp) X(__longjmp_chk)

static struct {
	JMP_FUNCS(RP__REAL_FIELD)
} real;
JMP_FUNCS(RP__REAL_GET)

void rp__jmp_resolve(void)
{
	JMP_FUNCS(RP__REAL_SET)
}

/*
 * Whether a jump to env leaves the hook the thread is in.  A jmp_buf of a
 * frame deeper than the hook's (a handler that jumps within itself) lies
 * between this frame and the one rp__enter recorded, on the same stack;
 * on a signal stack, within that stack.  Anything else (a caller's frame, a
 * global, the heap) is outside the hook: the jump leaves it.
 */
static bool leaves_hook(const void *env)
{
	const uintptr_t e = (uintptr_t)env, here = (uintptr_t)__builtin_frame_address(0);
	stack_t ss;
	if (rp__sys(SYS_sigaltstack, 0, (long)&ss, 0, 0) == 0 && (ss.ss_flags & SS_ONSTACK))
		return !(e >= (uintptr_t)ss.ss_sp && e < (uintptr_t)ss.ss_sp + ss.ss_size);
	return !(e > here && e < rp__hook_frame);
}

/*
 * The call the jump leaves never returns to its hook: without this, the
 * guard stays set (every later call of the thread goes unrecorded) and the
 * ring stays busy at the call's t_start (the writer's merge holds every
 * other thread's events back behind it).  The call is counted lost (its
 * result is unknown), a run pending is ended, the ring is idle again.
 */
static void jump_out(const void *env)
{
	if (!rp__guard || !rp__tracing || !leaves_hook(env))
		return;
	const int e = errno;
	rp__hook_frame = 0;
	if (rp__pending)
		rp__flush_pending();
	rp_sysev ev = {.nr = RP_SYSEV_LOST};
	ev.a[0] = 1;
	rp__emit_note(&ev);
	rp__guard = 0;
	errno = e;
}

void longjmp(jmp_buf env, int val)
{
	jump_out(env);
	REAL(longjmp)(env, val);
	__builtin_unreachable();
}

void _longjmp(jmp_buf env, int val)
{
	jump_out(env);
	REAL(_longjmp)(env, val);
	__builtin_unreachable();
}

void siglongjmp(sigjmp_buf env, int val)
{
	jump_out(env);
	REAL(siglongjmp)(env, val);
	__builtin_unreachable();
}

void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
	jump_out(env);
	REAL(__longjmp_chk)(env, val);
	__builtin_unreachable();
}
