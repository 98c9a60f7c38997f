/* SMB3 encryption: transform headers decrypted with known session keys, the 3.1.1 preauth integrity hash (MS-SMB2 2.2.41, 3.1.4.2, 3.1.4.3, 3.2.5.2, 3.2.5.3.1). */
#include <nettle/ccm.h>
#include <nettle/gcm.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb3_int.h"

#define SMB2_HDR_LEN 64u
#define SMB2_NEGOTIATE 0x00
#define SMB2_SESSION_SETUP 0x01
#define SMB2_FLAGS_SERVER_TO_REDIR 0x00000001u
#define SMB2_ENCRYPTION_CAPABILITIES 0x0002
/* A NEGOTIATE response with more contexts than this is not one a server sends (MS-SMB2 defines 8 types). */
#define SMB3_NEG_CONTEXTS_MAX 32

/* ---- the transform header and the AEAD ---- */

int rp__smb3_parse_transform(const uint8_t *data, size_t have, size_t wire, smb3_transform *t)
{
	if (wire < have)
		wire = have;
	if (have < SMB3_TRANSFORM_LEN)
		return wire >= SMB3_TRANSFORM_LEN ? SMB3_PARSE_TRUNCATED : SMB3_PARSE_INVALID;
	rp_cur c = rp_cur_make(data, have);
	const uint8_t *const proto = rp_cur_take(&c, 4);
	t->signature = rp_cur_take(&c, 16);
	t->nonce = rp_cur_take(&c, 16);
	t->aad = t->nonce;
	t->orig_size = rp_cur_le32(&c);
	rp_cur_skip(&c, 2); /* Reserved */
	t->flags = rp_cur_le16(&c);
	t->sid = rp_cur_le64(&c);
	if (c.err || memcmp(proto, "\xFDSMB", 4) != 0)
		return SMB3_PARSE_INVALID;
	/* 3.0.x: EncryptionAlgorithm 1 (AES-128-CCM); 3.1.1: Flags 1 (Encrypted): either way 1 */
	if (t->flags != 1 || t->orig_size == 0 || t->orig_size > SMB3_MSG_MAX)
		return SMB3_PARSE_INVALID;
	/* one transform per message: the header, then exactly OriginalMessageSize bytes */
	if (wire != SMB3_TRANSFORM_LEN + (size_t)t->orig_size)
		return SMB3_PARSE_INVALID;
	if (have < wire)
		return SMB3_PARSE_TRUNCATED;
	t->ciphertext = data + SMB3_TRANSFORM_LEN;
	return SMB3_PARSE_OK;
}

bool rp__smb3_decrypt(int cipher, const uint8_t *key, const smb3_transform *t, uint8_t *out)
{
	uint8_t tag[16];
	const size_t n = t->orig_size;
	switch (cipher) {
	case SMB3_AES128_CCM: {
		struct ccm_aes128_ctx c;
		ccm_aes128_set_key(&c, key);
		ccm_aes128_set_nonce(&c, 11, t->nonce, 32, n, sizeof tag);
		ccm_aes128_update(&c, 32, t->aad);
		ccm_aes128_decrypt(&c, n, out, t->ciphertext);
		ccm_aes128_digest(&c, sizeof tag, tag);
		break;
	}
	case SMB3_AES256_CCM: {
		struct ccm_aes256_ctx c;
		ccm_aes256_set_key(&c, key);
		ccm_aes256_set_nonce(&c, 11, t->nonce, 32, n, sizeof tag);
		ccm_aes256_update(&c, 32, t->aad);
		ccm_aes256_decrypt(&c, n, out, t->ciphertext);
		ccm_aes256_digest(&c, sizeof tag, tag);
		break;
	}
	case SMB3_AES128_GCM: {
		struct gcm_aes128_ctx g;
		gcm_aes128_set_key(&g, key);
		gcm_aes128_set_iv(&g, 12, t->nonce);
		gcm_aes128_update(&g, 32, t->aad);
		gcm_aes128_decrypt(&g, n, out, t->ciphertext);
		gcm_aes128_digest(&g, sizeof tag, tag);
		break;
	}
	case SMB3_AES256_GCM: {
		struct gcm_aes256_ctx g;
		gcm_aes256_set_key(&g, key);
		gcm_aes256_set_iv(&g, 12, t->nonce);
		gcm_aes256_update(&g, 32, t->aad);
		gcm_aes256_decrypt(&g, n, out, t->ciphertext);
		gcm_aes256_digest(&g, sizeof tag, tag);
		break;
	}
	default:
		return false;
	}
	return memeql_sec(tag, t->signature, sizeof tag) != 0;
}

