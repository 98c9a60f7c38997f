/* The writer's side of the rings: find, validate, drain and merge every traced thread's ring (capture/preload/ring.h, docs/syscall-capture.md §rings). */
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/preload/ring.h"
#include "capture/preload/spool.h"
#include "capture/preload/spool_dir.h"
#include "capture/preload/tsc.h"
#include "formats/error.h"

/*
 * Bytes of records held for ordering: beyond this the oldest go out anyway
 * (counted late).  512 MiB is some 4M events: a thread that holds the
 * watermark back that long (a stdio run left open, a call blocked for
 * minutes) is not worth more memory.
 */
#define MAX_HELD_BYTES ((uint64_t)512 << 20)
/* A ring file's name: "<pid>.<tid>.<serial>[-<n>]"; longer is not one of ours. */
#define NAME_MAX_LEN 80
/*
 * How often a ring that gave nothing is asked whether its thread is still
 * there (a kill and a read of /proc per ring): a thread killed mid-call holds
 * the merge watermark back this long at most.  Asking at every poll cost
 * more CPU than draining (measured: a third of the writer's kernel time).
 */
#define DEAD_CHECK_NS (50u * 1000 * 1000)
/* The directory is read at least this often, whatever the control page says. */
#define RESCAN_NS (1000u * 1000 * 1000)
/*
 * The TSC's rate is measured once, over at least this long from the spool's
 * making (or over the whole capture, when it is shorter): a pair of reads is
 * good to some 40 ns, so the rate to 2 ppm.  It is fixed from then on, so the
 * mapping of ticks to ns never changes under events already delivered.
 */
#define CAL_NS (20u * 1000 * 1000)
/*
 * What W is held back by for a ring seen IDLE or ENTERING (and for one not
 * found yet).  A thread reads its t_start with no fence after its ENTERING
 * store (ring_emit.c): the CPU may run the clock read before the store is
 * seen, by as long as the store waits in the CPU's store buffer or the read
 * runs ahead of it, under a microsecond (a context switch, an interrupt's
 * return, a locked instruction all drain the buffer); so a ring seen IDLE at
 * `now` may yet publish a t_start a little before it, never by this much.
 * The fence and a seq_cst store before the read cost some 20 ns a call; the
 * slack costs the merge 100 us more of events held.
 */
#define ORDER_SLACK_NS (100u * 1000)

typedef struct ring {
	char name[NAME_MAX_LEN + 1];
	rp_ring_hdr *hdr;
	uint8_t *data;
	uint64_t size, tail, maplen;
	uint32_t pid, tid;
	uint64_t serial;
	uint64_t w_enter; /* the now of the last scan that saw it not ENTERING: what an ENTERING ring holds W at */
	/* Times (w_enter, head_t, the merge's) are the spool's clock: ns, or TSC ticks; timers (next_check) ns. */
	uint64_t seq;     /* discovery order: ties of t_start keep a stable order */
	uint64_t next_check; /* when to ask again whether the thread is gone (DEAD_CHECK_NS) */
	uint64_t waits, lost;
	/*
	 * Records drained from the shared ring and checked, not yet delivered:
	 * ring records (rp_ring_rec, paths, padding) in the writer's own memory,
	 * [rd, wr) of held.  A thread's records are in t_start order, so the
	 * merge takes from the front of each ring's queue; a ring whose thread is
	 * gone (hdr NULL: unmapped, removed) stays until its queue is empty.
	 */
	uint8_t *held;
	size_t held_cap, rd, wr;
	uint64_t head_t; /* the t_start of the record at rd (when rd < wr) */
} ring;

