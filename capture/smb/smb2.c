/* SMB2/3 chains: headers, compounds, request/response matching, async replies (MS-SMB2 2.2.1, 3.2.4.1.4, 3.3.4.2). */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb2_int.h"
#include "capture/smb/smb3_int.h"

#define SMB2_HDR_LEN 64u

static void pending_free(void *v)
{
	smb2_pending *const p = v;
	rp__smb_slots_free(&p->slots);
	free(p->path);
}

static const char *const cmd_names[] = {
	"NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT", "CREATE", "CLOSE",
	"FLUSH", "READ", "WRITE", "LOCK", "IOCTL", "CANCEL", "ECHO", "QUERY_DIRECTORY", "CHANGE_NOTIFY",
	"QUERY_INFO", "SET_INFO", "OPLOCK_BREAK", "SERVER_TO_CLIENT_NOTIFICATION",
};

const char *rp__smb2_cmd_name(uint16_t cmd)
{
	return cmd < sizeof cmd_names / sizeof cmd_names[0] ? cmd_names[cmd] : NULL;
}

void rp__smb2_unsupported(smb2_x *x, const char *what)
{
	char name[48];
	snprintf(name, sizeof name, "SMB2 %s", what);
	rp__cap_count(x->cx, RP_OUT_UNSUPPORTED, name);
}

const uint8_t *rp__smb2_buf(smb2_x *x, uint32_t off, uint32_t len, uint32_t min_off)
{
	const smb2_hdr *const h = x->h;
	if (len == 0)
		return h->pdu; /* any non-NULL pointer: nothing will be read */
	if (off < min_off || (uint64_t)off + len > h->wire) {
		x->bad = SMB2_BAD_INVALID;
		return NULL;
	}
	if ((uint64_t)off + len > h->have) {
		x->bad = SMB2_BAD_TRUNCATED;
		return NULL;
	}
	return h->pdu + off;
}

smb2_pending *rp__smb2_pending(smb2_x *x)
{
	if (!x->sc->pending2) {
		x->sc->pending2 = rp__smb_map_create(sizeof(smb2_pending), pending_free);
		if (!x->sc->pending2)
			return NULL;
	}
	const smb_key k = { x->h->mid, 0, 0 };
	bool fresh;
	smb2_pending *const p = rp__smb_map_put(x->sc->pending2, &k, &fresh);
	if (!p)
		return NULL;
	if (!fresh) {
		/* a MessageId used twice without a reply in between: the first call lost its reply */
		pending_free(p);
		memset(p, 0, sizeof *p);
	}
	p->t_req = rp__cap_now(x->cx);
	p->cmd = x->h->cmd;
	p->session = x->session;
	p->tree = x->tree;
	return p;
}

bool rp__smb2_reserve(smb2_x *x, smb2_pending *p, const rp_op *op)
{
	const rp_slot s = rp__cap_reserve(x->cx, op);
	if (rp__smb_slots_add(&p->slots, s))
		return true;
	rp__cap_cancel(x->cx, s);
	return false;
}

rp_op rp__smb2_op(smb2_x *x, unsigned opcode)
{
	return rp__smb_op(x->cx, x->conn, x->m, x->session, RP_PROTO_SMB2, opcode);
}


/* The FileId a request names, or the one a related operation inherits from the chain. */
void rp__smb2_fid(smb2_x *x, smb2_pending *p, rp_op *op, uint64_t persistent, uint64_t volatile_id)
{
	const bool inherit = persistent == UINT64_MAX && volatile_id == UINT64_MAX && (x->h->flags & SMB2_FLAGS_RELATED);
	if (inherit && x->ch->fid_mode == SMB2_FID_DEP) {
		p->fid_mode = SMB2_FID_DEP;
		p->dep_mid = x->ch->dep_mid;
		p->dir = x->ch->dir;
		return; /* the handle comes with the CREATE's response */
	}
	if (inherit && x->ch->fid_mode == SMB2_FID_KNOWN) {
		p->fid_mode = SMB2_FID_KNOWN;
		p->fid = x->ch->fid;
	} else if (inherit) {
		p->fid_mode = SMB2_FID_NONE; /* related with nothing before it: the server rejects it */
		return;
	} else {
		p->fid_mode = SMB2_FID_KNOWN;
		p->fid = smb2_file_key(persistent, volatile_id);
	}
	const smb_file *const f = rp__smb_file_use(x->cx, &p->fid, "smb2");
	rp__smb_op_file(op, f);
	if (f) {
		p->dir = (f->flags & SMB_FILE_DIR) != 0;
		x->ch->fid_mode = SMB2_FID_KNOWN;
		x->ch->fid = p->fid;
		x->ch->dir = p->dir;
		x->ch->has_path = f->path_text != NULL && strlen(f->path_text) < sizeof x->ch->path;
		if (x->ch->has_path)
			strcpy(x->ch->path, f->path_text);
	}
}

/* The path of the file an op works on (known at request time, or the CREATE's earlier in the chain). */
const char *rp__smb2_fid_path(smb2_x *x, const smb2_pending *p)
{
	if (p->fid_mode == SMB2_FID_NONE)
		return NULL;
	return x->ch->has_path ? x->ch->path : NULL;
}

const smb_file *rp__smb2_resolve(smb2_x *x, const smb2_pending *p, smb_key *key)
{
	if (p->fid_mode == SMB2_FID_KNOWN) {
		*key = p->fid;
		return rp__smb_file_get(x->cx, key);
	}
	if (p->fid_mode == SMB2_FID_DEP && x->sc->recent2) {
		const smb2_recent *const r = &x->sc->recent2[p->dep_mid % SMB2_RECENT];
		if (r->mid_plus1 == p->dep_mid + 1 && r->mid_plus1) {
			*key = r->fid;
			return rp__smb_file_get(x->cx, key);
		}
	}
	return NULL;
}

void rp__smb2_remember_create(smb2_x *x, const smb_key *fid)
{
	if (!x->sc->recent2 && !(x->sc->recent2 = calloc(SMB2_RECENT, sizeof(smb2_recent))))
		return;
	smb2_recent *const r = &x->sc->recent2[x->h->mid % SMB2_RECENT];
	r->mid_plus1 = x->h->mid + 1;
	r->fid = *fid;
}

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