static size_t cipher_key_len(int cipher)
{
	return cipher == SMB3_AES256_CCM || cipher == SMB3_AES256_GCM ? 32 : 16;
}

/* ---- per-connection state: dialect, cipher, preauth hashes ---- */

/* Zero memory that held key material, in a way the compiler keeps. */
static void wipe(void *p, size_t n)
{
	volatile unsigned char *const v = p;
	for (size_t i = 0; i < n; i++)
		v[i] = 0;
}

void rp__smb3_conn_free(smb3_conn *c)
{
	if (!c)
		return;
	wipe(c, sizeof(*c)); /* the preauth hashes are what keys derive from */
	free(c);
}

static smb3_conn *crypt_state(smb_conn *sc)
{
	if (!sc->crypt) {
		sc->crypt = calloc(1, sizeof(*sc->crypt));
		if (sc->crypt)
			sc->crypt->client_end = -1;
	}
	return sc->crypt;
}

static smb3_sess *sess_find(smb3_conn *c, uint64_t sid)
{
	for (unsigned i = 0; i < SMB3_SESS_MAX; i++)
		if (c->sess[i].state && c->sess[i].sid == sid)
			return &c->sess[i];
	return NULL;
}

static smb3_sess *sess_new(smb3_conn *c, uint64_t sid)
{
	smb3_sess *s = NULL;
	for (unsigned i = 0; i < SMB3_SESS_MAX && !s; i++)
		if (!c->sess[i].state)
			s = &c->sess[i];
	if (!s) /* more sessions than we follow: the oldest slot goes */
		s = &c->sess[c->next_evict++ % SMB3_SESS_MAX];
	memset(s, 0, sizeof(*s));
	s->sid = sid;
	s->state = 1;
	return s;
}

/* hash = SHA-512(hash || message) */
static void chain(uint8_t hash[64], const uint8_t *msg, size_t len)
{
	struct sha512_ctx h;
	sha512_init(&h);
	sha512_update(&h, 64, hash);
	sha512_update(&h, len, msg);
	sha512_digest(&h, 64, hash);
}

/* DialectRevision and, for 3.1.1, the cipher of the encryption context of a NEGOTIATE response. */
static void negotiate_response(smb3_conn *c, const uint8_t *pdu, size_t have)
{
	rp_cur b = rp_cur_make(pdu, have);
	rp_cur_skip(&b, SMB2_HDR_LEN + 4); /* header, StructureSize, SecurityMode */
	const uint16_t dialect = rp_cur_le16(&b);
	const uint16_t n_ctx = rp_cur_le16(&b);
	rp_cur_skip(&b, 52); /* ServerGuid .. SecurityBufferLength */
	const uint32_t ctx_off = rp_cur_le32(&b);
	if (b.err)
		return;
	c->dialect = dialect;
	c->cipher = dialect == 0x0300 || dialect == 0x0302 ? SMB3_AES128_CCM : 0;
	if (dialect != 0x0311 || ctx_off >= have)
		return;
	size_t at = ctx_off;
	for (unsigned i = 0; i < n_ctx && i < SMB3_NEG_CONTEXTS_MAX; i++) {
		at = (at + 7) & ~(size_t)7; /* each context starts 8-byte aligned */
		if (at >= have)
			return;
		rp_cur x = rp_cur_make(pdu + at, have - at);
		const uint16_t type = rp_cur_le16(&x);
		const uint16_t len = rp_cur_le16(&x);
		rp_cur_skip(&x, 4);
		rp_cur data = rp_cur_sub(&x, len);
		if (x.err)
			return;
		if (type == SMB2_ENCRYPTION_CAPABILITIES) {
			const uint16_t count = rp_cur_le16(&data);
			const uint16_t cipher = rp_cur_le16(&data);
			/* the response names the one cipher the server chose */
			if (!data.err && count >= 1 && cipher >= SMB3_AES128_CCM && cipher <= SMB3_AES256_GCM)
				c->cipher = (uint8_t)cipher;
		}
		at += 8 + (size_t)len;
	}
}