struct rp_spool {
	char dir[PATH_MAX];
	uint32_t ring_kb;
	ring *rings;
	size_t nrings, cap;
	/* The merge: indices of the rings with records held, a min-heap by (head_t, seq), made at each poll. */
	uint32_t *heap;
	size_t nheap, heap_cap;
	uint64_t held, held_bytes; /* records and bytes held in all queues */
	uint64_t prev_now, prev_mono, ring_seq, last_t;
	/* The TSC clock: its ticks map to ns as cal_ns + (t - cal_tick) * mult / 2^32 once calibrated. */
	bool tsc, calibrated;
	uint64_t cal_tick, cal_ns, mult;
	uint64_t slack; /* ORDER_SLACK_NS in the spool's clock (ticks once calibrated) */
	uint64_t done_waits, done_lost;
	/*
	 * The control page (ring.h): the directory is read again only when its
	 * count of rings made moved since the last read, and every RESCAN_NS
	 * whatever it says (a producer may lie or die between its rename and
	 * its count).  inotify would do the same but closing an instance costs
	 * ~14 ms here (the kernel waits for a grace period), on every capture.
	 */
	rp_spool_ctl *ctl;
	/* The control page's file, open and flock'ed (LOCK_EX) for the spool's life: the kernel lets go of the
	 * lock when the writer dies however it dies, which is how producers and the next capture know (ring.h). */
	int lock_fd;
	uint64_t made_seen, next_scan;
	rp_spool_stats st;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__extension__ typedef unsigned __int128 u128;

/* The spool's clock now: what the traced threads read. */
static uint64_t clock_now(const rp_spool *s)
{
	return s->tsc ? rp__tsc() : now_ns();
}

/*
 * The poll's now, read before anything it looks at in shared memory: the
 * merge's proof needs every later load (the rings made, each ring's busy) to
 * happen after the clock was read.  C orders no clock read; on x86 an lfence
 * keeps later loads from running before the rdtsc (under clock_gettime too).
 */
static uint64_t now_before_loads(const rp_spool *s)
{
	const uint64_t t = clock_now(s);
#if RP_HAVE_TSC
	__builtin_ia32_lfence();
#endif
#if !defined(__SANITIZE_THREAD__) /* GCC's ThreadSanitizer has no fences (-Wtsan); on x86 the lfence is the order */
	atomic_thread_fence(memory_order_seq_cst);
#endif
	return t;
}

/* A TSC reading and the monotonic ns at that moment (between two readings: good to their gap). */
static void clock_pair(uint64_t *tick, uint64_t *ns)
{
	const uint64_t a = rp__tsc();
	*ns = now_ns();
	const uint64_t b = rp__tsc();
	*tick = a + (b - a) / 2;
}

/* Fix the ticks' rate once CAL_NS have passed since the first pair (or at the last poll). */
static void calibrate(rp_spool *s, bool final)
{
	uint64_t tick, ns;
	clock_pair(&tick, &ns);
	if (ns - s->cal_ns < CAL_NS && !final)
		return;
	const uint64_t dt = tick > s->cal_tick ? tick - s->cal_tick : 0, dn = ns - s->cal_ns;
	/* A counter that did not move (no such CPU keeps the kernel's clocksource on it): 1 ns a tick. */
	s->mult = dt && dn ? (uint64_t)(((u128)dn << 32) / dt) : (uint64_t)1 << 32;
	s->slack = (uint64_t)(((u128)ORDER_SLACK_NS << 32) / s->mult);
	s->calibrated = true;
}

/* An event's time in ns (a hostile one far off the run is clamped, never wraps). */
static uint64_t to_ns(const rp_spool *s, uint64_t t)
{
	if (!s->tsc)
		return t;
	if (t >= s->cal_tick) {
		const u128 d = ((u128)(t - s->cal_tick) * s->mult) >> 32;
		return d > UINT64_MAX - s->cal_ns ? UINT64_MAX : s->cal_ns + (uint64_t)d;
	}
	const u128 d = ((u128)(s->cal_tick - t) * s->mult) >> 32;
	return d >= s->cal_ns ? 0 : s->cal_ns - (uint64_t)d;
}

/* Whether the kernel keeps time by the TSC (it then found it the same on every CPU and steady). */
static bool kernel_clock_is_tsc(void)
{
	FILE *const f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (!f)
		return false;
	char buf[32] = "";
	const bool ok = fgets(buf, sizeof buf, f) && strcmp(buf, "tsc\n") == 0;
	fclose(f);
	return ok;
}

/*
 * Make, lock, size and map the control page, under a temporary name renamed
 * into place last: a control page seen is always a locked one (the sweep of
 * another capture takes an unlocked one for an orphan).  -1 with errno.
 */
static int ctl_create(rp_spool *s)
{
	char path[PATH_MAX + 16], tmp[PATH_MAX + 20];
	snprintf(path, sizeof path, "%s/%s", s->dir, RP_SPOOL_CTL_FILE);
	snprintf(tmp, sizeof tmp, "%s.new", path);
	const int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	void *map = MAP_FAILED;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && ftruncate(fd, RP_SPOOL_CTL_SIZE) == 0)
		map = mmap(NULL, RP_SPOOL_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		const int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	s->ctl = map;
	/* No program runs yet: the spawn and exec of the first one order these stores before its reads. */
	s->ctl->writer_pid = (int32_t)getpid();
	s->ctl->clock = s->tsc ? RP_SPOOL_CLOCK_TSC : RP_SPOOL_CLOCK_MONOTONIC;
	atomic_store(&s->ctl->rings_made, 0);
	atomic_store(&s->ctl->rings_failed, 0);
	s->ctl->magic = RP_SPOOL_CTL_MAGIC;
	if (rename(tmp, path) != 0) {
		const int e = errno;
		munmap(map, RP_SPOOL_CTL_SIZE);
		s->ctl = NULL;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	s->lock_fd = fd;
	return 0;
}

int rp_spool_create(rp_spool **out, const char *tmpdir, uint32_t ring_kb, rp_spool_clock clock, char *errbuf)
{
	*out = NULL;
	if (clock == RP_SPOOL_CLOCK_TSC && !RP_HAVE_TSC)
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "spool: this CPU has no TSC clock");
	if (clock == RP_SPOOL_CLOCK_AUTO)
		clock = RP_HAVE_TSC && kernel_clock_is_tsc() ? RP_SPOOL_CLOCK_TSC : RP_SPOOL_CLOCK_MONOTONIC;
	if (!tmpdir)
		tmpdir = rp__spool_default_dir();
	rp_spool *const s = calloc(1, sizeof *s);
	if (!s)
		return rp_fail(errbuf, RP_E_NOMEM, "spool: out of memory");
	s->lock_fd = -1;
	if ((size_t)snprintf(s->dir, sizeof s->dir, "%s/" RP__SPOOL_PREFIX "XXXXXX", tmpdir) >= sizeof s->dir) {
		free(s);
		return rp_fail(errbuf, RP_E_RANGE, "spool: %s: path too long", tmpdir);
	}
	if (!mkdtemp(s->dir)) { /* 0700: the rings are private to the user */
		const int e = errno;
		free(s);
		return rp_fail(errbuf, RP_E_SYSTEM, "spool: cannot make a directory under %s: %s", tmpdir, strerror(e));
	}
	s->tsc = clock == RP_SPOOL_CLOCK_TSC;
	if (ctl_create(s) != 0) {
		const int rc = rp_fail(errbuf, RP_E_SYSTEM, "spool: cannot make its control page %s/%s: %s", s->dir,
				       RP_SPOOL_CTL_FILE, strerror(errno));
		rmdir(s->dir);
		free(s);
		return rc;
	}
	s->ring_kb = ring_kb;
	s->slack = ORDER_SLACK_NS; /* in ticks once the rate is known; nothing goes out before that */
	if (s->tsc)
		clock_pair(&s->cal_tick, &s->cal_ns); /* before any program runs: no event is older */
	s->prev_mono = now_ns();
	s->prev_now = s->tsc ? s->cal_tick : s->prev_mono;
	*out = s;
	return RP_OK;
}

rp_spool_clock rp_spool_get_clock(const rp_spool *s)
{
	return s->tsc ? RP_SPOOL_CLOCK_TSC : RP_SPOOL_CLOCK_MONOTONIC;
}

const char *rp_spool_dir(const rp_spool *s)
{
	return s->dir;
}

const rp_spool_stats *rp_spool_get_stats(const rp_spool *s)
{
	return &s->st;
}

/* ---- the merge: a min-heap of rings by the t_start of their oldest held record ------------ */

static bool before(const rp_spool *s, uint32_t a, uint32_t b)
{
	const ring *const x = &s->rings[a], *const y = &s->rings[b];
	if (x->head_t != y->head_t)
		return x->head_t < y->head_t;
	return x->seq < y->seq; /* the same t_start: the ring found first, as always */
}

static void heap_down(rp_spool *s, size_t i)
{
	const uint32_t top = s->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && before(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!before(s, s->heap[c], top))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = top;
}

/* The heap of every ring holding records, made anew (rings come and go between polls). */
static int heap_make(rp_spool *s)
{
	if (s->heap_cap < s->nrings) {
		uint32_t *const h = realloc(s->heap, s->nrings * sizeof *h);
		if (!h)
			return RP_E_NOMEM;
		s->heap = h;
		s->heap_cap = s->nrings;
	}
	s->nheap = 0;
	for (size_t i = 0; i < s->nrings; i++)
		if (s->rings[i].rd < s->rings[i].wr)
			s->heap[s->nheap++] = (uint32_t)i;
	for (size_t i = s->nheap / 2; i-- > 0;)
		heap_down(s, i);
	return RP_OK;
}

/* ---- rings ---------------------------------------------------------------------------------- */

static bool ring_name_ok(const char *n)
{
	/* digits '.' digits '.' digits, an optional "-digits": anything else (".new", strays) is not a finished ring */
	int dots = 0;
	bool dash = false, digit = false;
	for (const char *c = n; *c; c++) {
		if (*c >= '0' && *c <= '9')
			digit = true;
		else if (*c == '.' && digit && !dash && dots < 2)
			dots++, digit = false;
		else if (*c == '-' && digit && dots == 2 && !dash)
			dash = true, digit = false;
		else
			return false;
	}
	return dots == 2 && digit && strlen(n) <= NAME_MAX_LEN;
}

static void ring_unlink(rp_spool *s, const char *name)
{
	char path[PATH_MAX + NAME_MAX_LEN + 2];
	snprintf(path, sizeof path, "%s/%s", s->dir, name);
	unlink(path);
}

/* Let go of r's shared file: tell a producer still there not to wait, unmap, remove it.  What r holds stays until delivered. */
static void ring_release(rp_spool *s, ring *r)
{
	if (!r->hdr)
		return;
	atomic_store_explicit(&r->hdr->writer_gone, 1, memory_order_release);
	s->done_waits += atomic_load_explicit(&r->hdr->waits, memory_order_relaxed);
	s->done_lost += atomic_load_explicit(&r->hdr->lost, memory_order_relaxed);
	munmap(r->hdr, r->maplen);
	ring_unlink(s, r->name);
	r->hdr = NULL;
	r->data = NULL;
	s->st.rings_done++;
}

/* Forget the rings let go of whose records are all delivered. */
static void rings_sweep(rp_spool *s)
{
	for (size_t i = 0; i < s->nrings;) {
		ring *const r = &s->rings[i];
		if (r->hdr || r->rd < r->wr) {
			i++;
			continue;
		}
		free(r->held);
		s->rings[i] = s->rings[--s->nrings];
	}
}

/*
 * Open and map a finished ring file.  Every header field is the producer's
 * and untrusted: a ring that is not exactly what ring.h says is removed.
 * Returns 1 added, 0 rejected (counted bad), or a negative error.
 */
static int ring_open(rp_spool *s, const char *name)
{
	char path[PATH_MAX + NAME_MAX_LEN + 2];
	snprintf(path, sizeof path, "%s/%s", s->dir, name);
	const int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0; /* gone already (a race with our own unlink of a dropped name) */
	struct stat st;
	rp_ring_hdr h;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= RP_RING_HDR_SIZE &&
	          pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h;
	ok = ok && h.magic == RP_RING_MAGIC && h.version == RP_RING_VERSION && h.hdr_size == RP_RING_HDR_SIZE &&
	     h.data_size >= RP_RING_MIN_SIZE && h.data_size <= RP_RING_MAX_SIZE &&
	     (h.data_size & (h.data_size - 1)) == 0 && (uint64_t)st.st_size >= RP_RING_HDR_SIZE + h.data_size &&
	     h.pid != 0 && h.tid != 0 && h.tail <= h.head && h.head - h.tail <= h.data_size && h.tail % 8 == 0 &&
	     ((h.flags & RP_RING_F_TSC) != 0) == s->tsc; /* times in another clock cannot be merged */
	void *map = MAP_FAILED;
	if (ok)
		map = mmap(NULL, RP_RING_HDR_SIZE + h.data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		s->st.bad++;
		unlink(path);
		return 0;
	}
	if (s->nrings == s->cap) {
		const size_t cap = s->cap ? s->cap * 2 : 16;
		ring *const rs = realloc(s->rings, cap * sizeof *rs);
		if (!rs) {
			munmap(map, RP_RING_HDR_SIZE + h.data_size);
			return RP_E_NOMEM;
		}
		s->rings = rs;
		s->cap = cap;
	}
	ring *const r = &s->rings[s->nrings++];
	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->hdr = map;
	r->data = (uint8_t *)map + RP_RING_HDR_SIZE;
	r->size = h.data_size;
	r->maplen = RP_RING_HDR_SIZE + h.data_size;
	r->tail = h.tail; /* checked above against the head it was read with */
	r->pid = h.pid;
	r->tid = h.tid;
	r->serial = h.serial;
	r->w_enter = s->prev_now;
	r->next_check = s->prev_mono + DEAD_CHECK_NS;
	r->seq = s->ring_seq++;
	s->st.rings++;
	return 1;
}

/*
 * Whether the directory may hold a ring not opened yet: the control page's
 * count moved, or a periodic or final read is due.  The count is read after
 * now (now_before_loads): a ring whose count this poll did not see was
 * renamed, and its first t_start read, after now.
 */
static bool dir_changed(rp_spool *s, uint64_t now, bool final)
{
	const uint64_t made = atomic_load(&s->ctl->rings_made);
	s->st.rings_failed = atomic_load(&s->ctl->rings_failed); /* the producers' word: only said, never trusted */
	if (made == s->made_seen && !final && now < s->next_scan)
		return false;
	s->made_seen = made;
	s->next_scan = now + RESCAN_NS;
	return true;
}

static int scan_dir(rp_spool *s, uint64_t now, bool final)
{
	if (!dir_changed(s, now, final))
		return RP_OK;
	DIR *const d = opendir(s->dir);
	if (!d)
		return RP_OK; /* removed under us: nothing new to find */
	int rc = RP_OK;
	const struct dirent *de;
	while (rc >= 0 && (de = readdir(d)) != NULL) {
		if (!ring_name_ok(de->d_name))
			continue;
		bool known = false;
		for (size_t i = 0; i < s->nrings && !known; i++)
			known = strcmp(s->rings[i].name, de->d_name) == 0;
		if (!known)
			rc = ring_open(s, de->d_name);
	}
	closedir(d);
	return rc < 0 ? rc : RP_OK;
}

/* The ring's process or thread is gone, or its image was replaced by an exec (a newer serial for its pid). */
static bool ring_dead(const rp_spool *s, const ring *r)
{
	for (size_t i = 0; i < s->nrings; i++)
		if (s->rings[i].pid == r->pid && s->rings[i].serial > r->serial)
			return true;
	if (kill((pid_t)r->pid, 0) != 0 && errno == ESRCH)
		return true;
	char path[96], buf[256];
	snprintf(path, sizeof path, "/proc/%u/task/%u/stat", r->pid, r->tid);
	const int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT; /* the thread is gone (an exit, or an exec by another thread) */
	const ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* "pid (comm) S ...": the state follows the last ')', comm may hold anything */
	const char *const rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* The t_start of a checked record in a queue. */
static uint64_t rec_t_start(const uint8_t *rec)
{
	uint64_t t;
	memcpy(&t, rec + offsetof(rp_ring_rec, t_start), sizeof t);
	return t;
}

/* Room for n more bytes at the end of r's queue: the delivered front reused once it is at least half, else grown. */
static int queue_room(ring *r, size_t n)
{
	if (r->rd == r->wr)
		r->rd = r->wr = 0;
	if (r->held_cap - r->wr >= n)
		return RP_OK;
	if (r->rd && r->rd >= r->wr - r->rd && r->held_cap - (r->wr - r->rd) >= n) {
		memmove(r->held, r->held + r->rd, r->wr - r->rd);
		r->wr -= r->rd;
		r->rd = 0;
		return RP_OK;
	}
	size_t cap = r->held_cap ? r->held_cap : 4096;
	while (cap - r->wr < n)
		cap *= 2;
	uint8_t *const h = realloc(r->held, cap);
	if (!h)
		return RP_E_NOMEM;
	r->held = h;
	r->held_cap = cap;
	return RP_OK;
}

/*
 * Check the len bytes just copied to the end of r's queue as records, keep
 * the good ones (PADs dropped) and count them.  Returns the bytes kept, and
 * sets *bad when a record breaks the format (what follows it is dropped).
 */
static size_t queue_check(rp_spool *s, ring *r, size_t len, bool *bad)
{
	uint8_t *const q = r->held + r->wr;
	size_t off = 0, out = 0;
	while (off < len) {
		rp_ring_rec rec;
		if (len - off < 8)
			goto broken;
		memcpy(&rec, q + off, 8);
		if (rec.reclen < 8 || rec.reclen % 8 || rec.reclen > len - off)
			goto broken;
		if (rec.nr == RP_RING_NR_PAD) {
			off += rec.reclen;
			continue;
		}
		if (rec.reclen < sizeof rec)
			goto broken;
		memcpy(&rec, q + off, sizeof rec);
		const uint32_t l0 = rec.plen[0], l1 = rec.plen[1];
		if (l0 > RP_SYSEV_PATH_MAX || l1 > RP_SYSEV_PATH_MAX || rp_ring_reclen(l0, l1) != rec.reclen)
			goto broken;
		if (out != off)
			memmove(q + out, q + off, rec.reclen); /* after a PAD in the middle: keep the queue dense */
		off += rec.reclen;
		out += rec.reclen;
		s->held++;
	}
	s->held_bytes += out;
	return out;
broken:
	*bad = true;
	s->held_bytes += out;
	return out;
}

/*
 * Copy what ring r published since our tail into its queue.  The bytes are
 * checked after they are copied out of the shared pages, so the producer
 * cannot change a record between the check and the use.  Returns records
 * read, -1 for a ring that broke the format (to be let go of: the good
 * records before the break are kept), or a negative rp error below -1.
 */
static int64_t ring_drain(rp_spool *s, ring *r)
{
	const uint64_t head = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
	if (head < r->tail || head - r->tail > r->size)
		return -1;
	const uint64_t held0 = s->held;
	bool bad = false;
	while (r->tail < head && !bad) {
		const uint64_t pos = r->tail & (r->size - 1), rest = r->size - pos, avail = head - r->tail;
		const size_t len = (size_t)(avail < rest ? avail : rest); /* records never straddle the end */
		const int rc = queue_room(r, len);
		if (rc < 0)
			return rc;
		memcpy(r->held + r->wr, r->data + pos, len);
		r->wr += queue_check(s, r, len, &bad);
		r->tail += len;
	}
	if (r->rd < r->wr)
		r->head_t = rec_t_start(r->held + r->rd);
	if (bad)
		return -1;
	atomic_store_explicit(&r->hdr->tail, r->tail, memory_order_release);
	return (int64_t)(s->held - held0);
}

/* Hand the oldest record r holds to fn. */
static int deliver(rp_spool *s, ring *r, int (*fn)(void *, const rp_sysev *), void *ctx)
{
	const uint8_t *const p = r->held + r->rd;
	rp_ring_rec rec;
	memcpy(&rec, p, sizeof rec);
	rp_sysev ev; /* every field set below (a memset was a `rep stos`, a quarter of the poll's own time) */
	ev.nr = rec.nr;
	ev.flags = rec.flags;
	ev.pid = r->pid;
	ev.tid = r->tid;
	ev.ret = rec.ret;
	ev.t_start = to_ns(s, rec.t_start);
	ev.t_end = to_ns(s, rec.t_end);
	memcpy(ev.a, rec.a, sizeof ev.a);
	const uint32_t l0 = rec.plen[0], l1 = rec.plen[1];
	/* A path of length 0 is present and empty (fstat's ""): the flags say nothing, plen does. */
	const char *const paths = (const char *)p + sizeof rec;
	ev.p[0] = l0 || (rec.flags & RP_SYSEV_CUT0) ? paths : NULL;
	ev.p[1] = l1 || (rec.flags & RP_SYSEV_CUT1) ? paths + l0 : NULL;
	ev.plen[0] = l0;
	ev.plen[1] = l1;
	/* The bytes stay where they are until the next drain into this queue: fn reads them there. */
	r->rd += rec.reclen;
	s->held--;
	s->held_bytes -= rec.reclen;
	if (rec.t_start < s->last_t)
		s->st.late++;
	else
		s->last_t = rec.t_start;
	s->st.events++;
	return fn(ctx, &ev);
}

int64_t rp_spool_poll(rp_spool *s, bool final, int (*fn)(void *ctx, const rp_sysev *ev), void *ctx)
{
	/* now is read before the scan: a ring not seen or idle now can only publish t_starts after it. */
	const uint64_t now = now_before_loads(s), mono = s->tsc ? now_ns() : now;
	int rc = scan_dir(s, mono, final);
	if (rc < 0)
		return rc;
	/* A ring not found yet or seen IDLE publishes no t_start before now - slack; one seen ENTERING none before
	 * the now of the last scan that saw it otherwise, less the slack (ORDER_SLACK_NS). */
	const uint64_t now_w = now > s->slack ? now - s->slack : 0;
	uint64_t w = now_w;
	int64_t total = 0;
	uint64_t waits = 0, lost = 0;
	uint32_t fill_max = 0;
	for (size_t i = 0; i < s->nrings; i++) {
		ring *const r = &s->rings[i];
		if (!r->hdr)
			continue; /* let go of: only its held records are left, and it holds W back no more */
		const uint64_t busy = atomic_load(&r->hdr->busy);
		const uint32_t closed = atomic_load(&r->hdr->closed);
		const uint64_t head = atomic_load_explicit(&r->hdr->head, memory_order_relaxed);
		/* Only a ring that has nothing new is asked whether its thread is gone, and not at every poll but the last. */
		bool dead = false;
		if (!closed && (final || (head == r->tail && mono >= r->next_check))) {
			dead = ring_dead(s, r);
			r->next_check = mono + DEAD_CHECK_NS;
		}
		if (head - r->tail <= r->size) {
			const uint32_t fill = (uint32_t)((head - r->tail) * 1000 / r->size);
			if (fill > fill_max)
				fill_max = fill;
		}
		const int64_t n = ring_drain(s, r);
		if (n < -1)
			return n;
		if (n == -1) {
			s->st.bad++;
			ring_release(s, r);
			continue;
		}
		total += n;
		if (closed || dead) {
			ring_release(s, r); /* drained after it was seen closed or dead: nothing more can come */
			continue;
		}
		const uint64_t enter_w = r->w_enter > s->slack ? r->w_enter - s->slack : 0;
		const uint64_t rw = busy == RP_RING_IDLE ? now_w : busy == RP_RING_ENTERING ? enter_w : busy;
		if (busy != RP_RING_ENTERING)
			r->w_enter = now;
		if (rw < w)
			w = rw;
		waits += atomic_load_explicit(&r->hdr->waits, memory_order_relaxed);
		lost += atomic_load_explicit(&r->hdr->lost, memory_order_relaxed);
	}
	s->prev_now = now;
	s->prev_mono = mono;
	/* Nothing goes out before the ticks' rate is known: the mapping is fixed once, before any delivery. */
	if (s->tsc && !s->calibrated)
		calibrate(s, final);
	if (s->tsc && !s->calibrated)
		w = 0;
	s->st.waits = s->done_waits + waits;
	s->st.lost = s->done_lost + lost;
	s->st.fill_permille = fill_max;
	/* Each ring's records are in t_start order: merging the fronts of the queues delivers all in order. */
	rc = heap_make(s);
	while (rc == 0 && s->nheap) {
		ring *const r = &s->rings[s->heap[0]];
		if (!final && (s->held_bytes <= MAX_HELD_BYTES || !w) && r->head_t >= w)
			break;
		rc = deliver(s, r, fn, ctx);
		if (r->rd < r->wr)
			r->head_t = rec_t_start(r->held + r->rd);
		else
			s->heap[0] = s->heap[--s->nheap];
		if (s->nheap)
			heap_down(s, 0);
	}
	rings_sweep(s);
	s->st.pending = s->held;
	return rc ? rc : total;
}

uint32_t rp_spool_live(rp_spool *s)
{
	uint32_t n = 0;
	for (size_t i = 0; i < s->nrings; i++) {
		const ring *const r = &s->rings[i];
		if (!r->hdr)
			continue;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->rings[j].hdr && s->rings[j].pid == r->pid;
		if (!seen && !atomic_load(&r->hdr->closed) && !ring_dead(s, r))
			n++;
	}
	return n;
}

void rp_spool_destroy(rp_spool *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nrings; i++) {
		ring_release(s, &s->rings[i]);
		free(s->rings[i].held);
	}
	/* What is left (rings never opened, a thread's ".new") goes too, retired first: a program that outlives
	 * the capture makes no ring in it while it is emptied. */
	const int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0) {
		if (rp__spool_retire(AT_FDCWD, s->dir, dfd) != 0) {
			rp__spool_empty(dfd); /* not renamed (a name too long for the suffix): emptied where it is */
			rmdir(s->dir);
		}
		close(dfd);
	}
	munmap(s->ctl, RP_SPOOL_CTL_SIZE);
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* last: the directory is gone, no sweep can find it unlocked */
	free(s->heap);
	free(s->rings);
	free(s);
}
