/* SMB3 encryption below the transform decoder (smb3_transform.c): transform headers, the AEAD, the per-connection dialect, cipher and 3.1.1 preauth integrity hash (MS-SMB2 2.2.41, 3.1.4.2, 3.1.4.3, 3.2.5.2, 3.2.5.3.1). */
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

size_t rp__smb3_key_len(int cipher)
{
	return cipher == SMB3_AES256_CCM || cipher == SMB3_AES256_GCM ? 32 : 16;
}

/* ---- per-connection state: dialect, cipher, preauth hashes ---- */

void rp__smb3_wipe(void *p, size_t n)
{
	volatile unsigned char *const v = p;
	for (size_t i = 0; i < n; i++)
		v[i] = 0;
}

void rp__smb3_conn_free(smb3_conn *c)
{
	if (!c)
		return;
	rp__smb3_wipe(c, sizeof(*c)); /* the preauth hashes are what keys derive from */
	free(c);
}

smb3_conn *rp__smb3_conn_get(smb_conn *sc)
{
	if (!sc->crypt) {
		sc->crypt = calloc(1, sizeof(*sc->crypt));
		if (sc->crypt)
			sc->crypt->client_end = -1;
	}
	return sc->crypt;
}

smb3_sess *rp__smb3_sess_find(smb3_conn *c, uint64_t sid)
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
	smb3_conn *const c = rp__smb3_conn_get(sc);
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
		smb3_sess *const s = rp__smb3_sess_find(c, sid);
		if (s && s->state == 1) {
			if (whole)
				chain(s->hash, pdu, have);
			else
				s->state = 0;
		}
		return;
	}
	smb3_sess *s = rp__smb3_sess_find(c, sid);
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
