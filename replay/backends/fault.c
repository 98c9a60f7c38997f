/*
 * The fault backend: like null, but fails chosen ops with chosen errors
 * (fail=OP[@N[-M|+]][:ERRNO]) and can take a fixed time per op (delay=DURATION).
 * One client state may serve a client's window workers at once (RP_BCAP_MT_CLIENT),
 * so the per-client counts stay per client.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/backend.h"

typedef struct fault_rule {
	unsigned op;       /* rp_opcode */
	uint64_t from, to; /* per-client 1-based count of that op, inclusive */
	int err;
} fault_rule;

typedef struct fault_backend {
	fault_rule *rules;
	size_t n_rules;
	uint64_t delay_ns; /* each op takes this long (a sleep), 0 = none */
	_Atomic uint64_t states; /* client states made: their handles start at serial << 40 (unique in the run) */
} fault_backend;

typedef struct fault_client {
	_Atomic uint64_t next_handle;
	_Atomic uint64_t seen[RP_OP__COUNT];
} fault_client;

enum { F_OPT_FAIL, F_OPT_DELAY, F_OPT__COUNT };

static const rp_backend_opt fault_opts[] = {
	[F_OPT_FAIL] = { .name = "fail", .type = RP_BOPT_STRING, .arg = "OP[@N[-M|+]][:ERR]", .repeat = true,
			 .help = "fail op OP (its Nth, Nth to Mth, Nth onwards, or every one, counted per client) with ERR "
				 "(a name like ENOSPC or a number; default EIO)" },
	[F_OPT_DELAY] = { .name = "delay", .type = RP_BOPT_DURATION, .def = "0", .max = 3600000000000u,
			  .help = "every op takes this long (a sleep: 2ms, 500us, 1s), a slow server for --max-inflight" },
	[F_OPT__COUNT] = { .name = NULL },
};

/* The numbers inside a rule, parsed by the engine's typed parser like any option value. */
static const rp_backend_opt count_opt = { .name = "fail", .type = RP_BOPT_UINT, .min = 1, .help = "" };
static const rp_backend_opt errno_opt = { .name = "fail", .type = RP_BOPT_UINT, .min = 1, .max = 4095, .help = "" };

static int errno_from_name(const char *s)
{
	uint64_t n;
	if (s[0] >= '0' && s[0] <= '9')
		return rp_backend_parse_value(&errno_opt, s, &n, NULL) == 0 ? (int)n : -1;
	for (int e = 1; e < 200; e++) {
		const char *const name = strerrorname_np(e);
		if (name && strcmp(name, s) == 0)
			return e;
	}
	return -1;
}

/* "N-M", "N+" or "N" after a rule's '@'. */
static int parse_count(char *count, fault_rule *r, const char *spec, char *errbuf)
{
	const size_t len = strlen(count);
	const bool onwards = len > 0 && count[len - 1] == '+';
	if (onwards)
		count[len - 1] = '\0';
	char *const dash = strchr(count, '-');
	if (dash)
		*dash = '\0';
	if (rp_backend_parse_value(&count_opt, count, &r->from, NULL) < 0)
		return rp_fail(errbuf, RP_E_INVAL, "fault: bad count in '%s' (counts start at 1)", spec);
	r->to = onwards ? UINT64_MAX : r->from;
	if (dash && (onwards || rp_backend_parse_value(&count_opt, dash + 1, &r->to, NULL) < 0 || r->to < r->from))
		return rp_fail(errbuf, RP_E_INVAL, "fault: bad range in '%s'", spec);
	return 0;
}

static int parse_rule(const char *spec, fault_rule *r, char *errbuf)
{
	char buf[128];
	if (strlen(spec) >= sizeof(buf))
		return rp_fail(errbuf, RP_E_INVAL, "fault: rule too long: %s", spec);
	strcpy(buf, spec);
	r->from = 1;
	r->to = UINT64_MAX;
	r->err = EIO;
	char *const colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		r->err = errno_from_name(colon + 1);
		if (r->err < 0)
			return rp_fail(errbuf, RP_E_INVAL, "fault: unknown error '%s' in '%s'", colon + 1, spec);
	}
	char *const at = strchr(buf, '@');
	if (at) {
		*at = '\0';
		const int rc = parse_count(at + 1, r, spec, errbuf);
		if (rc < 0)
			return rc;
	}
	const int op = rp_op_from_name(buf, strlen(buf));
	if (op < 0)
		return rp_fail(errbuf, RP_E_INVAL, "fault: unknown op '%s' in '%s'", buf, spec);
	r->op = (unsigned)op;
	return 0;
}

