/* The scan before a run (the plan: formats/plan.h) and prepare: the plan made real through the backend. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/status.h"
#include "replay/client_req.h"
#include "replay/engine.h"
#include "replay/req.h"

/* Tries at a name for the image's directory: rp-image, rp-image-2, ... */
#define IMAGE_ROOT_TRIES 100

/*
 * Draw the image beneath the first name from the try'th on that no path of
 * the trace begins with (a name the target already holds is found by
 * prepare, which draws again beneath the next): the same seed draws the
 * same tree whatever its root.  The try it took, or an error (a limit, out of names).
 */
static int draw_image(rp_replay *r, unsigned try, char *errbuf)
{
	rp_image_free(&r->image);
	for (; try < IMAGE_ROOT_TRIES; try++) {
		char root[32];
		if (try == 0)
			snprintf(root, sizeof(root), "rp-image");
		else
			snprintf(root, sizeof(root), "rp-image-%u", try + 1);
		if (!rp_plan_uses_top(&r->plan, root)) {
			const int rc = rp_image_build(&r->image, &r->image_opts, root, errbuf);
			return rc < 0 ? rc : (int)try;
		}
	}
	return rp_fail(errbuf, RP_E_EXISTS, "image: rp-image to rp-image-%u are all taken", IMAGE_ROOT_TRIES);
}

int rp__scan(rp_replay *r, char *errbuf)
{
	rp_op_source *src = NULL;
	int rc = r->w->open(r->w, true, 0, &src, errbuf);
	if (rc < 0)
		return rc;
	const rp_plan_opts po = { .items = !r->opts.no_prepare,
				  .loops = r->opts.duration_s > 0,
				  .shares = r->opts.order == RP_ORDER_AUTO };
	rc = rp_plan_build(&r->plan, src, &po, errbuf);
	src->close(src);
	if (rc < 0)
		return rc;
	if (r->plan.n_clients == 0)
		return rp_fail(errbuf, RP_E_INVAL, "the trace has no ops");
	const bool timed = (r->w->meta.flags & RP_META_TIMED) != 0 || r->plan.timed;
	if (r->opts.timing == RP_TIMING_TRACE && !timed)
		return rp_fail(errbuf, RP_E_RANGE, "the trace has no timestamps: use --timing=afap (or think)");
	if (r->plan.n_clients > UINT32_MAX) /* client ids are 32 bits: it cannot, but n_trace_clients must not wrap */
		return rp_fail(errbuf, RP_E_LIMIT, "the trace has %zu clients", r->plan.n_clients);
	r->trace_clients = r->plan.clients;
	r->n_trace_clients = (uint32_t)r->plan.n_clients;
	r->rec_depth = r->plan.depth;
	if (r->opts.image && !r->opts.no_prepare) {
		r->image_opts = *r->opts.image;
		r->image_spec = *r->opts.image->spec;
		r->image_opts.spec = &r->image_spec;
		r->opts.image = &r->image_opts;
		if ((rc = draw_image(r, 0, errbuf)) < 0)
			return rc;
		r->image_try = (unsigned)rc;
	}
	/* The client loop looks each creation up in a pass after the first: a hash table, not a search. */
	for (size_t i = 0; i < r->plan.n_conflicts; i++)
		if (rp__handles_put(&r->loop_conflicts, r->plan.conflicts[i], 1) < 0)
			return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * One client state's prepare: the run, the backend's state for it, and the
 * first error by which the backend said it cannot go on (rc 0: none yet),
 * with its op and status, which fails prepare at the end of the item.
 */
typedef struct prep {
	rp_replay *r;
	void *cs;
	int rc;
	int32_t status;
	unsigned op;
} prep;

/* Run one synthetic op through the backend (synchronously, or by polling an async one). */
static int prep_submit(prep *p, rp_breq *req)
{
	rp_replay *const r = p->r;
	/* An op the backend cannot express is never sent: the item fails (counted in prepare's failures). */
	if (!(r->op_mask >> req->op->op & 1u))
		return EOPNOTSUPP;
	const bool async = rp__req_async(r->bops);
	const int rc = rp__req_wait(r->bops, r->bstate, p->cs, async, req, NULL);
	if (rc < 0) {
		/* The backend cannot go on: prepare stops at the end of this item and fails the run (prepare_dir). */
		if (!p->rc) {
			p->rc = rc;
			p->status = req->status;
			p->op = req->op->op;
		}
		return req->status ? req->status : RP_STATUS_OTHER;
	}
	return req->status;
}

/* Writes of prepared data go in pieces this big: large enough to stream, small enough for any backend. */
#define FILL_CHUNK (1u << 20)

/*
 * Give the file on bh its size from byte `from` on (0 for a new file, its
 * end for one that is too short): written whole (data, zero), so reads of
 * it read blocks rather than holes, or one byte at the end (sparse).
 */
static int fill_file(prep *p, uint64_t bh, uint64_t from, uint64_t size, rp_prepare_fill fill, uint64_t *written)
{
	if (from >= size)
		return 0;
	const bool sparse = fill == RP_FILL_SPARSE;
	uint64_t off = sparse ? size - 1 : from;
	while (off < size) {
		const uint64_t n = size - off < FILL_CHUNK ? size - off : FILL_CHUNK;
		rp_op op = { .op = RP_OP_WRITE, .offset = off, .length = n };
		rp_breq req = { .op = &op, .bh = bh, .zero = fill == RP_FILL_ZERO };
		const int st = prep_submit(p, &req);
		if (st != 0)
			return st;
		if (req.result == 0)
			return EIO; /* a backend that moved nothing would loop forever */
		*written += req.result;
		off += req.result;
	}
	return 0;
}

/* Open path (disp, wants) into *bh: 0, or the status. */
static int prep_open(prep *p, const char *path, rp_disp disp, uint32_t want, uint64_t *bh)
{
	rp_op op = { .op = RP_OP_OPEN, .want = RP_WANT_KNOWN | want, .disp = disp, .mode = 0666 };
	rp_breq req = { .op = &op, .path = path };
	const int st = prep_submit(p, &req);
	*bh = req.bh;
	return st;
}

static void prep_close(prep *p, uint64_t bh)
{
	rp_op op = { .op = RP_OP_CLOSE };
	rp_breq req = { .op = &op, .bh = bh };
	prep_submit(p, &req);
}

/* Whether the file on bh has a byte at off: 1, 0, or minus the status. */
static int has_byte(prep *p, uint64_t bh, uint64_t off)
{
	rp_op op = { .op = RP_OP_READ, .offset = off, .length = 1 };
	rp_breq req = { .op = &op, .bh = bh };
	const int st = prep_submit(p, &req);
	if (st == ENODATA) /* the end of the file, as NT reports it */
		return 0;
	if (st != 0)
		return st > 0 ? -st : -EIO;
	return req.result > 0;
}

/*
 * The size of the file on bh, or `want` if it is at least that long.  The
 * backend interface has no attribute results, but every backend reads: a
 * one-byte read at want - 1 settles a file long enough, else a binary search
 * for its end takes about log2(want) more (a hole reads as a byte too).
 * 0, or the status of a read that failed.
 */
static int probe_size(prep *p, uint64_t bh, uint64_t want, uint64_t *size)
{
	*size = 0;
	if (!want)
		return 0;
	int got = has_byte(p, bh, want - 1);
	if (got < 0)
		return -got;
	if (got) {
		*size = want;
		return 0;
	}
	uint64_t lo = 0, hi = want - 1; /* the size is within [lo, hi] */
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo + 1) / 2;
		if ((got = has_byte(p, bh, mid - 1)) < 0)
			return -got;
		if (got)
			lo = mid;
		else
			hi = mid - 1;
	}
	*size = lo;
	return 0;
}

