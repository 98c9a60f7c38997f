/* convert --prepare: a loadfile preamble that creates what the trace expects to exist. */
#ifndef REPRISE_CONVERTERS_PREAMBLE_H
#define REPRISE_CONVERTERS_PREAMBLE_H

#include <stdbool.h>
#include <stdint.h>

#include "converters/loadfile.h"
#include "formats/loadfile.h"
#include "formats/sink.h"

/*
 * The fnum every preamble NTCreateX/WriteX/Close uses (one file is open at a
 * time).  Above trace handles (dense from 1) and the loadfile writer's own
 * synthetic fnums (from 60000, one per path-only op), and below dbench's
 * signed 32-bit limit.  A trace with a handle this high gets max handle + 1.
 */
#define RP_PREAMBLE_FNUM (UINT64_C(1) << 30)

/* Preamble writes are at most this long: 64 KiB, what an SMB client sends without large-MTU credits. */
#define RP_PREAMBLE_CHUNK 65536u
/*
 * At most this many preamble ops (2^24: 1 TiB of files in 64 KiB writes,
 * some 600 MB of loadfile text).  A trace that reads at a huge offset plans a
 * huge file; past this the preamble is refused, not written for hours.
 */
#define RP_PREAMBLE_OPS_MAX (UINT64_C(1) << 24)

typedef struct rp_preamble_stats {
	uint64_t dirs, files, bytes, ops;
} rp_preamble_stats;

/* The dialect the loadfile writer picks for AUTO (docs/loadfile.md "Writing"), resolved from m. */
rp_loadfile_dialect rp_conv_preamble_dialect(const rp_memsink *m, rp_loadfile_dialect asked);

/*
 * Write m (a whole trace, read into memory) to sink: its meta and strings,
 * then a preamble in dialect (SMB or NFS, not AUTO) that creates every
 * directory and file of the prepare plan (formats/plan.h), then the
 * trace's ops, then finish.  New path strings are interned into m->strings.
 * Returns 0 or a negative rp error with the detail in errbuf.
 */
int rp_conv_write_prepared(rp_memsink *m, rp_sink *sink, rp_loadfile_dialect dialect, rp_preamble_stats *st,
			   char *errbuf);

#endif
