/* SMB1 TRANSACTION2 subcommands -> op records (MS-CIFS 2.2.4.46, 2.2.6). */
#ifndef REPRISE_CAPTURE_SMB1_TRANS2_H
#define REPRISE_CAPTURE_SMB1_TRANS2_H

#include "capture/smb/smb1_int.h"

void rp__smb1_trans2_request(smb1_x *x);
/* A response part after the first (non-zero displacement). */
bool rp__smb1_trans2_continued(smb1_x *x);
/* Decode the first response part of p's subcommand; sets *result (entries found) when it returns true. */
bool rp__smb1_trans2_response(smb1_x *x, smb1_pending *p, uint64_t *result);

#endif
