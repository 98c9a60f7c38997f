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

/* ---- the converter's state: strace.c reads lines, pairs unfinished calls with their resumption, keeps the
 * processes (strace's pids -> the model's) and a ring of calls in the order they started; strace_sys.c (the
 * syscall table) turns one parsed call into events (formats/sysev.h), which leave the ring in that order for
 * formats/sysmodel, the one model of fds, paths and processes.  The calls go one way: strace.c ->
 * strace_sys.c -> strace_line.c ---- */

#include <string.h>

#include "converters/strace.h"
#include "formats/sysev.h"

/* One event as it waits in the ring (an rp_sysev without the times its call's batch holds once). */
typedef struct rp__st_ev {
	int64_t a[RP_SYSEV_ARGS];
	int64_t ret;
	uint32_t pid, tid;
	uint32_t off[2], plen[2]; /* path i: plen[i] bytes at the batch's buf + off[i], when bit i of has is set */
	uint16_t nr, flags;
	uint8_t has;
} rp__st_ev;

/* The name -y shows for an fd a call uses: an FD event (a5 1, sysev.h) for the model. */
typedef struct rp__st_fdname {
	int32_t fd;      /* AT_FDCWD (-100): the working directory */
	uint8_t kind;    /* RP__ST_FD_* */
	uint32_t off, len; /* a path's bytes in the batch's buf */
} rp__st_fdname;
enum { RP__ST_FD_UNNAMED, RP__ST_FD_PATH, RP__ST_FD_NONFILE };

/* The names of one call at most: two fds or dirfds before it, its result's after it (openat, rename, copy). */
#define RP__ST_NAMES 3

/* One call's (or process's) event, the fd names around it and their paths' bytes. */
typedef struct rp__st_batch {
	rp__st_ev ev;
	rp__st_fdname names[RP__ST_NAMES]; /* names[0..before) are sent before ev, the rest after it */
	uint64_t t_start, t_end;           /* Unix ns */
	uint32_t pid, tid;                 /* the names' (the caller's; a FORK's ev is the child's) */
	char *buf;
	uint32_t len, cap;
	uint8_t n_names, before;
	bool has_ev;
	bool none; /* a call on a negative fd (close(-1)): EBADF, no op, nothing sent */
} rp__st_batch;

/* One strace pid (a process, or a thread: strace shows tids). */
typedef struct rp__st_proc {
	uint32_t pid;
	uint32_t mpid;       /* the model's process: its own pid, or its creator's when it shares the fd table */
	uint32_t members;    /* as a model process: the live pids it holds (itself and its threads) */
	bool used, dead;
	bool forked;         /* a fork names it as its child */
	bool has_start;      /* a START of its own waits at start_slot (until a fork names it) */
	uint64_t start_slot;
	uint64_t first_time; /* Unix ns of its first line */
	bool pending;        /* an <unfinished ...> call waits for its resumption */
	bool drop_resume;    /* its resumption makes no op: the call left early (ring full) or is on a pipe/socket */
	uint64_t slot;       /* its place in the ring */
	uint64_t pend_time;  /* its entry time (Unix ns) */
	uint64_t pend_line;
	char *pend_name, *pend_body;
	const struct rp__st_sys *pend_sys; /* the pending call's entry in the syscall table */
	uint32_t pend_name_len, pend_body_len;
} rp__st_proc;

/* What a line could not give: counted by reason, reported in the summary; a bad line is an error unless lenient. */
typedef enum rp__st_bad {
	RP__ST_BAD_LONG,     /* longer than RP_STRACE_LINE_MAX */
	RP__ST_BAD_SYNTAX,   /* no line strace writes */
	RP__ST_BAD_ARGS,     /* a file syscall whose arguments or result do not parse */
	RP__ST_BAD_RESUMED,  /* a resumption without its unfinished call */
	RP__ST_BAD_PIDS,     /* a process beyond the client limit */
	RP__ST_BAD_PATH,     /* a path longer than RP_SYSEV_PATH_MAX (the kernel's PATH_MAX) */
	RP__ST_BAD_NOTIME,   /* no timestamp (-ttt) */
	RP__ST_BAD_NODUR,    /* no duration (-T) */
	RP__ST_BAD__COUNT
} rp__st_bad;

/* What is counted and is no error (the model counts the rest: pipes, fds without a path, limits). */
typedef enum rp__st_note {
	RP__ST_N_SIGNAL,      /* --- SIG --- lines */
	RP__ST_N_EXIT,        /* +++ exited +++ */
	RP__ST_N_KILLED,      /* +++ killed by +++ */
	RP__ST_N_RESTART,     /* calls interrupted to be restarted (ERESTART*): the restarted call is the op */
	RP__ST_N_NOREPLY,     /* unfinished calls never resumed: ops with an unknown result */
	RP__ST_N_ERRNO,       /* errno names not in the table: status OTHER */
	RP__ST_N_NONFILE,     /* reads and writes of pipes and sockets left unfinished (the model counts the others) */
	RP__ST_N_FLAGS,       /* flag names not known (ignored) */
	RP__ST_N_STATE,       /* calls that change only what the model tracks (lseek, chdir, execve, fcntl F_SETFD) */
	RP__ST_N_NOFD,        /* calls on a negative fd (close(-1)): no op, counted with the fds without a path */
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
	rp__st_batch b;
	uint8_t state; /* SLOT_PENDING, SLOT_DONE, SLOT_CANCELLED (strace.c) */
} rp__st_slot;

