/* reprise anonymize IN OUT --key KEYFILE: a trace with keyed pseudonyms for its names and ids (docs/anonymize.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/convert_opts.h"
#include "cli/input.h"
#include "cli/output.h"
#include "converters/anonymize.h"
#include "converters/registry.h"

/* --new-key writes this many random bytes (256 bits: HMAC-SHA256's block needs no more). */
#define NEW_KEY_BYTES 32

static struct {
	uint64_t pattern_window, pattern_table;
	bool no_patterns;
	bool lenient, strict, quiet, verbose, keep_ext;
	const char *format, *to, *key, *new_key, *map, *output;
	uint64_t level;
} o;

static const rp_opt options[] = {
	{ .name = "key", .short_name = 'k', .kind = RP_OPT_STRING, .value = &o.key, .arg = "KEYFILE", .help = "the key: the file's bytes (16 to 4096 of them), e.g. from head -c 32 /dev/urandom" },
	{ .name = "new-key", .kind = RP_OPT_STRING, .value = &o.new_key, .arg = "KEYFILE", .help = "make a new key of 32 random bytes in KEYFILE (mode 600; an existing file is refused) and use it" },
	{ .name = "keep-ext", .kind = RP_OPT_FLAG, .value = &o.keep_ext, .help = "keep file extensions of 1-5 letters or digits (\"a.c\" -> \"x8k2...q.c\"); off by default" },
	{ .name = "map", .kind = RP_OPT_STRING, .value = &o.map, .arg = "FILE", .help = "also write the mapping (kind, original, pseudonym; TSV) to FILE, for the key's owner: never into the trace" },
	{ .name = "output", .short_name = 'o', .kind = RP_OPT_STRING, .value = &o.output, .arg = "OUT", .help = "the output (instead of the second argument)" },
	RP_CLI_CONVERT_OPT_FORMAT(o.format, "rpz or loadfile"),
	{ .name = "to", .kind = RP_OPT_STRING, .value = &o.to, .arg = "FORMAT", .help = "the old spelling of --format (as convert's)" },
	RP_CLI_CONVERT_OPT_LEVEL(o.level, ""),
	RP_CLI_RPZ_PATTERN_OPTS(o.pattern_window, o.pattern_table, o.no_patterns),
	RP_CLI_CONVERT_OPT_LENIENT(o.lenient),
	RP_CLI_CONVERT_OPT_STRICT(o.strict, ""),
	RP_CLI_CONVERT_OPT_QUIET(o.quiet, "summary"),
	RP_CLI_CONVERT_OPT_VERBOSE(o.verbose, ""),
	{ .name = NULL },
};

static const rp_cmd spec = {
	.name = "anonymize",
	.usage = "[options] --key KEYFILE IN OUT",
	.summary = "replace a trace's names and ids by keyed pseudonyms, keeping its structure and timing",
	.details = "IN is any input convert reads (.rpz, text form, loadfile, strace log, pcap/pcapng); OUT is an\n"
		   ".rpz or a loadfile, chosen as convert chooses, written as OUT.part-XXXXXX and renamed into\n"
		   "place when complete (OUT naming IN is refused).  Every path component, symlink and rename\n"
		   "target, the literal parts of listing patterns and the names of xattrs become 12-character\n"
		   "base32 pseudonyms: HMAC-SHA256 of the name under the key, so one key gives the same names\n"
		   "in every trace and another key unrelated ones.  Separators (/ and \\), . and .., empty\n"
		   "components, depth and shared prefixes stay.  uid and gid become numbers from 100000 on (0,\n"
		   "65534 and -1 stay), setattr times move with the capture start to 2000-01-01, the start\n"
		   "itself becomes 0 and the header's host and input name are removed; the trace is flagged\n"
		   "anonymized.  Sizes, offsets, timing, clients and statuses stay, so the result replays as\n"
		   "the original does.  Make a key with --new-key KEYFILE or head -c 32 /dev/urandom > KEYFILE;\n"
		   "keep it private (a key others can read is warned about).  docs/anonymize.md says what is not\n"
		   "hidden (sizes, timing, the op mix).",
	.opts = options,
	.min_args = 1,
	.max_args = 2,
};

