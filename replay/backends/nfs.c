/*
 * The nfs backend: trace ops as NFSv3 or NFSv4.0 calls through libnfs 4.0's
 * asynchronous API (RFC 1813, RFC 7530), one nfs_context per client state,
 * its own event loop (poll(2) on the context's socket), many RPCs in flight.
 * This file, on top of the others (nfs_int.h): the vtable, mounting each
 * client's directory, the event loop.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/stat.h>
#include <time.h>

#include <nfsc/libnfs-raw-nfs.h>

enum { N_OPT_TIMEOUT, N_OPT_SETID, N_OPT_MODE, N_OPT_LOCK_WAIT, N_OPT__COUNT };
enum { MODE_AUTO, MODE_EXACT, MODE_SEMANTIC };
static const char *const mode_choices[] = { "auto", "exact", "semantic", NULL };

static const rp_backend_opt nfs_opts[] = {
	[N_OPT_TIMEOUT] = { .name = "timeout", .type = RP_BOPT_DURATION, .def = "30s", .min = 100000000u,
			    .max = 3600000000000u,
			    .help = "an RPC without a reply this long fails ETIMEDOUT and ends the client (a server that hangs)" },
	[N_OPT_SETID] = { .name = "setid", .type = RP_BOPT_FLAG,
			  .help = "apply the trace's setuid and setgid bits (dropped otherwise; the sticky bit always applies)" },
	[N_OPT_MODE] = { .name = "mode", .type = RP_BOPT_ENUM, .def = "auto", .choices = mode_choices,
			 .help = "exact: each op of an NFSv3 trace is the one RPC it was, of an NFSv4.0 trace the COMPOUND "
				 "it came in, on handles and stateids from the server's replies (what cannot be falls back, "
				 "counted); semantic: ops as path calls; auto: exact when the trace is of the target's "
				 "version (NFSv3 to version=3, NFSv4.0 to version=4; an NFSv4.1 trace, all sessions, "
				 "semantic, said in the summary); locks (LOCK, LOCKT, LOCKU) go only in "
				 "NFSv4.0 exact mode, counted unsupported otherwise" },
	[N_OPT_LOCK_WAIT] = { .name = "lock-wait", .type = RP_BOPT_DURATION, .def = "30s", .max = 3600000000000u,
			      .help = "NFSv4.0 exact mode: a blocking lock (READW_LT, WRITEW_LT; the trace saw it granted) "
				      "the server denies is sent again, after 10 ms, then twice as long each time up to "
				      "500 ms, for this long from the first denial, then fails ETIMEDOUT (counted); 0: sent once" },
	[N_OPT__COUNT] = { .name = NULL },
};

static const char *const nfs_schemes[] = { "nfs", NULL };

static int nfs_create_backend(void **out, const rp_backend_args *args, char *errbuf)
{
	rp_nfs_url_info info;
	const int rc = rp__nfs_url_check(args->target, &info, errbuf);
	if (rc < 0)
		return rc;
	nfs_backend *const nb = calloc(1, sizeof(*nb));
	if (!nb || !(nb->url = strdup(args->target))) {
		free(nb);
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	}
	pthread_mutex_init(&nb->lock, NULL);
	nb->version = info.version;
	nb->nfsport = info.nfsport;
	nb->mountport = info.mountport;
	nb->timeout_ms = (int)(args->vals[N_OPT_TIMEOUT].u / 1000000u);
	nb->setid = args->vals[N_OPT_SETID].u != 0;
	nb->lock_wait_ns = args->vals[N_OPT_LOCK_WAIT].u;
	/* auto: exact for a trace exact mode can send; forced exact, a 4.1 session's ops fall back, counted. */
	const uint64_t mode = args->vals[N_OPT_MODE].u;
	const char *why = NULL;
	const bool auto_exact = rp__nfs_auto_exact(nb->version, args->protos, args->flags_every, &why);
	nb->exact = mode == MODE_EXACT || (mode == MODE_AUTO && auto_exact);
	nb->mode_why = mode == MODE_AUTO ? why : NULL;
	/* Locks go as LOCK, LOCKT, LOCKU of exact NFSv4.0 (nfs4_lock.c); the semantic path has no lock state to name. */
	if (args->op_mask && !(nb->exact && nb->version == 4))
		*args->op_mask &= ~(UINT64_C(1) << RP_OP_LOCK | UINT64_C(1) << RP_OP_UNLOCK);
	const uint32_t share = RP_NFS_FHMAP_TOTAL / (args->n_clients ? args->n_clients : 1);
	nb->fhmap_max = share > RP_NFS_FHMAP_MAX ? RP_NFS_FHMAP_MAX : share < RP_NFS_FHMAP_MIN ? RP_NFS_FHMAP_MIN : share;
	*out = nb;
	return 0;
}

