/* Typed file-syscall events -> op records: the one place capture's events become ops (docs/syscall-capture.md; same ops as docs/strace.md). */
#include "formats/sysev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/error.h"
#include "formats/status.h"
#include "formats/sysmodel_int.h"

/* A client limit beyond what replay runs (RP_REPLAY_CLIENTS_MAX is far below): the default. */
#define CLIENTS_DEFAULT 65536u
/* --exclude prefixes kept; more are an error at create. */
#define EXCL_MAX 16u

#define RP__SYSEV_NAME(e, n, name) [n] = name,
static const char *const ev_names[RP_SYSEV__MAX] = { RP_SYSEV_MAP(RP__SYSEV_NAME) };
#undef RP__SYSEV_NAME

const char *rp_sysev_name(unsigned nr)
{
	return nr < RP_SYSEV__MAX ? ev_names[nr] : NULL;
}

/* Which of p0/p1 an event may carry (bit 0: p0, bit 1: p1); any other is a bad event. */
static unsigned paths_allowed(unsigned nr)
{
	switch (nr) {
	case RP_SYSEV_RENAME: case RP_SYSEV_LINK: case RP_SYSEV_SYMLINK: case RP_SYSEV_XATTR: case RP_SYSEV_READLINK:
		return 3;
	case RP_SYSEV_OPEN: case RP_SYSEV_TRUNCATE: case RP_SYSEV_STAT: case RP_SYSEV_ACCESS: case RP_SYSEV_UNLINK:
	case RP_SYSEV_MKDIR: case RP_SYSEV_CHMOD: case RP_SYSEV_CHOWN: case RP_SYSEV_UTIMENS:
	case RP_SYSEV_CHDIR: case RP_SYSEV_STATFS: case RP_SYSEV_MKNOD: case RP_SYSEV_START: case RP_SYSEV_FD:
	case RP_SYSEV_EXEC: case RP_SYSEV_UNTRACED:
		return 1;
	default:
		return 0;
	}
}

/* ---- filters ---- */

/* Whether s[0..len) is dir or beneath it (dir without its trailing slashes; "" is the root). */
static bool under(const char *s, uint32_t len, const char *dir, uint32_t dlen)
{
	if (!dlen)
		return len && s[0] == '/';
	return len >= dlen && memcmp(s, dir, dlen) == 0 && (len == dlen || s[dlen] == '/');
}

/* The cache entry of local string id, grown to the table's count; NULL when out of memory. */
static rp__sm_str *str_of(rp_sysmodel *m, uint32_t id)
{
	if (id >= m->cap_strs) {
		uint32_t ncap = m->cap_strs ? m->cap_strs : 256;
		while (ncap <= id && ncap < UINT32_MAX / 2)
			ncap *= 2;
		rp__sm_str *const ns = ncap > id ? realloc(m->strs, (size_t)ncap * sizeof(*ns)) : NULL;
		if (!ns)
			return NULL;
		memset(ns + m->cap_strs, 0, (size_t)(ncap - m->cap_strs) * sizeof(*ns));
		m->strs = ns;
		m->cap_strs = ncap;
	}
	return &m->strs[id];
}

static uint8_t verdict(const rp_sysmodel *m, uint32_t id)
{
	uint32_t len = 0;
	const char *const s = rp_strtab_get(m->paths, id, &len);
	uint8_t v = RP__SM_V_KNOWN;
	if (s && m->only && under(s, len, m->only, m->only_len))
		v |= RP__SM_V_ONLY;
	for (uint32_t i = 0; s && i < m->n_excl; i++)
		if (under(s, len, m->excl + m->excl_off[i], m->excl_len[i]))
			v |= RP__SM_V_EXCL;
	return v;
}

/* 1 in, 0 out, -1 no such path: under --only (only), or excluded. */
static int path_in(rp_sysmodel *m, uint32_t id, bool only)
{
	if (!id)
		return -1;
	rp__sm_str *const e = str_of(m, id);
	const uint8_t v = e ? (e->verdict ? e->verdict : (e->verdict = verdict(m, id))) : verdict(m, id);
	return (v & (only ? RP__SM_V_ONLY : RP__SM_V_EXCL)) != 0;
}

