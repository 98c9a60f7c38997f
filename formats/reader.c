/* The generic trace reader: format sniffing and dispatch to .rpz or loadfile readers. */
#include "formats/reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/loadfile.h"
#include "formats/rpz.h"

static bool ends_with(const char *s, const char *suffix)
{
	const size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool has_prefix(const void *head, size_t len, const void *magic, size_t m)
{
	return len >= m && memcmp(head, magic, m) == 0;
}

/* Digits, a '.', digits: one of the text form's times; the end of it, or NULL. */
static const char *text_time(const char *p, const char *eol)
{
	const char *const d = p;
	while (p < eol && *p >= '0' && *p <= '9')
		p++;
	if (p == d || p == eol || *p != '.')
		return NULL;
	const char *const f = ++p;
	while (p < eol && *p >= '0' && *p <= '9')
		p++;
	return p > f ? p : NULL;
}

static bool is_text_form(const char *p, const char *eol)
{
	if (!(p = text_time(p, eol)) || p == eol || *p++ != ' ')
		return false;
	if (p < eol && *p == '-')
		p++;
	else if (!(p = text_time(p, eol)))
		return false;
	if (eol - p < 3 || p[0] != ' ' || p[1] != 'c' || p[2] < '0' || p[2] > '9')
		return false;
	p += 2;
	while (p < eol && *p >= '0' && *p <= '9')
		p++;
	return p < eol && *p == ' ';
}

/* A run of hex digits (at least one), then c; the end of it, or NULL. */
static const char *hex_then(const char *p, const char *eol, char c)
{
	const char *const d = p;
	while (p < eol && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		p++;
	return p > d && p < eol && *p == c ? p + 1 : NULL;
}

/* nfsdump's "S.UUUUUU HOST.PORT HOST.PORT T|U C3|R3|C2|R2 " (every number hex but the time). */
static bool is_nfsdump(const char *p, const char *eol)
{
	if (!(p = text_time(p, eol)) || p == eol || *p++ != ' ')
		return false;
	for (int i = 0; i < 2; i++)
		if (!(p = hex_then(p, eol, '.')) || !(p = hex_then(p, eol, ' ')))
			return false;
	return eol - p >= 5 && (p[0] == 'T' || p[0] == 'U') && p[1] == ' ' && (p[2] == 'C' || p[2] == 'R') &&
	       (p[3] == '2' || p[3] == '3') && p[4] == ' ';
}

rp_format rp_format_sniff(const void *head, size_t len, const char *name)
{
	static const uint8_t rpz_magic[] = { 'R', 'P', 'Z', 0x89 };
	static const uint8_t pcap_be[] = { 0xa1, 0xb2, 0xc3, 0xd4 }, pcap_le[] = { 0xd4, 0xc3, 0xb2, 0xa1 };
	static const uint8_t pcapn_be[] = { 0xa1, 0xb2, 0x3c, 0x4d }, pcapn_le[] = { 0x4d, 0x3c, 0xb2, 0xa1 };
	static const uint8_t pcapng[] = { 0x0a, 0x0d, 0x0d, 0x0a };

	if (has_prefix(head, len, rpz_magic, 4))
		return RP_FMT_RPZ;
	if (has_prefix(head, len, pcap_be, 4) || has_prefix(head, len, pcap_le, 4) ||
	    has_prefix(head, len, pcapn_be, 4) || has_prefix(head, len, pcapn_le, 4) ||
	    has_prefix(head, len, pcapng, 4))
		return RP_FMT_PCAP;
	if (has_prefix(head, len, (const uint8_t *)"\x1f\x8b", 2))
		return RP_FMT_GZIP;

	/* Text: look at the first meaningful line's leading words (past a UTF-8 byte-order mark). */
	const char *p = head;
	if (has_prefix(head, len, (const uint8_t *)"\xEF\xBB\xBF", 3))
		p += 3;
	const char *const end = p + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *q = p;
		while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q == eol || *q == '#') {
			p = eol + 1;
			continue;
		}
		/* reprise cat's text form: "S.NNNNNNNNN (S.NNNNNNNNN|-) cN " (no loadfile or strace line is so). */
		if (is_text_form(q, eol))
			return RP_FMT_TEXT;
		if (is_nfsdump(q, eol))
			return RP_FMT_NFSDUMP;
		/* strace -f -ttt lines start with a pid and an epoch time. */
		const char *w = q;
		while (w < eol && ((*w >= '0' && *w <= '9') || *w == '.'))
			w++;
		const char *const word2 = w;
		while (w < eol && (*w == ' ' || *w == '\t'))
			w++;
		if (word2 > q && w < eol && ((*w >= '0' && *w <= '9') || *w == '['))
			return RP_FMT_STRACE;
		/* A timestamped loadfile line starts with a time; look past it. */
		const char *cmd = (word2 > q && w > word2) ? w : q;
		static const char *const nfs_words[] = { "GETATTR3", "LOOKUP3", "READ3", "WRITE3", "CREATE3",
							 "ACCESS3", "MKDIR3", "RMDIR3", "REMOVE3", "READDIRPLUS3",
							 "FSSTAT3", "FSINFO3", "COMMIT3", "RENAME3", "SETATTR3",
							 "LINK3", "SYMLINK3", "READLINK3", "PATHCONF3", "MKNOD3",
							 "READDIR3" };
		for (size_t i = 0; i < sizeof(nfs_words) / sizeof(nfs_words[0]); i++) {
			const size_t n = strlen(nfs_words[i]);
			if ((size_t)(eol - cmd) > n && memcmp(cmd, nfs_words[i], n) == 0 &&
			    (cmd[n] == ' ' || cmd[n] == '\t'))
				return RP_FMT_LOADFILE_NFS;
		}
		if (name && (ends_with(name, ".rpz")))
			return RP_FMT_UNKNOWN;
		return RP_FMT_LOADFILE_SMB; /* the loadfile reader will say if it is not */
	}
	if (name && (ends_with(name, ".txt") || ends_with(name, ".load") || ends_with(name, ".loadfile")))
		return RP_FMT_LOADFILE_SMB;
	return RP_FMT_UNKNOWN;
}

