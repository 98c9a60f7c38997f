/*
 * CTF traces of the LTTng-UST provider `reprise` (capture/lttng) -> op
 * records, read through libbabeltrace2 (docs/syscall-capture.md, LTTng; CTF
 * 1.8 as LTTng 2.13 writes it).  The decoding of one event's payload and the
 * reordering by start time work without babeltrace2, over plain structs, so
 * tests and the fuzz target drive them directly.
 */
#ifndef REPRISE_CONVERTERS_CTF_H
#define REPRISE_CONVERTERS_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/sink.h"
#include "formats/sysev.h"

/* RP_HAVE_CTF: 1 when babeltrace2 and the syscall model are built in; RP_CTF_WHY_NOT otherwise. */
#include "converters/ctf_config.h"

/* ---- trace directories (ctf_dir.c) ---- */

/*
 * A session's output holds a trace per buffer scheme and ABI
 * (DIR/ust/uid/0/64-bit, DIR/ust/pid/NAME-PID-DATE, DIR/kernel): the
 * directories that hold a `metadata` file are searched for this deep below
 * the path given, at most this many kept, at most this many directories
 * looked at (a tree that large is no session's output).  Symbolic links are
 * not followed.
 */
#define RP_CTF_DEPTH_MAX 6
#define RP_CTF_TRACES_MAX 4096
#define RP_CTF_DIRS_MAX 65536

/* Whether path is a directory with a `metadata` file at or under it. */
bool rp_ctf_sniff_dir(const char *path);

typedef struct rp_ctf_dirs {
	char **dir; /* sorted, each its own allocation */
	size_t n;
} rp_ctf_dirs;

/*
 * Every trace directory at or under path (none is an error naming path), each
 * metadata file checked by rp_ctf_check_metadata first.
 */
int rp_ctf_find_traces(const char *path, rp_ctf_dirs *out, char *errbuf);

/*
 * The packets of a packetized metadata file (CTF 1.8 section 7.1: magic
 * 0x75d11d57 in the trace's byte order, uuid, checksum, content and packet
 * sizes in bits, then scheme bytes and the version) must lie within it and
 * hold their header: libbabeltrace2 2.0 loops forever on a packet that
 * claims more than the file has, so such a file is refused before it sees
 * it.  Plain-text metadata (opening with the comment "CTF 1.8") passes as it is.  0, or
 * RP_E_CORRUPT with what and where in errbuf (name is the file's).
 */
int rp_ctf_check_metadata(const void *buf, size_t len, const char *name, char *errbuf);
/* A metadata file over this is no session's (LTTng's kernel metadata, the largest, is a few MiB). */
#define RP_CTF_METADATA_MAX (64u << 20)
void rp_ctf_dirs_free(rp_ctf_dirs *d);

/* ---- one event's payload -> rp_sysev (ctf_events.c) ---- */

typedef enum rp_ctf_kind {
	RP_CTF_UINT = 1, /* an unsigned integer (or enumeration) field: u */
	RP_CTF_SINT,     /* a signed integer field: s */
	RP_CTF_STR,      /* a string (LTTng's text sequences become strings): str[0..len) */
	RP_CTF_OTHER,    /* anything else (a structure, an array, a real...) */
} rp_ctf_kind;

typedef struct rp_ctf_field {
	const char *name;
	rp_ctf_kind kind;
	uint64_t u;
	int64_t s;
	const char *str;
	uint64_t len;
} rp_ctf_field;

/* What became of an event; each is counted (rp_ctf_stats). */
typedef enum rp_ctf_verdict {
	RP_CTF_OK = 0,
	RP_CTF_NOT_OURS,   /* another provider's event (not reprise:*) */
	RP_CTF_UNKNOWN,    /* reprise:NAME with a NAME no kind has */
	RP_CTF_MISSING,    /* a field the event needs is absent */
	RP_CTF_WRONG_TYPE, /* a field of another type (a string for a number...) */
	RP_CTF_RANGE,      /* a number out of its field's range (a pid over 32 bits...) */
	RP_CTF_TOO_LONG,   /* a path over RP_SYSEV_PATH_MAX: no interposer writes one */
	RP_CTF_VERDICTS
} rp_ctf_verdict;

/* The most payload fields looked at: the provider writes 17 (and two sequence lengths). */
#define RP_CTF_FIELDS_MAX 32

