/* Fuzz target: a sequence of SMB1 messages, both directions, through rp__smb_message (MS-CIFS). */
#include "tests/fuzz_messages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: fuzz_messages records; messages lacking the SMB1 magic get it prepended. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t magic[4] = { 0xFF, 'S', 'M', 'B' };
	return fuzz_messages(data, size, 0, RP_L4_TCP, magic, rp__smb_message);
}
