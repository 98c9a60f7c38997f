/* NFSv4 fattr4 attribute lists: bitmaps and every attribute's encoding (RFC 7530 §5, RFC 8881 §5, RFC 7862 §12, RFC 8275, RFC 8276). */
#include <string.h>

#include "capture/rpc/nfs4_int.h"
#include "formats/semantics.h"

/*
 * An attrlist4 is an opaque holding the values of the attributes set in the
 * bitmap, in bit order, with nothing saying where one ends.  To reach size or
 * mode we must step over every attribute before them, so each attribute
 * number has its encoding here.  An attribute we cannot step over ends the
 * walk (the attrlist's own length still lets the op be stepped over).
 */
enum enc {
	E_NONE = 0, /* not an attribute we know */
	E_U32,      /* uint32, enum, bool, mode4 */
	E_U64,
	E_PAIR32,   /* specdata4, mode_masked4, mode_umask4 */
	E_PAIR64,   /* fsid4, change_policy4 */
	E_TIME,     /* nfstime4 */
	E_SETTIME,  /* settime4 */
	E_OPAQUE,   /* utf8string, nfs_fh4 */
	E_BITMAP,
	E_U32LIST,  /* layouttype4<> */
	E_ACL,      /* nfsace4<> */
	E_ACL41,    /* nfsacl41 */
	E_FSLOC,    /* fs_locations4 */
	E_FSLOCINFO, /* fs_locations_info4 */
	E_FSSTATUS, /* fs4_status */
	E_HINT,     /* layouthint4, sec_label4 head + opaque */
	E_MDSTH,    /* mdsthreshold4 */
	E_RETGET,   /* retention_get4 */
	E_RETSET,   /* retention_set4 */
	E_SECLABEL, /* sec_label4 */
};

#define FATTR4_MAX 82

static const uint8_t encoding[FATTR4_MAX + 1] = {
	[0] = E_BITMAP,   [1] = E_U32,      [2] = E_U32,     [3] = E_U64,      [4] = E_U64,
	[5] = E_U32,      [6] = E_U32,      [7] = E_U32,     [8] = E_PAIR64,   [9] = E_U32,
	[10] = E_U32,     [11] = E_U32,     [12] = E_ACL,    [13] = E_U32,     [14] = E_U32,
	[15] = E_U32,     [16] = E_U32,     [17] = E_U32,    [18] = E_U32,     [19] = E_OPAQUE,
	[20] = E_U64,     [21] = E_U64,     [22] = E_U64,    [23] = E_U64,     [24] = E_FSLOC,
	[25] = E_U32,     [26] = E_U32,     [27] = E_U64,    [28] = E_U32,     [29] = E_U32,
	[30] = E_U64,     [31] = E_U64,     [32] = E_OPAQUE, [33] = E_U32,     [34] = E_U32,
	[35] = E_U32,     [36] = E_OPAQUE,  [37] = E_OPAQUE, [38] = E_U64,     [39] = E_U64,
	[40] = E_U64,     [41] = E_PAIR32,  [42] = E_U64,    [43] = E_U64,     [44] = E_U64,
	[45] = E_U64,     [46] = E_U32,     [47] = E_TIME,   [48] = E_SETTIME, [49] = E_TIME,
	[50] = E_TIME,    [51] = E_TIME,    [52] = E_TIME,   [53] = E_TIME,    [54] = E_SETTIME,
	[55] = E_U64,     [56] = E_TIME,    [57] = E_TIME,   [58] = E_ACL41,   [59] = E_ACL41,
	[60] = E_PAIR64,  [61] = E_FSSTATUS, [62] = E_U32LIST, [63] = E_HINT,  [64] = E_U32LIST,
	[65] = E_U32,     [66] = E_U32,     [67] = E_FSLOCINFO, [68] = E_MDSTH, [69] = E_RETGET,
	[70] = E_RETSET,  [71] = E_RETGET,  [72] = E_RETSET, [73] = E_U64,     [74] = E_PAIR32,
	[75] = E_BITMAP,  [76] = E_U32,     [77] = E_U32,    [78] = E_U64,     [79] = E_U32,
	[80] = E_SECLABEL, [81] = E_PAIR32, [82] = E_U32,
};

enum {
	A_TYPE = 1, A_SIZE = 4, A_FILEHANDLE = 19, A_MODE = 33, A_OWNER = 36, A_OWNER_GROUP = 37,
	A_TIME_ACCESS_SET = 48, A_TIME_MODIFY_SET = 54, A_MODE_SET_MASKED = 74, A_MODE_UMASK = 81,
};

bool rp__nfs4_bit(const uint32_t *mask, unsigned bit)
{
	return bit < 96 && (mask[bit / 32] >> (bit % 32) & 1u);
}

