/* Status tables NTSTATUS <-> errno <-> nfsstat3 <-> nfsstat4 (MS-ERREF 2.3, RFC 1813 2.6, RFC 7530 13, RFC 8881 15, RFC 7862 11). */
#include "formats/status.h"

#include <errno.h>
#include <string.h>


/* X(kind, name, code, canonical, preferred): errno (Linux values), then NT, NFS3, NFS4, each sorted by code. */
#define RP_STATUS_MAP(X) \
	X(E, EPERM, EPERM, EPERM, 1)                                    \
	X(E, ENOENT, ENOENT, ENOENT, 1)                                 \
	X(E, ESRCH, ESRCH, ESRCH, 1)                                    \
	X(E, EINTR, EINTR, EINTR, 1)                                    \
	X(E, EIO, EIO, EIO, 1)                                          \
	X(E, ENXIO, ENXIO, ENXIO, 1)                                    \
	X(E, E2BIG, E2BIG, E2BIG, 1)                                    \
	X(E, EBADF, EBADF, EBADF, 1)                                    \
	X(E, EAGAIN, EAGAIN, EAGAIN, 1)                                 \
	X(E, ENOMEM, ENOMEM, ENOMEM, 1)                                 \
	X(E, EACCES, EACCES, EACCES, 1)                                 \
	X(E, EFAULT, EFAULT, EFAULT, 1)                                 \
	X(E, EBUSY, EBUSY, EBUSY, 1)                                    \
	X(E, EEXIST, EEXIST, EEXIST, 1)                                 \
	X(E, EXDEV, EXDEV, EXDEV, 1)                                    \
	X(E, ENODEV, ENODEV, ENODEV, 1)                                 \
	X(E, ENOTDIR, ENOTDIR, ENOTDIR, 1)                              \
	X(E, EISDIR, EISDIR, EISDIR, 1)                                 \
	X(E, EINVAL, EINVAL, EINVAL, 1)                                 \
	X(E, ENFILE, ENFILE, ENFILE, 1)                                 \
	X(E, EMFILE, EMFILE, EMFILE, 1)                                 \
	X(E, ENOTTY, ENOTTY, ENOTTY, 1)                                 \
	X(E, ETXTBSY, ETXTBSY, ETXTBSY, 1)                              \
	X(E, EFBIG, EFBIG, EFBIG, 1)                                    \
	X(E, ENOSPC, ENOSPC, ENOSPC, 1)                                 \
	X(E, ESPIPE, ESPIPE, ESPIPE, 1)                                 \
	X(E, EROFS, EROFS, EROFS, 1)                                    \
	X(E, EMLINK, EMLINK, EMLINK, 1)                                 \
	X(E, EPIPE, EPIPE, EPIPE, 1)                                    \
	X(E, ERANGE, ERANGE, ERANGE, 1)                                 \
	X(E, EDEADLK, EDEADLK, EDEADLK, 1)                              \
	X(E, ENAMETOOLONG, ENAMETOOLONG, ENAMETOOLONG, 1)               \
	X(E, ENOLCK, ENOLCK, ENOLCK, 1)                                 \
	X(E, ENOSYS, ENOSYS, ENOSYS, 1)                                 \
	X(E, ENOTEMPTY, ENOTEMPTY, ENOTEMPTY, 1)                        \
	X(E, ELOOP, ELOOP, ELOOP, 1)                                    \
	X(E, ENODATA, ENODATA, ENODATA, 1)                              \
	X(E, EREMOTE, EREMOTE, EREMOTE, 1)                              \
	X(E, EOVERFLOW, EOVERFLOW, EOVERFLOW, 1)                        \
	X(E, EILSEQ, EILSEQ, EILSEQ, 1)                                 \
	X(E, EOPNOTSUPP, EOPNOTSUPP, EOPNOTSUPP, 1)                     \
	X(E, ECONNRESET, ECONNRESET, ECONNRESET, 1)                     \
	X(E, ENOBUFS, ENOBUFS, ENOBUFS, 1)                              \
	X(E, ENOTCONN, ENOTCONN, ENOTCONN, 1)                           \
	X(E, ETIMEDOUT, ETIMEDOUT, ETIMEDOUT, 1)                        \
	X(E, ESTALE, ESTALE, ESTALE, 1)                                 \
	X(E, EDQUOT, EDQUOT, EDQUOT, 1)                                 \
	X(E, ECANCELED, ECANCELED, ECANCELED, 1)                        \
	X(NT, OK, 0x00000000, RP_STATUS_OK, 1)                          \
	X(NT, PENDING, 0x00000103, RP_STATUS_UNKNOWN, 0)                \
	X(NT, NOTIFY_CLEANUP, 0x0000010B, RP_STATUS_OK, 0)              \
	X(NT, NOTIFY_ENUM_DIR, 0x0000010C, RP_STATUS_OK, 0)             \
	X(NT, OBJECT_NAME_EXISTS, 0x40000000, RP_STATUS_OK, 0)          \
	X(NT, BUFFER_OVERFLOW, 0x80000005, RP_STATUS_OK, 0)             \
	X(NT, NO_MORE_FILES, 0x80000006, RP_STATUS_OK, 0)               \
	X(NT, STOPPED_ON_SYMLINK, 0x8000002D, ELOOP, 1)                 \
	X(NT, UNSUCCESSFUL, 0xC0000001, RP_STATUS_OTHER, 1)             \
	X(NT, NOT_IMPLEMENTED, 0xC0000002, ENOSYS, 1)                   \
	X(NT, INVALID_INFO_CLASS, 0xC0000003, EINVAL, 0)                \
	X(NT, INFO_LENGTH_MISMATCH, 0xC0000004, EINVAL, 0)              \
	X(NT, ACCESS_VIOLATION, 0xC0000005, EFAULT, 1)                  \
	X(NT, INVALID_HANDLE, 0xC0000008, EBADF, 1)                     \
	X(NT, INVALID_PARAMETER, 0xC000000D, EINVAL, 1)                 \
	X(NT, NO_SUCH_DEVICE, 0xC000000E, ENODEV, 1)                    \
	X(NT, NO_SUCH_FILE, 0xC000000F, ENOENT, 0)                      \
	X(NT, INVALID_DEVICE_REQUEST, 0xC0000010, ENOTTY, 1)            \
	X(NT, END_OF_FILE, 0xC0000011, ENODATA, 1)                      \
	X(NT, MORE_PROCESSING_REQUIRED, 0xC0000016, RP_STATUS_OTHER, 0) \
	X(NT, NO_MEMORY, 0xC0000017, ENOMEM, 1)                         \
	X(NT, INVALID_LOCK_SEQUENCE, 0xC000001E, EINVAL, 0)             \
	X(NT, ACCESS_DENIED, 0xC0000022, EACCES, 1)                     \
	X(NT, BUFFER_TOO_SMALL, 0xC0000023, ERANGE, 1)                  \
	X(NT, OBJECT_NAME_INVALID, 0xC0000033, EILSEQ, 1)               \
	X(NT, OBJECT_NAME_NOT_FOUND, 0xC0000034, ENOENT, 1)             \
	X(NT, OBJECT_NAME_COLLISION, 0xC0000035, EEXIST, 1)             \
	X(NT, OBJECT_PATH_INVALID, 0xC0000039, ENOTDIR, 0)              \
	X(NT, OBJECT_PATH_NOT_FOUND, 0xC000003A, ENOENT, 0)             \
	X(NT, OBJECT_PATH_SYNTAX_BAD, 0xC000003B, EINVAL, 0)            \
	X(NT, DATA_ERROR, 0xC000003E, EIO, 0)                           \
	X(NT, SHARING_VIOLATION, 0xC0000043, EBUSY, 1)                  \
	X(NT, QUOTA_EXCEEDED, 0xC0000044, EDQUOT, 1)                    \
	X(NT, EAS_NOT_SUPPORTED, 0xC000004F, EOPNOTSUPP, 0)             \
	X(NT, EA_TOO_LARGE, 0xC0000050, E2BIG, 1)                       \
	X(NT, NO_EAS_ON_FILE, 0xC0000052, ENODATA, 0)                   \
	X(NT, FILE_LOCK_CONFLICT, 0xC0000054, EAGAIN, 0)                \
	X(NT, LOCK_NOT_GRANTED, 0xC0000055, EAGAIN, 1)                  \
	X(NT, DELETE_PENDING, 0xC0000056, ENOENT, 0)                    \
	X(NT, PRIVILEGE_NOT_HELD, 0xC0000061, EPERM, 1)                 \
	X(NT, WRONG_PASSWORD, 0xC000006A, EACCES, 0)                    \
	X(NT, LOGON_FAILURE, 0xC000006D, EACCES, 0)                     \
	X(NT, RANGE_NOT_LOCKED, 0xC000007E, ENOLCK, 1)                  \
	X(NT, DISK_FULL, 0xC000007F, ENOSPC, 1)                         \
	X(NT, INSUFFICIENT_RESOURCES, 0xC000009A, ENOMEM, 0)            \
	X(NT, MEDIA_WRITE_PROTECTED, 0xC00000A2, EROFS, 1)              \
	X(NT, IO_TIMEOUT, 0xC00000B5, ETIMEDOUT, 1)                     \
	X(NT, FILE_IS_A_DIRECTORY, 0xC00000BA, EISDIR, 1)               \
	X(NT, NOT_SUPPORTED, 0xC00000BB, EOPNOTSUPP, 1)                 \
	X(NT, BAD_NETWORK_PATH, 0xC00000BE, ENOENT, 0)                  \
	X(NT, NETWORK_NAME_DELETED, 0xC00000C9, ENOTCONN, 0)            \
	X(NT, NETWORK_ACCESS_DENIED, 0xC00000CA, EACCES, 0)             \
	X(NT, BAD_NETWORK_NAME, 0xC00000CC, ENOENT, 0)                  \
	X(NT, NOT_SAME_DEVICE, 0xC00000D4, EXDEV, 1)                    \
	X(NT, INTERNAL_ERROR, 0xC00000E5, EIO, 0)                       \
	X(NT, DIRECTORY_NOT_EMPTY, 0xC0000101, ENOTEMPTY, 1)            \
	X(NT, NOT_A_DIRECTORY, 0xC0000103, ENOTDIR, 1)                  \
	X(NT, NAME_TOO_LONG, 0xC0000106, ENAMETOOLONG, 1)               \
	X(NT, TOO_MANY_OPENED_FILES, 0xC000011F, EMFILE, 1)             \
	X(NT, CANCELLED, 0xC0000120, ECANCELED, 1)                      \
	X(NT, CANNOT_DELETE, 0xC0000121, EPERM, 0)                      \
	X(NT, FILE_DELETED, 0xC0000123, ENOENT, 0)                      \
	X(NT, FILE_CLOSED, 0xC0000128, EBADF, 0)                        \
	X(NT, IO_DEVICE_ERROR, 0xC0000185, EIO, 1)                      \
	X(NT, FS_DRIVER_REQUIRED, 0xC000019C, RP_STATUS_OTHER, 0)       \
	X(NT, USER_SESSION_DELETED, 0xC0000203, ENOTCONN, 0)            \
	X(NT, CONNECTION_DISCONNECTED, 0xC000020C, ENOTCONN, 1)         \
	X(NT, CONNECTION_RESET, 0xC000020D, ECONNRESET, 1)              \
	X(NT, NOT_FOUND, 0xC0000225, ENOENT, 0)                         \
	X(NT, PATH_NOT_COVERED, 0xC0000257, RP_STATUS_OTHER, 0)         \
	X(NT, TOO_MANY_LINKS, 0xC0000265, EMLINK, 1)                    \
	X(NT, NOT_A_REPARSE_POINT, 0xC0000275, EINVAL, 0)               \
	X(NT, NETWORK_SESSION_EXPIRED, 0xC000035C, ENOTCONN, 0)         \
	X(NT, FILE_TOO_LARGE, 0xC0000904, EFBIG, 1)                     \
	X(N3S, OK, 0, RP_STATUS_OK, 1)                                  \
	X(N3, PERM, 1, EPERM, 1)                                        \
	X(N3, NOENT, 2, ENOENT, 1)                                      \
	X(N3, IO, 5, EIO, 1)                                            \
	X(N3, NXIO, 6, ENXIO, 1)                                        \
	X(N3, ACCES, 13, EACCES, 1)                                     \
	X(N3, EXIST, 17, EEXIST, 1)                                     \
	X(N3, XDEV, 18, EXDEV, 1)                                       \
	X(N3, NODEV, 19, ENODEV, 1)                                     \
	X(N3, NOTDIR, 20, ENOTDIR, 1)                                   \
	X(N3, ISDIR, 21, EISDIR, 1)                                     \
	X(N3, INVAL, 22, EINVAL, 1)                                     \
	X(N3, FBIG, 27, EFBIG, 1)                                       \
	X(N3, NOSPC, 28, ENOSPC, 1)                                     \
	X(N3, ROFS, 30, EROFS, 1)                                       \
	X(N3, MLINK, 31, EMLINK, 1)                                     \
	X(N3, NAMETOOLONG, 63, ENAMETOOLONG, 1)                         \
	X(N3, NOTEMPTY, 66, ENOTEMPTY, 1)                               \
	X(N3, DQUOT, 69, EDQUOT, 1)                                     \
	X(N3, STALE, 70, ESTALE, 1)                                     \
	X(N3, REMOTE, 71, EREMOTE, 1)                                   \
	X(N3, BADHANDLE, 10001, EBADF, 1)                               \
	X(N3, NOT_SYNC, 10002, RP_STATUS_OTHER, 0)                      \
	X(N3, BAD_COOKIE, 10003, RP_STATUS_OTHER, 0)                    \
	X(N3, NOTSUPP, 10004, EOPNOTSUPP, 1)                            \
	X(N3, TOOSMALL, 10005, ERANGE, 1)                               \
	X(N3, SERVERFAULT, 10006, RP_STATUS_OTHER, 1)                   \
	X(N3, BADTYPE, 10007, EOPNOTSUPP, 0)                            \
	X(N3, JUKEBOX, 10008, EAGAIN, 1)                                \
	X(N4S, OK, 0, RP_STATUS_OK, 1)                                  \
	X(N4, PERM, 1, EPERM, 1)                                        \
	X(N4, NOENT, 2, ENOENT, 1)                                      \
	X(N4, IO, 5, EIO, 1)                                            \
	X(N4, NXIO, 6, ENXIO, 1)                                        \
	X(N4, ACCESS, 13, EACCES, 1)                                    \
	X(N4, EXIST, 17, EEXIST, 1)                                     \
	X(N4, XDEV, 18, EXDEV, 1)                                       \
	X(N4, NOTDIR, 20, ENOTDIR, 1)                                   \
	X(N4, ISDIR, 21, EISDIR, 1)                                     \
	X(N4, INVAL, 22, EINVAL, 1)                                     \
	X(N4, FBIG, 27, EFBIG, 1)                                       \
	X(N4, NOSPC, 28, ENOSPC, 1)                                     \
	X(N4, ROFS, 30, EROFS, 1)                                       \
	X(N4, MLINK, 31, EMLINK, 1)                                     \
	X(N4, NAMETOOLONG, 63, ENAMETOOLONG, 1)                         \
	X(N4, NOTEMPTY, 66, ENOTEMPTY, 1)                               \
	X(N4, DQUOT, 69, EDQUOT, 1)                                     \
	X(N4, STALE, 70, ESTALE, 1)                                     \
	X(N4, BADHANDLE, 10001, EBADF, 1)                               \
	X(N4, BAD_COOKIE, 10003, RP_STATUS_OTHER, 0)                    \
	X(N4, NOTSUPP, 10004, EOPNOTSUPP, 1)                            \
	X(N4, TOOSMALL, 10005, ERANGE, 1)                               \
	X(N4, SERVERFAULT, 10006, RP_STATUS_OTHER, 1)                   \
	X(N4, BADTYPE, 10007, EOPNOTSUPP, 0)                            \
	X(N4, DELAY, 10008, EAGAIN, 1)                                  \
	X(N4, SAME, 10009, RP_STATUS_OTHER, 0)                          \
	X(N4, DENIED, 10010, EAGAIN, 0)                                 \
	X(N4, EXPIRED, 10011, RP_STATUS_OTHER, 0)                       \
	X(N4, LOCKED, 10012, EAGAIN, 0)                                 \
	X(N4, GRACE, 10013, EAGAIN, 0)                                  \
	X(N4, FHEXPIRED, 10014, ESTALE, 0)                              \
	X(N4, SHARE_DENIED, 10015, EBUSY, 1)                            \
	X(N4, WRONGSEC, 10016, EPERM, 0)                                \
	X(N4, CLID_INUSE, 10017, RP_STATUS_OTHER, 0)                    \
	X(N4, RESOURCE, 10018, ENOMEM, 1)                               \
	X(N4, MOVED, 10019, RP_STATUS_OTHER, 0)                         \
	X(N4, NOFILEHANDLE, 10020, EBADF, 0)                            \
	X(N4, MINOR_VERS_MISMATCH, 10021, RP_STATUS_OTHER, 0)           \
	X(N4, STALE_CLIENTID, 10022, RP_STATUS_OTHER, 0)                \
	X(N4, STALE_STATEID, 10023, RP_STATUS_OTHER, 0)                 \
	X(N4, OLD_STATEID, 10024, RP_STATUS_OTHER, 0)                   \
	X(N4, BAD_STATEID, 10025, RP_STATUS_OTHER, 0)                   \
	X(N4, BAD_SEQID, 10026, RP_STATUS_OTHER, 0)                     \
	X(N4, NOT_SAME, 10027, RP_STATUS_OTHER, 0)                      \
	X(N4, LOCK_RANGE, 10028, EINVAL, 0)                             \
	X(N4, SYMLINK, 10029, ELOOP, 1)                                 \
	X(N4, RESTOREFH, 10030, RP_STATUS_OTHER, 0)                     \
	X(N4, LEASE_MOVED, 10031, RP_STATUS_OTHER, 0)                   \
	X(N4, ATTRNOTSUPP, 10032, EOPNOTSUPP, 0)                        \
	X(N4, NO_GRACE, 10033, RP_STATUS_OTHER, 0)                      \
	X(N4, RECLAIM_BAD, 10034, RP_STATUS_OTHER, 0)                   \
	X(N4, RECLAIM_CONFLICT, 10035, RP_STATUS_OTHER, 0)              \
	X(N4, BADXDR, 10036, EINVAL, 0)                                 \
	X(N4, LOCKS_HELD, 10037, EBUSY, 0)                              \
	X(N4, OPENMODE, 10038, EBADF, 0)                                \
	X(N4, BADOWNER, 10039, EINVAL, 0)                               \
	X(N4, BADCHAR, 10040, EILSEQ, 1)                                \
	X(N4, BADNAME, 10041, EINVAL, 0)                                \
	X(N4, BAD_RANGE, 10042, EINVAL, 0)                              \
	X(N4, LOCK_NOTSUPP, 10043, EOPNOTSUPP, 0)                       \
	X(N4, OP_ILLEGAL, 10044, RP_STATUS_OTHER, 0)                    \
	X(N4, DEADLOCK, 10045, EDEADLK, 1)                              \
	X(N4, FILE_OPEN, 10046, EBUSY, 0)                               \
	X(N4, ADMIN_REVOKED, 10047, RP_STATUS_OTHER, 0)                 \
	X(N4, CB_PATH_DOWN, 10048, RP_STATUS_OTHER, 0)                  \
	X(N4, BADIOMODE, 10049, RP_STATUS_OTHER, 0)                     \
	X(N4, BADLAYOUT, 10050, RP_STATUS_OTHER, 0)                     \
	X(N4, BAD_SESSION_DIGEST, 10051, RP_STATUS_OTHER, 0)            \
	X(N4, BADSESSION, 10052, RP_STATUS_OTHER, 0)                    \
	X(N4, BADSLOT, 10053, RP_STATUS_OTHER, 0)                       \
	X(N4, COMPLETE_ALREADY, 10054, RP_STATUS_OTHER, 0)              \
	X(N4, CONN_NOT_BOUND_TO_SESSION, 10055, RP_STATUS_OTHER, 0)     \
	X(N4, DELEG_ALREADY_WANTED, 10056, RP_STATUS_OTHER, 0)          \
	X(N4, BACK_CHAN_BUSY, 10057, RP_STATUS_OTHER, 0)                \
	X(N4, LAYOUTTRYLATER, 10058, EAGAIN, 0)                         \
	X(N4, LAYOUTUNAVAILABLE, 10059, RP_STATUS_OTHER, 0)             \
	X(N4, NOMATCHING_LAYOUT, 10060, RP_STATUS_OTHER, 0)             \
	X(N4, RECALLCONFLICT, 10061, RP_STATUS_OTHER, 0)                \
	X(N4, UNKNOWN_LAYOUTTYPE, 10062, RP_STATUS_OTHER, 0)            \
	X(N4, SEQ_MISORDERED, 10063, RP_STATUS_OTHER, 0)                \
	X(N4, SEQUENCE_POS, 10064, RP_STATUS_OTHER, 0)                  \
	X(N4, REQ_TOO_BIG, 10065, RP_STATUS_OTHER, 0)                   \
	X(N4, REP_TOO_BIG, 10066, RP_STATUS_OTHER, 0)                   \
	X(N4, REP_TOO_BIG_TO_CACHE, 10067, RP_STATUS_OTHER, 0)          \
	X(N4, RETRY_UNCACHED_REP, 10068, RP_STATUS_OTHER, 0)            \
	X(N4, UNSAFE_COMPOUND, 10069, RP_STATUS_OTHER, 0)               \
	X(N4, TOO_MANY_OPS, 10070, RP_STATUS_OTHER, 0)                  \
	X(N4, OP_NOT_IN_SESSION, 10071, RP_STATUS_OTHER, 0)             \
	X(N4, HASH_ALG_UNSUPP, 10072, RP_STATUS_OTHER, 0)               \
	X(N4, CLIENTID_BUSY, 10074, RP_STATUS_OTHER, 0)                 \
	X(N4, PNFS_IO_HOLE, 10075, RP_STATUS_OTHER, 0)                  \
	X(N4, SEQ_FALSE_RETRY, 10076, RP_STATUS_OTHER, 0)               \
	X(N4, BAD_HIGH_SLOT, 10077, RP_STATUS_OTHER, 0)                 \
	X(N4, DEADSESSION, 10078, RP_STATUS_OTHER, 0)                   \
	X(N4, ENCR_ALG_UNSUPP, 10079, RP_STATUS_OTHER, 0)               \
	X(N4, PNFS_NO_LAYOUT, 10080, RP_STATUS_OTHER, 0)                \
	X(N4, NOT_ONLY_OP, 10081, RP_STATUS_OTHER, 0)                   \
	X(N4, WRONG_CRED, 10082, RP_STATUS_OTHER, 0)                    \
	X(N4, WRONG_TYPE, 10083, RP_STATUS_OTHER, 0)                    \
	X(N4, DIRDELEG_UNAVAIL, 10084, RP_STATUS_OTHER, 0)              \
	X(N4, REJECT_DELEG, 10085, RP_STATUS_OTHER, 0)                  \
	X(N4, RETURNCONFLICT, 10086, RP_STATUS_OTHER, 0)                \
	X(N4, DELEG_REVOKED, 10087, RP_STATUS_OTHER, 0)                 \
	X(N4, PARTNER_NOTSUPP, 10088, EOPNOTSUPP, 0)                    \
	X(N4, PARTNER_NO_AUTH, 10089, EACCES, 0)                        \
	X(N4, UNION_NOTSUPP, 10090, EOPNOTSUPP, 0)                      \
	X(N4, OFFLOAD_DENIED, 10091, RP_STATUS_OTHER, 0)                \
	X(N4, WRONG_LFS, 10092, RP_STATUS_OTHER, 0)                     \
	X(N4, BADLABEL, 10093, RP_STATUS_OTHER, 0)                      \
	X(N4, OFFLOAD_NO_REQS, 10094, RP_STATUS_OTHER, 0)