/*
 * A file that was there before prepare: never rewritten.  Long enough, it is
 * kept as it is; too short, it is extended beyond its end only.
 */
static int prepare_existing(prep *p, const rp_plan_item *it)
{
	rp_replay *const r = p->r;
	uint64_t bh = 0, size = 0;
	int st = prep_open(p, it->path, RP_DISP_OPEN, RP_WANT_READ, &bh);
	if (st != 0)
		return st;
	st = probe_size(p, bh, it->size, &size);
	prep_close(p, bh);
	if (st != 0)
		return st;
	if (size >= it->size) {
		r->res.prepare.kept++;
		return 0;
	}
	if ((st = prep_open(p, it->path, RP_DISP_OPEN, RP_WANT_READ | RP_WANT_WRITE, &bh)) != 0)
		return st;
	uint64_t written = 0;
	st = fill_file(p, bh, size, it->size, r->opts.prepare_fill, &written);
	r->res.prepare.written += written;
	prep_close(p, bh);
	r->res.prepare.extended += st == 0;
	return st;
}

/* A file item: made (exclusively, unless --prepare-overwrite) and given its size. */
static int prepare_file(prep *p, const rp_plan_item *it)
{
	rp_replay *const r = p->r;
	const bool overwrite = r->opts.prepare_overwrite;
	uint64_t bh = 0;
	int st = prep_open(p, it->path, overwrite ? RP_DISP_OPEN_IF : RP_DISP_CREATE, RP_WANT_READ | RP_WANT_WRITE,
			   &bh);
	if (st == EEXIST && !overwrite)
		return prepare_existing(p, it);
	if (st != 0)
		return st;
	uint64_t written = 0;
	st = fill_file(p, bh, 0, it->size, r->opts.prepare_fill, &written);
	r->res.prepare.written += written;
	prep_close(p, bh);
	return st;
}

