/* Outputs written beside their destination and renamed into place; escaped messages. */
#include "cli/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/op.h"

const char *rp__cli_esc(char *buf, size_t size, const char *s)
{
	rp_text_escape(buf, size, s, strlen(s), false);
	return buf;
}

void rp__cli_err(const char *cmd, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char esc[4 * sizeof(msg)]; /* each byte escapes to at most 4 */
	fprintf(stderr, "reprise %s: %s\n", cmd, rp__cli_esc(esc, sizeof(esc), msg));
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A path that need not exist, resolved through its directory: realpath(dir) + "/" + name. */
static bool resolve_new(const char *path, char *out)
{
	const char *const slash = strrchr(path, '/');
	char dir[PATH_MAX];
	const char *const base = slash ? slash + 1 : path;
	if (slash) {
		const size_t n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof(dir))
			return false;
		memcpy(dir, path, n);
		dir[n] = '\0';
	} else {
		strcpy(dir, ".");
	}
	char rdir[PATH_MAX];
	if (!realpath(dir, rdir))
		return false;
	const int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(rdir, "/") == 0 ? "" : rdir, base);
	return n > 0 && n < PATH_MAX;
}

int rp__cli_out_check(const char *cmd, const char *out, const char *in)
{
	struct stat si, so;
	if (!in || strcmp(in, "-") == 0 || stat(in, &si) != 0)
		return 0; /* no input file: nothing to protect (its own error comes when it is opened) */
	bool same;
	if (strcmp(out, "-") == 0) {
		/* `reprise convert x.txt - >> x.txt` would read its own output without end. */
		same = fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) && same_file(&si, &so);
	} else if (stat(out, &so) == 0) {
		same = same_file(&si, &so);
	} else {
		char ri[PATH_MAX], ro[PATH_MAX];
		same = realpath(in, ri) && resolve_new(out, ro) && strcmp(ri, ro) == 0;
	}
	if (!same)
		return 0;
	rp__cli_err(cmd, "%s: the output is the input %s (the same file): refusing to overwrite it",
		    strcmp(out, "-") == 0 ? "standard output" : out, in);
	return 2;
}

/* A name no one else is using: random letters from getrandom, or the clock and pid if it has none. */
static void random_suffix(char *s, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[16];
	if (n > sizeof(r) || getrandom(r, n, GRND_NONBLOCK) != (ssize_t)n) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_sec;
		for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005u + 1442695040888963407u)
			r[i] = (unsigned char)(x >> 56);
	}
	for (size_t i = 0; i < n && i < sizeof(r); i++)
		s[i] = set[r[i] % (sizeof(set) - 1)];
}

/*
 * The temporary files being written, for on_fatal(): a signal handler gets
 * no context, so this is the one state of the CLI outside a struct.  A slot
 * holds an rp_outfile's tmp from open to commit, abort or keep.
 */
#define LIVE_MAX 8
static const char *volatile live[LIVE_MAX];
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* SIGINT, SIGTERM, SIGHUP at their default: remove every temporary file (unlink is async-signal-safe), then die of
 * the signal as before (SA_RESETHAND put the default back, so the raised one, delivered on return, kills). */
static void on_fatal(int sig)
{
	const int e = errno;
	for (int i = 0; i < LIVE_MAX; i++) {
		const char *const p = live[i];
		if (p && p[0])
			(void)unlink(p);
	}
	(void)raise(sig);
	errno = e;
}

/* Watch o->tmp; the handler goes only where a signal is at its default (never over
 * another handler, nor over an inherited SIG_IGN such as nohup's).  Called with the
 * fatal signals blocked, before the file exists: no signal finds it unwatched. */
static void live_add(const rp_outfile *o)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (!live[i]) {
			live[i] = o->tmp;
			break;
		}
	for (size_t k = 0; k < sizeof(fatal_signals) / sizeof(fatal_signals[0]); k++) {
		struct sigaction old;
		if (sigaction(fatal_signals[k], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal;
		sa.sa_flags = SA_RESETHAND;
		sigfillset(&sa.sa_mask);
		(void)sigaction(fatal_signals[k], &sa, NULL);
	}
}

static void live_remove(const rp_outfile *o)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (live[i] == o->tmp)
			live[i] = NULL;
}

/* How many names to try before giving up on a directory full of our temporary files. */
#define TMP_TRIES 100
#define TMP_SUFFIX ".part-"
#define TMP_RANDOM 6

