/* Fuzz target: a sequence of whole RPC messages, both directions, TCP or UDP, through rp__rpc_message. */
#include "tests/fuzz_messages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: byte 0 bit 0 selects UDP; then fuzz_messages records, passed as they are. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	return fuzz_messages(data, size, 1, (data[0] & 1) ? RP_L4_UDP : RP_L4_TCP, NULL, rp__rpc_message);
}
