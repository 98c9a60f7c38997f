/* The strace log's line syntax, shared by strace_line.c (the lexer) and strace.c (syscalls -> ops). */
#ifndef REPRISE_CONVERTERS_STRACE_INT_H
#define REPRISE_CONVERTERS_STRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A bounded slice of a line; never NUL-terminated. */
typedef struct rp__st_str {
	const char *p;
	uint32_t len;
} rp__st_str;

typedef enum rp__st_kind {
	RP__ST_BLANK,      /* nothing on the line */
	RP__ST_CALL,       /* name(args) = result <duration> */
	RP__ST_UNFINISHED, /* name(args... <unfinished ...> */
	RP__ST_RESUMED,    /* <... name resumed>rest) = result <duration> */
	RP__ST_SIGNAL,     /* --- SIGxxx {...} --- */
	RP__ST_EXITED,     /* +++ exited with N +++ */
	RP__ST_KILLED,     /* +++ killed by SIGxxx +++ */
} rp__st_kind;

typedef struct rp__st_line {
	rp__st_kind kind;
	bool has_pid, has_time;
	uint32_t pid;
	uint64_t time_ns; /* Unix time of the call's entry */
	rp__st_str name;  /* the syscall's name (CALL, UNFINISHED, RESUMED) */
	rp__st_str body;  /* CALL: after '('; UNFINISHED: after '(' up to the marker; RESUMED: after "resumed>" */
} rp__st_line;

/* A line's prefix and shape; -1 with why for a line strace does not write. */
int rp__st_line_parse(const char *line, size_t len, rp__st_line *out, const char **why);

/* At most this many arguments are kept; a syscall has at most 6 (mmap, copy_file_range), strace prints no more. */
#define RP__ST_ARGS_MAX 8

typedef enum rp__st_res {
	RP__ST_RES_NONE,    /* no result: the call was cut (an unfinished call never resumed) */
	RP__ST_RES_OK,      /* a value >= 0 (or any value without an errno name) */
	RP__ST_RES_ERR,     /* -1 ENAME */
	RP__ST_RES_UNKNOWN, /* ? */
} rp__st_res;

typedef struct rp__st_call {
	rp__st_str args[RP__ST_ARGS_MAX];
	unsigned nargs;
	rp__st_res res;
	int64_t ret;
	rp__st_str err;     /* the errno name of RES_ERR (also after "?": ERESTARTSYS) */
	bool has_ret_annot; /* = 3</tmp/x> */
	rp__st_str ret_annot;
	bool has_dur;
	uint64_t dur_ns;
} rp__st_call;

/*
 * body: the text after "name(".  partial: the call was cut (an unfinished
 * call at the end of the log): the arguments that are whole are kept, no
 * result.  0, or -1 with why.
 */
int rp__st_call_parse(const char *body, size_t len, bool partial, rp__st_call *c, const char **why);

/* A number as strace prints one: decimal, -decimal, 0x hex, 0 octal; the whole slice. */
bool rp__st_int(rp__st_str s, int64_t *v);
/* An fd argument: N, N<annotation> or AT_FDCWD (-100), annotation slice (inside the <>) if there is one. */
bool rp__st_fd(rp__st_str s, int64_t *fd, bool *has_annot, rp__st_str *annot);
/* The first "key=" inside s (a struct) and its number. */
bool rp__st_field(rp__st_str s, const char *key, int64_t *v);
/* Whether s holds word (a flag name) bounded by non-identifier characters. */
bool rp__st_has_word(rp__st_str s, const char *word);

/*
 * A quoted C string ("...", with strace's \n \t \" \\ \NNN \xNN escapes,
 * perhaps followed by "..." when strace cut it) into buf[0..cap).  false
 * for NULL, an address, or bad syntax; *cut when strace cut the string.
 */
bool rp__st_string(rp__st_str s, char *buf, uint32_t cap, uint32_t *len, bool *cut);
/* An fd annotation's path (escapes decoded, -yy's nested <...> dropped); *is_path false for pipe:, socket:... */
bool rp__st_annot_path(rp__st_str a, char *buf, uint32_t cap, uint32_t *len, bool *is_path);

typedef struct rp__st_flag {
	const char *name;
	uint64_t value;
} rp__st_flag;
/* NAME|NAME|0xN|N over table into *v; the names not in the table are counted in *unknown. false on bad syntax. */
bool rp__st_flags(rp__st_str s, const rp__st_flag *table, size_t n, uint64_t *v, unsigned *unknown);

/* A Linux errno name (ENOENT) as its number; 0 when unknown. */
int rp__st_errno(rp__st_str name);

