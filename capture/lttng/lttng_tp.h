/* The LTTng-UST tracepoint provider `reprise`: the interposer's events as tracepoints (lttng-ust(3), 2.13 API). */

/*
 * This header is read several times by <lttng/tracepoint-event.h> (the
 * multi-read protocol of lttng-ust(3)): its guard lets those passes through.
 * Every event shares one class: the fields of struct rp_sysev, so a CTF
 * reader (converters/ctf.c) decodes all of them alike.  LTTng stamps an event
 * when it is emitted, at the call's end; t_start and t_end are the call's own
 * CLOCK_MONOTONIC times, the clock LTTng-UST uses by default.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER reprise

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "capture/lttng/lttng_tp.h"

#if !defined(REPRISE_CAPTURE_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define REPRISE_CAPTURE_LTTNG_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "capture/lttng/lttng_events.h"
#include "formats/sysev.h"

/*
 * A path field: the bytes the caller passed (never NUL-terminated), with
 * their length.  An absent path has length 0, as an empty one: the rings do
 * not tell them apart either (formats/sysev.h), so the two captures agree.
 */
#define RP__LTTNG_PATH(i) (ev->p[i] ? ev->p[i] : "")
#define RP__LTTNG_PLEN(i) (ev->p[i] ? ev->plen[i] : 0u)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(reprise, sysev,
	LTTNG_UST_TP_ARGS(const rp_sysev *, ev),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, pid, ev->pid)
		lttng_ust_field_integer(uint32_t, tid, ev->tid)
		lttng_ust_field_integer(int64_t, ret, ev->ret)
		lttng_ust_field_integer(uint64_t, t_start, ev->t_start)
		lttng_ust_field_integer(uint64_t, t_end, ev->t_end)
		lttng_ust_field_integer(uint16_t, flags, ev->flags)
		lttng_ust_field_integer(int64_t, a0, ev->a[0])
		lttng_ust_field_integer(int64_t, a1, ev->a[1])
		lttng_ust_field_integer(int64_t, a2, ev->a[2])
		lttng_ust_field_integer(int64_t, a3, ev->a[3])
		lttng_ust_field_integer(int64_t, a4, ev->a[4])
		lttng_ust_field_integer(int64_t, a5, ev->a[5])
		lttng_ust_field_sequence_text(char, p0, RP__LTTNG_PATH(0), uint32_t, RP__LTTNG_PLEN(0))
		lttng_ust_field_sequence_text(char, p1, RP__LTTNG_PATH(1), uint32_t, RP__LTTNG_PLEN(1))
	)
)

/* One instance per kind, from the checked list (lttng_events.h). */
#define RP__LTTNG_INSTANCE(e, name) \
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(reprise, sysev, reprise, name, LTTNG_UST_TP_ARGS(const rp_sysev *, ev))
RP_LTTNG_EVENTS(RP__LTTNG_INSTANCE)

#endif

#include <lttng/tracepoint-event.h>
