/* NFSv4 COMPOUND ops: names, roles, and the XDR of every op's arguments and results (RFC 7530 §16, RFC 8881 §18, RFC 7862 §15, RFC 8276 §8.4). */
#include <string.h>

#include "capture/rpc/nfs4_int.h"

/* X(number, NAME, role) for every op of NFSv4.0, 4.1, 4.2 and the xattr extension. */
#define NFS4_OPS(X)                                                                                        \
	X(3, ACCESS, ROLE_FILE) X(4, CLOSE, ROLE_FILE) X(5, COMMIT, ROLE_FILE) X(6, CREATE, ROLE_FILE)   \
	X(7, DELEGPURGE, ROLE_PLUMB) X(8, DELEGRETURN, ROLE_PLUMB) X(9, GETATTR, ROLE_FILE)               \
	X(10, GETFH, ROLE_PLUMB) X(11, LINK, ROLE_FILE) X(12, LOCK, ROLE_FILE) X(13, LOCKT, ROLE_FILE)     \
	X(14, LOCKU, ROLE_FILE) X(15, LOOKUP, ROLE_FILE) X(16, LOOKUPP, ROLE_FILE)                        \
	X(17, NVERIFY, ROLE_PLUMB) X(18, OPEN, ROLE_FILE) X(19, OPENATTR, ROLE_UNSUP)                     \
	X(20, OPEN_CONFIRM, ROLE_PLUMB) X(21, OPEN_DOWNGRADE, ROLE_UNSUP) X(22, PUTFH, ROLE_PLUMB)        \
	X(23, PUTPUBFH, ROLE_PLUMB) X(24, PUTROOTFH, ROLE_PLUMB) X(25, READ, ROLE_FILE)                   \
	X(26, READDIR, ROLE_FILE) X(27, READLINK, ROLE_FILE) X(28, REMOVE, ROLE_FILE)                     \
	X(29, RENAME, ROLE_FILE) X(30, RENEW, ROLE_PLUMB) X(31, RESTOREFH, ROLE_PLUMB)                    \
	X(32, SAVEFH, ROLE_PLUMB) X(33, SECINFO, ROLE_PLUMB) X(34, SETATTR, ROLE_FILE)                    \
	X(35, SETCLIENTID, ROLE_PLUMB) X(36, SETCLIENTID_CONFIRM, ROLE_PLUMB) X(37, VERIFY, ROLE_PLUMB)   \
	X(38, WRITE, ROLE_FILE) X(39, RELEASE_LOCKOWNER, ROLE_PLUMB) X(40, BACKCHANNEL_CTL, ROLE_PLUMB)  \
	X(41, BIND_CONN_TO_SESSION, ROLE_PLUMB) X(42, EXCHANGE_ID, ROLE_PLUMB)                           \
	X(43, CREATE_SESSION, ROLE_PLUMB) X(44, DESTROY_SESSION, ROLE_PLUMB)                             \
	X(45, FREE_STATEID, ROLE_PLUMB) X(46, GET_DIR_DELEGATION, ROLE_PLUMB)                            \
	X(47, GETDEVICEINFO, ROLE_PLUMB) X(48, GETDEVICELIST, ROLE_PLUMB) X(49, LAYOUTCOMMIT, ROLE_PLUMB) \
	X(50, LAYOUTGET, ROLE_PLUMB) X(51, LAYOUTRETURN, ROLE_PLUMB) X(52, SECINFO_NO_NAME, ROLE_PLUMB)   \
	X(53, SEQUENCE, ROLE_PLUMB) X(54, SET_SSV, ROLE_PLUMB) X(55, TEST_STATEID, ROLE_PLUMB)            \
	X(56, WANT_DELEGATION, ROLE_PLUMB) X(57, DESTROY_CLIENTID, ROLE_PLUMB)                           \
	X(58, RECLAIM_COMPLETE, ROLE_PLUMB) X(59, ALLOCATE, ROLE_UNSUP) X(60, COPY, ROLE_UNSUP)          \
	X(61, COPY_NOTIFY, ROLE_UNSUP) X(62, DEALLOCATE, ROLE_UNSUP) X(63, IO_ADVISE, ROLE_UNSUP)        \
	X(64, LAYOUTERROR, ROLE_PLUMB) X(65, LAYOUTSTATS, ROLE_PLUMB) X(66, OFFLOAD_CANCEL, ROLE_UNSUP)   \
	X(67, OFFLOAD_STATUS, ROLE_UNSUP) X(68, READ_PLUS, ROLE_FILE) X(69, SEEK, ROLE_UNSUP)             \
	X(70, WRITE_SAME, ROLE_UNSUP) X(71, CLONE, ROLE_UNSUP) X(72, GETXATTR, ROLE_FILE)                \
	X(73, SETXATTR, ROLE_FILE) X(74, LISTXATTRS, ROLE_FILE) X(75, REMOVEXATTR, ROLE_FILE)

