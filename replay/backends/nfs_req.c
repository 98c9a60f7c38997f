/*
 * The nfs backend's request bookkeeping, below the ops that step requests
 * (nfs_ops.c, nfs_meta.c) and the event loop (nfs.c): the live list of the
 * requests libnfs holds a callback of, their end, orphans of a lost
 * connection, the one libnfs callback every call of a chain answers to,
 * backend handles, the checked names a namespace op changes.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void nreq_free(nreq *q)
{
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

void rp__nfs_complete(nfs_client *c, rp_breq *req, int status)
{
	req->status = status;
	c->completed++;
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

void rp__nfs_close_unwaited(nfs_client *c, struct nfsfh *fh)
{
	/* A lost connection's handles are freed here (LeakSanitizer: every handle open when ganesha went). */
	if (c->lost || !c->nfs)
		nfs_free_nfsfh(fh);
	else
		nfs_close_async(c->nfs, fh, ignore_cb, NULL);
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
	/* An orphan's open that succeeded: its handle is nobody's. */
	if (!q->req && err == 0 && data && (q->step == S_OPEN || q->step == S_TMPOPEN || q->step == S_MKNOD_FILE))
		rp__nfs_close_unwaited(q->c, data);
	if (!rp__nfs_reply_ends(q, err))
		q->reply(q, err, data);
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
