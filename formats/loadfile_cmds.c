/* dbench loadfile commands: the command table and its case-insensitive dispatch dictionary. */
#include "formats/loadfile_cmds.h"

#include <stdbool.h>
#include <string.h>

static uint8_t count_req(const char *spec)
{
	const char *const q = strchr(spec, '?');
	return (uint8_t)(q ? (size_t)(q - spec) : strlen(spec));
}

static uint8_t count_max(const char *spec)
{
	size_t n = 0;
	for (const char *p = spec; *p; p++)
		n += *p != '?';
	return (uint8_t)n;
}

const rp__lf_cmd_info rp__lf_cmds[RP__LF_C__COUNT] = {
#define ROW(id, nm, dia, opc, sp, lvl, fl)                                                         \
	[RP__LF_C_##id] = { .name = nm, .spec = sp, .level = lvl, .op = RP_OP_##opc, .flags = fl, \
			    .dialect = dia, .name_len = sizeof(nm) - 1 },
	RP__LF_CMD_MAP(ROW)
#undef ROW
};

static const char *const ctl_names[] = { "LOOP", "ENDLOOP", "REPEAT", "SETSP", "WAITSP", "WRITEPATTERN",
					 "RANDOMSTRING" };
_Static_assert(sizeof(ctl_names) / sizeof(ctl_names[0]) == RP__LF_K__END - RP__LF_K_LOOP, "control words");

const char *rp__lf_word_name(int k)
{
	if (k >= 0 && k < RP__LF_C__COUNT)
		return rp__lf_cmds[k].name;
	if (k >= RP__LF_K_LOOP && k < RP__LF_K__END)
		return ctl_names[k - RP__LF_K_LOOP];
	return NULL;
}

static inline unsigned char fold(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

/* Length and three case-folded bytes tell the ~60 words apart well enough for linear probing. */
static unsigned hash_word(const char *w, size_t n)
{
	if (n == 0)
		return 0;
	return (unsigned)(n * 37u + fold((unsigned char)w[0]) * 11u + fold((unsigned char)w[n / 2]) * 5u +
			  fold((unsigned char)w[n - 1]) * 3u);
}

static bool eq_fold(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fold((unsigned char)a[i]) != fold((unsigned char)b[i]))
			return false;
	return true;
}

void rp__lf_dict_init(rp__lf_dict *d)
{
	memset(d, 0, sizeof(*d));
	for (int k = 0; k < RP__LF_K__END; k++) {
		const char *const nm = rp__lf_word_name(k);
		unsigned s = hash_word(nm, strlen(nm)) % RP__LF_HASH_SLOTS;
		while (d->slot[s])
			s = (s + 1) % RP__LF_HASH_SLOTS;
		d->slot[s] = (uint8_t)(k + 1);
		d->len[k] = (uint8_t)strlen(nm);
	}
	for (int k = 0; k < RP__LF_C__COUNT; k++) {
		d->n_req[k] = count_req(rp__lf_cmds[k].spec);
		d->n_max[k] = count_max(rp__lf_cmds[k].spec);
	}
}

int rp__lf_dict_find(const rp__lf_dict *d, const char *w, size_t n, int path_first)
{
	unsigned s = hash_word(w, n) % RP__LF_HASH_SLOTS;
	int loose = -1, loose_fit = -1;
	for (; d->slot[s]; s = (s + 1) % RP__LF_HASH_SLOTS) {
		const int k = d->slot[s] - 1;
		if (d->len[k] != n)
			continue;
		const char *const nm = rp__lf_word_name(k);
		if (memcmp(nm, w, n) == 0)
			return k;
		if (!eq_fold(nm, w, n))
			continue;
		if (loose < 0)
			loose = k;
		if (loose_fit < 0 && k < RP__LF_C__COUNT && (rp__lf_cmds[k].spec[0] == 'p') == (path_first != 0))
			loose_fit = k;
	}
	return loose_fit >= 0 ? loose_fit : loose;
}