/* --only keeps an op naming a path under DIR; --exclude drops one whose every path is excluded. */
static bool keep(rp_sysmodel *m, const rp__sm_cx *c)
{
	if (c->hidden)
		return false;
	const rp_op *const op = &c->op;
	const bool p2 = op->op == RP_OP_RENAME || op->op == RP_OP_LINK || op->op == RP_OP_COPY; /* path2 a path */
	if (m->only && (op->path || op->handle || (p2 && op->path2))) {
		if (path_in(m, op->path, true) != 1 && !(p2 && path_in(m, op->path2, true) == 1))
			return false;
	}
	const int a = path_in(m, op->path, false), b = p2 ? path_in(m, op->path2, false) : -1;
	return !((a == 1 || b == 1) && a != 0 && b != 0);
}

/* ---- emission ---- */

static int to_sink(rp_sysmodel *m, uint32_t *id)
{
	if (!*id)
		return 0;
	rp__sm_str *const e = str_of(m, *id);
	if (e && e->sink) {
		*id = e->sink;
		return 0;
	}
	uint32_t len = 0;
	const char *const s = rp_strtab_get(m->paths, *id, &len);
	const int64_t got = rp_sink_intern(m->sink, m->out, s ? s : "", len);
	if (got < 0)
		return rp_fail(m->err, (int)got, "sink: %s", m->sink->errbuf);
	if (e)
		e->sink = (uint32_t)got;
	*id = (uint32_t)got;
	return 0;
}

static int emit(rp_sysmodel *m, rp__sm_cx *c)
{
	if (!keep(m, c)) {
		m->st.filtered++;
		rp__sm_fd *const e = c->made >= 0 ? rp__sm_fd_slot(m, c->pr, c->made, false) : NULL;
		if (e)
			e->hidden = true; /* an open dropped: no orphan ops on its handle */
		return 0;
	}
	rp_op op = c->op;
	int rc = to_sink(m, &op.path);
	if (rc == 0)
		rc = to_sink(m, &op.path2);
	if (rc == 0 && (rc = m->sink->op(m->sink, &op)) < 0)
		rc = rp_fail(m->err, rc, "sink: %s", m->sink->errbuf);
	m->st.ops += rc == 0;
	return rc;
}

/* The fields every op of ev shares: times, client, status. */
static void fill(rp__sm_cx *c, uint64_t ts, uint32_t client)
{
	const rp_sysev *const ev = c->ev;
	rp_op *const op = &c->op;
	*op = (rp_op){ .client = client, .proto = RP_PROTO_POSIX };
	op->t_start = ts - c->m->t0;
	c->made = -1;
	if (ev->flags & RP_SYSEV_NOEND) {
		op->t_end = RP_TIME_UNKNOWN;
		op->status = RP_STATUS_UNKNOWN;
		op->flags |= RP_OPF_NO_REPLY;
		return;
	}
	const uint64_t dur = ev->t_end >= ev->t_start ? ev->t_end - ev->t_start : 0;
	op->t_end = dur < RP_TIME_UNKNOWN - 1 - op->t_start ? op->t_start + dur : RP_TIME_UNKNOWN - 1;
	c->ok = ev->ret >= 0;
	if (ev->ret < 0 && ev->ret >= -RP__SM_ERRNO_MAX) {
		op->status = rp_errno_from_host((int32_t)-ev->ret);
		op->status_kind = RP_SK_ERRNO;
		op->proto_status = (uint32_t)-ev->ret;
	} else if (ev->ret < 0) {
		op->status = RP_STATUS_OTHER;
	}
}

/* ---- processes and threads ---- */

static rp__sm_proc *proc_live(rp_sysmodel *m, int64_t pid, uint32_t *index)
{
	if (pid < 0 || pid > UINT32_MAX)
		return NULL;
	const uint32_t i = rp__sm_map_get(&m->pidmap, (uint32_t)pid);
	if (!i || m->procs[i - 1].dead)
		return NULL;
	if (index)
		*index = i - 1;
	return &m->procs[i - 1];
}

