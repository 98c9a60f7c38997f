/*
 * The nfs backend's request bookkeeping, below the ops that step requests
 * (nfs_ops.c, nfs_meta.c) and the event loop (nfs.c): the live list of the
 * requests libnfs holds a callback of, their end, orphans of a lost
 * connection, the one libnfs callback every call of a chain answers to,
 * backend handles, the checked names a namespace op changes, the uncorking
 * of the client's socket (corked by nfs.c's submit) before a wait.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/* For calls whose answer nothing waits for (a close of a handle no op owns any more). */
static void ignore_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)err, (void)nfs, (void)data, (void)priv;
}

static void live_add(nfs_client *c, nreq *q)
{
	q->prev = NULL;
	q->next = c->live;
	if (c->live)
		c->live->prev = q;
	c->live = q;
}

static void live_del(nfs_client *c, nreq *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		c->live = q->next;
	if (q->next)
		q->next->prev = q->prev;
	q->prev = q->next = NULL;
}

/*
 * libnfs 4.0 exports, without declaring it in a public header, the free of
 * a handle with no RPC (what its NFSv3 close does for a clean handle): for
 * handles of a connection that is gone, which no close could reach.
 */
void nfs_free_nfsfh(struct nfsfh *nfsfh);

static void seq_next(nfs_client *c);
static void let_go(nfs_client *c, nreq *q);

/* q leaves the open-owner's line (it goes before its turn came). */
static void seq_unqueue(nfs_client *c, nreq *q)
{
	nreq **pp = &c->seq_head;
	nreq *prev = NULL;
	while (*pp && *pp != q) {
		prev = *pp;
		pp = &(*pp)->wnext;
	}
	if (*pp) {
		*pp = q->wnext;
		if (c->seq_tail == q)
			c->seq_tail = prev;
	}
	q->wnext = NULL;
	q->seq_queued = false;
}

/* q leaves the waiters of the entry it waits on. */
static void wait_unlink(nreq *q)
{
	for (nreq **pp = &q->waits->waiters; *pp; pp = &(*pp)->wnext)
		if (*pp == q) {
			*pp = q->wnext;
			break;
		}
	q->waits = NULL;
	q->wnext = NULL;
}

/*
 * A request goes: the open-owner's turn it held passes on, its place in
 * line or among an entry's waiters is given up, and an OPEN it sent that
 * never ended lets its waiters go on.
 */
static void nreq_free(nreq *q)
{
	nfs_client *const c = q->c;
	if (q->seq_queued)
		seq_unqueue(c, q);
	if (q->waits)
		wait_unlink(q);
	if (q->close_fh) {
		/* A close never sent: its handle is freed here (libnfs frees a sent one). */
		nfs_free_nfsfh(q->close_fh);
		q->close_fh = NULL;
	}
	if (q->opening)
		rp__nfs4_opened(q, NULL, NULL);
	if (q->seq) {
		q->seq = false;
		seq_next(c);
	}
	free(q->path);
	free(q->path2);
	free(q);
}

char *rp__nfs_rooted(const char *p)
{
	const size_t n = strlen(p);
	char *const s = malloc(n + 2);
	if (s) {
		s[0] = '/';
		memcpy(s + 1, p, n + 1);
	}
	return s;
}

void rp__nfs_uncork(nfs_client *c)
{
	c->held = false; /* a request held back goes with libnfs's next service of the socket */
	if (!c->corked)
		return;
	c->corked = false;
	const int fd = c->nfs ? nfs_get_fd(c->nfs) : -1, zero = 0;
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_CORK, &zero, sizeof(zero));
}

void rp__nfs_complete(nfs_client *c, rp_breq *req, int status)
{
	req->status = status;
	c->completed++;
	req->done_ns = rp__nfs_mono_ns(); /* the answer read (version 11): what nfs_submit counts from, if it was sent */
	if (req->cb)
		req->cb(req);
}

