/* Protocol fields -> semantic op fields, and back for writers (MS-SMB2, MS-FSCC, MS-DTYP, RFC 1813, RFC 8881). */
#include "formats/semantics.h"

#include <fcntl.h>
#include <stddef.h>

#include "formats/sink.h"

/* ---- NT ------------------------------------------------------------------- */

/* One ACCESS_MASK bit and the wants it grants; generic rights use the file mapping (MS-SMB2 2.2.13.1.1). */
static const struct {
	uint32_t nt, want;
} nt_access_map[] = {
	{ RP_NT_READ_DATA, RP_WANT_READ },
	{ RP_NT_WRITE_DATA, RP_WANT_WRITE },
	{ RP_NT_APPEND_DATA, RP_WANT_APPEND },
	{ RP_NT_READ_EA, RP_WANT_READ_ATTR },
	{ RP_NT_WRITE_EA, RP_WANT_WRITE_ATTR },
	{ RP_NT_EXECUTE, RP_WANT_EXEC },
	{ RP_NT_DELETE_CHILD, RP_WANT_DELETE_CHILD },
	{ RP_NT_READ_ATTRIBUTES, RP_WANT_READ_ATTR },
	{ RP_NT_WRITE_ATTRIBUTES, RP_WANT_WRITE_ATTR },
	{ RP_NT_DELETE, RP_WANT_DELETE },
	{ RP_NT_READ_CONTROL, RP_WANT_READ_SEC },
	{ RP_NT_WRITE_DAC, RP_WANT_WRITE_SEC },
	{ RP_NT_WRITE_OWNER, RP_WANT_WRITE_OWNER },
	{ RP_NT_ACCESS_SYSTEM_SECURITY, RP_WANT_SYS_SEC },
	{ RP_NT_MAXIMUM_ALLOWED, RP_WANT_MAX },
	{ RP_NT_GENERIC_ALL, RP_WANT_ALL & ~RP_WANT_MAX },
	{ RP_NT_GENERIC_EXECUTE, RP_WANT_EXEC | RP_WANT_READ_ATTR | RP_WANT_READ_SEC },
	{ RP_NT_GENERIC_WRITE, RP_WANT_WRITE | RP_WANT_APPEND | RP_WANT_WRITE_ATTR | RP_WANT_READ_SEC },
	{ RP_NT_GENERIC_READ, RP_WANT_READ | RP_WANT_READ_ATTR | RP_WANT_READ_SEC },
};

uint32_t rp_sem_nt_want(uint32_t access)
{
	uint32_t want = RP_WANT_KNOWN;
	for (size_t i = 0; i < sizeof(nt_access_map) / sizeof(nt_access_map[0]); i++)
		if (access & nt_access_map[i].nt)
			want |= nt_access_map[i].want;
	return want;
}

/* CreateDisposition -> rp_disp, by the NT value. */
static const uint8_t nt_disp_map[] = {
	[RP_NT_SUPERSEDE] = RP_DISP_SUPERSEDE, [RP_NT_OPEN] = RP_DISP_OPEN,
	[RP_NT_CREATE] = RP_DISP_CREATE,       [RP_NT_OPEN_IF] = RP_DISP_OPEN_IF,
	[RP_NT_OVERWRITE] = RP_DISP_TRUNC,     [RP_NT_OVERWRITE_IF] = RP_DISP_TRUNC_IF,
};

/* CreateOptions bits that have an open flag. */
static const struct {
	uint32_t nt, of;
} nt_option_map[] = {
	{ RP_NT_DIRECTORY_FILE, RP_OF_DIRECTORY },
	{ RP_NT_NON_DIRECTORY_FILE, RP_OF_NOT_DIRECTORY },
	{ RP_NT_DELETE_ON_CLOSE, RP_OF_DELETE_ON_CLOSE },
	{ RP_NT_WRITE_THROUGH, RP_OF_SYNC },
	{ RP_NT_NO_INTERMEDIATE_BUFFERING, RP_OF_DIRECT },
	{ RP_NT_OPEN_REPARSE_POINT, RP_OF_NOFOLLOW },
};

