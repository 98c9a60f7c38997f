/*
 * The nfs backend's connections: a libnfs context with the backend's
 * settings, a mount through it, and NFSv4's second context of a client
 * (rp__nfs_side), mounted on first use from below the ops that need it.
 */
#define RP_NFS_LIBNFS 1
#include "replay/backends/nfs_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Mount server:export[/dir]: 0, or an error naming the URL and what libnfs said. */
int rp__nfs_mount(const nfs_backend *nb, struct nfs_context *nfs, const char *server, const char *path, char *errbuf)
{
	const int rc = nfs_mount(nfs, server, path);
	if (rc < 0)
		return rp_fail(errbuf, RP_E_IO, "%s: mount %s:%s failed: %s", nb->url, server, path, nfs_get_error(nfs));
	return 0;
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