static const char *const op_names[OP4_LAST + 1] = {
#define NAME(n, name, role) [n] = #name,
	NFS4_OPS(NAME)
#undef NAME
};

static const char *const unsup_names[OP4_LAST + 1] = {
#define UNSUP(n, name, role) [n] = "NFSv4 " #name,
	NFS4_OPS(UNSUP)
#undef UNSUP
};

static const uint8_t op_roles[OP4_LAST + 1] = {
#define ROLE(n, name, role) [n] = role,
	NFS4_OPS(ROLE)
#undef ROLE
};

const char *rp__nfs4_op_name(uint32_t opnum)
{
	if (opnum == OP4_ILLEGAL)
		return "ILLEGAL";
	return opnum <= OP4_LAST ? op_names[opnum] : NULL;
}

const char *rp__nfs4_unsup_name(uint32_t opnum)
{
	if (opnum == OP4_ILLEGAL)
		return "NFSv4 ILLEGAL";
	return opnum <= OP4_LAST && unsup_names[opnum] ? unsup_names[opnum] : "NFSv4 unknown op";
}

nfs4_role rp__nfs4_op_role(uint32_t opnum)
{
	if (opnum == OP4_ILLEGAL)
		return ROLE_PLUMB; /* a client never means it; the server answers OP_ILLEGAL */
	return opnum <= OP4_LAST ? (nfs4_role)op_roles[opnum] : ROLE_NONE;
}

nfs4_sid_kind rp__nfs4_sid_kind(const nfs4_stateid *s)
{
	bool zero = true, ones = true;
	for (size_t i = 0; i < sizeof(s->other); i++) {
		zero = zero && s->other[i] == 0;
		ones = ones && s->other[i] == 0xff;
	}
	if (zero)
		return s->seqid == 1 ? SID_CURRENT : SID_ANON;
	if (ones)
		return SID_BYPASS;
	return SID_NORMAL;
}

/* ---- XDR pieces ---- */

static void stateid(rp_cur *c, nfs4_stateid *s)
{
	s->seqid = rp_cur_be32(c);
	const uint8_t *const o = rp_cur_take(c, sizeof(s->other));
	if (o)
		memcpy(s->other, o, sizeof(s->other));
	else
		memset(s->other, 0, sizeof(s->other));
}

static const uint8_t *string(rp_cur *c, size_t max, size_t *len)
{
	return rp_cur_xdr_var(c, max, len);
}

static void skip_opaque(rp_cur *c, size_t max)
{
	size_t n;
	(void)rp_cur_xdr_var(c, max, &n);
}

static void skip_bitmap(rp_cur *c)
{
	uint32_t w[1];
	rp__nfs4_bitmap(c, w, 1);
}

static void skip_fattr(rp_cur *c)
{
	nfs4_attrs a;
	rp__nfs4_fattr(c, &a);
}

static void skip_time(rp_cur *c) { rp_cur_skip(c, 12); }

/* An array count that cannot exceed what the bytes left could hold (min_item bytes each). */
static uint32_t count(rp_cur *c, size_t min_item)
{
	const uint32_t n = rp_cur_be32(c);
	if (n > NFS4_LIST_MAX || (min_item && n > rp_cur_left(c) / min_item))
		c->err = true;
	return c->err ? 0 : n;
}

static void state_owner(rp_cur *c)
{
	rp_cur_skip(c, 8); /* clientid */
	skip_opaque(c, NFS4_OPAQUE_LIMIT);
}

static void netaddr(rp_cur *c)
{
	skip_opaque(c, NFS4_OPAQUE_LIMIT); /* r_netid */
	skip_opaque(c, NFS4_OPAQUE_LIMIT); /* r_addr */
}

static void netloc(rp_cur *c)
{
	switch (rp_cur_be32(c)) {
	case 1: case 2: skip_opaque(c, NFS4_NAME_MAX); break; /* NL4_NAME, NL4_URL */
	case 3: netaddr(c); break;                            /* NL4_NETADDR */
	default: c->err = true; break;
	}
}

static void change_info(rp_cur *c) { rp_cur_skip(c, 20); } /* bool atomic, before, after */

static void nfsace(rp_cur *c)
{
	rp_cur_skip(c, 12);
	skip_opaque(c, NFS4_NAME_MAX);
}