/* The backend could not go on during item it: the error prepare fails with, naming the op and status. */
static int prep_fatal(const prep *p, const rp_plan_item *it, char *errbuf)
{
	char why[RP_ERRBUF_SIZE];
	rp__fatal_reason(why, sizeof(why), p->op, it->path, p->rc, p->status);
	return rp_fail(errbuf, p->rc, "prepare: %s: the %s backend cannot go on (%s)", p->r->target, p->r->bops->name, why);
}

static int prepare_dir(rp_replay *r, void *cs, char *errbuf)
{
	prep p = { .r = r, .cs = cs };
	for (size_t i = 0; i < r->plan.n_items; i++) {
		/* A client state lost for good (the server went away) fails prepare, and the run, at once. */
		if (r->client_error) {
			const int rc = r->client_error(r->bstate, cs, errbuf);
			if (rc < 0)
				return rc;
		}
		const rp_plan_item *const it = &r->plan.items[i];
		rp_op op;
		memset(&op, 0, sizeof(op));
		rp_breq req;
		memset(&req, 0, sizeof(req));
		req.op = &op;
		req.path = it->path;
		if (it->dir) {
			op.op = RP_OP_MKDIR;
			op.mode = 0777;
			const int st = prep_submit(&p, &req);
			r->res.prepare.dirs += st == 0;
			r->res.prepare.failures += st != 0 && st != EEXIST;
			if (p.rc)
				return prep_fatal(&p, it, errbuf);
			continue;
		}
		const int st = prepare_file(&p, it);
		r->res.prepare.files += st == 0;
		r->res.prepare.bytes += st == 0 ? it->size : 0;
		r->res.prepare.failures += st != 0;
		if (p.rc)
			return prep_fatal(&p, it, errbuf);
	}
	return 0;
}

/*
 * The image (rp_replay_opts.image), at the target's root: its directory made
 * first, exclusively (one the target holds already: the next name, drawn
 * again), then its directories, then its files, every byte written as data,
 * whatever --prepare-fill says: an image is there to be read.
 */
static int prepare_image(rp_replay *r, void *cs, char *errbuf)
{
	const uint64_t t = mono_ns();
	rp_replay_image *const res = &r->res.prepare.image;
	res->asked = true;
	res->source = r->image_spec.name;
	res->seed = r->image_opts.seed;
	res->scale = r->image_opts.scale;
	int rc = r->bops->client_init(r->bstate, cs, "", errbuf);
	if (rc < 0) {
		char why[RP_ERRBUF_SIZE];
		snprintf(why, sizeof(why), "%s", errbuf);
		return rp_fail(errbuf, rc, "prepare: image: %s", why);
	}
	prep p = { .r = r, .cs = cs };
	for (;;) {
		rp_op op = { .op = RP_OP_MKDIR, .mode = 0777 };
		rp_breq req = { .op = &op, .path = r->image.root };
		const int st = prep_submit(&p, &req);
		if (p.rc || st == 0)
			break;
		if (st != EEXIST) {
			rc = rp_fail(errbuf, RP_E_IO, "prepare: image: %s: mkdir failed: %s", r->image.root,
				     rp_replay_errno_name(st) ? rp_replay_errno_name(st) : "an error");
			goto out;
		}
		/* there already (an earlier run's): beneath the next free name, the same tree */
		if ((rc = draw_image(r, r->image_try + 1, errbuf)) < 0)
			goto out;
		r->image_try = (unsigned)rc;
	}
	snprintf(res->root, sizeof(res->root), "%s", r->image.root);
	res->capped = r->image.capped;
	res->shallow = r->image.shallow;
	res->dirs += p.rc == 0;
	for (size_t i = 1; i < r->image.n_items && !p.rc; i++) {
		const rp_plan_item *const it = &r->image.items[i];
		if (r->client_error && (rc = r->client_error(r->bstate, cs, errbuf)) < 0)
			goto out;
		if (it->dir) {
			rp_op op = { .op = RP_OP_MKDIR, .mode = 0777 };
			rp_breq req = { .op = &op, .path = it->path };
			const int st = prep_submit(&p, &req);
			res->dirs += st == 0;
			res->failures += st != 0;
			continue;
		}
		uint64_t bh = 0, written = 0;
		int st = prep_open(&p, it->path, RP_DISP_CREATE, RP_WANT_READ | RP_WANT_WRITE, &bh);
		if (st == 0) {
			st = fill_file(&p, bh, 0, it->size, RP_FILL_DATA, &written);
			prep_close(&p, bh);
		}
		res->bytes += written;
		res->files += st == 0;
		res->failures += st != 0;
	}
	rc = p.rc ? prep_fatal(&p, &r->image.items[0], errbuf) : 0;
out:
	if (r->bops->client_fini)
		r->bops->client_fini(r->bstate, cs);
	res->seconds = (double)(mono_ns() - t) / 1e9;
	return rc;
}