/* ---- the converter's state: strace.c reads lines into it, strace_sys.c (the syscall table) changes it through
 * strace_fd.c (processes, fd tables, paths, strings); the calls go one way: strace.c -> strace_sys.c -> strace_fd.c ---- */

#include <string.h>

#include "converters/strace.h"
#include "formats/strtab.h"

/* One open fd of a process. */
typedef struct rp__st_fdent {
	uint64_t handle; /* 0: the slot is free */
	uint64_t pos;    /* the file position, as far as the log shows it (reads, writes, lseek) */
	uint32_t path;   /* string id, 0 when the log never named it */
	uint32_t seen;   /* the last -y name seen for it: a new one means the file moved */
	bool file;       /* false: a pipe, socket or other non-file (its ops are counted, not made) */
	bool cloexec;
} rp__st_fdent;

/* An fd table with the working directory: shared by threads (CLONE_FILES), copied by fork. */
typedef struct rp__st_fdtab {
	unsigned refs;
	uint32_t cap;
	rp__st_fdent *v;
	uint32_t cwd; /* string id, 0 while unknown */
} rp__st_fdtab;

typedef struct rp__st_proc {
	uint32_t pid, client;
	bool used, dead;
	bool forked;         /* a fork op names it as its child */
	uint64_t first_time; /* Unix ns of its first line */
	rp__st_fdtab *ft;
	bool pending;        /* an <unfinished ...> call waits for its resumption */
	bool drop_resume;    /* its resumption makes no op: the call left early (ring full) or is on a pipe/socket */
	uint64_t slot;       /* its place in the emission ring */
	uint64_t pend_time;  /* its entry time (Unix ns) */
	uint64_t pend_line;
	char *pend_name, *pend_body;
	uint32_t pend_name_len, pend_body_len;
} rp__st_proc;

/* What a line could not give: counted by reason, reported in the summary; a bad line is an error unless lenient. */
typedef enum rp__st_bad {
	RP__ST_BAD_LONG,     /* longer than RP_STRACE_LINE_MAX */
	RP__ST_BAD_SYNTAX,   /* no line strace writes */
	RP__ST_BAD_ARGS,     /* a file syscall whose arguments or result do not parse */
	RP__ST_BAD_RESUMED,  /* a resumption without its unfinished call */
	RP__ST_BAD_PIDS,     /* a process beyond the client limit */
	RP__ST_BAD_PATH,     /* a path longer than 64 KiB once joined to its directory */
	RP__ST_BAD_NOTIME,   /* no timestamp (-ttt) */
	RP__ST_BAD_NODUR,    /* no duration (-T) */
	RP__ST_BAD__COUNT
} rp__st_bad;

/* What is counted and is no error. */
typedef enum rp__st_note {
	RP__ST_N_SIGNAL,      /* --- SIG --- lines */
	RP__ST_N_EXIT,        /* +++ exited +++ */
	RP__ST_N_KILLED,      /* +++ killed by +++ */
	RP__ST_N_RESTART,     /* calls interrupted to be restarted (ERESTART*): the restarted call is the op */
	RP__ST_N_NOREPLY,     /* unfinished calls never resumed: ops with an unknown result */
	RP__ST_N_ERRNO,       /* errno names not in the table: status OTHER */
	RP__ST_N_NONFILE,     /* calls on pipes, sockets and other non-files */
	RP__ST_N_UNNAMED_FD,  /* calls on an fd never opened in the log and without a -y path */
	RP__ST_N_FD_LIMIT,    /* fds beyond the table's limit: not tracked */
	RP__ST_N_FLAGS,       /* flag names not known (ignored) */
	RP__ST_N_STATE,       /* calls that change only what the converter tracks (lseek, chdir, execve, fcntl F_SETFD) */
	RP__ST_N__COUNT
} rp__st_note;

/* As replay's RP_REPLAY_CLIENTS_MAX: a trace of more processes could not be replayed. */
#define RP__ST_CLIENTS_MAX 8192u
/* pid -> process buckets: twice the client limit, so the table stays at most half full */
#define RP__ST_PROC_BUCKETS (2u * RP__ST_CLIENTS_MAX)

#define RP__ST_NAMES_MAX 96 /* syscall names counted one by one; the rest as "others" */

typedef struct rp__st_name_count {
	char name[24];
	uint64_t n;
} rp__st_name_count;

typedef struct rp__st_slot {
	rp_op op;
	uint8_t state; /* SLOT_PENDING, SLOT_DONE, SLOT_CANCELLED (strace.c) */
} rp__st_slot;

