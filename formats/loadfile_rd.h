/* dbench loadfile reader state, shared by the line parser and the control-flow reader (docs/loadfile.md). */
#ifndef REPRISE_FORMATS_LOADFILE_RD_H
#define REPRISE_FORMATS_LOADFILE_RD_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/loadfile_cmds.h"
#include "formats/reader.h"

/* A line longer than this is not a loadfile line (dbench itself stops at 1 KiB). */
#define RP__LF_LINE_MAX (256u * 1024u)
/* How much of a file the reader holds at once: the reader's memory does not grow with the file. */
#define RP__LF_WINDOW (1024u * 1024u)
/* LOOPs nested deeper than this are a mistake, not a workload. */
#define RP__LF_LOOP_DEPTH 64
/*
 * Lines that LOOP rounds after the first and REPEAT runs after the first may
 * read again in one pass (2^24).  A few bytes of LOOP or REPEAT can ask for
 * more ops than any capture holds; every consumer pays per line (convert
 * --prepare holds each op in memory, 96 bytes each: at most 1.5 GiB), so
 * an expansion past this is refused when its first round ends, before it runs.
 */
#define RP__LF_EXPAND_MAX (1ull << 24)
/* RANDOMSTRING slots $0..$9, each up to 255 bytes (as in dbench). */
#define RP__LF_RND_SLOTS 10
#define RP__LF_RND_MAX 255

typedef struct rp__lf_frame {
	uint64_t pos, line; /* where the loop body starts */
	uint64_t left;      /* iterations still to run, this one included */
	uint64_t raw_first; /* raw time of the body's first timed line */
	bool have_first;
	uint64_t loop_line; /* line of the LOOP itself, for messages */
	uint64_t work_start; /* r->work when this round began */
	bool first_round;   /* the round running is the first */
	bool yielded;       /* this round produced an op (or changed RANDOMSTRING state) */
} rp__lf_frame;

/* One classified line. */
enum { RP__LF_L_BLANK = 0, RP__LF_L_OP, RP__LF_L_CTL };

typedef struct rp__lf_line {
	int kind;       /* RP__LF_L_* */
	int word;       /* control word (rp__lf_ctl) for RP__LF_L_CTL */
	uint64_t num;   /* control word's number */
	bool has_time;
	uint64_t time;  /* raw time in ns */
	rp_op op;       /* for RP__LF_L_OP; t_start is the caller's */
} rp__lf_line;

/* Status words already looked up (a loadfile uses a handful). */
#define RP__LF_STATUS_CACHE 8
typedef struct rp__lf_scache {
	char word[48];
	uint8_t n, kind;
	uint32_t code;
	int32_t canon;
} rp__lf_scache;

typedef struct rp__lf_reader {
	rp_reader base;
	char *name; /* for messages */

	/* the source: a memory buffer, or a file read through a window */
	int fd;
	const char *mem;
	uint64_t size;
	char *buf;
	const char *win;
	uint64_t win_off;
	size_t win_len;

	uint64_t start; /* offset of the first line: 3 past a UTF-8 byte-order mark */
	uint64_t pos;  /* offset of the next line */
	uint64_t line; /* its line number (1-based) */
	uint64_t cur_line;

	rp__lf_dict dict;
	uint8_t dialect; /* RP__LF_SMB or RP__LF_NFS3: for Deltree/Sleep statuses */
	bool timed;

	/* time base: effective time = raw + t_base */
	int64_t t_base;
	uint64_t t_last; /* last effective time */

	rp__lf_frame loops[RP__LF_LOOP_DEPTH];
	unsigned depth;
	uint64_t work;     /* lines read in this pass, each round and run counted */
	uint64_t reread;   /* of them, lines read again (LOOP rounds, REPEAT runs after the first) */
	uint64_t hiwater;  /* the furthest offset read in this pass: a line before it is a re-read */
	bool limit_fatal;  /* the expansion bound was hit: not a bad line that --lenient may skip */

	uint64_t repeat_pending; /* from REPEAT n, for the next operation line */
	bool have_repeat_pending;
	uint64_t repeat_left; /* further runs of the repeated line */
	uint64_t repeat_pos, repeat_line;

	uint64_t prng;
	uint64_t prev[RP__LF_ARGS_MAX]; /* the previous operation's numbers, for '+' */
	char rnd[RP__LF_RND_SLOTS][RP__LF_RND_MAX + 1];
	uint16_t rnd_len[RP__LF_RND_SLOTS];
	bool have_rnd;

	rp__lf_scache scache[RP__LF_STATUS_CACHE];
	unsigned scache_next;

	char *scratch;      /* RP__LF_LINE_MAX bytes: paths with '\' turned into '/', $n substitutions */
	char *subst;        /* RP__LF_LINE_MAX bytes */
	bool failed;        /* a fatal error was returned; next() repeats it */
	int fail_rc;
} rp__lf_reader;

#define RP__LF_PRNG_SEED 0x5265707269736521ull /* "Reprise!" */

/* Parse one line (without its newline) into *out; 0, or a negative rp error with the message in r->base.errbuf. */
int rp__lf_parse_line(rp__lf_reader *r, const char *s, size_t n, rp__lf_line *out);
/* A 64-bit value from the reader's PRNG (splitmix64): deterministic from the seed. */
uint64_t rp__lf_random(rp__lf_reader *r);
/* Fail with "name:line: message". */
int rp__lf_fail(rp__lf_reader *r, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