bool rp_sem_nt_open(rp_op *op, rp_proto proto, uint32_t access, bool access_known, uint32_t disposition,
		    uint32_t options)
{
	op->proto = (uint8_t)proto;
	op->raw = (rp_raw){ .access = access, .disposition = disposition, .options = options };
	op->want = access_known ? rp_sem_nt_want(access) : 0;
	const bool ok = disposition < sizeof(nt_disp_map);
	op->disp = ok ? nt_disp_map[disposition] : RP_DISP_OPEN;
	uint32_t of = RP_OF_NT;
	for (size_t i = 0; i < sizeof(nt_option_map) / sizeof(nt_option_map[0]); i++)
		if (options & nt_option_map[i].nt)
			of |= nt_option_map[i].of;
	op->oflags = of;
	return ok;
}

void rp_sem_dbench_open(rp_op *op, uint32_t flags)
{
	op->proto = RP_PROTO_DBENCH_SMB;
	op->raw = (rp_raw){ .access = flags };
	op->want = 0;
	op->disp = flags & 0x08u ? RP_DISP_OPEN_IF : RP_DISP_OPEN;
	op->oflags = RP_OF_NT;
}

rp_action rp_sem_nt_action(uint32_t create_action)
{
	switch (create_action) {
	case RP_NT_FILE_SUPERSEDED: return RP_ACT_SUPERSEDED;
	case RP_NT_FILE_OPENED: return RP_ACT_OPENED;
	case RP_NT_FILE_CREATED: return RP_ACT_CREATED;
	case RP_NT_FILE_OVERWRITTEN: return RP_ACT_TRUNCATED;
	default: return RP_ACT_UNKNOWN;
	}
}

/* 116444736000000000 intervals of 100 ns from 1601-01-01 to 1970-01-01. */
#define FILETIME_UNIX_EPOCH 116444736000000000ull

bool rp_sem_nt_time(uint64_t filetime, uint64_t *ns)
{
	/* 0: unchanged; -1 and -2: stop and resume automatic updates (MS-FSCC 2.4.7): nothing set. */
	if (filetime == 0 || filetime >= UINT64_MAX - 1 || filetime < FILETIME_UNIX_EPOCH)
		return false;
	const uint64_t t = filetime - FILETIME_UNIX_EPOCH;
	if (t > UINT64_MAX / 100)
		return false;
	*ns = t * 100;
	return true;
}

/* The MS-FSCC class an SMB set-info level stands for (SMB1 levels and pass-through levels mapped). */
static uint32_t nt_class(rp_proto proto, uint32_t level)
{
	switch (level) {
	case RP_SMB1_SET_FILE_BASIC_INFO: return RP_NT_FileBasicInformation;
	case RP_SMB1_SET_FILE_DISPOSITION_INFO: return RP_NT_FileDispositionInformation;
	case RP_SMB1_SET_FILE_ALLOCATION_INFO: return RP_NT_FileAllocationInformation;
	case RP_SMB1_SET_FILE_END_OF_FILE_INFO: return RP_NT_FileEndOfFileInformation;
	default: break;
	}
	if (proto == RP_PROTO_SMB1 && level == RP_SMB1_INFO_STANDARD)
		return RP_NT_FileBasicInformation; /* times, as SMB dates */
	if (level > RP_NT_PASSTHROUGH && level < RP_NT_PASSTHROUGH + 100)
		return level - RP_NT_PASSTHROUGH;
	return level;
}

