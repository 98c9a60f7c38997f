/* Interposed stdio (FILE*) calls: glibc moves their bytes with internal calls interposition cannot see, so they make their own events, a run of calls coalesced into one (docs/syscall-capture.md). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "capture/preload/interpose_hook.h"

/* bits/stdio.h makes these macros in optimized builds: the hooks are the functions. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef getc
#undef putc
#undef fputc_unlocked
#undef putc_unlocked
#undef fgetc_unlocked
#undef getc_unlocked

/* The fortified entry points (bits/stdio2.h declares them only under _FORTIFY_SOURCE). */
int __fprintf_chk(FILE *restrict f, int flag, const char *restrict fmt, ...);
int __vfprintf_chk(FILE *restrict f, int flag, const char *restrict fmt, va_list ap);
int __printf_chk(int flag, const char *restrict fmt, ...);
int __vprintf_chk(int flag, const char *restrict fmt, va_list ap);
size_t __fread_chk(void *restrict p, size_t plen, size_t sz, size_t n, FILE *restrict f);
ssize_t __getdelim(char **restrict lp, size_t *restrict n, int delim, FILE *restrict f);
size_t __fread_unlocked_chk(void *restrict p, size_t plen, size_t sz, size_t n, FILE *restrict f);
char *__fgets_chk(char *restrict s, size_t slen, int n, FILE *restrict f);

#define STDIO_FUNCS(X)                                                                                     \
	X(fopen) X(fopen64) X(freopen) X(freopen64) X(fclose) X(fread) X(fread_unlocked) X(fwrite)         \
	X(fwrite_unlocked) X(fgets) X(fgets_unlocked) X(fputs) X(fputs_unlocked) X(fputc) X(putc) X(fgetc) \
	X(getc) X(puts) X(getline) X(getdelim) X(vfprintf) X(__vfprintf_chk) X(__fread_chk)             \
	X(__fread_unlocked_chk) X(__fgets_chk) X(fflush) X(fseek) X(fseeko) X(fseeko64) X(ftello64)       \
	X(rewind) X(__getdelim) X(fputc_unlocked) X(putc_unlocked) X(fgetc_unlocked) X(getc_unlocked)    \
	X(fflush_unlocked)

static struct {
	STDIO_FUNCS(RP__REAL_FIELD)
} real;
STDIO_FUNCS(RP__REAL_GET)

void rp__stdio_resolve(void)
{
	STDIO_FUNCS(RP__REAL_SET)
	rp__flush_stdio_fn = rp__stdio_flush;
}

enum { IN = RP_SYSEV_READ, OUT = RP_SYSEV_WRITE };
/* glibc's buffer size before the first call allocates it (BUFSIZ-like: what st_blksize gives on most file systems). */
#define DEFAULT_BUF 4096

/*
 * The thread's run: same-direction calls on one FILE since the run began.
 * Ended by another FILE or direction, fflush/fseek/fclose, any other recorded
 * call, or when its bytes reach the FILE's buffer size, so the event count
 * follows glibc's buffer flushes.  Its begin() holds the ring's busy at t0.
 */
static __thread struct {
	FILE *f;
	int fd;
	uint16_t nr;
	uint64_t t0, t_end;
	int64_t asked, moved;
} run __attribute__((tls_model("initial-exec")));

static bool wanted(FILE *f)
{
	return f && rp__stdio_on && !rp__skip() && rp__fd_wanted(f->_fileno);
}

void rp__stdio_flush(void)
{
	rp_sysev ev = {.nr = run.nr, .flags = RP_SYSEV_STDIO};
	A(0, run.fd), A(1, -1), A(2, run.asked);
	ev.t_start = run.t0;
	ev.t_end = run.t_end;
	ev.ret = run.moved;
	run.f = NULL;
	rp__pending &= ~RP_PENDING_STDIO;
	rp__emit_end(&ev);
}

static void run_begin(FILE *f, uint16_t nr)
{
	if (run.f == f && run.nr == nr && (rp__pending & RP_PENDING_STDIO)) {
		rp__guard = 1;
		return;
	}
	const uint64_t t0 = rp__enter(); /* ends the thread's other run */
	run.f = f;
	run.fd = f->_fileno;
	run.nr = nr;
	run.t0 = t0;
	run.asked = run.moved = 0;
	rp__pending |= RP_PENDING_STDIO;
}

static void run_end(FILE *f, int64_t asked, int64_t moved, int e)
{
	run.t_end = rp__emit_now();
	run.asked += asked;
	run.moved += moved > 0 ? moved : 0;
	const int64_t buf = f->_IO_buf_base ? f->_IO_buf_end - f->_IO_buf_base : DEFAULT_BUF;
	if (run.moved >= buf)
		rp__stdio_flush();
	rp__unguard();
	errno = e;
}

