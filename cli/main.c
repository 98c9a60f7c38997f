/* reprise: capture, convert, inspect and replay file-system workloads. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/version.h"

/* Add a command here and in commands.h; --help, `reprise help` and the man page follow. */
static const rp_command *const commands[] = {
	&rp__cmd_convert,
	&rp__cmd_merge,
	&rp__cmd_cat,
	&rp__cmd_stat,
	&rp__cmd_capture,
	&rp__cmd_replay,
	&rp__cmd_bench,
	&rp__cmd_compare,
	&rp__cmd_anonymize,
	&rp__cmd_model,
	&rp__cmd_generate,
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: reprise COMMAND [options] [args]\n\ncommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->spec->name, commands[i]->spec->summary);
	fprintf(f, "\n'reprise COMMAND --help' describes one command; 'reprise -V' (--version) the version and\n"
		   "the built features; 'reprise --man' prints the man page; 'reprise --completion bash' a bash\n"
		   "completion script.\n");
}

static void version(FILE *f)
{
	fprintf(f, "reprise %s (git %s)\nfeatures: %s\n", REPRISE_VERSION, REPRISE_GIT_DESCRIBE, REPRISE_FEATURES);
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

/* The sections of the man page around COMMANDS (troff as is; the option tables are escaped by man_escape). */
static const char man_description[] =
	".SH DESCRIPTION\n"
	"reprise records what clients do to a file system as one protocol\\-neutral op per file operation,\n"
	"stores the ops as a small, seekable, compressed trace (\\fB.rpz\\fR), and plays them back:\n"
	".TP\n\\fBcapture\\fR\n"
	"SMB1/2/3 and NFSv3/v4 traffic from a live interface (libpcap), or a program's file system calls\n"
	"(\\fBcapture \\-\\- CMD\\fR: an LD_PRELOAD interposer, or LTTng\\-UST tracepoints)\n"
	".TP\n\\fBconvert\\fR, \\fBmerge\\fR, \\fBcat\\fR\n"
	"packet captures (pcap, pcapng), dbench loadfiles, strace logs and CTF traces into traces; traces\n"
	"into dbench loadfiles, reprise's canonical text form or fio iologs and jobs; slices by time,\n"
	"client, op or path; several traces merged into one, each one's clients kept apart\n"
	".TP\n\\fBstat\\fR\n"
	"what a trace holds (provenance, decode quality, op mix, clients, latency, bytes, sizes, phases);\n"
	"\\fBstat \\-\\-diff\\fR compares two traces, such as a capture of a replay with its trace\n"
	".TP\n\\fBreplay\\fR\n"
	"a trace or loadfile against a directory, an NFS export (libnfs) or an SMB share (libsmbclient), with\n"
	"its recorded timing or as fast as possible, dbench\\-style results (throughput, latency per op,\n"
	"failures and mismatches against the recording) and JSON; across hosts under mpirun (\\fB\\-\\-mpi\\fR)\n"
	"or in several processes of one (\\fB\\-\\-processes\\fR)\n"
	".TP\n\\fBbench\\fR, \\fBcompare\\fR\n"
	"one workload on several targets (or file systems \\fB\\-\\-mkfs\\fR makes), runs interleaved,\n"
	"side by side; saved results compared as a table, JSON or an HTML report with charts\n"
	".TP\n\\fBanonymize\\fR\n"
	"a trace's names and ids replaced by keyed pseudonyms, its structure and timing kept, to share it\n"
	".TP\n\\fBmodel\\fR, \\fBgenerate\\fR\n"
	"a trace's workload as compact histograms per time chunk and client class (JSON), and synthetic\n"
	"traces drawn from such a model, chunk by chunk, the same for the same seed\n"
	".PP\n"
	"Inputs are recognised by content, not by name: an \\fB.rpz\\fR trace, the text form that\n"
	"\\fBreprise cat\\fR prints (so cat, edit, convert round\\-trips), a dbench loadfile (SMB or NFS\n"
	"dialect, plain or timestamped, with or without a UTF\\-8 byte\\-order mark), an strace log\n"
	"(\\fBstrace \\-f \\-ttt \\-T \\-y\\fR; docs/strace.md), nfsdump text, plain or gzip\\(aqd (the Harvard\n"
	"NFS traces; docs/nfsdump.md), or a pcap/pcapng capture.\n"
	"An input of \\fB\\-\\fR is standard input; standard input, pipes, FIFOs and devices are spooled to\n"
	"a temporary file first (see FILES), so \\fBtcpdump \\-w \\- | reprise convert \\- out.rpz\\fR works.\n"
	"Every error names the file and, where it applies, the line, frame or byte.\n"
	".PP\n"
	"Options follow getopt_long's conventions: short flags bundle (\\fB\\-qm\\fR), a short option's value\n"
	"may follow it (\\fB\\-c5\\fR), a long option may be abbreviated to any unique prefix\n"
	"(\\fB\\-\\-quie\\fR), its value given as \\fB\\-\\-opt=value\\fR or as the next argument, and\n"
	"\\fB\\-\\-\\fR ends the options.  A value out of an option's range is a usage error; an unknown option\n"
	"or command names the nearest one (\\fB\\-\\-traget\\fR: did you mean \\fB\\-\\-target\\fR?); an option that\n"
	"does nothing in the chosen mode is warned about.\n"
	".SH GLOBAL OPTIONS\n"
	".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nprint the version (git describe at build time) and the built features\n"
	".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nlist the commands; \\fBreprise COMMAND \\-\\-help\\fR describes one\n"
	".TP\n\\fB\\-\\-man\\fR\nprint this man page: rendered by \\fBman \\-l \\-\\fR on a terminal, the roff source to a pipe or a file\n"
	".TP\n\\fB\\-\\-completion bash\\fR\nprint a bash completion script made from the option tables\n";

static const char man_tail[] =
	".SH EXIT STATUS\n"
	"Every command:\n"
	".TP\n.B 0\nsuccess\n"
	".TP\n.B 1\n"
	"the run failed: an input that cannot be read or is malformed, an output that cannot be written\n"
	"(a full disk, \\fB/dev/full\\fR, a closed pipe), \\fB\\-\\-strict\\fR and a lossy decode (convert, capture),\n"
	"a capture set\\-up error, a replay stopped by an error or a mismatch (\\fB\\-\\-on\\-mismatch abort\\fR), or\n"
	"\\fBstat \\-\\-diff \\-\\-check\\fR and two op mixes that differ (the report is written first)\n"
	".TP\n.B 2\n"
	"a usage error: an unknown or ambiguous option, a missing or bad value, a value out of range, a\n"
	"wrong number of arguments, an output that is the input, an unknown command\n"
	".TP\n.B 130\nreplay: interrupted by SIGINT or SIGTERM (the results so far are reported)\n";

/* Every variable the code reads (tests/cli/man_lists.py checks the list against getenv in the sources). */
static const char man_env[] =
	".SH ENVIRONMENT\n"
	".TP\n.B TMPDIR\n"
	"where an input read from standard input, a pipe, a FIFO or a device is spooled (default\n"
	"\\fB/tmp\\fR); it needs as much free space as the input\n"
	".TP\n.B REPRISE_SMB_PASSWORD\n"
	"replay to \\fBsmb://\\fR: the password of the \\fB\\-\\-user\\fR given without one (it then stays out of the\n"
	"process list)\n"
	".TP\n.B REPRISE_MODULE_DIR\n"
	"the directory reprise's modules (\\fBreprise\\-backend\\-smb.so\\fR, \\fBreprise\\-mpi.so\\fR) are loaded from; default:\n"
	"\\fBreplay/\\fR beside a build tree's \\fBreprise\\fR, else the installed module directory\n"
	".TP\n.B REPRISE_PRELOAD_LIB\n"
	"capture \\fB\\-\\-\\fR \\fICMD\\fR: the interposer library to preload; default: the build tree's, else the\n"
	"installed one\n"
	".TP\n.B LD_PRELOAD\n"
	"capture \\fB\\-\\-\\fR \\fICMD\\fR: kept, after the interposer, for the program it runs\n"
	".TP\n.B PATH\n"
	"\\fB\\-\\-man\\fR on a terminal: where \\fBman\\fR is found (the page goes through \\fBman \\-l \\-\\fR);\n"
	"capture \\fB\\-\\-\\fR \\fICMD\\fR: where \\fICMD\\fR is found; bench \\fB\\-\\-mkfs\\fR: where \\fBmkfs.\\fR\\fITYPE\\fR is\n"
	"found (and the sbin directories)\n"
	".TP\n.B REPRISE_NO_STDIO\n"
	"the interposer: \\fB1\\fR records no stdio (\\fBFILE *\\fR) calls; set by capture \\fB\\-\\-no\\-stdio\\fR\n"
	".TP\n.B REPRISE_SPOOL\n"
	".TQ\n.B REPRISE_RING_KB\n"
	".TQ\n.B REPRISE_PRELOAD\n"
	"the interposer: the spool directory its rings go to, their size in KiB (\\fB\\-\\-ring\\-kb\\fR) and its own\n"
	"path (put back in \\fBLD_PRELOAD\\fR across an exec that dropped it); set by capture \\fB\\-\\-\\fR \\fICMD\\fR\n"
	"for the program it runs, not by hand\n"
	".PP\n"
	"No other variable changes what reprise does: its output does not depend on the locale or the\n"
	"time zone (times are seconds since the trace began, or since the Unix epoch).\n";

static const char man_files[] =
	".SH FILES\n"
	".TP\n.I OUT.part\\-XXXXXX\n"
	"every output (convert, capture, replay \\fB\\-\\-json\\fR) is written under this name beside OUT and renamed\n"
	"to OUT when complete; a capture killed with SIGKILL leaves its readable partial trace under it\n"
	".TP\n.I $TMPDIR/reprise\\-spool\\-XXXXXX\n"
	"the spool of a streamed input, unlinked as soon as it is made: nothing is left behind\n"
	".TP\n.I /dev/shm/reprise\\-spool\\-XXXXXX/\n"
	"capture \\fB\\-\\-\\fR \\fICMD\\fR: the traced threads' rings (under \\fB\\-\\-spool\\-dir\\fR, else \\fB/dev/shm\\fR, else\n"
	"\\fB$TMPDIR\\fR, else \\fB/tmp\\fR), removed when the capture ends; one left by a capture killed with\n"
	"SIGKILL is removed by the next capture in the same place\n"
	".TP\n.I /usr/share/dbench/client.txt\n"
	"dbench's own loadfile (Debian package dbench), a ready input for every command\n"
	".SH EXAMPLES\n"
	"Convert dbench's loadfile to a trace, look at it, and replay it as dbench \\-t 60 4 would:\n"
	".PP\n.nf\n.RS\n"
	"reprise convert /usr/share/dbench/client.txt client.rpz\n"
	"reprise stat client.rpz\n"
	"reprise replay client.rpz \\-\\-target /mnt/x \\-\\-clients 4 \\-t 60\n"
	".RE\n.fi\n.PP\n"
	"Compare a trace with a capture of its replay on the ops that matter (exit 1 when their mix differs):\n"
	".PP\n.nf\n.RS\n"
	"reprise stat \\-\\-diff \\-\\-ops read,write,unlink,rename,mkdir,rmdir \\-\\-check client.rpz replay.rpz\n"
	".RE\n.fi\n.PP\n"
	"Capture NFS and SMB traffic for five minutes (as root), or convert tcpdump's output as it streams:\n"
	".PP\n.nf\n.RS\n"
	"reprise capture \\-\\-iface eth0 \\-\\-duration 5m \\-o server.rpz\n"
	"tcpdump \\-i eth0 \\-w \\- port 2049 | reprise convert \\- server.rpz\n"
	".RE\n.fi\n.PP\n"
	"Edit a trace as text and convert it back; write a loadfile dbench can run:\n"
	".PP\n.nf\n.RS\n"
	"reprise cat \\-\\-meta server.rpz > server.ops\n"
	"$EDITOR server.ops && reprise convert server.ops edited.rpz\n"
	"reprise convert \\-\\-prepare server.rpz server.txt && dbench \\-c server.txt 1\n"
	".RE\n.fi\n"
	".SH SEE ALSO\n.BR dbench (1),\n.BR tcpdump (1),\n.BR tshark (1)\n";

static void man_page(FILE *f)
{
	fputs(".TH REPRISE 1 \"\" \"reprise " REPRISE_VERSION "\" \"User Commands\"\n"
	      ".SH NAME\nreprise \\- capture, convert, inspect and replay file\\-system workloads\n"
	      ".SH SYNOPSIS\n.B reprise\n.I COMMAND\n[options] [args]\n",
	      f);
	fputs(man_description, f);
	fputs(".SH COMMANDS\n", f);
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
	fputs(man_tail, f);
	fputs(man_env, f);
	fputs(man_files, f);
}

/* Whether an executable man is on PATH (so a terminal gets the page rendered, not a shell's "not found"). */
static bool have_man(void)
{
	const char *const path = getenv("PATH");
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const size_t len = strcspn(p, ":");
		char file[4096];
		if (len && len < sizeof(file) - 5) {
			snprintf(file, sizeof(file), "%.*s/man", (int)len, p);
			if (access(file, X_OK) == 0)
				return true;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

/* --man on a terminal: the page through man -l - (its pager, its width).  0, or -1 to print the roff instead. */
static int man_on_tty(void)
{
	if (!have_man())
		return -1;
	fflush(stdout);
	signal(SIGPIPE, SIG_IGN); /* a pager quit early ends man: our last writes fail, quietly */
	FILE *const m = popen("man -l -", "w");
	if (!m)
		return -1;
	man_page(m);
	pclose(m); /* man ran, and said what went wrong, if anything: the roff again would only add noise */
	return 0;
}

/*
 * `reprise --completion bash`: commands, then each command's options from
 * its table (long and short names; an enum option's choices after it; files
 * for the rest).  meson install puts
 * it where bash-completion looks (share/bash-completion/completions/reprise).
 */
static void completion_bash(FILE *f)
{
	fputs("# bash completion for reprise, generated by 'reprise --completion bash' from its option tables\n"
	      "_reprise()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} words\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\twords='-V --version -h --help --man --completion",
	      f);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, " %s", commands[i]->spec->name);
	fputs("'\n\telse\n\t\tcase $cmd in\n", f);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const rp_cmd *const c = commands[i]->spec;
		fprintf(f, "\t\t%s) words='-h --help", c->name);
		for (const rp_opt *o = c->opts; o && o->name; o++) {
			fprintf(f, " --%s", o->name);
			if (o->short_name)
				fprintf(f, " -%c", o->short_name);
		}
		fputs("' ;;\n", f);
	}
	fputs("\t\t--completion) words=bash ;;\n\t\t*) words= ;;\n\t\tesac\n\tfi\n", f);
	/* After an enum option, its choices (from the table's inline choices). */
	fputs("\tif [ \"$COMP_CWORD\" -gt 2 ]; then\n\t\tcase \"$cmd ${COMP_WORDS[COMP_CWORD-1]}\" in\n", f);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const rp_cmd *const c = commands[i]->spec;
		for (const rp_opt *o = c->opts; o && o->name; o++) {
			if (o->kind != RP_OPT_ENUM || !o->choices)
				continue;
			fprintf(f, "\t\t'%s --%s'", c->name, o->name);
			if (o->short_name)
				fprintf(f, "|'%s -%c'", c->name, o->short_name);
			fputs(") COMPREPLY=($(compgen -W '", f);
			for (const char *const *ch = o->choices; *ch; ch++)
				fprintf(f, "%s%s", ch == o->choices ? "" : " ", *ch);
			fputs("' -- \"$cur\")); return ;;\n", f);
		}
	}
	fputs("\t\tesac\n\tfi\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ] || [[ $cur == -* ]] || [ \"$cmd\" = --completion ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	      "\telse\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n"
	      "complete -o filenames -F _reprise reprise\n",
	      f);
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

/*
 * After printing a long text (the man page outgrows stdio's buffer): a write
 * that failed on the way set errno then, which the final check cannot learn.
 */
static int printed(int e)
{
	if (!ferror(stdout)) {
		errno = 0;
		if (fflush(stdout) == 0 && !ferror(stdout))
			return 0;
		e = errno;
	}
	fprintf(stderr, "reprise: standard output: write error: %s\n", e ? strerror(e) : "I/O error");
	return 1;
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
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		version(stdout);
		return 0;
	}
	if (strcmp(name, "--man") == 0) {
		if (isatty(STDOUT_FILENO) && man_on_tty() == 0)
			return 0;
		errno = 0;
		man_page(stdout); /* a pipe or a file (docs/reprise.1), or no man(1): the roff itself */
		return printed(errno);
	}
	if (strcmp(name, "--completion") == 0) {
		if (argc != 3 || strcmp(argv[2], "bash") != 0) {
			fprintf(stderr, "usage: reprise --completion bash\n");
			return 2;
		}
		errno = 0;
		completion_bash(stdout);
		return printed(errno);
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
		const char *names[N_COMMANDS];
		for (size_t i = 0; i < N_COMMANDS; i++)
			names[i] = commands[i]->spec->name;
		const char *const near = rp__cli_closest(name, names, N_COMMANDS);
		fprintf(stderr, "reprise: unknown command '%s'", rp__cli_esc(esc, sizeof(esc), name));
		if (near)
			fprintf(stderr, "; did you mean '%s'?", near);
		fputs("\n\n", stderr);
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
