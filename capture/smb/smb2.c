/* SMB2/3 chains: headers, compounds, request/response matching, async replies, dispatched to the command bodies (smb2_cmd.c) (MS-SMB2 2.2.1, 3.2.4.1.4, 3.3.4.2). */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb2_cmd.h"
#include "capture/smb/smb2_int.h"
#include "capture/smb/smb_dialect.h"
#include "capture/smb/smb3_int.h"

#define SMB2_HDR_LEN 64u

static bool is_tree_pipe(smb2_x *x)
{
	smb_conn *const sc = x->sc;
	if (!sc->st && !(sc->st = rp__smb_state(x->cx)))
		return false;
	/* Most requests name the tree the one before named: ask the table only when that changes. */
	if (sc->tree_known && sc->tree_gen == sc->st->trees_gen && sc->tree_session == x->session &&
	    sc->tree_id == x->tree)
		return sc->tree_pipe;
	const smb_key k = { x->session, x->tree, 2 };
	const smb_tree *const t = rp__smb_map_get(sc->st->trees, &k);
	sc->tree_known = true;
	sc->tree_gen = sc->st->trees_gen;
	sc->tree_session = x->session;
	sc->tree_id = x->tree;
	sc->tree_pipe = t && t->pipe;
	return sc->tree_pipe;
}

/* A request that becomes no op but whose response must not count as unmatched. */
static void swallow(smb2_x *x)
{
	(void)rp__smb2_pending(x);
}

static void request(smb2_x *x)
{
	const smb2_hdr *const h = x->h;
	switch (h->cmd) {
	case SMB2_NEGOTIATE:
	case SMB2_SESSION_SETUP:
	case SMB2_LOGOFF:
	case SMB2_TREE_DISCONNECT:
	case SMB2_ECHO:
	case SMB2_CANCEL: /* no response; it shares the MessageId of the call it cancels */
		return;
	case SMB2_CHANGE_NOTIFY:
	case SMB2_OPLOCK_BREAK:
		/* watching a directory and acknowledging an oplock break are server-driven
		 * cache protocol, not file operations a replay can issue on its own */
		rp__smb2_unsupported(x, rp__smb2_cmd_name(h->cmd));
		swallow(x);
		return;
	default:
		break;
	}
	if (h->cmd > SMB2_SET_INFO) {
		rp__cap_count(x->cx, RP_OUT_INVALID, NULL);
		return;
	}
	if (h->cmd != SMB2_TREE_CONNECT && is_tree_pipe(x)) {
		/* DCE/RPC over a named pipe on IPC$: plumbing, not file I/O */
		char what[40];
		snprintf(what, sizeof what, "%s on a named pipe", rp__smb2_cmd_name(h->cmd));
		rp__smb2_unsupported(x, what);
		swallow(x);
		return;
	}
	rp_cur body = rp_cur_make(h->pdu + SMB2_HDR_LEN, h->have - SMB2_HDR_LEN);
	rp__smb2_request_body(x, &body);
	if (x->bad == SMB2_BAD_INVALID || x->bad == SMB2_BAD_TRUNCATED) {
		rp__cap_count(x->cx, x->bad == SMB2_BAD_INVALID ? RP_OUT_INVALID : RP_OUT_TRUNCATED, NULL);
		/* keep the response from counting as unmatched; any op reserved stays as the call told it */
		if (!x->sc->pending2 || !rp__smb_map_get(x->sc->pending2, &(smb_key){ h->mid, 0, 0 }))
			swallow(x);
	}
}

static void response(smb2_x *x)
{
	const smb2_hdr *const h = x->h;
	if (h->mid == UINT64_MAX && h->cmd == SMB2_OPLOCK_BREAK) {
		rp__smb2_unsupported(x, "OPLOCK_BREAK");
		return;
	}
	if (h->cmd == SMB2_SERVER_TO_CLIENT_NOTIFICATION) {
		rp__smb2_unsupported(x, "SERVER_TO_CLIENT_NOTIFICATION");
		return;
	}
	if ((h->flags & SMB2_FLAGS_ASYNC) && h->status == NT_STATUS_PENDING)
		return; /* interim response: the final one follows with the same MessageId */
	const smb_key k = { h->mid, 0, 0 };
	smb2_pending *const p = x->sc->pending2 ? rp__smb_map_get(x->sc->pending2, &k) : NULL;
	if (!p || p->cmd != h->cmd) {
		switch (h->cmd) {
		case SMB2_NEGOTIATE:
		case SMB2_SESSION_SETUP:
		case SMB2_LOGOFF:
		case SMB2_TREE_DISCONNECT:
		case SMB2_ECHO:
		case SMB2_CHANGE_NOTIFY:
		case SMB2_OPLOCK_BREAK:
		case SMB2_CANCEL:
			return; /* plumbing: nothing to complete */
		default:
			rp__cap_count(x->cx, RP_OUT_UNMATCHED, NULL);
			return;
		}
	}
	if (p->slots.n > 0 || h->cmd == SMB2_TREE_CONNECT) {
		rp_cur body = rp_cur_make(h->pdu + SMB2_HDR_LEN, h->have - SMB2_HDR_LEN);
		rp__smb2_response_body(x, p, &body);
		if (x->bad == SMB2_BAD_INVALID || x->bad == SMB2_BAD_TRUNCATED)
			rp__cap_count(x->cx, x->bad == SMB2_BAD_INVALID ? RP_OUT_INVALID : RP_OUT_TRUNCATED, NULL);
	}
	rp__smb_map_del_value(x->sc->pending2, p); /* nothing above adds to or takes from pending2 */
}

