/* Internals of SMB3 decryption: keys, key derivation, the transform header, per-connection crypto state (MS-SMB2 2.2.41, 3.1.4.2, 3.2.5.2). */
#ifndef REPRISE_CAPTURE_SMB3_INT_H
#define REPRISE_CAPTURE_SMB3_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/smb/smb_int.h"

/* One --smb-key entry. */
typedef struct smb3_key {
	uint64_t sid; /* SessionId (the wire's 8 bytes read little-endian) */
	uint8_t key[32], s2c[32], c2s[32];
	uint8_t key_len; /* 16 or 32 */
	uint8_t dir_len; /* 0: derive S2C/C2S from key; else 16 or 32 */
} smb3_key;

const smb3_key *rp__smb3_key_find(const rp_smb_keys *keys, uint64_t sid);

/* SP800-108 counter-mode KDF with HMAC-SHA256 (MS-SMB2 3.1.4.2): out_len bytes (L = 8 * out_len). */
void rp__smb3_kdf(const uint8_t *ki, size_t ki_len, const uint8_t *label, size_t label_len, const uint8_t *ctx,
		  size_t ctx_len, uint8_t *out, size_t out_len);

/* SMB2 NEGOTIATE cipher ids (MS-SMB2 2.2.3.1.2). */
enum smb3_cipher {
	SMB3_AES128_CCM = 1,
	SMB3_AES128_GCM = 2,
	SMB3_AES256_CCM = 3,
	SMB3_AES256_GCM = 4,
};

#define SMB3_TRANSFORM_LEN 52u
/* A decrypted message over 16 MiB is corruption: SMB2 reads and writes stop at 8 MiB. */
#define SMB3_MSG_MAX (16u << 20)

typedef struct smb3_transform {
	const uint8_t *signature; /* 16 bytes: the AEAD tag */
	const uint8_t *nonce;     /* 16 bytes; CCM uses 11, GCM 12 */
	const uint8_t *aad;       /* the 32 bytes from Nonce to the header's end */
	uint32_t orig_size;       /* OriginalMessageSize: the plaintext's and the ciphertext's length */
	uint16_t flags;           /* Flags/EncryptionAlgorithm: 1 */
	uint64_t sid;
	const uint8_t *ciphertext; /* orig_size bytes */
} smb3_transform;

enum smb3_parse { SMB3_PARSE_OK = 0, SMB3_PARSE_TRUNCATED, SMB3_PARSE_INVALID };
/* Parse a transform message (have bytes present of wire bytes claimed); enum smb3_parse. */
int rp__smb3_parse_transform(const uint8_t *data, size_t have, size_t wire, smb3_transform *t);

/* AEAD decryption of t's ciphertext into out (t->orig_size bytes); true when the tag verifies. */
bool rp__smb3_decrypt(int cipher, const uint8_t *key, const smb3_transform *t, uint8_t *out);

/* Sessions whose preauth integrity hash one connection follows at once (a client sets up a few). */
#define SMB3_SESS_MAX 16

/* A session being set up on a connection: its preauth integrity hash (3.1.1). */
typedef struct smb3_sess {
	uint64_t sid;
	uint8_t hash[64];
	uint8_t state; /* 0 free, 1 being set up, 2 set up (hash final) */
} smb3_sess;

/* Keys derived from a session key, kept per capture: every channel of a session encrypts with them. */
typedef struct smb3_derived {
	uint8_t cipher;
	bool from_hash; /* 3.1.1 keys from the preauth hash (else the 3.0 derivation) */
	uint8_t c2s[32], s2c[32];
} smb3_derived;

/* Per-connection SMB3 crypto state (smb_conn.crypt), kept only when keys were given. */
typedef struct smb3_conn {
	uint16_t dialect; /* the NEGOTIATE response's DialectRevision; 0 before one is seen */
	uint8_t cipher;   /* its encryption context's cipher (3.1.1), or CCM for 3.0.x; 0 unknown */
	bool neg_hash_ok; /* neg_hash covers the NEGOTIATE request and response */
	bool neg_req_seen;
	uint8_t neg_hash[64];
	bool pending_ok;  /* pending_hash: a SESSION_SETUP with SessionId 0 in flight */
	uint8_t pending_hash[64];
	smb3_sess sess[SMB3_SESS_MAX];
	unsigned next_evict;
	int8_t client_end; /* -1 until a decryption or a clear header tells */
} smb3_conn;

void rp__smb3_conn_free(smb3_conn *c);
/* Follow a clear NEGOTIATE or SESSION_SETUP PDU (the preauth hash, dialect, cipher). */
void rp__smb3_note(smb_conn *sc, const rp_msg *m, const uint8_t *pdu, size_t have, size_t wire, uint16_t cmd,
		   uint32_t flags, uint32_t status, uint64_t sid);
/* The connection's crypto state, created on first use (NULL when out of memory). */
smb3_conn *rp__smb3_conn_get(smb_conn *sc);
/* The session being set up or set up with this SessionId, or NULL. */
smb3_sess *rp__smb3_sess_find(smb3_conn *c, uint64_t sid);
/* Key bytes of a cipher: 32 for the AES-256 ones, else 16. */
size_t rp__smb3_key_len(int cipher);
/* Zero memory that held key material, in a way the compiler keeps. */
void rp__smb3_wipe(void *p, size_t n);

#endif