/*
 * Write back what prepare wrote and drop the clean page cache, dentries and
 * inodes (proc(5), /proc/sys/vm/drop_caches), so the run's first reads come
 * from the device: 1, or the errno that prevented it (EPERM when not root).
 */
int rp__drop_caches(void)
{
	sync();
	if (geteuid() != 0)
		return EPERM;
	const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	const ssize_t n = write(fd, "3", 1);
	const int err = n == 1 ? 0 : n < 0 ? errno : EIO;
	close(fd);
	return err ? err : 1;
}

int rp__prepare_run(rp_replay *r, char *errbuf)
{
	const uint64_t t = mono_ns();
	r->res.prepare.ran = true;
	r->res.prepare.fill = r->opts.prepare_fill;
	if (r->plan.n_items == 0 && !(r->opts.image && !r->opts.no_prepare)) {
		if (r->opts.drop_caches)
			r->res.prepare.caches = rp__drop_caches();
		r->res.prepare.seconds = (double)(mono_ns() - t) / 1e9;
		return 0;
	}
	const uint32_t copies = r->plan.n_items == 0 ? 0 : r->opts.clones ? r->opts.clones : 1;
	void *const cs = calloc(1, r->bops->client_size ? r->bops->client_size : 1);
	if (!cs)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = 0;
	for (uint32_t k = 0; k < copies && rc == 0; k++) {
		char dir[24] = "";
		if (r->opts.clones)
			snprintf(dir, sizeof(dir), "client%u", r->opts.clone_base + k + 1);
		rc = r->bops->client_init(r->bstate, cs, dir, errbuf);
		if (rc < 0) {
			char why[RP_ERRBUF_SIZE];
			snprintf(why, sizeof(why), "%s", errbuf);
			rc = rp_fail(errbuf, rc, "prepare: %s", why);
			break;
		}
		rc = prepare_dir(r, cs, errbuf);
		if (r->bops->client_fini)
			r->bops->client_fini(r->bstate, cs);
		memset(cs, 0, r->bops->client_size ? r->bops->client_size : 1);
	}
	/* One image for the whole run: processes that each run a share of the copies leave it to the first share's. */
	if (rc == 0 && r->opts.image && !r->opts.no_prepare && r->opts.clone_base == 0)
		rc = prepare_image(r, cs, errbuf);
	free(cs);
	if (rc == 0 && r->opts.drop_caches)
		r->res.prepare.caches = rp__drop_caches();
	r->res.prepare.seconds = (double)(mono_ns() - t) / 1e9;
	return rc;
}

void rp__prepare_free(rp_replay *r)
{
	rp_image_free(&r->image);
	rp__handles_fini(&r->loop_conflicts);
	r->trace_clients = NULL; /* the plan's */
	r->n_trace_clients = 0;
	rp_plan_free(&r->plan);
}

int rp_replay_target_entries(rp_replay *r, uint64_t *n, char *errbuf)
{
	*n = 0;
	if (!(r->op_mask >> RP_OP_READDIR & 1u))
		return rp_fail(errbuf, RP_E_UNSUPPORTED, "%s: the %s backend cannot list a directory", r->target, r->bops->name);
	void *const cs = calloc(1, r->bops->client_size ? r->bops->client_size : 1);
	if (!cs)
		return rp_fail(errbuf, RP_E_NOMEM, "out of memory");
	int rc = r->bops->client_init(r->bstate, cs, "", errbuf);
	if (rc < 0) {
		free(cs);
		return rc;
	}
	prep p = { .r = r, .cs = cs };
	rp_op op;
	memset(&op, 0, sizeof(op));
	op.op = RP_OP_READDIR;
	rp_breq req;
	memset(&req, 0, sizeof(req));
	req.op = &op;
	req.path = "/";
	const int st = prep_submit(&p, &req);
	if (r->bops->client_fini)
		r->bops->client_fini(r->bstate, cs);
	free(cs);
	if (p.rc)
		return rp_fail(errbuf, p.rc, "%s: listing it failed: the %s backend cannot go on", r->target, r->bops->name);
	if (st)
		return rp_fail(errbuf, RP_E_IO, "%s: listing it failed: %s", r->target,
			       rp_replay_errno_name(st) ? rp_replay_errno_name(st) : "an error");
	*n = req.result;
	return 0;
}