void rp_sem_nt_setinfo(rp_op *op, rp_proto proto, uint32_t level, const rp_nt_setinfo *v)
{
	op->proto = (uint8_t)proto;
	op->raw.level = level;
	uint32_t attrs = 0;
	uint64_t t;
	switch (nt_class(proto, level)) {
	case RP_NT_FileBasicInformation:
		if (!v->decoded) {
			/* The level alone (a loadfile, SMB dates not decoded): times are set, to unknown values. */
			attrs = RP_SA_ATIME_NOW | RP_SA_MTIME_NOW;
			break;
		}
		if (rp_sem_nt_time(v->atime, &t)) {
			attrs |= RP_SA_ATIME;
			op->atime = t;
		}
		if (rp_sem_nt_time(v->mtime, &t)) {
			attrs |= RP_SA_MTIME;
			op->mtime = t;
		}
		attrs |= rp_sem_nt_time(v->btime, &t) ? RP_SA_BTIME : 0;
		attrs |= rp_sem_nt_time(v->ctime, &t) ? RP_SA_CTIME : 0;
		attrs |= v->attributes ? RP_SA_DOSATTR : 0;
		break;
	case RP_NT_FileDispositionInformation:
	case RP_NT_FileDispositionInformationEx:
		/* dbench's SET_FILE_INFORMATION 1013 sets delete-on-close. */
		attrs = !v->decoded || v->delete_pending ? RP_SA_DELETE_SET : RP_SA_DELETE_CLEAR;
		break;
	case RP_NT_FileAllocationInformation:
		if (v->decoded) {
			attrs = RP_SA_ALLOC;
			op->offset = v->value;
		}
		break;
	case RP_NT_FileEndOfFileInformation:
		if (v->decoded) {
			attrs = RP_SA_SIZE;
			op->length = v->value;
		}
		break;
	default:
		break; /* a class that changes nothing replay models (position, mode, short name ...) */
	}
	op->attrs = attrs;
}

uint32_t rp_sem_nt_secinfo_want(uint32_t addl, bool set)
{
	enum { OWNER_GROUP = 0x3, DACL = 0x4, SACL = 0x8 };
	uint32_t want = RP_WANT_KNOWN;
	if (addl & SACL)
		want |= RP_WANT_SYS_SEC;
	if (set) {
		want |= addl & OWNER_GROUP ? RP_WANT_WRITE_OWNER : 0;
		want |= addl & DACL ? RP_WANT_WRITE_SEC : 0;
		want |= addl & ~(uint32_t)(OWNER_GROUP | DACL | SACL) ? RP_WANT_WRITE_OWNER : 0; /* label, ... */
	} else if ((addl & ~(uint32_t)SACL) || addl == 0) {
		want |= RP_WANT_READ_SEC;
	}
	return want;
}

static bool from_smb(const rp_op *op)
{
	return op->proto == RP_PROTO_SMB1 || op->proto == RP_PROTO_SMB2 || op->proto == RP_PROTO_DBENCH_SMB;
}

void rp_sem_to_nt(const rp_op *op, uint32_t *access, uint32_t *disposition, uint32_t *options)
{
	if (from_smb(op)) {
		*access = op->raw.access;
		*disposition = op->raw.disposition;
		*options = op->raw.options;
		return;
	}
	uint32_t a = 0;
	if (op->want & RP_WANT_KNOWN)
		for (size_t i = 0; i < sizeof(nt_access_map) / sizeof(nt_access_map[0]); i++)
			if (!(nt_access_map[i].nt & 0xf0000000u) && (op->want & nt_access_map[i].want) &&
			    (nt_access_map[i].want & (nt_access_map[i].want - 1)) == 0)
				a |= nt_access_map[i].nt;
	*access = a;
	uint32_t d = RP_NT_OPEN;
	for (uint32_t i = 0; i < sizeof(nt_disp_map); i++)
		if (nt_disp_map[i] == op->disp)
			d = i;
	*disposition = d;
	uint32_t o = 0;
	for (size_t i = 0; i < sizeof(nt_option_map) / sizeof(nt_option_map[0]); i++)
		if (op->oflags & nt_option_map[i].of)
			o |= nt_option_map[i].nt;
	*options = o;
}

