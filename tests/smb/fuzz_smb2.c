/* Fuzz target: a sequence of SMB2 messages, both directions, through rp__smb_message (MS-SMB2). */
#include "tests/fuzz_messages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: fuzz_messages records; messages lacking the SMB2 magic get it prepended. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t magic[4] = { 0xFE, 'S', 'M', 'B' };
	return fuzz_messages(data, size, 0, RP_L4_TCP, magic, rp__smb_message);
}
