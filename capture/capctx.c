/* The capture context: client ids, strings, ordered emission of op records, outcome counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/decode.h"
#include "formats/hash.h"
#include "formats/strtab.h"

/* Calls not answered within this much capture time are emitted as unmatched. */
#define DEFAULT_MATCH_TIMEOUT_NS (30ull * 1000000000ull)
/* Slots waiting behind an unanswered call: past this the oldest is emitted as
 * unmatched, so one lost reply cannot make memory grow with the capture. */
#define MAX_SLOTS (1u << 20)
#define MAX_STATES 8
/* Recent (connection, end, principal) -> client id answers, so that an op
 * costs no key building and interning: direct-mapped, exact (a miss asks the table). */
#define CLIENT_MEMO 256
/* (status kind, protocol code) -> canonical status answers kept, direct-mapped by code. */
#define STATUS_MEMO 16

enum slot_state { SLOT_RESERVED, SLOT_DONE, SLOT_CANCELLED };

typedef struct slot {
	rp_op op;
	uint64_t reserved_at; /* capture ns */
	uint8_t state;
} slot;

typedef struct client_memo {
	uint64_t conn_id; /* 0: empty (connection ids start at 1) */
	uint64_t principal;
	uint32_t id;
	uint8_t end;
} client_memo;

typedef struct status_memo {
	uint32_t code;
	int32_t status;
	uint8_t kind; /* RP_SK_NONE: empty */
} status_memo;

typedef struct state_entry {
	const void *key;
	void *ptr;
	void (*destroy)(void *);
} state_entry;

struct rp_capctx {
	rp_sink *sink;
	rp_capture_opts opts;
	rp_capture_stats *stats;

	bool have_base;
	uint64_t base_ns; /* Unix ns of the first frame */
	uint64_t now_ns;  /* capture ns of the newest frame (monotonic) */
	uint64_t frame;

	rp_strtab *paths;
	uint32_t defined; /* paths ids 1..defined have reached the sink */
	rp_strtab *clients; /* binary client keys -> dense ids */
	client_memo memo[CLIENT_MEMO];
	status_memo status_memo[STATUS_MEMO];
	bool meta_sent;

	slot *ring; /* slots head..tail-1 live at ring[seq & (cap-1)] */
	uint32_t cap;
	uint64_t head, tail;

	state_entry states[MAX_STATES];
	unsigned n_states;
	const state_entry *last_state; /* the one asked for last: decoders ask per message */

	int err; /* first sink error */
	char errbuf[RP_ERRBUF_SIZE];
};

rp_capctx *rp__capctx_create(rp_sink *sink, const rp_capture_opts *opts, rp_capture_stats *stats)
{
	rp_capctx *const cx = calloc(1, sizeof(*cx));
	if (!cx)
		return NULL;
	cx->sink = sink;
	if (opts)
		cx->opts = *opts;
	if (!cx->opts.match_timeout_ns)
		cx->opts.match_timeout_ns = DEFAULT_MATCH_TIMEOUT_NS;
	cx->stats = stats;
	cx->paths = rp_strtab_create();
	cx->clients = rp_strtab_create();
	cx->cap = 1024;
	cx->ring = malloc(cx->cap * sizeof(*cx->ring));
	if (!cx->paths || !cx->clients || !cx->ring) {
		rp__capctx_destroy(cx);
		return NULL;
	}
	return cx;
}

void rp__capctx_destroy(rp_capctx *cx)
{
	if (!cx)
		return;
	for (unsigned i = 0; i < cx->n_states; i++)
		if (cx->states[i].destroy)
			cx->states[i].destroy(cx->states[i].ptr);
	rp_strtab_destroy(cx->paths);
	rp_strtab_destroy(cx->clients);
	free(cx->ring);
	free(cx);
}

int rp__capctx_error(const rp_capctx *cx, const char **detail)
{
	if (detail)
		*detail = cx->errbuf;
	return cx->err;
}

static void sink_failed(rp_capctx *cx, int rc)
{
	if (!cx->err) {
		cx->err = rc;
		memcpy(cx->errbuf, cx->sink->errbuf, sizeof(cx->errbuf));
		cx->errbuf[sizeof(cx->errbuf) - 1] = '\0';
	}
}

