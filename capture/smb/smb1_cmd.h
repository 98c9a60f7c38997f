/* The SMB1 commands (smb1_cmd.c), called by the dispatcher (smb1.c) for each block of an AndX chain (MS-CIFS 2.2.4). */
#ifndef REPRISE_CAPTURE_SMB1_CMD_H
#define REPRISE_CAPTURE_SMB1_CMD_H

#include "capture/smb/smb1_int.h"

void rp__smb1_request(smb1_x *x);
void rp__smb1_response(smb1_x *x);

#endif
