/* Unit tests of SMB3 decryption: keys, the KDF, the transform header, AEAD, decoding what was encrypted (MS-SMB2 2.2.41, 3.1.4.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>
#include <nettle/ccm.h>
#include <nettle/gcm.h>

#include "capture/smb/smb3_int.h"
#include "formats/error.h"
#include "smb_harness.h"

static void unhex(const char *s, uint8_t *out)
{
	for (size_t i = 0; s[2 * i]; i++)
		out[i] = (uint8_t)(rp_hex_digit(s[2 * i]) << 4 | rp_hex_digit(s[2 * i + 1]));
}

/* ---- KDF ---- */

static void test_kdf_vectors(void **state)
{
	(void)state;
	uint8_t key[16], out[32], want[32];
	/* SMB 3.0: the keys Samba 4.17's smbclient printed for session key 259c... (tests/data/pcap/reprise__smb3-enc-300.pcap.keys) */
	unhex("259c249fc637216bcf6ae240702b0e9c", key);
	rp__smb3_kdf(key, 16, (const uint8_t *)"SMB2AESCCM", 11, (const uint8_t *)"ServerIn ", 10, out, 16);
	unhex("a87265a1157fface4de2623eba60c690", want);
	assert_memory_equal(out, want, 16);
	rp__smb3_kdf(key, 16, (const uint8_t *)"SMB2AESCCM", 11, (const uint8_t *)"ServerOut", 10, out, 16);
	unhex("b3f8687ea8e144e0b0471b35f6677978", want);
	assert_memory_equal(out, want, 16);
	/* L = 256 and a 64-byte context, computed with python3's hmac/hashlib (SP800-108 counter mode) */
	uint8_t ki[32], ctx[64];
	for (int i = 0; i < 32; i++)
		ki[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		ctx[i] = (uint8_t)(64 + i);
	rp__smb3_kdf(ki, 32, (const uint8_t *)"SMBC2SCipherKey", 16, ctx, 64, out, 32);
	unhex("7d3335053f32ae6565011c5c16510232fb06b5982c69499d627b0f226abc6e43", want);
	assert_memory_equal(out, want, 32);
	rp__smb3_kdf(ki, 16, (const uint8_t *)"SMBS2CCipherKey", 16, ctx, 64, out, 16);
	unhex("be360e38d4c2af06f83f2427ac74df0f", want);
	assert_memory_equal(out, want, 16);
}

/* ---- keys ---- */

#define SID "1122334455667788"
#define K16 "000102030405060708090a0b0c0d0e0f"
#define K32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static void bad_key(const char *spec, const char *what)
{
	rp_smb_keys *k;
	assert_int_equal(rp_smb_keys_create(&k), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	assert_true(rp_smb_keys_add(k, spec, eb) < 0);
	if (!strstr(eb, what))
		fprintf(stderr, "# %s: %s\n", spec, eb);
	assert_non_null(strstr(eb, what));
	/* a message names what is wrong, never a key's digits */
	assert_null(strstr(eb, "0a0b0c"));
	assert_int_equal(rp_smb_keys_count(k), 0);
	rp_smb_keys_destroy(k);
}

static void test_keys_parse(void **state)
{
	(void)state;
	rp_smb_keys *k;
	assert_int_equal(rp_smb_keys_create(&k), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_smb_keys_add(k, "  " SID ":" K16 " \r\n", eb), 0);
	assert_int_equal(rp_smb_keys_add(k, "0100000000000000:" K16 ":" K32 ":" K32, eb), 0);
	assert_int_equal(rp_smb_keys_add(k, "0200000000000000:" K32 ":" K16 ":" K16, eb), 0);
	assert_int_equal(rp_smb_keys_count(k), 3);
	/* the session id is its wire bytes: 11 22 .. 88 is 0x8877665544332211 */
	const smb3_key *const a = rp__smb3_key_find(k, 0x8877665544332211ull);
	assert_non_null(a);
	assert_int_equal(a->key_len, 16);
	assert_int_equal(a->dir_len, 0);
	const smb3_key *const b = rp__smb3_key_find(k, 1);
	assert_non_null(b);
	assert_int_equal(b->dir_len, 32);
	assert_int_equal(b->s2c[31], 0x1f);
	assert_non_null(rp__smb3_key_find(k, 2));
	assert_null(rp__smb3_key_find(k, 3));
	assert_null(rp__smb3_key_find(NULL, 1));
	assert_true(rp_smb_keys_add(k, SID ":" K32, eb) == RP_E_EXISTS);
	assert_non_null(strstr(eb, "given twice"));
	rp_smb_keys_destroy(k);
	rp_smb_keys_destroy(NULL);

	bad_key("", "got 1 field");
	bad_key(SID, "got 1 field");
	bad_key(SID ":" K16 ":" K16, "got 3 fields");
	bad_key(SID ":" K16 ":" K16 ":" K16 ":" K16, "more than 4 fields");
	bad_key("11223344556677:" K16, "16 hex digits");
	bad_key("112233445566778899:" K16, "16 hex digits");
	bad_key("11223344556677zz:" K16, "16 hex digits");
	bad_key(SID ":" "000102030405060708090a0b0c0d0e", "32 or 64 hex digits");
	bad_key(SID ":" "000102030405060708090a0b0c0d0e0f1011121314151617", "32 or 64 hex digits");
	bad_key(SID ":" "000102030405060708090a0b0c0d0e0g", "32 or 64 hex digits");
	bad_key(SID ":" K16 ":" K16 ":" K32, "must both be 32 or both 64");
	bad_key(SID ":" K16 "::" K16, "must both be 32 or both 64");
	char longer[RP_SMB_KEY_LINE_MAX + 8];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	bad_key(longer, "longer than");
}

static void test_keys_limit(void **state)
{
	(void)state;
	rp_smb_keys *k;
	assert_int_equal(rp_smb_keys_create(&k), 0);
	char eb[RP_ERRBUF_SIZE], spec[128];
	for (unsigned i = 0; i < RP_SMB_KEYS_MAX; i++) {
		/* descending ids: every insert goes to the front of the sorted table */
		const unsigned id = RP_SMB_KEYS_MAX - i;
		snprintf(spec, sizeof spec, "%02x%02x000000000000:" K16, id & 0xFF, id >> 8);
		assert_int_equal(rp_smb_keys_add(k, spec, eb), 0);
	}
	assert_true(rp_smb_keys_add(k, "ffff000000000000:" K16, eb) == RP_E_LIMIT);
	assert_int_equal(rp_smb_keys_count(k), RP_SMB_KEYS_MAX);
	for (unsigned id = 1; id <= RP_SMB_KEYS_MAX; id++)
		assert_non_null(rp__smb3_key_find(k, id));
	assert_null(rp__smb3_key_find(k, 0));
	rp_smb_keys_destroy(k);
}

static void test_keys_file(void **state)
{
	(void)state;
	char path[] = "/tmp/reprise-smbkeys-XXXXXX";
	const int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *const f = fdopen(fd, "w");
	fprintf(f, "# keys\n\n   \n" SID ":" K16 "\n  # indented comment\n0100000000000000:" K16 ":" K16 ":" K16 "\n");
	fclose(f);
	rp_smb_keys *k;
	assert_int_equal(rp_smb_keys_create(&k), 0);
	char eb[RP_ERRBUF_SIZE] = "";
	assert_int_equal(rp_smb_keys_load(k, path, eb), 0);
	assert_int_equal(rp_smb_keys_count(k), 2);
	rp_smb_keys_destroy(k);

	FILE *const g = fopen(path, "w");
	fprintf(g, "# keys\n" SID ":" K16 "\n0100000000000000:" K16 ":zz\n");
	fclose(g);
	assert_int_equal(rp_smb_keys_create(&k), 0);
	assert_true(rp_smb_keys_load(k, path, eb) < 0);
	char want[64];
	snprintf(want, sizeof want, "%s:3: SMB key:", path);
	assert_non_null(strstr(eb, want));
	rp_smb_keys_destroy(k);

	/* a NUL after a key would have cut the line there: the file is refused, naming the line */
	FILE *const z = fopen(path, "w");
	fprintf(z, "# keys\n" SID ":" K16);
	fputc('\0', z);
	fprintf(z, "junk\n");
	fclose(z);
	assert_int_equal(rp_smb_keys_create(&k), 0);
	assert_int_equal(rp_smb_keys_load(k, path, eb), RP_E_SYNTAX);
	snprintf(want, sizeof want, "%s:2: a NUL byte", path);
	assert_non_null(strstr(eb, want));
	assert_int_equal(rp_smb_keys_count(k), 0);
	rp_smb_keys_destroy(k);
	assert_int_equal(rp_smb_keys_create(&k), 0);
	assert_int_equal(rp_smb_keys_load(k, "/dev/zero", eb), RP_E_SYNTAX); /* ends: the bound is read, no more */
	rp_smb_keys_destroy(k);
	unlink(path);

	assert_int_equal(rp_smb_keys_create(&k), 0);
	assert_true(rp_smb_keys_load(k, "/nonexistent/keys", eb) == RP_E_IO);
	assert_non_null(strstr(eb, "/nonexistent/keys"));
	rp_smb_keys_destroy(k);
}

/* ---- the transform header and AEAD ---- */

/* A transform message of cipher over plain (n bytes) for session sid with key. */
static size_t seal(uint8_t *out, int cipher, const uint8_t *key, uint64_t sid, const uint8_t *plain, size_t n,
		   uint8_t nonce_seed)
{
	memcpy(out, "\xFDSMB", 4);
	for (int i = 0; i < 16; i++)
		out[20 + i] = (uint8_t)(nonce_seed + i);
	/* CCM's nonce is 11 bytes, GCM's 12: the rest of the field is zero */
	memset(out + 20 + (cipher == SMB3_AES128_CCM || cipher == SMB3_AES256_CCM ? 11 : 12), 0,
	       cipher == SMB3_AES128_CCM || cipher == SMB3_AES256_CCM ? 5 : 4);
	rp_put_le32(out + 36, (uint32_t)n);
	rp_put_le16(out + 40, 0);
	rp_put_le16(out + 42, 1);
	rp_put_le64(out + 44, sid);
	uint8_t *const ct = out + SMB3_TRANSFORM_LEN, *const tag = out + 4;
	switch (cipher) {
	case SMB3_AES128_CCM: {
		struct ccm_aes128_ctx c;
		ccm_aes128_set_key(&c, key);
		ccm_aes128_set_nonce(&c, 11, out + 20, 32, n, 16);
		ccm_aes128_update(&c, 32, out + 20);
		ccm_aes128_encrypt(&c, n, ct, plain);
		ccm_aes128_digest(&c, 16, tag);
		break;
	}
	case SMB3_AES256_CCM: {
		struct ccm_aes256_ctx c;
		ccm_aes256_set_key(&c, key);
		ccm_aes256_set_nonce(&c, 11, out + 20, 32, n, 16);
		ccm_aes256_update(&c, 32, out + 20);
		ccm_aes256_encrypt(&c, n, ct, plain);
		ccm_aes256_digest(&c, 16, tag);
		break;
	}
	case SMB3_AES128_GCM: {
		struct gcm_aes128_ctx g;
		gcm_aes128_set_key(&g, key);
		gcm_aes128_set_iv(&g, 12, out + 20);
		gcm_aes128_update(&g, 32, out + 20);
		gcm_aes128_encrypt(&g, n, ct, plain);
		gcm_aes128_digest(&g, 16, tag);
		break;
	}
	default: {
		struct gcm_aes256_ctx g;
		gcm_aes256_set_key(&g, key);
		gcm_aes256_set_iv(&g, 12, out + 20);
		gcm_aes256_update(&g, 32, out + 20);
		gcm_aes256_encrypt(&g, n, ct, plain);
		gcm_aes256_digest(&g, 16, tag);
		break;
	}
	}
	return SMB3_TRANSFORM_LEN + n;
}

static void test_parse_transform(void **state)
{
	(void)state;
	uint8_t key[32] = { 1 }, plain[100], msg[200];
	memset(plain, 0x5A, sizeof plain);
	const size_t n = seal(msg, SMB3_AES128_GCM, key, 7, plain, sizeof plain, 3);
	smb3_transform t;
	assert_int_equal(rp__smb3_parse_transform(msg, n, n, &t), SMB3_PARSE_OK);
	assert_int_equal(t.orig_size, 100);
	assert_true(t.sid == 7);
	assert_ptr_equal(t.ciphertext, msg + 52);
	/* every cut: truncated once the header would have fit, invalid before */
	for (size_t cut = 0; cut < n; cut++) {
		const int r = rp__smb3_parse_transform(msg, cut, n, &t);
		assert_int_equal(r, SMB3_PARSE_TRUNCATED);
		/* a message that claims only what is there: too short for the header, or for OriginalMessageSize */
		assert_int_equal(rp__smb3_parse_transform(msg, cut, cut, &t), SMB3_PARSE_INVALID);
	}
	/* OriginalMessageSize: zero, beyond the message, short of it, over the limit */
	uint8_t bad[200];
	const uint32_t sizes[] = { 0, 101, 99, SMB3_MSG_MAX + 1, UINT32_MAX };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		memcpy(bad, msg, n);
		rp_put_le32(bad + 36, sizes[i]);
		assert_int_equal(rp__smb3_parse_transform(bad, n, n, &t), SMB3_PARSE_INVALID);
	}
	memcpy(bad, msg, n);
	rp_put_le16(bad + 42, 2); /* Flags: not Encrypted */
	assert_int_equal(rp__smb3_parse_transform(bad, n, n, &t), SMB3_PARSE_INVALID);
	memcpy(bad, msg, n);
	bad[0] = 0xFE;
	assert_int_equal(rp__smb3_parse_transform(bad, n, n, &t), SMB3_PARSE_INVALID);
	/* a wire length that disagrees with OriginalMessageSize */
	assert_int_equal(rp__smb3_parse_transform(msg, n, n + 1, &t), SMB3_PARSE_INVALID);
}

static void test_decrypt_ciphers(void **state)
{
	(void)state;
	uint8_t key[32], plain[300], msg[400], out[300];
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(0xA0 + i);
	for (size_t i = 0; i < sizeof plain; i++)
		plain[i] = (uint8_t)i;
	for (int cipher = SMB3_AES128_CCM; cipher <= SMB3_AES256_GCM; cipher++) {
		const size_t n = seal(msg, cipher, key, 0x42, plain, sizeof plain, (uint8_t)cipher);
		smb3_transform t;
		assert_int_equal(rp__smb3_parse_transform(msg, n, n, &t), SMB3_PARSE_OK);
		assert_true(rp__smb3_decrypt(cipher, key, &t, out));
		assert_memory_equal(out, plain, sizeof plain);
		/* another cipher, a changed tag, ciphertext or authenticated header byte: no */
		for (int other = SMB3_AES128_CCM; other <= SMB3_AES256_GCM; other++)
			if (other != cipher)
				assert_false(rp__smb3_decrypt(other, key, &t, out));
		assert_false(rp__smb3_decrypt(0, key, &t, out));
		const size_t flips[] = { 4, 19, 20, 36, 44, 51, 52, n - 1 };
		for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
			msg[flips[i]] ^= 0x01;
			smb3_transform u;
			if (rp__smb3_parse_transform(msg, n, n, &u) == SMB3_PARSE_OK)
				assert_false(rp__smb3_decrypt(cipher, key, &u, out));
			msg[flips[i]] ^= 0x01;
		}
	}
}

