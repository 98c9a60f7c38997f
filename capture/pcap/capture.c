/* The public capture API (capture/capture.h): transport layers + protocol decoders + capctx over a sink. */
#include "capture/capture.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "capture/decode.h"
#include "capture/pcap/pcapfile.h"
#include "capture/net/transport.h"

struct rp_capture {
	rp_sink wrap; /* forwards to sink, filling in what capctx cannot know (source name, host) */
	rp_sink *sink;
	rp_capctx *cx;
	rp_transport *tr;
	rp_capture_stats stats;
	char source[RP_META_NAME_MAX];
	char host[RP_META_HOST_MAX];
	int err;
	bool finished;
};

/* ---- the forwarding sink ---- */

static int fwd_result(rp_capture *cap, int rc)
{
	if (rc < 0)
		memcpy(cap->wrap.errbuf, cap->sink->errbuf, sizeof(cap->wrap.errbuf));
	return rc;
}

static int w_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_capture *const cap = (rp_capture *)s;
	rp_trace_meta m = *meta;
	if (!m.source_name[0])
		memcpy(m.source_name, cap->source, sizeof(m.source_name));
	if (!m.host[0])
		memcpy(m.host, cap->host, sizeof(m.host));
	return fwd_result(cap, cap->sink->meta(cap->sink, &m));
}

static int w_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_capture *const cap = (rp_capture *)s;
	return fwd_result(cap, cap->sink->string(cap->sink, id, str, len));
}

static int w_op(rp_sink *s, const rp_op *op)
{
	rp_capture *const cap = (rp_capture *)s;
	return fwd_result(cap, cap->sink->op(cap->sink, op));
}

static int w_finish(rp_sink *s)
{
	rp_capture *const cap = (rp_capture *)s;
	return fwd_result(cap, cap->sink->finish(cap->sink));
}

/* ---- hooks: transport -> decoders ---- */

static void on_message(void *user, rp_conn *conn, rp_app app, const rp_msg *m)
{
	rp_capctx *const cx = user;
	if (app == RP_APP_RPC)
		(void)rp__rpc_message(cx, conn, m);
	else if (app == RP_APP_SMB)
		(void)rp__smb_message(cx, conn, m);
}

static void on_count(void *user, rp_outcome what, const char *name)
{
	rp__cap_count(user, what, name);
}

/* ---- API ---- */

int rp_capture_create(rp_capture **out, rp_sink *sink, const rp_capture_opts *opts, char *errbuf)
{
	*out = NULL;
	rp_capture *const cap = calloc(1, sizeof(*cap));
	if (!cap)
		return rp_fail(errbuf, RP_E_NOMEM, "capture: out of memory");
	cap->sink = sink;
	cap->wrap.meta = w_meta;
	cap->wrap.string = w_string;
	cap->wrap.op = w_op;
	cap->wrap.finish = w_finish;
	cap->cx = rp__capctx_create(&cap->wrap, opts, &cap->stats);
	if (!cap->cx) {
		free(cap);
		return rp_fail(errbuf, RP_E_NOMEM, "capture: out of memory");
	}
	const rp_transport_hooks hooks = { .user = cap->cx, .message = on_message, .count = on_count };
	const rp_transport_limits lim = { .max_flows = opts ? opts->max_flows : 0 };
	const int rc = rp__transport_create(&cap->tr, &hooks, &lim, &cap->stats);
	if (rc < 0) {
		rp__capctx_destroy(cap->cx);
		free(cap);
		return rp_fail(errbuf, rc, "capture: out of memory");
	}
	*out = cap;
	return 0;
}

void rp_capture_set_source(rp_capture *cap, const char *source, const char *host)
{
	snprintf(cap->source, sizeof(cap->source), "%s", source ? source : "");
	snprintf(cap->host, sizeof(cap->host), "%s", host ? host : "");
}

int rp_capture_packet(rp_capture *cap, int dlt, uint64_t ts_ns, const uint8_t *data, uint32_t caplen,
		      uint32_t wirelen)
{
	if (cap->err)
		return cap->err;
	rp__capctx_frame(cap->cx, ts_ns, caplen);
	rp__transport_packet(cap->tr, dlt, ts_ns, data, caplen, wirelen);
	const int rc = rp__capctx_error(cap->cx, NULL);
	if (rc < 0)
		cap->err = rc;
	return rc;
}

int rp_capture_finish(rp_capture *cap)
{
	if (cap->finished)
		return cap->err;
	cap->finished = true;
	rp__transport_finish(cap->tr);
	const int rc = rp__capctx_finish(cap->cx);
	if (rc < 0 && !cap->err)
		cap->err = rc;
	return cap->err;
}

void rp__capture_count(rp_capture *cap, rp_outcome what)
{
	rp__cap_count(cap->cx, what, NULL);
}

void rp__capture_file_cut(rp_capture *cap)
{
	rp__cap_count(cap->cx, RP_OUT_TRUNCATED, NULL);
	cap->stats.file_cut = true;
}

const rp_capture_stats *rp_capture_get_stats(const rp_capture *cap)
{
	return &cap->stats;
}

