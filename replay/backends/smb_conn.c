/* The smb backend's per-connection helpers below its op code (smb.c, smb_names.c, smb_beneath.c): URLs beneath the connection's base, a failed call's status and the lost server. */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "replay/backends/smb_int.h"

/* The URL of path beneath the connection's base, in buf; 0 or ENAMETOOLONG. */
int rp__smb_url(const smb_conn *cn, char *buf, const char *path)
{
	memcpy(buf, cn->base, cn->base_len + 1);
	return rp__smb_url_join(buf, RP_SMB_URL_MAX, cn->base_len, path ? path : "") < 0 ? ENAMETOOLONG : 0;
}

/*
 * One connection lost: the run stops (the engine stops every client on a lost
 * client state), so every other connection to the server is cut too, under
 * smbc_mu: their next request, each teardown CLOSE, TREE_DISCONNECT and
 * LOGOFF fail at once instead of each waiting out the timeout in turn (a
 * stopped smbd held an 8-client run for minutes).  Their ops fail with err.
 */
static void server_gone(smb_backend *sb, int err)
{
	int none = 0;
	if (!atomic_compare_exchange_strong(&sb->gone, &none, err))
		return;
	pthread_mutex_lock(&sb->peers_mu);
	rp__smb_peers_cut(&sb->peers);
	pthread_mutex_unlock(&sb->peers_mu);
}

/* A failed call's errno as the op's status; a connection that went marks the connection lost. */
int rp__smb_failed(smb_conn *cn)
{
	const int err = errno ? errno : EIO;
	if (rp__smb_conn_lost(err) && !cn->lost) {
		cn->lost = err;
		server_gone(cn->sb, err);
	}
	return err;
}
