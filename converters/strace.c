/* strace logs -> op records: processes, unfinished calls, emission in call order, counters (docs/strace.md). */
#include "converters/lines.h"
#include "converters/strace.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "converters/strace_int.h"
#include "formats/status.h"

/*
 * Calls wait in the ring behind an unfinished one until it resumes; a call
 * that stays unfinished while this many later ones finish (a read of a pipe
 * that never returns) leaves as an op without a reply, as capture's match
 * timeout does, so memory stays bounded whatever the log holds.
 */
#define RING_MAX (1u << 18)

enum { SLOT_PENDING = 1, SLOT_DONE, SLOT_CANCELLED };

static const char *const bad_names[RP__ST_BAD__COUNT] = {
	"too long", "not strace syntax", "bad arguments", "resumed without unfinished", "beyond 8192 processes",
	"path too long", "no timestamp", "no duration",
};

static int bad(rp_strace *t, rp__st_bad why, const char *detail, char *errbuf)
{
	t->bad[why]++;
	if (t->opts.lenient) {
		t->skipped++;
		return 0;
	}
	return rp_fail(errbuf, RP_E_INVAL, "%s:%" PRIu64 ": %s", t->name, t->line, detail ? detail : bad_names[why]);
}

/* ---- the model's sink: ops counted (one client's kept) on their way out ---- */

static rp_strace *of_out(rp_sink *s)
{
	return (rp_strace *)(void *)((char *)s - offsetof(rp_strace, out));
}

static int out_rc(rp_strace *t, int rc)
{
	if (rc < 0)
		snprintf(t->out.errbuf, sizeof(t->out.errbuf), "%s", t->sink->errbuf);
	return rc;
}

static int out_meta(rp_sink *s, const rp_trace_meta *meta)
{
	rp_strace *const t = of_out(s);
	return out_rc(t, t->sink->meta(t->sink, meta));
}

static int out_string(rp_sink *s, uint32_t id, const char *str, uint32_t len)
{
	rp_strace *const t = of_out(s);
	return out_rc(t, t->sink->string(t->sink, id, str, len));
}

static int out_op(rp_sink *s, const rp_op *op)
{
	rp_strace *const t = of_out(s);
	if (t->opts.filter_client && op->client != t->opts.client)
		return 0;
	const int rc = out_rc(t, t->sink->op(t->sink, op));
	t->ops += rc == 0;
	return rc;
}

static int out_finish(rp_sink *s)
{
	rp_strace *const t = of_out(s);
	return out_rc(t, t->sink->finish(t->sink));
}

/* ---- processes: strace's pids, the model's ---- */

static uint32_t bucket(uint32_t pid)
{
	return (uint32_t)((pid * 2654435761u) >> 8) & (RP__ST_PROC_BUCKETS - 1);
}

/* The process of pid, made on first sight (*fresh: a new client); NULL past the client limit. */
static rp__st_proc *proc_get(rp_strace *t, uint32_t pid, bool *fresh)
{
	*fresh = false;
	uint32_t h = bucket(pid);
	for (uint32_t i = 0; i < RP__ST_PROC_BUCKETS; i++, h = (h + 1) & (RP__ST_PROC_BUCKETS - 1)) {
		rp__st_proc *const p = &t->procs[h];
		if (p->used && p->pid != pid)
			continue;
		if (p->used && !p->dead)
			return p;
		/* new, or a pid reused after its process exited: a new client */
		if (t->n_clients == RP__ST_CLIENTS_MAX)
			return NULL;
		t->n_clients++;
		free(p->pend_name);
		free(p->pend_body);
		*p = (rp__st_proc){ .pid = pid, .mpid = pid, .members = 1, .used = true };
		*fresh = true;
		return p;
	}
	return NULL;
}

/* The process last known by pid, live or exited; NULL if none was seen (nothing is made). */
static rp__st_proc *proc_find(rp_strace *t, uint32_t pid)
{
	uint32_t h = bucket(pid);
	for (uint32_t i = 0; i < RP__ST_PROC_BUCKETS; i++, h = (h + 1) & (RP__ST_PROC_BUCKETS - 1)) {
		rp__st_proc *const p = &t->procs[h];
		if (!p->used)
			return NULL;
		if (p->pid == pid)
			return p; /* a reused pid takes its old slot: one entry per pid */
	}
	return NULL;
}

