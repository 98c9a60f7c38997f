/* Block and inode I/O traces as CSV -> read/write ops on one file per device or inode (docs/csv.md). */
#include "converters/csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/strtab.h"

/*
 * The presets, as each format's documentation lays its records out:
 *   msr      MSR Cambridge (SNIA IOTTA): Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime,
 *            the timestamp a Windows FILETIME, the response time in 100 ns ticks, Type Read or Write
 *   fiu      FIU block traces (SNIA IOTTA, home/mail/web-vm): "ts pid process lba size op major minor md5",
 *            blank-separated, ts in ns, lba and size in 512-byte sectors, op R or W
 *   alibaba  Alibaba Cloud block traces: device_id,opcode,offset,length,timestamp, opcode R or W, bytes, us
 *   tencent  Tencent CBS block traces (SNIA IOTTA): Timestamp,Offset,Size,IOType,VolumeID, seconds,
 *            sectors, IOType 0 read and 1 write
 */
static const struct {
	const char *name, *spec;
} presets[] = {
	{ "msr", "time=1,device=2+3,op=4,offset=5,size=6,latency=7,unit=filetime,latency_unit=100ns,read=Read,write=Write" },
	{ "fiu", "time=1,pid=2,offset=4,size=5,op=6,device=7+8,unit=ns,offset_unit=512,size_unit=512,read=R,write=W,sep=space" },
	{ "alibaba", "device=1,op=2,offset=3,size=4,time=5,unit=us,read=R,write=W" },
	{ "tencent", "time=1,offset=2,size=3,op=4,device=5,unit=s,offset_unit=512,size_unit=512,read=0,write=1" },
};
const char rp_csv_presets[] = "msr, fiu, alibaba, tencent";

static bool word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(p, w, n) == 0;
}

static int column(const char *v, size_t n, uint8_t *out)
{
	uint32_t c = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9' || (c = c * 10 + (uint32_t)(v[i] - '0')) > RP_CSV_COLUMNS_MAX)
			return -1;
	}
	if (n == 0 || c == 0)
		return -1;
	*out = (uint8_t)c;
	return 0;
}

