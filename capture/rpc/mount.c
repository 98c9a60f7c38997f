/* MOUNT v3: the root file handle of an export feeds the NFS handle map (RFC 1813 appendix I). */
#include <string.h>

#include "capture/rpc/rpc.h"

enum { MOUNTPROC3_NULL = 0, MOUNTPROC3_MNT = 1, MOUNTPROC3_DUMP = 2, MOUNTPROC3_UMNT = 3,
       MOUNTPROC3_UMNTALL = 4, MOUNTPROC3_EXPORT = 5 };

/* RFC 1813 appendix I: MNTPATHLEN. */
#define MNTPATHLEN 1024

static const char *const proc_names[] = { "MOUNTv3 NULL", "MOUNTv3 MNT", "MOUNTv3 DUMP", "MOUNTv3 UMNT",
					  "MOUNTv3 UMNTALL", "MOUNTv3 EXPORT" };

typedef struct mount_pending {
	bool mnt; /* an MNT call whose reply carries a root handle */
} mount_pending;

static void mount_call(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, rp_cur *args, void *pending)
{
	(void)conn;
	mount_pending *const p = pending;
	if (call->proc != MOUNTPROC3_MNT) {
		/* No file operations: NULL is a ping, the rest list or forget mounts. */
		if (call->proc < sizeof(proc_names) / sizeof(proc_names[0]))
			rp__cap_count(cx, RP_OUT_IGNORED, proc_names[call->proc]);
		else
			rp__cap_count(cx, RP_OUT_INVALID, NULL);
		return;
	}
	size_t len = 0;
	(void)rp_cur_xdr_var(args, MNTPATHLEN, &len);
	if (args->err) {
		rp__cap_count(cx, call->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return;
	}
	p->mnt = true;
}

/*
 * mountres3: fhs_status, then for MNT3_OK a fhandle3 and auth_flavors<>.  The
 * handle is the root of every path reprise records: ops are relative to the
 * export, so the dirpath of the MNT call is deliberately not prefixed (replay
 * targets a directory or an export of its own).
 */
static void mount_reply(rp_capctx *cx, rp_conn *conn, const rp_rpc_call *call, const rp_rpc_reply *rep, rp_cur *res,
			void *pending)
{
	(void)conn;
	(void)call;
	const mount_pending *const p = pending;
	if (!p->mnt || !res)
		return;
	const uint32_t status = rp_cur_be32(res);
	if (res->err) {
		rp__cap_count(cx, rep->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return;
	}
	if (status != 0)
		return;
	size_t len = 0;
	const uint8_t *const fh = rp_cur_xdr_var(res, RP_NFS3_FHSIZE, &len);
	if (!fh || len == 0) {
		rp__cap_count(cx, rep->truncated ? RP_OUT_TRUNCATED : RP_OUT_INVALID, NULL);
		return;
	}
	rp__fhmap_set(rp__fhmap(cx), fh, len, "/", 1);
}

const rp_rpc_prog rp__mount3_prog = {
	.name = "MOUNTv3",
	.prog = 100005,
	.vers = 3,
	.pending_size = sizeof(mount_pending),
	.call = mount_call,
	.reply = mount_reply,
	.drop = NULL,
};