/* ---- data ------------------------------------------------------------------ */

#define FREAD(name)                                                                   \
	size_t name(void *restrict p, size_t sz, size_t n, FILE *restrict f)          \
	{                                                                             \
		if (!wanted(f))                                                       \
			return REAL(name)(p, sz, n, f);                               \
		run_begin(f, IN);                                                     \
		const size_t r = REAL(name)(p, sz, n, f);                             \
		run_end(f, (int64_t)(sz * n), (int64_t)(sz * r), errno);              \
		return r;                                                             \
	}
FREAD(fread)
FREAD(fread_unlocked)

#define FWRITE(name)                                                                  \
	size_t name(const void *restrict p, size_t sz, size_t n, FILE *restrict f)    \
	{                                                                             \
		if (!wanted(f))                                                       \
			return REAL(name)(p, sz, n, f);                               \
		run_begin(f, OUT);                                                    \
		const size_t r = REAL(name)(p, sz, n, f);                             \
		run_end(f, (int64_t)(sz * n), (int64_t)(sz * r), errno);              \
		return r;                                                             \
	}
FWRITE(fwrite)
FWRITE(fwrite_unlocked)

#define FREAD_CHK(name)                                                                         \
	size_t name(void *restrict p, size_t plen, size_t sz, size_t n, FILE *restrict f)       \
	{                                                                                       \
		if (!wanted(f))                                                                 \
			return REAL(name)(p, plen, sz, n, f);                                   \
		run_begin(f, IN);                                                               \
		const size_t r = REAL(name)(p, plen, sz, n, f);                                 \
		run_end(f, (int64_t)(sz * n), (int64_t)(sz * r), errno);                        \
		return r;                                                                       \
	}
FREAD_CHK(__fread_chk)
FREAD_CHK(__fread_unlocked_chk)

#define FGETS(name)                                                                   \
	char *name(char *restrict s, int n, FILE *restrict f)                         \
	{                                                                             \
		if (!wanted(f))                                                       \
			return REAL(name)(s, n, f);                                   \
		run_begin(f, IN);                                                     \
		char *const r = REAL(name)(s, n, f);                                  \
		const int e = errno;                                                  \
		run_end(f, n > 1 ? n - 1 : 0, r ? (int64_t)strlen(r) : 0, e);         \
		return r;                                                             \
	}
FGETS(fgets)
FGETS(fgets_unlocked)

char *__fgets_chk(char *restrict s, size_t slen, int n, FILE *restrict f)
{
	if (!wanted(f))
		return REAL(__fgets_chk)(s, slen, n, f);
	run_begin(f, IN);
	char *const r = REAL(__fgets_chk)(s, slen, n, f);
	const int e = errno;
	run_end(f, n > 1 ? n - 1 : 0, r ? (int64_t)strlen(r) : 0, e);
	return r;
}

#define FPUTS(name)                                                                   \
	int name(const char *restrict s, FILE *restrict f)                            \
	{                                                                             \
		if (!wanted(f))                                                       \
			return REAL(name)(s, f);                                      \
		run_begin(f, OUT);                                                    \
		const int64_t len = (int64_t)strlen(s);                               \
		const int r = REAL(name)(s, f);                                       \
		run_end(f, len, r == EOF ? 0 : len, errno);                           \
		return r;                                                             \
	}
FPUTS(fputs)
FPUTS(fputs_unlocked)

int puts(const char *s)
{
	FILE *const f = stdout;
	if (!wanted(f))
		return REAL(puts)(s);
	run_begin(f, OUT);
	const int64_t len = (int64_t)strlen(s) + 1; /* and the newline */
	const int r = REAL(puts)(s);
	run_end(f, len, r == EOF ? 0 : len, errno);
	return r;
}

#define PUTC(name)                                                                    \
	int name(int c, FILE *f)                                                      \
	{                                                                             \
		if (!wanted(f))                                                       \
			return REAL(name)(c, f);                                      \
		run_begin(f, OUT);                                                    \
		const int r = REAL(name)(c, f);                                       \
		run_end(f, 1, r != EOF, errno);                                       \
		return r;                                                             \
	}
PUTC(fputc)
PUTC(putc)
PUTC(fputc_unlocked)
PUTC(putc_unlocked)

#define GETC(name)                                                                    \
	int name(FILE *f)                                                             \
	{                                                                             \
		if (!wanted(f))                                                       \
			return REAL(name)(f);                                         \
		run_begin(f, IN);                                                     \
		const int r = REAL(name)(f);                                          \
		run_end(f, 1, r != EOF, errno);                                       \
		return r;                                                             \
	}
GETC(fgetc)
GETC(getc)
GETC(fgetc_unlocked)
GETC(getc_unlocked)

