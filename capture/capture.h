/* Packet capture: pcap/pcapng files and live interfaces -> op records (SMB1/2/3, NFSv3/v4). */
#ifndef REPRISE_CAPTURE_H
#define REPRISE_CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/sink.h"

/* How ops are grouped into clients. */
typedef enum rp_client_key {
	RP_CLIENT_ADDR_PRINCIPAL = 0, /* address + uid (NFS AUTH_SYS) or SMB session: the default */
	RP_CLIENT_ADDR,               /* client address only */
	RP_CLIENT_CONN,               /* one client per transport connection */
} rp_client_key;

/*
 * SMB3 session keys for decrypting transform-header traffic (capture/smb/smb3_keys.c,
 * docs/capture.md "Encrypted SMB3").  One entry per session: its id as its 8
 * bytes appear on the wire, the session key (16 bytes, or the 32-byte full
 * session key for AES-256), and optionally the server-to-client and
 * client-to-server keys (16 or 32 bytes each), in tshark's smb2_seskey_list order.
 */
typedef struct rp_smb_keys rp_smb_keys;
/* More sessions than this in one key list is a mistake, not a capture (every key is looked up per message). */
#define RP_SMB_KEYS_MAX 4096
/* A key line longer than this cannot be SESSIONID:KEY:S2C:C2S in hex. */
#define RP_SMB_KEY_LINE_MAX 256
/* A key file larger than this is not one: RP_SMB_KEYS_MAX full lines (1.05 MB) fit twice over, comments and all. */
#define RP_SMB_KEYS_FILE_MAX (2 * 1024 * 1024)

int rp_smb_keys_create(rp_smb_keys **out);
void rp_smb_keys_destroy(rp_smb_keys *keys); /* NULL is a no-op */
/* Add "SESSIONID:KEY[:S2C:C2S]" (hex; surrounding blanks ignored).  Errors say what is wrong, never the key. */
int rp_smb_keys_add(rp_smb_keys *keys, const char *spec, char *errbuf);
/* Add every line of a file: one spec each; blank lines and '#' comments skipped; errors name file:line.
 * A NUL byte anywhere, or more than RP_SMB_KEYS_FILE_MAX bytes, is an error. */
int rp_smb_keys_load(rp_smb_keys *keys, const char *path, char *errbuf);
size_t rp_smb_keys_count(const rp_smb_keys *keys);

typedef struct rp_capture_opts {
	rp_client_key client_key;
	const rp_smb_keys *smb_keys; /* SMB3 decryption keys (not owned; outlives the decode), or NULL */
	uint64_t match_timeout_ns; /* a call without a reply for this long (capture time) is unmatched; 0 = 30 s */
	uint32_t max_flows;        /* live flow state bound; 0 = 65536 */
} rp_capture_opts;

/* Outcomes counted during a decode; the conversion summary prints them. */
#define RP_CAP_UNSUPPORTED_MAX 64
/* Kinds of other traffic named in the summary ("TCP port 80"); frames of further kinds are counted together. */
#define RP_CAP_OTHER_MAX 8
typedef struct rp_capture_stats {
	uint64_t frames;      /* packets read */
	uint64_t bytes;       /* captured bytes read */
	uint64_t ops;         /* op records emitted */
	uint64_t messages;    /* protocol messages (RPC calls/replies, SMB PDUs) decoded */
	uint64_t truncated;   /* messages cut short (snaplen, gaps) */
	uint64_t invalid;     /* messages that break their protocol's rules */
	uint64_t unsupported; /* messages of a known protocol that reprise does not map (by name below) */
	uint64_t unmatched;   /* calls without replies and replies without calls */
	uint64_t encrypted;   /* SMB3 transform messages without a key for their session: undecodable */
	uint64_t decrypted;   /* SMB3 transform messages decrypted with a key given (then decoded as any) */
	uint64_t decrypt_failed; /* SMB3 transform messages whose key did not verify (wrong key or corrupt) */
	uint64_t gaps;        /* TCP sequence gaps (lost segments) */
	uint64_t ignored;     /* frames of other protocols */
	uint64_t kernel_drops; /* live capture: packets the kernel dropped */
	uint64_t segments_dropped; /* TCP segments too far ahead of the stream to hold (their bytes became gaps) */
	uint64_t tcp_queue_full;   /* TCP holes given up because out-of-order segments reached their memory bound */
	uint64_t frags_dropped;    /* IP datagrams whose fragments never all came (timeout, bounds, conflicts) */
	uint64_t flows_evicted;    /* flows dropped early because max_flows were live */
	bool file_cut;             /* the capture file ends inside a packet record (tcpdump: "truncated dump file") */
	bool live;                 /* a live capture: kernel_drops was asked of the kernel (0 is a figure) */
	/*
	 * Frames that were no NFS or SMB (a flow neither protocol's, or not TCP
	 * or UDP at all), by kind in the order first seen, known once the decode
	 * ended: "no NFS or SMB message ... wrong port?" names them.
	 */
	uint64_t other_frames;     /* all of them */
	uint64_t other_beyond;     /* those of kinds past the table's RP_CAP_OTHER_MAX */
	uint32_t n_other;
	struct {
		char name[24];
		uint64_t frames;
	} other_by_kind[RP_CAP_OTHER_MAX];
	uint32_t n_unsupported;
	struct {
		char name[48];
		uint64_t count;
	} unsupported_by_name[RP_CAP_UNSUPPORTED_MAX];
} rp_capture_stats;

