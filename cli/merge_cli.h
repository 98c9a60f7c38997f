/* What `reprise merge` lends `reprise replay --clients-from`: several traces merged into a spooled one. */
#ifndef REPRISE_CLI_MERGE_CLI_H
#define REPRISE_CLI_MERGE_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/input.h"

/*
 * paths[0..n) (anything convert reads) merged with their starts aligned, each
 * input's clients after the previous inputs' (converters/merge.h), into an
 * unlinked .rpz in $TMPDIR that *in names (/dev/fd/N; rp_conv_input_close frees
 * it).  Prints the client mapping unless quiet.  0, or an exit status after
 * printing the error.
 */
int rp__cli_merge_spool(const char *cmd, const char *const *paths, size_t n, bool lenient, bool quiet,
			rp_cli_in *in);

#endif