/*
 * Rows are kept sorted by (kind, code) so lookups by code are binary
 * searches over a table that needs no run-time initialisation; the unit test
 * checks the order.
 */
typedef struct row {
	const char *name;
	uint32_t code;
	int32_t canon;
	uint8_t kind; /* rp_status_kind */
	uint8_t pref; /* 1: the row rp_status_to_proto picks for canon */
	uint16_t name_len;
} row;

#define K_E RP_SK_ERRNO
#define K_NT RP_SK_NT
#define K_N3 RP_SK_NFS3
#define K_N3S RP_SK_NFS3
#define K_N4 RP_SK_NFS4
#define K_N4S RP_SK_NFS4
/* Name prefixes per kind (the rows' names are stringized in ROW, before errno macros expand). */
#define N_E ""
#define N_NT "NT_STATUS_"
#define N_N3 "NFS3ERR_"
#define N_N3S "NFS3_"
#define N_N4 "NFS4ERR_"
#define N_N4S "NFS4_"

static const row rows[] = {
#define ROW(kind, name, code, canon, pref) \
	{ N_##kind #name, (uint32_t)(code), (int32_t)(canon), K_##kind, (pref), (uint16_t)(sizeof(N_##kind #name) - 1) },
	RP_STATUS_MAP(ROW)
#undef ROW
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

size_t rp__status_row_count(void)
{
	return N_ROWS;
}

int rp__status_row(size_t i, rp_status_kind *kind, uint32_t *code, int32_t *canon, int *pref, const char **name)
{
	if (i >= N_ROWS)
		return -1;
	*kind = (rp_status_kind)rows[i].kind;
	*code = rows[i].code;
	*canon = rows[i].canon;
	*pref = rows[i].pref;
	*name = rows[i].name;
	return 0;
}

static int key_cmp(unsigned kind, uint32_t code, const row *r)
{
	if (kind != r->kind)
		return kind < r->kind ? -1 : 1;
	if (code != r->code)
		return code < r->code ? -1 : 1;
	return 0;
}

static const row *find_code(rp_status_kind kind, uint32_t code)
{
	size_t lo = 0, hi = N_ROWS;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		const int c = key_cmp((unsigned)kind, code, &rows[mid]);
		if (c == 0)
			return &rows[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/*
 * reprise's portable errno numbering is Linux's generic one (asm-generic
 * errno.h): a trace holds these numbers whatever host wrote it.  On every
 * host reprise builds on they are the host's own, so mapping to and from the
 * host (rp_errno_to_host, rp_errno_from_host) is the identity; a host whose
 * values differ stops here, at the one place that would then need a table.
 */
#define PORTABLE_ERRNO(name, value) _Static_assert(name == value, #name " differs from the portable numbering");
PORTABLE_ERRNO(EPERM, 1)
PORTABLE_ERRNO(ENOENT, 2)
PORTABLE_ERRNO(ESRCH, 3)
PORTABLE_ERRNO(EINTR, 4)
PORTABLE_ERRNO(EIO, 5)
PORTABLE_ERRNO(ENXIO, 6)
PORTABLE_ERRNO(E2BIG, 7)
PORTABLE_ERRNO(EBADF, 9)
PORTABLE_ERRNO(EAGAIN, 11)
PORTABLE_ERRNO(ENOMEM, 12)
PORTABLE_ERRNO(EACCES, 13)
PORTABLE_ERRNO(EFAULT, 14)
PORTABLE_ERRNO(EBUSY, 16)
PORTABLE_ERRNO(EEXIST, 17)
PORTABLE_ERRNO(EXDEV, 18)
PORTABLE_ERRNO(ENODEV, 19)
PORTABLE_ERRNO(ENOTDIR, 20)
PORTABLE_ERRNO(EISDIR, 21)
PORTABLE_ERRNO(EINVAL, 22)
PORTABLE_ERRNO(ENFILE, 23)
PORTABLE_ERRNO(EMFILE, 24)
PORTABLE_ERRNO(ENOTTY, 25)
PORTABLE_ERRNO(ETXTBSY, 26)
PORTABLE_ERRNO(EFBIG, 27)
PORTABLE_ERRNO(ENOSPC, 28)
PORTABLE_ERRNO(ESPIPE, 29)
PORTABLE_ERRNO(EROFS, 30)
PORTABLE_ERRNO(EMLINK, 31)
PORTABLE_ERRNO(EPIPE, 32)
PORTABLE_ERRNO(ERANGE, 34)
PORTABLE_ERRNO(EDEADLK, 35)
PORTABLE_ERRNO(ENAMETOOLONG, 36)
PORTABLE_ERRNO(ENOLCK, 37)
PORTABLE_ERRNO(ENOSYS, 38)
PORTABLE_ERRNO(ENOTEMPTY, 39)
PORTABLE_ERRNO(ELOOP, 40)
PORTABLE_ERRNO(ENODATA, 61)
PORTABLE_ERRNO(EREMOTE, 66)
PORTABLE_ERRNO(EOVERFLOW, 75)
PORTABLE_ERRNO(EILSEQ, 84)
PORTABLE_ERRNO(EOPNOTSUPP, 95)
PORTABLE_ERRNO(ECONNRESET, 104)
PORTABLE_ERRNO(ENOBUFS, 105)
PORTABLE_ERRNO(ENOTCONN, 107)
PORTABLE_ERRNO(ETIMEDOUT, 110)
PORTABLE_ERRNO(ESTALE, 116)
PORTABLE_ERRNO(EDQUOT, 122)
PORTABLE_ERRNO(ECANCELED, 125)
#undef PORTABLE_ERRNO

/* Linux errno values stop well below this; larger values are not errnos. */
#define ERRNO_MAX 4095

int32_t rp_status_from_proto(rp_status_kind kind, uint32_t code)
{
	if (kind == RP_SK_NONE || kind >= RP_SK__COUNT)
		return RP_STATUS_UNKNOWN;
	const row *const r = find_code(kind, code);
	if (r)
		return r->canon;
	switch (kind) {
	case RP_SK_ERRNO:
		return code <= ERRNO_MAX ? (int32_t)code : RP_STATUS_OTHER;
	case RP_SK_NT:
		/* Severity in the top two bits (MS-ERREF 2.3): success and informational codes are not failures. */
		return (code >> 30) <= 1 ? RP_STATUS_OK : RP_STATUS_OTHER;
	default:
		return RP_STATUS_OTHER;
	}
}

uint32_t rp_status_to_proto(rp_status_kind kind, int32_t canon)
{
	if (kind == RP_SK_NONE || kind >= RP_SK__COUNT)
		return 0;
	if (kind == RP_SK_ERRNO) {
		if (canon >= 0)
			return (uint32_t)canon;
		return canon == RP_STATUS_OTHER ? (uint32_t)EIO : 0;
	}
	for (size_t i = 0; i < N_ROWS; i++)
		if (rows[i].kind == kind && rows[i].pref && rows[i].canon == canon)
			return rows[i].code;
	/*
	 * No reply was seen: a writer that must name a status names success,
	 * the outcome of an op that was issued and not known to fail.
	 */
	if (canon == RP_STATUS_UNKNOWN)
		return 0;
	return rp_status_to_proto(kind, RP_STATUS_OTHER);
}

const char *rp_status_name(int32_t canon)
{
	switch (canon) {
	case RP_STATUS_OK: return "OK";
	case RP_STATUS_UNKNOWN: return "UNKNOWN";
	case RP_STATUS_OTHER: return "OTHER";
	default: break;
	}
	if (canon < 0)
		return NULL;
	const row *const r = find_code(RP_SK_ERRNO, (uint32_t)canon);
	return r ? r->name : NULL;
}

static bool parse_uint(const char *s, size_t len, unsigned base, uint32_t *out)
{
	if (len == 0)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		const char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		v = v * base + d;
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

static const row *find_name(rp_status_kind kind, const char *name, size_t len)
{
	for (size_t i = 0; i < N_ROWS; i++)
		if (rows[i].kind == kind && rows[i].name_len == len && memcmp(rows[i].name, name, len) == 0)
			return &rows[i];
	return NULL;
}

int rp_status_from_name(const char *name, size_t len, int32_t *out)
{
	static const struct {
		const char *name;
		int32_t canon;
	} special[] = { { "OK", RP_STATUS_OK }, { "UNKNOWN", RP_STATUS_UNKNOWN }, { "OTHER", RP_STATUS_OTHER } };
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (strlen(special[i].name) == len && memcmp(special[i].name, name, len) == 0) {
			*out = special[i].canon;
			return 0;
		}
	const row *const r = find_name(RP_SK_ERRNO, name, len);
	if (r) {
		*out = r->canon;
		return 0;
	}
	/* "E<number>", the form rp_op_format prints for an unnamed errno. */
	uint32_t v;
	if (len >= 2 && name[0] == 'E' && parse_uint(name + 1, len - 1, 10, &v) && v >= 1 && v <= ERRNO_MAX) {
		*out = (int32_t)v;
		return 0;
	}
	return -1;
}

const char *rp_status_proto_name(rp_status_kind kind, uint32_t code)
{
	if (kind == RP_SK_NONE || kind >= RP_SK__COUNT)
		return NULL;
	const row *const r = find_code(kind, code);
	return r ? r->name : NULL;
}

int rp_status_proto_parse(rp_status_kind kind, const char *name, size_t len, uint32_t *code)
{
	if (kind == RP_SK_NONE || kind >= RP_SK__COUNT)
		return -1;
	if (len > 2 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X'))
		return parse_uint(name + 2, len - 2, 16, code) ? 0 : -1;
	if (kind == RP_SK_ERRNO && parse_uint(name, len, 10, code))
		return 0;
	const row *r = find_name(kind, name, len);
	/* MS-ERREF spells NT names without the "NT_" prefix (STATUS_ACCESS_DENIED, STATUS_SUCCESS). */
	if (!r && kind == RP_SK_NT && len > 7 && memcmp(name, "STATUS_", 7) == 0) {
		if (len == 14 && memcmp(name, "STATUS_SUCCESS", 14) == 0) {
			*code = 0;
			return 0;
		}
		for (size_t i = 0; i < N_ROWS && !r; i++)
			if (rows[i].kind == RP_SK_NT && rows[i].name_len == len + 3 &&
			    memcmp(rows[i].name + 3, name, len) == 0)
				r = &rows[i];
	}
	if (!r)
		return -1;
	*code = r->code;
	return 0;
}
