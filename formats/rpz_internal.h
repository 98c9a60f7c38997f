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
#define RPZ_VERSION_MINOR 1
#define RPZ_VERSION_MAJOR_MIN 1 /* 1.0 files are read and lifted (rp_sem_lift_v1) */
/* A 2.1 file whose frames use the pattern layer says major 3 in its header: 2.0 readers accept
 * any 2.x and would misread its frames; 3 makes them refuse it at their version check (§9). */
#define RPZ_VERSION_MAJOR_PATTERN 3
#define RPZ_VERSION_MAJOR_READ RPZ_VERSION_MAJOR_PATTERN
#define RPZ_HEADER_FIXED 38     /* bytes before host and source name */
#define RPZ_HEADER_MAX 4096     /* a longer header is corruption: ours is < 250 bytes */
/* 2.1 header fields after the source name (§2): required features, pattern window. */
#define RPZ_HEADER_V21 8
#define RPZ_FEAT_PATTERN 1u     /* frames may repeat ops of earlier frames (§4.4) */
#define RPZ_FEAT_SHIFT 2u       /* repeats may shift clients, strings, offsets; derived strings (§4.5) */
#define RPZ_FEAT_KNOWN (RPZ_FEAT_PATTERN | RPZ_FEAT_SHIFT)

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
/* With RPZ_FEAT_SHIFT, a frame that is one repeat may hold more (§4.5): consecutive frames of one
 * repeat are written as one, up to the window and at most this. */
#define RPZ_LONG_FRAME_OPS_MAX (4u * 1024u * 1024u)
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
	RPZ_NCOLS_V20, /* 2.0 has the fourteen columns above */
	RPZ_COL_REPEAT = RPZ_NCOLS_V20, /* 2.1: the pattern layer's repeat instructions (§4.4) */
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

/*
 * Pattern layer (§4.4): a frame may repeat runs of earlier ops, named by their
 * distance back in the op stream, up to `window` ops.  Both sides keep those
 * ops in a ring that grows to the window as the stream does.
 */
#define RPZ_WINDOW_DEFAULT (512u * 1024u)   /* ops: a pass of client.txt (458,344) fits */
#define RPZ_WINDOW_MAX (4u * 1024u * 1024u) /* ops (about 600 MiB of ring): more is corruption */
#define RPZ_TABLE_BITS_DEFAULT 20          /* writer: 2^20 match-table slots (8 MiB) */
#define RPZ_TABLE_BITS_START 12           /* writer: the table starts at 2^12 slots, doubling as ops come */
#define RPZ_TABLE_BITS_MIN 10
#define RPZ_TABLE_BITS_MAX 26
#define RPZ_MATCH_KEY 4  /* ops hashed together to find a repeat */
#define RPZ_MATCH_MIN 16 /* shorter repeats stay literal: zstd does as well on them */
#define RPZ_MATCH_PREFETCH 8 /* writer: the match table's slot of the op this far ahead is prefetched */
enum rpz_repeat_mode {
	RPZ_R_TIMES = 1u << 0,  /* the copied ops' times are coded in the time and duration columns */
	RPZ_R_HANDLE = 1u << 1, /* a handle shift follows */
	RPZ_R_ALL = 0x3u,
	/* with header feature RPZ_FEAT_SHIFT (§4.5) */
	RPZ_R_CLIENT = 1u << 2, /* a client shift follows */
	RPZ_R_PATHS = 1u << 3,  /* paths become their latest derived strings */
	RPZ_R_OFFSET = 1u << 4, /* an offset shift follows */
	RPZ_R_ALL_SHIFT = 0x1fu,
};
/* Derived strings (§4.5): a strings-section entry whose length varint is above RP_STR_MAX. */
#define RPZ_DERIVE_MIN 4                       /* writer: shorter runs of derivable strings stay literal */
#define RPZ_DERIVE_BYTES_MAX (64u * 1024u * 1024u) /* derived bytes a frame may define; writer: kept strings */
#define RPZ_DERIVE_STRINGS_MAX (1u << 20)     /* derived strings a frame may define */
#define RPZ_DERIVE_TABLE_BITS 16               /* writer: suffix hash -> latest string id */
#define RPZ_NEW_CLIENTS 4                      /* writer: recent first appearances of clients tried as sources */
#define RPZ_CLIENT_SET_BITS 12                 /* writer: clients remembered as seen (3/4 of 2^bits at most) */

typedef struct rpz_hist {
	rp_op *ops;
	uint64_t cap;    /* a power of two > window once full-grown; 0 before the first op */
	uint64_t window; /* 0: no pattern layer */
	uint64_t n;      /* ops pushed on this pass */
} rpz_hist;
/* Make room for op number h->n; RP_E_NOMEM. */
int rp__rpz_hist_grow(rpz_hist *h);
static inline int rp__rpz_hist_push(rpz_hist *h, const rp_op *o)
{
	if (h->n >= h->cap) {
		const int rc = rp__rpz_hist_grow(h);
		if (rc < 0)
			return rc;
	}
	h->ops[h->n++ & (h->cap - 1)] = *o;
	return 0;
}
static inline const rp_op *rp__rpz_hist_at(const rpz_hist *h, uint64_t abs)
{
	return &h->ops[abs & (h->cap - 1)];
}
void rp__rpz_hist_fini(rpz_hist *h);

