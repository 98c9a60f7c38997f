/* libpcap opened on first use (pcapdl.h): dlopen of the library meson linked against, by its soname. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define RP_PCAPDL_IMPL
#include "capture/pcap/pcapdl.h"
#include "formats/error.h"

rp_pcap_api rp__pcap;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[RP_ERRBUF_SIZE]; /* the first load's failure, "" when it worked; written inside once only */

static void load(void)
{
	void *const h = dlopen(RP_PCAP_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, sizeof(why), "cannot load libpcap (%s): %s", RP_PCAP_SONAME, dlerror());
		return;
	}
	rp_pcap_api api;
	/* dlsym returns void *: through memcpy into the typed pointer, which ISO C allows where a cast is not */
#define RP_PCAP_SYM(f)                                                                                         \
	{                                                                                                      \
		void *const p = dlsym(h, #f);                                                                 \
		if (!p) {                                                                                      \
			snprintf(why, sizeof(why), "libpcap (%s) has no %s: too old", RP_PCAP_SONAME, #f);   \
			dlclose(h);                                                                            \
			return;                                                                                \
		}                                                                                              \
		memcpy(&api.f, &p, sizeof(p));                                                                 \
	}
	RP_PCAP_FUNCS(RP_PCAP_SYM)
#undef RP_PCAP_SYM
	rp__pcap = api;
}

int rp__pcap_load(char *errbuf)
{
	pthread_once(&once, load);
	return why[0] ? rp_fail(errbuf, RP_E_UNSUPPORTED, "%s", why) : 0;
}
