/*
 * A replay client's thread and its backend: the backend's client state from
 * client_init to client_fini around the run, the requests handed to it, and
 * what the client does when the backend cannot go on or the client stops early.
 */
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/client.h"
#include "replay/client_req.h"
#include "replay/engine.h"
#include "replay/req.h"

/* The run stopped because the backend could not go on (rp__client_fatal): the client's error says where and why. */
static void fatal_check(rp_client *c)
{
	const int rc = atomic_load(&c->fatal);
	if (!rc || c->rc < 0)
		return;
	char why[RP_ERRBUF_SIZE];
	rp__fatal_reason(why, sizeof(why), atomic_load(&c->fatal_op), NULL, rc, atomic_load(&c->fatal_status));
	c->rc = rp_fail(c->errbuf, rc, "client %u: %s: the %s backend cannot go on (%s)", c->index, c->r->target,
			c->r->bops->name, why);
	c->stop = RP_STOP_ERROR;
}

void *rp__client_main(void *arg)
{
	rp_client *const c = arg;
	rp_replay *const r = c->r;
	/* The default 50 us timer slack would make every sleep that late: scheduled timing wants 1 ns. */
	if (r->opts.timing != RP_TIMING_AFAP)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (r->opts.on_thread)
		r->opts.on_thread(r->opts.on_thread_ctx, c->index);
	int rc = r->bops->client_init(r->bstate, c->bstate, c->dir, c->errbuf);
	if (rc < 0) {
		c->rc = rc;
		c->stop = RP_STOP_ERROR;
		goto out;
	}
	c->binit = true;
	c->async = rp__req_async(r->bops);
	/* A synchronous backend's window workers count their requests in the client's own tally. */
	rp__tdepth_init(&c->tdepth, r->mono ? r->warm_end : 0, !c->async && c->bound > 1);
	if (c->bound > 1) {
		rc = rp__win_create(c, c->bound, rp__client_slot_size, c->errbuf);
		if (rc < 0) {
			c->rc = rc;
			c->stop = RP_STOP_ERROR;
			goto out;
		}
	}
	rc = r->w->open(r->w, false, c->trace_client, &c->src, c->errbuf);
	if (rc < 0) {
		c->rc = rc;
		c->stop = RP_STOP_ERROR;
		goto out;
	}
	rp__client_run(c);
	fatal_check(c);
	rp__win_destroy(c);
	rp__client_release_all(c);
out:
	rp__win_destroy(c);
	/* Stopped before its work was done: the ops others would wait for never come. */
	if (c->stop != RP_STOP_END)
		rp__order_release(r, c->stop == RP_STOP_TIME);
	/* Children stop waiting; a hand-over never taken is released (through this client's state, while it has one). */
	rp__share_exit(c, c->binit, &c->fu);
	if (c->binit)
		rp__client_followups(c);
	rp__share_pass_done(c, UINT64_MAX); /* and waits on it end */
	if (c->src)
		c->src->close(c->src);
	c->src = NULL;
	if (c->binit && r->bops->client_fini)
		r->bops->client_fini(r->bstate, c->bstate);
	c->binit = false;
	atomic_store_explicit(&c->running, 0, memory_order_release);
	/* Whoever waits for the run's end (rp_replay_wait) looks again now, not at its next tick. */
	atomic_fetch_add_explicit(&r->ended, 1u, memory_order_release);
	syscall(SYS_futex, (uint32_t *)&r->ended, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
	return NULL;
}
