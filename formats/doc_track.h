/* Deletes done by a close: which open handles delete their object when closed (SMB's delete-on-close). */
#ifndef REPRISE_FORMATS_DOC_TRACK_H
#define REPRISE_FORMATS_DOC_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "formats/op.h"

/*
 * Open handles that delete their object at close (delete-on-close at open or
 * set by set-info) or that are directories: an open-addressing table of
 * (client, handle), sized by the handles open at once (a table of at most
 * 4 x that, tombstones dropped as it fills) and bounded by RP_DOC_TRACK_MAX.
 */
typedef struct rp_doc_track {
	struct rp__doc_ent *e;
	size_t cap, used, live; /* used counts tombstones too; live does not */
} rp_doc_track;

/* Handles tracked open at once; one more is RP_E_LIMIT (about 64 MiB of table at the limit). */
#define RP_DOC_TRACK_MAX ((size_t)1 << 21)

/* Zero-initialised is empty. */
void rp_doc_track_free(rp_doc_track *t);
/*
 * Account one op, in trace order: RP_OP_UNLINK or RP_OP_RMDIR when op is a
 * close that deleted its object, RP_OP__COUNT when it deleted nothing, or
 * RP_E_NOMEM, RP_E_LIMIT (more than RP_DOC_TRACK_MAX tracked handles open). Only successful ops with a handle count.
 */
int rp_doc_track_op(rp_doc_track *t, const rp_op *op);
/*
 * rp_doc_track_op whatever op's status, for a caller that decides which ops
 * count (one that counts an op whose reply was lost, as it may have been
 * done).  An op with no handle counts for nothing.
 */
int rp_doc_track_apply(rp_doc_track *t, const rp_op *op);

#endif