static int unit_of(const char *v, size_t n, rp_csv_unit *u)
{
	static const char *const names[] = { "s", "ms", "us", "ns", "100ns", "filetime" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (word_is(v, n, names[i])) {
			*u = (rp_csv_unit)i;
			return 0;
		}
	return -1;
}

static int bytes_unit(const char *v, size_t n, uint32_t *u)
{
	if (word_is(v, n, "1") || word_is(v, n, "bytes"))
		*u = 1;
	else if (word_is(v, n, "512") || word_is(v, n, "sectors"))
		*u = 512;
	else if (word_is(v, n, "4096"))
		*u = 4096;
	else
		return -1;
	return 0;
}

/* One key=value of a column map. */
static int map_item(rp_csv_map *m, const char *k, size_t kn, const char *v, size_t vn)
{
	if (word_is(k, kn, "time"))
		return column(v, vn, &m->time);
	if (word_is(k, kn, "op"))
		return column(v, vn, &m->op);
	if (word_is(k, kn, "offset"))
		return column(v, vn, &m->offset);
	if (word_is(k, kn, "size"))
		return column(v, vn, &m->size);
	if (word_is(k, kn, "latency"))
		return column(v, vn, &m->latency);
	if (word_is(k, kn, "pid"))
		return column(v, vn, &m->pid);
	if (word_is(k, kn, "inode"))
		return column(v, vn, &m->inode);
	if (word_is(k, kn, "device")) {
		const char *const plus = memchr(v, '+', vn);
		if (!plus)
			return column(v, vn, &m->device[0]);
		return column(v, (size_t)(plus - v), &m->device[0]) < 0 ? -1
		       : column(plus + 1, vn - (size_t)(plus - v) - 1, &m->device[1]);
	}
	if (word_is(k, kn, "unit"))
		return unit_of(v, vn, &m->unit);
	if (word_is(k, kn, "latency_unit"))
		return unit_of(v, vn, &m->latency_unit);
	if (word_is(k, kn, "offset_unit"))
		return bytes_unit(v, vn, &m->offset_unit);
	if (word_is(k, kn, "size_unit"))
		return bytes_unit(v, vn, &m->size_unit);
	if (word_is(k, kn, "read") || word_is(k, kn, "write")) {
		char *const dst = k[0] == 'r' ? m->read : m->write;
		if (vn == 0 || vn >= RP_CSV_WORDS_MAX)
			return -1;
		memcpy(dst, v, vn);
		dst[vn] = '\0';
		return 0;
	}
	if (word_is(k, kn, "sep")) {
		if (word_is(v, vn, "comma"))
			m->sep = ',';
		else if (word_is(v, vn, "space") || word_is(v, vn, "blank"))
			m->sep = ' ';
		else
			return -1;
		return 0;
	}
	if (word_is(k, kn, "header")) {
		if (!word_is(v, vn, "0") && !word_is(v, vn, "1"))
			return -1;
		m->header = v[0] == '1';
		return 0;
	}
	return -1;
}

int rp_csv_map_parse(const char *spec, rp_csv_map *m, char *errbuf)
{
	memset(m, 0, sizeof(*m));
	m->unit = m->latency_unit = RP_CSV_US;
	m->offset_unit = m->size_unit = 1;
	m->sep = ',';
	snprintf(m->read, sizeof(m->read), "R:r:Read:read");
	snprintf(m->write, sizeof(m->write), "W:w:Write:write");
	snprintf(m->name, sizeof(m->name), "columns");
	if (!spec || !spec[0])
		return rp_fail(errbuf, RP_E_INVAL, "--csv: empty: a preset (%s) or a column map like time=1,op=4,offset=5,size=6,device=2",
			       rp_csv_presets);
	const char *s = spec;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcmp(spec, presets[i].name) == 0) {
			s = presets[i].spec;
			break;
		}
	while (*s) {
		const char *const end = strchr(s, ',') ? strchr(s, ',') : s + strlen(s);
		const char *const eq = memchr(s, '=', (size_t)(end - s));
		if (!eq || map_item(m, s, (size_t)(eq - s), eq + 1, (size_t)(end - eq - 1)) < 0)
			return rp_fail(errbuf, RP_E_INVAL, "--csv: bad item \"%.*s\" (a preset: %s; items: time, op, offset, size, "
				       "device (N or N+M), inode, pid, latency = a column from 1 to %u; unit, latency_unit = s, ms, "
				       "us, ns, 100ns, filetime; offset_unit, size_unit = bytes or sectors; read, write = words "
				       "joined by ':'; sep = comma or space; header = 0 or 1)",
				       (int)(end - s), s, rp_csv_presets, RP_CSV_COLUMNS_MAX);
		s = *end ? end + 1 : end;
	}
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcmp(spec, presets[i].name) == 0)
			snprintf(m->name, sizeof(m->name), "%s", presets[i].name);
	if (!m->time || !m->op || !m->offset || !m->size || !(m->device[0] || m->inode))
		return rp_fail(errbuf, RP_E_INVAL, "--csv %s: the map needs time, op, offset, size and device or inode", spec);
	return 0;
}

/* ---- records ---- */

typedef struct field {
	const char *p;
	size_t n;
} field;

