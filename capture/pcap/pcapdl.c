/* libpcap opened on first use (pcapdl.h): the library meson found, by its soname. */
#include <pthread.h>
#include <string.h>

#define RP_PCAPDL_IMPL
#include "capture/pcap/pcapdl.h"
#include "formats/dynlib.h"
#include "formats/error.h"

rp_pcap_api rp__pcap;

#define RP_PCAP_NAME(f) #f,
static const char *const names[] = { RP_PCAP_FUNCS(RP_PCAP_NAME) };
#undef RP_PCAP_NAME
#define N_FUNCS (sizeof(names) / sizeof(names[0]))

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[RP_ERRBUF_SIZE]; /* the load's failure, "" when it worked: written inside once only */

static void load(void)
{
	void *syms[N_FUNCS];
	if (rp_dynlib_open(RP_PCAP_SONAME, names, syms, N_FUNCS, why, sizeof(why)) < 0)
		return;
	/* each void * into its typed pointer by memcpy, which ISO C allows where a cast is not */
	size_t i = 0;
#define RP_PCAP_SET(f) memcpy(&rp__pcap.f, &syms[i++], sizeof(syms[0]));
	RP_PCAP_FUNCS(RP_PCAP_SET)
#undef RP_PCAP_SET
}

int rp__pcap_load(char *errbuf)
{
	pthread_once(&once, load);
	return why[0] ? rp_fail(errbuf, RP_E_UNSUPPORTED, "%s", why) : 0;
}
