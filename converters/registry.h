/*
 * The converters' registry: producers (an input file -> ops into a sink) and
 * consumers (a sink that writes a stored form), each found by name, by
 * sniffing the input's first bytes, or by the output's name.  `reprise
 * convert` (and every command that reads an input) dispatches through it.
 * Packet capture is a producer the CLI adds itself (converters/ never
 * includes capture/): it passes such entries as `extra`.
 */
#ifndef REPRISE_CONVERTERS_REGISTRY_H
#define REPRISE_CONVERTERS_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "converters/loadfile.h"
#include "formats/reader.h"
#include "formats/sink.h"

typedef struct rp_conv_in_opts {
	bool lenient;        /* loadfiles, text, strace logs: skip bad lines, count them */
	bool filter_client;  /* keep only this client's ops */
	uint32_t client;
	uint64_t seek_ns;    /* .rpz: ops before this time (ns) are not wanted: start at the frame the index gives for it */
	const void *extra;   /* options of an `extra` producer (the CLI's pcap: capture options) */
} rp_conv_in_opts;

/* What a run says besides its ops; zeroed by the caller. */
typedef struct rp_conv_in_report {
	const rp_reader *reader; /* set while a reader pumps: its in_bytes/in_size draw progress */
	uint64_t skipped;        /* lenient: bad lines skipped */
	bool cut;                /* the input was cut (what was read stands, later ops are missing) */
	uint64_t seek_skipped;   /* seek_ns: ops of the frames passed over with the index, undecoded */
	bool seek_fallback;      /* seek_ns: no index, or not in time order: read from the start */
	char note[RP_ERRBUF_SIZE]; /* a warning, "" if none */
	char counts[1024];         /* what the producer counted, one line for the user (strace), "" if nothing */
} rp_conv_in_report;

typedef struct rp_conv_producer {
	const char *name; /* "rpz", "loadfile", "pcap" */
	const char *what; /* for messages and help */
	bool (*sniff)(const void *head, size_t len, const char *path);
	/* Everything at path into sink (meta, strings, ops, finish): 0 or a negative rp error (detail in errbuf). */
	int (*run)(const char *path, rp_sink *sink, const rp_conv_in_opts *opts, rp_conv_in_report *rep,
		   char *errbuf);
	bool dir; /* its input is a directory (a CTF trace): sniff gets no bytes, only the path */
} rp_conv_producer;

/*
 * The producer for an input whose first bytes are head[0..len): the first
 * built-in one that claims it, else the first of extra; NULL if none does
 * (rp_conv_unknown_input says why).
 */
const rp_conv_producer *rp_conv_producer_sniff(const void *head, size_t len, const char *path,
					       const rp_conv_producer *const *extra, size_t n_extra);
/* The built-in producer that claims the directory path (a CTF trace); NULL if none. */
const rp_conv_producer *rp_conv_producer_sniff_dir(const char *path);
/* By name among the built-ins; NULL if none. */
const rp_conv_producer *rp_conv_producer_find(const char *name);
/* The error for an input no producer claims (RP_E_UNSUPPORTED for a known form without a converter, else RP_E_NOTTRACE). */
int rp_conv_unknown_input(const void *head, size_t len, const char *path, char *errbuf);

typedef struct rp_conv_out_opts {
	int rpz_level;        /* rpz: zstd level, 0 = the writer's default */
	/* rpz: the pattern layer's window and table bits (0: the writer's defaults), or none */
	uint32_t rpz_window, rpz_table_bits;
	bool rpz_no_pattern;
	rp_conv_lf_opts lf;   /* loadfile: dialect, timestamps, policy */
	rp_conv_lf_stats *lf_stats; /* loadfile: if not NULL, close fills it (what was merged or written as comments) */
	/*
	 * If not NULL, close writes what the form wrote and left out there, lines
	 * for the user ("" when it has nothing to say: rpz; the loadfile's is lf_stats).
	 */
	char *summary;
	size_t summary_size;
	/* fio-job: the directory its read_iolog= names the iolog in, as given; NULL: the name alone (fio's working directory) */
	const char *fio_iolog_dir;
} rp_conv_out_opts;

typedef struct rp_conv_out rp_conv_out;

typedef struct rp_conv_consumer {
	const char *name;               /* "rpz", "loadfile", "fio", "fio-job" (what --format takes) */
	const char *const *suffixes;    /* output names it is chosen for, NULL-terminated ("-" is standard output) */
	/* A writer on f (name for messages); its sink in *sink. */
	int (*open)(rp_conv_out **out, FILE *f, const char *name, const rp_conv_out_opts *opts, rp_sink **sink,
		    char *errbuf);
	/*
	 * Finish and free (f stays open).  cut: the input was cut; a form that
	 * cannot record it says so in note (RP_ERRBUF_SIZE, "" if recorded).
	 */
	int (*close)(rp_conv_out *out, bool cut, char *note, char *errbuf);
} rp_conv_consumer;

/* The consumer named to, or (to NULL) the one whose suffix path has; NULL if none. */
const rp_conv_consumer *rp_conv_consumer_for(const char *to, const char *path);
const rp_conv_consumer *rp_conv_consumer_find(const char *name);

#endif
