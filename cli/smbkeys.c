/* --smb-key and --smb-keys: SMB3 session keys for decrypting captures (docs/capture.md, "Encrypted SMB3"). */
#include "cli/smbkeys.h"

#include "cli/output.h"
#include "formats/error.h"

int rp__cli_smb_keys(const char *cmd, const rp_optlist *list, const char *file, rp_smb_keys **out)
{
	*out = NULL;
	if (list->n == 0 && !file)
		return 0;
	rp_smb_keys *keys;
	if (rp_smb_keys_create(&keys) < 0) {
		rp__cli_err(cmd, "out of memory");
		return 1;
	}
	char eb[RP_ERRBUF_SIZE];
	for (size_t i = 0; i < list->n; i++) {
		if (rp_smb_keys_add(keys, list->v[i], eb) < 0) {
			/* the message says what is wrong with the value, which is a secret: not the value */
			rp__cli_err(cmd, "--smb-key (the %zu%s): %s", i + 1, i == 0 ? "st" : i == 1 ? "nd" : i == 2 ? "rd" : "th", eb);
			rp_smb_keys_destroy(keys);
			return 2;
		}
	}
	if (file && rp_smb_keys_load(keys, file, eb) < 0) {
		rp__cli_err(cmd, "--smb-keys %s", eb);
		rp_smb_keys_destroy(keys);
		return 2;
	}
	*out = keys;
	return 0;
}