static int open_tmp(rp_outfile *o, const char *cmd, mode_t mode)
{
	const size_t n = strlen(o->final);
	if (n + sizeof(TMP_SUFFIX) + TMP_RANDOM > sizeof(o->tmp)) {
		rp__cli_err(cmd, "%s: path too long", o->name);
		return -1;
	}
	for (int i = 0; i < TMP_TRIES; i++) {
		memcpy(o->tmp, o->final, n);
		memcpy(o->tmp + n, TMP_SUFFIX, sizeof(TMP_SUFFIX) - 1);
		random_suffix(o->tmp + n + sizeof(TMP_SUFFIX) - 1, TMP_RANDOM);
		o->tmp[n + sizeof(TMP_SUFFIX) - 1 + TMP_RANDOM] = '\0';
		/* The kernel applies the umask (and a default ACL), as for any file fopen creates. */
		const int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	rp__cli_err(cmd, "%s: cannot create its temporary file %s: %s", o->name, o->tmp, strerror(errno));
	o->tmp[0] = '\0';
	return -1;
}

static int out_open(rp_outfile *o, const char *cmd, const char *out, unsigned flags)
{
	const mode_t mode = flags & RP_OUT_PRIVATE ? 0600 : 0666;
	memset(o, 0, sizeof(*o));
	o->name = out;
	if (strcmp(out, "-") == 0) {
		o->f = stdout;
		o->std = true;
		return 0;
	}
	struct stat st;
	int fd;
	const int src = stat(out, &st);
	const int serr = errno;
	if (src == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			rp__cli_err(cmd, "%s: is a directory", out);
			return 1;
		}
		/* A device or FIFO (/dev/null, a pipe to another program): there is nothing to rename over. */
		fd = open(out, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			rp__cli_err(cmd, "%s: %s", out, strerror(errno));
			return 1;
		}
	} else {
		if (src != 0 && serr != ENOENT) {
			rp__cli_err(cmd, "%s: %s", out, strerror(serr));
			return 1;
		}
		const bool exists = src == 0;
		/* Through a symlink the file it names is replaced and the link kept, as writing through it would. */
		if (exists ? !realpath(out, o->final)
			   : snprintf(o->final, sizeof(o->final), "%s", out) >= (int)sizeof(o->final)) {
			rp__cli_err(cmd, "%s: %s", out, exists ? strerror(errno) : "path too long");
			return 1;
		}
		/* Watched from before the file exists until it is open: a signal in between is held, then finds it. */
		sigset_t fatal, held;
		if (flags & RP_OUT_SIGNAL_REMOVES) {
			sigemptyset(&fatal);
			for (size_t k = 0; k < sizeof(fatal_signals) / sizeof(fatal_signals[0]); k++)
				sigaddset(&fatal, fatal_signals[k]);
			pthread_sigmask(SIG_BLOCK, &fatal, &held);
			live_add(o);
		}
		fd = open_tmp(o, cmd, mode);
		if (fd < 0)
			live_remove(o);
		if (flags & RP_OUT_SIGNAL_REMOVES)
			pthread_sigmask(SIG_SETMASK, &held, NULL);
		if (fd < 0)
			return 1;
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		rp__cli_err(cmd, "%s: %s", out, strerror(errno));
		close(fd);
		if (o->tmp[0])
			unlink(o->tmp);
		live_remove(o);
		o->tmp[0] = '\0';
		return 1;
	}
	return 0;
}

int rp__cli_out_open(rp_outfile *o, const char *cmd, const char *out)
{
	return out_open(o, cmd, out, 0);
}

int rp__cli_out_open_private(rp_outfile *o, const char *cmd, const char *out)
{
	return out_open(o, cmd, out, RP_OUT_PRIVATE);
}

int rp__cli_out_open_with(rp_outfile *o, const char *cmd, const char *out, unsigned flags)
{
	return out_open(o, cmd, out, flags);
}

/* Make the rename durable too (best effort: some file systems cannot fsync a directory). */
static void sync_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *const slash = strrchr(path, '/');
	if (!slash)
		strcpy(dir, ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int rp__cli_out_commit(rp_outfile *o, const char *cmd)
{
	FILE *const f = o->f;
	o->f = NULL;
	if (!f)
		return 1;
	errno = 0;
	bool bad = fflush(f) != 0 || ferror(f);
	int e = errno;
	if (o->std) {
		if (bad) {
			rp__cli_err(cmd, "standard output: write error: %s", e ? strerror(e) : "I/O error");
			clearerr(f); /* reported: main's check at exit need not say it again */
		}
		return bad ? 1 : 0;
	}
	if (!bad && o->tmp[0] && fsync(fileno(f)) != 0) {
		bad = true;
		e = errno;
	}
	if (fclose(f) != 0 && !bad) {
		bad = true;
		e = errno;
	}
	if (!bad && o->tmp[0] && rename(o->tmp, o->final) != 0) {
		bad = true;
		e = errno;
	}
	if (bad) {
		rp__cli_err(cmd, "%s: write error: %s", o->name, e ? strerror(e) : "I/O error");
		if (o->tmp[0])
			unlink(o->tmp);
		live_remove(o);
		o->tmp[0] = '\0';
		return 1;
	}
	if (o->tmp[0])
		sync_dir(o->final);
	live_remove(o);
	o->tmp[0] = '\0';
	return 0;
}

void rp__cli_out_abort(rp_outfile *o)
{
	if (o->f && !o->std)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	live_remove(o);
	o->tmp[0] = '\0';
}

void rp__cli_out_keep(rp_outfile *o)
{
	if (o->f && !o->std) {
		fflush(o->f);
		if (o->tmp[0])
			(void)fsync(fileno(o->f));
		fclose(o->f);
	}
	o->f = NULL;
	live_remove(o); /* kept on purpose: a signal from now on leaves it too */
}
