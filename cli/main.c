/* reprise: capture, convert, inspect and replay file-system workloads. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/outfile.h"

/* Add a command here and in commands.h; --help, `reprise help` and the man page follow. */
static const rp_command *const commands[] = {
	&rp__cmd_convert,
	&rp__cmd_cat,
	&rp__cmd_stat,
	&rp__cmd_capture,
	&rp__cmd_replay,
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: reprise COMMAND [options] [args]\n\ncommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->spec->name, commands[i]->spec->summary);
	fprintf(f, "\n'reprise COMMAND --help' describes one command; 'reprise --version' the version.\n");
}

static const rp_command *find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i]->spec->name, name) == 0)
			return commands[i];
	return NULL;
}

/* troff for docs/reprise.1, from the same tables as --help. */
static void man_escape(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\n' && s[1] == '\n') {
			fputs("\n.PP\n", f);
			s++;
		} else if (*s == '\n' && (s[1] == '.' || s[1] == '\''))
			fputs("\n\\&", f);
		else
			fputc(*s, f);
	}
}

static void man_page(FILE *f)
{
	fputs(".TH REPRISE 1 \"\" \"reprise " REPRISE_VERSION "\" \"User Commands\"\n"
	      ".SH NAME\nreprise \\- capture, convert, inspect and replay file\\-system workloads\n"
	      ".SH SYNOPSIS\n.B reprise\n.I COMMAND\n[options] [args]\n.SH COMMANDS\n",
	      f);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const rp_cmd *const c = commands[i]->spec;
		fprintf(f, ".SS \"reprise %s ", c->name);
		man_escape(c->usage, f);
		fputs("\"\n", f);
		man_escape(c->summary, f);
		fputs("\n", f);
		if (c->details) {
			fputs(".PP\n", f);
			man_escape(c->details, f);
			fputs("\n", f);
		}
		if (c->details_more) {
			/* As --help prints it, line by line: a table, not a paragraph. */
			char *text = NULL;
			size_t len = 0;
			FILE *const m = open_memstream(&text, &len);
			if (m) {
				c->details_more(m);
				if (fclose(m) == 0 && text) {
					fputs(".PP\n.nf\n", f);
					man_escape(text, f);
					fputs(".fi\n", f);
				}
				free(text);
			}
		}
		for (const rp_opt *o = c->opts; o && o->name; o++) {
			fputs(".TP\n", f);
			if (o->short_name)
				fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
			fputs("\\fB\\-\\-", f);
			man_escape(o->name, f);
			fputs("\\fR", f);
			if (o->arg)
				fprintf(f, " \\fI%s\\fR", o->arg);
			fputs("\n", f);
			man_escape(o->help, f);
			fputs("\n", f);
		}
	}
	fputs(".SH SEE ALSO\n.BR dbench (1),\n.BR tshark (1)\n", f);
}

/*
 * Every command's standard output is checked once it is done: a full disk,
 * /dev/full or a closed pipe reader is an error (exit 1), never a silent
 * success with half the output.
 */
static int finish_stdout(const char *cmd, int status)
{
	errno = 0;
	bool bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;
	/* EBADF: stdout was closed (>&-) and nothing was written to it, which is no loss. */
	if (fclose(stdout) != 0 && !bad && errno != EBADF) {
		bad = true;
		e = errno;
	}
	if (!bad || status != 0)
		return status; /* a command that failed has said why (often this very write error) */
	fprintf(stderr, "reprise%s%s: standard output: write error: %s\n", cmd ? " " : "", cmd ? cmd : "",
		e ? strerror(e) : "I/O error");
	return status == 0 ? 1 : status;
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *const name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(name, "--version") == 0) {
		printf("reprise %s\n", REPRISE_VERSION);
		return 0;
	}
	if (strcmp(name, "--man") == 0) {
		man_page(stdout);
		return 0;
	}
	if (strcmp(name, "help") == 0) {
		const rp_command *const c = argc > 2 ? find(argv[2]) : NULL;
		if (c)
			rp_opts_help(c->spec, stdout);
		else
			usage(stdout);
		return 0;
	}
	const rp_command *const c = find(name);
	if (!c) {
		char esc[1024];
		fprintf(stderr, "reprise: unknown command '%s'\n\n", rp__cli_esc(esc, sizeof(esc), name));
		usage(stderr);
		return 2;
	}
	return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	const int status = dispatch(argc, argv);
	return finish_stdout(argc > 1 && find(argv[1]) ? argv[1] : NULL, status);
}
