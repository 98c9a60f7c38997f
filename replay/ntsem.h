/*
 * The engine's NT layer: Windows file-server semantics for backends whose
 * server has none of its own (posix, the coming NFS backend; an SMB server
 * has them natively: RP_BCAP_NT_NATIVE).  It acts on the semantic fields of
 * ops only (docs/op-model.md, docs/replay.md "NT semantics"):
 *
 *  - an open with RP_OF_NT grants what it wants: I/O beyond it, and a
 *    security query or set beyond it, is ACCESS_DENIED (EACCES); so is
 *    setting a size without write access and delete-on-close without DELETE;
 *  - byte-range locks with RP_OPF_MANDATORY are mandatory (MS-FSA 2.1.4.10):
 *    a read conflicts with another open's exclusive lock on the range, a
 *    write with another open's lock of either kind and with the handle's own
 *    shared ones: FILE_LOCK_CONFLICT (EAGAIN);
 *  - a read on an NT handle that gets nothing for a non-zero length is
 *    STATUS_END_OF_FILE (ENODATA; MS-SMB2 3.3.5.12);
 *  - delete-on-close (RP_OF_DELETE_ON_CLOSE at open, RP_SA_DELETE_SET/CLEAR
 *    by set-info) is a property of the handle, and the object goes at the
 *    last close of the client's handles to it;
 *  - a listing that continues a handle's enumeration and finds nothing is
 *    STATUS_NO_MORE_FILES (OK), not STATUS_NO_SUCH_FILE (ENOENT): MS-SMB2 3.3.5.18.
 */
#ifndef REPRISE_REPLAY_NTSEM_H
#define REPRISE_REPLAY_NTSEM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "formats/op.h"
#include "replay/backend.h"
#include "replay/followup.h"
#include "replay/handles.h"

/* Locks held under mandatory semantics, shared by every client of a run. */
typedef struct rp_ntlocks {
	pthread_mutex_t mu;
	struct rp_ntlock *v;
	size_t n, cap;
	atomic_size_t live; /* read without the lock: no lock, no check */
} rp_ntlocks;

/* A client's NT handles and the opens per path (for the last close). */
typedef struct rp_ntclient {
	rp_handles handles; /* trace handle -> struct rp_nthandle * */
	rp_handles paths;   /* trace path id -> open count << 1 | delete pending */
} rp_ntclient;

struct rp_client;

void rp__ntlocks_init(rp_ntlocks *l);
void rp__ntlocks_fini(rp_ntlocks *l);
void rp__ntclient_init(rp_ntclient *n);
/* Forget every handle (the end of a pass: the engine released them); what was to go is left in fu to delete. */
void rp__ntclient_reset(struct rp_client *c, rp_followups *fu);
void rp__ntclient_fini(struct rp_client *c);

/*
 * Before the backend sees op: 0 to issue it, or the status the op gets
 * without issuing it (an errno, or RP__NT_DONE for a set-info the layer
 * itself carries out: delete-on-close set or cleared).
 */
#define RP__NT_DONE (-1000)
int rp__nt_before(struct rp_client *c, const rp_op *op, rp_breq *req);


/* dup: handle2 is the same open as handle for NT purposes (its rights, its delete-on-close); fu as rp__nt_after. */
void rp__nt_dup(struct rp_client *c, uint64_t handle, uint64_t handle2, rp_followups *fu);

/*
 * After the backend completed op: the status as an NT server gives it, and
 * the bookkeeping.  A last close that deletes (delete-on-close) leaves the
 * delete in fu: the lifecycle issues it, and a close that succeeded takes
 * that delete's status.
 */
void rp__nt_after(struct rp_client *c, const rp_op *op, rp_breq *req, rp_followups *fu);

#endif
