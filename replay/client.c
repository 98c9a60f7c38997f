/* One replay client: its op source, its schedule, its handle table; what it records is client_stats.h's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/status.h"
#include "replay/client_req.h"
#include "replay/client.h"
#include "replay/client_stats.h"
#include "replay/req.h"
#include "replay/engine.h"

/* The path behind string id, normalised and cached per client (ids are per source). */
static const rp_pathent *path_load(rp_client *c, uint32_t id)
{
	static const rp_pathent bad = { NULL, EINVAL };
	if (id >= c->n_paths) {
		size_t n = c->n_paths ? c->n_paths : 256;
		while (n <= id)
			n *= 2;
		rp_pathent *const p = realloc(c->paths, n * sizeof(*p));
		if (!p)
			return &bad;
		memset(p + c->n_paths, 0, (n - c->n_paths) * sizeof(*p));
		c->paths = p;
		c->n_paths = n;
	}
	rp_pathent *const e = &c->paths[id];
	if (e->s || e->err)
		return e;
	uint32_t len = 0;
	const char *const raw = c->src->string(c->src, id, &len);
	if (!raw) {
		e->err = EINVAL;
		return e;
	}
	char buf[PATH_MAX];
	const int n = rp_path_norm(raw, len, buf, sizeof(buf));
	if (n < 0) {
		e->err = -n;
		return e;
	}
	e->s = malloc((size_t)n + 1);
	if (!e->s)
		return &bad;
	memcpy(e->s, buf, (size_t)n + 1);
	return e;
}

static inline const rp_pathent *path_get(rp_client *c, uint32_t id)
{
	if (id < c->n_paths && (c->paths[id].s || c->paths[id].err))
		return &c->paths[id];
	return path_load(c, id);
}

/*
 * The handle table: the client's own, without a lock, unless the client is
 * a thread sharing its process's table (a fork op with RP_FK_SHARE: share.c).
 */
static inline int hget(rp_client *c, uint64_t key, uint64_t *val, bool hold)
{
	if (__builtin_expect(c->sh == NULL, 1))
		return rp__handles_get(&c->handles, key, val);
	return rp__sh_get(c, key, val, hold);
}

static inline int hput(rp_client *c, uint64_t key, uint64_t val)
{
	return c->sh ? rp__sh_put(c, key, val) : rp__handles_put(&c->handles, key, val);
}

static inline int hdel(rp_client *c, uint64_t key, uint64_t *val)
{
	return c->sh ? rp__sh_del(c, key, val) : rp__handles_del(&c->handles, key, val);
}

/* The follow-ups a stage left (a delete at a last close), issued before anything else of the client's goes on. */
static inline int followups(rp_client *c)
{
	return __builtin_expect(c->fu.n != 0, 0) ? rp__client_followups(c) : 0;
}

/* Release bh: now, or (a client holding references others share) when its last reference goes. */
static inline void hrelease(rp_client *c, uint64_t bh)
{
	const rp_replay *const r = c->r;
	if (!c->refd) {
		r->bops->release(r->bstate, c->bstate, bh);
		return;
	}
	rp__share_release(c, bh, &c->fu);
	followups(c);
}

/* The references a request held while it ran (a shared table's handles, which another thread may close meanwhile). */
static inline void unhold(rp_client *c, rp_breq *req)
{
	if (req->hold & RP__HOLD_BH)
		rp__share_release(c, req->bh, &c->fu);
	if (req->hold & RP__HOLD_BH2)
		rp__share_release(c, req->bh2, &c->fu);
	req->hold &= ~(unsigned)(RP__HOLD_BH | RP__HOLD_BH2);
	followups(c);
}

/* Ops that act on an open handle: with handle 0 and EBADF recorded, they had none (see backend.h). */
#define BIT(op) (1ull << RP_OP_##op)
static const uint64_t handle_ops = BIT(CLOSE) | BIT(READ) | BIT(WRITE) | BIT(FLUSH) | BIT(LOCK) | BIT(UNLOCK) |
				   BIT(STAT) | BIT(SETATTR) | BIT(STATFS) | BIT(READDIR) | BIT(GETXATTR) |
				   BIT(SETXATTR) | BIT(LISTXATTR) | BIT(REMOVEXATTR) | BIT(COPY);
