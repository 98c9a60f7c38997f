/* Table-driven option parsing and help text. */
#include "cli/opts.h"

#include "cli/output.h"
#include "formats/error.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double rp_parse_duration(const char *s)
{
	static const rp_optdesc any = { .name = "duration", .kind = RP_OPT_DURATION };
	rp_optval v;
	return rp_optdesc_parse(&any, "duration", s, &v, NULL) == 0 ? v.d : -1;
}

/* The help option every command has: not in the tables, but abbreviated like the rest (getopt_long). */
static const rp_opt help_opt = { .name = "help", .short_name = 'h', .kind = RP_OPT_FLAG, .help = "show this help" };

/*
 * An exact name, else the one option the name is a prefix of (getopt_long's
 * rule: --quie is --quiet).  *ambiguous is set when several share the prefix.
 */
static const rp_opt *find_long(const rp_cmd *cmd, const char *name, size_t len, bool *ambiguous)
{
	*ambiguous = false;
	if (strlen(help_opt.name) == len && strncmp(help_opt.name, name, len) == 0)
		return &help_opt;
	for (const rp_opt *o = cmd->opts; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	const rp_opt *found = NULL;
	if (len && strncmp(help_opt.name, name, len) == 0)
		found = &help_opt;
	for (const rp_opt *o = cmd->opts; o && o->name; o++) {
		if (strlen(o->name) <= len || strncmp(o->name, name, len) != 0)
			continue;
		if (found)
			*ambiguous = true;
		found = o;
	}
	return *ambiguous ? NULL : found;
}

/* "--o: ambiguous (--on-mismatch, --output)" */
static void say_ambiguous(const rp_cmd *cmd, const char *a, size_t len)
{
	char names[512] = "";
	size_t used = 0;
	for (const rp_opt *o = cmd->opts; o && o->name; o++)
		if (strlen(o->name) > len && strncmp(o->name, a + 2, len) == 0 && used < sizeof(names)) {
			const int w = snprintf(names + used, sizeof(names) - used, "%s--%s", used ? ", " : "", o->name);
			if (w > 0)
				used += (size_t)w;
		}
	if (used < sizeof(names) && len && strncmp(help_opt.name, a + 2, len) == 0)
		snprintf(names + used, sizeof(names) - used, "%s--help", used ? ", " : "");
	rp__cli_err(cmd->name, "option '%.*s' is ambiguous: %s", (int)(len + 2), a, names);
}

static const rp_opt *find_short(const rp_cmd *cmd, char c)
{
	if (c == help_opt.short_name)
		return &help_opt;
	for (const rp_opt *o = cmd->opts; o && o->name; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

size_t rp__cli_edit_distance(const char *a, const char *b)
{
	size_t row[RP_EDIT_MAX + 1];
	const size_t la = strlen(a), lb = strlen(b);
	if (la > RP_EDIT_MAX || lb > RP_EDIT_MAX)
		return SIZE_MAX;
	/* Levenshtein, one row at a time, with a swap of neighbours counted as one edit (--traget). */
	size_t prev2[RP_EDIT_MAX + 1] = { 0 }, prev[RP_EDIT_MAX + 1];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			const size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t best = prev[j] + 1 < row[j - 1] + 1 ? prev[j] + 1 : row[j - 1] + 1;
			if (sub < best)
				best = sub;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			row[j] = best;
		}
		memcpy(prev2, prev, sizeof(prev));
		memcpy(prev, row, sizeof(row));
	}
	return prev[lb];
}

const char *rp__cli_closest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	const size_t len = strlen(word);
	/* Near enough to be a typo: at most 2 edits, and fewer than a third of the word for short ones. */
	const size_t limit = len < 3 ? 0 : len < 6 ? 1 : 2;
	for (size_t i = 0; i < n; i++) {
		const size_t d = rp__cli_edit_distance(word, names[i]);
		if (d <= limit && d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

/* "unknown option '--traget'; did you mean '--target'?", from the table's names. */
static void say_unknown_long(const rp_cmd *cmd, const char *a, size_t len)
{
	const char *names[256];
	size_t n = 0;
	for (const rp_opt *o = cmd->opts; o && o->name && n < sizeof(names) / sizeof(names[0]); o++)
		names[n++] = o->name;
	char word[RP_EDIT_MAX + 1];
	snprintf(word, sizeof(word), "%.*s", (int)(len < RP_EDIT_MAX ? len : RP_EDIT_MAX), a + 2);
	const char *const near = len <= RP_EDIT_MAX ? rp__cli_closest(word, names, n) : NULL;
	if (near)
		rp__cli_err(cmd->name, "unknown option '%.*s'; did you mean '--%s'? (see reprise %s --help)", (int)(len + 2), a,
			    near, cmd->name);
	else
		rp__cli_err(cmd->name, "unknown option '%s' (see reprise %s --help)", a, cmd->name);
}

/* The value arg of o into its variable, parsed by the shared descriptor's parser (its kind, choices and bounds). */
static int set_value(const rp_cmd *cmd, const rp_opt *o, const char *arg)
{
	switch (o->kind) {
	case RP_OPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case RP_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case RP_OPT_LIST: {
		rp_optlist *const l = o->value;
		if (l->n == RP_OPTLIST_MAX) {
			fprintf(stderr, "reprise %s: --%s: given more than %d times\n", cmd->name, o->name, RP_OPTLIST_MAX);
			return -1;
		}
		l->v[l->n++] = arg;
		return 0;
	}
	default:
		break;
	}
	if ((o->kind == RP_OPT_UINT || o->kind == RP_OPT_SIZE || o->kind == RP_OPT_DOUBLE || o->kind == RP_OPT_DURATION) &&
	    o->max == 0) { /* a table without bounds for a number: refuse rather than take anything */
		fprintf(stderr, "reprise %s: --%s: no bounds in the option table (a bug)\n", cmd->name, o->name);
		return -1;
	}
	char label[80], eb[RP_ERRBUF_SIZE];
	snprintf(label, sizeof(label), "--%s", o->name);
	rp_optval v;
	if (rp_optdesc_parse(o, label, arg, &v, eb) < 0) {
		rp__cli_err(cmd->name, "%s", eb);
		return -1;
	}
	switch (o->kind) {
	case RP_OPT_UINT:
	case RP_OPT_SIZE:
		*(uint64_t *)o->value = v.u;
		break;
	case RP_OPT_DOUBLE:
	case RP_OPT_DURATION:
		*(double *)o->value = v.d;
		break;
	case RP_OPT_BOOL:
		*(bool *)o->value = v.u != 0;
		break;
	case RP_OPT_ENUM:
		*(unsigned *)o->value = (unsigned)v.u;
		break;
	default:
		break;
	}
	return 0;
}

int rp_opts_parse(const rp_cmd *cmd, int argc, char **argv, char **pos, int *npos)
{
	*npos = 0;
	bool only_pos = false;
	for (int i = 1; i < argc; i++) {
		char *const a = argv[i];
		if (only_pos || a[0] != '-' || a[1] == '\0') {
			if (cmd->rest_is_command) {
				pos[(*npos)++] = a;
				break;
			}
			if (*npos == RP_OPTS_MAX_POS) {
				fprintf(stderr, "reprise %s: too many arguments: at most %d\n", cmd->name, RP_OPTS_MAX_POS);
				return -1;
			}
			pos[(*npos)++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = true;
			continue;
		}
		const rp_opt *o;
		const char *inline_arg = NULL;
		if (a[1] == '-') {
			const char *const eq = strchr(a + 2, '=');
			const size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			bool ambiguous;
			o = find_long(cmd, a + 2, len, &ambiguous);
			if (ambiguous) {
				say_ambiguous(cmd, a, len);
				return -1;
			}
			inline_arg = eq ? eq + 1 : NULL;
		} else {
			/* Bundled short options (getopt's rule): -qm is -q -m; -c5 and -qc5 give -c the value 5. */
			const char *p = a + 1;
			for (o = find_short(cmd, *p); o && o->kind == RP_OPT_FLAG && p[1]; o = find_short(cmd, *++p)) {
				if (o == &help_opt) {
					rp_opts_help(cmd, stdout);
					return 1;
				}
				*(bool *)o->value = true;
			}
			if (!o) {
				rp__cli_err(cmd->name, "unknown option '-%c' in '%s' (see reprise %s --help)", *p, a, cmd->name);
				return -1;
			}
			inline_arg = p[1] ? p + 1 : NULL;
		}
		if (!o) {
			say_unknown_long(cmd, a, strcspn(a + 2, "="));
			return -1;
		}
		if (o == &help_opt && !inline_arg) {
			rp_opts_help(cmd, stdout);
			return 1;
		}
		if (o->kind == RP_OPT_FLAG) {
			if (inline_arg) {
				fprintf(stderr, "reprise %s: --%s takes no value\n", cmd->name, o->name);
				return -1;
			}
			*(bool *)o->value = true;
			continue;
		}
		if (!inline_arg) {
			if (i + 1 >= argc) {
				fprintf(stderr, "reprise %s: --%s needs a value\n", cmd->name, o->name);
				return -1;
			}
			inline_arg = argv[++i];
		}
		if (set_value(cmd, o, inline_arg) < 0)
			return -1;
	}
	if (*npos < cmd->min_args || (cmd->max_args >= 0 && *npos > cmd->max_args)) {
		fprintf(stderr, "usage: reprise %s %s\n(see reprise %s --help)\n", cmd->name, cmd->usage, cmd->name);
		return -1;
	}
	return 0;
}

void rp_opts_help(const rp_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: reprise %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
	if (cmd->details)
		fprintf(f, "\n%s\n", cmd->details);
	if (cmd->details_more) {
		fputc('\n', f);
		cmd->details_more(f);
	}
	if (!cmd->opts || !cmd->opts->name)
		return;
	fprintf(f, "\noptions:\n");
	for (const rp_opt *o = cmd->opts; o->name; o++) {
		char left[64];
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-28s %s\n", left, o->help);
	}
	fprintf(f, "  %-28s %s\n", "-h, --help", "show this help");
}