/* ---- the ring: calls in the order they started, their events sent when every earlier one is done ---- */

static rp__st_slot *slot_at(rp_strace *t, uint64_t id)
{
	return &t->ring[id & (t->cap - 1)];
}

/* The slot's events to the model, their paths pointed into the slot's buffer. */
static int feed(rp_strace *t, rp__st_slot *s)
{
	const rp__st_batch *const b = &s->b;
	for (unsigned i = 0; i <= b->n_names; i++) {
		rp_sysev e = { .t_start = b->t_start, .t_end = b->t_end };
		if (i == b->before) { /* the call's event, between the names of its arguments and of its result */
			if (!b->has_ev)
				continue;
			const rp__st_ev *const w = &b->ev;
			e.nr = w->nr;
			e.flags = w->flags;
			e.pid = w->pid;
			e.tid = w->tid;
			e.ret = w->ret;
			memcpy(e.a, w->a, sizeof(e.a));
			for (unsigned j = 0; j < 2; j++)
				if (w->has & (1u << j)) {
					e.p[j] = b->buf ? b->buf + w->off[j] : ""; /* an empty path before the slot had a buffer */
					e.plen[j] = w->plen[j];
				}
		} else {
			const rp__st_fdname *const n = &b->names[i < b->before ? i : i - 1];
			e.nr = RP_SYSEV_FD;
			e.pid = b->pid;
			e.tid = b->tid;
			e.a[0] = n->fd;
			e.a[4] = n->kind != RP__ST_FD_NONFILE;
			e.a[5] = 1;
			if (n->kind == RP__ST_FD_PATH) {
				e.p[0] = b->buf ? b->buf + n->off : "";
				e.plen[0] = n->len;
			}
		}
		const int rc = rp_sysmodel_event(t->model, &e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int model_fail(rp_strace *t, int rc, char *errbuf)
{
	const char *const why = t->out.errbuf[0] ? t->out.errbuf : rp_sysmodel_error(t->model);
	return rp_fail(errbuf, rc, "%s:%" PRIu64 ": %s", t->name, t->line, why);
}

/* Slots leave in the order their calls started; a pending one holds back everything after it. */
static int drain(rp_strace *t, char *errbuf)
{
	while (t->head < t->tail) {
		rp__st_slot *const s = slot_at(t, t->head);
		if (s->state == SLOT_PENDING)
			break;
		t->head++;
		if (s->state != SLOT_DONE)
			continue;
		const int rc = feed(t, s);
		if (rc < 0)
			return model_fail(t, rc, errbuf);
	}
	return 0;
}

static int resolve_noreply(rp_strace *t, rp__st_proc *pr);

/* A slot at the tail: the ring grows to RING_MAX, then its oldest unfinished call leaves without a reply. */
static int reserve(rp_strace *t, uint64_t *id, char *errbuf)
{
	while (t->tail - t->head == t->cap) {
		if (t->cap < RING_MAX) {
			/* full: every slot is live, and each keeps its buffer in the new ring */
			const uint64_t ncap = t->cap ? t->cap * 2 : 256;
			rp__st_slot *const nr = calloc(ncap, sizeof(*nr));
			if (!nr)
				return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
			for (uint64_t i = t->head; i < t->tail; i++)
				nr[i & (ncap - 1)] = t->ring[i & (t->cap - 1)];
			free(t->ring);
			t->ring = nr;
			t->cap = ncap;
			break;
		}
		/* full: the head is pending (else drain would have emptied it); whose call it is */
		bool found = false;
		for (uint32_t i = 0; i < RP__ST_PROC_BUCKETS && !found; i++) {
			rp__st_proc *const p = &t->procs[i];
			if (p->used && p->pending && p->slot == t->head) {
				p->drop_resume = true; /* its resumption, if it comes, is not "without unfinished" */
				if (resolve_noreply(t, p) < 0)
					return rp_fail(errbuf, t->fatal ? t->fatal : RP_E_INVAL, "%s:%" PRIu64 ": %s", t->name,
						       t->line, t->why);
				found = true;
			}
		}
		if (!found) /* no process waits on it: nothing will complete it */
			slot_at(t, t->head)->state = SLOT_CANCELLED;
		const int rc = drain(t, errbuf);
		if (rc < 0)
			return rc;
	}
	*id = t->tail++;
	rp__st_slot *const s = slot_at(t, *id);
	s->b.n_names = s->b.before = 0;
	s->b.has_ev = false;
	s->b.len = 0;
	s->state = SLOT_PENDING;
	return 0;
}

/* A slot of one process event (START, EXIT) at time ns, done at once. */
static int proc_slot(rp_strace *t, const rp__st_proc *pr, unsigned nr, uint64_t ns, uint64_t *id, char *errbuf)
{
	const int rc = reserve(t, id, errbuf);
	if (rc < 0)
		return rc;
	rp__st_slot *const s = slot_at(t, *id);
	s->b.ev = (rp__st_ev){ .nr = (uint16_t)nr, .pid = pr->mpid, .tid = pr->pid };
	s->b.ev.a[0] = nr == RP_SYSEV_EXIT ? -1 : 0; /* START: no parent the model knows; EXIT: status unknown */
	s->b.has_ev = true;
	s->b.pid = pr->mpid;
	s->b.tid = pr->pid;
	s->b.t_start = s->b.t_end = ns;
	s->state = SLOT_DONE;
	return 0;
}

/* A pid ends: its model process does with its last thread (the fds go with it, as the kernel closes them). */
static int proc_exit(rp_strace *t, rp__st_proc *pr, uint64_t ns, char *errbuf)
{
	rp__st_proc *const leader = pr->mpid == pr->pid ? pr : proc_find(t, pr->mpid);
	pr->dead = true;
	if (leader && leader->members && --leader->members)
		return 0;
	uint64_t id;
	return proc_slot(t, pr, RP_SYSEV_EXIT, ns, &id, errbuf);
}

/*
 * A fork's FORK event names its child: the process of that pid, or a new
 * one.  The child may have run and exited before this line resumed the fork
 * (its lines come first): an exited process of that pid that no fork has
 * named and that began after this call did is the child; any other exited
 * one is an earlier process whose pid was reused, and the child a new
 * client.  A child whose own START waits in the ring behind this call is
 * begun by the fork instead; a thread (CLONE_FILES) joins its creator's
 * model process, and its events already in the ring with it.
 */
static int name_fork(rp_strace *t, rp__st_proc *pr, uint64_t id, rp__st_ev *e, uint64_t start)
{
	e->a[0] = pr->pid;
	if ((e->flags & RP_SYSEV_NOEND) || e->ret <= 0 || e->ret > UINT32_MAX)
		return 0; /* no child: the caller's op alone */
	const bool share = e->a[2] == 1;
	rp__st_proc *child = proc_find(t, (uint32_t)e->ret);
	bool fresh;
	if (!child || (child->dead && (child->forked || child->first_time < start))) {
		if (!(child = proc_get(t, (uint32_t)e->ret, &fresh)))
			return st_badf(t, "more than 8192 processes (reprise's client limit)");
	} else if (child->has_start && child->start_slot > id && child->start_slot >= t->head) {
		slot_at(t, child->start_slot)->state = SLOT_CANCELLED; /* the fork begins it */
	}
	child->has_start = false;
	child->forked = true;
	if (share && child->mpid != pr->mpid) {
		const uint32_t old = child->mpid;
		for (uint64_t i = id + 1; i < t->tail; i++) {
			rp__st_batch *const b = &slot_at(t, i)->b;
			if (b->tid != child->pid)
				continue;
			if (b->has_ev && b->ev.nr == RP_SYSEV_EXIT) {
				b->has_ev = false; /* a thread's end is not its process's */
				continue;
			}
			b->pid = pr->mpid;
			/* its call's event, or a thread it made in the meantime: of its new process too */
			if (b->has_ev && b->ev.pid == old && b->ev.nr != RP_SYSEV_START)
				b->ev.pid = pr->mpid;
		}
		rp__st_proc *const leader = pr->mpid == pr->pid ? pr : proc_find(t, pr->mpid);
		if (leader && !child->dead)
			leader->members++;
		child->members = 0;
		child->mpid = pr->mpid;
	}
	e->pid = child->mpid;
	e->tid = child->pid;
	return 0;
}

/* The events of a parsed call into slot id (or the slot cancelled): the syscall's, then the fields they share. */
static int complete(rp_strace *t, rp__st_proc *pr, const rp__st_sys *sys, const rp__st_call *c, uint64_t start_unix,
		    uint64_t id)
{
	rp__st_slot *const s = slot_at(t, id);
	if (c->res == RP__ST_RES_ERR && !rp__st_errno(c->err))
		t->note[RP__ST_N_ERRNO]++;
	const int rc = rp__st_syscall(t, sys, c, &s->b);
	if (rc <= 0) {
		s->state = SLOT_CANCELLED;
		return rc < 0 ? -1 : 0;
	}
	uint64_t end = start_unix;
	if (c->has_dur && c->res != RP__ST_RES_UNKNOWN && c->res != RP__ST_RES_NONE)
		end = c->dur_ns < UINT64_MAX - start_unix ? start_unix + c->dur_ns : UINT64_MAX;
	s->b.t_start = start_unix;
	s->b.t_end = end;
	s->b.pid = s->b.ev.pid = pr->mpid;
	s->b.tid = s->b.ev.tid = pr->pid;
	if (s->b.ev.nr == RP_SYSEV_FORK && name_fork(t, pr, id, &s->b.ev, start_unix) < 0) {
		s->state = SLOT_CANCELLED;
		return -1;
	}
	s->state = SLOT_DONE;
	return 0;
}

static void clear_pending(rp__st_proc *pr)
{
	pr->pending = false;
	free(pr->pend_name);
	free(pr->pend_body);
	pr->pend_name = pr->pend_body = NULL;
}

/* An unfinished call that will never resume: its op from the arguments that are whole, without a reply. */
static int resolve_noreply(rp_strace *t, rp__st_proc *pr)
{
	rp__st_call c;
	const char *why = NULL;
	int rc = 0;
	t->note[RP__ST_N_NOREPLY]++;
	if (rp__st_call_parse(pr->pend_body, pr->pend_body_len, true, &c, &why) < 0) {
		slot_at(t, pr->slot)->state = SLOT_CANCELLED;
	} else {
		c.res = RP__ST_RES_NONE;
		rc = complete(t, pr, pr->pend_sys, &c, pr->pend_time, pr->slot);
		if (rc < 0 && !t->fatal)
			rc = 0; /* its arguments were cut: nothing to make of it, and it was counted */
	}
	clear_pending(pr);
	return rc;
}

static bool is_restart(const rp__st_call *c)
{
	return c->err.len >= 8 && memcmp(c->err.p, "ERESTART", 8) == 0;
}

static void count_notfile(rp_strace *t, rp__st_str name)
{
	t->notfile++;
	for (uint32_t i = 0; i < t->n_names; i++)
		if (strlen(t->names[i].name) == name.len && memcmp(t->names[i].name, name.p, name.len) == 0) {
			t->names[i].n++;
			return;
		}
	if (t->n_names == RP__ST_NAMES_MAX || name.len >= sizeof(t->names[0].name)) {
		t->names_other++;
		return;
	}
	memcpy(t->names[t->n_names].name, name.p, name.len);
	t->names[t->n_names].name[name.len] = '\0';
	t->names[t->n_names++].n = 1;
}

static char *dup_bytes(const char *p, uint32_t len)
{
	char *const d = malloc(len ? len : 1);
	if (d && len)
		memcpy(d, p, len);
	return d;
}

/* A complete call, or a resumed one joined to its start: its op in slot id (reserved by the caller). */
static int finish_call(rp_strace *t, rp__st_proc *pr, const rp__st_sys *sys, const char *body, size_t blen,
		       uint64_t start, uint64_t id, char *errbuf)
{
	rp__st_call c;
	const char *why = NULL;
	if (rp__st_call_parse(body, blen, false, &c, &why) < 0) {
		slot_at(t, id)->state = SLOT_CANCELLED;
		return bad(t, RP__ST_BAD_ARGS, why, errbuf);
	}
	if (!c.has_dur && c.res != RP__ST_RES_UNKNOWN) {
		slot_at(t, id)->state = SLOT_CANCELLED;
		if (!t->dur_seen)
			return rp_fail(errbuf, RP_E_INVAL,
				       "%s:%" PRIu64 ": a call without its duration: record with strace -f -ttt -T -y",
				       t->name, t->line);
		return bad(t, RP__ST_BAD_NODUR, NULL, errbuf);
	}
	t->dur_seen = t->dur_seen || c.has_dur;
	if (is_restart(&c)) {
		slot_at(t, id)->state = SLOT_CANCELLED;
		t->note[RP__ST_N_RESTART]++;
		return 0;
	}
	t->why = NULL;
	if (complete(t, pr, sys, &c, start, id) < 0) {
		if (t->fatal)
			return rp_fail(errbuf, t->fatal, "%s:%" PRIu64 ": %s", t->name, t->line, t->why);
		return bad(t, t->why && strstr(t->why, "PATH_MAX") ? RP__ST_BAD_PATH : RP__ST_BAD_ARGS, t->why, errbuf);
	}
	return 0;
}

static int process(rp_strace *t, const char *line, size_t len, char *errbuf)
{
	if (len > RP_STRACE_LINE_MAX)
		return bad(t, RP__ST_BAD_LONG, "line longer than 1 MiB", errbuf);
	rp__st_line l;
	const char *why = NULL;
	if (rp__st_line_parse(line, len, &l, &why) < 0)
		return bad(t, RP__ST_BAD_SYNTAX, why, errbuf);
	if (l.kind == RP__ST_BLANK)
		return 0;
	if (!l.has_time) {
		if (!t->timed_seen)
			return rp_fail(errbuf, RP_E_INVAL,
				       "%s:%" PRIu64 ": a line without a timestamp: record with strace -f -ttt -T -y", t->name,
				       t->line);
		return bad(t, RP__ST_BAD_NOTIME, NULL, errbuf);
	}
	t->timed_seen = true;
	t->lines_used++;
	bool fresh;
	rp__st_proc *const pr = proc_get(t, l.has_pid ? l.pid : t->opts.pid, &fresh);
	if (!pr)
		return bad(t, RP__ST_BAD_PIDS, "more than 8192 processes (reprise's client limit)", errbuf);
	int rc;
	if (!pr->first_time)
		pr->first_time = l.time_ns;
	if (fresh) { /* a process of its own, unless a fork resumed later names it (name_fork) */
		if ((rc = proc_slot(t, pr, RP_SYSEV_START, l.time_ns, &pr->start_slot, errbuf)) < 0)
			return rc;
		pr->has_start = true;
	}
	switch (l.kind) {
	case RP__ST_SIGNAL:
		t->note[RP__ST_N_SIGNAL]++;
		return 0;
	case RP__ST_EXITED:
	case RP__ST_KILLED:
		t->note[l.kind == RP__ST_EXITED ? RP__ST_N_EXIT : RP__ST_N_KILLED]++;
		if (pr->pending && (rc = resolve_noreply(t, pr)) < 0)
			return rp_fail(errbuf, t->fatal, "%s:%" PRIu64 ": %s", t->name, t->line, t->why);
		if ((rc = proc_exit(t, pr, l.time_ns, errbuf)) < 0)
			return rc;
		return drain(t, errbuf);
	case RP__ST_UNFINISHED: {
		if (pr->pending && (rc = resolve_noreply(t, pr)) < 0)
			return rp_fail(errbuf, t->fatal, "%s:%" PRIu64 ": %s", t->name, t->line, t->why);
		pr->drop_resume = false;
		const rp__st_sys *const sys = rp__st_sys_find(l.name);
		if (!sys)
			return 0; /* counted when it resumes */
		/* A call on a pipe or socket (-y says so at entry) makes no op: it takes no place in the order,
		 * so a read that blocks for long holds nothing back. */
		rp__st_call pc;
		const char *pwhy = NULL;
		int64_t fd;
		bool has;
		rp__st_str an;
		if (rp__st_call_parse(l.body.p, l.body.len, true, &pc, &pwhy) == 0 && pc.nargs &&
		    rp__st_fd(pc.args[0], &fd, &has, &an) && has && fd >= 0 && an.len && an.p[0] != '/' &&
		    rp__st_sys_io(sys)) {
			pr->drop_resume = true;
			t->note[RP__ST_N_NONFILE]++;
			return 0;
		}
		uint64_t id;
		if ((rc = reserve(t, &id, errbuf)) < 0)
			return rc;
		pr->pend_name = dup_bytes(l.name.p, l.name.len);
		pr->pend_body = dup_bytes(l.body.p, l.body.len);
		if (!pr->pend_name || !pr->pend_body) {
			slot_at(t, id)->state = SLOT_CANCELLED;
			clear_pending(pr);
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		}
		pr->pend_name_len = l.name.len;
		pr->pend_body_len = l.body.len;
		pr->pend_sys = sys;
		pr->pending = true;
		pr->slot = id;
		pr->pend_time = l.time_ns;
		pr->pend_line = t->line;
		return 0;
	}
	case RP__ST_RESUMED: {
		if (!pr->pending && pr->drop_resume) {
			pr->drop_resume = false;
			return 0; /* counted when it started */
		}
		if (!pr->pending) {
			if (!rp__st_sys_find(l.name)) {
				count_notfile(t, l.name);
				return 0;
			}
			return bad(t, RP__ST_BAD_RESUMED, NULL, errbuf);
		}
		if (pr->pend_name_len != l.name.len || memcmp(pr->pend_name, l.name.p, l.name.len) != 0)
			return bad(t, RP__ST_BAD_RESUMED, "resumes a call other than the one left unfinished", errbuf);
		const size_t blen = (size_t)pr->pend_body_len + l.body.len;
		if (blen > 2u * RP_STRACE_LINE_MAX) {
			slot_at(t, pr->slot)->state = SLOT_CANCELLED;
			clear_pending(pr);
			return bad(t, RP__ST_BAD_LONG, NULL, errbuf);
		}
		if (!t->cbuf && !(t->cbuf = malloc(2u * RP_STRACE_LINE_MAX))) { /* only logs with unfinished calls need it */
			slot_at(t, pr->slot)->state = SLOT_CANCELLED;
			clear_pending(pr);
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		}
		memcpy(t->cbuf, pr->pend_body, pr->pend_body_len);
		memcpy(t->cbuf + pr->pend_body_len, l.body.p, l.body.len);
		const uint64_t id = pr->slot, start = pr->pend_time;
		const rp__st_sys *const sys = pr->pend_sys;
		clear_pending(pr);
		rc = finish_call(t, pr, sys, t->cbuf, blen, start, id, errbuf);
		return rc < 0 ? rc : drain(t, errbuf);
	}
	case RP__ST_CALL: {
		pr->drop_resume = false;
		const rp__st_sys *const sys = rp__st_sys_find(l.name);
		if (!sys) {
			count_notfile(t, l.name);
			return 0;
		}
		uint64_t id;
		if ((rc = reserve(t, &id, errbuf)) < 0)
			return rc;
		rc = finish_call(t, pr, sys, l.body.p, l.body.len, l.time_ns, id, errbuf);
		return rc < 0 ? rc : drain(t, errbuf);
	}
	default:
		return 0;
	}
}

int rp_strace_line(rp_strace *t, const char *line, size_t len, char *errbuf)
{
	t->line++;
	t->lines_total++;
	t->fatal = 0;
	return process(t, line, len, errbuf);
}

int rp_strace_line_of(rp_strace *t, const char *name, uint64_t line, uint32_t pid, const char *text, size_t len,
		      char *errbuf)
{
	t->name = name;
	t->line = line - 1;
	t->opts.pid = pid;
	return rp_strace_line(t, text, len, errbuf);
}

int rp_strace_create(rp_strace **out, rp_sink *sink, const char *name, const rp_strace_opts *opts, char *errbuf)
{
	rp_strace *const t = calloc(1, sizeof(*t));
	if (!t)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	t->procs = calloc(RP__ST_PROC_BUCKETS, sizeof(*t->procs));
	t->sbuf = malloc(RP_STR_MAX);
	if (!t->procs || !t->sbuf) {
		rp_strace_destroy(t);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	t->sink = sink;
	t->out = (rp_sink){ .meta = out_meta, .string = out_string, .op = out_op, .finish = out_finish };
	t->name = name;
	if (opts)
		t->opts = *opts;
	/* every path kept (strace's /dev/null and /proc are the run's), times as strace -ttt gives them */
	const char *const base = strrchr(name, '/');
	const rp_sysmodel_opts mo = { .exclude = "", .unix_clock = true, .source = RP_SRC_STRACE,
				      .source_name = base ? base + 1 : name };
	const int rc = rp_sysmodel_create(&t->model, &t->out, &mo, errbuf);
	if (rc < 0) {
		rp_strace_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

void rp_strace_destroy(rp_strace *t)
{
	if (!t)
		return;
	if (t->procs)
		for (uint32_t i = 0; i < RP__ST_PROC_BUCKETS; i++) {
			free(t->procs[i].pend_name);
			free(t->procs[i].pend_body);
		}
	free(t->procs);
	for (uint64_t i = 0; i < t->cap; i++)
		free(t->ring[i].b.buf);
	free(t->ring);
	rp_sysmodel_destroy(t->model);
	free(t->sbuf);
	free(t->cbuf);
	free(t);
}

int rp_strace_finish(rp_strace *t, char *errbuf)
{
	/* Unfinished calls in the order they started, so the ring drains as it fills. */
	for (uint64_t id = t->head; id < t->tail; id++) {
		if (slot_at(t, id)->state != SLOT_PENDING)
			continue;
		for (uint32_t i = 0; i < RP__ST_PROC_BUCKETS; i++) {
			rp__st_proc *const p = &t->procs[i];
			if (p->used && p->pending && p->slot == id) {
				if (resolve_noreply(t, p) < 0)
					return rp_fail(errbuf, t->fatal, "%s: %s", t->name, t->why);
				break;
			}
		}
	}
	int rc = drain(t, errbuf);
	if (rc == 0 && !t->timed_seen && t->lines_used == 0 && t->line > 0 && t->skipped == t->line)
		rc = rp_fail(errbuf, RP_E_INVAL, "%s: no line of the log was usable (record with strace -f -ttt -T -y)",
			     t->name);
	if (rc < 0)
		return rc;
	const int frc = rp_sysmodel_finish(t->model);
	return frc < 0 ? rp_fail(errbuf, frc, "%s", t->out.errbuf[0] ? t->out.errbuf : rp_sysmodel_error(t->model)) : 0;
}

uint64_t rp_strace_skipped(const rp_strace *t)
{
	return t->skipped;
}

uint64_t rp_strace_ops(const rp_strace *t)
{
	return t->ops;
}

/* Appends to buf as snprintf would, never past size. */
static void addf(char *buf, size_t size, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void addf(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
	if (*at >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	const int n = vsnprintf(buf + *at, size - *at, fmt, ap);
	va_end(ap);
	*at = n < 0 ? size : *at + (size_t)n;
}

void rp_strace_summary(const rp_strace *t, char *buf, size_t size)
{
	if (!size)
		return;
	size_t at = 0;
	buf[0] = '\0';
	addf(buf, size, &at, "strace: %" PRIu64 " ops from %" PRIu64 " lines, %" PRIu32 " process%s", t->ops, t->lines_total,
	     t->n_clients, t->n_clients == 1 ? "" : "es");
	if (t->notfile) {
		addf(buf, size, &at, "; not file operations %" PRIu64 " (", t->notfile);
		for (uint32_t i = 0; i < t->n_names; i++)
			addf(buf, size, &at, "%s%s %" PRIu64, i ? ", " : "", t->names[i].name, t->names[i].n);
		if (t->names_other)
			addf(buf, size, &at, ", others %" PRIu64, t->names_other);
		addf(buf, size, &at, ")");
	}
	uint64_t nbad = 0;
	for (unsigned i = 0; i < RP__ST_BAD__COUNT; i++)
		nbad += t->bad[i];
	if (nbad) {
		addf(buf, size, &at, "; bad lines %" PRIu64 " (", nbad);
		bool first = true;
		for (unsigned i = 0; i < RP__ST_BAD__COUNT; i++)
			if (t->bad[i]) {
				addf(buf, size, &at, "%s%s %" PRIu64, first ? "" : ", ", bad_names[i], t->bad[i]);
				first = false;
			}
		addf(buf, size, &at, ")");
	}
	/* the notes in their order of old, the model's counts among them */
	const rp_sysmodel_stats *const ms = rp_sysmodel_get_stats(t->model);
	const struct {
		const char *name;
		uint64_t n;
	} notes[] = {
		{ "signals", t->note[RP__ST_N_SIGNAL] },
		{ "exits", t->note[RP__ST_N_EXIT] },
		{ "killed", t->note[RP__ST_N_KILLED] },
		{ "restarted calls", t->note[RP__ST_N_RESTART] },
		{ "unfinished at the end (ops without a reply)", t->note[RP__ST_N_NOREPLY] },
		{ "unknown errno names", t->note[RP__ST_N_ERRNO] },
		{ "calls on pipes/sockets", t->note[RP__ST_N_NONFILE] + ms->nonfile },
		{ "fds without a path", ms->unknown_fd + t->note[RP__ST_N_NOFD] },
		{ "fds beyond the table limit", ms->limits },
		{ "unknown flag names", t->note[RP__ST_N_FLAGS] },
		{ "tracked, no op (lseek, chdir, execve, F_SETFD)", t->note[RP__ST_N_STATE] },
		{ "calls the model found bad (no op)", ms->bad },
		{ "calls out of time order (at the latest time)", ms->late },
	};
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		if (notes[i].n)
			addf(buf, size, &at, "; %s %" PRIu64, notes[i].name, notes[i].n);
	if (at >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

/* rp_strace_line as rp__mem_lines calls it. */
static int strace_line(void *t, const char *line, size_t n, char *errbuf)
{
	return rp_strace_line(t, line, n, errbuf);
}

int rp_strace_parse_mem(const void *buf, size_t len, const char *name, rp_sink *sink, const rp_strace_opts *opts,
			uint64_t *skipped, char *summary, size_t summary_size, char *errbuf)
{
	rp_strace *t = NULL;
	int rc = rp_strace_create(&t, sink, name, opts, errbuf);
	if (rc < 0)
		return rc;
	rc = rp__mem_lines(buf, len, t, strace_line, errbuf);
	if (rc == 0)
		rc = rp_strace_finish(t, errbuf);
	if (skipped)
		*skipped = t->skipped;
	if (summary)
		rp_strace_summary(t, summary, summary_size);
	rp_strace_destroy(t);
	return rc;
}

bool rp_strace_pid_from_name(const char *path, uint32_t *pid)
{
	const char *const dot = strrchr(path, '.');
	if (!dot || !dot[1] || strchr(dot, '/'))
		return false;
	uint64_t v = 0;
	for (const char *p = dot + 1; *p; p++) {
		if (*p < '0' || *p > '9' || v > UINT32_MAX / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v == 0 || v > UINT32_MAX)
		return false;
	*pid = (uint32_t)v;
	return true;
}

bool rp_strace_sniff(const void *head, size_t len)
{
	const char *p = head;
	const char *const end = p + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end; /* the head may cut the line: what is there must look right */
		rp__st_line l;
		const char *why;
		if (rp__st_line_parse(p, (size_t)(eol - p), &l, &why) < 0)
			return false;
		if (l.kind != RP__ST_BLANK)
			return l.kind != RP__ST_CALL || memchr(l.body.p, '=', l.body.len) || eol == end;
		p = eol < end ? eol + 1 : end;
	}
	return false;
}