/* A new process (a new client comes with it, so the client limit bounds both): 0 with its index, 1 beyond, or an rp error. */
static int proc_new(rp_sysmodel *m, uint32_t pid, uint32_t *index)
{
	if (m->n_clients >= m->max_clients || m->n_procs == UINT32_MAX - 1) {
		m->st.limits++;
		return 1;
	}
	if (m->n_procs == m->cap_procs) {
		const uint32_t ncap = m->cap_procs ? 2u * m->cap_procs : 16u;
		rp__sm_proc *const np = realloc(m->procs, (size_t)ncap * sizeof(*np));
		if (!np)
			return rp_fail(m->err, RP_E_NOMEM, "out of memory");
		m->procs = np;
		m->cap_procs = ncap;
	}
	if (rp__sm_map_put(&m->pidmap, pid, m->n_procs + 1) < 0)
		return rp_fail(m->err, RP_E_NOMEM, "out of memory");
	m->procs[m->n_procs] = (rp__sm_proc){ .pid = pid };
	*index = m->n_procs++;
	m->st.processes++;
	return 0;
}

/* The client of thread tid of process pi, made on first sight (*fresh); 0 beyond the limit; an rp error. */
static int64_t thread_client(rp_sysmodel *m, uint32_t pi, uint32_t tid, bool *fresh)
{
	*fresh = false;
	const uint32_t i = rp__sm_map_get(&m->tidmap, tid);
	if (i && m->threads[i - 1].proc == pi)
		return m->threads[i - 1].client;
	rp__sm_proc *const p = &m->procs[pi];
	uint32_t client = m->opts.process_clients ? p->client : 0;
	if (!client) {
		if (m->n_clients >= m->max_clients) {
			m->st.limits++;
			return 0;
		}
		client = ++m->n_clients;
	}
	if (!p->client)
		p->client = client;
	*fresh = true;
	m->st.threads++;
	if (i) { /* a tid reused by a new process */
		m->threads[i - 1] = (rp__sm_thread){ .tid = tid, .proc = pi, .client = client };
		return client;
	}
	if (m->n_threads >= m->max_clients) { /* process clients: threads beyond are not remembered */
		m->st.limits++;
		return client;
	}
	if (m->n_threads == m->cap_threads) {
		const uint32_t ncap = m->cap_threads ? 2u * m->cap_threads : 16u;
		rp__sm_thread *const nt = realloc(m->threads, (size_t)ncap * sizeof(*nt));
		if (!nt)
			return rp_fail(m->err, RP_E_NOMEM, "out of memory");
		m->threads = nt;
		m->cap_threads = ncap;
	}
	if (rp__sm_map_put(&m->tidmap, tid, m->n_threads + 1) < 0)
		return rp_fail(m->err, RP_E_NOMEM, "out of memory");
	m->threads[m->n_threads++] = (rp__sm_thread){ .tid = tid, .proc = pi, .client = client };
	return client;
}

/* A fork op: client the parent, result the child's client; share: a thread (one handle table). */
static int fork_op(rp_sysmodel *m, const rp_sysev *ev, uint64_t ts, rp__sm_proc *child, uint32_t parent_client,
		   uint32_t child_client, bool share)
{
	if (!parent_client)
		return 0;
	rp__sm_cx c = { .m = m, .ev = ev, .pr = child };
	fill(&c, ts, parent_client);
	if (ev->nr != RP_SYSEV_START && ev->nr != RP_SYSEV_FORK) {
		/* a thread seen at its first call: no event of its own made it, so no status or duration */
		c.op = (rp_op){ .t_start = c.op.t_start, .t_end = c.op.t_start, .client = parent_client,
				.proto = RP_PROTO_POSIX };
	}
	c.op.op = RP_OP_FORK;
	c.op.result = child_client;
	c.op.oflags = share ? RP_FK_SHARE : 0;
	return emit(m, &c);
}

