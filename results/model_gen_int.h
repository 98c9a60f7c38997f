/* The generator's internals (results/model_gen*.c): its state, and the ops it draws on names and handles. */
#ifndef RP_MODEL_GEN_INT_H
#define RP_MODEL_GEN_INT_H

#include "formats/strtab.h"
#include "results/model.h"

#define GEN_MAX_CLIENTS 4096           /* --clients' bound */
#define GEN_MAX_FILES 100000           /* files of the initial set */
#define GEN_MAX_FILE_SIZE (UINT64_C(64) << 20) /* a file of the set is at most this big: prepare writes it whole */
#define GEN_MAX_OPS (UINT64_C(50) << 20) /* ops a trace may hold */
#define GEN_MAX_HANDLES 256            /* a client's open handles: at the cap the oldest is closed */
#define GEN_MAX_LOCKS 64               /* locks on one handle */
#define GEN_MAX_DIRS 100000            /* directories of the initial tree */
#define ENOENT_ 2

/* A directory tree of the initial set: one client's (under /gen/cK) or the shared one (/gen/shared). */
typedef struct gdir {
	uint32_t path;  /* its path id */
	uint32_t depth; /* its path components */
	double cum;     /* the weights (names it holds, drawn from the model's width) of it and those before */
} gdir;

typedef struct gtree {
	gdir *d; /* [0] the root */
	size_t n, cap;
} gtree;

typedef struct gfile {
	uint32_t path;
	int32_t owner;  /* generated client, -1 shared */
	uint64_t size;
	uint32_t opens;
	bool alive, created;
} gfile;

typedef struct ghandle {
	uint64_t id, pos;
	uint32_t file;
	uint32_t locks;
} ghandle;

typedef struct gclient {
	rp_rng rng;
	uint32_t cls, rank; /* its class and its place among the class's generated clients */
	uint64_t t;
	bool started;  /* its first op is laid out */
	uint64_t last; /* its last op's start laid out */
	uint64_t owed; /* unlocks made before their turn (a locked handle closed): later unlocks are them */
	ghandle h[GEN_MAX_HANDLES];
	uint32_t nh;
	uint32_t *own; /* indexes of the files it owns (alive or not) */
	size_t n_own, cap_own;
	uint32_t *dirs; /* mkdir'ed, not yet removed */
	size_t n_dirs, cap_dirs;
	uint32_t *dead; /* indexes of its files it unlinked: names failures name and creates take again */
	size_t n_dead, cap_dead;
	uint64_t seq;
	uint32_t dir; /* its directory's path id */
	gtree tree;    /* its directories */
	uint32_t *made; /* files it created, alive when last seen: what its unlinks take first */
	size_t n_made, cap_made;
} gclient;

typedef struct gen {
	const rp_model *m;
	rp_sink *sink;
	rp_strtab *tab;
	rp_gen_stats *st;
	char *errbuf;
	gclient *cl;
	uint32_t n;
	gfile *files;
	size_t n_files, cap_files;
	uint32_t *shared;
	size_t n_shared, cap_shared;
	uint32_t shared_dir;
	gtree stree; /* the shared directories */
	rp_op *buf; /* one chunk's ops */
	size_t n_buf, cap_buf;
	uint64_t next_handle;
	double p_shared, p_create, p_unlink_made; /* the last: unlinks of files the trace created, min(1, creates / unlinks) */
	uint32_t ngen[RP_MODEL_MAX_CLASSES]; /* generated clients per class */
	bool no_close[RP_MODEL_MAX_CLASSES]; /* the class never closes (NFSv3): its unlinks may take an open file */
	rp_mhist rtot[RP_MODEL_MAX_CLASSES], wtot[RP_MODEL_MAX_CLASSES]; /* the class's request lengths over all chunks */
} gen;

/* model_gen_tree.c: the helpers, the file set and the ops on names (calls go model_gen.c -> model_gen_io.c ->
 * model_gen_tree.c) */
int64_t rp__gen_intern(gen *g, const char *s);
int rp__gen_grow(void **p, size_t *cap, size_t need, size_t elem);
rp_op *rp__gen_emit(gen *g, gclient *c, unsigned opcode);
void rp__gen_fail_enoent(rp_op *op);
int rp__gen_add_file(gen *g, uint32_t path, int32_t owner, uint64_t size, bool created);
int rp__gen_make_files(gen *g, uint32_t model_clients, rp_rng *rng);
int64_t rp__gen_pick_file(gen *g, gclient *c, bool closed_own);
int rp__gen_new_name(gen *g, gclient *c, const char *stem, uint32_t *id);
int rp__gen_made(gen *g, gclient *c, uint32_t idx);
void rp__gen_tree_free(gtree *t);
int rp__gen_missing_path(gen *g, gclient *c, uint32_t *id);
int rp__gen_path_op(gen *g, gclient *c, unsigned opcode, bool fail);
int rp__gen_name_op(gen *g, gclient *c, unsigned opcode, bool *done);

/* model_gen_io.c: handles, opens and closes, reads and writes */
int rp__gen_close(gen *g, gclient *c, uint32_t k);
int rp__gen_open(gen *g, gclient *c, bool fail);
int rp__gen_io(gen *g, gclient *c, const rp_model_cell *cell, unsigned opcode);
int rp__gen_unlock(gen *g, gclient *c, ghandle *h);

#endif