/* The writer's repeat finder: a hash of RPZ_MATCH_KEY op signatures -> the latest op number. */
typedef struct rpz_match {
	uint64_t *slots; /* op number + 1, 0 empty */
	uint32_t bits, bits_max; /* 2^bits slots now, growing to 2^bits_max with the stream */
	uint64_t *sig;   /* per op of the frame being encoded: its key (RPZ_MATCH_KEY signatures hashed) */
	uint32_t cap_sig;
	uint64_t last_dist; /* the last repeat's distance: the first candidate for the next */
	/* distances that failed on a differing op (the table's, the last repeat's), and that op's number */
	uint64_t miss_dist[2], miss_until[2];
	/* shifted repeats (§4.5), only when `shift` is set */
	bool shift, last_shifted;
	const uint32_t *const *next; /* the latest string derived from each id (0: none), *n_next entries */
	const uint32_t *n_next;
	uint32_t *clients;           /* seen clients + 1, open addressing; NULL until the first */
	uint32_t n_clients, client_prev;
	uint64_t new_at[RPZ_NEW_CLIENTS]; /* op numbers where the latest new clients first appeared */
	uint32_t n_new;
} rpz_match;
/* A repeat found at frame position i. */
typedef struct rpz_repeat {
	uint32_t len;
	uint32_t mode; /* rpz_repeat_mode */
	uint64_t dist, dh, doff;
	uint32_t dc;
} rpz_repeat;
int rp__rpz_match_init(rpz_match *m, uint32_t bits);
void rp__rpz_match_fini(rpz_match *m);
/* Signatures of a frame's ops (before looking for repeats in it). */
int rp__rpz_match_frame(rpz_match *m, const rpz_hist *h, const rp_op *ops, uint32_t n);
/*
 * The longest repeat of ops[i..n) that starts at an earlier op in the window
 * (h holds ops before frame position i; ops[i] is op number h->n), with
 * t_prev the time of the op before ops[i] in this frame (0 at its start).
 * Returns its length (0: none of RPZ_MATCH_MIN ops) and records position i.
 */
uint32_t rp__rpz_match_find(rpz_match *m, const rpz_hist *h, const rp_op *ops, uint32_t i, uint32_t n,
			    rpz_repeat *out);

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
/* Turn the pattern layer on: window ops (0 = off), 2^table_bits match slots. */
int rp__rpz_enc_pattern(rpz_enc *e, uint32_t window, uint32_t table_bits);
/* Shifted repeats (§4.5) on or off; *next (*n_next entries) is the writer's derived-string map. */
void rp__rpz_enc_shift(rpz_enc *e, bool on, const uint32_t *const *next, const uint32_t *n_next);
/* Whether the last frame encoded used a shifted repeat (the header then needs RPZ_FEAT_SHIFT). */
bool rp__rpz_enc_shifted(const rpz_enc *e);
/* Whether the last frame encoded (n ops) was one repeat of copied times: *rp and its dt. */
bool rp__rpz_enc_single(const rpz_enc *e, uint32_t n, rpz_repeat *rp, uint64_t *dt);
/* Whether op number a (encoded) takes its source's time step under *rp, as a repeat going on would. */
bool rp__rpz_enc_continues(const rpz_enc *e, uint64_t a, const rpz_repeat *rp);
/* The content of a frame that is strings and one repeat (rp->len ops, first time step dt), in a
 * buffer of its own (valid until the next call). */
int rp__rpz_encode_repeat(rpz_enc *e, const rpz_frame_id *id, const uint8_t *strings, size_t strings_len,
			  const rpz_repeat *rp, uint64_t dt, const uint8_t **out, size_t *out_len);
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
	/* pattern layer: ops of this pass (hist.window = 0: none), the repeat being copied */
	rpz_hist hist;
	uint32_t lit_left;  /* literal ops before the next repeat */
	uint32_t copy_left; /* ops of the current repeat still to copy */
	uint32_t copy_mode;
	bool copy_first;
	uint64_t copy_dist, copy_dh, copy_dt, copy_do;
	uint32_t copy_dc;
	/* shifted repeats and derived strings (header feature RPZ_FEAT_SHIFT, §4.5) */
	bool shift;
	uint32_t *next; /* the latest string derived from each id (0: none) */
	uint32_t n_next, cap_next;
	char *sbuf;     /* a derived string being built */
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
/* A frame's strings section (literal and, with d->shift, derived entries) into tab. */
int rp__rpz_strings_decode(rpz_dec *d, rp_cur *sc, uint32_t first, uint32_t count, rp_strtab *tab, char *errbuf);

/* The writer's derived strings (§4.5): every string so far, and the latest string with each suffix. */
typedef struct rpz_derive {
	rp_strtab *tab; /* NULL: off (past RPZ_DERIVE_BYTES_MAX of strings, or out of memory) */
	size_t bytes;
	bool any; /* a run was derived: later runs may be of one string */
	uint32_t *next; /* the latest string derived from each id (0: none), as the reader's */
	uint32_t n_next, cap_next;
	uint32_t *suf[2]; /* hash of the text after 1, 2 path components -> the latest such id */
	uint8_t *out;     /* the section built */
	size_t out_len, out_cap;
} rpz_derive;
int rp__rpz_derive_init(rpz_derive *v);
void rp__rpz_derive_fini(rpz_derive *v);
/* The next string id's text (ids in order). */
int rp__rpz_derive_add(rpz_derive *v, const char *s, uint32_t len);
/* The strings section of ids first .. first + count - 1 with derived runs: *derived false leaves
 * *out alone (no run: the literal section, as without derivation). */
int rp__rpz_derive_section(rpz_derive *v, uint32_t first, uint32_t count, const uint8_t **out, size_t *out_len,
			   bool *derived);

#endif