/* A wait op: client the waiter, result the reaped child's client (its first thread's), when it was traced. */
static int wait_op(rp_sysmodel *m, const rp_sysev *ev, uint64_t ts, rp__sm_proc *waiter, uint32_t client)
{
	if (ev->a[0] <= 0 || ev->a[0] > UINT32_MAX)
		return 0;
	/* a thread joined (its tid: its own client, one per thread) or a process reaped (its first thread's) */
	const uint32_t ti = rp__sm_map_get(&m->tidmap, (uint32_t)ev->a[0]);
	const uint32_t i = rp__sm_map_get(&m->pidmap, (uint32_t)ev->a[0]);
	uint32_t target = ti ? m->threads[ti - 1].client : i ? m->procs[i - 1].client : 0;
	if (!target || target == client || (i && &m->procs[i - 1] == waiter && !ti))
		return 0; /* untraced, before the trace, or itself (threads as one client): nothing to wait for */
	rp__sm_cx c = { .m = m, .ev = ev, .pr = waiter };
	fill(&c, ts, client);
	c.op.op = RP_OP_WAIT;
	c.op.result = target;
	c.op.status = RP_STATUS_OK;
	return emit(m, &c);
}

static void snap_begin(rp__sm_proc *p)
{
	for (uint32_t fd = 0; fd < p->cap; fd++)
		p->fds[fd].snap = false;
	p->in_snap = true;
}

/* The snapshot is what the process really holds: an fd it does not name is gone. */
static void snap_end(rp__sm_proc *p)
{
	for (uint32_t fd = 0; fd < p->cap; fd++)
		if (!p->fds[fd].snap)
			p->fds[fd] = (rp__sm_fd){ 0 };
	p->in_snap = false;
}

static int set_cwd(rp_sysmodel *m, rp__sm_proc *p, const rp_sysev *ev)
{
	if (!ev->p[0] || !ev->plen[0])
		return 0;
	const int64_t id = rp__sm_intern(m, ev->p[0], ev->plen[0]);
	if (id < 0)
		return rp_fail(m->err, (int)id, "out of memory");
	p->cwd = (uint32_t)id;
	return 0;
}

/* START (first process, spawned child, exec) and FORK. */
static int proc_event(rp_sysmodel *m, const rp_sysev *ev, uint64_t ts)
{
	uint32_t pi;
	bool fresh;
	rp__sm_proc *p = proc_live(m, ev->pid, &pi);
	if (p) {
		if (ev->nr == RP_SYSEV_FORK) {
			m->st.bad++; /* a fork into a process that exists */
			return 0;
		}
		m->st.execs++;
		p->exec_pending = p->untraced_said = false; /* the new image reported */
		if (p->in_snap)
			snap_end(p);
		rp__sm_exec(p);
		snap_begin(p);
		const int64_t cl = thread_client(m, pi, ev->tid, &fresh);
		return cl < 0 ? (int)cl : set_cwd(m, &m->procs[pi], ev);
	}
	uint32_t ppi = 0;
	const bool has_parent = ev->a[0] != ev->pid && proc_live(m, ev->a[0], &ppi);
	int rc = proc_new(m, ev->pid, &pi);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const int64_t cl = thread_client(m, pi, ev->tid, &fresh);
	if (cl <= 0)
		return (int)cl;
	p = &m->procs[pi];
	if (has_parent) {
		rp__sm_proc *const parent = &m->procs[ppi];
		if (parent->in_snap)
			snap_end(parent);
		rp__sm_copy_fds(m, p, parent);
		if ((rc = fork_op(m, ev, ts, p, parent->client, (uint32_t)cl, false)) < 0)
			return rc;
	}
	if (ev->nr == RP_SYSEV_START) {
		if (has_parent)
			rp__sm_exec(p); /* posix_spawn: fork and exec at once */
		snap_begin(p);
		return set_cwd(m, p, ev);
	}
	return 0;
}

