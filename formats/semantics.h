/*
 * The one translation point from protocol fields to semantic op fields
 * (docs/op-model.md).  Every producer (SMB and NFS decoders, the loadfile
 * reader, the .rpz 1.0 reader, syscall capture) turns what its protocol sent
 * into an op's want, disp, oflags, attrs and flags here, and keeps the
 * protocol's own values in op->raw as provenance.  The reverse direction,
 * for writers of a protocol's syntax (dbench loadfiles), is here too.
 *
 * References: MS-SMB2 2.2.13 (CREATE), MS-FSCC 2.4 (information classes),
 * MS-DTYP 2.4.3 (ACCESS_MASK), MS-CIFS 2.2.8 (SMB1 info levels), RFC 1813
 * (NFSv3 createhow3, ACCESS3), RFC 7530/8881 (NFSv4 OPEN, ACCESS4).
 */
#ifndef REPRISE_FORMATS_SEMANTICS_H
#define REPRISE_FORMATS_SEMANTICS_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/op.h"

/* ---- NT: SMB1, SMB2/3, dbench SMB loadfiles ------------------------------ */

/* ACCESS_MASK bits (MS-DTYP 2.4.3; file-specific rights MS-SMB2 2.2.13.1.1). */
#define RP_NT_READ_DATA 0x00000001u
#define RP_NT_WRITE_DATA 0x00000002u
#define RP_NT_APPEND_DATA 0x00000004u
#define RP_NT_READ_EA 0x00000008u
#define RP_NT_WRITE_EA 0x00000010u
#define RP_NT_EXECUTE 0x00000020u
#define RP_NT_DELETE_CHILD 0x00000040u
#define RP_NT_READ_ATTRIBUTES 0x00000080u
#define RP_NT_WRITE_ATTRIBUTES 0x00000100u
#define RP_NT_DELETE 0x00010000u
#define RP_NT_READ_CONTROL 0x00020000u
#define RP_NT_WRITE_DAC 0x00040000u
#define RP_NT_WRITE_OWNER 0x00080000u
#define RP_NT_SYNCHRONIZE 0x00100000u
#define RP_NT_ACCESS_SYSTEM_SECURITY 0x01000000u
#define RP_NT_MAXIMUM_ALLOWED 0x02000000u
#define RP_NT_GENERIC_ALL 0x10000000u
#define RP_NT_GENERIC_EXECUTE 0x20000000u
#define RP_NT_GENERIC_WRITE 0x40000000u
#define RP_NT_GENERIC_READ 0x80000000u

/* CreateDisposition (MS-SMB2 2.2.13). */
#define RP_NT_SUPERSEDE 0u
#define RP_NT_OPEN 1u
#define RP_NT_CREATE 2u
#define RP_NT_OPEN_IF 3u
#define RP_NT_OVERWRITE 4u
#define RP_NT_OVERWRITE_IF 5u

/* CreateOptions (MS-SMB2 2.2.13). */
#define RP_NT_DIRECTORY_FILE 0x00000001u
#define RP_NT_WRITE_THROUGH 0x00000002u
#define RP_NT_NO_INTERMEDIATE_BUFFERING 0x00000008u
#define RP_NT_NON_DIRECTORY_FILE 0x00000040u
#define RP_NT_DELETE_ON_CLOSE 0x00001000u
#define RP_NT_OPEN_REPARSE_POINT 0x00200000u

/* CreateAction (MS-SMB2 2.2.14). */
#define RP_NT_FILE_SUPERSEDED 0u
#define RP_NT_FILE_OPENED 1u
#define RP_NT_FILE_CREATED 2u
#define RP_NT_FILE_OVERWRITTEN 3u

/* An ACCESS_MASK as wants (generic rights mapped as for files). */
uint32_t rp_sem_nt_want(uint32_t access);

/*
 * An NT create: want, disp, oflags (with RP_OF_NT), flags, raw and proto.
 * `access_known` is false for dbench SMB loadfiles, which record no access
 * mask.  Returns false for a disposition outside the enum (the op then opens
 * what exists).
 */
bool rp_sem_nt_open(rp_op *op, rp_proto proto, uint32_t access, bool access_known, uint32_t disposition,
		    uint32_t options);