/* Print the summary ("frames 1200, ops 340, truncated 0, ...") on f. */
void rp_capture_stats_print(const rp_capture_stats *st, FILE *f);
/* True when anything was truncated, invalid, unsupported, unmatched, encrypted or failed to decrypt, or bytes were lost
 * (TCP gaps, kernel drops), or frames came with no NFS or SMB message at all: the trace may lack ops the workload had. */
bool rp_capture_stats_lossy(const rp_capture_stats *st);
/* Frames were read but none held an NFS or SMB message (other protocols, or the wrong ports captured). */
bool rp_capture_stats_no_file_traffic(const rp_capture_stats *st);

/*
 * Link types rp_capture_packet takes: libpcap's DLT_ numbers (as on Linux),
 * spelled here so that the decoders build without libpcap's headers
 * (pcaplib.c checks them against libpcap's where it is built).
 */
typedef enum rp_dlt {
	RP_DLT_NULL = 0,          /* BSD loopback, family in host order */
	RP_DLT_EN10MB = 1,        /* Ethernet */
	RP_DLT_RAW = 12,          /* raw IP (LINKTYPE_RAW 101 in files) */
	RP_DLT_LOOP = 108,        /* OpenBSD loopback, family in network order */
	RP_DLT_LINUX_SLL = 113,   /* Linux cooked v1 */
	RP_DLT_IPV4 = 228,
	RP_DLT_IPV6 = 229,
	RP_DLT_LINUX_SLL2 = 276,  /* Linux cooked v2 */
} rp_dlt;

typedef struct rp_capture rp_capture;

/* A decoder over packets you feed it (fuzzers, tests, the file and live paths). */
int rp_capture_create(rp_capture **out, rp_sink *sink, const rp_capture_opts *opts, char *errbuf);
/* Feed one packet: link type (rp_dlt), Unix time in ns, captured bytes and original length. */
int rp_capture_packet(rp_capture *cap, int dlt, uint64_t ts_ns, const uint8_t *data, uint32_t caplen,
		      uint32_t wirelen);
/* Flush pending calls as unmatched, finish the sink; stats are final after this. */
int rp_capture_finish(rp_capture *cap);
const rp_capture_stats *rp_capture_get_stats(const rp_capture *cap);
const char *rp_capture_error(const rp_capture *cap);
/* Name the input (file or interface) and host for the trace's metadata; either may be NULL. */
void rp_capture_set_source(rp_capture *cap, const char *source, const char *host);
void rp_capture_destroy(rp_capture *cap); /* NULL is a no-op */

/* Decode a pcap or pcapng file into sink. */
int rp_capture_file(const char *path, rp_sink *sink, const rp_capture_opts *opts, rp_capture_stats *stats,
		    char *errbuf);

typedef struct rp_live_opts {
	const char *iface;
	const char *filter;     /* BPF; NULL = NFS and SMB ports */
	double duration_s;      /* 0 = until stopped */
	int buffer_bytes;       /* 0 = 64 MiB */
	volatile sig_atomic_t *stop; /* set by the caller's signal handler, with rp_capture_live_break() */
	/*
	 * Optional, on the capturing thread: once the interface is open and
	 * filtering (started, all counters 0), then about once a second.  A
	 * capture that fails before the first call failed to set up.
	 */
	void (*progress)(void *ctx, const rp_capture_stats *st);
	void *progress_ctx;
	/* Out: the interface could not be opened for lack of privilege (CAP_NET_RAW). */
	bool denied;
} rp_live_opts;

/*
 * The BPF filter a live capture uses when rp_live_opts.filter is NULL.
 * Dispatch is by content, so this only keeps unrelated traffic out of the
 * kernel buffer: NFS (2049), portmapper (111), mountd's usual ports (20048
 * on Linux, 635 on some servers), SMB direct (445) and over NetBIOS (139).
 */
#define RP_CAPTURE_DEFAULT_FILTER "port 2049 or port 111 or port 20048 or port 635 or port 445 or port 139"

/* Capture live from an interface until duration, *stop or an error. */
int rp_capture_live(rp_live_opts *live, rp_sink *sink, const rp_capture_opts *opts,
		    rp_capture_stats *stats, char *errbuf);
/* Async-signal-safe: stop the live capture that is running (pcap_breakloop). */
void rp_capture_live_break(void);

#endif