/* One fd of the snapshot after START: a new fd gets a handle named by its /proc/self/fd path, no open op. */
static int fd_event(rp_sysmodel *m, rp__sm_proc *p, const rp_sysev *ev)
{
	if (!rp__sm_fd_ok(ev->a[0]))
		return m->st.bad++, 0;
	rp__sm_fd *const e = rp__sm_fd_slot(m, p, ev->a[0], true);
	if (!e)
		return 0;
	const uint64_t pos = ev->a[3] >= 0 ? (uint64_t)ev->a[3] : 0;
	if (!ev->a[4]) {
		*e = (rp__sm_fd){ .state = RP__SM_NONFILE };
	} else if (e->state == RP__SM_FILE) {
		e->pos = pos; /* what the process really holds (another process may have moved a shared offset) */
		e->cloexec = ev->a[2] != 0;
	} else {
		uint32_t path = 0;
		if (ev->p[0] && ev->plen[0]) {
			const int64_t id = rp__sm_intern(m, ev->p[0], ev->plen[0]);
			if (id < 0)
				return rp_fail(m->err, (int)id, "out of memory");
			path = (uint32_t)id;
		}
		rp__sm_new_fd(m, p, ev->a[0], path, ev->a[2] != 0, pos);
	}
	p->fds[ev->a[0]].snap = true;
	return 0;
}

/*
 * The name a tracer shows for an fd a call uses (FD with a5 1: strace -y):
 * the working directory at AT_FDCWD; an fd never seen becomes a file so
 * named (unnamed without p0); a file fd keeps the path its open asked for
 * while the name is the one first shown, and follows a new one (a rename).
 */
static int fd_seen(rp_sysmodel *m, rp__sm_proc *p, const rp_sysev *ev)
{
	uint32_t name = 0;
	if (ev->p[0] && ev->plen[0] && ev->a[4]) {
		const int64_t id = rp__sm_intern(m, ev->p[0], ev->plen[0]);
		if (id < 0)
			return rp_fail(m->err, (int)id, "out of memory");
		name = (uint32_t)id;
	}
	if (ev->a[0] == RP__SM_AT_FDCWD) {
		if (name)
			p->cwd = name;
		return 0;
	}
	if (!rp__sm_fd_ok(ev->a[0]))
		return m->st.bad++, 0;
	rp__sm_fd *const e = rp__sm_fd_slot(m, p, ev->a[0], true);
	if (!e)
		return 0;
	if (!ev->a[4]) { /* a pipe or socket, seen before or not: its calls make no op */
		if (e->state == RP__SM_FREE)
			*e = (rp__sm_fd){ .state = RP__SM_NONFILE };
		else
			e->state = RP__SM_NONFILE;
		return 0;
	}
	if (e->state == RP__SM_FREE || (e->state == RP__SM_NONFILE && name)) {
		m->st.unknown_fd += !name; /* a file, but which one the trace never says */
		rp__sm_new_fd(m, p, ev->a[0], name, false, 0);
		p->fds[ev->a[0]].seen = name;
	} else if (e->state == RP__SM_FILE && name && name != e->seen) {
		if (e->seen || !e->path)
			e->path = name;
		e->seen = name;
	}
	return 0;
}

/*
 * FORK with a1 1: a tracer that sees the clone call's result (strace).  The
 * op is the call's, from its caller's client; the child is a process with a
 * copy of the caller's fds, or (a2 1) a thread of the caller's process.  A
 * child whose events came before (it ran before the call returned) keeps
 * what it made and takes the caller's fds it lacks.
 */
