/*
 * The synchronous peer of bench/net_bench.sh: one client doing a fixed file
 * mix straight through libnfs's or libsmbclient's synchronous calls, one
 * request at a time, as a plain program using those libraries would.  The
 * same mix as a dbench loadfile is what reprise replays next to it
 * (net_bench.sh writes both from the same FILES and SIZE).
 *
 * Per file: create (truncate) + SIZE/4096 writes of 4 KiB + close, stat,
 * open + SIZE/4096 reads of 4 KiB + close, unlink.
 *   net_peer nfs 'nfs://host/export/dir?version=3&...' FILES SIZE
 *   net_peer smb 'smb://host:port/share/dir' FILES SIZE     (user and password from NET_PEER_USER / NET_PEER_PASS)
 * Prints "ops N seconds S ops_per_s X".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#if NET_PEER_NFS
#include <nfsc/libnfs.h>
#endif
#if NET_PEER_SMB
#include <libsmbclient.h>
#endif

#define IO 4096

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what, const char *detail)
{
	fprintf(stderr, "net_peer: %s: %s\n", what, detail);
	return 1;
}

#if NET_PEER_NFS
static int run_nfs(const char *url, long files, long size, uint64_t *ops)
{
	struct nfs_context *const nfs = nfs_init_context();
	if (!nfs)
		return fail(url, "nfs_init_context failed");
	int rc = 1;
	struct nfs_url *const u = nfs_parse_url_dir(nfs, url);
	if (!u) {
		fail(url, nfs_get_error(nfs));
		goto out;
	}
	if (nfs_mount(nfs, u->server, u->path) != 0) {
		fail(url, nfs_get_error(nfs));
		goto out_url;
	}
	static char buf[IO];
	memset(buf, 'x', sizeof(buf));
	/* libnfs 4.0 cannot encode an NFSv4 WRITE of more than 3,944 bytes: such a write goes in two, as
	 * reprise's nfs backend sends it (docs/replay.md, "NFS backend") */
	const long piece = strstr(url, "version=4") ? IO / 2 : IO;
	for (long i = 0; i < files; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/peer-f%ld", i);
		struct nfsfh *fh;
		if (nfs_create(nfs, path, O_RDWR | O_TRUNC, 0644, &fh) != 0)
			goto err;
		++*ops;
		for (long off = 0; off < size; off += IO, ++*ops)
			for (long p = 0; p < IO; p += piece)
				if (nfs_pwrite(nfs, fh, (uint64_t)(off + p), (uint64_t)piece, buf) != piece)
					goto err;
		if (nfs_close(nfs, fh) != 0)
			goto err;
		++*ops;
		struct nfs_stat_64 st;
		if (nfs_stat64(nfs, path, &st) != 0)
			goto err;
		++*ops;
		if (nfs_open(nfs, path, O_RDONLY, &fh) != 0)
			goto err;
		++*ops;
		for (long off = 0; off < size; off += IO, ++*ops)
			if (nfs_pread(nfs, fh, (uint64_t)off, IO, buf) != IO)
				goto err;
		if (nfs_close(nfs, fh) != 0 || nfs_unlink(nfs, path) != 0)
			goto err;
		*ops += 2;
	}
	rc = 0;
	goto out_url;
err:
	fail(url, nfs_get_error(nfs));
out_url:
	nfs_destroy_url(u);
out:
	nfs_destroy_context(nfs);
	return rc;
}
#endif

#if NET_PEER_SMB
static void auth(SMBCCTX *c, const char *srv, const char *shr, char *wg, int wglen, char *un, int unlen, char *pw,
		 int pwlen)
{
	(void)c, (void)srv, (void)shr, (void)wg, (void)wglen;
	const char *const user = getenv("NET_PEER_USER"), *const pass = getenv("NET_PEER_PASS");
	snprintf(un, (size_t)unlen, "%s", user ? user : "guest");
	snprintf(pw, (size_t)pwlen, "%s", pass ? pass : "");
}

static int run_smb(const char *url, long files, long size, uint64_t *ops)
{
	SMBCCTX *const ctx = smbc_new_context();
	if (!ctx)
		return fail(url, "smbc_new_context failed");
	smbc_setFunctionAuthDataWithContext(ctx, auth);
	smbc_setOptionUseKerberos(ctx, 0);
	smbc_setOptionProtocols(ctx, "SMB2_02", "SMB3");
	if (!smbc_init_context(ctx)) {
		smbc_free_context(ctx, 1);
		return fail(url, strerror(errno));
	}
	smbc_open_fn const sopen = smbc_getFunctionOpen(ctx);
	smbc_creat_fn const screat = smbc_getFunctionCreat(ctx);
	smbc_write_fn const swrite = smbc_getFunctionWrite(ctx);
	smbc_read_fn const sread = smbc_getFunctionRead(ctx);
	smbc_close_fn const sclose = smbc_getFunctionClose(ctx);
	smbc_stat_fn const sstat = smbc_getFunctionStat(ctx);
	smbc_unlink_fn const sunlink = smbc_getFunctionUnlink(ctx);
	int rc = 1;
	static char buf[IO];
	memset(buf, 'x', sizeof(buf));
	for (long i = 0; i < files; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/peer-f%ld", url, i);
		SMBCFILE *f = screat(ctx, path, 0644);
		if (!f)
			goto err;
		++*ops;
		for (long off = 0; off < size; off += IO, ++*ops)
			if (swrite(ctx, f, buf, IO) != IO)
				goto err;
		if (sclose(ctx, f) != 0)
			goto err;
		++*ops;
		struct stat st;
		if (sstat(ctx, path, &st) != 0)
			goto err;
		++*ops;
		if (!(f = sopen(ctx, path, O_RDONLY, 0)))
			goto err;
		++*ops;
		for (long off = 0; off < size; off += IO, ++*ops)
			if (sread(ctx, f, buf, IO) != IO)
				goto err;
		if (sclose(ctx, f) != 0 || sunlink(ctx, path) != 0)
			goto err;
		*ops += 2;
	}
	rc = 0;
	goto out;
err:
	fail(url, strerror(errno));
out:
	smbc_free_context(ctx, 1);
	return rc;
}
#endif

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: net_peer nfs|smb URL FILES SIZE\n");
		return 2;
	}
	const long files = strtol(argv[3], NULL, 10), size = strtol(argv[4], NULL, 10);
	if (files <= 0 || files > 1000000 || size < IO || size > (1L << 30) || size % IO) {
		fprintf(stderr, "net_peer: FILES 1..1000000, SIZE a multiple of %d up to 1 GiB\n", IO);
		return 2;
	}
	uint64_t ops = 0;
	int rc = 2;
	const double t0 = now_s();
	if (strcmp(argv[1], "nfs") == 0) {
#if NET_PEER_NFS
		rc = run_nfs(argv[2], files, size, &ops);
#else
		fprintf(stderr, "net_peer: built without libnfs\n");
#endif
	} else if (strcmp(argv[1], "smb") == 0) {
#if NET_PEER_SMB
		rc = run_smb(argv[2], files, size, &ops);
#else
		fprintf(stderr, "net_peer: built without libsmbclient\n");
#endif
	} else {
		fprintf(stderr, "net_peer: nfs or smb, not %s\n", argv[1]);
	}
	const double dt = now_s() - t0;
	if (rc == 0)
		printf("ops %llu seconds %.3f ops_per_s %.0f\n", (unsigned long long)ops, dt, (double)ops / dt);
	return rc;
}
