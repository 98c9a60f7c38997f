/* SMB1 TRANSACTION2: FIND_FIRST2/FIND_NEXT2, QUERY/SET_PATH/FILE_INFORMATION, QUERY_FS_INFORMATION -> ops (MS-CIFS 2.2.6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/smb/smb1_trans2.h"

enum trans2_sub {
	TRANS2_FIND_FIRST2 = 0x01,
	TRANS2_FIND_NEXT2 = 0x02,
	TRANS2_QUERY_FS_INFORMATION = 0x03,
	TRANS2_QUERY_PATH_INFORMATION = 0x05,
	TRANS2_SET_PATH_INFORMATION = 0x06,
	TRANS2_QUERY_FILE_INFORMATION = 0x07,
	TRANS2_SET_FILE_INFORMATION = 0x08,
	TRANS2_CREATE_DIRECTORY = 0x0D,
	TRANS2_GET_DFS_REFERRAL = 0x10,
};

/* SET_*_INFORMATION levels (MS-CIFS 2.2.8.4) other than those semantics.c maps: pass-through is 1000 + class. */
enum { PASS_FileRenameInformation = RP_NT_PASSTHROUGH + RP_NT_FileRenameInformation };

/* A parameter or data section at off/count from the header; cut when not all captured. */
static bool section(smb1_x *x, uint16_t off, uint16_t count, rp_cur *out, bool *cut)
{
	*cut = false;
	if (count == 0) {
		*out = rp_cur_make(x->hdr, 0);
		return true;
	}
	if (off < 32u || (uint64_t)off + count > x->wire) {
		rp__smb1_bad(x, false);
		return false;
	}
	const size_t have = off < x->have ? x->have - off : 0;
	*cut = have < count;
	*out = rp_cur_make(x->hdr + off, *cut ? have : count);
	return true;
}

static bool name_at(smb1_x *x, rp_cur *c, bool cut, char *out)
{
	const int n = rp__smb1_string(x, c, out, cut);
	if (n >= 0)
		return true;
	rp__smb1_bad(x, n == -2);
	return false;
}

static void reserve(smb1_x *x, uint16_t sub, rp_op *op, const char *keep)
{
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	p->sub = sub;
	if (keep)
		p->path = rp__smb_strdup(keep);
	rp__smb1_reserve(x, p, op);
}

/* A rename target in SMB1's FILE_RENAME_INFORMATION: a bare name stays in the file's directory. */
static bool rename_target(smb1_x *x, rp_cur *d, const char *old, char *out, bool *replace)
{
	*replace = (rp_cur_u8(d) & 1u) != 0; /* ReplaceIfExists */
	rp_cur_skip(d, 3 + 4); /* Reserved, RootDirectory */
	const uint32_t n = rp_cur_le32(d);
	const uint8_t *const name = rp_cur_take(d, n);
	char rel[SMB_PATH_MAX];
	if (!name || rp__smb_path(rel, name, n, x->unicode) < 0)
		return false;
	if (strchr(rel + 1, '/') || !old) {
		strcpy(out, rel);
		return true;
	}
	char dir[SMB_PATH_MAX];
	strcpy(dir, old);
	char *const slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	return rp__smb_join(out, dir, rel + 1) >= 0;
}

/*
 * SET_FILE/SET_PATH_INFORMATION: a rename (pass-through FileRenameInformation),
 * else a setattr of the level's values (SMB_INFO_STANDARD's SMB dates are not
 * decoded: semantics.c knows the level alone).
 */
static void set_info(smb1_x *x, uint16_t sub, rp_op *op, uint16_t level, rp_cur *d, const char *old)
{
	char to[SMB_PATH_MAX];
	if (level == PASS_FileRenameInformation) {
		bool replace;
		if (!rename_target(x, d, old, to, &replace)) {
			rp__smb1_bad(x, false);
			return;
		}
		op->op = RP_OP_RENAME;
		op->path2 = rp__smb_intern(x->cx, to);
		rp_sem_nt_rename(op, RP_PROTO_SMB1, level, replace);
	} else {
		rp_nt_setinfo v = { 0 };
		if (level != RP_SMB1_INFO_STANDARD &&
		    !rp__smb_setinfo_decode(rp_sem_nt_class(RP_PROTO_SMB1, level), d, &v)) {
			rp__smb1_bad(x, false);
			return;
		}
		rp_sem_nt_setinfo(op, RP_PROTO_SMB1, level, &v);
	}
	smb1_pending *const p = rp__smb1_pending(x);
	if (!p)
		return;
	p->sub = sub;
	if (op->op == RP_OP_RENAME) {
		p->rename = true;
		p->path = rp__smb_strdup(to);
	}
	rp__smb1_reserve(x, p, op);
}

