/* The shared-memory event ring between a traced thread and `reprise capture` (docs/syscall-capture.md §rings). */
#ifndef REPRISE_CAPTURE_RING_H
#define REPRISE_CAPTURE_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include "formats/sysev.h"

/*
 * One file per traced thread in the spool directory ($REPRISE_SPOOL, made by
 * `reprise capture`), named "<pid>.<tid>.<serial>" (serial: the process
 * image's start time in ns, so a pid reused or re-exec'd makes a new name;
 * a thread that goes on after its ring was closed, as after a failed exec,
 * makes "<pid>.<tid>.<serial>-<n>", n counting from 1).  The spool directory
 * also holds the control page RP_SPOOL_CTL_FILE (below), which is no ring.
 * The thread creates it as "<name>.new", sizes it, maps it, fills the header
 * and renames it: the writer only opens finished names.  The thread is the
 * only producer, the writer the only consumer.  The file outlives the
 * process: what a thread wrote before it was killed is still read.
 *
 * Layout: this header (RP_RING_HDR_SIZE bytes), then data_size bytes of
 * records.  head and tail count bytes since the start (never wrap); a record
 * is at data[pos % data_size], 8-byte aligned, and never straddles the end:
 * a record that does not fit before the end is preceded by a PAD record
 * filling the rest.
 */
#define RP_RING_MAGIC 0x31474e4952505200ull /* "\0RPRING1" little-endian */
#define RP_RING_VERSION 1
#define RP_RING_HDR_SIZE 4096
#define RP_RING_NR_PAD 0xffff
/*
 * The default data size and the bounds of $REPRISE_RING_KB.  A ring is
 * sparse until written, and each page of it a thread writes the first time
 * costs the thread a page fault (3-5 us on the VMs measured, allocation
 * included): 256 KiB is 64 of them, where 2 MiB was 512 (6 ms of a 3,000-file
 * tar extraction, docs/BENCHMARKS.md).  It holds some 2,500 events, and the
 * writer drains it at a quarter full (capture/session/session.c).
 */
#define RP_RING_DEFAULT_KB 256
#define RP_RING_DEFAULT_SIZE (RP_RING_DEFAULT_KB << 10)
#define RP_RING_MIN_SIZE (64u << 10)
#define RP_RING_MAX_SIZE (1u << 30)

/* The ring's times (busy, t_start, t_end) are TSC ticks, as the control page's clock says, not ns. */
#define RP_RING_F_TSC 1u

/* busy: what the thread is doing, for the writer's merge (ring consumers' watermark). */
#define RP_RING_IDLE 0     /* in no recorded call */
#define RP_RING_ENTERING 1 /* entering a call: its t_start is being read */
/* any other value: the t_start of the call in progress */

typedef struct rp_ring_hdr {
	uint64_t magic;
	uint32_t version, hdr_size;
	uint32_t pid, tid, ppid, flags; /* flags: RP_RING_F_* */
	uint64_t data_size; /* a power of two */
	uint64_t serial;
	uint8_t pad0[64 - 40];
	_Alignas(64) _Atomic uint64_t head; /* bytes published (producer) */
	_Atomic uint64_t busy;              /* RP_RING_IDLE, RP_RING_ENTERING or a t_start */
	_Atomic uint64_t waits;             /* times the producer found the ring full and waited */
	_Atomic uint64_t lost;              /* events dropped (only when the writer is gone) */
	_Atomic uint32_t closed;            /* 1: the thread wrote its last event (exit, exec) */
	_Alignas(64) _Atomic uint64_t tail; /* bytes consumed (writer) */
	_Atomic uint32_t writer_gone;       /* 1: the writer stopped; the producer must not wait */
} rp_ring_hdr;
_Static_assert(sizeof(rp_ring_hdr) <= RP_RING_HDR_SIZE, "ring header fits its page");

/* A record: this, then p0's bytes, then p1's, padded to 8. */
typedef struct rp_ring_rec {
	uint16_t nr;     /* rp_sysev_nr, or RP_RING_NR_PAD */
	uint16_t flags;  /* rp_sysev_flag */
	uint32_t reclen; /* bytes, header included, a multiple of 8 */
	uint16_t plen[2];
	uint32_t reserved;
	int64_t ret;
	uint64_t t_start, t_end;
	int64_t a[RP_SYSEV_ARGS];
} rp_ring_rec;
_Static_assert(sizeof(rp_ring_rec) == 88, "ring record header is 88 bytes");

static inline uint32_t rp_ring_reclen(uint32_t l0, uint32_t l1)
{
	return (uint32_t)((sizeof(rp_ring_rec) + l0 + l1 + 7u) & ~7u);
}

/*
 * The spool's control page, the file RP_SPOOL_CTL_FILE (RP_SPOOL_CTL_SIZE
 * bytes): made and mapped by the writer before any program runs, mapped
 * shared by every traced process image.  It names the writer (a producer
 * whose ring is full and whose writer was killed stops waiting for it) and
 * counts the rings made: a producer adds one after it renames a new ring into
 * place and before it reads its first t_start, so the writer reads the
 * directory only when the count moved.  And it says which clock the rings'
 * times are read from (every ring of a spool uses the same one).  The
 * producers can write it: the writer trusts nothing in it (a wrong count
 * costs a scan of the directory; a ring in another clock is rejected).
 * The writer holds an exclusive flock on it for the spool's life: a producer
 * that can take a shared one makes no ring (the writer died, kill -9 too),
 * and the next capture removes a spool whose page is unlocked (spool.c).
 */
#define RP_SPOOL_CTL_FILE "writer"
#define RP_SPOOL_CTL_SIZE 4096
#define RP_SPOOL_CTL_MAGIC 0x314c544352505200ull /* "\0RPRCTL1" little-endian */

typedef struct rp_spool_ctl {
	uint64_t magic;
	int32_t writer_pid;
	uint32_t clock; /* rp_spool_clock: RP_SPOOL_CLOCK_MONOTONIC or RP_SPOOL_CLOCK_TSC */
	_Alignas(64) _Atomic uint64_t rings_made;
	/*
	 * Rings a traced thread could not make although the page was mapped: a
	 * process that changed its user (setuid after fork, a daemon dropping
	 * privileges) cannot create files in a spool private to the capture's;
	 * its events are missing, and the writer says so.
	 */
	_Alignas(64) _Atomic uint64_t rings_failed;
} rp_spool_ctl;
_Static_assert(sizeof(rp_spool_ctl) <= RP_SPOOL_CTL_SIZE, "control page fits its page");

#endif