const char *rp_capture_error(const rp_capture *cap)
{
	const char *detail = "";
	if (rp__capctx_error(cap->cx, &detail) == 0)
		return "";
	return detail;
}

void rp_capture_destroy(rp_capture *cap)
{
	if (!cap)
		return;
	rp__transport_destroy(cap->tr); /* conns first: their decoder state may point into capctx's */
	rp__capctx_destroy(cap->cx);
	free(cap);
}

/* ---- summary ---- */

bool rp_capture_stats_no_file_traffic(const rp_capture_stats *st)
{
	return st->frames && !st->messages;
}

bool rp_capture_stats_lossy(const rp_capture_stats *st)
{
	return st->truncated || st->invalid || st->unsupported || st->unmatched || st->encrypted || st->decrypt_failed ||
	       st->gaps || st->kernel_drops || st->file_cut || rp_capture_stats_no_file_traffic(st);
}

/* "no NFS or SMB message in 14 frames (2 other protocols: TCP port 8000 12 frames, not IP 2 frames): wrong port?" */
static void print_no_file_traffic(const rp_capture_stats *st, FILE *f)
{
	fprintf(f, "  no NFS or SMB message in %" PRIu64 " frame%s", st->frames, st->frames == 1 ? "" : "s");
	if (st->n_other) {
		fprintf(f, " (%" PRIu32 "%s other protocol%s:", st->n_other, st->other_beyond ? "+" : "",
			st->n_other == 1 && !st->other_beyond ? "" : "s");
		/* the most frames first (a handful of kinds: a selection, each time the largest left) */
		bool shown[RP_CAP_OTHER_MAX] = { false };
		for (uint32_t k = 0; k < st->n_other && k < RP_CAP_OTHER_MAX; k++) {
			uint32_t best = RP_CAP_OTHER_MAX;
			for (uint32_t i = 0; i < st->n_other && i < RP_CAP_OTHER_MAX; i++)
				if (!shown[i] && (best == RP_CAP_OTHER_MAX || st->other_by_kind[i].frames > st->other_by_kind[best].frames))
					best = i;
			shown[best] = true;
			fprintf(f, "%s %s %" PRIu64 " frame%s", k ? "," : "", st->other_by_kind[best].name,
				st->other_by_kind[best].frames, st->other_by_kind[best].frames == 1 ? "" : "s");
		}
		if (st->other_beyond)
			fprintf(f, ", others %" PRIu64 " frames", st->other_beyond);
		fputc(')', f);
	}
	fputs(": wrong port? (NFS, MOUNT and SMB are found by content on any port: capture the server's traffic)\n", f);
}

void rp_capture_stats_print(const rp_capture_stats *st, FILE *f)
{
	fprintf(f,
		"frames %" PRIu64 ", ops %" PRIu64 ", messages %" PRIu64 ", truncated %" PRIu64 ", invalid %" PRIu64
		", unsupported %" PRIu64 ", unmatched %" PRIu64 ", encrypted %" PRIu64 ", gaps %" PRIu64
		", ignored %" PRIu64,
		st->frames, st->ops, st->messages, st->truncated, st->invalid, st->unsupported, st->unmatched,
		st->encrypted, st->gaps, st->ignored);
	if (st->kernel_drops || st->live)
		fprintf(f, ", kernel drops %" PRIu64, st->kernel_drops);
	if (st->segments_dropped)
		fprintf(f, ", segments dropped %" PRIu64, st->segments_dropped);
	if (st->tcp_queue_full)
		fprintf(f, ", out-of-order bound reached %" PRIu64, st->tcp_queue_full);
	if (st->frags_dropped)
		fprintf(f, ", fragmented datagrams dropped %" PRIu64, st->frags_dropped);
	if (st->flows_evicted)
		fprintf(f, ", flows evicted %" PRIu64, st->flows_evicted);
	if (st->decrypted || st->decrypt_failed)
		fprintf(f, ", decrypted %" PRIu64 ", decrypt failed %" PRIu64, st->decrypted, st->decrypt_failed);
	fputc('\n', f);
	if (st->encrypted)
		fprintf(f, "  encrypted: %" PRIu64 " SMB3 messages had no key for their session: give the keys with "
			   "--smb-key SESSIONID:KEY[:S2C:C2S] or --smb-keys FILE (docs/capture.md)\n", st->encrypted);
	if (st->decrypt_failed)
		fprintf(f, "  decrypt failed: %" PRIu64 " SMB3 messages did not verify with the key given for their "
			   "session (a wrong key, S2C and C2S swapped, or a 3.1.1 session whose NEGOTIATE was not captured: "
			   "give S2C:C2S)\n", st->decrypt_failed);
	if (rp_capture_stats_no_file_traffic(st))
		print_no_file_traffic(st, f);
	if (st->file_cut)
		fputs("  truncated dump file: the capture ends inside a packet record (cut short: the ops of later "
		      "packets are missing)\n",
		      f);
	for (uint32_t i = 0; i < st->n_unsupported && i < RP_CAP_UNSUPPORTED_MAX; i++)
		fprintf(f, "  unsupported %s: %" PRIu64 "\n", st->unsupported_by_name[i].name,
			st->unsupported_by_name[i].count);
}