static void nfs_destroy_backend(void *backend)
{
	nfs_backend *const nb = backend;
	if (!nb)
		return;
	for (nfs_group *g = nb->groups, *next; g; g = next) {
		next = g->next;
		rp__nfs_fhmap_fini(&g->fhmap);
		pthread_mutex_destroy(&g->lock);
		free(g->mount);
		free(g);
	}
	pthread_mutex_destroy(&nb->lock);
	free(nb->url);
	free(nb);
}

/*
 * Make dir (a relative path of plain components: "client1") beneath the
 * target's root, each component a real directory: one that is there but is
 * a symlink or no directory is refused, since the mount of it would follow
 * whatever it names.
 */
static int make_dir_beneath(const nfs_backend *nb, struct nfs_context *nfs, const char *dir, char *errbuf)
{
	char path[PATH_MAX];
	size_t n = 0;
	for (const char *p = dir; *p;) {
		const size_t len = strcspn(p, "/");
		if (n + 1 + len >= sizeof(path))
			return rp_fail(errbuf, RP_E_INVAL, "%s: client directory %s: too long", nb->url, dir);
		path[n++] = '/';
		memcpy(path + n, p, len);
		n += len;
		path[n] = '\0';
		p += len + (p[len] == '/');
		const int mk = nfs_mkdir2(nfs, path, 0777);
		if (mk < 0 && mk != -EEXIST)
			return rp_fail(errbuf, RP_E_IO, "%s: mkdir %s: %s", nb->url, path + 1, nfs_get_error(nfs));
		struct nfs_stat_64 st;
		const int rc = nfs_lstat64(nfs, path, &st);
		if (rc < 0)
			return rp_fail(errbuf, RP_E_IO, "%s: %s: %s", nb->url, path + 1, nfs_get_error(nfs));
		if (!S_ISDIR(st.nfs_mode))
			return rp_fail(errbuf, RP_E_INVAL, "%s: %s is there and is no directory (a symlink is not followed)",
				       nb->url, path + 1);
	}
	return 0;
}

/*
 * The group of the clients that mount this directory (made on first use):
 * those of one copy of a multi-client trace share it, and a symlink one of
 * them makes or renames into place must reach the others' checked names.
 */
static nfs_group *join_group(nfs_backend *nb, const char *mount)
{
	pthread_mutex_lock(&nb->lock);
	nfs_group *g = nb->groups;
	while (g && strcmp(g->mount, mount) != 0)
		g = g->next;
	if (!g && (g = calloc(1, sizeof(*g))) != NULL) {
		if ((g->mount = strdup(mount)) != NULL) {
			pthread_mutex_init(&g->lock, NULL);
			rp__nfs_fhmap_init(&g->fhmap, nb->fhmap_max);
			g->next = nb->groups;
			nb->groups = g;
		} else {
			free(g);
			g = NULL;
		}
	}
	pthread_mutex_unlock(&nb->lock);
	return g;
}

/*
 * The client's state: its directory beneath the target made through a
 * mount of the target, then that directory mounted by a context of its
 * own, so it is libnfs's root: libnfs resolves symlinks itself, component by
 * component, and refuses one that climbs above the root or is absolute
 * (NFSv3) or resolves it beneath the root (NFSv4), as measured against
 * ganesha (docs/replay.md, "NFS backend"): no path reaches outside.
 */
