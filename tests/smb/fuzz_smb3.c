/* Fuzz target: SMB3 transform messages and the clear NEGOTIATE/SESSION_SETUP they hang on, with keys given (MS-SMB2 2.2.41, 3.1.4.2). */
#include <nettle/gcm.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb3_int.h"
#include "formats/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Keys: the sessions of two captures in tests/data/pcap by their session keys
 * alone (derived: reprise__smb3-enc-300 with the 3.0 labels,
 * reprise__smb3-enc-311-aes128ccm with the preauth hash of what was fed), so
 * the corpus seeds cut from them decrypt; session 2 with S2C and C2S given.
 * Input records: [flags][length: 2 bytes big-endian][bytes]; flags bit 0 =
 * from the server, bit 1 = cut short, bit 2 = seal the bytes (an SMB2 message)
 * into a transform for session 2 with AES-128-GCM and its direction's key, so
 * the fuzzer reaches the decoder behind a tag that verifies; other records go
 * in as they are (a transform the fuzzer writes, or a clear SMB2 message).
 */
static const char *const key_specs[] = {
	"8391479100000000:259c249fc637216bcf6ae240702b0e9c",
	"ef86ad4200000000:bef1c88d0489855e0cc476363f5b4244",
	"0200000000000000:101112131415161718191a1b1c1d1e1f:202122232425262728292a2b2c2d2e2f:303132333435363738393a3b3c3d3e3f",
};

static size_t seal(uint8_t *out, const uint8_t *key, const uint8_t *plain, size_t n)
{
	memcpy(out, "\xFDSMB", 4);
	memset(out + 20, 0x11, 12);
	memset(out + 32, 0, 4);
	rp_put_le32(out + 36, (uint32_t)n);
	rp_put_le16(out + 40, 0);
	rp_put_le16(out + 42, 1);
	rp_put_le64(out + 44, 2);
	struct gcm_aes128_ctx g;
	gcm_aes128_set_key(&g, key);
	gcm_aes128_set_iv(&g, 12, out + 20);
	gcm_aes128_update(&g, 32, out + 20);
	gcm_aes128_encrypt(&g, n, out + SMB3_TRANSFORM_LEN, plain);
	gcm_aes128_digest(&g, 16, out + 4);
	return SMB3_TRANSFORM_LEN + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_smb_keys *keys = NULL;
	rp_memsink ms;
	if (rp_smb_keys_create(&keys) != 0 || rp_memsink_init(&ms) != 0) {
		rp_smb_keys_destroy(keys);
		return 0;
	}
	char eb[RP_ERRBUF_SIZE];
	for (size_t i = 0; i < sizeof key_specs / sizeof key_specs[0]; i++)
		(void)rp_smb_keys_add(keys, key_specs[i], eb);
	const smb3_key *const k2 = rp__smb3_key_find(keys, 2);
	rp_capture_stats st;
	memset(&st, 0, sizeof(st));
	const rp_capture_opts opts = { .smb_keys = keys };
	rp_capctx *const cx = rp__capctx_create(&ms.base, &opts, &st);
	uint8_t *const buf = malloc(size + SMB3_TRANSFORM_LEN);
	rp_conn conn = { .id = 1, .l4 = RP_L4_TCP };
	conn.addr[0] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 1 } };
	conn.addr[1] = (rp_addr){ .family = 4, .a = { 10, 0, 0, 2 } };
	uint64_t ts = 1000000000ull;
	for (size_t at = 0; cx && buf && k2 && at + 3 <= size;) {
		const uint8_t flags = data[at];
		size_t len = (size_t)data[at + 1] << 8 | data[at + 2];
		at += 3;
		if (len > size - at)
			len = size - at;
		const uint8_t *msg = data + at;
		size_t n = len;
		if ((flags & 4) && len > 0) {
			n = seal(buf, (flags & 1) ? k2->s2c : k2->c2s, data + at, len);
			msg = buf;
		}
		ts += 1000000ull;
		rp__capctx_frame(cx, ts, (uint32_t)n);
		const rp_msg m = { .data = msg, .len = n, .wire_len = (flags & 2) ? n + 100 : n,
				   .ts_ns = ts, .frame = 1, .from = flags & 1, .truncated = (flags & 2) != 0 };
		rp__smb_message(cx, &conn, &m);
		at += len;
	}
	free(buf);
	if (cx)
		rp__capctx_finish(cx);
	if (conn.proto_free)
		conn.proto_free(conn.proto_state);
	rp__capctx_destroy(cx);
	rp_memsink_fini(&ms);
	rp_smb_keys_destroy(keys);
	return 0;
}