uint32_t rp_sem_to_nt_level(const rp_op *op)
{
	if (from_smb(op) && op->raw.level) {
		const uint32_t cls = nt_class((rp_proto)op->proto, op->raw.level);
		return cls < RP_NT_PASSTHROUGH ? cls + RP_NT_PASSTHROUGH : cls;
	}
	const uint32_t a = op->attrs;
	if (a & RP_SA_DELETE_SET)
		return RP_NT_PASSTHROUGH + RP_NT_FileDispositionInformation;
	if (a & RP_SA_SIZE)
		return RP_NT_PASSTHROUGH + RP_NT_FileEndOfFileInformation;
	if (a & RP_SA_ALLOC)
		return RP_NT_PASSTHROUGH + RP_NT_FileAllocationInformation;
	if (a & (RP_SA_ATIME | RP_SA_MTIME | RP_SA_ATIME_NOW | RP_SA_MTIME_NOW | RP_SA_CTIME | RP_SA_BTIME |
		 RP_SA_DOSATTR | RP_SA_MODE))
		return RP_NT_PASSTHROUGH + RP_NT_FileBasicInformation;
	return 0;
}

/* ---- NFS ------------------------------------------------------------------ */

void rp_sem_nfs3_create(rp_op *op, rp_proto proto, uint32_t createhow, bool size_zero)
{
	op->proto = (uint8_t)proto;
	op->raw.disposition = createhow;
	op->want = 0; /* CREATE3 asks for no access: the client's later READ/WRITE say it */
	op->oflags = 0;
	switch (createhow) {
	case RP_NFS_UNCHECKED: op->disp = size_zero ? RP_DISP_TRUNC_IF : RP_DISP_OPEN_IF; break;
	case RP_NFS_GUARDED: op->disp = RP_DISP_CREATE; break;
	default:
		op->disp = RP_DISP_CREATE;
		op->oflags = RP_OF_EXCL_VERIFY;
		break;
	}
}

void rp_sem_nfs4_open(rp_op *op, uint32_t share_access, bool create, uint32_t createmode, bool size_zero,
		      uint32_t claim)
{
	op->proto = RP_PROTO_NFS4;
	op->raw = (rp_raw){ .access = share_access, .disposition = create, .options = create ? createmode : 0,
			    .level = claim };
	/* OPEN4_SHARE_ACCESS_READ 1, WRITE 2, BOTH 3; the 4.1 WANT_* bits above them are delegation wishes. */
	op->want = RP_WANT_KNOWN | (share_access & 1u ? RP_WANT_READ : 0) | (share_access & 2u ? RP_WANT_WRITE : 0);
	op->oflags = 0;
	if (!create)
		op->disp = RP_DISP_OPEN;
	else if (createmode == RP_NFS_UNCHECKED)
		op->disp = size_zero ? RP_DISP_TRUNC_IF : RP_DISP_OPEN_IF;
	else {
		op->disp = RP_DISP_CREATE;
		if (createmode != RP_NFS_GUARDED)
			op->oflags = RP_OF_EXCL_VERIFY;
	}
}

/* ACCESS3/ACCESS4 bits (RFC 1813 3.3.4, RFC 8881 18.1) and the wants they ask about. */
static const struct {
	uint32_t bit, want;
} nfs_access_map[] = {
	{ 0x01, RP_WANT_READ },         /* READ */
	{ 0x02, RP_WANT_EXEC },         /* LOOKUP: traverse a directory */
	{ 0x04, RP_WANT_WRITE },        /* MODIFY */
	{ 0x08, RP_WANT_APPEND },       /* EXTEND */
	{ 0x10, RP_WANT_DELETE_CHILD }, /* DELETE: remove a directory entry */
	{ 0x20, RP_WANT_EXEC },         /* EXECUTE */
};

