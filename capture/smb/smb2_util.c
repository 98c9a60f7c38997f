/* Helpers of the SMB2/3 decoder below its dispatcher (smb2.c) and its command bodies (smb2_cmd.c): command names, buffers, pending requests, FileIds, related-operation CREATEs (MS-SMB2). */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb2_int.h"

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
