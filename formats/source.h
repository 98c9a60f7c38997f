/* A batched pull source of ops: what replay's clients and the trace analysis (formats/plan.h) read. */
#ifndef REPRISE_FORMATS_SOURCE_H
#define REPRISE_FORMATS_SOURCE_H

#include <stdint.h>

#include "formats/error.h"
#include "formats/op.h"

/*
 * A pull source of one client's ops (or every client's, for the scan), in
 * batches so the engine's loop pays for one indirect call per batch, not per op.
 */
typedef struct rp_op_source rp_op_source;
struct rp_op_source {
	/*
	 * The next ops: n > 0 of them at *ops (valid until the next call to next,
	 * rewind or close), 0 at the end, or a negative rp error (detail in errbuf).
	 */
	int (*next)(rp_op_source *s, const rp_op **ops);
	int (*rewind)(rp_op_source *s);
	const char *(*string)(rp_op_source *s, uint32_t id, uint32_t *len); /* NULL if unknown */
	void (*close)(rp_op_source *s);
	char errbuf[RP_ERRBUF_SIZE];
};

#endif
