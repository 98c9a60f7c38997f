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

#include "formats/dynlib.h"

#define RP_PCAP_FUNCS(X, T)                                                                                      \
	X(T, pcap_activate)                                                                                      \
	X(T, pcap_breakloop)                                                                                     \
	X(T, pcap_close)                                                                                         \
	X(T, pcap_compile)                                                                                       \
	X(T, pcap_create)                                                                                        \
	X(T, pcap_datalink)                                                                                      \
	X(T, pcap_dispatch)                                                                                      \
	X(T, pcap_fopen_offline_with_tstamp_precision)                                                           \
	X(T, pcap_freecode)                                                                                      \
	X(T, pcap_get_selectable_fd)                                                                             \
	X(T, pcap_get_tstamp_precision)                                                                          \
	X(T, pcap_geterr)                                                                                        \
	X(T, pcap_next_ex)                                                                                       \
	X(T, pcap_set_buffer_size)                                                                               \
	X(T, pcap_set_immediate_mode)                                                                            \
	X(T, pcap_set_promisc)                                                                                   \
	X(T, pcap_set_snaplen)                                                                                   \
	X(T, pcap_set_timeout)                                                                                   \
	X(T, pcap_set_tstamp_precision)                                                                          \
	X(T, pcap_setfilter)                                                                                     \
	X(T, pcap_setnonblock)                                                                                   \
	X(T, pcap_stats)                                                                                         \
	X(T, pcap_statustostr)

typedef struct rp_pcap_api {
	RP_PCAP_FUNCS(RP_DYNLIB_FIELD, _)
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