/*
 * The event named name (as "reprise:open") with the payload fields f[0..n)
 * into *ev; its paths point into the fields' strings.  RP_CTF_OK, or why not
 * (ev is then unspecified).
 */
rp_ctf_verdict rp_ctf_decode(const char *name, const rp_ctf_field *f, size_t n, rp_sysev *ev);
/* "missing field", ... for the summary. */
const char *rp_ctf_verdict_name(rp_ctf_verdict v);
/* The kind named name ("open"), 0 if none. */
unsigned rp_ctf_kind_by_name(const char *name, size_t len);

/* ---- start-time order (ctf_events.c) ---- */

/*
 * LTTng records an event when the call ends, so the stream is in end-time
 * order and the model needs start-time order.  The orderer holds events in
 * a min-heap on t_start and releases those that started before (the
 * emission time of the newest event - the longest emission-minus-start seen
 * so far): no later event can start before that unless it lasts longer than
 * any before it.  Such an event is late: released out of order, and counted.
 * At most RP_CTF_HOLD_MAX events and RP_CTF_HOLD_BYTES of path bytes are
 * held; beyond either the earliest goes out at once (a call lasting minutes
 * while thousands of others end must not hold them all).
 */
#define RP_CTF_HOLD_MAX (1u << 18)
#define RP_CTF_HOLD_BYTES (64u << 20)

typedef int (*rp_ctf_emit_fn)(void *ctx, const rp_sysev *ev);
typedef struct rp_ctf_order rp_ctf_order;

/* Released events go to fn (its negative return stops and is returned); limits 0 = the defaults above. */
int rp_ctf_order_create(rp_ctf_order **out, rp_ctf_emit_fn fn, void *ctx, uint32_t max_events, uint64_t max_bytes);
/* One event (its paths copied) emitted at now_ns on the events' clock: 0, or an error (fn's, out of memory). */
int rp_ctf_order_push(rp_ctf_order *o, const rp_sysev *ev, uint64_t now_ns);
/* Release everything held (the end of the trace). */
int rp_ctf_order_flush(rp_ctf_order *o);
uint64_t rp_ctf_order_late(const rp_ctf_order *o);
void rp_ctf_order_destroy(rp_ctf_order *o); /* NULL is a no-op */

/* ---- what was counted ---- */

typedef struct rp_ctf_stats {
	uint64_t events;  /* reprise events decoded */
	uint64_t other;   /* other providers' events, ignored */
	uint64_t bad;     /* reprise events skipped: their reasons below */
	uint64_t by_verdict[RP_CTF_VERDICTS];
	uint64_t late;    /* released after an event that started later */
	uint64_t discarded; /* events LTTng says it dropped (a channel that does not block when full) */
	uint64_t discarded_packets; /* whole packets lost on the way (babeltrace2's discarded-packets messages) */
	uint64_t traces;  /* trace directories read */
	bool have_clock;
	int64_t clock_offset_ns; /* the clock class's offset from the Unix epoch */
} rp_ctf_stats;

/*
 * What a conversion counted, one line for the user ("ctf: 12 events from 1
 * trace -> 9 ops, ...; other events 0, late 0"); ms (the model's) may be NULL.
 */
void rp_ctf_summary(const rp_ctf_stats *st, const rp_sysmodel_stats *ms, char *buf, size_t size);

/* ---- a trace through libbabeltrace2 (ctf.c; RP_HAVE_CTF) ---- */

/*
 * Every trace at or under path, merged by time, decoded and ordered, to fn.
 * on_clock (may be NULL) is called once, before the first event, with the
 * clock's offset (0 if no event had a clock).  0 or a negative rp error
 * (detail in errbuf: babeltrace2's own message for a trace it cannot read;
 * fn's or on_clock's negative return as it is, the caller saying why).
 */
int rp_ctf_read(const char *path, rp_ctf_emit_fn fn, int (*on_clock)(void *ctx, int64_t offset_ns), void *ctx,
		rp_ctf_stats *st, char *errbuf);

/* ---- into ops (ctf_model.c; RP_HAVE_CTF) ---- */

/*
 * The trace at path through the syscall model (formats/sysev.h) into sink,
 * meta with RP_SRC_CTF and the clock's offset; summary (may be NULL) gets one
 * line of what was counted, note (may be NULL) a warning when LTTng
 * discarded events ("" otherwise; the caller zeroes it).
 */
int rp_ctf_convert(const char *path, rp_sink *sink, char *summary, size_t summary_size, char *note, size_t note_size,
		   char *errbuf);

#endif