/*
 * Ops on two handles or on the whole table (dup, copy, fork), and wait: resolved apart
 * (resolve_special), never by path (a path names one file), issued after
 * everything in flight (the window orders by one handle).
 */
static const uint64_t special_ops = BIT(DUP) | BIT(COPY) | BIT(FORK) | BIT(WAIT);

#undef BIT
_Static_assert(RP_OP__COUNT <= 64, "handle_ops is a 64-bit mask");

/* A creation that finds what the previous pass left (the scan found those: rp__scan). */
static inline bool loop_conflict(const rp_client *c, uint64_t index)
{
	uint64_t one;
	return c->passes > 0 && c->r->loop_conflicts.live && index < UINT32_MAX &&
	       rp__handles_get(&c->r->loop_conflicts, (uint64_t)c->trace_client << 32 | index, &one);
}

/*
 * The status to expect: the recorded one, except that a mkdir (symlink,
 * link, ...) of what the previous pass left fails EEXIST in every pass after
 * the first, whatever the target.
 */
static inline int32_t expected(const rp_client *c, const rp_op *op, uint64_t index, int32_t got)
{
	if (got == EEXIST && op->status == 0 && loop_conflict(c, index))
		return EEXIST;
	return op->status;
}

/*
 * An exclusive create of a file the previous pass left: the trace wants a
 * new, empty file and a handle to use, so create-or-truncate it instead.
 */
static const rp_op *loop_open(rp_client *c, const rp_op *op)
{
	c->scratch = *op;
	c->scratch.disp = RP_DISP_TRUNC_IF;
	c->scratch.oflags &= ~(uint32_t)RP_OF_EXCL_VERIFY;
	return &c->scratch;
}

/* What the engine decided about an op before issuing it. */
enum verdict {
	V_ISSUE = 0,   /* hand it to the backend */
	V_REFUSE,      /* a path the engine will not use: recorded as failed with `refuse` */
	V_UNKNOWN,     /* a handle whose open failed: EBADF, counted as unknown */
	V_SKIP,        /* the same under --on-mismatch=skip: not run, not counted as a failure */
	V_NO_HANDLE_1, /* no handle, and a version 1 backend: EBADF without it */
	V_UNSUPPORTED, /* the backend cannot express it (op_mask), or it is on a handle whose open was so */
	V_ENGINE,      /* the engine's own op (dup, fork): no backend call */
	V_CLOSED,      /* a close of a handle others still reference (dup, fork): the engine's, status 0 */
	V_ON,          /* (resolve_close) the handle has no entry: resolve goes on as for any handle */
};

/* The op's paths into req: 0, or V_REFUSE with *refuse the reason. */
static inline __attribute__((always_inline)) int resolve_paths(rp_client *c, const rp_op *op, rp_breq *req, int *refuse)
{
	if (op->path) {
		const rp_pathent *const p = path_get(c, op->path);
		req->path = p->s;
		if ((*refuse = p->err))
			return V_REFUSE;
	}
	if (op->path2) {
		const rp_pathent *const p = path_get(c, op->path2);
		req->path2 = p->s;
		if ((*refuse = p->err))
			return V_REFUSE;
	}
	return 0;
}

/*
 * The ops on two handles or on the table (dup, copy, fork): apart, so the
 * ops every trace is made of resolve as they did before these existed.  A
 * reference held on a handle of a shared table is dropped here when the op
 * goes no further.
 */