/* callback_sec_parms4<> (RFC 8881 §18.36). */
static void cb_sec_parms(rp_cur *c)
{
	const uint32_t n = count(c, 4);
	for (uint32_t i = 0; i < n && !c->err; i++) {
		switch (rp_cur_be32(c)) {
		case 0: break; /* AUTH_NONE */
		case 1: {      /* AUTH_SYS: authsys_parms (RFC 5531) */
			rp_cur_skip(c, 4);
			skip_opaque(c, 255);
			rp_cur_skip(c, 8);
			const uint32_t gids = rp_cur_be32(c);
			if (gids > 16)
				c->err = true;
			else
				rp_cur_skip(c, 4 * (size_t)gids);
			break;
		}
		case 6: /* RPCSEC_GSS */
			rp_cur_skip(c, 4);
			skip_opaque(c, NFS4_OPAQUE_LIMIT);
			skip_opaque(c, NFS4_OPAQUE_LIMIT);
			break;
		default: c->err = true; break;
		}
	}
}

static void channel_attrs(rp_cur *c)
{
	rp_cur_skip(c, 24);
	const uint32_t ird = rp_cur_be32(c);
	if (ird > 1)
		c->err = true;
	else
		rp_cur_skip(c, 4 * (size_t)ird);
}

static void state_protect_ops(rp_cur *c)
{
	skip_bitmap(c);
	skip_bitmap(c);
}

static void impl_id(rp_cur *c)
{
	const uint32_t n = rp_cur_be32(c);
	if (n > 1) {
		c->err = true;
		return;
	}
	if (n == 1) {
		skip_opaque(c, NFS4_NAME_MAX);
		skip_opaque(c, NFS4_NAME_MAX);
		skip_time(c);
	}
}

/* Trailing READ/WRITE data: its length is what matters; missing bytes only stop the walk. */
static uint32_t data(rp_cur *c, bool *cut)
{
	const uint32_t n = rp_cur_be32(c);
	if (c->err)
		return 0;
	if (n > NFS4_DATA_MAX) {
		c->err = true;
		return 0;
	}
	if (rp_cur_left(c) < ((size_t)n + 3) / 4 * 4) {
		*cut = true;
		c->p = c->end;
		return n;
	}
	rp_cur_xdr_opaque(c, n);
	return n;
}

/* ---- arguments ---- */

static void open_args(rp_cur *c, nfs4_arg *a)
{
	rp_cur_skip(c, 4); /* seqid */
	a->share_access = rp_cur_be32(c);
	a->share_deny = rp_cur_be32(c);
	state_owner(c);
	const uint32_t opentype = rp_cur_be32(c);
	if (opentype == 1) {
		a->create = true;
		a->createmode = rp_cur_be32(c);
		switch (a->createmode) {
		case 0: case 1: rp__nfs4_fattr(c, &a->attrs); break;   /* UNCHECKED4, GUARDED4 */
		case 2: rp_cur_skip(c, 8); break;                      /* EXCLUSIVE4 */
		case 3: rp_cur_skip(c, 8); rp__nfs4_fattr(c, &a->attrs); break; /* EXCLUSIVE4_1 */
		default: c->err = true; break;
		}
	} else if (opentype != 0) {
		c->err = true;
	}
	a->how = rp_cur_be32(c); /* open_claim_type4 */
	switch (a->how) {
	case 0: case 3: a->name = string(c, NFS4_NAME_MAX, &a->name_len); break; /* CLAIM_NULL, CLAIM_DELEGATE_PREV */
	case 1: rp_cur_skip(c, 4); break;                                        /* CLAIM_PREVIOUS */
	case 2: stateid(c, &a->sid); a->name = string(c, NFS4_NAME_MAX, &a->name_len); break; /* CLAIM_DELEGATE_CUR */
	case 4: case 6: break;                                                   /* CLAIM_FH, CLAIM_DELEG_PREV_FH */
	case 5: stateid(c, &a->sid); break;                                      /* CLAIM_DELEG_CUR_FH */
	default: c->err = true; break;
	}
}

static void lock_args(rp_cur *c, nfs4_arg *a)
{
	a->how = rp_cur_be32(c); /* nfs_lock_type4 */
	(void)rp_cur_xdr_bool(c);  /* reclaim */
	a->offset = rp_cur_be64(c);
	a->length = rp_cur_be64(c);
	if (rp_cur_xdr_bool(c)) { /* open_to_lock_owner4 */
		rp_cur_skip(c, 4);
		stateid(c, &a->sid);
		rp_cur_skip(c, 4);
		state_owner(c);
	} else { /* exist_lock_owner4 */
		stateid(c, &a->sid);
		rp_cur_skip(c, 4);
	}
}

static void exchange_id_args(rp_cur *c)
{
	rp_cur_skip(c, 8);
	skip_opaque(c, NFS4_OPAQUE_LIMIT);
	rp_cur_skip(c, 4); /* flags */
	switch (rp_cur_be32(c)) {
	case 0: break;
	case 1: state_protect_ops(c); break;
	case 2: {
		state_protect_ops(c);
		for (int k = 0; k < 2 && !c->err; k++) { /* hash and encryption algorithm OIDs */
			const uint32_t n = count(c, 4);
			for (uint32_t i = 0; i < n && !c->err; i++)
				skip_opaque(c, NFS4_OPAQUE_LIMIT);
		}
		rp_cur_skip(c, 8);
		break;
	}
	default: c->err = true; break;
	}
	impl_id(c);
}