uint32_t rp_sem_nfs_access_want(uint32_t bits)
{
	uint32_t want = RP_WANT_KNOWN;
	for (size_t i = 0; i < sizeof(nfs_access_map) / sizeof(nfs_access_map[0]); i++)
		if (bits & nfs_access_map[i].bit)
			want |= nfs_access_map[i].want;
	return want;
}

uint32_t rp_sem_to_nfs_access(uint32_t want)
{
	uint32_t bits = 0;
	for (size_t i = 0; i < sizeof(nfs_access_map) / sizeof(nfs_access_map[0]); i++)
		if ((want & nfs_access_map[i].want) && nfs_access_map[i].bit != 0x02) /* EXEC as EXECUTE */
			bits |= nfs_access_map[i].bit;
	return bits;
}

uint32_t rp_sem_to_nfs3_createhow(const rp_op *op)
{
	if (op->proto == RP_PROTO_NFS3 || op->proto == RP_PROTO_DBENCH_NFS)
		return op->raw.disposition;
	if (op->disp == RP_DISP_CREATE)
		return op->oflags & RP_OF_EXCL_VERIFY ? RP_NFS_EXCLUSIVE : RP_NFS_GUARDED;
	return RP_NFS_UNCHECKED;
}

/* ---- POSIX ------------------------------------------------------------------ */

void rp_sem_posix_open(rp_op *op, int flags)
{
	op->proto = RP_PROTO_POSIX;
	op->raw = (rp_raw){ 0 };
	const int acc = flags & O_ACCMODE;
	uint32_t want = RP_WANT_KNOWN;
	if (!(flags & O_PATH)) {
		want |= acc == O_RDONLY || acc == O_RDWR ? RP_WANT_READ : 0;
		want |= acc == O_WRONLY || acc == O_RDWR ? RP_WANT_WRITE : 0;
	}
	op->want = want;
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		op->disp = RP_DISP_CREATE;
	else if (flags & O_CREAT)
		op->disp = flags & O_TRUNC ? RP_DISP_TRUNC_IF : RP_DISP_OPEN_IF;
	else
		op->disp = flags & O_TRUNC ? RP_DISP_TRUNC : RP_DISP_OPEN;
	uint32_t of = 0;
	of |= flags & O_DIRECTORY ? RP_OF_DIRECTORY : 0;
	of |= flags & O_APPEND ? RP_OF_APPEND : 0;
	of |= flags & (O_SYNC | O_DSYNC) ? RP_OF_SYNC : 0;
	of |= flags & O_NOFOLLOW ? RP_OF_NOFOLLOW : 0;
	of |= flags & O_DIRECT ? RP_OF_DIRECT : 0;
	of |= flags & O_CLOEXEC ? RP_OF_CLOEXEC : 0;
	op->oflags = of;
}

/* ---- .rpz 1.0 ---------------------------------------------------------------- */

enum v1_kind { V1_NT, V1_NFS3, V1_NFS4 };

/* Which protocol's fields a 1.0 op holds: its own status kind, else the trace's source. */
static enum v1_kind v1_kind(const rp_op *op, uint32_t source)
{
	switch (op->status_kind) {
	case RP_SK_NT: return V1_NT;
	case RP_SK_NFS3: return V1_NFS3;
	case RP_SK_NFS4: return V1_NFS4;
	default: break;
	}
	return source == RP_SRC_LOADFILE_NFS || source == RP_SRC_PCAP_NFS ? V1_NFS3 : V1_NT;
}

/* 1.0's NFS SETATTR mask (docs/capture-mapping.md 1.0): 1 mode, 2 uid, 4 gid, 8 size, 16 atime, 32 mtime. */
static uint32_t v1_nfs_setattr(uint32_t mask)
{
	/* uid and gid values were not kept: those bits cannot be replayed and stay only in raw.level. */
	return (mask & 1 ? RP_SA_MODE : 0) | (mask & 8 ? RP_SA_SIZE : 0) | (mask & 16 ? RP_SA_ATIME_NOW : 0) |
	       (mask & 32 ? RP_SA_MTIME_NOW : 0);
}