static __attribute__((noinline)) enum verdict resolve_special(rp_client *c, const rp_op *op, rp_breq *req, int *refuse)
{
	const rp_replay *const r = c->r;
	const enum verdict unknown = r->opts.on_mismatch == RP_MISMATCH_SKIP ? V_SKIP : V_UNKNOWN;
	if (op->op == RP_OP_FORK || op->op == RP_OP_WAIT)
		return V_ENGINE;
	if (!op->handle)
		return V_NO_HANDLE_1; /* nothing to duplicate or copy from: EBADF, as the call on a bad fd */
	if (resolve_paths(c, op, req, refuse))
		return V_REFUSE;
	enum verdict v = op->op == RP_OP_DUP ? V_ENGINE : V_ISSUE;
	const bool known = hget(c, op->handle, &req->bh, true);
	if (known && c->sh && rp__bh_real(req->bh))
		req->hold |= RP__HOLD_BH;
	if (known && req->bh == BH_UNSUPPORTED)
		v = V_UNSUPPORTED;
	else if (!known && req->path && op->op == RP_OP_DUP)
		req->bh = BH_FAILED; /* an fd inherited from outside the trace, known by its path: so is the dup */
	else if (!known || req->bh == BH_FAILED)
		v = unknown;
	if (op->op == RP_OP_COPY && v == V_ISSUE) {
		const bool known2 = op->handle2 && hget(c, op->handle2, &req->bh2, true);
		if (known2 && c->sh && rp__bh_real(req->bh2))
			req->hold |= RP__HOLD_BH2;
		if (known2 && req->bh2 == BH_UNSUPPORTED)
			v = V_UNSUPPORTED;
		else if (!known2 || req->bh2 == BH_FAILED)
			v = unknown;
	}
	if (v != V_ISSUE && v != V_ENGINE)
		unhold(c, req);
	return v;
}

/* A close by a client whose handles others may reference (dup, fork): the backend closes only the last one. */
static __attribute__((noinline)) enum verdict resolve_close(rp_client *c, const rp_op *op, rp_breq *req)
{
	const rp_replay *const r = c->r;
	const int last = rp__share_close(c, op->handle, &req->bh);
	if (last < 0) {
		req->bh = 0;
		return V_ON;
	}
	if (req->bh == BH_UNSUPPORTED)
		return V_UNSUPPORTED;
	if (req->bh == BH_FAILED)
		return r->opts.on_mismatch == RP_MISMATCH_SKIP ? V_SKIP : V_UNKNOWN;
	if (last == 0)
		return V_CLOSED;
	req->hold |= RP__HOLD_LAST;
	return V_ISSUE;
}

/* Resolve the op's paths and handle into req (done before its deadline, so the wait ends in the issue). */
static inline __attribute__((always_inline)) enum verdict resolve(rp_client *c, const rp_op *op, uint64_t index, rp_breq *req, int *refuse)
{
	const rp_replay *const r = c->r;
	req->op = op->op == RP_OP_OPEN && op->status == 0 && loop_conflict(c, index) ? loop_open(c, op) : op;
	req->path = req->path2 = NULL;
	req->bh = 0;
	req->hold = 0;
	req->zero = false;
	req->no_handle = op->handle == 0 && op->status == EBADF && (handle_ops >> op->op & 1u);
	/*
	 * One test for both: an op the backend cannot express, or one of the
	 * special ops (fast_mask is op_mask without them: rp_replay_create).
	 */
	if (__builtin_expect(!(r->fast_mask >> op->op & 1u), 0)) {
		if (!(r->op_mask >> op->op & 1u))
			return V_UNSUPPORTED;
		if (req->no_handle)
			return r->bops->version >= 2 ? V_ISSUE : V_NO_HANDLE_1;
		return resolve_special(c, op, req, refuse);
	}
	if (req->no_handle)
		return r->bops->version >= 2 ? V_ISSUE : V_NO_HANDLE_1;
	if (resolve_paths(c, op, req, refuse))
		return V_REFUSE;
	if (op->handle && op->op != RP_OP_OPEN) {
		if (op->op == RP_OP_CLOSE && __builtin_expect(c->refd, 0)) {
			const enum verdict v = resolve_close(c, op, req);
			if (v != V_ON)
				return v;
		}
		const bool known = hget(c, op->handle, &req->bh, true);
		if (__builtin_expect(c->sh != NULL, 0) && known && rp__bh_real(req->bh))
			req->hold |= RP__HOLD_BH;
		if (known && req->bh == BH_UNSUPPORTED) {
			uint64_t gone;
			req->bh = 0;
			if (op->op == RP_OP_CLOSE)
				hdel(c, op->handle, &gone);
			return V_UNSUPPORTED;
		}
		/* A handle never opened in this pass but named with its path (NFSv3, synthetic SMB ones): by path. */
		if (!known && req->path) {
			/*
			 * Unless the server said the handle was not open (EBADF,
			 * NT_STATUS_FILE_CLOSED): by path it would succeed or fail
			 * on something else, so it goes without a handle as above.
			 */
			if (op->status == EBADF && (handle_ops >> op->op & 1u)) {
				req->no_handle = true;
				return r->bops->version >= 2 ? V_ISSUE : V_NO_HANDLE_1;
			}
			return V_ISSUE;
		}
		if (!known || req->bh == BH_FAILED) {
			uint64_t gone;
			req->bh = 0;
			if (op->op == RP_OP_CLOSE)
				hdel(c, op->handle, &gone);
			return r->opts.on_mismatch == RP_MISMATCH_SKIP ? V_SKIP : V_UNKNOWN;
		}
	}
	return V_ISSUE;
}

