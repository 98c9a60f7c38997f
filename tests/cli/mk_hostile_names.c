/* Writes an .rpz whose host, input name and op path hold ESC [ 2 J and a newline (tests/cli/outputs.sh). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "formats/rpz.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mk-hostile-names OUT.rpz\n");
		return 2;
	}
	char errbuf[RP_ERRBUF_SIZE] = "";
	rp_rpz_writer *w = NULL;
	if (rp_rpz_writer_open(&w, argv[1], NULL, errbuf) < 0) {
		fprintf(stderr, "%s\n", errbuf);
		return 1;
	}
	rp_sink *const s = rp_rpz_writer_sink(w);
	rp_trace_meta m = { .source = RP_SRC_SYNTHETIC };
	strcpy(m.host, "h\033[2J\nost");
	strcpy(m.source_name, "in\033[2J\nput");
	static const char path[] = "/dir/\033[2J\nevil\233"; /* and a C1 CSI byte */
	/* A stat the trace says failed with ENOENT: on the null backend it succeeds, a mismatch naming the path. */
	const rp_op op = { .op = RP_OP_STAT, .path = 1, .status = ENOENT, .t_end = RP_TIME_UNKNOWN };
	int rc = s->meta(s, &m);
	if (rc == 0)
		rc = s->string(s, 1, path, (uint32_t)strlen(path));
	if (rc == 0)
		rc = s->op(s, &op);
	if (rc < 0)
		fprintf(stderr, "%s\n", s->errbuf);
	if (rp_rpz_writer_close(w, errbuf) < 0) {
		fprintf(stderr, "%s\n", errbuf);
		rc = -1;
	}
	return rc < 0 ? 1 : 0;
}