/* The fields of a line: split at sep (blanks: runs of them), surrounding blanks and a "quote" taken off. */
static size_t split(char *line, size_t len, char sep, field *f, size_t max)
{
	size_t n = 0, i = 0;
	while (i <= len && n < max) {
		if (sep == ' ') {
			while (i < len && (line[i] == ' ' || line[i] == '\t'))
				i++;
			if (i == len)
				break;
		}
		size_t j = i;
		while (j < len && (sep == ' ' ? line[j] != ' ' && line[j] != '\t' : line[j] != sep))
			j++;
		size_t a = i, b = j;
		while (a < b && (line[a] == ' ' || line[a] == '\t'))
			a++;
		while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t' || line[b - 1] == '\r'))
			b--;
		if (b - a >= 2 && line[a] == '"' && line[b - 1] == '"') {
			a++;
			b--;
		}
		f[n++] = (field){ line + a, b - a };
		i = j + 1;
	}
	return n;
}

/* A decimal number, maybe with a fraction (kept as ns of the unit in *frac_ns_per_unit's terms by the caller). */
static bool num(const field *f, uint64_t *ip, uint64_t *frac, unsigned *frac_digits)
{
	uint64_t x = 0, y = 0;
	unsigned d = 0;
	size_t i = 0;
	if (f->n == 0)
		return false;
	for (; i < f->n && f->p[i] != '.'; i++) {
		if (f->p[i] < '0' || f->p[i] > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(f->p[i] - '0');
	}
	if (i < f->n) {
		for (i++; i < f->n; i++) {
			if (f->p[i] < '0' || f->p[i] > '9')
				return false;
			if (d < 9) {
				y = y * 10 + (uint64_t)(f->p[i] - '0');
				d++;
			}
		}
	}
	*ip = x;
	if (frac)
		*frac = y;
	if (frac_digits)
		*frac_digits = d;
	return true;
}

/* A time in ns since the Unix epoch (FILETIME) or since its unit's zero; false when it overflows. */
static bool time_ns(const field *f, rp_csv_unit u, uint64_t *ns)
{
	static const uint64_t per[] = { 1000000000ull, 1000000ull, 1000ull, 1ull, 100ull, 100ull };
	uint64_t ip = 0, frac = 0;
	unsigned d = 0;
	if (!num(f, &ip, &frac, &d))
		return false;
	uint64_t t;
	if (__builtin_mul_overflow(ip, per[u], &t))
		return false;
	uint64_t scale = per[u];
	for (unsigned i = 0; i < d; i++)
		scale /= 10;
	t += frac * scale;
	if (u == RP_CSV_FILETIME) {
		const uint64_t unix_from_1601 = 11644473600ull * 1000000000ull;
		t = t > unix_from_1601 ? t - unix_from_1601 : 0;
	}
	*ns = t;
	return true;
}

static bool in_words(const char *words, const field *f)
{
	for (const char *w = words; *w;) {
		const char *const end = strchr(w, ':') ? strchr(w, ':') : w + strlen(w);
		if ((size_t)(end - w) == f->n && memcmp(w, f->p, f->n) == 0)
			return true;
		w = *end ? end + 1 : end;
	}
	return false;
}

typedef struct reader {
	const rp_csv_map *m;
	rp_sink *sink;
	rp_csv_stats *st;
	rp_strtab *files, *clients, *paths;
	bool have_base;
	uint64_t base, last;
} reader;

/* The file a record is on: "/dev-KEY" or "/inode-N", KEY the device column(s) with unsafe bytes as '_'. */
static int file_of(reader *r, const field *f, size_t nf, uint64_t *handle, uint32_t *path, char *errbuf)
{
	char key[160];
	size_t n = 0;
	const rp_csv_map *const m = r->m;
	const uint8_t cols[2] = { m->inode ? m->inode : m->device[0], m->inode ? 0 : m->device[1] };
	n = (size_t)snprintf(key, sizeof(key), "%s", m->inode ? "/inode-" : "/dev-");
	for (int c = 0; c < 2 && cols[c]; c++) {
		const field *const v = &f[cols[c] - 1];
		if (c == 1 && n < sizeof(key) - 1)
			key[n++] = '_';
		for (size_t i = 0; i < v->n && i < 64 && n < sizeof(key) - 1; i++) {
			const char ch = v->p[i];
			key[n++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
					   ch == '-' || ch == '_'
				   ? ch : '_';
		}
	}
	(void)nf;
	int added = 0;
	const int64_t id = rp_strtab_intern(r->files, key, (uint32_t)n, &added);
	if (id < 0)
		return rp_fail(errbuf, (int)id, "file table: %s", rp_strerror((int)id));
	if (added && ++r->st->files > RP_CSV_FILES_MAX)
		return rp_fail(errbuf, RP_E_LIMIT, "more than %u devices or inodes", RP_CSV_FILES_MAX);
	const int64_t pid = rp_sink_intern(r->sink, r->paths, key, (uint32_t)n);
	if (pid < 0) {
		snprintf(errbuf, RP_ERRBUF_SIZE, "%s", r->sink->errbuf);
		return (int)pid;
	}
	*handle = (uint64_t)id;
	*path = (uint32_t)pid;
	return 0;
}

/* One record line: 1 an op made, 0 no op (another kind, absurd), -1 not a record of the map. */
static int record(reader *r, char *line, size_t len, rp_op *op, char *errbuf, int *err)
{
	const rp_csv_map *const m = r->m;
	field f[RP_CSV_COLUMNS_MAX];
	const size_t nf = split(line, len, m->sep, f, RP_CSV_COLUMNS_MAX);
	const uint8_t need[] = { m->time, m->op, m->offset, m->size, m->device[0], m->device[1], m->inode, m->pid,
				 m->latency };
	for (size_t i = 0; i < sizeof(need); i++)
		if (need[i] > nf)
			return -1;
	uint64_t t = 0, off = 0, size = 0, lat = 0;
	if (!time_ns(&f[m->time - 1], m->unit, &t) || !num(&f[m->offset - 1], &off, NULL, NULL) ||
	    !num(&f[m->size - 1], &size, NULL, NULL) || (m->latency && !time_ns(&f[m->latency - 1], m->latency_unit, &lat)))
		return -1;
	const bool rd = in_words(m->read, &f[m->op - 1]), wr = !rd && in_words(m->write, &f[m->op - 1]);
	if (!rd && !wr) {
		r->st->other++;
		return 0;
	}
	uint64_t end;
	if (__builtin_mul_overflow(off, m->offset_unit, &off) || __builtin_mul_overflow(size, m->size_unit, &size) ||
	    __builtin_add_overflow(off, size, &end) || end > RP_CSV_END_MAX) {
		r->st->absurd++;
		return 0;
	}
	if (!r->have_base) {
		r->have_base = true;
		r->base = r->last = t;
		rp_trace_meta meta = { .source = RP_SRC_CSV, .flags = RP_META_TIMED };
		if (m->unit == RP_CSV_FILETIME)
			meta.capture_start_ns = (int64_t)t;
		const int rc = r->sink->meta(r->sink, &meta);
		if (rc < 0) {
			*err = rc;
			snprintf(errbuf, RP_ERRBUF_SIZE, "%s", r->sink->errbuf);
			return 0;
		}
	}
	if (t < r->last) {
		r->st->reordered++;
		t = r->last;
	}
	r->last = t;
	memset(op, 0, sizeof(*op));
	const int rc = file_of(r, f, nf, &op->handle, &op->path, errbuf);
	if (rc < 0) {
		*err = rc;
		return 0;
	}
	/* One client per process where the trace says it, else per file (devices do their I/O side by side). */
	if (m->pid) {
		const int64_t c = rp_strtab_intern(r->clients, f[m->pid - 1].p, (uint32_t)f[m->pid - 1].n, NULL);
		op->client = c > 0 ? (uint32_t)c : 1;
	} else {
		op->client = (uint32_t)op->handle;
	}
	op->op = rd ? RP_OP_READ : RP_OP_WRITE;
	op->t_start = t - r->base;
	op->t_end = m->latency ? op->t_start + lat : RP_TIME_UNKNOWN;
	op->offset = off;
	op->length = size;
	op->result = size;
	op->status = RP_STATUS_OK;
	if (rd) {
		r->st->reads++;
		r->st->bytes_read += size;
	} else {
		r->st->writes++;
		r->st->bytes_written += size;
	}
	return 1;
}

int rp_csv_read(FILE *f, const char *name, const rp_csv_map *m, bool lenient, rp_sink *sink, rp_csv_stats *st,
		char *errbuf)
{
	memset(st, 0, sizeof(*st));
	reader r = { .m = m, .sink = sink, .st = st, .files = rp_strtab_create(), .clients = rp_strtab_create(),
		     .paths = rp_strtab_create() };
	char *const line = malloc(RP_CSV_LINE_MAX + 2);
	int rc = line && r.files && r.clients && r.paths ? 0 : rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	bool skipping = false;
	while (rc == 0 && fgets(line, RP_CSV_LINE_MAX + 2, f)) {
		size_t len = strlen(line);
		const bool whole = len > 0 && line[len - 1] == '\n';
		if (skipping) {
			skipping = !whole;
			continue;
		}
		st->lines++;
		if (!whole && !feof(f)) {
			skipping = true; /* longer than any record: the rest of it is skipped with it */
			len = RP_CSV_LINE_MAX + 1;
		} else if (whole) {
			line[--len] = '\0';
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		size_t i = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len || line[i] == '#' || (m->header && st->lines == 1))
			continue;
		rp_op op;
		int err = 0;
		const int k = len > RP_CSV_LINE_MAX || memchr(line, '\0', len) ? -1 : record(&r, line, len, &op, errbuf, &err);
		if (err) {
			rc = err;
		} else if (k < 0) {
			st->bad++;
			if (!lenient)
				rc = rp_fail(errbuf, RP_E_SYNTAX, "%s:%" PRIu64 ": not a record of --csv %s (--lenient skips such lines)",
					     name, st->lines, m->name);
		} else if (k > 0) {
			st->records++;
			if ((rc = sink->op(sink, &op)) < 0)
				snprintf(errbuf, RP_ERRBUF_SIZE, "%s", sink->errbuf);
		}
	}
	if (rc == 0 && ferror(f))
		rc = rp_fail(errbuf, RP_E_IO, "%s: read error: %s", name, strerror(errno));
	if (rc == 0 && !r.have_base && (rc = sink->meta(sink, &(rp_trace_meta){ .source = RP_SRC_CSV })) < 0)
		snprintf(errbuf, RP_ERRBUF_SIZE, "%s", sink->errbuf);
	if (rc == 0 && (rc = sink->finish(sink)) < 0)
		snprintf(errbuf, RP_ERRBUF_SIZE, "%s", sink->errbuf);
	rp_strtab_destroy(r.files);
	rp_strtab_destroy(r.clients);
	rp_strtab_destroy(r.paths);
	free(line);
	return rc;
}

void rp_csv_summary(const rp_csv_stats *st, const rp_csv_map *m, char *buf, size_t size)
{
	snprintf(buf, size,
		 "csv (%s): lines %" PRIu64 ", records %" PRIu64 ": %" PRIu64 " reads (%" PRIu64 " bytes), %" PRIu64
		 " writes (%" PRIu64 " bytes) on %" PRIu64 " files, one per %s; other ops %" PRIu64 ", bad lines %" PRIu64
		 ", absurd %" PRIu64 ", reordered times %" PRIu64 "; the format names no paths, opens or handles: "
		 "each %s is one file, /%s-KEY",
		 m->name, st->lines, st->records, st->reads, st->bytes_read, st->writes, st->bytes_written, st->files,
		 m->inode ? "inode" : "device", st->other, st->bad, st->absurd, st->reordered, m->inode ? "inode" : "device",
		 m->inode ? "inode" : "dev");
}
