/* .rpz strings sections: literal and derived strings (docs/rpz-format.md §4, §4.5), both sides. */
#include <stdlib.h>
#include <string.h>

#include "formats/cursor.h"
#include "formats/rpz_internal.h"

/* next[src] = id: the latest string derived from src (the map PATHS repeats apply). */
static int set_next(uint32_t **next, uint32_t *n_next, uint32_t *cap, uint32_t src, uint32_t id)
{
	if (src >= *cap) {
		uint32_t c = *cap ? *cap : 1024;
		while (c <= src)
			c = c > UINT32_MAX / 2 ? UINT32_MAX : c * 2;
		uint32_t *const p = realloc(*next, (size_t)c * sizeof(*p));
		if (!p)
			return RP_E_NOMEM;
		*next = p;
		*cap = c;
	}
	if (src >= *n_next) {
		memset(*next + *n_next, 0, (size_t)(src + 1 - *n_next) * sizeof(**next));
		*n_next = src + 1;
	}
	(*next)[src] = id;
	return 0;
}

/* ---- reader ---------------------------------------------------------------- */

/* One string sid: appended, or on a later pass compared with the one defined then. */
static int define(rp_strtab *tab, uint32_t have, uint32_t sid, const char *s, uint64_t len, char *errbuf)
{
	if (sid <= have) {
		uint32_t old_len = 0;
		const char *const old = rp_strtab_get(tab, sid, &old_len);
		if (old_len != len || memcmp(old, s, (size_t)len) != 0)
			return rp_fail(errbuf, RP_E_CORRUPT, "string %u differs from the first pass", sid);
		return 0;
	}
	const int64_t got = rp_strtab_append(tab, s, (uint32_t)len);
	return got < 0 ? rp_fail(errbuf, (int)got, "string %u: %s", sid, rp_strerror((int)got)) : 0;
}

int rp__rpz_strings_decode(rpz_dec *d, rp_cur *sc, uint32_t first, uint32_t count, rp_strtab *tab, char *errbuf)
{
	const uint32_t have = rp_strtab_count(tab);
	if (count && first > have + 1)
		return rp_fail(errbuf, RP_E_CORRUPT, "strings start at id %u but only %u are defined", first, have);
	uint64_t derived = 0, derived_bytes = 0;
	for (uint32_t i = 0; i < count;) {
		const uint32_t sid = first + i;
		const uint64_t len = rp_cur_uvarint(sc);
		if (len <= RP_STR_MAX) {
			const char *const s = (const char *)rp_cur_take(sc, (size_t)len);
			if (sc->err)
				return rp_fail(errbuf, RP_E_CORRUPT, "string %u runs past its section", sid);
			const int rc = define(tab, have, sid, s, len, errbuf);
			if (rc < 0)
				return rc;
			i++;
			continue;
		}
		if (!d->shift)
			return rp_fail(errbuf, RP_E_CORRUPT, "string %u is %llu bytes long", sid, (unsigned long long)len);
		/* a derived run: n strings, each prefix + (its source's text from byte cut on) */
		const uint64_t n = len - RP_STR_MAX, back = rp_cur_uvarint(sc), cut = rp_cur_uvarint(sc);
		const uint64_t plen = rp_cur_uvarint(sc);
		const uint8_t *const prefix = rp_cur_take(sc, plen <= RP_STR_MAX ? (size_t)plen : SIZE_MAX);
		if (sc->err || plen > RP_STR_MAX)
			return rp_fail(errbuf, RP_E_CORRUPT, "string %u: derived run is cut or has a bad prefix", sid);
		if (n > count - i || back == 0 || back >= sid || cut > RP_STR_MAX)
			return rp_fail(errbuf, RP_E_CORRUPT, "string %u: a run of %llu strings from %llu back (cut %llu) "
				       "does not fit", sid, (unsigned long long)n, (unsigned long long)back,
				       (unsigned long long)cut);
		derived += n;
		if (derived > RPZ_DERIVE_STRINGS_MAX)
			return rp_fail(errbuf, RP_E_CORRUPT, "more than %u derived strings in a frame",
				       RPZ_DERIVE_STRINGS_MAX);
		if (!d->sbuf && !(d->sbuf = malloc(RP_STR_MAX)))
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory for a derived string");
		for (uint64_t k = 0; k < n; k++, i++) {
			const uint32_t id = first + i, src = id - (uint32_t)back;
			uint32_t slen = 0;
			const char *const s = rp_strtab_get(tab, src, &slen);
			if (!s || slen < cut || plen + (slen - cut) > RP_STR_MAX)
				return rp_fail(errbuf, RP_E_CORRUPT, "string %u: derived from string %u (%u bytes) with cut "
					       "%llu and a %llu-byte prefix", id, src, s ? slen : 0,
					       (unsigned long long)cut, (unsigned long long)plen);
			const size_t tl = (size_t)plen + (slen - (size_t)cut);
			derived_bytes += tl + 1;
			if (derived_bytes > RPZ_DERIVE_BYTES_MAX)
				return rp_fail(errbuf, RP_E_CORRUPT, "derived strings of a frame pass %u bytes",
					       RPZ_DERIVE_BYTES_MAX);
			memcpy(d->sbuf, prefix, (size_t)plen);
			memcpy(d->sbuf + plen, s + cut, slen - (size_t)cut);
			int rc = define(tab, have, id, d->sbuf, tl, errbuf);
			if (rc == 0 && (rc = set_next(&d->next, &d->n_next, &d->cap_next, src, id)) < 0)
				rc = rp_fail(errbuf, rc, "out of memory for derived strings");
			if (rc < 0)
				return rc;
		}
	}
	if (rp_cur_left(sc))
		return rp_fail(errbuf, RP_E_CORRUPT, "%zu stray bytes after the strings", rp_cur_left(sc));
	return 0;
}