/* A line read asks for as much as the line holds: asked is what came. */
static ssize_t delim_read(__typeof__(getdelim) *call, char **restrict lp, size_t *restrict n, int delim,
                          FILE *restrict f)
{
	if (!wanted(f))
		return call(lp, n, delim, f);
	run_begin(f, IN);
	const ssize_t r = call(lp, n, delim, f);
	run_end(f, r > 0 ? r : 0, r > 0 ? r : 0, errno);
	return r;
}

ssize_t getdelim(char **restrict lp, size_t *restrict n, int delim, FILE *restrict f)
{
	return delim_read(REAL(getdelim), lp, n, delim, f);
}

/* What getline's inline forms and gnulib call. */
ssize_t __getdelim(char **restrict lp, size_t *restrict n, int delim, FILE *restrict f)
{
	return delim_read(REAL(__getdelim), lp, n, delim, f);
}

ssize_t getline(char **restrict lp, size_t *restrict n, FILE *restrict f)
{
	if (!wanted(f))
		return REAL(getline)(lp, n, f);
	run_begin(f, IN);
	const ssize_t r = REAL(getline)(lp, n, f);
	run_end(f, r > 0 ? r : 0, r > 0 ? r : 0, errno);
	return r;
}

/* ---- formatted output: every form lands in vfprintf or __vfprintf_chk --------------------- */

static int vprint(FILE *f, int chk, int flag, const char *restrict fmt, va_list ap)
{
	if (!wanted(f))
		return chk ? REAL(__vfprintf_chk)(f, flag, fmt, ap) : REAL(vfprintf)(f, fmt, ap);
	run_begin(f, OUT);
	const int r = chk ? REAL(__vfprintf_chk)(f, flag, fmt, ap) : REAL(vfprintf)(f, fmt, ap);
	run_end(f, r > 0 ? r : 0, r > 0 ? r : 0, errno);
	return r;
}

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	return vprint(f, 0, 0, fmt, ap);
}

int __vfprintf_chk(FILE *restrict f, int flag, const char *restrict fmt, va_list ap)
{
	return vprint(f, 1, flag, fmt, ap);
}

int vprintf(const char *restrict fmt, va_list ap)
{
	return vprint(stdout, 0, 0, fmt, ap);
}

int __vprintf_chk(int flag, const char *restrict fmt, va_list ap)
{
	return vprint(stdout, 1, flag, fmt, ap);
}

int fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const int r = vprint(f, 0, 0, fmt, ap);
	va_end(ap);
	return r;
}

int __fprintf_chk(FILE *restrict f, int flag, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const int r = vprint(f, 1, flag, fmt, ap);
	va_end(ap);
	return r;
}

int printf(const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const int r = vprint(stdout, 0, 0, fmt, ap);
	va_end(ap);
	return r;
}

int __printf_chk(int flag, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const int r = vprint(stdout, 1, flag, fmt, ap);
	va_end(ap);
	return r;
}

/* ---- opening, closing, positioning ---------------------------------------------------------- */

/* The open(2) flags a fopen mode string stands for (fopen(3)). */
static int mode_flags(const char *m)
{
	int f = 0;
	if (!m)
		return 0;
	switch (m[0]) {
	case 'r': f = O_RDONLY; break;
	case 'w': f = O_WRONLY | O_CREAT | O_TRUNC; break;
	case 'a': f = O_WRONLY | O_CREAT | O_APPEND; break;
	default: return 0;
	}
	for (const char *c = m + 1; *c && *c != ','; c++) {
		if (*c == '+')
			f = (f & ~O_ACCMODE) | O_RDWR;
		else if (*c == 'x')
			f |= O_EXCL;
		else if (*c == 'e')
			f |= O_CLOEXEC;
	}
	return f;
}

#define FOPEN(name)                                                                   \
	FILE *name(const char *restrict path, const char *restrict mode)              \
	{                                                                             \
		if (!rp__stdio_on || rp__skip())                                      \
			return REAL(name)(path, mode);                                \
		rp_sysev ev = {.nr = RP_SYSEV_OPEN, .flags = RP_SYSEV_STDIO};         \
		const uint64_t t0 = rp__enter();                                      \
		FILE *const r = REAL(name)(path, mode);                               \
		const int e = errno;                                                  \
		if (r)                                                                \
			rp__fd_opened(r->_fileno, path);                              \
		A(0, AT_FDCWD), A(1, mode_flags(mode)), A(2, 0666), P(0, path);       \
		rp__leave(&ev, t0, r ? r->_fileno : -(int64_t)e);                     \
		errno = e;                                                            \
		return r;                                                             \
	}
FOPEN(fopen)
FOPEN(fopen64)

