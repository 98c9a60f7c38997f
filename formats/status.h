/* Status mappings NTSTATUS <-> errno <-> nfsstat3 <-> nfsstat4, from one X-macro list. */
#ifndef REPRISE_FORMATS_STATUS_H
#define REPRISE_FORMATS_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/op.h"

/* Canonical status (0, errno, RP_STATUS_*) from a protocol status. */
int32_t rp_status_from_proto(rp_status_kind kind, uint32_t code);

/* The protocol status that best represents a canonical one (for writers). */
uint32_t rp_status_to_proto(rp_status_kind kind, int32_t canon);

/* "OK", "ENOENT", "UNKNOWN", "OTHER"; "E<number>" style names are never returned: NULL if unnamed. */
const char *rp_status_name(int32_t canon);
/* Parse a canonical name back; returns 0 and sets *out, or -1. */
int rp_status_from_name(const char *name, size_t len, int32_t *out);

/* "NT_STATUS_OBJECT_NAME_NOT_FOUND", "NFS3ERR_NOENT", "NFS4ERR_STALE", "ENOENT"; NULL if unknown. */
const char *rp_status_proto_name(rp_status_kind kind, uint32_t code);
/* Parse a protocol status name (for NT also "0xC0000034"); returns 0 and sets *code, or -1. */
int rp_status_proto_parse(rp_status_kind kind, const char *name, size_t len, uint32_t *code);

/* The status table's rows, for tests and documentation generators: 0 and the row, or -1 past the end. */
size_t rp__status_row_count(void);
int rp__status_row(size_t i, rp_status_kind *kind, uint32_t *code, int32_t *canon, int *pref, const char **name);

/*
 * A status in reprise's portable errno numbering (Linux's generic values,
 * what traces hold) from the host's errno, and back.  The identity on every
 * host reprise builds on: formats/status.c checks that at compile time.
 */
static inline int32_t rp_errno_from_host(int32_t e) { return e; }
static inline int32_t rp_errno_to_host(int32_t e) { return e; }

/* Fill op->status_kind, proto_status and the canonical status from a protocol status. */
static inline void rp_op_set_status(rp_op *op, rp_status_kind kind, uint32_t code)
{
	op->status_kind = (uint8_t)kind;
	op->proto_status = code;
	op->status = rp_status_from_proto(kind, code);
}

#endif