struct rp_strace {
	rp_sink *sink;
	rp_strtab *strings;
	const char *name;      /* of the input the current line is from, for messages */
	const char *meta_name; /* of the trace (the -ff prefix when files are merged) */
	rp_strace_opts opts;
	uint64_t line;        /* of the current input (t->name) */
	uint64_t lines_total; /* of every input */
	uint64_t lines_used;
	bool meta_sent, timed_seen, dur_seen;
	uint64_t t0; /* Unix ns of the first timestamp: t = 0 */
	/* pid -> process, open addressing (2 x the client limit, so at most half full) */
	rp__st_proc *procs;
	uint32_t n_clients;
	uint64_t next_handle;
	uint64_t fd_slots; /* fd slots allocated over every table, against a budget */
	/* emission in call order: calls take a slot when they start, ops leave when every earlier slot is done */
	rp__st_slot *ring;
	uint64_t head, tail, cap;
	uint64_t ops, skipped;
	uint64_t bad[RP__ST_BAD__COUNT], note[RP__ST_N__COUNT];
	rp__st_name_count names[RP__ST_NAMES_MAX];
	uint32_t n_names;
	uint64_t names_other, notfile;
	char *sbuf, *jbuf, *cbuf; /* a decoded string; a joined path; an unfinished call and its resumption */
	const char *why;          /* the detail of the last bad line */
	int fatal;                /* a sink error while a line was read (its detail in sink->errbuf), 0 if none */
};

/* fd tables and paths (strace_fd.c), for the syscall table (strace_sys.c). */
static const rp__st_str rp__st_none = { "", 0 };
static inline rp__st_str st_arg(const rp__st_call *c, unsigned i)
{
	return i < c->nargs ? c->args[i] : rp__st_none;
}
static inline bool st_ok(const rp__st_call *c)
{
	return c->res == RP__ST_RES_OK;
}
static inline bool st_eq(rp__st_str s, const char *lit)
{
	return strlen(lit) == s.len && memcmp(s.p, lit, s.len) == 0;
}
static inline int st_badf(rp_strace *t, const char *why)
{
	t->why = why;
	return -1;
}
/* The fd's slot in ft, grown if asked (within the fd limit and the budget); NULL beyond. */
rp__st_fdent *rp__st_fd_slot(rp_strace *t, rp__st_fdtab *ft, int64_t fd, bool grow);
/* An annotation's path interned: 1 with *id, 0 when it names no file (pipe:, socket:), -1 bad. */
int rp__st_annot_id(rp_strace *t, rp__st_str a, uint32_t *id);
/* A new fd in the table with a new handle (returned; the fd is not tracked beyond the limits). */
uint64_t rp__st_new_fd(rp_strace *t, rp__st_proc *pr, int64_t fd, uint32_t path, bool file, bool cloexec, uint64_t pos);
/* The fd of argument i: 1 with its entry, 0 for no op (a non-file, an fd out of reach: counted), -1 bad. */
int rp__st_use_fd(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, unsigned i, rp__st_fdent **ent);
/* The op's handle and path from the fd of argument i (as rp__st_use_fd). */
int rp__st_op_fd(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, unsigned i, rp_op *op, rp__st_fdent **ent);
/* The path of argument pi joined to dirfd argument di (-1: the cwd): 1 with *id, 0 no string, -1 bad. */
int rp__st_use_path(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, int di, unsigned pi, uint32_t *id);
/* As rp__st_use_path, a missing string being bad. */
int rp__st_need_path(rp_strace *t, rp__st_proc *pr, const rp__st_call *c, int di, unsigned pi, uint32_t *id);
/* The fd number of argument i (-1 when it is none). */
int64_t rp__st_fd_num(const rp__st_call *c, unsigned i);

/* One syscall's op from its parsed call: 1 with *op filled, 0 for no op (counted), -1 bad (t->why). */
int rp__st_syscall(rp_strace *t, rp__st_proc *pr, rp__st_str name, const rp__st_call *c, rp_op *op);
/* Whether name is in the syscall table (calls to others are "not a file operation"). */
bool rp__st_known(rp__st_str name);
/* Whether name is a read or write (of any form): on a pipe or socket it changes nothing tracked. */
bool rp__st_io_call(rp__st_str name);
/* ---- processes and strings (strace_fd.c, beside the fd tables: the syscall table and strace.c both use them) ---- */

/* The process of pid, made on first sight (a new client); NULL past the client limit. */
rp__st_proc *rp__st_proc_get(rp_strace *t, uint32_t pid);
/* The process last known by pid, live or exited; NULL if none was seen (nothing is made). */
rp__st_proc *rp__st_proc_find(rp_strace *t, uint32_t pid);
/* Intern a string on the sink: its id, or a negative rp error (t->why set). */
int64_t rp__st_intern(rp_strace *t, const char *s, uint32_t len);

#endif
