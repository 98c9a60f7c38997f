/* The interposer's core below every hook file: real-symbol resolution, the reentrancy guard, fd kinds, thread table, event helpers (docs/syscall-capture.md). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/preload/interpose.h"

__thread int rp__guard __attribute__((tls_model("initial-exec")));
__thread int rp__pending __attribute__((tls_model("initial-exec")));
__thread uintptr_t rp__hook_frame __attribute__((tls_model("initial-exec")));
/* The thread's exit destructor is registered (its first event). */
static __thread int keyed __attribute__((tls_model("initial-exec")));

/* Process-wide by necessity (see interpose.h): set once by the constructor. */
bool rp__tracing;
bool rp__stdio_on;
static pthread_key_t thread_key;
/* What one byte per fd costs: 4 KiB covers the fds nearly every program uses. */
static _Atomic uint8_t fd_kinds[RP_FD_KINDS];

long rp__sys(long nr, long a, long b, long c, long d)
{
	return syscall(nr, a, b, c, d);
}

static void die(const char *what, const char *name)
{
	/* A hook whose real function is missing cannot forward: the library and libc do not match. */
	static const char msg[] = "reprise-preload: cannot resolve ";
	rp__sys(SYS_write, 2, (long)msg, sizeof msg - 1, 0);
	rp__sys(SYS_write, 2, (long)name, (long)strlen(name), 0);
	rp__sys(SYS_write, 2, (long)what, (long)strlen(what), 0);
	abort();
}

rp__fn rp__resolve(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	/* Compat-only symbols (__xstat and friends since glibc 2.33) are not found unversioned. */
	if (!p)
		p = dlvsym(RTLD_NEXT, name, "GLIBC_2.2.5");
	if (!p)
		p = dlvsym(RTLD_NEXT, name, "GLIBC_2.0");
	if (!p)
		die("\n", name);
	rp__fn f;
	memcpy(&f, &p, sizeof f); /* dlsym's object pointer to a function pointer (POSIX guarantees it works) */
	return f;
}

/* ---- fd kinds ------------------------------------------------------------ */

bool rp__fd_wanted(int fd)
{
	if (fd < 0)
		return false;
	if (fd >= RP_FD_KINDS)
		return true;
	int k = atomic_load_explicit(&fd_kinds[fd], memory_order_relaxed);
	if (k == RP_FD_UNKNOWN) {
		struct stat st;
		/* Once per fd: the raw call, so nothing is recorded and errno stays the caller's. */
		const int e = errno;
		const long r = rp__sys(SYS_fstat, fd, (long)&st, 0, 0);
		errno = e;
		if (r != 0)
			return true; /* not open: the failing call is recorded, the model sees its error */
		k = S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISLNK(st.st_mode)
		        ? RP_FD_FILE
		        : RP_FD_OTHER;
		atomic_store_explicit(&fd_kinds[fd], (uint8_t)k, memory_order_relaxed);
	}
	return k == RP_FD_FILE;
}

void rp__fd_set(int fd, int kind)
{
	if (fd >= 0 && fd < RP_FD_KINDS)
		atomic_store_explicit(&fd_kinds[fd], (uint8_t)kind, memory_order_relaxed);
}

/*
 * An opened path is taken for a file without an fstat (a tar extraction opens
 * thousands): devices and ttys live under /dev (and /proc names pipes and
 * sockets), so those are left for their first call to look at.  A fifo
 * elsewhere is recorded; the model drops its calls.
 */
void rp__fd_opened(int fd, const char *path)
{
	const bool special = !path || strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
	rp__fd_set(fd, special ? RP_FD_UNKNOWN : RP_FD_FILE);
}

void rp__fd_copy(int from, int to)
{
	if (to < 0 || to >= RP_FD_KINDS)
		return;
	const uint8_t k = from >= 0 && from < RP_FD_KINDS
	                      ? atomic_load_explicit(&fd_kinds[from], memory_order_relaxed)
	                      : RP_FD_UNKNOWN;
	atomic_store_explicit(&fd_kinds[to], k, memory_order_relaxed);
}

