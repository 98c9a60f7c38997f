/* The writer's side of the rings: find, validate, drain and merge every traced thread's ring (capture/preload/ring.h, docs/syscall-capture.md §rings). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/preload/ring.h"
#include "capture/preload/spool.h"
#include "formats/error.h"

/*
 * Events held for ordering: beyond this the oldest go out anyway (counted
 * late).  4M events of ~150 bytes is some 600 MiB: a thread that holds the
 * watermark back that long (a stdio run left open, a call blocked for
 * minutes) is not worth more memory.
 */
#define MAX_HELD (4u << 20)
/* A ring file's name: "<pid>.<tid>.<serial>[-<n>]"; longer is not one of ours. */
#define NAME_MAX_LEN 80
/*
 * How often a ring that gave nothing is asked whether its thread is still
 * there (a kill and a read of /proc per ring): a thread killed mid-call holds
 * the merge watermark back this long at most.  Asking at every poll cost
 * more CPU than draining (measured: a third of the writer's kernel time).
 */
#define DEAD_CHECK_NS (50u * 1000 * 1000)

typedef struct ring {
	char name[NAME_MAX_LEN + 1];
	rp_ring_hdr *hdr;
	uint8_t *data;
	uint64_t size, tail, maplen;
	uint32_t pid, tid;
	uint64_t serial;
	uint64_t w_enter; /* the now of the last scan that saw it not ENTERING: what an ENTERING ring holds W at */
	uint64_t seq;     /* discovery order: ties of t_start keep a stable order */
	uint64_t next_check; /* when to ask again whether the thread is gone (DEAD_CHECK_NS) */
	uint64_t waits, lost;
} ring;

typedef struct item {
	rp_sysev ev;
	uint64_t ring_seq, rec_seq;
	char paths[];
} item;