void rp__nfs4_bitmap(rp_cur *c, uint32_t *words, size_t limit)
{
	memset(words, 0, limit * sizeof(*words));
	const uint32_t n = rp_cur_be32(c);
	if (n > NFS4_LIST_MAX) {
		c->err = true;
		return;
	}
	for (uint32_t i = 0; i < n && !c->err; i++) {
		const uint32_t w = rp_cur_be32(c);
		if (i < limit)
			words[i] = w;
	}
}

static void skip_opaque(rp_cur *c, size_t max)
{
	const uint32_t n = rp_cur_be32(c);
	if (n > max)
		c->err = true;
	else
		rp_cur_xdr_opaque(c, n);
}

/* An array of count items, each stepped over by step(); count bounded by the bytes left. */
static void skip_array(rp_cur *c, void (*step)(rp_cur *))
{
	const uint32_t n = rp_cur_be32(c);
	if (n > rp_cur_left(c) / 4) {
		c->err = true;
		return;
	}
	for (uint32_t i = 0; i < n && !c->err; i++)
		step(c);
}

static void step_string(rp_cur *c) { skip_opaque(c, NFS4_NAME_MAX); }
static void step_pathname(rp_cur *c) { skip_array(c, step_string); }
static void step_u32(rp_cur *c) { rp_cur_skip(c, 4); }

static void step_ace(rp_cur *c)
{
	rp_cur_skip(c, 12); /* type, flag, access_mask */
	skip_opaque(c, NFS4_NAME_MAX);
}

static void step_fs_location(rp_cur *c)
{
	skip_array(c, step_string); /* server<> */
	step_pathname(c);           /* rootpath */
}

static void step_fsl_server(rp_cur *c)
{
	rp_cur_skip(c, 4); /* currency */
	skip_opaque(c, NFS4_OPAQUE_LIMIT);
	skip_opaque(c, NFS4_NAME_MAX);
}

static void step_fsl_item(rp_cur *c)
{
	skip_array(c, step_fsl_server);
	step_pathname(c);
}

static void step_threshold(rp_cur *c)
{
	uint32_t w[1];
	rp_cur_skip(c, 4);
	rp__nfs4_bitmap(c, w, 1);
	skip_opaque(c, NFS4_OPAQUE_LIMIT);
}

static void step_time(rp_cur *c) { rp_cur_skip(c, 12); }
static void step_u64(rp_cur *c) { rp_cur_skip(c, 8); }

/* An optional value: T<1>. */
static void skip_optional(rp_cur *c, void (*step)(rp_cur *))
{
	const uint32_t n = rp_cur_be32(c);
	if (n > 1)
		c->err = true;
	else if (n == 1)
		step(c);
}

/* Step over one attribute value; false when its number is unknown. */
static bool step_attr(rp_cur *c, unsigned bit)
{
	uint32_t w[1];
	switch (bit <= FATTR4_MAX ? encoding[bit] : E_NONE) {
	case E_NONE: return false;
	case E_U32: rp_cur_skip(c, 4); break;
	case E_U64: case E_PAIR32: rp_cur_skip(c, 8); break;
	case E_PAIR64: rp_cur_skip(c, 16); break;
	case E_TIME: step_time(c); break;
	case E_SETTIME: {
		const uint32_t how = rp_cur_be32(c);
		if (how == 1)
			step_time(c);
		else if (how != 0)
			c->err = true;
		break;
	}
	case E_OPAQUE: skip_opaque(c, NFS4_NAME_MAX); break;
	case E_BITMAP: rp__nfs4_bitmap(c, w, 1); break;
	case E_U32LIST: skip_array(c, step_u32); break;
	case E_ACL: skip_array(c, step_ace); break;
	case E_ACL41: rp_cur_skip(c, 4); skip_array(c, step_ace); break;
	case E_FSLOC: step_pathname(c); skip_array(c, step_fs_location); break;
	case E_FSLOCINFO:
		rp_cur_skip(c, 8); /* flags, valid_for */
		step_pathname(c);
		skip_array(c, step_fsl_item);
		break;
	case E_FSSTATUS:
		rp_cur_skip(c, 8); /* absent, type */
		skip_opaque(c, NFS4_NAME_MAX);
		skip_opaque(c, NFS4_NAME_MAX);
		rp_cur_skip(c, 4); /* age */
		step_time(c);
		break;
	case E_HINT: rp_cur_skip(c, 4); skip_opaque(c, NFS4_OPAQUE_LIMIT); break;
	case E_MDSTH: skip_array(c, step_threshold); break;
	case E_RETGET: rp_cur_skip(c, 8); skip_optional(c, step_time); break;
	case E_RETSET: rp_cur_skip(c, 4); skip_optional(c, step_u64); break;
	case E_SECLABEL: rp_cur_skip(c, 8); skip_opaque(c, NFS4_OPAQUE_LIMIT); break;
	}
	return true;
}