nreq *rp__nfs_req_new(nfs_client *c, rp_breq *req)
{
	nreq *const q = calloc(1, sizeof(*q));
	if (!q) {
		rp__nfs_complete(c, req, ENOMEM);
		return NULL;
	}
	q->c = c;
	q->req = req;
	q->f = req->bh ? (nfile *)(uintptr_t)req->bh : NULL;
	if (q->f && q->f->exact)
		q->f = NULL; /* an exact CREATE's handle has no libnfs open: the semantic path goes by path */
	if ((req->path && !(q->path = rp__nfs_rooted(req->path))) ||
	    (req->path2 && !(q->path2 = rp__nfs_rooted(req->path2)))) {
		nreq_free(q);
		rp__nfs_complete(c, req, ENOMEM);
		return NULL;
	}
	live_add(c, q);
	return q;
}

bool rp__nfs_changes_names(int op)
{
	return op == RP_OP_UNLINK || op == RP_OP_RMDIR || op == RP_OP_RENAME || op == RP_OP_LINK || op == RP_OP_SYMLINK ||
	       op == RP_OP_DELTREE;
}

void rp__nfs_names_changed(nfs_client *c, const char *path, const char *path2)
{
	if (!c->group)
		return;
	if (path)
		rp__nfs_names_forget(&c->names, path);
	if (path2)
		rp__nfs_names_forget(&c->names, path2);
	const uint64_t old = atomic_fetch_add_explicit(&c->group->changes, 1u, memory_order_acq_rel);
	if (old == c->seen)
		c->seen = old + 1; /* nobody else's change came between: the names stay */
}

nfile *rp__nfs_file_new(const char *path, struct nfsfh *fh, bool dir)
{
	nfile *const f = malloc(sizeof(*f));
	char *const p = strdup(path);
	if (!f || !p) {
		free(f);
		free(p);
		return NULL;
	}
	*f = (nfile){ .fh = fh, .path = p, .dir = dir };
	return f;
}

struct nfsfh *rp__nfs_file_drop(nfs_client *c, nfile *f)
{
	struct nfsfh *fh = f->fh;
	nopen *const o = f->share;
	if (o && --o->refs > 0) {
		fh = NULL;
	} else if (o) {
		for (nopen **pp = &c->opens; *pp; pp = &(*pp)->next)
			if (*pp == o) {
				*pp = o->next;
				break;
			}
		free(o);
	}
	free(f->path);
	free(f);
	return fh;
}

/* The open-owner's turn came for q's CLOSE (q->close_fh). */
static void send_close(nreq *q)
{
	struct nfsfh *const fh = q->close_fh;
	q->close_fh = NULL;
	q->step = S_CLOSE;
	if (nfs_close_async(q->c->nfs, fh, rp__nfs_reply_cb, q) < 0)
		rp__nfs_finish(q, q->status ? q->status : EIO);
}

void rp__nfs_close(nreq *q, struct nfsfh *fh)
{
	q->close_fh = fh;
	q->step = S_CLOSE;
	rp__nfs_seq_send(q, send_close);
}

void rp__nfs_close_unwaited(nfs_client *c, struct nfsfh *fh)
{
	/* A lost connection's handles are freed here (LeakSanitizer: every handle open when ganesha went). */
	if (c->lost || c->ending || !c->nfs) {
		nfs_free_nfsfh(fh);
		return;
	}
	nreq *const q = c->nb->version == 4 ? calloc(1, sizeof(*q)) : NULL;
	if (!q) {
		nfs_close_async(c->nfs, fh, ignore_cb, NULL); /* NFSv3: no seqid, nothing to wait for */
		return;
	}
	/* NFSv4: a request of no engine op's (an orphan from the start), so the CLOSE waits its turn. */
	q->c = c;
	live_add(c, q);
	rp__nfs_close(q, fh);
}

/* ---- NFSv4: the open-owner's one seqid call, the opens of one file ----------------------- */

