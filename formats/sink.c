/* Sink helpers and the in-memory sink. */
#include "formats/sink.h"

#include <stdlib.h>
#include <string.h>

const char *rp_source_name(uint32_t source)
{
	static const char *const names[] = {
		[RP_SRC_UNKNOWN] = "unknown",
		[RP_SRC_LOADFILE_SMB] = "loadfile-smb",
		[RP_SRC_LOADFILE_NFS] = "loadfile-nfs",
		[RP_SRC_PCAP_SMB] = "pcap-smb",
		[RP_SRC_PCAP_NFS] = "pcap-nfs",
		[RP_SRC_PCAP] = "pcap",
		[RP_SRC_SYSCALL] = "syscall",
		[RP_SRC_STRACE] = "strace",
		[RP_SRC_CTF] = "ctf",
		[RP_SRC_SYNTHETIC] = "synthetic",
		[RP_SRC_NFSDUMP] = "nfsdump",
		[RP_SRC_CSV] = "csv",
		[RP_SRC_MIXED] = "mixed",
	};
	return source < sizeof(names) / sizeof(names[0]) ? names[source] : "unknown";
}

int64_t rp_sink_intern(rp_sink *s, rp_strtab *tab, const char *str, uint32_t len)
{
	int added = 0;
	const int64_t id = rp_strtab_intern(tab, str, len, &added);
	if (id < 0)
		return rp_fail(s->errbuf, (int)id, "string table: %s", rp_strerror((int)id));
	if (added) {
		const int rc = s->string(s, (uint32_t)id, str, len);
		if (rc < 0)
			return rc;
	}
	return id;
}

static int mem_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_memsink *const m = (rp_memsink *)s;
	m->meta = *meta;
	return 0;
}

static int mem_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_memsink *const m = (rp_memsink *)s;
	if (id != rp_strtab_count(m->strings) + 1)
		return rp_fail(s->errbuf, RP_E_STATE, "string id %u out of order", id);
	const int64_t got = rp_strtab_append(m->strings, str, len);
	return got < 0 ? rp_fail(s->errbuf, (int)got, "memsink: %s", rp_strerror((int)got)) : 0;
}

static int mem_op(rp_sink *s, const rp_op *op)
{
	rp_memsink *const m = (rp_memsink *)s;
	if (m->max_ops && m->n_ops == m->max_ops)
		return rp_fail(s->errbuf, RP_E_LIMIT, "more than %zu ops to hold in memory", m->max_ops);
	if (m->n_ops == m->cap_ops) {
		size_t cap = m->cap_ops ? m->cap_ops * 2 : 1024;
		if (m->max_ops && cap > m->max_ops)
			cap = m->max_ops;
		rp_op *const ops = realloc(m->ops, cap * sizeof(*ops));
		if (!ops)
			return rp_fail(s->errbuf, RP_E_NOMEM, "memsink: out of memory");
		m->ops = ops;
		m->cap_ops = cap;
	}
	m->ops[m->n_ops++] = *op;
	return 0;
}

static int mem_finish(rp_sink *s)
{
	((rp_memsink *)s)->finished = 1;
	return 0;
}

int rp_memsink_init(rp_memsink *m)
{
	memset(m, 0, sizeof(*m));
	m->base.meta = mem_meta;
	m->base.string = mem_string;
	m->base.op = mem_op;
	m->base.finish = mem_finish;
	m->strings = rp_strtab_create();
	return m->strings ? 0 : RP_E_NOMEM;
}

void rp_memsink_fini(rp_memsink *m)
{
	rp_strtab_destroy(m->strings);
	free(m->ops);
	memset(m, 0, sizeof(*m));
}

const char *rp_memsink_string(void *memsink, uint32_t id, uint32_t *len)
{
	return rp_strtab_get(((rp_memsink *)memsink)->strings, id, len);
}