/* An owner or owner_group utf8string: a numeric id when it is one ("1000", RFC 7530 §5.9), else not. */
static void read_owner(rp_cur *c, uint32_t *id, bool *numeric)
{
	const uint32_t n = rp_cur_be32(c);
	if (n > NFS4_NAME_MAX) {
		c->err = true;
		return;
	}
	const uint8_t *const s = rp_cur_xdr_opaque(c, n);
	*numeric = false;
	if (!s || n == 0 || n > 10)
		return;
	uint64_t v = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return;
	*id = (uint32_t)v;
	*numeric = true;
}

/* settime4: SET_TO_SERVER_TIME4 (0) or SET_TO_CLIENT_TIME4 (1) with an nfstime4, as time_how3 values. */
static void read_settime(rp_cur *c, uint32_t *how, uint64_t *ns, bool *ok)
{
	const uint32_t h = rp_cur_be32(c);
	if (h == 0) {
		*how = RP_NFS_TIME_SERVER;
	} else if (h == 1) {
		*how = RP_NFS_TIME_CLIENT;
		const int64_t sec = (int64_t)rp_cur_be64(c);
		const uint32_t nsec = rp_cur_be32(c);
		*ok = rp_sem_nfs_time(sec, nsec, ns);
	} else {
		c->err = true;
	}
}

/* Walk the values of an attrlist4 in bit order, picking out what reprise uses. */
static void walk(rp_cur *v, const uint32_t *mask, size_t words, nfs4_attrs *out)
{
	out->complete = true;
	for (unsigned bit = 0; bit < words * 32; bit++) {
		if (!(mask[bit / 32] >> (bit % 32) & 1u))
			continue;
		switch (bit) {
		case A_TYPE:
			out->type = rp_cur_be32(v);
			out->has_type = !v->err;
			continue;
		case A_SIZE:
			out->size = rp_cur_be64(v);
			out->has_size = !v->err;
			continue;
		case A_MODE:
			out->mode = rp_cur_be32(v) & 07777;
			out->has_mode = !v->err;
			continue;
		case A_MODE_UMASK: {
			/* RFC 8275: the server applies the umask; the mode that results is what replays. */
			const uint32_t mode = rp_cur_be32(v), umask = rp_cur_be32(v);
			out->mode = mode & ~umask & 07777;
			out->has_mode = !v->err;
			continue;
		}
		case A_MODE_SET_MASKED: {
			const uint32_t value = rp_cur_be32(v), bits = rp_cur_be32(v);
			out->mode = value & bits & 07777;
			out->has_mode = !v->err;
			continue;
		}
		case A_FILEHANDLE: {
			const uint32_t n = rp_cur_be32(v);
			if (n == 0 || n > RP_NFS4_FHSIZE) {
				v->err = true;
				break;
			}
			out->fh = rp_cur_xdr_opaque(v, n);
			out->fh_len = n;
			out->has_fh = !v->err;
			continue;
		}
		case A_OWNER:
			read_owner(v, &out->uid, &out->uid_numeric);
			out->has_uid = !v->err;
			continue;
		case A_OWNER_GROUP:
			read_owner(v, &out->gid, &out->gid_numeric);
			out->has_gid = !v->err;
			continue;
		case A_TIME_ACCESS_SET:
			read_settime(v, &out->atime_how, &out->atime, &out->atime_ok);
			out->has_atime = !v->err;
			continue;
		case A_TIME_MODIFY_SET:
			read_settime(v, &out->mtime_how, &out->mtime, &out->mtime_ok);
			out->has_mtime = !v->err;
			continue;
		default:
			break;
		}
		if (v->err)
			break;
		if (!step_attr(v, bit)) {
			out->complete = false;
			return;
		}
	}
	if (v->err)
		out->complete = false;
}

void rp__nfs4_fattr(rp_cur *c, nfs4_attrs *out)
{
	memset(out, 0, sizeof(*out));
	/* Attribute numbers stop at 82 today: three words cover them; more words
	 * are stepped over and their attributes (unknown to us) end the walk. */
	uint32_t mask[4];
	const uint32_t n = rp_cur_be32(c);
	if (n > NFS4_LIST_MAX) {
		c->err = true;
		return;
	}
	bool extra = false;
	memset(mask, 0, sizeof(mask));
	for (uint32_t i = 0; i < n && !c->err; i++) {
		const uint32_t w = rp_cur_be32(c);
		if (i < 3)
			mask[i] = w;
		else if (w)
			extra = true;
	}
	memcpy(out->mask, mask, sizeof(out->mask));
	const uint32_t len = rp_cur_be32(c);
	if (c->err)
		return;
	const uint8_t *const start = c->p;
	const size_t avail = (size_t)(c->end - c->p);
	const uint8_t *const vals = rp_cur_xdr_opaque(c, len);
	if (c->err) {
		/* The values are cut short: read what is there; the caller sees c->err. */
		rp_cur v = rp_cur_make(start, len < avail ? len : avail);
		walk(&v, mask, 3, out);
		out->complete = false;
		return;
	}
	rp_cur v = rp_cur_make(vals, len);
	walk(&v, mask, 3, out);
	if (extra)
		out->complete = false;
}