void rp__nfs_seq_send(nreq *q, nreq_fn *send)
{
	nfs_client *const c = q->c;
	if (c->nb->version != 4) {
		send(q);
		return;
	}
	if (!c->seq_busy) {
		c->seq_busy = true;
		q->seq = true;
		send(q);
		return;
	}
	q->resume = send;
	q->step = S_V4WAIT;
	q->seq_queued = true;
	q->wnext = NULL;
	if (c->seq_tail)
		c->seq_tail->wnext = q;
	else
		c->seq_head = q;
	c->seq_tail = q;
}

/*
 * The call in flight ended: the next in line sends its own.  One loop at a
 * time (a send that fails at once ends its request, which passes the turn
 * on again: the loop further up goes on with it); a request orphaned while
 * it waited, or any once the client is lost or ending, goes unsent.
 */
static void seq_next(nfs_client *c)
{
	c->seq_busy = false;
	if (c->seq_running)
		return;
	c->seq_running = true;
	while (!c->seq_busy && c->seq_head) {
		nreq *const q = c->seq_head;
		c->seq_head = q->wnext;
		if (!c->seq_head)
			c->seq_tail = NULL;
		q->wnext = NULL;
		q->seq_queued = false;
		if ((!q->req && !q->close_fh) || c->lost || c->ending) {
			let_go(c, q);
			continue;
		}
		c->seq_busy = true;
		q->seq = true;
		q->resume(q);
	}
	c->seq_running = false;
}

nopen *rp__nfs4_find(nfs_client *c, uint64_t ino)
{
	for (nopen *o = c->opens; o; o = o->next)
		if (o->ino == ino)
			return o;
	return NULL;
}

bool rp__nfs4_opening(nreq *q, uint64_t ino)
{
	nfs_client *const c = q->c;
	nopen *const o = calloc(1, sizeof(*o));
	if (!o)
		return false;
	o->ino = ino;
	o->next = c->opens;
	c->opens = o;
	q->opening = o;
	return true;
}

void rp__nfs4_wait(nreq *q, nopen *o, nreq_fn *resume)
{
	q->step = S_V4WAIT;
	q->resume = resume;
	q->waits = o;
	/* In arrival order: appended. */
	nreq **pp = &o->waiters;
	while (*pp)
		pp = &(*pp)->wnext;
	q->wnext = NULL;
	*pp = q;
}

void rp__nfs4_opened(nreq *q, struct nfsfh *fh, nfile *f)
{
	nfs_client *const c = q->c;
	nopen *const o = q->opening;
	q->opening = NULL;
	if (!o)
		return;
	nreq *w = o->waiters;
	o->waiters = NULL;
	if (fh) {
		o->fh = fh;
		o->refs = 1;
		f->share = o;
	} else {
		for (nopen **pp = &c->opens; *pp; pp = &(*pp)->next)
			if (*pp == o) {
				*pp = o->next;
				break;
			}
		free(o);
	}
	/* Each one again: it shares the open now, or (the OPEN failed) sends its own, the first of them opening. */
	while (w) {
		nreq *const next = w->wnext;
		w->wnext = NULL;
		w->waits = NULL;
		if (!w->req || c->lost || c->ending)
			let_go(c, w);
		else
			w->resume(w);
		w = next;
	}
}

/* An orphan goes: the handle it held for its own (a by-path op's, or an NFSv4 open not yet delivered) with it. */
static void orphan_free(nfs_client *c, nreq *q)
{
	if (q->f && (q->tmp || q->step == S_V4INO || q->step == S_V4TRUNC)) {
		struct nfsfh *const fh = rp__nfs_file_drop(c, q->f);
		if (fh)
			rp__nfs_close_unwaited(c, fh);
	}
	q->f = NULL;
	nreq_free(q);
}

/* A request that waited and will not send: the engine's answer EIO if it has none yet, then it goes. */
static void let_go(nfs_client *c, nreq *q)
{
	if (q->req) {
		rp__nfs_finish(q, EIO);
		return;
	}
	live_del(c, q);
	orphan_free(c, q);
}