void rp__smb3_note(smb_conn *sc, const rp_msg *m, const uint8_t *pdu, size_t have, size_t wire, uint16_t cmd,
		   uint32_t flags, uint32_t status, uint64_t sid)
{
	smb3_conn *const c = crypt_state(sc);
	if (!c)
		return;
	const bool resp = (flags & SMB2_FLAGS_SERVER_TO_REDIR) != 0;
	if (!resp)
		c->client_end = (int8_t)m->from;
	/* The hash covers whole messages: one cut short cannot be hashed, and later keys cannot be derived. */
	const bool whole = have == wire;
	if (cmd == SMB2_NEGOTIATE) {
		if (!resp) {
			memset(c->neg_hash, 0, sizeof c->neg_hash);
			chain(c->neg_hash, pdu, have);
			c->neg_req_seen = whole;
			c->neg_hash_ok = false;
			c->pending_ok = false;
			return;
		}
		negotiate_response(c, pdu, have);
		if (c->neg_req_seen && whole && status == NT_STATUS_OK) {
			chain(c->neg_hash, pdu, have);
			c->neg_hash_ok = true;
		}
		c->neg_req_seen = false;
		return;
	}
	if (cmd != SMB2_SESSION_SETUP || c->dialect != 0x0311 || !c->neg_hash_ok)
		return;
	if (!resp) {
		if (sid == 0) {
			/* a new session: its hash starts from the connection's */
			memcpy(c->pending_hash, c->neg_hash, sizeof c->pending_hash);
			chain(c->pending_hash, pdu, have);
			c->pending_ok = whole;
			return;
		}
		smb3_sess *const s = sess_find(c, sid);
		if (s && s->state == 1) {
			if (whole)
				chain(s->hash, pdu, have);
			else
				s->state = 0;
		}
		return;
	}
	smb3_sess *s = sess_find(c, sid);
	if (!s && c->pending_ok) {
		s = sess_new(c, sid);
		memcpy(s->hash, c->pending_hash, sizeof s->hash);
		c->pending_ok = false;
	}
	if (!s || s->state != 1)
		return; /* a re-authentication or a binding: the session's keys stay as they were */
	if (status == NT_STATUS_MORE_PROCESSING_REQUIRED && whole) {
		chain(s->hash, pdu, have);
	} else if (status == NT_STATUS_OK) {
		s->state = 2; /* the final response is not hashed: the hash is the keys' context */
	} else {
		memset(s, 0, sizeof(*s)); /* failed: the client starts again with SessionId 0 */
	}
}

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
	wipe(v, sizeof(smb3_derived));
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
	const smb3_sess *const s = sess_find(c, k->sid);
	if (c->dialect == 0x0311 && s && s->state == 2 && c->cipher && !(d && d->from_hash && d->cipher == c->cipher)) {
		bool fresh;
		if (!(d = rp__smb_map_put(cs->derived, &mk, &fresh)))
			return DERIVE_NOMEM;
		const size_t l = cipher_key_len(c->cipher);
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
		if (c->cipher && cipher_key_len(c->cipher) == k->dir_len) {
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
	smb3_conn *const c = k ? crypt_state(sc) : NULL;
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