static int nfs_client_init(void *backend, void *client, const char *dir, char *errbuf)
{
	nfs_backend *const nb = backend;
	nfs_client *const c = client;
	memset(c, 0, sizeof(*c));
	c->nb = nb;
	struct nfs_context *nfs = NULL;
	struct nfs_url *url = NULL;
	int rc = rp__nfs_context(nb, &nfs, &url, errbuf);
	if (rc < 0)
		return rc;
	const size_t plen = strlen(url->path), dlen = strlen(dir);
	if (dir[0]) {
		rc = rp__nfs_mount(nb, nfs, url->server, url->path, errbuf);
		if (rc == 0)
			rc = make_dir_beneath(nb, nfs, dir, errbuf);
		nfs_destroy_context(nfs);
		nfs = NULL;
		nfs_destroy_url(url);
		url = NULL;
		if (rc < 0)
			return rc;
		rc = rp__nfs_context(nb, &nfs, &url, errbuf);
		if (rc < 0)
			return rc;
	}
	c->mount = malloc(plen + 1 + dlen + 1);
	c->wbuf = malloc(RP_NFS_IO_MAX);
	c->zbuf = calloc(1, RP_NFS_IO_MAX);
	if (!c->mount || !c->wbuf || !c->zbuf) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto fail;
	}
	memset(c->wbuf, 0x5a, RP_NFS_IO_MAX); /* written data is a fixed pattern, as posix writes */
	snprintf(c->mount, plen + 1 + dlen + 1, "%s%s%s", url->path, dir[0] && (!plen || url->path[plen - 1] != '/') ? "/" : "",
		 dir);
	rc = rp__nfs_mount(nb, nfs, url->server, c->mount, errbuf);
	if (rc < 0)
		goto fail;
	/* The checked names (nfs_ops.c), NFSv3 and NFSv4 alike. */
	if (!(c->group = join_group(nb, c->mount))) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto fail;
	}
	rp__nfs_names_init(&c->names, 0);
	c->seen = atomic_load(&c->group->changes);
	if (nb->exact && nb->version == 3) {
		/* Exact mode's first handle: the root of this mount, from the MOUNT reply. */
		const struct nfs_fh3 *const root = nfs_get_rootfh(nfs);
		if (!root || !root->data.data_val || root->data.data_len > RP_NFS_FH_MAX) {
			rc = rp_fail(errbuf, RP_E_IO, "%s: the mount gave no root file handle", nb->url);
			goto fail;
		}
		pthread_mutex_lock(&c->group->lock);
		if (!c->group->fhmap.have_root)
			rp__nfs_fhmap_set_root(&c->group->fhmap, root->data.data_val, root->data.data_len);
		pthread_mutex_unlock(&c->group->lock);
	}
	c->nfs = nfs;
	if (nb->exact && nb->version == 4 && (rc = rp__nfs4_exact_init(c, errbuf)) < 0) {
		c->nfs = NULL;
		goto fail;
	}
	nfs_destroy_url(url);
	/* NFSv4 in libnfs 4.0 reports no sizes (0) and cannot encode a WRITE past 3944 bytes: pieces of our own. */
	const uint64_t rmax = nfs_get_readmax(nfs), wmax = nfs_get_writemax(nfs);
	c->rmax = nb->version == 4 || !rmax ? RP_NFS4_READ_CHUNK : rmax < RP_NFS_IO_MAX ? rmax : RP_NFS_IO_MAX;
	c->wmax = nb->version == 4 || !wmax ? RP_NFS4_WRITE_CHUNK : wmax < RP_NFS_IO_MAX ? wmax : RP_NFS_IO_MAX;
	return 0;
fail:
	nfs_destroy_url(url);
	nfs_destroy_context(nfs);
	free(c->mount);
	free(c->wbuf);
	free(c->zbuf);
	memset(c, 0, sizeof(*c));
	return rc;
}

static void nfs_client_fini(void *backend, void *client)
{
	(void)backend;
	nfs_client *const c = client;
	/* Nothing more is sent (a CLOSE waiting its turn, NFSv4): what waits is let go. */
	c->ending = true;
	rp__nfs4_exact_fini(c);
	/* Requests libnfs still holds (a lost connection's) are completed already; destroying the context cancels them. */
	rp__nfs_orphan_all(c);
	if (c->nfs)
		nfs_destroy_context(c->nfs);
	if (c->side)
		nfs_destroy_context(c->side);
	c->nfs = c->side = NULL;
	rp__nfs_free_orphans(c);
	rp__nfs_names_fini(&c->names);
	free(c->mount);
	free(c->wbuf);
	free(c->zbuf);
	c->mount = c->wbuf = c->zbuf = NULL;
}

/* Why the socket failed, for the message: the server closed it, or the socket's error. */
static void lose_socket(nfs_client *c, int fd, short revents)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	if (fd >= 0)
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
	char what[128];
	if (soerr)
		snprintf(what, sizeof(what), "the server connection failed: %s", strerror(soerr));
	else if (revents & POLLHUP)
		snprintf(what, sizeof(what), "the server closed the connection");
	else
		snprintf(what, sizeof(what), "the server connection failed");
	rp__nfs_lose(c, what);
}

/*
 * What the submit queued, written into the socket now (libnfs 4.0 queues an
 * RPC and writes it only when serviced for POLLOUT), with the socket corked
 * until the client next waits (rp__nfs_wait): the requests a client issues
 * back to back leave together, as one segment, the moment it has no more to
 * issue.  Written one by one, the first of a burst of 16 reads reached the
 * server alone and was answered before the rest arrived: the server never
 * had more than 15 (mean 7.5 at each request for a recorded 8.48; corked,
 * 16 and 8.44: docs/BENCHMARKS.md, "Through the delay proxy").  sent_ns is
 * this write, the request's entry into the socket.  Whatever waits for the
 * server uncorks first (rp__nfs_uncork: this loop, deltree's synchronous calls).
 */