/* dbench's smb-backend `OPEN path flags`: its flag bits (0x08 creates) are not an access mask. */
void rp_sem_dbench_open(rp_op *op, uint32_t flags);

/* A CreateAction as what an open did. */
rp_action rp_sem_nt_action(uint32_t create_action);

/*
 * The values a set-info request carries, decoded by the producer; which of
 * them count depends on the class.  FILETIMEs: 0 and UINT64_MAX mean
 * "unchanged" (MS-FSCC 2.4.7).  Loadfiles carry only the level.
 */
typedef struct rp_nt_setinfo {
	bool decoded;        /* the buffer was read (false: a loadfile, the level alone) */
	bool delete_pending; /* FileDisposition(Ex)Information */
	uint64_t value;      /* end of file, allocation size */
	uint64_t btime, atime, mtime, ctime; /* FileBasicInformation, FILETIME */
	uint32_t attributes; /* FileBasicInformation, 0 = unchanged */
} rp_nt_setinfo;

/* Information classes and levels reprise tells apart (MS-FSCC 2.4, MS-CIFS 2.2.8.4). */
#define RP_NT_FileBasicInformation 4u
#define RP_NT_FileRenameInformation 10u
#define RP_NT_FileLinkInformation 11u
#define RP_NT_FileDispositionInformation 13u
#define RP_NT_FileAllocationInformation 19u
#define RP_NT_FileEndOfFileInformation 20u
#define RP_NT_FileDispositionInformationEx 64u
#define RP_NT_FileRenameInformationEx 65u
#define RP_NT_PASSTHROUGH 1000u /* SMB1 pass-through levels: class + 1000 */
#define RP_SMB1_INFO_STANDARD 1u
#define RP_SMB1_SET_FILE_BASIC_INFO 0x101u
#define RP_SMB1_SET_FILE_DISPOSITION_INFO 0x102u
#define RP_SMB1_SET_FILE_ALLOCATION_INFO 0x103u
#define RP_SMB1_SET_FILE_END_OF_FILE_INFO 0x104u

/*
 * An SMB set-info of `level` (an SMB2 class, an SMB1 level or pass-through
 * level, a dbench loadfile level) as a setattr: attrs and their values;
 * raw.level keeps the level.  Renames and links are not setattrs: the
 * producer makes those ops itself.
 */
void rp_sem_nt_setinfo(rp_op *op, rp_proto proto, uint32_t level, const rp_nt_setinfo *v);

/* Security information (MS-DTYP 2.4.7) a query or set names, as the wants it needs (MS-SMB2 3.3.5.20.3, 3.3.5.21.3). */
uint32_t rp_sem_nt_secinfo_want(uint32_t additional_information, bool set);

/* FILETIME (100 ns since 1601) as ns since the Unix epoch; false for "unchanged" (0, -1) and before 1970. */
bool rp_sem_nt_time(uint64_t filetime, uint64_t *ns);

/* The NT create a writer of SMB syntax gives an open (its raw values when it came from SMB). */
void rp_sem_to_nt(const rp_op *op, uint32_t *access, uint32_t *disposition, uint32_t *options);

/* The SMB1/dbench set-info level a writer gives a setattr (raw level when from SMB), 0 when none fits. */
uint32_t rp_sem_to_nt_level(const rp_op *op);

/* ---- NFS: NFSv3, NFSv4, dbench NFS loadfiles -------------------------------- */

/* createhow3 / createmode4 (RFC 1813 3.3.8, RFC 8881 18.16). */
#define RP_NFS_UNCHECKED 0u
#define RP_NFS_GUARDED 1u
#define RP_NFS_EXCLUSIVE 2u
#define RP_NFS_EXCLUSIVE4_1 3u

/* An NFSv3 CREATE (or a dbench CREATE3): disp from createhow; size 0 in the attributes empties the file. */
void rp_sem_nfs3_create(rp_op *op, rp_proto proto, uint32_t createhow, bool size_zero);

/*
 * An NFSv4 OPEN: share_access (OPEN4_SHARE_ACCESS_READ 1, WRITE 2, BOTH 3) as
 * wants, opentype/createmode as disp; raw keeps share access (access),
 * opentype (disposition), createmode (options) and the claim type (level).
 */
