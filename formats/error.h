/* reprise's one error space: negative return values, names and messages. */
#ifndef REPRISE_FORMATS_ERROR_H
#define REPRISE_FORMATS_ERROR_H

#include <stddef.h>

/* Room for a detail message: what was wrong and where ("t.rpz: frame 12: bad checksum"). */
#define RP_ERRBUF_SIZE 512

/* X(name, message).  Values are assigned in order starting at -1; append only. */
#define RP_ERR_MAP(X)                                                          \
	X(NOMEM, "out of memory")                                              \
	X(IO, "input/output error")                                            \
	X(INVAL, "invalid argument")                                           \
	X(NOTTRACE, "not a reprise trace or known input format")               \
	X(VERSION, "unsupported format version")                               \
	X(TRUNCATED, "input is truncated")                                     \
	X(CORRUPT, "input is corrupt")                                         \
	X(SYNTAX, "syntax error")                                              \
	X(UNSUPPORTED, "unsupported feature")                                  \
	X(RANGE, "value out of range")                                         \
	X(LIMIT, "a size limit was exceeded")                                  \
	X(NOTFOUND, "not found")                                               \
	X(EXISTS, "already exists")                                            \
	X(STATE, "operation not valid in this state")                          \
	X(ESCAPE, "path escapes the replay target")                            \
	X(INTERRUPTED, "interrupted")                                          \
	X(SYSTEM, "system call failed")

#define RP_OK 0

#define RP__ERR_IDX(name, msg) RP__ERR_IDX_##name,
enum rp__err_idx { RP_ERR_MAP(RP__ERR_IDX) RP__ERR_COUNT };
#undef RP__ERR_IDX

#define RP__ERR_ENUM(name, msg) RP_E_##name = -1 - RP__ERR_IDX_##name,
enum rp_err { RP_ERR_MAP(RP__ERR_ENUM) };
#undef RP__ERR_ENUM

/* "out of memory" for RP_E_NOMEM; "unknown error" for anything else not in the map. */
const char *rp_strerror(int err);
/* "RP_E_NOMEM"; "RP_E_UNKNOWN" for values not in the map. */
const char *rp_err_name(int err);

/* snprintf into errbuf (which may be NULL) and return err: `return rp_fail(eb, RP_E_IO, "...")`. */
int rp_fail(char *errbuf, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
