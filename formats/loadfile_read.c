/* dbench loadfile reader: windowed input, LOOP/ENDLOOP/REPEAT control flow, timing (docs/loadfile.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/loadfile.h"
#include "formats/loadfile_rd.h"
#include "formats/strtab.h"

/* ---- input: the whole buffer, or a window over a file refilled with pread ---- */

static int fill(rp__lf_reader *r, uint64_t at)
{
	size_t got = 0;
	while (got < RP__LF_WINDOW && at + got < r->size) {
		const ssize_t n = pread(r->fd, r->buf + got, RP__LF_WINDOW - got, (off_t)(at + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rp_fail(r->base.errbuf, RP_E_IO, "%s: %s", r->name, strerror(errno));
		if (n == 0)
			break; /* the file shrank: stop at what is there */
		got += (size_t)n;
	}
	r->win = r->buf;
	r->win_off = at;
	r->win_len = got;
	r->base.in_bytes = at + got; /* progress, for `reprise convert`'s bar */
	r->base.in_size = r->size;
	if (at + got < r->size && got < RP__LF_WINDOW)
		r->size = at + got;
	return 0;
}

/*
 * The line at `at`: 1 with *s, *n (without the newline) and *next, 0 at the
 * end, or a negative error.  *n > RP__LF_LINE_MAX means "too long" and *next
 * is still right.
 */
static int get_line(rp__lf_reader *r, uint64_t at, const char **s, size_t *n, uint64_t *next)
{
	if (at >= r->size)
		return 0;
	for (int pass = 0;; pass++) {
		if (at >= r->win_off && at < r->win_off + r->win_len) {
			const size_t off = (size_t)(at - r->win_off);
			const size_t avail = r->win_len - off;
			const char *const p = r->win + off;
			const size_t look = avail < RP__LF_LINE_MAX + 1 ? avail : RP__LF_LINE_MAX + 1;
			const char *const nl = memchr(p, '\n', look);
			if (nl) {
				*s = p;
				*n = (size_t)(nl - p);
				*next = at + *n + 1;
				return 1;
			}
			if (r->win_off + r->win_len == r->size && avail <= RP__LF_LINE_MAX) {
				*s = p; /* the last line has no newline */
				*n = avail;
				*next = r->size;
				return 1;
			}
			if (avail > RP__LF_LINE_MAX || (pass > 0 && r->fd >= 0)) {
				/* Too long: find where it ends so that a lenient reader can go on. */
				uint64_t q = at + look;
				for (;;) {
					if (q >= r->size) {
						*next = r->size;
						break;
					}
					if (r->fd >= 0 && !(q >= r->win_off && q < r->win_off + r->win_len)) {
						const int rc = fill(r, q);
						if (rc < 0)
							return rc;
					}
					const size_t o2 = (size_t)(q - r->win_off);
					const char *const nl2 = memchr(r->win + o2, '\n', r->win_len - o2);
					if (nl2) {
						*next = r->win_off + (uint64_t)(nl2 - r->win) + 1;
						break;
					}
					q = r->win_off + r->win_len;
				}
				*s = NULL;
				*n = RP__LF_LINE_MAX + 1;
				return 1;
			}
		}
		if (r->fd < 0)
			return 0;
		const int rc = fill(r, at);
		if (rc < 0)
			return rc;
		if (r->win_len == 0)
			return 0;
	}
}

/* ---- control flow ---- */

static void reset(rp__lf_reader *r)
{
	r->pos = r->start;
	r->line = 1;
	r->cur_line = 0;
	r->t_base = 0;
	r->t_last = 0;
	r->depth = 0;
	r->work = r->reread = 0;
	r->hiwater = r->start;
	r->limit_fatal = false;
	r->have_repeat_pending = false;
	r->repeat_left = 0;
	r->prng = RP__LF_PRNG_SEED;
	memset(r->prev, 0, sizeof(r->prev));
	memset(r->rnd_len, 0, sizeof(r->rnd_len));
	r->have_rnd = false;
	r->failed = false;
	r->base.skipped = 0;
	r->base.note[0] = '\0';
}

/* Count a line read at `at`, ending at next: a line before the furthest point read is read again. */
static void count_line(rp__lf_reader *r, uint64_t at, uint64_t next)
{
	r->work++;
	if (at < r->hiwater)
		r->reread++;
	else
		r->hiwater = next;
}

/* Whether `extra` more re-read lines keep the pass within RP__LF_EXPAND_MAX. */
static bool expand_fits(const rp__lf_reader *r, uint64_t extra)
{
	uint64_t total;
	return !__builtin_add_overflow(r->reread, extra, &total) && total <= RP__LF_EXPAND_MAX;
}

/* Skip a LOOP 0 body: up to the matching ENDLOOP. */
static int skip_body(rp__lf_reader *r, uint64_t loop_line)
{
	unsigned nest = 0;
	for (;;) {
		const char *s;
		size_t n;
		uint64_t next;
		const int got = get_line(r, r->pos, &s, &n, &next);
		if (got < 0)
			return got;
		if (got == 0) {
			r->cur_line = loop_line;
			return rp__lf_fail(r, RP_E_SYNTAX, "LOOP without ENDLOOP");
		}
		count_line(r, r->pos, next);
		r->cur_line = r->line;
		r->pos = next;
		r->line++;
		if (!s)
			continue;
		while (n && (s[0] == ' ' || s[0] == '\t')) {
			s++;
			n--;
		}
		if (n >= 4 && memcmp(s, "LOOP", 4) == 0 && (n == 4 || s[4] == ' ' || s[4] == '\t'))
			nest++;
		else if (n >= 7 && memcmp(s, "ENDLOOP", 7) == 0 && (n == 7 || s[7] <= ' ')) {
			if (nest == 0)
				return 0;
			nest--;
		}
	}
}

static int control(rp__lf_reader *r, const rp__lf_line *ln)
{
	switch (ln->word) {
	case RP__LF_K_LOOP: {
		if (r->depth == RP__LF_LOOP_DEPTH)
			return rp__lf_fail(r, RP_E_LIMIT, "LOOPs nested deeper than %d", RP__LF_LOOP_DEPTH);
		if (ln->num == 0)
			return skip_body(r, r->cur_line);
		rp__lf_frame *const f = &r->loops[r->depth++];
		*f = (rp__lf_frame){ .pos = r->pos, .line = r->line, .left = ln->num, .loop_line = r->cur_line,
				     .work_start = r->work, .first_round = true };
		return 0;
	}
	case RP__LF_K_ENDLOOP: {
		if (r->depth == 0)
			return rp__lf_fail(r, RP_E_SYNTAX, "ENDLOOP without LOOP");
		rp__lf_frame *const f = &r->loops[r->depth - 1];
		/*
		 * A round that made no op (and drew no random string) leaves nothing
		 * for the next to differ by: the rest would make nothing either, so an
		 * empty LOOP 1000000000000 ends at once.
		 */
		if (--f->left == 0 || !f->yielded) {
			r->depth--;
			return 0;
		}
		if (f->first_round) {
			/* Every round reads the same lines: the first says what the rest will cost. */
			uint64_t extra;
			if (__builtin_mul_overflow(r->work - f->work_start, f->left, &extra) || !expand_fits(r, extra)) {
				r->cur_line = f->loop_line;
				r->limit_fatal = true;
				return rp__lf_fail(r, RP_E_LIMIT,
						   "LOOP %llu of a %llu-line body expands past %llu lines, the limit "
						   "(docs/loadfile.md, Limits)",
						   (unsigned long long)f->left + 1,
						   (unsigned long long)(r->work - f->work_start),
						   (unsigned long long)RP__LF_EXPAND_MAX);
			}
			f->first_round = false;
		}
		/* The next round starts where this one ended, in time as in the file. */
		if (f->have_first && __builtin_sub_overflow(r->t_last, f->raw_first, &r->t_base))
			r->t_base = r->t_last > f->raw_first ? INT64_MAX : INT64_MIN; /* effective() saturates */
		f->yielded = false;
		r->pos = f->pos;
		r->line = f->line;
		return 0;
	}
	case RP__LF_K_REPEAT:
		if (ln->num > 1 && !expand_fits(r, ln->num - 1)) {
			r->limit_fatal = true;
			return rp__lf_fail(r, RP_E_LIMIT, "REPEAT %llu expands past %llu lines, the limit (docs/loadfile.md, Limits)",
					   (unsigned long long)ln->num, (unsigned long long)RP__LF_EXPAND_MAX);
		}
		r->repeat_pending = ln->num;
		r->have_repeat_pending = true;
		return 0;
	case RP__LF_K_RANDOMSTRING: /* it draws from the PRNG: a round with one differs from the next */
		for (unsigned i = 0; i < r->depth; i++)
			r->loops[i].yielded = true;
		return 0;
	default: /* SETSP, WAITSP (dbench's cross-client sync points), WRITEPATTERN: no op */
		return 0;
	}
}

/*
 * raw + t_base, saturated to 0 .. RP_TIME_UNKNOWN - 1 ns: the rounds of a
 * timed loop add up, and a time must never wrap or read as "unknown".
 */
static uint64_t effective(rp__lf_reader *r, uint64_t raw)
{
	uint64_t t;
	if (__builtin_add_overflow(raw, r->t_base, &t))
		return r->t_base < 0 ? 0 : RP_TIME_UNKNOWN - 1;
	return t < RP_TIME_UNKNOWN ? t : RP_TIME_UNKNOWN - 1;
}

/* Time an op line: timed files carry the last time forward over lines without one. */
static void stamp(rp__lf_reader *r, const rp__lf_line *ln, rp_op *op)
{
	if (ln->has_time) {
		for (unsigned i = 0; i < r->depth; i++)
			if (!r->loops[i].have_first) {
				r->loops[i].have_first = true;
				r->loops[i].raw_first = ln->time;
			}
		r->t_last = effective(r, ln->time);
	}
	op->t_start = r->timed ? r->t_last : 0;
}

static int lf_next(rp_reader *base, rp_op *op)
{
	rp__lf_reader *const r = (rp__lf_reader *)base;
	if (r->failed)
		return r->fail_rc;
	for (;;) {
		uint64_t at = r->pos;
		bool again = false;
		if (r->repeat_left > 0) {
			at = r->repeat_pos;
			again = true;
		}
		const char *s;
		size_t n;
		uint64_t next;
		int rc = get_line(r, at, &s, &n, &next);
		if (rc < 0)
			goto fatal;
		if (rc == 0) {
			if (r->depth > 0) {
				r->cur_line = r->loops[r->depth - 1].loop_line;
				rc = rp__lf_fail(r, RP_E_SYNTAX, "LOOP without ENDLOOP");
				if (!r->base.opts.lenient)
					goto fatal;
				r->base.skipped++;
				r->depth--;
				continue;
			}
			if (r->have_repeat_pending && !r->base.opts.lenient) {
				rc = rp__lf_fail(r, RP_E_SYNTAX, "REPEAT at the end of the file");
				goto fatal;
			}
			if (r->base.skipped)
				snprintf(r->base.note, sizeof(r->base.note), "%s: skipped %llu bad line%s", r->name,
					 (unsigned long long)r->base.skipped, r->base.skipped == 1 ? "" : "s");
			return 0;
		}
		count_line(r, at, next);
		if (again) {
			r->cur_line = r->repeat_line;
			r->repeat_left--;
		} else {
			r->cur_line = r->line;
			r->pos = next;
			r->line++;
		}
		rp__lf_line ln;
		if (!s)
			rc = rp__lf_fail(r, RP_E_LIMIT, "line longer than %u bytes", RP__LF_LINE_MAX);
		else
			rc = rp__lf_parse_line(r, s, n, &ln);
		if (rc == 0 && ln.kind == RP__LF_L_CTL && r->have_repeat_pending &&
		    (ln.word == RP__LF_K_LOOP || ln.word == RP__LF_K_ENDLOOP || ln.word == RP__LF_K_REPEAT))
			rc = rp__lf_fail(r, RP_E_SYNTAX, "REPEAT must be followed by an operation");
		if (rc == 0 && ln.kind == RP__LF_L_CTL)
			rc = control(r, &ln);
		if (rc < 0) {
			if (!r->base.opts.lenient || rc == RP_E_IO || rc == RP_E_NOMEM || r->limit_fatal)
				goto fatal;
			r->base.skipped++;
			r->have_repeat_pending = false;
			continue;
		}
		if (ln.kind != RP__LF_L_OP)
			continue;
		if (r->have_repeat_pending) {
			r->have_repeat_pending = false;
			if (r->repeat_pending == 0)
				continue;
			r->repeat_left = r->repeat_pending - 1;
			r->repeat_pos = at;
			r->repeat_line = r->cur_line;
		}
		for (unsigned i = 0; i < r->depth; i++)
			r->loops[i].yielded = true;
		*op = ln.op;
		op->client = RP_LOADFILE_CLIENT;
		stamp(r, &ln, op);
		return 1;
	fatal:
		r->failed = true;
		r->fail_rc = rc;
		return rc;
	}
}

static int lf_rewind(rp_reader *base)
{
	reset((rp__lf_reader *)base);
	return 0;
}

static void lf_close(rp_reader *base)
{
	rp__lf_reader *const r = (rp__lf_reader *)base;
	if (r->fd >= 0)
		close(r->fd);
	rp_strtab_destroy(r->base.strings);
	free(r->buf);
	free(r->scratch);
	free(r->subst);
	free(r->name);
	free(r);
}

static const rp_reader_ops lf_ops = { .next = lf_next, .rewind = lf_rewind, .close = lf_close };

/* The dialect and form from the first operation lines in the first window. */
static int sniff(rp__lf_reader *r)
{
	r->dialect = RP__LF_SMB;
	bool dialect_known = false, form_known = false;
	uint64_t at = r->start;
	for (unsigned lines = 0; lines < 4096 && !(dialect_known && form_known); lines++) {
		const char *s;
		size_t n;
		uint64_t next;
		const int got = get_line(r, at, &s, &n, &next);
		if (got < 0)
			return got;
		if (got == 0 || next > r->win_off + r->win_len)
			break;
		at = next;
		if (!s)
			continue;
		size_t i = 0;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n || s[i] == '#')
			continue;
		const bool has_time = (s[i] >= '0' && s[i] <= '9') || s[i] == '.';
		if (has_time) {
			while (i < n && s[i] != ' ' && s[i] != '\t')
				i++;
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
		}
		const size_t w = i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			i++;
		const int k = rp__lf_dict_find(&r->dict, s + w, i - w, 1);
		if (k < 0 || k >= RP__LF_C__COUNT)
			continue;
		if (!form_known) {
			r->timed = has_time;
			form_known = true;
		}
		if (rp__lf_cmds[k].dialect != RP__LF_ANY && !dialect_known) {
			r->dialect = rp__lf_cmds[k].dialect == RP__LF_SMB ? RP__LF_SMB : RP__LF_NFS3;
			dialect_known = true;
		}
	}
	return 0;
}

static int open_common(rp__lf_reader *r, const rp_read_opts *opts, const char *name, char *errbuf)
{
	r->base.ops = &lf_ops;
	if (opts)
		r->base.opts = *opts;
	r->name = strdup(name);
	r->base.strings = rp_strtab_create();
	r->scratch = malloc(RP__LF_LINE_MAX);
	r->subst = malloc(RP__LF_LINE_MAX);
	if (!r->name || !r->base.strings || !r->scratch || !r->subst)
		return rp_fail(errbuf, RP_E_NOMEM, "%s: out of memory", name);
	rp__lf_dict_init(&r->dict);
	/* A UTF-8 byte-order mark (editors on Windows write one) is not part of the first line. */
	const char *s;
	size_t n;
	uint64_t next;
	int rc = get_line(r, 0, &s, &n, &next);
	if (rc < 0)
		return rp_fail(errbuf, rc, "%s", r->base.errbuf);
	if (rc > 0 && s && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		r->start = 3;
	reset(r);
	rc = sniff(r);
	if (rc < 0)
		return rp_fail(errbuf, rc, "%s", r->base.errbuf);
	r->base.meta.source = r->dialect == RP__LF_SMB ? RP_SRC_LOADFILE_SMB : RP_SRC_LOADFILE_NFS;
	r->base.meta.flags = r->timed ? RP_META_TIMED : 0;
	/* The file's name, not where it lives: a trace must not depend on its directory. */
	const char *const slash = strrchr(name, '/');
	snprintf(r->base.meta.source_name, sizeof(r->base.meta.source_name), "%s", slash ? slash + 1 : name);
	return 0;
}

int rp_loadfile_reader_open_mem(rp_reader **out, const void *buf, size_t len, const char *name,
				const rp_read_opts *opts, char *errbuf)
{
	*out = NULL;
	rp__lf_reader *const r = calloc(1, sizeof(*r));
	if (!r)
		return rp_fail(errbuf, RP_E_NOMEM, "%s: out of memory", name);
	r->fd = -1;
	r->mem = buf;
	r->size = len;
	r->win = buf;
	r->win_off = 0;
	r->win_len = len;
	const int rc = open_common(r, opts, name, errbuf);
	if (rc < 0) {
		lf_close(&r->base);
		return rc;
	}
	*out = &r->base;
	return 0;
}

int rp_loadfile_reader_open(rp_reader **out, const char *path, const rp_read_opts *opts, char *errbuf)
{
	*out = NULL;
	rp__lf_reader *const r = calloc(1, sizeof(*r));
	if (!r)
		return rp_fail(errbuf, RP_E_NOMEM, "%s: out of memory", path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int rc;
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		rc = rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: not a regular file", path);
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	r->buf = malloc(RP__LF_WINDOW);
	if (!r->buf) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "%s: out of memory", path);
		goto fail;
	}
	r->win = r->buf;
	rc = open_common(r, opts, path, errbuf);
	if (rc < 0)
		goto fail;
	*out = &r->base;
	return 0;
fail:
	lf_close(&r->base);
	return rc;
}