/* ---- decoding through rp__smb_message ---- */

enum { SES = 0x05060708, TREE = 5 };

static env *env_keys(const rp_smb_keys *keys)
{
	env *const e = env_new();
	rp__capctx_destroy(e->cx);
	const rp_capture_opts opts = { .smb_keys = keys };
	e->cx = rp__capctx_create(&e->ms.base, &opts, &e->st);
	assert_non_null(e->cx);
	return e;
}

static void send_sealed(env *e, uint8_t from, int cipher, const uint8_t *key, const mb *m, uint8_t seed)
{
	static uint8_t buf[sizeof(((mb *)0)->b) + 64];
	const size_t n = seal(buf, cipher, key, SES, m->b, m->n, seed);
	env_send_cut(e, from, buf, n, n);
}

/* A CREATE and its response, each encrypted with its direction's key. */
static void sealed_create(env *e, int cipher, const uint8_t *c2s, const uint8_t *s2c, uint64_t mid, const char *name)
{
	mb q = { .n = 0 }, r = { .n = 0 };
	const size_t at = s2_hdr(&q, 5, 0, mid, SES, TREE, 0);
	s2_create_req(&q, at, name, 0x0012019F, 1, 0);
	send_sealed(e, 0, cipher, c2s, &q, (uint8_t)mid);
	s2_hdr(&r, 5, S2_RESP, mid, SES, TREE, 0);
	s2_create_resp(&r, 1, 0x20, mid, mid + 100);
	send_sealed(e, 1, cipher, s2c, &r, (uint8_t)(mid + 50));
}

