/* SMB3 transform messages: keys derived for the session, the message decrypted and handed to the SMB2 decoder (MS-SMB2 2.2.41, 3.1.4.2, 3.2.5.3.1). */
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb3_int.h"
#include "capture/smb/smb_dialect.h"

/* ---- decrypting a transform message ---- */

/* Per-capture state: the plaintext buffer, and the keys derived for each session. */
typedef struct crypt_cap {
	uint8_t *buf;
	size_t cap;
	rp_smb_map *derived; /* (SessionId) -> smb3_derived */
} crypt_cap;

static const int cap_key; /* its address tells our capctx state apart */

static void cap_destroy(void *p)
{
	crypt_cap *const s = p;
	if (!s)
		return;
	free(s->buf);
	rp__smb_map_destroy(s->derived);
	free(s);
}

static void derived_free(void *v)
{
	rp__smb3_wipe(v, sizeof(smb3_derived));
}

static void *cap_create(void)
{
	crypt_cap *const s = calloc(1, sizeof(*s));
	if (s && !(s->derived = rp__smb_map_create(sizeof(smb3_derived), derived_free))) {
		free(s);
		return NULL;
	}
	return s;
}

static crypt_cap *cap_state(rp_capctx *cx)
{
	return rp__cap_state(cx, &cap_key, cap_create, cap_destroy);
}

static uint8_t *plain_buf(crypt_cap *s, size_t n)
{
	if (s->cap < n) {
		uint8_t *const b = realloc(s->buf, n);
		if (!b)
			return NULL;
		s->buf = b;
		s->cap = n;
	}
	return s->buf;
}

/* What one try needs: a cipher and the keys for both directions. */
typedef struct keyset {
	uint8_t cipher;
	const uint8_t *c2s, *s2c;
} keyset;

enum derive { DERIVE_OK, DERIVE_NO_HASH, DERIVE_NOMEM };

/*
 * The keys of a session given by its session key alone, derived once per
 * capture: on the connection that set the session up (3.1.1: from its preauth
 * hash), and then used on every channel bound to it.
 */
static int derive(crypt_cap *cs, smb3_conn *c, const smb3_key *k, keyset *ks)
{
	const smb_key mk = { k->sid, 0, 3 };
	smb3_derived *d = rp__smb_map_get(cs->derived, &mk);
	const smb3_sess *const s = rp__smb3_sess_find(c, k->sid);
	if (c->dialect == 0x0311 && s && s->state == 2 && c->cipher && !(d && d->from_hash && d->cipher == c->cipher)) {
		bool fresh;
		if (!(d = rp__smb_map_put(cs->derived, &mk, &fresh)))
			return DERIVE_NOMEM;
		const size_t l = rp__smb3_key_len(c->cipher);
		/* AES-256 keys come from the full session key; AES-128 ones from its first 16 bytes */
		const size_t ki = l == 32 ? k->key_len : 16;
		rp__smb3_kdf(k->key, ki, (const uint8_t *)"SMBC2SCipherKey", 16, s->hash, 64, d->c2s, l);
		rp__smb3_kdf(k->key, ki, (const uint8_t *)"SMBS2CCipherKey", 16, s->hash, 64, d->s2c, l);
		d->cipher = c->cipher;
		d->from_hash = true;
	} else if (!d && c->dialect == 0x0311) {
		return DERIVE_NO_HASH;
	} else if (!d) {
		/* 3.0 and 3.0.2, or a connection whose NEGOTIATE was not captured: the 3.0 keys are the only
		 * ones the session key alone gives */
		bool fresh;
		if (!(d = rp__smb_map_put(cs->derived, &mk, &fresh)))
			return DERIVE_NOMEM;
		rp__smb3_kdf(k->key, 16, (const uint8_t *)"SMB2AESCCM", 11, (const uint8_t *)"ServerIn ", 10, d->c2s, 16);
		rp__smb3_kdf(k->key, 16, (const uint8_t *)"SMB2AESCCM", 11, (const uint8_t *)"ServerOut", 10, d->s2c, 16);
		d->cipher = SMB3_AES128_CCM;
		d->from_hash = false;
	}
	*ks = (keyset){ .cipher = d->cipher, .c2s = d->c2s, .s2c = d->s2c };
	return DERIVE_OK;
}

