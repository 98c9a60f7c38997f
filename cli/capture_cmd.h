/* reprise capture -- CMD: the syscall side of the capture command (cmd_capture.c parses, this runs). */
#ifndef REPRISE_CLI_CAPTURE_CMD_H
#define REPRISE_CLI_CAPTURE_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The ring interposer, as meson names it (capture/preload; the LTTng one: capture/lttng/lttng.h). */
#define RP_PRELOAD_NAME "libreprise-preload.so"

typedef struct rp_capcmd_opts {
	const char *out;     /* the trace */
	const char *only;    /* --only DIR */
	const char *exclude; /* --exclude PREFIXES */
	uint32_t ring_kb;    /* 0: the default */
	int clock;           /* --clock: rp_spool_clock (capture/preload/spool.h) */
	bool no_stdio, lttng, process_clients, strict, quiet;
} rp_capcmd_opts;

/* Run argv (argv[0] the program, NULL-terminated) traced; the program's exit status, or 1/126/127. */
int rp__cli_capture_cmd(char **argv, const rp_capcmd_opts *co);
/* Find an interposer library by file name: 0 with its absolute path in buf, or -1. */
int rp__cli_find_preload(const char *name, char *buf, size_t size);

#endif