/*
 * A search pattern ("/dir/a*.txt") as a readdir's directory (path) and the
 * pattern as the client sent it, its last component (path2).
 */
static void put_pattern(smb1_x *x, rp_op *op, const char *pattern)
{
	if (!pattern)
		return;
	const char *const slash = strrchr(pattern, '/');
	if (!slash) {
		op->path2 = rp__smb_intern(x->cx, pattern);
		return;
	}
	char dir[SMB_PATH_MAX];
	const size_t n = slash == pattern ? 1 : (size_t)(slash - pattern);
	memcpy(dir, pattern, n);
	dir[n] = '\0';
	op->path = rp__smb_intern(x->cx, dir);
	op->path2 = slash[1] ? rp__smb_intern(x->cx, slash + 1) : 0;
}

void rp__smb1_trans2_request(smb1_x *x)
{
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 2 * 9); /* totals, maxima, MaxSetupCount/Reserved, Flags, Timeout, Reserved2 */
	const uint16_t pcount = rp_cur_le16(&w);
	const uint16_t poff = rp_cur_le16(&w);
	const uint16_t dcount = rp_cur_le16(&w);
	const uint16_t doff = rp_cur_le16(&w);
	const uint8_t setup_count = rp_cur_u8(&w);
	rp_cur_skip(&w, 1);
	const uint16_t sub = rp_cur_le16(&w);
	if (w.err || setup_count < 1) {
		rp__smb1_bad(x, false);
		return;
	}
	rp_cur prm, dat;
	bool pcut, dcut;
	if (!section(x, poff, pcount, &prm, &pcut) || !section(x, doff, dcount, &dat, &dcut))
		return;
	char path[SMB_PATH_MAX];
	rp_op op = rp__smb1_op(x, RP_OP_STAT);
	switch (sub) {
	case TRANS2_FIND_FIRST2: {
		rp_cur_skip(&prm, 2); /* SearchAttributes */
		const uint16_t count = rp_cur_le16(&prm);
		const uint16_t flags = rp_cur_le16(&prm);
		const uint16_t level = rp_cur_le16(&prm);
		rp_cur_skip(&prm, 4); /* SearchStorageType */
		if (prm.err) {
			rp__smb1_bad(x, pcut);
			return;
		}
		if (!name_at(x, &prm, pcut, path))
			return;
		op.op = RP_OP_READDIR;
		put_pattern(x, &op, path);
		op.raw.level = level;
		op.length = count;
		op.raw.options = flags;
		reserve(x, sub, &op, path);
		return;
	}
	case TRANS2_FIND_NEXT2: {
		const uint16_t sid = rp_cur_le16(&prm);
		const uint16_t count = rp_cur_le16(&prm);
		const uint16_t level = rp_cur_le16(&prm);
		rp_cur_skip(&prm, 4);
		const uint16_t flags = rp_cur_le16(&prm);
		if (prm.err) {
			rp__smb1_bad(x, pcut);
			return;
		}
		/* the search continues its FIND_FIRST2 pattern; the FileName here is only a resume point */
		const char *const pattern = rp__smb1_search(x, sid, NULL);
		op.op = RP_OP_READDIR;
		put_pattern(x, &op, pattern);
		op.raw.level = level;
		op.length = count;
		op.raw.options = flags;
		reserve(x, sub, &op, NULL);
		return;
	}
	case TRANS2_QUERY_FS_INFORMATION: {
		const uint16_t level = rp_cur_le16(&prm);
		if (prm.err) {
			rp__smb1_bad(x, pcut);
			return;
		}
		op.op = RP_OP_STATFS;
		op.raw.level = level;
		reserve(x, sub, &op, NULL);
		return;
	}
	case TRANS2_QUERY_PATH_INFORMATION:
	case TRANS2_SET_PATH_INFORMATION: {
		const uint16_t level = rp_cur_le16(&prm);
		rp_cur_skip(&prm, 4);
		if (prm.err) {
			rp__smb1_bad(x, pcut);
			return;
		}
		if (!name_at(x, &prm, pcut, path))
			return;
		op.path = rp__smb_intern(x->cx, path);
		if (sub == TRANS2_QUERY_PATH_INFORMATION) {
			op.raw.level = level;
			reserve(x, sub, &op, NULL);
		} else {
			op.op = RP_OP_SETATTR;
			set_info(x, sub, &op, level, &dat, path);
		}
		return;
	}
	case TRANS2_QUERY_FILE_INFORMATION:
	case TRANS2_SET_FILE_INFORMATION: {
		const uint16_t fid = rp_cur_le16(&prm);
		const uint16_t level = rp_cur_le16(&prm);
		if (prm.err) {
			rp__smb1_bad(x, pcut);
			return;
		}
		smb1_pending probe = { 0 };
		rp__smb1_fid(x, &probe, &op, fid);
		const char *const fpath = rp__smb1_fid_path(x, &probe);
		if (!op.path && fpath)
			op.path = rp__smb_intern(x->cx, fpath);
		if (sub == TRANS2_QUERY_FILE_INFORMATION) {
			op.raw.level = level;
			smb1_pending *const p = rp__smb1_pending(x);
			if (!p)
				return;
			p->sub = sub;
			p->fid_mode = probe.fid_mode;
			p->fid = probe.fid;
			rp__smb1_reserve(x, p, &op);
		} else {
			op.op = RP_OP_SETATTR;
			set_info(x, sub, &op, level, &dat, fpath);
			smb1_pending *const p = x->sc->pending1 ? rp__smb_map_get(x->sc->pending1,
				&(smb_key){ (uint64_t)x->pid << 16 | x->mid, (uint64_t)x->uid << 16 | x->tid, x->idx }) : NULL;
			if (p) {
				p->fid_mode = probe.fid_mode;
				p->fid = probe.fid;
			}
		}
		return;
	}
	case TRANS2_CREATE_DIRECTORY:
		rp_cur_skip(&prm, 4);
		if (!name_at(x, &prm, pcut, path))
			return;
		op.op = RP_OP_MKDIR;
		op.path = rp__smb_intern(x->cx, path);
		reserve(x, sub, &op, NULL);
		return;
	default: {
		char what[40];
		if (sub == TRANS2_GET_DFS_REFERRAL)
			snprintf(what, sizeof what, "TRANS2 GET_DFS_REFERRAL");
		else
			snprintf(what, sizeof what, "TRANS2 0x%04x", sub);
		rp__smb1_unsupported(x, what);
		(void)rp__smb1_pending(x); /* swallow the response */
		return;
	}
	}
}