const char *rp_format_name(rp_format f)
{
	switch (f) {
	case RP_FMT_RPZ: return "rpz";
	case RP_FMT_LOADFILE_SMB: return "loadfile (SMB dialect)";
	case RP_FMT_LOADFILE_NFS: return "loadfile (NFS dialect)";
	case RP_FMT_PCAP: return "pcap";
	case RP_FMT_STRACE: return "strace log";
	case RP_FMT_TEXT: return "text form";
	case RP_FMT_NFSDUMP: return "nfsdump text";
	case RP_FMT_GZIP: return "gzip";
	case RP_FMT_UNKNOWN: break;
	}
	return "unknown";
}

int rp_reader_open(rp_reader **out, const char *path, const rp_read_opts *opts, char *errbuf)
{
	*out = NULL;
	FILE *const f = fopen(path, "rb");
	if (!f)
		return rp_fail(errbuf, RP_E_IO, "%s: %s", path, strerror(errno));
	uint8_t head[4096];
	const size_t n = fread(head, 1, sizeof(head), f);
	const int bad = ferror(f);
	fclose(f);
	if (bad)
		return rp_fail(errbuf, RP_E_IO, "%s: read error", path);

	switch (rp_format_sniff(head, n, path)) {
	case RP_FMT_RPZ:
		return rp_rpz_reader_open(out, path, opts, errbuf);
	case RP_FMT_LOADFILE_SMB:
	case RP_FMT_LOADFILE_NFS:
		return rp_loadfile_reader_open(out, path, opts, errbuf);
	case RP_FMT_PCAP:
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: a packet capture: convert it first (reprise convert %s out.rpz)",
			       path, path);
	case RP_FMT_STRACE:
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: an strace log: convert it first", path);
	case RP_FMT_TEXT:
		return rp_fail(errbuf, RP_E_UNSUPPORTED,
			       "%s: reprise's text form (reprise cat): convert it first (reprise convert %s out.rpz)", path, path);
	case RP_FMT_NFSDUMP:
	case RP_FMT_GZIP:
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: %s: convert it first (reprise convert %s out.rpz)", path,
			       rp_format_sniff(head, n, path) == RP_FMT_GZIP ? "gzip'd (nfsdump text?)" : "nfsdump text", path);
	case RP_FMT_UNKNOWN:
		break;
	}
	return rp_fail(errbuf, RP_E_NOTTRACE, "%s: not a trace (.rpz) or dbench loadfile", path);
}

int rp_reader_next(rp_reader *r, rp_op *op)
{
	for (;;) {
		const int rc = r->ops->next(r, op);
		if (rc <= 0 || !r->opts.filter_client || op->client == r->opts.client)
			return rc;
	}
}

int rp_reader_rewind(rp_reader *r)
{
	return r->ops->rewind(r);
}

void rp_reader_close(rp_reader *r)
{
	if (r)
		r->ops->close(r);
}

const char *rp_reader_string(void *reader, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(((rp_reader *)reader)->strings, id, len);
}

/* Re-intern a reader's string id into the sink's numbering. */
static int64_t remap(rp_reader *r, rp_sink *sink, rp_strtab *tab, uint32_t id)
{
	if (id == 0)
		return 0;
	uint32_t len = 0;
	const char *const s = rp_strtab_get(r->strings, id, &len);
	if (!s)
		return rp_fail(sink->errbuf, RP_E_CORRUPT, "string id %u used before it was defined", id);
	return rp_sink_intern(sink, tab, s, len);
}

int rp_reader_pump(rp_reader *r, rp_sink *sink, char *errbuf)
{
	rp_strtab *const tab = rp_strtab_create();
	if (!tab)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = sink->meta(sink, &r->meta);
	if (rc < 0)
		goto sink_fail;
	for (;;) {
		rp_op op;
		rc = rp_reader_next(r, &op);
		if (rc < 0) {
			rp_fail(errbuf, rc, "%s", r->errbuf);
			goto out;
		}
		if (rc == 0)
			break;
		const int64_t p1 = remap(r, sink, tab, op.path);
		const int64_t p2 = p1 < 0 ? p1 : remap(r, sink, tab, op.path2);
		if (p2 < 0) {
			rc = (int)p2;
			goto sink_fail;
		}
		op.path = (uint32_t)p1;
		op.path2 = (uint32_t)p2;
		rc = sink->op(sink, &op);
		if (rc < 0)
			goto sink_fail;
	}
	rc = sink->finish(sink);
	if (rc < 0)
		goto sink_fail;
	goto out;
sink_fail:
	rp_fail(errbuf, rc, "%s", sink->errbuf);
out:
	rp_strtab_destroy(tab);
	return rc;
}