static int fault_create(void **out, const rp_backend_args *args, char *errbuf)
{
	fault_backend *const fb = calloc(1, sizeof(*fb));
	if (!fb)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	fb->rules = calloc(args->n_kv ? args->n_kv : 1, sizeof(*fb->rules));
	if (!fb->rules) {
		free(fb);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	fb->delay_ns = args->vals[F_OPT_DELAY].u;
	for (size_t i = 0; i < args->n_kv; i++) {
		if (args->kv[i].opt != &fault_opts[F_OPT_FAIL])
			continue;
		const int rc = parse_rule(args->kv[i].value, &fb->rules[fb->n_rules], errbuf);
		if (rc < 0) {
			free(fb->rules);
			free(fb);
			return rc;
		}
		fb->n_rules++;
	}
	*out = fb;
	return 0;
}

static void fault_destroy(void *backend)
{
	fault_backend *const fb = backend;
	if (fb)
		free(fb->rules);
	free(fb);
}

static int fault_client_init(void *backend, void *client, const char *dir, char *errbuf)
{
	(void)dir, (void)errbuf;
	fault_backend *const fb = backend;
	fault_client *const c = client;
	atomic_init(&c->next_handle, atomic_fetch_add_explicit(&fb->states, 1, memory_order_relaxed) << 40 | 1);
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		atomic_init(&c->seen[i], 0);
	return 0;
}

static void fault_client_fini(void *backend, void *client)
{
	(void)backend, (void)client;
}

static int fault_submit(void *backend, void *client, rp_breq *req)
{
	const fault_backend *const fb = backend;
	fault_client *const c = client;
	const unsigned op = req->op->op;
	/* The Nth op of a kind is the Nth to reach the backend (with --max-inflight, in the order they do). */
	const uint64_t n = op < RP_OP__COUNT ? atomic_fetch_add_explicit(&c->seen[op], 1, memory_order_relaxed) + 1 : 0;
	if (fb->delay_ns) {
		struct timespec ts = { (time_t)(fb->delay_ns / 1000000000u), (long)(fb->delay_ns % 1000000000u) };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	req->status = req->no_handle ? EBADF : 0;
	req->result = req->no_handle ? 0 : op == RP_OP_READ || op == RP_OP_WRITE ? req->op->length : req->op->result;
	for (size_t i = 0; i < fb->n_rules; i++) {
		const fault_rule *const r = &fb->rules[i];
		if (r->op == op && n >= r->from && n <= r->to) {
			req->status = r->err;
			req->result = 0;
			break;
		}
	}
	if (op == RP_OP_OPEN && req->status == 0)
		req->bh = atomic_fetch_add_explicit(&c->next_handle, 1, memory_order_relaxed);
	if (req->cb)
		req->cb(req);
	return 0;
}

static void fault_release(void *backend, void *client, uint64_t bh)
{
	(void)backend, (void)client, (void)bh;
}

const rp_backend_ops rp__backend_fault = {
	.version = RP_BACKEND_VERSION,
	.name = "fault",
	.summary = "for tests: like null, but fails the ops named by fail= rules and takes delay= per op",
	.caps = RP_BCAP_CONFINED | RP_BCAP_MT_CLIENT,
	.client_size = sizeof(fault_client),
	.opts = fault_opts,
	.op_mask = RP_BACKEND_ALL_OPS,
	.create = fault_create,
	.destroy = fault_destroy,
	.client_init = fault_client_init,
	.client_fini = fault_client_fini,
	.submit = fault_submit,
	.poll = NULL,
	.release = fault_release,
};
