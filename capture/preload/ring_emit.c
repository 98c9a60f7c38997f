/* The ring emitter: each traced thread's events into its shared-memory ring in the spool directory (capture/preload/ring.h, docs/syscall-capture.md §rings). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/preload/emit.h"
#include "capture/preload/ring.h"
#include "capture/preload/spool.h"
#include "capture/preload/tsc.h"

/* A spool path longer than this leaves no room for a ring's name under PATH_MAX. */
#define DIR_MAX 3968

/*
 * The process image's emitter state: set by rp__emit_init (the constructor)
 * and in a fork's child.  A preload library has no context to hold it, so it
 * is process-wide; every field but `again` is written before any thread runs.
 */
static struct {
	char dir[DIR_MAX + 1];
	uint64_t size; /* each ring's data size, a power of two */
	uint32_t pid, ppid;
	int32_t writer; /* the writer's pid from the control page (0: unknown) */
	rp_spool_ctl *ctl; /* the spool's control page (NULL: not to be had; the writer reads the directory anyway) */
	bool tsc; /* times are TSC ticks (the control page's clock) */
	uint64_t serial; /* the image's start time: a pid reused or re-exec'd makes new names */
	_Atomic uint32_t again; /* rings made after a thread's was done (exec failed): unique names */
} proc;

enum { NONE, LIVE, FAILED, DONE };

/* The thread's ring.  Initial-exec TLS: no allocation, no lock on first use. */
static __thread struct {
	rp_ring_hdr *hdr;
	uint8_t *data;
	uint64_t head; /* our copy of hdr->head */
	int state;
} ring __attribute__((tls_model("initial-exec")));

