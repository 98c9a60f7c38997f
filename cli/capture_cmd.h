/* reprise capture -- CMD: the syscall side of the capture command (cmd_capture.c parses, this runs). */
#ifndef REPRISE_CLI_CAPTURE_CMD_H
#define REPRISE_CLI_CAPTURE_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The interposer libraries, as meson names them (capture/preload, capture/lttng). */
#define RP_PRELOAD_NAME "libreprise-preload.so"
#define RP_PRELOAD_LTTNG_NAME "libreprise-preload-lttng.so"
/* lttng-ust's fork helper (Debian's liblttng-ust1), preloaded with --lttng. */
#ifndef RP_LTTNG_UST_FORK_LIB
#define RP_LTTNG_UST_FORK_LIB "/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so.1"
#endif

typedef struct rp_capcmd_opts {
	const char *out;     /* the trace */
	const char *only;    /* --only DIR */
	const char *exclude; /* --exclude PREFIXES */
	uint32_t ring_kb;    /* 0: the default */
	bool no_stdio, lttng, process_clients, strict, quiet;
} rp_capcmd_opts;

/* Run argv (argv[0] the program, NULL-terminated) traced; the program's exit status, or 1/126/127. */
int rp__cli_capture_cmd(char **argv, const rp_capcmd_opts *co);
/* Find an interposer library by file name: 0 with its absolute path in buf, or -1. */
int rp__cli_find_preload(const char *name, char *buf, size_t size);

#endif
