/* reprise model --check's measures: KS statistics, and a sink that counts a trace's ops and keeps its gaps (model_check.h). */
#include "results/model_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"

static int cmp_double(const void *pa, const void *pb)
{
	const double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

double rp_ks2(double *a, size_t na, double *b, size_t nb)
{
	if (na == 0 || nb == 0)
		return na == nb ? 0.0 : 1.0;
	qsort(a, na, sizeof(*a), cmp_double);
	qsort(b, nb, sizeof(*b), cmp_double);
	size_t i = 0, j = 0;
	double d = 0;
	/* Step past every value equal to the smaller head in both, then compare the CDFs there. */
	while (i < na && j < nb) {
		const double v = a[i] < b[j] ? a[i] : b[j];
		while (i < na && a[i] == v)
			i++;
		while (j < nb && b[j] == v)
			j++;
		const double e = fabs((double)i / (double)na - (double)j / (double)nb);
		if (e > d)
			d = e;
	}
	return d;
}

double rp_mh_ks(const rp_mhist *a, const rp_mhist *b)
{
	const uint64_t ta = rp_mh_total(a), tb = rp_mh_total(b);
	if (ta == 0 || tb == 0)
		return ta == tb ? 0.0 : 1.0;
	uint64_t ca = 0, cb = 0;
	double d = 0;
	for (unsigned k = 0; k < RP_MH_BUCKETS; k++) {
		ca += a->n[k];
		cb += b->n[k];
		const double e = fabs((double)ca / (double)ta - (double)cb / (double)tb);
		if (e > d)
			d = e;
	}
	return d;
}

static int s_meta(rp_sink *s, const rp_trace_meta *meta)
{
	(void)s;
	(void)meta;
	return 0;
}

static int s_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	(void)s;
	(void)id;
	(void)str;
	(void)len;
	return 0;
}

static int s_finish(rp_sink *s)
{
	(void)s;
	return 0;
}

static int s_op(rp_sink *sink, const rp_op *op)
{
	rp_check_sample *const s = (rp_check_sample *)sink;
	if (op->op >= RP_OP__COUNT || op->op == RP_OP_SLEEP)
		return 0;
	s->ops[op->op]++;
	s->n_ops++;
	if (op->t_start > 0)
		s->timed = true;
	const uint32_t slot = op->client < RP_MODEL_MAX_CLIENTS ? op->client : RP_MODEL_MAX_CLIENTS - 1;
	const uint64_t prev = s->last[slot];
	s->last[slot] = op->t_start + 1;
	if (prev == 0 || op->t_start + 1 < prev)
		return 0;
	const double g = (double)(op->t_start + 1 - prev);
	s->seen++;
	if (s->n_gaps < RP_CHECK_GAPS_MAX) {
		s->gaps[s->n_gaps++] = g;
	} else {
		/* reservoir: the seen-th gap replaces a kept one with probability kept / seen */
		const uint64_t k = rp_rng_below(&s->rng, s->seen);
		if (k < RP_CHECK_GAPS_MAX)
			s->gaps[k] = g;
	}
	return 0;
}

int rp_check_sample_init(rp_check_sample *s, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->base.meta = s_meta;
	s->base.string = s_string;
	s->base.op = s_op;
	s->base.finish = s_finish;
	rp_rng_seed(&s->rng, seed);
	s->gaps = malloc(sizeof(*s->gaps) * RP_CHECK_GAPS_MAX);
	s->last = calloc(RP_MODEL_MAX_CLIENTS, sizeof(*s->last));
	if (!s->gaps || !s->last) {
		rp_check_sample_fini(s);
		return RP_E_NOMEM;
	}
	return 0;
}

void rp_check_sample_fini(rp_check_sample *s)
{
	free(s->gaps);
	free(s->last);
	s->gaps = NULL;
	s->last = NULL;
}

double rp_check_mix_diff(const rp_check_sample *a, const rp_check_sample *b, unsigned *op)
{
	double d = 0;
	unsigned best = 0;
	for (unsigned k = 0; k < RP_OP__COUNT; k++) {
		if (k == RP_OP_SLEEP)
			continue;
		const double sa = a->n_ops ? 100.0 * (double)a->ops[k] / (double)a->n_ops : 0;
		const double sb = b->n_ops ? 100.0 * (double)b->ops[k] / (double)b->n_ops : 0;
		if (fabs(sa - sb) > d) {
			d = fabs(sa - sb);
			best = k;
		}
	}
	if (op)
		*op = best;
	return d;
}