static int fork_seen(rp_sysmodel *m, const rp_sysev *ev, uint64_t ts)
{
	const uint32_t ti = ev->a[0] > 0 && ev->a[0] <= UINT32_MAX ? rp__sm_map_get(&m->tidmap, (uint32_t)ev->a[0]) : 0;
	if (!ti || m->procs[m->threads[ti - 1].proc].dead) {
		m->st.bad++; /* a call from a thread never seen */
		return 0;
	}
	const uint32_t cpi = m->threads[ti - 1].proc, caller = m->threads[ti - 1].client;
	if (m->procs[cpi].in_snap)
		snap_end(&m->procs[cpi]);
	const bool share = ev->a[2] == 1;
	if (ev->ret <= 0 || ev->ret > UINT32_MAX || (ev->flags & RP_SYSEV_NOEND)) { /* no child: the call's op alone */
		rp__sm_cx c = { .m = m, .ev = ev, .pr = &m->procs[cpi] };
		fill(&c, ts, caller);
		c.op.op = RP_OP_FORK;
		return emit(m, &c);
	}
	uint32_t pi = cpi;
	int rc;
	if (!share) {
		if (!proc_live(m, ev->pid, &pi)) {
			if ((rc = proc_new(m, ev->pid, &pi)) != 0)
				return rc < 0 ? rc : 0;
			rp__sm_copy_fds(m, &m->procs[pi], &m->procs[cpi]);
		} else if (pi != cpi) {
			rp__sm_proc *const ch = &m->procs[pi];
			const rp__sm_proc *const from = &m->procs[cpi];
			for (uint32_t fd = 0; fd < from->cap; fd++) {
				rp__sm_fd *const e = from->fds[fd].state != RP__SM_FREE ? rp__sm_fd_slot(m, ch, fd, true) : NULL;
				if (e && e->state == RP__SM_FREE)
					*e = m->procs[cpi].fds[fd];
			}
			if (!ch->cwd)
				ch->cwd = m->procs[cpi].cwd;
		}
	}
	bool fresh;
	const int64_t cl = thread_client(m, pi, ev->tid, &fresh);
	if (cl <= 0)
		return (int)cl;
	if (share && (uint32_t)cl == caller)
		return 0; /* process clients: the thread is its creator's client */
	return fork_op(m, ev, ts, &m->procs[pi], caller, (uint32_t)cl, share);
}

/* ---- the API ---- */

/* The event's paths: present where they belong, within RP_SYSEV_PATH_MAX, without a NUL inside. */
static bool valid(rp_sysmodel *m, const rp_sysev *ev)
{
	if (ev->nr >= RP_SYSEV__MAX || !ev_names[ev->nr])
		return false;
	const unsigned allowed = paths_allowed(ev->nr);
	for (unsigned i = 0; i < 2; i++) {
		if (!ev->p[i]) {
			if (ev->plen[i])
				return false;
			continue;
		}
		if (!(allowed & (1u << i)) || ev->plen[i] > RP_SYSEV_PATH_MAX || memchr(ev->p[i], '\0', ev->plen[i]))
			return false;
		m->st.cut_paths += (ev->flags & (i ? RP_SYSEV_CUT1 : RP_SYSEV_CUT0)) != 0;
	}
	return true;
}

static int send_meta(rp_sysmodel *m)
{
	rp_trace_meta meta;
	memset(&meta, 0, sizeof(meta));
	meta.source = m->opts.source ? m->opts.source : RP_SRC_SYSCALL;
	meta.flags = m->started || !m->opts.unix_clock ? RP_META_TIMED : 0;
	if (m->opts.unix_clock && m->started)
		meta.capture_start_ns = m->t0 <= INT64_MAX ? (int64_t)m->t0 : 0;
	else if (m->opts.clock_offset_ns && m->started)
		meta.capture_start_ns = (int64_t)m->t0 + m->opts.clock_offset_ns;
	memcpy(meta.source_name, m->name, sizeof(meta.source_name));
	const int rc = m->sink->meta(m->sink, &meta);
	return rc < 0 ? rp_fail(m->err, rc, "sink: %s", m->sink->errbuf) : 0;
}