static void app_data_block(rp_cur *c)
{
	rp_cur_skip(c, 8 * 4 + 4 + 8);
	skip_opaque(c, NFS4_DATA_MAX);
}

nfs4_step rp__nfs4_arg(rp_cur *c, uint32_t opnum, nfs4_arg *a)
{
	memset(a, 0, sizeof(*a));
	a->opnum = opnum;
	switch (opnum) {
	case OP4_ACCESS: a->count = rp_cur_be32(c); break;
	case OP4_CLOSE: rp_cur_skip(c, 4); stateid(c, &a->sid); break;
	case OP4_COMMIT: a->offset = rp_cur_be64(c); a->count = rp_cur_be32(c); break;
	case OP4_CREATE:
		a->how = rp_cur_be32(c);
		if (a->how == 5) /* NF4LNK: the link text */
			a->name2 = string(c, RP_NFS_PATH_MAX, &a->name2_len);
		else if (a->how == 3 || a->how == 4) /* NF4BLK, NF4CHR: specdata4 */
			rp_cur_skip(c, 8);
		a->name = string(c, NFS4_NAME_MAX, &a->name_len);
		rp__nfs4_fattr(c, &a->attrs);
		break;
	case OP4_DELEGPURGE: rp_cur_skip(c, 8); break;
	case OP4_DELEGRETURN: stateid(c, &a->sid); break;
	case OP4_GETATTR: rp__nfs4_bitmap(c, a->attrs.mask, 3); break;
	case OP4_LINK: case OP4_LOOKUP: case OP4_REMOVE: case OP4_SECINFO:
	case OP4_GETXATTR: case OP4_REMOVEXATTR:
		a->name = string(c, NFS4_NAME_MAX, &a->name_len);
		break;
	case OP4_LOCK: lock_args(c, a); break;
	case OP4_LOCKT:
		a->how = rp_cur_be32(c);
		a->offset = rp_cur_be64(c);
		a->length = rp_cur_be64(c);
		state_owner(c);
		break;
	case OP4_LOCKU:
		a->how = rp_cur_be32(c);
		rp_cur_skip(c, 4);
		stateid(c, &a->sid);
		a->offset = rp_cur_be64(c);
		a->length = rp_cur_be64(c);
		break;
	case OP4_NVERIFY: case OP4_VERIFY: skip_fattr(c); break;
	case OP4_OPEN: open_args(c, a); break;
	case OP4_OPENATTR: (void)rp_cur_xdr_bool(c); break;
	case OP4_OPEN_CONFIRM: stateid(c, &a->sid); rp_cur_skip(c, 4); break;
	case OP4_OPEN_DOWNGRADE:
		stateid(c, &a->sid);
		rp_cur_skip(c, 4);
		a->share_access = rp_cur_be32(c);
		a->share_deny = rp_cur_be32(c);
		break;
	case OP4_PUTFH:
		a->fh = string(c, RP_NFS4_FHSIZE, &a->fh_len);
		if (!c->err && a->fh_len == 0)
			c->err = true; /* an empty handle is not a handle */
		break;
	case OP4_READ: case OP4_READ_PLUS:
		stateid(c, &a->sid);
		a->offset = rp_cur_be64(c);
		a->count = rp_cur_be32(c);
		break;
	case OP4_READDIR:
		a->offset = rp_cur_be64(c); /* the cookie: where a listing goes on from */
		rp_cur_skip(c, 8 + 4);      /* cookieverf, dircount */
		a->count = rp_cur_be32(c); /* maxcount */
		skip_bitmap(c);
		break;
	case OP4_RENAME:
		a->name = string(c, NFS4_NAME_MAX, &a->name_len);
		a->name2 = string(c, NFS4_NAME_MAX, &a->name2_len);
		break;
	case OP4_RENEW: case OP4_DESTROY_CLIENTID: rp_cur_skip(c, 8); break;
	case OP4_SETATTR: stateid(c, &a->sid); rp__nfs4_fattr(c, &a->attrs); break;
	case OP4_SETCLIENTID:
		rp_cur_skip(c, 8);
		skip_opaque(c, NFS4_OPAQUE_LIMIT);
		rp_cur_skip(c, 4);
		netaddr(c);
		rp_cur_skip(c, 4);
		break;
	case OP4_SETCLIENTID_CONFIRM: rp_cur_skip(c, 16); break;
	case OP4_WRITE:
		stateid(c, &a->sid);
		a->offset = rp_cur_be64(c);
		a->how = rp_cur_be32(c);
		a->count = data(c, &a->data_cut);
		break;
	case OP4_RELEASE_LOCKOWNER: state_owner(c); break;
	case OP4_BACKCHANNEL_CTL: rp_cur_skip(c, 4); cb_sec_parms(c); break;
	case OP4_BIND_CONN_TO_SESSION: rp_cur_skip(c, 16 + 4); (void)rp_cur_xdr_bool(c); break;
	case OP4_EXCHANGE_ID: exchange_id_args(c); break;
	case OP4_CREATE_SESSION:
		rp_cur_skip(c, 8 + 4 + 4);
		channel_attrs(c);
		channel_attrs(c);
		rp_cur_skip(c, 4);
		cb_sec_parms(c);
		break;
	case OP4_DESTROY_SESSION: rp_cur_skip(c, 16); break;
	case OP4_FREE_STATEID: case OP4_OFFLOAD_CANCEL: case OP4_OFFLOAD_STATUS: stateid(c, &a->sid); break;
	case OP4_GET_DIR_DELEGATION:
		(void)rp_cur_xdr_bool(c);
		skip_bitmap(c);
		skip_time(c);
		skip_time(c);
		skip_bitmap(c);
		skip_bitmap(c);
		break;
	case OP4_GETDEVICEINFO: rp_cur_skip(c, 16 + 4 + 4); skip_bitmap(c); break;
	case OP4_GETDEVICELIST: rp_cur_skip(c, 4 + 4 + 8 + 8); break;
	case OP4_LAYOUTCOMMIT: {
		rp_cur_skip(c, 16);
		(void)rp_cur_xdr_bool(c);
		stateid(c, &a->sid);
		if (rp_cur_xdr_bool(c))
			rp_cur_skip(c, 8);
		if (rp_cur_xdr_bool(c))
			skip_time(c);
		rp_cur_skip(c, 4);
		skip_opaque(c, NFS4_DATA_MAX);
		break;
	}
	case OP4_LAYOUTGET:
		(void)rp_cur_xdr_bool(c);
		rp_cur_skip(c, 4 + 4 + 8 + 8 + 8);
		stateid(c, &a->sid);
		rp_cur_skip(c, 4);
		break;
	case OP4_LAYOUTRETURN:
		(void)rp_cur_xdr_bool(c);
		rp_cur_skip(c, 8);
		switch (rp_cur_be32(c)) {
		case 1: rp_cur_skip(c, 16); stateid(c, &a->sid); skip_opaque(c, NFS4_DATA_MAX); break;
		case 2: case 3: break;
		default: c->err = true; break;
		}
		break;
	case OP4_SECINFO_NO_NAME: rp_cur_skip(c, 4); break;
	case OP4_SEQUENCE: rp_cur_skip(c, 16 + 12); (void)rp_cur_xdr_bool(c); break;
	case OP4_SET_SSV: skip_opaque(c, NFS4_OPAQUE_LIMIT); skip_opaque(c, NFS4_OPAQUE_LIMIT); break;
	case OP4_TEST_STATEID: rp_cur_skip(c, 16 * (size_t)count(c, 16)); break;
	case OP4_WANT_DELEGATION:
		rp_cur_skip(c, 4);
		switch (rp_cur_be32(c)) {
		case 4: case 6: break;
		case 1: rp_cur_skip(c, 4); break;
		default: c->err = true; break;
		}
		break;
	case OP4_RECLAIM_COMPLETE: (void)rp_cur_xdr_bool(c); break;
	case OP4_ALLOCATE: case OP4_DEALLOCATE:
		stateid(c, &a->sid);
		a->offset = rp_cur_be64(c);
		a->length = rp_cur_be64(c);
		break;
	case OP4_COPY: {
		stateid(c, &a->sid);
		rp_cur_skip(c, 16 + 24);
		(void)rp_cur_xdr_bool(c);
		(void)rp_cur_xdr_bool(c);
		const uint32_t n = count(c, 8);
		for (uint32_t i = 0; i < n && !c->err; i++)
			netloc(c);
		break;
	}
	case OP4_COPY_NOTIFY: stateid(c, &a->sid); netloc(c); break;
	case OP4_IO_ADVISE: stateid(c, &a->sid); rp_cur_skip(c, 16); skip_bitmap(c); break;
	case OP4_LAYOUTERROR: rp_cur_skip(c, 16); stateid(c, &a->sid); rp_cur_skip(c, 24 * (size_t)count(c, 24)); break;
	case OP4_LAYOUTSTATS:
		rp_cur_skip(c, 16);
		stateid(c, &a->sid);
		rp_cur_skip(c, 32 + 16 + 4);
		skip_opaque(c, NFS4_DATA_MAX);
		break;
	case OP4_SEEK: stateid(c, &a->sid); a->offset = rp_cur_be64(c); rp_cur_skip(c, 4); break;
	case OP4_WRITE_SAME: stateid(c, &a->sid); rp_cur_skip(c, 4); app_data_block(c); break;
	case OP4_CLONE: stateid(c, &a->sid); rp_cur_skip(c, 16 + 24); break;
	case OP4_SETXATTR:
		rp_cur_skip(c, 4);
		a->name = string(c, NFS4_NAME_MAX, &a->name_len);
		a->count = data(c, &a->data_cut);
		break;
	case OP4_LISTXATTRS: rp_cur_skip(c, 8); a->count = rp_cur_be32(c); break;
	case OP4_GETFH: case OP4_LOOKUPP: case OP4_PUTPUBFH: case OP4_PUTROOTFH: case OP4_READLINK:
	case OP4_RESTOREFH: case OP4_SAVEFH: case OP4_ILLEGAL:
		break;
	default:
		return STEP_UNKNOWN;
	}
	return c->err ? STEP_ERR : STEP_OK;
}

