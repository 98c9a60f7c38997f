/* libbabeltrace2 opened on first use (bt2dl.h): the library meson found, by its soname. */
#include <pthread.h>
#include <string.h>

#define RP_BT2DL_IMPL
#include "converters/bt2dl.h"
#include "formats/dynlib.h"
#include "formats/error.h"

rp_bt2_api rp__bt2;

#define RP_BT2_NAME(f) #f,
static const char *const names[] = { RP_BT2_FUNCS(RP_BT2_NAME) };
#undef RP_BT2_NAME
#define N_FUNCS (sizeof(names) / sizeof(names[0]))

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[RP_ERRBUF_SIZE]; /* the load's failure, "" when it worked: written inside once only */

static void load(void)
{
	void *syms[N_FUNCS];
	if (rp_dynlib_open(RP_BT2_SONAME, names, syms, N_FUNCS, why, sizeof(why)) < 0)
		return;
	/* each void * into its typed pointer by memcpy, which ISO C allows where a cast is not */
	size_t i = 0;
#define RP_BT2_SET(f) memcpy(&rp__bt2.f, &syms[i++], sizeof(syms[0]));
	RP_BT2_FUNCS(RP_BT2_SET)
#undef RP_BT2_SET
}

int rp__bt2_load(char *errbuf)
{
	pthread_once(&once, load);
	return why[0] ? rp_fail(errbuf, RP_E_UNSUPPORTED, "%s", why) : 0;
}