static void flush(nfs_client *c)
{
	if (c->lost || !c->nfs || !(nfs_which_events(c->nfs) & POLLOUT))
		return;
	/*
	 * The first request since the client last waited is held back: alone
	 * (one at a time, the common case) it is written at the wait, uncorked,
	 * one send (a cork and an uncork around it were two syscalls more per
	 * RPC: 1.17x a plain libnfs loop's client CPU); the next submit corks
	 * and writes both.  Its sent_ns is the submit's, the wait's write a few
	 * microseconds later.
	 */
	if (!c->corked && !c->held) {
		c->held = true;
		return;
	}
	c->held = false;
	const int fd = nfs_get_fd(c->nfs), one = 1;
	if (!c->corked && fd >= 0)
		c->corked = setsockopt(fd, IPPROTO_TCP, TCP_CORK, &one, sizeof(one)) == 0;
	/* Written until the socket would block (what is left goes at the next poll); a failed write loses the connection. */
	if (nfs_service(c->nfs, POLLOUT) < 0)
		lose_socket(c, fd, 0);
}


/* libnfs checks its RPC timeouts when serviced: at least this often while waiting. */
#define SERVICE_PERIOD_NS 100000000u

/* What flush held back (a lone request) goes now, uncorked: one send, before the poll for its answer. */
static void send_held(nfs_client *c)
{
	if (!c->held)
		return;
	c->held = false;
	if (!c->lost && c->nfs && (nfs_which_events(c->nfs) & POLLOUT) && nfs_service(c->nfs, POLLOUT) < 0)
		lose_socket(c, nfs_get_fd(c->nfs), 0);
}

int rp__nfs_wait(nfs_client *c, uint64_t timeout_ns)
{
	send_held(c);
	rp__nfs_uncork(c);
	const uint64_t before = c->completed;
	const uint64_t end = rp__nfs_mono_ns() + timeout_ns;
	while (!c->lost && c->completed == before) {
		if (c->x4)
			rp__nfs4_exact_idle(c);
		const uint64_t now = rp__nfs_mono_ns();
		const uint64_t left = now < end ? end - now : 0;
		uint64_t wait = left < SERVICE_PERIOD_NS ? left : SERVICE_PERIOD_NS;
		/* A denied blocking LOCK due to be sent again sooner: woken for it. */
		const uint64_t due = c->x4 ? rp__nfs4_exact_due(c) : 0;
		if (due && due - now < wait)
			wait = due > now ? due - now : 0;
		struct pollfd pfd = { .fd = nfs_get_fd(c->nfs), .events = (short)nfs_which_events(c->nfs) };
		const struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000u), .tv_nsec = (long)(wait % 1000000000u) };
		const int n = ppoll(&pfd, 1, &ts, NULL);
		if (n < 0 && errno != EINTR) {
			rp__nfs_lose(c, "poll");
			break;
		}
		/* Serviced also without events: that is when libnfs times requests out. */
		if (nfs_service(c->nfs, n > 0 ? pfd.revents : 0) < 0) {
			lose_socket(c, pfd.fd, n > 0 ? pfd.revents : 0);
			break;
		}
		if (left == 0)
			break;
	}
	return (int)(c->completed - before);
}

static void sync_done(rp_breq *req)
{
	*(bool *)req->data = true;
}

static bool exact_start(nfs_client *c, rp_breq *req)
{
	return c->nb->version == 4 ? rp__nfs4_exact_start(c, req) : rp__nfs_exact_start(c, req);
}

static int nfs_submit(void *backend, void *client, rp_breq *req)
{
	(void)backend;
	nfs_client *const c = client;
	req->result = 0;
	req->special = false;
	if (req->cb) {
		req->sent_ns = req->done_ns = 0;
		if (!c->nb->exact || !exact_start(c, req))
			rp__nfs_start(c, req);
		flush(c);
		/* In the socket now, unless it was answered without the server (refused, not queued): then not measured. */
		if (!req->done_ns)
			req->sent_ns = rp__nfs_mono_ns();
		return 0;
	}
	/* Synchronously: a callback of our own, and the event loop until it ran. */
	bool done = false;
	void *const data = req->data;
	req->cb = sync_done;
	req->data = &done;
	if (!c->nb->exact || !exact_start(c, req))
		rp__nfs_start(c, req);
	while (!done)
		rp__nfs_wait(c, SERVICE_PERIOD_NS);
	req->cb = NULL;
	req->data = data;
	return 0;
}