/* ---- results ---- */

static void open_delegation(rp_cur *c, nfs4_res *r)
{
	switch (rp_cur_be32(c)) {
	case 0: break; /* OPEN_DELEGATE_NONE */
	case 1:        /* READ */
		stateid(c, &r->sid2);
		r->has_sid2 = !c->err;
		(void)rp_cur_xdr_bool(c);
		nfsace(c);
		break;
	case 2: /* WRITE */
		stateid(c, &r->sid2);
		r->has_sid2 = !c->err;
		(void)rp_cur_xdr_bool(c);
		switch (rp_cur_be32(c)) { /* nfs_space_limit4 */
		case 1: case 2: rp_cur_skip(c, 8); break;
		default: c->err = true; break;
		}
		nfsace(c);
		break;
	case 3: { /* OPEN_DELEGATE_NONE_EXT */
		const uint32_t why = rp_cur_be32(c);
		if (why == 1 || why == 2)
			(void)rp_cur_xdr_bool(c);
		break;
	}
	default: c->err = true; break;
	}
}

static void lock_denied(rp_cur *c)
{
	rp_cur_skip(c, 20);
	state_owner(c);
}

static void secinfo_list(rp_cur *c)
{
	const uint32_t n = count(c, 4);
	for (uint32_t i = 0; i < n && !c->err; i++)
		if (rp_cur_be32(c) == 6) { /* RPCSEC_GSS: oid, qop, service */
			skip_opaque(c, NFS4_OPAQUE_LIMIT);
			rp_cur_skip(c, 8);
		}
}

