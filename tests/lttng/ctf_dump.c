/* ctf-dump DIR: the reprise events of a CTF trace as rp_ctf_read orders them, in a text the lttng test compares. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "converters/ctf.h"
#include "formats/error.h"

/*
 * Pids and tids are numbered in order of first appearance (1, 2, ...) so the
 * text does not depend on the run; so is the parent pid of START and FORK
 * (0 when it is no traced process).  Times are left out; their order is
 * checked instead (each event starts no earlier than the one before).
 */
#define IDS_MAX 256

typedef struct dump {
	uint32_t ids[IDS_MAX];
	size_t n;
	uint64_t last_start;
	uint64_t out_of_order;
} dump;

static unsigned id_of(dump *d, uint32_t raw, int add)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->ids[i] == raw)
			return (unsigned)i + 1;
	if (!add || d->n == IDS_MAX)
		return 0;
	d->ids[d->n++] = raw;
	return (unsigned)d->n;
}

static void put_path(const char *name, const char *p, uint32_t len)
{
	if (!p)
		return;
	printf(" %s=\"", name);
	for (uint32_t i = 0; i < len; i++) {
		const unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static int on_event(void *ctx, const rp_sysev *ev)
{
	dump *const d = ctx;
	if (ev->t_start < d->last_start)
		d->out_of_order++;
	d->last_start = ev->t_start;
	static const char *const names[] = {
#define NAME(e, n, name) [n] = name,
		RP_SYSEV_MAP(NAME)
#undef NAME
	};
	const char *const name = ev->nr < sizeof(names) / sizeof(names[0]) && names[ev->nr] ? names[ev->nr] : "?";
	const unsigned pid = id_of(d, ev->pid, 1), tid = id_of(d, ev->tid, 1);
	int64_t a0 = ev->a[0];
	if (ev->nr == RP_SYSEV_START || ev->nr == RP_SYSEV_FORK)
		a0 = id_of(d, (uint32_t)ev->a[0], 0);
	printf("%s pid=%u tid=%u ret=%" PRId64 " flags=%u a=%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
	       ",%" PRId64,
	       name, pid, tid, ev->ret, ev->flags, a0, ev->a[1], ev->a[2], ev->a[3], ev->a[4], ev->a[5]);
	put_path("p0", ev->p[0], ev->plen[0]);
	put_path("p1", ev->p[1], ev->plen[1]);
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ctf-dump DIR\n");
		return 2;
	}
	dump d = { .n = 0 };
	rp_ctf_stats st;
	char errbuf[RP_ERRBUF_SIZE] = "";
	const int rc = rp_ctf_read(argv[1], on_event, NULL, &d, &st, errbuf);
	char summary[1024];
	rp_ctf_summary(&st, NULL, summary, sizeof(summary));
	fprintf(stderr, "%s\n", summary);
	if (rc < 0) {
		fprintf(stderr, "ctf-dump: %s\n", errbuf);
		return 1;
	}
	printf("order: %s\n", d.out_of_order ? "out of order" : "by start time");
	printf("clock: %s\n", st.have_clock && st.clock_offset_ns > 0 ? "offset from the epoch" : "none");
	return 0;
}
