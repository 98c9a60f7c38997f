/*
 * The sockets of libsmbclient's connections, which the library does not
 * expose.  When the server stops answering (a stopped or hung smbd), every
 * request of the run's teardown (each file's CLOSE, TREE_DISCONNECT, LOGOFF)
 * would wait out the full timeout, one after another under the library's
 * lock: minutes for a few clients.  Cutting the read side of every socket to
 * the server makes each of them fail at once, so the stop is bounded by one
 * timeout.  Pure POSIX (no libsmbclient): unit-tested with socketpairs and a
 * listener on 127.0.0.1.
 */
#ifndef REPRISE_REPLAY_SMB_SOCK_H
#define REPRISE_REPLAY_SMB_SOCK_H

#include <sys/socket.h>

/* A run talks to one server; a name may resolve to a few addresses (v4, v6): more are not kept. */
#define RP_SMB_PEERS_MAX 8
/* /proc/self/fd entries looked at, at most (a replay process holds a few hundred). */
#define RP_SMB_FDS_SCAN_MAX 65536

typedef struct rp_smb_peers {
	struct sockaddr_storage addr[RP_SMB_PEERS_MAX];
	socklen_t len[RP_SMB_PEERS_MAX];
	int n;
} rp_smb_peers;

/*
 * Learn the server's addresses: the peer of every connected TCP socket of this
 * process whose peer port is port (0: 445 or 139, as libsmbclient tries).
 * Call right after a connection was made.  Returns how many peers are known.
 */
int rp__smb_peers_learn(rp_smb_peers *p, unsigned port);

/*
 * shutdown(SHUT_RD) every TCP socket of this process connected to one of the
 * peers: a request waiting for its reply, and every later one, fails at once
 * (end of stream), nothing is written, no SIGPIPE.  Returns how many were cut.
 */
int rp__smb_peers_cut(const rp_smb_peers *p);

/*
 * How many TCP sockets of this process connected to one of the peers hold a
 * request unanswered for ms or more: data sent after the last data received,
 * and nothing received for ms (TCP_INFO's tcpi_last_data_sent and
 * tcpi_last_data_recv).  A socket that only idles is not counted, nor one
 * whose last request was answered.
 */
int rp__smb_peers_stalled(const rp_smb_peers *p, unsigned ms);

#endif