struct rp_strace {
	rp_sink *sink;
	rp_sink out;          /* the model's sink: counts the ops (and keeps one client's) on their way to sink */
	rp_sysmodel *model;
	const char *name;     /* of the input the current line is from, for messages */
	rp_strace_opts opts;
	uint64_t line;        /* of the current input (t->name) */
	uint64_t lines_total; /* of every input */
	uint64_t lines_used;
	bool timed_seen, dur_seen;
	/* pid -> process, open addressing (2 x the client limit, so at most half full) */
	rp__st_proc *procs;
	uint32_t n_clients;
	/* calls take a slot when they start; their events leave for the model when every earlier slot is done */
	rp__st_slot *ring;
	uint64_t head, tail, cap;
	uint64_t ops, skipped;
	uint64_t bad[RP__ST_BAD__COUNT], note[RP__ST_N__COUNT];
	rp__st_name_count names[RP__ST_NAMES_MAX];
	uint32_t n_names;
	uint64_t names_other, notfile;
	char *sbuf, *cbuf;    /* a decoded string; an unfinished call and its resumption */
	const char *why;      /* the detail of the last bad line */
	int fatal;            /* an error that is no bad line (out of memory), 0 if none */
};

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

/* AT_FDCWD as strace prints it and the events carry it */
#define RP__ST_AT_CWD (-100)

/*
 * Building one call's batch from its arguments (strace_ev.c), for the
 * syscall table's handlers.  Each returns -1 (or NULL) on a bad line, with
 * t->why set.
 */
/* s[0..len) into b's buffer at *off, cut at a NUL as the kernel reads a C string: its length. */
int64_t rp__st_buf_put(rp_strace *t, rp__st_batch *b, const char *s, uint32_t len, uint32_t *off);
/* s[0..len) as path i of b's call event (cut at a NUL, as the kernel reads it). */
int rp__st_ev_path(rp_strace *t, rp__st_batch *b, unsigned i, const char *s, uint32_t len);
/* A name slot for fd, before the call's event (or after it: its result's). */
rp__st_fdname *rp__st_name_add(rp_strace *t, rp__st_batch *b, int64_t fd);
/* The fd of argument i, named for the model as -y shows it: 1 a file (or unknown), 0 a pipe or socket. */
int rp__st_fd_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, bool dir, int64_t *fd);
/* The string argument i as path j of the call's event: 1, 0 when it is no string (NULL, an address). */
int rp__st_str_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, unsigned j);
/* As rp__st_str_arg, a missing string being bad. */
int rp__st_need_str(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned i, unsigned j);
/* The dirfd of argument di (-1: the working directory) named first, as *fd. */
int rp__st_dir_arg(rp_strace *t, rp__st_batch *b, const rp__st_call *c, int di, int64_t *fd);
/* The call's own event, after the fd names so far. */
rp__st_ev *rp__st_call_ev(rp_strace *t, rp__st_batch *b, unsigned nr);
/* By path pi against dirfd di (or by fd: AT_EMPTY_PATH, or fi when there is no path): a0 the dirfd, p0 the path. */
rp__st_ev *rp__st_bypath(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, int di, int pi, int fi);
/* A call on the fd of argument i: a0 the fd. */
rp__st_ev *rp__st_byfd(rp_strace *t, rp__st_batch *b, const rp__st_call *c, unsigned nr, unsigned i);

/* A syscall of the table (strace_sys.c): its family, event kind and arguments' places. */
typedef struct rp__st_sys rp__st_sys;
/* The table's entry for name, NULL for a call that is not a file operation; one search a line. */
const rp__st_sys *rp__st_sys_find(rp__st_str name);
/* Whether s is a read or write (of any form): on a pipe or socket it changes nothing tracked. */
bool rp__st_sys_io(const rp__st_sys *s);
/* The name of the table's entry i, NULL past its end (for the test of its order). */
const char *rp__st_sys_name(size_t i);

/*
 * One syscall's events from its parsed call into b (emptied first; pid, tid
 * and times are the caller's to set): 1 with events, 0 for none (counted),
 * -1 bad (t->why; t->fatal when out of memory).  A fork's FORK event has the
 * child's pid in ret and a2 1 for a thread: the caller names the processes.
 */
int rp__st_syscall(rp_strace *t, const rp__st_sys *s, const rp__st_call *c, rp__st_batch *b);

#endif
