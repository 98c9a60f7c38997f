/* POSIX-side semantics of ops: open flags, granted wants, the find pattern match (MS-FSA 2.1.4.4). */
#include "formats/posixsem.h"

#include <fcntl.h>
#include <string.h>

static const int disp_oflags[RP_DISP__COUNT] = {
	[RP_DISP_OPEN] = 0,
	[RP_DISP_CREATE] = O_CREAT | O_EXCL,
	[RP_DISP_OPEN_IF] = O_CREAT,
	[RP_DISP_TRUNC] = O_TRUNC,
	[RP_DISP_TRUNC_IF] = O_CREAT | O_TRUNC,
	[RP_DISP_SUPERSEDE] = O_CREAT | O_TRUNC, /* replaced: emptied, the nearest POSIX has */
};

int rp_disp_oflags(unsigned disp)
{
	return disp < RP_DISP__COUNT ? disp_oflags[disp] : 0;
}

rp_open_plan rp_open_plan_of(const rp_op *op)
{
	rp_open_plan p = { .dir = (op->flags & RP_OPF_DIRECTORY) || (op->oflags & RP_OF_DIRECTORY),
			   .not_dir = (op->oflags & RP_OF_NOT_DIRECTORY) != 0 };
	const uint32_t w = op->want;
	int acc;
	if (!(w & RP_WANT_KNOWN) || (w & RP_WANT_MAX)) {
		acc = O_RDWR; /* not recorded (NFSv3, loadfiles) or as much as allowed */
		p.fallback_ro = true;
	} else {
		const bool rd = (w & (RP_WANT_READ | RP_WANT_EXEC)) != 0, wr = (w & (RP_WANT_WRITE | RP_WANT_APPEND)) != 0;
		acc = rd && wr ? O_RDWR : wr ? O_WRONLY : O_RDONLY;
		p.meta_only = !rd && !wr;
	}
	p.flags = acc | rp_disp_oflags(op->disp);
	p.flags |= op->oflags & RP_OF_APPEND ? O_APPEND : 0;
	p.flags |= op->oflags & RP_OF_SYNC ? O_SYNC : 0;
	p.flags |= op->oflags & RP_OF_NOFOLLOW ? O_NOFOLLOW : 0;
	return p;
}

uint32_t rp_granted_of(int flags)
{
	const int acc = flags & O_ACCMODE;
	/* Attributes and delete need no data access on POSIX: any descriptor (or none) allows them. */
	return RP_WANT_KNOWN | RP_WANT_READ_ATTR | RP_WANT_WRITE_ATTR | RP_WANT_DELETE |
	       (acc != O_WRONLY ? RP_WANT_READ | RP_WANT_EXEC : 0) | (acc != O_RDONLY ? RP_WANT_WRITE | RP_WANT_APPEND : 0);
}

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/*
 * The set of name positions the pattern read so far can end at, one pattern
 * character at a time (no backtracking, so no pattern is slow): at most
 * (pattern length) x (name length) steps.
 */
bool rp_find_match(const char *pattern, const char *name)
{
	const size_t n = strlen(name);
	if (n > RP_FIND_NAME_MAX)
		return false;
	const char *const last = strrchr(name, '.');
	const size_t ldot = last ? (size_t)(last - name) : n;
	bool at[RP_FIND_NAME_MAX + 1], next[RP_FIND_NAME_MAX + 1];
	memset(at, 0, n + 1);
	at[0] = true;
	for (const char *p = pattern; *p; p++) {
		const unsigned char pc = (unsigned char)*p;
		bool any = false;
		memset(next, 0, n + 1);
		for (size_t j = 0; j <= n; j++) {
			if (!at[j])
				continue;
			const unsigned char nc = (unsigned char)name[j]; /* '\0' at j == n */
			switch (pc) {
			case '*':
				for (size_t k = j; k <= n; k++)
					next[k] = true;
				j = n; /* every later position is in already */
				break;
			case '<': {
				/*
				 * Up to the name's last '.', or through it ("until encountering
				 * and matching the final ."); with none ahead, to the end (as '*').
				 */
				const bool dot_ahead = last && j <= ldot;
				const size_t lim = dot_ahead ? ldot + 1 : n;
				for (size_t k = j; k <= lim; k++)
					next[k] = true;
				break;
			}
			case '?':
				if (j < n)
					next[j + 1] = true;
				break;
			case '>':
				if (j < n && nc != '.')
					next[j + 1] = true;
				else
					next[j] = true;
				break;
			case '"':
				if (j < n && nc == '.')
					next[j + 1] = true;
				else if (j == n)
					next[j] = true;
				break;
			default:
				if (j < n && fold(nc) == fold(pc))
					next[j + 1] = true;
				break;
			}
		}
		for (size_t j = 0; j <= n; j++)
			any |= at[j] = next[j];
		if (!any)
			return false;
	}
	return at[n];
}

unsigned rp_find_dots(const char *pattern)
{
	return (unsigned)rp_find_match(pattern, ".") + (unsigned)rp_find_match(pattern, "..");
}