/* Linux open(2) flag values, as 1.0 stored NFSv4 OPENs (on every Linux architecture reprise builds on). */
#define V1_O_ACCMODE 03u
#define V1_O_CREAT 0100u
#define V1_O_EXCL 0200u
#define V1_O_TRUNC 01000u

void rp_sem_lift_v1(rp_op *op, uint32_t source, uint16_t flags_v1)
{
	const rp_raw v1 = op->raw;
	const bool create_v1 = (flags_v1 & (1u << 4)) != 0;
	const bool pcap = source == RP_SRC_PCAP_SMB || source == RP_SRC_PCAP_NFS || source == RP_SRC_PCAP;
	const enum v1_kind k = v1_kind(op, source);
	const rp_proto smb = source == RP_SRC_LOADFILE_SMB ? RP_PROTO_DBENCH_SMB : RP_PROTO_SMB2;
	const rp_proto nfs3 = source == RP_SRC_LOADFILE_NFS ? RP_PROTO_DBENCH_NFS : RP_PROTO_NFS3;
	op->flags &= (uint16_t)~(1u << 4);
	op->proto = (uint8_t)(k == V1_NT ? smb : k == V1_NFS3 ? nfs3 : RP_PROTO_NFS4);
	switch (op->op) {
	case RP_OP_OPEN:
		if (k == V1_NT) {
			/* 1.0 could not tell "no access recorded" from an empty mask: 0 is unknown. */
			rp_sem_nt_open(op, smb, v1.access, v1.access != 0, v1.disposition, v1.options);
			op->result = pcap && op->status == 0 ? rp_sem_nt_action((uint32_t)op->result) : 0;
		} else if (k == V1_NFS4 && !(source == RP_SRC_LOADFILE_NFS)) {
			const uint32_t acc = v1.access & V1_O_ACCMODE;
			rp_sem_nfs4_open(op, acc == 0 ? 1u : acc == 1 ? 2u : 3u, (v1.access & V1_O_CREAT) != 0,
					 v1.access & V1_O_EXCL ? RP_NFS_GUARDED : RP_NFS_UNCHECKED,
					 (v1.access & V1_O_TRUNC) != 0, v1.level);
		} else if (create_v1) {
			rp_sem_nfs3_create(op, nfs3, v1.level, false); /* 1.0 kept createhow3 in level */
		}
		break;
	case RP_OP_SETATTR:
		if (k == V1_NT) {
			/* 1.0 kept the end of file in length and no allocation size; a capture's "delete" was an unlink. */
			const rp_nt_setinfo v = { .decoded = pcap, .value = op->length };
			op->length = 0;
			rp_sem_nt_setinfo(op, smb, v1.level, &v);
		} else {
			op->raw.level = v1.level;
			op->attrs = v1_nfs_setattr(v1.level);
			if (!(op->attrs & RP_SA_SIZE))
				op->length = 0;
			if (!(op->attrs & RP_SA_MODE))
				op->mode = 0;
		}
		break;
	case RP_OP_RENAME:
		op->raw.options = v1.options;
		if (k == V1_NT && !(v1.options & 1u))
			op->oflags = RP_RN_NOREPLACE;
		break;
	case RP_OP_LOCK:
	case RP_OP_UNLOCK:
		op->raw.level = v1.level;
		if (v1.level == 13 && k != V1_NT)
			op->flags |= RP_OPF_TEST; /* LOCKT, as the 1.0 loadfile reader recorded TEST4 */
		if (k == V1_NT)
			op->flags |= RP_OPF_MANDATORY;
		break;
	case RP_OP_GETXATTR:
	case RP_OP_SETXATTR:
		if (k == V1_NT && !op->path2)
			op->want = rp_sem_nt_secinfo_want(v1.level, op->op == RP_OP_SETXATTR);
		break;
	case RP_OP_ACCESS:
		if (k != V1_NT) {
			op->raw.access = v1.access;
			op->raw.options = (uint32_t)op->result;
			op->want = rp_sem_nfs_access_want(v1.access);
			op->result = rp_sem_nfs_access_want((uint32_t)op->result) & ~(uint32_t)RP_WANT_KNOWN;
		}
		break;
	case RP_OP_MKNOD:
		if (k != V1_NT) {
			/* ftype3: 3 BLK, 4 CHR, 6 SOCK, 7 FIFO, as the file type bits of mode */
			static const uint32_t type_bits[8] = { [3] = 0060000, [4] = 0020000, [6] = 0140000, [7] = 0010000 };
			if (v1.level < 8 && !(op->mode & 0170000))
				op->mode |= type_bits[v1.level];
		}
		break;
	default:
		break;
	}
}