static void write_response(rp_cur *c, nfs4_res *r)
{
	const uint32_t ids = rp_cur_be32(c);
	if (ids > 1)
		c->err = true;
	else if (ids == 1)
		rp_cur_skip(c, 16);
	r->result = rp_cur_be64(c);
	r->committed = rp_cur_be32(c);
	rp_cur_skip(c, 8);
}

static void exchange_id_res(rp_cur *c)
{
	rp_cur_skip(c, 16); /* clientid, sequenceid, flags */
	switch (rp_cur_be32(c)) {
	case 0: break;
	case 1: state_protect_ops(c); break;
	case 2: {
		state_protect_ops(c);
		rp_cur_skip(c, 16);
		const uint32_t n = count(c, 4);
		for (uint32_t i = 0; i < n && !c->err; i++)
			skip_opaque(c, NFS4_OPAQUE_LIMIT);
		break;
	}
	default: c->err = true; break;
	}
	rp_cur_skip(c, 8);
	skip_opaque(c, NFS4_OPAQUE_LIMIT); /* so_major_id */
	skip_opaque(c, NFS4_OPAQUE_LIMIT); /* server scope */
	impl_id(c);
}

static void readdir_res(rp_cur *c, nfs4_res *r)
{
	rp_cur_skip(c, 8); /* cookieverf */
	if (c->err)
		return;
	r->dir = rp_cur_make(c->p, (size_t)(c->end - c->p));
	const uint8_t *name;
	size_t len;
	nfs4_attrs attrs;
	uint64_t n = 0;
	while (rp__nfs4_dirent(c, &name, &len, &attrs))
		n++;
	(void)rp_cur_xdr_bool(c); /* eof */
	r->result = n;
}

bool rp__nfs4_dirent(rp_cur *c, const uint8_t **name, size_t *len, nfs4_attrs *attrs)
{
	if (!rp_cur_xdr_bool(c)) /* value_follows */
		return false;
	rp_cur_skip(c, 8); /* cookie */
	*name = string(c, NFS4_NAME_MAX, len);
	rp__nfs4_fattr(c, attrs);
	return !c->err;
}

/* nfsv4_1_file_layout4 (RFC 8881 §13.3): the handles the data servers know the file by. */
static void file_layout(rp_cur body, nfs4_res *r)
{
	rp_cur_skip(&body, 16 + 4 + 4 + 8); /* deviceid, util, first stripe index, pattern offset */
	const uint32_t n = count(&body, 4);
	for (uint32_t i = 0; i < n && !body.err; i++) {
		size_t len;
		const uint8_t *const fh = string(&body, RP_NFS4_FHSIZE, &len);
		if (!body.err && len && r->n_ds < sizeof(r->ds_fh) / sizeof(r->ds_fh[0])) {
			r->ds_fh[r->n_ds] = fh;
			r->ds_len[r->n_ds++] = len;
		}
	}
}