static void test_decode_given_keys(void **state)
{
	(void)state;
	/* S2C and C2S given: the cipher is found by trying those of the key length */
	for (int cipher = SMB3_AES128_CCM; cipher <= SMB3_AES256_GCM; cipher++) {
		const bool big = cipher >= SMB3_AES256_CCM;
		char spec[200];
		snprintf(spec, sizeof spec, "%02x%02x%02x%02x00000000:%s:%s:%s", (unsigned)SES & 0xFF, (unsigned)(SES >> 8) & 0xFF,
			 (unsigned)(SES >> 16) & 0xFF, (unsigned)(SES >> 24) & 0xFF, K16, big ? K32 : K16,
			 big ? "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e0f"
			     : "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
		rp_smb_keys *k;
		assert_int_equal(rp_smb_keys_create(&k), 0);
		char eb[RP_ERRBUF_SIZE];
		assert_int_equal(rp_smb_keys_add(k, spec, eb), 0);
		const smb3_key *const key = rp__smb3_key_find(k, SES);
		assert_non_null(key);
		env *const e = env_keys(k);
		sealed_create(e, cipher, key->c2s, key->s2c, 1, "a.txt");
		sealed_create(e, cipher, key->c2s, key->s2c, 2, "b.txt");
		/* a message sealed with the wrong direction's key does not verify once the roles are known */
		mb q = { .n = 0 };
		const size_t at = s2_hdr(&q, 5, 0, 3, SES, TREE, 0);
		s2_create_req(&q, at, "c.txt", 0x80, 1, 0);
		send_sealed(e, 0, cipher, key->s2c, &q, 9);
		env_finish(e);
		CHECK(e, e->st.decrypted == 4 && e->st.decrypt_failed == 1 && e->st.encrypted == 0);
		CHECK(e, e->n_lines == 2 && strstr(e->lines[0], "path=\"/a.txt\"") && strstr(e->lines[1], "path=\"/b.txt\""));
		env_free(e);
		rp_smb_keys_destroy(k);
	}
}

/* A NEGOTIATE response choosing dialect. */
static void negotiate(env *e, uint16_t dialect)
{
	mb q = { .n = 0 }, r = { .n = 0 };
	s2_hdr(&q, 0, 0, 0, 0, 0, 0);
	mb_u16(&q, 36);
	mb_zero(&q, 34);
	env_send(e, 0, &q);
	s2_hdr(&r, 0, S2_RESP, 0, 0, 0, 0);
	mb_u16(&r, 65);
	mb_u16(&r, 1);
	mb_u16(&r, dialect);
	mb_zero(&r, 58);
	env_send(e, 1, &r);
}

static void test_decode_derived_30(void **state)
{
	(void)state;
	/* SMB 3.0 with the session key alone: the keys Samba printed for it (KDF test above) decrypt */
	rp_smb_keys *k;
	assert_int_equal(rp_smb_keys_create(&k), 0);
	char eb[RP_ERRBUF_SIZE], spec[80];
	snprintf(spec, sizeof spec, "%02x%02x%02x%02x00000000:259c249fc637216bcf6ae240702b0e9c", (unsigned)SES & 0xFF,
		 (unsigned)(SES >> 8) & 0xFF, (unsigned)(SES >> 16) & 0xFF, (unsigned)(SES >> 24) & 0xFF);
	assert_int_equal(rp_smb_keys_add(k, spec, eb), 0);
	uint8_t c2s[16], s2c[16];
	unhex("a87265a1157fface4de2623eba60c690", c2s);
	unhex("b3f8687ea8e144e0b0471b35f6677978", s2c);
	env *const e = env_keys(k);
	negotiate(e, 0x0300);
	sealed_create(e, SMB3_AES128_CCM, c2s, s2c, 1, "x");
	/* truncated: counted, not decrypted */
	mb q = { .n = 0 };
	const size_t at = s2_hdr(&q, 5, 0, 3, SES, TREE, 0);
	s2_create_req(&q, at, "y", 0x80, 1, 0);
	static uint8_t buf[512];
	const size_t n = seal(buf, SMB3_AES128_CCM, c2s, SES, q.b, q.n, 1);
	env_send_cut(e, 0, buf, n - 10, n);
	/* another session without a key: encrypted */
	const size_t m = seal(buf, SMB3_AES128_CCM, c2s, SES + 1, q.b, q.n, 1);
	env_send_cut(e, 0, buf, m, m);
	env_finish(e);
	CHECK(e, e->st.decrypted == 2 && e->st.truncated == 1 && e->st.encrypted == 1 && e->st.decrypt_failed == 0);
	CHECK(e, e->n_lines == 1 && strstr(e->lines[0], "path=\"/x\""));
	env_free(e);
	rp_smb_keys_destroy(k);
}

static void test_decode_311_without_setup(void **state)
{
	(void)state;
	/* 3.1.1 negotiated but no SESSION_SETUP captured: the session key alone cannot give the keys */
	rp_smb_keys *k;
	assert_int_equal(rp_smb_keys_create(&k), 0);
	char eb[RP_ERRBUF_SIZE], spec[80];
	snprintf(spec, sizeof spec, "%02x%02x%02x%02x00000000:" K16, (unsigned)SES & 0xFF, (unsigned)(SES >> 8) & 0xFF,
		 (unsigned)(SES >> 16) & 0xFF, (unsigned)(SES >> 24) & 0xFF);
	assert_int_equal(rp_smb_keys_add(k, spec, eb), 0);
	env *const e = env_keys(k);
	negotiate(e, 0x0311);
	uint8_t key[16] = { 0 };
	sealed_create(e, SMB3_AES128_GCM, key, key, 1, "x");
	env_finish(e);
	CHECK(e, e->st.encrypted == 2 && e->st.decrypted == 0 &&
			 env_unsupported(e, "SMB3 3.1.1 setup not captured (give S2C:C2S)") == 2);
	env_free(e);
	rp_smb_keys_destroy(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kdf_vectors),
		cmocka_unit_test(test_keys_parse),
		cmocka_unit_test(test_keys_limit),
		cmocka_unit_test(test_keys_file),
		cmocka_unit_test(test_parse_transform),
		cmocka_unit_test(test_decrypt_ciphers),
		cmocka_unit_test(test_decode_given_keys),
		cmocka_unit_test(test_decode_derived_30),
		cmocka_unit_test(test_decode_311_without_setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
