/* A program that fires the LTTng emitter's events directly (capture/preload/emit.h), as the interposer would for a known run. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/preload/emit.h"

/*
 * The run it stands for: a process starts in /tmp with fds 0-2, opens
 * data.txt, writes 5 bytes, reads 3 at offset 0, renames it, closes it,
 * reads stdin while a second thread seeks it (the read, begun first, ends
 * last: LTTng records it after the seek, the converter must put it before),
 * has a thread named like lttng-ust's own open a file (not recorded), forks
 * a child that stats the new name and exits, waits, and exits.  The
 * lttng test converts the recorded trace and checks exactly these ops.
 */
static void call(rp_sysev *ev)
{
	ev->t_start = rp__emit_begin();
	ev->t_end = rp__emit_begin();
	rp__emit_end(ev);
}

static void with_path(rp_sysev *ev, int i, const char *p)
{
	ev->p[i] = p;
	ev->plen[i] = (uint32_t)strlen(p);
}

/* A thread named as lttng-ust names its own ("<program>-ust"): the emitter drops its events. */
static void *lttng_like(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "emit-ust");
	rp_sysev ev = { .nr = RP_SYSEV_OPEN, .ret = 9, .a = { AT_FDCWD, O_RDONLY, 0 } };
	with_path(&ev, 0, "/proc/self/maps");
	call(&ev);
	return NULL;
}

static void *seek_stdin(void *arg)
{
	(void)arg;
	rp_sysev ev = { .nr = RP_SYSEV_LSEEK, .a = { 0, 0, SEEK_CUR } };
	call(&ev);
	rp__emit_thread_done();
	return NULL;
}

/* `flood N`: N writes as fast as they can be fired, to fill a channel's buffers. */
static int flood(long n)
{
	rp_sysev ev = { .nr = RP_SYSEV_START };
	with_path(&ev, 0, "/tmp");
	rp__emit_note(&ev);
	for (long i = 0; i < n; i++) {
		ev = (rp_sysev){ .nr = RP_SYSEV_WRITE, .ret = 1, .a = { 1, -1, 1, 0 } };
		call(&ev);
	}
	ev = (rp_sysev){ .nr = RP_SYSEV_EXIT };
	rp__emit_note(&ev);
	return 0;
}

int main(int argc, char **argv)
{
	if (rp__emit_init() < 0) {
		fprintf(stderr, "emit_direct: liblttng-ust is not loaded\n");
		return 1;
	}
	if (argc == 3 && strcmp(argv[1], "flood") == 0)
		return flood(strtol(argv[2], NULL, 10));
	rp_sysev ev = { .nr = RP_SYSEV_START, .a = { (int64_t)getppid() } };
	with_path(&ev, 0, "/tmp");
	rp__emit_note(&ev);
	for (int fd = 0; fd < 3; fd++) {
		ev = (rp_sysev){ .nr = RP_SYSEV_FD, .a = { fd, O_RDWR, 0, 0, 0 } };
		with_path(&ev, 0, "/dev/pts/0");
		rp__emit_note(&ev);
	}
	ev = (rp_sysev){ .nr = RP_SYSEV_OPEN, .ret = 3, .a = { AT_FDCWD, O_RDWR | O_CREAT | O_TRUNC, 0644 } };
	with_path(&ev, 0, "data.txt");
	call(&ev);
	ev = (rp_sysev){ .nr = RP_SYSEV_WRITE, .ret = 5, .a = { 3, -1, 5, 0 } };
	call(&ev);
	ev = (rp_sysev){ .nr = RP_SYSEV_READ, .ret = 3, .a = { 3, 0, 3, 0 } };
	call(&ev);
	ev = (rp_sysev){ .nr = RP_SYSEV_RENAME, .a = { AT_FDCWD, AT_FDCWD, 0 } };
	with_path(&ev, 0, "data.txt");
	with_path(&ev, 1, "moved.txt");
	call(&ev);
	ev = (rp_sysev){ .nr = RP_SYSEV_CLOSE, .a = { 3 } };
	call(&ev);
	ev = (rp_sysev){ .nr = RP_SYSEV_READ, .ret = 0, .a = { 0, -1, 16, 0 } };
	ev.t_start = rp__emit_begin();
	pthread_t th;
	if (pthread_create(&th, NULL, seek_stdin, NULL) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	ev.t_end = rp__emit_begin();
	rp__emit_end(&ev);
	pthread_t ust;
	if (pthread_create(&ust, NULL, lttng_like, NULL) != 0 || pthread_join(ust, NULL) != 0)
		return 1;
	const pid_t parent = getpid();
	const pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		rp__emit_atfork_child();
		ev = (rp_sysev){ .nr = RP_SYSEV_FORK, .a = { parent } };
		rp__emit_note(&ev);
		ev = (rp_sysev){ .nr = RP_SYSEV_STAT, .a = { AT_FDCWD, 0, 0 } };
		with_path(&ev, 0, "moved.txt");
		call(&ev);
		ev = (rp_sysev){ .nr = RP_SYSEV_EXIT, .a = { 0 } };
		rp__emit_note(&ev);
		rp__emit_thread_done();
		_exit(0);
	}
	int status = 0;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	ev = (rp_sysev){ .nr = RP_SYSEV_EXIT, .a = { 0 } };
	rp__emit_note(&ev);
	rp__emit_thread_done();
	return 0;
}
