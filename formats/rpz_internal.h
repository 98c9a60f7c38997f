/* .rpz internals shared by the writer and the reader: layout constants, frame codec (docs/rpz-format.md). */
#ifndef REPRISE_FORMATS_RPZ_INTERNAL_H
#define REPRISE_FORMATS_RPZ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "formats/cursor.h"
#include "formats/error.h"
#include "formats/op.h"
#include "formats/strtab.h"

/* File header (docs/rpz-format.md §2). */
#define RPZ_MAGIC_LEN 8
extern const uint8_t rp__rpz_magic[RPZ_MAGIC_LEN]; /* 'R' 'P' 'Z' 0x89 '\r' '\n' 0x1a '\n' */
#define RPZ_VERSION_MAJOR 2
#define RPZ_VERSION_MINOR 0
#define RPZ_VERSION_MAJOR_MIN 1 /* 1.0 files are read and lifted (rp_sem_lift_v1) */
#define RPZ_HEADER_FIXED 38     /* bytes before host and source name */
#define RPZ_HEADER_MAX 4096     /* a longer header is corruption: ours is < 250 bytes */

/* Skippable-frame magics (zstd reserves 0x184D2A50..0x184D2A5F). */
#define RPZ_SKIP_FRAME 0x184D2A5Au /* a record frame's header, before its zstd frame */
#define RPZ_SKIP_INDEX 0x184D2A5Bu /* the index, last in the file */
#define RPZ_FHDR_LEN 32            /* whole frame header: 8 (skippable) + 24 payload */
#define RPZ_INDEX_ENTRY 32
#define RPZ_INDEX_FOOTER 24
#define RPZ_INDEX_MAGIC 0x495a5052u /* "RPZI" */

/* Limits.  Ours never come near them; beyond them a file is corrupt, not big. */
#define RPZ_FRAME_OPS_DEFAULT 65536u
#define RPZ_FRAME_OPS_MAX (256u * 1024u)
#define RPZ_CONTENT_MAX (64u * 1024u * 1024u) /* decompressed frame bytes */
#define RPZ_STRINGS_FLUSH (16u * 1024u * 1024u) /* writer: start a new frame past this */
/* Level 9: on client.txt 7 % larger than level 19 (104,961 vs 97,903 bytes) and five
 * times faster to write, which live capture and convert pay per op; `--level 19` is
 * there for archives. */
#define RPZ_LEVEL_DEFAULT 9

/* Columns of a frame, in stored order (§4). */
enum rpz_col {
	RPZ_COL_SHAPE,
	RPZ_COL_TIME,
	RPZ_COL_DUR,
	RPZ_COL_CLIENT,
	RPZ_COL_HANDLE,
	RPZ_COL_OFFSET,
	RPZ_COL_LENGTH,
	RPZ_COL_RESULT,
	RPZ_COL_PATH,
	RPZ_COL_PATH2,
	RPZ_NCOLS_V1, /* 1.0 has the ten columns above */
	RPZ_COL_HANDLE2 = RPZ_NCOLS_V1,
	RPZ_COL_OFFSET2,
	RPZ_COL_ATIME,
	RPZ_COL_MTIME,
	RPZ_NCOLS
};
#define RPZ_NCOLS_MAX 64 /* later minor versions may append columns */

/* Shape mask bits: which per-op columns hold a value for ops of this shape. */
enum rpz_mask {
	RPZ_M_TEND = 1u << 0,   /* t_end known: DUR holds t_end - t_start */
	RPZ_M_CLIENT = 1u << 1, /* client differs from the previous op's */
	RPZ_M_HANDLE = 1u << 2,
	RPZ_M_OFFSET = 1u << 3,
	RPZ_M_LENGTH = 1u << 4,
	RPZ_M_RESULT = 1u << 5,
	RPZ_M_PATH = 1u << 6,
	RPZ_M_PATH2 = 1u << 7,
	RPZ_M_ALL_V1 = 0xffu,
	RPZ_M_HANDLE2 = 1u << 8,
	RPZ_M_OFFSET2 = 1u << 9,
	RPZ_M_ATIME = 1u << 10,
	RPZ_M_MTIME = 1u << 11,
	RPZ_M_ALL = 0xfffu,
};