static int nfs_poll(void *backend, void *client, uint64_t timeout_ns)
{
	(void)backend;
	return rp__nfs_wait(client, timeout_ns);
}

static void nfs_release(void *backend, void *client, uint64_t bh)
{
	(void)backend;
	rp__nfs_release(client, bh);
}

static void nfs_report(void *backend, rp_backend_report *out)
{
	nfs_backend *const nb = backend;
	out->protocol_ops = atomic_load(&nb->exact_ops);
	out->lock_polls = atomic_load(&nb->lock_polls);
	out->lock_releases = atomic_load(&nb->lock_releases);
	out->lock_expired = atomic_load(&nb->lock_expired);
	out->own_requests = atomic_load(&nb->renewals) + out->lock_polls + out->lock_releases;
	for (unsigned i = 0; i < RP_NFS_FB__COUNT && out->n_fallbacks < RP_BACKEND_REPORT_MAX; i++) {
		const uint64_t n = atomic_load(&nb->fallbacks[i]);
		if (!n)
			continue;
		out->fallbacks[out->n_fallbacks].reason = rp__nfs_fallback_name(i);
		out->fallbacks[out->n_fallbacks].count = n;
		out->n_fallbacks++;
	}
	/*
	 * The mode the ops went: exact asked (or chosen by auto) but every op fell
	 * back (an NFSv4.1 capture's sessions, a loadfile forced exact) is a
	 * semantic run, its fallbacks still counted by reason.
	 */
	out->mode = nb->exact && (out->protocol_ops || !out->n_fallbacks) ? "exact" : "semantic";
	out->mode_why = nb->mode_why;
}

static int nfs_client_error(void *backend, void *client, char *errbuf)
{
	(void)backend;
	const nfs_client *const c = client;
	return c->lost ? rp_fail(errbuf, RP_E_IO, "%s", c->lost_msg) : 0;
}

static int nfs_walk(void *backend, void *client, int (*fn)(void *arg, const rp_backend_entry *e), void *arg,
		    char *errbuf)
{
	(void)backend;
	return rp__nfs_walk(client, fn, arg, errbuf);
}

static int nfs_remove(void *backend, void *client, const char *path, bool dir)
{
	(void)backend;
	return rp__nfs_remove(client, path, dir);
}

/*
 * The ops libnfs 4.0 can express (docs/replay.md, "NFS backend"): no xattrs,
 * fallocate, copy or mmap; locks in NFSv4.0 exact mode only (create narrows
 * the mask otherwise).
 */
#define NFS_OPS                                                                                                    \
	(RP_BACKEND_ALL_OPS &                                                                                      \
	 ~(UINT64_C(1) << RP_OP_GETXATTR |                                                                         \
	   UINT64_C(1) << RP_OP_SETXATTR | UINT64_C(1) << RP_OP_LISTXATTR | UINT64_C(1) << RP_OP_REMOVEXATTR |    \
	   UINT64_C(1) << RP_OP_FALLOCATE | UINT64_C(1) << RP_OP_COPY | UINT64_C(1) << RP_OP_MMAP))

const rp_backend_ops rp__backend_nfs = {
	.version = RP_BACKEND_VERSION,
	.name = "nfs",
	.summary = "an NFS export through libnfs (NFSv3 or v4.0, asynchronous): "
		   "nfs://HOST/EXPORT[/DIR]?version=3|4&nfsport=N&mountport=N&uid=N&gid=N",
	/*
	 * Not RP_BCAP_MT_CLIENT: a libnfs 4.0 context is not thread-safe (no
	 * locking in it), so each state is used by one thread; an async
	 * backend gets no window workers anyway.
	 */
	.caps = RP_BCAP_ASYNC | RP_BCAP_DATA | RP_BCAP_CONFINED,
	.client_size = sizeof(nfs_client),
	.opts = nfs_opts,
	.schemes = nfs_schemes,
	.op_mask = NFS_OPS,
	.create = nfs_create_backend,
	.destroy = nfs_destroy_backend,
	.client_init = nfs_client_init,
	.client_fini = nfs_client_fini,
	.submit = nfs_submit,
	.poll = nfs_poll,
	.release = nfs_release,
	.client_error = nfs_client_error,
	.walk = nfs_walk,
	.remove = nfs_remove,
	.report = nfs_report,
};