/* ---- writer ---------------------------------------------------------------- */

int rp__rpz_derive_init(rpz_derive *v)
{
	memset(v, 0, sizeof(*v));
	v->tab = rp_strtab_create();
	for (int k = 0; k < 2; k++)
		v->suf[k] = calloc((size_t)1 << RPZ_DERIVE_TABLE_BITS, sizeof(*v->suf[k]));
	if (!v->tab || !v->suf[0] || !v->suf[1]) {
		rp__rpz_derive_fini(v);
		return RP_E_NOMEM;
	}
	return 0;
}

void rp__rpz_derive_fini(rpz_derive *v)
{
	rp_strtab_destroy(v->tab);
	free(v->next);
	free(v->suf[0]);
	free(v->suf[1]);
	free(v->out);
	memset(v, 0, sizeof(*v));
}

static void derive_off(rpz_derive *v)
{
	rp_strtab_destroy(v->tab);
	v->tab = NULL; /* the map stays: the reader keeps its own */
}

int rp__rpz_derive_add(rpz_derive *v, const char *s, uint32_t len)
{
	if (!v->tab)
		return 0;
	v->bytes += (size_t)len + 16;
	if (v->bytes > RPZ_DERIVE_BYTES_MAX) {
		derive_off(v);
		return 0;
	}
	const int64_t got = rp_strtab_append(v->tab, s, len);
	if (got < 0)
		derive_off(v); /* out of memory: strings stay literal from here on */
	return 0;
}

/* Where the text after the first k path components starts ("/a/b/c", k 1: "/b/c"), or 0. */
static uint32_t after_components(const char *s, uint32_t len, int k)
{
	uint32_t p = 0;
	for (int c = 0; c < k; c++) {
		if (p < len && s[p] == '/')
			p++;
		while (p < len && s[p] != '/')
			p++;
		if (p >= len)
			return 0;
	}
	return p;
}

static uint32_t suffix_slot(const char *s, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull; /* FNV's top bits hardly see the last bytes */
	h ^= h >> 33;
	return (uint32_t)(h >> (64 - RPZ_DERIVE_TABLE_BITS));
}

