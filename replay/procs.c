/* The run protocol's transport over forked processes of one host (replay/procs.h): a star of socket pairs. */
#include "replay/procs.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "formats/error.h"

/* The job, one per process: rank 0 holds a socket to every other rank (fd[r]); rank r > 0 one to rank 0 (fd[0]). */
static struct {
	unsigned want;
	int rank, size;
	int fd[RP_PROCS_MAX];
	pid_t pid[RP_PROCS_MAX];
	bool started;
} job;

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Move n bytes to (out) or from fd, waiting at most until deadline (0: no limit).  0, or an rp error. */
static int xfer(int fd, void *buf, size_t n, bool out, double deadline, int peer, const char *what, char *errbuf)
{
	uint8_t *p = buf;
	while (n) {
		int wait_ms = -1;
		if (deadline > 0) {
			const double left = deadline - mono_s();
			if (left <= 0)
				return rp_fail(errbuf, RP_E_INTERRUPTED, "%s: timed out waiting for process %d (--mpi-timeout)",
					       what, peer);
			wait_ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
		}
		struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };
		const int pr = poll(&pfd, 1, wait_ms);
		if (pr < 0 && errno == EINTR)
			continue; /* a signal for the run (SIGINT stops it cleanly): the exchange goes on */
		if (pr < 0)
			return rp_fail(errbuf, RP_E_SYSTEM, "%s: poll: %s", what, strerror(errno));
		if (pr == 0)
			continue;
		const ssize_t k = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0 && errno != EPIPE && errno != ECONNRESET)
			return rp_fail(errbuf, RP_E_SYSTEM, "%s: process %d: %s", what, peer, strerror(errno));
		if (k <= 0) /* its end of the socket closed: it exited or was killed */
			return rp_fail(errbuf, RP_E_IO, "%s: process %d ended", what, peer);
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static double deadline_of(double timeout_s)
{
	return timeout_s > 0 ? mono_s() + timeout_s : 0;
}

static void kill_others(void)
{
	for (int r = 1; r < job.size; r++)
		if (job.pid[r] > 0)
			kill(job.pid[r], SIGKILL);
}

static int init(int *rank, int *size, char *errbuf)
{
	if (job.started)
		return rp_fail(errbuf, RP_E_STATE, "processes: one job per process");
	if (job.want < 2 || job.want > RP_PROCS_MAX)
		return rp_fail(errbuf, RP_E_RANGE, "processes: %u is not 2 to %d", job.want, RP_PROCS_MAX);
	job.started = true;
	job.size = (int)job.want;
	const pid_t parent = getpid();
	fflush(NULL); /* a child's exit would write what is buffered here a second time */
	for (int r = 1; r < job.size; r++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			const int e = errno;
			kill_others();
			return rp_fail(errbuf, RP_E_SYSTEM, "processes: socketpair: %s", strerror(e));
		}
		const pid_t pid = fork();
		if (pid < 0) {
			const int e = errno;
			close(sv[0]);
			close(sv[1]);
			kill_others();
			return rp_fail(errbuf, RP_E_SYSTEM, "processes: fork: %s", strerror(e));
		}
		if (pid == 0) {
			/* Killed with the parent: a process 0 gone (kill -9) leaves no replay running on. */
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() != parent)
				_exit(1);
			for (int q = 1; q < r; q++)
				close(job.fd[q]);
			close(sv[0]);
			job.fd[0] = sv[1];
			job.rank = r;
			*rank = r;
			*size = job.size;
			return 0;
		}
		close(sv[1]);
		job.fd[r] = sv[0];
		job.pid[r] = pid;
	}
	job.rank = 0;
	*rank = 0;
	*size = job.size;
	return 0;
}