/*
 * Two outputs that do not exist yet but name one file ("m.rpz" and "./m.rpz"):
 * their directories resolved, then their last components compared.
 */
static bool same_new_file(const char *a, const char *b)
{
	char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	snprintf(da, sizeof(da), "%s", a);
	snprintf(db, sizeof(db), "%s", b);
	const char *const ba = strrchr(a, '/') ? strrchr(a, '/') + 1 : a, *const bb = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;
	char *const sa = strrchr(da, '/'), *const sb = strrchr(db, '/');
	if (sa)
		sa[sa == da ? 1 : 0] = '\0';
	if (sb)
		sb[sb == db ? 1 : 0] = '\0';
	if (!realpath(sa ? da : ".", ra) || !realpath(sb ? db : ".", rb))
		return strcmp(a, b) == 0;
	return strcmp(ra, rb) == 0 && strcmp(ba, bb) == 0;
}

/* A new key: 32 bytes of getrandom() into a file only its owner reads, never over an existing one. */
static int make_key(const char *path)
{
	char esc[1024];
	uint8_t k[NEW_KEY_BYTES];
	if (getrandom(k, sizeof(k), 0) != (ssize_t)sizeof(k)) {
		rp__cli_err("anonymize", "getrandom: %s", strerror(errno));
		return 1;
	}
	const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rp__cli_err("anonymize", "%s: %s%s", rp__cli_esc(esc, sizeof(esc), path), strerror(errno),
			    errno == EEXIST ? " (--new-key never replaces a key: give it with --key)" : "");
		return 1;
	}
	const bool ok = write(fd, k, sizeof(k)) == (ssize_t)sizeof(k) && fsync(fd) == 0;
	const int e = errno;
	memset(k, 0, sizeof(k));
	if (close(fd) != 0 || !ok) {
		rp__cli_err("anonymize", "%s: %s", rp__cli_esc(esc, sizeof(esc), path), strerror(ok ? errno : e));
		unlink(path);
		return 1;
	}
	return 0;
}

/* The key file's bytes into key (RP_ANON_KEY_MAX + 1 bytes of room): 0, or 1 after saying why. */
static int read_key(const char *path, uint8_t *key, size_t *len)
{
	char esc[1024];
	rp__cli_esc(esc, sizeof(esc), path);
	const int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rp__cli_err("anonymize", "key %s: %s", esc, strerror(errno));
		return 1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rp__cli_err("anonymize", "key %s: not a regular file", esc);
		close(fd);
		return 1;
	}
	size_t n = 0;
	while (n <= RP_ANON_KEY_MAX) {
		const ssize_t r = read(fd, key + n, RP_ANON_KEY_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rp__cli_err("anonymize", "key %s: %s", esc, strerror(errno));
			close(fd);
			return 1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n < RP_ANON_KEY_MIN || n > RP_ANON_KEY_MAX) {
		rp__cli_err("anonymize", "key %s: %zu%s bytes; a key is %d to %d bytes (--new-key KEYFILE, or head -c 32 /dev/urandom > KEYFILE)",
			    esc, n, n > RP_ANON_KEY_MAX ? " or more" : "", RP_ANON_KEY_MIN, RP_ANON_KEY_MAX);
		return 1;
	}
	if (st.st_mode & (S_IRGRP | S_IROTH))
		rp__cli_err("anonymize", "warning: key %s can be read by others (chmod 600 it): with it the pseudonyms can be checked against guessed names", esc);
	*len = n;
	return 0;
}

typedef struct map_out {
	FILE *f;
	char *esc;
	size_t esc_cap;
} map_out;