bool rp__smb1_trans2_continued(smb1_x *x)
{
	if (x->blk.wc < 10)
		return false;
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 2 * 5);
	const uint16_t pdisp = rp_cur_le16(&w);
	rp_cur_skip(&w, 2 * 2);
	const uint16_t ddisp = rp_cur_le16(&w);
	return !w.err && (pdisp != 0 || ddisp != 0);
}

bool rp__smb1_trans2_response(smb1_x *x, smb1_pending *p, uint64_t *result)
{
	if (x->status != NT_STATUS_OK || x->blk.wc < 10)
		return false;
	if (p->sub != TRANS2_FIND_FIRST2 && p->sub != TRANS2_FIND_NEXT2)
		return false;
	rp_cur w = x->blk.words;
	rp_cur_skip(&w, 2 * 3);
	const uint16_t pcount = rp_cur_le16(&w);
	const uint16_t poff = rp_cur_le16(&w);
	if (w.err)
		return false;
	rp_cur prm;
	bool cut;
	if (!section(x, poff, pcount, &prm, &cut))
		return false;
	if (p->sub == TRANS2_FIND_FIRST2) {
		const uint16_t sid = rp_cur_le16(&prm);
		*result = rp_cur_le16(&prm);
		const uint16_t end = rp_cur_le16(&prm);
		if (prm.err) {
			rp__smb1_bad(x, cut);
			return false;
		}
		if (!end && p->path)
			(void)rp__smb1_search(x, sid, p->path);
		return true;
	}
	*result = rp_cur_le16(&prm);
	if (prm.err) {
		rp__smb1_bad(x, cut);
		return false;
	}
	return true;
}
