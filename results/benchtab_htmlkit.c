/* What the compare report's page and charts write with: colours, escaping, numbers, labels (docs/compare.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/benchtab_htmlkit.h"

#define ESC_MAX (4 * RP_BT_NAME_MAX + 1)

/*
 * Colours (Okabe and Ito's palette, told apart by the colour-blind too) and,
 * because colour alone is not enough, a dash pattern and a letter per target:
 * lines end in their target's letter, bars carry it.
 */
static const char *const colours[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000" };
static const char *const dashes[] = { "", "8 4", "2 3", "10 3 2 3", "5 5", "1 4", "12 2" };
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))


_Static_assert(RP_BT_TARGETS_MAX <= 52, "a letter per target: A-Z, a-z");

const char *rp__bth_colour(size_t i)
{
	return colours[i % NCOLOURS];
}

/* Targets past the first NCOLOURS take the next dash, so no two share both colour and dash. */
const char *rp__bth_dash(size_t i)
{
	return dashes[(i + i / NCOLOURS) % NCOLOURS];
}

void rp__bth_key(size_t i, char key[3])
{
	key[0] = (char)(i < 26 ? 'A' + i : 'a' + (i - 26));
	key[1] = '\0';
}

void rp__bth_esc(FILE *f, const char *s, size_t max_bytes)
{
	char buf[ESC_MAX];
	rp__bt_display(buf, sizeof(buf), s);
	size_t n = 0;
	for (const char *p = buf; *p; p++, n++) {
		/* cut only before a character, never inside one */
		if (n >= max_bytes && ((unsigned char)*p & 0xc0) != 0x80) {
			fputs("\xe2\x80\xa6", f);
			break;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*p, f);
		}
	}
}


void rp__bth_label_text(FILE *f, const rp_bt_set *s, size_t i)
{
	char l[RP_BT_LABEL_MAX];
	rp__bt_label(l, sizeof(l), s, i);
	rp__bth_esc(f, l, RP_BTH_WHOLE);
}

void rp__bth_label(FILE *f, const rp_bt_set *s, size_t i)
{
	const rp_bt_target *const t = &s->targets[i];
	fputs("<span class=\"tlabel\" title=\"", f);
	rp__bth_esc(f, t->target[0] ? t->target : "?", RP_BTH_WHOLE);
	if (t->fs_type[0]) {
		fputs(" (", f);
		rp__bth_esc(f, t->fs_type, RP_BTH_WHOLE);
		fputs(")", f);
	}
	fputs("\">", f);
	rp__bth_label_text(f, s, i);
	fputs("</span>", f);
}

/* The legend: a line sample, the letter and the label of each target, as an HTML list above a chart. */
void rp__bth_legend(FILE *f, const rp_bt_set *s)
{
	fputs("<ul class=\"legend\">\n", f);
	for (size_t i = 0; i < s->ntargets; i++) {
		char key[3];
		rp__bth_key(i, key);
		fprintf(f, "<li data-target=\"");
		rp__bth_esc(f, s->targets[i].target, RP_BTH_WHOLE);
		fprintf(f, "\"><svg width=\"36\" height=\"12\" aria-hidden=\"true\"><line x1=\"0\" y1=\"6\" x2=\"36\" y2=\"6\" "
			   "stroke=\"%s\" stroke-width=\"3\" stroke-dasharray=\"%s\"/></svg> <b>%s</b> ",
			rp__bth_colour(i), rp__bth_dash(i), key);
		rp__bth_label(f, s, i);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

void rp__bth_num(char *buf, size_t n, double v)
{
	const double a = fabs(v);
	if (a >= 100 || v == 0)
		snprintf(buf, n, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, n, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

/* An axis tick: 20k, 4M, 0.5 (no long runs of zeros to crowd the axis label). */
void rp__bth_tick(char *buf, size_t n, double v)
{
	const double a = fabs(v);
	if (a >= 1e9)
		snprintf(buf, n, "%gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, n, "%gk", v / 1e3);
	else
		snprintf(buf, n, "%g", v);
}

/* A ratio to the best: 0.005x, 0.52x, 3.1x, 4434x. */
void rp__bth_ratio(char *buf, size_t n, double r)
{
	rp__bth_num(buf, n > 1 ? n - 1 : n, r);
	strcat(buf, "x"); /* num wrote at most n - 2 characters */
}