int rp_sysmodel_event(rp_sysmodel *m, const rp_sysev *ev)
{
	if (m->finished)
		return rp_fail(m->err, RP_E_STATE, "an event after the model finished");
	m->st.events++;
	if (ev->nr < RP_SYSEV__MAX)
		m->st.by_nr[ev->nr]++;
	if (!valid(m, ev)) {
		m->st.bad++;
		return 0;
	}
	int rc;
	if (!m->started) {
		m->started = true;
		m->t0 = m->last = ev->t_start;
		if ((rc = send_meta(m)) < 0)
			return rc;
	}
	uint64_t ts = ev->t_start;
	if (ts < m->last) {
		m->st.late++;
		ts = m->last; /* ops stay in order; its time is the latest seen */
	}
	m->last = ts;
	m->st.noend += (ev->flags & RP_SYSEV_NOEND) != 0;
	uint32_t pi;
	rp__sm_proc *p = NULL;
	switch ((rp_sysev_nr)ev->nr) {
	case RP_SYSEV_LOST:
		if (ev->a[0] < 0)
			m->st.bad++;
		else
			m->st.lost += (uint64_t)ev->a[0];
		return 0;
	case RP_SYSEV_UNTRACED:
		m->st.untraced++;
		if (ev->a[0] == 4) {
			m->st.untraced_user++;
			m->st.untraced_uid = ev->a[1] >= 0 && ev->a[1] <= UINT32_MAX ? (uint32_t)ev->a[1] : 0;
		}
		if ((p = proc_live(m, ev->pid, NULL)) != NULL)
			p->untraced_said = true;
		return 0;
	case RP_SYSEV_EXEC:
		/* the START after it is the exec; a failed one changes nothing; a1 1: the exec done, no START to come */
		if (ev->a[1] == 1 && ev->ret == 0 && !(ev->flags & RP_SYSEV_NOEND) && (p = proc_live(m, ev->pid, NULL))) {
			m->st.execs++;
			if (p->in_snap)
				snap_end(p);
			rp__sm_exec(p);
		} else if (ev->a[1] == 0 && (p = proc_live(m, ev->pid, NULL)) != NULL) {
			/* before the exec (0) a START should follow; after a failed one (the error) none will */
			p->exec_pending = ev->ret == 0;
			if (ev->ret != 0)
				p->untraced_said = false;
		}
		return 0;
	case RP_SYSEV_EXIT:
		if ((p = proc_live(m, ev->pid, NULL)) != NULL) {
			p->exec_pending = false;
			rp__sm_drop_fds(m, p); /* no close ops for what it still held, as the kernel closes them */
			p->dead = true;
		}
		return 0;
	case RP_SYSEV_FORK:
		if (ev->a[1] == 1)
			return fork_seen(m, ev, ts);
		return proc_event(m, ev, ts);
	case RP_SYSEV_START: return proc_event(m, ev, ts);
	default: break;
	}
	if (!(p = proc_live(m, ev->pid, &pi))) { /* a process whose START was not seen: an empty table */
		if ((rc = proc_new(m, ev->pid, &pi)) != 0)
			return rc < 0 ? rc : 0;
		p = &m->procs[pi];
	}
	if (p->in_snap && (ev->nr != RP_SYSEV_FD || ev->a[5] == 1))
		snap_end(p);
	const uint32_t leader = p->client;
	bool fresh;
	const int64_t client = thread_client(m, pi, ev->tid, &fresh);
	if (client <= 0)
		return (int)client;
	if (fresh && leader && leader != (uint32_t)client && (rc = fork_op(m, ev, ts, p, leader, (uint32_t)client, true)) < 0)
		return rc;
	if (ev->nr == RP_SYSEV_FD)
		return ev->a[5] == 1 ? fd_seen(m, p, ev) : fd_event(m, p, ev);
	if (ev->nr == RP_SYSEV_WAIT)
		return wait_op(m, ev, ts, p, (uint32_t)client);
	rp__sm_cx c = { .m = m, .ev = ev, .pr = p };
	fill(&c, ts, (uint32_t)client);
	const int r = rp__sm_call(&c);
	if (r < 0)
		return rp_fail(m->err, r, "out of memory");
	if (r == R_BAD)
		m->st.bad++;
	return r == R_OP ? emit(m, &c) : 0;
}