/* The NT layer (replay/ntsem.c), for backends without NT semantics of their own: only where an NT or delete-on-close handle is. */
static inline bool nt_wanted(const rp_client *c, const rp_op *op)
{
	return c->r->nt_layer &&
	       (c->nt.handles.live || (op->op == RP_OP_OPEN && (op->oflags & (RP_OF_NT | RP_OF_DELETE_ON_CLOSE))));
}

static inline bool nt_pre(rp_client *c, const rp_op *op, rp_breq *req)
{
	if (!nt_wanted(c, op))
		return false;
	const int pre = rp__nt_before(c, op, req);
	if (!pre)
		return false;
	rp__req_begin(req);
	req->status = pre == RP__NT_DONE ? 0 : pre;
	return true;
}

/* After the backend returned: the handle table, then the statistics. */
static inline __attribute__((always_inline)) void finish(rp_client *c, const rp_op *op, rp_breq *req, uint64_t index,
							 uint64_t sched, uint64_t issue, uint64_t done, bool windowed)
{
	rp_replay *const r = c->r;
	if (__builtin_expect(req->hold != 0, 0)) {
		const unsigned hold = req->hold;
		unhold(c, req);
		if (hold & RP__HOLD_LAST) {
			rp__share_last(r, req->bh, &c->fu); /* a delete-on-close another client's close left to this last one */
			followups(c);
		}
	}
	/* The NT layer's view of the completion (a close takes the status of the delete it asks for), and the backend's errno in the numbering traces hold. */
	if (nt_wanted(c, op)) {
		rp__nt_after(c, op, req, &c->fu);
		const int st = followups(c);
		if (op->op == RP_OP_CLOSE && req->status == 0 && st)
			req->status = st;
	}
	if (req->status > 0)
		req->status = rp_errno_from_host(req->status);
	c->acc[op->op].specials += req->special && issue >= r->warm_end;
	c->acc[op->op].escapes += req->escape && issue >= r->warm_end;
	if (op->op == RP_OP_OPEN) {
		uint64_t old;
		const bool live = op->handle && hget(c, op->handle, &old, false) && rp__bh_real(old);
		if (!op->handle && req->status == 0 && req->bh) {
			/* an open with no handle to use later (NFS CREATE3, a loadfile's): nothing keeps it open */
			r->bops->release(r->bstate, c->bstate, req->bh);
		} else if (op->handle && req->status == 0) {
			if (live)
				hrelease(c, old);
			if (hput(c, op->handle, req->bh) < 0)
				r->bops->release(r->bstate, c->bstate, req->bh);
			else if (windowed && op->path)
				rp__handles_put(&c->hpath, op->handle, op->path); /* no memory: fewer names, still ordered by handle */
		} else if (op->handle && !live) {
			/*
			 * A failed open is remembered, so the ops on its handle count as
			 * unknown and never go by path.  It leaves a live handle with the
			 * same id alone: a failed open allocates none (client.txt reuses fnums).
			 */
			hput(c, op->handle, BH_FAILED);
		}
	} else if (op->op == RP_OP_CLOSE && op->handle) {
		uint64_t old;
		hdel(c, op->handle, &old);
		if (windowed)
			rp__handles_del(&c->hpath, op->handle, &old);
	}
	rp__cstats_record(c, op, index, sched, issue, done, true, expected(c, op, index, req->status), req->status, req->result,
	       req->path, windowed);
	if (!windowed || done > c->last_done)
		c->last_done = done;
}