static rp_source source_of(const rp_op *op)
{
	switch (op->status_kind) {
	case RP_SK_NFS3:
	case RP_SK_NFS4:
		return RP_SRC_PCAP_NFS;
	case RP_SK_NT:
		return RP_SRC_PCAP_SMB;
	default:
		return RP_SRC_PCAP;
	}
}

/* The trace's metadata goes out with the first op, when the protocol is known. */
static void send_meta(rp_capctx *cx, const rp_op *first)
{
	rp_trace_meta meta;
	memset(&meta, 0, sizeof(meta));
	meta.source = source_of(first);
	meta.flags = RP_META_TIMED;
	meta.capture_start_ns = (int64_t)cx->base_ns;
	const int rc = cx->sink->meta(cx->sink, &meta);
	if (rc < 0)
		sink_failed(cx, rc);
	cx->meta_sent = true;
}

static void define_upto(rp_capctx *cx, uint32_t id)
{
	while (!cx->err && cx->defined < id) {
		uint32_t len = 0;
		const uint32_t next = cx->defined + 1;
		const char *const s = rp_strtab_get(cx->paths, next, &len);
		const int rc = cx->sink->string(cx->sink, next, s, len);
		if (rc < 0)
			sink_failed(cx, rc);
		cx->defined = next;
	}
}

static void output(rp_capctx *cx, const rp_op *op)
{
	if (!cx->meta_sent)
		send_meta(cx, op);
	define_upto(cx, op->path > op->path2 ? op->path : op->path2);
	if (cx->err)
		return;
	const int rc = cx->sink->op(cx->sink, op);
	if (rc < 0)
		sink_failed(cx, rc);
	else if (cx->stats)
		cx->stats->ops++;
}

/* Emit the head slot whatever its state; an unanswered call goes out as unmatched. */
static void pop_head(rp_capctx *cx)
{
	slot *const s = &cx->ring[cx->head & (cx->cap - 1)];
	if (s->state == SLOT_RESERVED) {
		rp__cap_count(cx, RP_OUT_UNMATCHED, NULL);
		s->op.flags |= RP_OPF_NO_REPLY;
		s->op.status = RP_STATUS_UNKNOWN;
		s->op.t_end = RP_TIME_UNKNOWN;
		output(cx, &s->op);
	} else if (s->state == SLOT_DONE) {
		output(cx, &s->op);
	}
	cx->head++;
}

/* Emit finished slots from the head; with force, unanswered ones too. */
static void drain(rp_capctx *cx, bool force)
{
	while (cx->head < cx->tail) {
		const slot *const s = &cx->ring[cx->head & (cx->cap - 1)];
		if (s->state == SLOT_RESERVED && !force && cx->tail - cx->head < MAX_SLOTS &&
		    cx->now_ns - s->reserved_at <= cx->opts.match_timeout_ns)
			break;
		pop_head(cx);
	}
}

void rp__capctx_frame(rp_capctx *cx, uint64_t ts_ns, uint32_t caplen)
{
	if (!cx->have_base) {
		cx->have_base = true;
		cx->base_ns = ts_ns;
	}
	const uint64_t t = rp__cap_time(cx, ts_ns);
	if (t > cx->now_ns)
		cx->now_ns = t;
	cx->frame++;
	if (cx->stats) {
		cx->stats->frames++;
		cx->stats->bytes += caplen;
	}
	drain(cx, false);
}

int rp__capctx_finish(rp_capctx *cx)
{
	drain(cx, true);
	if (!cx->err) {
		if (!cx->meta_sent) {
			const rp_op none = { .status_kind = RP_SK_NONE };
			send_meta(cx, &none);
		}
		define_upto(cx, rp_strtab_count(cx->paths));
	}
	if (!cx->err) {
		const int rc = cx->sink->finish(cx->sink);
		if (rc < 0)
			sink_failed(cx, rc);
	}
	return cx->err;
}

void rp__cap_set_status(rp_capctx *cx, rp_op *op, rp_status_kind kind, uint32_t code)
{
	status_memo *const m = &cx->status_memo[(code ^ (code >> 16) ^ kind) & (STATUS_MEMO - 1)];
	op->status_kind = (uint8_t)kind;
	op->proto_status = code;
	if (m->kind != (uint8_t)kind || m->code != code || kind == RP_SK_NONE) {
		m->kind = (uint8_t)kind;
		m->code = code;
		m->status = rp_status_from_proto(kind, code);
	}
	op->status = m->status;
}

