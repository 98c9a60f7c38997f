/* One NetBIOS session message -> SMB1, SMB2 chain or SMB3 transform, and the per-connection SMB state (MS-SMB2 2.2.41/2.2.42, MS-CIFS 2.2.3.1). */
#include <stdlib.h>

#include "capture/smb/smb3_int.h"
#include "capture/smb/smb_dialect.h"
#include "capture/smb/smb_int.h"
#include "formats/status.h"

/* ---- per-connection state ---- */

static void conn_free(void *p)
{
	smb_conn *const sc = p;
	if (!sc)
		return;
	rp__smb_map_destroy(sc->pending2);
	free(sc->recent2);
	rp__smb_map_destroy(sc->pending1);
	rp__smb_map_destroy(sc->search1);
	rp__smb3_conn_free(sc->crypt);
	free(sc);
}

smb_conn *rp__smb_conn(rp_conn *conn)
{
	if (conn->proto_state)
		return conn->proto_free == conn_free ? conn->proto_state : NULL;
	smb_conn *const sc = calloc(1, sizeof *sc);
	if (!sc)
		return NULL;
	sc->sweep_at = 64;
	conn->proto_state = sc;
	conn->proto_free = conn_free;
	return sc;
}

/* ---- the entry point ---- */

int rp__smb_message(rp_capctx *cx, rp_conn *conn, const rp_msg *m)
{
	rp_cur c = rp_cur_make(m->data, m->len);
	const uint8_t *const magic = rp_cur_take(&c, 4);
	if (!magic) {
		rp__cap_count(cx, m->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return 0;
	}
	if (magic[1] != 'S' || magic[2] != 'M' || magic[3] != 'B') {
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return 0;
	}
	if (conn->proto_state && conn->proto_free != conn_free) {
		/* another protocol already owns this connection's state */
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return 0;
	}
	smb_conn *const sc = rp__smb_conn(conn);
	switch (magic[0]) {
	case 0xFE:
		if (!sc)
			break;
		rp__smb2_message(cx, conn, sc, m);
		return 0;
	case 0xFF:
		if (!sc)
			break;
		rp__smb1_message(cx, conn, sc, m);
		return 0;
	case 0xFD:
		/* SMB3 TRANSFORM_HEADER: encrypted; decrypted when the user gave the session's keys */
		if (!rp__cap_opts(cx)->smb_keys) {
			rp__cap_count(cx, RP_OUT_ENCRYPTED, NULL);
			return 0;
		}
		if (!sc)
			break;
		rp__smb3_transform(cx, conn, sc, m);
		return 0;
	case 0xFC:
		rp__cap_count(cx, RP_OUT_UNSUPPORTED, "SMB2 COMPRESSION_TRANSFORM");
		return 0;
	default:
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return 0;
	}
	/* per-connection state could not be allocated */
	return RP_E_NOMEM;
}
