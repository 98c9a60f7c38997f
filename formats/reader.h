/* One pull API over every stored trace form (.rpz, dbench loadfiles). */
#ifndef REPRISE_FORMATS_READER_H
#define REPRISE_FORMATS_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/error.h"
#include "formats/op.h"
#include "formats/sink.h"

typedef enum rp_format {
	RP_FMT_UNKNOWN = 0,
	RP_FMT_RPZ,
	RP_FMT_LOADFILE_SMB,
	RP_FMT_LOADFILE_NFS,
	RP_FMT_PCAP, /* recognised here, decoded by capture/ */
	RP_FMT_STRACE,
	RP_FMT_TEXT, /* reprise cat's text form, read by converters/ */
	RP_FMT_NFSDUMP, /* nfsdump text (the Harvard NFS traces), decoded by capture/ */
	RP_FMT_GZIP,    /* a gzip stream: capture/ reads gzip'd nfsdump text */
} rp_format;

/* Guess a format from the first bytes of a file (and its name, if given). */
rp_format rp_format_sniff(const void *head, size_t len, const char *name);
const char *rp_format_name(rp_format f);

typedef struct rp_read_opts {
	bool lenient;      /* loadfiles: skip bad lines, count them */
	uint32_t client;   /* keep only this client's ops when filter_client */
	bool filter_client;
} rp_read_opts;

typedef struct rp_reader rp_reader;

/* The operations a reader implementation provides. */
typedef struct rp_reader_ops {
	int (*next)(rp_reader *r, rp_op *op);
	int (*rewind)(rp_reader *r);
	void (*close)(rp_reader *r);
} rp_reader_ops;

/* Common reader state; implementations embed it first. */
struct rp_reader {
	const rp_reader_ops *ops;
	rp_trace_meta meta;
	rp_strtab *strings; /* strings defined so far; ids as in the trace */
	rp_read_opts opts;
	uint64_t skipped;   /* lenient: bad lines skipped */
	uint64_t in_bytes;  /* progress: input bytes consumed so far (implementations keep it roughly current) */
	uint64_t in_size;   /* progress: input size in bytes; 0 if unknown */
	char note[RP_ERRBUF_SIZE];   /* non-fatal: "cut at byte N after frame K" */
	char errbuf[RP_ERRBUF_SIZE]; /* detail of the last error */
};

/* Open path as whatever trace form it is (.rpz or loadfile; sniffed). */
int rp_reader_open(rp_reader **out, const char *path, const rp_read_opts *opts, char *errbuf);
/* 1 and *op filled, 0 at the end, or a negative rp error (detail in r->errbuf). */
int rp_reader_next(rp_reader *r, rp_op *op);
/* Start again from the first op (strings stay defined). */
int rp_reader_rewind(rp_reader *r);
void rp_reader_close(rp_reader *r); /* NULL is a no-op */
const char *rp_reader_string(void *reader, uint32_t id, uint32_t *len); /* an rp_string_fn */

/* Read everything from r into sink (meta, strings as first used, ops, finish). */
int rp_reader_pump(rp_reader *r, rp_sink *sink, char *errbuf);

#endif
