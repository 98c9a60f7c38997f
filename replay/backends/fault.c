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
} fault_backend;

typedef struct fault_client {
	_Atomic uint64_t next_handle;
	_Atomic uint64_t seen[RP_OP__COUNT];
} fault_client;

static const rp_backend_opt fault_opts[] = {
	{ "fail", "OP[@N[-M|+]][:ERR]",
	  "fail op OP (its Nth, Nth to Mth, Nth onwards, or every one, counted per client) with ERR "
	  "(a name like ENOSPC or a number; default EIO); repeatable" },
	{ "delay", "DURATION",
	  "every op takes this long (a sleep: 2ms, 500us, 1s), a slow server for --max-inflight" },
	{ NULL, NULL, NULL },
};

static int errno_from_name(const char *s)
{
	char *end;
	const long n = strtol(s, &end, 10);
	if (end != s && *end == '\0')
		return n > 0 && n < 4096 ? (int)n : -1;
	for (int e = 1; e < 200; e++) {
		const char *const name = strerrorname_np(e);
		if (name && strcmp(name, s) == 0)
			return e;
	}
	return -1;
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
		char *end;
		r->from = strtoull(at + 1, &end, 10);
		if (end == at + 1 || r->from == 0)
			return rp_fail(errbuf, RP_E_INVAL, "fault: bad count in '%s' (counts start at 1)", spec);
		if (*end == '\0')
			r->to = r->from;
		else if (strcmp(end, "+") == 0)
			r->to = UINT64_MAX;
		else if (*end == '-') {
			char *end2;
			r->to = strtoull(end + 1, &end2, 10);
			if (end2 == end + 1 || *end2 || r->to < r->from)
				return rp_fail(errbuf, RP_E_INVAL, "fault: bad range in '%s'", spec);
		} else
			return rp_fail(errbuf, RP_E_INVAL, "fault: bad count in '%s'", spec);
	}
	const int op = rp_op_from_name(buf, strlen(buf));
	if (op < 0)
		return rp_fail(errbuf, RP_E_INVAL, "fault: unknown op '%s' in '%s'", buf, spec);
	r->op = (unsigned)op;
	return 0;
}

/* "2ms", "500us", "100ns", "1.5s" or "1" (seconds) -> ns; -1 if bad or over an hour. */
static int64_t parse_delay(const char *s)
{
	char *end;
	errno = 0;
	const double v = strtod(s, &end);
	if (errno || end == s || !(v >= 0))
		return -1;
	double scale = 1e9;
	if (strcmp(end, "ms") == 0)
		scale = 1e6;
	else if (strcmp(end, "us") == 0)
		scale = 1e3;
	else if (strcmp(end, "ns") == 0)
		scale = 1;
	else if (*end && strcmp(end, "s") != 0)
		return -1;
	const double ns = v * scale;
	return ns <= 3600e9 ? (int64_t)ns : -1;
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
	for (size_t i = 0; i < args->n_kv; i++) {
		if (strcmp(args->kv[i].key, "delay") == 0) {
			const int64_t ns = parse_delay(args->kv[i].value);
			if (ns < 0) {
				free(fb->rules);
				free(fb);
				return rp_fail(errbuf, RP_E_INVAL, "fault: bad delay '%s' (a duration: 2ms, 500us, 1s)",
					       args->kv[i].value);
			}
			fb->delay_ns = (uint64_t)ns;
			continue;
		}
		if (strcmp(args->kv[i].key, "fail") != 0)
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
	(void)backend, (void)dir, (void)errbuf;
	fault_client *const c = client;
	atomic_init(&c->next_handle, 1);
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
	.create = fault_create,
	.destroy = fault_destroy,
	.client_init = fault_client_init,
	.client_fini = fault_client_fini,
	.submit = fault_submit,
	.poll = NULL,
	.release = fault_release,
};