struct rp_spool {
	char dir[PATH_MAX];
	uint32_t ring_kb;
	ring *rings;
	size_t nrings, cap;
	item **heap;
	size_t held, heap_cap;
	uint64_t prev_now, ring_seq, rec_seq, last_t;
	uint64_t done_waits, done_lost;
	/*
	 * inotify on the directory: a new ring is renamed into it, so the
	 * directory is read again only after something was made there.  -1
	 * (no inotify instance to be had): read it at every poll.
	 */
	int ino;
	bool rescan;
	rp_spool_stats st;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int rp_spool_create(rp_spool **out, const char *tmpdir, uint32_t ring_kb, char *errbuf)
{
	*out = NULL;
	struct stat st;
	if (!tmpdir) {
		tmpdir = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : getenv("TMPDIR");
		if (!tmpdir || !tmpdir[0])
			tmpdir = "/tmp";
	}
	rp_spool *const s = calloc(1, sizeof *s);
	if (!s)
		return rp_fail(errbuf, RP_E_NOMEM, "spool: out of memory");
	if ((size_t)snprintf(s->dir, sizeof s->dir, "%s/reprise-spool-XXXXXX", tmpdir) >= sizeof s->dir) {
		free(s);
		return rp_fail(errbuf, RP_E_RANGE, "spool: %s: path too long", tmpdir);
	}
	if (!mkdtemp(s->dir)) { /* 0700: the rings are private to the user */
		const int e = errno;
		free(s);
		return rp_fail(errbuf, RP_E_SYSTEM, "spool: cannot make a directory under %s: %s", tmpdir, strerror(e));
	}
	char pidfile[PATH_MAX + 16];
	snprintf(pidfile, sizeof pidfile, "%s/%s", s->dir, RP_SPOOL_WRITER_FILE);
	FILE *const pf = fopen(pidfile, "wx");
	const bool wrote = pf && fprintf(pf, "%ld\n", (long)getpid()) > 0;
	if (!pf || fclose(pf) != 0 || !wrote) {
		const int e = errno;
		unlink(pidfile);
		rmdir(s->dir);
		free(s);
		return rp_fail(errbuf, RP_E_SYSTEM, "spool: cannot write %s: %s", pidfile, strerror(e));
	}
	s->ring_kb = ring_kb;
	s->prev_now = now_ns();
	/* Watched before any traced program runs, so no ring can be made unseen. */
	s->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->ino >= 0 && inotify_add_watch(s->ino, s->dir, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
		close(s->ino);
		s->ino = -1;
	}
	s->rescan = true;
	*out = s;
	return RP_OK;
}

const char *rp_spool_dir(const rp_spool *s)
{
	return s->dir;
}

const rp_spool_stats *rp_spool_get_stats(const rp_spool *s)
{
	return &s->st;
}

/* ---- the merge heap: (t_start, ring, record) order --------------------------------------- */

static bool before(const item *a, const item *b)
{
	if (a->ev.t_start != b->ev.t_start)
		return a->ev.t_start < b->ev.t_start;
	if (a->ring_seq != b->ring_seq)
		return a->ring_seq < b->ring_seq;
	return a->rec_seq < b->rec_seq;
}

static int heap_push(rp_spool *s, item *it)
{
	if (s->held == s->heap_cap) {
		const size_t cap = s->heap_cap ? s->heap_cap * 2 : 1024;
		item **const h = realloc(s->heap, cap * sizeof *h);
		if (!h)
			return RP_E_NOMEM;
		s->heap = h;
		s->heap_cap = cap;
	}
	size_t i = s->held++;
	while (i > 0 && before(it, s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = it;
	return RP_OK;
}

static item *heap_pop(rp_spool *s)
{
	item *const top = s->heap[0];
	item *const last = s->heap[--s->held];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->held)
			break;
		if (c + 1 < s->held && before(s->heap[c + 1], s->heap[c]))
			c++;
		if (!before(s->heap[c], last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->held)
		s->heap[i] = last;
	return top;
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

/* Let go of ring i: tell a producer still there not to wait, unmap, remove the file. */
static void ring_drop(rp_spool *s, size_t i)
{
	ring *const r = &s->rings[i];
	atomic_store_explicit(&r->hdr->writer_gone, 1, memory_order_release);
	s->done_waits += atomic_load_explicit(&r->hdr->waits, memory_order_relaxed);
	s->done_lost += atomic_load_explicit(&r->hdr->lost, memory_order_relaxed);
	munmap(r->hdr, r->maplen);
	ring_unlink(s, r->name);
	s->rings[i] = s->rings[--s->nrings];
	s->st.rings_done++;
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
	     h.pid != 0 && h.tid != 0 && h.tail <= h.head && h.head - h.tail <= h.data_size && h.tail % 8 == 0;
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
	r->next_check = s->prev_now + DEAD_CHECK_NS;
	r->seq = s->ring_seq++;
	s->st.rings++;
	return 1;
}

/* Whether the directory may hold a name not read yet: inotify said something was made there (or overflowed). */
static bool dir_changed(rp_spool *s)
{
	if (s->ino < 0)
		return true;
	bool changed = s->rescan;
	s->rescan = false;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		const ssize_t n = read(s->ino, buf, sizeof buf);
		if (n > 0) {
			changed = true; /* which name does not matter: the scan reads them all */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			close(s->ino); /* a broken instance: read the directory at every poll from now on */
			s->ino = -1;
			changed = true;
		}
		return changed;
	}
}

static int scan_dir(rp_spool *s)
{
	if (!dir_changed(s))
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

/*
 * Read what ring r published since our tail.  Each record is copied out of
 * the shared bytes before it is checked, so the producer cannot change it
 * between the check and the use.  Returns records read, -1 for a ring that
 * broke the format (to be dropped), or a negative rp error below -1.
 */
static int64_t ring_drain(rp_spool *s, ring *r)
{
	const uint64_t head = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
	if (head < r->tail || head - r->tail > r->size)
		return -1;
	int64_t n = 0;
	while (r->tail < head) {
		const uint64_t pos = r->tail & (r->size - 1), rest = r->size - pos, avail = head - r->tail;
		rp_ring_rec rec;
		if (avail < 8)
			return -1;
		memcpy(&rec, r->data + pos, 8);
		if (rec.reclen < 8 || rec.reclen % 8 || rec.reclen > rest || rec.reclen > avail)
			return -1;
		if (rec.nr == RP_RING_NR_PAD) {
			r->tail += rec.reclen;
			continue;
		}
		if (rec.reclen < sizeof rec)
			return -1;
		memcpy(&rec, r->data + pos, sizeof rec);
		const uint32_t l0 = rec.plen[0], l1 = rec.plen[1];
		/* the reclen was read twice: the second copy is the one checked and used */
		if (l0 > RP_SYSEV_PATH_MAX || l1 > RP_SYSEV_PATH_MAX || rp_ring_reclen(l0, l1) != rec.reclen ||
		    rec.reclen > rest || rec.reclen > avail)
			return -1;
		item *const it = malloc(sizeof *it + l0 + l1);
		if (!it)
			return RP_E_NOMEM;
		memcpy(it->paths, r->data + pos + sizeof rec, l0 + l1);
		rp_sysev *const ev = &it->ev;
		memset(ev, 0, sizeof *ev);
		ev->nr = rec.nr;
		ev->flags = rec.flags;
		ev->pid = r->pid;
		ev->tid = r->tid;
		ev->ret = rec.ret;
		ev->t_start = rec.t_start;
		ev->t_end = rec.t_end;
		memcpy(ev->a, rec.a, sizeof ev->a);
		/* A path of length 0 is present and empty (fstat's ""): the flags say nothing, plen does. */
		ev->p[0] = l0 || (rec.flags & RP_SYSEV_CUT0) ? it->paths : NULL;
		ev->p[1] = l1 || (rec.flags & RP_SYSEV_CUT1) ? it->paths + l0 : NULL;
		ev->plen[0] = l0;
		ev->plen[1] = l1;
		it->ring_seq = r->seq;
		it->rec_seq = s->rec_seq++;
		const int rc = heap_push(s, it);
		if (rc < 0) {
			free(it);
			return rc;
		}
		r->tail += rec.reclen;
		n++;
	}
	atomic_store_explicit(&r->hdr->tail, r->tail, memory_order_release);
	return n;
}

static int deliver(rp_spool *s, int (*fn)(void *, const rp_sysev *), void *ctx)
{
	item *const it = heap_pop(s);
	if (it->ev.t_start < s->last_t)
		s->st.late++;
	else
		s->last_t = it->ev.t_start;
	s->st.events++;
	const int rc = fn(ctx, &it->ev);
	free(it);
	return rc;
}

int64_t rp_spool_poll(rp_spool *s, bool final, int (*fn)(void *ctx, const rp_sysev *ev), void *ctx)
{
	/* now is read before the scan: a ring not seen or idle now can only publish t_starts after it. */
	const uint64_t now = now_ns();
	int rc = scan_dir(s);
	if (rc < 0)
		return rc;
	uint64_t w = now;
	int64_t total = 0;
	uint64_t waits = 0, lost = 0;
	uint32_t fill_max = 0;
	for (size_t i = 0; i < s->nrings;) {
		ring *const r = &s->rings[i];
		const uint64_t busy = atomic_load(&r->hdr->busy);
		const uint32_t closed = atomic_load(&r->hdr->closed);
		const uint64_t head = atomic_load_explicit(&r->hdr->head, memory_order_relaxed);
		/* Only a ring that has nothing new is asked whether its thread is gone, and not at every poll but the last. */
		bool dead = false;
		if (!closed && (final || (head == r->tail && now >= r->next_check))) {
			dead = ring_dead(s, r);
			r->next_check = now + DEAD_CHECK_NS;
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
			ring_drop(s, i);
			continue;
		}
		total += n;
		if (closed || dead) {
			ring_drop(s, i); /* drained after it was seen closed or dead: nothing more can come */
			continue;
		}
		const uint64_t rw = busy == RP_RING_IDLE ? now : busy == RP_RING_ENTERING ? r->w_enter : busy;
		if (busy != RP_RING_ENTERING)
			r->w_enter = now;
		if (rw < w)
			w = rw;
		waits += atomic_load_explicit(&r->hdr->waits, memory_order_relaxed);
		lost += atomic_load_explicit(&r->hdr->lost, memory_order_relaxed);
		i++;
	}
	s->prev_now = now;
	s->st.waits = s->done_waits + waits;
	s->st.lost = s->done_lost + lost;
	s->st.fill_permille = fill_max;
	rc = 0;
	while (rc == 0 && s->held && (final || s->held > MAX_HELD || s->heap[0]->ev.t_start < w))
		rc = deliver(s, fn, ctx);
	s->st.pending = s->held;
	return rc ? rc : total;
}

uint32_t rp_spool_live(rp_spool *s)
{
	uint32_t n = 0;
	for (size_t i = 0; i < s->nrings; i++) {
		const ring *const r = &s->rings[i];
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->rings[j].pid == r->pid;
		if (!seen && !atomic_load(&r->hdr->closed) && !ring_dead(s, r))
			n++;
	}
	return n;
}

void rp_spool_destroy(rp_spool *s)
{
	if (!s)
		return;
	while (s->nrings)
		ring_drop(s, s->nrings - 1);
	while (s->held)
		free(heap_pop(s));
	/* What is left (rings never opened, a thread's ".new") goes too. */
	DIR *const d = opendir(s->dir);
	if (d) {
		const struct dirent *de;
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(s->dir);
	if (s->ino >= 0)
		close(s->ino);
	free(s->heap);
	free(s->rings);
	free(s);
}