static void layout_get_res(rp_cur *c, nfs4_res *r)
{
	(void)rp_cur_xdr_bool(c);
	stateid(c, &r->sid);
	const uint32_t n = count(c, 28);
	for (uint32_t i = 0; i < n && !c->err; i++) {
		rp_cur_skip(c, 8 + 8 + 4);
		const uint32_t type = rp_cur_be32(c);
		size_t len;
		const uint8_t *const body = string(c, NFS4_DATA_MAX, &len);
		if (!c->err && type == 1) /* LAYOUT4_NFSV4_1_FILES */
			file_layout(rp_cur_make(body, len), r);
	}
}

static void read_plus_res(rp_cur *c, nfs4_res *r)
{
	(void)rp_cur_xdr_bool(c);
	const uint32_t n = count(c, 4);
	for (uint32_t i = 0; i < n && !c->err && !r->data_cut; i++) {
		switch (rp_cur_be32(c)) {
		case 0: rp_cur_skip(c, 8); r->result += data(c, &r->data_cut); break; /* NFS4_CONTENT_DATA */
		case 1: rp_cur_skip(c, 8); r->result += rp_cur_be64(c); break;      /* NFS4_CONTENT_HOLE */
		default: break;
		}
	}
}

nfs4_step rp__nfs4_res(rp_cur *c, nfs4_res *r)
{
	const uint32_t st = r->status;
	const bool ok = st == 0;
	switch (r->opnum) {
	case OP4_ACCESS:
		if (ok) {
			rp_cur_skip(c, 4);
			r->result = rp_cur_be32(c);
		}
		break;
	case OP4_CLOSE: case OP4_LOCKU: case OP4_OPEN_CONFIRM: case OP4_OPEN_DOWNGRADE:
		if (ok) {
			stateid(c, &r->sid);
			r->has_sid = !c->err;
		}
		break;
	case OP4_COMMIT: if (ok) rp_cur_skip(c, 8); break;
	case OP4_CREATE: if (ok) { change_info(c); skip_bitmap(c); } break;
	case OP4_GETATTR: if (ok) rp__nfs4_fattr(c, &r->attrs); break;
	case OP4_GETFH:
		if (ok) {
			r->fh = string(c, RP_NFS4_FHSIZE, &r->fh_len);
			if (!c->err && r->fh_len == 0)
				c->err = true;
		}
		break;
	case OP4_LINK: case OP4_REMOVE: case OP4_SETXATTR: case OP4_REMOVEXATTR: if (ok) change_info(c); break;
	case OP4_LOCK:
		if (ok) {
			stateid(c, &r->sid);
			r->has_sid = !c->err;
		} else if (st == 10010) { /* NFS4ERR_DENIED */
			lock_denied(c);
		}
		break;
	case OP4_LOCKT: if (st == 10010) lock_denied(c); break;
	case OP4_OPEN:
		if (ok) {
			stateid(c, &r->sid);
			r->has_sid = !c->err;
			change_info(c);
			rp_cur_skip(c, 4); /* rflags */
			skip_bitmap(c);
			open_delegation(c, r);
		}
		break;
	case OP4_READ:
		if (ok) {
			(void)rp_cur_xdr_bool(c);
			r->result = data(c, &r->data_cut);
		}
		break;
	case OP4_READDIR: if (ok) readdir_res(c, r); break;
	case OP4_READLINK: case OP4_GETXATTR: {
		if (ok) {
			size_t n;
			(void)string(c, r->opnum == OP4_READLINK ? RP_NFS_PATH_MAX : NFS4_DATA_MAX, &n);
			r->result = n;
		}
		break;
	}
	case OP4_RENAME: if (ok) { change_info(c); change_info(c); } break;
	case OP4_SECINFO: case OP4_SECINFO_NO_NAME: if (ok) secinfo_list(c); break;
	case OP4_SETATTR: skip_bitmap(c); break; /* attrsset follows whatever the status */
	case OP4_SETCLIENTID:
		if (ok)
			rp_cur_skip(c, 16);
		else if (st == 10017) /* NFS4ERR_CLID_INUSE */
			netaddr(c);
		break;
	case OP4_WRITE:
		if (ok) {
			r->result = rp_cur_be32(c);
			r->committed = rp_cur_be32(c);
			rp_cur_skip(c, 8);
		}
		break;
	case OP4_BIND_CONN_TO_SESSION: if (ok) { rp_cur_skip(c, 20); (void)rp_cur_xdr_bool(c); } break;
	case OP4_EXCHANGE_ID: if (ok) exchange_id_res(c); break;
	case OP4_CREATE_SESSION: if (ok) { rp_cur_skip(c, 24); channel_attrs(c); channel_attrs(c); } break;
	case OP4_GET_DIR_DELEGATION:
		if (ok) {
			switch (rp_cur_be32(c)) {
			case 0:
				rp_cur_skip(c, 8);
				stateid(c, &r->sid);
				skip_bitmap(c);
				skip_bitmap(c);
				skip_bitmap(c);
				break;
			case 1: (void)rp_cur_xdr_bool(c); break;
			default: c->err = true; break;
			}
		}
		break;
	case OP4_GETDEVICEINFO:
		if (ok) {
			rp_cur_skip(c, 4);
			skip_opaque(c, NFS4_DATA_MAX);
			skip_bitmap(c);
		} else if (st == 10005) { /* NFS4ERR_TOOSMALL */
			rp_cur_skip(c, 4);
		}
		break;
	case OP4_GETDEVICELIST:
		if (ok) {
			rp_cur_skip(c, 16);
			rp_cur_skip(c, 16 * (size_t)count(c, 16));
			(void)rp_cur_xdr_bool(c);
		}
		break;
	case OP4_LAYOUTCOMMIT: if (ok && rp_cur_xdr_bool(c)) rp_cur_skip(c, 8); break;
	case OP4_LAYOUTGET:
		if (ok)
			layout_get_res(c, r);
		else if (st == 10058) /* NFS4ERR_LAYOUTTRYLATER */
			(void)rp_cur_xdr_bool(c);
		break;
	case OP4_LAYOUTRETURN: if (ok && rp_cur_xdr_bool(c)) rp_cur_skip(c, 16); break;
	case OP4_SEQUENCE: if (ok) rp_cur_skip(c, 16 + 20); break;
	case OP4_SET_SSV: if (ok) skip_opaque(c, NFS4_OPAQUE_LIMIT); break;
	case OP4_TEST_STATEID: if (ok) rp_cur_skip(c, 4 * (size_t)count(c, 4)); break;
	case OP4_WANT_DELEGATION: if (ok) open_delegation(c, r); break;
	case OP4_COPY:
		if (ok) {
			write_response(c, r);
			rp_cur_skip(c, 8);
		} else if (st == 10094) { /* NFS4ERR_OFFLOAD_NO_REQS */
			rp_cur_skip(c, 8);
		}
		break;
	case OP4_COPY_NOTIFY:
		if (ok) {
			skip_time(c);
			stateid(c, &r->sid);
			const uint32_t n = count(c, 8);
			for (uint32_t i = 0; i < n && !c->err; i++)
				netloc(c);
		}
		break;
	case OP4_IO_ADVISE: if (ok) skip_bitmap(c); break;
	case OP4_OFFLOAD_STATUS:
		if (ok) {
			rp_cur_skip(c, 8);
			const uint32_t n = rp_cur_be32(c);
			if (n > 1)
				c->err = true;
			else
				rp_cur_skip(c, 4 * (size_t)n);
		}
		break;
	case OP4_READ_PLUS: if (ok) read_plus_res(c, r); break;
	case OP4_SEEK: if (ok) rp_cur_skip(c, 12); break;
	case OP4_WRITE_SAME: if (ok) write_response(c, r); break;
	case OP4_LISTXATTRS:
		if (ok) {
			rp_cur_skip(c, 8);
			const uint32_t n = count(c, 4);
			for (uint32_t i = 0; i < n && !c->err; i++)
				skip_opaque(c, NFS4_NAME_MAX);
			(void)rp_cur_xdr_bool(c);
			r->result = n;
		}
		break;
	case OP4_DELEGPURGE: case OP4_DELEGRETURN: case OP4_LOOKUP: case OP4_LOOKUPP: case OP4_NVERIFY:
	case OP4_OPENATTR: case OP4_PUTFH: case OP4_PUTPUBFH: case OP4_PUTROOTFH: case OP4_RENEW:
	case OP4_RESTOREFH: case OP4_SAVEFH: case OP4_SETCLIENTID_CONFIRM: case OP4_VERIFY:
	case OP4_RELEASE_LOCKOWNER: case OP4_BACKCHANNEL_CTL: case OP4_DESTROY_SESSION: case OP4_FREE_STATEID:
	case OP4_DESTROY_CLIENTID: case OP4_RECLAIM_COMPLETE: case OP4_ALLOCATE: case OP4_DEALLOCATE:
	case OP4_LAYOUTERROR: case OP4_LAYOUTSTATS: case OP4_OFFLOAD_CANCEL: case OP4_CLONE: case OP4_ILLEGAL:
		break;
	default:
		return STEP_UNKNOWN;
	}
	return c->err ? STEP_ERR : STEP_OK;
}