/* opts->only and ->exclude, without trailing slashes. */
static int set_filters(rp_sysmodel *m, char *errbuf)
{
	if (m->opts.only) {
		size_t n = strlen(m->opts.only);
		if (m->opts.only[0] != '/' || n > RP_STR_MAX)
			return rp_fail(errbuf, RP_E_INVAL, "--only %s: not an absolute directory", m->opts.only);
		while (n && m->opts.only[n - 1] == '/')
			n--;
		if (!(m->only = malloc(n + 1)))
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		memcpy(m->only, m->opts.only, n);
		m->only[n] = '\0';
		m->only_len = (uint32_t)n;
	}
	const char *const ex = m->opts.exclude ? m->opts.exclude : "/proc,/sys,/dev";
	const size_t n = strlen(ex);
	if (n > RP_STR_MAX || !(m->excl = malloc(n + 1)))
		return rp_fail(errbuf, n > RP_STR_MAX ? RP_E_INVAL : RP_E_NOMEM, "--exclude: too long or out of memory");
	memcpy(m->excl, ex, n + 1);
	for (size_t at = 0; at < n;) {
		const char *const comma = memchr(m->excl + at, ',', n - at);
		const size_t end = comma ? (size_t)(comma - m->excl) : n;
		size_t len = end - at;
		while (len && m->excl[at + len - 1] == '/')
			len--;
		if (end > at && m->excl[at] != '/')
			return rp_fail(errbuf, RP_E_INVAL, "--exclude: %.*s is no absolute path", (int)(end - at), m->excl + at);
		if (end > at) {
			if (m->n_excl == EXCL_MAX)
				return rp_fail(errbuf, RP_E_LIMIT, "--exclude: more than %u prefixes", EXCL_MAX);
			m->excl_off[m->n_excl] = (uint32_t)at;
			m->excl_len[m->n_excl++] = (uint32_t)len;
		}
		at = end + 1;
	}
	return 0;
}

int rp_sysmodel_create(rp_sysmodel **out, rp_sink *sink, const rp_sysmodel_opts *opts, char *errbuf)
{
	*out = NULL;
	rp_sysmodel *const m = calloc(1, sizeof(*m));
	if (!m)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = RP_E_NOMEM;
	m->sink = sink;
	if (opts)
		m->opts = *opts;
	m->max_clients = m->opts.max_clients ? m->opts.max_clients : CLIENTS_DEFAULT;
	m->paths = rp_strtab_create();
	m->out = rp_strtab_create();
	m->jbuf = malloc(RP_STR_MAX);
	if (!m->paths || !m->out || !m->jbuf) {
		rp_fail(errbuf, rc, "out of memory");
		goto fail;
	}
	if ((rc = set_filters(m, errbuf)) < 0)
		goto fail;
	/* the caller's strings are not kept: the filters are copied, the name goes with the meta at the first event */
	snprintf(m->name, sizeof(m->name), "%s", m->opts.source_name ? m->opts.source_name : "");
	m->opts.only = m->opts.exclude = m->opts.source_name = NULL;
	*out = m;
	return 0;
fail:
	rp_sysmodel_destroy(m);
	return rc;
}

int rp_sysmodel_finish(rp_sysmodel *m)
{
	if (m->finished)
		return 0;
	m->finished = true;
	for (uint32_t i = 0; i < m->n_procs; i++) {
		rp__sm_proc *const p = &m->procs[i];
		if (p->in_snap)
			snap_end(p);
		/* An exec whose image never reported, and nothing said why: it ran untraced (docs/syscall-capture.md). */
		if (!p->dead && p->exec_pending && !p->untraced_said)
			m->st.unreported++;
	}
	int rc = m->started ? 0 : send_meta(m);
	if (rc == 0 && (rc = m->sink->finish(m->sink)) < 0)
		rc = rp_fail(m->err, rc, "sink: %s", m->sink->errbuf);
	return rc;
}

const rp_sysmodel_stats *rp_sysmodel_get_stats(const rp_sysmodel *m)
{
	return &m->st;
}

const char *rp_sysmodel_error(const rp_sysmodel *m)
{
	return m->err;
}

void rp_sysmodel_destroy(rp_sysmodel *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->n_procs; i++)
		free(m->procs[i].fds);
	free(m->procs);
	free(m->threads);
	rp__sm_map_free(&m->pidmap);
	rp__sm_map_free(&m->tidmap);
	rp_strtab_destroy(m->paths);
	rp_strtab_destroy(m->out);
	free(m->strs);
	free(m->jbuf);
	free(m->only);
	free(m->excl);
	free(m);
}
