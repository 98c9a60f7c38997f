/* libbabeltrace2 opened on first use (bt2dl.h): the library meson found, by its soname. */
#define RP_BT2DL_IMPL
#include "converters/bt2dl.h"

RP_DYNLIB_DEFINE(rp_bt2_api, rp__bt2, RP_BT2_FUNCS, RP_BT2_SONAME, rp__bt2_load)