/* The keysets to try, most likely first; their number. */
static unsigned keysets(crypt_cap *cs, smb3_conn *c, const smb3_key *k, keyset ks[2], int *why)
{
	*why = DERIVE_OK;
	if (k->dir_len) {
		/* keys given: the negotiated cipher if it was captured, else each cipher of that key length */
		if (c->cipher && rp__smb3_key_len(c->cipher) == k->dir_len) {
			ks[0] = (keyset){ c->cipher, k->c2s, k->s2c };
			return 1;
		}
		const bool big = k->dir_len == 32;
		ks[0] = (keyset){ big ? SMB3_AES256_GCM : SMB3_AES128_GCM, k->c2s, k->s2c };
		ks[1] = (keyset){ big ? SMB3_AES256_CCM : SMB3_AES128_CCM, k->c2s, k->s2c };
		return 2;
	}
	*why = derive(cs, c, k, &ks[0]);
	return *why == DERIVE_OK ? 1 : 0;
}

void rp__smb3_transform(rp_capctx *cx, rp_conn *conn, smb_conn *sc, const rp_msg *m)
{
	const rp_smb_keys *const keys = rp__cap_opts(cx)->smb_keys;
	smb3_transform t;
	const int pr = rp__smb3_parse_transform(m->data, m->len, m->wire_len, &t);
	if (pr != SMB3_PARSE_OK) {
		rp__cap_count(cx, pr == SMB3_PARSE_TRUNCATED ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return;
	}
	const smb3_key *const k = rp__smb3_key_find(keys, t.sid);
	smb3_conn *const c = k ? rp__smb3_conn_get(sc) : NULL;
	if (!c) {
		rp__cap_count(cx, RP_OUT_ENCRYPTED, NULL);
		return;
	}
	crypt_cap *const cs = cap_state(cx);
	uint8_t *const out = cs ? plain_buf(cs, t.orig_size) : NULL;
	if (!out) {
		rp__cap_count(cx, RP_OUT_ENCRYPTED, NULL);
		return;
	}
	keyset ks[2];
	int why;
	const unsigned n = keysets(cs, c, k, ks, &why);
	if (why == DERIVE_NO_HASH) {
		/* 3.1.1 keys hang on the session setup's preauth hash: without it only S2C/C2S keys decrypt */
		rp__cap_count(cx, RP_OUT_ENCRYPTED, NULL);
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, "SMB3 3.1.1 setup not captured (give S2C:C2S)");
		return;
	}
	if (why != DERIVE_OK) {
		rp__cap_count(cx, RP_OUT_ENCRYPTED, NULL); /* out of memory */
		return;
	}
	bool ok = false;
	for (unsigned i = 0; i < n && !ok; i++) {
		/* the sender's direction when it is known, else both */
		const int n_dir = c->client_end < 0 ? 2 : 1;
		for (int dir = 0; dir < n_dir && !ok; dir++) {
			const bool client_key = c->client_end < 0 ? dir == 0 : m->from == c->client_end;
			if (rp__smb3_decrypt(ks[i].cipher, client_key ? ks[i].c2s : ks[i].s2c, &t, out)) {
				ok = true;
				if (c->client_end < 0)
					c->client_end = (int8_t)(client_key ? m->from : !m->from);
				if (!c->cipher)
					c->cipher = ks[i].cipher;
			}
		}
	}
	if (!ok) {
		rp__cap_count(cx, RP_OUT_DECRYPT_FAILED, NULL);
		return;
	}
	rp__cap_count(cx, RP_OUT_DECRYPTED, NULL);
	rp_msg clear = *m;
	clear.data = out;
	clear.len = clear.wire_len = t.orig_size;
	clear.truncated = false;
	if (t.orig_size >= 4 && memcmp(out, "\xFESMB", 4) == 0)
		rp__smb2_message(cx, conn, sc, &clear);
	else if (t.orig_size >= 4 && memcmp(out, "\xFCSMB", 4) == 0)
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, "SMB2 COMPRESSION_TRANSFORM");
	else
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
}