/* One line of --map: kind, original and pseudonym, tab-separated, names escaped as reprise cat escapes them. */
static int map_line(void *ctx, const char *kind, const char *orig, uint32_t olen, const char *pseu, uint32_t plen)
{
	map_out *const m = ctx;
	const size_t need = 4 * (size_t)(olen > plen ? olen : plen) + 1;
	if (need > m->esc_cap) {
		char *const e = realloc(m->esc, need);
		if (!e)
			return -1;
		m->esc = e;
		m->esc_cap = need;
	}
	rp_text_escape(m->esc, m->esc_cap, orig, olen, false);
	if (fprintf(m->f, "%s\t%s\t", kind, m->esc) < 0)
		return -1;
	rp_text_escape(m->esc, m->esc_cap, pseu, plen, false);
	return fprintf(m->f, "%s\n", m->esc) < 0 ? -1 : 0;
}

static int write_map(const rp_anon *a, rp_outfile *mf)
{
	map_out m = { .f = mf->f };
	int rc = fputs("# reprise anonymize map: kind\toriginal\tpseudonym (bytes outside printable ASCII as \\xNN, \\ as \\\\)\n",
		       mf->f) < 0;
	if (!rc)
		rc = rp_anon_each(a, map_line, &m) != 0;
	free(m.esc);
	if (rc)
		rp__cli_err("anonymize", "%s: %s", mf->name, errno ? strerror(errno) : "out of memory");
	return rc;
}

static void summary(const rp_anon *a)
{
	rp_anon_stats st;
	rp_anon_get_stats(a, &st);
	fprintf(stderr,
		"anonymize: %" PRIu64 " ops; %" PRIu64 " name components, %" PRIu64 " uids and gids, %" PRIu64
		" setattr times mapped; %" PRIu64 " strings out of the input's %" PRIu64
		" (unused ones dropped); capture start, host and input name removed\n",
		st.ops, st.components, st.ids, st.times, st.strings_out, st.strings_in);
	if (st.id_collisions)
		fprintf(stderr, "anonymize: warning: %" PRIu64 " uid or gid pseudonyms were given twice (two owners became one)\n",
			st.id_collisions);
}

/* IN through the filter into the writer on of; the map (if asked) on mf. */
static int anonymize(const char *in, rp_outfile *of, rp_outfile *mf, const rp_conv_consumer *kind, const uint8_t *key,
		     size_t key_len, const rp_input_opts *io)
{
	char errbuf[RP_ERRBUF_SIZE] = "";
	rp_conv_out_opts wo = { .rpz_level = (int)o.level };
	rp_conv_lf_opts_init(&wo.lf);
	rp_conv_out *w = NULL;
	rp_sink *down = NULL;
	rp_anon *a = NULL;
	int rc = 1;
	if (kind->open(&w, of->f, of->std ? "<stdout>" : of->name, &wo, &down, errbuf) < 0) {
		rp__cli_err("anonymize", "%s", errbuf);
		return 1;
	}
	const rp_anon_opts ao = { .keep_ext = o.keep_ext };
	if (rp_anon_create(&a, key, key_len, &ao, down, errbuf) < 0) {
		rp__cli_err("anonymize", "%s", errbuf);
		goto fail;
	}
	rc = rp__cli_pump(in, rp_anon_sink(a), io);
	if (!rc && !o.quiet)
		summary(a);
	if (!rc && mf)
		rc = write_map(a, mf);
fail:;
	char note[RP_ERRBUF_SIZE] = "";
	if (kind->close(w, io->cut && *io->cut, note, errbuf) < 0 && !rc) {
		rp__cli_err("anonymize", "%s", errbuf);
		rc = 1;
	}
	if (note[0])
		rp__cli_err("anonymize", "warning: %s: %s", of->name, note);
	rp_anon_destroy(a);
	return rc;
}