/* An op's end in the window: finish, then resource order moves on (what one at a time does inline). */
static __attribute__((noinline)) void win_finish(rp_client *c, const rp_op *op, rp_breq *req, uint64_t index,
						 uint64_t sched, uint64_t issue, uint64_t done, const rp_ordreq *ord)
{
	finish(c, op, req, index, sched, issue, done, true);
	if (ord->n)
		rp__order_done(c->r, ord);
}

/*
 * dup: handle2 names the backend handle of handle, one more reference on it
 * (one open file, as dup(2) makes: one position, one last close).
 */
static int32_t dup_handle(rp_client *c, const rp_op *op, uint64_t bh)
{
	if (!op->handle2)
		return 0; /* the trace names no new handle: nothing to make */
	uint64_t old;
	if (hget(c, op->handle2, &old, false) && hdel(c, op->handle2, &old) && rp__bh_real(old))
		hrelease(c, old); /* dup2 over an open handle closes it first */
	if (bh == BH_FAILED)
		return 0; /* of a handle known by its path only (resolve): so is the new one */
	if (rp__bh_real(bh) && rp__share_hold(c->r, bh) < 0)
		return ENOMEM;
	c->refd = true;
	if (hput(c, op->handle2, bh) < 0) {
		rp__share_release(c, bh, &c->fu);
		followups(c);
		return ENOMEM;
	}
	if (c->r->nt_layer && c->nt.handles.live)
		rp__nt_dup(c, op->handle, op->handle2, &c->fu);
	followups(c);
	return 0;
}

/* Run one resolved op now.  Returns the completion time. */
static inline __attribute__((always_inline)) uint64_t exec(rp_client *c, const rp_op *op, rp_breq *req, enum verdict v,
							   int refuse, uint64_t index, uint64_t sched, uint64_t t)
{
	rp_replay *const r = c->r;
	const bool counted = t >= r->warm_end;
	switch (v) {
	case V_ENGINE: {
		const uint64_t issue = rp__now(r);
		const int32_t st = op->op == RP_OP_FORK   ? rp__share_fork(c, op, &c->fu)
				   : op->op == RP_OP_WAIT ? rp__share_wait(c, op)
							  : dup_handle(c, op, req->bh);
		unhold(c, req); /* and the follow-ups of the fork */
		const uint64_t done = rp__now(r);
		rp__cstats_record(c, op, index, sched, issue, done, true, op->status, st, 0, req->path, false);
		if (done > c->last_done)
			c->last_done = done;
		return done;
	}
	case V_CLOSED: {
		/* Completed here, through finish like any close: the NT layer sees it, the statistics count it. */
		const uint64_t now = rp__now(r);
		rp__req_begin(req);
		finish(c, op, req, index, sched, now, now, false);
		return now;
	}
	case V_REFUSE:
		c->acc[op->op].escapes += refuse == EXDEV && counted;
		rp__cstats_record(c, op, index, sched, t, t, false, op->status, refuse, 0, req->path, false);
		return t;
	case V_SKIP:
		c->acc[op->op].skipped += counted;
		return t;
	case V_UNSUPPORTED:
		/*
		 * Neither a failure nor a mismatch: the backend was never asked.  An
		 * open's handle is marked, so the ops on it are counted the same way
		 * rather than as unknown handles.
		 */
		c->acc[op->op].unsupported += counted;
		/* A dup of such a handle is such a handle too. */
		const uint64_t made = op->op == RP_OP_OPEN ? op->handle : op->op == RP_OP_DUP ? op->handle2 : 0;
		if (made && op->status == 0) {
			uint64_t old;
			if (hget(c, made, &old, false) && rp__bh_real(old) && hdel(c, made, &old))
				hrelease(c, old);
			if (hput(c, made, BH_UNSUPPORTED) < 0)
				hdel(c, made, &old); /* no memory: its ops count as unknown */
		}
		return t;
	case V_UNKNOWN:
		c->acc[op->op].unknown += counted;
		/* fall through */
	case V_NO_HANDLE_1:
		rp__cstats_record(c, op, index, sched, t, t, false, op->status, EBADF, 0, req->path, false);
		return t;
	case V_ISSUE:
	case V_ON:
		break;
	}
	/* The issue time is taken last, right before the backend call: lag and latency are the call's. */
	const uint64_t issue = rp__now(r);
	if (!nt_pre(c, op, req))
		rp__client_submit(c, req);
	const uint64_t done = rp__now(r);
	finish(c, op, req, index, sched, issue, done, false);
	return done;
}

