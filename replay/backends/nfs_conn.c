/*
 * The nfs backend's connections: a libnfs context with the backend's
 * settings, a mount through it, and NFSv4's second context of a client
 * (rp__nfs_side), mounted on first use from below the ops that need it.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * A context for the URL with the backend's settings: no reconnecting (a
 * server that went away ends the run rather than stall it), the RPC timeout,
 * no directory cache (several clients of one namespace each have a context:
 * a cached listing would hide what another did).  The URL's own options come
 * after the defaults, so dircache=1 in it wins.  *url_out: the parsed URL.
 */
int rp__nfs_context(nfs_backend *nb, struct nfs_context **out, struct nfs_url **url_out, char *errbuf)
{
	struct nfs_context *const nfs = nfs_init_context();
	if (!nfs)
		return rp_fail(errbuf, RP_E_NOMEM, "%s: cannot make an NFS context", nb->url);
	nfs_set_dircache(nfs, 0);
	/*
	 * NFSv4 knows a client by its name: contexts of one process would share
	 * libnfs's default one, and the server would take each SETCLIENTID for
	 * the last one's (NFS4ERR_STALE_CLIENTID).  A name of its own each (on
	 * NFSv4 only: libnfs 4.0 never frees the copy it keeps, 28 bytes a context).
	 */
	if (nb->version == 4) {
		char name[64];
		const unsigned serial = atomic_fetch_add(&nb->contexts, 1u);
		snprintf(name, sizeof(name), "reprise-%ld-%u-%u", (long)getpid(), serial, (unsigned)time(NULL));
		nfs4_set_client_name(nfs, name);
		/* The verifier is 8 bytes (libnfs.h): the pid and the serial. */
		char verifier[8];
		const uint32_t v[2] = { (uint32_t)getpid(), serial };
		memcpy(verifier, v, sizeof(verifier));
		nfs4_set_verifier(nfs, verifier);
	}
	struct nfs_url *const url = nfs_parse_url_dir(nfs, nb->url);
	if (!url) {
		const int rc = rp_fail(errbuf, RP_E_INVAL, "%s: %s", nb->url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return rc;
	}
	nfs_set_autoreconnect(nfs, 0);
	nfs_set_timeout(nfs, nb->timeout_ms);
	*out = nfs;
	*url_out = url;
	return 0;
}

/* A TCP connection to host:port, given up after timeout_ms: 0 when it was made, else the errno. */
static int probe(const char *host, unsigned port, int timeout_ms)
{
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	const struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	if (getaddrinfo(host, service, &hints, &ai) != 0 || !ai)
		return EHOSTUNREACH;
	int err = 0;
	const int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0) {
		err = errno;
	} else if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		err = errno;
		if (err == EINPROGRESS) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			const int n = poll(&pfd, 1, timeout_ms);
			socklen_t len = sizeof(err);
			if (n <= 0)
				err = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
				err = errno;
		}
	}
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return err;
}

/*
 * Mount server:export[/dir]: 0, or an error naming the URL, the mount and
 * what failed in the user's terms (rp__nfs_mount_why): libnfs says
 * "nfs_service failed" for any connection it could not make, so the ports it
 * needed are tried again here to say which one refused.
 */
int rp__nfs_mount(const nfs_backend *nb, struct nfs_context *nfs, const char *server, const char *path, char *errbuf)
{
	const int rc = nfs_mount(nfs, server, path);
	if (rc >= 0)
		return 0;
	rp_nfs_mount_fail f = { .host = server, .path = path, .lib = nfs_get_error(nfs), .version = nb->version,
				.nfsport = nb->nfsport, .mountport = nb->mountport, .pmap_err = -1, .mnt_err = -1,
				.nfs_err = -1 };
	char code[48];
	rp__nfs_error_code(f.lib, code, sizeof(code));
	if (!code[0]) {
		/* A few seconds at most each: the server is not answering, a long wait tells nothing more. */
		const int wait_ms = nb->timeout_ms < 3000 ? nb->timeout_ms : 3000;
		if (nb->version == 3 && (!nb->nfsport || !nb->mountport))
			f.pmap_err = probe(server, 111, wait_ms);
		if (nb->version == 3 && nb->mountport && f.pmap_err <= 0)
			f.mnt_err = probe(server, nb->mountport, wait_ms);
		if (f.pmap_err <= 0 && f.mnt_err <= 0 && (nb->version == 4 || nb->nfsport))
			f.nfs_err = probe(server, nb->nfsport ? nb->nfsport : 2049, wait_ms);
	}
	char why[RP_ERRBUF_SIZE];
	rp__nfs_mount_why(&f, why, sizeof(why));
	return rp_fail(errbuf, RP_E_IO, "%s: mount %s:%s failed: %s", nb->url, server, path, why);
}

struct nfs_context *rp__nfs_side(nfs_client *c)
{
	if (c->side || c->lost)
		return c->side;
	char errbuf[RP_ERRBUF_SIZE];
	struct nfs_context *nfs = NULL;
	struct nfs_url *url = NULL;
	int rc = rp__nfs_context(c->nb, &nfs, &url, errbuf);
	if (rc == 0)
		rc = rp__nfs_mount(c->nb, nfs, url->server, c->mount, errbuf);
	nfs_destroy_url(url);
	if (rc < 0) {
		if (nfs)
			nfs_destroy_context(nfs);
		c->lost = true;
		snprintf(c->lost_msg, sizeof(c->lost_msg), "%s", errbuf);
		rp__nfs_orphan_all(c);
		return NULL;
	}
	c->side = nfs;
	return nfs;
}
