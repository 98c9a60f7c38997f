/* --smb-key and --smb-keys: SMB3 session keys for decrypting captures (convert, capture). */
#ifndef REPRISE_CLI_SMBKEYS_H
#define REPRISE_CLI_SMBKEYS_H

#include "capture/capture.h"
#include "cli/opts.h"

/* The option table entries of --smb-key (repeatable) and --smb-keys. */
#define RP_CLI_SMB_KEY_OPTS(list, file)                                                                              \
	{ .name = "smb-key", .kind = RP_OPT_LIST, .value = (list), .arg = "SID:KEY[:S2C:C2S]",                                                   \
	  .help = "decrypt SMB3 with this session's keys (hex; SID as its 8 wire bytes; S2C, C2S in tshark's order; repeatable)" }, \
	{ .name = "smb-keys", .kind = RP_OPT_STRING, .value = (file), .arg = "FILE",                                                              \
	  .help = "SMB3 session keys, one SID:KEY[:S2C:C2S] a line ('#' comments; text, at most 2 MiB)" }

/*
 * The keys given (NULL in *out when none): 0, or 2 after printing a usage
 * error that names the bad value's place but never a key.
 */
int rp__cli_smb_keys(const char *cmd, const rp_optlist *list, const char *file, rp_smb_keys **out);

#endif
