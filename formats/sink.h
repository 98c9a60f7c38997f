/* Sinks: where producers (loadfile, pcap, syscall, strace decoders) put op records. */
#ifndef REPRISE_FORMATS_SINK_H
#define REPRISE_FORMATS_SINK_H

#include <stdint.h>

#include "formats/error.h"
#include "formats/op.h"
#include "formats/strtab.h"

/* Where a trace came from (rp_trace_meta.source); stored in .rpz headers. */
typedef enum rp_source {
	RP_SRC_UNKNOWN = 0,
	RP_SRC_LOADFILE_SMB = 1, /* dbench SMB-dialect loadfile */
	RP_SRC_LOADFILE_NFS = 2, /* dbench NFS-dialect loadfile */
	RP_SRC_PCAP_SMB = 3,
	RP_SRC_PCAP_NFS = 4,
	RP_SRC_PCAP = 5, /* packets of several protocols */
	RP_SRC_SYSCALL = 6,
	RP_SRC_STRACE = 7,
	RP_SRC_CTF = 8,
	RP_SRC_SYNTHETIC = 9,
	RP_SRC_NFSDUMP = 10, /* nfsdump text (the Harvard SOS NFS traces) */
	RP_SRC_CSV = 11,     /* block or inode I/O traces as CSV (converters/csv.c) */
	RP_SRC_MIXED = 12,   /* a merge of traces of different kinds (packets and syscalls, loadfiles...) */
} rp_source;

/* rp_trace_meta.flags */
enum rp_meta_flag {
	RP_META_ANONYMIZED = 1u << 0, /* paths were anonymised */
	RP_META_TIMED = 1u << 1,      /* t_start values are real times */
	RP_META_TRUNCATED = 1u << 2,  /* producer stopped early (drops, cut input) */
	RP_META_UNTRACED = 1u << 3,   /* a syscall capture missed processes (they ran untraced): their ops are absent */
};

#define RP_META_HOST_MAX 64
#define RP_META_NAME_MAX 128

typedef struct rp_trace_meta {
	uint32_t source; /* rp_source */
	uint32_t flags;  /* rp_meta_flag */
	int64_t capture_start_ns; /* Unix time of t=0 in ns; 0 if unknown */
	char host[RP_META_HOST_MAX];        /* where it was captured; "" if unknown */
	char source_name[RP_META_NAME_MAX]; /* input file or interface; "" if none */
} rp_trace_meta;

const char *rp_source_name(uint32_t source); /* "loadfile-smb", "pcap-nfs", ... */

/*
 * A sink receives, in order: meta once, then strings and ops interleaved.  A
 * string is always defined before the first op that names it; ids count up
 * from 1 without gaps.  Every callback returns 0 or a negative rp error with
 * a detail in errbuf.  finish() flushes; destroying is the implementation's.
 */
typedef struct rp_sink rp_sink;
struct rp_sink {
	int (*meta)(rp_sink *s, const rp_trace_meta *meta);
	int (*string)(rp_sink *s, uint32_t id, const char *str, uint32_t len);
	int (*op)(rp_sink *s, const rp_op *op);
	int (*finish)(rp_sink *s);
	char errbuf[RP_ERRBUF_SIZE];
};

/*
 * Intern str in tab and, if it is new, define it on the sink.  Returns the id
 * (>= 1) or a negative rp error.  Producers own their string table.
 */
int64_t rp_sink_intern(rp_sink *s, rp_strtab *tab, const char *str, uint32_t len);

/*
 * An in-memory sink for tests and small tools: keeps everything.
 */
typedef struct rp_memsink {
	rp_sink base;
	rp_trace_meta meta;
	rp_strtab *strings; /* id -> bytes, same ids as defined */
	rp_op *ops;
	size_t n_ops, cap_ops;
	size_t max_ops; /* 0, or an op past this many fails (RP_E_LIMIT): what an input may make it hold */
	int finished;
} rp_memsink;

int rp_memsink_init(rp_memsink *m);
void rp_memsink_fini(rp_memsink *m);
/* rp_string_fn over a memsink's strings. */
const char *rp_memsink_string(void *memsink, uint32_t id, uint32_t *len);

#endif
