/*
 * Internal to the compare report (benchtab_html.c, the page; benchtab_charts.c,
 * its SVG charts; benchtab_htmlkit.c, what both write with): colours, escaping,
 * numbers, labels.  Nothing here is for other libraries.
 */
#ifndef REPRISE_RESULTS_BENCHTAB_HTMLKIT_H
#define REPRISE_RESULTS_BENCHTAB_HTMLKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "results/benchtab.h"

/* A name as the page shows it: at most this many bytes of it (the whole one in the element's title). */
#define RP_BTH_LABEL_BYTES 40
#define RP_BTH_WHOLE ((size_t)-1)

/* Target i's colour (Okabe and Ito's palette) and dash pattern; its letter (A, B, ...) into key. */
const char *rp__bth_colour(size_t i);
const char *rp__bth_dash(size_t i);
void rp__bth_key(size_t i, char key[3]);

/* s as HTML text or an attribute value: its display form (controls as \xNN), then & < > " ' as references, cut at max_bytes. */
void rp__bth_esc(FILE *f, const char *s, size_t max_bytes);

/* Target i's short label (rp__bt_label) in a <span> whose title is the whole target, fs type and mount options. */
void rp__bth_label(FILE *f, const rp_bt_set *s, size_t i);
/* Target i's short label alone, escaped (for SVG text, where a title is a child element). */
void rp__bth_label_text(FILE *f, const rp_bt_set *s, size_t i);

/* Numbers as the page prints them; an axis tick (20k, 4M); a ratio (0.52x). */
void rp__bth_num(char *buf, size_t n, double v);
void rp__bth_tick(char *buf, size_t n, double v);
void rp__bth_ratio(char *buf, size_t n, double r);

/* The legend above a chart: a line sample, the letter and the label of each target. */
void rp__bth_legend(FILE *f, const rp_bt_set *s);

/* The charts (benchtab_charts.c), each an <svg class="chart" data-chart=...> or a note that there is nothing to draw. */
void rp__bth_over_time(FILE *f, const rp_bt_set *s, bool mb);
void rp__bth_spread(FILE *f, const rp_bt_set *s, rp_bt_metric m, const char *key, const char *what);
void rp__bth_cdf(FILE *f, const rp_bt_set *s, const char *op);
void rp__bth_timeshare(FILE *f, const rp_bt_set *s, const char *const *ops, size_t nops);

#endif
