/* libpcap opened on first use (pcapdl.h): the library meson found, by its soname. */
#define RP_PCAPDL_IMPL
#include "capture/pcap/pcapdl.h"

RP_DYNLIB_DEFINE(rp_pcap_api, rp__pcap, RP_PCAP_FUNCS, RP_PCAP_SONAME, rp__pcap_load)