uint64_t rp__cap_time(rp_capctx *cx, uint64_t ts_ns)
{
	return cx->have_base && ts_ns > cx->base_ns ? ts_ns - cx->base_ns : 0;
}

uint64_t rp__cap_now(const rp_capctx *cx)
{
	return cx->now_ns;
}

uint64_t rp__cap_frame(const rp_capctx *cx)
{
	return cx->frame;
}

const rp_capture_opts *rp__cap_opts(const rp_capctx *cx)
{
	return &cx->opts;
}

void rp__cap_count(rp_capctx *cx, rp_outcome what, const char *name)
{
	rp_capture_stats *const st = cx->stats;
	if (!st)
		return;
	switch (what) {
	case RP_OUT_TRUNCATED: st->truncated++; break;
	case RP_OUT_INVALID: st->invalid++; break;
	case RP_OUT_UNMATCHED: st->unmatched++; break;
	case RP_OUT_ENCRYPTED: st->encrypted++; break;
	case RP_OUT_GAP: st->gaps++; break;
	case RP_OUT_IGNORED: st->ignored++; break;
	case RP_OUT_MESSAGE: st->messages++; break;
	case RP_OUT_DECRYPTED: st->decrypted++; break;
	case RP_OUT_DECRYPT_FAILED: st->decrypt_failed++; break;
	case RP_OUT_UNSUPPORTED: {
		st->unsupported++;
		if (!name)
			name = "unnamed";
		uint32_t i = 0;
		for (; i < st->n_unsupported; i++)
			if (strncmp(st->unsupported_by_name[i].name, name, sizeof(st->unsupported_by_name[i].name) - 1) == 0)
				break;
		if (i == st->n_unsupported) {
			if (i == RP_CAP_UNSUPPORTED_MAX) {
				/* The last entry collects whatever does not fit. */
				i = RP_CAP_UNSUPPORTED_MAX - 1;
				strcpy(st->unsupported_by_name[i].name, "(other)");
			} else {
				st->n_unsupported++;
				strncpy(st->unsupported_by_name[i].name, name, sizeof(st->unsupported_by_name[i].name) - 1);
				st->unsupported_by_name[i].name[sizeof(st->unsupported_by_name[i].name) - 1] = '\0';
				st->unsupported_by_name[i].count = 0;
			}
		}
		st->unsupported_by_name[i].count++;
		break;
	}
	}
}

static uint32_t client_lookup(rp_capctx *cx, const rp_conn *conn, uint8_t client_end, uint64_t principal)
{
	uint8_t key[1 + 16 + 8 + 8];
	size_t n = 0;
	const rp_addr *const a = &conn->addr[client_end & 1];
	switch (cx->opts.client_key) {
	case RP_CLIENT_CONN:
		key[n++] = 'c';
		memcpy(key + n, &conn->id, sizeof(conn->id));
		n += sizeof(conn->id);
		break;
	case RP_CLIENT_ADDR:
	case RP_CLIENT_ADDR_PRINCIPAL:
		key[n++] = a->family;
		memcpy(key + n, a->a, 16);
		n += 16;
		if (cx->opts.client_key == RP_CLIENT_ADDR_PRINCIPAL) {
			memcpy(key + n, &principal, sizeof(principal));
			n += sizeof(principal);
		}
		break;
	}
	const int64_t id = rp_strtab_intern(cx->clients, (const char *)key, (uint32_t)n, NULL);
	return id > 0 ? (uint32_t)id : 0;
}

uint32_t rp__cap_client(rp_capctx *cx, const rp_conn *conn, uint8_t client_end, uint64_t principal)
{
	const uint64_t h = (conn->id * 0x9e3779b97f4a7c15ull) ^ (principal * 0xc2b2ae3d27d4eb4full) ^ client_end;
	client_memo *const m = &cx->memo[(h ^ (h >> 29) ^ (h >> 47)) & (CLIENT_MEMO - 1)];
	if (m->conn_id == conn->id && m->principal == principal && m->end == client_end && conn->id)
		return m->id;
	const uint32_t id = client_lookup(cx, conn, client_end, principal);
	if (id)
		*m = (client_memo){ .conn_id = conn->id, .principal = principal, .id = id, .end = client_end };
	return id;
}

