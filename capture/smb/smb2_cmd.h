/* The SMB2 command bodies (smb2_cmd.c), called by the dispatcher (smb2.c) for each PDU of a chain (MS-SMB2 2.2). */
#ifndef REPRISE_CAPTURE_SMB2_CMD_H
#define REPRISE_CAPTURE_SMB2_CMD_H

#include "capture/smb/smb2_int.h"

/* Command bodies; the cursor starts after the header, over the bytes present. */
void rp__smb2_request_body(smb2_x *x, rp_cur *body);
void rp__smb2_response_body(smb2_x *x, smb2_pending *p, rp_cur *body);

#endif