static void remember(rpz_derive *v, uint32_t id)
{
	uint32_t len;
	const char *const s = rp_strtab_get(v->tab, id, &len);
	for (int k = 0; k < 2; k++) {
		const uint32_t p = after_components(s, len, k + 1);
		if (p)
			v->suf[k][suffix_slot(s + p, len - p)] = id;
	}
}

/* Whether string id is prefix + (string id - back from byte cut on). */
static bool derives(const rpz_derive *v, uint32_t id, uint32_t back, uint32_t cut, const char *prefix, uint32_t plen)
{
	if (back >= id)
		return false;
	uint32_t len, slen;
	const char *const s = rp_strtab_get(v->tab, id, &len), *const src = rp_strtab_get(v->tab, id - back, &slen);
	return slen >= cut && len == plen + (slen - cut) && memcmp(s, prefix, plen) == 0 &&
	       memcmp(s + plen, src + cut, slen - cut) == 0;
}

static int out_room(rpz_derive *v, size_t more)
{
	if (v->out_cap - v->out_len >= more)
		return 0;
	size_t cap = v->out_cap ? v->out_cap : 65536;
	while (cap - v->out_len < more)
		cap *= 2;
	uint8_t *const p = realloc(v->out, cap);
	if (!p)
		return RP_E_NOMEM;
	v->out = p;
	v->out_cap = cap;
	return 0;
}

int rp__rpz_derive_section(rpz_derive *v, uint32_t first, uint32_t count, const uint8_t **out, size_t *out_len,
			   bool *derived)
{
	*derived = false;
	if (!v->tab || !count || rp_strtab_count(v->tab) != first + count - 1)
		return 0;
	v->out_len = 0;
	uint32_t n_derived = 0;
	for (uint32_t id = first; id < first + count;) {
		uint32_t len;
		const char *const s = rp_strtab_get(v->tab, id, &len);
		uint32_t run = 0, back = 0, cut = 0, p = 0;
		/* the first run of a stream needs RPZ_DERIVE_MIN strings (a stream without one keeps its
		 * literal bytes), later ones one */
		const uint32_t min = v->any ? 1 : RPZ_DERIVE_MIN;
		for (int k = 0; k < 2 && run < min; k++) {
			p = after_components(s, len, k + 1);
			const uint32_t src = p ? v->suf[k][suffix_slot(s + p, len - p)] : 0;
			if (!src || src >= id)
				continue;
			uint32_t slen;
			const char *const st = rp_strtab_get(v->tab, src, &slen);
			const uint32_t sp = after_components(st, slen, k + 1);
			if (!sp || slen - sp != len - p || memcmp(st + sp, s + p, len - p) != 0)
				continue;
			back = id - src;
			cut = sp;
			run = 1;
			while (id + run < first + count && n_derived + run < RPZ_DERIVE_STRINGS_MAX &&
			       derives(v, id + run, back, cut, s, p))
				run++;
		}
		if (run >= min) {
			if (out_room(v, 40 + (size_t)p) < 0)
				return RP_E_NOMEM;
			v->out_len += rp_put_uvarint(v->out + v->out_len, RP_STR_MAX + (uint64_t)run);
			v->out_len += rp_put_uvarint(v->out + v->out_len, back);
			v->out_len += rp_put_uvarint(v->out + v->out_len, cut);
			v->out_len += rp_put_uvarint(v->out + v->out_len, p);
			memcpy(v->out + v->out_len, s, p);
			v->out_len += p;
			for (uint32_t k = 0; k < run; k++) {
				if (set_next(&v->next, &v->n_next, &v->cap_next, id + k - back, id + k) < 0)
					return RP_E_NOMEM;
				remember(v, id + k);
			}
			n_derived += run;
			id += run;
			*derived = v->any = true;
			continue;
		}
		if (out_room(v, 10 + (size_t)len) < 0)
			return RP_E_NOMEM;
		v->out_len += rp_put_uvarint(v->out + v->out_len, len);
		memcpy(v->out + v->out_len, s, len);
		v->out_len += len;
		remember(v, id);
		id++;
	}
	if (*derived) {
		*out = v->out;
		*out_len = v->out_len;
	}
	return 0;
}