/* ---- NFS set-attributes (capture/ producers) ------------------------------ */

bool rp_sem_nfs_time(int64_t seconds, uint32_t nseconds, uint64_t *ns)
{
	if (seconds < 0 || nseconds >= 1000000000u || (uint64_t)seconds > (UINT64_MAX - 999999999u) / 1000000000u)
		return false;
	*ns = (uint64_t)seconds * 1000000000u + nseconds;
	return true;
}

/* How one time of a set-attributes request sets it: the attrs bits and the value. */
static uint32_t nfs_set_time(uint32_t how, uint64_t t, uint32_t client_bit, uint32_t now_bit, uint64_t *out)
{
	if (how == RP_NFS_TIME_SERVER)
		return now_bit;
	if (how == RP_NFS_TIME_CLIENT) {
		*out = t;
		return client_bit;
	}
	return 0;
}

void rp_sem_nfs_setattr(rp_op *op, rp_proto proto, const rp_nfs_sattr *sa)
{
	op->proto = (uint8_t)proto;
	op->raw.level = sa->sent;
	const uint32_t set = sa->sent & ~sa->unusable;
	uint32_t attrs = 0;
	op->mode = 0;
	op->uid = 0;
	op->gid = 0;
	op->length = 0;
	op->atime = 0;
	op->mtime = 0;
	if (set & RP_NFS_SET_MODE) {
		attrs |= RP_SA_MODE;
		op->mode = sa->mode;
	}
	if (set & RP_NFS_SET_UID) {
		attrs |= RP_SA_UID;
		op->uid = sa->uid;
	}
	if (set & RP_NFS_SET_GID) {
		attrs |= RP_SA_GID;
		op->gid = sa->gid;
	}
	if (set & RP_NFS_SET_SIZE) {
		attrs |= RP_SA_SIZE;
		op->length = sa->size;
	}
	if (set & RP_NFS_SET_ATIME)
		attrs |= nfs_set_time(sa->atime_how, sa->atime, RP_SA_ATIME, RP_SA_ATIME_NOW, &op->atime);
	if (set & RP_NFS_SET_MTIME)
		attrs |= nfs_set_time(sa->mtime_how, sa->mtime, RP_SA_MTIME, RP_SA_MTIME_NOW, &op->mtime);
	op->attrs = attrs;
}

/* ---- NT renames and info classes (capture/ producers) ---------------------- */

void rp_sem_nt_rename(rp_op *op, rp_proto proto, uint32_t level, bool replace_if_exists)
{
	op->proto = (uint8_t)proto;
	op->raw.level = level;
	op->raw.options = replace_if_exists ? 1u : 0u;
	op->oflags = replace_if_exists ? 0 : RP_RN_NOREPLACE;
}

uint32_t rp_sem_nt_class(rp_proto proto, uint32_t level)
{
	return nt_class(proto, level);
}
