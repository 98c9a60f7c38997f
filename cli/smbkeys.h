/* --smb-key and --smb-keys: SMB3 session keys for decrypting captures (convert, capture). */
#ifndef REPRISE_CLI_SMBKEYS_H
#define REPRISE_CLI_SMBKEYS_H

#include "capture/capture.h"
#include "cli/opts.h"

/* The option table entries of --smb-key (repeatable) and --smb-keys. */
#define RP_CLI_SMB_KEY_OPTS(list, file)                                                                              \
	{ "smb-key", 0, RP_OPT_LIST, (list), "SID:KEY[:S2C:C2S]",                                                   \
	  "decrypt SMB3 with this session's keys (hex; SID as its 8 wire bytes; S2C, C2S in tshark's order; repeatable)" }, \
	{ "smb-keys", 0, RP_OPT_STRING, (file), "FILE",                                                              \
	  "SMB3 session keys, one SID:KEY[:S2C:C2S] a line ('#' comments; text, at most 2 MiB)" }

/*
 * The keys given (NULL in *out when none): 0, or 2 after printing a usage
 * error that names the bad value's place but never a key.
 */
int rp__cli_smb_keys(const char *cmd, const rp_optlist *list, const char *file, rp_smb_keys **out);

#endif
