/* The SMB dialect decoders' entry points, called from above: smb.c by the message's magic, smb3_transform.c with a decrypted message (MS-SMB2 2.2.1, 2.2.41, MS-CIFS 2.2.3.1). */
#ifndef REPRISE_CAPTURE_SMB_DIALECT_H
#define REPRISE_CAPTURE_SMB_DIALECT_H

#include "capture/smb/smb_int.h"

void rp__smb2_message(rp_capctx *cx, rp_conn *conn, smb_conn *sc, const rp_msg *m);
void rp__smb1_message(rp_capctx *cx, rp_conn *conn, smb_conn *sc, const rp_msg *m);
/* An SMB3 transform message: decrypt it with the user's keys and decode what it held, or count it. */
void rp__smb3_transform(rp_capctx *cx, rp_conn *conn, smb_conn *sc, const rp_msg *m);

#endif