/* Categorical fields a 2.0 shape stores after its mask and field count, in this order (§4.1). */
enum rpz_shape_field {
	RPZ_SF_OP,
	RPZ_SF_FLAGS,
	RPZ_SF_STATUS_KIND,
	RPZ_SF_STATUS, /* zigzag32 */
	RPZ_SF_PROTO_STATUS,
	RPZ_SF_PROTO,
	RPZ_SF_WANT,
	RPZ_SF_DISP,
	RPZ_SF_OFLAGS,
	RPZ_SF_ATTRS,
	RPZ_SF_MODE,
	RPZ_SF_UID,
	RPZ_SF_GID,
	RPZ_SF_RAW_ACCESS,
	RPZ_SF_RAW_DISP,
	RPZ_SF_RAW_OPTIONS,
	RPZ_SF_RAW_LEVEL,
	RPZ_SF__COUNT
};
#define RPZ_SHAPE_FIELDS_MAX 64 /* a later minor version may append fields; more is corruption */

/* Per-handle offset prediction: a direct-mapped cache reset at each frame. */
#define RPZ_HCACHE_BITS 10

/* CRC-32C (Castagnoli), reflected, init and final xor 0xffffffff. */
uint32_t rp__crc32c(uint32_t crc, const void *buf, size_t len);

/* One frame's identity, as stored at the start of its content. */
typedef struct rpz_frame_id {
	uint64_t frame_no;
	uint64_t first_op;
	uint32_t n_ops;
	uint32_t first_string; /* id of the first string the frame defines */
	uint32_t n_strings;
} rpz_frame_id;

/* Frame encoder: reusable buffers. */
typedef struct rpz_enc rpz_enc;
rpz_enc *rp__rpz_enc_create(uint32_t max_ops);
void rp__rpz_enc_destroy(rpz_enc *e);
/*
 * Encode ops and the strings the frame defines (`strings`: each a varint
 * length then its bytes, `strings_len` bytes in all) into the frame content.
 * *out stays valid until the next call.  Returns 0 or a negative rp error.
 */
int rp__rpz_encode(rpz_enc *e, const rpz_frame_id *id, const rp_op *ops, const uint8_t *strings,
		   size_t strings_len, const uint8_t **out, size_t *out_len);

typedef struct rpz_hcache_entry {
	uint64_t handle;
	uint64_t next; /* offset + length of the handle's last positioned op */
} rpz_hcache_entry;

/*
 * Frame decoder: the shape dictionary and one cursor per column of the open
 * frame; ops are decoded one at a time straight into the caller's rp_op, so
 * the reader holds no per-op array.
 */
typedef struct rpz_dec {
	uint16_t major;  /* the file's format version: 1 is lifted op by op */
	uint32_t source; /* the trace's rp_source, for lifting 1.0 ops */
	void *shapes;
	size_t cap_shapes;
	uint64_t n_shapes;
	uint32_t strings_end; /* last string id defined by the frames opened on this pass */
	uint32_t n_ops, done; /* ops in the open frame, ops decoded from it */
	uint64_t t_first;     /* t_start of its first op */
	uint64_t t, h_prev;   /* running time and handle */
	uint64_t a_prev;      /* the last time set (atime or mtime) in the frame */
	uint32_t client;
	rp_cur col[RPZ_NCOLS];
	rpz_hcache_entry hc[1u << RPZ_HCACHE_BITS];
} rpz_dec;

/*
 * Open frame content: check that it is frame `expect_no` starting at op
 * `expect_first` whose strings follow d->strings_end, define its strings in
 * tab (ids already there are compared, not appended again: a rewind) and
 * read its shape dictionary.  Returns the op count or a negative rp error
 * with a detail (without the frame prefix, which the caller adds) in errbuf.
 */
int64_t rp__rpz_open(rpz_dec *d, const uint8_t *content, size_t len, uint64_t expect_no, uint64_t expect_first,
		     rp_strtab *tab, char *errbuf);
/*
 * Decode the next op of the open frame into *op: 1, 0 once every op is
 * decoded and every column used up exactly, or a negative rp error.
 */
int rp__rpz_next(rpz_dec *d, rp_op *op, char *errbuf);
void rp__rpz_dec_fini(rpz_dec *d);

#endif