/*
 * The window's key of op: its paths, or for an op on a handle without a path
 * the path that handle's open named.
 */
static void win_key(rp_client *c, const rp_op *op, rp_wkey *k)
{
	const char *n1 = NULL, *n2 = NULL;
	uint64_t id;
	if (op->path)
		n1 = path_get(c, op->path)->s;
	else if (op->handle && rp__handles_get(&c->hpath, op->handle, &id))
		n1 = path_get(c, (uint32_t)id)->s;
	if (op->path2)
		n2 = path_get(c, op->path2)->s;
	rp__win_key(k, op, n1, n2);
}

/* Wait until op may be issued with what is in flight (the key is made again as earlier ops complete). */
static void win_admit(rp_client *c, const rp_op *op, rp_wkey *k)
{
	for (;;) {
		win_key(c, op, k);
		if (rp__win_ready(c, k))
			return;
		rp__win_block(c);
	}
}

/* A request in the window: the slot of one op, with what its completion needs. */
typedef struct win_slot {
	rp_slot s;  /* first: the window's part */
	rp_op op;   /* the trace op (the source's batch moves on) */
	rp_op alt;  /* the op the engine issues instead (loop_open), when s.req.op points here */
	uint64_t index, sched;
	rp_ordreq ord; /* --order=resource: moved on at the completion */
} win_slot;

const size_t rp__client_slot_size = sizeof(win_slot);

/* A slot's completion (the window reaped it): the op's end. */
static void slot_done(void *ctx, rp_slot *s)
{
	win_slot *const w = (win_slot *)s;
	win_finish(ctx, &w->op, &s->req, w->index, w->sched, s->issue, s->done, &w->ord);
}

/*
 * Issue a resolved op in the window: the NT layer may answer it; else to an
 * idle worker or the asynchronous backend in a slot (when the next op
 * overlaps it in the recording), or here and now.  The time to go on from.
 */
static uint64_t win_issue(rp_client *c, const rp_op *op, rp_breq *req, const rp_wkey *k, uint64_t index, uint64_t sched,
			  bool next_overlaps, const rp_ordreq *ord)
{
	const rp_replay *const r = c->r;
	const uint32_t depth = c->win->n + 1;
	c->depth_ops++;
	c->depth_sum += depth;
	if (depth > c->depth_max)
		c->depth_max = depth;
	/* The NT layer may answer it itself (an access refused, a lock conflict, a delete-on-close set-info). */
	if (nt_pre(c, op, req)) {
		const uint64_t now = rp__now(r);
		win_finish(c, op, req, index, sched, now, now, ord);
		return now;
	}
	rp_slot *const s = rp__win_take(c, op->op, next_overlaps);
	if (!s) {
		/* As one at a time does: the request on this thread, then its end. */
		const uint64_t issue = rp__now(r);
		rp__client_submit(c, req);
		const uint64_t done = rp__now(r);
		rp__win_ran(c, op->op, done - issue);
		win_finish(c, op, req, index, sched, issue, done, ord);
		return done;
	}
	win_slot *const w = (win_slot *)s;
	w->op = *op;
	s->req = *req;
	if (req->op != op) {
		w->alt = *req->op;
		s->req.op = &w->alt;
	} else {
		s->req.op = &w->op;
	}
	s->key = *k;
	s->complete = slot_done;
	s->ctx = c;
	w->ord = *ord;
	w->index = index;
	w->sched = sched;
	return rp__win_post(c, s);
}

void rp__client_release_all(rp_client *c)
{
	uint64_t key, bh;
	rp__share_leave(c, &c->fu); /* a thread leaves its table to the others; the last one releases it */
	followups(c);
	while (rp__handles_pop(&c->handles, &key, &bh))
		if (rp__bh_real(bh))
			hrelease(c, bh);
	rp__ntclient_reset(c, &c->fu);
	followups(c);
}

