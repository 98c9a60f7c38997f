/* The sockets of libsmbclient's connections (smb_sock.h). */
#include "smb_sock.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The port of a v4 or v6 address, host order; 0 for another family. */
static unsigned port_of(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

static bool same_peer(const struct sockaddr_storage *a, socklen_t alen, const struct sockaddr_storage *b,
		      socklen_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* The peer of fd when it is a connected TCP (v4 or v6) socket; false otherwise. */
static bool tcp_peer(int fd, struct sockaddr_storage *peer, socklen_t *len)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return false;
	int type = 0;
	socklen_t tlen = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 || type != SOCK_STREAM)
		return false;
	memset(peer, 0, sizeof(*peer));
	*len = sizeof(*peer);
	if (getpeername(fd, (struct sockaddr *)peer, len) != 0)
		return false;
	return peer->ss_family == AF_INET || peer->ss_family == AF_INET6;
}

/* Calls fn on each connected TCP socket of this process, with its peer. */
static void each_tcp(void (*fn)(void *arg, int fd, const struct sockaddr_storage *peer, socklen_t len), void *arg)
{
	DIR *const d = opendir("/proc/self/fd");
	if (!d)
		return;
	const int self = dirfd(d);
	unsigned seen = 0;
	for (const struct dirent *e; (e = readdir(d)) && seen < RP_SMB_FDS_SCAN_MAX;) {
		char *end;
		const long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd < 0 || fd == self)
			continue;
		seen++;
		struct sockaddr_storage peer;
		socklen_t len;
		if (tcp_peer((int)fd, &peer, &len))
			fn(arg, (int)fd, &peer, len);
	}
	closedir(d);
}

struct learn {
	rp_smb_peers *p;
	unsigned port;
};

static void learn_one(void *arg, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
	(void)fd;
	const struct learn *const l = arg;
	const unsigned port = port_of(peer);
	if (l->port ? port != l->port : port != 445 && port != 139)
		return;
	rp_smb_peers *const p = l->p;
	for (int i = 0; i < p->n; i++)
		if (same_peer(&p->addr[i], p->len[i], peer, len))
			return;
	if (p->n == RP_SMB_PEERS_MAX)
		return;
	p->addr[p->n] = *peer;
	p->len[p->n] = len;
	p->n++;
}

int rp__smb_peers_learn(rp_smb_peers *p, unsigned port)
{
	struct learn l = { p, port };
	each_tcp(learn_one, &l);
	return p->n;
}

struct cut {
	const rp_smb_peers *p;
	int n;
};

static void cut_one(void *arg, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
	struct cut *const c = arg;
	for (int i = 0; i < c->p->n; i++)
		if (same_peer(&c->p->addr[i], c->p->len[i], peer, len)) {
			if (shutdown(fd, SHUT_RD) == 0)
				c->n++;
			return;
		}
}

int rp__smb_peers_cut(const rp_smb_peers *p)
{
	struct cut c = { p, 0 };
	if (p->n > 0)
		each_tcp(cut_one, &c);
	return c.n;
}

struct stall {
	const rp_smb_peers *p;
	unsigned ms;
	int n;
};

static void stall_one(void *arg, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
	struct stall *const st = arg;
	for (int i = 0; i < st->p->n; i++)
		if (same_peer(&st->p->addr[i], st->p->len[i], peer, len)) {
			struct tcp_info ti;
			socklen_t tl = sizeof(ti);
			memset(&ti, 0, sizeof(ti));
			/* Times since the last data each way, in ms: sent more recently than received is a request waiting. */
			if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 && ti.tcpi_last_data_recv >= st->ms &&
			    ti.tcpi_last_data_sent < ti.tcpi_last_data_recv)
				st->n++;
			return;
		}
}

int rp__smb_peers_stalled(const rp_smb_peers *p, unsigned ms)
{
	struct stall st = { p, ms, 0 };
	if (p->n > 0)
		each_tcp(stall_one, &st);
	return st.n;
}