void rp__nfs_finish(nreq *q, int status)
{
	nfs_client *const c = q->c;
	live_del(c, q);
	rp_breq *const req = q->req;
	/* Again now that it is done: a LOOKUP answered while it was in flight may have seen the old names. */
	if (req && rp__nfs_changes_names(req->op->op))
		rp__nfs_names_changed(c, q->path, q->path2);
	if (q->tmp && q->f) {
		/* A by-path op that failed before its close: the close is sent, its answer not waited for. */
		struct nfsfh *const fh = rp__nfs_file_drop(c, q->f);
		if (fh)
			rp__nfs_close_unwaited(c, fh);
	}
	nreq_free(q);
	if (req)
		rp__nfs_complete(c, req, status);
}

void rp__nfs_queued(nreq *q, int rc)
{
	if (rc < 0)
		rp__nfs_finish(q, rp__nfs_status(rc) ? rp__nfs_status(rc) : EIO);
}

bool rp__nfs_reply_ends(nreq *q, int err)
{
	nfs_client *const c = q->c;
	if (!q->req) {
		/* Orphaned: the engine has its answer already; libnfs let go of the request now. */
		live_del(c, q);
		orphan_free(c, q);
		return true;
	}
	if (err == -ETIMEDOUT || err == -EINTR) {
		/*
		 * No reply within the timeout: libnfs 4.0 fails such an RPC EINTR
		 * (measured: a SIGSTOPped ganesha; no NFS status maps to it).  A
		 * server that hangs ends the client, as one that went away does.
		 */
		char what[96];
		snprintf(what, sizeof(what), "no reply to an RPC within %d ms (backend option timeout)", c->nb->timeout_ms);
		rp__nfs_lose(c, what); /* completes this request too (EIO), and every other in flight */
		live_del(c, q);        /* libnfs is done with this one: no callback of it will come */
		nreq_free(q);
		return true;
	}
	return false;
}

void rp__nfs_reply_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)nfs;
	nreq *const q = priv;
	nfs_client *const c = q->c;
	/*
	 * NFSv4: the open-owner's call in flight was q's.  The next in line sends
	 * once this reply is taken in (q may go with it; a timeout loses the
	 * client first, and then nothing waiting is sent).
	 */
	const bool seq = q->seq;
	q->seq = false;
	/* An orphan's open that succeeded: its handle is nobody's. */
	if (!q->req && err == 0 && data && (q->step == S_OPEN || q->step == S_TMPOPEN || q->step == S_MKNOD_FILE))
		rp__nfs_close_unwaited(c, data);
	if (!rp__nfs_reply_ends(q, err))
		q->reply(q, err, data);
	if (seq)
		seq_next(c);
}

unsigned rp__nfs_mode(const nfs_client *c, uint32_t mode)
{
	/* Set-id bits only with setid: replayed as root, a trace would otherwise plant set-id files (as posix). */
	return mode & (c->nb->setid ? 07777u : 01777u);
}

void rp__nfs_lose(nfs_client *c, const char *what)
{
	if (!c->lost) {
		c->lost = true;
		const char *const err = c->nfs ? nfs_get_error(c->nfs) : NULL;
		snprintf(c->lost_msg, sizeof(c->lost_msg), "%s: %s (libnfs's last error: %s)", c->nb->url, what,
			 err && err[0] ? err : "none");
	}
	rp__nfs_orphan_all(c);
}

void rp__nfs_orphan_all(nfs_client *c)
{
	for (nreq *q = c->live; q; q = q->next) {
		rp_breq *const req = q->req;
		if (!req)
			continue;
		q->req = NULL;
		rp__nfs_complete(c, req, EIO);
	}
}

void rp__nfs_free_orphans(nfs_client *c)
{
	while (c->live) {
		nreq *const q = c->live;
		live_del(c, q);
		orphan_free(c, q);
	}
}

void rp__nfs_release(nfs_client *c, uint64_t bh)
{
	nfile *const f = (nfile *)(uintptr_t)bh;
	if (!f)
		return;
	/* The close is sent and its answer not waited for: nothing waits on a handle the trace left open. */
	struct nfsfh *const fh = rp__nfs_file_drop(c, f);
	if (fh)
		rp__nfs_close_unwaited(c, fh);
}