/* Read one 64-byte header at the cursor's start. */
static bool parse_header(rp_cur *c, smb2_hdr *h)
{
	rp_cur_skip(c, 4); /* ProtocolId */
	const uint16_t size = rp_cur_le16(c);
	h->credit_charge = rp_cur_le16(c);
	h->status = rp_cur_le32(c);
	h->cmd = rp_cur_le16(c);
	rp_cur_skip(c, 2); /* CreditRequest/CreditResponse: credits are ignored */
	h->flags = rp_cur_le32(c);
	h->next = rp_cur_le32(c);
	h->mid = rp_cur_le64(c);
	if (h->flags & SMB2_FLAGS_ASYNC) {
		h->async_id = rp_cur_le64(c);
		h->tree = 0;
	} else {
		rp_cur_skip(c, 4);
		h->tree = rp_cur_le32(c);
		h->async_id = 0;
	}
	h->session = rp_cur_le64(c);
	rp_cur_skip(c, 16); /* Signature */
	return !c->err && size == SMB2_HDR_LEN;
}

void rp__smb2_message(rp_capctx *cx, rp_conn *conn, smb_conn *sc, const rp_msg *m)
{
	/* On the stack and zeroed only up to the path buffer: this runs per message. */
	smb2_chain chain;
	memset(&chain, 0, offsetof(smb2_chain, path));
	chain.path[0] = '\0';
	smb2_chain *const ch = &chain;
	size_t at = 0;
	for (;;) {
		if (at >= m->len) {
			/* NextCommand points into bytes that were not captured */
			rp__cap_count(cx, RP_OUT_TRUNCATED, NULL);
			break;
		}
		smb2_hdr h = { 0 };
		h.pdu = m->data + at;
		h.have = m->len - at;
		const size_t wire_left = (m->wire_len > m->len ? m->wire_len : m->len) - at;
		rp_cur c = rp_cur_make(h.pdu, h.have);
		if (h.have < SMB2_HDR_LEN) {
			rp__cap_count(cx, wire_left >= SMB2_HDR_LEN ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
			break;
		}
		if (memcmp(h.pdu, "\xFESMB", 4) != 0 || !parse_header(&c, &h)) {
			rp__cap_count(cx, RP_OUT_INVALID, NULL);
			break;
		}
		/* NextCommand: 8-byte aligned, past this header, inside the message */
		if (h.next != 0 && (h.next % 8 != 0 || h.next < SMB2_HDR_LEN || h.next >= wire_left)) {
			rp__cap_count(cx, RP_OUT_INVALID, NULL);
			break;
		}
		h.wire = h.next ? h.next : wire_left;
		if (h.have > h.wire)
			h.have = h.wire;
		rp__cap_count(cx, RP_OUT_MESSAGE, NULL);
		/* with keys to decrypt with, follow what the session keys derive from */
		if ((h.cmd == SMB2_NEGOTIATE || h.cmd == SMB2_SESSION_SETUP) && rp__cap_opts(cx)->smb_keys)
			rp__smb3_note(sc, m, h.pdu, h.have, h.wire, h.cmd, h.flags, h.status, h.session);

		smb2_x x = { .cx = cx, .conn = conn, .sc = sc, .m = m, .h = &h, .ch = ch };
		/* related operations inherit SessionId and TreeId from the one before */
		const bool related = (h.flags & SMB2_FLAGS_RELATED) != 0 && at > 0;
		x.session = related && h.session == UINT64_MAX ? ch->session : h.session;
		x.tree = related && h.tree == UINT32_MAX ? ch->tree : h.tree;
		if (!related && !(h.flags & SMB2_FLAGS_SERVER_TO_REDIR))
			ch->fid_mode = SMB2_FID_NONE;
		if (h.flags & SMB2_FLAGS_SERVER_TO_REDIR)
			response(&x);
		else
			request(&x);
		ch->session = x.session;
		ch->tree = x.tree;
		if (h.next == 0)
			break;
		at += h.next;
	}
	rp__smb_sweep(cx, sc->pending2, offsetof(smb2_pending, t_req), &sc->sweep_at);
}