void rp__fd_clear_range(unsigned first, unsigned last)
{
	for (unsigned fd = first; fd <= last && fd < RP_FD_KINDS; fd++)
		atomic_store_explicit(&fd_kinds[fd], RP_FD_UNKNOWN, memory_order_relaxed);
}

/* ---- events -------------------------------------------------------------- */

/*
 * pthread_t -> tid of the threads that made events, for pthread_join's WAIT
 * note (the joined thread's tid is what the model knows it by).  Fixed-size,
 * lock-free: a slot is claimed by compare-and-swap on its pthread_t; a full
 * table leaves a thread out (its join makes no note, replay orders nothing).
 */
#define THREADS_MAX 1024
static _Atomic uintptr_t thr_self[THREADS_MAX];
static _Atomic uint32_t thr_tid[THREADS_MAX];

static void thread_register(void)
{
	const uintptr_t self = (uintptr_t)pthread_self();
	const uint32_t tid = (uint32_t)rp__sys(SYS_gettid, 0, 0, 0, 0);
	const size_t h = (size_t)((self >> 12) * 0x9E3779B97F4A7C15ull >> 54) % THREADS_MAX;
	for (size_t i = 0; i < THREADS_MAX; i++) {
		const size_t k = (h + i) % THREADS_MAX;
		uintptr_t cur = atomic_load_explicit(&thr_self[k], memory_order_acquire);
		if (cur == self || (cur == 0 && atomic_compare_exchange_strong(&thr_self[k], &cur, self)) || cur == self) {
			atomic_store_explicit(&thr_tid[k], tid, memory_order_release);
			return;
		}
	}
}

uint32_t rp__thread_forget(uintptr_t self)
{
	const size_t h = (size_t)((self >> 12) * 0x9E3779B97F4A7C15ull >> 54) % THREADS_MAX;
	for (size_t i = 0; i < THREADS_MAX; i++) {
		const size_t k = (h + i) % THREADS_MAX;
		const uintptr_t cur = atomic_load_explicit(&thr_self[k], memory_order_acquire);
		if (cur == 0)
			return 0;
		if (cur == self) {
			const uint32_t tid = atomic_load_explicit(&thr_tid[k], memory_order_acquire);
			/* the slot stays claimed (a probe chain must not break); a new thread with this pthread_t reuses it */
			atomic_store_explicit(&thr_tid[k], 0, memory_order_release);
			return tid;
		}
	}
	return 0;
}

static void first_event(void)
{
	keyed = 1;
	thread_register();
	/* The destructor runs at this thread's exit (not the main thread's: the library destructor does). */
	pthread_setspecific(thread_key, (void *)1);
}

void (*rp__flush_stdio_fn)(void);
void (*rp__flush_dir_fn)(void);

void rp__flush_pending(void)
{
	if ((rp__pending & RP_PENDING_STDIO) && rp__flush_stdio_fn)
		rp__flush_stdio_fn();
	if ((rp__pending & RP_PENDING_DIR) && rp__flush_dir_fn)
		rp__flush_dir_fn();
}

uint64_t rp__enter(void)
{
	rp__guard = 1;
	rp__hook_frame = (uintptr_t)__builtin_frame_address(0);
	if (__builtin_expect(!keyed, 0))
		first_event();
	if (__builtin_expect(rp__pending != 0, 0))
		rp__flush_pending();
	return rp__emit_begin();
}

void rp__leave(rp_sysev *ev, uint64_t t0, int64_t ret)
{
	ev->t_start = t0;
	ev->t_end = rp__emit_now();
	ev->ret = ret;
	rp__emit_end(ev);
	rp__unguard();
}

void rp__note(rp_sysev *ev)
{
	const int was = rp__guard;
	const int e = errno;
	rp__guard = 1;
	if (!keyed)
		first_event();
	if (rp__pending)
		rp__flush_pending();
	rp__emit_note(ev);
	rp__guard = was;
	errno = e;
}

static void thread_exit(void *unused)
{
	(void)unused;
	rp__guard = 1;
	if (rp__pending)
		rp__flush_pending();
	rp__emit_thread_done();
	/* A later event of this thread (another key's destructor) makes a new ring of its own. */
	rp__unguard();
}

bool rp__thread_key_init(void)
{
	return pthread_key_create(&thread_key, thread_exit) == 0;
}