uint32_t rp__cap_path(rp_capctx *cx, const char *s, size_t len)
{
	if (len > RP_STR_MAX) {
		rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return 0;
	}
	const int64_t id = rp_strtab_intern(cx->paths, s, (uint32_t)len, NULL);
	if (id < 0) {
		if (!cx->err) {
			cx->err = (int)id;
			rp_fail(cx->errbuf, (int)id, "path table: %s", rp_strerror((int)id));
		}
		return 0;
	}
	return (uint32_t)id;
}

static bool grow_ring(rp_capctx *cx)
{
	const uint32_t cap = cx->cap * 2;
	slot *const ring = malloc((size_t)cap * sizeof(*ring));
	if (!ring)
		return false;
	for (uint64_t s = cx->head; s < cx->tail; s++)
		ring[s & (cap - 1)] = cx->ring[s & (cx->cap - 1)];
	free(cx->ring);
	cx->ring = ring;
	cx->cap = cap;
	return true;
}

rp_slot rp__cap_reserve(rp_capctx *cx, const rp_op *op)
{
	if (cx->tail - cx->head == cx->cap && (cx->cap >= MAX_SLOTS || !grow_ring(cx)))
		pop_head(cx); /* full: the oldest call goes out unanswered */
	const rp_slot id = cx->tail++;
	slot *const s = &cx->ring[id & (cx->cap - 1)];
	s->op = *op;
	s->op.flags |= RP_OPF_NO_REPLY;
	s->reserved_at = cx->now_ns;
	s->state = SLOT_RESERVED;
	return id;
}

rp_op *rp__cap_slot(rp_capctx *cx, rp_slot id)
{
	if (id == RP_SLOT_NONE || id < cx->head || id >= cx->tail)
		return NULL;
	slot *const s = &cx->ring[id & (cx->cap - 1)];
	return s->state == SLOT_CANCELLED ? NULL : &s->op;
}

void rp__cap_done(rp_capctx *cx, rp_slot id)
{
	if (id == RP_SLOT_NONE || id < cx->head || id >= cx->tail)
		return;
	slot *const s = &cx->ring[id & (cx->cap - 1)];
	if (s->state == SLOT_RESERVED)
		s->state = SLOT_DONE;
	if (id == cx->head)
		drain(cx, false);
}

void rp__cap_cancel(rp_capctx *cx, rp_slot id)
{
	if (id == RP_SLOT_NONE || id < cx->head || id >= cx->tail)
		return;
	cx->ring[id & (cx->cap - 1)].state = SLOT_CANCELLED;
	if (id == cx->head)
		drain(cx, false);
}

void rp__cap_emit(rp_capctx *cx, const rp_op *op)
{
	const rp_slot id = rp__cap_reserve(cx, op);
	cx->ring[id & (cx->cap - 1)].op = *op; /* as given: no NO_REPLY flag added */
	rp__cap_done(cx, id);
}

void *rp__cap_state(rp_capctx *cx, const void *key, void *(*create)(void), void (*destroy)(void *))
{
	if (cx->last_state && cx->last_state->key == key)
		return cx->last_state->ptr;
	for (unsigned i = 0; i < cx->n_states; i++)
		if (cx->states[i].key == key) {
			cx->last_state = &cx->states[i];
			return cx->states[i].ptr;
		}
	if (cx->n_states == MAX_STATES)
		return NULL;
	void *const ptr = create();
	if (!ptr)
		return NULL;
	cx->states[cx->n_states++] = (state_entry){ .key = key, .ptr = ptr, .destroy = destroy };
	return ptr;
}

size_t rp__cap_synth_path(char *buf, size_t size, const char *proto, const uint8_t *fh, size_t fh_len)
{
	const uint64_t h = rp_fnv1a64(RP_FNV64_OFFSET, fh, fh_len); /* stable across runs and machines */
	const int n = snprintf(buf, size, "/.reprise/%s/%016llx", proto, (unsigned long long)h);
	return n < 0 ? 0 : ((size_t)n < size ? (size_t)n : size - 1);
}
