/* Output files written beside their destination and renamed into place (formats/outfile.h). */
#include "formats/outfile.h"

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

#include "formats/error.h"

/* Format the message into errbuf (RP_OUTFILE_ERRBUF_SIZE bytes) and return err. */
__attribute__((format(printf, 3, 4))) static int fail(char *errbuf, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, RP_OUTFILE_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
	return err;
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

int rp_outfile_check(const char *out, const char *in, char *errbuf)
{
	struct stat si, so;
	if (!in || strcmp(in, "-") == 0 || stat(in, &si) != 0)
		return RP_OK; /* no input file: nothing to protect (its own error comes when it is opened) */
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
		return RP_OK;
	return fail(errbuf, RP_E_INVAL, "%s: the output is the input %s (the same file): refusing to overwrite it",
		    strcmp(out, "-") == 0 ? "standard output" : out, in);
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
 * no context, so this is the one state of the library outside a struct.  A slot
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

/* The temporary file's descriptor, or a negative rp_err with the message in errbuf. */
static int open_tmp(rp_outfile *o, mode_t mode, char *errbuf)
{
	const size_t n = strlen(o->final);
	if (n + sizeof(TMP_SUFFIX) + TMP_RANDOM > sizeof(o->tmp))
		return fail(errbuf, RP_E_LIMIT, "%s: path too long", o->name);
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
	const int e = errno;
	fail(errbuf, RP_E_SYSTEM, "%s: cannot create its temporary file %s: %s", o->name, o->tmp, strerror(e));
	o->tmp[0] = '\0';
	return RP_E_SYSTEM;
}

int rp_outfile_open(rp_outfile *o, const char *out, unsigned flags, char *errbuf)
{
	const mode_t mode = flags & RP_OUT_PRIVATE ? 0600 : 0666;
	memset(o, 0, sizeof(*o));
	o->name = out;
	if (strcmp(out, "-") == 0) {
		o->f = stdout;
		o->std = true;
		return RP_OK;
	}
	struct stat st;
	int fd;
	const int src = stat(out, &st);
	const int serr = errno;
	if (src == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			return fail(errbuf, RP_E_INVAL, "%s: is a directory", out);
		}
		/* A device or FIFO (/dev/null, a pipe to another program): there is nothing to rename over. */
		fd = open(out, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return fail(errbuf, RP_E_SYSTEM, "%s: %s", out, strerror(errno));
	} else {
		if (src != 0 && serr != ENOENT)
			return fail(errbuf, RP_E_SYSTEM, "%s: %s", out, strerror(serr));
		const bool exists = src == 0;
		/* Through a symlink the file it names is replaced and the link kept, as writing through it would. */
		if (exists ? !realpath(out, o->final)
			   : snprintf(o->final, sizeof(o->final), "%s", out) >= (int)sizeof(o->final))
			return fail(errbuf, exists ? RP_E_SYSTEM : RP_E_LIMIT, "%s: %s", out,
				    exists ? strerror(errno) : "path too long");
		/* Watched from before the file exists until it is open: a signal in between is held, then finds it. */
		sigset_t fatal, held;
		if (flags & RP_OUT_SIGNAL_REMOVES) {
			sigemptyset(&fatal);
			for (size_t k = 0; k < sizeof(fatal_signals) / sizeof(fatal_signals[0]); k++)
				sigaddset(&fatal, fatal_signals[k]);
			pthread_sigmask(SIG_BLOCK, &fatal, &held);
			live_add(o);
		}
		fd = open_tmp(o, mode, errbuf);
		if (fd < 0)
			live_remove(o);
		if (flags & RP_OUT_SIGNAL_REMOVES)
			pthread_sigmask(SIG_SETMASK, &held, NULL);
		if (fd < 0)
			return fd;
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		const int e = errno;
		close(fd);
		if (o->tmp[0])
			unlink(o->tmp);
		live_remove(o);
		o->tmp[0] = '\0';
		return fail(errbuf, RP_E_SYSTEM, "%s: %s", out, strerror(e));
	}
	return RP_OK;
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

int rp_outfile_commit(rp_outfile *o, char *errbuf)
{
	FILE *const f = o->f;
	o->f = NULL;
	if (!f)
		return fail(errbuf, RP_E_STATE, "%s: not open", o->name ? o->name : "output");
	errno = 0;
	bool bad = fflush(f) != 0 || ferror(f);
	int e = errno;
	if (o->std) {
		if (!bad)
			return RP_OK;
		clearerr(f); /* reported by the caller: the check at exit need not say it again */
		return fail(errbuf, RP_E_IO, "standard output: write error: %s", e ? strerror(e) : "I/O error");
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
		if (o->tmp[0])
			unlink(o->tmp);
		live_remove(o);
		o->tmp[0] = '\0';
		return fail(errbuf, RP_E_IO, "%s: write error: %s", o->name, e ? strerror(e) : "I/O error");
	}
	if (o->tmp[0])
		sync_dir(o->final);
	live_remove(o);
	o->tmp[0] = '\0';
	return RP_OK;
}

void rp_outfile_abort(rp_outfile *o)
{
	if (o->f && !o->std)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	live_remove(o);
	o->tmp[0] = '\0';
}

void rp_outfile_keep(rp_outfile *o)
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