static int run(int argc, char **argv)
{
	memset(&o, 0, sizeof(o));
	char *pos[RP_OPTS_MAX_POS];
	int npos = 0;
	const int prc = rp_opts_parse(&spec, argc, argv, pos, &npos);
	if (prc)
		return prc > 0 ? 0 : 2;
	if ((o.output ? npos != 1 : npos != 2)) {
		rp__cli_err("anonymize", "give IN and OUT (or IN and -o OUT)");
		return 2;
	}
	if (!o.key == !o.new_key) {
		rp__cli_err("anonymize", "give the key with --key KEYFILE, or make one with --new-key KEYFILE");
		return 2;
	}
	const char *const in = pos[0], *const outp = o.output ? o.output : pos[1];
	const char *const keyp = o.key ? o.key : o.new_key;
	if (o.format && o.to && strcmp(o.format, o.to) != 0) {
		rp__cli_err("anonymize", "--to %s and --format %s name two formats", o.to, o.format);
		return 2;
	}
	const char *const format = o.format ? o.format : o.to;
	const rp_conv_consumer *const kind = rp_conv_consumer_for(format, outp);
	if (!kind && format) {
		rp__cli_err("anonymize", "--format must be rpz or loadfile");
		return 2;
	}
	if (!kind) {
		rp__cli_err("anonymize", "%s: cannot tell the output format: use --format rpz|loadfile", outp);
		return 2;
	}
	if (strcmp(kind->name, "loadfile") == 0 && o.level)
		rp__cli_err("anonymize", "warning: --level applies to .rpz output only; %s is a loadfile", outp);
	/* Neither output may be the input or the key, nor the map the trace: each would destroy the other. */
	int same = rp__cli_out_check("anonymize", outp, in);
	if (!same && strcmp(keyp, "-") != 0)
		same = rp__cli_out_check("anonymize", outp, keyp);
	if (!same && o.map) {
		same = rp__cli_out_check("anonymize", o.map, in);
		if (!same)
			same = rp__cli_out_check("anonymize", o.map, keyp);
		if (!same && strcmp(o.map, "-") != 0)
			same = rp__cli_out_check("anonymize", o.map, outp);
		if (!same && same_new_file(o.map, outp)) {
			rp__cli_err("anonymize", "--map and OUT are one file: give the map another name");
			same = 2;
		}
	}
	if (same)
		return same;
	if (o.new_key && make_key(o.new_key))
		return 1;
	uint8_t *const key = malloc(RP_ANON_KEY_MAX + 1);
	size_t key_len = 0;
	if (!key) {
		rp__cli_err("anonymize", "out of memory");
		return 1;
	}
	if (read_key(keyp, key, &key_len)) {
		free(key);
		return 1;
	}
	bool cut = false;
	const rp_input_opts io = { .lenient = o.lenient, .strict = o.strict, .quiet = o.quiet, .verbose = o.verbose,
				   .cmd = "anonymize", .cut = &cut };
	rp_outfile of, mf;
	int rc = 1;
	if (rp__cli_out_open_with(&of, "anonymize", outp, RP_OUT_SIGNAL_REMOVES))
		goto done;
	if (o.map && rp__cli_out_open_with(&mf, "anonymize", o.map, RP_OUT_PRIVATE | RP_OUT_SIGNAL_REMOVES)) {
		rp_outfile_abort(&of);
		goto done;
	}
	rc = anonymize(in, &of, o.map ? &mf : NULL, kind, key, key_len, &io);
	if (rc) {
		rp_outfile_abort(&of); /* nothing is left behind: OUT and the map stay as they were */
		if (o.map)
			rp_outfile_abort(&mf);
		goto done;
	}
	rc = o.map ? rp__cli_out_commit(&mf, "anonymize") : 0;
	if (rc)
		rp_outfile_abort(&of);
	else
		rc = rp__cli_out_commit(&of, "anonymize");
done:
	memset(key, 0, RP_ANON_KEY_MAX + 1);
	free(key);
	return rc;
}

const rp_command rp__cmd_anonymize = { &spec, run };