/* freopen closes the stream's fd and opens path: a CLOSE and an OPEN (a NULL path only changes the mode: nothing). */
#define FREOPEN(name)                                                                           \
	FILE *name(const char *restrict path, const char *restrict mode, FILE *restrict f)      \
	{                                                                                       \
		if (!rp__stdio_on || rp__skip() || !path || !f)                                 \
			return REAL(name)(path, mode, f);                                       \
		const int old = f->_fileno;                                                     \
		rp_sysev ev = {.nr = RP_SYSEV_CLOSE, .flags = RP_SYSEV_STDIO};                  \
		const uint64_t t0 = rp__enter();                                                \
		FILE *const r = REAL(name)(path, mode, f);                                      \
		const int e = errno;                                                            \
		rp__fd_set(old, RP_FD_UNKNOWN);                                                 \
		if (r)                                                                          \
			rp__fd_opened(r->_fileno, path);                                        \
		A(0, old);                                                                      \
		ev.t_start = t0;                                                                \
		ev.t_end = rp__emit_now();                                                      \
		rp__emit_end(&ev);                                                              \
		rp_sysev op = {.nr = RP_SYSEV_OPEN, .flags = RP_SYSEV_STDIO};                   \
		op.a[0] = AT_FDCWD, op.a[1] = mode_flags(mode), op.a[2] = 0666;                 \
		rp__path(&op, 0, path);                                                         \
		op.ret = r ? r->_fileno : -(int64_t)e;                                          \
		rp__emit_note(&op);                                                             \
		rp__unguard();                                                                  \
		errno = e;                                                                      \
		return r;                                                                       \
	}
FREOPEN(freopen)
FREOPEN(freopen64)

int fclose(FILE *f)
{
	if (!wanted(f))
		return REAL(fclose)(f);
	const int fd = f->_fileno;
	rp_sysev ev = {.nr = RP_SYSEV_CLOSE, .flags = RP_SYSEV_STDIO};
	const uint64_t t0 = rp__enter(); /* ends the run on f */
	const int r = REAL(fclose)(f);
	const int e = errno;
	rp__fd_set(fd, RP_FD_UNKNOWN);
	A(0, fd);
	rp__leave(&ev, t0, r == EOF ? -(int64_t)e : 0);
	errno = e;
	return r;
}

/* fflush ends the run (the bytes were counted as they went in); it makes no event of its own. */
static void run_flush(const FILE *f)
{
	if (!rp__skip() && (rp__pending & RP_PENDING_STDIO) && (!f || f == run.f)) {
		const int e = errno;
		rp__guard = 1;
		rp__stdio_flush();
		rp__unguard();
		errno = e;
	}
}

int fflush(FILE *f)
{
	run_flush(f);
	return REAL(fflush)(f);
}

int fflush_unlocked(FILE *f)
{
	run_flush(f);
	return REAL(fflush_unlocked)(f);
}

/* A seek moves the fd's position: an LSEEK with the new position as its result. */
static int seek(FILE *f, int64_t off, int whence, int (*call)(FILE *, off64_t, int))
{
	if (!wanted(f))
		return call(f, off, whence);
	rp_sysev ev = {.nr = RP_SYSEV_LSEEK, .flags = RP_SYSEV_STDIO};
	const uint64_t t0 = rp__enter();
	const int r = call(f, off, whence);
	const int e = errno;
	A(0, f->_fileno), A(1, off), A(2, whence);
	rp__leave(&ev, t0, r == 0 ? (int64_t)REAL(ftello64)(f) : -(int64_t)e);
	errno = e;
	return r;
}

static int fseek_l(FILE *f, off64_t o, int w)
{
	return REAL(fseek)(f, (long)o, w);
}

static int fseeko_o(FILE *f, off64_t o, int w)
{
	return REAL(fseeko)(f, (off_t)o, w);
}

static int fseeko64_o(FILE *f, off64_t o, int w)
{
	return REAL(fseeko64)(f, o, w);
}

int fseek(FILE *f, long o, int w)
{
	return seek(f, o, w, fseek_l);
}

int fseeko(FILE *f, off_t o, int w)
{
	return seek(f, o, w, fseeko_o);
}

int fseeko64(FILE *f, off64_t o, int w)
{
	return seek(f, o, w, fseeko64_o);
}

void rewind(FILE *f)
{
	if (!wanted(f)) {
		REAL(rewind)(f);
		return;
	}
	rp_sysev ev = {.nr = RP_SYSEV_LSEEK, .flags = RP_SYSEV_STDIO};
	const uint64_t t0 = rp__enter();
	REAL(rewind)(f);
	const int e = errno;
	A(0, f->_fileno), A(1, 0), A(2, SEEK_SET);
	rp__leave(&ev, t0, 0);
	errno = e;
}