static long sys(long nr, long a, long b, long c, long d, long e, long f)
{
	return syscall(nr, a, b, c, d, e, f);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The spool's clock: TSC ticks, cheaper than the vDSO's clock_gettime, or ns.
 * Unfenced, for t_start as for t_end: a duration's ends may swap by a cycle
 * (the model clamps), and the merge allows for a t_start read early
 * (rp__emit_begin).
 */
uint64_t rp__emit_now(void)
{
	return proc.tsc ? rp__tsc_unordered() : mono_ns();
}

/* Map the spool's control page, once per process image (raw calls: the constructor records nothing). */
static void map_ctl(void)
{
	char path[DIR_MAX + 32];
	snprintf(path, sizeof path, "%s/%s", proc.dir, RP_SPOOL_CTL_FILE);
	const long fd = sys(SYS_openat, AT_FDCWD, (long)path, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0, 0, 0);
	if (fd < 0)
		return;
	struct stat st;
	void *map = MAP_FAILED;
	/* A shorter file would fault on access: the size is checked first. */
	if (sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && S_ISREG(st.st_mode) && st.st_size >= RP_SPOOL_CTL_SIZE)
		map = (void *)sys(SYS_mmap, 0, RP_SPOOL_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (map == MAP_FAILED || (uintptr_t)map > (uintptr_t)-4096)
		return;
	rp_spool_ctl *const c = map;
	if (c->magic != RP_SPOOL_CTL_MAGIC) {
		sys(SYS_munmap, (long)map, RP_SPOOL_CTL_SIZE, 0, 0, 0, 0);
		return;
	}
	proc.ctl = c;
	proc.writer = c->writer_pid > 0 ? c->writer_pid : 0;
	proc.tsc = RP_HAVE_TSC && c->clock == RP_SPOOL_CLOCK_TSC;
}

int rp__emit_init(void)
{
	const char *const dir = getenv(RP_ENV_SPOOL);
	if (!dir || !dir[0] || strlen(dir) > DIR_MAX)
		return -1;
	strcpy(proc.dir, dir);
	uint64_t size = RP_RING_DEFAULT_SIZE;
	const char *const kb = getenv(RP_ENV_RING_KB);
	if (kb && kb[0]) {
		char *end;
		const unsigned long long v = strtoull(kb, &end, 10);
		if (!*end && v > 0 && v <= RP_RING_MAX_SIZE / 1024)
			size = (uint64_t)v * 1024;
	}
	if (size < RP_RING_MIN_SIZE)
		size = RP_RING_MIN_SIZE;
	while (size & (size - 1))
		size &= size - 1; /* down to a power of two */
	proc.size = size;
	proc.pid = (uint32_t)sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
	proc.ppid = (uint32_t)sys(SYS_getppid, 0, 0, 0, 0, 0, 0);
	proc.serial = mono_ns();
	atomic_store(&proc.again, 0);
	proc.ctl = NULL;
	proc.writer = 0;
	proc.tsc = false;
	map_ctl();
	return 0;
}

/*
 * Whether the spool's writer is gone: it holds an exclusive flock on the
 * control page for its life, which the kernel releases however it dies (kill
 * -9 too), so a shared lock taken here means nobody drains the spool.  A
 * missing page (the spool was removed) is a gone writer; any other failure
 * is not taken for one.  Raw calls: nothing is recorded.
 */
static bool writer_gone(void)
{
	char path[DIR_MAX + 32];
	snprintf(path, sizeof path, "%s/%s", proc.dir, RP_SPOOL_CTL_FILE);
	const int e = errno; /* the caller's: a hook may run this before its real call */
	const long fd = sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0, 0, 0);
	bool gone = fd < 0 && errno == ENOENT;
	if (fd >= 0) {
		gone = sys(SYS_flock, fd, LOCK_SH | LOCK_NB, 0, 0, 0, 0) == 0;
		sys(SYS_close, fd, 0, 0, 0, 0, 0); /* lets go of the shared lock, if taken */
	}
	errno = e;
	return gone;
}

/* The thread's first event (or its first after a done ring): make, size, map, fill, rename. */
static int ring_create(void)
{
	/* No new ring in a spool nobody drains: a program that outlives a killed capture feeds it nothing more. */
	if (writer_gone())
		return -1;
	const uint32_t tid = (uint32_t)sys(SYS_gettid, 0, 0, 0, 0, 0, 0);
	char name[DIR_MAX + 96], tmp[DIR_MAX + 100];
	if (ring.state == DONE)
		snprintf(name, sizeof name, "%s/%u.%u.%llu-%u", proc.dir, proc.pid, tid, (unsigned long long)proc.serial,
		         atomic_fetch_add(&proc.again, 1) + 1);
	else
		snprintf(name, sizeof name, "%s/%u.%u.%llu", proc.dir, proc.pid, tid, (unsigned long long)proc.serial);
	snprintf(tmp, sizeof tmp, "%s.new", name);
	const uint64_t total = RP_RING_HDR_SIZE + proc.size;
	const long fd = sys(SYS_openat, AT_FDCWD, (long)tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, 0, 0);
	if (fd < 0)
		return -1;
	void *map = MAP_FAILED;
	if (sys(SYS_ftruncate, fd, (long)total, 0, 0, 0, 0) == 0)
		map = (void *)sys(SYS_mmap, 0, (long)total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* The tracer keeps no descriptor: the program may close or dup2 over any fd it has. */
	sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (map == MAP_FAILED || (uintptr_t)map > (uintptr_t)-4096) {
		sys(SYS_unlinkat, AT_FDCWD, (long)tmp, 0, 0, 0, 0);
		return -1;
	}
	rp_ring_hdr *const h = map;
	h->magic = RP_RING_MAGIC;
	h->version = RP_RING_VERSION;
	h->hdr_size = RP_RING_HDR_SIZE;
	h->pid = proc.pid;
	h->tid = tid;
	h->ppid = proc.ppid;
	h->data_size = proc.size;
	h->serial = proc.serial;
	h->flags = proc.tsc ? RP_RING_F_TSC : 0;
	atomic_thread_fence(memory_order_release);
	if (sys(SYS_renameat, AT_FDCWD, (long)tmp, AT_FDCWD, (long)name, 0, 0) != 0) {
		sys(SYS_munmap, (long)map, (long)total, 0, 0, 0, 0);
		sys(SYS_unlinkat, AT_FDCWD, (long)tmp, 0, 0, 0, 0);
		return -1;
	}
	/* Counted after the rename and before this thread's first t_start is read (rp__emit_begin). */
	if (proc.ctl)
		atomic_fetch_add(&proc.ctl->rings_made, 1);
	ring.hdr = h;
	ring.data = (uint8_t *)map + RP_RING_HDR_SIZE;
	ring.head = 0;
	ring.state = LIVE;
	return 0;
}

static bool ready(void)
{
	if (__builtin_expect(ring.state == LIVE, 1))
		return true;
	if (ring.state == FAILED || !proc.size)
		return false;
	if (ring_create() != 0) {
		ring.state = FAILED; /* no spool to write to: this thread's events go nowhere */
		if (proc.ctl && !writer_gone())
			atomic_fetch_add(&proc.ctl->rings_failed, 1); /* the writer says what it missed */
		return false;
	}
	return true;
}

/*
 * busy = ENTERING, then the clock: the event's t_start.  No fence between:
 * the CPU may read the clock before the store is seen, by under a
 * microsecond, which the writer's merge allows for (ORDER_SLACK_NS,
 * spool.c); the compiler keeps the order.  A seq_cst store and a fenced read
 * cost some 20 ns a call.
 */
static inline uint64_t entering(void)
{
	atomic_store_explicit(&ring.hdr->busy, RP_RING_ENTERING, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	return rp__emit_now();
}

bool rp__emit_reachable(void)
{
	if (!proc.size)
		return true; /* not tracing: nothing to reach */
	const int e = errno;
	/* With the effective ids, as the new image will open the spool (faccessat without AT_EACCESS takes the real ones). */
	const long r = sys(SYS_faccessat2, AT_FDCWD, (long)proc.dir, W_OK | X_OK, AT_EACCESS, 0, 0);
	/* Only a denial is one: a kernel before 5.8 (ENOSYS) or a seccomp filter that refuses the call (EPERM) makes no claim. */
	const bool ok = r == 0 || errno != EACCES;
	errno = e;
	return ok;
}

uint64_t rp__emit_begin(void)
{
	if (!ready())
		return rp__emit_now();
	const uint64_t t = entering();
	atomic_store_explicit(&ring.hdr->busy, t, memory_order_release);
	return t;
}

void rp__emit_cancel(void)
{
	if (ring.state == LIVE)
		atomic_store_explicit(&ring.hdr->busy, RP_RING_IDLE, memory_order_release);
}

/* The writer's pid is no process (a spool whose writer took no lock: a test's, an older reprise's). */
static bool writer_pid_gone(void)
{
	return proc.writer > 0 && sys(SYS_kill, proc.writer, 0, 0, 0, 0, 0) == -1 && errno == ESRCH;
}

/* Room for need bytes: wait for the writer in 100 us steps, or false when it is gone (the event is lost). */
static bool room(uint64_t need)
{
	rp_ring_hdr *const h = ring.hdr;
	bool counted = false;
	unsigned steps = 0;
	while (ring.head + need - atomic_load_explicit(&h->tail, memory_order_acquire) > proc.size) {
		if (atomic_load_explicit(&h->writer_gone, memory_order_acquire))
			return false;
		if (!counted) {
			atomic_fetch_add_explicit(&h->waits, 1, memory_order_relaxed);
			counted = true;
		}
		const struct timespec step = {0, 100000};
		sys(SYS_nanosleep, (long)&step, 0, 0, 0, 0, 0);
		/* Every 1000 steps (0.1 s) of waiting: a writer killed before it could say it is gone says so
		 * by its absence; the flag is set for it, so the thread's later events drop at once. */
		if (++steps % 1000 == 0 && (writer_gone() || writer_pid_gone())) {
			atomic_store_explicit(&h->writer_gone, 1, memory_order_release);
			return false;
		}
	}
	return true;
}

static void put(const rp_sysev *ev)
{
	const uint32_t l0 = ev->p[0] ? ev->plen[0] : 0, l1 = ev->p[1] ? ev->plen[1] : 0;
	const uint32_t reclen = rp_ring_reclen(l0, l1);
	const uint64_t pos = ring.head & (proc.size - 1), tail_room = proc.size - pos;
	const uint64_t pad = tail_room < reclen ? tail_room : 0;
	rp_ring_hdr *const h = ring.hdr;
	if (!room(pad + reclen)) {
		atomic_fetch_add_explicit(&h->lost, 1, memory_order_relaxed);
		return;
	}
	if (pad) {
		/* A PAD record is its first 8 bytes: nr, flags, reclen (the rest may not fit). */
		uint8_t *const p = ring.data + pos;
		const uint16_t nr = RP_RING_NR_PAD, fl = 0;
		const uint32_t len = (uint32_t)pad;
		memcpy(p, &nr, 2);
		memcpy(p + 2, &fl, 2);
		memcpy(p + 4, &len, 4);
		ring.head += pad;
	}
	/* Written in place: the ring's page is the record's only copy (8-aligned: every reclen is). */
	rp_ring_rec *const rec = (rp_ring_rec *)(ring.data + (ring.head & (proc.size - 1)));
	rec->nr = ev->nr;
	rec->flags = ev->flags;
	rec->reclen = reclen;
	rec->plen[0] = (uint16_t)l0;
	rec->plen[1] = (uint16_t)l1;
	rec->reserved = 0;
	rec->ret = ev->ret;
	rec->t_start = ev->t_start;
	rec->t_end = ev->t_end;
	__builtin_memcpy(rec->a, ev->a, sizeof rec->a); /* inline: the library is built -fno-builtin */
	uint8_t *const tail = (uint8_t *)(rec + 1);
	/* The padding (< 8 bytes) is in the record's last 8-aligned word: zeroed first, the paths over it. */
	if (reclen > sizeof *rec) {
		const uint64_t zero = 0;
		__builtin_memcpy((uint8_t *)rec + reclen - 8, &zero, 8);
	}
	if (l0)
		memcpy(tail, ev->p[0], l0);
	if (l1)
		memcpy(tail + l0, ev->p[1], l1);
	ring.head += reclen;
	atomic_store_explicit(&h->head, ring.head, memory_order_release);
}

void rp__emit_end(rp_sysev *ev)
{
	if (ring.state != LIVE)
		return;
	put(ev);
	atomic_store_explicit(&ring.hdr->busy, RP_RING_IDLE, memory_order_release);
}

void rp__emit_note(rp_sysev *ev)
{
	if (!ready())
		return;
	ev->t_start = ev->t_end = entering();
	put(ev);
	atomic_store_explicit(&ring.hdr->busy, RP_RING_IDLE, memory_order_release);
}

void rp__emit_atfork_child(void)
{
	if (!proc.size)
		return;
	/* The parent's ring is shared memory the parent still writes: the child only lets go of its mapping. */
	if (ring.state == LIVE)
		sys(SYS_munmap, (long)ring.hdr, (long)(RP_RING_HDR_SIZE + proc.size), 0, 0, 0, 0);
	ring.hdr = NULL;
	ring.state = NONE;
	proc.ppid = proc.pid;
	proc.pid = (uint32_t)sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
	proc.serial = mono_ns();
	atomic_store(&proc.again, 0);
}

void rp__emit_thread_done(void)
{
	if (ring.state != LIVE)
		return;
	atomic_store_explicit(&ring.hdr->busy, RP_RING_IDLE, memory_order_release);
	atomic_store_explicit(&ring.hdr->closed, 1, memory_order_release);
	sys(SYS_munmap, (long)ring.hdr, (long)(RP_RING_HDR_SIZE + proc.size), 0, 0, 0, 0);
	ring.hdr = NULL;
	ring.state = DONE;
}
