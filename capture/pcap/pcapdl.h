/*
 * libpcap, opened when a command first needs it (pcapdl.c): the functions of
 * <pcap/pcap.h> this code calls, taken by dlsym into one table, and their
 * names turned into the table's entries, so the callers read as plain
 * libpcap.  Linking libpcap would load it and its dozen libraries (dbus,
 * systemd, gcrypt...) at every start of reprise: 1.5 ms of CPU each time,
 * a sixth of `reprise capture -- true` (docs/BENCHMARKS.md).
 */
#ifndef REPRISE_CAPTURE_PCAPDL_H
#define REPRISE_CAPTURE_PCAPDL_H

#include <pcap/pcap.h>

#define RP_PCAP_FUNCS(X)                                                                                      \
	X(pcap_activate)                                                                                      \
	X(pcap_breakloop)                                                                                     \
	X(pcap_close)                                                                                         \
	X(pcap_compile)                                                                                       \
	X(pcap_create)                                                                                        \
	X(pcap_datalink)                                                                                      \
	X(pcap_dispatch)                                                                                      \
	X(pcap_fopen_offline_with_tstamp_precision)                                                           \
	X(pcap_freecode)                                                                                      \
	X(pcap_get_selectable_fd)                                                                             \
	X(pcap_get_tstamp_precision)                                                                          \
	X(pcap_geterr)                                                                                        \
	X(pcap_next_ex)                                                                                       \
	X(pcap_set_buffer_size)                                                                               \
	X(pcap_set_immediate_mode)                                                                            \
	X(pcap_set_promisc)                                                                                   \
	X(pcap_set_snaplen)                                                                                   \
	X(pcap_set_timeout)                                                                                   \
	X(pcap_set_tstamp_precision)                                                                          \
	X(pcap_setfilter)                                                                                     \
	X(pcap_setnonblock)                                                                                   \
	X(pcap_stats)                                                                                         \
	X(pcap_statustostr)

typedef struct rp_pcap_api {
#define RP_PCAP_FIELD(f) __typeof__(f) *f;
	RP_PCAP_FUNCS(RP_PCAP_FIELD)
#undef RP_PCAP_FIELD
} rp_pcap_api;

/*
 * The table, filled once by rp__pcap_load: the one process-wide state of
 * this layer, as the library it stands for is process-wide.
 */
extern rp_pcap_api rp__pcap;

/* Open libpcap and fill rp__pcap (once; later calls return what the first did): 0, or RP_E_UNSUPPORTED with why. */
int rp__pcap_load(char *errbuf);

/* From here on, the libpcap names are the table's (except in pcapdl.c, which fills it). */
#ifndef RP_PCAPDL_IMPL
#define pcap_activate rp__pcap.pcap_activate
#define pcap_breakloop rp__pcap.pcap_breakloop
#define pcap_close rp__pcap.pcap_close
#define pcap_compile rp__pcap.pcap_compile
#define pcap_create rp__pcap.pcap_create
#define pcap_datalink rp__pcap.pcap_datalink
#define pcap_dispatch rp__pcap.pcap_dispatch
#define pcap_fopen_offline_with_tstamp_precision rp__pcap.pcap_fopen_offline_with_tstamp_precision
#define pcap_freecode rp__pcap.pcap_freecode
#define pcap_get_selectable_fd rp__pcap.pcap_get_selectable_fd
#define pcap_get_tstamp_precision rp__pcap.pcap_get_tstamp_precision
#define pcap_geterr rp__pcap.pcap_geterr
#define pcap_next_ex rp__pcap.pcap_next_ex
#define pcap_set_buffer_size rp__pcap.pcap_set_buffer_size
#define pcap_set_immediate_mode rp__pcap.pcap_set_immediate_mode
#define pcap_set_promisc rp__pcap.pcap_set_promisc
#define pcap_set_snaplen rp__pcap.pcap_set_snaplen
#define pcap_set_timeout rp__pcap.pcap_set_timeout
#define pcap_set_tstamp_precision rp__pcap.pcap_set_tstamp_precision
#define pcap_setfilter rp__pcap.pcap_setfilter
#define pcap_setnonblock rp__pcap.pcap_setnonblock
#define pcap_stats rp__pcap.pcap_stats
#define pcap_statustostr rp__pcap.pcap_statustostr
#endif

#endif