void rp_sem_nfs4_open(rp_op *op, uint32_t share_access, bool create, uint32_t createmode, bool size_zero,
		      uint32_t claim);

/* ACCESS3/ACCESS4 bits (READ 1, LOOKUP 2, MODIFY 4, EXTEND 8, DELETE 0x10, EXECUTE 0x20) as wants, and back. */
uint32_t rp_sem_nfs_access_want(uint32_t bits);
uint32_t rp_sem_to_nfs_access(uint32_t want);

/* The createhow3 a writer of NFS syntax gives an open that creates. */
uint32_t rp_sem_to_nfs3_createhow(const rp_op *op);

/* ---- POSIX: syscall capture ------------------------------------------------ */

/* open(2) flags of this host as want, disp and oflags (proto POSIX; raw.access keeps nothing host-specific). */
void rp_sem_posix_open(rp_op *op, int flags);

/* ---- .rpz 1.0 ---------------------------------------------------------------- */

/*
 * Lift an op read from a 1.0 file, whose access/disposition/options/level
 * meant what its protocol meant (in op->raw on entry), to the semantic fields
 * through the same translations.  `source` is the trace's rp_source; the op's
 * status kind says its protocol where the source does not.  `flags_v1` are
 * the op's 1.0 flags (bit 4, "create", is gone in 2.0).
 */
void rp_sem_lift_v1(rp_op *op, uint32_t source, uint16_t flags_v1);

#endif

/* ---- NFS set-attributes (capture/ producers: sattr3, fattr4) ------------- */

/* The NFSv3 mask of attributes a request sets, kept in raw.level (NFSv4 uses the same bits). */
#define RP_NFS_SET_MODE 1u
#define RP_NFS_SET_UID 2u
#define RP_NFS_SET_GID 4u
#define RP_NFS_SET_SIZE 8u
#define RP_NFS_SET_ATIME 16u
#define RP_NFS_SET_MTIME 32u

/* time_how3 (RFC 1813 2.5.4); an NFSv4 settime4 is translated to these by its producer. */
#define RP_NFS_TIME_DONT_CHANGE 0u
#define RP_NFS_TIME_SERVER 1u
#define RP_NFS_TIME_CLIENT 2u

/*
 * What an NFS set-attributes request carries, decoded by the producer:
 * `sent` is the mask of what it sets (RP_NFS_SET_*), `unusable` the part of
 * it whose value cannot be expressed (an NFSv4 owner that is not a numeric
 * id, a client time before 1970): those stay in raw.level only.
 */
typedef struct rp_nfs_sattr {
	uint32_t sent, unusable;
	uint32_t mode, uid, gid;
	uint64_t size;
	uint32_t atime_how, mtime_how; /* RP_NFS_TIME_*, with the times in ns since the Unix epoch */
	uint64_t atime, mtime;
} rp_nfs_sattr;

/* A SETATTR as a setattr: attrs with their values (mode, uid, gid, length = size, atime, mtime); raw.level = sent. */
void rp_sem_nfs_setattr(rp_op *op, rp_proto proto, const rp_nfs_sattr *sa);

/* nfstime3/nfstime4 as ns since the Unix epoch; false before 1970, for nseconds >= 10^9 and past 2554. */
bool rp_sem_nfs_time(int64_t seconds, uint32_t nseconds, uint64_t *ns);

/* ---- NT renames and info classes (capture/ producers) ---------------------- */

/*
 * An SMB rename (SMB2/SMB1 FileRenameInformation(Ex), SMB_COM_RENAME): oflags
 * RP_RN_NOREPLACE unless ReplaceIfExists; raw.options keeps ReplaceIfExists,
 * raw.level the class or level (0 for SMB_COM_RENAME).
 */
void rp_sem_nt_rename(rp_op *op, rp_proto proto, uint32_t level, bool replace_if_exists);

/* The MS-FSCC class an SMB set-info level stands for (SMB1 levels and pass-through levels mapped), as rp_sem_nt_setinfo reads it. */
uint32_t rp_sem_nt_class(rp_proto proto, uint32_t level);