static int bcast(void *buf, size_t n, double timeout_s, char *errbuf)
{
	const double dl = deadline_of(timeout_s);
	if (job.rank)
		return xfer(job.fd[0], buf, n, false, dl, 0, "broadcast", errbuf);
	for (int r = 1; r < job.size; r++) {
		const int rc = xfer(job.fd[r], buf, n, true, dl, r, "broadcast", errbuf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int allgather(const void *mine, size_t n, void *all, double timeout_s, char *errbuf)
{
	const double dl = deadline_of(timeout_s);
	uint8_t *const a = all;
	if (job.rank) {
		const int rc = xfer(job.fd[0], (void *)mine, n, true, dl, 0, "allgather", errbuf);
		return rc < 0 ? rc : xfer(job.fd[0], a, n * (size_t)job.size, false, dl, 0, "allgather", errbuf);
	}
	memcpy(a, mine, n);
	for (int r = 1; r < job.size; r++) {
		const int rc = xfer(job.fd[r], a + n * (size_t)r, n, false, dl, r, "allgather", errbuf);
		if (rc < 0)
			return rc;
	}
	return bcast(a, n * (size_t)job.size, timeout_s, errbuf);
}

static int gatherv(const void *mine, size_t n, uint8_t **all, size_t *sizes, size_t max_total, double timeout_s,
		   char *errbuf)
{
	const double dl = deadline_of(timeout_s);
	*all = NULL;
	uint8_t verdict = 0; /* from rank 0 after the gather: 1 when the whole was over max_total */
	if (job.rank) {
		uint64_t len = n;
		int rc = xfer(job.fd[0], &len, sizeof(len), true, dl, 0, "gather", errbuf);
		if (rc == 0)
			rc = xfer(job.fd[0], (void *)mine, n, true, dl, 0, "gather", errbuf);
		if (rc == 0)
			rc = xfer(job.fd[0], &verdict, 1, false, dl, 0, "gather", errbuf);
		if (rc == 0 && verdict)
			rc = rp_fail(errbuf, RP_E_LIMIT, "gather: the results are over %zu bytes in all", max_total);
		return rc;
	}
	uint64_t *const len = calloc((size_t)job.size, sizeof(*len));
	if (!len)
		return rp_fail(errbuf, RP_E_NOMEM, "gather: out of memory");
	/* Every rank sends its length, then its bytes: the lengths first, so the whole is sized once. */
	len[0] = n;
	uint64_t total = n;
	int rc = 0;
	for (int r = 1; r < job.size && rc == 0; r++) {
		rc = xfer(job.fd[r], &len[r], sizeof(len[r]), false, dl, r, "gather", errbuf);
		if (rc == 0 && (len[r] > max_total || total > max_total - len[r]))
			verdict = 1;
		else if (rc == 0)
			total += len[r];
	}
	if (n > max_total)
		verdict = 1;
	if (rc == 0 && !verdict && !(*all = malloc(total ? (size_t)total : 1)))
		rc = rp_fail(errbuf, RP_E_NOMEM, "gather: out of memory");
	size_t at = 0;
	if (rc == 0 && !verdict) {
		memcpy(*all, mine, n);
		at = n;
	}
	for (int r = 1; r < job.size && rc == 0; r++) {
		if (verdict) { /* the bytes are read and dropped, so every rank hears the verdict */
			uint8_t sink[4096];
			for (uint64_t left = len[r]; left && rc == 0;) {
				const size_t k = left < sizeof(sink) ? (size_t)left : sizeof(sink);
				rc = xfer(job.fd[r], sink, k, false, dl, r, "gather", errbuf);
				left -= k;
			}
		} else {
			rc = xfer(job.fd[r], *all + at, (size_t)len[r], false, dl, r, "gather", errbuf);
			at += (size_t)len[r];
		}
	}
	for (int r = 1; r < job.size && rc == 0; r++)
		rc = xfer(job.fd[r], &verdict, 1, true, dl, r, "gather", errbuf);
	for (int r = 0; r < job.size && rc == 0 && !verdict; r++)
		sizes[r] = (size_t)len[r];
	free(len);
	if (rc == 0 && verdict)
		rc = rp_fail(errbuf, RP_E_LIMIT, "gather: the results are over %zu bytes in all", max_total);
	if (rc < 0) {
		free(*all);
		*all = NULL;
	}
	return rc;
}

/* One host, one clock: every offset is 0, and no round trip is needed to know it. */
static int clock_offsets(unsigned rounds, int64_t *offset_ns, int64_t *rtt_ns, double timeout_s, char *errbuf)
{
	(void)rounds, (void)timeout_s, (void)errbuf;
	if (job.rank == 0)
		for (int r = 0; r < job.size; r++)
			offset_ns[r] = rtt_ns[r] = 0;
	return 0;
}

static void host(char *buf, size_t cap)
{
	char name[256] = "?";
	if (gethostname(name, sizeof(name) - 1) < 0)
		snprintf(name, sizeof(name), "?");
	name[sizeof(name) - 1] = '\0';
	snprintf(buf, cap, "%s", name);
}

static void abort_job(int code)
{
	fflush(NULL);
	if (job.rank == 0)
		kill_others(); /* a process r > 0 that ends is seen by process 0 at its next exchange, which ends the rest */
	_exit(code);
}

static void finalize(void)
{
	if (job.rank) {
		close(job.fd[0]);
		return;
	}
	for (int r = 1; r < job.size; r++) {
		close(job.fd[r]);
		while (waitpid(job.pid[r], NULL, 0) < 0 && errno == EINTR)
			;
	}
}

static const rp_mpi_comm procs_comm = {
	.version = RP_MPI_COMM_VERSION,
	.init = init,
	.bcast = bcast,
	.allgather = allgather,
	.gatherv = gatherv,
	.clock_offsets = clock_offsets,
	.host = host,
	.abort = abort_job,
	.finalize = finalize,
};

const rp_mpi_comm *rp_procs_comm(unsigned n)
{
	job.want = n;
	return &procs_comm;
}