static inline uint64_t scale(const rp_replay *r, uint64_t t)
{
	if (r->inv_speed == 1.0)
		return t;
	/* Saturated: a slow --speed on a late time would not fit 64 bits (and the cast would be undefined). */
	const double v = (double)t * r->inv_speed;
	return v < 0x1p64 ? (uint64_t)v : UINT64_MAX;
}

static inline bool stopping(const rp_replay *r)
{
	return atomic_load_explicit(&r->stop, memory_order_relaxed);
}

/*
 * Before an op (r->client_error set): whether the backend lost the client's
 * state for good; if so the window is drained, c->rc and c->stop say so, and
 * the client stops.
 */
static bool client_lost(rp_client *c, bool windowed)
{
	const rp_replay *const r = c->r;
	const int lost = r->client_error(r->bstate, c->bstate, c->errbuf);
	if (lost >= 0)
		return false;
	if (windowed)
		rp__win_drain(c);
	c->rc = lost;
	c->stop = RP_STOP_ERROR;
	return true;
}

/*
 * The client's passes through its ops until the end, the time limit or a stop.
 * Made twice (windowed a constant): one op at a time pays nothing for the window.
 */
static inline __attribute__((always_inline)) void run_impl(rp_client *c, const bool windowed)
{
	rp_replay *const r = c->r;
	const rp_timing timing = r->opts.timing;
	const uint64_t end = r->end;
	const uint64_t start = r->t0 + ((uint64_t)r->opts.clone_base + c->clone) * r->offset_ns;
	if (rp__wait_until(r, &c->late_est, start) < start) {
		c->stop = RP_STOP_INTERRUPTED;
		return;
	}
	uint64_t base = start;
	/* think timing: where the schedule of this pass starts (the recorded spans of the passes before, scaled) */
	uint64_t think_base = start;
	for (;;) {
		/* A client a fork op made starts once its parent has replayed that op (and has its handles). */
		if (c->gate)
			rp__share_gate_wait(c);
		uint64_t span = 0, first_start = 0, index = 0, prev_done = rp__now(r), prev_rec_end = 0;
		uint64_t think_slept = 0; /* think timing: the explicit sleeps of this pass so far, scaled */
		const rp_op *ops = NULL;
		int n = 0, k = 0;
		for (;;) {
			if (stopping(r)) {
				c->stop = atomic_load(&r->aborted) ? RP_STOP_MISMATCH : RP_STOP_INTERRUPTED;
				return;
			}
			if (k == n) {
				n = c->src->next(c->src, &ops);
				k = 0;
				if (n < 0) {
					c->rc = rp_fail(c->errbuf, n, "client %u: %s", c->index, c->src->errbuf);
					c->stop = RP_STOP_ERROR;
					return;
				}
				if (n == 0)
					break;
			}
			/* A backend whose client state is lost for good (its server went away): stop, rather than fail every op left. */
			if (r->client_error && client_lost(c, windowed))
				return;
			const rp_op *const op = &ops[k++];
			if (op->op >= RP_OP__COUNT)
				continue; /* an op newer than this engine: the reader already vouched for the record */
			if (index++ == 0)
				first_start = op->t_start;
			const uint64_t rec_end =
				op->t_end != RP_TIME_UNKNOWN && op->t_end > op->t_start ? op->t_end : op->t_start;
			if (rec_end > span)
				span = rec_end;
			uint64_t sched = 0;
			if (timing == RP_TIMING_TRACE) {
				sched = base + scale(r, op->t_start);
			} else if (timing == RP_TIMING_THINK) {
				const uint64_t gap = index > 1 && op->t_start > prev_rec_end ? op->t_start - prev_rec_end : 0;
				sched = prev_done + scale(r, gap);
			}
			if (op->op == RP_OP_SLEEP) {
				/* An explicit pause; in trace timing the timestamps already hold it. */
				if (timing != RP_TIMING_TRACE)
					prev_done = rp__win_idle_wait(c, (sched ? sched : prev_done) + scale(r, op->length));
				if (timing == RP_TIMING_THINK)
					think_slept += scale(r, op->length);
				prev_rec_end = rec_end;
				c->acc[RP_OP_SLEEP].count += prev_done >= r->warm_end;
				continue;
			}
			rp_breq req;
			rp_wkey key;
			int refuse = 0;
			/* An op on two handles, or on the whole table (fork), waits for everything in flight. */
			const bool whole = windowed && (special_ops >> op->op & 1u);
			if (windowed && whole)
				rp__win_drain(c);
			else if (windowed)
				win_admit(c, op, &key);
			/* --order=resource: before resolve, which may look up a handle another thread's earlier op opens. */
			rp_ordreq oq = { .n = 0 };
			if (__builtin_expect(c->ord != NULL, 0) && !rp__order_before(c, index, &oq, rp__win_progress)) {
				c->stop = RP_STOP_TIME;
				return;
			}
			if (oq.n && stopping(r))
				continue; /* reported at the top of the loop */
			const enum verdict v = resolve(c, op, index, &req, &refuse);
			/* afap: the previous completion is the time now, near enough to end the run on. */
			uint64_t t = prev_done;
			if (sched) {
				if (end && sched >= end) {
					c->stop = RP_STOP_TIME;
					return;
				}
				t = windowed ? rp__win_wait_until(c, sched) : rp__win_idle_wait(c, sched);
				if (stopping(r))
					continue; /* reported at the top of the loop */
			}
			if (end && t >= end) {
				c->stop = RP_STOP_TIME;
				return;
			}
			if (timing != RP_TIMING_AFAP && t >= r->warm_end) {
				/* Its schedule: trace timing's absolute one; think's the recorded span laid from the pass's start. */
				const bool tr = timing == RP_TIMING_TRACE;
				const uint64_t at = tr ? base : think_base + think_slept, from = tr ? 0 : first_start;
				rp__cstats_sched(c, t, at + scale(r, op->t_start > from ? op->t_start - from : 0),
						 at + scale(r, rec_end > from ? rec_end - from : 0));
			}
			if (windowed && v == V_ISSUE && !whole)
				prev_done = win_issue(c, op, &req, &key, index, sched, k < n && ops[k].t_start < rec_end, &oq);
			else
				prev_done = exec(c, op, &req, v, refuse, index, sched, t);
			if (oq.n && !(windowed && v == V_ISSUE && !whole))
				rp__order_done(r, &oq); /* whatever its outcome; the window's own when it completes */
			prev_rec_end = rec_end;
		}
		if (windowed)
			rp__win_drain(c);
		rp__client_release_all(c);
		c->passes++;
		rp__share_pass_done(c, c->passes);
		if (index == 0 || !end) {
			c->stop = RP_STOP_END;
			return;
		}
		const int rc = c->src->rewind(c->src);
		if (rc < 0) {
			c->rc = rp_fail(c->errbuf, rc, "client %u: rewind: %s", c->index, c->src->errbuf);
			c->stop = RP_STOP_ERROR;
			return;
		}
		/*
		 * The next pass starts one mean inter-op gap after the last op of this
		 * one, as if the trace went on (at least 1 us, so an untimed trace still
		 * advances).
		 */
		const uint64_t gap = index > 1 && span > first_start ? (span - first_start) / (index - 1) : 0;
		const uint64_t step = scale(r, span + gap);
		base += step > 1000 ? step : 1000;
		think_base += scale(r, span > first_start ? span - first_start : 0) + think_slept;
	}
}

void rp__client_run(rp_client *c)
{
	if (c->win)
		run_impl(c, true);
	else
		run_impl(c, false);
	if (c->win)
		rp__win_drain(c); /* a worker's op may be the one that found the backend gone */
}

void rp__client_free(rp_client *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < RP_OP__COUNT; i++)
		free(c->acc[i].lat);
	free(c->lag);
	for (size_t i = 0; i < c->n_paths; i++)
		free(c->paths[i].s);
	free(c->paths);
	free(c->series);
	rp__ntclient_fini(c);
	rp__followups_fini(&c->fu);
	rp__share_gate_free(c);
	free(c->bstate);
	rp__handles_fini(&c->handles);
	rp__handles_fini(&c->hpath);
	rp__tdepth_fini(&c->tdepth);
	free(c);
}
